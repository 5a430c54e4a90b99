//! The clap definition of `iomark run` ([`command`]): what completions, the man page and
//! the command list of `iomark --help` show. `iomark run` itself parses with fio's rules
//! (`job/fio`: `--key=value` and `--key value`, job files, `-` and `_` alike), so this
//! definition is made from the parser's own option table (`job/fio/options/`: every job
//! key and command-line option, with aliases, help and accepted words), and the tests
//! below hold it to what the parser accepts.

use crate::job::fio::options::{self, FioOption, Kind};
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction, Command, ValueHint};

/// What kind of path an option names, for completion.
fn hint(o: &FioOption) -> ValueHint {
    match o.name {
        "output" | "json" | "filename" | "allow-destructive-write" => ValueHint::FilePath,
        "plot" | "directory" => ValueHint::DirPath,
        _ => ValueHint::Unknown,
    }
}

/// The clap argument of one option of the table: `--KEY[=VALUE]`, its aliases, help and
/// the words it accepts.
fn arg_of(o: &'static FioOption) -> Arg {
    let mut a = Arg::new(o.name)
        .long(o.name)
        .visible_aliases(o.aliases.iter().copied())
        .help(o.help)
        .value_hint(hint(o))
        .action(ArgAction::Append);
    a = match o.kind {
        Kind::Flag => a.num_args(0..=1).value_name("0|1"),
        _ => a.num_args(1).value_name("VALUE"),
    };
    if !o.values.is_empty() {
        let words = o.values.iter().map(|&(w, meaning)| {
            let v = PossibleValue::new(w);
            if meaning.is_empty() {
                v
            } else {
                v.help(meaning)
            }
        });
        a = a.value_parser(PossibleValuesParser::new(words));
    }
    if o.name == "help" {
        a = a.short('h');
    }
    a
}

/// What `iomark run` tells you, one line (also the `about` of [`command`]).
pub const ABOUT: &str =
    "What would fio measure for this job? fio's options and job files, fio's text and JSON reports";

/// The first lines of `iomark run --help`: the question it answers and one example.
pub const TOP: &str =
    "iomark run — what would fio measure for this job? fio's command line and job files,
fio's text and JSON reports (fio 3.33), plus iomark's RunResult.

Example (4 KiB random reads at queue depth 32 with O_DIRECT for 30 s on a 1 GiB file):
  iomark run --name=rr --filename=/data/iomark.tmp --size=1g --rw=randread --bs=4k \\
      --ioengine=io_uring --iodepth=32 --direct=1 --runtime=30 --time_based

";

/// Usage text of `iomark run` (the option groups follow, from the option table).
pub const USAGE: &str =
    "Usage: iomark run [--global-opt=V ...] [--name=JOB --opt=V ...]... [JOBFILE...]
  fio options (--rw, --bs, --size, --ioengine, --iodepth, --numjobs, --runtime, ...),
  as --key=value, --key value, -key=value or -key value (fio's getopt); JOBFILE - reads
  the job file from standard input;
  --output-format=normal|json|json+|terse (or a list: normal,json)   --output=FILE   --section=NAME
  --minimal (terse lines)   --terse-version=2..5   --append-terse   --debug=AREA,... (--debug=help)
  --showcmd (print the effective options as one command line, run nothing)
  --json=FILE (iomark RunResult, schema 2)   --plot=DIR (SVG charts: throughput over time, latency curve)
  --no-history (completed runs are kept in the results history by default, iomark history;
  IOMARK_HISTORY=off keeps none)
  --parse-only (check the jobs, run nothing)   --warnings-fatal (a parse warning is exit 2)
  --version   --eta=never|always|auto (fio's status line on stdout; auto: on a terminal)
  --eta-newline=T   --eta-interval=T   --live (full-screen view on a terminal; q or Ctrl-C stops
  as SIGINT does, the partial result kept; refused without a terminal, exit 2)
  --status-interval=TIME   --engine-strict (exit 3 instead of the psync fallback when io_uring is denied)
  --allow-destructive-write=/dev/X   --reap-spin=TIME (io_uring: watch for completions this long
  before sleeping; default 5us, 0 = sleep at once as fio does)
  --cmdhelp (every option with one line of help)   --cmdhelp=KEY (one option: aliases, type, default, values)
";

/// `iomark run --help`: the question it answers with an example
/// ([`TOP`]), [`USAGE`] and the option groups with their keys.
pub fn usage() -> String {
    format!(
        "{}{USAGE}Options by group (fio's groups; iomark run --cmdhelp=KEY explains one):\n{}\n{}",
        TOP,
        options::groups_help(100),
        crate::util::error::exit::help_section(crate::util::error::exit::Does::RunsIo)
    )
}

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
        .args(options::all().map(arg_of))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::fio::options::Apply;
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
    fn the_definition_holds_the_table_and_the_parser_accepts_it() {
        let cmd = command();
        let mut names: BTreeSet<String> = BTreeSet::new();
        for a in cmd.get_arguments() {
            names.extend(a.get_long().map(str::to_string));
            names.extend(
                a.get_all_aliases()
                    .into_iter()
                    .flatten()
                    .map(str::to_string),
            );
        }
        let table: BTreeSet<String> = options::all()
            .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
            .map(str::to_string)
            .collect();
        assert_eq!(
            names, table,
            "the definition names exactly the table's options and aliases"
        );
        // what the parser reads (all but the options cli/run.rs answers before it) is
        // accepted with the table's example value, under its name and every alias
        for o in options::all().filter(|o| !matches!(o.apply, Apply::Front)) {
            for n in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
                assert!(known(n, o.example), "--{n}");
            }
        }
        // and the parser refuses a key outside it
        assert!(!known("iodpeth_typo", Some("1")));
        assert!(!names.contains("iodpeth_typo"));
    }

    #[test]
    fn every_option_of_the_usage_text_is_in_the_definition() {
        let l = longs();
        let usage = USAGE;
        for w in usage.split(|c: char| c.is_whitespace() || c == '(' || c == ',') {
            let Some(name) = w.strip_prefix("--") else {
                continue;
            };
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if name.is_empty() || ["global-opt", "name", "opt", "key"].contains(&name.as_str()) {
                continue;
            }
            assert!(
                l.contains(&name),
                "--{name} of `iomark run --help` is not in the clap definition"
            );
        }
        for k in [
            "rw", "bs", "size", "ioengine", "iodepth", "numjobs", "runtime", "name",
        ] {
            assert!(l.contains(k), "--{k}");
        }
    }
}
