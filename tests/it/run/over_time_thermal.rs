//! Over time, thermal throttling end to end: `iomark run` writes a real scratch file
//! while its sampler reads a recorded machine (the test hook `IOMARK_TEST_PROBE_ROOT`,
//! docs/testing.md): machine (a) of tests/fixtures/diagnose, an NVMe SSD whose hwmon
//! `temp1_input` reads 44.85 °C under a `temp1_max` of 84.85 °C, with this machine's
//! device of the scratch directory standing for its partition. The test stops the run at
//! a known write (fault plan `stop`), raises `temp1_input` past `temp1_max` there and lets
//! it go on slowed (`slow`): the throttling finding names that moment (within 1 s) in the
//! JSON, the text notes, `compare` and `report`. The same run at a constant temperature
//! (the same slowdown) gives none. The device view of both (JSON and notes) is the
//! recorded disk's, with the counts the test gives it during the run, not the live
//! disk's. Under the hook no block device is written.

use super::over_time::{findings, moment_of};
use crate::util::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const THERMAL: &str = "over_time.thermal_throttling";
/// The hook's variable (src/probe/mod.rs `TEST_ROOT_ENV`).
const HOOK: &str = "IOMARK_TEST_PROBE_ROOT";
/// Machine (a)'s NVMe controller hwmon, below the recorded root.
const HWMON: &str = "sys/devices/pci0000:00/0000:00:1c.4/0000:04:00.0/nvme/nvme0/hwmon1";
/// The write the run stops at (the test heats the drive there), and every later one
/// waits the fault plan's 300 ms.
const STOP_AT: u64 = 41;
/// Runtime, s: the sampling period is 1/20 of it (500 ms).
const RUNTIME_S: f64 = 10.0;
/// The run's rate limit before the slowdown, bytes/s (`--rate=20m`, MiB).
const RATE: f64 = 20.0 * 1_048_576.0;

/// Machine (a) materialised at `root`, with the device of `dir` (this machine's) standing
/// for its partition nvme0n1p1: `/sys/dev/block/MAJ:MIN` links there and the partition has
/// `stat` counters (constant: the recorded device does none of this run's I/O). The disk
/// nvme0n1 gets the links of `/sys/class/block` and `/sys/block` a live machine has and
/// zeroed counters, which [`disk_stat`] changes. Returns the host path of the drive's
/// `temp1_input`.
pub(super) fn recorded_nvme(root: &Path, dir: &Path) -> PathBuf {
    let manifest = std::fs::read_to_string(fixture("diagnose/a-nvme-gen2-slot.fixture")).unwrap();
    iomark::files::fixture::materialize(&manifest, root).unwrap();
    let block = root.join("sys/dev/block");
    let part = std::fs::read_link(block.join("259:1")).unwrap();
    let (major, minor) = iomark::probe::dev_of(dir).unwrap();
    let link = block.join(format!("{major}:{minor}"));
    if !link.exists() {
        std::os::unix::fs::symlink(&part, &link).unwrap();
    }
    std::fs::write(block.join(&part).join("stat"), "0 0 0 0 0 0 0 0 0 0 0\n").unwrap();
    // `part` is relative to sys/dev/block, as a target from sys/class/block is
    let disk = part.parent().unwrap();
    for d in ["sys/class/block", "sys/block"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    let ln = |to: &Path, at: &str| std::os::unix::fs::symlink(to, root.join(at)).unwrap();
    ln(disk, "sys/class/block/nvme0n1");
    ln(&part, "sys/class/block/nvme0n1p1");
    ln(disk.strip_prefix("..").unwrap(), "sys/block/nvme0n1");
    disk_stat(root, 0, 0);
    root.join(HWMON).join("temp1_input")
}

/// Set the recorded disk nvme0n1's counters (`/sys/block/nvme0n1/stat`, 17 fields):
/// `writes` writes of `sectors` 512-byte sectors, nothing else.
pub(super) fn disk_stat(root: &Path, writes: u64, sectors: u64) {
    let stat = root.join("sys/block/nvme0n1/stat");
    let line = format!("0 0 0 0 {writes} 0 {sectors} 0 0 0 0 0 0 0 0 0 0\n");
    std::fs::write(stat, line).unwrap();
}

/// A recorded value in millidegrees, °C.
fn deg(path: &Path) -> f64 {
    let s = std::fs::read_to_string(path).unwrap();
    s.trim().parse::<f64>().unwrap() / 1000.0
}

/// `iomark run`: sequential 1 MiB buffered writes of a scratch file at 20 MiB/s for
/// [`RUNTIME_S`] (the file `JSON.dat` beside the result `JSON`), sampled through the recorded machine `root`, stopped before write
/// [`STOP_AT`] and slowed after it.
fn writer(dir: &Path, root: &Path, json: &str) -> Iomark {
    Iomark::new()
        .dir(dir)
        .env(HOOK, root)
        .fault(&format!("write:stop@{STOP_AT},write:slow@{}+", STOP_AT + 1))
        .args([
            "run",
            "--name=w",
            &format!("--filename={json}.dat"),
            "--ioengine=psync",
            "--rw=write",
            "--bs=1M",
            "--size=64m",
            "--rate=20m",
            "--time_based",
            &format!("--runtime={RUNTIME_S}"),
            &format!("--json={json}"),
        ])
}

/// The mean write rates of `v`'s samples that end by `t` and that start after it.
fn rates_around(v: &Value, t: f64) -> (f64, f64) {
    let (mut a, mut b) = ((0.0, 0.0), (0.0, 0.0));
    for s in v["series"]["samples"].as_array().unwrap() {
        let (end, dur) = (at_f64(s, "/t_s"), at_f64(s, "/dur_s"));
        let w = at_u64(s, "/written_bytes") as f64;
        if end <= t {
            a = (a.0 + w, a.1 + dur);
        } else if end - dur >= t {
            b = (b.0 + w, b.1 + dur);
        }
    }
    (a.0 / a.1, b.0 / b.1)
}

/// The temperatures of `v`'s samples, °C.
fn temps(v: &Value) -> Vec<f64> {
    let s = v["series"]["samples"].as_array().unwrap();
    s.iter().map(|s| at_f64(s, "/temp_c")).collect()
}

/// What the test makes the heated machine's disk nvme0n1 count during the run: writes
/// and 512-byte sectors.
const DISK_DID: (u64, u64) = (1000, 2_048_000);

/// Both runs, side by side: the one whose drive the test heats at the stop (and whose
/// disk it makes count [`DISK_DID`] there) and the one it leaves at its recorded
/// temperature. Returns the stderr of each.
fn heat_and_hold(d: &Path, hot: &Path, cold: &Path, temp: &Path) -> (String, String) {
    let mut h = writer(d, hot, "hot.json").spawn();
    let mut c = writer(d, cold, "cold.json").spawn();
    for child in [&mut h, &mut c] {
        assert!(wait_stopped(child, Duration::from_secs(60)), "no stop");
    }
    std::fs::write(temp, "86000\n").unwrap();
    disk_stat(hot, DISK_DID.0, DISK_DID.1);
    for child in [&h, &c] {
        assert_eq!(kill(child.id(), libc::SIGCONT), 0);
    }
    let (h, c) = (
        finish_within(h, Duration::from_secs(90)),
        finish_within(c, Duration::from_secs(90)),
    );
    assert_eq!(h.code, 0, "{}", h.dump());
    assert_eq!(c.code, 0, "{}", c.dump());
    (h.stderr, c.stderr)
}

#[test]
fn a_recorded_drive_heated_during_a_run_throttles_at_that_moment() {
    let d = scratch();
    let (hot, cold) = (d.path().join("hot"), d.path().join("cold"));
    let temp = recorded_nvme(&hot, d.path());
    let cold_temp = recorded_nvme(&cold, d.path());
    let (t0, max) = (deg(&temp), deg(&temp.with_file_name("temp1_max")));
    assert!(
        t0 < max - 3.0,
        "the recorded drive starts cool: {t0} °C, max {max}"
    );
    let (hot_err, cold_err) = heat_and_hold(d.path(), &hot, &cold, &temp);
    let v = read_json(&d.path().join("hot.json"));
    let s = &v["series"];
    assert_eq!(s["sources"]["device"], "nvme0n1p1", "{s}");
    assert_eq!(s["sources"]["sensor"], "nvme", "{s}");
    assert_eq!(at_f64(s, "/sources/temp_max_c"), max, "{s}");
    // the moment the test raised the temperature, in the run's time: the run stopped
    // before its write STOP_AT, with (STOP_AT - 1) MiB written
    let raised = moment_of(&v, (STOP_AT - 1) << 20);
    let f = findings(&v, THERMAL);
    assert_eq!(f.len(), 1, "{s}");
    let at = at_f64(f[0], "/at_s");
    assert!(
        (at - raised).abs() <= 1.0,
        "throttling at {at} s, heated at {raised} s"
    );
    // the start of the first sample that read the raised temperature
    let t = temps(&v);
    let k = t.iter().position(|&c| c >= max).unwrap();
    let first = &s["samples"][k];
    assert!((at - (at_f64(first, "/t_s") - at_f64(first, "/dur_s"))).abs() < 1e-9);
    assert!(
        t[..k].iter().all(|&c| c == t0) && t[k..].iter().all(|&c| c == 86.0),
        "{t:?}"
    );
    assert_eq!(at_f64(f[0], "/temp_c"), 86.0);
    assert_rates(&v, f[0], raised);
    // the same finding is a warning with its id, printed in the notes with its time
    assert!(v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["id"] == THERMAL));
    let said = format!(
        "iomark: WARNING [{THERMAL}]: at {at:.1} s the drive nvme0n1p1 reached 86 °C (its threshold {max:.0} °C) and the throughput fell from "
    );
    assert!(hot_err.contains(&said), "{said}\n{hot_err}");
    // the constant temperature: the same slowdown, no throttling
    let c = read_json(&d.path().join("cold.json"));
    assert_eq!(deg(&cold_temp), t0);
    assert!(temps(&c).iter().all(|&x| x == t0), "{}", c["series"]);
    let (before, after) = rates_around(&c, moment_of(&c, (STOP_AT - 1) << 20));
    assert!(
        after <= 0.8 * before,
        "the cold run slowed too: {before} → {after} B/s"
    );
    assert!(findings(&c, THERMAL).is_empty(), "{}", c["series"]);
    assert!(!cold_err.contains(THERMAL), "{cold_err}");
    device_view_is_the_recorded_disks(d.path(), (&v, &hot_err), (&c, &cold_err));
    compare_and_report_show_it(d.path(), at, max);
}

/// The device view (JSON and notes) describes the recorded machine's disk, not the live
/// disk under the scratch directory: nvme0n1, the partition's disk, in its recorded
/// write-cache mode, with the counts the test made it count during the heated run
/// ([`DISK_DID`]) and none in the other.
fn device_view_is_the_recorded_disks(d: &Path, hot: (&Value, &str), cold: (&Value, &str)) {
    let (major, minor) = iomark::probe::dev_of(d).unwrap();
    let live = iomark::probe::Root::default().block_name(major, minor);
    for ((v, err), (writes, sectors)) in [(hot, DISK_DID), (cold, (0, 0))] {
        let dev = &v["device_view"]["devices"][0];
        assert_eq!(dev["name"], "nvme0n1", "{}", v["device_view"]);
        assert_eq!(dev["write_cache"], "write back", "{dev}");
        assert_eq!(at_u64(dev, "/writes"), writes, "{dev}");
        assert_eq!(at_u64(dev, "/write_bytes"), sectors * 512, "{dev}");
        let line = format!("  device nvme0n1 (write back): 0 reads, {writes} writes, ");
        assert!(err.contains(&line), "{line}\n{err}");
        if let Some(live) = &live {
            assert!(!err.contains(&format!("device {live} ")), "{err}");
        }
    }
}

/// The finding's rates, bytes/s: before, the rate limit's (within half of it: a sample
/// holds a whole number of 1 MiB writes); while hot, at most 80 % of it (the detector's
/// rule) and at most two slowed writes (300 ms apart) per sample of half a period or
/// more; the run's own samples fell around the moment as much.
fn assert_rates(v: &Value, f: &Value, raised: f64) {
    let (hi, lo) = (at_f64(f, "/before_bytes_s"), at_f64(f, "/after_bytes_s"));
    let period = at_f64(v, "/series/period_s");
    assert_eq!(period, RUNTIME_S / 20.0);
    assert!(hi > 0.5 * RATE && hi < 1.5 * RATE, "{f}");
    assert!(lo <= 0.8 * hi, "{f}");
    assert!(lo <= 2.0 * 1_048_576.0 / (period / 2.0), "{f}");
    let (before, after) = rates_around(v, raised);
    assert!(after <= 0.8 * before, "{before} → {after} B/s");
}

/// `compare` of the two results lists the warning under the heated column only, with
/// its sentence; `report` (markdown) lists it among the run's warnings.
fn compare_and_report_show_it(d: &Path, at: f64, max: f64) {
    let o = Iomark::new()
        .dir(d)
        .args(["compare", "hot.json", "cold.json"])
        .run();
    o.expect_code(0);
    let said = format!("  A: {THERMAL}: at {at:.1} s the drive nvme0n1p1 reached 86 °C (its threshold {max:.0} °C)");
    assert!(o.stdout.contains(&said), "{said}\n{}", o.stdout);
    assert!(!o.stdout.contains(&format!("B: {THERMAL}")), "{}", o.stdout);
    let o = Iomark::new()
        .dir(d)
        .args(["report", "hot.json", "--format=markdown"])
        .run();
    o.expect_code(0);
    // read as the text a person sees (the Markdown's escapes undone)
    let text = md_plain(&o.stdout);
    let said = format!("{THERMAL}: at {at:.1} s");
    assert!(text.contains(&said), "{said}\n{text}");
    assert!(text.contains("reached 86 °C"), "{text}");
}

/// Under the hook no block device is written, even one the user names for destructive
/// writes: the run is refused (exit 2) before any I/O and the device keeps its zeros;
/// the same command without the hook writes it. A hook that names no directory is
/// refused at start.
#[test]
fn the_recorded_machine_hook_writes_no_block_device() {
    let d = scratch();
    let bad = Iomark::new()
        .dir(d.path())
        .env(HOOK, "relative/machine")
        .args(["run", "--name=r", "--rw=read", "--size=1m", "--filename=f"])
        .run();
    bad.expect_code(2);
    bad.expect_contains(&format!("{HOOK}=relative/machine: not a recorded machine"));
    if let Some(why) = loop_skip_reason() {
        eprintln!("skipped the device half: {why}");
        return;
    }
    let lo = LoopDev::new(16 << 20, None);
    let root = d.path().join("machine");
    recorded_nvme(&root, d.path());
    let job = |hook: bool| {
        let i = Iomark::new().dir(d.path()).args([
            "run".to_string(),
            "--name=w".into(),
            format!("--filename={}", lo.path()),
            format!("--allow-destructive-write={}", lo.path()),
            "--rw=write".into(),
            "--bs=1M".into(),
            "--size=1m".into(),
            "--direct=1".into(),
        ]);
        if hook {
            i.env(HOOK, &root)
        } else {
            i
        }
    };
    let o = job(true).run();
    o.expect_code(2);
    o.expect_contains(&format!(
        "refusing to write to a block device while {HOOK} is set"
    ));
    let head = |n: usize| {
        let mut b = vec![0u8; n];
        std::io::Read::read_exact(&mut std::fs::File::open(&lo.img).unwrap(), &mut b).unwrap();
        b
    };
    assert!(
        head(1 << 20).iter().all(|&b| b == 0),
        "the device was written"
    );
    job(false).run().expect_code(0);
    assert!(
        head(1 << 20).iter().any(|&b| b != 0),
        "the run without the hook writes"
    );
}
