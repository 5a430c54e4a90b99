//! fio 3.33's rule for short transfers, under the fio persona (`Plan::fio_errors`; a child
//! module of the worker, sharing its state). A read or write that moved fewer bytes than
//! asked but some is a short transfer (fio's `short_ios`): its rest is issued again from
//! the offset it reached, before any new request, unless that offset is the file's end
//! (the size the job lays the file out to), where the request is done with what it moved.
//! A transfer that moved no byte (a read at or past a file's end) is issued and not done
//! (fio's `total_ios` counts it): on a synchronous engine it is the job's EIO (fio's
//! `full resid`), on an engine that queues the job goes on (fio counts it as a done
//! request of 0 bytes; iomark never counts a missing transfer as done).
//!
//! A request is done once, when its last part completes: its bytes are all its parts',
//! its latency the last part's; a request whose rest never completes moves nothing into
//! the job's bytes.

use crate::run::worker::fio::*;

/// fio's name of its zero-byte transfer on a synchronous engine: the call of its
/// account, and the failure's words.
const FULL_RESID: &str = "full resid";

/// The rest of a request after a short transfer, waiting to be issued again.
pub(super) struct Resid {
    /// the rest: the offset reached, the bytes left; `tag.before` the bytes moved
    req: Slot,
    /// the whole request's buffer as it stood (the data a write still has to move, the
    /// part a read already got)
    data: Vec<u8>,
}

/// What a short transfer leaves the completion to do.
pub(super) enum Short {
    /// the request is not done (its rest waits, or it failed and the job goes on)
    Pending,
    /// the request is done with what it moved (`Slot`: the whole request, its length
    /// the bytes moved)
    Done(Slot),
}

impl Slot {
    /// The whole request a part belongs to (itself when it is the first).
    pub(super) fn whole(&self) -> Slot {
        let mut w = *self;
        let before = self.tag.before as usize;
        w.io.offset -= before as u64;
        w.io.len += before;
        // SAFETY: a rest's buffer points `before` bytes into the whole request's buffer.
        w.io.buf = unsafe { w.io.buf.sub(before) };
        w.tag.before = 0;
        w
    }
}

impl<'a> Worker<'a> {
    /// A read or write `s` moved `done` bytes, fewer than asked: count it and keep its
    /// rest (fio's requeue), or fail it, as fio 3.33 does (see the module).
    #[cold]
    pub(super) fn short_transfer(
        &mut self,
        st: &mut JobStats,
        s: &Slot,
        done: usize,
    ) -> Result<Short, RunError> {
        let d = if s.tag.op == Op::Write {
            &mut st.write
        } else {
            &mut st.read
        };
        if done == 0 {
            if self.plan.thread_job.engine.queues() {
                d.unfilled += 1;
                return Ok(Short::Pending);
            }
            // (counted as a failed request by `io_fail`)
            // fio's td_verror(EIO, "full resid"): named in the failure, and its account
            let w = s.whole();
            let before = s.tag.before;
            return match self.io_fail(st, &w, IoErr::Errno(libc::EIO)) {
                Err(RunError::Io {
                    job,
                    op,
                    file,
                    offset,
                    len,
                    why,
                    ..
                }) => Err(RunError::Io {
                    why: format!("{why} ({FULL_RESID}: {before} of {len} bytes moved, then none)"),
                    job,
                    op,
                    file,
                    offset,
                    len,
                    // backend.c io_queue_event
                    account: Some(Box::new(FioAccount::new(
                        "backend.c",
                        471,
                        FULL_RESID,
                        libc::EIO,
                    ))),
                }),
                r => r.map(|()| Short::Pending),
            };
        }
        d.short += 1;
        let reached = s.io.offset + done as u64;
        if self.plan.files[s.io.file].size <= reached {
            let mut w = s.whole();
            w.io.len = s.tag.before as usize + done;
            return Ok(Short::Done(w));
        }
        if !self.plan.thread_job.engine.queues() && self.plan.thread_job.depth <= 1 {
            // fio 3.33 waits for a completion with its one request unit held for the
            // rest (its queue is full): a reap of nothing on a synchronous engine, an
            // `iodepth_complete` entry of 0 (backend.c do_io `reap:`)
            st.depth.mark_complete(0);
        }
        let whole = s.whole();
        // SAFETY: the slot's buffer holds the whole request and is ours until the loop
        // hands the slot out again, after this completion.
        let data = unsafe { std::slice::from_raw_parts(whole.io.buf, whole.io.len) }.to_vec();
        let mut rest = *s;
        rest.io.offset = reached;
        rest.io.len -= done;
        rest.tag.before += done as u32;
        self.resid.push(Resid { req: rest, data });
        Ok(Short::Pending)
    }

    /// A request's rest is waiting to be issued again.
    #[inline(always)]
    pub(super) fn has_resid(&self) -> bool {
        !self.resid.is_empty()
    }

    /// The next rest to issue again, in the buffer `buf` of slot `slot` (the whole
    /// request's data copied into it first).
    #[cold]
    pub(super) fn take_resid(&mut self, buf: *mut u8, slot: usize) -> Option<Slot> {
        let r = self.resid.pop()?;
        // SAFETY: the free slot's buffer holds at least the job's largest request.
        unsafe { std::ptr::copy_nonoverlapping(r.data.as_ptr(), buf, r.data.len()) };
        let mut req = r.req;
        // SAFETY: `before` bytes into the whole request's buffer.
        req.io.buf = unsafe { buf.add(req.tag.before as usize) };
        req.io.buf_index = slot as u16;
        Some(req)
    }
}
