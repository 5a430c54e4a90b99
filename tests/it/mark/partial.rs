//! A mark run whose test fails part-way prints the table of the tests that finished
//! (the unfinished ones omitted), then the `failed in …` line; the JSON says `failed`
//! and holds the same tests. (Interruptions: tests/it/interrupts/.)

use crate::util::*;

#[test]
fn mark_failed_prints_the_rows_of_the_finished_tests() {
    let d = scratch();
    std::fs::create_dir_all(d.path().join("m")).unwrap();
    // peak, 16 MiB: 16 writes of 1 MiB prepare the file; the 17th write (the first of
    // SEQ1M Q8T1 write, after both read tests) fails with EIO.
    let r = iomark_fault(
        d.path(),
        "write:eio@17",
        &[
            "mark",
            "m",
            "--preset=peak",
            "--size=16M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
            "--json=m.json",
        ],
    );
    assert_eq!(r.code, 1, "{r:?}");
    let rows: Vec<&str> = r
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("test "))
        .skip(1)
        .take_while(|l| !l.starts_with("MB/s ="))
        .map(|l| l[..22].trim())
        .collect();
    assert_eq!(
        rows,
        ["SEQ1M Q8T1 read", "RND4K Q32T1 read"],
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("iomark mark: failed in SEQ1M Q8T1 write after 2 of 4 tests (table above: the 2 finished tests, the 2 unfinished omitted; the finished tests are in m.json)"),
        "{}",
        r.stderr
    );
    let j = read_json(&d.path().join("m.json"));
    assert_eq!(j["status"], "failed");
    assert_eq!(j["phases"].as_array().unwrap().len(), 2);
    assert!(entries(&d.path().join("m")).is_empty());
}

/// A mark killed by SIGKILL (stopped at the start of its first test, its test file
/// made, then killed: no cleanup runs) leaves `PATH/iomark-mark.PID/test_file.0`; the
/// next mark in PATH removes it and says so in one line naming the directory and the
/// process that is gone. A directory of a live process (this test's own PID) is left
/// untouched and not named; one of a gone process that holds a file mark never makes
/// is left as found and named with why (docs/commands/mark.md).
#[test]
fn the_next_mark_removes_a_killed_marks_leftover_and_nothing_else() {
    let d = scratch();
    std::fs::create_dir_all(d.path().join("m")).unwrap();
    let args = [
        "mark",
        "m",
        "--preset=peak",
        "--size=8M",
        "--time=1",
        "--loops=1",
    ];
    let args = [&args[..], &["--warmup=0", "--no-history"]].concat();
    let mut killed = Iomark::new()
        .dir(d.path())
        .fault("phase:stop@1")
        .args(&args)
        .spawn();
    assert!(
        wait_stopped(&mut killed, std::time::Duration::from_secs(60)),
        "mark never reached its first test"
    );
    let pid = killed.id();
    assert_eq!(kill(pid, libc::SIGKILL), 0);
    killed.wait().unwrap();
    let left = std::path::Path::new("m").join(format!("iomark-mark.{pid}"));
    let file = d.path().join(&left).join("test_file.0");
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        8 << 20,
        "the killed mark's test file"
    );
    let live = d
        .path()
        .join(format!("m/iomark-mark.{}", std::process::id()));
    std::fs::create_dir(&live).unwrap();
    std::fs::write(live.join("test_file.0"), b"live").unwrap();
    // a gone process: a child spawned and reaped
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let foreign = std::path::Path::new("m").join(format!("iomark-mark.{}", gone.id()));
    std::fs::create_dir(d.path().join(&foreign)).unwrap();
    std::fs::write(d.path().join(&foreign).join("notes.txt"), b"mine").unwrap();
    let out = Iomark::new().dir(d.path()).args(args).run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let removed = format!(
        "iomark mark: removed {}, left by iomark mark process {pid}, which is gone (killed before its cleanup); it held only its own test_file.0 (8.0 MiB)\n",
        left.display()
    );
    assert!(out.stderr.contains(&removed), "{removed}\n{}", out.stderr);
    assert!(!d.path().join(&left).exists(), "the leftover is removed");
    let kept = format!(
        "iomark mark: left {} as found: its process {} is gone, but it holds \"notes.txt\", which is not one of iomark's own files (test_file.0, sustained.0); remove it yourself if it is not needed\n",
        foreign.display(),
        gone.id()
    );
    assert!(out.stderr.contains(&kept), "{kept}\n{}", out.stderr);
    assert_eq!(
        std::fs::read(d.path().join(&foreign).join("notes.txt")).unwrap(),
        b"mine"
    );
    assert_eq!(std::fs::read(live.join("test_file.0")).unwrap(), b"live");
    assert!(
        !out.stderr
            .contains(&format!("iomark-mark.{}", std::process::id())),
        "{}",
        out.stderr
    );
}
