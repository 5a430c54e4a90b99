//! Property tests of the `iomark run` parsers: random sizes, ranges, times, bssplit
//! lists, percentile lists, distributions, verify patterns, whole job files (with
//! `include` and `${VAR}`) and argv. Whatever the input: no panic, a result in bounded
//! time, and valid results obey their invariants (range min ≤ max, bssplit weights sum
//! to 100, percentiles in (0, 100]). Nothing here runs I/O.

use crate::job::fio::keys::{parse_distribution, parse_pattern, parse_percentiles};
use crate::job::fio::{parse_args_with, parse_bssplit_dir, parse_range, parse_size, parse_time};
use proptest::prelude::*;
use std::time::{Duration, Instant};

fn env(v: &str) -> Option<String> {
    match v {
        "BS" => Some("4k".into()),
        "SIZE" => Some("1m".into()),
        "EMPTY" => Some(String::new()),
        _ => None,
    }
}

/// Pieces fio values are made of, so random strings hit the interesting paths.
fn value() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "4",
        "4k",
        "16K",
        "1m",
        "1MiB",
        "0x1000",
        "1.5g",
        "-",
        ":",
        "/",
        ",",
        "%",
        "zipf",
        "pareto",
        "normal",
        "zoned",
        "zoned_abs",
        "random",
        "0.9",
        "1.2",
        "50",
        "100",
        "101",
        "0",
        "ms",
        "s",
        "us",
        "h",
        "99999999999999999999",
        "",
        " ",
        "${BS}",
        "${NOPE}",
        "\"",
        "ab",
        "-8k",
        "e",
        "q",
    ]);
    prop::collection::vec(atoms, 0..8).prop_map(|v| v.concat())
}

fn key() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "rw",
        "bs",
        "bsrange",
        "bssplit",
        "size",
        "filesize",
        "nrfiles",
        "numjobs",
        "iodepth",
        "runtime",
        "ramp_time",
        "time_based",
        "rwmixread",
        "random_distribution",
        "rate",
        "rate_iops",
        "rate_process",
        "thinktime",
        "startdelay",
        "io_size",
        "offset",
        "blockalign",
        "verify",
        "verify_pattern",
        "percentile_list",
        "log_avg_msec",
        "write_lat_log",
        "wait_for",
        "ioengine",
        "direct",
        "kb_base",
        "stonewall",
        "fsync",
        "percentage_random",
        "ratemin",
        "exit_what",
        "bogus_key",
        "include",
    ])
}

/// Each parse must finish within this (the house bound: 1 s per case).
const BOUND: Duration = Duration::from_secs(1);

fn quick<T>(f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    assert!(t.elapsed() < BOUND, "parser took {:?}", t.elapsed());
    r
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn value_parsers_never_panic(v in value(), kb in prop::sample::select(vec![1000u64, 1024])) {
        quick(|| {
            let _ = parse_size(&v, kb);
            if let Ok((a, b)) = parse_range(&v, kb) {
                prop_assert!(a <= b);
            }
            let _ = parse_time(&v, 1_000_000_000);
            if let Ok(s) = parse_bssplit_dir(&v, kb) {
                // fio keeps up to 64 entries; weights need not sum to 100
                prop_assert!(s.len() <= 64);
                prop_assert!(s.iter().all(|x| x.0 > 0));
            }
            if let Ok(p) = parse_percentiles(&v) {
                prop_assert!(p.iter().all(|x| *x > 0.0 && *x <= 100.0));
            }
            let _ = parse_distribution(&v, kb);
            let _ = parse_pattern(&v);
            Ok(())
        })?;
    }

    #[test]
    fn argv_never_panics(opts in prop::collection::vec((key(), value(), any::<bool>()), 0..12)) {
        let mut argv = vec!["--name=p".to_string()];
        for (k, v, bare) in opts {
            argv.push(if bare { format!("--{k}") } else { format!("--{k}={v}") });
        }
        quick(|| {
            if let Ok(c) = parse_args_with(&argv, &env) {
                assert!(!c.jobs.is_empty());
                for j in &c.jobs {
                    assert!(j.bs_read.min() > 0 && j.bs_read.min() <= j.bs_read.max());
                    assert!(j.rwmixread <= 100 && j.numjobs >= 1 && j.iodepth >= 1);
                }
            }
        });
    }

    #[test]
    fn job_files_with_includes_and_vars_never_panic(
        lines in prop::collection::vec((key(), value(), 0u8..6), 0..20),
        inc in prop::collection::vec((key(), value()), 0..6),
    ) {
        let d = tempfile::tempdir().unwrap();
        let mut inc_text = String::from("[global]\n");
        for (k, v) in &inc {
            inc_text += &format!("{k}={v}\n");
        }
        std::fs::write(d.path().join("inc.fio"), inc_text).unwrap();
        let mut text = String::new();
        for (k, v, kind) in &lines {
            text += &match kind {
                0 => format!("[{v}]\n"),
                1 => format!("{k}\n"),
                2 => "include inc.fio\n".to_string(),
                3 => format!("; {k}={v}\n"),
                4 => format!("{k} = {v} ; trailing\n"),
                _ => format!("{k}={v}\n"),
            };
        }
        let f = d.path().join("job.fio");
        std::fs::write(&f, &text).unwrap();
        quick(|| {
            let r = parse_args_with(&[f.display().to_string()], &env);
            if let Err(e) = r {
                let msg = e.to_string();
                assert!(!msg.is_empty() && !msg.contains('\n'), "one line: {msg:?}");
            }
        });
    }
}
