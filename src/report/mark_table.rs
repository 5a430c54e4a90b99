//! The end-of-run table of `iomark mark` ([`MarkTable`]), from its result alone: one
//! row per finished test (its median loop's phase): MB/s (decimal), MiB/s, IOPS, mean
//! and p99 per-I/O latency in µs (`-` when the loop recorded none), then the units;
//! coloured when asked (header, test names, footnote); under it the time breakdown of
//! each test and the device view over the tests (report/why.rs).

use crate::report::{ReportError, Reporter};
use crate::result::RunResult;
use crate::util::color::{Paint, Role};
use std::fmt::Write as _;

/// The mark table (aligned).
pub struct MarkTable {
    /// whether it is coloured
    pub paint: Paint,
}

impl Reporter for MarkTable {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let paint = &self.paint;
        let header = format!(
            "{:<22} {:>10} {:>10} {:>11} {:>10} {:>10}",
            "test", "MB/s", "MiB/s", "IOPS", "mean µs", "p99 µs"
        );
        let mut out = paint.paint(Role::Header, &header) + "\n";
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
                "{} {:>10.2} {:>10.2} {:>11.0} {:>10} {:>10}",
                paint.paint(Role::Name, &format!("{:<22}", p.name)),
                p.mb_per_s,
                p.mib_per_s,
                p.ops_per_s,
                mean,
                p99
            );
        }
        out += &paint.paint(Role::Dim, "MB/s = 1,000,000 B/s, MiB/s = 1,048,576 B/s. Latency is measured per I/O, submission to completion (Q1: pread/pwrite; QD > 1: io_uring).");
        out.push('\n');
        // where each test's time went and what the disk did (report/why.rs)
        out += &crate::report::why::time_block(r);
        out += &crate::report::why::device_view_block(r);
        Ok(out.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{Inputs, Latency, Phase, Status};

    /// A result whose phases are the `peak` preset's tests (job/presets.rs, in mark's
    /// order), each 1500.5 MB/s.
    fn result() -> RunResult {
        let mut i = Inputs::new("mark", &[], Status::Ok);
        let peak = [
            "SEQ1M Q8T1 read",
            "RND4K Q32T1 read",
            "SEQ1M Q8T1 write",
            "RND4K Q32T1 write",
        ];
        i.phases = peak
            .into_iter()
            .map(|name| {
                let mut p = Phase::new(name, 0, 0, 1.0);
                (p.mb_per_s, p.mib_per_s, p.ops_per_s) = (1500.5, 1431.0, 1431.0);
                let mut l = Latency {
                    count: 1,
                    mean_ns: 5_562_200,
                    ..Default::default()
                };
                l.percentiles_ns.insert("99".into(), 10_051_600);
                p.lat = Some(l);
                p
            })
            .collect();
        crate::result::build(i)
    }

    fn table(paint: bool) -> String {
        let t = MarkTable {
            paint: Paint { on: paint },
        };
        String::from_utf8(t.render(&result()).unwrap()).unwrap()
    }

    /// `s` without ANSI escape sequences (`ESC [ … m`).
    fn strip(s: &str) -> String {
        let mut out = String::new();
        let mut it = s.chars();
        while let Some(c) = it.next() {
            if c == '\x1b' {
                for d in it.by_ref() {
                    if d == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn the_table_is_coloured_only_when_asked_and_keeps_its_columns() {
        let plain = table(false);
        let painted = table(true);
        assert!(!plain.contains('\x1b'), "{plain}");
        assert_eq!(strip(&painted), plain, "colour changes no character");
        let lines: Vec<&str> = painted.lines().collect();
        assert!(
            lines[0].starts_with("\x1b[1m"),
            "bold header: {:?}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("\x1b[36mSEQ1M Q8T1 read"),
            "{:?}",
            lines[1]
        );
        assert!(plain
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("SEQ1M Q8T1 read           1500.50"));
    }
}
