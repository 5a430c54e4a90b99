//! Bad input and jobs that fail in their setup, side by side with fio 3.33: one table of
//! command lines, each run by fio and by iomark as `fio` in a fresh directory, their
//! stderr and exit codes compared. A case marked `Same` must print fio's stderr byte
//! for byte and exit with its code; a case marked `Differs` is a difference listed in
//! docs/compat/fio.md ("Exit codes and errors"), where iomark still exits 1 as fio does.
//! Skips (with the reason) when fio is not installed; the exit codes iomark must give
//! are checked either way.

use crate::util::*;

/// Whether iomark must match fio's stderr for a case.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Want {
    /// fio's stderr and exit code, byte for byte
    Same,
    /// a listed difference: iomark's own line, exit code 1 (none today)
    #[allow(dead_code)]
    Differs,
}

use Want::*;

/// The common job: a null-engine job that runs when nothing else is wrong.
const J: &[&str] = &["--name=j", "--ioengine=null", "--size=1m"];

/// (what is given after [`J`] — or alone when it starts with `!` — , the exit code
/// both give, the rule)
const CASES: &[(&[&str], i32, Want)] = &[
    // options fio's getopt or parser refuses
    (&["--bogus=1"], 1, Same),
    (&["--bs=0"], 1, Same),
    (&["--bs=abc"], 1, Same),
    (&["--bs", "0"], 1, Same),
    (&["--rw=bogus"], 1, Same),
    (&["--iodepth=0"], 1, Same),
    (&["--iodepth=abc"], 1, Same),
    (&["--size=abc"], 1, Same),
    (&["--runtime=abc"], 1, Same),
    (&["--rwmixread=150"], 1, Same),
    (&["--direct=2"], 1, Same),
    (&["--numjobs=0"], 1, Same),
    // the option table's ranges are fio's: an `int` checked as C's (3000000000 is below
    // 1, 4294967297 is 1), fio's minimum of verify_interval, 0 files or open files taken
    (&["--iodepth=3000000000"], 1, Same),
    (&["--iodepth=4294967297"], 0, Same),
    (&["--verify_interval=64"], 1, Same),
    (&["--openfiles=0"], 0, Same),
    (&["--nrfiles=0"], 0, Same),
    // fio's fixup's zone checks (its line, exit 1), which `--parse-only` skips (exit 0)
    (&["--zonemode=strided"], 1, Same),
    (&["--zonemode=none", "--zonesize=1m"], 1, Same),
    (&["--parse-only", "--zonemode=strided"], 0, Same),
    (
        &["--parse-only", "--zonemode=none", "--zonesize=1m"],
        0,
        Same,
    ),
    (&["--parse-only", "--zonemode=zbd"], 0, Same),
    (&["--bsrange=abc"], 1, Same),
    (&["--verify=bogus"], 1, Same),
    (&["--blocksize_unaligned=x"], 1, Same),
    (&["--output-format=xml"], 1, Same),
    (&["--output-format=json,xml"], 1, Same),
    (&["--output-format="], 1, Same),
    (&["--output-format=json,,normal"], 1, Same),
    (&["--ioengine=bogus"], 1, Same),
    (&["--name="], 1, Same),
    (&["!", "nosuch.fio"], 1, Same),
    // fio's closest-option hint, its `-x` getopt lines, its read-only help text
    (&["--bogus"], 1, Same),
    (&["-x"], 1, Same),
    (&["--readonly", "--rw=write"], 1, Same),
    (&["--readonly", "--rw=trim"], 1, Same),
    (
        &["!", "--readonly", "--rw=write", "--name=x", "--size=1m"],
        1,
        Same,
    ),
    (&["--readonly", "--rw=randtrim"], 1, Same),
    // an empty value: getopt's missing argument, a flag's failed parsing
    (&["--write_bw_log="], 1, Same),
    (&["--description="], 1, Same),
    (&["--time_based="], 1, Same),
    (&["--stonewall="], 1, Same),
    // a size below the smallest block size: fio's fixup refuses the job before its
    // files, in fio's words (no job named)
    (&["--size=4k", "--bs=8k"], 1, Same),
    // a directory= that does not exist: fio refuses it while parsing, in its lines
    (
        &["!", "--name=j", "--size=1m", "--directory=no/such/dir"],
        1,
        Same,
    ),
    // the null engine's too, which writes no file (fio checks the option, not the files)
    (
        &[
            "!",
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--directory=missing",
        ],
        1,
        Same,
    ),
    (&["!", "--name=a", "--size=1", "--filename=t.dat"], 1, Same),
    // jobs whose thread setup fails: fio's lines per thread, one exit count each
    (&["!", "--name=n", "--ioengine=null", "--rw=read"], 1, Same),
    (
        &["!", "--name=n", "--ioengine=null", "--output-format=json"],
        1,
        Same,
    ),
    (&["!", "--name=n", "--ioengine=null", "--minimal"], 1, Same),
    (
        &["!", "--name=n", "--ioengine=null", "--numjobs=2"],
        2,
        Same,
    ),
    (
        &["!", "--name=x", "--filename=nonexist", "--numjobs=3"],
        3,
        Same,
    ),
    (
        &[
            "!",
            "--name=x",
            "--filename=nonexist",
            "--numjobs=2",
            "--name=y",
            "--ioengine=null",
            "--size=1m",
        ],
        2,
        Same,
    ),
    (
        &["!", "--name=x", "--filename=/proc/version", "--size=4k"],
        1,
        Same,
    ),
    (
        &[
            "!",
            "--name=x",
            "--filename=/proc/version",
            "--size=4k",
            "--numjobs=2",
            "--output-format=json",
        ],
        2,
        Same,
    ),
];

/// The whole command line of a case.
fn command(case: &[&'static str]) -> Vec<&'static str> {
    match case.split_first() {
        Some((&"!", rest)) => rest.to_vec(),
        _ => J.iter().chain(case).copied().collect(),
    }
}

#[test]
fn bad_input_and_failed_setups_print_fios_lines_and_exit_code() {
    let test = "bad_input_and_failed_setups_print_fios_lines_and_exit_code";
    let fio = need_fio(test);
    let mut wrong = Vec::new();
    for &(case, code, want) in CASES {
        let args = command(case);
        let d = scratch();
        let i = as_fio(d.path()).dir(d.path()).args(&args).run();
        if i.code != code {
            wrong.push(format!("{args:?}: iomark exit {} (want {code})", i.code));
        }
        if !fio {
            continue;
        }
        let d = scratch();
        let f = fio_cmd().dir(d.path()).args(&args).run();
        assert_eq!(f.code, code, "fio 3.33's code for {args:?}: {}", f.dump());
        let same = i.stderr == f.stderr;
        match want {
            Same if !same => wrong.push(format!(
                "{args:?}: stderr\n  fio:    {:?}\n  iomark: {:?}",
                f.stderr, i.stderr
            )),
            Differs if same => wrong.push(format!(
                "{args:?}: matches fio now: mark it Same and drop it from docs/compat/fio.md"
            )),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// An output format fio does not know (`xml`, an empty one): fio 3.33 says which on
/// stderr and prints nothing on stdout (no list of valid values), exit 1.
#[test]
fn an_unknown_output_format_leaves_stdout_clean() {
    let fio = need_fio("an_unknown_output_format_leaves_stdout_clean");
    for (v, named) in [("xml", "xml"), ("", ""), ("json,,normal", "")] {
        let given = format!("--output-format={v}");
        let mut args: Vec<&str> = J.to_vec();
        args.push(&given);
        let d = scratch();
        let i = as_fio(d.path()).dir(d.path()).args(&args).run();
        assert_eq!(i.code, 1, "{v:?}: {}", i.dump());
        assert_eq!(i.stdout, "", "{v:?}: {}", i.dump());
        assert_eq!(
            i.stderr,
            format!("fio: invalid output format {named}\nfio: failed parsing output-format\n"),
            "{v:?}"
        );
        if fio {
            let f = fio_cmd().dir(d.path()).args(&args).run();
            assert_eq!(
                (f.code, &f.stdout, &f.stderr),
                (i.code, &i.stdout, &i.stderr)
            );
        }
    }
}

/// `iomark run` keeps its own wording and exit 2 for the same refusals.
#[test]
fn iomark_run_keeps_its_own_refusals() {
    let d = scratch();
    for extra in ["--bogus=1", "--bs=0", "--output-format=xml"] {
        let o = run(d.path(), &[J, &[extra]].concat());
        assert_eq!(o.code, 2, "{extra}: {}", o.dump());
        assert!(
            o.stderr.starts_with("iomark run: "),
            "{extra}: {}",
            o.dump()
        );
    }
    let o = run(d.path(), &["--name=n", "--ioengine=null", "--rw=read"]);
    assert_eq!(o.code, 2, "{}", o.dump());
    assert!(
        o.stderr.contains("ioengine=null needs size="),
        "{}",
        o.dump()
    );
}
