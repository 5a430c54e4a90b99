//! What fio 3.33 refuses or warns about while it reads its command line and job files,
//! side by side with iomark as `fio` (stdout, stderr and exit code): `include` in job
//! files (outside a section, an included file with sections, nested, missing), a
//! `readonly` key in a job file, `--parse-only` over fio's own example and test job
//! files, and getopt's refusals (`--bogus`, `-x`, `--cmdhelp=bogus`, a write job under
//! `--readonly`). fio is required: CI installs it, so a missing fio fails these tests.

use crate::util::*;
use std::path::{Path, PathBuf};

/// The job files of the include cases: `g.fio` options alone, `sec.fio` with a section.
const INCLUDED: [(&str, &str); 4] = [
    ("g.fio", "ioengine=null\nsize=1m\n"),
    ("gsec.fio", "[global]\nioengine=null\nsize=1m\n"),
    ("sec.fio", "[x]\nrw=read\nioengine=null\nsize=1m\n"),
    ("nest.fio", "bs=8k\ninclude g.fio\n"),
];

/// fio 3.33's `include`: only inside a section (before the first one it is an option
/// outside of any, exit 1); an included file with a section is refused and its lines
/// dropped (exit 0); includes nest; a missing file is said and the parse goes on (the
/// job carries the error: `--parse-only` says it on stdout, a run fails the job).
#[test]
fn includes_are_read_as_fio_reads_them() {
    require_fio();
    let cases: &[(&str, &str)] = &[
        ("outside", "include g.fio\n[j]\nrw=read\n"),
        ("in global", "[global]\ninclude g.fio\n[j]\nrw=read\n"),
        ("nested", "[j]\nrw=read\ninclude nest.fio\n"),
        (
            "sections",
            "[global]\ninclude gsec.fio\n[j]\nrw=read\nioengine=null\nsize=1m\n",
        ),
        (
            "sections in job",
            "[j]\nrw=read\nioengine=null\nsize=1m\ninclude sec.fio\n",
        ),
        (
            "after a failed include",
            "[j]\nioengine=null\nsize=1m\ninclude sec.fio\nrw=read\n",
        ),
        (
            "missing",
            "[global]\ninclude missing.fio\n[j]\nrw=read\nioengine=null\nsize=1m\n",
        ),
        (
            "missing in job",
            "[j]\nioengine=null\nsize=1m\ninclude missing.fio\n[k]\nioengine=null\nsize=1m\n",
        ),
        (
            "missing outside",
            "include missing.fio\n[j]\nrw=read\nioengine=null\nsize=1m\n",
        ),
        (
            "no name",
            "[global]\ninclude\n[j]\nrw=read\nioengine=null\nsize=1m\n",
        ),
        (
            "two spaces",
            "[global]\ninclude  g.fio\n[j]\nrw=read\nioengine=null\nsize=1m\n",
        ),
        (
            "from a subdirectory",
            "[global]\ninclude inc.fio\n[j]\nrw=read\n",
        ),
    ];
    let d = scratch();
    for (what, text) in cases {
        let mut files: Vec<(&str, &str)> = INCLUDED.to_vec();
        files.push(("j.fio", *text));
        // the include found beside the including file (`sub/j.fio` includes `inc.fio`)
        files.push(("sub/j.fio", *text));
        files.push(("sub/inc.fio", "ioengine=null\nsize=2m\n"));
        let job = if *what == "from a subdirectory" {
            "sub/j.fio"
        } else {
            "j.fio"
        };
        // (`include` alone: fio reads the name past the line's end, whatever is there)
        if *what == "no name" {
            continue;
        }
        let [fio, ours] = both_in(d.path(), &files, &["--parse-only", job]);
        assert_eq!(ours, fio, "{what} (--parse-only): {text:?}");
        // `--showcmd` of a job with a missing include lacks fio's error line, and of
        // a job file fio refuses, fio's line end (docs)
        if fio.0 == 0 && !fio.1.contains("func=job file open") {
            let [fio, ours] = both_in(d.path(), &files, &["--showcmd", job]);
            assert_eq!(ours, fio, "{what} (--showcmd): {text:?}");
        }
    }
    // fio's exit codes of the cases above, so the comparison compares refusals too
    let files: Vec<(&str, &str)> = INCLUDED
        .iter()
        .copied()
        .chain([("j.fio", cases[0].1)])
        .collect();
    assert_eq!(
        both_in(d.path(), &files, &["--parse-only", "j.fio"])[0].0,
        1
    );
}

/// A job whose `include` could not be opened fails as fio 3.33's does when it runs:
/// the job's error 2 (`job file open`), the other jobs run, exit 1.
#[test]
fn a_missing_include_fails_its_job_in_the_run() {
    require_fio();
    let text = "[j]\nioengine=null\nsize=1m\ninclude missing.fio\n[k]\nioengine=null\nsize=1m\n";
    let d = scratch();
    let [fio, ours] = both_in(d.path(), &[("j.fio", text)], &["j.fio"]);
    assert_eq!(ours.0, fio.0, "exit code");
    assert_eq!(fio.0, 1);
    assert_eq!(ours.2, fio.2, "stderr");
    // the job's line on stdout: fio's from the job's process, iomark's before the run
    let err = "err=2/file:init.c:1956, func=job file open, error=No such file or directory";
    assert!(fio.1.contains(err), "fio: {}", fio.1);
    assert!(
        ours.1.contains(&format!("fio: pid=0, {err}")),
        "iomark: {}",
        ours.1
    );
    // the other job ran and is reported
    for (tool, out) in [("fio", &fio.1), ("iomark", &ours.1)] {
        assert!(
            out.contains("k: (groupid=0, jobs=1): err= 0"),
            "{tool}: {out}"
        );
    }
}

/// `readonly` is one of fio 3.33's command-line options, no job option: in a job file
/// (with a value or alone, in a job or in `[global]`) fio says `Bad option <…>`, its
/// guess and that the job is dropped, exit 1 — with `--parse-only` and when run.
#[test]
fn readonly_in_a_job_file_is_fios_bad_option() {
    require_fio();
    let d = scratch();
    for text in [
        "[j]\nrw=read\nsize=1m\nioengine=null\nreadonly=1\n",
        "[j]\nrw=read\nsize=1m\nioengine=null\nreadonly\n",
        "[global]\nreadonly=1\n[j]\nrw=read\nsize=1m\nioengine=null\n",
        "[j]\nrw=read\nsize=1m\nioengine=null\nverify_write_sequence=0\nbogus_key=3\n",
    ] {
        for args in [&["--parse-only", "j.fio"][..], &["j.fio"][..]] {
            let [fio, ours] = both_in(d.path(), &[("j.fio", text)], args);
            assert_eq!(ours, fio, "{args:?} {text:?}");
            assert_eq!(fio.0, 1, "{text:?}");
        }
    }
}

/// fio's own job files (its examples and its regression tests' jobs, from
/// ../shared/peer-tests): `--parse-only` gets the same exit code from both, and for the
/// files fio refuses for a later fio's keys and values, the same stderr. The files that
/// differ are the named ones: jobs of engines iomark does not run (iomark refuses them
/// while fio, which has them, parses).
#[test]
fn parse_only_over_fios_job_files_accepts_what_fio_accepts() {
    require_fio();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peer-tests");
    let mut files = Vec::new();
    job_files(&root, &mut files);
    files.sort();
    assert!(
        files.len() >= 140,
        "fio's job files at {}: {}",
        root.display(),
        files.len()
    );
    let d = scratch();
    let mut differ = Vec::new();
    let mut refused_alike = 0;
    for f in &files {
        let fio = fio_cmd().dir(d.path()).arg("--parse-only").arg(f).run();
        let ours = as_fio(d.path())
            .dir(d.path())
            .arg("--parse-only")
            .arg(f)
            .run();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if ours.code != fio.code {
            differ.push(format!(
                "{name}: fio {} iomark {}: {}",
                fio.code, ours.code, ours.stderr
            ));
        } else if REFUSED_AS_FIO.contains(&name.as_str()) {
            assert_ne!(fio.code, 0, "{name}");
            assert_eq!(ours.stderr, fio.stderr, "{name}");
            refused_alike += 1;
        }
    }
    // each difference is a named one, with the line that says why
    let mut named: Vec<&str> = differ
        .iter()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    named.sort();
    let mut expected: Vec<&str> = ENGINE_NOT_RUN.to_vec();
    expected.extend(REFUSED_BY_IOMARK.iter().map(|(f, _)| *f));
    expected.sort();
    assert_eq!(named, expected, "{differ:#?}");
    for line in &differ {
        // an engine iomark does not run: fio's loader lines for one fio 3.33 loads as a
        // plugin, iomark's line for one fio has built in
        let why: &[&str] = REFUSED_BY_IOMARK
            .iter()
            .find(|(f, _)| line.starts_with(f))
            .map_or(&["not loadable", "is not supported by iomark"], |(_, w)| {
                std::slice::from_ref(w)
            });
        assert!(why.iter().any(|w| line.contains(w)), "{line}");
    }
    // the refusals of keys and values of a later fio are compared line by line
    assert_eq!(refused_alike, REFUSED_AS_FIO.len());
}

/// fio's examples that fio 3.33 refuses for a key or a value of a later fio: iomark as
/// `fio` refuses them with fio's lines.
const REFUSED_AS_FIO: &[&str] = &[
    "atomic-verify.fio",
    "example_latency_steadystate.fio",
    "netio_vsock.fio",
    "netio_vsock_receiver.fio",
    "netio_vsock_sender.fio",
    "sequence-distribution.fio",
];

/// fio's example jobs of engines fio 3.33 has and iomark does not run.
const ENGINE_NOT_RUN: &[&str] = &[
    "cpp_null.fio",
    "dev-dax.fio",
    "gfapi.fio",
    "ime.fio",
    "libhdfs.fio",
    "libiscsi.fio",
    "libpmem.fio",
    "libzbc-rand-write.fio",
    "libzbc-seq-read.fio",
    "mtd.fio",
    "rados.fio",
    "rbd.fio",
    "sg_verify-fail.fio",
    "sg_verify.fio",
    "sg_write_same_ndob.fio",
    "uring-cmd-ng.fio",
    "uring-cmd-zoned.fio",
];

/// fio's job files iomark as `fio` refuses for a reason of its own besides the engine
/// (docs/compat/fio.md): the file and iomark's words.
const REFUSED_BY_IOMARK: &[(&str, &str)] = &[(
    "t0009-f8b0bd10.fio",
    "option 'verify_async_cpus' is not supported by iomark",
)];

/// Every `*.fio` under `dir`.
fn job_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("fio's job files at {}: {e}", dir.display()));
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            job_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "fio") {
            out.push(p);
        }
    }
}

/// getopt's refusals as fio 3.33 words them: an unknown long option (with fio's guess
/// when one is close: `--bogus` → `Did you mean bs?`), an unknown short one, a short
/// option that needs a value given last (`-x`), `--cmdhelp` of no option (exit 0, the
/// closest option's help when one is near), and a write job under `--readonly` before
/// its direction (the `rw` value refused, with the option's help) or after it.
#[test]
fn command_line_refusals_are_fios_lines() {
    require_fio();
    let job = ["--name=j", "--size=1m", "--ioengine=null"];
    let with = |pre: &[&'static str], post: &[&'static str]| -> Vec<&'static str> {
        pre.iter().chain(&job).chain(post).copied().collect()
    };
    let cases: Vec<Vec<&str>> = vec![
        vec!["--bogus"],
        vec!["--bogus=1"],
        vec!["--iodpeth=1"],
        with(&["--bogus"], &[]),
        vec!["-x"],
        vec!["-q"],
        vec!["-o"],
        vec!["--cmdhelp=bogus"],
        vec!["--cmdhelp=bss"],
        vec!["--cmdhelp=directx"],
        vec!["--cmdhelp=rww"],
        with(&["--readonly"], &["--rw=write"]),
        with(&["--readonly"], &["--rw=randrw", "--parse-only"]),
        with(&[], &["--rw=write", "--readonly"]),
    ];
    let d = scratch();
    let job_file = [("w.fio", "[j]\nrw=write\nioengine=null\nsize=1m\n")];
    for args in &cases {
        let [fio, ours] = both_in(d.path(), &job_file, args);
        assert_eq!(ours, fio, "{args:?}");
    }
    for args in [&["--readonly", "w.fio"][..], &["w.fio", "--readonly"][..]] {
        let [fio, ours] = both_in(d.path(), &job_file, args);
        assert_eq!(ours, fio, "{args:?}");
        assert_eq!(fio.0, 1);
    }
}
