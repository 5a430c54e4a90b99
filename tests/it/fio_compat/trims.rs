//! The trim direction's own values, side by side with fio 3.33: the third part of `bs`,
//! `bsrange`, `bssplit` (the header's `(T)` sizes and the JSON `job options`), the
//! trims of size-bounded `trim`, `randtrim`, `trimwrite` and `randtrimwrite` jobs on a
//! loop device (fio trims with `BLKDISCARD`, which a regular file refuses), counted
//! and sized per direction as fio counts them, and the trim part of the rates (the
//! fixup's `minimum rate exceeds rate, ddir 2` line and the pacing of trims).

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// `who` (`"fio"` or iomark as fio) running `args` in a directory of its own under `d`.
fn one(who: &str, d: &Path, args: &[&str]) -> Out {
    side_in(who, d, &d.join(format!("{who}-run")), args)
}

/// The header's `(R) A-B, (W) C-D, (T) E-F` of a run's text output.
fn sizes(out: &Out) -> String {
    let line = out.stdout.lines().find(|l| l.contains("bs=(R) "));
    let line = line.unwrap_or_else(|| panic!("no header line:\n{}", out.dump()));
    let from = line.find("(R) ").unwrap();
    let to = line.find(", ioengine=").unwrap();
    line[from..to].to_string()
}

/// The one job of a JSON document on stdout.
fn json_job(out: &Out) -> Value {
    let at = out
        .stdout
        .find('{')
        .unwrap_or_else(|| panic!("{}", out.dump()));
    let doc: Value = serde_json::from_str(&out.stdout[at..]).unwrap();
    doc["jobs"][0].clone()
}

/// Three-part sizes give each direction its own: the header's `(R)`, `(W)`, `(T)` and
/// the JSON `job options` under iomark as `fio` are fio 3.33's, and the trim size is
/// the third part (or the last part given), not the write size.
#[test]
fn three_part_sizes_show_the_trim_size_as_fio() {
    let d = scratch();
    let cases: &[(&str, &str)] = &[
        (
            "--bs=1k,2k,3k",
            "(R) 1024B-1024B, (W) 2048B-2048B, (T) 3072B-3072B",
        ),
        (
            "--bs=1k,,2k",
            "(R) 1024B-1024B, (W) 4096B-4096B, (T) 2048B-2048B",
        ),
        (
            "--bsrange=1k-2k,2k-4k,512-1k",
            "(R) 1024B-2048B, (W) 2048B-4096B, (T) 512B-1024B",
        ),
        (
            "--bsrange=1k-2k,2k-4k",
            "(R) 1024B-2048B, (W) 2048B-4096B, (T) 2048B-4096B",
        ),
        (
            "--bssplit=1k/50:2k/50,4k,8k/100",
            "(R) 1024B-2048B, (W) 4096B-4096B, (T) 8192B-8192B",
        ),
        (
            "--bssplit=1k,,2k",
            "(R) 1024B-1024B, (W) 4096B-4096B, (T) 2048B-2048B",
        ),
    ];
    let fio = need_fio("three_part_sizes_show_the_trim_size_as_fio");
    for (arg, want) in cases {
        let base = [
            "--name=a",
            "--ioengine=null",
            "--rw=randrw",
            "--size=64k",
            arg,
        ];
        let ours = one("iomark", d.path(), &base);
        assert_eq!(ours.code, 0, "{}", ours.dump());
        assert_eq!(sizes(&ours), *want, "{arg}");
        let json: Vec<&str> = base
            .iter()
            .copied()
            .chain(["--output-format=json"])
            .collect();
        let opts = json_job(&one("iomark", d.path(), &json))["job options"].clone();
        let given = arg.trim_start_matches("--").split_once('=').unwrap();
        assert_eq!(opts[given.0], given.1, "{arg}");
        if fio {
            let theirs = one("fio", d.path(), &base);
            assert_eq!(sizes(&ours), sizes(&theirs), "{arg}");
            let theirs = json_job(&one("fio", d.path(), &json))["job options"].clone();
            assert_eq!(opts, theirs, "{arg}");
        }
    }
}

/// (total_ios, io_bytes) of read, write and trim.
type Counts = [(u64, u64); 3];

/// Per direction of a job's JSON entry: (total_ios, io_bytes) of read, write, trim.
fn counts(job: &Value) -> Counts {
    ["read", "write", "trim"].map(|d| (as_u64(&job[d]["total_ios"]), as_u64(&job[d]["io_bytes"])))
}

/// `args` run on the loop device `dev` by iomark as `fio` and, with `fio`, by fio;
/// each job's per-direction counts.
fn on_device(d: &Path, dev: &Path, args: &[&str], fio: bool) -> (Counts, Option<Counts>) {
    let file = format!("--filename={}", dev.display());
    let allow = format!("--allow-destructive-write={}", dev.display());
    let mut base = vec![
        "--name=t",
        file.as_str(),
        "--size=64k",
        "--output-format=json",
    ];
    base.extend(args);
    let mut ours = base.clone();
    ours.push(allow.as_str());
    let o = one("iomark", d, &ours);
    assert_eq!(o.code, 0, "{args:?}: {}", o.dump());
    let theirs = fio.then(|| {
        let f = one("fio", d, &base);
        assert_eq!(f.code, 0, "{args:?}: {}", f.dump());
        counts(&json_job(&f))
    });
    (counts(&json_job(&o)), theirs)
}

/// Size-bounded trim jobs (64 KiB of a loop device) trim at the trim size: `trim` and
/// `randtrim` move `size` in trims of the third part; `trimwrite` walks the trims and
/// the writes each at its own size (fio's set_rw_ddir: a trim when the last write
/// started where the last trim did), so trims of 2k and writes of 1k are 32 trims and
/// 63 writes, trims of 1k and writes of 2k 2 trims and 32 writes; `randtrimwrite`
/// writes each trimmed block at the trim's size; `randtrim bs=1k,,2k` ends early, as
/// fio's random map does. Every count and byte total is fio's.
#[test]
fn trim_jobs_trim_at_the_trim_size_as_fio() {
    let test = "trim_jobs_trim_at_the_trim_size_as_fio";
    if let Some(why) = loop_skip_reason() {
        skip(format_args!("{test}: {why}"));
        return;
    }
    // (without fio the counts are still checked against the rule above)
    let fio = need_fio(test);
    let size = 64 * 1024;
    let dev = LoopDev::new(16 << 20, None);
    let d = scratch();
    let (k1, k2) = (1024, 2048);
    // (arguments, iomark's own (read, write, trim) counts by the rule above)
    let cases: &[(&[&str], Counts)] = &[
        (
            &["--rw=trim", "--bs=1k,,2k"],
            [(0, 0), (0, 0), (size / k2, size)],
        ),
        (
            &["--rw=randtrim", "--bs=4k,4k,2k"],
            [(0, 0), (0, 0), (size / k2, size)],
        ),
        // a trim size above the smallest: the map (of 1k blocks, indexed by the trim's
        // own block number) ends the file when a draw's next free block lies past its
        // end — after fio 3.33's 25 trims, since the draws are fio's
        (
            &["--rw=randtrim", "--bs=1k,,2k"],
            [(0, 0), (0, 0), (25, 25 * k2)],
        ),
        (
            &["--rw=trimwrite", "--bs=1k,1k,2k"],
            [(0, 0), (size / k1 - 1, size - k1), (size / k2, size)],
        ),
        (
            &["--rw=trimwrite", "--bs=1k,2k,1k"],
            [(0, 0), (size / k2, size), (2, 2 * k1)],
        ),
        (
            &["--rw=randtrimwrite", "--bs=4k,4k,2k"],
            [(0, 0), (size / k2, size), (size / k2, size)],
        ),
        (
            &["--rw=randtrimwrite", "--bs=1k,2k,1k"],
            [(0, 0), (size / k1, size), (size / k1, size)],
        ),
        // trims larger than the writes: each write takes its trim's size (its buffer
        // holds it), and the map of 1k blocks ends the file early, after fio 3.33's
        // draws (its counts)
        (
            &["--rw=randtrimwrite", "--bs=1k,2k,8k"],
            [(0, 0), (6, 6 * 8 * k1), (6, 6 * 8 * k1)],
        ),
        (
            &["--rw=randtrimwrite", "--bsrange=1k-2k,2k-4k,4k-16k"],
            [(0, 0), (8, 44 * k1), (8, 44 * k1)],
        ),
        (
            &[
                "--rw=randtrimwrite",
                "--bssplit=1k,2k/50:4k/50,8k/30:16k/70",
            ],
            [(0, 0), (4, 48 * k1), (4, 48 * k1)],
        ),
    ];
    for (args, want) in cases {
        let (ours, theirs) = on_device(d.path(), &dev.dev, args, fio);
        assert_eq!(ours, *want, "{args:?}");
        if let Some(theirs) = theirs {
            assert_eq!(ours, theirs, "{args:?}: iomark vs fio");
        }
    }
}

/// The trim part of a rate is the trims': a trim minimum above the trim rate is
/// refused with fio's `ddir 2` line (and a write one with `ddir 1`), and `rate_iops`'s
/// third part paces the trims — 8 trims at 20 per second take at least 7/20 s, in fio
/// and iomark alike.
#[test]
fn the_trim_rate_part_is_the_trims() {
    let test = "the_trim_rate_part_is_the_trims";
    let d = scratch();
    let fio = need_fio(test);
    for (rates, lines) in [
        (
            ["--rate=,,1m", "--rate_min=,,2m"],
            "fio: minimum rate exceeds rate, ddir 2\n",
        ),
        (
            ["--rate=1m,2m", "--rate_min=,3m,1m"],
            "fio: minimum rate exceeds rate, ddir 1\n",
        ),
    ] {
        let mut args = vec!["--name=a", "--ioengine=null", "--rw=randrw", "--size=64k"];
        args.extend(rates);
        let ours = one("iomark", d.path(), &args);
        assert_eq!(
            (ours.code, ours.stderr.as_str()),
            (1, lines),
            "{}",
            ours.dump()
        );
        if fio {
            let theirs = one("fio", d.path(), &args);
            assert_eq!((ours.code, &ours.stderr), (theirs.code, &theirs.stderr));
        }
    }
    if let Some(why) = loop_skip_reason() {
        skip(format_args!("{test}: {why}"));
        return;
    }
    let dev = LoopDev::new(16 << 20, None);
    let file = format!("--filename={}", dev.dev.display());
    let allow = format!("--allow-destructive-write={}", dev.dev.display());
    let args = [
        "--name=t",
        &file,
        "--rw=trim",
        "--bs=4k",
        "--size=32k",
        "--rate_iops=,,20",
        "--output-format=json",
    ];
    let mut ours: Vec<&str> = args.to_vec();
    ours.push(&allow);
    let mut runs = vec![("iomark", json_job(&one("iomark", d.path(), &ours)))];
    if fio {
        runs.push(("fio", json_job(&one("fio", d.path(), &args))));
    }
    for (who, job) in runs {
        let (trims, ms) = (
            as_u64(&job["trim"]["total_ios"]),
            as_u64(&job["job_runtime"]),
        );
        assert_eq!(trims, 8, "{who}");
        // the 8th trim is due 7/20 s after the first (a lower bound: load only adds)
        assert!(
            ms >= 7 * 1000 / 20 - 5,
            "{who}: {ms} ms for 8 trims at 20/s"
        );
        assert_eq!(job["job options"]["rate_iops"], ",,20", "{who}");
    }
}
