//! `mmap`: every file mapped whole (shared, read+write); a read copies from the mapping,
//! a write copies into it, and every fsync is `msync(MS_SYNC | MS_INVALIDATE)` of the
//! whole mapping, as sysbench's "fast mmaped" mode does. Page faults happen inside the
//! timed event, which is the point of this mode. A request is served only as far as
//! the file reaches (a mapping past the file's end is SIGBUS to touch): what lies past
//! it moves nothing, a short transfer the worker judges as every engine's (a file
//! `create_on_open=1` left empty gives the job its EIO, never a signal).

use super::{Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;
use std::os::fd::RawFd;

struct Map {
    ptr: *mut u8,
    len: usize,
    fd: RawFd,
    /// the file's size when last read (`fstat`), read again only when a request goes
    /// past it
    file_len: usize,
}

impl Map {
    /// How much of `len` bytes at `off` the file holds (its size read again when the
    /// last one read does not cover them: another job may have grown it).
    fn within_file(&mut self, off: u64, len: usize) -> usize {
        let off = usize::try_from(off).unwrap_or(usize::MAX);
        if off.saturating_add(len) > self.file_len {
            self.file_len = file_len(self.fd);
        }
        self.file_len.saturating_sub(off).min(len)
    }
}

/// The size of the file open at `fd` (0 when `fstat` fails: nothing is touched).
fn file_len(fd: RawFd) -> usize {
    // SAFETY: fstat(2) into a zeroed stat buffer of our own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `fd` is open while the engine lives
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return 0;
    }
    usize::try_from(st.st_size).unwrap_or(0)
}

/// mmap engine: one whole-file mapping per file, private to the worker thread.
pub struct Mmap {
    maps: Vec<Map>,
}

// SAFETY: the mappings are owned by this engine and used only by its worker thread.
unsafe impl Send for Mmap {}

impl Mmap {
    /// Map `len` bytes of each descriptor.
    pub fn new(fds: &[RawFd], len: usize) -> Result<Self, IoErr> {
        let mut maps = Vec::with_capacity(fds.len());
        for &fd in fds {
            // SAFETY: a fresh shared mapping of an open descriptor; unmapped in Drop.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len.max(1),
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd,
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                let e = super::last_errno();
                let m = Mmap { maps };
                drop(m);
                return Err(IoErr::Errno(e));
            }
            maps.push(Map {
                ptr: p.cast(),
                len: len.max(1),
                fd,
                file_len: file_len(fd),
            });
        }
        Ok(Mmap { maps })
    }

    /// posix_madvise(2) every mapping with `advice` (fio's mmap engine follows its
    /// `fadvise_hint` this way: POSIX_MADV_RANDOM or POSIX_MADV_SEQUENTIAL). Advice
    /// only: a refusal changes nothing and is not an error.
    pub fn madvise(self, advice: Option<libc::c_int>) -> Self {
        if let Some(a) = advice {
            for m in &self.maps {
                // SAFETY: advice on a mapping this engine owns, its exact range.
                unsafe { libc::posix_madvise(m.ptr.cast(), m.len, a) };
            }
        }
        self
    }
}

impl Engine for Mmap {
    const KIND: Kind = Kind::Mmap;
    const CAPS: super::Caps = super::Caps {
        maps_files: true,
        ..super::Caps::SYNC
    };
    fn depth(&self) -> usize {
        1
    }
    #[inline]
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        let m = &mut self.maps[r.file];
        let held = m.within_file(r.offset, r.len);
        if held < r.len {
            // past the file's end: the part it holds, nothing of the rest
            let part = IoReq { len: held, ..*r };
            // SAFETY: as below, for the part of the request inside the file
            return unsafe { copy_in_mapping(m.ptr, m.len, &part) };
        }
        // SAFETY: the mapping is `m.len` bytes at `m.ptr` while the engine lives
        unsafe { copy_in_mapping(m.ptr, m.len, r) }
    }
    fn sync(&mut self, file: usize, _kind: SyncKind) -> Result<(), IoErr> {
        let m = &self.maps[file];
        // SAFETY: msync of a mapping we own.
        let r = unsafe { libc::msync(m.ptr.cast(), m.len, libc::MS_SYNC | libc::MS_INVALIDATE) };
        if r == 0 {
            Ok(())
        } else {
            Err(IoErr::Errno(super::last_errno()))
        }
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        for m in &self.maps {
            // SAFETY: unmapping what `new` mapped.
            unsafe { libc::munmap(m.ptr.cast(), m.len) };
        }
    }
}

/// A request served by a copy between its buffer and a mapping of `len` bytes at
/// `base` (mmap's file mappings, page_fault's anonymous one); EINVAL outside it.
///
/// # Safety
/// `base` must be valid for `len` bytes, and `r.buf` for `r.len` bytes outside it.
#[inline]
pub(super) unsafe fn copy_in_mapping(
    base: *mut u8,
    len: usize,
    r: &IoReq,
) -> Result<Option<usize>, IoErr> {
    let off = usize::try_from(r.offset).map_err(|_| IoErr::Errno(libc::EINVAL))?;
    if off.checked_add(r.len).is_none_or(|end| end > len) || r.buf.is_null() {
        return Err(IoErr::Errno(libc::EINVAL));
    }
    // SAFETY: [off, off+len) lies inside the mapping (checked), r.buf is valid for
    // r.len bytes (the caller's contract)
    unsafe {
        match r.dir {
            Dir::Read => std::ptr::copy_nonoverlapping(base.add(off), r.buf, r.len),
            Dir::Write => std::ptr::copy_nonoverlapping(r.buf, base.add(off), r.len),
        }
    }
    Ok(Some(r.len))
}
