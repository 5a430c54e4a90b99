//! `iomark time [--json=FILE] [--output=FILE] -- CMD ARGS…` front end: flags → a
//! [`TimeJob`], outputs declared before the command starts (a bad path fails first,
//! exit 3), the run ([`crate::run::time`]), then the report (stderr, or `--output`),
//! the result file and the history line. The exit code is the command's (128 + N when
//! signal N killed it); a command that cannot be found is 127, one that cannot be run
//! 126, as in a shell; no command is exit 2.

use crate::cli::clap_common::clap_exit;
use crate::cli::output::{cannot_write, Outputs};
use crate::run::time::{self, TimeJob};
use crate::util::error::{exit, Error, Exit};
use clap::Parser;
use std::path::PathBuf;

/// Command-line options of `iomark time`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark time",
    version,
    about = "Is this command waiting for storage? Run any command and see, for its whole process tree, wall and CPU time, the time blocked on storage, bytes at the device vs from the page cache, and what a faster drive could save",
    override_usage = "iomark time [--json=FILE] [--output=FILE] [--no-history] -- CMD [ARGS...]",
    after_help = "Example (is this build bound by the disk?):
  sudo iomark time -- make -j8

The command's stdin, stdout and stderr are its own; iomark's report goes to stderr (or
--output=FILE) and its exit code is the command's (128+N when signal N killed it; 127 when
the command is not found, 126 when it cannot be run). The time blocked on storage needs root:
iomark turns kernel.task_delayacct on for the run and restores it, and reads every task's
taskstats exit record. iomark waits until every process the command started has ended."
)]
pub struct Args {
    /// Write the RunResult (command "time", section `timed_command`) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the report to FILE instead of stderr.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Keep no copy of the result in the history (iomark history; IOMARK_HISTORY=off:
    /// never). Completed runs are kept by default.
    #[arg(long)]
    pub no_history: bool,
    /// The command and its arguments (after `--`).
    #[arg(
        value_name = "CMD",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<String>,
}

/// The outputs: `--json` (checked, its write rehearsed), the report on stderr or in
/// `--output`.
fn outputs(a: &Args) -> Result<Outputs, Error> {
    // `--json` and `--output` that are one file (a path spelled twice, a link) are
    // refused before either is checked or the command runs, naming both
    let named: Vec<crate::files::output::Named> = a
        .output
        .iter()
        .map(|p| ("--output".to_string(), p.clone()))
        .chain(a.json.iter().map(|p| ("--json".to_string(), p.clone())))
        .collect();
    crate::files::output::refuse_collisions(&named, &[])
        .map_err(|e| Error::new(exit::INVALID, format!("iomark time: {e}")))?;
    let mut outs = Outputs::new();
    let report = || -> Vec<Box<dyn crate::report::Reporter>> {
        vec![Box::new(crate::report::time_text::TimeText)]
    };
    if let Some(p) = &a.output {
        if let Err(e) = outs.file("--output", p, report(), "") {
            let line = format!("iomark time: {}", cannot_write("--output", p, &e));
            return Err(Error::new(e.exit_code(), line));
        }
    } else {
        outs.stderr(report());
    }
    if let Some(p) = &a.json {
        if let Err(e) = outs.json(p).and_then(|_| outs.rehearse()) {
            let line = format!("iomark time: {}", cannot_write("--json", p, &e));
            return Err(Error::new(e.exit_code(), line));
        }
    }
    Ok(outs)
}

/// A word taken as the command that is an option before `--` (clap's trailing
/// arguments take `--jsn=x` as a command): the option, to refuse it.
fn unknown_option<'a>(args: &[String], command: &'a [String]) -> Option<&'a str> {
    let first = command.first()?;
    let at = args.iter().position(|x| x == first)?;
    let dashdash = args.iter().position(|x| x == "--");
    (first.starts_with('-') && dashdash.is_none_or(|d| at < d)).then_some(first.as_str())
}

/// Run `iomark time` with the arguments after the command word.
pub fn run(args: &[String]) -> Exit {
    let argv = std::iter::once("iomark time".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("time", e),
    };
    if a.command.is_empty() {
        return Err(Error::new(
            exit::INVALID,
            "iomark time: no command: iomark time [--json=FILE] [--output=FILE] -- CMD [ARGS...]",
        ));
    }
    if let Some(o) = unknown_option(args, &a.command) {
        return Err(Error::new(
            exit::INVALID,
            format!("iomark time: unknown option '{o}' (accepted: --json=FILE, --output=FILE, --no-history; the command follows --)"),
        ));
    }
    let outs = outputs(&a)?;
    let job = TimeJob {
        command: a.command.clone(),
        argv: args.to_vec(),
    };
    let t = match time::execute(&job) {
        Ok(t) => t,
        Err(e) => return Err(Error::new(e.code, format!("iomark time: {}", e.message))),
    };
    let mut code = t.code;
    if let Err((opt, e)) = outs.write_texts(&t.result) {
        eprintln!("iomark time: {}", cannot_write(&opt, &e.path, &e));
        code = if code == exit::OK { exit::FAILED } else { code };
    }
    for l in &t.closing {
        eprintln!("{l}");
    }
    if let (Err(e), Some(p)) = (outs.write_json(&t.result), outs.json_path()) {
        eprintln!("iomark time: {}", cannot_write("--json", p, &e));
        code = if code == exit::OK { exit::FAILED } else { code };
    }
    if let Some(l) = crate::cli::output::keep_history(&t.result, !a.no_history) {
        eprintln!("{l}");
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_everything_after_the_options() {
        let a = Args::try_parse_from(["iomark time", "--json=r.json", "--", "dd", "--help", "-x"])
            .unwrap();
        assert_eq!(a.command, ["dd", "--help", "-x"]);
        assert_eq!(a.json, Some(PathBuf::from("r.json")));
        // without `--`: the first word starts the command, its options are its own
        let a = Args::try_parse_from(["iomark time", "sh", "-c", "exit 7"]).unwrap();
        assert_eq!(a.command, ["sh", "-c", "exit 7"]);
        let a = Args::try_parse_from(["iomark time"]).unwrap();
        assert!(a.command.is_empty());
        let argv = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let bad = argv(&["--bogus", "--", "true"]);
        let a = Args::try_parse_from(
            ["iomark time"]
                .into_iter()
                .chain(bad.iter().map(String::as_str)),
        );
        let cmd = a.map(|a| a.command).unwrap_or_else(|_| argv(&["--bogus"]));
        assert_eq!(unknown_option(&bad, &cmd), Some("--bogus"));
        let ok = argv(&["--", "-weird-name", "x"]);
        assert_eq!(unknown_option(&ok, &argv(&["-weird-name", "x"])), None);
        let ok = argv(&["--json=r", "--", "dd", "--help"]);
        assert_eq!(unknown_option(&ok, &argv(&["dd", "--help"])), None);
    }
}
