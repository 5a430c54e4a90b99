//! Block-device write guard: the one place that decides whether iomark may open a block
//! device with write access (DESIGN.md "Safety is in target/").
//!
//! fio writes over a drive that carries a filesystem as long as it is not mounted. iomark
//! writes to a block device only when the user names that exact device (same `dev_t`; a
//! symlink to it counts) with `--allow-destructive-write=DEV` (refused unless the exact-device
//! override is given, blank devices included). The refusal says what
//! is on the device: a partition table, a filesystem/RAID/LVM signature, md/dm/LVM
//! holders (`/sys/dev/block/M:m/holders`). A device that is *in use* — it or one of its
//! partitions mounted, active swap, or claimed exclusively by the kernel (an `O_EXCL`
//! open answers EBUSY; a live md/dm member is claimed by its holder) — stays refused
//! even with the override unless fio's
//! `allow_mounted_write=1` is set too (fio refuses mounted writes by default; the
//! override alone must not let a typo scribble under a live filesystem). `readonly`
//! refuses every write.
//!
//! Signature offsets are those of util-linux libblkid's probers (superblock magic and
//! where it lives); see [`scan_signatures`].
//!
//! Shape: what the kernel says (mount table, swaps, partitions, holders) is read through
//! a [`Root`]; what only the device can say (an exclusive open, its first and last
//! bytes) comes through the small `Device` trait. The decision ([`check_write`]'s
//! `decide`) is therefore tested on recorded machines with fake devices, besides the
//! loop-device tests of `tests/device_safety.rs`.

use crate::probe::mountinfo;
use crate::probe::sysroot::{base, Sys};
use crate::probe::Root;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use thiserror::Error;

/// Bytes read from the start of the device for signatures (ZFS labels' uberblocks
/// end at 256 KiB; every other start-of-device signature lies below that).
pub const HEAD_BYTES: usize = 256 << 10;
/// Bytes read from the end of the device (md 0.90 and 1.0 superblocks).
pub const TAIL_BYTES: usize = 128 << 10;

/// What the user allowed for writes (`iomark run` options).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WritePolicy {
    /// `--allow-destructive-write=DEV` (command line only, repeatable): devices whose
    /// every refusal is lifted; compared by `dev_t`, so symlinks to them count.
    pub allow_destructive: Vec<PathBuf>,
    /// fio's `allow_mounted_write`: the mounted check alone is lifted.
    pub allow_mounted_write: bool,
    /// fio's `readonly`: any write is refused.
    pub readonly: bool,
}

/// Why a write was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum GuardError {
    /// a write to a block device that was not named, is in use, or holds data
    #[error("{}: refusing to write to this block device: {why}; {hint}", .device.display())]
    Refused {
        /// the device as the job named it
        device: PathBuf,
        /// every reason found, `; `-separated
        why: String,
        /// what would lift the refusal
        hint: String,
    },
    /// `readonly` is set and the job writes
    #[error("{}: refusing to write: readonly=1 is set", .0.display())]
    ReadOnly(PathBuf),
    /// the override does not name a block device
    #[error("--allow-destructive-write={}: {why} (accepted: the path of a block device, e.g. /dev/sdb)", .path.display())]
    BadOverride {
        /// as given
        path: PathBuf,
        /// what is wrong with it
        why: String,
    },
    /// an open with write access of a device the guard has not checked
    #[error("{}: refusing to open a block device for writing without the device safety check", .0.display())]
    Unchecked(PathBuf),
    /// a write to a block device while the test hook gives the sampler a recorded
    /// machine: that machine's view is not this one's, so the hook's runs write files only
    #[error("{}: refusing to write to a block device while {} is set (a test hook: the run's samples read a recorded machine, and its writes go to files only)", .0.display(), crate::probe::TEST_ROOT_ENV)]
    UnderTestRoot(PathBuf),
}

impl GuardError {
    /// Exit code (DESIGN.md): 3 for a refused device, 2 for a bad override, a readonly
    /// conflict (the user's own options contradict each other) or a device write under
    /// the test hook.
    pub fn exit_code(&self) -> i32 {
        match self {
            GuardError::Refused { .. } | GuardError::Unchecked(_) => {
                crate::util::error::exit::ENVIRONMENT
            }
            GuardError::ReadOnly(_)
            | GuardError::BadOverride { .. }
            | GuardError::UnderTestRoot(_) => crate::util::error::exit::INVALID,
        }
    }
}

/// Devices (`st_rdev`) that passed [`check_write`] in this process; `open` for write
/// refuses any other block device (a backstop if a caller forgets the guard).
static APPROVED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// `st_rdev` of `path` if it is a block device (symlinks followed).
pub fn block_rdev(path: &Path) -> Option<u64> {
    let m = std::fs::metadata(path).ok()?;
    m.file_type().is_block_device().then(|| m.rdev())
}

/// Whether [`check_write`] approved the device `rdev` in this process.
pub fn is_approved(rdev: u64) -> bool {
    APPROVED.lock().map(|v| v.contains(&rdev)).unwrap_or(false)
}

fn approve(rdev: u64) {
    if let Ok(mut v) = APPROVED.lock() {
        if !v.contains(&rdev) {
            v.push(rdev);
        }
    }
}

/// Check that `path` may be written under `policy`. Regular files (and paths that do not
/// exist yet) pass unless `readonly`; a block device passes only when nothing in use or
/// holding data is found on it, or when the policy names that exact device. sysfs and
/// procfs are read through [`Root::default`] (the live machine). No block device is
/// written while the test hook `IOMARK_TEST_PROBE_ROOT` is set, whatever the policy.
pub fn check_write(path: &Path, policy: &WritePolicy) -> Result<(), GuardError> {
    if policy.readonly {
        return Err(GuardError::ReadOnly(path.to_path_buf()));
    }
    let overrides = policy
        .allow_destructive
        .iter()
        .map(|p| match std::fs::metadata(p) {
            Ok(m) if m.file_type().is_block_device() => Ok(m.rdev()),
            Ok(_) => Err(GuardError::BadOverride {
                path: p.clone(),
                why: "not a block device".into(),
            }),
            Err(e) => Err(GuardError::BadOverride {
                path: p.clone(),
                why: crate::files::strerror(e.raw_os_error().unwrap_or(libc::ENOENT)),
            }),
        })
        .collect::<Result<Vec<u64>, GuardError>>()?;
    let Some(rdev) = block_rdev(path) else {
        return Ok(());
    };
    if !matches!(crate::probe::test_root(), Ok(None)) {
        return Err(GuardError::UnderTestRoot(path.to_path_buf()));
    }
    decide(
        &Root::default(),
        path,
        &Node { path, rdev },
        &overrides,
        policy,
    )
}

/// What the guard learns from the device itself rather than from sysfs/procfs (a
/// trait so the decisions can be tested on recorded machines without a device).
trait Device {
    /// its `st_rdev`
    fn rdev(&self) -> u64;
    /// whether an exclusive open (`O_EXCL`) answers EBUSY: mounted or claimed
    fn busy(&self) -> bool;
    /// first [`HEAD_BYTES`], last [`TAIL_BYTES`] (clipped to the size) and the size
    fn head_tail(&self) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)>;
}

/// A block device node on this machine.
struct Node<'a> {
    path: &'a Path,
    rdev: u64,
}

impl Device for Node<'_> {
    fn rdev(&self) -> u64 {
        self.rdev
    }
    fn busy(&self) -> bool {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL)
            .open(self.path)
            .is_err_and(|e| e.raw_os_error() == Some(libc::EBUSY))
    }
    fn head_tail(&self) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
        read_head_tail(self.path)
    }
}

/// The decision for device `dev` (named `path` by the job) on the machine `root`
/// records: `overrides` are the `st_rdev`s of `--allow-destructive-write`.
fn decide(
    root: &Root,
    path: &Path,
    dev: &dyn Device,
    overrides: &[u64],
    policy: &WritePolicy,
) -> Result<(), GuardError> {
    let named = overrides.contains(&dev.rdev());
    let f = inspect(root, dev);
    // in use blocks the write unless the only use is a mount and allow_mounted_write is set
    let lifted = f.mounted_only && policy.allow_mounted_write;
    let in_use_blocks = !f.in_use.is_empty() && !lifted;
    if named && !in_use_blocks {
        approve(dev.rdev());
        return Ok(());
    }
    let shown = path.display();
    let mut why: Vec<String> = f.in_use.clone();
    why.extend(f.contents.iter().cloned());
    if why.is_empty() {
        why.push("no partition table or filesystem signature was found, but iomark writes only to a device named explicitly".into());
    }
    let hint = if !in_use_blocks {
        format!("if its contents may be destroyed, name it with --allow-destructive-write={shown}")
    } else if f.mounted_only {
        format!("unmount it first (writing under a mounted filesystem corrupts it); fio's allow_mounted_write=1 together with --allow-destructive-write={shown} overrides this")
    } else {
        "stop what is using it first (swap, md/dm, another exclusive user)".to_string()
    };
    Err(GuardError::Refused {
        device: path.to_path_buf(),
        why: why.join("; "),
        hint,
    })
}

/// What [`inspect`] found on a device.
#[derive(Debug, Default)]
struct Findings {
    /// mounted, swap, exclusively claimed: writing would hit a live user
    in_use: Vec<String>,
    /// every `in_use` entry is a mount (what `allow_mounted_write` may lift)
    mounted_only: bool,
    /// partition table, signatures, holders
    contents: Vec<String>,
}

/// `MAJ:MIN` of a `dev_t`.
fn majmin(rdev: u64) -> (u64, u64) {
    crate::probe::split_dev(rdev)
}

/// The device and its partitions, as `(name, dev_t)`, from `/sys/dev/block/M:m` (its
/// sub-directories holding a `partition` file).
fn device_and_partitions(root: &Root, rdev: u64) -> Vec<(String, u64)> {
    let (ma, mi) = majmin(rdev);
    let Some(dir) = root.block_dir((ma, mi)) else {
        return vec![(format!("{ma}:{mi}"), rdev)];
    };
    let sys = root.sys();
    let mut out = vec![(base(&dir).to_string(), rdev)];
    for e in sys.list(&dir).unwrap_or_default() {
        let sub = format!("{dir}/{e}");
        if !sys.exists(&format!("{sub}/partition")) {
            continue;
        }
        let Some((a, b)) = sys
            .read(&format!("{sub}/dev"))
            .and_then(|s| mountinfo::parse_majmin(&s))
        else {
            continue;
        };
        out.push((e, libc::makedev(a as u32, b as u32)));
    }
    out
}

/// Names of the holders (`/sys/dev/block/M:m/holders` entries, read through `sys`) of
/// each device in `devs`: `"loop0 is held by dm-0,md127 (…)"` per held device.
pub fn holders_reasons(sys: &Sys, devs: &[(String, u64)]) -> Vec<String> {
    let mut why = Vec::new();
    for (n, d) in devs {
        let (a, b) = majmin(*d);
        let holders = sys
            .list(&format!("/sys/dev/block/{a}:{b}/holders"))
            .unwrap_or_default();
        if !holders.is_empty() {
            why.push(format!(
                "{n} is held by {} (a member of an md/dm/LVM device)",
                holders.join(",")
            ));
        }
    }
    why
}

/// The block device a machine path such as a mount source or a swap entry names
/// (`st_rdev`, symlinks such as `/dev/mapper/x` followed), if it names one.
fn named_device(sys: &Sys, abs: &str) -> Option<u64> {
    abs.starts_with('/')
        .then(|| sys.host_path(abs))
        .flatten()
        .and_then(|p| block_rdev(&p))
}

/// What the mount table and the swap list of `root` say about `devs`: one line per use
/// found, and whether a mount was among them.
fn uses(root: &Root, devs: &[(String, u64)]) -> (Vec<String>, bool) {
    let sys = root.sys();
    let is_ours = |d: u64| devs.iter().find(|x| x.1 == d).map(|x| x.0.clone());
    let mut why = Vec::new();
    // mounted: the superblock's dev_t, or the mount source resolving to our device
    // (btrfs reports an anonymous dev_t in mountinfo)
    let mut mounted = false;
    for m in mountinfo::parse(&sys.read("/proc/self/mountinfo").unwrap_or_default()) {
        let d = libc::makedev(m.major as u32, m.minor as u32);
        let hit = is_ours(d).or_else(|| named_device(&sys, &m.source).and_then(is_ours));
        if let Some(n) = hit {
            mounted = true;
            why.push(format!(
                "{n} is mounted at {} ({})",
                m.mount_point, m.fs_type
            ));
            break;
        }
    }
    let swaps = sys.read("/proc/swaps").unwrap_or_default();
    for l in swaps.lines().skip(1) {
        if let Some(n) = l
            .split_whitespace()
            .next()
            .and_then(|p| named_device(&sys, &mountinfo::unescape(p)))
            .and_then(is_ours)
        {
            why.push(format!("{n} is active swap"));
        }
    }
    (why, mounted)
}

/// Everything found on device `dev` (on the machine `root` records) that argues
/// against writing to it.
fn inspect(root: &Root, dev: &dyn Device) -> Findings {
    let devs = device_and_partitions(root, dev.rdev());
    let (mut in_use, mounted) = uses(root, &devs);
    let mut held = holders_reasons(&root.sys(), &devs);
    // The kernel's own view: an exclusive open fails with EBUSY while the device is
    // mounted or claimed (md, dm, btrfs, swap, bcache …). A claim by a holder is the
    // holder's line, now a use the override cannot lift; a claim nothing explains gets
    // its own line.
    if in_use.is_empty() && dev.busy() {
        if held.is_empty() {
            in_use.push("the kernel reports it busy (exclusive open: EBUSY)".into());
        } else {
            in_use.append(&mut held);
        }
    }
    let mut f = Findings {
        mounted_only: mounted && in_use.len() == 1,
        in_use,
        contents: held,
    };
    match dev.head_tail() {
        Ok((head, tail, size)) => f.contents.extend(scan_signatures(&head, &tail, size)),
        Err(e) => f
            .contents
            .push(format!("cannot read it to look for signatures: {e}")),
    }
    f
}

/// First [`HEAD_BYTES`], last [`TAIL_BYTES`] (both clipped to the size) and the size.
fn read_head_tail(path: &Path) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
    let f = std::fs::File::open(path)?;
    let size = std::io::Seek::seek(&mut &f, std::io::SeekFrom::End(0))?;
    let read_at = |off: u64, len: usize| -> std::io::Result<Vec<u8>> {
        let mut v = vec![0u8; len];
        let mut got = 0;
        while got < len {
            // SAFETY: v has len bytes; the descriptor is open.
            let n = unsafe {
                libc::pread(
                    f.as_raw_fd(),
                    v[got..].as_mut_ptr().cast(),
                    len - got,
                    (off + got as u64) as libc::off_t,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            if n == 0 {
                break;
            }
            got += n as usize;
        }
        v.truncate(got);
        Ok(v)
    };
    let head = read_at(0, (HEAD_BYTES as u64).min(size) as usize)?;
    let tl = (TAIL_BYTES as u64).min(size);
    let tail = read_at(size - tl, tl as usize)?;
    Ok((head, tail, size))
}

fn at(buf: &[u8], off: usize, magic: &[u8]) -> bool {
    buf.get(off..off + magic.len()) == Some(magic)
}

/// md RAID superblock magic 0xa92b4efc, little endian as written by mdadm.
const MD_MAGIC: [u8; 4] = 0xa92b_4efc_u32.to_le_bytes();

/// Names of every signature found. `head` holds the device's first bytes, `tail` its
/// last `tail.len()` bytes, `size` its length in bytes. Offsets (libblkid probers):
/// ext2/3/4 `0xEF53` at 1080; XFS `XFSB` at 0; btrfs `_BHRfS_M` at 65600; swap
/// `SWAPSPACE2`/`SWAP-SPACE` at page size − 10 (4, 8, 16, 64 KiB pages); LVM2 `LABELONE`
/// at the start of one of the first 4 sectors; md 1.1 at 0, 1.2 at 4096, 0.90 at the
/// last 64 KiB boundary − 64 KiB, 1.0 at (size − 8 KiB) rounded down to 4 KiB; LUKS
/// `LUKS\xba\xbe` at 0; f2fs `0xF2F52010` at 1024; NTFS `NTFS    ` / exFAT `EXFAT   ` at
/// 3; vfat `FAT12`/`FAT16` at 54 or `FAT32` at 82; ISO 9660 `CD001` at 32769; bcache
/// magic at 4096 + 24; ZFS uberblock magic `0x00bab10c` in the first label (128–256 KiB);
/// GPT `EFI PART` at LBA 1 (512 or 4096 bytes); an MBR (or boot sector) `0x55AA` at 510.
pub fn scan_signatures(head: &[u8], tail: &[u8], size: u64) -> Vec<String> {
    let mut found = Vec::new();
    let mut sig = |s: &str| found.push(format!("it carries a {s}"));
    if at(head, 1080, &0xEF53u16.to_le_bytes()) {
        sig("ext2/3/4 filesystem signature (0xEF53 at byte 1080)");
    }
    if at(head, 0, b"XFSB") {
        sig("XFS filesystem signature");
    }
    if at(head, 65600, b"_BHRfS_M") {
        sig("btrfs filesystem signature");
    }
    if [4096usize, 8192, 16384, 65536]
        .iter()
        .any(|p| at(head, p - 10, b"SWAPSPACE2") || at(head, p - 10, b"SWAP-SPACE"))
    {
        sig("swap signature");
    }
    if (0..4).any(|s| at(head, s * 512, b"LABELONE")) {
        sig("LVM2 physical volume label (LABELONE)");
    }
    if at(head, 0, &MD_MAGIC) || at(head, 4096, &MD_MAGIC) {
        sig("md RAID superblock (v1.1/1.2)");
    }
    let tail_at = |off_from_start: u64| -> bool {
        let start = size - tail.len() as u64;
        off_from_start >= start && at(tail, (off_from_start - start) as usize, &MD_MAGIC)
    };
    if size >= 128 << 10 {
        let v090 = (size & !0xFFFF) - 0x10000;
        let v10 = (size - 8192) & !4095;
        if tail_at(v090) || tail_at(v10) {
            sig("md RAID superblock (v0.90/1.0)");
        }
    }
    if at(head, 0, b"LUKS\xba\xbe") {
        sig("LUKS encryption header");
    }
    if at(head, 1024, &0xF2F5_2010u32.to_le_bytes()) {
        sig("f2fs filesystem signature");
    }
    let ntfs = at(head, 3, b"NTFS    ");
    let exfat = at(head, 3, b"EXFAT   ");
    let vfat = at(head, 54, b"FAT12") || at(head, 54, b"FAT16") || at(head, 82, b"FAT32");
    if ntfs {
        sig("NTFS filesystem signature");
    }
    if exfat {
        sig("exFAT filesystem signature");
    }
    if vfat {
        sig("FAT filesystem signature");
    }
    if at(head, 32769, b"CD001") {
        sig("ISO 9660 filesystem signature");
    }
    const BCACHE: [u8; 16] = [
        0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d,
        0x81,
    ];
    if at(head, 4096 + 24, &BCACHE) {
        sig("bcache superblock");
    }
    let zfs_le = 0x00ba_b10c_u64.to_le_bytes();
    let zfs_be = 0x00ba_b10c_u64.to_be_bytes();
    if (128usize..256)
        .map(|k| k << 10)
        .any(|o| at(head, o, &zfs_le) || at(head, o, &zfs_be))
    {
        sig("ZFS label (uberblock magic)");
    }
    if at(head, 512, b"EFI PART") || at(head, 4096, b"EFI PART") {
        sig("GPT partition table");
    }
    if at(head, 510, &[0x55, 0xAA]) && !(ntfs || exfat || vfat) {
        sig("MBR partition table or boot sector (0x55AA at byte 510)");
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank() -> Vec<u8> {
        vec![0u8; HEAD_BYTES]
    }

    #[test]
    fn blank_device_has_no_signature() {
        assert!(scan_signatures(&blank(), &vec![0; TAIL_BYTES], 1 << 30).is_empty());
        assert!(scan_signatures(&[], &[], 0).is_empty());
        assert!(scan_signatures(&[0; 600], &[0; 600], 600).is_empty());
    }

    #[test]
    fn each_signature_at_its_offset() {
        let cases: &[(usize, &[u8], &str)] = &[
            (1080, &[0x53, 0xEF], "ext2/3/4"),
            (0, b"XFSB", "XFS"),
            (65600, b"_BHRfS_M", "btrfs"),
            (4086, b"SWAPSPACE2", "swap"),
            (65526, b"SWAP-SPACE", "swap"),
            (512, b"LABELONE", "LVM2"),
            (4096, &MD_MAGIC, "md RAID superblock (v1.1/1.2)"),
            (0, &MD_MAGIC, "md RAID superblock (v1.1/1.2)"),
            (0, b"LUKS\xba\xbe", "LUKS"),
            (3, b"NTFS    ", "NTFS"),
            (82, b"FAT32", "FAT"),
            (32769, b"CD001", "ISO 9660"),
            (512, b"EFI PART", "GPT"),
            (510, &[0x55, 0xAA], "MBR"),
            (200 << 10, &0x00ba_b10c_u64.to_le_bytes(), "ZFS"),
        ];
        for (off, magic, name) in cases {
            let mut h = blank();
            h[*off..off + magic.len()].copy_from_slice(magic);
            let f = scan_signatures(&h, &[], 1 << 30);
            assert_eq!(f.len(), 1, "{name}: {f:?}");
            assert!(f[0].contains(name), "{name}: {f:?}");
            // one byte off is not a match
            let mut h = blank();
            h[off + 1..off + 1 + magic.len()].copy_from_slice(magic);
            assert!(
                !scan_signatures(&h, &[], 1 << 30)
                    .iter()
                    .any(|s| s.contains(name)),
                "{name} shifted"
            );
        }
    }

    proptest::proptest! {
        /// Any bytes at any size: no panic, and a finding always names what it found.
        #[test]
        fn scan_never_panics(
            head in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..70_000),
            tail_len in 0usize..4096,
            extra in 0u64..(1 << 40),
        ) {
            let size = tail_len as u64 + extra;
            let tail = vec![0xa9u8; tail_len];
            for f in scan_signatures(&head, &tail, size) {
                proptest::prop_assert!(f.starts_with("it carries a "));
            }
        }
    }

    #[test]
    fn fat_boot_sector_is_not_called_a_partition_table() {
        let mut h = blank();
        h[82..87].copy_from_slice(b"FAT32");
        h[510] = 0x55;
        h[511] = 0xAA;
        assert_eq!(scan_signatures(&h, &[], 1 << 20).len(), 1);
    }

    #[test]
    fn md_superblocks_at_the_end() {
        // size not a multiple of 64 KiB: 0.90 lives at the last 64 KiB boundary - 64 KiB
        let size: u64 = (100 << 20) + 12345;
        let mut tail = vec![0u8; TAIL_BYTES];
        let start = size - TAIL_BYTES as u64;
        let v090 = ((size & !0xFFFF) - 0x10000 - start) as usize;
        tail[v090..v090 + 4].copy_from_slice(&MD_MAGIC);
        let f = scan_signatures(&blank(), &tail, size);
        assert!(f[0].contains("v0.90/1.0"), "{f:?}");
        let mut tail = vec![0u8; TAIL_BYTES];
        let v10 = (((size - 8192) & !4095) - start) as usize;
        tail[v10..v10 + 4].copy_from_slice(&MD_MAGIC);
        assert_eq!(scan_signatures(&blank(), &tail, size).len(), 1);
    }

    #[test]
    fn overrides_must_name_block_devices_and_files_pass() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("plain");
        std::fs::write(&f, b"x").unwrap();
        assert_eq!(check_write(&f, &WritePolicy::default()), Ok(()));
        let p = WritePolicy {
            allow_destructive: vec![f.clone()],
            ..WritePolicy::default()
        };
        let e = check_write(&f, &p).unwrap_err();
        assert_eq!(e.exit_code(), crate::util::error::exit::INVALID);
        assert!(e.to_string().contains("not a block device"), "{e}");
        // holders from a sysfs-like tree
        let sys = d.path().join("sys");
        std::fs::create_dir_all(sys.join("dev/block/7:0/holders/dm-0")).unwrap();
        std::fs::create_dir_all(sys.join("dev/block/7:0/holders/md127")).unwrap();
        std::fs::create_dir_all(sys.join("dev/block/7:1/holders")).unwrap();
        let root = Root(d.path().to_path_buf());
        let devs = vec![
            ("loop0".to_string(), libc::makedev(7, 0)),
            ("loop1".to_string(), libc::makedev(7, 1)),
        ];
        assert_eq!(
            holders_reasons(&root.sys(), &devs),
            vec!["loop0 is held by dm-0,md127 (a member of an md/dm/LVM device)".to_string()]
        );
        let ro = WritePolicy {
            readonly: true,
            ..WritePolicy::default()
        };
        assert_eq!(check_write(&f, &ro), Err(GuardError::ReadOnly(f.clone())));
    }

    /// A recorded machine for the guard: disk `loop0` (7:0) with partitions `loop0p1`
    /// (259:0) and `loop0p2` (259:1), relative sysfs links as the kernel makes them, an
    /// empty mount table and swap list; `mount`/`hold` add a mount of a partition and a
    /// holder of the disk.
    struct Machine {
        dir: tempfile::TempDir,
    }

    impl Machine {
        fn new() -> Machine {
            let dir = tempfile::tempdir().unwrap();
            let m = Machine { dir };
            let disk = "sys/devices/virtual/block/loop0";
            m.put(&format!("{disk}/dev"), "7:0\n");
            std::fs::create_dir_all(m.at(&format!("{disk}/holders"))).unwrap();
            for (p, dev) in [("loop0p1", "259:0"), ("loop0p2", "259:1")] {
                m.put(&format!("{disk}/{p}/partition"), "1\n");
                m.put(&format!("{disk}/{p}/dev"), &format!("{dev}\n"));
                m.link(
                    &format!("../../devices/virtual/block/loop0/{p}"),
                    &format!("sys/dev/block/{dev}"),
                );
            }
            m.link("../../devices/virtual/block/loop0", "sys/dev/block/7:0");
            m.put(
                "proc/self/mountinfo",
                "22 1 0:21 / /proc rw - proc proc rw\n",
            );
            m.put("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n");
            m
        }
        fn at(&self, rel: &str) -> PathBuf {
            self.dir.path().join(rel)
        }
        fn put(&self, rel: &str, text: &str) {
            let p = self.at(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        fn link(&self, target: &str, rel: &str) {
            let p = self.at(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(target, p).unwrap();
        }
        fn mount(&self) {
            self.put(
                "proc/self/mountinfo",
                "22 1 0:21 / /proc rw - proc proc rw\n40 1 259:0 / /mnt/data rw,relatime - ext4 /dev/loop0p1 rw\n",
            );
        }
        fn hold(&self) {
            std::fs::create_dir_all(self.at("sys/devices/virtual/block/loop0/holders/dm-3"))
                .unwrap();
        }
        fn root(&self) -> Root {
            Root(self.dir.path().to_path_buf())
        }
    }

    /// A device with given first bytes that answers (or not) EBUSY to O_EXCL.
    struct Fake {
        head: Vec<u8>,
        busy: bool,
    }

    impl Device for Fake {
        fn rdev(&self) -> u64 {
            libc::makedev(7, 0)
        }
        fn busy(&self) -> bool {
            self.busy
        }
        fn head_tail(&self) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
            Ok((self.head.clone(), vec![0; TAIL_BYTES], 1 << 30))
        }
    }

    fn blank_fake() -> Fake {
        Fake {
            head: blank(),
            busy: false,
        }
    }

    /// The decision for `/dev/loop0` on machine `m`: named or not, with or without
    /// allow_mounted_write; the refusal as (why, hint).
    fn verdict(
        m: &Machine,
        dev: &Fake,
        named: bool,
        mounted_ok: bool,
    ) -> Result<(), (String, String)> {
        let policy = WritePolicy {
            allow_mounted_write: mounted_ok,
            ..WritePolicy::default()
        };
        let overrides = if named { vec![dev.rdev()] } else { vec![] };
        match decide(&m.root(), Path::new("/dev/loop0"), dev, &overrides, &policy) {
            Ok(()) => Ok(()),
            Err(GuardError::Refused { device, why, hint }) => {
                assert_eq!(device, Path::new("/dev/loop0"));
                Err((why, hint))
            }
            Err(e) => panic!("unexpected {e}"),
        }
    }

    #[test]
    fn blank_device_is_written_only_when_named() {
        let m = Machine::new();
        let (why, hint) = verdict(&m, &blank_fake(), false, false).unwrap_err();
        assert!(
            why.contains("no partition table or filesystem signature was found"),
            "{why}"
        );
        assert_eq!(
            hint,
            "if its contents may be destroyed, name it with --allow-destructive-write=/dev/loop0"
        );
        assert_eq!(verdict(&m, &blank_fake(), true, false), Ok(()));
    }

    #[test]
    fn a_mounted_partition_blocks_even_the_named_device() {
        let m = Machine::new();
        m.mount();
        for named in [false, true] {
            let (why, hint) = verdict(&m, &blank_fake(), named, false).unwrap_err();
            assert_eq!(why, "loop0p1 is mounted at /mnt/data (ext4)");
            assert!(hint.starts_with("unmount it first"), "{hint}");
        }
        // allow_mounted_write alone is not enough; with the device named it is
        assert!(verdict(&m, &blank_fake(), false, true).is_err());
        assert_eq!(verdict(&m, &blank_fake(), true, true), Ok(()));
    }

    #[test]
    fn holders_are_named_and_a_live_member_stays_refused() {
        let m = Machine::new();
        m.hold();
        let (why, hint) = verdict(&m, &blank_fake(), false, false).unwrap_err();
        assert_eq!(
            why,
            "loop0 is held by dm-3 (a member of an md/dm/LVM device)"
        );
        assert!(
            hint.contains("--allow-destructive-write=/dev/loop0"),
            "{hint}"
        );
        // a holder that no longer claims the device: the override lifts it
        assert_eq!(verdict(&m, &blank_fake(), true, false), Ok(()));
        // a live member (the kernel says busy): in use, the override does not help
        let live = Fake {
            head: blank(),
            busy: true,
        };
        let (why, hint) = verdict(&m, &live, true, true).unwrap_err();
        assert_eq!(
            why,
            "loop0 is held by dm-3 (a member of an md/dm/LVM device)"
        );
        assert!(hint.starts_with("stop what is using it first"), "{hint}");
    }

    #[test]
    fn busy_without_a_reason_and_signatures_are_reported() {
        let m = Machine::new();
        let busy = Fake {
            head: blank(),
            busy: true,
        };
        let (why, _) = verdict(&m, &busy, true, false).unwrap_err();
        assert_eq!(why, "the kernel reports it busy (exclusive open: EBUSY)");
        let mut head = blank();
        head[512..520].copy_from_slice(b"EFI PART");
        let gpt = Fake { head, busy: false };
        let (why, hint) = verdict(&m, &gpt, false, false).unwrap_err();
        assert_eq!(why, "it carries a GPT partition table");
        assert!(
            hint.contains("--allow-destructive-write=/dev/loop0"),
            "{hint}"
        );
        assert_eq!(verdict(&m, &gpt, true, false), Ok(()));
        // both partitions are found through the recorded links
        let names: Vec<String> = device_and_partitions(&m.root(), libc::makedev(7, 0))
            .into_iter()
            .map(|d| d.0)
            .collect();
        assert_eq!(names, ["loop0", "loop0p1", "loop0p2"]);
    }
}
