//! The figures of `iomark mark`: one loop's numbers from its fileio `RunResult`
//! ([`measured`]), the median of the loops ([`median`]), the reported rows, their
//! phases ([`phase_of`]), the builder's inputs of the mark result ([`inputs`]) and the
//! target line. The end-of-run table is a reporter over the result
//! (report/mark_table.rs). Pure: nothing here runs a test or touches a file; the
//! running is in [`super::execute`].

use super::{MarkJob, Test};
use crate::probe::diagnosis::Diagnosis;
use crate::result::{
    self, JobInfo, JobResult, Latency, OpStats, Phase, RunResult, Sample, Series, Status,
    TimeFinding, TimeShare, Warning,
};

/// The numbers of one loop of one test (decimal MB/s, µs).
#[derive(Clone, Debug, Default, PartialEq)]
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
    /// the loop's job with its histograms, named after the test (the mark result's
    /// `jobs`)
    pub job: Option<Box<JobResult>>,
    /// the loop's reads and writes, each with its per-I/O latency (submission to
    /// completion: the event's at Q1, the completion latency at QD > 1)
    pub dirs: [OpStats; 2],
    /// where the loop's time went (its fileio result's breakdown, its threads added
    /// up), named after the test
    pub time: Option<TimeShare>,
    /// the loop over time: its fileio result's samples and the findings read from them
    pub series: Option<Series>,
}

/// Turn a fileio `RunResult` of test `t` into the figures `mark` reports.
pub fn measured(t: &Test, r: &RunResult) -> Measured {
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
        job: r.jobs.first().map(|j| {
            let mut j = j.clone();
            j.job.name = t.name();
            Box::new(j)
        }),
        dirs: [per_io(&r.read, t.slot.qd), per_io(&r.write, t.slot.qd)],
        time: r.time.first().map(|x| TimeShare {
            who: t.name(),
            ..x.clone()
        }),
        series: r.series.clone(),
    }
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

/// One direction of a loop with the per-I/O latency as its `lat` (see [`measured`]).
fn per_io(d: &OpStats, qd: u32) -> OpStats {
    let mut d = d.clone();
    if qd > 1 {
        d.lat = d.clat.take().unwrap_or_default();
    }
    d.clat = None;
    d
}

/// The top-level figures of one direction (0: reads, 1: writes) of a mark result: the
/// median loops of the tests that moved data that way added up (ops, bytes, latency
/// over their histograms), rates over those loops' own seconds — with one such test,
/// exactly the figures of its table row.
pub fn dir_totals(rows: &[Row], dir: usize) -> OpStats {
    let mine: Vec<&Measured> = rows
        .iter()
        .map(|r| &r.median)
        .filter(|m| m.dirs[dir].ops > 0)
        .collect();
    let ops: u64 = mine.iter().map(|m| m.dirs[dir].ops).sum();
    let bytes: u64 = mine.iter().map(|m| m.dirs[dir].bytes).sum();
    let secs: f64 = mine.iter().map(|m| m.seconds).sum();
    let lats: Vec<&Latency> = mine.iter().map(|m| &m.dirs[dir].lat).collect();
    let lat = match lats.as_slice() {
        [one] => (*one).clone(),
        _ => crate::result::hist::merge_latency(&lats),
    };
    OpStats::over(ops, bytes, secs, lat)
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
/// I/O (their histograms merged); the job record and the charts (`--plot`) are `lo`'s.
fn mean_of(lo: &Measured, hi: &Measured) -> Measured {
    let merge = |a: &Latency, b: &Latency| crate::result::hist::merge_latency(&[a, b]);
    let lat = match (&lo.lat, &hi.lat) {
        (Some(a), Some(b)) => Some(merge(a, b)),
        (a, b) => a.clone().or_else(|| b.clone()),
    };
    let seconds = lo.seconds + hi.seconds;
    let dir = |i: usize| {
        let (a, b) = (&lo.dirs[i], &hi.dirs[i]);
        OpStats::over(
            a.ops + b.ops,
            a.bytes + b.bytes,
            seconds,
            merge(&a.lat, &b.lat),
        )
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
        job: lo.job.clone(),
        dirs: [dir(0), dir(1)],
        time: match (&lo.time, &hi.time) {
            (Some(a), Some(b)) => Some(TimeShare::total(&a.who, &[a.clone(), b.clone()])),
            (a, b) => a.clone().or_else(|| b.clone()),
        },
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

/// The builder's inputs of a mark run: command `mark`, one phase and one job per
/// finished test (the median loop), the diagnosis of the target, how it ended.
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
    let jobs = rows
        .iter()
        .filter_map(|r| r.median.job.as_deref().cloned())
        .collect();
    i.recorded = result::Recorded::built(
        jobs,
        result::Totals {
            read: dir_totals(rows, 0),
            write: dir_totals(rows, 1),
            period_s: Some(rows.iter().map(|r| r.median.seconds).sum()),
            fsync: None,
        },
    );
    // each test's time breakdown: its median loop's
    i.recorded.time = rows.iter().filter_map(|r| r.median.time.clone()).collect();
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

    /// A loop of `mb_s` MB/s over 1 s with `lat_us` µs per I/O (10 I/Os).
    fn at(mb_s: f64, lat_us: u64) -> Measured {
        let lat = Latency {
            count: 10,
            sum_ns: lat_us * 10_000,
            mean_ns: lat_us * 1000,
            min_ns: lat_us * 1000,
            max_ns: lat_us * 1000,
            ..Default::default()
        };
        let bytes = (mb_s * 1e6) as u64;
        Measured {
            bytes,
            ops: 10,
            seconds: 1.0,
            mb_s,
            mib_s: bytes as f64 / 1_048_576.0,
            iops: 10.0,
            mean_us: lat_us as f64,
            lat: Some(lat.clone()),
            dirs: [OpStats::over(10, bytes, 1.0, lat), OpStats::default()],
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
        assert_eq!(m.dirs[0].bw_mb_per_s, 200.0);
        let (m, ..) = median(&[at(400.0, 1), at(100.0, 1), at(300.0, 1), at(200.0, 1)]).unwrap();
        assert_eq!(m.mb_s, 250.0);
        let (m, best, worst) = median(&[at(300.0, 1), at(100.0, 1), at(200.0, 1)]).unwrap();
        assert_eq!((m.mb_s, best, worst), (200.0, 300.0, 100.0));
        assert_eq!(m.ops, 10);
        assert!(median(&[]).is_none());
    }
}
