//! fio 3.33's reading of a per-direction number (`bs`, `ba`, `rate`, `rate_min`,
//! `rate_iops`, `rate_iops_min`, `percentage_random`: one slot each for reads, writes and
//! trims) in rounds, as parse.c `handle_option` and `__handle_option` read it, turned
//! into the plain `R,W,T` value the key's `apply` takes ([`read`]).
//!
//! Round 1 reads the whole value; each later round what follows the first `,` (else
//! `:`, else `-`) of the previous round's text (a `,` that ends the text is cut off, and
//! one more round reads nothing). A round whose text ends in `z` fails with fio's line
//! `KEY: 'z' suffix isn't applicable`; otherwise its text up to its first `,` is read as
//! fio's `str_to_decimal` reads a size ([`units::fio_number`]: base 16 when `0x` stands
//! in it, the unit named by the letters right after the digits, other letters ×1); a
//! part with no number fails silently, one out of the option's range with fio's
//! `min value out of range` / `max value out of range` line. Round N fills direction N
//! (reads, writes, trims); the last round fills the directions after its own; a round
//! past the third fills nothing. The option fails only when every round failed.

use super::{FioOption, OptType, Range, Store};
use crate::job::units;

/// What fio 3.33 reads of a per-direction value ([`read`]).
#[derive(Debug, PartialEq)]
pub(super) struct Parts {
    /// the value for the key's `apply`: `R,W,T`, an empty part where the direction keeps
    /// its value
    pub value: String,
    /// fio's lines on stderr, one per round out of range or with a `z` suffix
    pub lines: Vec<String>,
    /// why `iomark run` refuses what fio reads so (`None`: nothing it refuses): letters
    /// that name no unit (`4q` is 4 bytes to fio), a `-` between two numbers (`bs=1k-2k`
    /// is no range: reads of 1k, writes of 2k)
    pub loose: Option<String>,
}

/// Whether `o` is read in rounds here: a per-direction integer of fio's (not
/// `max_latency`, a time, whose units fio reads as a time's).
pub(super) fn applies(o: &FioOption) -> bool {
    o.store == Store::PerDirection
        && matches!(o.fio_type, Some(OptType::Int | OptType::Ull))
        && o.name != "max_latency"
}

/// The rounds of `v`: each round's text and whether another round follows (fio's `more`).
fn rounds(v: &str) -> Vec<(&str, bool)> {
    let (mut out, mut rest) = (Vec::new(), v);
    loop {
        let (text, next) = match rest.find(',') {
            Some(i) if i + 1 == rest.len() => (&rest[..i], Some("")),
            Some(i) => (rest, Some(&rest[i + 1..])),
            None => match rest.find(':').or_else(|| rest.find('-')) {
                Some(i) => (rest, Some(&rest[i + 1..])),
                None => (rest, None),
            },
        };
        out.push((text, next.is_some()));
        match next {
            Some(n) => rest = n,
            None => return out,
        }
    }
}

/// One part read as fio's `str_to_decimal` reads a size in `kb_base`: the number and
/// whether letters after it named no unit (fio multiplies by 1). `None`: no number (or
/// one that does not fit), which fails the round silently.
fn number(part: &str, kb_base: u64) -> Option<(u64, bool)> {
    let n = units::fio_number(part, kb_base)?;
    // fio looks for the unit from the text's first character: after a leading blank
    // it finds none
    let blank = part.starts_with(char::is_whitespace);
    let unit = if blank { None } else { n.mult };
    let named = n.letters.is_empty() || n.hex || unit.is_some();
    let v = u64::try_from(n.n).ok()?.checked_mul(unit.unwrap_or(1))?;
    Some((v, !named || (blank && !n.letters.is_empty())))
}

/// fio 3.33's reading of `v` for option `o` ([`applies`]) in `kb_base`: `Ok` with what
/// each direction gets, `Err` with fio's lines when no round was read (fio: `failed
/// parsing`). `None` for a value read elsewhere: one with a sign (options/signed.rs), an
/// expression, a fraction or a percentage (iomark's own readings, docs/compat/fio.md).
pub(super) fn read(o: &FioOption, v: &str, kb_base: u64) -> Option<Result<Parts, Vec<String>>> {
    // (a leading blank stays: fio then finds no unit, ` 4k` is 4 bytes)
    let t = v.trim_end();
    let signed = t.trim_start().starts_with(['-', '+']);
    if !applies(o) || t.trim().is_empty() || signed || t.contains(['(', '.', '%']) {
        return None;
    }
    let (min, max) = match o.range {
        Range::Int(min, max) => (min.max(0) as u64, (max > 0).then_some(max as u64)),
        _ => (0, None),
    };
    let (mut slots, mut lines, mut loose) = ([None::<u64>; 3], Vec::new(), None);
    let mut read_any = false;
    for (curr, (text, more)) in rounds(t).into_iter().enumerate() {
        if text.ends_with('z') {
            lines.push(format!("{}: 'z' suffix isn't applicable", o.name));
            continue;
        }
        let part = text.split(',').next().unwrap_or(text);
        // a sign inside the value is the signed reading's (options/signed.rs)
        if part.trim_start().starts_with(['-', '+']) {
            return None;
        }
        let Some((n, typo)) = number(part, kb_base) else {
            // fio skips the part silently and the direction keeps its value
            // (`bs=4k,abc`: writes of the default 4k); an empty part is the way to keep it
            if !part.trim().is_empty() {
                loose.get_or_insert_with(|| no_number(part));
            }
            continue;
        };
        if n < min {
            lines.push(format!(
                "{}: min value out of range: {n} ({min} min)",
                o.name
            ));
            continue;
        }
        if let Some(m) = max.filter(|m| n > *m) {
            lines.push(format!("{}: max value out of range: {n} ({m} max)", o.name));
            continue;
        }
        read_any = true;
        if typo {
            loose = Some(format!(
                "'{}' names no unit (fio 3.33 reads it as bytes)",
                part.trim()
            ));
        } else if curr > 0 && t[..t.len() - text.len()].ends_with('-') && !text.contains(',') {
            loose.get_or_insert_with(|| {
                let k = o.name;
                let range = match k {
                    "bs" => "a range of sizes is bsrange=A-B; bs=A,B sets read and write sizes",
                    _ => "KEY=A,B sets the read and write values",
                };
                format!(
                    "fio 3.33 reads A-B as two values (reads A, writes and trims B), not a range: {}",
                    range.replace("KEY", k)
                )
            });
        }
        fill(&mut slots, curr, more, n);
    }
    if !read_any {
        return Some(Err(lines));
    }
    let value = slots
        .iter()
        .map(|s| s.map_or(String::new(), |n| n.to_string()))
        .collect::<Vec<_>>()
        .join(",");
    Some(Ok(Parts {
        value,
        lines,
        loose,
    }))
}

/// Why `iomark run` refuses a part of a per-direction value with no number in it, which
/// fio 3.33 skips (`bs=4k,abc` runs with writes of the default size, exit 0).
fn no_number(part: &str) -> String {
    format!(
        "'{}' has no number in it (accepted: a number such as 4k or 1m for each direction, as 4k,8k, or an empty part to keep a direction's default, as 4k,,8k; fio 3.33 skips such a part)",
        part.trim()
    )
}

/// Store `n` read in round `curr` as fio does: in direction `curr`, and when no round
/// follows (`more` false) in every direction after it.
fn fill(slots: &mut [Option<u64>; 3], curr: usize, more: bool, n: u64) {
    if let Some(s) = slots.get_mut(curr) {
        *s = Some(n);
    }
    if !more {
        for s in slots.iter_mut().skip(curr + 1) {
            *s = Some(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::find;
    use super::*;

    fn of(key: &str, v: &str) -> Option<Result<Parts, Vec<String>>> {
        read(find(key).unwrap(), v, 1024)
    }

    fn value(key: &str, v: &str) -> String {
        of(key, v).unwrap().unwrap().value
    }

    #[test]
    fn rounds_split_where_fio_splits() {
        assert_eq!(rounds("1k,2k"), [("1k,2k", true), ("2k", false)]);
        assert_eq!(rounds("1k,"), [("1k", true), ("", false)]);
        assert_eq!(rounds("8k:x"), [("8k:x", true), ("x", false)]);
        assert_eq!(rounds("1k-2k"), [("1k-2k", true), ("2k", false)]);
        assert_eq!(rounds("1k:2k,"), [("1k:2k", true), ("", false)]);
        assert_eq!(
            rounds("1k,,2k"),
            [("1k,,2k", true), (",2k", true), ("2k", false)]
        );
    }

    #[test]
    fn each_round_fills_its_direction_and_the_last_the_rest() {
        assert_eq!(value("bs", "1k"), "1024,1024,1024");
        assert_eq!(value("bs", "1k,4q"), "1024,4,4");
        assert_eq!(value("bs", "1k,,2k"), "1024,,2048");
        assert_eq!(value("bs", "8k:x"), "8192,,");
        assert_eq!(value("bs", "4q,8q"), "4,8,8");
        assert_eq!(value("bs", "1k,2k,3k,4k"), "1024,2048,3072");
        assert_eq!(value("bs", "0x10"), "16,16,16");
        assert_eq!(value("rate", "1m,0"), "1048576,0,0");
        assert_eq!(
            read(find("bs").unwrap(), "4KiB", 1000)
                .unwrap()
                .unwrap()
                .value,
            "4096,4096,4096"
        );
        assert_eq!(
            read(find("bs").unwrap(), "4k", 1000)
                .unwrap()
                .unwrap()
                .value,
            "4000,4000,4000"
        );
    }

    #[test]
    fn a_z_suffix_or_a_part_out_of_range_fails_its_round_with_fios_line() {
        let z = "bs: 'z' suffix isn't applicable".to_string();
        assert_eq!(
            of("bs", "1k,4z").unwrap().unwrap_err(),
            [z.clone(), z.clone()]
        );
        assert_eq!(of("rate", "1m,z").unwrap().unwrap_err().len(), 2);
        let p = of("bs", "0,1k").unwrap().unwrap();
        assert_eq!(p.value, ",1024,1024");
        assert_eq!(p.lines, ["bs: min value out of range: 0 (1 min)"]);
        let p = of("percentage_random", "150,50").unwrap().unwrap();
        assert_eq!(
            p.lines,
            ["percentage_random: max value out of range: 150 (100 max)"]
        );
        assert_eq!(p.value, ",50,50");
    }

    #[test]
    fn what_iomark_run_refuses_is_said() {
        assert!(of("bs", "4q").unwrap().unwrap().loose.is_some());
        assert!(of("bs", "1k-2k").unwrap().unwrap().loose.is_some());
        assert!(of("bs", "1k,2k").unwrap().unwrap().loose.is_none());
        // a part with no number: fio 3.33 skips it (`bs=4k,abc` ran writes of the
        // default 4k, exit 0), `iomark run` refuses it; an empty part keeps the default
        let p = of("bs", "4k,abc").unwrap().unwrap();
        assert_eq!(p.value, "4096,,");
        assert_eq!(
            p.loose.as_deref(),
            Some("'abc' has no number in it (accepted: a number such as 4k or 1m for each direction, as 4k,8k, or an empty part to keep a direction's default, as 4k,,8k; fio 3.33 skips such a part)")
        );
        assert!(of("bs", "x,1k").unwrap().unwrap().loose.is_some());
        assert!(of("bs", "8k:x").unwrap().unwrap().loose.is_some());
        assert!(of("bs", "1k,,2k").unwrap().unwrap().loose.is_none());
        assert!(of("bs", "1k,").unwrap().unwrap().loose.is_none());
        assert!(of("bs", ",2k").unwrap().unwrap().loose.is_none());
        // signed values, expressions and fractions are read elsewhere
        for v in ["-1", "(1+1)k", "1.5k", "4%", "1k,-4k"] {
            assert!(of("bs", v).is_none(), "{v}");
        }
        assert!(read(find("max_latency").unwrap(), "1,2", 1024).is_none());
    }
}
