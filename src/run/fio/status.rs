//! fio's status line of `iomark run` (fio 3.33 `calc_thread_status` and `thread_eta` in
//! eta.c, read for their rules): a [`Board`] with one slot per job thread of the whole
//! run — the thread's live counters ([`Live`], which the worker keeps anyway), its state
//! character and when it started — from which [`Watch::snapshot`] computes a
//! [`JobsEta`]: threads running and pending, files open, each thread's state, the
//! rates since the last line and the ETA. Nothing here is on the I/O path: the worker
//! stores its counters with relaxed stores and its state at phase changes only; the
//! front end's status thread reads them (src/cli/run.rs) and the reporter prints them
//! (src/report/fio/eta.rs).

use crate::job::fio::FioJob;
use crate::job::model::RwMode;
use crate::result::status::JobsEta;
use crate::run::fio::agg_log::AggBw;
use crate::run::fio::Plan;
use crate::run::worker::{Live, LIVE_STATE};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// State characters the coordinator stores (the worker stores `/`, `*`, `F`, `V`).
pub(crate) mod state {
    /// not started (fio's `P`)
    pub const PENDING: u8 = b'P';
    /// running I/O: shown as the job's own character (`r`, `W`, `m` …)
    pub const RUNNING: u8 = b'*';
    /// ended
    pub const DONE: u8 = b'_';
    /// ended with an error
    pub const FAILED: u8 = b'X';
}

/// What the ETA rules need of one thread's job, taken from its plan once.
#[derive(Clone, Debug, Default)]
struct JobInfo {
    /// the character of a running thread
    running: char,
    files: u32,
    /// bytes the thread moves (io_size or size, times loops; twice with verify)
    bytes_total: u64,
    /// `runtime`, s (0 = none)
    timeout_s: u64,
    time_based: bool,
    ramp_s: u64,
    startdelay_s: u64,
    /// `rate`, `ratemin` (bytes/s) and `rate_iops`, `rate_iops_min`, summed over the
    /// directions the job does
    rate: u64,
    ratemin: u64,
    rate_iops: u64,
    rate_iops_min: u64,
    stonewall: bool,
    exitall: bool,
    pow2: bool,
    bits: bool,
}

/// One job thread on the board.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    /// the thread's live counters and state
    pub live: Live,
    info: JobInfo,
    /// when its I/O started, and when it ended
    times: Mutex<(Option<Instant>, Option<Instant>)>,
}

/// The status board of one run: a slot per job thread, filled once the files are laid
/// out (fio prints no status line while it lays files out).
#[derive(Debug)]
pub struct Board {
    /// the run started (fio's genesis: the percentage's elapsed time)
    t0: Instant,
    /// someone reads the board: the workers keep their live counters
    watched: bool,
    slots: OnceLock<Vec<Slot>>,
    /// `--bandwidth-log`: fio's aggregate bandwidth samples (run/fio/agg_log.rs)
    agg: Option<Mutex<AggBw>>,
}

impl Board {
    /// A board; `watched` when a status line reads it.
    pub fn new(watched: bool) -> Board {
        Board {
            t0: Instant::now(),
            watched,
            slots: OnceLock::new(),
            agg: None,
        }
    }

    /// The board with fio's aggregate bandwidth log (`--bandwidth-log`), its samples
    /// more than `gap_ms` apart (fio's `bw_avg_time`); none with `None`.
    pub fn with_agg_bw(mut self, gap_ms: Option<u64>) -> Board {
        self.agg = gap_ms.map(|g| Mutex::new(AggBw::new(g)));
        self
    }

    /// A tick of the status line at `now`: fio's aggregate bandwidth sample, over the
    /// threads' live counters (none while a thread ramps up, as fio's
    /// `!in_ramp_time`; nothing moved yet while the files are laid out).
    pub fn agg_tick(&self, now: Instant) {
        let Some(agg) = &self.agg else { return };
        let mut bytes = [0u64; 3];
        if let Some(slots) = self.slots.get() {
            if slots.iter().any(|s| s.state() == b'/') {
                return;
            }
            for s in slots {
                for (d, b) in bytes.iter_mut().take(2).enumerate() {
                    *b += s.live[d].load(Ordering::Relaxed);
                }
            }
        }
        let ms = now.saturating_duration_since(self.t0).as_millis();
        let mut a = agg.lock().unwrap_or_else(|e| e.into_inner());
        a.sample(u64::try_from(ms).unwrap_or(u64::MAX), bytes);
    }

    /// The aggregate bandwidth samples at the report, `None` without `--bandwidth-log`;
    /// `report`: the run's bytes per direction when the report computes fio's status
    /// (its JSON document does, forced), which may add a last sample now.
    pub fn agg_at_report(&self, report: Option<[u64; 3]>) -> Option<AggBw> {
        let agg = self.agg.as_ref()?;
        let mut a = agg.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bytes) = report {
            let ms = self.t0.elapsed().as_millis();
            a.sample(u64::try_from(ms).unwrap_or(u64::MAX), bytes);
        }
        Some(a.clone())
    }

    /// Whether a status line reads the board.
    pub fn watched(&self) -> bool {
        self.watched
    }

    /// The run's threads are known: one slot per plan, by its global thread number.
    pub(crate) fn fill(&self, plans: &[Vec<Plan>]) -> &[Slot] {
        self.slots.get_or_init(|| {
            let n = plans.iter().flatten().map(|p| p.global as usize + 1).max();
            let mut slots: Vec<Slot> = (0..n.unwrap_or(0)).map(|_| Slot::default()).collect();
            for p in plans.iter().flatten() {
                let s = &mut slots[p.global as usize];
                s.info = JobInfo::of(p);
                s.set(state::PENDING);
            }
            slots
        })
    }
}

impl Slot {
    /// The thread starts: its I/O time counts from now.
    pub(crate) fn started(&self) {
        self.times.lock().unwrap_or_else(|e| e.into_inner()).0 = Some(Instant::now());
        self.set(state::RUNNING);
    }

    /// The thread ended (`failed`: with an error).
    pub(crate) fn ended(&self, failed: bool) {
        self.times.lock().unwrap_or_else(|e| e.into_inner()).1 = Some(Instant::now());
        self.set(if failed { state::FAILED } else { state::DONE });
    }

    fn set(&self, c: u8) {
        self.live[LIVE_STATE].store(u64::from(c), Ordering::Relaxed);
    }

    fn state(&self) -> u8 {
        u8::try_from(self.live[LIVE_STATE].load(Ordering::Relaxed)).unwrap_or(b'?')
    }

    /// When the thread started (`None`: not yet).
    pub(crate) fn started_at(&self) -> Option<Instant> {
        self.times().0
    }

    fn times(&self) -> (Option<Instant>, Option<Instant>) {
        *self.times.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// fio's character of a running thread: `r`/`R` reads, `w`/`W` writes, `m`/`M` a mix,
/// `d`/`D` trims; lower case for random offsets.
fn running_char(job: &FioJob) -> char {
    let rw = job.rw;
    let c = match (rw.reads(), rw.writes()) {
        (true, true) if job.rwmixread == 100 => 'r',
        (true, true) if job.rwmixread == 0 => 'w',
        (true, true) => 'm',
        (true, false) => 'r',
        (false, true) => 'w',
        _ => 'd',
    };
    if rw.random() {
        c
    } else {
        c.to_ascii_uppercase()
    }
}

impl JobInfo {
    fn of(p: &Plan) -> JobInfo {
        let j = &p.job;
        let m = &j.more;
        let once = m
            .io_size
            .unwrap_or(p.pass_bytes)
            .saturating_mul(j.loops.max(1));
        // a job that writes and verifies reads it all back (a mix: its write share)
        let bytes_total = match (m.verify.is_some() && m.do_verify, j.rw) {
            (true, RwMode::ReadWrite | RwMode::RandRw) => {
                let pct = if j.rwmixread < 100 {
                    u64::from(100 - j.rwmixread)
                } else {
                    50
                };
                once + once * pct / 100
            }
            (true, rw) if rw.writes() => once.saturating_mul(2),
            _ => once,
        };
        let secs = |d: Duration| d.as_secs();
        // fio sums the limits of the directions the job does only (`td_read`,
        // `td_write`, `td_trim`): `rate=8m` on a read job is 8 MiB/s, not the write
        // side's too
        let dirs = [j.rw.reads(), j.rw.writes(), j.rw.trims()];
        let done = |v: [u64; 3]| -> u64 { v.iter().zip(dirs).filter(|d| d.1).map(|d| *d.0).sum() };
        JobInfo {
            running: running_char(j),
            files: u32::try_from(p.files.len()).unwrap_or(u32::MAX),
            bytes_total,
            timeout_s: j.runtime.map_or(0, secs),
            time_based: j.time_based,
            ramp_s: secs(j.ramp_time),
            startdelay_s: secs(m.startdelay.0),
            rate: done(m.rate_bytes),
            ratemin: done(m.ratemin),
            rate_iops: done(m.rate_iops),
            rate_iops_min: done(m.rate_iops_min),
            stonewall: j.stonewall,
            exitall: m.exitall,
            pow2: j.kb_base != 1000,
            bits: j.unit_base_bits,
        }
    }

    /// fio's `thread_eta` of a thread in `state` that started I/O `epoch` ago, with
    /// `done` bytes moved; `done_s` are the seconds of the threads that ended.
    fn eta(&self, st: u8, since_epoch: Duration, done: u64, done_s: u64) -> u64 {
        let elapsed = since_epoch.as_millis().div_ceil(1000) as u64;
        let timeout = self.timeout_s;
        match st {
            state::RUNNING | b'V' => {
                let mut perc = if self.bytes_total > 0 {
                    (done as f64 / self.bytes_total as f64).min(1.0)
                } else {
                    0.0
                };
                if self.time_based {
                    perc = if timeout > 0 {
                        perc.min(elapsed as f64 / timeout as f64)
                    } else {
                        0.0
                    };
                }
                let eta = if perc == 0.0 {
                    timeout
                } else {
                    ((elapsed as f64 * (1.0 / perc)) as u64).saturating_sub(elapsed)
                };
                if timeout > 0 {
                    eta.min((timeout + done_s).saturating_sub(elapsed))
                } else {
                    eta
                }
            }
            state::PENDING | b'/' => {
                let mut t_eta = 0;
                if timeout > 0 {
                    t_eta = timeout + self.startdelay_s + self.ramp_s;
                    if st == b'/' {
                        t_eta = t_eta.saturating_sub(elapsed);
                    }
                }
                let r_eta = self
                    .bytes_total
                    .checked_div(self.rate)
                    .map_or(0, |t| t + self.startdelay_s);
                match (r_eta, t_eta) {
                    (0, t) => t,
                    (r, 0) => r,
                    (r, t) => r.min(t),
                }
            }
            // done, or in its final fsync
            _ => 0,
        }
    }
}

/// The status line's memory between refreshes: the counters and time of the last line
/// (its rates are the differences).
#[derive(Debug)]
pub struct Watch {
    prev: Instant,
    prev_counts: [u64; 4],
}

impl Default for Watch {
    fn default() -> Self {
        Watch::new()
    }
}

impl Watch {
    /// A watch whose first rates count from now.
    pub fn new() -> Watch {
        Watch {
            prev: Instant::now(),
            prev_counts: [0; 4],
        }
    }

    /// Whether a line is due at `now` with refresh period `every`: fio prints once 95 %
    /// of the period has passed since the last line.
    pub fn due(&self, now: Instant, every: Duration) -> bool {
        now.saturating_duration_since(self.prev) > every * 95 / 100
    }

    /// The snapshot of `board` at `now` (rates since the last one), or `None` when fio
    /// prints nothing: the files are still being laid out, or every thread has ended.
    pub fn snapshot(&mut self, board: &Board, now: Instant) -> Option<JobsEta> {
        let slots = board.slots.get()?;
        let mut je = JobsEta {
            elapsed_s: now
                .saturating_duration_since(board.t0)
                .as_millis()
                .div_ceil(1000) as u64,
            pow2: slots.iter().all(|s| s.info.pow2),
            bits: slots.iter().any(|s| s.info.bits),
            ..Default::default()
        };
        let etas = thread_etas(slots, now);
        let mut counts = [0u64; 4];
        for &(s, st, _) in &etas {
            count(&mut je, s, st);
            for (k, c) in counts.iter_mut().enumerate() {
                *c += s.live[k].load(Ordering::Relaxed);
            }
        }
        if je.elapsed_s >= 3 {
            je.eta_s = Some(overall_eta(&etas));
        }
        let ms = now.saturating_duration_since(self.prev).as_millis().max(1) as u64;
        for d in 0..2 {
            let bytes = counts[d].saturating_sub(self.prev_counts[d]);
            let ios = counts[2 + d].saturating_sub(self.prev_counts[2 + d]);
            je.rate_kib[d] = bytes * 1000 / ms / 1024;
            je.iops[d] = ios * 1000 / ms;
        }
        (self.prev, self.prev_counts) = (now, counts);
        (je.nr_running > 0 || je.nr_pending > 0).then_some(je)
    }
}

/// Each thread's slot, state and ETA at `now` (fio's `thread_eta`), in slot order.
fn thread_etas(slots: &[Slot], now: Instant) -> Vec<(&Slot, u8, u64)> {
    let done_s: u64 = slots
        .iter()
        .map(|s| match s.times() {
            (Some(a), Some(b)) => b.saturating_duration_since(a).as_secs(),
            _ => 0,
        })
        .sum();
    slots
        .iter()
        .map(|s| {
            let st = s.state();
            let since = s
                .times()
                .0
                .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
            let done = s.live[0].load(Ordering::Relaxed) + s.live[1].load(Ordering::Relaxed);
            (s, st, s.info.eta(st, since, done, done_s))
        })
        .collect()
}

/// The run's remaining seconds at `now` over its threads' slots, as the status line
/// computes them (fio's `eta_sec` of `calc_thread_status`, without its 3 s rule,
/// which is the reader's): the interim JSON report's `eta` (src/run/fio/group.rs).
pub(crate) fn remaining(slots: &[Slot], now: Instant) -> u64 {
    overall_eta(&thread_etas(slots, now))
}

/// Count thread `s` in state `st` into the snapshot: running, ramping, pending, its
/// files and rate limits, and its character.
fn count(je: &mut JobsEta, s: &Slot, st: u8) {
    match st {
        state::RUNNING | b'V' | b'F' | b'f' => {
            je.nr_running += 1;
            je.files_open += s.info.files;
            je.rate_limits.0 += s.info.ratemin;
            je.rate_limits.1 += s.info.rate;
            je.iops_limits.0 += s.info.rate_iops_min;
            je.iops_limits.1 += s.info.rate_iops;
        }
        b'/' => {
            je.nr_running += 1;
            je.nr_ramp += 1;
        }
        state::PENDING => je.nr_pending += 1,
        _ => {}
    }
    je.states.push(match st {
        state::RUNNING => s.info.running,
        c => char::from(c),
    });
}

/// The run's ETA from each thread's (fio): with `exitall`, the soonest; otherwise the
/// latest of the threads that run, plus those of pending `stonewall` threads, which
/// run after them.
fn overall_eta(etas: &[(&Slot, u8, u64)]) -> u64 {
    if etas.iter().any(|(s, _, _)| s.info.exitall) {
        return etas.iter().map(|e| e.2).min().unwrap_or(0);
    }
    let (mut max, mut stone) = (0, 0);
    for &(s, st, eta) in etas {
        if st == state::PENDING && s.info.stonewall {
            stone += eta;
        } else {
            max = max.max(eta);
        }
    }
    max + stone
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(timeout_s: u64, bytes_total: u64, time_based: bool) -> JobInfo {
        JobInfo {
            running: 'r',
            files: 1,
            bytes_total,
            timeout_s,
            time_based,
            pow2: true,
            ..Default::default()
        }
    }

    #[test]
    fn eta_follows_fios_thread_rules() {
        let s = Duration::from_secs;
        // time_based 10 s, 4 s in: 6 s left whatever the bytes
        assert_eq!(
            info(10, 1 << 20, true).eta(state::RUNNING, s(4), 1 << 30, 0),
            6
        );
        // a size-bound job a quarter done after 2 s: 6 s left
        assert_eq!(info(0, 400, false).eta(state::RUNNING, s(2), 100, 0), 6);
        // runtime caps a size-bound job
        assert_eq!(info(5, 400, false).eta(state::RUNNING, s(2), 100, 0), 3);
        // nothing done yet: the runtime, less the time gone
        assert_eq!(info(5, 400, false).eta(state::RUNNING, s(1), 0, 0), 4);
        // pending: its runtime (plus ramp and start delay), or its size at its rate
        let mut p = info(7, 1000, false);
        p.ramp_s = 2;
        assert_eq!(p.eta(state::PENDING, Duration::ZERO, 0, 0), 9);
        p.rate = 100;
        assert_eq!(p.eta(state::PENDING, Duration::ZERO, 0, 0), 9);
        p.rate = 500;
        assert_eq!(p.eta(state::PENDING, Duration::ZERO, 0, 0), 2);
        // ended, or in its final fsync
        assert_eq!(info(5, 400, false).eta(state::DONE, s(9), 400, 0), 0);
        assert_eq!(info(5, 400, false).eta(b'F', s(9), 400, 0), 0);
    }

    #[test]
    fn running_characters_are_fios() {
        let mut j = FioJob::default();
        for (rw, mix, c) in [
            (RwMode::Read, 50, 'R'),
            (RwMode::RandRead, 50, 'r'),
            (RwMode::Write, 50, 'W'),
            (RwMode::RandWrite, 50, 'w'),
            (RwMode::ReadWrite, 50, 'M'),
            (RwMode::RandRw, 70, 'm'),
            (RwMode::RandRw, 100, 'r'),
            (RwMode::Trim, 50, 'D'),
            (RwMode::RandTrimWrite, 50, 'w'),
        ] {
            (j.rw, j.rwmixread) = (rw, mix);
            assert_eq!(running_char(&j), c, "{rw:?} {mix}");
        }
    }

    #[test]
    fn snapshot_counts_states_rates_and_stonewall_etas() {
        let board = Board::new(true);
        let mk = |c: u8, i: JobInfo| {
            let s = Slot {
                info: i,
                ..Default::default()
            };
            s.live[LIVE_STATE].store(u64::from(c), Ordering::Relaxed);
            s
        };
        let mut later = info(4, 0, true);
        later.stonewall = true;
        let run = mk(state::RUNNING, info(10, 0, true));
        run.times.lock().unwrap().0 = Some(board.t0);
        let _ = board.slots.set(vec![
            run,
            mk(state::DONE, info(1, 0, true)),
            mk(state::PENDING, later),
        ]);
        let mut w = Watch::new();
        w.prev = board.t0;
        let slots = board.slots.get().unwrap();
        slots[0].live[0].store(4 << 20, Ordering::Relaxed);
        slots[0].live[2].store(1024, Ordering::Relaxed);
        let je = w
            .snapshot(&board, board.t0 + Duration::from_secs(4))
            .unwrap();
        assert_eq!(je.states, "r_P");
        assert_eq!((je.nr_running, je.nr_pending, je.files_open), (1, 1, 1));
        assert_eq!((je.rate_kib[0], je.iops[0]), (1024, 256));
        // 6 s left of the running job, then 4 s of the stonewalled one
        assert_eq!(je.eta_s, Some(10));
        // every thread ended: no line
        for s in slots {
            s.live[LIVE_STATE].store(u64::from(state::DONE), Ordering::Relaxed);
        }
        assert!(w
            .snapshot(&board, board.t0 + Duration::from_secs(5))
            .is_none());
    }
}
