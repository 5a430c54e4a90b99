//! Pieces shared by the phase-shaped commands (`copy`, `tree`, and `mark`'s progress
//! bar): the error type and its exit codes, the progress bar, the live lines a run
//! hands to its front end ([`Live`]), what a run returns ([`PhaseRun`]), how it ended
//! ([`outcome`]) and the directory checks. They print nothing: the front end
//! (cli/copy.rs, cli/tree.rs) prints the live lines, the report (report/copy_text.rs,
//! report/tree_text.rs) and the closing line.

use crate::result::{RunResult, Status};
use crate::util::error::exit;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io;
use std::path::{Path, PathBuf};

/// A line a run gives its front end while it runs: the start line (stdout) or a
/// warning (stderr).
pub enum Live {
    /// for stdout
    Out(String),
    /// for stderr
    Err(String),
}

/// What a phase-shaped run produced.
pub struct PhaseRun {
    /// the result (the phases that finished, status, warnings, diagnoses)
    pub result: RunResult,
    /// exit code
    pub code: i32,
    /// files left in place (`--keep`) after a successful run
    pub kept: Vec<PathBuf>,
    /// lines for stderr after the report: files that could not be removed, then how
    /// the run ended when it did not end well (`iomark CMD: …`)
    pub closing: Vec<String>,
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
        "{msg:>22} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}, {elapsed} elapsed, {eta} left"
    } else {
        "{msg:>22} [{bar:30}] {pos}/{len} {per_sec} (IOPS), {elapsed} elapsed, {eta} left"
    };
    if let Ok(s) = ProgressStyle::with_template(tpl) {
        b.set_style(s.progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b
}

/// A byte progress bar on stderr (hidden when stderr is not a terminal) for a copy in
/// requests of `block` bytes: done and total, MB/s, IOPS, elapsed and remaining time.
pub fn bytes_bar(len: u64, msg: &str, block: u64) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bytes_style(b, msg, block)
}

/// The look of [`bytes_bar`].
fn bytes_style(b: ProgressBar, msg: &str, block: u64) -> ProgressBar {
    let tpl = "{msg:>22} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {iops} IOPS, {elapsed} elapsed, {eta} left";
    let iops = move |st: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = write!(w, "{:.0}", st.per_sec() / block.max(1) as f64);
    };
    if let Ok(s) = ProgressStyle::with_template(tpl) {
        b.set_style(s.with_key("iops", iops).progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b
}

/// A phase that waits (a final fsync, a cache drop, a cleanup): one line on stderr
/// (hidden when stderr is not a terminal) saying what it waits for and for how long
/// so far, redrawn ten times a second so it never looks frozen; `finish_and_clear`
/// removes it.
pub fn waiting(what: &str) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    waiting_style(
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
        what,
    )
}

/// The look of [`waiting`].
fn waiting_style(b: ProgressBar, what: &str) -> ProgressBar {
    if let Ok(s) = ProgressStyle::with_template("{spinner} {msg} ({elapsed} so far)") {
        b.set_style(s);
    }
    b.set_message(what.to_string());
    b.enable_steady_tick(std::time::Duration::from_millis(100));
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

/// The look of [`steps_bar`]: the message (mark puts the last loop's MB/s and IOPS
/// in it), the bar, the elapsed and remaining time; redrawn ten times a second, so
/// the clock moves during a long loop or the preparation of the test file.
fn steps_style(b: ProgressBar, msg: &str) -> ProgressBar {
    if let Ok(s) = ProgressStyle::with_template(
        "{msg:>30} [{bar:30}] {elapsed_precise} elapsed, {eta_precise} left",
    ) {
        b.set_style(s.progress_chars("=> "));
    }
    b.set_message(msg.to_string());
    b.enable_steady_tick(std::time::Duration::from_millis(100));
    b
}

/// `mark`'s bar: a [`steps_bar`] that also shows the current MB/s and IOPS of the test
/// running (the last sample of its run, run/sampler.rs [`LiveRates`]), the time left in
/// the test (its warm-up and loops, from when it started) and in the whole run (the
/// tests not yet started at their planned length), both counting down, and the time
/// elapsed: every time in one format, `HH:MM:SS`.
pub struct MarkBar {
    /// the bar (hidden when stderr is not a terminal)
    pub bar: ProgressBar,
    /// the rates of the running test's samples
    pub live: std::sync::Arc<crate::run::sampler::LiveRates>,
    /// when the running test and the whole run should end
    ends: std::sync::Arc<std::sync::Mutex<Ends>>,
}

/// The planned ends of mark's bar.
#[derive(Clone, Copy, Debug, Default)]
struct Ends {
    /// the running test's end
    test: Option<std::time::Instant>,
    /// the run's end, known from the first test's start
    all: Option<std::time::Instant>,
    /// the whole run's planned seconds, shown before the first test starts (while the
    /// test file is prepared)
    planned_s: u64,
}

impl MarkBar {
    /// A bar of `len` timed steps planned to last `planned_s` seconds (hidden when
    /// stderr is not a terminal).
    pub fn new(len: u64, msg: &str, planned_s: u64) -> MarkBar {
        use std::io::IsTerminal;
        let bar = if std::io::stderr().is_terminal() {
            ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        Self::on(bar, msg, planned_s)
    }

    fn on(bar: ProgressBar, msg: &str, planned_s: u64) -> MarkBar {
        let mut m = MarkBar {
            bar,
            live: Default::default(),
            ends: std::sync::Arc::new(std::sync::Mutex::new(Ends {
                planned_s,
                ..Ends::default()
            })),
        };
        m.bar = mark_style(m.bar.clone(), msg, &m);
        m
    }

    /// A test that lasts about `secs` seconds starts now, with `after` planned seconds
    /// of tests after it.
    pub fn test_starts(&self, secs: u64, after: u64) {
        let now = std::time::Instant::now();
        let d = std::time::Duration::from_secs;
        let mut e = self.ends.lock().unwrap_or_else(|e| e.into_inner());
        e.test = Some(now + d(secs));
        e.all = Some(now + d(secs + after));
        drop(e);
        self.live.clear();
    }
}

/// `s` seconds as `HH:MM:SS`, the one time format of mark's bar.
fn hms(s: u64) -> String {
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The countdown to `end`: `HH:MM:SS left` rounded up to the next whole second, so a
/// test with time left never shows `00:00:00` (a 1 s test showed it for all its
/// second); `ending` once the planned end has passed (the last I/O and the loop's
/// result are being collected).
fn left(end: std::time::Instant) -> String {
    countdown(end.saturating_duration_since(std::time::Instant::now()))
}

/// [`left`] of a remaining duration.
fn countdown(rem: std::time::Duration) -> String {
    if rem.is_zero() {
        return "ending".into();
    }
    let secs = rem.as_secs() + u64::from(rem.subsec_nanos() > 0);
    format!("{} left", hms(secs))
}

/// The look of [`MarkBar`]: the message, the bar, the current rates, the time left in
/// the test and in the whole run, the time elapsed; redrawn ten times a second.
fn mark_style(b: ProgressBar, msg: &str, m: &MarkBar) -> ProgressBar {
    let (live, ends) = (m.live.clone(), m.ends.clone());
    let rates = move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&crate::run::sysbench::rates_text(live.get()));
    };
    let get = move || *ends.lock().unwrap_or_else(|e| e.into_inner());
    let get2 = get.clone();
    let test_left = move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&get().test.map_or_else(|| "not started".into(), left));
    };
    let all_left = move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
        let e = get2();
        let planned = || countdown(std::time::Duration::from_secs(e.planned_s));
        let _ = w.write_str(&e.all.map_or_else(planned, left));
    };
    let elapsed = |st: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
        let _ = w.write_str(&hms(st.elapsed().as_secs()));
    };
    if let Ok(s) = ProgressStyle::with_template(
        "{msg:>30} [{bar:20}] {rates}, test {test_left}, all {all_left}, {run_elapsed} elapsed",
    ) {
        b.set_style(
            s.with_key("rates", rates)
                .with_key("test_left", test_left)
                .with_key("all_left", all_left)
                .with_key("run_elapsed", elapsed)
                .progress_chars("=> "),
        );
    }
    b.set_message(msg.to_string());
    b.enable_steady_tick(std::time::Duration::from_millis(100));
    b
}

/// How a phase-shaped command ended: the result status, error text and exit code,
/// and the line for stderr (`iomark CMD: …`) when it did not end well; `sig` is the
/// exit code of the signal received, if any.
fn outcome(
    cmd: &str,
    removed: &str,
    r: &Result<(), RunError>,
    sig: Option<i32>,
) -> (Status, Option<String>, i32, Option<String>) {
    match r {
        Ok(()) => (Status::Ok, None, exit::OK, None),
        Err(RunError::Interrupted) => (
            Status::Interrupted,
            None,
            RunError::Interrupted.code(sig),
            Some(format!(
                "iomark {cmd}: {}",
                crate::run::signals::interrupted_by(RunError::Interrupted.code(sig), removed)
            )),
        ),
        Err(e) => (
            Status::Failed,
            Some(e.to_string()),
            e.code(None),
            Some(format!("iomark {cmd}: {e}")),
        ),
    }
}

/// What a phase-shaped run did, for [`ended`].
pub struct Done<'a> {
    /// `copy` or `tree`
    pub cmd: &'a str,
    /// argv after the command word
    pub argv: &'a [String],
    /// what the cleanup removed, for the interrupted line
    pub removed: &'a str,
    /// when it started
    pub t0: std::time::Instant,
    /// the phases that finished
    pub phases: Vec<crate::result::Phase>,
    /// its warnings
    pub warnings: Vec<crate::result::Warning>,
    /// the device view's readings at the start (probe/devstat.rs), finished after
    /// the cleanup: the view covers the whole run, the removal of iomark's files
    /// included (after an error or a signal that is real I/O of the run)
    pub watch: crate::probe::devstat::Watch,
}

/// The end of a phase-shaped run `r`: remove what it created (`scratch`), say how it
/// ended; the builder's inputs (status, error, elapsed time, phases, warnings), the
/// closing lines for stderr and the exit code.
pub fn ended(
    d: Done,
    r: &Result<(), RunError>,
    scratch: &mut crate::files::scratch::Scratch,
    sig: Option<i32>,
) -> (crate::result::Inputs, Vec<String>, i32) {
    let mut closing: Vec<String> = scratch
        .cleanup()
        .iter()
        .map(|e| format!("iomark {}: {e}", d.cmd))
        .collect();
    let view = d.watch.finish();
    let (status, error, code, line) = outcome(d.cmd, d.removed, r, sig);
    closing.extend(line);
    let mut i = crate::result::Inputs::new(d.cmd, d.argv, status);
    i.error = error;
    i.elapsed_s = d.t0.elapsed().as_secs_f64();
    // the rates' period is the measured phases' time, not the wall time (which holds
    // the checks between phases and the cleanup, also after an interrupt)
    i.recorded = crate::result::Recorded::totals(
        Default::default(),
        Default::default(),
        Some(measured_secs(&d.phases)),
    );
    i.phases = d.phases;
    i.warnings = d.warnings;
    i.device_view = Some(view);
    (i, closing, code)
}

/// The line said on stderr as a run a signal (`sig`: its exit code) stopped starts
/// removing what it created, which takes seconds for a tree of many files (so the wait
/// after Ctrl-C is not silent); `None` without a signal or with nothing to remove. It
/// names no count: the names registered for removal include some never created.
pub fn removing_line(
    cmd: &str,
    scratch: &crate::files::scratch::Scratch,
    sig: Option<i32>,
) -> Option<String> {
    if sig.is_none() || scratch.is_empty() {
        return None;
    }
    Some(format!(
        "iomark {cmd}: stopping: removing the files and directories it created"
    ))
}

/// The seconds the phases that ran measured: a phase-shaped result's `period_s`.
pub fn measured_secs(phases: &[crate::result::Phase]) -> f64 {
    phases.iter().map(|p| p.seconds).sum()
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
    crate::util::errno::describe(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn the_removing_line_comes_after_a_signal_with_something_to_remove() {
        let d = tempfile::tempdir().unwrap();
        let mut s = crate::files::scratch::Scratch::new();
        assert_eq!(removing_line("tree", &s, Some(130)), None);
        s.create_dir(&d.path().join("a")).unwrap();
        drop(s.create_file(&d.path().join("a/f"), false).unwrap());
        assert_eq!(removing_line("tree", &s, None), None);
        assert_eq!(
            removing_line("tree", &s, Some(143)).as_deref(),
            Some("iomark tree: stopping: removing the files and directories it created")
        );
        assert!(s.cleanup().is_empty());
    }

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

    /// What a bar drew last on the test terminal.
    fn last_line(screen: &Screen) -> String {
        let drawn = screen.0.lock().unwrap().clone();
        drawn
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string()
    }

    #[test]
    fn copy_bar_shows_rate_iops_elapsed_and_remaining_time() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let b = bytes_style(
            ProgressBar::with_draw_target(Some(1 << 20), target),
            "buffered_128k",
            128 << 10,
        );
        b.inc(512 << 10);
        b.tick();
        let last = last_line(&screen);
        for want in [
            "buffered_128k",
            "512.00 KiB/1.00 MiB",
            " IOPS, ",
            " elapsed, ",
            " left",
        ] {
            assert!(last.contains(want), "{want:?} in {last:?}");
        }
        b.finish_and_clear();
    }

    #[test]
    fn a_wait_says_what_it_waits_for_and_its_clock_moves() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let w = waiting_style(
            ProgressBar::with_draw_target(None, target),
            "final fsync of the copy: waiting for the device",
        );
        // the steady tick redraws without any call: wait for a second draw (an event)
        let first = screen.0.lock().unwrap().len();
        let t0 = std::time::Instant::now();
        while screen.0.lock().unwrap().len() == first {
            assert!(t0.elapsed().as_secs() < 30, "never redrawn");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let last = last_line(&screen);
        assert!(
            last.contains("final fsync of the copy: waiting for the device"),
            "{last:?}"
        );
        assert!(last.contains("so far)"), "{last:?}");
        w.finish_and_clear();
    }

    /// mark's countdown rounds up: a 1 s test never shows `00:00:00 left` while it
    /// runs, and says `ending` once its planned end has passed.
    #[test]
    fn the_countdown_never_shows_zero_while_time_is_left() {
        let ms = std::time::Duration::from_millis;
        assert_eq!(countdown(ms(1000)), "00:00:01 left");
        assert_eq!(countdown(ms(300)), "00:00:01 left");
        assert_eq!(countdown(ms(1)), "00:00:01 left");
        assert_eq!(countdown(ms(1200)), "00:00:02 left");
        assert_eq!(countdown(ms(3_723_000)), "01:02:03 left");
        assert_eq!(countdown(ms(0)), "ending");
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
        let last = drawn
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        assert!(last.contains("SEQ1M Q8T1 read loop 1/3"), "{drawn:?}");
        assert!(last.contains("00:00:00 elapsed"), "{drawn:?}");
        assert!(last.contains(" left"), "{drawn:?}");
        assert!(
            !last.contains("/s") && !last.contains("1/4"),
            "no step rate or count: {last:?}"
        );
    }
}
