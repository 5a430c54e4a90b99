//! sysbench's report of a fileio run over ranks, as rank 0 prints it: its counts are
//! the sum of what each rank counted on its own (`ranks.per_rank`, each rank's result
//! as it built it before sending), its rates are over the aggregate's period, and its
//! latency lines come from the one merged histogram — the maximum is the largest rank
//! maximum and the percentile lies within the ranks' percentiles (a percentile of a
//! merged sample is never outside its parts'), never an average of theirs.

use super::*;

/// The value of sysbench's report line `label:` (the first such line of `out`),
/// without a unit suffix (`s`); of an `avg/stddev` pair, the mean.
fn value(out: &str, label: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in {out}"));
    let v = line.trim_start()[label.len()..].trim();
    let v = v.split('/').next().unwrap_or(v);
    v.trim_end_matches('s')
        .parse()
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The report's figure `label` is `x` as sysbench prints it (two decimals).
fn shows(out: &str, label: &str, x: f64) {
    assert_eq!(
        format!("{:.2}", value(out, label)),
        format!("{x:.2}"),
        "{label} in {out}"
    );
}

/// Two ranks of a fileio rndrw run with periodic fsyncs: the report rank 0 prints
/// counts every rank's events, fsyncs and bytes, and its latency is the merged one.
#[test]
fn a_fileio_report_over_two_ranks_sums_their_counts_and_merges_latency() {
    let d = scratch();
    let fd = format!("--file-dir={}", d.path().display());
    let jarg = format!("--json={}", d.path().join("f.json").display());
    let common = [fd.as_str(), "--file-num=2", "--file-total-size=1M"];
    let mut c = match mpirun() {
        Some(c) => c,
        None => return,
    };
    let prep = [&["-np", "2", BIN, "fileio"][..], &common, &["prepare"]].concat();
    assert!(c.args(prep).output().unwrap().status.success());
    let run = [
        &["-np", "2", BIN, "fileio"][..],
        &common,
        &[
            "--file-test-mode=rndrw",
            "--file-fsync-freq=7",
            "--time=0",
            "--events=1500",
            "--threads=2",
            &jarg,
            "run",
        ],
    ]
    .concat();
    let o = mpirun().unwrap().args(run).output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out.matches("File operations:").count(), 1, "{out}");
    let r = json(&d.path().join("f.json"));
    let ranks: Vec<&Value> = per_rank(&r).iter().map(|p| &p["result"]).collect();
    assert_eq!(ranks.len(), 2);
    let sum = |f: &dyn Fn(&Value) -> u64| ranks.iter().map(|x| f(x)).sum::<u64>();
    let events = sum(&|x| u(&x["events"]));
    let fsyncs = sum(&|x| u(&x["fsync"]["ops"]));
    let (reads, writes) = (
        sum(&|x| u(&x["read"]["ops"])),
        sum(&|x| u(&x["write"]["ops"])),
    );
    let (rb, wb) = (
        sum(&|x| u(&x["read"]["bytes"])),
        sum(&|x| u(&x["write"]["bytes"])),
    );
    // each rank ran its own 1500 events: reads, writes and periodic fsyncs
    for x in &ranks {
        assert_eq!(u(&x["events"]), 1500, "{x}");
    }
    assert!(
        fsyncs > 0 && reads > 0 && writes > 0,
        "{fsyncs} {reads} {writes}"
    );
    assert_eq!(value(&out, "total number of events:") as u64, events);
    for (k, v) in [
        ("events", events),
        ("fsync", fsyncs),
        ("reads", reads),
        ("writes", writes),
    ] {
        let agg = match k {
            "events" => u(&r["events"]),
            "fsync" => u(&r["fsync"]["ops"]),
            "reads" => u(&r["read"]["ops"]),
            _ => u(&r["write"]["ops"]),
        };
        assert_eq!(agg, v, "{k}: aggregate = sum of the ranks");
    }
    assert_eq!(u(&r["read"]["bytes"]), rb);
    assert_eq!(u(&r["write"]["bytes"]), wb);
    // the period is the span from the earliest start to the latest end
    let period = r["period_s"].as_f64().unwrap();
    let span = per_rank(&r)
        .iter()
        .map(|p| u(&p["start_offset_ns"]) as f64 / 1e9 + p["result"]["period_s"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!((period - span).abs() < 1e-6, "{period} vs {span}");
    shows(&out, "reads/s:", reads as f64 / period);
    shows(&out, "writes/s:", writes as f64 / period);
    shows(&out, "fsyncs/s:", fsyncs as f64 / period);
    shows(&out, "read, MiB/s:", rb as f64 / 1_048_576.0 / period);
    shows(&out, "written, MiB/s:", wb as f64 / 1_048_576.0 / period);
    // threads: every rank's, the fairness mean over all four
    assert_eq!(r["threads"].as_array().unwrap().len(), 4);
    shows(&out, "events (avg/stddev):", events as f64 / 4.0);
    latency(&out, &r, &ranks);
}

/// The aggregate's latency against the ranks': exact maximum, minimum and sum; the 95th
/// percentile within the ranks' 95th percentiles, in the JSON (ns) and the report (ms).
fn latency(out: &str, r: &Value, ranks: &[&Value]) {
    let lat = |x: &Value, k: &str| u(&x["lat"][k]);
    let max = ranks.iter().map(|x| lat(x, "max_ns")).max().unwrap();
    let min = ranks.iter().map(|x| lat(x, "min_ns")).min().unwrap();
    let sum: u64 = ranks.iter().map(|x| lat(x, "sum_ns")).sum();
    assert_eq!(lat(r, "max_ns"), max, "max of the ranks' maxima");
    assert_eq!(lat(r, "min_ns"), min);
    assert_eq!(lat(r, "sum_ns"), sum);
    let ms = |ns: u64| ns as f64 / 1e6;
    shows(out, "max:", ms(max));
    shows(out, "min:", ms(min));
    shows(out, "sum:", ms(sum));
    let p95 = |x: &Value| u(&x["lat"]["percentiles_ns"]["95"]);
    let (lo, hi) = (
        ranks.iter().map(|x| p95(x)).min().unwrap(),
        ranks.iter().map(|x| p95(x)).max().unwrap(),
    );
    let agg = p95(r);
    assert!(
        lo <= agg && agg <= hi,
        "p95 {agg} outside the ranks' {lo}..{hi}"
    );
    shows(out, "95th percentile:", ms(agg));
    // and it is the merged histogram's, not a mean of the ranks'
    let m = merged(&ranks.iter().map(|x| buckets(&x["lat"])).collect::<Vec<_>>());
    assert_eq!(agg, percentile(&m, 95.0));
}
