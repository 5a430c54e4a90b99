//! Options of fio's groups "Runtime" (threads per job, how long, warm-up, steady-state
//! termination), "Process" (threads, ordering and `exitall`) and the tiobench profile's
//! `threads`.

use super::{FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::control::parse_ss;
use crate::job::fio::keys::ExitWhat;
use crate::job::fio::FioError;
use std::time::Duration;

type R = Result<(), FioError>;

/// One second in ns: the plain-number unit of these times.
const S: u64 = 1_000_000_000;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job(
        "numjobs",
        Group::Runtime,
        Kind::Int,
        "Duplicate this job this many times",
        numjobs,
    )
    .default("1")
    // (fio checks no range: `numjobs=0` has its own lines, iomark's limit of 4096 jobs
    // is its callback's)
    .range(1, -1)
    .example("4")
    .shows_range(0, -1)
    .fio_job(57, OptType::Int),
    FioOption::job(
        "runtime",
        Group::Runtime,
        Kind::Time,
        "Stop workload when this amount of time has passed",
        runtime,
    )
    .alias(&["timeout"])
    .default("0")
    .example("10s")
    .fio_job(59, OptType::StrValTime)
    .takes_negative(),
    FioOption::job(
        "time_based",
        Group::Runtime,
        Kind::Flag,
        "Keep running until runtime/timeout is met",
        time_based,
    )
    .fio_job(60, OptType::StrSet),
    FioOption::job(
        "ramp_time",
        Group::Runtime,
        Kind::Time,
        "Ramp up time before measuring performance",
        ramp_time,
    )
    .example("500ms")
    .fio_job(62, OptType::StrValTime)
    .takes_negative(),
    FioOption::job(
        "loops",
        Group::Runtime,
        Kind::Int,
        "Number of times to run the job",
        loops,
    )
    .default("1")
    .range(0, -1)
    .example("3")
    .fio_job(56, OptType::Int),
    FioOption::job(
        "startdelay",
        Group::Runtime,
        Kind::Time,
        "Only start job when this period has passed",
        startdelay,
    )
    .default("0")
    .example("1-2s")
    .fio_job(58, OptType::StrValTime)
    .takes_negative(),
    FioOption::job(
        "steadystate",
        Group::Runtime,
        Kind::Str,
        "Define the criterion and limit to judge when a job has reached steady state",
        steadystate,
    )
    .alias(&["ss"])
    .default("iops_slope:0.01%")
    // its threshold
    .reads_its_rest()
    .values(&[
        ("iops", "maximum mean deviation of IOPS measurements"),
        ("iops_slope", "slope calculated from IOPS measurements"),
        ("bw", "maximum mean deviation of bandwidth measurements"),
        ("bw_slope", "slope calculated from bandwidth measurements"),
        ("lat", "maximum mean deviation of latency measurements"),
        ("lat_slope", "slope calculated from latency measurements"),
    ])
    .example("iops:10%")
    .shows_values(FIO_STEADYSTATE)
    .fio_job(224, OptType::Str)
    .callback(),
    FioOption::job(
        "steadystate_duration",
        Group::Runtime,
        Kind::Time,
        "Stop workload upon attaining steady state for specified duration",
        ss_dur,
    )
    .alias(&["ss_dur"])
    .parent("steadystate")
    .default("0")
    .example("30")
    .fio_job(225, OptType::StrValTime),
    FioOption::job(
        "steadystate_ramp_time",
        Group::Runtime,
        Kind::Time,
        "Delay before initiation of data collection for steady state job termination testing",
        ss_ramp,
    )
    .alias(&["ss_ramp"])
    .parent("steadystate")
    .default("0")
    .example("5s")
    .fio_job(226, OptType::StrValTime),
    FioOption::job(
        "steadystate_check_interval",
        Group::Runtime,
        Kind::Time,
        "Polling interval for the steady state check (too low means steadystate will not converge)",
        ss_interval,
    )
    .default("1")
    .example("500ms"),
    FioOption::job(
        "thread",
        Group::Process,
        Kind::Flag,
        "Use threads instead of processes",
        thread,
    )
    .fio_job(161, OptType::StrSet),
    FioOption::job(
        "new_group",
        Group::Process,
        Kind::Flag,
        "Mark the start of a new group (for reporting)",
        new_group,
    )
    .fio_job(160, OptType::StrSet),
    FioOption::job(
        "stonewall",
        Group::Process,
        Kind::Flag,
        "Insert a hard barrier between this job and previous",
        stonewall,
    )
    .alias(&["wait_for_previous"])
    .fio_job(159, OptType::StrSet),
    FioOption::job(
        "exitall",
        Group::Process,
        Kind::Flag,
        "Terminate all jobs when one exits",
        exitall,
    )
    .fio_job(156, OptType::StrSet)
    .callback(),
    FioOption::job(
        "exit_what",
        Group::Process,
        Kind::Str,
        "Fine-grained control for exitall",
        exit_what,
    )
    .default("group")
    .values(&[
        ("group", "exit_all=1 default behaviour"),
        (
            "stonewall",
            "quit all currently running jobs; continue with next stonewall",
        ),
        ("all", "Quit everything"),
    ])
    .example("all")
    .fio_job(157, OptType::Str),
    FioOption::job(
        "threads",
        Group::Tiobench,
        Kind::Int,
        "Number of Threads (tiobench profile; no effect on a job)",
        threads,
    )
    .example("4")
    .fio_profile(4, OptType::Int)
    .takes_negative(),
];

fn numjobs(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    if n == 0 || n > 4096 {
        // (4096: iomark's limit of job threads; fio checks no maximum)
        return Err(c.bad(v, "between 1 and 4096"));
    }
    c.job.numjobs = n as u32;
    Ok(())
}

/// What iomark holds for a time fio stored as a negative: 30 years. fio 3.33 keeps `-T`
/// as an unsigned count of µs that wrapped, 2^64 µs − T (about 584,000 years), a time no
/// run reaches; 30 years is one too, and iomark's clocks add a few of them in ticks
/// (about 3·10^18 each at 3 GHz) without overflowing.
pub(crate) const NEVER: Duration = Duration::from_secs(30 * 365 * 86_400);

/// A time of `runtime`/`ramp_time`, seconds by default; `-T` (fio splits the value at the
/// `-`, stores `-T` and has no slot for the `T` after it) is [`NEVER`], `-0` is 0.
fn time_or_never(c: &JobCtx<'_>, v: &str) -> Result<Duration, FioError> {
    match v.trim().strip_prefix('-') {
        Some(t) if !c.time(t, S)?.is_zero() => Ok(NEVER),
        Some(_) => Ok(Duration::ZERO),
        None => c.time(v, S),
    }
}

fn runtime(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let d = time_or_never(c, c.need(v)?)?;
    c.job.runtime = (!d.is_zero()).then_some(d);
    Ok(())
}

fn ramp_time(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.ramp_time = time_or_never(c, c.need(v)?)?;
    Ok(())
}

fn loops(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.loops = c.need_u64(v)?.max(1);
    Ok(())
}

/// `startdelay=T` or `A-B` (a value per thread in that range), seconds by default;
/// `-N` is fio's range from -N to N (run/fio/thread.rs draws from it).
fn startdelay(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    if let Some(n) = v.trim().strip_prefix('-') {
        let n = c.time(n, S)?;
        c.job.more.startdelay = (n, n);
        c.job.more.startdelay_negative = !n.is_zero();
        return Ok(());
    }
    let (a, b) = match v.split_once('-') {
        Some((a, b)) => (c.time(a, S)?, c.time(b, S)?),
        None => {
            let a = c.time(v, S)?;
            (a, a)
        }
    };
    c.job.more.startdelay = (a.min(b), a.max(b));
    c.job.more.startdelay_negative = false;
    Ok(())
}

fn steadystate(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.control.ss = parse_ss(v, c.job.kb_base).map_err(|e| c.bad(v, e))?;
    c.job.control.ss_given = true;
    Ok(())
}

fn ss_dur(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.control.ss_dur = c.time(c.need(v)?, S)?;
    Ok(())
}

fn ss_ramp(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.control.ss_ramp = c.time(c.need(v)?, S)?;
    Ok(())
}

fn ss_interval(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let d = c.time(v, S)?;
    if d < Duration::from_millis(100) {
        return Err(c.bad(v, "at least 100ms (default unit: seconds)"));
    }
    c.job.control.ss_interval = d;
    Ok(())
}

fn exit_what(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.exit_what = match v.trim() {
        "group" => ExitWhat::Group,
        "stonewall" => ExitWhat::Stonewall,
        "all" => ExitWhat::All,
        _ => return Err(c.bad(v, "accepted: group, stonewall, all")),
    };
    Ok(())
}

/// fio matches job-file keys exactly: `threads` is not `thread` but the tiobench
/// profile's thread count (an integer, registered globally), which a job ignores (fio
/// runs `threads=1` jobs as processes); iomark runs threads either way.
fn threads(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.u64(v.trim().trim_start_matches('-'))?;
    c.notice("notice: threads= is fio's tiobench-profile thread count: it has no effect on a job (it is not thread=; iomark always runs jobs as threads)".to_string());
    Ok(())
}

bool_keys! {
    time_based => time_based;
    thread => thread;
    new_group => new_group;
    stonewall => stonewall;
}

/// `exitall`: fio 3.33 turns the run's exit-all on whatever value the key has (its
/// callback ignores it, `exitall=0` included), once the value reads as fio's boolean.
fn exitall(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.bool(v)?;
    c.job.more.exitall = true;
    Ok(())
}

/// The criteria fio 3.33's `--cmdhelp=steadystate` lists.
const FIO_STEADYSTATE: &[(&str, &str)] = &[
    ("iops", "maximum mean deviation of IOPS measurements"),
    ("iops_slope", "slope calculated from IOPS measurements"),
    ("bw", "maximum mean deviation of bandwidth measurements"),
    ("bw_slope", "slope calculated from bandwidth measurements"),
];
