//! The threads of one `fileio` run: the state they share with the main thread
//! ([`Shared`]: the generator, completed counts, the `--events` budget, statistics,
//! the first failure), the `--rate` queue, and each thread's start — the same as a
//! `run` job thread's (run/worker/thread.rs: private descriptor table, the registry's
//! engine), then the worker loop under sysbench's rules (run/worker/sysbench.rs).

use crate::engine::buffers::{AlignedBuf, Slab};
use crate::engine::registry::{self, Drive, Kind, Refused, Spec};
use crate::engine::{Engine, IoErr};
use crate::files::strerror;
use crate::job::sysbench::{DataPattern, FileioJob, Geometry, IoMode, TestMode};
use crate::run::sysbench::gen::Generator;
use crate::run::sysbench::rng::Xoroshiro128Plus;
use crate::run::worker::sysbench::SysbenchRules;
use crate::run::worker::thread::{depth_on, registered};
use crate::stats::clock::Clock;
use crate::stats::job::JobStats;
use crate::util::console::Console;
use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Capacity of the `--rate` event queue (sysbench's 131072).
pub const RATE_QUEUE_CAP: usize = 131_072;

/// Arrival times of open-loop (`--rate`) events.
pub struct RateQueue {
    q: Mutex<VecDeque<Instant>>,
    cv: Condvar,
}

impl Default for RateQueue {
    fn default() -> Self {
        RateQueue {
            q: Mutex::new(VecDeque::new()),
            cv: Condvar::new(),
        }
    }
}

impl RateQueue {
    /// Add an arrival; false when the queue is full.
    pub fn push(&self, t: Instant) -> bool {
        let mut q = self.q.lock().unwrap_or_else(|e| e.into_inner());
        if q.len() >= RATE_QUEUE_CAP {
            return false;
        }
        q.push_back(t);
        self.cv.notify_one();
        true
    }
    /// Take the oldest arrival, waiting until one exists, `stop` is set or `deadline`;
    /// the ns waited are added to `waited` (one clock reading when the queue is found
    /// empty, one when the wait ends; none when an arrival is there).
    pub fn pop(
        &self,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        waited: &mut u64,
    ) -> Option<Instant> {
        let mut q = self.q.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = q.pop_front() {
            return Some(t);
        }
        let t0 = Instant::now();
        let got = self.wait_pop(q, stop, deadline);
        *waited += t0.elapsed().as_nanos() as u64;
        got
    }

    /// The waiting part of [`RateQueue::pop`], the queue locked and empty at first.
    fn wait_pop(
        &self,
        mut q: std::sync::MutexGuard<'_, VecDeque<Instant>>,
        stop: &AtomicBool,
        deadline: Option<Instant>,
    ) -> Option<Instant> {
        loop {
            if let Some(t) = q.pop_front() {
                return Some(t);
            }
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let mut wait = Duration::from_millis(20);
            if let Some(d) = deadline {
                let now = Instant::now();
                if now >= d {
                    return None;
                }
                wait = wait.min(d - now);
            }
            q = self
                .cv
                .wait_timeout(q, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
    /// Wake every waiting worker.
    pub fn wake_all(&self) {
        self.cv.notify_all();
    }
}

/// State shared by the workers and the main thread.
pub struct Shared {
    /// the job
    pub job: FileioJob,
    /// its geometry
    pub geom: Geometry,
    /// its test mode
    pub mode: TestMode,
    /// the global request generator
    pub gen: Mutex<Generator>,
    /// completed reads (rndrw rule)
    pub reads_done: AtomicU64,
    /// completed writes (rndrw rule)
    pub writes_done: AtomicU64,
    /// events started (the `--events` budget)
    pub events_started: AtomicU64,
    /// stop request (signal, failure, forced shutdown)
    pub stop: std::sync::Arc<AtomicBool>,
    /// benchmark start, set by the main thread before releasing the workers
    pub start: OnceLock<Instant>,
    /// per-thread statistics
    pub stats: Vec<Mutex<JobStats>>,
    /// per-thread "inside an event" flags (forced-shutdown accounting)
    pub in_event: Vec<AtomicBool>,
    /// first failure, with its message lines
    pub failure: Mutex<Option<Vec<String>>>,
    /// exit code of that failure (1, or 3 when the environment refused, e.g. no ring)
    pub fail_code: std::sync::atomic::AtomicI32,
    /// console
    pub console: std::sync::Arc<Console>,
    /// `--rate` queue
    pub rate: Option<RateQueue>,
    /// workers still running
    pub running: Mutex<usize>,
    /// signalled when a worker finishes
    pub finished: Condvar,
    /// bytes per random-data pool
    pub pool_extra: usize,
    /// the latency clock
    pub clock: Clock,
    /// record into `stats` on every event (interval lines, checkpoints and forced
    /// shutdown read them while the run goes on); otherwise each worker records
    /// privately and publishes at its end
    pub live_stats: bool,
}

impl Shared {
    /// Deadline of the time limit, if any.
    pub fn deadline(&self) -> Option<Instant> {
        let start = *self.start.get()?;
        (self.job.time_limit > 0).then(|| start + Duration::from_secs(self.job.time_limit))
    }

    /// Record the first failure and stop everyone.
    pub fn fail(&self, lines: Vec<String>) {
        let mut f = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if f.is_none() {
            for l in &lines {
                self.console.line(0, l);
            }
            *f = Some(lines);
        }
        self.stop.store(true, Ordering::SeqCst);
        if let Some(q) = &self.rate {
            q.wake_all();
        }
    }
}

/// The errno part of a FATAL line: `errno = 5 (Input/output error)`.
pub fn errno_text(e: IoErr) -> String {
    match e {
        IoErr::Errno(n) => format!("errno = {n} ({})", strerror(n)),
        IoErr::Short { done } => format!("short transfer of {done} bytes (errno = 0)"),
    }
}

/// The engine of `--file-io-mode`.
pub fn engine_kind(mode: IoMode) -> Kind {
    match mode {
        IoMode::Sync => Kind::Psync,
        IoMode::Async => Kind::IoUring,
        IoMode::Mmap => Kind::Mmap,
    }
}

/// One worker thread: its own descriptor table, buffers (one per slot, plus the write
/// pool, registered after them), the engine of `--file-io-mode` over `fds`, then the
/// worker loop. It waits at `barriers[0]` when ready and at `barriers[1]` for the start
/// signal, so the main thread can print `Threads started!` and set the start time in
/// between.
pub fn thread(
    sh: &Shared,
    tid: usize,
    rng: Xoroshiro128Plus,
    barriers: &[Barrier; 2],
    fds: Vec<RawFd>,
) {
    let job = &sh.job;
    let kind = engine_kind(job.io_mode);
    crate::run::worker::thread::enter(kind.caps());
    let depth = if kind.caps().queued {
        job.async_backlog as usize
    } else {
        1
    };
    let req_len = sh.geom.request.max(sh.geom.block) as usize;
    let slab = Slab::new(depth, req_len);
    // Write source: zeros or a random pool, never overwritten by reads.
    let pool_len = if job.data == DataPattern::Random {
        req_len + sh.pool_extra
    } else {
        req_len
    };
    let mut pool = AlignedBuf::new(pool_len);
    if job.data == DataPattern::Random {
        rng.clone().fill(pool.as_mut_slice());
    }
    let bufs = registered(&slab, &[&pool]);
    sh.console
        .line(5, &format!("DEBUG: Worker thread (#{tid}) started"));
    let mut spec = Spec::new(kind, fds, depth, &bufs);
    // the submission that fills the queue waits for a completion in the same call:
    // the event waits for a free slot right after it anyway
    spec.ring.wait_when_full = true;
    spec.ring.reap_max = job.reap_max;
    spec.map_len = sh.geom.file_size as usize;
    let d = ThreadDrive {
        sh,
        tid,
        rng,
        barriers,
        slab: &slab,
        pool: &mut pool,
        pool_len,
        depth,
    };
    if let Err(r) = registry::build(spec, d) {
        let msg = match r {
            Refused::Ring(e) => crate::engine::io_uring::unavailable_reason(&e),
            Refused::Map(e) => format!("mmap failed: {e:?}"),
            Refused::Aio(e) => crate::engine::libaio::setup_why(&e, depth),
            Refused::Path(e) => format!("path setup failed: {e:?}"),
            Refused::Donor(e) => format!("donor file setup failed: {e:?}"),
            Refused::Program(e) => format!("program could not be started: {e}"),
            Refused::Net(f) => format!(
                "net setup failed: {}: {}",
                f.what,
                crate::files::strerror(f.errno)
            ),
        };
        sh.fail_code
            .store(crate::util::error::exit::ENVIRONMENT, Ordering::SeqCst);
        sh.fail(vec![format!("FATAL: {msg}")]);
        barriers[0].wait();
        barriers[1].wait();
        finish(sh);
    }
}

/// A worker thread once its engine is built: the start barriers, the loop, and its
/// statistics handed to the main thread.
struct ThreadDrive<'s> {
    sh: &'s Shared,
    tid: usize,
    rng: Xoroshiro128Plus,
    barriers: &'s [Barrier; 2],
    slab: &'s Slab,
    pool: &'s mut AlignedBuf,
    pool_len: usize,
    depth: usize,
}

impl Drive for ThreadDrive<'_> {
    type Out = ();
    fn drive<E: Engine>(self, eng: &mut E) {
        let sh = self.sh;
        sh.console.line(
            5,
            &format!("DEBUG: Worker thread (#{}) initialized", self.tid),
        );
        self.barriers[0].wait();
        self.barriers[1].wait();
        let depth = depth_on::<E>(self.depth);
        let mut rules =
            SysbenchRules::new(sh, self.tid, self.rng, (self.pool, self.pool_len), depth);
        let mut io = crate::run::worker::Io::new(eng, self.slab, &sh.clock, depth);
        // a failure is recorded in `sh` (its lines and exit code)
        let _ = crate::run::worker::run(&mut io, &mut rules);
        if !sh.live_stats {
            *sh.stats[self.tid].lock().unwrap_or_else(|e| e.into_inner()) =
                std::mem::take(&mut rules.local);
        }
        finish(sh);
    }
}

/// A worker thread is done: the main thread may report.
fn finish(sh: &Shared) {
    let mut r = sh.running.lock().unwrap_or_else(|e| e.into_inner());
    *r = r.saturating_sub(1);
    sh.finished.notify_all();
}
