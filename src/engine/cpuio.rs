//! `cpuio`: fio's CPU-burning engine. No file and no memory is touched; each request
//! burns one CPU cycle of `cpuchunks` µs (`cpumode=noop`: a busy spin) or runs fio's
//! qsort round over 256 Ki integers (`cpumode=qsort`: sort, reverse sort, byte sort,
//! reverse sort), and completes. The pause after each request that makes the thread's
//! load `cpuload` percent is the job's think time, set from the same two options when
//! the job is parsed (src/job/fio/finish.rs), as fio's engine init sets it.

use super::{Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::{CpuMode, Kind};
use std::time::{Duration, Instant};

/// Integers sorted per qsort round (256 Ki of 32 bits, fio's qsort_size).
const QSORT_LEN: usize = 256 << 10;

/// The CPU engine.
pub struct Cpuio {
    mode: CpuMode,
    cycle: Duration,
    data: Vec<u32>,
}

impl Cpuio {
    /// An engine burning `cycle` per request (noop) or sorting (qsort).
    pub fn new(mode: CpuMode, cycle: Duration) -> Self {
        let data = if mode == CpuMode::Qsort {
            // multiply-with-carry sequence seeded as fio's engine seeds it
            let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
            (0..QSORT_LEN)
                .map(|_| {
                    z = 36969u32.wrapping_mul(z & 65535).wrapping_add(z >> 16);
                    w = 18000u32.wrapping_mul(w & 65535).wrapping_add(w >> 16);
                    (z << 16).wrapping_add(w)
                })
                .collect()
        } else {
            Vec::new()
        };
        Cpuio { mode, cycle, data }
    }

    fn qsort_round(&mut self) {
        let d = &mut self.data;
        d.sort_unstable_by_key(|a| *a as i32);
        d.sort_unstable_by_key(|a| std::cmp::Reverse(*a as i32));
        let mut bytes: Vec<u8> = d.iter().flat_map(|x| x.to_ne_bytes()).collect();
        bytes.sort_unstable();
        for (x, c) in d.iter_mut().zip(bytes.chunks_exact(4)) {
            *x = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
        }
        d.sort_unstable_by_key(|a| std::cmp::Reverse(*a as i32));
    }
}

impl Engine for Cpuio {
    const KIND: Kind = Kind::Cpuio;
    const CAPS: super::Caps = super::Caps::NO_IO;
    fn depth(&self) -> usize {
        1
    }
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        match self.mode {
            CpuMode::Noop => {
                let t0 = Instant::now();
                while t0.elapsed() < self.cycle {
                    std::hint::spin_loop();
                }
            }
            CpuMode::Qsort => self.qsort_round(),
        }
        Ok(Some(r.len))
    }
    fn sync(&mut self, _file: usize, _kind: SyncKind) -> Result<(), IoErr> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Dir;

    #[test]
    fn noop_spins_for_the_cycle_and_qsort_sorts() {
        let r = IoReq {
            dir: Dir::Read,
            file: 0,
            offset: 0,
            len: 4096,
            buf: std::ptr::null_mut(),
            buf_index: 0,
            ioprio: 0,
        };
        let mut e = Cpuio::new(CpuMode::Noop, Duration::from_millis(3));
        let t0 = Instant::now();
        assert_eq!(e.submit(0, &r), Ok(Some(4096)));
        assert!(t0.elapsed() >= Duration::from_millis(3));
        let mut q = Cpuio::new(CpuMode::Qsort, Duration::ZERO);
        assert_eq!(q.data.len(), QSORT_LEN);
        q.submit(0, &r).unwrap();
        // the last pass is a reverse sort on signed values
        assert!(q.data.windows(2).all(|w| (w[0] as i32) >= (w[1] as i32)));
    }
}
