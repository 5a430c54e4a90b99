//! I/O engines behind one trait modelled on fio's ioengine ops.
//!
//! A worker owns one engine instance (`Send`, not shared) and a slab of aligned buffers
//! ([`buffers::Slab`]) that never move while a request is in flight. `submit` answers
//! `Some(bytes)` when the engine completed the request at once (psync, mmap) or `None`
//! when it was queued (io_uring); queued requests come back through `reap` into a
//! caller-owned vector. Workers are generic over `E: Engine`, so there is no per-I/O
//! dynamic dispatch. Adding an engine is one file plus one match arm in the runner.

pub mod buffers;
pub mod fault;
pub mod io_uring;
pub mod mmap;
pub mod null;
pub mod psync;

use std::os::fd::RawFd;

/// Direction of a data request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// read into the buffer
    Read,
    /// write from the buffer
    Write,
}

/// One data request handed to an engine.
#[derive(Clone, Copy, Debug)]
pub struct IoReq {
    /// direction
    pub dir: Dir,
    /// file index into the engine's file table
    pub file: usize,
    /// offset in the file, bytes
    pub offset: u64,
    /// length, bytes
    pub len: usize,
    /// buffer start; valid for `len` bytes until the request completes
    pub buf: *mut u8,
    /// registered-buffer index covering `buf`, for engines that use one
    pub buf_index: u16,
    /// Linux ioprio of this request (`class << 13 | hint << 3 | level`; 0 = the
    /// thread's priority). io_uring puts it in the SQE (fio's cmdprio_*); the
    /// synchronous engines run with the thread's priority only.
    pub ioprio: u16,
}

/// A completion from `reap`: the slot given to `submit`, and bytes or `-errno`.
#[derive(Clone, Copy, Debug)]
pub struct Completion {
    /// slot id given to `submit`
    pub slot: usize,
    /// bytes transferred (≥ 0) or a negated errno
    pub res: i64,
}

/// Why a request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoErr {
    /// the call failed with this errno
    Errno(i32),
    /// the call moved fewer bytes than asked (never counted as done)
    Short {
        /// bytes actually moved
        done: usize,
    },
}

/// fsync flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncKind {
    /// fsync(2)
    Fsync,
    /// fdatasync(2)
    Fdatasync,
}

/// An I/O engine instance owned by one worker thread.
pub trait Engine {
    /// Engine name as recorded in results (`psync`, `io_uring`, `mmap`).
    fn name(&self) -> &'static str;
    /// Most requests that may be in flight at once (1 for synchronous engines).
    fn depth(&self) -> usize;
    /// Start a request. `Ok(Some(n))`: completed now with `n` bytes; `Ok(None)`: queued,
    /// it will be returned by `reap` with `slot`. `Err` on immediate failure.
    fn submit(&mut self, slot: usize, req: &IoReq) -> Result<Option<usize>, IoErr>;
    /// Hand every request queued since the last flush to the device (io_uring in batch
    /// mode: one `io_uring_enter` for the batch). `Ok(true)` when requests were handed
    /// over now (their submission ends now); `Ok(false)` when there was nothing to do
    /// (synchronous engines, or io_uring submitting each request in `submit`).
    fn flush(&mut self) -> Result<bool, IoErr> {
        Ok(false)
    }
    /// Wait for at least `min` queued requests and append every available completion.
    fn reap(&mut self, _min: usize, _out: &mut Vec<Completion>) -> Result<(), IoErr> {
        Ok(())
    }
    /// Make `file` durable (fsync, fdatasync, or msync for mmap).
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr>;
    /// Wait at most `timeout_ns` for a queued request to complete and append every
    /// available completion (none may be). Used to reap while a rate-limited submitter
    /// waits for its next due time (`io_submit_mode=offload`). The default sleeps up to
    /// 50 µs and then collects what is ready.
    fn wait_some(&mut self, timeout_ns: u64, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        std::thread::sleep(std::time::Duration::from_nanos(timeout_ns.min(50_000)));
        self.reap(0, out)
    }
}

/// `errno` of the last failed libc call.
pub fn last_errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// fsync/fdatasync on a descriptor, retrying on EINTR.
pub fn sync_fd(fd: RawFd, kind: SyncKind) -> Result<(), IoErr> {
    loop {
        // SAFETY: plain syscalls on a descriptor owned by the file set for the run.
        let r = unsafe {
            match kind {
                SyncKind::Fsync => libc::fsync(fd),
                SyncKind::Fdatasync => libc::fdatasync(fd),
            }
        };
        if r == 0 {
            return Ok(());
        }
        let e = last_errno();
        if e != libc::EINTR {
            return Err(IoErr::Errno(e));
        }
    }
}
