//! `--live` of `iomark run` and `iomark mark` (docs/commands/run.md, mark.md): a
//! full-screen view of the running command on a terminal. Its figures come from the run's
//! one sampler through run/live.rs (nothing here reads a counter); `q` or Ctrl-C stop the
//! run through the SIGINT path of run/signals.rs (partial result saved, exit 130). The
//! terminal is taken and put back in `term.rs`, the screen drawn in `view.rs`, the
//! figures worded in `format.rs`.
//!
//! Without a terminal on stdout `--live` is refused (exit 2) before anything runs.

pub mod format;
mod term;
pub mod view;

use crate::util::error::{exit, Error};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// `--live` without a terminal on stdout: one line naming the option, exit 2.
pub fn need_terminal(tag: &str) -> Result<(), Error> {
    if std::io::stdout().is_terminal() {
        return Ok(());
    }
    Err(Error::new(
        exit::INVALID,
        format!(
            "{tag}: --live needs a terminal on stdout (it is a pipe or a file); run without --live"
        ),
    ))
}

/// How often the view is redrawn when no sample arrives (the clock moves).
const REDRAW: Duration = Duration::from_millis(500);

/// Run `f` (the command's run) under the live view when `on`: the terminal is taken,
/// the view drawn from the samples while `f` runs, and the terminal put back, with what
/// the command wrote meanwhile, before this returns. `remaining` gives the seconds left
/// at the elapsed seconds it is handed (`None`: not known). A terminal that cannot be
/// taken runs `f` without the view, saying so on stderr.
pub fn around<T>(
    on: bool,
    title: &str,
    remaining: impl FnMut(u64) -> Option<u64> + Send,
    f: impl FnOnce() -> T,
) -> T {
    if !on {
        return f();
    }
    let rx = crate::run::live::attach();
    let (mut screen, w) = match term::Screen::take() {
        Ok(x) => x,
        Err(e) => {
            crate::run::live::detach();
            eprintln!("iomark: --live: cannot take the terminal ({e}); running without the view");
            return f();
        }
    };
    let done = AtomicBool::new(false);
    let r = std::thread::scope(|s| {
        let viewer = std::thread::Builder::new()
            .name("live".into())
            .spawn_scoped(s, || show(title, w, rx, remaining, &done));
        let r = f();
        done.store(true, Ordering::Release);
        if let Ok(h) = viewer {
            let _ = h.join();
        }
        r
    });
    crate::run::live::detach();
    screen.give_back();
    r
}

/// The view's thread: draw at every frame and every [`REDRAW`], read the keys, until
/// `done` (or the terminal was put back by a panic).
fn show(
    title: &str,
    w: std::fs::File,
    rx: std::sync::mpsc::Receiver<crate::run::live::Frame>,
    mut remaining: impl FnMut(u64) -> Option<u64>,
    done: &AtomicBool,
) {
    let backend = ratatui::backend::CrosstermBackend::new(std::io::BufWriter::new(w));
    let Ok(mut terminal) = ratatui::Terminal::new(backend) else {
        return;
    };
    let mut st = view::State::new(title);
    let t0 = Instant::now();
    let mut drawn: Option<Instant> = None;
    // test-only (docs/testing.md): a panic at the first drawing of the jobs' figures (a
    // frame: the jobs run), for the panic hook
    let panic_test = std::env::var_os("IOMARK_TEST_LIVE_PANIC").is_some();
    while !done.load(Ordering::Acquire) && term::active() {
        let mut fresh = false;
        while let Ok(f) = rx.try_recv() {
            st.push(f);
            fresh = true;
        }
        if fresh || drawn.is_none_or(|d| d.elapsed() >= REDRAW) {
            st.elapsed_s = t0.elapsed().as_secs();
            st.remaining_s = remaining(st.elapsed_s);
            if terminal.draw(|f| view::draw(f, &st)).is_err() {
                // the terminal is gone (a hang-up): the run goes on without the view
                return;
            }
            drawn = Some(Instant::now());
            assert!(
                !(panic_test && fresh),
                "IOMARK_TEST_LIVE_PANIC: the live view's test panic"
            );
        }
        if stop_key(Duration::from_millis(100)) && !st.stopping {
            st.stopping = true;
            drawn = None;
        }
    }
}

/// What stdin holds after waiting up to `wait`: a key to read (`Some(false)`), a
/// terminal that hung up (`Some(true)`: POLLHUP or an error), or nothing yet (`None`).
/// Stdin that is not a terminal (crossterm then reads /dev/tty) is left to crossterm:
/// `Some(false)` at once.
fn input(wait: Duration) -> Option<bool> {
    // SAFETY: isatty and poll(2) on descriptor 0, with a pollfd we own.
    unsafe {
        if libc::isatty(0) != 1 {
            return Some(false);
        }
        let mut p = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = wait.as_millis().min(i32::MAX as u128) as i32;
        if libc::poll(&mut p, 1, ms) != 1 {
            return None;
        }
        Some(p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0)
    }
}

/// Wait up to `wait` for a key; `q` and Ctrl-C stop the run as SIGINT does (every press:
/// a second one a second later exits at once, as a second Ctrl-C does).
fn stop_key(wait: Duration) -> bool {
    match input(wait) {
        None => return false,
        Some(true) => {
            // the terminal is gone (a closed window or SSH session: SIGHUP stops the
            // run); crossterm would read its end of file in a loop and never return
            std::thread::sleep(wait);
            return false;
        }
        Some(false) => {}
    }
    match event::poll(wait) {
        Ok(true) => {}
        Ok(false) => return false,
        Err(_) => {
            // no keys to read (no terminal on input): wait as the poll would have
            std::thread::sleep(wait);
            return false;
        }
    }
    let Ok(Event::Key(k)) = event::read() else {
        return false;
    };
    let ctrl_c = k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL);
    let q = matches!(k.code, KeyCode::Char('q') | KeyCode::Char('Q'));
    if k.kind == KeyEventKind::Press && (q || ctrl_c) {
        crate::run::signals::interrupt();
        return true;
    }
    false
}
