//! The core fio keys of `iomark run` (rw, bs, size, files, engine, depth, sync, time
//! limits, …) applied to a [`FioJob`]; keys of [`crate::job::fio::keys`] are tried next, and
//! anything else is [`FioError::UnsupportedKey`] naming the key and `file:line`.

use crate::job::fio::{
    bad, parse_bool, parse_bssplit_dir, parse_range, parse_size, parse_time, parse_u64, BlockSizes,
    BssplitError, EngineKind, FioError, FioJob, RwMode, SizeSpec,
};
use crate::job::fio::ini::Origin;
use std::path::PathBuf;

/// Keys iomark implements (canonical spelling, `_` form).
pub const SUPPORTED_KEYS: &[&str] = &[
    "name",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "bsrange",
    "blocksize_range",
    "bssplit",
    "size",
    "filesize",
    "nrfiles",
    "nr_files",
    "filename",
    "directory",
    "numjobs",
    "ioengine",
    "iodepth",
    "direct",
    "buffered",
    "fsync",
    "end_fsync",
    "runtime",
    "timeout",
    "time_based",
    "ramp_time",
    "loops",
    "number_ios",
    "randseed",
    "norandommap",
    "group_reporting",
    "thread",
    "threads",
    "new_group",
    "stonewall",
    "wait_for_previous",
    "kb_base",
    "unit_base",
    "description",
    "sqthread_poll",
    "sqthread_poll_cpu",
    "hipri",
    "force_async",
];

pub(crate) fn need<'a>(
    key: &str,
    v: Option<&'a str>,
    origin: &Origin,
) -> Result<&'a str, FioError> {
    // `--bs=` is no value either (fio: "option bs requires an argument")
    v.filter(|s| !s.trim().is_empty())
        .ok_or_else(|| bad(key, "", "a value is required", origin))
}

/// Apply one `key[=value]` to `job`. `notices` collects one-line remarks.
pub fn apply(
    job: &mut FioJob,
    key_raw: &str,
    value: Option<&str>,
    origin: &Origin,
    notices: &mut Vec<String>,
) -> Result<(), FioError> {
    let key = key_raw.trim().replace('-', "_");
    let kb = job.kb_base;
    let size = |v: &str| parse_size(v, kb).map_err(|e| bad(&key, v, e, origin));
    if crate::job::fio::zone_keys::apply_zone(job, &key, value, origin, notices)? {
        job.options
            .push((key_raw.trim().to_string(), value.unwrap_or("").to_string()));
        return Ok(());
    }
    match key.as_str() {
        "name" => job.name = need(&key, value, origin)?.to_string(),
        "description" => {}
        "rw" | "readwrite" => {
            let v = need(&key, value, origin)?;
            let (mode, suffix) = match v.split_once(':') {
                Some((m, n)) => (m.trim(), Some(n.trim())),
                None => (v.trim(), None),
            };
            job.rw = match mode {
                "read" => RwMode::Read,
                "write" => RwMode::Write,
                "randread" => RwMode::RandRead,
                "randwrite" => RwMode::RandWrite,
                "rw" | "readwrite" => RwMode::ReadWrite,
                "randrw" => RwMode::RandRw,
                "trim" => RwMode::Trim,
                "randtrim" => RwMode::RandTrim,
                "trimwrite" => RwMode::TrimWrite,
                _ => {
                    return Err(bad(
                        &key,
                        v,
                        "accepted: read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite (optionally :N)",
                        origin,
                    ))
                }
            };
            job.rw_suffix = match suffix {
                None | Some("") => 0,
                Some(n) if job.rw.random() => match n.parse::<u64>() {
                    Ok(k) => i64::try_from(k).unwrap_or(i64::MAX),
                    Err(_) => {
                        return Err(bad(
                            &key,
                            v,
                            "for a random mode the part after ':' is a whole number N (a new random offset every N requests), e.g. randread:8",
                            origin,
                        ))
                    }
                },
                Some(n) => match n.strip_prefix('-') {
                    Some(m) => -i64::try_from(size(m)?).unwrap_or(i64::MAX),
                    None => i64::try_from(size(n)?).unwrap_or(i64::MAX),
                },
            };
        }
        "rwmixread" | "rwmixwrite" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            if n > 100 {
                return Err(bad(&key, v, "a percentage 0-100", origin));
            }
            job.rwmixread = if key == "rwmixread" {
                n as u32
            } else {
                100 - n as u32
            };
        }
        "bs" | "blocksize" => {
            let v = need(&key, value, origin)?;
            let parts: Vec<&str> = v.split(',').collect();
            if parts.len() > 3 {
                return Err(bad(&key, v, "at most read,write,trim sizes", origin));
            }
            let one = |p: &str| -> Result<Option<u64>, FioError> {
                if p.trim().is_empty() {
                    return Ok(None);
                }
                if p.contains('-') {
                    // public case C12: `bs=4k-16k` is not a range in fio's bs= (it would
                    // silently mean "read 4k, write 16k" in some versions)
                    return Err(bad(
                        &key,
                        v,
                        "a range is not a block size: use bsrange=A-B for a range; bs=A,B sets read and write sizes",
                        origin,
                    ));
                }
                let b = size(p)?;
                if b == 0 {
                    return Err(bad(&key, v, "block size must be > 0", origin));
                }
                Ok(Some(b))
            };
            let r = one(parts[0])?;
            let w = match parts.get(1) {
                Some(p) => one(p)?,
                None => r,
            };
            if let Some(r) = r {
                job.bs_read = BlockSizes::Fixed(r);
            }
            if let Some(w) = w {
                job.bs_write = BlockSizes::Fixed(w);
            }
        }
        "bsrange" | "blocksize_range" => {
            let v = need(&key, value, origin)?;
            let parts: Vec<&str> = v.split(',').collect();
            let mut one = |p: &str| -> Result<Option<BlockSizes>, FioError> {
                if p.trim().is_empty() {
                    return Ok(None);
                }
                let (a, b) = parse_range(p, kb).map_err(|e| bad(&key, v, e, origin))?;
                if a == 0 {
                    return Err(bad(&key, v, "block size must be > 0", origin));
                }
                if b % a != 0 {
                    // public case C12: sizes are multiples of the minimum (fio's promise);
                    // a maximum that is not one is rounded down, and said
                    let n = format!(
                        "notice: {key}={}: {b} is not a multiple of {a}; issued sizes are multiples of {a} up to {}",
                        p.trim(),
                        b / a * a
                    );
                    if !notices.contains(&n) {
                        notices.push(n);
                    }
                }
                let b = b / a * a;
                Ok(Some(if a == b {
                    BlockSizes::Fixed(a)
                } else {
                    BlockSizes::Range(a, b)
                }))
            };
            let r = one(parts[0])?;
            let w = match parts.get(1) {
                Some(p) => one(p)?,
                None => r.clone(),
            };
            if let Some(r) = r {
                job.bs_read = r;
            }
            if let Some(w) = w {
                job.bs_write = w;
            }
        }
        "bssplit" => {
            let v = need(&key, value, origin)?;
            let parts: Vec<&str> = v.split(',').collect();
            let one = |p: &str| -> Result<Option<BlockSizes>, FioError> {
                if p.trim().is_empty() {
                    return Ok(None);
                }
                match parse_bssplit_dir(p, kb) {
                    Ok(s) => Ok(Some(BlockSizes::Split(s))),
                    Err(BssplitError::Sum(sum)) => Err(FioError::BssplitSum {
                        value: v.to_string(),
                        sum,
                        origin: origin.clone(),
                    }),
                    Err(BssplitError::Syntax(e)) => Err(bad(&key, v, e, origin)),
                }
            };
            let r = one(parts[0])?;
            let w = match parts.get(1) {
                Some(p) => one(p)?,
                None => r.clone(),
            };
            if let Some(r) = r {
                job.bs_read = r;
            }
            if let Some(w) = w {
                job.bs_write = w;
            }
        }
        "size" => {
            let v = need(&key, value, origin)?;
            job.size = Some(match v.trim().strip_suffix('%') {
                Some(p) => {
                    let f: f64 = p
                        .trim()
                        .parse()
                        .map_err(|_| bad(&key, v, "a percentage like 50%", origin))?;
                    if !(f > 0.0 && f <= 100.0) {
                        return Err(bad(&key, v, "percentage must be in (0, 100]", origin));
                    }
                    SizeSpec::Percent(f)
                }
                // fio: size=0 is unset (the file's own size is used)
                None => match size(v)? {
                    0 => {
                        job.size = None;
                        job.options
                            .push((key_raw.trim().to_string(), v.to_string()));
                        return Ok(());
                    }
                    n => SizeSpec::Bytes(n),
                },
            });
        }
        "filesize" => {
            let v = need(&key, value, origin)?;
            job.filesize = Some(parse_range(v, kb).map_err(|e| bad(&key, v, e, origin))?);
        }
        "nrfiles" | "nr_files" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            if n == 0 || n > 1_000_000 {
                return Err(bad(&key, v, "between 1 and 1000000", origin));
            }
            job.nrfiles = n as u32;
        }
        "filename" => job.filename = Some(need(&key, value, origin)?.to_string()),
        "directory" => job.directory = Some(PathBuf::from(need(&key, value, origin)?)),
        "numjobs" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            if n == 0 || n > 4096 {
                return Err(bad(&key, v, "between 1 and 4096", origin));
            }
            job.numjobs = n as u32;
        }
        "ioengine" => {
            let v = need(&key, value, origin)?.trim();
            job.engine = match v {
                "psync" | "sync" | "pvsync" => EngineKind::Psync,
                "io_uring" => EngineKind::IoUring,
                "libaio" => EngineKind::Libaio,
                "posixaio" => EngineKind::Posixaio,
                "mmap" => EngineKind::Mmap,
                "null" => EngineKind::Null,
                _ => {
                    return Err(FioError::UnsupportedEngine {
                        engine: v.to_string(),
                        origin: origin.clone(),
                    })
                }
            };
        }
        "iodepth" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            if n == 0 || n > 65_536 {
                return Err(bad(&key, v, "between 1 and 65536", origin));
            }
            job.iodepth = n as u32;
        }
        "direct" => job.direct = parse_bool(&key, value, origin)?,
        "buffered" => job.direct = !parse_bool(&key, value, origin)?,
        "fsync" => job.fsync = parse_u64(&key, need(&key, value, origin)?, origin)?,
        "end_fsync" => job.end_fsync = parse_bool(&key, value, origin)?,
        "runtime" | "timeout" => {
            let v = need(&key, value, origin)?;
            let d = parse_time(v, 1_000_000_000).map_err(|e| bad(&key, v, e, origin))?;
            job.runtime = (!d.is_zero()).then_some(d);
        }
        "time_based" => job.time_based = parse_bool(&key, value, origin)?,
        "ramp_time" => {
            let v = need(&key, value, origin)?;
            job.ramp_time = parse_time(v, 1_000_000_000).map_err(|e| bad(&key, v, e, origin))?;
        }
        "loops" => {
            let v = need(&key, value, origin)?;
            job.loops = parse_u64(&key, v, origin)?.max(1);
        }
        "number_ios" => job.number_ios = parse_u64(&key, need(&key, value, origin)?, origin)?,
        "randseed" => job.randseed = Some(parse_u64(&key, need(&key, value, origin)?, origin)?),
        "norandommap" => job.norandommap = parse_bool(&key, value, origin)?,
        "group_reporting" => job.group_reporting = parse_bool(&key, value, origin)?,
        "thread" => job.thread = parse_bool(&key, value, origin)?,
        // fio matches job-file keys exactly: `threads` is not `thread` but the tiobench
        // profile's thread count (an integer, registered globally), which a job ignores
        // (fio runs `threads=1` jobs as processes); iomark runs threads either way
        "threads" => {
            let v = need(&key, value, origin)?;
            parse_u64(&key, v.trim().trim_start_matches('-'), origin)?;
            let n = "notice: threads= is fio's tiobench-profile thread count: it has no effect on a job (it is not thread=; iomark always runs jobs as threads)".to_string();
            if !notices.contains(&n) {
                notices.push(n);
            }
        }
        "stonewall" | "wait_for_previous" => job.stonewall = parse_bool(&key, value, origin)?,
        "allow_mounted_write" => job.allow_mounted_write = parse_bool(&key, value, origin)?,
        "readonly" | "read_only" => job.readonly = parse_bool(&key, value, origin)?,
        "sqthread_poll" => job.sqthread_poll = parse_bool(&key, value, origin)?,
        "sqthread_poll_cpu" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            job.sqthread_poll_cpu =
                Some(u32::try_from(n).map_err(|_| bad(&key, v, "a CPU number", origin))?);
        }
        "hipri" => job.hipri = parse_bool(&key, value, origin)?,
        "force_async" => {
            let v = need(&key, value, origin)?;
            let n = parse_u64(&key, v, origin)?;
            job.force_async = Some(u32::try_from(n).map_err(|_| {
                bad(
                    &key,
                    v,
                    "a whole number of requests from 0 (never) to 4294967295",
                    origin,
                )
            })?);
        }
        "kb_base" => {
            let v = need(&key, value, origin)?;
            job.kb_base = match v.trim() {
                "1024" => 1024,
                "1000" => 1000,
                _ => return Err(bad(&key, v, "1024 or 1000", origin)),
            };
        }
        "unit_base" => {
            let v = need(&key, value, origin)?;
            // fio 3.33: 0 (auto: bytes), 8 (bytes), 1 (bits); anything else fails
            job.unit_base_bits = match v.trim() {
                "0" | "8" => false,
                "1" => true,
                _ => return Err(bad(&key, v, "0 or 8 (bytes) or 1 (bits)", origin)),
            };
        }
        "new_group" => job.new_group = parse_bool(&key, value, origin)?,
        _ if crate::job::fio::extra::apply_extra(&mut job.extra, &key, value, origin, kb)? => {}
        _ => {
            if !crate::job::fio::control::apply_control(&mut job.control, &key, value, origin, kb)?
                && !crate::job::fio::keys::apply_more(&mut job.more, &key, value, origin, kb)?
                && !crate::job::fio::keys_verify::apply_extra(
                    &mut job.more.x,
                    &key,
                    value,
                    origin,
                    notices,
                )?
            {
                if let Some(e) = crate::job::fio::keys_verify::engine_key_error(&key, origin) {
                    return Err(e);
                }
                if key == "reap_spin" {
                    return Err(bad(
                        &key,
                        value.unwrap_or(""),
                        "reap_spin is a command-line option of iomark, not a job key: use iomark run --reap-spin=TIME",
                        origin,
                    ));
                }
                return Err(FioError::UnsupportedKey {
                    key: key_raw.trim().to_string(),
                    origin: origin.clone(),
                });
            }
        }
    }
    // `name` too: fio 3.33 lists `"name": "w"` for `--name=w` (and for `name=` in a
    // job-file section), in the order given
    job.options
        .push((key_raw.trim().to_string(), value.unwrap_or("").to_string()));
    Ok(())
}
