//! Environment checks made before a file is created or a run starts: free space
//! (statvfs), the open-file limit (RLIMIT_NOFILE), O_DIRECT support and alignment
//! (a throw-away probe file and statx STATX_DIOALIGN). Memory-backed filesystems are a
//! probe fact (probe/pagecache.rs `memory_fs`).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Bytes available to an unprivileged writer on the filesystem holding `dir`.
pub fn free_space(dir: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(dir).ok()?;
    // A filesystem without a capacity (ramfs reports 0 blocks) has no known free space.
    if s.f_blocks == 0 {
        return None;
    }
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

/// Free bytes of the filesystem holding `dir`, the blocks reserved for root included
/// (statvfs `f_bfree × f_frsize`, what fio's `get_fs_free_size` reports): where a
/// `fill_device` job may get to before ENOSPC. `None` as for [`free_space`].
pub fn free_space_all(dir: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(dir).ok()?;
    if s.f_blocks == 0 {
        return None;
    }
    Some(s.f_bfree.saturating_mul(s.f_frsize))
}

/// Make sure `need` descriptors can be open at once, raising the soft limit up to the
/// hard limit if needed. `Err((soft, hard))` when even the hard limit is too low.
pub fn ensure_nofile(need: u64) -> Result<(), (u64, u64)> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Ok(());
    }
    if lim.rlim_cur >= need {
        return Ok(());
    }
    if lim.rlim_max < need {
        return Err((lim.rlim_cur, lim.rlim_max));
    }
    let new = libc::rlimit {
        rlim_cur: need,
        rlim_max: lim.rlim_max,
    };
    // SAFETY: setrlimit reads the struct we own.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &new) } != 0 {
        return Err((lim.rlim_cur, lim.rlim_max));
    }
    Ok(())
}

/// What the O_DIRECT probe found.
#[derive(Debug, PartialEq, Eq)]
pub enum DirectIo {
    /// O_DIRECT works; offsets and sizes must be multiples of `align` bytes (0 = unknown).
    Supported {
        /// statx `stx_dio_offset_align`
        align: u32,
    },
    /// Opening with O_DIRECT fails with EINVAL: the filesystem refuses direct I/O.
    Unsupported,
    /// The probe could not be made (e.g. no permission); later steps will report.
    Unknown,
}

/// Probe O_DIRECT in `dir` with a throw-away file that is removed again.
pub fn probe_direct_io(dir: &Path) -> DirectIo {
    let probe = dir.join(format!(".iomark-dio-probe.{}", std::process::id()));
    let Ok(c) = CString::new(probe.as_os_str().as_bytes()) else {
        return DirectIo::Unknown;
    };
    // SAFETY: open(2) with a valid C string.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_CREAT | libc::O_EXCL | libc::O_RDWR | libc::O_DIRECT | libc::O_CLOEXEC,
            0o600,
        )
    };
    if fd < 0 {
        let e = crate::engine::last_errno();
        // An O_DIRECT open can fail after creating the file.
        // SAFETY: unlink of our own probe name.
        unsafe { libc::unlink(c.as_ptr()) };
        return if e == libc::EINVAL {
            DirectIo::Unsupported
        } else {
            DirectIo::Unknown
        };
    }
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    let empty = CString::default();
    // SAFETY: statx on our descriptor with AT_EMPTY_PATH, writing into `st`.
    let r = unsafe {
        libc::statx(
            fd,
            empty.as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            &mut st,
        )
    };
    let align = if r == 0 && st.stx_mask & libc::STATX_DIOALIGN != 0 {
        st.stx_dio_offset_align
    } else {
        0
    };
    // SAFETY: closing and unlinking what we created.
    unsafe {
        libc::close(fd);
        libc::unlink(c.as_ptr());
    }
    DirectIo::Supported { align }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_leaves_no_file_behind() {
        let d = tempfile::tempdir().unwrap();
        let _ = probe_direct_io(d.path());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn free_space_is_known_for_tmp() {
        assert!(free_space(Path::new("/tmp")).is_some());
    }
}
