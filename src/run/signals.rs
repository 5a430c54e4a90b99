//! SIGINT/SIGTERM handling: the first signal asks every loop to stop (partial results
//! are then printed and saved, exit 130/143); a second one exits at once.

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
            let _ = signal_hook::flag::register_conditional_shutdown(sig, code, Arc::clone(flag));
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
