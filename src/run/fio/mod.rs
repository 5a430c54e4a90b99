//! The `iomark run` runner: fio jobs → per-thread workers over an engine → per-thread
//! latency histograms, merged per job (or per group with `group_reporting`).
//!
//! Semantics follow fio (spec/peers.md "latency internals"): for each I/O, `slat` is
//! submit start → submit return (only for engines that queue: io_uring), `clat` is
//! submit return → completion (for engines that complete inside submit, the whole call,
//! slat then being absent as in fio's sync engines) and `lat` is start → completion.
//! Completions reaped together share one clock read, as in fio. Jobs run concurrently
//! except that `stonewall` starts a new group that waits for the previous one. I/O
//! during `ramp_time` is issued but neither recorded nor counted toward `size`.

pub mod align;
pub mod cpu;
pub mod dedupe;
pub mod errors;
pub mod log;
pub mod numa;
pub(crate) mod plan;
pub mod prio;
pub mod stats;
pub(crate) mod thread;
pub mod trim;

use crate::engine::io_uring::{self};
use crate::engine::registry::Kind;
use crate::job::fio::{FioCommand, FioJob};
use crate::job::fio::keys::ExitWhat;
use crate::run::worker::Live;
use crate::files::dataset::{self, FileSpec, FilesError};
use crate::files::strerror;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use thiserror::Error;

pub use crate::run::fio::plan::format_filename;
pub(crate) use crate::run::fio::plan::Plan;
pub(crate) use crate::run::fio::plan::{engine_of, files_for, plan};
pub use crate::run::fio::stats::{DirStats, JobStats, Lat, RunOutcome};
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

impl RunError {
    /// Exit code (DESIGN.md policy).
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Files(e) => e.exit_code(),
            RunError::Plan { .. } => crate::exit::INVALID,
            RunError::Engine { .. } => crate::exit::ENVIRONMENT,
            RunError::Io { .. } | RunError::Verify { .. } | RunError::MinRate { .. } => {
                crate::exit::FAILED
            }
            RunError::Refused { .. } => crate::exit::ENVIRONMENT,
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
            _ => 0,
        }
    }
}

/// Sampling period of `--plot` throughput series.
pub const PLOT_PERIOD: std::time::Duration = std::time::Duration::from_millis(250);

/// Sum of the live counters of every thread: [read bytes, written bytes, reads, writes].
fn live_sum(lives: &[Live]) -> [u64; 4] {
    let mut sum = [0u64; 4];
    for l in lives {
        for (k, x) in sum.iter_mut().enumerate() {
            *x += l[k].load(Ordering::Relaxed);
        }
    }
    sum
}

/// A `--plot` sample: I/O completed since `prev` (live counter sums), over `dur_s`
/// seconds ending `t_s` seconds after the run started.
pub fn plot_sample(
    sum: &[u64; 4],
    prev: &[u64; 4],
    dur_s: f64,
    t_s: f64,
) -> crate::result::Sample {
    crate::result::Sample {
        t_s,
        dur_s,
        read_bytes: sum[0].saturating_sub(prev[0]),
        written_bytes: sum[1].saturating_sub(prev[1]),
        reads: sum[2].saturating_sub(prev[2]),
        writes: sum[3].saturating_sub(prev[3]),
    }
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

/// Run every job of `cmd`: lay out files, then each stonewall group in turn, its jobs'
/// threads concurrently. `note` receives progress lines (for stderr), `warn` warnings.
pub fn execute(
    cmd: &FioCommand,
    stop: &AtomicBool,
    note: &(dyn Fn(String) + Sync),
) -> Result<RunOutcome, RunError> {
    let clock = crate::run::clock();
    // groups of job indices, split at stonewall
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, j) in cmd.jobs.iter().enumerate() {
        if groups.is_empty() || (j.stonewall && i > 0) {
            groups.push(Vec::new());
        }
        if let Some(g) = groups.last_mut() {
            g.push(i);
        }
    }
    // each engine's availability (io_uring permission), checked once before any file
    // is touched (issue 3 item 1)
    let kinds = cmd.jobs.iter().map(engine_of).collect::<Result<Vec<Kind>, _>>()?;
    let mut seen: Vec<Kind> = Vec::new();
    for (j, &k) in cmd.jobs.iter().zip(&kinds) {
        if seen.contains(&k) {
            continue;
        }
        seen.push(k);
        if let Err(e) = k.available() {
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
    }
    // device safety: every job that writes is checked before any file is created
    for (j, k) in cmd.jobs.iter().zip(&kinds) {
        let policy = crate::files::guard::WritePolicy {
            allow_destructive: cmd.allow_destructive_write.clone(),
            allow_mounted_write: j.allow_mounted_write,
            readonly: j.readonly,
        };
        for t in 0..j.numjobs {
            let files = files_for(j, t)?;
            // mmap maps files read-write, so it opens them with write access too
            let writes = j.rw.writes() || j.rw.trims() || k.caps().maps_files;
            dataset::guard(&files.0, writes, &policy)?;
            if !k.caps().no_io {
                dataset::check_generated(&files.0, writes)?;
            }
            if let Some(spec) = crate::run::fio::log::LogSpec::of(j) {
                spec.check(&j.name, t, Path::new(".")).map_err(|source| {
                    FilesError::Output {
                        what: "log file",
                        source,
                    }
                })?;
            }
            if j.hipri {
                dataset::check_polling(&files.0)?;
            }
        }
        // NUMA nodes named by the job must exist here
        let root = crate::probe::Root::default();
        crate::run::fio::numa::check(j, &root).map_err(|why| RunError::Refused {
            job: j.name.clone(),
            why,
        })?;
    }
    // plans, then the checks that need no file (space, O_DIRECT, alignment), then layout
    let mut plans: Vec<Vec<Plan>> = Vec::new();
    let mut idx = 0u64;
    for j in &cmd.jobs {
        let mut ps = Vec::new();
        for t in 0..j.numjobs {
            ps.push(plan(j, t, idx)?);
            idx += 1;
        }
        plans.push(ps);
    }
    if cmd.jobs.iter().any(|j| j.control.flow > 0) {
        let flows = std::sync::Arc::new(crate::run::control::flow::Flows::default());
        plans
            .iter_mut()
            .flatten()
            .for_each(|p| p.flows = Some(flows.clone()));
    }
    crate::run::gen::zones::attach(&mut plans, note)?;
    crate::run::gen::sprandom::prepare(&mut plans)?;
    let checks: Vec<(&[FileSpec], bool, Vec<u64>)> = cmd
        .jobs
        .iter()
        .zip(&plans)
        .zip(&kinds)
        .filter(|(_, k)| !k.caps().no_io)
        .flat_map(|((j, ps), _)| {
            let mut sizes = block_sizes(&j.bs_read);
            sizes.extend(block_sizes(&j.bs_write));
            ps.iter()
                .map(move |p| (p.files.as_slice(), j.direct, sizes.clone()))
        })
        .collect();
    dataset::preflight(&checks)?;
    // direct=1: offsets (and block sizes on block devices) against the logical block size
    for ((j, ps), k) in cmd.jobs.iter().zip(&plans).zip(&kinds) {
        if !k.caps().no_io {
            crate::run::fio::align::check(j, ps)?;
            if let Some(w) = crate::run::fio::align::rmw_warning(j, ps) {
                note(w);
            }
        }
    }
    for ((j, ps), k) in cmd.jobs.iter().zip(&plans).zip(&kinds) {
        if !j.more.x.allow_file_create && !k.caps().no_io {
            for p in ps {
                let paths: Vec<&Path> = p.files.iter().map(|f| f.path.as_path()).collect();
                crate::run::fio::errors::check_allow_create(&paths).map_err(|why| RunError::Refused {
                    job: j.name.clone(),
                    why,
                })?;
            }
        }
    }
    for ((j, ps), k) in cmd.jobs.iter().zip(&plans).zip(&kinds) {
        if k.caps().no_io {
            continue;
        }
        for p in ps {
            for m in dataset::layout(&p.files, j.rw.reads(), j.more.x.create_fsync)? {
                note(format!("{}: {m}", j.name));
            }
        }
    }
    // atomic=1: the files take RWF_ATOMIC writes of the job's sizes, checked before I/O
    for (j, ps) in cmd.jobs.iter().zip(&plans) {
        if j.more.x.atomic {
            for p in ps {
                let paths: Vec<&Path> = p.files.iter().map(|f| f.path.as_path()).collect();
                crate::run::fio::errors::check_atomic(&paths, &block_sizes(&j.bs_write)).map_err(
                    |why| RunError::Refused {
                        job: j.name.clone(),
                        why,
                    },
                )?;
            }
        }
    }
    // wait_for targets (validated to name an earlier job) and their finished threads
    let wait_idx: Vec<Option<usize>> = cmd
        .jobs
        .iter()
        .map(|j| {
            j.more
                .wait_for
                .as_ref()
                .and_then(|w| cmd.jobs.iter().position(|x| &x.name == w))
        })
        .collect();
    let done: Vec<AtomicU32> = cmd.jobs.iter().map(|_| AtomicU32::new(0)).collect();
    // reporting groups: a new one at every stonewall or new_group
    let mut report_gid = Vec::with_capacity(cmd.jobs.len());
    let mut rg = 0u32;
    for (i, j) in cmd.jobs.iter().enumerate() {
        if i > 0 && (j.stonewall || j.new_group) {
            rg += 1;
        }
        report_gid.push(rg);
    }
    let mut out = RunOutcome::default();
    let mut abort_rest = false;
    let run_t0 = std::time::Instant::now();
    let mut intervals = Vec::new();
    let mut samples = Vec::new();
    for g in &groups {
        if stop.load(Ordering::Relaxed) || abort_rest {
            break;
        }
        // one stop flag per thread, so exitall can end some threads and not others;
        // this thread coordinates: it forwards signals and applies exitall/exit_what
        let members: Vec<(usize, &Plan)> = g
            .iter()
            .flat_map(|&ji| plans[ji].iter().map(move |p| (ji, p)))
            .collect();
        let tstops: Vec<AtomicBool> = members.iter().map(|_| AtomicBool::new(false)).collect();
        let fin: Vec<AtomicBool> = members.iter().map(|_| AtomicBool::new(false)).collect();
        let lives: Vec<Live> = members.iter().map(|_| Default::default()).collect();
        // steady-state detectors (run/control/steady.rs) read the live counters too
        let member_jobs: Vec<&FioJob> = members.iter().map(|&(ji, _)| &cmd.jobs[ji]).collect();
        let member_gids: Vec<u32> = members.iter().map(|&(ji, _)| report_gid[ji]).collect();
        let mut steadies = crate::run::control::steady::detectors(&member_jobs, &member_gids);
        let group_t0 = std::time::Instant::now();
        let use_live = cmd.status_interval.is_some() || cmd.plot.is_some() || !steadies.is_empty();
        let results: Vec<(usize, Result<JobStats, RunError>)> = std::thread::scope(|s| {
            let mut hs = Vec::new();
            for (i, &(ji, p)) in members.iter().enumerate() {
                let clock = &clock;
                let done = &done;
                let (tstop, fin) = (&tstops[i], &fin[i]);
                let live = use_live.then_some(&lives[i]);
                let wait = wait_idx[ji].map(|t| (&done[t], cmd.jobs[t].numjobs));
                // flow weights count from the group's start to each thread's end
                let c = &cmd.jobs[ji].control;
                let flow = p
                    .flows
                    .as_ref()
                    .filter(|_| c.flow > 0)
                    .map(|f| (f, c.flow_id, c.flow));
                if let Some((f, id, w)) = flow {
                    f.reserve(id, w);
                }
                hs.push((
                    ji,
                    s.spawn(move || {
                        let r = start_thread(p, clock, tstop, note, wait, live);
                        if let Some((f, id, w)) = flow {
                            f.release(id, w);
                        }
                        done[ji].fetch_add(1, Ordering::Release);
                        fin.store(true, Ordering::Release);
                        r
                    }),
                ));
            }
            let mut handled = vec![false; members.len()];
            let mut last = (std::time::Instant::now(), [0u64; 4]);
            let mut last_plot = (std::time::Instant::now(), [0u64; 4]);
            loop {
                if cmd.plot.is_some() && last_plot.0.elapsed() >= PLOT_PERIOD {
                    let sum = live_sum(&lives);
                    samples.push(plot_sample(
                        &sum,
                        &last_plot.1,
                        last_plot.0.elapsed().as_secs_f64(),
                        run_t0.elapsed().as_secs_f64(),
                    ));
                    last_plot = (std::time::Instant::now(), sum);
                }
                if let Some(every) = cmd.status_interval {
                    if last.0.elapsed() >= every {
                        let mut sum = [0u64; 4];
                        for l in &lives {
                            for (k, x) in sum.iter_mut().enumerate() {
                                *x += l[k].load(Ordering::Relaxed);
                            }
                        }
                        let dur = last.0.elapsed().as_secs_f64();
                        let iv = status_sample(&sum, &last.1, dur, run_t0.elapsed().as_secs_f64());
                        note(status_line(&iv, sum[2] - last.1[2], sum[3] - last.1[3]));
                        intervals.push(iv);
                        last = (std::time::Instant::now(), sum);
                    }
                }
                let el = group_t0.elapsed();
                for (watch, d) in steadies.iter_mut().filter(|(_, d)| d.due(el)) {
                    let mut sum = [0u64; 4];
                    for &k in watch.iter() {
                        let l = &lives[k];
                        let v = |i: usize| l[i].load(Ordering::Relaxed);
                        sum[0] += v(2) + v(3);
                        sum[1] += v(0) + v(1);
                        sum[2] += v(4);
                        sum[3] += v(5);
                    }
                    if d.check(el, sum) {
                        // steady state attained: the job (or its reporting group) stops
                        watch
                            .iter()
                            .for_each(|&k| tstops[k].store(true, Ordering::Relaxed));
                    }
                }
                let all_done = fin.iter().all(|f| f.load(Ordering::Acquire));
                if stop.load(Ordering::Relaxed) {
                    tstops.iter().for_each(|t| t.store(true, Ordering::Relaxed));
                }
                for (i, &(ji, _)) in members.iter().enumerate() {
                    let job = &cmd.jobs[ji];
                    if handled[i] || !job.more.exitall || !fin[i].load(Ordering::Acquire) {
                        continue;
                    }
                    handled[i] = true;
                    for (k, &(jk, _)) in members.iter().enumerate() {
                        let hit = match job.more.exit_what {
                            ExitWhat::Group => report_gid[jk] == report_gid[ji],
                            ExitWhat::Stonewall | ExitWhat::All => true,
                        };
                        if hit {
                            tstops[k].store(true, Ordering::Relaxed);
                        }
                    }
                    if job.more.exit_what == ExitWhat::All {
                        abort_rest = true;
                    }
                }
                if all_done {
                    if cmd.plot.is_some() {
                        // the tail since the last sample, so the samples add up to the run
                        let sum = live_sum(&lives);
                        if sum != last_plot.1 {
                            samples.push(plot_sample(
                                &sum,
                                &last_plot.1,
                                last_plot.0.elapsed().as_secs_f64(),
                                run_t0.elapsed().as_secs_f64(),
                            ));
                        }
                    }
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            hs.into_iter()
                .map(|(ji, h)| {
                    let r = h.join().unwrap_or_else(|_| {
                        Err(RunError::Plan {
                            job: cmd.jobs[ji].name.clone(),
                            why: "worker thread panicked".into(),
                        })
                    });
                    (ji, r)
                })
                .collect()
        });
        let mut merged: Vec<JobStats> = Vec::new();
        for (i, (ji, r)) in results.into_iter().enumerate() {
            let mut st = r?;
            st.groupid = report_gid[ji];
            if let Some((_, d)) = steadies.iter().find(|(w, _)| w.contains(&i)) {
                st.steady = Some(d.report());
            }
            if cmd.jobs[ji].group_reporting {
                match merged.iter_mut().find(|m| m.groupid == st.groupid) {
                    Some(m) => m.merge(&st),
                    None => merged.push(st),
                }
            } else {
                out.jobs.push(st);
            }
        }
        out.jobs.extend(merged);
    }
    out.interrupted = stop.load(Ordering::Relaxed);
    out.intervals = intervals;
    out.samples = samples;
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
        }
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
