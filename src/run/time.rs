//! `iomark time -- CMD ARGS…`: run any command and account for its whole process tree
//! (docs/commands/time.md). iomark becomes a child subreaper (PR_SET_CHILD_SUBREAPER),
//! so every orphaned descendant is reparented to it and reaped here; the kernel adds
//! each reaped process's CPU (RUSAGE_CHILDREN) and I/O counters (`/proc/self/io`) to
//! iomark's own, so the differences over the run are the tree's, whatever intermediate
//! processes reaped. As root, the time blocked on storage comes from every task's
//! taskstats exit record (probe/taskstats.rs) with `kernel.task_delayacct` turned on
//! for the run (files/sysctl.rs; restored on every exit path but SIGKILL).
//!
//! The command's stdin, stdout and stderr are iomark's, untouched; iomark opens none
//! of its files. While it runs, the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
//! are taken synchronously: one a process sent to iomark is passed to the command,
//! one from the terminal already reached it (the same process group); iomark keeps
//! waiting for the tree either way, then reports and exits with the command's status.

use crate::files::sysctl::Setting;
use crate::probe::devstat::{self, DevStat, DeviceActivity, ProcIo};
use crate::probe::taskstats::{self, Listener};
use crate::probe::Root;
use crate::result::command::{self, CommandExit, StorageWait, TimedCommand};
use crate::result::{Inputs, JobInfo, Phase, RunResult, Status};
use crate::stats::cpu::{CpuTimes, Who};
use std::time::Instant;

/// Exit code when the command cannot be found (as shells: 127).
pub const NOT_FOUND: i32 = 127;
/// Exit code when it was found but cannot be run (as shells: 126).
pub const NOT_EXECUTABLE: i32 = 126;

/// What `iomark time` runs.
#[derive(Clone, Debug)]
pub struct TimeJob {
    /// the command and its arguments
    pub command: Vec<String>,
    /// iomark's arguments after `time` (the result's `argv`)
    pub argv: Vec<String>,
}

/// A finished `iomark time`: its result, the exit code (the command's), lines for
/// stderr after the report.
#[derive(Debug)]
pub struct Timed {
    /// the result (command `time`)
    pub result: RunResult,
    /// the command's exit status (128 + N when signal N killed it)
    pub code: i32,
    /// lines for stderr after the report (a setting that could not be restored)
    pub closing: Vec<String>,
}

/// The command could not be started: exit code and one line.
#[derive(Debug)]
pub struct StartError {
    /// 127 not found, 126 not executable
    pub code: i32,
    /// what happened (`CMD: command not found`)
    pub message: String,
}

/// The stop signals, taken synchronously while the command runs.
const STOPPING: [i32; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The signal mask iomark had before the run, put back on drop.
struct Blocked {
    set: libc::sigset_t,
    old: libc::sigset_t,
}

impl Blocked {
    /// Block the stop signals and SIGCHLD in this thread (threads started later inherit
    /// the mask; the command's is reset by the spawn).
    fn now() -> Blocked {
        // SAFETY: sigset operations on values we own; pthread_sigmask on this thread.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for s in STOPPING.iter().chain(&[libc::SIGCHLD]) {
                libc::sigaddset(&mut set, *s);
            }
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            Blocked { set, old }
        }
    }
}

impl Drop for Blocked {
    fn drop(&mut self) {
        // SAFETY: restoring this thread's own earlier mask.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }
}

/// How the storage wait is measured on this run: the listener and the switch, or why
/// not.
struct Accounting {
    listener: Option<Listener>,
    setting: Option<Setting>,
    /// `turned on for the run`, `already on`
    delayacct: String,
    /// why the storage wait is not measured
    unavailable: Option<String>,
}

/// Turn delay accounting on and listen for exit records when root; say why not else.
fn accounting(root: &Root) -> Accounting {
    let mut a = Accounting {
        listener: None,
        setting: None,
        delayacct: String::new(),
        unavailable: None,
    };
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        a.unavailable = Some("not measured: needs root (the kernel's per-task exit records, taskstats, need CAP_NET_ADMIN, and kernel.task_delayacct must be on)".into());
        return a;
    }
    // read again under the shared record's lock (files/sysctl.rs `Setting::share`)
    let now = || ["0", "1"][(taskstats::delayacct(root) == Some(true)) as usize].to_string();
    match taskstats::delayacct(root) {
        Some(_) => match Setting::share(&root.0, "kernel.task_delayacct", now, "1") {
            Ok(s) => {
                a.delayacct = match s.old() {
                    "1" => "already on".into(),
                    _ => "turned on for the run, then restored".into(),
                };
                a.setting = Some(s);
            }
            Err(e) => {
                a.unavailable = Some(format!(
                    "not measured: kernel.task_delayacct could not be turned on: {e}"
                ));
                return a;
            }
        },
        None => a.delayacct = "no kernel.task_delayacct switch: as the kernel has it".into(),
    }
    let cpus = taskstats::possible_cpus(root).unwrap_or_else(|| "0".into());
    match Listener::open(&cpus) {
        Ok(l) => a.listener = Some(l),
        Err(e) => a.unavailable = Some(format!("not measured: taskstats: {e}")),
    }
    a
}

/// Start the command with iomark's stdin, stdout and stderr.
fn spawn(cmd: &[String]) -> Result<i32, StartError> {
    let Some((prog, args)) = cmd.split_first() else {
        return Err(StartError {
            code: crate::util::error::exit::INVALID,
            message: "no command".into(),
        });
    };
    use std::os::unix::process::CommandExt;
    let mut c = std::process::Command::new(prog);
    c.args(args);
    // SAFETY: between fork and exec only sigemptyset and sigprocmask, which are
    // async-signal-safe: the command starts with no signal blocked (iomark blocks the
    // stop signals and SIGCHLD to take them synchronously; the spawn keeps the mask).
    unsafe {
        c.pre_exec(|| {
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            Ok(())
        });
    }
    // the name as it may be printed: control characters (a newline, an escape) visible
    let prog = crate::util::text::visible(prog);
    match c.spawn() {
        Ok(c) => Ok(c.id() as i32),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(StartError {
            code: NOT_FOUND,
            message: format!("{prog}: command not found"),
        }),
        Err(e) => Err(StartError {
            code: NOT_EXECUTABLE,
            message: format!(
                "{prog}: cannot run it: {}",
                crate::util::strerror(e.raw_os_error().unwrap_or(0))
            ),
        }),
    }
}

/// Reap every process of the tree (the command and every orphan reparented to iomark)
/// until none is left; the command's wait status and the stop signals passed to it.
fn wait_tree(child: i32, set: &libc::sigset_t) -> (i32, Vec<i32>) {
    let (mut status, mut passed) = (None, vec![]);
    loop {
        loop {
            let mut st = 0;
            // SAFETY: waitpid writes the status we own.
            let r = unsafe { libc::waitpid(-1, &mut st, libc::WNOHANG) };
            if r > 0 {
                if r == child {
                    status = Some(st);
                }
                continue;
            }
            if r == 0 {
                break;
            }
            if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                // ECHILD: every process of the tree is reaped
                return (status.unwrap_or(0), passed);
            }
        }
        let ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 100_000_000,
        };
        // SAFETY: sigtimedwait on a set we own, writing a siginfo we own.
        let (sig, code) = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let s = libc::sigtimedwait(set, &mut info, &ts);
            (s, info.si_code)
        };
        // sent by a process (kill, timeout: si_code ≤ 0), not the terminal (SI_KERNEL),
        // whose signal reached the command's process group already
        if STOPPING.contains(&sig) && status.is_none() && code <= 0 {
            // SAFETY: kill(2) of the child we started and have not reaped.
            unsafe { libc::kill(child, sig) };
            passed.push(sig);
        }
    }
}

/// The counters read before the command starts.
struct Before {
    disks: Vec<(String, DevStat)>,
    io: Option<ProcIo>,
    /// bytes the reading of `/proc/self/io` itself added to rchar
    io_text_len: u64,
    cpu: CpuTimes,
    t0: Instant,
}

fn before(root: &Root) -> Before {
    let disks = devstat::all_disks(root);
    let text = root.read("/proc/self/io");
    Before {
        disks,
        io_text_len: text.as_ref().map_or(0, |t| t.len() as u64),
        io: text.as_deref().and_then(devstat::parse_proc_io),
        cpu: CpuTimes::now(Who::Children),
        t0: Instant::now(),
    }
}

/// The tree's I/O counters: `/proc/self/io` now minus before (and minus the bytes of
/// the first reading).
fn io_since(b: &Before, now: Option<ProcIo>) -> ProcIo {
    let (Some(a), Some(n)) = (b.io, now) else {
        return ProcIo::default();
    };
    ProcIo {
        rchar: n
            .rchar
            .saturating_sub(a.rchar)
            .saturating_sub(b.io_text_len),
        wchar: n.wchar.saturating_sub(a.wchar),
        read_bytes: n.read_bytes.saturating_sub(a.read_bytes),
        write_bytes: n.write_bytes.saturating_sub(a.write_bytes),
        cancelled_write_bytes: n
            .cancelled_write_bytes
            .saturating_sub(a.cancelled_write_bytes),
    }
}

/// The disks whose counters moved between `before` and now.
fn devices_moved(root: &Root, before: &[(String, DevStat)], ms: u64) -> Vec<DeviceActivity> {
    let after = devstat::all_disks(root);
    before
        .iter()
        .filter_map(|(name, a)| {
            let (_, b) = after.iter().find(|(n, _)| n == name)?;
            let d = DeviceActivity::between(name, *a, *b, ms);
            let moved = d.reads + d.writes + d.flushes.unwrap_or(0) + d.discards.unwrap_or(0);
            let (wc, fua) = devstat::write_cache(root, name);
            (moved > 0).then_some(DeviceActivity {
                write_cache: wc,
                fua,
                ..d
            })
        })
        .collect()
}

/// The storage wait of the tree from the collected exit records.
fn storage_wait(c: &taskstats::Collected, delayacct: &str) -> StorageWait {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() } as u32;
    let tree = taskstats::tree(&c.exits, me);
    let ns = |f: fn(&taskstats::TaskExit) -> u64| tree.iter().map(|t| f(t)).sum::<u64>();
    let (blkio_ns, impossible, estimated) = blkio_possible(&tree);
    let mut procs: Vec<u32> = tree.iter().map(|t| t.tgid).collect();
    procs.sort_unstable();
    procs.dedup();
    StorageWait {
        source: "taskstats".into(),
        delayacct: delayacct.into(),
        blkio_s: blkio_ns as f64 / 1e9,
        blkio_count: ns(|t| t.blkio_count),
        swapin_s: ns(|t| t.swapin_delay_ns) as f64 / 1e9,
        cpu_wait_s: ns(|t| t.cpu_delay_ns) as f64 / 1e9,
        tasks: tree.len() as u64,
        processes: procs.len() as u64,
        records_lost: c.lost,
        records_impossible: impossible,
        waits_estimated: estimated,
    }
}

/// The tree's blocked time over the records that can be true: (ns, records left out,
/// waits estimated). A task cannot wait longer than it lived (`ac_etime`, 1 ms of slack
/// for the clocks). The kernel times a wait from its recorded start; a wait whose start
/// it did not record is reported as the time since boot: one begun while delay
/// accounting was off, and on kernel 6.18 here with accounting on too (12 of 92 `dd
/// iflag=direct` exited with one, docs/commands/time.md). Such a wait is the
/// record's longest: where the record names it (`blkio_delay_max`, Linux 6.16 and later)
/// and the rest is possible, the task's other waits are counted exactly and that one
/// wait as their mean (an estimate, counted apart); a record without it, or whose only
/// wait it is, is left out.
pub fn blkio_possible(tree: &[&taskstats::TaskExit]) -> (u64, u64, u64) {
    let (mut sum, mut left_out, mut estimated) = (0u64, 0u64, 0u64);
    for t in tree {
        let lived = t.etime_us.saturating_mul(1000) + 1_000_000;
        if t.blkio_delay_ns <= lived {
            sum += t.blkio_delay_ns;
            continue;
        }
        let others = t
            .blkio_delay_max_ns
            .filter(|&max| max > lived && t.blkio_count >= 2)
            .and_then(|max| t.blkio_delay_ns.checked_sub(max))
            .filter(|&o| o <= lived);
        match others {
            Some(o) => {
                sum += o + o / (t.blkio_count - 1);
                estimated += 1;
            }
            None => left_out += 1,
        }
    }
    (sum, left_out, estimated)
}

/// Run the command and account for its tree (the start's error: 127/126 and a line).
pub fn execute(job: &TimeJob) -> Result<Timed, StartError> {
    let root = Root::default();
    let blocked = Blocked::now();
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) on this process.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    let mut acc = accounting(&root);
    let b = before(&root);
    let child = spawn(&job.command)?;
    let (st, passed) = wait_tree(child, &blocked.set);
    let wall = b.t0.elapsed();
    let io = io_since(&b, devstat::proc_io(&root));
    let cpu = CpuTimes::now(Who::Children).since(&b.cpu);
    let devices = devices_moved(&root, &b.disks, wall.as_millis() as u64);
    let collected = acc.listener.take().map(Listener::finish);
    let mut closing = vec![];
    if let Some(s) = acc.setting.take() {
        if let Err(e) = s.restore() {
            closing.push(format!(
                "iomark time: kernel.task_delayacct could not be restored to 0: {e}"
            ));
        }
    }
    drop(blocked);
    let wait = collected
        .as_ref()
        .filter(|_| acc.unavailable.is_none())
        .map(|c| storage_wait(c, &acc.delayacct));
    let exit = CommandExit::from_wait(st);
    let (user_s, sys_s) = (cpu.usr_ns as f64 / 1e9, cpu.sys_ns as f64 / 1e9);
    let wall_s = wall.as_secs_f64();
    let section = TimedCommand {
        argv: job.command.clone(),
        exit: exit.clone(),
        wall_s,
        user_s,
        sys_s,
        bound: wait.as_ref().map(|w| {
            let b = command::bound(wall_s, w.blkio_s, user_s + sys_s, w.cpu_wait_s);
            match w.lower_bound_why() {
                None => b,
                Some(why) => b.as_lower_bound(&why),
            }
        }),
        storage_wait: wait,
        storage_wait_unavailable: acc.unavailable,
        read_from_cache_bytes: io.rchar.saturating_sub(io.read_bytes),
        io,
        devices,
    };
    let status = if passed.is_empty() {
        Status::Ok
    } else {
        Status::Interrupted
    };
    Ok(Timed {
        result: result(job, section, status),
        code: exit.status,
        closing,
    })
}

/// The result of a run: the section, and one phase (the command's name, no operations
/// counted — a command is not an I/O, so no IOPS —, the bytes it moved at the device,
/// its wall time) for `compare` and the history.
fn result(job: &TimeJob, section: TimedCommand, status: Status) -> RunResult {
    let mut i = Inputs::new("time", &job.argv, status);
    let name = job
        .command
        .first()
        .map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
        .unwrap_or_default();
    let mut p = Phase::new(
        &name,
        0,
        section.io.read_bytes + section.io.write_bytes,
        section.wall_s,
    );
    if let Some(b) = &section.bound {
        p.notes.push(format!("storage wait {:.0} %", b.storage_pct));
    }
    p.notes.push(format!("exit status {}", section.exit.status));
    i.phases = vec![p];
    i.elapsed_s = section.wall_s;
    i.summary = JobInfo {
        kind: "time".into(),
        ..JobInfo::default()
    };
    i.timed_command = Some(section);
    crate::result::build(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(blkio_ns: u64, etime_us: u64) -> taskstats::TaskExit {
        taskstats::TaskExit {
            blkio_delay_ns: blkio_ns,
            etime_us,
            ..Default::default()
        }
    }

    /// A record whose wait is longer than its task's life (the kernel's time since boot
    /// for a wait begun before accounting was on) is left out and counted; waits within
    /// the task's life, and 1 ms of clock slack, are summed.
    #[test]
    fn a_wait_longer_than_the_task_lived_is_not_counted() {
        let (a, b, c) = (
            task(2_000_000_000, 3_000_000),
            task(2_194_783_000_000, 2_100_000),
            task(1_500_000, 1_000),
        );
        assert_eq!(blkio_possible(&[&a, &c]), (2_001_500_000, 0, 0));
        assert_eq!(blkio_possible(&[&a, &b, &c]), (2_001_500_000, 1, 0));
        assert_eq!(blkio_possible(&[&task(1_000_001, 0)]), (0, 1, 0));
    }

    /// The record of a `dd iflag=direct` of 64 reads on kernel 6.18 whose first wait
    /// the kernel dated from boot (uptime 19 h: 68 400 s): its total is that wait plus
    /// the 63 others (2 ms each), its longest wait (`blkio_delay_max`) the bogus one.
    /// The 63 are counted exactly and the one as their mean, estimated; without the
    /// longest wait (a kernel before 6.16), or when that wait is the only one, the
    /// record is left out as before.
    #[test]
    fn a_wait_dated_from_boot_is_estimated_from_the_tasks_other_waits() {
        let boot = 68_400_000_000_000u64;
        let dd = taskstats::TaskExit {
            blkio_count: 64,
            blkio_delay_ns: boot + 63 * 2_000_000,
            blkio_delay_max_ns: Some(boot),
            etime_us: 300_000,
            ..Default::default()
        };
        assert_eq!(blkio_possible(&[&dd]), (64 * 2_000_000, 0, 1));
        // with a task whose waits are all possible: summed beside it
        let ok = task(1_500_000, 1_000);
        assert_eq!(
            blkio_possible(&[&dd, &ok]),
            (64 * 2_000_000 + 1_500_000, 0, 1)
        );
        let old_kernel = taskstats::TaskExit {
            blkio_delay_max_ns: None,
            ..dd.clone()
        };
        assert_eq!(blkio_possible(&[&old_kernel]), (0, 1, 0));
        let only = taskstats::TaskExit {
            blkio_count: 1,
            blkio_delay_ns: boot,
            ..dd.clone()
        };
        assert_eq!(blkio_possible(&[&only]), (0, 1, 0));
        // the rest longer than the task lived: not a wait dated from boot alone
        let worse = taskstats::TaskExit {
            blkio_delay_ns: boot + 400_000_000,
            ..dd.clone()
        };
        assert_eq!(blkio_possible(&[&worse]), (0, 1, 0));
        // the section says so, and the storage wait is no lower bound: the bound stands
        let c = taskstats::Collected {
            exits: vec![],
            lost: false,
        };
        let w = StorageWait {
            waits_estimated: 1,
            ..storage_wait(&c, "already on")
        };
        assert_eq!(w.lower_bound_why(), None);
    }
}
