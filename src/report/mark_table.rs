//! The end-of-run table of `iomark mark` ([`MarkTable`]), from its result alone: one
//! row per finished test (its median loop's phase): MB/s (decimal), MiB/s, IOPS, mean
//! and p99 per-I/O latency in µs (`-` when the loop recorded none), then the units.

use crate::report::{ReportError, Reporter};
use crate::result::RunResult;
use std::fmt::Write as _;

/// The mark table (plain text, aligned).
pub struct MarkTable;

impl Reporter for MarkTable {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let mut out = format!(
            "{:<22} {:>10} {:>10} {:>11} {:>10} {:>10}\n",
            "test", "MB/s", "MiB/s", "IOPS", "mean µs", "p99 µs"
        );
        for p in &r.phases {
            let mean = p
                .lat
                .as_ref()
                .map_or("-".into(), |l| format!("{:.1}", l.mean_ns as f64 / 1e3));
            let p99 = p
                .lat
                .as_ref()
                .and_then(|l| l.percentiles_ns.get("99"))
                .map_or("-".into(), |v| format!("{:.1}", *v as f64 / 1e3));
            let _ = writeln!(
                out,
                "{:<22} {:>10.2} {:>10.2} {:>11.0} {:>10} {:>10}",
                p.name, p.mb_per_s, p.mib_per_s, p.ops_per_s, mean, p99
            );
        }
        out += "MB/s = 1,000,000 B/s, MiB/s = 1,048,576 B/s. Latency is measured per I/O, submission to completion (Q1: pread/pwrite; QD > 1: io_uring).\n";
        Ok(out.into_bytes())
    }
}
