//! Options of fio's group "I/O": block sizes (`bs`, `bsrange`, `bssplit`, `ba`), the
//! amount of I/O (`size`, `io_size`, `number_ios`) and where it starts (`offset`,
//! `offset_increment`). `size`, `offset`, `offset_increment` and `io_size` also take a
//! count of zones (`8z`, fio's `int[z]`), settled by `zone_keys::settle`.

use super::{FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::notice::Notice;
use crate::job::fio::zone_keys::zones_of;
use crate::job::fio::{BlockSizes, FioError, SizeSpec};
use crate::job::units::{self, BssplitError};

type R = Result<(), FioError>;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job("bs", Group::Io, Kind::Int, "Block size unit", bs)
        .alias(&["blocksize"])
        .default("4096")
        .range(1, -1)
        .example("4k,64k")
        .parent("rw")
        .fio_job(28, OptType::Ull)
        .per_direction(),
    FioOption::job(
        "bsrange",
        Group::Io,
        Kind::Range,
        "Set block size range (in more detail than bs)",
        bsrange,
    )
    .alias(&["blocksize_range"])
    .range(1, 0)
    .example("4k-16k")
    .parent("rw")
    .fio_job(30, OptType::Range)
    .per_direction(),
    FioOption::job(
        "bssplit",
        Group::Io,
        Kind::Str,
        "Set a specific mix of block sizes",
        bssplit,
    )
    .example("4k/50:64k/50")
    .parent("rw")
    .fio_job(31, OptType::StrUll)
    .callback(),
    FioOption::job(
        "ba",
        Group::Io,
        Kind::Int,
        "IO block offset alignment",
        blockalign,
    )
    .alias(&["blockalign"])
    .range(1, -1)
    .example("4k")
    .parent("rw")
    .fio_job(29, OptType::Ull)
    .per_direction(),
    FioOption::job(
        "size",
        Group::Io,
        Kind::SizeStr,
        "Total size of device or files",
        size,
    )
    .example("50%")
    .fio_job(19, OptType::StrValZone)
    .callback(),
    FioOption::job(
        "io_size",
        Group::Io,
        Kind::SizeStr,
        "Total size of I/O to be performed",
        io_size,
    )
    .alias(&["io_limit"])
    .example("64m")
    .fio_job(20, OptType::StrValZone)
    .callback(),
    FioOption::job(
        "number_ios",
        Group::Io,
        Kind::Str,
        "Force job completion after this number of IOs",
        number_ios,
    )
    .default("0")
    .fio_job(27, OptType::StrVal),
    FioOption::job(
        "offset",
        Group::Io,
        Kind::SizeStr,
        "Start IO from this offset",
        offset,
    )
    .alias(&["fileoffset"])
    .default("0")
    .example("10%")
    .fio_job(24, OptType::StrValZone)
    .callback(),
    FioOption::job(
        "offset_increment",
        Group::Io,
        Kind::SizeStr,
        "What is the increment from one offset to the next",
        offset_increment,
    )
    .default("0")
    .example("1m")
    .parent("offset")
    .fio_job(26, OptType::StrValZone)
    .callback(),
];

/// fio's `int[z]`: `Nz` counts zones, turned into bytes by `zone_keys::settle` once
/// `zonesize` is known; a later plain value replaces an earlier `Nz` of the same key.
/// True when `v` is such a count (it is then recorded).
pub(super) fn zone_count(c: &mut JobCtx<'_>, v: Option<&str>) -> bool {
    let key = c.key;
    let z = &mut c.job.more.zones;
    z.pending_z.retain(|(k, _)| k != key);
    match v.and_then(zones_of) {
        Some(n) => {
            z.pending_z.push((key.to_string(), n));
            true
        }
        None => false,
    }
}

/// `READ[,WRITE[,TRIM]]` of a per-direction key, as fio fills the directions: part N
/// through `one` sets direction N (an empty part is `None`: that direction keeps its
/// value) and the last part the directions after it.
fn per_direction<T: Clone>(
    v: &str,
    mut one: impl FnMut(&str) -> Result<Option<T>, FioError>,
) -> Result<[Option<T>; 3], FioError> {
    let parts: Vec<&str> = v.split(',').take(3).collect();
    let mut out = [None, None, None];
    for (d, p) in parts.iter().enumerate() {
        out[d] = one(p)?;
    }
    let last = out[parts.len() - 1].clone();
    for slot in out.iter_mut().skip(parts.len()) {
        slot.clone_from(&last);
    }
    Ok(out)
}

fn set_sizes(c: &mut JobCtx<'_>, sizes: [Option<BlockSizes>; 3]) {
    let [r, w, t] = sizes;
    let j = &mut *c.job;
    for (slot, got) in [
        (&mut j.bs_read, r),
        (&mut j.bs_write, w),
        (&mut j.bs_trim, t),
    ] {
        if let Some(b) = got {
            *slot = b;
        }
    }
}

/// `bs=R,W,T`, read as fio 3.33 reads its parts (parse.c `handle_option`): each in
/// turn, a part of 0 out of the range — fio's line for it on stderr, that direction
/// keeping its size (`bs=0,1k` leaves reads at 4k) — and the option refused only when
/// no part is read (`bs=0`, `bs=0,0`). The last part sets the directions after it.
fn bs(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    if v.split(',').count() > 3 {
        return Err(c.bad(v, "at most read,write,trim sizes"));
    }
    let mut zeros = 0;
    let read = per_direction(v, |p| {
        let b = bs_part(c, v, p)?;
        zeros += usize::from(b == Some(0));
        Ok(b)
    })?;
    let parts = v.split(',').count();
    if read.iter().take(parts).all(|r| matches!(r, None | Some(0))) && zeros > 0 {
        return Err(c.bad(v, "block size must be > 0"));
    }
    for _ in 0..zeros {
        c.notices
            .push(Notice::fio("bs: min value out of range: 0 (1 min)"));
    }
    // (a direction a bsrange or bssplit sized keeps its sizes, given before or after)
    let ranged = c.job.more.ranged;
    let mut sizes = read.map(|r| r.filter(|b| *b > 0).map(BlockSizes::Fixed));
    for (s, r) in sizes.iter_mut().zip(ranged) {
        if r {
            *s = None;
        }
    }
    set_sizes(c, sizes);
    Ok(())
}

/// One part of `bs=` (`v`): `None` when empty, else its size (0 included).
fn bs_part(c: &JobCtx<'_>, v: &str, p: &str) -> Result<Option<u64>, FioError> {
    if p.trim().is_empty() {
        return Ok(None);
    }
    if p.contains('-') {
        // public case C12: `bs=4k-16k` is not a range in fio's bs= (it would
        // silently mean "read 4k, write 16k" in some versions)
        return Err(c.bad(
            v,
            "a range is not a block size: use bsrange=A-B for a range; bs=A,B sets read and write sizes",
        ));
    }
    // refused as the whole value, as fio names it (`failed parsing bs=0,zz`)
    let b = units::fio_size(p, c.job.kb_base).map_err(|e| c.bad(v, e))?;
    Ok(Some(b))
}

/// One direction of `bsrange`: sizes are multiples of the minimum (fio's promise; public
/// case C12); a maximum that is not one is rounded down, and said.
fn bsrange_one(c: &mut JobCtx<'_>, v: &str, p: &str) -> Result<Option<BlockSizes>, FioError> {
    if p.trim().is_empty() {
        return Ok(None);
    }
    let (a, b) = units::fio_range(p, c.job.kb_base).map_err(|e| c.bad(v, e))?;
    if a == 0 {
        return Err(c.bad(v, "block size must be > 0"));
    }
    if b % a != 0 {
        c.notice(format!(
            "notice: {}={}: {b} is not a multiple of {a}; issued sizes are multiples of {a} up to {}",
            c.key,
            p.trim(),
            b / a * a
        ));
    }
    let b = b / a * a;
    Ok(Some(if a == b {
        BlockSizes::Fixed(a)
    } else {
        BlockSizes::Range(a, b)
    }))
}

fn bsrange(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let sizes = per_direction(v, |p| bsrange_one(c, v, p))?;
    mark_ranged(c, &sizes);
    set_sizes(c, sizes);
    Ok(())
}

/// `bssplit`: per direction (`,`), sizes with their weights (`:`); fio 3.33 strips the
/// blanks around the whole value, and reads each size after them as it is (` 8k` after a
/// `:` or `,` is 8 bytes: [`units::fio_decimal`]).
fn bssplit(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let sizes = per_direction(v.trim(), |p| {
        if p.trim().is_empty() {
            return Ok(None);
        }
        // `iomark run` wants weights that add up (the fio persona reads them as fio)
        if !c.job.fio_persona {
            units::iomark_bssplit_sum(p, c.job.kb_base).map_err(|e| c.bad(v, e.to_string()))?;
        }
        match units::fio_bssplit(p, c.job.kb_base) {
            // (no entry: fio keeps the direction's sizes)
            Ok(s) if s.is_empty() => Ok(None),
            Ok(s) => Ok(Some(BlockSizes::Split(s))),
            // fio's own line is the reason (cli/fio_refusal.rs prints it as fio does)
            Err(e @ BssplitError::Over(_)) => Err(c.bad(v, e.to_string())),
            Err(e @ (BssplitError::Sum(_) | BssplitError::Syntax(_))) => {
                Err(c.bad(v, e.to_string()))
            }
        }
    })?;
    mark_ranged(c, &sizes);
    set_sizes(c, sizes);
    Ok(())
}

/// The directions `sizes` sets are a range's or a split's ([`JobMore::ranged`]).
///
/// [`JobMore::ranged`]: crate::job::fio::keys::JobMore
fn mark_ranged(c: &mut JobCtx<'_>, sizes: &[Option<BlockSizes>; 3]) {
    for (r, s) in c.job.more.ranged.iter_mut().zip(sizes) {
        *r |= s.is_some();
    }
}

/// `ba=R,W,T`: each direction's unit of random offsets (an empty part keeps that
/// direction's, as fio keeps it; the last part sets the directions after it).
fn blockalign(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let aligns = per_direction(v, |p| {
        if p.trim().is_empty() {
            return Ok(None);
        }
        match c.size(p)? {
            0 => Err(c.bad(v, "must be > 0")),
            a => Ok(Some(a)),
        }
    })?;
    for (slot, a) in c.job.more.blockalign.iter_mut().zip(aligns) {
        if a.is_some() {
            *slot = a;
        }
    }
    Ok(())
}

/// The number of a percentage: `v` (trimmed) up to its first `%`. fio 3.33 reads a
/// number followed by `%` as a percentage and ignores what follows the `%`
/// (parse.c get_mult_bytes): `size=100%%`, a `%` doubled as a shell template escapes
/// it, is 100%, and so is `100%x`.
fn percent_part(v: &str) -> Option<&str> {
    v.trim().split_once('%').map(|(p, _)| p)
}

fn size(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    if zone_count(c, v) {
        return Ok(());
    }
    let v = c.need(v)?;
    c.job.size = match percent_part(v) {
        Some(p) => {
            let f: f64 = p
                .trim()
                .parse()
                .map_err(|_| c.bad(v, "a percentage like 50%"))?;
            if !(f > 0.0 && f <= 100.0) {
                return Err(c.bad(v, "percentage must be in (0, 100]"));
            }
            Some(SizeSpec::Percent(f))
        }
        // fio: size=0 is unset (the file's own size is used)
        None => match c.size(v)? {
            0 => None,
            n => Some(SizeSpec::Bytes(n)),
        },
    };
    Ok(())
}

/// `io_size=BYTES` or `N%` of the thread's size. 0 (or 0%) means unset, as in fio (one
/// pass of `size`); fio 3.33 refuses above 100% and misreads a fraction (1.5% moved one
/// block), so only whole percentages are taken.
fn io_size(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    if zone_count(c, v) {
        return Ok(());
    }
    let v = c.need(v)?;
    c.job.more.io_size = None;
    c.job.more.io_size_pct = None;
    match percent_part(v) {
        Some(p) => {
            let pc: u64 = p
                .trim()
                .parse()
                .map_err(|_| c.bad(v, "a whole percentage of size from 0% to 100%"))?;
            if pc > 100 {
                return Err(c.bad(v, "percentages above 100% are not accepted"));
            }
            c.job.more.io_size_pct = Some(pc).filter(|&n| n > 0);
        }
        None => c.job.more.io_size = Some(c.size(v)?).filter(|&n| n > 0),
    }
    Ok(())
}

fn number_ios(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.number_ios = c.need_u64(v)?;
    Ok(())
}

/// A value with a `%` given to `offset` or `offset_increment`, read as fio 3.33 reads
/// it: in parts (parse.c `handle_option`: split at the first `,`, else `:`, else `-`,
/// the rest split again), each part's leading number (`str_to_decimal`) followed at
/// once by `%` stored as −1 − N, by a unit's letters as the number times the unit, by
/// anything else as the number alone (`10.5%` is 10 bytes); the option's callback then
/// takes a stored value from −101 up as the percentage N (0 to 100) and any other as
/// bytes (`150%` is 2^64 − 151 bytes, past any file), a later part replacing the
/// bytes, or the percentage and the bytes (so `-5%`, the parts `-5%`, 4 bytes, and
/// `5%`, is 5%). A percentage above 0 is the offset fio uses. `(bytes, percentage)`;
/// `None` when no part starts with a number (refused).
fn fio_percent_offset(v: &str, kb_base: u64) -> Option<(u64, u64)> {
    let (mut bytes, mut pct, mut any) = (0u64, 0u64, false);
    let mut rest = v;
    loop {
        let part = rest.split(',').next().unwrap_or_default();
        if let Some(stored) = fio_part_stored(part, kb_base) {
            any = true;
            match u64::MAX - stored {
                n if n <= 100 => (bytes, pct) = (0, n),
                _ => bytes = stored,
            }
        }
        let split = rest
            .find(',')
            .filter(|&at| at + 1 < rest.len())
            .or_else(|| rest.find(':'))
            .or_else(|| rest.find('-'));
        match split {
            Some(at) => rest = &rest[at + 1..],
            None => break,
        }
    }
    any.then_some((bytes, pct))
}

/// One part of a size value as fio 3.33's `str_to_decimal` stores it: `N%` (the `%`
/// right after the sign and digits) as −1 − N, else the number times the unit its
/// letters name (1 for none or other text), wrapping as fio's 64 bits do.
fn fio_part_stored(part: &str, kb_base: u64) -> Option<u64> {
    let num = crate::job::units::fio_number(part, kb_base)?;
    let digits_then_percent = !num.hex
        && num.letters.is_empty()
        && num.rest.starts_with('%')
        && !part.starts_with(char::is_whitespace);
    if digits_then_percent {
        return Some(u64::MAX.wrapping_sub(num.n as u64));
    }
    Some((num.n as u64).wrapping_mul(num.mult.unwrap_or(1)))
}

fn offset(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    if zone_count(c, v) {
        return Ok(());
    }
    let v = c.need(v)?;
    c.job.more.offset = Some(match percent_part(v) {
        Some(_) => match fio_percent_offset(v, c.job.kb_base) {
            Some((_, pct)) if pct > 0 => SizeSpec::Percent(pct as f64),
            Some((bytes, _)) => SizeSpec::Bytes(bytes),
            None => return Err(c.bad(v, "a size, or a whole percentage like 50%")),
        },
        None => SizeSpec::Bytes(c.size(v)?),
    });
    Ok(())
}

fn offset_increment(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    if zone_count(c, v) {
        return Ok(());
    }
    let v = c.need(v)?;
    // fio 3.33's reading of `N%` ([`fio_percent_offset`]): up to 100 a percentage (0%
    // is no increment), above it that number of bytes, which puts every clone past its
    // file
    let (bytes, pct) = match percent_part(v) {
        Some(_) => match fio_percent_offset(v, c.job.kb_base) {
            Some((_, pct)) if pct > 0 => (0, Some(pct)),
            Some((bytes, _)) => (bytes, None),
            None => return Err(c.bad(v, "a size, or a whole percentage like 50%")),
        },
        None => (c.size(v)?, None),
    };
    c.job.more.offset_increment = bytes;
    c.job.more.offset_increment_pct = pct;
    Ok(())
}
