//! `iomark run` engine options: the io_uring → psync fallback when the
//! kernel denies io_uring (injected with the test-only `IOMARK_TEST_DENY_IO_URING=1`),
//! `--engine-strict`, `sqthread_poll`/`sqthread_poll_cpu`, `hipri`'s rules, and how
//! libaio and io_uring hand a batch of `iodepth_batch_submit` requests over.

use crate::util::*;

/// `iomark run ARGS` in `dir` with `env` (and without an inherited io_uring denial).
fn iomark(dir: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> Out {
    Iomark::new()
        .dir(dir)
        .env_remove("IOMARK_TEST_DENY_IO_URING")
        .envs(env)
        .arg("run")
        .args(args)
        .run()
}

const DENY: (&str, &str) = ("IOMARK_TEST_DENY_IO_URING", "1");

/// Whether io_uring works here without the injected denial: a 4 KiB job that may not
/// fall back (`--engine-strict`) runs.
fn io_uring_works() -> bool {
    let d = scratch();
    let args = [
        "--engine-strict",
        "--name=p",
        "--ioengine=io_uring",
        "--size=4k",
        "--filename=p",
    ];
    iomark(d.path(), &[], &args).code == 0
}

#[test]
fn denied_io_uring_falls_back_to_psync_with_one_warning() {
    let d = scratch();
    let args = [
        "--name=a",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--rw=randread",
        "--bs=4k",
        "--size=256k",
        "--numjobs=2",
        "--filename=f",
    ];
    let r = iomark(d.path(), &[DENY], &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let warnings: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(
        warnings.len(),
        1,
        "one warning for two threads: {}",
        r.stderr
    );
    assert!(warnings[0].contains("io_uring is unavailable: not permitted"));
    assert!(warnings[0].contains("run on psync"));
    // both threads really ran on psync and did every I/O: 2 × 256 KiB / 4 KiB
    // fio's header line of the section names the engine that ran
    let section: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains(": (g=0):"))
        .collect();
    assert_eq!(section.len(), 1, "{}", r.stdout);
    assert!(section[0].contains("ioengine=psync,"), "{}", r.stdout);
    assert!(!r.stdout.contains("ioengine=io_uring"), "{}", r.stdout);
    let json = iomark(
        d.path(),
        &[DENY],
        &[&args[..], &["--output-format=json"]].concat(),
    );
    assert_eq!(json.code, 0);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("stdout is pure JSON");
    let ios: u64 = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["read"]["total_ios"].as_u64().unwrap())
        .sum();
    assert_eq!(ios, 2 * 64);
}

#[test]
fn engine_strict_refuses_instead_of_falling_back() {
    let d = scratch();
    let r = iomark(
        d.path(),
        &[DENY],
        &[
            "--engine-strict",
            "--name=a",
            "--ioengine=io_uring",
            "--rw=randread",
            "--size=64k",
            "--filename=f",
        ],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("--engine-strict"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    assert!(
        !d.path().join("f").exists(),
        "refused before any file is laid out"
    );
    // --engine-strict does not affect engines that are not io_uring
    let r = iomark(
        d.path(),
        &[DENY],
        &[
            "--engine-strict",
            "--name=a",
            "--rw=read",
            "--size=64k",
            "--filename=f",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn sqthread_poll_runs_every_io_on_io_uring() {
    if !io_uring_works() {
        skip("io_uring is not available here");
        return;
    }
    let d = scratch();
    let r = iomark(
        d.path(),
        &[],
        &[
            "--name=a",
            "--ioengine=io_uring",
            "--sqthread_poll=1",
            "--sqthread_poll_cpu=0",
            "--iodepth=16",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--filename=f",
            "--output-format=json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 256);
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 1 << 20);
    // and the ring really polls: the kernel's submission thread (`iou-sqp-PID`) joins the
    // process while a sqthread_poll job runs, and not for the same job without it
    assert!(
        sq_thread_seen(d.path(), true),
        "sqthread_poll=1: no iou-sqp thread"
    );
    assert!(
        !sq_thread_seen(d.path(), false),
        "an iou-sqp thread without sqthread_poll"
    );
}

/// Runs a 2 s io_uring job (with or without `sqthread_poll`) and watches its threads
/// until an `iou-sqp-*` thread appears or the job ends; whether one was seen.
fn sq_thread_seen(dir: &std::path::Path, poll: bool) -> bool {
    let mut c = std::process::Command::new(BIN);
    c.current_dir(dir)
        .env_remove("IOMARK_TEST_DENY_IO_URING")
        .args(["run", "--name=a", "--ioengine=io_uring", "--iodepth=4"])
        .args(["--rw=randread", "--bs=4k", "--size=1m", "--filename=f"])
        .args(["--time_based", "--runtime=2", "--output-format=json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if poll {
        c.arg("--sqthread_poll=1");
    }
    let mut child = c.spawn().unwrap();
    let tasks = format!("/proc/{}/task", child.id());
    let mut seen = false;
    while !seen && child.try_wait().unwrap().is_none() {
        seen = std::fs::read_dir(&tasks)
            .into_iter()
            .flatten()
            .flatten()
            .any(|t| {
                std::fs::read_to_string(t.path().join("comm"))
                    .is_ok_and(|c| c.starts_with("iou-sqp"))
            });
        std::thread::yield_now();
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "the 2 s io_uring job failed: {status}");
    seen
}

#[test]
fn hipri_and_sqpoll_rules() {
    let d = scratch();
    let base = ["--name=a", "--rw=randread", "--size=64k", "--filename=f"];
    for (extra, want) in [
        (vec!["--ioengine=io_uring", "--hipri=1"], "needs direct=1"),
        (
            vec!["--ioengine=psync", "--hipri=1", "--direct=1"],
            "hipri is an option of ioengine=io_uring or ioengine=pvsync2, not of ioengine=psync",
        ),
        (
            vec!["--sqthread_poll=1"],
            "sqthread_poll is an option of ioengine=io_uring, not of ioengine=psync",
        ),
        (
            vec!["--ioengine=io_uring", "--sqthread_poll_cpu=x"],
            "sqthread_poll_cpu",
        ),
        (vec!["--allow-destructive-write"], "needs the device"),
    ] {
        let r = iomark(d.path(), &[], &[&base[..], &extra[..]].concat());
        assert_eq!(r.code, 2, "{extra:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(r.stderr.contains(want), "{extra:?}: {}", r.stderr);
        assert!(!d.path().join("f").exists());
    }
}

#[test]
fn hipri_on_a_disk_without_poll_queues_is_refused_before_io() {
    let d = scratch();
    let Some((disk, false)) =
        iomark::files::dataset::poll_capable(&iomark::probe::Root::default(), d.path())
    else {
        absent_here("the scratch disk polls, or cannot be told");
        return;
    };
    let r = iomark(
        d.path(),
        &[],
        &[
            "--name=a",
            "--ioengine=io_uring",
            "--hipri=1",
            "--direct=1",
            "--rw=randread",
            "--size=64k",
            "--filename=f",
        ],
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{disk} has none")),
        "{}",
        r.stderr
    );
    assert!(!d.path().join("f").exists());
}

#[test]
fn io_uring_qd32_counts_every_io_and_splits_latency() {
    if !io_uring_works() {
        skip("io_uring is not available here");
        return;
    }
    let d = scratch();
    // 2 MiB in 4 KiB requests at QD32, sizes mixed so lengths are checked per request
    let r = iomark(
        d.path(),
        &[],
        &[
            "--name=a",
            "--ioengine=io_uring",
            "--iodepth=32",
            "--rw=randrw",
            "--bs=4k",
            "--size=2m",
            "--filename=f",
            "--output-format=json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let j = &v["jobs"][0];
    let (rd, wr) = (&j["read"], &j["write"]);
    let ios = rd["total_ios"].as_u64().unwrap() + wr["total_ios"].as_u64().unwrap();
    assert_eq!(ios, 512, "every issued I/O completed and counted once");
    let bytes = rd["io_bytes"].as_u64().unwrap() + wr["io_bytes"].as_u64().unwrap();
    assert_eq!(bytes, 2 << 20);
    for d in [rd, wr] {
        // lat = slat + clat for every I/O (t0 → flush → reap), so the means add up
        let (s, c, l) = (
            d["slat_ns"]["mean"].as_f64().unwrap(),
            d["clat_ns"]["mean"].as_f64().unwrap(),
            d["lat_ns"]["mean"].as_f64().unwrap(),
        );
        assert!(s > 0.0 && c > 0.0, "slat {s} clat {c}");
        assert!((s + c - l).abs() <= 1e-6 * l + 1.0, "{s} + {c} != {l}");
        assert_eq!(d["slat_ns"]["N"], d["clat_ns"]["N"]);
    }
}

/// `iodepth_batch_submit=8` at iodepth 32 with `iodepth_batch_complete_min=8`: libaio
/// and io_uring hand the queue to the kernel whenever 8 requests are queued, one
/// submission per batch, as fio 3.33's `td_io_queue` commits (io_uring submitted each
/// request in its own `io_uring_enter`, and the first fill counted as one submission of
/// 32). 1024 requests: 4 batches fill the queue (in flight at their hand-over 8, 16,
/// 24, 32), then each reap of 8 is refilled by one batch at 32, so every submission is
/// of 8 (128 of them) and the depth levels are 8/1024, 16/1024 and 1000/1024 — fio's
/// own figures for this job.
#[test]
fn a_submit_batch_is_handed_over_whole_as_fios_commit() {
    if !io_uring_works() {
        skip("io_uring is not available here");
        return;
    }
    let d = scratch();
    for engine in ["libaio", "io_uring"] {
        let r = iomark(
            d.path(),
            &[],
            &[
                "--name=b",
                &format!("--ioengine={engine}"),
                "--iodepth=32",
                "--iodepth_batch_submit=8",
                "--iodepth_batch_complete_min=8",
                "--rw=randread",
                "--bs=4k",
                "--size=4m",
                "--filename=f",
                "--output-format=json",
            ],
        );
        assert_eq!(r.code, 0, "{engine}: {}", r.stderr);
        let j = &r.json()["jobs"][0];
        assert_eq!(j["read"]["total_ios"], 1024, "{engine}");
        assert_eq!(j["read"]["slat_ns"]["N"], 1024, "{engine}");
        let pct = |k: &str, b: &str| j[k][b].as_f64().unwrap();
        assert_eq!(pct("iodepth_submit", "8"), 100.0, "{engine}: {j}");
        assert_eq!(pct("iodepth_submit", "32"), 0.0, "{engine}: {j}");
        let levels = ["8", "16", "32"].map(|b| pct("iodepth_level", b));
        assert_eq!(levels, [0.78125, 1.5625, 97.65625], "{engine}: {j}");
    }
}
