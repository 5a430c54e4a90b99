//! `iomark fileio` against the real sysbench 1.0.20 and its own test transcript.

mod counts;
mod cram;
mod layout;
mod persona;
mod persona_table;
