//! fio's verify state (`verify_state_save`, default on; `verify_state_load`;
//! `--aux-path`): a write job with `verify=` killed partway (SIGTERM, SIGINT) leaves
//! `local-NAME-INDEX-verify.state`, and the read job that loads it verifies exactly
//! the blocks it says were written (without it the same read job fails on the first
//! unwritten block); a corrupted written block still fails; a missing or foreign state
//! ends the run with one line. The layout of the file is fio 3.33's
//! (src/run/verify/state.rs).

use crate::util::*;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

const BS: u64 = 4096;
const SIZE: u64 = 1 << 20;

/// The job, sequential 4 KiB blocks over `f` (1 MiB), md5 verify, JSON output.
fn job<'a>(rw: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "--name=w",
        "--filename=f",
        rw,
        "--bs=4k",
        "--size=1m",
        "--verify=md5",
        "--output-format=json",
    ];
    a.extend_from_slice(extra);
    a
}

/// Bytes written by `pid` so far (`wchar` of /proc/PID/io).
fn wchar(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    io.lines()
        .find_map(|l| l.strip_prefix("wchar: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// Start the rate-limited write job (100 blocks/s: 2.6 s for the file), send `sig`
/// once it has written at least 10 blocks, and return its report's bytes written.
fn write_killed(d: &Path, sig: i32, code: i32) -> u64 {
    // the file exists at its size: the job lays nothing out, every write is the job's
    std::fs::write(d.join("f"), vec![0u8; SIZE as usize]).unwrap();
    let child = Iomark::new()
        .dir(d)
        .arg("run")
        .args(job("--rw=write", &["--rate_iops=100"]))
        .spawn();
    let t = Instant::now();
    while wchar(child.id()) < 10 * BS {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the write job never wrote 10 blocks"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(kill(child.id(), sig), 0);
    let o = finish(child);
    assert_eq!(o.code, code, "{}", o.dump());
    let written = o.json()["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
    assert!(
        (10 * BS..SIZE).contains(&written),
        "killed partway: {written}"
    );
    written
}

/// The state's `numberio` (writes issued) and its last completion (file, offset).
fn state_of(p: &Path) -> (u64, (u64, u64)) {
    let b = std::fs::read(p).unwrap();
    let u = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    assert_eq!(u(0), 3, "fio 3.33's version");
    assert_eq!(u(24), 1, "one completion at iodepth=1");
    (u(24 + 16), (u(24 + 152), u(24 + 160)))
}

fn read_bytes(o: &Out) -> Value {
    o.json()["jobs"][0]["read"]["io_bytes"].clone()
}

#[test]
fn a_killed_write_job_leaves_the_state_its_read_job_verifies_exactly() {
    for (sig, code) in [(libc::SIGTERM, 143), (libc::SIGINT, 130)] {
        let d = scratch();
        let written = write_killed(d.path(), sig, code);
        let (issued, last) = state_of(&d.path().join("local-w-0-verify.state"));
        assert_eq!(issued, written / BS, "writes issued = written at depth 1");
        assert_eq!(
            last,
            (0, written - BS),
            "the last completion is the last block written"
        );
        let o = run(d.path(), &job("--rw=read", &["--verify_state_load=1"]));
        assert_eq!(o.code, 0, "{}", o.dump());
        assert_eq!(
            read_bytes(&o),
            written,
            "verifies exactly the blocks written"
        );
        // the same read job without the state reads on into the unwritten blocks
        let o = run(d.path(), &job("--rw=read", &[]));
        assert_eq!(o.code, 1, "{}", o.dump());
        assert_eq!(o.json()["jobs"][0]["error"], 84);
        assert!(
            o.stderr.contains(&format!("offset {written}:")),
            "{}",
            o.stderr
        );
    }
}

#[test]
fn a_corrupted_block_the_state_says_was_written_fails_the_verify() {
    let d = scratch();
    let written = write_killed(d.path(), libc::SIGTERM, 143);
    let p = d.path().join("f");
    let mut data = std::fs::read(&p).unwrap();
    for b in &mut data[8192 + 100..8192 + 108] {
        *b ^= 0xff;
    }
    std::fs::write(&p, data).unwrap();
    let o = run(d.path(), &job("--rw=read", &["--verify_state_load=1"]));
    assert_eq!(o.code, 1, "{}", o.dump());
    assert_eq!(o.json()["jobs"][0]["error"], 84);
    assert!(
        o.stderr.contains("verify failed") && o.stderr.contains("offset 8192"),
        "{}",
        o.stderr
    );
    assert!(read_bytes(&o).as_u64().unwrap() < written);
}

#[test]
fn a_missing_or_foreign_state_ends_the_run_with_one_line() {
    let d = scratch();
    let o = run(d.path(), &job("--rw=write", &[]));
    assert_eq!(o.code, 0, "{}", o.dump());
    let saved = d.path().join("local-w-0-verify.state");
    assert!(saved.is_file(), "verify_state_save is on by default (fio)");
    // another job's name: its own file, which is missing
    let mut a = job("--rw=read", &["--verify_state_load=1"]);
    a[0] = "--name=r";
    let o = run(d.path(), &a);
    assert_eq!(o.code, 3, "{}", o.dump());
    o.one_line_error(&[
        "job 'r'",
        "verify_state_load",
        "local-r-0-verify.state",
        "No such file",
    ]);
    // the write job's file under the read job's name: refused by what it holds
    std::fs::copy(&saved, d.path().join("local-r-0-verify.state")).unwrap();
    let o = run(d.path(), &a);
    assert_eq!(o.code, 3, "{}", o.dump());
    o.one_line_error(&["verify_state_load", "was saved by job 'w'"]);
    // a complete write leaves a state that lets the read job verify the whole file
    let o = run(d.path(), &job("--rw=read", &["--verify_state_load=1"]));
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(read_bytes(&o), SIZE);
}

#[test]
fn save_off_without_verify_and_aux_path() {
    let d = scratch();
    let state = d.path().join("local-w-0-verify.state");
    run(d.path(), &job("--rw=write", &["--verify_state_save=0"])).ok();
    assert!(!state.exists(), "verify_state_save=0 saves nothing");
    run(
        d.path(),
        &["--name=w", "--filename=f", "--rw=write", "--size=64k"],
    )
    .ok();
    assert!(!state.exists(), "a job without verify= saves nothing");
    run(d.path(), &job("--rw=read", &[])).expect_code(1);
    assert!(!state.exists(), "a job that only reads saves nothing");
    std::fs::create_dir(d.path().join("aux")).unwrap();
    run(d.path(), &job("--rw=write", &["--aux-path=aux"])).ok();
    assert!(!state.exists() && d.path().join("aux/local-w-0-verify.state").is_file());
    let o = run(
        d.path(),
        &job("--rw=read", &["--aux-path=aux", "--verify_state_load=1"]),
    )
    .ok();
    assert_eq!(read_bytes(&o), SIZE);
    // never through a symbolic link: refused before any I/O (docs/safety.md), exit 3,
    // naming the file; nothing is written where the link points
    std::os::unix::fs::symlink("elsewhere", &state).unwrap();
    let o = run(d.path(), &job("--rw=write", &[]));
    o.expect_code(3);
    assert!(
        o.stderr.contains("local-w-0-verify.state") && o.stderr.contains("symbolic link"),
        "{}",
        o.stderr
    );
    assert!(!d.path().join("elsewhere").exists());
    assert!(state.is_symlink(), "the planted link is left as it was");
}
