//! `rw=MODE:N` as fio 3.33 reads and runs it. A random mode's N is read as C's `atoi`
//! (`randread:zz`, `randread:` and `randread:0` are 0) and counts down fio's
//! `ddir_seq_nr`: every N-th request draws a random offset, the others go on where the
//! last request of their file and direction ended — and one that would start at the
//! file's end draws a random block instead of going back to the start; with N = 0 no
//! request is random, the job walks its file in order. A sequential mode's N is a size
//! (`read:zz` is fio's `rw postfix parsing failed`). Each case runs iomark as `fio` and
//! Debian's fio 3.33 with `write_iolog` and a fixed `randseed`: the walks of N = 0 and of
//! the sequential modes are compared offset for offset; the random runs (iomark draws its
//! own random offsets) are checked against fio's rule in both tools' logs, with the same
//! number of requests.

use crate::util::*;
use std::path::Path;

/// One request of a `write_iolog` (version 3: `TIME FILE ACTION OFFSET LENGTH`).
#[derive(Debug, PartialEq)]
struct Req {
    file: String,
    write: bool,
    offset: u64,
    len: u64,
}

/// The requests of the `write_iolog` at `path`, file names without their directory.
fn iolog(path: &Path) -> Vec<Req> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let p: Vec<&str> = l.split_whitespace().collect();
            (p.len() == 5 && (p[2] == "read" || p[2] == "write")).then(|| Req {
                file: p[1].rsplit('/').next().unwrap().to_string(),
                write: p[2] == "write",
                offset: p[3].parse().unwrap(),
                len: p[4].parse().unwrap(),
            })
        })
        .collect()
}

/// Runs the job `args` (name, log and seed added) with `cmd` in `dir` (made fresh); its
/// requests.
fn run(cmd: Iomark, dir: &Path, args: &[&str]) -> Vec<Req> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut all = vec!["--name=s", "--write_iolog=io.log", "--randseed=7"];
    all.extend_from_slice(args);
    let o = cmd.dir(dir).args(&all).run();
    assert_eq!(o.code, 0, "{all:?}: {}", o.dump());
    iolog(&dir.join("io.log"))
}

/// Both tools' requests for `args`: (iomark, fio).
fn both(root: &Path, args: &[&str]) -> (Vec<Req>, Vec<Req>) {
    let io = run(as_fio(root), &root.join("iomark"), args);
    let fio = run(fio_cmd(), &root.join("fio"), args);
    (io, fio)
}

/// fio 3.33's rule for the requests of a random job with `rw=…:n` over files of `real`
/// bytes each (regions from 0): request i (counted over the job) is random when n > 0
/// and i is a multiple of n; any other starts where the last request of its file and
/// direction ended (0 before the first), unless that is the file's end: then it is a
/// random block (a restart). The offsets of the restarts, or the first request that
/// breaks the rule.
fn restarts(reqs: &[Req], n: u64, real: u64) -> Result<Vec<u64>, String> {
    let mut ends: std::collections::HashMap<(&str, bool), u64> = Default::default();
    let mut out = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let end = ends.entry((r.file.as_str(), r.write)).or_insert(0);
        let random = n > 0 && (i as u64).is_multiple_of(n);
        if !random {
            if *end >= real {
                out.push(r.offset);
            } else if r.offset != *end {
                return Err(format!("request {i} {r:?}: expected offset {end}"));
            }
        }
        *end = r.offset + r.len;
    }
    Ok(out)
}

/// Random runs (`rw=randread:N` and friends, N > 1) side by side with fio 3.33: both
/// tools' logs follow fio's rule with the same number of requests, and a run that meets
/// the file's end restarts at a random block — over many restarts (`io_size` several
/// times `size`) not always at the start, where iomark used to wrap. (The cases draw
/// fewer random offsets than the file has blocks: a full random map ends the file, and
/// fio's countdown then moves on by the failed try.)
#[test]
fn random_runs_restart_at_a_random_block_as_fio() {
    if !need_fio("random_runs_restart_at_a_random_block_as_fio") {
        return;
    }
    let d = scratch();
    // (args, N, bytes per file, the run restarts often)
    let cases: [(&[&str], u64, u64, bool); 9] = [
        (
            &["--rw=randread:4", "--bs=4k", "--size=64k"],
            4,
            64 << 10,
            false,
        ),
        (
            &["--rw=randread:3", "--bs=4k", "--size=256k"],
            3,
            256 << 10,
            false,
        ),
        (
            &["--rw=randread:8", "--bs=8k", "--size=1m"],
            8,
            1 << 20,
            false,
        ),
        (
            &["--rw=randwrite:4", "--bs=4k", "--size=128k"],
            4,
            128 << 10,
            false,
        ),
        (
            &["--rw=randrw:4", "--bs=4k", "--size=256k"],
            4,
            256 << 10,
            false,
        ),
        (
            &["--rw=randread:4", "--bs=4k", "--size=128k", "--nrfiles=2"],
            4,
            64 << 10,
            false,
        ),
        (
            &[
                "--rw=randread:5",
                "--bs=4k",
                "--size=64k",
                "--ioengine=libaio",
                "--iodepth=8",
            ],
            5,
            64 << 10,
            false,
        ),
        (
            &[
                "--rw=randread:1000",
                "--bs=4k",
                "--size=64k",
                "--io_size=1m",
            ],
            1000,
            64 << 10,
            true,
        ),
        (
            &["--rw=randread:20", "--bs=4k", "--size=64k", "--io_size=1m"],
            20,
            64 << 10,
            true,
        ),
    ];
    for (args, n, real, often) in cases {
        let (io, fio) = both(d.path(), args);
        assert_eq!(io.len(), fio.len(), "{args:?}: number of requests");
        for (tool, reqs) in [("iomark", &io), ("fio", &fio)] {
            let r = restarts(reqs, n, real).unwrap_or_else(|e| panic!("{tool} {args:?}: {e}"));
            if often {
                assert!(r.len() >= 5, "{tool} {args:?}: {} restarts", r.len());
                assert!(
                    r.iter().any(|&o| o != 0),
                    "{tool} {args:?}: every restart at the start: {r:?}"
                );
            }
        }
    }
}

/// A random mode whose N is 0 as `atoi` reads it (`:0`, `:`, `:zz`, `:0x10`) walks the
/// file in order, offset for offset fio 3.33's walk; the sequential modes' `:N` (holes,
/// `read:0`) and a value whose mode ends at a `,` (`rw=read,zz`) too. (`read:` with an
/// empty size is refused, as fio 3.33 refuses it: `suffix_values_parse_as_fio`.)
#[test]
fn zero_runs_and_sequential_suffixes_walk_as_fio() {
    if !need_fio("zero_runs_and_sequential_suffixes_walk_as_fio") {
        return;
    }
    let d = scratch();
    let modes = [
        "randread:0",
        "randread:",
        "randread:zz",
        "randwrite:0x10",
        "read:0",
        "read:8k",
        "write:4k",
        "read,zz",
    ];
    for (i, mode) in modes.iter().enumerate() {
        let rw = format!("--rw={mode}");
        let bs = ["--bs=4k", "--bs=8k"][i % 2];
        let size = ["--size=256k", "--size=1m", "--size=96k"][i % 3];
        let args = [rw.as_str(), bs, size];
        let (io, fio) = both(d.path(), &args);
        assert!(!io.is_empty(), "{args:?}: no requests");
        assert_eq!(io, fio, "{args:?}: the walk");
        if mode.starts_with("rand") {
            // N = 0: every request where the last one ended
            assert_eq!(restarts(&io, 0, u64::MAX), Ok(Vec::new()), "{args:?}");
        }
    }
}

/// `rw=MODE:N` values refused or taken as fio 3.33 takes them (`--parse-only`): exit
/// code, stdout and stderr byte for byte — a sequential mode with nothing after its `:`
/// (`read:`, `rw:`) is fio's `rw postfix parsing failed`; a `,` after the `:`
/// (`read:4k,zz`) names no mode, so fio lists its values without that line.
#[test]
fn suffix_values_parse_as_fio() {
    if !need_fio("suffix_values_parse_as_fio") {
        return;
    }
    let values = [
        "randread:zz",
        "randread:0",
        "randread:",
        "randread:-1",
        "randread:+2",
        "randread:8k",
        "randread: 3",
        "randrw:99999999999",
        "read:zz",
        "read:0",
        "read:-4k",
        "read,zz",
        "randread,zz",
        "randread:0,zz",
        "write:zz",
        "trim:zz",
        "RandRead",
        "read:",
        "read: ",
        "rw:",
        "read:4k,zz",
        "read:,",
        "read,4k:zz",
    ];
    for v in values {
        let rw = format!("--rw={v}");
        let b = fio_and_iomark(
            "suffix_values_parse_as_fio",
            &["--name=j", &rw, "--size=1m", "--parse-only"],
            |_, _| {},
        );
        let fio = b.fio.as_ref().unwrap();
        assert_eq!(
            (fio.code, &fio.stdout, &fio.stderr),
            (b.iomark.code, &b.iomark.stdout, &b.iomark.stderr),
            "{rw}: fio, then iomark"
        );
    }
}
