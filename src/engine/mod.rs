//! I/O engines behind one trait modelled on fio's ioengine ops.
//!
//! A worker owns one engine instance (`Send`, not shared) and a slab of aligned buffers
//! ([`buffers::Slab`]) that never move while a request is in flight. `submit` answers
//! `Some(bytes)` when the engine completed the request at once (psync, mmap) or `None`
//! when it was queued (io_uring, libaio, posixaio); the engines that move no data (falloc,
//! ftruncate, cpuio, the file and directory operations of `fileops`) complete in `submit`; queued requests come back through `reap` into a
//! caller-owned vector. Each engine says what it can do ([`Engine::CAPS`]); the
//! registry ([`registry`]) builds the one a job names and hands it to a generic
//! caller, so there is no per-I/O dynamic dispatch. Adding an engine is one file plus
//! its kind (util/engines.rs, [`Engine::KIND`]) and its arm in the registry.

pub mod anon;
pub mod cold;
pub mod cpuio;
pub mod e4defrag;
pub mod exec;
pub mod falloc;
pub mod fault;
pub mod fileops;
pub mod io_uring;
pub mod libaio;
pub mod mmap;
pub mod net;
pub mod null;
pub mod page_fault;
pub mod posixaio;
pub mod psync;
pub mod registry;

/// The aligned buffers requests use (defined in util/ so that files/ lays out data in the
/// same buffers without naming an engine).
pub use crate::util::buffers;
/// `errno` of the last failed libc call (util/errno.rs), for the engines.
pub use crate::util::errno::last_errno;

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

impl IoReq {
    /// A request without a buffer on file 0 (the engines' tests of calls that move no
    /// data: fallocate, the extent move).
    #[cfg(test)]
    pub fn bufferless(dir: Dir, offset: u64, len: usize) -> IoReq {
        IoReq {
            dir,
            file: 0,
            offset,
            len,
            buf: std::ptr::null_mut(),
            buf_index: 0,
            ioprio: 0,
        }
    }
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
    /// sync_file_range(2) of the whole file with these SYNC_FILE_RANGE_* flags (fio's
    /// `sync_file_range`)
    Range(u32),
}

/// What an engine can do, for the runners' decisions. Whether its requests may stay
/// queued after `submit` (completed through `reap`, `iodepth` in flight) is not here but
/// its kind's, [`crate::util::engines::Kind::queues`] (`E::KIND.queues()`): the job
/// model checks a job by that same fact and may not name this room; an engine that
/// does not queue completes every request inside `submit` (depth 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// touches no file: a job on it opens, lays out and checks nothing (null, cpuio:
    /// no memory either; net: its socket)
    pub no_io: bool,
    /// maps the files (read-write: the files are opened for writing; whole passes
    /// stay mapped, so no re-open between passes)
    pub maps_files: bool,
    /// registers the buffers with the kernel ([`registry::Spec::bufs`] are used)
    pub registers_buffers: bool,
    /// works on the files' paths ([`registry::Spec::paths`]): the runner opens no descriptor
    /// (the file and directory operation engines)
    pub paths: bool,
    /// the engine makes (or removes) its files itself: the runner lays out nothing and
    /// each file is one block (fio's `get_file_size` = the minimum block size)
    pub own_files: bool,
    /// works on the files' existing blocks (e4defrag moves them): the runner fills the
    /// files with data at layout even for a job that only writes (a hole moves nothing)
    pub needs_data: bool,
    /// moves a stream of data with a peer (net): a transfer of nothing ([`net::END`])
    /// is the peer's end of the data, which ends the job normally
    pub stream: bool,
    /// runs the requests on helper threads of the C library's process-wide pool
    /// (glibc's POSIX AIO): a helper resolves a request's descriptor in the table of
    /// the thread that created it, so the job thread must keep the process's shared
    /// descriptor table (no [`crate::engine::private_fd_table`])
    pub helper_threads: bool,
}

impl Caps {
    /// An engine on open descriptors and nothing more (psync, libaio: whether it
    /// queues is its kind's).
    pub const SYNC: Caps = Caps {
        no_io: false,
        maps_files: false,
        registers_buffers: false,
        paths: false,
        own_files: false,
        needs_data: false,
        stream: false,
        helper_threads: false,
    };
    /// An engine that is given no descriptor and touches no file (null, cpuio,
    /// page_fault, exec, net).
    pub const NO_IO: Caps = Caps {
        no_io: true,
        ..Caps::SYNC
    };
}

/// An I/O engine instance owned by one worker thread.
pub trait Engine {
    /// Which engine it is: its name as recorded in results (`psync`, `io_uring`,
    /// `libaio`, …) and its line of help are the kind's (util/engines.rs).
    const KIND: crate::util::engines::Kind;
    /// What the engine can do.
    const CAPS: Caps;
    /// The name of this engine's [`Engine::KIND`].
    fn name(&self) -> &'static str {
        Self::KIND.name()
    }
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
    /// Requests `submit` queued and has not handed to the device yet (batch mode: the
    /// last ones of an unfilled batch, or those a full queue sent back); 0 for every
    /// engine that hands each request over inside `submit`.
    #[inline(always)]
    fn unsubmitted(&self) -> usize {
        0
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

/// Give the calling thread its own copy of the file-descriptor table
/// (`unshare(CLONE_FILES)`), so the kernel's `fdget` skips the atomic reference count
/// on every `pread`/`pwrite` (it only does so when the table is not shared: a
/// single-threaded process, like fio's forked jobs). Call it first thing in a job
/// thread that opens its own files and hands no descriptor to other threads: the
/// descriptors it opens afterwards exist only in its table and close with it.
/// Descriptors opened before (stdin/out/err) stay usable. Failure (e.g. a seccomp
/// filter) only keeps the shared table: returns whether the table is private now.
pub fn private_fd_table() -> bool {
    // SAFETY: unshare(2) with CLONE_FILES only copies this thread's descriptor table.
    unsafe { libc::unshare(libc::CLONE_FILES) == 0 }
}

/// fsync/fdatasync on a descriptor, retrying on EINTR.
pub fn sync_fd(fd: RawFd, kind: SyncKind) -> Result<(), IoErr> {
    loop {
        // SAFETY: plain syscalls on a descriptor owned by the file set for the run.
        let r = unsafe {
            match kind {
                SyncKind::Fsync => libc::fsync(fd),
                SyncKind::Fdatasync => libc::fdatasync(fd),
                SyncKind::Range(flags) => libc::sync_file_range(fd, 0, 0, flags),
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

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;

    /// A descriptor opened after `private_fd_table` exists only in that thread's table:
    /// the process's other threads do not see it, and it closes with the thread.
    #[test]
    fn private_table_keeps_the_threads_descriptors_to_itself() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, b"x").unwrap();
        let (fd, private) = std::thread::spawn(move || {
            let private = super::private_fd_table();
            let f = std::fs::File::open(&p).unwrap();
            let fd = f.as_raw_fd();
            std::mem::forget(f); // left open: the thread's table closes it on exit
            (fd, private)
        })
        .join()
        .unwrap();
        if !private {
            eprintln!("SKIPPED: unshare(CLONE_FILES) refused here");
            return;
        }
        // this thread's table never had it (or has an unrelated file there)
        let target = std::fs::read_link(format!("/proc/self/fd/{fd}"));
        assert!(
            target.map_or(true, |t| !t.ends_with("f")),
            "fd {fd} leaked into the shared table"
        );
    }
}
