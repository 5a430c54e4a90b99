//! `iomark fileio` on its own terms (sysbench's interface, iomark's guarantees).

mod errors;
mod modes;
mod options;
mod prepare;
mod props;
