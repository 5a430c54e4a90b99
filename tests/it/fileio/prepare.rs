//! `iomark fileio prepare` and `cleanup`: creating, extending and reusing the file set
//! like sysbench's transcript T2 (messages equal to sysbench's), files ending at the
//! filesystem, and cleanup in the same call removing the directory it created.

use crate::util::*;
use std::path::Path;

fn file_sizes(dir: &Path, n: usize) -> Vec<u64> {
    (0..n)
        .map(|i| {
            std::fs::metadata(dir.join(format!("test_file.{i}")))
                .map(|m| m.len())
                .unwrap_or(0)
        })
        .collect()
}

/// Lines of a prepare output from "Creating files" on, with the bytes line masked.
fn prepare_body(out: &str) -> Vec<String> {
    out.lines()
        .skip(2)
        .map(|l| {
            if l.contains(" bytes written in ") {
                mask(l)
            } else {
                l.to_string()
            }
        })
        .collect()
}

#[test]
fn prepare_creates_extends_reuses_like_t2_and_ends_files_at_fs() {
    let d = scratch();
    let dir = d.path();
    let a = ["--file-num=4", "--file-total-size=8M", "prepare"];
    let fs = 2 * 1048576u64;
    let r1 = fileio(dir, &a).ok();
    assert_eq!(
        prepare_body(&r1.stdout),
        [
            "4 files, 2048Kb each, 8Mb total",
            "Creating files for the test...",
            "Extra file open flags: (none)",
            "Creating file test_file.0",
            "Creating file test_file.1",
            "Creating file test_file.2",
            "Creating file test_file.3",
            "# bytes written in # seconds (# MiB/sec).",
        ]
    );
    assert!(
        r1.stdout.contains("\n8388608 bytes written in "),
        "{}",
        r1.stdout
    );
    assert_eq!(file_sizes(dir, 4), vec![fs; 4]);

    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("test_file.1"))
        .unwrap()
        .set_len(1_000_000)
        .unwrap();
    std::fs::remove_file(dir.join("test_file.3")).unwrap();
    let r2 = fileio(dir, &a).ok();
    assert_eq!(
        prepare_body(&r2.stdout)[3..],
        [
            "Reusing existing file test_file.0",
            "Extending existing file test_file.1",
            "Reusing existing file test_file.2",
            "Creating file test_file.3",
            "# bytes written in # seconds (# MiB/sec).",
        ]
    );
    // B11 fix: the extension restarts at the last whole block and ends exactly at FS
    let ext = fs - (1_000_000 / 16384) * 16384;
    assert!(
        r2.stdout
            .contains(&format!("\n{} bytes written in ", ext + fs)),
        "{}",
        r2.stdout
    );
    assert_eq!(
        file_sizes(dir, 4),
        vec![fs; 4],
        "every file ends exactly at FS"
    );

    let r3 = fileio(dir, &a).ok();
    let body = prepare_body(&r3.stdout);
    assert_eq!(
        body[3..7],
        [
            "Reusing existing file test_file.0",
            "Reusing existing file test_file.1",
            "Reusing existing file test_file.2",
            "Reusing existing file test_file.3"
        ]
    );
    assert_eq!(body.last().unwrap(), "No bytes written.");
    assert_eq!(body.len(), 8);

    // a larger file is reused and kept as it is
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("test_file.2"))
        .unwrap()
        .set_len(fs + 5)
        .unwrap();
    fileio(dir, &a).ok();
    assert_eq!(file_sizes(dir, 4), vec![fs, fs, fs + 5, fs]);

    // cleanup removes exactly test_file.0..N-1
    std::fs::write(dir.join("test_file.4"), b"x").unwrap();
    std::fs::write(dir.join("test_file"), b"x").unwrap();
    std::fs::write(dir.join("other.txt"), b"x").unwrap();
    let rc = fileio(dir, &["--file-num=4", "--file-total-size=8M", "cleanup"]).ok();
    assert_eq!(rc.lines()[1..], ["", "Removing test files..."]);
    assert_eq!(entries(dir), ["other.txt", "test_file", "test_file.4"]);
    // cleanup of missing files is fine
    fileio(dir, &["--file-num=4", "cleanup"]).ok();
    assert_eq!(entries(dir), ["other.txt", "test_file", "test_file.4"]);
}

#[test]
fn prepare_messages_match_sysbench_t2() {
    let run_t2 = |prog: fn(&Path, &[&str]) -> Out| -> Vec<Vec<String>> {
        let d = scratch();
        let dir = d.path();
        let a = ["--file-num=4", "--file-total-size=8M", "prepare"];
        let mut outs = vec![];
        let body = |r: Out| -> Vec<String> { r.stdout.lines().skip(1).map(mask).collect() };
        outs.push(body(prog(dir, &a).ok()));
        std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("test_file.1"))
            .unwrap()
            .set_len(1_000_000)
            .unwrap();
        std::fs::remove_file(dir.join("test_file.3")).unwrap();
        outs.push(body(prog(dir, &a).ok()));
        outs.push(body(prog(dir, &a).ok()));
        outs.push(body(
            prog(dir, &["--file-num=4", "--file-total-size=8M", "cleanup"]).ok(),
        ));
        assert!(entries(dir).is_empty());
        outs
    };
    assert_eq!(run_t2(fileio), run_t2(sysbench));
}

#[test]
fn cleanup_in_the_same_call_removes_the_created_directory() {
    let d = scratch();
    // Only the last component is created: a missing parent is refused (exit 3) and
    // nothing is created.
    let bad = fileio(
        d.path(),
        &[
            "--file-dir=sub/set",
            "--file-num=2",
            "--file-total-size=1M",
            "prepare",
        ],
    );
    assert_eq!(bad.code, 3, "{}", bad.stdout);
    assert!(
        bad.stdout.contains("its parent directory must exist"),
        "{}",
        bad.stdout
    );
    assert!(!d.path().join("sub").exists());
    std::fs::create_dir(d.path().join("sub")).unwrap();
    let r = fileio(
        d.path(),
        &[
            "--file-dir=sub/set",
            "--file-num=2",
            "--file-total-size=1M",
            "--file-test-mode=seqrd",
            "--events=10",
            "--time=0",
            "--notes=off",
            "prepare",
            "run",
            "cleanup",
        ],
    )
    .ok();
    assert!(
        r.stdout.contains("Creating file sub/set/test_file.1"),
        "{}",
        r.stdout
    );
    assert!(!d.path().join("sub/set").exists());
    assert!(
        d.path().join("sub").exists(),
        "the pre-existing parent is kept"
    );
    // the creation is said, once, on stderr; an existing directory is not re-announced,
    // and a missing one without prepare is exit 3 with nothing created
    assert_eq!(
        r.stderr
            .matches("iomark: created directory sub/set\n")
            .count(),
        1,
        "{}",
        r.stderr
    );
    assert!(!bad.stderr.contains("created directory"), "{}", bad.stderr);
    let set = [
        "--file-dir=sub/set",
        "--file-num=1",
        "--file-total-size=64K",
    ];
    let made = fileio(d.path(), &[&set[..], &["prepare"]].concat()).ok();
    assert!(made.stderr.contains("iomark: created directory sub/set"));
    let again = fileio(d.path(), &[&set[..], &["prepare"]].concat()).ok();
    assert!(
        !again.stderr.contains("created directory"),
        "{}",
        again.stderr
    );
    let _ = std::fs::remove_dir_all(d.path().join("sub/set"));
    let run = fileio(
        d.path(),
        &[
            &set[..],
            &["--file-test-mode=seqrd", "--time=0", "--events=1", "run"],
        ]
        .concat(),
    );
    assert_eq!(run.code, 3, "{}", run.dump());
    assert!(!d.path().join("sub/set").exists());
}

/// Extending a file keeps its own bytes and writes sysbench's zeros after them: the
/// kept bytes are put at the start of the first chunk only, never repeated at the start
/// of later chunks or of the next file.
#[test]
fn an_extended_files_own_bytes_are_kept_once_and_zeros_follow() {
    let d = scratch();
    let dir = d.path();
    let own: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8 + 1).collect();
    // test_file.0 is iomark's (a small prepare made it) and holds bytes of its own
    fileio(dir, &["--file-num=1", "--file-total-size=16K", "prepare"]).ok();
    std::fs::write(dir.join("test_file.0"), &own).unwrap();
    fileio(dir, &["--file-num=2", "--file-total-size=256K", "prepare"]).ok();
    let f0 = std::fs::read(dir.join("test_file.0")).unwrap();
    assert_eq!(f0.len(), 128 << 10);
    assert_eq!(&f0[..5000], &own[..], "the file's own bytes are kept");
    let stray = f0[5000..].iter().position(|&b| b != 0);
    assert_eq!(
        stray.map(|p| p + 5000),
        None,
        "zeros after the file's own bytes"
    );
    let f1 = std::fs::read(dir.join("test_file.1")).unwrap();
    assert_eq!(f1.len(), 128 << 10);
    assert!(f1.iter().all(|&b| b == 0), "a created file is all zeros");
}
