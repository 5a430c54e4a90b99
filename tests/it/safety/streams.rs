//! The standard streams as outputs (docs/safety.md "Standard streams as outputs"): for
//! every command's output options (`--json`, `--output`, `-o`, compare's `--plot`), `-`
//! and `/dev/stdout` are stdout, `/dev/stderr` stderr and `/dev/null` nothing — one rule
//! (cli/output.rs), never a file named `-` or a refused device. A document on stdout
//! (`--json=-`, `compare --plot=-`) has stdout alone: the rest goes to stderr, so
//! `iomark … --json=- | jq` reads one JSON document.

use super::files::compare_fixture;
use crate::util::*;
use std::path::Path;

/// Each command with `{}` where the output path goes, and the `command` its result names
/// (empty: the output is not a RunResult).
const CASES: &[(&str, &str)] = &[
    (
        "run --name=t --size=64k --rw=write --bs=4k --json={}",
        "run",
    ),
    (
        "fileio --file-num=1 --file-total-size=64K --file-test-mode=rndrd --time=0 \
         --events=16 --json={} prepare run cleanup",
        "fileio",
    ),
    (
        "mark . --preset=realworld --size=1M --time=1 --loops=1 --warmup=0 --json={}",
        "mark",
    ),
    ("copy . --size=256K --json={}", "copy"),
    ("tree . --files=20 --drop-caches=off --json={}", "tree"),
    ("time --json={} -- true", "time"),
];

fn words(case: &str, path: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = case
        .replace("{}", path)
        .split_whitespace()
        .map(String::from)
        .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn go(d: &Path, a: &[String]) -> Out {
    Iomark::new().dir(d).args(a).run()
}

/// The names left in `d` (a file named `-` or `stdout` would be the bug).
fn left(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn json_to_a_standard_stream_is_that_stream_for_every_command() {
    for (case, command) in CASES {
        for path in ["-", "/dev/stdout"] {
            let d = scratch();
            let o = go(d.path(), &words(case, path, &[]));
            assert_eq!(o.code, 0, "{case} {path}: {}", o.dump());
            // stdout is the document alone: the report went to stderr
            let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_else(|e| {
                panic!("{case} {path}: stdout is not one JSON: {e}\n{}", o.dump())
            });
            assert_eq!(v["command"], *command, "{case}");
            assert!(
                !o.stderr.trim().is_empty(),
                "{case}: the report is on stderr"
            );
            assert!(
                left(d.path()).iter().all(|n| n != "-"),
                "{case}: a file named -"
            );
        }
        let d = scratch();
        let o = go(d.path(), &words(case, "/dev/stderr", &[]));
        assert_eq!(o.code, 0, "{case} /dev/stderr: {}", o.dump());
        assert!(
            o.stderr.contains("\"schema_version\""),
            "{case}: {}",
            o.dump()
        );
        assert!(!o.stdout.contains("\"schema_version\""), "{case}");
        let d = scratch();
        let o = go(d.path(), &words(case, "/dev/null", &[]));
        assert_eq!(o.code, 0, "{case} /dev/null: {}", o.dump());
        assert!(
            !o.all().contains("\"schema_version\""),
            "{case}: {}",
            o.dump()
        );
        assert!(!o.all().contains("not a regular file"), "{case}");
    }
}

#[test]
fn text_outputs_to_a_standard_stream_are_that_stream() {
    let d = scratch();
    let run = "run --name=t --size=64k --rw=write --bs=4k --output={}";
    let o = go(d.path(), &words(run, "-", &[]));
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.stdout.contains("Run status group 0"), "{}", o.dump());
    let o = go(d.path(), &words(run, "/dev/stderr", &[]));
    assert!(o.stderr.contains("Run status group 0") && !o.stdout.contains("Run status"));
    let o = go(d.path(), &words(run, "/dev/null", &[]));
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(!o.all().contains("Run status group 0"), "{}", o.dump());
    // the JSON of fio's own report on stdout, the result on stderr: both complete
    let o = go(
        d.path(),
        &words(run, "-", &["--output-format=json", "--json=/dev/stderr"]),
    );
    let fio: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(fio["jobs"][0]["jobname"], "t");
    assert!(o.stderr.contains("\"command\": \"run\""), "{}", o.dump());
    let cmp = compare_fixture();
    for (opt, stream) in [
        ("-", 1),
        ("/dev/stdout", 1),
        ("/dev/stderr", 2),
        ("/dev/null", 0),
    ] {
        let o = go(d.path(), &words(&format!("report {cmp} -o {{}}"), opt, &[]));
        assert_eq!(o.code, 0, "-o {opt}: {}", o.dump());
        let metrics = |s: &str| s.contains("# TYPE");
        assert_eq!(metrics(&o.stdout), stream == 1, "-o {opt}: {}", o.dump());
        assert_eq!(metrics(&o.stderr), stream == 2, "-o {opt}: {}", o.dump());
    }
    // compare's chart on stdout alone, its table on stderr
    let o = go(
        d.path(),
        &words(&format!("compare {cmp} {cmp} --plot={{}}"), "-", &[]),
    );
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.stdout.starts_with("<svg") && o.stdout.trim_end().ends_with("</svg>"));
    assert!(!o.stderr.is_empty());
    let names = left(d.path());
    assert!(
        names.iter().all(|n| n.starts_with("t.")),
        "only run's data file is left: {names:?}"
    );
}

#[test]
fn two_outputs_on_stdout_are_refused_naming_both() {
    let d = scratch();
    let o = go(
        d.path(),
        &words(
            "run --name=t --size=64k --rw=write --bs=4k --json={} --output=/dev/stdout",
            "-",
            &[],
        ),
    );
    assert_eq!(o.code, 2, "{}", o.dump());
    o.one_line_error(&["--json=-", "--output=/dev/stdout", "stdout"]);
    assert!(
        left(d.path()).is_empty(),
        "nothing written: {:?}",
        left(d.path())
    );
}

/// `--plot=DIR` of `run`, `fileio` and `mark` is a directory of several charts: a
/// standard stream there is refused before any work (exit 2, one line naming `--plot`
/// and what is accepted), never a directory named `-`. compare's `--plot` draws SVG
/// only: a name whose extension says another format is refused the same way, and
/// `.SVG` or a name without an extension is written.
#[test]
fn a_plot_directory_naming_a_stream_and_a_non_svg_chart_are_refused() {
    let cases = [
        "run --name=t --size=64k --rw=write --bs=4k --plot={}",
        "fileio --file-num=1 --file-total-size=64K --file-test-mode=rndrd --time=0 \
         --events=16 --plot={} prepare run cleanup",
        "mark . --preset=realworld --size=1M --time=1 --loops=1 --warmup=0 --plot={}",
    ];
    for case in cases {
        for path in ["-", "/dev/stdout", "/dev/null"] {
            let d = scratch();
            let o = go(d.path(), &words(case, path, &[]));
            assert_eq!(o.code, 2, "{case} {path}: {}", o.dump());
            if case.starts_with("fileio") {
                // sysbench's FATAL line, on stdout under its banner as every fileio error
                let said: Vec<&str> = o.stdout.lines().filter(|l| l.contains("--plot")).collect();
                assert_eq!(said.len(), 1, "{}", o.dump());
                assert!(
                    said[0].starts_with(&format!("FATAL: --plot={path}: ")),
                    "{}",
                    said[0]
                );
                assert!(said[0].contains("accepted: a directory"), "{}", said[0]);
                assert!(!o.stderr.contains("panicked"), "{}", o.dump());
            } else {
                o.one_line_error(&[&format!("--plot={path}"), "accepted: a directory"]);
                assert!(o.stdout.trim().is_empty(), "{case}: {}", o.dump());
            }
            let names = left(d.path());
            assert!(names.is_empty(), "{case} {path}: nothing made: {names:?}");
        }
    }
    let cmp = compare_fixture();
    let d = scratch();
    for bad in ["x.png", "x.PDF"] {
        let o = go(
            d.path(),
            &words(&format!("compare {cmp} --plot={{}}"), bad, &[]),
        );
        assert_eq!(o.code, 2, "{bad}: {}", o.dump());
        o.one_line_error(&[&format!("--plot={bad}"), "SVG only", "FILE.svg"]);
        assert!(o.stdout.is_empty(), "{bad}: no table: {}", o.dump());
    }
    assert!(left(d.path()).is_empty(), "{:?}", left(d.path()));
    for good in ["x.SVG", "chart"] {
        let o = go(
            d.path(),
            &words(&format!("compare {cmp} --plot={{}}"), good, &[]),
        );
        assert_eq!(o.code, 0, "{good}: {}", o.dump());
        let svg = std::fs::read_to_string(d.path().join(good)).unwrap();
        assert!(svg.starts_with("<svg"), "{good}");
    }
}
