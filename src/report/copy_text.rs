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
/// recorded any.
fn calls_table(r: &RunResult) -> String {
    let mut rows = String::new();
    for (name, label, _) in COPY_METHODS {
        let Some((w, _)) = done(r, name) else {
            continue;
        };
        for (call, l) in [("read", &w.read_lat), ("write", &w.write_lat)] {
            let Some(l) = l.as_ref().filter(|l| l.count > 0) else {
                continue;
            };
            let q = |k: &str| l.percentiles_ns.get(k).map_or("-".into(), |v| us(*v));
            let _ = writeln!(
                rows,
                "{label:<18} {call:<6} {:>8} {:>10} {:>10} {:>10} {:>10}",
                l.count,
                q("50"),
                q("99"),
                q("99.9"),
                us(l.max_ns)
            );
        }
    }
    if rows.is_empty() {
        return rows;
    }
    format!(
        "
per call latency (each read and write call of the copy; copy_file_range's calls are its writes):
{:<18} {:<6} {:>8} {:>10} {:>10} {:>10} {:>10}
{rows}",
        "method", "call", "calls", "p50", "p99", "p99.9", "max"
    )
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
