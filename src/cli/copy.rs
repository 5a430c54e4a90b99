//! `iomark copy [SRC] [DST]` front end: flags → [`CopyJob`]. It only translates and
//! validates values (sizes); directories, free space and permissions are checked by
//! [`crate::run::copy::resolve`] before anything is created.
//!
//! Errors are one line on stderr (`iomark copy: …`) with exit code 2 for invalid input;
//! clap's multi-line usage errors are shortened to their first line for that reason.

use crate::exit;
use crate::run::copy::{self, CopyJob};
use clap::Parser;
use std::path::PathBuf;

/// Command-line options of `iomark copy`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark copy",
    about = "Time a big-file copy the ways common tools do it: buffered 128 KiB (cp-like), copy_file_range, O_DIRECT 4 MiB"
)]
pub struct Args {
    /// Directory the source file is created in (default: current directory).
    #[arg(default_value = ".")]
    pub src: PathBuf,
    /// Directory the copies are written to (default: SRC). Another device is the main use.
    pub dst: Option<PathBuf>,
    /// Source file size, binary units: 4096, 64K, 64M, 1G, 1GiB (K/M/G/T = 1024^n; "MB" is read as MiB).
    #[arg(long, default_value = "1G", value_parser = parse_bin_size)]
    pub size: u64,
    /// Seed of the incompressible data generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// Write the RunResult (command "copy", one phase per method and variant) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Keep the created source and destination files after a successful run (for
    /// inspection; needs room for the source and three copies). They are still removed
    /// after an error or Ctrl-C.
    #[arg(long)]
    pub keep: bool,
}

/// Parse a size with binary units: digits, then optional `K`, `M`, `G`, `T` (any case,
/// powers of 1024), optionally followed by `i` and/or `B`. Errors on an empty, zero,
/// fractional, unknown-unit or overflowing value.
pub fn parse_bin_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(format!(
            "'{s}' is not a size (expected e.g. 4096, 64K, 64M, 1G)"
        ));
    }
    let n: u64 = t[..digits]
        .parse()
        .map_err(|_| format!("'{s}' is too large"))?;
    let unit = t[digits..].to_ascii_lowercase();
    let shift = match unit.as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "'{s}': unknown unit '{}' (accepted: K, M, G, T, with optional iB; powers of 1024)",
                &t[digits..]
            ))
        }
    };
    let v = n
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{s}' is too large"))?;
    if v == 0 {
        return Err(format!("'{s}': the size must be greater than 0"));
    }
    Ok(v)
}

/// Print a clap error as one line (`iomark CMD: …`) and return its exit code
/// (0 for `--help`, 2 otherwise).
pub fn clap_exit(cmd: &str, e: clap::Error) -> i32 {
    if !e.use_stderr() {
        let _ = e.print();
        return exit::OK;
    }
    let text = e.to_string();
    let first = text
        .lines()
        .next()
        .unwrap_or("invalid arguments")
        .trim_start_matches("error: ");
    eprintln!("iomark {cmd}: {first}");
    exit::INVALID
}

/// Run `iomark copy` with the arguments after the command word; returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let argv = std::iter::once("iomark copy".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("copy", e),
    };
    let job = CopyJob {
        dst_dir: a.dst.clone().unwrap_or_else(|| a.src.clone()),
        src_dir: a.src,
        size: a.size,
        seed: a.seed,
        json: a.json,
        keep: a.keep,
        argv: args.to_vec(),
    };
    copy::execute(&job)
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
        assert!(parse_bin_size("1.5G").unwrap_err().contains("unknown unit"));
        assert!(parse_bin_size("12X").is_err());
        assert!(parse_bin_size("").is_err());
        assert!(parse_bin_size("99999999999T")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn defaults() {
        let a = Args::try_parse_from(["iomark copy"]).unwrap();
        assert_eq!(a.size, 1 << 30);
        assert_eq!(a.src, PathBuf::from("."));
        assert!(a.dst.is_none());
    }
}
