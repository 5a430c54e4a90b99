//! The only room that creates, opens, truncates or removes files and devices.
//!
//! `fileset` owns sysbench's `test_file.<i>` set (prepare, open for run, cleanup);
//! `dataset` the files of fio jobs (layout, open); `scratch` the files and directories
//! of `copy`, `tree` and `mark`; `output` every file written for the user to read
//! (`--json`, `--output`, `--plot`, logs: old content or the complete new one);
//! `leftover` finds the scratch directories of an earlier iomark killed before its
//! cleanup and removes those that hold only iomark's own files; `fixture` writes the
//! tree of a recorded machine (`diagnose --fixture`, tests); `preflight` checks
//! what the environment allows before anything is written; `guard` decides whether a
//! block device may be written. The rules they keep are in docs/safety.md.

pub mod dataset;
pub mod fileset;
pub mod fixture;
pub mod guard;
pub mod history;
pub mod leftover;
pub mod output;
pub mod preflight;
pub mod scratch;
pub mod sysctl;

/// The directory as shown in messages: absolute when it can be resolved (so "." reads
/// as the real path).
pub fn dir_name(dir: &std::path::Path) -> String {
    std::fs::canonicalize(dir)
        .unwrap_or_else(|_| dir.to_path_buf())
        .display()
        .to_string()
}

pub use crate::util::strerror;
