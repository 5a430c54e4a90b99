//! The job keys of fio's list that iomark took in, run end to end — what a
//! client sees of each (reports, files written and removed, the job's error).

use crate::util::*;

/// A 256 KiB psync job `NAME` on file `f` in `dir` with the extra options.
fn job(dir: &std::path::Path, name: &str, extra: &[&str]) -> Out {
    let n = format!("--name={name}");
    let mut a = vec![
        n.as_str(),
        "--filename=f",
        "--size=256k",
        "--ioengine=psync",
    ];
    a.extend_from_slice(extra);
    run(dir, &a)
}

#[test]
fn stats_0_hides_a_job_and_mixed_sums_the_directions() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--filename=f",
            "--size=256k",
            "--name=hidden",
            "--rw=read",
            "--stats=0",
            "--name=mix",
            "--rw=randrw",
            "--unified_rw_reporting=mixed",
        ],
    )
    .ok();
    let v = o.json();
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "{}", o.stdout);
    let j = &jobs[0];
    assert_eq!(j["jobname"], "mix");
    for k in ["read", "write", "trim", "sync"] {
        assert!(j.get(k).is_none(), "{k} in {j}");
    }
    // every I/O of the 256 KiB mix is in the one entry
    assert_eq!(j["mixed"]["io_bytes"], 262144, "{j}");
    let t = job(d.path(), "m", &["--rw=randrw", "--unified_rw_reporting=1"]).ok();
    assert!(t.stdout.contains("  mixed: IOPS="), "{}", t.stdout);
    assert!(t.stdout.contains("  MIXED: bw="), "{}", t.stdout);
}

#[test]
fn exec_prerun_postrun_and_unlink() {
    let d = scratch();
    job(
        d.path(),
        "hk",
        &[
            "--rw=write",
            "--exec_prerun=echo pre; echo err >&2",
            "--exec_postrun=ls f",
            "--unlink=1",
        ],
    )
    .ok();
    let read = |n: &str| std::fs::read_to_string(d.path().join(n)).unwrap();
    assert_eq!(read("hk.prerun.txt"), "pre\nerr\n");
    // the postrun ran while the file was there; unlink removed it at the end
    assert_eq!(read("hk.postrun.txt"), "f\n");
    assert!(!d.path().join("f").exists());
    // a prerun that fails fails the job
    let o = job(d.path(), "bad", &["--exec_prerun=exit 3"]);
    assert_ne!(o.code, 0, "{}", o.dump());
    assert!(
        o.stderr.contains("exec_prerun 'exit 3' failed"),
        "{}",
        o.dump()
    );
}

/// The lines naming where a prerun's and a postrun's output went, side by side with fio
/// 3.33: on stdout, once per thread, in text and JSON alike; none with `--output`
/// (their order between threads is the machine's: compared as a set).
#[test]
fn exec_hooks_say_where_their_output_went_as_fio_does() {
    require_fio();
    let d = scratch();
    let base = [
        "--name=hk",
        "--filename=f",
        "--size=64k",
        "--numjobs=2",
        "--exec_prerun=true",
        "--exec_postrun=true",
    ];
    let saving = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.contains(" : Saving output of "))
            .map(str::to_string)
            .collect()
    };
    for extra in [&[][..], &["--output-format=json"], &["--output=o.txt"]] {
        let args: Vec<&str> = base.iter().chain(extra.iter()).copied().collect();
        let [fio, iomark] = both_in(d.path(), &[], &args);
        assert_eq!((fio.0, iomark.0), (0, 0), "{extra:?}: {fio:?} {iomark:?}");
        let want = saving(&fio.1);
        // text and JSON: two threads, each a prerun and a postrun line
        let n = if extra.first().is_some_and(|a| a.starts_with("--output=")) {
            0
        } else {
            4
        };
        assert_eq!(want.len(), n, "{extra:?}: fio printed {want:?}");
        assert!(
            want.contains(&"hk : Saving output of postrun in hk.postrun.txt".to_string())
                == (n > 0),
            "{want:?}"
        );
        // each thread runs its prerun once started, as fio's thread_main: a loaded
        // machine may finish one thread's postrun before the other's prerun, in both
        // tools, so the lines are compared as a set
        let (mut got, mut want) = (saving(&iomark.1), want);
        got.sort();
        want.sort();
        assert_eq!(got, want, "{extra:?}: {}", iomark.1);
    }
}

#[test]
fn hist_log_has_fio_s_columns() {
    let d = scratch();
    // 16 reads at 100 IOPS: 150 ms or more, so 20 ms intervals give lines
    job(
        d.path(),
        "h",
        &[
            "--rw=read",
            "--size=64k",
            "--rate_iops=100",
            "--write_hist_log=h",
            "--log_hist_msec=20",
            "--log_hist_coarseness=2",
        ],
    )
    .ok();
    let s = std::fs::read_to_string(d.path().join("h_clat_hist.1.log")).unwrap();
    let lines: Vec<&str> = s.lines().collect();
    assert!(!lines.is_empty());
    let mut total = 0;
    for l in &lines {
        let cols: Vec<u64> = l.split(", ").map(|c| c.parse().unwrap()).collect();
        assert_eq!(cols.len(), 3 + 1856 / 4, "{l}");
        assert_eq!((cols[1], cols[2]), (0, 4096), "{l}");
        total += cols[3..].iter().sum::<u64>();
    }
    assert!(total > 0 && total <= 16, "{total}");
}

#[test]
fn disk_util_0_and_placement_keys() {
    let d = scratch();
    let o = job(
        d.path(),
        "p",
        &[
            "--output-format=json",
            "--disk_util=0",
            "--cpus_allowed=0",
            "--cpus_allowed_policy=split",
            "--nice=2",
            "--lockmem=64k",
            "--write_hint=short",
            "--rw=write",
            "--sync_file_range=write:4",
            "--scramble_buffers=1",
        ],
    )
    .ok();
    assert!(o.json().get("disk_util").is_none(), "{}", o.stdout);
}

#[test]
fn max_latency_ends_the_job_with_etimedout() {
    let d = scratch();
    job(d.path(), "lay", &["--rw=write"]).ok();
    // the third read takes 300 ms (the fault plan); 100 ms is the most allowed
    let o = run_fault(
        d.path(),
        "read:slow@3",
        &[
            "--name=ml",
            "--filename=f",
            "--size=256k",
            "--rw=read",
            "--max_latency=100ms",
            "--output-format=json",
        ],
    );
    assert_ne!(o.code, 0, "{}", o.dump());
    assert!(
        o.all().contains("exceeds max_latency=100000000 ns"),
        "{}",
        o.dump()
    );
}

#[test]
fn verify_only_checks_what_a_write_job_wrote() {
    let d = scratch();
    let w = ["--rw=randwrite", "--verify=crc32c", "--do_verify=0"];
    job(d.path(), "v", &w).ok();
    let mut only = w.to_vec();
    only.push("--verify_only=1");
    job(d.path(), "v", &only).ok();
    // one flipped byte in the file: the verify-only run finds it
    let p = d.path().join("f");
    let mut b = std::fs::read(&p).unwrap();
    b[100_000] ^= 0xff;
    std::fs::write(&p, b).unwrap();
    let o = job(d.path(), "v", &only);
    assert_eq!(o.code, 1, "{}", o.dump());
}
