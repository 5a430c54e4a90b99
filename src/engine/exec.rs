//! `exec`: fio's engine that runs a third-party program beside the other jobs (a
//! monitor, a load generator) and moves no data. The program starts when the engine is
//! built, with `arguments` after `%r` (the job's runtime in whole seconds) and `%n`
//! (the job's name) are replaced, split on blanks as fio splits them; with
//! `std_redirect` (the default) its stdout and stderr go to `JOBNAME.stdout` and
//! `JOBNAME.stderr` in the current directory — files the runner opens the one safe way
//! (src/run/fio/thread.rs: never through a link, old or complete new content) and hands
//! over in [`Program::output`]. Each request waits 50 ms (fio's engine
//! polls its program so; the job's think time adds fio's other 50 ms, set in
//! src/job/fio/finish.rs) and completes; the first request after the runtime sends
//! SIGTERM and waits up to `grace_time` for the program to end.
//!
//! The program never outlives the engine: dropping it (end of the job, an error, a
//! stop on Ctrl-C, a panic unwinding) sends SIGTERM, waits `grace_time`, sends SIGKILL
//! and reaps it, so no zombie and no orphan is left; and the child asks the kernel for
//! SIGKILL should the job thread that started it die first (PR_SET_PDEATHSIG).

use super::{Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::{Kind, EXEC_POLL as POLL};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What an exec job runs, from its options.
#[derive(Debug, Default)]
pub struct Program {
    /// `program`
    pub program: String,
    /// `arguments` as written (`%r`, `%n` not yet replaced)
    pub arguments: Option<String>,
    /// `grace_time`: how long SIGTERM is given before SIGKILL
    pub grace: Duration,
    /// `std_redirect`: stdout/stderr to `NAME.stdout`/`NAME.stderr`
    pub redirect: bool,
    /// the job's name (`%n`, the redirect files)
    pub job: String,
    /// the job's runtime (`%r`; the SIGTERM after it)
    pub runtime: Duration,
    /// where the redirect files go (fio: the current directory)
    pub dir: PathBuf,
    /// with `redirect`: the program's stdout and stderr, opened by the runner
    pub output: Option<[std::fs::File; 2]>,
}

impl Program {
    /// The redirect files' paths: `DIR/JOB.stdout`, `DIR/JOB.stderr`.
    pub fn output_paths(&self) -> [PathBuf; 2] {
        ["stdout", "stderr"].map(|ext| self.dir.join(format!("{}.{ext}", self.job)))
    }
}

impl Program {
    /// The argument vector fio builds: `program arguments` with `%r` and `%n`
    /// replaced, split on runs of spaces (engines/exec.c).
    pub fn argv(&self) -> Vec<String> {
        let args = self.arguments.as_deref().map(|a| {
            a.replace("%r", &self.runtime.as_secs().to_string())
                .replace("%n", &self.job)
        });
        let line = match args {
            Some(a) => format!("{} {a}", self.program),
            None => self.program.clone(),
        };
        line.split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// The exec engine: the running program and when to stop it.
pub struct Exec {
    child: Child,
    started: Instant,
    runtime: Duration,
    grace: Duration,
    termed: bool,
}

impl Exec {
    /// Start `p`. `Err`: it could not be started (not found, not executable, the
    /// redirect files could not be created).
    pub fn new(p: &Program) -> std::io::Result<Exec> {
        let argv = p.argv();
        let Some((prog, args)) = argv.split_first() else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "program= is empty",
            ));
        };
        let mut cmd = Command::new(prog);
        cmd.args(args).stdin(Stdio::null());
        if p.redirect {
            let Some(files) = &p.output else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "std_redirect=1: the output files were not opened",
                ));
            };
            cmd.stdout(files[0].try_clone()?)
                .stderr(files[1].try_clone()?);
        }
        // SAFETY: prctl only sets this (forked, not yet exec'd) child's death signal;
        // async-signal-safe, no allocation.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                // its own process group: the signals at the end reach the program's
                // children too (a script's `sleep`)
                libc::setpgid(0, 0);
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .map_err(|e| std::io::Error::new(e.kind(), format!("cannot run {prog}: {e}")))?;
        Ok(Exec {
            child,
            started: Instant::now(),
            runtime: p.runtime,
            grace: p.grace,
            termed: false,
        })
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send SIGTERM (once) and give the program `grace` to end.
    fn terminate(&mut self) {
        if !self.termed {
            self.termed = true;
            self.signal(libc::SIGTERM);
        }
        let until = Instant::now() + self.grace;
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5).min(self.grace));
        }
    }

    fn signal(&self, sig: libc::c_int) {
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: a signal to our own child's process group (the child leads it,
            // setpgid in pre_exec) and, should that fail, to the child, not yet reaped
            // (Child keeps it so)
            unsafe {
                if libc::kill(-pid, sig) != 0 {
                    libc::kill(pid, sig);
                }
            }
        }
    }
}

impl Engine for Exec {
    const KIND: Kind = Kind::Exec;
    const CAPS: super::Caps = super::Caps::NO_IO;
    fn depth(&self) -> usize {
        1
    }
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        // a job without a runtime (size-based) keeps its program until its last request
        if !self.runtime.is_zero() && self.started.elapsed() > self.runtime {
            self.terminate();
        } else {
            std::thread::sleep(POLL);
        }
        Ok(Some(r.len))
    }
    fn sync(&mut self, _file: usize, _kind: SyncKind) -> Result<(), IoErr> {
        Ok(())
    }
}

impl Drop for Exec {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.terminate();
            if matches!(self.child.try_wait(), Ok(None)) {
                self.signal(libc::SIGKILL);
            }
        }
        // reaped whatever happened: no zombie
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Dir;

    fn program(prog: &str, args: &str, grace_ms: u64) -> Program {
        Program {
            program: prog.into(),
            arguments: (!args.is_empty()).then(|| args.to_string()),
            grace: Duration::from_millis(grace_ms),
            redirect: false,
            job: "mon".into(),
            runtime: Duration::from_secs(30),
            dir: PathBuf::from("."),
            output: None,
        }
    }

    /// Gone entirely: neither running nor a zombie (kill(pid, 0) answers ESRCH).
    fn gone(pid: u32) -> bool {
        // SAFETY: signal 0 only checks that the process exists
        unsafe {
            libc::kill(pid as libc::pid_t, 0) != 0 && super::super::last_errno() == libc::ESRCH
        }
    }

    #[test]
    fn arguments_take_fios_substitutions_and_split_on_spaces() {
        let mut p = program("/bin/sleep", "%r  -n %n%r", 0);
        assert_eq!(p.argv(), ["/bin/sleep", "30", "-n", "mon30"]);
        p.arguments = None;
        assert_eq!(p.argv(), ["/bin/sleep"]);
        p.program = "  ".into();
        assert!(p.argv().is_empty());
        assert!(
            Exec::new(&p).is_err(),
            "an empty program is refused, no panic"
        );
    }

    #[test]
    fn a_program_that_ends_on_sigterm_is_reaped_when_the_engine_drops() {
        let e = Exec::new(&program("/bin/sleep", "60", 1000)).unwrap();
        let pid = e.pid();
        assert!(!gone(pid));
        let t = Instant::now();
        drop(e);
        assert!(gone(pid), "no zombie, no orphan");
        assert!(
            t.elapsed() < Duration::from_millis(900),
            "SIGTERM ended it: {:?}",
            t.elapsed()
        );
    }

    #[test]
    fn a_program_ignoring_sigterm_gets_sigkill_after_grace_time() {
        let d = tempfile::tempdir().unwrap();
        let script = d.path().join("stubborn.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 0.05; done\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let e = Exec::new(&program(&script.display().to_string(), "", 300)).unwrap();
        let pid = e.pid();
        std::thread::sleep(Duration::from_millis(100)); // the trap is set
        let t = Instant::now();
        drop(e);
        let took = t.elapsed();
        assert!(gone(pid), "killed and reaped");
        assert!(
            took >= Duration::from_millis(290),
            "waited grace_time first: {took:?}"
        );
    }

    #[test]
    fn requests_wait_while_it_runs_and_stop_it_after_the_runtime() {
        let mut p = program("/bin/sleep", "60", 1000);
        p.runtime = Duration::from_millis(80);
        let mut e = Exec::new(&p).unwrap();
        let r = IoReq::bufferless(Dir::Read, 0, 4096);
        let t = Instant::now();
        assert_eq!(e.submit(0, &r), Ok(Some(4096)));
        assert!(t.elapsed() >= POLL);
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(e.submit(0, &r), Ok(Some(4096)));
        assert!(
            e.termed && matches!(e.child.try_wait(), Ok(Some(_))),
            "SIGTERM after the runtime"
        );
    }

    #[test]
    fn std_redirect_writes_jobname_stdout_and_stderr() {
        let d = tempfile::tempdir().unwrap();
        let script = d.path().join("both.sh");
        std::fs::write(&script, "#!/bin/sh\necho out $1\necho err $2 >&2\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let mut p = program(&script.display().to_string(), "%r %n", 0);
        p.runtime = Duration::from_secs(7);
        p.redirect = true;
        p.dir = d.path().to_path_buf();
        let none = Exec::new(&p).err().expect("no files given");
        assert!(none.to_string().contains("not opened"), "{none}");
        let [o, e] = p.output_paths().map(|f| std::fs::File::create(f).unwrap());
        p.output = Some([o, e]);
        let mut e = Exec::new(&p).unwrap();
        let _ = e.child.wait();
        drop(e);
        assert_eq!(
            std::fs::read_to_string(d.path().join("mon.stdout")).unwrap(),
            "out 7\n"
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join("mon.stderr")).unwrap(),
            "err mon\n"
        );
        let p = program("/nonexistent/prog", "", 0);
        let e = Exec::new(&p).err().expect("refused");
        assert!(
            e.to_string().contains("cannot run /nonexistent/prog"),
            "{e}"
        );
    }
}
