//! sysbench's `fileio` report as numbers (the last final report of an output), the
//! `--debug` request lines, number masking and value columns for layout comparisons
//! with the real sysbench, and a simulation of the spec's request generator
//! giving the exact expected counts.

use super::json::as_u64;

/// sysbench's six `--file-test-mode`s.
pub const MODES: [&str; 6] = ["seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw"];

/// Round a rate × time reconstruction (a report's `reads/s` × `total time`) to a count.
pub fn count(rate: f64, time: f64) -> u64 {
    (rate * time).round() as u64
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

/// Expected counts of a single-threaded run per the spec's generator rules.
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

/// Counts from the JSON: (reads, writes, fsync calls, periodic fsync events, events).
pub fn json_counts(j: &serde_json::Value) -> Expected {
    Expected {
        reads: as_u64(&j["read"]["ops"]),
        writes: as_u64(&j["write"]["ops"]),
        fsync_calls: as_u64(&j["fsync"]["ops"]),
        periodic: as_u64(&j["fsync"]["lat"]["count"]),
        events: as_u64(&j["events"]),
    }
}
