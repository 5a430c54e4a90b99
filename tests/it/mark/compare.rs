//! `iomark compare` on fixture RunResult files: golden table, markdown and csv output,
//! mismatched-jobs call-outs, units, measured latency of deep queues, partial results,
//! pairing by QD, `--plot`, and bad input (one line, exit 2).

use crate::util::*;
use serde_json::Value;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    fixture("compare")
}

fn compare(args: &[&str]) -> (i32, String, String) {
    let o = Iomark::new()
        .dir(fixtures())
        .arg("compare")
        .args(args)
        .run();
    (o.code, o.stdout, o.stderr)
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
        [
            "RND4K Q32T1 read (job rand-read)",
            "SEQ1M Q8T1 read (job seq-read)",
            "RND4K Q1T1 write (job rand-write)"
        ]
    );
}

#[test]
fn compare_uses_measured_completion_latency_of_qd_gt_1_fileio() {
    let base: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join(ABC[2])).unwrap()).unwrap();
    let dir = scratch();
    let mut deep = base.clone();
    deep["job"]["iodepth"] = 32.into();
    deep["job"]["engine"] = "io_uring".into();
    let old = dir.path().join("old.json");
    std::fs::write(&old, deep.to_string()).unwrap();
    deep["read"]["clat"] = serde_json::json!({"count": 10, "min_ns": 1, "max_ns": 9, "mean_ns": 250000,
        "stdev_ns": 0.0, "sum_ns": 2500000, "percentiles_ns": {"50": 200000, "99": 900000}});
    let new = dir.path().join("new.json");
    std::fs::write(&new, deep.to_string()).unwrap();
    let o = Iomark::new()
        .args([
            "compare",
            new.to_str().unwrap(),
            old.to_str().unwrap(),
            "--format=json",
        ])
        .run();
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let get = |m: &str| rows.iter().find(|r| r["metric"] == m).unwrap()["values"].clone();
    // measured (clat) in A, Little's law in B (QD × threads / IOPS), p99 only where measured
    assert_eq!(get("mean µs")[0].as_f64(), Some(250.0));
    assert_eq!(get("p99 µs")[0].as_f64(), Some(900.0));
    assert!(get("p99 µs")[1].is_null());
    let iops = base["read"]["ops"].as_f64().unwrap() / base["period_s"].as_f64().unwrap();
    assert!((get("mean µs")[1].as_f64().unwrap() - 32.0 / iops * 1e6).abs() < 1e-6);
    let t = Iomark::new()
        .args(["compare", new.to_str().unwrap(), old.to_str().unwrap()])
        .run();
    assert!(t.stdout.contains("mean = QD x threads / IOPS"));
    let t = Iomark::new().args(["compare", new.to_str().unwrap()]).run();
    assert!(!t.stdout.contains("mean = QD x threads / IOPS"));
}

#[test]
fn compare_bad_input_is_one_line_exit_2() {
    for (file, msg) in [
        ("bad-not-json.json", "iomark compare: bad-not-json.json is not JSON: expected value at line 1 column 1\n"),
        ("bad-foreign-fio.json", "iomark compare: bad-foreign-fio.json: fio output without any completed I/O\n"),
        ("bad-newer-schema.json", "iomark compare: bad-newer-schema.json has schema_version 3; this iomark 0.1.0 reads up to 2 (use a newer iomark)\n"),
        ("bad-running.json", "iomark compare: bad-running.json is the placeholder of a run that never finished (status \"running\")\n"),
        ("missing.json", "iomark compare: cannot read missing.json: No such file or directory (ENOENT)\n"),
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
    let scratch = scratch();
    let out = scratch.path().join("compare-plot.svg");
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
    let dir = fixtures();
    let t = scratch();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a-vm-mark.json")).unwrap())
            .unwrap();
    v["status"] = "interrupted".into();
    std::fs::write(t.path().join("cut.json"), v.to_string()).unwrap();
    std::fs::copy(dir.join("a-vm-mark.json"), t.path().join("whole.json")).unwrap();
    let o = Iomark::new()
        .dir(t.path())
        .args(["compare", "whole.json", "cut.json"])
        .run();
    assert_eq!(o.code, 0);
    let out = o.stdout;
    // the column lines (each followed by its context line)
    let legend: Vec<&str> = out.lines().filter(|l| l.contains(" = ")).take(2).collect();
    assert!(!legend[0].contains("PARTIAL"), "{out}");
    assert!(
        legend[1]
            .contains("PARTIAL: the run interrupted; its figures cover only the part that ran"),
        "{out}"
    );
}

/// A result whose figures came from memory (the history's `from_memory`: here its
/// `page_cache.reads_from_memory` warning) carries the history's `[memory]` marker in
/// every format: the column's legend line (table, markdown) with the reason and the
/// legend sentence under the table, the csv header after its label, the json column's
/// `from_memory`; the other column is not marked.
#[test]
fn compare_marks_results_from_memory_in_every_format() {
    let dir = fixtures();
    let t = scratch();
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a-vm-mark.json")).unwrap())
            .unwrap();
    let w = serde_json::json!({"id": "page_cache.reads_from_memory", "message": "m"});
    v["warnings"].as_array_mut().unwrap().push(w);
    std::fs::write(t.path().join("mem.json"), v.to_string()).unwrap();
    std::fs::copy(dir.join("a-vm-mark.json"), t.path().join("disk.json")).unwrap();
    let run = |fmt: &str| {
        let o = Iomark::new()
            .dir(t.path())
            .args([
                "compare",
                "disk.json",
                "mem.json",
                &format!("--format={fmt}"),
            ])
            .run();
        assert_eq!(o.code, 0, "{}", o.dump());
        o.stdout
    };
    let mark = "[memory] (reads from the page cache)";
    for fmt in ["table", "markdown"] {
        // markdown: the text a reader sees (its escapes undone)
        let out = match fmt {
            "markdown" => md_plain(&run(fmt)),
            _ => run(fmt),
        };
        let legend: Vec<&str> = out.lines().filter(|l| l.contains(" = ")).take(2).collect();
        assert!(!legend[0].contains("[memory]"), "{out}");
        assert!(legend[1].contains(mark), "{out}");
        assert_eq!(
            out.matches("[memory]: the figures came from memory")
                .count(),
            1,
            "{out}"
        );
    }
    let csv = run("csv");
    let header = csv.lines().next().unwrap();
    assert_eq!(header.matches("[memory]").count(), 1, "{csv}");
    assert!(
        header.contains("mem [memory]") || header.contains("[memory],"),
        "{header}"
    );
    let j: Value = serde_json::from_str(&run("json")).unwrap();
    assert!(j["columns"][0].get("from_memory").is_none(), "{j}");
    assert_eq!(j["columns"][1]["from_memory"], "reads from the page cache");
}

/// A QD 1 fileio result against a mark: mark's RND4K Q1T1 read joins the fileio row
/// (same QD first), not RND4K Q32T1, which comes earlier in the preset.
#[test]
fn compare_pairs_the_same_qd_first() {
    let dir = fixtures();
    let o = Iomark::new()
        .dir(&dir)
        .args([
            "compare",
            "c-vm-fileio-rndrd-16k-buffered.json",
            "a-vm-mark.json",
        ])
        .run();
    assert_eq!(o.code, 0);
    let out = o.stdout;
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

/// Writes `src` (a fixture) into `dir` as `name` with every phase's bandwidth and IOPS
/// scaled by `k`: a repeated run of the same drive.
fn scaled_run(src: &str, dir: &std::path::Path, name: &str, k: f64) -> String {
    let text = std::fs::read_to_string(fixtures().join(src)).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    for p in v["phases"].as_array_mut().unwrap() {
        for f in ["mb_per_s", "mib_per_s", "ops_per_s"] {
            let x = p[f].as_f64().unwrap();
            p[f] = serde_json::json!(x * k);
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    path.display().to_string()
}

/// Three runs of drive A (×0.9, ×1, ×1.1) and two of drive B (the fixture B, i.e. A's
/// SEQ1M Q8T1 ×3, at ×1 and ×1.2): `--group` makes one column per drive.
fn two_drives(dir: &std::path::Path) -> [String; 2] {
    let a: Vec<String> = [("a1.json", 0.9), ("a2.json", 1.0), ("a3.json", 1.1)]
        .iter()
        .map(|(n, k)| scaled_run(ABC[0], dir, n, *k))
        .collect();
    let b: Vec<String> = [("b1.json", 1.0), ("b2.json", 1.2)]
        .iter()
        .map(|(n, k)| scaled_run(ABC[1], dir, n, *k))
        .collect();
    [
        format!("--group=vm={}", a.join(",")),
        format!("--group=pro={}", b.join(",")),
    ]
}

#[test]
fn compare_group_puts_repeated_runs_of_a_drive_in_one_column() {
    let t = scratch();
    let [ga, gb] = two_drives(t.path());
    let (code, out, err) = compare(&[&ga, &gb]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("A = vm (median of 3 runs: "), "{out}");
    assert!(out.contains("\nB = pro (median of 2 runs: "), "{out}");
    let header = out.lines().find(|l| l.starts_with("test ")).unwrap();
    let words: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(
        words[..8],
        ["test", "metric", "A", "A", "±", "B", "B", "±"],
        "{header}"
    );
    let row = out
        .lines()
        .find(|l| l.starts_with("SEQ1M Q8T1 read    MB/s"))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    // A: median 763 of 686/763/839, ±10%; B: median of 2288 and 2746 = 2517 (±9%), 3.30x
    assert_eq!(cells[4..], ["763", "±10%", "2517", "±9%", "3.30x"], "{row}");
    assert!(out.contains("ratios = column / first column. A column of several runs shows their median; ± is half their range, in % of the median.\n"), "{out}");
    // no "no such test" between two drives that ran the same tests
    assert!(!out.contains("no such test"), "{out}");
}

/// A group of one drive's different tests (its rndrd and a seqrd run: no test in
/// common) has one run per test: the legend says so, not "median of 2 runs".
#[test]
fn compare_group_of_different_tests_says_one_run_per_test() {
    let t = scratch();
    let copy = |name: &str, mode: &str| {
        let text = std::fs::read_to_string(fixtures().join(ABC[2])).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["job"]["test_mode"] = serde_json::json!(mode);
        let p = t.path().join(name);
        std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
        p.display().to_string()
    };
    let (rnd, seq) = (copy("rnd.json", "rndrd"), copy("seq.json", "seqrd"));
    let (code, out, err) = compare(&[&format!("--group=vm={rnd},{seq}")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("A = vm (2 runs, one per test: "), "{out}");
    assert!(!out.contains("median of"), "{out}");
    assert!(
        out.contains("\nRND16K Q1T1 read") && out.contains("\nSEQ16K Q1T1 read"),
        "{out}"
    );
    // two runs of the same test: the median legend stays
    let again = copy("rnd2.json", "rndrd");
    let (_, out2, _) = compare(&[&format!("--group=vm={rnd},{again}")]);
    assert!(out2.starts_with("A = vm (median of 2 runs: "), "{out2}");
}

#[test]
fn compare_group_baseline_markdown_csv_json() {
    let t = scratch();
    let [ga, gb] = two_drives(t.path());
    let (code, md, err) = compare(&[&ga, &gb, "--baseline=pro", "--format=markdown"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        md.contains("| test | metric | A | A ± | A/B | B | B ± | jobs differ |"),
        "{md}"
    );
    assert!(
        md.contains("| SEQ1M Q8T1 read | MB/s | 763 | ±10% | 0.30x | 2517 | ±9% |  |"),
        "{md}"
    );
    assert!(md.contains("- B = pro (median of 2 runs: "), "{md}");
    assert!(md.contains("the baseline of the ratios"), "{md}");
    assert!(md.contains("ratios = column / column B."), "{md}");
    let (_, csv, _) = compare(&[&ga, &gb, "--baseline=B", "--format=csv"]);
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "test,metric,vm,vm spread,vm / pro,pro,pro spread,jobs differ"
    );
    assert_eq!(
        lines.next().unwrap(),
        "SEQ1M Q8T1 read,MB/s,763,±10%,0.30x,2517,±9%,"
    );
    let (_, json, _) = compare(&[&ga, &gb, "--format=json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["columns"][0]["runs"], 3);
    let row = &v["rows"][0];
    let spread = row["spread"][0].as_array().unwrap();
    assert!((spread[0].as_f64().unwrap() - 686.43).abs() < 0.01, "{row}");
    assert!(
        (row["ratios"][1].as_f64().unwrap() - 3.30).abs() < 0.01,
        "{row}"
    );
    // a file given besides the groups is a column of its own
    let (_, mixed, _) = compare(&[&ga, ABC[2]]);
    assert!(
        mixed.contains(
            "\nB = serial overlayblk (c-vm-fileio-rndrd-16k-buffered.json, iomark fileio)"
        ),
        "{mixed}"
    );
    // bad --group / --baseline: one line naming the option, exit 2
    for (args, says) in [
        (vec!["--group=vm"], "LABEL=FILE,FILE"),
        (vec!["--group==a.json"], "non-empty label"),
        (
            vec![ga.as_str(), "--baseline=zz"],
            "--baseline=zz: no such column; the columns are A (vm)",
        ),
    ] {
        let (code, _, err) = compare(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// A fileio mix (rndrw) row's latency is its reads and writes together — fsync
/// excluded, as on the read and write rows — not the result's sysbench events (whose
/// mean a slow periodic fsync dominates); p99 needs every part's histogram.
#[test]
fn compare_mix_rows_exclude_fsync_like_read_and_write_rows() {
    let base: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join(ABC[2])).unwrap()).unwrap();
    let dir = scratch();
    let mut mix = base.clone();
    mix["job"]["test_mode"] = "rndrw".into();
    let hist = |v: u64| serde_json::json!({"sigfig": 3, "max_ns": 3_600_000_000_000u64, "buckets": [[v, 10]]});
    let lat = |v: u64| {
        serde_json::json!({"count": 10, "min_ns": v, "max_ns": v, "mean_ns": v,
        "stdev_ns": 0.0, "sum_ns": v * 10, "percentiles_ns": {"50": v, "99": v}, "histogram": hist(v)})
    };
    mix["read"]["ops"] = 10.into();
    mix["read"]["lat"] = lat(10_000);
    mix["write"]["ops"] = 10.into();
    mix["write"]["lat"] = lat(30_000);
    // the 21 sysbench events: 20 I/Os and one 100 ms fsync
    mix["lat"] = serde_json::json!({"count": 21, "min_ns": 10_000, "max_ns": 100_000_000,
        "mean_ns": 4_780_952, "stdev_ns": 0.0, "sum_ns": 100_400_000u64, "percentiles_ns": {"99": 100_000_000}});
    let with = dir.path().join("with-hist.json");
    std::fs::write(&with, mix.to_string()).unwrap();
    for side in ["read", "write"] {
        mix[side]["lat"]
            .as_object_mut()
            .unwrap()
            .remove("histogram");
    }
    let without = dir.path().join("schema1.json");
    std::fs::write(&without, mix.to_string()).unwrap();
    let o = Iomark::new()
        .args([
            "compare",
            with.to_str().unwrap(),
            without.to_str().unwrap(),
            "--format=json",
        ])
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let get = |m: &str| {
        rows.iter()
            .find(|r| r["test"].as_str().is_some_and(|t| t.ends_with(" mix")) && r["metric"] == m)
            .unwrap_or_else(|| panic!("no mix row for {m}: {}", o.stdout))["values"]
            .clone()
    };
    // (10 × 10 µs + 10 × 30 µs) / 20, not the events' 4,781 µs
    assert_eq!(get("mean µs")[0].as_f64(), Some(20.0));
    assert_eq!(get("mean µs")[1].as_f64(), Some(20.0));
    let p99 = get("p99 µs")[0].as_f64().unwrap();
    assert!(
        (p99 - 30.0).abs() <= 0.03,
        "p99 {p99} µs: the merged histogram's, not the fsync's 100 ms"
    );
    assert!(get("p99 µs")[1].is_null(), "no histograms, no merged p99");
    let t = Iomark::new()
        .args(["compare", with.to_str().unwrap()])
        .run();
    assert!(
        t.stdout.contains("per read or write (fsyncs excluded)"),
        "{}",
        t.stdout
    );
}
