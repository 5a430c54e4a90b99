//! One job thread of `iomark run`: picks each request (direction, block size, offset
//! from the job's distribution and random map), paces it (rate, think time), drives
//! the engine, checks or stamps verify headers, records latencies and logs, and after
//! the I/O phase runs the verify read-back and the end-of-job syncs.
//!
//! Latency semantics are fio's (see [`super::fio`]). Trims (`rw=trim|randtrim|
//! trimwrite`) are punched holes (`fallocate(PUNCH_HOLE|KEEP_SIZE)`) on files and
//! BLKDISCARD on block devices, issued synchronously outside the engine.

use super::fio::{io_why, JobStats, Plan, RunError};
use super::fio_gen::{fit_size, seq_next, RandomMap, Rng, SlotGen};
use super::fio_log::Logs;
use super::fio_sprandom::SpRandom;
use super::fio_verify;
use super::fio_zones::Zones;
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
    ioprio: u16,
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
    lat_target: Option<super::fio_lat_target::LatTarget>,
    /// per-request ioprio picker (cmdprio_*, prioclass/prio)
    prio: Option<super::fio_prio::CmdPrio>,
    /// dedupe-shaped write buffers (dedupe_percentage)
    dedupe: Option<super::fio_dedupe::Dedupe>,
    /// coverage and issued sizes of random jobs (public case C13)
    cov: Option<super::fio_coverage::Coverage>,
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
                let stride = job.more.zones.sequence_stride;
                [
                    SlotGen::new(&job.more.dist[0], n(&job.bs_read), align).sequence_stride(stride),
                    SlotGen::new(&job.more.dist[1], n(&job.bs_write), align)
                        .sequence_stride(stride),
                ]
            })
            .collect::<Vec<_>>();
        // the random map works in blocks of `align` bytes and shortens a request to the
        // free blocks it finds (fio), so any block sizes cover a pass exactly once;
        // random_generator=lfsr keeps it even with norandommap=1 (lfsr's property)
        let lfsr =
            job.more.zones.random_generator == Some(crate::job::fio_zone_keys::RandGen::Lfsr);
        let zones = Zones::new(plan);
        let strided = zones.as_ref().is_some_and(|z| z.strided());
        let maps = plan
            .regions
            .iter()
            .zip(&gens)
            .map(|(&(_, len), g)| {
                (job.rw.random()
                    && (!job.norandommap || lfsr)
                    && !strided
                    && g[0].uniform()
                    && g[1].uniform())
                .then(|| RandomMap::new((len / align).max(1)))
            })
            .collect();
        let has_logs = logs.is_some();
        let mut w = Worker {
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
            lat_target: None,
            prio: super::fio_prio::CmdPrio::new(&job.extra, plan.seed),
            dedupe: super::fio_dedupe::Dedupe::new(
                job,
                plan.seed,
                plan.regions.iter().map(|r| r.1).sum(),
            ),
            blkdev: super::fio_trim::block_devices(plan),
            cov: super::fio_coverage::Coverage::for_plan(plan),
            zones,
            zone_eof: false,
            spr: job.more.zones.sprandom.then(|| {
                let bs = job.bs_write.max();
                let z = &job.more.zones;
                SpRandom::new(plan.regions[0].1 / bs, bs, z.spr_num_regions, z.spr_op)
            }),
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
        };
        // With the random map on every request (no percentage_random, zones or sprandom),
        // the map itself knows the distinct slots taken: no coverage bitmap per request.
        if w.maps.iter().all(Option::is_some)
            && !w.uses.pct_random
            && w.zones.is_none()
            && w.spr.is_none()
        {
            if let Some(c) = &mut w.cov {
                c.drop_bits();
            }
        }
        w
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
        let mut bs = match (u.fixed_bs[d], op) {
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
        let strided = self.zones.as_ref().is_some_and(|z| z.strided());
        let mut offset = if strided {
            start // the zones pick it
        } else if u.random && !random_now {
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
                let slot = if let Some(s) = &mut self.spr {
                    // sprandom: blocks of bs from the region start
                    let b = s.next(&mut self.rng).unwrap_or_else(|| {
                        self.zone_eof = true;
                        0
                    });
                    b * bs / align
                } else if let Some(m) = &mut self.maps[file] {
                    if u.fixed_bs[d] == Some(align) {
                        // one slot per request (bs = the alignment): nothing to fit
                        m.take(self.rng.below(m.len()))
                    } else {
                        let sizes = if op == Op::Write {
                            &job.bs_write
                        } else {
                            &job.bs_read
                        };
                        let want = bs;
                        let fit = |avail: u64| fit_size(sizes, want, avail * align).div_ceil(align);
                        let (s, k) = m.take_run(self.rng.below(m.len()), bs.div_ceil(align), &fit);
                        bs = fit_size(sizes, want, k * align);
                        if bs < want {
                            if let Some(c) = &mut self.cov {
                                c.shrunk += 1;
                            }
                        }
                        s
                    }
                } else {
                    self.gens[file][d].next(&mut self.rng)
                };
                let o = start + slot * align;
                if o + bs > end {
                    start + (len.saturating_sub(bs) / align) * align
                } else {
                    o
                }
            }
        } else {
            let min_bs = if op == Op::Write {
                job.bs_write.min()
            } else {
                job.bs_read.min()
            };
            let (o, b, next) =
                seq_next(self.cursors[file], (start, len), bs, min_bs, job.rw_suffix);
            self.cursors[file] = next;
            bs = b;
            o
        };
        if let Some(z) = &mut self.zones {
            match z.place(op, file, offset, bs, random_now, &mut self.rng) {
                Some((o, b)) => {
                    if o != offset && !u.random {
                        // sequential jobs go on from where the zones put them (fio)
                        self.cursors[file] = o + b;
                    }
                    (offset, bs) = (o, b);
                }
                None => self.zone_eof = true,
            }
        }
        self.last = (file, offset + bs);
        if u.random {
            self.cursors[file] = offset + bs;
        }
        if u.trimwrite && op == Op::Trim {
            self.trimmed = Some((file, offset, bs));
        }
        (op, file, offset, bs)
    }

    /// Due tick of the next `op` under the rate limit (linear or Poisson spacing);
    /// the caller waits for it. None: not rate limited.
    fn pace_due(&mut self, op: Op, bytes: u64, start: u64) -> Option<u64> {
        let m = &self.plan.job.more;
        if op == Op::Trim {
            return None;
        }
        let d = op.idx();
        let ns = if m.rate_bytes[d] > 0 {
            bytes as f64 * 1e9 / m.rate_bytes[d] as f64
        } else if m.rate_iops[d] > 0 {
            1e9 / m.rate_iops[d] as f64
        } else {
            return None;
        };
        let ns = match m.rate_process {
            RateProcess::Linear => ns,
            RateProcess::Poisson => -self.rng.unit().ln() * ns,
        };
        if self.rate_next[d] == 0 {
            self.rate_next[d] = start;
        }
        let due = self.rate_next[d];
        self.rate_next[d] = due + self.clock.ticks(Duration::from_nanos(ns as u64));
        Some(due)
    }

    /// Reap and account completions: with `until`, as they arrive until that tick
    /// (`io_submit_mode=offload`: the submitter waits for its due time while
    /// completions are handled); without, until nothing is in flight (fio's
    /// `io_u_quiesce`).
    #[allow(clippy::too_many_arguments)]
    fn reap_until<E: Engine>(
        &mut self,
        eng: &mut E,
        st: &mut JobStats,
        slots: &[Slot],
        slab: &Slab,
        (free, in_flight): (&mut Vec<usize>, &mut usize),
        comps: &mut Vec<Completion>,
        until: Option<u64>,
        measure_start: u64,
    ) -> Result<(), RunError> {
        let clock = self.clock;
        while *in_flight > 0 {
            comps.clear();
            let r = match until {
                None => eng.reap(*in_flight, comps),
                Some(due) => {
                    let now = clock.now();
                    if now >= due || self.stop.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    eng.wait_some(clock.ns(now, due), comps)
                }
            };
            r.map_err(|e| self.io_err(&Slot::default(), e))?;
            let t = clock.now();
            self.account(
                st,
                comps,
                slots,
                slab,
                (free, in_flight),
                (t, measure_start),
            )?;
        }
        Ok(())
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
        if self.blkdev.get(file).copied().unwrap_or(false) {
            return super::fio_trim::discard(fd, offset, len);
        }
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
                // H2 hook: fio's job `error` = errno of the first error
                st.first_errno = match e {
                    IoErr::Errno(n) => n,
                    IoErr::Short { .. } => libc::EIO,
                };
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
            match slat {
                Some(x) => {
                    d.slat.add(x);
                    d.clat.add(clat);
                    d.lat.add(lat);
                }
                // synchronous: clat = lat, one histogram record (DirStats::settle)
                None => d.sync.add(clat),
            }
            if self.uses.live && s.op != Op::Trim {
                if let Some(l) = self.live {
                    let (r, w) = (&st.read, &st.write);
                    let sum = r.clat.sum_ns + r.sync.sum_ns + w.clat.sum_ns + w.sync.sum_ns;
                    l[4].store(u64::try_from(sum).unwrap_or(u64::MAX), Ordering::Relaxed);
                    let n = r.clat.hist.len()
                        + r.sync.hist.len()
                        + w.clat.hist.len()
                        + w.sync.hist.len();
                    l[5].store(n, Ordering::Relaxed);
                }
            }
            if self.prio.is_some() && s.op != Op::Trim {
                let v = if m.lat_percentiles { lat } else { clat };
                super::fio_prio::record(&mut st.prio_lat, s.op.idx(), s.ioprio, v);
            }
        }
        if let Some(lt) = &mut self.lat_target {
            if s.op != Op::Trim && lt.on_latency(lat).is_err() {
                let why = format!(
                    "latency of {lat} ns exceeds latency_target={} ns at queue depth 1 (latency_percentile=100)",
                    lt.report().target_ns
                );
                return Err(RunError::Io {
                    job: self.plan.job.name.clone(),
                    op: s.op.name(),
                    file: self.plan.files[s.file].path.clone(),
                    offset: s.offset,
                    len: s.len,
                    why,
                });
            }
        }
        if self.uses.logs && s.op != Op::Trim {
            let t_ms = self.clock.ns(t_base, t) / 1_000_000;
            if let Some(l) = &mut self.logs {
                l.set_prio(s.ioprio);
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
                        None => super::fio_lat_target::LatTargetReport {
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
        // flow: this thread's share among the jobs of its flow_id (run/fio_flow.rs)
        let mut flow = (ctl.flow > 0)
            .then(|| plan.flows.as_ref().map(|f| f.join(ctl.flow_id, ctl.flow)))
            .flatten();
        let mut flow_held = false;
        let mut paced_reap = false;
        // latency_target: the depth search runs over the measured I/O (after ramp_time)
        self.lat_target = ctl
            .lat_target
            .map(|t| super::fio_lat_target::LatTarget::new(t, depth as u32, 0, 0));
        let mut lt_done = false;
        let ios_of = |st: &JobStats| st.read.ios + st.write.ios + st.trim.ios;
        // H2 hook: fio's bw/iops samples (stats/rates.rs)
        let mut samp = crate::stats::rates::RateSampler::new(m.bw_avg_time, m.iops_avg_time);
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
                use super::fio_lat_target::LtAction;
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
                        }
                    }
                    if measuring {
                        issued_bytes += bs;
                        issued_ios += 1;
                    }
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
                            fio_verify::stamp_with(b, offset, plan.seed, self.seq, &spec);
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
            None => super::fio_lat_target::LatTargetReport {
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
        Ok(())
    }
}

pub(crate) fn completion_err(res: i64) -> IoErr {
    if res < 0 {
        IoErr::Errno(i32::try_from(-res).unwrap_or(libc::EIO))
    } else {
        IoErr::Short { done: res as usize }
    }
}
