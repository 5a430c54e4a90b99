//! A value that starts with a blank (`bs = 8k`, `--size=" 64k"`), read as fio 3.33
//! reads it: fio strips the blanks after a key but hands its option parser the value
//! after `=` as written. A number is then read without its unit (fio looks for the unit
//! at the value's first character, the blank: `bs = 8k` is 8 bytes, `runtime = 1m` is 1
//! second), a listed value names none of its words (`rw = write` is refused), and an
//! engine's name keeps its blank (`ioengine = psync` is no engine), and a blank before a
//! `(` leaves no number (`bs= (4k*2)` is refused). Text that fio strips itself (a file
//! name) and a boolean's number read as written. A range's or a split's parts are read
//! by their own parsers, each part as fio reads it (`units::fio_decimal`: `bsrange =
//! 4k-8k` is 4 to 8192 bytes).

use super::{bad, FioOption, OptType};
use crate::job::fio::ini::Origin;
use crate::job::fio::FioError;
use crate::job::units;

/// What fio 3.33 reads of `v` for option `o` (as `key`) when `v` starts with a blank:
/// `Ok(Some)` the value to read instead (a number without its unit), `Ok(None)` the value
/// as it is, `Err` fio's refusal.
pub(super) fn read(
    o: Option<&FioOption>,
    key: &str,
    v: Option<&str>,
    origin: &Origin,
) -> Result<Option<String>, FioError> {
    let (Some(o), Some(v)) = (o, v) else {
        return Ok(None);
    };
    if !v.starts_with(|c: char| c.is_ascii_whitespace()) || v.trim().is_empty() {
        return Ok(None);
    }
    match o.fio_type {
        // (a zone count, `size= 4z`, fio reads as it is)
        Some(OptType::StrValZone) if v.ends_with('z') => Ok(None),
        // fio evaluates an expression only at the value's first character: after the
        // blank, `(` starts no number
        Some(t) if t.is_number() && v.trim_start().starts_with('(') => Err(bad(
            key,
            v,
            "a blank before an expression leaves no number (fio reads `(` as an expression only as the value's first character)",
            origin,
        )),
        Some(t) if t.is_number() => Ok(Some(unitless(v))),
        _ if o.name == "ioengine" => Err(FioError::UnsupportedEngine {
            engine: v.to_string(),
            origin: origin.clone(),
        }),
        Some(OptType::Str | OptType::StrMulti | OptType::StrUll) if !o.values.is_empty() => {
            Err(bad(
                key,
                v,
                "the blank after `=` is part of the value, which names none of the listed words",
                origin,
            ))
        }
        _ => Ok(None),
    }
}

/// Each `,`-separated part of `v` that starts with a blank as fio reads it: its number
/// without the unit letters that follow it (`" 8k, 16k"` is `"8,16"`).
fn unitless(v: &str) -> String {
    let parts: Vec<String> = v
        .split(',')
        .map(|p| match units::fio_number(p.trim_start(), 1024) {
            Some(n) if p.starts_with(|c: char| c.is_ascii_whitespace()) => {
                // no `%` either: what follows the number is no unit
                format!("{}{}", n.n, n.rest.trim_start_matches('%'))
            }
            _ => p.to_string(),
        })
        .collect();
    parts.join(",")
}
