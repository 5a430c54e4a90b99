//! The hazard table: every command × every hazard in one test.
//! Each cell runs one invocation in its own directory beside an outside directory of
//! the user's (helpers in safety/files.rs) and asserts: the outside file's sha256 is
//! unchanged, every output is its old content or a complete document (JSON parses, the
//! SVG ends with `</svg>`), the exit code is the documented one (docs/safety.md, "Exit
//! codes" and "When stdout cannot be written"), and nothing panicked (no "panicked" on
//! stderr, no exit 101). A cell that cannot arise says why (`n/a`). The table is printed
//! (`cargo test … hazard_table -- --nocapture`) and every failing cell is listed before
//! the test fails. Sizes are tiny and runs short (`--time=0 --events=N`, 64 KiB files).

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
}

const CMDS: [Cmd; 9] = [
    Cmd::Prepare,
    Cmd::FileioRun,
    Cmd::Cleanup,
    Cmd::Run,
    Cmd::Mark,
    Cmd::Diagnose,
    Cmd::Compare,
    Cmd::Copy,
    Cmd::Tree,
];
const HAZARDS: [Hazard; 9] = [
    Hazard::Symlink,
    Hazard::HardLink,
    Hazard::ShortFile,
    Hazard::FifoInput,
    Hazard::DevFull,
    Hazard::ClosedPipe,
    Hazard::ReadOnlyDir,
    Hazard::FullFs,
    Hazard::Sigkill,
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
    };
    let word = match cmd {
        Cmd::Prepare | Cmd::FileioRun | Cmd::Cleanup => "fileio",
        Cmd::Run => "run",
        Cmd::Mark => "mark",
        Cmd::Diagnose => "diagnose",
        Cmd::Compare => "compare",
        Cmd::Copy => "copy",
        Cmd::Tree => "tree",
    };
    std::iter::once(word).chain(v).map(String::from).collect()
}

/// The output file of `cmd` in its work directory, if it writes one.
fn output(cmd: Cmd) -> Option<&'static str> {
    match cmd {
        Cmd::Prepare | Cmd::Cleanup | Cmd::Diagnose => None,
        Cmd::Compare => Some("out.svg"),
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
    let Ok(b) = std::fs::read(p) else {
        return Ok(()); // gone (a refused planted name is checked by the cell)
    };
    if b == OLD.as_bytes() {
        return Ok(());
    }
    let s = String::from_utf8_lossy(&b);
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
    if o.code == 101 || o.stderr.contains("panicked") {
        return Err(format!("panic: {}", o.dump()));
    }
    if o.code != code {
        return Err(format!(
            "exit {} (want {code}): {}",
            o.code,
            o.stderr.trim()
        ));
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
            planted(cmd, plant, &outside, d, &a, verdict)
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
            let o = to_sink(d, &a, sink);
            let code = if hz == Hazard::DevFull { 1 } else { 0 };
            if hz == Hazard::DevFull && !o.stderr.contains("cannot write the report to stdout") {
                return Verdict::Fail(format!("no stdout error line: {}", o.stderr));
            }
            verdict(&o, code, d)
        }
        Hazard::ReadOnlyDir => read_only(cmd, &a, verdict),
        Hazard::FullFs => full_fs(cmd, &a, verdict),
        Hazard::Sigkill => sigkill(cmd, d, &a, verdict),
    }
}

/// A symbolic or hard link to the outside file at the output (or the data file).
fn planted(
    cmd: Cmd,
    plant: Plant,
    outside: &Outside,
    d: &Path,
    a: &[String],
    verdict: impl Fn(&Out, i32, &Path) -> Verdict,
) -> Verdict {
    if cmd == Cmd::Diagnose {
        return Verdict::NotApplicable("diagnose writes no file");
    }
    setup(cmd, d);
    let name = data(cmd).unwrap_or_else(|| output(cmd).unwrap());
    let _ = std::fs::remove_file(d.join(name));
    plant.at(outside, &d.join(name));
    let o = Iomark::new().dir(d).args(a).run();
    // fileio refuses a linked test_file.N itself (sysbench's code 1; a reading run may
    // read a hard-linked file, but this one has the outside file's size: "Size of file
    // … is", 1); cleanup unlinks the name, never the target
    let code = match cmd {
        Cmd::Cleanup => 0,
        Cmd::Prepare | Cmd::FileioRun => 1,
        _ => 3,
    };
    let v = verdict(&o, code, d);
    if let (Verdict::Pass(_), Cmd::Cleanup) = (&v, cmd) {
        if d.join(name).symlink_metadata().is_ok() {
            return Verdict::Fail("cleanup left the planted name".into());
        }
    } else if matches!(v, Verdict::Pass(_)) {
        plant.assert_kept(&d.join(name));
    }
    v
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
    // fileio run refuses a set of the wrong size (sysbench: "Did you run 'prepare'…?")
    let code = if cmd == Cmd::FileioRun { 1 } else { 0 };
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
            let code = if cmd == Cmd::Cleanup { 0 } else { 1 };
            (args(cmd), code)
        }
        Cmd::Run => (vec!["run".into(), "F".into()], 2),
        Cmd::Compare => (vec!["compare".into(), "F".into()], 2),
        Cmd::Diagnose => (vec!["diagnose".into(), "--fixture".into(), "F".into()], 2),
        Cmd::Mark | Cmd::Copy | Cmd::Tree => {
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
    // --json write fails (1); cleanup and diagnose need no space; compare's chart (1)
    let code = match cmd {
        Cmd::Cleanup | Cmd::Diagnose => 0,
        Cmd::FileioRun | Cmd::Compare => 1,
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
        Cmd::Compare => {
            return Verdict::NotApplicable(
                "compare's one write is the atomic rename of files::output",
            )
        }
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
        if s != OLD && !s.contains("\"running\"") && !s.contains("\"status\"") {
            return Verdict::Fail(format!("{out} after SIGKILL: {s:.80}"));
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
    for cmd in CMDS {
        table += &format!("| {cmd:?} |");
        for hz in HAZARDS {
            let v = cell(cmd, hz);
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
    eprintln!("{table}\n({:.1} s)", t.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "{} failing cells:\n{}",
        failures.len(),
        failures.join("\n")
    );
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
