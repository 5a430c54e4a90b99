//! Options of fio's groups "Randomizations" (seeds, offset distributions, generators,
//! SPRandom preconditioning) and "Zone" (`zonemode` and its sizes, zbd limits). The run
//! side is `run/gen/` (`zones.rs`, `sprandom.rs`).

use super::blocks::zone_count;
use super::{FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::keys::{fio_skew, parse_distribution};
use crate::job::fio::zone_keys::{RandGen, ZoneMode};
use crate::job::fio::FioError;
use crate::job::model::Distribution;

type R = Result<(), FioError>;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job("randseed", Group::Random, Kind::Int, "Set the random generator seed value", randseed)
        .default("0x89")
        .example("42")
        .parent("rw").fio_job(35, OptType::StrVal),
    FioOption::job("randrepeat", Group::Random, Kind::Bool, "Use repeatable random IO pattern", randrepeat)
        .default("1")
        .parent("rw").fio_job(34, OptType::Bool),
    FioOption::job("norandommap", Group::Random, Kind::Flag, "Accept potential duplicate random blocks", norandommap)
        .parent("rw").fio_job(36, OptType::StrSet),
    FioOption::job("random_distribution", Group::Random, Kind::Str, "Random offset distribution generator", random_distribution)
        // a value per direction at `,`, parameters at `:`
        .reads_its_rest()
        .default("random")
        .values(&[
            ("random", "Completely random"),
            ("zipf", "Zipf distribution"),
            ("pareto", "Pareto distribution"),
            ("normal", "Normal (Gaussian) distribution"),
            ("gauss", "Alias for 'normal'"),
            ("zoned", "Zoned random distribution"),
            ("zoned_abs", "Zoned absolute random distribution"),
            ("sequence", "Block indices in the given order (sequence:2,0,1)"),
        ])
        .example("zipf:1.2,pareto:0.5")
        .shows_values(FIO_RANDOM_DISTRIBUTION).fio_job(39, OptType::Str).callback(),
    FioOption::job("percentage_random", Group::Random, Kind::Int, "Percentage of seq/random mix that should be random", percentage_random)
        .default("100,100,100")
        .range(0, 100)
        .example("50").fio_job(40, OptType::Int).per_direction(),
    FioOption::job("random_generator", Group::Random, Kind::Str, "Type of random number generator to use", random_generator)
        .default("tausworthe")
        .values(&[
            ("tausworthe", "Strong Tausworthe generator"),
            ("lfsr", "Variable length LFSR"),
            ("tausworthe64", "64-bit Tausworthe variant"),
        ])
        .example("lfsr").fio_job(38, OptType::Str),
    FioOption::job("random_sequence_stride", Group::Random, Kind::Int, "Stride sequence of blocks for random distribution", random_sequence_stride)
        .default("0")
        .range(0, -1),
    FioOption::job("sprandom", Group::Random, Kind::Bool, "Set up Sandisk Pseudo Random Preconditioning", sprandom)
        .default("0"),
    FioOption::job("spr_op", Group::Random, Kind::FloatList, "Over provisioning ratio for SPRandom", spr_op)
        .default("0.15")
        .frange(0.0, 1.0)
        .example("0.2"),
    FioOption::job("spr_num_regions", Group::Random, Kind::Int, "Number of regions for sprandom", spr_num_regions)
        .default("100")
        .range(1, 1_000_000)
        .example("50"),
    FioOption::job("zonemode", Group::Zone, Kind::Str, "Mode for the zonesize, zonerange and zoneskip parameters", zonemode)
        .default("none")
        .values(&[
            ("none", "no zoning"),
            ("strided", "strided mode - random I/O is restricted to a single zone"),
            ("zbd", "zoned block device mode - random I/O selects one of multiple zones randomly"),
        ])
        .example("zbd").fio_job(101, OptType::Str),
    FioOption::job("zonesize", Group::Zone, Kind::SizeStr, "Amount of data to read per zone", zonesize)
        .default("0")
        .example("256m")
        .fio_job(102, OptType::StrVal),
    FioOption::job("zonerange", Group::Zone, Kind::SizeStr, "Give size of an IO zone", zonerange)
        .default("0")
        .example("1g")
        .fio_job(104, OptType::StrVal),
    FioOption::job("zoneskip", Group::Zone, Kind::SizeStr, "Space between IO zones", zoneskip)
        .default("0")
        .example("2z")
        .fio_job(105, OptType::StrValZone).callback(),
    FioOption::job("max_open_zones", Group::Zone, Kind::Int, "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd", max_open_zones)
        .default("0")
        .range(0, 4096)
        .example("4").fio_job(107, OptType::Int),
    FioOption::job("job_max_open_zones", Group::Zone, Kind::Int, "Limit on the number of simultaneously opened sequential write zones with zonemode=zbd by one thread/process", job_max_open_zones)
        .default("0")
        .range(0, 4096)
        .example("2").fio_job(108, OptType::Int),
    FioOption::job("zone_reset_threshold", Group::Zone, Kind::FloatList, "Zoned block device reset threshold", zone_reset_threshold)
        .frange(0.0, 1.0)
        .example("0.5").fio_job(110, OptType::FloatList),
    FioOption::job("zone_reset_frequency", Group::Zone, Kind::FloatList, "Zoned block device zone reset frequency in HZ", zone_reset_frequency)
        .frange(0.0, 1.0)
        .example("0.125:0.5").fio_job(111, OptType::FloatList),
    FioOption::job("read_beyond_wp", Group::Zone, Kind::Bool, "Allow reads beyond the zone write pointer", read_beyond_wp)
        .default("0").fio_job(106, OptType::Bool),
];

/// `randseed`: a number as fio's `check_str_bytes` reads it (units, hex, `1.5` is 1; a
/// negative one wraps, options/signed.rs). The fio persona reads it as fio 3.33 does
/// ([`fio_seed`]); `iomark run` refuses what is no size.
fn randseed(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let seed = match c.job.fio_persona && !crate::job::units::expr::is_expression(v) {
        true => fio_seed(v, c.job.kb_base).ok_or_else(|| c.bad(v, "a number (the seed)"))?,
        false => c.size(v)?,
    };
    c.job.randseed = Some(seed);
    Ok(())
}

/// A seed as fio 3.33's `str_to_decimal` reads it: the leading number (base 16 when
/// `0x` stands in the text: `0x` alone is 0) times the unit its letters start with, or
/// 1 for other letters (`1e3` is 1), in wrapping 64-bit arithmetic; a `%` right after a
/// decimal number makes it fio's percentage, −1 − N (`10%` is 2⁶⁴ − 11); a negative
/// number below −2⁶³ is `strtoll`'s −2⁶³ (fio checks only the positive overflow).
/// `None` when no number starts it or its digits pass 2⁶³ − 1 (`strtoll`'s `ERANGE`,
/// which fio refuses).
fn fio_seed(v: &str, kb_base: u64) -> Option<u64> {
    use crate::job::units::fio_number;
    let t = v.trim_start();
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let hex = v.contains("0x") || v.contains("0X");
    let (n, num) = match fio_number(v, kb_base) {
        Some(num) => (num.n, num),
        // below −2⁶³: strtoll's LLONG_MIN, the unit read after the digits as fio does
        None if !hex => {
            let body = t.strip_prefix('-')?;
            let d = digits(body);
            (d > 0).then_some(())?;
            let tail = format!("-1{}", &body[d..]);
            let num = fio_number(&tail, kb_base)?;
            let mult = num.mult.unwrap_or(1) as i64;
            let percent = body[d..].starts_with('%');
            return Some(match percent {
                true => !(i64::MIN as u64),
                false => i64::MIN.wrapping_mul(mult) as u64,
            });
        }
        None => return None,
    };
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    if !hex && body[digits(body)..].starts_with('%') {
        return Some(!(n as u64));
    }
    let mult = num.mult.unwrap_or(1) as i64;
    Some(n.wrapping_mul(mult) as u64)
}

/// `random_distribution=READ[,WRITE]` under `iomark run`; `sequence:2,0,1` uses commas
/// between indices, so it is one value for both directions. The fio persona reads one
/// value for both directions, as fio 3.33 does ([`fio_distribution`]).
fn random_distribution(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let kb = c.job.kb_base;
    if c.job.fio_persona {
        if let Some(d) = fio_distribution(v).map_err(|e| c.bad(v, e))? {
            c.job.more.dist = [d.clone(), d];
            return Ok(());
        }
    }
    let parts: Vec<&str> = if v.trim_start().starts_with("sequence") {
        vec![v]
    } else {
        v.split(',').collect()
    };
    let persona = c.job.fio_persona;
    let read = |p: &str| match persona {
        true => persona_distribution(p, kb),
        false => parse_distribution(p, kb),
    };
    let r = read(parts[0]).map_err(|e| c.bad(v, e))?;
    let w = match parts.get(1).filter(|p| !p.trim().is_empty()) {
        Some(p) => read(p).map_err(|e| c.bad(v, e))?,
        None => r.clone(),
    };
    c.job.more.dist = [r, w];
    Ok(())
}

/// fio 3.33's reading of `random_distribution` (parse.c `opt_len`, options.c
/// `str_random_distribution_cb`): the word is the text before the first `,` (else
/// before the first `:`) and must be one of the listed words, so `zipf:1.2,pareto:0.3`
/// names none; `zipf`, `pareto` and `normal` take their parameter from after the first
/// `:` of the whole value (`zipf,pareto:0.3` is zipf with theta 0.3), for both
/// directions; text after `random,` is not read. `None`: a value with no `,`, or a zoned
/// one, read one direction at a time as before ([`persona_distribution`]).
fn fio_distribution(v: &str) -> Result<Option<Distribution>, String> {
    let t = v.trim();
    let Some((word, _)) = t.split_once(',') else {
        return Ok(None);
    };
    let post = t.split_once(':').map(|(_, p)| p);
    match word {
        "random" => Ok(Some(Distribution::Random)),
        "zipf" | "pareto" | "normal" => {
            let (val, center) = fio_skew(word, post, false)?;
            Ok(Some(match word {
                "zipf" => Distribution::Zipf(val, center),
                "pareto" => Distribution::Pareto(val, center),
                _ => Distribution::Normal(val, center),
            }))
        }
        "zoned" | "zoned_abs" => Ok(None),
        _ => Err("accepted: random, zipf, pareto, normal, zoned, zoned_abs".into()),
    }
}

/// One direction's distribution as the fio persona reads it: `zipf`, `pareto` and
/// `normal` as fio 3.33 reads them ([`fio_skew`]: a bare kind, a centre, fio's ranges
/// and lines), `gauss` (no word of fio 3.33's list) refused; the others as `iomark run`
/// reads them.
fn persona_distribution(p: &str, kb: u64) -> Result<Distribution, String> {
    let t = p.trim();
    let (kind, post) = match t.split_once(':') {
        Some((k, rest)) => (k.trim(), Some(rest)),
        None => (t, None),
    };
    let (val, center) = match kind {
        "zipf" | "pareto" | "normal" => fio_skew(kind, post, false)?,
        "gauss" => return Err("accepted: random, zipf, pareto, normal, zoned, zoned_abs".into()),
        "zoned" | "zoned_abs" => {
            if let Some(line) = post.and_then(|z| fio_zone_sums(z, kind == "zoned_abs")) {
                return Err(line);
            }
            return parse_distribution(p, kb);
        }
        _ => return parse_distribution(p, kb),
    };
    Ok(match kind {
        "zipf" => Distribution::Zipf(val, center),
        "pareto" => Distribution::Pareto(val, center),
        _ => Distribution::Normal(val, center),
    })
}

/// fio 3.33's line for zones whose percentages do not add up (options.c
/// `zone_split_ddir`): the access percentages given, or the range percentages of
/// `zoned:`, over 100, then the access percentages given under 100. `None` when they
/// add up (or an entry is no `ACCESS/RANGE`: the general reading says why).
fn fio_zone_sums(zones: &str, absolute: bool) -> Option<String> {
    let (mut access, mut range) = (0u64, 0u64);
    for z in zones.split(':').filter(|z| !z.trim().is_empty()) {
        let (a, r) = z.split_once('/')?;
        access += a.trim().parse::<u64>().ok()?;
        if !absolute && !r.trim().is_empty() {
            range += r.trim().parse::<u64>().ok()?;
        }
    }
    if access > 100 || range > 100 {
        return Some("fio: zone_split percentages add to more than 100%".into());
    }
    (access < 100).then(|| {
        format!("fio: access percentage don't add up to 100 for zoned random distribution (got={access})")
    })
}

fn percentage_random(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    // reads, writes, trims; the last part given fills the directions after it, and an
    // empty part keeps that direction's percentage, as fio's
    let mut last = None;
    for d in 0..3 {
        let part = v.split(',').nth(d);
        let n = match part.map(str::trim) {
            Some("") => continue,
            Some(p) => c.u64(p)?,
            None => match last {
                Some(n) => n,
                None => continue,
            },
        };
        if n > 100 {
            return Err(c.bad(v, "a percentage 0-100"));
        }
        c.job.more.percentage_random[d] = n as u32;
        if part.is_some() {
            last = Some(n);
        }
    }
    Ok(())
}

fn random_generator(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let g = match v.trim() {
        "tausworthe" => RandGen::Tausworthe,
        "tausworthe64" => RandGen::Tausworthe64,
        "lfsr" => RandGen::Lfsr,
        _ => return Err(c.bad(v, "accepted: tausworthe, lfsr, tausworthe64")),
    };
    c.job.more.zones.random_generator = Some(g);
    c.notice(match g {
        RandGen::Lfsr => "note: random_generator=lfsr: uniform random offsets come from fio's LFSR of each file (every block exactly once per pass, without a random map, also with norandommap=1), in fio's order".to_string(),
        RandGen::Tausworthe64 => "note: random_generator=tausworthe64: offsets, sizes and choices come from fio's 64-bit taus258 generators, in fio's order".to_string(),
        RandGen::Tausworthe => "note: random_generator=tausworthe: offsets, sizes and choices come from fio's 32-bit taus88 generators (its default), in fio's order".to_string(),
    });
    Ok(())
}

fn random_sequence_stride(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.zones.sequence_stride = c.need_u64(v)?;
    Ok(())
}

fn spr_op(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let f = v.split(':').next().unwrap_or(v).trim();
    c.job.more.zones.spr_op = f
        .parse::<f64>()
        .ok()
        .filter(|f| *f > 0.0 && *f < 1.0)
        .ok_or_else(|| c.bad(v, "an over-provisioning share in (0, 1), e.g. 0.15"))?;
    Ok(())
}

fn spr_num_regions(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    if n == 0 || n > 1_000_000 {
        return Err(c.bad(v, "between 1 and 1000000"));
    }
    c.job.more.zones.spr_num_regions = n as u32;
    Ok(())
}

fn zonemode(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.zones.mode = match v.trim() {
        "none" => ZoneMode::None,
        "strided" => ZoneMode::Strided,
        "zbd" => ZoneMode::Zbd,
        _ => return Err(c.bad(v, "accepted: none, strided, zbd")),
    };
    Ok(())
}

fn zonesize(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.zones.size = c.size(c.need(v)?)?;
    Ok(())
}

fn zonerange(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.zones.range = c.size(c.need(v)?)?;
    Ok(())
}

fn zoneskip(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    if zone_count(c, v) {
        return Ok(());
    }
    c.job.more.zones.skip = c.size(c.need(v)?)?;
    Ok(())
}

/// A zone count limit: 0 (no limit) to 4096.
fn open_zones(c: &JobCtx<'_>, v: Option<&str>) -> Result<u32, FioError> {
    Ok(c.need_at_most(v, 4096, "between 0 and 4096 (0 = no limit)")? as u32)
}

fn max_open_zones(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.zones.max_open_zones = open_zones(c, v)?;
    Ok(())
}

fn job_max_open_zones(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.zones.job_max_open_zones = open_zones(c, v)?;
    Ok(())
}

/// A share in [0, 1]; fio's type is a ':'-separated float list, the first value is used.
fn fraction(c: &JobCtx<'_>, v: Option<&str>) -> Result<f64, FioError> {
    let v = c.need(v)?;
    let first = v.split(':').next().unwrap_or(v).trim();
    first
        .parse::<f64>()
        .ok()
        .filter(|f| (0.0..=1.0).contains(f))
        .ok_or_else(|| c.bad(v, "a number between 0 and 1"))
}

fn zone_reset_threshold(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.zones.reset_threshold = Some(fraction(c, v)?);
    Ok(())
}

fn zone_reset_frequency(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.zones.reset_frequency = Some(fraction(c, v)?);
    Ok(())
}

bool_keys! {
    randrepeat => more.randrepeat;
    norandommap => norandommap;
    sprandom => more.zones.sprandom;
    read_beyond_wp => more.zones.read_beyond_wp;
}

/// The distributions fio 3.33's `--cmdhelp=random_distribution` lists.
const FIO_RANDOM_DISTRIBUTION: &[(&str, &str)] = &[
    ("random", "Completely random"),
    ("zipf", "Zipf distribution"),
    ("pareto", "Pareto distribution"),
    ("normal", "Normal (Gaussian) distribution"),
    ("zoned", "Zoned random distribution"),
    ("zoned_abs", "Zoned absolute random distribution"),
];
