//! The fileio worker loop, generic over the engine (monomorphised: no per-I/O dynamic
//! dispatch). Per event: check limits, take the next request from the shared generator,
//! time its execution, record it. Semantics follow spec/sysbench-fileio.md §8–§9:
//! an event is one read, write or periodic fsync; in async mode an event is a
//! submission (plus any wait for a free slot) and reads/writes are counted on
//! completion; the end-of-test fsync runs after in-flight requests are drained
//! (fixing bug B12) and is not an event.

use crate::run::sysbench::gen::{Generator, ReqKind, Request};
use crate::run::sysbench::rng::Xoroshiro128Plus;
use crate::run::verify;
use crate::engine::buffers::{AlignedBuf, Slab};
use crate::engine::{Completion, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::job::sysbench::{DataPattern, FileioJob, FsyncMode, Geometry, TestMode};
use crate::util::console::Console;
use crate::stats::clock::Clock;
use crate::stats::{EventKind, ThreadStats};
use crate::files::fileset::display;
use crate::files::strerror;
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
    /// Take the oldest arrival, waiting until one exists, `stop` is set or `deadline`.
    pub fn pop(&self, stop: &AtomicBool, deadline: Option<Instant>) -> Option<Instant> {
        let mut q = self.q.lock().unwrap_or_else(|e| e.into_inner());
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
    pub stats: Vec<Mutex<ThreadStats>>,
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

fn errno_text(e: IoErr) -> String {
    match e {
        IoErr::Errno(n) => format!("errno = {n} ({})", strerror(n)),
        IoErr::Short { done } => format!("short transfer of {done} bytes (errno = 0)"),
    }
}

/// Most consecutive EINTR/EAGAIN answers to one request before it counts as failed.
pub const MAX_RETRIES: u32 = 100;

/// True for the errnos a request is retried on (EINTR, EAGAIN), as fio requeues them.
fn transient(e: &IoErr) -> bool {
    matches!(e, IoErr::Errno(n) if *n == libc::EINTR || *n == libc::EAGAIN)
}

/// `submit`, retrying EINTR/EAGAIN up to [`MAX_RETRIES`] times (yielding the CPU
/// between tries); the last error is returned when they persist.
#[inline]
fn submit_retry<E: Engine>(eng: &mut E, slot: usize, io: &IoReq) -> Result<Option<usize>, IoErr> {
    let mut tries = 0;
    loop {
        match eng.submit(slot, io) {
            Err(e) if transient(&e) && tries < MAX_RETRIES => {
                tries += 1;
                std::thread::yield_now();
            }
            r => return r,
        }
    }
}

/// `sync`, retrying EINTR/EAGAIN like [`submit_retry`].
fn sync_retry<E: Engine>(eng: &mut E, file: usize, kind: SyncKind) -> Result<(), IoErr> {
    let mut tries = 0;
    loop {
        match eng.sync(file, kind) {
            Err(e) if transient(&e) && tries < MAX_RETRIES => {
                tries += 1;
                std::thread::yield_now();
            }
            r => return r,
        }
    }
}

struct Slot {
    kind: ReqKind,
    file: u32,
    offset: u64,
    len: u64,
    /// clock ticks just before submission (per-I/O completion latency)
    t_sub: u64,
}

/// One worker thread's loop. `make` builds the engine once the thread's buffers exist
/// (`(ptr, len)` of each buffer, in registered-buffer order). The worker waits at
/// `barriers[0]` when ready and at `barriers[1]` for the start signal, so the main
/// thread can print `Threads started!` and set the start time in between.
pub fn worker<E: Engine, F>(
    sh: &Shared,
    tid: usize,
    mut rng: Xoroshiro128Plus,
    barriers: &[std::sync::Barrier; 2],
    make: F,
) where
    F: FnOnce(&[(*mut u8, usize)]) -> Result<E, String>,
{
    let job = &sh.job;
    let g = &sh.geom;
    let depth = if job.io_mode == crate::job::sysbench::IoMode::Async {
        job.async_backlog as usize
    } else {
        1
    };
    let req_len = g.request.max(g.block) as usize;
    let mut slab = Slab::new(depth, req_len);
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
    let mut bufs: Vec<(*mut u8, usize)> = slab.bufs.iter().map(|b| (b.ptr(), b.len())).collect();
    bufs.push((pool.ptr(), pool.len()));
    sh.console
        .line(5, &format!("DEBUG: Worker thread (#{tid}) started"));
    let engine = make(&bufs);
    match &engine {
        Ok(_) => sh
            .console
            .line(5, &format!("DEBUG: Worker thread (#{tid}) initialized")),
        Err(msg) => {
            sh.fail_code
                .store(crate::exit::ENVIRONMENT, Ordering::SeqCst);
            sh.fail(vec![format!("FATAL: {msg}")]);
        }
    }
    barriers[0].wait();
    barriers[1].wait();
    let Ok(mut eng) = engine else {
        finish(sh);
        return;
    };
    let start = *sh
        .start
        .get()
        .expect("start is set before the barrier releases workers");
    let deadline = sh.deadline();
    let sync_kind = match job.fsync_mode {
        FsyncMode::Fsync => SyncKind::Fsync,
        FsyncMode::Fdatasync => SyncKind::Fdatasync,
    };
    let pool_slots = (pool_len - req_len) / crate::engine::buffers::ALIGN + 1;
    let hist_draw = job.percentile > 0;
    let debug = job.debug;
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut slots: Vec<Option<Slot>> = (0..depth).map(|_| None).collect();
    let mut comps: Vec<Completion> = Vec::with_capacity(depth);
    let mut stamp: u64 = 0;
    let clock = sh.clock;
    let deadline_ticks = deadline.map(|d| clock.at(d));
    let mut last = clock.at(start);
    let live = sh.live_stats;
    let track_in_event = job.forced_shutdown.is_some();
    let mut local = ThreadStats::new(false);
    let stats = &sh.stats[tid];
    if depth > 1 {
        // Queued requests: also measure each one's completion latency.
        local.enable_clat();
        if live {
            stats
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .enable_clat();
        }
    }
    'events: loop {
        if sh.stop.load(Ordering::Relaxed) {
            break;
        }
        if deadline_ticks.is_some_and(|d| last >= d) {
            sh.console.collapsible(4, "Time limit exceeded, exiting...");
            break;
        }
        if job.event_limit > 0
            && sh.events_started.fetch_add(1, Ordering::Relaxed) >= job.event_limit
        {
            sh.console
                .collapsible(4, "Event limit exceeded, exiting...");
            break;
        }
        let arrival = match &sh.rate {
            Some(q) => match q.pop(&sh.stop, deadline) {
                Some(t) => Some(t),
                None => break,
            },
            None => None,
        };
        let req: Request = {
            let mut gen = sh.gen.lock().unwrap_or_else(|e| e.into_inner());
            gen.next(
                &mut rng,
                sh.reads_done.load(Ordering::Relaxed),
                sh.writes_done.load(Ordering::Relaxed),
            )
        };
        if debug {
            sh.console.collapsible(
                5,
                &format!(
                    "DEBUG: Executing request, operation: {}, file_id: {}, pos: {}, size: {}",
                    req.kind.code(),
                    req.file,
                    req.offset,
                    req.len
                ),
            );
        }
        if track_in_event {
            sh.in_event[tid].store(true, Ordering::Relaxed);
        }
        let t0 = match arrival {
            Some(a) => clock.at(a),
            None => clock.now(),
        };
        let kind = match req.kind {
            ReqKind::Fsync => {
                if let Err(e) = sync_retry(&mut eng, req.file as usize, sync_kind) {
                    sh.fail(vec![format!(
                        "FATAL: Failed to fsync file! file: {} ({}) {}",
                        req.file,
                        display(&job.dir, req.file),
                        errno_text(e)
                    )]);
                    break 'events;
                }
                if live {
                    stats.lock().unwrap_or_else(|e| e.into_inner()).fsync_done();
                } else {
                    local.fsync_done();
                }
                EventKind::Fsync
            }
            ReqKind::Read | ReqKind::Write => {
                let Some(slot) = free.pop() else {
                    sh.fail(vec!["FATAL: internal error: no free I/O slot".into()]);
                    break 'events;
                };
                let len = req.len as usize;
                let (dir, buf, buf_index) = if req.kind == ReqKind::Read {
                    (Dir::Read, slab.bufs[slot].ptr(), slot as u16)
                } else if job.validate {
                    let b = &mut slab.bufs[slot];
                    verify::sysbench::fill(
                        &mut b.as_mut_slice()[..len],
                        req.offset,
                        g.block as usize,
                        &mut rng,
                    );
                    (Dir::Write, b.ptr(), slot as u16)
                } else {
                    let off = if pool_slots > 1 {
                        (rng.next_u64() as usize % pool_slots) * crate::engine::buffers::ALIGN
                    } else {
                        0
                    };
                    if job.data == DataPattern::Random {
                        // Stamp a per-write sequence number into every 4 KiB page so no
                        // two written blocks are identical (block-level dedup, case C07).
                        stamp = stamp.wrapping_add(1);
                        let tag = stamp ^ ((tid as u64) << 48);
                        for page in pool.as_mut_slice()[off..off + len]
                            .chunks_mut(crate::engine::buffers::ALIGN)
                        {
                            let n = page.len().min(8);
                            page[..n].copy_from_slice(&tag.to_le_bytes()[..n]);
                        }
                    }
                    // SAFETY: off + len ≤ pool_len by construction of pool_slots.
                    (Dir::Write, unsafe { pool.ptr().add(off) }, depth as u16)
                };
                let io = IoReq {
                    dir,
                    file: req.file as usize,
                    offset: req.offset,
                    len,
                    buf,
                    buf_index,
                    ioprio: 0,
                };
                let rec = if live {
                    Rec::Shared(stats)
                } else {
                    Rec::Local(&mut local)
                };
                let t_sub = if depth > 1 { clock.now() } else { 0 };
                match submit_retry(&mut eng, slot, &io) {
                    Ok(Some(n)) => {
                        free.push(slot);
                        if !complete_slot(
                            sh, &mut eng, &slab, slot, req.kind, req.file, req.offset, req.len,
                            n as i64, sync_kind, rec,
                        ) {
                            break 'events;
                        }
                    }
                    Ok(None) => {
                        slots[slot] = Some(Slot {
                            kind: req.kind,
                            file: req.file,
                            offset: req.offset,
                            len: req.len,
                            t_sub,
                        });
                        if free.is_empty()
                            && !reap(
                                sh, &mut eng, &slab, &mut slots, &mut free, &mut comps, 1,
                                sync_kind, rec,
                            )
                        {
                            break 'events;
                        }
                    }
                    Err(e) => {
                        free.push(slot);
                        let what = if dir == Dir::Read { "read" } else { "write" };
                        sh.fail(vec![format!(
                            "FATAL: Failed to {what} file! file: {} ({}) pos: {} {}",
                            req.file,
                            display(&job.dir, req.file),
                            req.offset,
                            errno_text(e)
                        )]);
                        break 'events;
                    }
                }
                if req.kind == ReqKind::Read {
                    EventKind::Read
                } else {
                    EventKind::Write
                }
            }
        };
        let t1 = clock.now();
        last = t1;
        let lat = clock.ns(t0, t1);
        if live {
            stats
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .event(kind, lat);
        } else {
            local.event(kind, lat);
        }
        if track_in_event {
            sh.in_event[tid].store(false, Ordering::Relaxed);
        }
        if hist_draw {
            // sysbench's histogram draws one random value per event (shard choice);
            // drawing it too keeps `--rand-seed` sequences identical to sysbench's.
            rng.next_u64();
        }
    }
    sh.in_event[tid].store(false, Ordering::Relaxed);
    // Drain in-flight requests before the end-of-test fsync (bug B12).
    while free.len() < depth {
        let rec = if live {
            Rec::Shared(stats)
        } else {
            Rec::Local(&mut local)
        };
        if !reap(
            sh, &mut eng, &slab, &mut slots, &mut free, &mut comps, 1, sync_kind, rec,
        ) {
            break;
        }
    }
    if job.fsync_end && sh.mode.writes() && !sh.stop.load(Ordering::Relaxed) {
        let t0 = std::time::Instant::now();
        for f in 0..g.files {
            if let Err(e) = sync_retry(&mut eng, f as usize, sync_kind) {
                sh.fail(vec![format!(
                    "FATAL: Failed to fsync file! file: {f} ({}) {}",
                    display(&job.dir, f),
                    errno_text(e)
                )]);
                break;
            }
            if live {
                stats.lock().unwrap_or_else(|e| e.into_inner()).fsync_done();
            } else {
                local.fsync_done();
            }
        }
        let ns = t0.elapsed().as_nanos() as u64;
        if live {
            stats.lock().unwrap_or_else(|e| e.into_inner()).end_fsync_ns += ns;
        } else {
            local.end_fsync_ns += ns;
        }
    }
    drop(eng);
    if !live {
        *stats.lock().unwrap_or_else(|e| e.into_inner()) = local;
    }
    finish(sh);
}

fn finish(sh: &Shared) {
    let mut r = sh.running.lock().unwrap_or_else(|e| e.into_inner());
    *r = r.saturating_sub(1);
    sh.finished.notify_all();
}

/// Where a worker records: its shared mutex (live) or a private copy.
enum Rec<'a> {
    Shared(&'a Mutex<ThreadStats>),
    Local(&'a mut ThreadStats),
}

impl Rec<'_> {
    fn with(&mut self, f: impl FnOnce(&mut ThreadStats)) {
        match self {
            Rec::Shared(m) => f(&mut m.lock().unwrap_or_else(|e| e.into_inner())),
            Rec::Local(t) => f(t),
        }
    }
}

/// Account a completed read/write: check the length, validate, count it.
#[allow(clippy::too_many_arguments)]
fn complete_slot<E: Engine>(
    sh: &Shared,
    eng: &mut E,
    slab: &Slab,
    slot: usize,
    kind: ReqKind,
    file: u32,
    offset: u64,
    len: u64,
    res: i64,
    sync_kind: SyncKind,
    mut rec: Rec<'_>,
) -> bool {
    let job = &sh.job;
    let what = if kind == ReqKind::Read {
        "read"
    } else {
        "write"
    };
    if res != len as i64 {
        let err = if res < 0 {
            IoErr::Errno(-res as i32)
        } else {
            IoErr::Short { done: res as usize }
        };
        sh.fail(vec![format!(
            "FATAL: Failed to {what} file! file: {file} ({}) pos: {offset} {}",
            display(&job.dir, file),
            errno_text(err)
        )]);
        return false;
    }
    if kind == ReqKind::Read {
        if job.validate {
            let b = &slab.bufs[slot];
            if let Err(m) = verify::sysbench::check(
                &b.as_slice()[..len as usize],
                offset,
                sh.geom.block as usize,
            ) {
                let mut lines = match m {
                    verify::sysbench::Mismatch::Checksum { offset: o, calculated, stored } => vec![
                        format!("FATAL: Checksum mismatch in block with offset: {o}"),
                        format!("FATAL:     Calculated value: 0x{calculated:x}    Stored value: 0x{stored:x}"),
                    ],
                    verify::sysbench::Mismatch::Offset { actual, stored } => {
                        vec!["FATAL: Offset mismatch in block:".into(), format!("FATAL:    Actual offset: {actual}    Stored offset: {stored}")]
                    }
                };
                lines.push(format!("FATAL: Validation failed on file {file} ({}), block offset {offset}, exiting...", display(&job.dir, file)));
                sh.fail(lines);
                return false;
            }
        }
        rec.with(|t| t.read_done(len));
        sh.reads_done.fetch_add(1, Ordering::Relaxed);
    } else {
        rec.with(|t| t.write_done(len));
        sh.writes_done.fetch_add(1, Ordering::Relaxed);
        if job.fsync_all {
            if let Err(e) = sync_retry(eng, file as usize, sync_kind) {
                sh.fail(vec![format!(
                    "FATAL: Failed to fsync file! file: {file} ({}) {}",
                    display(&job.dir, file),
                    errno_text(e)
                )]);
                return false;
            }
            rec.with(|t| t.fsync_done());
        }
    }
    true
}

#[allow(clippy::too_many_arguments)]
fn reap<E: Engine>(
    sh: &Shared,
    eng: &mut E,
    slab: &Slab,
    slots: &mut [Option<Slot>],
    free: &mut Vec<usize>,
    comps: &mut Vec<Completion>,
    min: usize,
    sync_kind: SyncKind,
    mut rec: Rec<'_>,
) -> bool {
    comps.clear();
    if let Err(e) = eng.reap(min, comps) {
        sh.fail(vec![format!(
            "FATAL: io_uring wait failed: {}",
            errno_text(e)
        )]);
        return false;
    }
    let mut ok = true;
    let now = sh.clock.now();
    for c in comps.drain(..) {
        let Some(s) = slots.get_mut(c.slot).and_then(Option::take) else {
            continue;
        };
        free.push(c.slot);
        if ok {
            let r = match &mut rec {
                Rec::Shared(m) => Rec::Shared(m),
                Rec::Local(t) => Rec::Local(t),
            };
            ok = complete_slot(
                sh, eng, slab, c.slot, s.kind, s.file, s.offset, s.len, c.res, sync_kind, r,
            );
            if ok {
                // Completion latency of a request that succeeded (failed I/O is never
                // counted): submission to the moment its completion was reaped.
                let kind = if s.kind == ReqKind::Read {
                    EventKind::Read
                } else {
                    EventKind::Write
                };
                let lat = sh.clock.ns(s.t_sub, now);
                rec.with(|t| t.clat_done(kind, lat));
            }
        }
    }
    ok
}
