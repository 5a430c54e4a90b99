//! I/O priorities of a job thread: the thread's own (`prioclass`/`prio`, set with
//! ioprio_set(2)) and the per-request one of fio's cmdprio options, which io_uring
//! carries in each SQE's `ioprio` (`cmdprio_percentage`, `cmdprio_bssplit`).
//!
//! fio's rule (engines/cmdprio.c): a request that the percentage (or its block size's
//! `cmdprio_bssplit` entries) selects gets the cmdprio value; any other request gets
//! the thread's priority (0 when none is set).

use crate::job::fio::extra::{ioprio_value, PrioNumaDedupeOpts};
use crate::job::fio::FioJob;
use crate::run::gen::frand::Frand;

/// Picks the ioprio of each request of one thread.
#[derive(Clone, Debug)]
pub(crate) struct CmdPrio {
    /// value of requests not selected (the thread's priority, or 0)
    default: u16,
    /// per direction: `(block size or 0 for any, cumulative percent, ioprio)` entries
    table: [Vec<(u64, u32, u16)>; 2],
    /// fio's `prio_state`: 32 bits whatever `random_generator` says
    rng: Frand,
}

impl CmdPrio {
    /// The picker of `job`, or `None` when every request has priority 0 (nothing set).
    /// `per_io`: the job's engine takes the cmdprio options (io_uring, libaio); a job
    /// that named another engine after them runs without them, as fio 3.33's (its
    /// getopt table drops the options of the engine it leaves). `seed`: the thread's
    /// seed of fio's cmdprio slot (`FIO_RAND_PRIO_CMDS`).
    pub fn new(x: &PrioNumaDedupeOpts, per_io: bool, seed: u64) -> Option<CmdPrio> {
        let default = x.thread_ioprio().unwrap_or(0);
        let mut table: [Vec<(u64, u32, u16)>; 2] = [Vec::new(), Vec::new()];
        for (d, t) in table.iter_mut().enumerate().filter(|_| per_io) {
            let own = ioprio_value(x.cmdprio_class[d], x.cmdprio[d], x.cmdprio_hint[d]);
            if let Some(split) = &x.cmdprio_bssplit {
                for e in split[d].iter().filter(|e| e.pct > 0) {
                    let v = e.prio.map_or(own, |(c, l, h)| ioprio_value(c, l, h));
                    let before = t.iter().filter(|r| r.0 == e.bs).map(|r| r.1).max();
                    t.push((e.bs, before.unwrap_or(0) + e.pct, v));
                }
            } else if let Some(p) = x.cmdprio_percentage {
                if p[d] > 0 {
                    t.push((0, p[d], own));
                }
            }
        }
        if default == 0 && table.iter().all(Vec::is_empty) {
            return None;
        }
        Some(CmdPrio {
            default,
            table,
            rng: Frand::new(seed, false),
        })
    }

    /// Start the draws over from `seed` (fio seeds `prio_state` again with every loop
    /// under `randrepeat`, libfio.c `clear_io_state`).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Frand::new(seed, false);
    }

    /// ioprio of a request of `bs` bytes (`write`: the write table).
    #[inline]
    pub fn pick(&mut self, write: bool, bs: u64) -> u16 {
        // fio draws only for a request some entry can select (engines/cmdprio.c
        // `fio_cmdprio_set_ioprio`: no percentage for its direction or block size, no
        // draw), a value in 0..=99 (`rand_between`)
        let t = &self.table[usize::from(write)];
        if !t.iter().any(|e| e.0 == 0 || e.0 == bs) {
            return self.default;
        }
        let r = self.rng.between(0, 99) as u32;
        for &(b, cum, v) in t {
            if (b == 0 || b == bs) && r < cum {
                return v;
            }
        }
        self.default
    }
}

/// Add latency `ns` of a request of direction `d` (0 read, 1 write) that carried
/// `ioprio` to the per-priority list.
#[inline]
pub(crate) fn record(
    v: &mut Vec<(usize, u16, crate::stats::LatAcc)>,
    d: usize,
    ioprio: u16,
    ns: u64,
) {
    match v.iter_mut().find(|e| e.0 == d && e.1 == ioprio) {
        Some(e) => e.2.add(ns),
        None => {
            let mut l = crate::stats::LatAcc::default();
            l.add(ns);
            v.push((d, ioprio, l));
        }
    }
}

/// Set the calling thread's I/O priority from `prioclass`/`prio` (ioprio_set(2),
/// IOPRIO_WHO_PROCESS with id 0: the calling thread). Error: one line naming the keys.
pub(crate) fn set_thread_prio(job: &FioJob) -> Result<(), String> {
    let Some(v) = job.extra.thread_ioprio() else {
        return Ok(());
    };
    // SAFETY: plain syscall with integer arguments.
    let r = unsafe { libc::syscall(libc::SYS_ioprio_set, 1, 0, libc::c_int::from(v)) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        let rt = if v >> 13 == 1 {
            " (class 1, realtime, needs CAP_SYS_ADMIN or CAP_SYS_NICE)"
        } else {
            ""
        };
        return Err(format!(
            "prioclass={} prio={}: ioprio_set failed: {e}{rt}",
            job.extra.prioclass.map_or("-".into(), |c| c.to_string()),
            job.extra.prio.map_or("-".into(), |c| c.to_string()),
        ));
    }
    Ok(())
}

/// The calling thread's ioprio value (ioprio_get(2)), for tests and notices.
pub fn thread_ioprio_now() -> i64 {
    // SAFETY: plain syscall with integer arguments.
    unsafe { libc::syscall(libc::SYS_ioprio_get, 1, 0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::fio::extra::{parse_prio_split, PrioNumaDedupeOpts};

    fn share(
        p: &mut CmdPrio,
        write: bool,
        bs: u64,
        n: u32,
    ) -> std::collections::BTreeMap<u16, u32> {
        let mut m = std::collections::BTreeMap::new();
        for _ in 0..n {
            *m.entry(p.pick(write, bs)).or_insert(0) += 1;
        }
        m
    }

    /// cmdprio-percentage.fio: 20 % RT level 0 (0x2000), the rest idle class (0x6000);
    /// within ±1.5 points over 100 000 picks.
    #[test]
    fn percentage_splits_between_cmdprio_and_thread_prio() {
        let x = PrioNumaDedupeOpts {
            prioclass: Some(3),
            cmdprio_percentage: Some([20, 20]),
            ..Default::default()
        };
        let mut p = CmdPrio::new(&x, true, 1).unwrap();
        let m = share(&mut p, false, 131072, 100_000);
        assert_eq!(m.len(), 2, "{m:?}");
        let rt = f64::from(m[&0x2000]) / 1000.0;
        assert!((rt - 20.0).abs() < 1.5, "{rt} % RT");
        assert_eq!(m[&0x2000] + m[&0x6000], 100_000);
    }

    /// cmdprio-bssplit.fio "cmdprio-adv-def": 64k reads 25 % RT/1, 75 % idle/2; 1M reads
    /// and all writes get the thread's BE/7 (0x4007).
    #[test]
    fn bssplit_entries_per_block_size() {
        let r = parse_prio_split("64k/25/1/1:64k/75/3/2:1024k/0", 1024).unwrap();
        let w = parse_prio_split("1024k/0", 1024).unwrap();
        let x = PrioNumaDedupeOpts {
            prioclass: Some(2),
            prio: Some(7),
            cmdprio_bssplit: Some([r, w]),
            ..Default::default()
        };
        let mut p = CmdPrio::new(&x, true, 2).unwrap();
        let m = share(&mut p, false, 65536, 100_000);
        let rt = f64::from(m[&0x2001]) / 1000.0;
        assert!((rt - 25.0).abs() < 1.5, "{m:?}");
        assert_eq!(m[&0x2001] + m[&0x6002], 100_000, "{m:?}");
        let m = share(&mut p, false, 1 << 20, 1000);
        assert_eq!(m.into_iter().collect::<Vec<_>>(), vec![(0x4007, 1000)]);
        let m = share(&mut p, true, 1 << 20, 1000);
        assert_eq!(m.into_iter().collect::<Vec<_>>(), vec![(0x4007, 1000)]);
    }

    /// CDL hints: 1M reads 10 % hint 1, 30 % hint 2, 60 % no hint, all BE level 0.
    #[test]
    fn bssplit_hints_are_in_the_value() {
        let r = parse_prio_split("1M/10/2/0/1:1M/30/2/0/2:1M/60/2/0/0", 1024).unwrap();
        let x = PrioNumaDedupeOpts {
            cmdprio_bssplit: Some([r.clone(), r]),
            ..Default::default()
        };
        let mut p = CmdPrio::new(&x, true, 3).unwrap();
        let m = share(&mut p, false, 1 << 20, 100_000);
        let pct = |v: u16| f64::from(m[&v]) / 1000.0;
        assert!((pct(0x4008) - 10.0).abs() < 1.5, "{m:?}");
        assert!((pct(0x4010) - 30.0).abs() < 1.5, "{m:?}");
        assert!((pct(0x4000) - 60.0).abs() < 1.5, "{m:?}");
    }

    #[test]
    fn nothing_set_means_no_picker() {
        assert!(CmdPrio::new(&PrioNumaDedupeOpts::default(), true, 0).is_none());
    }

    /// An engine without per-request priorities (a job that left libaio for psync after
    /// cmdprio_percentage): every request has the thread's priority, none cmdprio's.
    #[test]
    fn cmdprio_is_dropped_without_per_request_priorities() {
        let mut x = PrioNumaDedupeOpts {
            prioclass: Some(3),
            cmdprio_percentage: Some([50, 50]),
            ..Default::default()
        };
        let mut p = CmdPrio::new(&x, false, 1).unwrap();
        let m = share(&mut p, false, 4096, 1000);
        assert_eq!(m.into_iter().collect::<Vec<_>>(), vec![(0x6000, 1000)]);
        x.prioclass = None;
        assert!(CmdPrio::new(&x, false, 1).is_none());
    }
}
