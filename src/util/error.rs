//! The error that ends a command, and the exit codes, in one place (docs/safety.md
//! "Exit codes"; docs/ARCHITECTURE.md "Errors and exit codes").
//!
//! Every room returns an [`Error`] (or a code from [`exit`]) up to its front end; only
//! `main` (src/main.rs) turns the outcome into a process exit. `fileio` keeps sysbench
//! 1.0.20's own codes where sysbench defines them (1 for nearly every error, 2 for a
//! forced shutdown); errors that sysbench does not have use the project-wide codes.

/// The process exit codes.
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// A run that failed (I/O error, validation mismatch); also sysbench's code for
    /// every `FATAL:` validation message, which `fileio` keeps.
    pub const FAILED: i32 = 1;
    /// Invalid options or input that sysbench itself would not reject (iomark's fixes
    /// of sysbench bugs), and `--forced-shutdown` expiry (sysbench's own code 2).
    pub const INVALID: i32 = 2;
    /// The environment cannot do what was asked: not enough space, O_DIRECT
    /// unsupported, open-file limit too low, io_uring not permitted.
    pub const ENVIRONMENT: i32 = 3;
    /// Interrupted by SIGINT (partial results still printed and saved).
    pub const SIGINT: i32 = 130;
    /// Terminated by SIGTERM (partial results still printed and saved).
    pub const SIGTERM: i32 = 143;
    /// Hung up (SIGHUP: a closed terminal or SSH session), handled as SIGTERM.
    pub const SIGHUP: i32 = 129;
    /// Quit (SIGQUIT, Ctrl-backslash), handled as SIGTERM.
    pub const SIGQUIT: i32 = 131;

    /// Every exit status with what it says, in the order `--help` lists them: the one
    /// table of the "Exit status" section of each command's help ([`help_section`]).
    pub const TABLE: [(i32, &str); 8] = [
        (OK, "ok"),
        (FAILED, "the run failed (I/O error, verify mismatch, an output not written at the end)"),
        (INVALID, "invalid options or input (also outputs that name one file)"),
        (ENVIRONMENT, "the environment cannot do it (space, O_DIRECT, an unsafe or unusable path: a link, a directory, a missing parent)"),
        (SIGINT, "SIGINT"),
        (SIGTERM, "SIGTERM"),
        (SIGHUP, "SIGHUP (a closed terminal)"),
        (SIGQUIT, "SIGQUIT"),
    ];

    /// What a command's "Exit status" section speaks of: a command that runs I/O
    /// (`fileio`, `run`, `mark`, `copy`, `tree`), `time` (whose status is its command's),
    /// or one that reads results and writes reports (`compare`, `report`, `history`,
    /// `diagnose`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Does {
        /// runs I/O: a partial result on a stop
        RunsIo,
        /// `time`: the timed command's status
        TimesACommand,
        /// reads results, writes reports
        Reads,
    }

    /// The "Exit status" section of a command's `--help`, made from [`TABLE`] (the words
    /// of 1 and of a stop as the command `does`), wrapped at 100 columns.
    pub fn help_section(does: Does) -> String {
        let codes: Vec<String> = TABLE
            .iter()
            .map(|&(c, w)| match (c, does) {
                (FAILED, Does::Reads) => format!("{c} an output could not be written"),
                _ => format!("{c} {w}"),
            })
            .collect();
        let stop = match does {
            Does::RunsIo => {
                "stopped, the partial result printed and saved, iomark's own files removed"
            }
            Does::TimesACommand => "stopped, the signal passed to the command, its report printed",
            Does::Reads => "stopped, every output the old content or the complete new one",
        };
        let lead = match does {
            Does::TimesACommand => "Exit status: the command's own (128 + N when signal N killed it; 127 not found, 126 not runnable); iomark's own: ",
            _ => "Exit status: ",
        };
        let text = format!(
            "{lead}{}: {stop}. SIGUSR1 and SIGPIPE end nothing; SIGINT, SIGHUP or SIGQUIT \
             ignored at start (nohup, a script's &) stay ignored.",
            codes.join(", ")
        );
        let mut out = String::new();
        let mut line = String::new();
        for w in text.split(' ') {
            if !line.is_empty() && line.len() + 1 + w.len() > 98 {
                out.push_str(&line);
                out.push('\n');
                line = "  ".into();
            }
            if !line.is_empty() && line != "  " {
                line.push(' ');
            }
            line.push_str(w);
        }
        out.push_str(&line);
        out.push('\n');
        out
    }
}

/// What a command ends with: `Ok` carries its exit code when it ran to its end (0, or
/// the code of an interruption or of a failure its report already shows); `Err` is the
/// [`Error`] that stopped it, printed by `main` alone (src/main.rs), then its code.
pub type Exit = Result<i32, Error>;

/// Why a command stops: its exit code (one of [`exit`]) and the lines to print, each
/// as is (one line naming the option and what is accepted for bad input; sysbench's
/// `FATAL:`/`WARNING:` lines for `fileio`, which may be several).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// the lines, printed as they are
    pub lines: Vec<String>,
    /// the exit code
    pub code: i32,
}

impl Error {
    /// An error of one line.
    pub fn new(code: i32, line: impl Into<String>) -> Error {
        Error {
            lines: vec![line.into()],
            code,
        }
    }

    /// An error of several lines (sysbench prints a `FATAL:` line and its reasons).
    pub fn lines(code: i32, lines: Vec<String>) -> Error {
        Error { lines, code }
    }

    /// The exit code.
    pub fn code(&self) -> i32 {
        self.code
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.lines.join("\n"))
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_carries_its_code_and_lines() {
        let e = Error::new(exit::INVALID, "--bs: 'x' is not a size");
        assert_eq!(e.code(), 2);
        assert_eq!(e.to_string(), "--bs: 'x' is not a size");
        let e = Error::lines(exit::FAILED, vec!["FATAL: a".into(), "WARNING: b".into()]);
        assert_eq!(e.code(), 1);
        assert_eq!(e.to_string(), "FATAL: a\nWARNING: b");
    }

    #[test]
    fn the_codes_are_the_documented_ones() {
        assert_eq!(
            [
                exit::OK,
                exit::FAILED,
                exit::INVALID,
                exit::ENVIRONMENT,
                exit::SIGINT,
                exit::SIGTERM
            ],
            [0, 1, 2, 3, 130, 143]
        );
    }
}
