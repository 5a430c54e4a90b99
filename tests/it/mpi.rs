//! Many hosts under MPI (src/ranks/), on this machine: `mpirun --oversubscribe
//! -np 4` starts four ranks of `iomark run` / `iomark fileio`. Compiled with
//! `--features mpi` (tests/run.sh runs them); each test prints why it is skipped when
//! `mpirun` is absent. Without the feature only the refusals of a launch are tested.
//!
//! The aggregate is checked against the ranks' own results kept in `--json`
//! (`ranks.per_rank`): I/O counts summed, histogram bins merged, and percentiles
//! recomputed here from the merged bins with HdrHistogram's rule (the smallest bucket
//! whose cumulative count reaches ceil(p/100 × N)).

use crate::util::{scratch, BIN};
use std::process::{Command, Output};

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A launch refused with exit 3 and one line saying why.
fn refused(o: &Output, says: &str) {
    let (_, err) = text(o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains(says), "{err}");
}

#[cfg(not(feature = "mpi"))]
#[test]
fn a_build_without_the_feature_refuses_an_mpi_launch() {
    let d = scratch();
    let run = |cmd: &[&str], env: (&str, &str)| {
        Command::new(BIN)
            .args(cmd)
            .env(env.0, env.1)
            .current_dir(d.path())
            .output()
            .unwrap()
    };
    let job = ["run", "--name=w", "--rw=write", "--size=64k"];
    let o = run(&job, ("OMPI_COMM_WORLD_SIZE", "4"));
    refused(&o, "built without the `mpi` feature");
    refused(&run(&job, ("PMI_SIZE", "2")), "PMI_SIZE=2");
    let fileio = ["fileio", "--file-num=1", "--file-total-size=64k", "prepare"];
    refused(
        &run(&fileio, ("OMPI_COMM_WORLD_SIZE", "4")),
        "built without",
    );
    refused(
        &run(
            &["mark", d.path().to_str().unwrap()],
            ("OMPI_COMM_WORLD_SIZE", "4"),
        ),
        "only `run` and `fileio`",
    );
    // --mpi without a launcher, and the rank options without one
    let o = Command::new(BIN)
        .args(["run", "--mpi", "--name=w", "--size=64k"])
        .output()
        .unwrap();
    refused(&o, "--mpi: no MPI launcher found");
    let o = Command::new(BIN)
        .args(["run", "--mpi-stonewall", "--name=w", "--size=64k"])
        .output()
        .unwrap();
    refused(&o, "need an MPI launch");
    assert!(
        std::fs::read_dir(d.path()).unwrap().next().is_none(),
        "nothing written"
    );
}

#[cfg(feature = "mpi")]
mod ranks {
    use super::*;
    use serde_json::Value;
    use std::path::Path;

    /// `mpirun` on PATH, or `None` after printing why the test is skipped.
    fn mpirun() -> Option<Command> {
        let found = std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("mpirun").is_file()));
        if !found {
            crate::util::skip("mpirun not found (apt-get install openmpi-bin libopenmpi-dev)");
            return None;
        }
        let mut c = Command::new("mpirun");
        c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .arg("--oversubscribe");
        Some(c)
    }

    /// Four ranks of `iomark ARGS`.
    fn four(args: &[&str]) -> Option<Output> {
        let mut c = mpirun()?;
        Some(c.args(["-np", "4", BIN]).args(args).output().unwrap())
    }

    fn json(p: &Path) -> Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    }

    fn per_rank(r: &Value) -> &Vec<Value> {
        r["ranks"]["per_rank"].as_array().unwrap()
    }

    /// `[value, count]` pairs of a RunResult histogram.
    fn buckets(lat: &Value) -> Vec<(u64, u64)> {
        lat["histogram"]["buckets"]
            .as_array()
            .map(|b| {
                b.iter()
                    .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn merged(parts: &[Vec<(u64, u64)>]) -> Vec<(u64, u64)> {
        let mut m = std::collections::BTreeMap::new();
        for (v, c) in parts.iter().flatten() {
            *m.entry(*v).or_insert(0u64) += c;
        }
        m.into_iter().collect()
    }

    fn percentile(bins: &[(u64, u64)], p: f64) -> u64 {
        let total: u64 = bins.iter().map(|b| b.1).sum();
        let want = ((p / 100.0 * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for &(v, c) in bins {
            seen += c;
            if seen >= want {
                return v;
            }
        }
        0
    }

    fn hostnames(r: &Value) {
        for (i, p) in per_rank(r).iter().enumerate() {
            assert_eq!(p["rank"], i as u64);
            assert!(!p["hostname"].as_str().unwrap().is_empty(), "{p}");
        }
    }

    #[test]
    fn a_run_job_over_four_ranks_sums_counts_and_merges_histograms() {
        let d = scratch();
        let rj = d.path().join("r.json");
        let dir = format!("--directory={}", d.path().display());
        let jarg = format!("--json={}", rj.display());
        let Some(o) = four(&[
            "run",
            "--name=m",
            "--rw=randrw",
            "--bs=4k",
            "--size=2m",
            &dir,
            "--output-format=json+",
            &jarg,
        ]) else {
            return;
        };
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let fio: Value = serde_json::from_str(&out).unwrap();
        let r = json(&rj);
        assert_eq!(r["ranks"]["size"], 4);
        hostnames(&r);
        for n in 0..4 {
            assert!(
                d.path().join(format!("rank.{n}/m.0.0")).is_file(),
                "rank {n}'s own file"
            );
        }
        let ranks = per_rank(&r);
        for dir in ["read", "write"] {
            let ios = |j: &Value| j["jobs"][0][dir]["ios"].as_u64().unwrap();
            let sum: u64 = ranks.iter().map(|p| ios(&p["result"])).sum();
            assert_eq!(
                sum,
                4 * 512
                    - ranks
                        .iter()
                        .map(|p| ios_other(&p["result"], dir))
                        .sum::<u64>()
            );
            assert_eq!(ios(&r), sum, "{dir}: aggregate = sum of the ranks");
            assert_eq!(fio["jobs"][0][dir]["total_ios"], sum);
            let parts: Vec<_> = ranks
                .iter()
                .map(|p| buckets(&p["result"]["jobs"][0][dir]["clat"]))
                .collect();
            let m = merged(&parts);
            let bins: Vec<(u64, u64)> = fio["jobs"][0][dir]["clat_ns"]["bins"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
                .collect::<std::collections::BTreeMap<_, _>>()
                .into_iter()
                .collect();
            // json+ names fio's buckets (result/plat.rs): the merged rank buckets
            // regrouped onto fio's grid (each HDR bucket lies inside one fio bucket)
            let mut grid = std::collections::BTreeMap::new();
            for &(v, c) in &m {
                *grid
                    .entry(iomark::result::plat::value(iomark::result::plat::index(v)))
                    .or_insert(0u64) += c;
            }
            let grid: Vec<(u64, u64)> = grid.into_iter().collect();
            assert_eq!(
                bins, grid,
                "{dir}: json+ bins = merged rank bins on fio's grid"
            );
            for (k, v) in fio["jobs"][0][dir]["clat_ns"]["percentile"]
                .as_object()
                .unwrap()
            {
                let p: f64 = k.parse().unwrap();
                assert_eq!(v.as_u64().unwrap(), percentile(&m, p), "{dir} p{k}");
            }
            // IOPS over the span from the earliest start to the latest end
            let span = r["jobs"][0]["runtime_ns"].as_u64().unwrap();
            let longest = ranks
                .iter()
                .map(|p| {
                    p["start_offset_ns"].as_u64().unwrap()
                        + p["result"]["jobs"][0]["runtime_ns"].as_u64().unwrap()
                })
                .max()
                .unwrap();
            assert_eq!(span, longest);
            let iops = r["jobs"][0][dir]["iops"].as_f64().unwrap();
            assert!((iops - sum as f64 / (span as f64 / 1e9)).abs() < 1e-6 * iops.max(1.0));
        }
    }

    /// I/Os of the other direction of a randrw job (512 blocks of 4 KiB per rank in all).
    fn ios_other(j: &Value, dir: &str) -> u64 {
        let other = if dir == "read" { "write" } else { "read" };
        j["jobs"][0][other]["ios"].as_u64().unwrap()
    }

    #[test]
    fn a_fileio_run_over_four_ranks_reports_once_for_all() {
        let d = scratch();
        let fd = format!("--file-dir={}", d.path().display());
        let jarg = format!("--json={}", d.path().join("f.json").display());
        let common = [fd.as_str(), "--file-num=2", "--file-total-size=2M"];
        let Some(o) = four(&[&["fileio"][..], &common, &["prepare"]].concat()) else {
            return;
        };
        assert!(o.status.success(), "{}", text(&o).1);
        for n in 0..4 {
            assert!(d.path().join(format!("rank.{n}/test_file.1")).is_file());
        }
        let run = [
            &["fileio"][..],
            &common,
            &[
                "--file-test-mode=rndrw",
                "--time=0",
                "--events=3000",
                &jarg,
                "run",
            ],
        ]
        .concat();
        let o = four(&run).unwrap();
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert_eq!(
            out.matches("sysbench 1.0.20 fileio compatible").count(),
            1,
            "one banner: {out}"
        );
        assert!(
            out.contains("total number of events:              12000"),
            "{out}"
        );
        let r = json(&d.path().join("f.json"));
        hostnames(&r);
        let ranks = per_rank(&r);
        let reads: u64 = ranks
            .iter()
            .map(|p| p["result"]["read"]["ops"].as_u64().unwrap())
            .sum();
        assert_eq!(r["read"]["ops"], reads);
        assert_eq!(r["threads"].as_array().unwrap().len(), 4);
        let m = merged(
            &ranks
                .iter()
                .map(|p| buckets(&p["result"]["lat"]))
                .collect::<Vec<_>>(),
        );
        assert_eq!(buckets(&r["lat"]), m);
        for (k, v) in r["lat"]["percentiles_ns"].as_object().unwrap() {
            assert_eq!(
                v.as_u64().unwrap(),
                percentile(&m, k.parse().unwrap()),
                "p{k}"
            );
        }
        let sum: u64 = ranks
            .iter()
            .map(|p| p["result"]["lat"]["sum_ns"].as_u64().unwrap())
            .sum();
        assert_eq!(r["lat"]["sum_ns"], sum);
    }

    #[test]
    fn stonewall_ends_every_rank_within_50ms_of_the_first() {
        let d = scratch();
        let dir = format!("--directory={}", d.path().display());
        let jarg = format!("--json={}", d.path().join("r.json").display());
        let job = [
            "run",
            "--name=s",
            "--rw=randwrite",
            "--bs=4k",
            "--rate_iops=2000",
            &dir,
            &jarg,
            "--mpi-stonewall",
        ];
        let Some(mut c) = mpirun() else {
            return;
        };
        // rank 0 has 256 writes (~0.13 s), the others 16384 (~8 s without the stonewall)
        let o = c
            .args(["-np", "1", BIN])
            .args(job)
            .arg("--size=1m")
            .args([":", "-np", "3", BIN])
            .args(job)
            .arg("--size=64m")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o).1);
        let r = json(&d.path().join("r.json"));
        let s = &r["ranks"];
        let (first, last) = (
            s["first_done_ns"].as_u64().unwrap(),
            s["last_done_ns"].as_u64().unwrap(),
        );
        assert!(last - first <= 50_000_000, "ends {first}..{last} ns");
        assert_eq!(s["stonewall"], true);
        for p in &per_rank(&r)[1..] {
            assert_eq!(p["stopped_by_peer"], true, "{}", p["rank"]);
            assert!(p["result"]["write"]["ops"].as_u64().unwrap() < 16384 / 4);
            assert_eq!(
                p["result"]["status"], "ok",
                "a stonewall stop is no interruption"
            );
        }
    }

    #[test]
    fn rotated_read_back_reads_the_next_ranks_files() {
        let d = scratch();
        let dir = format!("--directory={}", d.path().display());
        let job = [
            "run",
            "--name=v",
            "--bs=4k",
            "--size=1m",
            "--verify=crc32c",
            &dir,
        ];
        let Some(o) = four(&[&job[..], &["--rw=write", "--do_verify=0"]].concat()) else {
            return;
        };
        assert!(o.status.success(), "{}", text(&o).1);
        let read = [&job[..], &["--rw=read", "--mpi-rotate=1"]].concat();
        let o = four(&read).unwrap();
        assert!(
            o.status.success(),
            "every header checks out: {}",
            text(&o).1
        );
        // one block of rank 1's file spoiled: its reader under rotation is rank 0
        let f = d.path().join("rank.1/v.0.0");
        let mut b = std::fs::read(&f).unwrap();
        b[70_000] ^= 0xff;
        std::fs::write(&f, b).unwrap();
        let (_, err) = text(&four(&read).unwrap());
        let line = err
            .lines()
            .find(|l| l.starts_with("iomark run: rank "))
            .unwrap_or_default();
        assert!(
            line.starts_with("iomark run: rank 0 (")
                && line.contains("rank.1/v.0.0")
                && line.contains("checksum mismatch"),
            "{err}"
        );
        // without rotation rank 1 reads its own file and is the one to fail
        let (_, err) = text(&four(&[&job[..], &["--rw=read"]].concat()).unwrap());
        assert!(err.contains("iomark run: rank 1 ("), "{err}");
    }

    #[test]
    fn a_failing_rank_fails_the_run_by_name() {
        let d = scratch();
        let dir = format!("--directory={}", d.path().display());
        let job = [
            "run",
            "--name=f",
            "--rw=write",
            "--bs=4k",
            "--size=4m",
            &dir,
        ];
        let Some(mut c) = mpirun() else {
            return;
        };
        let o = c
            .args(["-np", "2", BIN])
            .args(job)
            .args([":", "-np", "1", "env", "IOMARK_FAULT=write:eio@50", BIN])
            .args(job)
            .args([":", "-np", "1", BIN])
            .args(job)
            .output()
            .unwrap();
        let (_, err) = text(&o);
        assert_ne!(o.status.code(), Some(0), "{err}");
        assert!(
            err.contains("iomark run: rank 2 (") && err.contains("Input/output error"),
            "{err}"
        );
        // fileio: the same on its run
        let fd = format!("--file-dir={}", d.path().display());
        let f = [
            "fileio",
            fd.as_str(),
            "--file-num=1",
            "--file-total-size=1M",
            "--file-test-mode=rndwr",
            "--time=2",
        ];
        let o = four(&[&f[..], &["prepare"]].concat()).unwrap();
        assert!(o.status.success());
        let mut c = mpirun().unwrap();
        let o = c
            .args(["-np", "3", BIN])
            .args(f)
            .arg("run")
            .args([":", "-np", "1", "env", "IOMARK_FAULT=write:eio@20", BIN])
            .args(f)
            .arg("run")
            .output()
            .unwrap();
        let (_, err) = text(&o);
        assert_ne!(o.status.code(), Some(0), "{err}");
        assert!(err.contains("iomark: rank 3 ("), "{err}");
        assert!(err.contains("last done"), "{err}");
    }

    #[test]
    fn a_world_that_is_not_the_launchers_is_refused() {
        // one process started outside mpirun that says it is one of four (another MPI's
        // launcher): MPI_Init gives a world of one
        let o = Command::new(BIN)
            .args(["run", "--name=w", "--size=64k"])
            .env("PMI_SIZE", "4")
            .output()
            .unwrap();
        refused(&o, "MPI_Init found a world of 1");
        let o = Command::new(BIN)
            .args(["run", "--mpi", "--name=w", "--size=64k"])
            .output()
            .unwrap();
        refused(&o, "--mpi: no MPI launcher found");
    }
}
