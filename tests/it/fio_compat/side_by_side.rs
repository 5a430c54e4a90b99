//! The rest of "fio's whole contract": what a user sees when the same command
//! line goes to Debian's fio 3.33 and to iomark invoked as `fio` — no job at all, a
//! negative value fio reads as a range, the order of the JSON `job options`, the
//! per-direction runtime, and the number of samples of fio's logs. Each comparison skips
//! (with the reason) when fio is not installed; what iomark must print by itself is
//! checked either way.

use crate::util::*;
use std::path::Path;

/// `args` run in `dir` by iomark as `fio`, and by fio when it is installed.
fn both(dir: &Path, args: &[&str]) -> (Out, Option<Out>) {
    let i = as_fio(dir).dir(dir).args(args).run();
    let f = have_fio().then(|| fio_cmd().dir(dir).args(args).run());
    (i, f)
}

/// No job defined — no arguments, only options, a job file with only `[global]`, a
/// `--section` naming nothing: fio 3.33 prints `No job(s) defined` and an empty line on
/// stderr and its usage on stdout, exit 1; with `--parse-only` nothing, exit 0. `--help`
/// prints the same usage, exit 0. iomark said one line of its own and exited 2.
#[test]
fn no_job_prints_fios_usage_and_exits_1() {
    let d = scratch();
    std::fs::write(d.path().join("g.fio"), "[global]\nrw=read\n").unwrap();
    std::fs::write(d.path().join("a.fio"), "[a]\nioengine=null\nsize=1m\n").unwrap();
    let usage_head = "fio-3.33\nfio [options] [job options] <job file(s)>\n";
    let usage_tail = "\nFio was written by Jens Axboe <axboe@kernel.dk>\n";
    let cases: &[&[&str]] = &[
        &[],
        &["--rw=read", "--output-format=json"],
        &["g.fio"],
        &["--section=x", "a.fio"],
    ];
    for args in cases {
        let (i, f) = both(d.path(), args);
        assert_eq!(i.code, 1, "{args:?}: {}", i.dump());
        assert_eq!(i.stderr, "No job(s) defined\n\n", "{args:?}");
        assert!(i.stdout.starts_with(usage_head), "{args:?}: {}", i.stdout);
        assert!(i.stdout.ends_with(usage_tail), "{args:?}: {}", i.stdout);
        assert_eq!(i.stdout.lines().count(), 45, "{args:?}: {}", i.stdout);
        if let Some(f) = f {
            assert_eq!(
                (i.code, &i.stdout, &i.stderr),
                (f.code, &f.stdout, &f.stderr),
                "{args:?}"
            );
        }
    }
    let help = both(d.path(), &["--help"]);
    assert_eq!((help.0.code, help.0.stderr.as_str()), (0, ""));
    let no_job = as_fio(d.path()).dir(d.path()).run();
    assert_eq!(help.0.stdout, no_job.stdout, "--help is the same usage");
    if let Some(f) = help.1 {
        assert_eq!(help.0.stdout, f.stdout, "fio --help, byte for byte");
    }
    for args in [&["--parse-only"][..], &["--parse-only", "g.fio"][..]] {
        let (i, f) = both(d.path(), args);
        assert_eq!((i.code, i.stdout.as_str(), i.stderr.as_str()), (0, "", ""));
        if let Some(f) = f {
            assert_eq!((f.code, f.stdout.as_str()), (0, ""), "{args:?}");
        }
    }
    // `iomark run` keeps its own one-line answer
    let o = Iomark::program(env!("CARGO_BIN_EXE_iomark"))
        .env("IOMARK_HISTORY", "off")
        .dir(d.path())
        .arg("run")
        .run();
    assert_eq!(o.code, 2, "{}", o.dump());
    assert!(
        o.stderr.contains("no jobs: give --name=NAME"),
        "{}",
        o.dump()
    );
}

/// The JSON report of `out` (stdout of `--output-format=json`).
fn json(out: &Out) -> serde_json::Value {
    let at = out
        .stdout
        .find('{')
        .unwrap_or_else(|| panic!("{}", out.dump()));
    serde_json::from_str(&out.stdout[at..]).unwrap_or_else(|e| panic!("{e}: {}", out.dump()))
}

/// `(jobname, job options as (key, value) in the document's order)` of every job, read
/// from the text (the parsed document does not keep the order of keys).
fn jobs_and_options(text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let doc = |t: &str| -> serde_json::Value { serde_json::from_str(t).unwrap() };
    let mut out = Vec::new();
    for part in text.split("\"jobname\" : ").skip(1) {
        let name = doc(&part[..part.find(',').unwrap()]);
        let at = part.find("\"job options\" : {").unwrap();
        let body = &part[at..];
        let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
        let kv = body
            .lines()
            .filter_map(|l| l.trim().trim_end_matches(',').split_once(" : "))
            .map(|(k, v)| {
                (
                    doc(k).as_str().unwrap().into(),
                    doc(v).as_str().unwrap().into(),
                )
            })
            .collect();
        out.push((name.as_str().unwrap().to_string(), kv));
    }
    out
}

/// The keys of the `global options` object of `text`, in order.
fn global_keys(text: &str) -> Vec<String> {
    let at = text.find("\"global options\" : {").unwrap();
    let body = &text[at..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    body.lines()
        .filter_map(|l| l.trim().split_once(" : "))
        .map(|(k, _)| k.trim_matches('"').to_string())
        .collect()
}

/// Jobs from the command line and from a job file: fio 3.33 reads every option (its
/// getopt) before the job files, so the command line's jobs run and are reported first,
/// wherever the file stands among the words; each job's `job options` keep the order
/// they were written in (a key given twice is written twice, as fio's JSON text does;
/// an alias under fio's name), the command line's globals in `global options`. iomark
/// ran the job files' jobs first.
#[test]
fn command_line_jobs_come_before_job_file_jobs_and_options_keep_their_order() {
    let d = scratch();
    std::fs::write(
        d.path().join("k.fio"),
        "[global]\nioengine=null\nsize=1m\n[a]\nbs=8k\nrw=read\nbs=4k\nblocksize=2k\n\
         [global]\niodepth=4\n[b]\nrw=write\nsize=2m\nioengine=null\n",
    )
    .unwrap();
    let args = [
        "--output-format=json",
        "--bs=4k",
        "--rw=read",
        "--bs=8k",
        "k.fio",
        "--name=c",
        "--size=1m",
        "--rw=write",
        "--readwrite=randread",
        "--ioengine=null",
    ];
    let (i, f) = both(d.path(), &args);
    assert_eq!(i.code, 0, "{}", i.dump());
    let jobs = jobs_and_options(&i.stdout);
    let names: Vec<&str> = jobs.iter().map(|j| j.0.as_str()).collect();
    assert_eq!(names, ["c", "a", "b"]);
    let keys = |n: usize| -> Vec<&str> { jobs[n].1.iter().map(|kv| kv.0.as_str()).collect() };
    assert_eq!(keys(0), ["name", "size", "rw", "rw", "ioengine"]);
    assert_eq!(jobs[0].1[3].1, "randread");
    assert_eq!(keys(1), ["bs", "rw", "bs", "bs"]);
    assert_eq!(jobs[1].1[3].1, "2k");
    let global = global_keys(&i.stdout);
    assert_eq!(global, ["bs", "rw", "bs", "ioengine", "size", "iodepth"]);
    if let Some(f) = f {
        assert_eq!(f.code, 0, "{}", f.dump());
        assert_eq!(jobs, jobs_and_options(&f.stdout));
        assert_eq!(global, global_keys(&f.stdout));
    }
}

/// A direction's `runtime` (JSON, and the `run=` of the text) is fio's whole µs rounded
/// up to whole ms (`update_runtime`), so the bandwidth is bytes × 1000 over that figure:
/// checked against the run time the RunResult (`--json`) records, on jobs of about 0.05
/// ms (null engine) and a few ms (rate-limited), reading and writing.
#[test]
fn a_directions_runtime_is_rounded_up_to_whole_ms() {
    let d = scratch();
    for (rw, extra) in [
        ("read", "--io_size=1m"),
        ("write", "--rate_iops=1000"),
        ("read", "--rate_iops=2000"),
    ] {
        let o = as_fio(d.path())
            .dir(d.path())
            .args(["--name=x", "--ioengine=null", "--bs=4k", "--size=12k"])
            .args([format!("--rw={rw}").as_str(), extra])
            .args(["--output-format=json", "--json=r.json"])
            .run();
        assert_eq!(o.code, 0, "{}", o.dump());
        let job = &json(&o)["jobs"][0];
        let rr: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.path().join("r.json")).unwrap()).unwrap();
        let ns = rr["jobs"][0]["runtime_ns"].as_u64().unwrap();
        let ms = (ns / 1000).div_ceil(1000);
        let dir = &job[rw];
        assert_eq!(
            dir["runtime"].as_u64().unwrap(),
            ms,
            "{rw} {extra}: {ns} ns"
        );
        let bytes = dir["io_bytes"].as_u64().unwrap();
        assert_eq!(dir["bw_bytes"].as_u64().unwrap(), bytes * 1000 / ms, "{rw}");
    }
}

/// `--iodepth=-1` (and -N on fio's other integers whose minimum is 1): fio 3.33 reads
/// the value as the range `-N-N`, prints `iodepth: min value out of range: -1 (1 min)`
/// for its first half and runs with the default (depth 1), listing the value as typed in
/// the JSON `job options`. An `N` itself out of range is refused by both (fio exits 1,
/// iomark 2). iomark refused `-1`.
#[test]
fn a_negative_iodepth_warns_as_fio_and_runs_with_the_default() {
    let d = scratch();
    for (opt, line, key) in [
        (
            "--iodepth=-1",
            "iodepth: min value out of range: -1 (1 min)\n",
            "iodepth",
        ),
        (
            "--iodepth=-4",
            "iodepth: min value out of range: -4 (1 min)\n",
            "iodepth",
        ),
        (
            "--significant_figures=-3",
            "significant_figures: min value out of range: -3 (1 min)\n",
            "significant_figures",
        ),
    ] {
        let args = [
            "--name=x",
            "--ioengine=null",
            "--size=64k",
            opt,
            "--output-format=json",
        ];
        let (i, f) = both(d.path(), &args);
        assert_eq!((i.code, i.stderr.as_str()), (0, line), "{}", i.dump());
        let job = &json(&i)["jobs"][0];
        assert_eq!(job["job options"][key], opt.split_once('=').unwrap().1);
        assert_eq!(job["read"]["total_ios"], 16, "{opt}");
        assert_eq!(job["iodepth_level"]["1"], 100.0, "{opt}: depth stays 1");
        if let Some(f) = f {
            assert_eq!((f.code, f.stderr.as_str()), (0, line), "fio {opt}");
            let fj = &json(&f)["jobs"][0];
            assert_eq!(fj["job options"], job["job options"], "{opt}");
            assert_eq!(fj["iodepth_level"]["1"], job["iodepth_level"]["1"]);
        }
    }
    // -11: 11 is above significant_figures' maximum (10), refused as any bad value
    let args = [
        "--name=x",
        "--ioengine=null",
        "--size=64k",
        "--significant_figures=-11",
    ];
    let (i, f) = both(d.path(), &args);
    assert_eq!(i.code, 1, "{}", i.dump());
    if let Some(f) = f {
        assert_eq!(f.code, 1, "{}", f.dump());
    }
}

/// The percentile tables' headers and labels: `    lat percentiles (…):` four spaces in,
/// as `clat`'s (fio passes "lat", not " lat"), and the labels' decimals as the
/// `percentile_list` was typed (fio's `percentile_precision`: `25.0` prints `25.0th`,
/// `99.90` prints `99.90th`, `50:99` prints `50th`), which the values alone cannot tell.
#[test]
fn percentile_labels_follow_the_list_as_typed() {
    let d = scratch();
    // the label of each entry and each table's header, numbers in brackets masked
    let shape = |text: &str| -> Vec<String> {
        let mut v = Vec::new();
        for l in text.lines() {
            if l.contains(" percentiles (") {
                v.push(l.split(" (").next().unwrap_or("").to_string());
            } else if let Some(row) = l.strip_prefix("     |") {
                let entries = row.split(',').filter(|e| !e.trim().is_empty());
                v.extend(entries.map(|e| e.split('=').next().unwrap_or("").to_string()));
            }
        }
        v
    };
    for (list, label) in [
        ("25.0:50.0:75.0:99.0", " 25.0th"),
        ("50:99.90", " 50.00th"),
        ("50:99", "  50th"),
    ] {
        let opt = format!("--percentile_list={list}");
        let args = [
            "--name=p",
            "--ioengine=null",
            "--rw=read",
            "--size=1m",
            "--lat_percentiles=1",
            opt.as_str(),
        ];
        let (i, f) = both(d.path(), &args);
        assert_eq!(i.code, 0, "{list}: {}", i.dump());
        let got = shape(&i.stdout);
        assert!(
            got.contains(&"    lat percentiles".to_string()),
            "{list}: {got:?}"
        );
        assert!(
            got.contains(&"    clat percentiles".to_string()),
            "{list}: {got:?}"
        );
        assert!(
            got.contains(&label.to_string()),
            "{list}: want {label:?} in {got:?}"
        );
        if let Some(f) = f {
            assert_eq!(got, shape(&f.stdout), "{list}: iomark vs fio 3.33");
        }
    }
}

/// `create_only=1`: no I/O, but the job's logs are created as fio creates them — the
/// bandwidth, IOPS and latency logs empty, the I/O log its header and `add` line.
#[test]
fn create_only_creates_the_jobs_logs_empty() {
    let files = |d: &Path| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_name().to_string_lossy().starts_with("lg"))
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().len(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let args = [
        "--name=j",
        "--ioengine=psync",
        "--rw=read",
        "--size=256k",
        "--create_only=1",
        "--write_iops_log=lg",
        "--write_bw_log=lg",
        "--write_lat_log=lg",
        "--write_iolog=lgio",
    ];
    let d = scratch();
    let i = as_fio(d.path()).dir(d.path()).args(args).run();
    assert_eq!(i.code, 0, "{}", i.dump());
    let got = files(d.path());
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "lg_bw.1.log",
            "lg_clat.1.log",
            "lg_iops.1.log",
            "lg_lat.1.log",
            "lg_slat.1.log",
            "lgio"
        ]
    );
    assert!(got[..5].iter().all(|(_, len)| *len == 0), "{got:?}");
    let iolog = std::fs::read_to_string(d.path().join("lgio")).unwrap();
    let lines: Vec<&str> = iolog.lines().collect();
    assert_eq!(lines.len(), 2, "{iolog}");
    assert_eq!(lines[0], "fio version 3 iolog");
    assert!(lines[1].ends_with(" j.0.0 add"), "{iolog}");
    if have_fio() {
        let f = scratch();
        let o = fio_cmd().dir(f.path()).args(args).run();
        assert_eq!(o.code, 0, "{}", o.dump());
        // the I/O log's size follows its time stamps: names and empty logs compared
        let shape = |v: Vec<(String, u64)>| -> Vec<(String, bool)> {
            v.into_iter().map(|(n, len)| (n, len == 0)).collect()
        };
        assert_eq!(shape(got), shape(files(f.path())), "iomark vs fio 3.33");
    }
}

/// `disable_clat=1` drops the syncs' latencies too (fio records a sync's latency as a
/// completion latency): the count stays in the JSON, no sync block is printed.
#[test]
fn disable_clat_drops_the_sync_latencies_not_their_count() {
    let d = scratch();
    for (clat, block) in [("0", true), ("1", false)] {
        let opt = format!("--disable_clat={clat}");
        let args = [
            "--name=j",
            "--ioengine=psync",
            "--rw=randwrite",
            "--size=256k",
            "--fsync=4",
            opt.as_str(),
            "--output-format=normal,json",
        ];
        let (i, f) = both(d.path(), &args);
        assert_eq!(i.code, 0, "{}", i.dump());
        let said = |o: &Out| o.stdout.contains("  fsync/fdatasync/sync_file_range:\n");
        assert_eq!(said(&i), block, "{opt}: {}", i.stdout);
        let js = &i.stdout[i.stdout.find("{\n").unwrap()..];
        let js = &js[..js.find("\n}\n").unwrap() + 2];
        let v: serde_json::Value = serde_json::from_str(js).unwrap();
        let sync = &v["jobs"][0]["sync"];
        assert!(sync["total_ios"].as_u64().unwrap() >= 15, "{sync}");
        assert_eq!(sync["lat_ns"]["N"].as_u64().unwrap() > 0, block, "{sync}");
        if let Some(f) = f {
            assert_eq!(said(&f), block, "{opt}: fio 3.33\n{}", f.stdout);
        }
    }
}
