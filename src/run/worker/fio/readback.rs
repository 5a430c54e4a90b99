//! The read-back phase of a job that writes with `verify=` on an engine that queues
//! (io_uring, libaio, posixaio) at an `iodepth` above 1: the blocks written and not yet
//! verified are read through the job's engine, `iodepth` of them in flight, and each is
//! checked when it completes — as fio 3.33's `do_verify` queues its verify reads at the
//! job's depth (its read `slat` counts them). A child module of the worker: it runs the
//! one worker loop ([`crate::run::worker::run`]) under its own [`Rules`], over the
//! worker's state. The synchronous read-back (`backlog.rs`) stays for the other engines.

use crate::engine::{Dir, Engine, IoErr, IoReq};
use crate::run::fio::RunError;
use crate::run::verify;
use crate::run::worker::fio::{Op, Slot, Tag, Worker};
use crate::run::worker::{Io, Next, Pass, Req, Rules, Submitted, Times};
use crate::stats::job::JobStats;
use std::sync::atomic::Ordering;

/// One read-back at depth: the blocks to read (file, offset, length, write sequence) in
/// fio's order ([`Worker::unverified`]), the next one, and the write sequence of the block in each slot.
struct ReadBack<'w, 'a> {
    w: &'w mut Worker<'a>,
    st: &'w mut JobStats,
    blocks: Vec<(usize, u64, usize, u64)>,
    next: usize,
    /// tick the read-back stops at (the job's runtime), as the synchronous one
    until: Option<u64>,
    seqs: Vec<u64>,
}

impl<'a> Worker<'a> {
    /// Read back and check every block written and not yet verified through `io` (the
    /// job's engine and its slots), until tick `until`.
    pub(super) fn verify_back_queued<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        st: &mut JobStats,
        until: Option<u64>,
    ) -> Result<(), RunError> {
        let Some(blocks) = self.unverified() else {
            return Ok(());
        };
        let slots = io.free() + io.in_flight();
        let mut rb = ReadBack {
            w: self,
            st,
            blocks,
            next: 0,
            until,
            seqs: vec![0; slots],
        };
        crate::run::worker::run(io, &mut rb)
    }
}

impl ReadBack<'_, '_> {
    /// No new read: all issued, the runtime is over or the job was told to stop.
    fn over(&self, now: u64) -> bool {
        self.next >= self.blocks.len()
            || self.until.is_some_and(|u| now >= u)
            || self.w.stop.load(Ordering::Relaxed)
    }

    /// A block came back whole: count it as a read (fio's verify reads are read
    /// io_units, queued ones with their slat) and check it.
    fn check(&mut self, req: &Req<Tag>, at: Times) -> Result<(), RunError> {
        let len = req.io.len;
        // SAFETY: the slot's buffer holds the `len` bytes just read and is ours again
        let b = unsafe { std::slice::from_raw_parts_mut(req.io.buf, len) };
        // (IOMARK_FAULT, test-only, reaches these reads in the engine it wraps)
        self.st.verified += 1;
        let d = &mut self.st.read;
        d.ios += 1;
        d.bytes += len as u64;
        // (inside the ramp a read counts, its latencies do not: `Worker::lat_from`)
        if !self.w.uses.gtod_reduce && at.t >= self.w.lat_from {
            match at.lat(self.w.clock) {
                (Some(slat), clat, lat) => {
                    d.slat.add(slat);
                    d.clat.add(clat);
                    d.lat.add(lat);
                }
                (None, clat, _) => d.sync.add(clat),
            }
        }
        let Some(spec) = self.w.vspec() else {
            return Ok(());
        };
        let seq = self.seqs[usize::from(req.io.buf_index)];
        let want = self.w.seq_checked().then_some(seq);
        let (file, offset) = (req.io.file, req.io.offset);
        if let Err(why) = verify::fio::check_with(b, offset, &spec, want) {
            let why = self.w.dumped(file, offset, b, Some(seq), why);
            self.w.mismatch(file, offset, why)?;
        }
        Ok(())
    }
}

impl Rules for ReadBack<'_, '_> {
    type Tag = Tag;
    type Error = RunError;
    // timed as the job's own requests (FioRules)
    const ISSUE_CLOCK: bool = true;

    fn top<E: Engine>(&mut self, io: &mut Io<'_, E, Tag>, now: u64) -> Result<Pass, RunError> {
        let done = self.over(now);
        Ok(Pass {
            done,
            submit: !done && io.free() > 0,
        })
    }

    fn next<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        slot: usize,
        req: &mut Req<Tag>,
    ) -> Result<Next, RunError> {
        if self.over(self.w.clock.now()) {
            return Ok(Next::Break);
        }
        let (file, offset, len, seq) = self.blocks[self.next];
        self.next += 1;
        self.seqs[slot] = seq;
        // a verify read opens its file whatever `openfiles` (fio's get_next_verify)
        self.w.open_any(file);
        if let Some(l) = &mut self.w.logs {
            // write_iolog: fio logs its verify reads as the reads they are
            l.iolog(file, "read", offset, len as u64);
        }
        *req = Req {
            io: IoReq {
                dir: Dir::Read,
                file,
                offset,
                len,
                buf: io.buf(slot),
                buf_index: slot as u16,
                ioprio: 0,
            },
            by_rules: false,
            tag: Tag {
                op: Op::Read,
                measured: true,
                before: 0,
            },
        };
        Ok(Next::Io)
    }

    fn complete<E: Engine>(
        &mut self,
        _eng: &mut E,
        req: &Req<Tag>,
        res: Result<usize, IoErr>,
        at: Times,
    ) -> Result<(), RunError> {
        match res {
            Ok(_) => self.check(req, at),
            Err(e) => Err(self.w.io_err(req, e)),
        }
    }

    fn after<E: Engine>(
        &mut self,
        io: &mut Io<'_, E, Tag>,
        _req: &Req<Tag>,
        _how: Submitted,
        _t1: u64,
    ) -> Result<bool, RunError> {
        Ok(io.free() == 0)
    }

    fn reap_error(&self, e: IoErr) -> RunError {
        self.w.io_err(&Slot::blank(), e)
    }

    fn finish<E: Engine>(&mut self, _io: &mut Io<'_, E, Tag>) -> Result<(), RunError> {
        Ok(())
    }
}
