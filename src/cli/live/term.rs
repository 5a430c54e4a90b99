//! The terminal of the `--live` view: taken (raw mode, alternate screen, cursor hidden)
//! and put back on every way out — the view's end, `q` or Ctrl-C (which stop the run as
//! SIGINT does, so they end the same way), SIGTERM, an error, a panic (a panic hook)
//! and a second signal's immediate exit (src/run/signals.rs calls [`restore_now`]).
//!
//! While the view is up, what the command writes on stdout and stderr (mark's table,
//! notes, warnings) would land on the view's screen and be lost with it: descriptors 1
//! and 2 are pointed at pipes, drained into memory by two threads, and written out in
//! full once the terminal is back. The view draws on a duplicate of the original
//! stdout. Nothing here opens a file: pipe(2) and dup(2) only.

use ratatui::crossterm::{cursor, execute, terminal};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Once, OnceLock};
use std::thread::JoinHandle;

/// The view's screen is up (what [`restore_now`] puts back is set).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The terminal (a duplicate of the original stdout), the original stdout and stderr.
static TTY: AtomicI32 = AtomicI32::new(-1);
static OUT: AtomicI32 = AtomicI32::new(-1);
static ERR: AtomicI32 = AtomicI32::new(-1);
/// The terminal's settings before raw mode.
static SAVED: OnceLock<libc::termios> = OnceLock::new();

/// What leaves the alternate screen and shows the cursor again.
const LEAVE: &[u8] = b"\x1b[?1049l\x1b[?25h";

/// Put the terminal back at once, async-signal-safe (termios, write(2), dup2(2) and
/// atomics only): its settings, the main screen, the cursor, and descriptors 1 and 2.
/// Once: later calls do nothing.
pub fn restore_now() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let tty = TTY.load(Ordering::SeqCst);
    // SAFETY: tcsetattr, write and dup2 on descriptors this module holds open.
    unsafe {
        if let Some(t) = SAVED.get() {
            libc::tcsetattr(tty, libc::TCSANOW, t);
        }
        libc::write(tty, LEAVE.as_ptr().cast(), LEAVE.len());
        libc::dup2(OUT.load(Ordering::SeqCst), 1);
        libc::dup2(ERR.load(Ordering::SeqCst), 2);
    }
}

/// Whether the view's screen is up (a panic hook may have put the terminal back).
pub fn active() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

/// The panic hook, installed once: the terminal is put back before the panic's message
/// is printed (on the real stderr), then the previous hook runs.
fn panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if ACTIVE.load(Ordering::SeqCst) {
                let _ = terminal::disable_raw_mode();
                restore_now();
            }
            prev(info)
        }));
    });
}

/// One of descriptors 1 and 2 pointed at a pipe; the thread that drains it.
struct Diverted {
    drain: JoinHandle<Vec<u8>>,
}

/// Point descriptor `fd` at a new pipe whose other end a thread reads into memory.
fn divert(fd: i32) -> std::io::Result<Diverted> {
    let mut p = [0i32; 2];
    // SAFETY: pipe2 fills the two descriptors of `p`.
    if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `p[0]` is the pipe's read end, owned from here by the File.
    let mut rd = unsafe { File::from_raw_fd(p[0]) };
    // SAFETY: dup2 and close of descriptors we own.
    unsafe {
        libc::dup2(p[1], fd);
        libc::close(p[1]);
    }
    let drain = std::thread::Builder::new()
        .name("live-drain".into())
        .spawn(move || {
            let mut buf = Vec::new();
            let _ = rd.read_to_end(&mut buf);
            buf
        })?;
    Ok(Diverted { drain })
}

/// The terminal while the view is up ([`Screen::take`]); [`Screen::give_back`] ends it.
pub struct Screen {
    diverted: Vec<(i32, Diverted)>,
}

/// A duplicate of descriptor `fd` (close-on-exec).
fn dup(fd: i32) -> std::io::Result<i32> {
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) on a descriptor of this process.
    match unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) } {
        -1 => Err(std::io::Error::last_os_error()),
        d => Ok(d),
    }
}

impl Screen {
    /// Take the terminal: raw mode, the alternate screen, no cursor, stdout and stderr
    /// diverted; the writer the view draws with.
    pub fn take() -> std::io::Result<(Screen, File)> {
        let _ = std::io::stdout().flush();
        let (tty, out, err) = (dup(1)?, dup(1)?, dup(2)?);
        // SAFETY: a termios filled by tcgetattr on the terminal.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(tty, &mut t) } == 0 {
            let _ = SAVED.set(t);
        }
        TTY.store(tty, Ordering::SeqCst);
        OUT.store(out, Ordering::SeqCst);
        ERR.store(err, Ordering::SeqCst);
        panic_hook();
        ACTIVE.store(true, Ordering::SeqCst);
        crate::run::signals::before_exit_at_once_run(Some(restore_now));
        // SAFETY: a descriptor just made by dup, owned by the File alone.
        let mut w = unsafe { File::from_raw_fd(dup(tty)?) };
        let taken = terminal::enable_raw_mode().and_then(|_| {
            let mut out = std::io::BufWriter::new(&mut w);
            execute!(out, terminal::EnterAlternateScreen, cursor::Hide)
        });
        let mut s = Screen { diverted: vec![] };
        if let Err(e) = taken {
            s.give_back();
            return Err(e);
        }
        for fd in [1, 2] {
            match divert(fd) {
                Ok(d) => s.diverted.push((fd, d)),
                Err(e) => {
                    s.give_back();
                    return Err(e);
                }
            }
        }
        Ok((s, w))
    }

    /// Put the terminal back and write what the command wrote meanwhile: its stdout,
    /// then its stderr.
    pub fn give_back(&mut self) {
        let _ = std::io::stdout().flush();
        let _ = terminal::disable_raw_mode();
        restore_now();
        crate::run::signals::before_exit_at_once_run(None);
        for held in [&TTY, &OUT, &ERR] {
            let fd = held.swap(-1, Ordering::SeqCst);
            if fd >= 0 {
                // SAFETY: a duplicate this module made, no longer used.
                unsafe { libc::close(fd) };
            }
        }
        for (fd, d) in self.diverted.drain(..) {
            let held = d.drain.join().unwrap_or_default();
            // SAFETY: `fd` (1 or 2) is open again; the File is forgotten, not closed.
            let mut f = std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
            let _ = f.write_all(&held);
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.give_back();
    }
}
