//! The link columns of the hazard table: a symbolic link and a hard link to
//! an outside file planted at **every** path a command writes, one path at a time.
//!
//! The paths are not listed per command: they are found. A baseline run of the command
//! with every output switched on ([`variants`]: `--json`, `--output`, `--plot=DIR`,
//! fio's `write_*_log` files and `--bandwidth-log`, the verify state, the exec engine's
//! `std_redirect` files, report's `-o`, the history store of `IOMARK_RESULTS`) lists
//! what it left in its work directory; runs stopped at the second write and at the
//! first removal of the cleanup (the fault injector's `write:stop@2`, `unlink:stop@1`)
//! list what they had created by then and remove at the end (mark, copy and tree
//! scratch). Names holding the process id (scratch, history) or the
//! time (history) are planted for the cell's own process: `sh -c '…; exec iomark …'`
//! plants them under `$$`, which `exec` keeps as iomark's pid, at every second of the
//! next 20 for a time. The data path iomark names (`test_file.0`, `t.0.0`) is added.
//!
//! Each path × {symbolic link, hard link} (and × a FIFO at the outputs and the scratch
//! names: the table's `FifoOutput` column) runs the command in a fresh directory and
//! asserts: the outside file's bytes and mtime unchanged and nothing added beside it,
//! the planted name left as planted (fileio `cleanup` removes the name, never the
//! target), no panic, no temporary file left, and the documented refusal — an output
//! or a scratch name is refused before any I/O (exit 3, the line naming the path), a
//! fileio test file keeps sysbench's code 1, a history file is not kept (a warning
//! naming it; the command's own exit code is unchanged).

use super::super::files::{Outside, Plant};
use super::{args, data, Cmd, SET};
use crate::util::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// The extra arguments that switch on the outputs `cmd` has beside the table's own
/// (`out.json`, `out.svg`, `out.html`); `run` has four variants (fio's compressed logs,
/// a log shared by the threads, `per_job_logs=0`, and the exec engine are jobs of their
/// own).
fn variants(cmd: Cmd) -> Vec<Vec<&'static str>> {
    match cmd {
        Cmd::Prepare | Cmd::Cleanup => vec![vec![]],
        Cmd::FileioRun => vec![vec!["--plot=plots"]],
        Cmd::Run => vec![
            vec![
                "--output=out.txt",
                "--plot=plots",
                "--write_bw_log=w",
                "--write_iops_log=w",
                "--write_lat_log=w",
                "--write_hist_log=w",
                "--write_iolog=w.iolog",
                "--bandwidth-log",
                "--verify=crc32c",
            ],
            vec!["--write_bw_log=z", "--log_store_compressed=1"],
            // a log the threads share (fio appends each thread's lines to it)
            vec!["--write_bw_log=s", "--per_job_logs=0"],
            vec![
                "--ioengine=exec",
                "--program=true",
                "--time_based",
                "--runtime=1",
            ],
        ],
        Cmd::Mark => vec![vec!["--plot=plots"]],
        Cmd::Time => vec![vec!["--output=out.txt"]],
        Cmd::Diagnose | Cmd::Compare | Cmd::Copy | Cmd::Tree | Cmd::Report | Cmd::Fio => {
            vec![vec![]]
        }
    }
}

/// What is planted at a path: a link to the outside file, or a named pipe (at the
/// outputs only: a FIFO where a data file or an input is read is the table's
/// `FifoInput` column).
#[derive(Clone, Copy, Debug)]
pub(super) enum How {
    Link(Plant),
    Fifo,
}

/// What a found path is, which decides what refusing it looks like.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// a file or directory for the user to read afterwards
    Output,
    /// the data file iomark names
    Data,
    /// a name iomark creates and removes (mark, copy, tree)
    Scratch,
    /// the results history (`IOMARK_RESULTS`)
    History,
}

/// A path to plant at: relative to the work directory, `{pid}` for the process id,
/// `{time}` for the history's `YYYYMMDD-HHMMSS`.
#[derive(Clone, Debug)]
struct Target {
    rel: String,
    dir: bool,
    role: Role,
}

/// Every path under `d` (relative), descending into directories except those named
/// with the process id `pid` (a scratch directory is one target).
fn walk(d: &Path, pid: u32) -> BTreeSet<(String, bool)> {
    fn go(root: &Path, sub: &str, pid: &str, out: &mut BTreeSet<(String, bool)>) {
        let Ok(rd) = std::fs::read_dir(root.join(sub)) else {
            return;
        };
        for e in rd.flatten() {
            let rel = format!("{sub}{}", e.file_name().to_string_lossy());
            let dir = e.file_type().is_ok_and(|t| t.is_dir());
            out.insert((rel.clone(), dir));
            if dir && !rel.contains(pid) {
                go(root, &format!("{rel}/"), pid, out);
            }
        }
    }
    let mut out = BTreeSet::new();
    go(d, "", &pid.to_string(), &mut out);
    out
}

/// `rel` with the process id and the history's time replaced by their placeholders.
fn template(rel: &str, pid: u32) -> String {
    let mut t = rel.replace(&format!(".{pid}"), ".{pid}");
    t = t.replace(&format!("-{pid}."), "-{pid}.");
    if let Some(name) = t.strip_prefix("hist/") {
        // YYYYMMDD-HHMMSS-command-{pid}.json
        if name.len() > 15 && name.as_bytes()[8] == b'-' {
            t = format!("hist/{{time}}{}", &name[15..]);
        }
    }
    t
}

/// Prepare `d` as the table's cells do, without the old output files.
fn prepare(cmd: Cmd, d: &Path) {
    if matches!(cmd, Cmd::FileioRun | Cmd::Cleanup) {
        let o = iomark(d, &[&["fileio"][..], &SET[..], &["prepare"]].concat());
        assert_eq!(o.code, 0, "{}", o.dump());
    }
}

/// The command with the history on, kept in `hist/` of its work directory.
fn command(d: &Path, a: &[String]) -> Iomark {
    Iomark::new()
        .dir(d)
        .args(a)
        .env_remove("IOMARK_HISTORY")
        .env("IOMARK_RESULTS", d.join("hist"))
}

/// The paths `cmd` run with `a` writes: what a complete run leaves, what a run stopped
/// mid-way has made (and would remove), and the data path iomark names.
fn find(cmd: Cmd, a: &[String]) -> Result<Vec<Target>, String> {
    let work = scratch();
    let d = work.path();
    prepare(cmd, d);
    let before = walk(d, 0);
    let child = command(d, a).spawn();
    let pid = child.id();
    let o = finish_within(child, Duration::from_secs(60));
    if o.code != 0 {
        return Err(format!("the baseline run failed: {}", o.dump()));
    }
    let after = walk(d, pid);
    let mut v: Vec<Target> = after
        .difference(&before)
        .filter(|(rel, _)| rel != "hist")
        .map(|(rel, dir)| Target {
            rel: template(rel, pid),
            dir: *dir,
            role: if rel.starts_with("hist/") {
                Role::History
            } else {
                Role::Output
            },
        })
        .collect();
    v.extend(scratch_names(cmd, a));
    let named = |f: &str| after.iter().chain(&before).any(|(r, _)| r == f);
    if let Some(f) = data(cmd).filter(|f| named(f)) {
        v.retain(|t| t.rel != f);
        v.push(Target {
            rel: f.into(),
            dir: false,
            role: Role::Data,
        });
    }
    Ok(v)
}

/// The names holding the process id that a run has made when stopped at its second
/// write and at the first removal of its cleanup (mark, copy and tree scratch, which a
/// complete run removes); temporary files of outputs are not names of their own.
fn scratch_names(cmd: Cmd, a: &[String]) -> Vec<Target> {
    let mut found = BTreeSet::new();
    for fault in ["write:stop@2", "unlink:stop@1"] {
        let work = scratch();
        let d = work.path();
        prepare(cmd, d);
        let mut child = command(d, a).fault(fault).spawn();
        let pid = child.id();
        if wait_stopped(&mut child, Duration::from_secs(30)) {
            found.extend(
                walk(d, pid)
                    .into_iter()
                    .filter(|(rel, _)| {
                        rel.contains(&pid.to_string()) && !rel.ends_with(".iomark-tmp")
                    })
                    .map(|(rel, dir)| (template(&rel, pid), dir)),
            );
            kill(pid, libc::SIGKILL);
        }
        let _ = finish_within(child, Duration::from_secs(60));
    }
    found
        .into_iter()
        .map(|(rel, dir)| Target {
            rel,
            dir,
            role: Role::Scratch,
        })
        .collect()
}

/// The shell words that plant `how` at every name `t` stands for in the process
/// running the script (`$$`), the outside file `$V` (`$VD` its directory).
fn plant_script(t: &Target, how: How) -> String {
    let name = t.rel.replace("{pid}", "$$");
    let ln = match (how, t.dir) {
        (How::Link(Plant::Symlink), true) => "ln -s \"$VD\"",
        (How::Link(Plant::Symlink), false) => "ln -s \"$V\"",
        (How::Link(Plant::HardLink), _) => "ln \"$V\"",
        (How::Fifo, _) => "mkfifo",
    };
    if name.contains("{time}") {
        let name = name.replace("{time}", "$(date -u -d @$((T + k)) +%Y%m%d-%H%M%S)");
        format!("T=$(date +%s); for k in $(seq -2 20); do {ln} \"{name}\"; done;")
    } else {
        format!("{ln} \"{name}\";")
    }
}

/// Run `a` in `d` with `how` planted at `t`: directly when the name is fixed, else
/// through `sh -c '…; exec iomark …'`, whose `$$` is iomark's pid.
fn run_planted(d: &Path, a: &[String], t: &Target, how: How, outside: &Outside) -> Out {
    if let Some(parent) = Path::new(&t.rel).parent() {
        std::fs::create_dir_all(d.join(parent)).unwrap();
    }
    if !t.rel.contains('{') {
        let _ = std::fs::remove_file(d.join(&t.rel));
        let p = d.join(&t.rel);
        match (how, t.dir) {
            (How::Link(Plant::Symlink), true) => {
                std::os::unix::fs::symlink(outside.dir.path(), &p).unwrap()
            }
            (How::Link(plant), _) => plant.at(outside, &p),
            (How::Fifo, _) => super::super::files::mkfifo(&p),
        }
        // a FIFO opened for writing would wait for a reader: the timeout is the check
        return command(d, a).timeout(Duration::from_secs(60)).run();
    }
    let script = format!("{} exec \"$@\"", plant_script(t, how));
    Iomark::program("sh")
        .dir(d)
        .env_remove("IOMARK_FAULT")
        .env_remove("IOMARK_HISTORY")
        .env("IOMARK_RESULTS", d.join("hist"))
        .env("V", outside.file())
        .env("VD", outside.dir.path())
        .args(["-c", &script, "sh", BIN])
        .args(a)
        .timeout(Duration::from_secs(60))
        .run()
}

/// Whether `p` is still what `how` planted.
fn kept(p: &Path, how: How) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    p.symlink_metadata().is_ok_and(|m| match how {
        How::Link(Plant::Symlink) => m.file_type().is_symlink(),
        How::Link(Plant::HardLink) => m.nlink() >= 2,
        How::Fifo => m.file_type().is_fifo(),
    })
}

/// The names `t` stands for that exist in `d` after the cell (each must still be what
/// was planted).
fn planted_names(d: &Path, t: &Target) -> Vec<std::path::PathBuf> {
    if !t.rel.contains('{') {
        return vec![d.join(&t.rel)];
    }
    let parent = Path::new(&t.rel).parent().unwrap_or(Path::new(""));
    let Ok(rd) = std::fs::read_dir(d.join(parent)) else {
        return vec![];
    };
    rd.flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.symlink_metadata().is_ok_and(|m| {
                use std::os::unix::fs::{FileTypeExt, MetadataExt};
                m.file_type().is_symlink()
                    || m.file_type().is_fifo()
                    || (m.is_file() && m.nlink() > 1)
            })
        })
        .collect()
}

/// What refusing `t` looks like for `cmd`: the exit code and a word of the message.
fn refusal(cmd: Cmd, t: &Target, how: How) -> (i32, String) {
    let name = Path::new(&t.rel)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match t.role {
        Role::History => (0, "was not kept in the history".into()),
        Role::Data if cmd == Cmd::Cleanup => (0, String::new()),
        // a reading run reads a hard-linked test file (only a writer refuses one): the
        // outside file is shorter than the set, sysbench's `Size of file` line, exit 1
        Role::Data if cmd == Cmd::FileioRun && matches!(how, How::Link(Plant::HardLink)) => {
            (1, "test_file.0".into())
        }
        // an unsafe path: the code of every planted link (docs/safety.md "Exit codes")
        Role::Data if matches!(cmd, Cmd::Prepare | Cmd::FileioRun) => (3, "test_file.0".into()),
        Role::Scratch => (3, "iomark-".into()),
        _ if t.rel.starts_with("plots/") => (3, name),
        _ => (3, name.replace("{pid}", "")),
    }
}

/// One path × one plant: Ok(exit code) or what went wrong.
fn one(cmd: Cmd, a: &[String], t: &Target, how: How) -> Result<i32, String> {
    let outside = Outside::new();
    let work = scratch();
    let d = work.path();
    prepare(cmd, d);
    let o = run_planted(d, a, t, how, &outside);
    if o.code == 101 || o.stderr.contains("panicked") {
        return Err(format!("panic: {}", o.dump()));
    }
    outside.check_intact()?;
    let (code, word) = refusal(cmd, t, how);
    if o.code != code || !o.all().contains(&word) {
        return Err(format!(
            "exit {} (want {code}, naming {word:?}): {}",
            o.code,
            o.stderr.trim()
        ));
    }
    let names = planted_names(d, t);
    if cmd == Cmd::Cleanup && t.role == Role::Data {
        if !names.iter().all(|p| p.symlink_metadata().is_err()) {
            return Err("cleanup left the planted name".into());
        }
    } else if names.is_empty() {
        return Err("the planted name is gone".into());
    }
    if let Some(p) = names
        .iter()
        .find(|p| p.symlink_metadata().is_ok() && !kept(p, how))
    {
        return Err(format!("{} was replaced", p.display()));
    }
    let tmp: Vec<String> = walk(d, 0)
        .into_iter()
        .map(|(r, _)| r)
        .filter(|r| r.ends_with(".iomark-tmp"))
        .collect();
    match tmp.is_empty() {
        true => Ok(o.code),
        false => Err(format!("temporary files left: {tmp:?}")),
    }
}

/// The scratch names `cmd` creates (mark, copy, tree) × a FIFO: Ok(how many cells
/// passed) or the failing paths (the table's `FifoOutput` cells hold these too).
pub(super) fn fifo_at_scratch(cmd: Cmd) -> Result<usize, String> {
    let a = args(cmd);
    let targets = find(cmd, &a)?;
    let mut n = 0;
    let mut failures = vec![];
    for t in targets.iter().filter(|t| t.role == Role::Scratch) {
        match one(cmd, &a, t, How::Fifo) {
            Ok(_) => n += 1,
            Err(e) => failures.push(format!("{}: {e}", t.rel)),
        }
    }
    match failures.is_empty() {
        true => Ok(n),
        false => Err(failures.join("; ")),
    }
}

/// Every path `cmd` writes × `how` (a FIFO at the outputs and scratch names only): Ok(a summary: the
/// paths by role and the exit codes seen; no paths: None) or the failing paths.
pub(super) fn sweep(cmd: Cmd, how: How) -> Result<Option<String>, String> {
    let mut roles: std::collections::BTreeMap<String, usize> = Default::default();
    let mut codes = BTreeSet::new();
    let mut failures = vec![];
    for extra in variants(cmd) {
        // options go before `time`'s `--` (what follows is its command's)
        let mut a = args(cmd);
        let at = a.iter().position(|w| w == "--").unwrap_or(a.len());
        a.splice(at..at, extra.iter().map(|s| s.to_string()));
        let targets = find(cmd, &a)?;
        // a FIFO where iomark writes: every output and every scratch name it creates
        // (copy's `iomark-copy.PID.src`, mark's and tree's directories), not the data
        // file or an input (the table's `FifoInput` column)
        let fifo = matches!(how, How::Fifo);
        let planted = |t: &&Target| !fifo || matches!(t.role, Role::Output | Role::Scratch);
        for t in targets.iter().filter(planted) {
            *roles
                .entry(format!("{:?}", t.role).to_lowercase())
                .or_default() += 1;
            match one(cmd, &a, t, how) {
                Ok(c) => {
                    codes.insert(c);
                }
                Err(e) => failures.push(format!("{} ({:?}): {e}", t.rel, t.role)),
            }
        }
    }
    if !failures.is_empty() {
        return Err(failures.join("; "));
    }
    let n: usize = roles.values().sum();
    let by: Vec<String> = roles.iter().map(|(r, k)| format!("{k} {r}")).collect();
    Ok((n > 0).then(|| format!("{n} paths ({}), exit {codes:?}", by.join(", "))))
}
