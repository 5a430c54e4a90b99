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

/// The value of job option `key` as the job ran with it: its own, else the global
/// section's (`-` and `_` alike in the key).
pub(crate) fn option<'a>(
    j: &'a JobResult,
    global: &'a [(String, String)],
    key: &str,
) -> Option<&'a str> {
    let same = |k: &str| k.replace('-', "_") == key;
    j.job
        .options
        .iter()
        .rev()
        .find(|(k, _)| same(k))
        .or_else(|| global.iter().rev().find(|(k, _)| same(k)))
        .map(|(_, v)| v.as_str())
}

/// fio's `continue_on_error` is on for job `j`: as the job ran (the result's
/// `continue_on_error`: set, or added by an `ignore_error` list, a later
/// `continue_on_error=` replacing it, fio 3.33 `options.c` `ignore_error_type`); in a
/// result written before that was kept, read from the options: set to anything but
/// `none`/`0`, or `ignore_error` names an error. fio then prints the error count and
/// first errno — JSON `total_err`/`first_error`, the terse pair, the text's
/// `errors    :` line — even when no error happened.
pub(crate) fn continues_on_error(j: &JobResult, global: &[(String, String)]) -> bool {
    if let Some(on) = j.job.continue_on_error {
        return on;
    }
    let coe = option(j, global, "continue_on_error")
        .is_some_and(|c| !matches!(c.trim(), "" | "none" | "0" | "false"));
    let ignore = option(j, global, "ignore_error")
        .is_some_and(|v| v.chars().any(|c| !c.is_whitespace() && c != ','));
    coe || ignore
}

pub(crate) fn pcts(j: &JobResult) -> &[f64] {
    if j.job.percentile_list.is_empty() {
        &PERCENTILES
    } else {
        &j.job.percentile_list
    }
}

/// The decimals of the job's percentile labels: as its `percentile_list` was typed,
/// else the list's own (2 for fio's default list).
pub(crate) fn pct_precision(j: &JobResult) -> usize {
    j.job
        .percentile_precision
        .map_or_else(|| lat_text::precision(pcts(j)), |p| p as usize)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// fio 3.33: `continue_on_error` other than none/0/false, or an `ignore_error` list
    /// naming an error, turns on the error count (`--ignore_error=EIO` printed
    /// `total_err`/`first_error`, found by the oracle); a global value counts, the job's
    /// own wins.
    #[test]
    fn continue_on_error_is_on_as_fio_reads_it() {
        let with = |k: &str, v: &str| {
            let mut j = JobResult::default();
            j.job.options = vec![(k.into(), v.into())];
            continues_on_error(&j, &[])
        };
        assert!(with("continue_on_error", "all"));
        assert!(with("continue_on_error", "read"));
        assert!(!with("continue_on_error", "none"));
        assert!(!with("continue_on_error", "0"));
        assert!(with("ignore_error", "EIO"));
        assert!(with("ignore_error", ",EIO:ENOSPC"));
        assert!(!with("ignore_error", ",,"));
        assert!(!with("rw", "read"));
        let j = JobResult::default();
        let global = [("continue-on-error".to_string(), "io".to_string())];
        assert!(continues_on_error(&j, &global));
        assert_eq!(option(&j, &global, "continue_on_error"), Some("io"));
        // the result's own word, as the job ran, wins over the options
        let mut j = JobResult::default();
        j.job.options = vec![
            ("ignore_error".into(), "EIO:ENOSPC".into()),
            ("continue_on_error".into(), "none".into()),
        ];
        j.job.continue_on_error = Some(false);
        assert!(!continues_on_error(&j, &[]));
        j.job.options.clear();
        j.job.continue_on_error = Some(true);
        assert!(continues_on_error(&j, &[]));
    }
}
