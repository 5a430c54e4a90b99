//! Which of a job's files are open (fio 3.33's `openfiles`, `td->nr_open_files`): at
//! most `openfiles` of them (all by default) take requests at once. A file is opened
//! when the file service picks it (`T NAME open` in `write_iolog`); when the limit is
//! reached, a file that is not open cannot be picked, and the job reaps a completion
//! (or picks again) instead, as fio's `get_next_file` answers EBUSY. A file whose pass
//! is done is closed (`T NAME close`): with requests still in flight it stays
//! counted as open (fio's `FIO_FILE_CLOSING`) until the last completes. The verify
//! read-back and a replayed log open a file without the limit, as fio's do. Between
//! passes and before the read-back every file is closed (fio's `close_files`).
//!
//! The limit is of the files that take requests: the job thread holds the descriptor
//! of every file for its whole run (docs/compat/fio.md, "openfiles").
//!
//! `unlink_each_loop=1` ([`Unlink`]): before the first request of each further loop
//! the job's regular files are removed, as fio 3.33 unlinks them before each loop after
//! the first; a job that writes opens each one anew (fio's `O_CREAT`: an empty file, its
//! descriptor the job's), one that only reads or trims fails there, as fio's open of
//! the missing name does (ENOENT, `file:filesetup.c:805, func=open(NAME)`).

use crate::run::fio::{Plan, RunError};
use crate::run::worker::fio::Worker;
use crate::stats::job::FioAccount;

/// `unlink_each_loop`: whether the job's files are removed before a loop's first request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unlink {
    /// not asked for (or no file)
    Never,
    /// asked for; nothing to remove now
    Kept,
    /// a further loop started: its first request removes the files first
    Due,
}

impl Unlink {
    pub(super) fn of(plan: &Plan, fds_empty: bool) -> Unlink {
        match plan.unlink_each_loop() && !fds_empty {
            true => Unlink::Kept,
            false => Unlink::Never,
        }
    }

    /// Not asked for.
    pub(super) fn never(self) -> bool {
        self == Unlink::Never
    }

    /// A further loop starts (fio's `clear_io_state`).
    pub(super) fn loop_starts(&mut self) {
        if *self == Unlink::Kept {
            *self = Unlink::Due;
        }
    }

    /// The files go before the request about to be issued.
    #[inline(always)]
    pub(super) fn due(self) -> bool {
        self == Unlink::Due
    }
}

/// The state of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Closed,
    Open,
    /// done, with requests in flight: open until the last completes
    Closing,
}

/// The open files of one job thread and their requests in flight.
pub(super) struct OpenFiles {
    state: Vec<State>,
    /// requests in flight per file, counted only under a limit (`limited`)
    in_flight: Vec<u32>,
    /// files open or closing
    open: usize,
    /// most files open at once
    limit: usize,
    /// the limit is below the file count: what is in flight is counted
    limited: bool,
}

impl OpenFiles {
    /// `files` closed, at most `openfiles` open at once (0, or above `files`: all of
    /// them, as fio 3.33's `fixup_options`).
    pub(super) fn new(files: usize, openfiles: Option<u32>) -> OpenFiles {
        let limit = match openfiles.map(|n| n as usize) {
            Some(n) if n > 0 && n < files => n,
            _ => files,
        };
        OpenFiles {
            state: vec![State::Closed; files],
            in_flight: vec![0; files],
            open: 0,
            limit,
            limited: limit < files,
        }
    }

    /// Whether fewer files may be open than the job has (`openfiles`): requests in
    /// flight are counted per file.
    pub(super) fn limited(&self) -> bool {
        self.limited
    }

    /// Whether `file` is open and not closing: it may take requests.
    #[inline(always)]
    pub(super) fn serves(&self, file: usize) -> bool {
        self.state[file] == State::Open
    }

    /// Whether `file` is closing (done, requests in flight): the file service passes
    /// it over.
    #[inline(always)]
    pub(super) fn closing(&self, file: usize) -> bool {
        self.state[file] == State::Closing
    }

    /// Whether a closed file may be opened now.
    #[inline(always)]
    pub(super) fn room(&self) -> bool {
        self.open < self.limit
    }
}

impl Worker<'_> {
    /// Open `file` for the file service: true when it is open now, false when it is
    /// closed and the limit is reached (fio's EBUSY).
    #[inline]
    pub(super) fn open_file(&mut self, file: usize) -> bool {
        match self.fopen.state[file] {
            State::Open => true,
            State::Closing => false,
            State::Closed if !self.fopen.room() => false,
            State::Closed => {
                self.mark_open(file);
                true
            }
        }
    }

    /// Open `file` whatever the limit (the verify read-back, a replayed log): a file
    /// closing is kept open, as fio's `td_io_open_file` undoes a close.
    #[inline(always)]
    pub(super) fn open_any(&mut self, file: usize) {
        match self.fopen.state[file] {
            State::Open => {}
            State::Closing => self.fopen.state[file] = State::Open,
            State::Closed => self.mark_open(file),
        }
    }

    #[cold]
    fn mark_open(&mut self, file: usize) {
        self.fopen.state[file] = State::Open;
        self.fopen.open += 1;
        if let Some(l) = &mut self.logs {
            l.iolog_file(file, true);
        }
    }

    /// The job is done with `file` in this pass: it closes, at once or, with requests
    /// in flight, when the last completes.
    pub(super) fn close_file(&mut self, file: usize) {
        if self.fopen.state[file] != State::Open {
            return;
        }
        if let Some(l) = &mut self.logs {
            l.iolog_file(file, false);
        }
        if self.fopen.limited && self.fopen.in_flight[file] > 0 {
            self.fopen.state[file] = State::Closing;
        } else {
            self.fopen.state[file] = State::Closed;
            self.fopen.open -= 1;
        }
    }

    /// `unlink_each_loop`: the files go before the loop's first request, on `file`
    /// (see the module). A job that writes goes on over its new empty files; for one
    /// that only reads or trims, `file` removed is its failed open (ENOENT).
    #[cold]
    pub(super) fn unlink_for_loop(&mut self, file: usize) -> Result<(), RunError> {
        self.unlink = Unlink::Kept;
        let create = self.plan.thread_job.writes;
        let mut gone = vec![false; self.fds.len()];
        for ((f, &fd), g) in self.plan.files.iter().zip(&self.fds).zip(&mut gone) {
            *g = crate::files::dataset::unlink_for_loop(f, fd, create)?;
        }
        if create || !gone.get(file).copied().unwrap_or(false) {
            return Ok(());
        }
        let path = self.plan.files[file].path.clone();
        let func = format!("open({})", path.display());
        Err(RunError::Io {
            job: self.plan.work.name.clone(),
            op: "open",
            file: path,
            offset: 0,
            len: 0,
            why: crate::files::strerror(libc::ENOENT),
            account: Some(Box::new(FioAccount::new(
                "filesetup.c",
                805,
                func,
                libc::ENOENT,
            ))),
        })
    }

    /// `unlink_each_loop`: the further loop fio 3.33's thread starts after its bytes
    /// were all issued (fewer of its `loops` started, `io_size` below what they move) issues
    /// nothing, but its `clear_io_state` removes the files first and no request makes
    /// them again (`size=64k io_size=32k loops=2`: 16 writes, then the file is gone).
    /// `spare`: the job's last request ended a loop, so the last loop begun is that
    /// further one.
    pub(super) fn unlink_for_empty_loop(&mut self, spare: bool) -> Result<(), RunError> {
        let run = self.loop_no + 1 - u64::from(spare);
        if self.unlink.never() || run >= self.plan.work.limits.loops {
            return Ok(());
        }
        self.unlink = Unlink::Kept;
        for (f, &fd) in self.plan.files.iter().zip(&self.fds) {
            crate::files::dataset::unlink_for_loop(f, fd, false)?;
        }
        Ok(())
    }

    /// Close every file (nothing is in flight): a new pass, the read-back, the end.
    pub(super) fn close_all(&mut self) {
        for f in 0..self.fopen.state.len() {
            self.close_file(f);
            if self.fopen.state[f] == State::Closing {
                self.fopen.state[f] = State::Closed;
                self.fopen.open -= 1;
                self.fopen.in_flight[f] = 0;
            }
        }
    }

    /// A request on `file` was issued.
    #[inline(always)]
    pub(super) fn file_issued(&mut self, file: usize) {
        if self.fopen.limited {
            self.fopen.in_flight[file] += 1;
        }
    }

    /// A request on `file` completed: a closing file with nothing left in flight
    /// closes.
    #[inline(always)]
    pub(super) fn file_completed(&mut self, file: usize) {
        if !self.fopen.limited {
            return;
        }
        let n = &mut self.fopen.in_flight[file];
        *n = n.saturating_sub(1);
        if *n == 0 && self.fopen.state[file] == State::Closing {
            self.fopen.state[file] = State::Closed;
            self.fopen.open -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::OpenFiles;

    #[test]
    fn the_limit_is_fios_fixup() {
        assert_eq!(OpenFiles::new(3, Some(2)).limit, 2);
        assert!(OpenFiles::new(3, Some(2)).limited);
        // 0 and above the file count: every file
        for n in [None, Some(0), Some(3), Some(9)] {
            let o = OpenFiles::new(3, n);
            assert_eq!((o.limit, o.limited), (3, false));
        }
    }
}
