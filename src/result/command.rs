//! `iomark time`'s section of a [`RunResult`] (`timed_command`): what a command's whole
//! process tree did — wall and CPU time, the time blocked on storage and where that
//! figure came from, bytes at the device against bytes through read/write calls, the
//! disks that moved — and the bound that follows ([`bound`]: the share of the wall time
//! that waited for storage and what a drive twice as fast could save at most). Built
//! by run/time.rs, carried by the one builder, rendered by report/time_text.rs.
//!
//! [`RunResult`]: super::RunResult

use super::{DeviceActivity, ProcIo};
use serde::{Deserialize, Serialize};

/// How the command ended.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandExit {
    /// its exit code, when it exited
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// the signal that killed it, when one did
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// what `iomark time` exited with: the code, or 128 + the signal
    pub status: i32,
}

impl CommandExit {
    /// From a wait(2) status word.
    pub fn from_wait(st: i32) -> CommandExit {
        if libc::WIFSIGNALED(st) {
            let s = libc::WTERMSIG(st);
            CommandExit {
                code: None,
                signal: Some(s),
                status: 128 + s,
            }
        } else {
            let c = libc::WEXITSTATUS(st);
            CommandExit {
                code: Some(c),
                signal: None,
                status: c,
            }
        }
    }
}

/// The time the tree spent blocked on storage, from the kernel's delay accounting.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageWait {
    /// where it came from: `taskstats` (every task's exit record, delay accounting on)
    pub source: String,
    /// what iomark did to the switch: `turned on for the run` (and restored),
    /// `already on`
    pub delayacct: String,
    /// seconds blocked on synchronous block I/O, summed over the tree's tasks
    /// (`blkio_delay_total`; several tasks waiting at once add up)
    pub blkio_s: f64,
    /// how many such waits
    pub blkio_count: u64,
    /// seconds waiting for swap-in
    pub swapin_s: f64,
    /// seconds runnable but waiting for a CPU
    pub cpu_wait_s: f64,
    /// tasks (processes and threads) whose exit records were counted
    pub tasks: u64,
    /// processes among them
    pub processes: u64,
    /// the receive buffer overflowed: some records were lost, the sums are lower bounds
    pub records_lost: bool,
    /// tasks whose record claimed more blocked time than the task lived (a wait the
    /// kernel began timing before delay accounting was on, e.g. switched on by another
    /// program meanwhile): their blocked time is not counted, the sum is a lower bound
    #[serde(default)]
    pub records_impossible: u64,
    /// waits the kernel dated from boot in a record that names its longest wait
    /// (`blkio_delay_max`, Linux 6.16+): each counted as the mean of its task's other
    /// waits, which are exact (run/time.rs `blkio_possible`); the sum is then an estimate
    /// within one wait per such task, not a lower bound
    #[serde(default, skip_serializing_if = "is_zero")]
    pub waits_estimated: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl StorageWait {
    /// Why the summed wait is only a lower bound (records left out or lost), or `None`
    /// when every record counted: the headline then reads "at least" and the bound draws
    /// no conclusion.
    pub fn lower_bound_why(&self) -> Option<String> {
        match (self.records_impossible, self.records_lost) {
            (0, false) => None,
            (0, true) => Some("exit records were lost".into()),
            (n, _) => Some(format!(
                "{n} exit record{} left out",
                if n == 1 { "" } else { "s" }
            )),
        }
    }
}

/// The bound: what a faster drive could change.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bound {
    /// share of the wall time that waited for storage, % (the tree's blocked time,
    /// at most the wall time)
    pub storage_pct: f64,
    /// at most this share of the wall time is saved by a drive twice as fast, %
    pub saving_pct: f64,
    /// CPU time (user + system of the tree) as a share of the wall time, % (above 100
    /// on several CPUs)
    pub cpu_pct: f64,
    /// the bound in one sentence
    pub sentence: String,
}

/// `iomark time`'s section of the result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimedCommand {
    /// the command and its arguments, as run
    pub argv: Vec<String>,
    /// how it ended
    pub exit: CommandExit,
    /// seconds from the start of the command to the end of the last process of its tree
    pub wall_s: f64,
    /// user CPU seconds of the tree (getrusage RUSAGE_CHILDREN: every process reaped)
    pub user_s: f64,
    /// system CPU seconds of the tree
    pub sys_s: f64,
    /// the time blocked on storage (`None`: not measured, see `storage_wait_unavailable`)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_wait: Option<StorageWait>,
    /// why the time blocked on storage was not measured
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_wait_unavailable: Option<String>,
    /// the tree's I/O counters (`/proc/PID/io` of every process, added up by the kernel
    /// as each is reaped): `read_bytes`/`write_bytes` at the device, `rchar`/`wchar`
    /// through read and write calls
    pub io: ProcIo,
    /// bytes the read calls got without a device read (`rchar − read_bytes`, at least 0;
    /// pipes and sockets count in `rchar` too)
    pub read_from_cache_bytes: u64,
    /// the disks whose counters moved during the run (`/sys/block/*/stat`; every
    /// process's I/O and write-back included)
    pub devices: Vec<DeviceActivity>,
    /// the bound (`None` without the storage wait)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
}

/// Percent, rounded to a whole number for the sentence.
fn pct(v: f64) -> f64 {
    (v * 100.0).round()
}

/// The bound of a run of `wall_s` whose tree was blocked on storage `blocked_s`, ran
/// on CPUs `cpu_s` (user + system) and waited `cpu_wait_s` for a CPU while runnable.
///
/// - storage share = min(blocked, wall) / wall: the time waiting for storage, which
///   several tasks waiting at once cannot make longer than the run;
/// - saving = storage share / 2: a drive twice as fast halves each wait at best, and
///   the run cannot get shorter by more than the waits it no longer has (the sentence
///   says half the whole percent it shows, rounded down);
/// - CPU share = CPU / wall, CPU-wait share = CPU wait / wall; "the rest is CPU" when
///   the CPU share covers at least 80 % of the rest, else the rest is named: CPU,
///   waiting for a CPU (a busy machine), other waits (sleeps, pipes, the network).
pub fn bound(wall_s: f64, blocked_s: f64, cpu_s: f64, cpu_wait_s: f64) -> Bound {
    let wall = wall_s.max(1e-9);
    let storage = (blocked_s.max(0.0).min(wall)) / wall;
    let cpu = (cpu_s.max(0.0) / wall).min(1e6);
    // the saving is half the share shown, rounded down: "41 %: at most 20 %"
    let (s, save) = (pct(storage), (pct(storage) / 2.0).floor());
    let rest = 100.0 - s;
    let (c, w) = (pct(cpu), pct((cpu_wait_s.max(0.0) / wall).min(1.0)));
    let tail = if rest < 1.0 || c >= 0.8 * rest {
        "the rest is CPU".to_string()
    } else {
        let w = w.min(rest - c);
        let other = (rest - c - w).max(0.0);
        let mut parts = vec![format!("CPU ({c:.0} %)")];
        if w >= 1.0 {
            parts.push(format!("waiting for a CPU ({w:.0} %)"));
        }
        if other >= 1.0 {
            parts.push(format!("other waits ({other:.0} %)"));
        }
        let last = parts.pop().unwrap_or_default();
        match parts.is_empty() {
            true => format!("the rest is {last}"),
            false => format!("the rest is {} and {last}", parts.join(", ")),
        }
    };
    let sentence = if storage < 0.01 {
        format!("under 1 % of the wall time waited for storage: a faster drive would not make this command faster; {tail}")
    } else {
        format!("{s:.0} % of the wall time waited for storage: a drive twice as fast would save at most {save:.0} %; {tail}")
    };
    Bound {
        storage_pct: storage * 100.0,
        saving_pct: storage * 50.0,
        cpu_pct: cpu * 100.0,
        sentence,
    }
}

impl Bound {
    /// The bound when exit records were left out or lost (`why`: which): the storage
    /// wait is then a lower bound, so the share is "at least", and neither the saving
    /// nor the rest can be told — the verdict says so instead of concluding.
    pub fn as_lower_bound(mut self, why: &str) -> Bound {
        self.sentence = format!(
            "at least {:.0} % of the wall time waited for storage ({why}): the real share, and so what a faster drive would save, is unknown for this run",
            pct(self.storage_pct / 100.0)
        );
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sentence: 41 % waiting, at most 20 % saved (half of 41 %, rounded),
    /// the rest CPU.
    /// Left-out exit records: "at least", no saving, no conclusion.
    #[test]
    fn a_lower_bound_draws_no_conclusion() {
        let b = bound(1.0, 0.004, 0.2, 0.0).as_lower_bound("1 exit record left out");
        assert_eq!(
            b.sentence,
            "at least 0 % of the wall time waited for storage (1 exit record left out): the real share, and so what a faster drive would save, is unknown for this run"
        );
        assert!(
            (b.storage_pct - 0.4).abs() < 1e-9,
            "the figure stays the measured one"
        );
    }

    #[test]
    fn the_bound_sentence_and_its_formula() {
        let b = bound(10.0, 4.1, 5.9, 0.0);
        assert_eq!(
            b.sentence,
            "41 % of the wall time waited for storage: a drive twice as fast would save at most 20 %; the rest is CPU"
        );
        assert!((b.storage_pct - 41.0).abs() < 1e-9);
        assert!((b.saving_pct - 20.5).abs() < 1e-9);
        assert!((b.cpu_pct - 59.0).abs() < 1e-9);
        // two tasks blocked the whole run at once: 100 %, at most half saved
        let b = bound(2.0, 4.0, 0.1, 0.0);
        assert_eq!(b.storage_pct, 100.0);
        assert!(b.sentence.starts_with(
            "100 % of the wall time waited for storage: a drive twice as fast would save at most 50 %"
        ));
        // CPU-bound on two CPUs: no storage, the rest is CPU
        let b = bound(1.0, 0.0, 1.9, 0.0);
        assert!(
            b.sentence.starts_with("under 1 % of the wall time"),
            "{}",
            b.sentence
        );
        assert!(b.sentence.ends_with("the rest is CPU"));
        // a sleeping command: the rest is not CPU
        let b = bound(10.0, 1.0, 1.0, 0.0);
        assert_eq!(
            b.sentence,
            "10 % of the wall time waited for storage: a drive twice as fast would save at most 5 %; the rest is CPU (10 %) and other waits (80 %)"
        );
        // a busy machine: the CPU wait is named
        let b = bound(10.0, 1.0, 4.0, 5.0);
        assert!(
            b.sentence
                .ends_with("the rest is CPU (40 %) and waiting for a CPU (50 %)"),
            "{}",
            b.sentence
        );
        let b = bound(10.0, 1.0, 4.0, 2.0);
        assert!(
            b.sentence.ends_with(
                "the rest is CPU (40 %), waiting for a CPU (20 %) and other waits (30 %)"
            ),
            "{}",
            b.sentence
        );
        // zero and absurd inputs: finite figures, no panic
        let b = bound(0.0, 0.0, 0.0, 0.0);
        assert!(b.storage_pct.is_finite() && b.cpu_pct.is_finite());
        let b = bound(-1.0, -5.0, f64::MAX, f64::NAN);
        assert!(b.storage_pct.is_finite() && b.cpu_pct.is_finite());
    }

    #[test]
    fn exit_status_of_a_wait_word() {
        // exited with 7: 7 << 8; killed by SIGKILL: 9
        assert_eq!(
            CommandExit::from_wait(7 << 8),
            CommandExit {
                code: Some(7),
                signal: None,
                status: 7
            }
        );
        assert_eq!(CommandExit::from_wait(9).status, 137);
        assert_eq!(CommandExit::from_wait(9).signal, Some(9));
    }
}
