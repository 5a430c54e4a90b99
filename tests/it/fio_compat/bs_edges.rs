//! Block sizes at the edges of fio 3.33's rules: the end of a sequential pass with
//! several sizes, and random mixed jobs whose directions have different smallest sizes.
//!
//! - Sequential: fio draws a request's size after its offset, among the sizes that fit
//!   before the file's end (`get_next_buflen`: a `bssplit` entry that does not fit gives
//!   its share to the next one by percentage), so a pass ends with small requests that
//!   fill the file exactly; a file at its end is done and round robin goes on with the
//!   others. (iomark drew the size first and cut the last request to what was left:
//!   fewer requests, sizes not in the split, and with several files a file started over
//!   while others were unfinished.)
//! - `rw=randrw` with `bs=4k,16k`: each direction's offsets are whole multiples of its
//!   own smallest size (fio's `ba[ddir]`), while the random map counts blocks of the
//!   smallest size of all; fio checks and marks map block `b` for a write drawn as block
//!   `b` of 16k, and a write whose next free block lies past the file's end ends the
//!   file — so such a job moves well under `size`. (iomark drew every offset at 4k and
//!   moved the whole `size`.)
//!
//! `seq_rule` and `mixed_rule` compute fio's rules independently; iomark as `fio` must
//! give their mean request counts (within 4 standard errors), and so must fio when it is
//! installed. fio's runs use `randrepeat=0`: fio 3.33's `randseed=1..N` give only a few
//! distinct offset streams (seeds 1, 3, 4, 7 and 8 draw the same blocks), so a mean over
//! them is not a mean over independent runs. fio's size draws are fewer still: whatever
//! the seed, `rw=read bssplit=4k/50:64k/50 size=1m` takes 31 or 46 requests in fio 3.33,
//! so fio's sequential runs are held to the rule's range and its mean within one standard
//! deviation, iomark's (independent draws) within 4 standard errors.

use crate::util::*;
use std::path::Path;

const KIB: u64 = 1024;

/// xorshift64, uniform in `[0, n)` by modulo (the bias is far below the tolerances).
struct Rnd(u64);

impl Rnd {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// fio's size draw with `room` bytes left: the split in fio's order (by percentage,
/// ascending), the first entry whose running sum passes the draw and that fits; drawn
/// again when the entry reached does not fit.
fn draw(split: &[(u64, u64)], room: u64, r: &mut Rnd) -> u64 {
    loop {
        let (x, mut sum, mut pick) = (r.below(100), 0, 0);
        for &(s, p) in split {
            (pick, sum) = (s, sum + p);
            if x < sum && s <= room {
                break;
            }
        }
        if pick <= room {
            return pick;
        }
    }
}

/// One sequential pass of fio's rule over `len` bytes: the request sizes.
fn seq_rule(split: &[(u64, u64)], len: u64, r: &mut Rnd) -> Vec<u64> {
    let (mut o, mut sizes) = (0, Vec::new());
    while o < len {
        let b = draw(split, len - o, r);
        sizes.push(b);
        o += b;
    }
    sizes
}

/// One run of fio's rule for `rw=randrw` (50 % reads), `bs=R,W` over `blocks` map
/// blocks of `R` bytes (R < W, W a multiple of R): (reads, writes) until `size` bytes
/// moved, the map is full, or a write's next free block lies past the end.
fn mixed_rule(blocks: u64, (rb, wb): (u64, u64), r: &mut Rnd) -> (u64, u64) {
    let mut used = vec![false; blocks as usize];
    let (mut n, mut bytes, mut ios) = (0, 0, (0, 0));
    while bytes < blocks * rb && n < blocks {
        let write = r.below(2) == 1;
        let unit = if write { wb } else { rb };
        let mut b = r.below(blocks * rb / unit);
        while used[b as usize] {
            b = (b + 1) % blocks;
        }
        if (b + 1) * unit > blocks * rb {
            break; // fio: the file is done
        }
        used[b as usize] = true;
        n += 1;
        bytes += unit;
        if write {
            ios.1 += 1;
        } else {
            ios.0 += 1;
        }
    }
    ios
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n).sqrt(),
    )
}

/// One run of `prog` with `args` and `--write_iolog`: per direction the requests as
/// (file, offset, size), checked against the JSON report's counts.
fn one_run(prog: Iomark, dir: &Path, args: &[&str]) -> [Vec<(String, u64, u64)>; 2] {
    // each run its own log and directory (a log is appended to)
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let i = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let log = dir.join(format!("io{i}.log"));
    let sub = dir.join(format!("d{i}"));
    std::fs::create_dir_all(&sub).unwrap();
    let out = prog
        .dir(dir)
        .args(["--name=bs", "--randrepeat=0", "--output-format=json"])
        .arg(format!("--directory={}", sub.display()))
        .arg(format!("--write_iolog={}", log.display()))
        .args(args)
        .run();
    let json = out.ok().json();
    let text = std::fs::read_to_string(&log).unwrap();
    let reqs = |dir: &str| -> Vec<(String, u64, u64)> {
        text.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(|w| w.len() == 5 && w[2] == dir)
            .map(|w| {
                (
                    w[1].to_string(),
                    w[3].parse().unwrap(),
                    w[4].parse().unwrap(),
                )
            })
            .collect()
    };
    let got = [reqs("read"), reqs("write")];
    for (k, d) in ["read", "write"].iter().enumerate() {
        let ios: u64 = json["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j[d]["total_ios"].as_u64().unwrap())
            .sum();
        assert_eq!(got[k].len() as u64, ios, "{d}: {args:?}");
    }
    let _ = std::fs::remove_dir_all(&sub);
    got
}

/// Whether fio is here to be compared too.
fn with_fio(test: &str) -> Vec<(&'static str, bool)> {
    let mut who = vec![("iomark", false)];
    if need_fio(test) {
        who.push(("fio 3.33", true));
    }
    who
}

fn prog(fio: bool, d: &Path) -> Iomark {
    if fio {
        fio_cmd()
    } else {
        as_fio(d)
    }
}

/// `got` within 4 standard errors (of `runs` runs, standard deviation `sd`) of `want`.
fn near(who: &str, what: &str, got: f64, (want, sd): (f64, f64), runs: usize) {
    let tol = 4.0 * sd / (runs as f64).sqrt();
    assert!(
        (got - want).abs() <= tol,
        "{who}: {what} {got:.1} a run, fio's rule {want:.1} ± {tol:.1}"
    );
}

/// (split in the job's words, the split in fio's order, files, bytes per file)
type Case = (&'static str, &'static [(u64, u64)], u64, u64);

#[test]
fn a_sequential_pass_ends_with_the_sizes_that_fit_and_fills_every_file_once() {
    let cases: [Case; 3] = [
        ("4k/50:64k/50", &[(4 * KIB, 50), (64 * KIB, 50)], 1, 1 << 20),
        ("4k/10:64k/90", &[(4 * KIB, 10), (64 * KIB, 90)], 1, 1 << 20),
        (
            "4k/20:16k/30:128k/50",
            &[(4 * KIB, 20), (16 * KIB, 30), (128 * KIB, 50)],
            4,
            512 * KIB,
        ),
    ];
    let d = scratch();
    let runs = 24;
    for (split, order, files, len) in cases {
        let mut r = Rnd(0x9e37_79b9_7f4a_7c15);
        let rule: Vec<f64> = (0..4000)
            .map(|_| {
                (0..files)
                    .map(|_| seq_rule(order, len, &mut r).len())
                    .sum::<usize>() as f64
            })
            .collect();
        let lo = rule.iter().copied().fold(f64::MAX, f64::min);
        let hi = rule.iter().copied().fold(0.0, f64::max);
        let rule = mean_sd(&rule);
        let size = format!("--size={}", files * len);
        let nr = format!("--nrfiles={files}");
        let bss = format!("--bssplit={split}");
        let args = ["--rw=read", bss.as_str(), size.as_str(), nr.as_str()];
        for (who, fio) in with_fio("a_sequential_pass_ends_with_the_sizes_that_fit") {
            let counts: Vec<f64> = (0..runs)
                .map(|_| {
                    let [reads, _] = one_run(prog(fio, d.path()), d.path(), &args);
                    // every file read exactly once, in sizes of the split only
                    let mut per_file = std::collections::BTreeMap::new();
                    for (f, o, s) in &reads {
                        assert!(order.iter().any(|e| e.0 == *s), "{who} {split}: size {s}");
                        assert!(o + s <= len, "{who} {split}: {o}+{s} past {len}");
                        *per_file.entry(f.clone()).or_insert(0) += s;
                    }
                    assert_eq!(per_file.len() as u64, files, "{who} {split}");
                    assert!(per_file.values().all(|&b| b == len), "{who}: {per_file:?}");
                    let n = reads.len() as f64;
                    assert!(
                        (lo..=hi).contains(&n),
                        "{who} {split}: {n} not in {lo}..{hi}"
                    );
                    n
                })
                .collect();
            let (m, _) = mean_sd(&counts);
            // fio's few streams: one standard deviation (as if from one run)
            let n = if fio { 1 } else { runs };
            near(who, &format!("{split}: requests"), m, rule, n);
        }
    }
}

#[test]
fn randrw_offsets_follow_each_directions_smallest_size_and_the_map_ends_the_file() {
    // bs=4k,16k over 1 MiB: 256 map blocks of 4k; writes drawn among 64 blocks of 16k
    let mut r = Rnd(0x2545_f491_4f6c_dd1d);
    let rule: Vec<(u64, u64)> = (0..8000)
        .map(|_| mixed_rule(256, (4 * KIB, 16 * KIB), &mut r))
        .collect();
    let reads = mean_sd(&rule.iter().map(|x| x.0 as f64).collect::<Vec<_>>());
    let writes = mean_sd(&rule.iter().map(|x| x.1 as f64).collect::<Vec<_>>());
    // the rule: about 38 of each, so about 760 KiB of the 1 MiB (fio 3.33 measured over
    // 100 runs: 37.4 reads, 36.8 writes)
    assert!((30.0..46.0).contains(&reads.0), "{reads:?}");
    let d = scratch();
    let runs = 40;
    let args = ["--rw=randrw", "--bs=4k,16k", "--size=1m"];
    for (who, fio) in with_fio("randrw_offsets_follow_each_directions_smallest_size") {
        let mut n = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let [rd, wr] = one_run(prog(fio, d.path()), d.path(), &args);
            assert!(rd.iter().all(|x| x.1 % (4 * KIB) == 0 && x.2 == 4 * KIB));
            assert!(
                wr.iter().all(|x| x.1 % (16 * KIB) == 0 && x.2 == 16 * KIB),
                "{who}: a write off the 16k grid: {wr:?}"
            );
            n.0.push(rd.len() as f64);
            n.1.push(wr.len() as f64);
        }
        near(who, "reads", mean_sd(&n.0).0, reads, runs);
        near(who, "writes", mean_sd(&n.1).0, writes, runs);
    }
    // without the map nothing ends a file early: the whole size, at the same grids
    let args = ["--rw=randrw", "--bs=4k,16k", "--size=1m", "--norandommap"];
    let [rd, wr] = one_run(as_fio(d.path()), d.path(), &args);
    let bytes: u64 = rd.iter().chain(&wr).map(|x| x.2).sum();
    assert!(bytes >= 1 << 20, "{bytes}");
    assert!(wr.iter().all(|x| x.1 % (16 * KIB) == 0));
}
