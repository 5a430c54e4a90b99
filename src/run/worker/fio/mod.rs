//! fio's rules for the worker loop ([`crate::run::worker`]), one job thread of
//! `iomark run`: picks each request (direction, block size, offset from the job's
//! distribution and random map), paces it (rate, think time), checks or stamps verify
//! headers, records latencies and logs, drives the control hooks (ramp_time,
//! latency_target, flow, verify_backlog, minimum rate) and, once the loop has drained,
//! runs the end-of-job syncs and the verify read-back.
//!
//! Latency semantics are fio's (see [`crate::run::fio`]). Trims (`rw=trim|randtrim|
//! trimwrite`) are punched holes (`fallocate(PUNCH_HOLE|KEEP_SIZE)`) on files and
//! BLKDISCARD on block devices, issued synchronously outside the engine.
//!
//! This file holds the Worker's state and its entry point; the loop's hooks are in
//! `pass.rs`, request generation in `request.rs`, the completion side in `account.rs`,
//! verify backlog and read-back in `backlog.rs`, the read-back at depth on an engine
//! that queues in `readback.rs` (child modules: they share the Worker's private state).

use crate::engine::buffers::Slab;
use crate::engine::{Engine, IoErr, SyncKind};
use crate::job::model::{BlockSizes, RateProcess, RwMode};
use crate::result::job::{CoverageStats, JobRecord, LatTargetReport};
use crate::run::fio::log::Logs;
use crate::run::fio::{io_why, Plan, RunError};
use crate::run::gen::lfsr::Lfsr;
use crate::run::gen::rwmix::{RwMix, MIX_SLOT};
use crate::run::gen::skew::Skew;
use crate::run::gen::sprandom::SpRandom;
use crate::run::gen::zones::Zones;
use crate::run::gen::{seq_after, seq_next, BufLen, RandomMap, Rng, SlotGen};
use crate::run::verify;
use crate::stats::clock::Clock;
use crate::stats::job::{FioAccount, JobStats};
use std::collections::BTreeMap;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

mod account;
mod backlog;
mod ends;
mod open;
mod pass;
mod readback;
mod replay;
mod request;
mod resid;
mod trace;
pub(crate) use request::{drop_cache, fill_buf, lfsr_unset};

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

/// What a request carries to its completion besides the engine request (the loop
/// keeps that and the clock points).
#[derive(Clone, Copy, Default)]
pub(crate) struct Tag {
    op: Op,
    /// issued after ramp_time: recorded
    measured: bool,
    /// bytes the request moved before this part: its rest after a short transfer
    /// (resid.rs), 0 for a request's first part
    before: u32,
}

/// A request as the accounting sees it: the loop's request with fio's tag.
pub(crate) type Slot = crate::run::worker::Req<Tag>;

impl Slot {
    /// A read of `len` bytes at `offset` of `file` done outside the loop (verify
    /// read-back), for its error message.
    fn read_at(file: usize, offset: u64, len: usize) -> Slot {
        let mut s = Slot::blank();
        s.io.file = file;
        s.io.offset = offset;
        s.io.len = len;
        s
    }
}

/// Live counters of one thread for `--status-interval`, `--plot`, steady state and
/// fio's status line: bytes read, bytes written, reads, writes (measured I/O only),
/// the sum (ns) and count of their completion latencies (stored only for a job under a
/// steady-state check, whose `lat` criterion reads them), then the thread's state
/// ([`LIVE_STATE`]) (relaxed stores by the worker, loads by the
/// coordinating thread); indexed as the array it derefs to. Beside them, for the `--live`
/// view's mean and p99 latency of each interval: a
/// reading of the recorder's completion latencies ([`JobStats::live_clat`]) the
/// worker copies into `clat` at its next measured completion after the coordinator
/// raised `want` (once per sample, and only while a view watches): no second recorder,
/// and on the I/O path one relaxed load where the live counters are stored anyway.
/// And for fio's `--status-interval` reports: a copy of the whole recorder
/// ([`Live::give_stats`]) the worker makes at the top of its next loop pass after the
/// coordinator raised `want_stats` (once per interval): on the I/O path one relaxed
/// load per pass of a flag in this thread's own cache line, the copy at the interval only.
#[derive(Debug, Default)]
pub struct Live {
    counters: [std::sync::atomic::AtomicU64; 7],
    /// the coordinator asks for a reading of the recorder's latencies
    pub want: std::sync::atomic::AtomicBool,
    /// the last reading the worker gave (`None`: none yet)
    pub clat: std::sync::Mutex<Option<crate::stats::LatAcc>>,
    /// the coordinator asks for a copy of the whole recorder
    pub want_stats: AtomicBool,
    /// the last copy the worker gave, as the thread's record (`None`: none yet)
    stats: std::sync::Mutex<Option<JobRecord>>,
}

impl std::ops::Deref for Live {
    type Target = [std::sync::atomic::AtomicU64; 7];
    fn deref(&self) -> &Self::Target {
        &self.counters
    }
}

impl Live {
    /// Give the coordinator a reading of `st`'s completion latencies.
    #[cold]
    #[inline(never)]
    pub(crate) fn give(&self, st: &JobStats) {
        let now = st.live_clat();
        *self.clat.lock().unwrap_or_else(|e| e.into_inner()) = Some(now);
        self.want.store(false, Ordering::Relaxed);
    }

    /// Take the worker's last reading (and ask for the next one).
    pub(crate) fn reading(&self) -> Option<crate::stats::LatAcc> {
        self.want.store(true, Ordering::Relaxed);
        self.clat.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Give the coordinator a copy of the recorder (settled, with the run time and
    /// rate samples so far): the answer to `want_stats`.
    #[cold]
    #[inline(never)]
    pub(crate) fn give_stats(&self, st: JobRecord) {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner()) = Some(st);
        self.want_stats.store(false, Ordering::Release);
    }

    /// Ask the worker for a copy of its recorder at its next loop pass.
    pub(crate) fn ask_stats(&self) {
        self.want_stats.store(true, Ordering::Release);
    }

    /// The worker answered the last [`Live::ask_stats`].
    pub(crate) fn stats_given(&self) -> bool {
        !self.want_stats.load(Ordering::Acquire)
    }

    /// The last copy of the recorder the worker gave (`None`: none yet).
    pub(crate) fn given_stats(&self) -> Option<JobRecord> {
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Index of the thread's state in [`Live`]: a character of fio's status line
/// (run/fio/status.rs), stored at phase changes only (`/` ramping, `*` running, `F` final
/// fsync, `V` verify read-back), never per I/O.
pub const LIVE_STATE: usize = 6;

/// How the next file is picked (`file_service_type`): `left` more requests go to
/// `cur`, then a new file is drawn (round robin; `random`: fio's draw, the worker's
/// `draws.file`; a non-uniform service from `gen`), which gets `nr`.
struct FileSvc {
    gen: Option<FileDraw>,
    nonuniform: bool,
    nr: u64,
    left: u64,
    cur: usize,
}

/// fio 3.33's draw of the next file (`__get_next_fileno_rand`): `random` from the
/// thread's file generator (`next_file_state`, `nr_files · r / (max + 1)`); zipf,
/// pareto and normal from fio's state over `nr_files << 10` ranks, unhashed, the file
/// being the rank shifted down by 10. Both seeded from fio's file seed slot.
enum FileDraw {
    Uniform(crate::run::gen::frand::Frand),
    Skewed(Skew),
}

impl FileSvc {
    fn new(plan: &crate::run::fio::Plan) -> FileSvc {
        use crate::job::model::FileService as F;
        let (kind, nr) = plan.work.files.service;
        // sequential: a file is served until it is done (or closing), as fio's
        // `FIO_FSERVICE_SEQ` keeps its file while it is open
        let nr = if kind == F::Sequential {
            u64::MAX
        } else {
            nr.max(1)
        };
        FileSvc {
            gen: Self::draw_of(plan),
            nonuniform: matches!(kind, F::Zipf(..) | F::Pareto(..) | F::Normal(..)),
            nr,
            left: 0,
            cur: 0,
        }
    }

    /// The file generator of `plan`'s `file_service_type` ([`FileDraw`]), seeded.
    fn draw_of(plan: &crate::run::fio::Plan) -> Option<FileDraw> {
        use crate::job::model::Distribution as D;
        use crate::job::model::FileService as F;
        use crate::run::gen::frand::{Frand, FILE_SLOT};
        let ranks = (plan.files.len() as u64) << FILE_RANK_SHIFT;
        let seed = plan.seed_of(FILE_SLOT);
        let skew = |d: D| Skew::of(&d, ranks, seed).map(|k| FileDraw::Skewed(k.unhashed()));
        match plan.work.files.service.0 {
            F::RoundRobin | F::Sequential => None,
            F::Random => Some(FileDraw::Uniform(Frand::new(seed, plan.taus64()))),
            F::Zipf(t, c) => skew(D::Zipf(t, c)),
            F::Pareto(h, c) => skew(D::Pareto(h, c)),
            F::Normal(sd, c) => skew(D::Normal(sd, c)),
        }
    }

    /// The next file drawn among `n` (None: round robin or sequential).
    fn draw(&mut self, n: usize) -> Option<usize> {
        let f = match self.gen.as_mut()? {
            FileDraw::Uniform(g) => g.below(n as u64),
            FileDraw::Skewed(k) => k.next() >> FILE_RANK_SHIFT,
        };
        Some((f as usize).min(n - 1))
    }

    /// Whether files are picked by a non-uniform distribution (fio's
    /// `__FIO_FSERVICE_NONUNIFORM`: zipf, pareto, normal): a file at its end then starts
    /// over instead of being done; `random` picks among the files not done.
    fn nonuniform(&self) -> bool {
        self.nonuniform
    }
}

/// fio's ranks per file of a non-uniform file service (`FIO_FSERVICE_SHIFT`).
const FILE_RANK_SHIFT: u32 = 10;

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
    /// no latency is measured (fio's `gtod_reduce` with `disable_lat`)
    gtod_reduce: bool,
    one_file: bool,
    trimwrite: bool,
    /// the job is under a steady-state check: its live counters carry the latency sum
    ss_lat: bool,
    /// `verify_backlog` > 0
    backlog: bool,
    /// buffered job with `invalidate` and more than one pass (`loops`, `time_based`,
    /// `io_size`): the page cache is dropped at every new pass, as fio's re-open (or
    /// its time-based wrap) does
    recache: bool,
    /// `recache`, and a pass ends when its bytes are issued (a random map's blocks, a
    /// sequential walk without holes); otherwise a pass ends only when the files start
    /// over ([`Worker::new_pass`])
    repass: bool,
    /// not `repass` (direct I/O, no `invalidate`), on an engine that queues, with a
    /// loop after this one (`loops`, `io_size`): once a pass's bytes are issued the
    /// requests in flight complete before its files are found done and closed, as
    /// fio's do_io reaps them all at its `bytes_issued` before `clear_io_state` closes
    /// the files (the next loop's files then open in fio's order under `openfiles`)
    loop_drain: bool,
    /// a loop of a random job whose files are never done
    /// (`Plan::endless`) ends at its pass's bytes issued on an
    /// engine that queues (fio's do_io `bytes_issued`), a new loop following
    bytes_loop: bool,
    /// a new pass of a time-based job starts with the queue as it is: fio 3.33 moves
    /// the file's position back and drops its cache in place (io_u.c's time-based
    /// wrap of a random job, or of a sequential one over one file), where a new loop
    /// (`loops`, `io_size`) ends the pass and drains the queue first
    wrap: bool,
    /// fixed block size of each slot: read (or trim, in a job that trims) / write
    fixed_bs: [Option<u64>; 2],
    /// the report's bandwidth and IOPS samples are taken per I/O (run/fio/log.rs's
    /// `unit_samples`), each only when the job measures it
    unit: [bool; 2],
}

/// The request generator and pacing state of one thread.
pub(crate) struct Worker<'a> {
    pub plan: &'a Plan,
    pub clock: &'a Clock,
    pub stop: &'a AtomicBool,
    pub rng: Rng,
    /// fio's generators of the uniform random offsets, the request sizes and
    /// `percentage_random`'s choice, seeded as fio 3.33 seeds them: so a seeded random
    /// job issues fio's requests in fio's order
    draws: crate::run::gen::frand::Draws,
    /// the end of the last request per file and direction (read, write, trim): fio's
    /// `last_pos[ddir]`, where a sequential request goes next — `rw=rw` reads and writes
    /// each walk the file on their own, and a random job's sequential requests (`:N`,
    /// `percentage_random`) go on from there
    seq_cursors: Vec<[u64; 3]>,
    /// each file's real end, its size on disk (at least its region's end), for a job
    /// whose sequential requests may pass it: a sequential job with holes (`rw=read:N`:
    /// fio wraps and ends the walk there, [`Worker::holed_offset`]) and a random job with
    /// sequential requests (a random block is drawn there, [`Worker::seq_or_random`]);
    /// empty for every other job
    real_ends: Vec<u64>,
    /// a new pass started in place (a holed time-based walk back at the start, or every
    /// file started over): its first request finds the files out of the page cache
    new_pass: bool,
    /// loops of fio's thread started so far ([`Worker::new_loop`]): a new one clears
    /// fio's `last_was_sync`
    pub(super) loop_no: u64,
    rr: usize,
    /// offset of the last request per direction (`rw_sequencer=identical`; none yet:
    /// `u64::MAX`)
    last_start: [u64; 3],
    /// `file_service_type`: the file picker ([`FileSvc`])
    fsvc: FileSvc,
    /// a random job's `rw=…:N` (fio's `ddir_seq_nr`): a random offset every N
    /// requests, 0 never; 1 for every other job
    seq_nr: u32,
    /// requests left until the next random offset (fio's countdown, 1 at the start, so
    /// the first offset is random unless N is 0)
    seq_count: u32,
    gens: Vec<[SlotGen; 2]>,
    /// each file's zipf, pareto or normal state, which its reads and writes share
    /// (fio's `f->zipf`, `f->gauss`): seeded once per thread, never again at a loop
    skews: Vec<Option<Skew>>,
    maps: Vec<Option<RandomMap>>,
    /// `random_generator=lfsr`: each file's register (fio's `f->lfsr`), which gives its
    /// random blocks in place of the draws and the map
    lfsrs: Vec<Option<Lfsr>>,
    /// random offsets are whole multiples of this per direction (read/trim, write):
    /// fio's `ba[ddir]`, `blockalign` or else the direction's smallest size
    units: [u64; 2],
    /// the files this pass has finished ([`ends::Ends`])
    ends: ends::Ends,
    /// the files open now, at most `openfiles` ([`open::OpenFiles`])
    fopen: open::OpenFiles,
    /// request sizes per direction (read/trim, write): fio's draw ([`BufLen`])
    sizes: [BufLen; 2],
    /// when the next request of each direction (read, write, trim) is due under its
    /// rate, clock ticks (0: none issued yet)
    rate_next: [u64; 3],
    /// fio's thinktime_blocks counter: read/write requests issued
    /// (`thinktime_blocks_type=issue`) or completed (`complete`, the default) since the
    /// start or the end of ramp_time (fio zeroes both counts then)
    think_blocks: u64,
    /// the counter at the last think
    think_last_blocks: u64,
    /// when the last think was decided (`thinktime_iotime`; the loop's start before
    /// the first), clock ticks
    think_last: u64,
    /// blocks written and not yet verified: (file, offset) → (length, write sequence)
    written: BTreeMap<(usize, u64), (usize, u64)>,
    mismatches: u64,
    first_mismatch: Option<String>,
    /// a read of a read-only verify job did not match: no request is issued after it,
    /// those in flight complete (each checked, each mismatch printed and counted) and
    /// the job then ends with the first one, as fio 3.33 reaps its queue after the error
    mismatch_stop: bool,
    /// a mixed job's round that ends at the file's end (`MixRounds::at_eof`): the
    /// direction just drawn has no block left
    round_eof: bool,
    logs: Option<Logs>,
    fds: Vec<RawFd>,
    buf_rng: Rng,
    trimmed: Option<(usize, u64, u64)>,
    /// minimum-rate check, per direction (read, write, trim): the tick of its last
    /// record and its bytes and requests done then (fio's `last_rate_check_*`)
    min_win: [(u64, u64, u64); 3],
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
    /// zbd: nothing left to read or trim, sprandom: stream done, replay: the log is
    /// done, verify_state_load: past the saved completions (fio ends the job)
    zone_eof: bool,
    /// `read_iolog`: the position in the log
    replay: Option<replay::ReplayPos>,
    /// `sprandom=1` write stream
    spr: Option<SpRandom>,
    /// `verify_backlog`: blocks written since the last backlog verify
    backlog: Vec<(usize, u64)>,
    /// write sequence number of the last write (fio's numberio)
    seq: u64,
    /// `fill_device`: the device is full (ENOSPC), or a net job's peer ended the data
    /// ([`crate::engine::Caps::stream`]): the job ends normally
    filled: std::cell::Cell<bool>,
    /// bytes left in the current pass (`Uses::repass`)
    pass_left: u64,
    /// per direction (read/trim, write): a request is one slot of the one file's random
    /// map or generator, nothing else applies ([`Worker::plain_random_req`])
    plain_random: [bool; 2],
    /// a job of one direction whose every request is plain random (`plain_random`):
    /// that direction, so a request skips the direction pick and the general path
    /// ([`Worker::next_request`])
    plain_op: Option<Op>,
    /// the latency-target report, set when the I/O phase ends
    lat_report: Option<LatTargetReport>,
    /// the coverage report, set when the I/O phase ends
    cov_report: Option<CoverageStats>,
    /// `verify_state_save`: the job's last completed writes (run/verify/state.rs)
    vrec: Option<verify::state::Recorder>,
    /// `verify_state_load`: reads completed, for [`verify::state::State::should_stop`]
    vreads: u64,
    /// a mixed read/write job: the direction of each request, by fio's rule
    /// ([`RwMix`])
    mix: Option<RwMix>,
    /// the rests of requests after a short transfer, issued again before any new
    /// request (fio's rule: resid.rs)
    resid: Vec<resid::Resid>,
    /// `unlink_each_loop`: whether the files go before the loop's first request
    unlink: open::Unlink,
    /// the tick a verify read's latencies count from: the end of `ramp_time` until the
    /// job's ramp is over (fio's `should_account`: a read-back inside the ramp counts
    /// its reads and bytes, no latency), then 0
    lat_from: u64,
}

impl<'a> Worker<'a> {
    /// Show the thread's phase on the status line (see [`LIVE_STATE`]).
    fn phase(&self, c: u8) {
        if let Some(l) = self.live {
            l[LIVE_STATE].store(u64::from(c), Ordering::Relaxed);
        }
    }

    /// Drive `eng` until the job's limits; then verify read-back and final syncs.
    /// Returns the job's statistics together with the error that ended it, if any:
    /// a failed job keeps the report of the I/O it completed (fio prints it with
    /// `err=`). After a failure mid-run, `runtime_ns` is the time from the end of
    /// `ramp_time` to the failure.
    /// A job that writes with `verify=` saves its verify state here, whatever ended
    /// it (fio saves it at the end of its thread); a failed save is a `warn` line.
    pub fn run<E: Engine>(
        self,
        eng: &mut E,
        slab: &Slab,
        depth: usize,
        warn: &(dyn Fn(String) + Sync),
    ) -> (JobRecord, Option<RunError>) {
        let st = JobStats {
            threads: 1,
            ..JobStats::default()
        };
        let clock = self.clock;
        let t0 = clock.now();
        // the rules own the worker and the statistics while the loop runs
        let mut rules = pass::FioRules::new(self, st, depth);
        let r = {
            let mut io = crate::run::worker::Io::new(eng, slab, clock, depth);
            crate::run::worker::run(&mut io, &mut rules)
        };
        let (mut w, mut st) = rules.into_parts();
        if let Err(why) = w.save_vstate() {
            warn(format!("warning: job '{}': {why}", w.plan.work.name));
        }
        // synchronous completions into clat and lat, also for a failed job's report
        for d in [&mut st.read, &mut st.write, &mut st.trim] {
            d.settle();
        }
        let mut rec = JobRecord {
            engine: eng.name().into(),
            stats: st,
            lat_target: w.lat_report.take(),
            coverage: w.cov_report.take(),
            ..JobRecord::default()
        };
        match r {
            Ok(()) => (rec, None),
            Err(e) => {
                let measured_from = t0 + clock.ticks(w.plan.work.limits.ramp);
                let ran_ns = clock.ns(measured_from, clock.now().max(measured_from));
                if rec.stats.runtime_ns == 0 {
                    rec.stats.runtime_ns = ran_ns;
                }
                if rec.lat_target.is_none() {
                    // fio reports the latency_target keys of a failed job too
                    rec.lat_target = Some(w.lat_target_report());
                }
                if let Some(l) = &mut w.logs {
                    // the logs of the I/O done so far are kept, as fio keeps them,
                    // with the latency windows' last lines (fio's `finalize_logs` runs
                    // for a job that failed too)
                    l.end(ran_ns / 1_000_000);
                    let _ = l.finish();
                }
                (rec, Some(e))
            }
        }
    }

    /// Write the verify state of a job with `verify_state_save` (nothing otherwise).
    fn save_vstate(&mut self) -> Result<(), String> {
        match (&self.plan.vstate_save, self.vrec.take()) {
            (Some(p), Some(r)) => verify::state::save(
                p,
                &r.encode(&self.plan.work.name, self.plan.global, self.seq),
            ),
            _ => Ok(()),
        }
    }

    /// `verify_state_load`: a verifying read at `offset` of `file` would go past what
    /// the saved write job had completed; the job ends instead (as fio's does).
    #[inline(always)]
    fn vstate_stops(&self, op: Op, file: usize, offset: u64) -> bool {
        match &self.plan.vstate {
            Some(s) if op == Op::Read && self.verifies_reads() => {
                s.should_stop(self.vreads, file, offset)
            }
            _ => false,
        }
    }

    /// Plain reads are verified: a read-only job with `verify=` on files (fio verifies
    /// what a job that writes wrote, in its backlog and read-back phase).
    #[inline(always)]
    fn verifies_reads(&self) -> bool {
        self.uses.verify && !self.fds.is_empty() && !self.plan.work.pick.rw.writes()
    }

    /// The `latency_target` search's report, or the job's depth without one.
    fn lat_target_report(&self) -> LatTargetReport {
        match &self.lat_target {
            Some(l) => l.report(),
            None => LatTargetReport {
                depth: self.plan.work.queue.depth,
                target_ns: 0,
                window_us: 0,
                percentile: 100.0,
            },
        }
    }
}
