//! `iomark run`: I/O priorities (prioclass/prio, cmdprio_*, log_prio), NUMA binding,
//! dedupe-shaped write buffers, trims on block devices (BLKDISCARD on a loop device;
//! needs root and losetup, otherwise skipped with the reason), character devices as
//! targets (/dev/null, /dev/zero), and `fill_device` on a file that does not exist yet
//! (a small loop-mounted ext4, root only).

use crate::util::*;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

/// Share of distinct 4 KiB blocks in `p`.
fn unique_share(paths: &[PathBuf]) -> (usize, usize) {
    let mut seen = HashSet::new();
    let mut n = 0;
    for p in paths {
        let data = std::fs::read(p).unwrap();
        for b in data.chunks(4096) {
            seen.insert(b.to_vec());
            n += 1;
        }
    }
    (seen.len(), n)
}

/// dedupe_percentage=40 (repeat mode): 40 % of the 4096 written 4 KiB blocks repeat an
/// earlier one, so 60 % are distinct (binomial σ ≈ 0.8 points; ±3 points allowed).
#[test]
fn dedupe_percentage_gives_the_stated_share_of_duplicate_blocks() {
    let t = scratch();
    let o = run(
        t.path(),
        &[
            "--name=d",
            "--filename=f",
            "--rw=write",
            "--bs=4k",
            "--size=16m",
            "--dedupe_percentage=40",
            "--buffer_compress_percentage=50",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (u, n) = unique_share(&[t.path().join("f")]);
    assert_eq!(n, 4096);
    let share = u as f64 / n as f64;
    assert!((share - 0.60).abs() < 0.03, "distinct share {share}");
    // buffer_compress_percentage still shapes every block: its second half is zeros
    let data = std::fs::read(t.path().join("f")).unwrap();
    assert!(data[256..512].iter().all(|&b| b == 0));
    assert!(data[..256].iter().any(|&b| b != 0));
}

/// dedupe-global.fio shape: two jobs, working_set mode, dedupe_global=1 — blocks of one
/// file repeat in the other; without dedupe_global the files share no block.
#[test]
fn dedupe_global_shares_the_working_set_between_jobs() {
    for global in ["1", "0"] {
        let t = scratch();
        let g = format!("--dedupe_global={global}");
        let o = run(
            t.path(),
            &[
                "--rw=write",
                "--bs=4k",
                "--size=4m",
                "--dedupe_mode=working_set",
                "--dedupe_percentage=50",
                "--dedupe_working_set_percentage=10",
                &g,
                "--name=a",
                "--filename=a",
                "--name=b",
                "--filename=b",
            ],
        );
        assert_eq!(o.code, 0, "{}", o.stderr);
        let (ua, _) = unique_share(&[t.path().join("a")]);
        let (ub, _) = unique_share(&[t.path().join("b")]);
        let (uab, _) = unique_share(&[t.path().join("a"), t.path().join("b")]);
        let shared = ua + ub - uab;
        if global == "1" {
            // 102 working-set pages, each drawn ~5 times per file: nearly all shared
            assert!(shared > 80, "global: {shared} blocks shared");
        } else {
            assert_eq!(shared, 0, "per-job working sets share nothing");
        }
    }
}

/// fio allows cmdprio_* only with libaio/io_uring: psync is refused, naming the key.
#[test]
fn cmdprio_with_psync_is_refused_by_name() {
    let t = scratch();
    for (key, val) in [("cmdprio_percentage", "20"), ("cmdprio_bssplit", "4k/50")] {
        let a = format!("--{key}={val}");
        let o = run(
            t.path(),
            &[
                "--name=p",
                "--filename=f",
                "--size=64k",
                "--ioengine=psync",
                &a,
            ],
        );
        assert_eq!(o.code, 2, "{}", o.stderr);
        let e = o.stderr;
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(key) && e.contains("ioengine=psync"), "{e}");
        assert!(!t.path().join("f").exists());
    }
    let o = run(
        t.path(),
        &["--name=p", "--size=64k", "--cmdprio_bssplit=4k/60:4k/50"],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("sum to 110"), "{}", o.stderr);
}

/// cmdprio-percentage.fio on a file: 20 % of the reads carry RT/0 (0x2000) in their
/// SQE, the others the thread's idle class (0x6000); the latency log's prio column
/// (log_prio=1) shows each request's value. 1024 reads: ±5 points (σ ≈ 1.25).
#[test]
fn cmdprio_percentage_sets_the_ioprio_of_each_request() {
    let t = scratch();
    let o = run(
        t.path(),
        &[
            "--name=randread",
            "--filename=f",
            "--size=4m",
            "--bs=4k",
            "--rw=randread",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--prioclass=3",
            "--cmdprio_percentage=20",
            "--cmdprio_class=1",
            "--write_lat_log=prio",
            "--log_prio=1",
            "--output-format=json",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    // fio's per-priority report: one clat block per ioprio, counts as in the log
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let prios = v["jobs"][0]["read"]["prios"].as_array().unwrap().clone();
    let n = |class: u64| {
        prios
            .iter()
            .find(|p| p["prioclass"] == class && p["prio"] == 0)
            .map(|p| p["clat_ns"]["N"].as_u64().unwrap())
            .unwrap()
    };
    let log = std::fs::read_to_string(t.path().join("prio_clat.1.log")).unwrap();
    let mut count: BTreeMap<String, u32> = BTreeMap::new();
    for l in log.lines() {
        *count
            .entry(l.rsplit(", ").next().unwrap().to_string())
            .or_default() += 1;
    }
    assert_eq!(count.values().sum::<u32>(), 1024, "{count:?}");
    assert_eq!(count.len(), 2, "{count:?}");
    let rt = f64::from(count["0x2000"]) / 1024.0 * 100.0;
    assert!((rt - 20.0).abs() < 5.0, "{rt} % RT: {count:?}");
    assert_eq!(count["0x2000"] + count["0x6000"], 1024);
    assert_eq!(n(1), u64::from(count["0x2000"]), "{prios:?}");
    assert_eq!(n(3), u64::from(count["0x6000"]), "{prios:?}");
    assert_eq!(prios.len(), 2);
}

/// Text report: one `clat prio C/L` line per priority and the share of each in its
/// percentile header; a job with a single priority prints none (fio's rule).
#[test]
fn per_priority_latency_lines_in_the_text_report() {
    let t = scratch();
    let base = [
        "--name=p",
        "--filename=f",
        "--size=1m",
        "--bs=4k",
        "--rw=randread",
        "--ioengine=io_uring",
        "--cmdprio_class=2",
        "--cmdprio=1",
    ];
    let mut a = base.to_vec();
    a.push("--cmdprio_percentage=50");
    let o = run(t.path(), &a);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out = o.stdout.clone();
    // the unit follows fio's rules (nsec for these page-cache reads, usec if slow)
    for p in ["0/0", "2/1"] {
        assert!(
            ["nsec", "usec", "msec"]
                .iter()
                .any(|u| out.contains(&format!("    clat prio {p} ({u}): min="))),
            "{out}"
        );
    }
    let shares: Vec<f64> = out
        .lines()
        .filter(|l| l.contains("% of IOs) percentiles"))
        .map(|l| {
            let x = l.split('(').nth(1).unwrap();
            x.split('%').next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(shares.len(), 2, "{out}");
    assert!(
        (shares.iter().sum::<f64>() - 100.0).abs() < 0.02,
        "{shares:?}"
    );
    let mut a = base.to_vec();
    a.push("--cmdprio_percentage=100");
    let o = run(t.path(), &a);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stdout.contains("clat prio"));
}

/// numa_cpu_nodes: a node that does not exist is a one-line error listing the nodes
/// that do (exit 3, nothing created); an existing node binds the threads (the notice
/// names the CPUs, read from sysfs).
#[test]
fn numa_nodes_are_checked_and_applied() {
    let t = scratch();
    let o = run(
        t.path(),
        &[
            "--name=n",
            "--filename=f",
            "--size=64k",
            "--numa_cpu_nodes=0,999",
        ],
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    let e = o.stderr;
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("numa_cpu_nodes=0,999: node 999 does not exist (nodes here: "),
        "{e}"
    );
    assert!(!t.path().join("f").exists());
    let cpus = std::fs::read_to_string("/sys/devices/system/node/node0/cpulist");
    let Ok(cpus) = cpus else {
        absent_here("second half: no /sys/devices/system/node/node0");
        return;
    };
    let o = run(
        t.path(),
        &[
            "--name=n",
            "--filename=f",
            "--size=64k",
            "--numa_cpu_nodes=0",
            "--numa_mem_policy=bind:0",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let want = format!(
        "note: job 'n': numa_cpu_nodes=0 -> CPUs {}; numa_mem_policy=bind:0",
        cpus.trim()
    );
    assert!(o.stderr.contains(&want), "{}", o.stderr);
}

// ---- trims on block devices -------------------------------------------------------------

/// rw=trim on a loop device: refused without --allow-destructive-write (nothing
/// changes); with it, 1 MiB at offset 1 MiB is discarded (BLKDISCARD) and reads back as
/// zeros while the bytes around it keep their pattern.
#[test]
fn trim_on_a_block_device_discards_the_range() {
    if let Some(why) = loop_skip_reason() {
        skip(why);
        return;
    }
    let lo = LoopDev::new(16 << 20, None);
    let dev = lo.dev.to_str().unwrap().to_string();
    {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(&dev).unwrap();
        f.write_all_at(&vec![0xa5u8; 4 << 20], 0).unwrap();
        f.sync_all().unwrap();
    }
    let t = scratch();
    let fname = format!("--filename={dev}");
    let base = [
        "--name=t",
        fname.as_str(),
        "--rw=trim",
        "--bs=64k",
        "--offset=1m",
        "--size=1m",
    ];
    let o = run(t.path(), &base);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stderr.contains(&dev), "{}", o.stderr);
    let read = || {
        use std::os::unix::fs::FileExt;
        let f = std::fs::File::open(&dev).unwrap();
        let mut b = vec![0u8; 4 << 20];
        f.read_exact_at(&mut b, 0).unwrap();
        b
    };
    assert!(
        read().iter().all(|&b| b == 0xa5),
        "refused run changed the device"
    );
    let allow = format!("--allow-destructive-write={dev}");
    let mut a = base.to_vec();
    a.push(&allow);
    let o = run(t.path(), &a);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("trim: IOPS="), "{}", o.stdout);
    let b = read();
    assert!(b[..1 << 20].iter().all(|&x| x == 0xa5), "before the range");
    assert!(b[1 << 20..2 << 20].iter().all(|&x| x == 0), "trimmed range");
    assert!(b[2 << 20..].iter().all(|&x| x == 0xa5), "after the range");
    // the loop driver punched the range out of its backing file
    let blocks = std::fs::metadata(&lo.img).map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.blocks() * 512
    });
    assert!(blocks.unwrap() <= 3 << 20, "backing file keeps the hole");
}

/// io_uring denied (test switch): the job falls back to psync, and a cmdprio option,
/// which psync cannot carry, is said to have no effect (never silently ignored).
#[test]
fn cmdprio_on_a_psync_fallback_is_said_to_have_no_effect() {
    let t = scratch();
    let o = Iomark::new()
        .dir(t.path())
        .env("IOMARK_TEST_DENY_IO_URING", "1")
        .args([
            "run",
            "--name=p",
            "--filename=f",
            "--size=64k",
            "--rw=randread",
            "--ioengine=io_uring",
            "--cmdprio_percentage=20",
        ])
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "warning: cmdprio_percentage has no effect on psync: requests run with the thread's priority"
        ),
        "{}",
        o.stderr
    );
}

#[test]
fn character_devices_are_targets_sized_by_the_job() {
    // as fio's steadystate.fio: writes to /dev/null, reads from /dev/zero; the job's
    // size= gives the offsets, the devices are never extended, laid out or written to
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--bs=4k",
            "--size=1m",
            "--name=w",
            "--filename=/dev/null",
            "--rw=randwrite",
            "--name=r",
            "--filename=/dev/zero",
            "--rw=read",
            "--ioengine=io_uring",
            "--iodepth=4",
        ],
    );
    let doc = o.ok().json();
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs[0]["write"]["io_bytes"], 1 << 20, "{}", jobs[0]);
    assert_eq!(jobs[0]["write"]["total_ios"], 256);
    assert_eq!(jobs[1]["read"]["io_bytes"], 1 << 20, "{}", jobs[1]);
    assert_eq!(jobs[1]["read"]["total_ios"], 256);
    // nothing laid out: no "Laying out IO file /dev/..." and no file in the directory
    assert!(!o.stderr.contains("Laying out"), "{}", o.stderr);
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    for dev in ["/dev/null", "/dev/zero"] {
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(dev).unwrap().file_type().is_char_device());
    }
}

#[test]
fn character_device_without_size_or_with_trims_is_refused_by_name() {
    let d = scratch();
    let o = run(
        d.path(),
        &["--name=r", "--filename=/dev/zero", "--rw=read", "--bs=4k"],
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("/dev/zero: a character device has no size: give size="),
        "{}",
        o.stderr
    );
    let o = run(
        d.path(),
        &[
            "--name=t",
            "--filename=/dev/null",
            "--rw=trim",
            "--bs=4k",
            "--size=64k",
        ],
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("/dev/null is a character device: trim is supported"),
        "{}",
        o.stderr
    );
}

#[test]
fn time_based_writes_to_dev_null_with_numjobs_and_group_reporting() {
    // steadystate.fio's ss-write shape (without the steady-state stop)
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=ss-write",
            "--filename=/dev/null",
            "--rw=write",
            "--bs=128k",
            "--size=128m",
            "--numjobs=2",
            "--group_reporting",
            "--time_based",
            "--runtime=200ms",
        ],
    );
    let doc = o.ok().json();
    let j = &doc["jobs"][0];
    let ios = j["write"]["total_ios"].as_u64().unwrap();
    assert!(ios > 0, "{j}");
    assert_eq!(j["write"]["io_bytes"].as_u64().unwrap(), ios * 128 * 1024);
    assert_eq!(j["error"], 0);
}

#[test]
fn fill_device_creates_a_missing_file_without_size_and_writes_until_full() {
    let Some(fs) = LoopFs::small(16, "ext4") else {
        return;
    };
    let avail = fs.avail();
    assert!(avail > 8 << 20, "{avail}");
    // no size=: fio creates the file and writes until ENOSPC
    let o = run(
        fs.dir(),
        &[
            "--output-format=json",
            "--name=fill",
            "--filename=new.tmp",
            "--rw=write",
            "--bs=64k",
            "--fill_device=1",
        ],
    );
    let doc = o.ok().json();
    let j = &doc["jobs"][0];
    let written = j["write"]["io_bytes"].as_u64().unwrap();
    assert_eq!(j["error"], 0, "ENOSPC ends a fill_device job normally: {j}");
    // everything that was free, but for the last partial block and the metadata the
    // file's own extents take (under 1 MiB on this 16 MiB ext4)
    assert!(
        written > avail - (1 << 20) && written <= avail,
        "{written} of {avail}"
    );
    assert_eq!(written % (64 << 10), 0);
    let len = std::fs::metadata(fs.dir().join("new.tmp")).unwrap().len();
    assert!(len >= written, "{len} {written}");
    assert!(fs.avail() < 128 << 10, "left {}", fs.avail());
    // without fill_device the missing file still needs a size (exit 3, named)
    let o = run(
        fs.dir(),
        &["--name=w", "--filename=other.tmp", "--rw=write", "--bs=64k"],
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o
        .stderr
        .contains("other.tmp: file does not exist and no size="));
}

/// A 16 MiB ext4 with 10 % of its blocks reserved for root (`mkfs.ext4 -m 10`), mounted;
/// `None` (with the reason printed) when this machine cannot.
fn reserved_ext4() -> Option<LoopFs> {
    LoopFs::new(16 << 20, None, "ext4", &["-q", "-F", "-m", "10"])
        .map_err(skip)
        .ok()
}

#[test]
fn fill_device_as_root_writes_into_the_reserved_blocks_until_enospc() {
    let Some(fs) = reserved_ext4() else {
        return;
    };
    let (avail, bfree) = fs.free();
    assert!(bfree > avail + (1 << 20), "reserve: {avail} {bfree}");
    let o = run(
        fs.dir(),
        &[
            "--output-format=json",
            "--name=fill",
            "--filename=new.tmp",
            "--rw=write",
            "--bs=64k",
            "--fill_device=1",
        ],
    );
    let doc = o.ok().json();
    let written = doc["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
    // fio's limit is f_bfree (root's reserve included), and root meets ENOSPC there
    assert!(
        written > avail + (512 << 10) && written <= bfree,
        "{written}: avail {avail}, bfree {bfree}"
    );
    // it ended at ENOSPC (ext4 keeps a few clusters even from root), not as a failure
    assert_eq!(doc["jobs"][0]["error"], 0);
    assert_eq!(fs.free().0, 0, "{:?}", fs.free());
}

/// A character device has no page cache: a buffered job reading /dev/zero or writing
/// /dev/full gets no page-cache warning (fits in RAM, reads from memory, writes in
/// memory) and no `page cache` fact of memory, in the text or the JSON result.
#[test]
fn a_character_device_gets_no_page_cache_claims() {
    let d = scratch();
    for (dev, rw) in [("/dev/zero", "read"), ("/dev/full", "write")] {
        let o = run(
            d.path(),
            &[
                "--name=c",
                &format!("--filename={dev}"),
                &format!("--rw={rw}"),
                "--bs=4k",
                "--size=1m",
                "--json=r.json",
            ],
        );
        let j = read_json(&d.path().join("r.json"));
        let ids = warning_ids(&j);
        assert!(
            ids.iter().all(|id| !id.starts_with("page_cache.")),
            "{dev}: {ids:?}\n{}",
            o.dump()
        );
        assert!(!o.all().contains("page cache"), "{dev}: {}", o.dump());
        assert_ne!(
            j["page_cache"]["buffered"], true,
            "{dev}: {}",
            j["page_cache"]
        );
    }
}

/// `iomark run --notes=off` (or `=0`) leaves iomark's notes out; `--notes=on` and the
/// bare flag keep them; another value is one line naming --notes, exit 2.
#[test]
fn notes_take_on_and_off() {
    let d = scratch();
    let job = ["--name=n", "--ioengine=null", "--size=1m", "--rw=randread"];
    for (value, shown) in [
        ("--notes=off", false),
        ("--notes=0", false),
        ("--notes=on", true),
        ("--notes", true),
    ] {
        let o = run(d.path(), &[&job[..], &[value]].concat());
        o.expect_code(0);
        assert_eq!(
            o.all().contains("iomark notes"),
            shown,
            "{value}: {}",
            o.dump()
        );
    }
    let o = run(d.path(), &[&job[..], &["--notes=maybe"]].concat());
    o.expect_code(2);
    o.one_line_error(&["--notes", "on, off"]);
}

/// iomark's notes and the history line come after the report, in one stream as a
/// terminal shows stdout and stderr together: the job's `Run status group` line, then
/// `iomark notes`, then `result kept in the history`.
#[test]
fn notes_follow_the_report() {
    let d = scratch();
    let out = d.path().join("both.txt");
    let f = std::fs::File::create(&out).unwrap();
    let status = std::process::Command::new(BIN)
        .args([
            "run",
            "--name=n",
            "--filename=n.dat",
            "--size=1m",
            "--rw=read",
        ])
        .current_dir(d.path())
        .env_remove("IOMARK_HISTORY")
        .env("IOMARK_RESULTS", d.path().join("history"))
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("no {s:?} in\n{text}"))
    };
    let report = at("Run status group 0");
    let notes = at("iomark notes (not part of the fio report):");
    assert!(report < notes, "{text}");
    assert!(notes < at("result kept in the history"), "{text}");
}
