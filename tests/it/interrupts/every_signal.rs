//! The signals a terminal or a supervisor sends besides SIGINT/SIGTERM:
//! SIGHUP (a closed terminal or SSH session) and SIGQUIT are handled as SIGTERM —
//! partial result, iomark's own files removed, exit 129 / 131 — in every command that
//! does I/O; SIGUSR1 prints `run`'s status line and ends nothing; SIGPIPE sent by
//! `kill` changes nothing. Each signal lands at a known point: the child stops itself
//! before its N-th operation (`IOMARK_FAULT=OP:stop@N`), the test signals it there.

use super::stop_points::{interrupt_at, no_panic, prepare_interrupted, run_interrupted, spawn};
use crate::util::*;
use std::io::BufRead;
use std::time::Duration;

#[test]
fn sighup_during_fileio_prepare_and_sigquit_during_run_act_as_sigterm() {
    prepare_interrupted(libc::SIGHUP, 129, "SIGHUP");
    run_interrupted(libc::SIGQUIT, 131);
}

/// The reported case: SIGHUP during copy, tree and mark left a 306 MB
/// `iomark-copy.PID.src`, 734 tree entries and `iomark-mark.PID/test_file.0`.
#[test]
fn sighup_and_sigquit_during_copy_tree_and_mark_remove_their_files() {
    let d = scratch();
    for dir in ["s", "t", "m"] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
    }
    std::fs::write(d.path().join("t/user.txt"), b"mine").unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["copy", "s", "t", "--size=16M", "--json=r.json"],
            "write:stop@10",
        ),
        (
            &["tree", "t", "--files=400", "--threads=1", "--json=r.json"],
            "write:stop@100",
        ),
        (
            &[
                "mark",
                "m",
                "--size=16M",
                "--time=1",
                "--loops=1",
                "--json=r.json",
            ],
            "read:stop@30",
        ),
    ];
    for (args, fault) in cases {
        for (sig, code) in [(libc::SIGHUP, 129), (libc::SIGQUIT, 131)] {
            let r = interrupt_at(d.path(), fault, args, sig);
            assert_eq!(r.code, code, "{args:?} signal {sig}: {r:?}");
            no_panic(&r);
            assert!(r.stderr.contains("interrupted"), "{args:?}: {}", r.stderr);
            let j = read_json(&d.path().join("r.json"));
            assert_eq!(j["status"], "interrupted", "{args:?}");
            let mut left: Vec<String> = ["s", "t", "m"]
                .iter()
                .flat_map(|x| entries(&d.path().join(x)))
                .collect();
            left.retain(|n| n != "user.txt");
            assert!(left.is_empty(), "{args:?} signal {sig}: {left:?}");
            let strays: Vec<String> = entries(d.path())
                .into_iter()
                .filter(|n| n.starts_with("iomark-") || n.ends_with(".iomark-tmp"))
                .collect();
            assert!(strays.is_empty(), "{args:?}: {strays:?}");
            assert_eq!(std::fs::read(d.path().join("t/user.txt")).unwrap(), b"mine");
        }
    }
}

/// A 4 MiB write job of `run` with fio's JSON on stdout and the result in `r.json`.
const RUN_4M: [&str; 7] = [
    "run",
    "--name=w",
    "--filename=data",
    "--size=4m",
    "--rw=write",
    "--output-format=json",
    "--json=r.json",
];

/// `run` (fio's command line): SIGHUP mid-run ends it as SIGTERM does, with fio's JSON
/// of the I/O done and exit 129.
#[test]
fn sighup_during_run_keeps_the_fio_json_and_exits_129() {
    let d = scratch();
    let args = RUN_4M;
    let r = interrupt_at(d.path(), "write:stop@100", &args, libc::SIGHUP);
    assert_eq!(r.code, 129, "{r:?}");
    no_panic(&r);
    let fio: serde_json::Value = serde_json::from_str(&r.stdout).expect("fio JSON");
    assert!(fio["jobs"][0]["write"]["io_bytes"].as_u64().unwrap() > 0);
    assert_eq!(read_json(&d.path().join("r.json"))["status"], "interrupted");
}

/// The stop signals a non-interactive shell's `&`, `nohup` and `trap '' INT` leave
/// ignored: the child starts with SIGHUP, SIGINT and SIGQUIT at `SIG_IGN`.
fn ignoring(c: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: signal(2) only, in the child before exec
    unsafe {
        c.pre_exec(|| {
            for sig in IGNORED {
                libc::signal(sig, libc::SIG_IGN);
            }
            Ok(())
        });
    }
}

const IGNORED: [i32; 3] = [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT];

/// The signals ignored by process `pid` (its /proc status, `SigIgn`), as a bit set.
fn ignored_mask(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .map(|h| u64::from_str_radix(h.trim(), 16).unwrap())
        .unwrap()
}

/// Whether `sig` is in the mask [`ignored_mask`] read.
fn has(mask: u64, sig: i32) -> bool {
    mask & (1 << (sig - 1)) != 0
}

/// SIGHUP, SIGINT and SIGQUIT the parent left ignored stay ignored (the POSIX
/// convention), as under `nohup` or in a non-interactive shell's `&`: the child, stopped
/// mid-run, still has them ignored (its /proc status), and after all three it writes the
/// whole 4 MiB and exits 0. SIGTERM stops a second such run (143).
#[test]
fn stop_signals_the_parent_ignored_stay_ignored_as_under_nohup() {
    let d = scratch();
    let args = RUN_4M;
    let start = || {
        let mut child = Iomark::new()
            .dir(d.path())
            .fault("write:stop@100")
            .args(args)
            .configure(ignoring)
            .spawn();
        assert!(wait_stopped(&mut child, Duration::from_secs(20)));
        child
    };
    let child = start();
    let ign = ignored_mask(child.id());
    for sig in IGNORED {
        assert!(has(ign, sig), "signal {sig} not ignored: {ign:x}");
        assert_eq!(kill(child.id(), sig), 0);
    }
    assert!(!has(ign, libc::SIGTERM), "SIGTERM ignored: {ign:x}");
    assert_eq!(kill(child.id(), libc::SIGCONT), 0);
    let r = finish(child);
    assert_eq!(r.code, 0, "{r:?}");
    let fio: serde_json::Value = serde_json::from_str(&r.stdout).expect("fio JSON");
    assert_eq!(fio["jobs"][0]["write"]["io_bytes"], 4 << 20, "{}", r.stdout);
    assert_eq!(read_json(&d.path().join("r.json"))["status"], "ok");
    let child = start();
    assert_eq!(kill(child.id(), libc::SIGTERM), 0);
    assert_eq!(kill(child.id(), libc::SIGCONT), 0);
    let r = finish(child);
    assert_eq!(r.code, 143, "{r:?}");
    assert_eq!(read_json(&d.path().join("r.json"))["status"], "interrupted");
}

/// The commands of fileio, the sysbench persona, mark, copy and tree, each started with
/// SIGHUP, SIGINT and SIGQUIT ignored and stopped mid-I/O: the three signals sent there
/// change nothing (the /proc status still shows them ignored), the command ends with
/// exit 0 and, where it has one, an `ok` result. The fio persona arms SIGINT whatever
/// it inherited, as fio 3.33 does: the same SIGINT ends it with fio's 128.
#[test]
fn an_ignored_sigint_stays_ignored_in_every_command() {
    let d = scratch();
    for dir in ["s", "t", "m"] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
    }
    let set = ["fileio", "--file-num=2", "--file-total-size=8M"];
    let prep = Iomark::new().dir(d.path()).args(set).arg("prepare").run();
    assert_eq!(prep.code, 0, "{prep:?}");
    let rnd = ["--file-test-mode=rndrd", "--time=0", "--events=400"];
    let fileio: Vec<&str> = set
        .iter()
        .chain(&rnd)
        .copied()
        .chain(["--json=r.json", "run"])
        .collect();
    let sysbench: Vec<&str> = set.iter().chain(&rnd).copied().chain(["run"]).collect();
    let cases: [(&[&str], &str, bool); 5] = [
        (&fileio, "read:stop@100", false),
        (&sysbench, "read:stop@100", true),
        (
            &["copy", "s", "t", "--size=16M", "--json=r.json"],
            "write:stop@10",
            false,
        ),
        (
            &["tree", "t", "--files=200", "--threads=1", "--json=r.json"],
            "write:stop@50",
            false,
        ),
        (
            &[
                "mark",
                "m",
                "--size=16M",
                "--time=1",
                "--loops=1",
                "--json=r.json",
            ],
            "read:stop@30",
            false,
        ),
    ];
    for (args, fault, persona) in cases {
        let _ = std::fs::remove_file(d.path().join("r.json"));
        let mut cmd = Iomark::new()
            .dir(d.path())
            .fault(fault)
            .args(args)
            .configure(ignoring);
        if persona {
            cmd = cmd.configure(|c| {
                std::os::unix::process::CommandExt::arg0(c, "sysbench");
            });
        }
        let mut child = cmd.spawn();
        assert!(
            wait_stopped(&mut child, Duration::from_secs(20)),
            "{args:?}"
        );
        let ign = ignored_mask(child.id());
        for sig in IGNORED {
            assert!(has(ign, sig), "{args:?}: signal {sig} not ignored: {ign:x}");
            assert_eq!(kill(child.id(), sig), 0);
        }
        assert_eq!(kill(child.id(), libc::SIGCONT), 0);
        let r = finish(child);
        assert_eq!(r.code, 0, "{args:?}: {r:?}");
        no_panic(&r);
        if persona {
            assert_eq!(parse_report(&r.stdout).events, 400, "{}", r.stdout);
        } else {
            assert_eq!(
                read_json(&d.path().join("r.json"))["status"],
                "ok",
                "{args:?}"
            );
        }
    }
    let mut child = as_fio(d.path())
        .dir(d.path())
        .fault("write:stop@100")
        .args(["--name=w", "--filename=data", "--size=4m", "--rw=write"])
        .configure(ignoring)
        .spawn();
    assert!(wait_stopped(&mut child, Duration::from_secs(20)));
    let ign = ignored_mask(child.id());
    assert!(
        !has(ign, libc::SIGINT),
        "the fio persona's SIGINT ignored: {ign:x}"
    );
    assert_eq!(kill(child.id(), libc::SIGINT), 0);
    assert_eq!(kill(child.id(), libc::SIGCONT), 0);
    let r = finish(child);
    assert_eq!(r.code, 128, "{r:?}");
}

/// Under the fio persona SIGINT and SIGTERM end the run as fio 3.33's do: `fio:
/// terminating on signal N` on the report's stream before the report (here before the
/// JSON document), no other line on stderr, and fio's exit value 128.
#[test]
fn the_fio_persona_stops_on_sigint_and_sigterm_as_fio() {
    let d = scratch();
    for (sig, n) in [(libc::SIGTERM, 15), (libc::SIGINT, 2)] {
        let mut child = as_fio(d.path())
            .dir(d.path())
            .fault("write:stop@100")
            .args(["--name=w", "--filename=data", "--size=4m", "--rw=write"])
            .arg("--output-format=json")
            .spawn();
        assert!(wait_stopped(&mut child, Duration::from_secs(20)));
        assert_eq!(kill(child.id(), sig), 0);
        assert_eq!(kill(child.id(), libc::SIGCONT), 0);
        let r = finish(child);
        assert_eq!(r.code, 128, "{r:?}");
        let line = format!("\nfio: terminating on signal {n}\n");
        let json = r.stdout.strip_prefix(&line).expect("fio's line first");
        let v: serde_json::Value = serde_json::from_str(json).expect("then fio's JSON");
        // the report of the I/O done (the signal landed mid-run: the child was stopped
        // at its 100th write when it was sent)
        let bytes = v["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
        assert!(bytes >= 100 * 4096, "signal {sig}: {bytes}: {}", r.stdout);
        assert_eq!(r.stderr, "", "signal {sig}");
    }
}

/// SIGUSR1 (fio: "show the status") prints a status line and the run goes on; SIGPIPE
/// from `kill` is ignored. The run ends normally afterwards (here by SIGINT once the
/// status line was read, then by its size).
#[test]
fn sigusr1_prints_a_status_line_and_sigpipe_changes_nothing() {
    let d = scratch();
    let args = [
        "run",
        "--name=w",
        "--filename=data",
        "--size=64m",
        "--bs=4k",
        "--rw=write",
        "--time_based",
        "--runtime=60",
    ];
    let mut child = spawn(d.path(), "write:stop@50", &args);
    assert!(wait_stopped(&mut child, Duration::from_secs(20)));
    assert_eq!(kill(child.id(), libc::SIGUSR1), 0);
    assert_eq!(kill(child.id(), libc::SIGPIPE), 0);
    assert_eq!(kill(child.id(), libc::SIGCONT), 0);
    // the event: the status line on stderr (the run would go on for 60 s without it)
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut l = String::new();
        assert!(err.read_line(&mut l).unwrap() > 0, "stderr ended: {seen}");
        seen += &l;
        if l.starts_with("[t=") && l.contains("running") {
            break;
        }
    }
    assert_eq!(kill(child.id(), libc::SIGINT), 0);
    let o = finish(child);
    assert_eq!(o.code, 130, "alive until the SIGINT: {o:?}");
    assert!(o.stdout.contains("WRITE:"), "{}", o.stdout);
}

/// A signal at the first write (before any loop ran a request) ends the command with
/// its code and leaves nothing of iomark's.
#[test]
fn a_stop_signal_while_stopped_before_the_first_write_ends_with_its_code() {
    let d = scratch();
    std::fs::create_dir_all(d.path().join("t")).unwrap();
    let r = interrupt_at(
        d.path(),
        "write:stop@1",
        &["tree", "t", "--files=50", "--threads=1"],
        libc::SIGHUP,
    );
    assert_eq!(r.code, 129, "{r:?}");
    assert!(entries(&d.path().join("t")).is_empty());
}

/// A second signal during a cleanup: the removal of iomark's own files
/// finishes — nothing half-removed — stderr says so, and the exit is the first signal's
/// code. `fileio cleanup` is signalled at its first removal and again at its third
/// (more than the 1 s that makes a second signal count, docs/safety.md "Signals"); `mark`
/// mid-run, then again at the first removal of its scratch files.
#[test]
fn a_second_signal_during_a_cleanup_lets_the_removal_finish() {
    let d = scratch();
    let set = ["fileio", "--file-num=4", "--file-total-size=256K"];
    let prep = Iomark::new().dir(d.path()).args(set).arg("prepare").run();
    assert_eq!(prep.code, 0, "{prep:?}");
    let cleanup = [&set[..], &["cleanup"]].concat();
    let mark = [
        "mark",
        "m",
        "--size=4M",
        "--time=1",
        "--loops=1",
        "--warmup=0",
        "--json=r.json",
    ];
    std::fs::create_dir(d.path().join("m")).unwrap();
    let cases: [(&[&str], &str); 2] = [
        (&cleanup, "unlink:stop@1,unlink:stop@3"),
        (&mark, "read:stop@5,unlink:stop@1"),
    ];
    for (args, fault) in cases {
        let mut child = Iomark::new().dir(d.path()).args(args).fault(fault).spawn();
        for round in 0..2 {
            assert!(
                wait_stopped(&mut child, Duration::from_secs(20)),
                "{args:?}: no stop point {round}"
            );
            if round == 1 {
                // the handler counts a second signal only after 1 s
                std::thread::sleep(Duration::from_millis(1200));
            }
            kill(child.id(), libc::SIGTERM);
            kill(child.id(), libc::SIGCONT);
        }
        let o = finish_within(child, Duration::from_secs(30));
        assert_eq!(o.code, 143, "{args:?}: {}", o.dump());
        assert!(
            o.stderr.contains(
                "second signal during cleanup: the removal of iomark's own files finishes first"
            ),
            "{args:?}: {}",
            o.stderr
        );
        let mut left: Vec<String> = entries(d.path())
            .into_iter()
            .filter(|n| n.starts_with("test_file.") || n.starts_with("iomark-"))
            .collect();
        left.extend(entries(&d.path().join("m")));
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
    assert_eq!(read_json(&d.path().join("r.json"))["status"], "interrupted");
}
