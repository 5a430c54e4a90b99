//! The `sysbench` persona against sysbench 1.0.20, one table of bad and unusual command
//! lines: unknown options (iomark's own among them), bad, negative, empty and huge
//! numbers, missing or unknown tests and commands, `--help` and `--version` in their
//! forms, `--verbosity`, and `--config-file` (missing, empty, a directory, the options it
//! may and may not set, its place among the words, an open quote). Each row runs both
//! tools in fresh directories of one scratch directory (the working directory, `HOME`
//! and the results history all inside it, standard input empty) and compares the exit
//! code, the files left and, as the row says, stdout and stderr byte for byte. Two
//! things are masked on both sides, and only those: the banner line (the persona's names
//! iomark: docs/compat/sysbench.md) and prepare's `N bytes written in S seconds` (a
//! timing). Where a row's text is not compared it says why; every such difference is in
//! docs/compat/sysbench.md.

use crate::util::*;
use std::path::Path;

/// How much of a row's output is compared.
#[derive(Clone, Copy)]
enum Cmp {
    /// stdout and stderr, byte for byte (banner and timing masked)
    Exact,
    /// the first N lines of stdout; stderr exactly (the rest is iomark's own text)
    Head(usize, &'static str),
    /// the first N lines of stdout alone (a run: its figures and iomark's notes on stderr
    /// are the run's own)
    Start(usize, &'static str),
    /// the exit code and the files left only, for the reason given
    Code(&'static str),
    /// the codes differ on purpose: (sysbench's, the persona's) and why
    Differs(i32, i32, &'static str),
}

use Cmp::*;

impl Cmp {
    /// What the row compares, for the summary line (and why it compares less).
    fn says(&self) -> String {
        match self {
            Exact => "stdout and stderr byte for byte".to_string(),
            Head(n, why) => format!("the first {n} lines of stdout and stderr: {why}"),
            Start(n, why) => format!("the first {n} lines of stdout: {why}"),
            Code(why) => format!("exit code and files only: {why}"),
            Differs(sb, ours, why) => format!("exit {ours} where sysbench exits {sb}: {why}"),
        }
    }
}

/// One command line: its words, the config files it reads (name, content), what sysbench
/// 1.0.20 exits with, and what is compared.
struct Row {
    args: &'static [&'static str],
    files: &'static [(&'static str, &'static str)],
    code: i32,
    cmp: Cmp,
}

const fn row(args: &'static [&'static str], code: i32, cmp: Cmp) -> Row {
    Row {
        args,
        files: &[],
        code,
        cmp,
    }
}

const fn cfg(
    args: &'static [&'static str],
    files: &'static [(&'static str, &'static str)],
    code: i32,
) -> Row {
    Row {
        args,
        files,
        code,
        cmp: Exact,
    }
}

/// A file set of one 16 KiB file: every row that gets as far as `prepare` stays tiny.
macro_rules! small {
    ($($w:expr),*) => {
        &["fileio", "--file-num=1", "--file-total-size=16K", $($w),*]
    };
}

const HELP_TEXT: &str = "the option list after the usage lines is iomark's (the options it reads)";

const RUN_TEXT: &str =
    "the header up to `Number of threads: N`; the figures are the run's, iomark's notes on stderr";

const ROWS: &[Row] = &[
    // options sysbench 1.0.20 does not have: iomark's own and later releases'
    row(small!("--file-dir=d", "prepare"), 1, Exact),
    row(small!("--notes=off", "prepare"), 1, Exact),
    row(small!("--json=r.json", "prepare"), 1, Exact),
    row(small!("--history=off", "prepare"), 1, Exact),
    row(small!("--thread-init-timeout=5", "prepare"), 1, Exact),
    row(small!("--rand-zipfian-exp=1", "prepare"), 1, Exact),
    row(small!("--rand-type=zipfian", "prepare"), 1, Exact),
    row(&["--bogus", "fileio", "run"], 1, Exact),
    row(small!("--file-test-mode=seqrd", "--bogus=1", "run"), 1, Exact),
    row(small!("--=1", "prepare"), 1, Exact),
    // sysbench's database options: accepted, read by no fileio test
    row(small!("--mysql-host=x", "--db-driver=y", "prepare"), 0, Exact),
    row(small!("--db-debug=maybe", "prepare"), 1, Exact),
    // tests and commands
    row(&[], 0, Exact),
    row(&["fileio"], 1, Exact),
    row(&["fileio", "bogus"], 1, Exact),
    row(&["bogus"], 1, Exact),
    row(&["-h"], 1, Exact),
    row(small!("prepare", "run"), 1, Exact),
    row(small!("--test=fileio", "prepare"), 0, Exact),
    row(
        &["--time=1", "cpu", "run"],
        0,
        Differs(0, 1, "the persona answers for the fileio test only"),
    ),
    // --help and --version in their forms
    row(&["--version"], 0, Exact),
    row(&["--version=on", "fileio", "run"], 0, Exact),
    row(&["--version=off"], 0, Exact),
    row(&["--help=off"], 0, Exact),
    row(&["--help"], 0, Head(4, HELP_TEXT)),
    row(&["fileio", "--help"], 0, Head(4, HELP_TEXT)),
    row(&["fileio", "help"], 0, Exact),
    // bad values, sysbench's line and code
    row(small!("--file-test-mode=bogus", "run"), 1, Exact),
    row(&["fileio", "--file-num=0", "prepare"], 1, Exact),
    row(small!("--file-num=abc", "prepare"), 1, Exact),
    row(small!("--file-num=99999999999", "prepare"), 1, Exact),
    row(small!("--file-block-size=0", "prepare"), 1, Exact),
    row(small!("--file-total-size=0", "prepare"), 1, Exact),
    row(small!("--file-fsync-mode=bogus", "prepare"), 1, Exact),
    row(small!("--file-extra-flags=bogus", "prepare"), 1, Exact),
    row(small!("--file-io-mode=bogus", "prepare"), 1, Exact),
    row(small!("--file-merged-requests=-1", "prepare"), 1, Exact),
    row(small!("--file-rw-ratio=-1", "--file-test-mode=rndrw", "run"), 1, Exact),
    row(
        small!(
            "--file-async-backlog=0",
            "--file-io-mode=async",
            "--file-test-mode=seqrd",
            "run"
        ),
        1,
        Exact,
    ),
    row(small!("--threads=0", "prepare"), 1, Exact),
    row(small!("--threads=abc", "prepare"), 1, Exact),
    row(small!("--threads=", "prepare"), 1, Exact),
    row(small!("--threads=99999999999", "prepare"), 1, Exact),
    row(
        small!("--threads=-1", "prepare"),
        1,
        Code("sysbench says `Memory allocation failure`; the persona names the value and range"),
    ),
    row(small!("--forced-shutdown=bogus", "prepare"), 1, Exact),
    row(small!("--percentile=101", "prepare"), 1, Exact),
    row(small!("--debug=maybe", "prepare"), 1, Exact),
    // negative limits: read by `run` alone
    row(small!("--time=-1", "prepare"), 0, Exact),
    row(
        small!("--events=-1", "--rate=-1", "--report-interval=-1", "prepare"),
        0,
        Exact,
    ),
    row(
        small!("--time=-1", "--file-test-mode=seqrd", "run"),
        1,
        Code("sysbench takes --time=-1 as an endless run (here it fails on the missing file); the persona refuses it"),
    ),
    // --verbosity, kept in one byte as sysbench keeps it
    row(small!("--verbosity=6", "prepare"), 1, Exact),
    row(small!("--verbosity=-1", "prepare"), 1, Exact),
    row(small!("--verbosity=256", "prepare"), 0, Exact),
    row(small!("--verbosity=1", "prepare"), 0, Exact),
    // --config-file
    row(small!("--config-file=missing.cfg", "prepare"), 0, Exact),
    row(small!("--config-file=", "prepare"), 0, Exact),
    row(small!("--config-file", "prepare"), 0, Exact),
    row(small!("--config-file=.", "prepare"), 0, Exact),
    cfg(
        small!("--config-file=t.cfg", "prepare"),
        &[("t.cfg", "threads=0\n")],
        1,
    ),
    cfg(
        small!("--config_file=t.cfg", "prepare"),
        &[("t.cfg", "# a comment\nthreads = abc\nthreads= abc # c\n")],
        1,
    ),
    // the test's own options and unknown names: not taken from a file
    cfg(
        small!("--config-file=t.cfg", "prepare"),
        &[("t.cfg", "file-num=3\nbogus=1\nfile-dir=/\nverbosity=1\n")],
        0,
    ),
    cfg(
        small!("--config-file=t.cfg", "prepare"),
        &[("t.cfg", "threads=\"2\n")],
        1,
    ),
    // its place among the words: after it wins, before it loses
    cfg(
        small!("--percentile=50", "--config-file=p.cfg", "prepare"),
        &[("p.cfg", "percentile=101\n")],
        1,
    ),
    cfg(
        small!("--config-file=p.cfg", "--percentile=50", "prepare"),
        &[("p.cfg", "percentile=101\n")],
        0,
    ),
    // a run takes the file's thread count, and the command line's after it
    Row {
        args: small!(
            "--file-test-mode=seqwr",
            "--events=1",
            "--time=0",
            "--config-file=t.cfg",
            "run"
        ),
        files: &[("t.cfg", "threads=2\n")],
        code: 0,
        cmp: Start(5, RUN_TEXT),
    },
    Row {
        args: small!(
            "--file-test-mode=seqwr",
            "--events=1",
            "--time=0",
            "--config-file=t.cfg",
            "--threads=3",
            "run"
        ),
        files: &[("t.cfg", "threads=2\n")],
        code: 0,
        cmp: Start(5, RUN_TEXT),
    },
    cfg(
        small!("--config-file=n.cfg", "prepare"),
        &[("n.cfg", "num_threads=2\nmax-time=-1\n")],
        0,
    ),
];

/// The persona: a `sysbench` symlink to the binary under test.
fn persona(dir: &Path) -> std::path::PathBuf {
    let link = dir.join("sysbench");
    std::os::unix::fs::symlink(BIN, &link).unwrap();
    link
}

/// Both streams with the banner line and prepare's timing masked.
fn masked(s: &str) -> String {
    s.lines()
        .map(|l| {
            if l.starts_with("sysbench 1.0.20 (") {
                "<banner>"
            } else if l.contains(" bytes written in ") {
                "<written>"
            } else {
                l
            }
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Run `program` with `row` in a fresh directory `dir` holding the row's config files;
/// the output and the files it left (the config files aside).
fn one(program: &Path, row: &Row, dir: &Path, home: &Path) -> (Out, Vec<String>) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in row.files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let out = Iomark::program(program)
        .dir(dir)
        .env("HOME", home)
        .env("IOMARK_HISTORY", "off")
        .args(row.args)
        .timeout(std::time::Duration::from_secs(60))
        .run();
    let left = entries(dir)
        .into_iter()
        .filter(|e| !row.files.iter().any(|(n, _)| n == e))
        .collect();
    (out, left)
}

#[test]
fn the_persona_answers_bad_and_unusual_command_lines_as_sysbench_1_0_20() {
    assert!(
        have_sysbench(),
        "sysbench 1.0.20 is required (bash tests/run.sh installs it)"
    );
    let d = scratch();
    let link = persona(d.path());
    let home = d.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let real = Path::new("sysbench");
    let mut failures = vec![];
    for (i, row) in ROWS.iter().enumerate() {
        let (theirs, their_files) = one(real, row, &d.path().join(format!("real{i}")), &home);
        let (ours, our_files) = one(&link, row, &d.path().join(format!("mine{i}")), &home);
        let what = format!("row {i} {:?}", row.args);
        // the side-by-side summary (`cargo test … -- --nocapture` shows it)
        println!(
            "{what}: exit {} / sysbench {}; {}",
            ours.code,
            theirs.code,
            row.cmp.says()
        );
        if theirs.code != row.code {
            failures.push(format!(
                "{what}: sysbench exits {} here, the table says {}",
                theirs.code, row.code
            ));
        }
        let expected = match row.cmp {
            Differs(_, mine, _) => mine,
            _ => theirs.code,
        };
        if ours.code != expected {
            failures.push(format!(
                "{what}: exit {} (sysbench {})\n{}",
                ours.code,
                theirs.code,
                ours.dump()
            ));
        }
        if let Differs(sb, _, _) = row.cmp {
            assert_eq!(sb, row.code, "{what}: the row's two codes of sysbench");
        }
        if our_files != their_files {
            failures.push(format!(
                "{what}: files {our_files:?}, sysbench {their_files:?}"
            ));
        }
        let (o, t) = (
            (masked(&ours.stdout), masked(&ours.stderr)),
            (masked(&theirs.stdout), masked(&theirs.stderr)),
        );
        let same = match row.cmp {
            Exact => o == t,
            Head(n, _) => {
                let head = |s: &str| s.lines().take(n).collect::<Vec<_>>().join("\n");
                head(&o.0) == head(&t.0) && o.1 == t.1
            }
            Start(n, _) => {
                let head = |s: &str| s.lines().take(n).collect::<Vec<_>>().join("\n");
                head(&o.0) == head(&t.0)
            }
            Code(_) | Differs(..) => true,
        };
        if !same {
            failures.push(format!(
                "{what} ({}):\n--- persona stdout:\n{}--- sysbench stdout:\n{}--- persona stderr:\n{}--- sysbench stderr:\n{}",
                row.cmp.says(), o.0, t.0, o.1, t.1
            ));
        }
    }
    // nothing written outside the scratch directory's own subdirectories
    let home_left = entries(&home);
    assert!(home_left.is_empty(), "HOME: {home_left:?}");
    assert!(
        failures.is_empty(),
        "{} of {} rows:\n{}",
        failures.len(),
        ROWS.len(),
        failures.join("\n\n")
    );
}
