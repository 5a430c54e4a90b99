//! fio's value syntax for `iomark run` (fio 3.x HOWTO "Parameter types", `parse.c`):
//! sizes with `kb_base`-dependent units, ranges, times, `bssplit` lists, booleans, and
//! the one-line [`FioError::BadValue`] builder used by every key.

use crate::job::fio::FioError;
use crate::job::fio::ini::Origin;
use std::time::Duration;
use thiserror::Error;

pub(crate) fn bad(key: &str, value: &str, why: impl Into<String>, origin: &Origin) -> FioError {
    FioError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        why: why.into(),
        origin: origin.clone(),
    }
}

/// Multiplier of a size suffix (lower case, without the number); `None` if unknown.
fn size_mult(suffix: &str, kb_base: u64) -> Option<u64> {
    let (alt, pow) = match suffix {
        "" | "b" => return Some(1),
        "k" | "kb" => (false, 1),
        "m" | "mb" => (false, 2),
        "g" | "gb" => (false, 3),
        "t" | "tb" => (false, 4),
        "p" | "pb" => (false, 5),
        "ki" | "kib" => (true, 1),
        "mi" | "mib" => (true, 2),
        "gi" | "gib" => (true, 3),
        "ti" | "tib" => (true, 4),
        "pi" | "pib" => (true, 5),
        _ => return None,
    };
    // fio compatibility mode: with kb_base=1024 the IEC forms are decimal, and vice versa.
    let base = match (kb_base, alt) {
        (1000, false) => 1000u64,
        (1000, true) => 1024,
        (_, false) => 1024,
        (_, true) => 1000,
    };
    base.checked_pow(pow)
}

/// Parse a fio size (`4k`, `1MiB`, `512`, `0x1000`) in bytes. `Err` explains why.
pub fn parse_size(s: &str, kb_base: u64) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map_err(|_| format!("'{t}' is not a hex number"));
    }
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suf) = t.split_at(end);
    if num.is_empty() {
        return Err(format!("'{t}' does not start with a number"));
    }
    let mult = size_mult(&suf.trim().to_ascii_lowercase(), kb_base).ok_or_else(|| {
        format!("unknown unit '{suf}' (accepted: k, m, g, t, p, with optional b/ib, e.g. 4k, 1MiB)")
    })?;
    if num.contains('.') {
        let f: f64 = num
            .parse()
            .map_err(|_| format!("'{num}' is not a number"))?;
        let v = f * mult as f64;
        if !v.is_finite() || v >= u64::MAX as f64 {
            return Err("too large".into());
        }
        Ok(v as u64)
    } else {
        let n: u64 = num.parse().map_err(|_| format!("'{num}' is too large"))?;
        n.checked_mul(mult).ok_or_else(|| "too large".to_string())
    }
}

/// Parse `a-b` (or `a:b`) or a single size as a range `(min, max)`, min ≤ max.
pub fn parse_range(s: &str, kb_base: u64) -> Result<(u64, u64), String> {
    let parts: Vec<&str> = s.splitn(2, ['-', ':']).collect();
    let a = parse_size(parts[0], kb_base)?;
    let b = match parts.get(1) {
        Some(p) => parse_size(p, kb_base)?,
        None => a,
    };
    Ok((a.min(b), a.max(b)))
}

/// Parse a fio time value: default unit `default_unit_ns` (1e9 for seconds), suffixes
/// `ns`, `us`, `ms`, `s`, `m`, `h`, `d` (and `nsec`, `usec`, `msec`, `sec`, `min`).
pub fn parse_time(s: &str, default_unit_ns: u64) -> Result<Duration, String> {
    let t = s.trim();
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suf) = t.split_at(end);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("'{t}' is not a time (e.g. 10, 10s, 500ms, 1m)"))?;
    if let Some(frac) = suf.strip_prefix('.') {
        return Err(fraction_message(n, frac, default_unit_ns));
    }
    let unit: u64 = match suf.trim().to_ascii_lowercase().as_str() {
        "" => default_unit_ns,
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        other => {
            return Err(format!(
                "unknown time unit '{other}' (accepted: ns, us, ms, s, m, h, d)"
            ))
        }
    };
    n.checked_mul(unit)
        .map(Duration::from_nanos)
        .ok_or_else(|| "too large".to_string())
}

/// Time units from the largest: (suffix, ns).
const TIME_UNITS: [(&str, u64); 7] = [
    ("d", 86_400_000_000_000),
    ("h", 3_600_000_000_000),
    ("m", 60_000_000_000),
    ("s", 1_000_000_000),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("ns", 1),
];

/// The refusal of a fractional time `whole.frac` (`frac`: what follows the point, unit
/// suffix included): fio 3.33 drops the fraction silently (`ramp_time=0.5` is 0), so
/// iomark refuses it and names the same time in the largest smaller unit that makes it
/// whole (`0.5` s → `500ms`, `1.5ms` → `1500us`); when none does, a generic hint.
fn fraction_message(whole: u64, frac: &str, default_unit_ns: u64) -> String {
    let digits_end = frac
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(frac.len());
    let (digits, suf) = frac.split_at(digits_end);
    let suf = suf.trim().to_ascii_lowercase();
    let unit = match suf.as_str() {
        "" => Some(default_unit_ns),
        "nsec" => Some(1),
        "usec" => Some(1_000),
        "msec" => Some(1_000_000),
        "sec" => Some(1_000_000_000),
        "min" => Some(60_000_000_000),
        x => TIME_UNITS.iter().find(|u| u.0 == x).map(|u| u.1),
    };
    let hint = (|| {
        let unit = u128::from(unit?);
        if digits.is_empty() || digits.len() > 18 {
            return None;
        }
        let scale = 10u128.pow(digits.len() as u32);
        let f: u128 = digits.parse().ok()?;
        let num = u128::from(whole) * scale * unit + f * unit;
        if num % scale != 0 {
            return None;
        }
        let ns = num / scale;
        TIME_UNITS
            .iter()
            .find(|(_, u)| u128::from(*u) < unit && ns % u128::from(*u) == 0)
            .map(|(s, u)| format!("{}{s}", ns / u128::from(*u)))
    })();
    match hint {
        Some(h) => format!("fractions are not accepted; use a smaller unit such as {h}"),
        None => "fractions are not accepted; use a smaller unit (ns, us, ms, s, m, h, d)".into(),
    }
}

/// Parse one direction of `bssplit` (`4k/10:64k/50:32k/40`). Entries without a weight
/// share what the others leave of 100 equally (fio). Weights must sum to 100.
pub fn parse_bssplit_dir(s: &str, kb_base: u64) -> Result<Vec<(u64, u32)>, BssplitError> {
    let mut given: Vec<(u64, Option<u32>)> = Vec::new();
    for part in s.split(':').filter(|p| !p.trim().is_empty()) {
        let (bs, w) = match part.split_once('/') {
            Some((b, w)) if !w.trim().is_empty() => {
                let w: u32 = w.trim().parse().map_err(|_| {
                    BssplitError::Syntax(format!("weight '{w}' is not a whole percent"))
                })?;
                (b, Some(w))
            }
            Some((b, _)) => (b, None),
            None => (part, None),
        };
        let bs = parse_size(bs, kb_base).map_err(BssplitError::Syntax)?;
        if bs == 0 {
            return Err(BssplitError::Syntax("block size 0".into()));
        }
        given.push((bs, w));
    }
    if given.is_empty() {
        return Err(BssplitError::Syntax("no block sizes".into()));
    }
    let sum: u64 = given.iter().filter_map(|g| g.1).map(u64::from).sum();
    let open = given.iter().filter(|g| g.1.is_none()).count() as u64;
    if sum > 100 || (open == 0 && sum != 100) {
        return Err(BssplitError::Sum(sum));
    }
    let mut out = Vec::with_capacity(given.len());
    let mut left = 100 - sum;
    let mut open_left = open;
    for (bs, w) in given {
        let w = match w {
            Some(w) => w,
            None => {
                let share = left / open_left.max(1);
                left -= share;
                open_left -= 1;
                share as u32
            }
        };
        out.push((bs, w));
    }
    Ok(out)
}

/// Why a bssplit failed.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum BssplitError {
    /// malformed entry
    #[error("{0}")]
    Syntax(String),
    /// weights sum to this, not 100
    #[error("weights sum to {0}, must be 100")]
    Sum(u64),
}

pub(crate) fn parse_bool(key: &str, v: Option<&str>, origin: &Origin) -> Result<bool, FioError> {
    match v.map(str::trim) {
        None | Some("1") | Some("true") | Some("yes") | Some("on") => Ok(true),
        Some("0") | Some("false") | Some("no") | Some("off") => Ok(false),
        Some(o) => Err(bad(
            key,
            o,
            "a boolean: 1, 0, true, false, yes, no, on or off",
            origin,
        )),
    }
}

pub(crate) fn parse_u64(key: &str, v: &str, origin: &Origin) -> Result<u64, FioError> {
    v.trim()
        .parse()
        .map_err(|_| bad(key, v, "expected a whole number", origin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_units() {
        assert_eq!(parse_size("4k", 1024), Ok(4096));
        assert_eq!(parse_size("4KiB", 1024), Ok(4000));
        assert_eq!(parse_size("4KiB", 1000), Ok(4096));
        assert_eq!(parse_size("4k", 1000), Ok(4000));
        assert_eq!(parse_size("1m", 1024), Ok(1_048_576));
        assert_eq!(parse_size("1g", 1024), Ok(1 << 30));
        assert_eq!(parse_size("512", 1024), Ok(512));
        assert_eq!(parse_size("0x1000", 1024), Ok(4096));
        assert!(parse_size("4q", 1024).is_err());
        assert!(parse_size("", 1024).is_err());
        assert!(parse_size("99999999999999999999", 1024).is_err());
    }

    #[test]
    fn fractional_times_are_refused_with_the_same_time_in_a_smaller_unit() {
        let s = 1_000_000_000;
        let hint = |v: &str, unit: u64| parse_time(v, unit).unwrap_err();
        let with = |h: &str| format!("fractions are not accepted; use a smaller unit such as {h}");
        assert_eq!(hint("0.5", s), with("500ms"));
        assert_eq!(hint("1.5", s), with("1500ms"));
        assert_eq!(hint("0.25s", s), with("250ms"));
        assert_eq!(hint("1.5ms", s), with("1500us"));
        assert_eq!(hint("1.5msec", s), with("1500us"));
        assert_eq!(hint("0.5m", s), with("30s"));
        assert_eq!(hint("2.5", 1_000_000), with("2500us"));
        assert_eq!(hint("0.0001", s), with("100us"));
        // nothing smaller than ns, and too many digits: the generic hint
        for v in ["1.5ns", "0.1234567891", "1.5x"] {
            let e = hint(v, s);
            assert!(e.starts_with("fractions are not accepted; use a smaller unit ("), "{v}: {e}");
        }
    }

    #[test]
    fn fio_times() {
        assert_eq!(parse_time("10", 1_000_000_000), Ok(Duration::from_secs(10)));
        assert_eq!(
            parse_time("500ms", 1_000_000_000),
            Ok(Duration::from_millis(500))
        );
        assert_eq!(parse_time("1m", 1_000_000_000), Ok(Duration::from_secs(60)));
        assert!(parse_time("1y", 1_000_000_000).is_err());
    }
}
