//! One job thread of `iomark run`: picks each request (direction, block size, offset
//! from the job's distribution and random map), paces it (rate, think time), drives
//! the engine, checks or stamps verify headers, records latencies and logs, and after
//! the I/O phase runs the verify read-back and the end-of-job syncs.
//!
//! Latency semantics are fio's (see [`crate::run::fio`]). Trims (`rw=trim|randtrim|
//! trimwrite`) are punched holes (`fallocate(PUNCH_HOLE|KEEP_SIZE)`) on files and
//! BLKDISCARD on block devices, issued synchronously outside the engine.
//!
//! This file holds the Worker's state and the I/O loop; request generation is in
//! `fio_request.rs`, the completion side in `fio_account.rs`, verify backlog in
//! `fio_backlog.rs` (child modules: they share the Worker's private state).

use crate::run::fio::{io_why, JobStats, Plan, RunError};
use crate::run::gen::{fit_size, seq_next, RandomMap, Rng, SlotGen};
use crate::run::fio::log::Logs;
use crate::run::gen::sprandom::SpRandom;
use crate::run::verify;
use crate::run::gen::zones::Zones;
use crate::engine::buffers::Slab;
use crate::engine::{Completion, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::job::fio::{BlockSizes, RwMode};
use crate::job::fio::keys::RateProcess;
use crate::stats::clock::Clock;
use std::collections::BTreeMap;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

mod account;
mod backlog;
mod request;
pub(crate) use request::fill_buf;
use request::sleep_until;

/// Operation of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Op {
    #[default]
    Read,
    Write,
    Trim,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
        }
    }
    fn idx(self) -> usize {
        match self {
            Op::Read => 0,
            Op::Write => 1,
            Op::Trim => 2,
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Slot {
    t0: u64,
    t1: u64,
    op: Op,
    file: usize,
    offset: u64,
    len: usize,
    measured: bool,
    ioprio: u16,
}

/// Live counters of one thread for `--status-interval`, `--plot` and steady state:
/// bytes read, bytes written, reads, writes, then the sum (ns) and count of their
/// completion latencies (measured I/O only; relaxed stores by the worker, loads by the
/// coordinating thread).
pub type Live = [std::sync::atomic::AtomicU64; 6];

/// What a job uses, decided once so the per-I/O path skips what it does not.
#[derive(Clone, Copy, Debug, Default)]
struct Uses {
    random: bool,
    pct_random: bool,
    rate: bool,
    think: bool,
    min_rate: bool,
    verify: bool,
    logs: bool,
    gtod_reduce: bool,
    one_file: bool,
    trimwrite: bool,
    live: bool,
    /// `verify_backlog` > 0
    backlog: bool,
    /// buffered job with `invalidate` and more than one pass (`loops`, `time_based`):
    /// the page cache is dropped at every new pass, as fio's re-open does
    repass: bool,
    /// fixed read / write block size
    fixed_bs: [Option<u64>; 2],
}

/// The request generator and pacing state of one thread.
pub(crate) struct Worker<'a> {
    pub plan: &'a Plan,
    pub clock: &'a Clock,
    pub stop: &'a AtomicBool,
    pub rng: Rng,
    cursors: Vec<u64>,
    rr: usize,
    seq_left: u64,
    last: (usize, u64),
    gens: Vec<[SlotGen; 2]>,
    maps: Vec<Option<RandomMap>>,
    rate_next: [u64; 2],
    think_count: u64,
    /// blocks written and not yet verified: (file, offset) → (length, write sequence)
    written: BTreeMap<(usize, u64), (usize, u64)>,
    mismatches: u64,
    first_mismatch: Option<String>,
    logs: Option<Logs>,
    fds: Vec<RawFd>,
    buf_rng: Rng,
    trimmed: Option<(usize, u64, u64)>,
    /// minimum-rate check: window start tick and (bytes, ios) per direction at it
    min_win: (u64, [u64; 2], [u64; 2]),
    uses: Uses,
    live: Option<&'a Live>,
    /// `latency_target` search (set when the I/O loop starts)
    lat_target: Option<crate::run::control::lat_target::LatTarget>,
    /// per-request ioprio picker (cmdprio_*, prioclass/prio)
    prio: Option<crate::run::fio::prio::CmdPrio>,
    /// dedupe-shaped write buffers (dedupe_percentage)
    dedupe: Option<crate::run::fio::dedupe::Dedupe>,
    /// coverage and issued sizes of random jobs (public case C13)
    cov: Option<crate::run::gen::coverage::Coverage>,
    /// which files are block devices (trims are BLKDISCARD there)
    blkdev: Vec<bool>,
    /// `zonemode` state (None without zones)
    zones: Option<Zones>,
    /// zbd: nothing left to read or trim, sprandom: stream done (fio ends the job)
    zone_eof: bool,
    /// `sprandom=1` write stream
    spr: Option<SpRandom>,
    /// `verify_backlog`: blocks written since the last backlog verify
    backlog: Vec<(usize, u64)>,
    /// write sequence number of the last write (fio's numberio)
    seq: u64,
    /// `fill_device`: the device is full (ENOSPC), the job ends normally
    filled: std::cell::Cell<bool>,
    /// bytes left in the current pass (`Uses::repass`)
    pass_left: u64,
}

impl<'a> Worker<'a> {
    /// Drive `eng` until the job's limits; then verify read-back and final syncs.
    /// Returns the job's statistics together with the error that ended it, if any:
    /// a failed job keeps the report of the I/O it completed (fio prints it with
    /// `err=`). After a failure mid-run, `runtime_ns` is the time from the end of
    /// `ramp_time` to the failure.
    pub fn run<E: Engine>(
        &mut self,
        eng: &mut E,
        slab: &Slab,
        depth: usize,
    ) -> (JobStats, Option<RunError>) {
        let job = &self.plan.job;
        let m = &job.more;
        let mut st = JobStats {
            name: job.name.clone(),
            threads: 1,
            options: job.options.clone(),
            engine: eng.name(),
            percentiles: m.percentile_list.clone().unwrap_or_default(),
            clat_percentiles: m.clat_percentiles,
            lat_percentiles: m.lat_percentiles,
            units: crate::report::fio::num::TextUnits {
                decimal: job.kb_base == 1000,
                bits: job.unit_base_bits,
            },
            ..JobStats::default()
        };
        let t0 = self.clock.now();
        let r = self.run_inner(&mut st, eng, slab, depth);
        // synchronous completions into clat and lat, also for a failed job's report
        for d in [&mut st.read, &mut st.write, &mut st.trim] {
            d.settle();
        }
        match r {
            Ok(()) => (st, None),
            Err(e) => {
                let clock = self.clock;
                if st.runtime_ns == 0 {
                    let measured_from = t0 + clock.ticks(self.plan.job.ramp_time);
                    st.runtime_ns = clock.ns(measured_from, clock.now().max(measured_from));
                }
                if st.lat_target.is_none() {
                    // fio reports the latency_target keys of a failed job too
                    st.lat_target = Some(match &self.lat_target {
                        Some(l) => l.report(),
                        None => crate::run::control::lat_target::LatTargetReport {
                            depth: self.plan.job.iodepth,
                            target_ns: 0,
                            window_us: 0,
                            percentile: 100.0,
                        },
                    });
                }
                if let Some(l) = &mut self.logs {
                    // the logs of the I/O done so far are kept, as fio keeps them
                    let _ = l.finish();
                }
                (st, Some(e))
            }
        }
    }

    /// The body of [`Worker::run`]: fills `st` as it goes, so the I/O completed
    /// before an error is still in it when this returns the error. (`mut st` and the
    /// allow: the body keeps its `&mut st` / `&st` borrows from when it owned `st`.)
    #[allow(clippy::needless_borrow)]
    fn run_inner<E: Engine>(
        &mut self,
        mut st: &mut JobStats,
        eng: &mut E,
        slab: &Slab,
        depth: usize,
    ) -> Result<(), RunError> {
        let plan = self.plan;
        let job = &plan.job;
        let m = &job.more;
        let clock = self.clock;
        let start = clock.now();
        let ramp_end = start + clock.ticks(job.ramp_time);
        let mut measuring = job.ramp_time.is_zero();
        let mut measure_start = start;
        let deadline = job.runtime.map(|r| ramp_end + clock.ticks(r));
        let mut slots = vec![Slot::default(); depth];
        let mut free: Vec<usize> = (0..depth).rev().collect();
        let mut in_flight = 0usize;
        let mut issued_bytes = 0u64;
        let mut issued_ios = 0u64;
        let mut since_sync = 0u64;
        let mut since_dsync = 0u64;
        let mut fresh: Option<u64> = None;
        let mut comps: Vec<Completion> = Vec::with_capacity(depth);
        let track_writes = m.verify.is_some() && m.do_verify && job.rw.writes();
        let batch = (m.iodepth_batch.max(1) as usize).min(depth);
        let reap_min = (m.iodepth_batch_complete_min.max(1) as usize).min(depth);
        let ctl = &job.control;
        // flow: this thread's share among the jobs of its flow_id (run/control/flow.rs)
        let mut flow = (ctl.flow > 0)
            .then(|| plan.flows.as_ref().map(|f| f.join(ctl.flow_id, ctl.flow)))
            .flatten();
        let mut flow_held = false;
        let mut paced_reap = false;
        // latency_target: the depth search runs over the measured I/O (after ramp_time)
        self.lat_target = ctl
            .lat_target
            .map(|t| crate::run::control::lat_target::LatTarget::new(t, depth as u32, 0, 0));
        let mut lt_done = false;
        let ios_of = |st: &JobStats| st.read.ios + st.write.ios + st.trim.ios;
        // H2 hook: fio's bw/iops samples (stats/rates.rs)
        let mut samp = crate::stats::rates::RateSampler::new(m.bw_avg_time, m.iops_avg_time);
        samp.set_end(deadline);
        loop {
            // a synchronous completion's clock read doubles as the loop's "now"
            let now = fresh.take().unwrap_or_else(|| clock.now());
            if !measuring && now >= ramp_end {
                measuring = true;
                measure_start = now;
                if let Some(l) = &mut self.lat_target {
                    l.new_cycle(clock.ns(start, now), ios_of(&st));
                }
            }
            // H2 hook: one compare per iteration; a sample every bw/iops_avg_time
            if measuring && now >= samp.next {
                let (r, w, t) = (&st.read, &st.write, &st.trim);
                samp.tick(
                    clock,
                    now,
                    [r.bytes, w.bytes, t.bytes],
                    [r.ios, w.ios, t.ios],
                );
            }
            if measuring && self.lat_target.is_some() {
                use crate::run::control::lat_target::LtAction;
                let t_ns = clock.ns(start, now);
                let (pending, act) = match &mut self.lat_target {
                    Some(l) => (l.take_pending(), l.check(t_ns, ios_of(&st))),
                    None => (false, LtAction::None),
                };
                if pending || act == LtAction::Quiesce || act == LtAction::FinalRun {
                    let b = (&mut free, &mut in_flight);
                    self.reap_until(
                        eng,
                        &mut st,
                        &slots,
                        slab,
                        b,
                        &mut comps,
                        None,
                        measure_start,
                    )?;
                    fresh = None;
                }
                if act == LtAction::FinalRun {
                    // depth found: statistics restart for one window at it (fio's
                    // reset_all_stats), so the report is that depth's
                    st.read = Default::default();
                    st.write = Default::default();
                    st.trim = Default::default();
                    st.sync = Default::default();
                    // H2 hook: depth counts and rate samples restart too (fio reset_io_stats)
                    st.depth = Default::default();
                    samp = crate::stats::rates::RateSampler::new(m.bw_avg_time, m.iops_avg_time);
                    samp.set_end(deadline);
                    measure_start = clock.now();
                }
                if act == LtAction::Done {
                    lt_done = true;
                }
                if pending || act != LtAction::None {
                    let t = clock.now();
                    let ios = ios_of(&st);
                    if let Some(l) = &mut self.lat_target {
                        l.new_cycle(clock.ns(start, t), ios);
                    }
                }
            }
            let cap = self
                .lat_target
                .as_ref()
                .map_or(depth, |l| l.depth().min(depth));
            if self.uses.min_rate && measuring {
                self.check_min_rate(&st, now)?;
            }
            let done = self.stop.load(Ordering::Relaxed)
                || lt_done
                || self.zone_eof
                || deadline.is_some_and(|d| now >= d)
                || (measuring && plan.byte_limit > 0 && issued_bytes >= plan.byte_limit)
                || (measuring && job.number_ios > 0 && issued_ios >= job.number_ios)
                || self.filled.get();
            if self.uses.backlog && !done && self.backlog_due() {
                fresh = None;
                let b = (&mut free, &mut in_flight);
                self.drain(eng, &mut st, &mut comps, &slots, slab, b, measure_start)?;
                self.verify_backlog(slab, &mut st)?;
            }
            // iodepth_batch_submit: wait until that many slots are free before submitting
            if !done && (free.len() >= batch || in_flight == 0) && in_flight < cap {
                while let Some(slot) = free.pop() {
                    if flow.as_mut().is_some_and(|f| f.held()) {
                        free.push(slot);
                        flow_held = true;
                        break;
                    }
                    let (op, file, offset, bs) = self.next_req();
                    if self.zone_eof {
                        free.push(slot);
                        break;
                    }
                    if let Some(c) = &mut self.cov {
                        c.touch(file, offset - plan.regions[file].0, bs);
                    }
                    let ioprio = match &mut self.prio {
                        Some(p) => p.pick(op == Op::Write, bs),
                        None => 0,
                    };
                    if self.uses.rate {
                        if let Some(due) = self.pace_due(op, bs, start) {
                            if in_flight > 0 && clock.now() < due {
                                // offload: completions are reaped as they arrive while the
                                // submitter waits; inline: fio quiesces before a rate sleep
                                let until = ctl.offload.then_some(due);
                                let b = (&mut free, &mut in_flight);
                                self.reap_until(
                                    eng,
                                    &mut st,
                                    &slots,
                                    slab,
                                    b,
                                    &mut comps,
                                    until,
                                    measure_start,
                                )?;
                                // slots came back: after this request, the loop's top
                                // checks the limits again
                                paced_reap = true;
                            }
                            sleep_until(clock, due, self.stop);
                            // the wait ran into the end of the runtime: issue nothing more
                            // (fio: rate_iops=1 for 1 s is one request, not two)
                            if deadline.is_some_and(|d| clock.now() >= d) {
                                free.push(slot);
                                break;
                            }
                        }
                    }
                    if measuring {
                        issued_bytes += bs;
                        issued_ios += 1;
                    }
                    let pass_done = self.uses.repass && self.pass_step(bs);
                    let buf = slab.bufs[slot].ptr();
                    if op == Op::Write && !self.fds.is_empty() {
                        // SAFETY: the slot's buffer is not in flight; we own it.
                        let b = unsafe { std::slice::from_raw_parts_mut(buf, bs as usize) };
                        if let Some(dd) = &mut self.dedupe {
                            dd.fill(b);
                        } else if m.refill_buffers {
                            fill_buf(
                                b,
                                &mut self.buf_rng,
                                m.zero_buffers,
                                m.buffer_compress_percentage,
                            );
                        }
                        if let Some(spec) = self.vspec() {
                            self.seq += 1;
                            verify::fio::stamp_with(b, offset, plan.seed, self.seq, &spec);
                        }
                        if track_writes {
                            self.note_write(file, offset, bs as usize, self.seq);
                        }
                    }
                    // H2 hook: fio's iodepth_level (in flight at submit, this one included)
                    st.depth.mark_level(in_flight + 1);
                    let t0 = clock.now();
                    let r = match op {
                        Op::Trim => self.trim(file, offset, bs).map(|()| Some(bs as usize)),
                        _ => eng.submit(
                            slot,
                            &IoReq {
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
                        ),
                    };
                    let t1 = clock.now();
                    let s = Slot {
                        t0,
                        t1,
                        op,
                        file,
                        offset,
                        len: bs as usize,
                        measured: measuring,
                        ioprio,
                    };
                    match r {
                        Ok(Some(n)) => {
                            if n != s.len {
                                self.io_fail(&mut st, &s, IoErr::Short { done: n })?;
                            } else {
                                let l = clock.ns(t0, t1);
                                self.complete(&mut st, &s, buf, None, l, l, (t1, measure_start))?;
                                fresh = Some(t1);
                            }
                            free.push(slot);
                        }
                        Ok(None) => {
                            slots[slot] = s;
                            in_flight += 1;
                        }
                        Err(e) => {
                            self.io_fail(&mut st, &s, e)?;
                            free.push(slot);
                        }
                    }
                    if pass_done {
                        // a new pass: its first request finds the files out of the page
                        // cache (fio closes, re-opens and invalidates them between passes)
                        let b = (&mut free, &mut in_flight);
                        self.reap_until(eng, st, &slots, slab, b, &mut comps, None, measure_start)?;
                        self.drop_cache();
                        fresh = None;
                    }
                    if self.uses.think {
                        self.think();
                        fresh = None;
                    }
                    if op == Op::Write {
                        since_sync += 1;
                        since_dsync += 1;
                        let fs = job.fsync > 0 && since_sync >= job.fsync;
                        let fds = m.fdatasync > 0 && since_dsync >= m.fdatasync;
                        if fs || fds {
                            fresh = None;
                            // drain, then sync the file (fio orders the sync after the writes)
                            while in_flight > 0 {
                                comps.clear();
                                eng.reap(in_flight, &mut comps)
                                    .map_err(|e| self.io_err(&s, e))?;
                                let t = clock.now();
                                let b = (&mut free, &mut in_flight);
                                self.account(&mut st, &comps, &slots, slab, b, (t, measure_start))?;
                            }
                            if fs {
                                since_sync = 0;
                                self.sync_file(eng, &mut st, file, SyncKind::Fsync, measuring)?;
                            }
                            if fds {
                                since_dsync = 0;
                                self.sync_file(eng, &mut st, file, SyncKind::Fdatasync, measuring)?;
                            }
                        }
                    }
                    if self.stop.load(Ordering::Relaxed)
                        || (plan.byte_limit > 0 && measuring && issued_bytes >= plan.byte_limit)
                        || (job.number_ios > 0 && measuring && issued_ios >= job.number_ios)
                        || free.is_empty()
                        || in_flight == 0
                        || in_flight >= cap
                        || std::mem::take(&mut paced_reap)
                        || self.filled.get()
                        || (self.uses.backlog && self.backlog_due())
                    {
                        break;
                    }
                }
                // H2 hook: fio's iodepth_submit (requests per submit pass)
                st.depth.end_submit(in_flight == 0);
            }
            if std::mem::take(&mut flow_held) {
                // held back by the flow: fio lets in-flight I/O complete and sleeps
                // flow_sleep µs, or retries at once when flow_sleep=0
                fresh = None;
                if !ctl.flow_sleep.is_zero() {
                    let b = (&mut free, &mut in_flight);
                    self.reap_until(
                        eng,
                        &mut st,
                        &slots,
                        slab,
                        b,
                        &mut comps,
                        None,
                        measure_start,
                    )?;
                    sleep_until(clock, clock.now() + clock.ticks(ctl.flow_sleep), self.stop);
                } else if in_flight == 0 {
                    std::thread::yield_now();
                }
            }
            if in_flight == 0 {
                if done {
                    break;
                }
                continue;
            }
            comps.clear();
            let want = if done { 1 } else { reap_min.min(in_flight) };
            eng.reap(want, &mut comps)
                .map_err(|e| self.io_err(&Slot::default(), e))?;
            // H2 hook: fio's iodepth_complete (completions per reap call)
            st.depth.mark_complete(comps.len());
            let t = clock.now();
            let b = (&mut free, &mut in_flight);
            self.account(&mut st, &comps, &slots, slab, b, (t, measure_start))?;
        }
        // the thread leaves its flow when its I/O phase ends (fio: when the job exits)
        drop(flow);
        st.lat_target = Some(match &self.lat_target {
            Some(l) => l.report(),
            None => crate::run::control::lat_target::LatTargetReport {
                depth: job.iodepth,
                target_ns: 0,
                window_us: 0,
                percentile: 100.0,
            },
        });
        // The final syncs belong to the measured time (public case C15, fio PR #837):
        // `end_fsync` and `fsync_on_close` on one file give the same bandwidth.
        if job.end_fsync && job.rw.writes() {
            for f in 0..plan.files.len() {
                self.sync_file(eng, &mut st, f, SyncKind::Fsync, true)?;
            }
        }
        if m.fsync_on_close && job.rw.writes() {
            for f in 0..plan.files.len() {
                self.sync_file(eng, &mut st, f, SyncKind::Fsync, true)?;
            }
        }
        st.zone_resets = self.zones.as_ref().and_then(|z| z.zbd_resets());
        // H2 hook: the bw/iops samples taken
        st.rates = samp.finish();
        st.runtime_ns = if measuring {
            clock.ns(measure_start, clock.now())
        } else {
            0
        };
        st.coverage = self.cov.as_ref().map(|c| {
            let mut s = c.stats();
            if !c.has_bits() {
                // map slots are coverage blocks (both: the plan's offset alignment)
                s.blocks_touched = self.maps.iter().flatten().map(RandomMap::covered).sum();
            }
            s
        });
        if track_writes && !self.stop.load(Ordering::Relaxed) {
            self.verify_back(slab, &mut st)?;
        }
        if let Some(l) = &mut self.logs {
            l.finish()
                .map_err(|source| crate::files::dataset::FilesError::Output {
                    what: "log file",
                    source,
                })?;
        }
        if self.mismatches > 0 {
            return Err(RunError::Verify {
                job: job.name.clone(),
                count: self.mismatches,
                first: self.first_mismatch.clone().unwrap_or_default(),
            });
        }
        Ok(())
    }
}
