//! `serialize_overlap=1` as fio 3.33 (backend.c `io_u_submit`, `in_flight_overlap`): a
//! request whose bytes meet those of a request in flight waits until that one completes,
//! so no two requests in flight at once overlap; each wait is traced under `--debug=io`
//! as fio's `in-flight overlap: O/L, O/L` line. Read from the `--debug=io` trace of
//! both tools: each request's `queue` and `complete` lines give what is in flight.

use crate::util::*;

/// The offset and length of a trace line's request (`… off=0x…,len=0x…,…`), and its
/// `io_u` (the address naming it while it is in flight).
fn request(line: &str) -> (String, u64, u64) {
    let field = |key: &str| -> u64 {
        let at = line
            .find(key)
            .unwrap_or_else(|| panic!("no {key} in {line}"))
            + key.len();
        let hex: String = line[at..]
            .chars()
            .take_while(char::is_ascii_hexdigit)
            .collect();
        u64::from_str_radix(&hex, 16).unwrap()
    };
    let io_u = line
        .split("io_u ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap();
    (io_u.to_string(), field("off=0x"), field("len=0x"))
}

/// From a `--debug=io` trace: how many requests were queued, how many of them met a
/// request in flight when they were queued, and how many `in-flight overlap` lines
/// there are.
fn overlaps(trace: &str) -> (usize, usize, usize) {
    let mut in_flight: Vec<(String, u64, u64)> = Vec::new();
    let (mut queued, mut met, mut waits) = (0, 0, 0);
    for l in trace.lines() {
        if l.contains(" queue: io_u ") {
            let (u, o, n) = request(l);
            queued += 1;
            if in_flight
                .iter()
                .any(|&(_, fo, fl)| o < fo + fl && fo < o + n)
            {
                met += 1;
            }
            in_flight.push((u, o, n));
        } else if l.contains(" complete: io_u ") {
            let (u, _, _) = request(l);
            in_flight.retain(|r| r.0 != u);
        } else if l.contains("in-flight overlap: ") {
            waits += 1;
        }
    }
    (queued, met, waits)
}

/// Random writes at depth 16 over a 64 KiB file (16 blocks), without a random map, 128
/// of them: with `serialize_overlap=1` no write is queued while one to its block is in
/// flight — fio's trace and iomark's alike — and both trace their waits; without it the
/// same job queues writes over blocks in flight (the check sees them), and no wait.
#[test]
fn an_overlapping_request_waits_for_the_one_in_flight() {
    require_fio();
    let d = scratch();
    for engine in ["libaio", "io_uring"] {
        for serialize in ["1", "0"] {
            for tool in ["fio", "iomark"] {
                let w = d.path().join(format!("{tool}-{engine}-{serialize}"));
                std::fs::create_dir_all(&w).unwrap();
                let cmd = fio_or_ours(tool, d.path());
                let o = cmd
                    .dir(&w)
                    .args(["--name=j", "--rw=randwrite", "--iodepth=16", "--size=64k"])
                    .args(["--bs=4k", "--norandommap", "--io_size=512k", "--filename=f"])
                    .arg(format!("--ioengine={engine}"))
                    .arg(format!("--serialize_overlap={serialize}"))
                    .arg("--debug=io")
                    .run();
                assert_eq!(o.code, 0, "{tool} {engine} {serialize}: {}", o.dump());
                let (queued, met, waits) = overlaps(&o.stdout);
                let what = format!("{tool} {engine} serialize_overlap={serialize}");
                assert_eq!(queued, 128, "{what}: requests queued");
                if serialize == "1" {
                    assert_eq!(met, 0, "{what}: a write queued over one in flight");
                    assert!(waits > 0, "{what}: no in-flight overlap line");
                } else {
                    assert!(met > 0, "{what}: no write over one in flight");
                    assert_eq!(waits, 0, "{what}: in-flight overlap lines");
                }
            }
        }
    }
}

/// fio's fixup: a job that only reads has nothing to serialize (no wait, no line), nor
/// has one at depth 1.
#[test]
fn reads_and_depth_1_are_not_checked() {
    let d = scratch();
    for (rw, depth) in [("randread", "16"), ("randwrite", "1")] {
        let o = as_fio(d.path())
            .dir(d.path())
            .args(["--name=j", "--ioengine=libaio", "--size=64k", "--bs=4k"])
            .args(["--norandommap", "--io_size=512k", "--filename=f"])
            .args(["--serialize_overlap=1", "--debug=io"])
            .arg(format!("--rw={rw}"))
            .arg(format!("--iodepth={depth}"))
            .run();
        assert_eq!(o.code, 0, "{rw} {depth}: {}", o.dump());
        let (queued, _, waits) = overlaps(&o.stdout);
        assert_eq!((queued, waits), (128, 0), "{rw} iodepth={depth}");
    }
}
