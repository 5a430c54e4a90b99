//! `iomark fileio` front end: sysbench 1.0.20 argv → [`FileioJob`], with sysbench's
//! messages, their order relative to the banner, their stream and exit codes
//! (spec/sysbench-fileio.md §1.3, §2, §3, §13.1). Pure: it returns the messages to print
//! instead of printing them, so every rule is unit-testable.
//!
//! Where sysbench 1.0.20 has a real bug (spec §14.2) the value is rejected here with an
//! iomark message and exit code 2 (sysbench's own messages keep exit code 1).

use super::fileio_args::{Argv, BOOL_OPTS, KNOWN_OPTS};
use crate::exit;
use crate::job::fileio::*;
use crate::job::values::{parse_bool, parse_int, parse_ratio, parse_size};
use std::path::PathBuf;

/// Output stream of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// standard output (sysbench's logger, reports)
    Out,
    /// standard error (option-syntax errors)
    Err,
}

/// sysbench message priorities (`--verbosity` filters everything above the setting).
pub mod level {
    /// `FATAL:` messages.
    pub const FATAL: u8 = 0;
    /// `WARNING:` messages.
    pub const WARNING: u8 = 2;
    /// The banner, headers and reports.
    pub const NOTICE: u8 = 3;
    /// `Done.`, `Time limit exceeded, exiting...`.
    pub const INFO: u8 = 4;
    /// `DEBUG:` lines.
    pub const DEBUG: u8 = 5;
}

/// One message line (without its trailing newline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Msg {
    /// Where it goes.
    pub stream: Stream,
    /// Its sysbench priority; stderr messages are always printed.
    pub level: u8,
    /// The text.
    pub text: String,
}

/// What the front end decided.
#[derive(Debug)]
pub enum Outcome {
    /// Execute this job.
    Job(Box<FileioJob>),
    /// Print the messages and exit with this code.
    Exit(i32),
}

/// The front end's answer: messages before the banner, whether to print the banner,
/// messages after it, and the outcome.
#[derive(Debug)]
pub struct Parsed {
    /// Printed before the banner.
    pub pre: Vec<Msg>,
    /// Print the banner (`iomark <version> (sysbench 1.0.20 fileio compatible)`).
    pub banner: bool,
    /// Printed after the banner.
    pub post: Vec<Msg>,
    /// Verbosity in force for printing these messages.
    pub verbosity: u8,
    /// What to do next.
    pub outcome: Outcome,
}

/// The banner line (sysbench prints `sysbench 1.0.20 (using system LuaJIT ...)`).
pub fn banner() -> String {
    format!(
        "iomark {} (sysbench 1.0.20 fileio compatible)",
        env!("CARGO_PKG_VERSION")
    )
}

/// The `fileio options:` block of `sysbench fileio help` (transcript T1), exact.
pub const FILEIO_HELP: &str = "fileio options:
  --file-num=N                  number of files to create [128]
  --file-block-size=N           block size to use in all IO operations [16384]
  --file-total-size=SIZE        total size of files to create [2G]
  --file-test-mode=STRING       test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}
  --file-io-mode=STRING         file operations mode {sync,async,mmap} [sync]
  --file-async-backlog=N        number of asynchronous operatons to queue per thread [128]
  --file-extra-flags=[LIST,...] list of additional flags to use to open files {sync,dsync,direct} []
  --file-fsync-freq=N           do fsync() after this number of requests (0 - don't use fsync()) [100]
  --file-fsync-all[=on|off]     do fsync() after each write operation [off]
  --file-fsync-end[=on|off]     do fsync() at the end of test [on]
  --file-fsync-mode=STRING      which method to use for synchronization {fsync, fdatasync} [fsync]
  --file-merged-requests=N      merge at most this number of IO requests if possible (0 - don't merge) [0]
  --file-rw-ratio=N             reads/writes ratio for combined test [1.5]
";

/// `iomark fileio --help`: the sysbench options plus iomark's extensions.
pub const GLOBAL_HELP: &str = "Usage: iomark fileio [options...] <prepare|run|cleanup|help>...

A drop-in for `sysbench fileio` (sysbench 1.0.20): same options, same semantics, same
report. Options take the form --name=value; '-' and '_' are interchangeable in names.

General options:
  --threads=N                   number of threads to use [1]
  --events=N                    limit for total number of events [0]
  --time=N                      limit for total execution time in seconds [10]
  --forced-shutdown=STRING      seconds after --time to force shutdown, or 'P%' of --time, or 'off' [off]
  --rate=N                      average event rate (0 for unlimited) [0]
  --report-interval=N           periodically report intermediate statistics every N seconds [0]
  --report-checkpoints=[LIST,...] dump full statistics and reset all counters at these seconds []
  --debug[=on|off]              print more debugging info [off]
  --validate[=on|off]           write checksummed blocks and check them on read [off]
  --histogram[=on|off]          print latency histogram in report [off]
  --percentile=N                percentile to calculate in latency statistics (1-100), 0 to disable [95]
  --rand-seed=N                 seed for random number generator; 0 = current time [0]
  --verbosity=N                 verbosity level {5 - debug, 0 - only critical messages} [3]

iomark extensions (none of them changes the compatible report):
  --file-dir=PATH               directory holding the file set [current directory]
  --json=FILE                   write the run's RunResult as JSON to FILE
  --plot=DIR                    write SVG charts of the run (throughput over time, latency percentiles) to DIR
  --file-data=STRING            content of written blocks {zeros, random} [zeros]
  --notes[=on|off]              print page-cache notes after the report [on]

Several commands may be given in one call, e.g. `prepare run cleanup`.
Exit codes: 0 ok, 1 sysbench error or failed run, 2 invalid input sysbench would
wrongly accept (or --forced-shutdown expiry), 3 environment cannot do it,
130 interrupted by SIGINT, 143 terminated by SIGTERM.
";

struct Ctx {
    pre: Vec<Msg>,
    post: Vec<Msg>,
    banner: bool,
}

impl Ctx {
    fn msg(&mut self, stream: Stream, level: u8, text: impl Into<String>) {
        let m = Msg {
            stream,
            level,
            text: text.into(),
        };
        if self.banner {
            self.post.push(m)
        } else {
            self.pre.push(m)
        }
    }
    fn out(&mut self, level: u8, text: impl Into<String>) {
        self.msg(Stream::Out, level, text)
    }
    fn err(&mut self, text: impl Into<String>) {
        self.msg(Stream::Err, level::FATAL, text)
    }
    fn fatal(&mut self, text: impl Into<String>) {
        self.out(level::FATAL, format!("FATAL: {}", text.into()))
    }
}

/// Most worker threads iomark starts (each keeps about 1 MiB of latency histograms).
pub const MAX_THREADS: i64 = 1024;

/// Failure with an exit code (messages already recorded).
struct Stop(i32);

/// Read an integer option the sysbench way: syntax errors go to stderr with the
/// underscore name. `None` when absent (callers use the default).
fn int_opt(c: &mut Ctx, a: &Argv, name: &str) -> Result<Option<i64>, Stop> {
    match a.value(name) {
        None => Ok(None),
        Some(v) => match parse_int(v) {
            Some(x) => Ok(Some(i64::from(x))),
            None => {
                c.err(format!(
                    "Invalid value for the '{}' option: '{}'",
                    name.replace('-', "_"),
                    v
                ));
                Err(Stop(exit::FAILED))
            }
        },
    }
}

fn bool_opt(a: &Argv, name: &str, default: bool) -> bool {
    match a.last(name) {
        None => default,
        Some(o) => parse_bool(o.value.as_deref()).unwrap_or(default),
    }
}

/// Parse `iomark fileio` arguments (argv without program name and the `fileio` word).
pub fn parse(args: &[String]) -> Parsed {
    let mut c = Ctx {
        pre: vec![],
        post: vec![],
        banner: false,
    };
    let mut a = Argv::split(args);
    if a.positionals.first().map(String::as_str) == Some("fileio") {
        a.positionals.remove(0);
    }
    let verbosity_guess = a
        .value("verbosity")
        .and_then(parse_int)
        .filter(|v| (0..=5).contains(v))
        .map(|v| v as u8)
        .unwrap_or(3);
    let verbosity = if bool_opt(&a, "debug", false) {
        5
    } else {
        verbosity_guess
    };
    let mut job: Option<FileioJob> = None;
    let code = match parse_inner(&mut c, &a, args, &mut job) {
        Ok(()) => None,
        Err(Stop(code)) => Some(code),
    };
    let outcome = match (code, job) {
        (None, Some(j)) => Outcome::Job(Box::new(j)),
        (Some(code), _) => Outcome::Exit(code),
        (None, None) => Outcome::Exit(exit::OK),
    };
    Parsed {
        pre: c.pre,
        banner: c.banner,
        post: c.post,
        verbosity,
        outcome,
    }
}

fn parse_inner(
    c: &mut Ctx,
    a: &Argv,
    args: &[String],
    job: &mut Option<FileioJob>,
) -> Result<(), Stop> {
    // Step 1: positional words. sysbench takes one command; iomark also accepts a
    // sequence of prepare/run/cleanup. Anything else after the first word is refused
    // before the banner, as sysbench does.
    let cmds: Vec<Option<Command>> = a.positionals.iter().map(|p| Command::parse(p)).collect();
    if a.positionals.len() > 1 {
        let bad = if cmds[0].is_none() || cmds[0] == Some(Command::Help) {
            Some(1)
        } else {
            cmds.iter()
                .position(|c| c.is_none() || *c == Some(Command::Help))
        };
        if let Some(i) = bad {
            c.err(format!(
                "Unrecognized command line argument: {}",
                a.positionals[i]
            ));
            return Err(Stop(exit::FAILED));
        }
    }
    // Step 2: --help / --version.
    if a.has("help") && bool_opt(a, "help", false) {
        for l in GLOBAL_HELP.lines() {
            c.out(level::FATAL, l);
        }
        return Err(Stop(exit::OK));
    }
    if a.has("version") && bool_opt(a, "version", false) {
        c.out(level::FATAL, banner());
        return Err(Stop(exit::OK));
    }
    if a.has("test") {
        c.err("WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.");
    }
    // Step 3: general options, before the banner.
    let general = general_options(c, a)?;
    // Step 4: banner.
    c.banner = true;
    c.out(level::NOTICE, banner());
    c.out(level::NOTICE, "");
    // Step 5: command, then option syntax.
    let Some(first) = a.positionals.first() else {
        c.err("The 'fileio' test requires a command argument. See 'iomark fileio help'");
        return Err(Stop(exit::FAILED));
    };
    if cmds[0].is_none() {
        c.err(format!("Unknown command: {first}"));
        return Err(Stop(exit::FAILED));
    }
    for o in &a.opts {
        let known = KNOWN_OPTS.contains(&o.name.as_str());
        let bad_bool =
            BOOL_OPTS.contains(&o.name.as_str()) && parse_bool(o.value.as_deref()).is_none();
        if !known || bad_bool {
            c.err(format!("invalid option: {}", o.original));
            return Err(Stop(exit::FAILED));
        }
    }
    if a.has("config-file") {
        c.err("iomark: --config-file is not supported; pass options on the command line");
        return Err(Stop(exit::INVALID));
    }
    let commands: Vec<Command> = cmds.into_iter().flatten().collect();
    if commands == [Command::Help] {
        for l in FILEIO_HELP.lines() {
            c.out(level::NOTICE, l);
        }
        c.out(level::NOTICE, "");
        return Err(Stop(exit::OK));
    }
    let runs = commands.contains(&Command::Run);
    let mut j = fileio_options(c, a, runs, general)?;
    j.commands = commands;
    j.argv = args.to_vec();
    if j.commands
        .iter()
        .any(|c| matches!(c, Command::Prepare | Command::Run))
    {
        if let Err(e) = j.geometry() {
            c.fatal(e.to_string());
            return Err(Stop(exit::INVALID));
        }
    }
    *job = Some(j);
    Ok(())
}

/// General options in sysbench's initialisation order (spec §1.3 step 3).
struct General {
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

fn general_options(c: &mut Ctx, a: &Argv) -> Result<General, Stop> {
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
                parse_int(p)
                    .filter(|x| *x >= 0)
                    .map(|p| Some(time as u64 * p as u64 / 100))
            } else {
                parse_int(v).filter(|x| *x >= 0).map(|s| Some(s as u64))
            };
            match parsed {
                Some(f) => f,
                None => {
                    c.fatal(format!("Invalid value for --forced-shutdown: '{v}'"));
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
            c.fatal(format!("Invalid random numbers distribution: {t}."));
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
            match parse_int(item) {
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
        return Err(Stop(exit::FAILED));
    }
    let percentile = int_opt(c, a, "percentile")?.unwrap_or(95);
    if !(0..=100).contains(&percentile) {
        c.fatal(format!("Invalid value for --percentile: {percentile}"));
        return Err(Stop(exit::FAILED));
    }
    let histogram = bool_opt(a, "histogram", false);
    if histogram && percentile == 0 {
        c.fatal("--histogram cannot be used with --percentile=0");
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
fn fileio_options(c: &mut Ctx, a: &Argv, runs: bool, g: General) -> Result<FileioJob, Stop> {
    let file_num = int_opt(c, a, "file-num")?.unwrap_or(128);
    if file_num == 0 {
        c.fatal("Invalid value for file-num: 0");
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
    let total_size = a.value("file-total-size").map_or(2 << 30, parse_size);
    if total_size == 0 {
        c.fatal("Invalid value for file-total-size: 0");
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
            c.fatal(format!("unknown I/O mode: {m}"));
            return Err(Stop(exit::FAILED));
        }
    };
    let merged = int_opt(c, a, "file-merged-requests")?.unwrap_or(0);
    if merged < 0 {
        c.fatal(format!("Invalid value for file-merged-requests: {merged}."));
        return Err(Stop(exit::FAILED));
    }
    let block_size = a
        .value("file-block-size")
        .map_or(16384, |v| parse_size(v) as i32);
    if block_size <= 0 {
        c.fatal(format!("Invalid value for file-block-size: {block_size}."));
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
                    c.fatal(format!("Invalid value for file-extra-flags: {bad}"));
                    return Err(Stop(exit::FAILED));
                }
            }
        }
    }
    let fsync_freq = int_opt(c, a, "file-fsync-freq")?.unwrap_or(100);
    if fsync_freq < 0 {
        c.fatal(format!("Invalid value for file-fsync-freq: {fsync_freq}."));
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
            c.fatal(format!("Invalid fsync mode: {m}."));
            return Err(Stop(exit::FAILED));
        }
    };
    let rw_ratio = match a.value("file-rw-ratio") {
        None => 1.5,
        Some(v) => {
            match parse_ratio(v) {
                Some(r) if r < 0.0 => {
                    c.fatal(format!("Invalid value for --file-rw-ratio: {r:.6}."));
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
            c.fatal("Invalid value of file-async-backlog: 0");
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
        plot,
        data,
        notes: bool_opt(a, "notes", true),
        argv: vec![],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &str) -> Parsed {
        let args: Vec<String> = v.split_whitespace().map(String::from).collect();
        parse(&args)
    }
    fn code(p: &Parsed) -> i32 {
        match p.outcome {
            Outcome::Exit(c) => c,
            Outcome::Job(_) => -1,
        }
    }
    fn texts(m: &[Msg]) -> Vec<&str> {
        m.iter().map(|m| m.text.as_str()).collect()
    }

    #[test]
    fn defaults_are_sysbench_defaults() {
        let r = p("--file-test-mode=rndrw run");
        let Outcome::Job(j) = r.outcome else {
            panic!("no job")
        };
        assert_eq!(
            (j.file_num, j.block_size, j.total_size),
            (128, 16384, 2 << 30)
        );
        assert_eq!((j.fsync_freq, j.fsync_end, j.rw_ratio), (100, true, 1.5));
        assert_eq!(
            (j.threads, j.time_limit, j.event_limit, j.percentile),
            (1, 10, 0, 95)
        );
        assert_eq!(j.io_mode, IoMode::Sync);
        assert_eq!(j.commands, vec![Command::Run]);
    }

    #[test]
    fn general_errors_come_before_the_banner() {
        let r = p("--threads=0 --file-test-mode=rndrd run");
        assert!(!r.banner);
        assert_eq!(
            texts(&r.pre),
            vec!["FATAL: Invalid value for --threads: 0.", ""]
        );
        assert_eq!(code(&r), 1);
        let r = p("--threads=abc run");
        assert_eq!(r.pre[0].stream, Stream::Err);
        assert_eq!(
            r.pre[0].text,
            "Invalid value for the 'threads' option: 'abc'"
        );
    }

    #[test]
    fn fileio_errors_come_after_the_banner() {
        let r = p("--file-num=abc run");
        assert!(r.banner);
        assert_eq!(
            r.post.last().unwrap().text,
            "Invalid value for the 'file_num' option: 'abc'"
        );
        assert_eq!(r.post.last().unwrap().stream, Stream::Err);
        let r = p("--file-block-size=2G prepare");
        assert_eq!(
            r.post.last().unwrap().text,
            "FATAL: Invalid value for file-block-size: -2147483648."
        );
    }

    #[test]
    fn deprecated_aliases_warn_in_order() {
        let r = p("--max-time=1 --max-requests=1000 --num-threads=2 --file-test-mode=rndrd run");
        assert_eq!(
            texts(&r.pre),
            vec![
                "WARNING: --num-threads is deprecated, use --threads instead",
                "WARNING: --max-requests is deprecated, use --events instead",
                "WARNING: --max-time is deprecated, use --time instead",
            ]
        );
        let Outcome::Job(j) = r.outcome else { panic!() };
        assert_eq!((j.threads, j.event_limit, j.time_limit), (2, 1000, 1));
    }

    #[test]
    fn sysbench_error_catalogue() {
        let cases: &[(&str, &str, i32)] = &[
            (
                "--file-test-mode=foo run",
                "FATAL: Invalid IO operations mode: foo.",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-io-mode=foo run",
                "FATAL: unknown I/O mode: foo",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-block-size=0 run",
                "FATAL: Invalid value for file-block-size: 0.",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-block-size=4G run",
                "FATAL: Invalid value for file-block-size: 0.",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-num=0 run",
                "FATAL: Invalid value for file-num: 0",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-num= run",
                "FATAL: Invalid value for file-num: 0",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-total-size=1.5G run",
                "FATAL: Invalid value for file-total-size: 0",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-fsync-freq=-1 run",
                "FATAL: Invalid value for file-fsync-freq: -1.",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-merged-requests=-1 run",
                "FATAL: Invalid value for file-merged-requests: -1.",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-rw-ratio=-1 run",
                "FATAL: Invalid value for --file-rw-ratio: -1.000000.",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-fsync-mode=foo run",
                "FATAL: Invalid fsync mode: foo.",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-extra-flags=foo run",
                "FATAL: Invalid value for file-extra-flags: foo",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-io-mode=async --file-async-backlog=0 run",
                "FATAL: Invalid value of file-async-backlog: 0",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-fsync-all=maybe run",
                "invalid option: --file-fsync-all=maybe",
                1,
            ),
            (
                "--file-test-mode=rndrd --file-foo=1 run",
                "invalid option: --file-foo=1",
                1,
            ),
            (
                "--file-test-mode=rndrd --warmup-time=5 run",
                "invalid option: --warmup-time=5",
                1,
            ),
            (
                "--file-test-mode=rndrd --validate=maybe run",
                "invalid option: --validate=maybe",
                1,
            ),
            ("--file-test-mode=rndrd foo", "Unknown command: foo", 1),
        ];
        for (args, msg, c) in cases {
            let r = p(args);
            assert_eq!(r.post.last().map(|m| m.text.as_str()), Some(*msg), "{args}");
            assert_eq!(code(&r), *c, "{args}");
        }
        let pre: &[(&str, &str)] = &[
            (
                "--percentile=101 run",
                "FATAL: Invalid value for --percentile: 101",
            ),
            (
                "--percentile=0 --histogram run",
                "FATAL: --histogram cannot be used with --percentile=0",
            ),
            (
                "--rand-type=foo run",
                "FATAL: Invalid random numbers distribution: foo.",
            ),
            (
                "--forced-shutdown=abc run",
                "FATAL: Invalid value for --forced-shutdown: 'abc'",
            ),
            ("--verbosity=6 run", "Invalid value for verbosity: 6"),
        ];
        for (args, msg) in pre {
            let r = p(args);
            assert!(!r.banner, "{args}");
            assert_eq!(r.pre.last().map(|m| m.text.as_str()), Some(*msg), "{args}");
            assert_eq!(code(&r), 1);
        }
    }

    #[test]
    fn missing_mode_prints_the_option_list() {
        let r = p("--file-total-size=64M run");
        let t = texts(&r.post);
        assert_eq!(t[2], "FATAL: Missing required argument: --file-test-mode");
        assert_eq!(t[4], "fileio options:");
        assert_eq!(code(&r), 1);
    }

    #[test]
    fn b1_negative_file_num_rejected() {
        let r = p("--file-num=-1 prepare");
        assert!(r
            .post
            .last()
            .unwrap()
            .text
            .starts_with("FATAL: Invalid value for file-num: -1"));
        assert_eq!(code(&r), 2);
    }

    #[test]
    fn b3_direct_with_sync_is_accepted() {
        let r = p("--file-extra-flags=direct,sync,dsync prepare");
        let Outcome::Job(j) = r.outcome else { panic!() };
        assert!(j.extra_flags.direct && j.extra_flags.sync && j.extra_flags.dsync);
    }

    #[test]
    fn b7_negative_async_backlog_rejected() {
        let r = p("--file-test-mode=rndrd --file-io-mode=async --file-async-backlog=-1 run");
        assert!(r
            .post
            .last()
            .unwrap()
            .text
            .contains("must be between 1 and 32768"));
        assert_eq!(code(&r), 2);
    }

    #[test]
    fn b8_bad_extra_flag_is_named() {
        let r = p("--file-extra-flags=sync,foo prepare");
        assert_eq!(
            r.post.last().unwrap().text,
            "FATAL: Invalid value for file-extra-flags: foo"
        );
    }

    #[test]
    fn b9_empty_fsync_mode_is_an_error() {
        let r = p("--file-fsync-mode= prepare");
        assert!(r
            .post
            .last()
            .unwrap()
            .text
            .contains("accepted: fsync, fdatasync"));
        assert_eq!(code(&r), 2);
    }

    #[test]
    fn b10_rw_ratio_garbage_and_nan_rejected() {
        for v in ["abc", "2x", "nan", ""] {
            let r = p(&format!("--file-rw-ratio={v} prepare"));
            assert_eq!(code(&r), 2, "{v}");
        }
        let r = p("--file-rw-ratio=inf prepare");
        assert!(matches!(r.outcome, Outcome::Job(_)));
    }

    #[test]
    fn b13_negative_limits_rejected() {
        for o in [
            "--threads=-1",
            "--time=-1",
            "--events=-5",
            "--rate=-1",
            "--report-interval=-1",
        ] {
            let r = p(&format!("{o} --file-test-mode=rndrd run"));
            assert!(!r.banner, "{o}");
            assert_ne!(code(&r), 0, "{o}");
        }
    }

    #[test]
    fn positional_rules() {
        let r = p("--file-total-size 64M run");
        assert_eq!(
            texts(&r.pre),
            vec!["Unrecognized command line argument: run"]
        );
        assert!(!r.banner);
        let r = p("--file-test-mode=rndrd prepare run cleanup");
        let Outcome::Job(j) = r.outcome else { panic!() };
        assert_eq!(
            j.commands,
            vec![Command::Prepare, Command::Run, Command::Cleanup]
        );
        let r = p("prepare bogus");
        assert_eq!(
            texts(&r.pre),
            vec!["Unrecognized command line argument: bogus"]
        );
        let r = p("--file-num=4");
        assert!(r
            .post
            .last()
            .unwrap()
            .text
            .starts_with("The 'fileio' test requires a command argument"));
    }

    #[test]
    fn fsync_all_disables_periodic_and_end() {
        let r = p("--file-fsync-all --file-test-mode=rndwr run");
        let Outcome::Job(j) = r.outcome else { panic!() };
        assert_eq!((j.fsync_freq, j.fsync_end, j.fsync_all), (0, false, true));
    }

    #[test]
    fn forced_shutdown_forms() {
        let get = |s: &str| {
            let Outcome::Job(j) = p(&format!("--time=20 {s} prepare")).outcome else {
                panic!()
            };
            j.forced_shutdown
        };
        assert_eq!(get("--forced-shutdown=off"), None);
        assert_eq!(get("--forced-shutdown=OFF"), None);
        assert_eq!(get("--forced-shutdown=3"), Some(3));
        assert_eq!(get("--forced-shutdown=50%"), Some(10));
        assert_eq!(get("--forced-shutdown="), Some(1));
    }

    #[test]
    fn geometry_errors_exit_2_after_banner() {
        let r = p("--file-num=1 --file-total-size=8K prepare");
        assert!(r
            .post
            .last()
            .unwrap()
            .text
            .contains("smaller than --file-block-size=16384"));
        assert_eq!(code(&r), 2);
        let r = p("--file-total-size=100 run --file-test-mode=rndrd");
        assert_eq!(code(&r), 2);
    }
}
