//! The parts of a fileio result from its snapshot (stats::Snapshot, the fileio
//! recorder): the schema-1 totals as sysbench counts them (an event is a read, a write
//! or a periodic fsync; `fsync.ops` counts every fsync call), one thread entry per
//! worker, the latency curves, and the one job of the run in the per-job form.
//!
//! Per-job latencies follow fio's names: with synchronous engines (psync, mmap) the
//! event is the I/O, so `clat` = `lat` = the event latency; with io_uring the event is
//! the submission (`slat`) and `lat` is the per-I/O time from submission to reaped
//! completion; `clat` is not recorded apart.

use super::{curve, latency, op, per_s, positive, Parts};
use crate::result::job::{DirResult, EffectiveJob, JobResult};
use crate::result::*;
use crate::stats::{EventKind, KindStats, Snapshot};

fn kind_latency(k: KindStats, extra: u32) -> Latency {
    let s = k.summary();
    latency(s, k.hist(), extra)
}

fn clat_of(s: &Snapshot, kind: Option<EventKind>, extra: u32) -> Option<Latency> {
    s.merged_clat(kind)
        .filter(|k| k.count > 0)
        .map(|k| kind_latency(k, extra))
}

/// Latency curves of a snapshot: per-I/O completion latency for queued engines, the
/// event latency (which is the per-I/O latency) for synchronous ones.
fn curves(s: &Snapshot) -> Vec<LatencyCurve> {
    let mut v = vec![];
    for (name, kind) in [("read", EventKind::Read), ("write", EventKind::Write)] {
        let (measure, k) = match s.merged_clat(Some(kind)) {
            Some(k) => ("completion", k),
            None => ("event", s.merged(Some(kind))),
        };
        let points = curve(&k.hist());
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

/// Where each thread's time went, the run's total first: reads, writes (with
/// `--file-fsync-all`, its fsyncs too: they are inside the write event), the periodic
/// fsync events and the end-of-test syncs, over the period each thread ran.
fn time_shares(s: &Snapshot) -> Vec<TimeShare> {
    let wall = (s.period_s * 1e9) as u64;
    let per: Vec<TimeShare> = s
        .threads
        .iter()
        .enumerate()
        .map(|(i, x)| {
            TimeShare::new(
                &format!("thread {i}"),
                wall,
                x.lat_read.sum_ns,
                x.lat_write.sum_ns,
                x.lat_fsync.sum_ns + x.end_fsync_ns,
            )
        })
        .collect();
    let mut v = vec![TimeShare::total("all", &per)];
    v.extend(per);
    v
}

fn thread(x: &crate::stats::ThreadStats) -> ThreadResult {
    let all = x.all_kinds();
    let mut lat = kind_latency(all, 0);
    lat.histogram = None;
    ThreadResult {
        events: x.events,
        exec_time_s: x.lat_sum_ns as f64 / 1e9,
        reads: x.reads,
        writes: x.writes,
        fsyncs: x.fsyncs,
        bytes_read: x.bytes_read,
        bytes_written: x.bytes_written,
        end_fsync_ns: x.end_fsync_ns,
        lat: Some(lat),
    }
}

/// One direction of the per-job form (see the module header).
fn dir(s: &Snapshot, kind: EventKind, ios: u64, bytes: u64, extra: u32) -> DirResult {
    let event = kind_latency(s.merged(Some(kind)), extra);
    let (slat, clat, lat) = match clat_of(s, Some(kind), extra) {
        Some(c) => (event, Latency::default(), c),
        None => (Latency::default(), event.clone(), event),
    };
    DirResult {
        ios,
        bytes,
        iops: per_s(ios, s.period_s),
        bw_bytes_per_s: per_s(bytes, s.period_s),
        slat,
        clat,
        lat,
        ..DirResult::default()
    }
}

fn job_result(job: EffectiveJob, s: &Snapshot, p: u32) -> JobResult {
    let sum = |f: fn(&crate::stats::ThreadStats) -> u64| s.sum(f);
    let sync_lat = kind_latency(s.merged(Some(EventKind::Fsync)), p);
    JobResult {
        engine: job.engine.clone(),
        threads: u32::try_from(s.threads.len()).unwrap_or(u32::MAX),
        runtime_ns: (s.period_s * 1e9) as u64,
        read: dir(
            s,
            EventKind::Read,
            sum(|x| x.reads),
            sum(|x| x.bytes_read),
            p,
        ),
        write: dir(
            s,
            EventKind::Write,
            sum(|x| x.writes),
            sum(|x| x.bytes_written),
            p,
        ),
        sync: DirResult {
            ios: sum(|x| x.fsyncs),
            clat: sync_lat.clone(),
            lat: sync_lat,
            ..DirResult::default()
        },
        job,
        ..JobResult::default()
    }
}

/// The parts of a fileio result; `samples` are the `--plot` samples taken while it ran.
pub(super) fn parts(
    job: EffectiveJob,
    s: &Snapshot,
    p: u32,
    samples: &[Sample],
    sample_period_s: f64,
) -> Parts {
    let t = positive(s.period_s);
    let fsyncs = s.sum(|x| x.fsyncs);
    let mut read = op(
        s.sum(|x| x.reads),
        s.sum(|x| x.bytes_read),
        t,
        kind_latency(s.merged(Some(EventKind::Read)), p),
    );
    read.clat = clat_of(s, Some(EventKind::Read), p);
    let mut write = op(
        s.sum(|x| x.writes),
        s.sum(|x| x.bytes_written),
        t,
        kind_latency(s.merged(Some(EventKind::Write)), p),
    );
    write.clat = clat_of(s, Some(EventKind::Write), p);
    Parts {
        elapsed_s: Some(s.total_time_s),
        period_s: Some(s.period_s),
        events: Some(s.sum(|x| x.events)),
        read,
        write,
        fsync: FsyncStats {
            ops: fsyncs,
            ops_per_s: fsyncs as f64 / t,
            lat: kind_latency(s.merged(Some(EventKind::Fsync)), p),
        },
        lat: kind_latency(s.merged(None), p),
        clat: clat_of(s, None, p),
        threads: s.threads.iter().map(thread).collect(),
        series: Some(Series {
            period_s: sample_period_s,
            samples: samples.to_vec(),
            latency_curves: curves(s),
            ..Series::default()
        }),
        jobs: vec![job_result(job, s, p)],
        time: time_shares(s),
        ..Parts::default()
    }
}
