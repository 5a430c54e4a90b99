//! iomark: storage benchmark and diagnosis.
//!
//! The crate follows one direction of flow (see DESIGN.md of the project):
//! front ends in [`cli`] turn argv into a validated job description ([`job`]),
//! [`files`] prepares and opens the files, [`run`] drives per-thread workers over an
//! [`engine`], [`stats`] records what happened, [`result`] builds the one
//! [`result::RunResult`] from it (the hub), and [`report`] renders that result as
//! iomark's JSON or a compatible text report. [`probe`] reads sysfs/procfs through an
//! injectable root for the honesty checks.

// `eprintln!`/`eprint!` for the whole crate (textual scope: every module below): std's
// panic when stderr cannot be written (`2>/dev/full`, `2>&1 | head` after the reader
// left); these write through `util::output::to_stderr`, which says nothing when stderr
// fails — there is nowhere left to say it (docs/safety.md "When stdout cannot be written").
macro_rules! eprintln {
    () => {
        $crate::util::output::to_stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::util::output::to_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::util::output::to_stderr(format_args!($($arg)*))
    };
}

pub mod cli;
pub mod engine;
pub mod files;
pub mod job;
pub mod probe;
pub mod ranks;
pub mod report;
pub mod result;
pub mod run;
pub mod stats;
pub mod util;
