//! The command-line options of `iomark run`: fio's own (`--output-format`, `--output`,
//! `--section`, `--parse-only`, …) and iomark's (`--json`, `--plot`, `--reap-spin`,
//! `--engine-strict`, `--allow-destructive-write`). They act on the command being parsed
//! ([`Parse`]), never on a job: in a job file they are an error naming them. `--help`,
//! `--version`, `--cmdhelp` and `--showcmd` are read by `cli/run.rs` before parsing.

use super::{bad, iomark_switch, Arg, CmdCtx, FioOption, Kind};
use crate::job::fio::ini::Origin;
use crate::job::fio::{FioCommand, FioError, OutputFormat};
use crate::job::units;
use std::path::PathBuf;
use std::time::Duration;

type R = Result<(), FioError>;

/// The command line read so far: the command, and `--reap-spin`, which is given to every
/// job once all are built.
#[derive(Debug, Default)]
pub struct Parse {
    /// the command being built
    pub cmd: FioCommand,
    /// `--reap-spin`, ns
    pub reap_spin: Option<u64>,
}

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::cmd(
        "output-format",
        Kind::Str,
        "Output format (normal, json, json+, or a comma list such as normal,json)",
        output_format,
    )
    .default("normal")
    .values(&[
        ("normal", "fio's human summary"),
        ("json", "fio's JSON document"),
        (
            "json+",
            "fio's JSON document with the latency histogram bins",
        ),
        ("terse", "fio's terse lines (also minimal, csv)"),
    ])
    .example("normal,json").fio_command(4),
    FioOption::cmd("output", Kind::Str, "Write output to file", output)
        .arg(Arg::Value)
        .example("out.txt").fio_command(0),
    FioOption::cmd(
        "section",
        Kind::Str,
        "Only run specified section in job file, multiple sections can be specified",
        section,
    )
    .arg(Arg::Value)
    .example("job1").fio_command(17),
    FioOption::cmd(
        "status-interval",
        Kind::Time,
        "Print a progress line (stderr) and record an interval sample this often",
        status_interval,
    )
    .example("1s").fio_command(33),
    FioOption::cmd(
        "eta",
        Kind::Str,
        "When ETA estimate should be printed: fio's status line on stdout (auto: on a terminal)",
        eta,
    )
    .values(&[("always", ""), ("never", ""), ("auto", "")])
    .example("never").fio_command(12),
    FioOption::cmd(
        "eta-newline",
        Kind::Time,
        "Force a new line for every 't' period passed (plain number: seconds)",
        eta_newline,
    )
    .example("5").fio_command(14),
    FioOption::cmd(
        "eta-interval",
        Kind::Time,
        "ETA update interval (plain number: seconds, as fio 3.33; at least 250ms)",
        eta_interval,
    )
    .example("500").fio_command(13),
    FioOption::cmd(
        "parse-only",
        Kind::Flag,
        "Parse options only, don't start any IO",
        parse_only,
    ).fio_command(16),
    FioOption::cmd(
        "warnings-fatal",
        Kind::Flag,
        "Fio parser warnings are fatal",
        warnings_fatal,
    ).fio_command(21),
    FioOption::cmd(
        "max-jobs",
        Kind::Int,
        "Maximum number of threads/processes to support",
        max_jobs,
    )
    .example("16").fio_command(22),
    FioOption::cmd(
        "aux-path",
        Kind::Str,
        "Use this directory for generated state files (verify_state_save/load)",
        aux_path,
    )
    .arg(Arg::Value)
    .example("/tmp").fio_command(38),
    FioOption::cmd(
        "bandwidth-log",
        Kind::Flag,
        "Generate aggregate bandwidth logs (agg-read_bw.log, agg-write_bw.log)",
        bandwidth_log,
    ).fio_command(2),
    FioOption::cmd(
        "notes",
        Kind::Flag,
        "Print iomark's notes on stderr and its coverage/verify lines in the text report (the default of iomark run; off when invoked as fio)",
        notes,
    ),
    FioOption::cmd("minimal", Kind::Flag, "Minimal (terse) output", minimal).fio_command(3),
    FioOption::front(
        "showcmd",
        Kind::Flag,
        "Turn a job file into command line options",
    ).fio_command(10),
    FioOption::front(
        "cmdhelp",
        Kind::Flag,
        "Print command help, \"all\" for all of them",
    ).fio_command(8),
    FioOption::front("version", Kind::Flag, "Print version info and exit").fio_command(6),
    FioOption::front("help", Kind::Flag, "Print this page").fio_command(7),
    FioOption::cmd(
        "json",
        Kind::Str,
        "Write iomark's RunResult (JSON) to FILE",
        json,
    )
    .arg(Arg::ValueOwnMessage)
    .example("r.json"),
    FioOption::cmd(
        "plot",
        Kind::Str,
        "Write SVG charts of the run (throughput over time, latency curve) to DIR",
        plot,
    )
    .arg(Arg::ValueOwnMessage)
    .example("plots"),
    FioOption::cmd(
        "no-history",
        Kind::Flag,
        "Keep no copy of the result in iomark's history (IOMARK_HISTORY=off: never)",
        no_history,
    ),
    FioOption::cmd(
        "live",
        Kind::Flag,
        "Full-screen live view of the run on a terminal (q or Ctrl-C stops it as SIGINT does)",
        live,
    ),
    FioOption::cmd(
        "allow-destructive-write",
        Kind::Str,
        "Let jobs write to this block device (repeatable)",
        allow_destructive_write,
    )
    .arg(Arg::ValueOwnMessage)
    .example("/dev/sdx"),
    FioOption::cmd(
        "reap-spin",
        Kind::Time,
        "io_uring: watch for completions this long before sleeping (0 = sleep at once, as fio)",
        reap_spin,
    )
    .default("5us")
    .example("800ns"),
    FioOption::cmd(
        "engine-strict",
        Kind::Flag,
        "Exit 3 instead of falling back to psync when io_uring is denied",
        engine_strict,
    ),
];

/// `ORIGIN: invalid value …` of a command-line option.
fn bad_arg(key: &str, value: &str, why: impl Into<String>) -> FioError {
    bad(key, value, why, &Origin::CommandLine)
}

/// The file or directory an option names; none (or empty): `--KEY needs FORM`.
fn named(v: Option<&str>, needs: &str) -> Result<String, FioError> {
    v.filter(|f| !f.is_empty())
        .map(str::to_string)
        .ok_or_else(|| FioError::Usage(needs.into()))
}

/// A flag written with a value: `--KEY takes no value`.
fn no_value(c: &CmdCtx<'_>, v: Option<&str>) -> R {
    match v {
        Some(_) => Err(FioError::Usage(format!(
            "--{k} takes no value (write --{k})",
            k = c.key
        ))),
        None => Ok(()),
    }
}

/// fio: `--output-format` replaces the formats given before it (`--minimal` too).
fn output_format(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let list = v.unwrap_or("");
    c.p.cmd.output_format =
        OutputFormat::parse(list).map_err(|why| bad_arg("output-format", list, why))?;
    Ok(())
}

fn output(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let f = named(v, "--output needs a file name (--output=FILE)")?;
    c.p.cmd.output = Some(PathBuf::from(f));
    Ok(())
}

/// fio's `--aux-path=DIR`: where the verify state files are (run/verify/state.rs).
fn aux_path(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let d = named(v, "--aux-path needs a directory (--aux-path=DIR)")?;
    c.p.cmd.aux_path = Some(PathBuf::from(d));
    Ok(())
}

/// `--section=NAME`: run only the job-file sections of that name (and those given by
/// other `--section`s). `global` is refused as fio 3.33 refuses it while it reads the
/// command line (its getopt `-x`: the line, exit 1), with or without a job file,
/// `--parse-only` or `--showcmd`.
fn section(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let f = named(
        v,
        "--section needs a job-file section name (--section=NAME)",
    )?;
    if f == "global" {
        return Err(FioError::FioLines(vec![
            "fio: can't use global as only section".into(),
        ]));
    }
    c.p.cmd.sections.push(f);
    Ok(())
}

/// `--status-interval=TIME` (seconds by default). As fio 3.33 reads it, a number with a
/// fraction is its whole seconds (`0.5` is 0: C's strtoll stops at the `.`, after which
/// no unit starts), and under 1 ms is fio's `fio: status interval too small`; from 1 ms
/// on each interval has its report, as fio's.
/// Under the fio persona letters after the digits and a `0x` are read as fio reads them
/// ([`units::fio_cmdline_time`]: `1000q` is 1 ms, `1x` and `2sec` 1 and 2 µs, too small;
/// `1000x` 4.096 ms); `iomark run` refuses letters that name no unit.
fn status_interval(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let t = v.unwrap_or("");
    let as_fio = units::fio_cmdline_time(t, 1_000_000).filter(|_| c.p.cmd.job_setup_errors);
    let d = match (as_fio, units::fio_time_whole(t, 1_000_000_000)) {
        (Some(d), _) | (None, Some(d)) => d,
        (None, None) => {
            units::fio_time(t, 1_000_000_000).map_err(|e| bad_arg("status-interval", t, e))?
        }
    };
    if d < Duration::from_millis(1) {
        return Err(FioError::FioLines(vec![
            "fio: status interval too small".into()
        ]));
    }
    c.p.cmd.status_interval = Some(d);
    Ok(())
}

/// `--eta=always|never|auto`: when fio's status line is printed.
fn eta(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    use crate::job::fio::EtaWhen;
    let t = v.unwrap_or("");
    c.p.cmd.eta.when = match t {
        "always" => EtaWhen::Always,
        "never" => EtaWhen::Never,
        "auto" => EtaWhen::Auto,
        _ => return Err(bad_arg("eta", t, "accepted: never, always, auto")),
    };
    Ok(())
}

/// fio 3.33 reads both times with seconds as the unit of a plain number
/// (`check_str_time(.., is_seconds=1)`): `--eta-interval=2` is 2 s, `500ms` half a second.
fn eta_time(c: &CmdCtx<'_>, v: Option<&str>) -> Result<Duration, FioError> {
    let t = v.unwrap_or("");
    units::fio_time(t, 1_000_000_000).map_err(|e| bad_arg(c.key, t, e))
}

/// `--eta-newline=T`: fio refuses less than 1 ms ("eta new line time too short").
fn eta_newline(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let d = eta_time(c, v)?;
    if d < Duration::from_millis(1) {
        return Err(bad_arg(c.key, v.unwrap_or(""), "at least 1ms"));
    }
    c.p.cmd.eta.newline = Some(d);
    Ok(())
}

/// `--eta-interval=T`: fio refuses less than 250 ms (its disk-utilisation tick).
fn eta_interval(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let d = eta_time(c, v)?;
    if d < Duration::from_millis(250) {
        return Err(bad_arg(c.key, v.unwrap_or(""), "at least 250ms"));
    }
    c.p.cmd.eta.interval = d;
    Ok(())
}

fn parse_only(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    no_value(c, v)?;
    c.p.cmd.parse_only = true;
    Ok(())
}

fn no_history(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    no_value(c, v)?;
    c.p.cmd.no_history = true;
    Ok(())
}

fn live(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    no_value(c, v)?;
    c.p.cmd.live = true;
    Ok(())
}

fn warnings_fatal(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    no_value(c, v)?;
    c.p.cmd.warnings_fatal = true;
    Ok(())
}

/// fio's `--max-jobs`: a whole number, 1..=4096 (fio's REAL_MAX_JOBS), kept and not
/// acted on: fio 3.33 ignores it ("we don't track/need this anymore"), so every job runs.
fn max_jobs(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let t = v.unwrap_or("");
    let n: u32 = t
        .trim()
        .parse()
        .ok()
        .filter(|n| (1..=MAX_JOBS).contains(n))
        .ok_or_else(|| bad_arg("max-jobs", t, format!("a whole number, 1 to {MAX_JOBS}")))?;
    c.p.cmd.max_jobs = Some(n);
    Ok(())
}

/// fio's REAL_MAX_JOBS: the largest `--max-jobs`.
pub const MAX_JOBS: u32 = 4096;

fn bandwidth_log(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    no_value(c, v)?;
    c.p.cmd.fio_cli.bandwidth_log = true;
    Ok(())
}

/// `--notes` on, `--notes=0|off|no|false` off (`1|on|yes|true` on): as `fileio --notes`
/// and as `--cmdhelp=notes` says (an empty or boolean value).
fn notes(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    c.p.cmd.notes = Some(match v.map(str::to_ascii_lowercase).as_deref() {
        None | Some("" | "1" | "on" | "yes" | "true") => true,
        Some("0" | "off" | "no" | "false") => false,
        Some(_) => {
            return Err(FioError::Usage(
                "--notes takes no value or one of on, off, 1, 0 (e.g. --notes=off)".into(),
            ))
        }
    });
    Ok(())
}

/// fio: `--minimal` makes terse the only format (a later `--output-format` replaces it).
fn minimal(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    no_value(c, v)?;
    c.p.cmd.output_format = OutputFormat::TERSE;
    Ok(())
}

fn json(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let f = named(v, "--json needs a file name (--json=FILE)")?;
    c.p.cmd.json_file = Some(PathBuf::from(f));
    Ok(())
}

fn plot(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let f = named(v, "--plot needs a directory (--plot=DIR)")?;
    c.p.cmd.plot = Some(PathBuf::from(f));
    Ok(())
}

fn allow_destructive_write(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let f = named(
        v,
        "--allow-destructive-write needs the device it allows (--allow-destructive-write=/dev/sdX)",
    )?;
    c.p.cmd
        .own_options
        .push(("allow-destructive-write".into(), f.clone()));
    c.p.cmd.allow_destructive_write.push(PathBuf::from(f));
    Ok(())
}

fn reap_spin(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let t = v.unwrap_or("");
    c.p.reap_spin = Some(units::iomark_spin_ns(t).map_err(|why| bad_arg("reap-spin", t, why))?);
    c.p.cmd
        .own_options
        .push(("reap-spin".into(), t.trim().into()));
    Ok(())
}

fn engine_strict(c: &mut CmdCtx<'_>, v: Option<&str>) -> R {
    let strict = iomark_switch("engine-strict", v)?;
    c.p.cmd.engine_strict = strict;
    c.p.cmd
        .own_options
        .push(("engine-strict".into(), if strict { "" } else { "0" }.into()));
    Ok(())
}
