//! `iomark run` with the engines that move no data (filecreate, dirstat, cpuio), fio's
//! `create_only`, and log files numbered over all jobs' threads as fio numbers them.
//! The engines' own units are in src/engine/fileops.rs, falloc.rs and cpuio.rs.

use crate::util::*;

#[test]
fn filecreate_makes_each_file_once_and_times_it() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=c",
            "--ioengine=filecreate",
            "--nrfiles=3",
            "--filesize=4k",
            "--openfiles=1",
        ],
    );
    let v = o.ok().json();
    let r = &v["jobs"][0]["read"];
    // one request per file (a file is one block), the create timed as its clat
    assert_eq!(r["total_ios"].as_u64(), Some(3), "{r}");
    assert!(r["clat_ns"]["mean"].as_f64().unwrap() > 0.0);
    for i in 0..3 {
        let p = d.path().join(format!("c.0.{i}"));
        assert_eq!(std::fs::metadata(&p).map(|m| m.len()).ok(), Some(0), "{}", p.display());
    }
    // dirstat makes its directories and stats each
    let o = run(
        d.path(),
        &["--output-format=json", "--name=s", "--ioengine=dirstat", "--nrfiles=2", "--filesize=4k"],
    );
    let v = o.ok().json();
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(2));
    assert!(d.path().join("s.0.1").is_dir());
}

#[test]
fn cpuio_burns_its_share_and_refuses_no_load() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=cpu",
            "--ioengine=cpuio",
            "--cpuload=50",
            "--cpuchunks=10000",
            "--time_based",
            "--runtime=1",
        ],
    );
    let v = o.ok().json();
    // a 10 ms burn and a 10 ms pause per request: about 50 requests a second
    let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!((25..=55).contains(&ios), "{ios} requests");
    let o = run(d.path(), &["--name=cpu", "--ioengine=cpuio", "--time_based", "--runtime=1"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("cpuload="), "{}", o.stderr);
}

#[test]
fn create_only_lays_out_and_runs_no_io() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--create_only=1",
            "--filename=prep",
            "--size=1m",
            "--zero_buffers=0",
            "--name=prepare",
        ],
    );
    let v = o.ok().json();
    let j = &v["jobs"][0];
    assert_eq!(j["error"].as_i64(), Some(0));
    assert_eq!(j["read"]["io_bytes"].as_u64(), Some(0));
    assert_eq!(j["write"]["io_bytes"].as_u64(), Some(0));
    assert_eq!(std::fs::metadata(d.path().join("prep")).unwrap().len(), 1 << 20);
}

#[test]
fn logs_are_numbered_over_all_jobs_threads() {
    // fio-tests t0012: sections sharing one log prefix write _iops.1, .2, .3
    let d = scratch();
    let log = d.path().join("t").display().to_string();
    let o = run(
        d.path(),
        &[
            "--size=64k",
            &format!("--write_iops_log={log}"),
            "--name=a",
            "--name=b",
            "--numjobs=2",
        ],
    );
    o.ok();
    for n in 1..=3 {
        let p = d.path().join(format!("t_iops.{n}.log"));
        assert!(p.is_file(), "{} missing", p.display());
    }
}
