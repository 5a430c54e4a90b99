//! `libaio`: Linux native AIO through its four system calls (io_setup, io_submit,
//! io_getevents, io_destroy) — the kernel ABI of include/uapi/linux/aio_abi.h, no C
//! library. One context of `depth` events per job thread, one iocb per slot.
//!
//! Submission follows fio 3.33's libaio engine: `submit` queues the iocb and hands the
//! queue to the kernel with one io_submit once [`Aio::batched`] requests are queued
//! (fio's `iodepth_batch_submit`, default 1: every request is submitted inside `submit`,
//! so the worker's slat — start → return of `submit` — ends when io_submit returns, as
//! fio's issue time does); a shorter queue goes at [`Engine::flush`] or before the next
//! wait. Buffered I/O is done inside io_submit by the kernel (it completes at once), so
//! on a page-cache or tmpfs file nearly all of the latency is slat, as in fio.
//! Completions are taken with io_getevents(min, max) where max is fio's
//! `iodepth_batch_complete_max` ([`Aio::reap_max`]); with fio's `userspace_reap`
//! ([`Aio::user_reap`]) they are read from the completion ring the kernel maps into the
//! process, without a system call, spinning until enough are there.
//!
//! A request the kernel refuses at io_submit (EBADF, EINVAL for a bad iocb) fails
//! in `submit` when it was submitted there; in batch mode the batch's commit fails
//! with its errno (in the `submit`, `flush` or `reap` that handed the batch over) and
//! the rest of the batch is never handed over, as fio 3.33's failed `td_io_commit`.
//! fsync stays a synchronous syscall (fio's libaio does the same: Linux has no AIO
//! fsync for most files).

use super::{last_errno, sync_fd, Completion, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

/// `IOCB_CMD_PREAD` / `IOCB_CMD_PWRITE` (aio_abi.h).
const CMD_PREAD: u16 = 0;
const CMD_PWRITE: u16 = 1;
/// `IOCB_FLAG_IOPRIO`: `aio_reqprio` holds an ioprio value (Linux 5.0+).
const FLAG_IOPRIO: u32 = 1 << 1;
/// Magic of the completion ring the kernel maps at the context's address (fs/aio.c).
const RING_MAGIC: u32 = 0xa10a_10a1;

/// `struct iocb` (64 bytes; key and rw_flags swap places on big-endian machines).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    data: u64,
    #[cfg(target_endian = "little")]
    key: u32,
    rw_flags: i32,
    #[cfg(target_endian = "big")]
    key: u32,
    opcode: u16,
    reqprio: i16,
    fildes: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// `struct io_event`: the iocb's `data`, its address, the result and a second result.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

/// Header of the completion ring (`struct aio_ring`, fs/aio.c); the events follow it.
#[repr(C)]
struct Ring {
    id: u32,
    nr: u32,
    head: u32,
    tail: u32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

/// How long io_submit may answer EAGAIN with nothing in flight before the request
/// fails (fio's libaio gives up after 30 s too: "aio appears to be stalled").
const STALL: std::time::Duration = std::time::Duration::from_secs(30);

/// `aio_context_t`: the address of the context's completion ring.
type Ctx = libc::c_ulong;

/// A system call's return value, or the errno it failed with.
fn ret(r: libc::c_long) -> Result<usize, i32> {
    if r < 0 {
        Err(last_errno())
    } else {
        Ok(r as usize)
    }
}

/// Why a context could not be set up, with what to do about it.
pub fn setup_why(e: &std::io::Error, depth: usize) -> String {
    match e.raw_os_error() {
        Some(libc::EAGAIN) => {
            let max = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "?".into());
            format!(
                "io_setup for iodepth={depth}: {e}: the iodepth of the job threads running at once (and any other AIO user) exceeds fs.aio-max-nr={max} events; lower iodepth or numjobs, or raise it with sysctl fs.aio-max-nr"
            )
        }
        Some(libc::ENOSYS) => format!("native AIO is not available in this kernel (io_setup: {e})"),
        Some(libc::EPERM) => format!("io_setup is not permitted here (a seccomp profile?): {e}"),
        _ => format!("io_setup for iodepth={depth}: {e}"),
    }
}

/// Check that a native AIO context can be created (before any file is touched).
pub fn probe() -> std::io::Result<()> {
    Aio::new(Vec::new(), 1).map(drop)
}

/// One job thread's AIO context.
pub struct Aio {
    ctx: Ctx,
    fds: Vec<RawFd>,
    depth: usize,
    /// one iocb per slot (the kernel copies it at io_submit)
    iocbs: Vec<Iocb>,
    /// iocbs queued and not yet handed to the kernel
    queue: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    /// requests submitted and not yet reaped
    in_flight: usize,
    /// io_submit once this many are queued (fio's iodepth_batch_submit)
    batch: usize,
    /// completions taken per `reap` (fio's iodepth_batch_complete_max)
    reap_max: usize,
    /// `aio_rw_flags` of writes (RWF_ATOMIC for fio's `atomic=1`, RWF_NOWAIT for `nowait=1`)
    write_flags: i32,
    /// `aio_rw_flags` of reads (RWF_NOWAIT for fio's `nowait=1`)
    read_flags: i32,
    /// read completions from the mapped ring (fio's `userspace_reap`)
    user_reap: bool,
}

// SAFETY: the queued iocb pointers point into `iocbs`, owned by this value, and the
// buffers requests name belong to the worker that owns the engine; the engine moves
// between threads only as a whole.
unsafe impl Send for Aio {}

impl Aio {
    /// A context for `depth` requests in flight over `fds` (file numbers index it).
    pub fn new(fds: Vec<RawFd>, depth: usize) -> std::io::Result<Self> {
        let depth = depth.max(1);
        let nr = libc::c_long::try_from(depth)
            .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
        let mut ctx: Ctx = 0;
        // SAFETY: io_setup writes the new context into `ctx`, which we own.
        ret(unsafe { libc::syscall(libc::SYS_io_setup, nr, &mut ctx as *mut Ctx) })
            .map_err(std::io::Error::from_raw_os_error)?;
        Ok(Aio {
            ctx,
            fds,
            depth,
            iocbs: vec![Iocb::default(); depth],
            queue: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
            in_flight: 0,
            batch: 1,
            reap_max: usize::MAX,
            write_flags: 0,
            read_flags: 0,
            user_reap: false,
        })
    }

    /// Hand requests to the kernel `n` at a time (fio's `iodepth_batch_submit`; 0 and 1:
    /// each one in its `submit`).
    pub fn batched(mut self, n: usize) -> Self {
        self.batch = n.clamp(1, self.depth);
        self
    }

    /// Take at most `n` completions per [`Engine::reap`] (0 = no limit).
    pub fn reap_max(mut self, n: usize) -> Self {
        self.reap_max = if n == 0 { usize::MAX } else { n };
        self
    }

    /// Give writes these `aio_rw_flags` (e.g. `libc::RWF_ATOMIC`).
    pub fn write_flags(mut self, flags: i32) -> Self {
        self.write_flags = flags;
        self
    }

    /// Give reads these `aio_rw_flags` (e.g. `libc::RWF_NOWAIT`).
    pub fn read_flags(mut self, flags: i32) -> Self {
        self.read_flags = flags;
        self
    }

    /// Read completions from the ring in user space, spinning until enough are there
    /// (fio's `userspace_reap`; used when the kernel's ring has the expected layout).
    pub fn user_reap(mut self, on: bool) -> Self {
        self.user_reap = on && self.ring().is_some();
        self
    }

    /// The mapped completion ring, when it has the layout this module knows.
    fn ring(&self) -> Option<*const Ring> {
        let ring = self.ctx as *const Ring;
        // SAFETY: a live context's address is the kernel's mapped ring header.
        let ok = unsafe { (*ring).magic == RING_MAGIC && (*ring).incompat_features == 0 };
        ok.then_some(ring)
    }

    /// Hand the queue to the kernel. An iocb the kernel refuses fails the commit with its
    /// errno, the requests still queued dropped (fio 3.33's failed `td_io_commit`);
    /// EAGAIN with requests in flight leaves the rest queued for after the next reap
    /// (the kernel is out of request slots).
    fn commit(&mut self) -> Result<(), IoErr> {
        let mut done = 0;
        let mut stalled: Option<std::time::Instant> = None;
        while done < self.queue.len() {
            let rest = &mut self.queue[done..];
            // SAFETY: every pointer names an iocb of `self.iocbs`, filled for a request
            // whose buffer stays valid until its completion is reaped.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    rest.len() as libc::c_long,
                    rest.as_mut_ptr(),
                )
            };
            match ret(r) {
                Ok(0) | Err(libc::EAGAIN) if self.in_flight > 0 => break,
                Err(libc::EINTR) => continue,
                Ok(0) | Err(libc::EAGAIN) => {
                    // nothing in flight to make room: retry for up to 30 s, as fio does
                    let t = *stalled.get_or_insert_with(std::time::Instant::now);
                    if t.elapsed() > STALL {
                        self.queue.drain(..done);
                        return Err(IoErr::Errno(libc::EAGAIN));
                    }
                    std::thread::sleep(std::time::Duration::from_micros(1));
                }
                Ok(n) => {
                    done += n;
                    self.in_flight += n;
                }
                Err(e) => {
                    // the kernel refused the first iocb left: the commit fails, as fio
                    // 3.33's `td_io_commit` does, and the requests still queued are
                    // never handed over
                    self.queue.clear();
                    return Err(IoErr::Errno(e));
                }
            }
        }
        self.queue.drain(..done);
        Ok(())
    }

    /// Wait for at least `min` completions (at most `max`) with io_getevents, or read
    /// them from the ring with `user_reap`; `timeout`: give up after it (none: wait).
    fn getevents(
        &mut self,
        min: usize,
        max: usize,
        timeout: Option<&libc::timespec>,
    ) -> Result<usize, IoErr> {
        if self.user_reap && timeout.is_none() {
            return Ok(self.ring_take(min, max));
        }
        let ts = timeout.map_or(std::ptr::null(), |t| t as *const libc::timespec);
        loop {
            // SAFETY: `events` has room for `depth` ≥ max events; ts is null or valid.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    ts,
                )
            };
            match ret(r) {
                Ok(n) => return Ok(n),
                Err(libc::EINTR) if timeout.is_some() => return Ok(0),
                Err(libc::EINTR) => continue,
                Err(e) => return Err(IoErr::Errno(e)),
            }
        }
    }

    /// Copy up to `max` completions from the mapped ring into `events`, spinning until
    /// there are at least `min` (fio's user_io_getevents, plus its wait loop).
    fn ring_take(&mut self, min: usize, max: usize) -> usize {
        let Some(ring) = self.ring() else {
            return 0;
        };
        // SAFETY: the ring stays mapped while the context lives; head and tail are
        // shared with the kernel, so they are read and written as atomics, and an
        // event is read only between head and the tail published with Release.
        unsafe {
            let nr = (*ring).nr;
            let head = &*std::ptr::addr_of!((*ring).head).cast::<AtomicU32>();
            let tail = &*std::ptr::addr_of!((*ring).tail).cast::<AtomicU32>();
            let first = ring.add(1).cast::<IoEvent>();
            let mut n = 0;
            while n < max {
                let h = head.load(Ordering::Relaxed);
                if h == tail.load(Ordering::Acquire) {
                    if n >= min {
                        break;
                    }
                    std::hint::spin_loop();
                    continue;
                }
                self.events[n] = std::ptr::read_volatile(first.add(h as usize));
                head.store((h + 1) % nr, Ordering::Release);
                n += 1;
            }
            n
        }
    }

    /// Append the first `n` events to `out`.
    fn deliver(&mut self, n: usize, out: &mut Vec<Completion>) {
        self.in_flight -= n;
        out.extend(self.events[..n].iter().map(|e| Completion {
            slot: e.data as usize,
            res: e.res,
        }));
    }
}

impl Engine for Aio {
    const KIND: Kind = Kind::Libaio;
    const CAPS: super::Caps = super::Caps::SYNC;
    fn depth(&self) -> usize {
        self.depth
    }
    fn submit(&mut self, slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        let (Some(&fd), true) = (self.fds.get(r.file), slot < self.iocbs.len()) else {
            return Err(IoErr::Errno(libc::EBADF));
        };
        let prio = r.ioprio != 0;
        self.iocbs[slot] = Iocb {
            data: slot as u64,
            rw_flags: if r.dir == Dir::Write {
                self.write_flags
            } else {
                self.read_flags
            },
            opcode: if r.dir == Dir::Write {
                CMD_PWRITE
            } else {
                CMD_PREAD
            },
            reqprio: if prio { r.ioprio as i16 } else { 0 },
            fildes: fd as u32,
            buf: r.buf as u64,
            nbytes: r.len as u64,
            offset: r.offset as i64,
            flags: if prio { FLAG_IOPRIO } else { 0 },
            ..Iocb::default()
        };
        let iocb: *mut Iocb = &mut self.iocbs[slot];
        if self.batch > 1 {
            self.queue.push(iocb);
            if self.queue.len() >= self.batch {
                self.commit()?;
            }
            return Ok(None);
        }
        let mut one = [iocb];
        loop {
            // SAFETY: the iocb names a buffer valid until its completion is reaped.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    1 as libc::c_long,
                    one.as_mut_ptr(),
                )
            };
            match ret(r) {
                Ok(1) => {
                    self.in_flight += 1;
                    return Ok(None);
                }
                Ok(_) | Err(libc::EINTR) => continue,
                Err(e) => return Err(IoErr::Errno(e)),
            }
        }
    }
    #[inline(always)]
    fn unsubmitted(&self) -> usize {
        self.queue.len()
    }
    fn flush(&mut self) -> Result<bool, IoErr> {
        if self.queue.is_empty() {
            return Ok(false);
        }
        self.commit()?;
        Ok(true)
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        if !self.queue.is_empty() {
            self.commit()?;
        }
        let want = min.min(self.in_flight);
        if self.in_flight == 0 {
            return Ok(());
        }
        let max = self.reap_max.min(self.in_flight).max(want);
        let n = self.getevents(want, max, None)?;
        self.deliver(n, out);
        if !self.queue.is_empty() {
            // requests left queued by EAGAIN: the kernel has room again
            self.commit()?;
        }
        Ok(())
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        match self.fds.get(file) {
            Some(&fd) => sync_fd(fd, kind),
            None => Err(IoErr::Errno(libc::EBADF)),
        }
    }
    /// One io_getevents waiting at most `timeout_ns` for a completion.
    fn wait_some(&mut self, timeout_ns: u64, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        if !self.queue.is_empty() {
            self.commit()?;
        }
        if self.in_flight == 0 {
            return Ok(());
        }
        let ts = libc::timespec {
            tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
        };
        let max = self.reap_max.min(self.in_flight);
        let n = self.getevents(1, max, Some(&ts))?;
        self.deliver(n, out);
        Ok(())
    }
}

impl Drop for Aio {
    fn drop(&mut self) {
        // Buffers must not be freed while the kernel may still write into them: wait for
        // what is in flight, then release the context (io_destroy waits for any rest).
        self.queue.clear();
        while self.in_flight > 0 {
            match self.getevents(1, self.in_flight.min(self.depth), None) {
                Ok(n) => self.in_flight -= n,
                Err(_) => break,
            }
        }
        // SAFETY: the context is ours and nothing uses it after this.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::buffers::Slab;
    use std::os::fd::AsRawFd;

    #[test]
    fn abi_structs_have_the_kernels_sizes() {
        assert_eq!(std::mem::size_of::<Iocb>(), 64);
        assert_eq!(std::mem::size_of::<IoEvent>(), 32);
        assert_eq!(std::mem::size_of::<Ring>(), 32);
        assert_eq!(std::mem::offset_of!(Iocb, opcode), 16);
        assert_eq!(std::mem::offset_of!(Iocb, fildes), 20);
        assert_eq!(std::mem::offset_of!(Iocb, offset), 40);
        assert_eq!(std::mem::offset_of!(Iocb, flags), 56);
    }

    /// A 64 KiB file whose 4 KiB block i is all `i`, and an 8-slot slab.
    fn fixture() -> (tempfile::TempDir, std::fs::File, Slab) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        let data: Vec<u8> = (0..16u8).flat_map(|i| [i; 4096]).collect();
        std::fs::write(&p, data).unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&p)
            .unwrap();
        (d, f, Slab::new(8, 4096))
    }

    fn read(slab: &Slab, slot: usize, block: u64) -> IoReq {
        IoReq {
            dir: Dir::Read,
            file: 0,
            offset: block * 4096,
            len: 4096,
            buf: slab.bufs[slot].ptr(),
            buf_index: slot as u16,
            ioprio: 0,
        }
    }

    /// Reap until `n` completions are in; each read's slot holds its block's byte.
    fn reap_all(a: &mut Aio, n: usize) -> Vec<Completion> {
        let mut out = Vec::new();
        while out.len() < n {
            a.reap(1, &mut out).unwrap();
        }
        out
    }

    /// Per-request, batched (3 of 8 at a time, the rest at flush) and user-space reaped
    /// contexts all complete 8 reads into the right buffers; `reap_max` caps each reap.
    #[test]
    fn reads_complete_in_every_mode() {
        let (_d, f, slab) = fixture();
        for (batch, user, max) in [(1, false, 0), (3, false, 2), (1, true, 0), (8, true, 3)] {
            let mut a = match Aio::new(vec![f.as_raw_fd()], 8) {
                Ok(a) => a.batched(batch).user_reap(user).reap_max(max),
                Err(e) => return eprintln!("SKIPPED: {}", setup_why(&e, 8)),
            };
            for i in 0..8 {
                assert_eq!(a.submit(i, &read(&slab, i, 15 - i as u64)), Ok(None));
            }
            assert_eq!(a.flush(), Ok(batch == 3), "batch={batch}");
            let mut out = Vec::new();
            while out.len() < 8 {
                let from = out.len();
                a.reap(1, &mut out).unwrap();
                if max > 0 {
                    assert!(out.len() - from <= max, "reap took {}", out.len() - from);
                }
            }
            let mut slots: Vec<usize> = out.iter().map(|c| c.slot).collect();
            slots.sort_unstable();
            assert_eq!(slots, (0..8).collect::<Vec<_>>());
            assert!(out.iter().all(|c| c.res == 4096), "{out:?}");
            for i in 0..8 {
                let want = 15 - i as u8;
                assert!(slab.bufs[i].as_slice()[..4096].iter().all(|&b| b == want));
            }
        }
    }

    /// A write lands in the file; a read past the end is short; a bad descriptor is
    /// refused in `submit`, per request or as the batch's failed commit.
    #[test]
    fn writes_eof_and_refusals() {
        let (_d, f, mut slab) = fixture();
        let Ok(mut a) = Aio::new(vec![f.as_raw_fd(), -1], 4) else {
            return eprintln!("SKIPPED: no native AIO here");
        };
        slab.bufs[0].as_mut_slice()[..4096].fill(0xab);
        let w = IoReq {
            dir: Dir::Write,
            ..read(&slab, 0, 2)
        };
        assert_eq!(a.submit(0, &w), Ok(None));
        assert_eq!(reap_all(&mut a, 1)[0].res, 4096);
        let mut back = vec![0u8; 4096];
        use std::os::unix::fs::FileExt;
        f.read_exact_at(&mut back, 2 * 4096).unwrap();
        assert!(back.iter().all(|&b| b == 0xab));
        // block 16 is past the 64 KiB end: 0 bytes
        assert_eq!(a.submit(1, &read(&slab, 1, 16)), Ok(None));
        assert_eq!(reap_all(&mut a, 1)[0].res, 0);
        let bad = IoReq {
            file: 1,
            ..read(&slab, 2, 0)
        };
        assert_eq!(a.submit(2, &bad), Err(IoErr::Errno(libc::EBADF)));
        let mut a = a.batched(2);
        assert_eq!(a.submit(2, &bad), Ok(None));
        // the batch's io_submit refuses its first iocb: the commit fails, and the other
        // request of the batch is never handed over (nothing to reap)
        let refused = a.submit(3, &read(&slab, 3, 1));
        assert_eq!(refused, Err(IoErr::Errno(libc::EBADF)));
        let mut out = Vec::new();
        a.reap(0, &mut out).unwrap();
        assert!(out.is_empty(), "{out:?}");
    }

    /// `wait_some` returns after its timeout when nothing completes, and with the
    /// completion once it comes. The pending request is an IOCB_CMD_POLL on an empty
    /// pipe (Linux 4.18+): a read would block inside io_submit (native AIO is not
    /// asynchronous for pipes), a poll stays queued until data arrives.
    #[test]
    fn wait_some_honours_its_timeout() {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills the array we own.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        use std::os::fd::FromRawFd;
        // SAFETY: both descriptors are new and owned by these files only.
        let (r, mut w) = unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        };
        let Ok(mut a) = Aio::new(vec![r.as_raw_fd()], 1) else {
            return eprintln!("SKIPPED: no native AIO here");
        };
        a.iocbs[0] = Iocb {
            opcode: 5, // IOCB_CMD_POLL; the events to wait for are in aio_buf
            fildes: r.as_raw_fd() as u32,
            buf: libc::POLLIN as u64,
            ..Iocb::default()
        };
        let p: *mut Iocb = &mut a.iocbs[0];
        a.queue.push(p);
        if let Err(e) = a.commit() {
            return eprintln!("SKIPPED: IOCB_CMD_POLL refused: {e:?}");
        }
        let mut out = Vec::new();
        let t = std::time::Instant::now();
        a.wait_some(20_000_000, &mut out).unwrap();
        assert!(out.is_empty(), "{out:?}");
        assert!(t.elapsed() >= std::time::Duration::from_millis(15));
        use std::io::Write;
        w.write_all(b"hello").unwrap();
        while out.is_empty() {
            a.wait_some(1_000_000_000, &mut out).unwrap();
        }
        assert_eq!(out[0].slot, 0);
        assert_ne!(out[0].res & i64::from(libc::POLLIN), 0, "{out:?}");
    }
}
