//! Symbolic-link safety: iomark never writes, reads for writing, or removes through a
//! symbolic link that leaves its own files. `fileio` refuses a `test_file.N` that is a
//! link (O_NOFOLLOW; sysbench would write through it) and `cleanup` removes the link,
//! never its target, and only `test_file.0 … test_file.(N-1)`. `copy` and `tree` create
//! with O_EXCL (a planted link of the same name is an error, not followed) and stop when
//! a directory they made is replaced by a link; their cleanup never removes through it.
//! Links are planted at a known point: the child stops itself (`IOMARK_FAULT=…:stop@N`).

use crate::util::*;
use std::path::Path;
use std::time::Duration;

/// A user's directory outside the scratch area, with one file of known content.
struct UserFiles {
    dir: tempfile::TempDir,
}

impl UserFiles {
    fn new() -> UserFiles {
        let dir = scratch();
        std::fs::write(dir.path().join("precious.txt"), b"user data, do not touch").unwrap();
        UserFiles { dir }
    }
    fn file(&self) -> std::path::PathBuf {
        self.dir.path().join("precious.txt")
    }
    fn assert_intact(&self) {
        assert_eq!(
            std::fs::read(self.file()).unwrap(),
            b"user data, do not touch"
        );
        assert_eq!(entries(self.dir.path()), vec!["precious.txt".to_string()]);
    }
    /// Intact; a hard link to it (`hard`) shares its inode: 2 names, as planted.
    fn assert_intact_but_linked(&self, hard: bool) {
        use std::os::unix::fs::MetadataExt;
        self.assert_intact();
        let links = std::fs::metadata(self.file()).unwrap().nlink();
        assert_eq!(links, if hard { 2 } else { 1 });
    }
}

#[test]
fn fileio_cleanup_removes_links_not_targets_and_only_its_names() {
    let d = scratch();
    let user = UserFiles::new();
    let r = iomark_fault(
        d.path(),
        "",
        &["fileio", "--file-num=3", "--file-total-size=48K", "prepare"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    std::fs::remove_file(d.path().join("test_file.1")).unwrap();
    std::os::unix::fs::symlink(user.file(), d.path().join("test_file.1")).unwrap();
    std::os::unix::fs::symlink(user.dir.path(), d.path().join("test_file.2.d")).unwrap();
    std::fs::remove_file(d.path().join("test_file.2")).unwrap();
    std::os::unix::fs::symlink(user.dir.path(), d.path().join("test_file.2")).unwrap();
    for n in ["test_file.3", "test_file.01", "test_file.x", "notes.txt"] {
        std::fs::write(d.path().join(n), b"mine").unwrap();
    }
    let r = iomark_fault(d.path(), "", &["fileio", "--file-num=3", "cleanup"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        entries(d.path()),
        vec![
            "notes.txt",
            "test_file.01",
            "test_file.2.d",
            "test_file.3",
            "test_file.x"
        ]
    );
    user.assert_intact();
}

#[test]
fn fileio_never_writes_through_a_linked_test_file() {
    let d = scratch();
    let user = UserFiles::new();
    std::os::unix::fs::symlink(user.file(), d.path().join("test_file.0")).unwrap();
    let r = iomark_fault(
        d.path(),
        "",
        &["fileio", "--file-num=1", "--file-total-size=64K", "prepare"],
    );
    // refused as an unsafe path, before any I/O: exit 3, every command's code for a
    // planted link (docs/safety.md "Exit codes")
    assert_eq!(r.code, 3, "{r:?}");
    assert!(
        r.stdout.contains(
            "FATAL: test_file.0 is a symbolic link: iomark never reads or writes through one"
        ),
        "{}",
        r.stdout
    );
    user.assert_intact();
    // run in a writing mode refuses it the same way
    let r = iomark_fault(
        d.path(),
        "",
        &[
            "fileio",
            "--file-num=1",
            "--file-total-size=24",
            "--file-block-size=8",
            "--file-test-mode=rndwr",
            "--time=1",
            "run",
        ],
    );
    assert_eq!(r.code, 3, "{r:?}");
    assert!(r.stdout.contains("is a symbolic link"), "{}", r.stdout);
    user.assert_intact();
    // seqwr recreates its files: the link (a test_file name) is replaced, the target kept
    let r = iomark_fault(
        d.path(),
        "",
        &[
            "fileio",
            "--file-num=1",
            "--file-total-size=64K",
            "--file-test-mode=seqwr",
            "--time=0",
            "--events=4",
            "run",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!std::fs::symlink_metadata(d.path().join("test_file.0"))
        .unwrap()
        .file_type()
        .is_symlink());
    user.assert_intact();
}

/// A data file that is a symbolic or a hard link to a user's file is refused in one
/// clear line (no errno line before it), with exit 3 (an unsafe path, as a planted link
/// at any output), the user's file untouched: `fileio prepare`, `fileio run` in a
/// writing mode, and `run` on its made-up `NAME.0.0`; a link at `test_file.1` is
/// refused by `prepare` before `test_file.0` is written.
#[test]
fn a_linked_data_file_is_refused_in_one_line() {
    let fileio = ["fileio", "--file-num=2", "--file-total-size=1M"];
    let rndwr = ["--file-test-mode=rndwr", "--time=0", "--events=4", "run"];
    let cases: [(&str, Vec<&str>, i32); 4] = [
        ("test_file.0", [&fileio[..], &["prepare"]].concat(), 3),
        ("test_file.1", [&fileio[..], &["prepare"]].concat(), 3),
        ("test_file.0", [&fileio[..], &rndwr[..]].concat(), 3),
        (
            "j.0.0",
            vec!["run", "--name=j", "--rw=write", "--size=1m"],
            3,
        ),
    ];
    for (name, args, code) in &cases {
        for hard in [false, true] {
            let d = scratch();
            let user = UserFiles::new();
            let at = d.path().join(name);
            if hard {
                std::fs::hard_link(user.file(), &at).unwrap();
            } else {
                std::os::unix::fs::symlink(user.file(), &at).unwrap();
            }
            let r = iomark_fault(d.path(), "", args);
            let what = format!("{args:?} hard={hard}: {}", r.dump());
            assert_eq!(r.code, *code, "{what}");
            let all = r.all();
            let errors: Vec<&str> = all
                .lines()
                .filter(|l| l.starts_with("FATAL") || l.starts_with("iomark run:"))
                .collect();
            assert_eq!(errors.len(), 1, "{what}");
            let word = if hard { "hard link" } else { "symbolic link" };
            assert!(
                errors[0].contains(name) && errors[0].contains(word),
                "{what}"
            );
            assert!(!all.contains("errno"), "{what}");
            user.assert_intact_but_linked(hard);
            if *name == "test_file.1" {
                assert!(
                    !d.path().join("test_file.0").exists(),
                    "{what}: nothing written"
                );
            }
        }
    }
}

/// Start `args` stopped before their first `op`, run `plant(pid)`, continue, collect.
fn with_plant(dir: &Path, fault: &str, args: &[&str], plant: impl FnOnce(u32)) -> Out {
    let mut child = Iomark::new().dir(dir).fault(fault).args(args).spawn();
    assert!(
        wait_stopped(&mut child, Duration::from_secs(20)),
        "never stopped before the stop point"
    );
    plant(child.id());
    kill(child.id(), libc::SIGCONT);
    finish(child)
}

#[test]
fn copy_never_follows_a_planted_destination_link() {
    let d = scratch();
    let user = UserFiles::new();
    let (s, t) = (d.path().join("s"), d.path().join("t"));
    std::fs::create_dir_all(&s).unwrap();
    std::fs::create_dir_all(&t).unwrap();
    // stopped while writing the source: plant links with every destination name
    let r = with_plant(
        d.path(),
        "write:stop@1",
        &["copy", "s", "t", "--size=4M"],
        |pid| {
            for m in ["buffered_128k", "copy_file_range", "direct_4m"] {
                std::os::unix::fs::symlink(
                    user.file(),
                    t.join(format!("iomark-copy.{pid}.{m}.dst")),
                )
                .unwrap();
            }
        },
    );
    // a planted scratch name is the environment's (exit 3, as mark's and tree's)
    assert_eq!(r.code, 3, "{r:?}");
    assert!(r.stderr.contains("buffered_128k.dst"), "{}", r.stderr);
    assert!(r.stderr.contains("File exists"), "{}", r.stderr);
    user.assert_intact();
    // iomark removed its source and left the links it did not create
    assert!(entries(&s).is_empty());
    assert_eq!(entries(&t).len(), 3, "{:?}", entries(&t));
}

#[test]
fn tree_stops_when_its_directory_is_replaced_by_a_link_and_never_removes_through_it() {
    let d = scratch();
    let user = UserFiles::new();
    let t = d.path().join("t");
    std::fs::create_dir_all(&t).unwrap();
    // stopped at the fsync phase (after create+write): replace one of iomark's
    // directories by a link to the user's directory, holding the same names
    let r = with_plant(
        d.path(),
        "fsync:stop@1",
        &["tree", "t", "--files=60", "--threads=1", "--json=t.json"],
        |pid| {
            let root = t.join(format!("iomark-tree.{pid}"));
            let sub = root.join("d1");
            let moved = root.join("d1.moved-by-user");
            std::fs::rename(&sub, &moved).unwrap();
            // the user's directory gets copies of the names iomark planned there
            for e in std::fs::read_dir(&moved).unwrap().flatten() {
                std::fs::write(user.dir.path().join(e.file_name()), b"user").unwrap();
            }
            std::os::unix::fs::symlink(user.dir.path(), &sub).unwrap();
        },
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("is no longer the directory iomark created"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("replaced by a symbolic link"),
        "{}",
        r.stderr
    );
    // every file in the user's directory survived (same names as iomark's files)
    let names = entries(user.dir.path());
    assert!(names.len() > 1, "{names:?}");
    assert_eq!(
        std::fs::read(user.file()).unwrap(),
        b"user data, do not touch"
    );
    for n in names.iter().filter(|n| *n != "precious.txt") {
        assert_eq!(std::fs::read(user.dir.path().join(n)).unwrap(), b"user");
    }
}
