//! The job keys of fio 3.33's `--cmdhelp=all` and of `--enghelp` for iomark's engines
//! that iomark took in beyond the core job model (values in [`crate::job::fio::tuning::Tuning`]), each under its
//! fio group: process placement and hooks, reporting switches, the histogram log and
//! log timestamps, file handling, trims and verify placement, and the io_uring, libaio,
//! pvsync2 and mmap engine flags. Help texts, types, defaults and ranges are fio's
//! (`fio --cmdhelp=KEY`).

use super::{Arg, FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::keys::fio_skew;
use crate::job::fio::tuning::{FileService, LockFile, Mem, Unified};
use crate::job::fio::FioError;

type R = Result<(), FioError>;

const US: u64 = 1_000;

/// A boolean key of [`Tuning`](crate::job::fio::tuning::Tuning) with fio's help.
const fn b(name: &'static str, g: Group, help: &'static str, f: super::JobFn) -> FioOption {
    FioOption::job(name, g, Kind::Bool, help, f)
}

/// An integer key with fio's range `min..` (no maximum).
const fn int(
    name: &'static str,
    g: Group,
    help: &'static str,
    min: i64,
    f: super::JobFn,
) -> FioOption {
    FioOption::job(name, g, Kind::Int, help, f)
        .range(min, -1)
        .example("1")
}

/// A string key.
const fn s(name: &'static str, g: Group, help: &'static str, f: super::JobFn) -> FioOption {
    FioOption::job(name, g, Kind::Str, help, f)
}

pub(super) static OPTIONS: &[FioOption] = &[
    s("lockfile", Group::Filename, "Lock file when doing IO to it", lockfile)
        .default("none")
        .values(&[
            ("none", "No file locking"),
            ("exclusive", "Exclusive file lock"),
            ("readwrite", "Read vs write lock"),
        ])
        .example("exclusive")
        .parent("filename").fio_job(7, OptType::Str).not_applied(),
    b("unique_filename", Group::Filename, "For network clients, prefix file with source IP", unique_filename)
        .default("1").fio_job(6, OptType::Bool),
    s("opendir", Group::Filename, "Recursively add files from this directory and down", opendir)
        .example(".").fio_job(8, OptType::StrStore).callback(),
    FioOption::job("bs_unaligned", Group::Io, Kind::Flag, "Don't sector align IO buffer sizes", bs_unaligned)
        .alias(&["blocksize_unaligned"])
        .parent("rw").fio_job(32, OptType::StrSet),
    s("rw_sequencer", Group::Io, "IO offset generator modifier", rw_sequencer)
        .default("sequential")
        .values(&[
            ("sequential", "Generate sequential offsets"),
            ("identical", "Generate identical offsets"),
        ])
        .example("identical").fio_job(10, OptType::Str),
    b("serialize_overlap", Group::GeneralIo, "Wait for in-flight IOs that collide to complete", serialize_overlap)
        .default("0")
        .parent("iodepth").fio_job(17, OptType::Bool),
    b("file_append", Group::Io, "IO will start at the end of the file(s)", file_append)
        .default("0").fio_job(23, OptType::Bool),
    int("offset_align", Group::Io, "Start IO from this offset alignment", 0, offset_align)
        .default("0")
        .example("4k").fio_job(25, OptType::Int),
    b("allrandrepeat", Group::Random, "Use repeatable random numbers for everything", allrandrepeat)
        .default("0").fio_job(42, OptType::Bool),
    s("file_service_type", Group::Filename, "How to select which file to service next", file_service_type)
        .default("roundrobin")
        .values(&[
            ("random", "Choose a file at random (uniform)"),
            ("zipf", "Zipf randomized"),
            ("pareto", "Pareto randomized"),
            ("normal", "Normal (Gaussian) randomized"),
            ("gauss", "Alias for normal"),
            ("roundrobin", "Round robin select files"),
            ("sequential", "Finish one file before moving to the next"),
        ])
        .example("random:4")
        .parent("nrfiles").fio_job(45, OptType::Str).callback(),
    int("write_barrier", Group::IoType, "Make every Nth write a barrier write", 0, write_barrier)
        .default("0").fio_job(50, OptType::Int),
    FioOption::job("sync_file_range", Group::File, Kind::SizeStr, "Use sync_file_range()", sync_file_range)
        // several flags at `,`, a count at `:`
        .reads_its_rest()
        .values(&[
            ("wait_before", "SYNC_FILE_RANGE_WAIT_BEFORE"),
            ("write", "SYNC_FILE_RANGE_WRITE"),
            ("wait_after", "SYNC_FILE_RANGE_WAIT_AFTER"),
        ])
        .example("write:8").fio_job(51, OptType::StrMulti).callback(),
    b("overwrite", Group::File, "When writing, set whether to overwrite current data", overwrite)
        .default("0").fio_job(55, OptType::Bool),
    FioOption::job("verify_only", Group::Verify, Kind::Flag, "Verifies previously written data is still valid", verify_only).fio_job(61, OptType::StrSet),
    s("clocksource", Group::General, "What type of timing source to use", clocksource)
        .values(&[
            ("gettimeofday", "Use gettimeofday(2) for timing"),
            ("clock_gettime", "Use clock_gettime(2) for timing"),
            ("cpu", "Use CPU private clock"),
        ])
        .example("clock_gettime").fio_job(63, OptType::Str).callback(),
    s("mem", Group::IoType, "Backing type for IO buffers", mem)
        .alias(&["iomem"])
        .default("malloc")
        .values(&[
            ("malloc", "Use malloc(3) for IO buffers"),
            ("shm", "Use shared memory segments for IO buffers"),
            ("shmhuge", "Like shm, but use huge pages"),
            ("mmap", "Use mmap(2) (file or anon) for IO buffers"),
            ("mmapshared", "Like mmap, but use the shared flag"),
            ("mmaphuge", "Like mmap, but use huge pages"),
        ])
        .example("mmap").fio_job(64, OptType::Str).callback(),
    int("iomem_align", Group::IoType, "IO memory buffer offset alignment", 0, iomem_align)
        .alias(&["mem_align"])
        .default("0")
        .parent("iomem").fio_job(65, OptType::Int),
    int("verify_offset", Group::Verify, "Offset verify header location by N bytes", 40, verify_offset)
        .example("64")
        .parent("verify").fio_job(71, OptType::Int),
    int("trim_percentage", Group::Verify, "Number of verify blocks to trim (i.e., discard)", 0, trim_percentage)
        .default("0")
        .range(0, 100)
        .example("10")
        .parent("verify").fio_job(82, OptType::Int).not_applied(),
    b("trim_verify_zero", Group::Verify, "Verify that trimmed (i.e., discarded) blocks are returned as zeroes", trim_verify_zero)
        .default("1")
        .parent("trim_percentage").fio_job(83, OptType::Bool).not_applied(),
    s("trim_backlog", Group::Verify, "Trim after this number of blocks are written", trim_backlog)
        .example("16")
        .parent("trim_percentage").fio_job(84, OptType::StrVal).not_applied(),
    int("trim_backlog_batch", Group::Verify, "Trim this number of IO blocks", 0, trim_backlog_batch)
        .parent("trim_percentage").fio_job(85, OptType::Int).not_applied(),
    b("read_iolog_chunked", Group::Logging, "Parse IO pattern in chunks", read_iolog_chunked)
        .default("0")
        .parent("read_iolog").fio_job(88, OptType::Bool),
    s("merge_blktrace_file", Group::Logging, "Merged blktrace output filename", merge_blktrace_file)
        .example("merged.bin").fio_job(95, OptType::StrStore),
    FioOption::job("merge_blktrace_scalars", Group::Logging, Kind::FloatList, "Percentage to scale each trace", merge_blktrace_scalars)
        .example("100:50").fio_job(96, OptType::FloatList),
    FioOption::job("merge_blktrace_iters", Group::Logging, Kind::FloatList, "Number of iterations to run per trace", merge_blktrace_iters)
        .example("1:2").fio_job(97, OptType::FloatList),
    s("exec_prerun", Group::Process, "Execute this file prior to running job", exec_prerun)
        .example("true").fio_job(98, OptType::StrStore),
    s("exec_postrun", Group::Process, "Execute this file after running job", exec_postrun)
        .example("true").fio_job(99, OptType::StrStore),
    s("ioscheduler", Group::File, "Use this IO scheduler on the backing device", ioscheduler)
        .example("none").fio_job(100, OptType::StrStore),
    s("zonecapacity", Group::Zone, "Capacity per zone", zonecapacity)
        .default("0")
        .example("1m").fio_job(103, OptType::StrVal).not_applied(),
    b("ignore_zone_limits", Group::Zone, "Ignore the zone resource limits (max open/active zones) reported by the device", ignore_zone_limits)
        .default("0").fio_job(109, OptType::Bool).not_applied(),
    s("lockmem", Group::Process, "Lock down this amount of memory (per worker)", lockmem)
        .default("0")
        .example("1m").fio_job(112, OptType::StrVal),
    FioOption::job("nice", Group::Priority, Kind::Int, "Set job CPU nice value", nice)
        .default("0")
        .range(-20, 19)
        .example("5").fio_job(116, OptType::Int).takes_negative(),
    s("thinktime_blocks_type", Group::Thinktime, "How thinktime_blocks takes effect", thinktime_blocks_type)
        .default("complete")
        .values(&[
            ("complete", "thinktime_blocks takes effect at the completion side"),
            ("issue", "thinktime_blocks takes effect at the issue side"),
        ])
        .example("issue")
        .parent("thinktime").fio_job(122, OptType::Str),
    int("thinktime_iotime", Group::Thinktime, "IO time interval between 'thinktime'", 0, thinktime_iotime)
        .default("0")
        .example("1s")
        .parent("thinktime").fio_job(123, OptType::Int),
    b("rate_ignore_thinktime", Group::Rate, "Rated IO ignores thinktime settings", rate_ignore_thinktime)
        .parent("rate").fio_job(130, OptType::Bool).not_applied(),
    int("max_latency", Group::LatencyProfiling, "Maximum tolerated IO latency (usec)", 0, max_latency)
        .example("100ms").fio_job(131, OptType::Ull).per_direction(),
    s("write_hint", Group::File, "Set expected write life time", write_hint)
        .values(&[("none", ""), ("short", ""), ("medium", ""), ("long", ""), ("extreme", "")])
        .example("short").fio_job(138, OptType::Str),
    b("pre_read", Group::File, "Pre-read files before starting official testing", pre_read)
        .default("0").fio_job(145, OptType::Bool),
    int("cpumask", Group::Process, "CPU affinity mask", 0, cpumask).fio_job(146, OptType::Int).callback(),
    s("cpus_allowed", Group::Process, "Set CPUs allowed", cpus_allowed)
        .example("0").fio_job(147, OptType::Str).callback(),
    s("cpus_allowed_policy", Group::Process, "Distribution policy for cpus_allowed", cpus_allowed_policy)
        .values(&[
            ("shared", "Mask shared between threads"),
            ("split", "Mask split between threads"),
        ])
        .example("split")
        .parent("cpus_allowed").fio_job(148, OptType::Str),
    b("unlink_each_loop", Group::File, "Unlink created files after each loop in a job has completed", unlink_each_loop)
        .default("0").fio_job(155, OptType::Bool),
    FioOption::job("exitall_on_error", Group::Process, Kind::Flag, "Terminate all jobs when one exits in error", exitall_on_error).fio_job(158, OptType::StrSet),
    FioOption::job("log_entries", Group::Logging, Kind::Int, "Initial number of entries in a job IO log", log_entries)
        .default("1024")
        .range(1024, 1048576)
        .example("4096").fio_job(166, OptType::Int),
    int("log_hist_msec", Group::Logging, "Dump completion latency histograms at frequency of this time value", 0, log_hist_msec)
        .default("0")
        .example("500").fio_job(168, OptType::Int),
    int("log_hist_coarseness", Group::Logging, "Integer in range [0,6]. Higher coarseness outputs fewer histogram bins per sample. The number of bins for these are [1216, 608, 304, 152, 76, 38, 19] respectively.", 0, log_hist_coarseness)
        .default("0")
        .example("2").fio_job(169, OptType::Int),
    s("write_hist_log", Group::Logging, "Write log of latency histograms during run", write_hist_log)
        .arg(Arg::Value)
        .example("h").fio_job(170, OptType::Str).callback(),
    b("log_max_value", Group::Logging, "Log max sample in a window instead of average", log_max_value)
        .default("0").fio_job(171, OptType::Bool),
    FioOption::job("log_compression", Group::Logging, Kind::Int, "Log in compressed chunks of this size", log_compression)
        .range(1024, 536870912)
        .example("1m").fio_job(174, OptType::Int),
    s("log_compression_cpus", Group::Logging, "Limit log compression to these CPUs", log_compression_cpus)
        .example("0")
        .parent("log_compression").fio_job(175, OptType::Str).callback(),
    b("log_store_compressed", Group::Logging, "Store logs in a compressed format", log_store_compressed).fio_job(176, OptType::Bool),
    b("log_unix_epoch", Group::Logging, "Use Unix time in log files", log_unix_epoch).fio_job(177, OptType::Bool),
    b("log_alternate_epoch", Group::Logging, "Use alternate epoch time in log files. Uses the same epoch as that is used by clock_gettime with specified log_alternate_epoch_clock_id.", log_alternate_epoch).fio_job(178, OptType::Bool),
    int("log_alternate_epoch_clock_id", Group::Logging, "If log_alternate_epoch or log_unix_epoch is true, this option specifies the clock_id from clock_gettime whose epoch should be used. If neither of those is true, this option has no effect. Default value is 0, or CLOCK_REALTIME", 0, log_alternate_epoch_clock_id).fio_job(179, OptType::Int),
    b("block_error_percentiles", Group::LatencyProfiling, "Record trim block errors and make a histogram", block_error_percentiles)
        .default("0").fio_job(180, OptType::Bool).not_applied(),
    b("stats", Group::Statistics, "Enable collection of stats", stats).default("1").fio_job(184, OptType::Bool),
    b("scramble_buffers", Group::Buffers, "Slightly scramble buffers on every IO submit", scramble_buffers)
        .default("1").fio_job(187, OptType::Bool),
    int("buffer_compress_chunk", Group::Buffers, "Size of compressible region in buffer", 0, buffer_compress_chunk)
        .default("512")
        .example("4k")
        .parent("buffer_compress_percentage").fio_job(190, OptType::Int),
    b("slat_percentiles", Group::Statistics, "Enable the reporting of submission latency percentiles", slat_percentiles)
        .default("0").fio_job(197, OptType::Bool),
    FioOption::job("significant_figures", Group::Statistics, Kind::Int, "Significant figures for output-format set to normal", significant_figures)
        .default("4")
        .range(1, 10)
        .example("6").fio_job(199, OptType::Int),
    b("disk_util", Group::Statistics, "Log disk utilization statistics", disk_util).default("1").fio_job(200, OptType::Bool),
    b("disable_lat", Group::Statistics, "Disable latency numbers", disable_lat).default("0")
        .parent("gtod_reduce").fio_job(202, OptType::Bool),
    b("disable_clat", Group::Statistics, "Disable completion latency numbers", disable_clat).default("0")
        .parent("gtod_reduce").fio_job(203, OptType::Bool),
    b("disable_slat", Group::Statistics, "Disable submission latency numbers", disable_slat).default("0")
        .parent("gtod_reduce").fio_job(204, OptType::Bool),
    b("disable_bw_measurement", Group::Statistics, "Disable bandwidth logging", disable_bw)
        .alias(&["disable_bw"])
        .default("0")
        .parent("gtod_reduce").fio_job(205, OptType::Bool),
    int("gtod_cpu", Group::General, "Set up dedicated gettimeofday() thread on this CPU", 0, gtod_cpu)
        .example("0").fio_job(206, OptType::Int),
    s("unified_rw_reporting", Group::Statistics, "Unify reporting across data direction", unified_rw_reporting)
        .default("none")
        .values(&[
            ("none", "Normal statistics reporting"),
            ("mixed", "Statistics are summed per data direction and reported together"),
            ("both", "Statistics are reported normally, followed by the mixed statistics"),
            ("0", "Alias for 'none'"),
            ("1", "Alias for 'mixed'"),
            ("2", "Alias for 'both'"),
        ])
        .example("mixed").fio_job(207, OptType::Str),
    s("profile", Group::Process, "Select a specific builtin performance test", profile)
        .reads_its_rest()
        .values(&[
            ("tiobench", "tiotest/tiobench benchmark"),
            ("act", "ACT Aerospike like benchmark"),
        ])
        .example("tiobench").fio_job(211, OptType::StrStore).not_applied(),
    s("cgroup", Group::Process, "Add job to cgroup of this name", cgroup).example("iomark").fio_job(212, OptType::StrStore).not_applied(),
    b("cgroup_nodelete", Group::Process, "Do not delete cgroups after job completion", cgroup_nodelete)
        .default("0")
        .parent("cgroup").fio_job(213, OptType::Bool).not_applied(),
    FioOption::job("cgroup_weight", Group::Process, Kind::Int, "Use given weight for cgroup", cgroup_weight)
        .range(100, 1000)
        .example("500")
        .parent("cgroup").fio_job(214, OptType::Int).not_applied(),
    int("uid", Group::Priority, "Run job with this user ID", 0, uid).example("0").fio_job(215, OptType::Int),
    int("gid", Group::Priority, "Run job with this group ID", 0, gid).example("0").fio_job(216, OptType::Int),
    b("fixedbufs", Group::Engine, "Pre map IO buffers", fixedbufs).default("0"),
    b("registerfiles", Group::Engine, "Pre-open/register files", registerfiles).default("0"),
    // fio 3.33 gives it no range (io_uring.c: an unsigned int, -1 = probe, else `!!value`)
    FioOption::job("nonvectored", Group::Engine, Kind::Int, "Use non-vectored read/write commands", nonvectored)
        .default("-1")
        .example("1"),
    int("uncached", Group::Engine, "Use RWF_UNCACHED for buffered read/writes", 0, uncached).default("0"),
    b("nowait", Group::Engine, "Use RWF_NOWAIT for reads/writes", nowait).default("0"),
    FioOption::job(
        "hipri_percentage",
        Group::Engine,
        Kind::Int,
        "Probabilistically set RWF_HIPRI for pwritev2/preadv2",
        hipri_percentage,
    )
    .range(0, 100)
    .default("100")
    .example("50"),
    s("cmd_type", Group::Engine, "Specify uring-cmd type", cmd_type)
        .default("nvme")
        .values(&[("nvme", "pass-through uring-cmd for nvme devices")])
        .example("nvme"),
    int("thp", Group::Engine, "Memory Advise Huge Page", 0, thp).default("0"),
];

/// Set `job.tuning.FIELD` to the value as a fio boolean.
macro_rules! tuning_bools {
    ($($name:ident => $field:ident;)+) => {$(
        fn $name(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
            c.job.tuning.$field = c.bool(v)?;
            Ok(())
        }
    )+};
}

tuning_bools! {
    unique_filename => unique_filename;
    bs_unaligned => bs_unaligned;
    serialize_overlap => serialize_overlap;
    file_append => file_append;
    allrandrepeat => allrandrepeat;
    overwrite => overwrite;
    verify_only => verify_only;
    trim_verify_zero => trim_verify_zero;
    read_iolog_chunked => read_iolog_chunked;
    ignore_zone_limits => ignore_zone_limits;
    rate_ignore_thinktime => rate_ignore_thinktime;
    pre_read => pre_read;
    unlink_each_loop => unlink_each_loop;
    exitall_on_error => exitall_on_error;
    log_max_value => log_max_value;
    log_store_compressed => log_store_compressed;
    log_unix_epoch => log_unix_epoch;
    log_alternate_epoch => log_alternate_epoch;
    block_error_percentiles => block_error_percentiles;
    stats => stats;
    scramble_buffers => scramble_buffers;
    slat_percentiles => slat_percentiles;
    disk_util => disk_util;
    disable_lat => disable_lat;
    disable_clat => disable_clat;
    disable_slat => disable_slat;
    cgroup_nodelete => cgroup_nodelete;
    fixedbufs => fixedbufs;
    registerfiles => registerfiles;
    nowait => nowait;
}

/// `thp` (mmap engine): fio 3.33's integer, any non-zero value asking for huge pages
/// (`madvise(MADV_HUGEPAGE)`).
fn thp(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.thp = c.need_u64(v)? != 0;
    Ok(())
}

/// Set `job.tuning.FIELD` to the value as text (required).
/// `disable_bw_measurement`: no bandwidth samples. `=0` after `gtod_reduce=1` turns
/// fio's per-request bandwidth and IOPS samples back on: fio 3.33's `gtod_reduce` is
/// its three `disable_*` together (io_u.c `gtod_reduce`; its callback stores no flag
/// of its own), so with bandwidth measured again nothing is reduced.
fn disable_bw(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let on = c.bool(v)?;
    c.job.tuning.disable_bw = on;
    if !on {
        c.job.more.gtod_reduce = false;
    }
    Ok(())
}

macro_rules! tuning_strings {
    ($($name:ident => $field:ident;)+) => {$(
        fn $name(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
            c.job.tuning.$field = Some(c.need(v)?.trim().to_string());
            Ok(())
        }
    )+};
}

tuning_strings! {
    opendir => opendir;
    merge_blktrace_file => merge_blktrace_file;
    exec_prerun => exec_prerun;
    exec_postrun => exec_postrun;
    ioscheduler => ioscheduler;
    log_compression_cpus => log_compression_cpus;
    cgroup => cgroup;
}

/// A whole number or a size with fio's units (`4k`), in the job's `kb_base`.
fn size_or_int(c: &JobCtx<'_>, v: Option<&str>) -> Result<u64, FioError> {
    let v = c.need(v)?;
    if let Ok(n) = v.trim().parse::<u64>() {
        return Ok(n);
    }
    c.size(v)
}

/// A whole number written in decimal or `0x` hex.
fn int_or_hex(c: &JobCtx<'_>, v: Option<&str>) -> Result<u64, FioError> {
    let v = c.need(v)?;
    let t = v.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).map_err(|_| c.bad(v, "a number (decimal or 0x hex)")),
        None => c.u64(t),
    }
}

/// One of `words` (their index), or the error listing them.
fn word(c: &JobCtx<'_>, v: Option<&str>, words: &[&str]) -> Result<usize, FioError> {
    let v = c.need(v)?;
    words
        .iter()
        .position(|w| *w == v.trim())
        .ok_or_else(|| c.bad(v, format!("one of {}", words.join(", "))))
}

fn lockfile(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    // fio reads `readwrite` also as `rw` and takes a `:N` batch it ignores since 2.x
    let w = c.need(v)?.split(':').next().unwrap_or("").to_string();
    c.job.tuning.lockfile = match word(c, Some(&w), &["none", "exclusive", "readwrite", "rw"])? {
        0 => LockFile::None,
        1 => LockFile::Exclusive,
        _ => LockFile::ReadWrite,
    };
    Ok(())
}

fn rw_sequencer(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.rw_identical = word(c, v, &["sequential", "identical"])? == 1;
    Ok(())
}

fn offset_align(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.offset_align = size_or_int(c, v)?;
    Ok(())
}

/// `TYPE[:N]` (random, roundrobin, sequential: N requests per file) or
/// `zipf|pareto|normal|gauss[:PARAM]` (fio's defaults: zipf 1.1, pareto 0.2, normal 0).
fn file_service_type(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let (kind, post) = match v.trim().split_once(':') {
        Some((k, p)) => (k, Some(p.trim())),
        None => (v.trim(), None),
    };
    if c.job.fio_persona {
        return persona_file_service(c, v, kind, post);
    }
    let float = |d: f64| -> Result<f64, FioError> {
        post.map_or(Ok(d), |p| {
            p.parse::<f64>()
                .map_err(|_| c.bad(v, "a number after ':' (the distribution's parameter)"))
        })
    };
    let nr = || -> Result<u64, FioError> { post.map_or(Ok(1), |p| Ok(c.u64(p)?.max(1))) };
    c.job.tuning.file_service = match kind {
        "random" => (FileService::Random, nr()?),
        "roundrobin" => (FileService::RoundRobin, nr()?),
        "sequential" => (FileService::Sequential, nr()?),
        "zipf" => match float(1.1)? {
            t if t == 1.0 || t <= 0.0 => {
                return Err(c.bad(v, "zipf theta must be > 0 and different than 1.0"))
            }
            t => (FileService::Zipf(t, None), 1),
        },
        "pareto" => match float(0.2)? {
            h if h <= 0.0 || h >= 1.0 => return Err(c.bad(v, "pareto h must be in (0, 1)")),
            h => (FileService::Pareto(h, None), 1),
        },
        "normal" | "gauss" => match float(0.0)? {
            d if !(0.0..=100.0).contains(&d) => {
                return Err(c.bad(v, "normal deviation must be 0 to 100 (percent)"))
            }
            d => (FileService::Normal(d, None), 1),
        },
        _ => {
            return Err(c.bad(
                v,
                "one of random, zipf, pareto, normal, gauss, roundrobin, sequential (with :N)",
            ))
        }
    };
    Ok(())
}

/// `file_service_type` as the fio persona reads it (options.c `str_fst_cb`): after
/// `random`, `roundrobin`, `sequential` the count is C's `atoi` of the rest (0 for
/// junk) in an `unsigned int`, whose 0 fio's countdown wraps (2³² requests a file);
/// `zipf`, `pareto`, `normal`/`gauss` take a parameter and a centre as
/// `random_distribution` does ([`fio_skew`], fio's lines).
fn persona_file_service(c: &mut JobCtx<'_>, v: &str, kind: &str, post: Option<&str>) -> R {
    let service = match kind {
        "random" => FileService::Random,
        "roundrobin" => FileService::RoundRobin,
        "sequential" => FileService::Sequential,
        "zipf" | "pareto" | "normal" | "gauss" => {
            let k = if kind == "gauss" { "normal" } else { kind };
            let (val, center) = fio_skew(k, post, true).map_err(|e| c.bad(v, e))?;
            let service = match k {
                "zipf" => FileService::Zipf(val, center),
                "pareto" => FileService::Pareto(val, center),
                _ => FileService::Normal(val, center),
            };
            c.job.tuning.file_service = (service, 1);
            return Ok(());
        }
        _ => {
            return Err(c.bad(
                v,
                "one of random, zipf, pareto, normal, gauss, roundrobin, sequential (with :N)",
            ))
        }
    };
    let n = post.map_or(1, |p| crate::job::units::c_strtol(p.trim()) as u32);
    c.job.tuning.file_service = (service, if n == 0 { 1 << 32 } else { u64::from(n) });
    Ok(())
}

fn write_barrier(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.write_barrier = c.need_u64(v)?;
    Ok(())
}

/// `FLAG[,FLAG...][:N]`: SYNC_FILE_RANGE_WAIT_BEFORE (1), _WRITE (2), _WAIT_AFTER (4),
/// every N writes (default 1).
fn sync_file_range(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let (flags, nr) = match v.trim().split_once(':') {
        Some((f, n)) => (f, c.u64(n)?),
        None => (v.trim(), 1),
    };
    let mut bits = 0u32;
    for w in flags
        .split([',', '|'])
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        bits |= match w {
            "wait_before" => libc::SYNC_FILE_RANGE_WAIT_BEFORE,
            "write" => libc::SYNC_FILE_RANGE_WRITE,
            "wait_after" => libc::SYNC_FILE_RANGE_WAIT_AFTER,
            _ => return Err(c.bad(w, "a list of wait_before, write, wait_after (then :N)")),
        };
    }
    if bits == 0 {
        return Err(c.bad(v, "a list of wait_before, write, wait_after (then :N)"));
    }
    c.job.tuning.sync_file_range = Some((bits, nr.max(1)));
    Ok(())
}

fn clocksource(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let i = word(c, v, &["gettimeofday", "clock_gettime", "cpu"])?;
    c.job.tuning.clocksource = Some(["gettimeofday", "clock_gettime", "cpu"][i].to_string());
    Ok(())
}

/// `iomem_align`: bytes past a page's start each I/O buffer starts at (fio 3.33's
/// `PTR_ALIGN(buf, page) + mem_align`); at most 1 MiB here, so a slip of the unit
/// allocates no giant buffer.
fn iomem_align(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    if n > 1 << 20 {
        return Err(c.bad(v, "at most 1048576 (bytes past the page's start)"));
    }
    c.job.tuning.mem_align = n;
    Ok(())
}

/// `malloc`, `shm`, `shmhuge`, `mmap[:FILE]`, `mmapshared[:FILE]`, `mmaphuge[:FILE]`.
fn mem(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let (kind, file) = match v.trim().split_once(':') {
        Some((k, f)) => (k, Some(f.to_string())),
        None => (v.trim(), None),
    };
    c.job.tuning.mem = match (kind, &file) {
        ("malloc", None) => Mem::Malloc,
        ("shm", None) => Mem::Shm { huge: false },
        ("shmhuge", None) => Mem::Shm { huge: true },
        ("mmap" | "mmaphuge" | "mmapshared", _) => Mem::Mmap {
            huge: kind == "mmaphuge",
            shared: kind == "mmapshared",
            file,
        },
        _ => {
            return Err(c.bad(
                v,
                "one of malloc, shm, shmhuge, mmap[:FILE], mmapshared[:FILE], mmaphuge[:FILE]",
            ))
        }
    };
    Ok(())
}

/// At least iomark's verify header (64 bytes; fio's minimum, 40, is its own header's
/// size): the header is swapped with the bytes there, which must not overlap it.
fn verify_offset(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let n = size_or_int(c, v)?;
    let hdr = crate::job::fio::keys::VERIFY_HEADER;
    if n < hdr {
        return Err(c.bad(
            v.unwrap_or(""),
            format!("at least {hdr} (the size of iomark's verify header)"),
        ));
    }
    c.job.tuning.verify_offset = Some(n);
    Ok(())
}

fn trim_percentage(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.trim_percentage = c.need_at_most(v, 100, "a percentage 0 to 100")? as u32;
    Ok(())
}

fn trim_backlog(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.trim_backlog = size_or_int(c, v)?;
    Ok(())
}

fn trim_backlog_batch(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.trim_backlog_batch = c.need_u64(v)?;
    Ok(())
}

fn float_list(c: &JobCtx<'_>, v: Option<&str>) -> Result<Vec<f64>, FioError> {
    let v = c.need(v)?;
    v.split(':')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .map_err(|_| c.bad(v, "numbers separated by ':'"))
        })
        .collect()
}

fn merge_blktrace_scalars(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.merge_blktrace_scalars = float_list(c, v)?;
    Ok(())
}

fn merge_blktrace_iters(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.merge_blktrace_iters = float_list(c, v)?;
    Ok(())
}

fn zonecapacity(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.zonecapacity = size_or_int(c, v)?;
    Ok(())
}

fn lockmem(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.lockmem = size_or_int(c, v)?;
    Ok(())
}

fn nice(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    match v.trim().parse::<i32>() {
        Ok(n) if (-20..=19).contains(&n) => c.job.tuning.nice = n,
        _ => return Err(c.bad(v, "a nice value from -20 to 19")),
    }
    Ok(())
}

fn thinktime_blocks_type(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.thinktime_issue = word(c, v, &["complete", "issue"])? == 1;
    Ok(())
}

/// A time whose plain number is in µs (fio's `thinktime_iotime` takes `1s`).
fn thinktime_iotime(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.thinktime_iotime = c.time(c.need(v)?, US)?;
    Ok(())
}

/// µs (fio's plain number), or a time with its unit (`100ms`); `R,W` per direction
/// (one value: both).
fn max_latency(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let mut ns = [0u64; 2];
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 2 {
        return Err(c.bad(v, "a latency, or READ,WRITE"));
    }
    for (i, p) in parts.iter().enumerate() {
        if !p.trim().is_empty() {
            ns[i] = u64::try_from(c.time(p, US)?.as_nanos()).unwrap_or(u64::MAX);
        }
    }
    if parts.len() == 1 {
        ns[1] = ns[0];
    }
    c.job.tuning.max_latency = ns;
    Ok(())
}

/// RWH_WRITE_LIFE_NONE (1) … _EXTREME (5); `none` is 1 as in fio (0 is "not set").
fn write_hint(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let i = word(c, v, &["none", "short", "medium", "long", "extreme"])?;
    c.job.tuning.write_hint = Some(i as u64 + 1);
    Ok(())
}

fn cpumask(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let m = int_or_hex(c, v)?;
    // fio 3.33 reads the mask with `strtoll`: past 2⁶³ − 1 its parse fails before the
    // callback looks at a CPU (no `CPU N too large` line)
    if c.job.fio_persona && i64::try_from(m).is_err() {
        return Err(c.bad(v.unwrap_or_default(), "a mask past 2^63 - 1"));
    }
    c.job.tuning.cpus = Some((0..64).filter(|i| m >> i & 1 == 1).collect());
    Ok(())
}

/// fio's CPU list: `0-3,5`, each CPU below 1024 (fio's `FIO_MAX_CPUS`; past it, fio's
/// own line).
fn cpus_allowed(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let mut cpus = Vec::new();
    for p in v.split(',').map(str::trim) {
        let (a, z) = p.split_once('-').unwrap_or((p, p));
        let (a, z) = match (a.trim().parse::<usize>(), z.trim().parse::<usize>()) {
            (Ok(a), Ok(z)) if a <= z && z < FIO_MAX_CPUS => (a, z),
            // fio's line for the first CPU it refuses, in its order (past this
            // machine's CPUs or past FIO_MAX_CPUS)
            (Ok(a), Ok(z)) if a <= z => {
                let line = cpu_past_machine(fio_cpu_order(v)).unwrap_or_else(|| {
                    format!("fio: your OS only supports up to {FIO_MAX_CPUS} CPUs")
                });
                return Err(c.bad(v, line));
            }
            _ => return Err(c.bad(v, "a CPU list such as 0-3,5")),
        };
        cpus.extend(a..=z);
    }
    cpus.sort_unstable();
    cpus.dedup();
    c.job.tuning.cpus = Some(cpus);
    Ok(())
}

/// fio 3.33's reading of a CPU list (options.c `set_cpus_allowed`), as the fio persona
/// takes one iomark's own reading refuses: blanks at either end dropped, parts split at
/// `,` (an empty one ends the list), each part's last CPU C's `atoi` of its last
/// `-`-separated piece before an empty one and its first the `atoi` of the part up to
/// its first `-` (fio's `strsep` has cut the part there before it reads it: `zz` is CPU
/// 0, `1x-3y` is 1-3, `-1` is 0); a part whose last CPU is below its first sets none
/// (`5-1`). The list in iomark's form (`0-0`, `1-3`), empty when fio sets no CPU (its
/// thread then fails to set its affinity); `None` for a blank value.
pub fn fio_cpu_list(v: &str) -> Option<String> {
    let mut parts = Vec::new();
    if v.trim().is_empty() {
        return None;
    }
    for part in v.trim().split(',') {
        if part.is_empty() {
            break;
        }
        let last = part.split('-').take_while(|p| !p.is_empty()).last();
        let first = crate::job::units::c_strtol(part.split('-').next().unwrap_or(part));
        let last = last.map_or(first, crate::job::units::c_strtol);
        if last >= first {
            parts.push(format!("{first}-{last}"));
        }
    }
    Some(parts.join(","))
}

/// The CPUs this machine has configured (`sysconf(_SC_NPROCESSORS_CONF)`, fio 3.33's
/// `cpus_configured`): the one reading of it for the job model (`$ncpus` too).
pub fn cpus_configured() -> i64 {
    // SAFETY: sysconf only reads system configuration
    unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1) as i64
}

/// The most CPUs fio 3.33 can name (`FIO_MAX_CPUS`, glibc's `CPU_SETSIZE`).
const FIO_MAX_CPUS: usize = 1024;

/// fio 3.33's line refusing the CPU set `cpus` (in the order fio sets them) while it
/// parses `cpus_allowed` or `cpumask` (options.c `set_cpus_allowed`, `str_cpumask_cb`):
/// the first CPU past `FIO_MAX_CPUS` or this machine's configured CPUs
/// ([`cpus_configured`]); `None` when every CPU exists.
pub fn cpu_past_machine(cpus: impl IntoIterator<Item = usize>) -> Option<String> {
    let max = usize::try_from(cpus_configured()).unwrap_or(1);
    cpus.into_iter().find_map(|c| match c {
        c if c >= FIO_MAX_CPUS => Some(format!(
            "fio: your OS only supports up to {FIO_MAX_CPUS} CPUs"
        )),
        c if c >= max => Some(format!("fio: CPU {c} too large (max={})", max - 1)),
        _ => None,
    })
}

/// The CPUs of a `cpus_allowed` list in the order fio 3.33 sets them (each part's in
/// turn, as [`fio_cpu_list`] reads it); empty when fio would set none.
pub fn fio_cpu_order(v: &str) -> Vec<usize> {
    let list = fio_cpu_list(v).unwrap_or_default();
    let mut out = Vec::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        let (a, z) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(z)) = (a.parse::<usize>(), z.parse::<usize>()) {
            // (past FIO_MAX_CPUS fio stops at the first CPU: no longer list is needed)
            out.extend(a..=z.min(a + FIO_MAX_CPUS));
        }
    }
    out
}

fn cpus_allowed_policy(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.cpus_split = word(c, v, &["shared", "split"])? == 1;
    Ok(())
}

fn log_entries(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    match c.u64(v)? {
        n @ 1024..=1048576 => c.job.tuning.log_entries = n,
        _ => return Err(c.bad(v, "1024 to 1048576")),
    }
    Ok(())
}

fn log_hist_msec(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.log_hist_msec = c.need_u64(v)?;
    Ok(())
}

fn log_hist_coarseness(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.log_hist_coarseness = c.need_at_most(v, 6, "0 to 6")? as u32;
    Ok(())
}

/// The prefix of the histogram log: none (a bare key) or `1` means the job's name.
fn write_hist_log(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let name = v.map(str::trim).filter(|v| !v.is_empty() && *v != "1");
    c.job.tuning.hist_log = Some(name.unwrap_or("").to_string());
    Ok(())
}

fn log_compression(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    match size_or_int(c, Some(v))? {
        n @ 1024..=536870912 => c.job.tuning.log_compression = n,
        _ => return Err(c.bad(v, "1024 to 536870912 (bytes)")),
    }
    Ok(())
}

fn log_alternate_epoch_clock_id(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.log_alternate_epoch_clock_id = Some(c.need_at_most(v, 15, "a clock id")? as i32);
    Ok(())
}

fn buffer_compress_chunk(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.buffer_compress_chunk = size_or_int(c, v)?;
    Ok(())
}

fn significant_figures(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    match c.u64(v)? {
        n @ 1..=10 => c.job.tuning.significant_figures = n as u32,
        _ => return Err(c.bad(v, "1 to 10")),
    }
    Ok(())
}

fn gtod_cpu(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.gtod_cpu = Some(c.need_at_most(v, 4095, "a CPU number")? as u32);
    Ok(())
}

fn unified_rw_reporting(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let i = word(c, v, &["none", "mixed", "both", "0", "1", "2"])?;
    c.job.tuning.unified = [Unified::None, Unified::Mixed, Unified::Both][i % 3];
    Ok(())
}

/// Any name, as fio 3.33 stores it (FIO_OPT_STR_STORE: the job option names no profile
/// fio loads — only the command line's `--profile` does — so an unknown one is kept too).
fn profile(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.profile = Some(c.need(v)?.trim().to_string());
    Ok(())
}

fn cgroup_weight(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    match c.u64(v)? {
        n @ 100..=1000 => c.job.tuning.cgroup_weight = Some(n as u32),
        _ => return Err(c.bad(v, "100 to 1000")),
    }
    Ok(())
}

fn uid(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.uid = Some(c.need_at_most(v, u32::MAX as u64 - 1, "a user ID")? as u32);
    Ok(())
}

fn gid(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.gid = Some(c.need_at_most(v, u32::MAX as u64 - 1, "a group ID")? as u32);
    Ok(())
}

/// `nonvectored`: -1 probes, 0 vectored, any other whole number non-vectored (fio 3.33
/// reads it as `!!value`, so `nonvectored=10` is 1).
fn nonvectored(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    match v.trim().parse::<i64>() {
        Ok(n @ -1..=0) => c.job.tuning.nonvectored = n,
        Ok(_) => c.job.tuning.nonvectored = 1,
        _ => {
            return Err(c.bad(
                v,
                "a whole number (-1 probes, 0 vectored, else non-vectored)",
            ))
        }
    }
    Ok(())
}

/// `hipri_percentage` (pvsync2): the share of requests `hipri` marks RWF_HIPRI, 0-100.
fn hipri_percentage(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.hipri_percentage = c.need_at_most(v, 100, "a percentage 0-100")? as u32;
    Ok(())
}

fn uncached(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.uncached = c.need_at_most(v, u32::MAX as u64, "a whole number")? as u32;
    Ok(())
}

/// fio's io_uring takes only `nvme` (the io_uring_cmd engine's type).
fn cmd_type(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    word(c, v, &["nvme"])?;
    Ok(())
}
