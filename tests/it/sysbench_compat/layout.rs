//! `iomark fileio` report layout against the real sysbench 1.0.20, line by line after
//! masking numbers (value columns included): every mode and io mode, header options,
//! sysbench 1.0.20's own transcripts (T7, T10, T11, T15, T18: captured from it and kept
//! in this file), help and missing-mode output.

use crate::util::*;

/// Out the same arguments with iomark and sysbench on their own prepared sets.
fn both(prepare: &[&str], args: &[&str]) -> (Out, Out) {
    let (di, ds) = (scratch(), scratch());
    fileio(di.path(), &[prepare, &["--notes=off", "prepare"]].concat()).ok();
    sysbench(ds.path(), &[prepare, &["prepare"]].concat()).ok();
    let hi = std::thread::scope(|s| {
        let h = s.spawn(|| fileio(di.path(), &[args, &["--notes=off", "run"]].concat()));
        let rs = sysbench(ds.path(), &[args, &["run"]].concat());
        (h.join().unwrap(), rs)
    });
    (hi.0.ok(), hi.1.ok())
}

#[test]
fn layout_every_mode_matches_sysbench() {
    let p = ["--file-total-size=64M"];
    for mode in MODES {
        let fm = format!("--file-test-mode={mode}");
        let (i, s) = both(
            &p,
            &["--file-total-size=64M", &fm, "--events=200", "--time=0"],
        );
        assert_same_layout(&i.stdout, &s.stdout, mode);
        assert!(i.stderr.is_empty() && s.stderr.is_empty(), "{}", i.stderr);
    }
}

#[test]
fn layout_io_modes_and_header_options_match_sysbench() {
    let p = ["--file-total-size=8M", "--file-num=8"];
    let cases: &[&[&str]] = &[
        &["--file-io-mode=async", "--file-test-mode=rndrw"],
        &["--file-io-mode=mmap", "--file-test-mode=rndwr"],
        &["--file-test-mode=seqrd", "--file-merged-requests=4"],
        &[
            "--file-test-mode=rndrw",
            "--file-fsync-all",
            "--file-extra-flags=dsync",
            "--threads=2",
            "--rand-seed=3",
        ],
        &[
            "--file-test-mode=rndrw",
            "--file-fsync-freq=0",
            "--file-fsync-end=off",
            "--percentile=99",
            "--file-rw-ratio=2",
        ],
        &[
            "--file-test-mode=seqrewr",
            "--percentile=0",
            "--file-extra-flags=sync",
        ],
        &[
            "--file-test-mode=rndrd",
            "--validate",
            "--file-block-size=4K",
        ],
    ];
    for c in cases {
        let args = [&p[..], c, &["--events=150", "--time=0"]].concat();
        let (i, s) = if c.contains(&"--validate") {
            // validated reads need validated files: prepare with --validate too
            both(
                &[&p[..], &["--validate", "--file-block-size=4K"]].concat(),
                &args,
            )
        } else {
            both(&p, &args)
        };
        assert_same_layout(&i.stdout, &s.stdout, &format!("{c:?}"));
    }
}

/// Transcript T7, as captured from sysbench 1.0.20.
const T7: &str = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: 1
Initializing random number generator from current time


Extra file open flags: (none)
128 files, 512KiB each
64MiB total file size
Block size 16KiB
Number of IO requests: 0
Read/Write ratio for combined random IO test: 1.50
Periodic FSYNC enabled, calling fsync() each 100 requests.
Calling fsync() at the end of test, Enabled.
Using synchronous I/O mode
Doing random r/w test
Initializing worker threads...

Threads started!


File operations:
    reads/s:                      2516.83
    writes/s:                     1677.89
    fsyncs/s:                     5378.13

Throughput:
    read, MiB/s:                  39.33
    written, MiB/s:               26.22

General statistics:
    total time:                          2.0249s
    total number of events:              19270

Latency (ms):
         min:                                    0.00
         avg:                                    0.10
         max:                                    9.77
         95th percentile:                        0.30
         sum:                                 1978.55

Threads fairness:
    events (avg/stddev):           19270.0000/0.00
    execution time (avg/stddev):   1.9785/0.00

";

#[test]
fn layout_matches_spec_transcript_t7() {
    let d = scratch();
    fileio(
        d.path(),
        &["--file-total-size=64M", "--notes=off", "prepare"],
    )
    .ok();
    let r = fileio(
        d.path(),
        &[
            "--file-total-size=64M",
            "--file-test-mode=rndrw",
            "--events=300",
            "--time=0",
            "--notes=off",
            "run",
        ],
    )
    .ok();
    assert_same_layout(&r.stdout, T7, "T7");
    assert_eq!(r.stdout.lines().count(), T7.lines().count());
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    assert!(
        r.stdout.ends_with("\n\n"),
        "the report ends with an empty line"
    );
}

/// Check one histogram bucket line: `%12.3f |<bar padded to 40> <count>`.
fn histogram_line(l: &str) -> (f64, u64, usize) {
    assert!(l.len() > 55, "{l:?}");
    let v = &l[..12];
    assert!(v.starts_with(' ') || v.len() == 12, "{l:?}");
    let value: f64 = v.trim().parse().unwrap_or_else(|_| panic!("{l:?}"));
    assert_eq!(
        v.trim().split('.').nth(1).map(str::len),
        Some(3),
        "3 decimals: {l:?}"
    );
    assert_eq!(&l[12..14], " |", "{l:?}");
    let bar = &l[14..54];
    let stars = bar.chars().take_while(|c| *c == '*').count();
    assert!(bar[stars..].chars().all(|c| c == ' '), "{l:?}");
    assert_eq!(&l[54..55], " ", "{l:?}");
    (
        value,
        l[55..].parse().unwrap_or_else(|_| panic!("{l:?}")),
        stars,
    )
}

#[test]
fn layout_histogram_t11_shape() {
    let p = ["--file-total-size=8M", "--file-num=4"];
    let args = [
        "--file-total-size=8M",
        "--file-num=4",
        "--file-test-mode=seqrewr",
        "--file-fsync-freq=0",
        "--file-block-size=1M",
        "--events=100",
        "--time=0",
        "--histogram",
    ];
    let (i, s) = both(&p, &args);
    let split = |out: &str| -> (String, Vec<String>, String) {
        let a = out
            .find("Latency histogram (values are in milliseconds)\n")
            .expect("histogram title");
        let rest = &out[a..];
        let b = rest
            .find("\n \n")
            .expect("the single-space line after the histogram");
        let lines: Vec<String> = rest[..b].lines().skip(1).map(String::from).collect();
        (out[..a].to_string(), lines, rest[b + 3..].to_string())
    };
    let (ih, ib, it) = split(&i.stdout);
    let (sh, sb, st) = split(&s.stdout);
    assert_same_layout(
        &(ih + &it),
        &(sh + &st),
        "histogram run without the histogram",
    );
    for b in [&ib, &sb] {
        assert_eq!(
            b[0],
            "       value  ------------- distribution ------------- count"
        );
    }
    let rows: Vec<(f64, u64, usize)> = ib[1..].iter().map(|l| histogram_line(l)).collect();
    assert!(!rows.is_empty());
    assert_eq!(
        rows.iter().map(|r| r.1).sum::<u64>(),
        100,
        "counts add up to the events"
    );
    let max = rows.iter().map(|r| r.1).max().unwrap();
    for (k, r) in rows.iter().enumerate() {
        assert!(r.1 > 0, "only non-empty buckets");
        assert_eq!(
            r.2 as u64,
            (r.1 * 40 * 2 + max) / (2 * max),
            "bar = floor(count*40/max + 0.5): {:?}",
            ib[k + 1]
        );
        if k > 0 {
            assert!(r.0 >= rows[k - 1].0, "ascending values");
        }
    }
    // sysbench's rows have the same format
    for l in &sb[1..] {
        histogram_line(l);
    }
}

#[test]
fn layout_interval_lines_t10() {
    let p = ["--file-total-size=8M", "--file-num=8"];
    let args = [
        "--file-total-size=8M",
        "--file-num=8",
        "--file-test-mode=rndrw",
        "--time=2",
        "--report-interval=1",
    ];
    let (i, s) = both(&p, &args);
    let is_interval = |l: &&str| l.starts_with("[ ");
    let check = |out: &str, who: &str| -> usize {
        let lines: Vec<&str> = out.lines().filter(is_interval).collect();
        assert!(
            !lines.is_empty() && lines.len() <= 2,
            "{who}: interval lines {lines:?}"
        );
        for (k, l) in lines.iter().enumerate() {
            assert_eq!(
                mask(l),
                "[ #s ] reads: # MiB/s writes: # MiB/s fsyncs: #/s latency (ms,#%): #",
                "{who}: {l:?}"
            );
            assert!(l.starts_with(&format!("[ {}s ] ", k + 1)), "{who}: {l:?}");
            assert!(l.contains("latency (ms,95%): "), "{who}: {l:?}");
            let lat = l.rsplit(' ').next().unwrap();
            assert_eq!(
                lat.split('.').nth(1).map(str::len),
                Some(3),
                "{who}: 3 decimals {l:?}"
            );
            for w in l.split(' ').filter(|w| w.contains('.')) {
                let num = w.trim_end_matches("/s");
                if num != lat {
                    assert_eq!(
                        num.split('.').nth(1).map(str::len),
                        Some(2),
                        "{who}: 2 decimals {l:?}"
                    );
                }
            }
        }
        lines.len()
    };
    check(&i.stdout, "iomark");
    check(&s.stdout, "sysbench");
    // the rest is the same layout; interval lines sit right after "Threads started!" + empty line
    let strip = |out: &str| {
        out.lines()
            .filter(|l| !is_interval(l))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_same_layout(&strip(&i.stdout), &strip(&s.stdout), "interval run");
    let lines: Vec<&str> = i.stdout.lines().collect();
    let ts = lines.iter().position(|l| *l == "Threads started!").unwrap();
    assert_eq!(lines[ts + 1], "");
    assert!(lines[ts + 2].starts_with("[ 1s ] "), "{:?}", &lines[ts..]);
    assert!(i
        .stdout
        .contains("Report intermediate results every 1 second(s)\n"));
}

#[test]
fn layout_checkpoint_report_t15() {
    let p = ["--file-total-size=8M", "--file-num=8"];
    let args = [
        "--file-total-size=8M",
        "--file-num=8",
        "--file-test-mode=rndrw",
        "--time=2",
        "--report-checkpoints=1",
    ];
    let (i, s) = both(&p, &args);
    assert_same_layout(&i.stdout, &s.stdout, "checkpoint run");
    let lines: Vec<&str> = i.stdout.lines().collect();
    let ts = lines.iter().position(|l| *l == "Threads started!").unwrap();
    assert_eq!(
        &lines[ts + 1..ts + 4],
        ["", "[ 1s ] Checkpoint report:", ""]
    );
    assert_eq!(lines[ts + 4], "File operations:");
    assert_eq!(i.stdout.matches("File operations:").count(), 2);
    assert!(i.stdout.contains("Report checkpoint(s) at 1 seconds\n"));
    // the final report's total time still counts from the start
    assert!(parse_report(&i.stdout).total_time >= 2.0);
}

#[test]
fn layout_help_and_missing_mode_equal_sysbench() {
    let d = scratch();
    for args in [&["help"][..], &["--file-total-size=64M", "run"][..]] {
        let i = fileio(d.path(), args);
        let s = sysbench(d.path(), args);
        // invalid input (a missing --file-test-mode): exit 2 where sysbench exits 1
        let want = if s.code == 1 { 2 } else { s.code };
        assert_eq!(i.code, want, "{args:?}");
        assert_eq!(
            i.stdout.lines().skip(1).collect::<Vec<_>>(),
            s.stdout.lines().skip(1).collect::<Vec<_>>(),
            "{args:?}"
        );
        assert_eq!(i.stderr, s.stderr, "{args:?}");
    }
    assert!(entries(d.path()).is_empty());
}

#[test]
fn deprecated_aliases_t18() {
    let d = scratch();
    fileio(
        d.path(),
        &[
            "--file-total-size=8M",
            "--file-num=8",
            "--notes=off",
            "prepare",
        ],
    )
    .ok();
    let r = fileio(
        d.path(),
        &[
            "--file-total-size=8M",
            "--file-num=8",
            "--file-test-mode=rndrd",
            "--max-time=1",
            "--max-requests=1000",
            "--num-threads=2",
            "--notes=off",
            "run",
        ],
    )
    .ok();
    let l = r.lines();
    assert_eq!(
        l[..4],
        [
            "WARNING: --num-threads is deprecated, use --threads instead",
            "WARNING: --max-requests is deprecated, use --events instead",
            "WARNING: --max-time is deprecated, use --time instead",
            "iomark 0.1.0 (sysbench 1.0.20 fileio compatible)",
        ]
    );
    assert!(r.stdout.contains("Number of threads: 2\n"));
    assert!(r.stdout.contains("Number of IO requests: 1000\n"));
    assert_eq!(parse_report(&r.stdout).events, 1000);
}
