//! A terminal for the tests of what iomark shows only on a terminal (fio's status line,
//! the progress lines): a detached tmux session on its own server socket, 200 × 50,
//! running one shell command; [`Tmux::capture`] reads the screen, [`Tmux::wait_for`]
//! polls it until a condition holds (an event, bounded by a hang guard, never a sleep
//! deciding the verdict). The server is killed on drop, so a failing test leaves no
//! session behind.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The line the shell prints after the command, with its exit code.
pub const TMUX_EXIT: &str = "TMUX-EXIT=";

/// One tmux server with one session.
pub struct Tmux {
    socket: String,
}

/// Whether tmux is installed (tests/run.sh installs it).
pub fn have_tmux() -> bool {
    Command::new("tmux")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether a test must be skipped for want of tmux (said on stderr when so).
pub fn no_tmux() -> bool {
    let missing = !have_tmux();
    if missing {
        eprintln!("SKIPPED: tmux not installed (tests/run.sh installs it)");
    }
    missing
}

impl Tmux {
    /// Start `sh -c SCRIPT` in `dir` on a new terminal; the shell then prints
    /// [`TMUX_EXIT`] and the exit code and stays, so the screen can still be read.
    pub fn start(dir: &Path, script: &str) -> Tmux {
        static N: AtomicU32 = AtomicU32::new(0);
        let socket = format!(
            "iomark-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let t = Tmux { socket };
        let cmd = format!(
            "cd '{}' && {script}; echo {TMUX_EXIT}$?; exec sleep 3600",
            dir.display()
        );
        let ok = t
            .tmux(&[
                "new-session",
                "-d",
                "-x",
                "200",
                "-y",
                "50",
                "-s",
                "t",
                &cmd,
            ])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux new-session failed");
        t
    }

    fn tmux(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket, "-f", "/dev/null"]).args(args);
        c.stdout(Stdio::piped()).stderr(Stdio::null());
        c
    }

    /// The screen now (the history included, so nothing scrolled off is lost).
    pub fn capture(&self) -> String {
        let o = self
            .tmux(&["capture-pane", "-p", "-S", "-2000", "-t", "t"])
            .output()
            .expect("tmux capture-pane runs");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Poll the screen until `f` returns a value; panics (showing the screen) when
    /// `what` has not happened within `guard`, a hang guard far above the wait.
    pub fn wait_for<T>(
        &self,
        what: &str,
        guard: Duration,
        mut f: impl FnMut(&str) -> Option<T>,
    ) -> T {
        let t0 = Instant::now();
        loop {
            let screen = self.capture();
            if let Some(v) = f(&screen) {
                return v;
            }
            assert!(
                t0.elapsed() < guard,
                "{what}: not seen; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Type `keys` into the terminal (tmux's key names: `q`, `C-c`).
    pub fn send_keys(&self, keys: &str) {
        let ok = self
            .tmux(&["send-keys", "-t", "t", keys])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux send-keys {keys} failed");
    }

    /// A tmux format of the pane now, e.g. `#{alternate_on} #{cursor_flag}`.
    pub fn display(&self, format: &str) -> String {
        let o = self
            .tmux(&["display-message", "-p", "-t", "t", format])
            .output()
            .expect("tmux display-message runs");
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    /// Close the terminal, as a closed window or SSH session does: the session is
    /// killed, its processes get SIGHUP (the screen cannot be read after this).
    pub fn hang_up(&self) {
        let ok = self
            .tmux(&["kill-session", "-t", "t"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux kill-session failed");
    }

    /// Wait until the command ended; its exit code and the screen.
    pub fn finished(&self, guard: Duration) -> (i32, String) {
        self.wait_for("the command's end", guard, |s| {
            let code = s.lines().find_map(|l| l.trim().strip_prefix(TMUX_EXIT))?;
            Some((code.trim().parse().unwrap_or(-1), s.to_string()))
        })
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]).status();
    }
}
