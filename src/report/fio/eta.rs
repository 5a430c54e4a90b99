//! fio 3.33's status line (`display_thread_status` in eta.c, read for its format):
//! `Jobs: 1 (f=1): [r(1)][50.0%][r=96.5MiB/s][r=24.7k IOPS][eta 00m:08s]` followed by a
//! carriage return, so the next refresh overwrites it; a shorter line is padded with
//! spaces to the previous one's length; `--eta-newline=T` starts a new line once T has
//! passed. Only the text: what the line shows is the run's [`JobsEta`] snapshot
//! (src/run/fio/status.rs), when it is printed is the front end's (src/cli/run.rs).

use crate::report::fio::num::{iops, num2str, N2s, SIG_FIGS};
use crate::result::status::JobsEta;
use std::time::{Duration, Instant};

/// The state a status line keeps between refreshes (fio's statics of the same name).
#[derive(Debug)]
pub struct EtaLine {
    /// length of the last line, for the padding
    last_len: usize,
    /// a percentage was printed once (later a zero ETA prints 100%, not `-.-%`)
    eta_good: bool,
    /// `--eta-newline`
    newline: Option<Duration>,
    /// when the last new line started (set at the first refresh)
    newline_at: Option<Instant>,
    /// the next refresh starts a new line
    newline_pending: bool,
}

impl EtaLine {
    /// A status line; `newline` is `--eta-newline`.
    pub fn new(newline: Option<Duration>) -> EtaLine {
        EtaLine {
            last_len: 0,
            eta_good: false,
            newline,
            newline_at: None,
            newline_pending: false,
        }
    }

    /// The bytes of one refresh at `now`: the line and its carriage return.
    pub fn render(&mut self, je: &JobsEta, now: Instant) -> String {
        let mut out = String::new();
        if self.newline_pending {
            self.newline_pending = false;
            self.last_len = 0;
            out.push('\n');
        }
        let start = out.len();
        out += &format!("Jobs: {} (f={})", je.nr_running, je.files_open);
        out += &limits(je);
        if let (Some(eta), true) = (je.eta_s, je.nr_running > 0) {
            out += &format!(": [{}][{}]", condense(&je.states), self.percent(je, eta));
            out += &rates(je);
            out += &format!("[eta {}]", eta_to_str(eta));
            let len = out.len() - start;
            if len < self.last_len {
                out += &" ".repeat(self.last_len - len);
            }
            self.last_len = len;
        }
        out.push('\r');
        match (self.newline_at, self.newline) {
            (None, _) => self.newline_at = Some(now),
            (Some(t), Some(every)) if now.saturating_duration_since(t) > every => {
                self.newline_at = Some(now);
                self.newline_pending = true;
            }
            _ => {}
        }
        out
    }

    /// `50.0%`, or `-.-%` before an estimate (all threads ramping, or no ETA yet).
    fn percent(&mut self, je: &JobsEta, eta: u64) -> String {
        if (eta == 0 && !self.eta_good) || je.nr_ramp == je.nr_running {
            return "-.-%".into();
        }
        self.eta_good = true;
        let el = je.elapsed_s as f64;
        let perc = if el + eta as f64 > 0.0 {
            el / (el + eta as f64)
        } else {
            0.0
        };
        format!("{:.1}%", perc * 100.0)
    }
}

/// `, 1024KiB/s-2048KiB/s` or `, 100-200 IOPS` when running jobs have rate limits.
fn limits(je: &JobsEta) -> String {
    let (mr, tr) = je.rate_limits;
    let (mi, ti) = je.iops_limits;
    if mr > 0 || tr > 0 {
        let f = |v| num2str(v, SIG_FIGS, je.pow2, N2s::BytePerSec);
        format!(", {}-{}", f(mr), f(tr))
    } else if mi > 0 || ti > 0 {
        format!(", {mi}-{ti} IOPS")
    } else {
        String::new()
    }
}

/// `[r=96.5MiB/s,w=12.0MiB/s][r=24.7k,w=3072 IOPS]` for the directions that moved data
/// since the last line; nothing when none did.
fn rates(je: &JobsEta) -> String {
    const DIR: [char; 3] = ['r', 'w', 't'];
    let has: Vec<usize> = (0..3)
        .filter(|&d| je.rate_kib[d] > 0 || je.iops[d] > 0)
        .collect();
    if has.is_empty() {
        return String::new();
    }
    let list = |f: &dyn Fn(usize) -> String| {
        has.iter()
            .map(|&d| format!("{}={}", DIR[d], f(d)))
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "[{}][{} IOPS]",
        list(&|d| kib_rate(je.rate_kib[d], je.pow2, je.bits)),
        list(&|d| iops(je.iops[d]))
    )
}

/// A rate counted in KiB/s as fio prints it (`num2str(rate, 4, 1024, …)`: the smallest
/// prefix is Ki, or k with `kb_base=1000`, whose thousand is 1000).
fn kib_rate(kib: u64, pow2: bool, bits: bool) -> String {
    let n = if bits { kib.saturating_mul(8) } else { kib };
    if n.to_string().len() <= SIG_FIGS {
        let unit = if bits { "bit/s" } else { "B/s" };
        return format!("{n}{}{unit}", if pow2 { "Ki" } else { "k" });
    }
    let thousand = if pow2 { 1024 } else { 1000 };
    let units = if bits {
        N2s::BitPerSec
    } else {
        N2s::BytePerSec
    };
    num2str(kib.saturating_mul(thousand), SIG_FIGS, pow2, units)
}

/// fio's `eta_to_str`: `00m:08s`, `01h:02m:03s`, `01d:00h:00m:05s`.
pub fn eta_to_str(secs: u64) -> String {
    let (s, m, h, d) = (secs % 60, secs / 60 % 60, secs / 3600 % 24, secs / 86400);
    let mut out = String::new();
    if d > 0 {
        out += &format!("{d:02}d:");
    }
    if h > 0 || d > 0 {
        out += &format!("{h:02}h:");
    }
    out + &format!("{m:02}m:{s:02}s")
}

/// The thread states condensed as fio does: runs of one character as `c(n)`, joined
/// by commas (`R(2),_(1),P(1)`).
pub fn condense(states: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut it = states.chars().peekable();
    while let Some(c) = it.next() {
        let mut n = 1;
        while it.peek() == Some(&c) {
            it.next();
            n += 1;
        }
        out.push(format!("{c}({n})"));
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn je() -> JobsEta {
        JobsEta {
            nr_running: 1,
            files_open: 1,
            states: "r".into(),
            elapsed_s: 3,
            eta_s: Some(2),
            rate_kib: [10_995_116, 0, 0],
            iops: [2_748_000, 0, 0],
            pow2: true,
            ..Default::default()
        }
    }

    /// The line fio 3.33 printed for a 4 s null-engine randread run on a terminal
    /// (captured with `script`): `Jobs: 1 (f=1): [r(1)][60.0%][r=10.5GiB/s][r=2748k
    /// IOPS][eta 00m:02s]`.
    #[test]
    fn line_has_fios_fields_and_form() {
        let mut l = EtaLine::new(None);
        let t = Instant::now();
        assert_eq!(
            l.render(&je(), t),
            "Jobs: 1 (f=1): [r(1)][60.0%][r=10.5GiB/s][r=2748k IOPS][eta 00m:02s]\r"
        );
        // before an estimate (the first 3 s): the job count only
        let early = JobsEta {
            eta_s: None,
            ..je()
        };
        assert_eq!(l.render(&early, t), "Jobs: 1 (f=1)\r");
    }

    #[test]
    fn shorter_line_is_padded_and_newline_period_is_kept() {
        let t = Instant::now();
        let mut l = EtaLine::new(Some(Duration::from_secs(2)));
        let a = l.render(&je(), t);
        let slow = JobsEta {
            rate_kib: [512, 0, 0],
            iops: [128, 0, 0],
            ..je()
        };
        let b = l.render(&slow, t + Duration::from_secs(1));
        assert_eq!(a.len(), b.len(), "{a:?} {b:?}");
        assert!(b.starts_with("Jobs: 1 (f=1): [r(1)][60.0%][r=512KiB/s][r=128 IOPS]"));
        // more than 2 s after the first line: the next one starts on a new line
        let _ = l.render(&je(), t + Duration::from_millis(2500));
        let c = l.render(&je(), t + Duration::from_secs(3));
        assert!(c.starts_with("\nJobs: 1"), "{c:?}");
    }

    #[test]
    fn mixed_directions_limits_and_states() {
        let mut l = EtaLine::new(None);
        let m = JobsEta {
            nr_running: 2,
            files_open: 2,
            states: "mm_P".into(),
            rate_kib: [2048, 1024, 0],
            iops: [512, 256, 0],
            iops_limits: (0, 500),
            ..je()
        };
        assert_eq!(
            l.render(&m, Instant::now()),
            "Jobs: 2 (f=2), 0-500 IOPS: [m(2),_(1),P(1)][60.0%][r=2048KiB/s,w=1024KiB/s][r=512,w=256 IOPS][eta 00m:02s]\r"
        );
        // no I/O since the last line: no rate fields; ramping: no percentage yet
        let ramp = JobsEta {
            nr_ramp: 2,
            rate_kib: [0; 3],
            iops: [0; 3],
            ..m
        };
        let s = l.render(&ramp, Instant::now());
        assert!(s.contains("[-.-%][eta 00m:02s]"), "{s}");
    }

    #[test]
    fn eta_and_rates_in_fios_units() {
        assert_eq!(eta_to_str(8), "00m:08s");
        assert_eq!(eta_to_str(3723), "01h:02m:03s");
        assert_eq!(eta_to_str(86405), "01d:00h:00m:05s");
        assert_eq!(kib_rate(98_816, true, false), "96.5MiB/s");
        assert_eq!(kib_rate(5, true, false), "5KiB/s");
        assert_eq!(kib_rate(9812, true, false), "9812KiB/s");
        assert_eq!(kib_rate(98_816, false, false), "98.8MB/s");
        assert_eq!(condense("rrW"), "r(2),W(1)");
    }
}
