//! The public cases: reproductions of problems reported against sysbench, fio and
//! CrystalDiskMark-style tools, each described in CASES.md beside this file (what went
//! wrong elsewhere, what iomark does, which test holds it).

mod fileio;
mod run;
