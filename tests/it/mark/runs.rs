//! `iomark mark`: a tiny real run on the project disk (8 MiB, 1 s, 1 loop: table, JSON
//! phases, test directory removed, read back by compare), bad input (one line, exit
//! 2/3), a full or read-only path, SIGINT. Preset expansion: src/run/mark/tests.rs.

use crate::util::*;
use serde_json::Value;

#[test]
fn tiny_mark_run_on_the_project_disk() {
    let scratch = scratch();
    let base = scratch.path().to_path_buf();
    let json = base.join("r.json");
    let out = Iomark::new()
        .args([
            "mark",
            base.to_str().unwrap(),
            "--preset=realworld",
            "--mix",
            "--size=8M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
        ])
        .arg(format!("--json={}", json.display()))
        .run();
    let stdout = out.stdout;
    assert_eq!(out.code, 0, "{stdout}\n{}", out.stderr);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("target: "), "{stdout}");
    assert!(lines[1]
        .contains("preset realworld, 8.0 MiB test file, O_DIRECT, random data, 1 s per test"));
    let header = lines.iter().position(|l| l.starts_with("test ")).unwrap();
    for (i, name) in [
        "SEQ1M Q1T1 read",
        "RND4K Q1T1 read",
        "SEQ1M Q1T1 write",
        "RND4K Q1T1 write",
        "RND4K Q1T1 mix",
    ]
    .iter()
    .enumerate()
    {
        let row = lines[header + 1 + i];
        assert!(row.starts_with(name), "{row}");
        let cols: Vec<f64> = row[name.len()..]
            .split_whitespace()
            .map(|c| c.trim_end_matches('*').parse().unwrap())
            .collect();
        assert_eq!(cols.len(), 5, "{row}");
        // MiB/s = MB/s × 10^6 / 2^20, rounded to 2 decimals
        assert!(
            (cols[1] - cols[0] * 1e6 / 1_048_576.0).abs() < 0.02,
            "{row}"
        );
        assert!(
            cols[2] > 0.0 && cols[3] > 0.0 && cols[4] >= cols[3] * 0.5,
            "{row}"
        );
    }
    assert!(stdout.contains("MB/s = 1,000,000 B/s, MiB/s = 1,048,576 B/s"));
    // each of the result's warnings is printed once, in the one form
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for w in v["warnings"].as_array().unwrap() {
        let id = w["id"].as_str().unwrap();
        assert_eq!(stdout.matches(id).count(), 1, "{id}: {stdout}");
        assert!(
            stdout.contains(&format!("iomark: WARNING [{id}]")),
            "{stdout}"
        );
    }
    // the test directory is gone; only the JSON is left
    let left: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("r.json")]);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["command"], "mark");
    assert_eq!(v["job"]["direct"], true);
    assert_eq!(v["job"]["total_size_bytes"], 8 << 20);
    let phases = v["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 5);
    assert_eq!(phases[0]["name"], "SEQ1M Q1T1 read");
    let p = &phases[1];
    let (bytes, ops, secs) = (
        p["bytes"].as_f64().unwrap(),
        p["ops"].as_f64().unwrap(),
        p["seconds"].as_f64().unwrap(),
    );
    assert_eq!(bytes, ops * 4096.0);
    assert!((p["mb_per_s"].as_f64().unwrap() - bytes / secs / 1e6).abs() < 1e-6);
    assert!(p["notes"][1]
        .as_str()
        .unwrap()
        .starts_with("median_of=1 best_mb_per_s="));
    assert!(p["lat"]["percentiles_ns"]["99"].as_u64().unwrap() > 0);
    // and compare reads it back
    let c = Iomark::new()
        .args(["compare", json.to_str().unwrap(), "--format=json"])
        .run();
    assert_eq!(c.code, 0);
    let cj: Value = serde_json::from_str(&c.stdout).unwrap();
    assert_eq!(cj["rows"][0]["test"], "SEQ1M Q1T1 read");
}

/// With two loops the JSON's top-level `read` and `write` are the median
/// loops of the read and the write tests added up (the rows of the table), with rates
/// over those loops' seconds (`period_s`; with two loops the median is the mean of both,
/// so both loops' seconds), and `elapsed_s` is the run's wall time, the device view's span.
#[test]
fn mark_top_level_figures_are_the_tables_and_elapsed_is_the_device_views_span() {
    let d = scratch();
    let json = d.path().join("r.json");
    let out = Iomark::new()
        .args([
            "mark",
            d.path().to_str().unwrap(),
            "--preset=realworld",
            "--size=8M",
            "--time=1",
            "--loops=2",
            "--warmup=0",
        ])
        .arg(format!("--json={}", json.display()))
        .run();
    assert_eq!(out.code, 0, "{}", out.dump());
    let v = read_json(&json);
    let phases = v["phases"].as_array().unwrap();
    let f = |p: &Value, k: &str| p[k].as_f64().unwrap();
    let mut all_secs = 0.0;
    for dir in ["read", "write"] {
        let mine: Vec<&Value> = phases
            .iter()
            .filter(|p| p["name"].as_str().unwrap().ends_with(&format!(" {dir}")))
            .collect();
        assert_eq!(mine.len(), 2, "{dir}");
        let sum = |k: &str| mine.iter().map(|p| f(p, k)).sum::<f64>();
        let (ops, bytes, secs) = (sum("ops"), sum("bytes"), sum("seconds"));
        all_secs += secs;
        let top = &v[dir];
        assert!(ops > 0.0, "{dir}");
        assert_eq!(f(top, "ops"), ops, "{dir}: {top}");
        assert_eq!(f(top, "bytes"), bytes, "{dir}: {top}");
        let mb = bytes / secs / 1e6;
        assert!(
            (f(top, "bw_mb_per_s") - mb).abs() <= mb * 1e-9,
            "{dir}: {top}"
        );
        assert!((f(top, "iops") - ops / secs).abs() <= ops * 1e-9, "{dir}");
        // the per-I/O latency of every counted I/O, as in the rows
        let lat_count: u64 = mine
            .iter()
            .map(|p| p["lat"]["count"].as_u64().unwrap())
            .sum();
        assert_eq!(top["lat"]["count"].as_u64().unwrap(), lat_count, "{dir}");
    }
    assert!((f(&v, "period_s") - all_secs).abs() < 1e-9, "{v}");
    let span_ms = v["device_view"]["devices"][0]["elapsed_ms"]
        .as_u64()
        .unwrap();
    assert_eq!(f(&v, "elapsed_s"), span_ms as f64 / 1e3);
    // with two loops the median is the mean of both (an even count), so its seconds
    // are both loops': every loop ran inside the span
    assert!(f(&v, "elapsed_s") >= all_secs, "{v}");
    for p in phases {
        let loops = p["notes"].to_string();
        assert!(loops.contains("median_of=2"), "{loops}");
    }
}

#[test]
fn mark_bad_input() {
    let o = Iomark::new()
        .args(["mark", "/nonexistent-iomark-dir"])
        .run();
    assert_eq!(o.code, 3);
    assert_eq!(
        o.stderr,
        "iomark mark: /nonexistent-iomark-dir is not an existing directory\n"
    );
    let o = Iomark::new().args(["mark", "--preset=fast"]).run();
    assert_eq!(o.code, 2);
    assert!(o
        .stderr
        .contains("unknown preset 'fast' (accepted: default, nvme, peak, realworld, sustained)"));
    let o = Iomark::new().args(["mark", "--size=0"]).run();
    assert_eq!(o.code, 2);
    // numeric options: one line naming the option, the value and what is accepted; exit
    // 2 before anything is created (run inside an empty directory, which stays empty)
    let empty = scratch();
    for (args, want) in [
        (
            vec!["--time=abc"],
            "iomark mark: invalid value 'abc' for '--time <TIME>': expected a whole number of seconds from 1 to 3600\n",
        ),
        (
            vec!["--loops", "-3"],
            "iomark mark: invalid value '-3' for '--loops <LOOPS>': expected a whole number from 1 to 100\n",
        ),
        (
            vec!["--warmup=601"],
            "iomark mark: invalid value '601' for '--warmup <WARMUP>': expected a whole number of seconds from 0 to 600\n",
        ),
        (
            vec!["--size=xyz"],
            "iomark mark: invalid value 'xyz' for '--size <SIZE>': 'xyz' is not a size (e.g. 4096, 64M, 1.5G, 150GB)\n",
        ),
        (
            vec!["--size=10mb"],
            "iomark mark: invalid value '10mb' for '--size <SIZE>': '10mb': a lower-case 'b' means bits and is ambiguous; write B for bytes (KB…TB = powers of 1000, K…T or KiB…TiB = powers of 1024)\n",
        ),
    ] {
        let o = Iomark::new()
            .arg("mark")
            .arg(empty.path())
            .args(&args)
            .run();
        assert_eq!(o.code, 2, "{args:?}");
        assert_eq!(o.stderr, want, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    // no space for the test file: exit 3 with the numbers, nothing left behind
    let scratch = scratch();
    let base = scratch.path().to_path_buf();
    let o = Iomark::new()
        .args([
            "mark",
            base.to_str().unwrap(),
            "--size=1000T",
            "--time=1",
            "--loops=1",
        ])
        .run();
    assert_eq!(o.code, 3);
    assert!(o.stderr.contains("not enough free space"));
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 0);
}

/// A small tmpfs mounted for one test (`opts`: `size=1M`); `None`, with the reason
/// printed, when mounting is not possible here.
fn tmpfs(opts: &str) -> Option<Mount> {
    Mount::try_new(&["-t", "tmpfs", "-o", opts, "tmpfs"])
        .map_err(|why| eprintln!("skipping: cannot mount a tmpfs: {why}"))
        .ok()
}

#[test]
fn mark_on_a_full_or_read_only_path_fails_cleanly() {
    let scratch = scratch();
    let json = scratch.path().join("mark-small.json");
    // 1 MiB tmpfs, 8 MiB test file: exit 3 before anything is written
    let Some(small) = tmpfs("size=1M") else {
        return;
    };
    let o = Iomark::new()
        .arg("mark")
        .arg(small.dir())
        .args(["--size=8M", "--time=1", "--loops=1", "--warmup=0"])
        .arg(format!("--json={}", json.display()))
        .run();
    let err = o.stderr;
    assert_eq!(o.code, 3, "{err}");
    assert_eq!(
        err,
        format!(
            "iomark mark: not enough free space in {}: the test file needs 8.0 MiB (8388608 bytes), 1.0 MiB (1048576 bytes) are available; use a smaller --size or another PATH\n",
            small.dir().display()
        )
    );
    assert_eq!(std::fs::read_dir(small.dir()).unwrap().count(), 0);
    assert!(!json.exists());
    drop(small);
    // read-only file system, also too small for the test file: exit 3 naming the cause
    // (read-only, not the space), no --json file made
    let Some(ro) = tmpfs("size=1M,ro") else {
        return;
    };
    let o = Iomark::new()
        .arg("mark")
        .arg(ro.dir())
        .args(["--size=8M", "--time=1", "--loops=1", "--warmup=0"])
        .arg(format!("--json={}", json.display()))
        .run();
    let err = o.stderr;
    assert_eq!(o.code, 3, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("iomark mark: cannot create the test directory "),
        "{err}"
    );
    assert!(
        err.contains("Read-only file system (os error 30) (PATH must be a writable directory)"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(ro.dir()).unwrap().count(), 0);
    assert!(!json.exists(), "no --json file is made");
}

#[test]
fn mark_interrupted_saves_the_partial_result_and_removes_the_test_file() {
    let scratch = scratch();
    let base = scratch.path().to_path_buf();
    let json = base.join("r.json");
    let mut child = Iomark::new()
        .arg("mark")
        .arg(&base)
        .args([
            "--preset=peak",
            "--size=8M",
            "--time=4",
            "--loops=1",
            "--warmup=0",
        ])
        .fault("read:stop@30")
        .arg(format!("--json={}", json.display()))
        .spawn();
    // mid-way through the first test's reads
    signal_at_stop(&mut child, libc::SIGINT);
    let o = finish(child);
    let err = &o.stderr;
    assert_eq!(o.code, 130, "{err}");
    assert!(
        err.contains("iomark mark: interrupted by SIGINT: in SEQ1M Q8T1 read after 0 of 4 tests (no test finished, no table printed; ")
            && err.contains(" holds the stopped run without a test result: status interrupted")
            && err.contains("; the test file was removed (exit 130)")
            && !err.contains("report above"),
        "{err}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["command"], "mark");
    assert_eq!(v["status"], "interrupted");
    assert_eq!(v["phases"].as_array().unwrap().len(), 0);
    assert!(v["error"].as_str().unwrap().contains("0 test(s) completed"));
    let left: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("r.json")]);
}

/// mark's `/proc/self/io` line under io_uring (`--preset=peak`: every test at QD > 1):
/// the run's reads went through io_uring, which the read calls' counter (`rchar`) does
/// not count, so the line says what its second figure is and what it misses — never
/// that the storage reads were "through the system calls". The JSON's counters are the
/// line's: the run read more than `rchar` says any read call did.
#[test]
fn the_process_line_under_io_uring_says_what_rchar_misses() {
    let d = scratch();
    let json = d.path().join("m.json");
    let j = format!("--json={}", json.display());
    let o = Iomark::new()
        .args([
            "mark",
            d.path().to_str().unwrap(),
            "--preset=peak",
            "--size=8M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
            j.as_str(),
        ])
        .env("IOMARK_HISTORY", "off")
        .run();
    o.expect_code(0);
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let Some(p) = v["device_view"]["process"].as_object() else {
        eprintln!("skipped: no device view (a filesystem without a block device)");
        return;
    };
    let lines: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| l.starts_with("  this process (/proc/self/io): "))
        .collect();
    assert_eq!(lines.len(), 1, "{}", o.stdout);
    let l = lines[0];
    assert!(
        l.contains(" to storage; its read/write system calls moved "),
        "{l}"
    );
    assert!(
        l.ends_with(" (rchar, wchar: io_uring's, libaio's and mmap's I/O is not counted there)"),
        "{l}"
    );
    assert!(!l.contains("through the system calls"), "{l}");
    let uring = v["phases"].as_array().unwrap().iter().all(|ph| {
        ph["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("engine=io_uring"))
    });
    if uring {
        let read: u64 = v["phases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|ph| ph["name"].as_str().unwrap().ends_with(" read"))
            .map(|ph| ph["bytes"].as_u64().unwrap())
            .sum();
        let rchar = p["rchar"].as_u64().unwrap();
        assert!(
            rchar < read,
            "io_uring's reads ({read} B) are not in rchar ({rchar} B)"
        );
    }
}
