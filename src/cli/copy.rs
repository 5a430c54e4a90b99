//! `iomark copy [SRC] [DST]` front end: flags → [`CopyJob`]. It only translates and
//! validates values (sizes); directories, free space and permissions are checked by
//! [`crate::run::copy::resolve`] before anything is created.
//!
//! Errors are one line on stderr (`iomark copy: …`) with exit code 2 for invalid input;
//! clap's multi-line usage errors are shortened to their first line for that reason.

use crate::cli::clap_common::{clap_exit, parse_bin_size};
use crate::job::units::iomark_count_u32;
use crate::run::copy::{self, CopyJob};
use crate::util::error::{Error, Exit};
use clap::Parser;
use std::path::PathBuf;

/// Command-line options of `iomark copy`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark copy",
    version,
    about = "How long does a big copy take, until the data is durable? Buffered 128 KiB (cp-like), copy_file_range, O_DIRECT 4 MiB",
    after_help = "Example (a 4 GiB file copied from /mnt/a to another drive at /mnt/b):
  iomark copy /mnt/a /mnt/b --size=4G

Each method is timed to its last write and until durable (the final fsync); every copy is checked
byte for byte and removed. MB/s = 10^6 B/s, MiB/s = 2^20 B/s."
)]
pub struct Args {
    /// Directory the source file is created in (default: current directory).
    #[arg(default_value = ".")]
    pub src: PathBuf,
    /// Directory the copies are written to (default: SRC). Another device is the main use.
    pub dst: Option<PathBuf>,
    /// Source file size: 4096, 64K, 64M, 1G, 1GiB (K/M/G/T = 1024^n) or 64MB (10^6); a
    /// lower-case b (bits, as in 1.5Gb) is refused.
    #[arg(long, default_value = "1G", allow_negative_numbers = true, value_parser = parse_bin_size)]
    pub size: u64,
    /// Seed of the incompressible data generator (0 to 4294967295).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = iomark_count_u32(0, u32::MAX, ""))]
    pub seed: u32,
    /// Write the RunResult (command "copy", one phase per method and variant) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Keep the created source and destination files after a successful run (for
    /// inspection; needs room for the source and three copies). They are still removed
    /// after an error or Ctrl-C.
    #[arg(long)]
    pub keep: bool,
    /// Keep no copy of the result in the history (iomark history; IOMARK_HISTORY=off:
    /// never). Completed runs are kept by default.
    #[arg(long)]
    pub no_history: bool,
}

/// Run `iomark copy` with the arguments after the command word.
pub fn run(args: &[String]) -> Exit {
    let argv = std::iter::once("iomark copy".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("copy", e),
    };
    let job = CopyJob {
        dst_dir: a.dst.clone().unwrap_or_else(|| a.src.clone()),
        src_dir: a.src.clone(),
        size: a.size,
        seed: a.seed,
        json: a.json.clone(),
        keep: a.keep,
        argv: args.to_vec(),
    };
    let signals = crate::run::signals::Signals::install();
    if let Err(e) = copy::resolve(&job) {
        return Err(Error::new(e.code(None), format!("iomark copy: {e}")));
    }
    let report = Box::new(crate::report::copy_text::CopyText);
    crate::cli::phases::run(
        "copy",
        (job.json.as_deref(), !a.no_history),
        report,
        |live| copy::execute(&job, &signals, live),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::clap_common::clap_line;

    #[test]
    fn numeric_errors_name_the_option() {
        for (arg, want) in [
            ("--seed=abc", "invalid value 'abc' for '--seed <SEED>': expected a whole number from 0 to 4294967295"),
            ("--seed=-1", "invalid value '-1' for '--seed <SEED>': expected"),
            ("--size=-1", "for '--size <SIZE>': '-1' is not a size"),
        ] {
            let e = Args::try_parse_from(["iomark copy", arg]).unwrap_err();
            let line = clap_line(&e.to_string());
            assert!(line.contains(want), "{arg}: {line}");
            assert!(!line.contains("invalid digit"), "{line}");
        }
        let e = Args::try_parse_from(["iomark copy", "--seed", "-1"]).unwrap_err();
        assert!(
            clap_line(&e.to_string()).contains("'-1' for '--seed <SEED>': expected"),
            "{e}"
        );
    }

    #[test]
    fn defaults() {
        let a = Args::try_parse_from(["iomark copy"]).unwrap();
        assert_eq!(a.size, 1 << 30);
        assert_eq!(a.src, PathBuf::from("."));
        assert!(a.dst.is_none());
    }
}
