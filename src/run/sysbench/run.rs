//! fileio's `run` command: checks and headers ([`setup`]), the workers and the main
//! thread's schedule ([`drive`]: it releases the workers through a barrier, then sleeps
//! on a condition variable until all workers finish or the next interval line,
//! checkpoint or forced-shutdown deadline is due; no polling sits on the timed path),
//! then the report ([`finish`]): the result is built once from the final snapshot
//! (result/build), and sysbench's report, the notes, `--json` and `--plot` are all
//! rendered from it.

use super::{geometry, print_failure, say_interrupted};
use crate::cli::fileio::level;
use crate::engine::fault::{self, Faulty};
use crate::engine::io_uring::Uring;
use crate::engine::mmap::Mmap;
use crate::engine::psync::Psync;
use crate::exit;
use crate::files::fileset;
use crate::job::sysbench::{FileioJob, Geometry, IoMode, TestMode};
use crate::probe::diagnosis::Diagnosis;
use crate::probe::{pagecache, Root};
use crate::util::console::Console;
use crate::report::output::Outputs;
use crate::report::sysbench::{SysbenchHistogram, SysbenchReport, SysbenchThreads};
use crate::report::{notes, sysbench, Reporter};
use crate::result::job::EffectiveJob;
use crate::result::{self, Interval, JobInfo, Recorded, RunResult, Status, Warning};
use crate::run::signals::Signals;
use crate::run::sysbench::gen::Generator;
use crate::run::sysbench::rng::{GlibcRandom, Xoroshiro128Plus};
use crate::run::sysbench::worker::{worker, RateQueue, Shared};
use crate::stats::{new_hist, percentile_ns, Snapshot, ThreadStats};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Printed (stderr) and kept in the JSON warnings when `--file-io-mode=mmap` meets
/// `--file-extra-flags=direct`: the mapping is served by the page cache regardless.
const MMAP_DIRECT_WARNING: &str = "iomark: WARNING: --file-io-mode=mmap reads and writes through the page cache: --file-extra-flags=direct does not bypass it (O_DIRECT only affects read/write calls); results may come from RAM";

/// The builder's inputs of a fileio run (its job and file set, how it ended).
fn inputs(
    job: &FileioJob,
    g: &Geometry,
    snapshot: Snapshot,
    status: Status,
    error: Option<String>,
    seed_used: u32,
) -> result::Inputs {
    let mut i = result::Inputs::new("fileio", &job.argv, status);
    i.error = error;
    i.summary = JobInfo::of_fileio(job, Some(g), seed_used);
    i.recorded = Recorded::Fileio {
        job: EffectiveJob::of_fileio(job, Some(g)),
        snapshot,
        percentile: job.percentile,
    };
    i
}

/// The RunResult of a `run` that stopped before its workers started (`g`: its file
/// set, when the sizes are valid): zero counts, `status` and the error text.
pub(super) fn stopped_result(
    job: &FileioJob,
    g: Option<&Geometry>,
    status: Status,
    error: String,
) -> RunResult {
    let empty = Snapshot {
        period_s: 0.0,
        total_time_s: 0.0,
        threads: vec![],
    };
    let mut i = result::Inputs::new("fileio", &job.argv, status);
    i.error = Some(error);
    i.summary = JobInfo::of_fileio(job, g, 0);
    i.recorded = Recorded::Fileio {
        job: EffectiveJob::of_fileio(job, g),
        snapshot: empty,
        percentile: job.percentile,
    };
    result::build(i)
}

/// Print a failure that happened before the workers started and, with `--json`, leave
/// a `failed` RunResult (zero counts, the error text) instead of the placeholder.
fn failed_before_start(
    job: &FileioJob,
    g: &Geometry,
    console: &Console,
    f: &fileset::Failure,
    outs: &Outputs,
) -> i32 {
    let code = print_failure(console, f);
    let r = stopped_result(job, Some(g), Status::Failed, f.lines.join("\n"));
    json_failure(console, outs, &r);
    code
}

fn make_mmap(fds: &[std::os::fd::RawFd], file_size: u64) -> Result<Mmap, String> {
    Mmap::new(fds, file_size as usize).map_err(|e| format!("mmap failed: {e:?}"))
}

fn make_uring(
    fds: Vec<std::os::fd::RawFd>,
    backlog: u32,
    bufs: &[(*mut u8, usize)],
    reap_max: usize,
) -> Result<Uring, String> {
    Uring::new(fds, backlog as usize, bufs)
        .map(|u| u.wait_when_full(true).reap_max(reap_max))
        .map_err(|e| crate::engine::io_uring::unavailable_reason(&e))
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

/// What the checks before the workers found and opened.
struct Setup {
    g: Geometry,
    mode: TestMode,
    files: Vec<File>,
    root: Root,
    diag: Diagnosis,
    before: pagecache::Before,
    /// mmap with O_DIRECT asked: the mapping still goes through the page cache
    mmap_direct: bool,
    /// the run's I/O goes through the page cache
    buffered: bool,
}

/// The checks, headers and open files of a run; `Err` is the exit code.
fn setup(job: &FileioJob, console: &Console, outs: &Outputs) -> Result<Setup, i32> {
    let g = geometry(job, console)?;
    let Some(mode) = job.test_mode else {
        console.line(
            level::FATAL,
            "FATAL: Missing required argument: --file-test-mode",
        );
        return Err(exit::FAILED);
    };
    if !job.dir.is_dir() {
        console.line(
            level::FATAL,
            &format!(
                "FATAL: --file-dir={} is not an existing directory",
                job.dir.display()
            ),
        );
        return Err(exit::ENVIRONMENT);
    }
    if job.extra_flags.direct {
        if let Err(f) = fileset::direct_preflight(job, &g) {
            return Err(failed_before_start(job, &g, console, &f, outs));
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
        Err(f) => return Err(failed_before_start(job, &g, console, &f, outs)),
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
    Ok(Setup {
        g,
        mode,
        files,
        root,
        diag,
        before,
        mmap_direct,
        buffered,
    })
}

/// The state the workers and the main thread share.
fn shared(job: &FileioJob, s: &Setup, console: &Arc<Console>, signals: &Signals) -> Shared {
    let threads = job.threads as usize;
    let live = job.report_interval > 0
        || job.samples
        || !job.report_checkpoints.is_empty()
        || job.forced_shutdown.is_some();
    Shared {
        job: job.clone(),
        geom: s.g,
        mode: s.mode,
        gen: Mutex::new(Generator::new(s.mode, s.g, job.fsync_freq, job.rw_ratio)),
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
        clock: crate::run::clock(),
        live_stats: live,
    }
}

/// Run one worker thread over the job's engine (IOMARK_FAULT, tests only, wraps it;
/// otherwise the plain engine runs with no wrapper in the loop).
fn run_worker(
    sh: &Shared,
    tid: usize,
    rng: Xoroshiro128Plus,
    barrier: &[Barrier; 2],
    fds: Vec<std::os::fd::RawFd>,
) {
    let job = &sh.job;
    let faulty = fault::enabled();
    match job.io_mode {
        IoMode::Sync if faulty => {
            worker(sh, tid, rng, barrier, |_| Ok(Faulty::new(Psync::new(fds))))
        }
        IoMode::Sync => worker(sh, tid, rng, barrier, |_| Ok(Psync::new(fds))),
        IoMode::Mmap if faulty => worker(sh, tid, rng, barrier, |_| {
            make_mmap(&fds, sh.geom.file_size).map(Faulty::new)
        }),
        IoMode::Mmap => worker(sh, tid, rng, barrier, |_| {
            make_mmap(&fds, sh.geom.file_size)
        }),
        IoMode::Async if faulty => worker(sh, tid, rng, barrier, |bufs| {
            make_uring(fds, job.async_backlog, bufs, job.reap_max).map(Faulty::new)
        }),
        IoMode::Async => worker(sh, tid, rng, barrier, |bufs| {
            make_uring(fds, job.async_backlog, bufs, job.reap_max)
        }),
    }
}

/// The arrival thread of `--rate`: events arrive at exponential intervals (Poisson)
/// until the time limit, a stop or the end of the workers.
fn rate_thread(sh: &Shared, q: &RateQueue, start: Instant, mut rng: Xoroshiro128Plus) {
    let rate = sh.job.rate as f64;
    let mut next = start;
    let deadline = sh.deadline();
    loop {
        let u = rng.next_f64();
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
}

/// What the main thread's schedule collected while the workers ran.
struct Schedule {
    start: Instant,
    seg_start: Instant,
    next_interval: Option<Instant>,
    last_interval: Instant,
    checkpoints: std::iter::Peekable<std::vec::IntoIter<Instant>>,
    forced_at: Option<Instant>,
    sampler: Option<crate::run::sampler::Sampler>,
    intervals: Vec<Interval>,
    /// `--forced-shutdown` expired
    forced: bool,
    /// events in progress at the forced shutdown
    unfinished: usize,
    last_snapshot: Option<Snapshot>,
}

impl Schedule {
    fn new(job: &FileioJob, start: Instant) -> Schedule {
        Schedule {
            start,
            seg_start: start,
            next_interval: (job.report_interval > 0)
                .then(|| start + Duration::from_secs(job.report_interval)),
            last_interval: start,
            checkpoints: job
                .report_checkpoints
                .iter()
                .map(|c| start + Duration::from_secs(*c))
                .collect::<Vec<_>>()
                .into_iter()
                .peekable(),
            forced_at: job
                .forced_shutdown
                .map(|f| start + Duration::from_secs(job.time_limit + f)),
            sampler: job.samples.then(|| {
                crate::run::sampler::Sampler::new(
                    start,
                    crate::run::sampler::period_for(job.time_limit),
                )
            }),
            intervals: vec![],
            forced: false,
            unfinished: 0,
            last_snapshot: None,
        }
    }

    /// When the main thread must wake next (at the latest in an hour).
    fn wake(&self) -> Instant {
        let mut wake = Instant::now() + Duration::from_secs(3600);
        let next_sample = self.sampler.as_ref().map(|s| s.due());
        for t in [
            self.next_interval,
            self.checkpoints.clone().next(),
            self.forced_at,
            next_sample,
        ]
        .into_iter()
        .flatten()
        {
            wake = wake.min(t);
        }
        wake
    }

    /// Do what is due at `now`; `Some(code)` ends the run (forced shutdown).
    fn tick(&mut self, sh: &Shared, console: &Console, now: Instant) -> Option<i32> {
        if self.forced_at.is_some_and(|f| now >= f) {
            self.forced = true;
            self.unfinished = sh
                .in_event
                .iter()
                .filter(|b| b.load(Ordering::Relaxed))
                .count();
            self.last_snapshot = Some(snapshot(sh, self.start, self.seg_start, false));
            sh.stop.store(true, Ordering::SeqCst);
            return Some(exit::INVALID);
        }
        if let Some(smp) = self.sampler.as_mut().filter(|s| now >= s.due()) {
            smp.take(&sh.stats, now);
        }
        if self.next_interval.is_some_and(|t| now >= t) {
            self.interval(sh, console, now);
        }
        if self.checkpoints.peek().is_some_and(|t| now >= *t) {
            self.checkpoint(sh, console, now);
        }
        None
    }

    /// One `--report-interval` line.
    fn interval(&mut self, sh: &Shared, console: &Console, now: Instant) {
        let job = &sh.job;
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
        let dur = (now - self.last_interval).as_secs_f64();
        self.last_interval = now;
        let p = percentile_ns(&h, f64::from(job.percentile.max(1)));
        let elapsed = (now - self.start).as_secs_f64();
        let line =
            sysbench::interval_line(elapsed, dur, bytes.0, bytes.1, bytes.2, p, job.percentile);
        console.line(level::NOTICE, &line);
        self.intervals.push(Interval {
            t_s: elapsed,
            dur_s: dur,
            read_bytes: bytes.0,
            written_bytes: bytes.1,
            fsyncs: bytes.2,
            percentile: job.percentile,
            lat_pct_ns: p,
        });
        self.next_interval = self
            .next_interval
            .map(|t| t + Duration::from_secs(job.report_interval));
    }

    /// A `--report-checkpoints` report: the statistics since the last one, then reset.
    fn checkpoint(&mut self, sh: &Shared, console: &Console, now: Instant) {
        self.checkpoints.next();
        let snap = snapshot(sh, self.start, self.seg_start, true);
        if let Some(smp) = self.sampler.as_mut() {
            smp.counters_reset();
        }
        self.seg_start = now;
        console.line(
            level::NOTICE,
            &format!(
                "[ {}s ] Checkpoint report:",
                (now - self.start).as_secs_f64().round() as u64
            ),
        );
        let g = sh.geom;
        let r = result::build(inputs(&sh.job, &g, snap, Status::Ok, None, 0));
        console.block(level::NOTICE, &text(&SysbenchReport, &r));
    }
}

/// A reporter's text output (the sysbench reporters never fail).
fn text(rep: &dyn Reporter, r: &RunResult) -> String {
    rep.render(r)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// The main thread's schedule after the workers are released: interval lines,
/// checkpoints, samples and the forced shutdown, until the workers finish.
fn schedule(sh: &Shared, console: &Console, sc: &mut Schedule) -> i32 {
    let mut running = sh.running.lock().unwrap_or_else(|e| e.into_inner());
    while *running > 0 {
        let wake = sc.wake();
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
        if let Some(code) = sc.tick(sh, console, Instant::now()) {
            return code;
        }
        running = sh.running.lock().unwrap_or_else(|e| e.into_inner());
    }
    drop(running);
    if let Some(smp) = sc.sampler.as_mut() {
        smp.finish(&sh.stats, Instant::now());
    }
    sc.last_snapshot = Some(snapshot(sh, sc.start, sc.seg_start, false));
    exit::OK
}

/// Spawn the workers, release them, run the schedule; the exit code and the schedule
/// (`None` when the workers never started).
fn drive(sh: &Shared, console: &Console, fds: &[i32], seed_used: u32) -> (i32, Option<Schedule>) {
    let threads = sh.job.threads as usize;
    let mut seeder = GlibcRandom::new(seed_used);
    let rngs: Vec<Xoroshiro128Plus> = (0..threads)
        .map(|_| Xoroshiro128Plus::from_glibc(&mut seeder))
        .collect();
    let rate_rng = Xoroshiro128Plus::from_glibc(&mut seeder);
    let barriers = [Barrier::new(threads + 1), Barrier::new(threads + 1)];
    std::thread::scope(|s| {
        let mut handles = vec![];
        for (tid, rng) in rngs.into_iter().enumerate() {
            let (barrier, fds) = (&barriers, fds.to_vec());
            let spawned = std::thread::Builder::new()
                .name(format!("iomark-w{tid}"))
                .spawn_scoped(s, move || run_worker(sh, tid, rng, barrier, fds));
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
        // many hosts (src/ranks/): every rank's workers are ready; the I/O starts together
        crate::ranks::start_line();
        let start = Instant::now();
        let _ = sh.start.set(start);
        barriers[1].wait();
        if let Some(q) = &sh.rate {
            s.spawn(move || rate_thread(sh, q, start, rate_rng));
        }
        let mut sc = Schedule::new(&sh.job, start);
        let code = schedule(sh, console, &mut sc);
        if code == exit::OK {
            for h in handles {
                let _ = h.join();
            }
        }
        (code, Some(sc))
    })
}

/// Run the `run` command; returns the exit code.
pub(super) fn run(
    job: &FileioJob,
    console: &Arc<Console>,
    signals: &Signals,
    outs: &Outputs,
) -> i32 {
    let s = match setup(job, console, outs) {
        Ok(s) => s,
        Err(c) => return c,
    };
    let fds: Vec<i32> = s.files.iter().map(|f| f.as_raw_fd()).collect();
    console.line(level::NOTICE, "Initializing worker threads...");
    console.line(level::NOTICE, "");
    let sh = shared(job, &s, console, signals);
    let seed_used = if job.rand_seed != 0 {
        job.rand_seed as u32
    } else {
        now_seed()
    };
    let (code, sc) = drive(&sh, console, &fds, seed_used);
    let Some(mut sc) = sc.filter(|sc| sc.last_snapshot.is_some()) else {
        return exit::FAILED;
    };
    let lost = finish(job, &s, &sh, &mut sc, signals, outs, seed_used);
    drop(s);
    if sc.forced {
        // Workers may be stuck in I/O: do not wait for them.
        std::process::exit(exit::INVALID);
    }
    if sh
        .failure
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .is_some()
    {
        return sh.fail_code.load(Ordering::SeqCst);
    }
    say_interrupted(
        console,
        signals,
        "the report above covers the part of the run before the signal",
    );
    // an output that could not be written: its FATAL line, and exit 1 unless the run
    // ends with another code
    match signals.exit_code() {
        Some(s) => s,
        None if lost && code == exit::OK => exit::FAILED,
        None => code,
    }
}

/// How the run ended.
fn status_of(forced: bool, failed: bool, signal: bool) -> Status {
    if forced {
        Status::ForcedShutdown
    } else if failed {
        Status::Failed
    } else if signal {
        Status::Interrupted
    } else {
        Status::Ok
    }
}

/// The result of the run: the snapshot, the page-cache check, the ceiling check,
/// warnings, the diagnosis and the samples.
fn result_of(
    job: &FileioJob,
    s: &Setup,
    snap: Snapshot,
    status: Status,
    failure: Option<&Vec<String>>,
    sc: &mut Schedule,
    seed_used: u32,
) -> RunResult {
    let t = snap.period_s.max(f64::MIN_POSITIVE);
    let (br, bw) = (snap.sum(|t| t.bytes_read), snap.sum(|t| t.bytes_written));
    let check = pagecache::after(&s.root, &s.before, s.g.total, s.buffered, br, bw);
    let ceiling = s.diag.ceiling.as_ref();
    let exceeded = notes::exceeds_ceiling(
        br as f64 / t / 1e6,
        bw as f64 / t / 1e6,
        ceiling.map(|c| c.raw_mb_s),
        ceiling.map_or("", |c| c.set_by.as_str()),
    );
    let mut i = inputs(
        job,
        &s.g,
        snap,
        status,
        failure.map(|l| l.join("\n")),
        seed_used,
    );
    i.intervals = std::mem::take(&mut sc.intervals);
    if let Some(smp) = sc.sampler.take() {
        i.sample_period_s = smp.period.as_secs_f64();
        i.samples = smp.samples;
    }
    let w = |id: &str, message: String| Warning {
        id: id.into(),
        message,
    };
    if s.mmap_direct {
        let m = MMAP_DIRECT_WARNING.trim_start_matches("iomark: WARNING: ");
        i.warnings
            .push(w("page_cache.mmap_ignores_direct", m.into()));
    }
    if check.fits_in_ram {
        let m = notes::fits_in_ram_text(s.g.total, check.mem_total_bytes.unwrap_or(0));
        i.warnings.push(w("page_cache.fits_in_ram", m));
    }
    if let Some(fs) = &check.memory_fs {
        let m = format!("the file set is on {fs} (memory)");
        i.warnings.push(w("target.memory_fs", m));
    }
    if let Some(m) = exceeded {
        i.warnings.push(w("RESULT_EXCEEDS_CEILING", m));
    }
    i.targets = vec![s.diag.clone()];
    i.page_cache = Some(check);
    result::build(i)
}

/// Print the end of the run (sysbench's report or the partial one after a failure,
/// the ceiling check, the notes) and write `--json` and `--plot`; true when an output
/// could not be written.
fn finish(
    job: &FileioJob,
    s: &Setup,
    sh: &Shared,
    sc: &mut Schedule,
    signals: &Signals,
    outs: &Outputs,
    seed_used: u32,
) -> bool {
    let console = &sh.console;
    let Some(snap) = sc.last_snapshot.take() else {
        return false;
    };
    let failure = sh.failure.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let signal = signals.exit_code();
    let status = status_of(sc.forced, failure.is_some(), signal.is_some());
    if sc.forced {
        console.line(
            level::FATAL,
            "FATAL: The --max-time limit has expired, forcing shutdown...",
        );
    }
    let r = result_of(job, s, snap, status, failure.as_ref(), sc, seed_used);
    // many hosts (src/ranks/): rank 0 reports the aggregate of every rank
    let r = crate::ranks::conclude(r);
    print_report(job, console, &r, failure.is_some(), sc);
    if failure.is_none() {
        if let Some(w) = r.warnings.iter().find(|w| w.id == "RESULT_EXCEEDS_CEILING") {
            console.line(level::NOTICE, &format!("iomark: {}", w.message));
        }
        if job.notes {
            let notes = notes::Notes.render(&r).unwrap_or_default();
            for l in String::from_utf8_lossy(&notes).lines() {
                console.line(level::NOTICE, l);
            }
        }
    }
    write_outputs(console, outs, &r)
}

/// sysbench's report of the run, or after a failure the partial one (sysbench prints
/// no report after a FATAL; iomark adds it after the error, so the work done before
/// the failure is not lost; failed I/O is not counted).
fn print_report(job: &FileioJob, console: &Console, r: &RunResult, failed: bool, sc: &Schedule) {
    if failed {
        console.line(level::NOTICE, "");
        console.line(
            level::NOTICE,
            "iomark: the run failed; the report below counts only the I/O completed before the failure:",
        );
        console.block(level::NOTICE, &text(&SysbenchReport, r));
        return;
    }
    if !sc.forced {
        console.line(level::INFO, "Done.");
        console.line(level::INFO, "");
    }
    if job.histogram {
        console.block(level::FATAL, &text(&SysbenchHistogram, r));
    }
    console.block(level::NOTICE, &text(&SysbenchReport, r));
    if sc.forced && sc.unfinished > 0 {
        console.line(
            level::NOTICE,
            &format!(
                "Number of unfinished transactions on forced shutdown: {}",
                sc.unfinished
            ),
        );
    }
    if job.debug {
        for l in text(&SysbenchThreads, r).lines() {
            console.line(level::DEBUG, l);
        }
    }
}

/// Write `--json`; on failure say so (FATAL) and return true.
pub(super) fn json_failure(console: &Console, outs: &Outputs, r: &RunResult) -> bool {
    match (outs.write_json(r), outs.json_path()) {
        (Err(e), Some(p)) => {
            let m = format!("FATAL: cannot write --json={}: {e}", p.display());
            console.line(level::FATAL, &m);
            true
        }
        _ => false,
    }
}

/// Write `--json` and `--plot`; true when one could not be written.
fn write_outputs(console: &Console, outs: &Outputs, r: &RunResult) -> bool {
    let lost = json_failure(console, outs, r);
    match outs.write_plots(r) {
        Ok(files) => {
            for f in files {
                console.line(level::NOTICE, &format!("iomark: wrote {}", f.display()));
            }
            lost
        }
        Err(e) => {
            console.line(level::FATAL, &format!("FATAL: {e}"));
            true
        }
    }
}
