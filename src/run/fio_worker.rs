//! One job thread of `iomark run`: picks each request (direction, block size, offset
//! from the job's distribution and random map), paces it (rate, think time), drives
//! the engine, checks or stamps verify headers, records latencies and logs, and after
//! the I/O phase runs the verify read-back and the end-of-job syncs.
//!
//! Latency semantics are fio's (see [`super::fio`]). Trims (`rw=trim|randtrim|
//! trimwrite`) are punched holes (`fallocate(PUNCH_HOLE|KEEP_SIZE)`) issued
//! synchronously on files, outside the engine.

use super::fio::{io_why, JobStats, Plan, RunError};
use super::fio_gen::{RandomMap, Rng, SlotGen};
use super::fio_log::Logs;
use super::fio_verify;
use crate::engine::buffers::Slab;
use crate::engine::{Completion, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::job::fio::{BlockSizes, RwMode};
use crate::job::fio_keys::RateProcess;
use crate::stats::clock::Clock;
use std::collections::BTreeMap;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[path = "fio_backlog.rs"]
mod backlog;

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
}

fn fixed_of(bs: &BlockSizes) -> Option<u64> {
    match bs {
        BlockSizes::Fixed(b) => Some(*b),
        _ => None,
    }
}

fn pick_bs(bs: &BlockSizes, rng: &mut Rng) -> u64 {
    match bs {
        BlockSizes::Fixed(b) => *b,
        BlockSizes::Range(a, b) => {
            let steps = (b / a).max(1);
            (a * (1 + rng.below(steps))).min(*b)
        }
        BlockSizes::Split(v) => {
            let mut x = rng.below(100) as u32;
            for &(b, w) in v {
                if x < w {
                    return b;
                }
                x -= w;
            }
            v.last().map_or(4096, |e| e.0)
        }
    }
}

/// Fill a write buffer: zeros (`zero_buffers`), or per 512-byte chunk `100-pct`%
/// random bytes then zeros (`buffer_compress_percentage`, fio's layout), else random.
pub(crate) fn fill_buf(buf: &mut [u8], rng: &mut Rng, zero: bool, compress_pct: u32) {
    if zero {
        buf.fill(0);
        return;
    }
    let chunk = if compress_pct > 0 {
        512
    } else {
        buf.len().max(1)
    };
    for c in buf.chunks_mut(chunk) {
        let rnd = c.len() * (100 - compress_pct.min(100)) as usize / 100;
        let (r, z) = c.split_at_mut(rnd);
        for w in r.chunks_mut(8) {
            let v = rng.next().to_le_bytes();
            w.copy_from_slice(&v[..w.len()]);
        }
        z.fill(0);
    }
}

/// Sleep until clock tick `t` (in ≤ 20 ms steps, so a stop request is seen quickly).
fn sleep_until(clock: &Clock, t: u64, stop: &AtomicBool) {
    loop {
        let now = clock.now();
        if now >= t || stop.load(Ordering::Relaxed) {
            return;
        }
        let ns = clock.ns(now, t).min(20_000_000);
        std::thread::sleep(Duration::from_nanos(ns));
    }
}

fn spin_for(clock: &Clock, d: Duration) {
    let end = clock.now() + clock.ticks(d);
    while clock.now() < end {
        std::hint::spin_loop();
    }
}

/// Live counters of one thread for `--status-interval`: bytes read, bytes written,
/// reads, writes (measured I/O only; relaxed stores by the worker, loads by the
/// coordinating thread).
pub type Live = [std::sync::atomic::AtomicU64; 4];

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
    /// `verify_backlog`: blocks written since the last backlog verify
    backlog: Vec<(usize, u64)>,
    /// write sequence number of the last write (fio's numberio)
    seq: u64,
    /// `fill_device`: the device is full (ENOSPC), the job ends normally
    filled: std::cell::Cell<bool>,
}

impl<'a> Worker<'a> {
    pub fn new(
        plan: &'a Plan,
        clock: &'a Clock,
        stop: &'a AtomicBool,
        fds: Vec<RawFd>,
        logs: Option<Logs>,
        live: Option<&'a Live>,
    ) -> Self {
        let job = &plan.job;
        let align = plan.align;
        let gens = plan
            .regions
            .iter()
            .map(|&(_, len)| {
                let n = |bs: &BlockSizes| len.saturating_sub(bs.max()) / align + 1;
                [
                    SlotGen::new(&job.more.dist[0], n(&job.bs_read), align),
                    SlotGen::new(&job.more.dist[1], n(&job.bs_write), align),
                ]
            })
            .collect::<Vec<_>>();
        let fixed = matches!(
            (&job.bs_read, &job.bs_write),
            (BlockSizes::Fixed(a), BlockSizes::Fixed(b)) if a == b
        );
        let maps = plan
            .regions
            .iter()
            .zip(&gens)
            .map(|(&(_, len), g)| {
                (job.rw.random() && !job.norandommap && fixed && g[0].uniform() && g[1].uniform())
                    .then(|| RandomMap::new(len.saturating_sub(job.bs_read.max()) / align + 1))
            })
            .collect();
        let has_logs = logs.is_some();
        Worker {
            plan,
            clock,
            stop,
            rng: Rng::new(plan.seed),
            cursors: plan.regions.iter().map(|r| r.0).collect(),
            rr: 0,
            seq_left: 0,
            last: (0, 0),
            gens,
            maps,
            rate_next: [0; 2],
            think_count: 0,
            written: BTreeMap::new(),
            mismatches: 0,
            first_mismatch: None,
            logs,
            fds,
            buf_rng: Rng::new(plan.seed ^ 0xb0ff),
            trimmed: None,
            min_win: (0, [0; 2], [0; 2]),
            live,
            backlog: Vec::new(),
            seq: 0,
            filled: std::cell::Cell::new(false),
            uses: Uses {
                random: job.rw.random(),
                pct_random: job.rw.random() && job.more.percentage_random < 100,
                rate: job.more.rate_bytes != [0, 0] || job.more.rate_iops != [0, 0],
                think: !job.more.thinktime.is_zero(),
                min_rate: job.more.ratemin != [0, 0] || job.more.rate_iops_min != [0, 0],
                verify: job.more.verify.is_some(),
                logs: has_logs,
                gtod_reduce: job.more.gtod_reduce,
                one_file: plan.files.len() == 1,
                trimwrite: job.rw == RwMode::TrimWrite,
                live: live.is_some(),
                backlog: job.more.x.verify_backlog > 0
                    && job.more.verify.is_some()
                    && job.rw.writes(),
                fixed_bs: [fixed_of(&job.bs_read), fixed_of(&job.bs_write)],
            },
        }
    }

    fn pick_op(&mut self) -> Op {
        let job = &self.plan.job;
        match job.rw {
            RwMode::Read | RwMode::RandRead => Op::Read,
            RwMode::Write | RwMode::RandWrite => Op::Write,
            RwMode::Trim | RwMode::RandTrim => Op::Trim,
            // fio's trimwrite: trim a block, then write the same block
            RwMode::TrimWrite if self.trimmed.is_some() => Op::Write,
            RwMode::TrimWrite => Op::Trim,
            RwMode::ReadWrite | RwMode::RandRw => {
                if (self.rng.below(100) as u32) < job.rwmixread {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        }
    }

    #[inline]
    fn next_req(&mut self) -> (Op, usize, u64, u64) {
        let job = &self.plan.job;
        let u = self.uses;
        let op = self.pick_op();
        let d = usize::from(op == Op::Write);
        let bs = match (u.fixed_bs[d], op) {
            (Some(b), _) => b,
            (None, Op::Write) => pick_bs(&job.bs_write, &mut self.rng),
            (None, _) => pick_bs(&job.bs_read, &mut self.rng),
        };
        if u.trimwrite && op == Op::Write {
            if let Some((file, offset, bs)) = self.trimmed.take() {
                // trimwrite: the write goes where the trim just went
                return (op, file, offset, bs);
            }
        }
        let file = if u.one_file {
            0
        } else {
            let f = self.rr;
            self.rr += 1;
            if self.rr == self.plan.files.len() {
                self.rr = 0;
            }
            f
        };
        let (start, len) = self.plan.regions[file];
        let end = start + len;
        let align = self.plan.align;
        let random_now = u.random
            && (!u.pct_random || (self.rng.below(100) as u32) < job.more.percentage_random);
        let offset = if u.random && !random_now {
            // percentage_random: the rest continue sequentially from the file's last I/O
            let o = self.cursors[file];
            if o + bs <= end {
                o
            } else {
                start
            }
        } else if job.rw.random() {
            if self.seq_left > 0 && self.last.0 == file {
                self.seq_left -= 1;
                let o = self.last.1;
                if o + bs <= end {
                    o
                } else {
                    start
                }
            } else {
                if job.rw_suffix > 1 {
                    self.seq_left = job.rw_suffix as u64 - 1;
                }
                let mut slot = self.gens[file][d].next(&mut self.rng);
                if let Some(m) = &mut self.maps[file] {
                    slot = m.take(slot);
                }
                let o = start + slot * align;
                if o + bs > end {
                    start + (len.saturating_sub(bs) / align) * align
                } else {
                    o
                }
            }
        } else {
            let mut o = self.cursors[file];
            if o.checked_add(bs).is_none_or(|e| e > end) || o < start {
                o = if job.rw_suffix < 0 {
                    start + (len.saturating_sub(bs) / bs) * bs
                } else {
                    start
                };
            }
            let next = o as i128 + bs as i128 + job.rw_suffix as i128;
            self.cursors[file] = if next < start as i128 {
                u64::MAX
            } else {
                next as u64
            };
            o
        };
        self.last = (file, offset + bs);
        if u.random {
            self.cursors[file] = offset + bs;
        }
        if u.trimwrite && op == Op::Trim {
            self.trimmed = Some((file, offset, bs));
        }
        (op, file, offset, bs)
    }

    /// Wait for the rate limit of `op` (linear or Poisson spacing).
    fn pace(&mut self, op: Op, bytes: u64, start: u64) {
        let m = &self.plan.job.more;
        if op == Op::Trim {
            return;
        }
        let d = op.idx();
        let ns = if m.rate_bytes[d] > 0 {
            bytes as f64 * 1e9 / m.rate_bytes[d] as f64
        } else if m.rate_iops[d] > 0 {
            1e9 / m.rate_iops[d] as f64
        } else {
            return;
        };
        let ns = match m.rate_process {
            RateProcess::Linear => ns,
            RateProcess::Poisson => -self.rng.unit().ln() * ns,
        };
        if self.rate_next[d] == 0 {
            self.rate_next[d] = start;
        }
        let due = self.rate_next[d];
        sleep_until(self.clock, due, self.stop);
        self.rate_next[d] = due + self.clock.ticks(Duration::from_nanos(ns as u64));
    }

    /// fio's `ratemin`/`rate_iops_min` check: once per `ratecycle`, the rate since the
    /// last check must reach the minimum.
    fn check_min_rate(&mut self, st: &JobStats, now: u64) -> Result<(), RunError> {
        let m = &self.plan.job.more;
        if m.ratemin == [0, 0] && m.rate_iops_min == [0, 0] {
            return Ok(());
        }
        if self.min_win.0 == 0 {
            self.min_win = (
                now,
                [st.read.bytes, st.write.bytes],
                [st.read.ios, st.write.ios],
            );
            return Ok(());
        }
        let ns = self.clock.ns(self.min_win.0, now);
        if ns < m.ratecycle.as_nanos() as u64 {
            return Ok(());
        }
        let secs = ns as f64 / 1e9;
        let bytes = [st.read.bytes, st.write.bytes];
        let ios = [st.read.ios, st.write.ios];
        let does = [self.plan.job.rw.reads(), self.plan.job.rw.writes()];
        for d in (0..2).filter(|&d| does[d]) {
            let dir = if d == 0 { "reads" } else { "writes" };
            let b = (bytes[d] - self.min_win.1[d]) as f64 / secs;
            let i = (ios[d] - self.min_win.2[d]) as f64 / secs;
            let fail = |what: String, got: String| RunError::MinRate {
                job: self.plan.job.name.clone(),
                what,
                got,
                window_ms: ns / 1_000_000,
            };
            if m.ratemin[d] > 0 && b < m.ratemin[d] as f64 {
                return Err(fail(
                    format!("ratemin={} B/s ({dir})", m.ratemin[d]),
                    format!("{b:.0} B/s"),
                ));
            }
            if m.rate_iops_min[d] > 0 && i < m.rate_iops_min[d] as f64 {
                return Err(fail(
                    format!("rate_iops_min={} ({dir})", m.rate_iops_min[d]),
                    format!("{i:.1} IOPS"),
                ));
            }
        }
        self.min_win = (now, bytes, ios);
        Ok(())
    }

    fn think(&mut self) {
        let m = &self.plan.job.more;
        if m.thinktime.is_zero() {
            return;
        }
        self.think_count += 1;
        if !self.think_count.is_multiple_of(m.thinktime_blocks.max(1)) {
            return;
        }
        let spin = m.thinktime_spin.min(m.thinktime);
        spin_for(self.clock, spin);
        let rest = m.thinktime - spin;
        if !rest.is_zero() {
            let t = self.clock.now() + self.clock.ticks(rest);
            sleep_until(self.clock, t, self.stop);
        }
    }

    fn mismatch(&mut self, file: usize, offset: u64, why: String) -> Result<(), RunError> {
        self.mismatches += 1;
        let msg = format!(
            "verify failed in {} at offset {offset}: {why}",
            self.plan.files[file].path.display()
        );
        if self.first_mismatch.is_none() {
            self.first_mismatch = Some(msg.clone());
        }
        if self.plan.job.more.verify_fatal {
            return Err(RunError::Verify {
                job: self.plan.job.name.clone(),
                count: self.mismatches,
                first: msg,
            });
        }
        Ok(())
    }

    fn trim(&self, file: usize, offset: u64, len: u64) -> Result<(), IoErr> {
        let Some(&fd) = self.fds.get(file) else {
            return Ok(()); // null engine: nothing to trim
        };
        // SAFETY: fallocate on a descriptor owned by the open file set.
        let r = unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as libc::off_t,
                len as libc::off_t,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(IoErr::Errno(crate::engine::last_errno()))
        }
    }

    /// Account reaped completions (one clock read `t` for the batch, as fio): each slot
    /// is freed; a short or failed completion goes to [`Self::io_fail`], a full one is
    /// recorded with slat (submit), clat (submit end → `t`) and lat (start → `t`).
    #[inline(always)]
    fn account(
        &mut self,
        st: &mut JobStats,
        comps: &[Completion],
        slots: &[Slot],
        slab: &Slab,
        (free, in_flight): (&mut Vec<usize>, &mut usize),
        (t, measure_start): (u64, u64),
    ) -> Result<(), RunError> {
        let clock = self.clock;
        for c in comps {
            let cs = slots[c.slot];
            *in_flight -= 1;
            free.push(c.slot);
            if c.res != cs.len as i64 {
                self.io_fail(st, &cs, completion_err(c.res))?;
                continue;
            }
            self.complete(
                st,
                &cs,
                slab.bufs[c.slot].ptr(),
                Some(clock.ns(cs.t0, cs.t1)),
                clock.ns(cs.t1, t),
                clock.ns(cs.t0, t),
                (t, measure_start),
            )?;
        }
        Ok(())
    }

    /// A failed request: with `continue_on_error` covering its kind it is counted as an
    /// error (never as done) and the job goes on; otherwise the job stops with it.
    #[cold]
    fn io_fail(&mut self, st: &mut JobStats, s: &Slot, e: IoErr) -> Result<(), RunError> {
        use crate::engine::fault::ErrorClass;
        let class = if s.op == Op::Read {
            ErrorClass::Read
        } else {
            ErrorClass::Write
        };
        if s.op == Op::Write {
            // its block holds unknown data now: not verified
            self.forget_write(s.file, s.offset);
            if self.plan.job.more.x.fill_device && super::fio_errors::is_full(e) {
                // fill_device: ENOSPC ends the job normally; the write is not done
                self.filled.set(true);
                return Ok(());
            }
        }
        let err = self.io_err(s, e);
        if super::fio_errors::non_fatal(&self.plan.job.more, class, e) {
            if self.plan.job.more.x.error_dump {
                eprintln!("iomark: error_dump: {err} (non-fatal, job goes on)");
            }
            st.errors += 1;
            if st.first_error.is_none() {
                st.first_error = Some(err.to_string());
            }
            return Ok(());
        }
        Err(err)
    }

    fn io_err(&self, s: &Slot, e: IoErr) -> RunError {
        RunError::Io {
            job: self.plan.job.name.clone(),
            op: s.op.name(),
            file: self.plan.files[s.file].path.clone(),
            offset: s.offset,
            len: s.len,
            why: io_why(e, self.plan.job.direct, self.plan.align),
        }
    }

    /// Account one completed request (and verify a read's data). `t`: completion tick,
    /// `t_base`: the tick log times count from.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn complete(
        &mut self,
        st: &mut JobStats,
        s: &Slot,
        buf: *const u8,
        slat: Option<u64>,
        clat: u64,
        lat: u64,
        (t, t_base): (u64, u64),
    ) -> Result<(), RunError> {
        let m = &self.plan.job.more;
        if let (true, Some(k)) = (self.uses.verify, m.verify) {
            // fio verifies plain reads of jobs that only read; a job that writes checks
            // what it wrote (backlog and read-back phase)
            if s.op == Op::Read && !self.fds.is_empty() && !self.plan.job.rw.writes() {
                // SAFETY: the slot's buffer holds `len` bytes and is ours again.
                let data = unsafe { std::slice::from_raw_parts(buf, s.len) };
                let spec = self
                    .vspec()
                    .unwrap_or(fio_verify::Spec::new(k, &m.verify_pattern));
                if let Err(why) = fio_verify::check_with(data, s.offset, &spec, None) {
                    let why = self.dumped(s.file, s.offset, data, None, why);
                    self.mismatch(s.file, s.offset, why)?;
                }
            }
        }
        if !s.measured {
            return Ok(());
        }
        let d = match s.op {
            Op::Read => &mut st.read,
            Op::Write => &mut st.write,
            Op::Trim => &mut st.trim,
        };
        d.ios += 1;
        d.bytes += s.len as u64;
        if self.uses.live && s.op != Op::Trim {
            if let Some(l) = self.live {
                let i = s.op.idx();
                l[i].store(d.bytes, Ordering::Relaxed);
                l[2 + i].store(d.ios, Ordering::Relaxed);
            }
        }
        if !self.uses.gtod_reduce {
            if let Some(x) = slat {
                d.slat.add(x);
            }
            d.clat.add(clat);
            d.lat.add(lat);
        }
        if self.uses.logs && s.op != Op::Trim {
            let t_ms = self.clock.ns(t_base, t) / 1_000_000;
            if let Some(l) = &mut self.logs {
                l.io(t_ms, s.op.idx(), s.len as u64, s.offset, slat, clat, lat);
            }
        }
        Ok(())
    }

    fn sync_file<E: Engine>(
        &self,
        eng: &mut E,
        st: &mut JobStats,
        file: usize,
        kind: SyncKind,
        measured: bool,
    ) -> Result<(), RunError> {
        let a = self.clock.now();
        eng.sync(file, kind).map_err(|e| RunError::Io {
            job: self.plan.job.name.clone(),
            op: if kind == SyncKind::Fsync {
                "fsync"
            } else {
                "fdatasync"
            },
            file: self.plan.files[file].path.clone(),
            offset: 0,
            len: 0,
            why: io_why(e, false, 0),
        })?;
        if measured {
            st.sync.ios += 1;
            st.sync.lat.add(self.clock.ns(a, self.clock.now()));
        }
        Ok(())
    }

    /// Drive `eng` until the job's limits; then verify read-back and final syncs.
    pub fn run<E: Engine>(
        &mut self,
        eng: &mut E,
        slab: &Slab,
        depth: usize,
    ) -> Result<JobStats, RunError> {
        let plan = self.plan;
        let job = &plan.job;
        let m = &job.more;
        let clock = self.clock;
        let mut st = JobStats {
            name: job.name.clone(),
            threads: 1,
            options: job.options.clone(),
            engine: eng.name(),
            percentiles: m.percentile_list.clone().unwrap_or_default(),
            clat_percentiles: m.clat_percentiles,
            lat_percentiles: m.lat_percentiles,
            ..JobStats::default()
        };
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
        loop {
            // a synchronous completion's clock read doubles as the loop's "now"
            let now = fresh.take().unwrap_or_else(|| clock.now());
            if !measuring && now >= ramp_end {
                measuring = true;
                measure_start = now;
            }
            if self.uses.min_rate && measuring {
                self.check_min_rate(&st, now)?;
            }
            let done = self.stop.load(Ordering::Relaxed)
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
            if !done && (free.len() >= batch || in_flight == 0) {
                while let Some(slot) = free.pop() {
                    let (op, file, offset, bs) = self.next_req();
                    if self.uses.rate {
                        self.pace(op, bs, start);
                    }
                    if measuring {
                        issued_bytes += bs;
                        issued_ios += 1;
                    }
                    let buf = slab.bufs[slot].ptr();
                    if op == Op::Write && !self.fds.is_empty() {
                        // SAFETY: the slot's buffer is not in flight; we own it.
                        let b = unsafe { std::slice::from_raw_parts_mut(buf, bs as usize) };
                        if m.refill_buffers {
                            fill_buf(
                                b,
                                &mut self.buf_rng,
                                m.zero_buffers,
                                m.buffer_compress_percentage,
                            );
                        }
                        if let Some(spec) = self.vspec() {
                            self.seq += 1;
                            fio_verify::stamp_with(b, offset, plan.seed, self.seq, &spec);
                        }
                        if track_writes {
                            self.note_write(file, offset, bs as usize, self.seq);
                        }
                    }
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
                        || self.filled.get()
                        || (self.uses.backlog && self.backlog_due())
                    {
                        break;
                    }
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
            let t = clock.now();
            let b = (&mut free, &mut in_flight);
            self.account(&mut st, &comps, &slots, slab, b, (t, measure_start))?;
        }
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
        st.runtime_ns = if measuring {
            clock.ns(measure_start, clock.now())
        } else {
            0
        };
        if track_writes && !self.stop.load(Ordering::Relaxed) {
            self.verify_back(slab, &mut st)?;
        }
        if let Some(l) = &mut self.logs {
            l.finish().map_err(|e| RunError::Plan {
                job: job.name.clone(),
                why: format!("cannot write log files: {e}"),
            })?;
        }
        if self.mismatches > 0 {
            return Err(RunError::Verify {
                job: job.name.clone(),
                count: self.mismatches,
                first: self.first_mismatch.clone().unwrap_or_default(),
            });
        }
        Ok(st)
    }
}

pub(crate) fn completion_err(res: i64) -> IoErr {
    if res < 0 {
        IoErr::Errno(i32::try_from(-res).unwrap_or(libc::EIO))
    } else {
        IoErr::Short { done: res as usize }
    }
}
