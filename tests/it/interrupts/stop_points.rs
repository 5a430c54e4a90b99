//! SIGINT / SIGTERM / SIGKILL at known points of fileio prepare and run, mark, copy,
//! tree and run: exit 130 (SIGINT) or 143 (SIGTERM), a partial report, JSON that
//! parses and says `interrupted`, the temporary files of mark/copy/tree removed, and a
//! prepared file set kept and reusable (after `kill -9` the next prepare extends the
//! short files and the run before it refuses the set with a message saying to prepare).
//!
//! Determinism: the child runs with `IOMARK_FAULT=OP:stop@N` (test-only), so it stops
//! itself (SIGSTOP) right before its N-th operation; the test sends the signal while it
//! is stopped, then SIGCONT. The operation in progress completes, then iomark sees the
//! signal, so the counters are known exactly.

use crate::util::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

pub(super) fn spawn(dir: &Path, fault: &str, args: &[&str]) -> Child {
    Iomark::new().dir(dir).fault(fault).args(args).spawn()
}

/// Run `args` until the stop point, deliver `sig`, continue, and collect the output.
pub(super) fn interrupt_at(dir: &Path, fault: &str, args: &[&str], sig: i32) -> Out {
    let mut child = spawn(dir, fault, args);
    signal_at_stop(&mut child, sig);
    let t = Instant::now();
    let out = finish(child);
    assert!(t.elapsed() < Duration::from_secs(20), "stopped promptly");
    out
}

pub(super) fn no_panic(r: &Out) {
    assert!(
        !r.stdout.contains("panicked") && !r.stderr.contains("panicked"),
        "{r:?}"
    );
}

const SET: [&str; 3] = ["fileio", "--file-num=2", "--file-total-size=8M"];

/// `iomark fileio` on the 2-file, 8 MiB set, plus `extra`.
fn on_set(dir: &Path, extra: &[&str]) -> Out {
    Iomark::new().dir(dir).args(SET).args(extra).run()
}

fn sizes(dir: &Path) -> Vec<u64> {
    (0..2)
        .map(|i| {
            std::fs::metadata(dir.join(format!("test_file.{i}")))
                .map(|m| m.len())
                .unwrap_or(0)
        })
        .collect()
}

pub(super) fn prepare_interrupted(sig: i32, code: i32, name: &str) {
    let d = scratch();
    let a: Vec<&str> = SET.iter().copied().chain(["prepare"]).collect();
    // stop before the 100th 16 KiB write: 100 writes are done when the signal is seen
    let r = interrupt_at(d.path(), "write:stop@100", &a, sig);
    assert_eq!(r.code, code, "{r:?}");
    no_panic(&r);
    assert!(
        r.stderr.contains(&format!("interrupted by {name}")),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("the files written so far are kept"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains("1638400 bytes written in "),
        "100 × 16 KiB reported: {}",
        r.stdout
    );
    assert_eq!(sizes(d.path()), vec![1_638_400, 0]);
    // the next prepare extends the short file and creates the missing one
    let r = on_set(d.path(), &["prepare"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("Extending existing file test_file.0"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("Creating file test_file.1"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains(&format!("{} bytes written", 8_388_608 - 1_638_400)));
    assert_eq!(sizes(d.path()), vec![4 << 20, 4 << 20]);
    let r = on_set(
        d.path(),
        &["--file-test-mode=rndrd", "--time=0", "--events=50", "run"],
    );
    assert_eq!(r.code, 0, "{r:?}");
}

#[test]
fn sigint_during_prepare_keeps_the_files_and_prepare_extends_them() {
    prepare_interrupted(libc::SIGINT, 130, "SIGINT");
}

#[test]
fn sigterm_during_prepare_keeps_the_files_and_prepare_extends_them() {
    prepare_interrupted(libc::SIGTERM, 143, "SIGTERM");
}

#[test]
fn kill_9_during_prepare_then_run_refuses_and_prepare_extends() {
    let d = scratch();
    let a: Vec<&str> = SET.iter().copied().chain(["prepare"]).collect();
    let mut child = spawn(d.path(), "write:stop@100", &a);
    assert!(
        wait_stopped(&mut child, Duration::from_secs(20)),
        "iomark did not reach the stop point"
    );
    assert_eq!(kill(child.id(), libc::SIGKILL), 0);
    let st = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(st.signal(), Some(libc::SIGKILL));
    assert_eq!(sizes(d.path()), vec![99 * 16384, 0]);
    // run refuses the set that does not match, saying to prepare
    let r = on_set(d.path(), &["--file-test-mode=rndrd", "--time=1", "run"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stdout.contains("FATAL: Size of file 'test_file.0' is"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Did you run 'prepare'"), "{}", r.stdout);
    // prepare extends it (sysbench's rule: from the last whole block)
    let r = on_set(d.path(), &["prepare"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("Extending existing file test_file.0"));
    assert_eq!(sizes(d.path()), vec![4 << 20, 4 << 20]);
    let r = on_set(
        d.path(),
        &["--file-test-mode=seqrd", "--time=0", "--events=512", "run"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    // a file of the right size but one byte short is refused too
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(d.path().join("test_file.1"))
        .unwrap();
    f.set_len((4 << 20) - 1).unwrap();
    let r = on_set(d.path(), &["--file-test-mode=rndrd", "--time=1", "run"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stdout.contains("FATAL: Size of file 'test_file.1' is"),
        "{}",
        r.stdout
    );
}

/// `prepare run cleanup` interrupted in `prepare`: the call ends there (neither `run`
/// nor `cleanup` runs), the files written so far stay, the notice says so, and the
/// `--json` result is `interrupted` naming `prepare`.
#[test]
fn sigint_during_prepare_run_cleanup_keeps_the_files_and_skips_the_rest() {
    let d = scratch();
    let a: Vec<&str> = SET
        .iter()
        .copied()
        .chain([
            "--file-test-mode=rndrd",
            "--json=r.json",
            "prepare",
            "run",
            "cleanup",
        ])
        .collect();
    let r = interrupt_at(d.path(), "write:stop@100", &a, libc::SIGINT);
    assert_eq!(r.code, 130, "{r:?}");
    no_panic(&r);
    assert!(
        r.stderr.contains("interrupted by SIGINT: prepare stopped early; the files written so far are kept and the next 'prepare' extends them; 'run' and 'cleanup' are skipped (exit 130)"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("Removing test files"), "{}", r.stdout);
    assert!(!r.stdout.contains("Threads started"), "{}", r.stdout);
    assert_eq!(sizes(d.path()), vec![1_638_400, 0]);
    let j: Value = read_json(&d.path().join("r.json"));
    assert_eq!(j["status"], "interrupted");
    assert_eq!(
        j["error"], "interrupted during 'prepare' (exit 130); 'run' did not start",
        "{j}"
    );
    // the next prepare extends what was kept
    let r = on_set(d.path(), &["prepare", "cleanup"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("Extending existing file test_file.0"),
        "{}",
        r.stdout
    );
}

pub(super) fn run_interrupted(sig: i32, code: i32) {
    let d = scratch();
    assert_eq!(on_set(d.path(), &["prepare"]).code, 0);
    let a: Vec<&str> = SET
        .iter()
        .copied()
        .chain([
            "--file-test-mode=rndwr",
            "--file-fsync-freq=0",
            "--time=0",
            "--events=100000",
            "--json=r.json",
            "run",
        ])
        .collect();
    let r = interrupt_at(d.path(), "write:stop@200", &a, sig);
    assert_eq!(r.code, code, "{r:?}");
    no_panic(&r);
    let rep = parse_report(&r.stdout);
    let j: Value = read_json(&d.path().join("r.json"));
    assert_eq!(j["status"], "interrupted");
    // the write in progress when the signal came completed; nothing after it started
    assert_eq!(j["write"]["ops"], 200);
    assert_eq!(rep.events, 200);
    assert_eq!(j["events"], 200);
    // the file set is intact and reusable
    assert_eq!(sizes(d.path()), vec![4 << 20, 4 << 20]);
    let r = on_set(
        d.path(),
        &["--file-test-mode=rndrd", "--time=0", "--events=50", "run"],
    );
    assert_eq!(r.code, 0, "{r:?}");
}

#[test]
fn sigint_during_run_partial_report_json_and_reusable_set() {
    run_interrupted(libc::SIGINT, 130);
}

#[test]
fn sigterm_during_run_partial_report_json_and_reusable_set() {
    run_interrupted(libc::SIGTERM, 143);
}

#[test]
fn copy_interrupted_removes_its_files() {
    let d = scratch();
    let (s, t) = (d.path().join("s"), d.path().join("t"));
    std::fs::create_dir_all(&s).unwrap();
    std::fs::create_dir_all(&t).unwrap();
    std::fs::write(t.join("user.txt"), b"mine").unwrap();
    for (fault, sig, code, phases) in [
        // at the source's fsync: it completes, then the copy stops before the first method
        (
            "fsync:stop@1",
            libc::SIGINT,
            130,
            vec!["create_source_durable"],
        ),
        // in the middle of the buffered copy (4 source writes of 4 MiB, then 128 KiB)
        (
            "write:stop@10",
            libc::SIGTERM,
            143,
            vec!["create_source_durable"],
        ),
        // at the buffered copy's final fsync (after the source's fsync and two cache
        // drops): that method finishes, the copy stops before copy_file_range
        (
            "fsync:stop@4",
            libc::SIGINT,
            130,
            vec![
                "create_source_durable",
                "buffered_128k_written",
                "buffered_128k_durable",
            ],
        ),
    ] {
        let r = interrupt_at(
            d.path(),
            fault,
            &["copy", "s", "t", "--size=16M", "--json=c.json"],
            sig,
        );
        assert_eq!(r.code, code, "{fault}: {r:?}");
        no_panic(&r);
        let name = if sig == libc::SIGTERM {
            "SIGTERM"
        } else {
            "SIGINT"
        };
        let line = format!(
            "iomark copy: interrupted by {name}: the files iomark created were removed (exit {code})"
        );
        assert!(r.stderr.contains(&line), "{}", r.stderr);
        let j = read_json(&d.path().join("c.json"));
        assert_eq!(j["status"], "interrupted");
        assert_eq!(phase_names(&j), phases, "{fault}");
        // the text report shows the phases that finished, as the JSON does, and no other
        assert!(
            r.stdout.contains("phases finished before the stop:"),
            "{}",
            r.stdout
        );
        let rows: Vec<&str> = r
            .stdout
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| {
                w.starts_with("create_source")
                    || w.starts_with("buffered_128k_")
                    || w.starts_with("copy_file_range_")
            })
            .collect();
        assert_eq!(rows, phases, "{fault}: {}", r.stdout);
        assert!(entries(&s).is_empty(), "{:?}", entries(&s));
        assert_eq!(entries(&t), vec!["user.txt".to_string()]);
        assert_eq!(std::fs::read(t.join("user.txt")).unwrap(), b"mine");
    }
}

/// A signal mid-phase: the tree is removed, and the result lists every phase that ran,
/// the one cut short last, marked `partial` with the operations done (the JSON
/// of a SIGINT during create_write used to list only mkdir). With one walker the stop point
/// is exact: before the 100th file's write the 100th file is written, then the signal
/// is seen; before the 50th read of read_all the file being read is finished. Its
/// `period_s` is the phases' measured time and its device view covers the whole run,
/// the cleanup included, as its text says.
#[test]
fn tree_interrupted_removes_its_tree() {
    let d = scratch();
    let t = d.path().join("t");
    std::fs::create_dir_all(&t).unwrap();
    for (fault, sig, code, phases) in [
        (
            "write:stop@100",
            libc::SIGINT,
            130,
            vec!["mkdir", "create_write"],
        ),
        (
            "read:stop@50",
            libc::SIGTERM,
            143,
            vec!["mkdir", "create_write", "fsync", "stat_all", "read_all"],
        ),
    ] {
        let r = interrupt_at(
            d.path(),
            fault,
            &["tree", "t", "--files=400", "--threads=1", "--json=t.json"],
            sig,
        );
        assert_eq!(r.code, code, "{fault}: {r:?}");
        no_panic(&r);
        let j = read_json(&d.path().join("t.json"));
        assert_eq!(j["status"], "interrupted");
        assert_eq!(phase_names(&j), phases, "{fault}");
        let all = j["phases"].as_array().unwrap();
        // the rates' period is the phases' measured time, not the wall time (which
        // holds the cleanup); the device view covers the whole run, cleanup included,
        // and the text says which period that is
        let measured: f64 = all.iter().map(|p| p["seconds"].as_f64().unwrap()).sum();
        let (period, elapsed) = (
            j["period_s"].as_f64().unwrap(),
            j["elapsed_s"].as_f64().unwrap(),
        );
        assert!(
            (period - measured).abs() < 1e-6,
            "{fault}: {period} vs {measured}"
        );
        assert!(period < elapsed, "{fault}: {period} vs {elapsed}");
        if let Some(ms) = j["device_view"]["devices"][0]["elapsed_ms"].as_u64() {
            let span = ms as f64 / 1e3;
            assert!(
                span >= period - 0.001 && span <= elapsed + 0.001,
                "{fault}: {span}"
            );
            let head = format!("device view over the whole run, {span:.2} s, the removal of iomark's files included");
            assert!(r.stdout.contains(&head), "{fault}: {}", r.stdout);
        }
        let (last, whole) = all.split_last().unwrap();
        assert_eq!(last["partial"], true, "{fault}: {last}");
        assert!(whole.iter().all(|p| p.get("partial").is_none()), "{fault}");
        let ops = last["ops"].as_u64().unwrap();
        match fault {
            "write:stop@100" => {
                assert_eq!(ops, 100, "{last}");
                assert_eq!(
                    j["write"]["ops"], 100,
                    "the top-level write is the part that ran"
                );
            }
            _ => assert!(ops > 0 && ops < 50, "{last}"),
        }
        // the text report shows the phases that ran, as the JSON does, the last marked
        for p in &phases[..phases.len() - 1] {
            assert!(
                r.stdout.lines().any(|l| l.starts_with(&format!("{p} "))),
                "{fault}: no table row for {p}: {}",
                r.stdout
            );
        }
        let p = phases[phases.len() - 1];
        assert!(
            r.stdout.lines().any(|l| l.starts_with(&format!("{p}* "))),
            "{fault}: no marked row for {p}: {}",
            r.stdout
        );
        assert!(
            r.stdout.contains(&format!("* {p}: stopped by the signal before its end; its figures cover the {ops} operations done")),
            "{}",
            r.stdout
        );
        assert!(entries(&t).is_empty(), "{fault}: {:?}", entries(&t));
    }
}

#[test]
fn mark_interrupted_removes_its_test_directory() {
    let d = scratch();
    let m = d.path().join("m");
    std::fs::create_dir_all(&m).unwrap();
    for (fault, sig, code) in [
        // during the preparation of the test file
        ("write:stop@20", libc::SIGINT, 130),
        // during the first (read) test
        ("read:stop@30", libc::SIGTERM, 143),
    ] {
        let r = interrupt_at(
            d.path(),
            fault,
            &[
                "mark",
                "m",
                "--size=16M",
                "--time=1",
                "--loops=1",
                "--json=m.json",
            ],
            sig,
        );
        assert_eq!(r.code, code, "{fault}: {r:?}");
        no_panic(&r);
        assert!(
            r.stderr.contains("iomark mark: interrupted"),
            "{}",
            r.stderr
        );
        assert!(entries(&m).is_empty(), "{fault}: {:?}", entries(&m));
        // the JSON file parses (never a truncated file)
        let _ = read_json(&d.path().join("m.json"));
    }
}

#[test]
fn mark_interrupted_json_says_interrupted() {
    let d = scratch();
    let (r, _) = mark_interrupted_at(d.path(), "read:stop@30", &[]);
    assert_eq!(r.code, 130);
    assert_eq!(read_json(&d.path().join("m.json"))["status"], "interrupted");
    // stopped in the first test: nothing finished, no table
    assert_eq!(mark_rows(&r.stdout), Vec::<String>::new(), "{}", r.stdout);
    // no test finished: the line says so and what m.json then holds, never "the
    // finished tests are in m.json"
    assert!(
        r.stderr.contains(
            "after 0 of 8 tests (no test finished, no table printed; m.json holds the stopped run without a test result: status interrupted, the settings and the diagnosis)"
        ),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("finished tests are in"), "{}", r.stderr);
    let j = read_json(&d.path().join("m.json"));
    assert_eq!(j["phases"].as_array().map(Vec::len), Some(0), "{j}");
    assert!(j["diagnosis"].is_object(), "{j}");
}

/// `mark m --size=16M --time=1 --loops=1 EXTRA --json=m.json` in `d` (PATH `m` made
/// first), interrupted by SIGINT at `fault`: its output and PATH.
fn mark_interrupted_at(d: &Path, fault: &str, extra: &[&str]) -> (Out, PathBuf) {
    let m = d.join("m");
    std::fs::create_dir_all(&m).unwrap();
    let base = ["mark", "m", "--size=16M", "--time=1", "--loops=1"];
    let args = [&base[..], extra, &["--json=m.json"]].concat();
    (interrupt_at(d, fault, &args, libc::SIGINT), m)
}

/// The test names of the rows of mark's table in `stdout` (the first 22 columns).
fn mark_rows(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("test "))
        .skip(1)
        .take_while(|l| !l.starts_with("MB/s ="))
        .map(|l| l.chars().take(22).collect::<String>().trim().to_string())
        .collect()
}

#[test]
fn mark_interrupted_prints_the_rows_of_the_finished_tests() {
    let d = scratch();
    // peak: SEQ1M Q8T1 and RND4K Q32T1, read then write. The 16 MiB file is prepared
    // with 16 writes of 1 MiB; the 17th write is the first of SEQ1M Q8T1 write, after
    // both read tests finished (no warm-up: its writes would count).
    let extra = ["--preset=peak", "--warmup=0"];
    let (r, m) = mark_interrupted_at(d.path(), "write:stop@17", &extra);
    assert_eq!(r.code, 130, "{r:?}");
    no_panic(&r);
    assert_eq!(
        mark_rows(&r.stdout),
        ["SEQ1M Q8T1 read", "RND4K Q32T1 read"],
        "{}",
        r.stdout
    );
    let line = "iomark mark: interrupted by SIGINT: in SEQ1M Q8T1 write after 2 of 4 tests (table above: the 2 finished tests, the 2 unfinished omitted; the finished tests are in m.json); the test file was removed (exit 130)";
    assert_eq!(r.stderr.trim_end(), line, "{}", r.stderr);
    let j = read_json(&d.path().join("m.json"));
    assert_eq!(j["status"], "interrupted");
    let phases: Vec<&str> = j["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["SEQ1M Q8T1 read", "RND4K Q32T1 read"]);
    assert!(entries(&m).is_empty(), "{:?}", entries(&m));
}

#[test]
fn fio_style_run_interrupted_exits_130_with_parsable_json() {
    let d = scratch();
    // past the layout's writes, mid-run
    let mut child = spawn(
        d.path(),
        "write:stop@5000",
        &[
            "run",
            "--name=t",
            "--rw=randwrite",
            "--bs=4k",
            "--size=8M",
            "--time_based",
            "--runtime=30",
            "--filename=fio.dat",
            "--output-format=json",
        ],
    );
    signal_at_stop(&mut child, libc::SIGINT);
    let t = Instant::now();
    let out = finish(child);
    assert!(t.elapsed() < Duration::from_secs(25), "stopped promptly");
    assert_eq!(out.code, 130, "{out:?}");
    let j: Value = serde_json::from_str(&out.stdout).expect("fio JSON parses");
    let bytes = j["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
    assert!(bytes > 0, "{j}");
    // the interruption is said (on stderr: stdout stays pure JSON)
    let err = &out.stderr;
    assert!(
        err.contains("iomark run: interrupted by SIGINT: the report above covers the I/O completed before the signal (exit 130)"),
        "{err}"
    );
}

/// Two SIGTERMs at once (GNU `timeout` signals the child and then its process group)
/// are one request: the run still stops cleanly with its report (exit 143), not the
/// "second signal: exiting at once" path.
#[test]
fn two_signals_at_once_count_once() {
    let d = scratch();
    let args = [
        "run",
        "--name=n",
        "--ioengine=null",
        "--size=1g",
        "--time_based",
        "--runtime=30",
    ];
    let mut child = spawn(d.path(), "read:stop@1000", &args);
    assert!(wait_stopped(&mut child, Duration::from_secs(60)), "no stop");
    assert_eq!(kill(child.id(), libc::SIGTERM), 0);
    assert_eq!(kill(child.id(), libc::SIGTERM), 0);
    assert_eq!(kill(child.id(), libc::SIGCONT), 0);
    let o = finish(child);
    let (out, err) = (&o.stdout, &o.stderr);
    assert_eq!(o.code, 143, "{err}");
    assert!(
        out.contains("IOPS="),
        "the report is printed:\n{out}\n{err}"
    );
    assert!(!err.contains("second signal"), "{err}");
}

/// A `mark` interrupted after its write tests keeps every finding the finished
/// tests support. On an ext4 on a loop device whose `queue/write_cache` is `write back`,
/// SIGINT at the start of the 4th test of `realworld` (RND4K Q1T1 write; `phase:stop@4`:
/// SEQ1M Q1T1 write finished) leaves `write_cache.acknowledged` in the JSON, naming the
/// finished write test only, once in the text under the table, and the device view
/// of the tests that ran.
#[test]
fn mark_interrupted_after_a_write_test_keeps_the_write_cache_finding() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let wc = format!("/sys/block/{}/queue/write_cache", fs.dev().name());
    std::fs::write(&wc, "write back").unwrap();
    let d = scratch();
    let r = interrupt_at(
        d.path(),
        "phase:stop@4",
        &[
            "mark",
            fs.dir().to_str().unwrap(),
            "--preset=realworld",
            "--size=8M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
            "--json=m.json",
        ],
        libc::SIGINT,
    );
    assert_eq!(r.code, 130, "{r:?}");
    no_panic(&r);
    assert_eq!(
        mark_rows(&r.stdout),
        ["SEQ1M Q1T1 read", "RND4K Q1T1 read", "SEQ1M Q1T1 write"],
        "{}",
        r.stdout
    );
    let j = read_json(&d.path().join("m.json"));
    assert_eq!(j["status"], "interrupted");
    assert_eq!(j["device_view"]["devices"][0]["write_cache"], "write back");
    assert!(
        j["device_view"]["devices"][0]["writes"].as_u64().unwrap() > 0,
        "{j}"
    );
    let found: Vec<&Value> = j["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["id"] == "write_cache.acknowledged")
        .collect();
    assert_eq!(found.len(), 1, "{}", j["warnings"]);
    let m = found[0]["message"].as_str().unwrap();
    assert!(
        m.starts_with("the write figures (SEQ1M Q1T1 write) were acknowledged by "),
        "{m}"
    );
    let line = format!("iomark: WARNING [write_cache.acknowledged]: {m}");
    assert_eq!(r.stdout.matches(&line).count(), 1, "{}", r.stdout);
    assert!(entries(fs.dir()).is_empty(), "{:?}", entries(fs.dir()));
}
