//! The latency blocks of `iomark run`'s text report against fio 3.33 on the same
//! small jobs: the SHAPE of the lines is compared (labels, units, entries per line,
//! column widths), not the measured numbers — layout of fio 3.33 text report. Skipped
//! with a message when fio is not installed.

use crate::util::*;
use std::path::Path;

/// The labels of the latency lines in order, with their unit: `clat (usec)`,
/// ` lat (usec)`, `clat percentiles (usec)`; and checks each line's own format.
fn labels(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    for l in text.lines() {
        let t = l.trim_start();
        let is_line = ["slat (", "clat (", "lat ("]
            .iter()
            .any(|p| t.starts_with(p))
            && t.contains("): min=");
        if is_line && l.starts_with("    ") {
            let (label, rest) = l.split_once(": min=").unwrap();
            // min=N, max=N|N.Nk, avg=%5.02f, stdev=%5.02f
            let f: Vec<&str> = rest.split(", ").collect();
            assert_eq!(f.len(), 4, "{l}");
            assert!(
                f[0].chars().all(|c| c.is_ascii_digit()) || f[0].ends_with(['k', 'M']),
                "{l}"
            );
            assert!(f[1].starts_with("max="), "{l}");
            for (x, k) in [(f[2], "avg="), (f[3], "stdev=")] {
                let n = x.strip_prefix(k).unwrap_or_else(|| panic!("{l}"));
                assert!(n.len() >= 5, "%5.02f: {l}");
                let dec = n
                    .trim_start()
                    .split_once('.')
                    .unwrap_or_else(|| panic!("{l}"))
                    .1;
                assert_eq!(dec.len(), 2, "{l}");
            }
            v.push(label[4..].to_string());
        } else if t.contains(" percentiles (") && t.ends_with("):") {
            v.push(l[4..l.len() - 1].to_string());
        }
    }
    v
}

/// Entries per row of every percentile table; each row's format is checked against
/// fio's rule (`     |` start, one bracket width ≥ 5 per table, 73 / (12 + width)
/// entries on all rows but the last, `,` ends all but the last entry).
fn table_rows(text: &str) -> Vec<Vec<usize>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut tables = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].contains(" percentiles (") {
            i += 1;
            continue;
        }
        i += 1;
        let (mut rows, mut width) = (Vec::new(), None);
        while i < lines.len() && lines[i].starts_with("     |") {
            let row = &lines[i][6..];
            let cells: Vec<&str> = row.split("th=[").skip(1).collect();
            for c in &cells {
                let w = c.find(']').unwrap();
                assert_eq!(*width.get_or_insert(w), w, "one width per table: {row}");
            }
            rows.push(cells.len());
            i += 1;
        }
        let w = width.expect("a table has rows");
        assert!(w >= 5, "width {w}");
        let per_line = 73 / (2 + 10 + w);
        let (last, full) = rows.split_last().unwrap();
        assert!(full.iter().all(|&n| n == per_line), "{rows:?} width {w}");
        assert!(*last >= 1 && *last <= per_line, "{rows:?}");
        tables.push(rows);
    }
    tables
}

/// The `  lat (unit)   : …` lines: (unit, entries). Checks fio's rule: at most five
/// entries a line, units in order nsec, usec, msec, a unit's next line only after five.
fn level_lines(text: &str) -> Vec<(String, usize)> {
    let v: Vec<(String, usize)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("  lat ("))
        .map(|r| {
            let (unit, rest) = r.split_once(")   : ").unwrap_or_else(|| panic!("{r}"));
            (unit.to_string(), rest.split(", ").count())
        })
        .collect();
    assert!(!v.is_empty(), "no level lines in\n{text}");
    let order = |u: &str| {
        ["nsec", "usec", "msec"]
            .iter()
            .position(|x| *x == u)
            .unwrap()
    };
    for w in v.windows(2) {
        assert!(order(&w[0].0) <= order(&w[1].0), "{v:?}");
        if w[0].0 == w[1].0 {
            assert_eq!(w[0].1, 5, "a line of 5 before the next of one unit: {v:?}");
        }
    }
    assert!(v.iter().all(|x| x.1 <= 5), "{v:?}");
    v
}

fn job(dir: &Path, engine: &str, bs: &str, size: &str) -> Vec<String> {
    vec![
        "--name=shape".into(),
        format!("--ioengine={engine}"),
        "--rw=randread".into(),
        format!("--bs={bs}"),
        format!("--size={size}"),
        format!("--filename={}", dir.join("f").display()),
    ]
}

#[test]
fn latency_blocks_have_fios_shape() {
    if !need_fio("latency_blocks_have_fios_shape") {
        return;
    }
    let dir = memory_scratch();
    // 1 MiB reads from memory: 100 µs .. ms, so both print every block in usec
    // (min > 2 µs, max > 99.999 µs, stdev > 1 µs) with 5-wide columns, 4 a row
    let a = job(dir.path(), "psync", "1m", "32m");
    let fio = fio_cmd().args(&a).run().ok().stdout;
    let mine = Iomark::new().arg("run").args(&a).run().ok().stdout;
    std::fs::remove_file(dir.path().join("f")).ok();
    let want = ["clat (usec)", " lat (usec)", "clat percentiles (usec)"];
    assert_eq!(labels(&fio), want, "fio:\n{fio}");
    assert_eq!(labels(&mine), want, "iomark:\n{mine}");
    assert_eq!(table_rows(&fio), vec![vec![4, 4, 4, 4, 1]], "fio:\n{fio}");
    assert_eq!(table_rows(&mine), table_rows(&fio), "iomark:\n{mine}");
    level_lines(&fio);
    level_lines(&mine);

    // the null engine: tens of ns, every block in nsec
    let b = job(dir.path(), "null", "4k", "16m");
    let fio = fio_cmd().args(&b).run().ok().stdout;
    let mine = Iomark::new().arg("run").args(&b).run().ok().stdout;
    let want = ["clat (nsec)", " lat (nsec)", "clat percentiles (nsec)"];
    assert_eq!(labels(&fio), want, "fio:\n{fio}");
    assert_eq!(labels(&mine), want, "iomark:\n{mine}");
    // the widths depend on the slowest request (a preemption widens the column),
    // so each table is checked against the rule for its own width
    assert_eq!(table_rows(&fio).len(), 1);
    assert_eq!(table_rows(&mine).len(), 1);
    assert_eq!(level_lines(&mine)[0].0, "nsec", "iomark:\n{mine}");
    assert_eq!(level_lines(&fio)[0].0, "nsec", "fio:\n{fio}");
}
