//! The jobs of an imported fio report as the result's `jobs` entries, one per job fio
//! reported (a `group_reporting` group is one), so compare reads each job's own fsync
//! calls, latencies and files as it does an iomark run's: the job's name, `rw`, depth,
//! threads, engine, `direct` and fsync policy where the report says them, each
//! direction's requests, bytes, rates, `lat` and `clat`, and its `sync` calls.

use super::{latency_of, FioDir};
use crate::result::job::{DirResult, EffectiveJob, JobResult};

/// One entry per job of `dirs` (a job starts at a direction with its `job_sync`).
pub(super) fn job_results(dirs: &[FioDir]) -> Vec<JobResult> {
    let mut out: Vec<JobResult> = vec![];
    for d in dirs {
        if d.job_sync.is_some() || out.is_empty() {
            out.push(job_of(d));
        }
        let j = out.last_mut().expect("pushed above");
        let dir = direction(d);
        match d.dir.as_str() {
            "read" => j.read = dir,
            "write" => j.write = dir,
            _ => j.trim = dir,
        }
        let ns = (d.runtime_ms * 1e6).round() as u64;
        j.runtime_ns = j.runtime_ns.max(ns);
    }
    out
}

/// The job that `d`, its first direction, belongs to, without its directions.
fn job_of(d: &FioDir) -> JobResult {
    let o = &d.opts;
    let sync = d.job_sync.clone().unwrap_or_default();
    let threads = u32::try_from(o.jobs.max(1)).unwrap_or(u32::MAX);
    JobResult {
        job: EffectiveJob {
            name: d.job.clone(),
            rw: o.rw.clone(),
            iodepth: u32::try_from(o.iodepth.max(1)).unwrap_or(u32::MAX),
            engine: o.engine.clone(),
            numjobs: threads,
            direct: o.direct.unwrap_or(false),
            files: 1,
            ..EffectiveJob::default()
        },
        engine: o.engine.clone(),
        threads,
        runtime_ms_sum: sync.runtime_ms,
        sync: DirResult {
            ios: sync.ios,
            lat: latency_of(sync.lat, &sync.lat_pct),
            ..DirResult::default()
        },
        ..JobResult::default()
    }
}

/// One direction: its requests, bytes, rates over its run time, `lat` and `clat`.
fn direction(d: &FioDir) -> DirResult {
    let s = d.runtime_ms / 1e3;
    let rate = |v: u64| if s > 0.0 { v as f64 / s } else { 0.0 };
    DirResult {
        ios: d.ios,
        bytes: d.bytes,
        iops: rate(d.ios),
        bw_bytes_per_s: rate(d.bytes),
        lat: latency_of(d.lat, &d.lat_pct),
        clat: latency_of(d.clat, &d.clat_pct),
        ..DirResult::default()
    }
}
