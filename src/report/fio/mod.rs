//! fio-compatible reports of `iomark run`, rendered from the result's jobs
//! (`RunResult.jobs`): the human summary in fio's "normal" layout ([`text::FioText`])
//! `--output-format=json`/`json+` ([`json::FioJson`]) and fio's terse lines
//! ([`terse::FioTerse`]). This module holds what both
//! share (fio's default percentile list, run time and CPU figures); the pieces of the
//! layouts are in the files beside it.

pub mod disk;
pub mod eta;
pub mod header;
pub mod idle;
pub mod json;
pub mod lat_text;
pub mod levels;
pub mod num;
pub mod order;
pub mod outputs;
pub mod prio;
pub mod terse;
pub mod text;

use crate::result::job::JobResult;

/// fio's default clat percentiles.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

pub(crate) fn pcts(j: &JobResult) -> &[f64] {
    if j.job.percentile_list.is_empty() {
        &PERCENTILES
    } else {
        &j.job.percentile_list
    }
}

pub(crate) fn runtime_ms(j: &JobResult) -> u64 {
    j.runtime_ns / 1_000_000
}

/// fio's `job_runtime`, ms: the threads' run times summed (`group_reporting` adds
/// them up, fio `stat.c` sums `total_run_time`); never below the job's `runtime`, so a
/// result built without per-thread sums reports its own run time.
pub fn job_runtime_ms(j: &JobResult) -> u64 {
    j.runtime_ms_sum.max(runtime_ms(j))
}

/// fio's `usr_cpu`/`sys_cpu`, percent: thread CPU time × 100 / thread wall time, both
/// summed over the merged threads (fio `stat.c`).
pub fn cpu_pct(j: &JobResult) -> (f64, f64) {
    j.cpu.percent(j.run_ns_sum)
}
