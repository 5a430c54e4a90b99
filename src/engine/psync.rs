//! `psync`: one `pread`/`pwrite` per request, completed inside `submit` (sysbench's
//! `sync` mode). A short transfer is an error (sysbench semantics), never counted as done.

use super::{sync_fd, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;
use std::os::fd::{BorrowedFd, RawFd};

/// pread/pwrite engine over a table of descriptors.
pub struct Psync {
    fds: Vec<RawFd>,
    /// `pwritev2` flags of writes (RWF_ATOMIC for fio's `atomic=1`); 0: plain pwrite
    write_flags: i32,
}

impl Psync {
    /// Engine over `fds` (indexed by file number; the caller keeps them open).
    pub fn new(fds: Vec<RawFd>) -> Self {
        Psync {
            fds,
            write_flags: 0,
        }
    }

    /// Issue writes with `pwritev2(…, flags)` (e.g. `libc::RWF_ATOMIC`); 0 keeps pwrite.
    pub fn write_flags(mut self, flags: i32) -> Self {
        self.write_flags = flags;
        self
    }
}

impl Engine for Psync {
    const KIND: Kind = Kind::Psync;
    const CAPS: super::Caps = super::Caps::SYNC;
    fn depth(&self) -> usize {
        1
    }
    #[inline]
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        // SAFETY: the descriptor stays open for the whole run (owned by the file set).
        let fd = unsafe { BorrowedFd::borrow_raw(self.fds[r.file]) };
        if r.dir == Dir::Write && self.write_flags != 0 {
            return pwritev2(self.fds[r.file], r, self.write_flags);
        }
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

/// One `pwritev2` of the whole request with `flags`, retried on EINTR.
fn pwritev2(fd: RawFd, r: &IoReq, flags: i32) -> Result<Option<usize>, IoErr> {
    let iov = libc::iovec {
        iov_base: r.buf.cast(),
        iov_len: r.len,
    };
    loop {
        // SAFETY: r.buf is valid for r.len bytes; fd stays open for the run.
        let n = unsafe { libc::pwritev2(fd, &iov, 1, r.offset as libc::off_t, flags) };
        if n < 0 {
            let e = super::last_errno();
            if e == libc::EINTR {
                continue;
            }
            return Err(IoErr::Errno(e));
        }
        return if n as usize == r.len {
            Ok(Some(r.len))
        } else {
            Err(IoErr::Short { done: n as usize })
        };
    }
}
