//! Stderr that cannot be written: `2>/dev/full`, or `2>&1 | head` after the reader left
//! (iomark ignores SIGPIPE, so the write fails with EPIPE). std's `eprintln!` panics
//! then (exit 101, and the cleanup of the command skipped); iomark's diagnostics are
//! dropped quietly instead (src/lib.rs, `util::output::to_stderr`): every command ends
//! with the code it has when stderr works, and removes what it created.

use crate::util::*;
use std::path::Path;
use std::process::Stdio;

/// Run `iomark ARGS` in `dir`, stdout discarded, stderr piped (`None`) or on `sink`:
/// the exit code (-1 when a signal ended it) and stderr when piped.
fn with_stderr(dir: &Path, args: &[&str], sink: Option<Sink>) -> (i32, String) {
    let stderr = sink.map_or_else(Stdio::piped, Sink::stdio);
    // the history on (in the scratch directory): a completed run says so on stderr
    let o = Iomark::new()
        .args(args)
        .dir(dir)
        .env("IOMARK_RESULTS", dir.join(".history"))
        .env_remove("IOMARK_HISTORY")
        .command()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every kind of command, each with something to say on stderr (a warning, a refusal,
/// the `time` report, the history line of a completed run, a usage error).
const CASES: [&[&str]; 9] = [
    &["run", "--name=t", "--size=64k", "--rw=write", "--bs=4k"],
    &["run", "--name=t", "--size=64k", "--rw=bogus"],
    &[
        "fileio",
        "--file-num=1",
        "--file-total-size=64K",
        "--file-test-mode=seqrd",
        "--time=0",
        "--events=10",
        "prepare",
        "run",
    ],
    &["time", "--", "true"],
    &["time", "--", "sh", "-c", "exit 7"],
    &["report"],
    &["history", "show", "nonexistent"],
    &["copy", ".", "--size=256K"],
    &["no-such-command"],
];

#[test]
fn stderr_full_or_closed_never_panics_and_keeps_the_exit_code() {
    let mut bad = vec![];
    for args in CASES {
        // `iomark time` switches the machine's delay accounting (tests/it/time.rs)
        let _switch = (args[0] == "time").then(crate::time::one_at_a_time);
        let d = scratch();
        let (want, said) = with_stderr(d.path(), args, None);
        assert!(!said.is_empty(), "{args:?} says nothing on stderr");
        assert!(!said.contains("panicked"), "{args:?}: {said}");
        assert!(want != 101 && want >= 0, "{args:?}: {want} {said}");
        for e in [Sink::DevFull, Sink::ClosedPipe] {
            let d = scratch();
            let (code, _) = with_stderr(d.path(), args, Some(e));
            if code != want {
                bad.push(format!(
                    "{args:?} with stderr {e:?}: exit {code}, want {want}"
                ));
            }
            // copy removes its scratch files as with a working stderr
            let left: Vec<String> = entries(d.path())
                .into_iter()
                .filter(|n| n.starts_with("iomark-"))
                .collect();
            if !left.is_empty() {
                bad.push(format!("{args:?} with stderr {e:?} left {left:?}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
