//! `iomark mark` and `iomark compare`: preset expansion into the exact fileio jobs, a
//! tiny real `mark` run on the project disk (8 MiB, 1 s, 1 loop: table, JSON phases,
//! test directory removed), compare on fixture RunResult files (golden table, markdown
//! and csv output, mismatched-jobs call-outs, units) and bad input (one line, exit 2/3).

use assert_cmd::Command;
use iomark::cli::fileio::Outcome;
use iomark::job::sysbench::{Command as FileioCommand, DataPattern, IoMode, TestMode};
use iomark::run::mark::{expand, fileio_job, preset, Op, Pattern, Slot, Test};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iomark"))
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare")
}

fn names(p: &str, mix: bool) -> Vec<String> {
    expand(p, mix).unwrap().iter().map(Test::name).collect()
}

#[test]
fn presets_expand_to_the_crystaldiskmark_slots_read_then_write() {
    assert_eq!(
        names("default", false),
        [
            "SEQ1M Q8T1 read",
            "SEQ1M Q1T1 read",
            "RND4K Q32T1 read",
            "RND4K Q1T1 read",
            "SEQ1M Q8T1 write",
            "SEQ1M Q1T1 write",
            "RND4K Q32T1 write",
            "RND4K Q1T1 write"
        ]
    );
    assert_eq!(
        names("nvme", false)[..4],
        [
            "SEQ1M Q8T1 read",
            "SEQ128K Q32T1 read",
            "RND4K Q32T16 read",
            "RND4K Q1T1 read"
        ]
    );
    assert_eq!(
        names("peak", false),
        [
            "SEQ1M Q8T1 read",
            "RND4K Q32T1 read",
            "SEQ1M Q8T1 write",
            "RND4K Q32T1 write"
        ]
    );
    assert_eq!(
        names("realworld", false),
        [
            "SEQ1M Q1T1 read",
            "RND4K Q1T1 read",
            "SEQ1M Q1T1 write",
            "RND4K Q1T1 write"
        ]
    );
    // --mix adds the random slots as 70/30 mixes, after the writes
    assert_eq!(
        names("default", true)[8..],
        ["RND4K Q32T1 mix", "RND4K Q1T1 mix"]
    );
    assert_eq!(names("nvme", true).len(), 10);
    assert!(expand("fast", false).is_none());
    assert_eq!(
        preset("nvme").unwrap()[2],
        Slot {
            pattern: Pattern::Rnd,
            block: 4096,
            qd: 32,
            threads: 16
        }
    );
}

#[test]
fn slot_labels_round_trip() {
    for p in ["default", "nvme", "peak", "realworld"] {
        for s in preset(p).unwrap() {
            assert_eq!(Slot::parse_label(&s.label()), Some(s));
        }
    }
    assert_eq!(Slot::parse_label("SEQ128K Q32T1").unwrap().block, 131072);
    assert_eq!(Slot::parse_label("nonsense"), None);
    assert_eq!(Slot::parse_label("RNDxK Q1T1"), None);
}

/// The `iomark fileio` command line of one mark test: what a user types to run the
/// very job mark builds in memory (job/presets.rs `fileio_job`).
fn command_line(t: &Test, size: u64, time_s: u64, dir: &Path) -> Vec<String> {
    let mode = match (t.slot.pattern, t.op) {
        (Pattern::Seq, Op::Read) => "seqrd",
        (Pattern::Seq, Op::Write) => "seqrewr",
        (Pattern::Rnd, Op::Read) => "rndrd",
        (Pattern::Rnd, Op::Write) => "rndwr",
        (_, Op::Mix) => "rndrw",
    };
    let mut a = vec![
        "--file-num=1".to_string(),
        format!("--file-total-size={size}"),
        format!("--file-block-size={}", t.slot.block),
        format!("--file-test-mode={mode}"),
    ];
    if t.slot.qd > 1 {
        a.push("--file-io-mode=async".into());
        a.push(format!("--file-async-backlog={}", t.slot.qd));
    } else {
        a.push("--file-io-mode=sync".into());
    }
    a.extend([
        "--file-extra-flags=direct".to_string(),
        "--file-fsync-freq=0".into(),
        "--file-fsync-end=off".into(),
        "--file-rw-ratio=2.3333333333".into(),
        format!("--threads={}", t.slot.threads),
        format!("--time={time_s}"),
        "--events=0".into(),
        format!("--file-dir={}", dir.display()),
        "--file-data=random".into(),
        "--percentile=99".into(),
        "--notes=off".into(),
        "--verbosity=0".into(),
        "run".into(),
    ]);
    a
}

#[test]
fn each_test_is_the_exact_fileio_job() {
    let d = Path::new("/d");
    let job = |slot: Slot, op| fileio_job(&Test { slot, op }, 1 << 30, 5, d);
    // every test of every preset is the job fileio makes of its command line (mark
    // adds only fio's reaping: one completion, then refill its slot)
    for p in ["default", "nvme", "peak", "realworld"] {
        for t in expand(p, true).unwrap() {
            let args = command_line(&t, 1 << 30, 5, d);
            let parsed = match iomark::cli::fileio::parse(&args).outcome {
                Outcome::Job(j) => j,
                Outcome::Exit(c) => panic!("{}: exit {c}", args.join(" ")),
            };
            let mut want = *parsed;
            want.argv.clear();
            want.commands = vec![FileioCommand::Run];
            want.reap_max = 1;
            let got = fileio_job(&t, 1 << 30, 5, d);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{}", args.join(" "));
        }
    }
    let seq8 = preset("default").unwrap()[0];
    let rnd1 = preset("default").unwrap()[3];
    let rnd_t16 = preset("nvme").unwrap()[2];
    let j = job(seq8, Op::Read);
    assert_eq!(
        (j.file_num, j.total_size, j.block_size, j.test_mode),
        (1, 1 << 30, 1 << 20, Some(TestMode::Seqrd))
    );
    assert_eq!((j.io_mode, j.async_backlog), (IoMode::Async, 8));
    assert!(j.extra_flags.direct && !j.extra_flags.sync && !j.extra_flags.dsync);
    assert_eq!((j.fsync_freq, j.fsync_end, j.rw_ratio), (0, false, 2.3333333333));
    assert_eq!((j.threads, j.time_limit, j.event_limit), (1, 5, 0));
    assert_eq!(j.dir, d);
    assert_eq!((j.data, j.percentile, j.notes, j.verbosity), (DataPattern::Random, 99, false, 0));
    assert!(j.json.is_none(), "mark reads the result in memory: no --json file");
    // sequential writes overwrite the prepared file (seqrewr), never truncate it (seqwr)
    assert_eq!(job(seq8, Op::Write).test_mode, Some(TestMode::Seqrewr));
    // Q1 runs pread/pwrite so latency is per I/O; the backlog stays fileio's default
    let q1 = job(rnd1, Op::Write);
    assert_eq!(q1.test_mode, Some(TestMode::Rndwr));
    assert_eq!((q1.io_mode, q1.async_backlog), (IoMode::Sync, 128));
    assert!(q1.extra_flags.direct);
    let t16 = job(rnd_t16, Op::Mix);
    assert_eq!(t16.test_mode, Some(TestMode::Rndrw));
    assert_eq!((t16.io_mode, t16.async_backlog), (IoMode::Async, 32));
    assert_eq!(t16.threads, 16);
}

#[test]
fn tiny_mark_run_on_the_project_disk() {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mark-tiny");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let json = base.join("r.json");
    let out = bin()
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
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    let c = bin()
        .args(["compare", json.to_str().unwrap(), "--format=json"])
        .output()
        .unwrap();
    assert_eq!(c.status.code(), Some(0));
    let cj: Value = serde_json::from_slice(&c.stdout).unwrap();
    assert_eq!(cj["rows"][0]["test"], "SEQ1M Q1T1 read");
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn mark_bad_input() {
    let o = bin()
        .args(["mark", "/nonexistent-iomark-dir"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "iomark mark: /nonexistent-iomark-dir is not an existing directory\n"
    );
    let o = bin().args(["mark", "--preset=fast"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("unknown preset 'fast' (accepted: default, nvme, peak, realworld)"));
    let o = bin().args(["mark", "--size=0"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    // numeric options: one line naming the option, the value and what is accepted; exit
    // 2 before anything is created (run inside an empty directory, which stays empty)
    let empty = tempfile::tempdir().unwrap();
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
    ] {
        let o = bin()
            .arg("mark")
            .arg(empty.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), want, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    // no space for the test file: exit 3 with the numbers, nothing left behind
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mark-nospace");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let o = bin()
        .args([
            "mark",
            base.to_str().unwrap(),
            "--size=1000T",
            "--time=1",
            "--loops=1",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not enough free space"));
    assert_eq!(std::fs::read_dir(&base).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&base);
}

/// A small tmpfs mounted for one test, unmounted (and its directory removed) on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mount a tmpfs with `opts` (e.g. `size=1M`); None when mounting is not possible
    /// here (not root, no mount permission in a container).
    fn mount(name: &str, opts: &str) -> Option<Tmpfs> {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        let _ = std::fs::create_dir_all(&dir);
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            Some(Tmpfs(dir))
        } else {
            eprintln!("skipping: cannot mount a tmpfs (needs root)");
            let _ = std::fs::remove_dir(&dir);
            None
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn mark_on_a_full_or_read_only_path_fails_cleanly() {
    let json = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mark-small.json");
    let _ = std::fs::remove_file(&json);
    // 1 MiB tmpfs, 8 MiB test file: exit 3 before anything is written
    let Some(small) = Tmpfs::mount("mark-small-fs", "size=1M") else {
        return;
    };
    let o = bin()
        .arg("mark")
        .arg(&small.0)
        .args(["--size=8M", "--time=1", "--loops=1", "--warmup=0"])
        .arg(format!("--json={}", json.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(
        err,
        format!(
            "iomark mark: not enough free space in {}: the test file needs 8.0 MiB (8388608 bytes), 1.0 MiB (1048576 bytes) are available; use a smaller --size or another PATH\n",
            small.0.display()
        )
    );
    assert_eq!(std::fs::read_dir(&small.0).unwrap().count(), 0);
    assert!(!json.exists());
    drop(small);
    // read-only file system: exit 3 naming the cause, the placeholder JSON removed
    let Some(ro) = Tmpfs::mount("mark-ro-fs", "size=64M,ro") else {
        return;
    };
    let o = bin()
        .arg("mark")
        .arg(&ro.0)
        .args(["--size=8M", "--time=1", "--loops=1", "--warmup=0"])
        .arg(format!("--json={}", json.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("iomark mark: cannot create the test directory "),
        "{err}"
    );
    assert!(
        err.contains("Read-only file system (os error 30) (PATH must be a writable directory)"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&ro.0).unwrap().count(), 0);
    assert!(!json.exists(), "the --json placeholder is removed");
}

#[test]
fn mark_interrupted_saves_the_partial_result_and_removes_the_test_file() {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mark-sigint");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let json = base.join("r.json");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_iomark"))
        .arg("mark")
        .arg(&base)
        .args([
            "--preset=peak",
            "--size=8M",
            "--time=4",
            "--loops=1",
            "--warmup=0",
        ])
        .arg(format!("--json={}", json.display()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // the 8 MiB file is prepared in milliseconds; 1.5 s is inside the first 4 s test
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let k = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(
        err.contains("iomark mark: interrupted in SEQ1M Q8T1 read after 0 of 4 tests (no table printed; the finished tests are in ")
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
    let _ = std::fs::remove_dir_all(&base);
}

fn compare(args: &[&str]) -> (i32, String, String) {
    let o = bin()
        .current_dir(fixtures())
        .arg("compare")
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

const ABC: [&str; 3] = [
    "a-vm-mark.json",
    "b-980pro-mark.json",
    "c-vm-fileio-rndrd-16k-buffered.json",
];

#[test]
fn compare_golden_table_markdown_csv() {
    let golden = |f: &str| std::fs::read_to_string(fixtures().join(f)).unwrap();
    assert_eq!(compare(&ABC).1, golden("abc.table.golden"));
    let mut md = ABC.to_vec();
    md.extend([
        "--format=markdown",
        "--label=VM",
        "--label=980 PRO",
        "--label=VM-buffered",
    ]);
    assert_eq!(compare(&md).1, golden("abc.markdown.golden"));
    assert_eq!(
        compare(&[ABC[0], ABC[2], "--format=csv"]).1,
        golden("ac.csv.golden")
    );
}

#[test]
fn compare_ratios_units_and_callouts() {
    let (code, out, _) = compare(&[ABC[0], ABC[1], ABC[2], "--format=json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["columns"][1]["device"], "Samsung SSD 980 PRO 1TB");
    assert_eq!(v["columns"][1]["label"], "Samsung SSD 980 PRO 1TB");
    let rows = v["rows"].as_array().unwrap();
    let row = |t: &str, m: &str| {
        rows.iter()
            .find(|r| r["test"] == t && r["metric"] == m)
            .unwrap()
            .clone()
    };
    // the fixture B is A with SEQ1M Q8T1 scaled ×3 and RND4K Q32T1 ×4
    let r = row("SEQ1M Q8T1 read", "MB/s");
    assert!((r["ratios"][1].as_f64().unwrap() - 3.0).abs() < 1e-3);
    assert!(r["ratios"][0].is_null());
    assert!(r["values"][2].is_null());
    assert_eq!(r["differences"][0], "C: no such test");
    let r = row("RND4K Q32T1 read", "MB/s");
    assert!((r["ratios"][1].as_f64().unwrap() - 4.0).abs() < 1e-3);
    assert!(r["values"][2].is_null());
    // the fileio rndrd (16 KiB, QD1, buffered) lines up with the closest RND read (QD 1,
    // one thread), and the rest of the difference is called out
    let r = row("RND4K Q1T1 read", "MB/s");
    let d: Vec<&str> = r["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(
        d,
        [
            "C: block 16K (A: 4K)",
            "C: buffered (A: O_DIRECT)",
            "C: buffered file set 64.0 MiB fits in RAM 23.5 GiB (page cache)"
        ]
    );
    // MB/s is decimal: the fileio column equals bytes / period / 10^6 of its file
    let c: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join(ABC[2])).unwrap()).unwrap();
    let mb = c["read"]["bytes"].as_f64().unwrap() / c["period_s"].as_f64().unwrap() / 1e6;
    assert!((r["values"][2].as_f64().unwrap() - mb).abs() < 1e-6);
    assert!((c["read"]["bw_mb_per_s"].as_f64().unwrap() - mb).abs() < 1e-6);
    // QD>1 latency: mean = QD × threads / IOPS, no p99
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join(ABC[0])).unwrap()).unwrap();
    let iops = a["phases"][2]["ops_per_s"].as_f64().unwrap();
    let mean = row("RND4K Q32T1 read", "mean µs")["values"][0]
        .as_f64()
        .unwrap();
    assert!(
        (mean - 32.0 / iops * 1e6).abs() < 1.0,
        "{mean} vs {}",
        32.0 / iops * 1e6
    );
    // (old mark file: mean derived by Little's law, no p99 in any column: no p99 row)
    assert!(!rows
        .iter()
        .any(|r| r["test"] == "RND4K Q32T1 read" && r["metric"] == "p99 µs"));
    // identical jobs: no call-out
    assert!(row("SEQ1M Q1T1 read", "MB/s")["differences"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d.as_str().unwrap().starts_with("C:")));
}

#[test]
fn compare_reads_run_results_golden_and_callouts() {
    // D is a hand-written `iomark run` RunResult: three fio jobs as phases
    // (rand-read 4k QD32, seq-read 1M QD8, rand-write 4k QD1 buffered 64 MiB)
    let adc = ["a-vm-mark.json", "d-vm-run-fio.json", ABC[2]];
    let (code, out, err) = compare(&adc);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        std::fs::read_to_string(fixtures().join("adc.table.golden")).unwrap()
    );
    assert!(out.contains("B = serial overlayblk (d-vm-run-fio) (d-vm-run-fio.json, iomark run)"));
    let (_, out, _) = compare(&[adc[0], adc[1], "--format=json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["columns"][1]["command"], "run");
    let rows = v["rows"].as_array().unwrap();
    let row = |t: &str, m: &str| {
        rows.iter()
            .find(|r| r["test"] == t && r["metric"] == m)
            .unwrap_or_else(|| panic!("{t} {m}"))
            .clone()
    };
    // the run's jobs join the mark rows whose block/QD/threads match exactly
    let r = row("SEQ1M Q8T1 read", "MB/s");
    let d: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join(adc[1])).unwrap()).unwrap();
    assert_eq!(r["values"][1].as_f64(), d["phases"][1]["mb_per_s"].as_f64());
    assert!(r["differences"].as_array().unwrap().is_empty());
    assert_eq!(
        row("SEQ1M Q8T1 read", "p99 µs")["values"][1].as_f64(),
        Some(21000.0)
    );
    assert_eq!(
        row("RND4K Q32T1 read", "mean µs")["values"][1].as_f64(),
        Some(1275.0)
    );
    // the QD1 buffered 64 MiB write lines up with RND4K Q1T1 write, called out
    let r = row("RND4K Q1T1 write", "MB/s");
    let diffs: Vec<&str> = r["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(
        diffs,
        [
            "B: buffered (A: O_DIRECT)",
            "B: buffered file set 64.0 MiB fits in RAM 23.5 GiB (page cache)"
        ]
    );
    assert!((r["ratios"][1].as_f64().unwrap() - 212.992 / 57.2).abs() < 0.05);
    // the run alone: its own names, in its own order
    let (_, out, _) = compare(&[adc[1]]);
    let tests: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" MB/s "))
        .map(|l| l.split("  ").next().unwrap().trim())
        .collect();
    assert_eq!(
        tests,
        ["RND4K Q32T1 read", "SEQ1M Q8T1 read", "RND4K Q1T1 write"]
    );
}

#[test]
fn compare_uses_measured_completion_latency_of_qd_gt_1_fileio() {
    let base: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join(ABC[2])).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut deep = base.clone();
    deep["job"]["iodepth"] = 32.into();
    deep["job"]["engine"] = "io_uring".into();
    let old = dir.path().join("old.json");
    std::fs::write(&old, deep.to_string()).unwrap();
    deep["read"]["clat"] = serde_json::json!({"count": 10, "min_ns": 1, "max_ns": 9, "mean_ns": 250000,
        "stdev_ns": 0.0, "sum_ns": 2500000, "percentiles_ns": {"50": 200000, "99": 900000}});
    let new = dir.path().join("new.json");
    std::fs::write(&new, deep.to_string()).unwrap();
    let o = bin()
        .args([
            "compare",
            new.to_str().unwrap(),
            old.to_str().unwrap(),
            "--format=json",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let get = |m: &str| rows.iter().find(|r| r["metric"] == m).unwrap()["values"].clone();
    // measured (clat) in A, Little's law in B (QD × threads / IOPS), p99 only where measured
    assert_eq!(get("mean µs")[0].as_f64(), Some(250.0));
    assert_eq!(get("p99 µs")[0].as_f64(), Some(900.0));
    assert!(get("p99 µs")[1].is_null());
    let iops = base["read"]["ops"].as_f64().unwrap() / base["period_s"].as_f64().unwrap();
    assert!((get("mean µs")[1].as_f64().unwrap() - 32.0 / iops * 1e6).abs() < 1e-6);
    let t = bin()
        .args(["compare", new.to_str().unwrap(), old.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&t.stdout).contains("mean = QD x threads / IOPS"));
    let t = bin()
        .args(["compare", new.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&t.stdout).contains("mean = QD x threads / IOPS"));
}

#[test]
fn compare_bad_input_is_one_line_exit_2() {
    for (file, msg) in [
        ("bad-not-json.json", "iomark compare: bad-not-json.json is not JSON: expected value at line 1 column 1\n"),
        ("bad-foreign-fio.json", "iomark compare: bad-foreign-fio.json: fio output without any completed I/O\n"),
        ("bad-newer-schema.json", "iomark compare: bad-newer-schema.json has schema_version 2; this iomark 0.1.0 reads up to 1 (use a newer iomark)\n"),
        ("bad-running.json", "iomark compare: bad-running.json is the placeholder of a run that never finished (status \"running\")\n"),
        ("missing.json", "iomark compare: cannot read missing.json: No such file or directory (os error 2)\n"),
    ] {
        let (code, out, err) = compare(&[ABC[0], file]);
        assert_eq!((code, out.as_str(), err.as_str()), (2, "", msg), "{file}");
    }
    let (code, _, err) = compare(&[ABC[0], "--label=a", "--label=b"]);
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "iomark compare: 2 --label values for 1 files (give at most one per file)\n"
        )
    );
    let (code, _, err) = compare(&[ABC[0], "--format=xml"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, _) = compare(&[]);
    assert_eq!(code, 2);
}

#[test]
fn compare_plot_writes_a_wellformed_svg_with_every_series() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compare-plot.svg");
    let _ = std::fs::remove_file(&out);
    let plot = format!("--plot={}", out.display());
    let (code, _, err) = compare(&[
        ABC[0],
        ABC[1],
        ABC[2],
        "--label=VM",
        "--label=980 PRO",
        "--label=VM buffered",
        &plot,
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.trim_start().starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    // 8 tests × (A, B) + 1 test × C bars, in two panels (MB/s, IOPS), plus legend swatches
    let rects = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#0072B2"))
        .count();
    assert_eq!(rects, 2 * (8 + 1), "A's bars and legend swatches");
    // balanced elements: every <text> closed
    assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
    for needle in [
        "Bandwidth per test (higher is better)",
        "IOPS per test (higher is better)",
        "MB/s (1 MB = 1,000,000 B)",
        "A = VM",
        "B = 980 PRO",
        "C = VM buffered",
        "SEQ1M Q8T1",
        "RND4K Q1T1",
        "read *", // the call-out on the test whose jobs differ
        "2288",   // B's SEQ1M Q8T1 read bar label
    ] {
        assert!(svg.contains(needle), "missing {needle}");
    }
    // bars: 2 panels × (8 tests × A and B + 1 test × C)
    let fills: Vec<usize> = ["#0072B2", "#E69F00", "#009E73"]
        .iter()
        .map(|c| svg.matches(&format!("fill=\"{c}\"")).count())
        .collect();
    assert_eq!(
        fills,
        [2 * 8 + 2, 2 * 8 + 2, 2 + 2],
        "bars + legend swatches per colour"
    );
    let _ = std::fs::remove_file(&out);
    let (code, _, err) = compare(&[ABC[0], "--plot=/nonexistent-dir/x.svg"]);
    assert_eq!(code, 3);
    assert!(
        err.starts_with("iomark compare: cannot write --plot=/nonexistent-dir/x.svg"),
        "{err}"
    );
}

/// A result whose run was interrupted is still compared, but its column says it is
/// partial (the figures cover only the part that ran).
#[test]
fn compare_marks_partial_results() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare");
    let t = tempfile::tempdir().unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a-vm-mark.json")).unwrap())
            .unwrap();
    v["status"] = "interrupted".into();
    std::fs::write(t.path().join("cut.json"), v.to_string()).unwrap();
    std::fs::copy(dir.join("a-vm-mark.json"), t.path().join("whole.json")).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_iomark"))
        .current_dir(t.path())
        .args(["compare", "whole.json", "cut.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    let legend: Vec<&str> = out.lines().take(2).collect();
    assert!(!legend[0].contains("PARTIAL"), "{out}");
    assert!(
        legend[1]
            .contains("PARTIAL: the run interrupted; its figures cover only the part that ran"),
        "{out}"
    );
}

/// A QD 1 fileio result against a mark: mark's RND4K Q1T1 read joins the fileio row
/// (same QD first), not RND4K Q32T1, which comes earlier in the preset.
#[test]
fn compare_pairs_the_same_qd_first() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_iomark"))
        .current_dir(&dir)
        .args([
            "compare",
            "c-vm-fileio-rndrd-16k-buffered.json",
            "a-vm-mark.json",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    let row = out
        .lines()
        .find(|l| l.starts_with("RND16K Q1T1 read   MB/s"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains("B: block 4K (A: 16K)"), "{row}");
    assert!(!row.contains("QD"), "the rows' QDs must match: {row}");
    assert!(
        out.contains("RND4K Q32T1 read   MB/s"),
        "Q32 keeps its own row: {out}"
    );
}
