use super::*;
use crate::result::build::Threads;
use crate::result::job::{EffectiveJob, JobRecord};
use crate::result::{build, Inputs};
use crate::stats::LatAcc;

fn acc(values: impl Iterator<Item = u64>) -> LatAcc {
    let mut a = LatAcc::default();
    values.for_each(|v| a.add(v));
    a
}

/// A rank that wrote `n` I/Os of 4 KiB in one job over `runtime_ns`, latencies `base`,
/// `base + step`, …, starting `start` ns after the earliest rank: its recorder state
/// and its own result, built from it.
fn rank(
    r: u32,
    n: u64,
    (base, step): (u64, u64),
    start: u64,
    runtime_ns: u64,
) -> (RankRun, Measured) {
    let mut stats = JobStats {
        threads: 1,
        runtime_ns,
        ..JobStats::default()
    };
    let l = acc((0..n).map(|i| base + i * step));
    (stats.write.ios, stats.write.bytes) = (n, n * 4096);
    (stats.write.clat, stats.write.lat) = (l.clone(), l);
    let job = EffectiveJob {
        numjobs: 1,
        ..EffectiveJob::default()
    };
    let mut i = Inputs::new("run", &[], Status::Ok);
    i.recorded = Recorded::fio(vec![JobRecord {
        job,
        stats,
        ..JobRecord::default()
    }]);
    let m = Measured::of(&i);
    let run = RankRun {
        rank: r,
        hostname: format!("h{r}"),
        start_offset_ns: start,
        end_offset_ns: start + runtime_ns,
        stopped_by_peer: false,
        result: build(i),
    };
    (run, m)
}

fn base() -> Inputs {
    Inputs::new("run", &[], Status::Ok)
}

#[test]
fn counts_add_up_and_percentiles_come_from_one_merged_histogram() {
    let a = rank(0, 1000, (1_000, 10), 0, 1_000_000_000);
    let b = rank(1, 3000, (50_000, 7), 2_000_000, 1_500_000_000);
    let (ja, jb) = (&a.0.result.jobs[0], &b.0.result.jobs[0]);
    let mut both = ja.write.clat.histogram.clone().unwrap();
    both.merge(jb.write.clat.histogram.as_ref().unwrap());
    let sum_ns = ja.write.clat.sum_ns + jb.write.clat.sum_ns;
    let agg = aggregate(vec![a, b], base(), false, 0);
    let w = &agg.jobs[0].write;
    assert_eq!((w.ios, w.bytes), (4000, 4000 * 4096));
    assert_eq!(
        (agg.write.ops, agg.jobs[0].threads, agg.jobs[0].job.numjobs),
        (4000, 2, 2)
    );
    assert_eq!(w.clat.histogram.as_ref(), Some(&both));
    assert_eq!(agg.write.lat.histogram.as_ref(), Some(&both));
    for (k, v) in &w.clat.percentiles_ns {
        let p: f64 = k.parse().unwrap();
        assert_eq!(*v, crate::stats::percentile_ns(&both.0, p), "p{k}");
    }
    // not an average of the ranks' p50 (about 6 µs and 60 µs): the merged one
    assert_eq!(
        w.clat.percentiles_ns["50"],
        crate::stats::percentile_ns(&both.0, 50.0)
    );
    assert_eq!((w.clat.min_ns, w.clat.max_ns), (1_000, 50_000 + 2999 * 7));
    assert_eq!((w.clat.sum_ns, w.clat.mean_ns), (sum_ns, sum_ns / 4000));
    assert_eq!(w.clat.stdev_ns, both.0.stdev());
    // IOPS over the span: rank 1 started 2 ms later and ran 1.5 s
    assert_eq!(agg.jobs[0].runtime_ns, 1_502_000_000);
    assert_eq!(agg.period_s, 1.502);
    assert!((w.iops - 4000.0 / 1.502).abs() < 1e-9);
    assert!((agg.write.iops - 4000.0 / 1.502).abs() < 1e-9);
    // the phase of the job: the same span and the merged latency
    let p = agg
        .phases
        .iter()
        .find(|p| p.name.ends_with(" write"))
        .unwrap();
    assert_eq!((p.ops, p.seconds), (4000, 1.502));
    let s = agg.ranks.as_ref().unwrap();
    assert_eq!(
        (s.size, s.start_skew_ns, s.first_done_ns, s.last_done_ns),
        (2, 2_000_000, 1_000_000_000, 1_502_000_000)
    );
    assert_eq!(s.per_rank[1].hostname, "h1");
    assert_eq!(
        s.per_rank[1].result.jobs[0].runtime_ns, 1_500_000_000,
        "its own"
    );
}

#[test]
fn a_failed_rank_is_named_and_makes_the_aggregate_fail() {
    let a = rank(0, 10, (1_000, 1), 0, 1_000);
    let (mut b, mut mb) = rank(1, 10, (1_000, 1), 0, 1_000);
    b.result.status = Status::Failed;
    b.result.error = Some("write failed: Input/output error".into());
    b.result.warnings = vec![Warning {
        id: "target.memory_fs".into(),
        message: "on tmpfs".into(),
    }];
    let jobs = &mut mb.recorded.jobs;
    (jobs[0].stats.failure, jobs[0].stats.error) = (Some("job 'w': EIO".into()), 5);
    let agg = aggregate(vec![a, (b, mb)], base(), false, 0);
    assert_eq!(agg.status, Status::Failed);
    assert_eq!(
        agg.error.as_deref(),
        Some("rank 1 (h1): write failed: Input/output error")
    );
    assert_eq!(
        (agg.jobs[0].failure.as_deref(), agg.jobs[0].errno),
        (Some("rank 1 (h1): job 'w': EIO"), 5)
    );
    assert_eq!(agg.warnings.len(), 1, "{:?}", agg.warnings);
    assert_eq!(agg.warnings[0].message, "rank 1 (h1): on tmpfs");
}

#[test]
fn the_page_cache_check_is_rank_0s_over_its_own_bytes_and_warns_only_per_rank() {
    let (mut a, ma) = rank(0, 10, (1_000, 1), 0, 1_000);
    let (mut b, mb) = rank(1, 30, (1_000, 1), 0, 1_000);
    let check = |written: u64| crate::result::PageCacheCheck {
        buffered: true,
        memory_fs: Some("tmpfs".into()),
        app_written_bytes: written,
        ..Default::default()
    };
    (a.result.page_cache, b.result.page_cache) = (Some(check(10 * 4096)), Some(check(30 * 4096)));
    // the same check built alone warns about the memory file system
    let mut alone = base();
    alone.page_cache = Some(check(0));
    assert!(!build(alone).warnings.is_empty());
    let agg = aggregate(vec![(a, ma), (b, mb)], base(), false, 0);
    assert_eq!(agg.write.bytes, 40 * 4096, "the merged figures");
    assert_eq!(
        agg.page_cache,
        Some(check(10 * 4096)),
        "rank 0's, as it was"
    );
    assert!(agg.warnings.is_empty(), "{:?}", agg.warnings);
    assert!(agg.series.is_none() && agg.ranks.is_some());
}

#[test]
fn a_rank_that_measured_nothing_adds_nothing() {
    let a = rank(0, 10, (1_000, 1), 0, 1_000);
    let mut failed = rank(1, 0, (0, 0), 0, 0);
    failed.1 = Measured::default();
    let agg = aggregate(vec![failed, a], base(), false, 0);
    assert_eq!(
        (agg.jobs.len(), agg.write.ops, agg.jobs[0].threads),
        (1, 10, 1)
    );
}

#[test]
fn fileio_ranks_keep_every_thread_over_the_span() {
    let fileio = |r: u32, start: u64, period_s: f64, n: u64| {
        let mut t = JobStats::thread(false);
        (t.read.ios, t.read.bytes, t.read.lat) = (n, n * 16384, acc(1000..1000 + n));
        let mut i = Inputs::new("fileio", &[], Status::Ok);
        let job = EffectiveJob {
            numjobs: 1,
            ..EffectiveJob::default()
        };
        let threads = Threads {
            threads: vec![t],
            period_s,
            total_time_s: period_s + 0.1,
            ..Threads::default()
        };
        i.recorded = Recorded::fileio(job, threads, 0);
        let m = Measured::of(&i);
        let run = RankRun {
            rank: r,
            hostname: "h".into(),
            start_offset_ns: start,
            end_offset_ns: start,
            stopped_by_peer: false,
            result: build(i),
        };
        (run, m)
    };
    let agg = aggregate(
        vec![fileio(0, 0, 2.0, 100), fileio(1, 500_000_000, 1.0, 300)],
        Inputs::new("fileio", &[], Status::Ok),
        false,
        0,
    );
    assert_eq!(agg.threads.len(), 2);
    assert_eq!((agg.threads[0].reads, agg.threads[1].reads), (100, 300));
    assert_eq!((agg.period_s, agg.elapsed_s), (2.0, 2.1));
    assert_eq!((agg.read.ops, agg.events, agg.lat.count), (400, 400, 400));
    assert_eq!(agg.read.iops, 200.0);
    assert_eq!((agg.jobs[0].job.numjobs, agg.jobs[0].threads), (2, 2));
    assert!(agg.series.is_none(), "plot series stay per rank");
}

#[test]
fn the_aggregate_and_the_recorder_state_survive_their_json() {
    let (run, m) = rank(0, 100, (1_000, 3), 0, 1_000_000);
    let wire = serde_json::to_vec(&m).unwrap();
    let back: Measured = serde_json::from_slice(&wire).unwrap();
    let agg = aggregate(vec![(run.clone(), back)], base(), true, 1);
    assert_eq!(agg.jobs, aggregate(vec![(run, m)], base(), true, 1).jobs);
    assert_eq!(agg.jobs[0].write.clat.count, 100);
    let back: RunResult = serde_json::from_slice(&crate::result::json_bytes(&agg)).unwrap();
    assert_eq!(back, agg);
    assert_eq!(
        back.ranks.as_ref().map(|s| (s.stonewall, s.rotate)),
        Some((true, 1))
    );
}

/// fio's client "All clients" job of ranks with two jobs each: every job of every rank
/// merged into one (I/Os, bytes and the histogram of all four), the group the last
/// job's.
#[test]
fn several_jobs_a_rank_make_one_all_clients_job() {
    let two = |r: u32, n: u64| {
        let (run, mut m) = rank(r, n, (1_000, 3), 0, 1_000_000_000);
        let jobs = &mut m.recorded.jobs;
        let mut second = jobs[0].clone();
        second.groupid = 1;
        jobs.push(second);
        (run, m)
    };
    let agg = aggregate(vec![two(0, 100), two(1, 300)], base(), false, 0);
    assert_eq!(agg.jobs.len(), 2, "job i of every rank is one job");
    let all = agg.ranks.as_ref().unwrap().all_clients.as_ref().unwrap();
    assert_eq!((all.write.ios, all.write.bytes), (800, 800 * 4096));
    assert_eq!(all.write.clat.count, 800);
    assert_eq!(all.groupid, 1);
    let hist = |j: &crate::result::JobResult| j.write.clat.histogram.clone().unwrap();
    let mut both = hist(&agg.jobs[0]);
    both.merge(&hist(&agg.jobs[1]));
    assert_eq!(hist(all), both);
}

/// fio's "All clients" run time is the longest host's own (fio's `sum_thread_stats`
/// keeps the largest), not the span from the earliest start to the latest end that the
/// aggregate's rates use: rank 1 starts 0.5 s late and runs 1 s, rank 0 runs 1.2 s.
#[test]
fn all_clients_runs_as_long_as_the_longest_rank() {
    let a = rank(0, 100, (1_000, 3), 0, 1_200_000_000);
    let b = rank(1, 300, (1_000, 3), 500_000_000, 1_000_000_000);
    let agg = aggregate(vec![a, b], base(), false, 0);
    assert_eq!(
        agg.jobs[0].runtime_ns, 1_500_000_000,
        "the common time line"
    );
    let all = agg.ranks.as_ref().unwrap().all_clients.as_ref().unwrap();
    assert_eq!(all.runtime_ns, 1_200_000_000, "the longest rank's own");
    assert_eq!((all.write.ios, all.write.clat.count), (400, 400));
}
