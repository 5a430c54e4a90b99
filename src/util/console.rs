//! sysbench-style console: messages filtered by `--verbosity` (priorities in
//! [`level`]), identical consecutive info messages collapsed into `(last message
//! repeated N times)`. Its stdout goes through [`crate::util::output`] (a closed pipe ends the output quietly, a full disk
//! is reported once at exit); nothing here panics on a write error. While a live line is
//! drawn on the terminal (`fileio --progress`), every message is printed above it
//! ([`Console::set_live`]).

use crate::util::output;
use std::io::Write;
use std::sync::Mutex;

/// sysbench message priorities (`--verbosity` filters everything above the setting).
pub mod level {
    /// `FATAL:` messages.
    pub const FATAL: u8 = 0;
    /// `WARNING:` messages.
    pub const WARNING: u8 = 2;
    /// The banner, headers and reports.
    pub const NOTICE: u8 = 3;
    /// `Done.`, `Time limit exceeded, exiting...`.
    pub const INFO: u8 = 4;
    /// `DEBUG:` lines.
    pub const DEBUG: u8 = 5;
}

/// Shared console for the main thread and the workers.
pub struct Console {
    verbosity: u8,
    last: Mutex<(Option<String>, u32)>,
    /// print [`Console::err`] lines (false: a caller that words its own notes, `mark`)
    err: bool,
    /// the live line on the terminal, hidden while a message is printed
    live: Mutex<Option<indicatif::ProgressBar>>,
}

impl Console {
    /// A console printing messages with priority ≤ `verbosity`.
    pub fn new(verbosity: u8) -> Self {
        Console {
            verbosity,
            last: Mutex::new((None, 0)),
            err: true,
            live: Mutex::new(None),
        }
    }

    /// Print every message above `bar` (a live line on the terminal) until it is
    /// taken off (`None`).
    pub fn set_live(&self, bar: Option<indicatif::ProgressBar>) {
        *self.live.lock().unwrap_or_else(|e| e.into_inner()) = bar;
    }

    /// Run `print` with the live line, if any, hidden.
    fn above(&self, print: impl FnOnce()) {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner()).clone();
        match live {
            Some(b) => b.suspend(print),
            None => print(),
        }
    }

    /// Like [`Console::new`], but [`Console::err`] prints nothing: for `mark`, which runs
    /// fileio jobs inside its own report and words the interruption note itself.
    pub fn without_err(verbosity: u8) -> Self {
        Console {
            err: false,
            ..Console::new(verbosity)
        }
    }

    /// The verbosity in force.
    pub fn verbosity(&self) -> u8 {
        self.verbosity
    }

    fn flush_repeats(state: &mut (Option<String>, u32)) {
        if state.1 > 0 {
            output::println(format_args!("(last message repeated {} times)", state.1));
        }
        *state = (None, 0);
    }

    /// Print `text` (may span lines) at priority `level` on stdout.
    pub fn line(&self, level: u8, text: &str) {
        if level > self.verbosity {
            return;
        }
        self.raw(text);
    }

    /// Print a line regardless of verbosity (the histogram is printed with plain printf).
    pub fn raw(&self, text: &str) {
        self.above(|| {
            let mut st = self.last.lock().unwrap_or_else(|e| e.into_inner());
            Self::flush_repeats(&mut st);
            output::println(format_args!("{text}"));
        });
    }

    /// Print text without adding a newline (multi-line report blocks).
    pub fn block(&self, level: u8, text: &str) {
        if level > self.verbosity {
            return;
        }
        self.above(|| {
            let mut st = self.last.lock().unwrap_or_else(|e| e.into_inner());
            Self::flush_repeats(&mut st);
            output::write(text.as_bytes());
        });
    }

    /// An info message that collapses when repeated (e.g. each thread's
    /// `Time limit exceeded, exiting...`).
    pub fn collapsible(&self, level: u8, text: &str) {
        if level > self.verbosity {
            return;
        }
        let mut st = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if st.0.as_deref() == Some(text) {
            st.1 += 1;
            return;
        }
        self.above(|| {
            Self::flush_repeats(&mut st);
            output::println(format_args!("{text}"));
        });
        *st = (Some(text.to_string()), 0);
    }

    /// A line on stderr (never filtered).
    pub fn err(&self, text: &str) {
        if !self.err {
            return;
        }
        self.above(|| {
            let _ = writeln!(std::io::stderr().lock(), "{text}");
        });
    }
}
