//! The text report of `iomark tree` ([`TreeText`]), from its result alone: one row per
//! phase that ran (ops, seconds, ops/s, MB/s, MiB/s, per-operation p50/p99/p99.9; `*`
//! after the name of a phase a signal cut short, with a footnote), the units, how the
//! caches were handled, and the device view over the run (report/why.rs, the renderer
//! of fileio's notes) and the findings over time (a drive that throttled when hot, a
//! write cliff); nothing when no phase ran.

use crate::report::{ReportError, Reporter};
use crate::result::RunResult;
use std::fmt::Write as _;

/// The tree report.
pub struct TreeText;

impl Reporter for TreeText {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        if r.phases.is_empty() {
            return Ok(vec![]);
        }
        let text = table(r)
            + &crate::report::why::time_block(r)
            + &crate::report::why::device_view_block(r)
            + &crate::report::why::over_time_block(r);
        Ok(text.into_bytes())
    }
}

fn fmt_us(ns: u64) -> String {
    if ns >= 10_000_000 {
        format!("{:.1} ms", ns as f64 / 1e6)
    } else {
        format!("{:.1} µs", ns as f64 / 1e3)
    }
}

fn table(r: &RunResult) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\n{:<13} {:>8} {:>9} {:>11} {:>9} {:>9} {:>10} {:>10} {:>10}",
        "phase", "ops", "seconds", "ops/s", "MB/s", "MiB/s", "p50", "p99", "p99.9"
    );
    for p in &r.phases {
        let l = p.lat.as_ref();
        let q = |k: &str| {
            l.and_then(|l| l.percentiles_ns.get(k).copied())
                .map_or("-".into(), fmt_us)
        };
        let name = if p.partial {
            format!("{}*", p.name)
        } else {
            p.name.clone()
        };
        let _ = writeln!(
            o,
            "{:<13} {:>8} {:>9.3} {:>11.0} {:>9.1} {:>9.1} {:>10} {:>10} {:>10}",
            name,
            p.ops,
            p.seconds,
            p.ops_per_s,
            p.mb_per_s,
            p.mib_per_s,
            q("50"),
            q("99"),
            q("99.9")
        );
    }
    o += "\nops/s are files/s (directories for mkdir/rmdir, one call for fsync); MB = 1000000 bytes, MiB = 1048576 bytes;\n";
    o += "latency percentiles are per operation (HDR histogram, 3 significant digits).\n";
    if let Some(p) = r.phases.iter().find(|p| p.partial) {
        let _ = writeln!(
            o,
            "* {}: stopped by the signal before its end; its figures cover the {} operations done",
            p.name, p.ops
        );
    }
    for p in r.phases.iter().filter(|p| p.cache.is_some()) {
        let _ = writeln!(o, "{}: {}", p.name, p.cache.as_deref().unwrap_or(""));
    }
    o
}
