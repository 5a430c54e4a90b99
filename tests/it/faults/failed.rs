//! `iomark run` when a job fails (an I/O error without `continue_on_error`, a verify
//! mismatch): as fio, the report of the I/O completed before the failure is still printed
//! — text with `err=N (reason)` in the job line, fio JSON with `"error": errno`, the
//! RunResult (`--json`) with status `failed` and the job's phases — the reason goes to
//! stderr once, and the run exits 1. The other jobs of the run are unaffected. Faults
//! come from the test-only injector (`IOMARK_FAULT`).

use crate::util::*;
use serde_json::Value;

#[test]
fn write_error_keeps_the_fio_json_and_run_result_of_the_io_before_it() {
    let d = scratch();
    let o = run_fault(
        d.path(),
        "write:eio@10",
        &[
            "--name=w",
            "--filename=f",
            "--size=1m",
            "--bs=4k",
            "--rw=write",
            "--output-format=json",
            "--json=r.json",
        ],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    let doc = o.json();
    let w = job(&doc, "w");
    // the 10th write failed with EIO: 9 writes of 4 KiB completed before it; fio 3.33
    // counts the failed one as issued (`total_ios` 10), never its bytes (measured beside
    // fio: fio_compat::failed)
    let (failed_at, bs) = (10u64, 4096u64);
    assert_eq!(w["error"], libc::EIO, "{w}");
    assert_eq!(w["write"]["total_ios"], failed_at, "{w}");
    assert_eq!(w["write"]["io_bytes"], (failed_at - 1) * bs, "{w}");
    assert_eq!(w["write"]["clat_ns"]["N"], failed_at - 1, "{w}");
    assert!(w["job_runtime"].as_u64().is_some(), "{w}");
    // the keys fio prints for every job are there for a failed one too
    assert_eq!(w["latency_depth"], 1, "{w}");
    // the reason once on stderr, with op, offset and errno text
    let e = o.stderr;
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
    let d = scratch();
    let o = run_fault(
        d.path(),
        "write:eio@5",
        &[
            "--name=w",
            "--filename=f",
            "--size=256k",
            "--bs=4k",
            "--rw=write",
        ],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    let s = o.stdout;
    assert!(
        s.contains("w: (groupid=0, jobs=1): err= 5 (Input/output error): pid="),
        "{s}"
    );
    // 4 writes of 4 KiB done: the write line is there
    assert!(s.contains("  write: IOPS="), "{s}");
}

#[test]
fn verify_mismatch_reports_eilseq_with_the_writes_and_reads_done() {
    let d = scratch();
    let o = run_fault(
        d.path(),
        "read:corrupt@3",
        &[
            "--name=v",
            "--filename=f",
            "--size=128k",
            "--bs=4k",
            "--rw=write",
            "--verify=crc32c",
            "--output-format=json",
        ],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    let doc = o.json();
    let v = job(&doc, "v");
    // fio's verify failures are EILSEQ
    assert_eq!(v["error"], libc::EILSEQ, "{v}");
    assert_eq!(v["write"]["total_ios"], 32, "{v}");
    assert!(o.stderr.contains("checksum mismatch"), "{}", o.stderr);
}

#[test]
fn other_jobs_run_on_and_report_no_error() {
    let d = scratch();
    std::fs::write(d.path().join("rf"), vec![7u8; 256 * 1024]).unwrap();
    let o = run_fault(
        d.path(),
        "write:eio@3",
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
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    let doc = o.json();
    // the 3rd write failed: 2 done, and the failed one issued (fio's `total_ios` 3)
    let bad = job(&doc, "bad");
    assert_eq!(bad["error"], libc::EIO);
    assert_eq!(bad["write"]["total_ios"], 3, "{bad}");
    assert_eq!(bad["write"]["io_bytes"], 2 * 4096, "{bad}");
    for name in ["good", "later"] {
        let j = job(&doc, name);
        assert_eq!(j["error"], 0, "{j}");
        assert_eq!(j["read"]["total_ios"], 64, "{j}");
    }
}

/// A minimum rate the job cannot reach (200 IOPS asked, 400 MiB/s required each 200 ms):
/// as fio 3.33's `__check_min_rate`, nothing is checked in the first 2 s, the first check
/// after them records the reads done, the next one a `ratecycle` later fails — EIO, the
/// reads done until then (about 2.2 s at 200 IOPS), the run ended long before its 5 s;
/// fio's lines: `r: rate_min=419430400B/s not met, got NB/s` on stderr (400m is read in
/// kb_base 1024) and the thread's `fio: pid=P, err=5/file:backend.c:1131,
/// func=check_min_rate, …` before the report, also in the job line.
#[test]
fn ratemin_not_met_reports_eio_after_fios_settle_period() {
    let d = scratch();
    std::fs::write(d.path().join("f"), vec![1u8; 1 << 20]).unwrap();
    let args = [
        "--name=r",
        "--filename=f",
        "--rw=read",
        "--bs=4k",
        "--time_based",
        "--runtime=5s",
        "--rate_iops=200",
        "--rate_min=400m",
        "--ratecycle=200ms",
    ];
    let json = [&args[..], &["--output-format=json"]].concat();
    let o = run_fault(d.path(), "", &json);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let r = job(&o.json(), "r").clone();
    // fio's check_min_rate failure is EIO
    assert_eq!(r["error"], libc::EIO, "{r}");
    // not before 2 s + one 200 ms cycle; far from the 5 s (1000 reads) of the whole run
    let ms = r["job_runtime"].as_u64().unwrap();
    assert!((2200..4900).contains(&ms), "{r}");
    let n = r["read"]["total_ios"].as_u64().unwrap();
    assert!((300..980).contains(&n), "{r}");
    // iomark run's line names the limit, the direction and the window
    let limit = "ratemin=419430400 B/s (reads) not met: ";
    assert!(o.stderr.contains(limit), "{}", o.stderr);
    assert!(o.stderr.contains(" B/s over the last 2"), "{}", o.stderr);
    let t = as_fio(d.path()).dir(d.path()).args(args).run();
    assert_eq!(t.code, 1, "{}", t.dump());
    let said = t
        .stderr
        .lines()
        .find(|l| l.starts_with("r: rate_min=419430400B/s not met, got "));
    let got: u64 = said
        .and_then(|l| l.rsplit("got ").next()?.strip_suffix("B/s")?.parse().ok())
        .unwrap_or_else(|| panic!("{}", t.dump()));
    // 200 IOPS of 4 KiB: about 800 KiB/s, whole bytes per second
    assert!(got < 419_430_400 && got > 100_000, "{got}");
    let account = "err=5/file:backend.c:1131, func=check_min_rate, error=Input/output error";
    assert!(
        t.stdout
            .lines()
            .any(|l| l.starts_with("fio: pid=") && l.ends_with(account)),
        "{}",
        t.dump()
    );
    assert!(
        t.stdout
            .contains("err= 5 (file:backend.c:1131, func=check_min_rate,"),
        "{}",
        t.stdout
    );
}

/// A run whose job threads failed keeps each thread's failure in its RunResult: how many
/// threads ended in error and each one's errno and line; compare's column says why the
/// run is partial with the first of them — two threads, the run's 10th write failing
/// with EIO (an injected fault: one thread fails, the other runs on). (A failed run is
/// not kept in the history.)
#[test]
fn a_failed_runs_thread_failures_are_kept_and_compared() {
    let d = scratch();
    let args = [
        "--name=w",
        "--filename=f",
        "--size=1m",
        "--bs=4k",
        "--rw=write",
    ];
    let more = ["--numjobs=2", "--group_reporting", "--json=r.json"];
    let o = run_fault(d.path(), "write:eio@10", &[&args[..], &more[..]].concat());
    assert_eq!(o.code, 1, "{}", o.dump());
    let kept = d.path().join("r.json");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
    let j = &r["jobs"][0];
    assert_eq!(
        (j["threads"].as_u64(), j["failed_threads"].as_u64()),
        (Some(2), Some(1)),
        "{j}"
    );
    let t = j["thread_failures"].as_array().unwrap();
    assert_eq!(t.len(), 1, "{j}");
    for f in t {
        assert_eq!(f["errno"], libc::EIO, "{f}");
        assert!(
            f["lines"][0]
                .as_str()
                .unwrap()
                .ends_with(": Input/output error"),
            "{f}"
        );
    }
    let c = Iomark::new()
        .args(["compare", kept.to_str().unwrap()])
        .run();
    assert_eq!(c.code, 0, "{}", c.dump());
    let partial = "PARTIAL: the run failed (job 'w': a thread ended in error, first: ";
    let line = c.stdout.lines().find(|l| l.contains(partial));
    // a run refused before any I/O: the error that stopped it
    let n = ["--numa_cpu_nodes=63", "--json=n.json"];
    let o = run_fault(d.path(), "", &[&args[..], &n[..]].concat());
    assert_eq!(o.code, 3, "{}", o.dump());
    let n = d.path().join("n.json");
    let c2 = Iomark::new().args(["compare", n.to_str().unwrap()]).run();
    let why = c2
        .stdout
        .lines()
        .find(|l| l.contains("PARTIAL: the run failed (job 'w'"));
    assert!(
        why.is_some_and(|l| l.contains("numa_cpu_nodes")),
        "{}",
        c2.dump()
    );
    assert!(
        line.is_some_and(|l| l.contains(" at offset ") && l.contains(": Input/output error")),
        "{}",
        c.stdout
    );
}
