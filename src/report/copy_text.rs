//! The text report of `iomark copy` ([`CopyText`]), from its result alone: after a
//! successful run the page-cache check (mincore residency per method), one row per
//! method (to the last write and durable, s, MB/s = 10^6 B/s, MiB/s = 2^20 B/s), and
//! the ceiling of the path (SRC's read ceiling and DST's write ceiling from the
//! result's diagnoses, `targets`) with each durable rate as a share of it, each
//! method's read and write calls' latency (p50, p99, p99.9, max); after an
//! error or a signal the phases that finished (nothing when none did); under either
//! the device view over the run (report/why.rs, the renderer of fileio's notes) and the
//! findings over time (a drive that throttled when hot, a write cliff).

use crate::report::{ReportError, Reporter};
use crate::result::{Ceiling, Diagnosis, Phase, RunResult, Status, COPY_METHODS};
use std::fmt::Write as _;

/// The copy report.
pub struct CopyText;

impl Reporter for CopyText {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let mut text = if r.status == Status::Ok {
            full(r)
        } else {
            partial(&r.phases)
        };
        if !text.is_empty() {
            text += &crate::report::why::time_block(r);
            text += &crate::report::why::device_view_block(r);
            text += &crate::report::why::over_time_block(r);
        }
        Ok(text.into_bytes())
    }
}

/// The partial report: one row per phase that finished (name, requests, seconds,
/// MB/s, MiB/s), the same figures its JSON holds.
fn partial(phases: &[Phase]) -> String {
    if phases.is_empty() {
        return String::new();
    }
    let mut o = String::from("\nphases finished before the stop:\n");
    let _ = writeln!(
        o,
        "{:<26} {:>9} {:>9} {:>10} {:>10}",
        "phase", "requests", "seconds", "MB/s", "MiB/s"
    );
    for p in phases {
        let _ = writeln!(
            o,
            "{:<26} {:>9} {:>9.3} {:>10.1} {:>10.1}",
            p.name, p.ops, p.seconds, p.mb_per_s, p.mib_per_s
        );
    }
    o + "MB = 1000000 bytes, MiB = 1048576 bytes; *_durable includes the final fsync.\n"
}

fn fmt_rate(bytes: u64, s: f64) -> String {
    let t = if s > 0.0 { s } else { f64::MIN_POSITIVE };
    format!(
        "{:>8.3} s {:>9.1} MB/s {:>9.1} MiB/s",
        s,
        bytes as f64 / t / 1e6,
        bytes as f64 / t / 1_048_576.0
    )
}

fn phase<'a>(r: &'a RunResult, name: &str) -> Option<&'a Phase> {
    r.phases.iter().find(|p| p.name == name)
}

/// Each method's two phases (to the last write, durable), when it ran.
fn done<'a>(r: &'a RunResult, name: &str) -> Option<(&'a Phase, &'a Phase)> {
    Some((
        phase(r, &format!("{name}_written"))?,
        phase(r, &format!("{name}_durable"))?,
    ))
}

/// The page-cache lines and the method table.
fn table(r: &RunResult) -> String {
    let mut o = String::from("page cache: dropped with posix_fadvise(POSIX_FADV_DONTNEED) after fsync before every phase (no root needed); mincore check:\n");
    for (name, label, _) in COPY_METHODS {
        let note = done(r, name)
            .and_then(|(_, d)| d.notes.iter().find_map(|n| n.strip_prefix("mincore: ")));
        if let Some(n) = note {
            let _ = writeln!(o, "  {label}: {n}");
        }
    }
    let _ = writeln!(
        o,
        "\n{:<18} {:^41}   {:^41}",
        "method", "to last write", "durable (incl. final fsync)"
    );
    for (name, label, _) in COPY_METHODS {
        if let Some((w, d)) = done(r, name) {
            let (a, b) = (fmt_rate(w.bytes, w.seconds), fmt_rate(d.bytes, d.seconds));
            let _ = writeln!(o, "{label:<18} {a}   {b}");
        } else if let Some(w) = r
            .warnings
            .iter()
            .find(|w| w.id == format!("copy.{name}_skipped"))
        {
            let _ = writeln!(o, "{label:<18} {}", w.message);
        }
    }
    o
}

/// Each method's read and write calls one by one (the `_written` phase's `read_lat`
/// and `write_lat`): calls, p50, p99, p99.9 and max (µs); nothing when no method
/// recorded any. Each column is as wide as its widest cell (at least the widths of a
/// short figure), so a wide value (`19059.7 µs`, a count of millions) moves its column,
/// never into the next one.
fn calls_table(r: &RunResult) -> String {
    let mut rows: Vec<Vec<String>> = vec![];
    for (name, label, _) in COPY_METHODS {
        let Some((w, _)) = done(r, name) else {
            continue;
        };
        for (call, l) in [("read", &w.read_lat), ("write", &w.write_lat)] {
            let Some(l) = l.as_ref().filter(|l| l.count > 0) else {
                continue;
            };
            let q = |k: &str| l.percentiles_ns.get(k).map_or("-".into(), |v| us(*v));
            rows.push(vec![
                label.to_string(),
                call.into(),
                l.count.to_string(),
                q("50"),
                q("99"),
                q("99.9"),
                us(l.max_ns),
            ]);
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let head = ["method", "call", "calls", "p50", "p99", "p99.9", "max"];
    let mut width = [18, 6, 8, 10, 10, 10, 10];
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let v: Vec<String> = cells
            .iter()
            .zip(width)
            .enumerate()
            .map(|(k, (c, w))| {
                if k < 2 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        v.join(" ") + "\n"
    };
    let mut o = String::from("\nper call latency (each read and write call of the copy; copy_file_range's calls are its writes):\n");
    o += &line(&head.map(String::from));
    for row in &rows {
        o += &line(row);
    }
    o
}

/// `ns` as µs with one decimal.
fn us(ns: u64) -> String {
    format!("{:.1} µs", ns as f64 / 1e3)
}

/// The ceiling line: (text, the lower of SRC's read and DST's write MB/s).
fn ceiling(src: Option<&Diagnosis>, dst: Option<&Diagnosis>) -> (String, Option<f64>) {
    let (cs, cd) = (
        src.and_then(|d| d.ceiling.as_ref()),
        dst.and_then(|d| d.ceiling.as_ref()),
    );
    let set_by = |c: Option<&Ceiling>| c.map_or(String::new(), |c| c.set_by.clone());
    let r = cs.and_then(|c| c.read_mb_s);
    let w = cd.and_then(|c| c.write_mb_s);
    if let (Some(r), Some(w)) = (r, w) {
        return (
            format!(
                "ceiling: read {} on SRC (set by {}), write {} on DST (set by {}); a copy cannot beat the lower, {:.0} MB/s",
                Ceiling::describe(r),
                set_by(cs),
                Ceiling::describe(w),
                set_by(cd),
                r.min(w)
            ),
            Some(r.min(w)),
        );
    }
    let why: Vec<String> = [src, dst]
        .iter()
        .flatten()
        .filter(|d| d.ceiling.is_none())
        .filter_map(|d| d.ceiling_unknown.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let why = if why.is_empty() {
        "the diagnosis found no link rate".to_string()
    } else {
        why.join("; ")
    };
    (format!("ceiling: unknown ({why})"), None)
}

/// The report of a successful copy.
fn full(r: &RunResult) -> String {
    let mut o = table(r);
    o += &calls_table(r);
    o += "\nMB = 1000000 bytes, MiB = 1048576 bytes. The durable figure (until fsync returned) is the honest one;\n";
    o += "\"to last write\" is what a copy that does not sync appears to take. Every destination was verified byte-identical.\n";
    let (line, ceil) = ceiling(r.targets.first(), r.targets.get(1));
    o += &line;
    o.push('\n');
    if let Some(c) = ceil {
        for (name, label, _) in COPY_METHODS {
            if let Some((_, d)) = done(r, name) {
                let mbs = d.bytes as f64 / d.seconds.max(f64::MIN_POSITIVE) / 1e6;
                let _ = writeln!(
                    o,
                    "  {label:<18} durable {mbs:.0} MB/s = {:.0} % of the ceiling",
                    mbs / c * 100.0
                );
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A latency of `count` calls with p50, p99, p99.9 and max `ns`.
    fn lat(count: u64, [p50, p99, p999, max]: [u64; 4]) -> crate::result::Latency {
        let mut l = crate::result::Latency {
            count,
            max_ns: max,
            ..Default::default()
        };
        for (k, v) in [("50", p50), ("99", p99), ("99.9", p999)] {
            l.percentiles_ns.insert(k.into(), v);
        }
        l
    }

    /// The per-call table with a wide value (a 19059.7 µs p99, 1.9 s max, 12 million
    /// calls): each column is as wide as its widest cell, so every cell of a row stands
    /// apart and ends where its header ends (right-aligned figures), the header included.
    #[test]
    fn per_call_columns_fit_a_wide_value() {
        let mut i = crate::result::Inputs::new("copy", &[], crate::result::Status::Ok);
        let mut w = Phase::new("buffered_128k_written", 10, 10_000_000, 1.0);
        w.read_lat = Some(lat(
            12_000_000,
            [9_100, 19_059_700, 190_597_000, 1_905_970_000],
        ));
        w.write_lat = Some(lat(3, [7_000, 8_000, 9_000, 10_000]));
        let d = Phase::new("buffered_128k_durable", 10, 10_000_000, 1.0);
        i.phases = vec![w, d];
        let r = crate::result::build(i);
        let t = calls_table(&r);
        let lines: Vec<&str> = t.lines().skip_while(|l| !l.starts_with("method")).collect();
        assert_eq!(lines.len(), 3, "{t}");
        let want = [
            vec!["method", "call", "calls", "p50", "p99", "p99.9", "max"],
            vec![
                "buffered",
                "128",
                "KiB",
                "read",
                "12000000",
                "9.1",
                "µs",
                "19059.7",
                "µs",
                "190597.0",
                "µs",
                "1905970.0",
                "µs",
            ],
            vec![
                "buffered", "128", "KiB", "write", "3", "7.0", "µs", "8.0", "µs", "9.0", "µs",
                "10.0", "µs",
            ],
        ];
        for (l, w) in lines.iter().zip(&want) {
            assert_eq!(&l.split_whitespace().collect::<Vec<_>>(), w, "{t}");
        }
        // the figures' columns end where their headers end, in every row
        let ends = |l: &str, cells: &[&str]| -> Vec<usize> {
            let mut at = 0;
            cells
                .iter()
                .map(|c| {
                    at += l[at..].find(c).unwrap() + c.len();
                    l[..at].chars().count()
                })
                .collect()
        };
        let head = ends(lines[0], &["calls", "p50", "p99", "p99.9", "max"]);
        let rd = ends(
            lines[1],
            &[
                "12000000",
                "9.1 µs",
                "19059.7 µs",
                "190597.0 µs",
                "1905970.0 µs",
            ],
        );
        let wr = ends(lines[2], &["3", "7.0 µs", "8.0 µs", "9.0 µs", "10.0 µs"]);
        assert_eq!(head, rd, "{t}");
        assert_eq!(head, wr, "{t}");
    }
}
