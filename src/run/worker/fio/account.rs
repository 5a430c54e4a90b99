//! Completion side of a job thread (see [`crate::run::worker::fio`]): accounting each completed
//! request into the job's statistics (latencies, logs, live counters, verify of reads),
//! failed requests (`continue_on_error`, `fill_device`), trims, syncs and the minimum
//! rate check.

use crate::run::worker::fio::*;

/// fio 3.33's line when the first O_DIRECT request of a direction fails with EINVAL
/// ([`Worker::first_direct_errored`]).
pub(crate) const FIRST_DIRECT_IO_ERRORED: &str = "fio: first direct IO errored. File system may not support direct IO, or iomem_align= is bad, or invalid block size. Try setting direct=0.";

impl<'a> Worker<'a> {
    /// fio 3.33's `ratemin`/`rate_iops_min` check (backend.c `__check_min_rate`), per
    /// direction that has done bytes and has a minimum: nothing in the first 2 s of the
    /// measured run (`since`, fio's settle period from `td->start`); the first call after
    /// it only records the direction's bytes and requests; then, once `ratecycle` has
    /// passed since the last record, the rate since it in whole bytes (or requests) per
    /// second over whole milliseconds must reach the minimum — `ratemin` when the
    /// direction has one, else `rate_iops_min` — and is recorded again.
    pub(super) fn check_min_rate(
        &mut self,
        st: &JobStats,
        now: u64,
        since: u64,
    ) -> Result<(), RunError> {
        let p = &self.plan.work.pacing;
        if p.min_bytes == [0; 3] && p.min_iops == [0; 3] {
            return Ok(());
        }
        if self.clock.ns(since, now) / 1_000_000 < 2000 {
            return Ok(());
        }
        let dirs = [&st.read, &st.write, &st.trim];
        let cycle_ms = u64::try_from(p.min_cycle.as_millis()).unwrap_or(u64::MAX);
        let mut missed = Vec::new();
        for (d, dir) in dirs.iter().enumerate() {
            let (bytes, ios) = (dir.bytes, dir.ios);
            if bytes == 0 || (p.min_bytes[d] == 0 && p.min_iops[d] == 0) {
                continue;
            }
            let (at, last_bytes, last_ios) = self.min_win[d];
            if last_bytes != 0 || last_ios != 0 {
                let spent = self.clock.ns(at, now) / 1_000_000;
                if spent < cycle_ms || spent == 0 {
                    continue;
                }
                if let Some(miss) = self.min_rate_miss(
                    d,
                    bytes.saturating_sub(last_bytes),
                    ios.saturating_sub(last_ios),
                    spent,
                ) {
                    // every direction is checked; fio says each one that missed
                    missed.push((miss, spent));
                    continue;
                }
            }
            self.min_win[d] = (now, bytes, ios);
        }
        let Some(((what, got, _), window_ms)) = missed.first().cloned() else {
            return Ok(());
        };
        let lines: Vec<String> = missed.into_iter().map(|((_, _, l), _)| l).collect();
        Err(RunError::MinRate {
            job: self.plan.work.name.clone(),
            what,
            got,
            window_ms,
            fio_line: lines.join("\n"),
            // fio's td_verror after check_min_rate (backend.c do_io)
            account: self.plan.fio_errors.then(|| {
                Box::new(FioAccount::new(
                    "backend.c",
                    1131,
                    "check_min_rate",
                    libc::EIO,
                ))
            }),
        })
    }

    /// What direction `d` missed when `bytes`/`ios` done over `spent_ms` miss its
    /// minimum: the limit, the rate reached (iomark's words) and fio's `NAME: rate_min=…`
    /// line, with fio's integer rates.
    fn min_rate_miss(
        &self,
        d: usize,
        bytes: u64,
        ios: u64,
        spent_ms: u64,
    ) -> Option<(String, String, String)> {
        let p = &self.plan.work.pacing;
        let dir = ["reads", "writes", "trims"][d];
        let name = &self.plan.work.name;
        let per_s = |n: u64| u64::try_from(u128::from(n) * 1000 / u128::from(spent_ms));
        if p.min_bytes[d] > 0 {
            let (min, got) = (p.min_bytes[d], per_s(bytes).unwrap_or(u64::MAX));
            let fio = format!("{name}: rate_min={min}B/s not met, got {got}B/s");
            (got < min).then(|| {
                (
                    format!("ratemin={min} B/s ({dir})"),
                    format!("{got} B/s"),
                    fio,
                )
            })
        } else {
            let (min, got) = (p.min_iops[d], per_s(ios).unwrap_or(u64::MAX));
            let fio = format!("{name}: rate_iops_min={min} not met, got {got} IOPS");
            (got < min).then(|| {
                (
                    format!("rate_iops_min={min} ({dir})"),
                    format!("{got} IOPS"),
                    fio,
                )
            })
        }
    }

    /// fio 3.33's account of a verify mismatch that stops the job (its `td_verror` as
    /// the request completes, EILSEQ): `file:io_u.c:2190, func=io_u_queued_complete`
    /// on an engine that queues, `file:io_u.c:2152, func=io_u_sync_complete` on the
    /// others.
    pub(super) fn verify_account(&self) -> FioAccount {
        match self.plan.thread_job.engine.queues() {
            true => FioAccount::new("io_u.c", 2190, "io_u_queued_complete", libc::EILSEQ),
            false => FioAccount::new("io_u.c", 2152, "io_u_sync_complete", libc::EILSEQ),
        }
    }

    pub(super) fn mismatch(
        &mut self,
        file: usize,
        offset: u64,
        why: String,
    ) -> Result<(), RunError> {
        self.mismatches += 1;
        let msg = format!(
            "verify failed in {} at offset {offset}: {why}",
            self.plan.files[file].path.display()
        );
        if self.first_mismatch.is_none() {
            self.first_mismatch = Some(msg.clone());
        }
        if self.plan.work.verify.fatal {
            return Err(RunError::Verify {
                job: self.plan.work.name.clone(),
                count: self.mismatches,
                first: msg,
                account: Box::new(self.verify_account()),
            });
        }
        Ok(())
    }

    pub(super) fn trim(&self, file: usize, offset: u64, len: u64) -> Result<(), IoErr> {
        let Some(&fd) = self.fds.get(file) else {
            return Ok(()); // null engine: nothing to trim
        };
        if self.blkdev.get(file).copied().unwrap_or(false) {
            return crate::run::fio::trim::discard(fd, offset, len);
        }
        // SAFETY: fallocate on a descriptor owned by the open file set.
        let r = unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as libc::off_t,
                len as libc::off_t,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(IoErr::Errno(crate::engine::last_errno()))
        }
    }

    /// A failed request: with `continue_on_error` covering its kind it is counted as an
    /// error (never as done) and the job goes on; otherwise the job stops with it.
    #[cold]
    pub(super) fn io_fail(
        &mut self,
        st: &mut JobStats,
        s: &Slot,
        e: IoErr,
    ) -> Result<(), RunError> {
        use crate::job::model::ErrorClass;
        let class = if s.tag.op == Op::Read {
            ErrorClass::Read
        } else {
            ErrorClass::Write
        };
        if e == crate::engine::net::END && self.plan.thread_job.engine.caps().stream {
            // the peer ended the data (EOF, close marker): the job ends normally
            self.filled.set(true);
            return Ok(());
        }
        // issued and failed: in fio's `total_ios`, never done
        match s.tag.op {
            Op::Read => st.read.failed += 1,
            Op::Write => st.write.failed += 1,
            Op::Trim => st.trim.failed += 1,
        }
        if s.tag.op == Op::Write {
            // its block holds unknown data now: not verified
            self.forget_write(s.io.file, s.io.offset);
            if self.plan.work.failure.fill_device && crate::run::fio::errors::is_full(e) {
                // fill_device: ENOSPC ends the job normally; the write is not done
                self.filled.set(true);
                return Ok(());
            }
        }
        let err = self.io_err(s, e);
        if crate::run::fio::errors::non_fatal(&self.plan.work.failure, class, e) {
            if self.plan.work.failure.dump {
                eprintln!("iomark: error_dump: {err} (non-fatal, job goes on)");
            }
            st.errors += 1;
            if st.first_error.is_none() {
                st.first_error = Some(err.to_string());
                // H2 hook: fio's job `error` = errno of the first error
                st.first_errno = match e {
                    IoErr::Errno(n) => n,
                    IoErr::Short { .. } => libc::EIO,
                };
            }
            return Ok(());
        }
        Err(err)
    }

    /// fio 3.33's hint when the first request of a direction fails with EINVAL under
    /// O_DIRECT inside its submission (a synchronous engine: ioengines.c `td_io_queue`,
    /// `io_issues` of the direction 1): [`FIRST_DIRECT_IO_ERRORED`] on stdout as it
    /// happens, under the fio persona writing its report there. Called after
    /// [`Worker::io_fail`] counted the request.
    #[cold]
    pub(super) fn first_direct_errored(&self, st: &JobStats, s: &Slot, e: IoErr) {
        let d = match s.tag.op {
            Op::Read => &st.read,
            Op::Write => &st.write,
            Op::Trim => return,
        };
        let first = d.ios + d.short + d.failed == 1;
        let direct = self.plan.thread_job.direct;
        if first && e == IoErr::Errno(libc::EINVAL) && direct && self.plan.say_hooks {
            crate::outln!("{FIRST_DIRECT_IO_ERRORED}");
        }
    }

    /// fio 3.33's count of an error that stops the job although `continue_on_error`
    /// covers its kind (its errno is not a non-fatal one): backend.c
    /// `break_on_this_error` counts it in `total_err` (and `first_error`) when the request
    /// failed inside its submission (a synchronous engine); one reaped from a queue
    /// (io_u.c `io_completed`) is not counted. The fio persona only: `iomark run`'s
    /// errors are those the job went on after.
    #[cold]
    pub(super) fn fatal_counted(&self, st: &mut JobStats, s: &Slot, e: IoErr) {
        use crate::job::model::ErrorClass;
        let class = match s.tag.op {
            Op::Read => ErrorClass::Read,
            _ => ErrorClass::Write,
        };
        if !self.plan.fio_errors || !self.plan.work.failure.continue_on.continues(class) {
            return;
        }
        st.errors += 1;
        if st.errors == 1 {
            st.first_errno = match e {
                IoErr::Errno(n) => n,
                IoErr::Short { .. } => libc::EIO,
            };
        }
    }

    /// The job's failure of request `s` that failed with `e`; under the fio persona
    /// with fio 3.33's account of it (io_u.c `__io_u_log_error`: `file:io_u.c:1876,
    /// func=io_u error`, the request's errno).
    pub(super) fn io_err(&self, s: &Slot, e: IoErr) -> RunError {
        let mut err = RunError::Io {
            job: self.plan.work.name.clone(),
            op: s.tag.op.name(),
            file: self.plan.files[s.io.file].path.clone(),
            offset: s.io.offset,
            len: s.io.len,
            why: io_why(e, self.plan.thread_job.direct, self.plan.align),
            account: None,
        };
        if self.plan.fio_errors {
            let errno = err.errno();
            if let RunError::Io { account, .. } = &mut err {
                *account = Some(Box::new(FioAccount::new(
                    "io_u.c",
                    1876,
                    "io_u error",
                    errno,
                )));
            }
        }
        err
    }

    /// The job's failure `err` of a request the engine's submission call refused
    /// (libaio's io_submit) as fio 3.33 accounts it under the fio persona: its commit
    /// failed (ioengines.c `td_io_commit`: `file:ioengines.c:496, func=io commit`, the
    /// call's errno), with no `io_u error` line of the request.
    #[cold]
    pub(super) fn refused_at_commit(&self, mut err: RunError) -> RunError {
        if !self.plan.fio_errors {
            return err;
        }
        let errno = err.errno();
        if let RunError::Io { account, .. } = &mut err {
            *account = Some(Box::new(FioAccount::new(
                "ioengines.c",
                496,
                crate::run::fio::IO_COMMIT,
                errno,
            )));
        }
        err
    }

    /// Account one completed request (and verify a read's data). `t`: completion tick,
    /// `t_base`: the tick log times count from.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn complete(
        &mut self,
        st: &mut JobStats,
        s: &Slot,
        buf: *const u8,
        slat: Option<u64>,
        clat: u64,
        lat: u64,
        (t, t_base): (u64, u64),
    ) -> Result<(), RunError> {
        // a read that fails its verify is still a done request (fio counts it in the
        // job's io bytes) and then ends the job: see `read_mismatch`
        let bad = self.verify_completed(s, buf);
        let d = match s.tag.op {
            Op::Read => &mut st.read,
            Op::Write => &mut st.write,
            Op::Trim => &mut st.trim,
        };
        d.ios += 1;
        d.bytes += s.io.len as u64;
        if !s.tag.measured {
            // inside ramp_time: counted (fio's io_bytes, zeroed at the ramp's end), with
            // no latency or sample (fio accounts those only after the ramp)
            return match bad {
                Some(why) => self.read_mismatch(st, s, why),
                None => Ok(()),
            };
        }
        let counted = [d.bytes, d.ios];
        if !self.uses.gtod_reduce {
            add_latencies(d, slat, clat, lat);
            if self.prio.is_some() && s.tag.op != Op::Trim {
                let v = if self.plan.work.measure.total_lat {
                    lat
                } else {
                    clat
                };
                crate::run::fio::prio::record(&mut st.prio_lat, s.tag.op.idx(), s.io.ioprio, v);
            }
        }
        if let Some(l) = self.live {
            publish(l, st, s.tag.op, counted, self.uses.ss_lat);
        }
        self.latency_limits(s, lat)?;
        if self.uses.unit != [false; 2] {
            unit_sample(st, self.uses.unit, s.tag.op.idx(), s.io.len as u64, clat);
        }
        // trims are logged too (ddir 2), as fio logs every data direction
        if self.uses.logs {
            self.log_io(s, (slat, clat, lat), (t, t_base));
        }
        match bad {
            Some(why) => self.read_mismatch(st, s, why),
            None => Ok(()),
        }
    }

    /// [`Worker::complete`] of a request that moved its bytes in a lean job
    /// (`FioRules::lean`: no verify or saved state, priorities, latency limits or logs):
    /// counted, its latencies recorded once measured, the live counters and per-I/O
    /// samples.
    #[inline(always)]
    pub(super) fn complete_lean(
        &mut self,
        st: &mut JobStats,
        s: &Slot,
        slat: Option<u64>,
        clat: u64,
        lat: u64,
    ) {
        let d = match s.tag.op {
            Op::Read => {
                self.vreads += 1;
                &mut st.read
            }
            Op::Write => &mut st.write,
            Op::Trim => &mut st.trim,
        };
        d.ios += 1;
        d.bytes += s.io.len as u64;
        if !s.tag.measured {
            return;
        }
        let counted = [d.bytes, d.ios];
        if !self.uses.gtod_reduce {
            add_latencies(d, slat, clat, lat);
        }
        if let Some(l) = self.live {
            publish(l, st, s.tag.op, counted, self.uses.ss_lat);
        }
        if self.uses.unit != [false; 2] {
            unit_sample(st, self.uses.unit, s.tag.op.idx(), s.io.len as u64, clat);
        }
    }

    /// The verify side of a completed request: a write's block is recorded as written,
    /// a read counted; fio verifies plain reads of jobs that only read (a job that
    /// writes checks what it wrote: backlog and read-back phase), so such a read's data
    /// is checked here. The mismatch's line (its data dumped as asked), if any.
    #[inline(always)]
    fn verify_completed(&mut self, s: &Slot, buf: *const u8) -> Option<String> {
        match s.tag.op {
            Op::Write => {
                if let Some(r) = &mut self.vrec {
                    r.completed(s.io.file, s.io.offset);
                }
            }
            Op::Read => self.vreads += 1,
            Op::Trim => {}
        }
        let w = &self.plan.work;
        let (true, Some(k)) = (self.uses.verify, w.verify.kind) else {
            return None;
        };
        if s.tag.op != Op::Read || !self.verifies_reads() {
            return None;
        }
        // SAFETY: the slot's buffer holds `len` bytes and is ours again.
        let data = unsafe { std::slice::from_raw_parts(buf, s.io.len) };
        let spec = self
            .vspec()
            .unwrap_or(crate::run::verify::fio::Spec::new(k, &w.verify.pattern));
        let why = crate::run::verify::fio::check_with(data, s.io.offset, &spec, None).err()?;
        Some(self.dumped(s.io.file, s.io.offset, data, None, why))
    }

    /// One request in the job's logs (`write_*_log`): its completion time in ms since
    /// `t_base`, direction, size, offset, priority and latencies (`slat`, `clat`, `lat`).
    #[inline(always)]
    fn log_io(
        &mut self,
        s: &Slot,
        (slat, clat, lat): (Option<u64>, u64, u64),
        (t, t_base): (u64, u64),
    ) {
        let t_ms = self.clock.ns(t_base, t) / 1_000_000;
        if let Some(l) = &mut self.logs {
            l.set_prio(s.io.ioprio);
            l.io(
                t_ms,
                s.tag.op.idx(),
                s.io.len as u64,
                s.io.offset,
                slat,
                clat,
                lat,
            );
        }
    }

    /// `latency_target` at queue depth 1 and `max_latency` (fio's lat_fatal): a request
    /// slower than either ends the job with an I/O error naming the limit.
    #[inline(always)]
    fn latency_limits(&mut self, s: &Slot, lat: u64) -> Result<(), RunError> {
        if s.tag.op == Op::Trim {
            return Ok(());
        }
        // the latency target is fed every request (it keeps its own window)
        let over = self
            .lat_target
            .as_mut()
            .and_then(|lt| lt.on_latency(lat).is_err().then(|| lt.report().target_ns));
        let max = self.plan.work.failure.max_latency[s.tag.op.idx().min(1)];
        let why = match over {
            Some(target) => Some(format!(
                "latency of {lat} ns exceeds latency_target={target} ns at queue depth 1 (latency_percentile=100)"
            )),
            // fio's lat_fatal: the job ends with ETIMEDOUT
            None if max > 0 && lat > max => {
                Some(format!("latency of {lat} ns exceeds max_latency={max} ns"))
            }
            None => None,
        };
        match why {
            None => Ok(()),
            Some(why) => Err(RunError::Io {
                job: self.plan.work.name.clone(),
                op: s.tag.op.name(),
                file: self.plan.files[s.io.file].path.clone(),
                offset: s.io.offset,
                len: s.io.len,
                why,
                account: None,
            }),
        }
    }

    /// A read of a read-only verify job whose data did not match (fio 3.33: the
    /// verify error is the request's error, EILSEQ): with `continue_on_error` covering
    /// verify errors (`verify`, `all`; the `ignore_error` verify list is not consulted,
    /// see its notice) it is counted as an error (errno EILSEQ) and the job goes on;
    /// otherwise the job stops here,
    /// whatever `verify_fatal` says, the failing read counted as done (already
    /// accounted by the caller). On an engine that queues, the reads in flight then
    /// complete, each checked and counted as done, as fio 3.33's reap after the error
    /// (`cleanup_pending_aio`): `iodepth=8` with the 4th block bad reads 11 blocks and
    /// prints a mismatch of the 11th too.
    #[cold]
    fn read_mismatch(&mut self, st: &mut JobStats, s: &Slot, why: String) -> Result<(), RunError> {
        use crate::job::model::ErrorClass;
        let msg = format!(
            "verify failed in {} at offset {}: {why}",
            self.plan.files[s.io.file].path.display(),
            s.io.offset
        );
        let f = &self.plan.work.failure;
        if f.continue_on.continues(ErrorClass::Verify) {
            if f.dump {
                eprintln!("iomark: error_dump: {msg} (non-fatal, job goes on)");
            }
            st.errors += 1;
            if st.first_error.is_none() {
                st.first_error = Some(msg);
                st.first_errno = libc::EILSEQ;
            }
            return Ok(());
        }
        self.mismatches += 1;
        if self.first_mismatch.is_none() {
            self.first_mismatch = Some(msg);
        }
        if self.plan.thread_job.engine.queues() {
            // fio's reap of the queue after the error: the reads in flight complete
            // and are checked; the job ends when they are in (FioRules::finish)
            self.mismatch_stop = true;
            return Ok(());
        }
        // the failing request's completion (the error skips the loop's count), then
        // fio's reap after the error, which finds nothing in flight
        st.depth.mark_complete(1);
        st.depth.mark_complete(0);
        Err(RunError::Verify {
            job: self.plan.work.name.clone(),
            count: self.mismatches,
            first: self.first_mismatch.clone().unwrap_or_default(),
            account: Box::new(self.verify_account()),
        })
    }

    pub(super) fn sync_file<E: Engine>(
        &self,
        eng: &mut E,
        st: &mut JobStats,
        file: usize,
        kind: SyncKind,
        measured: bool,
    ) -> Result<(), RunError> {
        let a = self.clock.now();
        eng.sync(file, kind).map_err(|e| RunError::Io {
            job: self.plan.work.name.clone(),
            op: match kind {
                SyncKind::Fsync => "fsync",
                SyncKind::Fdatasync => "fdatasync",
                SyncKind::Range(_) => "sync_file_range",
            },
            file: self.plan.files[file].path.clone(),
            offset: 0,
            len: 0,
            why: io_why(e, false, 0),
            account: None,
        })?;
        if measured {
            st.sync.ios += 1;
            st.sync.lat.add(self.clock.ns(a, self.clock.now()));
        }
        Ok(())
    }
}

/// A measured request's latencies in its direction's histograms: submission,
/// completion and total for an engine that queues (`slat` given); one record when a
/// synchronous request's completion and total latency are the same (DirStats::settle).
#[inline(always)]
fn add_latencies(d: &mut crate::stats::job::DirStats, slat: Option<u64>, clat: u64, lat: u64) {
    match slat {
        Some(x) => {
            d.slat.add(x);
            d.clat.add(clat);
            d.lat.add(lat);
        }
        // synchronous with clat = lat: one histogram record (DirStats::settle)
        None if clat == lat => d.sync.add(clat),
        // synchronous, lat from the request made ready, clat from its issue
        None => {
            d.clat.add(clat);
            d.lat.add(lat);
        }
    }
}

/// Publish a thread's live counters of direction `op` (`counted`: its bytes and ios
/// after a measured completion), and a reading of the recorder's latencies when the
/// `--live` view asked for one (once per sample): on the I/O path two relaxed stores
/// and one load; under a steady-state check (`ss_lat`) also the latency sum and count
/// its `lat` criterion reads. Trims are not shown live.
#[inline(always)]
fn publish(l: &super::Live, st: &JobStats, op: Op, counted: [u64; 2], ss_lat: bool) {
    if op == Op::Trim {
        return;
    }
    let i = op.idx();
    l[i].store(counted[0], Ordering::Relaxed);
    l[2 + i].store(counted[1], Ordering::Relaxed);
    if ss_lat {
        publish_lat(l, st);
    }
    if l.want.load(Ordering::Relaxed) {
        l.give(st);
    }
}

/// The latency sum (ns) and count of the thread's completions so far, for the
/// steady-state check's `lat` criterion (run/control/steady.rs).
fn publish_lat(l: &super::Live, st: &JobStats) {
    let (r, w) = (&st.read, &st.write);
    let sum = r.clat.sum_ns + r.sync.sum_ns + w.clat.sum_ns + w.sync.sum_ns;
    l[4].store(u64::try_from(sum).unwrap_or(u64::MAX), Ordering::Relaxed);
    let n = r.clat.count() + r.sync.count() + w.clat.count() + w.sync.count();
    l[5].store(n, Ordering::Relaxed);
}

/// The report's per-I/O samples of a completion in direction `d` (fio's `add_bw_sample`
/// and `add_iops_sample` under a per-unit log): its bandwidth and 1 I/O, as `unit`
/// (`[bw, iops]`) asks.
#[cold]
#[inline(never)]
fn unit_sample(st: &mut JobStats, unit: [bool; 2], d: usize, bytes: u64, clat: u64) {
    if unit[0] {
        st.rates.bw[d].add(crate::run::fio::log::unit_bw(bytes, clat));
    }
    if unit[1] {
        st.rates.iops[d].add(1);
    }
}
