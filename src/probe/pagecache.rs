//! Page-cache honesty check for buffered runs: does the file set fit in RAM, and how
//! many of the bytes the test read were actually read from the device? Device bytes
//! come from `/sys/dev/block/M:m/stat` deltas around the run; other processes' I/O on
//! the same device is included, so "served from memory" is a lower bound. The facts the
//! truth warnings are derived from (result/truth.rs) are recorded here too: a memory-backed
//! block device under the files (zram, brd, a loop device over tmpfs) and the bytes of
//! the files read that were holes or unwritten extents (set by the command after its
//! scan, files::preflight::unwritten_bytes).

use super::{dev_of, Root};
use std::path::{Path, PathBuf};

/// State captured before the run.
#[derive(Clone, Debug)]
pub struct Before {
    /// device `(major, minor)` holding the file set, when it is a block device
    pub dev: Option<(u64, u64)>,
    /// kernel name of that device
    pub device: Option<String>,
    /// memory filesystem name (`tmpfs`, `ramfs`) when the file set is in RAM
    pub memory_fs: Option<&'static str>,
    /// memory-backed block device under the files (`zram0`, `ram0`, `loop3 over tmpfs`)
    pub memory_device: Option<String>,
    /// MemTotal, bytes
    pub mem_total: Option<u64>,
    /// device counters at start (bytes read, bytes written)
    pub counters: Option<(u64, u64)>,
}

/// Name of a memory-backed filesystem type (`tmpfs`, `ramfs`) holding `dir`, if it is one.
pub fn memory_fs(dir: &Path) -> Option<&'static str> {
    let s = rustix::fs::statfs(dir).ok()?;
    match s.f_type as i64 {
        0x0102_1994 => Some("tmpfs"),
        0x8584_58f6 => Some("ramfs"),
        _ => None,
    }
}

/// Capture device and memory facts for `dir` before a run (`dir` may also be a data
/// file or a block device node: the device behind it is the one counted).
pub fn before(root: &Root, dir: &Path) -> Before {
    use std::os::unix::fs::FileTypeExt;
    // a device node lives on devtmpfs: the device (a disk, or a character device such as
    // /dev/full, which has no page cache), not /dev, is the target
    let node = std::fs::metadata(dir).is_ok_and(|m| {
        let t = m.file_type();
        t.is_block_device() || t.is_char_device()
    });
    let memory_fs = memory_fs(dir).filter(|_| !node);
    let dev = super::device_behind(dir)
        .or_else(|| dev_of(dir))
        .filter(|(maj, _)| *maj != 0);
    let device = dev.and_then(|(a, b)| root.block_name(a, b));
    let counters = dev.and_then(|(a, b)| root.block_io_bytes(a, b));
    Before {
        memory_device: device.as_deref().and_then(|d| memory_device(root, d)),
        dev,
        device,
        memory_fs,
        mem_total: root.mem_total(),
        counters,
    }
}

/// `name` when the block device of that kernel name keeps its data in RAM: zram and brd
/// (`ram0`), or a loop device whose backing file is on tmpfs/ramfs (`loop3 over tmpfs`).
pub fn memory_device(root: &Root, name: &str) -> Option<String> {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if base == "zram" || base == "ram" {
        return Some(name.to_string());
    }
    if let Some(rest) = name.strip_prefix("loop") {
        let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let disk = format!("loop{n}");
        let bf = root.read(&format!("/sys/block/{disk}/loop/backing_file"))?;
        let fs = memory_fs_of_file(root, bf.trim())?;
        return Some(format!("{name} over {fs}"));
    }
    None
}

/// The backing file of loop device `name` and the byte of that file where the device
/// begins: a whole device (`loop3`) begins at its `loop/offset`; a partition of one
/// (`loop3p1`, made by `losetup -P`) reads its disk's backing file, from that offset
/// plus the partition's `start` (512-byte sectors, `/sys/block/loop3/loop3p1/start`).
/// The file is named as on the probed machine. `None` for another device, an unbound
/// loop device, a partition whose start is not known, or a backing file removed after
/// `losetup` (`PATH (deleted)`: no name reaches it).
pub fn loop_backing(root: &Root, name: &str) -> Option<(PathBuf, u64)> {
    let n = name.strip_prefix("loop")?;
    let (disk_n, part) = match n.split_once('p') {
        Some((d, p)) => (d, Some(p)),
        None => (n, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(disk_n) || !part.is_none_or(digits) {
        return None;
    }
    let disk = format!("loop{disk_n}");
    let bf = root.read(&format!("/sys/block/{disk}/loop/backing_file"))?;
    let bf = bf.trim();
    if bf.is_empty() || bf.ends_with(" (deleted)") {
        return None;
    }
    let read_u64 = |rel: &str| {
        root.read(&format!("/sys/block/{disk}/{rel}"))
            .and_then(|o| o.trim().parse::<u64>().ok())
    };
    let offset = read_u64("loop/offset").unwrap_or(0);
    let start = match part {
        Some(_) => read_u64(&format!("{name}/start"))?.checked_mul(512)?,
        None => 0,
    };
    Some((PathBuf::from(bf), offset.checked_add(start)?))
}

/// The memory filesystem (`tmpfs`, `ramfs`) holding the file at absolute path `file` on
/// the probed machine: statfs of its directory on the live machine; on a recorded fixture
/// its mount in the root's `/proc/self/mountinfo` (the path only exists there). A
/// backing file removed after `losetup` is listed as `PATH (deleted)`.
fn memory_fs_of_file(root: &Root, file: &str) -> Option<&'static str> {
    let file = file.strip_suffix(" (deleted)").unwrap_or(file);
    let dir = Path::new(file).parent().unwrap_or(Path::new("/"));
    if root.is_live() {
        return memory_fs(dir);
    }
    let mounts = super::mountinfo::parse(&root.read("/proc/self/mountinfo")?);
    match super::mountinfo::find(&mounts, file)?.fs_type.as_str() {
        "tmpfs" => Some("tmpfs"),
        "ramfs" => Some("ramfs"),
        _ => None,
    }
}

/// The finished check, as recorded in `RunResult.page_cache`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PageCacheCheck {
    /// bytes of the file set
    pub file_set_bytes: u64,
    /// true when the run used buffered I/O (no O_DIRECT)
    pub buffered: bool,
    /// MemTotal, bytes
    pub mem_total_bytes: Option<u64>,
    /// buffered file set no larger than RAM
    pub fits_in_ram: bool,
    /// `tmpfs`/`ramfs` when the file set lives in memory
    pub memory_fs: Option<String>,
    /// memory-backed block device under the files (`zram0`, `loop3 over tmpfs`)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_device: Option<String>,
    /// bytes of the files the run reads that were holes or unwritten extents (sparse,
    /// fallocated) when scanned (SEEK_DATA/SEEK_HOLE); `None`: not scanned
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unwritten_bytes: Option<u64>,
    /// whether the job issued fsync/fdatasync or wrote with O_SYNC/O_DSYNC (None: unknown)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synced: Option<bool>,
    /// block device holding the file set
    pub device: Option<String>,
    /// bytes the test read (completed reads)
    pub app_read_bytes: u64,
    /// bytes the test wrote (completed writes)
    pub app_written_bytes: u64,
    /// bytes the device read during the run
    pub device_read_bytes: Option<u64>,
    /// bytes the device wrote during the run
    pub device_written_bytes: Option<u64>,
    /// bytes this process had read from storage during the run (`/proc/self/io`
    /// `read_bytes`), when known: the share of reads served from memory is then exact
    /// for this process, where the device's counters include every process's I/O
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_read_bytes: Option<u64>,
    /// percentage of the test's read bytes not read from storage: from
    /// `process_read_bytes` when known (exact), else from the device's counters (a
    /// lower bound)
    pub read_served_from_memory_pct: Option<f64>,
}

/// Whether a buffered file set of `bytes` fits in RAM of `mem_total` bytes.
pub fn fits_in_ram(bytes: u64, mem_total: Option<u64>) -> bool {
    mem_total.is_some_and(|m| bytes <= m)
}

/// Finish the check after the run.
pub fn after(
    root: &Root,
    b: &Before,
    file_set_bytes: u64,
    buffered: bool,
    app_read: u64,
    app_written: u64,
) -> PageCacheCheck {
    let now = b.dev.and_then(|(x, y)| root.block_io_bytes(x, y));
    let (dr, dw) = match (b.counters, now) {
        (Some((r0, w0)), Some((r1, w1))) => {
            (Some(r1.saturating_sub(r0)), Some(w1.saturating_sub(w0)))
        }
        _ => (None, None),
    };
    let mut c = PageCacheCheck {
        file_set_bytes,
        buffered,
        mem_total_bytes: b.mem_total,
        // On tmpfs/ramfs the file set *is* memory: reported as `memory_fs` instead.
        fits_in_ram: buffered && b.memory_fs.is_none() && fits_in_ram(file_set_bytes, b.mem_total),
        memory_fs: b.memory_fs.map(str::to_string),
        memory_device: b.memory_device.clone(),
        unwritten_bytes: None,
        synced: None,
        device: b.device.clone(),
        app_read_bytes: 0,
        app_written_bytes: 0,
        device_read_bytes: dr,
        device_written_bytes: dw,
        process_read_bytes: None,
        read_served_from_memory_pct: None,
    };
    account(&mut c, app_read, app_written, None);
    c
}

/// Record the bytes the test read and wrote and derive the share of the reads served
/// from memory (the result builder calls it with the result's totals, so every command
/// fills these the same way): from the bytes this process read from storage
/// (`process_read`, `/proc/self/io` over the run) when known, exact for this process;
/// else from the device's counters, a lower bound (they include other processes' reads).
pub fn account(c: &mut PageCacheCheck, app_read: u64, app_written: u64, process_read: Option<u64>) {
    c.app_read_bytes = app_read;
    c.app_written_bytes = app_written;
    c.process_read_bytes = process_read.filter(|_| c.memory_fs.is_none());
    let from_storage = c.process_read_bytes.or(c.device_read_bytes);
    c.read_served_from_memory_pct = if c.memory_fs.is_some() && app_read > 0 {
        Some(100.0)
    } else {
        match from_storage {
            Some(d) if app_read > 0 => {
                Some(100.0 * app_read.saturating_sub(d) as f64 / app_read as f64)
            }
            _ => None,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shm_is_memory() {
        if Path::new("/dev/shm").is_dir() {
            assert_eq!(memory_fs(Path::new("/dev/shm")), Some("tmpfs"));
        }
    }

    #[test]
    fn served_percentage_is_app_minus_device_over_app() {
        let d = tempfile::tempdir().unwrap();
        let root = Root(d.path().to_path_buf());
        let sd = d.path().join("sys/dev/block/8:0");
        std::fs::create_dir_all(&sd).unwrap();
        std::fs::write(sd.join("stat"), "1 0 100 0 1 0 0 0 0 0 0\n").unwrap();
        let b = Before {
            dev: Some((8, 0)),
            device: Some("sda".into()),
            memory_fs: None,
            memory_device: None,
            mem_total: Some(1 << 30),
            counters: Some((100 * 512, 0)),
        };
        // device read 1000 sectors more = 512000 bytes; app read 2048000 bytes → 75 %
        std::fs::write(sd.join("stat"), "1 0 1100 0 1 0 8 0 0 0 0\n").unwrap();
        let c = after(&root, &b, 1 << 20, true, 2_048_000, 4096);
        assert_eq!(c.device_read_bytes, Some(512_000));
        assert_eq!(c.device_written_bytes, Some(4096));
        assert_eq!(c.read_served_from_memory_pct, Some(75.0));
        assert!(c.fits_in_ram);
    }

    /// Write `text` at `rel` under the recorded root `dir`, its directories made.
    fn put_file(dir: &std::path::Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A loop device whose backing file is on tmpfs (or ramfs) is memory-backed,
    /// read from a recorded root (sysfs and mountinfo), so no real loop device is needed.
    #[test]
    fn loop_over_tmpfs_in_a_fixture_is_memory_backed() {
        let d = tempfile::tempdir().unwrap();
        let root = Root(d.path().to_path_buf());
        let put = |rel: &str, text: &str| put_file(d.path(), rel, text);
        put(
            "proc/self/mountinfo",
            "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n\
             30 22 0:25 / /dev/shm rw - tmpfs tmpfs rw\n\
             31 22 0:26 / /mnt/r rw - ramfs ramfs rw\n",
        );
        put("sys/block/loop3/loop/backing_file", "/dev/shm/disk.img\n");
        put("sys/block/loop4/loop/backing_file", "/var/tmp/disk.img\n");
        put(
            "sys/block/loop5/loop/backing_file",
            "/dev/shm/gone.img (deleted)\n",
        );
        put("sys/block/loop6/loop/backing_file", "/mnt/r/x.img\n");
        assert_eq!(
            memory_device(&root, "loop3"),
            Some("loop3 over tmpfs".into())
        );
        // a partition of the loop device is named as itself, its disk's backing file read
        assert_eq!(
            memory_device(&root, "loop3p1"),
            Some("loop3p1 over tmpfs".into())
        );
        assert_eq!(memory_device(&root, "loop4"), None);
        assert_eq!(
            memory_device(&root, "loop5"),
            Some("loop5 over tmpfs".into())
        );
        assert_eq!(
            memory_device(&root, "loop6"),
            Some("loop6 over ramfs".into())
        );
        // no such loop device, no mountinfo: nothing claimed
        assert_eq!(memory_device(&root, "loop9"), None);
        assert_eq!(memory_device(&root, "zram0"), Some("zram0".into()));
        assert_eq!(memory_device(&root, "sda1"), None);
        std::fs::remove_file(d.path().join("proc/self/mountinfo")).unwrap();
        assert_eq!(memory_device(&root, "loop3"), None);
    }

    /// A loop device's backing file and where in it the device begins, a partition's
    /// from its start; none for a partition whose start is unknown, another device, a
    /// removed backing file or an unbound device.
    #[test]
    fn loop_backing_names_the_file_and_offset() {
        let d = tempfile::tempdir().unwrap();
        let root = Root(d.path().to_path_buf());
        let put = |rel: &str, text: &str| put_file(d.path(), rel, text);
        put("sys/block/loop2/loop/backing_file", "/var/tmp/a.img\n");
        put("sys/block/loop2/loop/offset", "1048576\n");
        put("sys/block/loop3/loop/backing_file", "/var/tmp/b.img\n");
        put(
            "sys/block/loop5/loop/backing_file",
            "/var/tmp/c.img (deleted)\n",
        );
        let p = |s: &str| Some((PathBuf::from(s), 0));
        assert_eq!(
            loop_backing(&root, "loop2"),
            Some((PathBuf::from("/var/tmp/a.img"), 1 << 20))
        );
        assert_eq!(loop_backing(&root, "loop3"), p("/var/tmp/b.img"));
        // a partition without a recorded start: where it begins is not known
        assert_eq!(loop_backing(&root, "loop3p1"), None);
        // a partition (losetup -P) reads its disk's file from the disk's offset plus its
        // own start, in 512-byte sectors
        put("sys/block/loop2/loop2p1/start", "2048\n");
        put("sys/block/loop3/loop3p2/start", "10\n");
        assert_eq!(
            loop_backing(&root, "loop2p1"),
            Some((PathBuf::from("/var/tmp/a.img"), (1 << 20) + 2048 * 512))
        );
        assert_eq!(
            loop_backing(&root, "loop3p2"),
            Some((PathBuf::from("/var/tmp/b.img"), 5120))
        );
        assert_eq!(loop_backing(&root, "loop3p"), None);
        assert_eq!(loop_backing(&root, "loopp1"), None);
        assert_eq!(loop_backing(&root, "loop5"), None);
        assert_eq!(loop_backing(&root, "loop9"), None);
        assert_eq!(loop_backing(&root, "sda"), None);
    }

    #[test]
    fn fits_in_ram_rule() {
        assert!(fits_in_ram(1 << 20, Some(1 << 30)));
        assert!(!fits_in_ram(2 << 30, Some(1 << 30)));
        assert!(!fits_in_ram(1, None));
    }
}
