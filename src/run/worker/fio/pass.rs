//! fio's hooks in the worker loop (see [`crate::run::worker`]): the job's limits,
//! ramp_time, bw/iops samples and latency_target at the top of each pass; flow, zones,
//! rate pacing and buffer contents for each request; sync-every-N, think time and the
//! new-pass cache drop after it; the end-of-job syncs, verify read-back and logs when
//! the loop has drained. The state here lives for one run of the loop; what the
//! request generator keeps is in [`Worker`].

use crate::engine::{Dir, IoReq};
use crate::run::control::flow::FlowMember;
use crate::run::control::lat_target::{LatTarget, LtAction};
use crate::run::fio::log::Logs;
use crate::run::worker::fio::*;
use crate::run::worker::{Io, Next, Pass, Req, Rules, Submitted, Times};
use crate::stats::job::ThreadFailure;
use crate::stats::rates::RateSampler;

/// One run of the worker loop under fio's rules.
pub(super) struct FioRules<'a> {
    w: Worker<'a>,
    st: JobStats,
    /// tick the loop started at, and the end of `ramp_time`
    start: u64,
    ramp_end: u64,
    /// past `ramp_time`: I/O is recorded and counted toward the limits
    measuring: bool,
    /// tick the measured run started at (log times count from it)
    measure_start: u64,
    /// tick `runtime` ends at
    deadline: Option<u64>,
    issued_bytes: u64,
    /// bytes issued in the current write-then-verify round (`rounds`)
    round_bytes: u64,
    issued_ios: u64,
    /// the bytes / requests the job issues at most (`u64::MAX`: no limit), counted
    /// from the start and again from the end of ramp_time
    byte_limit: u64,
    /// the bytes a write-then-verify round issues at most (`u64::MAX`: no rounds)
    round_limit: u64,
    ios_limit: u64,
    /// one of them is reached (set where they grow; the end of ramp_time zeroes them)
    issued_all: bool,
    /// what the job uses (a copy of the worker's, next to the loop's state)
    uses: Uses,
    stop: &'a AtomicBool,
    /// fio's sync every N writes ([`FioRules::sync_if_due`])
    sy: SyncState,
    /// the job's last request ended a loop ([`Worker::unlink_for_empty_loop`])
    loop_spare: bool,
    /// written blocks are remembered for the read-back
    track_writes: bool,
    /// `scramble_buffers` applies: each write's buffer gets its offset and time
    scramble: bool,
    /// `iodepth_batch_complete_min` (at most the depth)
    reap_min: usize,
    /// the job's `iodepth`
    depth: usize,
    /// requests allowed in flight now (the latency_target search lowers it)
    cap: usize,
    /// `iodepth_low` (the depth when unset or above it): a queue that filled up takes
    /// no request until those in flight drop to it (fio's wait_for_completions)
    low: usize,
    /// the queue filled up and has not drained to `low` yet
    draining: bool,
    /// each queued request is a submission of its own (`iodepth_batch_submit` of 1 on
    /// an engine that queues): fio's `iodepth_submit` counts one per request
    submit_each: bool,
    /// `iodepth_batch_submit` above 1: on an engine that hands batches over (libaio,
    /// io_uring) the depth level and the submission count are marked per batch handed
    /// over, as fio's commit marks them ([`FioRules::commits`])
    batched: bool,
    /// this thread's share among the jobs of its flow_id (run/control/flow.rs)
    flow: Option<FlowMember>,
    flow_held: bool,
    /// a paced wait reaped completions: the pass ends after this request
    paced_reap: bool,
    /// the latency_target search is over
    lt_done: bool,
    /// fio's bw/iops samples (stats/rates.rs)
    samp: RateSampler,
    /// the request just issued ended a pass over the files
    pass_done: bool,
    /// the request just issued was a pass's last (`Uses::loop_drain`): those in
    /// flight complete before the next request is picked
    drain_due: bool,
    /// the loop reaped since the last think check
    reaped: bool,
    /// fio's write-then-verify rounds (`Plan::verify_cycle`): reaching a round's byte
    /// limit verifies the round's writes before the next one
    rounds: bool,
    /// rounds left, this one included (`Plan::verify_rounds`; `u64::MAX` for a
    /// time-based job's, which go on until its runtime): the last one's writes are
    /// verified at the job's end
    rounds_left: u64,
    /// time spent in the rounds' verify phases (not the I/O phase's runtime)
    rounds_verify_ns: u64,
    /// rounds verified so far (a mixed job's [`crate::run::fio::plan::MixRounds`] decide on it)
    rounds_done: u64,
    /// requests reaped after a read-only job's mismatch (`Worker::mismatch_stop`)
    after_mismatch: usize,
    /// the loop saw the job's end (`done`) once, and whether its runtime ended it then
    /// (fio's terminate: no verify phase after it)
    ended: bool,
    timed_out: bool,
    /// `--debug=io`: each request's lines (worker/fio/trace.rs)
    trace_io: bool,
    /// the job has a hook of the pass top that most jobs lack: latency_target, a
    /// minimum rate or write-then-verify rounds ([`FioRules::run_pass_hooks`])
    pass_hooks: bool,
    /// the job uses none of the per-request features (decided once, [`lean_of`]): a
    /// request is picked, counted, issued and accounted without consulting them
    /// ([`FioRules::next_lean`], [`FioRules::after_lean`], [`Worker::complete_lean`])
    lean: bool,
}

impl<'a> FioRules<'a> {
    /// The rules of one run of `w` at `depth`, recording into `st`.
    pub(super) fn new(mut w: Worker<'a>, st: JobStats, depth: usize) -> Self {
        let plan = w.plan;
        let work = &plan.work;
        let q = &work.queue;
        let clock = w.clock;
        let start = clock.now();
        let ramp_end = start + clock.ticks(work.limits.ramp);
        // (no ramp: its end is the start, before every verify read)
        w.lat_from = ramp_end;
        let deadline = plan.thread_job.time.map(|r| ramp_end + clock.ticks(r));
        let flow = q
            .flow
            .and_then(|(id, weight)| plan.flows.as_ref().map(|f| f.join(id, weight)));
        // latency_target: the depth search runs over the measured I/O (after ramp_time)
        w.lat_target = q.lat_target.map(|t| LatTarget::new(t, depth as u32, 0, 0));
        let mut samp = sampler(plan, w.logs.as_ref());
        samp.set_end(deadline);
        // `*` running, `/` ramping
        w.phase(b"*/"[usize::from(!work.limits.ramp.is_zero())]);
        let lean = lean_of(&w, flow.is_none());
        FioRules {
            start,
            ramp_end,
            measuring: work.limits.ramp.is_zero(),
            measure_start: start,
            deadline,
            issued_bytes: 0,
            round_bytes: 0,
            issued_ios: 0,
            byte_limit: Some(plan.byte_limit).filter(|&b| b > 0).unwrap_or(u64::MAX),
            round_limit: Some(plan.verify_cycle)
                .filter(|&b| b > 0)
                .unwrap_or(u64::MAX),
            ios_limit: plan.thread_job.ios.unwrap_or(u64::MAX),
            issued_all: false,
            uses: w.uses,
            stop: w.stop,
            sy: SyncState::of(&w.plan.work.syncs),
            loop_spare: false,
            track_writes: work.verify.kind.is_some()
                && work.verify.read_back
                && work.pick.rw.writes(),
            scramble: Self::scrambles(work),
            reap_min: (q.reap_min.max(1) as usize).min(depth),
            depth,
            cap: depth,
            low: match q.low as usize {
                0 => depth,
                n => n.min(depth),
            },
            draining: false,
            submit_each: plan.thread_job.engine.queues() && q.batch <= 1,
            batched: q.batch > 1,
            flow,
            flow_held: false,
            paced_reap: false,
            lt_done: false,
            samp,
            pass_done: false,
            drain_due: false,
            reaped: false,
            rounds: plan.verify_cycle > 0,
            rounds_left: match plan.verify_rounds {
                0 => u64::MAX,
                n => n,
            },
            rounds_verify_ns: 0,
            rounds_done: 0,
            after_mismatch: 0,
            ended: false,
            timed_out: false,
            trace_io: crate::util::debug::on("io"),
            pass_hooks: w.lat_target.is_some() || w.uses.min_rate || plan.verify_cycle > 0,
            lean,
            w,
            st,
        }
    }

    /// Whether the write buffers are scrambled between writes (fio's
    /// `scramble_buffers`): writes without refill, compression, dedupe, a
    /// buffer_pattern or verify, unless zero_buffers was asked for.
    fn scrambles(work: &crate::job::model::Workload) -> bool {
        let data = &work.data;
        data.scramble
            && !data.zero
            && data.pattern.is_empty()
            && !data.refill
            && data.compress_pct == 0
            && data.dedupe_pct == 0
            && work.verify.kind.is_none()
    }

    fn ios(&self) -> u64 {
        self.st.read.ios + self.st.write.ios + self.st.trim.ios
    }

    /// The latency_target hook: quiesce for a new window or the final run at the depth
    /// found; statistics restart for that run (fio's reset_all_stats).
    fn lat_target_step<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        now: u64,
    ) -> Result<(), RunError> {
        let clock = self.w.clock;
        let t_ns = clock.ns(self.start, now);
        let ios = self.ios();
        let (pending, act) = match &mut self.w.lat_target {
            Some(l) => (l.take_pending(), l.check(t_ns, ios)),
            None => (false, LtAction::None),
        };
        if pending || act == LtAction::Quiesce || act == LtAction::FinalRun {
            io.drain(self)?;
        }
        if act == LtAction::FinalRun {
            // depth found: statistics restart for one window at it, so the report is
            // that depth's
            self.st.read = Default::default();
            self.st.write = Default::default();
            self.st.trim = Default::default();
            self.st.sync = Default::default();
            // depth counts and rate samples restart too (fio reset_io_stats)
            self.st.depth = Default::default();
            self.samp = sampler(self.w.plan, self.w.logs.as_ref());
            self.samp.set_end(self.deadline);
            self.measure_start = clock.now();
        }
        if act == LtAction::Done {
            self.lt_done = true;
        }
        if pending || act != LtAction::None {
            let t = clock.now();
            let ios = self.ios();
            if let Some(l) = &mut self.w.lat_target {
                l.new_cycle(clock.ns(self.start, t), ios);
            }
        }
        Ok(())
    }

    /// Issue a request's rest again in free `slot` (fio's requeue of a short transfer).
    #[cold]
    fn reissue<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        slot: usize,
        req: &mut Req<Tag>,
    ) -> Next {
        match self.w.take_resid(io.buf(slot), slot) {
            Some(r) => {
                if !self.commits::<E>() {
                    self.st.depth.mark_level(io.in_flight() + 1);
                }
                *req = r;
                if self.trace_io {
                    let f = &self.w.plan.files[r.io.file].path;
                    super::trace::issued(&req.io, req.by_rules, f);
                }
                Next::Io
            }
            None => Next::Break,
        }
    }

    /// A request done: accounted (latencies, logs, a read's verify) from its buffer `buf`.
    #[inline(always)]
    fn done_req(&mut self, s: &Req<Tag>, buf: *mut u8, at: Times) -> Result<(), RunError> {
        if self.uses.think && s.tag.op != Op::Trim {
            self.w.think_count(false);
        }
        let (slat, clat, lat) = at.lat(self.w.clock);
        let t = (at.t, self.measure_start);
        self.w.complete(&mut self.st, s, buf, slat, clat, lat, t)
    }

    /// The job's I/O limits are reached (or it was told to stop).
    #[inline(always)]
    fn done(&self, now: u64) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self.lt_done
            || self.w.zone_eof
            || self.w.mismatch_stop
            || self.deadline.is_some_and(|d| now >= d)
            || self.issued_all
            || self.w.filled.get()
    }

    /// Rate pacing of the next request: wait for its due time (reaping meanwhile).
    /// False when the wait ran into the end of the runtime: issue nothing more (fio:
    /// rate_iops=1 for 1 s is one request, not two).
    fn pace<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        op: Op,
        bs: u64,
    ) -> Result<bool, RunError> {
        let Some(due) = self.w.pace_due(op, bs, self.start) else {
            return Ok(true);
        };
        let clock = self.w.clock;
        let stop = self.w.stop;
        let t0 = clock.now();
        if t0 >= due {
            return Ok(self.deadline.is_none_or(|d| t0 < d));
        }
        if io.in_flight() > 0 {
            // offload: completions are reaped as they arrive while the submitter
            // waits; inline: fio quiesces before a rate sleep
            if self.w.plan.work.queue.offload {
                io.reap_until(self, due, stop)?;
            } else {
                io.drain(self)?;
            }
            // slots came back: after this request, the loop's top checks the limits
            self.paced_reap = true;
        }
        self.nap(due);
        // the rate's wait, from the request's readiness to its due time
        let t1 = clock.now();
        self.st.wait_ns += clock.ns(t0, t1);
        Ok(self.deadline.is_none_or(|d| t1 < d))
    }

    /// Write buffer contents: dedupe shape, refill, verify header, read-back record.
    #[inline(always)]
    fn fill_write(&mut self, buf: *mut u8, file: usize, offset: u64, bs: u64) {
        let plan = self.w.plan;
        let data = &plan.work.data;
        // SAFETY: the slot's buffer is not in flight; we own it.
        let b = unsafe { std::slice::from_raw_parts_mut(buf, bs as usize) };
        if let Some(dd) = &mut self.w.dedupe {
            dd.fill(b);
        } else if data.refill {
            fill_buf(
                b,
                &mut self.w.buf_rng,
                data.zero,
                (data.compress_pct, data.compress_chunk),
                &data.pattern,
            );
        } else if self.scramble {
            scramble(b, offset);
        }
        if let Some(spec) = self.w.vspec() {
            self.w.seq += 1;
            verify::fio::stamp_with(b, offset, plan.seed, self.w.seq, &spec);
        }
        if self.track_writes {
            self.w.note_write(file, offset, bs as usize, self.w.seq);
        }
    }

    /// The sync due before the job's next request ([`FioRules::sync_if_due`]); when
    /// the last request's count ended a loop (a random job's full map), fio's
    /// synchronous thread drew once more in that loop, finding it done, first.
    fn sync_before<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>) -> Result<(), RunError> {
        let loop_no = self.w.loop_no;
        if loop_no != self.sy.seen && !E::KIND.queues() {
            self.sync_if_due(io, None, self.sy.seen)?;
        }
        self.sync_if_due(io, None, loop_no)
    }

    /// The request just drawn began a new loop (it was drawn in loop `before`): fio
    /// syncs at a loop's first request.
    fn sync_in_new_loop<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        file: usize,
        before: u64,
    ) -> Result<(), RunError> {
        let now = self.w.loop_no;
        if now != before {
            self.sync_if_due(io, Some(file), now)?;
        }
        self.sy.seen = now;
        Ok(())
    }

    /// Whether fio 3.33's do_io asks for one more request after the job's last one: its
    /// bytes issued stay under `io_size` (else `size`) times `loops` — a size that is no
    /// whole number of blocks, the last block not issued — and neither the runtime, a
    /// stop nor `number_ios` ended it. That request's draw makes a due sync (`size=18k
    /// bs=4k fsync=1`: 4 writes, 4 syncs).
    fn draws_past_end(&self) -> bool {
        !self.w.plan.work.limits.time_based
            && !self.timed_out
            && !self.stop.load(Ordering::Relaxed)
            && self.issued_ios < self.ios_limit
            && self.issued_bytes < self.w.plan.issue_limit
    }

    /// fio 3.33's sync every N writes (io_u.c `get_rw_ddir`): at its next request a
    /// job syncs when its writes issued are a multiple of `fsync`'s N (else
    /// `fdatasync`'s, else `sync_file_range`'s) and no request completed since its last
    /// sync in this loop (`should_fsync`'s `last_was_sync`, cleared by a completion and
    /// by a new loop's `clear_io_state`). So no sync follows the last write of a job
    /// that ends by its bytes, a loop that ends finding its files done syncs once more
    /// and the next one syncs at its start. The requests in flight are not waited for:
    /// fio's libaio syncs at once when nothing waits to be submitted (`fio_libaio_queue`),
    /// its io_uring and posixaio queue the sync beside them, so at `iodepth` 4 and
    /// `fsync=1` each completion is followed by a sync (13 for 16 writes, as fio). The
    /// sync is a request of its own: without a `file` given it goes to the file the
    /// file service picks next, taking that turn (fio's `set_io_u_file` runs before
    /// `get_rw_ddir` returns `DDIR_SYNC`: with `nrfiles=2` fio writes f0 and syncs f1 in
    /// turn), or to the last file written when there is no pick (a replayed log, one
    /// file, every file done or busy).
    #[inline(never)]
    fn sync_if_due<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        file: Option<usize>,
        lp: u64,
    ) -> Result<(), RunError> {
        let n = self.sy.writes;
        if n == 0 || self.sy.mark == (self.ios(), lp) {
            return Ok(());
        }
        let y = &self.w.plan.work.syncs;
        let every = |k: u64| k > 0 && n.is_multiple_of(k);
        let kind = if every(y.fsync_every) {
            SyncKind::Fsync
        } else if every(y.fdatasync_every) {
            SyncKind::Fdatasync
        } else if let Some((flags, _)) = y.range_every.filter(|&(_, k)| every(k)) {
            SyncKind::Range(flags)
        } else {
            return Ok(());
        };
        io.stale();
        let file = file.unwrap_or_else(|| self.sync_target());
        if let Some(l) = &mut self.w.logs {
            // write_iolog: fio's line of the sync request (its ddir name, the offset
            // the reused request held, length 0)
            let act = match kind {
                SyncKind::Fsync => "sync",
                SyncKind::Fdatasync => "datasync",
                SyncKind::Range(_) => "sync_file_range",
            };
            l.iolog(file, act, self.sy.offset, 0);
        }
        self.w
            .sync_file(io.eng, &mut self.st, file, kind, self.measuring)?;
        self.sy.mark = (self.ios(), lp);
        Ok(())
    }
}

impl FioRules<'_> {
    /// The file of a sync drawn as the next request ([`FioRules::sync_if_due`]): the
    /// file service's pick, or the last file written.
    fn sync_target(&mut self) -> usize {
        if self.w.plan.replay.is_some() || self.w.plan.files.len() < 2 {
            return self.sy.target;
        }
        self.w.next_file().unwrap_or(self.sy.target)
    }
}

impl FioRules<'_> {
    /// fio's handle_thinktime, after each submit and each reap: when a think is due,
    /// the requests in flight complete first (fio's io_u_quiesce, so the think does
    /// not stretch their latency), then the job thinks.
    fn think<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>) -> Result<(), RunError> {
        if !self.w.think_due() {
            return Ok(());
        }
        io.stale();
        io.drain(self)?;
        let (t0, end) = self.w.think_spin();
        self.nap(end);
        self.st.wait_ns += self.w.clock.ns(t0, self.w.clock.now());
        Ok(())
    }

    /// Sleep until clock tick `t` (in ≤ 20 ms steps, so a stop request is seen
    /// quickly), answering a `--status-interval` report's request for a copy of the
    /// recorder meanwhile: a job waiting on its think time or rate is reported with
    /// its figures so far, as fio's report reads them while the job sleeps.
    fn nap(&mut self, t: u64) {
        let clock = self.w.clock;
        loop {
            let now = clock.now();
            if now >= t || self.stop.load(Ordering::Relaxed) {
                return;
            }
            if let Some(l) = self.w.live.filter(|l| l.want_stats.load(Ordering::Relaxed)) {
                self.give_stats(l, now);
            }
            let mut ns = clock.ns(now, t).min(20_000_000);
            let logged = self.w.logs.as_ref().is_some_and(Logs::takes_rates);
            if self.measuring && logged {
                // a windowed bandwidth/IOPS log's samples are taken while the job waits
                // too, as fio's sampling thread takes them
                if now >= self.samp.next {
                    self.sample(now);
                }
                if self.samp.next < t {
                    ns = ns.min(clock.ns(now, self.samp.next.max(now)));
                }
            }
            std::thread::sleep(std::time::Duration::from_nanos(ns.max(1)));
        }
    }

    /// Take the bandwidth and IOPS samples due at `now` (stats/rates.rs `RateSampler`);
    /// a windowed log gets each of them (run/fio/log.rs `Logs::rate`), at its time in
    /// ms since the measured run's start.
    fn sample(&mut self, now: u64) {
        let (r, w, t) = (&self.st.read, &self.st.write, &self.st.trim);
        let (bytes, ios) = ([r.bytes, w.bytes, t.bytes], [r.ios, w.ios, t.ios]);
        self.samp.tick(self.w.clock, now, bytes, ios);
        if let Some(l) = &mut self.w.logs {
            for s in self.samp.take_kept() {
                let at = self
                    .w
                    .clock
                    .ns(self.measure_start, s.at.max(self.measure_start));
                l.rate(s.iops, at / 1_000_000, s.dir, s.value);
            }
        }
    }

    /// Wait for a log entry's tick, reaping completions meanwhile. The last
    /// millisecond is spun with non-blocking reaps, as fio's iolog_delay polls through
    /// the whole delay: a sleep overshoots a delay of microseconds many times over.
    fn replay_wait<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        due: u64,
    ) -> Result<(), RunError> {
        let clock = self.w.clock;
        let spin = clock.ticks(Duration::from_millis(1));
        if clock.now() + spin < due {
            io.reap_until(self, due - spin, self.stop)?;
            self.nap(due - spin);
        }
        while clock.now() < due && !self.stop.load(Ordering::Relaxed) {
            if io.in_flight() > 0 {
                io.reap(self, 0)?;
            } else {
                std::hint::spin_loop();
            }
        }
        Ok(())
    }

    /// `read_iolog`: the next I/O of the log, after waiting for its time (completions
    /// are reaped meanwhile, as fio's iolog_delay does) and doing the syncs before it;
    /// None when the log is done or the run must stop.
    fn replay_next<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
    ) -> Result<Option<(Op, usize, u64, u64)>, RunError> {
        use crate::run::fio::replay::Act;
        let clock = self.w.clock;
        while let Some((e, due)) = self.w.replay_entry(self.start) {
            let began = due.map(|_| clock.now());
            if let Some(due) = due {
                self.replay_wait(io, due)?;
            }
            if self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| clock.now() >= d)
            {
                return Ok(None);
            }
            let op = match e.act {
                Act::Read => Op::Read,
                Act::Write => Op::Write,
                Act::Trim => Op::Trim,
                Act::Fsync | Act::Fdatasync => {
                    // a sync follows the writes before it (fio's engines quiesce first)
                    io.stale();
                    io.drain(self)?;
                    let kind = if e.act == Act::Fsync {
                        SyncKind::Fsync
                    } else {
                        SyncKind::Fdatasync
                    };
                    self.w
                        .sync_file(io.eng, &mut self.st, e.file, kind, self.measuring)?;
                    self.w.replay_done(&e, began);
                    continue;
                }
                Act::WaitMs(_) | Act::File => {
                    self.w.replay_done(&e, began);
                    continue;
                }
            };
            self.w.replay_done(&e, began);
            return Ok(Some((op, e.file, e.offset, e.len)));
        }
        Ok(None)
    }

    /// Whether this engine's requests are marked per batch handed over
    /// (`iodepth_batch_submit` above 1 on libaio or io_uring, fio's commit).
    #[inline(always)]
    fn commits<E: Engine>(&self) -> bool {
        use crate::util::engines::Kind;
        self.batched && matches!(E::KIND, Kind::Libaio | Kind::IoUring)
    }

    /// fio's commit of each batch the engine handed over since the last call: its
    /// requests' depth level (the requests in flight then, fio's `cur_depth`) and one
    /// submission of its size (`io_u_mark_depth`, `io_u_mark_submit`).
    #[inline(always)]
    fn handed<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>) {
        for (n, level) in io.take_handed() {
            self.st.depth.handed(n, level);
        }
    }

    /// The request for `slot` made ready, in place: its write data, the depth it is
    /// issued at, the engine request and its tag, and its `--debug=io` lines.
    #[inline(always)]
    fn ready<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        slot: usize,
        req: &mut Req<Tag>,
        (op, file, offset, bs): (Op, usize, u64, u64),
        ioprio: u16,
    ) {
        let buf = io.buf(slot);
        if op == Op::Write && !self.w.fds.is_empty() {
            self.fill_write(buf, file, offset, bs);
        }
        // fio's iodepth_level (in flight at submit, this one included); a batching
        // engine's at the batch's hand-over ([`FioRules::handed`])
        if op == Op::Trim || !self.commits::<E>() {
            self.st.depth.mark_level(io.in_flight() + 1);
        }
        *req = Req {
            io: IoReq {
                dir: if op == Op::Write {
                    Dir::Write
                } else {
                    Dir::Read
                },
                file,
                offset,
                len: bs as usize,
                buf,
                buf_index: slot as u16,
                ioprio,
            },
            by_rules: op == Op::Trim,
            tag: Tag {
                op,
                measured: self.measuring,
                before: 0,
            },
        };
        if self.trace_io {
            super::trace::issued(&req.io, req.by_rules, &self.w.plan.files[file].path);
        }
    }
}

impl FioRules<'_> {
    /// The end of `ramp_time`, seen at tick `now`: the measured run starts.
    #[cold]
    fn ramp_over(&mut self, now: u64) {
        let clock = self.w.clock;
        self.measuring = true;
        self.w.lat_from = 0;
        // fio's reset_all_stats zeroes the thinktime_blocks counts, the requests
        // and bytes issued and done
        self.w.think_blocks = 0;
        (self.issued_bytes, self.issued_ios, self.issued_all) = (0, 0, false);
        (self.round_bytes, self.sy.writes) = (0, 0);
        self.w.mix_zero();
        self.st.depth.restart();
        for d in [&mut self.st.read, &mut self.st.write, &mut self.st.trim] {
            (d.ios, d.bytes, d.short, d.unfilled, d.failed) = (0, 0, 0, 0, 0);
        }
        self.measure_start = now;
        // fio's runtime counts from the epoch its ramp_time_over resets to the
        // moment it saw the ramp's end: the measured run is never shorter than it
        if let Some(r) = self.w.plan.thread_job.time {
            self.deadline = Some(now + clock.ticks(r));
            self.samp.set_end(self.deadline);
        }
        self.w.phase(b'*');
        let ios = self.ios();
        if let Some(l) = &mut self.w.lat_target {
            l.new_cycle(clock.ns(self.start, now), ios);
        }
    }

    /// Whether a submit pass runs now (not when `done`). Every free slot is filled, as
    /// fio's do_io does; `iodepth_batch_submit` is how many queued requests the engine
    /// hands the kernel at once (engine/libaio.rs, engine/io_uring.rs), and a reap hands
    /// over what is still queued; a queue that filled up under `iodepth_low` first
    /// drains to it.
    #[inline(always)]
    fn may_submit<E: Engine>(&mut self, io: &Io<'_, E, Tag>, done: bool) -> Pass {
        if self.draining && io.in_flight() <= self.low {
            self.draining = false;
        }
        let submit = !done && io.in_flight() < self.cap && !self.draining;
        Pass { done, submit }
    }

    /// [`Rules::top`] of a lean job (`lean`): the ramp's end, the samples and the
    /// status report's copy, the job's end; no think time, pass hooks or backlog.
    #[inline(always)]
    fn top_lean<E: Engine>(&mut self, io: &Io<'_, E, Tag>, now: u64) -> Pass {
        self.clock_points(now);
        let done = self.ended_at(now);
        self.may_submit(io, done)
    }

    /// The points of the job's clock every pass checks: the ramp's end, a sample every
    /// bw/iops_avg_time (one compare per pass), and the copy of the recorder a
    /// `--status-interval` report asked for.
    #[inline(always)]
    fn clock_points(&mut self, now: u64) {
        if !self.measuring && now >= self.ramp_end {
            self.ramp_over(now);
        }
        if self.measuring && now >= self.samp.next {
            self.sample(now);
        }
        if let Some(l) = self.w.live.filter(|l| l.want_stats.load(Ordering::Relaxed)) {
            self.give_stats(l, now);
        }
    }

    /// Whether the job is done at `now` (a request's rest after a short transfer is
    /// issued first); the first time, whether its deadline ended it.
    #[inline(always)]
    fn ended_at(&mut self, now: u64) -> bool {
        let done = self.done(now) && !self.w.has_resid();
        if done && !self.ended {
            self.ended = true;
            self.timed_out = self.deadline.is_some_and(|d| now >= d);
        }
        done
    }

    /// [`Rules::next`] of a lean job (`lean`): the request picked, its coverage,
    /// counted against the limits and made ready; a short transfer's rest first.
    #[inline(always)]
    fn next_lean<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        slot: usize,
        req: &mut Req<Tag>,
    ) -> Next {
        if self.w.has_resid() {
            return self.reissue(io, slot, req);
        }
        let Some((op, file, offset, bs)) = self.w.next_request() else {
            return Next::Break;
        };
        if self.w.zone_eof {
            return Next::Break;
        }
        let plan = self.w.plan;
        if let Some(c) = &mut self.w.cov {
            c.touch(file, offset - plan.regions[file].0, bs);
        }
        // `count_issued` without a trimwrite pair, a mix, rounds or a pass that ends
        self.issued_bytes += bs;
        self.round_bytes += bs;
        self.issued_ios += 1;
        self.issued_all = self.issued_bytes >= self.byte_limit || self.issued_ios >= self.ios_limit;
        self.ready(io, slot, req, (op, file, offset, bs), 0);
        Next::Io
    }

    /// [`Rules::after`] of a lean job (`lean`): a queued request's submission counted
    /// on its own (`submit_each`), and whether the submit pass ends.
    #[inline(always)]
    fn after_lean<E: Engine>(&mut self, io: &Io<'_, E, Tag>, how: Submitted) -> bool {
        if self.submit_each && how == Submitted::Queued {
            self.st.depth.end_submit(false);
        }
        self.stop.load(Ordering::Relaxed)
            || self.issued_all
            || io.free() == 0
            || io.in_flight() == 0
            || io.in_flight() >= self.cap
            || self.w.filled.get()
    }
}

impl<'a> Rules for FioRules<'a> {
    type Tag = Tag;
    type Error = RunError;
    // fio's lat of a synchronous engine counts from the request made ready, its clat
    // from the issue
    const ISSUE_CLOCK: bool = true;

    #[inline(always)]
    fn top<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>, now: u64) -> Result<Pass, RunError> {
        if self.lean {
            return Ok(self.top_lean(io, now));
        }
        // the batches the reap's flush handed over (counted before a ramp's end resets)
        self.handed(io);
        // fio checks after each submit and the reap a full queue makes: here, after
        // the loop's reap (a think just taken is not checked again)
        if self.uses.think && std::mem::take(&mut self.reaped) && !self.done(now) {
            self.think(io)?;
        }
        self.clock_points(now);
        if self.pass_hooks {
            self.run_pass_hooks(io, now)?;
        }
        let done = self.ended_at(now);
        if self.uses.backlog && !done && self.w.backlog_due() {
            io.drain(self)?;
            self.w.verify_backlog(io.slab, &mut self.st)?;
        }
        Ok(self.may_submit(io, done))
    }
    #[inline(always)]
    fn next<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        slot: usize,
        req: &mut Req<Tag>,
    ) -> Result<Next, RunError> {
        if self.lean {
            return Ok(self.next_lean(io, slot, req));
        }
        if self.w.has_resid() {
            return Ok(self.reissue(io, slot, req));
        }
        if self.flow.as_mut().is_some_and(|f| f.held()) {
            self.flow_held = true;
            return Ok(Next::Break);
        }
        let loop_no = self.w.loop_no;
        if self.sy.on {
            self.sync_before(io)?;
        }
        let (op, file, offset, bs) = match self.w.plan.replay {
            Some(_) => self.replay_next(io)?.unwrap_or_else(|| {
                self.w.zone_eof = true;
                (Op::Read, 0, 0, 0)
            }),
            None => match self.w.next_request() {
                Some(r) => r,
                // `openfiles` are open: reap a completion (or pick again) first
                None => return Ok(Next::Break),
            },
        };
        if !self.w.zone_eof && self.w.vstate_stops(op, file, offset) {
            // verify_state_load: past the saved write job's completions (fio ends here)
            self.w.zone_eof = true;
        }
        if self.w.zone_eof {
            return Ok(Next::Break);
        }
        if self.sy.on {
            self.sync_in_new_loop(io, file, loop_no)?;
        }
        if self.w.unlink.due() {
            self.w.unlink_for_loop(file)?;
        }
        if std::mem::take(&mut self.w.round_eof) {
            // a direction reached the file's end: the round is over (verify_round)
            self.issued_all = true;
            return Ok(Next::Break);
        }
        let plan = self.w.plan;
        if let Some(c) = &mut self.w.cov {
            c.touch(file, offset - plan.regions[file].0, bs);
        }
        let ioprio = match &mut self.w.prio {
            Some(p) => p.pick(op == Op::Write, bs),
            None => 0,
        };
        if self.uses.rate && !self.pace(io, op, bs)? {
            return Ok(Next::Break);
        }
        if self.w.plan.replay.is_some() {
            // a replayed log's file opens at its first request, whatever `openfiles`
            self.w.open_any(file);
        }
        if self.w.plan.work.queue.serialize_overlap {
            self.serialize(io, slot, (offset, bs))?;
        }
        self.w.file_issued(file);
        if let Some(l) = &mut self.w.logs {
            // write_iolog: the request as it is issued
            l.iolog(file, op.name(), offset, bs);
        }
        self.count_issued(op, bs);
        self.ready(io, slot, req, (op, file, offset, bs), ioprio);
        Ok(Next::Io)
    }

    #[inline(always)]
    fn issue(&mut self, req: &Req<Tag>) -> Result<Option<usize>, IoErr> {
        let r = &req.io;
        self.w
            .trim(r.file, r.offset, r.len as u64)
            .map(|()| Some(r.len))
    }

    #[inline(always)]
    fn complete<E: Engine>(
        &mut self,
        _eng: &mut E,
        req: &Req<Tag>,
        res: Result<usize, IoErr>,
        at: Times,
    ) -> Result<(), RunError> {
        if self.lean && res.is_ok() && req.tag.before == 0 {
            let (slat, clat, lat) = at.lat(self.w.clock);
            self.w.complete_lean(&mut self.st, req, slat, clat, lat);
            return Ok(());
        }
        let (s, buf) = (req, req.io.buf);
        self.w.file_completed(req.io.file);
        if self.trace_io {
            let f = &self.w.plan.files[req.io.file].path;
            super::trace::completed(&req.io, req.by_rules, f);
        }
        match res {
            Ok(_) if s.tag.before > 0 => {
                let w = s.whole();
                self.done_req(&w, w.io.buf, at)
            }
            Ok(_) => self.done_req(s, buf, at),
            Err(IoErr::Short { done }) if self.w.plan.fio_errors && s.tag.op != Op::Trim => {
                match self.w.short_transfer(&mut self.st, s, done)? {
                    super::resid::Short::Done(w) => self.done_req(&w, w.io.buf, at),
                    super::resid::Short::Pending => Ok(()),
                }
            }
            Err(e) => {
                let r = self.w.io_fail(&mut self.st, s, e);
                if !at.queued && !E::KIND.queues() {
                    self.w.first_direct_errored(&self.st, s, e);
                }
                if r.is_err() && !at.queued {
                    self.w.fatal_counted(&mut self.st, s, e);
                }
                if !at.queued && matches!(E::KIND, crate::util::engines::Kind::Libaio) {
                    // libaio's io_submit refused it: fio's commit failed
                    return r.map_err(|e| self.w.refused_at_commit(e));
                }
                r
            }
        }
    }

    #[inline(always)]
    fn after<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        req: &Req<Tag>,
        how: Submitted,
        _t1: u64,
    ) -> Result<bool, RunError> {
        if self.lean {
            return Ok(self.after_lean(io, how));
        }
        let s = req;
        if self.submit_each && how == Submitted::Queued {
            // fio's iodepth_submit: one submission per request
            self.st.depth.end_submit(false);
        }
        self.handed(io);
        if std::mem::take(&mut self.drain_due) {
            io.drain(self)?;
        }
        if std::mem::take(&mut self.pass_done) {
            // a new pass: its first request finds the files out of the page cache (fio
            // closes, re-opens and invalidates them between loops; a time-based job
            // wraps with its queue full: `Uses::wrap`)
            if !self.uses.wrap {
                io.drain(self)?;
            }
            self.w.drop_cache();
            io.stale();
        }
        if self.uses.think {
            if s.tag.op != Op::Trim {
                self.w.think_count(true);
            }
            self.think(io)?;
        }
        if s.tag.op == Op::Write {
            self.sy.writes += 1;
            self.sy.target = s.io.file;
            self.sy.offset = s.io.offset;
        }
        Ok(self.stop.load(Ordering::Relaxed)
            || self.issued_all
            || self.w.mismatch_stop
            || io.free() == 0
            || io.in_flight() == 0
            || io.in_flight() >= self.cap
            || std::mem::take(&mut self.paced_reap)
            || self.w.filled.get()
            || (self.uses.backlog && self.w.backlog_due()))
    }

    #[inline(always)]
    fn pass_end(&mut self, in_flight: usize) {
        // fio's iodepth_submit (requests per submit pass, when not counted one by one)
        self.st.depth.end_submit(in_flight == 0);
        // a full queue waits for its requests in flight to drop to `iodepth_low`
        if in_flight >= self.cap && self.low < self.cap {
            self.draining = true;
        }
    }

    #[inline(always)]
    fn idle<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>) -> Result<(), RunError> {
        if !std::mem::take(&mut self.flow_held) {
            return Ok(());
        }
        // held back by the flow: fio lets in-flight I/O complete and sleeps flow_sleep
        // µs, or retries at once when flow_sleep=0
        io.stale();
        let sleep = self.w.plan.work.pacing.flow_sleep;
        if !sleep.is_zero() {
            io.drain(self)?;
            let clock = self.w.clock;
            let t0 = clock.now();
            self.nap(t0 + clock.ticks(sleep));
            self.st.wait_ns += clock.ns(t0, clock.now());
        } else if io.in_flight() == 0 {
            std::thread::yield_now();
        }
        Ok(())
    }

    #[inline(always)]
    fn reap_min(&self) -> usize {
        self.reap_min
    }

    #[inline(always)]
    fn reaping(&mut self, n: usize) {
        self.reaped = true;
        if self.trace_io {
            super::trace::reaped(n);
        }
        if self.w.mismatch_stop {
            // reaped after a read-only job's mismatch: counted as fio's two reaps then
            // (FioRules::finish)
            self.after_mismatch += n;
            return;
        }
        // fio's iodepth_complete (completions per reap call)
        self.st.depth.mark_complete(n);
    }

    fn reap_error(&self, e: IoErr) -> RunError {
        self.w.io_err(&Slot::blank(), e)
    }

    /// fio 3.33 after the error that ends a job's I/O (backend.c `cleanup_pending_aio`):
    /// the failed request was counted as submitted and completed as it returned (a
    /// synchronous engine's: `td_io_queue`); then one reap of what is ready, waiting for
    /// none (its count in `iodepth_complete` even when 0), and, with requests still in
    /// flight, one reap of all of them (taken in as many engine calls as its
    /// `iodepth_batch_complete_max` needs). Each reaped request is accounted: done when it
    /// moved its bytes, failed (and said, `ThreadFailure::lines`) when it failed.
    /// The bandwidth and IOPS samples taken until the error stay the job's, as fio's
    /// report of a failed job shows them (its helper thread sampled while the job ran).
    #[cold]
    fn wind_down<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>, e: RunError) -> RunError {
        self.st.rates = self.rates();
        if matches!(e, RunError::Verify { .. }) {
            // a mismatch's reaps are counted as fio's where it stops the job (`finish`)
            return e;
        }
        if e.refused_at_commit() {
            if self.commits::<E>() {
                // fio marks the batch's depth before its commit: the refused one and
                // those queued before it, at the depth they make together
                let level = io.in_flight() + 1;
                (0..=io.unsent()).for_each(|_| self.st.depth.mark_level(level));
            }
            // fio counts a submission when its commit succeeds: the requests of the
            // refused commit (one, or the batch of `iodepth_batch_submit`) are not
            self.st.depth.unsubmitted(u64::MAX);
        }
        self.st.depth.end_submit(io.in_flight() == 0);
        // the completions reaped with the failed one come first (fio's ios_completed
        // goes through its whole batch)
        let t = io.clock.now();
        let mut failed = io.account_each(self, t);
        for all in [false, true] {
            if all && io.in_flight() == 0 {
                break;
            }
            // the reap of all of them is one (fio's getevents takes at least `min`,
            // whatever iodepth_batch_complete_max says): it goes on until none is left
            let mut got = None;
            while let Ok(n) = io.reap_raw(if all { io.in_flight() } else { 0 }) {
                got = Some(got.unwrap_or(0) + n);
                let t = io.clock.now();
                failed.extend(io.account_each(self, t));
                if !all || n == 0 || io.in_flight() == 0 {
                    break;
                }
            }
            let Some(n) = got else { break };
            self.st.depth.mark_complete(n);
        }
        let fio = self.w.plan.fio_errors;
        let lines = failed
            .iter()
            .map(|f| {
                f.fio_words()
                    .filter(|_| fio)
                    .unwrap_or_else(|| f.to_string())
            })
            .collect();
        self.st.thread_failures.push(ThreadFailure {
            lines,
            ..Default::default()
        });
        e
    }

    fn finish<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>) -> Result<(), RunError> {
        self.handed(io);
        // the thread leaves its flow when its I/O phase ends (fio: when the job exits)
        self.flow = None;
        if self.w.mismatch_stop {
            // fio's `cleanup_pending_aio` after the error: a reap of what is there (at
            // most one, maybe none), then one of all the rest
            let n = self.after_mismatch;
            self.st.depth.mark_complete(n.min(1));
            if n > 1 {
                self.st.depth.mark_complete(n - 1);
            }
        }
        self.w.lat_report = Some(self.w.lat_target_report());
        if self.sy.on && self.draws_past_end() {
            self.sync_if_due(io, None, self.w.loop_no)?;
        }
        if self.issued_all && !self.timed_out && !self.stop.load(Ordering::Relaxed) {
            self.w.unlink_for_empty_loop(self.loop_spare)?;
        }
        let plan = self.w.plan;
        let work = &plan.work;
        // The final syncs belong to the measured time (public case C15, fio PR #837):
        // `end_fsync` and `fsync_on_close` on one file give the same bandwidth. They are
        // not sync I/Os: fio 3.33 accounts a sync only while the job runs (its end fsync
        // runs in TD_FSYNCING, the close-time one outside any I/O unit), so neither
        // shows in the `sync` block or its JSON.
        for on in [work.syncs.at_end, work.syncs.on_close] {
            if on && work.pick.rw.writes() {
                self.w.phase(b'F');
                let (clock, t) = (self.w.clock, self.w.clock.now());
                for f in 0..plan.files.len() {
                    self.w
                        .sync_file(io.eng, &mut self.st, f, SyncKind::Fsync, false)?;
                }
                self.st.end_sync_ns += clock.ns(t, clock.now());
            }
        }
        self.finish_stats();
        self.st.verify_ns = self.rounds_verify_ns;
        // fio's verify phase follows an I/O phase that ended by its limits, not one its
        // runtime ended (terminate), and stops at the runtime itself
        if self.track_writes && !self.w.stop.load(Ordering::Relaxed) && !self.timed_out {
            self.w.phase(b'V');
            let (clock, t) = (self.w.clock, self.w.clock.now());
            let r = self.read_back(io);
            self.st.verify_ns += clock.ns(t, clock.now());
            r?;
        }
        if let Some(l) = &mut self.w.logs {
            l.end(self.w.clock.ns(self.measure_start, self.w.clock.now()) / 1_000_000);
            l.finish()
                .map_err(|source| crate::files::dataset::FilesError::Output {
                    what: "log file",
                    source,
                })?;
        }
        if self.w.mismatches > 0 {
            return Err(RunError::Verify {
                job: work.name.clone(),
                count: self.w.mismatches,
                first: self.w.first_mismatch.clone().unwrap_or_default(),
                account: Box::new(self.w.verify_account()),
            });
        }
        Ok(())
    }
}

impl<'a> FioRules<'a> {
    /// `serialize_overlap`: while the request (`offset`, `len`) of `slot` overlaps one
    /// in flight, reap a completion (fio 3.33's `io_u_submit` answers FIO_Q_BUSY and
    /// do_io waits for one), so no two requests in flight at once share a byte; each
    /// wait is traced in `--debug=io` as fio's `in-flight overlap` line.
    #[cold]
    fn serialize<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        slot: usize,
        (offset, len): (u64, u64),
    ) -> Result<(), RunError> {
        while let Some(other) = io.in_flight_overlap(slot, offset, len) {
            if self.trace_io {
                super::trace::overlap((offset, len), other);
            }
            io.reap(self, 1)?;
        }
        Ok(())
    }

    /// Counts an issued request of `bs` bytes against the job's limits and its pass.
    #[inline(always)]
    fn count_issued(&mut self, op: Op, bs: u64) {
        // (rand)trimwrite: a trim and the write to the same block after it are one step
        // of the job's size, counted at the write (the pair ends together), so a pass
        // trims and writes every block (fio, its test t0024)
        let sized = if self.w.uses.trimwrite && op == Op::Trim {
            0
        } else {
            bs
        };
        // the bytes or requests reached the job's limit (`size`, `io_size`,
        // `number_ios`); as in fio 3.33 those of the ramp count until its end, which
        // zeroes them (reset_all_stats), so a job done inside its ramp_time ends there
        self.issued_bytes += sized;
        self.round_bytes += sized;
        self.issued_ios += 1;
        self.w.mix_issued(op);
        self.issued_all = self.issued_bytes >= self.byte_limit
            || self.round_bytes >= self.round_limit
            || self.issued_ios >= self.ios_limit;
        self.pass_done = if self.uses.repass {
            let end = sized > 0 && self.w.pass_step(sized);
            // a random job's new loop (fio's clear_io_state, `Worker::new_loop`): its
            // map was filled by the pass's bytes; a sequential job's starts when its
            // files are found done (`Worker::file_ended`). A random job of sequential
            // runs (`rw=randread:N`, percentage_random) goes on in the same loop in fio,
            // its runs restarting at a random block
            let p = &self.w.plan.work.pick;
            let runs = p.rw.random() && (p.rw_suffix != 1 || self.uses.pct_random);
            if end && p.rw.random() && !self.w.plan.work.limits.time_based && !runs {
                self.w.bytes_loop_end();
                self.loop_spare = self.issued_all;
            }
            end
        } else if self.uses.bytes_loop {
            // fio's do_io ends the loop at its bytes issued; the next is a new loop
            let end = sized > 0 && self.w.pass_step(sized);
            if end {
                if self.w.plan.thread_job.engine.queues() {
                    self.w.ends.loop_used();
                }
                self.w.new_loop();
                self.loop_spare = self.issued_all;
            }
            end
        } else {
            if self.uses.loop_drain && sized > 0 && self.w.pass_step(sized) {
                self.drain_due = true;
            }
            self.uses.recache && std::mem::take(&mut self.w.new_pass)
        };
    }

    /// The hooks of a pass top that only some jobs have (`pass_hooks`): the
    /// latency_target search and the depth it allows, the minimum-rate check, the end of
    /// a write-then-verify round.
    #[inline]
    fn run_pass_hooks<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        now: u64,
    ) -> Result<(), RunError> {
        if self.measuring && self.w.lat_target.is_some() {
            self.lat_target_step(io, now)?;
        }
        // without latency_target the cap stays the depth it starts at
        if let Some(l) = &self.w.lat_target {
            self.cap = l.depth().min(self.depth);
        }
        if self.uses.min_rate && self.measuring {
            self.w.check_min_rate(&self.st, now, self.measure_start)?;
        }
        if self.rounds
            && self.issued_all
            && self.rounds_left > 1
            && self.issued_bytes < self.byte_limit
            && !self.done_by_time(now)
        {
            self.verify_round(io)?;
        }
        Ok(())
    }

    /// The runtime is over or the job was told to stop: no new round.
    fn done_by_time(&self, now: u64) -> bool {
        self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| now >= d)
    }

    /// The end of one write-then-verify round (`Plan::verify_cycle`): the requests in
    /// flight complete, the round's writes are read back and checked (until the
    /// runtime), and the next round starts with its byte count at zero, as fio's
    /// thread loop does after `do_verify`. The verify time counts as the verify
    /// phase's, not the I/O phase's.
    fn verify_round<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>) -> Result<(), RunError> {
        io.drain(self)?;
        let clock = self.w.clock;
        let t = clock.now();
        self.w.phase(b'V');
        let r = self.read_back(io);
        self.rounds_verify_ns += clock.ns(t, clock.now());
        r?;
        self.w.phase(b'*');
        (self.round_bytes, self.issued_all) = (0, false);
        self.rounds_left = self.rounds_left.saturating_sub(1);
        self.rounds_done += 1;
        if let Some(mix) = self.w.plan.mix_rounds {
            self.w.restart_seq();
            self.w.mix_new_loop();
            // a mixed job: the bytes moved so far, its reads (the read-back's too) and
            // writes, decide whether another round starts; if not, the job is done
            let moved = self.st.read.bytes + self.st.write.bytes;
            if !mix.more(self.rounds_done, moved) {
                (self.byte_limit, self.issued_all) = (self.issued_bytes, true);
            }
        }
        Ok(())
    }

    /// Read back and check the writes not verified yet: on an engine that queues,
    /// through it at the job's depth (readback.rs: fio's verify reads are queued
    /// io_units, with their slat), else one pread after another.
    fn read_back<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>) -> Result<(), RunError> {
        // fio's verify phase starts with every file closed (`clear_io_state`); its
        // reads open them again
        self.w.close_all();
        if E::KIND.queues() {
            self.w.verify_back_queued(io, &mut self.st, self.deadline)
        } else {
            self.w.verify_back(io.slab, &mut self.st, self.deadline)
        }
    }

    /// The worker and the statistics back, once the loop is over.
    pub(super) fn into_parts(self) -> (Worker<'a>, JobStats) {
        (self.w, self.st)
    }

    /// A copy of the recorder for a `--status-interval` report, as the thread's record
    /// would have it if the I/O phase ended now: the directions settled, the rate
    /// samples, run time, CPU time, thread id and latency_target figures so far.
    #[cold]
    #[inline(never)]
    fn give_stats(&self, l: &super::Live, now: u64) {
        let mut s = self.st.clone();
        for d in [&mut s.read, &mut s.write, &mut s.trim] {
            d.settle();
        }
        s.interval = None;
        s.zone_resets = self.w.zones.as_ref().and_then(|z| z.zbd_resets());
        s.rates = self.rates();
        s.runtime_ns = match self.measuring {
            true => self
                .w
                .clock
                .ns(self.measure_start, now.max(self.measure_start)),
            false => 0,
        };
        use crate::stats::cpu::{CpuTimes, Who};
        s.cpu = CpuTimes::now(Who::Thread);
        // SAFETY: gettid(2) only returns the calling thread's id
        s.pid = u32::try_from(unsafe { libc::gettid() }).unwrap_or(0);
        l.give_stats(JobRecord {
            stats: s,
            lat_target: Some(self.w.lat_target_report()),
            ..JobRecord::default()
        });
    }

    /// The report's bandwidth and IOPS samples so far: the sampler's, or for a kind
    /// sampled per I/O (`Uses::unit`) the recorder's own.
    fn rates(&self) -> crate::stats::rates::RateSamples {
        let mut r = self.samp.finish();
        if self.uses.unit[0] {
            r.bw = self.st.rates.bw;
        }
        if self.uses.unit[1] {
            r.iops = self.st.rates.iops;
        }
        r
    }

    /// Zone resets, rate samples, runtime and coverage of the finished I/O phase.
    fn finish_stats(&mut self) {
        let clock = self.w.clock;
        self.st.zone_resets = self.w.zones.as_ref().and_then(|z| z.zbd_resets());
        self.st.rates = self.rates();
        // a job done inside its ramp_time: fio's runtime then counts from the start
        self.st.runtime_ns = clock
            .ns(self.measure_start, clock.now())
            .saturating_sub(self.rounds_verify_ns);
        let maps = &self.w.maps;
        self.w.cov_report = self.w.cov.as_ref().map(|c| {
            let mut s = c.stats();
            if !c.has_bits() {
                // map slots are coverage blocks (both: the plan's offset alignment)
                s.blocks_touched = maps.iter().flatten().map(RandomMap::covered).sum();
            }
            s
        });
    }
}

/// Whether a job takes the lean per-request path: it uses none of the features the
/// worker consults per request — rate or think time, flow, a replayed log, verify (its
/// stamps, checks, backlog, rounds, saved or loaded state), logs and `--debug=io`,
/// zones, per-request priorities, `serialize_overlap`, an `openfiles` limit, `unlink_each_loop`, a mixed or
/// trimwrite direction, every-N syncs, a pass or loop ended by its bytes (cache drop,
/// drain), latency_target, a minimum rate or `max_latency`, submit batches
/// (`iodepth_batch_submit` above 1: their hand-overs are counted in the full path,
/// [`FioRules::handed`]). Each of them keeps its full path; for a job without them the
/// lean path does exactly what the full one does, without the checks.
fn lean_of(w: &Worker<'_>, no_flow: bool) -> bool {
    let (plan, u) = (w.plan, &w.uses);
    let work = &plan.work;
    let syncs = &work.syncs;
    no_flow
        && !crate::util::debug::on("io")
        && !u.rate
        && !u.think
        && !u.min_rate
        && !u.verify
        && !u.backlog
        && !u.logs
        && !u.trimwrite
        && !(u.recache || u.repass || u.loop_drain || u.bytes_loop)
        && w.logs.is_none()
        && w.zones.is_none()
        && w.prio.is_none()
        && w.mix.is_none()
        && w.vrec.is_none()
        && w.replay.is_none()
        && w.lat_target.is_none()
        && w.unlink.never()
        && !w.fopen.limited()
        && plan.replay.is_none()
        && plan.vstate.is_none()
        && plan.verify_cycle == 0
        && !work.queue.serialize_overlap
        && syncs.fsync_every == 0
        && syncs.fdatasync_every == 0
        && syncs.range_every.is_none()
        && work.failure.max_latency == [0; 2]
        && work.queue.batch <= 1
}

/// Where a job stands in fio 3.33's sync every N writes ([`FioRules::sync_if_due`]).
struct SyncState {
    /// `fsync`, `fdatasync` or `sync_file_range` every N writes is set
    on: bool,
    /// writes issued (fio's `io_issues[DDIR_WRITE]`: over every loop, zeroed at the
    /// end of ramp_time)
    writes: u64,
    /// the requests completed and the loop at the last sync (fio's `last_was_sync`
    /// while both are unchanged)
    mark: (u64, u64),
    /// the file of the last write
    target: usize,
    /// the offset of the last write (a sync's `write_iolog` line keeps it, as fio's
    /// reused request does)
    offset: u64,
    /// the loop of the job's last request
    seen: u64,
}

impl SyncState {
    fn of(y: &crate::job::model::workload::SyncPoints) -> SyncState {
        SyncState {
            on: y.fsync_every > 0 || y.fdatasync_every > 0 || y.range_every.is_some(),
            writes: 0,
            mark: (u64::MAX, 0),
            target: 0,
            offset: 0,
            seen: 0,
        }
    }
}

/// The job's bandwidth/IOPS sampler: at the intervals the job samples by
/// (run/fio/log.rs's `sample_intervals`), never for a kind it does not sample by
/// interval. It keeps its samples for `logs` when they have windowed bandwidth/IOPS logs.
fn sampler(plan: &Plan, logs: Option<&Logs>) -> RateSampler {
    const NEVER_MS: u64 = 1 << 40;
    let [bw, iops] = plan.sample_intervals();
    let mut s = RateSampler::new(bw.unwrap_or(NEVER_MS), iops.unwrap_or(NEVER_MS));
    if logs.is_some_and(Logs::takes_rates) {
        s.keep();
    }
    s
}

/// fio's `scramble_buffers` (io_u.c `small_content_scramble`): in every 512-byte
/// sector of a write, the sector's offset at one of its first eight 64-byte lines
/// (picked from the time and the offset) and the time (seconds, nanoseconds of
/// CLOCK_MONOTONIC) in the last 16 bytes of its first line, so no two writes of the
/// same buffer are alike for a deduplicating device.
fn scramble(b: &mut [u8], offset: u64) {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec passed
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    let (sec, nsec) = (ts.tv_sec as u64, ts.tv_nsec as u64);
    let line = (((nsec ^ offset) & 7) << 6) as usize;
    for (i, s) in b.chunks_exact_mut(512).enumerate() {
        let off = offset + 512 * i as u64;
        s[line..line + 8].copy_from_slice(&off.to_ne_bytes());
        s[48..56].copy_from_slice(&sec.to_ne_bytes());
        s[56..64].copy_from_slice(&nsec.to_ne_bytes());
    }
}
