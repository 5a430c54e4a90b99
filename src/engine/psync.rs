//! `psync`: one `pread`/`pwrite` per request, completed inside `submit` (sysbench's
//! `sync` mode). A short transfer is an error (sysbench semantics), never counted as done.

use super::{last_errno, sync_fd, Dir, Engine, IoErr, IoReq, SyncKind};
use std::os::fd::RawFd;

/// pread/pwrite engine over a table of descriptors.
pub struct Psync {
    fds: Vec<RawFd>,
}

impl Psync {
    /// Engine over `fds` (indexed by file number; the caller keeps them open).
    pub fn new(fds: Vec<RawFd>) -> Self {
        Psync { fds }
    }
}

impl Engine for Psync {
    fn name(&self) -> &'static str {
        "psync"
    }
    fn depth(&self) -> usize {
        1
    }
    #[inline]
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        let fd = self.fds[r.file];
        loop {
            // SAFETY: r.buf is valid for r.len bytes (worker-owned aligned buffer).
            let n = unsafe {
                match r.dir {
                    Dir::Read => libc::pread(fd, r.buf.cast(), r.len, r.offset as libc::off_t),
                    Dir::Write => libc::pwrite(fd, r.buf.cast(), r.len, r.offset as libc::off_t),
                }
            };
            if n < 0 {
                let e = last_errno();
                if e == libc::EINTR {
                    continue;
                }
                return Err(IoErr::Errno(e));
            }
            let n = n as usize;
            return if n == r.len { Ok(Some(n)) } else { Err(IoErr::Short { done: n }) };
        }
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        sync_fd(self.fds[file], kind)
    }
}
