//! The [`Transport`] over MPI (rsmpi, Cargo feature `mpi`): MPI_Init_thread with
//! MPI_THREAD_MULTIPLE (the watcher thread of src/ranks/mod.rs probes for done messages
//! while the main thread runs), point-to-point done words on one tag of the world
//! communicator, a barrier, a gather of byte strings to rank 0, MPI_Finalize.

use super::Transport;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use mpi::Threading;
use std::sync::Mutex;

/// Tag of the done words (collectives never match point-to-point messages).
const DONE_TAG: i32 = 16;

/// MPI's world, initialised for this process.
pub struct World {
    universe: Mutex<Option<Universe>>,
    rank: u32,
    size: u32,
}

// SAFETY: the Universe is only dropped (MPI_Finalize) under its mutex, after every other
// MPI call of the process; MPI_THREAD_MULTIPLE makes the calls of several threads safe.
unsafe impl Send for World {}
// SAFETY: see above.
unsafe impl Sync for World {}

fn world() -> SimpleCommunicator {
    SimpleCommunicator::world()
}

impl World {
    /// MPI_Init_thread(MULTIPLE); `Err` when MPI cannot start or lacks thread support.
    pub fn init() -> Result<World, String> {
        let (universe, level) = mpi::initialize_with_threading(Threading::Multiple)
            .ok_or("MPI was already initialised in this process")?;
        if level != Threading::Multiple {
            return Err(format!(
                "this MPI gives thread level {level:?}; the many-hosts mode needs MPI_THREAD_MULTIPLE"
            ));
        }
        let w = universe.world();
        let (rank, size) = (w.rank() as u32, w.size() as u32);
        Ok(World {
            universe: Mutex::new(Some(universe)),
            rank,
            size,
        })
    }
}

impl Transport for World {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.size
    }
    fn barrier(&self) {
        world().barrier();
    }
    fn send_done(&self, to: u32, word: u64) {
        world()
            .process_at_rank(to as i32)
            .send_with_tag(&word, DONE_TAG);
    }
    fn poll_done(&self) -> Option<u64> {
        let (msg, _) = world()
            .any_process()
            .immediate_matched_probe_with_tag(DONE_TAG)?;
        let (word, _) = msg.matched_receive::<u64>();
        Some(word)
    }
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        let w = world();
        let root = w.process_at_rank(0);
        let n = bytes.len() as i32;
        if self.rank != 0 {
            root.gather_into(&n);
            root.gather_varcount_into(bytes);
            return None;
        }
        let mut counts = vec![0i32; self.size as usize];
        root.gather_into_root(&n, &mut counts[..]);
        let displs: Vec<i32> = counts
            .iter()
            .scan(0, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect();
        let mut buf = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(bytes, &mut part);
        }
        Some(
            counts
                .iter()
                .zip(&displs)
                .map(|(&c, &d)| buf[d as usize..(d + c) as usize].to_vec())
                .collect(),
        )
    }
    fn finalize(&self) {
        let u = self
            .universe
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        drop(u);
    }
}
