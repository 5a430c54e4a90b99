//! Each thread of one `fileio` run: sysbench's plug-in of the one job-thread shell
//! (run/worker/thread.rs: private descriptor table, slots, the registry's engine) —
//! the write pool, the start barriers, the worker loop under sysbench's rules
//! (run/worker/sysbench.rs) and the thread's statistics handed over. What the threads
//! share with the main thread (`Shared`, the `--rate` queue) is shared.rs; nothing
//! here builds an engine or words another front end's errors.

use crate::engine::buffers::{AlignedBuf, Slab};
use crate::engine::registry::Refused;
use crate::engine::Engine;
use crate::job::sysbench::DataPattern;
use crate::run::sysbench::rng::Xoroshiro128Plus;
use crate::run::sysbench::shared::Shared;
use crate::run::worker::thread::JobThread;
use crate::run::worker::{self, sysbench::SysbenchRules};
use std::os::fd::RawFd;
use std::sync::atomic::Ordering;
use std::sync::Barrier;

/// One worker thread: the one job-thread shell (run/worker/thread.rs: its own
/// descriptor table, one buffer per slot, the write pool registered after them, the
/// engine of `--file-io-mode` over `fds`), then the worker loop. It waits at
/// `barriers[0]` when ready and at `barriers[1]` for the start signal, so the main
/// thread can print `Threads started!` and set the start time in between.
pub fn thread(
    sh: &Shared,
    tid: usize,
    rng: Xoroshiro128Plus,
    barriers: &[Barrier; 2],
    fds: Vec<RawFd>,
) {
    let job = &sh.model.thread;
    let req_len = job.slot_len();
    let mut t = JobThread::enter(job);
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
    t.register_after(&pool);
    sh.console
        .line(5, &format!("DEBUG: Worker thread (#{tid}) started"));
    let mut spec = t.spec(fds);
    // the submission that fills the queue waits for a completion in the same call:
    // the event waits for a free slot right after it anyway
    spec.ring.wait_when_full = true;
    spec.ring.reap_max = sh.model.work.queue.reap_max as usize;
    spec.map_len = job.file_size.unwrap_or(0) as usize;
    let d = ThreadDrive {
        sh,
        tid,
        rng,
        barriers,
        pool: &mut pool,
        pool_len,
    };
    if let Err(r) = t.run(spec, d) {
        let msg = match &r.cause {
            Refused::Ring(e) => crate::engine::io_uring::unavailable_reason(e),
            Refused::Map(e) => format!("mmap failed: {e:?}"),
            // the engines of `--file-io-mode` refuse nothing else
            _ => r.why(),
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
    pool: &'s mut AlignedBuf,
    pool_len: usize,
}

impl worker::thread::ThreadDrive for ThreadDrive<'_> {
    type Out = ();
    /// sysbench's I/O modes: sync (psync), async (io_uring, psync as fallback), mmap
    const THREE_KINDS: bool = true;
    fn drive<E: Engine>(self, eng: &mut E, slab: &Slab, depth: usize) {
        let sh = self.sh;
        sh.console.line(
            5,
            &format!("DEBUG: Worker thread (#{}) initialized", self.tid),
        );
        self.barriers[0].wait();
        self.barriers[1].wait();
        let mut rules =
            SysbenchRules::new(sh, self.tid, self.rng, (self.pool, self.pool_len), depth);
        let mut io = worker::Io::new(eng, slab, &sh.clock, depth);
        // a failure is recorded in `sh` (its lines and exit code)
        let _ = worker::run(&mut io, &mut rules);
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
