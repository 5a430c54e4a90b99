//! The result hub: fio's text and JSON/json+ reports are rendered from the
//! RunResult alone, byte for byte as the reporters rendered them from the worker's
//! statistics before the hub existed (tests/fixtures/result_hub/*: written by that
//! code from the same constructed statistics; the report time is masked), also after a
//! JSON round trip of the result (the histograms are kept losslessly); schema 1 files
//! are still read.

use iomark::report::fio::json::FioJson;
use iomark::report::fio::text::FioText;
use iomark::report::Reporter;
use iomark::result::job::{CoverageStats, EffectiveJob, JobRecord, LatTargetReport, SteadyReport};
use iomark::result::Threads;
use iomark::result::{build, Inputs, Recorded, RunResult, Status};
use iomark::stats::job::JobStats;
use iomark::stats::EventKind;
use iomark::stats::LatAcc;
use std::path::Path;

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn fill(l: &mut LatAcc, r: &mut Lcg, n: usize, base: u64, spread: u64) {
    for _ in 0..n {
        l.add(base + r.next() % spread);
    }
}

fn opts(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A psync-like job: 5000 reads with latencies 3–403 µs, rate and depth samples, CPU.
fn job(name: &str, seed: u64) -> JobRecord {
    let mut r = Lcg(seed);
    let mut s = JobStats {
        threads: 1,
        runtime_ns: 1_234_567_891,
        runtime_ms_sum: 1234,
        run_ns_sum: 1_300_000_000,
        ..Default::default()
    };
    s.read.ios = 5000;
    s.read.bytes = 5000 * 4096;
    fill(&mut s.read.clat, &mut r, 5000, 3_000, 400_000);
    s.read.lat = s.read.clat.clone();
    (s.cpu.usr_ns, s.cpu.sys_ns) = (123_456_789, 987_654_321);
    (s.cpu.vol_ctx, s.cpu.invol_ctx, s.cpu.majf, s.cpu.minf) = (17, 4, 1, 99);
    for v in [4000, 4100, 3900, 4050] {
        s.rates.bw[0].add(v);
        s.rates.iops[0].add(v / 4);
    }
    (s.depth.level[0], s.depth.submit[1], s.depth.complete[1]) = (5000, 5000, 5000);
    JobRecord {
        job: EffectiveJob {
            name: name.into(),
            options: opts(&[
                ("name", name),
                ("rw", "randread"),
                ("time_based", ""),
                ("bs", "4k"),
            ]),
            ..Default::default()
        },
        engine: "psync".into(),
        stats: s,
        ..Default::default()
    }
}

/// An io_uring-like job with every optional part: slat, writes, trims, syncs, verify,
/// percentile list, lat percentiles, zone resets, errors continued past, coverage,
/// latency target, steady state, two priorities.
fn rich(name: &str, seed: u64) -> JobRecord {
    let mut r = Lcg(seed);
    let mut j = job(name, seed);
    j.engine = "io_uring".into();
    let s = &mut j.stats;
    s.threads = 2;
    fill(&mut s.read.slat, &mut r, 5000, 500, 3000);
    (s.write.ios, s.write.bytes) = (2000, 2000 * 65536);
    fill(&mut s.write.slat, &mut r, 2000, 800, 5000);
    fill(&mut s.write.clat, &mut r, 2000, 2_500_000, 200_000_000);
    fill(&mut s.write.lat, &mut r, 2000, 2_600_000, 200_000_000);
    (s.trim.ios, s.trim.bytes) = (10, 10 << 20);
    fill(&mut s.trim.clat, &mut r, 10, 100, 50);
    s.trim.lat = s.trim.clat.clone();
    s.sync.ios = 7;
    fill(&mut s.sync.lat, &mut r, 7, 1_000_000, 3_000_000);
    s.sync.clat = s.sync.lat.clone();
    s.verified = 42;
    s.zone_resets = Some(3);
    s.errors = 2;
    s.first_error = Some("read of 4096 bytes at offset 0 in f: Input/output error".into());
    s.first_errno = 5;
    let (mut a, mut b) = (LatAcc::default(), LatAcc::default());
    fill(&mut a, &mut r, 300, 10_000, 90_000);
    fill(&mut b, &mut r, 700, 20_000, 190_000);
    s.prio_lat = vec![(0, 1 << 13 | 4, a), (0, 2 << 13 | 7, b)];
    for v in [60000, 65000] {
        s.rates.bw[1].add(v);
        s.rates.iops[1].add(v / 64);
    }
    (s.depth.level[3], s.depth.submit[2], s.depth.complete[3]) = (700, 300, 300);
    j.job.percentile_list = vec![50.0, 99.5, 1.25];
    (j.job.lat_percentiles, j.job.clat_percentiles) = (true, false);
    j.coverage = Some(CoverageStats {
        block_bytes: 4096,
        blocks_touched: 157,
        blocks_total: 256,
        bs_hist: vec![(4096, 200), (8192, 56)],
        shrunk: 3,
    });
    j.lat_target = Some(LatTargetReport {
        depth: 4,
        target_ns: 2_000_000,
        window_us: 100_000,
        percentile: 99.9,
    });
    j.steady = Some(SteadyReport {
        ss: "lat:5.000000%".into(),
        metric: "lat".into(),
        slope: false,
        pct: true,
        dur_s: 10,
        attained_after_ns: Some(12_345_000_000),
        criterion: 3.21,
        max_deviation: 123.5,
        slope_value: 0.0,
        iops: vec![10, 20, 30, 0],
        bw: vec![40960, 81920, 122880, 0],
        lat: vec![1000, 2000, 3000, 0],
    });
    j
}

fn units(mut j: JobRecord, kb_base: u32, unit_base: u32) -> JobRecord {
    (j.job.kb_base, j.job.unit_base) = (kb_base, unit_base);
    j
}

/// A constructed run: its golden's name, its jobs, its global options.
type Case = (&'static str, Vec<JobRecord>, Vec<(String, String)>);

/// The three constructed runs of the goldens.
fn cases() -> Vec<Case> {
    let b = units(job("b", 3), 1000, 8);
    let global = opts(&[("ioengine", "io_uring"), ("size", "1m")]);
    let c = units(job("c", 4), 1024, 1);
    let mut d = units(rich("d", 5), 1000, 1);
    d.groupid = 1;
    d.stats.error = 5;
    d.stats.failure = Some("job 'd': failed".into());
    let mut e = job("e", 6);
    e.groupid = 2;
    (e.stats.read.clat, e.stats.read.lat) = (LatAcc::default(), LatAcc::default());
    let mut f = JobRecord {
        job: EffectiveJob {
            name: "f".into(),
            ..Default::default()
        },
        groupid: 2,
        engine: "null".into(),
        ..Default::default()
    };
    f.stats.threads = 1;
    (f.stats.read.ios, f.stats.read.bytes) = (3, 12288);
    for ns in [0, 0, 1] {
        f.stats.read.clat.add(ns);
        f.stats.read.lat.add(ns);
    }
    vec![
        ("one", vec![job("one", 1)], vec![]),
        ("rich", vec![rich("a", 2), b], global),
        ("groups", vec![c, d, e, f], vec![]),
    ]
}

fn result(jobs: Vec<JobRecord>, global: Vec<(String, String)>) -> RunResult {
    let mut i = Inputs::new("run", &[], Status::Ok);
    i.recorded = Recorded::fio(jobs);
    i.global_options = global;
    build(i)
}

/// The report time is the only thing that differs between two renderings.
fn mask_time(text: &str) -> String {
    text.lines()
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with("\"timestamp") || t.starts_with("\"time\"") {
                "<time>"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn golden(name: &str) -> Option<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/result_hub")
        .join(name);
    std::fs::read_to_string(p).ok()
}

fn render(rep: &dyn Reporter, r: &RunResult) -> String {
    String::from_utf8(rep.render(r).unwrap()).unwrap()
}

/// fio's job header ends with the report time (ctime): `<date>` in the goldens.
fn mask_date(text: &str) -> String {
    text.lines()
        .map(|l| match l.rsplit_once(": ") {
            Some((head, _)) if l.contains(": (groupid=") && head.contains(": pid=") => {
                format!("{head}: <date>\n")
            }
            _ => format!("{l}\n"),
        })
        .collect()
}

/// `IOMARK_BLESS=1`: write what the reporters give as the new golden (a deliberate
/// change of a figure, reviewed in the diff), instead of comparing.
fn bless(file: &str, got: &str) -> bool {
    if std::env::var_os("IOMARK_BLESS").is_none() {
        return false;
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/result_hub")
        .join(file);
    std::fs::write(p, got).unwrap();
    true
}

fn check_against_goldens(r: &RunResult, name: &str) {
    let text = mask_date(&render(&FioText { notes: true }, r));
    if !bless(&format!("{name}.txt"), &text) {
        assert_eq!(text, golden(&format!("{name}.txt")).unwrap(), "{name}.txt");
    }
    for plus in [false, true] {
        let file = format!("{name}{}.json", if plus { "+" } else { "" });
        let Some(want) = golden(&file) else {
            continue;
        };
        // the old writer's document had no final newline; the reporter adds fio's
        let got = render(
            &FioJson {
                plus,
                version: FioJson::iomark_version(),
            },
            r,
        );
        if !bless(&file, &got) {
            assert_eq!(mask_time(&got), mask_time(&want), "{file}");
        }
        assert!(got.ends_with("}\n"), "{file}");
    }
}

#[test]
fn fio_reports_from_the_result_are_byte_identical_to_the_old_ones() {
    for (name, jobs, global) in cases() {
        check_against_goldens(&result(jobs, global), name);
    }
}

#[test]
fn fio_reports_survive_a_json_round_trip_of_the_result() {
    for (name, jobs, global) in cases() {
        let r = result(jobs, global);
        let text = serde_json::to_string_pretty(&r).unwrap();
        assert!(
            text.contains("\"buckets\": ["),
            "{name}: histograms are kept"
        );
        let back: RunResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back.schema_version, 2);
        check_against_goldens(&back, name);
    }
}

/// Schema 1 files (the compare fixtures, docs/results) are read by the same struct:
/// the keys added in schema 2 are empty.
#[test]
fn schema_1_files_are_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in [
        "tests/fixtures/compare/a-vm-mark.json",
        "tests/fixtures/compare/c-vm-fileio-rndrd-16k-buffered.json",
        "tests/fixtures/compare/d-vm-run-fio.json",
        "docs/results/vm-fileio-rndrd-16k-buffered.json",
    ] {
        let r = iomark::report::compare::load(&root.join(f)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.schema_version, 1, "{f}");
        assert!(r.jobs.is_empty() && r.targets.is_empty(), "{f}");
        assert!(r.read.lat.histogram.is_none(), "{f}");
    }
}

/// A real run's RunResult carries every job × direction with its histogram, the
/// effective job in bytes, and the fio report rendered from the file equals the one
/// rendered in the run (`--output-format=normal` on stdout).
#[test]
fn run_result_file_renders_the_same_fio_report() {
    let d = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(crate::util::BIN)
        .current_dir(d.path())
        .args([
            "run",
            "--name=a",
            "--ioengine=null",
            "--rw=randrw",
            "--bs=4k",
            "--size=1m",
            "--name=b",
            "--rw=write",
            "--bs=8k",
            "--size=512k",
            "--json=r.json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let r: RunResult =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(r.jobs.len(), 2);
    let a = &r.jobs[0];
    assert_eq!(
        (a.job.rw.as_str(), a.job.size_bytes, a.job.bs_read.min_bytes),
        ("randrw", 1 << 20, 4096)
    );
    assert_eq!(a.read.ios + a.write.ios, 256);
    assert_eq!(a.read.clat.count, a.read.ios);
    assert!(a.read.clat.histogram.is_some());
    assert_eq!(r.jobs[1].write.bytes, 512 << 10);
    // fio's header lines, an empty line, the report
    let head = iomark::report::fio::header::header(&r, "iomark-0.1.0");
    assert!(
        head.starts_with("a: (g=0): rw=randrw, bs=(R) 4096B-4096B,"),
        "{head}"
    );
    assert_eq!(
        format!("{head}\n{}", render(&FioText { notes: true }, &r)),
        String::from_utf8(o.stdout).unwrap()
    );
}

/// sysbench's report of a fileio result built from its threads, `--percentile=p`.
fn sysbench_report(s: Threads, p: u32) -> String {
    let mut i = Inputs::new("fileio", &[], Status::Ok);
    let job = EffectiveJob {
        percentile_list: if p > 0 { vec![f64::from(p)] } else { vec![] },
        ..Default::default()
    };
    i.recorded = Recorded::fileio(job, s, p);
    render(&iomark::report::sysbench::SysbenchReport, &build(i))
}

#[test]
fn report_layout_and_formulas() {
    // 3 reads of 16 KiB (1, 2, 3 ms), 2 writes, 1 periodic fsync event, 3 fsync calls,
    // over 2 seconds.
    let mut t = JobStats::thread(false);
    for ms in [1u64, 2, 3] {
        t.event(EventKind::Read, ms * 1_000_000, false);
        t.io_done(EventKind::Read, 16384);
    }
    for _ in 0..2 {
        t.event(EventKind::Write, 500_000, false);
        t.io_done(EventKind::Write, 16384);
    }
    t.event(EventKind::Fsync, 4_000_000, false);
    for _ in 0..3 {
        t.fsync_done();
    }
    let s = Threads {
        period_s: 2.0,
        total_time_s: 2.0001,
        threads: vec![t.settled()],
        ..Threads::default()
    };
    let r = sysbench_report(s, 95);
    let expect = "
File operations:
    reads/s:                      1.50
    writes/s:                     1.00
    fsyncs/s:                     1.50

Throughput:
    read, MiB/s:                  0.02
    written, MiB/s:               0.02

General statistics:
    total time:                          2.0001s
    total number of events:              6

Latency (ms):
         min:                                    0.50
         avg:                                    1.83
         max:                                    4.00
         95th percentile:                        4.00
         sum:                                   11.00

Threads fairness:
    events (avg/stddev):           6.0000/0.00
    execution time (avg/stddev):   0.0110/0.00

";
    assert_eq!(r, expect);
}

#[test]
fn percentile_disabled_line() {
    let s = Threads {
        period_s: 1.0,
        total_time_s: 1.0,
        threads: vec![JobStats::thread(false)],
        ..Threads::default()
    };
    assert!(sysbench_report(s.clone(), 0)
        .contains("\n         percentile stats:               disabled\n"));
    assert!(sysbench_report(s.clone(), 100)
        .contains("\n        100th percentile:                        0.00\n"));
    assert!(sysbench_report(s, 5).contains("\n          5th percentile: "));
}
