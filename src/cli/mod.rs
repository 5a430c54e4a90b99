//! Front ends: argv (or job files) → validated jobs. Front ends only translate; they
//! never open files or know an engine's internals.

pub mod fileio;
pub mod fileio_args;
