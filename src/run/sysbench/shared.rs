//! What the threads of one `fileio` run share with the main thread ([`Shared`]: the
//! job in the one job model, the generator built from it, completed counts, the `--events` budget, statistics, the first
//! failure), the `--rate` queue ([`RateQueue`]) and the errno words of a FATAL line. The
//! threads' start is thread.rs, their loop under sysbench's rules run/worker/sysbench.rs;
//! both name this file, and it names neither.

use crate::engine::IoErr;
use crate::files::strerror;
use crate::job::model::Job;
use crate::job::sysbench::Geometry;
use crate::run::sysbench::gen::Generator;
use crate::stats::clock::Clock;
use crate::stats::job::JobStats;
use crate::util::console::Console;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
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
    /// each thread of the job in the one job model (sysbench's translation,
    /// job/sysbench/model.rs): what the
    /// thread starts from (`thread`: the engine of `--file-io-mode`, the backlog, the
    /// request size, the limits, the pace, the data, the syncs) and what its requests
    /// are picked by (`work`); every job-thread decision of the run reads it
    pub model: Job,
    /// the file set's geometry (the report's and the results' sizes)
    pub geom: Geometry,
    /// the global request generator, built from `model`
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
    /// workers mark when they are inside an event (`--forced-shutdown` reads the marks)
    pub marks_events: bool,
    /// sysbench's histogram draws one random value per event (`--percentile` > 0)
    pub hist_draw: bool,
    /// `--debug`: a line per request
    pub debug: bool,
}

impl Shared {
    /// Deadline of the time limit, if any.
    pub fn deadline(&self) -> Option<Instant> {
        let start = *self.start.get()?;
        self.model.thread.time.map(|t| start + t)
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
