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
use crate::util::console::Console;
use crate::report::output::Outputs;
use crate::report::sysbench;
use crate::result::Status;
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
    crate::ranks::arm(&signals.stop);
    // io_uring is checked before anything is written (no `prepare`, no --json placeholder,
    // no --file-dir): a denied ring would otherwise only be found after `prepare`.
    if job.io_mode == IoMode::Async && job.commands.contains(&Command::Run) {
        if let Err(msg) = crate::engine::io_uring::probe() {
            console.line(level::FATAL, &format!("FATAL: {msg}"));
            return exit::ENVIRONMENT;
        }
    }
    let outs = match check_outputs(job, console) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut created_dir = false;
    if job.commands.contains(&Command::Prepare) && !job.dir.exists() {
        if let Err(e) = fileset::create_dir(&job.dir) {
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
    if outs.json_pending() {
        // 'run' never came to its result (a failed or interrupted 'prepare', a check of
        // 'run' itself): the placeholder becomes a complete result saying so
        let status = match signals.exit_code() {
            Some(_) => Status::Interrupted,
            None => Status::Failed,
        };
        let why = format!("stopped before 'run' finished (exit {code})");
        let r = run::stopped_result(job, job.geometry().ok().as_ref(), status, why);
        run::json_failure(console, &outs, &r);
    }
    // remove_dir only removes an empty directory: a failed call leaves no directory it created.
    if created_dir && (job.commands.last() == Some(&Command::Cleanup) || code != exit::OK) {
        fileset::remove_dir_if_empty(&job.dir);
    }
    code
}

/// Check `--json` (new, or a regular file with one link) and create the `--plot`
/// directory, then write the `--json` placeholder; both only when `run` is among the
/// commands. Exit 3 (nothing written) when a check fails.
fn check_outputs(job: &FileioJob, console: &Console) -> Result<Outputs, i32> {
    let runs = job.commands.contains(&Command::Run);
    let fatal = |m: String| {
        console.line(level::FATAL, &format!("FATAL: {m}"));
        exit::ENVIRONMENT
    };
    let mut outs = Outputs::new();
    match &job.json {
        Some(_) if !runs => {
            console.err("iomark: WARNING: --json writes the result of 'run'; no 'run' command was given, so no JSON file is written");
        }
        Some(p) => outs
            .json(p)
            .map_err(|e| fatal(format!("cannot write --json={}: {e}", p.display())))?,
        None => {}
    }
    if let Some(d) = job.plot.as_ref().filter(|_| runs) {
        outs.plots(d).map_err(fatal)?;
    }
    outs.placeholder().map_err(|e| {
        let p = outs.json_path().map_or(String::new(), |p| p.display().to_string());
        fatal(format!("cannot write --json={p}: {e}"))
    })?;
    Ok(outs)
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
                crate::job::units::iec(g.total)
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

