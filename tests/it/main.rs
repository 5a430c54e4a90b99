//! The one integration-test binary: every test that runs the `iomark` binary, grouped
//! by what it checks. Shared helpers are in `util` (one definition each); tests of
//! internals live beside their code in `src/` as unit tests. `bash tests/run.sh` runs
//! this binary with the unit tests (`cargo test --profile ci`).

/// command builder, scratch directories, loop devices, peer tools, JSON and report readers
mod util;

/// the public cases (../shared/cases/public-cases.md), one or more tests per case
mod cases;
/// `iomark copy` and `iomark tree`
mod copy_tree;
/// `iomark diagnose`: fixture machines, this VM, JSON and text reports
mod diagnose;
/// injected faults and real ENOSPC: the run stops cleanly and reports what was done
mod faults;
/// `iomark fileio` on its own: modes, prepare/cleanup, options, errors, properties
mod fileio;
/// `iomark run` output against fio 3.33: text lines, units, JSON keys, fio result import
mod fio_compat;
/// SIGINT / SIGTERM / SIGKILL at known stop points
mod interrupts;
/// `iomark mark` and `iomark compare`: presets, tiny real runs, sizes, partial results, plots
mod mark;
/// property tests of the parsers (fileio options, fio options and job files, compare)
mod props;
/// the house rules on the source tree: dependencies between rooms, function length
mod architecture;
/// `iomark run` (fio-style jobs): command line, job files, engines, control, zones, verify
mod run;
/// what iomark must never do: follow symlinks, overwrite devices, accept bad invocations
mod safety;
/// `iomark fileio` against the real sysbench 1.0.20: counts, layout, sysbench's cram test
mod sysbench_compat;
