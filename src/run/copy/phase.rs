//! Pieces shared by the phase-shaped commands (`copy`, `tree`, and `mark`'s progress
//! bar): the error type and its exit codes, the progress bar, the phase-shaped
//! [`RunResult`], the JSON placeholder and directory checks.

use crate::exit;
use crate::files::output::Output;
use crate::result::{self, JobInfo, Phase, RunResult, Status};
use crate::run::signals::Signals;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io;
use std::path::Path;

/// The partial report of `iomark copy` after an error or a signal: one row per phase
/// that finished (name, requests, seconds, MB/s = 10^6 bytes/s, MiB/s = 2^20 bytes/s),
/// the same figures its JSON holds. Prints nothing when no phase finished.
pub fn print_partial(phases: &[Phase]) {
    if phases.is_empty() {
        return;
    }
    crate::outln!("\nphases finished before the stop:");
    crate::outln!(
        "{:<26} {:>9} {:>9} {:>10} {:>10}",
        "phase",
        "requests",
        "seconds",
        "MB/s",
        "MiB/s"
    );
    for p in phases {
        crate::outln!(
            "{:<26} {:>9} {:>9.3} {:>10.1} {:>10.1}",
            p.name,
            p.ops,
            p.seconds,
            p.mb_per_s,
            p.mib_per_s
        );
    }
    crate::outln!("MB = 1000000 bytes, MiB = 1048576 bytes; *_durable includes the final fsync.");
}

/// What stopped a copy or tree run; maps to an exit code with [`RunError::code`].
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// bad input (exit 2)
    #[error("{0}")]
    Invalid(String),
    /// the environment cannot do it (exit 3)
    #[error("{0}")]
    Env(String),
    /// an I/O error or a verification failure (exit 1)
    #[error("{0}")]
    Failed(String),
    /// SIGINT/SIGTERM
    #[error("interrupted")]
    Interrupted,
}

impl RunError {
    /// Exit code (DESIGN.md policy); `sig` is the code of the signal received.
    pub fn code(&self, sig: Option<i32>) -> i32 {
        match self {
            RunError::Invalid(_) => exit::INVALID,
            RunError::Env(_) => exit::ENVIRONMENT,
            RunError::Failed(_) => exit::FAILED,
            RunError::Interrupted => sig.unwrap_or(exit::SIGINT),
        }
    }
}

/// A progress bar on stderr, drawn only when stderr is a terminal (hidden otherwise).
pub fn bar(len: u64, msg: &str, bytes: bool) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let tpl = if bytes {
        "{msg:>22} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
    } else {
        "{msg:>22} [{bar:30}] {pos}/{len} {per_sec} eta {eta}"
    };
    if let Ok(s) = ProgressStyle::with_template(tpl) {
        b.set_style(s.progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b
}

/// A progress bar on stderr (hidden when stderr is not a terminal) for a run of `len`
/// timed steps (mark's test loops): what runs now (`set_message`) and the time elapsed,
/// not a step rate, which says nothing for steps of fixed length.
pub fn steps_bar(len: u64, msg: &str) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    steps_style(
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()),
        msg,
    )
}

/// The look of [`steps_bar`]: the message, the bar, the elapsed time.
fn steps_style(b: ProgressBar, msg: &str) -> ProgressBar {
    if let Ok(s) = ProgressStyle::with_template("{msg:>30} [{bar:30}] {elapsed_precise} elapsed") {
        b.set_style(s.progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b
}

/// A phase-shaped [`RunResult`] (`copy`, `tree`): the fileio sections stay empty,
/// the numbers are in `phases`.
pub fn phase_result(
    command: &str,
    argv: &[String],
    job: JobInfo,
    status: Status,
    error: Option<String>,
    elapsed_s: f64,
    phases: Vec<Phase>,
) -> RunResult {
    RunResult {
        schema_version: result::SCHEMA_VERSION,
        tool: "iomark".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: command.into(),
        argv: argv.to_vec(),
        status,
        error,
        job,
        elapsed_s,
        period_s: elapsed_s,
        events: phases.iter().map(|p| p.ops).sum(),
        read: Default::default(),
        write: Default::default(),
        fsync: Default::default(),
        lat: Default::default(),
        threads: vec![],
        intervals: vec![],
        page_cache: None,
        warnings: vec![],
        diagnosis: None,
        phases,
        clat: None,
        series: None,
        cpu: None,
    }
}

/// How a phase-shaped command ended: report the error (or the interruption) on stderr
/// as `iomark CMD: …` and give the result status, error text and exit code.
pub fn outcome(
    cmd: &str,
    removed: &str,
    r: &Result<(), RunError>,
    signals: &Signals,
) -> (Status, Option<String>, i32) {
    match r {
        Ok(()) => (Status::Ok, None, exit::OK),
        Err(RunError::Interrupted) => {
            eprintln!("iomark {cmd}: interrupted; {removed}");
            (
                Status::Interrupted,
                None,
                RunError::Interrupted.code(signals.exit_code()),
            )
        }
        Err(e) => {
            eprintln!("iomark {cmd}: {e}");
            (Status::Failed, Some(e.to_string()), e.code(None))
        }
    }
}

/// Write the `{"status": "running"}` placeholder so a bad `--json` path fails before work.
pub fn json_placeholder(path: &Path) -> Result<(), RunError> {
    Output::create(path)
        .and_then(|o| o.prefill(&result::placeholder_bytes()))
        .map_err(|e| RunError::Env(format!("--json={}: {e}", path.display())))
}

/// Write the final result `res` of `iomark {cmd}` into `--json=path` (old content or
/// the complete result). Returns the exit code: `code`, or 1 when the file could not
/// be written and the run would have succeeded (the reason is one line on stderr).
pub fn save_json(cmd: &str, path: &Path, res: &RunResult, code: i32) -> i32 {
    match Output::create(path).and_then(|o| o.commit(&result::json_bytes(res))) {
        Ok(()) => code,
        Err(e) => {
            eprintln!("iomark {cmd}: cannot write --json={}: {e}", path.display());
            if code == exit::OK {
                exit::FAILED
            } else {
                code
            }
        }
    }
}

/// Check a directory argument: it must exist, be a directory and be writable.
/// `what` is `SRC`, `DST` or `DIR` for the messages.
pub fn check_dir(what: &str, dir: &Path) -> Result<(), RunError> {
    let md = std::fs::metadata(dir).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => {
            RunError::Env(format!("{what} '{}' does not exist", dir.display()))
        }
        _ => RunError::Env(format!("{what} '{}': {}", dir.display(), short(&e))),
    })?;
    if !md.is_dir() {
        // exit 3 like a missing directory, and like `mark PATH` and `fileio --file-dir`
        return Err(RunError::Env(format!(
            "{what} '{}' is not a directory (iomark creates its own files in a directory; it never reads or changes yours)",
            dir.display()
        )));
    }
    let c = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(dir.as_os_str()))
        .map_err(|_| RunError::Invalid(format!("{what}: path contains a NUL byte")))?;
    // SAFETY: access(2) with a valid C string.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        let e = io::Error::last_os_error();
        return Err(RunError::Env(format!(
            "cannot create files in {what} '{}': {}",
            dir.display(),
            short(&e)
        )));
    }
    Ok(())
}

/// OS error text without the "(os error N)" suffix.
pub fn short(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(n) => crate::files::strerror(n),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A terminal that keeps what is drawn.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> io::Result<()> {
            self.write_str(&format!("{s}\n"))
        }
        fn write_str(&self, s: &str) -> io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn mark_progress_shows_the_test_and_the_elapsed_time_not_a_rate() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let b = steps_style(ProgressBar::with_draw_target(Some(4), target), "preparing");
        b.set_message("SEQ1M Q8T1 read loop 1/3");
        b.inc(1);
        b.finish();
        let drawn = screen.0.lock().unwrap().clone();
        let last = drawn.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
        assert!(last.contains("SEQ1M Q8T1 read loop 1/3"), "{drawn:?}");
        assert!(last.contains("00:00:00 elapsed"), "{drawn:?}");
        assert!(!last.contains("/s") && !last.contains("1/4"), "no step rate or count: {last:?}");
    }
}
