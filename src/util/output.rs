//! Standard output of every command, with one rule for write errors (the
//! stdout item; docs/safety.md "Exit codes"):
//!
//! - a closed pipe (`iomark … | head`, EPIPE) ends the output quietly: later writes are
//!   skipped, the command goes on (it still removes what it created) and exits with its
//!   own code, as ripgrep does;
//! - any other write error (ENOSPC on `/dev/full`, EIO) is remembered; at the end the binary prints
//!   one line on stderr, `iomark: cannot write the report to stdout: <strerror>` — or
//!   the help, the version, the completion script, the man page: what stdout was to
//!   hold ([`Holds`], set by the command that prints it) —, and
//!   exit code 0 becomes 1 (a command that failed anyway keeps its own code); the
//!   binary applies this with `crate::cli::exit_code` after [`flush`].
//!
//! Every stdout write goes through [`write`]: the `out!`/`outln!` macros, the
//! [`crate::util::console::Console`], help, completions and man pages. Each write is
//! flushed at once, so an error is seen by the write that caused it, never lost in a
//! buffer at exit.
//!
//! The names of the standard streams an output option may give ([`Stream`]: `-`,
//! `/dev/stdout`, `/dev/stderr`, `/dev/null`) are recognised here, once, for every
//! command; when the `--json` document takes stdout ([`reserve_for_document`]) every
//! other stdout text goes to stderr, so stdout holds the document alone.

use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// A standard stream named where an output file is expected (`--json`, `--output`,
/// `-o`, `--plot=FILE`): the stream itself (or nothing for `/dev/null`), never a file
/// iomark creates or replaces (docs/safety.md "Standard streams as outputs").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// `-`, `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`
    Stdout,
    /// `/dev/stderr`, `/dev/fd/2`, `/proc/self/fd/2`
    Stderr,
    /// `/dev/null`: the output is not written
    Null,
    /// `/dev/fd/N`, `/proc/self/fd/N` (N > 2) naming a pipe or character device this
    /// process already has open (bash's `>(cmd)`): written to as a stream
    Fd(i32),
}

impl Stream {
    /// The stream `p` names, spelled exactly so (`./-` is a file named `-`). A
    /// descriptor named through `/dev/fd/N` or `/proc/self/fd/N` is a stream only
    /// when it is open for writing on a pipe or a character device; any other (a
    /// regular file, a closed descriptor) is left to the file rules, which refuse the
    /// link.
    pub fn of(p: &Path) -> Option<Stream> {
        match p.to_str()? {
            "-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => Some(Stream::Stdout),
            "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => Some(Stream::Stderr),
            "/dev/null" => Some(Stream::Null),
            s => {
                let n = s
                    .strip_prefix("/dev/fd/")
                    .or_else(|| s.strip_prefix("/proc/self/fd/"))?;
                let fd: i32 = n
                    .parse()
                    .ok()
                    .filter(|_| n.bytes().all(|b| b.is_ascii_digit()))?;
                (fd > 2 && writable_stream(fd)).then_some(Stream::Fd(fd))
            }
        }
    }

    /// How the stream is named in messages: `stdout`, `stderr`, `/dev/null`, `/dev/fd/N`.
    pub fn name(self) -> String {
        match self {
            Stream::Stdout => "stdout".into(),
            Stream::Stderr => "stderr".into(),
            Stream::Null => "/dev/null".into(),
            Stream::Fd(n) => format!("/dev/fd/{n}"),
        }
    }

    /// Write `bytes` to the stream: stdout through [`write`] (its one rule for write
    /// errors), stderr ignoring a failure, `/dev/null` not at all, an inherited
    /// descriptor whole, its error returned (a reader gone away ends it quietly, as on
    /// stdout).
    pub fn write(self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Stream::Stdout => write(bytes),
            Stream::Stderr => {
                let _ = io::stderr().lock().write_all(bytes);
            }
            Stream::Null => {}
            Stream::Fd(n) => {
                use std::os::fd::FromRawFd;
                // borrowed: the descriptor stays open for the next write
                // SAFETY: `n` was open when the path was read and is never closed here
                let mut f = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(n) });
                return match f.write_all(bytes) {
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                    r => r,
                };
            }
        }
        Ok(())
    }
}

/// Whether descriptor `fd` is open for writing on a pipe (FIFO, socket) or a character
/// device.
fn writable_stream(fd: i32) -> bool {
    // SAFETY: fcntl and fstat only read the descriptor table; `st` is written by fstat
    let mode = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if mode < 0 || mode & libc::O_ACCMODE == libc::O_RDONLY {
        return false;
    }
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return false;
    }
    matches!(
        st.st_mode & libc::S_IFMT,
        libc::S_IFIFO | libc::S_IFCHR | libc::S_IFSOCK
    )
}

/// Whether stdout is reserved for a document (`--json=-`): [`write`] then goes to stderr.
static RESERVED: AtomicBool = AtomicBool::new(false);

/// From now on stdout carries one document (`--json=-`) written by [`write_document`];
/// every other stdout text ([`write`]: reports, live lines, notes) goes to stderr.
pub fn reserve_for_document() {
    RESERVED.store(true, Ordering::SeqCst);
}

/// What stdout holds, as the line of a failed write names it: a command's report
/// unless the command printed its help, its version, a completion script or a man
/// page instead (each sets it with [`holds`] before it writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// a command's report (the default)
    Report,
    /// `--help`, `help CMD`, `--cmdhelp`, a bare `iomark`
    Help,
    /// `--version`
    Version,
    /// `iomark completions SHELL`
    Completions,
    /// `iomark man [CMD]`
    Man,
}

impl Holds {
    /// The words of the line `cannot write WHAT to stdout`.
    pub fn name(self) -> &'static str {
        match self {
            Holds::Report => "the report",
            Holds::Help => "the help",
            Holds::Version => "the version",
            Holds::Completions => "the completion script",
            Holds::Man => "the man page",
        }
    }
}

static HOLDS: Mutex<Holds> = Mutex::new(Holds::Report);

/// Stdout holds `what` from now on (the help, the version …), as [`held`] says it.
pub fn holds(what: Holds) {
    *HOLDS.lock().unwrap_or_else(|p| p.into_inner()) = what;
}

/// What stdout holds ([`Holds::Report`] unless a command said otherwise).
pub fn held() -> Holds {
    *HOLDS.lock().unwrap_or_else(|p| p.into_inner())
}

/// What happened to stdout so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// every write so far succeeded
    Open,
    /// the reader went away (EPIPE): nothing more is written, nothing is said
    Closed,
    /// a write failed otherwise; the error text (strerror, e.g. "No space left on device")
    Failed(String),
}

static STATE: Mutex<State> = Mutex::new(State::Open);

/// A write met a closed pipe (EPIPE): [`State::Closed`] by the reader, not by
/// [`silence_unless`].
static MET_CLOSED_PIPE: AtomicBool = AtomicBool::new(false);

/// Record what a failed write left stdout in.
fn settle(st: &mut State, e: &io::Error) {
    *st = classify(e);
    if *st == State::Closed {
        MET_CLOSED_PIPE.store(true, Ordering::SeqCst);
    }
}

/// Whether a write to stdout met a closed pipe (a stdout silenced for a rank other than
/// 0 did not).
pub fn met_closed_pipe() -> bool {
    MET_CLOSED_PIPE.load(Ordering::SeqCst)
}

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The state a write error leaves stdout in.
pub fn classify(e: &io::Error) -> State {
    if e.kind() == io::ErrorKind::BrokenPipe {
        State::Closed
    } else {
        State::Failed(match e.raw_os_error() {
            Some(n) => crate::util::strerror(n),
            None => e.to_string(),
        })
    }
}

/// Write `bytes` to stdout and flush (to stderr while stdout is reserved for a
/// document: [`reserve_for_document`]). After the first error nothing more is written.
pub fn write(bytes: &[u8]) {
    if RESERVED.load(Ordering::SeqCst) {
        let _ = io::stderr().lock().write_all(bytes);
        return;
    }
    write_document(bytes);
}

/// Write `bytes` to stdout itself and flush, also while it is reserved for this
/// document. After the first error nothing more is written.
pub fn write_document(bytes: &[u8]) {
    let mut st = state();
    if *st != State::Open {
        return;
    }
    let mut o = io::stdout().lock();
    if let Err(e) = o.write_all(bytes).and_then(|()| o.flush()) {
        settle(&mut st, &e);
    }
}

/// [`write`] formatted text (the `out!` macro).
pub fn print(args: fmt::Arguments<'_>) {
    match args.as_str() {
        Some(s) => write(s.as_bytes()),
        None => write(args.to_string().as_bytes()),
    }
}

/// [`write`] formatted text and a newline (the `outln!` macro).
pub fn println(args: fmt::Arguments<'_>) {
    let mut s = args.to_string();
    s.push('\n');
    write(s.as_bytes());
}

/// Write formatted text to stderr in one write, ignoring a failure (a full disk, a
/// closed pipe): the crate's `eprintln!`/`eprint!` (src/lib.rs) and the binary's error
/// line. std's macros panic when stderr cannot be written; a diagnostic that cannot be
/// shown must not end the command (its cleanup and its exit code come first).
pub fn to_stderr(args: fmt::Arguments<'_>) {
    let text = match args.as_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(args.to_string()),
    };
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// The state of stdout so far.
pub fn current() -> State {
    state().clone()
}

/// Flush stdout and return its state: what the command's exit code must reflect
/// (`crate::cli::exit_code` applies the rule of the module header).
pub fn flush() -> State {
    let mut st = state();
    if *st == State::Open {
        if let Err(e) = io::stdout().lock().flush() {
            settle(&mut st, &e);
        }
    }
    st.clone()
}

/// End the process as a program that keeps SIGPIPE's default action ends when it
/// writes to a closed pipe: killed by SIGPIPE (a shell's status 141). Called at exit,
/// after the command's cleanup, by the fio persona when a write met a closed pipe
/// ([`met_closed_pipe`]), as fio 3.33 dies at that write; returns only if the signal
/// could not end the process.
pub fn end_killed_by_sigpipe() {
    end_killed_by(libc::SIGPIPE);
}

/// End the process as one killed by signal `sig` under its default action (a shell's
/// status 128 + `sig`), stdout flushed first: for a tool the persona speaks as that
/// keeps the signal's default action. Returns only if the signal could not end the
/// process.
pub fn end_killed_by(sig: libc::c_int) {
    flush();
    // SAFETY: plain libc calls on a local signal set; SIG_DFL makes the raised signal
    // end the process
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
}

/// Unless `keep`, write nothing more to stdout, quietly (as after a closed pipe): the
/// ranks other than 0 of a many-hosts run (src/ranks/), whose report rank 0 prints.
pub fn silence_unless(keep: bool) {
    if !keep {
        *state() = State::Closed;
    }
}

/// `println!` through [`write`]: never panics; see the module header for what happens
/// when stdout is a closed pipe or a full disk.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::util::output::write(b"\n")
    };
    ($($arg:tt)*) => {
        $crate::util::output::println(format_args!($($arg)*))
    };
}

/// `print!` through [`write`] (see [`outln!`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::util::output::print(format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_quiet_and_other_errors_are_named() {
        let epipe = io::Error::from_raw_os_error(libc::EPIPE);
        assert_eq!(classify(&epipe), State::Closed);
        let enospc = io::Error::from_raw_os_error(libc::ENOSPC);
        assert_eq!(
            classify(&enospc),
            State::Failed("No space left on device".into())
        );
    }

    #[test]
    fn the_standard_streams_are_named_one_way() {
        for p in ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            assert_eq!(Stream::of(Path::new(p)), Some(Stream::Stdout), "{p}");
        }
        for p in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"] {
            assert_eq!(Stream::of(Path::new(p)), Some(Stream::Stderr), "{p}");
        }
        assert_eq!(Stream::of(Path::new("/dev/null")), Some(Stream::Null));
        for p in [
            "./-",
            "--",
            "/dev/zero",
            "/dev/full",
            "out.json",
            "/dev/stdout/",
        ] {
            assert_eq!(Stream::of(Path::new(p)), None, "{p}");
        }
    }
}
