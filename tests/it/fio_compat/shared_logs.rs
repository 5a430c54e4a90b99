//! `per_job_logs=0` with `numjobs=2` side by side with fio 3.33: one file per log kind,
//! named without the thread number, that every thread adds its lines to — each thread's
//! lines in one block as the thread flushes them (fio opens a shared log in append
//! mode), so a second run adds to the first run's lines.

use crate::util::*;
use std::path::Path;

/// The lines of the log `name` in `dir`, each split at `", "`.
fn lines(dir: &Path, name: &str) -> Vec<Vec<u64>> {
    let s = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    s.lines()
        .map(|l| l.split(", ").map(|f| f.trim().parse().unwrap()).collect())
        .collect()
}

/// How many times a line's time is earlier than the line before it.
fn drops(l: &[Vec<u64>]) -> usize {
    l.windows(2).filter(|w| w[1][0] < w[0][0]).count()
}

/// Two threads of 1024 reads each, every log per I/O (`log_avg_msec=0`): the files
/// `b_bw.log`, `i_iops.log`, `l_lat.log`, `l_clat.log`, `l_slat.log` and no numbered
/// one; 2048 lines of 5 columns in each of bw, iops, lat and clat, in two blocks of
/// rising times (each thread's), none in slat (a synchronous engine); run again, 4096.
#[test]
fn per_job_logs_0_shares_one_file_per_kind() {
    let d = scratch();
    let mut sides = vec!["iomark"];
    if need_fio("per_job_logs_0_shares_one_file_per_kind next to fio") {
        sides.push("fio");
    }
    let args = [
        "--name=x",
        "--rw=read",
        "--size=4m",
        "--bs=4k",
        "--ioengine=psync",
        "--filename=f",
        "--numjobs=2",
        "--per_job_logs=0",
        "--write_bw_log=b",
        "--write_lat_log=l",
        "--write_iops_log=i",
        "--log_avg_msec=0",
    ];
    let kinds = ["b_bw.log", "i_iops.log", "l_lat.log", "l_clat.log"];
    for who in sides {
        let dir = d.path().join(who);
        std::fs::create_dir_all(&dir).unwrap();
        for run in 1..=2 {
            let cmd = if who == "fio" {
                fio_cmd()
            } else {
                as_fio(d.path())
            };
            let o = cmd.dir(&dir).args(args).run();
            assert_eq!(o.code, 0, "{who}: {}", o.dump());
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".log"))
                .collect();
            names.sort();
            assert_eq!(
                names,
                [
                    "b_bw.log",
                    "i_iops.log",
                    "l_clat.log",
                    "l_lat.log",
                    "l_slat.log"
                ],
                "{who}"
            );
            assert_eq!(lines(&dir, "l_slat.log").len(), 0, "{who}");
            for k in kinds {
                let l = lines(&dir, k);
                assert_eq!(l.len(), run * 2048, "{who} run {run} {k}");
                assert!(l.iter().all(|c| c.len() == 5), "{who} {k}");
                assert!(l.iter().all(|c| c[2] == 0 && c[3] == 4096), "{who} {k}");
                // one block per thread and run: times fall back at most between blocks
                assert!(
                    drops(&l) < run * 2,
                    "{who} run {run} {k}: {} drops",
                    drops(&l)
                );
            }
        }
    }
}
