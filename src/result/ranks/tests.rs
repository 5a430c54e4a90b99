use super::*;
use crate::result::job::JobResult;
use crate::result::{build, Inputs};

fn lat(values: impl Iterator<Item = u64>) -> Latency {
    let mut a = crate::stats::LatAcc::default();
    values.for_each(|v| a.add(v));
    crate::result::build::acc_latency(a)
}

/// A rank's result: one job writing `n` I/Os of 4 KiB over `runtime_ns`, latencies
/// `base`, `base + step`, …
fn rank(r: u32, n: u64, base: u64, step: u64, start: u64, runtime_ns: u64) -> RankRun {
    let mut res = build(Inputs::new("run", &[], Status::Ok));
    let l = lat((0..n).map(|i| base + i * step));
    let mut j = JobResult {
        runtime_ns,
        threads: 1,
        ..JobResult::default()
    };
    (j.write.ios, j.write.bytes, j.write.clat) = (n, n * 4096, l.clone());
    res.jobs = vec![j];
    (res.write.ops, res.write.bytes, res.write.lat) = (n, n * 4096, l);
    res.period_s = runtime_ns as f64 / 1e9;
    RankRun {
        rank: r,
        hostname: format!("h{r}"),
        start_offset_ns: start,
        end_offset_ns: start + runtime_ns,
        stopped_by_peer: false,
        result: res,
    }
}

#[test]
fn counts_add_up_and_percentiles_come_from_one_merged_histogram() {
    let a = rank(0, 1000, 1_000, 10, 0, 1_000_000_000);
    let b = rank(1, 3000, 50_000, 7, 2_000_000, 1_500_000_000);
    let mut both = a.result.write.lat.histogram.clone().unwrap();
    both.merge(b.result.write.lat.histogram.as_ref().unwrap());
    let agg = aggregate(vec![a.clone(), b.clone()], false, 0);
    let w = &agg.jobs[0].write;
    assert_eq!((w.ios, w.bytes), (4000, 4000 * 4096));
    assert_eq!(agg.write.ops, 4000);
    assert_eq!(w.clat.histogram.as_ref(), Some(&both));
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
    assert_eq!(
        w.clat.sum_ns,
        a.result.write.lat.sum_ns + b.result.write.lat.sum_ns
    );
    assert_eq!(w.clat.stdev_ns, both.0.stdev());
    // IOPS over the span: rank 1 started 2 ms later and ran 1.5 s
    assert_eq!(agg.jobs[0].runtime_ns, 1_502_000_000);
    assert!((w.iops - 4000.0 / 1.502).abs() < 1e-9);
    assert!((agg.write.iops - 4000.0 / 1.502).abs() < 1e-9);
    let s = agg.ranks.as_ref().unwrap();
    assert_eq!(
        (s.size, s.start_skew_ns, s.first_done_ns, s.last_done_ns),
        (2, 2_000_000, 1_000_000_000, 1_502_000_000)
    );
    assert_eq!(s.per_rank[1].hostname, "h1");
}

#[test]
fn a_failed_rank_is_named_and_makes_the_aggregate_fail() {
    let a = rank(0, 10, 1_000, 1, 0, 1_000);
    let mut b = rank(1, 10, 1_000, 1, 0, 1_000);
    b.result.status = Status::Failed;
    b.result.error = Some("write failed: Input/output error".into());
    b.result.jobs[0].failure = Some("job 'w': EIO".into());
    b.result.warnings = vec![Warning {
        id: "target.memory_fs".into(),
        message: "on tmpfs".into(),
    }];
    let agg = aggregate(vec![a, b], false, 0);
    assert_eq!(agg.status, Status::Failed);
    assert_eq!(
        agg.error.as_deref(),
        Some("rank 1 (h1): write failed: Input/output error")
    );
    assert_eq!(
        agg.jobs[0].failure.as_deref(),
        Some("rank 1 (h1): job 'w': EIO")
    );
    assert_eq!(agg.warnings[0].message, "rank 1 (h1): on tmpfs");
}

#[test]
fn the_aggregate_survives_its_json() {
    let agg = aggregate(vec![rank(0, 100, 1_000, 3, 0, 1_000_000)], true, 1);
    let back: RunResult = serde_json::from_slice(&crate::result::json_bytes(&agg)).unwrap();
    assert_eq!(back, agg);
    assert_eq!(
        back.ranks.as_ref().map(|s| (s.stonewall, s.rotate)),
        Some((true, 1))
    );
    let empty = merge_latency(&[]);
    assert_eq!((empty.count, empty.histogram.is_none()), (0, true));
}
