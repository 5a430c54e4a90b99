//! Random jobs with several block sizes and fio's random map: how many requests a pass
//! takes and of which sizes. fio 3.33 picks the offset first (uniform over the blocks of
//! the smallest size; a used block moves on to the next free one), then a size among
//! those that fit before the file's end (a `bssplit` entry that does not fit gives its
//! share to the next one by percentage), then shortens the request to the free blocks
//! from its offset. `fio_rule` below computes that independently; iomark as `fio` must
//! give its distribution of request counts and sizes, and so must fio when installed.
//! (iomark drew the size first and kept only the split's sizes: about 1700 requests for
//! 16 MiB at 4k/50:64k/30:1m/20, where fio issues about 320.)

use crate::util::*;
use std::collections::BTreeMap;
use std::path::Path;

const KIB: u64 = 1024;
/// 16 MiB in 4 KiB blocks
const BLOCKS: u64 = 4096;
/// the split in fio's order: by percentage, ascending
const SPLIT: [(u64, u64); 3] = [(1024 * KIB, 20), (64 * KIB, 30), (4 * KIB, 50)];

/// One pass of fio's rule over the 16 MiB file: the request sizes, in bytes.
fn fio_rule(seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    let mut rnd = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut used = vec![false; BLOCKS as usize];
    let (mut left, mut sizes) = (BLOCKS, Vec::new());
    while left > 0 {
        let mut b = rnd(BLOCKS);
        while used[b as usize] {
            b = (b + 1) % BLOCKS;
        }
        let room = (BLOCKS - b) * 4 * KIB;
        let size = loop {
            let (r, mut sum, mut pick) = (rnd(100), 0, 0);
            for (s, p) in SPLIT {
                (pick, sum) = (s, sum + p);
                if r < sum && s <= room {
                    break;
                }
            }
            if pick <= room {
                break pick;
            }
        };
        let mut k = 0;
        while k < size / (4 * KIB) && b + k < BLOCKS && !used[(b + k) as usize] {
            used[(b + k) as usize] = true;
            k += 1;
        }
        left -= k;
        sizes.push(k * 4 * KIB);
    }
    sizes
}

/// Mean and standard deviation of request counts, and the share of 4 KiB and 64 KiB
/// requests, over passes given as their request sizes.
fn summary(passes: &[Vec<u64>]) -> (f64, f64, f64, f64) {
    let n = passes.len() as f64;
    let counts: Vec<f64> = passes.iter().map(|p| p.len() as f64).collect();
    let mean = counts.iter().sum::<f64>() / n;
    let sd = (counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n).sqrt();
    let all: Vec<u64> = passes.iter().flatten().copied().collect();
    let share = |s: u64| all.iter().filter(|&&x| x == s).count() as f64 / all.len() as f64;
    (mean, sd, share(4 * KIB), share(64 * KIB))
}

/// The request sizes of one run of `prog` (iomark as fio, or fio) with `--write_iolog`,
/// checked against the JSON report's request count and the file's size.
fn one_run(prog: Iomark, dir: &Path, i: usize) -> Vec<u64> {
    let log = dir.join(format!("io{i}.log"));
    let out = prog
        .dir(dir)
        .args([
            "--name=bs",
            "--rw=randread",
            "--bssplit=4k/50:64k/30:1m/20",
            "--size=16m",
            "--filename=f.dat",
            "--randrepeat=0",
            "--output-format=json",
            &format!("--write_iolog={}", log.display()),
        ])
        .run();
    let ios = out.ok().json()["jobs"][0]["read"]["total_ios"]
        .as_u64()
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let sizes: Vec<u64> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 5 && w[2] == "read")
        .map(|w| w[4].parse().unwrap())
        .collect();
    assert_eq!(sizes.len() as u64, ios, "{text}");
    assert_eq!(sizes.iter().sum::<u64>(), 16 << 20, "one pass of the map");
    sizes
}

/// `runs` passes of `prog` against fio's rule: the mean request count within 4 standard
/// errors of the rule's (the rule's own mean from 2000 passes is exact enough), the 4k
/// and 64k shares within 0.06, every size a whole number of 4 KiB blocks up to 1 MiB.
fn check(who: &str, passes: &[Vec<u64>], rule: (f64, f64, f64, f64)) {
    let (mean, _, s4, s64) = summary(passes);
    let tol = 4.0 * rule.1 / (passes.len() as f64).sqrt();
    assert!(
        (mean - rule.0).abs() < tol,
        "{who}: {mean:.0} requests a pass, fio's rule {:.0} ± {tol:.0}",
        rule.0
    );
    assert!(
        (s4 - rule.2).abs() < 0.06,
        "{who}: 4k share {s4:.3} vs {:.3}",
        rule.2
    );
    assert!(
        (s64 - rule.3).abs() < 0.06,
        "{who}: 64k share {s64:.3} vs {:.3}",
        rule.3
    );
    let mut hist = BTreeMap::new();
    for &s in passes.iter().flatten() {
        *hist.entry(s).or_insert(0u64) += 1;
        assert!(s % (4 * KIB) == 0 && s <= 1024 * KIB, "{who}: size {s}");
    }
    // shortened requests are issued at their free run's size, not only the split's
    assert!(hist.len() > 3, "{who}: {hist:?}");
}

#[test]
fn bssplit_with_the_random_map_issues_fios_number_of_requests() {
    let passes: Vec<Vec<u64>> = (0..2000u64)
        .map(|s| fio_rule(0x9e37_79b9 * (s + 1)))
        .collect();
    let rule = summary(&passes);
    // the rule itself: about 320 requests, half of them 4k (fio 3.33 measured: 322 ± 82
    // over 60 runs, 53 % 4k, 18 % 64k)
    assert!((250.0..400.0).contains(&rule.0), "{rule:?}");
    let d = scratch();
    let ours: Vec<Vec<u64>> = (0..16)
        .map(|i| one_run(as_fio(d.path()), d.path(), i))
        .collect();
    check("iomark", &ours, rule);
    if need_fio("bssplit_with_the_random_map_issues_fios_number_of_requests") {
        let theirs: Vec<Vec<u64>> = (0..16)
            .map(|i| one_run(fio_cmd(), d.path(), 100 + i))
            .collect();
        check("fio 3.33", &theirs, rule);
    }
}
