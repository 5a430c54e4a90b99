//! iomark: storage benchmark and diagnosis.
//!
//! The crate follows one direction of flow (see DESIGN.md of the project):
//! front ends in [`cli`] turn argv into a validated job description ([`job`]),
//! [`files`] prepares and opens the files, [`run`] drives per-thread workers over an
//! [`engine`], [`stats`] records what happened, [`result`] builds the one
//! [`result::RunResult`] from it (the hub), and [`report`] renders that result as
//! iomark's JSON or a compatible text report. [`probe`] reads sysfs/procfs through an
//! injectable root for the honesty checks.

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
