//! One worker loop for every front end (src/run/worker/mod.rs): `fileio` and `run`
//! drive the same loop with their own rules, on engines the one registry builds
//! (src/engine/registry.rs). What these tests pin is what that shape promises: the
//! rules, not the engine, choose the requests; the retry policy is the rules'; the
//! fault wrapper reaches every engine of both front ends.

use crate::util::*;
use std::path::Path;

/// io_uring is refused here (`fileio --file-io-mode=async` exits 3).
fn io_uring_denied(dir: &Path) -> bool {
    let r = fileio(
        dir,
        &[
            "--file-num=2",
            "--file-total-size=4M",
            "--file-test-mode=rndrd",
            "--file-io-mode=async",
            "--events=1",
            "run",
        ],
    );
    r.code == 3
}

/// With one thread and a seed, sysbench's generator alone decides the requests: the
/// `--debug` request lines of a random-read run are the same on psync, mmap and
/// io_uring (an async event is a submission, the generator sees the same draws).
#[test]
fn the_rules_choose_the_requests_whatever_the_engine() {
    let d = scratch();
    let base = ["--file-num=4", "--file-total-size=1M"];
    let mut prep = base.to_vec();
    prep.push("prepare");
    assert_eq!(fileio(d.path(), &prep).code, 0);
    let lines = |mode: &str| {
        let m = format!("--file-io-mode={mode}");
        let mut a = base.to_vec();
        a.extend([
            "--file-test-mode=rndrd",
            "--events=40",
            "--time=0",
            "--rand-seed=3",
            "--debug=on",
            m.as_str(),
            "run",
        ]);
        let r = fileio(d.path(), &a);
        (r.code, debug_lines(&r.stdout))
    };
    let (code, sync) = lines("sync");
    assert_eq!(code, 0);
    assert_eq!(sync.len(), 40, "{sync:?}");
    let (code, mmap) = lines("mmap");
    assert_eq!(code, 0);
    assert_eq!(mmap, sync);
    if io_uring_denied(d.path()) {
        skip("io_uring not permitted here: async half");
        return;
    }
    let (code, uring) = lines("async");
    assert_eq!(code, 0);
    assert_eq!(uring, sync);
}

/// EINTR is retried under sysbench's rules (the run completes) and is the request's
/// error under fio's (the job fails naming it): the loop owns the retry, the rules
/// say how many.
#[test]
fn the_retry_policy_is_the_rules() {
    let d = scratch();
    let set = ["--file-num=2", "--file-total-size=4M"];
    let mut prep = set.to_vec();
    prep.push("prepare");
    assert_eq!(fileio(d.path(), &prep).code, 0);
    let mut a = vec!["fileio"];
    a.extend(set);
    a.extend(["--file-test-mode=rndrd", "--events=50", "--time=0", "run"]);
    let r = iomark_fault(d.path(), "read:eintr@3", &a);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let rep = parse_report(&r.stdout);
    assert_eq!(rep.events, 50);

    let f = d.path().join("test_file.0");
    let fname = format!("--filename={}", f.display());
    let r = iomark_fault(
        d.path(),
        "read:eintr@3",
        &[
            "run",
            "--name=j",
            &fname,
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--ioengine=psync",
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("Interrupted system call"), "{}", r.stderr);
}

/// The registry wraps every engine it builds while IOMARK_FAULT is set: a write error
/// injected at the 3rd write ends a `run` job on psync, mmap and io_uring alike
/// (io_uring denied here: it runs on psync, which must fail the same way).
#[test]
fn faults_reach_every_engine_of_run() {
    let d = scratch();
    let f = d.path().join("f");
    let fname = format!("--filename={}", f.display());
    for engine in ["psync", "mmap", "io_uring"] {
        // laid out already, so the 3rd write is the job's (an mmap job writing a new
        // file lays its data out first, as fio's, through the same write hook)
        std::fs::write(&f, vec![1u8; 1 << 20]).unwrap();
        let e = format!("--ioengine={engine}");
        let r = iomark_fault(
            d.path(),
            "write:eio@3",
            &[
                "run",
                "--name=j",
                &fname,
                "--rw=write",
                "--bs=4k",
                "--size=1m",
                &e,
                "--output-format=json",
            ],
        );
        assert_eq!(r.code, 1, "{engine}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("Input/output error"),
            "{engine}: {}",
            r.stderr
        );
        let j: serde_json::Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{engine}: not JSON ({e}): {}", r.stdout));
        // the two writes before the failure completed; the failed one is issued (fio's
        // `total_ios` counts it) but never done: its bytes are not counted. io_uring
        // reaps what it still had in flight when it met the error (fio's
        // cleanup_pending_aio), so it may count one more request, done
        let w = &j["jobs"][0]["write"];
        let (ios, bytes) = (
            w["total_ios"].as_u64().unwrap(),
            w["io_bytes"].as_u64().unwrap(),
        );
        if engine == "io_uring" {
            assert!((3..=4).contains(&ios), "{engine}: {w}");
        } else {
            assert_eq!(ios, 3, "{engine}: {w}");
        }
        assert_eq!(bytes, (ios - 1) * 4096, "{engine}: {w}");
    }
}

/// fio's rules take a lean path for a job that uses none of the features consulted per
/// request (src/run/worker/fio/pass.rs, `lean_of`); `max_latency=10s`, which no null
/// request comes near, puts the same job on the full path and changes nothing else.
/// Both account the same requests: the bytes and I/Os of each direction (4 MiB in
/// 1,024 requests of 4 KiB), the depth levels and the submit and complete counts, for
/// a sequential read, a random read and a random write.
#[test]
fn the_lean_path_accounts_a_job_as_the_full_one() {
    let d = scratch();
    for (rw, dir) in [
        ("read", "read"),
        ("randread", "read"),
        ("randwrite", "write"),
    ] {
        let figures = |extra: Option<&str>| {
            let rw = format!("--rw={rw}");
            let mut a = vec![
                "--output-format=json",
                "--name=j",
                "--ioengine=null",
                "--bs=4k",
                "--size=4m",
                "--randseed=7",
                rw.as_str(),
            ];
            a.extend(extra);
            let v = run(d.path(), &a).ok().json();
            let j = v["jobs"][0].clone();
            let moved = ["read", "write"].map(|k| {
                [
                    at_u64(&j, &format!("/{k}/io_bytes")),
                    at_u64(&j, &format!("/{k}/total_ios")),
                ]
            });
            let depths =
                ["iodepth_level", "iodepth_submit", "iodepth_complete"].map(|k| j[k].clone());
            (moved, depths)
        };
        let lean = figures(None);
        let (moved, idle) = if dir == "read" { (0, 1) } else { (1, 0) };
        assert_eq!(lean.0[moved], [4 << 20, 1024], "{rw}: {:?}", lean.0);
        assert_eq!(lean.0[idle], [0, 0], "{rw}: {:?}", lean.0);
        assert_eq!(figures(Some("--max_latency=10s")), lean, "{rw}");
    }
}
