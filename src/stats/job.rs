//! The recorder: what one job thread measured — of `iomark run` (fio's rules) and of
//! `iomark fileio` (sysbench's) alike — or a job, reporting group or fileio run merged
//! from several threads by the one merge ([`JobStats::merge`]): per-direction counters
//! and latencies ([`DirStats`]), and the thread's other measurements ([`JobStats`]:
//! CPU, run times, rate and depth samples, errors, sysbench's interval counters).
//!
//! How sysbench's events land here (the recording methods of [`JobStats`], called by
//! run/worker/sysbench.rs): a completed read or write counts its I/O and bytes in its
//! direction, every fsync call counts in `sync`; an event's latency is a synchronous
//! request's completion (`sync`, folded into `clat` and `lat`), or for queued requests
//! (io_uring) its submission (`slat`), the request's own submission-to-completion
//! time then going to `lat`; a periodic fsync event's latency is `sync`'s.
//!
//! Only measurements live here. What the job *is* (name, options, report options such
//! as `kb_base` or `percentile_list`) is the effective job of the result
//! (`result::EffectiveJob`); what the run *decided* (steady state, the latency-target
//! search, the coverage of random offsets) are run outputs the result carries beside
//! these statistics (`result::JobRecord`). So the recorder depends on nothing but the
//! histogram crate and the other recorder modules.

use crate::stats::cpu::CpuTimes;
use crate::stats::rates::{DepthStats, RateSamples};
use crate::stats::{EventKind, IntervalStats, LatAcc, MAX_TRACKABLE_NS};
use serde::{Deserialize, Serialize};

/// Counters and latencies of one direction.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DirStats {
    /// completed I/Os
    pub ios: u64,
    /// bytes moved
    pub bytes: u64,
    /// fio's short transfers: requests that moved fewer bytes than asked but some, whose
    /// rest was issued again (fio's `short_ios`); issued, never counted as done
    #[serde(default)]
    pub short: u64,
    /// requests that moved no byte (a read at or past a file's end): issued, never
    /// counted as done (fio counts them in `total_ios`)
    #[serde(default)]
    pub unfilled: u64,
    /// requests that failed with an errno (or, under `iomark run`, moved fewer bytes than
    /// asked): issued, never counted as done (fio 3.33 counts each in `total_ios`)
    #[serde(default)]
    pub failed: u64,
    /// submission latency (queued engines only)
    pub slat: LatAcc,
    /// completion latency
    pub clat: LatAcc,
    /// total latency
    pub lat: LatAcc,
    /// synchronous completions whose clat is their lat (no slat: sysbench's events, fio's
    /// verify reads; fio's requests of a synchronous engine record their own clat and lat),
    /// recorded once on the hot path and folded into `clat` and `lat` by [`DirStats::settle`]
    pub sync: LatAcc,
}

impl DirStats {
    /// Add another direction's counters and latencies.
    pub fn merge(&mut self, o: &DirStats) {
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.short += o.short;
        self.unfilled += o.unfilled;
        self.failed += o.failed;
        self.slat.merge(&o.slat);
        self.clat.merge(&o.clat);
        self.lat.merge(&o.lat);
        self.sync.merge(&o.sync);
    }
    /// Fold the synchronous completions into `clat` and `lat` (each of them is both);
    /// called once when a job thread ends, before anything reads the latencies.
    pub fn settle(&mut self) {
        if self.sync.count() > 0 {
            self.clat.merge(&self.sync);
            self.lat.merge(&self.sync);
            self.sync = LatAcc::default();
        }
    }
}

/// One job thread that a failure ended: what is said of it on stderr and in fio's
/// `fio: pid=P, err=E/…` line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadFailure {
    /// the thread's id
    pub pid: u32,
    /// the errno of the failure that ended it
    pub errno: i32,
    /// the lines said of it, in order: the failure that ended it, then each request
    /// that failed as the thread reaped what was still in flight (fio's
    /// `cleanup_pending_aio` logs each failed one)
    pub lines: Vec<String>,
    /// fio 3.33's account of that failure, where fio has one (`None`: the failure is
    /// said in its lines only); absent from results written before it was kept
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<FioAccount>,
    /// its first line is iomark's explanation only: the fio persona said fio's own
    /// lines of this failure as it happened (a verify mismatch's `verify:` lines) or fio
    /// says it in its `fio: pid=` account alone (a request libaio's io_submit refused),
    /// so stderr has that line only with the notes on (`--notes`)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub noted: bool,
}

/// fio 3.33's account of the failure that ended a job thread (its `td_verror`): the
/// source file and line fio names, the call that failed and the errno, which fio
/// prints as `file:F:L, func=X, error=TEXT` ([`FioAccount`]'s `Display`) after `fio:
/// pid=P, err=E/` as the thread ends and in the `err=` of the job's report. Set where
/// the failure happens (run/): a file the thread could not open, its CPU binding, its
/// I/O scheduler, a missed minimum rate, a failed request, a transfer that moved
/// nothing, a verify mismatch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FioAccount {
    /// fio's source file (`backend.c`)
    pub file: String,
    /// its line
    pub line: u32,
    /// the call fio names (`func=`: `open(PATH)`, `cpu_set_affinity`, `io_u error` …)
    pub func: String,
    /// the errno, whose text is the account's `error=`
    pub errno: i32,
    /// the thread failed as it set up, before any request (its open, CPU binding or
    /// I/O scheduler): fio counts no request of it
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub setup: bool,
}

impl FioAccount {
    /// fio's account at `file`:`line` of `func` failing with `errno`, after the
    /// thread's first request.
    pub fn new(file: &str, line: u32, func: impl Into<String>, errno: i32) -> FioAccount {
        FioAccount {
            file: file.into(),
            line,
            func: func.into(),
            errno,
            setup: false,
        }
    }

    /// The same account of a failure met as the thread set up, before any request.
    pub fn in_setup(self) -> FioAccount {
        FioAccount {
            setup: true,
            ..self
        }
    }
}

impl std::fmt::Display for FioAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "file:{}:{}, func={}, error={}",
            self.file,
            self.line,
            self.func,
            crate::util::strerror(self.errno)
        )
    }
}

/// The measurements of one job thread, or of a merged job/group. Serializable (the
/// ranks of a many-hosts run send theirs to rank 0, src/ranks/), without the interval
/// counters.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct JobStats {
    /// threads merged into these statistics
    pub threads: u32,
    /// reads
    pub read: DirStats,
    /// writes
    pub write: DirStats,
    /// trims (punched holes)
    pub trim: DirStats,
    /// fsync/fdatasync calls (periodic, end_fsync, fsync_on_close) and their latency
    pub sync: DirStats,
    /// blocks read back and checked by the verify phase
    pub verified: u64,
    /// measured run time, ns (max over merged threads)
    pub runtime_ns: u64,
    /// each thread's measured run time in whole ms (`runtime_ns / 1e6`, rounded down),
    /// summed over the merged threads: fio's JSON `job_runtime` (its `total_run_time`,
    /// which `group_reporting` adds up: numjobs=2 runtime=1 time_based gives 2000)
    pub runtime_ms_sum: u64,
    /// the verify read-back phase after the I/O phase, ns (max over merged threads; 0:
    /// none): fio counts it in the read direction's run time and the job's
    pub verify_ns: u64,
    /// CPU used by the job's threads (RUSAGE_THREAD differences, summed)
    pub cpu: CpuTimes,
    /// wall time of the threads (setup, I/O and end_fsync) summed over the merged
    /// threads, ns: the denominator of the CPU percentages (fio's `total_run_time`)
    pub run_ns_sum: u64,
    /// failed requests the job went on after (`continue_on_error`); never counted as done
    pub errors: u64,
    /// the first of them: op, file, offset and the system's reason
    pub first_error: Option<String>,
    /// with per-request priorities: `(direction 0 read / 1 write, ioprio, latency)` of the
    /// requests that carried each value — clat, or lat with `lat_percentiles` (fio's
    /// `prios` / "clat prio C/L" report)
    pub prio_lat: Vec<(usize, u16, LatAcc)>,
    /// zone resets of a `zonemode=zbd` job (a full zone written again, `zone_reset_*`,
    /// trims); `None` for other jobs. fio prints them after the write line
    /// ("; N zone resets") and as the job's `zone_resets` JSON key
    pub zone_resets: Option<u64>,
    /// fio's `error`: the errno of the failure that ended the job (`RunError::errno` of
    /// run/fio/mod.rs), 0 when it ran to its end; a group keeps its first thread's
    /// non-zero value
    pub error: i32,
    /// the failure that ended the job, as printed on stderr (`None`: it ran to its end)
    pub failure: Option<String>,
    /// that failure is a failed setup's, said on stderr while the job was set up
    /// (run/fio/setup.rs), so the end of the run does not print it again
    #[serde(default)]
    pub failure_said: bool,
    /// fio 3.33's account of that failure, where fio has one (kept with it)
    #[serde(default)]
    pub account: Option<FioAccount>,
    /// threads of these statistics that ended in error: a failure of the run (I/O
    /// error, verify mismatch, ratemin…) or of the setup before any I/O (fio's `td->error`
    /// set when the thread is reaped: fio 3.33 counts one in its exit value for each)
    #[serde(default)]
    pub failed_threads: u32,
    /// each job thread of these statistics that a failure ended, in order (the merge
    /// puts them one after the other): fio 3.33 says each thread's failure as its own
    /// (its `io_u error` lines, its `fio: pid=…` line), `group_reporting` or not
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_failures: Vec<ThreadFailure>,
    /// per-interval bandwidth (KiB/s) and IOPS samples (`bw_avg_time`/`iops_avg_time`),
    /// fio's `bw_min` … `iops_samples` (report/fio/levels.rs)
    pub rates: RateSamples,
    /// fio's `iodepth_level` / `iodepth_submit` / `iodepth_complete` counts
    pub depth: DepthStats,
    /// errno of the first error the job went on after (`continue_on_error`); 0 = none.
    /// fio's job `error` key
    pub first_errno: i32,
    /// the job thread's id (gettid(2)): fio's `pid=` of the text report (fio's jobs are
    /// processes; iomark's are threads of one process, each with its own id); a group
    /// keeps its first thread's
    pub pid: u32,
    /// ns spent in the end-of-test syncs (fileio's `--file-fsync-end`, fio's `end_fsync`
    /// and `fsync_on_close`), which are inside the measured time (summed over merged
    /// threads)
    pub end_sync_ns: u64,
    /// ns the thread waited on purpose, outside any request (fio's rules: rate-limit
    /// pacing, `thinktime`, the `flow` sleep), timed by one clock reading before and one
    /// after each wait that happens (summed over merged threads; 0 in results of
    /// versions that did not time waits)
    #[serde(default)]
    pub wait_ns: u64,
    /// ns the thread was held before it started (fio's rules: at a `wait_for` until the
    /// named job's threads ended, in a later `stonewall` group from the run's start until
    /// the groups before it ended), timed by one clock pair per wait, only when a wait
    /// happens (summed over merged threads); outside `run_ns_sum`
    #[serde(default)]
    pub held_ns: u64,
    /// ns of the events' latencies before the thread took them up (sysbench's rules
    /// with `--rate`: an event's latency counts from its scheduled arrival, so it holds
    /// the time the event waited in the queue for a busy thread), per read, write and
    /// fsync event; the event's service time is its latency less this (summed over
    /// merged threads; 0 without `--rate`)
    #[serde(default)]
    pub late_ns: [u64; 3],
    /// fileio's `--report-interval` counters since the last interval line (`None`: off;
    /// not merged, each line takes them from every thread)
    #[serde(skip)]
    pub interval: Option<IntervalStats>,
}

impl JobStats {
    /// Add another thread's statistics (`group_reporting`).
    pub fn merge(&mut self, o: &JobStats) {
        self.threads += o.threads;
        self.end_sync_ns += o.end_sync_ns;
        self.wait_ns += o.wait_ns;
        self.held_ns += o.held_ns;
        for (a, b) in self.late_ns.iter_mut().zip(o.late_ns) {
            *a += b;
        }
        self.read.merge(&o.read);
        self.write.merge(&o.write);
        self.sync.merge(&o.sync);
        self.trim.merge(&o.trim);
        self.verified += o.verified;
        self.runtime_ns = self.runtime_ns.max(o.runtime_ns);
        self.runtime_ms_sum += o.runtime_ms_sum;
        self.verify_ns = self.verify_ns.max(o.verify_ns);
        self.cpu.add(&o.cpu);
        self.run_ns_sum += o.run_ns_sum;
        self.errors += o.errors;
        if let Some(n) = o.zone_resets {
            self.zone_resets = Some(self.zone_resets.unwrap_or(0) + n);
        }
        if self.first_error.is_none() {
            self.first_error.clone_from(&o.first_error);
        }
        if self.error == 0 {
            self.error = o.error;
        }
        if self.failure.is_none() {
            self.failure.clone_from(&o.failure);
            self.failure_said = o.failure_said;
            self.account.clone_from(&o.account);
        }
        self.failed_threads += o.failed_threads;
        self.thread_failures
            .extend(o.thread_failures.iter().cloned());
        if self.first_errno == 0 {
            self.first_errno = o.first_errno;
        }
        if self.pid == 0 {
            self.pid = o.pid;
        }
        self.rates.merge(&o.rates);
        self.depth.merge(&o.depth);
        for (d, p, l) in &o.prio_lat {
            match self.prio_lat.iter_mut().find(|e| e.0 == *d && e.1 == *p) {
                Some(e) => e.2.merge(l),
                None => self.prio_lat.push((*d, *p, l.clone())),
            }
        }
    }
}

/// sysbench's counting (`iomark fileio`, run/worker/sysbench.rs; the module header says
/// where each figure lands).
impl JobStats {
    /// Empty statistics of one thread; `intervals` enables the interval counters.
    pub fn thread(intervals: bool) -> Self {
        JobStats {
            threads: 1,
            interval: intervals.then(IntervalStats::new),
            ..JobStats::default()
        }
    }

    /// The direction of an event kind.
    #[inline(always)]
    fn dir_of(&mut self, kind: EventKind) -> &mut DirStats {
        match kind {
            EventKind::Read => &mut self.read,
            EventKind::Write => &mut self.write,
            EventKind::Fsync => &mut self.sync,
        }
    }

    /// Record one event and its latency in ns; `queued`: the thread's requests are
    /// queued (the event is their submission).
    #[inline]
    pub fn event(&mut self, kind: EventKind, lat_ns: u64, queued: bool) {
        let d = self.dir_of(kind);
        match queued && kind != EventKind::Fsync {
            true => d.slat.add(lat_ns),
            false => d.sync.add(lat_ns),
        }
        if let Some(i) = &mut self.interval {
            let _ = i.hist.record(lat_ns.clamp(1, MAX_TRACKABLE_NS));
        }
    }

    /// Record `ns` of an event's latency spent before the thread took it up (its
    /// `--rate` arrival to its start; 0 records nothing).
    #[inline]
    pub fn late(&mut self, kind: EventKind, ns: u64) {
        if ns > 0 {
            self.late_ns[kind as usize] += ns;
        }
    }

    /// Record the submission-to-completion latency (ns) of a queued read or write that
    /// completed successfully (nothing for fsync).
    #[inline]
    pub fn clat_done(&mut self, kind: EventKind, lat_ns: u64) {
        if kind != EventKind::Fsync {
            self.dir_of(kind).lat.add(lat_ns);
        }
    }

    /// Record a completed read or write (`kind`) of `bytes`.
    #[inline]
    pub fn io_done(&mut self, kind: EventKind, bytes: u64) {
        let d = self.dir_of(kind);
        d.ios += 1;
        d.bytes += bytes;
        if let Some(i) = &mut self.interval {
            match kind {
                EventKind::Read => i.bytes_read += bytes,
                _ => i.bytes_written += bytes,
            }
        }
    }

    /// Record one fsync call (periodic, `--file-fsync-all`, end of test).
    #[inline]
    pub fn fsync_done(&mut self) {
        self.sync.ios += 1;
        if let Some(i) = &mut self.interval {
            i.fsyncs += 1;
        }
    }

    /// Take and reset the interval counters.
    pub fn take_interval(&mut self) -> Option<IntervalStats> {
        self.interval.as_mut().map(std::mem::take)
    }

    /// Take everything and start again from zero (a checkpoint).
    pub fn take(&mut self) -> JobStats {
        std::mem::replace(self, JobStats::thread(self.interval.is_some()))
    }

    /// A copy to report from, its synchronous completions folded in
    /// ([`DirStats::settle`]) and without the interval counters.
    pub fn settled(&self) -> JobStats {
        let mut s = JobStats {
            interval: None,
            ..self.clone()
        };
        for d in [&mut s.read, &mut s.write, &mut s.trim, &mut s.sync] {
            d.settle();
        }
        s
    }

    /// The completion latencies of the reads and writes recorded so far, while the run
    /// goes on (before [`DirStats::settle`]): the synchronous requests (`sync`) and the
    /// queued ones' completions (`clat` under fio's counting, `lat` under sysbench's,
    /// which keeps no `clat`). A live view reads it at every sample (run/sampler.rs).
    pub fn live_clat(&self) -> LatAcc {
        let mut all = LatAcc::default();
        for d in [&self.read, &self.write] {
            all.merge(&d.sync);
            all.merge(if d.clat.count() > 0 { &d.clat } else { &d.lat });
        }
        all
    }

    /// The events recorded (reads, writes, periodic fsyncs), once settled: an event's
    /// latency is counted once, in `slat` when queued, in `lat` otherwise.
    pub fn events(&self) -> u64 {
        [&self.read, &self.write, &self.sync]
            .iter()
            .map(|d| d.event_lat().count())
            .sum()
    }
}

impl DirStats {
    /// The latencies of sysbench's events of this direction, once settled: the
    /// submissions of queued requests, or the synchronous requests themselves.
    pub fn event_lat(&self) -> &LatAcc {
        match self.slat.count() {
            0 => &self.lat,
            _ => &self.slat,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysbench_events_land_where_the_header_says() {
        let mut t = JobStats::thread(true);
        for ns in [1000, 2000, 4001] {
            t.event(EventKind::Read, ns, false);
            t.io_done(EventKind::Read, 4096);
        }
        t.event(EventKind::Fsync, 70, false);
        t.fsync_done();
        t.fsync_done();
        let s = t.settled();
        assert!(s.interval.is_none() && t.interval.is_some());
        assert_eq!((s.read.ios, s.read.bytes, s.sync.ios), (3, 3 * 4096, 2));
        let l = s.read.lat.summary();
        assert_eq!((l.count, l.sum_ns, l.mean_ns), (3, 7001, 2333));
        assert_eq!((l.min_ns, l.max_ns), (1000, 4001), "exact, not quantized");
        assert_eq!(
            s.read.clat.count(),
            3,
            "a synchronous request's clat is its lat"
        );
        assert_eq!((s.read.slat.count(), s.sync.lat.count()), (0, 1));
        assert_eq!(s.events(), 4);
        let i = t.take_interval().unwrap();
        assert_eq!((i.bytes_read, i.fsyncs, i.hist.len()), (3 * 4096, 2, 4));
        assert_eq!(t.take_interval().unwrap().bytes_read, 0);
        assert_eq!(t.read.bytes, 3 * 4096, "the totals stay");
    }

    #[test]
    fn queued_events_are_submissions_and_clat_is_per_request() {
        let mut t = JobStats::thread(false);
        t.event(EventKind::Write, 50, true);
        t.clat_done(EventKind::Write, 300);
        t.event(EventKind::Write, 70, true);
        t.clat_done(EventKind::Write, 500);
        t.clat_done(EventKind::Fsync, 7);
        t.event(EventKind::Fsync, 9, true);
        let s = t.settled();
        assert_eq!((s.write.slat.count(), s.write.slat.max()), (2, 70));
        let w = s.write.lat.summary();
        assert_eq!((w.count, w.mean_ns, w.min_ns, w.max_ns), (2, 400, 300, 500));
        assert_eq!(s.write.event_lat().sum_ns, 120);
        assert_eq!(
            s.sync.event_lat().sum_ns,
            9,
            "an fsync event is synchronous"
        );
        assert_eq!(s.events(), 3);
    }

    #[test]
    fn a_merge_counts_failed_threads_and_keeps_whether_its_failure_was_said() {
        let ran = JobStats {
            failure: Some("job 'a': read failed".into()),
            failed_threads: 1,
            ..JobStats::default()
        };
        let setup = JobStats {
            failure: Some("pid=0, err=22".into()),
            failure_said: true,
            failed_threads: 1,
            ..JobStats::default()
        };
        let mut m = ran.clone();
        m.merge(&setup);
        m.merge(&setup);
        assert_eq!(m.failed_threads, 3);
        assert_eq!(m.failure.as_deref(), Some("job 'a': read failed"));
        assert!(!m.failure_said, "the kept failure ran and was not said");
        let mut m = setup.clone();
        m.merge(&ran);
        assert_eq!((m.failed_threads, m.failure_said), (2, true));
        let mut m = JobStats::default();
        m.merge(&JobStats::default());
        assert_eq!(
            m.failed_threads, 0,
            "a thread that ran to its end is no failure"
        );
    }

    #[test]
    fn one_merge_adds_threads_and_a_checkpoint_starts_from_zero() {
        let mut a = JobStats::thread(true);
        a.event(EventKind::Read, 5000, false);
        a.io_done(EventKind::Read, 512);
        a.end_sync_ns = 10;
        let mut b = JobStats::thread(false);
        b.event(EventKind::Read, 1000, false);
        b.io_done(EventKind::Read, 512);
        b.end_sync_ns = 5;
        let mut m = a.settled();
        m.merge(&b.settled());
        m.merge(&JobStats::thread(false));
        assert_eq!((m.threads, m.read.ios, m.end_sync_ns), (3, 2, 15));
        let l = m.read.lat.summary();
        assert_eq!((l.count, l.min_ns, l.max_ns), (2, 1000, 5000));
        let old = a.take();
        assert_eq!(old.read.ios, 1);
        assert_eq!((a.read.ios, a.threads), (0, 1));
        assert!(a.interval.is_some(), "the interval counters stay on");
    }
}
