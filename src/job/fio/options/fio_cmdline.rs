//! fio's command-line options beyond the output ones of `cmdline.rs`: the terse version
//! and `--append-terse`, `--debug`, `--idle-prof`, the triggers, `--alloc-size`,
//! `--merge-blktrace-only`, and the one-shot tools and refusals that `cli/run.rs` answers
//! before parsing (`--enghelp`, `--crctest`, `--cpuclock-test`, `--inflate-log`,
//! `--server`, `--client`, `--remote-config`, `--daemonize`, `--latency-log`,
//! `--profile`). What each does at run time: docs/commands/run.md.

use super::{bad, Arg, CmdCtx, FioOption, Kind};
use crate::job::fio::ini::Origin;
use crate::job::fio::FioError;
use crate::job::units;
use std::path::PathBuf;
use std::time::Duration;

type R = Result<(), FioError>;

/// How `--idle-prof` reports CPU idleness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleProf {
    /// the whole system's idleness (`system`)
    System,
    /// every CPU's and the system's (`percpu`)
    PerCpu,
}

/// The state fio's command-line options leave for the run ([`crate::job::fio::FioCommand::fio_cli`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FioCli {
    /// `--terse-version` (2 to 5; fio's default 3)
    pub terse_version: u8,
    /// `--debug` areas (bits of `util::debug::AREAS`) and the lines fio prints on reading them
    pub debug: (u32, Vec<String>),
    /// `--idle-prof=system|percpu`
    pub idle_prof: Option<IdleProf>,
    /// `--trigger-file=FILE`: stop the jobs when FILE exists
    pub trigger_file: Option<PathBuf>,
    /// `--trigger-timeout=T`: stop the jobs T after the start
    pub trigger_timeout: Option<Duration>,
    /// `--trigger=CMD`: run CMD (sh -c) once a trigger fired
    pub trigger_cmd: Option<String>,
    /// `--trigger-remote=CMD`: fio's command for the servers of a client; kept, unused
    pub trigger_remote: Option<String>,
    /// `--alloc-size=KB`: fio's shared-memory pool; accepted, iomark has no such pool
    pub alloc_size_kb: Option<u64>,
    /// `--bandwidth-log`: write fio's aggregate logs `agg-read_bw.log`, `agg-write_bw.log`
    pub bandwidth_log: bool,
    /// `--merge-blktrace-only`: parse, merge nothing, run nothing
    pub merge_blktrace_only: bool,
}

impl Default for FioCli {
    fn default() -> Self {
        FioCli {
            terse_version: 3,
            debug: (0, Vec::new()),
            idle_prof: None,
            trigger_file: None,
            trigger_timeout: None,
            trigger_cmd: None,
            trigger_remote: None,
            alloc_size_kb: None,
            bandwidth_log: false,
            merge_blktrace_only: false,
        }
    }
}

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::cmd(
        "terse-version",
        Kind::Int,
        "Set terse version output format (default 3, or 2 or 4 or 5)",
        terse_version,
    )
    .default("3")
    .range(2, 5)
    .example("4")
    .fio_command(23),
    FioOption::cmd(
        "append-terse",
        Kind::Flag,
        "Add fio's terse lines to the output formats given",
        append_terse,
    )
    .fio_command(5),
    FioOption::cmd(
        "debug",
        Kind::Str,
        "Enable debug logging (fio's areas; iomark traces random seeds, jobs, files, processes)",
        debug,
    )
    .example("random")
    .fio_command(15),
    FioOption::cmd(
        "idle-prof",
        Kind::Str,
        "Report cpu idleness on a system or percpu basis, or run unit work calibration only",
        idle_prof,
    )
    .values(&[("system", ""), ("percpu", ""), ("calibrate", "")])
    .example("system")
    .fio_command(32),
    FioOption::cmd(
        "trigger-file",
        Kind::Str,
        "Execute trigger cmd when file exists",
        trigger_file,
    )
    .arg(Arg::Value)
    .example("stop.now")
    .fio_command(34),
    FioOption::cmd(
        "trigger-timeout",
        Kind::Time,
        "Execute trigger at this time",
        trigger_timeout,
    )
    .example("10s")
    .fio_command(35),
    FioOption::cmd(
        "trigger",
        Kind::Str,
        "Set this command as local trigger",
        trigger,
    )
    .arg(Arg::Value)
    .example("true")
    .fio_command(36),
    FioOption::cmd(
        "trigger-remote",
        Kind::Str,
        "Set this command as remote trigger",
        trigger_remote,
    )
    .arg(Arg::Value)
    .example("true")
    .fio_command(37),
    FioOption::cmd(
        "alloc-size",
        Kind::Int,
        "Set smalloc pool to this size in kb (def 16384; accepted, iomark has no such pool)",
        alloc_size,
    )
    .example("16384")
    .fio_command(19),
    FioOption::cmd(
        "merge-blktrace-only",
        Kind::Flag,
        "Merge blktraces only, don't start any IO",
        merge_blktrace_only,
    )
    .fio_command(39),
    FioOption::front(
        "enghelp",
        Kind::Flag,
        "Print ioengine help, or list available ioengines",
    )
    .fio_command(9),
    FioOption::front("crctest", Kind::Flag, "Test speed of checksum functions").fio_command(30),
    FioOption::front(
        "cpuclock-test",
        Kind::Flag,
        "Perform test/validation of CPU clock",
    )
    .fio_command(29),
    FioOption::front(
        "inflate-log",
        Kind::Str,
        "Inflate and output compressed log",
    )
    .arg(Arg::Value)
    .example("log.bin")
    .fio_command(18),
    FioOption::front(
        "server",
        Kind::Flag,
        "Start a backend fio server (refused: MPI)",
    )
    .fio_command(24),
    FioOption::front(
        "daemonize",
        Kind::Str,
        "Background fio server, write pid to file (refused: MPI)",
    )
    .arg(Arg::Value)
    .example("fio.pid")
    .fio_command(26),
    FioOption::front(
        "client",
        Kind::Str,
        "Talk to remote backend(s) fio server at hostname (refused: MPI)",
    )
    .arg(Arg::Value)
    .example("host")
    .fio_command(27),
    FioOption::front(
        "remote-config",
        Kind::Str,
        "Tell fio server to load this local job file (refused: MPI)",
    )
    .arg(Arg::Value)
    .example("job.fio")
    .fio_command(28),
    FioOption::front(
        "latency-log",
        Kind::Str,
        "Deprecated by fio: use the per-job latency log options",
    )
    .arg(Arg::Value)
    .example("x")
    .fio_command(1),
];

fn bad_arg(key: &str, value: &str, why: impl Into<String>) -> FioError {
    bad(key, value, why, &Origin::CommandLine)
}

/// fio: `terse_version = atoi(optarg)`, 2 to 5, else "bad terse version format".
fn terse_version(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let t = v.unwrap_or("");
    c.p.cmd.fio_cli.terse_version = t
        .trim()
        .parse()
        .ok()
        .filter(|n| (2..=5).contains(n))
        .ok_or_else(|| bad_arg("terse-version", t, "bad terse version format: 2, 3, 4 or 5"))?;
    Ok(())
}

fn append_terse(c: &mut CmdCtx<'_>, _: Option<&str>) -> R {
    c.p.cmd.output_format.terse = true;
    Ok(())
}

/// `--debug=help` is answered by cli/run.rs before parsing; here the areas are read.
fn debug(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let t = v.unwrap_or("");
    let (bits, said) = crate::util::debug::parse(t).map_err(|why| {
        FioError::Usage(format!(
            "{why} (--debug={t}; accepted: {},all, or help)",
            crate::util::debug::AREAS.join(",")
        ))
    })?;
    c.p.cmd.fio_cli.debug.0 |= bits;
    c.p.cmd.fio_cli.debug.1.extend(said);
    Ok(())
}

/// `calibrate` is answered by cli/run.rs before parsing (fio runs it and exits).
fn idle_prof(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    c.p.cmd.fio_cli.idle_prof = match v.unwrap_or("") {
        "system" => Some(IdleProf::System),
        "percpu" => Some(IdleProf::PerCpu),
        "calibrate" => None,
        t => {
            return Err(bad_arg(
                "idle-prof",
                t,
                "incorrect idle-prof option; accepted: system, percpu, calibrate",
            ))
        }
    };
    Ok(())
}

fn named(key: &str, v: Option<&str>) -> Result<String, FioError> {
    v.filter(|f| !f.is_empty())
        .map(str::to_string)
        .ok_or_else(|| FioError::Usage(format!("--{key} needs a value (--{key}=VALUE)")))
}

fn trigger_file(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    c.p.cmd.fio_cli.trigger_file = Some(PathBuf::from(named("trigger-file", v)?));
    Ok(())
}

/// fio reads the time in seconds by default (`check_str_time`).
fn trigger_timeout(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let t = v.unwrap_or("");
    let d = units::fio_time(t, 1_000_000_000).map_err(|e| bad_arg("trigger-timeout", t, e))?;
    c.p.cmd.fio_cli.trigger_timeout = Some(d);
    Ok(())
}

fn trigger(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    c.p.cmd.fio_cli.trigger_cmd = Some(named("trigger", v)?);
    Ok(())
}

fn trigger_remote(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    c.p.cmd.fio_cli.trigger_remote = Some(named("trigger-remote", v)?);
    Ok(())
}

/// fio: `atoi(optarg)` KiB (fio takes any text; iomark wants a number).
fn alloc_size(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let t = v.unwrap_or("");
    let kb = t.trim().parse().map_err(|_| {
        bad_arg(
            "alloc-size",
            t,
            "a whole number of KiB (fio's default 16384)",
        )
    })?;
    c.p.cmd.fio_cli.alloc_size_kb = Some(kb);
    Ok(())
}

fn merge_blktrace_only(c: &mut CmdCtx<'_>, _: Option<&str>) -> R {
    c.p.cmd.fio_cli.merge_blktrace_only = true;
    Ok(())
}

/// fio's engine options by engine (`fio --enghelp=ENGINE`), in fio 3.33's order. An
/// entry is an option of the table; `NAME=HELP` where this engine's line of help is
/// not the table's (fio words `nowait` per engine), and a leading two spaces where fio
/// indents the option under the one before it (its `parent`).
const ENGINE_OPTIONS: &[(&str, &[&str])] = &[
    (
        "io_uring",
        &[
            "hipri",
            "cmdprio_percentage",
            "cmdprio_class",
            "cmdprio",
            "cmdprio_bssplit",
            "fixedbufs",
            "registerfiles",
            "sqthread_poll",
            "sqthread_poll_cpu",
            "nonvectored",
            "uncached",
            "nowait",
            "force_async",
            "cmd_type",
        ],
    ),
    (
        "libaio",
        &[
            "userspace_reap",
            "cmdprio_percentage",
            "cmdprio_class",
            "cmdprio",
            "cmdprio_bssplit",
            "nowait=Set RWF_NOWAIT for reads/writes",
        ],
    ),
    (
        "pvsync2",
        &[
            "hipri=Set RWF_HIPRI for pwritev2/preadv2",
            "hipri_percentage",
            "uncached",
            "nowait=Set RWF_NOWAIT for pwritev2/preadv2",
        ],
    ),
    ("mmap", &["thp"]),
    (
        "net",
        &[
            "hostname",
            "port",
            "protocol",
            "nodelay",
            "listen",
            "pingpong",
            "interface",
            "ttl",
            "window_size",
            "mss",
        ],
    ),
    (
        "cpuio",
        &["cpuload", "  cpuchunks", "cpumode", "exit_on_io_done"],
    ),
    (
        "exec",
        &["program", "arguments", "grace_time", "std_redirect"],
    ),
    ("e4defrag", &["donorname", "inplace"]),
    ("filestat", &["stat_type"]),
];

/// `fio --enghelp=ENGINE`: one line per engine option, `NAME(24, left): HELP` (`  NAME(22)`
/// for an option fio indents); empty when the engine has none.
pub fn engine_help(engine: &str) -> String {
    let names = ENGINE_OPTIONS
        .iter()
        .find(|(e, _)| *e == engine)
        .map_or(&[][..], |e| e.1);
    names
        .iter()
        .filter_map(|entry| engine_line(entry))
        .collect()
}

/// The option names of every engine's `--enghelp` table (its entries without their
/// indent and `=HELP`).
pub fn engine_option_names() -> impl Iterator<Item = &'static str> {
    ENGINE_OPTIONS.iter().flat_map(|(_, entries)| {
        entries
            .iter()
            .map(|e| e.trim_start().split('=').next().unwrap_or(e))
    })
}

/// The option names of engine `engine`'s `--enghelp` table, in its order (fio's, which
/// its getopt adds to the command line's options once a job names the engine); none for
/// an engine that has none or that the table does not hold.
pub fn options_of_engine(engine: &str) -> Vec<&'static str> {
    ENGINE_OPTIONS
        .iter()
        .filter(|(e, _)| *e == engine)
        .flat_map(|(_, entries)| {
            entries
                .iter()
                .map(|e| e.trim_start().split('=').next().unwrap_or(e))
        })
        .collect()
}

/// The engines whose `--enghelp` table lists option `name`, in the table's order.
pub fn engines_taking(name: &str) -> impl Iterator<Item = &'static str> + '_ {
    ENGINE_OPTIONS
        .iter()
        .map(|(e, _)| *e)
        .filter(move |e| options_of_engine(e).contains(&name))
}

/// One line of `--enghelp` for an entry of [`ENGINE_OPTIONS`].
fn engine_line(entry: &str) -> Option<String> {
    let (indent, rest) = match entry.strip_prefix("  ") {
        Some(r) => ("  ", r),
        None => ("", entry),
    };
    let (name, help) = rest.split_once('=').unwrap_or((rest, ""));
    let o = super::find(name)?;
    let help = if help.is_empty() { o.help } else { help };
    Some(format!(
        "{indent}{:<w$}: {help}\n",
        o.name,
        w = 24 - indent.len()
    ))
}
