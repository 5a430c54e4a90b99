//! `--live` when its terminal goes away (a closed window, a dropped SSH session: the
//! terminal hangs up and the run gets SIGHUP). The view's key reader once read the
//! hung-up terminal's end of file in a loop that never returned: the run stopped, but
//! iomark spun a CPU forever and never wrote its result. Now it ends as SIGHUP ends a
//! run: the partial result in `--json` (`interrupted`) and exit 129.

use crate::util::*;
use std::time::{Duration, Instant};

/// Hang guard: far above the seconds the run takes to stop.
const GUARD: Duration = Duration::from_secs(60);

/// The live run in a subshell that ignores the hang-up, so it can record iomark's exit
/// code in `rc.txt`; iomark itself starts with SIGHUP at its default action (`env
/// --default-signal`: an inherited ignore would stay, as under `nohup`); the session's
/// shell dies with the terminal.
fn ignoring_the_hang_up() -> String {
    let run = crate::live::run_args("hupjob");
    format!("(trap '' HUP; env --default-signal=HUP {BIN} {run} 2>/dev/null; echo $? > rc.txt)")
}

#[test]
fn live_run_whose_terminal_hangs_up_ends_as_sighup_with_its_result() {
    if no_tmux() {
        return;
    }
    let d = scratch();
    let t = Tmux::start(d.path(), &ignoring_the_hang_up());
    t.wait_for("the live view", GUARD, |s| {
        s.lines()
            .any(|l| l.contains("hupjob") && l.contains(" MB/s"))
            .then_some(())
    });
    t.hang_up();
    let rc = d.path().join("rc.txt");
    let t0 = Instant::now();
    while !std::fs::read_to_string(&rc).is_ok_and(|s| s.ends_with('\n')) {
        assert!(
            t0.elapsed() < GUARD,
            "iomark --live did not end after its terminal hung up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let code = std::fs::read_to_string(&rc).unwrap();
    assert_eq!(code.trim(), "129", "exit code after the hang-up");
    let j = read_json(&d.path().join("r.json"));
    assert_eq!(j["status"], "interrupted", "{j}");
    assert!(j["read"]["bytes"].as_u64().unwrap_or(0) > 0, "{j}");
}
