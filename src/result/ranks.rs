//! One result from the ranks of a many-hosts run (src/ranks/, `mpirun … iomark run|fileio`):
//! [`aggregate`] merges the ranks' recorder states ([`Measured`]: what each rank hands
//! the builder) with the one merge of the recorder (`JobRecord::merge` over
//! `JobStats::merge`, as fio's `group_reporting` adds threads up) and builds the one
//! result the reports render with `result::build`, like any result; every rank's own
//! result, host and timing stay in [`RanksSummary`] (`RunResult.ranks`).
//!
//! The rules, the same for `run` and `fileio` (the ranks ran the same job on their own
//! files, started together after one barrier):
//! - counters (I/Os, bytes, events, errors, CPU) are summed; job `i` of every rank is
//!   one job, its `numjobs` the ranks' sum; a fileio run's threads are every rank's;
//! - latencies are merged exactly as the recorder merges threads (exact count, sum, min
//!   and max; percentiles and stdev from the one merged histogram); nothing is averaged;
//! - rates are fio's for concurrent jobs of one group: total I/Os or bytes over the span
//!   from the earliest start to the latest end, i.e. per job the largest
//!   `start offset + run time` over the ranks (each rank's run time is placed on the
//!   common time line before the merge, whose run time is the largest; the start offset
//!   is the rank's start after the barrier minus the earliest one); fio's per-interval
//!   bandwidth/IOPS samples add up as for `group_reporting` (`SampleStat::merge_sum`);
//! - status is the worst rank's; an error or job failure names its rank and host, and
//!   the warnings are every rank's, named by rank.
//!
//! Rank 0's inputs give the job, the target and fio's options. What stays per rank
//! only (in `ranks.per_rank`): intervals, plot series, device counters and findings
//! (facts of one host); the page-cache check shown is rank 0's, and so is the device
//! view, whose own-I/O counters are those of every rank on rank 0's host added up
//! (the disks' counters see them all; only the rest is other processes' I/O). The
//! builder is handed the ranks (`Inputs::ranks`) and keeps the warnings and the
//! page-cache check so given, drawing none over the merged figures: nothing is patched
//! after the build.

pub(super) mod summary;

pub use summary::{RankRun, RanksSummary};

use super::{DeviceView, Inputs, ProcIo, Recorded, RunResult, Status, Warning};
use crate::stats::cpu::CpuTimes;
use crate::stats::job::JobStats;
use serde::{Deserialize, Serialize};

/// `rank N (host): text`: how the aggregate names what one rank said.
pub fn rank_label(r: &RankRun, text: &str) -> String {
    format!("rank {} ({}): {text}", r.rank, r.hostname)
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

/// What a rank measured, as the builder takes it: its recorder state
/// ([`Recorded`]) and the CPU of its process. Each rank sends it to rank 0 beside its
/// own result.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Measured {
    /// the rank's recorder state (`run`: its job records; `fileio`: its threads)
    pub recorded: Recorded,
    /// CPU of the rank's process over its run
    pub cpu: Option<CpuTimes>,
}

impl Measured {
    /// The measured part of a rank's builder inputs.
    pub fn of(i: &Inputs) -> Measured {
        Measured {
            recorded: i.recorded.clone(),
            cpu: i.cpu,
        }
    }
}

/// The one result of a many-hosts run from its ranks (in rank order, non-empty: the
/// caller has at least its own), each with what it measured; `base` is rank 0's builder
/// inputs (the job, the target, fio's global options). The ranks' recorder states are
/// merged by the one merge and the result is built by `result::build` (see the module
/// header for the rules).
pub fn aggregate(
    ranks: Vec<(RankRun, Measured)>,
    base: Inputs,
    stonewall: bool,
    rotate: u32,
) -> RunResult {
    let Some((first, _)) = ranks.first() else {
        return super::build(Inputs::new("", &[], Status::Failed));
    };
    let page_cache = first.result.page_cache.clone();
    let (runs, measured): (Vec<RankRun>, Vec<Measured>) = ranks.into_iter().unzip();
    let mut i = base;
    (i.status, i.error, i.warnings) = verdict(&runs);
    i.elapsed_s = runs.iter().map(|r| r.result.elapsed_s).fold(0.0, f64::max);
    i.summary.threads = runs.iter().map(|r| r.result.job.threads).sum();
    i.summary.files = runs.iter().map(|r| r.result.job.files).sum();
    i.summary.total_size_bytes = runs.iter().map(|r| r.result.job.total_size_bytes).sum();
    i.cpu = measured.iter().filter_map(|m| m.cpu).reduce(|mut a, b| {
        a.add(&b);
        a
    });
    i.recorded = Recorded::default();
    for (r, m) in runs.iter().zip(&measured) {
        merge_recorded(&mut i.recorded, at_start(r, m.recorded.clone()));
    }
    // the device view is rank 0's host's: its own I/O is every rank's there
    i.device_view = host_view(i.device_view.take(), &runs);
    // facts of one host stay per rank; the page-cache check shown is rank 0's (of its
    // host, over its own bytes)
    (i.intervals, i.samples, i.sample_sources, i.devices) = (vec![], vec![], None, vec![]);
    i.page_cache = page_cache;
    let all_clients = all_in_one(&i, &measured);
    let mut ranks = summary(runs, stonewall, rotate);
    ranks.all_clients = all_clients;
    // the builder keeps the ranks' warnings and check as given (`Inputs::ranks`)
    i.ranks = Some(ranks);
    super::build(i)
}

/// fio's client "All clients" job of a `run`: every job of every rank (`measured`, in
/// rank order) merged into one by the one merge (`JobRecord::merge`, as fio's client
/// adds every host's jobs with `sum_thread_stats`) and built like any job with the
/// aggregate's inputs `i`. Each rank's run time is its own, not placed on the common
/// time line: the merge keeps the longest, as fio's sum keeps the longest host's
/// (its hosts have no common time line). The group is the last job's (fio keeps the
/// last one received). `None` when no rank recorded a job.
fn all_in_one(i: &Inputs, measured: &[Measured]) -> Option<super::job::JobResult> {
    // a fileio run's job (sysbench's counting, its threads apart) is not fio's
    let mut jobs = measured
        .iter()
        .filter(|m| m.recorded.threads.is_none())
        .flat_map(|m| m.recorded.jobs.iter());
    let mut all = jobs.next()?.clone();
    for j in jobs {
        all.merge(j);
        all.job.numjobs += j.job.numjobs;
        all.groupid = j.groupid;
    }
    let mut one = i.clone();
    one.recorded = Recorded::fio(vec![all]);
    super::build(one).jobs.into_iter().next()
}

/// Rank 0's device view with the run's own I/O on that host: the `/proc/self/io`
/// counters of every rank on rank 0's host (same `hostname`: the same disks) added up,
/// so that only I/O by processes outside the run shows as other processes' (the
/// counters are device-wide). A view without process counters stays as it is.
fn host_view(view: Option<DeviceView>, runs: &[RankRun]) -> Option<DeviceView> {
    let mut view = view?;
    let Some(host) = runs.iter().find(|r| r.rank == 0).map(|r| &r.hostname) else {
        return Some(view);
    };
    let own: Vec<ProcIo> = runs
        .iter()
        .filter(|r| r.hostname == *host)
        .filter_map(|r| r.result.device_view.as_ref()?.process)
        .collect();
    if view.process.is_some() && !own.is_empty() {
        view.process = own.iter().copied().reduce(|a, b| a.add(&b));
        view.ranks = Some(own.len() as u32);
    }
    Some(view)
}

/// A rank's recorder state placed on the common time line: each job's run time counts
/// from the earliest start (its start offset added: the merge keeps the largest), its
/// errors named by the rank.
fn at_start(r: &RankRun, mut rec: Recorded) -> Recorded {
    let name = |s: &mut JobStats| {
        s.runtime_ns += r.start_offset_ns;
        s.first_error = s.first_error.take().map(|e| rank_label(r, &e));
        s.failure = s.failure.take().map(|e| rank_label(r, &e));
        for l in s
            .thread_failures
            .iter_mut()
            .flat_map(|t| t.lines.iter_mut())
        {
            *l = rank_label(r, l);
        }
    };
    rec.jobs.iter_mut().for_each(|j| name(&mut j.stats));
    if let Some(threads) = rec.threads.as_mut() {
        threads.period_s += r.start_offset_ns as f64 / 1e9;
        threads.threads.iter_mut().for_each(name);
    }
    rec
}

/// Add one rank's recorder state to the ranks' so far: job `i` of every rank is one
/// job (fio's `group_reporting` merge, `JobRecord::merge`, its `numjobs` summed); a
/// fileio run's threads are the ranks' threads, over the longest period. A rank that
/// recorded nothing (it ended before its run) adds nothing; the totals a rank's command
/// set itself (`run` with no job: rates over no time) stand only while no rank recorded
/// a job.
fn merge_recorded(all: &mut Recorded, rec: Recorded) {
    all.totals = match all.jobs.is_empty() && rec.jobs.is_empty() {
        true => all.totals.take().or(rec.totals),
        false => None,
    };
    for (n, j) in rec.jobs.into_iter().enumerate() {
        match all.jobs.get_mut(n) {
            Some(a) => {
                a.merge(&j);
                a.job.numjobs += j.job.numjobs;
            }
            None => all.jobs.push(j),
        }
    }
    match (all.threads.as_mut(), rec.threads) {
        (Some(all), Some(t)) => {
            all.period_s = all.period_s.max(t.period_s);
            all.total_time_s = all.total_time_s.max(t.total_time_s);
            all.threads.extend(t.threads);
        }
        (None, Some(t)) => all.threads = Some(t),
        (_, None) => {}
    }
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
        all_clients: None,
    }
}

#[cfg(test)]
mod tests;
