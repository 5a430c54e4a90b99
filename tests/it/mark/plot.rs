//! `--plot DIR` charts: the SVGs are well-formed XML (parsed with roxmltree) and hold
//! the series of the result they were drawn from — one dot per sample per series per
//! panel, one line per series, legend and axis texts with units — for a hand-built
//! RunResult, a real `fileio` run and a real `mark` run at QD > 1 (whose per-I/O
//! completion latency is measured, not estimated). Bad `--plot` values: exit 2 / 3.

use crate::util::*;
use iomark::cli::output::write_plots;
use iomark::report::svg_plot::stem;
use iomark::result::{CurvePoint, LatencyCurve, RunResult, Sample, Series};
use serde_json::Value;
use std::path::Path;

const READ: &str = "#0072B2";
const WRITE: &str = "#D55E00";

/// What a chart holds: dots and lines per colour, and all its texts.
struct Svg {
    circles: Vec<String>,
    lines: Vec<(String, String)>,
    texts: Vec<String>,
}

fn parse(p: &Path) -> Svg {
    let text = std::fs::read_to_string(p).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let mut s = Svg {
        circles: vec![],
        lines: vec![],
        texts: vec![],
    };
    for n in doc.descendants() {
        match n.tag_name().name() {
            "circle" => s
                .circles
                .push(n.attribute("fill").unwrap_or("").to_string()),
            "polyline" => s.lines.push((
                n.attribute("stroke").unwrap_or("").to_string(),
                n.attribute("points").unwrap_or("").to_string(),
            )),
            "text" => s.texts.push(n.text().unwrap_or("").to_string()),
            _ => {}
        }
    }
    s
}

impl Svg {
    fn dots(&self, color: &str) -> usize {
        self.circles.iter().filter(|c| c.as_str() == color).count()
    }
    /// Series lines of a colour (legend swatches have exactly two points).
    fn series(&self, color: &str) -> Vec<usize> {
        self.lines
            .iter()
            .filter(|(c, _)| c == color)
            .map(|(_, p)| p.split_whitespace().count())
            .filter(|&n| n != 2)
            .collect()
    }
    fn has(&self, needle: &str) -> bool {
        self.texts.iter().any(|t| t.contains(needle))
    }
}

fn result_from_fixture() -> RunResult {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/compare/c-vm-fileio-rndrd-16k-buffered.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn hand_built_result_gives_both_charts_with_every_point() {
    let mut r = result_from_fixture();
    let samples: Vec<Sample> = (1..=7)
        .map(|i| Sample {
            t_s: i as f64 * 0.5,
            dur_s: 0.5,
            reads: 1000 * i,
            writes: if i % 2 == 0 { 10 } else { 0 },
            read_bytes: 4096 * 1000 * i,
            written_bytes: if i % 2 == 0 { 40960 } else { 0 },
            ..Sample::default()
        })
        .collect();
    let curve = |op: &str, base: u64| LatencyCurve {
        op: op.into(),
        measure: "completion".into(),
        points: [1.0, 50.0, 90.0, 99.0, 99.9, 100.0]
            .iter()
            .enumerate()
            .map(|(i, &p)| CurvePoint {
                percentile: p,
                ns: base << i,
            })
            .collect(),
    };
    r.series = Some(Series {
        period_s: 0.5,
        samples,
        latency_curves: vec![curve("read", 20_000), curve("write", 50_000)],
        ..Series::default()
    });
    let d = scratch();
    // the directory is created, but not missing parents (as --json)
    assert!(write_plots(&r, &d.path().join("new/plots")).is_err());
    assert!(!d.path().join("new").exists());
    let out = d.path().join("plots");
    let files = write_plots(&r, &out).unwrap();
    let s = stem(&r);
    assert_eq!(s, "fileio-rndrd-16k-q1t1");
    assert_eq!(
        files,
        vec![
            out.join(format!("{s}-throughput.svg")),
            out.join(format!("{s}-latency.svg"))
        ]
    );
    let t = parse(&files[0]);
    // two panels (bandwidth, IOPS) × 7 samples, for read and for write
    assert_eq!(t.dots(READ), 14);
    assert_eq!(t.dots(WRITE), 14);
    assert_eq!(t.series(READ), vec![7, 7]);
    assert_eq!(t.series(WRITE), vec![7, 7]);
    for needle in [
        "Throughput over time: fileio rndrd, 16.0 KiB blocks",
        "Bandwidth",
        "IOPS",
        "MB/s (1 MB = 1,000,000 B)",
        "I/O operations per second",
        "time since start, s",
        "read",
        "write",
    ] {
        assert!(
            t.has(needle),
            "throughput chart lacks {needle:?}: {:?}",
            t.texts
        );
    }
    let l = parse(&files[1]);
    // the 100th percentile (max) is in the legend, not on the nines axis
    assert_eq!(l.dots(READ), 5);
    assert_eq!(l.dots(WRITE), 5);
    assert_eq!(l.series(READ), vec![5]);
    for needle in [
        "latency, µs (log scale)",
        "percentile, % (nines scale",
        "99.9",
        "read: p50 40.0 µs, p99 160.0 µs, max 640.0 µs",
        "write: p50 100.0 µs",
        "submission to completion",
    ] {
        assert!(
            l.has(needle),
            "latency chart lacks {needle:?}: {:?}",
            l.texts
        );
    }
}

#[test]
fn result_without_series_falls_back_and_empty_result_is_an_error() {
    // c-… has `--report-interval` intervals and percentiles but no series
    let r = result_from_fixture();
    let d = scratch();
    let files = write_plots(&r, d.path());
    if r.intervals.is_empty() {
        let files = files.unwrap();
        assert_eq!(files.len(), 1, "latency only");
        let l = parse(&files[0]);
        let pcts = r.read.lat.percentiles_ns.len();
        assert_eq!(l.dots(READ), pcts);
    } else {
        let files = files.unwrap();
        assert_eq!(files.len(), 2);
        let t = parse(&files[0]);
        assert_eq!(t.dots(READ), r.intervals.len());
        assert!(t.has("IOPS not drawn"));
    }
    let mut empty = r.clone();
    empty.intervals.clear();
    empty.series = None;
    empty.read = Default::default();
    empty.write = Default::default();
    let e = write_plots(&empty, d.path()).unwrap_err();
    assert!(e.contains("nothing") || e.contains("no samples"), "{e}");
}

#[test]
fn fileio_plot_samples_while_running_without_changing_the_report() {
    let tmp = scratch();
    let base = tmp.path().to_path_buf();
    let common = [
        "fileio",
        "--file-num=1",
        "--file-total-size=4M",
        "--file-test-mode=rndrw",
    ];
    let Out {
        code: c, stderr: e, ..
    } = iomark(&base, &[&common[..], &["prepare"]].concat());
    assert_eq!(c, 0, "{e}");
    let Out {
        code: c,
        stdout: out,
        stderr: e,
        ..
    } = iomark(
        &base,
        &[
            &common[..],
            &[
                "--time=2",
                "--plot=charts",
                "--json=r.json",
                "--threads=2",
                "run",
            ],
        ]
        .concat(),
    );
    assert_eq!(c, 0, "{out}{e}");
    // the sysbench report is unchanged: no interval lines, the usual sections
    assert!(!out.contains("] thds:"), "{out}");
    assert!(out.contains("Throughput:") && out.contains("Threads fairness:"));
    assert!(out.contains("iomark: wrote charts/fileio-rndrw-16k-q1t2-throughput.svg"));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("r.json")).unwrap()).unwrap();
    assert!(v["intervals"].as_array().unwrap().is_empty());
    let samples = v["series"]["samples"].as_array().unwrap();
    assert_eq!(v["series"]["period_s"].as_f64(), Some(0.1));
    // one sample per 100 ms of the run (2 s, longer when the last fsync outlives the
    // time limit on a slow disk), the last at the run's end; they add up to its totals
    let elapsed = v["elapsed_s"].as_f64().unwrap();
    assert!(elapsed >= 2.0, "{elapsed}");
    let per_period = (elapsed / 0.1).round() as usize;
    assert!(
        (per_period - 2..=per_period + 1).contains(&samples.len()),
        "{} samples over {elapsed} s",
        samples.len()
    );
    let last_t = samples.last().unwrap()["t_s"].as_f64().unwrap();
    assert!(
        (last_t - elapsed).abs() < 0.1,
        "last sample at {last_t}, run {elapsed}"
    );
    let sum = |k: &str| samples.iter().map(|s| s[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("reads"), v["read"]["ops"].as_u64().unwrap());
    assert_eq!(sum("written_bytes"), v["write"]["bytes"].as_u64().unwrap());
    let t = parse(&base.join("charts/fileio-rndrw-16k-q1t2-throughput.svg"));
    assert_eq!(t.dots(READ), 2 * samples.len());
    assert_eq!(t.dots(WRITE), 2 * samples.len());
    let l = parse(&base.join("charts/fileio-rndrw-16k-q1t2-latency.svg"));
    assert_eq!(l.series(READ).len(), 1);
    assert_eq!(l.series(WRITE).len(), 1);
    // bad values: empty (exit 2), under a regular file (exit 3), nothing written
    let Out {
        code: c,
        stdout: out,
        ..
    } = iomark(
        &base,
        &[&common[..], &["--time=1", "--plot=", "run"]].concat(),
    );
    assert_eq!(c, 2);
    assert!(
        out.contains("Invalid value for --plot: a directory is expected (--plot=DIR)"),
        "{out}"
    );
    let Out {
        code: c,
        stdout: out,
        ..
    } = iomark(
        &base,
        &[&common[..], &["--time=1", "--plot=r.json/x", "run"]].concat(),
    );
    assert_eq!(c, 3);
    assert!(
        out.contains("FATAL: --plot=r.json/x: cannot create the directory"),
        "{out}"
    );
    // a missing parent is not created (as --json): nothing written outside the path given
    let Out {
        code: c,
        stdout: out,
        ..
    } = iomark(
        &base,
        &[
            &common[..],
            &["--time=1", "--plot=no-such-parent/charts", "run"],
        ]
        .concat(),
    );
    assert_eq!(c, 3, "{out}");
    assert!(
        out.contains("--plot=no-such-parent/charts: cannot create the directory"),
        "{out}"
    );
    assert!(!base.join("no-such-parent").exists());
}

#[test]
fn mark_at_qd8_measures_per_io_latency_and_plots_each_test() {
    let tmp = scratch();
    let base = tmp.path().to_path_buf();
    let json = base.join("m.json");
    let charts = base.join("charts");
    let Out {
        code: c,
        stdout: out,
        stderr: e,
        ..
    } = iomark(
        &base,
        &[
            "mark",
            base.to_str().unwrap(),
            "--preset=peak",
            "--size=16M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
            &format!("--json={}", json.display()),
            &format!("--plot={}", charts.display()),
        ],
    );
    assert_eq!(c, 0, "{out}{e}");
    assert!(!out.contains("Little"), "{out}");
    let row = out
        .lines()
        .find(|l| l.starts_with("SEQ1M Q8T1 read"))
        .unwrap();
    let cols: Vec<f64> = row["SEQ1M Q8T1 read".len()..]
        .split_whitespace()
        .map(|c| c.parse().unwrap_or_else(|_| panic!("{row}")))
        .collect();
    let (iops, mean_us, p99_us) = (cols[2], cols[3], cols[4]);
    // Little's law bounds a closed loop at depth 8: mean ≤ 8 / IOPS (plus slack for
    // rounding and the moments the queue is refilled); it cannot be far below it either
    let little_us = 8.0 / iops * 1e6;
    assert!(
        mean_us <= little_us * 1.1 && mean_us >= little_us * 0.3,
        "{row}: Little {little_us}"
    );
    assert!(p99_us >= mean_us * 0.9, "{row}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let p = &v["phases"][0];
    assert_eq!(p["name"], "SEQ1M Q8T1 read");
    assert!(p["lat"]["percentiles_ns"]["99"].as_u64().unwrap() > 0);
    assert!(p["notes"][2]
        .as_str()
        .unwrap()
        .contains("io_uring submission to reaped completion"));
    for name in [
        "fileio-seqrd-1m-q8t1",
        "fileio-rndrd-4k-q32t1",
        "fileio-seqrewr-1m-q8t1",
        "fileio-rndwr-4k-q32t1",
    ] {
        for kind in ["throughput", "latency"] {
            let f = charts.join(format!("{name}-{kind}.svg"));
            let s = parse(&f);
            assert!(!s.circles.is_empty(), "{}", f.display());
            assert!(
                out.contains(&format!("iomark mark: wrote {}", f.display())),
                "{out}"
            );
        }
    }
    let l = parse(&charts.join("fileio-seqrd-1m-q8t1-latency.svg"));
    assert!(l.has("submission to completion"));
    // only the JSON and the charts are left
    let mut left: Vec<_> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["charts", "m.json"]);
}

#[test]
fn run_plot_samples_add_up_to_the_result_and_both_charts_are_drawn() {
    let tmp = scratch();
    let base = tmp.path().to_path_buf();
    let Out {
        code: c,
        stdout: out,
        stderr: e,
        ..
    } = iomark(
        &base,
        &[
            "run",
            "--name=t",
            "--filename=f",
            "--size=16m",
            "--bs=4k",
            "--rw=randrw",
            "--runtime=1",
            "--time_based",
            "--plot=charts",
            "--json=r.json",
        ],
    );
    assert_eq!(c, 0, "{out}{e}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("r.json")).unwrap()).unwrap();
    let samples = v["series"]["samples"].as_array().unwrap();
    // 1/20 of the 1 s run, at least 100 ms (run/sampler.rs period_for)
    assert_eq!(v["series"]["period_s"].as_f64(), Some(0.1));
    assert!(samples.len() >= 3, "{}", samples.len());
    let sum = |k: &str| samples.iter().map(|s| s[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("reads"), v["read"]["ops"].as_u64().unwrap());
    assert_eq!(sum("writes"), v["write"]["ops"].as_u64().unwrap());
    assert_eq!(sum("read_bytes"), v["read"]["bytes"].as_u64().unwrap());
    let files: Vec<String> = std::fs::read_dir(base.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let tp = files
        .iter()
        .find(|f| f.ends_with("-throughput.svg"))
        .expect("throughput chart");
    let lat = files
        .iter()
        .find(|f| f.ends_with("-latency.svg"))
        .expect("latency chart");
    assert!(e.contains(&format!("iomark: wrote charts/{tp}")), "{e}");
    let t = parse(&base.join("charts").join(tp));
    assert_eq!(t.dots(READ), 2 * samples.len());
    assert_eq!(t.dots(WRITE), 2 * samples.len());
    let l = parse(&base.join("charts").join(lat));
    assert_eq!(l.series(READ).len(), 1);
    assert_eq!(l.series(WRITE).len(), 1);
    let Out {
        code: c, stderr: e, ..
    } = iomark(
        &base,
        &["run", "--name=t", "--filename=f", "--size=1m", "--plot="],
    );
    assert_eq!(c, 2);
    assert!(e.contains("--plot needs a directory"), "{e}");
}
