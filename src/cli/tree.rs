//! `iomark tree [DIR]` front end: flags → [`TreeJob`]. It only translates and validates
//! values; DIR, free space and inodes are checked by [`crate::run::tree`] before the
//! tree directory is created.
//!
//! Defaults: 150,000 files in files/15 directories (about 15 files per directory, like
//! a node_modules or source tree), one walker per CPU up to 8.

use crate::cli::clap_common::clap_exit;
use crate::job::units::{iomark_count, iomark_count_u32};
use crate::run::tree::{self, TreeJob};
use clap::Parser;
use std::path::PathBuf;

/// Command-line options of `iomark tree`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark tree",
    version,
    about = "How fast are many small files? A package-tree-like set timed per phase: mkdir, create+write, fsync, stat, read, rename, delete",
    after_help = "Example (30,000 files, about 445 MiB, under /mnt/data, result kept as JSON):
  iomark tree /mnt/data --files=30000 --json=tree.json

With --drop-caches=auto (the default) and root, the stat and read phases start cold: before each,
iomark runs `sync; echo 3 > /proc/sys/vm/drop_caches`, which empties the page cache, dentries and
inodes of the whole system (other programs slow down for a moment); the output says so.
--drop-caches=off never touches the caches (the phases then say they ran warm)."
)]
pub struct Args {
    /// Directory the fresh tree directory (iomark-tree.PID) is created in (default: current directory).
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Number of files.
    #[arg(long, default_value_t = 150_000, allow_negative_numbers = true, value_parser = iomark_count(1, 100_000_000, ""))]
    pub files: u64,
    /// Number of directories below the tree root (default: files/15, at least 1).
    #[arg(long, allow_negative_numbers = true, value_parser = iomark_count(1, 10_000_000, ""))]
    pub dirs: Option<u64>,
    /// Parallel walkers (default: CPUs, at most 8).
    #[arg(long, allow_negative_numbers = true, value_parser = iomark_count_u32(1, 1024, ""))]
    pub threads: Option<u32>,
    /// Seed of the plan (names, sizes) and the data (0 to 4294967295).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = iomark_count_u32(0, u32::MAX, ""))]
    pub seed: u32,
    /// Write the RunResult (command "tree", one phase per pass) to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Stop after read-all and keep the tree (no rename/delete/rmdir phases), e.g. to
    /// run another tool over the same files.
    #[arg(long)]
    pub keep: bool,
    /// Before stat_all and read_all: auto = drop the whole system's caches when root
    /// (sync; echo 3 > /proc/sys/vm/drop_caches), said in the output; off = never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "off"])]
    pub drop_caches: String,
    /// Keep no copy of the result in the history (iomark history; IOMARK_HISTORY=off:
    /// never). Completed runs are kept by default.
    #[arg(long)]
    pub no_history: bool,
}

/// Run `iomark tree` with the arguments after the command word.
pub fn run(args: &[String]) -> crate::util::error::Exit {
    let argv = std::iter::once("iomark tree".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => return clap_exit("tree", e),
    };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let job = TreeJob {
        dir: a.dir.clone(),
        files: a.files,
        dirs: a.dirs.unwrap_or((a.files / 15).max(1)),
        threads: a.threads.unwrap_or(cpus.min(8)),
        seed: a.seed,
        json: a.json.clone(),
        keep: a.keep,
        drop_caches: a.drop_caches == "auto",
        argv: args.to_vec(),
    };
    let signals = crate::run::signals::Signals::install();
    let plan = match tree::prepare(&job) {
        Ok(p) => p,
        Err(e) => {
            let line = format!("iomark tree: {e}");
            return Err(crate::util::error::Error::new(e.code(None), line));
        }
    };
    let report = Box::new(crate::report::tree_text::TreeText);
    crate::cli::phases::run(
        "tree",
        (job.json.as_deref(), !a.no_history),
        report,
        |live| tree::execute(&job, &plan, &signals, live),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_ranges() {
        let a = Args::try_parse_from(["iomark tree"]).unwrap();
        assert_eq!(a.files, 150_000);
        assert!(a.dirs.is_none() && a.threads.is_none());
        assert!(Args::try_parse_from(["iomark tree", "--files=0"]).is_err());
        assert!(Args::try_parse_from(["iomark tree", "--threads=0"]).is_err());
        assert!(Args::try_parse_from(["iomark tree", "--files=abc"]).is_err());
        let a = Args::try_parse_from(["iomark tree", "--files=+20", "--threads=1024"]).unwrap();
        assert_eq!((a.files, a.threads), (20, Some(1024)));
    }

    #[test]
    fn numeric_errors_name_the_option_and_the_range() {
        for (args, want) in [
            (vec!["--files=-5"], "invalid value '-5' for '--files <FILES>': expected a whole number from 1 to 100000000"),
            (vec!["--files", "-5"], "invalid value '-5' for '--files <FILES>': expected a whole number from 1 to 100000000"),
            (vec!["--files=0"], "invalid value '0' for '--files <FILES>': expected a whole number from 1 to 100000000"),
            (vec!["--dirs=x"], "invalid value 'x' for '--dirs <DIRS>': expected a whole number from 1 to 10000000"),
            (vec!["--threads=abc"], "invalid value 'abc' for '--threads <THREADS>': expected a whole number from 1 to 1024"),
            (vec!["--threads=2000"], "invalid value '2000' for '--threads <THREADS>': expected a whole number from 1 to 1024"),
            (vec!["--seed=-1"], "invalid value '-1' for '--seed <SEED>': expected a whole number from 0 to 4294967295"),
        ] {
            let argv = std::iter::once("iomark tree").chain(args.iter().copied());
            let e = Args::try_parse_from(argv).unwrap_err();
            let line = crate::cli::clap_common::clap_line(&e.to_string());
            assert!(line.contains(want), "{args:?}: {line}");
            assert!(!line.contains("invalid digit"), "{line}");
        }
    }
}
