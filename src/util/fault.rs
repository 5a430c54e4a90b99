//! Test-only fault plans: the `IOMARK_FAULT` rules, their per-operation counters and the
//! `stop` point, shared by every room that does I/O — the engines' wrapper
//! (`engine::fault::Faulty`), the plain `std` loops of copy and tree, and the removals of
//! `files/` ([`io_hook`]). What may not live here: anything that names an engine type
//! (the wrapper and the engine read hook stay in src/engine/fault.rs).
//!
//! Enabled only by the environment variable `IOMARK_FAULT` (documented as test-only in
//! docs/testing.md, "Fault injection"), parsed once at startup by [`init`]. The registry
//! (engine/registry.rs) wraps every engine it builds while it is set; when it is unset
//! it hands out the plain monomorphised engines: no wrapper, no per-I/O cost.
//!
//! Grammar: comma-separated rules `OP:KIND@N` or `OP:KIND@N+`, where `OP` is `read`,
//! `write`, `fsync`, `unlink` (the removal of one of iomark's own files), `phase` (the
//! start of a command's N-th phase: a `mark` test; `stop` only) or `create` (the
//! creation of a name inside iomark's own scratch directory: mark's test file, tree's
//! entries; `stop` only); `KIND` is `eio`, `enospc`, `eintr`, `eagain`, `short`,
//! `corrupt`, `stop` or `slow`; `N ≥ 1` is the 1-based number of the operation of that kind, counted over
//! the whole process (all threads); `+` repeats the fault on every later operation.
//! Example: `IOMARK_FAULT=write:eio@100,fsync:eio@1,read:short@5`.
//!
//! What each fault does (the caller's reaction is documented in docs/safety.md, "Faults"):
//! - `eio`, `enospc`, `eintr`, `eagain`: the operation fails with that errno before any
//!   data moves, as a failing syscall does;
//! - `short` (read/write): half the request (rounded down to 512 bytes) is transferred
//!   and reported as a short transfer;
//! - `corrupt` (read only): the read completes, then one byte in the middle of the
//!   buffer is inverted (a silent corruption for `--validate` to catch);
//! - `stop`: the process sends itself SIGSTOP before the operation and continues it
//!   normally after SIGCONT (tests fill a disk or send a signal at a known point);
//! - `slow`: the operation runs normally after a [`SLOW`] sleep (tests show that a
//!   sync is inside the measured time).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Name of the environment variable that enables fault injection (tests only).
pub const ENV: &str = "IOMARK_FAULT";

/// Operation a rule counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// data read
    Read = 0,
    /// data write
    Write = 1,
    /// fsync/fdatasync/msync
    Fsync = 2,
    /// removal of one of iomark's own files (cleanup of a file set or scratch files)
    Unlink = 3,
    /// the start of a phase (a `mark` test, before its warm-up): `stop` only, so a test
    /// can signal between two phases whatever their I/O counts
    Phase = 4,
    /// the creation of a name inside one of iomark's own scratch directories (mark's
    /// test file, tree's directories and files): `stop` only, so a test can plant a
    /// link at an inner name after the directory exists and before iomark makes it
    Create = 5,
}

/// What happens to the chosen operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// fails with EIO
    Eio,
    /// fails with ENOSPC
    Enospc,
    /// fails with EINTR (callers retry)
    Eintr,
    /// fails with EAGAIN (callers retry)
    Eagain,
    /// transfers half the request
    Short,
    /// read completes, one byte of the buffer inverted
    Corrupt,
    /// the process stops itself (SIGSTOP) before the operation, which then runs
    /// normally after SIGCONT: lets a test change the world at a known point
    Stop,
    /// the operation runs normally after sleeping [`SLOW`]
    Slow,
}

/// Delay of the `slow` fault.
pub const SLOW: std::time::Duration = std::time::Duration::from_millis(300);

impl Kind {
    /// errno of an error-kind fault; `None` for `short` and `corrupt`.
    pub fn errno(self) -> Option<i32> {
        match self {
            Kind::Eio => Some(libc::EIO),
            Kind::Enospc => Some(libc::ENOSPC),
            Kind::Eintr => Some(libc::EINTR),
            Kind::Eagain => Some(libc::EAGAIN),
            Kind::Short | Kind::Corrupt | Kind::Stop | Kind::Slow => None,
        }
    }
}

/// One rule: `op:kind@nth` (`repeat`: also every later operation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// operation counted
    pub op: Op,
    /// fault injected
    pub kind: Kind,
    /// 1-based operation number
    pub nth: u64,
    /// `@N+`: every operation from the N-th on
    pub repeat: bool,
}

/// A parsed `IOMARK_FAULT` value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// the rules, in the order given
    pub rules: Vec<Rule>,
}

/// Parse an `IOMARK_FAULT` value. Errors name the rule and what is accepted.
pub fn parse(s: &str) -> Result<Plan, String> {
    let mut rules = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = |why: &str| {
            format!("{ENV}: invalid rule '{part}': {why} (accepted: OP:KIND@N[+], OP read|write|fsync|unlink|phase|create, KIND eio|enospc|eintr|eagain|short|corrupt|stop, N >= 1)")
        };
        let (op, rest) = part.split_once(':').ok_or_else(|| bad("missing ':'"))?;
        let (kind, n) = rest.split_once('@').ok_or_else(|| bad("missing '@N'"))?;
        let op = match op {
            "read" => Op::Read,
            "write" => Op::Write,
            "fsync" => Op::Fsync,
            "unlink" => Op::Unlink,
            "phase" => Op::Phase,
            "create" => Op::Create,
            _ => return Err(bad("unknown operation")),
        };
        let kind = match kind {
            "eio" => Kind::Eio,
            "enospc" => Kind::Enospc,
            "eintr" => Kind::Eintr,
            "eagain" => Kind::Eagain,
            "short" => Kind::Short,
            "corrupt" => Kind::Corrupt,
            "stop" => Kind::Stop,
            "slow" => Kind::Slow,
            _ => return Err(bad("unknown fault")),
        };
        if kind == Kind::Corrupt && op != Op::Read {
            return Err(bad("corrupt applies to read only"));
        }
        if matches!(op, Op::Phase | Op::Create) && kind != Kind::Stop {
            return Err(bad("phase and create take stop only"));
        }
        if kind == Kind::Short && matches!(op, Op::Fsync | Op::Unlink) {
            return Err(bad("short applies to read and write only"));
        }
        let (n, repeat) = match n.strip_suffix('+') {
            Some(n) => (n, true),
            None => (n, false),
        };
        let nth: u64 = n
            .parse()
            .ok()
            .filter(|&v| v >= 1)
            .ok_or_else(|| bad("N must be an integer >= 1"))?;
        rules.push(Rule {
            op,
            kind,
            nth,
            repeat,
        });
    }
    if rules.is_empty() {
        return Err(format!("{ENV}: no rule given (e.g. write:eio@100)"));
    }
    Ok(Plan { rules })
}

static PLAN: OnceLock<Option<Plan>> = OnceLock::new();

/// SIGINT/SIGTERM deliveries whose actions have all run (the stop flags are set by
/// then), counted by src/run/signals.rs. Read by the test-only `stop` fault so that a
/// signal sent while the process was stopped is handled before the next operation
/// starts ([`stop_here`]).
pub static HANDLED: AtomicU64 = AtomicU64::new(0);
static COUNTS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];

/// Read and parse `IOMARK_FAULT` once (call at startup). `Err` carries a one-line
/// message for exit code 2. Unset or empty: no fault injection.
pub fn init() -> Result<(), String> {
    let parsed = match std::env::var(ENV) {
        Ok(v) if !v.trim().is_empty() => Some(parse(&v)?),
        _ => None,
    };
    let _ = PLAN.set(parsed);
    Ok(())
}

/// The active plan, if fault injection is enabled.
pub fn plan() -> Option<&'static Plan> {
    PLAN.get_or_init(|| std::env::var(ENV).ok().and_then(|v| parse(&v).ok()))
        .as_ref()
}

/// True when fault injection is enabled (runners then wrap their engines).
pub fn enabled() -> bool {
    plan().is_some()
}

/// Count one `op` and answer the fault to inject into it, if any.
pub fn hit(op: Op) -> Option<Kind> {
    let plan = plan()?;
    let n = COUNTS[op as usize].fetch_add(1, Ordering::Relaxed) + 1;
    let kind = plan
        .rules
        .iter()
        .find(|r| r.op == op && (n == r.nth || (r.repeat && n > r.nth)))
        .map(|r| r.kind)?;
    if kind == Kind::Stop {
        stop_here();
        return None;
    }
    if kind == Kind::Slow {
        std::thread::sleep(SLOW);
        return None;
    }
    Some(kind)
}

/// The `stop` fault: SIGSTOP ourselves; after SIGCONT, wait (at most 2 s) until a
/// SIGINT/SIGTERM sent while we were stopped has been handled. Another thread (usually
/// the main one) takes the signal, so without the wait this thread could start the next
/// operation before the stop flag is set, and a test's "nothing after the signal
/// started" would depend on scheduling.
fn stop_here() {
    let before = HANDLED.load(Ordering::SeqCst);
    // SAFETY: raise(2) on our own process; execution resumes after SIGCONT.
    unsafe { libc::raise(libc::SIGSTOP) };
    let start = std::time::Instant::now();
    let mut idle = 0u32;
    while HANDLED.load(Ordering::SeqCst) == before
        && start.elapsed() < std::time::Duration::from_secs(2)
    {
        if stop_signal_pending() {
            idle = 0;
        } else {
            // not pending: none was sent, or one is between dequeue and its actions
            idle += 1;
            if idle > 50 {
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// True when a stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) is pending for this
/// thread or the process.
fn stop_signal_pending() -> bool {
    // SAFETY: sigpending fills the set we own; sigismember only reads it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        if libc::sigpending(&mut set) != 0 {
            return false;
        }
        [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT]
            .iter()
            .any(|&sig| libc::sigismember(&set, sig) == 1)
    }
}

/// Hook for plain `std` I/O loops (`copy`, `tree`): call before the operation. Errno
/// faults become `Err`; `eintr`/`eagain` are retried here (each retry counts as a new
/// operation) up to 100 times, as the fileio worker retries them, then returned;
/// `short`/`corrupt` are not modelled there (std's `write_all` and the read loops
/// already continue short transfers) and pass.
pub fn io_hook(op: Op) -> std::io::Result<()> {
    if PLAN.get().is_some_and(Option::is_none) {
        return Ok(());
    }
    for _ in 0..=100 {
        match hit(op).and_then(Kind::errno) {
            Some(e) if e == libc::EINTR || e == libc::EAGAIN => continue,
            Some(e) => return Err(std::io::Error::from_raw_os_error(e)),
            None => return Ok(()),
        }
    }
    Err(std::io::Error::from_raw_os_error(libc::EAGAIN))
}

/// The start of a phase (a `mark` test): counted, and stopped at when a `phase:stop`
/// rule names it.
pub fn phase_hook() {
    if !off() {
        let _ = hit(Op::Phase);
    }
}

/// Held from a creation's count to its end: under a fault plan, names are created one
/// at a time (see [`create_hook`]).
static CREATING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The creation of a name inside one of iomark's own scratch directories: counted, and
/// stopped at when a `create:stop` rule names it (a test plants a link at the name
/// meanwhile; the creation that follows must refuse it). Hold the guard until the name
/// is created: under a fault plan creations are serialised, so a thread stopped at the
/// N-th holds back every other thread's creation (tree's parallel walkers) and exactly
/// the N-th name is created between `create:stop@N` and `create:stop@N+1`; without a
/// plan the guard is `None` and nothing waits.
#[must_use = "hold the guard until the name is created"]
pub fn create_hook() -> Option<std::sync::MutexGuard<'static, ()>> {
    if off() {
        return None;
    }
    let held = CREATING.lock().unwrap_or_else(|e| e.into_inner());
    let _ = hit(Op::Create);
    Some(held)
}

/// True when the plan was read and is empty: hooks return at once.
pub fn off() -> bool {
    PLAN.get().is_some_and(Option::is_none)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules_and_rejects_bad_ones() {
        assert_eq!(
            parse("create:stop@2").unwrap().rules,
            vec![Rule {
                op: Op::Create,
                kind: Kind::Stop,
                nth: 2,
                repeat: false
            }]
        );
        let p = parse("write:eio@100, fsync:eio@1,read:short@5+").unwrap();
        assert_eq!(
            p.rules,
            vec![
                Rule {
                    op: Op::Write,
                    kind: Kind::Eio,
                    nth: 100,
                    repeat: false
                },
                Rule {
                    op: Op::Fsync,
                    kind: Kind::Eio,
                    nth: 1,
                    repeat: false
                },
                Rule {
                    op: Op::Read,
                    kind: Kind::Short,
                    nth: 5,
                    repeat: true
                },
            ]
        );
        for bad in [
            "",
            "write",
            "write:eio",
            "write:eio@0",
            "write:eio@x",
            "seek:eio@1",
            "write:boom@1",
            "write:corrupt@1",
            "fsync:short@1",
            "write:eio@-1",
            "create:eio@1",
            "phase:slow@1",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.starts_with("IOMARK_FAULT:"), "{bad}: {e}");
            assert!(!e.contains('\n'));
        }
        assert_eq!(parse("unlink:stop@2").unwrap().rules[0].op, Op::Unlink);
        assert!(parse("unlink:short@1").is_err());
        assert_eq!(parse("phase:stop@4").unwrap().rules[0].op, Op::Phase);
        assert!(parse("phase:eio@1").is_err());
    }
}
