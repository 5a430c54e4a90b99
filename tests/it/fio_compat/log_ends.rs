//! The averaged logs (`log_avg_msec`) at a job's end, side by side with fio 3.33: a job
//! ended by an error still gets the latency windows' last lines (fio's `finalize_logs`),
//! and `log_compression` makes the bandwidth and IOPS logs per-I/O samples averaged in
//! those windows (fio's per-unit logs) instead of the sampling thread's rates.

use crate::util::*;
use std::path::Path;

/// The lines of the log `name` in `dir`, each split at `", "`.
fn lines(dir: &Path, name: &str) -> Vec<Vec<u64>> {
    let s = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    s.lines()
        .map(|l| l.split(", ").map(|f| f.trim().parse().unwrap()).collect())
        .collect()
}

/// `--KEY=VALUE` of a read job of 1 MiB of 4 KiB blocks logging bw, IOPS and latency in
/// windows of 1 s, plus `more`.
fn job(more: &[&str]) -> Vec<String> {
    let base = [
        "--name=a",
        "--size=1m",
        "--bs=4k",
        "--rw=read",
        "--write_lat_log=L",
        "--write_bw_log=B",
        "--write_iops_log=I",
        "--log_avg_msec=1000",
    ];
    base.iter().chain(more).map(|s| s.to_string()).collect()
}

/// A read with `verify=crc32c` of a file of zeros fails at its first block (exit 1): fio
/// 3.33 still writes one latency and one clat line (the window's rest at the end, size
/// column 0) and no bandwidth or IOPS line. iomark wrote none.
#[test]
fn a_failed_job_gets_the_last_latency_lines() {
    let d = scratch();
    let mut sides = vec![("iomark", d.path().join("i"))];
    if need_fio("a_failed_job_gets_the_last_latency_lines next to fio") {
        sides.push(("fio", d.path().join("f")));
    }
    for (who, dir) in sides {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("f"), vec![0u8; 1 << 20]).unwrap();
        let args = job(&["--ioengine=psync", "--filename=f", "--verify=crc32c"]);
        let cmd = if who == "fio" {
            fio_cmd()
        } else {
            as_fio(d.path())
        };
        let o = cmd.dir(&dir).args(&args).run();
        assert_eq!(o.code, 1, "{who}: {}", o.dump());
        for name in ["L_lat.1.log", "L_clat.1.log"] {
            let l = lines(&dir, name);
            assert_eq!(l.len(), 1, "{who} {name}: {l:?}");
            assert_eq!((l[0][2], l[0][3]), (0, 0), "{who} {name}: {l:?}");
            assert!(l[0][1] > 0, "{who} {name}: {l:?}");
        }
        for name in ["B_bw.1.log", "I_iops.1.log"] {
            assert_eq!(lines(&dir, name).len(), 0, "{who} {name}");
        }
    }
}

/// `log_compression=1m` with `log_avg_msec=1000` on a job shorter than a second: fio
/// 3.33 writes one line in each of the bw, IOPS, lat and clat logs at the job's end —
/// the bw line the mean of the I/Os' bytes × 10^6 / clat ns, the IOPS line 1 (each
/// I/O's sample) — where without it the bw and IOPS logs are empty (the sampling thread
/// took no sample).
#[test]
fn log_compression_averages_per_io_rates() {
    let d = scratch();
    let mut sides = vec![("iomark", d.path().join("i"))];
    if need_fio("log_compression_averages_per_io_rates next to fio") {
        sides.push(("fio", d.path().join("f")));
    }
    for (who, dir) in sides {
        for (compress, want) in [(true, 1), (false, 0)] {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let mut more = vec!["--ioengine=null"];
            if compress {
                more.push("--log_compression=1m");
            }
            let cmd = if who == "fio" {
                fio_cmd()
            } else {
                as_fio(d.path())
            };
            let o = cmd.dir(&dir).args(job(&more)).run();
            assert_eq!(o.code, 0, "{who}: {}", o.dump());
            let (bw, iops) = (lines(&dir, "B_bw.1.log"), lines(&dir, "I_iops.1.log"));
            assert_eq!((bw.len(), iops.len()), (want, want), "{who} {compress}");
            assert_eq!(lines(&dir, "L_lat.1.log").len(), 1, "{who} {compress}");
            if compress {
                assert!(bw[0][1] > 0 && bw[0][2..] == [0, 0, 0], "{who}: {bw:?}");
                assert_eq!(iops[0][1..], [1, 0, 0, 0], "{who}");
            }
        }
    }
}

fn side(who: &str, d: &Path, dir: &Path, args: &[&str]) -> Out {
    let o = side_in(who, d, dir, args);
    assert_eq!(o.code, 0, "{who}: {}", o.dump());
    o
}

/// The bandwidth log's times with `log_avg_msec=500` are when each sample was taken
/// (fio 3.33's sampling thread writes its own time: 512, 1027, 1530 for a 2 s job at
/// 100 IOPS, or 500, 1000, 1500 in another run), not the windows' ends: each line falls
/// after its window's end (within the next window), and is one of the report's bandwidth samples
/// (`bw_samples` lines, `bw_min`/`bw_max` among them).
#[test]
fn bandwidth_log_times_are_when_the_sample_was_taken() {
    let d = scratch();
    for (who, dir) in sides(d.path(), "bandwidth log times next to fio") {
        let args = [
            "--name=a",
            "--ioengine=null",
            "--size=1g",
            "--bs=4k",
            "--rw=read",
            "--rate_iops=100",
            "--time_based",
            "--runtime=2",
            "--write_bw_log=B",
            "--log_avg_msec=500",
            "--output-format=json",
        ];
        let r = side(who, d.path(), &dir, &args).json();
        let r = &r["jobs"][0]["read"];
        let bw = lines(&dir, "B_bw.1.log");
        assert_eq!(bw.len(), 3, "{who}: {bw:?}");
        for (k, l) in bw.iter().enumerate() {
            // taken after its window's end, before the next window's: a loaded machine
            // (the suite runs beside it) delays the sampling thread by tens of ms
            let end = 500 * (k as u64 + 1);
            assert!((end..end + 500).contains(&l[0]), "{who}: {bw:?}");
            // 100 I/Os of 4 KiB a second: 400 KiB/s; a late sample or a rate limiter
            // catching up after a stall moves a window by a few I/Os
            assert!((320..=480).contains(&l[1]), "{who}: {bw:?}");
        }
        // the lines are the report's samples
        let at = |k: &str| r[k].as_u64().unwrap();
        assert_eq!(at("bw_samples"), bw.len() as u64, "{who}: {r}");
        assert_eq!(bw.iter().map(|l| l[1]).min(), Some(at("bw_min")), "{who}");
        assert_eq!(bw.iter().map(|l| l[1]).max(), Some(at("bw_max")), "{who}");
    }
}

/// A bandwidth (IOPS) log without `log_avg_msec`, or with `log_compression`, makes
/// fio 3.33's report take its `bw_*` (`iops_*`) statistics per I/O (its
/// `per_unit_log`): a 4 MiB null job of 4 KiB reads has 1024 bandwidth samples, the
/// I/Os' bytes × 10^6 / clat ns (`bw_max` at most 4096 × 10^6, for a clat of 1 ns),
/// and with an IOPS log 1024 IOPS samples of 1; without the IOPS log no IOPS sample
/// (the job is shorter than one interval).
#[test]
fn a_per_io_log_makes_the_reports_rate_samples_per_io() {
    let d = scratch();
    for (who, dir) in sides(d.path(), "per-I/O report samples next to fio") {
        let base = [
            "--name=a",
            "--ioengine=null",
            "--size=4m",
            "--bs=4k",
            "--rw=read",
            "--output-format=json",
            "--write_bw_log=B",
        ];
        for more in [
            &[][..],
            &["--write_iops_log=I"],
            &["--log_avg_msec=1000", "--log_compression=1m"],
        ] {
            let args: Vec<&str> = base.iter().chain(more).copied().collect();
            let r = side(who, d.path(), &dir, &args).json();
            let r = &r["jobs"][0]["read"];
            let at = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{who} {k}: {r}"));
            assert_eq!(at("total_ios"), 1024, "{who}");
            assert_eq!(at("bw_samples"), 1024, "{who} {more:?}");
            let mean = r["bw_mean"].as_f64().unwrap();
            assert!(
                at("bw_max") <= 4_096_000_000 && at("bw_max") as f64 >= mean,
                "{who}: {r}"
            );
            assert!(mean > 0.0 && at("bw_min") as f64 <= mean, "{who}: {r}");
            let iops = if more.contains(&"--write_iops_log=I") {
                (1024, 1, 1)
            } else {
                (0, 0, 0)
            };
            let got = (at("iops_samples"), at("iops_min"), at("iops_max"));
            assert_eq!(got, iops, "{who} {more:?}");
        }
    }
}
