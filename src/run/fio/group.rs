//! One stonewall group of `iomark run` (see [`crate::run::fio::execute`]): its job
//! threads run concurrently while this thread coordinates them — it forwards signals,
//! applies `exitall`/`exit_what`, feeds the steady-state detectors, and takes the
//! `--status-interval` and `--plot` samples from the threads' live counters — then the
//! threads' records are merged per reporting group (`group_reporting`). Under the fio
//! persona `--status-interval` is fio's whole report every interval: the coordinator
//! asks each running thread for a copy of its recorder (run/worker/fio: taken at the
//! thread's next loop pass), makes the records a thread would end with, merges them as
//! the final ones, and hands them, after the records of the groups already ended, to the
//! front end's hook ([`RunCtx::report`]), which renders them with the final report's
//! reporters.

use crate::job::fio::keys::ExitWhat;
use crate::job::fio::{FioCommand, FioJob};
use crate::result::job::JobRecord;
use crate::result::Interval;
use crate::run::control::steady::Steady;
use crate::run::fio::status::Slot;
use crate::run::fio::{live_sum, start_thread, status_line, status_sample};
use crate::run::fio::{Plan, RunError};
use crate::run::sampler::Sampler;
use crate::run::worker::Live;
use crate::stats::clock::Clock;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a status report waits for the running threads' copies of their recorders
/// (a thread inside a long request, a think time or a rate wait answers late): then the
/// last copy it gave is reported.
const STATS_WAIT: Duration = Duration::from_millis(500);

/// What every group of a run shares.
pub(crate) struct RunCtx<'a> {
    pub cmd: &'a FioCommand,
    pub plans: &'a [Vec<Plan>],
    pub clock: &'a Clock,
    pub stop: &'a AtomicBool,
    pub note: &'a (dyn Fn(String) + Sync),
    /// `wait_for` targets (validated to name an earlier job), by job
    pub wait_idx: Vec<Option<usize>>,
    /// finished threads, by job
    pub done: Vec<AtomicU32>,
    /// by job, the setup failure that keeps it from running (run/fio/setup.rs)
    pub failed: Vec<Option<crate::run::fio::setup::SetupFail>>,
    /// reporting group of each job: a new one at every stonewall or new_group
    pub report_gid: Vec<u32>,
    /// when the run started (the samples' time axis)
    pub run_t0: Instant,
    /// every thread's live counters and state, by global thread number (status.rs)
    pub slots: &'a [Slot],
    /// fio's status line reads the slots: the workers keep their live counters
    pub watched: bool,
    /// fio's running report (the fio persona): the front end renders the records of
    /// the run so far, each `--status-interval` and at each SIGUSR1; `None`: a
    /// progress line on stderr. Its flag: whether the I/O has started (a report
    /// before it has no disk, as fio 3.33's: run/fio/mod.rs `execute`)
    pub report: Option<&'a dyn Fn(Vec<JobRecord>, bool)>,
    /// no progress or SIGUSR1 line on stderr (a rank other than 0: rank 0 prints them)
    pub quiet: bool,
    /// by job, whether a thread of it began (fio 3.33 created it: it was not stopped
    /// while it waited for its turn)
    pub created: Vec<AtomicBool>,
}

/// The samples taken over the whole run.
#[derive(Default)]
pub(crate) struct Sampling {
    pub intervals: Vec<Interval>,
    /// the run's one sampler (run/sampler.rs), when it is sampled
    pub sampler: Option<Sampler>,
    /// with [`RunCtx::report`]: the reported records of the groups that ended
    pub before: Vec<JobRecord>,
    /// with [`RunCtx::report`]: when the next status report is due, since the run's
    /// start (none made yet: [`due`]'s first)
    pub next_report: Option<Duration>,
}

/// The live counters of `lives` in the sampler's order: reads, writes, bytes read,
/// bytes written.
fn counts(lives: &[&Live]) -> [u64; 4] {
    let s = live_sum(lives);
    [s[2], s[3], s[0], s[1]]
}

/// Every job's cumulative live counters over its threads (all of the run's, so each
/// job's counters only grow): bytes read, bytes written, reads, writes; and the threads' last readings of their recorders' completion latencies
/// (each thread is asked for its next one).
fn job_counts(ctx: &RunCtx) -> Vec<crate::run::live::JobCount> {
    ctx.cmd
        .jobs
        .iter()
        .zip(ctx.plans)
        .map(|(j, plans)| {
            let mut c = [0u64; 4];
            let mut clat: Option<crate::stats::LatAcc> = None;
            for p in plans {
                if let Some(slot) = ctx.slots.get(p.global as usize) {
                    for (k, x) in c.iter_mut().enumerate() {
                        *x += slot.live[k].load(Ordering::Relaxed);
                    }
                    if let Some(l) = slot.live.reading() {
                        clat.get_or_insert_with(Default::default).merge(&l);
                    }
                }
            }
            crate::run::live::JobCount {
                name: j.name.clone(),
                c,
                clat,
            }
        })
        .collect()
}

/// The threads of one group: what they share with the coordinator.
struct Threads<'a> {
    /// (job index, plan) of each thread
    members: Vec<(usize, &'a Plan)>,
    /// one stop flag per thread, so exitall can end some threads and not others
    tstops: Vec<AtomicBool>,
    fin: Vec<AtomicBool>,
    /// the thread ended with an error (`exitall_on_error`)
    failed: Vec<AtomicBool>,
    /// each thread's slot on the run's status board, and its live counters
    slots: Vec<&'a Slot>,
    lives: Vec<&'a Live>,
    /// with [`RunCtx::report`]: each ended thread's record, for the status reports
    finals: Vec<Mutex<Option<JobRecord>>>,
}

impl Threads<'_> {
    /// Stop the threads that thread `i`'s finishing ends when the run has `exitall`: its report
    /// group's (`exit_what=group`) or all of this group's. The finishing thread calls it
    /// itself before it counts as done, so a job that `wait_for`s it is stopped before
    /// it starts (fio's `fio_terminate_threads` from the ending thread); the coordinator
    /// applies it again, which changes nothing.
    fn exit_from(&self, (cmd, gid): (&FioCommand, &[u32]), i: usize) {
        if !cmd.jobs.iter().any(|j| j.more.exitall) {
            return;
        }
        let ji = self.members[i].0;
        let what = cmd.jobs[ji].more.exit_what;
        for (k, &(jk, _)) in self.members.iter().enumerate() {
            let hit = match what {
                ExitWhat::Group => gid[jk] == gid[ji],
                ExitWhat::Stonewall | ExitWhat::All => true,
            };
            if hit {
                self.tstops[k].store(true, Ordering::Relaxed);
            }
        }
    }
}

/// The coordinator's state for one group.
struct Group<'a> {
    th: &'a Threads<'a>,
    /// steady-state detectors (run/control/steady.rs) and the threads each watches
    steadies: Vec<(Vec<usize>, Steady)>,
    t0: Instant,
    /// exitall already applied for the thread
    handled: Vec<bool>,
    last: (Instant, [u64; 4]),
    /// when the next `--status-interval` line is due, since the run's start
    line_due: Duration,
    /// a status report asked the threads for their recorders then
    asked: Option<Instant>,
    /// a later stonewall group's wait before it started, ns
    held_ns: u64,
}

impl<'a> Threads<'a> {
    fn new(ctx: &RunCtx<'a>, g: &[usize]) -> Threads<'a> {
        let members: Vec<(usize, &Plan)> = g
            .iter()
            .filter(|&&ji| ctx.failed[ji].is_none())
            .flat_map(|&ji| ctx.plans[ji].iter().map(move |p| (ji, p)))
            .collect();
        let n = members.len();
        // the board has a slot for every plan's global thread number
        let slots: Vec<&Slot> = members
            .iter()
            .map(|(_, p)| &ctx.slots[p.global as usize])
            .collect();
        Threads {
            tstops: (0..n).map(|_| AtomicBool::new(false)).collect(),
            fin: (0..n).map(|_| AtomicBool::new(false)).collect(),
            failed: (0..n).map(|_| AtomicBool::new(false)).collect(),
            finals: (0..n).map(|_| Mutex::new(None)).collect(),
            lives: slots.iter().map(|s| &s.live).collect(),
            slots,
            members,
        }
    }
}

impl<'a> Group<'a> {
    fn new(ctx: &RunCtx, th: &'a Threads<'a>, held_ns: u64) -> Group<'a> {
        let member_jobs: Vec<&FioJob> = th
            .members
            .iter()
            .map(|&(ji, _)| &ctx.cmd.jobs[ji])
            .collect();
        let member_gids: Vec<u32> = th
            .members
            .iter()
            .map(|&(ji, _)| ctx.report_gid[ji])
            .collect();
        Group {
            steadies: crate::run::control::steady::detectors(&member_jobs, &member_gids),
            t0: Instant::now(),
            handled: vec![false; th.members.len()],
            last: (Instant::now(), [0u64; 4]),
            line_due: Duration::ZERO,
            asked: None,
            held_ns,
            th,
        }
    }

    /// A sample of the I/O since the last one, when one is due (with every job's
    /// counters for the `--live` view, when one watches: run/live.rs).
    fn sample(&mut self, ctx: &RunCtx, sampling: &mut Sampling) {
        let now = Instant::now();
        if let Some(s) = sampling.sampler.as_mut().filter(|s| now >= s.due()) {
            crate::run::live::jobs(|| job_counts(ctx), now);
            s.take(counts(&self.th.lives), now);
        }
    }

    /// The status line a SIGUSR1 asked for (src/run/signals.rs), on stderr: the I/O
    /// since the group started when live counters run (`--status-interval`, `--plot`,
    /// steady state), else the time alone.
    fn status_on_request(&self, ctx: &RunCtx, live: bool) {
        if !crate::run::signals::take_status_request() || ctx.quiet {
            return;
        }
        let t = ctx.run_t0.elapsed().as_secs_f64();
        if !live {
            eprintln!("[t={t:.1}s] running (SIGUSR1; --status-interval adds the I/O counts)");
            return;
        }
        let sum = live_sum(&self.th.lives);
        let dur = self.t0.elapsed().as_secs_f64();
        let iv = status_sample(&sum, &[0; 4], dur, t);
        eprintln!("{}", status_line(&iv, sum[2], sum[3]));
    }

    /// A `--status-interval` line and sample, when one is due; what a SIGUSR1 asked for:
    /// with the front end's hook, fio's running report, else the status line.
    fn status(&mut self, ctx: &RunCtx, sampling: &mut Sampling) {
        match ctx.report {
            Some(report) => self.status_report(ctx, sampling, report),
            None => {
                let live = ctx.cmd.status_interval.is_some()
                    || ctx.cmd.plot.is_some()
                    || !self.steadies.is_empty();
                self.status_on_request(ctx, live);
            }
        }
        let Some(every) = ctx.cmd.status_interval else {
            return;
        };
        let now = ctx.run_t0.elapsed();
        if !expired(self.line_due, now) {
            return;
        }
        self.line_due = next_due(self.line_due, every, now);
        let sum = live_sum(&self.th.lives);
        let dur = self.last.0.elapsed().as_secs_f64();
        let iv = status_sample(&sum, &self.last.1, dur, now.as_secs_f64());
        if ctx.report.is_none() && !ctx.quiet {
            (ctx.note)(status_line(
                &iv,
                sum[2] - self.last.1[2],
                sum[3] - self.last.1[3],
            ));
        }
        sampling.intervals.push(iv);
        self.last = (Instant::now(), sum);
    }

    /// fio's running report (`__show_running_run_stats`), made when `--status-interval`
    /// has one due (every interval from the run's start) and at each SIGUSR1 (fio's
    /// `show_running_run_stats`): ask the running threads for copies of their
    /// recorders; once they all answered (or [`STATS_WAIT`] passed), hand the run's
    /// records so far to `report`. A SIGUSR1 is taken only while no report is being
    /// gathered: one that comes meanwhile gets a report of its own after it.
    fn status_report(
        &mut self,
        ctx: &RunCtx,
        sampling: &mut Sampling,
        report: &dyn Fn(Vec<JobRecord>, bool),
    ) {
        let th = self.th;
        let running = |i: usize| !th.fin[i].load(Ordering::Acquire);
        let every = ctx.cmd.status_interval;
        let Some(t) = self.asked else {
            let signalled = crate::run::signals::take_status_request();
            // fio's status timer (helper_thread.c `eval_timer`): on an interval that
            // expired, the next deadline is set as the report is asked for
            let now = ctx.run_t0.elapsed();
            let timed = every.filter(|&e| {
                let at = *sampling.next_report.get_or_insert(due(e, 0));
                expired(at, now)
            });
            if let Some(e) = timed {
                sampling.next_report = sampling.next_report.map(|at| next_due(at, e, now));
            }
            if signalled || timed.is_some() {
                (0..th.lives.len())
                    .filter(|&i| running(i))
                    .for_each(|i| th.lives[i].ask_stats());
                self.asked = Some(Instant::now());
            }
            return;
        };
        let answered = (0..th.lives.len()).all(|i| !running(i) || th.lives[i].stats_given());
        if !answered && t.elapsed() < STATS_WAIT {
            return;
        }
        self.asked = None;
        let now = ctx.run_t0.elapsed();
        let mut all = sampling.before.clone();
        all.extend(self.snapshot(ctx));
        let ms = u64::try_from(now.as_millis()).unwrap_or(u64::MAX);
        let eta = crate::run::fio::status::remaining(ctx.slots, Instant::now());
        for j in &mut all {
            (j.elapsed_ms, j.eta_s) = (ms, Some(eta));
        }
        report(all, true);
    }

    /// The records of the group and of the groups after it as they would be if every
    /// thread ended now: an ended thread's own, a running one's from the last copy of
    /// its recorder; a thread that gave none yet, and every thread of a later group, is
    /// there with nothing done (fio reports every thread of the run: the text skips a
    /// job without I/O but prints its group's `Run status group` line).
    fn snapshot(&self, ctx: &RunCtx) -> Vec<JobRecord> {
        use crate::run::fio::thread::{effective_job, empty_record};
        let th = self.th;
        let mut recs = Vec::new();
        for (i, &(ji, p)) in th.members.iter().enumerate() {
            let ended = th.finals[i]
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            let mut r = ended.unwrap_or_else(|| {
                let Some(mut r) = th.lives[i].given_stats() else {
                    return empty_record(p);
                };
                let st = &mut r.stats;
                st.runtime_ms_sum = st.runtime_ns / 1_000_000;
                let since = th.slots[i].started_at().map(|s| s.elapsed());
                st.run_ns_sum = since.map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(0));
                r.engine = p.thread_job.engine.name().into();
                r
            });
            r.job = effective_job(p);
            recs.push((i, ji, r));
        }
        let last = th.members.iter().map(|m| m.0).max().unwrap_or(usize::MAX);
        for (ji, plans) in ctx.plans.iter().enumerate().skip(last.saturating_add(1)) {
            for p in plans {
                let mut r = empty_record(p);
                r.job = effective_job(p);
                // no member index: no steady-state detector of this group watches it
                recs.push((usize::MAX, ji, r));
            }
        }
        self.reported(ctx, recs)
    }

    /// The reported jobs of the group's thread records `recs` (member index, job index,
    /// record): per thread, or merged per reporting group with `group_reporting`
    /// ([`reported`]), with the group's wait and its steady-state verdicts.
    fn reported(&self, ctx: &RunCtx, recs: Vec<(usize, usize, JobRecord)>) -> Vec<JobRecord> {
        reported(ctx.cmd, &ctx.report_gid, recs, &|i, st| {
            st.stats.held_ns += self.held_ns;
            if let Some((_, d)) = self.steadies.iter().find(|(w, _)| w.contains(&i)) {
                st.steady = Some(d.report());
            }
        })
    }

    /// Feed the steady-state detectors that are due; a job (or its reporting group)
    /// that attained steady state stops.
    fn steady(&mut self) {
        let el = self.t0.elapsed();
        for (watch, d) in self.steadies.iter_mut().filter(|(_, d)| d.due(el)) {
            let mut sum = [0u64; 4];
            for &k in watch.iter() {
                let l = &self.th.lives[k];
                let v = |i: usize| l[i].load(Ordering::Relaxed);
                sum[0] += v(2) + v(3);
                sum[1] += v(0) + v(1);
                sum[2] += v(4);
                sum[3] += v(5);
            }
            if d.check(el, sum) {
                watch
                    .iter()
                    .for_each(|&k| self.th.tstops[k].store(true, Ordering::Relaxed));
            }
        }
    }

    /// Apply `exitall` of the threads that finished; true when the rest of the run is
    /// to be skipped (`exit_what=all`).
    /// fio 3.33's `exitall` is the run's, not a job's (a global its option sets): with
    /// it on any job, every job that finishes ends the jobs of its own `exit_what`
    /// (`[s0] exitall` then `[s1] new_group`, `[s2]`: s1 finishing ends s2).
    fn exitall(&mut self, ctx: &RunCtx) -> bool {
        let mut abort_rest = false;
        let exitall = ctx.cmd.jobs.iter().any(|j| j.more.exitall);
        for (i, &(ji, _)) in self.th.members.iter().enumerate() {
            let job = &ctx.cmd.jobs[ji];
            if job.tuning.exitall_on_error
                && !self.handled[i]
                && self.th.failed[i].load(Ordering::Acquire)
            {
                // fio: every job of the run is terminated, the later groups too
                self.handled[i] = true;
                self.th
                    .tstops
                    .iter()
                    .for_each(|t| t.store(true, Ordering::Relaxed));
                abort_rest = true;
                continue;
            }
            if self.handled[i] || !exitall || !self.th.fin[i].load(Ordering::Acquire) {
                continue;
            }
            self.handled[i] = true;
            self.th.exit_from((ctx.cmd, &ctx.report_gid), i);
            if job.more.exit_what == ExitWhat::All {
                abort_rest = true;
            }
        }
        abort_rest
    }

    /// Coordinate the running threads until all finished; true when the rest of the run
    /// is to be skipped.
    fn monitor(&mut self, ctx: &RunCtx, sampling: &mut Sampling) -> bool {
        let mut abort_rest = false;
        // the intervals start when the threads do
        self.last = (Instant::now(), [0u64; 4]);
        if let Some(every) = ctx.cmd.status_interval {
            self.line_due = ctx.run_t0.elapsed().saturating_add(every);
        }
        // this group's threads count from zero
        if let Some(s) = sampling.sampler.as_mut() {
            s.counters_reset();
        }
        loop {
            self.sample(ctx, sampling);
            self.status(ctx, sampling);
            self.steady();
            let all_done = self.th.fin.iter().all(|f| f.load(Ordering::Acquire));
            if ctx.stop.load(Ordering::Relaxed) {
                self.th
                    .tstops
                    .iter()
                    .for_each(|t| t.store(true, Ordering::Relaxed));
            }
            abort_rest |= self.exitall(ctx);
            if all_done {
                self.asked = None;
                // the tail since the last sample, so the samples add up to the run
                if let Some(s) = sampling.sampler.as_mut() {
                    crate::run::live::jobs(|| job_counts(ctx), Instant::now());
                    s.finish(counts(&self.th.lives), Instant::now());
                }
                return abort_rest;
            }
            std::thread::sleep(self.nap(ctx, sampling));
        }
    }

    /// How long the coordinator sleeps before it looks again: the 10 ms tick, less up
    /// to the next `--status-interval` deadline (a report is due on its deadline, not an
    /// interval after the last one ended), and a short poll while a report waits for
    /// the threads' copies of their recorders.
    fn nap(&self, ctx: &RunCtx, sampling: &Sampling) -> Duration {
        let tick = Duration::from_millis(10);
        let Some(every) = ctx.cmd.status_interval else {
            return tick;
        };
        if self.asked.is_some() {
            return Duration::from_micros(20);
        }
        let due = match (ctx.report, sampling.next_report) {
            (Some(_), Some(at)) => at,
            (Some(_), None) => due(every, 0),
            (None, _) => self.line_due,
        };
        let left = due.saturating_sub(ctx.run_t0.elapsed() + TIMER_SLACK);
        left.clamp(Duration::from_micros(20), tick)
    }
}

/// fio's timer accuracy with a timerfd (helper_thread.c `sleep_accuracy_ms`): a timer
/// within this of its deadline has expired.
const TIMER_SLACK: Duration = Duration::from_millis(1);

/// Whether a timer with deadline `at` has expired at `now` (fio's `eval_timer`).
fn expired(at: Duration, now: Duration) -> bool {
    now.saturating_add(TIMER_SLACK) >= at
}

/// The deadline after `at` of a timer of period `every` that expired at `now` (fio's
/// `eval_timer`): one period after the last deadline, whatever the report then costs,
/// so reports neither drift by their own time nor bunch up; a deadline that would not
/// fall one period (give or take [`TIMER_SLACK`]) after `now` — the reports fell behind
/// — starts over from `now`, skipping the missed ones.
fn next_due(at: Duration, every: Duration, now: Duration) -> Duration {
    let next = at.saturating_add(every);
    let ahead = next.checked_sub(now);
    let (lo, hi) = (
        every.saturating_sub(TIMER_SLACK),
        every.saturating_add(TIMER_SLACK),
    );
    match ahead {
        Some(d) if d >= lo && d <= hi => next,
        _ => now.saturating_add(every),
    }
}

/// When the status report after `made` ones is due: `made + 1` intervals `every` after
/// the run's start, less fio's lead — fio's status timer starts with its helper thread,
/// 100 ms before its jobs (fio waits 100 ms for them to start), so its reports fall at
/// 0.9, 1.9, 2.9 s of a job's run with `--status-interval=1` (a tenth of shorter
/// intervals).
fn due(every: Duration, made: u32) -> Duration {
    let lead = (every / 10).min(Duration::from_millis(100));
    let at = every.checked_mul(made.saturating_add(1));
    at.map_or(Duration::MAX, |t| t.saturating_sub(lead))
}

/// Each thread's job index and record (or the error that ended it without one).
type Joined = Vec<(usize, Result<JobRecord, RunError>)>;

/// Run the threads of `g`, spawned in a scope, coordinated until they finish; true
/// with them when the rest of the run is to be skipped.
fn threads(ctx: &RunCtx, grp: &mut Group, sampling: &mut Sampling) -> (Joined, bool) {
    let cmd = ctx.cmd;
    let use_live = cmd.status_interval.is_some()
        || ctx.report.is_some()
        || sampling.sampler.is_some()
        || !grp.steadies.is_empty()
        || ctx.watched;
    let th = grp.th;
    let mut refused = None;
    let (mut results, abort_rest): (Joined, bool) = std::thread::scope(|s| {
        let mut hs = Vec::new();
        for (i, &(ji, p)) in th.members.iter().enumerate() {
            let (clock, done, note) = (ctx.clock, &ctx.done, ctx.note);
            let groups = (cmd, &ctx.report_gid[..]);
            let (tstop, fin, failed) = (&th.tstops[i], &th.fin[i], &th.failed[i]);
            let live = use_live.then_some(th.lives[i]);
            let slot = th.slots[i];
            let keep = ctx.report.is_some().then_some(&th.finals[i]);
            let wait = ctx.wait_idx[ji].map(|t| (&done[t], cmd.jobs[t].numjobs));
            // flow weights count from the group's start to each thread's end
            let c = &cmd.jobs[ji].control;
            let flow = p
                .flows
                .as_ref()
                .filter(|_| c.flow > 0)
                .map(|f| (f, c.flow_id, c.flow));
            if let Some((f, id, w)) = flow {
                f.reserve(id, w);
            }
            let (genesis, created) = (ctx.run_t0, &ctx.created[ji]);
            let body = move || {
                slot.started();
                let r = start_thread(p, (clock, genesis), (tstop, created), note, wait, live)
                    // the fio persona: a file the thread cannot open is the job's error
                    .or_else(|e| crate::run::fio::setup::open_failure(p, &e).ok_or(e));
                if let (Some(k), Ok(rec)) = (keep, r.as_ref()) {
                    *k.lock().unwrap_or_else(|e| e.into_inner()) = Some(rec.clone());
                }
                slot.ended(r.as_ref().map_or(true, |rec| rec.stats.failure.is_some()));
                if let Some((f, id, w)) = flow {
                    f.release(id, w);
                }
                th.exit_from(groups, i);
                done[ji].fetch_add(1, Ordering::Release);
                let bad = r.as_ref().map_or(true, |rec| rec.stats.error != 0);
                failed.store(bad, Ordering::Release);
                fin.store(true, Ordering::Release);
                r
            };
            match std::thread::Builder::new().spawn_scoped(s, body) {
                Ok(h) => hs.push((ji, h)),
                Err(e) => {
                    // the machine cannot start another thread: stop the ones started,
                    // mark the rest finished, and end the run with the limit named
                    if let Some((f, id, w)) = flow {
                        f.release(id, w);
                    }
                    th.tstops
                        .iter()
                        .for_each(|t| t.store(true, Ordering::Relaxed));
                    th.fin[i..]
                        .iter()
                        .for_each(|f| f.store(true, Ordering::Release));
                    refused = Some((
                        ji,
                        spawn_refusal(&cmd.jobs[ji].name, i, th.members.len(), &e),
                    ));
                    break;
                }
            }
        }
        let abort_rest = grp.monitor(ctx, sampling);
        (join(cmd, hs), abort_rest)
    });
    if let Some(r) = refused {
        results.push((r.0, Err(r.1)));
        results.rotate_right(1); // the refusal first: run_group stops at it
    }
    (results, abort_rest)
}

/// The records of the group's threads, each with its job's index; a thread that
/// panicked is its job's error.
fn join(
    cmd: &FioCommand,
    hs: Vec<(
        usize,
        std::thread::ScopedJoinHandle<'_, Result<JobRecord, RunError>>,
    )>,
) -> Joined {
    hs.into_iter()
        .map(|(ji, h)| {
            let r = h.join().unwrap_or_else(|_| {
                Err(RunError::Plan {
                    job: cmd.jobs[ji].name.clone(),
                    why: "worker thread panicked".into(),
                })
            });
            (ji, r)
        })
        .collect()
}

/// The error of a thread the machine could not start (`std::thread::Builder::spawn`:
/// EAGAIN under a thread or memory limit): exit 3, naming the limit and the way out.
fn spawn_refusal(job: &str, i: usize, n: usize, e: &std::io::Error) -> RunError {
    RunError::Refused {
        job: job.to_string(),
        why: format!(
            "cannot start thread {} of the {n} this group runs at once: {e} (the process's thread or memory limit); run fewer jobs at once (numjobs, stonewall)",
            i + 1
        ),
    }
}

/// `disable_lat`, `disable_clat`, `disable_slat`: that latency is reported as not
/// measured (fio records none; iomark measures it and drops it from the record).
/// fio records a sync's latency as a completion latency: `disable_clat` drops the
/// syncs' latencies too (their count stays), so fio prints no sync block then. A job
/// with no submission latency ([`FioJob::no_slat`](crate::job::fio::FioJob::no_slat))
/// drops its slat.
fn disable_lat(st: &mut JobRecord, job: &crate::job::fio::FioJob) {
    let (t, s) = (&job.tuning, &mut st.stats);
    if t.disable_clat {
        s.sync.lat = Default::default();
    }
    for d in [&mut s.read, &mut s.write, &mut s.trim] {
        if t.disable_lat {
            d.lat = Default::default();
        }
        if t.disable_clat {
            d.clat = Default::default();
        }
        if job.no_slat() {
            d.slat = Default::default();
        }
    }
}

/// The reported jobs of thread records `recs` (member index, job index, record), in
/// job order: per thread, or merged per reporting group with `group_reporting`; `each`
/// adds to a thread's record what its group knows (by member index) before it is
/// reported. `report_gid`: each job's reporting group.
fn reported(
    cmd: &FioCommand,
    report_gid: &[u32],
    recs: Vec<(usize, usize, JobRecord)>,
    each: &dyn Fn(usize, &mut JobRecord),
) -> Vec<JobRecord> {
    let mut out: Vec<JobRecord> = Vec::new();
    let mut last_gid = None;
    for (i, ji, mut st) in recs {
        if !cmd.jobs[ji].tuning.stats {
            // `stats=0`: the job runs but is left out of every report (fio's
            // show_run_stats skips it, its group's totals too)
            continue;
        }
        st.groupid = report_gid[ji];
        if cmd.jobs[ji].tuning.unified == crate::job::fio::tuning::Unified::Mixed {
            // `unified_rw_reporting=mixed`: every direction counted as one, in `read`
            let s = &mut st.stats;
            let (w, t) = (std::mem::take(&mut s.write), std::mem::take(&mut s.trim));
            s.read.merge(&w);
            s.read.merge(&t);
            unify_rates(&mut s.rates);
            unify_prios(&mut s.prio_lat);
        }
        disable_lat(&mut st, &cmd.jobs[ji]);
        each(i, &mut st);
        // fio 3.33's __show_run_stats: a thread with group_reporting joins the entry
        // before it when the thread before it is of the same reporting group (with
        // group_reporting or not); any other thread starts an entry. The entry keeps
        // its first thread's name and lists the last one's `job options`.
        let joins = cmd.jobs[ji].group_reporting && last_gid == Some(st.groupid);
        last_gid = Some(st.groupid);
        match out.last_mut() {
            Some(m) if joins => {
                m.merge(&st);
                let own = std::mem::replace(&mut m.job.options, st.job.options.clone());
                m.job.header_options.get_or_insert(own);
                // a later section's first job: its header line goes with the entry
                let last = m.job.joined.last().map_or(&m.job.name, |k| &k.name);
                if *last != st.job.name {
                    m.job.joined.push(st.job);
                }
            }
            _ => out.push(st),
        }
    }
    out
}

/// The reported jobs of the run before its first I/O, as the final report will have
/// them: every thread's record with nothing done (of a job whose setup failed, with
/// its failure: `failed`), merged as the groups merge theirs — what fio's header lines
/// are printed from as the run starts.
pub(crate) fn before_io(
    cmd: &FioCommand,
    plans: &[Vec<Plan>],
    failed: &[Option<crate::run::fio::setup::SetupFail>],
    report_gid: &[u32],
) -> Vec<JobRecord> {
    use crate::run::fio::thread::{effective_job, empty_record, engine_that_runs};
    let mut recs = Vec::new();
    for (ji, ps) in plans.iter().enumerate() {
        for p in ps {
            let r = match &failed[ji] {
                Some(f) => f.record(p),
                None => {
                    let mut r = empty_record(p);
                    r.engine = engine_that_runs(p).name().into();
                    r.job = effective_job(p);
                    r
                }
            };
            recs.push((usize::MAX, ji, r));
        }
    }
    reported(cmd, report_gid, recs, &|_, _| {})
}

/// Run one stonewall group (its job indices `g`); its reported jobs (per thread, or
/// merged per reporting group with `group_reporting`) and whether the rest of the run
/// is to be skipped.
pub(crate) fn run_group(
    ctx: &RunCtx,
    g: &[usize],
    sampling: &mut Sampling,
) -> Result<(Vec<JobRecord>, bool), RunError> {
    // a later stonewall group (its first job is not the run's first) was held from the
    // run's start until now, when the groups before it have ended: one clock reading
    // here, the run's start the other
    let held_ns = match g.first() {
        Some(&j) if j > 0 => u64::try_from(ctx.run_t0.elapsed().as_nanos()).unwrap_or(u64::MAX),
        _ => 0,
    };
    let th = Threads::new(ctx, g);
    let mut grp = Group::new(ctx, &th, held_ns);
    let (results, abort_rest) = threads(ctx, &mut grp, sampling);
    // in job order: the threads' records, and those of the jobs whose setup failed
    let mut joined = results.into_iter().enumerate();
    let mut recs = Vec::new();
    for &ji in g {
        if let Some(f) = &ctx.failed[ji] {
            recs.extend(ctx.plans[ji].iter().map(|p| (usize::MAX, ji, f.record(p))));
            continue;
        }
        for _ in &ctx.plans[ji] {
            if let Some((i, (ji, r))) = joined.next() {
                recs.push((i, ji, r?));
            }
        }
    }
    // a refused spawn comes first among the results: its error, as before
    for (_, (_, r)) in joined {
        r?;
    }
    Ok((grp.reported(ctx, recs), abort_rest))
}

/// `unified_rw_reporting=mixed`: the bandwidth/IOPS samples of every direction added
/// into direction 0 as fio 3.33's `sum_thread_stats` does into a mixed `thread_stat`
/// (`sum_stat` with `pure_sum`: min, max, mean, S and counts summed), the others emptied.
fn unify_rates(r: &mut crate::stats::rates::RateSamples) {
    for d in 1..3 {
        let (bw, iops) = (std::mem::take(&mut r.bw[d]), std::mem::take(&mut r.iops[d]));
        r.bw[0].merge_sum(&bw);
        r.iops[0].merge_sum(&iops);
    }
}

/// `unified_rw_reporting=mixed`: each priority's latencies of every direction as one
/// entry of direction 0 (fio 3.33 reports them under `mixed`).
fn unify_prios(p: &mut Vec<(usize, u16, crate::stats::LatAcc)>) {
    for (_, ioprio, l) in std::mem::take(p) {
        match p.iter_mut().find(|e| e.1 == ioprio) {
            Some(e) => e.2.merge(&l),
            None => p.push((0, ioprio, l)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{due, expired, next_due, unify_prios, unify_rates};
    use crate::stats::LatAcc;
    use std::time::Duration;

    /// fio 3.33's reports with `--status-interval=1` came at 898, 1898 and 2898 ms of
    /// its job's run (its status timer starts 100 ms before the job): the k-th report
    /// is due at k s less 100 ms; a tenth of a shorter interval.
    #[test]
    fn status_reports_are_due_as_fios() {
        let s = Duration::from_secs(1);
        assert_eq!(due(s, 0), Duration::from_millis(900));
        assert_eq!(due(s, 2), Duration::from_millis(2900));
        assert_eq!(
            due(Duration::from_millis(200), 0),
            Duration::from_millis(180)
        );
        assert_eq!(
            due(Duration::from_secs(60), 1),
            Duration::from_millis(119_900)
        );
        assert_eq!(due(Duration::MAX, 3), Duration::MAX);
    }

    /// fio's status timer: the next deadline is one interval after the last one, not
    /// after the report ended (a report costing 0.3 ms of a 1 ms interval keeps the
    /// grid), and reports that fell behind start over from now. Over 1 s of 1 ms
    /// intervals with reports costing 0.3 ms that makes 1000 reports; timing each from
    /// the end of the last (the drift) made 1000 / 1.3 = 769.
    #[test]
    fn status_deadlines_keep_their_grid_as_fios_timer() {
        let ms = |n: u64| Duration::from_micros(n * 1000);
        let us = Duration::from_micros;
        assert_eq!(next_due(ms(5), ms(1), us(5300)), ms(6));
        assert_eq!(next_due(ms(900), ms(1000), us(900_400)), ms(1900));
        // 10 ms behind: the missed deadlines are skipped
        assert_eq!(next_due(ms(5), ms(1), ms(15)), ms(16));
        assert!(expired(ms(6), us(5001)) && !expired(ms(6), us(4999)));
        let (every, cost) = (ms(1), us(300));
        let (mut at, mut now, mut made) = (ms(1), Duration::ZERO, 0);
        while now < ms(1000) {
            if expired(at, now) {
                at = next_due(at, every, now);
                made += 1;
                now += cost;
            } else {
                // the coordinator sleeps until the deadline is within the slack
                now = at - ms(1);
            }
        }
        assert_eq!(made, 1000);
    }

    /// `unified_rw_reporting=mixed`: fio 3.33 sums the directions' samples (`fio
    /// --rw=randrw --rate_iops=500 --unified_rw_reporting=mixed` printed `bw: min= 4000,
    /// …, samples=6` where each direction alone had about 2000 KiB/s and 3 samples).
    #[test]
    fn samples_of_every_direction_add_up_in_the_mixed_entry() {
        let mut r = crate::stats::rates::RateSamples::default();
        [2000, 2010].iter().for_each(|&v| r.bw[0].add(v));
        [2020, 1990, 2040].iter().for_each(|&v| r.bw[1].add(v));
        r.iops[1].add(505);
        unify_rates(&mut r);
        let b = &r.bw[0];
        assert_eq!((b.min, b.max, b.samples), (3990, 4050, 5));
        assert!(
            (b.mean - (2005.0 + 6050.0 / 3.0)).abs() < 1e-9,
            "{}",
            b.mean
        );
        assert_eq!((r.iops[0].samples, r.iops[0].min), (1, 505));
        assert_eq!((r.bw[1].samples, r.iops[1].samples), (0, 0));
    }

    /// `unified_rw_reporting=mixed`: a priority's read and write latencies become one
    /// entry of direction 0 (counts summed), each priority once.
    #[test]
    fn priorities_of_both_directions_merge_into_one() {
        let acc = |ns: &[u64]| {
            let mut a = LatAcc::default();
            for &n in ns {
                a.add(n);
            }
            a
        };
        let mut p = vec![
            (0, 8192, acc(&[1000, 2000])),
            (1, 8192, acc(&[3000])),
            (1, 0, acc(&[500])),
        ];
        unify_prios(&mut p);
        let got: Vec<(usize, u16, u64)> = p.iter().map(|e| (e.0, e.1, e.2.count())).collect();
        assert_eq!(got, [(0, 8192, 3), (0, 0, 1)]);
    }
}
