//! Random offsets as fio 3.33 draws them: each job thread's uniform offsets come from
//! fio's `random_state` (taus88, or taus258 with `random_generator=tausworthe64`), seeded
//! `0xb1899bed·T` under `randrepeat` whatever `randseed` says, else from the job's
//! seeds; a block is `lastb · r / (max + 1)`, a used one gives way to the next free
//! block after it (wrapping), a full map in a time-based job costs one draw before the
//! new pass, and each loop seeds again (src/run/gen/frand.rs, src/run/worker/fio/request.rs);
//! the sizes of `bsrange`/`bssplit` come from fio's per-direction generators likewise,
//! and so do the non-uniform distributions (zipf, pareto, normal, zoned, zoned_abs) and
//! the file services (src/run/gen/skew.rs). So a seeded random job's `write_iolog` is
//! fio's, request by request.

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
pub(super) fn same_offsets(args: &[&str], logs: &[&str], limit: usize) {
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

/// fio 3.33's non-uniform distributions (src/run/gen/skew.rs, `SlotGen`'s zones): zipf,
/// pareto and normal from each file's own state, seeded by the hash of its name times
/// the thread number (`randrepeat`, else the offsets' seed) and never seeded again;
/// zones drawn from `zone_state`, the block inside one from `random_state`, both
/// seeded again each loop; no random map for any of them, `norandommap` or not.
const DISTRIBUTIONS: &[&str] = &[
    "--rw=randread --bs=4k --size=1m --random_distribution=zipf:1.2",
    "--rw=randwrite --bs=4k --size=1m --random_distribution=zipf:0.8 --norandommap",
    "--rw=randread --bs=4k --size=1m --random_distribution=pareto:0.9 --norandommap",
    "--rw=randwrite --bs=8k --size=1m --random_distribution=pareto:0.3",
    "--rw=randread --bs=4k --size=1m --random_distribution=normal:10",
    "--rw=randwrite --bs=4k --size=1m --random_distribution=normal:40 --norandommap",
    "--rw=randread --bs=4k --size=1m --random_distribution=zoned:60/10:30/20:10/70",
    "--rw=randwrite --bs=4k --size=1m --random_distribution=zoned:50/33:50/67 --norandommap",
    "--rw=randread --bs=4k --size=1m --random_distribution=zoned_abs:60/128k:40/896k --norandommap",
    "--rw=randwrite --bs=16k --size=1m --random_distribution=zoned_abs:20/512k:80/512k",
    // one state for both directions of a mix; sizes drawn after the offset
    "--rw=randrw --bs=4k --size=1m --random_distribution=zipf:1.1",
    "--rw=randread --bsrange=4k-16k --size=1m --random_distribution=pareto:0.7",
    // blocks of the reads' 4k: a write at block b goes to b × 16k, and one past the
    // file ends the job (fio's get_next_offset)
    "--rw=randrw --bs=4k,16k --size=256k --random_distribution=zipf:1.2",
    "--rw=randrw --bs=4k,16k --size=256k --random_distribution=zoned:50/50:50/50",
    // without randrepeat: the offsets' seed slot
    "--rw=randread --bs=4k --size=512k --randrepeat=0 --randseed=99 --random_distribution=zipf:1.3",
    "--rw=randread --bs=4k --size=512k --randrepeat=0 --randseed=99 --random_distribution=zoned:80/20:20/80",
    // loops: zipf goes on, zones repeat
    "--rw=randread --bs=4k --size=256k --loops=3 --random_distribution=zipf:1.2",
    "--rw=randwrite --bs=4k --size=256k --loops=2 --random_distribution=zoned:70/30:30/70",
    "--rw=randread --bs=4k --size=256k --loops=2 --random_distribution=normal:5 --ioengine=mmap",
];

#[test]
fn zipf_pareto_normal_and_zones_draw_fios_offsets() {
    require_fio();
    for opts in DISTRIBUTIONS {
        let mut args = vec!["--name=a", "--filename=f", "--ioengine=psync"];
        args.extend(opts.split_whitespace());
        args.push("--write_iolog=a.log");
        same_offsets(&args, &["a.log"], usize::MAX);
    }
    // files named by fio (a.0.0, …) under file_service_type: each file's own state,
    // the file drawn from fio's unhashed state over nrfiles << 10 ranks
    for fst in ["zipf:1.2", "pareto:0.5", "normal:30", "random"] {
        let fst = format!("--file_service_type={fst}");
        let args = [
            "--name=a",
            "--nrfiles=4",
            "--rw=randread",
            "--bs=4k",
            "--size=512k",
            "--random_distribution=zipf:1.1",
            &fst,
            "--write_iolog=a.log",
        ];
        same_offsets(&args, &["a.log"], usize::MAX);
    }
    // threads 1 to 3 of two jobs, two loops: thread 3's seeds from its number
    for dist in ["zipf:1.2", "pareto:0.9", "normal:20", "zoned:60/10:40/90"] {
        let jobs = format!(
            "[global]\nrw=randread\nbs=4k\nsize=256k\nioengine=psync\nloops=2\n\
             random_distribution={dist}\n\
             [a]\nfilename=fa\nnumjobs=2\nwrite_iolog=a.log\n\
             [b]\nfilename=fb\nwrite_iolog=b.log\n"
        );
        let d = scratch();
        let path = d.path().join("jobs.fio");
        std::fs::write(&path, jobs).unwrap();
        same_offsets(&[path.to_str().unwrap()], &["b.log"], usize::MAX);
    }
}
