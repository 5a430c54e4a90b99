//! `iomark compare`: many `RunResult` files side by side. This module owns loading
//! (with one-line errors for unreadable, foreign or newer files), turning each result
//! into comparable tests, aligning them into rows, the ratios against the first (or the
//! `--baseline`) column, folding repeated runs of one drive into one column (`--group`:
//! the median, with the runs' min–max),
//! the "jobs differ" call-outs; rendering (table, markdown, csv, json) is in compare_render.rs.
//!
//! Alignment: a test joins a row of its pattern and direction (`RND read`, `SEQ write`,
//! `RND mix`): the one whose job matches exactly, else the closest free one (QD, threads,
//! block size), so a fileio `rndrd` QD 1 lines up with a mark's `RND4K Q1T1 read` even if
//! the block size differs — and the difference is then written on the row (results are never
//! silently compared as equal). Phases of `copy`/`tree`
//! line up by phase name.
//!
//! `run` results (fio jobs) give one test per phase (job and direction); the job is
//! read from the phase's `key=value` notes (`rw`, `bs`/`block_size_bytes`, `iodepth`,
//! `numjobs`/`threads`, `direct`, `size`/`file_size_bytes`), else from the result's
//! job, so their rows line up with fileio and mark tests of the same pattern.
//!
//! Units: MB/s is decimal (1,000,000 B/s), latency in µs per I/O, submission to
//! completion: an imported fio report's is fio's `clat` on every row (read, write, the
//! mix and its read and write means). io_uring (QD > 1) fileio results carry that as `clat`; older files
//! without it only have submission times (sysbench semantics), so for them compare
//! shows the mean derived as QD × threads / IOPS (Little's law) and no p99.

use crate::result::{RunResult, SCHEMA_VERSION};
use serde::Serialize;
use std::path::Path;

/// Load one result file. Errors are one line naming the file and what is wrong.
pub fn load(path: &Path) -> Result<RunResult, String> {
    let name = path.display();
    let text = crate::util::input::read_text(path, crate::util::input::MAX_INPUT_BYTES)
        .map_err(|e| format!("cannot read {name}: {}", crate::util::errno::describe(&e)))?;
    // fio's own JSON or text report (public case C25): imported with normalised units
    let label = path
        .file_name()
        .map_or(name.to_string(), |f| f.to_string_lossy().into_owned());
    if let Some(r) = crate::result::import::import(&text, &label) {
        return r.map_err(|e| format!("{name}: {e}"));
    }
    if is_fio_terse(&text) {
        return Err(format!(
            "{name} is fio's terse output (--minimal / --output-format=terse), which compare does not read: give it fio's JSON (--output-format=json) or its normal text report"
        ));
    }
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{name} is not JSON: {e}"))?;
    let tool = v.get("tool").and_then(|t| t.as_str());
    let schema = v.get("schema_version").and_then(|s| s.as_u64());
    let (Some("iomark"), Some(schema)) = (tool, schema) else {
        return Err(format!(
            "{name} is not an iomark RunResult (no \"tool\": \"iomark\" and \"schema_version\"; write one with --json=FILE) nor a fio JSON/text report"
        ));
    };
    if schema > u64::from(SCHEMA_VERSION) {
        return Err(format!(
            "{name} has schema_version {schema}; this iomark {} reads up to {SCHEMA_VERSION} (use a newer iomark)",
            env!("CARGO_PKG_VERSION")
        ));
    }
    if v.get("status").and_then(|s| s.as_str()) == Some("running") && v.get("job").is_none() {
        return Err(format!(
            "{name} is the placeholder of a run that never finished (status \"running\")"
        ));
    }
    if let Some((field, x)) = negative_rate(&v, "") {
        return Err(format!(
            "{name} is not a valid RunResult: \"{field}\" is {x}, and a rate is never negative"
        ));
    }
    serde_json::from_value(v).map_err(|e| format!("{name} is not a valid RunResult: {e}"))
}

/// The first rate of a result that is negative (an IOPS figure, a bandwidth, each
/// named by its key: `iops`, `…_iops`, `…mb_per_s`), with its path (`jobs[0].read.iops`).
fn negative_rate(v: &serde_json::Value, at: &str) -> Option<(String, f64)> {
    use serde_json::Value;
    let rate = |k: &str| k == "iops" || k.ends_with("_iops") || k.ends_with("mb_per_s");
    match v {
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            match x.as_f64() {
                Some(n) if rate(k) && n < 0.0 => Some((path, n)),
                _ => negative_rate(x, &path),
            }
        }),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| negative_rate(x, &format!("{at}[{i}]"))),
        _ => None,
    }
}

/// A fio terse line first (`3;fio-3.33;NAME;…`, versions 2 to 5): its version field,
/// then fio's name and version.
fn is_fio_terse(text: &str) -> bool {
    let first = text.trim_start().lines().next().unwrap_or("");
    let mut f = first.split(';');
    matches!(f.next(), Some("2" | "3" | "4" | "5"))
        && f.next().is_some_and(|v| v.starts_with("fio-"))
}

/// What a test did, for the call-outs.
#[derive(Clone, Debug, PartialEq)]
pub struct Desc {
    /// block (request) size, bytes
    pub block: u64,
    /// requests in flight per thread
    pub qd: u32,
    /// threads
    pub threads: u32,
    /// O_DIRECT; `None` when the result does not say (a fio text report)
    pub direct: Option<bool>,
    /// file-set size, bytes
    pub file_set: u64,
    /// files in the set (0: not known)
    pub files: u32,
    /// RAM of the machine, bytes (from the diagnosis)
    pub ram: Option<u64>,
    /// the result's fsync policy in words (result/truth.rs `fsync_policy`; None: unknown)
    pub fsync: Option<String>,
    /// where the files kept their data when that was memory (`tmpfs`, `zram0`,
    /// `loop3 over tmpfs`: result/truth.rs `memory_target`)
    pub memory: Option<String>,
}

/// The facts of a whole result that every test's [`Desc`] carries.
struct RunFacts {
    ram: Option<u64>,
    /// the file set the page-cache check measured (bytes; `None` when not checked)
    file_set: Option<u64>,
    fsync: Option<String>,
    memory: Option<String>,
}

/// One test of one result with its figures (None = not measured).
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    /// row key: `RND read#0`, `phase:buffered_128k#0`
    pub key: String,
    /// display name, e.g. `RND4K Q32T1 read`
    pub name: String,
    /// job description (benchmark tests; None for copy/tree phases)
    pub desc: Option<Desc>,
    /// MB/s (decimal)
    pub mb_s: Option<f64>,
    /// operations per second
    pub iops: Option<f64>,
    /// mean latency, µs
    pub mean_us: Option<f64>,
    /// 99th percentile latency, µs
    pub p99_us: Option<f64>,
    /// the mean latency is derived with Little's law (QD × threads / IOPS), not measured
    pub little: bool,
    /// the job whose figures the test shows (`run`: the job of its phase, which its
    /// why rows read; `None`: the whole result's): its name and which of the result's
    /// jobs of that name it is (0: the first; two sections `[a]` and `numjobs` clones
    /// share a name)
    pub job: Option<(String, usize)>,
    /// the fsync figures and a mix's read and write apart
    pub why: Why,
}

/// The rows that say why a number is what it is: the fsync latency and the
/// share of the time spent in fsync whenever the test fsyncs, and a mix's read and
/// write latency apart (its `mean µs` merges them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Why {
    /// mean fsync latency, µs
    pub fsync_mean_us: Option<f64>,
    /// 99th percentile fsync latency, µs
    pub fsync_p99_us: Option<f64>,
    /// share of the wall time inside fsync, %
    pub fsync_pct: Option<f64>,
    /// share of the wall time in timed waits (rate limits, thinktime, flow), % (`None`:
    /// no wait timed)
    pub wait_pct: Option<f64>,
    /// whether the result timed its waits (iomark's own runs; an imported fio report
    /// does not say them, so no wait of it is known)
    pub timed: bool,
    /// a mix's mean read latency, µs
    pub read_mean_us: Option<f64>,
    /// a mix's mean write latency, µs
    pub write_mean_us: Option<f64>,
    /// `iomark time`: seconds from the command's start to the end of its last process
    pub wall_s: Option<f64>,
    /// `iomark time`: share of the wall time its processes were blocked on storage, %
    /// (`None`: not measured)
    pub storage_wait_pct: Option<f64>,
}

/// Where a test's why rows read their figures: its job's own (a `run` phase, by the
/// job's name: its `jobs` entry and its `time` share), else the whole result's when
/// the result is one job's (a fileio run, a result of one job, a result whose jobs are
/// not kept apart); `None` for a figure no part of the result holds for the test.
struct Figures<'a> {
    sync: Option<&'a crate::result::Latency>,
    time: Option<&'a crate::result::TimeShare>,
    read: Option<&'a crate::result::Latency>,
    write: Option<&'a crate::result::Latency>,
}

/// The [`Figures`] of job `job` in `r` (its name and rank among the jobs of that name;
/// `None`: the whole result).
fn figures<'a>(r: &'a RunResult, job: Option<&(String, usize)>) -> Figures<'a> {
    let whole = Figures {
        sync: Some(&r.fsync.lat),
        time: r.time.first(),
        read: Some(dir_lat(r, &r.read.lat, r.read.clat.as_ref())),
        write: Some(dir_lat(r, &r.write.lat, r.write.clat.as_ref())),
    };
    let Some((name, nth)) = job else { return whole };
    let own = r.jobs.iter().filter(|j| &j.job.name == name).nth(*nth);
    let share = r.time.iter().skip(1).filter(|t| &t.who == name).nth(*nth);
    if own.is_none() && one_job(r) {
        // a result of one job without its job record (an imported fio report, which
        // may keep the job's time share by its name): the whole result's figures
        return Figures {
            time: share.or(whole.time),
            ..whole
        };
    }
    Figures {
        sync: own.map(|j| &j.sync.lat),
        time: share,
        read: own.map(|j| dir_lat(r, &j.read.lat, Some(&j.read.clat))),
        write: own.map(|j| dir_lat(r, &j.write.lat, Some(&j.write.clat))),
    }
}

/// Whether every phase of `r` is one job's (`JOB read`, `JOB write`, …): its whole
/// figures are then that job's.
fn one_job(r: &RunResult) -> bool {
    let mut names = r
        .phases
        .iter()
        .map(|p| p.name.rsplit_once(' ').map_or(p.name.as_str(), |x| x.0));
    let first = names.next();
    names.all(|n| Some(n) == first)
}

/// The [`Why`] of test `t` of result `r`: the fsync figures, time shares and, for a
/// mix, read and write means of its job ([`figures`]: a `run` job's own, the whole
/// result's for a result of one job), and for `iomark time` its wall time and storage
/// wait (a command counts no operations: these are its rows).
fn why_of(r: &RunResult, t: &Test) -> Why {
    let f = figures(r, t.job.as_ref());
    let sync = f.sync.filter(|l| l.count > 0);
    let synced = sync.is_some();
    let mix = base_key(&t.key).ends_with(" mix");
    let mean = |l: Option<&crate::result::Latency>| {
        l.filter(|l| mix && l.count > 0).map(|l| l.mean() / 1e3)
    };
    Why {
        fsync_mean_us: sync.map(|l| l.mean() / 1e3),
        fsync_p99_us: sync
            .and_then(|l| l.percentiles_ns.get("99"))
            .map(|v| *v as f64 / 1e3),
        fsync_pct: f.time.map(|x| x.sync_pct).filter(|_| synced),
        wait_pct: f.time.and_then(|x| x.wait_pct).filter(|w| *w > 0.0),
        timed: r.tool == "iomark",
        read_mean_us: mean(f.read),
        write_mean_us: mean(f.write),
        wall_s: r.timed_command.as_ref().map(|c| c.wall_s),
        storage_wait_pct: r
            .timed_command
            .as_ref()
            .and_then(|c| c.bound.as_ref())
            .map(|b| b.storage_pct),
    }
}

fn pattern_of(name: &str) -> &'static str {
    if name.starts_with("SEQ") {
        "SEQ"
    } else {
        "RND"
    }
}

fn size_label(b: u64) -> String {
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{}M", b >> 20)
    } else if b.is_multiple_of(1024) {
        format!("{}K", b >> 10)
    } else {
        format!("{b}B")
    }
}

fn note_value(notes: &[String], key: &str) -> Option<String> {
    notes
        .iter()
        .flat_map(|n| n.split_whitespace())
        .find_map(|w| {
            w.strip_prefix(key)
                .and_then(|r| r.strip_prefix('='))
                .map(str::to_string)
        })
}

/// The comparable tests of a result, in its own order.
pub fn tests_of(r: &RunResult) -> Vec<Test> {
    let f = RunFacts {
        ram: r.diagnosis.as_ref().and_then(|d| d.summary.ram_bytes),
        file_set: r
            .page_cache
            .as_ref()
            .map(|p| p.file_set_bytes)
            .filter(|&b| b > 0),
        fsync: crate::result::truth::fsync_policy(r),
        memory: crate::result::truth::memory_target(r),
    };
    let tests: Vec<Test> = match r.command.as_str() {
        "fileio" => fileio_tests(r, &f),
        "run" => run_tests(r, &f),
        _ => r.phases.iter().map(|p| phase_test(r, p, &f)).collect(),
    };
    let mut out: Vec<Test> = vec![];
    for mut t in tests {
        t.why = why_of(r, &t);
        // a figure over a zero period (`elapsed_s: 0`, an edited file) is not a
        // figure: shown as missing, never `inf`
        for v in [&mut t.mb_s, &mut t.iops, &mut t.mean_us, &mut t.p99_us] {
            *v = v.filter(|x| x.is_finite());
        }
        // a job name with a newline must not break a row of any format
        t.name = crate::util::text::visible(&t.name);
        let rank = out
            .iter()
            .filter(|o| o.key.starts_with(&format!("{}#", t.key)))
            .count();
        t.key = format!("{}#{rank}", t.key);
        out.push(t);
    }
    out
}

/// Latency of a mix's reads and writes together, fsync excluded as on the read and
/// write rows (the result's `lat` counts sysbench events, periodic fsyncs included).
/// Percentiles only when every part kept its histogram (schema 1 files did not).
fn mix_latency(r: &RunResult) -> crate::result::Latency {
    let parts = [&r.read.lat, &r.write.lat];
    let mut l = crate::result::hist::merge_latency(&parts);
    if parts.iter().any(|p| p.count > 0 && p.histogram.is_none()) {
        l.percentiles_ns.clear();
    }
    l
}

/// Mean and p99 latency (µs) of a fileio result's direction (`read`, `write`, `mix`),
/// per read or write (fsync excluded): completion times when recorded, else Little's
/// law at QD > 1 (no p99), else the submission-to-completion times of sysbench's
/// semantics.
fn fileio_latency(r: &RunResult, op: &str, iops: f64) -> (Option<f64>, Option<f64>, bool) {
    let j = &r.job;
    let mix;
    let (lat, clat) = match op {
        "write" => (&r.write.lat, r.write.clat.as_ref()),
        "read" => (&r.read.lat, r.read.clat.as_ref()),
        _ => {
            mix = mix_latency(r);
            (&mix, r.clat.as_ref())
        }
    };
    let little = clat.is_none_or(|c| c.count == 0) && j.iodepth > 1;
    let (mean_us, p99_us) = if let Some(c) = clat.filter(|c| c.count > 0) {
        (
            Some(c.mean_ns as f64 / 1e3),
            c.percentiles_ns.get("99").map(|v| *v as f64 / 1e3),
        )
    } else if j.iodepth > 1 {
        let d = f64::from(j.iodepth) * f64::from(j.threads.max(1));
        ((iops > 0.0).then(|| d / iops * 1e6), None)
    } else {
        (
            (lat.count > 0).then(|| lat.mean_ns as f64 / 1e3),
            lat.percentiles_ns.get("99").map(|v| *v as f64 / 1e3),
        )
    };
    (mean_us, p99_us, little)
}

/// The tests of a fileio result: its one test, and for a mix (`rndrw`) also its reads
/// and its writes on rows of their own (`RND16K Q1T1 mix read`, `… mix write`), so the
/// split of the mix is kept beside its total.
fn fileio_tests(r: &RunResult, f: &RunFacts) -> Vec<Test> {
    let Some(total) = fileio_test(r, f) else {
        return vec![];
    };
    if !total.key.ends_with(" mix") {
        return vec![total];
    }
    let secs = crate::result::positive_secs(r.period_s);
    let mut v = vec![];
    for (op, o) in [("read", &r.read), ("write", &r.write)] {
        let iops = o.ops as f64 / secs;
        let (mean_us, p99_us, little) = fileio_latency(r, op, iops);
        v.push(Test {
            key: format!("{} {op}", total.key),
            name: format!("{} {op}", total.name),
            mb_s: Some(o.bytes as f64 / secs / 1e6),
            iops: Some(iops),
            mean_us,
            p99_us,
            little,
            ..total.clone()
        });
    }
    v.insert(0, total);
    v
}

/// The one test of a fileio result (None without a test mode).
fn fileio_test(r: &RunResult, f: &RunFacts) -> Option<Test> {
    let mode = r.job.test_mode?;
    let j = &r.job;
    let pattern = if mode.is_sequential() { "SEQ" } else { "RND" };
    let op = match mode.name() {
        "seqrd" | "rndrd" => "read",
        "rndrw" => "mix",
        _ => "write",
    };
    let ops = r.read.ops + r.write.ops;
    let secs = crate::result::positive_secs(r.period_s);
    let iops = ops as f64 / secs;
    let (mean_us, p99_us, little) = fileio_latency(r, op, iops);
    Some(Test {
        key: format!("{pattern} {op}"),
        name: format!(
            "{pattern}{} Q{}T{} {op}",
            size_label(j.block_size_bytes),
            j.iodepth.max(1),
            j.threads
        ),
        desc: Some(Desc {
            block: j.block_size_bytes,
            qd: j.iodepth.max(1),
            threads: j.threads,
            direct: Some(j.direct),
            file_set: j.total_size_bytes,
            files: j.files,
            ram: f.ram,
            fsync: f.fsync.clone(),
            memory: f.memory.clone(),
        }),
        mb_s: Some((r.read.bytes + r.write.bytes) as f64 / secs / 1e6),
        iops: Some(iops),
        mean_us,
        p99_us,
        little,
        job: None,
        why: Why::default(),
    })
}

/// The test of one phase of a mark (a CrystalDiskMark slot), copy or tree result.
fn phase_test(r: &RunResult, p: &crate::result::Phase, f: &RunFacts) -> Test {
    let (label, op) = p.name.rsplit_once(' ').unwrap_or((p.name.as_str(), ""));
    let slot = if r.command == "mark" {
        crate::result::Slot::parse_label(label)
    } else {
        None
    };
    let lat = p.lat.as_ref();
    let p99_us = lat
        .and_then(|l| l.percentiles_ns.get("99"))
        .map(|v| *v as f64 / 1e3);
    match slot {
        Some(s) => Test {
            key: format!("{} {op}", pattern_of(label)),
            name: p.name.clone(),
            desc: Some(Desc {
                block: s.block,
                qd: s.qd,
                threads: s.threads,
                direct: note_direct(&p.notes, r.job.direct),
                file_set: r.job.total_size_bytes,
                files: r.job.files,
                ram: f.ram,
                fsync: f.fsync.clone(),
                memory: f.memory.clone(),
            }),
            mb_s: Some(p.mb_per_s),
            iops: Some(p.ops_per_s),
            mean_us: lat
                .filter(|l| l.mean_ns > 0)
                .map(|l| l.mean_ns as f64 / 1e3),
            p99_us,
            little: p.notes.iter().any(|n| n.contains("Little's law")),
            job: None,
            why: Why::default(),
        },
        None => Test {
            key: format!("phase:{}", p.name),
            name: format!("{} {}", r.command, p.name),
            desc: None,
            mb_s: (p.bytes > 0).then_some(p.mb_per_s),
            // a phase that counts no operations (`time`'s command) has no IOPS
            iops: (p.ops > 0).then_some(p.ops_per_s),
            mean_us: lat.filter(|l| l.count > 0).map(|l| l.mean_ns as f64 / 1e3),
            p99_us,
            little: false,
            job: None,
            why: Why::default(),
        },
    }
}

/// `SEQ`/`RND` of a fio `rw=` value (`randread`, `randrw`, `read`, `rw` …).
fn fio_pattern(rw: &str) -> Option<&'static str> {
    let rw = rw.trim();
    if rw.starts_with("rand") {
        Some("RND")
    } else if matches!(
        rw,
        "read" | "write" | "rw" | "readwrite" | "trim" | "trimwrite"
    ) {
        Some("SEQ")
    } else {
        None
    }
}

/// Whether a fio `rw=` value mixes reads and writes (`rw`, `readwrite`, `randrw`).
fn is_mix(rw: &str) -> bool {
    matches!(rw.trim().trim_start_matches("rand"), "rw" | "readwrite")
}

/// Direction word at the end of a `run` phase name (`seq-read read` → `read`).
fn direction(name: &str) -> Option<&'static str> {
    match name.rsplit(' ').next()? {
        "read" => Some("read"),
        "write" => Some("write"),
        "trim" => Some("trim"),
        "mix" | "rw" => Some("mix"),
        _ => None,
    }
}

/// Key and shown name of a `run` phase: `RND mix read` / `RND4K Q1T1 mix read` from
/// its pattern, size, depth, jobs and direction (a direction of a mixed job is a mix
/// row, as fileio's `rndrw`); `phase:run NAME` when neither can be told.
fn run_row_key(name: &str, rw: &str, block: u64, qd: u32, threads: u32) -> (String, String) {
    match (
        fio_pattern(rw).or_else(|| name.contains("rand").then_some("RND")),
        direction(name).or(match rw.trim_start_matches("rand") {
            "read" => Some("read"),
            "write" => Some("write"),
            _ => None,
        }),
    ) {
        (Some(p), Some(d)) => {
            let d = match (is_mix(rw), d) {
                (true, "read" | "write") => format!("mix {d}"),
                _ => d.to_string(),
            };
            (
                format!("{p} {d}"),
                format!("{p}{} Q{qd}T{threads} {d}", size_label(block)),
            )
        }
        _ => (format!("phase:run {name}"), format!("run {name}")),
    }
}

/// A phase's latency as compare reads it, mean and p99 from one measure: an imported
/// fio report's is fio's `clat` (completion latency, with the percentiles fio prints by
/// default), as its totals, its mix rows and the OpenMetrics gauges read it — fio's
/// `lat` adds the time fio took to submit the request; any other phase's its own `lat`
/// (an imported report without a `clat`, `disable_clat=1`, keeps fio's `lat`).
fn phase_lat(p: &crate::result::Phase) -> Option<&crate::result::Latency> {
    p.clat.as_ref().filter(|c| c.count > 0).or(p.lat.as_ref())
}

/// A direction's latency of a job or a result, as [`phase_lat`] reads a phase: `clat`
/// for an imported report (another tool's, fio's) when it has one, else `lat`.
fn dir_lat<'a>(
    r: &RunResult,
    lat: &'a crate::result::Latency,
    clat: Option<&'a crate::result::Latency>,
) -> &'a crate::result::Latency {
    match clat.filter(|c| r.tool != "iomark" && c.count > 0) {
        Some(c) => c,
        None => lat,
    }
}

/// Tests of a `run` (fio job) result: one per phase (job × direction); a result
/// without phases gives one test per direction from its totals.
fn run_tests(r: &RunResult, f: &RunFacts) -> Vec<Test> {
    let j = &r.job;
    if !r.phases.is_empty() {
        let mixes = summed_mixes(&r.phases);
        let all: Vec<&crate::result::Phase> = r.phases.iter().chain(mixes.iter()).collect();
        return named_jobs(
            all.iter()
                .enumerate()
                .map(|(i, p)| {
                    let fig = Rates {
                        mb_s: (p.bytes > 0).then_some(p.mb_per_s),
                        iops: p.ops_per_s,
                        lat: phase_lat(p),
                    };
                    run_test((r, f), &p.name, job_of_phase(r, &all, i), &p.notes, fig)
                })
                .collect(),
        );
    }
    let mut v = vec![];
    for (d, o) in [("read", &r.read), ("write", &r.write)] {
        if o.ops > 0 {
            let fig = Rates {
                mb_s: Some(o.bw_mb_per_s),
                iops: o.iops,
                lat: o.clat.as_ref().or(Some(&o.lat)),
            };
            v.push(run_test((r, f), &format!("{} {d}", j.kind), None, &[], fig));
        }
    }
    v
}

/// What one row of a run result measured: MB/s (none for a test that moved no bytes),
/// operations per second and the latency its mean and p99 are read from.
struct Rates<'a> {
    mb_s: Option<f64>,
    iops: f64,
    lat: Option<&'a crate::result::Latency>,
}

/// The mean and p99 (µs) of a latency that was measured.
fn lat_figures(l: Option<&crate::result::Latency>) -> (Option<f64>, Option<f64>) {
    let l = l.filter(|l| l.count > 0 || l.mean_ns > 0);
    (
        l.map(|l| l.mean_ns as f64 / 1e3),
        l.and_then(|l| l.percentiles_ns.get("99"))
            .map(|v| *v as f64 / 1e3),
    )
}

/// One test of run result `r` (a phase or a direction): its settings from the phase's
/// notes where they say them, else the result's job; `job` names the job it belongs to
/// (its name and the how-manieth of that name), whose own files it counts.
fn run_test(
    (r, f): (&RunResult, &RunFacts),
    name: &str,
    job: Option<(String, usize)>,
    notes: &[String],
    fig: Rates<'_>,
) -> Test {
    let j = &r.job;
    let num = |v: Option<String>| v.and_then(|s| s.parse::<u64>().ok());
    let rw = note_value(notes, "rw").unwrap_or_else(|| j.kind.clone());
    let block = num(note_value(notes, "block_size_bytes"))
        .or(num(note_value(notes, "bs")))
        .unwrap_or(j.block_size_bytes);
    let qd = num(note_value(notes, "iodepth")).map_or(j.iodepth.max(1), |v| v as u32);
    let threads = num(note_value(notes, "threads"))
        .or(num(note_value(notes, "numjobs")))
        .map_or(j.threads.max(1), |v| v as u32);
    let file_set = num(note_value(notes, "file_size_bytes"))
        .or(num(note_value(notes, "size")))
        .or(f.file_set)
        .unwrap_or(j.total_size_bytes);
    let (mean_us, p99_us) = lat_figures(fig.lat);
    // the job's own files, not the whole run's
    let job_files = job
        .as_ref()
        .and_then(|(n, k)| r.jobs.iter().filter(|x| &x.job.name == n).nth(*k))
        .map_or(j.files, |x| x.job.files.max(1));
    let (key, display) = run_row_key(name, &rw, block, qd, threads);
    Test {
        key,
        name: display,
        desc: Some(Desc {
            block,
            qd,
            threads,
            direct: note_direct(notes, j.direct),
            file_set,
            files: num(note_value(notes, "nrfiles")).map_or(job_files, |v| v as u32),
            ram: f.ram,
            fsync: f.fsync.clone(),
            memory: f.memory.clone(),
        }),
        mb_s: fig.mb_s,
        iops: Some(fig.iops),
        mean_us,
        p99_us,
        little: false,
        job,
        why: Why::default(),
    }
}

/// The tests of a result of several jobs, each named with its job (`RND4K Q1T1 read
/// (job A)`; a later job of the same name `(job A #2)`), so two jobs of the same settings
/// are told apart; a result of one job keeps the plain names.
fn named_jobs(mut tests: Vec<Test>) -> Vec<Test> {
    let first = tests.first().and_then(|t| t.job.clone());
    if tests.iter().all(|t| t.job == first) {
        return tests;
    }
    for t in &mut tests {
        match &t.job {
            Some((n, 0)) => t.name = format!("{} (job {n})", t.name),
            Some((n, k)) => t.name = format!("{} (job {n} #{})", t.name, k + 1),
            None => {}
        }
    }
    tests
}

/// The job that ran phase `all[i]` (a phase is one job's direction: `JOB read`,
/// `JOB mix`): its name and its rank among the result's jobs of that name. Jobs of one
/// name (two sections `[a]`, `numjobs` clones) report in order, each with its own
/// phases, so the phase's rank among the phases of its name is its job's rank among the
/// jobs of that name that moved data that way.
fn job_of_phase(r: &RunResult, all: &[&crate::result::Phase], i: usize) -> Option<(String, usize)> {
    let p = all[i];
    let (name, dir) = p.name.rsplit_once(' ')?;
    let rank = all[..i].iter().filter(|q| q.name == p.name).count();
    let did = |j: &crate::result::JobResult| match dir {
        "read" => j.read.ios > 0,
        "write" => j.write.ios > 0,
        "trim" => j.trim.ios > 0,
        _ => j.read.ios > 0 && j.write.ios > 0,
    };
    let nth = r
        .jobs
        .iter()
        .filter(|j| j.job.name == name)
        .enumerate()
        .filter(|(_, j)| did(j))
        .nth(rank)
        .map_or(rank, |(k, _)| k);
    Some((name.to_string(), nth))
}

/// The mix of each mixed job (`rw=randrw`, `rw`) that has a read and a write phase but
/// no mix phase (fio's reports, imported): its reads and writes together, bytes and
/// I/Os summed over the longer direction's time, mean latency over both directions'
/// I/Os of the latency each direction's row shows ([`phase_lat`]: fio's `clat`), so
/// `(mean_r × N_r + mean_w × N_w) / (N_r + N_w)` in ns. No percentiles: fio gives them
/// per direction, and they do not add up.
fn summed_mixes(phases: &[crate::result::Phase]) -> Vec<crate::result::Phase> {
    let job_of = |p: &crate::result::Phase| p.name.rsplit_once(' ').map(|x| x.0.to_string());
    let mut out = vec![];
    for (i, rd) in phases.iter().enumerate() {
        if !rd.name.ends_with(" read") {
            continue;
        }
        let Some(job) = job_of(rd) else { continue };
        let mixed = note_value(&rd.notes, "rw").is_some_and(|rw| is_mix(&rw));
        // the k-th read of a name pairs with the k-th write of it (jobs of one name)
        let rank = phases[..i].iter().filter(|p| p.name == rd.name).count();
        let wr = phases
            .iter()
            .filter(|p| p.name == format!("{job} write"))
            .nth(rank);
        let has_mix = phases.iter().any(|p| {
            job_of(p).as_deref() == Some(job.as_str()) && direction(&p.name) == Some("mix")
        });
        let (Some(wr), true, false) = (wr, mixed, has_mix) else {
            continue;
        };
        let mut m = crate::result::Phase::new(
            &format!("{job} mix"),
            rd.ops + wr.ops,
            rd.bytes + wr.bytes,
            rd.seconds.max(wr.seconds),
        );
        m.notes = rd.notes.clone();
        m.lat = match (phase_lat(rd), phase_lat(wr)) {
            (Some(a), Some(b)) if a.count + b.count > 0 => {
                let (count, sum_ns) = (a.count + b.count, a.sum_ns + b.sum_ns);
                Some(crate::result::Latency {
                    count,
                    sum_ns,
                    mean_ns: sum_ns / count,
                    min_ns: a.min_ns.min(b.min_ns),
                    max_ns: a.max_ns.max(b.max_ns),
                    ..Default::default()
                })
            }
            _ => None,
        };
        out.push(m);
    }
    out
}

/// A column: one result file.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// header text
    pub label: String,
    /// the file it came from
    pub file: String,
    /// command that produced it
    pub command: String,
    /// device model from the diagnosis
    pub device: Option<String>,
    /// why the result is partial (`interrupted`, `failed`, `forced_shutdown`), if it is
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// ids of the result's warnings (result/truth.rs and the command's own), each once:
    /// every format shows them (the legend under the table, csv row, a marker on the
    /// chart's bars)
    pub warnings: Vec<String>,
    /// the sentence of each of `warnings` (the first message of that id), in order
    #[serde(skip)]
    pub warning_text: Vec<String>,
    /// how many results (repeated runs, `--group`) the column summarises
    #[serde(skip_serializing_if = "is_one")]
    pub runs: usize,
    /// where, when and how the column's (first) result was measured
    pub context: Context,
    /// why the column's figures came from memory, not from the drive (result/truth.rs
    /// `from_memory`, the first result of the column that says so): every format marks
    /// the column with the history's `[memory]` (report/history.rs `MEMORY_MARK`)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_memory: Option<String>,
    /// bytes the disk of the column's (first) device view moved beyond the run's own
    /// (report/why.rs `device_other_io`): the device view's rows then count other
    /// processes' I/O too, which every format says under the table
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_other_io: Option<u64>,
    /// the most runs any one test of the column has (a group of one drive's different
    /// tests has one run per test: its legend says so instead of "median of N runs")
    #[serde(skip)]
    pub runs_per_test: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// Where, when and how a result was measured: what a column needs to be compared
/// "next month" (host, kernel, date, version, command line).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Context {
    /// hostname, when the result names its machine
    pub host: Option<String>,
    /// kernel release
    pub kernel: Option<String>,
    /// CPU model and count, e.g. `AMD EPYC × 2`
    pub cpu: Option<String>,
    /// RAM, e.g. `23.5 GiB`
    pub ram: Option<String>,
    /// when the run ended, UTC (`date unknown` for results without a time)
    pub date: String,
    /// the producer and its version, e.g. `iomark 0.1.0`, `fio-3.33`
    pub version: String,
    /// the command line, e.g. `iomark fileio --file-test-mode=rndrw run`; for a report
    /// another tool wrote, its producer (`fio-3.33 report`)
    pub command: String,
    /// the result is another tool's report iomark imported (fio's): it has no iomark
    /// command line, and its producer is said by the legend's first line
    #[serde(skip)]
    pub imported: bool,
}

impl Context {
    /// `host vm, kernel 6.1.0, AMD EPYC × 2, RAM 23.5 GiB, iomark 0.1.0` (the parts known).
    pub fn machine_line(&self) -> String {
        let mut v = self.machine_parts();
        v.push(self.version.clone());
        v.join(", ")
    }

    /// The second line of a column's legend in `compare`: the machine, the date and the
    /// command line (`host vm, …, iomark 0.1.0; 2026-12-01 10:00 UTC: iomark mark …`);
    /// for an imported report the machine parts it names and its date alone, since the
    /// first line already says its producer (`fio-3.33 report`): the version once.
    pub fn legend_line(&self) -> String {
        if !self.imported {
            return format!("{}; {}: {}", self.machine_line(), self.date, self.command);
        }
        let mut v = vec![self.machine_parts().join(", ")];
        v.retain(|p| !p.is_empty());
        v.push(self.date.clone());
        v.join("; ")
    }

    /// Host, kernel, CPU and RAM, the parts known.
    fn machine_parts(&self) -> Vec<String> {
        let mut v = vec![];
        if let Some(h) = &self.host {
            v.push(format!("host {h}"));
        }
        if let Some(k) = &self.kernel {
            v.push(format!("kernel {k}"));
        }
        v.extend(self.cpu.clone());
        if let Some(m) = &self.ram {
            v.push(format!("RAM {m}"));
        }
        v
    }
}

/// A word of a command line as a shell reads it back: quoted when it holds anything
/// but letters, digits and `-_=.,/:+@%`.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=.,/:+@%".contains(c));
    if plain {
        w.to_string()
    } else if w.chars().any(char::is_control) {
        // bash's ANSI-C quoting: a newline or an escape sequence shown as `\n`, `\x1b`
        // (never printed raw into a report), and the word still pastes back as it was
        format!("$'{}'", crate::util::text::visible(w).replace('\'', "\\'"))
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The [`Context`] of a result.
pub fn context(r: &RunResult) -> Context {
    let m = r.machine.as_ref();
    let cpu = m.and_then(|m| match (&m.cpu_model, m.cpu_count) {
        (Some(model), Some(n)) => Some(format!("{model} × {n}")),
        (Some(model), None) => Some(model.clone()),
        (None, Some(n)) => Some(format!("{n} CPUs")),
        (None, None) => None,
    });
    let (version, command) = if r.tool == "iomark" {
        let words: Vec<String> = r.argv.iter().map(|w| shell_word(w)).collect();
        (
            format!("iomark {}", r.version),
            format!("iomark {} {}", r.command, words.join(" "))
                .trim_end()
                .to_string(),
        )
    } else {
        (r.version.clone(), format!("{} report", r.version))
    };
    Context {
        host: m.and_then(|m| m.hostname.clone()),
        kernel: m.and_then(|m| m.kernel.clone()),
        cpu,
        ram: m.and_then(|m| m.ram_bytes).map(crate::util::text::iec),
        date: if r.timestamp_ms > 0 {
            crate::result::history::date_time(r.timestamp_ms)
        } else {
            "date unknown".into()
        },
        version,
        command,
        imported: r.tool != "iomark",
    }
}

/// One output row: a metric of a test across all columns.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// test name (of the first column that has it)
    pub test: String,
    /// `MB/s`, `IOPS`, `mean µs`, `p99 µs`
    pub metric: String,
    /// one value per column (None: not measured / not present); the median of a
    /// column's runs when it has several (`--group`)
    pub values: Vec<Option<f64>>,
    /// (min, max) of each column's runs, per column (None for a single run); empty when
    /// no column has more than one
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spread: Vec<Option<(f64, f64)>>,
    /// value ÷ the baseline column's value, per column (None for the baseline and missing values)
    pub ratios: Vec<Option<f64>>,
    /// how the columns' jobs differ from the first column's, e.g. `B: QD 1 (A: 32)`
    pub differences: Vec<String>,
}

/// The whole comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// the result files
    pub columns: Vec<Column>,
    /// rows in first-appearance order
    pub rows: Vec<Row>,
    /// the column the ratios are against (0 unless `--baseline` chose another)
    #[serde(skip_serializing_if = "is_zero")]
    pub baseline: usize,
    /// some mean latency is derived with Little's law (older results, see module doc)
    #[serde(skip)]
    pub little: bool,
    /// findings against the results history (report/history.rs: the regression
    /// finding of `--baseline=last`), said under the table
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<crate::result::Warning>,
}

/// One warning of a comparison, said once: its id, its sentence (the first message of
/// that id in the column) and the letters of the columns it holds for.
#[derive(Clone, Debug, PartialEq)]
pub struct WarningNote {
    /// the stable warning id
    pub id: String,
    /// the warning in words
    pub text: String,
    /// the columns it holds for (`A`, `C`)
    pub columns: Vec<String>,
}

/// Every column's warnings, each (id and sentence) once with the columns it holds for,
/// in the order the columns first show them: what the formats say under the table and
/// the chart.
pub fn warning_notes(c: &Comparison) -> Vec<WarningNote> {
    let mut seen: Vec<WarningNote> = vec![];
    for (i, col) in c.columns.iter().enumerate() {
        for (k, id) in col.warnings.iter().enumerate() {
            let text = col.warning_text.get(k).cloned().unwrap_or_default();
            match seen.iter_mut().find(|n| n.id == *id && n.text == text) {
                Some(n) => n.columns.push(letter(i)),
                None => seen.push(WarningNote {
                    id: id.clone(),
                    text,
                    columns: vec![letter(i)],
                }),
            }
        }
    }
    seen
}

/// Labels: `--label` values in order, then the device model of the diagnosis, then the
/// file stem; a label used twice gets the file stem appended.
pub fn labels(given: &[String], files: &[String], results: &[RunResult]) -> Vec<String> {
    let stem = |f: &String| {
        Path::new(f)
            .file_stem()
            .map_or_else(|| f.clone(), |s| s.to_string_lossy().into_owned())
    };
    let mut v: Vec<String> = results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            given.get(i).cloned().unwrap_or_else(|| {
                r.diagnosis
                    .as_ref()
                    .and_then(|d| d.summary.device_model.clone())
                    .unwrap_or_else(|| stem(&files[i]))
            })
        })
        .collect();
    let orig = v.clone();
    // the first of stem, file name, path that tells the colliding files apart
    let name = |f: &String| {
        Path::new(f)
            .file_name()
            .map_or_else(|| f.clone(), |s| s.to_string_lossy().into_owned())
    };
    let ways: [&dyn Fn(&String) -> String; 3] = [&stem, &name, &|f: &String| f.clone()];
    for i in 0..v.len() {
        let same: Vec<usize> = (0..orig.len()).filter(|&j| orig[j] == orig[i]).collect();
        if i < given.len() || same.len() < 2 {
            continue;
        }
        let way = ways
            .iter()
            .find(|w| {
                let mut tags: Vec<String> = same.iter().map(|&j| w(&files[j])).collect();
                tags.sort();
                tags.dedup();
                tags.len() == same.len()
            })
            .unwrap_or(&ways[2]);
        let tag = way(&files[i]);
        // a label that is the stem itself is replaced, a model name is kept and tagged
        v[i] = if tag == orig[i] || orig[i] == stem(&files[i]) {
            tag
        } else {
            format!("{} ({tag})", orig[i])
        };
    }
    v
}

/// `direct=` of a phase's notes: `true`/`1`, `false`/`0`, `unknown` (fio text
/// imports) → None; no note: the job's own `direct`.
fn note_direct(notes: &[String], job_direct: bool) -> Option<bool> {
    match note_value(notes, "direct").as_deref() {
        None => Some(job_direct),
        Some("unknown") => None,
        Some(v) => Some(v == "true" || v == "1"),
    }
}

/// How `b` (column `lb`) differs from `a` (column `la`): block, QD, threads, O_DIRECT,
/// the fsync policy (on rows that write), a memory target and a file set that fits in
/// RAM (said of the column it holds for).
fn describe_diff(a: &Desc, b: &Desc, la: &str, lb: &str, writes: bool) -> Vec<String> {
    let mut d = vec![];
    if a.block != b.block {
        d.push(format!(
            "{lb}: block {} ({la}: {})",
            size_label(b.block),
            size_label(a.block)
        ));
    }
    if a.qd != b.qd {
        d.push(format!("{lb}: QD {} ({la}: {})", b.qd, a.qd));
    }
    if a.threads != b.threads {
        let threads = crate::util::text::plural(b.threads, "thread", "threads");
        d.push(format!("{lb}: {threads} ({la}: {})", a.threads));
    }
    if a.files != b.files && a.files > 0 && b.files > 0 {
        let files = crate::util::text::plural(b.files, "file", "files");
        d.push(format!("{lb}: {files} ({la}: {})", a.files));
    }
    if a.direct != b.direct {
        let w = |x: Option<bool>| match x {
            Some(true) => "O_DIRECT",
            Some(false) => "buffered",
            None => "O_DIRECT unknown (fio text output does not say)",
        };
        d.push(format!("{lb}: {} ({la}: {})", w(b.direct), w(a.direct)));
    }
    if let (true, Some(fa), Some(fb)) = (writes, &a.fsync, &b.fsync) {
        if fa != fb {
            d.push(format!("{lb}: {fb} ({la}: {fa})"));
        }
    }
    for (l, x, other) in [(la, a, b), (lb, b, a)] {
        if let Some(m) = x
            .memory
            .as_ref()
            .filter(|&m| other.memory.as_ref() != Some(m))
        {
            d.push(format!(
                "{l}: files in memory ({m}), not on a storage device"
            ));
        }
    }
    // an unknown file set (0 bytes) is not said to fit
    let fits = |x: &Desc| {
        x.direct == Some(false) && x.file_set > 0 && x.ram.is_some_and(|r| x.file_set <= r)
    };
    for (l, x, other) in [(la, a, b), (lb, b, a)] {
        if fits(x) && !fits(other) {
            d.push(format!(
                "{l}: buffered file set {} fits in RAM {} (page cache)",
                crate::util::text::iec(x.file_set),
                x.ram.map_or("unknown".into(), crate::util::text::iec)
            ));
        }
    }
    d
}

/// Column letter used in headers and call-outs: A…Z, then #27, #28 …
pub fn letter(i: usize) -> String {
    match u8::try_from(i) {
        Ok(n) if n < 26 => char::from(b'A' + n).to_string(),
        _ => format!("#{}", i + 1),
    }
}

fn base_key(k: &str) -> &str {
    k.rsplit_once('#').map_or(k, |(b, _)| b)
}

/// A row's key, the job settings of its first test and that test's job (name, rank).
type RowKey = (String, Option<Desc>, Option<(String, usize)>);

/// Row keys in first-appearance order, re-keying each result's tests so that a test
/// joins the row of the same pattern and direction whose job matches it exactly
/// (block, QD, threads), else the free row of that pattern and direction whose job is
/// closest (QD, then threads, then block size; the difference is then called out), else
/// a new row.
fn align(per: &mut [Vec<Test>]) -> Vec<String> {
    let mut keys: Vec<RowKey> = vec![];
    for ts in per.iter_mut() {
        let mut assigned: Vec<Option<String>> = vec![None; ts.len()];
        let mut used: Vec<String> = vec![];
        let same = |a: &Option<Desc>, b: &Option<Desc>| match (a, b) {
            (Some(a), Some(b)) => (a.block, a.qd, a.threads) == (b.block, b.qd, b.threads),
            _ => false,
        };
        // a job of the same name (and rank among its namesakes) first, then the same
        // settings
        for (i, t) in ts.iter().enumerate() {
            let base = base_key(&t.key);
            if let Some((k, ..)) = keys.iter().find(|(k, _, j)| {
                base_key(k) == base && !used.contains(k) && t.job.is_some() && *j == t.job
            }) {
                used.push(k.clone());
                assigned[i] = Some(k.clone());
            }
        }
        for (i, t) in ts.iter().enumerate() {
            let base = base_key(&t.key);
            if assigned[i].is_some() {
                continue;
            }
            if let Some((k, ..)) = keys
                .iter()
                .find(|(k, d, _)| base_key(k) == base && !used.contains(k) && same(d, &t.desc))
            {
                used.push(k.clone());
                assigned[i] = Some(k.clone());
            }
        }
        assign_closest(ts, &keys, &mut assigned, &mut used);
        for (i, t) in ts.iter().enumerate() {
            if assigned[i].is_some() {
                continue;
            }
            let base = base_key(&t.key).to_string();
            let n = keys.iter().filter(|(k, ..)| base_key(k) == base).count();
            let k = format!("{base}#{n}");
            keys.push((k.clone(), t.desc.clone(), t.job.clone()));
            used.push(k.clone());
            assigned[i] = Some(k);
        }
        for (t, k) in ts.iter_mut().zip(assigned) {
            t.key = k.unwrap_or_default();
        }
    }
    keys.into_iter().map(|(k, ..)| k).collect()
}

/// The free rows of `keys` to this result's still unassigned tests `ts`, the closest
/// pairs first, over all of them at once (so a QD 1 test takes the QD 1 row even when a
/// QD 32 test of the same pattern comes first): closeness = same QD (4) + same threads
/// (2) + same block size (1); earliest on ties.
fn assign_closest(
    ts: &[Test],
    keys: &[RowKey],
    assigned: &mut [Option<String>],
    used: &mut Vec<String>,
) {
    let closeness = |a: &Option<Desc>, b: &Option<Desc>| match (a, b) {
        (Some(a), Some(b)) => {
            4 * u8::from(a.qd == b.qd)
                + 2 * u8::from(a.threads == b.threads)
                + u8::from(a.block == b.block)
        }
        _ => 0,
    };
    loop {
        let mut best: Option<(usize, usize, u8)> = None;
        for (i, t) in ts.iter().enumerate() {
            if assigned[i].is_some() {
                continue;
            }
            let base = base_key(&t.key);
            for (r, (k, d, _)) in keys.iter().enumerate() {
                if base_key(k) != base || used.contains(k) {
                    continue;
                }
                let c = closeness(d, &t.desc);
                if best.is_none_or(|(_, _, b)| c > b) {
                    best = Some((i, r, c));
                }
            }
        }
        let Some((i, r, _)) = best else { break };
        let k = keys[r].0.clone();
        used.push(k.clone());
        assigned[i] = Some(k);
    }
}

/// A column of a grouped comparison: a label and the results (indices) that are
/// repeated runs of one drive or target.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// column header text
    pub label: String,
    /// indices into the results, in the order given
    pub members: Vec<usize>,
}

/// Build the comparison of `results` labelled `labels` (same length): one column per
/// result, ratios against the first.
pub fn compare(results: &[RunResult], labels: &[String], files: &[String]) -> Comparison {
    let groups: Vec<Group> = labels
        .iter()
        .enumerate()
        .map(|(i, l)| Group {
            label: l.clone(),
            members: vec![i],
        })
        .collect();
    compare_groups(results, &groups, files, 0)
}

/// The median of some values (the mean of the middle two for an even count).
fn median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// One column's figure of a metric: the median of its runs, and (min, max) when more
/// than one run has it.
fn group_value(
    cells: &[Option<&Test>],
    g: &Group,
    get: Metric,
) -> (Option<f64>, Option<(f64, f64)>) {
    let mut v: Vec<f64> = g
        .members
        .iter()
        .filter_map(|&m| cells[m].and_then(get))
        .collect();
    let med = median(&mut v);
    let spread = (v.len() > 1).then(|| (v[0], v[v.len() - 1]));
    (med, spread)
}

/// The call-outs of one row: columns without the test, and how each column's job
/// (its first run that has the test) differs from the reference column's; each
/// call-out once (a fact of the reference column is found against every other column).
fn row_differences(cells: &[Option<&Test>], groups: &[Group], ref_g: usize) -> Vec<String> {
    let letters: Vec<String> = (0..groups.len()).map(letter).collect();
    let first = |g: &Group| g.members.iter().find_map(|&m| cells[m]);
    let reference = first(&groups[ref_g]);
    let mut differences: Vec<String> = vec![];
    for (i, g) in groups.iter().enumerate() {
        match first(g) {
            None => differences.push(format!("{}: no such test", letters[i])),
            Some(c) if i != ref_g => {
                if let Some(r) = reference {
                    for d in test_diff(r, c, &letters[ref_g], &letters[i]) {
                        if !differences.contains(&d) {
                            differences.push(d);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    differences
}

/// Points of the wall time in timed waits by which two tests must differ to be called
/// out: a rate limit or a think time slows a test on purpose.
pub const WAIT_DIFF_POINTS: f64 = 10.0;

/// How test `b` (column `lb`) differs from test `a` (column `la`) in what it ran: the
/// jobs ([`describe_diff`], when both say) and the share of the time in timed waits
/// (rate limits, think time, flow, a stonewall's or wait_for's wait for earlier jobs)
/// when both timed their waits and the shares differ by [`WAIT_DIFF_POINTS`] or more.
/// Empty: the two ran the same test the same way, so their figures compare.
pub fn test_diff(a: &Test, b: &Test, la: &str, lb: &str) -> Vec<String> {
    let writes = |t: &Test| {
        let k = base_key(&t.key);
        k.ends_with(" write") || k.ends_with(" mix")
    };
    let mut d = match (&a.desc, &b.desc) {
        (Some(x), Some(y)) => describe_diff(x, y, la, lb, writes(a) || writes(b)),
        _ => vec![],
    };
    // only when both say where their time went: a fio report does not, so its "no
    // timed waits" would be a guess
    let (wa, wb) = (a.why.wait_pct.unwrap_or(0.0), b.why.wait_pct.unwrap_or(0.0));
    if a.why.timed && b.why.timed && (wa - wb).abs() >= WAIT_DIFF_POINTS {
        let w = |v: f64| match v > 0.0 {
            true => format!("{v:.0} % of the time in timed waits"),
            false => "no timed waits".to_string(),
        };
        d.push(format!(
            "{lb}: {} (rate limit, think time, waiting for earlier jobs) ({la}: {})",
            w(wb),
            w(wa)
        ));
    }
    d
}

/// The metrics of compare's rows, each with how a test gives it.
fn metrics() -> [(&'static str, Metric); 12] {
    [
        ("MB/s", |t| t.mb_s),
        ("IOPS", |t| t.iops),
        ("mean µs", |t| t.mean_us),
        ("p99 µs", |t| t.p99_us),
        // a mix's parts apart, and the fsync rows when a column fsyncs
        ("read mean µs", |t| t.why.read_mean_us),
        ("write mean µs", |t| t.why.write_mean_us),
        ("fsync mean µs", |t| t.why.fsync_mean_us),
        ("fsync p99 µs", |t| t.why.fsync_p99_us),
        (TIME_IN_FSYNC, |t| t.why.fsync_pct),
        (TIME_IN_WAITS, |t| t.why.wait_pct),
        // `iomark time`'s command
        (WALL_S, |t| t.why.wall_s),
        (STORAGE_WAIT, |t| t.why.storage_wait_pct),
    ]
}

/// The rows of the test keyed `k`: one per metric some group has, named by the first
/// group's test that has it; the first row carries the jobs' differences.
fn key_rows(k: &str, per: &[Vec<Test>], groups: &[Group], baseline: usize) -> Vec<Row> {
    let cells: Vec<Option<&Test>> = per
        .iter()
        .map(|ts| ts.iter().find(|t| t.key == k))
        .collect();
    let present = |g: &Group| g.members.iter().find_map(|&m| cells[m]);
    let Some((ref_g, reference)) = groups
        .iter()
        .enumerate()
        .find_map(|(i, g)| present(g).map(|t| (i, t)))
    else {
        return vec![];
    };
    let differences = row_differences(&cells, groups, ref_g);
    let mut rows = vec![];
    for (metric, get) in &metrics() {
        let (values, spread): (Vec<_>, Vec<_>) =
            groups.iter().map(|g| group_value(&cells, g, *get)).unzip();
        if values.iter().all(Option::is_none) {
            continue;
        }
        let mut row = row_of(&reference.name, metric, (values, spread), baseline);
        if rows.is_empty() {
            row.differences = differences.clone();
        }
        rows.push(row);
    }
    rows
}

/// The column of group `g`: its label and file with control characters visible (in
/// every format) and its most runs of one test (`keys`, the tests of each result `per`).
fn group_column(
    results: &[RunResult],
    g: &Group,
    files: &[String],
    (keys, per): (&[String], &[Vec<Test>]),
) -> Column {
    let mut c = column(results, g, files);
    c.label = crate::util::text::visible(&c.label);
    c.file = crate::util::text::visible(&c.file);
    c.runs_per_test = keys
        .iter()
        .map(|k| {
            g.members
                .iter()
                .filter(|&&m| per[m].iter().any(|t| &t.key == k))
                .count()
        })
        .max()
        .unwrap_or(0);
    c
}

/// Build the comparison with one column per group (median of its runs, with their
/// spread), ratios against the column `baseline`.
pub fn compare_groups(
    results: &[RunResult],
    groups: &[Group],
    files: &[String],
    baseline: usize,
) -> Comparison {
    let mut per: Vec<Vec<Test>> = results.iter().map(tests_of).collect();
    let keys = align(&mut per);
    let mut rows: Vec<Row> = keys
        .iter()
        .flat_map(|k| key_rows(k, &per, groups, baseline))
        .collect();
    rows.extend(device_rows(results, groups, baseline));
    let columns = groups
        .iter()
        .map(|g| group_column(results, g, files, (&keys, &per)))
        .collect();
    let little = per
        .iter()
        .flatten()
        .any(|t| t.little && t.mean_us.is_some());
    Comparison {
        columns,
        rows,
        baseline,
        little,
        history: vec![],
    }
}

/// Each column's figure of a row and its spread (best, worst) where it has one.
type ColumnFigures = (Vec<Option<f64>>, Vec<Option<(f64, f64)>>);

/// A row of `metric` of `test` with each column's value and spread, and the ratios
/// against column `baseline`.
fn row_of(test: &str, metric: &str, (values, spread): ColumnFigures, baseline: usize) -> Row {
    let base = values.get(baseline).copied().flatten();
    let ratios = values
        .iter()
        .enumerate()
        .map(|(i, v)| match (base, v) {
            (Some(b), Some(v)) if i != baseline && b > 0.0 => Some(v / b),
            _ => None,
        })
        .collect();
    Row {
        test: test.to_string(),
        metric: metric.to_string(),
        values,
        spread: if spread.iter().any(Option::is_some) {
            spread
        } else {
            vec![]
        },
        ratios,
        differences: vec![],
    }
}

/// The test name of the device view's rows: what the disk under the files did over a
/// result's whole run (one figure per column, never per test: a result of several
/// tests or jobs has one device view).
pub const DEVICE_VIEW: &str = "device view (whole run)";

/// The device view's metrics that are counts (requests and flushes): printed whole.
pub const DEVICE_COUNTS: [&str; 3] = ["device reads", "device writes", "device flushes"];

/// The device view's rows: of each column's disk under the files (the first disk the
/// view lists that is no stack's member), its requests, flushes, service time per
/// request, queue depth and utilisation over the whole run; a metric no column has is
/// left out (a result without a view: tmpfs, fio's reports).
fn device_rows(results: &[RunResult], groups: &[Group], baseline: usize) -> Vec<Row> {
    type DevMetric = fn(&crate::result::DeviceActivity) -> Option<f64>;
    let metrics: [(&str, DevMetric); 10] = [
        (DEVICE_COUNTS[0], |d| Some(d.reads as f64)),
        (DEVICE_COUNTS[1], |d| Some(d.writes as f64)),
        (DEVICE_COUNTS[2], |d| d.flushes.map(|n| n as f64)),
        ("device read ms/req", |d| {
            d.read_ms_per_io.filter(|_| d.reads > 0)
        }),
        ("device write ms/req", |d| {
            d.write_ms_per_io.filter(|_| d.writes > 0)
        }),
        ("device flush ms/req", |d| {
            d.flush_ms_per_io.filter(|_| d.flushes.unwrap_or(0) > 0)
        }),
        ("device queue depth", |d| Some(d.queue_depth)),
        ("device util %", |d| Some(d.util_pct)),
        ("device MB read", |d| Some(d.read_bytes as f64 / 1e6)),
        ("device MB written", |d| Some(d.write_bytes as f64 / 1e6)),
    ];
    let disk = |r: &RunResult| {
        r.device_view
            .as_ref()?
            .devices
            .iter()
            .find(|d| d.member_of.is_none())
            .cloned()
    };
    let disks: Vec<_> = results.iter().map(disk).collect();
    let mut rows = vec![];
    for (metric, get) in metrics {
        let (values, spread): (Vec<_>, Vec<_>) = groups
            .iter()
            .map(|g| {
                let mut v: Vec<f64> = g
                    .members
                    .iter()
                    .filter_map(|&m| disks[m].as_ref().and_then(get))
                    .collect();
                let med = median(&mut v);
                (med, (v.len() > 1).then(|| (v[0], v[v.len() - 1])))
            })
            .unzip();
        if values.iter().any(Option::is_some) {
            rows.push(row_of(DEVICE_VIEW, metric, (values, spread), baseline));
        }
    }
    rows
}

/// Each failed job of `r` in one line: its name, how many of its threads ended in error
/// and the first thread's failure as it was said (`job 'x': 2 threads ended in error,
/// first: file:backend.c:1450, func=iosched_switch, error=Invalid argument`), or, of an
/// imported fio report, the job's error number and its text.
fn failures(r: &RunResult) -> Vec<String> {
    r.jobs
        .iter()
        .filter_map(|j| {
            let first = j.thread_failures.first().and_then(|t| t.lines.first());
            let errno = (j.errno != 0)
                .then(|| format!("error {} ({})", j.errno, crate::util::strerror(j.errno)));
            let said = first.or(j.failure.as_ref()).cloned().or(errno)?;
            let threads = match j.failed_threads {
                0 | 1 => "a thread ended in error".to_string(),
                n => format!("{n} threads ended in error"),
            };
            Some(format!("job '{}': {threads}, first: {said}", j.job.name))
        })
        .collect()
}

/// The ids of `r`'s warnings in order, each once.
fn warning_ids(r: &RunResult) -> Vec<String> {
    let mut v: Vec<String> = vec![];
    for w in &r.warnings {
        if !v.contains(&w.id) {
            v.push(w.id.clone());
        }
    }
    v
}

/// The column of a group: its label, files, producer, device and whether a run is partial.
fn column(results: &[RunResult], g: &Group, files: &[String]) -> Column {
    let r = &results[g.members[0]];
    let partial = g.members.iter().find_map(|&m| {
        let r = &results[m];
        let failed = failures(r).into_iter().next();
        match r.status {
            // (an imported fio report whose job ended in error)
            crate::result::Status::Ok => failed.map(|f| format!("failed ({f})")),
            crate::result::Status::Interrupted => Some("interrupted".to_string()),
            crate::result::Status::Failed => Some(match failed.or_else(|| r.error.clone()) {
                Some(f) => format!("failed ({f})"),
                None => "failed".into(),
            }),
            crate::result::Status::ForcedShutdown => Some("forced_shutdown".into()),
        }
    });
    Column {
        label: g.label.clone(),
        file: g
            .members
            .iter()
            .map(|&m| files[m].clone())
            .collect::<Vec<_>>()
            .join(", "),
        // imported fio reports: `fio-3.33:run` (the legend says "fio-3.33 report")
        command: if r.tool == "iomark" {
            r.command.clone()
        } else {
            format!("{}:{}", r.version, r.command)
        },
        device: r
            .diagnosis
            .as_ref()
            .and_then(|d| d.summary.device_model.clone()),
        partial,
        warnings: g.members.iter().fold(vec![], |mut v: Vec<String>, &m| {
            for id in warning_ids(&results[m]) {
                if !v.contains(&id) {
                    v.push(id);
                }
            }
            v
        }),
        warning_text: g
            .members
            .iter()
            .fold(vec![], |mut v: Vec<(String, String)>, &m| {
                for w in &results[m].warnings {
                    if !v.iter().any(|(id, _)| *id == w.id) {
                        v.push((w.id.clone(), w.message.clone()));
                    }
                }
                v
            })
            .into_iter()
            .map(|(_, m)| m)
            .collect(),
        runs: g.members.len(),
        from_memory: g
            .members
            .iter()
            .find_map(|&m| crate::result::truth::from_memory(&results[m])),
        device_other_io: r.device_view.as_ref().and_then(super::why::device_other_io),
        context: context(r),
        runs_per_test: g.members.len(),
    }
}

/// The metric of the "time in fsync" row (share of the wall time, %).
pub const TIME_IN_FSYNC: &str = "time in fsync %";
/// The metric of the "time in waits" row (rate limits, thinktime, flow; share of the
/// wall time, %), present when a column waited.
pub const TIME_IN_WAITS: &str = "time in waits %";
/// The row of an `iomark time` command's wall time, seconds.
pub const WALL_S: &str = "wall s";
/// The row of an `iomark time` command's share of the wall time blocked on storage.
pub const STORAGE_WAIT: &str = "storage wait %";

/// Reads one metric of a test.
type Metric = fn(&Test) -> Option<f64>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A negative rate anywhere in a result is found with its path: `read.iops`,
    /// a job's direction, a phase's bandwidth; zero and other negative figures pass.
    #[test]
    fn a_negative_rate_is_found_by_its_path() {
        let neg = |t: &str| negative_rate(&serde_json::from_str(t).unwrap(), "");
        assert_eq!(
            neg(r#"{"read": {"iops": -5}}"#),
            Some(("read.iops".into(), -5.0))
        );
        assert_eq!(
            neg(r#"{"jobs": [{"read": {"iops": 1}}, {"write": {"iops": -0.5}}]}"#),
            Some(("jobs[1].write.iops".into(), -0.5))
        );
        assert_eq!(
            neg(r#"{"phases": [{"mb_per_s": -1}]}"#),
            Some(("phases[0].mb_per_s".into(), -1.0))
        );
        assert_eq!(neg(r#"{"read": {"iops": 0}, "skew_s": -2}"#), None);
    }

    /// A direction of a mixed fio job is a mix row (as fileio's `rndrw`), never a pure
    /// read or write row beside a read-only job's.
    #[test]
    fn directions_of_a_mixed_job_are_mix_rows() {
        let row = |name: &str, rw: &str| run_row_key(name, rw, 4096, 1, 1);
        assert_eq!(
            row("rr read", "randrw"),
            ("RND mix read".into(), "RND4K Q1T1 mix read".into())
        );
        assert_eq!(row("rr write", "readwrite").0, "SEQ mix write");
        assert_eq!(row("rr write", "rw").0, "SEQ mix write");
        assert_eq!(row("r read", "randread").0, "RND read");
        assert_eq!(row("w write", "write").0, "SEQ write");
        assert_eq!(row("odd", "").0, "phase:run odd");
    }

    /// fio 3.33's JSON of a `randrw` io_uring job (tests/fixtures/fio, `lat_percentiles=1`:
    /// both `lat_ns` and `clat_ns` have percentiles, and their means differ) read as fio
    /// wrote it, with the result compare makes of it.
    fn fio_randrw() -> (serde_json::Value, RunResult) {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio/randrw-uring-latpct.json");
        let text = std::fs::read_to_string(p).unwrap();
        let r = crate::result::import::import(&text, "f.json")
            .unwrap()
            .unwrap();
        (serde_json::from_str(&text).unwrap(), r)
    }

    /// Every latency row of an imported fio mixed job is fio's `clat` (completion
    /// latency), in µs: `mix read` and `mix write` their direction's `clat_ns` mean and
    /// p99, the mix row the mean of both directions' I/Os (`(mean_r × N_r + mean_w ×
    /// N_w) / (N_r + N_w)`), its read and write means kept apart — never fio's `lat_ns`.
    #[test]
    fn an_imported_fio_mix_reads_clat_on_every_row() {
        let (v, r) = fio_randrw();
        let j = &v["jobs"][0];
        let f = |d: &str, l: &str, k: &str| j[d][l][k].as_f64().unwrap();
        for d in ["read", "write"] {
            assert!(
                (f(d, "clat_ns", "mean") - f(d, "lat_ns", "mean")).abs() > 1000.0,
                "the fixture tells lat and clat apart"
            );
        }
        let tests = tests_of(&r);
        let row = |name: &str| {
            tests.iter().find(|t| t.name == name).unwrap_or_else(|| {
                panic!(
                    "no {name}: {:?}",
                    tests.iter().map(|t| &t.name).collect::<Vec<_>>()
                )
            })
        };
        let close = |got: Option<f64>, want_us: f64, what: &str| {
            let got = got.unwrap_or_else(|| panic!("{what}: none"));
            // whole ns as the import keeps them: within 1 ns
            assert!(
                (got - want_us).abs() <= 1e-3,
                "{what}: {got} µs, want {want_us} µs"
            );
        };
        for d in ["read", "write"] {
            let t = row(&format!("RND4K Q4T1 mix {d}"));
            close(
                t.mean_us,
                f(d, "clat_ns", "mean") / 1e3,
                &format!("{d} mean"),
            );
            let p99 = j[d]["clat_ns"]["percentile"]["99.000000"].as_f64().unwrap();
            close(t.p99_us, p99 / 1e3, &format!("{d} p99"));
        }
        let (nr, nw) = (f("read", "clat_ns", "N"), f("write", "clat_ns", "N"));
        let sum_ns = f("read", "clat_ns", "mean") * nr + f("write", "clat_ns", "mean") * nw;
        let mix = row("RND4K Q4T1 mix");
        close(mix.mean_us, sum_ns / (nr + nw) / 1e3, "mix mean");
        assert_eq!(
            mix.p99_us, None,
            "percentiles of two directions do not add up"
        );
        close(
            mix.why.read_mean_us,
            f("read", "clat_ns", "mean") / 1e3,
            "mix's read mean",
        );
        close(
            mix.why.write_mean_us,
            f("write", "clat_ns", "mean") / 1e3,
            "mix's write mean",
        );
    }

    /// fio's terse output is named as such, not "not JSON: trailing characters".
    #[test]
    fn a_fio_terse_file_is_named_as_such() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.terse");
        std::fs::write(&p, "3;fio-3.33;j;0;0;1024;1024000;256000;1;0\n").unwrap();
        let e = load(&p).unwrap_err();
        assert!(e.contains("is fio's terse output"), "{e}");
        std::fs::write(&p, "3;4;5\n").unwrap();
        assert!(load(&p).unwrap_err().contains("is not JSON"));
    }
}
