//! `iomark run` keys beyond the basics, end to end through the binary: verify catches a
//! flipped byte (file and offset named, exit 1), RunResult `--json` read back by
//! `compare`, the CPU line, the random map and distributions seen in latency logs with
//! offsets, trims, buffer contents, json+ bins, `--output`, `--section`, exitall and
//! bad values.

use std::collections::HashMap;
use std::path::Path;

use crate::util::*;

/// Offsets column of a per-I/O log written with `log_offset=1`.
fn logged_offsets(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split(", ").nth(4).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn verify_catches_a_flipped_byte_and_names_file_and_offset() {
    let d = scratch();
    // write with verify headers, no read-back
    run(
        d.path(),
        &[
            "--name=v",
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
            "--do_verify=0",
        ],
    )
    .ok();
    // a read-verify job over the untouched file passes
    let out = run(
        d.path(),
        &[
            "--name=v",
            "--rw=read",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
        ],
    );
    out.ok();
    // flip one byte in the data part of block 5 (offset 20480)
    let f = d.path().join("v.0.0");
    let mut data = std::fs::read(&f).unwrap();
    data[5 * 4096 + 100] ^= 0xff;
    std::fs::write(&f, &data).unwrap();
    let out = run(
        d.path(),
        &[
            "--name=v",
            "--rw=read",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
        ],
    );
    assert_eq!(out.code, 1);
    let err = out.stderr;
    assert!(
        err.contains("verify: 1 block(s) did not match")
            && err.contains("v.0.0 at offset 20480: crc32c checksum mismatch"),
        "{err}"
    );
}

#[test]
fn write_then_verify_passes_for_every_checksum() {
    let d = scratch();
    for k in ["crc32c", "md5", "xxhash", "sha256", "meta"] {
        let v = format!("--verify={k}");
        let out = run(
            d.path(),
            &[
                "--name=w",
                "--rw=randwrite",
                "--bs=8k",
                "--size=128k",
                &v,
                "--ioengine=io_uring",
                "--iodepth=4",
            ],
        )
        .ok()
        .stdout;
        assert!(
            out.contains("verify: 16 blocks read back, all matched"),
            "{k}: {out}"
        );
    }
    // pattern mode: every byte is the pattern
    run(
        d.path(),
        &[
            "--name=p",
            "--rw=write",
            "--bs=4k",
            "--size=16k",
            "--verify_pattern=0xaa555aa5",
        ],
    )
    .ok();
    let data = std::fs::read(d.path().join("p.0.0")).unwrap();
    assert!(data.chunks(4).all(|c| c == [0xaa, 0x55, 0x5a, 0xa5]));
}

#[test]
fn json_run_result_is_read_by_compare() {
    let d = scratch();
    run(
        d.path(),
        &[
            "--bs=4k",
            "--size=512k",
            "--name=a",
            "--rw=randread",
            "--name=b",
            "--rw=write",
            "--bs=64k",
            "--json=r.json",
        ],
    )
    .ok();
    let text = std::fs::read_to_string(d.path().join("r.json")).unwrap();
    let r = iomark::report::compare::load(&d.path().join("r.json")).unwrap();
    assert_eq!((r.command.as_str(), r.schema_version), ("run", 2));
    assert_eq!(r.read.ops, 128);
    assert_eq!(r.write.ops, 8);
    assert_eq!((r.read.bytes, r.write.bytes), (524_288, 524_288));
    let names: Vec<&str> = r.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["a read", "b write"]);
    for p in &r.phases {
        assert!(p.seconds > 0.0);
        assert!((p.ops_per_s - p.ops as f64 / p.seconds).abs() < 1e-6 * p.ops_per_s);
        assert!(
            (p.mib_per_s - p.bytes as f64 / p.seconds / 1_048_576.0).abs()
                < 1e-9 * p.mib_per_s.max(1.0)
        );
        assert!((p.mb_per_s - p.bytes as f64 / p.seconds / 1e6).abs() < 1e-9 * p.mb_per_s.max(1.0));
        assert_eq!(p.lat.as_ref().unwrap().count, p.ops);
    }
    // top-level rates are over period_s (both jobs ran in one group: the longer one)
    let longest = r.phases.iter().map(|p| p.seconds).fold(0.0, f64::max);
    assert!((r.period_s - longest).abs() < 1e-9);
    assert!((r.read.iops - 128.0 / r.period_s).abs() < 1e-6 * r.read.iops);
    let cpu = r.cpu.expect("cpu usage");
    assert!(cpu.usr_s >= 0.0 && cpu.sys_s >= 0.0 && cpu.usr_s + cpu.sys_s < 60.0);
    assert!(text.contains("\"ctx_voluntary\""));
    let c = Iomark::new()
        .dir(d.path())
        .args(["compare", "r.json", "r.json"])
        .run();
    let out = c.ok().stdout;
    // phases carry fio's rw spelling, so compare names them by pattern, size, QD (the
    // test column is as wide as its longest name: the device view's rows included)
    let row = |test: &str| {
        out.lines().any(|l| {
            l.strip_prefix(test)
                .is_some_and(|rest| rest.trim_start().starts_with("MB/s"))
        })
    };
    assert!(
        row("RND4K Q1T1 read (job a) ") && row("SEQ64K Q1T1 write (job b) "),
        "{out}"
    );
}

#[test]
fn failed_run_leaves_a_failed_result() {
    let d = scratch();
    std::fs::write(d.path().join("f"), vec![1u8; 8192]).unwrap();
    let out = run(
        d.path(),
        &[
            "--name=r",
            "--rw=read",
            "--bs=4k",
            "--filename=f",
            "--verify=md5",
            "--json=r.json",
        ],
    );
    assert_eq!(out.code, 1);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(v["status"], "failed");
    assert!(v["error"].as_str().unwrap().contains("bad header magic"));
}

#[test]
fn cpu_line_and_fio_json_cpu_fields() {
    let d = scratch();
    let out = run(
        d.path(),
        &[
            "--name=n",
            "--ioengine=null",
            "--rw=randread",
            "--time_based",
            "--runtime=300ms",
        ],
    )
    .ok()
    .stdout;
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("cpu"))
        .unwrap();
    let (u, s) = {
        let num = |k: &str| -> f64 {
            let a = line.find(k).unwrap() + k.len();
            line[a..].split('%').next().unwrap().parse().unwrap()
        };
        (num("usr="), num("sys="))
    };
    // the null engine never blocks: its thread used CPU for a visible part of its life
    // (how much depends on the machine's load; the formula is pinned in run::fio_cpu)
    assert!(u + s > 1.0 && u + s <= 101.0, "{line}");
    assert!(line.contains(", ctx=") && line.contains(", majf=") && line.contains(", minf="));
    let out = run(
        d.path(),
        &[
            "--name=n",
            "--ioengine=null",
            "--size=4m",
            "--output-format=json",
        ],
    )
    .ok()
    .stdout;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let j = &v["jobs"][0];
    assert!(j["usr_cpu"].is_f64() && j["sys_cpu"].is_f64() && j["ctx"].is_u64());
}

#[test]
fn random_map_visits_every_block_once_and_norandommap_does_not() {
    let d = scratch();
    let base = [
        "--rw=randread",
        "--bs=4k",
        "--size=256k",
        "--write_lat_log=m",
        "--log_offset=1",
    ];
    run(d.path(), &[&["--name=a"][..], &base].concat()).ok();
    let mut offs = logged_offsets(&d.path().join("m_lat.1.log"));
    assert_eq!(offs.len(), 64);
    offs.sort_unstable();
    assert_eq!(offs, (0..64).map(|i| i * 4096).collect::<Vec<u64>>());
    run(
        d.path(),
        &[&["--name=a", "--norandommap"][..], &base].concat(),
    )
    .ok();
    let mut offs = logged_offsets(&d.path().join("m_lat.1.log"));
    offs.sort_unstable();
    offs.dedup();
    assert!(
        offs.len() < 64,
        "64 uniform draws over 64 blocks repeat some"
    );
}

#[test]
fn zipf_offsets_follow_the_distribution_end_to_end() {
    let d = scratch();
    run(
        d.path(),
        &[
            "--name=z",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=4000k",
            "--loops=20",
            "--random_distribution=zipf:1.2",
            "--write_lat_log=z",
            "--log_offset=1",
        ],
    )
    .ok();
    let offs = logged_offsets(&d.path().join("z_lat.1.log"));
    assert_eq!(offs.len(), 20_000);
    let mut c: HashMap<u64, u64> = HashMap::new();
    for o in offs {
        assert_eq!(o % 4096, 0);
        *c.entry(o).or_default() += 1;
    }
    let h: f64 = (1..=1000).map(|k| (k as f64).powf(-1.2)).sum();
    let top = *c.values().max().unwrap() as f64 / 20_000.0;
    assert!(
        (top - 1.0 / h).abs() < 0.02,
        "top block share {top}, zipf says {}",
        1.0 / h
    );
}

#[test]
fn offset_and_io_size_bound_the_region() {
    let d = scratch();
    run(
        d.path(),
        &[
            "--name=o",
            "--rw=randread",
            "--bs=4k",
            "--size=64k",
            "--offset=64k",
            "--io_size=16k",
            "--write_lat_log=o",
            "--log_offset=1",
        ],
    )
    .ok();
    assert_eq!(
        std::fs::metadata(d.path().join("o.0.0")).unwrap().len(),
        128 << 10
    );
    let offs = logged_offsets(&d.path().join("o_lat.1.log"));
    assert_eq!(offs.len(), 4);
    assert!(
        offs.iter().all(|&o| (65_536..131_072).contains(&o)),
        "{offs:?}"
    );
}

#[test]
fn trims_punch_holes_and_buffers_have_the_asked_content() {
    let d = scratch();
    run(
        d.path(),
        &[
            "--name=c",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--buffer_compress_percentage=50",
        ],
    )
    .ok();
    let data = std::fs::read(d.path().join("c.0.0")).unwrap();
    for chunk in data.chunks(512) {
        assert!(chunk[256..].iter().all(|&b| b == 0));
        assert!(chunk[..256].iter().any(|&b| b != 0));
    }
    run(
        d.path(),
        &[
            "--name=z",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--zero_buffers",
        ],
    )
    .ok();
    assert!(std::fs::read(d.path().join("z.0.0"))
        .unwrap()
        .iter()
        .all(|&b| b == 0));
    // a file with data, then trim all of it: contents read as zeros, size unchanged
    run(
        d.path(),
        &["--name=t", "--rw=write", "--bs=4k", "--size=64k"],
    )
    .ok();
    assert!(std::fs::read(d.path().join("t.0.0"))
        .unwrap()
        .iter()
        .any(|&b| b != 0));
    let out = run(
        d.path(),
        &[
            "--name=t",
            "--rw=randtrim",
            "--bs=4k",
            "--size=64k",
            "--output-format=json",
        ],
    )
    .ok()
    .stdout;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["jobs"][0]["trim"]["total_ios"], 16);
    let data = std::fs::read(d.path().join("t.0.0")).unwrap();
    assert_eq!(data.len(), 65_536);
    assert!(data.iter().all(|&b| b == 0));
}

#[test]
fn json_plus_bins_output_file_and_section() {
    let d = scratch();
    let out = run(
        d.path(),
        &[
            "--name=n",
            "--ioengine=null",
            "--size=1m",
            "--output-format=json+",
            "--output=o.json",
            "--percentile_list=50:99.5",
        ],
    );
    assert!(out.ok().stdout.is_empty(), "--output: nothing on stdout");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("o.json")).unwrap()).unwrap();
    let clat = &v["jobs"][0]["read"]["clat_ns"];
    let bins = clat["bins"].as_object().unwrap();
    let n: u64 = bins.values().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(n, 256);
    assert_eq!(clat["N"], 256);
    let pct: Vec<&String> = clat["percentile"].as_object().unwrap().keys().collect();
    assert_eq!(pct, ["50.000000", "99.500000"]);
    std::fs::write(
        d.path().join("j.fio"),
        "[global]\nioengine=null\nsize=64k\n[one]\nrw=read\n[two]\nrw=write\n",
    )
    .unwrap();
    let out = run(
        d.path(),
        &["j.fio", "--section=two", "--output-format=json"],
    )
    .ok()
    .stdout;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(v["jobs"][0]["jobname"], "two");
    let e = run(d.path(), &["j.fio", "--section=three"]);
    assert_eq!(e.code, 2);
    assert!(e.stderr.contains("--section=three"));
}

#[test]
fn exitall_ends_the_group_when_one_job_finishes() {
    let d = scratch();
    let t = std::time::Instant::now();
    let out = run(
        d.path(),
        &[
            // before the jobs: fio prints a job's header line when the next --name
            // comes while the format is still normal (job/fio/args.rs)
            "--output-format=json",
            "--ioengine=null",
            "--name=short",
            "--number_ios=100",
            "--exitall",
            "--name=long",
            "--time_based",
            "--runtime=60",
        ],
    )
    .ok()
    .stdout;
    assert!(
        t.elapsed().as_secs() < 30,
        "exitall did not stop the 60 s job"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 100);
}

/// fio 3.33's `exitall` is the run's: set on one job (even as `exitall=0`: its option's
/// callback ignores the value), it makes every job that finishes end its own group. Here
/// s0 (group 0) has it; s1 and s2 form group 1, where s1 ends after 100 I/Os and so ends
/// the 60 s s2, as fio 3.33 does with the same command line.
#[test]
fn exitall_on_one_job_is_the_runs() {
    let d = scratch();
    for v in ["1", "0"] {
        let t = std::time::Instant::now();
        let exitall = format!("--exitall={v}");
        let out = run(
            d.path(),
            &[
                "--ioengine=null",
                "--size=1g",
                "--output-format=json",
                "--name=s0",
                "--number_ios=10",
                &exitall,
                "--name=s1",
                "--new_group",
                "--number_ios=100",
                "--name=s2",
                "--time_based",
                "--runtime=60",
            ],
        )
        .ok()
        .stdout;
        assert!(
            t.elapsed().as_secs() < 30,
            "{exitall}: s1 finishing did not stop the 60 s s2"
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["jobs"][1]["read"]["total_ios"], 100, "{exitall}");
    }
}

/// A job that `wait_for`s an `exitall` job never runs: the ending job stops the rest of
/// its group before it counts as done, so the waiting job is stopped before it starts
/// (fio 3.33 with this job file, three runs of three: `a` reads 256 KiB, `b` 0 bytes,
/// both without error; `b`'s file is laid out all the same).
#[test]
fn a_job_waiting_for_an_exitall_job_never_starts() {
    let d = scratch();
    std::fs::write(
        d.path().join("j.fio"),
        "[global]\nioengine=psync\nbs=4k\n[a]\nexitall\nrw=read\nsize=256k\nfilename=fa\n\
         [b]\nwait_for=a\nrw=read\nsize=128k\nfilename=fb\n",
    )
    .unwrap();
    for _ in 0..3 {
        let out = run(d.path(), &["--output-format=json", "j.fio"])
            .ok()
            .stdout;
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let got: Vec<_> = (0..2)
            .map(|i| {
                let j = &v["jobs"][i];
                (
                    j["jobname"].clone(),
                    j["read"]["io_bytes"].clone(),
                    j["error"].clone(),
                )
            })
            .collect();
        let want = [("a", 262_144, 0), ("b", 0, 0)].map(|(n, b, e)| (n.into(), b.into(), e.into()));
        assert_eq!(got, want, "{out}");
        let fb = std::fs::metadata(d.path().join("fb")).unwrap().len();
        assert_eq!(fb, 131_072, "b's file is laid out");
    }
}

#[test]
fn bad_values_name_the_option_and_exit_2() {
    let d = scratch();
    for (arg, want) in [
        ("--verify=crc99", "option 'verify'"),
        ("--random_distribution=zipf", "option 'random_distribution'"),
        ("--random_distribution=zoned:50/10:40/90", "sum to 90"),
        ("--percentile_list=50:101", "option 'percentile_list'"),
        ("--rate_process=bursty", "accepted: linear, poisson"),
        ("--wait_for=nobody", "wait_for=nobody names no job"),
        (
            "--verify_fancy=1",
            "option 'verify_fancy' is not supported by iomark",
        ),
    ] {
        let out = run(d.path(), &["--name=x", "--size=64k", arg]);
        assert_eq!(out.code, 2, "{arg}");
        let err = out.stderr;
        assert!(err.contains(want), "{arg}: {err}");
        assert_eq!(err.lines().count(), 1, "{arg}: one line: {err}");
    }
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "nothing written"
    );
}

#[test]
fn wait_for_orders_jobs_of_one_group() {
    // `b` reads and verifies what `a` writes; both are in one group (no stonewall), so
    // only wait_for keeps `b` from reading the file before `a` has stamped it. `a` is
    // paced (64 writes at 1000/s), so without wait_for `b` reads unstamped blocks: the
    // control run must fail verification (as fio 3.33's does), or this test proves nothing
    let job = |wait: bool| {
        let mut a = vec![
            "--filename=f",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
            "--output-format=json",
            "--name=a",
            "--rw=write",
            "--do_verify=0",
            "--rate_iops=1000",
            "--name=b",
            "--rw=read",
        ];
        if wait {
            a.push("--wait_for=a");
        }
        a
    };
    let control = scratch();
    let o = run(control.path(), &job(false));
    assert_eq!(
        o.code, 1,
        "without wait_for b must read unstamped blocks: {}",
        o.stderr
    );
    assert!(o.stderr.contains("verify"), "{}", o.stderr);
    let d = scratch();
    let j = run(d.path(), &job(true)).ok().json();
    let jobs = j["jobs"].as_array().unwrap();
    let by = |n: &str| jobs.iter().find(|x| x["jobname"] == n).unwrap();
    assert_eq!(by("a")["write"]["io_bytes"], 256 << 10);
    // b read (and so verified) every block a wrote, with no error
    assert_eq!(by("b")["read"]["io_bytes"], 256 << 10);
    assert_eq!(by("b")["error"], 0);
}

#[test]
fn pacing_keeps_rates_and_delays() {
    let d = scratch();
    // rate_iops: 200 I/Os at 1000/s cannot finish in less than ~199 ms
    let t = std::time::Instant::now();
    let out = run(
        d.path(),
        &[
            "--name=r",
            "--ioengine=null",
            "--size=800k",
            "--rate_iops=1000",
            "--output-format=json",
        ],
    )
    .ok()
    .stdout;
    assert!(t.elapsed().as_millis() >= 190, "{:?}", t.elapsed());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!(iops <= 1010.0 && iops > 500.0, "iops {iops}");
    // thinktime 5 ms after every 2 I/Os, 20 I/Os: at least 9 pauses = 45 ms
    let t = std::time::Instant::now();
    run(
        d.path(),
        &[
            "--name=t",
            "--ioengine=null",
            "--size=80k",
            "--thinktime=5ms",
            "--thinktime_blocks=2",
        ],
    )
    .ok();
    assert!(t.elapsed().as_millis() >= 45);
    // startdelay 300 ms
    let t = std::time::Instant::now();
    run(
        d.path(),
        &[
            "--name=s",
            "--ioengine=null",
            "--size=8k",
            "--startdelay=300ms",
        ],
    )
    .ok();
    assert!(t.elapsed().as_millis() >= 300);
}

#[test]
fn status_interval_prints_lines_and_records_intervals() {
    let d = scratch();
    let out = run(
        d.path(),
        &[
            "--name=s",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--rate_iops=1000",
            "--time_based",
            "--runtime=1100ms",
            "--status-interval=200ms",
            "--json=r.json",
        ],
    );
    out.ok();
    let err = out.stderr;
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("[t=")).collect();
    assert!(lines.len() >= 3, "{err}");
    assert!(
        lines[0].contains("read: IOPS=") && lines[0].contains("MiB/s ("),
        "{}",
        lines[0]
    );
    let r = iomark::report::compare::load(&d.path().join("r.json")).unwrap();
    assert_eq!(r.intervals.len(), lines.len());
    let total: u64 = r.intervals.iter().map(|i| i.read_bytes).sum();
    assert!(total <= r.read.bytes && total > 0);
    for w in r.intervals.windows(2) {
        // fio's status timer takes a deadline less than 1 ms away as reached
        assert!(w[1].t_s > w[0].t_s && w[1].dur_s >= 0.199, "{w:?}");
    }
    // at 1000 IOPS × 4 KiB a full interval moves about 4 MB/s × its length
    let iv = &r.intervals[1];
    let rate = iv.read_bytes as f64 / iv.dur_s;
    assert!(
        rate <= 1.05 * 4_096_000.0 && rate > 0.3 * 4_096_000.0,
        "{rate}"
    );
    let e = run(
        d.path(),
        &[
            "--name=s",
            "--ioengine=null",
            "--size=4k",
            "--status-interval=1us",
        ],
    );
    assert_eq!(e.code, 2);
}

#[test]
fn fdatasync_fsync_on_close_and_o_sync_count_their_calls() {
    let d = scratch();
    let out = run(
        d.path(),
        &[
            "--name=w",
            "--rw=write",
            "--bs=4k",
            "--size=256k",
            "--fdatasync=16",
            "--fsync_on_close=1",
            "--sync=1",
            "--refill_buffers",
            "--output-format=json",
            "--json=r.json",
        ],
    )
    .ok()
    .stdout;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let j = &v["jobs"][0];
    assert_eq!(j["write"]["total_ios"], 64);
    // 64 writes / 16: 3 fdatasync calls, none after the last write (fio 3.33: 3; its
    // sync is made at the next request); the fsync at close is not a sync I/O (fio
    // 3.33 issues it outside any I/O unit), only timed (the RunResult's final_sync_ns).
    // fio's JSON counts fdatasyncs in read.short_ios (its slot past total_io_u); the
    // RunResult keeps them as syncs.
    assert_eq!(j["sync"]["total_ios"], 0);
    assert_eq!(j["read"]["short_ios"], 3);
    let rr: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(rr["jobs"][0]["sync"]["ios"], 3, "{rr}");
    assert!(rr["jobs"][0]["final_sync_ns"].as_u64().unwrap_or(0) > 0);
    // refill_buffers: blocks differ from each other
    let data = std::fs::read(d.path().join("w.0.0")).unwrap();
    assert_ne!(data[..4096], data[4096..8192]);
}

/// Mixed jobs under per-direction rates follow fio's `rate_ddir`: the direction that is
/// behind its rate is issued even when the mix picked the other, so each direction
/// reaches its own rate (fio 3.33: `rate_iops=300,100` on randrw gives read 299, write
/// 99 IOPS; `rate_iops=,100` with rwmixread=90 leaves reads unlimited).
#[test]
fn mixed_jobs_reach_each_directions_rate_like_fio() {
    let d = scratch();
    let run = |extra: &[&str]| -> (f64, f64) {
        let mut a = vec![
            "--name=m",
            "--ioengine=null",
            "--rw=randrw",
            "--size=16m",
            "--time_based",
            "--runtime=1",
            "--output-format=json",
        ];
        a.extend(extra);
        let v: serde_json::Value = serde_json::from_str(&run(d.path(), &a).ok().stdout).unwrap();
        let j = &v["jobs"][0];
        (
            j["read"]["iops"].as_f64().unwrap(),
            j["write"]["iops"].as_f64().unwrap(),
        )
    };
    let (r, w) = run(&["--rate_iops=300,100"]);
    assert!((270.0..=310.0).contains(&r), "read {r} IOPS (rate 300)");
    assert!((90.0..=104.0).contains(&w), "write {w} IOPS (rate 100)");
    let (r, w) = run(&["--rwmixread=90", "--rate_iops=,100"]);
    assert!(r > 5000.0, "reads are unlimited: {r} IOPS");
    assert!((90.0..=104.0).contains(&w), "write {w} IOPS (rate 100)");
}

/// A rate wait that runs into the end of the runtime issues nothing more (fio 3.33:
/// `rate_iops=1` for 1 s is one request, `rate_iops=10` for 2 s twenty), and
/// `io_size=0` means unset (one pass of `size`), as in fio.
#[test]
fn rate_ends_with_the_runtime_and_io_size_zero_is_unset() {
    let d = scratch();
    let ios = |extra: &[&str]| -> u64 {
        let mut a = vec![
            "--name=r",
            "--ioengine=null",
            "--rw=randread",
            "--size=16m",
            "--output-format=json",
        ];
        a.extend(extra);
        let v: serde_json::Value = serde_json::from_str(&run(d.path(), &a).ok().stdout).unwrap();
        v["jobs"][0]["read"]["total_ios"].as_u64().unwrap()
    };
    assert_eq!(ios(&["--rate_iops=1", "--runtime=1", "--time_based"]), 1);
    let n = ios(&["--rate_iops=10", "--runtime=2", "--time_based"]);
    assert!((19..=20).contains(&n), "rate_iops=10 for 2 s: {n} requests");
    assert_eq!(ios(&["--io_size=0"]), 4096);
}
