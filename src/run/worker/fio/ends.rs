//! The files a pass has finished (fio 3.33's `fio_file_set_done`): a sequential file
//! whose next request no longer fits before its end, a random file whose map is full or
//! whose next free block lies past its end. fio then goes on with the other files
//! (round robin skips a done file); once every file is done the pass is over: the job
//! ends, or — time based, more `loops`, an `io_size` or verify rounds still to go — every
//! file starts over. With a non-uniform `file_service_type` fio starts a done file over
//! at once instead (`fio_file_reset`). A new loop of fio's thread (`clear_io_state`:
//! files closed, maps emptied, generators seeded again) is [`Worker::new_loop`], which
//! every path that starts one calls.

use crate::run::worker::fio::*;

/// Which files of the current pass are done, and whether a pass may start again.
pub(super) struct Ends {
    done: Vec<bool>,
    left: usize,
    /// passes that may still start after this one (`loops` − 1)
    more: u64,
    /// a new pass always starts (time based, `io_size`, verify or mix rounds, zones)
    again: bool,
}

/// What follows a file's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum After {
    /// go on with another file (or the same one, started over)
    GoOn,
    /// every file is done and no pass follows: the job ends
    End,
}

impl Ends {
    pub(super) fn new(plan: &Plan) -> Ends {
        let lim = &plan.work.limits;
        Ends {
            done: vec![false; plan.regions.len()],
            left: plan.regions.len(),
            more: lim.loops.saturating_sub(1),
            again: lim.time_based
                || lim.io_size.is_some()
                || plan.verify_cycle > 0
                || plan.verify_rounds > 0
                || plan.mix_rounds.is_some()
                || plan.replay.is_some(),
        }
    }

    /// Whether `file` is done in this pass.
    #[inline]
    pub(super) fn is_done(&self, file: usize) -> bool {
        self.done[file]
    }

    /// A loop of fio's thread ended by its bytes issued on an engine that queues (its
    /// do_io's `bytes_issued`): one of the job's `loops` is used, so a later loop whose
    /// files are all found done ends the job when it was the last (fio 3.33:
    /// `loops=2` ends in the second loop, not in a third pass).
    pub(super) fn loop_used(&mut self) {
        self.more = self.more.saturating_sub(1);
    }

    /// A new loop that its bytes started (fio's `clear_io_state` clears every file's
    /// done flag): no file is done.
    pub(super) fn none_done(&mut self) {
        self.done.iter_mut().for_each(|d| *d = false);
        self.left = self.done.len();
    }
}

impl Worker<'_> {
    /// `file` has nothing left in this pass: mark it done (or start it over under a
    /// non-uniform file service, or with zones or sprandom, which keep their own
    /// passes), and when it was the last, start a new pass or end the job.
    pub(super) fn file_ended(&mut self, file: usize) -> After {
        if self.fsvc.nonuniform() || self.zones.is_some() || self.spr.is_some() {
            self.restart_file(file);
            return After::GoOn;
        }
        let e = &mut self.ends;
        if !e.done[file] {
            e.done[file] = true;
            e.left -= 1;
        }
        if e.left > 0 {
            return After::GoOn;
        }
        if !e.again {
            if e.more == 0 {
                return After::End;
            }
            e.more -= 1;
        }
        e.done.iter_mut().for_each(|d| *d = false);
        e.left = e.done.len();
        self.new_pass = true;
        if !self.plan.work.limits.time_based {
            // a new loop of fio's thread (its files done)
            self.new_loop();
        }
        for f in 0..self.plan.regions.len() {
            self.restart_file(f);
        }
        After::GoOn
    }

    /// The draw fio's thread makes finding a random file done at the end of a loop
    /// (`get_next_rand_offset` draws before it looks at the full map): on a synchronous
    /// engine the loop goes on past its bytes until every file is found done; on an
    /// engine that queues it ends with its bytes issued (do_io's `bytes_issued`), no
    /// draw. It only shows where the next loop is not seeded again (`randseed`). A file
    /// found done while another is not (its bytes not all issued) costs the draw on
    /// every engine: fio's get_io_u draws for it before it goes on with the next file
    /// (`nrfiles=2 fsync=1` on libaio: the syncs take every other file turn, so one file
    /// fills first).
    pub(super) fn done_draw(&mut self) {
        if !self.plan.thread_job.engine.queues() || self.ends.left > 1 {
            self.draws.off.next();
        }
    }

    /// A random job's loop ended by its bytes (`Uses::repass`: its maps full): on a
    /// synchronous engine what fio's thread draws finding each file done — a mixed
    /// job's direction, then the offset —, and the new loop.
    pub(super) fn bytes_loop_end(&mut self) {
        if !self.plan.thread_job.engine.queues() {
            let files = self.maps.iter().flatten().count();
            for _ in 0..files {
                if self.mix.is_some() {
                    self.pick_op();
                }
                self.done_draw();
            }
        } else {
            self.ends.loop_used();
        }
        self.new_loop();
    }

    /// A new loop of fio's thread (its `clear_io_state`), the one hook of every path
    /// that starts one — the files found done ([`Worker::file_ended`]), a random
    /// file's full map on the plain path, a pass's bytes issued (`Uses::repass`, and on
    /// an engine that queues a job whose files are never done, `Uses::bytes_loop`): the
    /// files still open are closed (fio's `close_files`: `write_iolog`'s `close` lines,
    /// the next request opens its file again), the random maps start empty and, under
    /// fio's `rand_repeatable` (`Picking::repeat`), its generators are seeded again —
    /// offsets, sizes, `percentage_random`, the mix, the file picks — so each loop issues the first
    /// loop's requests in its order; the mix's run ends in any case.
    pub(super) fn new_loop(&mut self) {
        self.loop_no += 1;
        for f in 0..self.plan.regions.len() {
            self.close_file(f);
        }
        // `unlink_each_loop`: the files go before the loop's first request (none: the
        // job ends, as fio's last loop keeps its files)
        self.unlink.loop_starts();
        // no file is done; the file service picks a file afresh (fio closed the one it
        // served); the LFSRs start over from their seed (fio's reopen of the files)
        self.ends.none_done();
        self.fsvc.left = 0;
        self.maps.iter_mut().flatten().for_each(RandomMap::reset);
        self.lfsrs.iter_mut().flatten().for_each(|l| {
            l.restart();
        });
        if self.plan.work.pick.repeat {
            self.draws = self.plan.draws();
            self.fsvc.gen = super::FileSvc::draw_of(self.plan);
            let seed = self.plan.seed_of(crate::run::gen::frand::PRIO_CMDS_SLOT);
            self.prio.iter_mut().for_each(|p| p.reseed(seed));
        }
        self.mix_new_loop();
    }

    /// `file` starts over: its random map emptied, its LFSR back at its seed, its
    /// sequential positions at its start.
    fn restart_file(&mut self, file: usize) {
        // a later loop may start elsewhere (`Plan::loop_starts`: `offset=N%`)
        let start = match self.plan.loop_starts.get(file) {
            Some(&s) if self.loop_no > 0 => s,
            _ => self.plan.regions[file].0,
        };
        if let Some(m) = &mut self.maps[file] {
            m.reset();
        }
        if let Some(l) = &mut self.lfsrs[file] {
            l.restart();
        }
        self.seq_cursors[file] = [start; 3];
    }
}
