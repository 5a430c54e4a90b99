//! Front ends: argv (or job files) → validated jobs. Front ends only translate; they
//! never open files or know an engine's internals.

pub mod compare;
pub mod copy;
pub mod diagnose;
pub mod fileio;
pub mod mark;
pub mod run;
pub mod tree;

#[cfg(test)]
mod props;
