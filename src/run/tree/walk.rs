//! The `read_all` phase of `iomark tree`: the read `tar cf - TREE`, `grep -r` or a package
//! manager's scan does. Walkers list directories with readdir (symlinks never followed),
//! `lstat` every entry, and open, read to the end in 128 KiB requests and close every
//! regular file. It walks the disk, not the plan, so readdir and inode lookups cost what
//! they cost a real tool; the caller checks that the walk found exactly the files and
//! bytes written (the tree root is iomark's fresh directory and holds nothing else).
//!
//! One walker (`--threads=1`) uses the walkdir crate: depth first in readdir order, the
//! order GNU tar visits a tree in. N walkers share a work queue of directories: a walker
//! takes a directory, reads it, reads its files and queues its subdirectories for any
//! walker; the phase ends when the queue is empty and no walker holds a directory.
//!
//! Figures: per-file latency (ns) covers lstat + open + all reads + close; readdir and the
//! lstat of directories count in the phase's wall time only. `ops` = files read, `bytes` =
//! bytes read.

use super::{fail, Measured};
use crate::engine::fault::{self, Op};
use crate::files::scratch;
use crate::run::copy::RunError;
use crate::run::sampler::IoCounts;
use crate::stats::{self, clock::Clock};
use indicatif::ProgressBar;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// Read request size of the walk, bytes (tar's and cp's buffer size).
pub const READ_BLOCK: usize = 128 * 1024;

/// Per-walker tallies.
struct Tally<'a> {
    /// the run's counters the sampler reads (each file read counts as one read)
    counts: &'a IoCounts,
    hist: hdrhistogram::Histogram<u64>,
    sum_ns: u64,
    bytes: u64,
    ops: u64,
    buf: Vec<u8>,
}

impl<'a> Tally<'a> {
    fn new(counts: &'a IoCounts) -> Tally<'a> {
        Tally {
            counts,
            hist: stats::new_hist(),
            sum_ns: 0,
            bytes: 0,
            ops: 0,
            buf: vec![0u8; READ_BLOCK],
        }
    }

    /// lstat `p`; if it is a regular file, open, read it to the end and close it, and
    /// record the latency from before the lstat. Returns whether `p` is a directory.
    fn visit(&mut self, p: &Path, clock: &Clock, pb: &ProgressBar) -> Result<bool, RunError> {
        let a = clock.now();
        let md = std::fs::symlink_metadata(p).map_err(|e| fail("cannot stat", p, &e))?;
        if md.is_dir() {
            return Ok(true);
        }
        if !md.is_file() {
            return Ok(false);
        }
        let mut f = scratch::open_read(p, false).map_err(|e| fail("cannot open", p, &e))?;
        let mut n = 0u64;
        loop {
            match fault::io_hook(Op::Read).and_then(|_| f.read(&mut self.buf)) {
                Ok(0) => break,
                Ok(k) => n += k as u64,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(fail(&format!("cannot read at offset {n} of"), p, &e)),
            }
        }
        drop(f);
        let ns = clock.ns(a, clock.now());
        let _ = self.hist.record(ns.clamp(1, stats::MAX_TRACKABLE_NS));
        self.sum_ns += ns;
        self.bytes += n;
        self.ops += 1;
        self.counts.read(n);
        pb.inc(1);
        Ok(false)
    }
}

/// Walk `root` with `threads` walkers (see the module header) and read every regular
/// file. Errors name the path (exit 1; ENOSPC/EACCES-like: exit 3); a set `stop` ends the
/// walk between two files, with the files read so far (`stopped`).
pub(super) fn read_all(
    root: &Path,
    threads: u32,
    clock: &Clock,
    stop: &AtomicBool,
    (pb, counts): (&ProgressBar, &IoCounts),
) -> Result<Measured, RunError> {
    let t0 = Instant::now();
    let tallies = if threads <= 1 {
        vec![walk_one(root, clock, stop, (pb, counts))?]
    } else {
        walk_many(root, threads as usize, clock, stop, (pb, counts))?
    };
    let mut m = Measured {
        hist: stats::new_hist(),
        sum_ns: 0,
        bytes: 0,
        ops: 0,
        seconds: t0.elapsed().as_secs_f64(),
        stopped: stop.load(Ordering::Relaxed),
    };
    for t in tallies {
        let _ = m.hist.add(&t.hist);
        m.sum_ns += t.sum_ns;
        m.bytes += t.bytes;
        m.ops += t.ops;
    }
    Ok(m)
}

/// One walker: walkdir, depth first in readdir order (tar's order).
fn walk_one<'a>(
    root: &Path,
    clock: &Clock,
    stop: &AtomicBool,
    (pb, counts): (&ProgressBar, &'a IoCounts),
) -> Result<Tally<'a>, RunError> {
    let mut t = Tally::new(counts);
    for ent in walkdir::WalkDir::new(root).follow_links(false) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let ent = ent.map_err(|e| {
            let p = e.path().unwrap_or(root).to_path_buf();
            let io = e
                .into_io_error()
                .unwrap_or_else(|| io::Error::other("filesystem loop"));
            fail("cannot walk", &p, &io)
        })?;
        t.visit(ent.path(), clock, pb)?;
    }
    Ok(t)
}

fn lock(m: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Shared state of the parallel walk: directories waiting, walkers holding one.
struct Queue {
    dirs: Vec<PathBuf>,
    busy: usize,
    done: bool,
}

/// N walkers over a work queue of directories.
fn walk_many<'a>(
    root: &Path,
    n: usize,
    clock: &Clock,
    stop: &AtomicBool,
    (pb, counts): (&ProgressBar, &'a IoCounts),
) -> Result<Vec<Tally<'a>>, RunError> {
    let q = Mutex::new(Queue {
        dirs: vec![root.to_path_buf()],
        busy: 0,
        done: false,
    });
    let cv = Condvar::new();
    let first_err: Mutex<Option<RunError>> = Mutex::new(None);
    // Stop everyone (error, signal): the queue is closed and sleepers woken.
    let halt = |err: Option<RunError>| {
        if let Some(e) = err {
            let mut g = first_err.lock().unwrap_or_else(|p| p.into_inner());
            g.get_or_insert(e);
        }
        lock(&q).done = true;
        cv.notify_all();
    };
    let tallies: Vec<Tally<'a>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .filter_map(|_| {
                let (q, cv, halt) = (&q, &cv, &halt);
                let h = std::thread::Builder::new().spawn_scoped(s, move || {
                    let mut t = Tally::new(counts);
                    while let Some(dir) = take_dir(q, cv) {
                        match walk_dir(&dir, &mut t, q, cv, clock, stop, pb) {
                            // a signal: every walker ends, keeping what it read
                            Err(RunError::Interrupted) => {
                                halt(None);
                                return t;
                            }
                            Err(e) => {
                                halt(Some(e));
                                return t;
                            }
                            Ok(()) => {}
                        }
                        dir_done(q, cv);
                    }
                    t
                });
                match h {
                    Ok(h) => Some(h),
                    Err(e) => {
                        halt(Some(RunError::Env(format!(
                            "cannot start a walker thread: {e}"
                        ))));
                        None
                    }
                }
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Tally::new(counts)))
            .collect()
    });
    if let Some(e) = first_err.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(tallies)
}

/// A walker takes a directory from the queue, waiting while others hold one; `None`
/// when the walk is over: closed (error, signal), or none left and none held (the
/// walker that sees this closes the queue and wakes the others).
fn take_dir(q: &Mutex<Queue>, cv: &Condvar) -> Option<PathBuf> {
    let mut g = lock(q);
    loop {
        if g.done {
            return None;
        }
        if let Some(d) = g.dirs.pop() {
            g.busy += 1;
            return Some(d);
        }
        if g.busy == 0 {
            g.done = true;
            cv.notify_all();
            return None;
        }
        g = cv.wait(g).unwrap_or_else(|p| p.into_inner());
    }
}

/// A walker has read its directory: it holds none now; the last one held with an
/// empty queue wakes the waiting walkers to end.
fn dir_done(q: &Mutex<Queue>, cv: &Condvar) {
    let mut g = lock(q);
    g.busy -= 1;
    if g.busy == 0 && g.dirs.is_empty() {
        cv.notify_all();
    }
}

/// Read one directory: visit its entries in readdir order, queue its subdirectories.
fn walk_dir(
    dir: &Path,
    t: &mut Tally,
    q: &Mutex<Queue>,
    cv: &Condvar,
    clock: &Clock,
    stop: &AtomicBool,
    pb: &ProgressBar,
) -> Result<(), RunError> {
    let rd = std::fs::read_dir(dir).map_err(|e| fail("cannot walk", dir, &e))?;
    for ent in rd {
        if stop.load(Ordering::Relaxed) {
            return Err(RunError::Interrupted);
        }
        let p = ent.map_err(|e| fail("cannot walk", dir, &e))?.path();
        if t.visit(&p, clock, pb)? {
            let mut g = lock(q);
            if g.done {
                return Ok(());
            }
            g.dirs.push(p);
            cv.notify_one();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small tree (nested directories, a symlink, an empty file) read by 1 and by 3
    /// walkers: every regular file once, every byte, the symlink not followed.
    #[test]
    fn walkers_read_every_file_once() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        let mut files = 0u64;
        let mut bytes = 0u64;
        for (i, sub) in ["", "a", "a/b", "a/b/c", "d", "d/e", "f"]
            .iter()
            .enumerate()
        {
            let dir = r.join(sub);
            std::fs::create_dir_all(&dir).unwrap();
            for j in 0..(i + 1) {
                let len = (i * 70_000 + j * 333) % 300_000; // 0 bytes up to > 2 requests
                std::fs::write(dir.join(format!("x{j}")), vec![7u8; len]).unwrap();
                files += 1;
                bytes += len as u64;
            }
        }
        std::os::unix::fs::symlink(r.join("a"), r.join("d/link")).unwrap();
        let clock = Clock::calibrated(false);
        let stop = AtomicBool::new(false);
        let pb = ProgressBar::hidden();
        for threads in [1, 3] {
            let counts = IoCounts::default();
            let m = read_all(r, threads, &clock, &stop, (&pb, &counts)).unwrap();
            assert_eq!((m.ops, m.bytes), (files, bytes), "threads={threads}");
            // the sampler's counters: one read per file, every byte
            assert_eq!(counts.get(), [files, 0, bytes, 0], "threads={threads}");
            assert_eq!(m.hist.len(), files, "threads={threads}");
        }
        // stopped before the first file: no file read, the walk said stopped
        stop.store(true, Ordering::Relaxed);
        for threads in [1, 3] {
            let m = read_all(r, threads, &clock, &stop, (&pb, &IoCounts::default())).unwrap();
            assert!(m.stopped, "threads={threads}");
            assert_eq!((m.ops, m.bytes), (0, 0), "threads={threads}");
        }
    }
}
