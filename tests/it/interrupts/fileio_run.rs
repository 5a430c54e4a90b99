//! `iomark fileio run` interrupted by SIGINT / SIGTERM while it runs: a partial report,
//! JSON saying `interrupted`, exit 130 / 143.

use crate::util::*;
use std::time::{Duration, Instant};

fn interrupted(sig: i32, code: i32) {
    let d = scratch();
    let dir = d.path();
    fileio(
        dir,
        &[
            "--file-total-size=8M",
            "--file-num=4",
            "--notes=off",
            "prepare",
        ],
    )
    .ok();
    let json = dir.join("r.json");
    let mut child = Iomark::new()
        .dir(dir)
        .args([
            "fileio",
            "--file-total-size=8M",
            "--file-num=4",
            "--file-test-mode=rndrw",
            "--time=30",
            "--notes=off",
        ])
        .fault("read:stop@300")
        .arg(format!("--json={}", json.display()))
        .arg("run")
        .spawn();
    signal_at_stop(&mut child, sig);
    let start = Instant::now();
    let out = finish(child);
    assert!(start.elapsed().as_secs() < 10, "stopped promptly");
    let stdout = &out.stdout;
    assert_eq!(out.code, code, "stdout:\n{stdout}\nstderr:\n{}", out.stderr);
    assert!(stdout.contains("total number of events:"), "{stdout}");
    let rep = parse_report(stdout);
    // stopped at the 300th read: the partial report counts those reads and the writes
    // beside them, over the time until the signal
    assert!(rep.total_time > 0.0 && rep.total_time < 10.0, "{rep:?}");
    assert!(rep.events >= 300, "{rep:?}");
    let j = read_json(&json);
    assert_eq!(j["status"], "interrupted");
    assert_eq!(j["events"].as_u64().unwrap(), rep.events);
    let stderr = &out.stderr;
    let name = if sig == libc::SIGINT {
        "SIGINT"
    } else {
        "SIGTERM"
    };
    assert!(
        stderr.contains(&format!("interrupted by {name}")),
        "{stderr}"
    );
}

#[test]
fn sigint_prints_partial_report_and_exits_130() {
    interrupted(libc::SIGINT, 130);
}

#[test]
fn sigterm_prints_partial_report_and_exits_143() {
    interrupted(libc::SIGTERM, 143);
}

/// `--forced-shutdown=0` at a 1 s run whose reads each take 300 ms (fault `slow`): the
/// schedule stops the run while the worker is inside its fourth read (0.9–1.2 s), the
/// report counts it as unfinished, the JSON says `forced_shutdown`, and the process
/// exits 2 (sysbench's code) as soon as that read returns: main ends the process, no
/// command calls `exit` itself (src/util/error.rs).
#[test]
fn forced_shutdown_reports_the_unfinished_event_and_exits_2_at_once() {
    let d = scratch();
    let dir = d.path();
    fileio(dir, &["--file-total-size=4M", "--file-num=1", "prepare"]).ok();
    let json = dir.join("f.json");
    let start = Instant::now();
    let out = Iomark::new()
        .dir(dir)
        .fault("read:slow@1+")
        .args([
            "fileio",
            "--file-total-size=4M",
            "--file-num=1",
            "--file-test-mode=rndrd",
            "--time=1",
            "--forced-shutdown=0",
            "--notes=off",
        ])
        .arg(format!("--json={}", json.display()))
        .arg("run")
        .run();
    let took = start.elapsed();
    assert_eq!(out.code, 2, "{}", out.dump());
    assert!(
        out.stdout
            .contains("Number of unfinished transactions on forced shutdown: 1"),
        "{}",
        out.dump()
    );
    assert!(took < Duration::from_secs(5), "exited after {took:?}");
    assert_eq!(read_json(&json)["status"], "forced_shutdown");
}
