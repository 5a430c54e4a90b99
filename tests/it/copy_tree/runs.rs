//! `iomark copy` and `iomark tree` end to end, with tiny sizes (8 MiB copies, 500-file
//! trees): byte-identical copies, every method reported, JSON phases consistent, tree
//! counts equal to the files created, cleanup leaving the directory as it was, and each
//! bad-input error (one line, exit 2 or 3, nothing of the user's touched).

use crate::util::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Name → content of every entry of a directory (recursively), to compare before/after.
fn snapshot(d: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut m = BTreeMap::new();
    let mut stack = vec![d.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            if e.file_type().unwrap().is_dir() {
                m.insert(path.clone(), None);
                stack.push(path);
            } else {
                m.insert(path.clone(), Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    m
}

fn user_dir() -> tempfile::TempDir {
    let d = scratch();
    std::fs::write(d.path().join("user-file.txt"), b"do not touch").unwrap();
    std::fs::create_dir(d.path().join("user-sub")).unwrap();
    std::fs::write(d.path().join("user-sub/x"), b"x").unwrap();
    d
}

/// Rates in a phase follow from ops, bytes and seconds.
fn check_rates(p: &Value) {
    let (ops, bytes, s) = (
        p["ops"].as_f64().unwrap(),
        p["bytes"].as_f64().unwrap(),
        p["seconds"].as_f64().unwrap(),
    );
    assert!(s > 0.0, "{p}");
    assert!(close(p["ops_per_s"].as_f64().unwrap(), ops / s), "{p}");
    assert!(
        close(p["mb_per_s"].as_f64().unwrap(), bytes / s / 1e6),
        "{p}"
    );
    assert!(
        close(p["mib_per_s"].as_f64().unwrap(), bytes / s / 1_048_576.0),
        "{p}"
    );
}

const SIZE: u64 = 8 << 20;
const METHODS: [&str; 3] = ["buffered_128k", "copy_file_range", "direct_4m"];

#[test]
fn copy_destination_is_byte_identical_to_the_source() {
    let src = scratch();
    let dst = scratch();
    let out = Iomark::new()
        .args(["copy", "--size=8M", "--keep"])
        .arg(src.path())
        .arg(dst.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let files: Vec<PathBuf> = std::fs::read_dir(src.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let source = std::fs::read(&files[0]).unwrap();
    assert_eq!(source.len() as u64, SIZE);
    // incompressible: no run of zeros, many distinct byte values
    assert!(source.windows(64).all(|w| w.iter().any(|b| *b != 0)));
    let mut copies = 0;
    for e in std::fs::read_dir(dst.path()).unwrap() {
        let p = e.unwrap().path();
        let data = std::fs::read(&p).unwrap();
        assert!(data == source, "{} differs from the source", p.display());
        copies += 1;
    }
    let skipped = out.matches("skipped").count();
    assert_eq!(copies + skipped, 3, "{out}");
    assert!(out.contains("verified byte-identical"), "{out}");
}

#[test]
fn copy_reports_every_method_and_consistent_json_phases() {
    let src = user_dir();
    let before = snapshot(src.path());
    let j = scratch();
    let jp = j.path().join("copy.json");
    let out = copy_8m(&jp, &[src.path()]);
    for label in ["buffered 128 KiB", "copy_file_range", "O_DIRECT 4 MiB"] {
        assert!(
            out.lines().any(|l| l.starts_with(label)),
            "{label} missing:\n{out}"
        );
    }
    assert!(out.contains("MB/s") && out.contains("MiB/s"));
    assert!(out.contains("posix_fadvise(POSIX_FADV_DONTNEED)"));
    assert!(out.contains("ceiling: "), "{out}");
    let v = read_json(&jp);
    assert_eq!(v["command"], "copy");
    assert_eq!(v["status"], "ok");
    assert!(
        v["diagnosis"]["summary"]["filesystem"].is_string(),
        "{}",
        v["diagnosis"]
    );
    assert_eq!(v["job"]["total_size_bytes"], SIZE);
    let src_phase = phase(&v, "create_source_durable").unwrap();
    assert_eq!(src_phase["bytes"], SIZE);
    assert_eq!(src_phase["ops"], 2); // two 4 MiB writes
    check_rates(src_phase);
    let mut done = 0;
    for m in METHODS {
        let (Some(w), Some(d)) = (
            phase(&v, &format!("{m}_written")),
            phase(&v, &format!("{m}_durable")),
        ) else {
            assert!(out.contains("skipped"), "{m} neither reported nor skipped");
            continue;
        };
        done += 1;
        for p in [w, d] {
            assert_eq!(p["bytes"], SIZE, "{p}");
            check_rates(p);
            assert!(p["cache"].as_str().unwrap().contains("POSIX_FADV_DONTNEED"));
        }
        assert_eq!(w["ops"], d["ops"]);
        assert!(
            d["seconds"].as_f64() >= w["seconds"].as_f64(),
            "fsync adds time"
        );
        assert!(d["notes"].to_string().contains("fsync"));
    }
    assert_eq!(
        phase(&v, "buffered_128k_written").unwrap()["ops"],
        SIZE / (128 * 1024)
    );
    assert!(done >= 2, "buffered and copy_file_range always run");
    assert_eq!(
        snapshot(src.path()),
        before,
        "only iomark's files are removed"
    );
}

/// Each method's read and write calls are recorded one by one (`read_lat`,
/// `write_lat` of its `_written` phase): as many reads as the requests, at least as many
/// writes, p50 ≤ p99 ≤ p99.9 ≤ max, and their summed latency the time the method's share
/// says it spent inside those calls (a figure timed apart); the text shows them.
#[test]
fn copy_records_each_read_and_write_call_latency() {
    let src = user_dir();
    let j = scratch();
    let jp = j.path().join("copy.json");
    let out = copy_8m(&jp, &[src.path()]);
    assert!(out.contains("per call latency"), "{out}");
    let v = read_json(&jp);
    let u = |l: &Value, k: &str| l[k].as_u64().unwrap_or_else(|| panic!("{k}: {l}"));
    let mut seen = 0;
    for m in METHODS {
        let Some(w) = phase(&v, &format!("{m}_written")) else {
            continue;
        };
        let share = v["time"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["who"] == format!("{m}_durable"))
            .unwrap();
        let calls: Vec<(&str, &Value)> = if m == "copy_file_range" {
            assert!(w.get("read_lat").is_none(), "{w}");
            vec![("write", &w["write_lat"])]
        } else {
            vec![("read", &w["read_lat"]), ("write", &w["write_lat"])]
        };
        for (call, l) in calls {
            let n = u(l, "count");
            let ops = w["ops"].as_u64().unwrap();
            if call == "read" {
                assert_eq!(n, ops, "{m}: one read call per request: {l}");
            } else {
                assert!(n >= ops, "{m}: every write call: {l}");
            }
            let p = &l["percentiles_ns"];
            let (p50, p99, p999) = (u(p, "50"), u(p, "99"), u(p, "99.9"));
            assert!(u(l, "min_ns") <= p50, "{m} {call}: {l}");
            // the histogram's percentiles are held within the calls' min and max
            assert!(
                p50 <= p99 && p99 <= p999 && p999 <= u(l, "max_ns"),
                "{m} {call}: {l}"
            );
            let inside = share[format!("{call}_ns")].as_u64().unwrap();
            let sum = u(l, "sum_ns");
            // the share also holds the call at the end of the file (a read, or
            // copy_file_range's), which moved nothing and is no request
            let eof = if call == "read" || m == "copy_file_range" {
                100_000
            } else {
                0
            };
            assert!(
                sum <= inside + 1000 && inside <= sum + 1000 + eof,
                "{m} {call}: calls {sum} ns vs inside {inside} ns"
            );
            let label = label(m);
            assert!(
                out.lines().any(|x| x.starts_with(label)
                    && x.contains(&format!(" {call} "))
                    && x.contains(&format!(" {n} "))),
                "{m} {call} row:\n{out}"
            );
        }
        seen += 1;
    }
    assert!(seen >= 2, "buffered and copy_file_range always run");
}

/// The text label of method `m`.
fn label(m: &str) -> &'static str {
    match m {
        "buffered_128k" => "buffered 128 KiB",
        "copy_file_range" => "copy_file_range",
        _ => "O_DIRECT 4 MiB",
    }
}

#[test]
fn copy_default_dst_is_src_and_cleanup_leaves_the_directory_as_it_was() {
    let d = user_dir();
    let before = snapshot(d.path());
    Iomark::new()
        .dir(d.path())
        .args(["copy", "--size=4M"])
        .assert()
        .success();
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn copy_size_not_a_multiple_of_4k_is_copied_exactly() {
    let d = scratch();
    Iomark::new()
        .args(["copy", "--size=5000", "--keep"])
        .arg(d.path())
        .assert()
        .success();
    let files: Vec<Vec<u8>> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert!(files.len() >= 3);
    assert!(files.iter().all(|f| f.len() == 5000 && *f == files[0]));
}

#[test]
fn tree_phase_counts_equal_the_files_created_and_cleanup_is_complete() {
    let d = user_dir();
    let before = snapshot(d.path());
    let j = scratch();
    let jp = j.path().join("tree.json");
    let a = Iomark::new()
        .args(["tree", "--files=500", "--threads=3"])
        .arg(format!("--json={}", jp.display()))
        .arg(d.path())
        .assert()
        .success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(out.contains("500 files"), "{out}");
    let v = read_json(&jp);
    assert_eq!(v["command"], "tree");
    assert_eq!(v["status"], "ok");
    assert!(v["diagnosis"]["findings"].is_array(), "{}", v["diagnosis"]);
    assert_eq!(v["job"]["threads"], 3);
    let names: Vec<&str> = v["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "mkdir",
            "create_write",
            "fsync",
            "stat_all",
            "read_all",
            "rename",
            "delete",
            "rmdir"
        ]
    );
    let written = phase(&v, "create_write").unwrap()["bytes"]
        .as_u64()
        .unwrap();
    assert!(written > 500 * 1024, "{written}"); // mean ≈ 15 KiB
    assert_eq!(v["job"]["total_size_bytes"], written);
    for n in ["create_write", "stat_all", "read_all", "rename", "delete"] {
        let p = phase(&v, n).unwrap();
        assert_eq!(p["ops"], 500, "{n}");
        assert_eq!(p["lat"]["count"], 500, "{n}");
        let pct = &p["lat"]["percentiles_ns"];
        assert!(pct["50"].as_u64().unwrap() <= pct["99"].as_u64().unwrap());
        check_rates(p);
    }
    // read_all's readdir walk (3 walkers sharing directories) finds exactly the files
    // written, no more (the tree root holds nothing else), and reads every byte
    assert_eq!(phase(&v, "read_all").unwrap()["bytes"], written);
    let note = phase(&v, "read_all").unwrap()["notes"][0].as_str().unwrap();
    assert!(
        note.contains("readdir walk (3 walkers") && note.contains("lstat"),
        "{note}"
    );
    assert_eq!(phase(&v, "mkdir").unwrap()["ops"], 500 / 15);
    assert_eq!(phase(&v, "rmdir").unwrap()["ops"], 500 / 15);
    assert_eq!(phase(&v, "fsync").unwrap()["ops"], 1);
    let cache = phase(&v, "stat_all").unwrap()["cache"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        cache.starts_with("cold") || cache.starts_with("warm"),
        "{cache}"
    );
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn tree_single_thread_matches_plan() {
    let d = scratch();
    let j = scratch();
    let jp = j.path().join("t.json");
    Iomark::new()
        .args(["tree", "--files=200", "--dirs=5", "--threads=1"])
        .arg(format!("--json={}", jp.display()))
        .arg(d.path())
        .assert()
        .success()
        .stdout(predicates::str::contains("200 files"))
        .stdout(predicates::str::contains("in 5 directories"));
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    // one walker: tar's order, every file and byte of the plan
    let v = read_json(&jp);
    let r = phase(&v, "read_all").unwrap();
    assert_eq!(r["ops"], 200);
    assert_eq!(r["bytes"], phase(&v, "create_write").unwrap()["bytes"]);
    let note = r["notes"][0].as_str().unwrap();
    assert!(
        note.contains("one walker, depth first in readdir order"),
        "{note}"
    );
}

/// Run iomark, expect `code` and a single stderr line containing `needle`.
fn bad(args: &[&str], code: i32, needle: &str) {
    let a = Iomark::new().args(args).assert().code(code);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.contains(needle), "{needle:?} not in {err:?}");
}

/// Numeric options of tree and copy: one line naming the option, the value and the
/// accepted range (no "invalid digit found in string"), exit 2, nothing created.
#[test]
fn numeric_options_name_what_is_accepted() {
    let d = user_dir();
    let before = snapshot(d.path());
    let dir = d.path().to_str().unwrap();
    for (args, want) in [
        (
            vec!["tree", dir, "--files=-5"],
            "iomark tree: invalid value '-5' for '--files <FILES>': expected a whole number from 1 to 100000000",
        ),
        (
            vec!["tree", dir, "--files", "-5"],
            "iomark tree: invalid value '-5' for '--files <FILES>': expected a whole number from 1 to 100000000",
        ),
        (
            vec!["tree", dir, "--threads=abc"],
            "iomark tree: invalid value 'abc' for '--threads <THREADS>': expected a whole number from 1 to 1024",
        ),
        (
            vec!["tree", dir, "--dirs=0"],
            "iomark tree: invalid value '0' for '--dirs <DIRS>': expected a whole number from 1 to 10000000",
        ),
        (
            vec!["tree", dir, "--seed=1.5"],
            "iomark tree: invalid value '1.5' for '--seed <SEED>': expected a whole number from 0 to 4294967295",
        ),
        (
            vec!["copy", dir, "--size=xyz"],
            "iomark copy: invalid value 'xyz' for '--size <SIZE>': 'xyz' is not a size (e.g. 4096, 64M, 1.5G, 150GB)",
        ),
        (
            // a lower-case b is bits, refused (never silently 1.5×10⁹ bytes)
            vec!["copy", dir, "--size=1.5Gb"],
            "iomark copy: invalid value '1.5Gb' for '--size <SIZE>': '1.5Gb': a lower-case 'b' means bits and is ambiguous; write B for bytes (KB…TB = powers of 1000, K…T or KiB…TiB = powers of 1024)",
        ),
        (
            vec!["copy", dir, "--seed=-1"],
            "iomark copy: invalid value '-1' for '--seed <SEED>': expected a whole number from 0 to 4294967295",
        ),
    ] {
        let o = Iomark::new().args(&args).run();
        assert_eq!(o.code, 2, "{args:?}");
        assert_eq!(o.stderr, format!("{want}\n"), "{args:?}");
    }
    assert_eq!(snapshot(d.path()), before);
}

/// SRC a file, with DST the same file, a path below it, or (default) SRC itself: the
/// file is named as not a directory, with a note on DST; exit 3; nothing touched.
#[test]
fn copy_src_file_with_dst_the_same_or_inside_is_named_not_a_directory() {
    let d = user_dir();
    let before = snapshot(d.path());
    let f = d.path().join("user-file.txt");
    let sub = f.join("sub");
    let (fs, sub) = (f.to_str().unwrap(), sub.to_str().unwrap());
    for (args, note) in [
        (vec!["copy", fs, fs], "; DST names the same file ("),
        (vec!["copy", fs, sub], "; DST is a path inside it ("),
        (vec!["copy", fs], "; DST names the same file ("),
    ] {
        bad(&args, 3, &format!("SRC '{fs}' is not a directory{note}"));
    }
    assert_eq!(snapshot(d.path()), before);
}

/// A fresh user's `iomark copy FILE DIR`: the message names SRC as not a directory
/// (not "same file" or "inside SRC"); and a file where a directory is expected exits 3
/// in every command that takes one (docs/safety.md, "Exit codes": a target problem).
#[test]
fn a_file_as_the_directory_is_named_and_exits_3_in_every_command() {
    let d = user_dir();
    let before = snapshot(d.path());
    let f = d.path().join("user-file.txt");
    let fs = f.to_str().unwrap();
    let dir = d.path().join("user-sub");
    let dir = dir.to_str().unwrap();
    bad(
        &["copy", fs, dir],
        3,
        &format!("SRC '{fs}' is not a directory ("),
    );
    bad(
        &["copy", dir, fs],
        3,
        &format!("DST '{fs}' is not a directory ("),
    );
    bad(
        &["tree", fs],
        3,
        &format!("DIR '{fs}' is not a directory ("),
    );
    bad(
        &["mark", "--size=4M", fs],
        3,
        &format!("iomark mark: {fs} is not an existing directory"),
    );
    let a = Iomark::new()
        .args([
            "fileio",
            &format!("--file-dir={fs}"),
            "--file-test-mode=seqwr",
            "prepare",
        ])
        .assert()
        .code(3);
    let out = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(
        out.contains(&format!("--file-dir={fs} is not an existing directory")),
        "{out}"
    );
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn missing_directories_are_environment_errors() {
    let d = scratch();
    let nope = d.path().join("nope");
    let nope = nope.to_str().unwrap();
    let ok = d.path().to_str().unwrap();
    bad(&["copy", nope], 3, "does not exist");
    bad(&["copy", ok, nope], 3, "DST");
    bad(&["tree", nope], 3, "does not exist");
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

#[test]
fn bad_sizes_and_counts_are_invalid_input() {
    let d = scratch();
    let p = d.path().to_str().unwrap();
    bad(&["copy", "--size=0", p], 2, "greater than 0");
    bad(&["copy", "--size=abc", p], 2, "not a size");
    bad(&["copy", "--size=12X", p], 2, "unknown size unit");
    bad(&["copy", "--size=99999999999T", p], 2, "too large");
    bad(&["tree", "--files=0", p], 2, "--files");
    bad(&["tree", "--threads=0", p], 2, "--threads");
    bad(&["tree", "--files=x", p], 2, "--files");
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

#[test]
fn no_space_is_an_environment_error_with_the_numbers() {
    let d = user_dir();
    let before = snapshot(d.path());
    let p = d.path().to_str().unwrap();
    bad(&["copy", "--size=1000T", p], 3, "not enough free space");
    let a = Iomark::new()
        .args(["copy", "--size=1000T", p])
        .assert()
        .code(3);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("need 2.0 PiB") && err.contains("available"),
        "{err}"
    );
    bad(&["tree", "--files=100000000", p], 3, "not enough free");
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn permission_denied_is_an_environment_error() {
    use std::os::unix::fs::PermissionsExt;
    let d = user_dir();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let before = snapshot(d.path());
    let p = d.path().to_str().unwrap();
    // Root ignores directory modes: run iomark as nobody then.
    let root = is_root();
    let run = |args: &[&str]| {
        let c = if root {
            Iomark::program("setpriv")
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(BIN)
        } else {
            std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
            Iomark::new()
        };
        c.dir("/")
            .args(args)
            .assert()
            .code(3)
            .get_output()
            .stderr
            .clone()
    };
    for args in [vec!["copy", "--size=4M", p], vec!["tree", "--files=10", p]] {
        let err = String::from_utf8(run(&args)).unwrap();
        assert!(err.contains("Permission denied"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(snapshot(d.path()), before);
}

/// SIGINT in the middle (sent at the run's `fault` stop point, so it lands mid-run on any
/// machine): exit 130, status "interrupted", the line saying it removes what it created
/// before it does, and only iomark's files removed.
fn interrupt(args: &[&str], fault: &str) {
    let d = user_dir();
    let before = snapshot(d.path());
    let j = scratch();
    let jp = j.path().join("r.json");
    let mut child = Iomark::new()
        .args(args)
        .fault(fault)
        .arg(format!("--json={}", jp.display()))
        .arg(d.path())
        .spawn();
    signal_at_stop(&mut child, libc::SIGINT);
    // `tree --files=40000` takes a minute or more to stop and clean up on a busy machine
    // (76 s once): a hang guard far above that
    let st = finish_within(child, std::time::Duration::from_secs(600));
    assert_eq!(snapshot(d.path()), before);
    assert_eq!(st.code, 130, "{}", st.dump());
    let removing = format!("iomark {}: stopping: removing the ", args[0]);
    assert!(st.stderr.contains(&removing), "{}", st.dump());
    assert_eq!(read_json(&jp)["status"], "interrupted");
}

#[test]
fn copy_interrupted_removes_only_its_files() {
    interrupt(&["copy", "--size=1G"], "write:stop@40");
}

#[test]
fn tree_interrupted_removes_only_its_files() {
    interrupt(&["tree", "--files=40000"], "write:stop@2000");
}

// `mark`'s own hints (a fresh user's findings): mark has no --file-* options, so its
// messages must not send the user to them, and after Ctrl-C there is no report above.

/// Run `iomark mark` with tiny settings; (exit code, stderr).
fn mark(env: &[(&str, &str)], args: &[&str], dir: &Path) -> (i32, String) {
    let o = Iomark::new()
        .env_remove("IOMARK_TEST_DENY_IO_URING")
        .envs(env)
        .args(["mark", "--size=4M", "--time=1", "--loops=1", "--warmup=0"])
        .args(args)
        .arg(dir)
        .run();
    (o.code, o.stderr)
}

#[test]
fn mark_without_io_uring_names_its_own_way_out() {
    let d = user_dir();
    let before = snapshot(d.path());
    let deny = [("IOMARK_TEST_DENY_IO_URING", "1")];
    let (code, err) = mark(&deny, &[], d.path());
    assert_eq!(code, 3, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.starts_with("iomark mark: io_uring is unavailable"),
        "{err}"
    );
    assert!(
        err.contains("SEQ1M Q8T1") && err.contains("--preset=realworld"),
        "{err}"
    );
    assert!(!err.contains("--file-"), "fileio wording in mark: {err}");
    assert_eq!(snapshot(d.path()), before);
    // and the way out works: realworld has only Q1 tests (pread/pwrite)
    let (code, err) = mark(&deny, &["--preset=realworld"], d.path());
    assert_eq!(code, 0, "{err}");
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn mark_interrupted_says_no_table_was_printed() {
    let d = user_dir();
    let before = snapshot(d.path());
    let j = scratch();
    let jp = j.path().join("m.json");
    let mut child = Iomark::new()
        .args(["mark", "--size=4M", "--time=5", "--loops=1", "--warmup=0"])
        .fault("read:stop@30")
        .arg(format!("--json={}", jp.display()))
        .arg(d.path())
        .spawn();
    // mid-way through the first test's reads
    signal_at_stop(&mut child, libc::SIGINT);
    let o = finish(child);
    let err = &o.stderr;
    assert_eq!(o.code, 130, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("report above"), "{err}");
    assert!(
        err.contains("after 0 of 8 tests (no test finished, no table printed; ")
            && err.contains("m.json holds the stopped run without a test result"),
        "{err}"
    );
    assert_eq!(read_json(&jp)["status"], "interrupted");
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn mark_on_a_filesystem_without_o_direct_says_so_in_its_own_words() {
    if !is_root() {
        skip("mounting ramfs needs root");
        return;
    }
    let m = Mount::try_new(&["-t", "ramfs", "ramfs"]);
    assert!(m.is_ok(), "mount ramfs: {:?}", m.as_ref().err());
    let m = m.unwrap();
    let (code, err) = mark(&[], &[], m.dir());
    assert_eq!(code, 3, "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("ramfs at ")
            && err.contains("does not support O_DIRECT, which every mark test uses"),
        "{err}"
    );
    assert!(!err.contains("--file-"), "fileio wording in mark: {err}");
    assert_eq!(std::fs::read_dir(m.dir()).unwrap().count(), 0);
}

/// SRC on another disk than DST (SRC on a loop device, DST on the scratch disk): the
/// device view has both disks, each with its role, in the text and the JSON, and the
/// series samples SRC's disk beside DST's, its source named with its role; the
/// source written to SRC shows in SRC's samples. The loop device is detached and its
/// filesystem unmounted on drop, also when an assertion fails.
#[test]
fn copy_samples_src_disk_too_when_it_is_another() {
    let fs = match LoopFs::ext4_over_shm(64) {
        Ok(f) => f,
        Err(why) => return skip(&why),
    };
    let dst = scratch();
    let j = scratch();
    let jp = j.path().join("copy.json");
    let out = copy_8m(&jp, &[fs.dir(), dst.path()]);
    let loop_name = fs.dev().name();
    assert!(
        out.contains(&format!("  device {loop_name} (SRC")),
        "SRC's disk in the text:\n{out}"
    );
    assert!(out.contains(" (DST"), "DST's disk in the text:\n{out}");
    let v = read_json(&jp);
    let devices = v["device_view"]["devices"].as_array().unwrap();
    let role = |r: &str| {
        devices
            .iter()
            .filter(|d| d["role"] == r && d.get("member_of").is_none())
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(role("SRC"), std::slice::from_ref(&loop_name), "{devices:?}");
    assert_eq!(role("DST").len(), 1, "{devices:?}");
    assert_ne!(role("DST"), role("SRC"));
    let series = &v["series"];
    assert_eq!(
        series["sources"]["more_devices"],
        serde_json::json!([[loop_name, "SRC"]]),
        "{}",
        series["sources"]
    );
    let samples = series["samples"].as_array().unwrap();
    assert!(!samples.is_empty());
    // every sample has SRC's disk, in its place; the 8 MiB source was written there
    assert!(samples
        .iter()
        .all(|s| s["more_devices"].as_array().map(Vec::len) == Some(1)));
    let written: u64 = samples
        .iter()
        .map(|s| s["more_devices"][0]["written_bytes"].as_u64().unwrap())
        .sum();
    assert!(written >= SIZE, "SRC's disk wrote {written} bytes");
}

/// `iomark copy --size=8M --json=JP DIRS…`, which must succeed: its stdout.
fn copy_8m(jp: &Path, dirs: &[&Path]) -> String {
    let a = Iomark::new()
        .args(["copy", "--size=8M"])
        .arg(format!("--json={}", jp.display()))
        .args(dirs)
        .assert()
        .success();
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}
