//! The read/write split of mixed jobs (`rw=rw`, `readwrite`, `randrw`, `rw:N`, with
//! `rwmixread`/`rwmixwrite`): fio 3.33 picks each request's direction from its own mix
//! generator seeded from the job's seeds, in runs of one direction (io_u.c's
//! `get_rw_ddir`), so a size-bounded job seeded alike issues the same directions in the
//! same order. iomark follows the rule (src/run/gen/rwmix.rs): for generated jobs each
//! direction's `total_ios` and the order of `write_iolog`'s requests are fio's, and so
//! are their offsets, sequential walks and random ones (fio's offset generator,
//! tests/it/fio_compat/random_offsets.rs).

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// One generated job: its options (beyond name, file and outputs).
struct Case {
    args: Vec<String>,
}

/// The jobs: every `rwmixread` of {0, 10, 50, 70, 100} (half given as `rwmixwrite`)
/// over sequential, random and holed shapes, block sizes (one, or one per direction
/// where the walk is fio's), sizes, psync at depth 1 and libaio at depth 8, default
/// seeds and `randseed=`.
fn cases() -> Vec<Case> {
    // (rw, bs, size)
    const SHAPES: [(&str, &str, &str); 6] = [
        ("rw", "4k", "256k"),
        ("randrw", "4k", "512k"),
        ("rw:8k", "4k", "1m"),
        ("readwrite", "4k,16k", "1m"),
        ("randrw", "8k", "1m"),
        ("rw", "8k", "2m"),
    ];
    const MIXES: [u32; 5] = [0, 10, 50, 70, 100];
    let mut out = Vec::new();
    for i in 0..30usize {
        let (rw, bs, size) = SHAPES[i % SHAPES.len()];
        let mix = MIXES[(i / 2 + i) % MIXES.len()];
        let (engine, depth) = if (i / 3) % 2 == 0 {
            ("psync", "1")
        } else {
            ("libaio", "8")
        };
        let mut args = vec![
            format!("--rw={rw}"),
            format!("--bs={bs}"),
            format!("--size={size}"),
            format!("--ioengine={engine}"),
            format!("--iodepth={depth}"),
        ];
        args.push(if i % 2 == 0 {
            format!("--rwmixread={mix}")
        } else {
            format!("--rwmixwrite={}", 100 - mix)
        });
        if (i / 5) % 2 == 1 {
            args.push(format!("--randseed={}", 1000 + i));
        }
        out.push(Case { args });
    }
    out
}

/// What a job did: each direction's `total_ios` (read, write) and the requests of its
/// `write_iolog` in order, as `r`/`w` and offset.
#[derive(Debug, PartialEq)]
struct Done {
    ios: [u64; 2],
    order: String,
    offsets: Vec<u64>,
}

/// Runs `case` with `cmd` in `dir` (made fresh).
fn run_case(cmd: Iomark, dir: &Path, case: &Case) -> Done {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut args = vec![
        "--name=m".to_string(),
        "--filename=m.dat".to_string(),
        "--write_iolog=io.log".to_string(),
        "--output-format=json".to_string(),
    ];
    args.extend(case.args.iter().cloned());
    let o = cmd.dir(dir).args(&args).run();
    assert_eq!(o.code, 0, "{args:?}: {}", o.dump());
    let at = o.stdout.find('{').expect("a JSON report");
    let doc: Value = serde_json::from_str(&o.stdout[at..]).unwrap();
    let j = &doc["jobs"][0];
    let ios = ["read", "write"].map(|d| j[d]["total_ios"].as_u64().unwrap());
    let log = std::fs::read_to_string(dir.join("io.log")).unwrap();
    let (mut order, mut offsets) = (String::new(), Vec::new());
    for l in log.lines() {
        // version 3: `TIME FILE ACTION OFFSET LENGTH`
        let p: Vec<&str> = l.split_whitespace().collect();
        if p.len() == 5 && (p[2] == "read" || p[2] == "write") {
            order.push(if p[2] == "read" { 'r' } else { 'w' });
            offsets.push(p[3].parse().unwrap());
        }
    }
    Done {
        ios,
        order,
        offsets,
    }
}

/// fio 3.33's directions for `--rw=randrw --bs=4k --size=256k` with default seeds (its
/// write_iolog; fio's rule gives the same for `rw=rw`): iomark issues the same order
/// whether or not fio is installed here.
#[test]
fn default_seed_split_is_fios() {
    let d = scratch();
    let case = Case {
        args: ["--rw=randrw", "--bs=4k", "--size=256k", "--ioengine=psync"]
            .map(String::from)
            .to_vec(),
    };
    let got = run_case(as_fio(d.path()), &d.path().join("m"), &case);
    assert_eq!(
        got.order,
        "rrrwrrwwwrwrwrrrwwrrwwwwrwrwwwwrrwrwwrrwwrwrrwwrwwwrrwrwrwwrrwww"
    );
    assert_eq!(got.ios, [29, 35]);
}

/// The generated jobs side by side with fio 3.33: each direction's `total_ios`, the
/// order of the requests and their offsets are fio's.
#[test]
fn generated_mixed_jobs_split_as_fio() {
    if !need_fio("generated_mixed_jobs_split_as_fio") {
        return;
    }
    let d = scratch();
    let mut bad = Vec::new();
    for (i, case) in cases().iter().enumerate() {
        let io = run_case(as_fio(d.path()), &d.path().join("iomark"), case);
        let fio = run_case(fio_cmd(), &d.path().join("fio"), case);
        let same = io.ios == fio.ios && io.order == fio.order && io.offsets == fio.offsets;
        if !same {
            bad.push(format!(
                "job {i} {:?}: iomark {:?} {}, fio {:?} {}",
                case.args, io.ios, io.order, fio.ios, fio.order
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A sequential mix with `verify=` on psync runs fio's rounds, each to the file's end
/// of the direction drawn, the mix's draws starting over each round: `size=1m
/// io_size=4m` is fio 3.33's 976 reads (two rounds of 488 read back) and 512 writes.
#[test]
fn verify_rounds_of_a_sequential_mix_are_fios() {
    let d = scratch();
    let case = Case {
        args: [
            "--rw=rw",
            "--bs=4k",
            "--size=1m",
            "--io_size=4m",
            "--verify=crc32c",
            "--ioengine=psync",
        ]
        .map(String::from)
        .to_vec(),
    };
    let got = run_case(as_fio(d.path()), &d.path().join("m"), &case);
    assert_eq!(got.ios, [976, 512]);
    if need_fio("verify_rounds_of_a_sequential_mix_are_fios") {
        let fio = run_case(fio_cmd(), &d.path().join("fio"), &case);
        assert_eq!(got, fio);
    }
}

/// A sequential mix (`rw`, `readwrite`) walks the files from one position per direction,
/// so neither direction reaches a file's end before the job's size is issued: fio 3.33
/// ends it by the bytes issued, at `size` whole blocks or not — ⌈size / bs⌉ requests
/// (`bs=3k size=1m`: 342, where a read alone stops at the file's 341 whole blocks;
/// `size=256k nrfiles=3`: 64 over files of 87381 bytes), `loops` times. Side by side with
/// fio, on psync and on libaio at depth 4; the counts are also checked against the
/// arithmetic.
#[test]
fn a_sequential_mix_issues_its_whole_size_as_fio() {
    require_fio();
    let d = scratch();
    // (options, size, bs, loops)
    let jobs: [(&str, u64, u64, u64); 5] = [
        ("--rw=rw --bs=3k --size=1m", 1 << 20, 3072, 1),
        (
            "--rw=rw --bs=4k --size=256k --nrfiles=3",
            256 << 10,
            4096,
            1,
        ),
        (
            "--rw=readwrite --bs=3k --size=1m --nrfiles=2 --rwmixread=90",
            1 << 20,
            3072,
            1,
        ),
        (
            "--rw=rw --bs=4k --size=256k --nrfiles=3 --loops=2",
            256 << 10,
            4096,
            2,
        ),
        (
            "--rw=rw --bs=3k --size=1m --ioengine=libaio --iodepth=4",
            1 << 20,
            3072,
            1,
        ),
    ];
    for (opts, size, bs, loops) in jobs {
        let args: Vec<&str> = opts.split(' ').collect();
        let [ours, fio] = ["iomark", "fio"].map(|tool| {
            let (cmd, _) = fio_or_ours_in(tool, d.path());
            let o = cmd
                .args(["--name=m", "--output-format=json"])
                .args(&args)
                .run();
            assert_eq!(o.code, 0, "{tool} {opts}: {}", o.dump());
            let j = &o.json_doc()["jobs"][0];
            ["read", "write"].map(|d| j[d]["total_ios"].as_u64().unwrap())
        });
        assert_eq!(ours, fio, "{opts}");
        assert_eq!(ours[0] + ours[1], size.div_ceil(bs) * loops, "{opts}");
    }
}
