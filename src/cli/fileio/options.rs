//! Option readers of `iomark fileio`: the general options and the fileio options, each in
//! sysbench's own validation order, with its messages and codes. What each value may be
//! (ranges, words) is the option table's (`table.rs`): every check here asks it.

use super::table::{accepted, bounds, is_word, ratio_within, within, Outside};
use super::{bool_opt, int_opt, level, Ctx, Stop, FILEIO_HELP};
use crate::cli::fileio::args::Argv;
use crate::job::sysbench::*;
use crate::job::units::{sysbench_int, sysbench_ratio, sysbench_size};
use crate::util::error::exit;
use std::path::PathBuf;

/// After a message sysbench defines (kept verbatim on its stream), one stderr line
/// naming the option and what it accepts: `iomark: --file-io-mode accepts sync, async, mmap`.
pub(super) fn hint(c: &mut Ctx, name: &str) {
    c.note(format!("iomark: --{name} accepts {}", accepted(name)));
}

/// sysbench's `FATAL: <text>` (stdout, verbatim) followed by the [`hint`] for `name`.
fn fatal_hint(c: &mut Ctx, name: &str, text: impl Into<String>) {
    c.fatal(text);
    hint(c, name);
}

/// General options in sysbench's initialisation order.
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

/// A refused size that sysbench would print as another number than the one typed
/// (`2G`: -2147483648 after its 32-bit cast; `12Q`, `-5`, `4G`: 0): under `iomark
/// fileio` one line naming the option, the value as typed, what it means and what is
/// accepted, exit 2 (bug B18). The `sysbench` persona keeps sysbench's own line and
/// code (scripts read them). A value typed as sysbench prints it (`0`) is left to the
/// caller (`--file-block-size=0` gets the same style of line there). `read`:
/// the number sysbench prints, `None` when it prints none (a size beyond a file offset).
fn misread_size(
    c: &mut Ctx,
    name: &str,
    read: Option<i128>,
    given: Option<&str>,
) -> Result<(), Stop> {
    let Some(given) = given.filter(|g| read.is_none_or(|r| *g != r.to_string())) else {
        return Ok(());
    };
    if super::as_sysbench() {
        return Ok(());
    }
    let what = match crate::job::units::size_as_typed(given) {
        Some(b) => format!("{given} is {b} bytes"),
        None => format!("{given:?} is not a size"),
    };
    c.fatal(format!(
        "Invalid value for {name}: {what}; --{name} accepts {}",
        accepted(name)
    ));
    Err(Stop(exit::INVALID))
}

/// A number below the table's smallest value for `opt`: iomark's line, exit 2.
fn negative(c: &mut Ctx, opt: &str, v: i64) -> Stop {
    c.fatal(format!(
        "Invalid value for --{opt}: {v} (must be >= {})",
        bounds(opt).0
    ));
    Stop(exit::INVALID)
}

/// Whether whole number `v` is in option `name`'s range.
fn ok(name: &str, v: i64) -> bool {
    within(name, i128::from(v)).is_ok()
}

/// `runs`: `run` is the command. The `sysbench` persona takes a negative `--time`,
/// `--events`, `--rate` or `--report-interval` for the other commands, which read none
/// of them (sysbench 1.0.20 does); for `run` it refuses them (sysbench wraps them into
/// an endless run: bug B13 in docs/compat/sysbench.md).
pub(super) fn general_options(c: &mut Ctx, a: &Argv, runs: bool) -> Result<General, Stop> {
    let lenient = super::as_sysbench() && !runs;
    let (threads, events, time, rate) = limits(c, a)?;
    check_limits(c, threads, (events, time), lenient)?;
    let (events, time) = (events.max(0), time.max(0));
    let forced = forced_shutdown(c, a, time)?;
    let forced = if time > 0 { forced } else { None };
    let debug = bool_opt(a, "debug", false);
    let validate = bool_opt(a, "validate", false);
    check_rand(c, a)?;
    let seed = int_opt(c, a, "rand-seed")?.unwrap_or(0);
    if !ok("rate", rate) && !lenient {
        return Err(negative(c, "rate", rate));
    }
    let rate = rate.max(0);
    let (report_interval, checkpoints) = report_times(c, a, lenient)?;
    let (verbosity, percentile, histogram) = output_detail(c, a)?;
    Ok(General {
        threads: threads as u32,
        events: events as u64,
        time: time as u64,
        forced,
        rate: rate as u64,
        report_interval,
        checkpoints,
        percentile,
        histogram,
        seed: u64::from(seed as i32 as u32),
        validate,
        debug,
        verbosity: if debug { 5 } else { verbosity },
    })
}

/// `(threads, events, time, rate)`: each read with its deprecated alias, which wins
/// with a warning when set (`--num-threads`, `--max-requests`, `--max-time`,
/// `--tx-rate`).
fn limits(c: &mut Ctx, a: &Argv) -> Result<(i64, i64, i64, i64), Stop> {
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
    Ok((threads, events, time, rate))
}

/// The thread count's range, and events/time that are not negative (both 0: a warning).
fn check_limits(
    c: &mut Ctx,
    threads: i64,
    (events, time): (i64, i64),
    lenient: bool,
) -> Result<(), Stop> {
    match within("threads", i128::from(threads)) {
        Ok(()) => {}
        Err(Outside::Below) if threads == 0 => {
            c.fatal("Invalid value for --threads: 0.");
            c.out(level::FATAL, "");
            hint(c, "threads");
            return Err(Stop(exit::FAILED));
        }
        Err(Outside::Below) => {
            // sysbench: "Memory allocation failure" (bug B13).
            c.fatal(format!(
                "Invalid value for --threads: {threads} (must be between 1 and {})",
                i32::MAX
            ));
            return Err(Stop(exit::FAILED));
        }
        Err(Outside::Above) => {
            c.fatal(format!(
                "Invalid value for --threads: {threads} (iomark accepts at most {} threads)",
                bounds("threads").1
            ));
            return Err(Stop(exit::INVALID));
        }
    }
    if !ok("events", events) && !lenient {
        return Err(negative(c, "events", events));
    }
    if !ok("time", time) && !lenient {
        return Err(negative(c, "time", time));
    }
    if events == 0 && time == 0 {
        c.out(
            level::WARNING,
            "WARNING: Both event and time limits are disabled, running an endless test",
        );
    }
    Ok(())
}

/// `--forced-shutdown`: `off`, seconds after `--time`, `P%` of it, or empty (5 %).
fn forced_shutdown(c: &mut Ctx, a: &Argv, time: i64) -> Result<Option<u64>, Stop> {
    let Some(v) = a.value("forced-shutdown") else {
        return Ok(None);
    };
    let parsed = if v.eq_ignore_ascii_case("off") {
        Some(None)
    } else if v.is_empty() {
        Some(Some(time as u64 / 20))
    } else if let Some(p) = v.strip_suffix('%') {
        sysbench_int(p)
            .filter(|x| ok("forced-shutdown", i64::from(*x)))
            .map(|p| Some(time as u64 * p as u64 / 100))
    } else {
        sysbench_int(v)
            .filter(|x| ok("forced-shutdown", i64::from(*x)))
            .map(|s| Some(s as u64))
    };
    parsed.ok_or_else(|| {
        fatal_hint(
            c,
            "forced-shutdown",
            format!("Invalid value for --forced-shutdown: '{v}'"),
        );
        Stop(exit::FAILED)
    })
}

/// `--rand-type` is one of sysbench's distributions; the other `--rand-*` and thread
/// options are checked as numbers (they change nothing in fileio).
fn check_rand(c: &mut Ctx, a: &Argv) -> Result<(), Stop> {
    if let Some(t) = a.value("rand-type") {
        let newer = super::as_sysbench() && super::table::newer_than_1_0_20("rand-type", Some(t));
        if newer {
            // 1.0.20's line alone: the hint would list the word as accepted
            c.fatal(format!("Invalid random numbers distribution: {t}."));
            return Err(Stop(exit::FAILED));
        }
        if !is_word("rand-type", t) {
            fatal_hint(
                c,
                "rand-type",
                format!("Invalid random numbers distribution: {t}."),
            );
            return Err(Stop(exit::FAILED));
        }
    }
    // numbers sysbench 1.0.20 reads as any text (`abc` is 0 there): iomark's one line,
    // exit 2; the sysbench persona keeps 1.0.20's silence
    for n in ["rand-pareto-h", "rand-zipfian-exp"] {
        match a.value(n) {
            Some(v) if !super::as_sysbench() && !super::table::real_within(n, v) => {
                c.fatal(format!(
                    "Invalid value for --{n}: '{v}'; --{n} accepts {}",
                    accepted(n)
                ));
                return Err(Stop(exit::INVALID));
            }
            _ => {}
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
    Ok(())
}

/// `--report-interval` (seconds, ≥ 0) and `--report-checkpoints` (positive seconds,
/// sorted, each once).
fn report_times(c: &mut Ctx, a: &Argv, lenient: bool) -> Result<(u64, Vec<u64>), Stop> {
    let report_interval = int_opt(c, a, "report-interval")?.unwrap_or(0);
    if lenient {
        // the persona's `prepare`/`cleanup`: read nowhere (sysbench takes it)
    } else if !ok("report-interval", report_interval) {
        return Err(negative(c, "report-interval", report_interval));
    }
    let mut checkpoints = vec![];
    if let Some(list) = a.value("report-checkpoints") {
        for item in list.split(',').filter(|s| !s.is_empty()) {
            match sysbench_int(item) {
                Some(x) if ok("report-checkpoints", i64::from(x)) => checkpoints.push(x as u64),
                _ => {
                    c.fatal(format!("Invalid value for --report-checkpoints: '{item}' (positive whole seconds are expected)"));
                    return Err(Stop(exit::INVALID));
                }
            }
        }
        checkpoints.sort_unstable();
        checkpoints.dedup();
    }
    Ok((report_interval.max(0) as u64, checkpoints))
}

/// `(verbosity, percentile, histogram)`: verbosity 0–5, percentile 0–100, and a
/// histogram only with a percentile.
fn output_detail(c: &mut Ctx, a: &Argv) -> Result<(u8, u32, bool), Stop> {
    let verbosity = int_opt(c, a, "verbosity")?.map_or(3, |v| i64::from(verbosity_read(v as i32)));
    if !ok("verbosity", verbosity) {
        c.out(
            level::FATAL,
            format!("Invalid value for verbosity: {verbosity}"),
        );
        hint(c, "verbosity");
        return Err(Stop(exit::FAILED));
    }
    let percentile = int_opt(c, a, "percentile")?.unwrap_or(95);
    if !ok("percentile", percentile) {
        fatal_hint(
            c,
            "percentile",
            format!("Invalid value for --percentile: {percentile}"),
        );
        return Err(Stop(exit::FAILED));
    }
    let histogram = bool_opt(a, "histogram", false);
    if histogram && percentile == 0 {
        c.fatal("--histogram cannot be used with --percentile=0");
        c.note(format!(
            "iomark: --histogram accepts on only with --percentile from 1 to {}",
            bounds("percentile").1
        ));
        return Err(Stop(exit::FAILED));
    }
    Ok((verbosity as u8, percentile as u32, histogram))
}

/// `--verbosity`'s number as read: under the `sysbench` persona as sysbench 1.0.20 keeps
/// it, in one byte (`-1` is 255, `256` is 0); `iomark fileio` keeps it whole.
pub(super) fn verbosity_read(v: i32) -> i32 {
    if super::as_sysbench() {
        i32::from(v as u8)
    } else {
        v
    }
}

/// fileio options in sysbench's validation order.
pub(super) fn fileio_options(
    c: &mut Ctx,
    a: &Argv,
    runs: bool,
    g: General,
) -> Result<FileioJob, Stop> {
    let (file_num, total_size) = file_set(c, a)?;
    let test_mode = if runs { Some(test_mode(c, a)?) } else { None };
    let io_mode = io_mode(c, a)?;
    let (merged, block_size) = requests(c, a)?;
    let extra_flags = extra_flags(c, a)?;
    let (fsync_freq, fsync_mode) = fsync(c, a)?;
    let rw_ratio = rw_ratio(c, a)?;
    let async_backlog = if runs && io_mode == IoMode::Async {
        async_backlog(c, a)?
    } else {
        128
    };
    let fsync_all = bool_opt(a, "file-fsync-all", false);
    let fsync_end = bool_opt(a, "file-fsync-end", true) && !fsync_all;
    let (data, dir, json, plot) = outputs(c, a)?;
    Ok(FileioJob {
        file_num,
        block_size,
        total_size,
        io_mode,
        async_backlog,
        extra_flags,
        fsync_freq: if fsync_all { 0 } else { fsync_freq },
        fsync_all,
        fsync_end,
        fsync_mode,
        merged_requests: merged,
        rw_ratio,
        time_limit: g.time,
        event_limit: g.events,
        rate: g.rate,
        validate: g.validate,
        verbosity: g.verbosity,
        dir,
        reap_max: 0,
        data,
        settings: Settings {
            commands: vec![],
            test_mode,
            threads: g.threads,
            report_interval: g.report_interval,
            report_checkpoints: g.checkpoints,
            percentile: g.percentile,
            histogram: g.histogram,
            rand_seed: g.seed,
            forced_shutdown: g.forced,
            debug: g.debug,
            json,
            plot,
            samples: true,
            notes: bool_opt(a, "notes", true),
            sysbench_only: false,
            argv: vec![],
            history: bool_opt(a, "history", true) && !bool_opt(a, "no-history", false),
            progress: bool_opt(a, "progress", false),
        },
    })
}

/// `(file_num, total_size)`: at least one file, at least one byte.
fn file_set(c: &mut Ctx, a: &Argv) -> Result<(u32, u64), Stop> {
    let file_num = int_opt(c, a, "file-num")?.unwrap_or(128);
    match within("file-num", i128::from(file_num)) {
        Ok(()) => {}
        Err(_) if file_num == 0 => {
            fatal_hint(c, "file-num", "Invalid value for file-num: 0");
            return Err(Stop(exit::FAILED));
        }
        Err(_) => {
            // sysbench accepts it and wraps to 4294967295 (bug B1).
            let (lo, hi) = bounds("file-num");
            c.fatal(format!(
                "Invalid value for file-num: {file_num} (must be between {lo} and {hi})"
            ));
            return Err(Stop(exit::INVALID));
        }
    }
    let total_size = a.value("file-total-size").map_or(2 << 30, sysbench_size);
    let size_check = within("file-total-size", i128::from(total_size));
    if size_check == Err(Outside::Below) {
        misread_size(c, "file-total-size", Some(0), a.value("file-total-size"))?;
        if !super::as_sysbench() {
            // `0`, typed as sysbench prints it: one line as for `--file-block-size=0`
            c.fatal(format!(
                "Invalid value for file-total-size: 0; --file-total-size accepts {}",
                accepted("file-total-size")
            ));
            return Err(Stop(exit::INVALID));
        }
        fatal_hint(c, "file-total-size", "Invalid value for file-total-size: 0");
        return Err(Stop(exit::FAILED));
    }
    if size_check == Err(Outside::Above) {
        // sysbench wraps it into a file size it cannot write (and fails with ENOSPC);
        // a file offset ends at 2^63 − 1
        let given = a.value("file-total-size").unwrap_or_default();
        misread_size(c, "file-total-size", None, Some(given))?;
        fatal_hint(
            c,
            "file-total-size",
            format!("Invalid value for file-total-size: {given} (at most 8 EiB, the largest file offset)"),
        );
        return Err(Stop(exit::INVALID));
    }
    Ok((file_num as u32, total_size))
}

/// `--file-test-mode`, required by `run`.
fn test_mode(c: &mut Ctx, a: &Argv) -> Result<TestMode, Stop> {
    match a.value("file-test-mode") {
        None | Some("") => {
            c.fatal("Missing required argument: --file-test-mode");
            c.out(level::FATAL, "");
            for l in FILEIO_HELP.lines() {
                c.out(level::FATAL, l);
            }
            c.out(level::FATAL, "");
            Err(Stop(exit::FAILED))
        }
        Some(m) => is_word("file-test-mode", m)
            .then(|| TestMode::parse(m))
            .flatten()
            .ok_or_else(|| {
                // sysbench's own test_fileio.t pins this output (stdout and stderr
                // together): its shim (tests/cram/shim/sysbench) drops iomark's hint lines.
                fatal_hint(
                    c,
                    "file-test-mode",
                    format!("Invalid IO operations mode: {m}."),
                );
                Stop(exit::FAILED)
            }),
    }
}

fn io_mode(c: &mut Ctx, a: &Argv) -> Result<IoMode, Stop> {
    let m = a.value("file-io-mode").unwrap_or("sync");
    match (m.is_empty() || is_word("file-io-mode", m), m) {
        (true, "" | "sync") => Ok(IoMode::Sync),
        (true, "async") => Ok(IoMode::Async),
        (true, "mmap") => Ok(IoMode::Mmap),
        _ => {
            fatal_hint(c, "file-io-mode", format!("unknown I/O mode: {m}"));
            Err(Stop(exit::FAILED))
        }
    }
}

/// `(merged_requests, block_size)`: merging ≥ 0, a block of at least one byte.
fn requests(c: &mut Ctx, a: &Argv) -> Result<(u32, u64), Stop> {
    let merged = int_opt(c, a, "file-merged-requests")?.unwrap_or(0);
    if !ok("file-merged-requests", merged) {
        fatal_hint(
            c,
            "file-merged-requests",
            format!("Invalid value for file-merged-requests: {merged}."),
        );
        return Err(Stop(exit::FAILED));
    }
    let typed = a.value("file-block-size");
    let block_size = typed.map_or(16384, |v| sysbench_size(v) as i32);
    // sysbench's 32-bit cast takes `5G` as a block of 1 GiB without a word
    let wrapped = typed
        .and_then(crate::job::units::size_as_typed)
        .is_some_and(|b| i128::try_from(b).ok() != Some(i128::from(block_size)));
    if wrapped || !ok("file-block-size", i64::from(block_size)) {
        misread_size(c, "file-block-size", Some(i128::from(block_size)), typed)?;
    }
    if !ok("file-block-size", i64::from(block_size)) && !super::as_sysbench() {
        // `0`, typed as sysbench prints it: the same one line as `2G`
        c.fatal(format!(
            "Invalid value for file-block-size: {}; --file-block-size accepts {}",
            typed.unwrap_or_default(),
            accepted("file-block-size")
        ));
        return Err(Stop(exit::INVALID));
    }
    if !ok("file-block-size", i64::from(block_size)) {
        fatal_hint(
            c,
            "file-block-size",
            format!("Invalid value for file-block-size: {block_size}."),
        );
        return Err(Stop(exit::FAILED));
    }
    Ok((merged as u32, block_size as u64))
}

fn extra_flags(c: &mut Ctx, a: &Argv) -> Result<ExtraFlags, Stop> {
    let mut extra_flags = ExtraFlags::default();
    let Some(list) = a.value("file-extra-flags") else {
        return Ok(extra_flags);
    };
    for item in list.split(',').filter(|s| !s.is_empty()) {
        match (is_word("file-extra-flags", item), item) {
            (true, "sync") => extra_flags.sync = true,
            (true, "dsync") => extra_flags.dsync = true,
            (true, "direct") => extra_flags.direct = true,
            (_, bad) => {
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
    Ok(extra_flags)
}

/// `(fsync_freq, fsync_mode)`.
fn fsync(c: &mut Ctx, a: &Argv) -> Result<(u32, FsyncMode), Stop> {
    let fsync_freq = int_opt(c, a, "file-fsync-freq")?.unwrap_or(100);
    if !ok("file-fsync-freq", fsync_freq) {
        fatal_hint(
            c,
            "file-fsync-freq",
            format!("Invalid value for file-fsync-freq: {fsync_freq}."),
        );
        return Err(Stop(exit::FAILED));
    }
    let fsync_mode = match a
        .value("file-fsync-mode")
        .map(|m| (is_word("file-fsync-mode", m), m))
    {
        None | Some((true, "fsync")) => FsyncMode::Fsync,
        Some((true, "fdatasync")) => FsyncMode::Fdatasync,
        Some((_, "")) => {
            // sysbench dereferences NULL here (bug B9).
            c.fatal(format!(
                "Invalid fsync mode: '' (accepted: {})",
                accepted("file-fsync-mode")
            ));
            return Err(Stop(exit::INVALID));
        }
        Some((_, m)) => {
            fatal_hint(c, "file-fsync-mode", format!("Invalid fsync mode: {m}."));
            return Err(Stop(exit::FAILED));
        }
    };
    Ok((fsync_freq as u32, fsync_mode))
}

fn rw_ratio(c: &mut Ctx, a: &Argv) -> Result<f64, Stop> {
    let Some(v) = a.value("file-rw-ratio") else {
        return Ok(1.5);
    };
    // the `sysbench` persona reads it as sysbench 1.0.20 does, with C's strtod: text
    // after the number is ignored, text with no number is 0 (write-only), `nan` is
    // taken and reads nothing (bug B10, kept under its name)
    let read = match super::as_sysbench() {
        true => Some(crate::job::units::c_strtod(v)),
        false => sysbench_ratio(v),
    };
    // (sysbench refuses a ratio below 0 only: NaN passes its check)
    let refused = |r: f64| match super::as_sysbench() {
        true => r < 0.0,
        false => !ratio_within("file-rw-ratio", r),
    };
    match read {
        Some(r) if refused(r) => {
            fatal_hint(
                c,
                "file-rw-ratio",
                format!("Invalid value for --file-rw-ratio: {r:.6}."),
            );
            Err(Stop(exit::FAILED))
        }
        Some(r) => Ok(r),
        None => {
            // sysbench silently reads garbage as 0 (write-only), bug B10.
            c.fatal(format!(
                "Invalid value for --file-rw-ratio: '{v}' (a number >= 0 or inf is expected)"
            ));
            Err(Stop(exit::INVALID))
        }
    }
}

/// `--file-async-backlog` of an async `run`, in the table's range.
fn async_backlog(c: &mut Ctx, a: &Argv) -> Result<u32, Stop> {
    let b = int_opt(c, a, "file-async-backlog")?.unwrap_or(128);
    match within("file-async-backlog", i128::from(b)) {
        Ok(()) => Ok(b as u32),
        Err(_) if b == 0 => {
            fatal_hint(
                c,
                "file-async-backlog",
                "Invalid value of file-async-backlog: 0",
            );
            Err(Stop(exit::FAILED))
        }
        Err(_) => {
            // sysbench wraps negatives and fails in io_queue_init with a stale errno (B7).
            let (lo, hi) = bounds("file-async-backlog");
            c.fatal(format!(
                "Invalid value of file-async-backlog: {b} (must be between {lo} and {hi})"
            ));
            Err(Stop(exit::INVALID))
        }
    }
}

/// iomark's own fileio options: `(--file-data, --file-dir, --json, --plot)`.
#[allow(clippy::type_complexity)]
fn outputs(
    c: &mut Ctx,
    a: &Argv,
) -> Result<(DataPattern, PathBuf, Option<PathBuf>, Option<PathBuf>), Stop> {
    let data = match a.value("file-data").map(|v| (is_word("file-data", v), v)) {
        None | Some((true, "zeros")) => DataPattern::Zeros,
        Some((true, "random")) => DataPattern::Random,
        Some((_, v)) => {
            c.fatal(format!(
                "Invalid value for --file-data: '{v}' (accepted: {})",
                accepted("file-data")
            ));
            return Err(Stop(exit::INVALID));
        }
    };
    let dir = match a.value("file-dir") {
        None | Some("") => PathBuf::from("."),
        Some(d) => PathBuf::from(d),
    };
    let json = named_path(c, a, "json", "a file name is expected (--json=FILE)")?;
    let plot = named_path(c, a, "plot", "a directory is expected (--plot=DIR)")?;
    Ok((data, dir, json, plot))
}

/// An optional path option; empty is refused with `what` it expects.
fn named_path(c: &mut Ctx, a: &Argv, name: &str, what: &str) -> Result<Option<PathBuf>, Stop> {
    match a.value(name) {
        None => Ok(None),
        Some("") => {
            c.fatal(format!("Invalid value for --{name}: {what}"));
            Err(Stop(exit::INVALID))
        }
        Some(p) => Ok(Some(PathBuf::from(p))),
    }
}
