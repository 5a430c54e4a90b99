//! A negative number given to a numeric option (`size=-1`, `bs=-4k`, `fsync=-1`), read as
//! fio 3.33 reads it (parse.c `handle_option`): the value splits at its leading `-` into
//! two parts, `-N` and `N`, each checked on its own against fio's range for the option's
//! type; the option is taken when either part passes, and what it then holds depends on
//! where fio stores each part — the row's facts of fio's option table ([`OptType`],
//! [`Store`]).
//! This module owns that reading: the parts' checks, fio's stderr lines for the parts out
//! of range, and the values the key's `apply` is tried with, in order.

use super::{FioOption, FioType, Kind, OptType, Range, Reading, Store};
use crate::job::units;

/// fio's range checks of one part `n` of option `o` (parse.c `val_too_large`,
/// `val_too_small`, the power-of-2 check): the line fio prints when the part fails.
/// An integer's (FIO_OPT_INT) checks compare as a C `int`; a ULL option's (its first
/// part compares unsigned), a size's and a time's have no bound a wrapped `-N` fails.
fn part_fails(o: &FioOption, n: i64, first: bool) -> Option<String> {
    let shown = o.help_shown();
    if shown.fio_type != FioType::Int {
        return None;
    }
    let Range::Int(min, max) = shown.range else {
        return None;
    };
    let name = o.name;
    if o.name == "replay_align" && (n <= 0 || n & (n - 1) != 0) {
        return Some(format!("{name}: must be a power-of-2"));
    }
    if first && o.fio_type == Some(OptType::Ull) {
        return None;
    }
    if max >= min && max > 0 && n > max {
        return Some(format!("{name}: max value out of range: {n} ({max} max)"));
    }
    if min != 0 && n < min {
        return Some(format!("{name}: min value out of range: {n} ({min} min)"));
    }
    None
}

/// fio 3.33's `cpumask` callback over one part `n` (options.c `str_cpumask_cb`): the
/// first of the mask's low 32 bits that names a CPU this machine lacks is its line
/// (`fio: CPU 2 too large (max=1)`; `-1` sets them all).
fn cpumask_fails(n: i64) -> Option<String> {
    let bits = (0..32).filter(|i| (n as u64) >> i & 1 == 1);
    super::cpu_past_machine(bits)
}

/// fio 3.33's lines for `cpumask=-N` when both its parts name a CPU this machine lacks
/// (`str_cpumask_cb` says each part's, then the parse fails); `None` otherwise.
pub(crate) fn negative_cpumask_lines(v: &str, kb_base: u64) -> Option<String> {
    let body = v.trim().strip_prefix('-')?;
    let n = units::fio_number(body, kb_base)
        .filter(|n| n.rest.is_empty() && !n.hex)?
        .value()?;
    match (cpumask_fails(-n), cpumask_fails(n)) {
        (Some(a), Some(b)) if n > 0 => Some(format!("{a}\n{b}")),
        _ => None,
    }
}

/// `-N` given to a numeric option `o`, read as fio 3.33 reads it (the module's header).
/// `None` when `v` is not `-N` with `N` above 0 (a plain number, units allowed), when `o`
/// is no numeric option fio has, or when both parts fail (the key's refusal stands).
pub(super) fn negative_number(o: &FioOption, v: &str, kb_base: u64) -> Option<Reading> {
    // one of fio's numeric options (`zonesize`, FIO_OPT_STR_VAL, which fio names a
    // string, included; a listed word's, `sync_file_range`, is not one)
    let numeric = o.fio_type.is_some_and(OptType::is_number);
    if !matches!(o.kind, Kind::Int | Kind::SizeStr | Kind::Time) || !numeric {
        return None;
    }
    let t = v.trim();
    let body = t.strip_prefix('-')?;
    if body.starts_with([' ', '+', '-']) {
        return None;
    }
    let num = units::fio_number(body, kb_base).filter(|n| n.rest.is_empty() && !n.hex)?;
    // a time's letters are its unit as fio reads them, in µs (`-4k` is -4 µs: fio's
    // unknown letters count µs); with none, the digits count in the option's unit
    let (n, unit) = match (o.kind, units::fio_time_letters_us(num.letters)) {
        (Kind::Time, Some(us)) => (num.n.checked_mul(i64::try_from(us).ok()?)?, "us"),
        (Kind::Time, None) => (num.n, ""),
        _ => (num.value()?, ""),
    };
    if n <= 0 {
        return None;
    }
    let (a, b) = match o.name {
        // (both parts naming a CPU this machine lacks is fio's callback's refusal: the
        // job's CPU check says it, args.rs `cpus_past_machine`, not on a dry run)
        "cpumask" => match (cpumask_fails(-n), cpumask_fails(n)) {
            (Some(_), Some(_)) => (None, None),
            parts => parts,
        },
        _ => (part_fails(o, -n, true), part_fails(o, n, false)),
    };
    if a.is_some() && b.is_some() {
        return None;
    }
    let wrapped = match o.help_shown().fio_type {
        // an `int` slot: 2^32 − N
        FioType::Int if o.fio_type != Some(OptType::Ull) => u64::from((n as u32).wrapping_neg()),
        _ => (n as u64).wrapping_neg(),
    };
    let tries = tries(o, (t, unit), (a.is_none(), b.is_none()), (wrapped, n));
    Some(Reading {
        value: None,
        more: tries,
        said: false,
        fio_lines: [a, b].into_iter().flatten().collect(),
    })
}

/// The values the key's `apply` is tried with, in order, for `-N` typed as `typed` (a
/// time's `N` in `unit`): the first it takes is the job's; none taken, the default stays.
/// `ok` says which of the parts `-N` and `N` pass fio's checks, `wrapped` is `-N` as fio
/// stores it.
fn tries(
    o: &FioOption,
    (typed, unit): (&str, &str),
    ok: (bool, bool),
    (wrapped, n): (u64, i64),
) -> Vec<String> {
    match (o.store, ok) {
        // reads get the wrapped part, writes and trims N; a read slot iomark cannot
        // hold keeps its value
        (Store::PerDirection, (true, true)) => {
            vec![format!("{wrapped},{n},{n}"), format!(",{n},{n}")]
        }
        (Store::PerDirection, (true, false)) => vec![format!("{wrapped},")],
        (Store::PerDirection, (false, true)) => vec![format!(",{n},{n}")],
        (Store::Callback | Store::CallbackCapped, (_, true)) => vec![n.to_string()],
        (Store::Callback | Store::CallbackCapped, _) => {
            // `rwmixread=-4k`: the part `4096` fails, the wrapped part is capped at 100
            let cap = match o.range {
                Range::Int(_, max) if o.store == Store::CallbackCapped => Some(max.to_string()),
                _ => None,
            };
            [Some(wrapped.to_string()), cap]
                .into_iter()
                .flatten()
                .collect()
        }
        // a key that reads a signed value (`nice=-5`, `runtime=-1`) takes it as typed
        (Store::One, (true, _)) if o.kind == Kind::Time => {
            vec![typed.to_string(), format!("-{n}{unit}")]
        }
        (Store::One, (true, _)) => vec![typed.to_string(), wrapped.to_string()],
        (_, (false, _)) => Vec::new(),
    }
}

/// Whether `-N` (`v`) given to `o` is one value the option takes as written, not fio's
/// reading in two parts: the row takes negatives ([`FioOption::takes_negative`]) and `N`
/// is what it reads: a time iomark reads (`runtime=-1s`; `runtime=-4k` is fio's two
/// parts, its `k` no unit of a time), else a whole number (`nice=-5`; `nice=-1s` is two
/// parts).
pub(super) fn one_value(o: &FioOption, v: &str) -> bool {
    let body = v.trim().trim_start_matches('-');
    let read = match o.kind {
        Kind::Time => units::fio_time(body, 1_000_000_000).is_ok(),
        _ => body.parse::<u64>().is_ok(),
    };
    o.takes_negative && read
}
