//! `iomark run`: fio command-line jobs and job files → [`crate::job::fio`] → runner →
//! fio-like text or fio JSON. Front end only: parsing, dispatch and exit codes. In JSON
//! mode stdout carries the JSON document and nothing else; notices go to stderr.

use crate::job::fio::{self, OutputFormat};
use crate::run::fio as runner;
use crate::run::signals::Signals;

/// Usage text of `iomark run`.
pub const USAGE: &str =
    "Usage: iomark run [--global-opt=V ...] [--name=JOB --opt=V ...]... [JOBFILE...]
  fio options (--rw, --bs, --size, --ioengine, --iodepth, --numjobs, --runtime, ...);
  --output-format=normal|json   --json=FILE (iomark RunResult; not implemented yet)
";

/// Run `iomark run` with `args` (after the word `run`); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        crate::out!("{USAGE}");
        return crate::exit::OK;
    }
    let cmd = match fio::parse_args(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("iomark run: {e}");
            return crate::exit::INVALID;
        }
    };
    if cmd.json_file.is_some() {
        eprintln!("iomark run: --json=FILE (RunResult) is not supported by iomark run yet; use --output-format=json");
        return crate::exit::INVALID;
    }
    for n in &cmd.notices {
        eprintln!("{n}");
    }
    let signals = Signals::install();
    let note = |m: String| eprintln!("{m}");
    let out = match runner::execute(&cmd, &signals.stop, &note) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("iomark run: {e}");
            return e.exit_code();
        }
    };
    match cmd.output_format {
        OutputFormat::Json => {
            let doc = crate::report::fio::json_document(&out.jobs, &cmd.global_options);
            match serde_json::to_string_pretty(&doc) {
                Ok(s) => crate::outln!("{s}"),
                Err(e) => {
                    eprintln!("iomark run: cannot encode JSON: {e}");
                    return crate::exit::FAILED;
                }
            }
        }
        OutputFormat::Normal => crate::out!("{}", crate::report::fio::normal_text(&out.jobs)),
    }
    signals.exit_code().unwrap_or(crate::exit::OK)
}
