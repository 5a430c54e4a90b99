//! Reads of sysfs/procfs, always through a [`Root`] so tests can reproduce machines
//! this one lacks. Only what the honesty checks need lives here so far: MemTotal, the
//! block device behind a path, and its I/O counters.

pub mod blockdev;
pub mod ceiling;
pub mod diagnosis;
pub mod findings;
pub mod fixture;
pub mod mountinfo;
pub mod pagecache;
pub mod pcie;
pub mod platform;
pub mod sata;
pub mod sysroot;
pub mod system;
pub mod usb;
pub mod verdicts;
mod walk_links;
mod walk_mounts;

use std::path::{Path, PathBuf};

/// A root directory under which `/proc` and `/sys` are read (`/` on a real machine).
#[derive(Clone, Debug)]
pub struct Root(pub PathBuf);

impl Default for Root {
    fn default() -> Self {
        Root(PathBuf::from("/"))
    }
}

impl Root {
    /// Read a file given by its absolute path on the probed machine, as text.
    pub fn read(&self, abs: &str) -> Option<String> {
        std::fs::read_to_string(self.0.join(abs.trim_start_matches('/'))).ok()
    }

    /// MemTotal from /proc/meminfo, bytes.
    pub fn mem_total(&self) -> Option<u64> {
        let m = self.read("/proc/meminfo")?;
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    }

    /// Kernel name (e.g. `vda1`) of the block device `major:minor`.
    pub fn block_name(&self, major: u64, minor: u64) -> Option<String> {
        let u = self.read(&format!("/sys/dev/block/{major}:{minor}/uevent"))?;
        u.lines()
            .find_map(|l| l.strip_prefix("DEVNAME="))
            .map(str::to_string)
    }

    /// Bytes read and written by block device `major:minor` since boot, from its
    /// `stat` file (fields 3 and 7 are 512-byte sectors, Documentation/block/stat.rst).
    pub fn block_io_bytes(&self, major: u64, minor: u64) -> Option<(u64, u64)> {
        let s = self.read(&format!("/sys/dev/block/{major}:{minor}/stat"))?;
        let f: Vec<u64> = s
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        if f.len() < 7 {
            return None;
        }
        Some((f[2] * 512, f[6] * 512))
    }
}

/// `(major, minor)` of the device holding `path` (glibc's `gnu_dev_major/minor` split).
pub fn dev_of(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let d = std::fs::metadata(path).ok()?.dev();
    let major = ((d >> 8) & 0xfff) | ((d >> 32) & !0xfff);
    let minor = (d & 0xff) | ((d >> 12) & !0xff);
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake() -> (tempfile::TempDir, Root) {
        let d = tempfile::tempdir().unwrap();
        let r = Root(d.path().to_path_buf());
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(
            d.path().join("proc/meminfo"),
            "MemTotal:       24576000 kB\nMemFree: 1 kB\n",
        )
        .unwrap();
        let b = d.path().join("sys/dev/block/253:0");
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(
            b.join("uevent"),
            "MAJOR=253\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n",
        )
        .unwrap();
        std::fs::write(
            b.join("stat"),
            "  100 0 2048 5 200 0 4096 7 0 10 12 0 0 0 0 0 0\n",
        )
        .unwrap();
        (d, r)
    }

    #[test]
    fn reads_through_the_root() {
        let (_d, r) = fake();
        assert_eq!(r.mem_total(), Some(24576000 * 1024));
        assert_eq!(r.block_name(253, 0).as_deref(), Some("vda"));
        assert_eq!(r.block_io_bytes(253, 0), Some((2048 * 512, 4096 * 512)));
        assert_eq!(r.block_io_bytes(8, 0), None);
    }
}
