//! `RunResult`: the one versioned result schema (`schema_version` 1), written by
//! `--json=FILE`. Units are in the key names: `_bytes`, `_ns`, `_s`, `_per_s`;
//! bandwidth is given in bytes/s plus MiB/s (1048576) and MB/s (1000000).
//!
//! The file is created before the run (so a bad path fails fast) and rewritten
//! atomically (temp file + rename) at the end, also after an interruption.

pub mod import;

use crate::job::sysbench::{DataPattern, FileioJob, Geometry, TestMode};
use crate::probe::pagecache::PageCacheCheck;
use crate::stats::{percentile_ns, EventKind, LatencySummary, Snapshot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Current schema version.
pub const SCHEMA_VERSION: u32 = 1;

/// Percentiles always recorded, besides `--percentile`.
pub const STANDARD_PERCENTILES: [f64; 7] = [1.0, 5.0, 50.0, 90.0, 95.0, 99.0, 99.9];

/// How the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// limits reached normally
    Ok,
    /// stopped by SIGINT/SIGTERM; numbers cover the part that ran
    Interrupted,
    /// an I/O error or validation failure stopped the run
    Failed,
    /// `--forced-shutdown` expired
    ForcedShutdown,
}

/// Latency statistics of a set of events, nanoseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// number of events
    pub count: u64,
    /// smallest, ns
    pub min_ns: u64,
    /// largest, ns
    pub max_ns: u64,
    /// mean, ns (floor)
    pub mean_ns: u64,
    /// population standard deviation, ns
    pub stdev_ns: f64,
    /// sum, ns
    pub sum_ns: u64,
    /// percentiles keyed by their value as text ("95", "99.9"), ns
    pub percentiles_ns: BTreeMap<String, u64>,
}

/// Counters of one operation type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpStats {
    /// completed operations
    pub ops: u64,
    /// bytes moved
    pub bytes: u64,
    /// operations per second
    pub iops: f64,
    /// bytes per second
    pub bw_bytes_per_s: f64,
    /// MiB/s (1 MiB = 1048576 bytes)
    pub bw_mib_per_s: f64,
    /// MB/s (1 MB = 1000000 bytes)
    pub bw_mb_per_s: f64,
    /// latency of this operation's events (sync/mmap: the operation; async: submission)
    pub lat: Latency,
    /// per-I/O completion latency (submission to reaped completion) of queued requests;
    /// present for engines that queue (io_uring), absent otherwise (there `lat` already
    /// is the per-I/O latency). Added in schema 1 (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clat: Option<Latency>,
}

/// fsync counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FsyncStats {
    /// all fsync/fdatasync/msync calls (periodic, fsync-all, end of test)
    pub ops: u64,
    /// calls per second
    pub ops_per_s: f64,
    /// latency of the periodic fsync events
    pub lat: Latency,
}

/// Per-thread fairness figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadResult {
    /// events executed by the thread
    pub events: u64,
    /// sum of its event latencies, seconds
    pub exec_time_s: f64,
}

/// One `--report-interval` sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// seconds since start at the end of the interval
    pub t_s: f64,
    /// interval length, seconds
    pub dur_s: f64,
    /// bytes read in the interval
    pub read_bytes: u64,
    /// bytes written in the interval
    pub written_bytes: u64,
    /// fsync calls in the interval
    pub fsyncs: u64,
    /// which percentile `lat_pct_ns` is (`--percentile`)
    pub percentile: u32,
    /// the interval's `--percentile` latency, ns
    pub lat_pct_ns: u64,
}

/// The job as it ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobInfo {
    /// `fileio`
    pub kind: String,
    /// sysbench test mode
    pub test_mode: Option<TestMode>,
    /// engine name (`psync`, `io_uring`, `mmap`)
    pub engine: String,
    /// in-flight requests per thread
    pub iodepth: u32,
    /// worker threads
    pub threads: u32,
    /// files in the set
    pub files: u32,
    /// bytes per file
    pub file_size_bytes: u64,
    /// bytes in the set
    pub total_size_bytes: u64,
    /// block size, bytes
    pub block_size_bytes: u64,
    /// sequential request size, bytes
    pub request_size_bytes: u64,
    /// `--time`, seconds (0 = none)
    pub time_limit_s: u64,
    /// `--events` (0 = none)
    pub event_limit: u64,
    /// O_DIRECT
    pub direct: bool,
    /// O_SYNC
    pub sync: bool,
    /// O_DSYNC
    pub dsync: bool,
    /// periodic fsync frequency (0 = none)
    pub fsync_freq: u32,
    /// end-of-test fsync
    pub fsync_end: bool,
    /// fsync after every write
    pub fsync_all: bool,
    /// `fsync` or `fdatasync`
    pub fsync_mode: String,
    /// reads/writes ratio (null for +inf)
    pub rw_ratio: Option<f64>,
    /// `--rand-seed` as given (0 = from the current time)
    pub rand_seed: u64,
    /// the seed actually used (the time-derived one when `rand_seed` is 0)
    pub rand_seed_used: u64,
    /// `--validate`
    pub validate: bool,
    /// content of written blocks
    pub data_pattern: Option<DataPattern>,
    /// directory of the file set
    pub directory: String,
}

/// A stable-ID warning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    /// stable identifier, e.g. `page_cache.fits_in_ram`
    pub id: String,
    /// human text
    pub message: String,
}

/// Result of one run: what every reporter and `compare` read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// schema version ([`SCHEMA_VERSION`])
    pub schema_version: u32,
    /// `iomark`
    pub tool: String,
    /// iomark version
    pub version: String,
    /// command (`fileio`)
    pub command: String,
    /// argv after the command
    pub argv: Vec<String>,
    /// how the run ended
    pub status: Status,
    /// the error that stopped a failed run
    pub error: Option<String>,
    /// the job
    pub job: JobInfo,
    /// seconds from the start to the end of the run (`total time`)
    pub elapsed_s: f64,
    /// seconds the rates are computed over (since the last checkpoint)
    pub period_s: f64,
    /// events (reads + writes + periodic fsync events)
    pub events: u64,
    /// reads
    pub read: OpStats,
    /// writes
    pub write: OpStats,
    /// fsyncs
    pub fsync: FsyncStats,
    /// latency of all events
    pub lat: Latency,
    /// per-thread figures
    pub threads: Vec<ThreadResult>,
    /// interval samples
    pub intervals: Vec<Interval>,
    /// page-cache honesty check
    pub page_cache: Option<PageCacheCheck>,
    /// warnings
    pub warnings: Vec<Warning>,
    /// compact diagnosis of the target (device, transport, link, ceiling, filesystem,
    /// RAM, scheduler, finding IDs), taken just before the run
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnosis: Option<TargetDiagnosis>,
    /// timed phases of phase-shaped commands (`copy`, `tree`); empty for `fileio`
    #[serde(default)]
    pub phases: Vec<Phase>,
    /// per-I/O completion latency of all queued reads and writes (see [`OpStats::clat`])
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clat: Option<Latency>,
    /// time series and latency curves for plots (`--plot`); optional in schema 1
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<Series>,
    /// CPU used by the whole process during the run (`iomark run`; absent elsewhere)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuUsage>,
}

/// Time series and latency percentile curves of a run, what `--plot` draws.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// nominal sampling period of `samples`, seconds (0 when there are none)
    pub period_s: f64,
    /// throughput samples in time order (taken every `period_s` while the run goes on)
    #[serde(default)]
    pub samples: Vec<Sample>,
    /// latency percentile curves, one per operation type that ran
    #[serde(default)]
    pub latency_curves: Vec<LatencyCurve>,
}

/// Completed I/O in one sampling period.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// seconds since the start at the end of the sample
    pub t_s: f64,
    /// sample length, seconds
    pub dur_s: f64,
    /// reads completed in the sample
    pub reads: u64,
    /// writes completed in the sample
    pub writes: u64,
    /// bytes read in the sample
    pub read_bytes: u64,
    /// bytes written in the sample
    pub written_bytes: u64,
}

/// A latency percentile curve: latency (ns) at increasing percentiles.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyCurve {
    /// `read`, `write` or `all`
    pub op: String,
    /// `completion` (per I/O, submission to completion) or `event` (sysbench event)
    pub measure: String,
    /// points in increasing percentile order
    pub points: Vec<CurvePoint>,
}

/// One point of a [`LatencyCurve`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// percentile, 0–100
    pub percentile: f64,
    /// latency at that percentile, ns
    pub ns: u64,
}

/// Percentiles a [`LatencyCurve`] is sampled at (dense towards the tail, as the curve
/// is drawn on a "nines" axis).
pub const CURVE_PERCENTILES: [f64; 16] = [
    1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999,
    100.0,
];

/// The latency curve of a histogram (empty when it holds no values).
pub fn curve(h: &hdrhistogram::Histogram<u64>) -> Vec<CurvePoint> {
    if h.is_empty() {
        return vec![];
    }
    CURVE_PERCENTILES
        .iter()
        .map(|&p| CurvePoint {
            percentile: p,
            ns: percentile_ns(h, p),
        })
        .collect()
}

/// CPU used during a run: `getrusage(RUSAGE_SELF)` after minus before.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuUsage {
    /// user CPU time, seconds
    pub usr_s: f64,
    /// system CPU time, seconds
    pub sys_s: f64,
    /// voluntary context switches
    pub ctx_voluntary: u64,
    /// involuntary context switches
    pub ctx_involuntary: u64,
}

/// The diagnosis attached to a result (see `iomark diagnose` for the full form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetDiagnosis {
    /// device model, transport, limiting link, realistic ceiling, filesystem, RAM, scheduler
    pub summary: crate::probe::diagnosis::Summary,
    /// raw usable bandwidth of the path, MB/s (1 MB = 1000000 bytes), when known
    pub ceiling_raw_mb_s: Option<f64>,
    /// IDs of the findings (diagnose.md §6), most severe first
    pub findings: Vec<String>,
}

impl TargetDiagnosis {
    /// Diagnose `path` on this machine (`/` root) for a workload touching
    /// `working_set` bytes, with or without O_DIRECT, and keep the compact form.
    pub fn of(path: &Path, working_set: Option<u64>, direct_io: bool) -> TargetDiagnosis {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let d = crate::probe::diagnosis::diagnose(
            &crate::probe::Root::default(),
            &crate::probe::diagnosis::Inputs {
                path: path.display().to_string(),
                working_set_bytes: working_set,
                direct_io,
                ..Default::default()
            },
        );
        TargetDiagnosis {
            summary: d.summary.clone(),
            ceiling_raw_mb_s: d.ceiling.as_ref().map(|c| c.raw_mb_s),
            findings: d.findings.iter().map(|f| f.id.clone()).collect(),
        }
    }
}

/// One timed phase of a phase-shaped command (a copy method, a tree pass).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// stable phase name, e.g. `buffered_128k`, `create_write`, `stat_all`
    pub name: String,
    /// operations done (files, requests)
    pub ops: u64,
    /// bytes moved
    pub bytes: u64,
    /// wall-clock seconds of the phase
    pub seconds: f64,
    /// operations per second
    pub ops_per_s: f64,
    /// MB/s (1 MB = 1000000 bytes)
    pub mb_per_s: f64,
    /// MiB/s (1 MiB = 1048576 bytes)
    pub mib_per_s: f64,
    /// per-operation latency, when measured
    pub lat: Option<Latency>,
    /// how the page cache was handled before the phase (e.g. "dropped with posix_fadvise")
    pub cache: Option<String>,
    /// free-form notes (e.g. "includes the final fsync")
    pub notes: Vec<String>,
    /// `run` random jobs: distinct blocks touched and issued block sizes of the job
    /// (the same value on each of its phases; public case C13)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<crate::run::gen::coverage::CoverageStats>,
}

impl Phase {
    /// A phase of `ops` operations moving `bytes` in `seconds`, with derived rates.
    pub fn new(name: &str, ops: u64, bytes: u64, seconds: f64) -> Phase {
        let t = if seconds > 0.0 {
            seconds
        } else {
            f64::MIN_POSITIVE
        };
        Phase {
            name: name.into(),
            ops,
            bytes,
            seconds,
            ops_per_s: ops as f64 / t,
            mb_per_s: bytes as f64 / t / 1e6,
            mib_per_s: bytes as f64 / t / 1_048_576.0,
            ..Default::default()
        }
    }
}

fn pct_key(p: f64) -> String {
    let s = format!("{p}");
    s.trim_end_matches(".0").to_string()
}

/// Latency statistics from a summary and its histogram.
pub fn latency(l: LatencySummary, h: &hdrhistogram::Histogram<u64>, extra: u32) -> Latency {
    let mut percentiles_ns = BTreeMap::new();
    if l.count > 0 {
        for p in STANDARD_PERCENTILES
            .iter()
            .copied()
            .chain((extra > 0).then_some(f64::from(extra)))
        {
            percentiles_ns.insert(pct_key(p), percentile_ns(h, p));
        }
    }
    Latency {
        count: l.count,
        min_ns: l.min_ns,
        max_ns: l.max_ns,
        mean_ns: l.mean_ns,
        stdev_ns: l.stdev_ns,
        sum_ns: l.sum_ns,
        percentiles_ns,
    }
}

fn op_latency(s: &Snapshot, kind: EventKind, extra: u32) -> Latency {
    let k = s.merged(Some(kind));
    latency(k.summary(), &k.hist, extra)
}

fn op(ops: u64, bytes: u64, t: f64, lat: Latency) -> OpStats {
    OpStats {
        ops,
        bytes,
        iops: ops as f64 / t,
        bw_bytes_per_s: bytes as f64 / t,
        bw_mib_per_s: bytes as f64 / t / 1_048_576.0,
        bw_mb_per_s: bytes as f64 / t / 1_000_000.0,
        lat,
        clat: None,
    }
}

fn clat_of(s: &Snapshot, kind: Option<EventKind>, extra: u32) -> Option<Latency> {
    s.merged_clat(kind)
        .filter(|k| k.count > 0)
        .map(|k| latency(k.summary(), &k.hist, extra))
}

/// Latency curves of a snapshot: per-I/O completion latency for queued engines, the
/// event latency (which is the per-I/O latency) for synchronous ones.
fn curves(s: &Snapshot) -> Vec<LatencyCurve> {
    let mut v = vec![];
    for (name, kind) in [("read", EventKind::Read), ("write", EventKind::Write)] {
        let (measure, k) = match s.merged_clat(Some(kind)) {
            Some(k) => ("completion", k),
            None => ("event", s.merged(Some(kind))),
        };
        let points = curve(&k.hist);
        if !points.is_empty() {
            v.push(LatencyCurve {
                op: name.into(),
                measure: measure.into(),
                points,
            });
        }
    }
    v
}

/// Describe a job.
pub fn job_info(job: &FileioJob, g: Option<&Geometry>, engine: &str, seed_used: u32) -> JobInfo {
    JobInfo {
        kind: "fileio".into(),
        test_mode: job.test_mode,
        engine: engine.into(),
        iodepth: if job.io_mode == crate::job::sysbench::IoMode::Async {
            job.async_backlog
        } else {
            1
        },
        threads: job.threads,
        files: job.file_num,
        file_size_bytes: g.map_or(0, |g| g.file_size),
        total_size_bytes: g.map_or(0, |g| g.total),
        block_size_bytes: job.block_size,
        request_size_bytes: g.map_or(job.block_size, |g| g.request),
        time_limit_s: job.time_limit,
        event_limit: job.event_limit,
        direct: job.extra_flags.direct,
        sync: job.extra_flags.sync,
        dsync: job.extra_flags.dsync,
        fsync_freq: job.fsync_freq,
        fsync_end: job.fsync_end,
        fsync_all: job.fsync_all,
        fsync_mode: format!("{:?}", job.fsync_mode).to_lowercase(),
        rw_ratio: job.rw_ratio.is_finite().then_some(job.rw_ratio),
        rand_seed: job.rand_seed,
        rand_seed_used: u64::from(seed_used),
        validate: job.validate,
        data_pattern: Some(job.data),
        directory: std::fs::canonicalize(&job.dir)
            .unwrap_or_else(|_| job.dir.clone())
            .display()
            .to_string(),
    }
}

/// Build the result of a fileio run from its final snapshot.
pub fn from_snapshot(
    job: &FileioJob,
    info: JobInfo,
    s: &Snapshot,
    status: Status,
    error: Option<String>,
    intervals: Vec<Interval>,
) -> RunResult {
    let t = if s.period_s > 0.0 {
        s.period_s
    } else {
        f64::MIN_POSITIVE
    };
    let p = job.percentile;
    let all = s.merged_hist();
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool: "iomark".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: "fileio".into(),
        argv: job.argv.clone(),
        status,
        error,
        job: info,
        elapsed_s: s.total_time_s,
        period_s: s.period_s,
        events: s.sum(|x| x.events),
        read: OpStats {
            clat: clat_of(s, Some(EventKind::Read), p),
            ..op(
                s.sum(|x| x.reads),
                s.sum(|x| x.bytes_read),
                t,
                op_latency(s, EventKind::Read, p),
            )
        },
        write: OpStats {
            clat: clat_of(s, Some(EventKind::Write), p),
            ..op(
                s.sum(|x| x.writes),
                s.sum(|x| x.bytes_written),
                t,
                op_latency(s, EventKind::Write, p),
            )
        },
        fsync: FsyncStats {
            ops: s.sum(|x| x.fsyncs),
            ops_per_s: s.sum(|x| x.fsyncs) as f64 / t,
            lat: op_latency(s, EventKind::Fsync, p),
        },
        lat: latency(s.latency(), &all, p),
        threads: s
            .threads
            .iter()
            .map(|x| ThreadResult {
                events: x.events,
                exec_time_s: x.lat_sum_ns as f64 / 1e9,
            })
            .collect(),
        intervals,
        page_cache: None,
        warnings: vec![],
        diagnosis: None,
        phases: vec![],
        clat: clat_of(s, None, p),
        series: Some(Series {
            period_s: 0.0,
            samples: vec![],
            latency_curves: curves(s),
        }),
        cpu: None,
    }
}

/// The `--json` placeholder: a valid document saying the run has not finished
/// (`compare` refuses it by name). Written before the run (`Output::prefill`), so a bad
/// path fails fast and a killed run leaves valid JSON that says so — never a stale
/// result that looks like this run's.
pub fn placeholder_bytes() -> Vec<u8> {
    json_bytes(&serde_json::json!({
        "schema_version": SCHEMA_VERSION,
        "tool": "iomark",
        "status": "running"
    }))
}

/// The bytes of a `--json` file: `value` as pretty JSON and a newline (written with
/// `files::output::Output::commit`).
pub fn json_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(value).unwrap_or_else(|e| {
        // every RunResult field serialises (no maps with non-string keys): unreachable
        let failed = serde_json::json!({"tool": "iomark", "status": "failed", "error": e.to_string()});
        serde_json::to_vec(&failed).unwrap_or_default()
    });
    v.push(b'\n');
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::ThreadStats;

    #[test]
    fn units_and_formulas() {
        let mut t = ThreadStats::new(false);
        for _ in 0..4 {
            t.event(EventKind::Read, 1_000_000);
            t.read_done(1 << 20);
        }
        t.fsync_done();
        let s = Snapshot {
            period_s: 2.0,
            total_time_s: 2.5,
            threads: vec![t],
        };
        let job = crate::cli::fileio::parse(&["--file-test-mode=rndrd".to_string(), "run".into()]);
        let crate::cli::fileio::Outcome::Job(job) = job.outcome else {
            panic!()
        };
        let r = from_snapshot(
            &job,
            job_info(&job, None, "psync", 1),
            &s,
            Status::Ok,
            None,
            vec![],
        );
        assert_eq!(r.read.ops, 4);
        assert_eq!(r.read.iops, 2.0);
        assert_eq!(r.read.bw_bytes_per_s, 2.0 * 1048576.0);
        assert_eq!(r.read.bw_mib_per_s, 2.0);
        assert_eq!(r.read.bw_mb_per_s, 2.097152);
        assert_eq!(r.fsync.ops_per_s, 0.5);
        assert_eq!(r.elapsed_s, 2.5);
        assert_eq!(r.lat.count, 4);
        assert_eq!(r.lat.min_ns, 1_000_000);
        assert!(r.lat.percentiles_ns.contains_key("99.9"));
        assert!(r.lat.percentiles_ns.contains_key("95"));
        let text = serde_json::to_string(&r).unwrap();
        let back: RunResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn phase_rates_use_decimal_and_binary_units() {
        let p = Phase::new("x", 10, 2_000_000, 2.0);
        assert_eq!((p.ops_per_s, p.mb_per_s), (5.0, 1.0));
        assert!((p.mib_per_s - 0.953674).abs() < 1e-6);
    }

    /// The bytes of `--json` files (the atomic replace is files/output.rs's, tested
    /// there): valid JSON ending in a newline.
    #[test]
    fn json_bytes_and_the_placeholder() {
        let v: serde_json::Value = serde_json::from_slice(&placeholder_bytes()).unwrap();
        assert_eq!(v["status"], "running");
        assert_eq!(v["tool"], "iomark");
        assert_eq!(v["schema_version"], SCHEMA_VERSION);
        let b = json_bytes(&serde_json::json!({"a": 1}));
        assert_eq!(b.last(), Some(&b'\n'));
        let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
        assert_eq!(v["a"], 1);
    }
}
