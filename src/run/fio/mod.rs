//! The `iomark run` runner: fio jobs → per-thread workers over an engine → per-thread
//! latency histograms, merged per job (or per group with `group_reporting`).
//!
//! Semantics follow fio: for each I/O, `slat` is
//! submit start → submit return (only for engines that queue: io_uring), `clat` is
//! submit return → completion (for engines that complete inside submit, the whole call,
//! slat then being absent as in fio's sync engines) and `lat` is start → completion.
//! Completions reaped together share one clock read, as in fio. Jobs run concurrently
//! except that `stonewall` starts a new group that waits for the previous one. I/O
//! during `ramp_time` is issued but neither recorded nor counted toward `size`.

pub mod agg_log;
pub mod align;
pub mod dedupe;
pub mod disk;
pub mod errors;
pub mod fz;
mod group;
pub mod hooks;
pub mod log;
pub mod numa;
pub(crate) mod plan;
pub mod prio;
pub mod replay;
pub(crate) mod setup;
pub mod stats;
pub mod status;
pub(crate) mod thread;
pub mod tools;
pub mod trigger;
pub mod trim;
pub(crate) mod zoned;

use crate::engine::io_uring::{self};
use crate::engine::registry::Kind;
use crate::files::dataset::{self, FilesError};
use crate::files::guard;
use crate::files::strerror;
use crate::job::fio::FioCommand;
use crate::result::job::JobRecord;
use crate::run::worker::Live;
use crate::stats::job::FioAccount;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use thiserror::Error;

pub use crate::run::fio::plan::format_filename;
pub(crate) use crate::run::fio::plan::Plan;
pub(crate) use crate::run::fio::plan::{files_for, plan};
pub use crate::run::fio::stats::RunOutcome;
pub(crate) use crate::run::fio::thread::{block_sizes, io_why, start_thread};

/// Offsets span of a null-engine job without `size`, bytes (nothing is touched).
pub const NULL_DEFAULT_SIZE: u64 = 1 << 30;

/// Errors of a run.
#[derive(Debug, Error)]
pub enum RunError {
    /// preparing or opening files failed
    #[error(transparent)]
    Files(#[from] FilesError),
    /// a job cannot run on its files
    #[error("job '{job}': {why}")]
    Plan {
        /// job name
        job: String,
        /// what is wrong
        why: String,
    },
    /// the engine could not be set up
    #[error("job '{job}': cannot start engine {engine}: {why}")]
    Engine {
        /// job
        job: String,
        /// engine name
        engine: &'static str,
        /// reason
        why: String,
    },
    /// an I/O failed during the run
    #[error("job '{job}': {op} of {len} bytes at offset {offset} in {}: {why}", .file.display())]
    Io {
        /// job
        job: String,
        /// read / write / fsync
        op: &'static str,
        /// file
        file: PathBuf,
        /// offset, bytes
        offset: u64,
        /// length, bytes
        len: usize,
        /// the error text (alignment explained for EINVAL with direct=1)
        why: String,
        /// fio 3.33's account of it, where fio has one (a failed request under the fio
        /// persona, a transfer that moved nothing)
        account: Option<Box<FioAccount>>,
    },
    /// data read back did not match what was written (`verify=`)
    #[error("job '{job}': verify: {count} block(s) did not match; first: {first}")]
    Verify {
        /// job
        job: String,
        /// mismatching blocks
        count: u64,
        /// the first mismatch: file, offset and what differs
        first: String,
        /// fio 3.33's account of it (where the mismatch was seen, EILSEQ)
        account: Box<FioAccount>,
    },
    /// `ratemin`/`rate_iops_min` not met over a `ratecycle` window
    #[error("job '{job}': {what} not met: {got} over the last {window_ms} ms")]
    MinRate {
        /// job
        job: String,
        /// which limit, e.g. "ratemin=1024 B/s (reads)"
        what: String,
        /// the rate reached, with unit
        got: String,
        /// window, ms
        window_ms: u64,
        /// fio 3.33's line for it (`NAME: rate_min=MINB/s not met, got RATEB/s`)
        fio_line: String,
        /// fio 3.33's account of it (under the fio persona)
        account: Option<Box<FioAccount>>,
    },
    /// a net job's socket could not be set up (connect, bind, accept)
    #[error("job '{job}': ioengine=net: {why}")]
    Net {
        /// job
        job: String,
        /// what failed, naming the options, and the system's text of the errno
        why: String,
        /// the errno
        errno: i32,
    },
    /// the environment cannot do what the job asks
    #[error("job '{job}': {why}")]
    Refused {
        /// job
        job: String,
        /// why
        why: String,
    },
}

/// The beginning of fio 3.33's line for a request that failed ([`RunError::fio_words`]).
const FIO_IO_U_ERROR: &str = "io_u error on file ";

/// The call fio 3.33's account names when the engine refused a request as it was handed
/// to the kernel (libaio's io_submit: ioengines.c `td_io_commit`, `func=io commit`).
pub(crate) const IO_COMMIT: &str = "io commit";

impl RunError {
    /// Exit code (DESIGN.md policy).
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Files(e) => e.exit_code(),
            RunError::Plan { .. } => crate::util::error::exit::INVALID,
            RunError::Engine { .. } => crate::util::error::exit::ENVIRONMENT,
            RunError::Io { .. }
            | RunError::Verify { .. }
            | RunError::MinRate { .. }
            | RunError::Net { .. } => crate::util::error::exit::FAILED,
            RunError::Refused { .. } => crate::util::error::exit::ENVIRONMENT,
        }
    }

    /// fio 3.33's line for a read, write or trim that failed with an errno (io_u.c
    /// `__io_u_log_error`: `io_u error on file F: TEXT: write offset=O, buflen=L`): the
    /// fio persona's words for the job's failure, on stderr after `fio: ` (`iomark run`
    /// keeps its own, which names the job: docs/compat/fio.md). `None` for a failure
    /// fio words otherwise: a latency limit, a transfer that moved nothing (its `full
    /// resid`, report/fio/header.rs), a sync.
    pub fn fio_words(&self) -> Option<String> {
        match self {
            // fio says a refused commit in its `fio: pid=` account alone
            _ if self.refused_at_commit() => None,
            RunError::Io {
                op,
                file,
                offset,
                len,
                why,
                ..
            } if matches!(*op, "read" | "write" | "trim")
                && !why.starts_with("latency of ")
                && !why.contains("(full resid: ") =>
            {
                Some(format!(
                    "{FIO_IO_U_ERROR}{}: {}: {op} offset={offset}, buflen={len}",
                    file.display(),
                    strerror(self.errno())
                ))
            }
            RunError::MinRate { fio_line, .. } => Some(fio_line.clone()),
            _ => None,
        }
    }

    /// A request the engine refused as it was handed to the kernel, accounted as fio
    /// 3.33's failed commit (the fio persona's [`IO_COMMIT`]).
    pub fn refused_at_commit(&self) -> bool {
        matches!(self, RunError::Io { account: Some(a), .. } if a.func == IO_COMMIT)
    }

    /// fio 3.33 says no line of its own for this failure beyond its account (a refused
    /// commit, [`RunError::refused_at_commit`]; the failed open of a file
    /// `unlink_each_loop` removed) or said its own as it happened (a verify
    /// mismatch's `verify:` lines, under the fio persona): iomark's explanation of it
    /// is a note ([`crate::stats::job::ThreadFailure::noted`]).
    pub fn fio_says_it_otherwise(&self) -> bool {
        matches!(self, RunError::Verify { .. })
            || self.refused_at_commit()
            || matches!(
                self,
                RunError::Io {
                    op: "open",
                    account: Some(_),
                    ..
                }
            )
    }

    /// fio 3.33's account of this failure, as it was set where the failure happened
    /// (`None`: fio words it by its errno alone, or it is not a failed run).
    pub fn account(&self) -> Option<FioAccount> {
        match self {
            RunError::Io { account, .. } | RunError::MinRate { account, .. } => {
                account.as_deref().cloned()
            }
            RunError::Verify { account, .. } => Some(FioAccount::clone(account)),
            _ => None,
        }
    }

    /// fio's `error` of a job that this error ended (its JSON `"error"` and the `err=`
    /// of the job line): the errno of a failed request (`EIO` for a short transfer),
    /// `ETIMEDOUT` for a missed `latency_target` at depth 1 (fio's `lat_fatal`), `EIO`
    /// for `ratemin` not met (fio's `check_min_rate`), `EILSEQ` for a verify mismatch;
    /// 0 for errors that are not a failed run (setup, usage, environment).
    pub fn errno(&self) -> i32 {
        match self {
            RunError::Io { why, .. } => {
                if why.starts_with("latency of ") {
                    return libc::ETIMEDOUT;
                }
                // `why` starts with the system's text of the errno (`io_why`)
                (1..=133)
                    .map(|n| (n, strerror(n)))
                    .filter(|(_, t)| why.starts_with(t.as_str()))
                    .max_by_key(|(_, t)| t.len())
                    .map_or(libc::EIO, |(n, _)| n)
            }
            RunError::Verify { .. } => libc::EILSEQ,
            RunError::MinRate { .. } => libc::EIO,
            RunError::Net { errno, .. } => *errno,
            _ => 0,
        }
    }
}

/// Sum of the live counters of every thread: [read bytes, written bytes, reads, writes].
fn live_sum(lives: &[&Live]) -> [u64; 4] {
    let mut sum = [0u64; 4];
    for l in lives {
        for (k, x) in sum.iter_mut().enumerate() {
            *x += l[k].load(Ordering::Relaxed);
        }
    }
    sum
}

/// The run's sampler (run/sampler.rs), when the run is sampled (`--plot`, or iomark's
/// own `run`): a period of 1 s, or 1/20 of a run whose longest job is time-limited
/// under 20 s; the probes of the jobs' files.
fn sampler(cmd: &FioCommand, t0: std::time::Instant) -> Option<crate::run::sampler::Sampler> {
    use crate::run::sampler::{period_for, Probes, Sampler};
    if !(cmd.sample || cmd.plot.is_some()) {
        return None;
    }
    let secs =
        |j: &crate::job::fio::FioJob| j.runtime.map_or(0, |r| r.as_millis().div_ceil(1000) as u64);
    let limit = match cmd.jobs.iter().all(|j| secs(j) > 0) {
        true => cmd.jobs.iter().map(secs).max().unwrap_or(0),
        false => 0,
    };
    let paths: Vec<std::path::PathBuf> = cmd
        .jobs
        .iter()
        .filter(|j| !j.engine.caps().no_io)
        .flat_map(disk::job_paths)
        .collect();
    let probes = Probes::new(&crate::probe::Root::of_samples(), &paths);
    Some(Sampler::new(t0, period_for(limit)).with_probes(probes))
}

pub fn status_sample(
    sum: &[u64; 4],
    prev: &[u64; 4],
    dur_s: f64,
    t_s: f64,
) -> crate::result::Interval {
    crate::result::Interval {
        t_s,
        dur_s,
        read_bytes: sum[0].saturating_sub(prev[0]),
        written_bytes: sum[1].saturating_sub(prev[1]),
        ..Default::default()
    }
}

/// The stderr line of a status sample: `[t=2.0s] read: IOPS=…, BW=…MiB/s (…MB/s); write: …`.
pub fn status_line(iv: &crate::result::Interval, reads: u64, writes: u64) -> String {
    let d = iv.dur_s.max(f64::MIN_POSITIVE);
    let part = |name: &str, ios: u64, bytes: u64| {
        format!(
            "{name}: IOPS={:.0}, BW={:.1}MiB/s ({:.1}MB/s)",
            ios as f64 / d,
            bytes as f64 / d / 1_048_576.0,
            bytes as f64 / d / 1e6
        )
    };
    format!(
        "[t={:.1}s] {}; {}",
        iv.t_s,
        part("read", reads, iv.read_bytes),
        part("write", writes, iv.written_bytes)
    )
}

/// Each engine's availability, checked once before any file is touched: libaio refused (no fallback: a libaio job measures libaio); io_uring refused with
/// `--engine-strict`, else a warning that io_uring jobs run on psync.
fn check_engines(
    cmd: &FioCommand,
    kinds: &[Kind],
    note: &(dyn Fn(String) + Sync),
) -> Result<(), RunError> {
    let mut seen: Vec<Kind> = Vec::new();
    for (j, &k) in cmd.jobs.iter().zip(kinds) {
        if seen.contains(&k) {
            continue;
        }
        seen.push(k);
        let Err(e) = k.available() else {
            continue;
        };
        if k == Kind::Libaio {
            return Err(RunError::Engine {
                job: j.name.clone(),
                engine: k.name(),
                why: crate::engine::libaio::setup_why(&e, 1),
            });
        }
        let why = io_uring::unavailable_why(&e);
        if cmd.engine_strict {
            return Err(RunError::Engine {
                job: j.name.clone(),
                engine: k.name(),
                why: format!("{why} (--engine-strict: no fallback to psync)"),
            });
        }
        note(format!(
            "warning: {why}; io_uring jobs run on psync instead (--engine-strict makes this an error)"
        ));
        if let Some(k) = cmd.jobs.iter().find_map(|j| j.extra.uses_cmdprio()) {
            note(format!(
                "warning: {k} has no effect on psync: requests run with the thread's priority"
            ));
        }
    }
    Ok(())
}

/// Device safety: every job that writes is checked before any file is created; the
/// NUMA nodes named by a job must exist here.
fn guard_jobs(
    cmd: &FioCommand,
    kinds: &[Kind],
    note: &(dyn Fn(String) + Sync),
    failed: &[Option<setup::SetupFail>],
) -> Result<(), RunError> {
    if cmd.fio_cli.bandwidth_log {
        agg_log::check().map_err(|source| FilesError::Output {
            what: "--bandwidth-log file",
            source,
        })?;
    }
    // logs are numbered over all threads of all jobs (fio's thread_number)
    let mut global = 0u32;
    // the block devices the jobs write (`st_rdev`), for the overrides that name none
    let mut written: Vec<u64> = vec![];
    let mut laid = plan::Laid::default();
    for ((j, k), f) in cmd.jobs.iter().zip(kinds).zip(failed) {
        if f.is_some() {
            // a job whose setup failed touches no file (run/fio/setup.rs)
            global += j.numjobs;
            continue;
        }
        let policy = crate::files::guard::WritePolicy {
            allow_destructive: cmd.allow_destructive_write.clone(),
            allow_mounted_write: j.allow_mounted_write,
            readonly: j.readonly,
        };
        for t in 0..j.numjobs {
            let files = files_for(j, t, global + t, &laid)?;
            laid.add(j, &files.0);
            // mmap maps files read-write, so it opens them with write access too
            // (a replayed log may write whatever the job's rw says)
            let writes = j.rw.writes()
                || j.rw.trims()
                || k.caps().maps_files
                || j.more.replay.file.is_some();
            dataset::guard(&files.0, writes, &policy)?;
            if writes {
                written.extend(files.0.iter().filter_map(|f| guard::block_rdev(&f.path)));
            }
            if !owns_no_files(*k) {
                dataset::check_generated(&files.0, writes)?;
            }
            if let Some(spec) = crate::run::fio::log::LogSpec::of(j) {
                spec.check(&j.name, global + t, Path::new("."))
                    .map_err(|source| FilesError::Output {
                        what: "log file",
                        source,
                    })?;
            }
            // (io_uring's completion polling; pvsync2's RWF_HIPRI falls back to
            // interrupts where the queue does not poll, as the kernel treats it; a job
            // that left io_uring after `hipri` runs without it, as fio's)
            if j.hipri && j.engine == Kind::IoUring {
                dataset::check_polling(&files.0)?;
            }
        }
        global += j.numjobs;
        // NUMA nodes named by the job must exist here
        let root = crate::probe::Root::default();
        crate::run::fio::numa::check(j, &root).map_err(|why| RunError::Refused {
            job: j.name.clone(),
            why,
        })?;
    }
    unused_overrides(cmd, &written, note);
    Ok(())
}

/// `--allow-destructive-write=DEV` lifts the guard of the block device DEV only: when no
/// job writes DEV (the targets are regular files, or other devices) it has no effect,
/// and one warning line per such DEV says so (the run goes on).
fn unused_overrides(cmd: &FioCommand, written: &[u64], note: &(dyn Fn(String) + Sync)) {
    for p in &cmd.allow_destructive_write {
        if guard::block_rdev(p).is_some_and(|r| written.contains(&r)) {
            continue;
        }
        note(format!(
            "warning: --allow-destructive-write={} has no effect: no job writes that block device (a regular file needs no override; it lifts the guard of the device it names only)",
            p.display()
        ));
    }
}

/// The plans of every thread of every job, with their flows, zones and sprandom state.
fn make_plans(
    cmd: &FioCommand,
    note: &(dyn Fn(String) + Sync),
    failed: &[Option<setup::SetupFail>],
) -> Result<Vec<Vec<Plan>>, RunError> {
    let mut plans: Vec<Vec<Plan>> = Vec::new();
    let mut idx = 0u64;
    // the files the jobs before lay out, as a later job reading them finds them
    let mut laid = plan::Laid::default();
    for (j, f) in cmd.jobs.iter().zip(failed) {
        let mut ps = Vec::new();
        for t in 0..j.numjobs {
            let p = match f {
                Some(_) => plan::stand_in(j, t, idx),
                None => plan(j, t, idx, &laid)?,
            };
            // a clone finds the files the threads before it laid out (fio 3.33 sets
            // up each thread's files in turn: `offset=10%` of a new file is 0 for the
            // job's first thread, 10 % of its laid-out size for its clones)
            laid.add(j, &p.files);
            ps.push(p);
            idx += 1;
        }
        // the fio persona's rules for what fails a job (Plan::fio_errors)
        ps.iter_mut().for_each(|p| {
            p.fio_errors = cmd.job_setup_errors;
            p.say_hooks = cmd.job_setup_errors && cmd.output.is_none();
        });
        plans.push(ps);
    }
    if cmd.jobs.iter().any(|j| j.control.flow > 0) {
        let flows = std::sync::Arc::new(crate::run::control::flow::Flows::default());
        plans
            .iter_mut()
            .flatten()
            .for_each(|p| p.flows = Some(flows.clone()));
    }
    // read_iolog: what the logs' parsing has to say (ignored entries)
    for r in plans.iter().flatten().filter_map(|p| p.replay.as_deref()) {
        r.notes.iter().for_each(|n| note(n.clone()));
    }
    zoned::attach_zones(&mut plans, note)?;
    zoned::prepare_sprandom(&mut plans)?;
    attach_vstate(cmd, &mut plans)?;
    Ok(plans)
}

/// fio's verify state of each thread: where a job that writes with `verify=` and
/// `verify_state_save` (default 1) saves it, and the state a `verify_state_load` job
/// reads before anything runs (a missing or foreign file ends the run, as in fio).
fn attach_vstate(cmd: &FioCommand, plans: &mut [Vec<Plan>]) -> Result<(), RunError> {
    use crate::run::verify::state;
    let aux = cmd.aux_path.as_deref();
    for p in plans.iter_mut().flatten() {
        let x = &p.job.more.x;
        let path = state::path(aux, &p.job.name, p.global);
        if x.verify_state_save && p.job.more.verify.is_some() && p.job.rw.writes() {
            p.vstate_save = Some(path.clone());
        }
        if x.verify_state_load {
            let s = state::load(&path, &p.job.name, p.global).map_err(|why| RunError::Refused {
                job: p.job.name.clone(),
                why,
            })?;
            p.vstate = Some(std::sync::Arc::new(s));
        }
    }
    Ok(())
}

/// The engine touches no file of the job's (null, cpuio) or makes its files itself
/// (filecreate, the directory engines): nothing is checked or laid out for it.
fn owns_no_files(k: Kind) -> bool {
    k.caps().no_io || k.caps().own_files
}

/// Whether any job of `cmd` does I/O on files or devices of its own (not null, cpuio,
/// net …): without one, a run makes no page-cache or device claim (it did no I/O there).
pub fn touches_storage(cmd: &FioCommand) -> bool {
    cmd.jobs
        .iter()
        .any(|j| !owns_no_files(j.engine) && !j.engine.caps().stream)
}

/// Every file a run writes besides its data files, each named by its option or role:
/// `--json`, `--output`, `--bandwidth-log`'s files, the jobs' log files (`write_*_log`,
/// `write_iolog`; a log that several threads share, `per_job_logs=0`, is one output), the
/// verify state files (`verify_state_save`) and the exec engine's `JOB.stdout`/`JOB.stderr`
/// (one pair for all threads of a job, as they share it).
fn run_outputs(cmd: &FioCommand, plans: &[Vec<Plan>]) -> Vec<(String, PathBuf)> {
    let mut outs: Vec<(String, PathBuf)> = [("--json", &cmd.json_file), ("--output", &cmd.output)]
        .into_iter()
        .filter_map(|(o, p)| p.as_ref().map(|p| (o.to_string(), p.clone())))
        .collect();
    if cmd.fio_cli.bandwidth_log {
        outs.extend(
            agg_log::paths()
                .into_iter()
                .map(|p| ("--bandwidth-log".into(), p)),
        );
    }
    // a file several threads share is one output (the options are never deduplicated:
    // a log named as --json is a collision)
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut add = |role: String, p: PathBuf| {
        if !seen.contains(&p) {
            seen.push(p.clone());
            outs.push((role, p));
        }
    };
    let mut global = 0;
    for j in &cmd.jobs {
        if let Some(spec) = crate::run::fio::log::LogSpec::of(j) {
            for t in 0..j.numjobs {
                for p in spec.paths(&j.name, global + t, Path::new("")) {
                    add(format!("log file of job {}", j.name), p);
                }
            }
        }
        global += j.numjobs;
    }
    for p in plans.iter().flatten() {
        if let Some(v) = &p.vstate_save {
            add(format!("verify state of job {}", p.job.name), v.clone());
        }
        if p.thread_job.engine == Kind::Exec && p.job.more.exec.std_redirect {
            for ext in ["stdout", "stderr"] {
                let f = PathBuf::from(format!("{}.{ext}", p.job.name));
                add(format!("std_redirect file of job {}", p.job.name), f);
            }
        }
    }
    outs
}

/// The run's outputs ([`run_outputs`]) that are one another or one of the jobs' data
/// files (by path, or a link to one): refused before layout, exit 2, naming both (the
/// result would be benchmarked or written over).
fn refuse_output_data_files(cmd: &FioCommand, plans: &[Vec<Plan>]) -> Result<(), RunError> {
    let outs = run_outputs(cmd, plans);
    if outs.is_empty() {
        return Ok(());
    }
    let data: Vec<_> = plans
        .iter()
        .flatten()
        .flat_map(|p| &p.files)
        .map(|f| ("data file".to_string(), f.path.clone()))
        .collect();
    crate::files::output::refuse_collisions(&outs, &data).map_err(|why| RunError::Plan {
        job: cmd.jobs.first().map(|j| j.name.clone()).unwrap_or_default(),
        why,
    })
}

/// `--json` and `--output` (`outs`) against the jobs' data files as their names say
/// (`filename=`, `filename_format`, `directory`), before either output is checked on
/// its own: a hard link between an output and a data file is said as the same file
/// (exit 2, naming both) rather than as a hard-linked output (exit 3, naming one). The
/// full check (every log, [`refuse_output_data_files`]) runs again before layout.
pub fn refuse_outputs_as_data(
    cmd: &FioCommand,
    outs: &[crate::files::output::Named],
) -> Result<(), RunError> {
    let mut data = Vec::new();
    for j in cmd.jobs.iter().filter(|j| !owns_no_files(j.engine)) {
        if j.more.replay.file.is_some() {
            continue; // the replayed log names the files: read at planning
        }
        for t in 0..j.numjobs {
            let paths = plan::paths_of(j, t).unwrap_or_default();
            data.extend(paths.into_iter().map(|p| ("data file".to_string(), p)));
        }
    }
    crate::files::output::refuse_collisions(outs, &data).map_err(|why| RunError::Plan {
        job: cmd.jobs.first().map(|j| j.name.clone()).unwrap_or_default(),
        why,
    })
}

/// The checks that need no file (space, O_DIRECT, alignment, `allow_file_create`).
fn check_files(
    cmd: &FioCommand,
    plans: &[Vec<Plan>],
    kinds: &[Kind],
    note: &(dyn Fn(String) + Sync),
) -> Result<(), RunError> {
    let checks: Vec<dataset::Check> = cmd
        .jobs
        .iter()
        .zip(plans)
        .zip(kinds)
        .filter(|(_, k)| !owns_no_files(**k))
        .flat_map(|((j, ps), _)| {
            let mut sizes = block_sizes(&j.bs_read);
            sizes.extend(block_sizes(&j.bs_write));
            ps.iter().map(move |p| dataset::Check {
                files: p.files.as_slice(),
                direct: j.direct,
                sizes: sizes.clone(),
                laid_out: !j.more.create_on_open,
            })
        })
        .collect();
    // every engine's, the null engine's too: fio 3.33 checks `directory=` as it reads it
    for d in cmd.jobs.iter().flat_map(|j| &j.directory) {
        dataset::check_directory(d)?;
    }
    dataset::preflight(&checks)?;
    refuse_output_data_files(cmd, plans)?;
    // the verify state files, as every output, before any I/O: a link there is refused
    // now (exit 3), not found after the run (a file that is not a state stays a warning
    // at the save: run/verify/state.rs)
    for v in plans
        .iter()
        .flatten()
        .filter_map(|p| p.vstate_save.as_ref())
    {
        crate::files::output::Output::create(v).map_err(|source| FilesError::Output {
            what: "verify state file",
            source,
        })?;
    }
    // direct=1: offsets (and block sizes on block devices) against the logical block size
    for ((j, ps), k) in cmd.jobs.iter().zip(plans).zip(kinds) {
        if !owns_no_files(*k) {
            crate::run::fio::align::check(j, ps)?;
            if let Some(w) = crate::run::fio::align::rmw_warning(j, ps) {
                note(w);
            }
        }
    }
    for ((j, ps), k) in cmd.jobs.iter().zip(plans).zip(kinds) {
        if !j.more.x.allow_file_create && !owns_no_files(*k) {
            for p in ps {
                let paths: Vec<&Path> = p.files.iter().map(|f| f.path.as_path()).collect();
                crate::run::fio::errors::check_allow_create(&paths).map_err(|why| {
                    RunError::Refused {
                        job: j.name.clone(),
                        why,
                    }
                })?;
            }
        }
    }
    Ok(())
}

/// Lay out the files, then check that `atomic=1` files take RWF_ATOMIC writes of the
/// job's sizes, before any I/O (the fio persona writes without RWF_ATOMIC where they
/// do not, as fio 3.33: [`check_atomic`]).
fn lay_out(
    cmd: &FioCommand,
    plans: &mut [Vec<Plan>],
    kinds: &[Kind],
    failed: &mut [Option<setup::SetupFail>],
    stop: &AtomicBool,
) -> Result<Vec<String>, RunError> {
    let mut lines = Vec::new();
    for (((j, ps), k), f) in cmd
        .jobs
        .iter()
        .zip(plans.iter())
        .zip(kinds)
        .zip(failed.iter_mut())
    {
        // a stop signal ends the layout: the jobs after it are not laid out
        if stop.load(Ordering::Relaxed) {
            return Ok(lines);
        }
        if owns_no_files(*k) || f.is_some() {
            continue;
        }
        match lay_out_job(j, ps, *k, (cmd.job_setup_errors, stop)) {
            Ok(l) => lines.extend(l),
            // under the fio persona a layout refused on the job's own files is its error
            Err(e) => match setup::layout_failure(&e).filter(|_| cmd.job_setup_errors) {
                Some(s) => *f = Some(s),
                None => return Err(e),
            },
        }
    }
    if !stop.load(Ordering::Relaxed) {
        check_atomic(cmd, plans)?;
    }
    Ok(lines)
}

/// Lay out the files of one job's threads `ps`; fio's layout lines. `fio`: the fio
/// persona, under which `readonly=1` reads a short file as it is. A stop signal (`stop`)
/// ends the layout of the file under way, which is undone (files/dataset.rs `layout`),
/// and of the threads after it, as fio 3.33's `td->terminate` does.
fn lay_out_job(
    j: &crate::job::fio::FioJob,
    ps: &[Plan],
    k: Kind,
    (fio, stop): (bool, &AtomicBool),
) -> Result<Vec<String>, RunError> {
    let mut lines = Vec::new();
    for p in ps {
        lines.extend(plan::may_be_ignored(j, &p.files, &p.regions));
        if j.readonly {
            // nothing is laid out: a missing file is the job's error, and so is a short
            // one under `iomark run`; the fio persona reads a short file up to its end
            // (fio 3.33 says it would lay it out and refuses to extend it)
            let short = dataset::check_readonly_layout(&p.files, fio)?;
            if !short.is_empty() {
                let laid = dataset::LaidOut {
                    files: u32::try_from(short.len()).unwrap_or(u32::MAX),
                    bytes: short.iter().map(|f| f.size).sum(),
                    ..dataset::LaidOut::default()
                };
                lines.extend(laid.fio_line(&j.name));
                for _ in &short {
                    eprintln!("{}", setup::READONLY_EXTEND);
                }
            }
        } else if j.more.create_on_open {
            // `create_on_open=1`: nothing is laid out; a missing file is created empty
            // when the job opens it (run/fio/thread.rs), as fio 3.33's open does
        } else {
            // filled when the job reads (a replay: when its log does) or the engine
            // works on the files' blocks (`overwrite=1`: a written file is laid out
            // with data too, so the job's writes overwrite blocks that exist, as fio's;
            // an engine that maps the files writes them through the mapping, so they
            // are laid out with data, fio's FIO_NOEXTEND)
            let caps = k.caps();
            let overwrite = j.tuning.overwrite && p.job.rw.writes();
            let mapped = caps.maps_files && p.job.rw.writes();
            let fill = p.job.rw.reads() || caps.needs_data || overwrite || mapped;
            // fio preallocates as `fallocate=` says, except for fill_device
            let prealloc =
                dataset::Prealloc::parse(&j.more.fallocate).filter(|_| !j.more.x.fill_device);
            let stopped = || stop.load(Ordering::Relaxed);
            let laid = dataset::layout(&p.files, fill, prealloc, j.more.x.create_fsync, &stopped)?;
            for e in &laid.prealloc_failed {
                eprintln!(
                    "fio: posix_fallocate fails: {}",
                    crate::util::errno::describe(e)
                );
            }
            // fio's line is the one said of a layout (iomark run too: the report carries it)
            lines.extend(laid.fio_line(&j.name));
            if laid.interrupted {
                return Ok(lines);
            }
        }
        if j.tuning.pre_read && !j.direct && !j.more.create_on_open {
            dataset::pre_read(&p.files)?;
        }
    }
    Ok(lines)
}

/// `atomic=1`: the files take RWF_ATOMIC writes of the job's sizes, before any I/O.
fn check_atomic(cmd: &FioCommand, plans: &mut [Vec<Plan>]) -> Result<(), RunError> {
    for (j, ps) in cmd.jobs.iter().zip(plans) {
        // (the null engine has no file to write atomically, a job that only reads no
        // atomic write: nothing to check)
        if j.more.x.atomic && !j.engine.caps().no_io && j.rw.writes() {
            for p in ps {
                let paths: Vec<&Path> = p.files.iter().map(|f| f.path.as_path()).collect();
                let checked = match j.engine {
                    // engines that issue no RWF_ATOMIC write (the job model refuses them
                    // outside the fio persona: job/fio/keys_verify.rs)
                    Kind::Mmap | Kind::Posixaio => Err(String::new()),
                    _ => crate::run::fio::errors::check_atomic(&paths, &block_sizes(&j.bs_write)),
                };
                match checked {
                    Ok(()) => {}
                    // fio 3.33's atomic=1 opens O_DIRECT with an O_ATOMIC flag the kernel
                    // ignores: the fio persona writes as it does, without RWF_ATOMIC
                    Err(_) if cmd.job_setup_errors => p.job.more.x.atomic = false,
                    Err(why) => {
                        return Err(RunError::Refused {
                            job: j.name.clone(),
                            why,
                        })
                    }
                }
            }
        }
    }
    Ok(())
}

/// Groups of job indices, split at stonewall; and each job's reporting group (a new
/// one at every stonewall or new_group).
fn groups(cmd: &FioCommand) -> (Vec<Vec<usize>>, Vec<u32>) {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut report_gid = Vec::with_capacity(cmd.jobs.len());
    let mut rg = 0u32;
    for (i, j) in cmd.jobs.iter().enumerate() {
        if groups.is_empty() || (j.stonewall && i > 0) {
            groups.push(Vec::new());
        }
        if let Some(g) = groups.last_mut() {
            g.push(i);
        }
        if i > 0 && (j.stonewall || j.new_group) {
            rg += 1;
        }
        report_gid.push(rg);
    }
    (groups, report_gid)
}

/// What was measured around a run: the process's CPU (RUSAGE_SELF difference), the
/// counters of the block devices under the jobs' files, the wall time.
pub struct Around {
    /// CPU used by the process during the run
    pub cpu: crate::stats::cpu::CpuTimes,
    /// device counters before and after
    pub devices: Vec<crate::result::DeviceCounters>,
    /// seconds from the start to the end
    pub elapsed_s: f64,
    /// the page-cache and truth facts of the jobs' files (result/truth.rs reads them)
    pub page_cache: crate::probe::pagecache::PageCacheCheck,
    /// the diagnosis of the jobs' target, taken before the run
    pub target: crate::probe::diagnosis::Diagnosis,
    /// what the disk under the first job's files and its stack did
    pub device_view: crate::probe::devstat::DeviceView,
}

/// fio's running report of the front end (`--status-interval`, SIGUSR1): the run's
/// records so far and the device counters since its start (run/fio/group.rs).
pub type StatusReport<'a> = dyn Fn(Vec<JobRecord>, Vec<crate::result::DeviceCounters>) + 'a;

/// The front end's hook called once, when the files are laid out and before the first
/// I/O: the reported jobs as they stand then (nothing done yet, [`group::before_io`])
/// and fio's layout lines, which fio's header lines are printed from as the run starts.
pub type Started<'a> = dyn Fn(Vec<JobRecord>, Vec<String>) + 'a;

/// The front end's hooks into a run: fio's `--status-interval` reports and the
/// moment the I/O starts.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// fio's running reports (`--status-interval`, SIGUSR1)
    pub report: Option<&'a StatusReport<'a>>,
    /// the files are laid out, the first I/O comes next
    pub started: Option<&'a Started<'a>>,
    /// a rank other than 0 of a many-hosts run: its `--status-interval` and SIGUSR1
    /// lines are left to rank 0's (docs/commands/mpi.md: only rank 0 prints)
    pub quiet: bool,
}

/// [`execute`] with the process's CPU, the device counters (read through `root`) and
/// the wall time measured around it; `hooks`: fio's `--status-interval` reports and
/// the start of the I/O.
pub fn execute_around(
    cmd: &FioCommand,
    stop: &AtomicBool,
    note: &(dyn Fn(String) + Sync),
    root: &crate::probe::Root,
    board: &status::Board,
    hooks: Hooks<'_>,
) -> (Result<RunOutcome, RunError>, Around) {
    let report = hooks.report;
    use crate::stats::cpu::{CpuTimes, Who};
    let c0 = CpuTimes::now(Who::Process);
    let t0 = std::time::Instant::now();
    let disk0 = disk::DiskSnapshot::take(root, &cmd.jobs);
    let cache0 = disk::cache_before(root, &cmd.jobs);
    let target = disk::diagnose_target(root, &cmd.jobs);
    let watch = disk::device_watch(&cmd.jobs);
    // each status report with the device counters since the start, as the final one;
    // none before the I/O starts (fio 3.33 registers the disks it reports as it starts
    // the jobs, after the layout)
    let d0 = &disk0;
    let with_disks = report.map(|f| {
        move |jobs: Vec<JobRecord>, io: bool| {
            f(jobs, if io { d0.finish(&|_| true) } else { Vec::new() })
        }
    });
    let hook = with_disks
        .as_ref()
        .map(|f| f as &dyn Fn(Vec<JobRecord>, bool));
    let res = execute(cmd, stop, note, board, (hook, hooks.started, hooks.quiet));
    // the disks of the jobs that were created (fio 3.33 lists a disk as it creates a
    // job on it): none when each failed in its setup or a stop came before the I/O
    let created = |ji: usize| match &res {
        Ok(o) => !o.before_io && o.created.get(ji).copied().unwrap_or(false),
        Err(_) => true,
    };
    let around = Around {
        device_view: watch.finish(),
        target,
        page_cache: disk::cache_after(root, &cache0, &cmd.jobs),
        devices: disk0.finish(&created),
        cpu: CpuTimes::now(Who::Process).since(&c0),
        elapsed_s: t0.elapsed().as_secs_f64(),
    };
    (res, around)
}

/// What [`execute`] tells its caller: the reported jobs at the end, and the jobs and
/// layout lines before the first I/O; and whether it prints no status lines
/// ([`Hooks::quiet`]).
pub type RunHooks<'a, 'b> = (
    Option<&'a dyn Fn(Vec<JobRecord>, bool)>,
    Option<&'a Started<'b>>,
    bool,
);

/// Run every job of `cmd`: lay out files, then each stonewall group in turn, its jobs'
/// threads concurrently (run/fio/group.rs). `note` receives progress lines and
/// warnings (for stderr); `board` holds the threads' states and counters for fio's
/// status line (run/fio/status.rs), filled once the files are laid out; `report`, when
/// given, renders fio's `--status-interval` reports (run/fio/group.rs); `started`, when
/// given, is told the reported jobs and the layout lines before the first I/O.
pub fn execute(
    cmd: &FioCommand,
    stop: &AtomicBool,
    note: &(dyn Fn(String) + Sync),
    board: &status::Board,
    (report, started, quiet): RunHooks<'_, '_>,
) -> Result<RunOutcome, RunError> {
    let clock = crate::run::clock();
    let (groups, report_gid) = groups(cmd);
    let kinds: Vec<Kind> = cmd.jobs.iter().map(|j| j.engine).collect();
    check_engines(cmd, &kinds, note)?;
    // the outputs named without a plan (logs, --bandwidth-log) against the data files,
    // before the link rule of each refuses a hard link between them as one file's
    refuse_outputs_as_data(cmd, &run_outputs(cmd, &[]))?;
    // under the fio persona, the jobs whose setup fails are reported with their error
    let mut failed = setup::failures(cmd)?;
    guard_jobs(cmd, &kinds, note, &failed)?;
    let mut plans = make_plans(cmd, note, &failed)?;
    check_files(cmd, &plans, &kinds, note)?;
    let layout_lines = lay_out(cmd, &mut plans, &kinds, &mut failed, stop)?;
    if let Some(f) = started {
        f(
            group::before_io(cmd, &plans, &failed, &report_gid),
            layout_lines.clone(),
        );
    }
    // a SIGUSR1 before the I/O (while the files were laid out): fio 3.33 prints its
    // running report then, of jobs that have done nothing and no disk, and goes on
    if let Some(report) = report.filter(|_| !quiet) {
        if crate::run::signals::take_status_request() {
            report(group::before_io(cmd, &plans, &failed, &report_gid), false);
        }
    }
    for (j, f) in cmd.jobs.iter().zip(&failed) {
        if let Some(f) = f {
            setup::say(j, f);
        }
    }
    let root = crate::probe::Root::default();
    let switched = switch_schedulers(cmd, &mut plans, &root)?;
    // many hosts (src/ranks/): every rank has laid out its files; the I/O starts together
    crate::ranks::start_line();
    let ctx = group::RunCtx {
        cmd,
        plans: &plans,
        clock: &clock,
        stop,
        note,
        // wait_for targets (validated to name an earlier job) and their finished threads
        wait_idx: cmd
            .jobs
            .iter()
            .map(|j| {
                let w = j.more.wait_for.as_ref();
                w.and_then(|w| cmd.jobs.iter().position(|x| &x.name == w))
            })
            .collect(),
        // a job whose setup failed is done at once (a `wait_for` on it does not wait)
        done: cmd
            .jobs
            .iter()
            .zip(&failed)
            .map(|(j, f)| AtomicU32::new(if f.is_some() { j.numjobs } else { 0 }))
            .collect(),
        failed,
        report_gid,
        run_t0: std::time::Instant::now(),
        slots: board.fill(&plans),
        watched: board.watched(),
        report,
        quiet,
        created: cmd.jobs.iter().map(|_| AtomicBool::new(false)).collect(),
    };
    let out = run_groups(&ctx, &groups);
    hooks::restore_schedulers(&switched, &root);
    out.map(|mut o| {
        o.layout_lines = layout_lines;
        o
    })
}

/// `disk_util`'s I/O scheduler switch for each job's files (restored by the caller after
/// the run; on a refusal, the ones already switched are restored here). Under the fio
/// persona a miss is not the run's: each thread of the job meets it as fio's does
/// (`Plan::iosched_miss`).
fn switch_schedulers(
    cmd: &FioCommand,
    plans: &mut [Vec<Plan>],
    root: &crate::probe::Root,
) -> Result<Vec<(String, String)>, RunError> {
    let mut switched = Vec::new();
    for (j, ps) in cmd.jobs.iter().zip(plans.iter_mut()) {
        if !j.tuning.disk_util || j.engine.caps().no_io {
            continue;
        }
        let files: Vec<&Path> = ps
            .iter()
            .flat_map(|p| p.files.iter().map(|f| f.path.as_path()))
            .collect();
        match hooks::ioscheduler(j, &files, root) {
            Ok(s) => switched.extend(s),
            Err((miss, _)) if ps.first().is_some_and(|p| p.fio_errors) => {
                ps.iter_mut()
                    .for_each(|p| p.iosched_miss = Some(miss.clone()));
            }
            Err((_, why)) => {
                hooks::restore_schedulers(&switched, root);
                return Err(RunError::Refused {
                    job: j.name.clone(),
                    why,
                });
            }
        }
    }
    Ok(switched)
}

/// The stonewall groups of the run in turn, then `unlink`.
fn run_groups(ctx: &group::RunCtx, groups: &[Vec<usize>]) -> Result<RunOutcome, RunError> {
    let (cmd, plans, stop) = (ctx.cmd, ctx.plans, ctx.stop);
    let mut out = RunOutcome::default();
    let mut sampling = group::Sampling {
        sampler: sampler(cmd, ctx.run_t0),
        ..group::Sampling::default()
    };
    // stopped before the I/O (while the files were laid out): fio 3.33 reports its jobs
    // as they stand, having done nothing (a JSON job of zeros; its text leaves them out);
    // `iomark run` has no job report then (its stderr line says so)
    if stop.load(Ordering::Relaxed) && cmd.job_setup_errors {
        out.jobs = group::before_io(cmd, plans, &ctx.failed, &ctx.report_gid);
        out.before_io = true;
    }
    for g in groups {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let (jobs, abort_rest) = group::run_group(ctx, g, &mut sampling)?;
        if ctx.report.is_some() {
            sampling.before.extend(jobs.iter().cloned());
        }
        out.jobs.extend(jobs);
        if abort_rest {
            break;
        }
    }
    // `unlink`: the files go (`unlink_each_loop` removes them before each further
    // loop only, so the last loop's files stay, as fio 3.33's)
    for ((j, ps), f) in cmd.jobs.iter().zip(plans).zip(&ctx.failed) {
        if f.is_none() && j.tuning.unlink {
            for p in ps {
                dataset::unlink(&p.files)?;
            }
        }
    }
    out.interrupted = stop.load(Ordering::Relaxed);
    // the jobs fio 3.33 lists disks for: created, with a file (an `opendir` that added
    // none has none)
    out.created = ctx
        .created
        .iter()
        .zip(plans)
        .map(|(c, ps)| c.load(Ordering::Acquire) && ps.iter().any(|p| !p.files.is_empty()))
        .collect();
    // fio's JSON `elapsed`: since genesis (the I/O's start, after the layout)
    let elapsed_ms = ctx.run_t0.elapsed().as_millis() as u64;
    for j in &mut out.jobs {
        j.elapsed_ms = elapsed_ms;
    }
    out.intervals = sampling.intervals;
    if let Some(smp) = sampling.sampler {
        out.sample_period_s = smp.period.as_secs_f64();
        out.sample_sources = smp.sources();
        out.samples = smp.samples;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::RunError;

    fn io(why: &str) -> RunError {
        RunError::Io {
            job: "j".into(),
            op: "write",
            file: "f".into(),
            offset: 0,
            len: 4096,
            why: why.into(),
            account: None,
        }
    }

    /// fio 3.33's `io_u error` line (io_u.c): the file as the job names it, the errno's
    /// text (not iomark's explanation after it), the direction, offset and length.
    #[test]
    fn fio_words_of_a_failed_request() {
        let mut e = io("No space left on device");
        assert_eq!(
            e.fio_words().unwrap(),
            "io_u error on file f: No space left on device: write offset=0, buflen=4096"
        );
        if let RunError::Io {
            op,
            offset,
            len,
            why,
            ..
        } = &mut e
        {
            (*op, *offset, *len) = ("read", 8192, 512);
            *why = "Invalid argument (direct=1 needs offsets ...)".into();
        }
        assert_eq!(
            e.fio_words().unwrap(),
            "io_u error on file f: Invalid argument: read offset=8192, buflen=512"
        );
        // fio words these otherwise: a latency limit, a transfer that moved nothing
        assert_eq!(
            io("latency of 9 ns exceeds max_latency=1 ns").fio_words(),
            None
        );
        let resid = "Input/output error (full resid: 0 of 4096 bytes moved, then none)";
        assert_eq!(io(resid).fio_words(), None);
    }

    #[test]
    fn errno_of_a_failure_is_fios() {
        assert_eq!(io("Input/output error").errno(), libc::EIO);
        assert_eq!(io("No space left on device").errno(), libc::ENOSPC);
        // the longest matching text wins: ENXIO's starts with ENODEV's
        assert_eq!(io("No such device or address").errno(), libc::ENXIO);
        assert_eq!(io("No such device").errno(), libc::ENODEV);
        assert_eq!(
            io("Invalid argument (direct=1 needs offsets ...)").errno(),
            libc::EINVAL
        );
        assert_eq!(io("short transfer (2048 bytes)").errno(), libc::EIO);
        assert_eq!(
            io("latency of 9 ns exceeds latency_target").errno(),
            libc::ETIMEDOUT
        );
        let v = RunError::Verify {
            job: "j".into(),
            count: 1,
            first: String::new(),
            account: Box::new(super::FioAccount::new(
                "io_u.c",
                2152,
                "io_u_sync_complete",
                libc::EILSEQ,
            )),
        };
        assert_eq!(v.errno(), libc::EILSEQ);
        let p = RunError::Plan {
            job: "j".into(),
            why: "x".into(),
        };
        assert_eq!(p.errno(), 0);
    }
}

#[cfg(test)]
mod execute_tests;
