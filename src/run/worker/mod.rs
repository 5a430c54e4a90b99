//! THE worker: one job thread's I/O loop over an engine. Every command that does I/O
//! through an engine (`run`, `fileio`, and `mark` through `fileio`) runs it; what differs
//! between them is a [`Rules`] plug-in: fio's ([`fio`]: request picking, pacing,
//! verify, logs, latency_target/flow/steady hooks) and sysbench's ([`sysbench`]: the
//! shared generator, events, the `--rate` queue, `--validate`).
//!
//! The loop owns what is the same for every front end: the in-flight slots (a free list
//! and the request parked in each busy slot), submit → done at once or queued, reaping
//! with one clock read per batch, EINTR/EAGAIN retries, and the clock points of every
//! request — `t0` before submit (the request made ready), `ti` at its issue (a second
//! read only for fio's rules on an engine that completes inside submit), `t1` after
//! submit, `t` at completion — from which fio's slat/clat/lat follow ([`Times::lat`]). Its shape, per pass:
//!
//! ```text
//! top      (limits, samples, control hooks)      → done? may submit?
//! submit   while a slot is free: next → submit → complete (done at once) → after
//! idle     (hooks that wait)
//! reap     when anything is in flight (all of it once done), account each completion
//! ```
//!
//! and it leaves only with nothing in flight, so [`Rules::finish`] (the final syncs)
//! runs after every request is drained. The loop is generic over the engine and the
//! rules, so each (engine, rules) pair is compiled into its own loop: no per-I/O dynamic
//! dispatch, and hooks a front end does not use cost nothing.

pub mod fio;
pub mod sysbench;
pub mod thread;

use crate::engine::buffers::Slab;
use crate::engine::{Completion, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::stats::clock::Clock;

pub(crate) use fio::{drop_cache, fill_buf, Live, Op, Worker, LIVE_STATE};

/// How a request left `submit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// completed inside the call (it has been accounted)
    Done,
    /// queued: it completes through a later reap
    Queued,
    /// refused by the call (it has been accounted as failed)
    Failed,
}

/// Clock points of one request, in ticks: `t0` just before submit, `ti` at its issue,
/// `t1` when submit returned, `t` at completion (`t1` for a request done inside submit).
#[derive(Clone, Copy, Debug)]
pub struct Times {
    /// submit start: the request is ready (fio's `start_time`, taken after its prep)
    pub t0: u64,
    /// the engine call starts (fio's `issue_time` of a synchronous engine): `t0` itself
    /// unless the rules ask for an issue clock ([`Rules::ISSUE_CLOCK`]) and the engine
    /// completes requests inside submit
    pub ti: u64,
    /// submit end
    pub t1: u64,
    /// completion
    pub t: u64,
    /// the request was queued (completed through a reap)
    pub queued: bool,
}

impl Times {
    /// fio's latencies in ns: `slat` (submit; queued requests only), `clat` (submit end
    /// → completion; from the issue when done inside submit) and `lat` (submit start →
    /// completion). As fio 3.33 times a synchronous engine, a request done inside submit
    /// has no slat, its clat is the engine call (issue → return) and its lat counts from
    /// the request made ready, so lat ≥ clat by the step between the two.
    #[inline(always)]
    pub fn lat(&self, clock: &Clock) -> (Option<u64>, u64, u64) {
        if self.queued {
            let (t0, t1, t) = (self.t0, self.t1, self.t);
            (Some(clock.ns(t0, t1)), clock.ns(t1, t), clock.ns(t0, t))
        } else {
            (None, clock.ns(self.ti, self.t1), clock.ns(self.t0, self.t1))
        }
    }
}

/// One request the rules hand to the loop: the engine request itself (built once, in
/// place) and what the rules want back at completion.
#[derive(Clone, Copy, Debug)]
pub struct Req<T> {
    /// the engine request (file, offset, length, buffer, ioprio)
    pub io: IoReq,
    /// the rules issue it themselves ([`Rules::issue`], fio's trims), timed and
    /// accounted like an engine request
    pub by_rules: bool,
    /// what the rules want back at completion
    pub tag: T,
}

impl<T: Default> Req<T> {
    /// A blank request (no buffer) for [`Rules::next`] to fill in.
    #[inline(always)]
    pub fn blank() -> Self {
        Req {
            io: IoReq {
                dir: Dir::Read,
                file: 0,
                offset: 0,
                len: 0,
                buf: std::ptr::null_mut(),
                buf_index: 0,
                ioprio: 0,
            },
            by_rules: false,
            tag: T::default(),
        }
    }
}

/// What [`Rules::next`] answers for a free slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// submit the request it filled in
    Io,
    /// the rules did an event without a request (sysbench's periodic fsync): ask again
    Skip,
    /// nothing to submit now: end the submit pass
    Break,
}

/// What [`Rules::top`] decides at the top of a pass.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    /// the job's I/O is over: reap what is in flight and leave
    pub done: bool,
    /// run a submit pass now
    pub submit: bool,
}

/// A front end's rules, plugged into the loop (every method is inlined into it).
pub trait Rules {
    /// What a request carries from submit to completion.
    type Tag: Copy + Default;
    /// Why the job stopped early.
    type Error;
    /// Consecutive EINTR/EAGAIN answers to one request (or sync) that are retried,
    /// yielding between tries; 0: the errno is the request's.
    const RETRIES: u32 = 0;

    /// Top of a pass; `now` is the tick of the last completion when one just happened.
    fn top<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Self::Tag>,
        now: u64,
    ) -> Result<Pass, Self::Error>;
    /// The request for free `slot` (its buffer is `io.buf(slot)`), written into `req`
    /// (in place: the request is not copied on the per-I/O path).
    fn next<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Self::Tag>,
        slot: usize,
        req: &mut Req<Self::Tag>,
    ) -> Result<Next, Self::Error>;
    /// A request done inside submit takes a clock point of its own at its issue, after
    /// `t0` ([`Times::ti`]: fio's clat of a synchronous engine starts there, its lat at
    /// `t0`); false: one clock point before submit, clat = lat.
    const ISSUE_CLOCK: bool = false;

    /// Tick of the request's submit start (`t0`).
    #[inline(always)]
    fn t0(&mut self, clock: &Clock) -> u64 {
        clock.now()
    }
    /// Run a request that is not an engine's (`Req::by_rules`).
    #[inline(always)]
    fn issue(&mut self, req: &Req<Self::Tag>) -> Result<Option<usize>, IoErr> {
        Ok(Some(req.io.len))
    }
    /// A request completed: `res` is its length, or why it failed (a short transfer
    /// included).
    fn complete<E: Engine>(
        &mut self,
        eng: &mut E,
        req: &Req<Self::Tag>,
        res: Result<usize, IoErr>,
        at: Times,
    ) -> Result<(), Self::Error>;
    /// After a submit (and its accounting, if it completed at once): true ends the pass.
    fn after<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Self::Tag>,
        req: &Req<Self::Tag>,
        how: Submitted,
        t1: u64,
    ) -> Result<bool, Self::Error>;
    /// A submit pass ended with `in_flight` requests queued.
    #[inline(always)]
    fn pass_end(&mut self, _in_flight: usize) {}
    /// After the submit pass (whether one ran or not).
    #[inline(always)]
    fn idle<E: Engine>(&mut self, _io: &mut Io<'_, E, Self::Tag>) -> Result<(), Self::Error> {
        Ok(())
    }
    /// Completions the loop waits for at least, when not done.
    #[inline(always)]
    fn reap_min(&self) -> usize {
        1
    }
    /// The loop's reap returned `n` completions (before they are accounted).
    #[inline(always)]
    fn reaping(&mut self, _n: usize) {}
    /// The engine failed to reap.
    fn reap_error(&self, e: IoErr) -> Self::Error;
    /// The loop stopped on `e`, with what was in flight still queued: settle it and
    /// give the error the job ends with (the default leaves it to the engine's drop).
    #[inline(always)]
    fn wind_down<E: Engine>(
        &mut self,
        _io: &mut Io<'_, E, Self::Tag>,
        e: Self::Error,
    ) -> Self::Error {
        e
    }
    /// The loop ended with nothing in flight: the job's final work (syncs, read-back).
    fn finish<E: Engine>(&mut self, io: &mut Io<'_, E, Self::Tag>) -> Result<(), Self::Error>;
}

/// A request waiting in a busy slot, with its submit clock points.
#[derive(Clone, Copy)]
struct Parked<T> {
    req: Req<T>,
    t0: u64,
    t1: u64,
}

/// The engine and the in-flight slots of one job thread.
pub struct Io<'a, E, T> {
    /// the engine
    pub eng: &'a mut E,
    /// one buffer per slot
    pub slab: &'a Slab,
    /// the latency clock
    pub clock: &'a Clock,
    parked: Vec<Parked<T>>,
    free: Vec<usize>,
    in_flight: usize,
    comps: Vec<Completion>,
    /// tick of the last completion done inside submit, reused as the next pass's `now`
    fresh: Option<u64>,
    /// slots parked in the engine's batch, not handed to the device yet, in order
    /// ([`Io::handed_over`])
    unsent: Vec<usize>,
    /// the batches handed over since the rules last took them ([`Io::take_handed`]):
    /// requests in the batch and requests in flight then (fio's commit)
    handed: Vec<(usize, usize)>,
}

impl<'a, E: Engine, T: Copy + Default> Io<'a, E, T> {
    /// `depth` slots over `eng` (the slab holds at least `depth` buffers).
    pub fn new(eng: &'a mut E, slab: &'a Slab, clock: &'a Clock, depth: usize) -> Self {
        Io {
            eng,
            slab,
            clock,
            parked: vec![
                Parked {
                    req: Req::blank(),
                    t0: 0,
                    t1: 0
                };
                depth
            ],
            free: (0..depth).rev().collect(),
            in_flight: 0,
            comps: Vec::with_capacity(depth),
            fresh: None,
            unsent: Vec::with_capacity(depth),
            handed: Vec::new(),
        }
    }

    /// After a request parked in `slot` (none: a reap) at tick `t`: the requests of the
    /// engine's batch it has handed to the device since end their submission at `t`, as
    /// fio's slat ends when the batch's commit returns (libaio's io_submit, io_uring's
    /// enter), not when each was queued; the batch is noted with the requests in flight
    /// then ([`Io::take_handed`]). Nothing to do for an engine that hands each request
    /// over inside `submit`.
    #[inline(always)]
    fn handed_over(&mut self, slot: Option<usize>, t: u64) {
        let left = self.eng.unsubmitted();
        if left == 0 && self.unsent.is_empty() {
            return;
        }
        self.unsent.extend(slot);
        let sent = self.unsent.len().saturating_sub(left);
        if sent > 0 {
            self.handed.push((sent, self.in_flight));
        }
        for s in self.unsent.drain(..sent) {
            self.parked[s].t1 = t;
        }
    }

    /// The batches a batching engine handed to the device since the last call, each as
    /// (its requests, the requests in flight then, the batch included): fio's commit
    /// marks its depth level and its submission count there (`td_io_commit`).
    #[inline(always)]
    pub fn take_handed(&mut self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.handed.drain(..)
    }

    /// Requests parked in the engine's batch, not handed to the device yet.
    #[inline(always)]
    pub fn unsent(&self) -> usize {
        self.unsent.len()
    }

    /// Requests queued and not yet reaped.
    #[inline(always)]
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Free slots.
    #[inline(always)]
    pub fn free(&self) -> usize {
        self.free.len()
    }

    /// Buffer of `slot`.
    #[inline(always)]
    pub fn buf(&self, slot: usize) -> *mut u8 {
        self.slab.bufs[slot].ptr()
    }

    /// A request in flight, other than slot `slot`'s, whose bytes meet the `len` bytes
    /// at `offset` (fio's `in_flight_overlap`, which compares offsets only, whatever
    /// the file): its offset and length. Walks the busy slots (`serialize_overlap`).
    pub fn in_flight_overlap(&self, slot: usize, offset: u64, len: u64) -> Option<(u64, u64)> {
        if self.in_flight == 0 {
            return None;
        }
        (0..self.parked.len())
            .filter(|s| *s != slot && !self.free.contains(s))
            .map(|s| {
                (
                    self.parked[s].req.io.offset,
                    self.parked[s].req.io.len as u64,
                )
            })
            .find(|&(o, l)| offset < o + l && o < offset + len)
    }

    /// Forget the last completion's tick (time passed since: the next pass reads the
    /// clock).
    #[inline(always)]
    pub fn stale(&mut self) {
        self.fresh = None;
    }

    /// Wait for at least `min` completions and collect what is ready (not accounted:
    /// [`Io::account`] does that).
    #[inline(always)]
    pub fn reap_raw(&mut self, min: usize) -> Result<usize, IoErr> {
        self.comps.clear();
        // the batch's last requests go to the device before the wait (their slat ends
        // there, not at their completion)
        if !self.unsent.is_empty() {
            self.eng.flush()?;
            let t = self.clock.now();
            self.handed_over(None, t);
        }
        self.eng.reap(min, &mut self.comps)?;
        Ok(self.comps.len())
    }

    /// Account the collected completions, all completed at tick `t` (one clock read per
    /// batch, as fio): each slot is freed and its request handed to
    /// [`Rules::complete`], with its length or why it failed. A failed one stops the
    /// accounting: the completions after it stay collected, for [`Io::account_each`].
    #[inline(always)]
    pub fn account<R: Rules<Tag = T>>(&mut self, rules: &mut R, t: u64) -> Result<(), R::Error> {
        let mut comps = std::mem::take(&mut self.comps);
        let mut r = Ok(());
        let mut done = comps.len();
        for (i, c) in comps.iter().enumerate() {
            r = self.complete_one(rules, c, t);
            if r.is_err() {
                done = i + 1;
                break;
            }
        }
        // what was accounted is gone from the batch: a job that fails after this
        // (a request's pick, a pass hook) winds down without counting it again
        comps.drain(..done);
        self.comps = comps;
        r
    }

    /// [`Io::account`] going on past a failed request: every collected completion (those
    /// a failed one left too) is accounted; the errors, in order (a job winding down after its failure, which
    /// reaps what was in flight as fio's `cleanup_pending_aio` does).
    pub fn account_each<R: Rules<Tag = T>>(&mut self, rules: &mut R, t: u64) -> Vec<R::Error> {
        let comps = std::mem::take(&mut self.comps);
        let errs = comps
            .iter()
            .filter_map(|c| self.complete_one(rules, c, t).err())
            .collect();
        self.comps = comps;
        self.comps.clear();
        errs
    }

    /// Free the slot of completion `c` and hand its request to [`Rules::complete`].
    #[inline(always)]
    fn complete_one<R: Rules<Tag = T>>(
        &mut self,
        rules: &mut R,
        c: &Completion,
        t: u64,
    ) -> Result<(), R::Error> {
        let Some(p) = self.parked.get(c.slot).copied() else {
            return Ok(());
        };
        self.in_flight -= 1;
        self.free.push(c.slot);
        let len = p.req.io.len;
        let res = if c.res == len as i64 {
            Ok(len)
        } else {
            Err(completion_err(c.res))
        };
        let at = Times {
            t0: p.t0,
            ti: p.t0,
            t1: p.t1,
            t,
            queued: true,
        };
        rules.complete(self.eng, &p.req, res, at)
    }

    /// Reap at least `min` and account them ([`Rules::reap_error`] on failure).
    #[inline(always)]
    pub fn reap<R: Rules<Tag = T>>(
        &mut self,
        rules: &mut R,
        min: usize,
    ) -> Result<usize, R::Error> {
        let n = self.reap_raw(min).map_err(|e| rules.reap_error(e))?;
        let t = self.clock.now();
        self.account(rules, t)?;
        Ok(n)
    }

    /// Reap and account until nothing is in flight (fio's `io_u_quiesce`).
    pub fn drain<R: Rules<Tag = T>>(&mut self, rules: &mut R) -> Result<(), R::Error> {
        while self.in_flight > 0 {
            self.reap(rules, self.in_flight)?;
        }
        Ok(())
    }

    /// Reap and account completions as they arrive until tick `due` (or a stop), while a
    /// paced submitter waits for its due time (`io_submit_mode=offload`).
    pub fn reap_until<R: Rules<Tag = T>>(
        &mut self,
        rules: &mut R,
        due: u64,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<(), R::Error> {
        let clock = self.clock;
        while self.in_flight > 0 {
            let now = clock.now();
            if now >= due || stop.load(std::sync::atomic::Ordering::Relaxed) {
                return Ok(());
            }
            self.comps.clear();
            self.eng
                .wait_some(clock.ns(now, due), &mut self.comps)
                .map_err(|e| rules.reap_error(e))?;
            let t = clock.now();
            self.account(rules, t)?;
        }
        Ok(())
    }
}

/// True for the errnos a request is retried on (EINTR, EAGAIN), as fio requeues them.
#[inline(always)]
fn transient(e: &IoErr) -> bool {
    matches!(e, IoErr::Errno(n) if *n == libc::EINTR || *n == libc::EAGAIN)
}

/// `submit`, retrying EINTR/EAGAIN up to `retries` times (yielding the CPU between
/// tries); the last error is returned when they persist.
#[inline(always)]
fn submit_retry<E: Engine>(
    eng: &mut E,
    slot: usize,
    req: &IoReq,
    retries: u32,
) -> Result<Option<usize>, IoErr> {
    let mut tries = 0;
    loop {
        match eng.submit(slot, req) {
            Err(e) if tries < retries && transient(&e) => {
                tries += 1;
                std::thread::yield_now();
            }
            r => return r,
        }
    }
}

/// `sync`, retrying EINTR/EAGAIN like a request ([`Rules::RETRIES`] of `R`).
pub fn sync_retry<E: Engine>(
    eng: &mut E,
    file: usize,
    kind: SyncKind,
    retries: u32,
) -> Result<(), IoErr> {
    let mut tries = 0;
    loop {
        match eng.sync(file, kind) {
            Err(e) if tries < retries && transient(&e) => {
                tries += 1;
                std::thread::yield_now();
            }
            r => return r,
        }
    }
}

/// The error of a completion that moved `res` bytes (≥ 0: short) or failed (-errno).
#[inline]
fn completion_err(res: i64) -> IoErr {
    if res < 0 {
        IoErr::Errno(i32::try_from(-res).unwrap_or(libc::EIO))
    } else {
        IoErr::Short { done: res as usize }
    }
}

/// Drive `io` under `rules` until the rules say the job's I/O is over, then drain and
/// run [`Rules::finish`]. An error ends the loop at once; [`Rules::wind_down`] settles
/// what is in flight (by default it is reaped when the engine is dropped).
pub fn run<E: Engine, R: Rules>(io: &mut Io<'_, E, R::Tag>, rules: &mut R) -> Result<(), R::Error> {
    if let Err(e) = io_loop(io, rules) {
        return Err(rules.wind_down(io, e));
    }
    rules.finish(io)
}

/// The loop of [`run`], until the rules say the job's I/O is over and nothing is in
/// flight, or an error.
#[inline(always)]
fn io_loop<E: Engine, R: Rules>(io: &mut Io<'_, E, R::Tag>, rules: &mut R) -> Result<(), R::Error> {
    // the request the rules fill in, in place, for every submit
    let mut req = Req::blank();
    loop {
        let now = match io.fresh.take() {
            Some(t) => t,
            None => io.clock.now(),
        };
        let pass = rules.top(io, now)?;
        if pass.submit {
            submit_pass(io, rules, &mut req)?;
        }
        rules.idle(io)?;
        if io.in_flight == 0 {
            if pass.done {
                break;
            }
            continue;
        }
        let want = if pass.done {
            1
        } else {
            rules.reap_min().min(io.in_flight)
        };
        let n = io.reap_raw(want).map_err(|e| rules.reap_error(e))?;
        rules.reaping(n);
        let t = io.clock.now();
        io.account(rules, t)?;
    }
    Ok(())
}

/// One submit pass: while a slot is free, ask the rules for a request, submit it (its
/// clock points around the call), account it when it completed at once, and let the
/// rules end the pass.
#[inline(always)]
fn submit_pass<E: Engine, R: Rules>(
    io: &mut Io<'_, E, R::Tag>,
    rules: &mut R,
    req: &mut Req<R::Tag>,
) -> Result<(), R::Error> {
    while let Some(slot) = io.free.pop() {
        match rules.next(io, slot, req)? {
            Next::Io => {}
            Next::Skip => {
                io.free.push(slot);
                continue;
            }
            Next::Break => {
                io.free.push(slot);
                break;
            }
        };
        let t0 = rules.t0(io.clock);
        // an engine that queues reads the clock after submit: its issue is `t0`; so does
        // null, whose call costs less than a clock read (a second read there cost 16 %
        // of its IOPS, bench/run-vs-fio.sh case (a)): its clat is its lat
        let ti = if R::ISSUE_CLOCK
            && !E::KIND.queues()
            && !matches!(E::KIND, crate::util::engines::Kind::Null)
        {
            io.clock.now()
        } else {
            t0
        };
        let r = if req.by_rules {
            rules.issue(req)
        } else {
            submit_retry(io.eng, slot, &req.io, R::RETRIES)
        };
        let t1 = io.clock.now();
        let how = submitted(io, rules, slot, req, r, (t0, ti, t1))?;
        if rules.after(io, req, how, t1)? {
            break;
        }
    }
    rules.pass_end(io.in_flight);
    Ok(())
}

/// Settle a request after `submit` answered `r` (clock points `t0`, `ti`, `t1`): done at
/// once (accounted, its slot free again), queued (parked in its slot) or refused
/// (accounted as failed).
#[inline(always)]
fn submitted<E: Engine, R: Rules>(
    io: &mut Io<'_, E, R::Tag>,
    rules: &mut R,
    slot: usize,
    req: &Req<R::Tag>,
    r: Result<Option<usize>, IoErr>,
    (t0, ti, t1): (u64, u64, u64),
) -> Result<Submitted, R::Error> {
    let at = Times {
        t0,
        ti,
        t1,
        t: t1,
        queued: false,
    };
    match r {
        Ok(Some(n)) => {
            let res = if n == req.io.len {
                Ok(n)
            } else {
                Err(IoErr::Short { done: n })
            };
            let ok = res.is_ok();
            rules.complete(io.eng, req, res, at)?;
            if ok {
                io.fresh = Some(t1);
            }
            io.free.push(slot);
            Ok(Submitted::Done)
        }
        Ok(None) => {
            io.parked[slot] = Parked { req: *req, t0, t1 };
            io.in_flight += 1;
            io.handed_over(Some(slot), t1);
            Ok(Submitted::Queued)
        }
        Err(e) => {
            rules.complete(io.eng, req, Err(e), at)?;
            io.free.push(slot);
            Ok(Submitted::Failed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An engine that queues requests and hands them over `batch` at a time (libaio's
    /// `iodepth_batch_submit`), the rest at `flush`.
    struct Batching {
        batch: usize,
        queued: usize,
        sent: usize,
    }
    impl Engine for Batching {
        const KIND: crate::util::engines::Kind = crate::util::engines::Kind::Libaio;
        const CAPS: crate::engine::Caps = crate::engine::Caps::SYNC;
        fn depth(&self) -> usize {
            8
        }
        fn submit(&mut self, _slot: usize, _r: &IoReq) -> Result<Option<usize>, IoErr> {
            self.queued += 1;
            if self.queued == self.batch {
                self.sent += std::mem::take(&mut self.queued);
            }
            Ok(None)
        }
        fn flush(&mut self) -> Result<bool, IoErr> {
            self.sent += std::mem::take(&mut self.queued);
            Ok(true)
        }
        fn unsubmitted(&self) -> usize {
            self.queued
        }
        fn sync(&mut self, _file: usize, _kind: SyncKind) -> Result<(), IoErr> {
            Ok(())
        }
    }

    /// fio's slat of a batched request ends when its batch is handed over: the first
    /// three of a batch of four end at the fourth's submit (tick 40), the next two,
    /// left in an unfilled batch, at the flush before the reap, not at their own submit;
    /// each batch is noted with the requests in flight at its hand-over (fio's commit).
    #[test]
    fn a_batched_requests_submission_ends_when_its_batch_is_handed_over() {
        let mut eng = Batching {
            batch: 4,
            queued: 0,
            sent: 0,
        };
        let slab = Slab::new(8, 4096);
        let clock = Clock::calibrated(false);
        let mut io: Io<'_, Batching, ()> = Io::new(&mut eng, &slab, &clock, 8);
        let req = IoReq::bufferless(Dir::Read, 0, 4096);
        for slot in 0..6 {
            let t1 = 10 * (slot as u64 + 1);
            io.eng.submit(slot, &req).unwrap();
            io.parked[slot].t1 = t1;
            io.in_flight += 1;
            io.handed_over(Some(slot), t1);
        }
        let t1: Vec<u64> = io.parked[..6].iter().map(|p| p.t1).collect();
        assert_eq!(t1, [40, 40, 40, 40, 50, 60]);
        assert_eq!(io.take_handed().collect::<Vec<_>>(), [(4, 4)]);
        assert_eq!(io.unsent, [4, 5]);
        io.eng.flush().unwrap();
        io.handed_over(None, 75);
        let t1: Vec<u64> = io.parked[..6].iter().map(|p| p.t1).collect();
        assert_eq!(t1, [40, 40, 40, 40, 75, 75]);
        assert!(io.unsent.is_empty());
        assert_eq!(io.take_handed().collect::<Vec<_>>(), [(2, 6)]);
        assert_eq!(io.eng.sent, 6);
    }

    #[test]
    fn a_request_done_inside_submit_has_fios_synchronous_latencies() {
        // 1 ns per tick: ready at 100, issued at 130, back at 1130
        let clock = Clock::calibrated(false);
        let at = Times {
            t0: 100,
            ti: 130,
            t1: 1130,
            t: 1130,
            queued: false,
        };
        // no slat; clat is the engine call, lat counts from the request made ready
        assert_eq!(at.lat(&clock), (None, 1000, 1030));
        // a queued request: slat submit, clat after it, lat both (the issue is t0)
        let q = Times {
            t0: 100,
            ti: 100,
            t1: 130,
            t: 1130,
            queued: true,
        };
        assert_eq!(q.lat(&clock), (Some(30), 1000, 1030));
    }
}
