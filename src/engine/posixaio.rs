//! `posixaio`: POSIX AIO of the C library (aio_read, aio_write, aio_error, aio_return,
//! aio_suspend through `libc`), as fio 3.33's posixaio engine. glibc runs each request
//! on a helper thread of its own pool (one file's requests one after another), so what
//! is measured is that implementation, as with fio.
//!
//! `submit` starts the request (aio_read/aio_write) and returns: the worker's slat is
//! that call, as fio's issue time is taken when its queue hook returns. `reap` looks
//! at every request in flight with aio_error and takes all that are done (fio's
//! getevents takes every finished one too, whatever `iodepth_batch_complete_max` says),
//! then sleeps in aio_suspend until at least `min` are in, on the first [`SUSPEND_MAX`]
//! still running in slot order, as fio lists its first 8 in io_u order. Which ones are
//! listed decides how often the thread wakes: glibc runs one file's requests in order,
//! so listing all of them, or the oldest, wakes it at every completion (about half
//! fio's IOPS at QD32 on zram, bench/RUN_RESULTS_AIO.md), while fio's choice often
//! waits for later ones and then takes several completions per wake. At depth 1 the
//! job thread first looks again for up to 50 µs, yielding its processor between looks,
//! and only then sleeps (fio sleeps at once): the helper's wake-up of a sleeping job
//! thread is otherwise on the path of every request ([`PosixAio::spin`]). It looks only
//! for a request of at most [`LOOK_MAX_LEN`] bytes, one likely done within the look: a
//! large one keeps the helper busy past it, and the looks (each a yield) only crowded
//! the helper and the next submission (1 MiB reads on tmpfs: slat 213 µs, fio's 3 µs).
//! There is nothing to batch (fio's engine has no commit hook). fsync is synchronous,
//! after the worker has drained the queue.
//!
//! glibc's helper threads are shared by the whole process and each one uses the
//! descriptor table of the thread that created it, so a job thread on this engine keeps
//! the process's shared table ([`super::Caps::helper_threads`]): with a private table
//! per job thread, a helper created by one job read another job's descriptor number in
//! the first job's table (the wrong file, or `Bad file descriptor` once that job had
//! closed it).

use super::{last_errno, sync_fd, Completion, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;
use std::cell::UnsafeCell;
use std::os::fd::RawFd;

/// Most requests one aio_suspend waits on (fio's posixaio uses 8 too).
pub const SUSPEND_MAX: usize = 8;

/// How long a depth-1 job looks for its request's completion before it sleeps in
/// aio_suspend ([`PosixAio::spin`]).
const SPIN: std::time::Duration = std::time::Duration::from_micros(50);

/// The largest request a depth-1 job looks for before it sleeps ([`PosixAio::spin`]).
pub const LOOK_MAX_LEN: usize = 64 << 10;

/// One job thread's requests.
pub struct PosixAio {
    fds: Vec<RawFd>,
    /// one control block per slot; the C library's helper thread writes the result
    /// into it while the request runs, hence the cell
    cbs: Box<[UnsafeCell<libc::aiocb>]>,
    /// which slots are in flight
    busy: Vec<bool>,
    /// how many are
    in_flight: usize,
    /// the control blocks of the first requests still running (aio_suspend's list)
    running: Vec<*const libc::aiocb>,
    /// the last request submitted was small enough to look for ([`LOOK_MAX_LEN`])
    look: bool,
}

// SAFETY: the control blocks are owned by this value and the buffers they name belong
// to the worker that owns the engine; the engine moves between threads only as a whole
// (glibc's helper threads find a request through its control block's address, which a
// move of this value does not change: the blocks are boxed).
unsafe impl Send for PosixAio {}

impl PosixAio {
    /// An engine for `depth` requests in flight over `fds` (file numbers index it).
    pub fn new(fds: Vec<RawFd>, depth: usize) -> Self {
        let depth = depth.max(1);
        // SAFETY: aiocb is plain data; all-zero is a valid (unused) control block.
        let cbs = (0..depth)
            .map(|_| UnsafeCell::new(unsafe { std::mem::zeroed::<libc::aiocb>() }))
            .collect();
        PosixAio {
            fds,
            cbs,
            busy: vec![false; depth],
            in_flight: 0,
            running: Vec::with_capacity(depth),
            look: false,
        }
    }

    /// Take every finished request into `out`, in slot order; the first
    /// [`SUSPEND_MAX`] still running are left in `running`. Returns how many were taken.
    fn collect(&mut self, out: &mut Vec<Completion>) -> usize {
        self.running.clear();
        let mut n = 0;
        for slot in 0..self.busy.len() {
            if !self.busy[slot] {
                continue;
            }
            let cb = self.cbs[slot].get();
            // SAFETY: `cb` is the control block of a request started by `submit`.
            let err = unsafe { libc::aio_error(cb) };
            if err == libc::EINPROGRESS {
                if self.running.len() < SUSPEND_MAX {
                    self.running.push(cb);
                }
                continue;
            }
            // SAFETY: the request is done; aio_return reads its result once.
            let bytes = unsafe { libc::aio_return(cb) };
            let res = match err {
                0 => bytes as i64,
                e if e < 0 => -i64::from(last_errno()),
                e => -i64::from(e),
            };
            self.busy[slot] = false;
            self.in_flight -= 1;
            out.push(Completion { slot, res });
            n += 1;
        }
        n
    }

    /// At depth 1: look for the request's completion for up to [`SPIN`], yielding the
    /// processor between looks, before [`PosixAio::suspend`] sleeps on it. glibc's
    /// helper thread runs the request and then wakes a thread asleep in aio_suspend;
    /// at depth 1 that wake-up is on the path of every request (a sleeping processor
    /// of a virtual machine takes tens of microseconds to wake), so the job thread
    /// stays on its processor while the request is young. The yield hands the
    /// processor to the helper when both share it. Returns how many were taken.
    fn spin(&mut self, out: &mut Vec<Completion>) -> usize {
        let start = std::time::Instant::now();
        loop {
            std::thread::yield_now();
            let n = self.collect(out);
            if n > 0 || start.elapsed() >= SPIN {
                return n;
            }
        }
    }

    /// aio_suspend on the running requests, at most `timeout` (none: until one is
    /// done). EINTR and EAGAIN (the timeout) just return: the caller looks again.
    fn suspend(&self, timeout: Option<&libc::timespec>) {
        if self.running.is_empty() {
            return;
        }
        let ts = timeout.map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: every pointer names a control block of a running request; ts is
        // null or valid for the call.
        unsafe { libc::aio_suspend(self.running.as_ptr(), self.running.len() as i32, ts) };
    }
}

impl Engine for PosixAio {
    const KIND: Kind = Kind::Posixaio;
    const CAPS: super::Caps = super::Caps {
        helper_threads: true,
        ..super::Caps::SYNC
    };
    fn depth(&self) -> usize {
        self.cbs.len()
    }
    fn submit(&mut self, slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        let (Some(&fd), Some(cell)) = (self.fds.get(r.file), self.cbs.get(slot)) else {
            return Err(IoErr::Errno(libc::EBADF));
        };
        let cb = cell.get();
        // SAFETY: the slot is free (the worker hands out a slot again only after its
        // completion was reaped), so no helper thread touches this block now.
        unsafe {
            *cb = std::mem::zeroed();
            (*cb).aio_fildes = fd;
            (*cb).aio_buf = r.buf.cast();
            (*cb).aio_nbytes = r.len;
            (*cb).aio_offset = r.offset as libc::off_t;
            (*cb).aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        }
        // SAFETY: the block and the buffer stay valid and unmoved until reaped.
        let rc = unsafe {
            match r.dir {
                Dir::Read => libc::aio_read(cb),
                Dir::Write => libc::aio_write(cb),
            }
        };
        if rc != 0 {
            return Err(IoErr::Errno(last_errno()));
        }
        self.busy[slot] = true;
        self.in_flight += 1;
        self.look = r.len <= LOOK_MAX_LEN;
        Ok(None)
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        let want = min.min(self.in_flight);
        let mut got = self.collect(out);
        if got < want && self.cbs.len() == 1 && self.look {
            got += self.spin(out);
        }
        while got < want {
            self.suspend(None);
            got += self.collect(out);
        }
        Ok(())
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        match self.fds.get(file) {
            Some(&fd) => sync_fd(fd, kind),
            None => Err(IoErr::Errno(libc::EBADF)),
        }
    }
    /// aio_suspend for at most `timeout_ns`, then every finished request.
    fn wait_some(&mut self, timeout_ns: u64, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        if self.collect(out) == 0 {
            let ts = libc::timespec {
                tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
                tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
            };
            self.suspend(Some(&ts));
            self.collect(out);
        }
        Ok(())
    }
}

impl Drop for PosixAio {
    fn drop(&mut self) {
        // The helper threads write into the buffers and control blocks until each
        // request is done: wait for all of them before either is freed.
        let mut sink = Vec::new();
        while self.in_flight > 0 {
            self.collect(&mut sink);
            self.suspend(None);
            sink.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::buffers::Slab;
    use std::os::fd::AsRawFd;

    fn req(dir: Dir, slab: &Slab, slot: usize, block: u64) -> IoReq {
        IoReq {
            dir,
            file: 0,
            offset: block * 4096,
            len: 4096,
            buf: slab.bufs[slot].ptr(),
            buf_index: slot as u16,
            ioprio: 0,
        }
    }

    /// 8 reads in flight complete into the right buffers; a write lands in the file; a
    /// read past the end is short (0 bytes); a bad descriptor fails in `submit` or in
    /// its completion (EBADF either way).
    #[test]
    fn reads_writes_eof_and_errors() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        let data: Vec<u8> = (0..16u8).flat_map(|i| [i; 4096]).collect();
        std::fs::write(&p, data).unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&p)
            .unwrap();
        let mut slab = Slab::new(8, 4096);
        let mut e = PosixAio::new(vec![f.as_raw_fd(), -1], 8);
        for i in 0..8 {
            assert_eq!(
                e.submit(i, &req(Dir::Read, &slab, i, 7 - i as u64)),
                Ok(None)
            );
        }
        let mut out = Vec::new();
        while out.len() < 8 {
            e.reap(1, &mut out).unwrap();
        }
        assert!(out.iter().all(|c| c.res == 4096), "{out:?}");
        for i in 0..8 {
            assert!(slab.bufs[i].as_slice()[..4096]
                .iter()
                .all(|&b| b == 7 - i as u8));
        }
        slab.bufs[0].as_mut_slice()[..4096].fill(0xcd);
        assert_eq!(e.submit(0, &req(Dir::Write, &slab, 0, 3)), Ok(None));
        assert_eq!(e.submit(1, &req(Dir::Read, &slab, 1, 16)), Ok(None));
        let bad = IoReq {
            file: 1,
            ..req(Dir::Read, &slab, 2, 0)
        };
        let bad_now = e.submit(2, &bad);
        let mut out = Vec::new();
        let n = 2 + usize::from(bad_now.is_ok());
        while out.len() < n {
            e.reap(1, &mut out).unwrap();
        }
        out.sort_by_key(|c| c.slot);
        assert_eq!((out[0].slot, out[0].res), (0, 4096));
        assert_eq!((out[1].slot, out[1].res), (1, 0));
        match bad_now {
            Ok(None) => assert_eq!(out[2].res, -i64::from(libc::EBADF)),
            other => assert_eq!(other, Err(IoErr::Errno(libc::EBADF))),
        }
        use std::os::unix::fs::FileExt;
        let mut back = vec![0u8; 4096];
        f.read_exact_at(&mut back, 3 * 4096).unwrap();
        assert!(back.iter().all(|&b| b == 0xcd));
    }

    /// A pipe: (read end, write end).
    fn pipe() -> (std::fs::File, std::fs::File) {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills the array we own.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        use std::os::fd::FromRawFd;
        // SAFETY: both descriptors are new and owned by these files only.
        unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        }
    }

    /// At depth 1 `reap` takes a read that completes while it looks (a regular file)
    /// and one that completes only after its looking is over (a pipe written later by
    /// another thread), each with its byte count.
    #[test]
    fn depth_one_reap_takes_quick_and_late_completions() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, [7u8; 8192]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        let (r, mut w) = pipe();
        let slab = Slab::new(1, 4096);
        let mut e = PosixAio::new(vec![f.as_raw_fd(), r.as_raw_fd()], 1);
        for _ in 0..3 {
            assert_eq!(e.submit(0, &req(Dir::Read, &slab, 0, 1)), Ok(None));
            let mut out = Vec::new();
            e.reap(1, &mut out).unwrap();
            assert_eq!(out.len(), 1);
            assert_eq!((out[0].slot, out[0].res), (0, 4096));
        }
        let late = IoReq {
            file: 1,
            ..req(Dir::Read, &slab, 0, 0)
        };
        assert_eq!(e.submit(0, &late), Ok(None));
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            use std::io::Write;
            w.write_all(b"hello").unwrap();
            w
        });
        let mut out = Vec::new();
        e.reap(1, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].slot, out[0].res), (0, 5));
        drop(writer.join().unwrap());
    }

    /// A depth-1 job looks for a request of at most [`LOOK_MAX_LEN`] bytes before it
    /// sleeps, not for a larger one; both are reaped whole.
    #[test]
    fn depth_one_looks_only_for_small_requests() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        let big = LOOK_MAX_LEN + 4096;
        std::fs::write(&p, vec![3u8; big]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        let slab = Slab::new(1, big);
        let mut e = PosixAio::new(vec![f.as_raw_fd()], 1);
        for (len, look) in [(4096, true), (LOOK_MAX_LEN, true), (big, false)] {
            let r = IoReq {
                len,
                ..req(Dir::Read, &slab, 0, 0)
            };
            assert_eq!(e.submit(0, &r), Ok(None));
            assert_eq!(e.look, look, "{len}");
            let mut out = Vec::new();
            e.reap(1, &mut out).unwrap();
            assert_eq!((out.len(), out[0].res), (1, len as i64), "{len}");
        }
    }

    /// `wait_some` returns after its timeout while a read waits on an empty pipe, then
    /// with the completion once data arrives.
    #[test]
    fn wait_some_honours_its_timeout() {
        let (r, mut w) = pipe();
        let slab = Slab::new(1, 4096);
        let mut e = PosixAio::new(vec![r.as_raw_fd()], 1);
        assert_eq!(e.submit(0, &req(Dir::Read, &slab, 0, 0)), Ok(None));
        let mut out = Vec::new();
        let t = std::time::Instant::now();
        e.wait_some(20_000_000, &mut out).unwrap();
        assert!(out.is_empty(), "{out:?}");
        assert!(t.elapsed() >= std::time::Duration::from_millis(15));
        use std::io::Write;
        w.write_all(b"hello").unwrap();
        while out.is_empty() {
            e.wait_some(1_000_000_000, &mut out).unwrap();
        }
        assert_eq!((out[0].slot, out[0].res), (0, 5));
    }
}
