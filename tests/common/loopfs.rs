//! A small filesystem on a loop device: ext4 for tests that must fill a disk
//! (`fill_device`, ENOSPC), XFS for atomic writes (Linux ≥ 6.16 XFS with reflink
//! takes RWF_ATOMIC writes in software, where this VM's disk reports none). Included with `#[path = "common/loopfs.rs"] mod loopfs;`.
//! Needs root (CI runs as root); without it, or without losetup/mkfs.ext4/mount,
//! [`SmallExt4::new`] prints why and returns `None`. Drop unmounts, detaches the loop
//! device and removes the image, also when the test fails.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Whether the tests run as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn tool(name: &str) -> Option<PathBuf> {
    ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// A `mib`-MiB filesystem image mounted through a loop device on a scratch directory.
pub struct SmallExt4 {
    mnt: PathBuf,
    dev: Option<String>,
    mounted: bool,
    _tmp: tempfile::TempDir,
}

static LOOP_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl SmallExt4 {
    /// An ext4 of `mib` MiB; `None` (with the reason printed) when not root or the
    /// tools are missing.
    pub fn new(mib: u64) -> Option<SmallExt4> {
        Self::with_fs(mib, "ext4")
    }

    /// A filesystem of type `fs` (`ext4` or `xfs`; XFS needs at least 300 MiB, the
    /// image is sparse); `None` (with the reason printed) when not root or the tools
    /// are missing.
    pub fn with_fs(mib: u64, fs: &str) -> Option<SmallExt4> {
        if !is_root() {
            eprintln!("skipped: a loop-mounted {fs} needs root; CI runs as root");
            return None;
        }
        let (Some(losetup), Some(mkfs), Some(mount)) =
            (tool("losetup"), tool(&format!("mkfs.{fs}")), tool("mount"))
        else {
            eprintln!("skipped: losetup, mkfs.{fs} or mount missing");
            return None;
        };
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        std::fs::create_dir_all(&base).unwrap();
        let tmp = tempfile::Builder::new()
            .prefix("iomark-loop-")
            .tempdir_in(base)
            .unwrap();
        let img = tmp.path().join("fs.img");
        let mnt = tmp.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        std::fs::File::create(&img)
            .unwrap()
            .set_len(mib << 20)
            .unwrap();
        let mut g = SmallExt4 {
            mnt,
            dev: None,
            mounted: false,
            _tmp: tmp,
        };
        {
            let _l = LOOP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
            for _ in 0..5 {
                let o = Command::new(&losetup)
                    .args(["--find", "--show"])
                    .arg(&img)
                    .output()
                    .unwrap();
                if o.status.success() {
                    g.dev = Some(String::from_utf8_lossy(&o.stdout).trim().to_string());
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        let dev = g.dev.clone().expect("losetup --find --show failed");
        // ext4: no reserved blocks, root sees exactly what statvfs reports as available
        let args: &[&str] = if fs == "ext4" {
            &["-q", "-F", "-m", "0"]
        } else {
            &["-q", "-f"]
        };
        let ok = Command::new(mkfs)
            .args(args)
            .arg(&dev)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mkfs.{fs} {dev}");
        let ok = Command::new(mount)
            .arg(&dev)
            .arg(&g.mnt)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mount {dev}");
        g.mounted = true;
        Some(g)
    }

    /// The loop device's name (`loop3`), for its `/sys/block/NAME/stat`.
    #[allow(dead_code)]
    pub fn dev_name(&self) -> Option<&str> {
        self.dev.as_deref().and_then(|d| d.rsplit('/').next())
    }

    /// The mount point.
    pub fn dir(&self) -> &Path {
        &self.mnt
    }

    /// Bytes available (statvfs f_bavail × f_frsize).
    pub fn avail(&self) -> u64 {
        let st = rustix::fs::statvfs(&self.mnt).unwrap();
        st.f_bavail * st.f_frsize
    }

    /// Fill the filesystem with a "user" file (`user-filler`, not iomark's) until about
    /// `leave` bytes stay available (asserted within 64 KiB).
    pub fn fill(&self, leave: u64) {
        let f = self.dir().join("user-filler");
        let avail = self.avail();
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&f)
            .and_then(|mut h| {
                use std::io::Write;
                h.write_all(&vec![7u8; avail.saturating_sub(leave) as usize])?;
                h.sync_all()
            });
        assert!(
            self.avail() <= leave + (64 << 10),
            "fill left {}",
            self.avail()
        );
    }
}

impl Drop for SmallExt4 {
    fn drop(&mut self) {
        if self.mounted {
            let ok = Command::new("umount")
                .arg(&self.mnt)
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if !ok {
                let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
            }
        }
        if let Some(dev) = &self.dev {
            let _ = Command::new("losetup").args(["-d", dev]).status();
        }
    }
}
