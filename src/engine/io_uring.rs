//! `io_uring`: requests queued on a per-thread ring of `depth` entries, submitted one
//! `io_uring_enter` per request (sysbench's async mode issues one `io_submit` per event;
//! optionally the submission that fills the queue also waits for a completion in the
//! same call) or, in batch mode ([`Uring::batched`], fio's `iodepth_batch_submit` > 1),
//! one `io_uring_enter` per batch: `submit` queues the entry and hands the queue to the
//! kernel once the batch is full (fio's `td_io_queue` commits when `iodepth_batch_submit`
//! requests are queued), a shorter queue at [`Engine::flush`] or before the next wait,
//! with the file table and the slab's buffers registered once, so the kernel neither
//! looks up descriptors nor pins pages per request. fsync stays a synchronous syscall,
//! as in sysbench's async mode. fio's `sqthread_poll` (a kernel thread polls the
//! submission queue: no `io_uring_enter` per submission) and `hipri` (completions are
//! polled from the device instead of interrupts; O_DIRECT only) are [`Setup`] flags.
//!
//! Reap spin ([`Setup::spin_ns`], iomark's own, `--reap-spin`): before sleeping in
//! `io_uring_enter` for completions, [`Engine::reap`] watches the ring's
//! IORING_SQ_TASKRUN flag (a memory read, no system call) for a few microseconds and,
//! when completion work shows up, collects it with one non-sleeping enter. The completer
//! (an io-wq worker or the interrupt path) then never has to wake a sleeping task, which
//! measured as about a fifth of the io-wq worker's time on zram (bench/RUN_RESULTS.md).
//! It backs off when spins keep failing (a slow device), so a disk at QD1 pays almost
//! nothing; fio sleeps at once.

use super::{sync_fd, Completion, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;
use io_uring::{opcode, types, IoUring};
use std::os::fd::RawFd;

/// Test-only switch: when this environment variable is `1`, [`probe`] answers as if the
/// kernel denied io_uring (EPERM), so the psync fallback and `--engine-strict` can be
/// tested on machines where io_uring works. Not a user option.
pub const TEST_DENY_ENV: &str = "IOMARK_TEST_DENY_IO_URING";

/// Ring setup flags (fio's io_uring engine options).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// `sqthread_poll`: IORING_SETUP_SQPOLL, a kernel thread polls the submission queue
    pub sqpoll: bool,
    /// `sqthread_poll_cpu`: bind that thread to this CPU (IORING_SETUP_SQ_AFF)
    pub sqpoll_cpu: Option<u32>,
    /// `hipri`: IORING_SETUP_IOPOLL, completions polled from the device (O_DIRECT only)
    pub iopoll: bool,
    /// reap spin budget in ns before sleeping for completions (0: sleep at once);
    /// used on the default ring only (not with `sqpoll`/`iopoll`)
    pub spin_ns: u64,
}

/// Longest back-off after failed spins: at most one spin per this many waits.
const SPIN_BACKOFF_MAX: u32 = 64;

/// IORING_ENTER_GETEVENTS (runs deferred completion work; min_complete 0: no sleep).
const ENTER_GETEVENTS: u32 = 1;

/// Idle time before the SQPOLL thread sleeps, ms (fio's `sqthread_poll` default wait).
pub const SQPOLL_IDLE_MS: u32 = 1000;

/// Why io_uring cannot be used here, with the usual causes (`fileio` wording: it ends
/// with the sysbench option that avoids io_uring).
pub fn unavailable_reason(e: &std::io::Error) -> String {
    format!("{}; use --file-io-mode=sync", unavailable_why(e))
}

/// Why io_uring cannot be used here: `io_uring is unavailable: <cause>: <os error>`.
pub fn unavailable_why(e: &std::io::Error) -> String {
    let why = match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => {
            "not permitted (a container's seccomp profile, or sysctl kernel.io_uring_disabled)"
        }
        Some(libc::ENOSYS) => "not supported by this kernel",
        Some(libc::ENOMEM) => "could not allocate the ring (RLIMIT_MEMLOCK or memory)",
        Some(libc::EMFILE) | Some(libc::ENFILE) => {
            "too many open files: each thread's ring needs a descriptor (raise ulimit -n)"
        }
        _ => "ring setup failed",
    };
    format!("io_uring is unavailable: {why}: {e}")
}

/// Check that an io_uring can be created (before any file is touched); the error is
/// [`unavailable_reason`]'s text. Honours [`TEST_DENY_ENV`]; the sysctl
/// `kernel.io_uring_disabled` needs no read of `/proc`: the kernel itself answers the
/// ring setup with EPERM when it disables io_uring for this process (Linux ≥ 6.6).
pub fn probe() -> Result<(), String> {
    probe_os().map_err(|e| unavailable_reason(&e))
}

/// [`probe`] returning the OS error (EPERM for a test denial or a disabled sysctl).
pub fn probe_os() -> std::io::Result<()> {
    if std::env::var_os(TEST_DENY_ENV).is_some_and(|v| v == "1") {
        return Err(std::io::Error::from_raw_os_error(libc::EPERM));
    }
    IoUring::new(2).map(|_| ())
}

/// A per-thread ring.
pub struct Uring {
    ring: IoUring,
    fds: Vec<RawFd>,
    depth: usize,
    in_flight: usize,
    fixed_files: bool,
    fixed_bufs: bool,
    wait_when_full: bool,
    /// requests handed to the kernel at once (1: each in its `submit`)
    batch: usize,
    /// SQEs pushed but not yet handed to the kernel (batch mode)
    unsubmitted: usize,
    /// Completions taken per `reap` (usize::MAX: all that are ready)
    reap_max: usize,
    /// rw_flags of writes (RWF_ATOMIC for fio's `atomic=1`, RWF_NOWAIT for `nowait=1`)
    write_flags: i32,
    /// rw_flags of reads (RWF_NOWAIT for fio's `nowait=1`)
    read_flags: i32,
    /// fio's `force_async=N`: every N-th request with IOSQE_ASYNC (0: none)
    async_every: u32,
    /// requests since the last forced one
    async_count: u32,
    /// reap spin budget, ns (0: off)
    spin_ns: u64,
    /// waits left before the next spin is tried
    spin_skip: u32,
    /// waits skipped after the last failed spin (doubles per failure, reset by a success)
    spin_backoff: u32,
}

impl Uring {
    /// A ring with room for `depth` requests over `fds`. `bufs` are `(ptr, len)` of the
    /// buffers requests will use, registered when the kernel allows it
    /// (`IoReq::buf_index` indexes this list).
    pub fn new(fds: Vec<RawFd>, depth: usize, bufs: &[(*mut u8, usize)]) -> std::io::Result<Self> {
        Self::with_setup(fds, depth, bufs, Setup::default())
    }

    /// [`Uring::new`] with fio's ring options. SQPOLL and IOPOLL are not silently
    /// dropped: if the kernel refuses them, the error is returned.
    pub fn with_setup(
        fds: Vec<RawFd>,
        depth: usize,
        bufs: &[(*mut u8, usize)],
        setup: Setup,
    ) -> std::io::Result<Self> {
        let entries = depth.next_power_of_two().max(2) as u32;
        let (ring, spin_ns) = if setup.sqpoll || setup.iopoll {
            let mut b = IoUring::builder();
            if setup.sqpoll {
                b.setup_sqpoll(SQPOLL_IDLE_MS);
                if let Some(cpu) = setup.sqpoll_cpu {
                    b.setup_sqpoll_cpu(cpu);
                }
            }
            if setup.iopoll {
                b.setup_iopoll();
            }
            if !setup.sqpoll {
                b.setup_single_issuer();
            }
            (b.build(entries)?, 0)
        } else {
            // One thread submits and reaps, and completions are only looked at when the
            // worker waits for them: let the kernel defer completion work to that moment
            // (Linux ≥ 6.1); older kernels get a plain ring.
            // TASKRUN_FLAG: the kernel raises IORING_SQ_TASKRUN when completion work
            // waits, which the reap spin watches.
            match IoUring::builder()
                .setup_coop_taskrun()
                .setup_single_issuer()
                .setup_defer_taskrun()
                .setup_taskrun_flag()
                .build(entries)
            {
                Ok(r) => (r, setup.spin_ns),
                Err(_) => (IoUring::new(entries)?, 0),
            }
        };
        let fixed_files = ring.submitter().register_files(&fds).is_ok();
        let iov: Vec<libc::iovec> = bufs
            .iter()
            .map(|&(p, l)| libc::iovec {
                iov_base: p.cast(),
                iov_len: l,
            })
            .collect();
        // SAFETY: the buffers outlive the ring (the worker drops the engine first) and
        // do not move; the kernel only accesses them for requests we submit.
        let fixed_bufs = !iov.is_empty()
            && iov.len() <= u16::MAX as usize
            && unsafe { ring.submitter().register_buffers(&iov).is_ok() };
        Ok(Uring {
            ring,
            fds,
            depth,
            in_flight: 0,
            fixed_files,
            fixed_bufs,
            wait_when_full: false,
            batch: 1,
            unsubmitted: 0,
            reap_max: usize::MAX,
            write_flags: 0,
            read_flags: 0,
            async_every: 0,
            async_count: 0,
            spin_ns,
            spin_skip: 0,
            spin_backoff: 0,
        })
    }

    /// fio's `force_async=every`: every `every`-th request is issued with IOSQE_ASYNC
    /// (straight to the kernel's io-wq workers instead of an inline attempt first);
    /// 0: none (fio's default).
    pub fn force_async(mut self, every: u32) -> Self {
        self.async_every = every;
        self
    }

    /// Make the submission that fills the queue also wait for one completion in the
    /// same `io_uring_enter` (sysbench's async mode waits right after such a submission
    /// anyway). Off by default: fio-style callers time submission and completion apart.
    pub fn wait_when_full(mut self, on: bool) -> Self {
        self.wait_when_full = on;
        self
    }

    /// Hand requests to the kernel `n` at a time (fio's `iodepth_batch_submit`; 0 and 1:
    /// each one in its `submit`): `submit` queues, and the one that fills the batch
    /// submits the queue with one system call; what is left of an unfilled batch goes at
    /// [`Engine::flush`] (or the next `reap`).
    pub fn batched(mut self, n: usize) -> Self {
        self.batch = n.clamp(1, self.depth.max(1));
        self
    }

    /// Take at most `n` completions per [`Engine::reap`] (fio's
    /// `iodepth_batch_complete_max`; 0 = no limit). The rest stay in the completion
    /// queue for the next call, which then needs no system call. fio's default (the
    /// same as `iodepth_batch_complete_min`, i.e. 1) refills each slot as soon as its
    /// completion is seen, so the queue stays full and lat obeys Little's law.
    pub fn reap_max(mut self, n: usize) -> Self {
        self.reap_max = if n == 0 { usize::MAX } else { n };
        self
    }

    /// Give writes these `rw_flags` (e.g. `libc::RWF_ATOMIC`).
    pub fn write_flags(mut self, flags: i32) -> Self {
        self.write_flags = flags;
        self
    }

    /// Give reads these `rw_flags` (e.g. `libc::RWF_NOWAIT`).
    pub fn read_flags(mut self, flags: i32) -> Self {
        self.read_flags = flags;
        self
    }

    /// Whether registered files and buffers are in use.
    pub fn registered(&self) -> (bool, bool) {
        (self.fixed_files, self.fixed_bufs)
    }

    fn entry(&self, slot: usize, r: &IoReq) -> io_uring::squeue::Entry {
        let len = r.len as u32;
        // RWF_ATOMIC takes a single user buffer only (the kernel refuses a registered
        // buffer's bvec with EINVAL): atomic writes go without the fixed buffer
        let atomic = self.write_flags & libc::RWF_ATOMIC != 0;
        let fixed_bufs = self.fixed_bufs && !(r.dir == Dir::Write && atomic);
        let e = match (r.dir, self.fixed_files, fixed_bufs) {
            (Dir::Read, true, true) => {
                opcode::ReadFixed::new(types::Fixed(r.file as u32), r.buf, len, r.buf_index)
                    .offset(r.offset)
                    .ioprio(r.ioprio)
                    .rw_flags(self.read_flags)
                    .build()
            }
            (Dir::Write, true, true) => {
                opcode::WriteFixed::new(types::Fixed(r.file as u32), r.buf, len, r.buf_index)
                    .offset(r.offset)
                    .ioprio(r.ioprio)
                    .rw_flags(self.write_flags)
                    .build()
            }
            (Dir::Read, true, false) => opcode::Read::new(types::Fixed(r.file as u32), r.buf, len)
                .offset(r.offset)
                .ioprio(r.ioprio)
                .rw_flags(self.read_flags)
                .build(),
            (Dir::Write, true, false) => {
                opcode::Write::new(types::Fixed(r.file as u32), r.buf, len)
                    .offset(r.offset)
                    .ioprio(r.ioprio)
                    .rw_flags(self.write_flags)
                    .build()
            }
            (Dir::Read, false, true) => {
                opcode::ReadFixed::new(types::Fd(self.fds[r.file]), r.buf, len, r.buf_index)
                    .offset(r.offset)
                    .ioprio(r.ioprio)
                    .rw_flags(self.read_flags)
                    .build()
            }
            (Dir::Write, false, true) => {
                opcode::WriteFixed::new(types::Fd(self.fds[r.file]), r.buf, len, r.buf_index)
                    .offset(r.offset)
                    .ioprio(r.ioprio)
                    .rw_flags(self.write_flags)
                    .build()
            }
            (Dir::Read, false, false) => opcode::Read::new(types::Fd(self.fds[r.file]), r.buf, len)
                .offset(r.offset)
                .ioprio(r.ioprio)
                .rw_flags(self.read_flags)
                .build(),
            (Dir::Write, false, false) => {
                opcode::Write::new(types::Fd(self.fds[r.file]), r.buf, len)
                    .offset(r.offset)
                    .ioprio(r.ioprio)
                    .rw_flags(self.write_flags)
                    .build()
            }
        };
        e.user_data(slot as u64)
    }

    /// `e` with IOSQE_ASYNC when it is the `force_async`-th request.
    #[cold]
    fn maybe_async(&mut self, e: io_uring::squeue::Entry) -> io_uring::squeue::Entry {
        self.async_count += 1;
        if self.async_count < self.async_every {
            return e;
        }
        self.async_count = 0;
        e.flags(io_uring::squeue::Flags::ASYNC)
    }

    /// The reap spin: watch IORING_SQ_TASKRUN for up to `spin_ns`; when it is up, run
    /// the completion work with a non-sleeping enter. True when `want` completions are
    /// then ready. Failed spins double a back-off (up to [`SPIN_BACKOFF_MAX`] waits).
    fn spin_for(&mut self, want: usize) -> Result<bool, IoErr> {
        if self.spin_skip > 0 {
            self.spin_skip -= 1;
            return Ok(false);
        }
        let t0 = std::time::Instant::now();
        let mut i = 0u32;
        loop {
            if self.ring.submission().taskrun() {
                loop {
                    // SAFETY: no argument is passed (size 0, null pointer).
                    match unsafe {
                        self.ring
                            .submitter()
                            .enter::<libc::sigset_t>(0, 0, ENTER_GETEVENTS, None)
                    } {
                        Ok(_) => break,
                        Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                        Err(e) => return Err(IoErr::Errno(e.raw_os_error().unwrap_or(libc::EIO))),
                    }
                }
                if self.ring.completion().len() >= want {
                    self.spin_backoff = 0;
                    return Ok(true);
                }
            }
            i = i.wrapping_add(1);
            if i.is_multiple_of(16) && t0.elapsed().as_nanos() as u64 >= self.spin_ns {
                self.spin_backoff = (self.spin_backoff * 2).clamp(1, SPIN_BACKOFF_MAX);
                self.spin_skip = self.spin_backoff;
                return Ok(false);
            }
            std::hint::spin_loop();
        }
    }

    /// The submission queue is full: hand unsubmitted entries to the kernel. Under SQPOLL
    /// the kernel's thread may not have consumed entries whose completions are already
    /// posted (it moves the queue head after a whole batch), so wait until it has
    /// (IORING_ENTER_SQ_WAIT) rather than fail the request.
    fn make_room(&mut self) -> Result<(), IoErr> {
        self.enter(0)?;
        self.unsubmitted = 0;
        if self.ring.params().is_setup_sqpoll() {
            while self.ring.submission().is_full() {
                match self.ring.submitter().squeue_wait() {
                    Ok(_) => {}
                    Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                    Err(e) => return Err(IoErr::Errno(e.raw_os_error().unwrap_or(libc::EIO))),
                }
            }
        }
        Ok(())
    }

    fn enter(&mut self, want: usize) -> Result<(), IoErr> {
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(IoErr::Errno(e.raw_os_error().unwrap_or(libc::EIO))),
            }
        }
    }
}

impl Engine for Uring {
    const KIND: Kind = Kind::IoUring;
    const CAPS: super::Caps = super::Caps {
        no_io: false,
        maps_files: false,
        registers_buffers: true,
        paths: false,
        own_files: false,
        needs_data: false,
        stream: false,
        helper_threads: false,
    };
    fn depth(&self) -> usize {
        self.depth
    }
    fn submit(&mut self, slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        let mut e = self.entry(slot, r);
        if self.async_every > 0 {
            e = self.maybe_async(e);
        }
        // SAFETY: the buffer stays valid and unmoved until the completion is reaped.
        if unsafe { self.ring.submission().push(&e) }.is_err() {
            self.make_room()?;
            // SAFETY: as above.
            if unsafe { self.ring.submission().push(&e) }.is_err() {
                return Err(IoErr::Errno(libc::EBUSY));
            }
        }
        self.in_flight += 1;
        if self.batch > 1 {
            self.unsubmitted += 1;
            if self.unsubmitted >= self.batch {
                // the batch is full: fio's commit, one io_uring_enter for all of it
                self.enter(0)?;
                self.unsubmitted = 0;
            }
            return Ok(None);
        }
        // When this request fills the queue, submit and wait for a completion in the
        // same system call (the caller reaps next).
        let want = usize::from(self.wait_when_full && self.in_flight >= self.depth);
        self.enter(want)?;
        Ok(None)
    }
    #[inline(always)]
    fn unsubmitted(&self) -> usize {
        self.unsubmitted
    }
    fn flush(&mut self) -> Result<bool, IoErr> {
        if self.unsubmitted > 0 {
            self.enter(0)?;
            self.unsubmitted = 0;
            return Ok(true);
        }
        Ok(false)
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        let want = min.min(self.in_flight);
        if want > 0 {
            let ready = self.ring.completion().len();
            let spun =
                ready < want && self.unsubmitted == 0 && self.spin_ns > 0 && self.spin_for(want)?;
            if !spun && (ready < want || self.unsubmitted > 0) {
                self.enter(want)?;
                self.unsubmitted = 0;
            }
        }
        for cqe in self.ring.completion().take(self.reap_max) {
            self.in_flight -= 1;
            out.push(Completion {
                slot: cqe.user_data() as usize,
                res: i64::from(cqe.result()),
            });
        }
        Ok(())
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        sync_fd(self.fds[file], kind)
    }
    /// One `io_uring_enter` waiting for a completion with a timeout (IORING_ENTER_EXT_ARG,
    /// Linux 5.11+; older kernels: a short sleep, then what is ready).
    fn wait_some(&mut self, timeout_ns: u64, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        if self.in_flight > 0 && self.ring.completion().is_empty() {
            if self.ring.params().is_feature_ext_arg() {
                let ts = types::Timespec::new()
                    .sec(timeout_ns / 1_000_000_000)
                    .nsec((timeout_ns % 1_000_000_000) as u32);
                let args = types::SubmitArgs::new().timespec(&ts);
                match self.ring.submitter().submit_with_args(1, &args) {
                    Ok(_) => self.unsubmitted = 0,
                    Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME | libc::EINTR)) => {}
                    Err(e) => return Err(IoErr::Errno(e.raw_os_error().unwrap_or(libc::EIO))),
                }
            } else {
                std::thread::sleep(std::time::Duration::from_nanos(timeout_ns.min(50_000)));
            }
        }
        self.reap(0, out)
    }
}

impl Drop for Uring {
    fn drop(&mut self) {
        // Buffers must not be freed while the kernel may still write into them.
        let mut sink = Vec::new();
        while self.in_flight > 0 {
            if self.reap(1, &mut sink).is_err() {
                break;
            }
            sink.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::buffers::Slab;
    use std::os::fd::AsRawFd;

    /// A 64 KiB file of `byte`, an 8-slot slab of 4 KiB buffers and their `(ptr, len)`.
    fn fixture(
        byte: u8,
    ) -> (
        tempfile::TempDir,
        std::fs::File,
        Slab,
        Vec<(*mut u8, usize)>,
    ) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, vec![byte; 64 << 10]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        let slab = Slab::new(8, 4096);
        let bufs = slab.bufs.iter().map(|b| (b.ptr(), b.len())).collect();
        (d, f, slab, bufs)
    }

    /// Queue 8 reads of 4 KiB, slot i at offset i × 4 KiB.
    fn submit_8(u: &mut Uring, slab: &Slab) {
        for i in 0..8 {
            let r = IoReq {
                dir: Dir::Read,
                file: 0,
                offset: i as u64 * 4096,
                len: 4096,
                buf: slab.bufs[i].ptr(),
                buf_index: i as u16,
                ioprio: 0,
            };
            assert_eq!(u.submit(i, &r), Ok(None));
        }
    }

    /// A pipe's read end on a spinning ring (budget `spin_ns`), a 2-slot slab and the
    /// write end.
    fn pipe_ring(spin_ns: u64) -> (Uring, Slab, std::fs::File, std::fs::File) {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills the array we own.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        use std::os::fd::FromRawFd;
        // SAFETY: both descriptors are new and owned by these files only.
        let (r, w) = unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        };
        let slab = Slab::new(2, 4096);
        let bufs: Vec<(*mut u8, usize)> = slab.bufs.iter().map(|b| (b.ptr(), b.len())).collect();
        let setup = Setup {
            spin_ns,
            ..Setup::default()
        };
        let u = Uring::with_setup(vec![r.as_raw_fd()], 2, &bufs, setup).unwrap();
        (u, slab, r, w)
    }

    fn pipe_read(u: &mut Uring, slab: &Slab) {
        let req = IoReq {
            dir: Dir::Read,
            file: 0,
            offset: 0,
            len: 4096,
            buf: slab.bufs[0].ptr(),
            buf_index: 0,
            ioprio: 0,
        };
        assert_eq!(u.submit(0, &req), Ok(None));
    }

    /// The reap spin: a completion that arrives within the budget is collected without
    /// sleeping (and clears the back-off); spins that find nothing skip 1, 2, 4 … waits
    /// before trying again, up to SPIN_BACKOFF_MAX.
    #[test]
    fn reap_spin_collects_completions_and_backs_off_when_they_do_not_come() {
        use std::io::Write;
        if probe_os().is_err() {
            eprintln!("SKIPPED: io_uring is not available here");
            return;
        }
        let (mut u, slab, _r, mut w) = pipe_ring(1_000);
        if u.spin_ns == 0 {
            eprintln!("SKIPPED: the kernel has no DEFER_TASKRUN ring (spin unused)");
            return;
        }
        pipe_read(&mut u, &slab);
        // nothing written: every spin fails; skips grow 1, 2, 4, … 64 and stay there
        let mut skips = Vec::new();
        for _ in 0..9 {
            assert_eq!(u.spin_for(1), Ok(false));
            skips.push(u.spin_skip);
            while u.spin_skip > 0 {
                assert_eq!(u.spin_for(1), Ok(false));
            }
        }
        assert_eq!(skips, vec![1, 2, 4, 8, 16, 32, 64, 64, 64]);
        // data arrives 2 ms later, within a 10 s budget: the spin takes the completion
        u.spin_ns = 10_000_000_000;
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(2));
            w.write_all(b"hello").unwrap();
            w
        });
        assert_eq!(u.spin_for(1), Ok(true));
        assert_eq!((u.spin_skip, u.spin_backoff), (0, 0));
        let mut out = Vec::new();
        u.reap(1, &mut out).unwrap();
        assert_eq!((out.len(), out[0].slot, out[0].res), (1, 0, 5));
        assert_eq!(&slab.bufs[0].as_slice()[..5], b"hello");
        drop(t.join().unwrap());
    }

    /// `--reap-spin=0` (and sqpoll/iopoll rings) never spin.
    #[test]
    fn reap_spin_off_means_no_spin() {
        if probe_os().is_err() {
            eprintln!("SKIPPED: io_uring is not available here");
            return;
        }
        let (u, _slab, _r, _w) = pipe_ring(0);
        assert_eq!(u.spin_ns, 0);
    }

    /// `reap_max(3)`: no reap hands back more than 3 completions, and none is lost.
    #[test]
    fn reap_max_limits_each_reap_and_loses_nothing() {
        if probe_os().is_err() {
            eprintln!("SKIPPED: io_uring is not available here");
            return;
        }
        let (_d, f, slab, bufs) = fixture(5);
        let mut u = Uring::new(vec![f.as_raw_fd()], 8, &bufs)
            .unwrap()
            .reap_max(3);
        submit_8(&mut u, &slab);
        let mut all = Vec::new();
        let mut calls = 0;
        while all.len() < 8 {
            let mut out = Vec::new();
            u.reap(1, &mut out).unwrap();
            assert!((1..=3).contains(&out.len()), "one reap took {}", out.len());
            all.extend(out);
            calls += 1;
        }
        assert!(calls >= 3, "8 completions in {calls} reaps of at most 3");
        let mut slots: Vec<usize> = all.iter().map(|c| c.slot).collect();
        slots.sort_unstable();
        assert_eq!(slots, (0..8).collect::<Vec<_>>());
    }

    /// Batch mode: `submit` queues and the request that fills a batch hands it over
    /// (3 at a time: after 8 requests, 2 are left for `flush`; a batch of the whole
    /// depth goes with the 8th), every request completes with its full length;
    /// per-request mode has nothing to flush.
    #[test]
    fn batch_mode_submits_each_full_batch_and_the_rest_at_flush() {
        if probe_os().is_err() {
            eprintln!("SKIPPED: io_uring is not available here");
            return;
        }
        let (_d, f, slab, bufs) = fixture(7);
        for (batch, left) in [(3, 2), (8, 0), (1, 0)] {
            let mut u = Uring::new(vec![f.as_raw_fd()], 8, &bufs)
                .unwrap()
                .batched(batch);
            submit_8(&mut u, &slab);
            assert_eq!(u.unsubmitted(), left, "batch={batch}");
            assert_eq!(u.flush(), Ok(left > 0), "batch={batch}");
            assert_eq!(u.flush(), Ok(false), "nothing left to hand over");
            let mut out = Vec::new();
            while out.len() < 8 {
                u.reap(1, &mut out).unwrap();
            }
            let mut slots: Vec<usize> = out.iter().map(|c| c.slot).collect();
            slots.sort_unstable();
            assert_eq!(slots, (0..8).collect::<Vec<_>>());
            assert!(out.iter().all(|c| c.res == 4096), "{out:?}");
            assert!(slab.bufs[7].as_slice().iter().all(|&b| b == 7));
        }
    }

    /// The request's ioprio lands in the SQE's `ioprio` field (bytes 2..4 of the
    /// 64-byte `io_uring_sqe`), for reads and writes, registered or not.
    #[test]
    fn sqe_carries_the_requests_ioprio() {
        if probe_os().is_err() {
            eprintln!("SKIPPED: io_uring is not available here");
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, vec![0u8; 8192]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        let slab = Slab::new(1, 4096);
        for bufs in [vec![(slab.bufs[0].ptr(), 4096usize)], vec![]] {
            let u = Uring::new(vec![f.as_raw_fd()], 2, &bufs).unwrap();
            for (dir, prio) in [(Dir::Read, 0x2000u16), (Dir::Write, 0x4018), (Dir::Read, 0)] {
                let r = IoReq {
                    dir,
                    file: 0,
                    offset: 4096,
                    len: 4096,
                    buf: slab.bufs[0].ptr(),
                    buf_index: 0,
                    ioprio: prio,
                };
                let e = u.entry(3, &r);
                assert_eq!(std::mem::size_of_val(&e), 64);
                // SAFETY: Entry is repr(C) over the 64-byte io_uring_sqe.
                let raw: [u8; 64] = unsafe { std::mem::transmute(e) };
                assert_eq!(u16::from_le_bytes([raw[2], raw[3]]), prio, "{dir:?}");
                // offset (bytes 8..16) and user_data (32..40) are the request's
                assert_eq!(u64::from_le_bytes(raw[8..16].try_into().unwrap()), 4096);
                assert_eq!(u64::from_le_bytes(raw[32..40].try_into().unwrap()), 3);
            }
        }
    }
}
