//! `psync`: one `pread`/`pwrite` per request, completed inside `submit` (sysbench's
//! `sync` mode). A short transfer is an error (sysbench semantics), never counted as done.

use super::{sync_fd, Dir, Engine, IoErr, IoReq, SyncKind};
use std::os::fd::{BorrowedFd, RawFd};

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
        // SAFETY: the descriptor stays open for the whole run (owned by the file set).
        let fd = unsafe { BorrowedFd::borrow_raw(self.fds[r.file]) };
        loop {
            // rustix issues the syscall directly (no libc cancellation-point wrapper).
            // SAFETY: r.buf is valid for r.len bytes (worker-owned aligned buffer).
            let res = unsafe {
                match r.dir {
                    Dir::Read => rustix::io::pread(
                        fd,
                        std::slice::from_raw_parts_mut(r.buf, r.len),
                        r.offset,
                    ),
                    Dir::Write => {
                        rustix::io::pwrite(fd, std::slice::from_raw_parts(r.buf, r.len), r.offset)
                    }
                }
            };
            match res {
                Ok(n) if n == r.len => return Ok(Some(n)),
                Ok(n) => return Err(IoErr::Short { done: n }),
                Err(e) if e == rustix::io::Errno::INTR => continue,
                Err(e) => return Err(IoErr::Errno(e.raw_os_error())),
            }
        }
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        sync_fd(self.fds[file], kind)
    }
}
