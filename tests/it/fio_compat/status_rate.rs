//! fio's status line under a rate limit (`--eta=always`), next to fio 3.33: the limit
//! part (`Jobs: 1 (f=1), 0B/s-8192KiB/s`) sums the limits of the directions the job
//! does only — `--rate=8m` on a read job is 8 MiB/s, not the unused write side's too —
//! and the rate the line shows (`[r=…]`) stays within a tolerance of the limit.
//! `null` engine jobs, so no file is laid out; each tool's half is checked alike (fio's
//! skipped, with the reason, when it is not installed).

use crate::util::*;
use std::path::Path;

/// The status lines (`Jobs: …`) of an output whose lines end in `\r` or `\n`.
fn status_lines(out: &str) -> Vec<&str> {
    out.split(['\r', '\n'])
        .filter(|l| l.starts_with("Jobs: "))
        .collect()
}

/// A byte rate as the status line prints it (`8200KiB/s`, `10.0MiB/s`, `512B/s`), KiB/s.
fn kib(rate: &str) -> f64 {
    let r = rate.trim_end_matches("/s");
    let (num, mult) = [
        ("GiB", 1024.0 * 1024.0),
        ("MiB", 1024.0),
        ("KiB", 1.0),
        ("B", 1.0 / 1024.0),
    ]
    .iter()
    .find_map(|(u, m)| r.strip_suffix(u).map(|n| (n, *m)))
    .unwrap_or_else(|| panic!("no unit in {rate:?}"));
    num.parse::<f64>()
        .unwrap_or_else(|_| panic!("no number in {rate:?}"))
        * mult
}

/// The read rate of a full status line (`…[r=8200KiB/s][r=2050 IOPS]…`), KiB/s.
fn read_rate(line: &str) -> Option<f64> {
    let rest = line.split_once("][r=")?.1;
    let rate = rest.split(']').next()?;
    rate.ends_with("/s").then(|| kib(rate))
}

fn tool_cmd(tool: &str, d: &Path) -> Iomark {
    match tool {
        "fio" => fio_cmd(),
        _ => as_fio(d),
    }
}

/// Each job's status lines show fio's limit: the directions the job does, summed.
#[test]
fn the_status_line_shows_the_jobs_own_rate_limit() {
    let test = "the_status_line_shows_the_jobs_own_rate_limit";
    let d = scratch();
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    let cases: [(&[&str], &str); 4] = [
        (
            &["--rw=randrw", "--size=16m", "--rate=8m,2m"],
            "Jobs: 1 (f=1), 0B/s-10.0MiB/s",
        ),
        (
            &["--rw=write", "--size=2m", "--rate=8m,1m"],
            "Jobs: 1 (f=1), 0B/s-1024KiB/s",
        ),
        (
            &["--rw=read", "--size=2m", "--rate=1m,8m"],
            "Jobs: 1 (f=1), 0B/s-1024KiB/s",
        ),
        (
            &["--rw=read", "--size=2m", "--rate_iops=500"],
            "Jobs: 1 (f=1), 0-500 IOPS",
        ),
    ];
    for tool in &tools {
        for (args, limit) in cases {
            let o = tool_cmd(tool, d.path())
                .dir(d.path())
                .args(["--name=a", "--ioengine=null", "--eta=always"])
                .arg("--eta-interval=500ms")
                .args(args)
                .run();
            assert_eq!(o.code, 0, "{tool} {args:?}: {}", o.dump());
            let lines = status_lines(&o.stdout);
            assert!(
                !lines.is_empty(),
                "{tool} {args:?}: no status line\n{}",
                o.dump()
            );
            for l in lines {
                assert!(
                    l.starts_with(limit),
                    "{tool} {args:?}: {l:?}, want {limit:?}"
                );
            }
        }
    }
}

/// `--rate=8m` on a 32 MiB read (four seconds): every status line shows the limit as
/// 8192KiB/s, and each rate it shows since the line before is within 10 % of it.
#[test]
fn the_status_line_rate_stays_at_the_limit() {
    let test = "the_status_line_rate_stays_at_the_limit";
    let d = scratch();
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    for tool in tools {
        let o = tool_cmd(tool, d.path())
            .dir(d.path())
            .args(["--name=a", "--ioengine=null", "--rw=read", "--size=32m"])
            .args(["--rate=8m", "--eta=always"])
            .run();
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        let lines = status_lines(&o.stdout);
        let mut rates = Vec::new();
        for l in &lines {
            assert!(
                l.starts_with("Jobs: 1 (f=1), 0B/s-8192KiB/s"),
                "{tool}: {l:?}"
            );
            rates.extend(read_rate(l));
        }
        assert!(!rates.is_empty(), "{tool}: no rate shown: {lines:?}");
        for r in rates {
            assert!(
                (r - 8192.0).abs() <= 819.2,
                "{tool}: r={r}KiB/s in {lines:?}"
            );
        }
    }
}

#[test]
fn rates_read_as_the_line_prints_them() {
    assert_eq!(kib("8200KiB/s"), 8200.0);
    assert_eq!(kib("10.0MiB/s"), 10240.0);
    assert_eq!(kib("512B/s"), 0.5);
    let l = "Jobs: 1 (f=1), 0B/s-8192KiB/s: [R(1)][60.0%][r=8200KiB/s][r=2050 IOPS][eta 00m:02s]";
    assert_eq!(read_rate(l), Some(8200.0));
    assert_eq!(read_rate("Jobs: 1 (f=1), 0B/s-8192KiB/s"), None);
}
