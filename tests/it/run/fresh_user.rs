//! `iomark run` findings of a fresh-user test, each checked against fio 3.33: the JSON
//! `job_runtime` of a `group_reporting` group (fio sums the threads' run times),
//! `io_size=N%`, fractional times, `random_distribution` parameter ranges, `filesize`
//! ranges (reversed, and a random size per file), the sync line's name and the
//! message of a job file without jobs.

use crate::util::*;
use std::path::Path;

#[test]
fn group_reporting_job_runtime_sums_the_threads() {
    let d = scratch();
    // fio 3.33: numjobs=2 runtime=1 time_based group_reporting → job_runtime 2000,
    // read.runtime 1000 (the longest thread)
    let base = [
        "--name=g",
        "--ioengine=null",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--numjobs=2",
        "--runtime=1",
        "--time_based",
        "--output-format=json",
    ];
    let mut a = base.to_vec();
    a.push("--group_reporting");
    let j = run(d.path(), &a).ok().json();
    let jobs = j["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    let rt = as_u64(&jobs[0]["read"]["runtime"]);
    let sum = as_u64(&jobs[0]["job_runtime"]);
    assert!(rt >= 1000, "time_based runtime=1: {rt} ms");
    // two threads of at least 1000 ms each, none longer than the longest
    assert!(
        sum >= 2000 && sum <= 2 * rt,
        "job_runtime {sum}, runtime {rt}"
    );
    // without group_reporting each job reports its own thread's time: whole ms since
    // the job's start, where the direction's runtime is whole µs rounded up to ms (fio
    // 3.33 prints 1000 and 1001 for this job), so at most 1 ms apart
    let j = run(d.path(), &base).ok().json();
    for job in j["jobs"].as_array().unwrap() {
        let rt = as_u64(&job["read"]["runtime"]);
        let jr = as_u64(&job["job_runtime"]);
        assert!(
            jr <= rt && rt <= jr + 1,
            "job_runtime {jr}, runtime {rt}: {job}"
        );
    }
}

/// `read.io_bytes` of a 4 KiB read job in `dir` with `extra` options.
fn read_bytes(dir: &Path, extra: &[&str]) -> u64 {
    let mut a = vec!["--name=r", "--rw=read", "--bs=4k", "--output-format=json"];
    a.extend_from_slice(extra);
    let j = run(dir, &a).ok().json();
    as_u64(&j["jobs"][0]["read"]["io_bytes"])
}

#[test]
fn io_size_percent_is_a_share_of_size_as_in_fio() {
    let d = scratch();
    // figures from fio 3.33 with the same options
    assert_eq!(
        read_bytes(d.path(), &["--size=1m", "--io_size=50%"]),
        524_288
    );
    // 33 % of 1 MiB = 346,030 bytes: the last block goes past it (85 blocks)
    assert_eq!(
        read_bytes(d.path(), &["--size=1m", "--io_size=33%"]),
        348_160
    );
    assert_eq!(read_bytes(d.path(), &["--size=1m", "--io_size=1%"]), 12_288);
    assert_eq!(
        read_bytes(d.path(), &["--size=1m", "--io_size=100%"]),
        1_048_576
    );
    // 0 % is unset: one pass of size
    assert_eq!(
        read_bytes(d.path(), &["--size=1m", "--io_size=0%"]),
        1_048_576
    );
    // a share of all the thread's files
    assert_eq!(
        read_bytes(
            d.path(),
            &["--filesize=1m", "--nrfiles=2", "--io_limit=50%"]
        ),
        1_048_576
    );
    // a later byte count replaces the percentage
    assert_eq!(
        read_bytes(d.path(), &["--size=1m", "--io_size=50%", "--io_size=8k"]),
        8192
    );
    for (v, why) in [
        ("150%", "above 100%"),
        ("1.5%", "whole percentage"),
        ("-5%", "at least 0"),
    ] {
        let o = run(
            d.path(),
            &["--name=r", "--size=1m", &format!("--io_size={v}")],
        );
        assert_eq!(o.code, 2, "{v}");
        let e = o.stderr;
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains("io_size") && e.contains(why), "{v}: {e}");
    }
}

#[test]
fn fractional_times_are_refused_naming_the_key() {
    let d = scratch();
    // fio 3.33 truncates (ramp_time=0.5 is no ramp at all); iomark refuses and says how
    for (opt, key, hint) in [
        ("--ramp_time=0.5", "ramp_time", "500ms"),
        ("--runtime=1.5", "runtime", "1500ms"),
    ] {
        let o = run(d.path(), &["--name=t", "--ioengine=null", "--size=1m", opt]);
        assert_eq!(o.code, 2, "{opt}");
        let e = o.stderr;
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(&format!("'{key}'")), "{e}");
        assert!(
            e.contains("fractions are not accepted; use a smaller unit such as ")
                && e.contains(hint),
            "{e}"
        );
    }
}

#[test]
fn distribution_parameters_outside_fios_ranges_are_refused() {
    let d = scratch();
    // fio 3.33: "zipf theta must different than 1.0", "pareto input out of range
    // (0 < input < 1.0)", "normal deviation out of range (0 <= input < 100.0)"
    for (v, why) in [
        ("zipf:1", "different from 1.0"),
        ("pareto:1", "(0, 1)"),
        ("pareto:0", "(0, 1)"),
        ("normal:100", "(0, 100)"),
    ] {
        let o = run(
            d.path(),
            &[
                "--name=z",
                "--ioengine=null",
                "--rw=randread",
                "--size=1m",
                &format!("--random_distribution={v}"),
            ],
        );
        assert_eq!(o.code, 2, "{v}");
        let e = o.stderr;
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.contains("random_distribution") && e.contains(why),
            "{v}: {e}"
        );
    }
}
