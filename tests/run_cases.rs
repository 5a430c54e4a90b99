//! Public cases for `iomark run` (../shared/cases/public-cases.md): C10 job-file syntax,
//! C11 sloppy option values, C12 block-size ranges, C13 bssplit sums, C17 jobs sharing
//! files, C18 io_uring not permitted, C26 group aggregation. Each runs the case's
//! minimal input in a temporary directory and checks the right value or the right error.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_iomark");

fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.current_dir(dir).arg("run").args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("spawn iomark")
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A one-line error on stderr that contains every needle; no panic text.
fn one_line_error(o: &Output, needles: &[&str]) {
    let e = stderr(o);
    assert!(!e.contains("panicked"), "{e}");
    let lines: Vec<&str> = e.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line expected: {e}");
    for n in needles {
        assert!(lines[0].contains(n), "{n:?} not in {:?}", lines[0]);
    }
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

// ---- C10: comments, include, ${VAR} ----------------------------------------------------

fn c10_files(d: &Path) {
    let data = d.join("data");
    std::fs::write(
        d.join("main.fio"),
        format!(
            "# hash comment\n; semicolon comment\n[global]\nioengine=psync\nfilename={}\nsize=${{MYSIZE}}\ninclude inc.fio\n\n[job1]\nrw=read   ; trailing comment\n",
            data.display()
        ),
    )
    .unwrap();
    std::fs::write(d.join("inc.fio"), "bs=8k\n").unwrap();
}

#[test]
fn c10_comments_include_and_variable_expand() {
    let t = tempfile::tempdir().unwrap();
    c10_files(t.path());
    let o = run_in(
        t.path(),
        &["main.fio", "--output-format=json"],
        &[("MYSIZE", "128k")],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("stdout is only JSON");
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], "job1");
    // 128 KiB read in 8 KiB blocks: 16 reads, every byte once
    assert_eq!(job["read"]["io_bytes"], 131072);
    assert_eq!(job["read"]["total_ios"], 16);
    assert_eq!(
        std::fs::metadata(t.path().join("data")).unwrap().len(),
        131072
    );
}

#[test]
fn c10_unset_variable_names_it_and_the_line() {
    let t = tempfile::tempdir().unwrap();
    c10_files(t.path());
    let mut c = Command::new(BIN);
    c.current_dir(t.path())
        .args(["run", "main.fio"])
        .env_remove("MYSIZE");
    let o = c.output().unwrap();
    assert_eq!(code(&o), 2);
    one_line_error(&o, &["MYSIZE", "main.fio:6", "not set"]);
    assert!(!t.path().join("data").exists(), "nothing may run");
}

#[test]
fn c10_circular_include_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("a.fio"),
        "[global]\ninclude b.fio\n[j]\nrw=read\nsize=4k\n",
    )
    .unwrap();
    std::fs::write(t.path().join("b.fio"), "include a.fio\n").unwrap();
    let o = run_in(t.path(), &["a.fio"], &[]);
    assert_eq!(code(&o), 2);
    one_line_error(&o, &["include"]);
}

// ---- C11: sloppy option values ----------------------------------------------------------

fn c11(args: &[&str]) -> (tempfile::TempDir, Output) {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("f");
    let fa = format!("--filename={}", f.display());
    let mut a = vec!["--name=t", fa.as_str(), "--size=64k"];
    a.extend_from_slice(args);
    let o = run_in(t.path(), &a, &[]);
    (t, o)
}

#[test]
fn c11_junk_after_a_number_is_an_error() {
    let (t, o) = c11(&["--rw=randrw:foo"]);
    assert_eq!(code(&o), 2);
    one_line_error(&o, &["rw", "foo"]);
    assert!(!t.path().join("f").exists(), "no I/O before the error");
}

#[test]
fn c11_booleans_accept_the_usual_words_and_reject_others_with_the_list() {
    for w in ["0", "1", "true", "false", "yes", "no", "on", "off"] {
        let (_t, o) = c11(&["--rw=read", &format!("--direct={w}")]);
        // direct=1 may be refused by the filesystem (tmpfs: exit 3), never by the parser
        assert!(code(&o) == 0 || code(&o) == 3, "direct={w}: {}", stderr(&o));
        assert!(
            !stderr(&o).contains("invalid value"),
            "direct={w}: {}",
            stderr(&o)
        );
    }
    let (_t, o) = c11(&["--rw=read", "--direct=maybe"]);
    assert_eq!(code(&o), 2);
    one_line_error(&o, &["direct", "maybe", "yes"]);
}

#[test]
fn c11_numjobs_iodepth_rwmix_out_of_range() {
    for (arg, needles) in [
        ("--numjobs=0", ["numjobs", "1"]),
        ("--iodepth=0", ["iodepth", "1"]),
        ("--rwmixread=150", ["rwmixread", "150"]),
    ] {
        let (t, o) = c11(&["--rw=randrw", arg]);
        assert_eq!(code(&o), 2, "{arg}");
        one_line_error(&o, &needles);
        assert!(
            !t.path().join("f").exists(),
            "{arg}: no I/O before the error"
        );
    }
}

#[test]
fn c11_unknown_mode_lists_the_valid_ones() {
    let (_t, o) = c11(&["--rw=rndread"]);
    assert_eq!(code(&o), 2);
    one_line_error(&o, &["rndread", "randread", "randwrite", "randrw"]);
}

// ---- C13: bssplit sums ------------------------------------------------------------------

#[test]
fn c13_bssplit_weights_must_sum_to_100_and_the_sum_is_named() {
    for (split, sum) in [("4k/30:64k/30", "60"), ("4k/50:64k/60", "110")] {
        let (t, o) = c11(&[
            "--rw=randwrite",
            &format!("--bssplit={split}"),
            "--norandommap",
        ]);
        assert_eq!(code(&o), 2, "{split}");
        one_line_error(&o, &["bssplit", sum]);
        assert!(!t.path().join("f").exists());
    }
}

// ---- C18: io_uring not permitted (a seccomp filter, as container runtimes install) ------

/// Run `iomark run ARGS` with a seccomp filter that fails io_uring_setup(2) with EPERM,
/// as Docker's default profile does (x86-64 only: syscall 425).
#[cfg(target_arch = "x86_64")]
fn run_without_io_uring(dir: &Path, args: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(BIN);
    c.current_dir(dir).arg("run").args(args);
    unsafe {
        c.pre_exec(|| {
            // classic BPF: A = arch; if A != x86_64 allow; A = nr; if A == 425 errno(EPERM)
            let f = |code: u16, jt: u8, jf: u8, k: u32| libc::sock_filter { code, jt, jf, k };
            let prog = [
                f(0x20, 0, 0, 4),                                // ld [4]  (seccomp_data.arch)
                f(0x15, 0, 3, 0xc000003e), // jeq AUDIT_ARCH_X86_64, next, allow
                f(0x20, 0, 0, 0),          // ld [0]  (seccomp_data.nr)
                f(0x15, 0, 1, 425),        // jeq __NR_io_uring_setup, deny, allow
                f(0x06, 0, 0, 0x0005_0000 | libc::EPERM as u32), // ret ERRNO(EPERM)
                f(0x06, 0, 0, 0x7fff_0000), // ret ALLOW
            ];
            let fprog = libc::sock_fprog {
                len: prog.len() as u16,
                filter: prog.as_ptr() as *mut _,
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(libc::PR_SET_SECCOMP, 2, &fprog as *const libc::sock_fprog) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().expect("spawn iomark under seccomp")
}

#[cfg(target_arch = "x86_64")]
#[test]
fn c18_io_uring_denied_with_engine_strict_exits_3_before_any_file() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("f");
    let fa = format!("--filename={}", f.display());
    let o = run_without_io_uring(
        t.path(),
        &[
            "--engine-strict",
            "--name=t",
            &fa,
            "--size=256k",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=io_uring",
            "--iodepth=8",
        ],
    );
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("io_uring"), "{e}");
    assert!(
        e.contains("psync"),
        "the hint names the fallback engine: {e}"
    );
    assert!(!f.exists(), "probe before laying out files");
}

#[cfg(target_arch = "x86_64")]
#[test]
fn c18_io_uring_denied_falls_back_visibly_and_the_result_says_so() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("f");
    let fa = format!("--filename={}", f.display());
    let js = t.path().join("r.json");
    let ja = format!("--json={}", js.display());
    let o = run_without_io_uring(
        t.path(),
        &[
            &ja,
            "--name=t",
            &fa,
            "--size=256k",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=io_uring",
            "--iodepth=8",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("io_uring") && e.contains("psync"),
        "visible fallback warning: {e}"
    );
    let text = serde_json::to_string(&json(&js)).unwrap();
    assert!(
        text.contains("psync"),
        "the result records the engine actually used: {text}"
    );
}
