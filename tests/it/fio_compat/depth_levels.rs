//! fio's `iodepth_level` (the in-flight count at each submit, as percentages of the
//! requests issued) next to fio 3.33's: the queue fills from depth 1 at the job's start
//! and again after each loop (`loops`, `io_size`), which drains it; a time-based job
//! wraps at the end of its file with the queue as it is (fio moves the position back
//! and drops the cache in place), so its fill is counted once. Each comparison with
//! fio skips (with the reason) when fio is not installed; iomark's own figures are
//! checked either way.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// `iodepth_level` of the one job of `args` (with `--output-format=json`) run in `dir`
/// by `cmd`, as (key, percentage) in fio's order.
fn levels(cmd: Iomark, dir: &Path, args: &[&str]) -> Vec<(String, f64)> {
    let o = cmd.dir(dir).args(args).arg("--output-format=json").run();
    assert_eq!(o.code, 0, "{}", o.dump());
    let v: Value = serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.dump()));
    let l = &v["jobs"][0]["iodepth_level"];
    ["1", "2", "4", "8", "16", "32", ">=64"]
        .iter()
        .map(|k| (k.to_string(), l[*k].as_f64().unwrap()))
        .collect()
}

/// Four loops over a 256 KiB file at depth 8 (buffered libaio: each request completes
/// in its submit, one reaped at a time): the queue fills four times, so 4 of the 256
/// requests went at depth 1, 8 at depth 2–3, 16 at 4–7 — fio 3.33 printed 1.5625,
/// 3.125, 6.25, 89.0625.
#[test]
fn each_loop_fills_the_queue_again_as_fios() {
    let d = scratch();
    let args = [
        "--name=j",
        "--filename=f",
        "--ioengine=libaio",
        "--iodepth=8",
        "--rw=read",
        "--size=256k",
        "--loops=4",
    ];
    let want = [1.5625, 3.125, 6.25, 89.0625, 0.0, 0.0, 0.0];
    let got = levels(as_fio(d.path()), d.path(), &args);
    let vals: Vec<f64> = got.iter().map(|p| p.1).collect();
    assert_eq!(vals, want, "{got:?}");
    if need_fio("each_loop_fills_the_queue_again_as_fios") {
        assert_eq!(levels(fio_cmd(), d.path(), &args), got, "fio 3.33");
    }
}

/// A time-based job over a 256 KiB file (64 requests a pass) for a second: the fill
/// at its start is its only one, so depths 1, 2–3 and 4–7 are each under 0.1 % and
/// show as 0.1 (fio's `stat_calc_dist`), the rest at depth 8. iomark drained the queue
/// at every pass, which showed 3.1 % at depth 2–3. fio 3.33 gave the same for a random
/// job and for a sequential one over one file.
#[test]
fn a_time_based_job_fills_its_queue_once_as_fios() {
    let d = scratch();
    for rw in ["read", "randread"] {
        let rw = format!("--rw={rw}");
        let args = [
            "--name=j",
            "--filename=f",
            "--ioengine=libaio",
            "--iodepth=8",
            rw.as_str(),
            "--size=256k",
            "--time_based",
            "--runtime=1",
        ];
        let mut runs = vec![("iomark", levels(as_fio(d.path()), d.path(), &args))];
        if need_fio("a_time_based_job_fills_its_queue_once_as_fios") {
            runs.push(("fio 3.33", levels(fio_cmd(), d.path(), &args)));
        }
        for (who, got) in runs {
            let low: Vec<f64> = got[..3].iter().map(|p| p.1).collect();
            assert_eq!(low, [0.1, 0.1, 0.1], "{who} {rw}: {got:?}");
            assert!(got[3].1 > 99.0, "{who} {rw}: {got:?}");
            assert!(got[4..].iter().all(|p| p.1 == 0.0), "{who} {rw}: {got:?}");
        }
    }
}

/// `iodepth_batch` above the depth (or 0) is the depth, as fio 3.33's fixup makes it:
/// `iodepth_batch=4` at depth 1 on io_uring submits each request alone, so the text has
/// fio's `IO depths : 1=100.0%` and `submit`/`complete` rows (`4=100.0%`, the bucket of
/// 1–4), where iomark waited for a batch the depth never filled and counted none.
#[test]
fn a_batch_above_the_depth_is_the_depth_as_fio() {
    let rows = |o: &Out| -> Vec<String> {
        assert_eq!(o.code, 0, "{}", o.dump());
        o.stdout
            .lines()
            .map(str::trim)
            .filter(|l| {
                ["IO depths ", "submit ", "complete "]
                    .iter()
                    .any(|p| l.starts_with(p))
            })
            .map(String::from)
            .collect()
    };
    let want = [
        "IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%",
        "submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
        "complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
    ];
    for batch in ["--iodepth_batch=4", "--iodepth_batch=0"] {
        let args = [
            "--name=j",
            "--ioengine=io_uring",
            "--rw=rw",
            "--bs=4k",
            "--size=256k",
            batch,
        ];
        let d = scratch();
        assert_eq!(
            rows(&as_fio(d.path()).dir(d.path()).args(args).run()),
            want,
            "{batch}"
        );
        if need_fio("a_batch_above_the_depth_is_the_depth_as_fio") {
            let d = scratch();
            assert_eq!(
                rows(&fio_cmd().dir(d.path()).args(args).run()),
                want,
                "fio {batch}"
            );
        }
    }
}
