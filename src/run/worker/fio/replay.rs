//! `read_iolog`: the replay cursor of a job thread (the log itself is parsed once per
//! thread by run/fio/replay.rs). Hands out the log's entries in order with the tick each
//! must wait for, as fio's iolog_delay times them: a v3 entry's delay counts from the
//! previous issue, less what the previous sleep overshot; a v2 `wait` waits until its
//! time after the job's start. The loop's side (the wait, syncs) is `replay_next` in
//! pass.rs.

use crate::run::fio::replay::{Act, Entry};
use crate::run::worker::fio::Worker;
use std::time::Duration;

/// Where a thread is in its log.
pub(super) struct ReplayPos {
    /// the next entry
    pos: usize,
    /// tick of the previous issue (fio's last_issue)
    last_issue: u64,
    /// how far the previous sleep overshot its delay, µs (fio's time_offset)
    offset_us: u64,
}

impl ReplayPos {
    pub(super) fn new(now: u64) -> Self {
        ReplayPos {
            pos: 0,
            last_issue: now,
            offset_us: 0,
        }
    }
}

impl Worker<'_> {
    /// The next entry of the log and the tick to wait until before it (none: at once);
    /// None when the log is done.
    pub(super) fn replay_entry(&mut self, start: u64) -> Option<(Entry, Option<u64>)> {
        let r = self.plan.replay.as_deref()?;
        let clock = self.clock;
        let c = self.replay.as_mut()?;
        let e = *r.entries.get(c.pos)?;
        c.pos += 1;
        let now = clock.now();
        let due = match e.act {
            Act::WaitMs(ms) => Some(start + clock.ticks(Duration::from_millis(ms))),
            _ if e.delay_us == 0 => None,
            _ if e.delay_us < c.offset_us => {
                c.offset_us = 0;
                None
            }
            _ => {
                let delay = e.delay_us - c.offset_us;
                let since = clock.ns(c.last_issue, now) / 1000;
                (delay >= since).then(|| now + clock.ticks(Duration::from_micros(delay - since)))
            }
        };
        Some((e, due))
    }

    /// After entry `e`: `began` is the tick its wait began at (None: it did not wait).
    /// The overshoot of a delay is taken off the next one; the issue time is now.
    pub(super) fn replay_done(&mut self, e: &Entry, began: Option<u64>) {
        let clock = self.clock;
        let Some(c) = self.replay.as_mut() else {
            return;
        };
        let now = clock.now();
        if matches!(e.act, Act::WaitMs(_)) {
            return;
        }
        if let Some(b) = began {
            let slept = clock.ns(b, now) / 1000;
            c.offset_us = slept.saturating_sub(e.delay_us);
        }
        c.last_issue = now;
    }
}
