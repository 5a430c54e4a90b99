//! Latency blocks of the text report in the layout of fio 3.33 text report
//! (`display_lat`, `show_clat_percentiles` and `nsec_to_usec` / `nsec_to_msec` of fio's
//! `stat.c` / `stat.h`; checked against fio 3.33's output, see tests/it/fio_compat/text.rs):
//!
//! - `slat`/`clat`/` lat` lines: usec when min > 2000 ns, max > 99 999 ns and stdev >
//!   1000 ns; msec when min > 2 000 000, max > 99 999 999 and stdev > 1 000 000 (ns);
//!   nsec otherwise. min/max are divided with integer division and printed with
//!   `num2str(v, 6)` (decimal prefixes: `5172.1k`), avg/stdev as `%5.02f`.
//! - percentile tables: usec when the smallest shown percentile > 2000 ns and the
//!   largest > 99 999 ns, msec when > 2 000 000 and > 99 999 999; each value is rounded
//!   up per step (`(v + 999) / 1000`). Column width max(5, digits of max / divisor),
//!   `73 / (precision + 10 + width)` entries per row, rows start `     |`, entries are
//!   ` %{p+3}.{p}fth=[%{w}u]` followed by `,` (the last by a newline).

use crate::report::fio::num::{num2str, N2s};

/// The unit of a `min/max/avg/stdev` line of the layout of fio 3.33 text report:
/// (label, ns per unit).
pub fn line_unit(min: u64, max: u64, dev: f64) -> (&'static str, u64) {
    if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        ("msec", 1_000_000)
    } else if min > 2_000 && max > 99_999 && dev > 1_000.0 {
        ("usec", 1_000)
    } else {
        ("nsec", 1)
    }
}

/// `    {label} (unit): min=…, max=…, avg=…, stdev=…` in the layout of fio 3.33 text
/// report; all inputs in ns.
pub fn lat_line(label: &str, min: u64, max: u64, mean: f64, dev: f64) -> String {
    let (unit, div) = line_unit(min, max, dev);
    let d = div as f64;
    format!(
        "    {label} ({unit}): min={}, max={}, avg={:5.2}, stdev={:5.2}\n",
        num2str(min / div, 6, false, N2s::None),
        num2str(max / div, 6, false, N2s::None),
        mean / d,
        dev / d
    )
}

/// The unit of a percentile table of the layout of fio 3.33 text report, from the
/// smallest and largest percentile value (ns): (label, number of /1000 steps).
pub fn table_unit(minv: u64, maxv: u64) -> (&'static str, u32) {
    if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 2)
    } else if minv > 2_000 && maxv > 99_999 {
        ("usec", 1)
    } else {
        ("nsec", 0)
    }
}

/// Decimals of the percentile labels, as fio's `percentile_precision`: the most
/// decimals written in any entry of the list (2 for fio's default list, 0 for `50:99`).
pub fn precision(ps: &[f64]) -> usize {
    ps.iter()
        .map(|p| {
            let s = format!("{p}");
            s.find('.').map_or(0, |i| s.len() - i - 1)
        })
        .max()
        .unwrap_or(0)
}

fn digits(v: u64) -> usize {
    if v == 0 {
        0 // fio: log10(0) + 1 is below 5 anyway
    } else {
        v.ilog10() as usize + 1
    }
}

/// A percentile table in the layout of fio 3.33 text report: `rows` are (percentile,
/// value in ns), `prec` the decimals of the labels ([`precision`]).
pub fn pct_table(label: &str, rows: &[(f64, u64)], prec: usize) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let minv = rows.iter().map(|r| r.1).min().unwrap_or(0);
    let maxv = rows.iter().map(|r| r.1).max().unwrap_or(0);
    let (unit, steps) = table_unit(minv, maxv);
    let div = 1000u64.pow(steps);
    let width = digits(maxv / div).max(5);
    let per_line = 73 / (prec + 10 + width);
    let mut s = format!("    {label} percentiles ({unit}):\n     |");
    for (j, &(p, v)) in rows.iter().enumerate() {
        if j != 0 && j % per_line == 0 {
            s += "     |";
        }
        let last = j == rows.len() - 1;
        let mut v = v;
        for _ in 0..steps {
            v = v.div_ceil(1000);
        }
        let end = if last { '\n' } else { ',' };
        s += &format!(" {p:>pw$.prec$}th=[{v:>width$}]{end}", pw = prec + 3);
        if !last && j % per_line == per_line - 1 {
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_units_switch_at_fios_thresholds() {
        // usec needs all three: min > 2000, max > 99999, stdev > 1000 (ns)
        assert_eq!(line_unit(2_001, 100_000, 1_000.1).0, "usec");
        assert_eq!(line_unit(2_000, 100_000, 1_000.1).0, "nsec");
        assert_eq!(line_unit(2_001, 99_999, 1_000.1).0, "nsec");
        assert_eq!(line_unit(2_001, 100_000, 1_000.0).0, "nsec");
        // msec: min > 2 ms, max > 99.999999 ms, stdev > 1 ms
        assert_eq!(line_unit(2_000_001, 100_000_000, 1_000_000.1).0, "msec");
        assert_eq!(line_unit(2_000_000, 100_000_000, 1_000_000.1).0, "usec");
        assert_eq!(line_unit(2_000_001, 99_999_999, 1_000_000.1).0, "usec");
        assert_eq!(line_unit(2_000_001, 100_000_000, 1_000_000.0).0, "usec");
    }

    #[test]
    fn lines_like_fio() {
        // fio 3.33, psync randread 4k on /dev/shm:
        // "    clat (nsec): min=811, max=4042.1k, avg=2023.28, stdev=54671.45"
        assert_eq!(
            lat_line("clat", 811, 4_042_123, 2023.28, 54671.45),
            "    clat (nsec): min=811, max=4042.1k, avg=2023.28, stdev=54671.45\n"
        );
        // fio 3.33, psync read 1m on /dev/shm:
        // "    clat (usec): min=214, max=4312, avg=384.13, stdev=709.59"
        assert_eq!(
            lat_line("clat", 214_567, 4_312_999, 384_130.0, 709_590.0),
            "    clat (usec): min=214, max=4312, avg=384.13, stdev=709.59\n"
        );
        // %5.02f pads small values: "avg= 7.63, stdev= 5.14"
        assert_eq!(
            lat_line("slat", 2_500, 1_841_000, 7_630.0, 5_140.0),
            "    slat (usec): min=2, max=1841, avg= 7.63, stdev= 5.14\n"
        );
        assert_eq!(
            lat_line(" lat", 3_000_000, 250_000_000, 20_500_000.0, 4_000_000.0),
            "     lat (msec): min=3, max=250, avg=20.50, stdev= 4.00\n"
        );
        // nsec with a 7-digit max goes through num2str(6): k suffix
        assert!(lat_line("clat", 561, 5_172_100, 1228.44, 9748.28).contains("max=5172.1k,"));
    }

    #[test]
    fn table_units_and_rounding() {
        assert_eq!(table_unit(2_001, 100_000), ("usec", 1));
        assert_eq!(table_unit(2_000, 100_000), ("nsec", 0));
        assert_eq!(table_unit(2_001, 99_999), ("nsec", 0));
        assert_eq!(table_unit(2_000_001, 100_000_000), ("msec", 2));
        assert_eq!(table_unit(2_000_000, 100_000_000), ("usec", 1));
        assert_eq!(table_unit(2_000_001, 99_999_999), ("usec", 1));
        // usec values round up: 2001 ns is 3 usec
        let t = pct_table("clat", &[(50.0, 2_001), (99.0, 100_000)], 2);
        assert_eq!(
            t,
            "    clat percentiles (usec):\n     | 50.00th=[    3], 99.00th=[  100]\n"
        );
    }

    #[test]
    fn table_layout_like_fio() {
        let ps = crate::report::fio::PERCENTILES;
        // fio 3.33 null engine: width 5, 4 per row, 5 rows, last row one entry
        let vals = [
            20, 20, 20, 30, 30, 30, 30, 30, 30, 30, 31, 40, 50, 50, 60, 110, 2224,
        ];
        let rows: Vec<(f64, u64)> = ps.iter().copied().zip(vals).collect();
        assert_eq!(
            pct_table("clat", &rows, precision(&ps)),
            "    clat percentiles (nsec):\n\
             \x20    |  1.00th=[   20],  5.00th=[   20], 10.00th=[   20], 20.00th=[   30],\n\
             \x20    | 30.00th=[   30], 40.00th=[   30], 50.00th=[   30], 60.00th=[   30],\n\
             \x20    | 70.00th=[   30], 80.00th=[   30], 90.00th=[   31], 95.00th=[   40],\n\
             \x20    | 99.00th=[   50], 99.50th=[   50], 99.90th=[   60], 99.95th=[  110],\n\
             \x20    | 99.99th=[ 2224]\n"
        );
    }

    #[test]
    fn table_width_grows_and_rows_shrink() {
        let ps = crate::report::fio::PERCENTILES;
        let rows = |max: u64| -> Vec<(f64, u64)> {
            ps.iter()
                .enumerate()
                .map(|(i, &p)| (p, if i == 16 { max } else { 932 }))
                .collect()
        };
        let lines = |max: u64| pct_table("clat", &rows(max), 2);
        // width 5 (and 6): 4 per row
        assert_eq!(lines(99_999).lines().count(), 1 + 5);
        assert!(lines(99_999).contains("[99999]"));
        assert!(lines(999_999).contains("[999999]"));
        assert_eq!(lines(999_999).lines().count(), 1 + 5);
        // width 7: 3 per row (fio: "|  1.00th=[    932],  5.00th=[   1020], 10.00th=[   1064],")
        let t = lines(4_046_848);
        assert_eq!(t.lines().count(), 1 + 6, "{t}");
        assert_eq!(
            t.lines().nth(1).unwrap(),
            "     |  1.00th=[    932],  5.00th=[    932], 10.00th=[    932],"
        );
        assert_eq!(
            t.lines().last().unwrap(),
            "     | 99.95th=[    932], 99.99th=[4046848]"
        );
        // width 13: 2 per row
        let t = lines(1_000_000_000_000);
        assert_eq!(t.lines().count(), 1 + 9, "{t}");
    }

    #[test]
    fn precision_of_the_list() {
        assert_eq!(precision(&crate::report::fio::PERCENTILES), 2);
        assert_eq!(precision(&[50.0, 99.0]), 0);
        assert_eq!(precision(&[50.0, 99.9]), 1);
        assert_eq!(precision(&[1.0, 99.999]), 3);
        // fio 3.33 --percentile_list=50:99: "     |  50th=[   20],  99th=[   21]"
        assert_eq!(
            pct_table("clat", &[(50.0, 20), (99.0, 21)], 0),
            "    clat percentiles (nsec):\n     |  50th=[   20],  99th=[   21]\n"
        );
        // --percentile_list=1:99.999: "     |  1.000th=[   10], 99.999th=[ 5728]"
        assert_eq!(
            pct_table("clat", &[(1.0, 10), (99.999, 5728)], 3),
            "    clat percentiles (nsec):\n     |  1.000th=[   10], 99.999th=[ 5728]\n"
        );
    }
}
