//! The `run` command of `fileio`: checks and opens the file set, starts the worker
//! threads (run/sysbench/thread.rs) and, on the main thread, keeps the schedule — it
//! releases the workers through a barrier, then sleeps on a condition variable until
//! all workers finish or the next interval line, checkpoint, sample or forced-shutdown
//! deadline is due (no polling on the timed path) — then prints sysbench's report and
//! iomark's notes and writes the result into the outputs its front end declared
//! (`--json`, `--plot`), through the front end's [`Emit`] hook.

use crate::files::fileset;
use crate::job::sysbench::{Fileio, Geometry};
use crate::job::thread::Pace;
use crate::probe::diagnosis::Diagnosis;
use crate::probe::{pagecache, Root};
use crate::result::job::EffectiveJob;
use crate::result::{self, Interval, JobInfo, Recorded, RunResult, Status, Threads, Warning};
use crate::run::sampler::Sampler;
use crate::run::signals::Signals;
use crate::run::sysbench::gen::Generator;
use crate::run::sysbench::header;
use crate::run::sysbench::rng::{GlibcRandom, Xoroshiro128Plus};
use crate::run::sysbench::shared::{RateQueue, Shared};
use crate::run::sysbench::thread::thread;
use crate::run::sysbench::{failed_before_start, geometry, say_interrupted, Emit};
use crate::stats::job::JobStats;
use crate::stats::{new_hist, percentile_ns};
use crate::util::console::level;
use crate::util::console::Console;
use crate::util::error::exit;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Printed (stderr) and kept in the JSON warnings when `--file-io-mode=mmap` meets
/// `--file-extra-flags=direct`: the mapping is served by the page cache regardless.
const MMAP_DIRECT_WARNING: &str = "iomark: WARNING: --file-io-mode=mmap reads and writes through the page cache: --file-extra-flags=direct does not bypass it (O_DIRECT only affects read/write calls); results may come from RAM";

/// The builder's inputs of a fileio run (its job and file set, how it ended).
pub(super) fn inputs(
    job: &Fileio,
    threads: Threads,
    status: Status,
    error: Option<String>,
    seed_used: u32,
) -> result::Inputs {
    let mut i = result::Inputs::new("fileio", &job.settings.argv, status);
    i.error = error;
    i.summary = JobInfo::of_fileio(job, seed_used);
    let percentile = job.settings.percentile;
    i.recorded = Recorded::fileio(EffectiveJob::of_fileio(job), threads, percentile);
    i
}

/// The file set opened for a run, and what was known of the target before it.
struct Ready {
    g: Geometry,
    files: Vec<std::fs::File>,
    root: Root,
    diag: Diagnosis,
    before: pagecache::Before,
    /// mmap with O_DIRECT asked: still served by the page cache
    mmap_direct: bool,
    /// the run goes through the page cache
    buffered: bool,
    /// bytes of the set that are holes or unwritten extents, in a mode that reads
    unwritten: Option<u64>,
    /// the device view's readings at the start (probe/devstat.rs)
    watch: crate::probe::devstat::Watch,
}

/// How the run ended: the first failure's lines, the signal's exit code, the seed.
struct End {
    failure: Option<Vec<String>>,
    signal: Option<i32>,
    seed: u32,
}

/// What the main thread kept while the workers ran.
#[derive(Default)]
struct Ran {
    snap: Option<Threads>,
    intervals: Vec<Interval>,
    forced: bool,
    unfinished: usize,
    sampler: Option<Sampler>,
    /// the rates of each sample, for a live view (`--progress`, mark's bar)
    live: Option<Arc<crate::run::sampler::LiveRates>>,
}

/// `run`: the exit code, and the run's RunResult with what its recorder measured when
/// `keep` asks for them (`mark`, which reads them in memory). The reports are rendered by `emit` and the result is
/// written into the outputs it declared (`--json`, checked and its write rehearsed;
/// `--plot`); an output that cannot be written is its FATAL line and exit 1 unless the
/// run ends with another code.
pub(super) fn run(
    job: &Fileio,
    console: &Arc<Console>,
    signals: &Signals,
    emit: &dyn Emit,
    (keep, live): (bool, Option<Arc<crate::run::sampler::LiveRates>>),
) -> (i32, Option<(RunResult, Recorded)>) {
    let r = match ready(job, console, emit) {
        Ok(r) => r,
        Err(code) => return (code, None),
    };
    let fds: Vec<i32> = r.files.iter().map(|f| f.as_raw_fd()).collect();
    console.line(level::NOTICE, "Initializing worker threads...");
    console.line(level::NOTICE, "");
    let mut ran = Ran::default();
    let shown = super::progress::wanted(&job.settings).then(|| {
        let l = live.clone().unwrap_or_default();
        let b = super::progress::run_line(&job.model, &l);
        console.set_live(Some(b.clone()));
        (l, b)
    });
    ran.live = live.or_else(|| shown.as_ref().map(|(l, _)| l.clone()));
    // a live line reads the recorders while the run goes on
    let sh = shared(job, r.g, ran.live.is_some(), console, signals);
    let seed_used = if job.settings.rand_seed != 0 {
        job.settings.rand_seed as u32
    } else {
        now_seed()
    };
    let code = workers(job, &sh, &fds, seed_used, (console, emit), &mut ran);
    super::progress::done(console, shown.map(|(_, b)| b));
    // many hosts (src/ranks/): this rank's I/O ended; the others hear of it now
    crate::ranks::ended(
        sh.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some(),
    );
    let Some(snap) = ran.snap.take() else {
        // no final snapshot: the workers could not start (exit 3) or nothing ran
        let code = if code == exit::OK { exit::FAILED } else { code };
        return (code, None);
    };
    let end = End {
        failure: sh.failure.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        signal: signals.exit_code(),
        seed: seed_used,
    };
    // many hosts (src/ranks/): rank 0 reports the aggregate of every rank
    let inputs = end_inputs(job, &r, snap, &end, &mut ran);
    let recorded = keep.then(|| inputs.recorded.clone());
    let rr = crate::ranks::conclude(inputs);
    let silent = report_unless_silent(job, (console, emit), &rr, &end, &ran);
    let lost_output = !emit.save(&rr, true, console);
    keep_history(job, &rr, console);
    let kept = recorded.map(|rec| (rr, rec));
    drop(r.files);
    if ran.forced {
        // sysbench's code of a forced shutdown, nothing more printed
        return (exit::INVALID, kept);
    }
    if end.failure.is_some() {
        return (sh.fail_code.load(Ordering::SeqCst), kept);
    }
    if !silent {
        say_interrupted(
            console,
            signals,
            "the report above covers the part of the run before the signal",
        );
    }
    let code = match end.signal {
        Some(s) => s,
        None if lost_output && code == exit::OK => exit::FAILED,
        None => code,
    };
    (code, kept)
}

/// The report and iomark's notes after it, unless the `sysbench` persona's run ended by
/// a worker's failure or a signal: sysbench 1.0.20 prints no report after a failure (its
/// `sb_globals.error`), nor once a signal ends it (it dies of the signal:
/// cli::fileio::end_as_sysbench). Whether they were left out.
fn report_unless_silent(
    job: &Fileio,
    (console, emit): (&Console, &dyn Emit),
    rr: &RunResult,
    end: &End,
    ran: &Ran,
) -> bool {
    let silent = job.settings.sysbench_only && (end.failure.is_some() || end.signal.is_some());
    if !silent {
        print_report(job, (console, emit), rr, end.failure.is_some(), ran);
        notes_after(job, rr, (console, emit), end);
    }
    silent
}

/// Check the job, print sysbench's headers, open the file set and look at the target
/// (diagnosis, page cache); a failure before the start is reported (`--json` too).
fn ready(job: &Fileio, console: &Console, emit: &dyn Emit) -> Result<Ready, i32> {
    let g = geometry(job, console)?;
    if job.settings.test_mode.is_none() {
        console.line(
            level::FATAL,
            "FATAL: Missing required argument: --file-test-mode",
        );
        return Err(exit::FAILED);
    }
    if !job.model.thread.dir.is_dir() {
        console.line(
            level::FATAL,
            &format!(
                "FATAL: --file-dir={} is not an existing directory",
                job.model.thread.dir.display()
            ),
        );
        return Err(exit::ENVIRONMENT);
    }
    let model = &job.model;
    if model.thread.direct {
        if let Err(f) = fileset::direct_preflight(model, &g) {
            return Err(failed_before_start(job, console, &f, emit));
        }
    }
    for l in header::header_general(&job.settings, model) {
        console.line(level::NOTICE, &l);
    }
    for l in header::header_fileio(model, &g) {
        console.line(level::NOTICE, &l);
    }
    let files = fileset::open_for_run(model, &g, job.settings.threads, |l| {
        // iomark's own notices are notes: `--notes=off` leaves sysbench's lines alone
        if l.starts_with("iomark: ") {
            if job.settings.notes {
                console.err(&l)
            }
        } else {
            console.line(level::DEBUG, &l)
        }
    })
    .map_err(|f| failed_before_start(job, console, &f, emit))?;
    let root = Root::default();
    let diag = crate::probe::diagnosis::diagnose(
        &root,
        &crate::probe::diagnosis::Inputs {
            path: crate::files::dir_name(&job.model.thread.dir),
            working_set_bytes: Some(g.total),
            direct_io: job.model.thread.direct,
            ..Default::default()
        },
    );
    let before = pagecache::before(&root, &job.model.thread.dir);
    let (mmap_direct, buffered, reads) =
        cache_notes(model, job.settings.notes, console, &g, &before);
    let unwritten = reads.then(|| {
        (0..g.files)
            .filter_map(|i| {
                let p = fileset::path(&job.model.thread.dir, i);
                crate::files::preflight::unwritten_bytes(&p, &[(0, g.file_size)])
            })
            .sum()
    });
    // the device view, through the one root a run's device is described by
    let watch = crate::probe::devstat::Watch::of_path(&Root::of_samples(), &job.model.thread.dir);
    Ok(Ready {
        watch,
        g,
        files,
        root,
        diag,
        before,
        mmap_direct,
        buffered,
        unwritten,
    })
}

/// Whether the run of `model` (the job in the one job model) is an mmap run opened
/// with O_DIRECT, buffered, and reads; says so before the run when that matters and
/// `notes` are on (the mmap note, the fits-in-RAM warning).
fn cache_notes(
    model: &crate::job::model::Job,
    notes: bool,
    console: &Console,
    g: &Geometry,
    before: &pagecache::Before,
) -> (bool, bool, bool) {
    let (t, w) = (&model.thread, &model.work);
    // mmap copies through the page cache whatever the open flags say (O_DIRECT only
    // affects read/write calls), so an mmap run is a buffered run for the notes
    let mmap = t.engine == crate::util::engines::Kind::Mmap;
    let mmap_direct = mmap && t.direct;
    let buffered = !t.direct || mmap;
    if notes && mmap_direct {
        console.err(MMAP_DIRECT_WARNING);
    }
    let reads = w.pick.rw.reads();
    let s = &t.syncs;
    let synced = w.syncs.series_every > 0 || s.at_end || s.each_write || t.sync || t.dsync;
    let used = crate::result::truth::CacheUse {
        reads,
        unsynced_writes: t.writes && !synced,
        hint: crate::result::truth::direct_hint("fileio"),
    };
    if notes
        && buffered
        && before.memory_fs.is_none()
        && pagecache::fits_in_ram(g.total, before.mem_total)
    {
        if let Some(line) =
            header::fits_in_ram_warning(g.total, before.mem_total.unwrap_or(0), used)
        {
            console.err(&line);
        }
    }
    (mmap_direct, buffered, reads)
}

/// The state the workers and the main thread share.
fn shared(
    job: &Fileio,
    g: Geometry,
    watched: bool,
    console: &Arc<Console>,
    signals: &Signals,
) -> Shared {
    let model = &job.model;
    let threads = job.settings.threads as usize;
    let live = watched
        || job.settings.report_interval > 0
        || job.settings.samples
        || !job.settings.report_checkpoints.is_empty()
        || job.settings.forced_shutdown.is_some();
    let paced = matches!(model.thread.pace, Pace::Shared { .. });
    Shared {
        gen: Mutex::new(Generator::new(model, g)),
        model: model.clone(),
        geom: g,
        reads_done: AtomicU64::new(0),
        writes_done: AtomicU64::new(0),
        events_started: AtomicU64::new(0),
        stop: Arc::clone(&signals.stop),
        start: OnceLock::new(),
        stats: (0..threads)
            .map(|_| Mutex::new(JobStats::thread(live && job.settings.report_interval > 0)))
            .collect(),
        in_event: (0..threads).map(|_| AtomicBool::new(false)).collect(),
        failure: Mutex::new(None),
        fail_code: std::sync::atomic::AtomicI32::new(exit::FAILED),
        console: Arc::clone(console),
        rate: paced.then(RateQueue::default),
        running: Mutex::new(threads),
        finished: Condvar::new(),
        pool_extra: 1 << 20,
        clock: crate::run::clock(),
        live_stats: live,
        marks_events: job.settings.forced_shutdown.is_some(),
        hist_draw: job.settings.percentile > 0,
        debug: job.settings.debug,
    }
}

fn now_seed() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_secs() as u32)
}

/// Start the worker threads (one RNG each from sysbench's seeder, then the `--rate`
/// arrivals' own), release them together, keep the schedule until they finish; the
/// exit code of the schedule (exit 2 at a forced shutdown).
fn workers(
    job: &Fileio,
    sh: &Shared,
    fds: &[i32],
    seed: u32,
    (console, emit): (&Console, &dyn Emit),
    ran: &mut Ran,
) -> i32 {
    let threads = job.settings.threads as usize;
    let mut seeder = GlibcRandom::new(seed);
    let rngs: Vec<Xoroshiro128Plus> = (0..threads)
        .map(|_| Xoroshiro128Plus::from_glibc(&mut seeder))
        .collect();
    let rate_rng = Xoroshiro128Plus::from_glibc(&mut seeder);
    let barriers = [Barrier::new(threads + 1), Barrier::new(threads + 1)];
    let gate = Gate::default();
    std::thread::scope(|s| {
        let mut handles = vec![];
        for (tid, rng) in rngs.into_iter().enumerate() {
            let (barrier, fds, gate) = (&barriers, fds.to_vec(), &gate);
            let spawned = std::thread::Builder::new()
                .name(format!("iomark-w{tid}"))
                .spawn_scoped(s, move || {
                    if gate.wait() {
                        thread(sh, tid, rng, barrier, fds)
                    }
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    console.line(
                        level::FATAL,
                        &format!("FATAL: cannot start worker thread: {e}"),
                    );
                    // the workers spawned so far return at once: the scope can end
                    gate.release(false);
                    return exit::ENVIRONMENT;
                }
            }
        }
        gate.release(true);
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
            s.spawn(move || arrivals(sh, q, start, rate_rng));
        }
        let code = schedule(job, sh, start, (console, emit), ran);
        if code != exit::OK {
            return code;
        }
        for h in handles {
            let _ = h.join();
        }
        exit::OK
    })
}

/// Holds each spawned worker until all are spawned: released to run, or to return at
/// once when a spawn failed (the start barriers wait for every worker, so a worker
/// must not reach them unless all exist).
#[derive(Default)]
struct Gate {
    go: Mutex<Option<bool>>,
    cv: Condvar,
}

impl Gate {
    /// Wait for [`Gate::release`]; whether to run.
    fn wait(&self) -> bool {
        let mut go = self.go.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(g) = *go {
                return g;
            }
            go = self.cv.wait(go).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn release(&self, run: bool) {
        *self.go.lock().unwrap_or_else(|e| e.into_inner()) = Some(run);
        self.cv.notify_all();
    }
}

/// The `--rate` arrivals: exponential gaps of mean `1/rate` s from the start, each
/// queued at its due time; a full queue fails the run (the workers cannot keep up).
fn arrivals(sh: &Shared, q: &RateQueue, start: Instant, mut rng: Xoroshiro128Plus) {
    let Pace::Shared { events } = sh.model.thread.pace else {
        return;
    };
    let rate = events as f64;
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

/// When the main thread has something to do next.
struct Due {
    interval: Option<Instant>,
    last_interval: Instant,
    checkpoints: std::iter::Peekable<std::vec::IntoIter<Instant>>,
    forced_at: Option<Instant>,
    /// start of the current checkpoint segment
    seg_start: Instant,
}

impl Due {
    fn new(job: &Fileio, start: Instant) -> Due {
        let secs = Duration::from_secs;
        Due {
            interval: (job.settings.report_interval > 0)
                .then(|| start + secs(job.settings.report_interval)),
            last_interval: start,
            checkpoints: job
                .settings
                .report_checkpoints
                .iter()
                .map(|c| start + secs(*c))
                .collect::<Vec<_>>()
                .into_iter()
                .peekable(),
            forced_at: job
                .settings
                .forced_shutdown
                .map(|f| start + secs(job.time_limit() + f)),
            seg_start: start,
        }
    }

    /// The earliest of the next interval, checkpoint, forced shutdown and sample.
    fn next(&mut self, sample: Option<Instant>) -> Instant {
        let mut wake = Instant::now() + Duration::from_secs(3600);
        let times = [
            self.interval,
            self.checkpoints.peek().copied(),
            self.forced_at,
            sample,
        ];
        for t in times.into_iter().flatten() {
            wake = wake.min(t);
        }
        wake
    }
}

/// The main schedule: interval lines, checkpoints, samples, forced shutdown, until
/// every worker has finished; then the final snapshot.
fn schedule(
    job: &Fileio,
    sh: &Shared,
    start: Instant,
    (console, emit): (&Console, &dyn Emit),
    ran: &mut Ran,
) -> i32 {
    let mut due = Due::new(job, start);
    if job.settings.samples || ran.live.is_some() {
        let mut smp = Sampler::new(start, crate::run::sampler::period_for(job.time_limit()));
        if job.settings.samples {
            let dir = std::slice::from_ref(&job.model.thread.dir);
            smp = smp.with_probes(crate::run::sampler::Probes::new(&Root::of_samples(), dir));
        }
        if let Some(l) = &ran.live {
            l.clear();
            smp = smp.with_live(l.clone());
        }
        ran.sampler = Some(smp);
    }
    let mut running = sh.running.lock().unwrap_or_else(|e| e.into_inner());
    while *running > 0 {
        let wake = due.next(ran.sampler.as_ref().map(Sampler::due));
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
        if due.forced_at.is_some_and(|f| now >= f) {
            ran.forced = true;
            ran.unfinished = sh
                .in_event
                .iter()
                .filter(|b| b.load(Ordering::Relaxed))
                .count();
            ran.snap = Some(snapshot(sh, start, due.seg_start, false));
            sh.stop.store(true, Ordering::SeqCst);
            return exit::INVALID;
        }
        if let Some(smp) = ran.sampler.as_mut().filter(|s| now >= s.due()) {
            smp.take_from(&sh.stats, now);
        }
        if due.interval.is_some_and(|t| now >= t) {
            interval_line(job, sh, start, now, &mut due, console, ran);
        }
        if due.checkpoints.peek().is_some_and(|t| now >= *t) {
            due.checkpoints.next();
            let snap = snapshot(sh, start, due.seg_start, true);
            if let Some(smp) = ran.sampler.as_mut() {
                smp.counters_reset();
            }
            due.seg_start = now;
            console.line(
                level::NOTICE,
                &format!(
                    "[ {}s ] Checkpoint report:",
                    (now - start).as_secs_f64().round() as u64
                ),
            );
            let r = result::build(inputs(job, snap, Status::Ok, None, 0));
            console.block(level::NOTICE, &emit.report(&r));
        }
        running = sh.running.lock().unwrap_or_else(|e| e.into_inner());
    }
    drop(running);
    if let Some(smp) = ran.sampler.as_mut() {
        smp.finish_from(&sh.stats, Instant::now());
    }
    ran.snap = Some(snapshot(sh, start, due.seg_start, false));
    exit::OK
}

/// One `--report-interval` line (and its RunResult interval) over every thread.
fn interval_line(
    job: &Fileio,
    sh: &Shared,
    start: Instant,
    now: Instant,
    due: &mut Due,
    console: &Console,
    ran: &mut Ran,
) {
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
    let dur = (now - due.last_interval).as_secs_f64();
    due.last_interval = now;
    let p = percentile_ns(&h, f64::from(job.settings.percentile.max(1)));
    let elapsed = (now - start).as_secs_f64();
    console.line(
        level::NOTICE,
        &super::progress::interval_line(
            elapsed,
            dur,
            bytes.0,
            bytes.1,
            bytes.2,
            p,
            job.settings.percentile,
        ),
    );
    ran.intervals.push(Interval {
        t_s: elapsed,
        dur_s: dur,
        read_bytes: bytes.0,
        written_bytes: bytes.1,
        fsyncs: bytes.2,
        percentile: job.settings.percentile,
        lat_pct_ns: p,
    });
    due.interval = due
        .interval
        .map(|t| t + Duration::from_secs(job.settings.report_interval));
}

/// Every thread's statistics now (settled, stats/job.rs), for the period since
/// `seg_start` (`reset`: and start them again from zero, at a checkpoint).
fn snapshot(sh: &Shared, start: Instant, seg_start: Instant, reset: bool) -> Threads {
    let now = Instant::now();
    let threads: Vec<JobStats> = sh
        .stats
        .iter()
        .map(|m| {
            let mut t = m.lock().unwrap_or_else(|e| e.into_inner());
            match reset {
                true => t.take().settled(),
                false => t.settled(),
            }
        })
        .collect();
    Threads {
        period_s: (now - seg_start).as_secs_f64(),
        total_time_s: (now - start).as_secs_f64(),
        threads,
        percentile: 0,
    }
}

/// sysbench's report (with the partial report after a failure, which sysbench omits).
fn print_report(
    job: &Fileio,
    (console, emit): (&Console, &dyn Emit),
    r: &RunResult,
    failed: bool,
    ran: &Ran,
) {
    if ran.forced {
        console.line(
            level::FATAL,
            "FATAL: The --max-time limit has expired, forcing shutdown...",
        );
    }
    if failed {
        // sysbench prints no report after a FATAL; iomark adds the partial one, after the
        // error, so the work done before the failure is not lost (failed I/O not counted).
        console.line(level::NOTICE, "");
        console.line(
            level::NOTICE,
            "iomark: the run failed; the report below counts only the I/O completed before the failure:",
        );
        console.block(level::NOTICE, &emit.report(r));
        return;
    }
    if !ran.forced {
        console.line(level::INFO, "Done.");
        console.line(level::INFO, "");
    }
    if job.settings.histogram {
        console.block(level::FATAL, &emit.histogram(r));
    }
    console.block(level::NOTICE, &emit.report(r));
    if ran.forced && ran.unfinished > 0 {
        console.line(
            level::NOTICE,
            &format!(
                "Number of unfinished transactions on forced shutdown: {}",
                ran.unfinished
            ),
        );
    }
    if job.settings.debug {
        for l in emit.threads(r).lines() {
            console.line(level::DEBUG, l);
        }
    }
}

/// iomark's notes after the report (none after a failure): a result above the
/// device's ceiling, then the notes block (page cache, the end-of-test fsync).
fn notes_after(job: &Fileio, rr: &RunResult, (console, emit): (&Console, &dyn Emit), end: &End) {
    if end.failure.is_some() {
        return;
    }
    if let Some(w) = rr
        .warnings
        .iter()
        .find(|w| w.id == crate::result::truth::ABOVE_CEILING)
    {
        let line = format!("iomark: {}", w.message);
        note_line(job, console, &line);
    }
    if job.settings.notes {
        for l in emit.notes(rr).lines() {
            note_line(job, console, l);
        }
    }
}

/// One line of iomark's notes: on stdout after the report (none under the `sysbench`
/// persona, whose output is sysbench's alone).
fn note_line(job: &Fileio, console: &Console, line: &str) {
    if !job.settings.sysbench_only {
        console.line(level::NOTICE, line);
    }
}

/// How the run ended.
fn status_of(ran: &Ran, end: &End) -> Status {
    if ran.forced {
        Status::ForcedShutdown
    } else if end.failure.is_some() {
        Status::Failed
    } else if end.signal.is_some() {
        Status::Interrupted
    } else {
        Status::Ok
    }
}

/// The builder's inputs of the run's RunResult (reported, written to `--json`, drawn
/// for `--plot`; built by `ranks::conclude`): the snapshot, the page-cache check, the
/// ceiling check, warnings, the target's diagnosis and the samples.
fn end_inputs(job: &Fileio, r: &Ready, snap: Threads, end: &End, ran: &mut Ran) -> result::Inputs {
    let sum = |f: fn(&JobStats) -> u64| snap.threads.iter().map(f).sum::<u64>();
    let (read, written) = (sum(|t| t.read.bytes), sum(|t| t.write.bytes));
    let check = pagecache::after(&r.root, &r.before, r.g.total, r.buffered, read, written);
    let t = snap.period_s.max(f64::MIN_POSITIVE);
    let ceiling = r.diag.ceiling.as_ref();
    let exceeded = crate::result::truth::exceeds_ceiling(
        read as f64 / t / 1e6,
        written as f64 / t / 1e6,
        ceiling.map(|c| c.raw_mb_s),
        ceiling.map_or("", |c| c.set_by.as_str()),
    );
    let error = end.failure.as_ref().map(|l| l.join("\n"));
    let mut i = inputs(job, snap, status_of(ran, end), error, end.seed);
    i.intervals = std::mem::take(&mut ran.intervals);
    // a sampler only for the live view adds no series
    if let Some(smp) = ran.sampler.take().filter(|_| job.settings.samples) {
        i.sample_period_s = smp.period.as_secs_f64();
        i.sample_sources = smp.sources();
        i.samples = smp.samples;
    }
    let w = |id: &str, message: String| Warning {
        id: id.into(),
        message,
    };
    if r.mmap_direct {
        let m = MMAP_DIRECT_WARNING.trim_start_matches("iomark: WARNING: ");
        i.warnings
            .push(w("page_cache.mmap_ignores_direct", m.into()));
    }
    // fits_in_ram, memory targets, holes, unsynced writes: result/truth.rs
    if let Some(m) = exceeded {
        i.warnings.push(w(crate::result::truth::ABOVE_CEILING, m));
    }
    i.targets = vec![r.diag.clone()];
    i.device_view = Some(r.watch.finish());
    i.page_cache = Some(pagecache::PageCacheCheck {
        unwritten_bytes: r.unwritten,
        ..check
    });
    i
}

/// Keep a completed result in the results history (files/history.rs; not `mark`'s
/// tests, not with `--history=off`) and say so on stderr, where sysbench's report is
/// not.
fn keep_history(job: &Fileio, rr: &RunResult, console: &Console) {
    let on = job.settings.history && rr.status == crate::result::Status::Ok;
    let name = crate::result::history::name(rr, std::process::id());
    if let Some(line) = crate::files::history::keep(&name, &result::json_bytes(rr), on) {
        console.err(&line);
    }
}
