//! `iomark run` with `ioengine=libaio` and `ioengine=posixaio` (src/engine/libaio.rs,
//! src/engine/posixaio.rs): data round trips checked by verify headers at iodepth 1 and
//! above, every I/O counted once at QD32, the slat/clat split of each engine, O_DIRECT on
//! a loop-mounted ext4 and on a filesystem without it, EOF and injected faults
//! (`IOMARK_FAULT`) reported with the same lines as psync and io_uring, the engine
//! options (`userspace_reap`, `iodepth_batch_submit`, cmdprio, atomic), and the JSON /
//! text reports against fio's own for the same job (skipped without fio).

use crate::util::{absent_here, scratch, skip, LoopFs, Mount, BIN};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

const AIO: [&str; 2] = ["libaio", "posixaio"];

fn iomark(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new(BIN);
    c.current_dir(dir).arg("run").args(args);
    c.env_remove("IOMARK_FAULT");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The fio JSON of a run that must succeed.
fn json(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("stdout is fio JSON")
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn have_fio() -> bool {
    Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The error lines (`iomark run: …`) of a run's stderr.
fn error_lines(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with("iomark run:"))
        .map(str::to_string)
        .collect()
}

/// Written with verify headers, then read back through the engine by a read-only
/// verify job (which checks every block it reads): both pass at QD1 and QD8, no
/// substitution note is printed, and the job line names the engine. A read corrupted
/// by `IOMARK_FAULT=read:corrupt@3` is caught by the same job (the fault of a queued
/// request is applied when it is reaped).
#[test]
fn write_then_verified_read_round_trips_on_both_engines() {
    let d = scratch();
    for engine in AIO {
        for qd in ["1", "8"] {
            let common_args = [
                "--name=v",
                &format!("--ioengine={engine}"),
                &format!("--iodepth={qd}"),
                "--bs=4k",
                "--size=512k",
                "--filename=f",
                "--verify=crc32c",
            ]
            .map(String::from);
            let a: Vec<&str> = common_args.iter().map(String::as_str).collect();
            let w = iomark(d.path(), &[], &[&a[..], &["--rw=randwrite"]].concat());
            assert_eq!(w.status.code(), Some(0), "{engine} QD{qd}: {}", stderr(&w));
            let out = String::from_utf8_lossy(&w.stdout);
            assert!(out.contains(&format!("engine={engine}")), "{out}");
            assert!(out.contains("verify: 128 blocks read back"), "{out}");
            // no substitution note (the /proc/self/io line names io_uring as what its
            // rchar does not count)
            let named = stderr(&w)
                .lines()
                .any(|l| l.contains("io_uring") && !l.contains("rchar"));
            assert!(!named, "{}", stderr(&w));
            let r = iomark(
                d.path(),
                &[],
                &[&a[..], &["--rw=randread", "--output-format=json"]].concat(),
            );
            let v = json(&r);
            assert_eq!(v["jobs"][0]["read"]["total_ios"], 128, "{engine} QD{qd}");
            assert_eq!(v["jobs"][0]["job options"]["ioengine"], engine);
            let bad = iomark(
                d.path(),
                &[("IOMARK_FAULT", "read:corrupt@3")],
                &[&a[..], &["--rw=read"]].concat(),
            );
            assert_eq!(
                bad.status.code(),
                Some(1),
                "{engine} QD{qd}: {}",
                stderr(&bad)
            );
            assert!(
                stderr(&bad).contains("verify failed in f at offset 8192"),
                "{engine} QD{qd}: {}",
                stderr(&bad)
            );
        }
        std::fs::remove_file(d.path().join("f")).unwrap();
    }
}

/// 2 MiB of mixed 4 KiB reads and writes at QD32: every request completes and is
/// counted once, and each one has slat and clat that add up to its lat.
#[test]
fn qd32_counts_every_io_and_splits_latency() {
    let d = scratch();
    for engine in AIO {
        let v = json(&iomark(
            d.path(),
            &[],
            &[
                "--name=a",
                &format!("--ioengine={engine}"),
                "--iodepth=32",
                "--rw=randrw",
                "--bs=4k",
                "--size=2m",
                "--filename=f",
                "--output-format=json",
            ],
        ));
        let j = &v["jobs"][0];
        let (rd, wr) = (&j["read"], &j["write"]);
        let ios = rd["total_ios"].as_u64().unwrap() + wr["total_ios"].as_u64().unwrap();
        assert_eq!(
            ios, 512,
            "{engine}: every issued I/O completed and counted once"
        );
        let bytes = rd["io_bytes"].as_u64().unwrap() + wr["io_bytes"].as_u64().unwrap();
        assert_eq!(bytes, 2 << 20, "{engine}");
        for d in [rd, wr] {
            let (s, c, l) = (
                num(&d["slat_ns"]["mean"]),
                num(&d["clat_ns"]["mean"]),
                num(&d["lat_ns"]["mean"]),
            );
            assert!(s > 0.0 && c > 0.0, "{engine}: slat {s} clat {c}");
            assert!(
                (s + c - l).abs() <= 1e-6 * l + 1.0,
                "{engine}: {s} + {c} != {l}"
            );
            assert_eq!(d["slat_ns"]["N"], d["clat_ns"]["N"], "{engine}");
        }
        // where the I/O was issued (fio's iodepth_level): libaio refills each slot as
        // its completion is reaped, so the queue stays full; posixaio wakes when one of
        // the first 8 running requests finishes and takes all that are done, so the
        // queue swings between about 8 and 32 (fio 3.33 here: 16 for ~60 %, 32 for ~18 %)
        let lv = &j["iodepth_level"];
        assert!(num(&lv[">=64"]) == 0.0, "{j}");
        let deep = if engine == "libaio" {
            num(&lv["32"])
        } else {
            num(&lv["16"]) + num(&lv["32"])
        };
        assert!(deep > 50.0, "{engine}: {lv}");
    }
}

/// The split of a buffered QD1 read on tmpfs, as fio measures it: libaio's io_submit
/// copies the data before it returns, so most of the time is slat, in iomark and in fio
/// (when installed). libaio's clat is about a microsecond, so a few preemptions on a
/// loaded machine move its mean: there the fastest requests are compared (min; load
/// only adds time). posixaio's aio_read only hands the request to a helper thread:
/// fio then sleeps in aio_suspend, so its clat (the helper's wake-up of the sleeping
/// thread) is several times its slat on average; iomark looks for the completion for
/// up to 50 µs before it sleeps (docs/compat/fio.md, the engines), so its clat holds no
/// wake-up and the split is not fio's — there every request has its slat and its clat
/// and, summed, its lat.
#[test]
fn buffered_split_puts_the_copy_where_fio_does() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let f = dir.path().join("f");
    let file = format!("--filename={}", f.display());
    for engine in AIO {
        let job = [
            "--name=s",
            &format!("--ioengine={engine}"),
            "--iodepth=1",
            "--rw=randread",
            "--bs=4k",
            "--size=8m",
            &file,
            "--output-format=json",
        ]
        .map(String::from);
        let job: Vec<&str> = job.iter().map(String::as_str).collect();
        let v = json(&iomark(dir.path(), &[], &job));
        let r = &v["jobs"][0]["read"];
        let key = if engine == "libaio" { "min" } else { "mean" };
        let (s, c) = (num(&r["slat_ns"][key]), num(&r["clat_ns"][key]));
        let slat_first = engine == "libaio";
        if slat_first {
            assert!(s > c, "{engine}: slat {s} ns, clat {c} ns");
        } else {
            assert_eq!(r["slat_ns"]["N"], r["total_ios"], "{engine}: {r}");
            assert_eq!(r["clat_ns"]["N"], r["total_ios"], "{engine}: {r}");
            let l = num(&r["lat_ns"]["mean"]);
            assert!(
                (s + c - l).abs() <= 1e-6 * l + 1.0,
                "{engine}: {s} + {c} != {l}"
            );
        }
        if have_fio() {
            let o = Command::new("fio").args(&job).output().unwrap();
            let fv = json(&o);
            let fr = &fv["jobs"][0]["read"];
            let (fs, fc) = (num(&fr["slat_ns"][key]), num(&fr["clat_ns"][key]));
            assert_eq!(
                fs > fc,
                slat_first,
                "fio {engine}: slat {fs} ns, clat {fc} ns"
            );
        }
    }
}

/// O_DIRECT through a loop-mounted ext4: verified writes and reads at QD16 on both
/// engines; libaio's requests really are asynchronous there (the device completes them
/// after io_submit returned: clat above slat).
#[test]
fn direct_io_on_a_loop_mounted_ext4() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let file = format!("--filename={}", fs.dir().join("f").display());
    for engine in AIO {
        let a = [
            "--name=d",
            &format!("--ioengine={engine}"),
            "--iodepth=16",
            "--direct=1",
            "--bs=4k",
            "--size=4m",
            &file,
            "--verify=crc32c",
            "--output-format=json",
        ]
        .map(String::from);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let d = fs.dir();
        let w = json(&iomark(d, &[], &[&a[..], &["--rw=randwrite"]].concat()));
        assert_eq!(w["jobs"][0]["write"]["total_ios"], 1024, "{engine}");
        let r = json(&iomark(d, &[], &[&a[..], &["--rw=randread"]].concat()));
        let rd = &r["jobs"][0]["read"];
        assert_eq!(rd["total_ios"], 1024, "{engine}");
        if engine == "libaio" {
            let (s, c) = (num(&rd["slat_ns"]["mean"]), num(&rd["clat_ns"]["mean"]));
            assert!(c > s, "direct libaio: slat {s} ns, clat {c} ns");
        }
    }
}

/// ramfs takes no O_DIRECT: every engine refuses the job before any I/O with the same
/// one line naming direct=1, the filesystem type and the directory, as fileio does
/// (exit 3).
#[test]
fn direct_io_where_the_filesystem_has_none_is_one_clear_line() {
    let m = match Mount::try_new(&["-t", "ramfs", "ramfs"]) {
        Ok(m) => m,
        Err(why) => return skip(why),
    };
    let file = format!("--filename={}", m.dir().join("f").display());
    let mut lines = Vec::new();
    for engine in ["psync", "libaio", "posixaio"] {
        let o = iomark(
            m.dir(),
            &[],
            &[
                "--name=d",
                &format!("--ioengine={engine}"),
                "--iodepth=4",
                "--direct=1",
                "--rw=randread",
                "--bs=4k",
                "--size=256k",
                &file,
            ],
        );
        assert_eq!(o.status.code(), Some(3), "{engine}: {}", stderr(&o));
        let e = error_lines(&o);
        assert_eq!(e.len(), 1, "{engine}: {}", stderr(&o));
        let at = std::fs::canonicalize(m.dir()).unwrap();
        assert_eq!(
            e[0],
            format!(
                "iomark run: ramfs at {} does not support O_DIRECT (direct=1); use direct=0 or a directory on another filesystem",
                at.display()
            ),
            "{engine}"
        );
        lines.push(e[0].clone());
    }
    assert!(lines.iter().all(|l| *l == lines[0]), "{lines:?}");
}

/// Injected errors and short transfers (`IOMARK_FAULT`) end a job with the same line on
/// every engine: the operation, length, offset, file and errno (exit 1).
#[test]
fn faults_read_the_same_on_every_engine() {
    let d = scratch();
    for (fault, why) in [
        ("read:eio@3", "Input/output error"),
        ("read:short@3", "short transfer (2048 bytes)"),
        ("write:enospc@5", "No space left on device"),
    ] {
        let rw = if fault.starts_with("read") {
            "read"
        } else {
            "write"
        };
        let mut lines = Vec::new();
        for engine in ["psync", "io_uring", "libaio", "posixaio"] {
            let o = iomark(
                d.path(),
                &[("IOMARK_FAULT", fault)],
                &[
                    "--name=a",
                    &format!("--ioengine={engine}"),
                    "--iodepth=4",
                    &format!("--rw={rw}"),
                    "--bs=4k",
                    "--size=64k",
                    "--filename=f",
                ],
            );
            assert_eq!(o.status.code(), Some(1), "{engine} {fault}: {}", stderr(&o));
            let e = error_lines(&o);
            assert_eq!(e.len(), 1, "{engine} {fault}: {}", stderr(&o));
            assert!(e[0].contains(why), "{engine} {fault}: {e:?}");
            lines.push(e[0].clone());
        }
        assert!(lines.iter().all(|l| *l == lines[0]), "{fault}: {lines:?}");
    }
}

/// Wait until process `pid` is stopped (state `T` in /proc/PID/stat).
fn wait_stopped(pid: u32) {
    for _ in 0..2000 {
        let st = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = st
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next());
        if state == Some("T") {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("process {pid} did not stop");
}

/// A file that ends early: the job stops itself before its 5th read
/// (`IOMARK_FAULT=read:stop@5`), the test truncates the file to 8 KiB and continues it;
/// the read at 16 KiB finds the end of the file and fails as a short transfer of 0
/// bytes, with the same line on every engine.
#[test]
fn a_read_past_the_end_is_a_short_transfer_on_every_engine() {
    let d = scratch();
    let mut lines = Vec::new();
    for engine in ["psync", "io_uring", "libaio", "posixaio"] {
        let f = d.path().join("f");
        let _ = std::fs::remove_file(&f);
        let child = Command::new(BIN)
            .current_dir(d.path())
            .env("IOMARK_FAULT", "read:stop@5")
            .args([
                "run",
                "--name=e",
                &format!("--ioengine={engine}"),
                "--rw=read",
                "--bs=4k",
                "--size=64k",
                "--filename=f",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        wait_stopped(child.id());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .unwrap()
            .set_len(8192)
            .unwrap();
        // SAFETY: kill(2) on the child we spawned.
        unsafe { libc::kill(child.id() as i32, libc::SIGCONT) };
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{engine}: {}", stderr(&o));
        let e = error_lines(&o);
        assert_eq!(e.len(), 1, "{engine}: {}", stderr(&o));
        assert!(
            e[0].contains("read of 4096 bytes at offset 16384")
                && e[0].contains("short transfer (0 bytes)"),
            "{engine}: {e:?}"
        );
        lines.push(e[0].clone());
    }
    assert!(lines.iter().all(|l| *l == lines[0]), "{lines:?}");
}

/// Every key path of a JSON value (objects by key, arrays by their first element).
fn key_paths(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{k}");
                out.push(p.clone());
                key_paths(x, &p, out);
            }
        }
        Value::Array(a) => {
            if let Some(x) = a.first() {
                key_paths(x, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

fn sorted_paths(v: &Value) -> Vec<String> {
    let mut p = Vec::new();
    key_paths(v, "", &mut p);
    p.sort();
    p
}

/// A libaio and a posixaio job report with fio's shape: the JSON document has exactly
/// the key paths of fio's for the same job (when fio is installed), and the text report
/// has fio's per-direction latency lines (slat, clat, lat, clat percentiles), depth
/// and issue lines, and group lines, with the engine named on the job line.
#[test]
fn reports_have_fios_shape() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let file = format!("--filename={}", dir.path().join("f").display());
    for engine in AIO {
        let job = [
            "--name=a",
            &format!("--ioengine={engine}"),
            "--iodepth=8",
            "--rw=randrw",
            "--bs=4k",
            "--size=4m",
            &file,
        ]
        .map(String::from);
        let job: Vec<&str> = job.iter().map(String::as_str).collect();
        let t = iomark(dir.path(), &[], &job);
        assert_eq!(t.status.code(), Some(0), "{}", stderr(&t));
        let text = String::from_utf8_lossy(&t.stdout);
        assert!(text.contains(&format!("engine={engine}")), "{text}");
        for line in [
            "  read: IOPS=",
            "  write: IOPS=",
            "    slat (",
            "    clat (",
            "     lat (",
            "    clat percentiles (",
            "  IO depths    :",
            "     issued rwts: total=",
            "     latency   : target=0, window=0, percentile=100.00%, depth=8",
            "   READ: bw=",
            "  WRITE: bw=",
        ] {
            let n = text.lines().filter(|l| l.starts_with(line)).count();
            let want = if line.contains("lat (") || line.contains("percentiles") {
                2
            } else {
                1
            };
            assert_eq!(n, want, "{engine}: {line:?} in\n{text}");
        }
        if !have_fio() {
            skip("the JSON comparison: fio is not installed");
            continue;
        }
        let json_job = [&job[..], &["--output-format=json"]].concat();
        let ours = json(&iomark(dir.path(), &[], &json_job));
        let fio = json(&Command::new("fio").args(&json_job).output().unwrap());
        assert_eq!(sorted_paths(&ours), sorted_paths(&fio), "{engine}");
    }
}

/// libaio's own options: `userspace_reap` (with `iodepth_batch_complete_min=0`, as in
/// fio) and `iodepth_batch_submit` run every request; cmdprio is taken (per-I/O
/// priorities); `userspace_reap` on posixaio and `atomic=1` on posixaio are refused
/// naming the key (exit 2).
#[test]
fn libaio_options_and_what_posixaio_refuses() {
    let d = scratch();
    let base = [
        "--name=o",
        "--ioengine=libaio",
        "--iodepth=16",
        "--rw=randread",
        "--bs=4k",
        "--size=1m",
        "--filename=f",
        "--output-format=json",
    ];
    for extra in [
        &["--userspace_reap", "--iodepth_batch_complete_min=0"][..],
        &["--userspace_reap"][..],
        &["--iodepth_batch_submit=8", "--iodepth_batch_complete_max=4"][..],
        &["--cmdprio_percentage=50"][..],
    ] {
        let v = json(&iomark(d.path(), &[], &[&base[..], extra].concat()));
        assert_eq!(v["jobs"][0]["read"]["total_ios"], 256, "{extra:?}");
    }
    for (extra, names) in [
        (
            &["--ioengine=posixaio", "--userspace_reap"][..],
            "userspace_reap",
        ),
        // a job that writes: one that only reads needs no atomic writes and runs
        (
            &["--ioengine=posixaio", "--atomic=1", "--rw=randwrite"][..],
            "atomic=1",
        ),
    ] {
        let o = iomark(d.path(), &[], &[&base[..], extra].concat());
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(names), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("posixaio"), "{}", stderr(&o));
    }
}

/// `iodepth_batch_submit` is how many queued requests go to the kernel at once, not a
/// wait for that many free slots: fio 3.33 refills every free slot and hands what is
/// queued over when it reaps, so with O_DIRECT reads at iodepth=16 and a batch of 16
/// the queue stays full (`iodepth_level` 16 ≈ 100 %, as fio's; iomark waited for 16
/// free slots: 6 % at 16, the rest at 1-8, and half fio's IOPS).
#[test]
fn a_submit_batch_keeps_the_queue_full_as_fio() {
    let d = scratch();
    let args = [
        "--name=q",
        "--ioengine=libaio",
        "--direct=1",
        "--iodepth=16",
        "--iodepth_batch_submit=16",
        "--rw=randread",
        "--bs=4k",
        "--size=8m",
        "--filename=q.dat",
        "--output-format=json",
    ];
    let v = json(&iomark(d.path(), &[], &args));
    let job = &v["jobs"][0];
    assert_eq!(job["read"]["total_ios"], 2048, "{job}");
    let full = job["iodepth_level"]["16"].as_f64().unwrap();
    assert!(full > 95.0, "iodepth_level: {}", job["iodepth_level"]);
}

/// A rated posixaio job with `io_submit_mode=offload`: completions are collected while
/// the submitter waits (aio_suspend with a timeout), so the rate holds and clat stays
/// far below the 10 ms spacing.
#[test]
fn posixaio_offload_keeps_the_rate() {
    let d = scratch();
    let v = json(&iomark(
        d.path(),
        &[],
        &[
            "--name=r",
            "--ioengine=posixaio",
            "--rw=randread",
            "--size=4m",
            "--filename=f",
            "--iodepth=8",
            "--rate_iops=100",
            "--time_based",
            "--runtime=1",
            "--io_submit_mode=offload",
            "--output-format=json",
        ],
    ));
    let r = &v["jobs"][0]["read"];
    let iops = num(&r["iops"]);
    assert!((84.0..=116.0).contains(&iops), "IOPS {iops}");
    assert!(num(&r["clat_ns"]["mean"]) < 5e6, "{r}");
}

/// Too deep for the machine's AIO limit: the thread's io_setup fails with one line
/// naming fs.aio-max-nr (exit 3), not a panic or a silent fallback.
#[test]
fn iodepth_beyond_aio_max_nr_is_one_clear_line() {
    let max: u64 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(65536);
    if max > 65536 {
        return absent_here(format_args!(
            "fs.aio-max-nr={max} is above what one job can ask"
        ));
    }
    let d = scratch();
    let depth = format!("--iodepth={}", max / 2 + 1);
    let o = iomark(
        d.path(),
        &[],
        &[
            "--name=deep",
            "--ioengine=libaio",
            &depth,
            "--numjobs=2",
            "--rw=read",
            "--bs=4k",
            "--size=64k",
            "--filename=f",
            "--time_based",
            "--runtime=1",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = error_lines(&o);
    assert_eq!(e.len(), 1, "{}", stderr(&o));
    assert!(e[0].contains("fs.aio-max-nr"), "{e:?}");
}
