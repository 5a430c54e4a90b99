//! The results history (docs/commands/history.md): completed runs kept one file each,
//! listed with their devices, `compare --baseline=last` against the previous run of the
//! same device and test, the regression finding, concurrent runs, damaged files, the
//! switches that keep nothing, and older schema versions. Every command here gets a
//! results directory of its own (`IOMARK_RESULTS`).

use crate::util::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A short fileio random-read run in `dir`, kept in `results`.
fn fileio_in(results: &Path, dir: &Path, extra: &[&str]) -> Out {
    let d = format!("--file-dir={}", dir.display());
    Iomark::new()
        .env_remove("IOMARK_HISTORY")
        .env("IOMARK_RESULTS", results)
        .arg("fileio")
        .args([
            d.as_str(),
            "--file-total-size=4M",
            "--file-num=2",
            "--file-test-mode=rndrd",
            "--time=0",
            "--events=400",
        ])
        .args(extra)
        .args(["prepare", "run", "cleanup"])
        .run()
}

/// `iomark ARGS` with the history in `results`.
fn with_history(results: &Path, args: &[&str]) -> Out {
    Iomark::new()
        .env_remove("IOMARK_HISTORY")
        .env("IOMARK_RESULTS", results)
        .args(args)
        .run()
}

/// The history's list as JSON.
fn listed(results: &Path) -> Vec<Value> {
    let o = with_history(results, &["history", "--format=json"]).ok();
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    v.as_array().unwrap().clone()
}

/// The kept files of `results`, in name order.
fn kept(results: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(results)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// A scratch directory on tmpfs (/dev/shm), the second device of these tests.
fn shm_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("iomark-it-")
        .tempdir_in("/dev/shm")
        .expect("/dev/shm")
}

/// Three runs on two devices (tmpfs, the build's disk): the list names 3 runs and their
/// devices; `compare --baseline=last` puts the previous run of the newest run's device
/// and test first, not the newer run of the other device.
#[test]
fn three_runs_on_two_devices_and_the_previous_run_of_the_same_device() {
    let (res, disk, shm) = (scratch(), scratch(), shm_dir());
    let results = res.path().join("results");
    let first = fileio_in(&results, shm.path(), &[]).ok();
    assert!(
        first
            .stderr
            .lines()
            .last()
            .unwrap_or("")
            .contains("result kept in the history as"),
        "the run's last line says where it was kept: {}",
        first.dump()
    );
    fileio_in(&results, disk.path(), &[]).ok();
    fileio_in(&results, shm.path(), &[]).ok();
    let runs = listed(&results);
    assert_eq!(runs.len(), 3, "{runs:?}");
    let fs: Vec<&str> = runs
        .iter()
        .map(|r| r["device"]["filesystem"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(fs[0], "tmpfs");
    assert_ne!(fs[1], "tmpfs", "the build's disk: {fs:?}");
    assert_eq!(fs[2], "tmpfs");
    let keys: Vec<&str> = runs
        .iter()
        .map(|r| r["device"]["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys[0], keys[2]);
    assert_ne!(keys[0], keys[1]);
    for r in &runs {
        assert_eq!(r["tests"][0], "RND16K Q1T1 read", "{r}");
    }
    let table = with_history(&results, &["history"]).ok();
    assert_eq!(
        table.lines().len(),
        5,
        "3 runs, the memory legend and the count: {}",
        table.stdout
    );
    // the tmpfs runs' figures came from memory: marked, with the legend under the list,
    // as the JSON's from_memory says
    let lines: Vec<&str> = table.stdout.lines().collect();
    for i in [0, 2] {
        assert_eq!(runs[i]["from_memory"], "files in tmpfs", "{}", runs[i]);
        assert!(
            lines[i].ends_with("  [memory] (files in tmpfs)"),
            "{}",
            table.stdout
        );
    }
    assert!(
        lines[3].starts_with("[memory]: the figures came from memory"),
        "{}",
        table.stdout
    );
    assert!(
        table.stdout.contains("3 run(s) kept in"),
        "{}",
        table.stdout
    );
    let name = |i: usize| runs[i]["name"].as_str().unwrap().to_string();
    let filtered = with_history(&results, &["history", "--device=tmpfs"]).ok();
    assert!(
        filtered.stdout.contains("2 of 3 run(s)"),
        "{}",
        filtered.stdout
    );
    // compare --baseline=last: the newest run against the first (same device and test)
    let c = with_history(&results, &["compare", "--baseline=last", "--format=json"]).ok();
    let v: Value = serde_json::from_str(&c.stdout).unwrap();
    let files: Vec<&str> = v["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        // `history:last` is named by the run it picked (its own ID)
        vec![
            format!("history:{}", name(0)),
            format!("history:{}", name(2))
        ],
        "{}",
        c.stdout
    );
    // and given as a file: the same choice
    let f = results.join(format!("{}.json", name(2)));
    let c = with_history(
        &results,
        &[
            "compare",
            "--baseline=last",
            f.to_str().unwrap(),
            "--format=json",
        ],
    )
    .ok();
    let v: Value = serde_json::from_str(&c.stdout).unwrap();
    assert_eq!(v["columns"][0]["file"], format!("history:{}", name(0)));
    // history:ID names a run; show and rm
    let show = with_history(&results, &["history", "show", &name(1)]).ok();
    assert!(show.stdout.contains("RND16K Q1T1 read"), "{}", show.stdout);
    assert!(show.stdout.contains("machine   host"), "{}", show.stdout);
    // each warning once (the disk run's file set fits in RAM)
    assert_eq!(
        show.stdout.matches("page_cache.fits_in_ram").count(),
        1,
        "{}",
        show.stdout
    );
    with_history(&results, &["history", "rm", &name(1)]).ok();
    assert_eq!(listed(&results).len(), 2);
}

/// `--baseline=last` finds the regression: a planted run a third as fast as the
/// earlier runs of its device and test raises `history.regression`; one 1 % slower, within
/// their spread, does not. `iomark report` of the kept run says the same under "Against
/// the earlier kept runs" (markdown and HTML); of a result file, nothing.
#[test]
fn a_planted_slower_run_is_a_regression_and_one_within_the_spread_is_not() {
    let (res, shm) = (scratch(), shm_dir());
    let results = res.path().join("results");
    fileio_in(&results, shm.path(), &[]).ok();
    let real = kept(&results).pop().unwrap();
    let base: Value = read_json(&real);
    let plant = |name: &str, dt_ms: u64, period_factor: f64| {
        let mut v = base.clone();
        v["timestamp_ms"] = (base["timestamp_ms"].as_u64().unwrap() + dt_ms).into();
        v["period_s"] = (base["period_s"].as_f64().unwrap() * period_factor).into();
        let p = results.join(format!("{name}.json"));
        std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
        p
    };
    plant("20990101-000001-fileio-1", 1000, 0.98);
    let slow = plant("20990101-000002-fileio-2", 2000, 3.0);
    let c = with_history(&results, &["compare", "--baseline=last"]).ok();
    assert!(
        c.stdout
            .contains("history.regression: RND16K Q1T1 read MB/s"),
        "{}",
        c.stdout
    );
    assert!(
        c.stdout.contains("below the 2 earlier runs"),
        "{}",
        c.stdout
    );
    let j = with_history(&results, &["compare", "--baseline=last", "--format=json"]).ok();
    let v: Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["history"][0]["id"], "history.regression");
    let against =
        "### Against the earlier kept runs\n\n- history.regression: RND16K Q1T1 read MB/s";
    let md = with_history(&results, &["report", "history:last", "--format=markdown"]).ok();
    assert!(md.stdout.contains(against), "{}", md.stdout);
    let html = with_history(&results, &["report", "history:last", "--format=html"]).ok();
    assert!(
        html.stdout
            .contains("<li>history.regression: RND16K Q1T1 read MB/s"),
        "{}",
        html.stdout
    );
    let file = with_history(
        &results,
        &["report", slow.to_str().unwrap(), "--format=markdown"],
    )
    .ok();
    assert!(
        !file.stdout.contains("Against the earlier"),
        "{}",
        file.stdout
    );
    std::fs::remove_file(slow).unwrap();
    plant("20990101-000003-fileio-3", 3000, 1.01);
    let c = with_history(&results, &["compare", "--baseline=last"]).ok();
    assert!(!c.stdout.contains("history.regression"), "{}", c.stdout);
    let show = with_history(&results, &["history", "show", "last"]).ok();
    assert!(
        show.stdout
            .contains("no regression against the 2 earlier run(s)"),
        "{}",
        show.stdout
    );
    let md = with_history(&results, &["report", "history:last", "--format=markdown"]).ok();
    assert!(
        md.stdout
            .contains("- no regression against the 2 earlier run(s) of this device and test"),
        "{}",
        md.stdout
    );
}

/// Two runs at once both land, each a complete result under its own name.
#[test]
fn two_concurrent_runs_both_land() {
    let (res, a, b) = (scratch(), scratch(), scratch());
    let results = res.path().join("results");
    let spawn = |dir: &Path| {
        let d = format!("--file-dir={}", dir.display());
        Iomark::new()
            .env_remove("IOMARK_HISTORY")
            .env("IOMARK_RESULTS", &results)
            .args([
                "fileio",
                &d,
                "--file-total-size=4M",
                "--file-test-mode=rndrd",
            ])
            .args(["--time=0", "--events=2000", "prepare", "run", "cleanup"])
            .spawn()
    };
    let (ca, cb) = (spawn(a.path()), spawn(b.path()));
    finish(ca).ok();
    finish(cb).ok();
    let files = kept(&results);
    assert_eq!(files.len(), 2, "{files:?}");
    for f in &files {
        assert_eq!(read_json(f)["status"], "ok", "{}", f.display());
    }
    let o = with_history(&results, &["history"]).ok();
    assert!(o.stderr.is_empty(), "{}", o.stderr);
}

/// A truncated file is skipped with one warning naming it; the others are listed.
#[test]
fn a_truncated_file_is_skipped_with_one_warning() {
    let (res, dir) = (scratch(), scratch());
    let results = res.path().join("results");
    fileio_in(&results, dir.path(), &[]).ok();
    let good = kept(&results).pop().unwrap();
    let text = std::fs::read(&good).unwrap();
    let bad = results.join("20990101-000000-fileio-9.json");
    std::fs::write(&bad, &text[..text.len() / 2]).unwrap();
    let o = with_history(&results, &["history"]).ok();
    let warned: Vec<&str> = o.stderr.lines().filter(|l| l.contains("WARNING")).collect();
    assert_eq!(warned.len(), 1, "{}", o.stderr);
    assert!(warned[0].contains(bad.to_str().unwrap()), "{}", warned[0]);
    assert!(o.stdout.contains("1 run(s) kept"), "{}", o.stdout);
    // compare reads the history more than once: still one warning
    let c = with_history(
        &results,
        &["compare", "--baseline=history:last", good.to_str().unwrap()],
    )
    .ok();
    assert_eq!(c.stderr.matches("WARNING").count(), 1, "{}", c.stderr);
}

/// `--no-history` on every command that keeps results (fileio: also sysbench's switch
/// form `--history=off`), `IOMARK_HISTORY=off`: nothing kept.
#[test]
fn no_history_keeps_nothing() {
    let (res, dir) = (scratch(), scratch());
    let results = res.path().join("results");
    let o = fileio_in(&results, dir.path(), &["--history=off"]).ok();
    assert!(!o.stderr.contains("kept in the history"), "{}", o.stderr);
    let job = ["--name=j", "--ioengine=null", "--rw=randread", "--size=1m"];
    with_history(&results, &[&["run", "--no-history"][..], &job].concat()).ok();
    Iomark::new()
        .env("IOMARK_RESULTS", &results)
        .env("IOMARK_HISTORY", "off")
        .arg("run")
        .args(job)
        .run()
        .ok();
    let d = dir.path().to_str().unwrap();
    // every command that keeps results, with the switch it documents
    let small_mark = ["--size=2M", "--time=1", "--loops=1", "--warmup=0"];
    let sustained = ["--preset=sustained", "--size=4M", "--time=5"];
    let commands: Vec<Vec<&str>> = vec![
        vec!["copy", d, "--size=1M", "--no-history"],
        // (the system's caches left alone: other tests' page-cache checks run beside it)
        vec!["tree", d, "--files=8", "--drop-caches=off", "--no-history"],
        [&["mark", d, "--no-history"][..], &small_mark].concat(),
        [&["mark", d, "--no-history"][..], &sustained].concat(),
        vec!["time", "--no-history", "--", "true"],
    ];
    for args in &commands {
        with_history(&results, args).ok();
        assert!(!results.exists(), "{args:?} kept {:?}", kept(&results));
    }
    let o = fileio_in(&results, dir.path(), &["--no-history"]).ok();
    assert!(!o.stderr.contains("kept in the history"), "{}", o.stderr);
    assert!(!results.exists(), "{:?}", kept(&results));
    // and on: the null-engine run is kept
    with_history(&results, &[&["run"][..], &job].concat()).ok();
    assert_eq!(kept(&results).len(), 1);
}

/// A schema-1 result (no machine, no device, no time) and a schema-2 one are read.
#[test]
fn schema_1_and_schema_2_results_are_read() {
    let (res, dir) = (scratch(), scratch());
    let results = res.path().join("results");
    fileio_in(&results, dir.path(), &[]).ok();
    let old = fixture("compare/c-vm-fileio-rndrd-16k-buffered.json");
    assert_eq!(read_json(&old)["schema_version"], 1);
    std::fs::copy(&old, results.join("old-schema-1.json")).unwrap();
    let runs = listed(&results);
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0]["name"], "old-schema-1", "no time: listed first");
    let o = with_history(&results, &["history"]).ok();
    assert!(o.stderr.is_empty(), "{}", o.stderr);
    assert!(o.stdout.contains("date unknown"), "{}", o.stdout);
    with_history(&results, &["history", "show", "old"]).ok();
}

/// `iomark report --format=openmetrics` of a kept run and a file passes both of
/// prometheus_client's parsers (Prometheus text and OpenMetrics), with bandwidth, IOPS,
/// latency and the warnings as labelled gauges; a run name with quotes stays a label value;
/// a file given twice keeps both samples (`run` label ` (2)`). The latency summary of a
/// fileio mix (reads, writes, fsyncs) holds, per op, the result's 50th, 90th, 99th and
/// 99.9th percentiles as quantiles 0.5 … 0.999, and its event count and latency sum.
#[test]
fn openmetrics_output_passes_prometheus_client_parsers() {
    let (res, shm) = (scratch(), shm_dir());
    let results = res.path().join("results");
    fileio_in(&results, shm.path(), &["--file-test-mode=rndrw"]).ok();
    let odd = res.path().join("a \"quoted\" run.json");
    std::fs::copy(kept(&results).pop().unwrap(), &odd).unwrap();
    let prom = res.path().join("iomark.prom");
    with_history(
        &results,
        &[
            "report",
            "history:last",
            odd.to_str().unwrap(),
            odd.to_str().unwrap(),
            "--format=openmetrics",
            "-o",
            prom.to_str().unwrap(),
        ],
    )
    .ok();
    let script = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families as prom
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
text = open(sys.argv[1]).read()
for parse in (prom, om):
    fams = {f.name: f for f in parse(text)}
    for name in ("iomark_bandwidth_bytes_per_second", "iomark_iops", "iomark_latency_mean_seconds",
                 "iomark_latency_percentile_seconds", "iomark_warning"):
        assert name in fams, (name, sorted(fams))
        assert fams[name].type == "gauge", fams[name].type
    bw = fams["iomark_bandwidth_bytes_per_second"].samples
    # the file given twice: its samples kept, told apart by their run label (none lost);
    # three tests a run (the mix, its reads, its writes)
    assert len(bw) == 9 and all(s.value > 0 for s in bw), bw
    assert len({s.labels["run"] for s in bw}) == 3, bw
    # the latency summary: each op's percentiles, count and sum as the result has them
    assert fams["iomark_latency_seconds"].type == "summary", fams["iomark_latency_seconds"].type
    r = json.load(open(sys.argv[2]))
    lats = {"read": r["read"].get("clat") or r["read"]["lat"],
            "write": r["write"].get("clat") or r["write"]["lat"], "fsync": r["fsync"]["lat"]}
    got = {}
    for s in fams["iomark_latency_seconds"].samples:
        key = (s.labels["run"], s.labels["op"], s.name[len("iomark_latency_seconds"):],
               s.labels.get("quantile"))
        assert key not in got, key
        got[key] = s.value
    want = {}
    for run in {s.labels["run"] for s in bw}:
        for op, l in lats.items():
            assert l["count"] > 0 and l["percentiles_ns"], (op, l)
            for q, p in (("0.5", "50"), ("0.9", "90"), ("0.99", "99"), ("0.999", "99.9")):
                want[(run, op, "", q)] = l["percentiles_ns"][p] / 1e9
            want[(run, op, "_sum", None)] = l["sum_ns"] / 1e9
            want[(run, op, "_count", None)] = l["count"]
    assert got == want, (got, want)
    assert any('"quoted"' in s.labels["run"] for s in bw), bw
    ids = {s.labels["id"] for s in fams["iomark_warning"].samples}
    assert "target.memory_fs" in ids, ids
print("parsed")
"#;
    let o = Iomark::program("python3")
        .args(["-c", script, prom.to_str().unwrap(), odd.to_str().unwrap()])
        .run();
    assert_eq!(
        o.code,
        0,
        "prometheus_client (tests/run.sh installs it): {}",
        o.dump()
    );
    assert!(o.stdout.contains("parsed"), "{}", o.dump());
}

/// compare names a kept run's column by its own ID (`history:last` → `history:NAME`),
/// with its context (host, kernel, date, command), and a fileio mix keeps its read and
/// write rows apart.
#[test]
fn compare_names_kept_runs_by_their_id_with_their_context() {
    let (res, shm) = (scratch(), shm_dir());
    let results = res.path().join("results");
    fileio_in(&results, shm.path(), &["--file-test-mode=rndrw"]).ok();
    let name = listed(&results)[0]["name"].as_str().unwrap().to_string();
    let o = with_history(&results, &["compare", "history:last", "history:last"]).ok();
    assert!(
        o.stdout.contains(&format!("(history:{name}")),
        "{}",
        o.dump()
    );
    assert!(!o.stdout.contains("history:last"), "{}", o.dump());
    assert!(
        o.stdout.contains("host ") && o.stdout.contains(" UTC"),
        "{}",
        o.dump()
    );
    assert!(o.stdout.contains("iomark fileio "), "{}", o.dump());
    assert!(
        o.stdout.contains(" mix read") && o.stdout.contains(" mix write"),
        "{}",
        o.dump()
    );
}
