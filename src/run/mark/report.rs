//! The figures of `iomark mark`: one loop's numbers from its fileio `RunResult`
//! ([`measured`]), the median of the loops ([`median`]), the reported rows, their
//! phases ([`phase_of`]), the builder's inputs of the mark result ([`inputs`]) and the
//! target line. The end-of-run table is a reporter over the result
//! (report/mark_table.rs). Pure: nothing here runs a test or touches a file; the
//! running is in [`super::execute`].

use super::{MarkJob, Test};
use crate::probe::diagnosis::Diagnosis;
use crate::result::{
    self, JobInfo, Latency, Phase, Recorded, RunResult, Sample, Series, Status, TimeFinding,
    Warning,
};

/// The numbers of one loop of one test (decimal MB/s, µs).
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// bytes moved (read + written)
    pub bytes: u64,
    /// operations (reads + writes)
    pub ops: u64,
    /// seconds the rates are computed over
    pub seconds: f64,
    /// MB/s, 1 MB = 1,000,000 B
    pub mb_s: f64,
    /// MiB/s, 1 MiB = 1,048,576 B
    pub mib_s: f64,
    /// operations per second
    pub iops: f64,
    /// mean per-I/O latency (submission to completion), µs
    pub mean_us: f64,
    /// 99th percentile per-I/O latency, µs (`None` when the run recorded none)
    pub p99_us: Option<f64>,
    /// per-I/O latency of the loop, for the result file
    pub lat: Option<Latency>,
    /// the loop's fileio result (kept for `--plot`)
    pub result: Option<Box<RunResult>>,
    /// what the recorder measured in the loop (its fileio run: the job's record, named
    /// after the test, and its threads apart): the mark result's jobs, totals and time
    /// breakdown are built from it (result/build/fileio.rs `runs`)
    pub record: Option<Box<Recorded>>,
    /// the loop over time: its fileio result's samples and the findings read from them
    pub series: Option<Series>,
}

/// Turn a fileio `RunResult` of test `t` and what its recorder measured (`rec`) into
/// the figures `mark` reports.
pub fn measured(t: &Test, r: &RunResult, rec: Recorded) -> Measured {
    let ops = r.read.ops + r.write.ops;
    let bytes = r.read.bytes + r.write.bytes;
    let secs = crate::result::positive_secs(r.period_s);
    let iops = ops as f64 / secs;
    // Q1 (pread/pwrite): the event is the I/O. QD > 1: per-I/O completion latency.
    let lat = if t.slot.qd <= 1 {
        Some(&r.lat)
    } else {
        r.clat.as_ref()
    }
    .filter(|l| l.count > 0);
    let mean_us = lat.map_or(0.0, |l| l.mean_ns as f64 / 1e3);
    let p99_us = lat.and_then(|l| l.percentiles_ns.get("99").map(|v| *v as f64 / 1e3));
    Measured {
        bytes,
        ops,
        seconds: r.period_s,
        mb_s: bytes as f64 / secs / 1e6,
        mib_s: bytes as f64 / secs / 1_048_576.0,
        iops,
        mean_us,
        p99_us,
        lat: lat.cloned(),
        result: None,
        record: Some(Box::new(named(rec, &t.name()))),
        series: r.series.clone(),
    }
}

/// The loop's record named after its test (the job of the mark result).
fn named(mut rec: Recorded, name: &str) -> Recorded {
    for j in &mut rec.jobs {
        j.job.name = name.into();
    }
    rec
}

/// `b` after `a` on one time line: `b`'s samples and findings moved to after `a`'s
/// last sample, its findings' bytes counted after `a`'s writes; the period and the
/// sources are `a`'s (every loop of a run samples alike).
pub fn join(a: &Series, b: &Series) -> Series {
    let end = a.samples.last().map_or(0.0, |s| s.t_s);
    let written: u64 = a.samples.iter().map(|s| s.written_bytes).sum();
    let mut j = a.clone();
    j.samples.extend(b.samples.iter().map(|s| Sample {
        t_s: s.t_s + end,
        ..s.clone()
    }));
    j.findings.extend(b.findings.iter().map(|f| TimeFinding {
        at_s: f.at_s + end,
        written_bytes: f.written_bytes + written,
        ..f.clone()
    }));
    j.latency_curves.clear();
    j.sources = a.sources.clone().or_else(|| b.sources.clone());
    j
}

/// The series of loops run one after the other (`None` when none has one).
fn joined<'a>(all: impl IntoIterator<Item = Option<&'a Series>>) -> Option<Series> {
    all.into_iter()
        .flatten()
        .fold(None, |acc: Option<Series>, s| {
            Some(acc.map_or_else(|| s.clone(), |a| join(&a, s)))
        })
        .map(|mut s| {
            s.latency_curves.clear();
            s
        })
}

/// Median of the loops by MB/s, with best and worst MB/s. An odd count: the middle
/// loop. An even count: the mean of the two middle loops ([`mean_of`]), as the median
/// of an even count is defined — not the lower one, which `--loops=2` would make the
/// worst.
pub fn median(loops: &[Measured]) -> Option<(Measured, f64, f64)> {
    let mut v: Vec<&Measured> = loops.iter().collect();
    v.sort_by(|a, b| a.mb_s.total_cmp(&b.mb_s));
    let best = v.last()?.mb_s;
    let worst = v.first()?.mb_s;
    let hi = v.len() / 2;
    let m = if v.len() % 2 == 1 {
        v[hi].clone()
    } else {
        mean_of(v[hi - 1], v[hi])
    };
    Some((m, best, worst))
}

/// The mean of two loops `lo` and `hi` (by MB/s): MB/s, MiB/s and IOPS are the means of
/// the two; operations, bytes and seconds add up, and the latency is over both loops'
/// I/O (their histograms merged), the recorder's records of both loops added up by its
/// merge (the job, the totals and the time breakdown over both loops); the charts
/// (`--plot`) are `lo`'s.
fn mean_of(lo: &Measured, hi: &Measured) -> Measured {
    let merge = |a: &Latency, b: &Latency| crate::result::hist::merge_latency(&[a, b]);
    let lat = match (&lo.lat, &hi.lat) {
        (Some(a), Some(b)) => Some(merge(a, b)),
        (a, b) => a.clone().or_else(|| b.clone()),
    };
    let seconds = lo.seconds + hi.seconds;
    let record = match (&lo.record, &hi.record) {
        (Some(a), Some(b)) => {
            let mut r = a.clone();
            r.then(b);
            Some(r)
        }
        (a, b) => a.clone().or_else(|| b.clone()),
    };
    Measured {
        bytes: lo.bytes + hi.bytes,
        ops: lo.ops + hi.ops,
        seconds,
        mb_s: (lo.mb_s + hi.mb_s) / 2.0,
        mib_s: (lo.mib_s + hi.mib_s) / 2.0,
        iops: (lo.iops + hi.iops) / 2.0,
        mean_us: lat.as_ref().map_or(0.0, |l| l.mean_ns as f64 / 1e3),
        p99_us: lat
            .as_ref()
            .and_then(|l| l.percentiles_ns.get("99").map(|v| *v as f64 / 1e3)),
        lat,
        result: lo.result.clone(),
        record,
        // both loops' samples: the series adds up to the bytes above
        series: joined([lo.series.as_ref(), hi.series.as_ref()]),
    }
}

/// One reported row: the test, its median loop, best and worst MB/s, all loops' MB/s.
#[derive(Clone, Debug)]
pub struct Row {
    /// the test
    pub test: Test,
    /// the median loop
    pub median: Measured,
    /// best loop, MB/s
    pub best_mb_s: f64,
    /// worst loop, MB/s
    pub worst_mb_s: f64,
    /// every loop's MB/s in run order
    pub loops_mb_s: Vec<f64>,
}

/// The phase stored in the `RunResult` for a row. The job and the loop spread are in
/// `notes` as `key=value` words so that `compare` and people can read them.
pub fn phase_of(row: &Row) -> Phase {
    let m = &row.median;
    let mut p = Phase::new(&row.test.name(), m.ops, m.bytes, m.seconds);
    p.lat = m.lat.clone();
    p.cache = Some("O_DIRECT (page cache bypassed)".into());
    let s = row.test.slot;
    p.notes = vec![
        format!(
            "block_size_bytes={} iodepth={} threads={} engine={} direct=true",
            s.block,
            s.qd,
            s.threads,
            if s.qd > 1 { "io_uring" } else { "psync" }
        ),
        format!(
            "median_of={} best_mb_per_s={:.3} worst_mb_per_s={:.3} loops_mb_per_s={}",
            row.loops_mb_s.len(),
            row.best_mb_s,
            row.worst_mb_s,
            row.loops_mb_s
                .iter()
                .map(|v| format!("{v:.3}"))
                .collect::<Vec<_>>()
                .join(",")
        ),
        if s.qd > 1 {
            "latency: measured per I/O, io_uring submission to reaped completion".into()
        } else {
            "latency: measured per I/O (pread/pwrite, completion)".into()
        },
    ];
    p
}

/// One line describing the target from its diagnosis.
pub fn target_line(d: &Diagnosis) -> String {
    let s = &d.summary;
    let mut parts = vec![s
        .device_model
        .clone()
        .unwrap_or_else(|| "unknown device".into())];
    if let Some(t) = &s.transport {
        parts.push(t.clone());
    }
    if let Some(l) = &s.link {
        parts.push(l.clone());
    }
    if let Some(f) = &s.filesystem {
        parts.push(f.clone());
    }
    let ceiling = match &d.ceiling {
        Some(c) => format!(
            "ceiling {:.0} MB/s raw, {:.0} MB/s realistic ({})",
            c.raw_mb_s, c.realistic_mb_s, c.set_by
        ),
        None => format!(
            "ceiling unknown{}",
            d.ceiling_unknown
                .as_ref()
                .map_or(String::new(), |u| format!(" ({u})"))
        ),
    };
    format!("target: {} — {}; {}", d.target, parts.join(", "), ceiling)
}

/// The builder's inputs of a mark run: command `mark`, one phase and the recorder's
/// record per finished test (the median loop), the diagnosis of the target, how it
/// ended.
pub fn inputs(
    job: &MarkJob,
    rows: &[Row],
    diag: &Diagnosis,
    warnings: Vec<Warning>,
    status: Status,
) -> result::Inputs {
    let mut i = result::Inputs::new("mark", &job.argv, status);
    i.elapsed_s = rows.iter().map(|r| r.median.seconds).sum();
    i.summary = JobInfo {
        kind: format!("mark:{}", job.preset),
        engine: "io_uring (QD>1), psync (Q1)".into(),
        files: 1,
        file_size_bytes: job.size,
        total_size_bytes: job.size,
        time_limit_s: job.time_s,
        direct: true,
        data_pattern: Some(crate::job::sysbench::DataPattern::Random),
        directory: crate::files::dir_name(&job.path),
        fsync_mode: "none".into(),
        ..Default::default()
    };
    i.warnings = warnings;
    i.page_cache = Some(page_cache(job));
    i.targets = vec![diag.clone()];
    i.phases = rows.iter().map(phase_of).collect();
    // the jobs, the totals and the time breakdown: from what the recorder measured in
    // each test's median loop
    i.recorded = Recorded::runs(
        rows.iter()
            .filter_map(|r| r.median.record.as_deref().cloned())
            .collect(),
    );
    // over time: the median loops one after the other, each with the findings read
    // from its own samples
    if let Some(s) = joined(rows.iter().map(|r| r.median.series.as_ref())) {
        i.sample_period_s = s.period_s;
        i.sample_sources = s.sources;
        i.sample_findings = Some(s.findings);
        i.samples = s.samples;
    }
    i
}

/// mark's page-cache facts for the truth warnings (result/truth.rs): its test file is
/// O_DIRECT and written by mark, so what counts is whether the target is in memory
/// (tmpfs, zram, a loop device over tmpfs); no device counters are kept.
fn page_cache(job: &MarkJob) -> crate::probe::pagecache::PageCacheCheck {
    use crate::probe::pagecache;
    let root = crate::probe::Root::default();
    let b = pagecache::before(&root, &job.path);
    pagecache::PageCacheCheck {
        device_read_bytes: None,
        device_written_bytes: None,
        ..pagecache::after(&root, &b, job.size, false, 0, 0)
    }
}

/// The result of a mark run.
pub fn result(job: &MarkJob, rows: &[Row], diag: &Diagnosis, warnings: Vec<Warning>) -> RunResult {
    result::build(inputs(job, rows, diag, warnings, Status::Ok))
}

#[cfg(test)]
mod median_tests {
    use super::*;

    /// A loop of `mb_s` MB/s over 1 s with `lat_us` µs per I/O (10 reads at Q1), with
    /// its recorder's record.
    fn at(mb_s: f64, lat_us: u64) -> Measured {
        use crate::stats::{job::JobStats, EventKind};
        let lat = Latency {
            count: 10,
            sum_ns: lat_us * 10_000,
            mean_ns: lat_us * 1000,
            min_ns: lat_us * 1000,
            max_ns: lat_us * 1000,
            ..Default::default()
        };
        let bytes = (mb_s * 1e6) as u64;
        let mut t = JobStats::thread(false);
        for _ in 0..10 {
            t.event(EventKind::Read, lat_us * 1000, false);
            t.io_done(EventKind::Read, bytes / 10);
        }
        let threads = result::Threads {
            period_s: 1.0,
            total_time_s: 1.0,
            threads: vec![t.settled()],
            ..Default::default()
        };
        let job = crate::result::job::EffectiveJob::default();
        Measured {
            bytes,
            ops: 10,
            seconds: 1.0,
            mb_s,
            mib_s: bytes as f64 / 1_048_576.0,
            iops: 10.0,
            mean_us: lat_us as f64,
            lat: Some(lat.clone()),
            record: Some(Box::new(Recorded::fileio(job, threads, 0))),
            ..Default::default()
        }
    }

    /// Two loops' series on one time line: the second's samples and findings after the
    /// first's last sample, its finding's bytes after the first's writes; the median of
    /// an even count (the mean of two loops) carries both loops' samples, which add up
    /// to its bytes.
    #[test]
    fn loops_series_join_on_one_time_line() {
        let sample = |t_s: f64, written_bytes: u64| Sample {
            t_s,
            dur_s: 1.0,
            written_bytes,
            ..Default::default()
        };
        let series = |w: u64, found: Option<f64>| Series {
            period_s: 1.0,
            samples: vec![sample(1.0, w), sample(2.0, w)],
            findings: found
                .map(|at_s| TimeFinding {
                    id: "over_time.write_cliff".into(),
                    at_s,
                    written_bytes: w,
                    ..Default::default()
                })
                .into_iter()
                .collect(),
            ..Default::default()
        };
        let j = join(&series(10, None), &series(5, Some(1.5)));
        let t: Vec<f64> = j.samples.iter().map(|s| s.t_s).collect();
        assert_eq!(t, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!((j.findings[0].at_s, j.findings[0].written_bytes), (3.5, 25));
        let mut lo = at(100.0, 1);
        let mut hi = at(300.0, 1);
        (lo.bytes, hi.bytes) = (20, 10);
        (lo.series, hi.series) = (Some(series(10, None)), Some(series(5, None)));
        let (m, ..) = median(&[lo, hi]).unwrap();
        let s = m.series.unwrap();
        let sum: u64 = s.samples.iter().map(|x| x.written_bytes).sum();
        assert_eq!((s.samples.len(), sum), (4, m.bytes));
    }

    /// The median of an even count is the mean of the two middle loops (not the lower
    /// one, which --loops=2 made the worst); an odd count's is the middle loop.
    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_two_middle_loops() {
        let (m, best, worst) = median(&[at(300.0, 40), at(100.0, 20)]).unwrap();
        assert_eq!((m.mb_s, best, worst), (200.0, 300.0, 100.0));
        assert_eq!((m.ops, m.seconds, m.iops), (20, 2.0, 10.0));
        // the latency is over both loops' I/O
        assert_eq!(m.mean_us, 30.0);
        // the recorder's records of both loops added up: the totals over both
        let mut i = result::Inputs::new("mark", &[], Status::Ok);
        i.recorded = Recorded::runs(vec![*m.record.clone().unwrap()]);
        let r = result::build(i);
        assert_eq!(
            (r.read.ops, r.read.bytes, r.period_s),
            (20, 400_000_000, 2.0)
        );
        assert_eq!((r.read.bw_mb_per_s, r.read.iops), (200.0, 10.0));
        assert_eq!(r.read.lat.mean_ns, 30_000);
        assert_eq!(
            (r.jobs.len(), r.jobs[0].threads, r.jobs[0].read.ios),
            (1, 1, 20)
        );
        let (m, ..) = median(&[at(400.0, 1), at(100.0, 1), at(300.0, 1), at(200.0, 1)]).unwrap();
        assert_eq!(m.mb_s, 250.0);
        let (m, best, worst) = median(&[at(300.0, 1), at(100.0, 1), at(200.0, 1)]).unwrap();
        assert_eq!((m.mb_s, best, worst), (200.0, 300.0, 100.0));
        assert_eq!(m.ops, 10);
        assert!(median(&[]).is_none());
    }
}
