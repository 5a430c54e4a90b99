//! `iomark run` job control end to end through the binary: `flow` shares between jobs,
//! steady-state termination (`ss`, `ss_dur`, JSON `steadystate`), the `latency_target`
//! queue-depth search (JSON `latency_depth` …), `io_submit_mode=offload` keeping a rate,
//! and `threads=` (fio's tiobench-profile key, not `thread`).
//!
//! Timing tests use generous tolerances (stated at each assertion): the machine is
//! shared, so rates and ratios are checked for shape, not for exact figures.

use serde_json::Value;
use std::time::{Duration, Instant};

use crate::util::*;

fn ios(job: &Value) -> u64 {
    job["read"]["total_ios"].as_u64().unwrap() + job["write"]["total_ios"].as_u64().unwrap()
}

/// I/Os each job of a flow pair must have issued before their ratio is judged: with
/// 100, one I/O more or less moves a 1:8 ratio by at most 1 %. A sample size, not a
/// speed: [`flow_pair`] runs longer until it is reached.
const FLOW_MIN_IOS: u64 = 100;

/// Two null jobs in one flow (`jobs`: their names and options), time_based: the I/Os of
/// each. Both are paced (`thinktime`, 20 µs after each I/O) and end together
/// (`exitall`), so neither runs alone at full null-engine speed while its partner has
/// not started or has already ended — on a loaded machine such a tail once gave one job
/// 15× the other's I/Os under equal weights. The run is 1 s, doubled up to 8 s while
/// a job has issued fewer than [`FLOW_MIN_IOS`] (a busy machine wakes sleepers late).
fn flow_pair(dir: &std::path::Path, jobs: &[&str]) -> (u64, u64) {
    let mut runtime = 1;
    loop {
        let rt = format!("--runtime={runtime}");
        let mut args = vec![
            "--output-format=json",
            "--ioengine=null",
            "--size=1g",
            "--time_based",
            &rt,
            "--thinktime=20",
            "--exitall",
        ];
        args.extend_from_slice(jobs);
        let v = run(dir, &args).ok().json();
        let (a, b) = (ios(&v["jobs"][0]), ios(&v["jobs"][1]));
        if a.min(b) >= FLOW_MIN_IOS || runtime >= 8 {
            return (a, b);
        }
        runtime *= 2;
    }
}

/// fio's flow.fio idea on the null engine: weights 1 and 8 in one flow give about 1:8
/// of the I/Os. Tolerance: the ratio within [5, 16] (the threads do not start and end
/// at the same instant); equal weights give about 1:1.
#[test]
fn flow_weights_split_ios_one_to_eight() {
    let d = scratch();
    let (a, b) = flow_pair(
        d.path(),
        &[
            "--name=job2",
            "--flow=1",
            "--name=job1",
            "--rw=randread",
            "--flow=8",
        ],
    );
    assert!(
        a >= FLOW_MIN_IOS && b >= FLOW_MIN_IOS,
        "both jobs ran: {a} {b}"
    );
    let r = b as f64 / a as f64;
    assert!(
        (5.0..=16.0).contains(&r),
        "flow 1:8 gave {a}:{b} (ratio {r:.2})"
    );
    // the same jobs with equal weights: no such ratio is imposed (a weight of 2 each
    // keeps them within 25% of each other)
    let (a, b) = flow_pair(
        d.path(),
        &["--name=fwd", "--flow=2", "--name=back", "--flow=2"],
    );
    let r = b as f64 / a as f64;
    assert!((0.75..=1.34).contains(&r), "flow 2:2 gave {a}:{b}");
}

/// Separate flow ids do not couple: a flow=1 job alone in flow_id=1 is never held
/// back by a flow=8 job in flow_id=2, and flow_sleep is accepted (fio's µs).
#[test]
fn flow_ids_are_separate() {
    let d = scratch();
    let v = run(
        d.path(),
        &[
            "--output-format=json",
            "--ioengine=null",
            "--number_ios=20000",
            "--flow_sleep=100",
            "--name=a",
            "--flow=1",
            "--flow_id=1",
            "--name=b",
            "--flow=8",
            "--flow_id=2",
        ],
    )
    .ok()
    .json();
    // both finish their number_ios: neither was starved
    assert_eq!(ios(&v["jobs"][0]), 20000);
    assert_eq!(ios(&v["jobs"][1]), 20000);
}

/// A rate-limited null job is steady: `ss=iops:10%` over 2 s stops it long before its
/// 30 s runtime; JSON carries fio's steadystate object and the summary says when.
#[test]
fn steady_state_stops_a_job_early() {
    let d = scratch();
    let args = [
        "--name=ss",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        "--runtime=30",
        "--rate_iops=2000",
        "--ss=iops:10%",
        "--ss_dur=2",
    ];
    let t0 = Instant::now();
    let mut a = vec!["--output-format=json"];
    a.extend(args);
    let v = run(d.path(), &a).ok().json();
    assert!(
        t0.elapsed() < Duration::from_secs(15),
        "steady state not detected: ran {:?}",
        t0.elapsed()
    );
    let j = &v["jobs"][0];
    let ss = &j["steadystate"];
    assert_eq!(ss["ss"], "iops:10.000000%");
    assert_eq!(ss["duration"], 2);
    assert_eq!(ss["attained"], 1);
    assert!(ss["criterion"].as_str().unwrap().ends_with('%'));
    let c: f64 = ss["criterion"]
        .as_str()
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!(c < 10.0, "criterion {c} must be below the limit");
    let iops = ss["data"]["iops"].as_array().unwrap();
    assert_eq!(iops.len(), 2, "one sample per second of ss_dur");
    for x in iops {
        let x = x.as_u64().unwrap();
        assert!(
            (1500..=2500).contains(&x),
            "a 1 s sample of a 2000 IOPS job: {x}"
        );
    }
    assert_eq!(ss["data"]["bw"].as_array().unwrap().len(), 2);
    // bytes/s and IOPS are each rounded down per second: within one 4 KiB block
    let (bw, io) = (
        ss["data"]["bw"][0].as_u64().unwrap(),
        iops[0].as_u64().unwrap(),
    );
    assert!(bw.abs_diff(io * 4096) < 4096, "bw {bw} vs iops {io} × 4096");
    assert!(j["job_runtime"].as_u64().unwrap() < 15_000);
    // the human summary names it
    let out = run(d.path(), &args).ok().stdout;
    assert!(
        out.contains("steadystate  : attained=yes (steady state attained after"),
        "{out}"
    );
}

/// A criterion that cannot be met (deviation below 0 %) runs to the runtime and
/// reports attained=0 with the window data; with group_reporting the group has one
/// steadystate object.
#[test]
fn steady_state_not_attained_runs_to_runtime() {
    let d = scratch();
    let t0 = Instant::now();
    let v = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=ss",
            "--ioengine=null",
            "--size=1g",
            "--time_based",
            "--runtime=3",
            "--rate_iops=1000",
            "--numjobs=2",
            "--group_reporting",
            "--ss=bw_slope:0%",
            "--ss_dur=2",
        ],
    )
    .ok()
    .json();
    assert!(t0.elapsed() >= Duration::from_secs(3));
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "group_reporting: one entry");
    let ss = &jobs[0]["steadystate"];
    assert_eq!(ss["attained"], 0);
    assert_eq!(ss["ss"], "bw_slope:0.000000%");
    // the group's samples sum both threads: about 2 × 1000 IOPS
    let x = ss["data"]["iops"][0].as_u64().unwrap();
    assert!((1500..=2500).contains(&x), "group sample {x}");
}

/// ss= without ss_dur does nothing in fio: iomark says so and runs normally.
#[test]
fn steadystate_without_duration_is_a_notice() {
    let d = scratch();
    let o = run(
        d.path(),
        &["--name=x", "--ioengine=null", "--size=1m", "--ss=iops:5%"],
    );
    o.ok();
    let err = o.stderr;
    assert!(
        err.contains("steadystate= has no effect without steadystate_duration"),
        "{err}"
    );
    let o = run(
        d.path(),
        &[
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--ss=iops",
            "--ss_dur=2",
        ],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("'ss'"));
}

fn engine_of(v: &Value) -> String {
    v["jobs"][0]["job options"]["ioengine"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// A target no I/O can miss: the search doubles 1 → 2 → 4 → 8 = iodepth, runs one
/// final window there and ends the job long before its runtime; JSON reports the
/// depth with fio's units (target ns, window µs).
#[test]
fn latency_target_finds_full_depth_and_ends_early() {
    let d = scratch();
    let t0 = Instant::now();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=lt",
            "--ioengine=io_uring",
            "--rw=randread",
            "--size=4m",
            "--iodepth=8",
            "--time_based",
            "--runtime=30",
            "--latency_target=10s",
            "--latency_window=50000",
            "--latency_percentile=99.9",
        ],
    );
    let stderr = o.stderr.clone();
    let v = o.ok().json();
    let j = &v["jobs"][0];
    assert!(
        t0.elapsed() < Duration::from_secs(15),
        "search did not end the job"
    );
    assert_eq!(j["latency_target"], 10_000_000_000u64);
    assert_eq!(j["latency_window"], 50_000);
    assert_eq!(j["latency_percentile"], 99.9);
    if stderr.contains("run on psync instead") {
        skip(format_args!(
            "depth check: io_uring not permitted here ({})",
            engine_of(&v)
        ));
        assert_eq!(j["latency_depth"], 1);
        return;
    }
    assert_eq!(j["latency_depth"], 8);
    // the report is the final window's only (statistics restart at the depth found)
    assert!(j["job_runtime"].as_u64().unwrap() < 1000);
}

/// Targets no I/O can meet (1 ns, psync on a file): with latency_percentile < 100 the
/// depth stays 1 and the job runs on; with 100 the first late I/O at depth 1 fails the
/// job (exit 1), as fio.
#[test]
fn latency_target_unmeetable() {
    let d = scratch();
    let v = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=lt",
            "--size=1m",
            "--iodepth=4",
            "--time_based",
            "--runtime=1",
            "--latency_target=1ns",
            "--latency_window=100ms",
            "--latency_percentile=50",
        ],
    )
    .ok()
    .json();
    assert_eq!(v["jobs"][0]["latency_depth"], 1);
    assert!(ios(&v["jobs"][0]) > 0);
    let o = run(
        d.path(),
        &[
            "--name=lt",
            "--size=1m",
            "--latency_target=1ns",
            "--latency_window=100ms",
        ],
    );
    assert_eq!(o.code, 1);
    let err = o.stderr;
    assert!(
        err.contains("exceeds latency_target=1 ns at queue depth 1"),
        "{err}"
    );
    // a target without a window is refused, naming both keys
    let o = run(
        d.path(),
        &[
            "--name=lt",
            "--ioengine=null",
            "--size=1m",
            "--latency_target=1ms",
        ],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("latency_window"));
}

/// Rated async job: offload holds rate_iops and measures latency from issue to
/// completion (completions are reaped while the submitter waits), so clat stays far
/// below the 5 ms spacing; inline mode (fio's default) keeps the rate too.
/// Tolerances: IOPS within 16 % of 50; mean clat below 10 ms, half the 20 ms spacing
/// (when completions waited until the queue of 8 filled it was several spacings, ~70 ms
/// at this rate; on a loaded machine scheduling alone can add milliseconds).
#[test]
fn offload_keeps_rate_and_latency() {
    let d = scratch();
    for mode in ["offload", "inline"] {
        let o = run(
            d.path(),
            &[
                "--output-format=json",
                "--name=r",
                "--ioengine=libaio",
                "--rw=randread",
                "--size=8m",
                "--iodepth=8",
                "--rate_iops=50",
                "--time_based",
                "--runtime=2",
                &format!("--io_submit_mode={mode}"),
            ],
        );
        let v = o.ok().json();
        let r = &v["jobs"][0]["read"];
        let iops = r["iops"].as_f64().unwrap();
        assert!((42.0..=58.0).contains(&iops), "{mode}: IOPS {iops}");
        let clat = r["clat_ns"]["mean"].as_f64().unwrap();
        assert!(clat < 10e6, "{mode}: mean clat {clat} ns");
    }
    // a synchronous engine cannot offload: refused, naming the key
    let o = run(
        d.path(),
        &[
            "--name=r",
            "--size=1m",
            "--io_submit_mode=offload",
            "--rate_iops=10",
        ],
    );
    assert_eq!(o.code, 2);
    let err = o.stderr;
    assert!(err.contains("io_submit_mode=offload"), "{err}");
    let o = run(
        d.path(),
        &["--name=r", "--size=1m", "--io_submit_mode=thread"],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("'io_submit_mode'"));
}

/// `threads=1` (steadystate.fio) is fio's tiobench-profile thread count, not `thread`:
/// accepted with a notice, an integer; `threads=abc` is refused like fio does.
#[test]
fn threads_key_is_the_tiobench_count() {
    let d = scratch();
    let o = run(
        d.path(),
        &["--name=x", "--ioengine=null", "--size=1m", "--threads=1"],
    );
    o.ok();
    let err = o.stderr;
    assert!(
        err.contains("threads= is fio's tiobench-profile thread count"),
        "{err}"
    );
    let o = run(
        d.path(),
        &["--name=x", "--ioengine=null", "--size=1m", "--threads=abc"],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("'threads'"));
}
