//! Under the fio persona, a job whose thread setup fails as fio 3.33's does is that
//! job's error, not the run's ([`failures`]): fio's lines on stderr, the job reported
//! with `error` set and every figure 0 (no `latency_*` keys: it never ran), the other
//! jobs run and report as usual, and the run exits 1. `iomark run` keeps refusing such a
//! job before any job runs (docs/compat/fio.md).
//!
//! The failures taken: an `include` of the job file that could not be opened (fio's
//! `job file open`, the job's error); a file whose size is needed but that does not exist, with no
//! `size=`/`filesize=` (fio's `total_file_size`, EINVAL), a job with no file at all (an
//! `opendir` that added none) or a null-engine job without `size=` (the same); and a layout that fails on a file the job names (a directory,
//! EISDIR; a file of a pseudo filesystem such as `/proc/version`, fio's refused
//! `unlink` first) — the errno of iomark's failed call ([`layout_failure`]); a block
//! device the job names that cannot be opened (fio's size check, `failed opening
//! blockdev`). A file a job's thread cannot open is that thread's error
//! ([`open_failure`]).

use crate::files::dataset::{FileSpec, FilesError};
use crate::job::fio::{FioCommand, FioJob};
use crate::result::job::JobRecord;
use crate::run::fio::plan::Laid;
use crate::run::fio::{files_for, Plan, RunError};

/// Why a job's setup failed: fio's errno and the lines it prints on stderr for each of
/// the job's threads (the last one is the record's `failure`, after `fio: `).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SetupFail {
    /// the errno (fio's JSON `error`, the text's `err=`)
    pub errno: i32,
    /// a line fio prints before its `fio: pid=0, err=…` line (`NAME: you need to
    /// specify size=`), if any
    pub first: Option<String>,
    /// fio's `pid=0, err=N/file:…, func=…, error=TEXT` (printed after `fio: `); none
    /// when fio set no error (`errno` 0: its setup failed without `td_verror`)
    pub line: Option<String>,
    /// fio says the line from the job's own thread, on stdout (a job that failed
    /// before it started has it on stderr)
    pub on_stdout: bool,
    /// what fio says on stdout as it sizes the job's files, before the lines above
    /// (`fio: file F may be ignored`)
    pub said: Vec<String>,
}

impl SetupFail {
    /// fio's failure of `total_file_size`: no size to lay out or address.
    fn no_size(job: &FioJob) -> SetupFail {
        SetupFail {
            errno: libc::EINVAL,
            first: Some(format!("{}: you need to specify size=", job.name)),
            line: Some(format!(
                "pid=0, err={}/file:filesetup.c:1155, func=total_file_size, error={}",
                libc::EINVAL,
                crate::files::strerror(libc::EINVAL)
            )),
            on_stdout: false,
            said: Vec::new(),
        }
    }

    /// fio's failure of a job whose data set is smaller than its smallest block
    /// (setup_files: the job's size, the smaller of `size=` and its files' I/O sizes, below
    /// the smallest block size; an `opendir` whose only file is smaller than `bs`): its
    /// line on stderr, no error set, no `fio: pid=` line; after what fio said of the
    /// files (`said`: the files its offset leaves empty).
    fn below_one_block(said: Vec<String>) -> SetupFail {
        SetupFail {
            errno: 0,
            first: Some(BELOW_ONE_BLOCK.into()),
            line: None,
            on_stdout: false,
            said,
        }
    }

    /// fio's failure of the size check of a block device it cannot open (`errno`):
    /// its two lines, then `pid=0, err=N/file:filesetup.c:805, func=open(PATH), …`.
    fn blockdev(path: &std::path::Path, errno: i32) -> SetupFail {
        let at = format!(
            "{OPEN_AT}({}), error={}",
            path.display(),
            crate::files::strerror(errno)
        );
        SetupFail {
            errno,
            first: Some(format!(
                "fio: failed opening blockdev {} for size check\n{at}",
                path.display()
            )),
            line: Some(format!("pid=0, err={errno}/{at}")),
            on_stdout: false,
            said: Vec::new(),
        }
    }

    /// The record of one of the job's threads: nothing done, `error` set, the failure
    /// line as the job's failure, already said on stderr while the job was set up
    /// ([`say`]), and the thread counted as one whose setup failed.
    pub(crate) fn record(&self, plan: &Plan) -> JobRecord {
        let mut r = crate::run::fio::thread::empty_record(plan);
        r.stats.error = self.errno;
        r.stats.failure.clone_from(&self.line);
        r.stats.failure_said = true;
        r.stats.failed_threads = 1;
        r.job = crate::run::fio::thread::effective_job(plan);
        empty_rate_logs(plan);
        r
    }
}

/// The logs fio 3.33 still writes for a thread whose setup failed: with `log_avg_msec`
/// its averaged bandwidth and IOPS logs (`PREFIX_bw.N.log`, `PREFIX_iops.N.log`), empty
/// (the periodic averaging fio keeps for them is the run's, not the thread's); no
/// latency, histogram or I/O log. Without `log_avg_msec`, none. A log that cannot be
/// written is left out, as the thread already failed.
fn empty_rate_logs(plan: &Plan) {
    use crate::run::fio::log::{LogSpec, Logs};
    let Some(mut spec) = LogSpec::of(&plan.job).filter(|s| s.avg_msec > 0) else {
        return;
    };
    (spec.lat, spec.hist, spec.iolog) = (None, None, None);
    if spec.bw.is_none() && spec.iops.is_none() {
        return;
    }
    let dir = std::path::Path::new(".");
    if let Ok(mut logs) = Logs::create(&spec, &plan.job.name, plan.global, dir) {
        let _ = logs.finish();
    }
}

/// Per job of `cmd`, the setup failure fio 3.33's threads would meet before any I/O —
/// only under the fio persona (`FioCommand::job_setup_errors`); each failing thread's
/// first line is said on stderr now, as fio says it while it sets the job up.
/// `iomark run` refuses a job whose data set is below one block before the run (exit
/// 2: it could move no byte) where the fio persona fails its setup.
pub(crate) fn failures(cmd: &FioCommand) -> Result<Vec<Option<SetupFail>>, RunError> {
    let mut out = vec![None; cmd.jobs.len()];
    let mut global = 0u32;
    let mut laid = Laid::default();
    for (j, slot) in cmd.jobs.iter().zip(out.iter_mut()) {
        let failed = failure(j, global, &mut laid);
        global += j.numjobs;
        if cmd.job_setup_errors {
            *slot = failed;
        } else if let Some(f) = failed.filter(|f| f.first.as_deref() == Some(BELOW_ONE_BLOCK)) {
            return Err(below_one_block_refused(j, &f));
        }
    }
    Ok(out)
}

/// `iomark run`'s refusal of a job whose data set is below its smallest block (`f`:
/// the setup failure the fio persona reports), naming the files an `offset=` at their
/// end leaves empty.
fn below_one_block_refused(job: &FioJob, f: &SetupFail) -> RunError {
    let empty: Vec<&str> = f
        .said
        .iter()
        .filter_map(|l| {
            l.strip_prefix("fio: file ")?
                .strip_suffix(" may be ignored")
        })
        .collect();
    let at_end = match empty.is_empty() {
        true => String::new(),
        false => format!(" (offset= is at the end of {})", empty.join(", ")),
    };
    RunError::Plan {
        job: job.name.clone(),
        why: format!(
            "its data set{at_end} is smaller than its smallest block of {} bytes: nothing to read or write (fio 3.33 fails the job: blocksize is larger than data set range)",
            job.min_bs()
        ),
    }
}

/// The setup failure of `job` (whose first thread is `global` among all), if any, its
/// files sized as the earlier jobs lay them out (`laid`), to which a job that does not
/// fail adds its own.
fn failure(job: &FioJob, global: u32, laid: &mut Laid) -> Option<SetupFail> {
    // an include fio could not open while it read the job (init.c td_verror): the
    // error stays the job's only while all its files exist, as fio clears it at the
    // first file its setup finds missing (filesetup.c get_file_sizes)
    if let Some(errno) = job.include_errno.filter(|_| files_all_exist(job)) {
        return Some(SetupFail {
            errno,
            first: None,
            line: Some(format!(
                "pid=0, err={errno}/file:init.c:1956, func=job file open, error={}",
                crate::files::strerror(errno)
            )),
            on_stdout: true,
            said: Vec::new(),
        });
    }
    let no_size = job.size.is_none() && job.filesize.is_none();
    if job.engine == crate::engine::registry::Kind::Null && no_size && !job.more.x.create_only {
        return Some(SetupFail::no_size(job));
    }
    let mut devices = Vec::new();
    let mut sized = Vec::new();
    for t in 0..job.numjobs {
        match files_for(job, t, global + t, laid) {
            Err(RunError::Files(FilesError::NoSize(_))) => return Some(SetupFail::no_size(job)),
            Err(RunError::Files(FilesError::Io { path, .. })) => devices.push(path),
            // no file (an `opendir` that added none) and no size: nothing to size
            Ok((files, _)) if files.is_empty() && no_size && job.more.replay.file.is_none() => {
                return Some(SetupFail::no_size(job))
            }
            Ok((files, regions)) if !files.is_empty() && below_one_block(job, &regions) => {
                let said = crate::run::fio::plan::may_be_ignored(job, &files, &regions);
                return Some(SetupFail::below_one_block(said));
            }
            Ok((files, _)) => sized.extend(files),
            Err(_) => {}
        }
    }
    devices.extend(sized.iter().map(|f| f.path.clone()));
    let failed = if job.engine.caps().no_io {
        None
    } else {
        devices.iter().find_map(|p| {
            let e = crate::files::dataset::block_device_open_error(p)?;
            SetupFail::blockdev(p, e.raw_os_error()?).into()
        })
    };
    let failed = failed.or_else(|| zbd_below_one_zone(job, &sized, laid));
    if failed.is_none() {
        laid.add(job, &sized);
    }
    failed
}

/// fio 3.33's failure of a `zonemode=zbd` job whose file is smaller than one zone when
/// the job is set up (zbd.c `init_zone_info`, before the layout: a file still to be
/// made is 0 bytes, one an earlier job lays out has that job's size): its line on
/// stderr, then `pid=0, err=22/file:zbd.c:985, func=zbd_create_zone_info() failed`.
/// An engine that touches no file has none to size.
fn zbd_below_one_zone(job: &FioJob, files: &[FileSpec], laid: &Laid) -> Option<SetupFail> {
    let zs = job.more.zones.size;
    let zbd = job.more.zones.mode == crate::job::fio::zone_keys::ZoneMode::Zbd;
    let caps = job.engine.caps();
    if !zbd || zs == 0 || caps.no_io || caps.own_files {
        return None;
    }
    let (f, size) = files
        .iter()
        .map(|f| (f, laid.size(&f.path).unwrap_or(0)))
        .find(|(_, size)| *size < zs)?;
    Some(SetupFail {
        errno: libc::EINVAL,
        first: Some(format!(
            "{}: file/device size {size} is smaller than zone size {zs}",
            f.path.display()
        )),
        line: Some(format!(
            "pid=0, err={}/file:zbd.c:985, func=zbd_create_zone_info() failed, error={}",
            libc::EINVAL,
            crate::files::strerror(libc::EINVAL)
        )),
        on_stdout: false,
        said: Vec::new(),
    })
}

/// fio 3.33's line when a job's data set is smaller than its smallest block.
pub(crate) const BELOW_ONE_BLOCK: &str = "fio: blocksize is larger than data set range";

/// Whether the job's size — `size=` in bytes, no more than the sum of its files' I/O
/// regions when that is not 0, else that sum — is below its smallest block size: fio
/// 3.33's setup fails then (`setup_files`), where iomark's plan would refuse the job.
fn below_one_block(job: &FioJob, regions: &[(u64, u64)]) -> bool {
    let total: u64 = regions.iter().map(|r| r.1).sum();
    let size = match job.size {
        Some(crate::job::fio::SizeSpec::Bytes(b)) if b > 0 && total > 0 => b.min(total),
        Some(crate::job::fio::SizeSpec::Bytes(b)) if b > 0 => b,
        _ => total,
    };
    !job.engine.caps().no_io && size < job.min_bs()
}

/// Whether every file of every thread of `job` exists now (always, on an engine that
/// touches no file: fio looks none up).
fn files_all_exist(job: &FioJob) -> bool {
    let caps = job.engine.caps();
    if caps.no_io || caps.own_files {
        return true;
    }
    (0..job.numjobs).all(|t| {
        crate::run::fio::plan::paths_of(job, t)
            .is_ok_and(|ps| ps.iter().all(|p| std::fs::metadata(p).is_ok()))
    })
}

/// fio 3.33's line on stderr for each file `readonly=1` does not lay out.
pub(crate) const READONLY_EXTEND: &str = "fio: refusing extend of file due to read-only";

/// A failed layout of `job`'s files as that job's setup failure (`Io` errors of the
/// files it names: the errno of the call that failed); other errors stay the run's.
/// fio 3.33 unlinks a file too short for the job before it lays it out again: a file
/// of a pseudo filesystem (proc, sysfs), whose unlink the kernel refuses, fails there
/// with EPERM, where iomark's write into it fails first.
pub(crate) fn layout_failure(e: &RunError) -> Option<SetupFail> {
    let readonly = Some(READONLY_EXTEND.to_string());
    let (errno, first, at) = match e {
        // readonly=1 (files::dataset::check_readonly_layout): fio's lines for the open
        // of a missing file and for the read past a short file's end
        RunError::Files(FilesError::ReadOnlyLayout { path, short: false }) => {
            let at = format!("filesetup.c:805, func=open({})", path.display());
            (libc::ENOENT, readonly, at)
        }
        RunError::Files(FilesError::ReadOnlyLayout { short: true, .. }) => {
            (libc::EIO, readonly, "backend.c:471, func=full resid".into())
        }
        RunError::Files(FilesError::Io { source, path, .. }) => {
            let errno = match source.raw_os_error()? {
                _ if on_pseudo_fs(path) => libc::EPERM,
                n => n,
            };
            (errno, None, "filesetup.c:150, func=unlink".into())
        }
        _ => return None,
    };
    let error = crate::files::strerror(errno);
    let line = Some(format!("pid=0, err={errno}/file:{at}, error={error}"));
    Some(SetupFail {
        errno,
        first,
        line,
        on_stdout: false,
        said: Vec::new(),
    })
}

/// Under the fio persona (`plan.fio_errors`), called on the job's thread with the error
/// that ended it: a file the thread could not open
/// (EACCES, EROFS …) as fio 3.33's thread fails its open: the thread's record with
/// nothing done, `error` the errno and fio's account of the open as its failure
/// (`file:filesetup.c:805, func=open(PATH), error=TEXT`), which the report's header
/// prints as the thread's `fio: pid=P, err=N/…` line on stdout
/// (report/fio/header.rs); the thread counts one in the exit value. Other errors, and
/// every error of `iomark run`, stay the run's.
pub(crate) fn open_failure(plan: &Plan, e: &RunError) -> Option<JobRecord> {
    let RunError::Files(FilesError::Io {
        path,
        op: "open",
        source,
    }) = e
    else {
        return None;
    };
    let errno = source.raw_os_error().filter(|_| plan.fio_errors)?;
    let func = format!("open({})", path.display());
    let account = crate::stats::job::FioAccount::new("filesetup.c", 805, func, errno);
    let mut r = crate::run::fio::thread::failed_thread(plan, account.in_setup());
    // the thread started: fio's cleanup after the failed open reaps once, nothing
    // completed (`iodepth_complete`'s "0" is then 100 %), and fio reports its latency
    // target as set up (depth: iodepth)
    r.stats.depth.complete[0] = 1;
    r.lat_target = Some(crate::run::fio::thread::lat_target_set_up(plan));
    Some(r)
}

/// Where fio 3.33 accounts a failed open of a job's file (filesetup.c's `file_open`).
pub const OPEN_AT: &str = "file:filesetup.c:805, func=open";

/// A regular file of proc or sysfs, whose unlink(2) the kernel refuses (EPERM).
fn on_pseudo_fs(path: &std::path::Path) -> bool {
    const PROC_SUPER_MAGIC: u64 = 0x9fa0;
    const SYSFS_MAGIC: u64 = 0x6265_6572;
    path.is_file()
        && rustix::fs::statfs(path).is_ok_and(|s| {
            matches!(
                s.f_type as u64 & 0xffff_ffff,
                PROC_SUPER_MAGIC | SYSFS_MAGIC
            )
        })
}

/// Say each of the job's threads' lines on stderr (stdout where fio prints them there: `on_stdout`), as fio prints them while it sets the
/// threads up one after the other: the first line, if any, then `fio: pid=0, err=…`.
pub(crate) fn say(job: &FioJob, f: &SetupFail) {
    let mut text = String::new();
    for _ in 0..job.numjobs {
        for l in &f.said {
            crate::out!("{l}\n");
        }
        if let Some(l) = &f.first {
            text += &format!("{l}\n");
        }
        if let Some(l) = &f.line {
            text += &format!("fio: {l}\n");
        }
    }
    if f.on_stdout {
        crate::out!("{text}");
    } else {
        eprint!("{text}");
    }
}
