//! `unified_rw_reporting=both` next to fio 3.33's, run side by side at test time: the
//! job's directions, then its `mixed` block — text (with the group block's `MIXED`
//! line), JSON (a `mixed` object after `sync`) and terse v2 to v5 (one more direction's
//! fields) — the same shape once numbers are masked. The figures of the mixed entry are
//! checked against the directions they merge.

use super::terse::shape;
use crate::util::*;
use std::path::{Path, PathBuf};

/// iomark under the name `fio` in `dir` (the persona: no iomark notes).
fn fio_as(dir: &Path) -> PathBuf {
    let p = dir.join("fio");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iomark"), &p).unwrap();
    p
}

fn out(program: &Path, dir: &Path, args: &[String]) -> String {
    let o = Iomark::program(program).dir(dir).args(args).run();
    assert_eq!(o.code, 0, "{}: {}", program.display(), o.dump());
    o.stdout
}

/// The standard output of fio 3.33, then of iomark as `fio`, each run with `args` in a
/// fresh directory in memory (the latencies stay small).
fn side_by_side(args: &[String]) -> [String; 2] {
    let d = memory_scratch();
    let me = fio_as(d.path());
    [Path::new("fio"), &me].map(|p| {
        let s = out(p, d.path(), args);
        std::fs::remove_file(d.path().join("x")).ok();
        s
    })
}

/// A randrw job on file `x` with `both` and the extra options.
fn job(extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=a",
        "--rw=randrw",
        "--bs=4k",
        "--filename=x",
        "--unified_rw_reporting=both",
    ]
    .map(String::from)
    .to_vec();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// The report's lines from the job block to the end of the group block, each as
/// [`shape`] sees it with the latency unit masked (`U`), unit prefixes dropped and no
/// spaces but the indentation (fio pads columns to the values), without the
/// latency-bucket lines and the percentile tables' rows, whose sets and widths depend
/// on the values (a table's header stays).
fn text_shape(report: &str) -> Vec<String> {
    let start = report.find("(groupid=").expect("a job block");
    let end = report.find("\nDisk stats").unwrap_or(report.len());
    let start = report[..start].rfind('\n').map_or(0, |i| i + 1);
    report[start..end]
        .lines()
        .filter(|l| !l.starts_with("  lat (") && !l.trim_start().starts_with('|'))
        .map(|l| {
            let mut s = l.to_string();
            for u in ["(nsec)", "(usec)", "(msec)"] {
                s = s.replace(u, "(U)");
            }
            for p in ["Ki", "Mi", "Gi", "k", "M", "G"] {
                for d in '0'..='9' {
                    s = s.replace(&format!("{d}{p}B"), &format!("{d}B"));
                    s = s.replace(&format!("{d}{p},"), &format!("{d},"));
                }
            }
            // fio's min/max carry 3 significant digits of a unit (`12k`, `1.5k`): whether a
            // fraction shows depends on the value, not on the format
            let s = shape(&s)
                .replace("min=N.N,", "min=N,")
                .replace("max=N.N,", "max=N,");
            let indent = s.len() - s.trim_start().len();
            format!("{}{}", " ".repeat(indent), s.replace(' ', ""))
        })
        .collect()
}

/// fio's text: the mixed block after write (its first line all zeros, as fio 3.33
/// formats it), its samples, and the group's MIXED line after WRITE.
#[test]
fn both_text_has_fios_mixed_block() {
    if !need_fio("both_text_has_fios_mixed_block") {
        return;
    }
    // rate-limited so that both directions and the mix have bandwidth/IOPS samples
    let [theirs, ours] = side_by_side(&job(&[
        "--size=1m",
        "--rate_iops=500",
        "--bwavgtime=50",
        "--iopsavgtime=50",
    ]));
    let (t, o) = (text_shape(&theirs), text_shape(&ours));
    assert_eq!(o, t, "iomark:\n{ours}\nfio:\n{theirs}");
    for s in [&t, &o] {
        let at = |k: &str| s.iter().position(|l| l.starts_with(k));
        assert!(
            at("  write:") < at("  mixed:IOPS=N,BW=N(N)(NB/Nmsec)"),
            "{s:?}"
        );
        assert!(at("  WRITE:bw=") < at("  MIXED:bw="), "{s:?}");
        assert_eq!(s.iter().filter(|l| l.starts_with("   bw(")).count(), 3);
    }
    eprintln!(
        "both text: {} lines of the same shape as fio 3.33's",
        o.len()
    );
}

/// Every key path of a JSON document (array elements as `[]`; json+ bins left out).
fn key_paths(v: &serde_json::Value, p: &str, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let q = format!("{p}/{k}");
                out.push(q.clone());
                key_paths(x, &q, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| key_paths(x, &format!("{p}[]"), out)),
        _ => {}
    }
}

/// fio's JSON: a `mixed` object after `sync` with a direction's keys in fio's order;
/// its counts are the directions' sums, its run time the longest direction's, its
/// latency count every request's, its samples the directions' added up.
#[test]
fn both_json_has_fios_mixed_object() {
    if !need_fio("both_json_has_fios_mixed_object") {
        return;
    }
    let texts = side_by_side(&job(&[
        "--size=512k",
        "--rate_iops=1000",
        "--bwavgtime=50",
        "--iopsavgtime=50",
        "--output-format=json",
    ]));
    let docs = texts.clone().map(|s| {
        serde_json::from_str::<serde_json::Value>(&s).unwrap_or_else(|e| panic!("{e}: {s}"))
    });
    let [theirs, ours] = &docs;
    let paths = |v: &serde_json::Value| {
        let mut p = Vec::new();
        key_paths(&v["jobs"], "jobs", &mut p);
        p
    };
    assert_eq!(paths(ours), paths(theirs), "iomark: {ours}\nfio: {theirs}");
    // the order of the job's keys as written: mixed between sync and job_runtime
    for t in &texts {
        let at = |k: &str| {
            t.find(&format!("\"{k}\" :"))
                .unwrap_or_else(|| panic!("{k}: {t}"))
        };
        assert!(
            at("sync") < at("mixed") && at("mixed") < at("job_runtime"),
            "{t}"
        );
    }
    let j = &ours["jobs"][0];
    let n = |o: &serde_json::Value, k: &str| o[k].as_u64().unwrap();
    let (r, w, m) = (&j["read"], &j["write"], &j["mixed"]);
    assert_eq!(n(m, "io_bytes"), 512 * 1024);
    for k in ["io_bytes", "total_ios", "bw_samples", "iops_samples"] {
        assert_eq!(n(m, k), n(r, k) + n(w, k), "{k}: {j}");
    }
    assert_eq!(n(m, "runtime"), n(r, "runtime").max(n(w, "runtime")), "{j}");
    assert_eq!(n(&m["clat_ns"], "N"), n(m, "total_ios"), "{j}");
    let mean = |o: &serde_json::Value| o["bw_mean"].as_f64().unwrap();
    assert!((mean(m) - mean(r) - mean(w)).abs() < 1e-6, "{j}");
}

/// fio's terse v2 to v5: the mixed fields after the last direction's, with fio's field
/// count, the same fields empty and the same shape.
#[test]
fn both_terse_has_fios_mixed_fields() {
    if !need_fio("both_terse_has_fios_mixed_fields") {
        return;
    }
    let d = scratch();
    let me = fio_as(d.path());
    for v in 2..=5u8 {
        let a = job(&["--size=256k", "--minimal", &format!("--terse-version={v}")]);
        let theirs = out(Path::new("fio"), d.path(), &a);
        let ours = out(&me, d.path(), &a);
        let (t, o): (Vec<&str>, Vec<&str>) = (
            theirs.trim_end().split(';').collect(),
            ours.trim_end().split(';').collect(),
        );
        assert_eq!(o.len(), t.len(), "v{v}: field count\n{ours}\n{theirs}");
        for (k, (x, y)) in t.iter().zip(&o).enumerate() {
            assert_eq!(shape(y), shape(x), "v{v} field {k}\n{ours}\n{theirs}");
        }
        // one direction's worth of fields more than without `both`
        let without: Vec<String> = a
            .iter()
            .filter(|x| !x.starts_with("--unified"))
            .cloned()
            .collect();
        let plain = out(&me, d.path(), &without);
        let per_dir = if v == 5 { 47 } else { 41 };
        assert_eq!(
            o.len(),
            plain.trim_end().split(';').count() + per_dir,
            "v{v}"
        );
    }
}
