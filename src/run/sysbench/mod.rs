//! Executes a validated fileio job: `prepare`, `run`, `cleanup` in the order given,
//! printing sysbench's output through the console. Returns the process exit code.
//!
//! `run` owns the main thread's schedule: it releases the workers through a barrier,
//! then sleeps on a condition variable until all workers finish or the next interval
//! line, checkpoint or forced-shutdown deadline is due. No polling sits on the timed path.

pub mod gen;
pub mod rng;
mod run;
pub mod worker;

use crate::cli::fileio::level;
use crate::exit;
use crate::files::fileset;
use crate::job::sysbench::{Command, FileioJob, Geometry, IoMode};
use crate::report::console::Console;
use crate::report::output::Outputs;
use crate::report::sysbench;
use crate::run::signals::Signals;
use std::sync::Arc;

/// Execute every command of `job`; returns the exit code.
///
/// When `prepare` is among the commands and `--file-dir` does not exist, the directory
/// is created (one level: its parent must exist); it is removed again, when empty,
/// after a `cleanup` in the same call or a failure. A `--json` file is checked before
/// any command runs, and with `--file-io-mode=async` io_uring is probed before anything is
/// written (exit 3 when denied). When a signal interrupts `prepare` or `run`, or either
/// fails (exit 1 or 3), a `cleanup` asked for later in the same call still runs (the exit
/// code stays the failure's).
pub fn execute(job: &FileioJob, console: &Arc<Console>) -> i32 {
    let signals = Signals::install();
    // io_uring is checked before anything is written (no `prepare`, no --json placeholder,
    // no --file-dir): a denied ring would otherwise only be found after `prepare`.
    if job.io_mode == IoMode::Async && job.commands.contains(&Command::Run) {
        if let Err(msg) = crate::engine::io_uring::probe() {
            console.line(level::FATAL, &format!("FATAL: {msg}"));
            return exit::ENVIRONMENT;
        }
    }
    let mut outs = Outputs::new();
    if let Some(p) = &job.json {
        if !job.commands.contains(&Command::Run) {
            console.err("iomark: WARNING: --json writes the result of 'run'; no 'run' command was given, so no JSON file is written");
        } else if let Err(e) = outs.json(p) {
            let m = format!("FATAL: cannot write --json={}: {e}", p.display());
            console.line(level::FATAL, &m);
            return exit::ENVIRONMENT;
        }
    }
    if let Some(d) = job
        .plot
        .as_ref()
        .filter(|_| job.commands.contains(&Command::Run))
    {
        if let Err(e) = outs.plots(d) {
            console.line(level::FATAL, &format!("FATAL: {e}"));
            return exit::ENVIRONMENT;
        }
    }
    let mut created_dir = false;
    if job.commands.contains(&Command::Prepare) && !job.dir.exists() {
        if let Err(e) = std::fs::create_dir(&job.dir) {
            console.line(
                level::FATAL,
                &format!(
                    "FATAL: cannot create --file-dir={}: {e} (its parent directory must exist)",
                    job.dir.display()
                ),
            );
            return exit::ENVIRONMENT;
        }
        created_dir = true;
    }
    let code = execute_commands(job, console, &signals, &outs);
    // remove_dir only removes an empty directory: a failed call leaves no directory it created.
    if created_dir && (job.commands.last() == Some(&Command::Cleanup) || code != exit::OK) {
        let _ = std::fs::remove_dir(&job.dir);
    }
    code
}

fn execute_commands(
    job: &FileioJob,
    console: &Arc<Console>,
    signals: &Signals,
    outs: &Outputs,
) -> i32 {
    let mut code = exit::OK;
    for cmd in &job.commands {
        if code != exit::OK {
            // Interrupted or failed: only a cleanup the user asked for still runs
            // (not after invalid input: nothing was written then).
            if *cmd != Command::Cleanup || code == exit::INVALID {
                continue;
            }
        }
        let c = match cmd {
            Command::Help => exit::OK,
            Command::Prepare => prepare(job, console, signals),
            Command::Run => run::run(job, console, signals, outs),
            Command::Cleanup => {
                console.line(level::NOTICE, "Removing test files...");
                fileset::cleanup(&job.dir, job.file_num);
                exit::OK
            }
        };
        if code == exit::OK {
            code = c;
            if code == exit::OK {
                if let Some(sig) = signals.exit_code() {
                    code = sig;
                }
            }
        }
    }
    code
}

/// Tell the user on stderr that a signal cut `what` short.
fn say_interrupted(console: &Console, signals: &Signals, what: &str) {
    if let Some(c) = signals.exit_code() {
        let name = if c == exit::SIGTERM {
            "SIGTERM"
        } else {
            "SIGINT"
        };
        console.err(&format!("iomark: interrupted by {name}: {what} (exit {c})"));
    }
}

fn geometry(job: &FileioJob, console: &Console) -> Result<Geometry, i32> {
    job.geometry().map_err(|e| {
        console.line(level::FATAL, &format!("FATAL: {e}"));
        exit::INVALID
    })
}

fn print_failure(console: &Console, f: &fileset::Failure) -> i32 {
    for l in &f.lines {
        let lvl = if l.starts_with("WARNING") {
            level::WARNING
        } else {
            level::FATAL
        };
        console.line(lvl, l);
    }
    f.code
}

fn prepare(job: &FileioJob, console: &Console, signals: &Signals) -> i32 {
    let g = match geometry(job, console) {
        Ok(g) => g,
        Err(c) => return c,
    };
    if let Err(f) = fileset::prepare_preflight(job, &g) {
        return print_failure(console, &f);
    }
    console.line(level::NOTICE, &sysbench::prepare_summary(&g));
    if g.rounded() {
        console.line(
            level::NOTICE,
            &format!(
                "NOTE: per-file size rounded down to whole {}-byte blocks: {} bytes per file instead of {}; {} files = {} bytes ({}) in total (the line above is sysbench's, in its rounded units)",
                g.block,
                g.file_size,
                g.raw_file_size,
                g.files,
                g.total,
                crate::job::values::iec(g.total)
            ),
        );
    }
    console.line(level::NOTICE, "Creating files for the test...");
    console.line(
        level::NOTICE,
        &format!("Extra file open flags: {}", job.extra_flags.describe()),
    );
    let mut out = |l: String| console.line(level::NOTICE, &l);
    match fileset::prepare(job, &g, &mut out, &signals.stop) {
        Ok(p) => {
            console.line(level::NOTICE, &sysbench::prepare_done(p.bytes, p.seconds));
            say_interrupted(console, signals, "prepare stopped early; the files written so far are kept and the next 'prepare' extends them");
            signals.exit_code().unwrap_or(exit::OK)
        }
        Err(f) => print_failure(console, &f),
    }
}

