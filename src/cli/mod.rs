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
    exit_code_after(&crate::util::output::flush(), held, code)
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

fn exit_code_after(st: &State, held: crate::util::output::Holds, code: i32) -> i32 {
    match st {
        State::Failed(why) => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr().lock(),
                "{}: cannot write {} to stdout: {why}",
                run::program_tag(),
                held.name()
            );
            if code == exit::OK {
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
        assert_eq!(exit_code_after(&State::Open, r, 0), 0);
        assert_eq!(exit_code_after(&State::Open, r, 2), 2);
        // a closed pipe is not an error: the command's own code
        assert_eq!(exit_code_after(&State::Closed, r, 0), 0);
        assert_eq!(exit_code_after(&State::Closed, r, 130), 130);
        // a lost report is: 1, unless the command failed anyway; a lost help too
        for h in [
            r,
            Holds::Help,
            Holds::Version,
            Holds::Completions,
            Holds::Man,
        ] {
            let full = State::Failed("No space left on device".into());
            assert_eq!(exit_code_after(&full, h, 0), 1);
            assert_eq!(exit_code_after(&State::Failed("x".into()), h, 3), 3);
        }
    }
}

#[cfg(test)]
mod props;
