//! What a fio job thread does to itself before and after its I/O (fio's backend.c
//! `thread_main`): its CPU set (`cpumask`/`cpus_allowed`, split per thread with
//! `cpus_allowed_policy=split`; sched_setaffinity(2)), its nice value (`nice`), the
//! memory it locks (`lockmem`: an anonymous mapping of that size, mlock(2)ed for the
//! thread's life), its user and group (`uid`, `gid`: this thread's only), and the shell commands around it (`exec_prerun`, `exec_postrun`: run
//! with `sh -c`, stdout and stderr in `NAME.prerun.txt` / `NAME.postrun.txt`, written
//! through src/files/output.rs; a prerun that fails fails the job — fio 3.33 skips the
//! job's I/O without an error, docs/compat/fio.md lists why iomark does not —, a
//! postrun's status is not looked at).

use crate::job::fio::FioJob;
use crate::run::fio::plan::IoschedMiss;
use std::path::Path;

/// Memory a thread keeps locked (`lockmem`) until it is dropped.
pub struct Locked {
    map: crate::engine::anon::AnonMap,
}

impl Drop for Locked {
    fn drop(&mut self) {
        // SAFETY: the mapping locked in `lock`, unlocked once here (then unmapped by
        // the AnonMap's own drop)
        unsafe { libc::munlock(self.map.ptr().cast(), self.map.len()) };
    }
}

/// The CPUs thread `global` (0-based, fio's thread_number - 1) of `job` may run on:
/// the job's set, or with `split` its `global % n`-th CPU.
pub fn cpus_of(job: &FioJob, global: u32) -> Option<Vec<usize>> {
    let cpus = job.tuning.cpus.as_ref()?;
    if cpus.is_empty() {
        return Some(Vec::new());
    }
    Some(if job.tuning.cpus_split {
        vec![cpus[global as usize % cpus.len()]]
    } else {
        cpus.clone()
    })
}

/// Why a job thread could not be placed ([`place`]).
#[derive(Debug)]
pub enum PlaceError {
    /// its CPU affinity call failed with `errno` (`line` names the set)
    Affinity {
        /// the call's errno
        errno: i32,
        /// one line naming the option
        line: String,
    },
    /// another setting failed (one line naming the option)
    Other(String),
}

impl std::fmt::Display for PlaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlaceError::Affinity { line, .. } | PlaceError::Other(line) => f.write_str(line),
        }
    }
}

/// Bind the calling thread to `cpus` (sched_setaffinity of thread 0 = this one).
fn set_affinity(cpus: &[usize]) -> Result<(), PlaceError> {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET stays within its bits
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let bits = 8 * std::mem::size_of::<libc::cpu_set_t>();
    for &c in cpus {
        if c >= bits {
            return Err(PlaceError::Affinity {
                errno: libc::EINVAL,
                line: format!("cpus_allowed: CPU {c} is past the {bits} this system supports"),
            });
        }
        // SAFETY: c < the set's size
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: set is a valid cpu_set_t of the size passed
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(PlaceError::Affinity {
            errno: e.raw_os_error().unwrap_or(libc::EINVAL),
            line: format!(
                "cpus_allowed={}: sched_setaffinity: {e} (CPUs online: see /sys/devices/system/cpu/online)",
                crate::run::fio::numa::fmt_list(&cpus.iter().map(|&c| c as u64).collect::<Vec<_>>())
            ),
        });
    }
    Ok(())
}

/// Set the calling thread's nice value (setpriority(2) on its thread id).
fn set_nice(nice: i32) -> Result<(), String> {
    // SAFETY: gettid and setpriority take plain values
    let r = unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, nice)
    };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("nice={nice}: setpriority: {e}"));
    }
    Ok(())
}

/// Lock `len` bytes of fresh anonymous memory.
fn lock(len: u64) -> Result<Locked, String> {
    let len = usize::try_from(len).map_err(|_| format!("lockmem={len}: too large"))?;
    let map = crate::engine::anon::AnonMap::new(len).map_err(|e| {
        format!(
            "lockmem={len}: mmap: {}",
            std::io::Error::from_raw_os_error(e)
        )
    })?;
    // SAFETY: the mapping made above, `len` bytes
    if unsafe { libc::mlock(map.ptr().cast(), len) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("lockmem={len}: mlock: {e} (see ulimit -l)"));
    }
    Ok(Locked { map })
}

/// Place the calling thread as thread `global` of `job` asks (CPUs, nice, locked
/// memory); the error says which setting failed, in one line naming the option.
pub fn place(job: &FioJob, global: u32) -> Result<Option<Locked>, PlaceError> {
    if let Some(cpus) = cpus_of(job, global) {
        set_affinity(&cpus)?;
    }
    if job.tuning.nice != 0 {
        set_nice(job.tuning.nice).map_err(PlaceError::Other)?;
    }
    let locked = match job.tuning.lockmem {
        0 => None,
        n => Some(lock(n).map_err(PlaceError::Other)?),
    };
    set_ids(job.tuning.uid, job.tuning.gid).map_err(PlaceError::Other)?;
    Ok(locked)
}

/// `uid` / `gid`: the calling thread's real, effective and saved IDs (the raw
/// setresgid/setresuid system calls act on this thread only, where fio's job is a
/// process of its own); the group first, while the thread may still change it.
fn set_ids(uid: Option<u32>, gid: Option<u32>) -> Result<(), String> {
    for (key, id, call) in [
        ("gid", gid, libc::SYS_setresgid),
        ("uid", uid, libc::SYS_setresuid),
    ] {
        let Some(id) = id else { continue };
        // SAFETY: a plain system call with three IDs
        if unsafe { libc::syscall(call, id, id, id) } != 0 {
            let e = std::io::Error::last_os_error();
            return Err(format!("{key}={id}: {e}"));
        }
    }
    Ok(())
}

/// `write_hint`: the expected life of the data written through each of `fds`
/// (RWH_WRITE_LIFE_* = `hint`): as fio 3.33, on the open file (fcntl
/// F_SET_FILE_RW_HINT) for O_DIRECT (`direct`), else on the inode (F_SET_RW_HINT). A
/// refusal fails the job, as fio's: its errno and the call's name. (Linux 6.9 and later
/// have no F_SET_FILE_RW_HINT: EINVAL, as fio meets it there.)
pub fn write_hint(
    fds: &[std::os::fd::RawFd],
    hint: u64,
    direct: bool,
) -> Result<(), (i32, String)> {
    /// F_SET_RW_HINT and F_SET_FILE_RW_HINT (F_LINUX_SPECIFIC_BASE + 12, + 14), not in
    /// every libc crate version
    const F_SET_RW_HINT: libc::c_int = 1036;
    const F_SET_FILE_RW_HINT: libc::c_int = 1038;
    let (cmd, name) = match direct {
        true => (F_SET_FILE_RW_HINT, "F_SET_FILE_RW_HINT"),
        false => (F_SET_RW_HINT, "F_SET_RW_HINT"),
    };
    for &fd in fds {
        // SAFETY: fcntl on an open descriptor with a pointer to a u64, as the call takes
        let r = unsafe { libc::fcntl(fd, cmd, &hint as *const u64) };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            let errno = e.raw_os_error().unwrap_or(libc::EINVAL);
            return Err((errno, format!("write_hint: fcntl {name}: {e}")));
        }
    }
    Ok(())
}

/// The scheduler file of the queue under `path` (a partition's is its disk's), read
/// through `root`: its machine path and contents.
fn scheduler_of(path: &Path, root: &crate::probe::Root) -> Option<(String, String)> {
    let dir = crate::probe::device_behind(path).and_then(|d| root.block_dir(d))?;
    let sys = root.sys();
    [dir.clone(), crate::probe::sysroot::parent(&dir)]
        .into_iter()
        .map(|d| format!("{d}/queue/scheduler"))
        .find_map(|f| sys.read_trim(&f).map(|s| (f, s)))
}

/// `ioscheduler=NAME` of `job`: the queue under each of its files (`files`) is switched
/// to NAME (fio's `switch_ioscheduler`; files on no block device are skipped, as fio
/// skips them). Returns the files switched with their scheduler before, for
/// [`restore_schedulers`]; an error is how fio's thread meets the miss and iomark's
/// refusal naming the device's schedulers.
pub fn ioscheduler(
    job: &FioJob,
    files: &[&Path],
    root: &crate::probe::Root,
) -> Result<Vec<(String, String)>, (IoschedMiss, String)> {
    let Some(want) = job.tuning.ioscheduler.as_deref() else {
        return Ok(Vec::new());
    };
    let mut switched = Vec::new();
    for p in files {
        let Some((file, text)) = scheduler_of(p, root) else {
            continue;
        };
        let names: Vec<&str> = text.split_whitespace().collect();
        let current = names
            .iter()
            .find_map(|n| n.strip_prefix('[').and_then(|n| n.strip_suffix(']')))
            .unwrap_or(text.as_str());
        if current == want || switched.iter().any(|(f, _): &(String, String)| *f == file) {
            continue;
        }
        let offered = names.iter().any(|n| n.trim_matches(['[', ']']) == want);
        let host = root.sys().host_path(&file);
        let wrote = match (offered, host) {
            (true, Some(h)) => {
                crate::files::dataset::write_attr(&h, want).map_err(|e| e.to_string())
            }
            _ => Err("not offered".into()),
        };
        if let Err(e) = wrote {
            // a queue without a choice reads `none` (no brackets)
            let miss = match text.as_str() {
                "none" => IoschedMiss::Untunable,
                _ => IoschedMiss::Unset(want.to_string()),
            };
            let why = format!(
                "ioscheduler={want}: cannot set it for {} ({file}: {text}; {e})",
                p.display()
            );
            return Err((miss, why));
        }
        switched.push((file, current.to_string()));
    }
    Ok(switched)
}

/// Put back the schedulers [`ioscheduler`] switched (iomark leaves the machine as it
/// found it; fio leaves the new one).
pub fn restore_schedulers(switched: &[(String, String)], root: &crate::probe::Root) {
    for (file, old) in switched {
        if let Some(h) = root.sys().host_path(file) {
            let _ = crate::files::dataset::write_attr(&h, old);
        }
    }
}

/// Run `exec_prerun` (`post` false) or `exec_postrun` of `job` in `dir`, if it has one:
/// `sh -c CMD`, output in `dir/NAME.prerun.txt` (or `.postrun.txt`); with `say`, fio's
/// line naming that file on stdout first (`NAME : Saving output of prerun in
/// NAME.prerun.txt`). `Err` when it could not run, or (prerun) exited with a status
/// other than 0 ([`HookError::Failed`]).
pub fn exec(job: &FioJob, post: bool, dir: &Path, say: bool) -> Result<(), HookError> {
    let (cmd, mode) = match post {
        false => (job.tuning.exec_prerun.as_deref(), "prerun"),
        true => (job.tuning.exec_postrun.as_deref(), "postrun"),
    };
    let Some(cmd) = cmd else {
        return Ok(());
    };
    let key = format!("exec_{mode}");
    let file = format!("{}.{mode}.txt", job.name);
    if say {
        crate::outln!("{} : Saving output of {mode} in {file}", job.name);
    }
    let path = dir.join(&file);
    let mut staged = crate::files::output::Output::create(&path)
        .and_then(|o| o.stage())
        .map_err(|e| HookError::Other(format!("{key}: {}: {e}", path.display())))?;
    let out = staged
        .share()
        .map_err(|e| HookError::Other(format!("{key}: {e}")))?;
    let err = out
        .try_clone()
        .map_err(|e| HookError::Other(format!("{key}: {e}")))?;
    let status = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(out)
        .stderr(err)
        .status();
    staged
        .commit()
        .map_err(|e| HookError::Other(format!("{key}: {}: {e}", path.display())))?;
    match status {
        Err(e) => Err(HookError::Other(format!("{key}: cannot run /bin/sh: {e}"))),
        Ok(s) if !s.success() && !post => {
            Err(HookError::Failed(format!("{key} '{cmd}' failed: {s}")))
        }
        Ok(_) => Ok(()),
    }
}

/// Why an `exec_prerun`/`exec_postrun` hook failed ([`exec`]).
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// the command ran and exited with a status other than 0 (a prerun: fio 3.33's
    /// thread then skips its I/O without an error)
    #[error("{0}")]
    Failed(String),
    /// it could not run, or its output file could not be written
    #[error("{0}")]
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(opts: &[(&str, &str)]) -> FioJob {
        let mut j = FioJob {
            name: "hk".into(),
            ..FioJob::default()
        };
        let o = crate::job::fio::ini::Origin::CommandLine;
        for (k, v) in opts {
            crate::job::fio::options::apply(&mut j, k, Some(v), &o, &mut Vec::new()).unwrap();
        }
        j
    }

    #[test]
    fn split_gives_each_thread_one_cpu_of_the_set() {
        let j = job(&[("cpus_allowed", "2-3,6"), ("cpus_allowed_policy", "split")]);
        let got: Vec<_> = (0..4).map(|t| cpus_of(&j, t).unwrap()).collect();
        assert_eq!(got, vec![vec![2], vec![3], vec![6], vec![2]]);
        let j = job(&[("cpumask", "0x5")]);
        assert_eq!(cpus_of(&j, 3), Some(vec![0, 2]));
    }

    #[test]
    fn a_thread_runs_where_it_is_placed() {
        // CPU 0 exists on every machine; the thread's own set is read back
        let j = job(&[("cpus_allowed", "0"), ("nice", "3")]);
        let got = std::thread::spawn(move || {
            place(&j, 0).unwrap();
            // SAFETY: reading this thread's affinity and nice value
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set);
                let n = libc::CPU_COUNT(&set);
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                (
                    n,
                    libc::CPU_ISSET(0, &set),
                    libc::getpriority(libc::PRIO_PROCESS, tid),
                )
            }
        })
        .join()
        .unwrap();
        assert_eq!(got, (1, true, 3));
    }

    #[test]
    fn prerun_output_and_status() {
        let d = tempfile::tempdir().unwrap();
        let j = job(&[
            ("exec_prerun", "echo pre; echo err >&2"),
            ("exec_postrun", "exit 3"),
        ]);
        exec(&j, false, d.path(), false).unwrap();
        let s = std::fs::read_to_string(d.path().join("hk.prerun.txt")).unwrap();
        assert_eq!(s, "pre\nerr\n");
        // a postrun's status is not looked at; its file is written
        exec(&j, true, d.path(), false).unwrap();
        assert!(d.path().join("hk.postrun.txt").exists());
        let j = job(&[("exec_prerun", "exit 4")]);
        let e = exec(&j, false, d.path(), false).unwrap_err();
        assert!(matches!(e, HookError::Failed(_)), "{e}");
        assert!(
            e.to_string().starts_with("exec_prerun 'exit 4' failed"),
            "{e}"
        );
    }
}
