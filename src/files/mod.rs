//! The only place that creates, writes, deletes or opens benchmark files.
//!
//! `fileset` owns sysbench's `test_file.<i>` set (prepare, open for run, cleanup);
//! `preflight` checks what the environment allows before anything is written;
//! `blockguard` decides whether a block device may be written.

pub mod dataset;
pub mod fileset;
pub mod guard;
pub mod preflight;
pub mod scratch;


pub use crate::util::strerror;
