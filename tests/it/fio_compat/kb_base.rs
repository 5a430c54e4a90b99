//! `kb_base=1000` and `unit_base=1` in `iomark run`'s text report, as fio 3.33 prints
//! them: decimal form first in the job line (`BW=`, io size) and the "Run status group"
//! lines, bandwidths in bits with `unit_base=1`, IOPS unchanged; the JSON document is the
//! same as without them. The shapes are compared with fio's own output (skipped with a
//! message when fio is not installed); the figures are pinned on a constructed job,
//! rendered from the RunResult the one builder makes of it.

use crate::util::*;
use iomark::report::fio::num::TextUnits;
use iomark::report::fio::text::FioText;
use iomark::report::Reporter;
use iomark::result::job::{EffectiveJob, JobRecord};
use iomark::result::{build, Inputs, Recorded, Status};
use iomark::stats::job::JobStats;

const JOB: [&str; 5] = [
    "--name=a",
    "--ioengine=null",
    "--size=4m",
    "--bs=4k",
    "--rw=read",
];

/// `iomark run` of [`JOB`] with `extra` options.
fn iomark(extra: &[&str]) -> Out {
    Iomark::new().arg("run").args(JOB).args(extra).run()
}

/// The `BW=` job line and the `READ:` group line with every number replaced by `#`
/// and every unit prefix by `X` (`BW=#XB/s (#XiB/s)(#XB/#msec)`): what kb_base and
/// unit_base decide, without the timing-dependent figures.
fn shapes(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("BW=") || l.contains("READ:"))
        .map(|l| {
            let l = &l[l.find(['B', 'R']).unwrap()..];
            let mut out = String::new();
            let mut chars = l.chars().peekable();
            while let Some(c) = chars.next() {
                if c.is_ascii_digit() {
                    while chars
                        .peek()
                        .is_some_and(|d| d.is_ascii_digit() || *d == '.')
                    {
                        chars.next();
                    }
                    out.push('#');
                    if chars.next_if(|p| "kKMGTP".contains(*p)).is_some() {
                        out.push('X');
                    }
                } else {
                    out.push(c);
                }
            }
            out
        })
        .collect()
}

fn job_4mib_in_1ms(units: TextUnits) -> JobRecord {
    let mut j = JobRecord {
        job: EffectiveJob {
            name: "a".into(),
            kb_base: if units.decimal { 1000 } else { 1024 },
            unit_base: if units.bits { 1 } else { 8 },
            ..EffectiveJob::default()
        },
        stats: JobStats {
            threads: 1,
            runtime_ns: 1_000_000,
            ..JobStats::default()
        },
        engine: "null".into(),
        ..JobRecord::default()
    };
    j.stats.read.ios = 1024;
    j.stats.read.bytes = 4 << 20;
    j
}

/// fio 3.33's lines for 4 MiB read in 1 ms (null engine, `--size=4m --bs=4k`).
#[test]
fn figures_are_fios() {
    let cases = [
        (
            TextUnits { decimal: true, bits: false, unitless: false },
            "  read: IOPS=1024k, BW=4194MB/s (4000MiB/s)(4194kB/1msec)",
            "   READ: bw=4194MB/s (4000MiB/s), 4194MB/s-4194MB/s (4000MiB/s-4000MiB/s), io=4194kB (4096KiB), run=1-1msec",
        ),
        (
            TextUnits { decimal: false, bits: true, unitless: false },
            "  read: IOPS=1024k, BW=31.2Gibit/s (33.6Gbit/s)(4096KiB/1msec)",
            "   READ: bw=31.2Gibit/s (33.6Gbit/s), 31.2Gibit/s-31.2Gibit/s (33.6Gbit/s-33.6Gbit/s), io=4096KiB (4194kB), run=1-1msec",
        ),
        (
            TextUnits { decimal: true, bits: true, unitless: false },
            "  read: IOPS=1024k, BW=33.6Gbit/s (31.2Gibit/s)(4194kB/1msec)",
            "   READ: bw=33.6Gbit/s (31.2Gibit/s), 33.6Gbit/s-33.6Gbit/s (31.2Gibit/s-31.2Gibit/s), io=4194kB (4096KiB), run=1-1msec",
        ),
    ];
    for (units, job_line, group_line) in cases {
        let mut i = Inputs::new("run", &[], Status::Ok);
        i.recorded = Recorded::fio(vec![job_4mib_in_1ms(units)]);
        let t = String::from_utf8(FioText { notes: true }.render(&build(i)).unwrap()).unwrap();
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines.contains(&job_line), "{units:?}:\n{t}");
        assert!(lines.contains(&group_line), "{units:?}:\n{t}");
    }
}

#[test]
fn shapes_match_fio() {
    if !need_fio("shapes_match_fio") {
        return;
    }
    for extra in [
        &[][..],
        &["--kb_base=1000"][..],
        &["--unit_base=1"][..],
        &["--kb_base=1000", "--unit_base=1"][..],
        &["--unit_base=8"][..],
    ] {
        let fio = fio_cmd().args(JOB).args(extra).run();
        assert!(fio.code == 0, "fio failed: {fio:?}");
        let fio_shapes = shapes(&fio.stdout);
        let ours = shapes(&iomark(extra).ok().stdout);
        assert_eq!(fio_shapes.len(), 2, "{extra:?}: {fio_shapes:?}");
        assert_eq!(ours, fio_shapes, "{extra:?}");
    }
}

#[test]
fn the_shape_helper_sees_the_unit_order() {
    let s = shapes("  read: IOPS=1024k, BW=4194MB/s (4000MiB/s)(4194kB/1msec)\n");
    assert_eq!(s, ["BW=#XB/s (#XiB/s)(#XB/#msec)"]);
    let s = shapes("  read: IOPS=1024k, BW=4000MiB/s (4194MB/s)(4096KiB/1msec)\n");
    assert_eq!(s, ["BW=#XiB/s (#XB/s)(#XiB/#msec)"]);
}

#[test]
fn json_is_not_affected() {
    let plain = iomark(&["--output-format=json"]).ok().stdout;
    let dec = iomark(&["--kb_base=1000", "--unit_base=1", "--output-format=json"])
        .ok()
        .stdout;
    for doc in [plain, dec] {
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        let r = &v["jobs"][0]["read"];
        assert_eq!(r["io_kbytes"], 4096, "KiB whatever kb_base");
        let bw_bytes = r["bw_bytes"].as_u64().unwrap();
        assert_eq!(r["bw"].as_u64().unwrap(), bw_bytes / 1024, "bw in KiB/s");
        assert_eq!(
            bw_bytes,
            (4u64 << 20) * 1000 / r["runtime"].as_u64().unwrap()
        );
    }
}

#[test]
fn bad_unit_base_is_refused() {
    for bad in ["2", "bits", "16"] {
        let o = iomark(&[&format!("--unit_base={bad}")]);
        assert_eq!(o.code, 2, "{bad}");
        let e = o.stderr;
        assert!(
            e.contains("'unit_base'") && e.contains("0 or 8 (bytes) or 1 (bits)"),
            "{bad}: {e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

/// In a job file fio reads `kb_base` before a section's other options (parse.c
/// `sort_options`: its priority), so `bs=4k size=1m` written before `kb_base=1000` is
/// 4000 bytes a request and 1,000,000 bytes in all (250 requests), in `[global]` and in
/// the job's own section; on the command line options are read in the order given.
#[test]
fn kb_base_in_a_job_file_counts_for_what_comes_before_it() {
    let d = scratch();
    let files = [
        (
            "g.fio",
            "[global]\nbs=4k\nsize=1m\nkb_base=1000\n[a]\nrw=write\nioengine=null\n",
        ),
        (
            "j.fio",
            "[a]\nrw=write\nioengine=null\nbs=4k\nsize=1m\nkb_base=1000\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(d.path().join(name), text).unwrap();
        let args = [name, "--output-format=json"];
        let i = as_fio(d.path()).dir(d.path()).args(args).run();
        assert_eq!(i.code, 0, "{name}: {}", i.dump());
        let w = &i.json()["jobs"][0]["write"];
        assert_eq!(
            (w["total_ios"].as_u64(), w["io_bytes"].as_u64()),
            (Some(250), Some(1_000_000)),
            "{name}: {w}"
        );
        if have_fio() {
            let f = fio_cmd().dir(d.path()).args(args).run();
            let fw = &f.json()["jobs"][0]["write"];
            assert_eq!(
                (fw["total_ios"].as_u64(), fw["io_bytes"].as_u64()),
                (Some(250), Some(1_000_000)),
                "{name}: fio 3.33 {fw}"
            );
        }
    }
}
