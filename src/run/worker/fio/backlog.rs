//! Verification of what a job thread wrote (a child module of the worker, so it shares
//! the worker's state): fio's `verify_backlog` (read back and check the written blocks
//! every N blocks while the job writes), the read-back phase after the writes, and
//! `verify_dump`. Each block read back counts in `verified` (fio JSON and text report).
//!
//! fio semantics (HOWTO `verify_backlog`, `verify_backlog_batch`): after every
//! `verify_backlog` blocks written, `verify_backlog_batch` blocks are verified (default:
//! the whole backlog); a smaller batch leaves blocks unverified there, a larger one
//! verifies some twice. Blocks verified in a backlog are not read again at the end.
//! The write sequence number is checked as fio does: only for jobs that write with one
//! block size and are not time based, unless `verify_write_sequence=0`.

use crate::engine::buffers::Slab;
use crate::engine::IoErr;
use crate::run::fio::RunError;
use crate::run::verify;
use crate::run::worker::fio::{Slot, Worker};
use crate::stats::job::JobStats;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

impl<'a> Worker<'a> {
    /// The job's verify settings.
    pub(super) fn vspec(&self) -> Option<verify::fio::Spec<'a>> {
        let plan: &'a crate::run::fio::Plan = self.plan;
        let v = &plan.work.verify;
        v.kind.map(|kind| verify::fio::Spec {
            kind,
            pattern: &v.pattern,
            interval: v.interval as usize,
            offset_at: &v.pattern_offsets,
            hdr_at: v.header_at as usize,
        })
    }

    /// The blocks written and not verified yet (last write per offset) as (file,
    /// offset, length, sequence number), taken for a read-back, in fio 3.33's order
    /// (iolog.c `log_io_piece`): the order they were written in where the job keeps a
    /// random map (fio's list), else by file and offset (its sorted tree); `None` when
    /// the job verifies nothing or has no file.
    pub(super) fn unverified(&mut self) -> Option<Vec<(usize, u64, usize, u64)>> {
        if self.vspec().is_none() || self.fds.is_empty() {
            return None;
        }
        let written: BTreeMap<_, _> = std::mem::take(&mut self.written);
        let mut blocks: Vec<_> = written
            .into_iter()
            .map(|((f, o), (len, seq))| (f, o, len, seq))
            .collect();
        if self.maps.iter().any(Option::is_some) {
            blocks.sort_by_key(|b| b.3);
        }
        Some(blocks)
    }

    /// Whether read-back checks the write sequence number (fio's rule).
    pub(super) fn seq_checked(&self) -> bool {
        let w = &self.plan.work;
        let bs = &w.pick.bs[1];
        w.verify.write_sequence
            && w.pick.rw.writes()
            && bs.min() == bs.max()
            && !w.limits.time_based
    }

    /// A write was issued: remember it for the read-back (and the backlog).
    pub(super) fn note_write(&mut self, file: usize, offset: u64, len: usize, seq: u64) {
        if self.maps.get(file).is_none_or(Option::is_none) {
            self.drop_overlapped(file, offset, len);
        }
        self.written.insert((file, offset), (len, seq));
        if self.plan.work.verify.backlog > 0 {
            self.backlog.push((file, offset));
        }
    }

    /// fio's verify list of a file without a random map (a sequential job, or a random
    /// one with `norandommap` or a non-uniform distribution: its rb-tree, iolog.c
    /// `log_io_piece`): a new write removes every earlier one it overlaps, so only the
    /// last write over each byte is read back. (With a random map no write of a pass
    /// overlaps another, and fio keeps a plain list.)
    fn drop_overlapped(&mut self, file: usize, offset: u64, len: usize) {
        let longest = self
            .plan
            .work
            .pick
            .bs
            .iter()
            .map(|b| b.max())
            .max()
            .unwrap_or(0);
        let from = offset.saturating_sub(longest.saturating_sub(1));
        let end = offset + len as u64;
        let over = |w: &std::collections::BTreeMap<(usize, u64), (usize, u64)>| {
            w.range((file, from)..(file, end))
                .find(|(k, v)| k.1 + v.0 as u64 > offset)
                .map(|(k, _)| *k)
        };
        while let Some(k) = over(&self.written) {
            self.written.remove(&k);
        }
    }

    /// A write failed and the job goes on: its block's content is unknown, so it is not
    /// verified.
    pub(super) fn forget_write(&mut self, file: usize, offset: u64) {
        self.written.remove(&(file, offset));
    }

    /// Enough blocks written since the last backlog verify.
    #[inline]
    pub(super) fn backlog_due(&self) -> bool {
        let n = self.plan.work.verify.backlog;
        n > 0 && self.backlog.len() as u64 >= n
    }

    /// Verify `verify_backlog_batch` blocks of the backlog (nothing may be in flight).
    pub(super) fn verify_backlog(
        &mut self,
        slab: &Slab,
        st: &mut JobStats,
    ) -> Result<(), RunError> {
        let batch = self.plan.work.verify.backlog_batch;
        let list = std::mem::take(&mut self.backlog);
        if list.is_empty() || self.fds.is_empty() {
            return Ok(());
        }
        for i in 0..batch as usize {
            let (file, offset) = list[i % list.len()];
            // the last write to the block decides what it must hold now
            let Some(&(len, seq)) = self.written.get(&(file, offset)) else {
                continue;
            };
            self.verify_block(slab, st, file, offset, len, seq)?;
        }
        // verified blocks are not read again at the end (fio drops them from its history)
        for &(file, offset) in list.iter().take(batch as usize) {
            self.written.remove(&(file, offset));
        }
        Ok(())
    }

    /// Read back every block the job wrote and has not verified yet (last write per
    /// offset) and check it, until tick `until` (the job's runtime: fio's verify phase
    /// stops there too, the blocks not read yet unchecked).
    pub(super) fn verify_back(
        &mut self,
        slab: &Slab,
        st: &mut JobStats,
        until: Option<u64>,
    ) -> Result<(), RunError> {
        let Some(written) = self.unverified() else {
            return Ok(());
        };
        for (file, offset, len, seq) in written {
            if until.is_some_and(|u| self.clock.now() >= u) || self.stop.load(Ordering::Relaxed) {
                break;
            }
            self.verify_block(slab, st, file, offset, len, seq)?;
        }
        Ok(())
    }

    /// Read one block with buffer 0 (nothing in flight) and check it.
    fn verify_block(
        &mut self,
        slab: &Slab,
        st: &mut JobStats,
        file: usize,
        offset: u64,
        len: usize,
        seq: u64,
    ) -> Result<(), RunError> {
        let Some(spec) = self.vspec() else {
            return Ok(());
        };
        let buf = slab.bufs[0].ptr();
        // SAFETY: buffer 0 is at least max bs long and nothing is in flight.
        let b = unsafe { std::slice::from_raw_parts_mut(buf, len) };
        // a verify read opens its file whatever `openfiles` (fio's get_next_verify)
        self.open_any(file);
        if let Some(l) = &mut self.logs {
            // write_iolog: fio logs its verify reads as the reads they are
            l.iolog(file, "read", offset, len as u64);
        }
        let t0 = self.clock.now();
        let mut done = 0usize;
        while done < len {
            // SAFETY: pread into our buffer on an open descriptor.
            let r = unsafe {
                libc::pread(
                    self.fds[file],
                    b[done..].as_mut_ptr().cast(),
                    len - done,
                    (offset + done as u64) as libc::off_t,
                )
            };
            if r < 0 && crate::engine::last_errno() == libc::EINTR {
                continue;
            }
            if r <= 0 {
                let e = if r == 0 {
                    IoErr::Short { done }
                } else {
                    IoErr::Errno(crate::engine::last_errno())
                };
                return Err(self.io_err(&Slot::read_at(file, offset, len), e));
            }
            done += r as usize;
        }
        // IOMARK_FAULT (test-only) reaches these reads too
        if let Err(e) = crate::engine::fault::read_hook(b) {
            return Err(self.io_err(&Slot::read_at(file, offset, len), e));
        }
        st.verified += 1;
        self.count_verify_read(st, len, t0);
        let want = self.seq_checked().then_some(seq);
        if let Err(why) = verify::fio::check_with(b, offset, &spec, want) {
            let why = self.dumped(file, offset, b, Some(seq), why);
            self.mismatch(file, offset, why)?;
        }
        Ok(())
    }

    /// A block read back counts as a read, as in fio (its verify reads are read
    /// io_units: `read.io_kbytes`, `total_ios`, the clat of the pread).
    fn count_verify_read(&mut self, st: &mut JobStats, len: usize, t0: u64) {
        let d = &mut st.read;
        d.ios += 1;
        d.bytes += len as u64;
        let now = self.clock.now();
        if !self.uses.gtod_reduce && now >= self.lat_from {
            // synchronous: clat = lat, one histogram record (DirStats::settle)
            d.sync.add(self.clock.ns(t0, now));
        }
    }

    /// Tell a mismatch in fio's words on stderr (`verify::fio::fio_report`) and, with
    /// `verify_dump=1`, write the received and expected block and say where.
    /// `seq`: the write sequence number the block must carry (`None`: a job that only
    /// reads, which takes it from the block).
    pub(super) fn dumped(
        &self,
        file: usize,
        offset: u64,
        data: &[u8],
        seq: Option<u64>,
        why: String,
    ) -> String {
        let Some(spec) = self.vspec() else {
            return why;
        };
        let path = &self.plan.files[file].path;
        if let Some(lines) = verify::fio::fio_report(path, data, offset, &spec) {
            eprint!("{lines}");
        }
        if !self.plan.work.verify.dump {
            return why;
        }
        match verify::fio::dump(path, offset, data, &spec, seq.map(|q| (self.plan.seed, q))) {
            Ok((r, e)) => format!(
                "{why} (verify_dump: received block in {}, expected in {})",
                r.display(),
                e.display()
            ),
            Err(e) => format!("{why} (verify_dump failed: {e})"),
        }
    }
}
