//! Front ends: argv (or job files) → validated jobs. Front ends only translate; they
//! never open files or know an engine's internals. One file per command; [`help`] holds
//! the command tree made of their clap definitions (top-level help, `iomark help CMD`,
//! did-you-mean, `completions`, `man`).

pub mod clap_common;
pub mod compare;
pub mod copy;
pub mod diagnose;
pub mod fileio;
pub(crate) mod fio_refusal;
pub mod help;
pub mod history;
pub mod live;
pub mod mark;
pub mod output;
pub mod phases;
pub mod report;
pub mod run;
pub mod run_args;
pub mod run_front;
pub(crate) mod run_status;
pub mod run_watch;
pub mod time;
pub mod tree;

use crate::util::error::exit;
use crate::util::output::State;

/// Set up once at process start, before any command (run/mod.rs [`crate::run::init`]).
pub fn init() -> Result<(), crate::util::error::Error> {
    crate::run::init()
}

/// The process exit code of a command that returned `code`, once stdout is flushed
/// (the rule of [`crate::util::output`]): a closed pipe changes nothing; any other
/// write error prints `iomark: cannot write the report to stdout: <why>` (`the help`,
/// `the version` … when stdout held that: [`crate::util::output::held`]) and makes a
/// successful command exit 1 (a failed one keeps its code).
pub fn exit_code(code: i32) -> i32 {
    // many hosts (src/ranks/): rank 0 fails a run another rank failed, naming it
    let code = match crate::ranks::close(code) {
        Some(failure) => {
            eprintln!("iomark: {failure}");
            exit::FAILED
        }
        None => code,
    };
    // a stop signal that a command without an I/O loop (compare, diagnose, help) let
    // finish: its code all the same (src/run/signals.rs)
    let code = match crate::run::signals::received() {
        Some(sig) if code == exit::OK => sig,
        _ => code,
    };
    let held = crate::util::output::held();
    let persona = sysbench_persona();
    exit_code_after(&crate::util::output::flush(), held, code, persona)
}

/// Whether the binary was started as `sysbench` (the persona of `iomark fileio`).
fn sysbench_persona() -> bool {
    std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .is_some_and(|p| p.file_name().is_some_and(|n| n == "sysbench"))
}

/// `mark`, `copy` and `tree` started by an MPI launcher as several processes: they have
/// no many-hosts mode (src/ranks/), so one line and exit 3 instead of N unrelated runs.
pub fn refuse_many_hosts(args: &[String]) -> Option<crate::util::error::Error> {
    let cmd = args
        .first()
        .filter(|c| ["mark", "copy", "tree"].contains(&c.as_str()))?;
    let line = crate::ranks::refuse_unsupported(cmd)?;
    Some(crate::util::error::Error::new(exit::ENVIRONMENT, line))
}

/// `code` after stdout's verdict `st`; `sysbench`: the sysbench persona, which keeps
/// its code when stdout fails, as sysbench 1.0.20 ignores its failed writes (the line on
/// stderr says so).
fn exit_code_after(st: &State, held: crate::util::output::Holds, code: i32, sysbench: bool) -> i32 {
    match st {
        State::Failed(why) => {
            use std::io::Write;
            let kept = if sysbench {
                "; the command ran to its end and keeps sysbench's exit status, which ignores a failed write"
            } else {
                ""
            };
            let _ = writeln!(
                std::io::stderr().lock(),
                "{}: cannot write {} to stdout: {why}{kept}",
                run::program_tag(),
                held.name()
            );
            if code == exit::OK && !sysbench {
                exit::FAILED
            } else {
                code
            }
        }
        State::Open | State::Closed => code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_errors_and_exit_codes() {
        use crate::util::output::Holds;
        let r = Holds::Report;
        assert_eq!(exit_code_after(&State::Open, r, 0, false), 0);
        assert_eq!(exit_code_after(&State::Open, r, 2, false), 2);
        // a closed pipe is not an error: the command's own code
        assert_eq!(exit_code_after(&State::Closed, r, 0, false), 0);
        assert_eq!(exit_code_after(&State::Closed, r, 130, false), 130);
        // a lost report is: 1, unless the command failed anyway; a lost help too
        for h in [
            r,
            Holds::Help,
            Holds::Version,
            Holds::Completions,
            Holds::Man,
        ] {
            let full = State::Failed("No space left on device".into());
            assert_eq!(exit_code_after(&full, h, 0, false), 1);
            assert_eq!(exit_code_after(&State::Failed("x".into()), h, 3, false), 3);
            // the sysbench persona keeps its own code, as sysbench does
            assert_eq!(exit_code_after(&full, h, 0, true), 0);
            assert_eq!(exit_code_after(&State::Failed("x".into()), h, 1, true), 1);
        }
    }
}

#[cfg(test)]
mod props;
