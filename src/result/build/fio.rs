//! The parts of an `iomark run` result from its job records. Schema-1 keys: one
//! [`Phase`] per reported job and direction, named `JOB read` / `JOB write` (rates over
//! that job's measured run time, latency = fio's `lat`, submit → completion); the
//! top-level `read`/`write`/`fsync` sum every job over `period_s`, the sum of the
//! stonewall groups' longest job run times; one `threads` entry per reported job.
//! Schema 2: every record as a [`JobResult`] with its histograms.

use super::{acc_latency, curve, op, per_s, positive, Parts};
use crate::result::job::{DirResult, JobRecord, JobResult, PrioLatency};
use crate::result::*;
use crate::stats::job::DirStats;
use crate::stats::rates::SampleStat;
use crate::stats::LatAcc;

/// Seconds the top-level rates are computed over: per stonewall group the longest
/// job's measured run time, summed over groups.
pub fn period_s(jobs: &[JobRecord]) -> f64 {
    let mut groups: Vec<(u32, u64)> = Vec::new();
    for j in jobs {
        match groups.iter_mut().find(|g| g.0 == j.groupid) {
            Some(g) => g.1 = g.1.max(j.stats.runtime_ns),
            None => groups.push((j.groupid, j.stats.runtime_ns)),
        }
    }
    groups.iter().map(|g| g.1 as f64 / 1e9).sum()
}

fn phase(j: &JobRecord, dir: &str, d: &DirStats) -> Phase {
    let secs = j.stats.runtime_ns as f64 / 1e9;
    let mut p = Phase::new(&format!("{} {dir}", j.job.name), d.ios, d.bytes, secs);
    p.lat = Some(acc_latency(d.lat.clone()));
    let spec = &j.job;
    let bs = match dir {
        "read" => &spec.bs_read,
        "trim" => spec.trim_bs(),
        _ => &spec.bs_write,
    };
    p.notes = vec![format!(
        "engine={} bs={} iodepth={} threads={} direct={} rw={}",
        j.engine, bs.min_bytes, spec.iodepth, j.stats.threads, spec.direct, spec.rw
    )];
    if let (true, Some(spin)) = (j.engine == "io_uring", spec.reap_spin_ns) {
        // the completion wait differs from fio's unless 0 (engine/io_uring.rs)
        p.notes.push(format!("reap_spin_ns={spin}"));
    }
    p.notes.push("latency=lat (submit to completion)".into());
    p.coverage = j.coverage.clone();
    p
}

fn engine_fallback(jobs: &[JobRecord]) -> Vec<Warning> {
    jobs.iter()
        .filter_map(|j| {
            let asked = j.job.engine.as_str();
            // (libaio/posixaio are io_uring by design: `asked` is already io_uring)
            (asked != j.engine).then(|| Warning {
                id: "engine.fallback".into(),
                message: format!(
                    "job {}: ioengine={asked} was asked, {} ran (io_uring not permitted here)",
                    j.job.name, j.engine
                ),
            })
        })
        .take(1)
        .collect()
}

fn dir_result(d: DirStats, rt_s: f64, bw: SampleStat, iops: SampleStat) -> DirResult {
    DirResult {
        ios: d.ios,
        bytes: d.bytes,
        short: d.short,
        unfilled: d.unfilled,
        failed: d.failed,
        iops: per_s(d.ios, rt_s),
        bw_bytes_per_s: per_s(d.bytes, rt_s),
        slat: acc_latency(d.slat),
        clat: acc_latency(d.clat),
        lat: acc_latency(d.lat),
        bw_samples: bw,
        iops_samples: iops,
    }
}

/// A record as a job result (its histograms move into the result).
fn job_result(j: JobRecord) -> JobResult {
    let s = j.stats;
    let rt = s.runtime_ns as f64 / 1e9;
    let read_rt =
        crate::result::job::dir_runtime_ns(&j.job.rw, s.runtime_ns, s.verify_ns, 0) as f64 / 1e9;
    let r = s.rates;
    let prios = s
        .prio_lat
        .into_iter()
        .map(|(d, ioprio, l)| PrioLatency {
            dir: if d == 0 { "read" } else { "write" }.into(),
            ioprio,
            lat: acc_latency(l),
        })
        .collect();
    JobResult {
        job: j.job,
        groupid: j.groupid,
        engine: j.engine,
        threads: s.threads,
        runtime_ns: s.runtime_ns,
        runtime_ms_sum: s.runtime_ms_sum,
        verify_ns: s.verify_ns,
        elapsed_ms: j.elapsed_ms,
        eta_s: j.eta_s,
        run_ns_sum: s.run_ns_sum,
        read: dir_result(s.read, read_rt, r.bw[0], r.iops[0]),
        write: dir_result(s.write, rt, r.bw[1], r.iops[1]),
        trim: dir_result(s.trim, rt, r.bw[2], r.iops[2]),
        sync: dir_result(s.sync, rt, SampleStat::default(), SampleStat::default()),
        verified: s.verified,
        final_sync_ns: s.end_sync_ns / u64::from(s.threads.max(1)),
        pid: s.pid,
        cpu: s.cpu,
        depth: s.depth,
        errors: s.errors,
        first_error: s.first_error,
        first_errno: s.first_errno,
        errno: s.error,
        failure: s.failure,
        failure_said: s.failure_said,
        account: s.account,
        failed_threads: s.failed_threads,
        thread_failures: s.thread_failures,
        zone_resets: s.zone_resets,
        prios,
        steady: j.steady,
        lat_target: j.lat_target,
        coverage: j.coverage,
    }
}

/// A job on an engine of pseudo I/O (fio's FIO_NOIO: cpuio, exec): its requests moved
/// no bytes, as fio counts them (the engine is handed requests of no length), so every
/// direction keeps its requests, latencies and IOPS samples but has no bytes and no
/// bandwidth samples. The runner counted each request's block size, which keeps a
/// size-based job ending where it would.
fn moved_nothing(s: &mut crate::stats::job::JobStats) {
    for d in [&mut s.read, &mut s.write, &mut s.trim] {
        d.bytes = 0;
    }
    s.rates.bw = Default::default();
}

/// The ns inside one direction's requests (submission to completion; the synchronous
/// completions before `settle` folds them in).
fn dir_ns(d: &DirStats) -> u64 {
    u64::try_from(d.lat.sum_ns + d.sync.sum_ns).unwrap_or(u64::MAX)
}

/// Where each job's time went, the run's total first: inside reads, writes and trims
/// (the write share), syncs, the timed waits (rate, thinktime, flow, and the time held
/// at a `stonewall` or `wait_for` before the threads started), over the wall time of
/// the job's threads (setup, I/O and end_fsync, `run_ns_sum`, plus the time held).
/// Jobs without a file to time (no wall time) are left out.
fn time_shares(jobs: &[JobRecord]) -> Vec<TimeShare> {
    let per: Vec<TimeShare> = jobs
        .iter()
        .filter(|j| j.stats.run_ns_sum > 0)
        .map(|j| {
            let s = &j.stats;
            TimeShare::new(
                &j.job.name,
                s.run_ns_sum.saturating_add(s.held_ns),
                dir_ns(&s.read),
                dir_ns(&s.write) + dir_ns(&s.trim),
                dir_ns(&s.sync).saturating_add(s.end_sync_ns),
            )
            .with_wait(s.wait_ns.saturating_add(s.held_ns))
            // fio's run time of the job's threads (whole ms each, summed; one thread's
            // own ns when that is more: a 14.7 ms run is not counted over 14 ms)
            .with_io(s.runtime_ms_sum.saturating_mul(1_000_000).max(s.runtime_ns))
        })
        .collect();
    if per.is_empty() {
        return vec![];
    }
    let mut v = vec![TimeShare::total("all", &per)];
    v.extend(per);
    v
}

/// The parts of a `run` result; `samples` are the `--plot` samples.
pub(super) fn parts(mut jobs: Vec<JobRecord>, samples: &[Sample], sample_period_s: f64) -> Parts {
    for j in &mut jobs {
        if crate::util::engines::Kind::named(&j.engine).is_some_and(|k| k.pseudo_io()) {
            moved_nothing(&mut j.stats);
        }
    }
    let (mut read, mut write, mut sync) = Default::default();
    let mut all = LatAcc::default();
    for j in &jobs {
        DirStats::merge(&mut read, &j.stats.read);
        DirStats::merge(&mut write, &j.stats.write);
        DirStats::merge(&mut sync, &j.stats.sync);
        all.merge(&j.stats.read.lat);
        all.merge(&j.stats.write.lat);
    }
    let (read, write, sync): (DirStats, DirStats, DirStats) = (read, write, sync);
    let period = period_s(&jobs);
    let t = positive(period);
    let mut phases = Vec::new();
    for j in &jobs {
        for (dir, d) in [
            ("read", &j.stats.read),
            ("write", &j.stats.write),
            ("trim", &j.stats.trim),
        ] {
            if d.ios > 0 {
                phases.push(phase(j, dir, d));
            }
        }
    }
    let threads = jobs
        .iter()
        .map(|j| ThreadResult {
            events: j.stats.read.ios + j.stats.write.ios,
            exec_time_s: (j.stats.read.lat.sum_ns + j.stats.write.lat.sum_ns) as f64 / 1e9,
            ..ThreadResult::default()
        })
        .collect();
    let series = (!samples.is_empty()).then(|| Series {
        period_s: sample_period_s,
        samples: samples.to_vec(),
        latency_curves: [("read", &read.lat), ("write", &write.lat)]
            .into_iter()
            .map(|(op, l)| LatencyCurve {
                op: op.into(),
                measure: "completion".into(),
                points: curve(&l.hist()),
            })
            .filter(|c| !c.points.is_empty())
            .collect(),
        ..Series::default()
    });
    Parts {
        period_s: Some(period),
        events: Some(read.ios + write.ios + sync.ios),
        read: op(read.ios, read.bytes, t, acc_latency(read.lat)),
        write: op(write.ios, write.bytes, t, acc_latency(write.lat)),
        fsync: FsyncStats {
            ops: sync.ios,
            ops_per_s: sync.ios as f64 / t,
            lat: acc_latency(sync.lat),
        },
        lat: acc_latency(all),
        threads,
        series,
        phases,
        warnings: engine_fallback(&jobs),
        time: time_shares(&jobs),
        jobs: jobs.into_iter().map(job_result).collect(),
        ..Parts::default()
    }
}
