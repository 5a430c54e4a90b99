//! Options of fio's groups "General I/O" (direction, engine, queue depth and batching),
//! "Read/write mix" and "I/O Type" (O_DIRECT, O_SYNC, page cache, atomic writes).

use super::{Arg, FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::{FioError, RwMode};

type R = Result<(), FioError>;

const RW_VALUES: &[(&str, &str)] = &[
    ("read", "Sequential read"),
    ("write", "Sequential write"),
    ("trim", "Sequential trim"),
    ("randread", "Random read"),
    ("randwrite", "Random write"),
    ("randtrim", "Random trim"),
    ("rw", "Sequential read and write mix"),
    ("readwrite", "Sequential read and write mix"),
    ("randrw", "Random read and write mix"),
    ("trimwrite", "Trim and write mix, trims preceding writes"),
    (
        "randtrimwrite",
        "Randomly trim and write mix, trims preceding writes",
    ),
];

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job("rw", Group::GeneralIo, Kind::Str, "IO direction", rw)
        .alias(&["readwrite"])
        .default("read")
        .values(RW_VALUES)
        // its `:N`
        .reads_its_rest()
        .example("randread:8")
        .fio_job(9, OptType::Str)
        .callback(),
    FioOption::job(
        "ioengine",
        Group::GeneralIo,
        Kind::Str,
        "IO engine to use",
        ioengine,
    )
    .default("psync")
    .values(&crate::util::engines::ENGINE_WORDS)
    // an engine's `:ARGS`
    .reads_its_rest()
    .example("io_uring")
    .shows_values(FIO_IOENGINE)
    .fio_job(11, OptType::StrStore)
    .callback(),
    FioOption::job(
        "iodepth",
        Group::GeneralIo,
        Kind::Int,
        "Number of IO buffers to keep in flight",
        iodepth,
    )
    .default("1")
    .range(1, -1)
    .example("32")
    .fio_job(12, OptType::Int),
    FioOption::job(
        "iodepth_batch",
        Group::GeneralIo,
        Kind::Int,
        "Number of IO buffers to submit in one go",
        iodepth_batch,
    )
    .alias(&["iodepth_batch_submit"])
    .default("1")
    .range(0, -1)
    .parent("iodepth")
    .fio_job(13, OptType::Int),
    FioOption::job(
        "iodepth_batch_complete_min",
        Group::GeneralIo,
        Kind::Int,
        "Min number of IO buffers to retrieve in one go",
        iodepth_batch_complete_min,
    )
    .alias(&["iodepth_batch_complete"])
    .default("1")
    .range(0, -1)
    .parent("iodepth")
    .fio_job(14, OptType::Int),
    FioOption::job(
        "iodepth_batch_complete_max",
        Group::GeneralIo,
        Kind::Int,
        "Max number of IO buffers to retrieve in one go",
        iodepth_batch_complete_max,
    )
    .range(0, -1)
    .parent("iodepth")
    .fio_job(15, OptType::Int),
    FioOption::job(
        "iodepth_low",
        Group::GeneralIo,
        Kind::Int,
        "Low water mark for queuing depth",
        iodepth_low,
    )
    .range(0, -1)
    .parent("iodepth")
    .fio_job(16, OptType::Int),
    FioOption::job(
        "io_submit_mode",
        Group::GeneralIo,
        Kind::Str,
        "How IO submissions and completions are done",
        io_submit_mode,
    )
    .default("inline")
    .values(&[
        ("inline", "Submit and complete IO inline"),
        ("offload", "Offload submit and complete to threads"),
    ])
    .example("offload")
    .fio_job(18, OptType::Str),
    FioOption::job(
        "rwmixread",
        Group::RwMix,
        Kind::Int,
        "Percentage of mixed workload that is reads",
        rwmixread,
    )
    .default("50")
    .range(0, 100)
    .example("70")
    .fio_job(113, OptType::Int)
    .callback_capped(),
    FioOption::job(
        "rwmixwrite",
        Group::RwMix,
        Kind::Int,
        "Percentage of mixed workload that is writes",
        rwmixwrite,
    )
    .default("50")
    .range(0, 100)
    .example("30")
    .fio_job(114, OptType::Int)
    .callback_capped(),
    FioOption::job(
        "direct",
        Group::IoType,
        Kind::Bool,
        "Use O_DIRECT IO (negates buffered)",
        direct,
    )
    .default("0")
    .fio_job(52, OptType::Bool),
    FioOption::job(
        "buffered",
        Group::IoType,
        Kind::Bool,
        "Use buffered IO (negates direct)",
        buffered,
    )
    .default("1")
    .fio_job(54, OptType::Bool),
    FioOption::job(
        "sync",
        Group::IoType,
        Kind::Str,
        "Use synchronous write IO",
        sync,
    )
    .arg(Arg::Value)
    .default("none")
    .values(&[
        ("none", ""),
        ("0", ""),
        ("sync", ""),
        ("1", ""),
        ("dsync", ""),
    ])
    .example("sync")
    .fio_job(137, OptType::Str),
    FioOption::job(
        "invalidate",
        Group::IoType,
        Kind::Bool,
        "Invalidate buffer/page cache prior to running job",
        invalidate,
    )
    .default("1")
    .fio_job(136, OptType::Bool),
    FioOption::job(
        "atomic",
        Group::IoType,
        Kind::Bool,
        "Use Atomic IO with O_DIRECT (implies O_DIRECT)",
        atomic,
    )
    .default("0")
    .fio_job(53, OptType::Bool),
];

/// `rw=MODE[:N]`, matched as fio 3.33 matches it: the mode is the value up to its
/// first `,`, else its first `:` (`rw=read,zz` is `read`), and `N` what follows the
/// value's first `:`.
fn rw(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let t = v.trim();
    let mode = &t[..t.find(',').or_else(|| t.find(':')).unwrap_or(t.len())];
    let suffix = t.split_once(':').map(|(_, n)| n.trim());
    c.job.rw = match mode {
        "read" => RwMode::Read,
        "write" => RwMode::Write,
        "randread" => RwMode::RandRead,
        "randwrite" => RwMode::RandWrite,
        "rw" | "readwrite" => RwMode::ReadWrite,
        "randrw" => RwMode::RandRw,
        "trim" => RwMode::Trim,
        "randtrim" => RwMode::RandTrim,
        "trimwrite" => RwMode::TrimWrite,
        "randtrimwrite" => RwMode::RandTrimWrite,
        _ => {
            return Err(c.bad(
                v,
                "accepted: read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite, randtrimwrite (optionally :N)",
            ))
        }
    };
    c.job.rw_suffix = rw_suffix(c, v, suffix)?;
    // a random mode's `:N` that is no plain number is read as C's atoi reads it: say so
    if let Some(n) = suffix.filter(|n| c.job.rw.random() && n.parse::<u64>().is_err()) {
        let walk = if c.job.rw_suffix == 0 {
            " (0: no random offset, the job walks its files in order)"
        } else {
            ""
        };
        c.notice(format!(
            "notice: rw='{v}' read as {mode}:{}, as fio 3.33 reads the part after ':' ('{n}'){walk}",
            c.job.rw_suffix
        ));
    }
    Ok(())
}

/// The `:N` of `rw=`: random modes take N as C's `atoi` reads it (fio 3.33's
/// `ddir_seq_nr`: a new random offset every N requests, the others sequential; no
/// suffix is 1, every offset random; `:0`, `:` or a word such as `:zz` is 0, no random
/// offset at all, the job walks its files in order); sequential ones skip N bytes after
/// each I/O (a size; negative goes backwards; nothing after the `:` is refused, as fio).
fn rw_suffix(c: &JobCtx<'_>, v: &str, suffix: Option<&str>) -> Result<i64, FioError> {
    Ok(match suffix {
        None if c.job.rw.random() => 1,
        Some(n) if c.job.rw.random() => i64::from(atoi_u32(n)),
        None => 0,
        // a refusal names the whole value (`read:zz`, `read:`), as fio's `failed
        // parsing` does: an empty size after the `:` is no size to fio either
        Some(n) => {
            let size = |s| crate::job::units::fio_size(s, c.job.kb_base).map_err(|e| c.bad(v, e));
            match n.strip_prefix('-') {
                Some(m) => -i64::try_from(size(m)?).unwrap_or(i64::MAX),
                None => i64::try_from(size(n)?).unwrap_or(i64::MAX),
            }
        }
    })
}

/// C's `atoi` stored in an `unsigned int`, as fio keeps `rw=randread:N` (`:-1` is
/// 4294967295).
fn atoi_u32(s: &str) -> u32 {
    crate::job::units::c_strtol(s) as u32
}

fn ioengine(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?.trim();
    // (an engine's `:ARGS` is none of iomark's engines: the whole value is refused)
    (c.job.ioengine, c.job.engine) =
        crate::util::engines::word(v).ok_or_else(|| FioError::UnsupportedEngine {
            engine: v.to_string(),
            origin: c.origin.clone(),
        })?;
    Ok(())
}

/// `iodepth`: as fio 3.33 checks it, the `int` of the number (`4294967297` is 1) at
/// least 1, with no maximum; a synchronous engine runs one request at a time whatever
/// it is (fio's note says so), a queueing one is held to `MAX_QUEUED_DEPTH` by the
/// job's checks (job/fio/finish.rs).
fn iodepth(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    let int = n as u32 as i32;
    if int < 1 {
        return Err(c.bad(v, "between 1 and 2147483647"));
    }
    c.job.iodepth = int as u32;
    Ok(())
}

/// A batch count, capped at 65536 as the queue depth.
fn batch(c: &JobCtx<'_>, v: Option<&str>) -> Result<u32, FioError> {
    Ok(c.need_u64(v)?.min(65_536) as u32)
}

fn iodepth_batch(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.iodepth_batch = batch(c, v)?;
    Ok(())
}

fn iodepth_batch_complete_min(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.iodepth_batch_complete_min = batch(c, v)?;
    Ok(())
}

fn iodepth_batch_complete_max(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.iodepth_batch_complete_max = batch(c, v)?;
    Ok(())
}

fn iodepth_low(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.iodepth_low = batch(c, v)?;
    Ok(())
}

fn io_submit_mode(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.control.offload = match v.trim() {
        "inline" => false,
        "offload" => true,
        _ => return Err(c.bad(v, "accepted: inline, offload")),
    };
    Ok(())
}

fn rwmixread(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.rwmixread = c.need_at_most(v, 100, "a percentage 0-100")? as u32;
    Ok(())
}

fn rwmixwrite(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.rwmixread = 100 - c.need_at_most(v, 100, "a percentage 0-100")? as u32;
    Ok(())
}

fn buffered(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.direct = !c.bool(v)?;
    Ok(())
}

fn sync(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    // fio 3.33's values: none/0, sync/1 (O_SYNC), dsync (O_DSYNC)
    (c.job.more.sync_io, c.job.more.dsync_io) = match v.map(str::trim) {
        None | Some("1") | Some("sync") => (true, false),
        Some("dsync") => (false, true),
        Some("0") | Some("none") => (false, false),
        Some(o) => return Err(c.bad(o, "accepted: 0, 1, none, sync, dsync")),
    };
    Ok(())
}

bool_keys! {
    direct => direct;
    invalidate => more.invalidate;
    atomic => more.x.atomic;
}

/// The engines fio 3.33's `--cmdhelp=ioengine` lists (the installed build's, in its
/// order); which ones iomark runs is `util/engines.rs`'s.
const FIO_IOENGINE: &[(&str, &str)] = &[
    ("sync", "Use read/write"),
    ("psync", "Use pread/pwrite"),
    ("vsync", "Use readv/writev"),
    ("pvsync", "Use preadv/pwritev"),
    ("pvsync2", "Use preadv2/pwritev2"),
    ("libaio", "Linux native asynchronous IO"),
    ("io_uring", "Fast Linux native aio"),
    ("posixaio", "POSIX asynchronous IO"),
    ("rbd", "Rados Block Device asynchronous IO"),
    ("mmap", "Memory mapped IO"),
    ("splice", "splice/vmsplice based IO"),
    ("netsplice", "splice/vmsplice to/from the network"),
    ("sg", "SCSI generic v3 IO"),
    ("null", "Testing engine (no data transfer)"),
    ("net", "Network IO"),
    ("cpuio", "CPU cycle burner engine"),
    ("rdma", "RDMA IO engine"),
    ("e4defrag", "ext4 defrag engine"),
    ("falloc", "fallocate() file based engine"),
    ("gfapi", "Glusterfs libgfapi(sync) based engine"),
    ("gfapi_async", "Glusterfs libgfapi(async) based engine"),
    ("pmemblk", "PMDK libpmemblk based IO engine"),
    ("dev-dax", "DAX Device based IO engine"),
    ("filecreate", "File creation engine"),
    ("external", "Load external engine (append name)"),
    ("libpmem", "PMDK libpmem based IO engine"),
    ("nbd", "Network Block Device (NBD) IO engine"),
];
