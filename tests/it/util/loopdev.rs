//! Loop devices, filesystems on them and mounts, as guards: dropping one (also when a
//! test panics) unmounts (lazily if busy), detaches the loop device and removes the
//! image. Loop set-up is serialised in this binary (`losetup --find` races between
//! threads) and retried against other processes taking the same free device.
//!
//! They need root (CI runs as root). [`loop_skip_reason`] and `Err` from [`LoopFs::new`]
//! say why a machine cannot run them, so each test decides whether to skip (and print
//! why) or fail; once set-up has started, every failure panics.

use super::scratch::{scratch, sha256};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;
use tempfile::TempDir;

static LOOP_LOCK: Mutex<()> = Mutex::new(());

/// Whether the tests run as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Where `name` is installed (PATH, then the sbin directories), if it is.
pub fn tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .map(PathBuf::from)
        .chain(["/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Fail (never skip) when a tool the test needs is missing.
pub fn require_tool(name: &str) -> PathBuf {
    tool(name).unwrap_or_else(|| {
        panic!("{name} is required by this test but was not found in PATH or /usr/sbin, /sbin (install util-linux / e2fsprogs)")
    })
}

/// Run a helper command, panicking with its output when it fails; its stdout, trimmed.
pub fn sh(prog: &str, args: &[&str]) -> String {
    let o = Command::new(require_tool(prog))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("spawn {prog}: {e}"));
    assert!(
        o.status.success(),
        "{prog} {args:?} failed ({}):\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Why this machine cannot make loop devices (not root, no losetup, no loop driver).
pub fn loop_skip_reason() -> Option<String> {
    if !is_root() {
        return Some("not root (loop devices need root; CI runs as root)".into());
    }
    if tool("losetup").is_none() {
        return Some("losetup not installed".into());
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some("no /dev/loop-control (loop driver missing)".into());
    }
    None
}

/// A loop device over a scratch image of `bytes` bytes; detached on drop.
pub struct LoopDev {
    /// the device (`/dev/loopN`)
    pub dev: PathBuf,
    /// its backing file
    pub img: PathBuf,
    _dir: TempDir,
}

impl LoopDev {
    /// Attach a fresh (sparse) image, with `sector` bytes per logical block when given
    /// (checked in sysfs: the kernel must really expose it).
    pub fn new(bytes: u64, sector: Option<u32>) -> LoopDev {
        LoopDev::in_dir(scratch(), bytes, sector)
    }

    /// [`LoopDev::new`] with the image in `dir` (removed on drop, after the detach).
    pub fn in_dir(dir: TempDir, bytes: u64, sector: Option<u32>) -> LoopDev {
        let img = dir.path().join("disk.img");
        std::fs::File::create(&img).unwrap().set_len(bytes).unwrap();
        LoopDev::attach(dir, img, sector, &[])
    }

    /// A loop device over a fresh sparse image of `bytes` bytes that holds an MBR
    /// partition table with one Linux partition from sector `start` for `sectors`
    /// 512-byte sectors (written by the test: 16 bytes at 446 and the 0x55AA signature;
    /// no partitioning tool needed), attached with `losetup --partscan`, so the kernel
    /// makes `/dev/loopNp1` ([`LoopDev::partition`]); a kernel without the MBR parser
    /// (`CONFIG_MSDOS_PARTITION` unset, as on the CI VM) is given the partition by
    /// `partx --add`, which reads the table itself.
    pub fn partitioned(bytes: u64, start: u32, sectors: u32) -> LoopDev {
        use std::os::unix::fs::FileExt;
        let dir = scratch();
        let img = dir.path().join("disk.img");
        let f = std::fs::File::create(&img).unwrap();
        f.set_len(bytes).unwrap();
        let mut mbr = [0u8; 512];
        // status, CHS first (unused), type 0x83 (Linux), CHS last (unused), LBA, count
        mbr[446 + 4] = 0x83;
        mbr[446 + 8..446 + 12].copy_from_slice(&start.to_le_bytes());
        mbr[446 + 12..446 + 16].copy_from_slice(&sectors.to_le_bytes());
        mbr[510] = 0x55;
        mbr[511] = 0xAA;
        f.write_all_at(&mbr, 0).unwrap();
        f.sync_all().unwrap();
        let lo = LoopDev::attach(dir, img, None, &["--partscan"]);
        let part = lo.partition(1);
        if !Path::new(&format!("/sys/block/{0}/{0}p1", lo.name())).exists() {
            sh("partx", &["--add", lo.path()]);
        }
        // the node comes from devtmpfs after the kernel's partition scan
        for _ in 0..200 {
            if Path::new(&part).exists() {
                return lo;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("{part} did not appear after losetup --partscan");
    }

    /// The node of partition `n` of this device (`/dev/loop3p1`).
    pub fn partition(&self, n: u32) -> String {
        format!("{}p{n}", self.path())
    }

    /// Attach `img` (in `dir`) with `extra` losetup options.
    fn attach(dir: TempDir, img: PathBuf, sector: Option<u32>, extra: &[&str]) -> LoopDev {
        let mut args = vec!["--find".to_string(), "--show".to_string()];
        args.extend(extra.iter().map(|a| a.to_string()));
        if let Some(n) = sector {
            args.extend(["--sector-size".to_string(), n.to_string()]);
        }
        let losetup = require_tool("losetup");
        let mut last = String::new();
        let _l = LOOP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        for _ in 0..20 {
            let o = Command::new(&losetup)
                .args(&args)
                .arg(&img)
                .output()
                .expect("spawn losetup");
            if o.status.success() {
                let dev = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
                let lo = LoopDev {
                    dev,
                    img,
                    _dir: dir,
                };
                if let Some(n) = sector {
                    assert_eq!(
                        lo.sysfs("queue/logical_block_size"),
                        n.to_string(),
                        "{}",
                        lo.path()
                    );
                }
                return lo;
            }
            last = String::from_utf8_lossy(&o.stderr).into_owned();
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("losetup {args:?} failed 20 times: {last}");
    }

    pub fn path(&self) -> &str {
        self.dev.to_str().unwrap()
    }

    /// The device's name (`loop3`), for `/sys/block/NAME/`.
    pub fn name(&self) -> String {
        self.dev.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// `/sys/block/NAME/REL`, trimmed.
    pub fn sysfs(&self, rel: &str) -> String {
        let p = format!("/sys/block/{}/{rel}", self.name());
        std::fs::read_to_string(&p)
            .unwrap_or_else(|e| panic!("{p}: {e}"))
            .trim()
            .to_string()
    }

    /// Write `bytes` at `off` on the device and sync.
    pub fn write_at(&self, off: u64, bytes: &[u8]) {
        write_synced(&self.dev, off, bytes);
    }

    /// Write `bytes` at `off` of the backing image (not through the device) and sync.
    pub fn write_image_at(&self, off: u64, bytes: &[u8]) {
        write_synced(&self.img, off, bytes);
    }

    /// sha256 of the whole device.
    pub fn sha(&self) -> String {
        sha256(&self.dev)
    }
}

/// Write `bytes` at `off` of the existing file or device `p` and sync it.
fn write_synced(p: &Path, off: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
    f.write_all_at(bytes, off).unwrap();
    f.sync_all().unwrap();
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
    }
}

/// `mount ARGS… DIR` on a fresh scratch directory; unmounted on drop (lazily when busy).
pub struct Mount {
    mnt: PathBuf,
    _tmp: TempDir,
}

impl Mount {
    /// Mount `args` (`[dev]`, `["-t", "ramfs", "ramfs"]`); panics when mount fails.
    pub fn new(args: &[&str]) -> Mount {
        let tmp = scratch();
        let mnt = tmp.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        let mut a = args.to_vec();
        a.push(mnt.to_str().unwrap());
        sh("mount", &a);
        Mount { mnt, _tmp: tmp }
    }

    /// Mount `args`, or say why not (not root, no permission in a container).
    pub fn try_new(args: &[&str]) -> Result<Mount, String> {
        if !is_root() {
            return Err("mounting needs root; CI runs as root".into());
        }
        let tmp = scratch();
        let mnt = tmp.path().join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        let o = Command::new("mount")
            .args(args)
            .arg(&mnt)
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "mount {args:?}: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        Ok(Mount { mnt, _tmp: tmp })
    }

    /// A ramfs (no O_DIRECT, no size limit).
    pub fn ramfs() -> Mount {
        Mount::new(&["-t", "ramfs", "ramfs"])
    }

    /// The mount point.
    pub fn dir(&self) -> &Path {
        &self.mnt
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.mnt)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
        }
    }
}

/// A filesystem made on a loop device and mounted. Fields drop in order: unmount, then
/// detach.
pub struct LoopFs {
    mount: Mount,
    dev: LoopDev,
}

/// mkfs.ext4's arguments for a filesystem whose disk only the test's own I/O moves:
/// no reserved blocks, and inode tables and journal written by mkfs itself (without
/// `lazy_itable_init=0` the kernel's ext4lazyinit thread zeroes them after the mount,
/// megabytes of writes the device counters see that no test process made).
const EXT4_QUIET: &[&str] = &[
    "-q",
    "-F",
    "-m",
    "0",
    "-E",
    "lazy_itable_init=0,lazy_journal_init=0",
];

impl LoopFs {
    /// `mkfs.FS MKFS_ARGS` on a fresh `bytes`-byte loop device (`sector` bytes per
    /// logical block when given), mounted. `Err` says why this machine cannot (not root,
    /// a tool missing); any later failure panics.
    pub fn new(
        bytes: u64,
        sector: Option<u32>,
        fs: &str,
        mkfs_args: &[&str],
    ) -> Result<LoopFs, String> {
        if !is_root() {
            return Err(format!("a loop-mounted {fs} needs root; CI runs as root"));
        }
        for t in ["losetup", &format!("mkfs.{fs}"), "mount"] {
            if tool(t).is_none() {
                return Err(format!("{t} is not installed"));
            }
        }
        Ok(LoopFs::with_dev(LoopDev::new(bytes, sector), fs, mkfs_args))
    }

    /// An ext4 of `mib` MiB ([`EXT4_QUIET`]) on a loop device whose image is a file in /dev/shm (tmpfs):
    /// a block device that keeps its data in RAM. `Err` says why this machine cannot.
    pub fn ext4_over_shm(mib: u64) -> Result<LoopFs, String> {
        if let Some(why) = loop_skip_reason() {
            return Err(why);
        }
        if tool("mkfs.ext4").is_none() {
            return Err("mkfs.ext4 is not installed".into());
        }
        let dir = tempfile::Builder::new()
            .prefix("iomark-it-")
            .tempdir_in("/dev/shm")
            .map_err(|e| format!("no /dev/shm: {e}"))?;
        let dev = LoopDev::in_dir(dir, mib << 20, None);
        Ok(LoopFs::with_dev(dev, "ext4", EXT4_QUIET))
    }

    /// An ext4 of `mib` MiB on a loop device whose image lies in `dir` (a stack: `dir`
    /// on another loop device's filesystem). Dropped before the filesystem of `dir`.
    pub fn ext4_in(dir: &Path, mib: u64) -> LoopFs {
        let img_dir = tempfile::Builder::new()
            .prefix("iomark-it-")
            .tempdir_in(dir)
            .unwrap();
        let dev = LoopDev::in_dir(img_dir, mib << 20, None);
        LoopFs::with_dev(dev, "ext4", EXT4_QUIET)
    }

    /// mkfs.FS on `dev`, mounted (panics on failure: set-up has started).
    fn with_dev(dev: LoopDev, fs: &str, mkfs_args: &[&str]) -> LoopFs {
        let mut a = mkfs_args.to_vec();
        a.push(dev.path());
        sh(&format!("mkfs.{fs}"), &a);
        let mount = Mount::new(&[dev.path()]);
        LoopFs { mount, dev }
    }

    /// A small filesystem for tests that fill a disk or need XFS: ext4 without reserved
    /// blocks (root sees exactly what statvfs reports as available) or XFS (at least
    /// 300 MiB; the image is sparse). `None`, with the reason printed, when this machine
    /// cannot.
    pub fn small(mib: u64, fs: &str) -> Option<LoopFs> {
        let args: &[&str] = if fs == "ext4" {
            &["-q", "-F", "-m", "0"]
        } else {
            &["-q", "-f"]
        };
        match LoopFs::new(mib << 20, None, fs, args) {
            Ok(f) => Some(f),
            Err(why) => {
                super::skip(&why);
                None
            }
        }
    }

    /// The mount point.
    pub fn dir(&self) -> &Path {
        self.mount.dir()
    }

    /// The loop device under it.
    pub fn dev(&self) -> &LoopDev {
        &self.dev
    }

    /// (available to unprivileged writers, free including root's reserve), bytes.
    pub fn free(&self) -> (u64, u64) {
        let st = rustix::fs::statvfs(self.dir()).unwrap();
        (st.f_bavail * st.f_frsize, st.f_bfree * st.f_frsize)
    }

    /// Bytes available (statvfs f_bavail × f_frsize).
    pub fn avail(&self) -> u64 {
        self.free().0
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

/// A zram device (a compressed RAM disk) of a fixed size, hot-added for the test: on drop
/// (also when the test panics) its filesystem is unmounted, the device reset (`reset`,
/// which frees its memory) and removed (`hot_remove`).
pub struct Zram {
    /// the device number (`/dev/zramN`)
    pub n: u32,
    mount: Option<Mount>,
}

impl Zram {
    /// A fresh zram device of `bytes` bytes, or why this machine cannot make one.
    pub fn new(bytes: u64) -> Result<Zram, String> {
        if !is_root() {
            return Err("zram needs root; CI runs as root".into());
        }
        let n: u32 = std::fs::read_to_string("/sys/class/zram-control/hot_add")
            .map_err(|e| format!("no zram (/sys/class/zram-control/hot_add: {e})"))?
            .trim()
            .parse()
            .map_err(|e| format!("hot_add: {e}"))?;
        let z = Zram { n, mount: None };
        // from here on, Drop resets and removes the device even when disksize fails
        std::fs::write(format!("/sys/block/zram{n}/disksize"), bytes.to_string())
            .map_err(|e| format!("zram{n} disksize: {e}"))?;
        Ok(z)
    }

    /// The device node.
    pub fn dev(&self) -> String {
        format!("/dev/zram{}", self.n)
    }

    /// An ext4 filesystem on the device, mounted; its mount point.
    pub fn mount_ext4(&mut self) -> PathBuf {
        sh("mkfs.ext4", &["-q", "-F", "-m", "0", &self.dev()]);
        let m = Mount::new(&[self.dev().as_str()]);
        let dir = m.dir().to_path_buf();
        self.mount = Some(m);
        dir
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        drop(self.mount.take());
        let _ = std::fs::write(format!("/sys/block/zram{}/reset", self.n), "1");
        let _ = std::fs::write("/sys/class/zram-control/hot_remove", self.n.to_string());
    }
}
