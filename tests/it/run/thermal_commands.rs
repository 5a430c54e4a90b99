//! A drive that throttles when hot, under every command that moves data besides `run`
//! (whose test is over_time_thermal.rs): `fileio`, `mark`, `copy` and `tree` do their
//! real I/O on this machine while their sampler and device view read a recorded machine
//! (the test hook `IOMARK_TEST_PROBE_ROOT`, docs/testing.md): machine (a) of
//! tests/fixtures/diagnose, whose NVMe partition stands for the scratch directory's
//! device. Each command stops itself at its first I/O (fault plan `stop`); the test lets
//! it go on cool for [`COOL`], then raises the recorded `temp1_input` past `temp1_max`
//! and holds the process back as a hot drive would (stopped [`HELD`] of every
//! [`HELD`] + [`LET_GO`], [`CYCLES`] times), then cools the drive and lets the command
//! end. What a person
//! reads — fileio's notes, mark's lines under its table, copy's and tree's reports —
//! says the drive throttled, naming it, its temperature and its threshold, at the
//! moment the RunResult's finding gives; the RunResult holds the finding in its series
//! and its warnings, at the moment the test heated the drive. fileio's `--plot` chart
//! shades and labels that stretch where the temperature line crosses the threshold.

use super::over_time::findings;
use super::over_time_thermal::recorded_nvme;
use crate::util::*;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

const THERMAL: &str = "over_time.thermal_throttling";
const HOOK: &str = "IOMARK_TEST_PROBE_ROOT";
/// How long each command runs cool after its first I/O before the test heats the drive
/// (at least 6 samples of 250 ms or less).
const COOL: Duration = Duration::from_millis(1500);
/// While the drive is hot the process is stopped this long…
const HELD: Duration = Duration::from_millis(700);
/// …then let go this long (a 24th of the time: its throughput falls to about that share,
/// far under the detector's 80 % even when a command held down by CPU contention while
/// cool runs several times faster in each let-go, as a small-file `tree` did under load)…
const LET_GO: Duration = Duration::from_millis(30);
/// …this many times (each gives the sampler one sample, taken as the process goes on).
const CYCLES: u32 = 3;
/// The recorded drive's temperature while hot, millidegrees (its `temp1_max` is 84850).
const HOT_MC: u64 = 86_000;

/// When the test saw the command stopped at its first I/O and when it heated the drive.
struct Heated {
    spawned: Instant,
    stopped: Instant,
    heated: Instant,
}

/// Run `cmd` (its fault plan stops it at its first I/O) and heat the recorded drive at
/// `temp` during it as the module says; the command's output and the moments.
fn heat_during(cmd: Iomark, temp: &Path) -> (Out, Heated) {
    let cool = std::fs::read_to_string(temp).unwrap();
    let spawned = Instant::now();
    let mut child = cmd.spawn();
    assert!(
        wait_stopped(&mut child, Duration::from_secs(120)),
        "no stop"
    );
    let (stopped, pid) = (Instant::now(), child.id());
    assert_eq!(kill(pid, libc::SIGCONT), 0);
    std::thread::sleep(COOL);
    std::fs::write(temp, format!("{HOT_MC}\n")).unwrap();
    let heated = Instant::now();
    for _ in 0..CYCLES {
        kill(pid, libc::SIGSTOP);
        std::thread::sleep(HELD);
        kill(pid, libc::SIGCONT);
        std::thread::sleep(LET_GO);
    }
    std::fs::write(temp, cool).unwrap();
    kill(pid, libc::SIGCONT);
    let out = finish_within(child, Duration::from_secs(300));
    let when = Heated {
        spawned,
        stopped,
        heated,
    };
    (out, when)
}

/// The one throttling finding of result `v`, checked against the moment the test heated
/// the drive: the start of the first sample that read the raised temperature, so before
/// the heating in the run's time (the run started before its first I/O and after the
/// spawn) and at most a sampling period (1 s of slack on a loaded machine) before it;
/// the finding is a warning too. Returns its moment, s, and the threshold, °C.
fn the_finding(v: &Value, h: &Heated) -> (f64, f64) {
    let f = findings(v, THERMAL);
    assert_eq!(f.len(), 1, "{}", v["series"]);
    let at = at_f64(f[0], "/at_s");
    let latest = (h.heated - h.spawned).as_secs_f64();
    let earliest = (h.heated - h.stopped).as_secs_f64() - 1.0;
    assert!(
        at >= earliest && at <= latest,
        "throttling at {at} s, heated {earliest} + 1 … {latest} s into the run"
    );
    assert_eq!(at_f64(f[0], "/temp_c"), HOT_MC as f64 / 1000.0);
    let (hi, lo) = (
        at_f64(f[0], "/before_bytes_s"),
        at_f64(f[0], "/after_bytes_s"),
    );
    assert!(hi > 0.0 && lo <= 0.8 * hi, "{}", f[0]);
    let w = v["warnings"].as_array().unwrap();
    assert!(w.iter().any(|w| w["id"] == THERMAL), "{w:?}");
    let s = &v["series"]["sources"];
    assert_eq!(s["device"], "nvme0n1p1", "{s}");
    (at, at_f64(s, "/temp_max_c"))
}

/// The sentence a person reads for the finding at `at` s under threshold `max` °C.
fn sentence(at: f64, max: f64) -> String {
    format!(
        "iomark: WARNING [{THERMAL}]: at {at:.1} s the drive nvme0n1p1 reached 86 °C (its threshold {max:.0} °C) and the throughput fell from "
    )
}

/// The scratch directory `d` with machine (a) at `d/machine`: the command's builder
/// with the hook set, and the drive's `temp1_input`.
fn machine(d: &Path) -> (Iomark, std::path::PathBuf) {
    let root = d.join("machine");
    let temp = recorded_nvme(&root, d);
    (Iomark::new().dir(d).env(HOOK, &root), temp)
}

/// `fileio` rndwr of one prepared 64 MiB file for 6 s (samples every 300 ms) with
/// `--plot`: the notes after sysbench's report say the drive throttled; the device
/// chart shades the hot stretch.
#[test]
fn fileio_says_the_drive_throttled() {
    let d = scratch();
    let set = ["--file-num=1", "--file-total-size=64M"];
    Iomark::new()
        .dir(d.path())
        .arg("fileio")
        .args(set)
        .arg("prepare")
        .run()
        .expect_code(0);
    let (cmd, temp) = machine(d.path());
    let cmd = cmd.fault("write:stop@1").arg("fileio").args(set).args([
        "--file-test-mode=rndwr",
        "--time=6",
        "--json=f.json",
        "--plot=plots",
        "run",
    ]);
    let (o, h) = heat_during(cmd, &temp);
    assert_eq!(o.code, 0, "{}", o.dump());
    let v = read_json(&d.path().join("f.json"));
    let (at, max) = the_finding(&v, &h);
    let notes = o
        .stdout
        .split("iomark notes (not part of sysbench's report):")
        .nth(1);
    let notes = notes.unwrap_or_else(|| panic!("no notes: {}", o.stdout));
    assert!(notes.contains(&sentence(at, max)), "{}", o.stdout);
    plot_shades_the_hot_stretch(&d.path().join("plots"), &v);
}

/// `mark --preset=realworld`, one loop of 5 s per test without a warm-up (samples every
/// 250 ms), stopped at the first read of its first test: the line under the table.
#[test]
fn mark_says_the_drive_throttled() {
    let d = scratch();
    let (cmd, temp) = machine(d.path());
    let cmd = cmd.fault("read:stop@1").args([
        "mark",
        ".",
        "--preset=realworld",
        "--size=64M",
        "--time=5",
        "--loops=1",
        "--warmup=0",
        "--json=m.json",
    ]);
    let (o, h) = heat_during(cmd, &temp);
    assert_eq!(o.code, 0, "{}", o.dump());
    let v = read_json(&d.path().join("m.json"));
    let (at, max) = the_finding(&v, &h);
    let table = o.stdout.split("MB/s = 1,000,000 B/s").nth(1);
    let under = table.unwrap_or_else(|| panic!("no table: {}", o.stdout));
    // mark names the test and loop the drive throttled in; the moment is into that loop
    // (the first: the run's time line and the loop's agree)
    let first = v["phases"][0]["name"].as_str().unwrap();
    let tail = sentence(at, max).replacen(
        &format!("[{THERMAL}]: "),
        &format!("[{THERMAL}]: in {first} (loop 1/1): "),
        1,
    );
    assert!(under.contains(&tail), "{}", o.stdout);
}

/// `copy` of a 64 MiB source (samples every 250 ms), stopped at the source's first
/// 4 MiB write, its next 15 writes (the rest of the source) slowed by the fault plan to
/// one per 300 ms, so the source is written steadily for longer than the test heats
/// the drive: its report ends with the finding.
#[test]
fn copy_says_the_drive_throttled() {
    let d = scratch();
    let (cmd, temp) = machine(d.path());
    let slow: Vec<String> = (2..=16).map(|n| format!("write:slow@{n}")).collect();
    let cmd = cmd
        .fault(&format!("write:stop@1,{}", slow.join(",")))
        .args(["copy", ".", "--size=64M", "--json=c.json"]);
    let (o, h) = heat_during(cmd, &temp);
    assert_eq!(o.code, 0, "{}", o.dump());
    let v = read_json(&d.path().join("c.json"));
    let (at, max) = the_finding(&v, &h);
    assert!(o.stdout.contains(&sentence(at, max)), "{}", o.stdout);
}

/// `tree` of 60,000 files (caches left alone; samples every 250 ms), stopped at its
/// first file's write: its report ends with the finding.
#[test]
fn tree_says_the_drive_throttled() {
    let d = scratch();
    let (cmd, temp) = machine(d.path());
    let cmd = cmd.fault("write:stop@1").args([
        "tree",
        ".",
        "--files=60000",
        "--drop-caches=off",
        "--json=t.json",
    ]);
    let (o, h) = heat_during(cmd, &temp);
    assert_eq!(o.code, 0, "{}", o.dump());
    let v = read_json(&d.path().join("t.json"));
    let (at, max) = the_finding(&v, &h);
    assert!(o.stdout.contains(&sentence(at, max)), "{}", o.stdout);
}

/// The colour the charts shade a throttled stretch with (report/svg_plot.rs `THROTTLED`).
const SHADE: &str = "#CC0000";
/// The drive temperature's line colour (and the run's writes'), and the threshold's.
const TEMP: &str = "#D55E00";
const BLACK: &str = "#000000";

/// The points of a `polyline` element.
fn points(n: roxmltree::Node) -> Vec<(f64, f64)> {
    let p = n.attribute("points").unwrap_or("");
    p.split_whitespace()
        .map(|xy| {
            let (x, y) = xy.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// The device chart of fileio's run `v` (read as XML, not against a golden): the
/// temperature panel's drive line has a point per sample, above the threshold line
/// exactly where the sample read the raised temperature; one shaded band per time panel
/// spans the finding's stretch on that line's time axis, labelled with the temperature
/// and the moment.
fn plot_shades_the_hot_stretch(dir: &Path, v: &Value) {
    let svg = std::fs::read_to_string(dir.join("fileio-rndwr-16k-q1t1-device.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let samples = v["series"]["samples"].as_array().unwrap();
    let n = samples.len();
    let lines: Vec<_> = doc
        .descendants()
        .filter(|e| e.has_tag_name("polyline"))
        .filter(|e| points(*e).len() == n)
        .collect();
    let of = |colour: &str| -> Vec<Vec<(f64, f64)>> {
        let stroked = lines
            .iter()
            .filter(|e| e.attribute("stroke") == Some(colour));
        stroked.map(|e| points(*e)).collect()
    };
    // panels top to bottom: the run and the device (the run's writes), the temperature
    let temp = of(TEMP).swap_remove(1);
    let limit = of(BLACK).swap_remove(0);
    let max = at_f64(v, "/series/sources/temp_max_c");
    for (i, s) in samples.iter().enumerate() {
        let hot = at_f64(s, "/temp_c") >= max;
        assert_eq!(temp[i].1 < limit[i].1, hot, "sample {i}: {s}");
    }
    // the time axis of the line: x = a + b t over the samples' ends
    let t = |i: usize| at_f64(&samples[i], "/t_s");
    let b = (temp[n - 1].0 - temp[0].0) / (t(n - 1) - t(0));
    let x_of = |s: f64| temp[0].0 + b * (s - t(0));
    let f = findings(v, THERMAL)[0];
    let (from, to) = (at_f64(f, "/at_s"), at_f64(f, "/at_s") + at_f64(f, "/for_s"));
    let bands: Vec<_> = doc
        .descendants()
        .filter(|e| e.has_tag_name("rect") && e.attribute("fill") == Some(SHADE))
        .collect();
    let panels = doc
        .descendants()
        .filter(|e| {
            e.has_tag_name("text") && e.text().map(str::trim) == Some("time since start, s")
        })
        .count();
    assert!(panels >= 2, "{panels} time panels");
    assert_eq!(bands.len(), panels, "one band per time panel");
    for r in &bands {
        let x: f64 = r.attribute("x").unwrap().parse().unwrap();
        let w: f64 = r.attribute("width").unwrap().parse().unwrap();
        assert!(
            (x - x_of(from)).abs() <= 2.0,
            "band from {x}, stretch from {from} s"
        );
        assert!(
            (x + w - x_of(to)).abs() <= 2.0,
            "band to {}, stretch to {to} s",
            x + w
        );
    }
    let label = format!("drive throttled at 86 °C from {from:.1} s");
    let said = doc
        .descendants()
        .filter(|e| e.has_tag_name("text") && e.attribute("fill") == Some(SHADE))
        .filter(|e| e.text().map(str::trim) == Some(label.as_str()))
        .count();
    assert_eq!(said, panels, "{label}");
}
