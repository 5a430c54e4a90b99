//! `null`: completes every request inside `submit` without touching memory or a file,
//! as fio's `ioengine=null`. It measures the tool's own per-I/O overhead (generator,
//! clock reads, recorder), which is what a fast drive leaves of the CPU budget.

use super::{Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;

/// The no-I/O engine. `depth` is only reported (every request is done at once).
pub struct Null {
    depth: usize,
}

impl Null {
    /// A null engine reporting `depth` (at least 1).
    pub fn new(depth: usize) -> Self {
        Null {
            depth: depth.max(1),
        }
    }
}

impl Engine for Null {
    const KIND: Kind = Kind::Null;
    const CAPS: super::Caps = super::Caps::NO_IO;
    fn depth(&self) -> usize {
        self.depth
    }
    #[inline]
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
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
    fn completes_at_once_with_full_length() {
        let mut e = Null::new(0);
        assert_eq!(e.depth(), 1);
        let r = IoReq {
            dir: Dir::Write,
            file: 7,
            offset: 1 << 40,
            len: 4096,
            buf: std::ptr::null_mut(),
            buf_index: 0,
            ioprio: 0,
        };
        assert_eq!(e.submit(0, &r), Ok(Some(4096)));
        assert_eq!(e.sync(3, SyncKind::Fsync), Ok(()));
    }
}
