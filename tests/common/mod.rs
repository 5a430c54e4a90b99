//! Helpers shared by the `iomark fileio` integration tests: run the binary (and the real
//! `sysbench` 1.0.20) in scratch directories, parse the sysbench-style report, mask numbers
//! for layout comparisons, and simulate the spec's request generator (§8.2-8.4).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Path of the binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_iomark");

/// Output of one invocation.
#[derive(Debug, Clone)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(o: Output) -> Run {
        use std::os::unix::process::ExitStatusExt;
        let code = o
            .status
            .code()
            .unwrap_or_else(|| 128 + o.status.signal().unwrap_or(0));
        Run {
            code,
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
    /// stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
    /// Assert exit 0 with a readable failure message.
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code, 0,
            "exit code\n--- stdout:\n{}\n--- stderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// A scratch directory on the project's disk (target/tmp), so that O_DIRECT and real
/// file systems are used rather than a tmpfs /tmp.
pub fn scratch() -> tempfile::TempDir {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&base).unwrap();
    tempfile::Builder::new()
        .prefix("iomark-it-")
        .tempdir_in(base)
        .unwrap()
}

fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Run {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let start = Instant::now();
    // Drain pipes on threads so a chatty child never blocks.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t1 = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut so, &mut v).ok();
        v
    });
    let t2 = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut se, &mut v).ok();
        v
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{:?} did not finish within {:?}", cmd, timeout);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run::from(Output {
        status,
        stdout: t1.join().unwrap(),
        stderr: t2.join().unwrap(),
    })
}

/// `iomark fileio <args>` in `dir`.
pub fn iomark(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir).arg("fileio").args(args);
    run_with_timeout(cmd, Duration::from_secs(60))
}

/// `iomark <args>` (any command) in `dir` with `IOMARK_FAULT=fault` (unset when empty).
pub fn iomark_fault(dir: &Path, fault: &str, args: &[&str]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir).args(args).env_remove("IOMARK_FAULT");
    if !fault.is_empty() {
        cmd.env("IOMARK_FAULT", fault);
    }
    run_cmd(cmd, Duration::from_secs(120))
}

/// `iomark fileio <args>` in `dir` with a custom timeout (proptest).
pub fn iomark_timeout(dir: &Path, args: &[String], timeout: Duration) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir).arg("fileio").args(args);
    run_with_timeout(cmd, timeout)
}

/// Whether the real sysbench is installed (tests/run.sh installs it).
pub fn have_sysbench() -> bool {
    Command::new("sysbench")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// `sysbench fileio <args>` in `dir`. Panics when sysbench is missing: `bash tests/run.sh`
/// installs it, and the comparison tests are the point.
pub fn sysbench(dir: &Path, args: &[&str]) -> Run {
    assert!(
        have_sysbench(),
        "sysbench 1.0.20 is required for the comparison tests (bash tests/run.sh installs it)"
    );
    let mut cmd = Command::new("sysbench");
    cmd.current_dir(dir).arg("fileio").args(args);
    run_with_timeout(cmd, Duration::from_secs(60))
}

/// Names of the entries of a directory, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The numbers of a sysbench-style final report.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    pub reads_s: f64,
    pub writes_s: f64,
    pub fsyncs_s: f64,
    pub read_mib_s: f64,
    pub written_mib_s: f64,
    pub total_time: f64,
    pub events: u64,
    pub lat_min: f64,
    pub lat_avg: f64,
    pub lat_max: f64,
    pub lat_sum: f64,
    pub fair_events_avg: f64,
    pub fair_time_avg: f64,
}

fn value_after(line: &str, label: &str) -> Option<String> {
    let t = line.trim_start();
    t.strip_prefix(label).map(|r| r.trim().to_string())
}

/// Parse the **last** final report in `out` (after checkpoints, if any).
pub fn parse_report(out: &str) -> Report {
    let start = out.rfind("File operations:").expect("no report in output");
    let text = &out[start..];
    let mut r = Report {
        reads_s: f64::NAN,
        writes_s: f64::NAN,
        fsyncs_s: f64::NAN,
        read_mib_s: f64::NAN,
        written_mib_s: f64::NAN,
        total_time: f64::NAN,
        events: u64::MAX,
        lat_min: f64::NAN,
        lat_avg: f64::NAN,
        lat_max: f64::NAN,
        lat_sum: f64::NAN,
        fair_events_avg: f64::NAN,
        fair_time_avg: f64::NAN,
    };
    let num = |s: String| -> f64 { s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}")) };
    for l in text.lines() {
        if let Some(v) = value_after(l, "reads/s:") {
            r.reads_s = num(v);
        } else if let Some(v) = value_after(l, "writes/s:") {
            r.writes_s = num(v);
        } else if let Some(v) = value_after(l, "fsyncs/s:") {
            r.fsyncs_s = num(v);
        } else if let Some(v) = value_after(l, "read, MiB/s:") {
            r.read_mib_s = num(v);
        } else if let Some(v) = value_after(l, "written, MiB/s:") {
            r.written_mib_s = num(v);
        } else if let Some(v) = value_after(l, "total time:") {
            r.total_time = num(v.trim_end_matches('s').to_string());
        } else if let Some(v) = value_after(l, "total number of events:") {
            r.events = v.parse().unwrap();
        } else if let Some(v) = value_after(l, "min:") {
            r.lat_min = num(v);
        } else if let Some(v) = value_after(l, "avg:") {
            r.lat_avg = num(v);
        } else if let Some(v) = value_after(l, "max:") {
            r.lat_max = num(v);
        } else if let Some(v) = value_after(l, "sum:") {
            r.lat_sum = num(v);
        } else if let Some(v) = value_after(l, "events (avg/stddev):") {
            r.fair_events_avg = num(v.split('/').next().unwrap().to_string());
        } else if let Some(v) = value_after(l, "execution time (avg/stddev):") {
            r.fair_time_avg = num(v.split('/').next().unwrap().to_string());
        }
    }
    assert!(
        r.events != u64::MAX && !r.total_time.is_nan() && !r.fsyncs_s.is_nan(),
        "incomplete report:\n{text}"
    );
    r
}

/// Count of `DEBUG: Executing request` lines per operation (1 read, 2 write, 3 fsync).
pub fn debug_ops(out: &str) -> [u64; 3] {
    let mut c = [0u64; 3];
    for l in debug_lines(out) {
        let op = l
            .split("operation: ")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap();
        let i: usize = op.trim().parse().unwrap();
        c[i - 1] += 1;
    }
    c
}

/// The `DEBUG: Executing request` lines, in order. sysbench collapses identical
/// consecutive messages into `(last message repeated N times)`; those are expanded.
pub fn debug_lines(out: &str) -> Vec<String> {
    let mut v: Vec<String> = vec![];
    let mut prev_exec = false;
    for l in out.lines() {
        if l.starts_with("DEBUG: Executing request") {
            v.push(l.to_string());
            prev_exec = true;
        } else if let Some(r) = l.strip_prefix("(last message repeated ") {
            if prev_exec {
                let n: usize = r.split(' ').next().unwrap().parse().unwrap();
                let last = v.last().unwrap().clone();
                v.extend(std::iter::repeat_n(last, n));
            }
        } else {
            prev_exec = false;
        }
    }
    v
}

/// Replace every number (digits with an optional fraction) by `#`, and collapse the blanks
/// in front of a number to one, so right-aligned columns compare equal whatever the width.
pub fn mask(line: &str) -> String {
    let mut out = String::new();
    let b: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || (b[i] == '.' && i + 1 < b.len() && b[i + 1].is_ascii_digit()))
            {
                i += 1;
            }
            // collapse the padding before the number
            let trimmed = out.trim_end_matches(' ').len();
            if trimmed < out.len() && trimmed > 0 {
                out.truncate(trimmed);
                out.push(' ');
            }
            out.push('#');
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Where a report value sits: for right-aligned latency lines the line length, otherwise
/// the column of the first digit (None for lines without a value).
pub fn value_column(line: &str) -> Option<(bool, usize)> {
    let t = line.trim_start();
    let right = ["min:", "avg:", "max:", "sum:"]
        .iter()
        .any(|p| t.starts_with(p))
        || t.contains("th percentile:");
    if right {
        return Some((true, line.len()));
    }
    if line.contains(':') && line.starts_with("    ") {
        return line.find(|c: char| c.is_ascii_digit()).map(|c| (false, c));
    }
    None
}

/// Compare two outputs line by line after masking numbers, skipping the banner (line 1).
/// Column positions of report values must agree too.
pub fn assert_same_layout(iomark_out: &str, sysbench_out: &str, what: &str) {
    let a: Vec<&str> = iomark_out.lines().collect();
    let b: Vec<&str> = sysbench_out.lines().collect();
    assert!(
        a[0].starts_with("iomark 0.1.0 (sysbench 1.0.20 fileio compatible)"),
        "{what}: banner {:?}",
        a[0]
    );
    assert!(
        b[0].starts_with("sysbench 1.0.20"),
        "{what}: sysbench banner {:?}",
        b[0]
    );
    let n = a.len().max(b.len());
    for i in 1..n {
        let (x, y) = (
            a.get(i).copied().unwrap_or("<missing>"),
            b.get(i).copied().unwrap_or("<missing>"),
        );
        assert_eq!(
            mask(x),
            mask(y),
            "{what}: line {} differs\n iomark:   {x:?}\n sysbench: {y:?}\n--- iomark:\n{iomark_out}\n--- sysbench:\n{sysbench_out}",
            i + 1
        );
        assert_eq!(
            value_column(x),
            value_column(y),
            "{what}: value column of line {}\n {x:?}\n {y:?}",
            i + 1
        );
    }
}

/// Expected counts of a single-threaded run per the spec's generator rules (§8.2-8.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    pub reads: u64,
    pub writes: u64,
    /// periodic fsync events
    pub periodic: u64,
    /// all fsync calls (periodic + fsync-all + end-of-test)
    pub fsync_calls: u64,
    pub events: u64,
}

/// Simulate `events` events of the global generator. `mode` is the sysbench name;
/// `threads` only matters for the end-of-test fsyncs (T × N) and must not change the
/// read/write choice (so use it only for modes that do not read-and-write).
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    mode: &str,
    events: u64,
    files: u64,
    freq: u64,
    ratio: f64,
    fsync_all: bool,
    fsync_end: bool,
    threads: u64,
) -> Expected {
    let (mut reads, mut writes, mut periodic, mut req_done) = (0u64, 0u64, 0u64, 0u64);
    let mut dirty = false;
    let mut fsync_next = 0u64;
    let freq = if fsync_all { 0 } else { freq };
    for _ in 0..events {
        let write = match mode {
            "seqwr" | "seqrewr" | "rndwr" => true,
            "seqrd" | "rndrd" => false,
            "rndrw" => ((reads + 1) as f64 / (writes + 1) as f64) >= ratio,
            m => panic!("mode {m}"),
        };
        if freq > 0 && dirty && req_done % freq == 0 {
            periodic += 1;
            fsync_next += 1;
            if fsync_next == files {
                fsync_next = 0;
                dirty = false;
            }
            continue;
        }
        req_done += 1;
        if write {
            writes += 1;
            dirty = true;
        } else {
            reads += 1;
        }
    }
    let writes_mode = !matches!(mode, "seqrd" | "rndrd");
    let end = if fsync_end && !fsync_all && writes_mode {
        threads * files
    } else {
        0
    };
    let all = if fsync_all { writes } else { 0 };
    Expected {
        reads,
        writes,
        periodic,
        fsync_calls: periodic + end + all,
        events,
    }
}

/// Read and parse the `--json` result file.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("invalid JSON in {}: {e}\n{text}", path.display()))
}

/// Counts from the JSON: (reads, writes, fsync calls, periodic fsync events, events).
pub fn json_counts(j: &serde_json::Value) -> Expected {
    let u = |v: &serde_json::Value| v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"));
    Expected {
        reads: u(&j["read"]["ops"]),
        writes: u(&j["write"]["ops"]),
        fsync_calls: u(&j["fsync"]["ops"]),
        periodic: u(&j["fsync"]["lat"]["count"]),
        events: u(&j["events"]),
    }
}

/// Run any prepared command (environment, cwd, args set by the caller) with a timeout.
pub fn run_cmd(cmd: Command, timeout: Duration) -> Run {
    run_with_timeout(cmd, timeout)
}

/// Why a test that needs loop devices cannot run here (not root, no losetup), or None.
#[allow(dead_code)]
pub fn loop_skip_reason() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (loop devices need root)".into());
    }
    let have = std::process::Command::new("sh")
        .args(["-c", "command -v losetup"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        return Some("losetup not installed".into());
    }
    None
}

/// A loop device over a `mib`-MiB scratch file (`losetup --sector-size` when given);
/// detached on drop, also when the test fails.
#[allow(dead_code)]
pub struct LoopDev {
    /// the device (`/dev/loopN`)
    pub dev: std::path::PathBuf,
    /// its backing file
    pub img: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

#[allow(dead_code)]
impl LoopDev {
    /// Attach a fresh image; `losetup -f` can race with other tests for the same free
    /// device, so it is retried.
    pub fn new(mib: u64, sector_size: Option<u32>) -> LoopDev {
        let dir = scratch();
        let img = dir.path().join("disk.img");
        std::fs::File::create(&img)
            .unwrap()
            .set_len(mib << 20)
            .unwrap();
        let mut args = vec!["-f".to_string(), "--show".to_string()];
        if let Some(n) = sector_size {
            args.extend(["--sector-size".to_string(), n.to_string()]);
        }
        for _ in 0..20 {
            let o = std::process::Command::new("losetup")
                .args(&args)
                .arg(&img)
                .output()
                .unwrap();
            if o.status.success() {
                let dev = std::path::PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
                return LoopDev {
                    dev,
                    img,
                    _dir: dir,
                };
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("losetup {args:?} failed 20 times");
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup")
            .arg("-d")
            .arg(&self.dev)
            .status();
    }
}
