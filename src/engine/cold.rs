//! The engines that move no data through the per-I/O path at speed (fio's falloc,
//! ftruncate, cpuio, the file and directory operations, e4defrag, page_fault, exec and
//! net) behind one type, [`Cold`], so that every caller's generic loop is compiled once
//! for all of them rather than once per engine (each copy of the worker costs the
//! release build seconds; these engines spend microseconds to milliseconds per request,
//! where a `match` per call is nothing).
//!
//! What lives here: the wrapper and its forwarding. What may not: an engine's own
//! behaviour (its file) or the choice of engine (registry.rs).
//!
//! None of these engines queues, so the worker's rules for a non-queueing engine (one
//! slot, completion inside `submit`) are theirs whatever kind [`Cold::KIND`] names;
//! `cold_kinds_neither_queue_nor_batch` holds that.

use super::cpuio::Cpuio;
use super::e4defrag::E4Defrag;
use super::exec::Exec;
use super::falloc::{Falloc, Ftruncate};
use super::fileops::{DirCreate, DirDelete, DirStat, FileCreate, FileDelete, FileStat};
use super::net::Net;
use super::page_fault::PageFault;
use super::{Caps, Completion, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;

/// One of the engines that share a loop (see the module header).
pub enum Cold {
    /// fallocate(2) per request
    Falloc(Falloc),
    /// ftruncate(2) per request
    Ftruncate(Ftruncate),
    /// CPU burner
    Cpuio(Cpuio),
    /// file creation
    FileCreate(FileCreate),
    /// stat of files
    FileStat(FileStat),
    /// file removal
    FileDelete(FileDelete),
    /// directory creation
    DirCreate(DirCreate),
    /// stat of directories
    DirStat(DirStat),
    /// directory removal
    DirDelete(DirDelete),
    /// ext4 extent moves
    E4Defrag(E4Defrag),
    /// page faults on an anonymous map
    PageFault(PageFault),
    /// a program run beside the job
    Exec(Exec),
    /// sockets
    Net(Net),
}

/// `$body` with `$e` bound to the wrapped engine.
macro_rules! each {
    ($s:expr, $e:ident => $body:expr) => {
        match $s {
            Cold::Falloc($e) => $body,
            Cold::Ftruncate($e) => $body,
            Cold::Cpuio($e) => $body,
            Cold::FileCreate($e) => $body,
            Cold::FileStat($e) => $body,
            Cold::FileDelete($e) => $body,
            Cold::DirCreate($e) => $body,
            Cold::DirStat($e) => $body,
            Cold::DirDelete($e) => $body,
            Cold::E4Defrag($e) => $body,
            Cold::PageFault($e) => $body,
            Cold::Exec($e) => $body,
            Cold::Net($e) => $body,
        }
    };
}

impl Cold {
    /// The wrapped engine's kind.
    pub fn kind(&self) -> Kind {
        fn of<E: Engine>(_: &E) -> Kind {
            E::KIND
        }
        each!(self, e => of(e))
    }
}

impl Engine for Cold {
    /// A kind that neither queues nor batches, as every wrapped one (the worker's
    /// rules read only that from it); the wrapped engine's own kind names it.
    const KIND: Kind = Kind::Falloc;
    /// Unused by callers (they ask the job's kind); the most a wrapped one claims is
    /// its own [`Kind::caps`].
    const CAPS: Caps = Caps::SYNC;
    fn name(&self) -> &'static str {
        self.kind().name()
    }
    fn depth(&self) -> usize {
        each!(self, e => e.depth())
    }
    fn submit(&mut self, slot: usize, req: &IoReq) -> Result<Option<usize>, IoErr> {
        each!(self, e => e.submit(slot, req))
    }
    fn flush(&mut self) -> Result<bool, IoErr> {
        each!(self, e => e.flush())
    }
    fn unsubmitted(&self) -> usize {
        each!(self, e => e.unsubmitted())
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        each!(self, e => e.reap(min, out))
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        each!(self, e => e.sync(file, kind))
    }
    fn wait_some(&mut self, timeout_ns: u64, out: &mut Vec<Completion>) -> Result<(), IoErr> {
        each!(self, e => e.wait_some(timeout_ns, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::engines::KINDS;

    /// The kinds that go through [`Cold`]: all but the six data engines.
    fn cold(k: Kind) -> bool {
        !matches!(
            k,
            Kind::Psync | Kind::IoUring | Kind::Libaio | Kind::Posixaio | Kind::Mmap | Kind::Null
        )
    }

    #[test]
    fn cold_kinds_neither_queue_nor_batch() {
        let colds: Vec<Kind> = KINDS.into_iter().filter(|k| cold(*k)).collect();
        assert_eq!(colds.len(), 13);
        for k in colds.iter().copied().chain([Cold::KIND]) {
            assert!(!k.queues(), "{k:?} queues");
            assert!(!k.per_io_prio(), "{k:?} batches");
            assert!(!matches!(k, Kind::Null), "{k:?}");
        }
    }

    #[test]
    fn a_wrapped_engine_keeps_its_name_and_work() {
        let cycle = std::time::Duration::from_micros(1);
        let mut c = Cold::Cpuio(Cpuio::new(Default::default(), cycle));
        assert_eq!((c.name(), c.kind(), c.depth()), ("cpuio", Kind::Cpuio, 1));
        let req = IoReq::bufferless(super::super::Dir::Read, 0, 4096);
        assert_eq!(c.submit(0, &req), Ok(Some(4096)));
    }
}
