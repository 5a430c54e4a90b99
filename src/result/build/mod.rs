//! The one builder of a [`RunResult`]: every command hands its inputs — the summary
//! of the job, what the recorder measured ([`Recorded`]), status and error, phases,
//! samples, warnings, the targets' diagnoses, page-cache and device facts — to
//! [`build()`], the only place a `RunResult` is put together. What the recorder measured
//! has one shape for every command (`Recorded`: the recorder's per-job records, separate
//! fileio runs, the totals a command computed itself; job results built before only
//! for an imported fio report), and the totals of the schema-1 keys are derived here
//! from the records on one path: counted under sysbench's rules when the job's threads
//! come apart (`fileio`, and each of `mark`'s tests: build/fileio.rs), under fio's
//! otherwise (build/fio.rs), a command's own totals in their place.

mod fileio;
mod fio;

pub use fileio::Threads;

use super::job::{EffectiveJob, JobRecord, JobResult};
use super::*;
use crate::probe::diagnosis::Diagnosis;
use crate::stats::cpu::CpuTimes;
use crate::stats::job::JobStats;
use crate::stats::{percentile_ns, LatencySummary};
use hdrhistogram::Histogram;

/// Top-level read/write figures a command computed itself (`tree`'s data phases,
/// `copy`, `mark`'s medians, an imported fio report), with the seconds its rates are
/// over (`None`: elapsed).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Totals {
    /// reads
    pub read: OpStats,
    /// writes
    pub write: OpStats,
    /// seconds the rates are computed over (`None`: elapsed)
    pub period_s: Option<f64>,
    /// fsync/fdatasync calls the command counted itself (an imported fio report's
    /// `sync` sections), in place of the records' (`None`: the records')
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<FsyncStats>,
}

/// What the recorder measured, in the one shape every command hands the builder: the
/// recorder's records (stats/job.rs `JobStats`, one per reported job), separate fileio
/// runs (`mark`), and the totals a command computed itself; job results built before
/// only where no recorder ran (an imported fio report). One per result,
/// moved into the builder. Serializable: the ranks of a many-hosts run send theirs to
/// rank 0, which merges them (result/ranks.rs). The default is nothing measured: zero
/// totals over the elapsed time (`diagnose`, a run that stopped before any job).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Recorded {
    /// the recorder's records, one per reported job (`run`: every job; `fileio`: its
    /// one job, the threads merged)
    pub jobs: Vec<JobRecord>,
    /// the threads of the job apart, which makes the records counted under sysbench's
    /// rules (`fileio`: build/fileio.rs); `None`: under fio's (build/fio.rs)
    pub threads: Option<Threads>,
    /// separate fileio runs, each counted under sysbench's rules on its own (`mark`: each
    /// test's median loop, its record named after the test): build/fileio.rs `runs`
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Recorded>,
    /// job results built before, kept as they are (an imported fio report: no recorder
    /// ran, result/import.rs)
    pub built: Vec<JobResult>,
    /// the top-level figures the command computed, in place of the records' sums
    pub totals: Option<Totals>,
    /// where each of the command's parts spent its time, as the command timed it
    /// (`copy`, `tree`: each phase), when no record
    /// gives it; the result's `time` is their total, then each
    #[serde(default)]
    pub time: Vec<TimeShare>,
}

impl Recorded {
    /// `run`'s records, one per reported job, under fio's counting. No job recorded:
    /// rates over no time (fio's period is its jobs' run times).
    pub fn fio(jobs: Vec<JobRecord>) -> Recorded {
        let totals = jobs.is_empty().then(|| Totals {
            period_s: Some(0.0),
            ..Totals::default()
        });
        Recorded {
            jobs,
            totals,
            ..Recorded::default()
        }
    }

    /// A fileio run: its one job, whose record is its threads merged by the one merge
    /// of the recorder, under sysbench's counting with `--percentile` (0: off).
    pub fn fileio(job: EffectiveJob, mut threads: Threads, percentile: u32) -> Recorded {
        let mut stats = JobStats::default();
        for t in &threads.threads {
            stats.merge(t);
        }
        threads.percentile = percentile;
        let record = JobRecord {
            engine: job.engine.clone(),
            job,
            stats,
            ..JobRecord::default()
        };
        Recorded {
            jobs: vec![record],
            threads: Some(threads),
            ..Recorded::default()
        }
    }

    /// Totals the command computed (no record): `read`, `write` over `period_s`.
    pub fn totals(read: OpStats, write: OpStats, period_s: Option<f64>) -> Recorded {
        Recorded {
            totals: Some(Totals {
                read,
                write,
                period_s,
                fsync: None,
            }),
            ..Recorded::default()
        }
    }

    /// Separate fileio runs (each a [`Recorded::fileio`]), each reported as a job of
    /// its own: `mark`'s tests, each its median loop.
    pub fn runs(runs: Vec<Recorded>) -> Recorded {
        Recorded {
            runs,
            ..Recorded::default()
        }
    }

    /// `b` run after this fileio run, as one run: the records and each thread added up
    /// by the recorder's merge, the periods one after the other (`mark`'s median of an
    /// even count, its two middle loops).
    pub fn then(&mut self, b: &Recorded) {
        for (a, b) in self.jobs.iter_mut().zip(&b.jobs) {
            a.merge(b);
        }
        if let (Some(a), Some(b)) = (self.threads.as_mut(), b.threads.as_ref()) {
            a.then(b);
        }
    }

    /// Job results built before, with the totals the command computed from them: only
    /// for a result no recorder measured (an imported fio report, result/import.rs, and
    /// tests); every command of iomark hands the recorder's records instead.
    pub fn built(jobs: Vec<JobResult>, totals: Totals) -> Recorded {
        Recorded {
            built: jobs,
            totals: Some(totals),
            ..Recorded::default()
        }
    }

    /// The parts of a result: the records counted under their rules (none: nothing),
    /// the command's own totals in place of their sums, the jobs built before after
    /// the records' own.
    fn parts(self, samples: &[Sample], sample_period_s: f64) -> Parts {
        let mut parts = match self.threads {
            _ if !self.runs.is_empty() => fileio::runs(self.runs),
            _ if self.jobs.is_empty() => Parts::default(),
            Some(t) => fileio::parts(self.jobs, &t, samples, sample_period_s),
            None => fio::parts(self.jobs, samples, sample_period_s),
        };
        if let Some(t) = self.totals {
            (parts.read, parts.write, parts.period_s) = (t.read, t.write, t.period_s);
            if let Some(f) = t.fsync {
                parts.fsync = f;
            }
        }
        parts.jobs.extend(self.built);
        // a command without records (copy, tree) or of separate runs (mark): its samples
        // alone are the series
        if parts.series.is_none() && !samples.is_empty() {
            parts.series = Some(Series {
                period_s: sample_period_s,
                samples: samples.to_vec(),
                ..Series::default()
            });
        }
        if parts.time.is_empty() && !self.time.is_empty() {
            parts.time = vec![TimeShare::total("all", &self.time)];
            parts.time.extend(self.time);
        }
        parts
    }
}

/// Everything a result is built from. [`Inputs::new`] sets the command and the status
/// and leaves the rest empty.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// who made it and its version when not this iomark (`fio`, for an imported report)
    pub producer: Option<(String, String)>,
    /// the command word (`fileio`, `run`, `mark`, `copy`, `tree`, `diagnose`) and the
    /// arguments that followed it
    pub command: (String, Vec<String>),
    /// wall time of the run, s (fileio: the snapshot's total time is used)
    pub elapsed_s: f64,
    /// ok, interrupted, failed or forced shutdown
    pub status: Status,
    /// for a failed run, what stopped it
    pub error: Option<String>,
    /// the run summarised as one job (schema-1 `job`)
    pub summary: JobInfo,
    /// what the recorder measured
    pub recorded: Recorded,
    /// timed phases (`copy`, `tree`, `mark`; `run` adds one per job × direction)
    pub phases: Vec<Phase>,
    /// `--report-interval` / `--status-interval` samples
    pub intervals: Vec<Interval>,
    /// `--plot` throughput samples and their nominal period, s
    pub samples: Vec<Sample>,
    /// period of `samples`, s
    pub sample_period_s: f64,
    /// where the samples' device, temperature and clock values come from
    pub sample_sources: Option<SeriesSources>,
    /// the findings over time of samples made of separate runs (`mark`: each test's
    /// median loop, found in that loop's own series), taken as given: none is drawn
    /// across the runs' joins, where a change of test is no change of the device
    pub sample_findings: Option<Vec<TimeFinding>>,
    /// warnings found by the command (`run` adds its engine fallback)
    pub warnings: Vec<Warning>,
    /// diagnoses of the targets, kept whole (`targets`); the last one is summarised as
    /// `diagnosis`
    pub targets: Vec<Diagnosis>,
    /// the page-cache check
    pub page_cache: Option<PageCacheCheck>,
    /// CPU of the process over the run (RUSAGE_SELF difference)
    pub cpu: Option<CpuTimes>,
    /// block device counters around the run
    pub devices: Vec<DeviceCounters>,
    /// the device view (probe/devstat.rs `Watch::finish`)
    pub device_view: Option<DeviceView>,
    /// fio's global options as written
    pub global_options: Vec<(String, String)>,
    /// fio's layout lines (`run`)
    pub layout_lines: Vec<String>,
    /// `iomark time`: the command's tree (result/command.rs)
    pub timed_command: Option<super::command::TimedCommand>,
    /// a many-hosts aggregate: its ranks (result/ranks.rs). The facts of one host are
    /// then the ranks' own, taken as given: `warnings` are every rank's (named by
    /// rank), `page_cache` is rank 0's check over its own bytes (not accounted again
    /// over the merged figures), and no series, findings or truth warnings are drawn
    /// from the merged figures
    pub ranks: Option<super::ranks::summary::RanksSummary>,
}

impl Inputs {
    /// Inputs of `command` run with `argv`, ended with `status`, produced by this iomark.
    pub fn new(command: &str, argv: &[String], status: Status) -> Inputs {
        Inputs {
            command: (command.into(), argv.to_vec()),
            status,
            ..Inputs::default()
        }
    }
}

/// The parts derived from the recorder output.
#[derive(Default)]
struct Parts {
    /// elapsed time when the recorder knows it better than the command (fileio)
    elapsed_s: Option<f64>,
    period_s: Option<f64>,
    events: Option<u64>,
    read: OpStats,
    write: OpStats,
    fsync: FsyncStats,
    lat: Latency,
    clat: Option<Latency>,
    threads: Vec<ThreadResult>,
    series: Option<Series>,
    jobs: Vec<JobResult>,
    phases: Vec<Phase>,
    warnings: Vec<Warning>,
    time: Vec<TimeShare>,
}

/// The commands whose results the history keeps: their results name the machine and
/// the target's device (read under the root the target was diagnosed from).
pub const KEPT_COMMANDS: [&str; 5] = ["fileio", "run", "mark", "copy", "tree"];

/// Fill `machine` and `device` of a result this iomark measured, from its last target.
fn identify(r: &mut RunResult) {
    // `iomark time` has no target: the machine it ran on
    if r.tool == "iomark" && r.command == "time" {
        r.machine = Some(crate::probe::identity::machine(
            &crate::probe::Root::default(),
        ));
    }
    if r.tool != "iomark" || !KEPT_COMMANDS.contains(&r.command.as_str()) {
        return;
    }
    if let Some(d) = r.targets.last() {
        let root = crate::probe::Root(std::path::PathBuf::from(&d.root));
        r.machine = Some(crate::probe::identity::machine(&root));
        r.device = Some(crate::probe::identity::device(d));
    }
}

/// Build the result of a run from its inputs.
pub fn build(i: Inputs) -> RunResult {
    let parts = i.recorded.parts(&i.samples, i.sample_period_s);
    let elapsed_s = parts.elapsed_s.unwrap_or(i.elapsed_s);
    // an aggregate of ranks: the warnings and the page-cache check are the ranks' own
    let per_rank = i.ranks.is_some();
    let mut phases = i.phases;
    phases.extend(parts.phases);
    let mut warnings = i.warnings;
    let mut series = None;
    if !per_rank {
        warnings.extend(parts.warnings);
        series = parts.series;
    }
    if let Some(s) = series.as_mut() {
        s.sources = i.sample_sources;
        match i.sample_findings {
            Some(f) => s.findings = f,
            None => super::timeline::add(s, &mut warnings),
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let (tool, version) = i
        .producer
        .unwrap_or_else(|| ("iomark".into(), env!("CARGO_PKG_VERSION").into()));
    let mut r = RunResult {
        schema_version: SCHEMA_VERSION,
        tool,
        version,
        command: i.command.0,
        argv: i.command.1,
        status: i.status,
        error: i.error,
        job: i.summary,
        elapsed_s,
        period_s: parts.period_s.unwrap_or(elapsed_s),
        events: parts
            .events
            .unwrap_or_else(|| phases.iter().map(|p| p.ops).sum()),
        read: parts.read,
        write: parts.write,
        fsync: parts.fsync,
        lat: parts.lat,
        threads: parts.threads,
        intervals: i.intervals,
        page_cache: i.page_cache,
        warnings,
        diagnosis: i.targets.last().map(TargetDiagnosis::of),
        phases,
        clat: parts.clat,
        series,
        cpu: i.cpu.as_ref().map(cpu_usage),
        timestamp_ms: u64::try_from(now.as_millis()).unwrap_or(u64::MAX),
        jobs: parts.jobs,
        global_options: i.global_options,
        layout_lines: i.layout_lines,
        devices: i.devices,
        machine: None,
        device: None,
        targets: i.targets,
        ranks: i.ranks.map(Box::new),
        time: parts.time,
        device_view: i.device_view,
        timed_command: i.timed_command.map(Box::new),
    };
    identify(&mut r);
    if !per_rank {
        add_truth(&mut r);
    }
    r
}

/// The process's CPU time over the run, in seconds, with its context switches.
fn cpu_usage(c: &CpuTimes) -> CpuUsage {
    CpuUsage {
        usr_s: c.usr_ns as f64 / 1e9,
        sys_s: c.sys_ns as f64 / 1e9,
        ctx_voluntary: c.vol_ctx,
        ctx_involuntary: c.invol_ctx,
    }
}

/// The truth layer (result/truth.rs): the same facts and warnings for every command,
/// the page-cache check accounted with the bytes the run moved.
fn add_truth(r: &mut RunResult) {
    let (rd, wr) = (r.read.bytes, r.write.bytes);
    // this process's own reads from storage; not for an aggregate of several processes
    let own = r
        .device_view
        .as_ref()
        .filter(|v| v.ranks.is_none())
        .and_then(|v| v.process)
        .map(|p| p.read_bytes);
    if let Some(pc) = r.page_cache.as_mut().filter(|_| rd + wr > 0) {
        crate::probe::pagecache::account(pc, rd, wr, own);
    }
    super::truth::add(r);
}

/// The latency curve of a histogram (empty when it holds no values).
pub fn curve(h: &Histogram<u64>) -> Vec<CurvePoint> {
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

fn pct_key(p: f64) -> String {
    let s = format!("{p}");
    s.trim_end_matches(".0").to_string()
}

/// Latency statistics from a summary and its histogram: the standard percentiles plus
/// `extra` (0: none), and the histogram itself when it holds samples.
pub fn latency(l: LatencySummary, h: Histogram<u64>, extra: u32) -> Latency {
    let mut percentiles_ns = BTreeMap::new();
    if l.count > 0 {
        for p in STANDARD_PERCENTILES
            .iter()
            .copied()
            .chain((extra > 0).then_some(f64::from(extra)))
        {
            percentiles_ns.insert(pct_key(p), percentile_ns(&h, p));
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
        histogram: (!h.is_empty()).then_some(Hist(h)),
    }
}

/// The latency of an exact accumulator (stats::LatAcc), its histogram kept.
pub fn acc_latency(l: crate::stats::LatAcc) -> Latency {
    let s = l.summary();
    latency(s, l.hist(), 0)
}

/// Counters of one direction with rates over `t` seconds (> 0).
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

/// `v` per second over `secs` (0 when no time passed).
fn per_s(v: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        v as f64 / secs
    } else {
        0.0
    }
}

/// `secs`, or the smallest positive number for a zero period (the schema-1 totals'
/// rule; their counters are 0 then).
fn positive(secs: f64) -> f64 {
    crate::result::positive_secs(secs)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod truth_tests;
