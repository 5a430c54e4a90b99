//! `openfiles` below `nrfiles`, for every engine, as fio 3.33: at most that many of a
//! job's files take requests at once; a file is opened when the file service picks it
//! and closed when its pass is done (once its requests in flight completed), and the
//! next file opens then. `write_iolog` shows it (`open`/`close` lines); the verify
//! phase opens every file again, whatever the limit. Each case runs iomark as `fio`,
//! checks it against the sequence fio's rule gives, then against fio 3.33 when it is
//! installed (skipped with the reason if not).

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// Run `args` with fio 3.33 (`fio`) or iomark as `fio` in `dir` (made fresh); its
/// stdout.
fn run_in(root: &Path, dir: &Path, fio: bool, args: &[&str]) -> String {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let cmd = if fio { fio_cmd() } else { as_fio(root) };
    let o = cmd.dir(dir).args(args).run();
    assert_eq!(o.code, 0, "fio={fio} {args:?}: {}", o.dump());
    o.stdout
}

/// `(total_ios, io_bytes)` of reads and writes of the first job of a JSON report.
fn totals(stdout: &str) -> [u64; 4] {
    let v: Value = serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
    let j = &v["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
    [
        n("read", "total_ios"),
        n("read", "io_bytes"),
        n("write", "total_ios"),
        n("write", "io_bytes"),
    ]
}

/// The lines of a `write_iolog` file without their times: `NAME ACTION [OFFSET LEN]`,
/// the file named by its last character (`j.0.2` → `2`).
fn iolog(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let p: Vec<&str> = l.split_whitespace().collect();
            let f = &p[1][p[1].len() - 1..];
            let mut s = format!("{f} {}", p[2]);
            if p.len() == 5 {
                s += &format!(" {}", p[3]);
            }
            s
        })
        .collect()
}

/// Most files open at once in an I/O log's lines ([`iolog`]) before its first read.
fn most_open(log: &[String]) -> usize {
    let (mut open, mut most) = (0usize, 0usize);
    for l in log {
        if l.ends_with("open") {
            open += 1;
            most = most.max(open);
        } else if l.ends_with("close") {
            open -= 1;
        } else if l.contains(" read") {
            break;
        }
    }
    most
}

/// Three files of 16k written sequentially, 4k a request, two open at once, then read
/// back and verified: round robin serves files 0 and 1 (file 2 cannot be opened) until
/// both are done and closed, then file 2; the verify phase opens all three. Today's
/// fio 3.33 writes this log line for line; iomark refused the job before (exit 2).
#[test]
fn two_open_files_of_three_take_turns_then_the_third() {
    let d = scratch();
    let mut want: Vec<String> = vec!["0 add".into(), "1 add".into(), "2 add".into()];
    want.extend(["0 open".into(), "0 write 0".into(), "1 open".into()]);
    want.push("1 write 0".into());
    for o in [4096, 8192, 12288] {
        want.push(format!("0 write {o}"));
        want.push(format!("1 write {o}"));
    }
    want.extend(["0 close".into(), "1 close".into(), "2 open".into()]);
    want.extend((0..4).map(|b| format!("2 write {}", b * 4096)));
    want.push("2 close".into());
    for f in 0..3 {
        want.push(format!("{f} open"));
        want.extend((0..4).map(|b| format!("{f} read {}", b * 4096)));
    }
    want.extend((0..3).map(|f| format!("{f} close")));
    for engine in ["psync", "libaio", "io_uring", "posixaio"] {
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            "--nrfiles=3",
            "--openfiles=2",
            "--size=48k",
            "--bs=4k",
            "--rw=write",
            "--verify=md5",
            "--write_iolog=io.log",
            "--output-format=json",
            &e,
        ];
        for fio in [false, true] {
            if fio && !need_fio("two_open_files_of_three_take_turns_then_the_third") {
                continue;
            }
            let dir = d.path().join(if fio { "fio" } else { "iomark" });
            let got = totals(&run_in(d.path(), &dir, fio, &args));
            assert_eq!(got, [12, 49152, 12, 49152], "fio={fio} {engine}");
            assert_eq!(iolog(&dir.join("io.log")), want, "fio={fio} {engine}");
        }
    }
}

/// At depth 8 on libaio the files take turns as above, and a done file is closed only
/// once its requests in flight complete: never more than `openfiles` open in the write
/// phase, every block written once, the totals fio's.
#[test]
fn a_done_file_closes_when_its_queue_drains() {
    let d = scratch();
    for (svc, open) in [("roundrobin", "2"), ("sequential", "1"), ("random", "2")] {
        let s = format!("--file_service_type={svc}");
        let o = format!("--openfiles={open}");
        let args = [
            "--name=j",
            "--nrfiles=4",
            &o,
            "--size=256k",
            "--bs=4k",
            "--rw=randwrite",
            "--ioengine=libaio",
            "--iodepth=8",
            "--direct=0",
            &s,
            "--write_iolog=io.log",
            "--output-format=json",
        ];
        for fio in [false, true] {
            if fio && !need_fio("a_done_file_closes_when_its_queue_drains") {
                continue;
            }
            let dir = d.path().join(if fio { "fio" } else { "iomark" });
            let got = totals(&run_in(d.path(), &dir, fio, &args));
            assert_eq!(got, [0, 0, 64, 262144], "fio={fio} {svc}");
            let log = iolog(&dir.join("io.log"));
            assert_eq!(
                most_open(&log),
                open.parse::<usize>().unwrap(),
                "fio={fio} {svc}: {log:?}"
            );
            let mut blocks: Vec<&String> = log.iter().filter(|l| l.contains("write")).collect();
            blocks.sort();
            blocks.dedup();
            assert_eq!(blocks.len(), 64, "fio={fio} {svc}: a block written twice");
            // every file opened once and closed once
            for f in 0..4 {
                for act in ["open", "close"] {
                    let n = log.iter().filter(|l| **l == format!("{f} {act}")).count();
                    assert_eq!(n, 1, "fio={fio} {svc}: {f} {act} in {log:?}");
                }
            }
        }
    }
}

/// Four files of 16 KiB read twice (`loops=2`), two open at once, at depth 4 with
/// O_DIRECT so that requests are still in flight when a loop's last one is issued:
/// fio 3.33 reaps them all before the loop's files close (do_io, then
/// `clear_io_state`), so each loop starts again on files 0 and 1 — round robin over
/// 0 and 1 until both are done, then 2 and 3. iomark started the second loop on files
/// 2 and 1 (the first loop's last files were still closing).
#[test]
fn the_second_loop_starts_on_the_first_files_as_fios() {
    let mut want: Vec<String> = (0..4).map(|f| format!("{f} add")).collect();
    for _ in 0..2 {
        for pair in [[0, 1], [2, 3]] {
            for (i, b) in (0..4).flat_map(|b| [(0, b), (1, b)]) {
                let f = pair[i];
                if b == 0 {
                    want.push(format!("{f} open"));
                }
                want.push(format!("{f} read {}", b * 4096));
            }
            want.extend(pair.map(|f| format!("{f} close")));
        }
    }
    let d = scratch();
    for engine in ["libaio", "io_uring"] {
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            "--nrfiles=4",
            "--openfiles=2",
            "--loops=2",
            "--size=64k",
            "--bs=4k",
            "--rw=read",
            "--iodepth=4",
            "--direct=1",
            "--filename_format=f.$filenum",
            "--write_iolog=io.log",
            "--output-format=json",
            &e,
        ];
        for fio in [false, true] {
            if fio {
                require_fio();
            }
            let dir = d.path().join(if fio { "fio" } else { "iomark" });
            let got = totals(&run_in(d.path(), &dir, fio, &args));
            assert_eq!(got, [32, 131072, 0, 0], "fio={fio} {engine}");
            assert_eq!(iolog(&dir.join("io.log")), want, "fio={fio} {engine}");
        }
    }
}
