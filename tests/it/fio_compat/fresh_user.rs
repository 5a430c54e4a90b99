//! Defects a fresh user found running iomark as `fio` beside Debian's fio 3.33: the
//! same job run by both and compared — `rw=rw:N` moves what fio moves (each direction
//! walks the file on its own), and the text's latency and sample lines under
//! `gtod_reduce=1` and `disable_clat=1` are fio's. Each test skips (with the reason)
//! when fio is not installed, after checking iomark's own run.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// Run `args` with `tool` (`fio`: Debian's; else iomark as `fio`) in a fresh `root/tool`.
fn run(root: &Path, tool: &str, args: &[&str]) -> String {
    let dir = root.join(tool);
    std::fs::create_dir_all(&dir).unwrap();
    let cmd = if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(root)
    };
    let o = cmd.dir(&dir).args(args).run();
    assert_eq!(o.code, 0, "{tool}: {}", o.dump());
    o.stdout
}

/// `(read ios, write ios)` of the first job of a fio JSON document.
fn ios(stdout: &str) -> (u64, u64) {
    let at = stdout
        .find('{')
        .unwrap_or_else(|| panic!("no JSON: {stdout}"));
    let doc: Value = serde_json::from_str(&stdout[at..]).unwrap();
    let j = &doc["jobs"][0];
    let n = |d: &str| j[d]["total_ios"].as_u64().unwrap();
    (n("read"), n("write"))
}

/// `rw=rw:8k`, bs=4k, 1 MiB: as fio's last_pos per direction, reads and writes each
/// step 12 KiB through the file; the 86th step of a direction ends exactly at the
/// file's end (85 × 12 KiB + 4 KiB), which ends the file and so the job — about 85 + 86
/// requests (fio: 85 + 86, 700 KiB), not half of that. (A walk that passes the end
/// without meeting it wraps instead: tests/it/fio_compat/holes.rs.)
#[test]
fn mixed_holed_rw_walks_each_direction_as_fio() {
    let d = scratch();
    let args = [
        "--name=a",
        "--rw=rw:8k",
        "--size=1m",
        "--bs=4k",
        "--filename=f",
        "--output-format=json",
    ];
    let check = |tool: &str| {
        let (r, w) = ios(&run(d.path(), tool, &args));
        // one direction's request ended at the file's end: its 86th
        assert_eq!(r.max(w), 86, "{tool}: {r} reads, {w} writes");
        // the other followed it about half the time (rwmixread=50)
        assert!(r.min(w) > 60, "{tool}: {r} reads, {w} writes");
    };
    check("iomark");
    if need_fio("mixed_holed_rw_walks_each_direction_as_fio") {
        check("fio");
    }
}

/// The direction lines of a text report (`read:` up to `cpu`), names masked to their
/// label (before ':').
fn dir_labels(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("  read:"))
        .take_while(|l| !l.starts_with("  cpu"))
        .map(|l| l.split(':').next().unwrap_or("").to_string())
        .collect()
}

/// `gtod_reduce=1` (no latencies; bandwidth/IOPS sampled every 100 ms of a 1 s run)
/// and `disable_clat=1` (the total latency alone; whatever samples a short run has
/// left aside): the lines under `read:` are fio's.
#[test]
fn reduced_latency_text_has_fios_lines() {
    let d = scratch();
    let cases: [(&[&str], &[&str]); 2] = [
        (
            &["--gtod_reduce=1", "--time_based", "--runtime=1"],
            &["  read", "   bw (  KiB/s)", "   iops        "],
        ),
        (&["--disable_clat=1"], &["  read", "     lat (usec)"]),
    ];
    for (extra, want) in cases {
        let mut args = vec![
            "--name=a",
            "--rw=randread",
            "--size=8m",
            "--filename=f",
            "--bwavgtime=100",
            "--iopsavgtime=100",
        ];
        args.extend_from_slice(extra);
        let sampled = extra[0] == "--gtod_reduce=1";
        // the latency unit (nsec/usec/msec) is the machine's speed's
        let shape = |out: &str| -> Vec<String> {
            dir_labels(out)
                .into_iter()
                .filter(|l| sampled || !l.starts_with("   bw") && !l.starts_with("   iops"))
                .map(|l| l.replace("msec", "usec").replace("nsec", "usec"))
                .collect()
        };
        let ours = shape(&run(d.path(), "iomark", &args));
        assert_eq!(ours, want, "{extra:?}");
        if have_fio() {
            assert_eq!(shape(&run(d.path(), "fio", &args)), ours, "{extra:?}");
        }
    }
}

/// libaio at iodepth=16 after `ramp_time=1`: fio zeroes its depth counts at the ramp's
/// end, so the queue's fill-up (depths 1 to 8) is not in the `IO depths` line — every
/// measured submission found the queue full (16=100.0%), in fio and iomark alike.
#[test]
fn io_depths_after_ramp_leave_the_fill_up_out() {
    let d = scratch();
    let args = [
        "--name=a",
        "--ioengine=libaio",
        "--direct=1",
        "--iodepth=16",
        "--rw=randread",
        "--size=8m",
        "--filename=f",
        "--ramp_time=1",
        "--runtime=1",
        "--time_based",
    ];
    let depths = |out: &str| -> String {
        let l = out.lines().find(|l| l.starts_with("  IO depths"));
        l.unwrap_or_else(|| panic!("no IO depths: {out}"))
            .to_string()
    };
    let want = "  IO depths    : 1=0.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=100.0%, 32=0.0%, >=64=0.0%";
    assert_eq!(depths(&run(d.path(), "iomark", &args)), want);
    if have_fio() {
        assert_eq!(depths(&run(d.path(), "fio", &args)), want);
    }
}

/// One idle job case: what it is, its job file, whether fio 3.33 lists the disk, each
/// job's latency_* keys (None: none).
type IdleJob = (&'static str, &'static str, bool, Vec<Option<[f64; 4]>>);

/// Jobs that move nothing or never start, each `(what, job file, whether fio 3.33
/// lists the disk, each job's latency_* keys as fio prints them: None for none)`. The
/// job files run in a fresh directory on the build's disk (a block device), which holds
/// an empty directory `empty`.
fn idle_jobs() -> Vec<IdleJob> {
    let set = Some([1.0, 0.0, 100.0, 0.0]);
    vec![
        // a job that reads: its disk, and its latency target as set up (depth 1)
        (
            "a job that reads",
            "[j]\nrw=read\nsize=64k\nfilename=f\n",
            true,
            vec![set],
        ),
        // create_only: the job is created (its disk listed) but never begins its I/O
        (
            "create_only",
            "[j]\nsize=64k\nfilename=f\ncreate_only=1\n",
            true,
            vec![None],
        ),
        // opendir added no file: nothing to list, but the job begins its I/O loop
        (
            "an empty opendir",
            "[j]\nopendir=empty\nsize=64k\nrw=read\n",
            false,
            vec![set],
        ),
        // a read_iolog that is not there: no file, and the thread fails in its setup
        (
            "a missing read_iolog",
            "[j]\nread_iolog=nope.log\n",
            false,
            vec![None],
        ),
        // b waits for a null job that ends the run (exitall): b is never created, so
        // its file's disk is not listed and it has no latency target
        (
            "a job waiting for an exitall job",
            "[a]\nioengine=null\nsize=256k\nrw=read\nexitall\n\
             [b]\nwait_for=a\nrw=read\nsize=128k\nfilename=fb\n",
            false,
            vec![set, None],
        ),
        // the same with a first job on the disk: a is created, so the disk is listed
        (
            "a job waiting for an exitall job on the disk",
            "[a]\nsize=256k\nrw=read\nfilename=fa\nexitall\n\
             [b]\nwait_for=a\nrw=read\nsize=128k\nfilename=fb\n",
            true,
            vec![set, None],
        ),
    ]
}

/// Each of [`idle_jobs`] run by `tool` in a fresh `root/tool/N`: (exit code, the JSON
/// document, the normal text).
fn idle_runs(root: &Path, tool: &str) -> Vec<(i32, Value, String)> {
    let mut out = Vec::new();
    for (n, (_, job, _, _)) in idle_jobs().into_iter().enumerate() {
        let mut each = Vec::new();
        for fmt in ["json", "normal"] {
            let dir = root.join(tool).join(format!("{n}.{fmt}"));
            std::fs::create_dir_all(dir.join("empty")).unwrap();
            std::fs::write(dir.join("j.fio"), job).unwrap();
            let cmd = if tool == "fio" {
                fio_cmd()
            } else {
                as_fio(root)
            };
            let fmt = format!("--output-format={fmt}");
            each.push(cmd.dir(&dir).args([fmt.as_str(), "j.fio"]).run());
        }
        let at = each[0]
            .stdout
            .find("{\n")
            .unwrap_or_else(|| panic!("{tool}: {}", each[0].dump()));
        let doc: Value = serde_json::from_str(&each[0].stdout[at..]).unwrap();
        assert_eq!(each[0].code, each[1].code, "{tool}: {}", each[1].dump());
        out.push((each[0].code, doc, each[1].stdout.clone()));
    }
    out
}

/// fio 3.33 lists a disk as it creates a job on it (backend.c `run_threads` calls
/// `init_disk_util` over the job's files): `disk_util` in JSON and the `Disk stats
/// (read/write):` block in the text are there for a job that reads and for
/// `create_only`, and not for an empty `opendir`, a missing `read_iolog` (no file), or a
/// job that waits for an `exitall` null job (never created) — unless a created job is
/// on the disk too. iomark as `fio` and fio side by side.
#[test]
fn disk_stats_list_only_the_disks_of_created_jobs_with_files() {
    let d = scratch();
    let ours = idle_runs(d.path(), "iomark");
    let theirs = need_fio("disk stats of idle jobs").then(|| idle_runs(d.path(), "fio"));
    for (n, (what, _, disk, _)) in idle_jobs().into_iter().enumerate() {
        let (code, doc, text) = &ours[n];
        assert_eq!(doc.get("disk_util").is_some(), disk, "{what}: {doc}");
        assert_eq!(
            text.contains("\nDisk stats (read/write):\n"),
            disk,
            "{what}: {text}"
        );
        if let Some(f) = &theirs {
            let (fcode, fdoc, ftext) = &f[n];
            assert_eq!(code, fcode, "{what}");
            assert_eq!(fdoc.get("disk_util").is_some(), disk, "{what}: fio {fdoc}");
            assert_eq!(
                ftext.contains("\nDisk stats (read/write):\n"),
                disk,
                "{what}: fio {ftext}"
            );
        }
    }
}

/// fio 3.33 prints `latency_depth`, `latency_target`, `latency_percentile` and
/// `latency_window` when the job's latency depth was set, which its I/O loop does as it
/// begins (`lat_target_init`: the depth, 1 here, with the target's settings): not for a
/// job created only to lay its files out, one that failed in its setup, or one never
/// started; for a job without a file (an empty `opendir`) it does. iomark as `fio` and
/// fio side by side, key by key.
#[test]
fn latency_keys_are_those_of_a_job_that_began_its_io_loop() {
    let d = scratch();
    let keys = [
        "latency_depth",
        "latency_target",
        "latency_percentile",
        "latency_window",
    ];
    let lat = |doc: &Value| -> Vec<Option<[f64; 4]>> {
        let jobs = doc["jobs"].as_array().unwrap();
        jobs.iter()
            .map(|j| {
                let v: Vec<Option<f64>> = keys
                    .iter()
                    .map(|k| j.get(*k).and_then(Value::as_f64))
                    .collect();
                assert!(
                    v.iter().all(Option::is_some) || v.iter().all(Option::is_none),
                    "{j}"
                );
                v.iter()
                    .copied()
                    .collect::<Option<Vec<f64>>>()
                    .map(|v| [v[0], v[1], v[2], v[3]])
            })
            .collect()
    };
    let ours = idle_runs(d.path(), "iomark");
    let theirs = need_fio("latency keys of idle jobs").then(|| idle_runs(d.path(), "fio"));
    for (n, (what, _, _, want)) in idle_jobs().into_iter().enumerate() {
        assert_eq!(lat(&ours[n].1), want, "{what}: {}", ours[n].1);
        if let Some(f) = &theirs {
            assert_eq!(lat(&f[n].1), want, "{what}: fio {}", f[n].1);
        }
    }
}

/// `tool`'s run of `args` in a fresh `d/TOOL`: its output and the names of the files
/// left in its directory.
fn run_in(d: &Path, tool: &str, args: &[&str]) -> (Out, Vec<String>) {
    let (cmd, w) = fio_or_ours_in(tool, d);
    let o = cmd.args(args).run();
    let mut names: Vec<String> = std::fs::read_dir(&w)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    (o, names)
}

/// `nrfiles=0` (fio's range starts at 0): with `size=` the job has no file, lays out
/// and moves nothing, and the text report is the header and an empty `Run status group`
/// (fio 3.33: exit 0, no file made, the JSON's bytes and requests 0); without `size=`
/// its setup fails with fio's `you need to specify size=` (exit 1).
#[test]
fn nrfiles_zero_is_a_job_with_no_file() {
    let d = scratch();
    let job = ["--name=j", "--nrfiles=0", "--rw=write", "--ioengine=psync"];
    let mut tools = vec!["iomark"];
    if need_fio("nrfiles_zero_is_a_job_with_no_file") {
        tools.push("fio");
    }
    for tool in tools {
        let (o, files) = run_in(d.path(), tool, &[&job[..], &["--size=1m"]].concat());
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        assert!(files.is_empty(), "{tool}: {files:?}");
        assert_eq!(o.stderr, "", "{tool}");
        let head = "j: (g=0): rw=write, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1";
        let want = [
            head,
            "fio-3.33",
            "Starting 1 process",
            "",
            "",
            "Run status group 0 (all jobs):",
        ];
        assert_eq!(o.stdout.lines().collect::<Vec<_>>(), want, "{tool}");
        let json = [&job[..], &["--size=1m", "--output-format=json"]].concat();
        let (o, _) = run_in(d.path(), tool, &json);
        let j = &o.ok().json_doc()["jobs"][0];
        assert_eq!(j["write"]["io_bytes"], 0, "{tool}");
        assert_eq!(j["write"]["total_ios"], 0, "{tool}");
        assert_eq!(j["error"], 0, "{tool}");
        let (o, _) = run_in(d.path(), tool, &job);
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert!(
            o.stderr.contains("j: you need to specify size=\n"),
            "{tool}: {}",
            o.dump()
        );
    }
}

/// `iodepth=100000` on a synchronous engine (psync): fio 3.33 takes it (its range has no
/// maximum), prints its note that the depth is capped at 1 on stdout after the layout
/// line, and runs one request at a time; `iodepth=3000000000` is below 1 as C's `int`
/// (fio's range line, exit 1).
#[test]
fn a_huge_iodepth_on_a_sync_engine_is_capped_with_fios_note() {
    let d = scratch();
    let job = [
        "--name=j",
        "--size=1m",
        "--rw=write",
        "--ioengine=psync",
        "--filename=f",
    ];
    let mut tools = vec!["iomark"];
    if need_fio("a_huge_iodepth_on_a_sync_engine_is_capped_with_fios_note") {
        tools.push("fio");
    }
    let note = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1";
    for tool in tools {
        let (o, _) = run_in(d.path(), tool, &[&job[..], &["--iodepth=100000"]].concat());
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        assert_eq!(o.stderr, "", "{tool}");
        let lines: Vec<&str> = o.stdout.lines().collect();
        assert!(
            lines[0].ends_with("ioengine=psync, iodepth=100000"),
            "{tool}: {}",
            lines[0]
        );
        assert_eq!(
            lines[3..5],
            ["j: Laying out IO file (1 file / 1MiB)", note],
            "{tool}"
        );
        let json = [&job[..], &["--iodepth=100000", "--output-format=json"]].concat();
        let (o, _) = run_in(d.path(), tool, &json);
        assert!(
            o.stdout.starts_with(&format!("{note}\n")),
            "{tool}: {}",
            o.dump()
        );
        let j = &o.ok().json_doc()["jobs"][0];
        assert_eq!(j["write"]["io_bytes"], 1 << 20, "{tool}");
        assert_eq!(j["job options"]["iodepth"], "100000", "{tool}");
        assert_eq!(j["iodepth_level"]["1"], 100.0, "{tool}");
        let (o, _) = run_in(
            d.path(),
            tool,
            &[&job[..], &["--iodepth=3000000000"]].concat(),
        );
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert_eq!(
            o.stderr,
            "iodepth: min value out of range: 3000000000 (1 min)\nfio: failed parsing iodepth=3000000000\n",
            "{tool}"
        );
    }
}

/// The tools a side-by-side test of this module runs: iomark as `fio`, and fio 3.33
/// when it is installed.
fn tools(test: &str) -> Vec<&'static str> {
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    tools
}

/// A time with a fraction is its whole part in the option's unit, as fio 3.33's
/// str_to_decimal reads it: `runtime=1.5` is a 1 s run (`job_runtime` 1000 ms and a
/// little), `runtime=0.3` is no runtime (with `time_based`, fio's line that it needs
/// one, and the file read once), `ramp_time=0.5` and `startdelay=1.5` are taken.
#[test]
fn a_fractional_time_is_its_whole_part_as_fio() {
    let d = scratch();
    let job = [
        "--name=j",
        "--size=1m",
        "--rw=read",
        "--filename=f",
        "--output-format=json",
    ];
    for tool in tools("a_fractional_time_is_its_whole_part_as_fio") {
        let timed = [
            &job[..],
            &["--ioengine=null", "--time_based", "--runtime=1.5"],
        ]
        .concat();
        let (o, _) = run_in(d.path(), tool, &timed);
        assert_eq!(o.stderr, "", "{tool}");
        let ms = o.ok().json_doc()["jobs"][0]["job_runtime"]
            .as_u64()
            .unwrap();
        assert!((1000..1400).contains(&ms), "{tool}: {ms} ms");
        let short = [&job[..], &["--time_based", "--runtime=0.3"]].concat();
        let (o, _) = run_in(d.path(), tool, &short);
        assert_eq!(
            o.stderr, "fio: time_based requires a runtime/timeout setting\n",
            "{tool}"
        );
        assert_eq!(
            o.ok().json_doc()["jobs"][0]["read"]["io_bytes"],
            1 << 20,
            "{tool}"
        );
        let dry = [
            &job[..],
            &["--ramp_time=0.5", "--startdelay=1.5", "--parse-only"],
        ]
        .concat();
        let (o, _) = run_in(d.path(), tool, &dry);
        assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{tool}");
    }
}

/// `nrfiles=N` after `filename=` is fio 3.33's count of the job's files: the first N
/// names are the job's. `filename=f1 nrfiles=0` is a job with no file (no file made,
/// nothing moved, no job block, exit 0); `filename=f1:f2 nrfiles=1` writes f1 alone, at
/// the whole `size=`.
#[test]
fn nrfiles_after_filename_counts_the_names_as_fio() {
    let d = scratch();
    let job = ["--name=j", "--size=1m", "--rw=write", "--ioengine=psync"];
    for tool in tools("nrfiles_after_filename_counts_the_names_as_fio") {
        let none = [&job[..], &["--filename=f1", "--nrfiles=0"]].concat();
        let (o, files) = run_in(d.path(), tool, &none);
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        assert!(files.is_empty(), "{tool}: {files:?}");
        assert!(!o.stdout.contains("groupid"), "{tool}: {}", o.stdout);
        let json = [&none[..], &["--output-format=json"]].concat();
        let (o, _) = run_in(d.path(), tool, &json);
        let j = &o.ok().json_doc()["jobs"][0];
        assert_eq!(
            (j["write"]["io_bytes"].as_u64(), j["error"].as_u64()),
            (Some(0), Some(0)),
            "{tool}"
        );
        let one = [&job[..], &["--filename=f1:f2", "--nrfiles=1"]].concat();
        let (o, files) = run_in(d.path(), tool, &one);
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        assert_eq!(files, ["f1"], "{tool}");
        let len = std::fs::metadata(d.path().join(tool).join("f1"))
            .unwrap()
            .len();
        assert_eq!(len, 1 << 20, "{tool}");
    }
}

/// `atomic=1` with an engine that issues no RWF_ATOMIC write (posixaio, mmap): fio 3.33
/// opens the files O_DIRECT and runs the job, and so does iomark as `fio` (1 MiB
/// written, exit 0). A job that only reads needs no atomic write: `iomark run
/// --atomic=1 --rw=read` reads a file whose filesystem has none.
#[test]
fn atomic_on_engines_without_atomic_writes_runs_as_fio() {
    let d = scratch();
    for tool in tools("atomic_on_engines_without_atomic_writes_runs_as_fio") {
        for engine in ["posixaio", "mmap"] {
            let e = format!("--ioengine={engine}");
            let args = [
                "--name=j",
                "--size=1m",
                "--rw=write",
                "--filename=f",
                "--atomic=1",
                &e,
                "--output-format=json",
            ];
            let (o, _) = run_in(d.path(), tool, &args);
            let j = &o.ok().json_doc()["jobs"][0];
            assert_eq!(j["write"]["io_bytes"], 1 << 20, "{tool} {engine}");
            assert_eq!(j["error"], 0, "{tool} {engine}");
        }
    }
    let w = d.path().join("run");
    std::fs::create_dir_all(&w).unwrap();
    std::fs::write(w.join("f"), vec![7u8; 1 << 20]).unwrap();
    let args = [
        "--name=j",
        "--filename=f",
        "--rw=read",
        "--atomic=1",
        "--output-format=json",
    ];
    let o = Iomark::new().dir(&w).arg("run").args(args).run();
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(o.json_doc()["jobs"][0]["read"]["io_bytes"], 1 << 20);
}

/// `[ global ]` (blanks inside the brackets) is a job named ` global ` in fio 3.33, not
/// its global section: it reads its 1 MiB file ` global .0.0`, and the job after it,
/// which got no `size=`, fails its setup (`you need to specify size=`, error 22, exit 1).
#[test]
fn a_bracketed_global_with_blanks_is_a_job_as_fio() {
    let d = scratch();
    for tool in tools("a_bracketed_global_with_blanks_is_a_job_as_fio") {
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        std::fs::write(w.join("g.fio"), "[ global ]\nsize=1m\n[j1]\nrw=write\n").unwrap();
        let o = cmd.args(["g.fio", "--output-format=json"]).run();
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert!(
            o.stderr.starts_with("j1: you need to specify size=\n"),
            "{tool}: {}",
            o.stderr
        );
        let doc = o.json_doc();
        let jobs: Vec<(&str, u64, u64)> = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["jobname"].as_str().unwrap(),
                    j["read"]["io_bytes"].as_u64().unwrap(),
                    j["error"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(jobs, [(" global ", 1 << 20, 0), ("j1", 0, 22)], "{tool}");
        assert!(w.join(" global .0.0").exists(), "{tool}");
    }
}

/// `offset=` at the end of a file with no `size=`: the job's data set is empty. As
/// `fio` the job fails its setup as fio 3.33's (`fio: file f may be ignored`, `fio:
/// blocksize is larger than data set range`, exit 1); `iomark run` refuses it before the
/// run (exit 2), naming the file, instead of a run that moves nothing and exits 0.
#[test]
fn an_offset_at_the_files_end_is_refused_by_iomark_run() {
    let d = scratch();
    std::fs::write(d.path().join("f"), vec![0u8; 1 << 20]).unwrap();
    let args = ["--name=j", "--filename=f", "--rw=read", "--offset=1m"];
    let o = as_fio(d.path()).dir(d.path()).args(args).run();
    assert_eq!(o.code, 1, "{}", o.dump());
    assert!(
        o.stderr
            .contains("fio: blocksize is larger than data set range\n"),
        "{}",
        o.stderr
    );
    let o = Iomark::new().dir(d.path()).arg("run").args(args).run();
    assert_eq!(o.code, 2, "{}", o.dump());
    assert!(
        o.stderr.contains("(offset= is at the end of f)"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("smaller than its smallest block of 4096 bytes"),
        "{}",
        o.stderr
    );
}

/// A time whose letters name no unit of fio's counts µs, as fio 3.33 reads it (its
/// `get_mult_time`: `us…` and `ms…` by their first two letters, `s`, `m`, `h`, `d` only
/// as the whole word, any other letters 1 µs): `runtime=4k`, `runtime=1x`,
/// `runtime=2sec` and `runtime=3ns` are a few µs of a time-based null job, so its
/// `job_runtime` is 0 ms (not the 2 s `2sec` reads as by its name), and
/// `startdelay=5sec` delays it 5 µs (the run's `elapsed` is 0 or 1 s, not 5);
/// `thinktime=4k` thinks 4 µs after each of 8 requests. Exit 0 for each, both tools.
#[test]
fn unknown_time_letters_count_microseconds_as_fio() {
    let d = scratch();
    let job = [
        "--name=j",
        "--ioengine=null",
        "--size=64k",
        "--output-format=json",
    ];
    for tool in ["iomark", "fio"] {
        if tool == "fio" && !need_fio("unknown_time_letters_count_microseconds_as_fio") {
            continue;
        }
        for t in ["4k", "1x", "2sec", "3ns"] {
            let (cmd, _) = fio_or_ours_in(tool, d.path());
            let runtime = format!("--runtime={t}");
            let o = cmd
                .args(job)
                .args(["--time_based", &runtime, "--startdelay=5sec"])
                .run();
            assert_eq!(o.code, 0, "{tool} runtime={t}: {}", o.dump());
            let doc = o.json_doc();
            let ms = doc["jobs"][0]["job_runtime"].as_u64();
            assert_eq!(ms, Some(0), "{tool} runtime={t}: {}", o.dump());
            let elapsed = doc["jobs"][0]["elapsed"].as_u64().unwrap_or(99);
            assert!(elapsed <= 1, "{tool} startdelay=5sec: elapsed {elapsed}");
        }
        let (cmd, _) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args(job)
            .args(["--thinktime=4k", "--number_ios=8"])
            .run();
        assert_eq!(o.code, 0, "{tool} thinktime=4k: {}", o.dump());
        let read = &o.json_doc()["jobs"][0]["read"];
        assert_eq!(read["total_ios"].as_u64(), Some(8), "{tool}: {}", o.dump());
    }
}
