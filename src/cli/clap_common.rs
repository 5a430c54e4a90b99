//! What the clap front ends of the commands share: the version line, a clap error
//! turned into one line and an exit code, and the value parsers of `--size` and
//! `--color`. `help.rs` gathers the commands' clap definitions; the commands call only
//! this file, so no command names `help.rs` back.

use crate::util::color::When;
use crate::util::error::{exit, Error, Exit};

/// The version line of every command: `iomark 0.1.0`.
pub fn version_line() -> String {
    format!("iomark {}\n", env!("CARGO_PKG_VERSION"))
}

/// The value parser of `--size`: [`crate::job::units::iomark_size`] (K/M/G/T and KiB… are
/// powers of 1024, KB/MB/GB/TB powers of 1000); zero is refused.
pub fn parse_bin_size(s: &str) -> Result<u64, String> {
    crate::job::units::iomark_positive_size(s, "the size")
}

/// What the command `cmd` (its word) does, for the words of its help's Exit status: the
/// commands know it, util's table does not name them.
pub fn does(cmd: &str) -> exit::Does {
    match cmd {
        "time" => exit::Does::TimesACommand,
        "compare" | "report" | "history" | "diagnose" => exit::Does::Reads,
        _ => exit::Does::RunsIo,
    }
}

/// A clap error as one line (`iomark CMD: …`, exit 2); `--help` and `--version` print
/// on stdout (through [`crate::util::output`]) and end with 0.
pub fn clap_exit(cmd: &str, e: clap::Error) -> Exit {
    if e.kind() == clap::error::ErrorKind::DisplayVersion {
        crate::util::output::holds(crate::util::output::Holds::Version);
        crate::util::output::write(version_line().as_bytes());
        return Ok(exit::OK);
    }
    if !e.use_stderr() {
        crate::util::output::holds(crate::util::output::Holds::Help);
        let section = if e.kind() == clap::error::ErrorKind::DisplayHelp {
            format!("\n{}", exit::help_section(does(cmd)))
        } else {
            String::new()
        };
        let text = format!("{}{section}", e.render());
        crate::util::output::write(text.as_bytes());
        return Ok(exit::OK);
    }
    Err(Error::new(
        exit::INVALID,
        format!("iomark {cmd}: {}", clap_line(&e.to_string())),
    ))
}

/// clap's error text as one line: the first line, plus what clap puts on the next ones
/// when the first does not name it (the missing argument; the accepted values).
pub fn clap_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut out = lines
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ")
        .to_string();
    for l in lines {
        // clap's spelling suggestion ("tip: a similar argument exists: '--time'") is kept
        if l.starts_with("tip:") && l.contains("similar") {
            out.push_str("; ");
            out.push_str(l.trim_start_matches("tip: "));
            continue;
        }
        if l.starts_with("Usage:") || l.starts_with("For more information") || l.starts_with("tip:")
        {
            break;
        }
        if out.ends_with(':') {
            out.push(' ');
        } else {
            out.push_str("; ");
        }
        out.push_str(l);
    }
    out
}

/// The value parser of `--color` (mark, compare, diagnose): its words, for the help and
/// completions, mapped to [`When`].
pub fn color_when() -> impl clap::builder::TypedValueParser<Value = When> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(crate::util::color::WHEN_WORDS)
        .map(|s: String| When::parse(&s).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_bin_size("4096"), Ok(4096));
        assert_eq!(parse_bin_size("64M"), Ok(64 << 20));
        assert_eq!(parse_bin_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bin_size("1g"), Ok(1 << 30));
        assert_eq!(parse_bin_size("16k"), Ok(16384));
        assert!(parse_bin_size("0").unwrap_err().contains("greater than 0"));
        assert!(parse_bin_size("0M").is_err());
        assert!(parse_bin_size("abc").unwrap_err().contains("not a size"));
        assert_eq!(parse_bin_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_bin_size("64MB"), Ok(64_000_000));
        assert!(parse_bin_size("12X").is_err());
        assert!(parse_bin_size("").is_err());
        assert!(parse_bin_size("99999999999T")
            .unwrap_err()
            .contains("too large"));
    }
}
