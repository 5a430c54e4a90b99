//! SIGINT/SIGTERM handling: the first signal asks every loop to stop (partial results
//! are then printed and saved, exit 130/143); a second one at least [`SECOND_AFTER_NS`]
//! later says so on stderr and exits at once, leaving whatever files exist. Signals that
//! arrive together count once: GNU `timeout` sends SIGTERM to the child and then to its
//! process group, and a terminal's Ctrl-C reaches every process of the group.

use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

// SIGINT/SIGTERM deliveries whose actions have all run, counted where the `stop`
// fault reads them (src/engine/fault.rs).
use crate::engine::fault::HANDLED;

/// A second signal this long (1 s) after the first exits at once; earlier ones are the
/// same request (`timeout`'s SIGTERM to the child and to its group).
pub const SECOND_AFTER_NS: u64 = 1_000_000_000;

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

/// Flags set by the signal handlers.
#[derive(Clone)]
pub struct Signals {
    /// set by SIGINT or SIGTERM: stop as soon as possible
    pub stop: Arc<AtomicBool>,
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

impl Signals {
    /// Install the handlers (idempotent per process in practice: called once per command).
    pub fn install() -> Signals {
        let s = Signals {
            stop: Arc::new(AtomicBool::new(false)),
            int: Arc::new(AtomicBool::new(false)),
            term: Arc::new(AtomicBool::new(false)),
        };
        // one record for both signals: the first one's time
        let seen = Arc::new(AtomicBool::new(false));
        let at = Arc::new(AtomicU64::new(0));
        for (sig, flag, code) in [
            (SIGINT, &s.int, crate::util::error::exit::SIGINT),
            (SIGTERM, &s.term, crate::util::error::exit::SIGTERM),
        ] {
            let (seen, at) = (Arc::clone(&seen), Arc::clone(&at));
            // SAFETY: the handler only uses atomics, clock_gettime(2), write(2) and
            // _exit(2), which are async-signal-safe.
            let _ = unsafe {
                signal_hook::low_level::register(sig, move || {
                    let now = mono_ns();
                    if !seen.swap(true, Ordering::SeqCst) {
                        at.store(now, Ordering::SeqCst);
                    } else if now.saturating_sub(at.load(Ordering::SeqCst)) >= SECOND_AFTER_NS {
                        let msg = b"iomark: second signal: exiting at once; files created so far are left in place\n";
                        libc::write(2, msg.as_ptr().cast(), msg.len());
                        libc::_exit(code);
                    }
                })
            };
            let _ = signal_hook::flag::register(sig, Arc::clone(flag));
            let _ = signal_hook::flag::register(sig, Arc::clone(&s.stop));
            // registered last: signal-hook runs a signal's actions in registration order
            // SAFETY: only an atomic add, async-signal-safe.
            let _ = unsafe {
                signal_hook::low_level::register(sig, || {
                    HANDLED.fetch_add(1, Ordering::SeqCst);
                })
            };
        }
        s
    }

    /// Exit code for the signal received, if any (130 for SIGINT, 143 for SIGTERM).
    pub fn exit_code(&self) -> Option<i32> {
        if self.int.load(Ordering::Relaxed) {
            Some(crate::util::error::exit::SIGINT)
        } else if self.term.load(Ordering::Relaxed) {
            Some(crate::util::error::exit::SIGTERM)
        } else {
            None
        }
    }
}
