//! Data and output safety (docs/safety.md "Data safety"), one hazard per test:
//! a planted symbolic link or hard link at every kind of output file and at the data
//! files iomark names, a short existing `test_file.0`, a FIFO as input, a full
//! filesystem at the final write, SIGKILL and setup failures during a run, a failing
//! `prepare` under `--json`. Every case checks the exit code and that the files outside
//! (the "user's") keep their checksums. Root-only cases (tmpfs) print why they skip.

use crate::util::*;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The user's directory outside the work directory: one file of known content.
pub(super) struct Outside {
    pub(super) dir: tempfile::TempDir,
    sum: String,
    mtime: std::time::SystemTime,
}

impl Outside {
    pub(super) fn new() -> Outside {
        let dir = scratch();
        std::fs::write(
            dir.path().join("precious.txt"),
            b"user data, do not touch\n",
        )
        .unwrap();
        let sum = sha256(&dir.path().join("precious.txt"));
        let mtime = Self::mtime_of(&dir.path().join("precious.txt"));
        Outside { dir, sum, mtime }
    }
    fn mtime_of(p: &Path) -> std::time::SystemTime {
        std::fs::metadata(p).and_then(|m| m.modified()).unwrap()
    }
    pub(super) fn file(&self) -> PathBuf {
        self.dir.path().join("precious.txt")
    }
    /// Checksum and mtime unchanged, nothing added next to it (hard links share the
    /// inode, so the directory listing is the only name check): why not, if not.
    pub(super) fn check_intact(&self) -> Result<(), String> {
        if sha256(&self.file()) != self.sum {
            return Err("the outside file's bytes changed".into());
        }
        if Self::mtime_of(&self.file()) != self.mtime {
            return Err("the outside file's mtime changed".into());
        }
        match entries(self.dir.path()).as_slice() {
            [one] if one == "precious.txt" => Ok(()),
            other => Err(format!("the outside directory holds {other:?}")),
        }
    }
    /// [`Outside::check_intact`], as an assertion.
    pub(super) fn assert_intact(&self, what: &str) {
        if let Err(e) = self.check_intact() {
            panic!("{what}: {e}");
        }
    }
}

/// How a name is planted: a symbolic link to, or a hard link of, the outside file.
#[derive(Clone, Copy, Debug)]
pub(super) enum Plant {
    Symlink,
    HardLink,
}

impl Plant {
    pub(super) fn at(self, outside: &Outside, p: &Path) {
        match self {
            Plant::Symlink => symlink(outside.file(), p).unwrap(),
            Plant::HardLink => std::fs::hard_link(outside.file(), p).unwrap(),
        }
    }
    /// What the refusal says.
    pub(super) fn said(self) -> &'static str {
        match self {
            Plant::Symlink => "is not a regular file (a symbolic link)",
            Plant::HardLink => "has another hard link (",
        }
    }
    /// The planted name is still what was planted.
    pub(super) fn assert_kept(self, p: &Path) {
        let m = std::fs::symlink_metadata(p).unwrap();
        match self {
            Plant::Symlink => assert!(m.file_type().is_symlink(), "{}", p.display()),
            Plant::HardLink => assert!(m.nlink() >= 2, "{}", p.display()),
        }
    }
}

pub(super) fn compare_fixture() -> String {
    fixture("compare/a-vm-mark.json").display().to_string()
}

/// Output files checked before the run: a planted name is refused with exit 3 naming
/// the option, before any data file is laid out; the link and its target stay.
#[test]
fn planted_links_at_outputs_are_refused_before_any_io() {
    let cmp = compare_fixture();
    let run = [
        "run",
        "--name=t",
        "--filename=data",
        "--size=64k",
        "--rw=write",
    ];
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            [&run[..], &["--output=L"]].concat(),
            "L",
            "cannot write --output=L: ",
        ),
        (
            [&run[..], &["--json=L"]].concat(),
            "L",
            "cannot write --json=L: ",
        ),
        (
            [&run[..], &["--write_bw_log=t"]].concat(),
            "t_bw.1.log",
            "t_bw.1.log: cannot write log file: ",
        ),
        (
            [&run[..], &["--write_lat_log=t", "--numjobs=2"]].concat(),
            "t_clat.2.log",
            "t_clat.2.log: cannot write log file: ",
        ),
        (
            vec!["compare", &cmp, "--plot=L.svg"],
            "L.svg",
            "iomark compare: cannot write --plot=L.svg: ",
        ),
        (
            vec![
                "fileio",
                "--file-num=1",
                "--file-total-size=64K",
                "--file-test-mode=rndwr",
                "--time=1",
                "--json=L",
                "prepare",
                "run",
            ],
            "L",
            "FATAL: cannot write --json=L: ",
        ),
        (
            vec![
                "mark",
                ".",
                "--size=8M",
                "--time=1",
                "--loops=1",
                "--json=L",
            ],
            "L",
            "iomark mark: cannot write --json=L: ",
        ),
        (
            vec!["copy", "--size=1M", "--json=L"],
            "L",
            "iomark copy: cannot write --json=L: ",
        ),
        (
            vec!["tree", "--files=10", "--json=L"],
            "L",
            "iomark tree: cannot write --json=L: ",
        ),
    ];
    for plant in [Plant::Symlink, Plant::HardLink] {
        for (args, name, msg) in &cases {
            let what = format!("{plant:?} at {name}: {args:?}");
            let d = scratch();
            let outside = Outside::new();
            plant.at(&outside, &d.path().join(name));
            let r = iomark(d.path(), args);
            assert_eq!(r.code, 3, "{what}: {r:?}");
            let said = format!("{msg}{}", plant.said());
            assert!(
                r.all().contains(&said),
                "{what}: want {said:?} in {}",
                r.all()
            );
            assert!(!r.all().contains("panicked"), "{what}");
            plant.assert_kept(&d.path().join(name));
            outside.assert_intact(&what);
            // nothing was laid out, prepared or created before the refusal
            assert_eq!(entries(d.path()), [*name], "{what}");
        }
    }
}

/// Charts are named by iomark and written at the end; a link planted at a chart name in
/// the `--plot` directory is refused before any I/O (exit 3, one line naming it), and
/// the outside file is never touched.
#[test]
fn planted_links_at_chart_names_are_refused_before_any_io() {
    let run: &[&str] = &[
        "run",
        "--name=t",
        "--filename=f",
        "--size=1m",
        "--rw=read",
        "--plot=charts",
    ];
    let fileio_prep: &[&str] = &["fileio", "--file-num=1", "--file-total-size=1M", "prepare"];
    let fileio: &[&str] = &[
        "fileio",
        "--file-num=1",
        "--file-total-size=1M",
        "--file-test-mode=rndrd",
        "--time=1",
        "--plot=charts",
        "run",
    ];
    for plant in [Plant::Symlink, Plant::HardLink] {
        for (prep, args) in [(None, run), (Some(fileio_prep), fileio)] {
            let d = scratch();
            if let Some(p) = prep {
                assert_eq!(iomark(d.path(), p).code, 0);
            }
            // a first run tells the chart names
            assert_eq!(iomark(d.path(), args).code, 0, "{args:?}");
            let charts = d.path().join("charts");
            let made = entries(&charts);
            // throughput and latency, and the device chart of the run's series
            assert_eq!(made.len(), 3, "{made:?}");
            let outside = Outside::new();
            for n in &made {
                std::fs::remove_file(charts.join(n)).unwrap();
                plant.at(&outside, &charts.join(n));
            }
            let r = iomark(d.path(), args);
            let what = format!("{plant:?}: {args:?}");
            assert_eq!(r.code, 3, "{what}: {r:?}");
            let said = match plant {
                Plant::Symlink => "is a symbolic link: iomark writes a chart only as a new or regular file of its own",
                Plant::HardLink => {
                    "is a hard-linked file: iomark writes a chart only as a new or regular file of its own"
                }
            };
            assert!(
                made.iter()
                    .any(|n| r.all().contains(&format!("--plot=charts: {n} {said}"))),
                "{what}: names the chart: {}",
                r.all()
            );
            // refused before the run: no report, no I/O summary
            assert!(
                !r.stdout.contains("Run status") && !r.stdout.contains("Throughput:"),
                "{what}: nothing ran: {}",
                r.stdout
            );
            for n in &made {
                plant.assert_kept(&charts.join(n));
            }
            outside.assert_intact(&what);
            assert_eq!(entries(&charts), made, "{what}: no temporary file left");
        }
    }
}

/// The data files iomark names (`JOB.N.M`) are never written through a link or into a
/// hard-linked file (exit 3 before any I/O); a file the user names with `filename=` is
/// opened as given, as fio opens it (the documented exception): a link to a file of the
/// job's size is written through, and a link to a shorter one is replaced by a new file
/// before the layout, as fio's layout unlinks the name first (the target keeps its bytes).
#[test]
fn data_files_iomark_names_are_never_written_through_links() {
    for plant in [Plant::Symlink, Plant::HardLink] {
        for (args, name) in [
            (vec!["run", "--name=x", "--rw=write", "--size=64k"], "x.0.0"),
            // a read job lays out a short file: that is a write too
            (vec!["run", "--name=x", "--rw=read", "--size=64k"], "x.0.0"),
            (
                vec![
                    "run",
                    "--name=x",
                    "--rw=randwrite",
                    "--size=64k",
                    "--directory=sub",
                    "--nrfiles=2",
                ],
                "sub/x.0.1",
            ),
        ] {
            let d = scratch();
            std::fs::create_dir(d.path().join("sub")).unwrap();
            let outside = Outside::new();
            plant.at(&outside, &d.path().join(name));
            let r = iomark(d.path(), &args);
            let what = format!("{plant:?} at {name}: {args:?}");
            assert_eq!(r.code, 3, "{what}: {r:?}");
            assert!(
                r.stderr
                    .contains(&format!("{name}: refusing to write: it ")),
                "{what}: {}",
                r.stderr
            );
            plant.assert_kept(&d.path().join(name));
            outside.assert_intact(&what);
        }
    }
    // filename= names the target: a link to a full-size file is followed, as in fio; a
    // link to a short one is replaced by the layout's new file, as fio replaces it
    let job = [
        "run",
        "--name=x",
        "--rw=write",
        "--size=64k",
        "--filename=L",
    ];
    let d = scratch();
    let mine = d.path().join("target.bin");
    std::fs::write(&mine, vec![7u8; 64 << 10]).unwrap();
    symlink(&mine, d.path().join("L")).unwrap();
    let r = iomark(d.path(), &job);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        std::fs::read(&mine).unwrap() != vec![7u8; 64 << 10],
        "not written through"
    );
    assert!(d.path().join("L").symlink_metadata().unwrap().is_symlink());
    for plant in [Plant::Symlink, Plant::HardLink] {
        let d = scratch();
        let outside = Outside::new();
        plant.at(&outside, &d.path().join("L"));
        let r = iomark(d.path(), &job);
        assert_eq!(r.code, 0, "{plant:?}: {r:?}");
        outside.assert_intact(&format!("{plant:?} at a short filename="));
        let m = d.path().join("L").symlink_metadata().unwrap();
        assert!(
            m.is_file() && m.nlink() == 1 && m.len() == 64 << 10,
            "{m:?}"
        );
    }
}

/// `fileio prepare` extends a short file after its own bytes (sysbench keeps them too),
/// refuses a hard-linked or FIFO `test_file.N` before writing anything, and a writing
/// `run` refuses a hard-linked one (a reading run may read it).
#[test]
fn fileio_keeps_existing_bytes_and_refuses_shared_files() {
    let set = ["--file-num=1", "--file-total-size=1M"];
    let fileio = |d: &Path, extra: &[&str]| {
        let mut a = vec!["fileio"];
        a.extend(set);
        a.extend(extra);
        iomark(d, &a)
    };
    let text = b"a note of forty-one bytes, not test data\n";
    assert_eq!(text.len(), 41);
    for direct in [false, true] {
        let d = scratch();
        // a file iomark created (an interrupted prepare's), holding bytes of its own
        let small = ["fileio", "--file-num=1", "--file-total-size=16K", "prepare"];
        assert_eq!(iomark(d.path(), &small).code, 0);
        std::fs::write(d.path().join("test_file.0"), text).unwrap();
        let flags: &[&str] = if direct {
            &["--file-extra-flags=direct", "prepare"]
        } else {
            &["prepare"]
        };
        let r = fileio(d.path(), flags);
        assert_eq!(r.code, 0, "{r:?}");
        assert!(
            r.stdout.contains("Extending existing file test_file.0"),
            "{}",
            r.stdout
        );
        let got = std::fs::read(d.path().join("test_file.0")).unwrap();
        assert_eq!(got.len(), 1 << 20);
        assert_eq!(
            &got[..41],
            text,
            "direct={direct}: the first bytes are the file's own"
        );
    }
    // a hard link to the user's file: refused before anything is written
    let d = scratch();
    let outside = Outside::new();
    Plant::HardLink.at(&outside, &d.path().join("test_file.0"));
    let r = fileio(d.path(), &["prepare"]);
    // an unsafe path, refused before any I/O: exit 3, as a planted link at any output
    assert_eq!(r.code, 3, "{r:?}");
    assert!(
        r.stdout
            .contains("FATAL: test_file.0 has another hard link (2 names share it)"),
        "{}",
        r.stdout
    );
    outside.assert_intact("prepare over a hard link");
    // run: the writing modes refuse it, a reading one reads it
    let d = scratch();
    assert_eq!(fileio(d.path(), &["prepare"]).code, 0);
    let keep = scratch();
    std::fs::hard_link(d.path().join("test_file.0"), keep.path().join("mine")).unwrap();
    let before = sha256(&keep.path().join("mine"));
    for mode in ["rndwr", "rndrw", "seqrewr"] {
        let m = format!("--file-test-mode={mode}");
        let r = fileio(d.path(), &[&m, "--time=1", "run"]);
        assert_eq!(r.code, 3, "{mode}: {r:?}");
        assert!(
            r.stdout.contains("has another hard link"),
            "{mode}: {}",
            r.stdout
        );
        assert_eq!(sha256(&keep.path().join("mine")), before, "{mode}");
    }
    let r = fileio(d.path(), &["--file-test-mode=rndrd", "--time=1", "run"]);
    assert_eq!(r.code, 0, "{r:?}");
    // a FIFO as test_file.0 would block the open: refused at once
    let d = scratch();
    mkfifo(&d.path().join("test_file.0"));
    let r = fileio(d.path(), &["prepare"]);
    assert_eq!(r.code, 3, "{r:?}");
    assert!(
        r.stdout
            .contains("FATAL: test_file.0 is not a regular file (a FIFO)"),
        "{}",
        r.stdout
    );
}

/// A `test_file.N` iomark did not create — a user's file, or one real sysbench
/// prepared — is never written, replaced or removed: `prepare`, the writing modes and
/// seqwr (which re-creates its files) refuse it before any I/O (exit 3, one line
/// naming it), a reading mode reads it, and `cleanup` leaves it and says why. Files
/// iomark created carry the `user.iomark.fileset` attribute; sysbench's have none.
#[test]
fn fileio_never_writes_replaces_or_removes_a_test_file_it_did_not_create() {
    let set = ["fileio", "--file-num=1", "--file-total-size=16K"];
    fn with<'a>(set: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [set, extra].concat()
    }
    let user = scratch();
    std::fs::write(user.path().join("test_file.0"), vec![b'u'; 16 << 10]).unwrap();
    let theirs = scratch();
    let real = sysbench(
        theirs.path(),
        &["--file-num=1", "--file-total-size=16K", "prepare"],
    );
    assert_eq!(real.code, 0, "{real:?}");
    for d in [&user, &theirs] {
        let p = d.path().join("test_file.0");
        let before = (sha256(&p), std::fs::metadata(&p).unwrap().ino());
        for extra in [
            &["prepare"][..],
            &["--file-test-mode=rndwr", "--events=10", "run"],
            &["--file-test-mode=seqwr", "--events=10", "run"],
            &["--file-test-mode=rndrw", "--events=10", "run"],
        ] {
            let r = iomark(d.path(), &with(&set, extra));
            assert_eq!(r.code, 3, "{extra:?}: {r:?}");
            let line = "FATAL: test_file.0 was not created by iomark";
            assert_eq!(r.stdout.matches(line).count(), 1, "{extra:?}: {r:?}");
            let after = (sha256(&p), std::fs::metadata(&p).unwrap().ino());
            assert_eq!(after, before, "{extra:?}: the file is as it was");
        }
        let r = iomark(
            d.path(),
            &with(&set, &["--file-test-mode=rndrd", "--events=10", "run"]),
        );
        assert_eq!(r.code, 0, "a reading run reads it: {r:?}");
        let r = iomark(d.path(), &with(&set, &["cleanup"]));
        assert_eq!(r.code, 0, "{r:?}");
        assert!(
            r.stderr
                .contains("test_file.0 was not removed: it was not created by iomark"),
            "{r:?}"
        );
        assert_eq!(sha256(&p), before.0, "cleanup left it");
    }
    // the files iomark makes carry the mark: prepare, run, cleanup as ever
    let d = scratch();
    for extra in [
        &["prepare"][..],
        &["--file-test-mode=rndwr", "--events=10", "run"],
        &["cleanup"],
    ] {
        assert_eq!(iomark(d.path(), &with(&set, extra)).code, 0, "{extra:?}");
    }
    assert!(!d.path().join("test_file.0").exists());
}

pub(super) fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A FIFO as an input is data read once, as fio reads it: with no writer it reads as
/// empty at once (exit 2, never a hang); a job file or a result from bash's `<(…)` is
/// read and used; `include` of a FIFO too. Devices and directories stay refused.
#[test]
fn fifo_inputs_are_read_once_and_never_hang() {
    let d = scratch();
    mkfifo(&d.path().join("F"));
    std::fs::write(
        d.path().join("inc.fio"),
        "[global]\ninclude F\n[j]\nrw=read\nsize=64k\n",
    )
    .unwrap();
    for args in [
        vec!["compare", "F"],
        vec!["compare", "F", "F"],
        vec!["run", "F"],
        vec!["diagnose", "--fixture", "F"],
    ] {
        let t = Instant::now();
        let r = iomark(d.path(), &args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{args:?} took {:?}",
            t.elapsed()
        );
    }
    // an empty include from a FIFO adds nothing: the job still runs
    let r = iomark(d.path(), &["run", "inc.fio", "--ioengine=null"]);
    assert_eq!(r.code, 0, "{r:?}");
    // bash's process substitution: a job file and a result, as fio reads them
    let job = format!(
        "{} run <(printf '[j]\\nrw=read\\nsize=1m\\nioengine=null\\n') --output-format=json --json=r.json",
        BIN
    );
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(&job)
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let fio: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(fio["jobs"][0]["jobname"], "j");
    let cmp = format!("{BIN} compare <(cat r.json) r.json");
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(&cmp)
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
}

/// A named pipe (or socket) as `run`'s `filename=` is refused before any open (an open
/// of a FIFO with no writer would block where no signal ends it), exit 3, for a reading
/// and a writing job alike.
#[test]
fn fifo_as_run_target_is_refused_before_any_open() {
    let d = scratch();
    mkfifo(&d.path().join("F"));
    for rw in ["--rw=read", "--rw=write"] {
        let t = Instant::now();
        let r = Iomark::new()
            .dir(d.path())
            .args(["run", "--name=x", "--filename=F", "--size=4m", rw])
            .timeout(Duration::from_secs(20))
            .run();
        assert_eq!(r.code, 3, "{rw}: {r:?}");
        assert!(
            r.stderr
                .contains("F: is a FIFO: iomark run reads and writes regular files and devices"),
            "{rw}: {}",
            r.stderr
        );
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{rw}: took {:?}",
            t.elapsed()
        );
        let m = std::fs::symlink_metadata(d.path().join("F")).unwrap();
        assert!(
            std::os::unix::fs::FileTypeExt::is_fifo(&m.file_type()),
            "{rw}: the FIFO is left as it was"
        );
    }
}

/// A tmpfs of `size` mounted on a scratch directory (unmounted on drop); `None`, with
/// the reason printed, when this machine cannot mount one.
pub(super) fn tmpfs(size: &str) -> Option<Mount> {
    Mount::try_new(&["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .map_err(skip)
        .ok()
}

/// Take every free byte of `dir`'s filesystem with a user file.
pub(super) fn fill_all(dir: &Path) {
    use std::io::Write;
    let mut f = std::fs::File::create(dir.join("user-filler")).unwrap();
    let block = vec![7u8; 4096];
    while f.write_all(&block).is_ok() {}
    let _ = f.sync_all();
}

/// Start iomark in `dir` stopped by its own `IOMARK_FAULT` stop point; returns the child
/// once it is stopped (state T).
pub(super) fn start_stopped(dir: &Path, args: &[&str], fault: &str) -> std::process::Child {
    let mut child = Iomark::new().dir(dir).args(args).fault(fault).spawn();
    assert!(
        wait_stopped(&mut child, Duration::from_secs(20)),
        "{args:?} never stopped"
    );
    child
}

pub(super) fn no_temp_files(d: &Path) {
    let left: Vec<String> = entries(d)
        .into_iter()
        .filter(|n| n.ends_with(".iomark-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The filesystem of `--json` and `--output` fills during the run: the final writes
/// fail with one line each naming the file and the reason, exit 1; `--output` and
/// `--json` keep their old content; no temporary file is left.
#[test]
fn a_full_filesystem_at_the_final_write_is_exit_1_with_old_or_complete_files() {
    let Some(small) = tmpfs("256k") else {
        return;
    };
    let work = scratch();
    let out = small.dir().join("out.txt");
    let json = small.dir().join("r.json");
    std::fs::write(&out, "the previous report\n").unwrap();
    std::fs::write(&json, "{\"previous\": true}\n").unwrap();
    let before = sha256(&out);
    let json_before = sha256(&json);
    let (o, j) = (
        format!("--output={}", out.display()),
        format!("--json={}", json.display()),
    );
    let args = [
        "run",
        "--name=w",
        "--filename=data",
        "--size=64k",
        "--rw=write",
        &o,
        &j,
    ];
    let child = start_stopped(work.path(), &args, "write:stop@1");
    fill_all(small.dir());
    kill(child.id(), libc::SIGCONT);
    let r = finish_within(child, Duration::from_secs(60));
    assert_eq!(r.code, 1, "{r:?}");
    for (opt, p) in [("--json", &json), ("--output", &out)] {
        let line = format!(
            "cannot write {opt}={}: No space left on device",
            p.display()
        );
        assert_eq!(r.stderr.matches(&line).count(), 1, "{line}: {}", r.stderr);
    }
    assert_eq!(sha256(&out), before, "--output keeps its old content");
    assert_eq!(sha256(&json), json_before, "--json keeps its old content");
    no_temp_files(small.dir());
    // fileio: the same final --json write, after prepare, stopped during 'run'
    std::fs::remove_file(small.dir().join("user-filler")).unwrap();
    let args = [
        "fileio",
        "--file-num=1",
        "--file-total-size=256K",
        "--file-test-mode=rndwr",
        "--time=0",
        "--events=50",
        &j,
        "prepare",
        "run",
    ];
    // prepare issues 16 writes of 16 KiB; the 20th write is in 'run'
    let child = start_stopped(work.path(), &args, "write:stop@20");
    fill_all(small.dir());
    kill(child.id(), libc::SIGCONT);
    let r = finish_within(child, Duration::from_secs(60));
    assert_eq!(r.code, 1, "{r:?}");
    let line = format!(
        "FATAL: cannot write --json={}: No space left on device",
        json.display()
    );
    assert_eq!(r.all().matches(&line).count(), 1, "{}", r.all());
    assert_eq!(sha256(&json), json_before, "--json keeps its old content");
    no_temp_files(small.dir());
}

/// SIGKILL in the middle of a re-run, or a setup failure (exit 3): `--output` and
/// `--json` still hold their previous results byte for byte (SIGKILL; after exit 3
/// `--json` holds a complete failed result), and no temporary file is left.
#[test]
fn sigkill_and_setup_failures_keep_the_old_output() {
    let d = scratch();
    let outside = Outside::new();
    let out = d.path().join("out.txt");
    std::fs::write(&out, "the previous report\n").unwrap();
    let before = sha256(&out);
    let json = d.path().join("r.json");
    std::fs::write(&json, "{\"last month\": 1}\n").unwrap();
    let json_before = sha256(&json);
    let args = [
        "run",
        "--name=w",
        "--filename=data",
        "--size=1m",
        "--rw=randwrite",
        "--output=out.txt",
        "--json=r.json",
    ];
    let child = start_stopped(d.path(), &args, "write:stop@3");
    kill(child.id(), libc::SIGKILL);
    let r = finish_within(child, Duration::from_secs(20));
    assert_eq!(r.signal, Some(libc::SIGKILL), "{r:?}");
    assert_eq!(
        sha256(&out),
        before,
        "SIGKILL: --output keeps its old content"
    );
    assert_eq!(
        sha256(&json),
        json_before,
        "SIGKILL mid-run: --json keeps the previous result byte for byte"
    );
    no_temp_files(d.path());
    // a setup failure (exit 3: a NUMA node this machine lacks)
    let r = iomark(
        d.path(),
        &[
            "run",
            "--name=w",
            "--filename=data",
            "--size=64k",
            "--rw=read",
            "--numa_cpu_nodes=99",
            "--output=out.txt",
            "--json=r.json",
        ],
    );
    assert_eq!(r.code, 3, "{r:?}");
    assert_eq!(
        sha256(&out),
        before,
        "exit 3: --output keeps its old content"
    );
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(v["status"], "failed");
    no_temp_files(d.path());
    outside.assert_intact("sigkill");
}

/// A `prepare` that fails before `run` (fileio `prepare run --json`, mark) leaves a
/// complete result saying so, not the `running` placeholder, and the old content of
/// the file is replaced only by that complete result.
#[test]
fn a_failing_prepare_leaves_a_complete_failed_result() {
    let cases: [&[&str]; 2] = [
        &[
            "fileio",
            "--file-num=1",
            "--file-total-size=1M",
            "--file-test-mode=rndrd",
            "--time=1",
            "--json=r.json",
            "prepare",
            "run",
        ],
        &[
            "mark",
            ".",
            "--size=8M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
            "--json=r.json",
        ],
    ];
    for args in cases {
        let d = scratch();
        std::fs::write(d.path().join("r.json"), "{\"old\": true}\n").unwrap();
        let r = iomark_fault(d.path(), "write:eio@1", args);
        assert_eq!(r.code, 1, "{args:?}: {r:?}");
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.path().join("r.json")).unwrap()).unwrap();
        assert_eq!(v["status"], "failed", "{args:?}: {v}");
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{args:?}: {v}"
        );
        no_temp_files(d.path());
    }
}

/// A process id that no process has now: a `true` that has ended and been reaped.
fn dead_pid() -> u32 {
    loop {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        c.wait().unwrap();
        let pid = c.id();
        // SAFETY: kill(2) with signal 0 only checks the process
        if unsafe { libc::kill(pid as i32, 0) } != 0 {
            return pid;
        }
    }
}

/// A SIGKILL between the link and the rename of a commit leaves one
/// `.NAME.PID.XXXXXX.iomark-tmp` beside the output: the next iomark run writing there
/// removes such a file when its process is gone, saying so on stderr, and nothing else —
/// one of a live process (another run writing there), a symbolic link or a hard-linked
/// file of that name, a name off the pattern (five random letters, no leading dot, no
/// process id) all stay, and the link's target keeps its bytes. Two commands (fileio
/// `run`'s `--json`, `run`'s `--output` in a subdirectory) each sweep the directory they
/// write.
#[test]
fn stale_temporary_files_of_a_killed_run_are_removed_and_nothing_else() {
    let work = scratch();
    let d = work.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    let mut live = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let (dead, alive) = (dead_pid(), live.id());
    std::fs::write(d.join("outside"), b"user bytes").unwrap();
    let stale = [
        format!(".r.json.{dead}.aB3xYz.iomark-tmp"),
        format!("sub/.o.txt.{dead}.Qw12Er.iomark-tmp"),
        format!(".r.json.{dead}.k8Jm2P.iomark-tmp"),
    ];
    let kept = [
        format!(".r.json.{alive}.Zz9Yy8.iomark-tmp"),
        format!(".r.json.{dead}.abc12.iomark-tmp"),
        format!("r.json.{dead}.abcdef.iomark-tmp"),
        ".r.json.abcdef.iomark-tmp".to_string(),
        format!("sub/.o.txt.{alive}.Qw12Er.iomark-tmp"),
    ];
    for n in stale.iter().chain(&kept) {
        std::fs::write(d.join(n), b"partial").unwrap();
    }
    let link = format!(".r.json.{dead}.L1nkEd.iomark-tmp");
    symlink(d.join("outside"), d.join(&link)).unwrap();
    let hard = format!(".r.json.{dead}.H4rdLn.iomark-tmp");
    std::fs::hard_link(d.join("outside"), d.join(&hard)).unwrap();
    let fileio = Iomark::new()
        .dir(d)
        .args([
            "fileio",
            "--file-num=1",
            "--file-total-size=1M",
            "--file-test-mode=seqrd",
            "--time=0",
            "--events=10",
            "--json=r.json",
            "prepare",
            "run",
        ])
        .run();
    let run = Iomark::new()
        .dir(d)
        .args([
            "run",
            "--name=j",
            "--filename=data",
            "--size=64k",
            "--rw=write",
        ])
        .arg("--output=sub/o.txt")
        .run();
    let _ = live.kill();
    let _ = live.wait();
    assert_eq!(fileio.code, 0, "{}", fileio.dump());
    assert_eq!(run.code, 0, "{}", run.dump());
    let said = format!("{}{}", fileio.stderr, run.stderr);
    for n in &stale {
        assert!(!d.join(n).exists(), "{n} was not removed");
        let line = said
            .lines()
            .find(|l| l.contains(n.rsplit('/').next().unwrap()));
        assert!(
            line.is_some_and(|l| l.contains("removed")),
            "{n} not said: {said}"
        );
    }
    for n in kept.iter().chain([&link, &hard]) {
        assert!(
            std::fs::symlink_metadata(d.join(n)).is_ok(),
            "{n} was removed"
        );
    }
    assert_eq!(std::fs::read(d.join(&kept[0])).unwrap(), b"partial");
    assert_eq!(std::fs::read(d.join("outside")).unwrap(), b"user bytes");
    assert_eq!(said.matches("removed").count(), stale.len(), "{said}");
}
