//! Options of fio's groups "Description" (names, descriptions, `wait_for`), "General"
//! (`kb_base`, `unit_base`), "Statistics" (reporting groups, percentiles) and "Logging"
//! (the bandwidth/IOPS/latency logs and their averaging, the I/O log: `write_iolog`,
//! `read_iolog` and its `replay_*` keys).

use super::{Arg, FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::keys::parse_percentiles;
use crate::job::fio::FioError;

type R = Result<(), FioError>;

pub(super) static DESCRIPTION: &[FioOption] = &[
    FioOption::job(
        "name",
        Group::Description,
        Kind::Str,
        "Name of this job",
        name,
    )
    .example("job1")
    .fio_job(1, OptType::StrStore),
    FioOption::job(
        "description",
        Group::Description,
        Kind::Str,
        "Text job description",
        description,
    )
    .arg(Arg::Value)
    .example("a test")
    .fio_job(0, OptType::StrStore),
    FioOption::job(
        "wait_for",
        Group::Description,
        Kind::Str,
        "Name of the job this one wants to wait for before starting",
        wait_for,
    )
    .example("job1")
    .fio_job(2, OptType::StrStore),
];

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job(
        "kb_base",
        Group::General,
        Kind::Str,
        "Unit prefix interpretation for quantities of data (IEC and SI)",
        kb_base,
    )
    .default("1024")
    .values(&[
        (
            "1024",
            "Inputs invert IEC and SI prefixes (for compatibility); outputs prefer binary",
        ),
        ("1000", "Inputs use IEC and SI prefixes; outputs prefer SI"),
    ])
    .example("1000")
    .fio_job(217, OptType::Str),
    FioOption::job(
        "unit_base",
        Group::General,
        Kind::Str,
        "Bit multiple of result summary data (8 for byte, 1 for bit)",
        unit_base,
    )
    .values(&[
        ("0", "Auto-detect"),
        ("8", "Normal (byte based)"),
        ("1", "Bit based"),
    ])
    .fio_job(218, OptType::Str),
    FioOption::job(
        "group_reporting",
        Group::Statistics,
        Kind::Flag,
        "Do reporting on a per-group basis",
        group_reporting,
    )
    .fio_job(183, OptType::StrSet),
    FioOption::job(
        "percentile_list",
        Group::Statistics,
        Kind::FloatList,
        "Specify a custom list of percentiles to report for completion latency and block errors",
        percentile_list,
    )
    .default("1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99")
    .frange(0.0, 100.0)
    .example("50:99:99.9")
    .fio_job(198, OptType::FloatList),
    FioOption::job(
        "lat_percentiles",
        Group::Statistics,
        Kind::Bool,
        "Enable the reporting of IO latency percentiles",
        lat_percentiles,
    )
    .default("0")
    .fio_job(196, OptType::Bool),
    FioOption::job(
        "clat_percentiles",
        Group::Statistics,
        Kind::Bool,
        "Enable the reporting of completion latency percentiles",
        clat_percentiles,
    )
    .default("1")
    .fio_job(195, OptType::Bool),
    FioOption::job(
        "gtod_reduce",
        Group::Statistics,
        Kind::Bool,
        "Greatly reduce number of gettimeofday() calls",
        gtod_reduce,
    )
    .default("0")
    .fio_job(201, OptType::Bool)
    .callback(),
    FioOption::job(
        "write_iolog",
        Group::Logging,
        Kind::Str,
        "Store IO pattern to file",
        write_iolog,
    )
    .example("iolog")
    .fio_job(86, OptType::StrStore),
    FioOption::job(
        "read_iolog",
        Group::Logging,
        Kind::Str,
        "Playback IO pattern from file",
        read_iolog,
    )
    .example("iolog")
    .fio_job(87, OptType::StrStore),
    FioOption::job(
        "replay_no_stall",
        Group::Logging,
        Kind::Bool,
        "Playback IO pattern file as fast as possible without stalls",
        replay_no_stall,
    )
    .default("0")
    .parent("read_iolog")
    .fio_job(89, OptType::Bool),
    FioOption::job(
        "replay_redirect",
        Group::Logging,
        Kind::Str,
        "Replay all I/O onto this device, regardless of trace device",
        replay_redirect,
    )
    .parent("read_iolog")
    .fio_job(90, OptType::StrStore),
    FioOption::job(
        "replay_scale",
        Group::Logging,
        Kind::Int,
        "Align offsets to this blocksize",
        replay_scale,
    )
    .default("1")
    // fio's range; its callback refuses 0 (fio divides by it)
    .range(0, -1)
    .parent("read_iolog")
    .fio_job(91, OptType::Int),
    FioOption::job(
        "replay_align",
        Group::Logging,
        Kind::Int,
        "Scale offset down by this factor",
        replay_align,
    )
    .parent("read_iolog")
    .shows_range(0, -1)
    .fio_job(92, OptType::Int),
    FioOption::job(
        "replay_time_scale",
        Group::Logging,
        Kind::Int,
        "Scale time for replay events",
        replay_time_scale,
    )
    .default("100")
    .range(1, -1)
    .parent("read_iolog")
    .fio_job(93, OptType::Int),
    FioOption::job(
        "replay_skip",
        Group::Logging,
        Kind::Str,
        "Skip certain IO types (read,write,trim,flush)",
        replay_skip,
    )
    .example("write,trim")
    .parent("read_iolog")
    .fio_job(94, OptType::Str)
    .callback(),
    FioOption::job(
        "write_bw_log",
        Group::Logging,
        Kind::Str,
        "Write log of bandwidth during run",
        write_bw_log,
    )
    .arg(Arg::Value)
    .example("bw")
    .fio_job(163, OptType::Str)
    .callback(),
    FioOption::job(
        "write_iops_log",
        Group::Logging,
        Kind::Str,
        "Write log of IOPS during run",
        write_iops_log,
    )
    .arg(Arg::Value)
    .example("iops")
    .fio_job(165, OptType::Str)
    .callback(),
    FioOption::job(
        "write_lat_log",
        Group::Logging,
        Kind::Str,
        "Write log of latency during run",
        write_lat_log,
    )
    .arg(Arg::Value)
    .example("lat")
    .fio_job(164, OptType::Str)
    .callback(),
    FioOption::job(
        "log_avg_msec",
        Group::Logging,
        Kind::Int,
        "Average bw/iops/lat logs over this period of time",
        log_avg_msec,
    )
    .default("0")
    .range(0, -1)
    .example("100")
    .fio_job(167, OptType::Int),
    FioOption::job(
        "bwavgtime",
        Group::Logging,
        Kind::Int,
        "Time window over which to calculate bandwidth (msec)",
        bw_avg_time,
    )
    .alias(&["bw_avg_time"])
    .default("500")
    .range(0, -1)
    .example("250")
    .parent("write_bw_log")
    .fio_job_alone(181, OptType::Int),
    FioOption::job(
        "iopsavgtime",
        Group::Logging,
        Kind::Int,
        "Time window over which to calculate IOPS (msec)",
        iops_avg_time,
    )
    .alias(&["iops_avg_time"])
    .default("500")
    .range(0, -1)
    .example("250")
    .parent("write_iops_log")
    .fio_job_alone(182, OptType::Int),
    FioOption::job(
        "per_job_logs",
        Group::Logging,
        Kind::Bool,
        "Include job number in generated log files or not",
        per_job_logs,
    )
    .default("1")
    .fio_job(162, OptType::Bool),
    FioOption::job(
        "log_offset",
        Group::Logging,
        Kind::Bool,
        "Include offset of IO for each log entry",
        log_offset,
    )
    .default("0")
    .fio_job(172, OptType::Bool),
    FioOption::job(
        "log_prio",
        Group::Logging,
        Kind::Bool,
        "Include priority value of IO for each log entry",
        log_prio,
    )
    .default("0")
    .fio_job(173, OptType::Bool),
];

fn name(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.name = c.need(v)?.to_string();
    Ok(())
}

/// Any text, or none; it changes nothing.
fn description(_: &mut JobCtx<'_>, _: Option<&str>) -> R {
    Ok(())
}

fn wait_for(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.wait_for = Some(c.need(v)?.trim().to_string());
    Ok(())
}

fn kb_base(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.kb_base = match v.trim() {
        "1024" => 1024,
        "1000" => 1000,
        _ => return Err(c.bad(v, "1024 or 1000")),
    };
    Ok(())
}

/// fio 3.33: 0 (auto: bytes), 8 (bytes), 1 (bits); anything else fails.
fn unit_base(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.unit_base_bits = match v.trim() {
        "0" | "8" => false,
        "1" => true,
        _ => return Err(c.bad(v, "0 or 8 (bytes) or 1 (bits)")),
    };
    Ok(())
}

fn percentile_list(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.percentile_list = Some(parse_percentiles(v).map_err(|e| c.bad(v, e))?);
    c.job.more.percentile_precision = Some(crate::job::fio::keys::typed_precision(v));
    Ok(())
}

/// A log's file-name prefix: none (a bare key) or `1` means the job's default name.
fn log_prefix(v: Option<&str>) -> Option<String> {
    let name = v.map(str::trim).filter(|v| !v.is_empty() && *v != "1");
    Some(name.unwrap_or("").to_string())
}

fn write_iolog(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.write_iolog = Some(v.to_string());
    Ok(())
}

fn read_iolog(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.replay.file = Some(v.to_string());
    Ok(())
}

bool_keys! {
    replay_no_stall => more.replay.no_stall;
}

fn replay_redirect(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.replay.redirect = Some(v.to_string());
    Ok(())
}

fn replay_scale(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let n = c.need_u64(v)?;
    if n == 0 {
        return Err(c.bad("0", "a whole number of at least 1"));
    }
    c.job.more.replay.scale = n;
    Ok(())
}

fn replay_align(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let s = c.need(v)?;
    let n = c.size(s)?;
    if n != 0 && !n.is_power_of_two() {
        return Err(c.bad(s, "a power of 2 (0 = no alignment)"));
    }
    c.job.more.replay.align = n;
    Ok(())
}

fn replay_time_scale(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let n = c.need_u64(v)?;
    if n == 0 {
        return Err(c.bad("0", "a percentage of at least 1"));
    }
    c.job.more.replay.time_scale = n;
    Ok(())
}

/// `replay_skip=read,write,trim,sync`: fio's names (`flush` is not one of them: fio
/// 3.33 accepts read, write, trim and sync).
fn replay_skip(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let mut skip = crate::job::fio::keys::ReplaySkip::default();
    for w in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match w {
            "read" => skip.read = true,
            "write" => skip.write = true,
            "trim" => skip.trim = true,
            "sync" => skip.sync = true,
            _ => return Err(c.bad(w, "a list of read, write, trim, sync")),
        }
    }
    c.job.more.replay.skip = skip;
    Ok(())
}

/// `gtod_reduce=1` turns off, as it is read, what fio 3.33's callback turns off: the
/// three latencies and the percentiles, and fio's per-request bandwidth samples (kept
/// as `more.gtod_reduce`: iomark's `disable_bw` also stops the interval samples, which
/// fio's does not); an option after it turns its own back on (`disable_lat=0`: the
/// total latency is measured again). `gtod_reduce=0` changes nothing.
fn gtod_reduce(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let on = c.bool(v)?;
    c.job.more.gtod_reduce = on;
    if on {
        let t = &mut c.job.tuning;
        (t.disable_lat, t.disable_clat, t.disable_slat) = (true, true, true);
        t.slat_percentiles = false;
        let m = &mut c.job.more;
        (m.clat_percentiles, m.lat_percentiles) = (false, false);
    }
    Ok(())
}

fn write_bw_log(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.bw_log = log_prefix(v);
    Ok(())
}

fn write_iops_log(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.iops_log = log_prefix(v);
    Ok(())
}

fn write_lat_log(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.lat_log = log_prefix(v);
    Ok(())
}

fn log_avg_msec(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.log_avg_msec = c.need_u64(v)?;
    Ok(())
}

/// A sampling interval in ms (0: none taken).
fn avg_time(c: &JobCtx<'_>, v: Option<&str>) -> Result<u64, FioError> {
    // 0: no samples at all (fio 3.33 takes none)
    c.need_u64(v)
}

fn bw_avg_time(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.bw_avg_time = avg_time(c, v)?;
    c.job.more.avg_time_set[0] = true;
    Ok(())
}

fn iops_avg_time(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.iops_avg_time = avg_time(c, v)?;
    c.job.more.avg_time_set[1] = true;
    Ok(())
}

bool_keys! {
    group_reporting => group_reporting;
    lat_percentiles => more.lat_percentiles;
    clat_percentiles => more.clat_percentiles;
    log_offset => more.log_offset;
    per_job_logs => more.per_job_logs;
    log_prio => extra.log_prio;
}
