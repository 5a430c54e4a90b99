//! The hazard table: every command × every hazard in one test.
//! Each cell runs one invocation in its own directory beside an outside directory of
//! the user's (helpers in safety/files.rs) and asserts: the outside file's sha256 is
//! unchanged, every output is its old content or a complete document (JSON parses, the
//! SVG ends with `</svg>`), the exit code is the documented one (docs/safety.md, "Exit
//! codes" and "When stdout cannot be written"), and nothing panicked (no "panicked" on
//! stderr, no exit 101). A cell that cannot arise says why (`n/a`). The table is printed
//! (`cargo test … hazard_table -- --nocapture`) and every failing cell is listed before
//! the test fails. Sizes are tiny and runs short (`--time=0 --events=N`, 64 KiB files).
//!
//! The table has the columns of signals (SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, each at the
//! first I/O and mid-run: the child stops itself at that operation with the fault
//! injector's `stop`, the signal lands while it is stopped — never a sleep), an output
//! named as the data file (collision, exit 2), and a FIFO at the output (exit 3); the
//! signal cells also assert that no stray file of iomark's is left.
//!
//! The cleanup moment (the first removal of the command's cleanup, the fault plan's
//! `unlink` stop; `run` with fio's `unlink=1`) and a second SIGINT/SIGTERM/SIGHUP during
//! a cleanup (`SecondSignal`: the removal finishes and says so) came next, and SIGINT and
//! SIGTERM at the three moments beside the other stop signals: 11 × 32 cells.
//!
//! The link columns and the FIFO at the output cover every path a command writes, each
//! found by running the command (links.rs), not only its `--json`.
//!
//! `time` and `report` joined the table later (11 commands × 23 hazards then): `time`'s
//! signal and SIGKILL cells stop iomark from inside its command (`kill -STOP $PPID`),
//! as it has no I/O of its own for the fault injector to stop at.
//!
//! The fio persona (iomark invoked through a symbolic link named `fio`) is the table's
//! twelfth row, `Fio`: its cells run the persona (hazards/persona.rs), with its own
//! documented codes where fio 3.33's differ from `iomark run`'s.

mod links;
mod persona;

use super::files::{compare_fixture, fill_all, mkfifo, start_stopped, tmpfs, Outside, Plant};
use crate::util::*;
use std::path::Path;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmd {
    Prepare,
    FileioRun,
    Cleanup,
    Run,
    Mark,
    Diagnose,
    Compare,
    Copy,
    Tree,
    /// `iomark time -- CMD`: its outputs are iomark's, the command's stdout its own
    Time,
    /// `iomark report RESULT -o out.html`
    Report,
    /// iomark invoked through a symbolic link named `fio` (the fio persona): its row's
    /// cells are hazards/persona.rs
    Fio,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Hazard {
    Symlink,
    HardLink,
    ShortFile,
    FifoInput,
    DevFull,
    ClosedPipe,
    ReadOnlyDir,
    FullFs,
    Sigkill,
    /// an output named as the run's data file
    Collision,
    /// a FIFO at every output path (links.rs finds them)
    FifoOutput,
    /// a signal at a moment of the run
    Signal(Sig, Moment),
    /// a stop signal mid-run, then the same signal again (after the 1 s that makes it a
    /// second one) at the first removal of the cleanup it started
    SecondSignal(Sig),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Sig {
    Int,
    Term,
    Hup,
    Quit,
    Pipe,
    Usr1,
}

impl Sig {
    fn number(self) -> i32 {
        match self {
            Sig::Int => libc::SIGINT,
            Sig::Term => libc::SIGTERM,
            Sig::Hup => libc::SIGHUP,
            Sig::Quit => libc::SIGQUIT,
            Sig::Pipe => libc::SIGPIPE,
            Sig::Usr1 => libc::SIGUSR1,
        }
    }

    /// The exit code of a command that does I/O and gets this signal mid-way.
    fn code(self) -> i32 {
        match self {
            Sig::Int => 130,
            Sig::Term => 143,
            Sig::Hup => 129,
            Sig::Quit => 131,
            Sig::Pipe | Sig::Usr1 => 0,
        }
    }
}

/// When the signal lands: at the first I/O operation (the end of setup), mid-run, or at
/// the first removal of the command's cleanup (the fault plan's `unlink` stop point).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Moment {
    FirstIo,
    MidRun,
    Cleanup,
}

const CMDS: [Cmd; 12] = [
    Cmd::Prepare,
    Cmd::FileioRun,
    Cmd::Cleanup,
    Cmd::Run,
    Cmd::Mark,
    Cmd::Diagnose,
    Cmd::Compare,
    Cmd::Copy,
    Cmd::Tree,
    Cmd::Time,
    Cmd::Report,
    Cmd::Fio,
];
const HAZARDS: [Hazard; 32] = [
    Hazard::Symlink,
    Hazard::HardLink,
    Hazard::ShortFile,
    Hazard::FifoInput,
    Hazard::DevFull,
    Hazard::ClosedPipe,
    Hazard::ReadOnlyDir,
    Hazard::FullFs,
    Hazard::Sigkill,
    Hazard::Collision,
    Hazard::FifoOutput,
    Hazard::Signal(Sig::Hup, Moment::FirstIo),
    Hazard::Signal(Sig::Hup, Moment::MidRun),
    Hazard::Signal(Sig::Quit, Moment::FirstIo),
    Hazard::Signal(Sig::Quit, Moment::MidRun),
    Hazard::Signal(Sig::Pipe, Moment::FirstIo),
    Hazard::Signal(Sig::Pipe, Moment::MidRun),
    Hazard::Signal(Sig::Usr1, Moment::FirstIo),
    Hazard::Signal(Sig::Usr1, Moment::MidRun),
    Hazard::Signal(Sig::Hup, Moment::Cleanup),
    Hazard::Signal(Sig::Quit, Moment::Cleanup),
    Hazard::Signal(Sig::Pipe, Moment::Cleanup),
    Hazard::Signal(Sig::Usr1, Moment::Cleanup),
    Hazard::Signal(Sig::Int, Moment::FirstIo),
    Hazard::Signal(Sig::Int, Moment::MidRun),
    Hazard::Signal(Sig::Int, Moment::Cleanup),
    Hazard::Signal(Sig::Term, Moment::FirstIo),
    Hazard::Signal(Sig::Term, Moment::MidRun),
    Hazard::Signal(Sig::Term, Moment::Cleanup),
    Hazard::SecondSignal(Sig::Int),
    Hazard::SecondSignal(Sig::Term),
    Hazard::SecondSignal(Sig::Hup),
];

/// The content every pre-existing output starts with: after the cell it must still be
/// this, or a complete new document.
const OLD: &str = "the previous output\n";

/// fileio's set in every cell: one 64 KiB file.
const SET: [&str; 2] = ["--file-num=1", "--file-total-size=64K"];

/// The command line of `cmd` run in its work directory (`.`): outputs are `out.json`
/// (`out.svg` for compare), the data path is `test_file.0` (fileio) or `t.0.0` (run).
fn args(cmd: Cmd) -> Vec<String> {
    let cmp = compare_fixture();
    let v: Vec<&str> = match cmd {
        Cmd::Prepare => [&SET[..], &["prepare"]].concat(),
        Cmd::FileioRun => [
            &SET[..],
            &[
                "--file-test-mode=rndrd",
                "--time=0",
                "--events=64",
                "--json=out.json",
                "run",
            ],
        ]
        .concat(),
        Cmd::Cleanup => [&SET[..], &["cleanup"]].concat(),
        Cmd::Run => vec![
            "--name=t",
            "--size=64k",
            "--rw=write",
            "--bs=4k",
            "--json=out.json",
        ],
        Cmd::Mark => vec![
            ".",
            "--preset=realworld",
            "--size=1M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
            "--json=out.json",
        ],
        Cmd::Diagnose => vec!["."],
        Cmd::Compare => vec![cmp.as_str(), cmp.as_str(), "--plot=out.svg"],
        Cmd::Copy => vec![".", "--size=256K", "--json=out.json"],
        Cmd::Tree => vec![".", "--files=20", "--drop-caches=off", "--json=out.json"],
        Cmd::Time => vec!["--json=out.json", "--", "true"],
        Cmd::Report => vec![cmp.as_str(), "-o", "out.html"],
        Cmd::Fio => persona::JOB.to_vec(),
    };
    let word = match cmd {
        Cmd::Prepare | Cmd::FileioRun | Cmd::Cleanup => "fileio",
        Cmd::Run => "run",
        Cmd::Mark => "mark",
        Cmd::Diagnose => "diagnose",
        Cmd::Compare => "compare",
        Cmd::Copy => "copy",
        Cmd::Tree => "tree",
        Cmd::Time => "time",
        Cmd::Report => "report",
        // the persona's argv[0]; its cells run it through as_fio (hazards/persona.rs)
        Cmd::Fio => "fio",
    };
    std::iter::once(word).chain(v).map(String::from).collect()
}

/// The output file of `cmd` in its work directory, if it writes one.
fn output(cmd: Cmd) -> Option<&'static str> {
    match cmd {
        Cmd::Prepare | Cmd::Cleanup | Cmd::Diagnose => None,
        Cmd::Compare => Some("out.svg"),
        Cmd::Report => Some("out.html"),
        _ => Some("out.json"),
    }
}

/// The data file iomark names for `cmd`, if any.
fn data(cmd: Cmd) -> Option<&'static str> {
    match cmd {
        Cmd::Prepare | Cmd::FileioRun | Cmd::Cleanup => Some("test_file.0"),
        Cmd::Run => Some("t.0.0"),
        _ => None,
    }
}

/// What a cell came to.
enum Verdict {
    Pass(String),
    NotApplicable(&'static str),
    Fail(String),
}

/// Prepare fileio's set in `dir` for the commands that need one.
fn setup(cmd: Cmd, dir: &Path) {
    if matches!(cmd, Cmd::FileioRun | Cmd::Cleanup) {
        iomark(dir, &[&["fileio"][..], &SET[..], &["prepare"]].concat()).ok();
    }
    if let Some(o) = output(cmd) {
        std::fs::write(dir.join(o), OLD).unwrap();
    }
}

/// Whether `p` holds the old content or a complete document.
fn old_or_complete(p: &Path) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt;
    // a FIFO planted at the output (its own cell checks it is left as it is): reading it
    // would wait for a writer
    if std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo()) {
        return Ok(());
    }
    let Ok(b) = std::fs::read(p) else {
        return Ok(()); // gone (a refused planted name is checked by the cell)
    };
    if b == OLD.as_bytes() {
        return Ok(());
    }
    let s = String::from_utf8_lossy(&b);
    if p.extension().is_some_and(|e| e == "html") {
        return if s.trim_end().ends_with("</html>") {
            Ok(())
        } else {
            Err(format!("{} is a partial HTML page", p.display()))
        };
    }
    if p.extension().is_some_and(|e| e == "svg") {
        return if s.trim_end().ends_with("</svg>") {
            Ok(())
        } else {
            Err(format!("{} is a partial SVG", p.display()))
        };
    }
    serde_json::from_slice::<serde_json::Value>(&b)
        .map(|_| ())
        .map_err(|e| {
            format!(
                "{} is neither old nor valid JSON ({e}): {:.80}",
                p.display(),
                s
            )
        })
}

/// The common checks of every cell after its invocation.
fn checks(cmd: Cmd, dir: &Path, outside: &Outside, o: &Out, code: i32) -> Result<String, String> {
    if let Some(e) = o.ended_wrong(code) {
        return Err(e);
    }
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        outside.assert_intact(&format!("{cmd:?}"))
    }))
    .is_err()
    {
        return Err(format!(
            "the outside file {} changed",
            outside.file().display()
        ));
    }
    // a planted name at the output is the outside file (checked above and by the cell)
    let planted = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        p.symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink() || m.nlink() > 1)
    };
    if let Some(out) = output(cmd).map(|o| dir.join(o)).filter(|p| !planted(p)) {
        old_or_complete(&out)?;
    }
    Ok(format!("exit {code}"))
}

/// Stdout on `sink`, as an [`Out`] (stdout not captured).
fn to_sink(dir: &Path, a: &[String], sink: Sink) -> Out {
    let (code, stderr) = run_to(dir, a, sink);
    Out {
        code,
        signal: None,
        stdout: String::new(),
        stderr,
    }
}

/// Run one cell.
fn cell(cmd: Cmd, hz: Hazard) -> Verdict {
    if cmd == Cmd::Fio {
        return persona::cell(hz);
    }
    // `iomark time` switches kernel.task_delayacct for its run (and SIGKILL leaves it on
    // until the next): one at a time with tests/it/time.rs, which checks it comes back
    let _switch = (cmd == Cmd::Time).then(crate::time::one_at_a_time);
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    let a = args(cmd);
    let verdict = |o: &Out, code: i32, dir: &Path| match checks(cmd, dir, &outside, o, code) {
        Ok(s) => Verdict::Pass(s),
        Err(e) => Verdict::Fail(e),
    };
    match hz {
        Hazard::Symlink | Hazard::HardLink => {
            let plant = if hz == Hazard::Symlink {
                Plant::Symlink
            } else {
                Plant::HardLink
            };
            link_cells(cmd, links::How::Link(plant))
        }
        Hazard::ShortFile => short_file(cmd, d, &a, verdict),
        Hazard::FifoInput => fifo(cmd, d, verdict),
        Hazard::DevFull | Hazard::ClosedPipe => {
            setup(cmd, d);
            let sink = if hz == Hazard::DevFull {
                Sink::DevFull
            } else {
                Sink::ClosedPipe
            };
            // report: the page on stdout (without -o); time: stdout is the command's
            // (`true` writes nothing), iomark's report goes to stderr
            let a = match cmd {
                Cmd::Report => vec!["report".into(), compare_fixture()],
                _ => a,
            };
            let o = to_sink(d, &a, sink);
            let code = if hz == Hazard::DevFull && cmd != Cmd::Time {
                1
            } else {
                0
            };
            if code == 1 && !o.stderr.contains("cannot write the report to stdout") {
                return Verdict::Fail(format!("no stdout error line: {}", o.stderr));
            }
            verdict(&o, code, d)
        }
        Hazard::ReadOnlyDir => read_only(cmd, &a, verdict),
        Hazard::FullFs => full_fs(cmd, &a, verdict),
        Hazard::Sigkill => sigkill(cmd, d, &a, verdict),
        Hazard::Collision => collision(cmd, d, &a, verdict),
        Hazard::FifoOutput => link_cells(cmd, links::How::Fifo),
        Hazard::Signal(sig, at) => signal(cmd, d, &a, (sig, at), verdict),
        Hazard::SecondSignal(sig) => signal_at_cleanup(cmd, d, &a, sig, true, verdict),
    }
}

/// The cells of planted names at every path the command writes (tests/it/safety/
/// hazards/links.rs).
fn link_cells(cmd: Cmd, how: links::How) -> Verdict {
    match links::sweep(cmd, how) {
        Ok(Some(s)) => Verdict::Pass(s),
        Ok(None) => Verdict::NotApplicable("writes no file of its own"),
        Err(e) => Verdict::Fail(e),
    }
}

/// An output named as the command's data file: refused before any write (exit 2).
fn collision(
    cmd: Cmd,
    d: &Path,
    a: &[String],
    verdict: impl Fn(&Out, i32, &Path) -> Verdict,
) -> Verdict {
    let (Some(data), Some(_)) = (data(cmd), output(cmd)) else {
        return Verdict::NotApplicable("no output beside a data file iomark names");
    };
    if cmd == Cmd::Run {
        return run_collisions(d, a, verdict);
    }
    setup(cmd, d);
    let a: Vec<String> = a
        .iter()
        .map(|s| match s.as_str() {
            "--json=out.json" => format!("--json={data}"),
            _ => s.clone(),
        })
        .collect();
    let before = std::fs::read(d.join(data)).ok();
    let o = Iomark::new().dir(d).args(&a).run();
    if !o.all().contains("are the same file") {
        return Verdict::Fail(format!("no line naming both: {}", o.all()));
    }
    if std::fs::read(d.join(data)).ok() != before {
        return Verdict::Fail(format!("{data} changed"));
    }
    verdict(&o, 2, d)
}

/// `run`'s pairs of one file: each output (`--json`, `--output`, every fio log kind,
/// one shared by `per_job_logs=0`, the verify state, the exec engine's `std_redirect`
/// files) named as a data file or as another output, and `--output` a hard link of
/// `--json`. (Extra arguments, the file both name, the roles the line must name.)
const RUN_PAIRS: [(&[&str], &str, &str); 13] = [
    (&["--json=t.0.0"], "t.0.0", "--json=t.0.0 and data file"),
    (&["--output=t.0.0"], "t.0.0", "--output=t.0.0 and data file"),
    (
        &["--write_bw_log=w", "--filename=w_bw.1.log"],
        "w_bw.1.log",
        "log file of job t=w_bw.1.log and data file",
    ),
    (
        &["--write_iops_log=w", "--filename=w_iops.1.log"],
        "w_iops.1.log",
        "log file of job t=w_iops.1.log and data file",
    ),
    (
        &["--write_lat_log=w", "--filename=w_clat.1.log"],
        "w_clat.1.log",
        "log file of job t=w_clat.1.log and data file",
    ),
    (
        &["--write_hist_log=w", "--filename=w_clat_hist.1.log"],
        "w_clat_hist.1.log",
        "log file of job t=w_clat_hist.1.log and data file",
    ),
    (
        &["--write_iolog=w.log", "--filename=w.log"],
        "w.log",
        "log file of job t=w.log and data file",
    ),
    (
        &[
            "--write_bw_log=w",
            "--per_job_logs=0",
            "--filename=w_bw.log",
        ],
        "w_bw.log",
        "log file of job t=w_bw.log and data file",
    ),
    (
        &["--write_lat_log=w", "--output=w_slat.1.log"],
        "w_slat.1.log",
        "--output=w_slat.1.log and log file of job t",
    ),
    (
        &["--write_iolog=out.json"],
        "out.json",
        "--json=out.json and log file of job t",
    ),
    (
        &["--verify=crc32c", "--filename=local-t-0-verify.state"],
        "local-t-0-verify.state",
        "verify state of job t=local-t-0-verify.state and data file",
    ),
    (
        &[
            "--ioengine=exec",
            "--program=true",
            "--time_based",
            "--runtime=1",
            "--output=t.stdout",
        ],
        "t.stdout",
        "--output=t.stdout and std_redirect file of job t",
    ),
    (
        &["--output=hard.json"],
        "hard.json",
        "--json=out.json and --output=hard.json",
    ),
];

/// Every pair of [`RUN_PAIRS`]: exit 2, one line naming both, the file they share
/// (a user's file of 5 bytes) untouched, and nothing else created.
fn run_collisions(
    d: &Path,
    a: &[String],
    verdict: impl Fn(&Out, i32, &Path) -> Verdict,
) -> Verdict {
    for (extra, both, words) in RUN_PAIRS {
        setup(Cmd::Run, d);
        if both == "hard.json" {
            std::fs::hard_link(d.join("out.json"), d.join(both)).unwrap();
        } else if both != "out.json" {
            std::fs::write(d.join(both), b"mine\n").unwrap();
        }
        let before = entries(d);
        let kept = std::fs::read(d.join(both)).ok();
        // an extra --json replaces the cell's own
        let json = extra.iter().any(|e| e.starts_with("--json="));
        let a = a.iter().filter(|s| !(json && s.starts_with("--json=")));
        let o = Iomark::new().dir(d).args(a).args(extra).run();
        if !o.stderr.contains(words) || !o.stderr.contains("are the same file") {
            return Verdict::Fail(format!("{extra:?}: no line naming both: {}", o.all()));
        }
        if std::fs::read(d.join(both)).ok() != kept || entries(d) != before {
            return Verdict::Fail(format!("{extra:?}: {both} changed or a file was made"));
        }
        if let v @ Verdict::Fail(_) = verdict(&o, 2, d) {
            return v;
        }
        let _ = std::fs::remove_file(d.join(both));
    }
    Verdict::Pass(format!("exit 2, {} pairs", RUN_PAIRS.len()))
}

/// Names iomark leaves that it should not: its scratch files and temporary files.
fn strays(d: &Path) -> Vec<String> {
    let mut v = vec![];
    for e in entries(d) {
        let p = d.join(&e);
        if e.starts_with("iomark-") || e.ends_with(".iomark-tmp") {
            v.push(e.clone());
        }
        if p.is_dir()
            && !p
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
        {
            v.extend(strays(&p).into_iter().map(|s| format!("{e}/{s}")));
        }
    }
    v
}

/// A signal at a stop point of the fault injector (the first I/O or mid-run): a stop
/// signal ends the command with its code, a partial result and no stray file; SIGPIPE
/// and SIGUSR1 change nothing.
fn signal(
    cmd: Cmd,
    d: &Path,
    a: &[String],
    (sig, at): (Sig, Moment),
    verdict: impl Fn(&Out, i32, &Path) -> Verdict,
) -> Verdict {
    if at == Moment::Cleanup {
        return signal_at_cleanup(cmd, d, a, sig, false, verdict);
    }
    if cmd == Cmd::Time {
        return time_signal(d, sig, at, verdict);
    }
    let op = match cmd {
        Cmd::Cleanup => {
            return Verdict::NotApplicable(
                "cleanup does no I/O but removals: its signals are the cleanup moment's cells",
            )
        }
        Cmd::Diagnose => return Verdict::NotApplicable(
            "diagnose does no I/O (no stop point); it finishes and exits with the signal's code",
        ),
        Cmd::Compare | Cmd::Report => {
            return Verdict::NotApplicable(
                "compare and report do no I/O (no stop point); they finish and exit with the signal's code",
            )
        }
        Cmd::Time => unreachable!("handled above"),
        Cmd::FileioRun => "read",
        _ => "write",
    };
    let n = match (at, cmd) {
        (Moment::FirstIo, _) => 1,
        (Moment::MidRun, Cmd::FileioRun) => 10,
        (Moment::MidRun, Cmd::Prepare) => 2,
        (Moment::MidRun, _) => 3,
        (Moment::Cleanup, _) => unreachable!("handled above"),
    };
    setup(cmd, d);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let child = start_stopped(d, &a, &format!("{op}:stop@{n}"));
    kill(child.id(), sig.number());
    kill(child.id(), libc::SIGCONT);
    let o = finish_within(child, Duration::from_secs(30));
    let v = verdict(&o, sig.code(), d);
    let left = strays(d);
    if matches!(v, Verdict::Pass(_)) && !left.is_empty() {
        return Verdict::Fail(format!("left behind: {left:?}"));
    }
    if let (Verdict::Pass(_), Some(out)) = (&v, output(cmd).filter(|_| sig.code() != 0)) {
        let s = std::fs::read_to_string(d.join(out)).unwrap_or_default();
        if !s.contains("\"interrupted\"") {
            return Verdict::Fail(format!("{out} does not say interrupted: {s:.80}"));
        }
    }
    v
}

/// The command line of `cmd` with a cleanup to stop in, or why it has none: `run` gets
/// fio's `unlink=1` (its default keeps the job's files); fileio `cleanup` removes
/// `files` test files.
fn with_cleanup(cmd: Cmd, a: &[String], files: u32) -> Result<Vec<String>, &'static str> {
    match cmd {
        Cmd::Prepare | Cmd::FileioRun => Err("fileio prepare and run remove no file"),
        Cmd::Diagnose | Cmd::Compare | Cmd::Report => {
            Err("diagnose, compare and report create no file to remove")
        }
        Cmd::Time => Err("time creates no file to remove (the command's files are its own)"),
        Cmd::Run => Ok([a, &["--unlink=1".to_string()]].concat()),
        Cmd::Cleanup => Ok(a
            .iter()
            .map(|s| match s.as_str() {
                "--file-num=1" => format!("--file-num={files}"),
                _ => s.clone(),
            })
            .collect()),
        Cmd::Mark | Cmd::Copy | Cmd::Tree | Cmd::Fio => Ok(a.to_vec()),
    }
}

/// After a cell whose cleanup ran: nothing of iomark's is left (its scratch files,
/// temporary files, fileio's set, run's data file), and the result (if any) says
/// `status`.
fn cleaned_up(cmd: Cmd, d: &Path, status: &str) -> Result<(), String> {
    let left: Vec<String> = strays(d)
        .into_iter()
        .chain(
            entries(d)
                .into_iter()
                .filter(|e| e.starts_with("test_file.") || Some(e.as_str()) == data(cmd)),
        )
        .collect();
    if !left.is_empty() {
        return Err(format!("the cleanup left: {left:?}"));
    }
    if let Some(out) = output(cmd) {
        let s = std::fs::read_to_string(d.join(out)).unwrap_or_default();
        if !s.contains(&format!("\"status\": \"{status}\"")) {
            return Err(format!("{out} does not say {status}: {s:.80}"));
        }
    }
    Ok(())
}

/// A signal at the first removal of the command's cleanup (`unlink:stop@1`), or a
/// `second` one there: see [`once_at_cleanup`] and [`twice_to_cleanup`]. The removal of
/// iomark's own files finishes (a second signal says so on stderr), nothing is left,
/// the exit is the signal's code (0 for SIGPIPE and SIGUSR1), and a result written by
/// then is complete: status `ok` when one signal came after the measurement had ended,
/// `interrupted` after a signal mid-run (`run` removes its files at the end of the job,
/// before its result is built, so a stop signal there makes it `interrupted` too).
fn signal_at_cleanup(
    cmd: Cmd,
    d: &Path,
    a: &[String],
    sig: Sig,
    second: bool,
    verdict: impl Fn(&Out, i32, &Path) -> Verdict,
) -> Verdict {
    let a = match with_cleanup(cmd, a, if second { 2 } else { 1 }) {
        Ok(a) => a,
        Err(why) => return Verdict::NotApplicable(why),
    };
    let o = if second {
        match twice_to_cleanup(cmd, d, &a, sig) {
            Ok(o) => o,
            Err(e) => return Verdict::Fail(e),
        }
    } else {
        once_at_cleanup(cmd, d, &a, sig)
    };
    let v = verdict(&o, sig.code(), d);
    if !matches!(v, Verdict::Pass(_)) {
        return v;
    }
    let said = "second signal during cleanup: the removal of iomark's own files finishes first";
    if second && !o.stderr.contains(said) {
        return Verdict::Fail(format!(
            "stderr does not say the removal finishes: {}",
            o.stderr
        ));
    }
    let stopped = second || (cmd == Cmd::Run && sig.code() != 0);
    match cleaned_up(cmd, d, if stopped { "interrupted" } else { "ok" }) {
        Ok(()) => v,
        Err(e) => Verdict::Fail(e),
    }
}

/// One signal while the command is stopped at its first removal.
fn once_at_cleanup(cmd: Cmd, d: &Path, a: &[String], sig: Sig) -> Out {
    setup(cmd, d);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let child = start_stopped(d, &a, "unlink:stop@1");
    kill(child.id(), sig.number());
    kill(child.id(), libc::SIGCONT);
    finish_within(child, Duration::from_secs(30))
}

/// A stop signal, then the same signal again more than 1 s later (a second one, docs/
/// safety.md "Signals") while the cleanup it started is stopped at its first removal.
/// The first lands mid-run (`write:stop@2`); `fileio cleanup` has no run, so both land
/// at its removals (two files, `unlink:stop@1` and `@2`).
fn twice_to_cleanup(cmd: Cmd, d: &Path, a: &[String], sig: Sig) -> Result<Out, String> {
    let fault = if cmd == Cmd::Cleanup {
        iomark(
            d,
            &[&["fileio", "--file-num=2"][..], &SET[1..], &["prepare"]].concat(),
        );
        "unlink:stop@1,unlink:stop@2"
    } else {
        setup(cmd, d);
        "write:stop@2,unlink:stop@1"
    };
    let mut child = Iomark::new().dir(d).args(a).fault(fault).spawn();
    for round in 0..2 {
        if !wait_stopped(&mut child, Duration::from_secs(20)) {
            let _ = child.kill();
            return Err(format!("no stop point {round} of {fault}"));
        }
        if round == 1 {
            // the handler counts a signal as a second one only 1 s after the first
            std::thread::sleep(Duration::from_millis(1200));
        }
        kill(child.id(), sig.number());
        kill(child.id(), libc::SIGCONT);
    }
    Ok(finish_within(child, Duration::from_secs(30)))
}

/// `iomark time --json=out.json -- sh -c 'kill -STOP $PPID; exec sleep S'`: the command
/// stops iomark (its parent) while it waits for the command, so a signal lands at a
/// known point of the wait, never after a sleep.
fn time_stopped(d: &Path, sleep_s: u32) -> std::process::Child {
    let script = format!("kill -STOP $PPID; exec sleep {sleep_s}");
    let mut child = Iomark::new()
        .dir(d)
        .args(["time", "--json=out.json", "--", "sh", "-c", &script])
        .spawn();
    assert!(
        wait_stopped(&mut child, Duration::from_secs(20)),
        "iomark time never stopped"
    );
    child
}

/// A signal to `iomark time` while its command runs (time has no setup of its own: the
/// command starts at once, so its one moment is mid-run): a stop signal is passed to the
/// command, which it ends (exit 128 + N, the result `interrupted`); SIGPIPE and SIGUSR1
/// are not passed and change nothing (the command ends by itself, exit 0).
fn time_signal(
    d: &Path,
    sig: Sig,
    at: Moment,
    verdict: impl Fn(&Out, i32, &Path) -> Verdict,
) -> Verdict {
    if at == Moment::FirstIo {
        return Verdict::NotApplicable(
            "time has no setup of its own: the command starts at once (the mid-run cell)",
        );
    }
    setup(Cmd::Time, d);
    let passed = sig.code() != 0;
    let child = time_stopped(d, if passed { 60 } else { 1 });
    kill(child.id(), sig.number());
    kill(child.id(), libc::SIGCONT);
    let o = finish_within(child, Duration::from_secs(30));
    let v = verdict(&o, sig.code(), d);
    let s = std::fs::read_to_string(d.join("out.json")).unwrap_or_default();
    let status = if passed { "interrupted" } else { "ok" };
    match v {
        Verdict::Pass(_) if !s.contains(&format!("\"status\": \"{status}\"")) => {
            Verdict::Fail(format!("out.json does not say {status}: {s:.80}"))
        }
        v => v,
    }
}

/// SIGKILL of `iomark time` while its command runs: `--json` keeps its old content.
fn time_sigkill(d: &Path, verdict: impl Fn(&Out, i32, &Path) -> Verdict) -> Verdict {
    setup(Cmd::Time, d);
    let child = time_stopped(d, 1);
    kill(child.id(), libc::SIGKILL);
    let mut o = finish_within(child, Duration::from_secs(20));
    if o.signal != Some(libc::SIGKILL) {
        return Verdict::Fail(format!("not killed: {}", o.dump()));
    }
    o.code = -9;
    // the killed run left kernel.task_delayacct on and its old value recorded in /run:
    // the next `iomark time` puts it back (docs/commands/time.md); the machine is left as
    // it was found
    let next = Iomark::new().dir(d).args(["time", "--", "true"]).run();
    if next.code != 0 {
        return Verdict::Fail(format!("the time run after SIGKILL: {}", next.dump()));
    }
    match verdict(&o, -9, d) {
        Verdict::Pass(_)
            if std::fs::read_to_string(d.join("out.json")).ok().as_deref() != Some(OLD) =>
        {
            Verdict::Fail("out.json after SIGKILL is not its old content".into())
        }
        v => v,
    }
}

/// A short existing file of the user's at the data path (fileio, run), or at the
/// output (the others: replaced by a complete document).
fn short_file(
    cmd: Cmd,
    d: &Path,
    a: &[String],
    verdict: impl Fn(&Out, i32, &Path) -> Verdict,
) -> Verdict {
    if cmd == Cmd::Diagnose {
        return Verdict::NotApplicable("diagnose writes no file");
    }
    let text = b"41 bytes of the user's own text, kept!!!\n";
    setup(cmd, d);
    let run_read: Vec<String>;
    let a = if cmd == Cmd::Run {
        // a reading job over the user's short file: the layout extends it after its bytes
        run_read = a
            .iter()
            .map(|s| {
                if s == "--rw=write" {
                    "--rw=read".into()
                } else {
                    s.clone()
                }
            })
            .collect();
        &run_read[..]
    } else {
        a
    };
    if let Some(f) = data(cmd) {
        std::fs::write(d.join(f), text).unwrap();
    } else if let Some(o) = output(cmd) {
        std::fs::write(d.join(o), &text[..12]).unwrap();
    }
    let o = Iomark::new().dir(d).args(a).run();
    // fileio run refuses a set of the wrong size (sysbench: "Did you run 'prepare'…?");
    // prepare refuses a test file iomark did not create (run's and cleanup's were made by
    // the prepare of `setup`, then cut short by the user)
    let code = match cmd {
        Cmd::FileioRun => 1,
        Cmd::Prepare => 3,
        _ => 0,
    };
    let v = verdict(&o, code, d);
    if let (Verdict::Pass(_), Some(f)) = (&v, data(cmd)) {
        let got = std::fs::read(d.join(f)).unwrap_or_default();
        let kept = match cmd {
            Cmd::Cleanup => got.is_empty() && !d.join(f).exists(),
            _ => got.starts_with(text),
        };
        if !kept {
            return Verdict::Fail(format!(
                "{f}: the user's bytes were not kept ({} bytes now)",
                got.len()
            ));
        }
    }
    if let (Verdict::Pass(_), Some(out)) = (&v, output(cmd)) {
        let s = std::fs::read_to_string(d.join(out)).unwrap_or_default();
        if !s.is_empty() && s.as_bytes() == &text[..12] && code == 0 {
            return Verdict::Fail(format!(
                "{out}: the run succeeded but the old content stayed"
            ));
        }
    }
    v
}

/// A named pipe where the command reads a file or a directory.
fn fifo(cmd: Cmd, d: &Path, verdict: impl Fn(&Out, i32, &Path) -> Verdict) -> Verdict {
    mkfifo(&d.join("F"));
    let (a, code): (Vec<String>, i32) = match cmd {
        Cmd::Prepare | Cmd::FileioRun | Cmd::Cleanup => {
            // the FIFO at test_file.0: prepare and a reading run refuse it (not a regular
            // file), cleanup removes the name
            std::fs::rename(d.join("F"), d.join("test_file.0")).unwrap();
            let code = if cmd == Cmd::Cleanup { 0 } else { 3 };
            (args(cmd), code)
        }
        Cmd::Run => (vec!["run".into(), "F".into()], 2),
        Cmd::Report => (vec!["report".into(), "F".into()], 2),
        Cmd::Time => {
            return Verdict::NotApplicable("time reads no file (the command's stdin is its own)")
        }
        Cmd::Compare => (vec!["compare".into(), "F".into()], 2),
        Cmd::Diagnose => (vec!["diagnose".into(), "--fixture".into(), "F".into()], 2),
        Cmd::Mark | Cmd::Copy | Cmd::Tree | Cmd::Fio => {
            let mut a = args(cmd);
            a[1] = "F".into();
            (a, 3)
        }
    };
    let o = Iomark::new()
        .dir(d)
        .args(&a)
        .timeout(Duration::from_secs(20))
        .run();
    verdict(&o, code, d)
}

/// The work directory on a read-only tmpfs (fileio's set prepared before the remount).
fn read_only(cmd: Cmd, a: &[String], verdict: impl Fn(&Out, i32, &Path) -> Verdict) -> Verdict {
    let Some(m) = tmpfs("8m") else {
        return Verdict::NotApplicable("cannot mount tmpfs here (not root)");
    };
    let d = m.dir();
    setup(cmd, d);
    sh("mount", &["-o", "remount,ro", d.to_str().unwrap()]);
    let o = Iomark::new().dir(d).args(a).run();
    // reading commands are fine; a command that must create a file there cannot (3);
    // fileio's prepare keeps sysbench's code (1); cleanup keeps sysbench's 0 and says
    // which names stayed
    let code = match cmd {
        Cmd::Diagnose | Cmd::Cleanup => 0,
        Cmd::Prepare => 1,
        _ => 3,
    };
    let mut v = verdict(&o, code, d);
    if cmd == Cmd::Cleanup
        && !o
            .stderr
            .contains("test_file.0 was not removed: Read-only file system")
    {
        v = Verdict::Fail(format!("cleanup did not say what stayed: {}", o.stderr));
    }
    let _ = std::process::Command::new("mount")
        .args(["-o", "remount,rw", d.to_str().unwrap()])
        .status();
    v
}

/// The work directory on a small loop-mounted ext4 filled to the last block (fileio's
/// set prepared before the fill).
fn full_fs(cmd: Cmd, a: &[String], verdict: impl Fn(&Out, i32, &Path) -> Verdict) -> Verdict {
    let Some(fs) = LoopFs::small(16, "ext4") else {
        return Verdict::NotApplicable("cannot make a loop filesystem here (not root)");
    };
    let d = fs.dir();
    setup(cmd, d);
    fill_all(d);
    let o = Iomark::new().dir(d).args(a).run();
    // refused up front with the numbers (3); a reading fileio run works but its final
    // --json write fails (1); cleanup and diagnose need no space; compare's chart,
    // report's page and time's result, the final write of a command with no data files
    // to check space for (1: the rehearsal's small document still fits)
    let code = match cmd {
        Cmd::Cleanup | Cmd::Diagnose => 0,
        Cmd::FileioRun | Cmd::Compare | Cmd::Report | Cmd::Time => 1,
        _ => 3,
    };
    verdict(&o, code, d)
}

/// SIGKILL at a write (or read) stop point of the fault injector.
fn sigkill(
    cmd: Cmd,
    d: &Path,
    a: &[String],
    verdict: impl Fn(&Out, i32, &Path) -> Verdict,
) -> Verdict {
    let fault = match cmd {
        Cmd::Cleanup => return Verdict::NotApplicable("cleanup only unlinks its names"),
        Cmd::Diagnose => return Verdict::NotApplicable("diagnose writes nothing"),
        Cmd::Compare | Cmd::Report => {
            return Verdict::NotApplicable(
                "compare's and report's one write is the atomic rename of files::output",
            )
        }
        Cmd::Time => return time_sigkill(d, verdict),
        Cmd::FileioRun => "read:stop@10",
        _ => "write:stop@2",
    };
    setup(cmd, d);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let child = start_stopped(d, &a, fault);
    kill(child.id(), libc::SIGKILL);
    let mut o = finish_within(child, Duration::from_secs(20));
    if o.signal != Some(libc::SIGKILL) {
        return Verdict::Fail(format!("not killed: {}", o.dump()));
    }
    o.code = -9; // killed: the exit code is the signal's
    let v = verdict(&o, -9, d);
    if let (Verdict::Pass(_), Some(out)) = (&v, output(cmd)) {
        let s = std::fs::read_to_string(d.join(out)).unwrap_or_default();
        if s != OLD {
            return Verdict::Fail(format!(
                "{out} after SIGKILL is not its old content: {s:.80}"
            ));
        }
    }
    v
}

#[test]
fn hazard_table_every_command_against_every_hazard() {
    let t = std::time::Instant::now();
    let mut table = String::from("| command | ");
    table += &HAZARDS.map(|h| format!("{h:?}")).join(" | ");
    table += " |\n|---|";
    table += &"---|".repeat(HAZARDS.len());
    table.push('\n');
    let mut failures = vec![];
    // the cells of the link columns and of the FIFO column (one per path found)
    let (mut links, mut fifos) = (0, 0);
    for cmd in CMDS {
        table += &format!("| {cmd:?} |");
        for hz in HAZARDS {
            let v = cell(cmd, hz);
            let paths = match &v {
                Verdict::Pass(s) => s.split_whitespace().next().and_then(|w| w.parse().ok()),
                _ => None,
            };
            match hz {
                Hazard::Symlink | Hazard::HardLink => links += paths.unwrap_or(0),
                Hazard::FifoOutput => fifos += paths.unwrap_or(0),
                _ => {}
            }
            table += match &v {
                Verdict::Pass(s) => format!(" pass ({s}) |"),
                Verdict::NotApplicable(why) => format!(" n/a: {why} |"),
                Verdict::Fail(e) => {
                    failures.push(format!("{cmd:?} × {hz:?}: {e}"));
                    " FAIL |".to_string()
                }
            }
            .as_str();
        }
        table.push('\n');
    }
    eprintln!(
        "{table}\n({:.1} s; {links} link cells, {fifos} FIFO cells)",
        t.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failing cells:\n{}",
        failures.len(),
        failures.join("\n")
    );
    doc_counts_are_the_tables(links, fifos);
}

/// docs/safety.md's counts of the hazard table are the ones this run found: the
/// commands × hazards of the table, the link cells (paths × 2 plants) and the FIFO
/// cells (the outputs and scratch names), each read from its bold number in the prose
/// (`**128 link cells**`, `**47 FIFO cells**`), so a new cell cannot leave it stale.
fn doc_counts_are_the_tables(links: usize, fifos: usize) {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/safety.md")).unwrap();
    let bold = |what: &str| -> Option<usize> {
        let end = doc.find(&format!(" {what}**"))?;
        let start = doc[..end].rfind("**")? + 2;
        doc[start..end].parse().ok()
    };
    let total = CMDS.len() * HAZARDS.len();
    let shape = format!(
        "{} commands × {} hazards = **{total} cells**",
        CMDS.len(),
        HAZARDS.len()
    );
    assert!(doc.contains(&shape), "docs/safety.md should say {shape:?}");
    assert_eq!(
        bold("link cells"),
        Some(links),
        "docs/safety.md: link cells"
    );
    assert_eq!(
        bold("FIFO cells"),
        Some(fifos),
        "docs/safety.md: FIFO cells"
    );
}

/// A FIFO planted at each scratch name of mark, copy and tree (`iomark-mark.PID`,
/// `iomark-copy.PID.src` and `.NAME.dst`, `iomark-tree.PID`, found by stopping a run at
/// its second write and at its cleanup) is refused before any I/O, exit 3, the line
/// naming it, the FIFO left as planted and nothing written outside (the same cells as
/// the table's `FifoOutput` column, on their own).
#[test]
fn a_fifo_at_every_scratch_name_is_refused_before_any_io() {
    let mut cells = 0;
    for cmd in [Cmd::Mark, Cmd::Copy, Cmd::Tree] {
        match links::fifo_at_scratch(cmd) {
            Ok(n) => {
                assert!(n >= 1, "{cmd:?}: no scratch name found");
                cells += n;
            }
            Err(e) => panic!("{cmd:?}: {e}"),
        }
    }
    eprintln!("{cells} FIFO cells at scratch names");
}

/// A job set the machine cannot start (a thread limit: RLIMIT_NPROC of an unprivileged
/// user, which root would bypass) is exit 3 with one line naming the limit, never the
/// panic "failed to spawn thread" (exit 101), and the threads started are stopped.
#[test]
fn a_thread_the_machine_cannot_start_is_exit_3_naming_the_limit() {
    let (Some(setpriv), Some(prlimit)) = (tool("setpriv"), tool("prlimit")) else {
        skip("setpriv or prlimit missing (util-linux)");
        return;
    };
    if !is_root() {
        skip("needs root to drop to an unprivileged user");
        return;
    }
    // a copy of the binary and the job file where the unprivileged user can reach them
    let d = tempfile::Builder::new()
        .prefix("iomark-nproc-")
        .tempdir_in("/tmp")
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let bin = d.path().join("iomark");
    std::fs::copy(BIN, &bin).unwrap();
    let mut job = String::from(
        "[global]\nioengine=null\nrw=read\nbs=4k\nsize=64m\ntime_based=1\nruntime=10\n",
    );
    (0..200).for_each(|i| job += &format!("[j{i}]\n"));
    std::fs::write(d.path().join("200.fio"), job).unwrap();
    let t = std::time::Instant::now();
    let o = Iomark::program(setpriv)
        .dir(d.path())
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(prlimit)
        .arg("--nproc=50")
        .arg(&bin)
        .args(["run", "200.fio", "--output-format=json"])
        .run();
    assert_eq!(o.code, 3, "{}", o.dump());
    o.one_line_error(&[
        "cannot start thread",
        "of the 200 this group runs at once",
        "numjobs, stonewall",
    ]);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "the started threads ran on: {:?}",
        t.elapsed()
    );
}

/// Every path under `d`, relative, depth first.
fn tree_of(d: &Path) -> std::collections::BTreeSet<String> {
    fn go(root: &Path, sub: &str, out: &mut std::collections::BTreeSet<String>) {
        let Ok(rd) = std::fs::read_dir(root.join(sub)) else {
            return;
        };
        for e in rd.flatten() {
            let rel = format!("{sub}{}", e.file_name().to_string_lossy());
            out.insert(rel.clone());
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                go(root, &format!("{rel}/"), out);
            }
        }
    }
    let mut out = Default::default();
    go(d, "", &mut out);
    out
}

/// The first name `args` creates inside its own scratch directory, `{pid}` for the
/// process id: a run stopped where that creation is about to happen (the test-only
/// `create:stop@1`) and again at the next creation or the first write, the new path
/// between the two stops. Under a fault plan iomark creates names one at a time (a
/// thread stopped at a creation holds back the others: tree's walkers), so exactly one
/// name is made between the stops however the threads are scheduled.
fn first_inner_name(args: &[&str]) -> String {
    let work = scratch();
    let d = work.path();
    let mut child = start_stopped(d, args, "create:stop@1,create:stop@2,write:stop@1");
    let pid = child.id();
    let before = tree_of(d);
    kill(pid, libc::SIGCONT);
    assert!(
        wait_stopped(&mut child, Duration::from_secs(30)),
        "{args:?}: no second stop"
    );
    let made: Vec<String> = tree_of(d)
        .difference(&before)
        .filter(|p| !p.ends_with(".iomark-tmp"))
        .cloned()
        .collect();
    kill(pid, libc::SIGKILL);
    let _ = finish_within(child, Duration::from_secs(30));
    assert_eq!(made.len(), 1, "{args:?}: {made:?}");
    assert!(made[0].contains('/'), "{args:?}: not inside: {made:?}");
    made[0].replace(&pid.to_string(), "{pid}")
}

/// An inner name of a scratch directory — mark's test file in `iomark-mark.PID/`,
/// tree's first entry in `iomark-tree.PID/` — cannot be planted before the directory
/// exists, so the run is stopped once it does, just before that name is created (the
/// test-only `create:stop@1`, docs/testing.md), and a symbolic link or a hard link to
/// the outside file is planted there: the run refuses it (exit 3, as a planted
/// top-level scratch name; no panic; the line naming the entry) and the outside file
/// keeps its bytes, its mtime and its directory as they were.
#[test]
fn a_link_at_an_inner_scratch_name_is_never_written_through() {
    // mark's test file and tree's entry are refused by their O_EXCL create or mkdir
    // (EEXIST: the environment's, exit 3, as a planted top-level scratch name)
    let cases: [(&[&str], i32); 2] = [
        (
            &[
                "mark",
                ".",
                "--preset=realworld",
                "--size=1M",
                "--time=1",
                "--loops=1",
                "--warmup=0",
            ],
            3,
        ),
        (&["tree", ".", "--files=20", "--drop-caches=off"], 3),
    ];
    for (args, code) in cases {
        let name = first_inner_name(args);
        let base = Path::new(&name)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for plant in [Plant::Symlink, Plant::HardLink] {
            let outside = Outside::new();
            let work = scratch();
            let child = start_stopped(work.path(), args, "create:stop@1");
            let p = work
                .path()
                .join(name.replace("{pid}", &child.id().to_string()));
            assert!(p.parent().unwrap().is_dir(), "{}", p.display());
            assert!(p.symlink_metadata().is_err(), "{} exists", p.display());
            plant.at(&outside, &p);
            kill(child.id(), libc::SIGCONT);
            let o = finish_within(child, Duration::from_secs(60));
            let what = format!("{args:?} × {plant:?} at {name}");
            assert_eq!(o.code, code, "{what}: {}", o.dump());
            assert!(!o.stderr.contains("panicked"), "{what}: {}", o.dump());
            assert!(o.all().contains(&base), "{what}: {}", o.dump());
            // the cleanup says what it left in a line or two, not one per planned name
            let left = o
                .stderr
                .lines()
                .filter(|l| l.contains("cannot remove"))
                .count();
            assert!(left <= 2, "{what}: {}", o.stderr);
            outside.assert_intact(&what);
        }
    }
}
