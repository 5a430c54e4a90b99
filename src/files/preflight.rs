//! Environment checks made before a file is created or a run starts: free space
//! (statvfs), the open-file limit (RLIMIT_NOFILE), O_DIRECT support and alignment
//! (a throw-away probe file and statx STATX_DIOALIGN). Memory-backed filesystems are a
//! probe fact (probe/pagecache.rs `memory_fs`).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Bytes available to an unprivileged writer on the filesystem holding `dir`; `None`
/// when unknown, and on a read-only filesystem: no write will happen there, so the
/// space check steps aside and the write's own error (EROFS) is what the user reads.
pub fn free_space(dir: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(dir).ok()?;
    // A filesystem without a capacity (ramfs reports 0 blocks) has no known free space.
    if s.f_blocks == 0 || s.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) {
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

/// Bytes of the regular file `path` within the byte ranges `regions` (`(first byte,
/// length)` each; overlaps counted once) that are holes or unwritten extents (a sparse
/// or fallocated file: reads there return zeros without reading the device), found
/// with SEEK_DATA/SEEK_HOLE (ext4 and XFS report unwritten extents as holes). Only
/// the part of a range inside the file counts: what a job reads, never more than the
/// ranges' sum. `None` when `path` is not a regular file or cannot be opened (a
/// device, a FIFO: never opened).
pub fn unwritten_bytes(path: &Path, regions: &[(u64, u64)]) -> Option<u64> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let m = std::fs::metadata(path).ok()?;
    if !m.is_file() {
        return None;
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let size = m.len();
    let mut total = 0u64;
    for (a, b) in merged(regions, size) {
        total += (b - a).saturating_sub(data_in(f.as_raw_fd(), a, b));
    }
    Some(total)
}

/// `regions` as sorted, disjoint `[start, end)` ranges clipped to `[0, size)`.
fn merged(regions: &[(u64, u64)], size: u64) -> Vec<(u64, u64)> {
    let mut r: Vec<(u64, u64)> = regions
        .iter()
        .map(|&(s, l)| (s.min(size), s.saturating_add(l).min(size)))
        .filter(|(a, b)| a < b)
        .collect();
    r.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(r.len());
    for (a, b) in r {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Bytes of data (neither hole nor unwritten extent) of descriptor `fd` in `[a, b)`.
fn data_in(fd: i32, a: u64, b: u64) -> u64 {
    let (b, mut pos, mut data) = (b as i64, a as i64, 0u64);
    while pos < b {
        // SAFETY: lseek on a descriptor the caller owns.
        let start = unsafe { libc::lseek(fd, pos, libc::SEEK_DATA) };
        if start < 0 || start >= b {
            break; // ENXIO: no data after pos
        }
        // SAFETY: as above.
        let end = unsafe { libc::lseek(fd, start, libc::SEEK_HOLE) };
        let end = if end < 0 { b } else { end.min(b) };
        data += (end - start).max(0) as u64;
        pos = end.max(start + 1);
    }
    data
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

/// The one wording of an O_DIRECT refusal, for every command (fileio, run, mark): the
/// filesystem type (its statfs magic, probe/diagnosis.rs `fs_name`) and the directory,
/// absolute: `ramfs at /mnt/r does not support O_DIRECT`. `at` is the directory or a
/// file in it (then its directory is named).
pub fn direct_refused(at: &Path) -> String {
    let dir = match at.parent() {
        _ if at.is_dir() => at,
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let fs = rustix::fs::statfs(dir)
        .ok()
        .and_then(|s| crate::probe::diagnosis::fs_name(s.f_type as u64))
        .unwrap_or("the filesystem");
    format!(
        "{fs} at {} does not support O_DIRECT",
        crate::files::dir_name(dir)
    )
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
        let e = crate::util::errno::last_errno();
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
    fn direct_refused_names_the_filesystem_and_the_directory_of_a_file() {
        let d = tempfile::tempdir().unwrap();
        let abs = std::fs::canonicalize(d.path()).unwrap();
        let fs = rustix::fs::statfs(d.path()).unwrap();
        let name = crate::probe::diagnosis::fs_name(fs.f_type as u64).unwrap_or("the filesystem");
        let line = format!("{name} at {} does not support O_DIRECT", abs.display());
        assert_eq!(direct_refused(d.path()), line);
        // a file (existing or not) names its directory
        assert_eq!(direct_refused(&d.path().join("f")), line);
    }

    #[test]
    fn probe_leaves_no_file_behind() {
        let d = tempfile::tempdir().unwrap();
        let _ = probe_direct_io(d.path());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn unwritten_bytes_count_only_the_regions_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        // 64 KiB: data in [16 KiB, 32 KiB), holes elsewhere
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(64 << 10).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, &[1u8; 16 << 10], 16 << 10).unwrap();
        f.sync_all().unwrap();
        let k = 1u64 << 10;
        // whole file: 48 KiB of holes
        assert_eq!(unwritten_bytes(&p, &[(0, 64 * k)]), Some(48 * k));
        // the first 32 KiB: 16 KiB of holes, never more than the region
        assert_eq!(unwritten_bytes(&p, &[(0, 32 * k)]), Some(16 * k));
        // the data alone: none; a region past the end counts only what is inside
        assert_eq!(unwritten_bytes(&p, &[(16 * k, 16 * k)]), Some(0));
        assert_eq!(unwritten_bytes(&p, &[(48 * k, 64 * k)]), Some(16 * k));
        // overlapping regions counted once
        let two = [(0, 8 * k), (4 * k, 8 * k)];
        assert_eq!(unwritten_bytes(&p, &two), Some(12 * k));
        // a directory is no regular file
        assert_eq!(unwritten_bytes(d.path(), &[(0, k)]), None);
    }

    #[test]
    fn free_space_is_known_for_tmp() {
        assert!(free_space(Path::new("/tmp")).is_some());
    }
}
