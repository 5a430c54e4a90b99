//! A newcomer's path through the binary and stdout's error rule:
//! help that answers the question (`--help`, `help CMD`, `-h` everywhere, did you mean),
//! shell completions and man pages made from the same definitions, `tree --drop-caches`,
//! colour on a terminal only, and every command's exit code when stdout is `/dev/full` or
//! a closed pipe. (The `run` definition against fio's option list:
//! src/cli/help/option_coverage.rs.)

use crate::util::*;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Exit code, stdout, stderr of `iomark ARGS` in `dir` with `env` set (and without
/// an inherited NO_COLOR).
fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let o = Iomark::new()
        .args(args)
        .dir(dir)
        .env_remove("NO_COLOR")
        .envs(env)
        .run();
    (o.code, o.stdout, o.stderr)
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, &[])
}

const COMMANDS: [&str; 7] = [
    "diagnose", "mark", "fileio", "run", "compare", "copy", "tree",
];

/// The PCIe story: an NVMe reads far below its rating, the user suspects a
/// PCIe 2.0 x4 slot. From `iomark --help` (command 1) the line under the question is a
/// command that answers it (command 2): the negotiated link against the drive's maximum.
#[test]
fn pcie_question_is_answered_two_commands_from_help() {
    let (_, help, _) = run(&["--help"]);
    let lines: Vec<&str> = help.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("PCIe 2.0 x4"))
        .unwrap();
    let cmd = lines[at..at + 6]
        .iter()
        .map(|l| l.trim().trim_end_matches(')'))
        .find(|l| l.starts_with("iomark diagnose ") && l.contains("--fixture"))
        .unwrap_or_else(|| panic!("no runnable diagnose example under the PCIe question:\n{help}"));
    let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    let (c, out, err) = run(&args);
    assert_eq!(c, 0, "{cmd}: {err}");
    for says in [
        "PCIE_LINK_BELOW_DEVICE: PCIe link runs at Gen2 x4 (5.0 GT/s)",
        "the drive supports Gen3 x4",
        "set by the PCIe link at 0000:00:1c.4 (Gen2 x4, 5.0 GT/s)",
    ] {
        assert!(out.contains(says), "{cmd} does not say {says:?}:\n{out}");
    }
}

#[test]
fn top_level_help_leads_the_pcie_question_to_diagnose() {
    let (c, out, _) = run(&["--help"]);
    assert_eq!(c, 0);
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("PCIe 2.0 x4"))
        .expect("the question of a PCIe 2.0 x4 slot");
    assert!(
        lines[at..at + 3]
            .iter()
            .any(|l| l.trim() == "iomark diagnose /mnt/data"),
        "{out}"
    );
    for c in COMMANDS {
        assert!(
            out.contains(&format!("\n  {c} ")),
            "{c} is not listed:\n{out}"
        );
        assert!(
            out.contains(&format!("    iomark {c} ")),
            "no example of {c}:\n{out}"
        );
    }
    // bare `iomark`: the same help, exit 2
    let (c, bare, _) = run(&[]);
    assert_eq!((c, bare.as_str()), (2, out.as_str()));
    assert_eq!(run(&["-h"]).1, out);
    assert_eq!(run(&["help"]).1, out);
}

#[test]
fn help_cmd_equals_cmd_help_and_dash_h_works_everywhere() {
    for c in COMMANDS {
        let (code, help, err) = run(&["help", c]);
        assert_eq!(code, 0, "iomark help {c}: {err}");
        let (code2, own, _) = run(&[c, "--help"]);
        assert_eq!(code2, 0);
        assert_eq!(help, own, "iomark help {c} vs iomark {c} --help");
        assert!(
            help.contains("Example"),
            "{c} --help has no example:\n{help}"
        );
        let (code3, short, err3) = run(&[c, "-h"]);
        assert_eq!(code3, 0, "{c} -h: {err3}");
        assert!(!short.is_empty() && err3.is_empty(), "{c} -h");
        assert!(!short.contains("Unknown command"), "{short}");
    }
    for c in ["completions", "man"] {
        let (code, out, _) = run(&["help", c]);
        assert_eq!(code, 0);
        assert!(out.contains(&format!("Usage: iomark {c}")), "{out}");
    }
    let (code, _, err) = run(&["help", "fileo"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean 'fileio'?"), "{err}");
}

#[test]
fn diagnose_help_names_links_raid_cache_alignment_and_fixtures() {
    let (c, out, _) = run(&["diagnose", "--help"]);
    assert_eq!(c, 0);
    for w in [
        "PCIe",
        "SATA",
        "USB",
        "link",
        "width",
        "RAID",
        "cache",
        "misaligned",
        "--fixture",
        "PCIe 2.0 x4",
    ] {
        assert!(out.contains(w), "diagnose --help does not name {w}:\n{out}");
    }
    let (_, short, _) = run(&["diagnose", "-h"]);
    for w in [
        "PCIe",
        "SATA",
        "USB",
        "RAID",
        "cache",
        "alignment",
        "--fixture",
    ] {
        assert!(short.contains(w), "diagnose -h does not name {w}:\n{short}");
    }
}

#[test]
fn fileio_help_lists_every_option_and_fileio_help_stays_sysbench() {
    let (c, out, _) = run(&["fileio", "--help"]);
    assert_eq!(c, 0);
    for o in iomark::cli::fileio::table::OPTIONS.iter().map(|o| o.name) {
        assert!(
            out.contains(&format!("  --{o}=")) || out.contains(&format!("  --{o}[=on|off]")),
            "--{o} missing from fileio --help"
        );
    }
    assert_eq!(run(&["fileio", "-h"]).1, out);
    // `fileio help` is sysbench's text, byte for byte after the banner line
    let (c, help, _) = run(&["fileio", "help"]);
    assert_eq!(c, 0);
    let ours = help.split_once('\n').map(|x| x.1).unwrap_or("");
    assert!(
        ours.starts_with("\nfileio options:\n  --file-num=N"),
        "{help}"
    );
    if have_sysbench() {
        let o = sysbench(Path::new(env!("CARGO_MANIFEST_DIR")), &["help"]);
        let theirs = o.stdout.split_once('\n').map(|x| x.1).unwrap_or("");
        assert_eq!(ours, theirs, "fileio help differs from sysbench 1.0.20's");
    }
}

#[test]
fn version_everywhere_and_did_you_mean() {
    let want = format!("iomark {}\n", env!("CARGO_PKG_VERSION"));
    for args in [
        &["--version"][..],
        &["-V"],
        &["run", "--version"],
        &["mark", "--version"],
        &["diagnose", "--version"],
        &["compare", "-V"],
        &["copy", "--version"],
        &["tree", "--version"],
    ] {
        let (c, out, err) = run(args);
        assert_eq!((c, out.as_str()), (0, want.as_str()), "{args:?}: {err}");
    }
    let (c, out, err) = run(&["fileo"]);
    assert_eq!(c, 2);
    assert!(out.is_empty());
    assert!(
        err.starts_with("iomark: unknown command 'fileo'; did you mean 'fileio'?"),
        "{err}"
    );
    let (_, _, err) = run(&["zzzz"]);
    assert!(!err.contains("did you mean"), "{err}");
}

#[test]
fn completions_parse_and_name_every_command() {
    let (c, bash, _) = run(&["completions", "bash"]);
    assert_eq!(c, 0);
    let mut child = Command::new("bash")
        .arg("-n")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(bash.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    for shell in ["bash", "zsh", "fish"] {
        let (c, script, err) = run(&["completions", shell]);
        assert_eq!(c, 0, "{shell}: {err}");
        assert!(script.len() > 1000, "{shell}");
        for cmd in COMMANDS {
            assert!(script.contains(cmd), "{shell} completion lacks {cmd}");
        }
        // options of the hand-parsed commands are there too
        for o in [
            "file-test-mode",
            "iodepth",
            "output-format",
            "drop-caches",
            "color",
        ] {
            assert!(script.contains(o), "{shell} completion lacks --{o}");
        }
    }
    assert_eq!(run(&["completions", "tcsh"]).0, 2);
    assert_eq!(run(&["completions"]).0, 2);
}

#[test]
fn man_pages_render() {
    for cmd in [
        None,
        Some("fileio"),
        Some("run"),
        Some("diagnose"),
        Some("mark"),
        Some("tree"),
        Some("copy"),
        Some("compare"),
    ] {
        let mut args = vec!["man"];
        args.extend(cmd);
        let (c, roff, err) = run(&args);
        assert_eq!(c, 0, "{args:?}: {err}");
        let d = scratch();
        let page = d.path().join("iomark.1");
        std::fs::write(&page, &roff).unwrap();
        let o = Command::new("man")
            .arg("-l")
            .arg(&page)
            .env("MANWIDTH", "80")
            .output()
            .expect("man (man-db) is installed: tests/run.sh installs it");
        assert!(
            o.status.success(),
            "man -l: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8_lossy(&o.stdout);
        let title = match cmd {
            None => "iomark".to_string(),
            Some(c) => format!("iomark-{c}"),
        };
        assert!(text.contains("NAME") && text.contains(&title), "{text}");
        assert!(
            o.stderr.is_empty(),
            "man -l warns: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let (_, top, _) = run(&["man"]);
    for c in COMMANDS {
        assert!(top.contains(&format!("iomark\\-{c}")), "the page lists {c}");
    }
    assert_eq!(run(&["man", "nope"]).0, 2);
}

fn results_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results")
}

/// The command words of `iomark --help` (its `Commands:` section).
fn help_commands() -> Vec<String> {
    let (_, help, _) = run(&["--help"]);
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect()
}

/// Every command `iomark --help` lists, and the fio and sysbench personas (the binary
/// started as `fio`, `sysbench`), with stdout on `/dev/full`: one row each beside
/// [`stdout_full_or_closed_never_panics_and_exits_as_documented`]'s (a command the help
/// lists with a row in neither table fails here). Each row: the documented exit code
/// (1: the report was lost; `time`'s stdout is its command's, `true` writes nothing, so
/// 0; the sysbench persona 0, sysbench 1.0.20's code, which ignores the failed write, and
/// its `prepare` keeps the files it made), the one line `PROG: cannot write WHAT to stdout: No space left on device` once
/// (none for `time`), WHAT what stdout was to hold (`the report`, `the help`, `the
/// version`, `the man page`), no panic (docs/safety.md "When stdout cannot be written").
#[test]
fn every_command_and_persona_on_a_full_stdout_is_a_row() {
    let d = scratch();
    let cmp = results_dir().join("vm-mark.json").display().to_string();
    let _ = as_fio(d.path());
    let sb = d.path().join("bin/sysbench");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iomark"), &sb).unwrap();
    let rows: Vec<(&str, Vec<&str>, i32, &str)> = vec![
        ("iomark", vec!["history"], 1, "the report"),
        ("iomark", vec!["history", "list"], 1, "the report"),
        ("iomark", vec!["report", &cmp], 1, "the report"),
        (
            "iomark",
            vec!["report", &cmp, "--format=openmetrics"],
            1,
            "the report",
        ),
        (
            "iomark",
            vec!["report", &cmp, "--format=markdown"],
            1,
            "the report",
        ),
        ("iomark", vec!["time", "--", "true"], 0, ""),
        ("iomark", vec!["help"], 1, "the help"),
        ("iomark", vec!["man", "run"], 1, "the man page"),
        (
            "iomark",
            vec!["compare", &cmp, &cmp, "--format=csv"],
            1,
            "the report",
        ),
        (
            "fio",
            vec!["--name=x", "--filename=x.dat", "--size=64k", "--rw=write"],
            1,
            "the report",
        ),
        ("fio", vec!["--version"], 1, "the version"),
        ("fio", vec!["--help"], 1, "the help"),
        (
            "sysbench",
            vec!["fileio", "--file-num=1", "--file-total-size=1M", "prepare"],
            0,
            "the report",
        ),
        ("sysbench", vec!["--version"], 0, "the version"),
        ("sysbench", vec!["--help"], 0, "the help"),
    ];
    let above = [
        "help",
        "fileio",
        "run",
        "mark",
        "completions",
        "man",
        "diagnose",
    ];
    let above = above.iter().chain(&["compare", "copy", "tree"]);
    let mut words: Vec<&str> = rows
        .iter()
        .filter(|r| r.0 == "iomark")
        .map(|r| r.1[0])
        .collect();
    words.extend(above.copied());
    for c in help_commands() {
        assert!(
            words.contains(&c.as_str()),
            "`{c}` has no row on a full stdout"
        );
    }
    for (prog, args, code, holds) in rows {
        let work = scratch();
        let cmd = match prog {
            "fio" => as_fio(d.path()),
            "sysbench" => Iomark::program(&sb).configure(|c| {
                std::os::unix::process::CommandExt::arg0(c, "sysbench");
            }),
            _ => Iomark::new(),
        };
        let o = cmd
            .env("IOMARK_HISTORY", "off")
            .args(&args)
            .dir(work.path())
            .command()
            .stdin(Stdio::null())
            .stdout(Sink::DevFull.stdio())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let what = format!("{prog} {args:?}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert_eq!(o.status.code(), Some(code), "{what}: {err}");
        let prefix = if prog == "fio" { "fio" } else { "iomark" };
        // the sysbench persona keeps sysbench's code (it ignores a failed write), and
        // says so
        let sysbench = prog == "sysbench";
        let kept = if sysbench {
            "; the command ran to its end and keeps sysbench's exit status, which ignores a failed write"
        } else {
            ""
        };
        let line =
            format!("{prefix}: cannot write {holds} to stdout: No space left on device{kept}");
        let lost = err.lines().filter(|l| *l == line).count();
        assert!(
            err.lines()
                .all(|l| l == line || !l.contains("cannot write")),
            "{what}: only {line:?}: {err}"
        );
        if sysbench && args.contains(&"prepare") {
            let f = work.path().join("test_file.0");
            assert_eq!(std::fs::metadata(&f).map(|m| m.len()).ok(), Some(1 << 20));
        }
        if sysbench && have_sysbench() {
            // the real sysbench's code under the same stdout, in a directory of its own
            let theirs = scratch();
            let o = Iomark::program("sysbench")
                .args(&args)
                .dir(theirs.path())
                .command()
                .stdin(Stdio::null())
                .stdout(Sink::DevFull.stdio())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert_eq!(
                o.code(),
                Some(code),
                "sysbench 1.0.20 {args:?} on a full stdout"
            );
        }
        assert_eq!(
            lost,
            usize::from(code == 1 || sysbench),
            "{what}: one line says so: {err}"
        );
    }
}

/// What stdout holds for `iomark ARGS`, as the line of a failed write names it.
fn holds(args: &[String]) -> &'static str {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    match a[..] {
        [] | ["help", ..] | [_, "help"] => "the help",
        _ if a.contains(&"--help") || a == ["-h"] => "the help",
        _ if a.contains(&"--version") => "the version",
        ["completions", ..] => "the completion script",
        ["man", ..] => "the man page",
        _ => "the report",
    }
}

/// `iomark --help`, `iomark help`, `iomark CMD --help` for every command the help
/// lists, and `iomark --version`, with stdout on `/dev/full`: exit 1 (the output was
/// lost, docs/safety.md "Exit codes") and one line saying what was lost — the help, the
/// version —, never "the report", which no such command writes.
#[test]
fn help_on_a_full_stdout_says_it_cannot_write_the_help() {
    let mut cases: Vec<Vec<String>> = vec![
        vec!["--help".into()],
        vec!["-h".into()],
        vec!["help".into()],
        vec!["--version".into()],
    ];
    // (`iomark help --help` is an unknown command word to `help`, exit 2)
    for c in help_commands().into_iter().filter(|c| c != "help") {
        cases.push(vec![c.clone(), "--help".into()]);
        cases.push(vec!["help".into(), c]);
    }
    for args in &cases {
        let d = scratch();
        let (code, err) = run_to(d.path(), args, Sink::DevFull);
        let want = format!(
            "iomark: cannot write {} to stdout: No space left on device\n",
            holds(args)
        );
        assert_eq!(err, want, "{args:?}");
        assert!(holds(args) != "the report", "{args:?}");
        assert_eq!(code, 1, "{args:?}: {err}");
    }
}

#[test]
fn stdout_full_or_closed_never_panics_and_exits_as_documented() {
    let r = results_dir();
    let a = r.join("vm-mark.json").display().to_string();
    let b = r.join("loop-mark.json").display().to_string();
    let cases: Vec<(Vec<String>, i32)> = [
        (vec![], 2),
        (vec!["--help"], 0),
        (vec!["--version"], 0),
        (vec!["help", "diagnose"], 0),
        (vec!["fileio", "--help"], 0),
        (vec!["fileio", "help"], 0),
        (vec!["run", "--help"], 0),
        (vec!["mark", "--version"], 0),
        (vec!["completions", "bash"], 0),
        (vec!["man"], 0),
        (vec!["diagnose", "."], 0),
        (vec!["compare", &a, &b], 0),
        (
            vec![
                "fileio",
                "--file-num=1",
                "--file-total-size=1M",
                "--file-test-mode=rndrd",
                "--time=1",
                "prepare",
                "run",
                "cleanup",
            ],
            0,
        ),
        (
            vec![
                "run",
                "--name=x",
                "--filename=x.dat",
                "--size=1m",
                "--rw=read",
                "--bs=64k",
            ],
            0,
        ),
        (
            vec![
                "mark",
                ".",
                "--preset=peak",
                "--size=4M",
                "--time=1",
                "--loops=1",
                "--warmup=0",
            ],
            0,
        ),
        (vec!["copy", ".", "--size=1M"], 0),
        (vec!["tree", ".", "--files=20", "--drop-caches=off"], 0),
    ]
    .into_iter()
    .map(|(v, c)| (v.into_iter().map(String::from).collect(), c))
    .collect();
    for (args, code) in &cases {
        for sink in [Sink::DevFull, Sink::ClosedPipe] {
            let d = scratch();
            let (c, err) = run_to(d.path(), args, sink);
            assert!(!err.contains("panicked"), "{args:?} {sink:?}: {err}");
            let line = format!(
                "iomark: cannot write {} to stdout: No space left on device",
                holds(args)
            );
            let lost = err.lines().filter(|l| *l == line).count();
            match sink {
                Sink::DevFull => {
                    let want = if *code == 0 { 1 } else { *code };
                    assert_eq!(c, want, "{args:?} to /dev/full: {err}");
                    assert_eq!(lost, 1, "{args:?} to /dev/full: one line says so: {err}");
                }
                Sink::ClosedPipe => {
                    assert_eq!(c, *code, "{args:?} to a closed pipe: {err}");
                    assert!(
                        !err.contains("cannot write"),
                        "{args:?}: quiet on EPIPE: {err}"
                    );
                }
            }
            // what a benchmark created is still removed (fio's data file stays, as in fio)
            let left: Vec<String> = std::fs::read_dir(d.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != "x.dat")
                .collect();
            assert!(left.is_empty(), "{args:?} {sink:?} left {left:?}");
        }
    }
}

#[test]
fn tree_drop_caches_off_and_auto_say_what_they_do() {
    let d = scratch();
    let json = d.path().join("t.json");
    let j = format!("--json={}", json.display());
    let (c, out, err) = run_in(
        d.path(),
        &["tree", ".", "--files=30", "--drop-caches=off", &j],
        &[],
    );
    assert_eq!(c, 0, "{err}");
    assert!(
        out.contains("caches: --drop-caches=off: caches are left alone"),
        "{out}"
    );
    for phase in ["stat_all", "read_all"] {
        assert!(
            out.contains(&format!(
                "{phase}: warm: caches not dropped (--drop-caches=off)"
            )),
            "{out}"
        );
    }
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let caches: Vec<&str> = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["cache"].as_str())
        .collect();
    assert_eq!(caches.len(), 2, "{caches:?}");
    assert!(
        caches.iter().all(|c| c.contains("--drop-caches=off")),
        "{caches:?}"
    );
    // auto (the default) says before the phases what it will do, and does it as root
    let (c, out, err) = run_in(d.path(), &["tree", ".", "--files=30"], &[]);
    assert_eq!(c, 0, "{err}");
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        assert!(out.contains("caches: --drop-caches=auto as root: before stat_all and read_all the whole system's page cache"), "{out}");
        assert!(out.contains("stat_all: cold: "), "{out}");
    } else {
        assert!(
            out.contains("caches: --drop-caches=auto without root"),
            "{out}"
        );
    }
    let (c, _, err) = run_in(d.path(), &["tree", ".", "--drop-caches=sometimes"], &[]);
    assert_eq!(c, 2);
    assert!(err.contains("--drop-caches"), "{err}");
}

/// Run `iomark ARGS` with stdout on a pseudo-terminal; what it printed.
fn on_a_tty(args: &[&str], env: &[(&str, &str)]) -> String {
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty fills two descriptors we then own.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both descriptors were just opened and are owned here only.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut child = Iomark::new()
        .args(args)
        .dir(results_dir())
        .command()
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut f = std::fs::File::from(master);
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    // the master reads EIO once the child (the only holder of the slave) has exited
    while let Ok(n) = f.read(&mut buf) {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    assert!(child.wait().unwrap().success());
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn colour_on_a_terminal_only_unless_told() {
    let cmp = ["compare", "vm-mark.json", "loop-mark.json"];
    let esc = |s: &str| s.contains("\x1b[");
    // not a terminal: never, unless --color=always
    let (_, piped, _) = run_in(&results_dir(), &cmp, &[]);
    assert!(!esc(&piped), "{piped}");
    let mut always = cmp.to_vec();
    always.push("--color=always");
    let (_, forced, _) = run_in(&results_dir(), &always, &[("NO_COLOR", "1")]);
    assert!(esc(&forced), "--color=always wins over NO_COLOR");
    // a terminal: colour, unless NO_COLOR or --color=never
    assert!(esc(&on_a_tty(&cmp, &[])), "a terminal gets colour");
    assert!(!esc(&on_a_tty(&cmp, &[("NO_COLOR", "1")])), "NO_COLOR");
    let mut never = cmp.to_vec();
    never.push("--color=never");
    assert!(!esc(&on_a_tty(&never, &[])), "--color=never");
    assert!(!esc(&on_a_tty(&cmp, &[("TERM", "dumb")])), "TERM=dumb");
    // diagnose: the severities; the text is the same once the escapes are gone
    let fixture = fixture("diagnose/a-nvme-gen2-slot.fixture")
        .display()
        .to_string();
    let diag = ["diagnose", "/data/big.bin", "--fixture", &fixture];
    let tty = on_a_tty(&diag, &[]);
    let limit = tty.find("LIMIT").expect("a LIMIT finding");
    assert!(
        tty[..limit].ends_with('m'),
        "LIMIT is styled: {:?}",
        &tty[limit.saturating_sub(12)..limit + 5]
    );
    let (_, plain, _) = run_in(&results_dir(), &diag, &[]);
    assert!(!esc(&plain));
    assert!(
        plain.contains("  LIMIT PCIE_LINK_BELOW_DEVICE: "),
        "{plain}"
    );
    assert_eq!(
        run_in(&results_dir(), &["diagnose", "--color=sometimes"], &[]).0,
        2
    );
}

/// The MB/s and MiB/s figures of one table row, by command (mark: 5th and 4th from the
/// end; tree: 5th and 6th; copy: each `X MB/s Y MiB/s` pair).
fn rate_pairs(cmd: &str, line: &str) -> Vec<(f64, f64)> {
    let t: Vec<&str> = line.split_whitespace().collect();
    let f = |s: &str| s.parse::<f64>().ok();
    let pair = |a: usize, b: usize| Some((f(t.get(a)?)?, f(t.get(b)?)?));
    match cmd {
        "mark" if t.len() > 5 => pair(t.len() - 5, t.len() - 4).into_iter().collect(),
        "tree" => pair(4, 5).into_iter().collect(),
        _ => (1..t.len())
            .filter(|&i| t[i] == "MB/s" && t.get(i + 2) == Some(&"MiB/s"))
            .filter_map(|i| pair(i - 1, i + 1))
            .collect(),
    }
}

/// The unit rule (docs/commands/units.md): in every table with a bandwidth, MB/s is
/// bytes/s ÷ 10^6 and MiB/s bytes/s ÷ 2^20 (so MB/s ÷ MiB/s = 1.048576 on every row,
/// within the printed rounding), and the table says so in its last lines.
#[test]
fn units_mb_s_and_mib_s_pinned_in_every_table() {
    let t = scratch();
    let d = t.path().to_str().unwrap();
    let runs: [(&str, Vec<&str>, &str); 3] = [
        (
            "mark",
            vec![
                "mark",
                d,
                "--preset=peak",
                "--size=8M",
                "--time=1",
                "--loops=1",
            ],
            "MB/s = 1,000,000 B/s, MiB/s = 1,048,576 B/s.",
        ),
        (
            "copy",
            vec!["copy", "--size=16M", d],
            "MB = 1000000 bytes, MiB = 1048576 bytes",
        ),
        (
            "tree",
            vec!["tree", d, "--files=200", "--threads=1", "--drop-caches=off"],
            "MB = 1000000 bytes, MiB = 1048576 bytes",
        ),
    ];
    for (cmd, args, rule) in runs {
        let (c, out, err) = run(&args);
        assert_eq!(c, 0, "{cmd}: {err}");
        assert!(out.contains(rule), "{cmd} does not state its units:\n{out}");
        let pairs: Vec<(f64, f64)> = out.lines().flat_map(|l| rate_pairs(cmd, l)).collect();
        assert!(pairs.len() >= 3, "{cmd}: no MB/s, MiB/s rows:\n{out}");
        for (mb, mib) in pairs.into_iter().filter(|p| p.1 >= 1.0) {
            let slack = 0.06 / mib + 0.06 / mb;
            assert!(
                (mb / mib / 1.048576 - 1.0).abs() <= slack,
                "{cmd}: {mb} MB/s vs {mib} MiB/s is not 1,000,000 vs 1,048,576 B/s:\n{out}"
            );
        }
    }
}

/// Every size iomark prints in its own words is binary (KiB … TiB); a decimal GB/MB/kB
/// is a drive's capacity and stands with its binary value (`1000.2 GB = 931.5 GiB`);
/// /proc/meminfo's "kB" (KiB) is printed as KiB. Checked over diagnose's text of every
/// recorded machine, and the capacity and working-set lines by their formula.
#[test]
fn units_sizes_are_binary_and_decimal_only_beside_binary() {
    let dir = fixture("diagnose");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "fixture") {
            continue;
        }
        let (_, out, err) = run(&[
            "diagnose",
            "/",
            "--fixture",
            p.to_str().unwrap(),
            "--working-set=150G",
        ]);
        assert!(!out.is_empty(), "{}: {err}", p.display());
        for l in out.lines() {
            let w: Vec<&str> = l.split_whitespace().collect();
            for (i, u) in w.iter().enumerate().skip(1) {
                let u = u.trim_end_matches([',', ';', ':', ')', '.']);
                if !["GB", "MB", "kB", "TB"].contains(&u) || w[i - 1].parse::<f64>().is_err() {
                    continue;
                }
                seen += 1;
                assert!(
                    w.get(i + 1) == Some(&"=") && w.get(i + 3).is_some_and(|b| b.contains("iB")),
                    "{}: a decimal size without its binary value: {l}",
                    p.display()
                );
            }
            assert!(!l.contains(" kB,") && !l.contains(" kB\n"), "{l}");
        }
        if out.contains("Working set") {
            // 150G = 150 GiB: the working set is printed as such, not as 161.1 GB
            assert!(out.contains("Working set 150.0 GiB"), "{out}");
        }
    }
    assert!(seen > 0, "no capacity was printed by any fixture");
}

/// A failed open names its errno, strerror and symbol, in every command's error line
/// (`run` once said "file does not exist" for an open that failed with EPERM).
/// As root the errors a test can cause are ENOTDIR (a path through a regular file) and
/// ELOOP (a symlink loop); sysbench's own `FATAL: … errno = N (strerror)` line of
/// fileio stays sysbench's.
#[test]
fn failed_open_names_the_errno() {
    let t = scratch();
    let d = t.path();
    std::os::unix::fs::symlink(d.join("loop"), d.join("loop")).unwrap();
    let loop_ = d.join("loop").display().to_string();
    let through = d.join("f");
    std::fs::write(&through, b"x").unwrap();
    let notdir = through.join("x").display().to_string();
    let (fn_notdir, fn_loop) = (
        format!("--filename={notdir}"),
        format!("--filename={loop_}"),
    );
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["run", "--name=x", "--rw=read", &fn_notdir],
            "Not a directory (ENOTDIR)",
        ),
        (
            vec!["run", "--name=x", "--rw=read", &fn_loop],
            "Too many levels of symbolic links (ELOOP)",
        ),
        (vec!["copy", &loop_, "--size=1M"], "(ELOOP)"),
        (
            vec!["mark", &notdir, "--size=1M", "--time=1", "--loops=1"],
            "(ENOTDIR)",
        ),
        (vec!["tree", &notdir, "--files=10"], "(ENOTDIR)"),
    ];
    for (args, says) in cases {
        let (c, _, err) = run_in(d, &args, &[]);
        assert_ne!(c, 0, "{args:?}");
        assert!(
            err.contains(says),
            "{args:?} does not name the errno {says}:\n{err}"
        );
    }
}

/// Every command's `--help` (and `iomark help CMD`) ends with one "Exit status" section
/// made from the one table of codes (`util::error::exit::TABLE`): each code with its
/// words, the stop signals among them (130 SIGINT, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT,
/// each 128 + the signal's number), and what happens to an ignored one.
#[test]
fn every_commands_help_states_each_exit_status_and_signal() {
    use iomark::cli::clap_common::does;
    use iomark::util::error::exit::{Does, TABLE};
    for (code, words) in TABLE {
        if let Some(sig) = words.strip_prefix("SIG") {
            let n = match sig.split(' ').next().unwrap() {
                "INT" => libc::SIGINT,
                "TERM" => libc::SIGTERM,
                "HUP" => libc::SIGHUP,
                "QUIT" => libc::SIGQUIT,
                other => panic!("unknown signal {other}"),
            };
            assert_eq!(code, 128 + n, "{words}");
        }
    }
    let skip = ["completions", "man", "help"];
    for c in help_commands()
        .iter()
        .filter(|c| !skip.contains(&c.as_str()))
    {
        for args in [vec![c.as_str(), "--help"], vec!["help", c.as_str()]] {
            let o = Iomark::new().args(&args).run();
            assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
            let flat = o.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(
                flat.matches("Exit status:").count(),
                1,
                "{args:?}: {}",
                o.stdout
            );
            let reads = does(c) == Does::Reads;
            for (code, words) in TABLE {
                let item = match code {
                    1 if reads => "1 an output could not be written".to_string(),
                    _ => format!("{code} {words}"),
                };
                assert!(
                    flat.contains(&item),
                    "{args:?} lacks {item:?}: {}",
                    o.stdout
                );
            }
            // the section ends the help, and says what a stop does for this command
            let tail = &flat[flat.find("Exit status:").unwrap()..];
            assert!(
                tail.contains("stay ignored.") && tail.len() < 800,
                "{args:?}: the section is not the last: {tail}"
            );
            let stop = match does(c) {
                Does::RunsIo => "the partial result printed and saved",
                Does::TimesACommand => "the signal passed to the command",
                Does::Reads => "the old content or the complete new one",
            };
            assert!(flat.contains(stop), "{args:?}: {}", o.stdout);
            assert_eq!(
                reads,
                flat.contains("an output could not be written"),
                "{args:?}"
            );
        }
    }
}
