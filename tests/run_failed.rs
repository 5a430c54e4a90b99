//! `iomark run` when a job fails (an I/O error without `continue_on_error`, a verify
//! mismatch): as fio, the report of the I/O completed before the failure is still printed
//! — text with `err=N (reason)` in the job line, fio JSON with `"error": errno`, the
//! RunResult (`--json`) with status `failed` and the job's phases — the reason goes to
//! stderr once, and the run exits 1. The other jobs of the run are unaffected. Faults
//! come from the test-only injector (`IOMARK_FAULT`).

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_iomark");

fn run(dir: &Path, args: &[&str], fault: &str) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .arg("run")
        .args(args)
        .env("IOMARK_FAULT", fault)
        .output()
        .unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            err(o)
        )
    })
}

fn job<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap_or_else(|| panic!("no job {name} in {doc}"))
}

#[test]
fn write_error_keeps_the_fio_json_and_run_result_of_the_io_before_it() {
    let d = tempfile::tempdir().unwrap();
    let o = run(
        d.path(),
        &[
            "--name=w",
            "--filename=f",
            "--size=1m",
            "--bs=4k",
            "--rw=write",
            "--output-format=json",
            "--json=r.json",
        ],
        "write:eio@10",
    );
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let doc = json_out(&o);
    let w = job(&doc, "w");
    // the 10th write failed with EIO: 9 writes of 4 KiB completed before it
    assert_eq!(w["error"], libc::EIO, "{w}");
    assert_eq!(w["write"]["total_ios"], 9, "{w}");
    assert_eq!(w["write"]["io_bytes"], 9 * 4096, "{w}");
    assert!(w["job_runtime"].as_u64().is_some(), "{w}");
    // the keys fio prints for every job are there for a failed one too
    assert_eq!(w["latency_depth"], 1, "{w}");
    // the reason once on stderr, with op, offset and errno text
    let e = err(&o);
    assert_eq!(e.matches("offset 36864").count(), 1, "{e}");
    assert!(e.contains("Input/output error"), "{e}");
    // the RunResult: failed, the reason, and the writes done
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(r["status"], "failed", "{r}");
    assert!(r["error"].as_str().unwrap().contains("36864"), "{r}");
    assert!(r.to_string().contains("\"write\""), "{r}");
}

#[test]
fn text_report_names_the_error_in_the_job_line() {
    let d = tempfile::tempdir().unwrap();
    let o = run(
        d.path(),
        &[
            "--name=w",
            "--filename=f",
            "--size=256k",
            "--bs=4k",
            "--rw=write",
        ],
        "write:eio@5",
    );
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("w: (groupid=0, jobs=1): err= 5 (Input/output error): engine="),
        "{s}"
    );
    // 4 writes of 4 KiB done: the write line is there
    assert!(s.contains("  write: IOPS="), "{s}");
}

#[test]
fn verify_mismatch_reports_eilseq_with_the_writes_and_reads_done() {
    let d = tempfile::tempdir().unwrap();
    let o = run(
        d.path(),
        &[
            "--name=v",
            "--filename=f",
            "--size=128k",
            "--bs=4k",
            "--rw=write",
            "--verify=crc32c",
            "--output-format=json",
        ],
        "read:corrupt@3",
    );
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let doc = json_out(&o);
    let v = job(&doc, "v");
    // fio's verify failures are EILSEQ
    assert_eq!(v["error"], libc::EILSEQ, "{v}");
    assert_eq!(v["write"]["total_ios"], 32, "{v}");
    assert!(err(&o).contains("checksum mismatch"), "{}", err(&o));
}

#[test]
fn other_jobs_run_on_and_report_no_error() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("rf"), vec![7u8; 256 * 1024]).unwrap();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--bs=4k",
            "--name=bad",
            "--filename=wf",
            "--size=1m",
            "--rw=write",
            "--name=good",
            "--filename=rf",
            "--rw=read",
            "--name=later",
            "--stonewall",
            "--filename=rf",
            "--rw=read",
        ],
        "write:eio@3",
    );
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let doc = json_out(&o);
    assert_eq!(job(&doc, "bad")["error"], libc::EIO);
    assert_eq!(job(&doc, "bad")["write"]["total_ios"], 2);
    for name in ["good", "later"] {
        let j = job(&doc, name);
        assert_eq!(j["error"], 0, "{j}");
        assert_eq!(j["read"]["total_ios"], 64, "{j}");
    }
}

#[test]
fn ratemin_not_met_reports_eio_with_the_reads_of_the_first_window() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("f"), vec![1u8; 1 << 20]).unwrap();
    // 200 IOPS asked, 100000 required per 200 ms window: the first check fails
    let o = run(
        d.path(),
        &[
            "--name=r",
            "--filename=f",
            "--rw=read",
            "--bs=4k",
            "--time_based",
            "--runtime=5s",
            "--rate_iops=200",
            "--rate_iops_min=100000",
            "--ratecycle=200ms",
            "--output-format=json",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let r = job(&json_out(&o), "r").clone();
    // fio's check_min_rate failure is EIO
    assert_eq!(r["error"], libc::EIO, "{r}");
    // about 200 ms at 200 IOPS: some tens of reads, far from 5 s worth (1000)
    let n = r["read"]["total_ios"].as_u64().unwrap();
    assert!((10..500).contains(&n), "{r}");
    let ms = r["job_runtime"].as_u64().unwrap();
    assert!((150..2000).contains(&ms), "{r}");
    assert!(err(&o).contains("rate_iops_min=100000"), "{}", err(&o));
}
