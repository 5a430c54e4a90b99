//! A job that fails in its thread's setup, next to fio 3.33: that job's error (fio's
//! lines on stderr, the job reported with `error` set and nothing done, the other jobs
//! run and report, exit 1). Each comparison with
//! fio skips (with the reason) when fio is not installed; what iomark must print by
//! itself is checked either way.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// `args` run in `dir` by iomark as `fio`, and by fio when it is installed.
fn both(dir: &Path, args: &[&str], test: &str) -> (Out, Option<Out>) {
    let i = as_fio(dir).dir(dir).args(args).run();
    let f = need_fio(test).then(|| fio_cmd().dir(dir).args(args).run());
    (i, f)
}

const NO_SIZE: &str = "x: you need to specify size=\nfio: pid=0, err=22/file:filesetup.c:1155, func=total_file_size, error=Invalid argument\n";

/// `x` reads a file that does not exist with no size, `y` reads 64 KiB: fio 3.33 says
/// `x: you need to specify size=` and its `pid=0, err=22` line, reports x with `"error"
/// : 22`, every figure 0 and no `latency_*` keys, runs y as usual, and exits 1; its text
/// report has no block for x, and its terse line for x has `-nan%` where the µs buckets
/// start (0/0). iomark refused the whole run before any job, exit 3.
#[test]
fn a_job_that_fails_in_its_setup_is_reported_and_the_others_run() {
    let test = "a_job_that_fails_in_its_setup_is_reported_and_the_others_run";
    let d = scratch();
    let jobs = [
        "--name=x",
        "--filename=nonexist",
        "--rw=read",
        "--name=y",
        "--filename=data",
        "--size=64k",
        "--rw=read",
    ];
    let mut args = jobs.to_vec();
    args.push("--output-format=json");
    let (i, f) = both(d.path(), &args, test);
    assert_eq!((i.code, i.stderr.as_str()), (1, NO_SIZE), "{}", i.dump());
    let v = i.json_doc();
    let (x, y) = (&v["jobs"][0], &v["jobs"][1]);
    assert_eq!(
        (x["jobname"].as_str(), x["error"].as_i64()),
        (Some("x"), Some(22))
    );
    assert_eq!(x["read"]["io_bytes"], 0);
    assert_eq!(x["job options"]["filename"], "nonexist");
    assert!(x.get("latency_depth").is_none(), "{x}");
    assert_eq!(
        (y["error"].as_i64(), y["read"]["total_ios"].as_i64()),
        (Some(0), Some(16))
    );
    assert!(y.get("latency_depth").is_some());
    if let Some(f) = f {
        assert_eq!(
            (f.code, f.stderr.as_str()),
            (1, NO_SIZE),
            "fio: {}",
            f.dump()
        );
        assert_eq!(i.stdout.lines().next(), f.stdout.lines().next(), "x's line");
        let fv = f.json_doc();
        let keys = |j: &Value| j.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            keys(x),
            keys(&fv["jobs"][0]),
            "fio's keys of the failed job"
        );
        assert_eq!(x["read"], fv["jobs"][0]["read"]);
        assert_eq!(x["iodepth_level"], fv["jobs"][0]["iodepth_level"]);
    }
    // the text report: no block for x, y's as usual
    let (i, f) = both(d.path(), &jobs, test);
    for (who, o) in [("iomark", Some(&i)), ("fio 3.33", f.as_ref())] {
        let Some(o) = o else { continue };
        assert_eq!(o.code, 1, "{who}: {}", o.dump());
        assert!(!o.stdout.contains("x: (groupid"), "{who}: {}", o.stdout);
        assert!(o.stdout.contains("y: (groupid=0, jobs=1): err= 0"), "{who}");
    }
    // x alone, terse and text: nothing that varies, so byte for byte
    for extra in ["--minimal", "--output-format=normal"] {
        let (i, f) = both(d.path(), &["--name=x", "--filename=nonexist", extra], test);
        assert_eq!(i.code, 1, "{}", i.dump());
        if extra == "--minimal" {
            assert!(i.stdout.contains(";0.0%;-nan%;0.00%;"), "{}", i.stdout);
        }
        if let Some(f) = f {
            assert_eq!((&i.stdout, &i.stderr), (&f.stdout, &f.stderr), "{extra}");
        }
    }
}

/// A `filename` that is a directory, with a size: fio 3.33's layout fails (its unlink of
/// the short file: EISDIR) and the job is reported with `"error" : 21`, the run exits 1;
/// `iomark run` keeps refusing it before any job runs (exit 3, one line).
#[test]
fn a_layout_refused_on_the_jobs_file_is_its_error() {
    let test = "a_layout_refused_on_the_jobs_file_is_its_error";
    let d = scratch();
    std::fs::create_dir(d.path().join("adir")).unwrap();
    let args = [
        "--name=x",
        "--filename=adir",
        "--size=64k",
        "--output-format=json",
    ];
    let line = "fio: pid=0, err=21/file:filesetup.c:150, func=unlink, error=Is a directory\n";
    let (i, f) = both(d.path(), &args, test);
    for (who, o) in [("iomark", Some(&i)), ("fio 3.33", f.as_ref())] {
        let Some(o) = o else { continue };
        assert_eq!(
            (o.code, o.stderr.as_str()),
            (1, line),
            "{who}: {}",
            o.dump()
        );
        let x = &o.json_doc()["jobs"][0];
        assert_eq!(x["error"], 21, "{who}");
        assert!(x.get("latency_depth").is_none(), "{who}: {x}");
    }
    let o = run(d.path(), &["--name=x", "--filename=nonexist", "--rw=read"]);
    assert_eq!(o.code, 3, "{}", o.dump());
    assert!(
        o.stderr.contains("no size= or filesize= was given"),
        "{}",
        o.dump()
    );
}

/// `--readonly` lays nothing out: a missing file is not created (fio 3.33: `refusing
/// extend of file due to read-only`, the job's `error` 2 from its open), a short file is
/// neither extended nor changed (`error` 5: the read past its end), exit 1 — and `iomark
/// run --readonly` refuses the missing file with exit 3, creating nothing. A file at full
/// size is read as usual.
#[test]
fn readonly_creates_and_extends_no_file() {
    let test = "readonly_creates_and_extends_no_file";
    let d = scratch();
    let short: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
    for (file, errno) in [("new.dat", 2), ("short.dat", 5)] {
        let args = [
            "--readonly",
            "--name=x",
            "--size=1m",
            &format!("--filename={file}"),
            "--output-format=json",
        ];
        std::fs::write(d.path().join("short.dat"), &short).unwrap();
        let (i, f) = both(d.path(), &args, test);
        for (who, o) in [("iomark", Some(&i)), ("fio 3.33", f.as_ref())] {
            let Some(o) = o else { continue };
            assert_eq!(o.code, 1, "{who}: {}", o.dump());
            assert!(
                o.stderr
                    .contains("fio: refusing extend of file due to read-only"),
                "{who}: {}",
                o.dump()
            );
            assert_eq!(o.json_doc()["jobs"][0]["error"], errno, "{who}");
            assert!(!d.path().join("new.dat").exists(), "{who} created new.dat");
            assert_eq!(
                std::fs::read(d.path().join("short.dat")).unwrap(),
                short,
                "{who}"
            );
        }
    }
    let o = run(
        d.path(),
        &["--readonly", "--name=x", "--size=1m", "--filename=new.dat"],
    );
    assert_eq!(o.code, 3, "{}", o.dump());
    assert!(
        o.stderr.contains("readonly=1 creates no file"),
        "{}",
        o.dump()
    );
    assert!(!d.path().join("new.dat").exists());
    std::fs::write(d.path().join("full.dat"), vec![1u8; 1 << 20]).unwrap();
    let o = as_fio(d.path())
        .dir(d.path())
        .args([
            "--readonly",
            "--name=x",
            "--size=1m",
            "--filename=full.dat",
            "--output-format=json",
        ])
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(o.json_doc()["jobs"][0]["read"]["io_bytes"], 1 << 20);
}

/// `x` reads a file that does not exist with no size, its logs asked for: with
/// `log_avg_msec` fio 3.33 still writes its averaged bandwidth and IOPS logs, empty
/// (`b_bw.1.log`, `i_iops.1.log`; `b_bw.log`, `i_iops.log` with `per_job_logs=0`), and no
/// latency log; without `log_avg_msec`, no log at all. Exit 1 each time.
#[test]
fn a_job_that_fails_its_setup_leaves_its_averaged_rate_logs_empty() {
    let test = "a_job_that_fails_its_setup_leaves_its_averaged_rate_logs_empty";
    let logs = [
        "--name=x",
        "--rw=read",
        "--write_bw_log=b",
        "--write_lat_log=l",
        "--write_iops_log=i",
    ];
    let cases: [(&[&str], &[&str]); 3] = [
        (&["--log_avg_msec=100"], &["b_bw.1.log", "i_iops.1.log"]),
        (
            &["--log_avg_msec=100", "--per_job_logs=0"],
            &["b_bw.log", "i_iops.log"],
        ),
        (&[], &[]),
    ];
    for (more, want) in cases {
        let d = scratch();
        let args: Vec<&str> = logs.iter().chain(more).copied().collect();
        for (tool, dir) in sides(d.path(), test) {
            let o = side_in(tool, d.path(), &dir, &args);
            assert_eq!(o.code, 1, "{tool} {more:?}: {}", o.dump());
            let names = entries(&dir);
            assert_eq!(names, want, "{tool} {more:?}");
            for n in &names {
                let len = std::fs::metadata(dir.join(n)).unwrap().len();
                assert_eq!(len, 0, "{tool} {more:?}: {n}");
            }
        }
    }
}

/// `read_iolog=` naming a log that does not exist: fio 3.33's thread fails as it sets
/// its log up (iolog.c `init_iolog`): perror's `fopen read iolog: No such file or
/// directory` on stderr, then the thread's `fio: pid=P, err=22/file:iolog.c:795,
/// func=failed initializing iolog, error=Invalid argument` on stdout, `error` 22 in the
/// JSON report with nothing done, exit 1. iomark refused the job with its own line
/// (exit 2).
#[test]
fn a_missing_read_iolog_fails_the_thread_as_fio() {
    let test = "a_missing_read_iolog_fails_the_thread_as_fio";
    let account = "err=22/file:iolog.c:795, func=failed initializing iolog, error=Invalid argument";
    for fmt in ["normal", "json"] {
        let d = scratch();
        let fmt_opt = format!("--output-format={fmt}");
        let args = [
            "--name=j",
            "--ioengine=null",
            "--size=64k",
            "--read_iolog=zz",
            fmt_opt.as_str(),
        ];
        let (i, f) = both(d.path(), &args, test);
        for (tool, o) in std::iter::once(("iomark", &i)).chain(f.as_ref().map(|f| ("fio", f))) {
            let why = format!("{tool} {fmt}");
            assert_eq!(o.code, 1, "{why}: {}", o.dump());
            assert_eq!(
                o.stderr, "fopen read iolog: No such file or directory\n",
                "{why}"
            );
            let said = o.stdout.lines().filter(|l| l.starts_with("fio: pid="));
            let said: Vec<&str> = said.collect();
            assert_eq!(said.len(), 1, "{why}: {}", o.stdout);
            assert!(said[0].ends_with(account), "{why}: {}", said[0]);
            assert!(
                !said[0].starts_with("fio: pid=0,"),
                "{why}: the thread's own pid"
            );
            if fmt == "json" {
                let j = &o.json_doc()["jobs"][0];
                assert_eq!(j["error"], 22, "{why}");
                assert_eq!(j["read"]["total_ios"], 0, "{why}");
            } else {
                assert!(!o.stdout.contains("j: (groupid="), "{why}: {}", o.stdout);
            }
        }
    }
}

/// `offset=` at a file's end with no `size=`: fio 3.33 sizes the file's I/O as its size
/// less the offset, 0, and says `fio: file F may be ignored` on stdout as it sets the
/// job up. One 64 KiB file at `offset=64k`: then `fio: blocksize is larger than data set
/// range` on stderr, nothing done, exit 1; `f:g` with `g` of 128 KiB: the line, then
/// g's 64 KiB read, exit 0 — before the JSON document too. Past the end (`offset=68k`):
/// `j: you need to specify valid offset=` instead.
#[test]
fn an_offset_at_a_files_end_says_it_may_be_ignored() {
    let test = "an_offset_at_a_files_end_says_it_may_be_ignored";
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    let d = scratch();
    for tool in tools {
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        std::fs::write(w.join("f"), vec![0u8; 64 << 10]).unwrap();
        std::fs::write(w.join("g"), vec![0u8; 128 << 10]).unwrap();
        let base = ["--name=j", "--ioengine=psync", "--offset=64k"];
        let o = cmd.args(base).arg("--filename=f").run();
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        let lines: Vec<&str> = o.stdout.lines().collect();
        assert_eq!(
            lines[2..4],
            ["Starting 1 process", "fio: file f may be ignored"],
            "{tool}"
        );
        assert_eq!(
            o.stderr, "fio: blocksize is larger than data set range\n",
            "{tool}"
        );
        let run = |more: &[&str]| {
            fio_or_ours(tool, d.path())
                .dir(&w)
                .args(base)
                .args(more)
                .run()
        };
        let o = run(&["--filename=f:g"]);
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        let lines: Vec<&str> = o.stdout.lines().collect();
        assert_eq!(
            lines[2..4],
            ["Starting 1 process", "fio: file f may be ignored"],
            "{tool}"
        );
        let o = run(&["--filename=f:g", "--output-format=json"]);
        assert!(
            o.stdout.starts_with("fio: file f may be ignored\n{"),
            "{tool}: {}",
            o.dump()
        );
        assert_eq!(o.json_doc()["jobs"][0]["read"]["io_bytes"], 65536, "{tool}");
        let o = run(&["--filename=f", "--offset=68k"]);
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert!(!o.stdout.contains("may be ignored"), "{tool}: {}", o.dump());
        assert!(
            o.stderr.contains("j: you need to specify valid offset=\n"),
            "{tool}: {}",
            o.dump()
        );
    }
}

/// `zonemode=zbd` on a file still to be made: fio 3.33 sizes the file before it lays it
/// out (0 bytes), finds it smaller than one zone and fails the job in its setup —
/// `j.0.0: file/device size 0 is smaller than zone size 65536`, its `pid=0, err=22`
/// line, nothing done, exit 1 — on every engine that does file I/O; the null engine
/// has no file and runs. A file already one zone long runs.
#[test]
fn zbd_on_a_file_smaller_than_one_zone_fails_the_job_as_fio() {
    let test = "zbd_on_a_file_smaller_than_one_zone_fails_the_job_as_fio";
    let zbd = |engine: &'static str| {
        [
            "--name=j",
            engine,
            "--rw=randwrite",
            "--bs=4k",
            "--size=256k",
            "--zonemode=zbd",
            "--zonesize=64k",
            "--output-format=json",
        ]
    };
    let said = "j.0.0: file/device size 0 is smaller than zone size 65536\nfio: pid=0, err=22/file:zbd.c:985, func=zbd_create_zone_info() failed, error=Invalid argument\n";
    for engine in ["--ioengine=psync", "--ioengine=mmap", "--ioengine=libaio"] {
        let d = scratch();
        let (i, f) = both(d.path(), &zbd(engine), test);
        assert_eq!(
            (i.code, i.stderr.as_str()),
            (1, said),
            "{engine}: {}",
            i.dump()
        );
        let v = i.json_doc();
        assert_eq!(v["jobs"][0]["error"], 22, "{engine}");
        assert_eq!(v["jobs"][0]["write"]["total_ios"], 0, "{engine}");
        if let Some(f) = f {
            assert_eq!(
                (f.code, f.stderr.as_str()),
                (1, said),
                "fio {engine}: {}",
                f.dump()
            );
        }
    }
    let d = scratch();
    let (i, _) = both(d.path(), &zbd("--ioengine=null"), test);
    assert_eq!(i.code, 0, "{}", i.dump());
    assert_eq!(i.json_doc()["jobs"][0]["write"]["total_ios"], 64);
    // a file already laid out (one zone or more) runs
    let d = scratch();
    std::fs::write(d.path().join("j.0.0"), vec![0u8; 256 << 10]).unwrap();
    let (i, f) = both(d.path(), &zbd("--ioengine=psync"), test);
    assert_eq!(i.code, 0, "{}", i.dump());
    assert_eq!(i.json_doc()["jobs"][0]["write"]["total_ios"], 64);
    if let Some(f) = f {
        assert_eq!(f.code, 0, "fio: {}", f.dump());
    }
}

/// `s` with every `pid=N` made `pid=P`.
fn no_pids(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("pid=") {
        out.push_str(&rest[..i + 4]);
        rest = rest[i + 4..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('P');
    }
    out.push_str(rest);
    out
}

/// `iodepth=100000` on libaio and io_uring: fio 3.33 lays the file out, then the
/// thread fails as the engine sets its queue up (`io_queue_init`: io_setup refuses more
/// than aio-max-nr events with EAGAIN, io_uring_setup more than 32768 entries with
/// EINVAL): its `fio: pid=N, err=…` line on stdout, `Run status group 0` without
/// figures, nothing on stderr, exit 1. iomark refused the job before the run (exit 1,
/// no file). libaio is checked where aio-max-nr is under 100000 (the kernel's default
/// is 65536).
#[test]
fn a_queue_the_kernel_refuses_fails_the_thread_at_io_queue_init() {
    let test = "a_queue_the_kernel_refuses_fails_the_thread_at_io_queue_init";
    let aio_max: u64 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(u64::MAX);
    let cases = [
        (
            "io_uring",
            "err=22/file:engines/io_uring.c:998, func=io_queue_init, error=Invalid argument",
        ),
        (
            "libaio",
            "err=11/file:engines/libaio.c:485, func=io_queue_init, error=Resource temporarily unavailable",
        ),
    ];
    for (engine, account) in cases {
        if engine == "libaio" && aio_max >= 100_000 {
            absent_here(format_args!("{test}: aio-max-nr is {aio_max}"));
            continue;
        }
        let d = scratch();
        let eng = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            "--filename=f",
            "--size=1M",
            "--bs=4k",
            "--rw=randread",
            &eng,
            "--iodepth=100000",
        ];
        let i = as_fio(d.path()).dir(d.path()).args(args).run();
        assert_eq!(
            (i.code, i.stderr.as_str()),
            (1, ""),
            "{engine}: {}",
            i.dump()
        );
        let want = format!(
            "j: Laying out IO file (1 file / 1MiB)\nfio: pid=P, {account}\n\n\nRun status group 0 (all jobs):\n"
        );
        // the report ends there (then the disk's lines where the file is on one)
        let upto = |o: &Out| -> String {
            let s = no_pids(&o.stdout);
            s.split("\nDisk stats")
                .next()
                .unwrap_or_default()
                .to_string()
        };
        assert!(upto(&i).ends_with(&want), "{engine}: {}", i.stdout);
        let len = std::fs::metadata(d.path().join("f")).map(|m| m.len());
        assert_eq!(len.ok(), Some(1 << 20), "{engine}: the file is laid out");
        if need_fio(test) {
            let fd = scratch();
            let f = fio_cmd().dir(fd.path()).args(args).run();
            assert_eq!(f.code, i.code, "{engine}: {}", f.dump());
            assert_eq!(upto(&i), upto(&f), "{engine}");
            let disk = |o: &Out| o.stdout.contains("\nDisk stats");
            assert_eq!(disk(&i), disk(&f), "{engine}: {}\n{}", i.stdout, f.stdout);
        }
    }
}

/// A thread fio 3.33 ends before its I/O without an error (`goto err` with no errno):
/// `random_generator=lfsr` over a file of 4 blocks (a 3-bit register, so a thread whose
/// block seed has its low 3 bits all ones cannot set it up: threads 3 and 11 of 16
/// under the default seeds) — `fio: failed initializing LFSR` on stderr once per such
/// thread, its JSON record all zeros with `error` 0, the others' 4 reads each (56),
/// its text report without a block for it (14 of 16), exit 0; and an `exec_prerun`
/// that exits 1 — its `Saving output` line, no I/O, no postrun, `error` 0, exit 0.
#[test]
fn a_thread_fio_ends_before_its_io_without_an_error_reports_zeros() {
    let test = "a_thread_fio_ends_before_its_io_without_an_error_reports_zeros";
    let lfsr = [
        "--name=j",
        "--rw=randread",
        "--bs=4k",
        "--size=16k",
        "--numjobs=16",
        "--random_generator=lfsr",
    ];
    for json in [true, false] {
        let d = scratch();
        let mut args = lfsr.to_vec();
        args.push(if json {
            "--output-format=json"
        } else {
            "--output-format=normal"
        });
        let (i, f) = both(d.path(), &args, test);
        for o in std::iter::once(&i).chain(f.as_ref()) {
            assert_eq!(o.code, 0, "{}", o.dump());
            assert_eq!(
                o.stderr,
                "fio: failed initializing LFSR\n".repeat(2),
                "{}",
                o.dump()
            );
            if json {
                let jobs = o.json_doc()["jobs"].as_array().unwrap().clone();
                let ios: Vec<u64> = jobs
                    .iter()
                    .map(|j| j["read"]["total_ios"].as_u64().unwrap())
                    .collect();
                let mut want = vec![4; 16];
                (want[2], want[10]) = (0, 0);
                assert_eq!(ios, want, "{}", o.dump());
                assert!(jobs.iter().all(|j| j["error"] == 0), "{}", o.dump());
            } else {
                assert_eq!(
                    o.stdout.matches("j: (groupid=0, jobs=1): err= 0").count(),
                    14,
                    "{}",
                    o.dump()
                );
            }
        }
    }
    let d = scratch();
    let args = [
        "--name=p",
        "--filename=f",
        "--size=64k",
        "--rw=read",
        "--exec_prerun=exit 1",
        "--exec_postrun=echo post",
        "--output-format=json",
    ];
    let (i, f) = both(d.path(), &args, test);
    for o in std::iter::once(&i).chain(f.as_ref()) {
        assert_eq!(o.code, 0, "{}", o.dump());
        assert!(
            o.stdout
                .starts_with("p : Saving output of prerun in p.prerun.txt\n{"),
            "{}",
            o.dump()
        );
        assert!(
            !o.stdout.contains("Saving output of postrun"),
            "{}",
            o.dump()
        );
        let j = &o.json_doc()["jobs"][0];
        assert_eq!(
            (j["error"].as_i64(), j["read"]["total_ios"].as_u64()),
            (Some(0), Some(0)),
            "{}",
            o.dump()
        );
    }
    assert!(!d.path().join("p.postrun.txt").exists());
}
