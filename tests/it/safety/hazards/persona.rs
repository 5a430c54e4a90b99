//! The fio persona's row of the hazard table: iomark invoked through a symbolic link
//! named `fio` (`as_fio`), one job of 16 writes of 4 KiB into `t.0.0` (a name it made)
//! with fio's JSON report in `--output=out.json`. Each cell runs the persona in a fresh
//! directory beside the outside file and asserts what the table asserts — the outside
//! file's bytes, mtime and directory unchanged, `out.json` its old content or a complete
//! document, no panic, the exit code of the persona's documented behaviour
//! (docs/compat/fio.md: where fio 3.33 exits otherwise, the difference is written
//! there). The signal cells are those of `interrupts::fio_persona` (fio's exit 128 for
//! SIGINT and SIGTERM, `fio: terminating on signal N` first in `--output`).

use super::super::files::{fill_all, mkfifo, tmpfs, Outside, Plant};
use super::{Hazard, Moment, Sig, Verdict};
use crate::interrupts::fio_persona as signals;
use crate::util::*;
use signals::OLD;
use std::path::Path;
use std::time::Duration;

/// The persona's job (the signal tests' own): its data file is `t.0.0`, its report
/// `out.json`.
pub(super) use signals::JOB;

/// The persona in `d` (its symbolic link under `bin`).
fn fio(bin: &Path, d: &Path) -> Iomark {
    as_fio(bin).dir(d).timeout(Duration::from_secs(60))
}

/// The checks of every cell: no panic, exit `code`, the outside file intact and
/// `out.json` (unless planted) its old content or a complete document.
fn checks(o: &Out, code: i32, d: &Path, outside: &Outside) -> Result<(), String> {
    if let Some(e) = o.ended_wrong(code) {
        return Err(e);
    }
    outside.check_intact()?;
    let out = d.join("out.json");
    let planted = out.symlink_metadata().is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.file_type().is_symlink() || m.nlink() > 1
    });
    if !planted {
        old_or_report(&out)?;
    }
    Ok(())
}

/// `out.json` is absent, a planted FIFO, its old content, or fio's whole JSON report.
fn old_or_report(p: &Path) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt;
    if p.symlink_metadata().is_ok_and(|m| m.file_type().is_fifo()) {
        return Ok(());
    }
    let Ok(b) = std::fs::read(p) else {
        return Ok(());
    };
    if b == OLD.as_bytes() {
        return Ok(());
    }
    match serde_json::from_slice::<serde_json::Value>(&b) {
        Ok(v) if v["jobs"].is_array() => Ok(()),
        _ => Err(format!(
            "out.json is neither old nor fio's report: {:.80}",
            String::from_utf8_lossy(&b)
        )),
    }
}

/// The verdict of `checks` plus a cell-specific `more` check, `pass` its summary.
fn verdict(r: Result<(), String>, pass: String) -> Verdict {
    match r {
        Ok(()) => Verdict::Pass(pass),
        Err(e) => Verdict::Fail(e),
    }
}

/// One cell of the persona's row.
pub(super) fn cell(hz: Hazard) -> Verdict {
    let bin = scratch();
    let b = bin.path();
    match hz {
        Hazard::Symlink => links(b, Plant::Symlink),
        Hazard::HardLink => links(b, Plant::HardLink),
        Hazard::ShortFile => short_file(b),
        Hazard::FifoInput => fifo_input(b),
        Hazard::DevFull => dev_full(b),
        Hazard::ClosedPipe => closed_pipe(b),
        Hazard::ReadOnlyDir => read_only(b),
        Hazard::FullFs => full_fs(b),
        Hazard::Sigkill => sigkill(b),
        Hazard::Collision => collision(b),
        Hazard::FifoOutput => fifo_output(b),
        Hazard::Signal(sig, at) => signal(b, sig, at),
        Hazard::SecondSignal(sig) => second_signal(b, sig),
    }
}

/// A link to the outside file at `--output` (refused before any I/O, exit 3 as a link at
/// the data file: fio 3.33 writes through it and exits 0; it was 1, which the fresh-user
/// pass found inconsistent with the data file's 3), at the data file `t.0.0` the persona
/// named (refused, exit 3),
/// at a short data file named by `filename=` (replaced by a new file as fio's layout
/// replaces it, exit 0), and at each log file ([`log_links`]): the target untouched in
/// each.
fn links(b: &Path, plant: Plant) -> Verdict {
    let cases: [(&str, &[&str], i32); 3] = [
        ("out.json", &[], 3),
        ("t.0.0", &[], 3),
        ("d.dat", &["--filename=d.dat"], 0),
    ];
    if let Err(e) = log_links(b, plant) {
        return Verdict::Fail(e);
    }
    for (at, extra, code) in cases {
        let outside = Outside::new();
        let work = scratch();
        let d = work.path();
        plant.at(&outside, &d.join(at));
        let o = fio(b, d).args(JOB).args(extra).run();
        let what = format!("{plant:?} at {at}");
        if let Err(e) = checks(&o, code, d, &outside) {
            return Verdict::Fail(format!("{what}: {e}"));
        }
        let m = d.join(at).symlink_metadata().unwrap();
        let replaced = {
            use std::os::unix::fs::MetadataExt;
            m.is_file() && m.nlink() == 1 && m.len() == 64 << 10
        };
        let ok = match code {
            0 => replaced,
            _ => o.stderr.contains(at) && !replaced,
        };
        if !ok {
            return Verdict::Fail(format!("{what}: {}", o.dump()));
        }
    }
    let n = cases.len() + LOGS.len();
    Verdict::Pass(format!(
        "{n} paths (output, data, filename=, {} logs), exit {{3, 0}}",
        LOGS.len()
    ))
}

/// The log files of `write_bw_log`, `write_iops_log` and `write_lat_log` (prefix `t`,
/// the job's one thread) and the option that makes each.
const LOGS: [(&str, &str); 5] = [
    ("t_bw.1.log", "--write_bw_log=t"),
    ("t_iops.1.log", "--write_iops_log=t"),
    ("t_lat.1.log", "--write_lat_log=t"),
    ("t_clat.1.log", "--write_lat_log=t"),
    ("t_slat.1.log", "--write_lat_log=t"),
];

/// `how` planted at each log file ([`LOGS`]), one at a time, each in a fresh directory:
/// refused before any I/O with exit 3, as a planted `--output` and data file (fio 3.33
/// writes through a link and waits forever on a FIFO there; `iomark run`: exit 3), the
/// line naming the log; no data file made, the planted name left as planted, the
/// outside file's bytes and mtime unchanged. `Err`: the first case that went otherwise.
fn planted_logs(b: &Path, how: &dyn Fn(&Outside, &Path), what: &str) -> Result<(), String> {
    for (at, opt) in LOGS {
        let outside = Outside::new();
        let work = scratch();
        let d = work.path();
        let p = d.join(at);
        how(&outside, &p);
        let before = p.symlink_metadata().map_err(|e| e.to_string())?;
        let o = fio(b, d).args(JOB).arg(opt).run();
        let case = format!("{what} at {at} ({opt})");
        checks(&o, 3, d, &outside).map_err(|e| format!("{case}: {e}"))?;
        let after = p.symlink_metadata().map_err(|e| format!("{case}: {e}"))?;
        let kept = {
            use std::os::unix::fs::MetadataExt;
            (after.ino(), after.nlink(), after.file_type())
                == (before.ino(), before.nlink(), before.file_type())
        };
        let named = o.stderr.contains(&format!("{at}: cannot write log file"));
        if !kept || !named || d.join("t.0.0").exists() {
            return Err(format!(
                "{case}: kept {kept}, named {named}, data file made {}: {}",
                d.join("t.0.0").exists(),
                o.dump()
            ));
        }
    }
    Ok(())
}

/// [`planted_logs`] with a symbolic or a hard link to the outside file.
fn log_links(b: &Path, plant: Plant) -> Result<(), String> {
    planted_logs(b, &|o, p| plant.at(o, p), &format!("{plant:?}"))
}

/// A symbolic link and a hard link to the user's file at each log file of the fio
/// persona (`write_bw_log`, `write_iops_log`, `write_lat_log`'s three): exit 3, as a
/// link at `--output` or at a data file under the persona, the user's file byte for byte (the
/// `Fio` row's link cells hold these cases too).
#[test]
fn a_link_at_a_log_file_under_the_fio_persona_is_exit_3_and_the_target_untouched() {
    let bin = scratch();
    for plant in [Plant::Symlink, Plant::HardLink] {
        if let Err(e) = log_links(bin.path(), plant) {
            panic!("{e}");
        }
    }
}

/// A user's short file at the data path of a reading job: the layout extends it after
/// the user's bytes, which stay (fio 3.33 lays out a new file in its place).
fn short_file(b: &Path) -> Verdict {
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    let text = b"41 bytes of the user's own text, kept!!!\n";
    std::fs::write(d.join("t.0.0"), text).unwrap();
    std::fs::write(d.join("out.json"), OLD).unwrap();
    let read: Vec<&str> = JOB
        .iter()
        .map(|a| if *a == "--rw=write" { "--rw=read" } else { *a })
        .collect();
    let o = fio(b, d).args(read).run();
    let r = checks(&o, 0, d, &outside).and_then(|()| {
        let got = std::fs::read(d.join("t.0.0")).unwrap_or_default();
        match got.starts_with(text) && got.len() == 64 << 10 {
            true => Ok(()),
            false => Err(format!("t.0.0: {} bytes, the user's kept: no", got.len())),
        }
    });
    verdict(r, "exit 0".into())
}

/// A FIFO as the data file `filename=t.0.0` (refused before any I/O, exit 1 as fio, the
/// FIFO left: fio 3.33 reports `failed to get file size` with no I/O), and a job file that is a
/// FIFO (bash's `<(…)`: read once and run, exit 0, as fio).
fn fifo_input(b: &Path) -> Verdict {
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    mkfifo(&d.join("t.0.0"));
    let o = fio(b, d).args(JOB).arg("--filename=t.0.0").run();
    if let Err(e) = checks(&o, 1, d, &outside) {
        return Verdict::Fail(format!("FIFO data file: {e}"));
    }
    let left = {
        use std::os::unix::fs::FileTypeExt;
        d.join("t.0.0")
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_fifo())
    };
    if !o.stderr.contains("t.0.0: is a FIFO") || !left {
        return Verdict::Fail(format!("FIFO data file: {}", o.dump()));
    }
    let _ = std::fs::remove_file(d.join("t.0.0"));
    let job = "exec \"$0\" <(printf '[j]\\nrw=write\\nbs=4k\\nsize=64k\\nfilename=t.0.0\\n') \
               --output-format=json --output=out.json";
    let o = Iomark::program("bash")
        .dir(d)
        .env("IOMARK_HISTORY", "off")
        .args(["-c", job])
        .arg(b.join("bin/fio"))
        .timeout(Duration::from_secs(60))
        .run();
    let r = checks(&o, 0, d, &outside).and_then(|()| {
        let v = read_json(&d.join("out.json"));
        match v["jobs"][0]["write"]["io_bytes"].as_u64() {
            Some(n) if n == 64 << 10 => Ok(()),
            _ => Err(format!("the FIFO's job did not run: {v}")),
        }
    });
    verdict(r, "exit 1 (data), 0 (job file)".into())
}

/// `--output=/dev/full`: refused before any work (exit 1; fio 3.33 runs, loses the
/// report and exits 0); the report on stdout into /dev/full: exit 1 with a line (fio: 0).
fn dev_full(b: &Path) -> Verdict {
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    let o = fio(b, d).args(&JOB[..5]).arg("--output=/dev/full").run();
    if let Err(e) = checks(&o, 1, d, &outside) {
        return Verdict::Fail(format!("--output=/dev/full: {e}"));
    }
    if d.join("t.0.0").exists() {
        return Verdict::Fail("--output=/dev/full: the job ran".into());
    }
    let o = as_fio(b)
        .dir(d)
        .args(&JOB[..5])
        .command()
        .stdin(std::process::Stdio::null())
        .stdout(Sink::DevFull.stdio())
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let out = Out {
        code: o.status.code().unwrap_or(-1),
        signal: None,
        stdout: String::new(),
        stderr: err.to_string(),
    };
    let r = checks(&out, 1, d, &outside).and_then(|()| {
        match err.contains("cannot write the report to stdout") {
            true => Ok(()),
            false => Err(format!("no stdout error line: {err}")),
        }
    });
    verdict(r, "exit 1 (--output and stdout)".into())
}

/// stdout a pipe whose reader is gone: the persona ends as fio does, killed by SIGPIPE
/// at its report (a shell's 141), nothing on stderr, `--output` untouched.
fn closed_pipe(b: &Path) -> Verdict {
    use std::os::unix::process::ExitStatusExt;
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    let o = as_fio(b)
        .dir(d)
        .args(&JOB[..5])
        .command()
        .stdin(std::process::Stdio::null())
        .stdout(Sink::ClosedPipe.stdio())
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if o.status.signal() != Some(libc::SIGPIPE) || err.contains("panicked") {
        return Verdict::Fail(format!("{:?}: {err}", o.status));
    }
    verdict(outside.check_intact(), "killed by SIGPIPE (141)".into())
}

/// The work directory on a read-only tmpfs: `--output` cannot be opened there, fio
/// 3.33's `fio: output file open error: Read-only file system` and exit 1 before any
/// I/O; without `--output` the layout fails as fio's (its `err=30 … func=unlink` line,
/// exit 1).
fn read_only(b: &Path) -> Verdict {
    let Some(m) = tmpfs("8m") else {
        return Verdict::NotApplicable("cannot mount tmpfs here (not root)");
    };
    let outside = Outside::new();
    let d = m.dir();
    std::fs::write(d.join("out.json"), OLD).unwrap();
    sh("mount", &["-o", "remount,ro", d.to_str().unwrap()]);
    let with = fio(b, d).args(JOB).run();
    let without = fio(b, d).args(&JOB[..5]).run();
    let _ = std::process::Command::new("mount")
        .args(["-o", "remount,rw", d.to_str().unwrap()])
        .status();
    let r = checks(&with, 1, d, &outside)
        .and_then(|()| checks(&without, 1, d, &outside))
        .and_then(|()| {
            let open = "fio: output file open error: Read-only file system\n";
            let fio_line = "err=30/file:filesetup.c:150, func=unlink, error=Read-only file system";
            match with.stderr == open && without.all().contains(fio_line) {
                true => Ok(()),
                false => Err(format!("{}\n{}", with.dump(), without.dump())),
            }
        });
    verdict(r, "exit 1 (--output, layout)".into())
}

/// The work directory on a full filesystem: the layout does not fit, refused before any
/// I/O with the numbers, `--output` kept; exit 1, fio 3.33's code for the write that
/// meets ENOSPC (`iomark run`: 3).
fn full_fs(b: &Path) -> Verdict {
    let Some(fs) = LoopFs::small(16, "ext4") else {
        return Verdict::NotApplicable("cannot make a loop filesystem here (not root)");
    };
    let outside = Outside::new();
    let d = fs.dir();
    std::fs::write(d.join("out.json"), OLD).unwrap();
    fill_all(d);
    let o = fio(b, d).args(JOB).run();
    let r = checks(&o, 1, d, &outside).and_then(|()| {
        match std::fs::read_to_string(d.join("out.json")).ok().as_deref() == Some(OLD) {
            true => Ok(()),
            false => Err("out.json is not its old content".into()),
        }
    });
    verdict(r, "exit 1".into())
}

/// SIGKILL at the third write of a re-run: `--output` its old content byte for byte.
fn sigkill(b: &Path) -> Verdict {
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    let child = signals::stopped(b, d, "write:stop@3", false);
    kill(child.id(), libc::SIGKILL);
    let mut o = finish_within(child, Duration::from_secs(20));
    if o.signal != Some(libc::SIGKILL) {
        return Verdict::Fail(format!("not killed: {}", o.dump()));
    }
    o.code = -9;
    let r = checks(&o, -9, d, &outside).and_then(|()| {
        match std::fs::read_to_string(d.join("out.json")).ok().as_deref() == Some(OLD) {
            true => Ok(()),
            false => Err("out.json after SIGKILL is not its old content".into()),
        }
    });
    verdict(r, "exit -9".into())
}

/// `--output` named as the data file: exit 2, one line naming both, the file untouched.
fn collision(b: &Path) -> Verdict {
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    std::fs::write(d.join("t.0.0"), b"mine\n").unwrap();
    let o = fio(b, d).args(&JOB[..5]).arg("--output=./t.0.0").run();
    let r = checks(&o, 2, d, &outside).and_then(|()| {
        let said = o
            .stderr
            .contains("--output=./t.0.0 and data file=t.0.0 are the same file");
        match said && std::fs::read(d.join("t.0.0")).unwrap() == b"mine\n" {
            true => Ok(()),
            false => Err(format!("not refused naming both: {}", o.dump())),
        }
    });
    verdict(r, "exit 2".into())
}

/// A FIFO at `--output`: refused before any I/O (exit 3, the line naming it), left as
/// planted; a FIFO at each log file too ([`planted_logs`]).
fn fifo_output(b: &Path) -> Verdict {
    if let Err(e) = planted_logs(b, &|_, p| mkfifo(p), "a FIFO") {
        return Verdict::Fail(e);
    }
    use std::os::unix::fs::FileTypeExt;
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    mkfifo(&d.join("out.json"));
    let o = fio(b, d).args(JOB).run();
    let r = checks(&o, 3, d, &outside).and_then(|()| {
        let kept = d
            .join("out.json")
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_fifo());
        match kept && o.stderr.contains("out.json") && !d.join("t.0.0").exists() {
            true => Ok(()),
            false => Err(o.dump()),
        }
    });
    verdict(
        r,
        format!(
            "{} paths (--output, {} logs), exit 3",
            1 + LOGS.len(),
            LOGS.len()
        ),
    )
}

/// The persona's exit code for `sig`.
fn code_of(sig: Sig) -> i32 {
    let n = sig.number();
    signals::SIGNALS
        .iter()
        .find(|s| s.0 == n)
        .map_or(-1, |s| s.2)
}

/// `sig` while the persona is stopped at its first write, mid-run, or at the first
/// removal of its cleanup (`unlink=1`): the persona's code, `--output` the complete
/// report, nothing left.
fn signal(b: &Path, sig: Sig, at: Moment) -> Verdict {
    let (fault, cleanup) = match at {
        Moment::FirstIo => ("write:stop@1", false),
        Moment::MidRun => ("write:stop@3", false),
        Moment::Cleanup => ("unlink:stop@1", true),
    };
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    let code = code_of(sig);
    let child = signals::stopped(b, d, fault, cleanup);
    kill(child.id(), sig.number());
    kill(child.id(), libc::SIGCONT);
    let o = finish_within(child, Duration::from_secs(30));
    match signals::check(&o, d, (sig.number(), code), cleanup) {
        Some(e) => Verdict::Fail(e),
        None => verdict(outside.check_intact(), format!("exit {code}")),
    }
}

/// A second SIGINT, SIGTERM or SIGHUP during the cleanup the first one started.
fn second_signal(b: &Path, sig: Sig) -> Verdict {
    let code = code_of(sig);
    match signals::second_signal(b, sig.number(), code) {
        Some(e) => Verdict::Fail(e),
        None => Verdict::Pass(format!("exit {code}")),
    }
}
