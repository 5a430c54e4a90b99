//! Reads of sysfs/procfs, always through a [`Root`] so tests can reproduce machines
//! this one lacks: no other room opens a path under `/sys` or `/proc` (the device
//! guard, direct-I/O alignment, zones, polling, fio's disk counters, NUMA nodes and the
//! clock source all ask a `Root`). [`Root::read`] and [`sysroot::Sys`] resolve symlinks
//! inside the root; on the live machine they open the path directly (as cheap as a bare
//! read). Here: MemTotal, the sysfs directory of the block device behind a path, and its
//! I/O counters, and the test hook that gives a run's sampler and device view a recorded
//! machine ([`Root::of_samples`]); the diagnosis modules below read the rest.

pub mod blockdev;
pub mod ceiling;
pub mod devstat;
pub mod diagnosis;
pub mod findings;
pub mod identity;
pub mod mountinfo;
pub mod pagecache;
pub mod pcie;
pub mod platform;
pub mod sata;
pub mod sensors;
pub mod sysroot;
pub mod system;
pub mod taskstats;
pub mod usb;
pub mod verdicts;
mod walk;
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
    /// Whether this is the machine iomark runs on (`/`), not a recorded fixture.
    pub fn is_live(&self) -> bool {
        self.0 == Path::new("/")
    }

    /// Where a file named by its absolute path on the probed machine is found here: the
    /// path itself on the live machine, under the root on a recorded one (a fixture
    /// keeps the machine's files, e.g. a loop device's backing file, in its tree).
    pub fn local(&self, abs: &Path) -> PathBuf {
        match abs.strip_prefix("/") {
            Ok(rel) if !self.is_live() => self.0.join(rel),
            _ => abs.to_path_buf(),
        }
    }

    /// The symlink-confined reader of this root.
    pub fn sys(&self) -> sysroot::Sys<'_> {
        sysroot::Sys::new(self)
    }

    /// Read a file given by its absolute path on the probed machine, as text.
    pub fn read(&self, abs: &str) -> Option<String> {
        self.sys().read(abs)
    }

    /// Machine path of `/sys/dev/block/MAJ:MIN` with its link resolved (e.g.
    /// `/sys/devices/…/block/sda/sda1`); `None` when the kernel has no such block device
    /// (tmpfs, overlay and other filesystems without one).
    pub fn block_dir(&self, (major, minor): (u64, u64)) -> Option<String> {
        let link = format!("/sys/dev/block/{major}:{minor}");
        let sys = self.sys();
        sys.exists(&link).then(|| sys.real_path(&link)).flatten()
    }

    /// [`Root::block_dir`] of the whole disk: a partition's parent directory (partitions
    /// have no `queue/`), the device's own otherwise.
    pub fn disk_dir(&self, dev: (u64, u64)) -> Option<String> {
        let d = self.block_dir(dev)?;
        Some(if self.sys().exists(&format!("{d}/partition")) {
            sysroot::parent(&d)
        } else {
            d
        })
    }

    /// MemTotal from /proc/meminfo, bytes.
    pub fn mem_total(&self) -> Option<u64> {
        let m = self.read("/proc/meminfo")?;
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    }

    /// The CPU tick counters of /proc/stat as (idle, total): the whole system first
    /// (`cpu`), then each CPU (`cpu0`, `cpu1`, …); idle counts idle and iowait.
    pub fn cpu_ticks(&self) -> Vec<(u64, u64)> {
        let Some(s) = self.read("/proc/stat") else {
            return Vec::new();
        };
        s.lines()
            .filter(|l| l.starts_with("cpu"))
            .map(|l| {
                let v: Vec<u64> = l
                    .split_whitespace()
                    .skip(1)
                    .filter_map(|x| x.parse().ok())
                    .collect();
                let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
                (idle, v.iter().take(8).sum())
            })
            .collect()
    }

    /// Kernel name (e.g. `vda1`) of the block device `major:minor`: its `uevent`'s
    /// `DEVNAME`, else the name of its sysfs directory (the kernel names the directory
    /// after the device; a recorded machine may keep the link and not the `uevent`).
    pub fn block_name(&self, major: u64, minor: u64) -> Option<String> {
        let u = self.read(&format!("/sys/dev/block/{major}:{minor}/uevent"));
        u.and_then(|u| {
            u.lines()
                .find_map(|l| l.strip_prefix("DEVNAME="))
                .map(str::to_string)
        })
        .or_else(|| {
            let dir = self.block_dir((major, minor))?;
            // `/sys/dev/block/MAJ:MIN` itself (no link to resolve) names no device
            Some(sysroot::base(&dir).to_string()).filter(|n| !n.is_empty() && !n.contains(':'))
        })
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

/// The test hook that points a run's sampler at a recorded machine (docs/testing.md,
/// "A recorded machine under a run"); never set for a measurement.
pub const TEST_ROOT_ENV: &str = "IOMARK_TEST_PROBE_ROOT";

/// The recorded machine [`TEST_ROOT_ENV`] names: `Ok(None)` when it is unset or empty
/// (the live machine); an error unless it is the absolute path of a directory other
/// than `/` (the hook is honoured only for a root given explicitly).
pub fn test_root() -> Result<Option<Root>, String> {
    test_root_of(std::env::var_os(TEST_ROOT_ENV))
}

/// [`test_root`] of the variable's value `v`.
fn test_root_of(v: Option<std::ffi::OsString>) -> Result<Option<Root>, String> {
    let Some(p) = v.filter(|v| !v.is_empty()).map(PathBuf::from) else {
        return Ok(None);
    };
    if !p.is_absolute() || p == Path::new("/") || !p.is_dir() {
        return Err(format!(
            "{TEST_ROOT_ENV}={}: not a recorded machine (accepted: the absolute path of a directory standing for /, not / itself; a test hook, never set for a measurement)",
            p.display()
        ));
    }
    Ok(Some(Root(p)))
}

impl Root {
    /// The one root a run's device is described through: its sampler's device counters,
    /// temperature and CPU clock, and the device view of its notes (the disk under the
    /// files and its stack's members, their counters and write-cache modes) — the live
    /// machine, or the recorded one of the test hook [`TEST_ROOT_ENV`]. Nothing else
    /// reads through it: the write guard, the layout, the target's diagnosis and the
    /// page-cache check stay on the live machine, where the I/O goes.
    pub fn of_samples() -> Root {
        test_root().ok().flatten().unwrap_or_default()
    }
}

/// `(major, minor)` of a `dev_t` (glibc's `gnu_dev_major/minor` split).
pub fn split_dev(d: u64) -> (u64, u64) {
    let major = ((d >> 8) & 0xfff) | ((d >> 32) & !0xfff);
    let minor = (d & 0xff) | ((d >> 12) & !0xff);
    (major, minor)
}

/// `(major, minor)` of the device holding `path`.
pub fn dev_of(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some(split_dev(std::fs::metadata(path).ok()?.dev()))
}

/// `(major, minor)` of the block device behind `path`: a block device node's own
/// (`st_rdev`), otherwise the filesystem's (`st_dev`) of `path` or, for a path that
/// does not exist yet, of its nearest existing ancestor (the current directory for a
/// bare name). This stats the user's path on this machine; what the device is comes
/// from [`Root::block_dir`].
pub fn device_behind(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let mut p = path;
    let m = loop {
        match std::fs::metadata(p) {
            Ok(m) => break m,
            Err(_) => match p.parent() {
                Some(q) if !q.as_os_str().is_empty() => p = q,
                _ => break std::fs::metadata(".").ok()?,
            },
        }
    };
    Some(split_dev(if m.file_type().is_block_device() {
        m.rdev()
    } else {
        m.dev()
    }))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Write `text` at `rel` under a recorded root, making its directories.
    pub(crate) fn put(root: &std::path::Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

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
    fn cpu_ticks_idle_and_total() {
        let (d, r) = fake();
        std::fs::write(
            d.path().join("proc/stat"),
            "cpu  10 0 10 70 10 0 0 0 0 0\ncpu0 5 0 5 35 5 0 0 0 0 0\nintr 1\n",
        )
        .unwrap();
        assert_eq!(r.cpu_ticks(), [(80, 100), (40, 50)]);
    }

    #[test]
    fn reads_through_the_root() {
        let (_d, r) = fake();
        assert_eq!(r.mem_total(), Some(24576000 * 1024));
        assert_eq!(r.block_name(253, 0).as_deref(), Some("vda"));
        assert_eq!(r.block_io_bytes(253, 0), Some((2048 * 512, 4096 * 512)));
        assert_eq!(r.block_io_bytes(8, 0), None);
    }

    #[test]
    fn block_and_disk_dirs_resolve_inside_the_root() {
        let (d, r) = fake();
        let disk = d.path().join("sys/devices/pci0/block/sda");
        std::fs::create_dir_all(disk.join("sda1")).unwrap();
        std::fs::create_dir_all(disk.join("queue")).unwrap();
        std::fs::write(disk.join("sda1/partition"), "1\n").unwrap();
        let links = d.path().join("sys/dev/block");
        std::os::unix::fs::symlink("../../devices/pci0/block/sda", links.join("8:0")).unwrap();
        // an absolute link target restarts at the fixture root, not the host's /sys
        std::os::unix::fs::symlink("/sys/devices/pci0/block/sda/sda1", links.join("8:1")).unwrap();
        assert_eq!(
            r.block_dir((8, 0)).as_deref(),
            Some("/sys/devices/pci0/block/sda")
        );
        assert_eq!(
            r.block_dir((8, 1)).as_deref(),
            Some("/sys/devices/pci0/block/sda/sda1")
        );
        assert_eq!(
            r.disk_dir((8, 1)).as_deref(),
            Some("/sys/devices/pci0/block/sda")
        );
        assert_eq!(
            r.disk_dir((8, 0)).as_deref(),
            Some("/sys/devices/pci0/block/sda")
        );
        assert_eq!(r.block_dir((8, 2)), None);
        // no `uevent` recorded: the name is the directory's; none without a device
        assert_eq!(r.block_name(8, 1).as_deref(), Some("sda1"));
        assert_eq!(r.block_name(8, 0).as_deref(), Some("sda"));
        assert_eq!(r.block_name(8, 2), None);
        assert!(!r.is_live());
        assert!(Root::default().is_live());
    }

    /// The test hook's root: unset or empty is the live machine; an absolute directory
    /// other than `/` is the recorded machine; anything else is refused with the
    /// variable's name.
    #[test]
    fn the_test_root_is_honoured_only_for_an_explicit_directory() {
        let d = tempfile::tempdir().unwrap();
        let of = |v: &str| test_root_of(Some(v.into()));
        assert!(matches!(test_root_of(None), Ok(None)));
        assert!(matches!(of(""), Ok(None)));
        let r = of(d.path().to_str().unwrap()).unwrap().unwrap();
        assert_eq!(r.0, d.path());
        assert!(!r.is_live());
        let file = d.path().join("f");
        std::fs::write(&file, "").unwrap();
        for bad in ["/", "relative/dir", file.to_str().unwrap(), "/no/such/dir"] {
            let e = of(bad).unwrap_err();
            assert!(e.starts_with(&format!("{TEST_ROOT_ENV}={bad}: ")), "{e}");
        }
    }

    #[test]
    fn device_behind_a_missing_path_is_its_nearest_ancestors() {
        let d = tempfile::tempdir().unwrap();
        let here = device_behind(d.path()).unwrap();
        assert_eq!(device_behind(&d.path().join("no/such/file")), Some(here));
        assert_eq!(dev_of(d.path()), Some(here));
        assert_eq!(split_dev(libc::makedev(259, 3)), (259, 3));
        // a block device node stands for itself (st_rdev), if this machine has one
        if let Some(e) = std::fs::read_dir("/dev").ok().and_then(|rd| {
            use std::os::unix::fs::FileTypeExt;
            rd.flatten()
                .find(|e| e.file_type().is_ok_and(|t| t.is_block_device()))
        }) {
            use std::os::unix::fs::MetadataExt;
            let rdev = std::fs::metadata(e.path()).unwrap().rdev();
            assert_eq!(device_behind(&e.path()), Some(split_dev(rdev)));
        }
    }
}
