//! Option readers of `iomark fileio`: the general options and the fileio options, each in
//! sysbench's own validation order (spec §1.3 step 3, §2), with its messages and codes.

use crate::cli::fileio::args::Argv;
use super::{bool_opt, int_opt, level, Ctx, Stop, FILEIO_HELP, MAX_THREADS};
use crate::exit;
use crate::job::sysbench::*;
use crate::job::units::{sysbench_int, sysbench_ratio, sysbench_size};
use std::path::PathBuf;

/// What option `name` (dashes, no `--`) accepts, for the hint line after sysbench's own
/// message: a whole number's range, a size's syntax or the list of words.
pub(super) fn accepted(name: &str) -> &'static str {
    match name {
        "threads" | "num-threads" => "a whole number from 1 to 1024",
        "events" | "max-requests" => "a whole number >= 0 (0 = no event limit)",
        "time" | "max-time" => "a whole number of seconds >= 0 (0 = no time limit)",
        "rate" | "tx-rate" => "a whole number of events per second >= 0 (0 = unlimited)",
        "report-interval" => "a whole number of seconds >= 0 (0 = off)",
        "rand-seed" => "a whole number (0 = seed from the current time)",
        "verbosity" => "a whole number from 0 to 5",
        "percentile" => "a whole number from 0 to 100 (0 = off)",
        "forced-shutdown" => {
            "off, a whole number of seconds after --time, P% of --time, or empty (5 % of --time)"
        }
        "rand-type" => "uniform, gaussian, special, pareto, zipfian",
        "histogram" => "on only with --percentile from 1 to 100",
        "file-num" => "a whole number from 1 to 2147483647",
        "file-total-size" => {
            "a size of at least 1 byte: digits with an optional K, M, G or T suffix (binary, e.g. 64M)"
        }
        "file-test-mode" => "seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw",
        "file-io-mode" => "sync, async, mmap",
        "file-merged-requests" => "a whole number >= 0 (0 = no merging)",
        "file-block-size" => {
            "a size from 1 byte to 2147483647 bytes: digits with an optional K, M or G suffix (binary, e.g. 16K)"
        }
        "file-extra-flags" => "a comma-separated list of sync, dsync, direct",
        "file-fsync-freq" => "a whole number >= 0 (0 = no periodic fsync)",
        "file-fsync-mode" => "fsync, fdatasync",
        "file-rw-ratio" => "a number >= 0 (reads per write; inf = reads only)",
        "file-async-backlog" => "a whole number from 1 to 32768",
        _ => "a whole number (decimal, 32-bit)",
    }
}

/// After a message sysbench defines (kept verbatim on its stream), one stderr line
/// naming the option and what it accepts: `iomark: --file-io-mode accepts sync, async, mmap`.
pub(super) fn hint(c: &mut Ctx, name: &str) {
    c.err(format!("iomark: --{name} accepts {}", accepted(name)));
}

/// sysbench's `FATAL: <text>` (stdout, verbatim) followed by the [`hint`] for `name`.
fn fatal_hint(c: &mut Ctx, name: &str, text: impl Into<String>) {
    c.fatal(text);
    hint(c, name);
}

/// General options in sysbench's initialisation order (spec §1.3 step 3).
pub(super) struct General {
    threads: u32,
    events: u64,
    time: u64,
    forced: ForcedShutdown,
    rate: u64,
    report_interval: u64,
    checkpoints: Vec<u64>,
    percentile: u32,
    histogram: bool,
    seed: u64,
    validate: bool,
    debug: bool,
    verbosity: u8,
}

fn negative(c: &mut Ctx, opt: &str, v: i64) -> Stop {
    c.fatal(format!("Invalid value for --{opt}: {v} (must be >= 0)"));
    Stop(exit::INVALID)
}

pub(super) fn general_options(c: &mut Ctx, a: &Argv) -> Result<General, Stop> {
    let num_threads = int_opt(c, a, "num-threads")?.unwrap_or(1);
    let mut threads = int_opt(c, a, "threads")?.unwrap_or(1);
    let max_requests = int_opt(c, a, "max-requests")?.unwrap_or(0);
    let mut events = int_opt(c, a, "events")?.unwrap_or(0);
    let max_time = int_opt(c, a, "max-time")?.unwrap_or(0);
    let mut time = int_opt(c, a, "time")?.unwrap_or(10);
    let tx_rate = int_opt(c, a, "tx-rate")?.unwrap_or(0);
    let mut rate = int_opt(c, a, "rate")?.unwrap_or(0);
    if num_threads > 1 {
        c.out(
            level::WARNING,
            "WARNING: --num-threads is deprecated, use --threads instead",
        );
        threads = num_threads;
    }
    if max_requests > 0 {
        c.out(
            level::WARNING,
            "WARNING: --max-requests is deprecated, use --events instead",
        );
        events = max_requests;
    }
    if max_time > 0 {
        c.out(
            level::WARNING,
            "WARNING: --max-time is deprecated, use --time instead",
        );
        time = max_time;
    }
    if tx_rate > 0 {
        c.out(
            level::WARNING,
            "WARNING: --tx-rate is deprecated, use --rate instead",
        );
        rate = tx_rate;
    }
    if threads == 0 {
        c.fatal("Invalid value for --threads: 0.");
        c.out(level::FATAL, "");
        hint(c, "threads");
        return Err(Stop(exit::FAILED));
    }
    if threads < 0 {
        // sysbench: "Memory allocation failure" (bug B13).
        c.fatal(format!(
            "Invalid value for --threads: {threads} (must be between 1 and {})",
            i32::MAX
        ));
        return Err(Stop(exit::FAILED));
    }
    if threads > MAX_THREADS {
        c.fatal(format!(
            "Invalid value for --threads: {threads} (iomark accepts at most {MAX_THREADS} threads)"
        ));
        return Err(Stop(exit::INVALID));
    }
    if events < 0 {
        return Err(negative(c, "events", events));
    }
    if time < 0 {
        return Err(negative(c, "time", time));
    }
    if events == 0 && time == 0 {
        c.out(
            level::WARNING,
            "WARNING: Both event and time limits are disabled, running an endless test",
        );
    }
    let forced = match a.value("forced-shutdown") {
        None => None,
        Some(v) => {
            let parsed = if v.eq_ignore_ascii_case("off") {
                Some(None)
            } else if v.is_empty() {
                Some(Some(time as u64 / 20))
            } else if let Some(p) = v.strip_suffix('%') {
                sysbench_int(p)
                    .filter(|x| *x >= 0)
                    .map(|p| Some(time as u64 * p as u64 / 100))
            } else {
                sysbench_int(v).filter(|x| *x >= 0).map(|s| Some(s as u64))
            };
            match parsed {
                Some(f) => f,
                None => {
                    fatal_hint(
                        c,
                        "forced-shutdown",
                        format!("Invalid value for --forced-shutdown: '{v}'"),
                    );
                    return Err(Stop(exit::FAILED));
                }
            }
        }
    };
    let forced = if time > 0 { forced } else { None };
    let debug = bool_opt(a, "debug", false);
    let validate = bool_opt(a, "validate", false);
    if let Some(t) = a.value("rand-type") {
        if !["uniform", "gaussian", "special", "pareto", "zipfian"].contains(&t) {
            fatal_hint(
                c,
                "rand-type",
                format!("Invalid random numbers distribution: {t}."),
            );
            return Err(Stop(exit::FAILED));
        }
    }
    for n in [
        "rand-spec-iter",
        "rand-spec-pct",
        "rand-spec-res",
        "thread-stack-size",
        "thread-init-timeout",
    ] {
        int_opt(c, a, n)?;
    }
    let seed = int_opt(c, a, "rand-seed")?.unwrap_or(0);
    if rate < 0 {
        return Err(negative(c, "rate", rate));
    }
    let report_interval = int_opt(c, a, "report-interval")?.unwrap_or(0);
    if report_interval < 0 {
        return Err(negative(c, "report-interval", report_interval));
    }
    let mut checkpoints = vec![];
    if let Some(list) = a.value("report-checkpoints") {
        for item in list.split(',').filter(|s| !s.is_empty()) {
            match sysbench_int(item) {
                Some(x) if x > 0 => checkpoints.push(x as u64),
                _ => {
                    c.fatal(format!("Invalid value for --report-checkpoints: '{item}' (positive whole seconds are expected)"));
                    return Err(Stop(exit::INVALID));
                }
            }
        }
        checkpoints.sort_unstable();
        checkpoints.dedup();
    }
    let verbosity = int_opt(c, a, "verbosity")?.unwrap_or(3);
    if !(0..=5).contains(&verbosity) {
        c.out(
            level::FATAL,
            format!("Invalid value for verbosity: {verbosity}"),
        );
        hint(c, "verbosity");
        return Err(Stop(exit::FAILED));
    }
    let percentile = int_opt(c, a, "percentile")?.unwrap_or(95);
    if !(0..=100).contains(&percentile) {
        fatal_hint(
            c,
            "percentile",
            format!("Invalid value for --percentile: {percentile}"),
        );
        return Err(Stop(exit::FAILED));
    }
    let histogram = bool_opt(a, "histogram", false);
    if histogram && percentile == 0 {
        fatal_hint(
            c,
            "histogram",
            "--histogram cannot be used with --percentile=0",
        );
        return Err(Stop(exit::FAILED));
    }
    Ok(General {
        threads: threads as u32,
        events: events as u64,
        time: time as u64,
        forced,
        rate: rate as u64,
        report_interval: report_interval as u64,
        checkpoints,
        percentile: percentile as u32,
        histogram,
        seed: u64::from(seed as i32 as u32),
        validate,
        debug,
        verbosity: if debug { 5 } else { verbosity as u8 },
    })
}

/// fileio options in sysbench's validation order (spec §2, last paragraph).
pub(super) fn fileio_options(
    c: &mut Ctx,
    a: &Argv,
    runs: bool,
    g: General,
) -> Result<FileioJob, Stop> {
    let file_num = int_opt(c, a, "file-num")?.unwrap_or(128);
    if file_num == 0 {
        fatal_hint(c, "file-num", "Invalid value for file-num: 0");
        return Err(Stop(exit::FAILED));
    }
    if file_num < 0 {
        // sysbench accepts it and wraps to 4294967295 (bug B1).
        c.fatal(format!(
            "Invalid value for file-num: {file_num} (must be between 1 and {})",
            i32::MAX
        ));
        return Err(Stop(exit::INVALID));
    }
    let total_size = a.value("file-total-size").map_or(2 << 30, sysbench_size);
    if total_size == 0 {
        fatal_hint(c, "file-total-size", "Invalid value for file-total-size: 0");
        return Err(Stop(exit::FAILED));
    }
    let mut test_mode = None;
    if runs {
        match a.value("file-test-mode") {
            None | Some("") => {
                c.fatal("Missing required argument: --file-test-mode");
                c.out(level::FATAL, "");
                for l in FILEIO_HELP.lines() {
                    c.out(level::FATAL, l);
                }
                c.out(level::FATAL, "");
                return Err(Stop(exit::FAILED));
            }
            Some(m) => match TestMode::parse(m) {
                Some(t) => test_mode = Some(t),
                None => {
                    // No hint here: sysbench's own test_fileio.t pins this output
                    // (stdout and stderr together) line for line.
                    c.fatal(format!("Invalid IO operations mode: {m}."));
                    return Err(Stop(exit::FAILED));
                }
            },
        }
    }
    let io_mode = match a.value("file-io-mode") {
        None | Some("") | Some("sync") => IoMode::Sync,
        Some("async") => IoMode::Async,
        Some("mmap") => IoMode::Mmap,
        Some(m) => {
            fatal_hint(c, "file-io-mode", format!("unknown I/O mode: {m}"));
            return Err(Stop(exit::FAILED));
        }
    };
    let merged = int_opt(c, a, "file-merged-requests")?.unwrap_or(0);
    if merged < 0 {
        fatal_hint(
            c,
            "file-merged-requests",
            format!("Invalid value for file-merged-requests: {merged}."),
        );
        return Err(Stop(exit::FAILED));
    }
    let block_size = a
        .value("file-block-size")
        .map_or(16384, |v| sysbench_size(v) as i32);
    if block_size <= 0 {
        fatal_hint(
            c,
            "file-block-size",
            format!("Invalid value for file-block-size: {block_size}."),
        );
        return Err(Stop(exit::FAILED));
    }
    let mut extra_flags = ExtraFlags::default();
    if let Some(list) = a.value("file-extra-flags") {
        for item in list.split(',').filter(|s| !s.is_empty()) {
            match item {
                "sync" => extra_flags.sync = true,
                "dsync" => extra_flags.dsync = true,
                "direct" => extra_flags.direct = true,
                bad => {
                    // sysbench names the first list element instead of the bad one (B8).
                    fatal_hint(
                        c,
                        "file-extra-flags",
                        format!("Invalid value for file-extra-flags: {bad}"),
                    );
                    return Err(Stop(exit::FAILED));
                }
            }
        }
    }
    let fsync_freq = int_opt(c, a, "file-fsync-freq")?.unwrap_or(100);
    if fsync_freq < 0 {
        fatal_hint(
            c,
            "file-fsync-freq",
            format!("Invalid value for file-fsync-freq: {fsync_freq}."),
        );
        return Err(Stop(exit::FAILED));
    }
    let fsync_mode = match a.value("file-fsync-mode") {
        None | Some("fsync") => FsyncMode::Fsync,
        Some("fdatasync") => FsyncMode::Fdatasync,
        Some("") => {
            // sysbench dereferences NULL here (bug B9).
            c.fatal("Invalid fsync mode: '' (accepted: fsync, fdatasync)");
            return Err(Stop(exit::INVALID));
        }
        Some(m) => {
            fatal_hint(c, "file-fsync-mode", format!("Invalid fsync mode: {m}."));
            return Err(Stop(exit::FAILED));
        }
    };
    let rw_ratio = match a.value("file-rw-ratio") {
        None => 1.5,
        Some(v) => {
            match sysbench_ratio(v) {
                Some(r) if r < 0.0 => {
                    fatal_hint(
                        c,
                        "file-rw-ratio",
                        format!("Invalid value for --file-rw-ratio: {r:.6}."),
                    );
                    return Err(Stop(exit::FAILED));
                }
                Some(r) => r,
                None => {
                    // sysbench silently reads garbage as 0 (write-only), bug B10.
                    c.fatal(format!("Invalid value for --file-rw-ratio: '{v}' (a number >= 0 or inf is expected)"));
                    return Err(Stop(exit::INVALID));
                }
            }
        }
    };
    let mut async_backlog = 128;
    if runs && io_mode == IoMode::Async {
        let b = int_opt(c, a, "file-async-backlog")?.unwrap_or(128);
        if b == 0 {
            fatal_hint(
                c,
                "file-async-backlog",
                "Invalid value of file-async-backlog: 0",
            );
            return Err(Stop(exit::FAILED));
        }
        if !(1..=32768).contains(&b) {
            // sysbench wraps negatives and fails in io_queue_init with a stale errno (B7).
            c.fatal(format!(
                "Invalid value of file-async-backlog: {b} (must be between 1 and 32768)"
            ));
            return Err(Stop(exit::INVALID));
        }
        async_backlog = b as u32;
    }
    let fsync_all = bool_opt(a, "file-fsync-all", false);
    let fsync_end = bool_opt(a, "file-fsync-end", true) && !fsync_all;
    let data = match a.value("file-data") {
        None | Some("zeros") => DataPattern::Zeros,
        Some("random") => DataPattern::Random,
        Some(v) => {
            c.fatal(format!(
                "Invalid value for --file-data: '{v}' (accepted: zeros, random)"
            ));
            return Err(Stop(exit::INVALID));
        }
    };
    let dir = match a.value("file-dir") {
        None | Some("") => PathBuf::from("."),
        Some(d) => PathBuf::from(d),
    };
    let json = match a.value("json") {
        None => None,
        Some("") => {
            c.fatal("Invalid value for --json: a file name is expected (--json=FILE)");
            return Err(Stop(exit::INVALID));
        }
        Some(p) => Some(PathBuf::from(p)),
    };
    let plot = match a.value("plot") {
        None => None,
        Some("") => {
            c.fatal("Invalid value for --plot: a directory is expected (--plot=DIR)");
            return Err(Stop(exit::INVALID));
        }
        Some(p) => Some(PathBuf::from(p)),
    };
    Ok(FileioJob {
        commands: vec![],
        file_num: file_num as u32,
        block_size: block_size as u64,
        total_size,
        test_mode,
        io_mode,
        async_backlog,
        extra_flags,
        fsync_freq: if fsync_all { 0 } else { fsync_freq as u32 },
        fsync_all,
        fsync_end,
        fsync_mode,
        merged_requests: merged as u32,
        rw_ratio,
        threads: g.threads,
        time_limit: g.time,
        event_limit: g.events,
        rate: g.rate,
        report_interval: g.report_interval,
        report_checkpoints: g.checkpoints,
        percentile: g.percentile,
        histogram: g.histogram,
        rand_seed: g.seed,
        validate: g.validate,
        forced_shutdown: g.forced,
        debug: g.debug,
        verbosity: g.verbosity,
        dir,
        json,
        samples: plot.is_some(),
        reap_max: 0,
        plot,
        data,
        notes: bool_opt(a, "notes", true),
        argv: vec![],
    })
}
