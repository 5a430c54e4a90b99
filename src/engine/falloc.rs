//! `falloc` and `ftruncate`: fio's engines that move no data but change a file's
//! allocation. falloc turns each request into fallocate(2) over its range: a read
//! allocates keeping the size (FALLOC_FL_KEEP_SIZE), a write allocates and extends
//! (mode 0); trims are the worker's hole punches, which is what falloc does for them.
//! ftruncate turns each write into ftruncate(2) to the request's offset and refuses
//! reads (EINVAL), as fio's does. Both complete inside `submit`.

use super::{sync_fd, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;
use std::os::fd::RawFd;

/// fallocate(2) per request.
pub struct Falloc {
    fds: Vec<RawFd>,
}

/// ftruncate(2) per write.
pub struct Ftruncate {
    fds: Vec<RawFd>,
}

impl Falloc {
    /// Engine over `fds` (indexed by file number; the caller keeps them open).
    pub fn new(fds: Vec<RawFd>) -> Self {
        Falloc { fds }
    }
}

impl Ftruncate {
    /// Engine over `fds` (indexed by file number; the caller keeps them open).
    pub fn new(fds: Vec<RawFd>) -> Self {
        Ftruncate { fds }
    }
}

/// A call's result as a completion of `len` bytes, retrying on EINTR.
fn complete(len: usize, mut call: impl FnMut() -> libc::c_int) -> Result<Option<usize>, IoErr> {
    loop {
        if call() == 0 {
            return Ok(Some(len));
        }
        let e = super::last_errno();
        if e != libc::EINTR {
            return Err(IoErr::Errno(e));
        }
    }
}

const SYNC_CAPS: super::Caps = super::Caps::SYNC;

impl Engine for Falloc {
    const KIND: Kind = Kind::Falloc;
    const CAPS: super::Caps = SYNC_CAPS;
    fn depth(&self) -> usize {
        1
    }
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        let fd = self.fds[r.file];
        let mode = match r.dir {
            Dir::Read => libc::FALLOC_FL_KEEP_SIZE,
            Dir::Write => 0,
        };
        // SAFETY: fallocate on a descriptor the file set keeps open for the run.
        complete(r.len, || unsafe {
            libc::fallocate(fd, mode, r.offset as libc::off_t, r.len as libc::off_t)
        })
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        sync_fd(self.fds[file], kind)
    }
}

impl Engine for Ftruncate {
    const KIND: Kind = Kind::Ftruncate;
    const CAPS: super::Caps = SYNC_CAPS;
    fn depth(&self) -> usize {
        1
    }
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        if r.dir == Dir::Read {
            return Err(IoErr::Errno(libc::EINVAL));
        }
        let fd = self.fds[r.file];
        // SAFETY: ftruncate on a descriptor the file set keeps open for the run.
        complete(r.len, || unsafe {
            libc::ftruncate(fd, r.offset as libc::off_t)
        })
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        sync_fd(self.fds[file], kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;

    fn req(dir: Dir, offset: u64, len: usize) -> IoReq {
        IoReq::bufferless(dir, offset, len)
    }

    #[test]
    fn falloc_allocates_and_a_read_keeps_the_size() {
        let d = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(d.path().join("f")).unwrap();
        let mut e = Falloc::new(vec![f.as_raw_fd()]);
        assert_eq!(e.submit(0, &req(Dir::Read, 0, 65536)), Ok(Some(65536)));
        let m = f.metadata().unwrap();
        assert_eq!(m.len(), 0, "KEEP_SIZE");
        assert!(
            m.blocks() * 512 >= 65536,
            "allocated: {} blocks",
            m.blocks()
        );
        assert_eq!(e.submit(0, &req(Dir::Write, 65536, 4096)), Ok(Some(4096)));
        assert_eq!(f.metadata().unwrap().len(), 69632);
    }

    #[test]
    fn ftruncate_sets_the_size_to_the_offset_and_refuses_reads() {
        let d = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(d.path().join("f")).unwrap();
        let mut e = Ftruncate::new(vec![f.as_raw_fd()]);
        assert_eq!(e.submit(0, &req(Dir::Write, 12288, 4096)), Ok(Some(4096)));
        assert_eq!(f.metadata().unwrap().len(), 12288);
        assert_eq!(
            e.submit(0, &req(Dir::Read, 0, 4096)),
            Err(IoErr::Errno(libc::EINVAL))
        );
        assert_eq!(e.sync(0, SyncKind::Fsync), Ok(()));
    }
}
