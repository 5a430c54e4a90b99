//! The parts of a fileio result from its job's record (its threads merged) and its
//! threads' statistics (stats::job::JobStats, the one recorder, filled under sysbench's
//! rules): the schema-1 totals as sysbench counts
//! them (an event is a read, a write or a periodic fsync; `fsync.ops` counts every
//! fsync call), one thread entry per worker, the latency curves, and the one job of the
//! run in the per-job form.
//!
//! Per-job latencies follow fio's names, as the recorder keeps them: with synchronous
//! requests (psync, mmap, io_uring at depth 1) the event is the I/O, so `clat` = `lat` =
//! the event latency; with queued io_uring requests the event is the submission
//! (`slat`) and `lat` is the per-I/O time from submission to reaped completion; `clat`
//! is not recorded apart.

use super::{curve, latency, op, per_s, positive, Parts};
use crate::result::job::{DirResult, EffectiveJob, JobRecord, JobResult};
use crate::result::*;
use crate::stats::job::{DirStats, JobStats};
use crate::stats::LatAcc;

/// The threads of a fileio run as the builder takes them: each worker's statistics
/// (settled: `JobStats::settled`) over one reporting period.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Threads {
    /// each worker thread's statistics, in thread order
    pub threads: Vec<JobStats>,
    /// seconds the period lasted (rates are per this)
    pub period_s: f64,
    /// seconds since the benchmark start (`total time`)
    pub total_time_s: f64,
    /// `--percentile` (0: off), recorded beside the standard ones
    #[serde(default)]
    pub percentile: u32,
}

impl Threads {
    /// `b` run after these threads: thread `i` of each added up by the recorder's merge
    /// (its time shares then span both periods), the periods added.
    pub fn then(&mut self, b: &Threads) {
        for (a, b) in self.threads.iter_mut().zip(&b.threads) {
            a.merge(b);
        }
        self.period_s += b.period_s;
        self.total_time_s += b.total_time_s;
    }
}

fn acc(l: &LatAcc, extra: u32) -> Latency {
    latency(l.summary(), l.hist(), extra)
}

/// The per-I/O completion latency of queued requests (`None`: synchronous ones).
fn clat_of(d: &DirStats, extra: u32) -> Option<Latency> {
    (d.slat.count() > 0 && d.lat.count() > 0).then(|| acc(&d.lat, extra))
}

/// Latency curves: per-I/O completion latency for queued requests, the event latency
/// (which is the per-I/O latency) for synchronous ones.
fn curves(all: &JobStats) -> Vec<LatencyCurve> {
    let mut v = vec![];
    for (name, d) in [("read", &all.read), ("write", &all.write)] {
        let measure = match d.slat.count() {
            0 => "event",
            _ => "completion",
        };
        let points = curve(&d.lat.hist());
        if !points.is_empty() {
            v.push(LatencyCurve {
                op: name.into(),
                measure: measure.into(),
                points,
            });
        }
    }
    v
}

/// The latencies of every event of `t` (reads, writes, periodic fsyncs).
fn events_lat(t: &JobStats) -> LatAcc {
    let mut all = LatAcc::default();
    for d in [&t.read, &t.write, &t.sync] {
        all.merge(d.event_lat());
    }
    all
}

/// Where each thread's time went, the run's total first: reads, writes (with
/// `--file-fsync-all`, its fsyncs too: they are inside the write event), the periodic
/// fsync events and the end-of-test syncs, the waits for `--rate`'s arrivals (timed
/// when a thread waited: an empty queue), over the period each thread ran. Each event
/// counts its service time, from the thread taking it up to its end: with `--rate`
/// sysbench's event latency counts from the scheduled arrival, and the time an event
/// waited for a busy thread is already that thread's (an earlier event, a wait), so a
/// thread's shares partition its wall time.
fn time_shares(s: &Threads) -> Vec<TimeShare> {
    let wall = (s.period_s * 1e9) as u64;
    let waited = s.threads.iter().any(|x| x.wait_ns > 0);
    let ns = |d: &DirStats, late: u64| {
        u64::try_from(d.event_lat().sum_ns)
            .unwrap_or(u64::MAX)
            .saturating_sub(late)
    };
    let per: Vec<TimeShare> = s
        .threads
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let t = TimeShare::new(
                &format!("thread {i}"),
                wall,
                ns(&x.read, x.late_ns[0]),
                ns(&x.write, x.late_ns[1]),
                ns(&x.sync, x.late_ns[2]) + x.end_sync_ns,
            );
            match waited {
                true => t.with_wait(x.wait_ns),
                false => t,
            }
        })
        .collect();
    let mut v = vec![TimeShare::total("all", &per)];
    v.extend(per);
    v
}

fn thread(x: &JobStats) -> ThreadResult {
    let all = events_lat(x);
    let mut lat = acc(&all, 0);
    lat.histogram = None;
    ThreadResult {
        events: all.count(),
        exec_time_s: all.sum_ns as f64 / 1e9,
        reads: x.read.ios,
        writes: x.write.ios,
        fsyncs: x.sync.ios,
        bytes_read: x.read.bytes,
        bytes_written: x.write.bytes,
        end_fsync_ns: x.end_sync_ns,
        lat: Some(lat),
    }
}

/// One direction of the per-job form (see the module header).
fn dir(d: &DirStats, period_s: f64, extra: u32) -> DirResult {
    DirResult {
        ios: d.ios,
        bytes: d.bytes,
        iops: per_s(d.ios, period_s),
        bw_bytes_per_s: per_s(d.bytes, period_s),
        slat: acc(&d.slat, extra),
        clat: acc(&d.clat, extra),
        lat: acc(&d.lat, extra),
        ..DirResult::default()
    }
}

fn job_result(job: EffectiveJob, all: &JobStats, s: &Threads, p: u32) -> JobResult {
    let sync_lat = acc(&all.sync.lat, p);
    JobResult {
        engine: job.engine.clone(),
        threads: u32::try_from(s.threads.len()).unwrap_or(u32::MAX),
        runtime_ns: (s.period_s * 1e9) as u64,
        read: dir(&all.read, s.period_s, p),
        write: dir(&all.write, s.period_s, p),
        sync: DirResult {
            ios: all.sync.ios,
            clat: sync_lat.clone(),
            lat: sync_lat,
            ..DirResult::default()
        },
        job,
        ..JobResult::default()
    }
}

/// The parts of a fileio result from its job's record (`jobs`: one, its threads merged;
/// more are merged into one) and its threads; `samples` are the `--plot` samples taken
/// while it ran.
pub(super) fn parts(
    jobs: Vec<JobRecord>,
    s: &Threads,
    samples: &[Sample],
    sample_period_s: f64,
) -> Parts {
    let t = positive(s.period_s);
    let p = s.percentile;
    // the run's threads as one job: the record holds them merged by the recorder's merge
    let mut jobs = jobs.into_iter();
    let mut one = jobs.next().unwrap_or_default();
    jobs.for_each(|j| one.merge(&j));
    let (job, all) = (one.job, one.stats);
    let mut read = op(
        all.read.ios,
        all.read.bytes,
        t,
        acc(all.read.event_lat(), p),
    );
    read.clat = clat_of(&all.read, p);
    let mut write = op(
        all.write.ios,
        all.write.bytes,
        t,
        acc(all.write.event_lat(), p),
    );
    write.clat = clat_of(&all.write, p);
    let mut queued = LatAcc::default();
    for d in [&all.read, &all.write]
        .into_iter()
        .filter(|d| d.slat.count() > 0)
    {
        queued.merge(&d.lat);
    }
    Parts {
        elapsed_s: Some(s.total_time_s),
        period_s: Some(s.period_s),
        events: Some(all.events()),
        read,
        write,
        fsync: FsyncStats {
            ops: all.sync.ios,
            ops_per_s: all.sync.ios as f64 / t,
            lat: acc(&all.sync.lat, p),
        },
        lat: acc(&events_lat(&all), p),
        clat: (queued.count() > 0).then(|| acc(&queued, p)),
        threads: s.threads.iter().map(thread).collect(),
        series: Some(Series {
            period_s: sample_period_s,
            samples: samples.to_vec(),
            latency_curves: curves(&all),
            ..Series::default()
        }),
        jobs: vec![job_result(job, &all, s, p)],
        time: time_shares(s),
        ..Parts::default()
    }
}

/// The parts of separate fileio runs (`mark`'s tests, each its median loop), each run
/// counted by [`parts`] as a fileio result of its own: its job, and its time share named
/// after the job. The totals of each direction are over the runs that moved data that
/// way: their requests and bytes added up, the per-I/O latency (submission to
/// completion: the completion latency of queued requests, the event's of synchronous
/// ones) over their histograms, rates over those runs' own seconds; the period is every
/// run's seconds.
pub(super) fn runs(runs: Vec<super::Recorded>) -> Parts {
    let (mut jobs, mut time, mut dirs) = (vec![], vec![], [vec![], vec![]]);
    let mut period = 0.0;
    for run in runs {
        let p = run.parts(&[], 0.0);
        let secs = p.period_s.unwrap_or(0.0);
        period += secs;
        let name = p
            .jobs
            .first()
            .map(|j| j.job.name.clone())
            .unwrap_or_default();
        if let Some(all) = p.time.into_iter().next() {
            time.push(TimeShare { who: name, ..all });
        }
        jobs.extend(p.jobs);
        for (d, o) in dirs.iter_mut().zip([p.read, p.write]) {
            if o.ops > 0 {
                d.push((o.ops, o.bytes, secs, o.clat.unwrap_or(o.lat)));
            }
        }
    }
    let [read, write] = dirs.map(|d| {
        let lats: Vec<&Latency> = d.iter().map(|x| &x.3).collect();
        let lat = match lats.as_slice() {
            [one] => (*one).clone(),
            _ => crate::result::hist::merge_latency(&lats),
        };
        let sum = |f: fn(&(u64, u64, f64, Latency)) -> f64| d.iter().map(f).sum::<f64>();
        OpStats::over(
            d.iter().map(|x| x.0).sum(),
            d.iter().map(|x| x.1).sum(),
            sum(|x| x.2),
            lat,
        )
    });
    if !time.is_empty() {
        time.insert(0, TimeShare::total("all", &time));
    }
    Parts {
        period_s: Some(period),
        read,
        write,
        jobs,
        time,
        ..Parts::default()
    }
}
