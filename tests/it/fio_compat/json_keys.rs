//! fio JSON keys and text lines of `iomark run` that come from sampling or from
//! distributions (fio 3.33 names and units): per-direction `bw_*` (KiB/s) and `iops_*`
//! samples every `bw_avg_time` / `iops_avg_time` ms, `bw_agg` (%), `iodepth_level`,
//! `iodepth_submit`, `iodepth_complete`, `latency_ns/us/ms` (% of I/Os), top-level
//! `time`, `disk_util`, the job's `error` errno with `continue_on_error`, and the text
//! form of sizes, bandwidth and the "Run status group" block.

use crate::util::*;
use serde_json::Value;
use std::os::unix::fs::MetadataExt;

#[test]
fn rate_limited_job_has_fios_bw_and_iops_samples() {
    let d = scratch();
    // 1000 IOPS × 4 KiB for 1.1 s, samples every 200 ms: 5 samples of ≈ 1000 IOPS and
    // ≈ 4000 KiB/s (1000 × 4096 / 1024)
    let o = run(
        d.path(),
        &[
            "--name=s",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--rate_iops=1000",
            "--time_based",
            "--runtime=1100ms",
            "--bw_avg_time=200",
            "--iops_avg_time=200",
            "--output-format=json",
        ],
    );
    let j = o.ok().json();
    let r = &j["jobs"][0]["read"];
    let n = r["iops_samples"].as_u64().unwrap();
    assert!((4..=5).contains(&n), "{r}");
    assert_eq!(r["bw_samples"].as_u64(), Some(n));
    let im = as_f64(&r["iops_mean"]);
    assert!((900.0..=1100.0).contains(&im), "{r}");
    let bm = as_f64(&r["bw_mean"]);
    assert!((3600.0..=4400.0).contains(&bm), "bw_mean KiB/s: {r}");
    let (bmin, bmax) = (r["bw_min"].as_u64().unwrap(), r["bw_max"].as_u64().unwrap());
    assert!(bmin as f64 <= bm && bm <= bmax as f64, "{r}");
    assert!(as_f64(&r["bw_dev"]) >= 0.0 && as_f64(&r["iops_stddev"]) >= 0.0);
    // one job: its mean sample, truncated to an integer as fio's `int`, against the
    // group's bandwidth in KiB/s as a double (fio's convert_agg_kbytes_percent), ≈ 100 %
    let agg_kib = r["bw_bytes"].as_u64().unwrap() as f64 / 1024.0;
    let want = (bm.trunc() * 100.0 / agg_kib).min(100.0);
    assert!((as_f64(&r["bw_agg"]) - want).abs() < 1e-6, "{r}");
    assert!(as_f64(&r["bw_agg"]) > 85.0, "{r}");
    // no writes: no samples, all zero (fio)
    let w = &j["jobs"][0]["write"];
    assert_eq!(w["bw_samples"], 0);
    assert_eq!(w["iops_max"], 0);
    assert_eq!(w["bw_agg"].as_f64(), Some(0.0));
    let t = j["time"].as_str().unwrap();
    assert_eq!(t.split_whitespace().count(), 5, "{t}");
    assert!(j["timestamp_ms"].as_u64().unwrap() / 1000 == j["timestamp"].as_u64().unwrap());
}

#[test]
fn sync_engine_depths_and_latency_buckets() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--name=p",
            "--filename=f",
            "--ioengine=psync",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--output-format=json",
        ],
    );
    let j = o.ok().json();
    let job = &j["jobs"][0];
    // 256 synchronous reads: each one in flight alone, one per submit and per completion
    assert_eq!(as_f64(&job["iodepth_level"]["1"]), 100.0, "{job}");
    assert_eq!(as_f64(&job["iodepth_level"][">=64"]), 0.0);
    assert_eq!(as_f64(&job["iodepth_submit"]["4"]), 100.0, "{job}");
    assert_eq!(as_f64(&job["iodepth_complete"]["4"]), 100.0, "{job}");
    for k in ["iodepth_submit", "iodepth_complete"] {
        let keys: Vec<&String> = job[k].as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 7);
        for want in ["0", "4", "8", "16", "32", "64", ">=64"] {
            assert!(job[k].get(want).is_some(), "{k} lacks {want}");
        }
    }
    // every I/O's clat is in exactly one bucket: the shares add up to 100 % (each
    // non-empty bucket is at least 0.01, so allow a little over)
    let mut sum = 0.0;
    for k in ["latency_ns", "latency_us", "latency_ms"] {
        sum += job[k]
            .as_object()
            .unwrap()
            .values()
            .map(as_f64)
            .sum::<f64>();
    }
    assert!((99.99..=100.2).contains(&sum), "{sum} {job}");
    assert_eq!(job["latency_ms"].as_object().unwrap().len(), 12);
    assert!(job["latency_ms"].get(">=2000").is_some());
    assert_eq!(job["error"], 0);
}

#[test]
fn queued_engine_depth_level_is_the_iodepth() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--name=q",
            "--ioengine=io_uring",
            "--filename=f",
            "--rw=randread",
            "--bs=4k",
            "--size=4m",
            "--iodepth=8",
            "--output-format=json",
        ],
    );
    if o.code != 0 && o.stderr.contains("io_uring") {
        skip("io_uring unavailable here");
        return;
    }
    let j = o.ok().json();
    let lv = &j["jobs"][0]["iodepth_level"];
    // the first 7 submissions find 1..7 in flight; the other ~1017 find 8
    assert!(as_f64(&lv["8"]) > 99.0, "{lv}");
    assert_eq!(as_f64(&lv["1"]), 0.1, "{lv}");
    assert_eq!(as_f64(&lv["16"]), 0.0, "{lv}");
}

#[test]
fn avg_time_zero_takes_no_samples() {
    let d = scratch();
    // fio 3.33: bwavgtime=0 / iopsavgtime=0 are accepted and no sample is taken
    let o = run(
        d.path(),
        &[
            "--name=z",
            "--filename=f",
            "--size=64k",
            "--bwavgtime=0",
            "--iops_avg_time=0",
            "--output-format=json",
        ],
    );
    let j = o.ok().json();
    assert_eq!(j["jobs"][0]["read"]["bw_samples"], 0, "{j}");
    assert_eq!(j["jobs"][0]["read"]["iops_samples"], 0, "{j}");
    let o = run(
        d.path(),
        &["--name=z", "--filename=g", "--size=64k", "--bwavgtime=x"],
    );
    assert_eq!(o.code, 2);
    assert_eq!(o.stderr.trim().lines().count(), 1, "{}", o.stderr);
    assert!(o.stderr.contains("bwavgtime"), "{}", o.stderr);
    assert!(!d.path().join("g").exists(), "nothing created");
}

#[test]
fn continue_on_error_sets_the_jobs_error_to_the_errno() {
    let d = scratch();
    let o = Iomark::new()
        .dir(d.path())
        .fault("write:eio@10")
        .args([
            "run",
            "--name=w",
            "--filename=f",
            "--size=256k",
            "--bs=4k",
            "--rw=write",
            "--continue_on_error=write",
            "--output-format=json",
        ])
        .run();
    assert_eq!(o.code, 1);
    let j: Value = serde_json::from_str(&o.stdout).expect("fio JSON");
    assert_eq!(j["jobs"][0]["error"], libc::EIO);
    assert_eq!(j["jobs"][0]["first_error"], libc::EIO);
    assert_eq!(j["jobs"][0]["total_err"], 1);
}

#[test]
fn disk_util_names_the_device_under_the_file() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--name=u",
            "--filename=f",
            "--rw=write",
            "--bs=64k",
            "--size=1m",
            "--end_fsync=1",
            "--output-format=json",
        ],
    );
    let j = o.ok().json();
    let dev = std::fs::metadata(d.path()).unwrap().dev();
    let sys = format!("/sys/dev/block/{}:{}", libc::major(dev), libc::minor(dev));
    match std::fs::canonicalize(&sys) {
        Ok(p) if p.join("stat").exists() => {
            let du = j["disk_util"].as_array().expect("disk_util array");
            assert_eq!(du.len(), 1, "{du:?}");
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            assert_eq!(du[0]["name"], name.as_str());
            for k in [
                "read_ios",
                "write_ios",
                "read_merges",
                "write_merges",
                "read_ticks",
                "write_ticks",
                "in_queue",
            ] {
                assert!(du[0][k].is_u64(), "{k}: {du:?}");
            }
            let u = as_f64(&du[0]["util"]);
            assert!((0.0..=100.0).contains(&u));
            // end_fsync pushed 1 MiB to the device: at least one write reached it
            assert!(du[0]["write_ios"].as_u64().unwrap() >= 1, "{du:?}");
        }
        // no block device under the temp dir (tmpfs): fio leaves the key out
        _ => assert!(j.get("disk_util").is_none(), "{j}"),
    }
}

#[test]
fn text_sizes_bandwidth_and_group_block_are_fios() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--name=t",
            "--filename=f",
            "--rw=read",
            "--bs=4k",
            "--size=64k",
        ],
    );
    assert!(o.code == 0);
    let s = o.stdout;
    // 65536 bytes: fio's "64.0KiB", never "0.1MiB"
    assert!(s.contains("(64.0KiB/"), "{s}");
    assert!(!s.contains("0.1MiB"), "{s}");
    let g = s
        .lines()
        .skip_while(|l| *l != "Run status group 0 (all jobs):")
        .nth(1)
        .unwrap_or_else(|| panic!("no group block: {s}"));
    assert!(g.starts_with("   READ: bw="), "{g}");
    assert!(g.contains(", io=64.0KiB (65.5kB), run="), "{g}");
    assert!(g.ends_with("msec"), "{g}");
    assert!(s.contains("  IO depths    : 1=100.0%"), "{s}");
}

#[test]
fn options_without_a_value_are_left_out_like_fio() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--name=o",
            "--ioengine=null",
            "--size=64k",
            "--time_based",
            "--runtime=50ms",
            "--output-format=json",
        ],
    );
    let j = o.ok().json();
    let opts = j["jobs"][0]["job options"].as_object().unwrap();
    // fio 3.33: `--time_based` (no value) is not listed; valued options are, as strings
    assert!(!opts.contains_key("time_based"), "{opts:?}");
    assert_eq!(opts["runtime"], "50ms");
    assert_eq!(opts["size"], "64k");
    // no global section: fio prints no "global options"
    assert!(j.get("global options").is_none(), "{j}");
}

/// fio's `sync.lat_ns` has the job's percentile list (`percentile`, ns) when there were
/// syncs, and `bins` with json+, as fio 3.33 prints them; no sync: no percentile key.
#[test]
fn sync_latency_has_percentiles_and_bins_like_fio() {
    let d = scratch();
    let base = [
        "--name=s",
        "--filename=f",
        "--size=256k",
        "--bs=4k",
        "--rw=write",
        "--fsync=4",
        "--percentile_list=50:99",
    ];
    let v = run(d.path(), &[&base[..], &["--output-format=json"]].concat())
        .ok()
        .json();
    let s = &v["jobs"][0]["sync"];
    // 64 writes, a sync before each 4th's next one: 15 (fio 3.33: 15)
    assert_eq!(s["total_ios"], 15, "{s}");
    let p = s["lat_ns"]["percentile"]
        .as_object()
        .expect("sync percentiles");
    assert_eq!(
        p.keys().collect::<Vec<_>>(),
        ["50.000000", "99.000000"],
        "{s}"
    );
    let p50 = as_f64(&p["50.000000"]);
    let (min, max) = (as_f64(&s["lat_ns"]["min"]), as_f64(&s["lat_ns"]["max"]));
    assert!(p50 >= min * 0.99 && p50 <= max * 1.01, "{s}");
    assert!(s["lat_ns"].get("bins").is_none(), "json: no bins");
    let v = run(d.path(), &[&base[..], &["--output-format=json+"]].concat())
        .ok()
        .json();
    let bins = v["jobs"][0]["sync"]["lat_ns"]["bins"]
        .as_object()
        .expect("json+ bins");
    let n: u64 = bins.values().map(|x| x.as_u64().unwrap()).sum();
    assert_eq!(n, 15);
    let v = run(
        d.path(),
        &[
            "--name=n",
            "--filename=g",
            "--size=64k",
            "--rw=write",
            "--output-format=json",
        ],
    )
    .ok()
    .json();
    assert!(v["jobs"][0]["sync"]["lat_ns"].get("percentile").is_none());
}

/// `(bw_samples, iops_samples)` of the first job's reads.
fn read_sample_counts(j: &Value) -> (u64, u64) {
    let r = &j["jobs"][0]["read"];
    (
        r["bw_samples"].as_u64().unwrap(),
        r["iops_samples"].as_u64().unwrap(),
    )
}

#[test]
fn sample_counts_are_fios() {
    // fio 3.33 samples only while the job runs, whole intervals, no partial one at the
    // end: 1250 ms at 500 ms has 2 samples (at 500 and 1000; 250 ms from either
    // boundary, so timing cannot move the count)
    let args = [
        "--name=s",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=1m",
        "--time_based",
        "--runtime=1250ms",
        "--output-format=json",
    ];
    let d = scratch();
    let ours = read_sample_counts(&run(d.path(), &args).ok().json());
    assert_eq!(ours, (2, 2));
    if have_fio() {
        let o = fio_cmd().dir(d.path()).args(args).run();
        assert_eq!(read_sample_counts(&o.ok().json()), ours);
    } else {
        eprintln!("fio not installed: compared with fio 3.33's count (2) only");
    }
    // an interval that ends with the job gets no sample (fio: a 2 s job at 500 ms has
    // 3, not 4): 1 s at 500 ms has 1
    let mut one = args;
    one[6] = "--runtime=1s";
    let ours = read_sample_counts(&run(d.path(), &one).ok().json());
    assert_eq!(ours, (1, 1));
}

/// The keys of the first `"job options"` (or `"global options"`) object of fio JSON
/// text, in the order they are written.
fn option_keys(text: &str, which: &str) -> Vec<String> {
    let start = text.find(&format!("\"{which}\"")).expect("options object");
    let body = &text[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    body.lines()
        .filter_map(|l| l.trim().strip_prefix('"'))
        .map(|l| l[..l.find('"').unwrap()].to_string())
        .collect()
}

#[test]
fn job_options_are_listed_as_given_with_the_name() {
    // fio 3.33: `"global options"` {ioengine, size}, `"job options"` {name, rw, bs}
    let args = [
        "--ioengine=null",
        "--size=1m",
        "--name=w",
        "--rw=randread",
        "--norandommap",
        "--bs=4k",
        "--output-format=json",
    ];
    let d = scratch();
    let o = run(d.path(), &args);
    o.ok();
    let text = o.stdout.clone();
    assert_eq!(option_keys(&text, "job options"), ["name", "rw", "bs"]);
    assert_eq!(option_keys(&text, "global options"), ["ioengine", "size"]);
    if have_fio() {
        let f = fio_cmd().dir(d.path()).args(args).run();
        let ft = f.stdout.clone();
        for which in ["job options", "global options"] {
            assert_eq!(option_keys(&text, which), option_keys(&ft, which), "{ft}");
        }
    }
    // a job file: the section name is not an option; [global] options are listed once
    // under "global options", a job lists only its own, in file order
    std::fs::write(
        d.path().join("j.fio"),
        "[global]\nioengine=null\nsize=1m\nbs=4k\n\n[b]\nrw=randread\niodepth=2\nbs=8k\n",
    )
    .unwrap();
    let o = run(d.path(), &["j.fio", "--output-format=json"]);
    o.ok();
    let text = o.stdout.clone();
    assert_eq!(option_keys(&text, "job options"), ["rw", "iodepth", "bs"]);
    assert_eq!(
        option_keys(&text, "global options"),
        ["ioengine", "size", "bs"]
    );
}

/// `ignore_error` turns `continue_on_error` on for the kinds it lists, and a later
/// `continue_on_error=none` turns it off again (fio 3.33 `options.c`: the list ORs its
/// kinds into the option, the option replaces them): fio prints the `errors` line and
/// `total_err`/`first_error` for the first job file and neither for the second (the
/// oracle's seed-94 job 641, where iomark printed them). Compared with fio side by side.
#[test]
fn continue_on_error_none_after_ignore_error_turns_the_error_count_off_as_fio() {
    let d = scratch();
    let base = "[j]\nioengine=null\nrw=write\nbs=4k\nsize=64k\n";
    let cases = [
        ("ignore_error=EIO:ENOSPC\n", true),
        ("ignore_error=EIO:ENOSPC\ncontinue_on_error=none\n", false),
        ("continue_on_error=none\nignore_error=,EIO\n", true),
    ];
    let mut tools = vec!["iomark"];
    if need_fio("continue_on_error_none_after_ignore_error") {
        tools.push("fio");
    }
    for (keys, on) in cases {
        let job = format!("{base}{keys}");
        for tool in &tools {
            let (cmd, w) = fio_or_ours_in(tool, d.path());
            std::fs::write(w.join("j.fio"), &job).unwrap();
            let text = cmd.args(["j.fio"]).run();
            assert_eq!(text.code, 0, "{tool} {keys:?}: {}", text.dump());
            let line = text
                .stdout
                .contains("     errors    : total=0, first_error=0/<Success>");
            assert_eq!(line, on, "{tool} {keys:?}: {}", text.stdout);
            let (cmd, w) = fio_or_ours_in(tool, d.path());
            std::fs::write(w.join("j.fio"), &job).unwrap();
            let o = cmd.args(["--output-format=json", "j.fio"]).run();
            let j: Value = serde_json::from_str(&o.stdout).expect("fio JSON");
            let keys_there = j["jobs"][0].get("total_err").is_some()
                && j["jobs"][0].get("first_error").is_some();
            assert_eq!(keys_there, on, "{tool} {keys:?}: {}", o.stdout);
        }
    }
}
