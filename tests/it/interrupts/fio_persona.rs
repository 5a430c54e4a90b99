//! The fio persona (the binary called through a symbolic link named `fio`) under every
//! signal a terminal or supervisor sends, at the three moments of the hazard table —
//! its first write, mid-run, and the first removal of its cleanup (fio's `unlink=1`) —
//! plus a second signal during that cleanup and SIGKILL of a re-run. The hazard table
//! (tests/it/safety/hazards.rs) runs `iomark run`; these are the same cells where the
//! persona's codes differ: SIGINT and SIGTERM end as fio 3.33's do (`fio: terminating
//! on signal N` first in the report's stream, exit 128), SIGHUP and SIGQUIT as
//! `iomark run`'s (129, 131), SIGPIPE and SIGUSR1 end nothing (0). Each signal lands
//! while the child is stopped at a fault-injector stop point, never after a sleep.

use crate::util::*;
use std::path::Path;
use std::time::Duration;

/// What `--output` holds before each cell: afterwards it is this or a complete report.
pub(crate) const OLD: &str = "the previous report\n";

/// One job of 16 writes of 4 KiB into `t.0.0`, its JSON report in `out.json`.
pub(crate) const JOB: [&str; 6] = [
    "--name=t",
    "--size=64k",
    "--rw=write",
    "--bs=4k",
    "--output-format=json",
    "--output=out.json",
];

/// The signals and the persona's exit code for each.
pub(crate) const SIGNALS: [(i32, &str, i32); 6] = [
    (libc::SIGINT, "INT", 128),
    (libc::SIGTERM, "TERM", 128),
    (libc::SIGHUP, "HUP", 129),
    (libc::SIGQUIT, "QUIT", 131),
    (libc::SIGPIPE, "PIPE", 0),
    (libc::SIGUSR1, "USR1", 0),
];

/// `--output` after a cell: fio's JSON report, after fio's `terminating on signal N`
/// line when SIGINT or SIGTERM stopped the run, with the job's write figures. After
/// SIGUSR1 fio's running report of the I/O so far may come first (a whole JSON
/// document), when the signal was taken while the job still ran.
fn complete_report(d: &Path, sig: i32, code: i32) -> Result<(), String> {
    let text = std::fs::read_to_string(d.join("out.json")).map_err(|e| e.to_string())?;
    let json = if code == 128 {
        let line = format!("\nfio: terminating on signal {sig}\n");
        text.strip_prefix(&line)
            .ok_or_else(|| format!("no {line:?} first: {text:.80}"))?
    } else {
        &text[..]
    };
    let docs = json_docs(json).map_err(|e| format!("not whole reports ({e}): {text:.80}"))?;
    let most = if sig == libc::SIGUSR1 { 2 } else { 1 };
    if docs.is_empty() || docs.len() > most {
        return Err(format!("{} reports: {text:.80}", docs.len()));
    }
    match docs
        .iter()
        .all(|v| v["jobs"][0]["write"]["io_bytes"].is_u64())
    {
        true => Ok(()),
        false => Err(format!("the job's writes are not reported: {json:.80}")),
    }
}

/// The JSON documents of `text`, one after another (fio's running reports, then its
/// final one).
pub(crate) fn json_docs(text: &str) -> Result<Vec<serde_json::Value>, serde_json::Error> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<serde_json::Value>()
        .collect()
}

/// Names left in the work directory besides `out.json` and the data file `t.0.0` (which
/// must be gone when `unlinked`): stray files of iomark's.
fn strays(d: &Path, unlinked: bool) -> Vec<String> {
    entries(d)
        .into_iter()
        .filter(|e| e != "out.json" && (unlinked || e != "t.0.0"))
        .collect()
}

/// The persona in `d` (its symbolic link in `bin`), stopped at `fault`.
pub(crate) fn stopped(bin: &Path, d: &Path, fault: &str, unlink: bool) -> std::process::Child {
    std::fs::write(d.join("out.json"), OLD).unwrap();
    let mut child = as_fio(bin)
        .dir(d)
        .args(JOB)
        .args(unlink.then_some("--unlink=1"))
        .fault(fault)
        .spawn();
    assert!(
        wait_stopped(&mut child, Duration::from_secs(20)),
        "{fault}: never stopped"
    );
    child
}

/// The verdict of one cell, `None` when it holds.
pub(crate) fn check(o: &Out, d: &Path, (sig, code): (i32, i32), unlinked: bool) -> Option<String> {
    if let Some(e) = o.ended_wrong(code) {
        return Some(e);
    }
    if !o.stdout.is_empty() {
        return Some(format!("stdout is not empty: {:.80}", o.stdout));
    }
    if let Err(e) = complete_report(d, sig, code) {
        return Some(e);
    }
    let left = strays(d, unlinked);
    (!left.is_empty()).then(|| format!("left behind: {left:?}"))
}

/// Every signal × {first write, mid-run, first removal of the cleanup}: the persona's
/// exit code, `--output` the complete report (never the old bytes, never a part), the
/// data file removed when the cleanup ran, nothing else left, no panic. The table of
/// the 18 cells is printed (`-- --nocapture`) and every failing cell listed.
#[test]
fn the_fio_persona_under_every_signal_at_every_moment() {
    let bin = scratch();
    let moments = [
        ("first write", "write:stop@1"),
        ("mid-run", "write:stop@3"),
        ("cleanup", "unlink:stop@1"),
    ];
    let mut table =
        String::from("| fio persona | first write | mid-run | cleanup |\n|---|---|---|---|\n");
    let mut failures = vec![];
    for (sig, name, code) in SIGNALS {
        table += &format!("| SIG{name} |");
        for (moment, fault) in moments {
            let d = scratch();
            let cleanup = moment == "cleanup";
            let child = stopped(bin.path(), d.path(), fault, cleanup);
            kill(child.id(), sig);
            kill(child.id(), libc::SIGCONT);
            let o = finish_within(child, Duration::from_secs(30));
            match check(&o, d.path(), (sig, code), cleanup) {
                None => table += &format!(" ok (exit {code}) |"),
                Some(e) => {
                    failures.push(format!("SIG{name} at {moment}: {e}"));
                    table += " FAIL |";
                }
            }
        }
        table.push('\n');
    }
    eprintln!("{table}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A stop signal mid-run, then the same signal again more than 1 s later (a second
/// one) while the cleanup it started (`unlink=1`) is stopped at its first removal: the
/// removal finishes and stderr says so, the data file is gone, `--output` is the
/// complete report and the exit is the first signal's code.
#[test]
fn a_second_signal_during_the_fio_persona_s_cleanup_lets_the_removal_finish() {
    let bin = scratch();
    for (sig, name, code) in &SIGNALS[..3] {
        if let Some(e) = second_signal(bin.path(), *sig, *code) {
            panic!("SIG{name}: {e}");
        }
    }
}

/// One cell of the test above (also the hazard table's `SecondSignal` cells of the
/// persona's row): `sig` mid-run, then again at the first removal of the cleanup it
/// started; `None` when it holds.
pub(crate) fn second_signal(bin: &Path, sig: i32, code: i32) -> Option<String> {
    let d = scratch();
    let mut child = stopped(bin, d.path(), "write:stop@2,unlink:stop@1", true);
    kill(child.id(), sig);
    kill(child.id(), libc::SIGCONT);
    if !wait_stopped(&mut child, Duration::from_secs(20)) {
        let _ = child.kill();
        return Some("the cleanup never stopped".into());
    }
    // the handler counts a signal as a second one only 1 s after the first
    std::thread::sleep(Duration::from_millis(1200));
    kill(child.id(), sig);
    kill(child.id(), libc::SIGCONT);
    let o = finish_within(child, Duration::from_secs(30));
    let said = "second signal during cleanup: the removal of iomark's own files finishes first";
    if !o.stderr.contains(said) {
        return Some(format!(
            "stderr does not say the removal finishes: {}",
            o.dump()
        ));
    }
    check(&o, d.path(), (sig, code), true)
}

/// SIGKILL of a re-run at its third write leaves the previous `--output` byte for byte
/// and no temporary file; an `--output` that is the job's data file is refused before
/// any write (exit 2, one line naming both), the file untouched.
#[test]
fn the_fio_persona_keeps_the_old_report_after_sigkill_and_refuses_its_data_file() {
    let bin = scratch();
    let d = scratch();
    let child = stopped(bin.path(), d.path(), "write:stop@3", false);
    kill(child.id(), libc::SIGKILL);
    let o = finish_within(child, Duration::from_secs(20));
    assert_eq!(o.signal, Some(libc::SIGKILL), "{}", o.dump());
    assert_eq!(
        std::fs::read_to_string(d.path().join("out.json")).unwrap(),
        OLD
    );
    assert_eq!(strays(d.path(), false), Vec::<String>::new());

    std::fs::write(d.path().join("t.0.0"), b"mine\n").unwrap();
    let o = as_fio(bin.path())
        .dir(d.path())
        .args(&JOB[..5])
        .arg("--output=./t.0.0")
        .run();
    assert_eq!(o.code, 2, "{}", o.dump());
    assert!(
        o.stderr
            .contains("--output=./t.0.0 and data file=t.0.0 are the same file"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read(d.path().join("t.0.0")).unwrap(), b"mine\n");
}

/// The persona's job of 4 s of 4 KiB writes into `data`, in `--output-format=FORMAT`.
fn timed(format: &str) -> Vec<String> {
    let job = "--name=t --filename=data --size=8m --bs=4k --rw=write --time_based --runtime=4";
    let mut args: Vec<String> = job.split(' ').map(String::from).collect();
    args.push(format!("--output-format={format}"));
    args
}

/// The persona stopped at its 50th write (its I/O under way), sent SIGUSR1, let go.
fn usr1_mid_run(bin: &Path, d: &Path, format: &str) -> Out {
    let mut child = as_fio(bin)
        .dir(d)
        .args(timed(format))
        .fault("write:stop@50")
        .spawn();
    assert!(
        wait_stopped(&mut child, Duration::from_secs(20)),
        "{format}: never stopped"
    );
    assert_eq!(kill(child.id(), libc::SIGUSR1), 0);
    assert_eq!(kill(child.id(), libc::SIGCONT), 0);
    finish_within(child, Duration::from_secs(60))
}

/// SIGUSR1 under the fio persona is fio 3.33's `show_running_run_stats`: the whole
/// report of the I/O done so far, in the report's format on its stream (here stdout),
/// and the job runs on to its end (exit 0) with its final report after it. JSON: a
/// whole document per report (fio 3.33 printed two with one SIGUSR1 into a 4 s job),
/// the running one with the writes done before the signal, the final one with more and
/// the job's whole run time; nothing on stderr.
#[test]
fn sigusr1_under_the_fio_persona_prints_the_running_report_and_the_run_goes_on() {
    let bin = scratch();
    let d = scratch();
    let o = usr1_mid_run(bin.path(), d.path(), "json");
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(o.stderr, "", "{}", o.dump());
    let docs = json_docs(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout));
    assert_eq!(
        docs.len(),
        2,
        "the running report, then the final one: {}",
        o.stdout
    );
    let bytes = |v: &serde_json::Value| v["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
    let runtime = |v: &serde_json::Value| v["jobs"][0]["write"]["runtime"].as_u64().unwrap();
    // stopped at its 50th write: 49 were done when the signal came
    assert!(bytes(&docs[0]) >= 49 * 4096, "{}", docs[0]);
    assert!(bytes(&docs[1]) > bytes(&docs[0]), "{}", o.stdout);
    assert!(runtime(&docs[0]) < 4000, "{}", docs[0]);
    assert!(runtime(&docs[1]) >= 3900, "{}", docs[1]);
    assert_eq!(docs[1]["jobs"][0]["error"], 0);
}

/// The same in fio's normal text: the job's block and its `Run status group` lines of
/// the I/O so far, then the final ones (and fio's header once, before the run).
#[test]
fn sigusr1_under_the_fio_persona_prints_the_text_report_so_far() {
    let bin = scratch();
    let d = scratch();
    let o = usr1_mid_run(bin.path(), d.path(), "normal");
    assert_eq!(o.code, 0, "{}", o.dump());
    let groups: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("WRITE: bw="))
        .collect();
    assert_eq!(groups.len(), 2, "{}", o.stdout);
    assert_eq!(
        o.stdout.matches("Run status group 0 (all jobs):").count(),
        2
    );
    assert_eq!(
        o.stdout.matches("Starting 1 process").count(),
        1,
        "{}",
        o.stdout
    );
    // the running report's run time is part of the final one's
    let run_ms = |l: &str| -> u64 {
        let r = l.rsplit("run=").next().unwrap();
        r.split('-')
            .next()
            .unwrap()
            .trim_end_matches("msec")
            .parse()
            .unwrap()
    };
    assert!(run_ms(groups[0]) < run_ms(groups[1]), "{groups:?}");
    assert!(!groups[0].contains("io=0B"), "{}", groups[0]);
}

/// SIGUSR1 while the files are laid out (the persona stopped at a write of its layout:
/// the job only reads, so every write is the layout's): fio 3.33 prints its running
/// report then — the jobs have done nothing and it has registered no disk yet, so it
/// is a `Run status group` line alone, no job block and no `Disk stats` — and goes on
/// (measured: `fio --name=a --size=2g --filename=big --rw=read`, SIGUSR1 during `Laying
/// out IO file`). The persona prints the same bytes between its layout line and the
/// final report, which follows whole (the 8 MiB read, its disk), exit 0.
#[test]
fn sigusr1_while_the_files_are_laid_out_prints_fios_empty_report() {
    let bin = scratch();
    let d = scratch();
    let mut child = as_fio(bin.path())
        .dir(d.path())
        .args([
            "--name=t",
            "--filename=data",
            "--size=8m",
            "--bs=4k",
            "--rw=read",
        ])
        .fault("write:stop@2")
        .spawn();
    signal_at_stop(&mut child, libc::SIGUSR1);
    let o = finish_within(child, Duration::from_secs(60));
    assert_eq!((o.signal, o.code), (None, 0), "{}", o.dump());
    assert_eq!(o.stderr, "", "{}", o.dump());
    let layout = "t: Laying out IO file (1 file / 8MiB)\n";
    let after = o
        .stdout
        .split_once(layout)
        .unwrap_or_else(|| panic!("no layout line: {}", o.stdout))
        .1;
    let (running, last) = after
        .split_once("t: (groupid=0")
        .unwrap_or_else(|| panic!("no job block: {}", o.stdout));
    assert_eq!(
        running, "\n\nRun status group 0 (all jobs):\n\n",
        "{}",
        o.stdout
    );
    assert!(last.contains("io=8192KiB"), "{}", o.stdout);
    assert_eq!(o.stdout.matches("Run status group 0").count(), 2);
}
