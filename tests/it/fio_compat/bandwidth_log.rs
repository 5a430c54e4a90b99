//! `--bandwidth-log`: fio 3.33's aggregate bandwidth logs `agg-read_bw.log`,
//! `agg-write_bw.log` and `agg-trim_bw.log` in the current directory (src/run/fio/agg_log.rs),
//! next to the installed fio's on the same jobs: the same three files whichever
//! directions the jobs move, lines `time, KiB/s, ddir, 0, 0`, a sample wherever fio
//! computes its status line (shown with `--eta=always`; forced by a JSON report), none
//! otherwise (the files are then empty). The fio half is skipped, with the reason
//! printed, when fio is not installed.

use crate::util::*;
use std::path::Path;

const FILES: [&str; 3] = ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"];

/// The three logs' samples `(time ms, KiB/s)`, in fio's direction order.
type AggLogs = [Vec<(u64, u64)>; 3];

/// Each agg log of `dir` as its lines `(time ms, KiB/s)`, checking fio's line format
/// (the direction column is the file's, bs and prio 0) and that the three files have
/// the same sample times, increasing.
fn agg_logs(dir: &Path, who: &str) -> AggLogs {
    let logs: AggLogs = std::array::from_fn(|d| {
        let p = dir.join(FILES[d]);
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{who}: {p:?}: {e}"));
        text.lines()
            .map(|l| {
                let f: Vec<u64> = l.split(", ").map(|x| x.parse().expect(l)).collect();
                assert_eq!(f[2..], [d as u64, 0, 0], "{who} {}: {l}", FILES[d]);
                (f[0], f[1])
            })
            .collect()
    });
    let times = |d: usize| logs[d].iter().map(|s| s.0).collect::<Vec<_>>();
    assert!(times(0).windows(2).all(|w| w[0] < w[1]), "{who}: {logs:?}");
    assert_eq!(times(0), times(1), "{who}");
    assert_eq!(times(0), times(2), "{who}");
    logs
}

/// Run `args` in a fresh directory of `at` with iomark as `fio` and, when installed,
/// fio itself: each one's agg logs.
fn both(at: &Path, args: &[&str]) -> Vec<(&'static str, AggLogs)> {
    let mut out = Vec::new();
    for who in ["iomark", "fio"] {
        if who == "fio" && !have_fio() {
            skip("--bandwidth-log next to fio: fio is not installed");
            continue;
        }
        let d = at.join(format!("{who}.{}", at.read_dir().unwrap().count()));
        std::fs::create_dir(&d).unwrap();
        let cmd = match who {
            "fio" => fio_cmd(),
            _ => Iomark::program(env!("CARGO_BIN_EXE_iomark")).arg("run"),
        };
        let o = cmd.dir(&d).args(args).run();
        assert_eq!(o.code, 0, "{who}: {}", o.dump());
        out.push((who, agg_logs(&d, who)));
    }
    out
}

/// A status line shown (`--eta=always`, the JSON into `--output`): samples about every
/// 500 ms, each direction's bandwidth in KiB/s — a write rate-limited to 4 MiB/s gives
/// about 4096 in the write log, 0 in the others; the JSON report adds one more.
#[test]
fn samples_follow_the_status_line_in_kib_per_s() {
    let d = scratch();
    let job = [
        "--name=w",
        "--rw=write",
        "--bs=4k",
        "--size=64m",
        "--ioengine=psync",
        "--rate=4m",
        "--runtime=2",
        "--time_based",
        "--bandwidth-log",
        "--eta=always",
        "--output-format=json",
        "--output=r.json",
    ];
    for (who, logs) in both(d.path(), &job) {
        let w = &logs[1];
        assert!(w.len() >= 2, "{who}: {w:?}");
        assert!(logs[0].iter().chain(&logs[2]).all(|s| s.1 == 0), "{who}");
        // the median sample (the first one also counts the time before the I/O)
        let mut v: Vec<u64> = w.iter().map(|s| s.1).collect();
        v.sort_unstable();
        let median = v[v.len() / 2];
        assert!((2900..=5300).contains(&median), "{who}: {w:?}");
    }
}

/// No status line (stdout not a terminal): the three files, empty; the JSON document
/// alone on stdout: one sample, made when the report is.
#[test]
fn no_status_line_no_samples_and_json_adds_one() {
    let d = scratch();
    let job = [
        "--name=m",
        "--rw=randrw",
        "--bs=4k",
        "--size=1m",
        "--ioengine=psync",
        "--runtime=1",
        "--time_based",
        "--bandwidth-log",
    ];
    for (who, logs) in both(d.path(), &job) {
        assert!(logs.iter().all(Vec::is_empty), "{who}: {logs:?}");
    }
    let json = [&job[..], &["--output-format=json"]].concat();
    for (who, logs) in both(d.path(), &json) {
        assert!(logs.iter().all(|l| l.len() == 1), "{who}: {logs:?}");
        // at the report, after the 1 s of I/O; both directions moved data
        assert!(logs[0][0].0 >= 1000, "{who}: {logs:?}");
        assert!(logs[0][0].1 > 0 && logs[1][0].1 > 0, "{who}: {logs:?}");
    }
}

/// A log that is one of the other outputs is refused before anything runs (exit 2,
/// naming both), as the jobs' own logs are; a planted link in its place, exit 3.
#[test]
fn an_agg_log_that_is_another_output_is_refused() {
    let base = ["--name=c", "--size=64k", "--bandwidth-log"];
    let (d, with_output) = (
        scratch(),
        [&base[..], &["--output=agg-write_bw.log"]].concat(),
    );
    let o = run(d.path(), &with_output);
    assert_eq!(o.code, 2, "{}", o.dump());
    assert!(
        o.stderr.contains("--bandwidth-log") && o.stderr.contains("agg-write_bw.log"),
        "{}",
        o.stderr
    );
    assert!(!d.path().join("c.0.0").exists(), "nothing ran");
    std::os::unix::fs::symlink("elsewhere", d.path().join("agg-trim_bw.log")).unwrap();
    let o = run(d.path(), &base);
    assert_eq!(o.code, 3, "{}", o.dump());
    assert!(!d.path().join("elsewhere").exists());
}
