//! fio's `--debug=io` trace of a job thread's requests, in fio 3.33's words: each
//! request's `fill`, `prep` and `queue` when it is made ready and handed to the engine,
//! `complete` when it completes, `getevents: N` for each reap of a queueing engine,
//! `in-flight overlap: …` when a request waits for one it overlaps (`serialize_overlap`).
//! The request is named as fio names its `io_u`: an address, here the buffer of the
//! request's slot (each slot one buffer, reused by its requests as fio reuses an
//! `io_u`), then `off=0x…,len=0x…,ddir=D,file=NAME` (D: 0 read, 1 write, 2 trim).
//! The lines are written outside the clock points of the request, so tracing does not
//! add to its latencies.

use crate::engine::{Dir, IoReq};
use crate::util::debug::trace;
use std::path::Path;

/// fio's `ddir` number of a request (`by_rules`: a trim the rules issue).
fn ddir(io: &IoReq, by_rules: bool) -> u8 {
    match (io.dir, by_rules) {
        (_, true) => 2,
        (Dir::Read, false) => 0,
        (Dir::Write, false) => 1,
    }
}

/// One request's line: `EVENT: io_u 0xADDR: off=0x…,len=0x…,ddir=D,file=NAME`.
pub(super) fn io_u_line(event: &str, io: &IoReq, by_rules: bool, file: &Path) -> String {
    format!(
        "{event}: io_u {:#x}: off={:#x},len={:#x},ddir={},file={}\n",
        io.buf as usize,
        io.offset,
        io.len,
        ddir(io, by_rules),
        file.display()
    )
}

/// The lines of a request made ready and handed to the engine (fio's `fill`, `prep`,
/// `queue`).
pub(super) fn issued(io: &IoReq, by_rules: bool, file: &Path) {
    for event in ["fill", "prep", "queue"] {
        trace("io", || io_u_line(event, io, by_rules, file));
    }
}

/// The line of a completed request (failed ones too, as fio's).
pub(super) fn completed(io: &IoReq, by_rules: bool, file: &Path) {
    trace("io", || io_u_line("complete", io, by_rules, file));
}

/// The line of a request (`offset`, `len`) that waits for the request in flight it
/// overlaps (`serialize_overlap`), in fio's words: `in-flight overlap: O/L, O/L`.
pub(super) fn overlap((offset, len): (u64, u64), (o, l): (u64, u64)) {
    trace("io", || {
        format!("in-flight overlap: {offset}/{len}, {o}/{l}\n")
    });
}

/// The line of a reap that returned `n` completions.
pub(super) fn reaped(n: usize) {
    trace("io", || format!("getevents: {n}\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_named_as_fio_names_an_io_u() {
        // fio 3.33 --debug=io: "fill: io_u 0x55b888800f40: off=0x1000,len=0x1000,ddir=1,file=f2"
        let io = IoReq {
            dir: Dir::Write,
            file: 0,
            offset: 0x1000,
            len: 0x1000,
            buf: 0x55b8_8880_0f40_usize as *mut u8,
            buf_index: 0,
            ioprio: 0,
        };
        assert_eq!(
            io_u_line("fill", &io, false, Path::new("f2")),
            "fill: io_u 0x55b888800f40: off=0x1000,len=0x1000,ddir=1,file=f2\n"
        );
        let read = IoReq {
            dir: Dir::Read,
            offset: 0,
            ..io
        };
        assert!(io_u_line("complete", &read, false, Path::new("j.0.0"))
            .ends_with(": off=0x0,len=0x1000,ddir=0,file=j.0.0\n"));
        assert!(io_u_line("queue", &io, true, Path::new("t")).contains(",ddir=2,"));
    }
}
