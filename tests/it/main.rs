//! The one integration-test binary: every test that runs the `iomark` binary (and the
//! house rules read from the source tree), grouped by what it checks. Shared helpers are
//! in `util`, one definition each. Tests of internals are unit tests beside their code
//! in src/. The few tests here that name `iomark::` items need something only this
//! binary has (the binary itself, `util`'s loop devices and peer tools): probes (atomic
//! write limits, device block sizes, poll queues), input for the binary (diagnose
//! fixture trees, a hand-built result to plot with the SVG reader the real runs use),
//! reading back what it wrote, fio's figures recomputed with iomark's num2str port, the
//! device guard's backstop on a loop device, and the walk over fio's example job files.
//! `bash tests/run.sh` runs this binary with the unit tests (`cargo test --profile ci`).

/// command builder, scratch directories, loop devices, peer tools, JSON and report readers
mod util;

/// the house rules on the source tree: dependencies between rooms, function length
mod architecture;
/// the public cases (../shared/cases/public-cases.md) of fileio and run, by case
mod cases;
/// `iomark copy` and `iomark tree`
mod copy_tree;
/// `iomark diagnose` through the binary: exit codes, JSON and text reports, this VM
mod diagnose;
/// injected faults and real ENOSPC: the run stops cleanly and reports what was done
mod faults;
/// `iomark fileio` on its own: modes, prepare/cleanup, options, errors, properties
mod fileio;
/// `iomark run` output against fio 3.33: text lines, units, JSON keys, fio result import
mod fio_compat;
/// the results history: kept runs, `iomark history`, `compare --baseline=last`
mod history;
/// docs/how-to-read-a-result.md: its examples run here and print what the page shows
mod howto;
/// SIGINT / SIGTERM / SIGKILL at known stop points
mod interrupts;
/// `--live`: the full-screen view of run and mark on a terminal (tmux), its keys and
/// the terminal left sane on every way out
mod live;
/// `iomark mark` and `iomark compare`: tiny real runs, sizes, partial results, plots
mod mark;
/// many hosts under MPI: four ranks of run and fileio (`--features mpi`), the refusals
mod mpi;
/// README.md's examples run and print what the README shows (numbers masked)
mod readme;
/// `iomark report`: the one-file HTML page in headless Chromium
mod report;
/// the result hub: fio's and sysbench's reports rendered from a built RunResult, byte
/// for byte; schema 1 files still read
mod result_hub;
/// `iomark run` (fio-style jobs): command line, job files, engines, control, zones, verify
mod run;
/// what iomark must never do: follow symlinks, overwrite devices, accept bad invocations
mod safety;
/// on a terminal only: fio's status line of `run`, the progress lines (captured in tmux)
mod status;
/// `iomark fileio` against the real sysbench 1.0.20: counts, layout, sysbench's cram test
mod sysbench_compat;
/// `iomark time -- CMD`: a command's process tree, its storage wait and the bound
mod time;
/// the truth warnings: sparse/fallocated files, memory targets, unsynced writes, RAM fit
mod truth;
/// a newcomer's path: help, completions, man pages, colour, stdout write errors
mod ux;
/// why this number: time breakdown, device view, the flush finding, fio's
/// sync block
mod why;
