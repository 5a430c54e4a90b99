//! The binary named `sysbench` (a symlink, as a drop-in is installed): every line a
//! script reads is the real sysbench 1.0.20's — `--version`, the head of `--help`, the
//! "Cannot find benchmark" line of another test — and stdout and stderr of a fileio run
//! are sysbench's alone: no notes, warnings or history line of iomark's, nothing kept in
//! the history (`iomark fileio` prints its notes on stdout and keeps its results).

use crate::util::*;
use std::path::{Path, PathBuf};

/// A `sysbench` symlink to the iomark binary in its own directory.
fn persona(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("sysbench");
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    link
}

fn both(args: &[&str]) -> (Out, Out) {
    let d = scratch();
    let ours = Iomark::program(persona(d.path()))
        .dir(d.path())
        .args(args)
        .run();
    let theirs = sysbench_cmd().dir(d.path()).args(args).run();
    (ours, theirs)
}

fn sysbench_cmd() -> Iomark {
    assert!(
        have_sysbench(),
        "sysbench 1.0.20 is required (bash tests/run.sh installs it)"
    );
    Iomark::program("sysbench")
}

#[test]
fn version_help_and_unknown_tests_read_as_sysbench() {
    let (ours, theirs) = both(&["--version"]);
    assert_eq!((ours.code, &ours.stdout), (theirs.code, &theirs.stdout));
    assert_eq!(ours.stdout, "sysbench 1.0.20\n");
    // --help: sysbench's usage lines, then the option blocks iomark accepts
    let (ours, theirs) = both(&["--help"]);
    assert_eq!(ours.code, theirs.code);
    let head = |s: &str| s.lines().take(4).collect::<Vec<_>>().join("\n");
    assert_eq!(head(&ours.stdout), head(&theirs.stdout));
    assert!(ours
        .stdout
        .contains("Compiled-in tests:\n  fileio - File I/O test\n"));
    // a test that is not built in: the same FATAL line and code
    let (ours, theirs) = both(&["nosuchtest", "run"]);
    assert_eq!(ours.code, theirs.code, "{}", ours.stdout);
    let last = |s: &str| s.lines().last().unwrap_or_default().to_string();
    assert_eq!(last(&ours.stdout), last(&theirs.stdout));
    // a test sysbench has and iomark does not answer for: said, exit 1
    let (ours, _) = both(&["cpu", "run"]);
    assert_eq!(ours.code, 1);
    assert!(
        last(&ours.stdout).starts_with("FATAL: Cannot find benchmark 'cpu': iomark answers"),
        "{}",
        ours.stdout
    );
}

#[test]
fn fileio_under_the_persona_prints_sysbench_lines_alone_and_keeps_nothing() {
    let d = scratch();
    let link = persona(d.path());
    let results = d.path().join("results");
    let opts = [
        "--file-num=1",
        "--file-total-size=1M",
        "--file-test-mode=rndrd",
        "--time=1",
    ];
    // sysbench takes one command per call: prepare, run, cleanup, each in its own
    // directory for each tool; iomark with its results history on
    let call = |prog: Iomark, dir: &Path, cmd: &str| {
        let prog = prog
            .env_remove("IOMARK_HISTORY")
            .env("IOMARK_RESULTS", &results);
        let o = prog.dir(dir).arg("fileio").args(opts).arg(cmd).run();
        assert_eq!(o.code, 0, "{cmd}: {}{}", o.stdout, o.stderr);
        o
    };
    let (mine, real) = (d.path().join("mine"), d.path().join("real"));
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::create_dir_all(&real).unwrap();
    call(Iomark::program(&link), &mine, "prepare");
    call(sysbench_cmd(), &real, "prepare");
    let ours = call(Iomark::program(&link), &mine, "run");
    let theirs = call(sysbench_cmd(), &real, "run");
    // what `egrep 'sysbench '` finds: the banner line alone, in both, also with stderr
    let grep = |s: &str| s.lines().filter(|l| l.contains("sysbench ")).count();
    assert_eq!(grep(&ours.stdout), grep(&theirs.stdout), "{}", ours.stdout);
    assert_eq!(
        grep(&format!("{}{}", ours.stdout, ours.stderr)),
        grep(&format!("{}{}", theirs.stdout, theirs.stderr)),
        "{}",
        ours.stderr
    );
    // past the banner, nothing of iomark's on stdout; stderr is sysbench's (empty)
    assert!(
        !ours.stdout.lines().skip(1).any(|l| l.contains("iomark")),
        "{}",
        ours.stdout
    );
    assert_eq!(ours.stderr, theirs.stderr);
    assert!(
        !results.exists(),
        "the persona kept a result in the history"
    );
    // the report has sysbench's lines (numbers differ): the same count of lines
    assert_eq!(
        ours.stdout.lines().count(),
        theirs.stdout.lines().count(),
        "ours:\n{}\ntheirs:\n{}",
        ours.stdout,
        theirs.stdout
    );
    call(Iomark::program(&link), &mine, "cleanup");
    call(sysbench_cmd(), &real, "cleanup");
    // and `iomark fileio` keeps its notes on stdout
    let native = Iomark::new()
        .dir(&mine)
        .arg("fileio")
        .args(opts)
        .args(["prepare", "run", "cleanup"])
        .run();
    assert_eq!(native.code, 0, "{}", native.stderr);
    assert!(native
        .stdout
        .contains("iomark notes (not part of sysbench's report):"));
}

/// Sizes sysbench prints as another number than the one typed (bug B18: `2G` as
/// -2147483648, `12Q` as 0) or takes as another (`5G` as a block of 1 GiB): under the
/// name `sysbench` stdout past the banner, stderr and the exit code are sysbench's
/// (scripts read them; iomark's hint line is not printed), where `iomark fileio` says the value as
/// typed and the range, exit 2 (safety::invalid).
#[test]
fn misprinted_sizes_read_as_sysbench_under_its_name() {
    for v in [
        "--file-block-size=2G",
        "--file-block-size=12Q",
        "--file-block-size=-5",
        "--file-total-size=12Q",
        // typed as sysbench prints it: `iomark fileio` says iomark's line (exit 2), the
        // persona sysbench's `Invalid value for file-block-size: 0.` and code 1
        "--file-block-size=0",
        "--file-total-size=0",
    ] {
        let (ours, theirs) = both(&["fileio", v, "--file-num=1", "prepare"]);
        assert_eq!(ours.code, theirs.code, "{v}: {}", ours.stdout);
        let past_banner = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(
            past_banner(&ours.stdout),
            past_banner(&theirs.stdout),
            "{v}"
        );
        // stderr is sysbench's alone: iomark's hint is not printed under its name
        assert_eq!(ours.stderr, theirs.stderr, "{v}");
        assert!(!ours.stderr.contains("accepts"), "{v}: {}", ours.stderr);
    }
    // 5G: sysbench runs with a block of 1 GiB, and so does the persona
    let d = scratch();
    let o = Iomark::program(persona(d.path()))
        .dir(d.path())
        .args(["fileio", "--file-block-size=5G", "--file-num=1"])
        .args([
            "--file-total-size=2G",
            "--file-test-mode=rndrd",
            "--time=1",
            "run",
        ])
        .run();
    assert!(o.stdout.contains("Block size 1GiB"), "{}", o.stdout);
}

/// Invalid input is exit 2 under `iomark fileio`, with sysbench's own line where it has
/// one; under the name `sysbench` the line and the code (1) are sysbench 1.0.20's, side by
/// side with it.
#[test]
fn invalid_input_is_exit_2_under_iomark_and_sysbench_s_code_under_its_name() {
    for v in [
        "--rand-type=bogus",
        "--file-io-mode=x",
        "--threads=0",
        "--file-fsync-mode=x",
        "--bogus=1",
    ] {
        let args = [
            "fileio",
            "--file-num=1",
            "--file-total-size=16K",
            v,
            "prepare",
        ];
        let (ours, theirs) = both(&args);
        assert_eq!(theirs.code, 1, "{v}: sysbench 1.0.20's code");
        assert_eq!(ours.code, theirs.code, "{v}: {}", ours.dump());
        let d = scratch();
        let o = Iomark::new()
            .dir(d.path())
            .env("IOMARK_HISTORY", "off")
            .args(args)
            .run();
        assert_eq!(o.code, 2, "iomark fileio {v}: {}", o.dump());
        // sysbench's message itself is kept (its last line, on its stream)
        let last = |s: &str| s.lines().last().unwrap_or_default().to_string();
        let said = format!("{}{}", theirs.stdout, theirs.stderr);
        let msg = said
            .lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or_default()
            .to_string();
        assert!(
            o.all().contains(&msg),
            "{v}: sysbench says {msg:?}; iomark fileio {} / {}",
            last(&o.stdout),
            o.stderr
        );
        assert!(entries(d.path()).is_empty(), "{v}");
    }
}

/// `--rand-zipfian-exp` and `--rand-pareto-h` take real numbers: sysbench 1.0.20
/// refuses the first as an unknown option and reads any text in the second (`abc` is
/// 0, exit 0), and the persona does as it does; `iomark fileio` refuses a value that is
/// not such a number with one line naming the option and what it accepts, exit 2,
/// before any file is made.
#[test]
fn real_number_options_are_checked_under_iomark_and_kept_under_sysbench() {
    for (opt, accepts) in [
        ("--rand-zipfian-exp=abc", "a number >= 0 (e.g. 0.8)"),
        ("--rand-zipfian-exp=-1", "a number >= 0 (e.g. 0.8)"),
        (
            "--rand-pareto-h=abc",
            "a number between 0 and 1, both excluded",
        ),
        (
            "--rand-pareto-h=1",
            "a number between 0 and 1, both excluded",
        ),
    ] {
        let args = [
            "fileio",
            "--file-num=1",
            "--file-total-size=16K",
            opt,
            "prepare",
        ];
        let (ours, theirs) = both(&args);
        assert_eq!(ours.code, theirs.code, "{opt}: {}", ours.dump());
        let d = scratch();
        let o = Iomark::new()
            .dir(d.path())
            .env("IOMARK_HISTORY", "off")
            .args(args)
            .run();
        assert_eq!(o.code, 2, "iomark fileio {opt}: {}", o.dump());
        let name = opt.split('=').next().unwrap();
        let last = o.stdout.lines().last().unwrap_or_default();
        assert!(
            last.starts_with(&format!("FATAL: Invalid value for {name}: "))
                && last.contains(&format!("{name} accepts {accepts}")),
            "{opt}: {}",
            o.dump()
        );
        assert!(o.stderr.trim().is_empty(), "one line: {}", o.dump());
        assert!(
            entries(d.path()).is_empty(),
            "{opt}: {:?}",
            entries(d.path())
        );
    }
}

/// What sysbench 1.1 added and 1.0.20 refuses is refused by the persona with 1.0.20's
/// line and code (a script probes `--rand-type=zipfian` to tell the versions apart);
/// `iomark fileio` reads both.
#[test]
fn the_persona_refuses_what_sysbench_1_1_added() {
    let last = |s: &str| s.lines().last().unwrap_or_default().to_string();
    for opt in ["--rand-type=zipfian", "--rand-zipfian-exp=0.5"] {
        let args = [
            "fileio",
            "--file-num=1",
            "--file-total-size=1M",
            opt,
            "prepare",
        ];
        let (ours, theirs) = both(&args);
        assert_eq!(
            ours.code, theirs.code,
            "{opt}: {}{}",
            ours.stdout, ours.stderr
        );
        assert_ne!(theirs.code, 0, "{opt}: sysbench 1.0.20 refuses it");
        let said = |o: &Out| format!("{}{}", o.stdout, o.stderr);
        assert!(
            said(&ours).contains(&last(&said(&theirs))),
            "{opt}: sysbench says {:?}, the persona {}",
            last(&said(&theirs)),
            said(&ours)
        );
        let d = scratch();
        let o = Iomark::new()
            .dir(d.path())
            .env("IOMARK_HISTORY", "off")
            .args(args)
            .run();
        assert_eq!(o.code, 0, "iomark fileio {opt}: {}{}", o.stdout, o.stderr);
    }
}

/// sysbench 1.0.20 takes one command: the first word names the test, the second the
/// command, `--test=NAME` names the test wherever it stands, and a third word is
/// `Unrecognized command line argument: WORD` on stderr, exit 1, nothing made. The
/// persona reads the words so, side by side with it (stdout, stderr, code and the files
/// left), where `iomark fileio` runs `prepare run` as two commands.
#[test]
fn the_persona_takes_one_command_as_sysbench_does() {
    let opts = ["--file-num=1", "--file-total-size=16K"];
    let with = |words: &[&str]| -> Vec<String> {
        opts.iter().chain(words).map(|s| s.to_string()).collect()
    };
    for words in [
        &["fileio", "prepare", "run"][..],
        &["fileio", "prepare", "run", "cleanup"],
        &["fileio", "help", "run"],
        &["fileio", "bogus", "prepare"],
        &["--test=fileio", "prepare", "run"],
        &["--test=fileio", "--test=fileio", "fileio", "run"],
        &["fileio", "prepare", "run", "--test=fileio"],
        &["fileio", "prepare", "run", "--help"],
        &["--version", "fileio", "cleanup", "run"],
        // `prepare` names the test until `--test` does: the command is `prepare`, once
        &["run", "--test=fileio", "prepare", "--file-test-mode=seqwr"],
    ] {
        let args = with(words);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let d = scratch();
        let ours = Iomark::program(persona(d.path()))
            .dir(d.path())
            .args(&args)
            .run();
        let mine: Vec<_> = entries(d.path())
            .into_iter()
            .filter(|e| e != "bin")
            .collect();
        let t = scratch();
        let theirs = sysbench_cmd().dir(t.path()).args(&args).run();
        assert_eq!(
            (ours.code, &ours.stderr),
            (theirs.code, &theirs.stderr),
            "{words:?}: {}",
            ours.dump()
        );
        assert_eq!(mine, entries(t.path()), "{words:?}: the files made");
        if theirs.code != 0 {
            assert_eq!(ours.stdout, theirs.stdout, "{words:?}");
        }
    }
    // `iomark fileio` keeps taking several commands
    let d = scratch();
    let o = Iomark::new()
        .dir(d.path())
        .env("IOMARK_HISTORY", "off")
        .args(with(&["fileio", "prepare", "cleanup"]))
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(
        o.stdout.contains("Creating file test_file.0") && o.stdout.contains("Removing test files"),
        "{}",
        o.stdout
    );
}

/// The real sysbench's `run` in `dir` with `args`, its stdout in a file, signalled with
/// `sig` once its first `--report-interval` line is there (the run is under way):
/// how it ended and what it printed.
fn sysbench_signalled(dir: &Path, args: &[&str], sig: i32) -> Out {
    let out_path = dir.join("sysbench.out");
    let mut cmd = sysbench_cmd().dir(dir).args(args).command();
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn sysbench");
    let t = std::time::Instant::now();
    let seen = loop {
        let text = std::fs::read_to_string(&out_path).unwrap_or_default();
        if text.contains("[ 1s ]") {
            break true;
        }
        if t.elapsed() > std::time::Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    if !seen {
        let _ = child.kill();
    }
    assert_eq!(kill(child.id(), sig), 0, "signal {sig} sent");
    let mut o = finish(child);
    assert!(
        seen,
        "sysbench never printed its first interval line: {}",
        o.dump()
    );
    o.stdout = std::fs::read_to_string(&out_path).unwrap();
    std::fs::remove_file(&out_path).unwrap();
    o
}

/// SIGINT or SIGTERM during `run`: sysbench 1.0.20 installs no handler for them, so it
/// dies of the signal with no report (nothing after its last interval line, nothing on
/// stderr); the persona, stopped at its 300th read (the run under way), ends the same
/// way: killed by the signal, no report, nothing on stderr, the test files kept.
/// `iomark fileio` keeps its partial report (interrupts::fileio_run).
#[test]
fn a_signal_during_run_kills_the_persona_without_a_report_as_sysbench() {
    let d = scratch();
    let set = ["fileio", "--file-num=2", "--file-total-size=8M"];
    let run = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = set.to_vec();
        v.extend_from_slice(&["--file-test-mode=rndrd", "--time=60"]);
        v.extend_from_slice(extra);
        v.push("run");
        v
    };
    let prep = [&set[..], &["prepare"]].concat();
    let link = persona(d.path());
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let mine = d.path().join(format!("iomark.{sig}"));
        std::fs::create_dir_all(&mine).unwrap();
        assert_eq!(Iomark::program(&link).dir(&mine).args(&prep).run().code, 0);
        let mut child = Iomark::program(&link)
            .dir(&mine)
            .args(run(&[]))
            .fault("read:stop@300")
            .spawn();
        signal_at_stop(&mut child, sig);
        let ours = finish(child);
        assert_eq!((ours.code, ours.signal), (-1, Some(sig)), "{}", ours.dump());
        assert!(!ours.stdout.contains("File operations:"), "{}", ours.dump());
        assert!(ours.stdout.contains("Threads started!"), "{}", ours.dump());
        assert_eq!(ours.stderr, "", "{}", ours.dump());
        assert_eq!(entries(&mine), ["test_file.0", "test_file.1"]);
        let theirs_dir = d.path().join(format!("sysbench.{sig}"));
        std::fs::create_dir_all(&theirs_dir).unwrap();
        assert_eq!(sysbench_cmd().dir(&theirs_dir).args(&prep).run().code, 0);
        let theirs = sysbench_signalled(&theirs_dir, &run(&["--report-interval=1"]), sig);
        assert_eq!(
            (theirs.code, theirs.signal),
            (-1, Some(sig)),
            "{}",
            theirs.dump()
        );
        assert!(
            !theirs.stdout.contains("File operations:"),
            "{}",
            theirs.dump()
        );
        assert_eq!(theirs.stderr, "");
    }
}

/// A `--validate` read that finds no checksum (files prepared with zeros): sysbench
/// 1.0.20 prints its FATAL lines and no report, exit 1 (a worker's failure sets
/// `sb_globals.error`, which skips the report); the persona too, where `iomark fileio`
/// adds the partial report after them.
#[test]
fn a_validation_failure_prints_no_report_under_the_persona_as_sysbench() {
    let set = ["fileio", "--file-num=2", "--file-total-size=1M"];
    let prep = [&set[..], &["prepare"]].concat();
    let run = [
        &set[..],
        &["--file-test-mode=seqrd", "--validate=on", "--time=5", "run"],
    ]
    .concat();
    let d = scratch();
    let mine = d.path().join("iomark");
    std::fs::create_dir_all(&mine).unwrap();
    let link = persona(d.path());
    assert_eq!(Iomark::program(&link).dir(&mine).args(&prep).run().code, 0);
    let ours = Iomark::program(&link).dir(&mine).args(&run).run();
    let t = scratch();
    assert_eq!(sysbench_cmd().dir(t.path()).args(&prep).run().code, 0);
    let theirs = sysbench_cmd().dir(t.path()).args(&run).run();
    for (who, o) in [("persona", &ours), ("sysbench", &theirs)] {
        assert_eq!(o.code, 1, "{who}: {}", o.dump());
        assert!(
            !o.stdout.contains("File operations:"),
            "{who}: {}",
            o.dump()
        );
        let last = o.stdout.lines().last().unwrap_or_default();
        // sysbench's first read, at offset 0 of file 0 (iomark's line names the file)
        assert!(
            last.starts_with("FATAL: Validation failed on file 0")
                && last.ends_with("block offset 0, exiting..."),
            "{who}: {}",
            o.dump()
        );
        assert_eq!(o.stderr, "", "{who}");
    }
    // `iomark fileio` keeps its partial report
    let o = Iomark::new()
        .dir(&mine)
        .env("IOMARK_HISTORY", "off")
        .args(&run)
        .arg("--notes=off")
        .run();
    assert_eq!(o.code, 1, "{}", o.dump());
    assert!(o.stdout.contains("File operations:"), "{}", o.dump());
}

/// `--file-rw-ratio` read with C's strtod, as sysbench 1.0.20 reads it: text without a
/// number is 0 (`abc`, `-abc`, empty: a write-only `rndrw`), the number at the start is
/// taken (`2abc` is 2, `0x10` 16), `nan` passes sysbench's check (below 0 only) and
/// reads nothing, `1e400` is inf; `-1` is refused. The header line, the exit code and,
/// for a ratio of 0 or NaN, the reads (none) are sysbench's.
#[test]
fn a_rw_ratio_that_is_no_number_is_read_as_sysbench_reads_it() {
    let cases = [
        ("abc", "0.00"),
        ("-abc", "0.00"),
        ("", "0.00"),
        ("2abc", "2.00"),
        ("0x10", "16.00"),
        ("nan", "nan"),
        ("1e400", "inf"),
    ];
    let set = ["fileio", "--file-num=2", "--file-total-size=1M"];
    let prep = [&set[..], &["prepare"]].concat();
    let d = scratch();
    let link = persona(d.path());
    let mine = d.path().join("iomark");
    std::fs::create_dir_all(&mine).unwrap();
    assert_eq!(Iomark::program(&link).dir(&mine).args(&prep).run().code, 0);
    let t = scratch();
    assert_eq!(sysbench_cmd().dir(t.path()).args(&prep).run().code, 0);
    let header = |o: &Out| {
        o.stdout
            .lines()
            .find_map(|l| l.strip_prefix("Read/Write ratio for combined random IO test: "))
            .map(str::to_string)
    };
    let reads = |o: &Out| {
        o.stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix("reads/s:"))
            .map(|v| v.trim().to_string())
    };
    for (v, shown) in cases {
        let opt = format!("--file-rw-ratio={v}");
        let run = [
            &set[..],
            &[
                "--file-test-mode=rndrw",
                &opt,
                "--events=200",
                "--time=0",
                "run",
            ],
        ]
        .concat();
        let ours = Iomark::program(&link).dir(&mine).args(&run).run();
        let theirs = sysbench_cmd().dir(t.path()).args(&run).run();
        assert_eq!((ours.code, theirs.code), (0, 0), "{v}: {}", ours.dump());
        assert_eq!(
            header(&ours).as_deref(),
            Some(shown),
            "{v}: {}",
            ours.dump()
        );
        assert_eq!(header(&ours), header(&theirs), "{v}");
        if ["0.00", "nan"].contains(&shown) {
            assert_eq!(
                reads(&ours).as_deref(),
                Some("0.00"),
                "{v}: {}",
                ours.dump()
            );
            assert_eq!(reads(&ours), reads(&theirs), "{v}");
        }
    }
    let run = [
        &set[..],
        &["--file-test-mode=rndrw", "--file-rw-ratio=-1", "run"],
    ]
    .concat();
    let ours = Iomark::program(&link).dir(&mine).args(&run).run();
    let theirs = sysbench_cmd().dir(t.path()).args(&run).run();
    let last = |o: &Out| o.stdout.lines().last().unwrap_or_default().to_string();
    assert_eq!((ours.code, last(&ours)), (theirs.code, last(&theirs)));
    assert_eq!(
        last(&ours),
        "FATAL: Invalid value for --file-rw-ratio: -1.000000."
    );
}

/// What `iomark fileio` refuses before its workers start with its own code (a
/// `--file-block-size` no multiple of the direct-I/O alignment: 2; a directory without
/// O_DIRECT: 3) is exit 1 under the persona, sysbench's code: sysbench 1.0.20 runs and
/// fails on the first read (`errno = 22`), exit 1.
#[test]
fn a_direct_block_size_refusal_is_sysbench_s_exit_1_under_its_name() {
    let prep = ["fileio", "--file-num=1", "--file-total-size=64K", "prepare"];
    let run = [
        "fileio",
        "--file-num=1",
        "--file-total-size=64K",
        "--file-test-mode=rndrd",
        "--file-extra-flags=direct",
        "--file-block-size=1000",
        "--time=1",
        "run",
    ];
    let d = scratch();
    let (ours_dir, theirs_dir) = (d.path().join("ours"), d.path().join("theirs"));
    for p in [&ours_dir, &theirs_dir] {
        std::fs::create_dir(p).unwrap();
    }
    let link = persona(d.path());
    assert_eq!(sysbench_cmd().dir(&theirs_dir).args(prep).run().code, 0);
    let o = Iomark::program(&link).dir(&ours_dir).args(prep).run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let theirs = sysbench_cmd().dir(&theirs_dir).args(run).run();
    assert_eq!(theirs.code, 1, "sysbench 1.0.20: {}", theirs.dump());
    let ours = Iomark::program(&link).dir(&ours_dir).args(run).run();
    assert_eq!(ours.code, 1, "the persona: {}", ours.dump());
    assert!(ours.all().contains("FATAL: "), "{}", ours.dump());
    let native = Iomark::new()
        .dir(&ours_dir)
        .env("IOMARK_HISTORY", "off")
        .args(run)
        .run();
    assert!(
        [2, 3].contains(&native.code),
        "iomark fileio keeps its own code: {}",
        native.dump()
    );
}

/// `seqwr` with a block size that does not divide the file size, then `seqrd`: sysbench
/// 1.0.20 writes a last partial block, so its files reach the 4 MiB of
/// `--file-total-size=8M --file-num=2` and `seqrd` runs (exit 0); iomark writes whole
/// blocks (838 × 5000 = 4,190,000 bytes, docs/compat/sysbench.md B2/B6), so `seqrd`
/// at the default 16 KiB block fails with sysbench's own `FATAL: Size of file …` lines.
/// Under the persona stdout is those lines and stderr stays empty (sysbench's alone);
/// `iomark fileio` adds one line on stderr naming the cause, with the numbers.
#[test]
fn a_short_file_after_a_seqwr_of_whole_blocks_is_named_outside_the_persona() {
    let wr = [
        "--file-test-mode=seqwr",
        "--file-block-size=5000",
        "--file-total-size=8M",
        "--file-num=2",
        "--events=1678",
        "--file-fsync-freq=0",
        "run",
    ];
    let rd = [
        "--file-test-mode=seqrd",
        "--file-total-size=8M",
        "--file-num=2",
        "--events=10",
        "run",
    ];
    let size = |d: &Path| std::fs::metadata(d.join("test_file.0")).unwrap().len();
    // sysbench 1.0.20
    let t = scratch();
    assert_eq!(
        sysbench_cmd()
            .dir(t.path())
            .arg("fileio")
            .args(wr)
            .run()
            .code,
        0
    );
    assert_eq!(size(t.path()), 4_194_304);
    let theirs = sysbench_cmd().dir(t.path()).arg("fileio").args(rd).run();
    assert_eq!(theirs.code, 0, "{}", theirs.dump());
    // the persona
    let p = scratch();
    let link = persona(p.path());
    let mine = p.path().join("w");
    std::fs::create_dir_all(&mine).unwrap();
    let persona = |args: &[&str]| {
        Iomark::program(&link)
            .dir(&mine)
            .arg("fileio")
            .args(args)
            .run()
    };
    assert_eq!(persona(&wr).code, 0);
    assert_eq!(size(&mine), 838 * 5000);
    let ours = persona(&rd);
    let fatal = "FATAL: Size of file 'test_file.0' is 3.9959MiB, but at least 4MiB is expected.\n\
                 WARNING: Did you run 'prepare' with different --file-total-size or --file-num values?\n";
    assert_eq!(ours.code, 1, "{}", ours.dump());
    assert!(ours.stdout.ends_with(fatal), "{}", ours.dump());
    assert_eq!(ours.stderr, "", "stderr is sysbench's alone under its name");
    // iomark fileio: the same lines, and the cause on stderr
    let f = scratch();
    assert_eq!(fileio(f.path(), &wr).code, 0);
    let o = fileio(f.path(), &rd);
    assert_eq!(o.code, 1, "{}", o.dump());
    assert!(o.stdout.ends_with(fatal), "{}", o.dump());
    let cause = o
        .stderr
        .lines()
        .find(|l| l.starts_with("iomark: test_file.0 "))
        .unwrap_or_default();
    assert!(
        cause.starts_with(
            "iomark: test_file.0 is 4190000 bytes, 4304 short of the 4194304 bytes each file has for this run: seqwr re-creates the test files and writes whole blocks only"
        ),
        "{}",
        o.dump()
    );
    assert_eq!(
        o.stderr
            .lines()
            .filter(|l| l.starts_with("iomark: test_file."))
            .count(),
        1
    );
}
