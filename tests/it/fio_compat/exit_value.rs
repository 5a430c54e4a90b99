//! fio 3.33's exit value when job threads fail: one for each thread that ended in error
//! (backend.c: `exit_value++` as each failed thread is reaped), whatever the report merges
//! (`group_reporting`) and however the threads are given (`numjobs`, sections). iomark
//! as `fio` exits the same; `iomark run` exits 1 however many failed (its 2 and 3 mean
//! bad input and an environment that cannot do it). A write to /dev/full fails
//! (ENOSPC) at its first request.

use crate::util::*;

/// A job of `numjobs` threads writing /dev/full, with `extra`.
fn full(numjobs: u32, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=full",
        "--filename=/dev/full",
        "--rw=write",
        "--bs=64k",
        "--size=1m",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("--numjobs={numjobs}"));
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// 1, 2 and 3 failed threads exit 1, 2 and 3 under fio 3.33 and iomark as `fio` — one
/// report of 3 threads (`group_reporting`) too; a job that runs beside them adds
/// nothing (a job file: two failing sections around a null job exit 2); `iomark run`
/// exits 1 for each.
#[test]
fn the_exit_value_counts_the_failed_threads() {
    let d = scratch();
    let file = "[a]\nfilename=/dev/full\nrw=write\nbs=64k\nsize=1m\n\
                [ok]\nioengine=null\nsize=64k\n\
                [b]\nfilename=/dev/full\nrw=write\nbs=64k\nsize=1m\n";
    std::fs::write(d.path().join("two.fio"), file).unwrap();
    let cases: Vec<(Vec<String>, i32)> = vec![
        (full(1, &[]), 1),
        (full(2, &[]), 2),
        (full(3, &[]), 3),
        (full(3, &["--group_reporting"]), 3),
        (full(2, &["--continue_on_error=all"]), 2),
        (vec!["two.fio".to_string()], 2),
    ];
    let with_fio = need_fio("the_exit_value_counts_the_failed_threads");
    for (args, want) in &cases {
        let i = as_fio(d.path()).dir(d.path()).args(args).run();
        assert_eq!(i.code, *want, "iomark as fio {args:?}: {}", i.dump());
        if with_fio {
            let f = fio_cmd().dir(d.path()).args(args).run();
            assert_eq!(f.code, *want, "fio {args:?}: {}", f.dump());
        }
        let r = Iomark::new().dir(d.path()).arg("run").args(args).run();
        assert_eq!(r.code, 1, "iomark run {args:?}: {}", r.dump());
    }
}
