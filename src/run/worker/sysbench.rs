//! sysbench's rules for the worker loop ([`crate::run::worker`]), one thread of
//! `iomark fileio`. Semantics follow sysbench 1.0.20: every request comes
//! from the generator all threads share behind one mutex (its RNG draws are sysbench
//! 1.0.20's, so `--rand-seed` with one thread reproduces its request sequence; with
//! `--percentile` one extra draw follows each event, as sysbench's histogram makes);
//! rndrw's read/write choice reads the counts of *completed* requests. An event is one
//! read, write or periodic fsync; in async mode it is a submission plus any wait for a
//! free slot, and reads/writes are counted on completion. `--events` is a budget over
//! all threads, `--rate` an open-loop queue of arrivals (an event's latency counts from
//! its scheduled arrival). Writes carry `--validate`'s block trailer, or a stamped page
//! of the random pool (`--file-data=random`). A failed request records the run's
//! failure and ends the events; what is in flight is then drained and counted, and the
//! end-of-test fsync (not an event) runs only after the drain (bug B12) and only when
//! nothing failed.

use crate::engine::buffers::{AlignedBuf, ALIGN};
use crate::engine::{Dir, Engine, IoErr, IoReq, SyncKind};
use crate::files::fileset::display;
use crate::job::thread::{DataPattern, FsyncMode};
use crate::run::sysbench::gen::{ReqKind, Request};
use crate::run::sysbench::rng::Xoroshiro128Plus;
use crate::run::sysbench::shared::{errno_text, Shared};
use crate::run::verify;
use crate::run::worker::{sync_retry, Io, Next, Pass, Req, Rules, Submitted, Times};
use crate::stats::job::JobStats;
use crate::stats::EventKind;
use std::sync::atomic::Ordering;

/// Most consecutive EINTR/EAGAIN answers to one request before it counts as failed.
pub const MAX_RETRIES: u32 = 100;

/// The run failed: the failure is recorded in [`Shared`] (message lines, exit code).
#[derive(Clone, Copy, Debug)]
pub struct Failed;

/// One worker thread's rules and its private state.
pub struct SysbenchRules<'s> {
    sh: &'s Shared,
    tid: usize,
    rng: Xoroshiro128Plus,
    /// write source of `--file-data`: zeros or a random pool, never overwritten by reads
    pool: &'s mut AlignedBuf,
    /// offsets of the pool a write may start at (`ALIGN` apart)
    pool_slots: usize,
    /// registered-buffer index of the pool (after the slots' buffers)
    pool_index: u16,
    /// per-write stamp of random data (no two written blocks alike, case C07)
    stamp: u64,
    /// statistics recorded privately (published at the end) unless `live`
    pub local: JobStats,
    live: bool,
    sync_kind: SyncKind,
    deadline: Option<std::time::Instant>,
    deadline_ticks: Option<u64>,
    /// tick the last event ended (the time limit is checked against it)
    last: u64,
    /// tick the current event started (its arrival with `--rate`)
    event_t0: u64,
    /// ns from the current event's `--rate` arrival to the thread taking it up (0
    /// without `--rate`): inside the event's latency, outside its service time
    event_late: u64,
    /// requests may be in flight (async): an event is a submission, and each request's
    /// completion latency is recorded too (stats/job.rs)
    queued: bool,
    /// wait for every request in flight at each reap: sysbench's libaio completes a
    /// buffered request inside `io_submit`, so by the time its full backlog is reaped
    /// every request is done and its `rndrw` rule sees them all counted; io_uring may
    /// finish a buffered write later (io-wq), so the loop waits for them (not with
    /// O_DIRECT, where sysbench's reap too takes what has completed)
    reap_all: bool,
    /// an event's end needs a clock read after its completion work
    exact_end: bool,
    track_in_event: bool,
    /// sysbench's histogram draws one random value per event
    hist_draw: bool,
    /// no more events (a limit, a stop or a failure)
    stopped: bool,
    /// a completion of the batch being accounted failed: the rest of it is not counted
    batch_failed: bool,
    /// a completion failed while draining: nothing more is counted
    drain_failed: bool,
}

impl<'s> SysbenchRules<'s> {
    /// The rules of thread `tid` (its RNG, its write pool of `pool_len` usable bytes,
    /// registered after the slots' buffers), for a loop of `depth` slots.
    pub fn new(
        sh: &'s Shared,
        tid: usize,
        rng: Xoroshiro128Plus,
        (pool, pool_len): (&'s mut AlignedBuf, usize),
        depth: usize,
    ) -> Self {
        let job = &sh.model.thread;
        let req_len = job.slot_len();
        let start = *sh
            .start
            .get()
            .expect("start is set before the barrier releases workers");
        let deadline = sh.deadline();
        let local = JobStats::thread(false);
        SysbenchRules {
            tid,
            rng,
            pool_slots: (pool_len - req_len) / ALIGN + 1,
            pool,
            pool_index: depth as u16,
            stamp: 0,
            local,
            live: sh.live_stats,
            sync_kind: match job.syncs.call {
                FsyncMode::Fsync => SyncKind::Fsync,
                FsyncMode::Fdatasync => SyncKind::Fdatasync,
            },
            deadline,
            deadline_ticks: deadline.map(|d| sh.clock.at(d)),
            last: sh.clock.at(start),
            event_t0: 0,
            event_late: 0,
            queued: depth > 1,
            reap_all: depth > 1 && !job.direct,
            exact_end: job.validate || job.syncs.each_write,
            track_in_event: sh.marks_events,
            hist_draw: sh.hist_draw,
            stopped: false,
            batch_failed: false,
            drain_failed: false,
            sh,
        }
    }

    /// Record into the shared statistics (live) or the private copy.
    #[inline(always)]
    fn rec(&mut self, f: impl FnOnce(&mut JobStats)) {
        if self.live {
            f(&mut self.sh.stats[self.tid]
                .lock()
                .unwrap_or_else(|e| e.into_inner()));
        } else {
            f(&mut self.local);
        }
    }

    /// Record the first failure (and stop every thread); this thread's events end.
    #[cold]
    fn fail(&mut self, lines: Vec<String>) {
        self.sh.fail(lines);
        self.stop();
    }

    fn stop(&mut self) {
        self.stopped = true;
        self.sh.in_event[self.tid].store(false, Ordering::Relaxed);
    }

    /// The limits checked before each event: stop, time, the `--events` budget, and
    /// the next `--rate` arrival (`None`: no more events).
    #[inline(always)]
    fn admit(&mut self) -> Option<Option<std::time::Instant>> {
        let sh = self.sh;
        if sh.stop.load(Ordering::Relaxed) {
            return None;
        }
        if self.deadline_ticks.is_some_and(|d| self.last >= d) {
            sh.console.collapsible(4, "Time limit exceeded, exiting...");
            return None;
        }
        let over = |limit| sh.events_started.fetch_add(1, Ordering::Relaxed) >= limit;
        if sh.model.thread.ios.is_some_and(over) {
            sh.console
                .collapsible(4, "Event limit exceeded, exiting...");
            return None;
        }
        match &sh.rate {
            Some(q) => {
                let mut waited = 0;
                let got = q.pop(&sh.stop, self.deadline, &mut waited);
                if waited > 0 {
                    self.rec(|t| t.wait_ns += waited);
                }
                got.map(Some)
            }
            None => Some(None),
        }
    }

    /// End of an event at tick `t1`: its latency from the event's start.
    #[inline(always)]
    fn end_event(&mut self, kind: EventKind, t1: u64) {
        self.last = t1;
        let lat = self.sh.clock.ns(self.event_t0, t1);
        let queued = self.queued;
        let late = self.event_late.min(lat);
        self.rec(|t| {
            t.event(kind, lat, queued);
            t.late(kind, late);
        });
        if self.track_in_event {
            self.sh.in_event[self.tid].store(false, Ordering::Relaxed);
        }
        if self.hist_draw {
            // sysbench's histogram draws one random value per event (shard choice);
            // drawing it too keeps `--rand-seed` sequences identical to sysbench's.
            self.rng.next_u64();
        }
    }

    /// A periodic fsync event, done here (not a request of the loop).
    fn fsync_event<E: Engine>(&mut self, eng: &mut E, file: u32) -> Next {
        if let Err(e) = sync_retry(eng, file as usize, self.sync_kind, MAX_RETRIES) {
            let job = &self.sh.model.thread;
            self.fail(vec![format!(
                "FATAL: Failed to fsync file! file: {file} ({}) {}",
                display(&job.dir, file),
                errno_text(e)
            )]);
            return Next::Break;
        }
        self.rec(JobStats::fsync_done);
        let t1 = self.sh.clock.now();
        self.end_event(EventKind::Fsync, t1);
        Next::Skip
    }

    /// The buffer a write of `len` bytes at `offset` sends (filled for it) and its
    /// registered-buffer index; a read's is the slot's own.
    #[inline(always)]
    fn write_buf(
        &mut self,
        slot_buf: *mut u8,
        offset: u64,
        len: usize,
        slot: usize,
    ) -> (*mut u8, u16) {
        let job = &self.sh.model.thread;
        if job.validate {
            // SAFETY: the slot's buffer holds a whole request and is not in flight.
            let b = unsafe { std::slice::from_raw_parts_mut(slot_buf, len) };
            verify::sysbench::fill(b, offset, job.request.0 as usize, &mut self.rng);
            return (slot_buf, slot as u16);
        }
        let off = if self.pool_slots > 1 {
            (self.rng.next_u64() as usize % self.pool_slots) * ALIGN
        } else {
            0
        };
        if job.data == DataPattern::Random {
            // Stamp a per-write sequence number into every 4 KiB page so no two
            // written blocks are identical (block-level dedup, case C07).
            self.stamp = self.stamp.wrapping_add(1);
            let tag = self.stamp ^ ((self.tid as u64) << 48);
            for page in self.pool.as_mut_slice()[off..off + len].chunks_mut(ALIGN) {
                let n = page.len().min(8);
                page[..n].copy_from_slice(&tag.to_le_bytes()[..n]);
            }
        }
        // SAFETY: off + len ≤ the pool's length by construction of pool_slots.
        (unsafe { self.pool.ptr().add(off) }, self.pool_index)
    }

    /// A completed read or write: check its length, validate a read, count it, and
    /// fsync after a write with `--file-fsync-all`.
    fn completed<E: Engine>(
        &mut self,
        eng: &mut E,
        req: &Req<ReqKind>,
        res: Result<usize, IoErr>,
    ) -> bool {
        let sh = self.sh;
        let job = &sh.model.thread;
        let (file, offset, len) = (req.io.file as u32, req.io.offset, req.io.len);
        let what = if req.tag == ReqKind::Read {
            "read"
        } else {
            "write"
        };
        if let Err(e) = res {
            self.fail(vec![format!(
                "FATAL: Failed to {what} file! file: {file} ({}) pos: {offset} {}",
                display(&job.dir, file),
                errno_text(e)
            )]);
            return false;
        }
        if req.tag == ReqKind::Read {
            if job.validate && !self.valid(req) {
                return false;
            }
            self.rec(|t| t.io_done(EventKind::Read, len as u64));
            sh.reads_done.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        self.rec(|t| t.io_done(EventKind::Write, len as u64));
        sh.writes_done.fetch_add(1, Ordering::Relaxed);
        if job.syncs.each_write {
            if let Err(e) = sync_retry(eng, file as usize, self.sync_kind, MAX_RETRIES) {
                self.fail(vec![format!(
                    "FATAL: Failed to fsync file! file: {file} ({}) {}",
                    display(&job.dir, file),
                    errno_text(e)
                )]);
                return false;
            }
            self.rec(JobStats::fsync_done);
        }
        true
    }

    /// `--validate`: a read's blocks carry the trailer of what was written there.
    #[cold]
    fn valid(&mut self, req: &Req<ReqKind>) -> bool {
        let sh = self.sh;
        let (file, offset) = (req.io.file as u32, req.io.offset);
        // SAFETY: the read completed into this buffer, which is ours again.
        let data = unsafe { std::slice::from_raw_parts(req.io.buf, req.io.len) };
        let Err(m) = verify::sysbench::check(data, offset, sh.model.thread.request.0 as usize)
        else {
            return true;
        };
        let mut lines = match m {
            verify::sysbench::Mismatch::Checksum {
                offset: o,
                calculated,
                stored,
            } => vec![
                format!("FATAL: Checksum mismatch in block with offset: {o}"),
                format!(
                    "FATAL:     Calculated value: 0x{calculated:x}    Stored value: 0x{stored:x}"
                ),
            ],
            verify::sysbench::Mismatch::Offset { actual, stored } => vec![
                "FATAL: Offset mismatch in block:".into(),
                format!("FATAL:    Actual offset: {actual}    Stored offset: {stored}"),
            ],
        };
        lines.push(format!(
            "FATAL: Validation failed on file {file} ({}), block offset {offset}, exiting...",
            display(&sh.model.thread.dir, file)
        ));
        self.fail(lines);
        false
    }

    /// The end-of-test fsync of every file (`--file-fsync-end`), after the drain and
    /// only when nothing stopped the run; its duration is kept (inside the run time).
    fn end_fsync<E: Engine>(&mut self, eng: &mut E) {
        let sh = self.sh;
        let job = &sh.model.thread;
        if !(job.syncs.at_end && job.writes) || sh.stop.load(Ordering::Relaxed) {
            return;
        }
        let t0 = std::time::Instant::now();
        for f in 0..job.files {
            if let Err(e) = sync_retry(eng, f as usize, self.sync_kind, MAX_RETRIES) {
                self.fail(vec![format!(
                    "FATAL: Failed to fsync file! file: {f} ({}) {}",
                    display(&job.dir, f),
                    errno_text(e)
                )]);
                break;
            }
            self.rec(JobStats::fsync_done);
        }
        let ns = t0.elapsed().as_nanos() as u64;
        self.rec(|t| t.end_sync_ns += ns);
    }
}

impl Rules for SysbenchRules<'_> {
    type Tag = ReqKind;
    type Error = Failed;
    const RETRIES: u32 = MAX_RETRIES;

    #[inline(always)]
    fn top<E: Engine>(&mut self, _io: &mut Io<'_, E, ReqKind>, _now: u64) -> Result<Pass, Failed> {
        Ok(Pass {
            done: self.stopped,
            submit: !self.stopped,
        })
    }

    #[inline(always)]
    fn next<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, ReqKind>,
        slot: usize,
        req: &mut Req<ReqKind>,
    ) -> Result<Next, Failed> {
        let Some(arrival) = self.admit() else {
            self.stop();
            return Ok(Next::Break);
        };
        let sh = self.sh;
        let r: Request = {
            let mut gen = sh.gen.lock().unwrap_or_else(|e| e.into_inner());
            gen.next(
                &mut self.rng,
                sh.reads_done.load(Ordering::Relaxed),
                sh.writes_done.load(Ordering::Relaxed),
            )
        };
        if sh.debug {
            sh.console.collapsible(
                5,
                &format!(
                    "DEBUG: Executing request, operation: {}, file_id: {}, pos: {}, size: {}",
                    r.kind.code(),
                    r.file,
                    r.offset,
                    r.len
                ),
            );
        }
        if self.track_in_event {
            sh.in_event[self.tid].store(true, Ordering::Relaxed);
        }
        self.event_t0 = match arrival {
            Some(a) => {
                // the event counts from its arrival (sysbench's `--rate`); the time
                // until now, when the thread takes it up, is not its service time
                let late = std::time::Instant::now().saturating_duration_since(a);
                self.event_late = u64::try_from(late.as_nanos()).unwrap_or(u64::MAX);
                sh.clock.at(a)
            }
            None => sh.clock.now(),
        };
        if r.kind == ReqKind::Fsync {
            return Ok(self.fsync_event(io.eng, r.file));
        }
        let len = r.len as usize;
        let (dir, (buf, buf_index)) = if r.kind == ReqKind::Read {
            (Dir::Read, (io.buf(slot), slot as u16))
        } else {
            (
                Dir::Write,
                self.write_buf(io.buf(slot), r.offset, len, slot),
            )
        };
        *req = Req {
            io: IoReq {
                dir,
                file: r.file as usize,
                offset: r.offset,
                len,
                buf,
                buf_index,
                ioprio: 0,
            },
            by_rules: false,
            tag: r.kind,
        };
        Ok(Next::Io)
    }

    #[inline(always)]
    fn t0(&mut self, clock: &crate::stats::clock::Clock) -> u64 {
        // a synchronous request's latency is its event's: no clock read of its own
        if self.queued {
            clock.now()
        } else {
            self.event_t0
        }
    }

    #[inline(always)]
    fn complete<E: Engine>(
        &mut self,
        eng: &mut E,
        req: &Req<ReqKind>,
        res: Result<usize, IoErr>,
        at: Times,
    ) -> Result<(), Failed> {
        if self.batch_failed || self.drain_failed {
            return Ok(());
        }
        let draining = self.stopped;
        if !self.completed(eng, req, res) {
            self.batch_failed = true;
            self.drain_failed = draining;
            return Ok(());
        }
        if at.queued {
            // completion latency of a request that succeeded (failed I/O is never
            // counted): submission to the moment its completion was reaped
            let kind = if req.tag == ReqKind::Read {
                EventKind::Read
            } else {
                EventKind::Write
            };
            let lat = self.sh.clock.ns(at.t0, at.t);
            self.rec(|t| t.clat_done(kind, lat));
        }
        Ok(())
    }

    #[inline(always)]
    fn after<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, ReqKind>,
        req: &Req<ReqKind>,
        how: Submitted,
        t1: u64,
    ) -> Result<bool, Failed> {
        if self.stopped {
            return Ok(true);
        }
        let mut reaped = false;
        if how == Submitted::Queued && io.free() == 0 {
            // the event waits for a free slot (all of them: `reap_all`)
            self.batch_failed = false;
            let min = self.reap_min().min(io.in_flight());
            io.reap(self, min)?;
            reaped = true;
            if self.stopped {
                return Ok(true);
            }
        }
        let t1 = if reaped || self.exact_end {
            self.sh.clock.now()
        } else {
            t1
        };
        let kind = if req.tag == ReqKind::Read {
            EventKind::Read
        } else {
            EventKind::Write
        };
        self.end_event(kind, t1);
        Ok(false)
    }

    #[inline(always)]
    fn reap_min(&self) -> usize {
        if self.reap_all {
            usize::MAX
        } else {
            1
        }
    }

    #[inline(always)]
    fn reaping(&mut self, _n: usize) {
        self.batch_failed = false;
    }

    #[cold]
    fn reap_error(&self, e: IoErr) -> Failed {
        self.sh.fail(vec![format!(
            "FATAL: io_uring wait failed: {}",
            errno_text(e)
        )]);
        Failed
    }

    fn finish<E: Engine>(&mut self, io: &mut Io<'_, E, ReqKind>) -> Result<(), Failed> {
        self.sh.in_event[self.tid].store(false, Ordering::Relaxed);
        self.end_fsync(io.eng);
        Ok(())
    }
}
