//! The binary under test as a command builder ([`Iomark`]) and what one invocation
//! printed ([`Out`]). Every run has a timeout (a hang fails the test instead of the
//! suite), drains both pipes on threads (a chatty child never blocks) and starts without
//! `IOMARK_FAULT` unless the test asks for a fault. Also the stop-point machinery of the
//! fault injector: spawn a child that stops itself (`IOMARK_FAULT=OP:stop@N`), wait
//! until it is stopped, signal it, collect its output. And stdout on `/dev/full` or a
//! closed pipe ([`Sink`], [`run_to`]).

use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Path of the binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_iomark");

/// How long one invocation may take by default: a hang guard, far above any run here.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// Exit code (-1 when killed by a signal: never mistaken for iomark's own 130 / 143),
/// the signal that killed it, stdout and stderr of one invocation.
#[derive(Debug, Clone)]
pub struct Out {
    pub code: i32,
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    pub fn from_output(o: Output) -> Out {
        use std::os::unix::process::ExitStatusExt;
        Out {
            code: o.status.code().unwrap_or(-1),
            signal: o.status.signal(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// What is wrong with how the process ended, for a hazard cell: a panic, or an exit
    /// code other than `code`; `None` when it ended as it should.
    pub fn ended_wrong(&self, code: i32) -> Option<String> {
        if self.code == 101 || self.stderr.contains("panicked") {
            return Some(format!("panic: {}", self.dump()));
        }
        (self.code != code)
            .then(|| format!("exit {} (want {code}): {}", self.code, self.stderr.trim()))
    }

    /// stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// stdout and stderr together (sysbench's FATAL lines may go to either).
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// The JSON document on stdout, after the lines fio prints before it (its section
    /// lines, a `fio: pid=…` line); panics with both streams when there is none.
    #[track_caller]
    pub fn json_doc(&self) -> Value {
        let at = self
            .stdout
            .find('{')
            .unwrap_or_else(|| panic!("{}", self.dump()));
        serde_json::from_str(&self.stdout[at..]).unwrap_or_else(|e| panic!("{e}: {}", self.dump()))
    }

    /// Exit code and both streams, for failure messages.
    pub fn dump(&self) -> String {
        format!(
            "exit code {}\n--- stdout:\n{}\n--- stderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    /// Assert exit 0 (the message shows both streams); a copy, to chain on.
    #[track_caller]
    pub fn ok(&self) -> Out {
        assert_eq!(self.code, 0, "{}", self.dump());
        self.clone()
    }

    /// stdout parsed as one JSON document (fio's `--output-format=json`).
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e})\n{}", self.dump()))
    }

    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(self.code, code, "unexpected exit code\n{}", self.dump());
        self
    }

    #[track_caller]
    pub fn expect_contains(&self, needle: &str) -> &Self {
        assert!(
            self.all().contains(needle),
            "output lacks {needle:?}\n{}",
            self.dump()
        );
        self
    }

    #[track_caller]
    pub fn expect_lacks(&self, needle: &str) -> &Self {
        assert!(
            !self.all().contains(needle),
            "output unexpectedly contains {needle:?}\n{}",
            self.dump()
        );
        self
    }

    /// stderr is exactly one non-blank line containing every needle, and no panic.
    #[track_caller]
    pub fn one_line_error(&self, needles: &[&str]) {
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        let lines: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        assert_eq!(lines.len(), 1, "one line expected: {}", self.stderr);
        for n in needles {
            assert!(lines[0].contains(n), "{n:?} not in {:?}", lines[0]);
        }
    }
}

/// A command line for the binary under test (or, with [`Iomark::program`], for a peer
/// tool), run with a timeout.
pub struct Iomark {
    cmd: Command,
    timeout: Duration,
}

impl Default for Iomark {
    fn default() -> Self {
        Self::new()
    }
}

/// The child starts with the stop signals at their default action, whatever the test
/// runner inherited (a non-interactive shell's `&` ignores SIGINT and SIGQUIT, `nohup`
/// SIGHUP): iomark keeps an inherited `SIG_IGN` (src/run/signals.rs), and the signal
/// tests must reach its handlers.
pub fn default_stop_signals(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: signal(2) is async-signal-safe; the closure touches nothing else.
    unsafe {
        cmd.pre_exec(|| {
            for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGTERM] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        });
    }
}

impl Iomark {
    /// `iomark` with the test's working directory, without `IOMARK_FAULT` and without
    /// `IOMARK_TEST_PROBE_ROOT` (test hooks a test sets itself).
    pub fn new() -> Iomark {
        let mut cmd = Command::new(BIN);
        cmd.env_remove("IOMARK_FAULT");
        cmd.env_remove("IOMARK_TEST_PROBE_ROOT");
        default_stop_signals(&mut cmd);
        Iomark {
            cmd,
            timeout: TIMEOUT,
        }
    }

    /// Any other program (sysbench, fio, prlimit), with the same timeout and capture.
    pub fn program(name: impl AsRef<OsStr>) -> Iomark {
        let mut cmd = Command::new(name);
        default_stop_signals(&mut cmd);
        Iomark {
            cmd,
            timeout: TIMEOUT,
        }
    }

    pub fn dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Self {
        self.cmd.arg(a);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Self {
        self.cmd.env(k, v);
        self
    }

    pub fn envs<'a>(mut self, kv: &[(&'a str, &'a str)]) -> Self {
        for (k, v) in kv {
            self.cmd.env(k, v);
        }
        self
    }

    pub fn env_remove(mut self, k: impl AsRef<OsStr>) -> Self {
        self.cmd.env_remove(k);
        self
    }

    /// `IOMARK_FAULT=spec` (the test-only fault injector); an empty spec sets nothing.
    pub fn fault(self, spec: &str) -> Self {
        if spec.is_empty() {
            self
        } else {
            self.env("IOMARK_FAULT", spec)
        }
    }

    /// Anything else on the underlying command (`pre_exec` of a seccomp filter).
    pub fn configure(mut self, f: impl FnOnce(&mut Command)) -> Self {
        f(&mut self.cmd);
        self
    }

    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// Run to the end (stdin empty) and collect the output; panics after the timeout.
    pub fn run(self) -> Out {
        run_cmd(self.cmd, self.timeout)
    }

    /// Run to the end and hand the output to assert_cmd's assertions.
    pub fn assert(self) -> assert_cmd::assert::Assert {
        use assert_cmd::assert::OutputAssertExt;
        run_output(self.cmd, self.timeout).assert()
    }

    /// The command itself, for plumbing the builder does not do (stdout on /dev/full, a
    /// closed pipe or a terminal); it runs without the timeout.
    pub fn command(self) -> Command {
        self.cmd
    }

    /// Start it with stdin empty and both streams piped (for signals and stop points).
    pub fn spawn(mut self) -> Child {
        self.cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn iomark")
    }

    /// Start it with `input` on stdin; the output is collected like [`Iomark::run`].
    pub fn run_with_stdin(mut self, input: &str) -> Out {
        use std::io::Write;
        self.cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("spawn iomark");
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_string();
        let feed = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let out = wait_output(child, self.timeout, &format!("{:?}", self.cmd));
        feed.join().unwrap();
        Out::from_output(out)
    }
}

/// `iomark ARGS` in `dir`.
pub fn iomark(dir: &Path, args: &[&str]) -> Out {
    Iomark::new().dir(dir).args(args).run()
}

/// `iomark run ARGS` in `dir`.
pub fn run(dir: &Path, args: &[&str]) -> Out {
    Iomark::new().dir(dir).arg("run").args(args).run()
}

/// `iomark fileio ARGS` in `dir`.
pub fn fileio(dir: &Path, args: &[&str]) -> Out {
    Iomark::new().dir(dir).arg("fileio").args(args).run()
}

/// `iomark run ARGS` in `dir` with `IOMARK_FAULT=fault` (nothing when empty).
pub fn run_fault(dir: &Path, fault: &str, args: &[&str]) -> Out {
    Iomark::new()
        .dir(dir)
        .fault(fault)
        .arg("run")
        .args(args)
        .run()
}

/// `iomark ARGS` in `dir` with `IOMARK_FAULT=fault` (nothing when empty).
pub fn iomark_fault(dir: &Path, fault: &str, args: &[&str]) -> Out {
    Iomark::new().dir(dir).fault(fault).args(args).run()
}

/// Run any prepared command (environment, cwd, args set by the caller) with a timeout.
pub fn run_cmd(cmd: Command, timeout: Duration) -> Out {
    Out::from_output(run_output(cmd, timeout))
}

fn run_output(mut cmd: Command, timeout: Duration) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"));
    wait_output(child, timeout, &format!("{cmd:?}"))
}

/// Wait for `child` (streams piped), draining stdout and stderr on threads; kill it and
/// panic after `timeout`.
fn wait_output(mut child: Child, timeout: Duration, what: &str) -> Output {
    let start = Instant::now();
    let drain = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                r.read_to_end(&mut v).ok();
            }
            v
        })
    };
    let so = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let se = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        status,
        stdout: so.join().unwrap(),
        stderr: se.join().unwrap(),
    }
}

/// Whether process `pid` is stopped (state T in /proc/PID/stat).
pub fn is_stopped(pid: u32) -> bool {
    let st = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    st.rsplit(')')
        .next()
        .and_then(|r| r.split_whitespace().next())
        == Some("T")
}

/// Wait until `child` has stopped itself at its fault stop point: false when it exited
/// first or did not stop within `limit` (then it is killed), for the caller to assert.
#[must_use]
pub fn wait_stopped(child: &mut Child, limit: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if is_stopped(child.id()) {
            return true;
        }
        if let Ok(Some(s)) = child.try_wait() {
            eprintln!("iomark exited ({s}) before reaching the stop point");
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    false
}

/// Send `sig` to `child` once it has stopped itself at its fault stop point (the run is
/// then mid-work, wherever the machine's load put the clock), then let it go on: the
/// signal is pending when it resumes, so it lands at that point, not before the run
/// started or after it ended. Panics when the child never stopped.
pub fn signal_at_stop(child: &mut Child, sig: i32) {
    assert!(
        wait_stopped(child, Duration::from_secs(60)),
        "iomark never reached its stop point"
    );
    assert_eq!(kill(child.id(), sig), 0, "signal {sig} sent");
    assert_eq!(kill(child.id(), libc::SIGCONT), 0, "SIGCONT sent");
}

/// Send `sig` to process `pid` (a child of the test); kill(2)'s result (0 when sent).
pub fn kill(pid: u32, sig: i32) -> i32 {
    // SAFETY: kill(2) on our own child process.
    unsafe { libc::kill(pid as i32, sig) }
}

/// Collect a spawned child's output once it ends; panics (and kills it) after
/// [`TIMEOUT`].
pub fn finish(child: Child) -> Out {
    finish_within(child, TIMEOUT)
}

/// Collect a spawned child's output once it ends; panics (and kills it) after `limit`.
pub fn finish_within(child: Child, limit: Duration) -> Out {
    Out::from_output(wait_output(child, limit, "iomark"))
}

/// What a command's stdout is connected to.
#[derive(Clone, Copy, Debug)]
pub enum Sink {
    DevFull,
    ClosedPipe,
}

impl Sink {
    /// The stream: `/dev/full` opened for writing, or a pipe whose reader is gone.
    pub fn stdio(self) -> Stdio {
        match self {
            Sink::DevFull => Stdio::from(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            ),
            Sink::ClosedPipe => {
                let (reader, writer) = std::io::pipe().unwrap();
                drop(reader);
                Stdio::from(writer)
            }
        }
    }
}

/// Run `iomark ARGS` in `dir` with stdout on `sink`: exit code and stderr.
pub fn run_to(dir: &Path, args: &[String], sink: Sink) -> (i32, String) {
    let stdout = sink.stdio();
    let o = Iomark::new()
        .args(args)
        .dir(dir)
        .command()
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}
