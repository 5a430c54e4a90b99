//! Data-safety matrix on loop devices: blank, ext4
//! signature unmounted, ext4 mounted, MBR, GPT and a dm member (when device-mapper
//! works). For each: a write without the exact-device override is refused (exit 3, one
//! line naming the device) and the device's sha256 is unchanged; a read works; an
//! override naming another device does not lift the refusal. Commands that create files
//! in a directory (`fileio`, `mark`, `copy`, `tree`) refuse a device path cleanly.
//!
//! Needs root and `losetup`; otherwise each test prints why it is skipped. Every loop
//! device, mount and dm target is torn down by a Drop guard, also when an assert fails.

use crate::util::*;
use std::process::Command;

/// Size of each backing file, bytes (16 MiB: enough for ext4 and GPT).
const DEV_BYTES: u64 = 16 << 20;

macro_rules! need_root {
    () => {
        if let Some(why) = loop_skip_reason() {
            skip(why);
            return;
        }
    };
}

/// A loop device over a fresh 16 MiB image.
fn loop_dev() -> LoopDev {
    LoopDev::new(DEV_BYTES, None)
}

/// A device-mapper linear target over a loop device; removed on drop.
struct DmLinear {
    name: String,
}

impl DmLinear {
    fn new(lo: &LoopDev) -> Result<DmLinear, String> {
        if tool("dmsetup").is_none() {
            return Err("dmsetup not installed".into());
        }
        let name = format!("iomark-test-{}", std::process::id());
        let table = format!("0 {} linear {} 0", DEV_BYTES / 512, lo.path());
        let o = Command::new("dmsetup")
            .args(["create", "--noudevsync", &name, "--table", &table])
            .output()
            .map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(format!(
                "dmsetup create failed: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
        }
        Ok(DmLinear { name })
    }
}

impl Drop for DmLinear {
    fn drop(&mut self) {
        let _ = Command::new("dmsetup")
            .args(["remove", "--noudevsync", &self.name])
            .status();
    }
}

/// Run iomark in a scratch directory (so nothing lands in the source tree).
fn in_scratch<S: AsRef<str>>(args: &[S]) -> Out {
    let d = scratch();
    Iomark::new()
        .dir(d.path())
        .args(args.iter().map(AsRef::as_ref))
        .run()
}

/// A 1 MiB 4 KiB random-write job on `dev`, plus `extra` options.
fn write_job(dev: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ["run", "--name=w", "--rw=randwrite", "--bs=4k", "--size=1m"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.push(format!("--filename={dev}"));
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// A write without the override (or with `extra` options) is refused: exit 3, one line
/// naming the device, contents unchanged.
fn assert_write_refused(lo: &LoopDev, extra: &[&str], expect: &str) {
    let before = lo.sha();
    let r = in_scratch(&write_job(lo.path(), extra));
    assert_eq!(r.code, 3, "{extra:?}: {}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", r.stderr);
    assert!(lines[0].contains(lo.path()), "{}", lines[0]);
    assert!(
        lines[0].contains(expect),
        "want '{expect}' in: {}",
        lines[0]
    );
    assert!(!r.stderr.contains("panicked"));
    assert_eq!(lo.sha(), before, "device changed after a refused write");
}

fn assert_read_works(lo: &LoopDev) {
    let before = lo.sha();
    let f = format!("--filename={}", lo.path());
    let r = in_scratch(&[
        "run",
        "--name=r",
        "--rw=randread",
        "--bs=4k",
        "--size=1m",
        &f,
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("read: IOPS="), "{}", r.stdout);
    assert_eq!(lo.sha(), before, "a read job changed the device");
}

/// `--allow-destructive-write` naming another (existing, blank) device does not help.
fn assert_other_override_refused(lo: &LoopDev, expect: &str) {
    let other = loop_dev();
    let o = format!("--allow-destructive-write={}", other.path());
    let before_other = other.sha();
    assert_write_refused(lo, &[&o], expect);
    assert_eq!(other.sha(), before_other);
}

/// `fileio`, `mark`, `copy`, `tree` given the device path: refused, no panic, unchanged.
fn assert_dir_commands_refuse(lo: &LoopDev) {
    let dev = lo.path();
    let fd = format!("--file-dir={dev}");
    let cases: Vec<Vec<&str>> = vec![
        vec!["fileio", &fd, "--file-total-size=4M", "prepare"],
        vec![
            "fileio",
            &fd,
            "--file-total-size=4M",
            "--file-test-mode=rndwr",
            "--time=1",
            "run",
        ],
        vec!["mark", dev, "--size=4M", "--time=1", "--loops=1"],
        vec!["copy", dev, "--size=1M"],
        vec!["tree", dev, "--files=10"],
    ];
    let scratch = scratch();
    let src = scratch.path().to_str().unwrap().to_string();
    let mut cases = cases;
    cases.push(vec!["copy", &src, dev, "--size=1M"]);
    for c in &cases {
        let before = lo.sha();
        let r = in_scratch(c);
        assert!(
            r.code == 2 || r.code == 3,
            "{c:?}: exit {} {}{}",
            r.code,
            r.stdout,
            r.stderr
        );
        // fileio prints sysbench's FATAL lines on stdout; the others use stderr
        let said = format!("{}{}", r.stdout, r.stderr);
        assert!(said.contains(dev), "{c:?} names the path: {said}");
        assert!(!r.stderr.contains("panicked"), "{c:?}: {}", r.stderr);
        assert_eq!(lo.sha(), before, "{c:?} changed the device");
    }
    // fileio cleanup keeps sysbench's behaviour (it only unlinks test_file.N names,
    // which cannot exist below a device node): exit 0, and the device is untouched
    let before = lo.sha();
    let r = in_scratch(&["fileio", &fd, "cleanup"]);
    assert!(!r.stderr.contains("panicked"));
    assert_eq!(lo.sha(), before, "fileio cleanup changed the device");
}

#[test]
fn blank_device() {
    need_root!();
    let lo = loop_dev();
    assert_write_refused(&lo, &[], "writes only to a device named explicitly");
    assert_other_override_refused(&lo, "named explicitly");
    // mmap opens with write access even for reads: it needs the override too
    assert_write_refused(
        &lo,
        &["--rw=randread", "--ioengine=mmap"],
        "named explicitly",
    );
    // backstop: target/ never opens an unchecked device with write access
    let spec = iomark::files::dataset::FileSpec {
        path: lo.dev.clone(),
        size: DEV_BYTES,
        named: true,
    };
    let e = iomark::files::dataset::open(std::slice::from_ref(&spec), true, false)
        .err()
        .expect("write open of an unchecked device must fail");
    assert!(
        e.to_string().contains("without the device safety check"),
        "{e}"
    );
    assert!(iomark::files::dataset::open(&[spec], false, false).is_ok());
    assert_read_works(&lo);
    assert_dir_commands_refuse(&lo);
    // the exact device named: the write happens and the contents change
    let before = lo.sha();
    let o = format!("--allow-destructive-write={}", lo.path());
    let r = in_scratch(&write_job(lo.path(), &[&o]));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("write: IOPS="), "{}", r.stdout);
    assert!(!r.stderr.contains("has no effect"), "{}", r.stderr);
    assert_ne!(
        lo.sha(),
        before,
        "the allowed write did not reach the device"
    );
    // a symlink to the device names the same device
    let d = scratch();
    let link = d.path().join("disk");
    std::os::unix::fs::symlink(&lo.dev, &link).unwrap();
    let o = format!("--allow-destructive-write={}", link.display());
    let r = in_scratch(&write_job(lo.path(), &[&o, "--randseed=7"]));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // an override that is not a block device is invalid input
    let o = format!("--allow-destructive-write={}", d.path().display());
    let r = in_scratch(&write_job(lo.path(), &[&o]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not a block device"), "{}", r.stderr);
}

/// `--allow-destructive-write=DEV` while the jobs write a regular file (DEV written by
/// none): the run goes on, and one warning line says the flag has no effect there
/// (docs/safety.md); the device is left as it was.
#[test]
fn an_override_beside_a_regular_file_target_says_it_has_no_effect() {
    need_root!();
    let lo = loop_dev();
    let before = lo.sha();
    let o = format!("--allow-destructive-write={}", lo.path());
    let r = in_scratch(&write_job("f.dat", &[&o]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("write: IOPS="), "{}", r.stdout);
    let said: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("--allow-destructive-write"))
        .collect();
    assert_eq!(said.len(), 1, "{}", r.stderr);
    assert!(
        said[0].contains(&format!("{o} has no effect"))
            && said[0].contains("no job writes that block device"),
        "{}",
        said[0]
    );
    assert_eq!(lo.sha(), before, "the device named was written");
    // a reading job on the device named: no write, the same line
    let f = format!("--filename={}", lo.path());
    let r = in_scratch(&["run", "--name=r", "--rw=read", "--size=1m", &f, &o]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("has no effect"), "{}", r.stderr);
}

fn mkfs_ext4(lo: &LoopDev) {
    let ok = Command::new("mkfs.ext4")
        .args(["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"])
        .arg(&lo.dev)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfs.ext4 failed");
}

#[test]
fn ext4_signature_unmounted() {
    need_root!();
    if tool("mkfs.ext4").is_none() {
        skip("mkfs.ext4 not installed");
        return;
    }
    let lo = loop_dev();
    mkfs_ext4(&lo);
    assert_write_refused(&lo, &[], "ext2/3/4 filesystem signature");
    assert_write_refused(&lo, &["--allow_mounted_write=1"], "ext2/3/4");
    assert_other_override_refused(&lo, "ext2/3/4");
    assert_read_works(&lo);
    assert_dir_commands_refuse(&lo);
    // verify-style, mixed and trim jobs write too (a trim on a device is BLKDISCARD)
    assert_write_refused(&lo, &["--rw=randrw"], "ext2/3/4");
    assert_write_refused(&lo, &["--rw=trim"], "ext2/3/4");
    assert_write_refused(&lo, &["--rw=randtrim"], "ext2/3/4");
    let o = format!("--allow-destructive-write={}", lo.path());
    let r = in_scratch(&write_job(lo.path(), &[&o]));
    assert_eq!(
        r.code, 0,
        "the exact override lifts a signature: {}",
        r.stderr
    );
}

#[test]
fn ext4_mounted() {
    need_root!();
    if tool("mkfs.ext4").is_none() || tool("mount").is_none() {
        skip("mkfs.ext4 or mount not installed");
        return;
    }
    let lo = loop_dev();
    mkfs_ext4(&lo);
    // read-only mount: the kernel itself writes nothing, so the checksum is stable
    let m = Mount::try_new(&["-o", "ro", lo.path()]);
    assert!(m.is_ok(), "mount failed: {:?}", m.as_ref().err());
    assert_write_refused(&lo, &[], "is mounted at");
    let o = format!("--allow-destructive-write={}", lo.path());
    // the override alone does not allow writing under a mounted filesystem
    assert_write_refused(&lo, &[&o], "unmount it first");
    assert_write_refused(&lo, &["--allow_mounted_write=1"], "ext2/3/4");
    assert_other_override_refused(&lo, "is mounted at");
    assert_read_works(&lo);
    assert_dir_commands_refuse(&lo);
    drop(m);
}

#[test]
fn mbr_partition_table() {
    need_root!();
    let lo = loop_dev();
    // one Linux partition from LBA 2048, and the boot signature
    let mut entry = [0u8; 16];
    entry[4] = 0x83;
    entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
    entry[12..16].copy_from_slice(&((DEV_BYTES / 512 - 2048) as u32).to_le_bytes());
    lo.write_at(446, &entry);
    lo.write_at(510, &[0x55, 0xAA]);
    assert_write_refused(&lo, &[], "MBR partition table");
    assert_other_override_refused(&lo, "MBR");
    assert_read_works(&lo);
    assert_dir_commands_refuse(&lo);
}

#[test]
fn gpt_partition_table() {
    need_root!();
    let lo = loop_dev();
    let mut pmbr = [0u8; 16];
    pmbr[4] = 0xEE;
    pmbr[8..12].copy_from_slice(&1u32.to_le_bytes());
    lo.write_at(446, &pmbr);
    lo.write_at(510, &[0x55, 0xAA]);
    lo.write_at(512, b"EFI PART");
    assert_write_refused(&lo, &[], "GPT partition table");
    assert_other_override_refused(&lo, "GPT");
    assert_read_works(&lo);
}

#[test]
fn dm_member() {
    need_root!();
    let lo = loop_dev();
    let dm = match DmLinear::new(&lo) {
        Ok(d) => d,
        Err(why) => {
            absent_here(format_args!("device-mapper not usable here: {why}"));
            return;
        }
    };
    assert_write_refused(&lo, &[], "held by dm-");
    assert_other_override_refused(&lo, "held by dm-");
    // a live member is in use: naming it (even with allow_mounted_write) does not help
    let named = format!("--allow-destructive-write={}", lo.path());
    assert_write_refused(&lo, &[&named], "held by dm-");
    assert_write_refused(&lo, &[&named, "--allow_mounted_write=1"], "held by dm-");
    assert_read_works(&lo);
    drop(dm);
}

#[test]
fn readonly_refuses_every_write() {
    // no device needed: readonly is checked when the job is built
    let d = scratch();
    let f = format!("--filename={}", d.path().join("f").display());
    let r = in_scratch(&[
        "run",
        "--name=w",
        "--rw=write",
        "--size=64k",
        "--readonly=1",
        &f,
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("readonly=1"), "{}", r.stderr);
    assert!(!d.path().join("f").exists(), "readonly job created a file");
    let read = || {
        in_scratch(&[
            "run",
            "--name=r",
            "--rw=read",
            "--size=64k",
            "--readonly=1",
            &f,
        ])
    };
    // a read job lays nothing out either: the missing file is refused, not created
    let r = read();
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("readonly=1 creates no file"),
        "{}",
        r.stderr
    );
    assert!(
        !d.path().join("f").exists(),
        "readonly read job created a file"
    );
    std::fs::write(d.path().join("f"), vec![7u8; 64 << 10]).unwrap();
    let r = read();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let kept = std::fs::read(d.path().join("f")).unwrap();
    assert_eq!(kept, vec![7u8; 64 << 10]);
}
