//! Options of the engines that move no data (fio's "I/O engines" group): `stat_type` of
//! filestat/dirstat, cpuio's `cpuload`, `cpumode`, `cpuchunks`, `exit_on_io_done`, and
//! e4defrag's `donorname`, `inplace` (src/engine/e4defrag.rs), exec's `program`,
//! `arguments`, `grace_time`, `std_redirect` (src/engine/exec.rs).
//! The engines are src/engine/fileops.rs and src/engine/cpuio.rs; cpuio's think time
//! is derived from these in src/job/fio/finish.rs.

use super::{FioOption, Group, JobCtx, Kind};
use crate::job::fio::FioError;
use crate::util::engines::{CpuMode, StatType};

type R = Result<(), FioError>;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job(
        "stat_type",
        Group::Engine,
        Kind::Str,
        "Specify stat system call type to measure lookup/getattr performance",
        stat_type,
    )
    .example("statx"),
    FioOption::job(
        "cpuload",
        Group::Engine,
        Kind::Int,
        "Use this percentage of CPU",
        cpuload,
    )
    .range(1, 100)
    .example("50"),
    FioOption::job("cpumode", Group::Engine, Kind::Str, "Stress mode", cpumode).example("qsort"),
    FioOption::job(
        "cpuchunks",
        Group::Engine,
        Kind::Int,
        "Length of the CPU burn cycles (usecs)",
        cpuchunks,
    )
    .example("50000"),
    FioOption::job(
        "exit_on_io_done",
        Group::Engine,
        Kind::Int,
        "Exit when IO threads finish",
        exit_on_io_done,
    )
    .range(0, 0)
    .example("0"),
    FioOption::job(
        "donorname",
        Group::Engine,
        Kind::Str,
        "File used as a block donor",
        donorname,
    )
    .example("file.def"),
    FioOption::job(
        "inplace",
        Group::Engine,
        Kind::Int,
        "Alloc and free space inside defrag event",
        inplace,
    )
    .range(0, 1)
    .example("0"),
    FioOption::job(
        "program",
        Group::Engine,
        Kind::Str,
        "Program to execute",
        program,
    )
    .example("/bin/sleep"),
    FioOption::job(
        "arguments",
        Group::Engine,
        Kind::Str,
        "Arguments to pass",
        arguments,
    )
    .example("%r"),
    FioOption::job(
        "grace_time",
        Group::Engine,
        Kind::Int,
        "Grace time before sending a SIGKILL",
        grace_time,
    )
    .default("1")
    .example("0"),
    FioOption::job(
        "std_redirect",
        Group::Engine,
        Kind::Bool,
        "Redirect stdout & stderr to files",
        std_redirect,
    )
    .default("1"),
];

fn program(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.exec.program = Some(v.trim().to_string());
    Ok(())
}

fn arguments(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.exec.arguments = Some(v.trim().to_string());
    Ok(())
}

/// fio: whole seconds (FIO_OPT_INT, minval 0) slept between SIGTERM and SIGKILL.
fn grace_time(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let n = c.need_at_most(v, u64::from(u32::MAX), "whole seconds, 0 or more")?;
    c.job.more.exec.grace_time = std::time::Duration::from_secs(n);
    Ok(())
}

fn std_redirect(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.exec.std_redirect = c.bool(v)?;
    Ok(())
}

fn donorname(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.donorname = Some(v.trim().to_string());
    Ok(())
}

fn inplace(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.inplace = c.need_at_most(v, 1, "0 or 1")? == 1;
    Ok(())
}

fn stat_type(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.nodata.stat = match v.trim() {
        "stat" => StatType::Stat,
        "lstat" => StatType::Lstat,
        "statx" => StatType::Statx,
        _ => return Err(c.bad(v, "accepted: stat, lstat, statx")),
    };
    Ok(())
}

fn cpuload(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    // fio caps a load above 100 at 100; 0 is refused when the job starts (here: parsed)
    let n = c.need_u64(v)?;
    if n == 0 {
        return Err(c.bad(v.unwrap_or(""), "a percentage of one CPU, 1-100"));
    }
    c.job.more.nodata.cpuload = n.min(100) as u32;
    Ok(())
}

fn cpumode(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.nodata.cpumode = match v.trim() {
        "noop" => CpuMode::Noop,
        "qsort" => CpuMode::Qsort,
        _ => return Err(c.bad(v, "accepted: noop, qsort")),
    };
    Ok(())
}

fn cpuchunks(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let n = c.need_u64(v)?;
    c.job.more.nodata.cpuchunks_us = n.max(1);
    Ok(())
}

fn exit_on_io_done(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    if c.bool(v)? {
        return Err(c.bad(
            v.unwrap_or("1"),
            "only 0: iomark's cpuio runs for its runtime (ending with the other jobs is not implemented)",
        ));
    }
    Ok(())
}
