//! `iomark run` findings of a fresh-user test, each checked against fio 3.33: the JSON
//! `job_runtime` of a `group_reporting` group (fio sums the threads' run times),
//! `io_size=N%`, fractional times, `random_distribution` parameter ranges, `filesize`
//! ranges (reversed, and a random size per file), the sync line's name and the
//! message of a job file without jobs.

mod common;

use common::BIN;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .arg("run")
        .args(args)
        .output()
        .expect("spawn iomark")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_ok(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("stdout is fio JSON")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

#[test]
fn group_reporting_job_runtime_sums_the_threads() {
    let d = common::scratch();
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
    let j = json_ok(&run_in(d.path(), &a));
    let jobs = j["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    let rt = u(&jobs[0]["read"]["runtime"]);
    let sum = u(&jobs[0]["job_runtime"]);
    assert!(rt >= 1000, "time_based runtime=1: {rt} ms");
    // two threads of at least 1000 ms each, none longer than the longest
    assert!(sum >= 2000 && sum <= 2 * rt, "job_runtime {sum}, runtime {rt}");
    // without group_reporting each job reports its own thread's time
    let j = json_ok(&run_in(d.path(), &base));
    for job in j["jobs"].as_array().unwrap() {
        let rt = u(&job["read"]["runtime"]);
        assert_eq!(u(&job["job_runtime"]), rt, "{job}");
    }
}
