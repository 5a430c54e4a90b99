//! Executes a validated fileio job: `prepare`, `run`, `cleanup` in the order given,
//! printing sysbench's output through the console. Returns the process exit code.
//!
//! `run` owns the main thread's schedule: it releases the workers through a barrier,
//! then sleeps on a condition variable until all workers finish or the next interval
//! line, checkpoint or forced-shutdown deadline is due. No polling sits on the timed path.

pub mod gen;
pub mod rng;
pub mod thread;

use crate::run::sysbench::gen::Generator;
use crate::run::sysbench::thread::{engine_kind, thread, RateQueue, Shared};
use crate::run::sysbench::rng::{GlibcRandom, Xoroshiro128Plus};
use crate::run::signals::Signals;
use crate::cli::fileio::level;
use crate::exit;
use crate::job::sysbench::{Command, FileioJob, Geometry, IoMode};
use crate::probe::{pagecache, Root};
use crate::report::console::Console;
use crate::result::{self, Interval, RunResult, Status};
use crate::report::{notes, sysbench};
use crate::stats::{new_hist, percentile_ns, Snapshot, ThreadStats};
use crate::files::fileset;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Execute every command of `job`; returns the exit code.
///
/// When `prepare` is among the commands and `--file-dir` does not exist, the directory
/// is created (one level: its parent must exist); it is removed again, when empty,
/// after a `cleanup` in the same call or a failure. A `--json` file is checked before
/// any command runs, and with `--file-io-mode=async` io_uring is probed before anything is
/// written (exit 3 when denied). When a signal interrupts `prepare` or `run`, or either
/// fails (exit 1 or 3), a `cleanup` asked for later in the same call still runs (the exit
/// code stays the failure's).
pub fn execute(job: &FileioJob, console: &Arc<Console>) -> i32 {
    let signals = Signals::install();
    // io_uring is checked before anything is written (no `prepare`, no --json placeholder,
    // no --file-dir): a denied ring would otherwise only be found after `prepare`.
    if job.io_mode == IoMode::Async && job.commands.contains(&Command::Run) {
        if let Err(msg) = crate::engine::io_uring::probe() {
            console.line(level::FATAL, &format!("FATAL: {msg}"));
            return exit::ENVIRONMENT;
        }
    }
    if let Some(p) = &job.json {
        if !job.commands.contains(&Command::Run) {
            console.err("iomark: WARNING: --json writes the result of 'run'; no 'run' command was given, so no JSON file is written");
        } else if let Err(e) = result::write_atomic(
            p,
            &serde_json::json!({"schema_version": result::SCHEMA_VERSION, "tool": "iomark", "status": "running"}),
        ) {
            console.line(
                level::FATAL,
                &format!("FATAL: cannot write --json={}: {e}", p.display()),
            );
            return exit::ENVIRONMENT;
        }
    }
    if let Some(d) = job
        .plot
        .as_ref()
        .filter(|_| job.commands.contains(&Command::Run))
    {
        if let Err(e) = crate::report::svg_plot::ensure_dir(d) {
            console.line(level::FATAL, &format!("FATAL: {e}"));
            return exit::ENVIRONMENT;
        }
    }
    let mut created_dir = false;
    if job.commands.contains(&Command::Prepare) && !job.dir.exists() {
        if let Err(e) = std::fs::create_dir(&job.dir) {
            console.line(
                level::FATAL,
                &format!(
                    "FATAL: cannot create --file-dir={}: {e} (its parent directory must exist)",
                    job.dir.display()
                ),
            );
            return exit::ENVIRONMENT;
        }
        created_dir = true;
    }
    let code = execute_commands(job, console, &signals);
    // remove_dir only removes an empty directory: a failed call leaves no directory it created.
    if created_dir && (job.commands.last() == Some(&Command::Cleanup) || code != exit::OK) {
        let _ = std::fs::remove_dir(&job.dir);
    }
    code
}

fn execute_commands(job: &FileioJob, console: &Arc<Console>, signals: &Signals) -> i32 {
    let mut code = exit::OK;
    for cmd in &job.commands {
        if code != exit::OK {
            // Interrupted or failed: only a cleanup the user asked for still runs
            // (not after invalid input: nothing was written then).
            if *cmd != Command::Cleanup || code == exit::INVALID {
                continue;
            }
        }
        let c = match cmd {
            Command::Help => exit::OK,
            Command::Prepare => prepare(job, console, signals),
            Command::Run => run(job, console, signals),
            Command::Cleanup => {
                console.line(level::NOTICE, "Removing test files...");
                fileset::cleanup(&job.dir, job.file_num);
                exit::OK
            }
        };
        if code == exit::OK {
            code = c;
            if code == exit::OK {
                if let Some(sig) = signals.exit_code() {
                    code = sig;
                }
            }
        }
    }
    code
}

/// Tell the user on stderr that a signal cut `what` short.
fn say_interrupted(console: &Console, signals: &Signals, what: &str) {
    if let Some(c) = signals.exit_code() {
        let name = if c == exit::SIGTERM {
            "SIGTERM"
        } else {
            "SIGINT"
        };
        console.err(&format!("iomark: interrupted by {name}: {what} (exit {c})"));
    }
}

fn geometry(job: &FileioJob, console: &Console) -> Result<Geometry, i32> {
    job.geometry().map_err(|e| {
        console.line(level::FATAL, &format!("FATAL: {e}"));
        exit::INVALID
    })
}

fn print_failure(console: &Console, f: &fileset::Failure) -> i32 {
    for l in &f.lines {
        let lvl = if l.starts_with("WARNING") {
            level::WARNING
        } else {
            level::FATAL
        };
        console.line(lvl, l);
    }
    f.code
}

fn prepare(job: &FileioJob, console: &Console, signals: &Signals) -> i32 {
    let g = match geometry(job, console) {
        Ok(g) => g,
        Err(c) => return c,
    };
    if let Err(f) = fileset::prepare_preflight(job, &g) {
        return print_failure(console, &f);
    }
    console.line(level::NOTICE, &sysbench::prepare_summary(&g));
    if g.rounded() {
        console.line(
            level::NOTICE,
            &format!(
                "NOTE: per-file size rounded down to whole {}-byte blocks: {} bytes per file instead of {}; {} files = {} bytes ({}) in total (the line above is sysbench's, in its rounded units)",
                g.block,
                g.file_size,
                g.raw_file_size,
                g.files,
                g.total,
                crate::job::values::iec(g.total)
            ),
        );
    }
    console.line(level::NOTICE, "Creating files for the test...");
    console.line(
        level::NOTICE,
        &format!("Extra file open flags: {}", job.extra_flags.describe()),
    );
    let mut out = |l: String| console.line(level::NOTICE, &l);
    match fileset::prepare(job, &g, &mut out, &signals.stop) {
        Ok(p) => {
            console.line(level::NOTICE, &sysbench::prepare_done(p.bytes, p.seconds));
            say_interrupted(console, signals, "prepare stopped early; the files written so far are kept and the next 'prepare' extends them");
            signals.exit_code().unwrap_or(exit::OK)
        }
        Err(f) => print_failure(console, &f),
    }
}

/// Print a failure that happened before the workers started and, with `--json`, leave
/// a `failed` RunResult (zero counts, the error text) instead of the placeholder.
fn failed_before_start(
    job: &FileioJob,
    g: &Geometry,
    console: &Console,
    f: &fileset::Failure,
) -> i32 {
    let code = print_failure(console, f);
    if let Some(p) = &job.json {
        let empty = Snapshot {
            period_s: 0.0,
            total_time_s: 0.0,
            threads: vec![],
        };
        let engine = engine_kind(job.io_mode).name();
        let r = result::from_snapshot(
            job,
            result::job_info(job, Some(g), engine, 0),
            &empty,
            Status::Failed,
            Some(f.lines.join("\n")),
            vec![],
        );
        if let Err(e) = result::write_atomic(p, &r) {
            console.line(
                level::FATAL,
                &format!("FATAL: cannot write --json={}: {e}", p.display()),
            );
        }
    }
    code
}

fn now_seed() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_secs() as u32)
}

fn snapshot(sh: &Shared, start: Instant, seg_start: Instant, reset: bool) -> Snapshot {
    let now = Instant::now();
    let threads: Vec<ThreadStats> = sh
        .stats
        .iter()
        .map(|m| {
            let mut t = m.lock().unwrap_or_else(|e| e.into_inner());
            if reset {
                t.take()
            } else {
                t.clone()
            }
        })
        .collect();
    Snapshot {
        period_s: (now - seg_start).as_secs_f64(),
        total_time_s: (now - start).as_secs_f64(),
        threads,
    }
}

fn run(job: &FileioJob, console: &Arc<Console>, signals: &Signals) -> i32 {
    let g = match geometry(job, console) {
        Ok(g) => g,
        Err(c) => return c,
    };
    let Some(mode) = job.test_mode else {
        console.line(
            level::FATAL,
            "FATAL: Missing required argument: --file-test-mode",
        );
        return exit::FAILED;
    };
    if !job.dir.is_dir() {
        console.line(
            level::FATAL,
            &format!(
                "FATAL: --file-dir={} is not an existing directory",
                job.dir.display()
            ),
        );
        return exit::ENVIRONMENT;
    }
    if job.extra_flags.direct {
        if let Err(f) = fileset::direct_preflight(job, &g) {
            return failed_before_start(job, &g, console, &f);
        }
    }
    for l in sysbench::header_general(job) {
        console.line(level::NOTICE, &l);
    }
    for l in sysbench::header_fileio(job, &g, mode) {
        console.line(level::NOTICE, &l);
    }
    let files = match fileset::open_for_run(job, &g, mode, |l| console.line(level::DEBUG, &l)) {
        Ok(f) => f,
        Err(f) => return failed_before_start(job, &g, console, &f),
    };
    let root = Root::default();
    let diag = crate::probe::diagnosis::diagnose(
        &root,
        &crate::probe::diagnosis::Inputs {
            path: fileset::dir_name(&job.dir),
            working_set_bytes: Some(g.total),
            direct_io: job.extra_flags.direct,
            ..Default::default()
        },
    );
    let before = pagecache::before(&root, &job.dir);
    // mmap copies through the page cache whatever the open flags say (O_DIRECT only
    // affects read/write calls), so an mmap run is a buffered run for the notes
    let mmap_direct = job.io_mode == IoMode::Mmap && job.extra_flags.direct;
    let buffered = !job.extra_flags.direct || job.io_mode == IoMode::Mmap;
    if job.notes && mmap_direct {
        console.err(MMAP_DIRECT_WARNING);
    }
    if job.notes
        && buffered
        && before.memory_fs.is_none()
        && pagecache::fits_in_ram(g.total, before.mem_total)
    {
        console.err(&notes::fits_in_ram_warning(
            g.total,
            before.mem_total.unwrap_or(0),
        ));
    }
    let fds: Vec<i32> = files.iter().map(|f| f.as_raw_fd()).collect();
    console.line(level::NOTICE, "Initializing worker threads...");
    console.line(level::NOTICE, "");
    let threads = job.threads as usize;
    let live = job.report_interval > 0
        || job.samples
        || !job.report_checkpoints.is_empty()
        || job.forced_shutdown.is_some();
    let sh = Shared {
        job: job.clone(),
        geom: g,
        mode,
        gen: Mutex::new(Generator::new(mode, g, job.fsync_freq, job.rw_ratio)),
        reads_done: AtomicU64::new(0),
        writes_done: AtomicU64::new(0),
        events_started: AtomicU64::new(0),
        stop: Arc::clone(&signals.stop),
        start: OnceLock::new(),
        stats: (0..threads)
            .map(|_| {
                Mutex::new(if live {
                    ThreadStats::new(job.report_interval > 0)
                } else {
                    ThreadStats::placeholder()
                })
            })
            .collect(),
        in_event: (0..threads).map(|_| AtomicBool::new(false)).collect(),
        failure: Mutex::new(None),
        fail_code: std::sync::atomic::AtomicI32::new(exit::FAILED),
        console: Arc::clone(console),
        rate: (job.rate > 0).then(RateQueue::default),
        running: Mutex::new(threads),
        finished: Condvar::new(),
        pool_extra: 1 << 20,
        clock: crate::stats::clock::Clock::new(),
        live_stats: live,
    };
    let seed_used = if job.rand_seed != 0 {
        job.rand_seed as u32
    } else {
        now_seed()
    };
    let mut seeder = GlibcRandom::new(seed_used);
    let rngs: Vec<Xoroshiro128Plus> = (0..threads)
        .map(|_| Xoroshiro128Plus::from_glibc(&mut seeder))
        .collect();
    let mut rate_rng = Xoroshiro128Plus::from_glibc(&mut seeder);
    let barriers = [Barrier::new(threads + 1), Barrier::new(threads + 1)];
    let mut intervals: Vec<Interval> = vec![];
    let mut forced = false;
    let mut unfinished = 0usize;
    let mut last_snapshot: Option<Snapshot> = None;
    let mut sampler: Option<crate::run::sampler::Sampler> = None;
    let code = std::thread::scope(|s| {
        let mut handles = vec![];
        for (tid, rng) in rngs.into_iter().enumerate() {
            let (sh, barrier, fds) = (&sh, &barriers, fds.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("iomark-w{tid}"))
                .spawn_scoped(s, move || thread(sh, tid, rng, barrier, fds));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    console.line(
                        level::FATAL,
                        &format!("FATAL: cannot start worker thread: {e}"),
                    );
                    std::process::exit(exit::ENVIRONMENT);
                }
            }
        }
        barriers[0].wait();
        if sh
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_none()
        {
            console.line(level::NOTICE, "Threads started!");
            console.line(level::NOTICE, "");
        }
        let start = Instant::now();
        let _ = sh.start.set(start);
        barriers[1].wait();
        if let Some(q) = &sh.rate {
            let (sh, rate) = (&sh, job.rate as f64);
            s.spawn(move || {
                let mut next = start;
                let deadline = sh.deadline();
                loop {
                    let u = rate_rng.next_f64();
                    next += Duration::from_secs_f64(-(1.0 - u).ln() / rate);
                    if deadline.is_some_and(|d| next >= d) || sh.stop.load(Ordering::Relaxed) {
                        break;
                    }
                    // Sleep until the arrival time, re-checking stop every 50 ms at most.
                    while Instant::now() < next && !sh.stop.load(Ordering::Relaxed) {
                        std::thread::sleep((next - Instant::now()).min(Duration::from_millis(50)));
                    }
                    if *sh.running.lock().unwrap_or_else(|e| e.into_inner()) == 0 {
                        break;
                    }
                    if !q.push(next) {
                        sh.fail(vec!["FATAL: The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate".into()]);
                        break;
                    }
                }
                q.wake_all();
            });
        }
        // Main schedule: interval lines, checkpoints, forced shutdown.
        let mut seg_start = start;
        let mut next_interval =
            (job.report_interval > 0).then(|| start + Duration::from_secs(job.report_interval));
        let mut last_interval = start;
        let mut checkpoints = job
            .report_checkpoints
            .iter()
            .map(|c| start + Duration::from_secs(*c))
            .collect::<Vec<_>>()
            .into_iter()
            .peekable();
        let forced_at = job
            .forced_shutdown
            .map(|f| start + Duration::from_secs(job.time_limit + f));
        if job.samples {
            sampler = Some(crate::run::sampler::Sampler::new(
                start,
                crate::run::sampler::period_for(job.time_limit),
            ));
        }
        let mut running = sh.running.lock().unwrap_or_else(|e| e.into_inner());
        while *running > 0 {
            let mut wake = Instant::now() + Duration::from_secs(3600);
            let next_sample = sampler.as_ref().map(|s| s.due());
            for t in [
                next_interval,
                checkpoints.peek().copied(),
                forced_at,
                next_sample,
            ]
            .into_iter()
            .flatten()
            {
                wake = wake.min(t);
            }
            let now = Instant::now();
            if wake > now {
                running = sh
                    .finished
                    .wait_timeout(running, wake - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                continue;
            }
            drop(running);
            let now = Instant::now();
            if forced_at.is_some_and(|f| now >= f) {
                forced = true;
                unfinished = sh
                    .in_event
                    .iter()
                    .filter(|b| b.load(Ordering::Relaxed))
                    .count();
                last_snapshot = Some(snapshot(&sh, start, seg_start, false));
                sh.stop.store(true, Ordering::SeqCst);
                return exit::INVALID;
            }
            if let Some(smp) = sampler.as_mut().filter(|s| now >= s.due()) {
                smp.take(&sh.stats, now);
            }
            if next_interval.is_some_and(|t| now >= t) {
                let mut bytes = (0u64, 0u64, 0u64);
                let mut h = new_hist();
                for m in &sh.stats {
                    if let Some(i) = m.lock().unwrap_or_else(|e| e.into_inner()).take_interval() {
                        bytes.0 += i.bytes_read;
                        bytes.1 += i.bytes_written;
                        bytes.2 += i.fsyncs;
                        let _ = h.add(&i.hist);
                    }
                }
                let dur = (now - last_interval).as_secs_f64();
                last_interval = now;
                let p = percentile_ns(&h, f64::from(job.percentile.max(1)));
                let elapsed = (now - start).as_secs_f64();
                console.line(
                    level::NOTICE,
                    &sysbench::interval_line(
                        elapsed,
                        dur,
                        bytes.0,
                        bytes.1,
                        bytes.2,
                        p,
                        job.percentile,
                    ),
                );
                intervals.push(Interval {
                    t_s: elapsed,
                    dur_s: dur,
                    read_bytes: bytes.0,
                    written_bytes: bytes.1,
                    fsyncs: bytes.2,
                    percentile: job.percentile,
                    lat_pct_ns: p,
                });
                next_interval = next_interval.map(|t| t + Duration::from_secs(job.report_interval));
            }
            if checkpoints.peek().is_some_and(|t| now >= *t) {
                checkpoints.next();
                let snap = snapshot(&sh, start, seg_start, true);
                if let Some(smp) = sampler.as_mut() {
                    smp.counters_reset();
                }
                seg_start = now;
                console.line(
                    level::NOTICE,
                    &format!(
                        "[ {}s ] Checkpoint report:",
                        (now - start).as_secs_f64().round() as u64
                    ),
                );
                console.block(level::NOTICE, &sysbench::report(&snap, job.percentile));
            }
            running = sh.running.lock().unwrap_or_else(|e| e.into_inner());
        }
        drop(running);
        if let Some(smp) = sampler.as_mut() {
            smp.finish(&sh.stats, Instant::now());
        }
        let snap = snapshot(&sh, start, seg_start, false);
        for h in handles {
            let _ = h.join();
        }
        last_snapshot = Some(snap);
        exit::OK
    });
    let Some(snap) = last_snapshot else {
        return exit::FAILED;
    };
    let failure = sh.failure.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let engine = engine_kind(job.io_mode).name();
    let signal = signals.exit_code();
    let status = if forced {
        Status::ForcedShutdown
    } else if failure.is_some() {
        Status::Failed
    } else if signal.is_some() {
        Status::Interrupted
    } else {
        Status::Ok
    };
    if forced {
        console.line(
            level::FATAL,
            "FATAL: The --max-time limit has expired, forcing shutdown...",
        );
    }
    if failure.is_none() {
        if !forced {
            console.line(level::INFO, "Done.");
            console.line(level::INFO, "");
        }
        if job.histogram {
            console.block(
                level::FATAL,
                &crate::stats::sysbench_hist::render(&snap.merged_hist()),
            );
        }
        console.block(level::NOTICE, &sysbench::report(&snap, job.percentile));
        if forced && unfinished > 0 {
            console.line(
                level::NOTICE,
                &format!("Number of unfinished transactions on forced shutdown: {unfinished}"),
            );
        }
        if job.debug {
            for l in sysbench::debug_threads(&snap) {
                console.line(level::DEBUG, &l);
            }
        }
    } else {
        // sysbench prints no report after a FATAL; iomark adds the partial one, after the
        // error, so the work done before the failure is not lost (failed I/O not counted).
        console.line(level::NOTICE, "");
        console.line(
            level::NOTICE,
            "iomark: the run failed; the report below counts only the I/O completed before the failure:",
        );
        console.block(level::NOTICE, &sysbench::report(&snap, job.percentile));
    }
    let check = pagecache::after(
        &root,
        &before,
        g.total,
        buffered,
        snap.sum(|t| t.bytes_read),
        snap.sum(|t| t.bytes_written),
    );
    let t = snap.period_s.max(f64::MIN_POSITIVE);
    let exceeded = notes::exceeds_ceiling(
        snap.sum(|t| t.bytes_read) as f64 / t / 1e6,
        snap.sum(|t| t.bytes_written) as f64 / t / 1e6,
        diag.ceiling.as_ref().map(|c| c.raw_mb_s),
        diag.ceiling.as_ref().map_or("", |c| c.set_by.as_str()),
    );
    if let (Some(m), true) = (&exceeded, failure.is_none()) {
        console.line(level::NOTICE, &format!("iomark: {m}"));
    }
    if job.notes && failure.is_none() {
        let mut lines = notes::page_cache_lines(&check);
        if job.fsync_end && mode.writes() && signal.is_none() {
            if lines.is_empty() {
                lines.push(notes::NOTES_HEADER.into());
            }
            let longest = snap.threads.iter().map(|t| t.end_fsync_ns).max();
            lines.push(notes::end_fsync_line(longest.unwrap_or(0)));
        }
        for l in lines {
            console.line(level::NOTICE, &l);
        }
    }
    if job.json.is_some() || job.plot.is_some() {
        let mut r: RunResult = result::from_snapshot(
            job,
            result::job_info(job, Some(&g), engine, seed_used),
            &snap,
            status,
            failure.as_ref().map(|l| l.join("\n")),
            intervals,
        );
        if mmap_direct {
            r.warnings.push(result::Warning {
                id: "page_cache.mmap_ignores_direct".into(),
                message: MMAP_DIRECT_WARNING
                    .trim_start_matches("iomark: WARNING: ")
                    .into(),
            });
        }
        if check.fits_in_ram {
            r.warnings.push(result::Warning {
                id: "page_cache.fits_in_ram".into(),
                message: notes::fits_in_ram_text(g.total, check.mem_total_bytes.unwrap_or(0)),
            });
        }
        if let Some(fs) = &check.memory_fs {
            r.warnings.push(result::Warning {
                id: "target.memory_fs".into(),
                message: format!("the file set is on {fs} (memory)"),
            });
        }
        if let Some(m) = exceeded {
            r.warnings.push(result::Warning {
                id: "RESULT_EXCEEDS_CEILING".into(),
                message: m,
            });
        }
        r.diagnosis = Some(result::TargetDiagnosis {
            summary: diag.summary.clone(),
            ceiling_raw_mb_s: diag.ceiling.as_ref().map(|c| c.raw_mb_s),
            findings: diag.findings.iter().map(|f| f.id.clone()).collect(),
        });
        r.page_cache = Some(check);
        if let (Some(series), Some(smp)) = (r.series.as_mut(), sampler.take()) {
            series.period_s = smp.period.as_secs_f64();
            series.samples = smp.samples;
        }
        if let Some(p) = &job.json {
            if let Err(e) = result::write_atomic(p, &r) {
                console.line(
                    level::FATAL,
                    &format!("FATAL: cannot write --json={}: {e}", p.display()),
                );
                return exit::ENVIRONMENT;
            }
        }
        if let Some(d) = &job.plot {
            match crate::report::svg_plot::write_plots(&r, d) {
                Ok(files) => {
                    for f in files {
                        console.line(level::NOTICE, &format!("iomark: wrote {}", f.display()));
                    }
                }
                Err(e) => {
                    console.line(level::FATAL, &format!("FATAL: --plot={}: {e}", d.display()));
                    return exit::ENVIRONMENT;
                }
            }
        }
    }
    drop(files);
    if forced {
        // Workers may be stuck in I/O: do not wait for them.
        std::process::exit(exit::INVALID);
    }
    if failure.is_some() {
        return sh.fail_code.load(Ordering::SeqCst);
    }
    say_interrupted(
        console,
        signals,
        "the report above covers the part of the run before the signal",
    );
    signal.unwrap_or(code)
}

/// Printed (stderr) and kept in the JSON warnings when `--file-io-mode=mmap` meets
/// `--file-extra-flags=direct`: the mapping is served by the page cache regardless.
const MMAP_DIRECT_WARNING: &str = "iomark: WARNING: --file-io-mode=mmap reads and writes through the page cache: --file-extra-flags=direct does not bypass it (O_DIRECT only affects read/write calls); results may come from RAM";
