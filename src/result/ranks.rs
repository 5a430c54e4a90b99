//! One result from the ranks of a many-hosts run (src/ranks/, `mpirun … iomark run|fileio`):
//! [`aggregate`] merges each rank's [`RunResult`] into the one the reports render, and
//! keeps every rank's own result, host and timing in [`RanksSummary`] (`RunResult.ranks`).
//!
//! The rules, the same for `run` and `fileio` (the ranks ran the same job on their own
//! files, started together after one barrier):
//! - counters (I/Os, bytes, events, errors, CPU) are summed;
//! - latencies are merged from the ranks' HDR histograms (result/hist.rs: the same
//!   configuration everywhere, so the merge is exact): percentiles and stdev come from
//!   the ONE merged histogram, min/max/sum/count from the exact values; nothing is averaged;
//! - rates are fio's for concurrent jobs of one group: total I/Os or bytes over the span
//!   from the earliest start to the latest end, i.e. per job the largest
//!   `start offset + run time` over the ranks (the start offset is the rank's start after
//!   the barrier minus the earliest one); fio's per-interval bandwidth/IOPS samples add
//!   up as for `group_reporting` (`SampleStat::merge_sum`);
//! - status is the worst rank's; an error or job failure names its rank and host.
//!
//! What stays per rank only (in `ranks.per_rank`): intervals, plot series, device
//! counters, page-cache checks and diagnoses (facts of one host).

use super::job::{DirResult, JobResult};
use super::merge::{merge_dir, merge_latency, rate};
use super::{Latency, OpStats, RunResult, Status, Warning};
use serde::{Deserialize, Serialize};

/// One rank of a many-hosts run: who it was, when it ran, what it measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankRun {
    /// MPI rank, from 0
    pub rank: u32,
    /// the host it ran on (`gethostname`)
    pub hostname: String,
    /// its I/O start (just after the start barrier) minus the earliest rank's, ns
    pub start_offset_ns: u64,
    /// its end (the runner returned) minus the earliest start, ns
    pub end_offset_ns: u64,
    /// `--stonewall` or a failed rank ended it before its own limits
    pub stopped_by_peer: bool,
    /// its own result, as a single-host run would have written it
    pub result: RunResult,
}

/// The ranks of a run and their timing (`RunResult.ranks`, only in a many-hosts result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RanksSummary {
    /// number of ranks (MPI world size)
    pub size: u32,
    /// latest minus earliest start after the start barrier, ns (across hosts this
    /// includes the difference of their clocks)
    pub start_skew_ns: u64,
    /// the first rank's end, ns after the earliest start ("first done")
    pub first_done_ns: u64,
    /// the last rank's end, ns after the earliest start ("last done")
    pub last_done_ns: u64,
    /// `--stonewall`: the first rank to finish stopped the others
    pub stonewall: bool,
    /// `--rotate-ranks=K`: rank r used the files of rank (r+K) mod size
    pub rotate: u32,
    /// every rank, in rank order
    pub per_rank: Vec<RankRun>,
}

fn merge_opt_latency(parts: Vec<Option<&Latency>>) -> Option<Latency> {
    let some: Vec<&Latency> = parts.into_iter().flatten().collect();
    (!some.is_empty()).then(|| merge_latency(&some))
}

fn merge_op(parts: &[&OpStats], secs: f64) -> OpStats {
    let ops = parts.iter().map(|o| o.ops).sum();
    let bytes = parts.iter().map(|o| o.bytes).sum();
    let bw = rate(bytes, secs);
    OpStats {
        ops,
        bytes,
        iops: rate(ops, secs),
        bw_bytes_per_s: bw,
        bw_mib_per_s: bw / 1_048_576.0,
        bw_mb_per_s: bw / 1_000_000.0,
        lat: merge_latency(&parts.iter().map(|o| &o.lat).collect::<Vec<_>>()),
        clat: merge_opt_latency(parts.iter().map(|o| o.clat.as_ref()).collect()),
    }
}

/// `rank N (host): text`: how the aggregate names what one rank said.
pub fn rank_label(r: &RankRun, text: &str) -> String {
    format!("rank {} ({}): {text}", r.rank, r.hostname)
}

/// Job `i` over the ranks that have it: the span of each rank's run time from its start
/// offset, the sums, the merged histograms, the first failure named by its rank.
fn merge_job(ranks: &[RankRun], i: usize) -> Option<JobResult> {
    let js: Vec<(&RankRun, &JobResult)> = ranks
        .iter()
        .filter_map(|r| r.result.jobs.get(i).map(|j| (r, j)))
        .collect();
    let (_, first) = js.first()?;
    let runtime_ns = js
        .iter()
        .map(|(r, j)| r.start_offset_ns + j.runtime_ns)
        .max()
        .unwrap_or(0);
    let secs = runtime_ns as f64 / 1e9;
    let dir = |d: usize| merge_dir(&js.iter().map(|(_, j)| j.dir(d)).collect::<Vec<_>>(), secs);
    let sync: Vec<&DirResult> = js.iter().map(|(_, j)| &j.sync).collect();
    let mut out = JobResult {
        job: first.job.clone(),
        groupid: first.groupid,
        engine: first.engine.clone(),
        runtime_ns,
        read: dir(0),
        write: dir(1),
        trim: dir(2),
        sync: merge_dir(&sync, secs),
        steady: first.steady.clone(),
        lat_target: first.lat_target,
        ..JobResult::default()
    };
    for (r, j) in &js {
        out.threads += j.threads;
        out.runtime_ms_sum += j.runtime_ms_sum;
        out.run_ns_sum += j.run_ns_sum;
        out.verified += j.verified;
        out.cpu.add(&j.cpu);
        out.depth.merge(&j.depth);
        out.errors += j.errors;
        if out.first_error.is_none() && j.first_error.is_some() {
            out.first_error = j.first_error.as_deref().map(|e| rank_label(r, e));
            out.first_errno = j.first_errno;
        }
        if out.failure.is_none() && j.failure.is_some() {
            out.failure = j.failure.as_deref().map(|e| rank_label(r, e));
            out.errno = j.errno;
        }
        if let Some(z) = j.zone_resets {
            out.zone_resets = Some(out.zone_resets.unwrap_or(0) + z);
        }
        match (&mut out.coverage, &j.coverage) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => out.coverage = Some(b.clone()),
            _ => {}
        }
    }
    out.job.numjobs = js.iter().map(|(_, j)| j.job.numjobs).sum();
    out.prios = merge_prios(&js);
    Some(out)
}

fn merge_prios(js: &[(&RankRun, &JobResult)]) -> Vec<super::job::PrioLatency> {
    let mut keys: Vec<(String, u16)> = Vec::new();
    for (_, j) in js {
        for p in &j.prios {
            if !keys.contains(&(p.dir.clone(), p.ioprio)) {
                keys.push((p.dir.clone(), p.ioprio));
            }
        }
    }
    keys.into_iter()
        .map(|(dir, ioprio)| {
            let lats: Vec<&Latency> = js
                .iter()
                .flat_map(|(_, j)| j.prios.iter())
                .filter(|p| p.dir == dir && p.ioprio == ioprio)
                .map(|p| &p.lat)
                .collect();
            super::job::PrioLatency {
                dir,
                ioprio,
                lat: merge_latency(&lats),
            }
        })
        .collect()
}

fn worst(a: Status, b: Status) -> Status {
    let rank = |s: Status| match s {
        Status::Ok => 0,
        Status::Interrupted => 1,
        Status::ForcedShutdown => 2,
        Status::Failed => 3,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// The one result of a many-hosts run from its ranks (in rank order, non-empty: the
/// caller has at least its own). See the module header for the rules.
pub fn aggregate(ranks: Vec<RankRun>, stonewall: bool, rotate: u32) -> RunResult {
    let Some(first) = ranks.first() else {
        return super::build(super::Inputs::new("", &[], Status::Failed));
    };
    let mut out = first.result.clone();
    // the span from the first start to the last rank's end
    out.period_s = ranks
        .iter()
        .map(|r| r.start_offset_ns as f64 / 1e9 + r.result.period_s)
        .fold(0.0, f64::max);
    out.elapsed_s = ranks.iter().map(|r| r.result.elapsed_s).fold(0.0, f64::max);
    let all: Vec<&RunResult> = ranks.iter().map(|r| &r.result).collect();
    out.read = merge_op(
        &all.iter().map(|r| &r.read).collect::<Vec<_>>(),
        out.period_s,
    );
    out.write = merge_op(
        &all.iter().map(|r| &r.write).collect::<Vec<_>>(),
        out.period_s,
    );
    out.fsync.ops = all.iter().map(|r| r.fsync.ops).sum();
    out.fsync.ops_per_s = rate(out.fsync.ops, out.period_s);
    out.fsync.lat = merge_latency(&all.iter().map(|r| &r.fsync.lat).collect::<Vec<_>>());
    out.lat = merge_latency(&all.iter().map(|r| &r.lat).collect::<Vec<_>>());
    out.clat = merge_opt_latency(all.iter().map(|r| r.clat.as_ref()).collect());
    out.events = all.iter().map(|r| r.events).sum();
    out.threads = all.iter().flat_map(|r| r.threads.iter().cloned()).collect();
    out.job.threads = all.iter().map(|r| r.job.threads).sum();
    out.job.files = all.iter().map(|r| r.job.files).sum();
    out.job.total_size_bytes = all.iter().map(|r| r.job.total_size_bytes).sum();
    out.cpu = merge_cpu(&all);
    out.jobs = (0..all.iter().map(|r| r.jobs.len()).max().unwrap_or(0))
        .filter_map(|i| merge_job(&ranks, i))
        .collect();
    out.phases = merge_phases(&ranks);
    (out.status, out.error, out.warnings) = verdict(&ranks);
    (out.intervals, out.series, out.devices) = (vec![], None, vec![]);
    out.ranks = Some(Box::new(summary(ranks, stonewall, rotate)));
    out
}

fn merge_cpu(all: &[&RunResult]) -> Option<super::CpuUsage> {
    let mut it = all.iter().filter_map(|r| r.cpu.clone());
    let mut c = it.next()?;
    for o in it {
        c.usr_s += o.usr_s;
        c.sys_s += o.sys_s;
        c.ctx_voluntary += o.ctx_voluntary;
        c.ctx_involuntary += o.ctx_involuntary;
    }
    Some(c)
}

/// Phases of the same name over the ranks: summed, over the span of their seconds from
/// each rank's start offset, latency merged.
fn merge_phases(ranks: &[RankRun]) -> Vec<super::Phase> {
    let Some(first) = ranks.first() else {
        return vec![];
    };
    first
        .result
        .phases
        .iter()
        .map(|p0| {
            let same: Vec<(&RankRun, &super::Phase)> = ranks
                .iter()
                .filter_map(|r| {
                    r.result
                        .phases
                        .iter()
                        .find(|p| p.name == p0.name)
                        .map(|p| (r, p))
                })
                .collect();
            let secs = same
                .iter()
                .map(|(r, p)| r.start_offset_ns as f64 / 1e9 + p.seconds)
                .fold(0.0, f64::max);
            let ops = same.iter().map(|(_, p)| p.ops).sum();
            let bytes = same.iter().map(|(_, p)| p.bytes).sum();
            let mut p = super::Phase::new(&p0.name, ops, bytes, secs);
            p.lat = merge_opt_latency(same.iter().map(|(_, p)| p.lat.as_ref()).collect());
            (p.cache, p.notes, p.coverage) =
                (p0.cache.clone(), p0.notes.clone(), p0.coverage.clone());
            p
        })
        .collect()
}

/// The worst status, the first error (named by its rank) and every rank's warnings
/// (named by rank; the same warning of several ranks once per rank).
fn verdict(ranks: &[RankRun]) -> (Status, Option<String>, Vec<Warning>) {
    let mut status = Status::Ok;
    let mut error = None;
    let mut warnings = Vec::new();
    for r in ranks {
        status = worst(status, r.result.status);
        if error.is_none() {
            error = r.result.error.as_deref().map(|e| rank_label(r, e));
        }
        warnings.extend(r.result.warnings.iter().map(|w| Warning {
            id: w.id.clone(),
            message: rank_label(r, &w.message),
        }));
    }
    (status, error, warnings)
}

fn summary(ranks: Vec<RankRun>, stonewall: bool, rotate: u32) -> RanksSummary {
    let ends = ranks.iter().map(|r| r.end_offset_ns);
    RanksSummary {
        size: ranks.len() as u32,
        start_skew_ns: ranks.iter().map(|r| r.start_offset_ns).max().unwrap_or(0),
        first_done_ns: ends.clone().min().unwrap_or(0),
        last_done_ns: ends.max().unwrap_or(0),
        stonewall,
        rotate,
        per_rank: ranks,
    }
}

#[cfg(test)]
mod tests;
