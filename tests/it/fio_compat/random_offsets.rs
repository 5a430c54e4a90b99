//! Random offsets as fio 3.33 draws them: each job thread's uniform offsets come from
//! fio's `random_state` (taus88, or taus258 with `random_generator=tausworthe64`), seeded
//! `0xb1899bed·T` under `randrepeat` whatever `randseed` says, else from the job's
//! seeds; a block is `lastb · r / (max + 1)`, a used one gives way to the next free
//! block after it (wrapping), a full map in a time-based job costs one draw before the
//! new pass, and each loop seeds again (src/run/gen/frand.rs, src/run/worker/fio/request.rs);
//! the sizes of `bsrange`/`bssplit` come from fio's per-direction generators likewise.
//! So a seeded random job's `write_iolog` is fio's, request by request.

use crate::util::*;
use std::path::Path;

/// The requests of the `write_iolog` a job wrote in `dir` (`FILE ACTION OFFSET
/// LENGTH`, of its first `limit`).
fn requests(dir: &Path, log: &str, limit: usize) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(log)).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            // version 3: `TIME FILE ACTION OFFSET LENGTH`
            let p: Vec<&str> = l.split_whitespace().collect();
            (p.len() == 5 && matches!(p[2], "read" | "write" | "trim"))
                .then(|| format!("{} {} {} {}", p[1], p[2], p[3], p[4]))
        })
        .take(limit)
        .collect()
}

/// Runs `args` under fio 3.33 and iomark as `fio`, each in a directory of its own: the
/// first `limit` requests of each log in `logs` (the jobs' `write_iolog`) are the same.
fn same_offsets(args: &[&str], logs: &[&str], limit: usize) {
    let d = scratch();
    let mut seen: Vec<Vec<Vec<String>>> = Vec::new();
    for (tool, cmd) in [("fio", fio_cmd()), ("iomark", as_fio(d.path()))] {
        let w = d.path().join(tool);
        std::fs::create_dir_all(&w).unwrap();
        let o = cmd.dir(&w).args(args).run();
        assert_eq!(o.code, 0, "{tool} {args:?}: {}", o.dump());
        seen.push(logs.iter().map(|l| requests(&w, l, limit)).collect());
    }
    for (i, log) in logs.iter().enumerate() {
        let (fio, io) = (&seen[0][i], &seen[1][i]);
        assert!(!fio.is_empty(), "{args:?}: fio wrote no {log}");
        assert_eq!(io, fio, "{args:?}: {log} differs from fio's");
    }
}

/// The jobs compared (options beyond the file and the engine; each writes `a.log`) and
/// how many of their logged requests are compared (0: all of them).
const JOBS: &[(&str, usize)] = &[
    // one thread, whole passes over 256 KiB
    ("--rw=randread --bs=4k --size=256k", 0),
    // randseed does not move the offsets under randrepeat (fio 3.33)
    ("--rw=randwrite --bs=8k --size=512k --randseed=1234", 0),
    // without randrepeat the seed comes from randseed
    (
        "--rw=randread --bs=4k --size=256k --randrepeat=0 --randseed=77",
        0,
    ),
    // the 64-bit generator
    (
        "--rw=randread --bs=4k --size=256k --random_generator=tausworthe64",
        0,
    ),
    // no random map: blocks repeat as drawn
    ("--rw=randread --bs=4k --size=256k --norandommap", 0),
    // two loops: the second repeats the first (seeded again)
    ("--rw=randread --bs=4k --size=128k --loops=2", 0),
    // loops on an engine that maps the file (no page-cache pass): each loop seeded
    (
        "--rw=randread --bs=4k --size=256k --ioengine=mmap --loops=3",
        0,
    ),
    // the verify reads of a job with a random map come in the order written (fio's
    // list), synchronous and queued
    ("--rw=randwrite --bs=4k --size=256k --verify=md5", 0),
    (
        "--rw=randwrite --bs=4k --size=256k --ioengine=libaio --iodepth=4 --verify=crc32c",
        0,
    ),
    // request sizes drawn as fio draws them (its bsrange_state per direction): ranges
    // and splits, random and sequential, the writes' seed the reads' under verify
    ("--rw=randread --bsrange=4k-16k --size=1m", 0),
    (
        "--rw=randrw --bssplit=4k/50:8k/30:64k/20,16k/70:4k/30 --size=2m",
        0,
    ),
    ("--rw=write --bsrange=1k-7k --size=256k --verify=crc32c", 0),
    // percentage_random: fio's choice per direction of a random or a sequential offset
    (
        "--rw=randread --bs=4k --size=512k --percentage_random=50",
        0,
    ),
    (
        "--rw=randrw --bs=4k --size=512k --percentage_random=30,70",
        0,
    ),
    // a mixed job: one offset generator for both directions
    ("--rw=randrw --bs=4k --size=256k", 0),
    // random_generator=lfsr: fio's register per file (its blocks of the smallest size,
    // the block seed), no random map, also with norandommap; each loop starts it over
    // from its seed (the first value of the first loop takes one step more); sizes of
    // a range are drawn after its block, and a pass ends when the register has given
    // every block (fewer bytes than size with a range)
    ("--rw=randread --bs=4k --size=256k --random_generator=lfsr", 0),
    ("--rw=randwrite --bs=8k --size=512k --random_generator=lfsr", 0),
    (
        "--rw=randread --bs=4k --size=256k --random_generator=lfsr --norandommap",
        0,
    ),
    (
        "--rw=randread --bs=4k --size=400k --random_generator=lfsr --loops=3 --randrepeat=0 --randseed=1",
        0,
    ),
    (
        "--rw=randread --bsrange=4k-16k --size=192k --random_generator=lfsr --loops=3",
        0,
    ),
    // nrfiles with each file service: random draws the file from fio's
    // next_file_state (seeded from the file slot, again each loop), a file found full
    // costs an offset draw and is done; a loop starts with a file picked afresh
    (
        "--rw=randread --bs=4k --size=192k --nrfiles=3 --file_service_type=random",
        0,
    ),
    (
        "--rw=randread --bs=4k --size=192k --nrfiles=3 --file_service_type=random:4 --loops=2",
        0,
    ),
    (
        "--rw=randread --bs=4k --size=192k --nrfiles=3 --file_service_type=roundrobin:5 --loops=2",
        0,
    ),
    (
        "--rw=randread --bs=4k --size=192k --nrfiles=3 --file_service_type=sequential --loops=2",
        0,
    ),
    (
        "--rw=randread --bsrange=4k-16k --size=192k --nrfiles=3 --file_service_type=random --random_generator=lfsr --loops=2",
        0,
    ),
    // a time-based job goes round its map many times (a draw lost at each full map)
    (
        "--rw=randread --bs=4k --size=32k --ioengine=null --time_based --runtime=300ms",
        400,
    ),
];

#[test]
fn a_seeded_random_job_visits_fios_offsets_in_fios_order() {
    require_fio();
    for (opts, limit) in JOBS {
        let mut args = vec!["--name=a", "--ioengine=psync"];
        if !opts.contains("nrfiles") {
            // (several files: fio's names a.0.N, in the log as such)
            args.push("--filename=f");
        }
        args.extend(opts.split_whitespace());
        args.push("--write_iolog=a.log");
        let limit = if *limit == 0 { usize::MAX } else { *limit };
        same_offsets(&args, &["a.log"], limit);
    }
    // two threads of one job and a second job: threads 1, 2 and 3 seeded apart
    let jobs = "[global]\nrw=randread\nbs=4k\nsize=128k\nioengine=psync\n\
                [a]\nfilename=fa\nnumjobs=2\nwrite_iolog=a.log\n\
                [b]\nfilename=fb\nwrite_iolog=b.log\n";
    let d = scratch();
    std::fs::write(d.path().join("jobs.fio"), jobs).unwrap();
    let path = d.path().join("jobs.fio");
    same_offsets(&[path.to_str().unwrap()], &["b.log"], usize::MAX);
}
