//! `iomark run` under injected faults (`IOMARK_FAULT`, test-only): a failed request
//! stops the job with op, file, offset and errno (exit 1) unless fio's
//! `continue_on_error` covers its kind; then it is counted as an error — never as done —
//! the job goes on, and the run still exits 1 with the first error named. The RunResult
//! (`--json`) and fio JSON (`total_err`) say the same.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// A 1 MiB 4 KiB sequential-write job under `fault`, plus `extra`: its output and the
/// RunResult (`--json=r.json`), which must parse after a failure too.
fn write_job(dir: &Path, fault: &str, extra: &[&str]) -> (Out, Value) {
    let mut args = vec![
        "--name=w",
        "--filename=f",
        "--size=1m",
        "--bs=4k",
        "--rw=write",
        "--json=r.json",
    ];
    args.extend_from_slice(extra);
    let o = run_fault(dir, fault, &args);
    let j: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap())
        .expect("the RunResult parses after a failure");
    (o, j)
}

#[test]
fn write_eio_stops_the_job_and_is_not_counted() {
    let d = scratch();
    let (o, j) = write_job(d.path(), "write:eio@10", &[]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let e = o.stderr;
    // op, file, offset (9 x 4096 = 36864) and errno
    assert!(
        e.contains("write") && e.contains("36864") && e.contains("Input/output error"),
        "{e}"
    );
    assert!(!e.contains("panicked"));
    assert_eq!(j["status"], "failed");
    assert_eq!(
        j["error"].as_str().map(|s| s.contains("36864")),
        Some(true),
        "{j}"
    );
}

#[test]
fn continue_on_error_write_goes_on_counts_the_error_and_exits_1() {
    let d = scratch();
    let (o, j) = write_job(
        d.path(),
        "write:eio@10",
        &["--continue_on_error=write", "--output-format=json"],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("1 I/O error(s) continued past (continue_on_error); first:"),
        "{}",
        o.stderr
    );
    // 256 writes issued (fio 3.33's `total_ios` counts the failed one: fio_compat::failed),
    // one failed: 255 done, the failed one is not (its bytes, IOPS and latency)
    let fio: Value = serde_json::from_str(&o.stdout).expect("stdout is only fio JSON");
    let w = &fio["jobs"][0]["write"];
    assert_eq!(w["total_ios"], 256);
    assert_eq!(w["io_bytes"], 255 * 4096);
    assert_eq!(w["clat_ns"]["N"], 255);
    assert_eq!(fio["jobs"][0]["total_err"], 1);
    assert_eq!(j["write"]["ops"], 255);
    assert_eq!(j["status"], "failed");
}

#[test]
fn continue_on_error_read_does_not_cover_writes() {
    let d = scratch();
    let (o, j) = write_job(d.path(), "write:eio@10", &["--continue_on_error=read"]);
    assert_eq!(o.code, 1);
    assert!(!o.stderr.contains("continued past"), "{}", o.stderr);
    assert_eq!(j["status"], "failed");
}

#[test]
fn bad_continue_on_error_value_is_a_one_line_error() {
    let d = scratch();
    let o = Iomark::new()
        .dir(d.path())
        .args([
            "run",
            "--name=w",
            "--filename=f",
            "--size=64k",
            "--rw=write",
            "--continue_on_error=sometimes",
        ])
        .run();
    assert_eq!(o.code, 2);
    let e = o.stderr;
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("continue_on_error") && e.contains("sometimes"),
        "{e}"
    );
    assert!(!d.path().join("f").exists());
}
