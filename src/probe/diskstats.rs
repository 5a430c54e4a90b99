//! The I/O counters of one block device, `/sys/block/DEV/stat`
//! (Documentation/block/stat.rst), read through a [`Root`]: what the device itself did,
//! beside what the process asked for. The sampler (run/sampler.rs) reads them once per
//! sample, so a read is one open and one read of an already resolved path.

use super::Root;

/// The counters of one `stat` line that the over-time series use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskStats {
    /// completed reads
    pub read_ios: u64,
    /// 512-byte sectors read
    pub read_sectors: u64,
    /// completed writes
    pub write_ios: u64,
    /// 512-byte sectors written
    pub write_sectors: u64,
    /// ms the device had I/O in flight
    pub io_ticks: u64,
    /// completed flushes (field 16, Linux 5.5 and later)
    pub flush_ios: Option<u64>,
}

/// Parse one `stat` line; `None` with fewer than 11 fields.
pub fn parse(s: &str) -> Option<DiskStats> {
    let f: Vec<u64> = s
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    (f.len() >= 11).then(|| DiskStats {
        read_ios: f[0],
        read_sectors: f[2],
        write_ios: f[4],
        write_sectors: f[6],
        io_ticks: f[9],
        flush_ios: f.get(15).copied(),
    })
}

/// The counters of the block device whose sysfs directory is `dir` (a machine path as
/// [`Root::block_dir`] gives it).
pub fn read(root: &Root, dir: &str) -> Option<DiskStats> {
    parse(&root.read(&format!("{dir}/stat"))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_old_and_new_kernels() {
        let old = parse("10 1 80 5 20 2 160 9 0 100 14").unwrap();
        assert_eq!(
            (
                old.read_ios,
                old.read_sectors,
                old.write_ios,
                old.write_sectors
            ),
            (10, 80, 20, 160)
        );
        assert_eq!((old.io_ticks, old.flush_ios), (100, None));
        let new = parse("10 1 80 5 20 2 160 9 0 100 14 3 0 24 0 7 2").unwrap();
        assert_eq!(new.flush_ios, Some(7));
        assert!(parse("1 2 3").is_none());
    }

    #[test]
    fn read_through_a_recorded_root() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("sys/devices/virtual/block/loop3");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("stat"), "1 0 8 0 2 0 16 0 0 5 5\n").unwrap();
        let root = Root(d.path().to_path_buf());
        let s = read(&root, "/sys/devices/virtual/block/loop3").unwrap();
        assert_eq!((s.read_sectors, s.write_sectors), (8, 16));
        assert!(read(&root, "/sys/devices/virtual/block/loop4").is_none());
    }
}
