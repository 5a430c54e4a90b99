//! Front ends: argv (or job files) → validated jobs. Front ends only translate; they
//! never open files or know an engine's internals.

pub mod copy;
pub mod diagnose;
pub mod fileio;
pub mod fileio_args;
pub mod tree;
