//! Options of fio's groups "Rate" (rate limits and minimum rates), "I/O Thinktime",
//! "I/O Flow" (shares between the jobs of a `flow_id`) and "Latency profiling"
//! (`latency_target`'s queue-depth search). Rates are per job thread, bytes/s or IOPS,
//! `READ[,WRITE]`.

use super::{FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::control::LatTargetSpec;
use crate::job::fio::keys::{per_dir, RateProcess};
use crate::job::fio::FioError;
use crate::job::units;
use std::time::Duration;

type R = Result<(), FioError>;

/// One microsecond and one millisecond in ns: plain-number units of these times.
const US: u64 = 1_000;
const MS: u64 = 1_000_000;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job("rate", Group::Rate, Kind::Int, "Set bandwidth rate", rate)
        .range(0, -1)
        .example("1m,2m")
        .fio_job(124, OptType::Ull)
        .per_direction(),
    FioOption::job(
        "rate_iops",
        Group::Rate,
        Kind::Int,
        "Limit IO used to this number of IO operations/sec",
        rate_iops,
    )
    .range(0, -1)
    .example("500")
    .fio_job(126, OptType::Int)
    .per_direction(),
    FioOption::job(
        "rate_process",
        Group::Rate,
        Kind::Str,
        "What process controls how rated IO is managed",
        rate_process,
    )
    .default("linear")
    .values(&[
        ("linear", "Linear rate of IO"),
        ("poisson", "Rate follows Poisson process"),
    ])
    .example("poisson")
    .parent("rate")
    .fio_job(128, OptType::Str),
    FioOption::job(
        "rate_min",
        Group::Rate,
        Kind::Int,
        "Job must meet this rate or it will be shutdown",
        rate_min,
    )
    .alias(&["ratemin"])
    .range(0, -1)
    .example("1k")
    .parent("rate")
    .fio_job(125, OptType::Ull)
    .per_direction(),
    FioOption::job(
        "rate_iops_min",
        Group::Rate,
        Kind::Int,
        "Job must meet this rate or it will be shut down",
        rate_iops_min,
    )
    .range(0, -1)
    .example("10,20")
    .parent("rate_iops")
    .fio_job(127, OptType::Int)
    .per_direction(),
    FioOption::job(
        "rate_cycle",
        Group::Rate,
        Kind::Int,
        "Window average for rate limits (msec)",
        ratecycle,
    )
    .alias(&["ratecycle"])
    .default("1000")
    .range(0, -1)
    .example("500")
    .parent("rate")
    .fio_job(129, OptType::Int),
    FioOption::job(
        "thinktime",
        Group::Thinktime,
        Kind::Time,
        "Idle time between IO buffers (usec)",
        thinktime,
    )
    .default("0")
    .example("100")
    .shows_range(0, -1)
    .fio_job(119, OptType::Int),
    FioOption::job(
        "thinktime_spin",
        Group::Thinktime,
        Kind::Time,
        "Start think time by spinning this amount (usec)",
        thinktime_spin,
    )
    .default("0")
    .example("10us")
    .parent("thinktime")
    .shows_range(0, -1)
    .fio_job(120, OptType::Int),
    FioOption::job(
        "thinktime_blocks",
        Group::Thinktime,
        Kind::Int,
        "IO buffer period between 'thinktime'",
        thinktime_blocks,
    )
    .default("1")
    .range(0, -1)
    .example("8")
    .parent("thinktime")
    .fio_job(121, OptType::Int),
    FioOption::job(
        "flow_id",
        Group::Flow,
        Kind::Int,
        "The flow index ID to use",
        flow_id,
    )
    .default("0")
    .range(0, -1)
    .fio_job(220, OptType::Int),
    FioOption::job(
        "flow",
        Group::Flow,
        Kind::Int,
        "Weight for flow control of this job",
        flow,
    )
    .default("0")
    .range(0, 1000)
    .example("8")
    .parent("flow_id")
    .fio_job(221, OptType::Int),
    FioOption::job(
        "flow_sleep",
        Group::Flow,
        Kind::Int,
        "How many microseconds to sleep after being held back by the flow control mechanism",
        flow_sleep,
    )
    .default("0")
    .range(0, -1)
    .example("1000")
    .parent("flow_id")
    .fio_job(223, OptType::Int),
    FioOption::job(
        "latency_target",
        Group::LatencyProfiling,
        Kind::Time,
        "Ramp to max queue depth supporting this latency",
        latency_target,
    )
    .example("500ms")
    .fio_job(132, OptType::StrValTime),
    FioOption::job(
        "latency_window",
        Group::LatencyProfiling,
        Kind::Time,
        "Time to sustain latency_target",
        latency_window,
    )
    .example("5s")
    .fio_job(133, OptType::StrValTime),
    FioOption::job(
        "latency_percentile",
        Group::LatencyProfiling,
        Kind::FloatList,
        "Percentile of IOs must be below latency_target",
        latency_percentile,
    )
    .default("100")
    .frange(0.0, 100.0)
    .example("99.9")
    .fio_job(134, OptType::FloatList),
    FioOption::job(
        "latency_run",
        Group::LatencyProfiling,
        Kind::Bool,
        "Keep adjusting queue depth to match latency_target",
        latency_run,
    )
    .default("0")
    .fio_job(135, OptType::Bool),
];

/// A whole number of I/Os per second, for one direction.
fn iops(p: &str) -> Result<u64, String> {
    p.trim()
        .parse::<u64>()
        .map_err(|_| format!("'{p}' is not a whole number"))
}

/// `READ[,WRITE[,TRIM]]` bytes/s; an empty part keeps that direction's `old` value, as
/// in fio.
fn bytes_per_s(c: &JobCtx<'_>, v: Option<&str>, old: [u64; 3]) -> Result<[u64; 3], FioError> {
    let v = c.need(v)?;
    let kb = c.job.kb_base;
    per_dir(v, old, &|p| units::fio_size(p, kb)).map_err(|e| c.bad(v, e))
}

/// `READ[,WRITE[,TRIM]]` IOPS; an empty part keeps that direction's `old` value.
fn iops_per_s(c: &JobCtx<'_>, v: Option<&str>, old: [u64; 3]) -> Result<[u64; 3], FioError> {
    let v = c.need(v)?;
    per_dir(v, old, &iops).map_err(|e| c.bad(v, e))
}

fn rate(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.rate_bytes = bytes_per_s(c, v, c.job.more.rate_bytes)?;
    Ok(())
}

fn rate_iops(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.rate_iops = iops_per_s(c, v, c.job.more.rate_iops)?;
    Ok(())
}

fn rate_min(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.ratemin = bytes_per_s(c, v, c.job.more.ratemin)?;
    Ok(())
}

fn rate_iops_min(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.rate_iops_min = iops_per_s(c, v, c.job.more.rate_iops_min)?;
    Ok(())
}

fn rate_process(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.rate_process = match v.trim() {
        "linear" => RateProcess::Linear,
        "poisson" => RateProcess::Poisson,
        _ => return Err(c.bad(v, "accepted: linear, poisson")),
    };
    Ok(())
}

fn ratecycle(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    // fio's range starts at 0 (the minimum rate is then checked at every completion)
    c.job.more.ratecycle = c.time(v, MS)?;
    Ok(())
}

fn thinktime(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.thinktime = c.time(c.need(v)?, US)?;
    Ok(())
}

fn thinktime_spin(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.thinktime_spin = c.time(c.need(v)?, US)?;
    Ok(())
}

fn thinktime_blocks(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.thinktime_blocks = c.need_u64(v)?.max(1);
    c.job.tuning.thinktime_blocks_set = true;
    Ok(())
}

fn flow_id(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.control.flow_id =
        u32::try_from(c.u64(v)?).map_err(|_| c.bad(v, "a number below 2^32"))?;
    Ok(())
}

fn flow(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.control.flow = c.need_at_most(v, 1000, "a weight between 0 and 1000")? as u32;
    Ok(())
}

/// A time whose plain number is in µs (fio's `flow_sleep` is a time option: `1ms`).
fn flow_sleep(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.control.flow_sleep = c.time(c.need(v)?, US)?;
    Ok(())
}

/// `latency_target` (µs by default; 0: no search). Its window, percentile and run flag
/// are taken once the job is read (`control::finish_control`).
fn latency_target(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let d = c.time(c.need(v)?, US)?;
    c.job.control.lat_target = (!d.is_zero()).then_some(LatTargetSpec {
        target: d,
        window: Duration::ZERO,
        percentile: 100.0,
        run: false,
    });
    Ok(())
}

fn latency_window(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.control.lat_window = c.time(c.need(v)?, US)?;
    Ok(())
}

fn latency_percentile(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    // fio takes a ':'-list here and uses the first value
    let first = v.split(':').next().unwrap_or(v).trim();
    c.job.control.lat_percentile = first
        .parse::<f64>()
        .ok()
        .filter(|p| p.is_finite() && *p > 0.0 && *p <= 100.0)
        .ok_or_else(|| c.bad(v, "a percentage in (0, 100]"))?;
    Ok(())
}

bool_keys! {
    latency_run => control.lat_run;
}
