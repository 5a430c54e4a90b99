//! `iomark run` engine paths: synchronous completions recorded once but reported as
//! both clat and lat, io_uring's `force_async` (IOSQE_ASYNC) with its bad values, and the
//! reap spin recorded in the RunResult.

use crate::util::*;

/// psync and null complete in `submit`: each I/O is a clat and a lat sample, no slat;
/// on psync its lat counts from the request made ready and its clat from its issue, as
/// fio 3.33 times a synchronous engine (lat ≥ clat, the mean strictly); null keeps one
/// clock point (lat = clat).
#[test]
fn synchronous_completions_count_as_clat_and_lat() {
    let d = scratch();
    for engine in ["psync", "null"] {
        let o = run(
            d.path(),
            &[
                "--output-format=json",
                "--name=s",
                &format!("--ioengine={engine}"),
                "--rw=randread",
                "--bs=4k",
                "--size=1m",
                "--number_ios=200",
                "--filename=f",
            ],
        );
        let v = o.ok().json();
        let r = &v["jobs"][0]["read"];
        assert_eq!(r["total_ios"], 200, "{engine}");
        for k in ["clat_ns", "lat_ns"] {
            assert_eq!(r[k]["N"], 200, "{engine} {k}: {r}");
        }
        assert_eq!(
            r["slat_ns"]["N"], 0,
            "{engine}: no slat for synchronous I/O"
        );
        for f in ["min", "max", "mean"] {
            let (clat, lat) = (&r["clat_ns"][f], &r["lat_ns"][f]);
            assert!(lat.as_f64() >= clat.as_f64(), "{engine} {f}: {r}");
        }
        let mean = |k: &str| r[k]["mean"].as_f64().unwrap();
        // psync: lat from the request made ready, clat from its issue (a second clock
        // point); null keeps one clock point, its lat is its clat (docs/compat/fio.md)
        match engine {
            "null" => assert_eq!(mean("lat_ns"), mean("clat_ns"), "{engine}: {r}"),
            _ => assert!(mean("lat_ns") > mean("clat_ns"), "{engine}: {r}"),
        }
        assert!(r["clat_ns"]["mean"].as_f64().unwrap() > 0.0, "{engine}");
    }
}

/// `force_async` is fio's io_uring option: other engines refuse it, values are counts.
#[test]
fn force_async_is_checked() {
    let d = scratch();
    let base = ["--name=a", "--rw=read", "--size=64k", "--filename=f"];
    for (extra, want) in [
        (
            &["--ioengine=psync", "--force_async=2"][..],
            "force_async is an option of ioengine=io_uring, not of ioengine=psync",
        ),
        (
            &["--ioengine=io_uring", "--force_async=x"][..],
            "force_async",
        ),
        (
            &["--ioengine=io_uring", "--force_async=-1"][..],
            "force_async",
        ),
    ] {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        let o = run(d.path(), &a);
        let err = o.stderr;
        assert_eq!(o.code, 2, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    // force_async=1 on a file: every request punted, the job still reads every block
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=a",
            "--ioengine=io_uring",
            "--iodepth=4",
            "--force_async=1",
            "--rw=randread",
            "--size=256k",
            "--filename=f",
        ],
    );
    let v = o.ok().json();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 64);
    assert_eq!(v["jobs"][0]["error"], 0);
}

/// Targets are opened with O_NOATIME where allowed (owner or CAP_FOWNER): a read job
/// leaves the file's access time alone. The file's atime is set before its mtime, so
/// under the usual `relatime` a plain read would move it.
#[test]
fn reads_leave_the_access_time_alone() {
    use std::os::unix::fs::MetadataExt;
    let d = scratch();
    let p = d.path().join("f");
    std::fs::write(&p, vec![7u8; 1 << 20]).unwrap();
    let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    let f = std::fs::File::options().write(true).open(&p).unwrap();
    f.set_times(std::fs::FileTimes::new().set_accessed(old))
        .unwrap();
    drop(f);
    let before = std::fs::metadata(&p).unwrap().atime();
    assert_eq!(before, 1_000_000);
    for engine in ["psync", "io_uring", "mmap"] {
        let o = run(
            d.path(),
            &[
                "--name=r",
                &format!("--ioengine={engine}"),
                "--rw=read",
                "--bs=64k",
                "--size=1m",
                "--filename=f",
            ],
        );
        o.ok();
        let after = std::fs::metadata(&p).unwrap().atime();
        assert_eq!(after, before, "{engine}: the read moved the access time");
    }
}

/// An io_uring job's RunResult says which reap spin it ran with (default 5 µs;
/// `--reap-spin=0` is fio's way), so `compare` readers can tell; psync jobs say nothing.
#[test]
fn reap_spin_is_recorded_in_the_run_result() {
    let d = scratch();
    for (extra, want) in [
        (None, Some("reap_spin_ns=5000")),
        (Some("--reap-spin=0"), Some("reap_spin_ns=0")),
        (Some("--ioengine=psync"), None),
    ] {
        let mut a = vec![
            "--json=r.json",
            "--name=s",
            "--ioengine=io_uring",
            "--iodepth=4",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--number_ios=64",
            "--filename=f",
        ];
        a.extend(extra);
        let o = run(d.path(), &a);
        o.ok();
        let v = read_json(&d.path().join("r.json"));
        let notes: Vec<&str> = v["phases"][0]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n.as_str())
            .collect();
        let spin: Vec<&&str> = notes
            .iter()
            .filter(|n| n.starts_with("reap_spin_ns="))
            .collect();
        match want {
            Some(w) if notes.iter().any(|n| n.contains("engine=io_uring")) => {
                assert_eq!(spin, vec![&w], "{extra:?}: {notes:?}")
            }
            Some(_) => skip(format_args!(
                "{extra:?}: io_uring unavailable here ({notes:?})"
            )),
            None => assert!(spin.is_empty(), "{extra:?}: {notes:?}"),
        }
    }
}
