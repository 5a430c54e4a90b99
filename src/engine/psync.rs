//! `psync`: one `pread`/`pwrite` per request, completed inside `submit` (sysbench's
//! `sync` mode). A short transfer is an error (sysbench semantics), never counted as done.
//! With request flags (fio's `pvsync2` options: RWF_NOWAIT, RWF_HIPRI on a share of the
//! requests, fio 3.33's RWF_UNCACHED; `atomic=1`'s RWF_ATOMIC on writes) each request
//! is one `preadv2`/`pwritev2` instead, as every request is under fio's pvsync2.

use super::{sync_fd, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;
use std::os::fd::{BorrowedFd, RawFd};

/// pread/pwrite engine over a table of descriptors.
pub struct Psync {
    fds: Vec<RawFd>,
    /// `pwritev2` flags of writes (RWF_ATOMIC for fio's `atomic=1`); 0: plain pwrite
    write_flags: i32,
    /// `preadv2` flags of reads; 0: plain pread
    read_flags: i32,
    /// pvsync2's `hipri`: RWF_HIPRI on this share (percent) of the requests
    hipri: Option<Hipri>,
    /// every request one preadv2/pwritev2, flags or not (fio's pvsync2)
    v2: bool,
}

/// RWF_HIPRI on `percent` of the requests, drawn per request (fio's `rand_between(1,
/// 100) <= hipri_percentage`).
struct Hipri {
    percent: u32,
    state: u64,
}

impl Hipri {
    /// Whether this request is marked: a draw of 1..=100 at most `percent`.
    fn draw(&mut self) -> bool {
        // xorshift64*: a uniform draw per request, the same sequence every run
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let r = self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32;
        // (a draw d of 1..=100 is marked when d <= percent)
        ((r % 100) as u32) < self.percent
    }
}

impl Psync {
    /// Engine over `fds` (indexed by file number; the caller keeps them open).
    pub fn new(fds: Vec<RawFd>) -> Self {
        Psync {
            fds,
            write_flags: 0,
            read_flags: 0,
            hipri: None,
            v2: false,
        }
    }

    /// Issue every request with `preadv2`/`pwritev2` (fio's pvsync2), even without flags.
    pub fn v2(mut self, v2: bool) -> Self {
        self.v2 = v2;
        self
    }

    /// Issue writes with `pwritev2(…, flags)` (e.g. `libc::RWF_ATOMIC`); 0 keeps pwrite.
    pub fn write_flags(mut self, flags: i32) -> Self {
        self.write_flags = flags;
        self
    }

    /// Issue reads with `preadv2(…, flags)` (e.g. `libc::RWF_NOWAIT`); 0 keeps pread.
    pub fn read_flags(mut self, flags: i32) -> Self {
        self.read_flags = flags;
        self
    }

    /// Mark `percent` (0-100) of the requests RWF_HIPRI (pvsync2's `hipri`); `None`: none.
    pub fn hipri(mut self, percent: Option<u32>) -> Self {
        self.hipri = percent.map(|percent| Hipri {
            percent,
            state: 0x9E37_79B9_7F4A_7C15,
        });
        self
    }

    /// The flags of the next request in direction `dir`.
    #[inline]
    fn flags(&mut self, dir: Dir) -> i32 {
        let base = match dir {
            Dir::Read => self.read_flags,
            Dir::Write => self.write_flags,
        };
        if self.hipri.as_mut().is_some_and(Hipri::draw) {
            base | libc::RWF_HIPRI
        } else {
            base
        }
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
        let flags = self.flags(r.dir);
        if flags != 0 || self.v2 {
            return rw_v2(self.fds[r.file], r, flags);
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

/// One `preadv2`/`pwritev2` of the whole request with `flags`, retried on EINTR.
fn rw_v2(fd: RawFd, r: &IoReq, flags: i32) -> Result<Option<usize>, IoErr> {
    let iov = libc::iovec {
        iov_base: r.buf.cast(),
        iov_len: r.len,
    };
    loop {
        let at = r.offset as libc::off_t;
        // SAFETY: r.buf is valid for r.len bytes; fd stays open for the run.
        let n = unsafe {
            match r.dir {
                Dir::Read => libc::preadv2(fd, &iov, 1, at, flags),
                Dir::Write => libc::pwritev2(fd, &iov, 1, at, flags),
            }
        };
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn hipri_marks_its_share_of_the_requests_over_the_base_flags() {
        let n = 20_000usize;
        for pct in [0u32, 10, 50, 100] {
            let mut e = Psync::new(Vec::new())
                .read_flags(libc::RWF_NOWAIT)
                .hipri(Some(pct));
            let flags: Vec<i32> = (0..n).map(|_| e.flags(Dir::Read)).collect();
            assert!(flags.iter().all(|f| f & libc::RWF_NOWAIT != 0), "{pct}%");
            let marked = flags.iter().filter(|f| *f & libc::RWF_HIPRI != 0).count();
            // the share asked for, within 1% of the requests
            let want = n * pct as usize / 100;
            assert!(marked.abs_diff(want) <= n / 100, "{pct}%: {marked} of {n}");
        }
        // no hipri, no flags: pread/pwrite
        let mut e = Psync::new(Vec::new()).write_flags(libc::RWF_DSYNC);
        assert_eq!(e.flags(Dir::Read), 0);
        assert_eq!(e.flags(Dir::Write), libc::RWF_DSYNC);
    }

    #[test]
    fn flagged_requests_move_the_data_through_preadv2_and_pwritev2() {
        let d = tempfile::tempdir().unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(d.path().join("f"))
            .unwrap();
        // RWF_HIPRI on buffered I/O is taken (and ignored) by the kernel, as fio's
        // pvsync2 sends it; the data moves
        let mut e = Psync::new(vec![f.as_raw_fd()])
            .write_flags(libc::RWF_DSYNC)
            .hipri(Some(100));
        let mut data = vec![0xa5u8; 8192];
        let w = IoReq {
            buf: data.as_mut_ptr(),
            ..IoReq::bufferless(Dir::Write, 4096, 8192)
        };
        assert_eq!(e.submit(0, &w), Ok(Some(8192)));
        assert_eq!(f.metadata().unwrap().len(), 12288);
        let mut back = vec![0u8; 8192];
        let r = IoReq {
            buf: back.as_mut_ptr(),
            ..IoReq::bufferless(Dir::Read, 4096, 8192)
        };
        assert_eq!(e.submit(0, &r), Ok(Some(8192)));
        assert_eq!(back, data);
        // a flag the kernel refuses is the request's errno
        let mut bad = Psync::new(vec![f.as_raw_fd()]).read_flags(1 << 30);
        assert_eq!(bad.submit(0, &r), Err(IoErr::Errno(libc::EOPNOTSUPP)));
    }
}
