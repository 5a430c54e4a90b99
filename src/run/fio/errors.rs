//! Error policy and target checks of `iomark run` that fio ties to job options:
//! which failed requests a job goes on after (`continue_on_error` + `ignore_error`),
//! the end of a `fill_device` job (ENOSPC), `allow_file_create=0`, and the `atomic=1`
//! preflight (statx STATX_WRITE_ATOMIC). Kept apart from the worker loop so the
//! per-I/O path only calls in on a failure.

use crate::engine::IoErr;
use crate::job::model::workload::Failure;
use crate::job::model::ErrorClass;
use std::path::Path;

/// fio's default list of non-fatal errors (`__NON_FATAL_ERR` in fio's backend): the ones
/// `continue_on_error` continues past when `ignore_error` gives no list.
pub const DEFAULT_NON_FATAL: [i32; 2] = [libc::EIO, libc::EILSEQ];

/// errno of a failed request; a short transfer counts as EIO (fio resubmits the rest,
/// iomark reports it as a failure of the request).
pub fn errno_of(e: IoErr) -> i32 {
    match e {
        IoErr::Errno(n) => n,
        IoErr::Short { .. } => libc::EIO,
    }
}

/// Whether a failed request of `class` is non-fatal for the job (fio's
/// `td_non_fatal_error`): its class is in `continue_on_error` — which an `ignore_error`
/// list of that class adds it to, unless a later `continue_on_error=` replaced the set
/// (job/fio/options/data.rs) — and its errno is in the class's list (default EIO, EILSEQ).
pub fn non_fatal(f: &Failure, class: ErrorClass, e: IoErr) -> bool {
    let i = match class {
        ErrorClass::Read => 0,
        ErrorClass::Write => 1,
        ErrorClass::Verify => 2,
    };
    if !f.continue_on.continues(class) {
        return false;
    }
    let list = f.ignore[i].as_deref();
    list.unwrap_or(&DEFAULT_NON_FATAL).contains(&errno_of(e))
}

/// Whether a failed write means "the device is full" for `fill_device` (fio stops the
/// job at ENOSPC; EDQUOT is the quota form of it). A short write is the kernel's answer
/// when the space runs out inside a request, so it ends the job too.
pub fn is_full(e: IoErr) -> bool {
    matches!(
        e,
        IoErr::Errno(libc::ENOSPC) | IoErr::Errno(libc::EDQUOT) | IoErr::Short { .. }
    )
}

/// Bytes a `fill_device` job may write to a regular file: what it holds now plus the
/// filesystem's free space, root's reserve included (statvfs `f_bfree × f_frsize`, as
/// fio): an unprivileged job meets ENOSPC earlier, which ends it normally. Rounded down
/// to `bs`; `None` when the directory cannot be examined.
pub fn fill_len(path: &Path, bs: u64) -> Option<u64> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let have = std::fs::metadata(path).map_or(0, |m| m.len());
    let free = crate::files::preflight::free_space_all(dir)?;
    let bs = bs.max(1);
    Some((have + free) / bs * bs)
}

/// `fill_device` region of one file: `(length, size on disk before the run)`, bytes.
/// A regular file's region runs from `start` over the free space (nothing is laid out:
/// the file keeps its size); a block device's region runs to its end. `None` when the
/// job does not fill: no `fill_device`, or a `size`/`filesize` given, which fio 3.33
/// keeps (it makes the size "really large" only when none is set, init.c), so the job
/// runs over that size and a full device still ends it normally.
pub fn fill_region(
    job: &crate::job::fio::FioJob,
    path: &Path,
    existing: Option<u64>,
    start: u64,
) -> Option<(u64, u64)> {
    if !fills(job) {
        return None;
    }
    let bs = job.bs_write.max();
    if crate::files::dataset::is_block_device(path) {
        let e = existing.unwrap_or(0);
        return Some((e.saturating_sub(start), e));
    }
    let have = existing.unwrap_or(0);
    let total = fill_len(path, bs).unwrap_or(have);
    Some((total.saturating_sub(start), have))
}

/// Whether job `job` fills the device: `fill_device=1` without a `size` or `filesize`.
pub fn fills(job: &crate::job::fio::FioJob) -> bool {
    job.more.x.fill_device && job.size.is_none() && job.filesize.is_none()
}

/// `allow_file_create=0`: every file must exist already (fio refuses to create it).
pub fn check_allow_create(files: &[&Path]) -> Result<(), String> {
    match files.iter().find(|p| !p.exists()) {
        Some(p) => Err(format!(
            "allow_file_create=0 and {} does not exist: fio would not create it, nor does iomark (create it first, or drop allow_file_create)",
            p.display()
        )),
        None => Ok(()),
    }
}

/// Atomic-write limits of a file or block device (statx STATX_WRITE_ATOMIC,
/// Linux ≥ 6.11): `(unit_min, unit_max)` bytes, `(0, 0)` when the target does not
/// support atomic writes (or the kernel does not report them).
pub fn atomic_limits(path: &Path) -> std::io::Result<(u32, u32)> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: zeroed statx is a valid out-parameter.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: valid NUL-terminated path and out-pointer.
    let r = unsafe {
        libc::statx(
            libc::AT_FDCWD,
            c.as_ptr(),
            0,
            libc::STATX_WRITE_ATOMIC,
            &mut st,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let supported = st.stx_mask & libc::STATX_WRITE_ATOMIC != 0
        && st.stx_attributes & (libc::STATX_ATTR_WRITE_ATOMIC as u64) != 0;
    Ok(if supported {
        (st.stx_atomic_write_unit_min, st.stx_atomic_write_unit_max)
    } else {
        (0, 0)
    })
}

/// `atomic=1` preflight, before any I/O: every file takes RWF_ATOMIC writes of every
/// write block size in `sizes` (a power of two within the unit limits).
pub fn check_atomic(files: &[&Path], sizes: &[u64]) -> Result<(), String> {
    for p in files {
        let (min, max) = atomic_limits(p).map_err(|e| {
            format!(
                "atomic=1: cannot read the atomic-write limits of {} (statx): {e}",
                p.display()
            )
        })?;
        if max == 0 {
            return Err(format!(
                "atomic=1: {} does not support atomic writes (statx STATX_WRITE_ATOMIC: atomic_write_unit_min={min}, atomic_write_unit_max={max} bytes); use a device or filesystem whose atomic_write_unit_max_bytes covers bs, or drop atomic",
                p.display()
            ));
        }
        if let Some(b) = sizes
            .iter()
            .find(|&&b| !b.is_power_of_two() || b < u64::from(min) || b > u64::from(max))
        {
            return Err(format!(
                "atomic=1: bs={b} is outside the atomic-write limits of {} (a power of two from {min} to {max} bytes, statx STATX_WRITE_ATOMIC)",
                p.display()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_fatal_follows_fios_lists() {
        use crate::job::fio::on_error::ContinueOnError as C;
        let mut m = crate::job::fio::FioJob::default().model().work.failure;
        let eio = IoErr::Errno(libc::EIO);
        let enospc = IoErr::Errno(libc::ENOSPC);
        assert!(!non_fatal(&m, ErrorClass::Write, eio));
        m.continue_on = C::WRITE;
        assert!(non_fatal(&m, ErrorClass::Write, eio));
        assert!(non_fatal(&m, ErrorClass::Write, IoErr::Short { done: 0 }));
        assert!(
            !non_fatal(&m, ErrorClass::Write, enospc),
            "not in the default list"
        );
        assert!(!non_fatal(&m, ErrorClass::Read, eio));
        m.ignore = crate::job::fio::keys_verify::parse_ignore_error(",ENOSPC").unwrap();
        assert!(non_fatal(&m, ErrorClass::Write, enospc));
        assert!(
            !non_fatal(&m, ErrorClass::Write, eio),
            "the list replaces the default"
        );
        // a `continue_on_error=none` after the list: nothing continues (fio's bit test)
        m.continue_on = C::NONE;
        assert!(!non_fatal(&m, ErrorClass::Write, enospc));
        m.continue_on = C::NONE.with(ErrorClass::Write);
        assert!(non_fatal(&m, ErrorClass::Write, enospc));
        assert!(!non_fatal(&m, ErrorClass::Read, enospc));
    }

    #[test]
    fn allow_create_and_atomic_errors_name_the_option() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("missing");
        let e = check_allow_create(&[f.as_path()]).unwrap_err();
        assert!(
            e.contains("allow_file_create=0") && e.contains("missing"),
            "{e}"
        );
        std::fs::write(&f, b"x").unwrap();
        assert_eq!(check_allow_create(&[f.as_path()]), Ok(()));
        match atomic_limits(&f).unwrap() {
            (_, 0) => {
                let e = check_atomic(&[f.as_path()], &[4096]).unwrap_err();
                assert!(
                    e.contains("atomic=1") && e.contains("atomic_write_unit_max=0"),
                    "{e}"
                );
            }
            (min, max) => {
                assert!(min <= max);
                assert!(check_atomic(&[f.as_path()], &[u64::from(max) * 2]).is_err());
            }
        }
        assert!(fill_len(&f, 4096).is_some_and(|n| n % 4096 == 0));
    }
}
