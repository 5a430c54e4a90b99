//! `page_fault`: fio's engine (engines/page_fault.c, newer than fio 3.33) that reads and
//! writes anonymous memory instead of a file. One private anonymous mapping of the
//! job's `size` is made when the engine is built; a write copies the buffer into the
//! mapping at the request's offset, a read copies out of it, so the first touch of each
//! page is a page fault (a zero page on read, a fresh page on write) timed inside the
//! request — which is what the engine measures. No file is opened or laid out
//! ([`super::Caps::no_io`]); syncs do nothing; a request beyond the mapping is EINVAL,
//! as fio's.

use super::{Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;

/// The page-fault engine: its anonymous mapping.
pub struct PageFault {
    map: super::anon::AnonMap,
}

impl PageFault {
    /// Map `len` bytes of anonymous memory (private, read+write; nothing is touched
    /// yet). `Err`: the kernel refused the mapping (ENOMEM, or `len` 0: EINVAL).
    pub fn new(len: usize) -> Result<Self, IoErr> {
        let map = super::anon::AnonMap::new(len).map_err(IoErr::Errno)?;
        Ok(PageFault { map })
    }
}

impl Engine for PageFault {
    const KIND: Kind = Kind::PageFault;
    const CAPS: super::Caps = super::Caps::NO_IO;
    fn depth(&self) -> usize {
        1
    }
    #[inline]
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        // SAFETY: the mapping is `len()` bytes at `ptr()` while the engine lives;
        // the worker's buffers are not part of it
        unsafe { super::mmap::copy_in_mapping(self.map.ptr(), self.map.len(), r) }
    }
    fn sync(&mut self, _file: usize, _kind: SyncKind) -> Result<(), IoErr> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Dir;

    fn req(dir: Dir, offset: u64, buf: &mut [u8]) -> IoReq {
        IoReq {
            dir,
            file: 0,
            offset,
            len: buf.len(),
            buf: buf.as_mut_ptr(),
            buf_index: 0,
            ioprio: 0,
        }
    }

    /// Minor page faults of this process so far (getrusage).
    fn minor_faults() -> i64 {
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage fills the struct we own
        unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
        u.ru_minflt
    }

    #[test]
    fn writes_land_in_memory_and_reads_bring_them_back() {
        let mut e = PageFault::new(1 << 20).unwrap();
        let mut w = vec![0xA5u8; 4096];
        assert_eq!(e.submit(0, &req(Dir::Write, 8192, &mut w)), Ok(Some(4096)));
        let mut r = vec![0u8; 4096];
        assert_eq!(e.submit(0, &req(Dir::Read, 8192, &mut r)), Ok(Some(4096)));
        assert_eq!(r, w);
        // an untouched page reads as zeros
        assert_eq!(e.submit(0, &req(Dir::Read, 0, &mut r)), Ok(Some(4096)));
        assert!(r.iter().all(|&b| b == 0));
        assert_eq!(e.sync(0, SyncKind::Fsync), Ok(()));
    }

    #[test]
    fn each_first_write_of_a_page_is_a_page_fault() {
        let pages = 64;
        let mut e = PageFault::new(pages * 4096).unwrap();
        let mut w = vec![1u8; 4096];
        let before = minor_faults();
        for i in 0..pages {
            e.submit(0, &req(Dir::Write, (i * 4096) as u64, &mut w))
                .unwrap();
        }
        let faults = minor_faults() - before;
        assert!(
            faults >= pages as i64 / 2,
            "{faults} faults for {pages} new pages"
        );
    }

    #[test]
    fn requests_outside_the_mapping_are_einval_not_a_crash() {
        let mut e = PageFault::new(8192).unwrap();
        let mut b = vec![0u8; 4096];
        for off in [4097, 8192, u64::MAX, u64::MAX - 10] {
            assert_eq!(
                e.submit(0, &req(Dir::Write, off, &mut b)),
                Err(IoErr::Errno(libc::EINVAL)),
                "{off}"
            );
        }
        let mut null = IoReq::bufferless(Dir::Read, 0, 16);
        null.buf = std::ptr::null_mut();
        assert_eq!(e.submit(0, &null), Err(IoErr::Errno(libc::EINVAL)));
        assert!(matches!(PageFault::new(0), Err(IoErr::Errno(libc::EINVAL))));
    }
}
