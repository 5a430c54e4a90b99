//! Option-value parsing and size printing with sysbench 1.0.20's exact rules.
//!
//! sysbench parses integers with C `strtol`, sizes with its own suffix reader and the
//! read/write ratio with `strtod`; it prints sizes with `%.5g` and binary suffixes.
//! These rules decide which inputs are accepted and how headers look, so they are
//! reproduced here to the letter (spec/sysbench-fileio.md §1.2 and §4.1).

/// Parse like C `strtol(s, &end, 10)` followed by sysbench's checks: leading blanks and a
/// sign are accepted, the whole string must be consumed and the value must fit in an
/// `i32`. `None` means "Invalid value for the '<name>' option". The empty string is 0
/// (sysbench reads an unset option as 0).
pub fn parse_int(s: &str) -> Option<i32> {
    if s.is_empty() {
        return Some(0);
    }
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut v: i64 = 0;
    for b in digits.bytes() {
        v = v * 10 + i64::from(b - b'0');
        if v > i64::from(i32::MAX) + 1 {
            return None;
        }
    }
    let v = if neg { -v } else { v };
    i32::try_from(v).ok()
}

/// Parse a sysbench `SIZE`: leading decimal digits, then an optional multiplier
/// `K/M/G/T` (any case, powers of 1024) after which everything is ignored.
/// An unknown multiplier or a value not starting with a digit gives 0, as in sysbench
/// (`1.5G` → 0, `64MB` → 64 MiB). Arithmetic saturates instead of wrapping.
pub fn parse_size(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut i = 0;
    let mut v: u64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(u64::from(b[i] - b'0'));
        i += 1;
    }
    if i == 0 {
        return 0;
    }
    if i == b.len() {
        return v;
    }
    let shift = match b[i] {
        b'k' | b'K' => 10,
        b'm' | b'M' => 20,
        b'g' | b'G' => 30,
        b't' | b'T' => 40,
        _ => return 0,
    };
    v.saturating_mul(1u64 << shift)
}

/// Parse a `--file-rw-ratio` value. sysbench uses `strtod` without checks (garbage is
/// silently 0, bug B10); iomark accepts only a complete number, `inf` included, and
/// rejects NaN. `None` means invalid.
pub fn parse_ratio(s: &str) -> Option<f64> {
    let t = s.trim();
    let v: f64 = t.parse().ok()?;
    if v.is_nan() {
        None
    } else {
        Some(v)
    }
}

/// sysbench booleans: `on|true|1` (or no value) → true, `off|false|0` → false.
pub fn parse_bool(v: Option<&str>) -> Option<bool> {
    match v {
        None => Some(true),
        Some("on" | "true" | "1") => Some(true),
        Some("off" | "false" | "0") => Some(false),
        Some(_) => None,
    }
}

/// C `printf("%.<prec>g", v)` for finite non-negative and negative values.
pub fn fmt_g(v: f64, prec: usize) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return format!("{v}");
    }
    let p = prec.max(1);
    let sci = format!("{:.*e}", p - 1, v);
    let exp: i32 = sci[sci.find('e').map_or(0, |i| i + 1)..]
        .parse()
        .unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let (mant, _) = sci.split_at(sci.find('e').unwrap_or(sci.len()));
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Human size as sysbench prints it in `run` headers and size errors (§4.1), without the
/// trailing `B` the caller appends: divide by 1024 while ≥ 1024, `%.5g`, then
/// `Ki|Mi|Gi|Ti` (iomark continues with `Pi|Ei`, fixing bug B16).
/// Example: 524288 → `512Ki`, 3495253.33 → `3.3333Mi`, 1000 → `1000`.
pub fn human_size(bytes: f64) -> String {
    const UNITS: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    format!("{}{}", fmt_g(v, 5), UNITS[i])
}

/// Parse a size given to iomark's own commands (`copy --size`, `diagnose --working-set`):
/// a byte count, or a number with `K M G T` / `KiB MiB GiB TiB` (powers of 1024) or
/// `KB MB GB TB` (powers of 1000, as drive vendors write them); case-insensitive,
/// fractions allowed (`1.5G`). Errors name the text and the accepted forms.
pub fn parse_human_size(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(format!("'{s}' is not a size (e.g. 4096, 64M, 1.5G, 150GB)"));
    }
    let mul: f64 = match unit.trim() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1048576.0,
        "g" | "gib" => 1073741824.0,
        "t" | "tib" => 1099511627776.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return Err(format!("'{s}': unknown size unit (accepted: K M G T or KiB…TiB = powers of 1024, KB…TB = powers of 1000)")),
    };
    // Whole numbers are exact (integer arithmetic); only fractions go through f64.
    if let Ok(n) = num.parse::<u64>() {
        return n
            .checked_mul(mul as u64)
            .ok_or_else(|| format!("'{s}' is too large"));
    }
    match num.parse::<f64>() {
        // a fraction of a byte is no size: "1.5" alone is refused, "1.5K" is 1536
        Ok(v) if v.is_finite() && mul == 1.0 && v.fract() != 0.0 => Err(format!(
            "'{s}' is not a whole number of bytes (add a unit for fractions, e.g. 1.5K)"
        )),
        Ok(v) if v.is_finite() && v >= 0.0 && v * mul < 1.8e19 => Ok((v * mul).round() as u64),
        Ok(_) => Err(format!("'{s}' is too large")),
        Err(_) => Err(format!("'{s}' is not a size (e.g. 4096, 64M, 1.5G, 150GB)")),
    }
}

/// Human size with binary units for iomark's own notes (KiB = 1024), e.g. `64.0 MiB`.
pub fn iec(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_parsing_follows_strtol_with_full_match() {
        assert_eq!(parse_int("128"), Some(128));
        assert_eq!(parse_int(" +7"), Some(7));
        assert_eq!(parse_int("-1"), Some(-1));
        assert_eq!(parse_int(""), Some(0));
        assert_eq!(parse_int("abc"), None);
        assert_eq!(parse_int("12x"), None);
        assert_eq!(parse_int("2147483647"), Some(i32::MAX));
        assert_eq!(parse_int("2147483648"), None);
        assert_eq!(parse_int("-2147483648"), Some(i32::MIN));
        assert_eq!(parse_int("+"), None);
        assert_eq!(parse_int(" "), None);
    }

    #[test]
    fn size_parsing_matches_sysbench_table() {
        assert_eq!(parse_size("2G"), 2 << 30);
        assert_eq!(parse_size("64MB"), 64 << 20);
        assert_eq!(parse_size("64Mfoo"), 64 << 20);
        assert_eq!(parse_size("16k"), 16384);
        assert_eq!(parse_size("1000"), 1000);
        for zero in ["1.5G", "0x10", "64 M", "1P", "-1", "+64M", "abc", ""] {
            assert_eq!(parse_size(zero), 0, "{zero}");
        }
        assert_eq!(parse_size("99999999999999999999999T"), u64::MAX);
    }

    #[test]
    fn g_format_matches_c() {
        assert_eq!(fmt_g(512.0, 5), "512");
        assert_eq!(fmt_g(3.333333333, 5), "3.3333");
        assert_eq!(fmt_g(78.125, 5), "78.125");
        assert_eq!(fmt_g(4.8828125, 5), "4.8828");
        assert_eq!(fmt_g(1000.0, 5), "1000");
        assert_eq!(fmt_g(123456.0, 5), "1.2346e+05");
        assert_eq!(fmt_g(0.0001, 5), "0.0001");
        assert_eq!(fmt_g(0.00001, 5), "1e-05");
    }

    #[test]
    fn human_sizes_match_sysbench_transcripts() {
        assert_eq!(human_size(524288.0), "512Ki");
        assert_eq!(human_size(16384.0), "16Ki");
        assert_eq!(human_size(67108864.0), "64Mi");
        assert_eq!(human_size(10485760.0 / 3.0), "3.3333Mi");
        assert_eq!(human_size(1000.0), "1000");
        assert_eq!(human_size(0.0), "0");
        assert_eq!(human_size(5e12 / 1.024), "4.4409Ti");
        assert_eq!(human_size((1u64 << 50) as f64), "1Pi");
    }

    #[test]
    fn ratio_rejects_garbage_and_nan() {
        assert_eq!(parse_ratio("1.5"), Some(1.5));
        assert_eq!(parse_ratio("inf"), Some(f64::INFINITY));
        assert_eq!(parse_ratio("-1"), Some(-1.0));
        assert_eq!(parse_ratio("abc"), None);
        assert_eq!(parse_ratio("2x"), None);
        assert_eq!(parse_ratio("nan"), None);
        assert_eq!(parse_ratio(""), None);
    }

    #[test]
    fn human_sizes_binary_and_decimal() {
        assert_eq!(parse_human_size("64M"), Ok(64 << 20));
        assert_eq!(parse_human_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_human_size("64MB"), Ok(64_000_000));
        assert_eq!(parse_human_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_human_size("150GB"), Ok(150_000_000_000));
        assert_eq!(parse_human_size("4096"), Ok(4096));
        assert!(parse_human_size("4X")
            .unwrap_err()
            .contains("unknown size unit"));
        assert!(parse_human_size("abc").unwrap_err().contains("not a size"));
        assert!(parse_human_size("-5").is_err());
        assert!(parse_human_size("1e30").is_err());
        // a fraction of a byte is refused; with a unit a fraction is fine
        assert!(parse_human_size("1.5")
            .unwrap_err()
            .contains("not a whole number of bytes"));
        assert_eq!(parse_human_size("2.0"), Ok(2));
        assert_eq!(parse_human_size("1.5K"), Ok(1536));
    }

    #[test]
    fn iec_units_are_binary() {
        assert_eq!(iec(512), "512 B");
        assert_eq!(iec(1536), "1.5 KiB");
        assert_eq!(iec(64 << 20), "64.0 MiB");
    }
}
