//! End-to-end check of the fio text numbers of `iomark run` against fio itself: the
//! `io=` sizes of the same job are equal strings, and the `IOPS=`/`BW=` figures fio
//! prints come out of iomark's `num2str` port when fed fio's own counts (bandwidth
//! depends on timing, so the two runs' figures cannot be compared directly); the
//! `issued rwts:` and `latency   :` lines are equal strings too. Sizes are
//! chosen so fio's rounding carries into the integer part (16.0MiB, 10.00MiB,
//! 100.0MiB). Skipped with a message when fio is not installed (CI installs it).

use crate::util::*;
use iomark::report::fio::num::{bw, iops, size};
use std::path::Path;

/// Sizes whose `io=` needs the rounding carry: fio 3.33 prints 16.0MiB, 10.00MiB, 100.0MiB.
const SIZES: [u64; 3] = [16_744_448, 10_481_664, 104_853_504];

/// The text between `start` and the next `end` after it on the first line containing `start`.
fn field<'a>(text: &'a str, start: &str, end: char) -> &'a str {
    let line = text
        .lines()
        .find(|l| l.contains(start))
        .unwrap_or_else(|| panic!("no line with {start:?} in:\n{text}"));
    let rest = &line[line.find(start).unwrap() + start.len()..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// fio with `--output-format=normal,json`: (text part, JSON document).
fn run_fio(file: &Path, bytes: u64) -> (String, serde_json::Value) {
    let out = fio_cmd()
        .args([
            "--name=w",
            "--rw=write",
            "--bs=4k",
            &format!("--size={bytes}"),
            &format!("--filename={}", file.display()),
            "--output-format=normal,json",
        ])
        .run();
    assert!(out.code == 0, "fio failed: {out:?}");
    let all = out.stdout;
    let open = all.find("\n{\n").expect("fio JSON start") + 1;
    let close = all[open..].find("\n}\n").expect("fio JSON end") + open + 2;
    let doc = serde_json::from_str(&all[open..close]).expect("fio JSON parses");
    (all[close..].to_string(), doc)
}

fn run_iomark(file: &Path, bytes: u64) -> String {
    let out = Iomark::new()
        .args([
            "run",
            "--name=w",
            "--rw=write",
            "--bs=4k",
            &format!("--size={bytes}"),
            &format!("--filename={}", file.display()),
        ])
        .run();
    assert!(out.code == 0, "iomark failed: {out:?}");
    out.stdout
}

#[test]
fn io_and_bw_strings_match_fio() {
    if !need_fio("io_and_bw_strings_match_fio") {
        return;
    }
    let dir = scratch();
    for bytes in SIZES {
        let f = dir.path().join(format!("f{bytes}"));
        let (fio_text, doc) = run_fio(&f, bytes);
        std::fs::remove_file(&f).ok();
        let mine = run_iomark(&f, bytes);
        std::fs::remove_file(&f).ok();

        // io= of the group line and the size in the direction line are the same strings
        let fio_io = field(&fio_text, "io=", ' ');
        assert_eq!(field(&mine, "io=", ' '), fio_io, "io= for {bytes} B");
        assert_eq!(
            field(&mine, "write: IOPS=", '/').split(")(").nth(1),
            field(&fio_text, "write: IOPS=", '/').split(")(").nth(1),
            "direction-line size for {bytes} B"
        );
        assert_eq!(fio_io, size(bytes), "fio's io= for {bytes} B");

        // the issued-requests and latency-target lines are the same strings
        for start in ["issued rwts:", "latency   :"] {
            assert_eq!(
                field(&mine, start, '\n'),
                field(&fio_text, start, '\n'),
                "{start} for {bytes} B"
            );
        }

        // fio's IOPS=/BW= from its own counts: ios × 1000 / ms, bytes × 1000 / ms
        let w = &doc["jobs"][0]["write"];
        let ms = w["runtime"].as_u64().unwrap().max(1);
        let (ios, io_bytes) = (
            w["total_ios"].as_u64().unwrap(),
            w["io_bytes"].as_u64().unwrap(),
        );
        assert_eq!(io_bytes, bytes);
        let (b, b_dec) = bw(io_bytes * 1000 / ms);
        let want = format!("IOPS={}, BW={b} ({b_dec})", iops(ios * 1000 / ms));
        assert!(fio_text.contains(&want), "fio: {fio_text}\nwant {want}");

        // iomark's BW= is the same formula over its own run time
        // the direction line ends `(SIZE/MSmsec)`
        let line = field(&mine, "write: IOPS=", '\n');
        let my_ms: u64 = line[line.rfind('/').unwrap() + 1..line.find("msec)").unwrap()]
            .parse()
            .unwrap();
        let (mb, mb_dec) = bw(bytes * 1000 / my_ms.max(1));
        let my_want = format!(
            "IOPS={}, BW={mb} ({mb_dec})",
            iops(bytes / 4096 * 1000 / my_ms.max(1))
        );
        assert!(mine.contains(&my_want), "iomark: {mine}\nwant {my_want}");
    }
}

/// `per=` of two jobs of one group without `group_reporting`: each job's mean bandwidth
/// sample (truncated to an integer) as a share of the group's aggregate — its bytes ×
/// 1000 / its longest run, over 1024.0 — as fio 3.33's `convert_agg_kbytes_percent`
/// computes it, from the figures of the same run's JSON; the JSON's `bw_agg` is the same.
#[test]
fn per_is_each_jobs_share_of_its_groups_bandwidth() {
    let d = scratch();
    let job = |n: &str, rate: &str| {
        [
            format!("--name={n}"),
            "--rw=read".into(),
            "--size=512k".into(),
            "--bs=4k".into(),
            format!("--filename={n}"),
            format!("--rate_iops={rate}"),
            "--bwavgtime=50".into(),
        ]
    };
    let mut a = vec!["--output-format=json,normal".to_string()];
    a.extend(job("a", "1000"));
    a.extend(job("b", "600"));
    let args: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = run(d.path(), &args).ok();
    // the header lines, the JSON document, then the text report
    let start = o.stdout.find("\n{\n").expect("a JSON document") + 1;
    let end = o.stdout.find("\n}\n").expect("its end") + 3;
    let v: serde_json::Value = serde_json::from_str(&o.stdout[start..end]).unwrap();
    let text = &o.stdout[end..];
    let jobs = v["jobs"].as_array().unwrap();
    let n = |j: &serde_json::Value, k: &str| j["read"][k].as_f64().unwrap();
    let bytes: f64 = jobs.iter().map(|j| n(j, "io_bytes")).sum();
    let longest = jobs.iter().map(|j| n(j, "runtime")).fold(0.0, f64::max);
    let agg = (bytes * 1000.0 / longest).floor();
    let pers: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split("per=").nth(1))
        .map(|p| p.split('%').next().unwrap())
        .collect();
    assert_eq!(pers.len(), 2, "{text}");
    for (j, per) in jobs.iter().zip(pers) {
        let want = (n(j, "bw_mean").trunc() * 100.0 / (agg / 1024.0)).min(100.0);
        assert_eq!(per, format!("{want:.2}"), "{}", o.stdout);
        assert!((n(j, "bw_agg") - want).abs() < 1e-6, "{j}");
        assert!(want < 100.0, "two jobs share the group: {}", o.stdout);
    }
}
