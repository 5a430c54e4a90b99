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
    let child = Iomark::new()
        .dir(dir)
        .args([
            "fileio",
            "--file-total-size=8M",
            "--file-num=4",
            "--file-test-mode=rndrw",
            "--time=30",
            "--notes=off",
        ])
        .arg(format!("--json={}", json.display()))
        .arg("run")
        .spawn();
    std::thread::sleep(Duration::from_millis(1000));
    let start = Instant::now();
    assert_eq!(kill(child.id(), sig), 0);
    let out = finish(child);
    assert!(start.elapsed().as_secs() < 10, "stopped promptly");
    let stdout = &out.stdout;
    assert_eq!(out.code, code, "stdout:\n{stdout}\nstderr:\n{}", out.stderr);
    assert!(stdout.contains("total number of events:"), "{stdout}");
    let rep = parse_report(stdout);
    assert!(rep.total_time > 0.5 && rep.total_time < 10.0, "{rep:?}");
    assert!(rep.events > 0);
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
