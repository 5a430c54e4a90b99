//! Tests that cannot run here say so through one of two calls, never a bare `eprintln!`:
//! [`skip`] when something an install or root would bring is missing (a tool, root, a loop
//! device, io_uring permission) — a failure under CI (`CI=true`: tests/run.sh runs as root
//! and installs every tool, so a skip there means a test did not test) — and
//! [`absent_here`] when this machine's kernel or hardware lacks the feature (XFS atomic
//! writes, a 512e disk, device-mapper), which no install brings. Both print
//! `SKIP <test>: <why>` and append that line to the file named by `IOMARK_SKIP_LOG`, which
//! tests/run.sh counts and prints after the run, so no skip passes unseen.

use std::fmt::Display;
use std::io::Write;

fn record(kind: &str, why: &dyn Display) -> String {
    let test = std::thread::current()
        .name()
        .unwrap_or("<unnamed test>")
        .to_string();
    let line = format!("SKIP {test} ({kind}): {why}");
    eprintln!("{line}");
    if let Some(log) = std::env::var_os("IOMARK_SKIP_LOG") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{line}");
        }
    }
    line
}

/// Whether this run is CI's (`CI=true`), where every tool is installed and root is had.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The test cannot run here for want of what an install or root would bring. Fails the
/// test under CI; elsewhere prints and logs the skip. The caller returns after it.
pub fn skip(why: impl Display) {
    let line = record("missing here", &why);
    assert!(
        !under_ci(),
        "{line} — under CI every tool is installed and root is had: a skip is a failure"
    );
}

/// The test (or part of it) cannot run on this machine's kernel or hardware: printed and
/// logged (counted by tests/run.sh), also under CI.
pub fn absent_here(why: impl Display) {
    record("absent on this machine", &why);
}
