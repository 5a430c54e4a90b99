//! iomark's own [`RunResult`] (schema 1) for `iomark run`, so `compare` reads fio-style
//! runs like any other. Shape: one [`Phase`] per reported job and direction, named
//! `JOB read` / `JOB write` (rates over that job's measured run time, latency = fio's
//! `lat`, submit → completion); the top-level `read`/`write`/`fsync` sum every job over
//! `period_s`, the sum of the stonewall groups' longest job run times; `cpu` is the
//! process's `getrusage(RUSAGE_SELF)` difference over the run.

use crate::job::fio::FioCommand;
use crate::result::{
    CpuUsage, FsyncStats, JobInfo, Latency, LatencyCurve, OpStats, Phase, RunResult, Series,
    Status, ThreadResult, Warning,
};
use crate::run::fio::{DirStats, JobStats, Lat, RunOutcome};
use crate::run::fio::cpu::CpuTimes;

fn latency(l: &Lat) -> Latency {
    crate::result::latency(l.summary(), &l.hist, 0)
}

fn op(d: &DirStats, secs: f64) -> OpStats {
    let t = if secs > 0.0 { secs } else { f64::MIN_POSITIVE };
    OpStats {
        ops: d.ios,
        bytes: d.bytes,
        iops: d.ios as f64 / t,
        bw_bytes_per_s: d.bytes as f64 / t,
        bw_mib_per_s: d.bytes as f64 / t / 1_048_576.0,
        bw_mb_per_s: d.bytes as f64 / t / 1e6,
        lat: latency(&d.lat),
        clat: None,
    }
}

fn phase(j: &JobStats, dir: &str, d: &DirStats, cmd: &FioCommand) -> Phase {
    let secs = j.runtime_ns as f64 / 1e9;
    let mut p = Phase::new(&format!("{} {dir}", j.name), d.ios, d.bytes, secs);
    p.lat = Some(latency(&d.lat));
    if let Some(spec) = cmd.jobs.iter().find(|x| x.name == j.name) {
        let bs = if dir == "read" {
            &spec.bs_read
        } else {
            &spec.bs_write
        };
        p.notes = vec![format!(
            "engine={} bs={} iodepth={} threads={} direct={} rw={}",
            j.engine,
            bs.min(),
            spec.iodepth,
            j.threads,
            spec.direct,
            spec.rw.fio_name()
        )];
        if j.engine == "io_uring" && !spec.sqthread_poll && !spec.hipri {
            // the completion wait differs from fio's unless 0 (engine/io_uring.rs)
            p.notes.push(format!("reap_spin_ns={}", spec.reap_spin_ns));
        }
    }
    p.notes.push("latency=lat (submit to completion)".into());
    p.coverage = j.coverage.clone();
    p
}

/// Seconds the top-level rates are computed over: per stonewall group the longest
/// job's measured run time, summed over groups.
pub fn period_s(jobs: &[JobStats]) -> f64 {
    let mut groups: Vec<(u32, u64)> = Vec::new();
    for j in jobs {
        match groups.iter_mut().find(|g| g.0 == j.groupid) {
            Some(g) => g.1 = g.1.max(j.runtime_ns),
            None => groups.push((j.groupid, j.runtime_ns)),
        }
    }
    groups.iter().map(|g| g.1 as f64 / 1e9).sum()
}

/// Build the RunResult of `iomark run`. `out` is `None` for a run that failed before
/// producing numbers; `cpu` is the RUSAGE_SELF difference; `elapsed_s` the wall time.
pub fn run_result(
    cmd: &FioCommand,
    argv: &[String],
    out: Option<&RunOutcome>,
    status: Status,
    error: Option<String>,
    cpu: &CpuTimes,
    elapsed_s: f64,
) -> RunResult {
    let empty = Vec::new();
    let jobs = out.map_or(&empty, |o| &o.jobs);
    let mut read = DirStats::default();
    let mut write = DirStats::default();
    let mut sync = DirStats::default();
    let mut all = Lat::default();
    for j in jobs {
        read.merge(&j.read);
        write.merge(&j.write);
        sync.merge(&j.sync);
        all.merge(&j.read.lat);
        all.merge(&j.write.lat);
    }
    let period = period_s(jobs);
    let t = if period > 0.0 {
        period
    } else {
        f64::MIN_POSITIVE
    };
    let first = cmd.jobs.first();
    let mut phases = Vec::new();
    for j in jobs {
        for (dir, d) in [("read", &j.read), ("write", &j.write), ("trim", &j.trim)] {
            if d.ios > 0 {
                phases.push(phase(j, dir, d, cmd));
            }
        }
    }
    let files: u32 = cmd.jobs.iter().map(|j| j.nrfiles * j.numjobs).sum();
    RunResult {
        schema_version: crate::result::SCHEMA_VERSION,
        tool: "iomark".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: "run".into(),
        argv: argv.to_vec(),
        status,
        error,
        job: JobInfo {
            // fio's rw of the first job (`randread` …): what charts and compare name it by
            kind: first.map_or_else(|| "run".into(), |j| j.rw.fio_name().to_string()),
            // the engine that ran (io_uring may have fallen back to psync), else the asked one
            engine: jobs.first().map_or_else(
                || first.map_or(String::new(), |j| j.engine.name().into()),
                |j| j.engine.to_string(),
            ),
            iodepth: first.map_or(1, |j| j.iodepth),
            threads: cmd.jobs.iter().map(|j| j.numjobs).sum(),
            files,
            block_size_bytes: first.map_or(0, |j| j.bs_read.min()),
            request_size_bytes: first.map_or(0, |j| j.bs_read.min()),
            time_limit_s: first.and_then(|j| j.runtime).map_or(0, |r| r.as_secs()),
            event_limit: first.map_or(0, |j| j.number_ios),
            direct: first.is_some_and(|j| j.direct),
            fsync_freq: first.map_or(0, |j| u32::try_from(j.fsync).unwrap_or(u32::MAX)),
            fsync_end: first.is_some_and(|j| j.end_fsync),
            fsync_mode: "fsync".into(),
            rand_seed: first.and_then(|j| j.randseed).unwrap_or(0),
            directory: first
                .and_then(|j| j.directory.as_ref())
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
            ..JobInfo::default()
        },
        elapsed_s,
        period_s: period,
        events: read.ios + write.ios + sync.ios,
        read: op(&read, t),
        write: op(&write, t),
        fsync: FsyncStats {
            ops: sync.ios,
            ops_per_s: sync.ios as f64 / t,
            lat: latency(&sync.lat),
        },
        lat: latency(&all),
        threads: jobs
            .iter()
            .map(|j| ThreadResult {
                events: j.read.ios + j.write.ios,
                exec_time_s: (j.read.lat.sum_ns + j.write.lat.sum_ns) as f64 / 1e9,
            })
            .collect(),
        intervals: out.map_or_else(Vec::new, |o| o.intervals.clone()),
        page_cache: None,
        warnings: jobs
            .iter()
            .filter_map(|j| {
                let asked = cmd.jobs.iter().find(|x| x.name == j.name)?.engine.name();
                (asked != j.engine).then(|| Warning {
                    id: "engine.fallback".into(),
                    message: format!(
                        "job {}: ioengine={asked} was asked, {} ran (io_uring not permitted here)",
                        j.name, j.engine
                    ),
                })
            })
            .take(1)
            .collect(),
        diagnosis: None,
        phases,
        clat: None,
        series: out.filter(|o| !o.samples.is_empty()).map(|o| Series {
            period_s: crate::run::fio::PLOT_PERIOD.as_secs_f64(),
            samples: o.samples.clone(),
            latency_curves: [("read", &read.lat), ("write", &write.lat)]
                .into_iter()
                .map(|(op, l)| LatencyCurve {
                    op: op.into(),
                    measure: "completion".into(),
                    points: crate::result::curve(&l.hist),
                })
                .filter(|c| !c.points.is_empty())
                .collect(),
        }),
        cpu: Some(CpuUsage {
            usr_s: cpu.usr_ns as f64 / 1e9,
            sys_s: cpu.sys_ns as f64 / 1e9,
            ctx_voluntary: cpu.vol_ctx,
            ctx_involuntary: cpu.invol_ctx,
        }),
    }
}
