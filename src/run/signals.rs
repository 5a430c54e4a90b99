//! The signals a terminal or a supervisor sends, one behaviour for every command
//! (docs/safety.md "Signals"). Handlers are installed once, at start-up
//! ([`Signals::install`] from `run::init`), so a signal during setup is seen too.
//!
//! - SIGINT, SIGTERM, SIGHUP (a closed terminal or SSH session), SIGQUIT: the first one
//!   asks every loop to stop; the partial result is printed and saved, iomark's own
//!   files are removed, and the exit code is 128 + the signal (130, 143, 129, 131).
//!   After SIGHUP a terminal on stdout/stderr is gone: those descriptors are pointed at
//!   `/dev/null` (a write to a hung-up terminal fails with EIO), files still get the
//!   result. Commands with no I/O loop (compare, diagnose, help) finish and exit with
//!   the signal's code.
//! - A second stop signal at least [`SECOND_AFTER_NS`] after the first says so on
//!   stderr and exits at once, leaving whatever files exist — except while a cleanup
//!   runs (`files::scratch::CLEANING`): the removal then finishes first and the line
//!   says so, so a set is never left half-removed without a word. Signals that arrive
//!   together count once: GNU `timeout` sends SIGTERM to the child and then to its
//!   process group, and a terminal's Ctrl-C reaches every process of the group.
//! - SIGUSR1 (fio's "show the status"): never ends a command; `run` prints a status
//!   line on stderr at its next tick, the fio persona fio's whole report of the run so
//!   far ([`take_status_request`], run/fio/group.rs).
//! - SIGINT, SIGHUP or SIGQUIT the parent left ignored stays ignored (the POSIX
//!   convention: `nohup` ignores SIGHUP, a non-interactive shell's background job or a
//!   script's `trap '' INT` SIGINT and SIGQUIT), so the run goes to its end
//!   ([`inherited_ignored`]), in every command and under the sysbench persona, as
//!   sysbench, which installs no handler, keeps it. SIGTERM is always armed (a
//!   supervisor's stop request). The fio persona arms SIGINT whatever it inherited, as
//!   fio 3.33 installs its handler for it ([`rearms_ignored`]).
//! - SIGPIPE stays ignored (Rust's start-up default): a closed pipe is the EPIPE of a
//!   write, handled by util/output.rs; a `kill -PIPE` changes nothing.

use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

// Stop-signal deliveries whose actions have all run, counted where the `stop` fault
// reads them (src/engine/fault.rs).
use crate::engine::fault::HANDLED;
use crate::files::scratch::CLEANING;

/// A second signal this long (1 s) after the first exits at once; earlier ones are the
/// same request (`timeout`'s SIGTERM to the child and to its group).
pub const SECOND_AFTER_NS: u64 = 1_000_000_000;

/// The signals that stop a command, each with its name.
pub const STOPPING: [(i32, &str); 4] = [
    (SIGINT, "SIGINT"),
    (SIGTERM, "SIGTERM"),
    (SIGHUP, "SIGHUP"),
    (SIGQUIT, "SIGQUIT"),
];

/// The one stderr wording of a command stopped by a signal, for every command:
/// `interrupted by SIGTERM: WHAT (exit 143)`; `code` is the exit code the signal gave
/// (128 + its number; a code no stopping signal gives is named `a signal`).
pub fn interrupted_by(code: i32, what: &str) -> String {
    let name = stopping_name(code - 128).unwrap_or("a signal");
    format!("interrupted by {name}: {what} (exit {code})")
}

/// The name of stopping signal `sig` (`SIGHUP`), `None` for another number.
fn stopping_name(sig: i32) -> Option<&'static str> {
    STOPPING.iter().find(|(s, _)| *s == sig).map(|(_, n)| *n)
}

/// CLOCK_MONOTONIC in ns (async-signal-safe: clock_gettime).
fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Flags set by the signal handlers (one set per process).
#[derive(Clone)]
pub struct Signals {
    /// set by a stop signal: stop as soon as possible
    pub stop: Arc<AtomicBool>,
    /// the first stop signal received (0: none)
    first: Arc<AtomicI32>,
    /// when it came (CLOCK_MONOTONIC ns)
    at: Arc<AtomicU64>,
    /// `/dev/null`, opened at install (-1: could not), for SIGHUP's [`detach_terminal`]
    null: i32,
    /// whether SIGINT has our handlers (not when the parent left it ignored)
    int_armed: Arc<AtomicBool>,
}

static INSTALLED: OnceLock<Signals> = OnceLock::new();
static STATUS: AtomicBool = AtomicBool::new(false);

/// Write `msg` on stderr from a handler (async-signal-safe: write(2)).
fn say(msg: &[u8]) {
    // SAFETY: write(2) of a buffer we own.
    unsafe { libc::write(2, msg.as_ptr().cast(), msg.len()) };
}

/// After SIGHUP: stdout and stderr that are a terminal point at `/dev/null` (`null`,
/// opened at install), so the report's writes do not fail with EIO.
fn detach_terminal(null: i32) {
    for fd in [1, 2] {
        // SAFETY: isatty and dup2 are async-signal-safe and act on descriptors only.
        unsafe {
            if null >= 0 && libc::isatty(fd) == 1 {
                libc::dup2(null, fd);
            }
        }
    }
}

impl Signals {
    /// The process's handlers, installed on the first call (then the same flags).
    pub fn install() -> Signals {
        INSTALLED.get_or_init(Signals::register).clone()
    }

    fn register() -> Signals {
        let s = Signals {
            stop: Arc::new(AtomicBool::new(false)),
            first: Arc::new(AtomicI32::new(0)),
            at: Arc::new(AtomicU64::new(0)),
            null: std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/null")
                .map(std::os::fd::IntoRawFd::into_raw_fd)
                .unwrap_or(-1),
            int_armed: Arc::new(AtomicBool::new(false)),
        };
        let fio = rearms_ignored();
        for (sig, _) in STOPPING {
            if sig == SIGTERM || (sig == SIGINT && fio) || !inherited_ignored(sig) {
                s.arm(sig);
                if sig == SIGINT {
                    s.int_armed.store(true, Ordering::SeqCst);
                }
            }
        }
        // SAFETY: only an atomic store, async-signal-safe.
        let _ = unsafe {
            signal_hook::low_level::register(SIGUSR1, || STATUS.store(true, Ordering::SeqCst))
        };
        s
    }

    /// Install the stop handlers of `sig`.
    fn arm(&self, sig: i32) {
        let (first, at, null) = (Arc::clone(&self.first), Arc::clone(&self.at), self.null);
        // SAFETY: the handler only uses atomics, clock_gettime(2), isatty(3),
        // dup2(2), write(2) and _exit(2), which are async-signal-safe.
        let _ = unsafe {
            signal_hook::low_level::register(sig, move || {
                if sig == SIGHUP {
                    detach_terminal(null);
                }
                let now = mono_ns();
                if first
                    .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    at.store(now, Ordering::SeqCst);
                } else if now.saturating_sub(at.load(Ordering::SeqCst)) >= SECOND_AFTER_NS {
                    if CLEANING.load(Ordering::SeqCst) > 0 {
                        say(b"iomark: second signal during cleanup: the removal of iomark's own files finishes first\n");
                    } else {
                        before_exit_at_once();
                        say(b"iomark: second signal: exiting at once; files created so far are left in place\n");
                        libc::_exit(128 + first.load(Ordering::SeqCst));
                    }
                }
            })
        };
        let _ = signal_hook::flag::register(sig, Arc::clone(&self.stop));
        // registered last: signal-hook runs a signal's actions in registration order
        // SAFETY: only an atomic add, async-signal-safe.
        let _ = unsafe {
            signal_hook::low_level::register(sig, || {
                HANDLED.fetch_add(1, Ordering::SeqCst);
            })
        };
    }

    /// Exit code for the stop signal received, if any: 128 + its number (130 SIGINT,
    /// 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT).
    pub fn exit_code(&self) -> Option<i32> {
        match self.first.load(Ordering::Relaxed) {
            0 => None,
            sig => Some(128 + sig),
        }
    }

    /// The name of the stop signal received, if any (`SIGHUP`).
    pub fn name(&self) -> Option<&'static str> {
        stopping_name(self.first.load(Ordering::Relaxed))
    }
}

/// What runs before a second signal's immediate exit: the `--live` view's terminal
/// restore (src/cli/live/), an async-signal-safe `fn()` stored as an address (0: none).
static AT_ONCE: AtomicUsize = AtomicUsize::new(0);

/// Run `f` before a second signal exits at once (`None`: nothing); `f` must be
/// async-signal-safe (termios, write(2), dup2(2) and atomics only).
pub fn before_exit_at_once_run(f: Option<fn()>) {
    AT_ONCE.store(f.map_or(0, |f| f as usize), Ordering::SeqCst);
}

fn before_exit_at_once() {
    let a = AT_ONCE.load(Ordering::SeqCst);
    if a != 0 {
        // SAFETY: `a` was stored from a `fn()` by before_exit_at_once_run
        let f: fn() = unsafe { std::mem::transmute::<usize, fn()>(a) };
        f();
    }
}

/// Stop the command as a SIGINT from the terminal does (the `--live` view's `q` and
/// Ctrl-C, whose raw mode keeps the terminal from sending it): the same handlers, the
/// same partial result, exit 130.
pub fn interrupt() {
    // a SIGINT the parent left ignored is armed now: the user asked for the stop here
    if let Some(s) = INSTALLED.get() {
        if !s.int_armed.swap(true, Ordering::SeqCst) {
            s.arm(SIGINT);
        }
    }
    // SAFETY: raise(3) sends a signal to this process; its SIGINT handlers are
    // installed (above, or by Signals::register)
    unsafe { libc::raise(SIGINT) };
}

/// Whether this process arms SIGINT although its parent left it ignored: the fio
/// persona (the binary named `fio`), as fio 3.33 installs its SIGINT handler whatever it
/// inherited (`kill -INT` of a script's `fio … &` stops it).
fn rearms_ignored() -> bool {
    crate::util::invoked_as().as_deref() == Some("fio")
}

/// Whether `sig` was ignored when this process started (its parent's `SIG_IGN`, kept
/// across exec: `nohup`, a non-interactive shell's `&`), read before any handler of
/// ours is installed and remembered, so later calls give the same answer.
pub fn inherited_ignored(sig: i32) -> bool {
    static IGNORED: OnceLock<Vec<i32>> = OnceLock::new();
    IGNORED
        .get_or_init(|| {
            STOPPING
                .iter()
                .map(|(s, _)| *s)
                .filter(|&s| {
                    // SAFETY: sigaction with a null new action only reads the current one
                    // into `old`, which we own.
                    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
                    let r = unsafe { libc::sigaction(s, std::ptr::null(), &mut old) };
                    r == 0 && old.sa_sigaction == libc::SIG_IGN
                })
                .collect()
        })
        .contains(&sig)
}

impl Signals {
    /// The handlers' flags, if [`Signals::install`] ran.
    pub fn installed() -> Option<&'static Signals> {
        INSTALLED.get()
    }
}

/// The exit code of the stop signal this process received, if any (handlers not
/// installed: none).
pub fn received() -> Option<i32> {
    INSTALLED.get().and_then(Signals::exit_code)
}

/// Whether a SIGUSR1 asked for a status line (or report) since the last call.
pub fn take_status_request() -> bool {
    STATUS.swap(false, Ordering::SeqCst)
}
