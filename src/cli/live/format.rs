//! The figures of the `--live` view as text, with their units: MB/s (decimal, 10^6 B/s,
//! as mark's table and fio's `(MB/s)`), IOPS with k/M (10^3, 10^6), latency in ns, µs,
//! ms or s, durations as MM:SS (H:MM:SS from an hour), the device's busy time in % and
//! its temperature in °C. A figure that is not known shows as `-`.

/// Bytes per second as MB/s (10^6 B/s): two decimals under 10, one under 1000, none
/// above.
pub fn mb_s(bytes_per_s: f64) -> String {
    let v = bytes_per_s.max(0.0) / 1e6;
    match v {
        v if v < 10.0 => format!("{v:.2} MB/s"),
        v if v < 1000.0 => format!("{v:.1} MB/s"),
        v => format!("{v:.0} MB/s"),
    }
}

/// Operations per second: whole under 1000, then k (10^3) with one decimal, M (10^6)
/// with two.
pub fn iops(per_s: f64) -> String {
    let v = per_s.max(0.0);
    match v {
        v if v < 999.5 => format!("{v:.0} IOPS"),
        v if v < 999_950.0 => format!("{:.1}k IOPS", v / 1e3),
        v => format!("{:.2}M IOPS", v / 1e6),
    }
}

/// A latency given in ns: ns under 1 µs, µs (one decimal) under 1 ms, ms (two
/// decimals) under 1 s, then s; `-` when none was measured.
pub fn latency(ns: Option<f64>) -> String {
    match ns {
        None => "-".into(),
        Some(n) if n < 999.5 => format!("{:.0} ns", n.max(0.0)),
        Some(n) if n < 999_950.0 => format!("{:.1} µs", n / 1e3),
        Some(n) if n < 999_995_000.0 => format!("{:.2} ms", n / 1e6),
        Some(n) => format!("{:.2} s", n / 1e9),
    }
}

/// Seconds as MM:SS, or H:MM:SS from one hour; `-` when not known.
pub fn duration(secs: Option<u64>) -> String {
    match secs {
        None => "-".into(),
        Some(s) if s < 3600 => format!("{:02}:{:02}", s / 60, s % 60),
        Some(s) => format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60),
    }
}

/// The device's busy share, whole %; `-` when no block device is known.
pub fn util(pct: Option<f64>) -> String {
    pct.map_or("-".into(), |p| format!("{:.0} %", p.clamp(0.0, 100.0)))
}

/// The drive's temperature, whole °C; `-` without a sensor.
pub fn temp(c: Option<f64>) -> String {
    c.map_or("-".into(), |c| format!("{c:.0} °C"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_is_decimal_megabytes_per_second() {
        assert_eq!(mb_s(0.0), "0.00 MB/s");
        assert_eq!(mb_s(1_234_567.0), "1.23 MB/s");
        assert_eq!(mb_s(12_345_678.0), "12.3 MB/s");
        assert_eq!(mb_s(1_048_576.0 * 1000.0), "1049 MB/s");
        assert_eq!(mb_s(-5.0), "0.00 MB/s");
    }

    #[test]
    fn iops_take_k_and_m_as_powers_of_ten() {
        assert_eq!(iops(0.0), "0 IOPS");
        assert_eq!(iops(999.0), "999 IOPS");
        assert_eq!(iops(1000.0), "1.0k IOPS");
        assert_eq!(iops(254_321.0), "254.3k IOPS");
        assert_eq!(iops(999_949.0), "999.9k IOPS");
        assert_eq!(iops(2_750_000.0), "2.75M IOPS");
    }

    #[test]
    fn latency_picks_its_unit_from_nanoseconds() {
        assert_eq!(latency(None), "-");
        assert_eq!(latency(Some(850.0)), "850 ns");
        assert_eq!(latency(Some(3_240.0)), "3.2 µs");
        assert_eq!(latency(Some(1_500_000.0)), "1.50 ms");
        assert_eq!(latency(Some(2_000_000_000.0)), "2.00 s");
    }

    #[test]
    fn durations_utilisation_and_temperature() {
        assert_eq!(duration(Some(0)), "00:00");
        assert_eq!(duration(Some(75)), "01:15");
        assert_eq!(duration(Some(3_725)), "1:02:05");
        assert_eq!(duration(None), "-");
        assert_eq!(util(Some(87.4)), "87 %");
        assert_eq!(util(Some(130.0)), "100 %");
        assert_eq!(util(None), "-");
        assert_eq!(temp(Some(41.2)), "41 °C");
        assert_eq!(temp(None), "-");
    }
}
