//! The start of each thread of one `fileio` run — the same as a `run` job thread's
//! (run/worker/thread.rs: private descriptor table, the registry's engine), then the
//! worker loop under sysbench's rules (run/worker/sysbench.rs). What the threads share
//! with the main thread (`Shared`, the `--rate` queue) is shared.rs.

use crate::engine::buffers::{AlignedBuf, Slab};
use crate::engine::registry::{self, Drive, Kind, Refused, Spec};
use crate::engine::Engine;
use crate::job::sysbench::{DataPattern, IoMode};
use crate::run::sysbench::rng::Xoroshiro128Plus;
use crate::run::sysbench::shared::Shared;
use crate::run::worker::sysbench::SysbenchRules;
use crate::run::worker::thread::{depth_on, registered};
use std::os::fd::RawFd;
use std::sync::atomic::Ordering;
use std::sync::Barrier;

/// The engine of `--file-io-mode`.
pub fn engine_kind(mode: IoMode) -> Kind {
    match mode {
        IoMode::Sync => Kind::Psync,
        IoMode::Async => Kind::IoUring,
        IoMode::Mmap => Kind::Mmap,
    }
}

/// One worker thread: its own descriptor table, buffers (one per slot, plus the write
/// pool, registered after them), the engine of `--file-io-mode` over `fds`, then the
/// worker loop. It waits at `barriers[0]` when ready and at `barriers[1]` for the start
/// signal, so the main thread can print `Threads started!` and set the start time in
/// between.
pub fn thread(
    sh: &Shared,
    tid: usize,
    rng: Xoroshiro128Plus,
    barriers: &[Barrier; 2],
    fds: Vec<RawFd>,
) {
    let job = &sh.job;
    let kind = engine_kind(job.io_mode);
    crate::run::worker::thread::enter(kind.caps());
    let depth = if kind.queues() {
        job.async_backlog as usize
    } else {
        1
    };
    let req_len = sh.geom.request.max(sh.geom.block) as usize;
    let slab = Slab::new(depth, req_len);
    // Write source: zeros or a random pool, never overwritten by reads.
    let pool_len = if job.data == DataPattern::Random {
        req_len + sh.pool_extra
    } else {
        req_len
    };
    let mut pool = AlignedBuf::new(pool_len);
    if job.data == DataPattern::Random {
        rng.clone().fill(pool.as_mut_slice());
    }
    let bufs = registered(&slab, &[&pool]);
    sh.console
        .line(5, &format!("DEBUG: Worker thread (#{tid}) started"));
    let mut spec = Spec::new(kind, fds, depth, &bufs);
    // the submission that fills the queue waits for a completion in the same call:
    // the event waits for a free slot right after it anyway
    spec.ring.wait_when_full = true;
    spec.ring.reap_max = job.reap_max;
    spec.map_len = sh.geom.file_size as usize;
    let d = ThreadDrive {
        sh,
        tid,
        rng,
        barriers,
        slab: &slab,
        pool: &mut pool,
        pool_len,
        depth,
    };
    if let Err(r) = registry::build(spec, d) {
        let msg = match r {
            Refused::Ring(e) => crate::engine::io_uring::unavailable_reason(&e),
            Refused::Map(e) => format!("mmap failed: {e:?}"),
            Refused::Aio(e) => crate::engine::libaio::setup_why(&e, depth),
            Refused::Path(e) => format!("path setup failed: {e:?}"),
            Refused::Donor(e) => format!("donor file setup failed: {e:?}"),
            Refused::Program(e) => format!("program could not be started: {e}"),
            Refused::Net(f) => format!(
                "net setup failed: {}: {}",
                f.what,
                crate::files::strerror(f.errno)
            ),
        };
        sh.fail_code
            .store(crate::util::error::exit::ENVIRONMENT, Ordering::SeqCst);
        sh.fail(vec![format!("FATAL: {msg}")]);
        barriers[0].wait();
        barriers[1].wait();
        finish(sh);
    }
}

/// A worker thread once its engine is built: the start barriers, the loop, and its
/// statistics handed to the main thread.
struct ThreadDrive<'s> {
    sh: &'s Shared,
    tid: usize,
    rng: Xoroshiro128Plus,
    barriers: &'s [Barrier; 2],
    slab: &'s Slab,
    pool: &'s mut AlignedBuf,
    pool_len: usize,
    depth: usize,
}

impl Drive for ThreadDrive<'_> {
    type Out = ();
    fn drive<E: Engine>(self, eng: &mut E) {
        let sh = self.sh;
        sh.console.line(
            5,
            &format!("DEBUG: Worker thread (#{}) initialized", self.tid),
        );
        self.barriers[0].wait();
        self.barriers[1].wait();
        let depth = depth_on::<E>(self.depth);
        let mut rules =
            SysbenchRules::new(sh, self.tid, self.rng, (self.pool, self.pool_len), depth);
        let mut io = crate::run::worker::Io::new(eng, self.slab, &sh.clock, depth);
        // a failure is recorded in `sh` (its lines and exit code)
        let _ = crate::run::worker::run(&mut io, &mut rules);
        if !sh.live_stats {
            *sh.stats[self.tid].lock().unwrap_or_else(|e| e.into_inner()) =
                std::mem::take(&mut rules.local);
        }
        finish(sh);
    }
}

/// A worker thread is done: the main thread may report.
fn finish(sh: &Shared) {
    let mut r = sh.running.lock().unwrap_or_else(|e| e.into_inner());
    *r = r.saturating_sub(1);
    sh.finished.notify_all();
}
