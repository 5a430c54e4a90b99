//! Units: how each front end reads (and prints) sizes, counts, times and bandwidths.
//! One named function per dialect, because each front end accepts exactly what the tool
//! it stands in for accepts, and the three rules disagree:
//!
//! | dialect | functions | `K` | `KB` | `KiB` | fractions | bad text |
//! |---|---|---|---|---|---|---|
//! | sysbench 1.0.20 (`fileio`) | [`sysbench_size`], [`sysbench_int`], [`sysbench_ratio`], [`sysbench_bool`] | 1024 | 1024 (rest ignored) | 1024 (rest ignored) | `1.5G` is 0 | 0, as sysbench |
//! | fio 3.x (`run`), `kb_base=1024` | [`fio_size`], [`fio_range`], [`fio_time`], [`fio_bssplit`], [`fio_bool`] | 1024 | 1024 | **1000** | `1.5k` = 1536 | error |
//! | fio 3.x, `kb_base=1000` | the same | 1000 | 1000 | 1024 | | error |
//! | fio's printed sizes (importer) | [`fio_report_size`] | 1024 | 1024 | 1024 | yes | `None` |
//! | iomark's own (`copy`/`mark --size`, `diagnose --working-set`) | [`iomark_size`], [`iomark_positive_size`] | 1024 | **1000** | 1024 | with a unit | error |
//! | iomark's counts (`tree`, `mark`, `copy` numbers), `run --engine-strict` | [`iomark_count`], [`iomark_count_u32`], [`iomark_switch`] | – | – | – | refused | error |
//! | iomark's bandwidth (`diagnose --rated-*`), `run --reap-spin` | [`iomark_mb_s`], [`iomark_spin_ns`] | | | | yes | error |
//!
//! Printing: [`sysbench_human_size`] (sysbench's `%.5g` + `Ki/Mi/…`, report headers) and
//! [`crate::util::text::iec`] (iomark's notes). The iomark rule is inconsistent with fio's on purpose for
//! now; this module only keeps today's behaviour.
//! Pure functions, no I/O.

use std::time::Duration;
use thiserror::Error;

// ---- sysbench 1.0.20 -----------------------

/// Parse like C `strtol(s, &end, 10)` followed by sysbench's checks: leading blanks and a
/// sign are accepted, the whole string must be consumed and the value must fit in an
/// `i32`. `None` means "Invalid value for the '<name>' option". The empty string is 0
/// (sysbench reads an unset option as 0).
pub fn sysbench_int(s: &str) -> Option<i32> {
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
pub fn sysbench_size(s: &str) -> u64 {
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

/// What a sysbench SIZE as typed means, in bytes without sysbench's limits: leading
/// digits, then an optional K/M/G/T (any case, powers of 1024; the rest ignored, as
/// [`sysbench_size`] does); `None` when it is no size at all (`12Q`, `-5`, `1.5K`, empty),
/// which sysbench reads as 0. Saturates at `u128::MAX`.
pub fn size_as_typed(s: &str) -> Option<u128> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let v = s[..digits].bytes().fold(0u128, |v, d| {
        v.saturating_mul(10).saturating_add(u128::from(d - b'0'))
    });
    let shift = match s.as_bytes().get(digits) {
        None => 0,
        Some(b'k' | b'K') => 10,
        Some(b'm' | b'M') => 20,
        Some(b'g' | b'G') => 30,
        Some(b't' | b'T') => 40,
        Some(_) => return None,
    };
    Some(v.saturating_mul(1 << shift))
}

/// Parse a `--file-rw-ratio` value. sysbench uses `strtod` without checks (garbage is
/// silently 0, bug B10); iomark accepts only a complete number, `inf` included, and
/// rejects NaN. `None` means invalid.
pub fn sysbench_ratio(s: &str) -> Option<f64> {
    let t = s.trim();
    let v: f64 = t.parse().ok()?;
    if v.is_nan() {
        None
    } else {
        Some(v)
    }
}

/// A number as C's `strtod` reads the start of `s` (sysbench 1.0.20's reading of a
/// real option: whatever follows the number is ignored, text with no number is 0):
/// leading blanks, a sign, then `inf`/`infinity`, `nan`, a hexadecimal number (`0x10`
/// is 16; its fraction and `p` exponent too) or decimal digits with a fraction and an
/// exponent (`e` taken only with digits after it). A decimal too large is ±inf.
pub fn c_strtod(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    match strtod_magnitude(body) {
        Some(v) if neg => -v,
        Some(v) => v,
        // no number: nothing is read, not even the sign
        None => 0.0,
    }
}

/// [`c_strtod`] after the sign; `None` when no number starts `b`.
fn strtod_magnitude(b: &str) -> Option<f64> {
    let lower = b.get(..3).map(str::to_ascii_lowercase);
    match lower.as_deref() {
        Some("inf") => return Some(f64::INFINITY),
        Some("nan") => return Some(f64::NAN),
        _ => {}
    }
    let bytes = b.as_bytes();
    let digits = |from: usize, hex: bool| {
        bytes[from.min(bytes.len())..]
            .iter()
            .take_while(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
            .count()
    };
    let hex_prefix = bytes.len() > 2 && bytes[0] == b'0' && matches!(bytes[1], b'x' | b'X');
    if hex_prefix {
        let int = digits(2, true);
        let frac = match bytes.get(2 + int) {
            Some(b'.') => digits(3 + int, true),
            _ => 0,
        };
        if int + frac > 0 {
            return Some(strtod_hex(&b[2..], int, frac));
        }
        // `0x` with no hex digit: the `0` alone
        return Some(0.0);
    }
    let int = digits(0, false);
    let frac = match bytes.get(int) {
        Some(b'.') => digits(int + 1, false),
        _ => 0,
    };
    if int + frac == 0 {
        return None;
    }
    let mut end = int
        + if bytes.get(int) == Some(&b'.') {
            1 + frac
        } else {
            0
        };
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
        let exp = digits(end + 1 + sign, false);
        if exp > 0 {
            end += 1 + sign + exp;
        }
    }
    b[..end].parse().ok()
}

/// A hexadecimal number's value: `int` digits, then `frac` after a `.`, then an
/// optional binary exponent (`p`, a sign and decimal digits).
fn strtod_hex(h: &str, int: usize, frac: usize) -> f64 {
    let b = h.as_bytes();
    let val = |c: u8| f64::from((c as char).to_digit(16).unwrap_or(0));
    let mut v = b[..int].iter().fold(0.0, |a, &c| a * 16.0 + val(c));
    let frac_at = int + 1;
    let mut scale = 1.0 / 16.0;
    for &c in b.get(frac_at..frac_at + frac).unwrap_or_default() {
        v += val(c) * scale;
        scale /= 16.0;
    }
    let end = if frac > 0 || b.get(int) == Some(&b'.') {
        frac_at + frac
    } else {
        int
    };
    if matches!(b.get(end), Some(b'p' | b'P')) {
        let rest = &h[end + 1..];
        let (sign, digits) = match rest.as_bytes().first() {
            Some(b'-') => (-1i32, &rest[1..]),
            Some(b'+') => (1, &rest[1..]),
            _ => (1, rest),
        };
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        if n > 0 {
            let e: i32 = digits[..n].parse().unwrap_or(i32::MAX);
            v *= 2f64.powi(sign.saturating_mul(e));
        }
    }
    v
}

/// sysbench booleans: `on|true|1` (or no value) → true, `off|false|0` → false; exact
/// lower-case words, no blanks.
pub fn sysbench_bool(v: Option<&str>) -> Option<bool> {
    match v {
        None => Some(true),
        Some("on" | "true" | "1") => Some(true),
        Some("off" | "false" | "0") => Some(false),
        Some(_) => None,
    }
}

/// C `printf("%.<prec>g", v)` for finite non-negative and negative values (the number
/// part of [`sysbench_human_size`]).
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

/// Human size as sysbench prints it in `run` headers and size errors, without the
/// trailing `B` the caller appends: divide by 1024 while ≥ 1024, `%.5g`, then
/// `Ki|Mi|Gi|Ti` (iomark continues with `Pi|Ei`, fixing bug B16).
/// Example: 524288 → `512Ki`, 3495253.33 → `3.3333Mi`, 1000 → `1000`.
pub fn sysbench_human_size(bytes: f64) -> String {
    const UNITS: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    format!("{}{}", fmt_g(v, 5), UNITS[i])
}

// ---- fio 3.x (HOWTO "Parameter types", parse.c) --------------------------------------

/// Multiplier of a fio size suffix (lower case, without the number); `None` if unknown.
/// fio 3.33 reads a suffix by its start (parse.c `__get_mult_bytes`, checked against
/// /usr/bin/fio in units/tests.rs): `kib`, `mib` … (three letters) are the other base
/// than `kb_base`; otherwise the first letter `k`, `m`, `g`, `t`, `p` is a power of
/// `kb_base`, whatever follows (`4Ki`, `4kb` and `16kk` are `k`: 4096, 4096, 16384 with
/// kb_base=1024); `b` alone or first is bytes. A suffix that starts with another letter
/// is refused (fio reads `4x` as 4 bytes: docs/compat/fio.md).
fn fio_size_mult(suffix: &str, kb_base: u64) -> Option<u64> {
    let pow = |c: u8| match c {
        b'k' => Some(1),
        b'm' => Some(2),
        b'g' => Some(3),
        b't' => Some(4),
        b'p' => Some(5),
        _ => None,
    };
    let b = suffix.as_bytes();
    let (alt, pow) = match b {
        [] | [b'b', ..] => return Some(1),
        [c, b'i', b'b', ..] => (true, pow(*c)?),
        [c, ..] => (false, pow(*c)?),
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

/// The multiplier of the unit letters right after a number as fio 3.33 matches them
/// (parse.c `__get_mult_bytes`: by prefix, so `kx` is `k`), in `kb_base`; `None` when
/// they name no unit (fio then multiplies by 1).
pub fn fio_unit_prefix(letters: &str, kb_base: u64) -> Option<u64> {
    if letters.is_empty() || letters.starts_with('b') {
        return None;
    }
    fio_size_mult(letters, kb_base)
}

/// A number at the start of a fio value as fio 3.33 reads it (parse.c `str_to_decimal`,
/// behind `check_str_bytes` and every integer, size and range option; a boolean's
/// `check_int` reads the same leading number): leading blanks, a sign, the digits — base
/// 16 when `0x` stands anywhere in the text, as fio hands strtoll its base — and the
/// letters right after the sign and the leading decimal digits, which name the unit by
/// their start (`__get_mult_bytes`, [`fio_unit_prefix`], in `kb_base`). `None` when no
/// number starts the text or it does not fit 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FioNumber<'a> {
    /// the number with its sign, before the unit
    pub n: i64,
    /// the letters right after the sign and the leading decimal digits (`k`, `MiB`, `x`
    /// of `0x10`; empty when none)
    pub letters: &'a str,
    /// the multiplier those letters name; `None` when they name no unit (fio takes 1)
    pub mult: Option<u64>,
    /// what follows the number: after its digits and letters, or after a hex number's
    /// digits
    pub rest: &'a str,
    /// read in base 16
    pub hex: bool,
}

impl FioNumber<'_> {
    /// The number times its unit (`None`: it overflows).
    pub fn value(&self) -> Option<i64> {
        i64::try_from(self.mult.unwrap_or(1))
            .ok()
            .and_then(|m| self.n.checked_mul(m))
    }
}

/// Read the number that starts `s` as fio 3.33 does ([`FioNumber`]).
pub fn fio_number(s: &str, kb_base: u64) -> Option<FioNumber<'_>> {
    let t = s.trim_start();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let hex = s.contains("0x") || s.contains("0X");
    let count = |s: &str, f: fn(&u8) -> bool| s.bytes().take_while(f).count();
    let (digits, after) = if hex {
        let h = body
            .strip_prefix("0x")
            .or_else(|| body.strip_prefix("0X"))
            .filter(|h| h.bytes().next().is_some_and(|b| b.is_ascii_hexdigit()))
            .unwrap_or(body);
        let end = count(h, u8::is_ascii_hexdigit);
        (&h[..end], &h[end..])
    } else {
        let end = count(body, u8::is_ascii_digit);
        (&body[..end], &body[end..])
    };
    if digits.is_empty() {
        return None;
    }
    let n = i64::from_str_radix(digits, if hex { 16 } else { 10 }).ok()?;
    // the unit's letters follow the leading decimal digits, also in a hex number; fio
    // looks for them from the value's first character on (get_mult_bytes), so after a
    // leading blank there is none (` 4k` is 4, its `k` left over)
    let dec = count(body, u8::is_ascii_digit);
    let tail = &body[dec..];
    let blank = s.starts_with(|c: char| c.is_ascii_whitespace());
    let letters = match blank {
        true => "",
        false => &tail[..count(tail, u8::is_ascii_alphabetic)],
    };
    let rest = if hex { after } else { &tail[letters.len()..] };
    Some(FioNumber {
        n: if neg { -n } else { n },
        letters,
        mult: fio_unit_prefix(&letters.to_ascii_lowercase(), kb_base),
        rest,
        hex,
    })
}

/// Parse a fio size (`4k`, `1MiB`, `512`, `0x1000`, `1.5k`) in bytes; suffixes in any
/// case, `kb_base` 1024 (`k` = 1024, `ki` = 1000, fio's compatibility mode) or 1000 (the
/// other way round). `Err` explains why.
pub fn fio_size(s: &str, kb_base: u64) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    if expr::is_expression(t) {
        return fio_whole_expr(t);
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
    let mult = fio_size_mult(&suf.trim().to_ascii_lowercase(), kb_base).ok_or_else(|| {
        format!(
            "unknown unit '{suf}' (accepted: k, m, g, t, p, with optional b/i/ib, e.g. 4k, 1MiB)"
        )
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

/// Parse `a-b` (or `a:b`) or a single fio size as a range `(min, max)`, min ≤ max, each
/// part read as fio 3.33 reads it ([`fio_decimal`]: `bsrange= 4k-8k` is 4 to 8192 bytes).
pub fn fio_range(s: &str, kb_base: u64) -> Result<(u64, u64), String> {
    let parts: Vec<&str> = s.splitn(2, ['-', ':']).collect();
    let a = fio_decimal(parts[0], kb_base)?;
    let b = match parts.get(1) {
        Some(p) => fio_decimal(p, kb_base)?,
        None => a,
    };
    Ok((a.min(b), a.max(b)))
}

/// One size as fio 3.33's `str_to_decimal` reads it (parse.c `check_str_bytes`): a value
/// that starts with a blank is its number (strtoll skips the blank) without a unit (fio
/// looks for the unit at the first character, the blank: ` 4k` is 4), and a blank before
/// a `(` leaves no number (fio evaluates an expression only at the value's first
/// character); any other value is read as [`fio_size`] reads it.
pub fn fio_decimal(s: &str, kb_base: u64) -> Result<u64, String> {
    if !s.starts_with(|c: char| c.is_ascii_whitespace()) {
        return fio_size(s, kb_base);
    }
    match fio_number(s, kb_base) {
        Some(n) if n.n >= 0 => Ok(n.n.unsigned_abs()),
        Some(_) => Err(format!("'{}' is below 0", s.trim())),
        None => Err(format!("'{}' does not start with a number", s.trim())),
    }
}

/// Parse a fio time value: a whole number in `default_unit_ns` (1e9 for seconds) or with
/// a suffix `ns`, `us`, `ms`, `s`, `m`, `h`, `d` (and `nsec`, `usec`, `msec`, `sec`,
/// `min`), any case. Fractions are refused with the same time in a smaller unit.
pub fn fio_time(s: &str, default_unit_ns: u64) -> Result<Duration, String> {
    let t = s.trim();
    if expr::is_expression(t) {
        return fio_time_expr(t, default_unit_ns);
    }
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

/// A time with a fraction as fio 3.33 reads it (parse.c `str_to_decimal` with
/// `get_mult_time`): strtoll keeps the whole part and stops at the `.`, and the unit is
/// looked for at the first character that is no digit, the `.`, which starts none, so
/// the whole part counts in the option's unit and what follows the point is dropped
/// (`1.5` s is 1 s, `0.3` is 0, `2.5ms` is 2 s; a negative whole part is 0). `None`
/// when `s` is no whole number followed by a point (a time [`fio_time`] reads, or none).
pub fn fio_time_whole(s: &str, default_unit_ns: u64) -> Option<Duration> {
    let n = fio_number(s, 1000).filter(|n| n.letters.is_empty() && !n.hex)?;
    if !n.rest.starts_with('.') {
        return None;
    }
    n.n.max(0)
        .unsigned_abs()
        .checked_mul(default_unit_ns)
        .map(Duration::from_nanos)
}

/// The µs fio 3.33 counts per unit of a time written with `letters` after its digits
/// (parse.c `get_mult_time`): `us…` 1 and `ms…` 1000 by their first two letters, `s`,
/// `m`, `h` and `d` only as the whole word, any other letters (`k`, `sec`, `ns`) 1.
/// `None` for no letters: the option's default unit.
pub fn fio_time_letters_us(letters: &str) -> Option<u64> {
    let l = letters.to_ascii_lowercase();
    Some(match l.as_str() {
        "" => return None,
        _ if l.starts_with("us") => 1,
        _ if l.starts_with("ms") => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => 1,
    })
}

/// A time whose digits are followed by letters, as fio 3.33 reads it (parse.c
/// `str_to_decimal` with `get_mult_time`): the number counts the µs its letters name,
/// the letters compared with all that follows the digits ([`fio_time_letters_us`]), so
/// letters that name no unit of fio's count µs: `4k` and `1x` are 4 and 1 µs, `2sec`,
/// `3ns` and `5min` 2, 3 and 5 µs, `1s5` 1 µs, while `10ms`, `2s` and `1m` are 10 ms, 2 s
/// and a minute. `None` when no letter follows the leading digits, for a hex or
/// negative value, and for one that does not fit.
pub fn fio_time_lettered(s: &str) -> Option<Duration> {
    let n = fio_number(s, 1000).filter(|n| !n.hex && n.n >= 0 && !n.letters.is_empty())?;
    // fio looks for the unit after the value's leading digits and signs
    let tail = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
    let us = fio_time_letters_us(tail)?;
    u64::try_from(n.n)
        .ok()?
        .checked_mul(us)
        .map(Duration::from_micros)
}

/// A time of fio's command line (`--status-interval`) as fio 3.33 reads it (init.c
/// `check_str_time`, parse.c `str_to_decimal` and `get_mult_time`), for what [`fio_time`]
/// refuses: letters after the digits that name no unit count µs ([`fio_time_lettered`]:
/// `1000q` is 1 ms), and a value holding `0x` is hexadecimal, times the unit its letters
/// after the leading decimal digits name (`1000x` is 0x1000 µs, 4.096 ms; `0x10` 16 µs;
/// no letter there: `default_unit_us`). `None` for no number, a negative one or one that
/// does not fit.
pub fn fio_cmdline_time(s: &str, default_unit_us: u64) -> Option<Duration> {
    let n = fio_number(s, 1000).filter(|n| n.n >= 0)?;
    if !n.hex {
        return fio_time_lettered(s);
    }
    let tail = s.trim_start_matches(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
    let us = match tail.starts_with(|c: char| c.is_ascii_alphabetic()) {
        true => fio_time_letters_us(tail).unwrap_or(default_unit_us),
        false => default_unit_us,
    };
    u64::try_from(n.n)
        .ok()?
        .checked_mul(us)
        .map(Duration::from_micros)
}

/// A fio expression (`(...)`, [`expr`]) that must be a whole number of at least 0: a
/// size or a count.
pub fn fio_whole_expr(t: &str) -> Result<u64, String> {
    let v = expr::eval(t, false)?;
    u64::try_from(v.int).map_err(|_| format!("'{t}' is {}, below 0", v.int))
}

/// A fio time expression: its units are µs (`(1s+500ms)`), a plain number is in
/// `default_unit_ns`. fio keeps whole seconds of an option counted in seconds (parse.c
/// `str_to_decimal`): a fraction is refused, as in [`fio_time`].
fn fio_time_expr(t: &str, default_unit_ns: u64) -> Result<Duration, String> {
    let v = expr::eval(t, true)?;
    let ns = if v.has_units {
        v.float * 1e3
    } else {
        v.float * default_unit_ns as f64
    };
    if !(0.0..1.8e19).contains(&ns) {
        return Err(format!(
            "'{t}' is {ns} ns: out of range (0 up to about 584 years)"
        ));
    }
    let ns = ns.round() as u64;
    if default_unit_ns == 1_000_000_000 && !ns.is_multiple_of(1_000_000_000) {
        return Err(format!(
            "'{t}' is {ns} ns; fio keeps whole seconds of an expression here: write a whole number of seconds"
        ));
    }
    Ok(Duration::from_nanos(ns))
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
    match unit.and_then(|u| whole_in_smaller_unit(whole, digits, u)) {
        Some(h) => format!("fractions are not accepted; use a smaller unit such as {h}"),
        None => "fractions are not accepted; use a smaller unit (ns, us, ms, s, m, h, d)".into(),
    }
}

/// `whole.digits` × `unit` ns written in the largest unit smaller than `unit` that makes
/// it a whole number (`1`, `5`, 1 s → `1500ms`); `None` when no unit does.
fn whole_in_smaller_unit(whole: u64, digits: &str, unit: u64) -> Option<String> {
    let unit = u128::from(unit);
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let scale = 10u128.pow(digits.len() as u32);
    let f: u128 = digits.parse().ok()?;
    let num = u128::from(whole) * scale * unit + f * unit;
    if !num.is_multiple_of(scale) {
        return None;
    }
    let ns = num / scale;
    TIME_UNITS
        .iter()
        .find(|(_, u)| u128::from(*u) < unit && ns.is_multiple_of(u128::from(*u)))
        .map(|(s, u)| format!("{}{s}", ns / u128::from(*u)))
}

/// Why a fio bssplit failed.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum BssplitError {
    /// malformed entry
    #[error("{0}")]
    Syntax(String),
    /// the weights given sum to this, over 100, and more than one size has none
    #[error("fio: bssplit percentages add to more than 100%")]
    Over(u64),
    /// `iomark run`: the weights given sum to this, not 100 ([`iomark_bssplit_sum`])
    #[error("weights sum to {0}, must be 100")]
    Sum(u64),
}

/// C's `strtol(s, NULL, 10)`, what `atoi` reads before it cuts to an `int`: leading
/// blanks, a sign and the digits before anything else (none: 0), saturated at the range
/// of a `long`.
pub fn c_strtol(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let n = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i128, |n, d| (n * 10 + i128::from(d - b'0')).min(1 << 64));
    let n = if neg { -n } else { n };
    n.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// The most entries one direction of a `bssplit` keeps (fio's `BSSPLIT_MAX`).
const BSSPLIT_MAX: usize = 64;

/// Parse one direction of fio's `bssplit` (`4k/10:64k/50:32k/40`) as fio 3.33 reads it
/// (options.c `split_parse_ddir`, `bssplit_ddir`): sizes as [`fio_size`], an empty
/// entry ends the list, at most 64 entries; a weight is C's `atoi` of what follows the
/// `/` (junk reads 0), above 100 it is 100 and 0 means none. Sizes without a weight each
/// get `(100 − sum) / n` in 32-bit unsigned arithmetic (a sum over 100 wraps, as fio's
/// does; docs/compat/fio.md 'Access pattern'). Weights need not sum to 100; refused only
/// when they sum over 100 and more than one size has none. An empty list (`:4k/50`: the
/// first entry is empty) is no split: the direction keeps its sizes, as in fio.
pub fn fio_bssplit(s: &str, kb_base: u64) -> Result<Vec<(u64, u32)>, BssplitError> {
    let given = bssplit_entries(s, kb_base)?;
    if given.is_empty() {
        return Ok(Vec::new());
    }
    let sum: u64 = given.iter().filter_map(|g| g.1).map(u64::from).sum();
    let open = given.iter().filter(|g| g.1.is_none()).count() as u32;
    if sum > 100 && open > 1 {
        return Err(BssplitError::Over(sum));
    }
    let total = if open == 1 && given.len() == 1 {
        100
    } else {
        sum as u32
    };
    let share = 100u32.wrapping_sub(total) / open.max(1);
    Ok(given
        .into_iter()
        .map(|(bs, w)| (bs, w.unwrap_or(share)))
        .collect())
}

/// `iomark run`'s stricter reading of a bssplit that [`fio_bssplit`] takes: the weights
/// given must leave the sizes without one a share (sum at most 100), and with none left
/// sum to exactly 100 — a split whose weights do not add up is more likely a typo than
/// meant (fio gives what is missing to the last size). `Err(Sum)`: the weights' sum.
pub fn iomark_bssplit_sum(s: &str, kb_base: u64) -> Result<(), BssplitError> {
    let given = bssplit_entries(s, kb_base)?;
    let sum: u64 = given.iter().filter_map(|g| g.1).map(u64::from).sum();
    let open = given.iter().any(|g| g.1.is_none());
    if sum > 100 || (!open && sum != 100 && !given.is_empty()) {
        return Err(BssplitError::Sum(sum));
    }
    Ok(())
}

/// The entries of one direction of a bssplit as fio reads them: each size with its
/// weight (`None`: none given).
fn bssplit_entries(s: &str, kb_base: u64) -> Result<Vec<(u64, Option<u32>)>, BssplitError> {
    let mut given: Vec<(u64, Option<u32>)> = Vec::new();
    for part in s.split(':').take_while(|p| !p.is_empty()).take(BSSPLIT_MAX) {
        let (bs, w) = match part.split_once('/') {
            Some((b, w)) => (b, bssplit_weight(w)),
            None => (part, None),
        };
        // (each size as fio's `str_to_decimal` reads it: ` 8k` after a `:` is 8)
        let bs = fio_decimal(bs, kb_base).map_err(BssplitError::Syntax)?;
        if bs == 0 {
            return Err(BssplitError::Syntax("block size 0".into()));
        }
        given.push((bs, w));
    }
    Ok(given)
}

/// A bssplit weight as fio reads it: `atoi` cut to an `int`, then kept in an unsigned
/// 64-bit value (a negative one is huge), capped at 100; 0 is no weight (`None`).
fn bssplit_weight(w: &str) -> Option<u32> {
    let w = c_strtol(w) as i32 as i64 as u64;
    match w {
        0 => None,
        w => Some(w.min(100) as u32),
    }
}

/// A value of fio's boolean and "set" options as fio 3.33 reads it (parse.c `check_int`,
/// FIO_OPT_BOOL and FIO_OPT_STR_SET alike): `sscanf(p, "%u")`, or `"%x"` when the text
/// holds `0x`/`0X` anywhere. Leading blanks and a sign are taken, then the digits from
/// the start (what follows them is ignored: `1k` is 1, `1.5` is 1); the number is read
/// as `strtoul` reads it (a negative one wraps, one above 2^64 − 1 is 2^64 − 1) and
/// stored in a C `int`, so `4294967296` is 0 and `4294967295` is -1. `None`: no digits
/// (`yes`, `on`, an empty value), which fio refuses (`fio: failed parsing KEY=VALUE`).
pub fn fio_check_int(p: &str) -> Option<i32> {
    let hex = p.contains("0x") || p.contains("0X");
    let t = p.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let radix = if hex { 16 } else { 10 };
    // "%x" takes a `0x` prefix; with no hex digit after it, the `0` is the number
    let prefixed = hex && (t.starts_with("0x") || t.starts_with("0X"));
    let body = if prefixed { &t[2..] } else { t };
    let digits: Vec<u32> = body.chars().map_while(|c| c.to_digit(radix)).collect();
    if digits.is_empty() && !prefixed {
        return None;
    }
    let n = digits.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(u64::from(radix))?.checked_add(u64::from(d))
    });
    let n = match n {
        Some(n) if neg => n.wrapping_neg(),
        Some(n) => n,
        None => u64::MAX,
    };
    // the C `int` the value is stored in: its low 32 bits
    Some(n as u32 as i32)
}

/// A fio boolean or "set" option's value as fio 3.33 means it: a bare key is on, a value
/// is read by [`fio_check_int`] and any number but 0 is on. `None`: not a number.
pub fn fio_bool(v: Option<&str>) -> Option<bool> {
    match v {
        None => Some(true),
        Some(p) => fio_check_int(p).map(|n| n != 0),
    }
}

/// A size as fio *prints* it in its reports (`64k`, `4096B`, `64.0KiB`, `1m`) → bytes:
/// every prefix is a power of 1024 whatever the `i`/`b`, fractions allowed (the fio
/// report importer, `result/import.rs`). `None` when it is not one.
pub fn fio_report_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult = match unit
        .to_ascii_lowercase()
        .trim_end_matches("ib")
        .trim_end_matches('b')
    {
        "" => 1.0,
        "k" => 1024.0,
        "m" => 1048576.0,
        "g" => 1073741824.0,
        "t" => 1099511627776.0,
        _ => return None,
    };
    Some((n * mult).round() as u64)
}

// ---- iomark's own commands -------------------------------------------------------------

/// iomark's own switches of `iomark run`'s command line (`--engine-strict`): no value (a
/// bare switch), `1`, `true`, `yes`, `on` → true; `0`, `false`, `no`, `off` → false;
/// blanks around the word are ignored, case is not. `None`: not one of them.
pub fn iomark_switch(v: Option<&str>) -> Option<bool> {
    match v.map(str::trim) {
        None | Some("1") | Some("true") | Some("yes") | Some("on") => Some(true),
        Some("0") | Some("false") | Some("no") | Some("off") => Some(false),
        Some(_) => None,
    }
}

/// Parse a size given to iomark's own commands (`copy --size`, `mark --size`,
/// `diagnose --working-set`): a byte count, or a number with `K M G T` / `KiB MiB GiB
/// TiB` (powers of 1024) or `KB MB GB TB` (powers of 1000, as drive vendors write them);
/// fractions allowed with a unit (`1.5G`). The prefix letter and the `i` are
/// case-insensitive; the byte suffix must be an upper-case `B`: a lower-case `b` (`1.5Gb`,
/// `10mb`, `4096b`) reads as bits and is refused as ambiguous (docs/commands/units.md).
/// Errors name the text and the accepted forms.
pub fn iomark_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(format!("'{s}' is not a size (e.g. 4096, 64M, 1.5G, 150GB)"));
    }
    let unit = unit.trim();
    if unit.ends_with('b') {
        return Err(format!(
            "'{s}': a lower-case 'b' means bits and is ambiguous; write B for bytes \
             (KB…TB = powers of 1000, K…T or KiB…TiB = powers of 1024)"
        ));
    }
    let mul: f64 = match unit.to_ascii_lowercase().as_str() {
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

/// [`iomark_size`] that refuses zero: `'0': {what} must be greater than 0` (`what` is
/// e.g. "the size", "the working set").
pub fn iomark_positive_size(s: &str, what: &str) -> Result<u64, String> {
    match iomark_size(s)? {
        0 => Err(format!("'{s}': {what} must be greater than 0")),
        v => Ok(v),
    }
}

/// A value parser for a whole-number option of iomark's own commands accepting
/// `min..=max`: decimal digits (an optional leading `+`), nothing else. The error names
/// what is accepted, e.g. `expected a whole number of seconds from 1 to 3600`; clap puts
/// the value and the option in front (`invalid value 'abc' for '--time <TIME>': …`), in
/// place of Rust's bare "invalid digit found in string" or "0 is not in 1..=3600".
/// `unit` (e.g. "seconds", may be empty) is said after "whole number".
pub fn iomark_count(
    min: u64,
    max: u64,
    unit: &'static str,
) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |s: &str| {
        let what = if unit.is_empty() {
            "a whole number".to_string()
        } else {
            format!("a whole number of {unit}")
        };
        let range = if max == u64::MAX {
            format!("≥ {min}")
        } else {
            format!("from {min} to {max}")
        };
        let digits = s.strip_prefix('+').unwrap_or(s);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("expected {what} {range}"));
        }
        match digits.parse::<u64>() {
            Ok(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(format!("expected {what} {range}")),
        }
    }
}

/// [`iomark_count`] for a `u32` option (`max` ≤ `u32::MAX`).
pub fn iomark_count_u32(
    min: u32,
    max: u32,
    unit: &'static str,
) -> impl Fn(&str) -> Result<u32, String> + Clone + Send + Sync + 'static {
    let p = iomark_count(u64::from(min), u64::from(max), unit);
    move |s: &str| p(s).map(|v| v as u32)
}

/// Parse a bandwidth in decimal MB/s (`diagnose --rated-read/--rated-write`): `3000`,
/// `3000MB/s`, `3.5GB/s`, `450 MB/s`; case-insensitive, must be > 0.
pub fn iomark_mb_s(s: &str) -> Result<f64, String> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    let t = t.strip_suffix("/s").unwrap_or(&t);
    let (num, mul) = if let Some(n) = t.strip_suffix("gb") {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix("mb") {
        (n, 1.0)
    } else {
        (t, 1.0)
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v * mul),
        _ => Err(format!(
            "'{s}' is not a bandwidth (accepted: 3000, 3000MB/s, 3GB/s)"
        )),
    }
}

/// `iomark run --reap-spin=TIME` in nanoseconds: a time up to 1ms with unit ns, us, ms or
/// s (any case; a plain number is µs); decimals are accepted (`1.5us` = 1500 ns, rounded
/// to whole ns). The error is the accepted form, one line.
pub fn iomark_spin_ns(t: &str) -> Result<u64, String> {
    const FORM: &str = "a time up to 1ms: 5us, 800ns, 1.5us, 0 (off); a plain number is µs";
    let t = t.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    let n: f64 = num.parse().map_err(|_| FORM.to_string())?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "ns" | "nsec" => 1.0,
        "" | "us" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        _ => return Err(FORM.to_string()),
    };
    let ns = (n * scale).round();
    if !(0.0..=1e6).contains(&ns) {
        return Err(FORM.to_string());
    }
    Ok(ns as u64)
}

pub mod expr;

#[cfg(test)]
mod tests;
