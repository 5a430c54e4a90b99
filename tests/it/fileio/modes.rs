//! `iomark fileio` end to end on its own: every test mode × io mode with the text
//! report, the JSON counts and sysbench's generator rules (simulated in tests/it/util/sysbench.rs) agreeing, and a time-limited
//! run with cleanup.

use crate::util::*;

fn mode_matrix(io: &str) {
    let d = scratch();
    let dir = d.path();
    let base = ["--file-total-size=4M", "--file-num=4", "--notes=off"];
    fileio(dir, &[&base[..], &["prepare"]].concat()).ok();
    for mode in MODES {
        let fm = format!("--file-test-mode={mode}");
        let io = format!("--file-io-mode={io}");
        let json = dir.join(format!("{mode}.json"));
        let js = format!("--json={}", json.display());
        let args = [
            &base[..],
            &[&fm, &io, "--events=300", "--time=0", &js, "run"],
        ]
        .concat();
        let r = fileio(dir, &args).ok();
        let rep = parse_report(&r.stdout);
        let what = format!("{mode}/{io}");
        assert_eq!(rep.events, 300, "{what}: total events");
        assert_eq!(rep.fair_events_avg, 300.0, "{what}: fairness events");
        assert!(rep.total_time > 0.0, "{what}");
        let j = read_json(&json);
        assert_eq!(j["status"], "ok", "{what}");
        let c = json_counts(&j);
        assert_eq!(c.events, 300, "{what}");
        // the text report and the exact counts agree (rate × time, rounded)
        let t = j["elapsed_s"].as_f64().unwrap();
        assert!(
            (t - rep.total_time).abs() < 0.0001,
            "{what}: total time {t} vs {}",
            rep.total_time
        );
        assert!(
            (count(rep.reads_s, t) as i64 - c.reads as i64).abs() <= 1,
            "{what}: reads {rep:?} {c:?}"
        );
        assert!(
            (count(rep.writes_s, t) as i64 - c.writes as i64).abs() <= 1,
            "{what}: writes {rep:?} {c:?}"
        );
        assert!(
            (count(rep.fsyncs_s, t) as i64 - c.fsync_calls as i64).abs() <= 1,
            "{what}: fsyncs {rep:?} {c:?}"
        );
        let mib = |ops: u64| ops as f64 * 16384.0 / 1048576.0 / t;
        assert!(
            (rep.read_mib_s - mib(c.reads)).abs() <= 0.01 + mib(c.reads) * 1e-3,
            "{what}: read MiB/s"
        );
        assert!(
            (rep.written_mib_s - mib(c.writes)).abs() <= 0.01 + mib(c.writes) * 1e-3,
            "{what}: written MiB/s"
        );
        // events = reads + writes + periodic fsync events
        assert_eq!(c.reads + c.writes + c.periodic, 300, "{what}: {c:?}");
        match mode {
            "seqrd" | "rndrd" => {
                assert_eq!(
                    (rep.writes_s, rep.fsyncs_s),
                    (0.0, 0.0),
                    "{what}: read-only mode"
                );
                assert_eq!(rep.written_mib_s, 0.0, "{what}");
                assert_eq!((c.writes, c.fsync_calls, c.reads), (0, 0, 300), "{what}");
            }
            "rndrw" => {
                assert!(
                    rep.reads_s > 0.0 && rep.writes_s > 0.0 && rep.fsyncs_s > 0.0,
                    "{what}"
                );
            }
            _ => {
                assert_eq!(rep.reads_s, 0.0, "{what}: write-only mode");
                assert!(rep.writes_s > 0.0 && rep.fsyncs_s > 0.0, "{what}");
            }
        }
        if io != "--file-io-mode=async" {
            // sync and mmap follow the single-threaded generator exactly
            let e = simulate(mode, 300, 4, 100, 1.5, false, true, 1);
            assert_eq!(
                c, e,
                "{what}: counts differ from sysbench's generator rules"
            );
        }
    }
    // seqwr recreated the files; every file still exists
    for i in 0..4 {
        assert!(dir.join(format!("test_file.{i}")).exists());
    }
}

#[test]
fn modes_sync_prepare_run_counts_consistent() {
    mode_matrix("sync");
}

#[test]
fn modes_async_prepare_run_counts_consistent() {
    mode_matrix("async");
}

#[test]
fn modes_mmap_prepare_run_counts_consistent() {
    mode_matrix("mmap");
}

#[test]
fn time_limited_run_stops_and_reports() {
    let d = scratch();
    let r = fileio(
        d.path(),
        &[
            "--file-total-size=4M",
            "--file-num=4",
            "--file-test-mode=rndrw",
            "--time=1",
            "--notes=off",
            "prepare",
            "run",
            "cleanup",
        ],
    )
    .ok();
    let rep = parse_report(&r.stdout);
    assert!(rep.total_time >= 1.0 && rep.total_time < 3.0, "{rep:?}");
    assert!(rep.events > 0);
    assert_eq!(rep.fair_events_avg, rep.events as f64);
    assert!(r.stdout.contains("Removing test files..."));
    assert!(entries(d.path()).is_empty(), "{:?}", entries(d.path()));
}
