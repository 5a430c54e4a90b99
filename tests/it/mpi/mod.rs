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

    mod client_text;
    mod fileio;
    mod host;

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
            // fio's client document: the "All clients" job after the four hosts'
            let all = &fio["client_stats"][4];
            assert_eq!(all["jobname"], "All clients");
            assert_eq!(all[dir]["total_ios"], sum);
            let parts: Vec<_> = ranks
                .iter()
                .map(|p| buckets(&p["result"]["jobs"][0][dir]["clat"]))
                .collect();
            let m = merged(&parts);
            let clat = &r["jobs"][0][dir]["clat"];
            assert_eq!(
                buckets(clat),
                m,
                "{dir}: the aggregate's bins = merged rank bins"
            );
            for (k, v) in clat["percentiles_ns"].as_object().unwrap() {
                let p: f64 = k.parse().unwrap();
                assert_eq!(v.as_u64().unwrap(), percentile(&m, p), "{dir} p{k}");
            }
            // json+ names fio's buckets (result/plat.rs): each host's bins are its rank's
            // regrouped onto fio's grid (each HDR bucket lies inside one fio bucket)
            for (host, part) in fio["client_stats"].as_array().unwrap().iter().zip(&parts) {
                let bins: Vec<(u64, u64)> = host[dir]["clat_ns"]["bins"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
                    .collect::<std::collections::BTreeMap<_, _>>()
                    .into_iter()
                    .collect();
                let mut grid = std::collections::BTreeMap::new();
                for &(v, c) in part {
                    *grid
                        .entry(iomark::result::plat::value(iomark::result::plat::index(v)))
                        .or_insert(0u64) += c;
                }
                assert_eq!(bins, grid.into_iter().collect::<Vec<_>>(), "{dir}");
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

    /// The key paths of a fio JSON document with the type of each value (`int`,
    /// `float`, `string`, `object`, `array`); the entries of `client_stats` are told
    /// apart as a host's job (`[host]`) or the "All clients" job (`[all]`).
    fn shape(v: &Value, path: &str, out: &mut std::collections::BTreeSet<String>) {
        let kind = match v {
            Value::Number(n) if n.is_f64() => "float",
            Value::Number(_) => "int",
            Value::String(_) => "string",
            Value::Object(_) => "object",
            Value::Array(_) => "array",
            Value::Bool(_) => "bool",
            Value::Null => "null",
        };
        out.insert(format!("{path}: {kind}"));
        match v {
            Value::Object(m) => m
                .iter()
                .for_each(|(k, x)| shape(x, &format!("{path}.{k}"), out)),
            Value::Array(a) => a.iter().for_each(|x| {
                let which = match x["jobname"].as_str() {
                    Some("All clients") => "[all]",
                    Some(_) => "[host]",
                    None => "[]",
                };
                shape(x, &format!("{path}{which}"), out)
            }),
            _ => {}
        }
    }

    /// A job file of one randrw job of 512 blocks of 4 KiB in `dir`.
    fn randrw_job(at: &Path, dir: &Path) -> std::path::PathBuf {
        let f = at.join("m.fio");
        let job = format!(
            "[m]\nrw=randrw\nbs=4k\nsize=2m\ndirectory={}\n",
            dir.display()
        );
        std::fs::write(&f, job).unwrap();
        f
    }

    /// fio 3.33 as four clients of one `fio --server` on the loopback (a port the
    /// system had free), running `job`: its client JSON document. `None` (the reason
    /// printed) without fio or when the server cannot listen.
    fn fio_four_clients(at: &Path, job: &Path) -> Option<Value> {
        if !crate::util::need_fio("fio's client JSON") {
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .ok()?;
        let mut server = Command::new("fio")
            .arg(format!("--server=127.0.0.1,{port}"))
            .current_dir(at)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        // wait for it to listen (it does within milliseconds)
        let up = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        let client = format!("--client=127.0.0.1,{port}");
        let out = up.then(|| {
            Command::new("fio")
                .args([&client, &client, &client, &client])
                .arg("--output-format=json")
                .arg(job)
                .current_dir(at)
                .output()
                .unwrap()
        });
        let _ = server.kill();
        let _ = server.wait();
        let Some(out) = out.filter(|o| o.status.success()) else {
            crate::util::skip("fio --server on the loopback did not run the job");
            return None;
        };
        Some(serde_json::from_slice(&out.stdout).unwrap())
    }

    /// `mpirun -np 4 iomark run JOB --output-format=json` prints fio 3.33's client
    /// document (report/fio/json/clients.rs, which names where each key comes from in fio's
    /// client.c and stat.c): `client_stats` holds each rank's job with its `hostname`
    /// and `port`, then one "All clients" job whose counts are the sums of the four;
    /// the key paths and types are those fio 3.33 writes as four `--client`s of a
    /// `fio --server` on the loopback, running the same job file.
    #[test]
    fn four_ranks_print_fios_client_json() {
        let d = scratch();
        let [mine, theirs] = ["iomark", "fio"].map(|n| d.path().join(n));
        for p in [&mine, &theirs] {
            std::fs::create_dir_all(p).unwrap();
        }
        let job = randrw_job(d.path(), &mine);
        let rj = d.path().join("r.json");
        let jarg = format!("--json={}", rj.display());
        let job_arg = job.to_str().unwrap();
        let Some(o) = four(&["run", job_arg, "--output-format=json", &jarg]) else {
            return;
        };
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        // fio's client starts its document with an empty line
        assert!(out.starts_with("\n{\n"), "{out}");
        let doc: Value = serde_json::from_str(&out).unwrap();
        assert!(doc.get("jobs").is_none() && doc.get("timestamp_ms").is_none());
        let stats = doc["client_stats"].as_array().unwrap();
        assert_eq!(stats.len(), 5, "four hosts' jobs and All clients");
        let r = json(&rj);
        let ranks = per_rank(&r);
        for (s, p) in stats[..4].iter().zip(ranks) {
            assert_eq!(s["jobname"], "m");
            assert_eq!(s["hostname"], p["hostname"]);
            assert!(!s["hostname"].as_str().unwrap().is_empty());
            // the MPI rank in the port's place: ranks on one host are told apart
            assert_eq!(s["port"], p["rank"]);
            assert!(s.get("eta").is_none() && s.get("elapsed").is_none(), "{s}");
            for dir in ["read", "write"] {
                assert_eq!(s[dir]["total_ios"], p["result"]["jobs"][0][dir]["ios"]);
            }
        }
        let ids: std::collections::BTreeSet<(String, u64)> = stats[..4]
            .iter()
            .map(|s| (s["hostname"].to_string(), s["port"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            ids.len(),
            4,
            "each host's entry has its own hostname and port"
        );
        for du in doc["disk_util"].as_array().unwrap() {
            let port = du["port"].as_u64().unwrap();
            assert!(port < 4, "{du}");
            assert_eq!(du["hostname"], ranks[port as usize]["hostname"], "{du}");
        }
        let all = &stats[4];
        assert_eq!(all["jobname"], "All clients");
        assert_eq!(all["hostname"], stats[3]["hostname"], "the last host's");
        assert_eq!(all["port"], 3, "the last host's");
        assert!(all.get("job options").is_none(), "{all}");
        for dir in ["read", "write"] {
            let sum = |k: &str| {
                stats[..4]
                    .iter()
                    .map(|s| s[dir][k].as_u64().unwrap())
                    .sum::<u64>()
            };
            assert_eq!(
                all[dir]["total_ios"].as_u64(),
                Some(sum("total_ios")),
                "{dir}"
            );
            assert_eq!(
                all[dir]["io_bytes"].as_u64(),
                Some(sum("io_bytes")),
                "{dir}"
            );
            // every rank's share of the 512 blocks
            let ios: u64 = ["read", "write"]
                .iter()
                .map(|x| {
                    stats[..4]
                        .iter()
                        .map(|s| s[*x]["total_ios"].as_u64().unwrap())
                        .sum::<u64>()
                })
                .sum();
            assert_eq!(ios, 4 * 512);
            // fio: bw over the run time, the longest host's own
            let rt = all[dir]["runtime"].as_u64().unwrap();
            let longest = stats[..4]
                .iter()
                .map(|s| s[dir]["runtime"].as_u64().unwrap())
                .max()
                .unwrap();
            assert_eq!(rt, longest, "{dir}");
            let bw = all[dir]["bw_bytes"].as_u64().unwrap();
            assert_eq!(bw, sum("io_bytes") * 1000 / rt, "{dir}");
            assert!(all[dir]["clat_ns"].get("percentile").is_none(), "{all}");
        }
        let Some(fio) = fio_four_clients(&theirs, &randrw_job(&theirs, &theirs)) else {
            return;
        };
        let (mut want, mut got) = Default::default();
        shape(&fio, "", &mut want);
        shape(&doc, "", &mut got);
        let missing: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "key paths and types of fio's client JSON: missing {missing:#?}, extra {extra:#?}"
        );
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

    /// `--status-interval` under MPI: only rank 0 prints its progress lines (as only it
    /// prints the report), so two ranks of a 2 s job at 500 ms intervals give rank 0's
    /// four or five lines, not each rank's.
    #[test]
    fn status_interval_lines_come_from_rank_0_alone() {
        let d = scratch();
        let dir = format!("--directory={}", d.path().display());
        let Some(mut c) = mpirun() else {
            return;
        };
        let o = c
            .args(["-np", "2", BIN, "run", "--name=s", "--rw=write", "--bs=4k"])
            .args(["--size=4m", "--time_based", "--runtime=2"])
            .args(["--status-interval=500ms", &dir])
            .output()
            .unwrap();
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert!(out.contains("Run status group 0"), "{out}");
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("[t=")).collect();
        assert!(
            (2..=5).contains(&lines.len()),
            "{} status lines: {err}",
            lines.len()
        );
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
