//! Over time: the run's series and the findings read from it, on a
//! loop device whose block-throttle write limit (cgroup v1
//! `blkio.throttle.write_bps_device` at the root cgroup, which applies to O_DIRECT on
//! the loop device itself) the test lowers after a known number of bytes: the write
//! cliff names that moment (within 1 s) and those bytes (within 10 %). A constant limit
//! gives no cliff over a run longer than the detector's window; without root, a steady
//! rate-limited run gives none where the same run slowed by the fault plan gives one.
//! The limit and the loop device are removed by guards, also when a test fails.

use crate::util::*;
use serde_json::Value;
use std::time::{Duration, Instant};

const BLKIO: &str = "/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device";
const CLIFF: &str = "over_time.write_cliff";

/// A write limit on one device at the root blkio cgroup; removed (0) on drop.
struct WriteLimit(String);

impl WriteLimit {
    fn set(majmin: &str, bps: u64) -> WriteLimit {
        let l = WriteLimit(majmin.to_string());
        l.change(bps);
        l
    }

    fn change(&self, bps: u64) {
        std::fs::write(BLKIO, format!("{} {bps}\n", self.0))
            .unwrap_or_else(|e| panic!("{BLKIO}: {e}"));
    }
}

impl Drop for WriteLimit {
    fn drop(&mut self) {
        let _ = std::fs::write(BLKIO, format!("{} 0\n", self.0));
    }
}

/// Why this machine cannot run these tests.
fn skip() -> Option<String> {
    loop_skip_reason().or_else(|| {
        (!std::path::Path::new(BLKIO).exists())
            .then(|| format!("no {BLKIO} (cgroup v1 blkio not mounted)"))
    })
}

/// Bytes written to the device so far (its `stat`, sectors × 512).
fn device_written(lo: &LoopDev) -> u64 {
    let s = lo.sysfs("stat");
    s.split_whitespace().nth(6).unwrap().parse::<u64>().unwrap() * 512
}

/// `iomark run`: sequential O_DIRECT 1 MiB writes to the loop device for `secs` s.
fn writer(dir: &std::path::Path, lo: &LoopDev, secs: u32) -> Iomark {
    Iomark::new().dir(dir).args([
        "run".to_string(),
        "--name=w".into(),
        format!("--filename={}", lo.path()),
        format!("--allow-destructive-write={}", lo.path()),
        "--rw=write".into(),
        "--bs=1M".into(),
        "--direct=1".into(),
        "--ioengine=psync".into(),
        "--size=512m".into(),
        "--time_based".into(),
        format!("--runtime={secs}"),
        "--json=r.json".into(),
    ])
}

/// The findings with id `id` in a result.
pub(super) fn findings<'a>(v: &'a Value, id: &str) -> Vec<&'a Value> {
    v["series"]["findings"]
        .as_array()
        .map(|a| a.iter().filter(|f| f["id"] == id).collect())
        .unwrap_or_default()
}

/// The cliff finding `f` of result `v` is where the rate fell: within 1 s of the moment
/// the run had written `n` bytes, and within 10 % of `n`.
fn assert_cliff_at(v: &Value, f: &Value, n: u64) {
    let (at, bytes) = (
        f["at_s"].as_f64().unwrap(),
        f["written_bytes"].as_u64().unwrap(),
    );
    let when = moment_of(v, n);
    assert!(
        (at - when).abs() <= 1.0,
        "cliff at {at} s, the rate fell at {when} s"
    );
    assert!(
        (bytes as f64 - n as f64).abs() <= 0.1 * n as f64,
        "cliff after {bytes} bytes, the rate fell after {n}"
    );
}

/// The moment the run's own samples had written `bytes` (linear inside the sample).
pub(super) fn moment_of(v: &Value, bytes: u64) -> f64 {
    let mut done = 0u64;
    for s in v["series"]["samples"].as_array().unwrap() {
        let w = s["written_bytes"].as_u64().unwrap();
        if done + w >= bytes {
            let (t, d) = (s["t_s"].as_f64().unwrap(), s["dur_s"].as_f64().unwrap());
            return t - d + d * (bytes - done) as f64 / w as f64;
        }
        done += w;
    }
    panic!("the run wrote fewer than {bytes} bytes");
}

#[test]
fn a_lowered_write_limit_is_a_cliff_at_its_moment_and_bytes() {
    if let Some(why) = skip() {
        eprintln!("skipped: {why}");
        return;
    }
    let tmp = scratch();
    let lo = LoopDev::new(512 << 20, None);
    let limit = WriteLimit::set(&lo.sysfs("dev"), 50_000_000);
    let base = device_written(&lo);
    let child = writer(tmp.path(), &lo, 16).spawn();
    // the event: the device has written N bytes of this run
    let n: u64 = 150_000_000;
    let t0 = Instant::now();
    while device_written(&lo) - base < n {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the run never wrote {n} bytes"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    limit.change(10_000_000);
    let out = finish_within(child, Duration::from_secs(120));
    assert_eq!(out.code, 0, "{}", out.dump());
    let v = read_json(&tmp.path().join("r.json"));
    assert_eq!(
        v["series"]["sources"]["device"],
        lo.name().as_str(),
        "{}",
        v["series"]
    );
    let f = findings(&v, CLIFF);
    assert_eq!(f.len(), 1, "{}", v["series"]);
    assert_cliff_at(&v, f[0], n);
    // after: the lowered limit binds; before: at most the first limit (the loop device
    // under a loaded machine may stay below it)
    let rate = |k: &str| f[0][k].as_f64().unwrap();
    let (hi, lo_rate) = (rate("before_bytes_s"), rate("after_bytes_s"));
    assert!((lo_rate / 10e6 - 1.0).abs() < 0.15, "{}", f[0]);
    assert!(hi <= 55e6 && hi >= lo_rate / 0.7, "{}", f[0]);
    // the same finding is a warning with its id, printed in the notes
    assert!(v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["id"] == CLIFF));
    assert!(
        out.stderr
            .contains("iomark: WARNING [over_time.write_cliff]: after "),
        "{}",
        out.stderr
    );
    // the device view of every sample: this O_DIRECT run is all the device wrote
    let samples = v["series"]["samples"].as_array().unwrap();
    let dev: u64 = samples
        .iter()
        .map(|s| s["device"]["written_bytes"].as_u64().unwrap())
        .sum();
    let app: u64 = samples
        .iter()
        .map(|s| s["written_bytes"].as_u64().unwrap())
        .sum();
    assert!(
        (dev as f64 - app as f64).abs() <= 0.02 * app as f64,
        "device {dev}, app {app}"
    );
}

#[test]
fn a_constant_limit_gives_no_cliff() {
    if let Some(why) = skip() {
        eprintln!("skipped: {why}");
        return;
    }
    let tmp = scratch();
    let lo = LoopDev::new(512 << 20, None);
    let _limit = WriteLimit::set(&lo.sysfs("dev"), 30_000_000);
    let out = writer(tmp.path(), &lo, 14)
        .timeout(Duration::from_secs(120))
        .run();
    assert_eq!(out.code, 0, "{}", out.dump());
    let v = read_json(&tmp.path().join("r.json"));
    assert!(spans_the_window(&v), "{}", v["series"]);
    assert!(findings(&v, CLIFF).is_empty(), "{}", v["series"]);
}

/// The detector's shortest window: 2 s before a cliff and 10 s after it.
const WINDOW_S: f64 = 12.0;

/// Whether a result's samples span the cliff detector's shortest window, so that a run
/// without a cliff finding is one the detector could have found one in.
fn spans_the_window(v: &Value) -> bool {
    let s = v["series"]["samples"].as_array().unwrap();
    let start = s[0]["t_s"].as_f64().unwrap() - s[0]["dur_s"].as_f64().unwrap();
    let end = s.last().unwrap()["t_s"].as_f64().unwrap();
    end - start >= WINDOW_S
}

/// The pair that shows the detector is live, without root or a device: two runs of
/// the same steady shape side by side (the null engine, 1 MiB writes at a 20 MiB/s
/// rate limit, 14 s — longer than the detector's window), one of them slowed from
/// its 61st write on by the test-only fault plan (`write:slow@61+`: every later write
/// waits 300 ms, about 3.3 MiB/s). The steady one gives no cliff; the planted one gives
/// exactly one, at the moment its 60 MiB were written (within 1 s) and after those
/// bytes (within 10 %).
#[test]
fn a_steady_rate_gives_no_cliff_where_a_planted_slowdown_gives_one() {
    let tmp = scratch();
    let job = |json: &str| {
        Iomark::new().dir(tmp.path()).args([
            "run",
            "--name=w",
            "--ioengine=null",
            "--rw=write",
            "--bs=1M",
            "--size=4g",
            "--rate=20m",
            "--time_based",
            "--runtime=14",
            &format!("--json={json}"),
        ])
    };
    let steady = job("steady.json").spawn();
    let planted = job("planted.json").fault("write:slow@61+").spawn();
    for (child, json) in [(steady, "steady.json"), (planted, "planted.json")] {
        let out = finish_within(child, Duration::from_secs(60));
        assert_eq!(out.code, 0, "{json}: {}", out.dump());
    }
    let v = read_json(&tmp.path().join("steady.json"));
    assert!(spans_the_window(&v), "{}", v["series"]);
    assert!(findings(&v, CLIFF).is_empty(), "{}", v["series"]);
    let v = read_json(&tmp.path().join("planted.json"));
    assert!(spans_the_window(&v), "{}", v["series"]);
    let f = findings(&v, CLIFF);
    assert_eq!(f.len(), 1, "{}", v["series"]);
    let n = 60u64 << 20;
    assert_cliff_at(&v, f[0], n);
}
