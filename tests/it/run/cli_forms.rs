//! `iomark run` command-line forms checked against fio 3.33's behaviour: `--key value`
//! (getopt style) for keys that take a value, flag keys that never take the next word,
//! `-` (job file on stdin), `size=0` as unset, the io_uring iodepth limit, and the
//! `--reap-spin` value forms and messages, and fio's front-end options a drop-in takes
//! (`--eta*`, `--version`, `--parse-only`, `--warnings-fatal`; terse output refused).

use crate::util::*;
use iomark::job::fio::{parse_args_with, FioError, SizeSpec, IORING_MAX_ENTRIES};
use std::time::Duration;

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn parse(v: &[&str]) -> Result<iomark::job::fio::FioCommand, FioError> {
    parse_args_with(&args(v), &|_| None)
}

/// `iomark run ARGS` in `dir`, with `stdin` on standard input.
fn run_stdin(dir: &std::path::Path, a: &[&str], stdin: &str) -> Out {
    Iomark::new()
        .dir(dir)
        .arg("run")
        .args(a)
        .run_with_stdin(stdin)
}

#[test]
fn value_keys_take_the_next_word_like_fio() {
    let c = parse(&[
        "--name",
        "j",
        "--bs",
        "8k",
        "--filename",
        "jobish",
        "--size",
        "1m",
        "--iodepth",
        "4",
        "--reap-spin",
        "5us",
    ])
    .unwrap();
    let j = &c.jobs[0];
    assert_eq!(j.name, "j");
    assert_eq!(j.filename.as_deref(), Some("jobish"));
    assert_eq!(j.iodepth, 4);
    assert_eq!(j.reap_spin_ns, 5_000);
    assert_eq!(j.size, Some(SizeSpec::Bytes(1 << 20)));
    assert_eq!(c.jobs.len(), 1, "no word was taken as a job file");
}

#[test]
fn flag_keys_do_not_take_the_next_word() {
    // fio: `--time_based 1` reads job file `1`
    let e = parse(&[
        "--name=j",
        "--size=1m",
        "--runtime=1",
        "--time_based",
        "nosuch.fio",
    ])
    .unwrap_err()
    .to_string();
    assert!(e.contains("nosuch.fio"), "{e}");
    let e = parse(&["--name=j", "--size=1m", "--group_reporting", "1"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("'1'") || e.contains(" 1"), "{e}");
    // a bare flag before another option still works
    let c = parse(&[
        "--name=j",
        "--size=1m",
        "--engine-strict",
        "--norandommap",
        "--rw=randread",
    ])
    .unwrap();
    assert!(c.engine_strict);
    assert!(c.jobs[0].norandommap);
}

#[test]
fn boolean_keys_take_a_boolean_word_only() {
    // fio: `--direct 1` is direct=1 (FIO_OPT_BOOL takes the next word)
    let c = parse(&["--name=j", "--size=1m", "--direct", "0"]).unwrap();
    assert!(!c.jobs[0].direct);
    let c = parse(&["--name=j", "--size=1m", "--direct", "1"]).unwrap();
    assert!(c.jobs[0].direct);
    let e = parse(&["--name=j", "--size=1m", "--direct", "nosuch.fio"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("nosuch.fio"), "{e}");
}

#[test]
fn a_missing_value_names_the_key_and_the_form() {
    for (a, key) in [
        (&["--name=j", "--size=1m", "--bs"][..], "bs"),
        (
            &["--name=j", "--size=1m", "--iodepth", "--rw=read"][..],
            "iodepth",
        ),
        (&["--name=j", "--size=1m", "--reap-spin"][..], "reap-spin"),
        (&["--name"][..], "name"),
    ] {
        let e = parse(a).unwrap_err();
        assert!(matches!(e, FioError::Usage(_)), "{a:?}: {e:?}");
        let want = format!("--{key} needs a value (--{key}=VALUE)");
        assert!(e.to_string().ends_with(&want), "{a:?}: {e}");
    }
}

#[test]
fn own_options_keep_their_specific_missing_value_message() {
    let e = parse(&["--name=j", "--size=1m", "--output"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--output needs a file name (--output=FILE)"),
        "{e}"
    );
    let c = parse(&["--name=j", "--size=1m", "--output", "r.txt"]).unwrap();
    assert_eq!(c.output.as_deref(), Some(std::path::Path::new("r.txt")));
}

#[test]
fn size_zero_is_unset_as_in_fio() {
    let c = parse(&["--name=j", "--filename=f", "--size=0"]).unwrap();
    assert_eq!(c.jobs[0].size, None);
    let d = scratch();
    std::fs::write(d.path().join("f"), vec![0u8; 16384]).unwrap();
    let r = run_stdin(
        d.path(),
        &[
            "--name=j",
            "--filename=f",
            "--size=0",
            "--rw=read",
            "--bs=4k",
            "--ioengine=psync",
            "--output-format=json",
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["jobs"][0]["read"]["io_bytes"], 16384,
        "the file's own size is read"
    );
}

#[test]
fn io_uring_iodepth_above_the_ring_limit_is_refused_up_front() {
    assert_eq!(IORING_MAX_ENTRIES, 32_768);
    let ok = parse(&[
        "--name=j",
        "--size=1m",
        "--ioengine=io_uring",
        "--iodepth=32768",
    ]);
    assert!(ok.is_ok());
    let e = parse(&[
        "--name=j",
        "--size=1m",
        "--ioengine=io_uring",
        "--iodepth=65536",
    ])
    .unwrap_err()
    .to_string();
    assert!(e.contains("iodepth=65536") && e.contains("32768"), "{e}");
    // other engines keep fio's range
    assert!(parse(&[
        "--name=j",
        "--size=1m",
        "--ioengine=psync",
        "--iodepth=65536"
    ])
    .is_ok());
    let d = scratch();
    let r = run_stdin(
        d.path(),
        &[
            "--name=j",
            "--size=64k",
            "--ioengine=io_uring",
            "--iodepth=65536",
        ],
        "",
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains("unavailable"), "{}", r.stderr);
}

#[test]
fn reap_spin_forms_and_messages() {
    let ns = |v: &str| parse(&["--name=j", "--size=1m", &format!("--reap-spin={v}")]);
    assert_eq!(ns("1.5us").unwrap().jobs[0].reap_spin_ns, 1_500);
    assert_eq!(ns("5ns").unwrap().jobs[0].reap_spin_ns, 5);
    assert_eq!(
        ns("7").unwrap().jobs[0].reap_spin_ns,
        7_000,
        "a plain number is µs"
    );
    assert_eq!(ns("0").unwrap().jobs[0].reap_spin_ns, 0);
    assert_eq!(ns("1ms").unwrap().jobs[0].reap_spin_ns, 1_000_000);
    for bad in ["10s", "2ms", "abc", "5q", "1001us", ""] {
        let e = ns(bad).unwrap_err().to_string();
        assert!(
            e.contains("a time up to 1ms: 5us, 800ns") && e.contains("a plain number is µs"),
            "{bad}: {e}"
        );
        assert!(!e.contains("e.g. 10, 10s"), "{bad}: {e}");
    }
    // in a job file it is named as a command-line option
    let d = scratch();
    let r = run_stdin(d.path(), &["-"], "[j]\nsize=1m\nreap_spin=5us\n");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("command-line option of iomark"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("not supported by iomark"),
        "{}",
        r.stderr
    );
}

#[test]
fn time_unit_message_lists_ns() {
    let e = iomark::job::fio::parse_time("5q", 1).unwrap_err();
    assert!(e.contains("ns, us, ms"), "{e}");
}

#[test]
fn job_file_from_stdin() {
    let d = scratch();
    let r = run_stdin(
        d.path(),
        &["--showcmd", "-"],
        "[global]\nioengine=null\n[fromstdin]\nsize=1m\nrw=randread\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("--name=fromstdin"), "{}", r.stdout);
    assert!(r.stdout.contains("--rw=randread"), "{}", r.stdout);
    // errors name <stdin> and the line
    let r = run_stdin(d.path(), &["-"], "[j]\nsize=1m\nbogus_key=1\n");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("<stdin>:3"), "{}", r.stderr);
    // and it runs
    let r = run_stdin(
        d.path(),
        &["--output-format=json", "-"],
        "[j]\nioengine=null\nsize=64k\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\"jobname\" : \"j\"") || r.stdout.contains("\"jobname\": \"j\""));
}

#[test]
fn showcmd_keeps_value_forms_and_own_options() {
    let d = scratch();
    let r = run_stdin(
        d.path(),
        &[
            "--showcmd",
            "--name",
            "j",
            "--size",
            "1m",
            "--reap-spin",
            "1.5us",
            "--engine-strict",
        ],
        "",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.trim(),
        "iomark run --name=j --size=1m --reap-spin=1.5us --engine-strict"
    );
}

#[test]
fn interrupt_during_layout_does_not_point_at_a_missing_report() {
    // the test-only fault stops iomark at the 2nd layout write (SIGSTOP); the SIGINT is
    // sent while it is stopped, so it lands inside the layout whatever the machine's speed
    let d = scratch();
    let mut child = Iomark::new()
        .dir(d.path())
        .fault("write:stop@2")
        .args([
            "run",
            "--name=big",
            "--filename=big.dat",
            "--size=8m",
            "--rw=read",
            "--ioengine=psync",
        ])
        .spawn();
    assert!(
        wait_stopped(&mut child, Duration::from_secs(20)),
        "iomark never stopped at the fault"
    );
    kill(child.id(), libc::SIGINT);
    kill(child.id(), libc::SIGCONT);
    let o = finish(child);
    let (out, err) = (&o.stdout, &o.stderr);
    assert_eq!(o.code, 130, "{err}");
    assert!(
        out.is_empty(),
        "interrupted during the layout: no report\n{out}"
    );
    assert!(!err.contains("report above"), "{err}");
    assert!(err.contains("no job report"), "{err}");
}

#[test]
fn a_refused_ring_is_not_called_unavailable() {
    // the kernel refuses sqthread_poll_cpu beyond the CPUs with EINVAL, as it would a
    // ring too large: io_uring works, so the message must not say it is unavailable
    let d = scratch();
    std::fs::write(d.path().join("f"), vec![0u8; 16384]).unwrap();
    let r = run_stdin(
        d.path(),
        &[
            "--name=x",
            "--filename=f",
            "--size=16k",
            "--ioengine=io_uring",
            "--sqthread_poll",
            "--sqthread_poll_cpu=4000",
            "--rw=read",
        ],
        "",
    );
    if r.stderr.contains("Invalid argument") {
        assert!(
            !r.stderr.contains("io_uring is unavailable"),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("refused the ring"), "{}", r.stderr);
    }
}

#[test]
fn eta_options_are_accepted_and_checked() {
    for ok in [
        "--eta=never",
        "--eta=always",
        "--eta=auto",
        "--eta-newline=1",
        "--eta-newline=500ms",
        "--eta-interval=250",
    ] {
        let c = parse(&[ok, "--name=j", "--size=64k"]);
        assert!(c.is_ok(), "{ok}: {c:?}");
    }
    // `--eta never` (getopt form) takes the next word as fio does
    let c = parse(&["--eta", "never", "--name=j", "--size=64k"]).unwrap();
    assert_eq!(c.jobs.len(), 1);
    let e = parse(&["--eta=sometimes", "--name=j", "--size=64k"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'eta'") && e.contains("never, always, auto"),
        "{e}"
    );
    // fio 3.33: "failed parsing eta interval x"
    let e = parse(&["--eta-interval=x", "--name=j", "--size=64k"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("eta-interval") && e.contains("'x'"), "{e}");
}

#[test]
fn version_prints_the_program_and_version() {
    let d = scratch();
    let r = run_stdin(d.path(), &["--version"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!("iomark {}\n", env!("CARGO_PKG_VERSION")),
        "{}",
        r.stderr
    );
}

#[test]
fn parse_only_prints_nothing_and_reports_parse_errors() {
    let d = scratch();
    let r = run_stdin(
        d.path(),
        &["--parse-only", "--name=j", "--size=1m", "--rw=write"],
        "",
    );
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    // nothing ran: no data file was laid out
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    let r = run_stdin(
        d.path(),
        &["--parse-only", "--name=j", "--size=1m", "--bs=zz"],
        "",
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("bs"), "{}", r.stderr);
    let e = parse(&["--parse-only=1", "--name=j", "--size=64k"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--parse_only takes no value") || e.contains("--parse-only takes no value"),
        "{e}"
    );
}

#[test]
fn warnings_fatal_turns_a_parse_notice_into_exit_2() {
    let d = scratch();
    // `threads=` gives a notice (it is not `thread`)
    let job = [
        "--name=j",
        "--size=64k",
        "--ioengine=null",
        "--threads=2",
        "--parse-only",
    ];
    let r = run_stdin(d.path(), &job, "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("notice: threads="), "{}", r.stderr);
    let mut a = vec!["--warnings-fatal"];
    a.extend_from_slice(&job);
    let r = run_stdin(d.path(), &a, "");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("notice: threads="), "{}", r.stderr);
    assert!(r.stderr.contains("--warnings-fatal"), "{}", r.stderr);
    // without a notice it changes nothing
    let r = run_stdin(
        d.path(),
        &["--warnings-fatal", "--parse-only", "--name=j", "--size=64k"],
        "",
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}

#[test]
fn terse_output_is_refused_by_name() {
    for a in [
        "--minimal",
        "--output-format=terse",
        "--output-format=json,terse",
    ] {
        let e = parse(&[a, "--name=j", "--size=64k"]).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("terse") && m.contains("not supported"),
            "{a}: {m}"
        );
        assert!(!m.contains('\n'), "{m}");
    }
    let d = scratch();
    let r = run_stdin(d.path(), &["--minimal", "--name=j", "--size=64k"], "");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
}
