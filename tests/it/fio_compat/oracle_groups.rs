//! The oracle's sweep (tests/peer/oracle/oracle.py, 2,000 jobs of seed 24): one
//! test per group of differences fixed to fio 3.33's behaviour — the final syncs are no
//! sync I/O, a job that moved nothing has no text block, `fill_device` keeps a given
//! size, `sync=dsync` / `thp=N` / `atomic=1` on the null engine are accepted, the
//! refusals fio makes (`file_append` with mmap, `zonemode=strided` without `zonesize`),
//! `blockalign` turning the random map off, terse `mixed`, a job done inside its
//! `ramp_time`, the verify reads in `write_iolog`, and how `group_reporting` joins a
//! thread to the entry before it; and from the runs of seeds 71 to 80 (300 jobs each):
//! the fixup lines of `bs_unaligned` and `block_error_percentiles`, the latency logs the
//! `disable_*` keys turn off, a job line's own `unit_base`, and `cmdprio_percentage`'s
//! draws, and a null engine file sized at `size=` over its files. Each runs iomark as `fio` and,
//! where fio 3.33 is installed, the same job under fio, in a directory of its own.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// `args` run by iomark as `fio` and, when installed, by fio 3.33, each in a fresh
/// directory under `root`: (iomark, fio).
fn both(root: &Path, test: &str, args: &[&str]) -> (Out, Option<Out>) {
    let run = |who: &str, cmd: Iomark| {
        let d = root.join(who);
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        cmd.dir(&d).args(args).run()
    };
    let i = run("iomark", as_fio(root));
    let f = need_fio(test).then(|| run("fio", fio_cmd()));
    (i, f)
}

/// The JSON document of a run's stdout.
fn doc(o: &Out) -> Value {
    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.dump()))
}

/// `end_fsync` and `fsync_on_close` are timed inside the run but are not sync I/Os:
/// fio 3.33 accounts syncs only while the job runs, so its JSON `sync.total_ios` is 0
/// and its text has no `fsync/fdatasync/sync_file_range:` block; `fsync=4`'s syncs are
/// sync I/Os.
#[test]
fn final_syncs_are_not_sync_ios_as_in_fio() {
    let d = scratch();
    // (fsync=4 over 16 writes: 3, none after the last write, as fio)
    for (opt, syncs) in [
        ("--end_fsync=1", false),
        ("--fsync_on_close=1", false),
        ("--fsync=4", true),
    ] {
        let args = ["--name=j", "--rw=write", "--bs=4k", "--size=64k", opt];
        let json: Vec<&str> = args
            .iter()
            .copied()
            .chain(["--output-format=json"])
            .collect();
        let (i, f) = both(d.path(), "final syncs", &json);
        let n = |o: &Out| doc(o)["jobs"][0]["sync"]["total_ios"].as_u64().unwrap();
        assert_eq!(n(&i) > 0, syncs, "{opt}: {}", i.stdout);
        if let Some(f) = f {
            assert_eq!(n(&f) > 0, syncs, "{opt}: fio");
        }
        let (t, _) = both(d.path(), "final syncs", &args);
        assert_eq!(
            t.stdout.contains("fsync/fdatasync/sync_file_range:"),
            syncs,
            "{opt}: {}",
            t.stdout
        );
    }
}

/// fio 3.33 makes the sync of `fsync=N` (`fdatasync`, `sync_file_range`) at the job's
/// next request (io_u.c `get_rw_ddir`: writes issued a multiple of N, no request done
/// since the last sync), so none follows a job's last write; a loop that ends finding
/// its file done syncs once more and the next loop syncs at its start. 4 KiB writes,
/// fio's figures (reads, writes, sync.total_ios, read.short_ios = fdatasyncs).
#[test]
fn the_sync_of_a_write_is_made_at_the_next_request_as_fio() {
    let d = scratch();
    for (opts, want) in [
        ("--size=16k --fsync=1", [0, 4, 3, 0]),
        (
            "--size=16k --fsync=1 --ioengine=libaio --iodepth=4",
            [0, 4, 1, 0],
        ),
        ("--size=16k --fsync=1 --loops=2", [0, 8, 8, 0]),
        ("--size=16k --fsync=1 --loops=3", [0, 12, 13, 0]),
        ("--size=16k --fsync=1 --nrfiles=2", [0, 4, 3, 0]),
        ("--size=18k --fsync=1", [0, 4, 4, 0]),
        ("--size=40k --fsync=3", [0, 10, 3, 0]),
        ("--size=64k --fdatasync=3", [0, 16, 0, 5]),
        ("--size=16k --fsync=1 --number_ios=1", [0, 1, 0, 0]),
        ("--size=64k --fsync=1 --rw=rw", [10, 6, 12, 0]),
        // a random loop ends with its map full: fio draws once more in it, then the
        // next loop syncs at its start (3 + 1, 1 + 3)
        (
            "--size=64k --fsync=4 --rw=randwrite --loops=2",
            [0, 32, 8, 0],
        ),
    ] {
        let mut args = vec!["--name=j", "--rw=write", "--bs=4k", "--output-format=json"];
        args.extend(opts.split(' '));
        let (i, f) = both(d.path(), "sync at next request", &args);
        let n = |o: &Out| {
            let j = &doc(o)["jobs"][0];
            let n = |k: &str, f: &str| j[k][f].as_u64().unwrap();
            [
                n("read", "total_ios"),
                n("write", "total_ios"),
                n("sync", "total_ios"),
                n("read", "short_ios"),
            ]
        };
        if let Some(f) = f {
            assert_eq!(n(&f), want, "{opts}: fio 3.33");
        }
        assert_eq!(n(&i), want, "{opts}: {}", i.stdout);
    }
}

/// A reading job with `file_append=1` and a range of sizes: fio 3.33's `io_u_fits`
/// measures from the file's size (its `get_start_offset` under `file_append`), so a size
/// is drawn as if the region ran on past the file's end, and one drawn past it ends the
/// job before issue (`rw=read size=256k bsrange=4k-16k`: 27 reads, 258,048 bytes, the
/// last 4 KiB unread; oracle seed 93, job 1976).
#[test]
fn file_append_reads_end_at_a_size_drawn_past_the_end_as_fio() {
    let d = scratch();
    let args = [
        "--name=j",
        "--rw=read",
        "--bs=4k",
        "--bsrange=4k-16k",
        "--size=256k",
        "--file_append=1",
        "--output-format=json",
    ];
    let (i, f) = both(d.path(), "file_append bsrange", &args);
    let n = |o: &Out| {
        let r = &doc(o)["jobs"][0]["read"];
        (
            r["total_ios"].as_u64().unwrap(),
            r["io_bytes"].as_u64().unwrap(),
        )
    };
    if let Some(f) = f {
        assert_eq!(n(&f), (27, 258_048), "fio 3.33");
    }
    assert_eq!(n(&i), (27, 258_048), "{}", i.stdout);
}

/// Where fio 3.33 counts syncs: `fsync=N` in `sync.total_ios` (the 4th `total=`),
/// `fdatasync=N` in `read.short_ios` (`short=S,0,0,0`) and `sync_file_range=write:N` in
/// `write.short_ios` (`short=0,S,0,0`), with `sync.total_ios` 0 — its counters one and
/// two slots past a 4-entry array. 8 KiB random writes over 4 MiB, a sync every 5.
#[test]
fn fdatasync_and_sync_file_range_counts_sit_where_fio_puts_them() {
    let d = scratch();
    let base = ["--name=d", "--rw=randwrite", "--bs=8k", "--size=4m"];
    // (the option, where the 102 syncs are: sync.total_ios, read/write short_ios)
    for (opt, at) in [
        ("--fsync=5", [102, 0, 0]),
        ("--fdatasync=5", [0, 102, 0]),
        ("--sync_file_range=write:5", [0, 0, 102]),
    ] {
        let mut args = base.to_vec();
        args.extend([opt, "--output-format=json"]);
        let (i, f) = both(d.path(), "fdatasync slots", &args);
        let slots = |o: &Out| {
            let j = &doc(o)["jobs"][0];
            let n = |k: &str, f: &str| j[k][f].as_u64().unwrap();
            [
                n("sync", "total_ios"),
                n("read", "short_ios"),
                n("write", "short_ios"),
            ]
        };
        assert_eq!(slots(&i), at, "{opt}: {}", i.stdout);
        if let Some(f) = f {
            assert_eq!(slots(&f), at, "{opt}: fio 3.33");
        }
        let mut args = base.to_vec();
        args.push(opt);
        let (i, f) = both(d.path(), "fdatasync slots", &args);
        let issued = |o: &Out| {
            let l = o.stdout.lines().find(|l| l.contains("issued rwts:"));
            l.map(str::to_string)
                .unwrap_or_else(|| panic!("{}", o.dump()))
        };
        if let Some(f) = f {
            assert_eq!(issued(&i), issued(&f), "{opt}");
        }
        let want = format!("total=0,512,0,{} short={},{},0,0", at[0], at[1], at[2]);
        assert!(issued(&i).contains(&want), "{opt}: {}", issued(&i));
    }
}

/// fio 3.33 prints no block for a job that moved no byte and issued nothing
/// (`create_only=1`): the run status group and disk stats only.
#[test]
fn a_job_that_moved_nothing_has_no_text_block() {
    let d = scratch();
    let args = [
        "--name=j",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--create_only=1",
    ];
    let (i, f) = both(d.path(), "create_only text", &args);
    assert_eq!(i.code, 0, "{}", i.dump());
    assert!(!i.stdout.contains("j: (groupid="), "{}", i.stdout);
    assert!(
        i.stdout.contains("Run status group 0 (all jobs):"),
        "{}",
        i.stdout
    );
    if let Some(f) = f {
        assert_eq!(
            f.stdout.contains("j: (groupid="),
            i.stdout.contains("j: (groupid=")
        );
    }
    let len = std::fs::metadata(d.path().join("iomark/j.0.0"))
        .unwrap()
        .len();
    assert_eq!(len, 64 << 10, "the file is laid out");
}

/// `fill_device=1` with a `size`: fio 3.33 keeps the size (it makes it "really large"
/// only when none is set), so a reading job reads its laid-out file and a mixed job
/// moves `size` bytes, as any job.
#[test]
fn fill_device_with_a_size_runs_over_that_size() {
    let d = scratch();
    for rw in ["randread", "rw"] {
        let args = [
            "--name=j",
            "--ioengine=psync",
            &format!("--rw={rw}"),
            "--bs=4k",
            "--size=256k",
            "--fill_device=1",
            "--output-format=json",
        ];
        let (i, f) = both(d.path(), "fill_device with size", &args);
        let moved = |o: &Out| {
            let j = &doc(o)["jobs"][0];
            j["read"]["io_bytes"].as_u64().unwrap() + j["write"]["io_bytes"].as_u64().unwrap()
        };
        assert_eq!(i.code, 0, "{rw}: {}", i.dump());
        assert_eq!(moved(&i), 256 << 10, "{rw}");
        if let Some(f) = f {
            assert_eq!(moved(&f), moved(&i), "{rw}: fio");
        }
    }
}

/// Values fio 3.33 takes: `sync=dsync` (O_DSYNC), mmap's `thp` as an integer, and
/// `atomic=1` on the null engine (which writes nothing) and on a file that takes no
/// atomic writes (fio 3.33's `O_ATOMIC` open flag is ignored: plain direct writes); and
/// two it refuses:
/// `file_append` with mmap, `zonemode=strided` without `zonesize`.
#[test]
fn values_fio_takes_and_combinations_it_refuses() {
    let d = scratch();
    let base = ["--name=j", "--bs=4k", "--size=64k"];
    for (extra, code) in [
        (&["--rw=write", "--sync=dsync"][..], 0),
        (&["--rw=randread", "--ioengine=mmap", "--thp=2"][..], 0),
        (&["--rw=write", "--ioengine=null", "--atomic=1"][..], 0),
        // (psync on a file system without atomic writes: fio 3.33 writes O_DIRECT)
        (&["--rw=write", "--atomic=1"][..], 0),
        (
            &["--rw=randread", "--ioengine=mmap", "--file_append=1"][..],
            1,
        ),
        (&["--rw=randread", "--zonemode=strided"][..], 1),
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (i, f) = both(d.path(), "values and refusals", &args);
        assert_eq!(i.code, code, "{extra:?}: {}", i.dump());
        // (a refusal: fio's exit code 1, one line)
        if code == 1 {
            assert_eq!(i.stderr.lines().count(), 1, "{}", i.stderr);
        }
        if let Some(f) = f {
            assert_eq!(f.code == 0, code == 0, "{extra:?}: fio {}", f.dump());
        }
    }
}

/// A random job whose `blockalign` is not its smallest block size has no random map, as
/// in fio 3.33, which says so on stderr: 64 requests of 4 KiB over 256 KiB (with the
/// map iomark shortened requests to fill the gaps).
#[test]
fn blockalign_turns_off_the_random_map_with_fios_line() {
    let d = scratch();
    let args = [
        "--name=j",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=256k",
        "--ba=512",
        "--output-format=json",
    ];
    let (i, f) = both(d.path(), "blockalign", &args);
    let line = "fio: Any use of blockalign= turns off randommap";
    assert!(i.stderr.lines().any(|l| l == line), "{}", i.dump());
    let ios = |o: &Out| doc(o)["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert_eq!(ios(&i), 64);
    if let Some(f) = f {
        assert!(f.stderr.lines().any(|l| l == line), "{}", f.dump());
        assert_eq!(ios(&f), 64);
    }
}

/// Terse lines of `unified_rw_reporting=mixed` carry the one merged direction (fio
/// 3.33: 89 fields in v3 where a job has 130).
#[test]
fn terse_mixed_has_one_direction() {
    let d = scratch();
    let fields = |extra: &str| {
        let args = [
            "--name=j",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=64k",
            "--output-format=terse",
            extra,
        ];
        let (i, f) = both(d.path(), "terse mixed", &args);
        let n = |o: &Out| o.stdout.lines().next().unwrap_or("").split(';').count();
        (n(&i), f.map(|f| n(&f)))
    };
    let (all, fio_all) = fields("--unified_rw_reporting=0");
    let (mixed, fio_mixed) = fields("--unified_rw_reporting=mixed");
    // one direction is 41 fields: KiB, bw, IOPS, runtime, slat 4, clat 4, 20
    // percentiles, lat 4, bw samples 5
    assert_eq!(all - mixed, 41, "{all} {mixed}");
    if let (Some(a), Some(m)) = (fio_all, fio_mixed) {
        assert_eq!((a, m), (all, mixed), "fio");
    }
}

/// A size-bounded job done inside its `ramp_time`: fio 3.33 counts the ramp's bytes
/// toward `size` (they are zeroed only when the ramp ends), so the job ends there, its
/// bytes reported but no latency recorded (no clat percentiles), as fio's.
#[test]
fn a_job_done_inside_its_ramp_time_reports_its_bytes_without_latencies() {
    let d = scratch();
    let args = [
        "--name=j",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--size=256k",
        "--ramp_time=10s",
        "--output-format=json",
    ];
    let (i, f) = both(d.path(), "ramp", &args);
    let shape = |o: &Out| {
        let r = &doc(o)["jobs"][0]["read"];
        (
            r["io_bytes"].as_u64().unwrap(),
            r["clat_ns"]["N"].as_u64().unwrap(),
            r["clat_ns"].get("percentile").is_some(),
        )
    };
    assert_eq!(shape(&i), (256 << 10, 0, false), "{}", i.stdout);
    if let Some(f) = f {
        assert_eq!(shape(&f), shape(&i), "fio");
    }
}

/// `write_iolog` has the verify phase's reads after the writes, as fio's does: a
/// sequential writer of 16 blocks with `verify_pattern` logs 16 writes, then 16 reads
/// of the same blocks in order.
#[test]
fn write_iolog_has_the_verify_reads() {
    let d = scratch();
    let args = [
        "--name=j",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--verify_pattern=0xdeadbeef",
        "--write_iolog=io.log",
    ];
    let (i, f) = both(d.path(), "iolog verify reads", &args);
    let entries = |who: &str| -> Vec<(String, u64)> {
        std::fs::read_to_string(d.path().join(who).join("io.log"))
            .unwrap()
            .lines()
            .filter_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (w.len() == 5).then(|| (w[2].to_string(), w[3].parse().unwrap()))
            })
            .collect()
    };
    assert_eq!(i.code, 0, "{}", i.dump());
    let want: Vec<(String, u64)> = ["write", "read"]
        .iter()
        .flat_map(|a| (0..16).map(move |b| (a.to_string(), b * 4096)))
        .collect();
    assert_eq!(entries("iomark"), want);
    if f.is_some() {
        assert_eq!(entries("fio"), want, "fio");
    }
}

/// The reported entries of a JSON run: (name, reads, writes, `job options`' name).
fn entries(o: &Out) -> Vec<(String, u64, u64, String)> {
    // (with `wait_for` fio 3.33 prints its `NAME: (g=0): …` lines before the JSON)
    let json = o
        .stdout
        .find("\n{")
        .map_or(o.stdout.as_str(), |i| &o.stdout[i..]);
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {}", o.dump()));
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        // fio 3.33 adds an empty entry without a `jobname` here (a defect: it counts
        // its entries by another rule than it fills them; docs/compat/fio.md)
        .filter(|j| j["jobname"].is_string())
        .map(|j| {
            let n = |d: &str| j[d]["total_ios"].as_u64().unwrap();
            let name = j["jobname"].as_str().unwrap().to_string();
            let opt = j["job options"]["name"].as_str().unwrap_or("").to_string();
            (name, n("read"), n("write"), opt)
        })
        .collect()
}

/// `group_reporting` set on a later section only (oracle job 1533: three sections of one
/// group, the third with `group_reporting=1`): fio 3.33 joins a thread with
/// `group_reporting` to the entry before it when the thread before it is of the same
/// group, whether that one has `group_reporting` or not — two entries, `s0` and `s1`
/// with `s2` (named after `s1`, its reads and writes summed, `s2`'s `job options`).
/// iomark reported `s1` and `s2` apart.
#[test]
fn group_reporting_joins_the_entry_before_it() {
    let d = scratch();
    let args = [
        "--ioengine=mmap",
        "--bs=4k",
        "--size=128k",
        "--name=s0",
        "--rw=randwrite",
        "--name=s1",
        "--rw=randwrite",
        "--wait_for=s0",
        "--create_only=0",
        "--name=s2",
        "--rw=randread",
        "--wait_for=s1",
        "--group_reporting=1",
        "--output-format=json",
    ];
    let (i, f) = both(d.path(), "group_reporting_joins_the_entry_before_it", &args);
    let want = vec![
        ("s0".to_string(), 0, 32, "s0".to_string()),
        ("s1".to_string(), 32, 32, "s2".to_string()),
    ];
    assert_eq!(entries(&i), want, "{}", i.dump());
    if let Some(f) = f {
        assert_eq!(entries(&f), want, "fio: {}", f.dump());
    }
}

/// The lines of `stderr` that are fio's (`fio: …`), in order.
fn fio_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("fio: ")).collect()
}

/// fio 3.33's fixup of each job thread (init.c `fixup_options`, seeds 72 and 74 of the
/// oracle): `bs_unaligned` on O_DIRECT I/O says so once per job thread and runs;
/// `block_error_percentiles` on a job of more than one file — `nrfiles`, or the names of
/// `filename=` — fails it (exit 1) with fio's line naming the count; one name with
/// `nrfiles=3` runs, and `--parse-only` skips the fixup.
#[test]
fn bs_unaligned_on_direct_io_and_block_error_hist_on_many_files_are_fios_fixup() {
    let d = scratch();
    let unaligned = "fio: bs_unaligned may not work with raw io";
    let hist = |n: u32| {
        format!("fio: block error histogram only available with a single file per job, but {n} files provided")
    };
    let base = ["--name=j", "--rw=write", "--bs=4k", "--size=64k"];
    let cases: [(&[&str], i32, Vec<String>); 6] = [
        (
            &["--direct=1", "--bs_unaligned=1", "--numjobs=2"],
            0,
            vec![unaligned.into(), unaligned.into()],
        ),
        (&["--bs_unaligned=1"], 0, vec![]),
        (
            &["--nrfiles=3", "--block_error_percentiles=1"],
            1,
            vec![hist(3)],
        ),
        (
            &["--filename=a:b", "--block_error_percentiles=1"],
            1,
            vec![hist(2)],
        ),
        (
            &["--filename=a", "--nrfiles=3", "--block_error_percentiles=1"],
            0,
            vec![],
        ),
        (
            &["--nrfiles=3", "--block_error_percentiles=1", "--parse-only"],
            0,
            vec![],
        ),
    ];
    for (extra, code, lines) in cases {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (i, f) = both(d.path(), "fixup lines", &args);
        assert_eq!(i.code, code, "{extra:?}: {}", i.dump());
        assert_eq!(fio_lines(&i.stderr), lines, "{extra:?}: {}", i.dump());
        if let Some(f) = f {
            assert_eq!(
                (f.code, fio_lines(&f.stderr)),
                (code, lines.iter().map(String::as_str).collect()),
                "{extra:?}: fio"
            );
        }
    }
}

/// `write_lat_log` makes fio's latency logs but the ones `disable_lat`, `disable_clat`
/// and `disable_slat` turn off, and none under `gtod_reduce=1` (init.c `setup_log`;
/// oracle seed 72: iomark made `lg_slat.1.log` with `disable_slat=1`).
#[test]
fn latency_logs_turned_off_are_not_made_as_in_fio() {
    let d = scratch();
    let base = [
        "--name=j",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--size=64k",
        "--write_lat_log=lg",
    ];
    for (opt, logs) in [
        ("--disable_slat=1", &["lg_clat.1.log", "lg_lat.1.log"][..]),
        ("--disable_clat=1", &["lg_lat.1.log", "lg_slat.1.log"]),
        ("--disable_lat=1", &["lg_clat.1.log", "lg_slat.1.log"]),
        ("--gtod_reduce=1", &[]),
        (
            "--disable_slat=0",
            &["lg_clat.1.log", "lg_lat.1.log", "lg_slat.1.log"],
        ),
    ] {
        let args: Vec<&str> = base.iter().copied().chain([opt]).collect();
        let (i, f) = both(d.path(), "latency logs", &args);
        let made = |who: &str| {
            let v = crate::util::entries(&d.path().join(who));
            v.into_iter()
                .filter(|n| n.ends_with(".log"))
                .collect::<Vec<_>>()
        };
        assert_eq!(i.code, 0, "{opt}: {}", i.dump());
        assert_eq!(made("iomark"), logs, "{opt}");
        if f.is_some() {
            assert_eq!(made("fio"), logs, "{opt}: fio");
        }
    }
}

/// A job's `BW=` is in its own `unit_base`, the group line in the group's (its last
/// job's): `s0` of bytes beside `s1` of bits (`unit_base=1` given in `s1` only) says
/// `BW=…MiB/s`, and both group lines `bw=…Mibit/s` (oracle seed 72, job 105).
#[test]
fn a_job_line_bandwidth_is_in_its_own_unit_base() {
    let d = scratch();
    let args = [
        "--ioengine=null",
        "--bs=4k",
        "--size=128k",
        "--name=s0",
        "--rw=randread",
        "--name=s1",
        "--rw=write",
        "--unit_base=1",
    ];
    let (i, f) = both(d.path(), "unit_base per job", &args);
    // whether the unit after `BW=`/`bw=` is in bits, on each line that has one, in
    // order (the prefix follows the machine's speed: KiB/s or MiB/s, Kibit/s or Mibit/s)
    let units = |o: &Out| -> Vec<bool> {
        o.stdout
            .lines()
            .filter_map(|l| {
                let at = l.find("BW=").or_else(|| l.find("bw="))? + 3;
                let unit = l[at..].split([' ', ',']).next()?;
                Some(unit.ends_with("bit/s"))
            })
            .collect()
    };
    let want = [false, true, true, true];
    assert_eq!(units(&i), want, "{}", i.stdout);
    if let Some(f) = f {
        assert_eq!(units(&f), want, "fio: {}", f.stdout);
    }
}

/// `cmdprio_percentage` picks its requests with fio's draws (the thread's
/// `FIO_RAND_PRIO_CMDS` seed, a value in 0..=99 per request of a direction that has a
/// percentage): the same requests as fio 3.33 carry the cmdprio class, so the JSON
/// `prios` of each direction hold fio's counts (oracle seed 74: iomark's writes had
/// none, fio's two).
#[test]
fn cmdprio_percentage_picks_fios_requests() {
    let d = scratch();
    for (rw, want) in [
        ("randrw", [vec![(0, 12), (1, 3)], vec![(0, 15), (1, 2)]]),
        ("write", [vec![], vec![(0, 27), (1, 5)]]),
    ] {
        let rw = format!("--rw={rw}");
        let args = [
            "--name=s0",
            "--ioengine=libaio",
            "--bs=4k",
            "--size=128k",
            rw.as_str(),
            "--cmdprio_percentage=10",
            "--output-format=json",
        ];
        let (i, f) = both(d.path(), "cmdprio draws", &args);
        let prios = |o: &Out| {
            let j = &doc(o)["jobs"][0];
            ["read", "write"].map(|k| {
                let p = j[k]["prios"].as_array().cloned().unwrap_or_default();
                p.iter()
                    .map(|e| {
                        (
                            e["prioclass"].as_u64().unwrap(),
                            e["clat_ns"]["N"].as_u64().unwrap(),
                        )
                    })
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(prios(&i), want, "{rw}: {}", i.dump());
        if let Some(f) = f {
            assert_eq!(prios(&f), want, "{rw}: fio");
        }
    }
}

/// A file of the null engine is never looked up on disk: fio 3.33 sizes it at `size=`
/// over the number of files, so `filesize=64k-128k size=128k` keeps 128 KiB (already in
/// the range: 32 reads of 4 KiB) where psync draws a size from the range (fio's draw
/// for this job is 72 KiB: 18 reads); a range the share misses (`8k-16k`) is drawn on
/// null too (8 KiB). Oracle seed 78, job 10.
#[test]
fn a_null_engine_file_is_sized_by_size_over_its_files() {
    let d = scratch();
    for (engine, range, bytes) in [
        ("null", "64k-128k", 128u64 << 10),
        ("psync", "64k-128k", 72 << 10),
        ("null", "8k-16k", 8 << 10),
    ] {
        let args = [
            "--name=s1",
            &format!("--ioengine={engine}"),
            "--rw=randread",
            "--bs=4k",
            "--size=128k",
            &format!("--filesize={range}"),
            "--output-format=json",
        ];
        let (i, f) = both(d.path(), "null engine file sizes", &args);
        let read = |o: &Out| doc(o)["jobs"][0]["read"]["io_bytes"].as_u64().unwrap();
        assert_eq!(read(&i), bytes, "{engine} {range}: {}", i.dump());
        if let Some(f) = f {
            assert_eq!(read(&f), bytes, "{engine} {range}: fio");
        }
    }
}

/// `gtod_reduce=1` turns the latencies, the bandwidth samples and the percentiles off
/// as fio 3.33 reads it (options.c `str_gtod_reduce_cb`), so an option after it turns
/// its own back on: `gtod_reduce=1 disable_lat=0` reports the total latency of every
/// request (fio's values there come from a completion time it never reads: only their
/// count is compared), `gtod_reduce=1 disable_clat=0` the completion latency without
/// percentiles; `disable_lat=0 gtod_reduce=1` none. 256 KiB of 4 KiB `randrw`: 64
/// requests. Oracle seed 78, job 267.
#[test]
fn an_option_after_gtod_reduce_turns_its_latency_back_on() {
    let d = scratch();
    // (options in order, the requests counted in (slat, clat, lat))
    for (opts, counted) in [
        (["--gtod_reduce=1", "--disable_lat=0"], [false, false, true]),
        (
            ["--disable_lat=0", "--gtod_reduce=1"],
            [false, false, false],
        ),
        (
            ["--gtod_reduce=1", "--disable_clat=0"],
            [false, true, false],
        ),
    ] {
        let base = [
            "--name=j",
            "--ioengine=sync",
            "--rw=randrw",
            "--bs=4k",
            "--size=256k",
        ];
        let args: Vec<&str> = base
            .iter()
            .chain(&opts)
            .copied()
            .chain(["--output-format=json"])
            .collect();
        let (i, f) = both(d.path(), "gtod_reduce then disable_*", &args);
        let shape = |o: &Out| -> Vec<(u64, [u64; 3], bool)> {
            let j = &doc(o)["jobs"][0];
            let ios = |dir: &str| j[dir]["total_ios"].as_u64().unwrap();
            ["read", "write"]
                .iter()
                .map(|dir| {
                    let n =
                        ["slat_ns", "clat_ns", "lat_ns"].map(|k| j[dir][k]["N"].as_u64().unwrap());
                    let pct = ["slat_ns", "clat_ns", "lat_ns"]
                        .iter()
                        .any(|k| j[dir][k].get("percentile").is_some());
                    (ios(dir), n, pct)
                })
                .collect()
        };
        let ours = shape(&i);
        assert_eq!(
            ours.iter().map(|s| s.0).sum::<u64>(),
            64,
            "{opts:?}: {}",
            i.dump()
        );
        for (ios, n, pct) in &ours {
            let want = counted.map(|c| if c { *ios } else { 0 });
            assert_eq!((*n, *pct), (want, false), "{opts:?}: {}", i.dump());
        }
        if let Some(f) = f {
            let theirs = shape(&f);
            // (the split of the 64 requests between reads and writes is each tool's draw)
            for (fios, n, pct) in &theirs {
                let want = counted.map(|c| if c { *fios } else { 0 });
                assert_eq!((*n, *pct), (want, false), "{opts:?}: fio {}", f.dump());
            }
            assert_eq!(theirs.iter().map(|s| s.0).sum::<u64>(), 64);
        }
    }
}

/// `gtod_reduce=1 disable_bw=0`: fio 3.33's reduction is its three `disable_*`
/// together, so bandwidth measured again takes a bandwidth and an IOPS sample of every
/// request (256 of 1 MiB of 4 KiB reads: the JSON's `bw_samples` and `iops_samples`,
/// 256 lines in each log); the other order (`disable_bw=0 gtod_reduce=1`) has none.
#[test]
fn bandwidth_after_gtod_reduce_brings_its_samples_back() {
    let d = scratch();
    for (opts, samples) in [
        (["--gtod_reduce=1", "--disable_bw=0"], 256),
        (["--disable_bw=0", "--gtod_reduce=1"], 0),
    ] {
        let base = [
            "--name=j",
            "--ioengine=sync",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--filename=f",
            "--write_bw_log=p",
            "--write_iops_log=p",
            "--output-format=json",
        ];
        let args: Vec<&str> = base.iter().chain(&opts).copied().collect();
        let (i, f) = both(d.path(), "gtod_reduce then disable_bw", &args);
        for (who, o) in [("iomark", Some(i)), ("fio", f)] {
            let Some(o) = o else { continue };
            let r = &doc(&o)["jobs"][0]["read"];
            assert_eq!(r["total_ios"], 256, "{who} {opts:?}: {}", o.dump());
            assert_eq!(r["bw_samples"], samples, "{who} {opts:?}");
            assert_eq!(r["iops_samples"], samples, "{who} {opts:?}");
            for log in ["p_bw.1.log", "p_iops.1.log"] {
                let text = std::fs::read_to_string(d.path().join(who).join(log)).unwrap();
                assert_eq!(text.lines().count(), samples, "{who} {opts:?} {log}");
            }
        }
    }
}

/// `write_hint` with `direct=1`: fio 3.33 sets the hint on the open file
/// (F_SET_FILE_RW_HINT), which Linux 6.9 and later no longer have (EINVAL), so the job
/// fails as its thread opens the file — `fio: pid=P, err=22/file:ioengines.c:596,
/// func=fcntl write hint, error=Invalid argument`, nothing read, its latency target set
/// up, exit 1; buffered (`direct=0`), the inode's hint (F_SET_RW_HINT) is taken and 64
/// reads run. Oracle seeds 79 (job 118) and 80 (job 231).
#[test]
fn write_hint_with_direct_io_fails_the_job_as_fio() {
    let d = scratch();
    // Linux 6.9 dropped F_SET_FILE_RW_HINT: from it on the direct job fails
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    let mut v = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let refuses = (v.next().unwrap(), v.next().unwrap_or(0)) >= (6, 9);
    for (direct, code, error, ios) in [("1", 1, 22, 0u64), ("0", 0, 0, 64)] {
        let (code, error, ios) = if direct == "1" && !refuses {
            (0, 0, 64)
        } else {
            (code, error, ios)
        };
        let args = [
            "--name=j",
            "--ioengine=sync",
            "--rw=randread",
            "--bs=4k",
            "--size=256k",
            &format!("--direct={direct}"),
            "--write_hint=medium",
            "--output-format=json",
        ];
        let (i, f) = both(d.path(), "write_hint with direct", &args);
        let shape = |o: &Out| {
            let v = doc(&Out {
                stdout: o.stdout[o.stdout.find("{\n").unwrap_or(0)..].to_string(),
                ..o.clone()
            });
            let j = &v["jobs"][0];
            (
                o.code,
                j["error"].as_u64().unwrap(),
                j["read"]["total_ios"].as_u64().unwrap(),
                j["latency_depth"].as_u64(),
            )
        };
        assert_eq!(
            shape(&i),
            (code, error, ios, Some(1)),
            "direct={direct}: {}",
            i.dump()
        );
        if direct == "1" && refuses {
            let line = "fio: pid=#, err=22/file:ioengines.c:596, func=fcntl write hint, error=Invalid argument";
            let masked = |s: &str| -> bool {
                s.lines().any(|l| {
                    l.split_once("pid=")
                        .and_then(|(_, r)| r.split_once(','))
                        .map(|(_, r)| format!("fio: pid=#,{r}"))
                        .as_deref()
                        == Some(line)
                })
            };
            assert!(masked(&i.stdout) || masked(&i.stderr), "{}", i.dump());
        }
        if let Some(f) = f {
            assert_eq!(shape(&f), shape(&i), "direct={direct}: fio {}", f.dump());
        }
    }
}

/// io_uring with `sqthread_poll=1`: the kernel's polling thread submits and fio 3.33
/// records no submission latency — `slat_ns` has N 0, the text no `slat` line and no
/// `slat percentiles` even with `slat_percentiles=1` — while the requests, their total
/// latency and the clat percentiles are there. Without `sqthread_poll` both report slat.
#[test]
fn sqthread_poll_reports_no_submission_latency() {
    let test = "sqthread_poll_reports_no_submission_latency";
    let d = scratch();
    for (poll, slat) in [("--sqthread_poll=1", false), ("--sqthread_poll=0", true)] {
        let args = [
            "--name=j",
            "--ioengine=io_uring",
            "--rw=read",
            "--bs=4k",
            "--size=256k",
            "--slat_percentiles=1",
            poll,
            "--output-format=normal,json",
        ];
        let (i, f) = both(d.path(), test, &args);
        for (who, o) in [("iomark", Some(i)), ("fio", f)] {
            let Some(o) = o else { continue };
            assert_eq!(o.code, 0, "{who} {poll}: {}", o.dump());
            let json = &o.stdout[o
                .stdout
                .find("\n{")
                .unwrap_or_else(|| panic!("{who}: {}", o.dump()))..];
            let v: Value = serde_json::Deserializer::from_str(json)
                .into_iter()
                .next()
                .unwrap()
                .unwrap();
            let r = &v["jobs"][0]["read"];
            assert_eq!(r["total_ios"], 64, "{who} {poll}");
            assert_eq!(
                r["slat_ns"]["N"].as_u64().unwrap() > 0,
                slat,
                "{who} {poll}: {r}"
            );
            assert_eq!(
                r["slat_ns"].get("percentile").is_some(),
                slat,
                "{who} {poll}"
            );
            assert_eq!(r["lat_ns"]["N"], 64, "{who} {poll}");
            // the text report (before or after the JSON document; its lines are no JSON)
            let text = &o.stdout;
            assert_eq!(text.contains("    slat ("), slat, "{who} {poll}: {text}");
            assert_eq!(
                text.contains("slat percentiles"),
                slat,
                "{who} {poll}: {text}"
            );
            assert!(text.contains("clat percentiles"), "{who} {poll}: {text}");
        }
    }
}

/// A sync every N writes is a request of its own, and takes the file the file service
/// picks next (fio 3.33's `get_io_u`: `set_io_u_file` before `get_rw_ddir` returns
/// `DDIR_SYNC`): with `nrfiles=2 fsync=1` fio writes j.0.0 and syncs j.0.1 in turn until
/// j.0.0 is done (32 writes, then j.0.1's 32 writes each followed by its sync; 63 syncs,
/// all on j.0.1). `write_iolog` lines — actions, files, offsets, lengths; a sync's line
/// keeps the last write's offset and length 0 — are fio's, line for line (oracle seed 94,
/// job 532, posixaio; also psync and libaio).
#[test]
fn a_sync_takes_the_next_file_turn_and_is_logged_as_fio() {
    let d = scratch();
    for engine in ["psync", "posixaio", "libaio"] {
        let e = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--nrfiles=2",
            "--fsync=1",
            "--randseed=7",
            &e,
            "--write_iolog=log",
            "--output=out.txt",
        ];
        let (i, f) = both(d.path(), "sync takes the next file", &args);
        let lines = |who: &str, o: &Out| -> Vec<String> {
            assert_eq!(o.code, 0, "{who} {engine}: {}", o.dump());
            let log = std::fs::read_to_string(d.path().join(who).join("log")).unwrap();
            // drop the time column of each entry
            log.lines()
                .skip(1)
                .map(|l| l.split_once(' ').map_or(l, |(_, r)| r).to_string())
                .collect()
        };
        let ours = lines("iomark", &i);
        let syncs: Vec<&String> = ours.iter().filter(|l| l.contains(" sync ")).collect();
        assert_eq!(syncs.len(), 63, "{engine}: {ours:#?}");
        assert!(syncs
            .iter()
            .all(|l| l.starts_with("j.0.1 sync ") && l.ends_with(" 0")));
        let writes0 = ours
            .iter()
            .filter(|l| l.starts_with("j.0.0 write "))
            .count();
        assert_eq!(writes0, 32, "{engine}");
        // j.0.0's writes come first, each followed by a sync of j.0.1
        let first_w1 = ours.iter().position(|l| l.starts_with("j.0.1 write "));
        let last_w0 = ours.iter().rposition(|l| l.starts_with("j.0.0 write "));
        assert!(last_w0 < first_w1, "{engine}: {ours:#?}");
        if let Some(f) = f {
            assert_eq!(ours, lines("fio", &f), "{engine}: iomark, then fio 3.33");
        }
    }
}

/// fio opens `write_iolog` in append mode (iolog.c `fopen(…, "a")`): a second run adds
/// its log after the first one's, header and all; so does iomark (the path holds the
/// old log, then the old and the whole new one).
#[test]
fn a_second_run_appends_its_iolog_as_fio() {
    let d = scratch();
    let args = [
        "--name=j",
        "--rw=write",
        "--bs=4k",
        "--size=16k",
        "--write_iolog=log",
        "--output=out.txt",
    ];
    let mut tools = vec!["iomark"];
    if need_fio("write_iolog appends") {
        tools.push("fio");
    }
    for who in tools {
        let w = d.path().join(who);
        std::fs::create_dir_all(&w).unwrap();
        for _ in 0..2 {
            let o = fio_or_ours(who, d.path()).dir(&w).args(args).run();
            assert_eq!(o.code, 0, "{who}: {}", o.dump());
        }
        let log = std::fs::read_to_string(w.join("log")).unwrap();
        let heads = log.lines().filter(|l| *l == "fio version 3 iolog").count();
        let writes = log
            .lines()
            .filter(|l| l.ends_with(" j.0.0 write 0 4096"))
            .count();
        assert_eq!((heads, writes), (2, 2), "{who}: {log}");
    }
}

/// A sync of `fsync=N` on an engine that queues does not wait for the writes in flight
/// (fio 3.33's libaio makes it at once when nothing waits to be submitted,
/// `fio_libaio_queue`): at `iodepth=4 fsync=1` fio writes 1, syncs, writes 3 more, and
/// then syncs after each completion — 13 syncs for 16 writes, every run; iomark drained
/// the queue before each sync and made 4 (a fresh user's finding, side by side).
#[test]
fn a_queued_engine_syncs_without_waiting_for_the_writes_in_flight_as_fio() {
    let d = scratch();
    let args = [
        "--name=j",
        "--ioengine=libaio",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--fsync=1",
        "--iodepth=4",
        "--output-format=json",
    ];
    let (i, f) = both(d.path(), "queued sync", &args);
    let n = |o: &Out| {
        let j = &doc(o)["jobs"][0];
        [
            j["write"]["total_ios"].as_u64(),
            j["sync"]["total_ios"].as_u64(),
        ]
    };
    if let Some(f) = f {
        assert_eq!(n(&f), [Some(16), Some(13)], "fio 3.33");
    }
    assert_eq!(n(&i), [Some(16), Some(13)], "{}", i.stdout);
}
