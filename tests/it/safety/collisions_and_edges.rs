//! Beside the hazard table: outputs that are one file (refused before any
//! write, exit 2, naming both), the edges of numbers (range-checked, every printed
//! figure finite, no page-cache claim of a null-engine run), names with control
//! characters in compare's formats, a `--plot` directory that is a link, and fileio's
//! seqwr that empties a prepared set.

use crate::util::*;
use std::path::Path;

fn json_of(dir: &Path, name: &str) -> serde_json::Value {
    read_json(&dir.join(name))
}

#[test]
fn outputs_that_are_one_file_are_refused_before_any_write() {
    let d = scratch();
    // fileio: the result named as one of the test files
    let r = iomark(
        d.path(),
        &[
            "fileio",
            "--file-num=2",
            "--file-total-size=1M",
            "--file-test-mode=rndrd",
            "--time=1",
            "--json=test_file.1",
            "prepare",
            "run",
        ],
    );
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.all()
            .contains("--json=test_file.1 and test file 1=test_file.1 are the same file"),
        "{}",
        r.all()
    );
    assert!(entries(d.path()).is_empty(), "{:?}", entries(d.path()));
    // run: --output and --json the same file, spelled two ways; the old file stays
    std::fs::write(d.path().join("r.json"), b"old\n").unwrap();
    let run = [
        "run",
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--rw=read",
    ];
    for extra in [
        ["--output=r.json", "--json=r.json"],
        ["--output=r.json", "--json=./r.json"],
    ] {
        let r = iomark(d.path(), &[&run[..], &extra[..]].concat());
        assert_eq!(r.code, 2, "{extra:?}: {r:?}");
        assert!(r.stderr.contains("are the same file"), "{}", r.stderr);
        assert!(r.stderr.contains("--output=r.json"), "{}", r.stderr);
        assert_eq!(std::fs::read(d.path().join("r.json")).unwrap(), b"old\n");
    }
    // run: --json names the job's data file
    let r = iomark(
        d.path(),
        &[
            "run",
            "--name=j",
            "--filename=d.dat",
            "--size=64k",
            "--rw=write",
            "--json=d.dat",
        ],
    );
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr
            .contains("--json=d.dat and data file=d.dat are the same file"),
        "{}",
        r.stderr
    );
    assert!(!d.path().join("d.dat").exists(), "nothing laid out");
    assert_eq!(std::fs::read(d.path().join("r.json")).unwrap(), b"old\n");
}

/// fio's log files (`write_bw_log`, `write_lat_log` …) are outputs too: one named as a
/// data file, as `--output` or as `--json` is refused before any write, exit 2, naming
/// both, and the file there keeps its bytes; distinct per-thread logs run.
#[test]
fn log_files_that_are_a_data_file_or_an_output_are_refused() {
    let d = scratch();
    let base = [
        "run",
        "--name=t",
        "--write_bw_log=t",
        "--write_lat_log=t",
        "--size=64k",
        "--rw=write",
        "--bs=4k",
    ];
    let cases: [(&[&str], &str, &str); 3] = [
        (
            &["--filename=t_bw.1.log"],
            "t_bw.1.log",
            "log file of job t=t_bw.1.log and data file=t_bw.1.log",
        ),
        (
            &["--filename=d", "--output=t_bw.1.log"],
            "t_bw.1.log",
            "--output=t_bw.1.log and log file of job t=t_bw.1.log",
        ),
        (
            &["--filename=d", "--json=t_clat.1.log"],
            "t_clat.1.log",
            "--json=t_clat.1.log and log file of job t=t_clat.1.log",
        ),
    ];
    for (extra, there, both) in cases {
        std::fs::write(d.path().join(there), b"mine\n").unwrap();
        let r = iomark(d.path(), &[&base[..], extra].concat());
        assert_eq!(r.code, 2, "{extra:?}: {r:?}");
        assert!(r.stderr.contains(both), "{extra:?}: {}", r.stderr);
        assert!(r.stderr.contains("are the same file"), "{}", r.stderr);
        assert_eq!(std::fs::read(d.path().join(there)).unwrap(), b"mine\n");
        let mut left = entries(d.path());
        left.retain(|n| n != there);
        assert!(left.is_empty(), "{extra:?} wrote {left:?}");
        std::fs::remove_file(d.path().join(there)).unwrap();
    }
    let r = iomark(
        d.path(),
        &[&base[..], &["--filename=d", "--numjobs=2"]].concat(),
    );
    assert_eq!(r.code, 0, "{r:?}");
    for f in ["t_bw.1.log", "t_bw.2.log", "t_lat.1.log", "t_clat.2.log"] {
        assert!(d.path().join(f).exists(), "{f}: {:?}", entries(d.path()));
    }
}

#[test]
fn number_edges_are_range_checked_and_every_figure_is_finite() {
    let d = scratch();
    // a size beyond any file offset: exit 2 naming the option and the range
    let r = iomark(
        d.path(),
        &["fileio", "--file-total-size=99999999999999T", "prepare"],
    );
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.all().contains("file-total-size"), "{}", r.all());
    assert!(r.all().contains("8 EiB"), "{}", r.all());
    assert!(entries(d.path()).is_empty());
    // the null engine did no I/O: no page-cache or device claim
    let r = iomark(
        d.path(),
        &[
            "run",
            "--name=n",
            "--ioengine=null",
            "--rw=write",
            "--size=1g",
            "--json=n.json",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!r.stderr.contains("page cache"), "{}", r.stderr);
    let n = json_of(d.path(), "n.json");
    assert!(n["page_cache"].is_null(), "{}", n["page_cache"]);
    assert!(
        n["warnings"].as_array().is_none_or(|w| w.is_empty()),
        "{}",
        n["warnings"]
    );
    // a result with a zero period: compare prints no inf in any format
    let r = iomark(
        d.path(),
        &[
            "fileio",
            "--file-num=1",
            "--file-total-size=256K",
            "--file-test-mode=rndrd",
            "--time=0",
            "--events=100",
            "--json=a.json",
            "prepare",
            "run",
            "cleanup",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let mut z = json_of(d.path(), "a.json");
    z["elapsed_s"] = 0.0.into();
    z["period_s"] = 0.0.into();
    std::fs::write(d.path().join("z.json"), z.to_string()).unwrap();
    for f in ["table", "markdown", "csv", "json"] {
        let r = iomark(
            d.path(),
            &["compare", "a.json", "z.json", &format!("--format={f}")],
        );
        assert_eq!(r.code, 0, "{f}: {r:?}");
        assert!(
            !r.stdout.to_lowercase().contains("inf"),
            "{f}: {}",
            r.stdout
        );
        assert!(!r.stdout.contains("NaN"), "{f}: {}", r.stdout);
    }
}

#[test]
fn names_with_control_characters_are_visible_in_compare() {
    let d = scratch();
    let r = iomark(
        d.path(),
        &[
            "run",
            "--name=a\nb",
            "--ioengine=null",
            "--size=1m",
            "--rw=read",
            "--json=r.json",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    for f in ["table", "markdown", "csv"] {
        let r = iomark(
            d.path(),
            &[
                "compare",
                "r.json",
                "r.json",
                "--label=x\ny",
                "--label=\u{1b}[31mred",
                &format!("--format={f}"),
            ],
        );
        assert_eq!(r.code, 0, "{f}: {r:?}");
        // markdown escapes the backslash of the visible `\n` (rendered: `x\ny`)
        let shown = if f == "markdown" { "x\\\\ny" } else { "x\\ny" };
        assert!(r.stdout.contains(shown), "{f}: {}", r.stdout);
        // (and its `[`)
        let red = if f == "markdown" {
            "\\\\x1b\\[31mred"
        } else {
            "\\x1b[31mred"
        };
        assert!(r.stdout.contains(red), "{f}: {}", r.stdout);
        assert!(!r.stdout.contains('\u{1b}'), "{f}: raw escape");
        assert!(!r.stdout.contains("x\ny"), "{f}: raw newline");
    }
}

/// The command line a report shows (compare's context lines, `report`'s HTML and
/// markdown) writes a name's control characters out in bash's `$'…'`
/// quoting: no raw newline or escape sequence, and the word pastes back as it was.
#[test]
fn a_command_line_with_control_characters_is_shown_quoted() {
    let d = scratch();
    let r = iomark(
        d.path(),
        &[
            "run",
            "--name=a\nb\u{1b}[31m",
            "--ioengine=null",
            "--size=1m",
            "--rw=read",
            "--json=r.json",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let quoted = "$'--name=a\\nb\\x1b[31m'";
    for args in [
        &["compare", "r.json", "r.json"][..],
        &["report", "r.json", "--format=html", "-o", "-"],
        &["report", "r.json", "--format=markdown", "-o", "-"],
    ] {
        let o = iomark(d.path(), args);
        assert_eq!(o.code, 0, "{args:?}: {o:?}");
        assert!(!o.stdout.contains('\u{1b}'), "{args:?}: a raw escape");
        assert!(!o.stdout.contains("a\nb"), "{args:?}: a raw newline");
        // markdown escapes the punctuation of the word in its own way
        let shown = o.stdout.replace("&#39;", "'");
        let markdown = args.contains(&"--format=markdown");
        assert!(markdown || shown.contains(quoted), "{args:?}: {}", o.stdout);
    }
}

#[test]
fn a_plot_directory_that_is_a_symbolic_link_is_refused() {
    let d = scratch();
    let outside = scratch();
    std::os::unix::fs::symlink(outside.path(), d.path().join("charts")).unwrap();
    let r = iomark(
        d.path(),
        &[
            "run",
            "--name=p",
            "--ioengine=null",
            "--size=1m",
            "--rw=read",
            "--plot=charts",
        ],
    );
    assert_eq!(r.code, 3, "{r:?}");
    assert!(
        r.stderr.contains("--plot=charts: is a symbolic link"),
        "{}",
        r.stderr
    );
    assert!(entries(outside.path()).is_empty());
}

#[test]
fn seqwr_says_it_emptied_the_prepared_set_and_a_later_read_names_the_cause() {
    let d = scratch();
    let set = ["fileio", "--file-num=2", "--file-total-size=1M"];
    assert_eq!(iomark(d.path(), &[&set[..], &["prepare"]].concat()).code, 0);
    let r = iomark(
        d.path(),
        &[
            &set[..],
            &["--file-test-mode=seqwr", "--events=10", "--time=0", "run"],
        ]
        .concat(),
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr
            .contains("seqwr re-created 2 existing test file(s) empty"),
        "{}",
        r.stderr
    );
    let r = iomark(
        d.path(),
        &[&set[..], &["--file-test-mode=rndrd", "--time=1", "run"]].concat(),
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stdout.contains("FATAL: Size of file"), "{}", r.stdout);
    // the cause, with the file's size and the run's (10 events of 16 KiB over 2
    // files: 163,840 bytes of the first, 524,288 each)
    assert!(
        r.stderr.contains(
            "iomark: test_file.0 is 163840 bytes, 360448 short of the 524288 bytes each file has for this run: seqwr re-creates the test files"
        ),
        "{}",
        r.stderr
    );
}

/// A hard link is two names of one file: fileio's `--json` named as a hard link of a
/// test file is refused as the same file (exit 2, naming both) before the link rule of
/// the output would refuse it alone, and the set keeps its bytes.
#[test]
fn a_result_hard_linked_to_a_test_file_is_named_as_the_same_file() {
    let d = scratch();
    let set = ["fileio", "--file-num=2", "--file-total-size=128K"];
    assert_eq!(iomark(d.path(), &[&set[..], &["prepare"]].concat()).code, 0);
    std::fs::hard_link(d.path().join("test_file.1"), d.path().join("r.json")).unwrap();
    let before = std::fs::read(d.path().join("test_file.1")).unwrap();
    let r = iomark(
        d.path(),
        &[
            &set[..],
            &["--file-test-mode=rndwr", "--time=0", "--events=10"],
            &["--json=r.json", "run"],
        ]
        .concat(),
    );
    let said = r.all();
    let both = "--json=r.json and test file 1=test_file.1 are the same file";
    assert!(r.code == 2 && said.contains(both), "{r:?}");
    assert_eq!(std::fs::read(d.path().join("test_file.1")).unwrap(), before);
}

/// `run`'s outputs hard-linked to the job's data file are named as one file with both
/// names (exit 2), as fileio's are, before the link rule of the output would refuse it
/// alone (exit 3, naming one): `--output`, `--json` and a `write_bw_log` file; the data
/// file keeps its bytes and nothing is created.
#[test]
fn run_outputs_hard_linked_to_a_data_file_are_named_as_the_same_file() {
    let job = ["run", "--name=t", "--size=64k", "--rw=write", "--bs=4k"];
    for (opt, name, said) in [
        (
            "--output=x.txt",
            "x.txt",
            "--output=x.txt and data file=t.0.0",
        ),
        (
            "--json=x.json",
            "x.json",
            "--json=x.json and data file=t.0.0",
        ),
        (
            "--write_bw_log=x",
            "x_bw.1.log",
            "log file of job t=x_bw.1.log and data file=t.0.0",
        ),
    ] {
        let d = scratch();
        std::fs::write(d.path().join("t.0.0"), b"the user's data\n").unwrap();
        std::fs::hard_link(d.path().join("t.0.0"), d.path().join(name)).unwrap();
        let r = iomark(d.path(), &[&job[..], &[opt]].concat());
        assert_eq!(r.code, 2, "{opt}: {r:?}");
        r.one_line_error(&[said, "are the same file"]);
        assert_eq!(
            std::fs::read(d.path().join("t.0.0")).unwrap(),
            b"the user's data\n",
            "{opt}"
        );
        assert_eq!(entries(d.path()), ["t.0.0", name], "{opt}: nothing created");
    }
}

/// A symbolic link planted at a `--bandwidth-log` file while the run goes on: the
/// final write refuses it (exit 1) with one line naming the file and the switch as it
/// was given (`--bandwidth-log` takes no value), the outside file untouched, no
/// temporary file left.
#[test]
fn a_bandwidth_log_link_planted_mid_run_is_named_with_the_switch() {
    let d = scratch();
    let outside = super::files::Outside::new();
    let a = [
        "run",
        "--name=t",
        "--size=64k",
        "--rw=write",
        "--bs=4k",
        "--bandwidth-log",
    ];
    let child = super::files::start_stopped(d.path(), &a, "write:stop@2");
    super::files::Plant::Symlink.at(&outside, &d.path().join("agg-write_bw.log"));
    kill(child.id(), libc::SIGCONT);
    let r = finish_within(child, std::time::Duration::from_secs(30));
    assert_eq!(r.code, 1, "{}", r.dump());
    let line = "agg-write_bw.log: cannot write --bandwidth-log file: is not a regular file (a symbolic link)";
    assert!(r.stderr.contains(line), "{}", r.stderr);
    assert!(!r.stderr.contains("--bandwidth-log="), "{}", r.stderr);
    outside.assert_intact("bandwidth log");
    super::files::no_temp_files(d.path());
}

/// fio's new log outputs on a filesystem that fills during the run (`/dev/full`'s
/// ENOSPC at the final write): `--bandwidth-log`'s `agg-*_bw.log` (one sample, made for
/// the JSON report) and a compressed `write_lat_log` (`log_store_compressed=1`,
/// `.log.fz`). The file that does not fit is one line naming it and the reason, exit 1,
/// and is not left at its name or as a temporary file; a log written before it is
/// complete (the data file lives elsewhere).
#[test]
fn new_log_outputs_on_a_full_filesystem_fail_with_one_line_and_no_partial_file() {
    for (logs, file) in [
        // a sample needs more than bw_avg_time (500 ms) of run
        (
            &[
                "--bandwidth-log",
                "--output-format=json",
                "--time_based",
                "--runtime=1",
            ][..],
            "agg-read_bw.log",
        ),
        (
            &["--write_lat_log=w", "--log_store_compressed=1"][..],
            "w_lat.1.log.fz",
        ),
    ] {
        let Some(m) = super::files::tmpfs("256k") else {
            return;
        };
        let d = m.dir();
        let data = scratch();
        let name = format!("--filename={}", data.path().join("t.0.0").display());
        let job = ["run", "--name=t", "--size=64k", "--rw=write", "--bs=4k"];
        let a = [&job[..], &[name.as_str()], logs].concat();
        let child = super::files::start_stopped(d, &a, "write:stop@2");
        super::files::fill_all(d);
        kill(child.id(), libc::SIGCONT);
        let r = finish_within(child, std::time::Duration::from_secs(30));
        assert_eq!(r.code, 1, "{logs:?}: {}", r.dump());
        let said: Vec<&str> = r.stderr.lines().filter(|l| l.contains(file)).collect();
        assert!(
            said.len() == 1 && said[0].ends_with(": No space left on device"),
            "{logs:?}: {}",
            r.stderr
        );
        // the file named is not there; a log committed before the disk was full is
        // complete (empty, or fio's inflate reads it whole); no temporary file is left
        for n in entries(d).into_iter().filter(|n| n != "user-filler") {
            assert!(
                n != file && !n.ends_with(".iomark-tmp"),
                "{logs:?}: {n} left"
            );
            if size_of(&d.join(&n)) == 0 {
                continue; // psync's slat log has no entry (fio's is empty too)
            }
            let arg = format!("--inflate-log={n}");
            let o = Iomark::new().dir(d).arg("run").arg(&arg).run();
            assert_eq!(o.code, 0, "{logs:?}: {n} is not complete: {}", o.dump());
        }
    }
}

/// `--plot=DIR` holds the charts: an output named as that directory, or as an `.svg`
/// file in it (where a chart of the run's would replace it, or it the chart), is
/// refused before any work in `run`, `fileio` and `mark`, exit 2, one line naming both,
/// nothing created (before, `run --json=c --plot=c` benchmarked, then lost its result
/// to the directory, exit 1; `--json=p/NAME-latency.svg` was written over by the chart,
/// exit 0).
#[test]
fn an_output_named_as_the_plot_directory_or_a_chart_in_it_is_refused() {
    let d = scratch();
    std::fs::create_dir(d.path().join("p")).unwrap();
    let null = [
        "run",
        "--name=n",
        "--ioengine=null",
        "--size=1m",
        "--rw=read",
    ];
    let set = ["fileio", "--file-num=1", "--file-total-size=64K"];
    let mark = [
        "mark",
        ".",
        "--size=1M",
        "--time=1",
        "--loops=1",
        "--warmup=0",
    ];
    let cases: [(Vec<&str>, &str); 5] = [
        (
            [&null[..], &["--json=c", "--plot=c"]].concat(),
            "--json=c and --plot=c are the same path",
        ),
        (
            [&null[..], &["--output=./c", "--plot=c"]].concat(),
            "--output=./c and --plot=c are the same path",
        ),
        (
            [
                &null[..],
                &["--plot=p", "--json=p/run-read-4k-q1t1-latency.svg"],
            ]
            .concat(),
            "--json=p/run-read-4k-q1t1-latency.svg is an .svg file in --plot=p",
        ),
        (
            [
                &set[..],
                &[
                    "--file-test-mode=rndrd",
                    "--json=c",
                    "--plot=c",
                    "prepare",
                    "run",
                ],
            ]
            .concat(),
            "--json=c and --plot=c are the same path",
        ),
        (
            [&mark[..], &["--json=p/m.svg", "--plot=p"]].concat(),
            "--json=p/m.svg is an .svg file in --plot=p",
        ),
    ];
    for (args, line) in cases {
        let o = iomark(d.path(), &args);
        assert_eq!(o.code, 2, "{args:?}: {}", o.dump());
        assert!(o.all().contains(line), "{args:?}: {}", o.all());
        assert_eq!(entries(d.path()), ["p"], "{args:?}: a file was made");
        assert!(entries(&d.path().join("p")).is_empty(), "{args:?}");
    }
}

/// `iomark time`'s `--json` and `--output` that are one file — by path or through a
/// hard link — are refused before the command runs, exit 2, one line naming both, the
/// file untouched (before, the report and the result wrote over each other, exit 0).
#[test]
fn time_outputs_that_are_one_file_are_refused_before_the_command_runs() {
    // one `iomark time` at a time with tests/it/time.rs (kernel.task_delayacct)
    let _switch = crate::time::one_at_a_time();
    let d = scratch();
    std::fs::write(d.path().join("x"), b"mine\n").unwrap();
    std::fs::hard_link(d.path().join("x"), d.path().join("y")).unwrap();
    for (out, json) in [("--output=./x", "--json=x"), ("--output=x", "--json=y")] {
        let o = iomark(d.path(), &["time", out, json, "--", "touch", "ran"]);
        assert_eq!(o.code, 2, "{out} {json}: {}", o.dump());
        assert!(
            o.stderr.contains("are the same file") && o.stderr.contains(&out[..8]),
            "{}",
            o.stderr
        );
        assert_eq!(std::fs::read(d.path().join("x")).unwrap(), b"mine\n");
        assert!(!d.path().join("ran").exists(), "the command ran");
    }
}

/// `--output` (or `--json`) naming the job file being read would replace the job with
/// its report (fio 3.33 does so, and exits 1): refused before the run as two names of
/// one file — `iomark run` exit 2, the fio persona exit 1 — and the job file kept, also
/// when spelled another way or through a hard link.
#[test]
fn an_output_over_the_job_file_read_is_refused_and_the_job_kept() {
    let d = scratch();
    let job = "[j]\nioengine=null\nsize=1m\nrw=read\n";
    std::fs::write(d.path().join("j.fio"), job).unwrap();
    std::fs::hard_link(d.path().join("j.fio"), d.path().join("h.fio")).unwrap();
    for out in [
        "--output=j.fio",
        "--output=./j.fio",
        "--json=j.fio",
        "--output=h.fio",
    ] {
        let r = iomark(d.path(), &["run", out, "j.fio"]);
        assert_eq!(r.code, 2, "{out}: {r:?}");
        assert!(r.stderr.contains("job file=j.fio"), "{out}: {}", r.stderr);
        assert!(
            r.stderr.contains("are the same file"),
            "{out}: {}",
            r.stderr
        );
        let kept = std::fs::read_to_string(d.path().join("j.fio")).unwrap();
        assert_eq!(kept, job, "{out}");
    }
    let r = as_fio(d.path())
        .dir(d.path())
        .args(["--output=j.fio", "j.fio"])
        .run();
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("are the same file"), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(d.path().join("j.fio")).unwrap(),
        job
    );
    // another output name runs
    let r = iomark(d.path(), &["run", "--output=r.txt", "j.fio"]);
    assert_eq!(r.code, 0, "{r:?}");
}

/// One answer for one kind of output path, in every command (docs/safety.md "Exit
/// codes"): a path that can never be the file for what the filesystem holds — a
/// directory (`--json=.`), a missing parent (`/nodir/x.json`), a parent that is a
/// regular file, a `--plot` directory that is a regular file or whose parent is missing
/// — is exit 3, one line naming the option, before any I/O; outputs that name one file
/// (`--json=r.json` twice over, as `--output` too) are exit 2. The rows are the product
/// of the commands and their output switches with the kinds of path.
#[test]
fn bad_output_paths_are_exit_3_and_collisions_exit_2_in_every_command() {
    let d = scratch();
    let p = d.path();
    for dir in ["s", "t", "m"] {
        std::fs::create_dir(p.join(dir)).unwrap();
    }
    std::fs::write(p.join("regular"), b"a user file").unwrap();
    let set = ["fileio", "--file-num=1", "--file-total-size=1M"];
    let rd = ["--file-test-mode=seqrd", "--time=0", "--events=10"];
    let made = Iomark::new()
        .dir(p)
        .args(set)
        .args(rd)
        .args(["--json=a.json", "prepare", "run"]);
    assert_eq!(made.run().code, 0);
    let fileio: Vec<&str> = set.iter().chain(&rd).copied().collect();
    let job = [
        "run",
        "--name=j",
        "--filename=data",
        "--size=64k",
        "--rw=write",
    ];
    // each command with its output switches: (argv before the output, switches, argv after)
    let commands: Vec<(Vec<&str>, Vec<&str>, Vec<&str>)> = vec![
        (fileio.clone(), vec!["--json", "--plot"], vec!["run"]),
        (job.to_vec(), vec!["--json", "--output", "--plot"], vec![]),
        (
            vec!["mark", "m", "--size=1M", "--time=1", "--loops=1"],
            vec!["--json", "--plot"],
            vec![],
        ),
        (vec!["copy", "s", "t", "--size=1M"], vec!["--json"], vec![]),
        (vec!["tree", "t", "--files=10"], vec!["--json"], vec![]),
        (vec!["time"], vec!["--json", "--output"], vec!["--", "true"]),
        (vec!["compare", "a.json", "a.json"], vec!["--plot"], vec![]),
        (vec!["report", "a.json"], vec!["--output"], vec![]),
    ];
    let files = [".", "/nodir/x.json", "regular/x.json"];
    let svgs = [".", "/nodir/x.svg", "regular/x.svg"];
    let dirs = ["regular", "/nodir/p"];
    let mut rows = 0;
    for (before, switches, after) in &commands {
        for sw in switches {
            // compare's --plot is one SVG file; every other --plot a directory
            let charts_dir = *sw == "--plot" && before[0] != "compare";
            let kinds: &[&str] = match (charts_dir, *sw == "--plot") {
                (true, _) => &dirs,
                // compare's one chart: an .svg name (another extension is bad input)
                (false, true) => &svgs,
                _ => &files,
            };
            for path in kinds {
                let o = Iomark::new()
                    .dir(p)
                    .env("IOMARK_HISTORY", "off")
                    .args(before)
                    .arg(format!("{sw}={path}"))
                    .args(after)
                    .run();
                let all = format!("{}{}", o.stdout, o.stderr);
                let what = format!("{before:?} {sw}={path}");
                assert_eq!(o.code, 3, "{what}: {all}");
                assert!(!all.contains("panicked"), "{what}: {all}");
                let said = all
                    .lines()
                    .filter(|l| l.contains(&format!("{sw}={path}")))
                    .count();
                assert_eq!(said, 1, "{what}: one line naming it: {all}");
                rows += 1;
            }
        }
        // two file outputs of the command named as one file: a collision, exit 2
        let outs: Vec<&&str> = switches.iter().filter(|s| **s != "--plot").collect();
        let pair: Vec<String> = match outs.len() {
            0 | 1 if before[0] == "fileio" => {
                vec!["--json=test_file.0".into()]
            }
            0 | 1 => continue,
            _ => vec![format!("{}=c.out", outs[0]), format!("{}=./c.out", outs[1])],
        };
        let o = Iomark::new()
            .dir(p)
            .args(before)
            .args(&pair)
            .args(after)
            .run();
        assert_eq!(o.code, 2, "{before:?} {pair:?}: {}{}", o.stdout, o.stderr);
        assert!(!p.join("c.out").exists(), "{before:?}: nothing written");
        rows += 1;
    }
    assert!(rows >= 30, "{rows} rows");
    assert_eq!(std::fs::read(p.join("regular")).unwrap(), b"a user file");
}
