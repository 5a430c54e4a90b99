//! Fault injection (`IOMARK_FAULT`, test-only) and real ENOSPC on a small ext4 loop
//! device: every failure stops the run with the op, file, offset and errno, exits 1
//! (3 when the environment refuses before work starts), never counts the failed I/O as
//! done (JSON counters checked exactly), and leaves a valid partial text report and
//! RunResult JSON. EINTR/EAGAIN are retried. `--validate` catches corruption injected
//! between write and read (a byte flipped in the file, or in a read buffer).
//!
//! The loop-device tests need root (CI runs as root); without it they print why and
//! return. Mounts and loop devices are released by a Drop guard, also on failure.

use crate::util::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

fn prepare(dir: &Path, extra: &[&str]) {
    let mut a = vec!["fileio", "--file-num=2", "--file-total-size=4M"];
    a.extend_from_slice(extra);
    a.push("prepare");
    let r = iomark_fault(dir, "", &a);
    assert_eq!(r.code, 0, "prepare failed: {}{}", r.stdout, r.stderr);
}

/// A fileio run on the 2-file, 4 MiB set with `--json=r.json`; returns (run, json).
fn fileio_run(dir: &Path, fault: &str, extra: &[&str]) -> (Out, Value) {
    let _ = std::fs::remove_file(dir.join("r.json"));
    let mut a = vec![
        "fileio",
        "--file-num=2",
        "--file-total-size=4M",
        "--file-fsync-freq=0",
        "--time=0",
        "--events=2000",
        "--rand-seed=7",
        "--json=r.json",
    ];
    a.extend_from_slice(extra);
    a.push("run");
    let r = iomark_fault(dir, fault, &a);
    let j = read_json(&dir.join("r.json"));
    (r, j)
}

fn ops(j: &Value, sec: &str) -> u64 {
    j[sec]["ops"]
        .as_u64()
        .unwrap_or_else(|| panic!("{sec}.ops missing: {j}"))
}

/// The FATAL line names op, file number and name, offset and errno; the offset is a
/// block-aligned position inside the 2 MiB file.
fn assert_fatal(out: &str, op: &str, errno_text: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("FATAL: Failed to {op} file! file: ")))
        .unwrap_or_else(|| panic!("no FATAL {op} line in:\n{out}"));
    assert!(line.contains("(test_file."), "{line}");
    assert!(line.contains(errno_text), "{line}");
    if op == "fsync" {
        return 0;
    }
    let pos: u64 = line
        .split("pos: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no pos in {line}"));
    assert_eq!(pos % 16384, 0, "{line}");
    assert!(pos < 2 << 20, "{line}");
    pos
}

/// Text partial report after the failure agrees with the JSON counters.
fn assert_partial(r: &Out, j: &Value) {
    assert!(
        r.stdout
            .contains("iomark: the run failed; the report below counts only the I/O completed"),
        "{}",
        r.stdout
    );
    let rep = parse_report(&r.stdout);
    assert_eq!(rep.events, j["events"].as_u64().unwrap());
    assert_eq!(j["status"], "failed");
    let err = j["error"].as_str().expect("error text in JSON");
    assert!(err.starts_with("FATAL: "), "{err}");
    assert!(!r.stdout.contains("panicked") && !r.stderr.contains("panicked"));
}

#[test]
fn write_eio_stops_at_the_nth_write_and_counts_only_the_ones_before() {
    let d = scratch();
    prepare(d.path(), &[]);
    let (r, j) = fileio_run(d.path(), "write:eio@100", &["--file-test-mode=rndwr"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "write", "errno = 5 (Input/output error)");
    assert_eq!(ops(&j, "write"), 99);
    assert_eq!(ops(&j, "read"), 0);
    assert_eq!(j["events"], 99);
    assert_eq!(j["write"]["bytes"], 99 * 16384);
    assert_partial(&r, &j);
    assert!(j["error"].as_str().unwrap().contains("errno = 5"));
}

#[test]
fn read_eio_and_short_reads_fail_with_position() {
    let d = scratch();
    prepare(d.path(), &[]);
    let (r, j) = fileio_run(d.path(), "read:eio@50", &["--file-test-mode=rndrd"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "read", "errno = 5");
    assert_eq!(ops(&j, "read"), 49);
    assert_partial(&r, &j);

    let (r, j) = fileio_run(d.path(), "read:short@5", &["--file-test-mode=seqrd"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let pos = assert_fatal(&r.stdout, "read", "short transfer of 8192 bytes");
    // sequential: the 5th read starts at 4 blocks
    assert_eq!(pos, 4 * 16384);
    assert_eq!(ops(&j, "read"), 4);
    assert_eq!(j["read"]["bytes"], 4 * 16384);
    assert_partial(&r, &j);
}

#[test]
fn short_write_and_enospc_write_and_fsync_eio() {
    let d = scratch();
    prepare(d.path(), &[]);
    let (r, j) = fileio_run(d.path(), "write:short@7", &["--file-test-mode=rndwr"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "write", "short transfer of 8192 bytes");
    assert_eq!(ops(&j, "write"), 6);
    assert_partial(&r, &j);

    let (r, j) = fileio_run(d.path(), "write:enospc@10", &["--file-test-mode=rndwr"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "write", "errno = 28 (No space left on device)");
    assert_eq!(ops(&j, "write"), 9);
    assert_partial(&r, &j);

    // periodic fsyncs (--file-fsync-freq=10); the 3rd fsync fails: the 20 writes and
    // 2 fsyncs before it are counted, the failed fsync is not
    let (r, j) = fileio_run(
        d.path(),
        "fsync:eio@3",
        &["--file-test-mode=rndwr", "--file-fsync-freq=10"],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "fsync", "errno = 5");
    assert_eq!(ops(&j, "write"), 20);
    assert_eq!(ops(&j, "fsync"), 2);
    assert_eq!(j["events"], 22);
    assert_partial(&r, &j);
}

#[test]
fn eintr_and_eagain_are_retried_and_the_run_completes() {
    let d = scratch();
    prepare(d.path(), &[]);
    let (r, j) = fileio_run(
        d.path(),
        "write:eintr@5,read:eagain@3,fsync:eintr@1,write:eagain@9",
        &[
            "--file-test-mode=rndrw",
            "--file-fsync-freq=10",
            "--events=300",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(j["status"], "ok");
    assert_eq!(j["events"], 300);
    // every event is a read, a write or a periodic fsync; retries are not events; the
    // end-of-test fsync (one per file) is counted as an fsync call but not an event
    let c = json_counts(&j);
    assert_eq!(c.reads + c.writes + c.periodic, 300);
    assert!(c.periodic >= 1);
    assert_eq!(c.fsync_calls, c.periodic + 2);

    // a persistent EAGAIN is given up after the retry budget: a failure, not a hang
    let (r, j) = fileio_run(d.path(), "read:eagain@3+", &["--file-test-mode=rndrd"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "read", "errno = 11");
    assert_eq!(ops(&j, "read"), 2);
    assert_partial(&r, &j);
}

#[test]
fn mmap_and_async_modes_stop_on_faults() {
    let d = scratch();
    prepare(d.path(), &[]);
    let (r, j) = fileio_run(
        d.path(),
        "write:eio@20",
        &["--file-test-mode=rndwr", "--file-io-mode=mmap"],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "write", "errno = 5");
    assert_eq!(ops(&j, "write"), 19);
    assert_partial(&r, &j);

    let (probe, _) = fileio_run(
        d.path(),
        "",
        &[
            "--file-test-mode=rndrd",
            "--file-io-mode=async",
            "--events=10",
        ],
    );
    if probe.code == 3 {
        skip(format_args!(
            "io_uring not permitted here: async fault case ({})",
            probe.stdout
        ));
        return;
    }
    assert_eq!(probe.code, 0, "{}{}", probe.stdout, probe.stderr);
    let (r, j) = fileio_run(
        d.path(),
        "read:eio@50",
        &[
            "--file-test-mode=rndrd",
            "--file-io-mode=async",
            "--file-async-backlog=8",
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "read", "errno = 5");
    // the 49 requests submitted before the failure completed and were drained
    assert_eq!(ops(&j, "read"), 49);
    assert_partial(&r, &j);
    // a short completion reaped from the ring is a failure too
    let (r, j) = fileio_run(
        d.path(),
        "read:short@30",
        &["--file-test-mode=rndrd", "--file-io-mode=async"],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_fatal(&r.stdout, "read", "short transfer of 8192 bytes");
    // the 29 earlier reads completed; later ones may complete before the short one when
    // the reads go to the device (completions come back out of order), so the count is
    // bounded by the run's stop, not by 30 + depth: it must end long before 2000 events
    assert!(ops(&j, "read") < 2000 && ops(&j, "read") >= 29, "{j}");
    assert_partial(&r, &j);
}

#[test]
fn validate_catches_a_byte_flipped_behind_the_tools_back() {
    let d = scratch();
    let base = [
        "fileio",
        "--file-num=1",
        "--file-total-size=1M",
        "--validate",
    ];
    let r = iomark_fault(d.path(), "", &[&base[..], &["prepare"]].concat());
    assert_eq!(r.code, 0, "{}", r.stdout);
    // flip one byte at 300000: block 18 (offset 294912) of 16 KiB blocks
    let p = d.path().join("test_file.0");
    let mut v = std::fs::read(&p).unwrap();
    v[300_000] ^= 0x55;
    std::fs::write(&p, &v).unwrap();
    let args = [
        &base[..],
        &[
            "--file-test-mode=seqrd",
            "--time=0",
            "--events=64",
            "--json=v.json",
            "run",
        ],
    ]
    .concat();
    let r = iomark_fault(d.path(), "", &args);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("FATAL: Checksum mismatch in block with offset: 294912"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("FATAL: Validation failed on file 0 (test_file.0), block offset 294912"));
    let j = read_json(&d.path().join("v.json"));
    assert_eq!(j["status"], "failed");
    // 18 good blocks were read before the bad one, which is not counted
    assert_eq!(ops(&j, "read"), 18);

    // unchanged file (flip back): the same run passes every block
    v[300_000] ^= 0x55;
    std::fs::write(&p, &v).unwrap();
    let r = iomark_fault(d.path(), "", &args);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);

    // corruption of a read buffer (in memory, after a good read) is caught as well
    let r = iomark_fault(d.path(), "read:corrupt@5", &args);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("FATAL: Validation failed on file 0 (test_file.0), block offset 65536"),
        "{}",
        r.stdout
    );
}

#[test]
fn copy_and_tree_faults_fail_cleanly_and_remove_their_files() {
    let d = scratch();
    let (s, t) = (d.path().join("s"), d.path().join("t"));
    std::fs::create_dir_all(&s).unwrap();
    std::fs::create_dir_all(&t).unwrap();
    for (fault, code, msg) in [
        ("write:eio@3", 1, "cannot write at offset 8388608 of"),
        ("read:eio@5", 1, "cannot read at offset 524288 of"),
        ("write:enospc@2", 3, "No space left on device"),
    ] {
        let r = iomark_fault(
            d.path(),
            fault,
            &["copy", "s", "t", "--size=16M", "--json=c.json"],
        );
        assert_eq!(r.code, code, "{fault}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(msg), "{fault}: {}", r.stderr);
        assert_eq!(r.stderr.matches("iomark copy:").count(), 1, "{}", r.stderr);
        let j = read_json(&d.path().join("c.json"));
        assert_eq!(j["status"], "failed");
        assert!(j["error"].as_str().unwrap().contains(msg));
        assert!(entries(&s).is_empty() && entries(&t).is_empty(), "{fault}");
    }
    let r = iomark_fault(d.path(), "write:eintr@2", &["copy", "s", "t", "--size=4M"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);

    for (fault, msg, done) in [
        ("write:eio@50", "cannot write at offset 0 of", vec!["mkdir"]),
        (
            "read:eio@10",
            "cannot read at offset ",
            vec!["mkdir", "create_write", "fsync", "stat_all"],
        ),
        ("fsync:eio@1", "syncfs", vec!["mkdir", "create_write"]),
    ] {
        let r = iomark_fault(
            d.path(),
            fault,
            &["tree", "t", "--files=200", "--json=t.json"],
        );
        assert_eq!(r.code, 1, "{fault}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(msg), "{fault}: {}", r.stderr);
        let j = read_json(&d.path().join("t.json"));
        assert_eq!(j["status"], "failed");
        let names: Vec<&str> = j["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, done, "{fault}: completed phases only");
        assert!(entries(&t).is_empty(), "{fault}: {:?}", entries(&t));
    }
}

#[test]
fn mark_fault_fails_and_removes_its_test_directory() {
    let d = scratch();
    let m = d.path().join("m");
    std::fs::create_dir_all(&m).unwrap();
    let r = iomark_fault(
        d.path(),
        "read:eio@30",
        &[
            "mark",
            "m",
            "--size=16M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let fatal = r
        .stdout
        .lines()
        .find(|l| l.starts_with("FATAL: Failed to read file! file: 0 ("))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        fatal.contains("/test_file.0) pos: ") && fatal.contains("errno = 5"),
        "{fatal}"
    );
    assert!(r.stderr.contains("iomark mark: failed in "), "{}", r.stderr);
    assert!(entries(&m).is_empty(), "{:?}", entries(&m));
}

#[test]
fn malformed_fault_spec_is_refused() {
    let d = scratch();
    let r = iomark_fault(d.path(), "write:boom@1", &["fileio", "help"]);
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .starts_with("iomark: IOMARK_FAULT: invalid rule 'write:boom@1'"));
    assert_eq!(r.stderr.lines().count(), 1);
}

// ---------------------------------------------------------------- real ENOSPC

fn iomark_names(dir: &Path) -> Vec<String> {
    entries(dir)
        .into_iter()
        .filter(|n| n.starts_with("test_file.") || n.starts_with("iomark-"))
        .collect()
}

#[test]
fn real_enospc_prepare_refused_with_numbers_and_run_that_fills_the_disk() {
    let Some(fs) = LoopFs::small(16, "ext4") else {
        return;
    };
    let d = fs.dir();
    // prepare bigger than the filesystem: refused before writing, with the numbers
    let r = iomark_fault(
        d,
        "",
        &["fileio", "--file-num=4", "--file-total-size=64M", "prepare"],
    );
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("FATAL: not enough free space in "))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        line.contains("prepare needs 67108864 bytes (64MiB)"),
        "{line}"
    );
    assert!(line.contains(&format!("{} bytes", fs.avail())), "{line}");
    assert!(iomark_names(d).is_empty(), "{:?}", entries(d));

    // copy and tree refuse before creating anything
    let r = iomark_fault(d, "", &["copy", ".", ".", "--size=64M"]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("not enough free space"), "{}", r.stderr);
    let r = iomark_fault(d, "", &["tree", ".", "--files=20000"]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("not enough free"), "{}", r.stderr);
    assert!(iomark_names(d).is_empty(), "{:?}", entries(d));

    // a 4 MiB set fits and is prepared; then its files lose their blocks (sparse, as a
    // `cp --sparse` copy would be: the sizes still match, so the run accepts them) and a
    // user file fills the disk to 1 MiB free: the run's writes meet a real ENOSPC.
    let r = iomark_fault(
        d,
        "",
        &["fileio", "--file-num=2", "--file-total-size=4M", "prepare"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for i in 0..2 {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(d.join(format!("test_file.{i}")))
            .unwrap();
        f.set_len(0).unwrap();
        f.set_len(2 << 20).unwrap();
    }
    fs.fill(1 << 20);
    let r = iomark_fault(
        d,
        "",
        &[
            "fileio",
            "--file-num=2",
            "--file-total-size=4M",
            "--file-test-mode=seqrewr",
            "--time=0",
            "--events=100000",
            "--json=../r.json",
            "run",
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let fatal = r
        .stdout
        .lines()
        .find(|l| l.starts_with("FATAL: Failed to "))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        fatal.contains("errno = 28 (No space left on device)"),
        "{fatal}"
    );
    assert!(fatal.contains("(test_file."), "{fatal}");
    let j = read_json(&d.join("../r.json"));
    assert_eq!(j["status"], "failed");
    let written = j["write"]["bytes"].as_u64().unwrap();
    assert!(written > 0 && written < 4 << 20, "{written}");
    // the bytes counted were really written: the files hold at least that much
    let on_disk: u64 = (0..2)
        .map(|i| {
            std::fs::metadata(d.join(format!("test_file.{i}")))
                .unwrap()
                .len()
        })
        .sum();
    assert!(on_disk >= written, "{on_disk} < {written}");
    // cleanup gives the space back
    let r = iomark_fault(d, "", &["fileio", "--file-num=2", "cleanup"]);
    assert_eq!(r.code, 0);
    assert!(iomark_names(d).is_empty(), "{:?}", entries(d));
}

#[test]
fn real_enospc_during_copy_tree_and_mark_leaves_no_iomark_file() {
    let Some(fs) = LoopFs::small(16, "ext4") else {
        return;
    };
    let d = fs.dir();
    let before = fs.avail();
    // copy: the preflight passes (6 MiB source + one 6 MiB copy fit); the process
    // stops itself after creating the source (IOMARK_FAULT=…:stop), a user file
    // then takes the free space, and the copy meets a real ENOSPC.
    for (cmd, fault) in [
        (
            vec!["copy", ".", ".", "--size=6M", "--json=../c.json"],
            "fsync:stop@1",
        ),
        (
            vec!["tree", ".", "--files=300", "--json=../c.json"],
            "write:stop@2",
        ),
        // mark: stopped while preparing its 8 MiB test file
        (
            vec![
                "mark",
                ".",
                "--size=8M",
                "--time=1",
                "--loops=1",
                "--warmup=0",
            ],
            "write:stop@2",
        ),
    ] {
        let _ = std::fs::remove_file(d.join("../c.json"));
        let mut child = Iomark::new().dir(d).args(&cmd).fault(fault).spawn();
        assert!(
            wait_stopped(&mut child, Duration::from_secs(10)),
            "{cmd:?}: did not stop at {fault}"
        );
        fs.fill(16 << 10);
        kill(child.id(), libc::SIGCONT);
        let out = finish(child);
        let err = format!("{}{}", out.stdout, out.stderr);
        assert_eq!(out.code, 3, "{cmd:?}: {err}");
        assert!(err.contains("No space left on device"), "{cmd:?}: {err}");
        if cmd[0] != "mark" {
            let j = read_json(&d.join("../c.json"));
            assert_eq!(j["status"], "failed", "{cmd:?}");
        }
        assert!(iomark_names(d).is_empty(), "{cmd:?}: {:?}", entries(d));
        std::fs::remove_file(d.join("user-filler")).unwrap();
        // all the space iomark used is free again (within ext4's allocation slack); ext4
        // returns the blocks of unlinked files at the next journal commit, so sync and
        // give it up to 5 s rather than read the counter at once
        let mut now = fs.avail();
        for _ in 0..50 {
            if now + (256 << 10) >= before {
                break;
            }
            // SAFETY: sync(2) has no arguments and cannot fail.
            unsafe { libc::sync() };
            std::thread::sleep(Duration::from_millis(100));
            now = fs.avail();
        }
        assert!(now + (256 << 10) >= before, "{cmd:?}: {now} < {before}");
    }
}
