//! Holed sequential walks (`rw=read:N`, `write:N`, `rw:N`) and the page-cache drops
//! of `invalidate`, as fio 3.33 does them: a walk that passes the file's end goes back
//! to its start until the job's bytes are issued (fio's `get_next_seq_offset`), and
//! a random job without a random map never starts a new pass, so its cache is dropped
//! once. Each case runs iomark as `fio`, checks it against the walk the rule gives,
//! then against Debian's fio when it is installed (skipped with the reason if not).

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// Run `args` with `tool` (`fio`: Debian's; else iomark as `fio`) in `dir` (made
/// fresh); its stdout.
fn run_in(root: &Path, dir: &Path, tool: &str, args: &[&str]) -> String {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let cmd = if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(root)
    };
    let o = cmd.dir(dir).args(args).run();
    assert_eq!(o.code, 0, "{tool} {args:?}: {}", o.dump());
    o.stdout
}

/// `(read ios, read bytes, write ios, write bytes)` of the first job of a JSON report.
fn totals(stdout: &str) -> [u64; 4] {
    let at = stdout
        .find('{')
        .unwrap_or_else(|| panic!("no JSON: {stdout}"));
    let doc: Value = serde_json::from_str(&stdout[at..]).unwrap();
    let j = &doc["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
    [
        n("read", "total_ios"),
        n("read", "io_bytes"),
        n("write", "total_ios"),
        n("write", "io_bytes"),
    ]
}

/// The (direction, offset, length) of each request of a `write_iolog` file.
fn iolog(path: &Path) -> Vec<(String, u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| {
            // version 3: `TIME FILE ACTION OFFSET LENGTH`
            let p: Vec<&str> = l.split_whitespace().collect();
            (p.len() == 5 && (p[2] == "read" || p[2] == "write")).then(|| {
                (
                    p[2].to_string(),
                    p[3].parse().unwrap(),
                    p[4].parse().unwrap(),
                )
            })
        })
        .collect()
}

/// The offsets of a forward holed walk over a fresh file of `size` bytes at offset 0
/// (fio 3.33's rule, written out): each request `bs` bytes, `skip` added after it, back
/// to 0 past the end; `total` bytes in all, or fewer when a request ends exactly at the
/// file's end or the next one would not fit.
fn walk(size: u64, bs: u64, skip: u64, total: u64) -> Vec<u64> {
    let (mut out, mut last) = (Vec::new(), 0u64);
    while (out.len() as u64) * bs < total && last < size {
        let mut pos = last;
        if pos > 0 {
            pos += skip;
            if pos >= size {
                pos = 0;
            }
        }
        if pos + bs > size {
            break;
        }
        out.push(pos);
        last = pos + bs;
    }
    out
}

/// `read:8k`, `write:8k`, `read:16k`, `loops=2`: the walk wraps to the file's start
/// and the job issues its whole `size` (× `loops`): 512 reads of 4 KiB over 2 MiB, not
/// the 171 of one walk; a file whose walk ends exactly at its end is done there
/// (`read:4k size=12k`: 2 reads), one whose next block does not fit too.
#[test]
fn holed_walk_wraps_until_the_size_is_issued() {
    let d = scratch();
    let k = 1024u64;
    // (rw, size, loops)
    let cases: [(&str, u64, u64); 7] = [
        ("read:8k", 2048 * k, 1),
        ("write:8k", 2048 * k, 1),
        ("read:16k", 4096 * k, 1),
        ("read:8k", 2048 * k, 2),
        ("read:4k", 12 * k, 1),
        ("read:4k", 12 * k, 3),
        ("read:6k", 12 * k, 1),
    ];
    let fio = need_fio("holed_walk_wraps_until_the_size_is_issued");
    for (rw, size, loops) in cases {
        let skip: u64 = rw
            .split(':')
            .nth(1)
            .unwrap()
            .trim_end_matches('k')
            .parse::<u64>()
            .unwrap()
            * k;
        let size_arg = format!("--size={}k", size / k);
        let loops_arg = format!("--loops={loops}");
        let args = [
            "--name=a",
            &format!("--rw={rw}"),
            &size_arg,
            "--bs=4k",
            &loops_arg,
            "--filename=w.dat",
            "--write_iolog=io.log",
            "--output-format=json",
        ];
        // the limit is size × loops from the start (fio's io_bytes_exceeded); a walk
        // that ended at the file's end starts over only with another loop
        let limit = size * loops;
        let mut want = Vec::new();
        for _ in 0..loops {
            let left = limit - want.len() as u64 * 4 * k;
            let one = walk(size, 4 * k, skip, left);
            let ended = (one.len() as u64) * 4 * k < left;
            want.extend(one);
            if !ended {
                break;
            }
        }
        let dir = d.path().join("iomark");
        let got = totals(&run_in(d.path(), &dir, "iomark", &args));
        let log = iolog(&dir.join("io.log"));
        let offs: Vec<u64> = log.iter().map(|r| r.1).collect();
        assert_eq!(offs, want, "{rw} size={size} loops={loops}");
        let n = want.len() as u64;
        let bytes = n * 4 * k;
        let expect = if rw.starts_with("write") {
            [0, 0, n, bytes]
        } else {
            [n, bytes, 0, 0]
        };
        assert_eq!(got, expect, "{rw} size={size} loops={loops}");
        if fio {
            let fdir = d.path().join("fio");
            let theirs = totals(&run_in(d.path(), &fdir, "fio", &args));
            assert_eq!(theirs, got, "fio vs iomark: {rw} size={size} loops={loops}");
            assert_eq!(
                iolog(&fdir.join("io.log")),
                log,
                "{rw} size={size} loops={loops}"
            );
        }
    }
}

/// The walk wraps only past the file's real size (its size on disk): over an existing
/// 4 MiB file, `read:8k size=2m` passes the region's 2 MiB first and ends there after
/// one walk (171 reads); with `offset=16k` over a fresh file the walk runs from 16 KiB
/// and ends when a read ends at the file's end.
#[test]
fn holed_walk_ends_at_the_region_or_the_real_end() {
    let d = scratch();
    let k = 1024u64;
    let fio = need_fio("holed_walk_ends_at_the_region_or_the_real_end");
    // (args, a 4 MiB file first, offsets)
    let one_walk = walk(2048 * k, 4 * k, 8 * k, 2048 * k * 4);
    let from_16k: Vec<u64> = walk(64 * k, 4 * k, 8 * k, 64 * k)
        .into_iter()
        .map(|o| o + 16 * k)
        .collect();
    let cases: [(&[&str], bool, Vec<u64>); 2] = [
        (&["--size=2m"], true, one_walk[..171].to_vec()),
        (
            &["--size=64k", "--offset=16k"],
            false,
            from_16k[..6].to_vec(),
        ),
    ];
    for (extra, big, want) in cases {
        let mut args = vec![
            "--name=a",
            "--rw=read:8k",
            "--bs=4k",
            "--filename=w.dat",
            "--write_iolog=io.log",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        let mut logs = Vec::new();
        for tool in ["iomark", "fio"] {
            if tool == "fio" && !fio {
                continue;
            }
            let dir = d.path().join(tool);
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            if big {
                std::fs::write(dir.join("w.dat"), vec![7u8; 4 << 20]).unwrap();
            }
            let cmd = if tool == "fio" {
                fio_cmd()
            } else {
                as_fio(d.path())
            };
            let o = cmd.dir(&dir).args(&args).run();
            assert_eq!(o.code, 0, "{tool} {extra:?}: {}", o.dump());
            let n = want.len() as u64;
            assert_eq!(totals(&o.stdout), [n, n * 4 * k, 0, 0], "{tool} {extra:?}");
            let log = iolog(&dir.join("io.log"));
            let offs: Vec<u64> = log.iter().map(|r| r.1).collect();
            assert_eq!(offs, want, "{tool} {extra:?}");
            logs.push(log);
        }
        if logs.len() == 2 {
            assert_eq!(logs[0], logs[1], "{extra:?}");
        }
    }
}

/// `rw=rw:8k bs=4k size=2m`: reads and writes each walk the file with its holes and
/// wrap past its end; the job issues its 2 MiB (512 requests, fio 242 + 270 in one
/// run: the split is each tool's own mix), and each direction's offsets are the walk's.
#[test]
fn mixed_holed_walk_issues_the_size() {
    let d = scratch();
    let k = 1024u64;
    let args = [
        "--name=a",
        "--rw=rw:8k",
        "--bs=4k",
        "--size=2m",
        "--filename=w.dat",
        "--write_iolog=io.log",
        "--output-format=json",
    ];
    let fio = need_fio("mixed_holed_walk_issues_the_size");
    for tool in ["iomark", "fio"] {
        if tool == "fio" && !fio {
            continue;
        }
        let dir = d.path().join(tool);
        let [r, rb, w, wb] = totals(&run_in(d.path(), &dir, tool, &args));
        assert_eq!(
            (r + w, rb + wb),
            (512, 2048 * k),
            "{tool}: {r} reads, {w} writes"
        );
        assert!(r > 150 && w > 150, "{tool}: {r} reads, {w} writes");
        let log = iolog(&dir.join("io.log"));
        for dir_name in ["read", "write"] {
            let offs: Vec<u64> = log
                .iter()
                .filter(|x| x.0 == dir_name)
                .map(|x| x.1)
                .collect();
            let want = walk(2048 * k, 4 * k, 8 * k, offs.len() as u64 * 4 * k);
            assert_eq!(offs, want, "{tool} {dir_name}");
        }
    }
}

/// How many page-cache drops a job makes, from its `--debug=io` trace (iomark's
/// `declare unneeded cache` lines; fio prints the same words).
fn drops(root: &Path, args: &[&str]) -> usize {
    let dir = root.join("drops");
    let mut a = vec!["--debug=io"];
    a.extend_from_slice(args);
    let out = run_in(root, &dir, "iomark", &a);
    out.lines()
        .filter(|l| l.contains("declare unneeded cache"))
        .count()
}

/// `invalidate`'s drops follow fio 3.33's new passes: a random job without a random
/// map never starts one (fio's `get_next_rand_block` never fails without a map), so
/// `randwrite norandommap` drops the cache once, at its start, over 3 loops or time
/// based alike; a holed walk that ends exactly at the file's end starts over (and
/// drops) at each loop, one that wraps never does.
#[test]
fn cache_drops_follow_fios_passes() {
    let d = scratch();
    let base = [
        "--name=a",
        "--bs=4k",
        "--filename=t.dat",
        "--output-format=terse",
    ];
    let cases: [(&[&str], usize); 4] = [
        (
            &["--rw=randwrite", "--size=1m", "--norandommap", "--loops=3"],
            1,
        ),
        (
            &[
                "--rw=randwrite",
                "--size=256k",
                "--norandommap",
                "--time_based",
                "--runtime=300ms",
            ],
            1,
        ),
        (&["--rw=read:8k", "--size=2m", "--loops=2"], 1),
        (&["--rw=read:4k", "--size=12k", "--loops=3"], 3),
    ];
    for (extra, want) in cases {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        assert_eq!(drops(d.path(), &args), want, "{extra:?}");
    }
}
