//! The clap definition of `iomark run` ([`command`]): what completions, the man page and
//! the command list of `iomark --help` show. `iomark run` itself parses with fio's rules
//! (`job/fio`: `--key=value` and `--key value`, job files, `-` and `_` alike), so this
//! definition is made from the parser's own key tables plus the command-line options of
//! [`CMDLINE`], and the tests below hold it to what the parser accepts.

use clap::{Arg, ArgAction, Command, ValueHint};

/// A command-line option of `iomark run` that is not a job key.
struct CmdOpt {
    name: &'static str,
    /// value name; `None` for a flag
    value: Option<&'static str>,
    help: &'static str,
    words: &'static [&'static str],
    hint: ValueHint,
}

const fn flag(name: &'static str, help: &'static str) -> CmdOpt {
    CmdOpt {
        name,
        value: None,
        help,
        words: &[],
        hint: ValueHint::Unknown,
    }
}

const fn value(name: &'static str, v: &'static str, help: &'static str) -> CmdOpt {
    CmdOpt {
        name,
        value: Some(v),
        help,
        words: &[],
        hint: ValueHint::Unknown,
    }
}

const fn with_words(mut o: CmdOpt, w: &'static [&'static str]) -> CmdOpt {
    o.words = w;
    o
}

const fn with_hint(mut o: CmdOpt, h: ValueHint) -> CmdOpt {
    o.hint = h;
    o
}

/// `iomark run`'s command-line options (fio's and iomark's), as its usage text lists them.
const CMDLINE: &[CmdOpt] = &[
    flag("help", "print the usage of iomark run (also -h)"),
    flag("version", "print the version"),
    flag("showcmd", "print the effective options as one command line, run nothing"),
    flag("parse-only", "check the jobs, run nothing"),
    flag("warnings-fatal", "a parse warning ends the run with exit 2"),
    flag("engine-strict", "exit 3 instead of the psync fallback when io_uring is denied"),
    with_words(
        value("output-format", "FORMAT", "normal, json, json+ or a list such as normal,json"),
        &["normal", "json", "json+", "normal,json", "normal,json+"],
    ),
    with_hint(
        value("output", "FILE", "write the report to FILE instead of stdout"),
        ValueHint::FilePath,
    ),
    value("section", "NAME", "run only this section of the job files (may be repeated)"),
    with_hint(
        value("json", "FILE", "also write iomark's RunResult (schema 1) to FILE"),
        ValueHint::FilePath,
    ),
    with_hint(
        value("plot", "DIR", "write SVG charts (throughput over time, latency curve) to DIR"),
        ValueHint::DirPath,
    ),
    value("status-interval", "TIME", "print the report so far every TIME (at least 100ms)"),
    with_words(
        value("eta", "WHEN", "accepted as fio's (never, always, auto); no ETA line is printed"),
        &["never", "always", "auto"],
    ),
    value("eta-newline", "TIME", "accepted as fio's; no ETA line is printed"),
    value("eta-interval", "TIME", "accepted as fio's; no ETA line is printed"),
    with_hint(
        value("allow-destructive-write", "/dev/X", "allow the jobs to write to this block device"),
        ValueHint::FilePath,
    ),
    value("reap-spin", "TIME", "io_uring: watch for completions this long before sleeping (default 5us, 0 = sleep at once as fio does)"),
];

/// Every fio job key the parser implements (canonical `_` spelling), from its tables.
pub fn job_keys() -> Vec<&'static str> {
    use crate::job::fio;
    let mut keys: Vec<&'static str> = fio::SUPPORTED_KEYS
        .iter()
        .chain(fio::keys::MORE_KEYS)
        .chain(fio::control::CONTROL_KEYS)
        .chain(fio::extra::EXTRA_KEYS)
        .chain(fio::keys_verify::EXTRA_KEYS)
        .chain(fio::zone_keys::ZONE_KEYS)
        .copied()
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn cmd_arg(o: &CmdOpt) -> Arg {
    let mut a = Arg::new(o.name).long(o.name).help(o.help).value_hint(o.hint);
    a = match o.value {
        None => a.action(ArgAction::SetTrue),
        Some(v) => a.value_name(v).num_args(1).action(ArgAction::Append),
    };
    if !o.words.is_empty() {
        a = a.value_parser(o.words.to_vec());
    }
    if o.name == "help" {
        a = a.short('h');
    }
    a
}

fn key_arg(k: &'static str) -> Arg {
    Arg::new(k)
        .long(k)
        .help("fio job key (docs/compat/fio.md); --key=value or --key value, before --name: for every job")
        .value_name("VALUE")
        .num_args(0..=1)
        .action(ArgAction::Append)
}

/// What `iomark run` tells you, one line (also the `about` of [`command`]).
pub const ABOUT: &str =
    "What would fio measure for this job? fio's options and job files, fio's text and JSON reports";

/// The first lines of `iomark run --help`: the question it answers and one example.
pub const TOP: &str = "iomark run — what would fio measure for this job? fio's command line and job files,
fio's text and JSON reports (fio 3.33), plus iomark's RunResult.

Example (4 KiB random reads at queue depth 32 with O_DIRECT for 30 s on a 1 GiB file):
  iomark run --name=rr --filename=/data/iomark.tmp --size=1g --rw=randread --bs=4k \\
      --ioengine=io_uring --iodepth=32 --direct=1 --runtime=30 --time_based

";

/// The clap definition of `iomark run`.
pub fn command() -> Command {
    Command::new("run")
        .bin_name("iomark run")
        .about(ABOUT)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(
            Arg::new("jobfile")
                .value_name("JOBFILE")
                .help("fio job files; - reads one from standard input")
                .num_args(0..)
                .value_hint(ValueHint::FilePath)
                .action(ArgAction::Append),
        )
        .args(CMDLINE.iter().map(cmd_arg))
        .args(job_keys().into_iter().map(key_arg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::fio::{parse_args, FioError};
    use std::collections::BTreeSet;

    /// Whether the fio parser knows `--key` (a bad value is still a known key).
    fn known(key: &str, value: Option<&str>) -> bool {
        let word = match value {
            Some(v) => format!("--{key}={v}"),
            None => format!("--{key}"),
        };
        !matches!(
            parse_args(&["--name=x".into(), word]),
            Err(FioError::UnsupportedKey { .. } | FioError::EngineKey { .. })
        )
    }

    fn longs() -> BTreeSet<String> {
        command()
            .get_arguments()
            .filter_map(|a| a.get_long().map(str::to_string))
            .collect()
    }

    #[test]
    fn every_option_of_the_definition_is_accepted_by_the_parser() {
        // help, version and showcmd are read by cli/run.rs before the parser
        for o in CMDLINE.iter().filter(|o| !["help", "version", "showcmd"].contains(&o.name)) {
            let v = o.value.map(|_| o.words.first().copied().unwrap_or("1"));
            assert!(known(o.name, v), "--{}", o.name);
        }
        for k in job_keys() {
            assert!(known(k, Some("1")), "--{k}");
        }
        // and the parser refuses a key outside it
        assert!(!known("iodpeth_typo", Some("1")));
        assert!(!longs().contains("iodpeth_typo"));
    }

    #[test]
    fn every_option_of_the_usage_text_is_in_the_definition() {
        let l = longs();
        let usage = crate::cli::run::USAGE;
        for w in usage.split(|c: char| c.is_whitespace() || c == '(' || c == ',') {
            let Some(name) = w.strip_prefix("--") else { continue };
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if name.is_empty() || ["global-opt", "name", "opt", "key"].contains(&name.as_str()) {
                continue;
            }
            assert!(l.contains(&name), "--{name} of `iomark run --help` is not in the clap definition");
        }
        for k in ["rw", "bs", "size", "ioengine", "iodepth", "numjobs", "runtime", "name"] {
            assert!(l.contains(k), "--{k}");
        }
    }
}
