//! fio's `flow`: token-based I/O shares between the jobs of one `flow_id`
//! (`fio --cmdhelp=flow`, fio's flow.c).
//!
//! Each flow has a shared counter of issued I/Os (starting at 1, as fio's) and the sum
//! of the weights of the threads in it. Before each I/O a thread compares its own count
//! with the flow's: when `mine / flow > weight / total_weight` it is ahead of its share
//! and is held back (sleeps `flow_sleep` µs after letting its in-flight I/O complete, or
//! yields when `flow_sleep=0`); otherwise both counters go up and the I/O is issued.
//! So two jobs `flow=1` and `flow=8` issue about 1:8 of the I/Os.
//!
//! Weights: fio adds a job's weight when the job is set up (every job, whatever its
//! stonewall group) and removes it when the job exits. iomark adds the weights of a
//! stonewall group's threads when the group starts and removes each when its thread
//! ends, so jobs of one group start in step but a flow partner in a later stonewall
//! group cannot hold a running job back forever (said in docs/compat/fio.md, "Control").

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

#[derive(Debug)]
struct FlowState {
    id: u32,
    /// I/Os issued by every thread of the flow, plus 1 (fio starts the counter at 1)
    counter: AtomicU64,
    /// sum of the weights of the threads currently in the flow
    total_weight: AtomicU64,
}

/// The flows of one run, shared by every worker thread.
#[derive(Debug, Default)]
pub struct Flows {
    flows: Mutex<Vec<std::sync::Arc<FlowState>>>,
}

/// One thread's I/O count in a flow: hold it while the thread issues I/O; dropping it
/// takes the thread's count out of the flow's (as fio's `flow_exit_job`).
#[derive(Debug)]
pub struct FlowMember {
    flow: std::sync::Arc<FlowState>,
    weight: u64,
    mine: u64,
}

impl Flows {
    fn get(&self, id: u32) -> std::sync::Arc<FlowState> {
        let mut v = self.flows.lock().unwrap_or_else(|e| e.into_inner());
        match v.iter().find(|f| f.id == id) {
            Some(f) => f.clone(),
            None => {
                let f = std::sync::Arc::new(FlowState {
                    id,
                    counter: AtomicU64::new(1),
                    total_weight: AtomicU64::new(0),
                });
                v.push(f.clone());
                f
            }
        }
    }

    /// Add a thread's `weight` to flow `id` (when its stonewall group starts).
    pub fn reserve(&self, id: u32, weight: u32) {
        self.get(id)
            .total_weight
            .fetch_add(u64::from(weight), Ordering::AcqRel);
    }

    /// Remove a weight added by [`Self::reserve`] (when the thread ends).
    pub fn release(&self, id: u32, weight: u32) {
        self.get(id)
            .total_weight
            .fetch_sub(u64::from(weight), Ordering::AcqRel);
    }

    /// Start counting a thread's I/O in flow `id` (its weight is reserved).
    pub fn join(&self, id: u32, weight: u32) -> FlowMember {
        FlowMember {
            flow: self.get(id),
            weight: u64::from(weight),
            mine: 0,
        }
    }
}

impl FlowMember {
    /// fio's `flow_threshold_exceeded`: `true` when this thread is ahead of its share
    /// (the caller must not issue now); otherwise counts one I/O and returns `false`.
    pub fn held(&mut self) -> bool {
        let all = self.flow.counter.load(Ordering::Relaxed).max(1);
        let total = self.flow.total_weight.load(Ordering::Relaxed).max(1);
        // mine / all > weight / total, without division
        if u128::from(self.mine) * u128::from(total) > u128::from(self.weight) * u128::from(all) {
            return true;
        }
        self.flow.counter.fetch_add(1, Ordering::Relaxed);
        self.mine += 1;
        false
    }

    /// I/Os this thread was allowed to issue.
    pub fn issued(&self) -> u64 {
        self.mine
    }
}

impl Drop for FlowMember {
    fn drop(&mut self) {
        self.flow.counter.fetch_sub(self.mine, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two members taking turns greedily end up with issued counts in their weight
    /// ratio (1:8), within one I/O.
    #[test]
    fn shares_follow_weights() {
        let flows = Flows::default();
        flows.reserve(0, 1);
        flows.reserve(0, 8);
        let mut a = flows.join(0, 1);
        let mut b = flows.join(0, 8);
        for _ in 0..9000 {
            let _ = a.held();
            let _ = b.held();
        }
        let (x, y) = (a.issued(), b.issued());
        assert!(x > 0 && y > 0);
        assert!((y as i64 - 8 * x as i64).abs() <= 8, "a={x} b={y}");
    }

    /// Other flow ids are independent; leaving a flow frees the others.
    #[test]
    fn ids_are_separate_and_leaving_frees() {
        let flows = Flows::default();
        flows.reserve(1, 1);
        flows.reserve(2, 1);
        let mut a = flows.join(1, 1);
        let mut other = flows.join(2, 1);
        for _ in 0..100 {
            assert!(!other.held(), "alone in flow 2: never held");
        }
        flows.reserve(1, 1);
        let b = flows.join(1, 1);
        // b issued nothing: a gets ahead by at most two I/Os (fio's counter starts at 1)
        let mut went = 0;
        while !a.held() {
            went += 1;
            assert!(went <= 2, "a was never held back");
        }
        assert!(went >= 1);
        drop(b);
        flows.release(1, 1);
        for _ in 0..100 {
            assert!(!a.held(), "partner left: never held");
        }
    }
}
