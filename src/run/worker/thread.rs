//! The start of every job thread that runs the worker loop (`run`'s and `fileio`'s):
//! its own descriptor table, the buffers the engine registers, and the loop's depth
//! on the engine the registry built (engine/registry.rs). One place, so both front
//! ends start their threads the same way.

use crate::engine::buffers::{AlignedBuf, Slab};
use crate::engine::{Caps, Engine};

/// First thing in a job thread: give it its own copy of the descriptor table
/// ([`crate::engine::private_fd_table`]), so each `pread`/`pwrite` skips the kernel's
/// file reference count (fio's jobs are processes, whose table is never shared).
/// Descriptors opened before (a file set the main thread opened) stay usable: the copy
/// holds them too. An engine whose requests run on the C library's process-wide
/// helper threads (posixaio, [`Caps::helper_threads`]) keeps the shared table: those
/// threads look descriptors up in the table of the thread that created them. Returns
/// whether the table is private now.
pub fn enter(caps: Caps) -> bool {
    !caps.helper_threads && crate::engine::private_fd_table()
}

/// `(ptr, len)` of the buffers an engine may register: the slots' buffers, in slot
/// order, then `extra` (their registered-buffer indexes follow the slots').
pub fn registered(slab: &Slab, extra: &[&AlignedBuf]) -> Vec<(*mut u8, usize)> {
    slab.bufs
        .iter()
        .chain(extra.iter().copied())
        .map(|b| (b.ptr(), b.len()))
        .collect()
}

/// Slots of the loop on engine `E` for a job of `depth`: the depth on an engine that
/// queues, 1 on one that completes every request inside `submit`.
pub fn depth_on<E: Engine>(depth: usize) -> usize {
    if E::KIND.queues() {
        depth
    } else {
        1
    }
}
