//! SIGINT/SIGTERM handling: the first signal asks every loop to stop (partial results
//! are then printed and saved, exit 130/143); a second one says so on stderr and exits
//! at once, leaving whatever files exist.

use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
        for (sig, flag, code) in [
            (SIGINT, &s.int, crate::exit::SIGINT),
            (SIGTERM, &s.term, crate::exit::SIGTERM),
        ] {
            let first = Arc::clone(flag);
            // SAFETY: the handler only loads an atomic and calls write(2) and _exit(2),
            // which are async-signal-safe.
            let _ = unsafe {
                signal_hook::low_level::register(sig, move || {
                    if first.load(Ordering::SeqCst) {
                        let msg = b"iomark: second signal: exiting at once; files created so far are left in place\n";
                        libc::write(2, msg.as_ptr().cast(), msg.len());
                        libc::_exit(code);
                    }
                })
            };
            let _ = signal_hook::flag::register(sig, Arc::clone(flag));
            let _ = signal_hook::flag::register(sig, Arc::clone(&s.stop));
        }
        s
    }

    /// Exit code for the signal received, if any (130 for SIGINT, 143 for SIGTERM).
    pub fn exit_code(&self) -> Option<i32> {
        if self.int.load(Ordering::Relaxed) {
            Some(crate::exit::SIGINT)
        } else if self.term.load(Ordering::Relaxed) {
            Some(crate::exit::SIGTERM)
        } else {
            None
        }
    }
}
