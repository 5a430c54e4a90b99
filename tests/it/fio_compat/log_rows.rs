//! The bandwidth and IOPS logs with `log_avg_msec`, side by side with fio 3.33: their
//! lines are the report's own samples. fio's log setup makes `bwavgtime` (`iopsavgtime`)
//! `log_avg_msec` unless it was given, and each sample its helper thread takes is one
//! line at the time it took it: `bw_samples` is the bw log's line count, `bw_min` and
//! `bw_max` its smallest and largest value (likewise IOPS). A time-based job of R s at W
//! ms has R/W − 1 lines when R is a multiple of W (none at the job's end), or R/W when
//! fio's helper beats the job's end (a race fio loses most of the time, measured in
//! docs/compat/fio.md).

use crate::util::*;
use std::path::Path;

/// The lines of the log `name` in `dir`, each split at `", "`.
fn lines(dir: &Path, name: &str) -> Vec<Vec<u64>> {
    let s = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    s.lines()
        .map(|l| l.split(", ").map(|f| f.trim().parse().unwrap()).collect())
        .collect()
}

/// Run `args` as `who` in a fresh `dir`; the JSON report's `read` object.
fn run(who: &str, d: &Path, dir: &Path, args: &[String]) -> serde_json::Value {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let cmd = if who == "fio" { fio_cmd() } else { as_fio(d) };
    let o = cmd.dir(dir).args(args).arg("--output-format=json").run();
    assert_eq!(o.code, 0, "{who}: {}", o.dump());
    o.json()["jobs"][0]["read"].clone()
}

/// A time-based psync read of `runtime` s with bw and IOPS logs `B`/`I`, plus `more`.
fn job(runtime: u64, more: &[&str]) -> Vec<String> {
    let base = [
        "--name=j".to_string(),
        "--ioengine=psync".into(),
        "--rw=read".into(),
        "--bs=4k".into(),
        "--size=16m".into(),
        "--time_based".into(),
        format!("--runtime={runtime}"),
        "--write_bw_log=B".into(),
        "--write_iops_log=I".into(),
    ];
    base.into_iter()
        .chain(more.iter().map(|s| s.to_string()))
        .collect()
}

/// The log `name`'s lines are the report's `key` samples: as many, the same least and
/// largest value; each line's time is past its interval's end (1 ms of slack) and
/// before the next one's; returns the count.
fn agree(who: &str, r: &serde_json::Value, l: &[Vec<u64>], key: &str, every: u64) -> u64 {
    let at = |k: &str| r[format!("{key}_{k}")].as_u64().unwrap();
    let n = at("samples");
    assert_eq!(l.len() as u64, n, "{who} {key}: {l:?} vs {r}");
    if n > 0 {
        let vals = l.iter().map(|x| x[1]);
        assert_eq!(vals.clone().min(), Some(at("min")), "{who} {key}: {l:?}");
        assert_eq!(vals.max(), Some(at("max")), "{who} {key}: {l:?}");
    }
    for (k, x) in l.iter().enumerate() {
        let end = every * (k as u64 + 1);
        assert!(x[0] + 1 >= end && x[0] < end + every, "{who} {key}: {l:?}");
        assert_eq!(x[2..], [0, 0, 0], "{who} {key}: a window's line: {l:?}");
    }
    n
}

/// `log_avg_msec` of 250 and 500 ms over 1 and 2 s, free and at 200 IOPS: both tools'
/// logs hold the report's samples, and their counts are in the set fio shows
/// (R/W − 1, or R/W when its helper wins the race with the job's end).
#[test]
fn windowed_rate_logs_hold_the_reports_samples() {
    let d = scratch();
    for (who, dir) in sides(d.path(), "windowed rate logs next to fio") {
        for (avg, runtime, rate) in [(250, 1, None), (500, 2, Some(200)), (500, 1, None)] {
            let a = format!("--log_avg_msec={avg}");
            let r = rate.map(|r| format!("--rate_iops={r}"));
            let mut more = vec![a.as_str()];
            more.extend(r.as_deref());
            let rep = run(who, d.path(), &dir, &job(runtime, &more));
            let want = [runtime * 1000 / avg - 1, runtime * 1000 / avg];
            let bw = agree(who, &rep, &lines(&dir, "B_bw.1.log"), "bw", avg);
            let iops = agree(who, &rep, &lines(&dir, "I_iops.1.log"), "iops", avg);
            let case = format!("{who} {avg} ms, {runtime} s, {rate:?}");
            assert!(want.contains(&bw), "{case}: {bw} bw lines");
            assert!(want.contains(&iops), "{case}: {iops} iops lines");
        }
    }
}

/// A given `bwavgtime` stays the report's interval and the bw log averages over the
/// shorter of it and `log_avg_msec`, one line a sample (fio 3.33: 500 with 1000 over 2 s,
/// 3 or 4 lines at 500, 1000, 1500[, 2000]; 2000 with 1000 over 3 s, 1 line at 2000);
/// the IOPS samples keep `iopsavgtime`'s 500 ms without an IOPS log (5 in 3 s).
#[test]
fn a_given_bwavgtime_stays_the_interval() {
    let d = scratch();
    for (who, dir) in sides(d.path(), "bwavgtime with log_avg_msec next to fio") {
        for (bwavg, runtime, want) in [(500, 2, &[3, 4][..]), (2000, 3, &[1][..])] {
            let b = format!("--bwavgtime={bwavg}");
            let mut args = job(runtime, &["--log_avg_msec=1000", &b]);
            args.retain(|a| a != "--write_iops_log=I");
            let rep = run(who, d.path(), &dir, &args);
            let n = agree(who, &rep, &lines(&dir, "B_bw.1.log"), "bw", bwavg);
            assert!(want.contains(&n), "{who} bwavgtime={bwavg}: {n} lines");
            if runtime == 3 {
                let iops = rep["iops_samples"].as_u64().unwrap();
                assert!([5, 6].contains(&iops), "{who}: {iops} IOPS samples");
            }
        }
    }
}
