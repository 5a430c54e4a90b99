//! The copy methods of `iomark copy` (buffered, `copy_file_range`, O_DIRECT) and the
//! source writer, byte-for-byte verification and cache dropping they rely on. Each
//! method stops between two requests when the stop flag is set.

use super::phase::{short, RunError};
use super::{CFR_CHUNK, DIRECT_BLOCK};
use crate::engine::buffers::{AlignedBuf, ALIGN};
use crate::engine::fault::{self, Op};
use crate::files::scratch::{self, ScratchError};
use crate::run::sampler::IoCounts;
use crate::run::sysbench::rng::{GlibcRandom, Xoroshiro128Plus};
use indicatif::ProgressBar;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Timing of one copy method.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// seconds from the first request to the return of the last write
    pub written_s: f64,
    /// seconds from the first request to the return of the final `fsync`
    pub durable_s: f64,
    /// write requests issued
    pub requests: u64,
    /// bytes copied
    pub bytes: u64,
    /// seconds inside the read calls
    pub read_s: f64,
    /// seconds inside the write calls (copy_file_range's calls, which read and write
    /// inside the kernel, count here)
    pub write_s: f64,
}

/// Outcome of one method.
pub(super) enum Method {
    Done(Timing),
    Skipped(String),
}

pub(super) fn check_stop(stop: &AtomicBool) -> Result<(), RunError> {
    if stop.load(Ordering::Relaxed) {
        Err(RunError::Interrupted)
    } else {
        Ok(())
    }
}

pub(super) fn io_fail(what: &str, p: &Path, e: &io::Error) -> RunError {
    match e.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => {
            RunError::Env(format!("{what} {}: {}", p.display(), short(e)))
        }
        _ => RunError::Failed(format!("{what} {}: {}", p.display(), short(e))),
    }
}

/// [`io_fail`] for a data request, naming the byte offset it started at.
fn io_fail_at(what: &str, p: &Path, offset: u64, e: &io::Error) -> RunError {
    io_fail(&format!("{what} at offset {offset} of"), p, e)
}

pub(super) fn create_err(e: ScratchError) -> RunError {
    match e.is_environment() {
        true => RunError::Env(e.to_string()),
        false => RunError::Failed(e.to_string()),
    }
}

/// Write `size` bytes of xoroshiro128+ output (incompressible) to `f` in 4 MiB chunks:
/// the requests issued and the time inside the write calls.
pub(super) fn write_source(
    f: &mut File,
    path: &Path,
    size: u64,
    seed: u32,
    (stop, counts): (&AtomicBool, &IoCounts),
    pb: &ProgressBar,
) -> Result<(u64, std::time::Duration), RunError> {
    let mut inside = std::time::Duration::ZERO;
    let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(seed));
    let mut buf = vec![0u8; DIRECT_BLOCK];
    let mut left = size;
    let mut reqs = 0;
    while left > 0 {
        check_stop(stop)?;
        let n = left.min(buf.len() as u64) as usize;
        rng.fill(&mut buf[..n]);
        let at = Instant::now();
        let wrote = fault::io_hook(Op::Write).and_then(|_| f.write_all(&buf[..n]));
        inside += at.elapsed();
        wrote.map_err(|e| io_fail_at("cannot write", path, size - left, &e))?;
        counts.write(n as u64);
        left -= n as u64;
        reqs += 1;
        pb.inc(n as u64);
    }
    Ok((reqs, inside))
}

/// The buffered (cp-like) and O_DIRECT methods: one read/write loop over `block`-byte
/// requests from a page-aligned buffer (as dd's: an unaligned heap buffer made the
/// kernel's copies to and from user memory measurably slower), then `fsync`.
/// `direct`: open both ends with O_DIRECT, pad a short tail to [`ALIGN`] and truncate
/// it back, and skip (not fail) when the filesystem refuses O_DIRECT (EINVAL) before
/// the first byte. Buffered reads are announced sequential (`POSIX_FADV_SEQUENTIAL`),
/// as cp does.
pub(super) fn read_write(
    src: &Path,
    dst_path: &Path,
    dst: &mut File,
    direct: bool,
    block: usize,
    (stop, counts): (&AtomicBool, &IoCounts),
    pb: &ProgressBar,
) -> Result<Method, RunError> {
    let t0 = Instant::now();
    let mut s = match scratch::open_read(src, direct) {
        Ok(s) => s,
        Err(e) if direct && e.raw_os_error() == Some(libc::EINVAL) => {
            return Ok(Method::Skipped(format!(
                "O_DIRECT refused on the source's filesystem ({}): skipped",
                short(&e)
            )))
        }
        Err(e) => return Err(io_fail("cannot open", src, &e)),
    };
    if !direct {
        // SAFETY: fadvise on our descriptor.
        unsafe { libc::posix_fadvise(s.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
    }
    let refused = |what: &str, e: &io::Error| {
        Method::Skipped(format!("O_DIRECT {what} refused ({}): skipped", short(e)))
    };
    let mut buf = AlignedBuf::new(block);
    let buf = &mut buf.as_mut_slice()[..block];
    let (mut bytes, mut reqs, mut padded) = (0u64, 0u64, false);
    let mut inside = [std::time::Duration::ZERO; 2];
    loop {
        check_stop(stop)?;
        // An injected fault fails the run; only the kernel's own EINVAL means "refused".
        fault::io_hook(Op::Read).map_err(|e| io_fail_at("cannot read", src, bytes, &e))?;
        let at = Instant::now();
        let got = s.read(buf);
        inside[0] += at.elapsed();
        let n = match got {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if direct && bytes == 0 && e.raw_os_error() == Some(libc::EINVAL) => {
                return Ok(refused("read", &e))
            }
            Err(e) => return Err(io_fail_at("cannot read", src, bytes, &e)),
        };
        counts.read(n as u64);
        // O_DIRECT writes whole aligned blocks: a short tail is padded, then truncated.
        let len = if direct { n.div_ceil(ALIGN) * ALIGN } else { n };
        if len > n {
            buf[n..len].fill(0);
            padded = true;
        }
        let first = direct && bytes == 0;
        let to = (&mut *dst, dst_path, bytes);
        if let Some(e) = write_block(to, &buf[..len], first, counts, &mut inside[1])? {
            return Ok(refused("write", &e));
        }
        bytes += n as u64;
        reqs += 1;
        pb.inc(n as u64);
    }
    if padded {
        dst.set_len(bytes)
            .map_err(|e| io_fail("cannot truncate", dst_path, &e))?;
    }
    durable(t0, dst, dst_path, (reqs, bytes, inside), pb)
}

/// Write `block` whole to `dst` (`dst_path`) at the copy's offset `at`, counting each
/// write and the time inside the calls (`inside`). `Some`: the kernel refused an
/// O_DIRECT write of the first block (`refusable`) with EINVAL, so the method is skipped.
fn write_block(
    (dst, dst_path, at): (&mut File, &Path, u64),
    block: &[u8],
    refusable: bool,
    counts: &IoCounts,
    inside: &mut std::time::Duration,
) -> Result<Option<io::Error>, RunError> {
    let mut off = 0;
    while off < block.len() {
        let at = at + off as u64;
        fault::io_hook(Op::Write).map_err(|e| io_fail_at("cannot write", dst_path, at, &e))?;
        let t = Instant::now();
        let wrote = dst.write(&block[off..]);
        *inside += t.elapsed();
        match wrote {
            Ok(0) => {
                return Err(RunError::Failed(format!(
                    "cannot write at offset {at} of {}: zero-length write",
                    dst_path.display()
                )))
            }
            Ok(w) => {
                counts.write(w as u64);
                off += w;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if refusable && e.raw_os_error() == Some(libc::EINVAL) => return Ok(Some(e)),
            Err(e) => return Err(io_fail_at("cannot write", dst_path, at, &e)),
        }
    }
    Ok(None)
}

pub(super) fn copy_file_range(
    src: &Path,
    dst_path: &Path,
    dst: &mut File,
    (stop, counts): (&AtomicBool, &IoCounts),
    pb: &ProgressBar,
) -> Result<Method, RunError> {
    let t0 = Instant::now();
    let s = scratch::open_read(src, false).map_err(|e| io_fail("cannot open", src, &e))?;
    let (mut bytes, mut reqs) = (0u64, 0u64);
    let mut inside = std::time::Duration::ZERO;
    loop {
        check_stop(stop)?;
        fault::io_hook(Op::Write)
            .map_err(|e| io_fail_at("copy_file_range to", dst_path, bytes, &e))?;
        let at = Instant::now();
        // SAFETY: copy_file_range on two descriptors we own, using their file offsets.
        let n = unsafe {
            libc::copy_file_range(
                s.as_raw_fd(),
                std::ptr::null_mut(),
                dst.as_raw_fd(),
                std::ptr::null_mut(),
                CFR_CHUNK,
                0,
            )
        };
        inside += at.elapsed();
        if n < 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EXDEV | libc::ENOSYS | libc::EOPNOTSUPP | libc::EINVAL)
                    if bytes == 0 =>
                {
                    return Ok(Method::Skipped(format!(
                        "copy_file_range refused between these filesystems ({}): skipped",
                        short(&e)
                    )));
                }
                _ => return Err(io_fail_at("copy_file_range to", dst_path, bytes, &e)),
            }
        }
        if n == 0 {
            break;
        }
        // the kernel read the source and wrote the copy
        counts.read(n as u64);
        counts.write(n as u64);
        bytes += n as u64;
        reqs += 1;
        pb.inc(n as u64);
    }
    let inside = [std::time::Duration::ZERO, inside];
    durable(t0, dst, dst_path, (reqs, bytes, inside), pb)
}

/// The end of every method: the time to the last write, then `fsync` of the copy and
/// the time to its return (seconds since `t0`, the method's first request), with the
/// time `inside` its read and write calls.
fn durable(
    t0: Instant,
    dst: &File,
    dst_path: &Path,
    (requests, bytes, inside): (u64, u64, [std::time::Duration; 2]),
    pb: &ProgressBar,
) -> Result<Method, RunError> {
    let written_s = t0.elapsed().as_secs_f64();
    // the bar is full; the wait for the device says so instead of a frozen bar
    pb.finish_and_clear();
    let w = super::phase::waiting("final fsync of the copy: waiting for the device");
    fault::io_hook(Op::Fsync)
        .and_then(|_| dst.sync_all())
        .map_err(|e| io_fail("cannot fsync", dst_path, &e))?;
    w.finish_and_clear();
    Ok(Method::Done(Timing {
        written_s,
        durable_s: t0.elapsed().as_secs_f64(),
        requests,
        bytes,
        read_s: inside[0].as_secs_f64(),
        write_s: inside[1].as_secs_f64(),
    }))
}

/// First offset where the files `a` and `b` differ (`Some(len)` of the shorter when
/// one is a prefix of the other); `None` when they are byte-identical.
pub fn first_difference(a: &Path, b: &Path) -> io::Result<Option<u64>> {
    let mut fa = crate::files::scratch::open_read(a, false)?;
    let mut fb = crate::files::scratch::open_read(b, false)?;
    let mut ba = vec![0u8; 1 << 20];
    let mut bb = vec![0u8; 1 << 20];
    let mut off = 0u64;
    loop {
        let na = read_full(&mut fa, &mut ba)?;
        let nb = read_full(&mut fb, &mut bb)?;
        if let Some(i) = ba[..na.min(nb)]
            .iter()
            .zip(&bb[..na.min(nb)])
            .position(|(x, y)| x != y)
        {
            return Ok(Some(off + i as u64));
        }
        if na != nb {
            return Ok(Some(off + na.min(nb) as u64));
        }
        if na == 0 {
            return Ok(None);
        }
        off += na as u64;
    }
}

pub(super) fn read_full(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// fsync + `POSIX_FADV_DONTNEED` on a path (drops its clean page-cache pages).
pub(super) fn drop_cache(p: &Path) -> Result<(), RunError> {
    let f = scratch::open_read(p, false).map_err(|e| io_fail("cannot open", p, &e))?;
    let w = super::phase::waiting("dropping the file from the page cache (fsync, posix_fadvise)");
    fault::io_hook(Op::Fsync)
        .and_then(|_| f.sync_all())
        .map_err(|e| io_fail("cannot fsync", p, &e))?;
    let r = scratch::drop_file_cache(&f).map_err(|e| io_fail("posix_fadvise", p, &e));
    w.finish_and_clear();
    r
}
