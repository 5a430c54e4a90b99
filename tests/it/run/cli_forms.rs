//! `iomark run` command-line forms checked against fio 3.33's behaviour: `--key value`
//! (getopt style) for keys that take a value, flag keys that never take the next word,
//! `-` (job file on stdin), `size=0` as unset, the io_uring iodepth limit, and the
//! `--reap-spin` value forms and messages, and fio's front-end options a drop-in takes
//! (`--eta*`, `--version`, `--parse-only`, `--warnings-fatal`, terse output),
//! through the binary; what the parser makes of the same forms is unit-tested in
//! src/job/fio/tests.rs.

use crate::util::*;
use std::time::Duration;

/// `iomark run ARGS` in `dir`, with `stdin` on standard input.
fn run_stdin(dir: &std::path::Path, a: &[&str], stdin: &str) -> Out {
    Iomark::new()
        .dir(dir)
        .arg("run")
        .args(a)
        .run_with_stdin(stdin)
}

#[test]
fn size_zero_is_unset_as_in_fio() {
    // the parse (`size` None) is a unit test of src/job/fio/tests.rs
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
    // the parser's limits are a unit test of src/job/fio/tests.rs
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
    // the value forms are a unit test of src/job/fio/tests.rs
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
    // `--parse-only=1` is refused by the parser: a unit test of src/job/fio/tests.rs
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
fn terse_output_is_one_line_per_job() {
    // the spellings are unit tests of src/job/fio/tests.rs; the layout is
    // src/report/fio/terse.rs's and tests/it/fio_compat/terse.rs's
    let d = scratch();
    let r = run_stdin(d.path(), &["--minimal", "--name=j", "--size=64k"], "");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    assert!(r.stdout.starts_with("3;iomark-"), "{}", r.stdout);
}
