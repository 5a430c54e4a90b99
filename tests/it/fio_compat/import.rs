//! Public case C25 through the binary: `iomark compare` lines up a fio JSON report and
//! a fio text report of the same run and labels the producer. The importer itself
//! (units, percentiles, foreign input): src/result/import/fixtures.rs.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

#[test]
fn c25_compare_lines_up_fio_json_fio_text_and_labels_the_producer() {
    let o = Iomark::new()
        .dir(fixture("fio"))
        .args(["compare", "seqread-psync.json", "seqread-psync.txt"])
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out = o.stdout;
    assert!(
        out.contains("(seqread-psync.json, fio-3.33 report)"),
        "{out}"
    );
    // same stem: the labels are told apart by the file names, never shown twice
    assert!(out.contains("A = seqread-psync.json ("), "{out}");
    assert!(out.contains("B = seqread-psync.txt ("), "{out}");
    // one row, both columns: 8 MiB / 7 ms = 1198 MB/s (JSON), 8 MiB / 9 ms = 932 MB/s (text)
    let row = out
        .lines()
        .find(|l| l.starts_with("SEQ64K Q1T1 read  MB/s"))
        .unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[4..7], ["1198", "932", "0.78x"], "{row}");
    let lat = out.lines().find(|l| l.contains("read  mean µs")).unwrap();
    assert!(lat.contains("48.6") && lat.contains("57.0"), "{lat}");
    // fio's text report does not record `direct`: never called "buffered" (a false
    // difference), said to be unknown instead
    assert!(
        row.contains("B: O_DIRECT unknown (fio text output does not say) (A: buffered)"),
        "{row}"
    );
    assert!(!out.contains("B: buffered"), "{out}");
}

/// An imported fio JSON report of a job that fsyncs shows compare's fsync rows, read
/// from fio's `sync` section, as an iomark run of the same job does beside it.
#[test]
fn compare_shows_the_fsync_rows_of_an_imported_fio_report() {
    let t = scratch();
    let ours = t.path().join("ours.json");
    let o = Iomark::new()
        .dir(t.path())
        .args([
            "run",
            "--name=fsync1",
            "--filename=F",
            "--size=256k",
            "--bs=4k",
            "--rw=write",
            "--fsync=1",
        ])
        .arg(format!("--json={}", ours.display()))
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let fixture = fixture("fio").join("write-fsync1.json");
    let o = Iomark::new()
        .dir(t.path())
        .arg("compare")
        .arg(&fixture)
        .arg(&ours)
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out = o.stdout;
    let row = |m: &str| {
        out.lines()
            .find(|l| l.contains(m))
            .unwrap_or_else(|| panic!("no {m} row:\n{out}"))
            .to_string()
    };
    let nums = |m: &str| -> Vec<f64> {
        row(m)
            .split_whitespace()
            .filter_map(|c| c.parse().ok())
            .collect()
    };
    // column A, fio's: its 63 fsyncs' p99 (15663104 ns) and mean (7330723.9 ns), and
    // their share of its job_runtime (63 × 7.33 ms of 463 ms); column B, iomark's own
    let p99 = nums("fsync p99 µs");
    assert_eq!(p99.first(), Some(&15663.0), "{out}");
    assert_eq!(p99.len(), 2, "{out}");
    let mean = nums("fsync mean µs");
    assert_eq!(mean.first(), Some(&7331.0), "{out}");
    let time = nums("time in fsync %");
    assert_eq!(time.len(), 2, "{out}");
    assert!((time[0] - 99.7).abs() < 0.05, "{out}");
}

/// fio 3.33 run once in `dir` with `--output-format=normal,json` and `args`: its text
/// report (`NAME.txt`: the lines around the JSON document) and its JSON document
/// (`NAME.json`) written apart, and that document.
fn fio_both(dir: &Path, name: &str, args: &[&str]) -> Value {
    assert!(
        have_fio(),
        "fio 3.33 (/usr/bin/fio) is required (bash tests/run.sh installs it)"
    );
    let o = fio_cmd()
        .dir(dir)
        .arg("--output-format=normal,json")
        .args(args)
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    let open = lines
        .iter()
        .position(|l| *l == "{")
        .expect("a JSON document");
    let close = open + lines[open..].iter().position(|l| *l == "}").unwrap();
    let json = lines[open..=close].join("\n");
    let text = [&lines[..open], &lines[close + 1..]].concat().join("\n");
    std::fs::write(dir.join(format!("{name}.json")), &json).unwrap();
    std::fs::write(dir.join(format!("{name}.txt")), text + "\n").unwrap();
    serde_json::from_str(&json).unwrap()
}

/// The fsync rows of every job of one fio run, imported from its JSON document (column
/// A) and from its text report (column B), against fio's own figures of each job: the
/// calls' mean and p99 from the JSON's `sync.lat_ns` (the text's are the same figures
/// in µs, rounded), and their share of the job's time (`job_runtime`; the text, which
/// has no run time of the job, reads its longest direction's times its threads).
fn check_fsync_rows(dir: &Path, name: &str, v: &Value) {
    let rows = compare_rows(dir, &[&format!("{name}.json"), &format!("{name}.txt")]);
    let jobs = v["jobs"].as_array().unwrap();
    let several = jobs.len() > 1;
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for j in jobs {
        let jname = j["jobname"].as_str().unwrap();
        let nth = seen.entry(jname.to_string()).or_default();
        let tag = match (several, *nth) {
            (false, _) => String::new(),
            (true, 0) => format!("(job {jname})"),
            (true, k) => format!("(job {jname} #{})", k + 1),
        };
        *nth += 1;
        let sync = &j["sync"]["lat_ns"];
        let n = sync["N"].as_u64().unwrap();
        assert!(n > 0, "fio recorded the job's syncs: {j}");
        let cell = |metric: &str| -> Vec<Option<f64>> {
            rows.iter()
                .find(|(t, m, _)| t.ends_with(&tag) && m == metric)
                .unwrap_or_else(|| panic!("no {metric} row of {tag:?}: {rows:?}"))
                .2
                .clone()
        };
        let mean_us = sync["mean"].as_f64().unwrap() / 1e3;
        let p99_us = sync["percentile"]["99.000000"].as_u64().unwrap() as f64 / 1e3;
        let (mean, p99) = (cell("fsync mean µs"), cell("fsync p99 µs"));
        for (col, got) in [("JSON", 0), ("text", 1)] {
            let m = mean[got].unwrap_or_else(|| panic!("{col} {tag}: no fsync mean"));
            let p = p99[got].unwrap_or_else(|| panic!("{col} {tag}: no fsync p99"));
            // the compare table keeps 3 significant figures; the text report µs
            assert!(
                (m - mean_us).abs() <= mean_us * 0.01 + 1.0,
                "{col} {tag}: mean {m} vs fio {mean_us}"
            );
            assert!(
                (p - p99_us).abs() <= p99_us * 0.01 + 1.0,
                "{col} {tag}: p99 {p} vs fio {p99_us}"
            );
        }
        let runtime_ns = j["job_runtime"].as_f64().unwrap() * 1e6;
        let pct = sync["mean"].as_f64().unwrap() * n as f64 * 100.0 / runtime_ns;
        let time = cell("time in fsync %");
        let json_pct = time[0].expect("JSON: time in fsync");
        assert!(
            (json_pct - pct).abs() <= pct * 0.01 + 0.1,
            "JSON {tag}: {json_pct} vs {pct}"
        );
        let text_pct = time[1].expect("text: time in fsync");
        assert!(
            text_pct > 0.0 && text_pct <= 100.0,
            "text {tag}: {text_pct}"
        );
    }
}

/// Several jobs of one fio run (`fsync=4` and `fdatasync=2`, whose calls fio 3.33
/// counts outside `sync.total_ios`), each its own fsync rows, from the JSON document and
/// from the text report (`fsync/fdatasync/sync_file_range:` block) alike.
#[test]
fn several_jobs_fsync_rows_from_fio_json_and_text() {
    let t = scratch();
    let v = fio_both(
        t.path(),
        "two",
        &[
            "--name=a",
            "--rw=write",
            "--size=1m",
            "--fsync=4",
            "--filename=fa",
            "--name=b",
            "--rw=write",
            "--bs=8k",
            "--size=1m",
            "--fdatasync=2",
            "--filename=fb",
        ],
    );
    check_fsync_rows(t.path(), "two", &v);
}

/// `numjobs=2`: with `group_reporting` one reported job (its threads' syncs merged by
/// fio), without it two jobs of one name, told apart by their order.
#[test]
fn numjobs_fsync_rows_with_and_without_group_reporting() {
    let t = scratch();
    let base = [
        "--name=g",
        "--rw=write",
        "--size=512k",
        "--fsync=2",
        "--numjobs=2",
    ];
    let v = fio_both(
        t.path(),
        "grouped",
        &[&base[..], &["--group_reporting"]].concat(),
    );
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    check_fsync_rows(t.path(), "grouped", &v);
    let v = fio_both(t.path(), "apart", &base);
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2);
    check_fsync_rows(t.path(), "apart", &v);
    // each clone is one thread in both forms: the JSON's numjobs=2 is over its two
    // entries, so compare finds no difference of threads between JSON and text
    for pair in [["apart.json", "apart.txt"], ["grouped.json", "grouped.txt"]] {
        let o = Iomark::new().dir(t.path()).arg("compare").args(pair).run();
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(
            !o.stdout.trim().is_empty()
                && !o.stdout.contains(" thread (A:")
                && !o.stdout.contains(" threads (A:"),
            "{pair:?}: {}",
            o.stdout
        );
    }
}

/// The value of each sample of `text` (OpenMetrics) named `name` whose labels hold every
/// `k="v"` of `with`, by the sample's other labels in order (`(op, quantile)` …).
fn samples(text: &str, name: &str, with: &[&str]) -> Vec<(String, f64)> {
    text.lines()
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            let labels = series.strip_prefix(name)?.strip_prefix('{')?;
            with.iter().all(|w| labels.contains(w)).then(|| {
                (
                    labels.trim_end_matches('}').to_string(),
                    value.parse().unwrap(),
                )
            })
        })
        .collect()
}

/// fio 3.33's JSON report (`fio.json` in `dir`, also its document) of a 2 MiB 4 KiB
/// psync randrw job named `name`, with fio's default percentiles (clat only).
fn fio_randrw_json(dir: &Path, name: &str) -> Value {
    let o = fio_cmd()
        .dir(dir)
        .args([
            &format!("--name={name}"),
            "--filename=F",
            "--size=2m",
            "--bs=4k",
        ])
        .args(["--rw=randrw", "--ioengine=psync", "--output-format=json"])
        .arg("--output=fio.json")
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    read_json(&dir.join("fio.json"))
}

/// `iomark report --format=openmetrics` of a JSON report fio 3.33 writes in the test (a
/// random read/write job: both directions): the run's summary `iomark_latency_seconds`
/// of each op and each job direction's own `iomark_test_latency_seconds` hold fio's
/// completion latency — the quantiles 0.5, 0.9, 0.99, 0.999 equal to fio's `clat_ns`
/// percentiles 50, 90, 99, 99.9 in seconds, `_count` its `total_ios` (= `clat_ns.N`),
/// `_sum` its clat mean × `total_ios` in seconds.
#[test]
fn openmetrics_of_a_fio_json_report_has_fios_quantiles() {
    if !need_fio("openmetrics_of_a_fio_json_report_has_fios_quantiles") {
        return;
    }
    let t = scratch();
    let v = fio_randrw_json(t.path(), "omq");
    let o = Iomark::new()
        .dir(t.path())
        .args(["report", "fio.json", "--format=openmetrics", "-o", "-"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let om = o.stdout;
    for dir in ["read", "write"] {
        let d = &v["jobs"][0][dir];
        let clat = &d["clat_ns"];
        let ios = d["total_ios"].as_u64().unwrap();
        assert!(ios > 0, "{d}");
        assert_eq!(clat["N"].as_u64(), Some(ios), "{d}");
        let op = format!("op=\"{dir}\"");
        // each job direction's own test: its label ends with the direction
        let tests: Vec<(String, f64)> = samples(&om, "iomark_test_latency_seconds_count", &[])
            .into_iter()
            .filter(|(l, _)| l.contains(&format!(" {dir}\"")))
            .collect();
        assert_eq!(tests.len(), 1, "one test of the job's {dir}s: {om}");
        let test = tests[0].0.split(",test=").nth(1).unwrap().to_string();
        let test = format!("test={test}");
        for (family, label) in [
            ("iomark_latency_seconds", &op),
            ("iomark_test_latency_seconds", &test),
        ] {
            for (q, p) in [
                ("0.5", "50"),
                ("0.9", "90"),
                ("0.99", "99"),
                ("0.999", "99.9"),
            ] {
                let key = format!("{:.6}", p.parse::<f64>().unwrap());
                let ns = clat["percentile"][&key].as_u64().unwrap();
                let quantile = format!("quantile=\"{q}\"");
                let got = samples(&om, family, &[label, &quantile]);
                assert_eq!(got.len(), 1, "{family} {label} {q}: {om}");
                let want = ns as f64 / 1e9;
                assert!(
                    (got[0].1 - want).abs() <= want * 1e-12,
                    "{family} {label} {q}: {} s, fio's p{p} {ns} ns",
                    got[0].1
                );
            }
            let count = samples(&om, &format!("{family}_count"), &[label]);
            assert_eq!(count.len(), 1, "{family}_count {label}: {om}");
            assert_eq!(count[0].1, ios as f64, "{family}_count {label}");
            let sum = samples(&om, &format!("{family}_sum"), &[label]);
            let want = clat["mean"].as_f64().unwrap() * ios as f64 / 1e9;
            // the sum is kept in whole ns: within half a ns of fio's mean × count
            assert!(
                (sum[0].1 - want).abs() <= 0.6e-9,
                "{family}_sum {label}: {} s, fio's {want} s",
                sum[0].1
            );
        }
    }
}

/// `iomark compare` of a default fio 3.33 JSON report (no `lat_percentiles`): the
/// `mix read` and `mix write` rows have a p99 — fio's `clat_ns` p99 in µs — and a mean
/// of the same measure, fio's `clat_ns` mean in µs (csv: 3 significant digits).
#[test]
fn compare_shows_fios_clat_p99_for_a_default_fio_report() {
    if !need_fio("compare_shows_fios_clat_p99_for_a_default_fio_report") {
        return;
    }
    let t = scratch();
    let v = fio_randrw_json(t.path(), "rr");
    let o = Iomark::new()
        .dir(t.path())
        .args(["compare", "fio.json", "--format=csv"])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    // csv rows: test,metric,A,jobs differ (figures to 3 significant digits)
    let cell = |test: &str, metric: &str| -> f64 {
        let row = o
            .stdout
            .lines()
            .find(|l| l.contains(test) && l.contains(&format!(",{metric},")))
            .unwrap_or_else(|| panic!("no {test} {metric} row: {}", o.stdout));
        let a = row.split(',').nth(2).unwrap();
        a.parse().unwrap_or_else(|e| panic!("{row}: {e}"))
    };
    for dir in ["read", "write"] {
        let d = &v["jobs"][0][dir];
        assert!(d["lat_ns"].get("percentile").is_none(), "{d}");
        let p99 = d["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap() as f64 / 1e3;
        let test = format!("mix {dir}");
        let got = cell(&test, "p99 µs");
        assert!(
            (got - p99).abs() <= p99 * 5e-3,
            "{test} p99 {got}, fio's {p99}"
        );
        let mean = d["clat_ns"]["mean"].as_f64().unwrap() / 1e3;
        let got = cell(&test, "mean µs");
        assert!(
            (got - mean).abs() <= mean * 5e-3,
            "{test} mean {got}, fio's {mean}"
        );
    }
}

/// A fio JSON run cut by SIGINT (fio 3.33 run here, `--runtime=10 --time_based`, SIGINT
/// once it is reading): fio writes `fio: terminating on signal 2` into its output and
/// reports the part that ran with `error` 0; `iomark compare` says the run is partial,
/// as it says of iomark's own interrupted runs, in its table, its JSON and `iomark
/// report`'s markdown and HTML lists of the columns, and the warning names the signal.
#[test]
fn a_fio_run_cut_by_sigint_is_partial_in_compare_and_report() {
    assert!(
        have_fio(),
        "fio 3.33 (/usr/bin/fio) is required (bash tests/run.sh installs it)"
    );
    let d = scratch();
    let data = d.path().join("f");
    let out = d.path().join("cut.json");
    let mut fio = std::process::Command::new("/usr/bin/fio")
        .current_dir(d.path())
        .args([
            "--name=cut",
            "--size=16M",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
        ])
        .args(["--runtime=10", "--time_based", "--output-format=json"])
        .arg(format!("--filename={}", data.display()))
        .arg(format!("--output={}", out.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // the trigger, not a verdict: SIGINT once the file is laid out and reads have begun
    let laid = std::time::Instant::now();
    while std::fs::metadata(&data).map_or(0, |m| m.len()) < 16 << 20 {
        assert!(laid.elapsed().as_secs() < 30, "fio laid out no file");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(kill(fio.id(), libc::SIGINT), 0);
    fio.wait().unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("fio: terminating on signal 2"), "{text}");
    let v: Value = serde_json::from_str(&text[text.find("\n{").unwrap()..]).unwrap();
    assert_eq!(v["jobs"][0]["error"], 0, "fio says no error: {text}");
    let partial = "— PARTIAL: the run interrupted; its figures cover only the part that ran";
    let table = Iomark::new()
        .dir(d.path())
        .args(["compare", "cut.json"])
        .run();
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(
        table
            .stdout
            .contains(&format!("fio-3.33 report) {partial}")),
        "{}",
        table.stdout
    );
    assert!(
        table.stdout.contains("fio was interrupted by SIGINT (\"fio: terminating on signal 2\"): its figures cover only the part that ran"),
        "{}",
        table.stdout
    );
    let json = Iomark::new()
        .dir(d.path())
        .args(["compare", "cut.json", "--format=json"])
        .run();
    let j: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(j["columns"][0]["partial"], "interrupted", "{}", json.stdout);
    let md = Iomark::new()
        .dir(d.path())
        .args(["report", "cut.json", "--format=markdown"])
        .run();
    assert!(
        md_plain(&md.stdout).replace("\n  ", " ").contains(partial),
        "{}",
        md.stdout
    );
    let html = Iomark::new()
        .dir(d.path())
        .args(["report", "cut.json", "--format=html"])
        .run();
    assert!(html.stdout.contains(partial), "{}", html.stdout);
    // the same report without fio's line is a whole run
    std::fs::write(&out, text.replace("fio: terminating on signal 2", "")).unwrap();
    let whole = Iomark::new()
        .dir(d.path())
        .args(["compare", "cut.json"])
        .run();
    assert!(!whole.stdout.contains("PARTIAL"), "{}", whole.stdout);
}

/// A fio JSON with a string where fio writes a number (`"iops": "abc"`) is malformed
/// input: one line naming the file, the JSON path and what fio writes there, exit 2
/// (docs/commands/compare.md, bad input) — not a report "without any completed I/O".
#[test]
fn a_misshapen_fio_json_is_malformed_not_empty() {
    let d = scratch();
    let text = std::fs::read_to_string(fixture("fio").join("seqread-psync.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["jobs"][0]["read"]["iops"] = "abc".into();
    std::fs::write(
        d.path().join("r.json"),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    let o = Iomark::new()
        .dir(d.path())
        .args(["compare", "r.json"])
        .run();
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert_eq!(
        o.stderr,
        "iomark compare: r.json: malformed fio JSON: jobs[0].read.iops is the string \"abc\", expected a number\n"
    );
    assert_eq!(o.stdout, "");
}
