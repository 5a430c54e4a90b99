//! The one job-thread shell: every thread that runs the worker loop (`run`'s job
//! threads, `fileio`'s threads) starts here. [`JobThread::enter`] gives the thread its
//! own descriptor table and its slots' buffers, sized by the job both front ends
//! produce ([`ThreadJob`], job/thread.rs); [`JobThread::run`] asks the registry
//! (engine/registry.rs) for the engine over those buffers, turns a refusal into the one
//! [`Refusal`], and hands the engine to the front end's plug-in ([`ThreadDrive`]) with
//! the loop's depth on it.
//!
//! What may not live here: a front end's rules (fio's are worker/fio/, sysbench's
//! worker/sysbench.rs), its files (files/ opens them; the front end hands the
//! descriptors over), its engine options (the front end fills the [`Spec`]), and the
//! words a front end prints for a refusal beyond [`Refusal::why`].

use crate::engine::buffers::{AlignedBuf, Slab};
use crate::engine::registry::{self, Drive, Kind, Refused, Spec};
use crate::engine::{Caps, Engine, IoErr};
use crate::job::thread::ThreadJob;
use std::os::fd::RawFd;

/// First thing in a job thread: give it its own copy of the descriptor table
/// ([`crate::engine::private_fd_table`]), so each `pread`/`pwrite` skips the kernel's
/// file reference count (fio's jobs are processes, whose table is never shared).
/// Descriptors opened before (a file set the main thread opened) stay usable: the copy
/// holds them too. An engine whose requests run on the C library's process-wide
/// helper threads (posixaio, [`Caps::helper_threads`]) keeps the shared table: those
/// threads look descriptors up in the table of the thread that created them. Returns
/// whether the table is private now.
pub fn enter(caps: Caps) -> bool {
    !caps.helper_threads && crate::engine::private_fd_table()
}

/// `(ptr, len)` of the buffers an engine may register: the slots' buffers, in slot
/// order, then `extra` (their registered-buffer indexes follow the slots').
pub fn registered(slab: &Slab, extra: &[&AlignedBuf]) -> Vec<(*mut u8, usize)> {
    slab.bufs
        .iter()
        .chain(extra.iter().copied())
        .map(|b| (b.ptr(), b.len()))
        .collect()
}

/// Slots of the loop on engine `E` for a job of `depth`: the depth on an engine that
/// queues, 1 on one that completes every request inside `submit`.
pub fn depth_on<E: Engine>(depth: usize) -> usize {
    if E::KIND.queues() {
        depth
    } else {
        1
    }
}

/// A job thread once entered: its engine kind, its slots and the buffers registered
/// with the engine after them.
pub struct JobThread {
    kind: Kind,
    depth: usize,
    /// the slots' buffers (the front end may fill them before [`JobThread::run`])
    pub slab: Slab,
    extra: Vec<(*mut u8, usize)>,
}

impl JobThread {
    /// Enter a job thread of `job`: its own descriptor table ([`enter`]), then one
    /// buffer of the largest request per slot ([`ThreadJob::slots`]).
    pub fn enter(job: &ThreadJob) -> JobThread {
        enter(job.engine.caps());
        let depth = job.slots();
        JobThread {
            kind: job.engine,
            depth,
            slab: Slab::with_offset(depth, job.slot_len(), job.mem_align),
            extra: Vec::new(),
        }
    }

    /// Slots of the thread (the loop's depth on an engine that queues).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Register `buf` with the engine after the slots' buffers (sysbench's write
    /// pool); it must live until [`JobThread::run`] returns.
    pub fn register_after(&mut self, buf: &AlignedBuf) {
        self.extra.push((buf.ptr(), buf.len()));
    }

    /// The spec of the thread's engine over `fds`, every option at its default, for the
    /// front end to fill (the shell adds the buffers in [`JobThread::run`]).
    pub fn spec(&self, fds: Vec<RawFd>) -> Spec<'static> {
        Spec::new(self.kind, fds, self.depth, &[])
    }

    /// Build the engine `spec` asks for over the slots' buffers (and those registered
    /// after them), and hand it to `d` with the slots and the loop's depth on it.
    pub fn run<D: ThreadDrive>(&self, spec: Spec<'_>, d: D) -> Result<D::Out, Refusal> {
        let bufs: Vec<(*mut u8, usize)> = registered(&self.slab, &[])
            .into_iter()
            .chain(self.extra.iter().copied())
            .collect();
        let (engine, depth) = (spec.kind, spec.depth);
        let donor = spec.donor.path.clone();
        let mut spec = spec;
        spec.bufs = &bufs;
        let plug = Plug {
            d,
            slab: &self.slab,
            depth: self.depth,
        };
        registry::build(spec, plug).map_err(|cause| Refusal {
            engine,
            depth,
            donor,
            cause,
        })
    }
}

/// A front end's part of a job thread: what it does with the engine the shell built.
pub trait ThreadDrive {
    /// What driving gives back.
    type Out;
    /// Run with `eng` over `slab`, `depth` slots in flight at most (1 on an engine
    /// that does not queue).
    fn drive<E: Engine>(self, eng: &mut E, slab: &Slab, depth: usize) -> Self::Out;
    /// The registry's [`crate::engine::registry::Drive::THREE_KINDS`]: the front end
    /// runs only psync, io_uring and mmap.
    const THREE_KINDS: bool = false;
}

/// The registry's [`Drive`] of the shell: the plug-in with its slots.
struct Plug<'s, D> {
    d: D,
    slab: &'s Slab,
    depth: usize,
}

impl<D: ThreadDrive> Drive for Plug<'_, D> {
    type Out = D::Out;
    const THREE_KINDS: bool = D::THREE_KINDS;
    fn drive<E: Engine>(self, eng: &mut E) -> D::Out {
        self.d.drive(eng, self.slab, depth_on::<E>(self.depth))
    }
}

/// Why a job thread's engine could not be built: the one error of the shell.
#[derive(Debug)]
pub struct Refusal {
    /// the engine asked for
    pub engine: Kind,
    /// the depth it was asked for
    pub depth: usize,
    /// e4defrag's donor file
    pub donor: std::path::PathBuf,
    /// what the registry reported
    pub cause: Refused,
}

impl Refusal {
    /// The refusal in words (after the engine's name in a job's error).
    pub fn why(&self) -> String {
        match &self.cause {
            Refused::Ring(e) => ring_setup_why(e, self.depth),
            Refused::Map(e) | Refused::Path(e) => io_err_text(*e),
            Refused::Aio(e) => crate::engine::libaio::setup_why(e, self.depth),
            Refused::Donor(e) => {
                format!("donor file {}: {}", self.donor.display(), io_err_text(*e))
            }
            Refused::Program(e) => e.to_string(),
            Refused::Net(f) => format!("{}: {}", f.what, io_err_text(IoErr::Errno(f.errno))),
            Refused::NotRun(k) => format!("{} is not run by this command", k.name()),
        }
    }

    /// The errno of a socket that could not be set up (net), a failure of the job
    /// rather than of its start.
    pub fn net_errno(&self) -> Option<i32> {
        match &self.cause {
            Refused::Net(f) => Some(f.errno),
            _ => None,
        }
    }
}

/// A failed request in words: the system's text of the errno, or the short transfer.
pub fn io_err_text(e: IoErr) -> String {
    match e {
        IoErr::Errno(n) => crate::files::strerror(n),
        IoErr::Short { done } => format!("short transfer ({done} bytes)"),
    }
}

/// Why a thread's ring could not be set up: EINVAL means the kernel refused these ring
/// parameters (io_uring itself works: the run probed it), anything else is
/// [`crate::engine::io_uring::unavailable_why`].
fn ring_setup_why(e: &std::io::Error, depth: usize) -> String {
    if e.raw_os_error() == Some(libc::EINVAL) {
        format!("the kernel refused the ring for iodepth={depth} (io_uring_setup: {e})")
    } else {
        crate::engine::io_uring::unavailable_why(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::thread::{DataPattern, FsyncMode, Pace, Syncs};

    fn job(engine: Kind, depth: usize, len: u64) -> ThreadJob {
        ThreadJob {
            engine,
            depth,
            request: (len, len),
            direct: false,
            mem_align: 0,
            sync: false,
            dsync: false,
            files: 1,
            file_size: None,
            pace: Pace::Free,
            time: None,
            ios: None,
            dir: Default::default(),
            writes: false,
            data: DataPattern::Zeros,
            validate: false,
            syncs: Syncs {
                call: FsyncMode::Fsync,
                each_write: false,
                at_end: false,
            },
        }
    }

    struct Seen;
    impl ThreadDrive for Seen {
        type Out = (&'static str, usize, usize);
        fn drive<E: Engine>(self, eng: &mut E, slab: &Slab, depth: usize) -> Self::Out {
            (eng.name(), slab.bufs.len(), depth)
        }
    }

    #[test]
    fn the_shell_sizes_the_slots_by_whether_the_engine_queues() {
        assert_eq!(job(Kind::IoUring, 8, 4096).slots(), 8);
        assert_eq!(job(Kind::Posixaio, 8, 4096).slots(), 8);
        assert_eq!(job(Kind::Psync, 8, 4096).slots(), 1);
        let t = JobThread::enter(&job(Kind::Null, 8, 4096));
        assert_eq!((t.depth(), t.slab.bufs.len()), (1, 1));
        assert_eq!(t.slab.bufs[0].len(), 4096);
    }

    #[test]
    fn the_shell_hands_the_built_engine_to_the_plug_in_with_its_slots() {
        let mut t = JobThread::enter(&job(Kind::Null, 4, 512));
        let pool = AlignedBuf::new(512);
        t.register_after(&pool);
        let spec = t.spec(Vec::new());
        assert_eq!(t.run(spec, Seen).unwrap(), ("null", 1, 1));
        // io_uring denied here: psync runs instead, with the same plug-in
        let mut spec = t.spec(Vec::new());
        spec.kind = Kind::IoUring;
        spec.fallback = true;
        assert_eq!(t.run(spec, Seen).unwrap().0, "psync");
    }

    #[test]
    fn a_refused_engine_is_one_error_in_words() {
        let t = JobThread::enter(&job(Kind::PageFault, 1, 512));
        // a mapping of no bytes is refused by the kernel
        let mut spec = t.spec(Vec::new());
        spec.map_len = 0;
        let r = t.run(spec, Seen).unwrap_err();
        assert_eq!(r.engine, Kind::PageFault);
        assert!(matches!(r.cause, Refused::Map(_)), "{r:?}");
        assert_eq!(r.why(), crate::files::strerror(libc::EINVAL));
        assert_eq!(r.net_errno(), None);
        let ring = Refusal {
            engine: Kind::IoUring,
            depth: 64,
            donor: Default::default(),
            cause: Refused::Ring(std::io::Error::from_raw_os_error(libc::EINVAL)),
        };
        assert!(ring
            .why()
            .starts_with("the kernel refused the ring for iodepth=64"));
    }
}
