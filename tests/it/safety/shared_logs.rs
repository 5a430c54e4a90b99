//! fio's logs that the job threads share (`per_job_logs=0`: one `PREFIX_bw.log` that
//! every thread adds its lines to, files/output.rs `Staged::commit_appended`) under the
//! hazards of the table's `run` row: a FIFO planted at the shared name (refused before
//! any I/O, never opened, so nothing waits for a reader) and a SIGKILL while the threads
//! write it (the file keeps its old content; what is left beside it is said in
//! docs/safety.md). The link and FIFO cells of the hazard table plant at a shared log
//! too (hazards/links.rs, `run`'s `per_job_logs=0` variant).

use super::files::mkfifo;
use crate::util::*;
use std::time::Duration;

/// Three threads of one job writing 4 KiB blocks, their bandwidth lines in one shared
/// `s_bw.log`, one line per I/O.
const JOB: [&str; 8] = [
    "--name=s",
    "--rw=write",
    "--bs=4k",
    "--size=1m",
    "--numjobs=3",
    "--write_bw_log=s",
    "--per_job_logs=0",
    "--log_avg_msec=0",
];

/// A FIFO at the shared log's name: refused before any I/O by `iomark run` (exit 3) and
/// by the fio persona (exit 3 too, as a FIFO at its `--output`; fio 3.33 opens the
/// FIFO at the end of the job and waits for a reader for ever), one line naming it, the
/// FIFO left as planted, no data file made. Each run has 60 s (the check: a run that
/// opened the FIFO would wait there until killed).
#[test]
fn a_fifo_at_a_shared_log_is_refused_before_any_io_and_never_waits() {
    use std::os::unix::fs::FileTypeExt;
    let bin = scratch();
    for (who, code) in [("iomark run", 3), ("fio", 3)] {
        let work = scratch();
        let d = work.path();
        mkfifo(&d.join("s_bw.log"));
        let cmd = match who {
            "fio" => as_fio(bin.path()),
            _ => Iomark::new().arg("run"),
        };
        let o = cmd.dir(d).args(JOB).timeout(Duration::from_secs(60)).run();
        assert_eq!(o.code, code, "{who}: {}", o.dump());
        assert!(
            o.stderr
                .contains("s_bw.log: cannot write log file: is not a regular file (a FIFO)"),
            "{who}: {}",
            o.dump()
        );
        let fifo = d
            .join("s_bw.log")
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_fifo());
        assert!(fifo, "{who}: the FIFO was not left as planted");
        assert_eq!(entries(d), ["s_bw.log"], "{who}: files made");
    }
}

/// A time-based run of three threads sharing `s_bw.log`, killed with SIGKILL while they
/// write it (stopped at the 200th write of the run, all threads between their first I/O
/// and their end, then killed): the log holds its old content byte for byte — each
/// thread's lines wait in a temporary file beside it until the thread ends and adds
/// them (docs/safety.md). What SIGKILL leaves: the data files `s.N.0` and nothing else
/// of iomark's (the temporary files are unnamed, O_TMPFILE, on this filesystem); with
/// the named fallback of a filesystem without O_TMPFILE forced
/// (`IOMARK_TEST_NO_TMPFILE=1`), besides them the temporary files
/// `.s_bw.log.XXXXXX.iomark-tmp`, one per thread that had started (1 to 3).
#[test]
fn sigkill_while_threads_write_a_shared_log_keeps_its_old_content() {
    let (none, left) = sigkill_mid_shared_log(false);
    if tmpfile_in(&scratch()) {
        assert!(
            none.is_empty(),
            "temporary files left: {none:?} (all: {left:?})"
        );
    }
    let (named, left) = sigkill_mid_shared_log(true);
    assert!(
        (1..=3).contains(&named.len()),
        "named fallback: {} temporary files for 3 threads: {left:?}",
        named.len()
    );
}

/// One SIGKILL of [`sigkill_while_threads_write_a_shared_log_keeps_its_old_content`]
/// (`named`: the named fallback forced): the log's old content checked, and nothing
/// but the data files and `.s_bw.log.*.iomark-tmp` left; returns those temporary
/// files and every name left.
fn sigkill_mid_shared_log(named: bool) -> (Vec<String>, Vec<String>) {
    let work = scratch();
    let d = work.path();
    let old = b"0, 1234, 1, 4096, 0\nan earlier run's lines, kept\n";
    std::fs::write(d.join("s_bw.log"), old).unwrap();
    let mut cmd = Iomark::new()
        .dir(d)
        .arg("run")
        .args(JOB)
        .args(["--time_based", "--runtime=60"])
        .fault("write:stop@200");
    if named {
        cmd = cmd.env("IOMARK_TEST_NO_TMPFILE", "1");
    }
    let mut child = cmd.spawn();
    assert!(
        wait_stopped(&mut child, Duration::from_secs(30)),
        "never reached its 200th write"
    );
    kill(child.id(), libc::SIGKILL);
    let o = finish_within(child, Duration::from_secs(20));
    assert_eq!(o.signal, Some(libc::SIGKILL), "{}", o.dump());
    assert_eq!(
        std::fs::read(d.join("s_bw.log")).unwrap(),
        old,
        "s_bw.log after SIGKILL is not its old content (named: {named})"
    );
    let all = entries(d);
    let tmp: Vec<String> = all
        .iter()
        .filter(|n| n.starts_with(".s_bw.log.") && n.ends_with(".iomark-tmp"))
        .cloned()
        .collect();
    let data = |n: &str| ["s.0.0", "s.1.0", "s.2.0"].contains(&n);
    let other: Vec<&String> = all
        .iter()
        .filter(|n| n.as_str() != "s_bw.log" && !data(n) && !tmp.contains(n))
        .collect();
    assert!(
        other.is_empty(),
        "left after SIGKILL (named: {named}): {other:?} (all: {all:?})"
    );
    eprintln!("left after SIGKILL (named: {named}): {all:?}");
    (tmp, all)
}

/// Whether the filesystem of `d` makes unnamed files (O_TMPFILE).
fn tmpfile_in(d: &tempfile::TempDir) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .open(d.path())
        .is_ok()
}
