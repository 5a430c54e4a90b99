//! `--live` of `iomark run` and `iomark mark` on a terminal (tmux, util/tmux.rs): the
//! view draws the job's name and a MB/s figure; `q`, Ctrl-C and SIGTERM stop the run as
//! the signals do (partial result saved in `--json`, exit 130 or 143); a run that fails
//! ends with its own code; and every time the terminal is left as it was: `stty -a`
//! inside the pane is identical before and after, the alternate screen is left and the
//! cursor shown — after a panic of the view too. Without a terminal `--live` is refused
//! with one line, exit 2.

use crate::util::*;
use std::path::Path;
use std::time::Duration;

/// Hang guard of one wait: far above the seconds the runs take.
const GUARD: Duration = Duration::from_secs(120);

/// A null-engine run far longer than the tests wait (they stop it).
pub(crate) fn run_args(name: &str) -> String {
    format!(
        "run --name={name} --ioengine=null --size=1g --rw=randread --time_based --runtime=300 --live --json=r.json --no-history"
    )
}

/// Start `cmd` (iomark's arguments, with `env` before it) in tmux between two `stty -a`
/// captures, keeping its exit code as the pane's.
fn start(dir: &Path, env: &str, cmd: &str) -> Tmux {
    Tmux::start(
        dir,
        &format!(
            "stty -a > before.stty; {env} {BIN} {cmd}; rc=$?; stty -a > after.stty; (exit $rc)"
        ),
    )
}

/// The view is up and shows job `name` with a MB/s figure beside it.
fn wait_for_view(t: &Tmux, name: &str) -> String {
    t.wait_for("the live view with the job and its MB/s", GUARD, |s| {
        let l = s
            .lines()
            .find(|l| l.contains(name) && l.contains(" MB/s"))?;
        let fig = l.split(" MB/s").next()?.split_whitespace().last()?;
        fig.parse::<f64>().ok().map(|_| s.to_string())
    })
}

/// The view shows job `name` with a measured p99 of the last interval (a figure, not
/// `-`): its line's ` p99 ` value.
fn p99_of(t: &Tmux, name: &str) -> String {
    t.wait_for("the job's p99 over the last interval", GUARD, |s| {
        let l = s
            .lines()
            .find(|l| l.contains(name) && l.contains(" p99 "))?;
        let v = l.split_once(" p99 ")?.1.trim_start();
        let fig = v.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        let num = fig.split_whitespace().next()?.parse::<f64>().ok()?;
        let unit = fig.split_whitespace().nth(1)?;
        (num >= 0.0 && ["ns", "µs", "ms", "s"].contains(&unit)).then_some(fig)
    })
}

/// After the command: the terminal as it was (stty identical, main screen, cursor shown).
fn assert_sane(t: &Tmux, dir: &Path) {
    let before = std::fs::read_to_string(dir.join("before.stty")).expect("stty before");
    let after = std::fs::read_to_string(dir.join("after.stty")).expect("stty after");
    assert!(before.contains("speed"), "{before}");
    assert_eq!(before, after, "the terminal's settings changed");
    assert_eq!(t.display("#{alternate_on} #{cursor_flag}"), "0 1");
}

/// `q` or Ctrl-C (`key`): the run stops as SIGINT stops it.
fn stops_with(key: &str) {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let t = start(d.path(), "", &run_args("livejob"));
    let view = wait_for_view(&t, "livejob");
    assert!(view.contains("q or Ctrl-C: stop"), "{view}");
    // the p99 of the interval, from the job's recorder
    p99_of(&t, "livejob");
    t.send_keys(key);
    let (code, screen) = t.finished(GUARD);
    assert_eq!(code, 130, "{screen}");
    assert!(screen.contains("interrupted"), "{screen}");
    // the report is printed on the main screen after the view
    assert!(screen.contains("livejob: (groupid=0"), "{screen}");
    let j = read_json(&d.path().join("r.json"));
    assert_eq!(j["status"], "interrupted");
    assert!(j["read"]["bytes"].as_u64().unwrap_or(0) > 0, "{j}");
    assert_sane(&t, d.path());
}

#[test]
fn live_view_draws_and_q_stops_the_run_as_sigint() {
    stops_with("q");
}

#[test]
fn live_view_ctrl_c_stops_the_run_as_sigint() {
    stops_with("C-c");
}

/// SIGTERM to the process while the view is up: exit 143, the result saved, the
/// terminal put back.
#[test]
fn live_view_sigterm_restores_the_terminal() {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let t = Tmux::start(
        d.path(),
        &format!(
            "stty -a > before.stty; sh -c 'echo $$ > pid; exec {BIN} {}'; rc=$?; stty -a > after.stty; (exit $rc)",
            run_args("termjob")
        ),
    );
    wait_for_view(&t, "termjob");
    let pid: i32 = std::fs::read_to_string(d.path().join("pid"))
        .expect("pid written")
        .trim()
        .parse()
        .expect("a pid");
    // SAFETY: kill(2) of the iomark process this test started
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let (code, screen) = t.finished(GUARD);
    assert_eq!(code, 143, "{screen}");
    assert_eq!(read_json(&d.path().join("r.json"))["status"], "interrupted");
    assert_sane(&t, d.path());
}

/// A run that fails under the view (an injected read error) ends with exit 1 and the
/// terminal put back, its error line on the main screen.
#[test]
fn live_view_failed_run_restores_the_terminal() {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let cmd = "run --name=failjob --ioengine=psync --filename=data --size=8m --rw=read --time_based --runtime=300 --live --no-history";
    let t = start(d.path(), "IOMARK_FAULT=read:eio@20000", cmd);
    let (code, screen) = t.finished(GUARD);
    assert_eq!(code, 1, "{screen}");
    assert!(screen.contains("Input/output error"), "{screen}");
    assert_sane(&t, d.path());
}

/// `mark --live`: the view names the test with its MB/s and its latency (mean and p99
/// of the last interval, read from the test's recorder); `q` stops with the finished
/// tests kept (exit 130, status interrupted).
#[test]
fn mark_live_draws_the_test_and_q_stops_it() {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let cmd = "mark . --preset=peak --size=16M --time=30 --loops=1 --warmup=0 --live --json=m.json --no-history";
    let t = start(d.path(), "", cmd);
    wait_for_view(&t, "SEQ1M Q8T1");
    // the running test's latency: mean and p99 of the last interval, not `-`
    p99_of(&t, "SEQ1M Q8T1");
    t.wait_for("the test's mean latency", GUARD, |s| {
        let l = s
            .lines()
            .find(|l| l.contains("SEQ1M Q8T1") && l.contains("lat mean"))?;
        (!l.contains("lat mean -")).then_some(())
    });
    t.send_keys("q");
    let (code, screen) = t.finished(GUARD);
    assert_eq!(code, 130, "{screen}");
    assert!(screen.contains("interrupted"), "{screen}");
    assert_eq!(read_json(&d.path().join("m.json"))["status"], "interrupted");
    assert_sane(&t, d.path());
}

/// Without a terminal on stdout (a pipe here) `--live` is refused before anything runs:
/// one line naming the option, exit 2, nothing written.
#[test]
fn live_without_a_terminal_is_refused() {
    let d = scratch();
    for args in [
        vec![
            "run",
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--live",
            "--json=r.json",
        ],
        vec!["mark", ".", "--live", "--json=r.json"],
    ] {
        let r = Iomark::new().dir(d.path()).args(&args).run();
        r.expect_code(2);
        assert!(r.stdout.is_empty(), "{}", r.dump());
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{}", r.dump());
        assert!(lines[0].contains("--live needs a terminal"), "{}", r.dump());
        assert!(!d.path().join("r.json").exists());
    }
}

/// A panic of the view (the test-only IOMARK_TEST_LIVE_PANIC, docs/testing.md): the panic
/// hook puts the terminal back at once, so the message is on the main screen while the
/// run goes on without the view (without the hook it would sit in the held stderr behind
/// a frozen view until the run ends); Ctrl-C, now the terminal's own, then stops it.
#[test]
fn live_view_panic_restores_the_terminal_at_once() {
    if !have_tmux() {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
        return;
    }
    let d = scratch();
    let t = start(d.path(), "IOMARK_TEST_LIVE_PANIC=1", &run_args("panicjob"));
    t.wait_for("the panic's message while the run goes on", GUARD, |s| {
        (s.contains("IOMARK_TEST_LIVE_PANIC") && !s.contains(TMUX_EXIT)).then_some(())
    });
    assert_eq!(t.display("#{alternate_on} #{cursor_flag}"), "0 1");
    t.send_keys("C-c");
    let (code, screen) = t.finished(GUARD);
    assert_eq!(code, 130, "{screen}");
    assert!(screen.contains("panicjob: (groupid=0"), "{screen}");
    assert_eq!(read_json(&d.path().join("r.json"))["status"], "interrupted");
    assert_sane(&t, d.path());
}
