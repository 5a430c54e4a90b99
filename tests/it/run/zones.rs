//! `iomark run` offsets and zones, end to end through the binary with per-I/O logs
//! (`write_iops_log` + `log_offset=1`): zonemode=strided and zbd (write pointers, open
//! zone limit, resets, reads below the write pointer, trims), the `z` size suffix,
//! random_distribution=sequence, rw=read:-8k, random_generator, and exact byte counts
//! with bsrange/bssplit. Expected offsets are fio 3.33's, taken from `--write_iolog`
//! runs of the same jobs (the rule each test pins is spelled out next to it).

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

const K: u64 = 1024;

use crate::util::*;

/// One logged I/O: (ddir 0 read / 1 write, bytes, offset).
type Io = (u8, u64, u64);

/// Per-I/O log of thread 1 of a job whose log prefix is `prefix`.
fn ios(dir: &Path, prefix: &str) -> Vec<Io> {
    ios_of(dir, prefix, 1)
}

/// Per-I/O log `PREFIX_iops.N.log` (N: fio's thread number over all jobs, from 1).
fn ios_of(dir: &Path, prefix: &str, n: u32) -> Vec<Io> {
    std::fs::read_to_string(dir.join(format!("{prefix}_iops.{n}.log")))
        .unwrap()
        .lines()
        .map(|l| {
            let c: Vec<u64> = l.split(", ").map(|x| x.parse().unwrap()).collect();
            (c[2] as u8, c[3], c[4])
        })
        .collect()
}

/// Run a job on the null engine with a per-I/O log; returns the log and fio JSON.
fn run_logged(dir: &Path, args: &[&str]) -> (Vec<Io>, Value) {
    let log = format!("--write_iops_log={}", dir.join("l").display());
    let mut a = vec!["--output-format=json", "--log_offset=1", log.as_str()];
    a.extend_from_slice(args);
    let out = run(dir, &a).ok().stdout;
    let v: Value = serde_json::from_str(&out).unwrap();
    (ios(dir, "l"), v)
}

fn blocks(ios: &[Io], bs: u64) -> Vec<u64> {
    ios.iter().map(|x| x.2 / bs).collect()
}

#[test]
fn strided_reads_zonesize_then_skips_zoneskip() {
    let d = scratch();
    // fio: 16 KiB per zone, next zone 16k + 48k further, wraps at the end; 64 reads
    let (l, _) = run_logged(
        d.path(),
        &[
            "--name=s",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=256k",
            "--zonemode=strided",
            "--zonesize=16k",
            "--zoneskip=48k",
        ],
    );
    let want: Vec<u64> = (0..64).map(|k| (k / 4) % 4 * 16 + k % 4).collect();
    assert_eq!(blocks(&l, 4 * K), want);
    // zonerange larger than zonesize: the same offsets (zone = 64k, 16k of it read)
    let (l, _) = run_logged(
        d.path(),
        &[
            "--name=s",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=256k",
            "--zonemode=strided",
            "--zonesize=16k",
            "--zonerange=64k",
        ],
    );
    assert_eq!(blocks(&l, 4 * K), want);
    // zonesize larger than zonerange: each 8k zone is read twice (fio: 0 1 0 1 2 3 2 3 …)
    let (l, _) = run_logged(
        d.path(),
        &[
            "--name=s",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=128k",
            "--zonemode=strided",
            "--zonesize=16k",
            "--zonerange=8k",
        ],
    );
    let want: Vec<u64> = (0..32).map(|k| k / 4 * 2 + k % 2).collect();
    assert_eq!(blocks(&l, 4 * K), want);
}

#[test]
fn strided_random_takes_each_block_of_a_zone_once_per_visit() {
    let d = scratch();
    let (l, _) = run_logged(
        d.path(),
        &[
            "--name=s",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=256k",
            "--zonemode=strided",
            "--zonesize=16k",
            "--zoneskip=48k",
        ],
    );
    let b = blocks(&l, 4 * K);
    assert_eq!(b.len(), 64);
    for (v, visit) in b.chunks(4).enumerate() {
        let zone = v as u64 % 4;
        let mut s = visit.to_vec();
        s.sort_unstable();
        assert_eq!(
            s,
            (0..4).map(|i| zone * 16 + i).collect::<Vec<_>>(),
            "visit {v}"
        );
    }
}

#[test]
fn strided_zones_run_past_the_region_to_the_end_of_the_file() {
    // fio 3.33 (--write_iolog): with size=8z zonesize=16k zonerange=64k on a 1 MiB file,
    // 16 KiB are read from each of 8 zones 64 KiB apart (0 … 448 KiB), past the 128 KiB
    // region; on a 256 KiB file the zones start over at its end (0 … 192 KiB, twice);
    // from offset=896k they start over at the region start (896k, 960k, 896k, …)
    let d = scratch();
    std::fs::write(d.path().join("f1m"), vec![3u8; 1 << 20]).unwrap();
    std::fs::write(d.path().join("f256k"), vec![3u8; 256 << 10]).unwrap();
    let zoned = |file: &str, extra: &[&str]| {
        let name = format!("--filename={file}");
        let mut a = vec![
            "--name=z",
            name.as_str(),
            "--rw=read",
            "--bs=4k",
            "--size=8z",
            "--zonemode=strided",
            "--zonesize=16k",
            "--zonerange=64k",
        ];
        a.extend_from_slice(extra);
        run_logged(d.path(), &a)
    };
    let (l, v) = zoned("f1m", &[]);
    let want: Vec<u64> = (0..32).map(|k| k / 4 * 16 + k % 4).collect();
    assert_eq!(blocks(&l, 4 * K), want);
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 128 * K);
    let (l, _) = zoned("f256k", &[]);
    let want: Vec<u64> = (0..32).map(|k| (k / 4) % 4 * 16 + k % 4).collect();
    assert_eq!(blocks(&l, 4 * K), want);
    let (l, _) = zoned("f1m", &["--offset=896k"]);
    let want: Vec<u64> = (0..32).map(|k| 224 + (k / 4) % 2 * 16 + k % 4).collect();
    assert_eq!(blocks(&l, 4 * K), want);
    // the mmap engine too (it maps the file up to the zones' end)
    let (l, _) = zoned("f1m", &["--ioengine=mmap"]);
    assert_eq!(
        blocks(&l, 4 * K),
        (0..32).map(|k| k / 4 * 16 + k % 4).collect::<Vec<_>>()
    );
    let want: Vec<u64> = (0..32).map(|k| (k / 4) % 2 * 16 + k % 4).collect();
    // a new file is laid out to the region, so the zones stay in it (fio alike)
    let (l, _) = zoned("fnew", &[]);
    assert_eq!(blocks(&l, 4 * K), want);
    assert_eq!(
        std::fs::metadata(d.path().join("fnew")).unwrap().len(),
        128 * K
    );
}

/// Replay zbd writes: every write is at its zone's write pointer or at the zone start
/// after a reset; returns (resets seen, the most zones partly written at once).
fn replay_zbd_writes(l: &[Io], zs: u64) -> (u64, usize) {
    let mut wp: HashMap<u64, u64> = HashMap::new();
    let (mut resets, mut most_open) = (0u64, 0usize);
    for &(dir, len, off) in l.iter().filter(|x| x.0 == 1) {
        assert_eq!(dir, 1);
        let z = off / zs;
        let w = wp.entry(z).or_insert(0);
        if off == z * zs + *w {
            *w += len;
        } else {
            assert_eq!(
                off,
                z * zs,
                "write at {off} is neither at the write pointer {} nor a reset",
                z * zs + *w
            );
            resets += 1;
            *w = len;
        }
        assert!(*w <= zs, "write at {off} crosses the zone end");
        let open = wp.values().filter(|&&w| w > 0 && w < zs).count();
        most_open = most_open.max(open);
    }
    (resets, most_open)
}

#[test]
fn zbd_random_writes_go_to_write_pointers_of_at_most_max_open_zones() {
    let d = scratch();
    let (l, v) = run_logged(
        d.path(),
        &[
            "--name=z",
            "--ioengine=null",
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--zonemode=zbd",
            "--zonesize=16k",
            "--max_open_zones=2",
        ],
    );
    assert_eq!(l.len(), 64);
    let (resets, most_open) = replay_zbd_writes(&l, 16 * K);
    assert!(most_open <= 2, "{most_open} zones open at once");
    assert_eq!(v["jobs"][0]["zone_resets"], resets);
    assert_eq!(v["jobs"][0]["write"]["io_bytes"], 256 * K);
    // the zones really are picked at random: more than two of the 16 were written
    let zones: std::collections::BTreeSet<u64> = l.iter().map(|x| x.2 / (16 * K)).collect();
    assert!(zones.len() > 2, "{zones:?}");
}

#[test]
fn zbd_reset_threshold_and_frequency_reset_zones_like_a_gc() {
    let d = scratch();
    // threshold 0: always above it; frequency 0.5: every 2nd write resets its zone
    let (l, v) = run_logged(
        d.path(),
        &[
            "--name=z",
            "--ioengine=null",
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--zonemode=zbd",
            "--zonesize=64k",
            "--zone_reset_threshold=0",
            "--zone_reset_frequency=0.5",
        ],
    );
    // 64 writes, every 2nd one resets its zone first: 32 resets (the 64k zones never
    // fill between them)
    assert_eq!(l.len(), 64);
    assert_eq!(v["jobs"][0]["zone_resets"], 32);
    // a reset of an empty zone leaves no trace in the offsets, the others do
    let (seen, _) = replay_zbd_writes(&l, 64 * K);
    assert!((8..=32).contains(&seen), "{seen}");
    // without the threshold options no zone is reset (64 KiB zones, 16 writes each)
    let (l, v) = run_logged(
        d.path(),
        &[
            "--name=z",
            "--ioengine=null",
            "--rw=randwrite",
            "--bs=4k",
            "--size=64k",
            "--zonemode=zbd",
            "--zonesize=64k",
        ],
    );
    assert_eq!(replay_zbd_writes(&l, 64 * K).0, 0);
    assert_eq!(v["jobs"][0]["zone_resets"], 0);
    assert_eq!(blocks(&l, 4 * K), (0..16).collect::<Vec<_>>());
}

#[test]
fn zbd_reads_stay_below_the_write_pointer_and_trims_reset_zones() {
    let d = scratch();
    let p = |n: &str| d.path().join(n).display().to_string();
    let job = format!(
        "[global]\nfilename={}\nioengine=null\nzonemode=zbd\nzonesize=16k\nbs=4k\nlog_offset=1\n\
         [w]\nrw=write\nsize=40k\nwrite_iops_log={}\n\
         [r]\nstonewall\nrw=read\nsize=256k\nwrite_iops_log={}\n\
         [rr]\nstonewall\nrw=randread\nsize=256k\nwrite_iops_log={}\n\
         [t]\nstonewall\nrw=randtrim\nbs=16k\nsize=256k\n",
        p("f"),
        p("w"),
        p("r"),
        p("rr")
    );
    std::fs::write(d.path().join("z.fio"), job).unwrap();
    let out = run(d.path(), &["--output-format=json", "z.fio"]);
    let v: Value = serde_json::from_str(&out.ok().stdout).unwrap();
    let err = out.stderr;
    // fio rounds size=40k down to 2 zones of 16k (and says so)
    assert!(err.contains("rounded down to whole zones"), "{err}");
    assert_eq!(
        blocks(&ios(d.path(), "w"), 4 * K),
        (0..8).collect::<Vec<_>>()
    );
    // a sequential read reads the 8 written blocks, then has nothing left (fio: eof)
    // (logs are numbered by fio's thread number over all jobs: w 1, r 2, rr 3)
    assert_eq!(
        blocks(&ios_of(d.path(), "r", 2), 4 * K),
        (0..8).collect::<Vec<_>>()
    );
    // random reads: 64 of them, all below the write pointer (fio 3.33 draws them in
    // [zone start, wp - bs], so blocks 3 and 7 are never read)
    let rr = blocks(&ios_of(d.path(), "rr", 3), 4 * K);
    assert_eq!(rr.len(), 64);
    assert!(rr.iter().all(|&b| b < 8 && b != 3 && b != 7), "{rr:?}");
    // trims reset the two written zones, then find nothing else to trim
    let t = &v["jobs"][3];
    assert_eq!(t["jobname"], "t");
    assert_eq!(t["trim"]["total_ios"], 2);
    assert_eq!(t["zone_resets"], 2);
    // a read job on zones nothing wrote does no I/O (fio ends it at once)
    let (l, v) = run_logged(
        d.path(),
        &[
            "--name=e",
            "--ioengine=null",
            "--rw=read",
            "--size=64k",
            "--zonemode=zbd",
            "--zonesize=16k",
        ],
    );
    assert!(l.is_empty());
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 0);
    // read_beyond_wp=1 reads everything
    let (l, _) = run_logged(
        d.path(),
        &[
            "--name=e",
            "--ioengine=null",
            "--rw=read",
            "--size=64k",
            "--zonemode=zbd",
            "--zonesize=16k",
            "--read_beyond_wp=1",
        ],
    );
    assert_eq!(l.len(), 16);
}

#[test]
fn zbd_on_a_real_file_writes_sequentially_within_zones() {
    let d = scratch();
    let out = run(
        d.path(),
        &[
            "--name=z",
            "--rw=randwrite",
            "--bs=4k",
            "--size=128k",
            "--zonemode=zbd",
            "--zonesize=32k",
            "--max_open_zones=1",
            "--write_iops_log=l",
            "--log_offset=1",
        ],
    );
    let text = out.ok().stdout;
    // fio's normal output names the resets on the write line
    assert!(text.contains("zone resets"), "{text}");
    let l = ios(d.path(), "l");
    assert_eq!(l.len(), 32);
    // one open zone: the writes fill one zone after the other
    let (_, most_open) = replay_zbd_writes(&l, 32 * K);
    assert_eq!(most_open, 1);
    for w in l.chunks(8) {
        let z = w[0].2 / (32 * K);
        let b: Vec<u64> = w.iter().map(|x| x.2).collect();
        assert_eq!(
            b,
            (0..8).map(|i| z * 32 * K + i * 4 * K).collect::<Vec<_>>()
        );
    }
}

#[test]
fn z_suffix_counts_zones() {
    let d = scratch();
    let (l, v) = run_logged(
        d.path(),
        &[
            "--name=z",
            "--ioengine=null",
            "--rw=write",
            "--bs=4k",
            "--zonemode=zbd",
            "--zonesize=16k",
            "--size=2z",
            "--offset=3z",
        ],
    );
    assert_eq!(v["jobs"][0]["write"]["io_bytes"], 32 * K);
    assert_eq!(blocks(&l, 4 * K), (12..20).collect::<Vec<_>>());
    // without zonesize the suffix has no meaning: a usage error naming the key
    let o = run(d.path(), &["--name=z", "--ioengine=null", "--size=2z"]);
    assert_eq!(o.code, 2);
    let e = o.stderr;
    assert!(e.contains("size=2z") && e.contains("zonesize"), "{e}");
}

#[test]
fn zbd_bad_combinations_are_named() {
    let d = scratch();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--bs=32k", "--zonesize=16k"],
            "larger than zonesize=16384",
        ),
        (&["--zonemode=zbd"], "needs zonesize="),
        (
            &["--rw=randtrim", "--zonesize=16k"],
            "bs must be zonesize=16384",
        ),
        (&["--size=12k", "--zonesize=16k"], "no whole zone"),
        (
            &["--zonemode=none", "--zonesize=16k"],
            "zonemode=none and zonesize are not compatible",
        ),
        (&["--zonemode=diagonal"], "accepted: none, strided, zbd"),
    ];
    for (extra, want) in cases {
        let mut a = vec![
            "--name=z",
            "--ioengine=null",
            "--size=64k",
            "--zonemode=zbd",
        ];
        a.extend_from_slice(extra);
        let o = run(d.path(), &a);
        let e = o.stderr;
        assert_eq!(o.code, 2, "{extra:?}: {e}");
        assert!(e.contains(want), "{extra:?}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "{e}");
    }
}

#[test]
fn sequence_distribution_repeats_or_progresses() {
    let d = scratch();
    let ex = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/peer-tests/fio-examples/sequence-distribution.fio");
    let text = std::fs::read_to_string(ex).unwrap();
    // the example's two jobs, each with its own log
    let text = text
        .replace(
            "[repeating_sequence]",
            "[repeating_sequence]\nwrite_iops_log=a\nlog_offset=1",
        )
        .replace(
            "[strided_sequence]",
            "[strided_sequence]\nwrite_iops_log=b\nlog_offset=1",
        );
    std::fs::write(d.path().join("s.fio"), text).unwrap();
    run(d.path(), &["s.fio"]).ok();
    // the example's comments: 2, 0, 1, 2, 0, 1 and 2, 0, 1, 5, 3, 4
    assert_eq!(blocks(&ios(d.path(), "a"), 4 * K), vec![2, 0, 1, 2, 0, 1]);
    // the second job is fio's thread 2, so its log is b_iops.2.log
    assert_eq!(
        blocks(&ios_of(d.path(), "b", 2), 4 * K),
        vec![2, 0, 1, 5, 3, 4]
    );
    let o = run(
        d.path(),
        &[
            "--name=x",
            "--ioengine=null",
            "--size=64k",
            "--random_distribution=sequence:1,x",
        ],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("random_distribution"));
}

#[test]
fn negative_skip_goes_backwards_and_wraps_like_fio() {
    let d = scratch();
    // fio 3.33 --write_iolog: rw=read:-8k, bs=4k over 64k reads blocks
    // 0, 14, 13, …, 1, 0 (it wraps to end - 8k, never reaching block 15)
    let backwards = |extra: &[&str]| {
        let base = ["--name=b", "--ioengine=null", "--rw=read:-8k", "--bs=4k"];
        let (l, _) = run_logged(d.path(), &[&base[..], extra].concat());
        blocks(&l, 4 * K)
    };
    let mut want = vec![0u64];
    want.extend((0..15).rev());
    assert_eq!(backwards(&["--size=64k"]), want);
    // with offset=32k: 8, 14, 13, …, 8
    let mut want = vec![8u64];
    want.extend((8..15).rev());
    assert_eq!(backwards(&["--size=32k", "--offset=32k"]), want);
}

#[test]
fn bsrange_and_bssplit_move_exactly_size() {
    let d = scratch();
    // sequential bsrange: the last request is shortened to fit (fio: 94208 + 8192)
    let (l, v) = run_logged(
        d.path(),
        &[
            "--name=b",
            "--ioengine=null",
            "--rw=read",
            "--bsrange=4k-16k",
            "--size=100k",
        ],
    );
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 100 * K);
    assert_eq!(l.iter().map(|x| x.1).sum::<u64>(), 100 * K);
    let last = l.last().unwrap();
    assert_eq!(last.2 + last.1, 100 * K);
    // random bssplit with the random map: every 4k block exactly once
    let (l, v) = run_logged(
        d.path(),
        &[
            "--name=b",
            "--ioengine=null",
            "--rw=randread",
            "--bssplit=4k/50:16k/50",
            "--size=100k",
        ],
    );
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 100 * K);
    let mut seen = vec![0u32; 25];
    for &(_, len, off) in &l {
        assert_eq!(len % (4 * K), 0);
        for b in off / (4 * K)..(off + len) / (4 * K) {
            seen[b as usize] += 1;
        }
    }
    assert!(seen.iter().all(|&s| s == 1), "{seen:?}");
    // the split's sizes, a request shortened to the free blocks at its offset as fio's
    // map does (fio 3.33 issues this job's 17 requests: 13 of 4k, two of 16k and two
    // shortened to 8k), never past the split's largest (public case C13)
    let sizes: Vec<u64> = l.iter().map(|x| x.1).collect();
    assert!(
        sizes.iter().all(|&b| b % (4 * K) == 0 && b <= 16 * K),
        "{l:?}"
    );
    assert!(sizes.contains(&(16 * K)), "no 16k request at all: {l:?}");
    assert_eq!(sizes.iter().filter(|&&b| b == 4 * K).count(), 13, "{l:?}");
}

#[test]
fn random_generator_lfsr_keeps_every_block_once_without_a_map() {
    let d = scratch();
    let run = |g: &str| {
        let log = format!("--write_iops_log={}", d.path().join(g).display());
        let o = run(
            d.path(),
            &[
                "--name=g",
                "--ioengine=null",
                "--rw=randread",
                "--bs=4k",
                "--size=256k",
                "--norandommap=1",
                &format!("--random_generator={g}"),
                "--log_offset=1",
                &log,
            ],
        );
        o.ok();
        let mut b = blocks(&ios(d.path(), g), 4 * K);
        b.sort_unstable();
        (b, o.stderr.clone())
    };
    let (b, err) = run("lfsr");
    assert_eq!(b, (0..64).collect::<Vec<_>>());
    assert!(err.contains("random_generator=lfsr"), "{err}");
    // tausworthe with norandommap: blocks repeat (and a notice says what iomark does)
    let (b, err) = run("tausworthe");
    assert_eq!(b.len(), 64);
    assert!(b.windows(2).any(|w| w[0] == w[1]), "no repeat: {b:?}");
    assert!(err.contains("random_generator=tausworthe"), "{err}");
}

#[test]
fn sprandom_writes_every_block_then_overwrites_by_region() {
    let d = scratch();
    let (l, v) = run_logged(
        d.path(),
        &[
            "--name=p",
            "--ioengine=null",
            "--rw=randwrite",
            "--bs=4k",
            "--size=4m",
            "--norandommap=1",
            "--sprandom=1",
            "--spr_op=0.15",
            "--spr_num_regions=10",
        ],
    );
    // 1024 blocks; physical size 4 MiB + ⌈15%⌉ = 1178 blocks of 4k at most
    let phys = (4u64 << 20) + ((4u64 << 20) as f64 * 0.15).ceil() as u64;
    let phys_blocks = phys.div_ceil(4 * K);
    let mut seen = vec![0u32; 1024];
    for &(_, len, off) in &l {
        assert_eq!(len, 4 * K);
        seen[(off / (4 * K)) as usize] += 1;
    }
    // every block once, plus the overwrites that invalidate data; the stream ends at
    // P bytes (fio's io_size) at the latest
    assert!(seen.iter().all(|&c| c >= 1), "a block was never written");
    let n = l.len() as u64;
    assert!(n <= phys_blocks, "{n} writes vs {phys_blocks}");
    let over = n - 1024;
    assert!(over > 50, "{over} overwrites");
    assert_eq!(v["jobs"][0]["write"]["io_bytes"], n * 4 * K);
    // fio's requirements are named
    for (extra, want) in [
        ("--rw=randread", "needs rw=randwrite"),
        ("--norandommap=0", "needs norandommap=1"),
        (
            "--random_generator=tausworthe",
            "needs random_generator=lfsr",
        ),
        ("--spr_op=1.5", "spr_op"),
        ("--spr_num_regions=100000", "too many"),
    ] {
        let o = run(
            d.path(),
            &[
                "--name=p",
                "--ioengine=null",
                "--rw=randwrite",
                "--bs=4k",
                "--size=64k",
                "--norandommap=1",
                "--sprandom=1",
                extra,
            ],
        );
        let e = o.stderr;
        assert_eq!(o.code, 2, "{extra}: {e}");
        assert!(e.contains(want), "{extra}: {e}");
    }
}
