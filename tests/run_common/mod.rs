//! Helpers shared by the `iomark run` end-to-end tests (included with `mod run_common;`).

use assert_cmd::Command;
use std::path::Path;

/// `iomark run ARGS` in `dir`, its output.
pub fn iomark(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("iomark")
        .unwrap()
        .current_dir(dir)
        .arg("run")
        .args(args)
        .output()
        .unwrap()
}

/// stdout of a run that must have succeeded (else panics with exit code and both streams).
pub fn ok(o: &std::process::Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}
