//! Options of the io_uring and libaio engines (fio's "I/O engines" group: polling, SQ
//! thread, IOSQE_ASYNC, libaio's user-space reaping, per-command priorities), of "Job credentials / priority" (`prio`,
//! `prioclass`) and fio's NUMA binding (group "General"). The run side is
//! `run/fio/prio.rs` and `run/fio/numa.rs`.

use super::{FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::extra::{parse_mem_policy, parse_nodes, parse_prio_split, small, two};
use crate::job::fio::FioError;

type R = Result<(), FioError>;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job(
        "sqthread_poll",
        Group::Engine,
        Kind::Flag,
        "Offload submission/completion to kernel thread",
        sqthread_poll,
    ),
    FioOption::job(
        "sqthread_poll_cpu",
        Group::Engine,
        Kind::Int,
        "What CPU to run SQ thread polling on",
        sqthread_poll_cpu,
    )
    .example("0"),
    FioOption::job(
        "hipri",
        Group::Engine,
        Kind::Flag,
        "Use polled IO completions",
        hipri,
    ),
    FioOption::job(
        "force_async",
        Group::Engine,
        Kind::Int,
        "Set IOSQE_ASYNC every N requests",
        force_async,
    )
    .example("4"),
    FioOption::job(
        "userspace_reap",
        Group::Engine,
        Kind::Flag,
        "Use alternative user-space reap implementation",
        userspace_reap,
    ),
    FioOption::job(
        "cmdprio_percentage",
        Group::Engine,
        Kind::Int,
        "Send high priority I/O this percentage of the time",
        cmdprio_percentage,
    )
    .range(0, 100)
    .example("10,20"),
    FioOption::job(
        "cmdprio_class",
        Group::Engine,
        Kind::Int,
        "Set asynchronous IO priority class",
        cmdprio_class,
    )
    .range(0, 3)
    .example("3"),
    FioOption::job(
        "cmdprio",
        Group::Engine,
        Kind::Int,
        "Set asynchronous IO priority level",
        cmdprio,
    )
    .range(0, 7)
    .example("2,5"),
    FioOption::job(
        "cmdprio_hint",
        Group::Engine,
        Kind::Int,
        "Set asynchronous IO priority hint",
        cmdprio_hint,
    )
    .range(0, 1023)
    .example("3"),
    FioOption::job(
        "cmdprio_bssplit",
        Group::Engine,
        Kind::Str,
        "Set priority percentages for different block sizes",
        cmdprio_bssplit,
    )
    .example("64k/25/1/1:64k/75/3/2,1m/10"),
    FioOption::job(
        "prio",
        Group::Priority,
        Kind::Int,
        "Set job IO priority value",
        prio,
    )
    .range(0, 7)
    .example("4")
    .fio_job(117, OptType::Int),
    FioOption::job(
        "prioclass",
        Group::Priority,
        Kind::Int,
        "Set job IO priority class",
        prioclass,
    )
    .range(0, 3)
    .example("2")
    .fio_job(118, OptType::Int),
    FioOption::job(
        "numa_cpu_nodes",
        Group::General,
        Kind::Str,
        "NUMA CPU nodes bind",
        numa_cpu_nodes,
    )
    .example("0-1")
    .fio_job(149, OptType::Str)
    .callback(),
    FioOption::job(
        "numa_mem_policy",
        Group::General,
        Kind::Str,
        "NUMA memory policy setup",
        numa_mem_policy,
    )
    .example("interleave:0-1")
    .fio_job(150, OptType::Str)
    .callback(),
];

fn sqthread_poll_cpu(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    c.job.sqthread_poll_cpu = Some(u32::try_from(n).map_err(|_| c.bad(v, "a CPU number"))?);
    Ok(())
}

/// `force_async=N`: every N-th request with IOSQE_ASYNC (0: never).
fn force_async(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    c.job.force_async = Some(
        u32::try_from(n)
            .map_err(|_| c.bad(v, "a whole number of requests from 0 (never) to 4294967295"))?,
    );
    Ok(())
}

/// A `READ[,WRITE]` value of whole numbers `0..=max`.
fn two_small(c: &JobCtx<'_>, v: Option<&str>, max: u32) -> Result<[u32; 2], FioError> {
    let v = c.need(v)?;
    two(v, &small(max)).map_err(|e| c.bad(v, e))
}

fn cmdprio_percentage(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.extra.cmdprio_percentage = Some(two_small(c, v, 100)?);
    Ok(())
}

fn cmdprio_class(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let [r, w] = two_small(c, v, 3)?;
    c.job.extra.cmdprio_class = [r as u8, w as u8];
    Ok(())
}

fn cmdprio(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let [r, w] = two_small(c, v, 7)?;
    c.job.extra.cmdprio = [r as u8, w as u8];
    Ok(())
}

fn cmdprio_hint(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let [r, w] = two_small(c, v, 1023)?;
    c.job.extra.cmdprio_hint = [r as u16, w as u16];
    Ok(())
}

/// `cmdprio_bssplit=READ[,WRITE[,TRIM]]` (fio ignores the trim list).
fn cmdprio_bssplit(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let kb = c.job.kb_base;
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err(c.bad(v, "at most read,write[,trim] lists"));
    }
    let r = parse_prio_split(parts[0], kb).map_err(|e| c.bad(v, e))?;
    let w = match parts.get(1) {
        Some(p) => parse_prio_split(p, kb).map_err(|e| c.bad(v, e))?,
        None => r.clone(),
    };
    c.job.extra.cmdprio_bssplit = Some([r, w]);
    Ok(())
}

fn prio(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.extra.prio = Some(small(7)(v).map_err(|e| c.bad(v, e))? as u8);
    Ok(())
}

fn prioclass(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = small(3)(v).map_err(|e| {
        c.bad(
            v,
            format!("{e} (0 none, 1 realtime, 2 best-effort, 3 idle)"),
        )
    })?;
    c.job.extra.prioclass = Some(n as u8);
    Ok(())
}

/// A node list; under the fio persona a range sets those of its nodes this process may
/// use, as libnuma's parse does (a node it may not use named in the list is refused by
/// the job's reading, job/fio/args.rs `cpus_past_machine`, not on a dry run: fio 3.33 runs no
/// callback then; `iomark run` refuses it when the job starts).
fn numa_cpu_nodes(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let nodes = match c.job.fio_persona {
        // libnuma's reading (`all`, `0x0`, `-0`, `+N`, `!N`); a node it may not use
        // leaves the list empty, refused by the job's reading, as a list it warns of;
        // a list read without a node (`!0` on a machine of one node) is kept empty, as
        // fio keeps it: each job thread then fails to bind (run/fio/thread.rs)
        true => {
            match crate::job::fio::extra::libnuma_nodes(v, crate::job::fio::extra::node_allowed) {
                Ok(n) => n,
                Err(Some(_)) => Vec::new(),
                Err(None) => parse_nodes(v).map_err(|e| c.bad(v, e))?,
            }
        }
        false => parse_nodes(v).map_err(|e| c.bad(v, e))?,
    };
    c.job.extra.numa_cpu_nodes = Some(nodes);
    Ok(())
}

fn numa_mem_policy(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.extra.numa_mem_policy = Some(parse_mem_policy(v).map_err(|e| c.bad(v, e))?);
    Ok(())
}

bool_keys! {
    sqthread_poll => sqthread_poll;
    hipri => hipri;
    userspace_reap => more.userspace_reap;
}
