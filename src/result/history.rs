//! What the results history (files/history.rs stores the files) knows of one result:
//! its file name — the UTC date and time it ended, the command and the process id, so
//! names sort by time and two runs never take the same one — and its dates in words.
//! Matching runs of one device and test, and the regression finding, are
//! report/history.rs's (they compare tests as `compare` does).

use super::RunResult;

/// Civil UTC date and time of a Unix time in ms: (year, month, day, hour, minute, second).
pub fn utc(ms: u64) -> (i64, u32, u32, u32, u32, u32) {
    let secs = (ms / 1000) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // days since 1970-01-01 → proleptic Gregorian date (eras of 400 years)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    (year, month, day, h as u32, m as u32, s as u32)
}

/// `2026-12-02 04:15:12 UTC`.
pub fn date_time(ms: u64) -> String {
    let (y, mo, d, h, mi, s) = utc(ms);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02} UTC")
}

/// `2026-12-02`.
pub fn date(ms: u64) -> String {
    let (y, mo, d, ..) = utc(ms);
    format!("{y:04}-{mo:02}-{d:02}")
}

/// The history name (id) of `r` saved by process `pid`: `20261202-041512-fileio-4242`.
pub fn name(r: &RunResult, pid: u32) -> String {
    let (y, mo, d, h, mi, s) = utc(r.timestamp_ms);
    let cmd: String = r
        .command
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}-{cmd}-{pid}")
}

/// The history's device key of `r` (probe/identity.rs), `unknown` when it has none
/// (older results).
pub fn device_key(r: &RunResult) -> String {
    r.device
        .as_ref()
        .map_or_else(|| "unknown".to_string(), |d| d.key.clone())
}

/// A short label of `r`'s device: the identity's label, else the diagnosis's model.
pub fn device_label(r: &RunResult) -> String {
    r.device
        .as_ref()
        .map(|d| d.label())
        .or_else(|| {
            r.diagnosis
                .as_ref()
                .and_then(|d| d.summary.device_model.clone())
        })
        .unwrap_or_else(|| "unknown device".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), (1970, 1, 1, 0, 0, 0));
        // 2000-02-29 12:34:56 UTC, a leap day of a year divisible by 400
        assert_eq!(utc(951_827_696_000), (2000, 2, 29, 12, 34, 56));
        assert_eq!(date_time(1_796_051_018_000), "2026-11-30 15:03:38 UTC");
        assert_eq!(date(1_704_067_199_000), "2023-12-31");
    }
}
