//! Executes a validated fileio job: `prepare`, `run`, `cleanup` in the order given,
//! printing sysbench's output through the console. Returns the process exit code.
//!
//! `run` (run.rs) owns the main thread's schedule; its worker threads (thread.rs) run
//! the one worker loop under sysbench's rules (run/worker/sysbench.rs), fed by the
//! shared generator (gen.rs) and sysbench's RNGs (rng.rs); what they share with the
//! main thread is shared.rs.

pub mod gen;
pub mod header;
mod progress;
pub mod rng;
pub use progress::rates_text;
mod run;
pub mod shared;
pub mod thread;

use crate::files::fileset;
use crate::job::sysbench::{Command, DataPattern, ExtraFlags, Fileio, Geometry};
use crate::result::{self, RunResult, Status};
use crate::run::signals::Signals;
use crate::run::sysbench::rng::{GlibcRandom, Xoroshiro128Plus};
use crate::util::console::level;
use crate::util::console::Console;
use crate::util::engines::Kind;
use crate::util::error::{exit, Error};
use std::sync::Arc;

/// What a fileio call shows and writes beyond its console lines, given by its front end
/// (cli/fileio/outputs.rs, with report/'s reporters and the output manager): the
/// outputs declared before any command runs and written with the result of `run`, and
/// sysbench's report, histogram and `--debug` lines and iomark's notes rendered from a
/// result. The schedule here decides when each is printed (the report before a later
/// `cleanup`'s lines, a checkpoint's report where it falls).
pub trait Emit {
    /// Declare the outputs of `job` (only when `run` is among its commands) before any
    /// command runs: a failed check is its FATAL line on `console` and the exit code,
    /// nothing written.
    fn declare(&mut self, job: &Fileio, console: &Console) -> Result<(), i32>;
    /// Whether the `--json` file still owes its result (declared, not yet written).
    fn json_pending(&self) -> bool;
    /// Write `r` into the declared outputs (`charts`: the `--plot` charts too), each
    /// chart written and each output that could not be written said on `console`;
    /// whether every output was written.
    fn save(&self, r: &RunResult, charts: bool, console: &Console) -> bool;
    /// sysbench's report of `r` (the end of `run`, a checkpoint).
    fn report(&self, r: &RunResult) -> String;
    /// sysbench's `--histogram` of `r`.
    fn histogram(&self, r: &RunResult) -> String;
    /// sysbench's `--debug` per-thread lines of `r`.
    fn threads(&self, r: &RunResult) -> String;
    /// iomark's notes block after the report of `r` (empty: nothing to say).
    fn notes(&self, r: &RunResult) -> String;
}

/// Execute every command of `job`; returns the exit code.
///
/// When `prepare` is among the commands and `--file-dir` does not exist, the directory
/// is created (one level: its parent must exist); it is removed again, when empty,
/// after a `cleanup` in the same call or a failure. A `--json` file is checked before
/// any command runs, and with `--file-io-mode=async` io_uring is probed before anything is
/// written (exit 3 when denied). When a signal interrupts `run`, or `prepare` or `run`
/// fails (exit 1 or 3), a `cleanup` asked for later in the same call still runs (the exit
/// code stays the failure's). A signal during `prepare` ends the call there: the files
/// written so far are kept for the next `prepare` to extend, as its notice says.
/// `emit` declares and writes the outputs and renders the reports.
pub fn execute(job: &Fileio, console: &Arc<Console>, emit: &mut dyn Emit) -> i32 {
    let signals = Signals::install();
    crate::ranks::arm(&signals.stop);
    // io_uring is checked before anything is written (no `prepare`, no --json rehearsal,
    // no --file-dir): a denied ring would otherwise only be found after `prepare`.
    if job.model.thread.engine == Kind::IoUring && job.settings.commands.contains(&Command::Run) {
        if let Err(msg) = crate::engine::io_uring::probe() {
            console.line(level::FATAL, &format!("FATAL: {msg}"));
            return exit::ENVIRONMENT;
        }
    }
    if let Err(code) = emit.declare(job, console) {
        return code;
    }
    let mut created_dir = false;
    if job.settings.commands.contains(&Command::Prepare) && !job.model.thread.dir.exists() {
        if let Err(e) = fileset::create_dir(&job.model.thread.dir) {
            console.line(
                level::FATAL,
                &format!(
                    "FATAL: cannot create --file-dir={}: {e} (its parent directory must exist)",
                    job.model.thread.dir.display()
                ),
            );
            return exit::ENVIRONMENT;
        }
        created_dir = true;
        console.err(&format!(
            "iomark: created directory {}",
            job.model.thread.dir.display()
        ));
    }
    let (code, by) = execute_commands(job, console, &signals, emit);
    if emit.json_pending() {
        // 'run' never came to its result (a failed or interrupted 'prepare', a check of
        // 'run' itself): the --json file gets a complete result saying so
        let interrupted = signals.exit_code().is_some();
        let status = match interrupted {
            true => Status::Interrupted,
            false => Status::Failed,
        };
        let why = not_run_why(by, interrupted, code);
        let r = stopped_result(job, status, why);
        emit.save(&r, false, console);
    }
    // remove_dir only removes an empty directory: a failed call leaves no directory it created.
    if created_dir && (job.settings.commands.last() == Some(&Command::Cleanup) || code != exit::OK)
    {
        fileset::remove_dir_if_empty(&job.model.thread.dir);
    }
    code
}

/// Run `job` (its `run` command only) and hand back its RunResult in memory, as
/// `mark` does for each of its tests, with what its recorder measured: the same checks
/// as [`execute`] before the run
/// (io_uring probed first), no `--json` file. `Err`: the exit code (the messages went
/// to `console`).
/// `live`, when given, gets the rates of each sample (`mark`'s bar shows them); `emit`
/// renders the reports (no outputs are declared).
pub fn run_for_result(
    job: &Fileio,
    console: &Arc<Console>,
    live: Option<Arc<crate::run::sampler::LiveRates>>,
    emit: &dyn Emit,
) -> Result<(RunResult, crate::result::Recorded), i32> {
    let signals = Signals::install();
    if job.model.thread.engine == Kind::IoUring {
        if let Err(msg) = crate::engine::io_uring::probe() {
            console.line(level::FATAL, &format!("FATAL: {msg}"));
            return Err(exit::ENVIRONMENT);
        }
    }
    match run::run(job, console, &signals, emit, (true, live)) {
        (exit::OK, Some(r)) => Ok(r),
        (exit::OK, None) => Err(exit::FAILED),
        (code, _) => Err(code),
    }
}

/// The JSON error of a call whose `run` never came to its result: the command that
/// stopped the call (`by`), whether a signal did, and the exit code.
fn not_run_why(by: Option<Command>, interrupted: bool, code: i32) -> String {
    match by {
        Some(Command::Prepare) if interrupted => {
            format!("interrupted during 'prepare' (exit {code}); 'run' did not start")
        }
        Some(Command::Prepare) => format!("'prepare' failed (exit {code}); 'run' did not start"),
        _ => format!("stopped before 'run' finished (exit {code})"),
    }
}

/// Run the commands in order; the exit code and the command that set it (`None` when
/// every command went well).
fn execute_commands(
    job: &Fileio,
    console: &Arc<Console>,
    signals: &Signals,
    emit: &dyn Emit,
) -> (i32, Option<Command>) {
    let mut code = exit::OK;
    let mut by = None;
    for cmd in &job.settings.commands {
        if code != exit::OK {
            // Interrupted or failed: only a cleanup the user asked for still runs; not
            // after invalid input (nothing was written then) nor after an interrupted
            // 'prepare' (its files are kept for the next 'prepare', as it said).
            let prepare_interrupted = by == Some(Command::Prepare) && signals.exit_code().is_some();
            if *cmd != Command::Cleanup || code == exit::INVALID || prepare_interrupted {
                continue;
            }
        }
        let c = match cmd {
            Command::Help => exit::OK,
            Command::Prepare => {
                let w =
                    progress::waiting(&job.settings, console, "prepare: writing the test files");
                let c = prepare(job, console, signals);
                progress::done(console, w);
                c
            }
            Command::Run => run::run(job, console, signals, emit, (false, None)).0,
            Command::Cleanup => {
                console.line(level::NOTICE, "Removing test files...");
                let w =
                    progress::waiting(&job.settings, console, "cleanup: removing the test files");
                // sysbench's code (0) whatever unlink says; iomark says what stayed
                for (name, e) in fileset::cleanup(&job.model.thread.dir, job.model.thread.files) {
                    console.err(&format!("iomark: cleanup: {name} was not removed: {e}"));
                }
                progress::done(console, w);
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
            if code != exit::OK {
                by = Some(*cmd);
            }
        }
    }
    (code, by)
}

/// Tell the user on stderr that a signal cut `what` short.
fn say_interrupted(console: &Console, signals: &Signals, what: &str) {
    if let Some(c) = signals.exit_code() {
        let line = crate::run::signals::interrupted_by(c, what);
        console.err(&format!("iomark: {line}"));
    }
}

fn geometry(job: &Fileio, console: &Console) -> Result<Geometry, i32> {
    job.geometry.clone().map_err(|e| {
        console.line(level::FATAL, &format!("FATAL: {e}"));
        exit::INVALID
    })
}

fn print_failure(console: &Console, f: &Error) -> i32 {
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

fn prepare(job: &Fileio, console: &Console, signals: &Signals) -> i32 {
    let g = match geometry(job, console) {
        Ok(g) => g,
        Err(c) => return c,
    };
    let model = &job.model;
    if let Err(f) = fileset::prepare_preflight(model, &g) {
        return print_failure(console, &f);
    }
    console.line(level::NOTICE, &header::prepare_summary(&g));
    if g.rounded() {
        console.line(
            level::NOTICE,
            &format!(
                "NOTE: per-file size rounded down to whole {}-byte blocks: {} bytes per file instead of {}; {} = {} bytes ({}) in total (the line above is sysbench's, in its rounded units)",
                g.block,
                g.file_size,
                g.raw_file_size,
                crate::util::text::plural(g.files, "file", "files"),
                g.total,
                crate::util::text::iec(g.total)
            ),
        );
    }
    console.line(level::NOTICE, "Creating files for the test...");
    console.line(
        level::NOTICE,
        &format!(
            "Extra file open flags: {}",
            ExtraFlags::of(&model.thread).describe()
        ),
    );
    let mut out = |l: String| console.line(level::NOTICE, &l);
    let mut content = prepare_content(job, g.block as usize);
    match fileset::prepare(model, &g, &mut out, &mut content, &signals.stop) {
        Ok(p) => {
            console.line(level::NOTICE, &header::prepare_done(p.bytes, p.seconds));
            let skipped = skipped_after(&job.settings.commands, Command::Prepare);
            say_interrupted(console, signals, &format!("prepare stopped early; the files written so far are kept and the next 'prepare' extends them{skipped}"));
            signals.exit_code().unwrap_or(exit::OK)
        }
        Err(f) => print_failure(console, &f),
    }
}

/// The bytes `prepare` writes at an offset of a file: sysbench's zeros, fresh random
/// bytes for every chunk (so no two blocks are alike: dedup, case C07), or with
/// `--validate` blocks that carry their checksum and offset. Zeros are written anew for
/// every chunk: the chunk before may hold an extended file's own last bytes.
fn prepare_content(job: &Fileio, block: usize) -> impl FnMut(&mut [u8], u64) {
    let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(std::process::id() ^ 0x5eed));
    let t = &job.model.thread;
    let (validate, random) = (t.validate, t.data == DataPattern::Random);
    move |buf: &mut [u8], offset: u64| {
        if validate {
            crate::run::verify::sysbench::fill(buf, offset, block, &mut rng);
        } else if random {
            rng.fill(buf);
        } else {
            buf.fill(0);
        }
    }
}

/// The commands after the first `stopped` in `commands`, as the end of a notice
/// ("; 'run' and 'cleanup' are skipped"); empty when none follow.
fn skipped_after(commands: &[Command], stopped: Command) -> String {
    let Some(i) = commands.iter().position(|c| *c == stopped) else {
        return String::new();
    };
    let names: Vec<String> = commands[i + 1..]
        .iter()
        .map(|c| format!("'{}'", c.name()))
        .collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => format!("; {one} is skipped"),
        [init @ .., last] => format!("; {} and {last} are skipped", init.join(", ")),
    }
}

/// The RunResult of a `run` that stopped before its workers started: zero counts,
/// `status` and the error text.
fn stopped_result(job: &Fileio, status: Status, error: String) -> RunResult {
    let empty = result::Threads::default();
    result::build(run::inputs(job, empty, status, Some(error), 0))
}

/// Print a failure that happened before the workers started and, with `--json`, leave
/// a `failed` RunResult (zero counts, the error text).
/// Under the `sysbench` persona a refusal is sysbench's exit 1, whatever iomark's code
/// (invalid input 2, the environment 3).
fn failed_before_start(job: &Fileio, console: &Console, f: &Error, emit: &dyn Emit) -> i32 {
    let code = print_failure(console, f);
    if emit.json_pending() {
        let r = stopped_result(job, Status::Failed, f.lines.join("\n"));
        emit.save(&r, false, console);
    }
    if job.settings.sysbench_only {
        exit::FAILED
    } else {
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupted_prepare_names_what_it_skips() {
        use Command::*;
        assert_eq!(
            skipped_after(&[Prepare, Run, Cleanup], Prepare),
            "; 'run' and 'cleanup' are skipped"
        );
        assert_eq!(
            skipped_after(&[Prepare, Cleanup], Prepare),
            "; 'cleanup' is skipped"
        );
        assert_eq!(
            skipped_after(&[Prepare, Run, Run, Cleanup], Prepare),
            "; 'run', 'run' and 'cleanup' are skipped"
        );
        assert_eq!(skipped_after(&[Prepare], Prepare), "");
        assert_eq!(skipped_after(&[Run], Prepare), "");
    }

    #[test]
    fn the_json_error_names_the_command_that_stopped_the_call() {
        assert_eq!(
            not_run_why(Some(Command::Prepare), true, 130),
            "interrupted during 'prepare' (exit 130); 'run' did not start"
        );
        assert_eq!(
            not_run_why(Some(Command::Prepare), false, 3),
            "'prepare' failed (exit 3); 'run' did not start"
        );
        assert_eq!(
            not_run_why(Some(Command::Run), false, 3),
            "stopped before 'run' finished (exit 3)"
        );
    }
}
