//! The files a pass has finished (fio 3.33's `fio_file_set_done`): a sequential file
//! whose next request no longer fits before its end, a random file whose map is full or
//! whose next free block lies past its end. fio then goes on with the other files
//! (round robin skips a done file); once every file is done the pass is over: the job
//! ends, or — time based, more `loops`, an `io_size` or verify rounds still to go — every
//! file starts over. With a non-uniform `file_service_type` fio starts a done file over
//! at once instead (`fio_file_reset`).

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
            // a new loop of fio's thread (its files done, `clear_io_state`): with an
            // LFSR or sizes of a range the files may end before the pass's bytes do
            self.mix_new_loop();
            self.offsets_new_loop();
        }
        for f in 0..self.plan.regions.len() {
            self.restart_file(f);
        }
        After::GoOn
    }

    /// `file` starts over: its random map emptied, its LFSR back at its seed, its
    /// sequential positions at its start.
    fn restart_file(&mut self, file: usize) {
        let start = self.plan.regions[file].0;
        if let Some(m) = &mut self.maps[file] {
            m.reset();
        }
        if let Some(l) = &mut self.lfsrs[file] {
            l.restart();
        }
        self.seq_cursors[file] = [start; 3];
    }
}
