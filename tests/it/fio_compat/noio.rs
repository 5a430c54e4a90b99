//! The engines of pseudo I/O (fio's FIO_NOIO: `cpuio`, `exec`) next to fio 3.33, in
//! the normal, JSON and terse formats: their requests move no bytes, so there are no
//! bytes, bandwidth or direction run time, no section line and no direction or group
//! lines in the text report, and the engine's start lines (`c (noop): ioengine=cpuio,
//! …`, `e : program=…`) come where fio prints them. Times, latencies and request counts
//! differ from run to run and are masked (skipped, with the reason, when fio is not
//! installed; the iomark side runs either way).

use crate::util::*;
use serde_json::Value;

/// The jobs compared, each for 1 s: cpuio in both modes, exec with its output saved and
/// exec with its output left on the terminal (`%r`/`%n` replaced in the start line).
const JOBS: [&[&str]; 3] = [
    &[
        "--name=c",
        "--ioengine=cpuio",
        "--cpuload=50",
        "--cpuchunks=20000",
    ],
    &["--name=e", "--ioengine=exec", "--program=/bin/true"],
    &[
        "--name=s",
        "--ioengine=exec",
        "--program=sleep",
        "--arguments=%r",
        "--std_redirect=0",
        "--grace_time=0",
    ],
];

fn args<'a>(job: &[&'a str], fmt: &'a str) -> Vec<&'a str> {
    let mut a = job.to_vec();
    a.extend(["--runtime=1", "--time_based", fmt]);
    a
}

/// The text report's lines with every run of digits as `N`, the latency bucket lines
/// (`lat (msec)   : 100=100.00%`, which buckets a run fills varies) and the CPU line left
/// out.
fn text_shape(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| !l.trim_start().starts_with("lat (") && !l.trim_start().starts_with("cpu "))
        .map(super::terse::shape)
        .collect()
}

/// The lines before the JSON document or the terse line (the engine's start lines).
fn before<'a>(s: &'a str, start: &str) -> &'a str {
    &s[..s.find(start).unwrap_or(s.len())]
}

/// iomark's start lines of the job of `a` (the lines between `Starting 1 process` and
/// the report's empty line in its normal output).
fn start_lines(a: &[&str]) -> String {
    let d = scratch();
    let mut a = a.to_vec();
    a.retain(|x| !x.starts_with("--output-format") && *x != "--minimal");
    let i = as_fio(d.path()).dir(d.path()).args(&a).run();
    let s = i.stdout.split_once("Starting 1 process\n").unwrap().1;
    s[..s.find("\n\n").unwrap() + 1].to_string()
}

/// The normal report: no section line, the `Starting` line then the engine's start
/// lines, a job block without direction lines, and a `Run status group` line with no
/// group line after it (no disk stats: the engines touch no file).
#[test]
fn pseudo_io_text_report_is_fios() {
    for job in JOBS {
        let a = args(job, "--output-format=normal");
        let runs = fio_and_iomark("pseudo_io_text_report_is_fios", &a, |_, _| {});
        let i = &runs.iomark;
        assert_eq!(i.code, 0, "{}", i.dump());
        let name = &job[0][7..];
        assert!(
            i.stdout.starts_with("fio-3.33\nStarting 1 process\n"),
            "{a:?}: {}",
            i.stdout
        );
        assert!(!i.stdout.contains("(g=0)"), "{}", i.stdout);
        assert!(!i.stdout.contains("  read:"), "{}", i.stdout);
        assert!(
            i.stdout.ends_with("\nRun status group 0 (all jobs):\n"),
            "{a:?}: {}",
            i.stdout
        );
        assert!(
            i.stdout
                .contains(&format!("\n{name}: (groupid=0, jobs=1): err= 0: pid=")),
            "{}",
            i.stdout
        );
        let Some(f) = &runs.fio else { continue };
        assert_eq!(f.code, 0, "fio {a:?}: {}", f.dump());
        let head = |s: &str| s[..s.find("\n\n").unwrap()].to_string();
        assert_eq!(head(&i.stdout), head(&f.stdout), "{a:?}");
        assert_eq!(
            text_shape(&i.stdout),
            text_shape(&f.stdout),
            "{a:?}\niomark:\n{}\nfio:\n{}",
            i.stdout,
            f.stdout
        );
    }
}

/// The JSON document: requests and latencies counted in `read`, no bytes, bandwidth,
/// IOPS or run time in any direction, no bandwidth samples, no `disk_util`; the start
/// lines come before the document.
#[test]
fn pseudo_io_json_counts_no_bytes_as_fio() {
    const ZERO: [&str; 11] = [
        "io_bytes",
        "io_kbytes",
        "bw_bytes",
        "bw",
        "iops",
        "runtime",
        "bw_min",
        "bw_max",
        "bw_agg",
        "bw_mean",
        "bw_samples",
    ];
    for job in JOBS {
        let a = args(job, "--output-format=json");
        let runs = fio_and_iomark("pseudo_io_json_counts_no_bytes_as_fio", &a, |_, _| {});
        let i = &runs.iomark;
        assert_eq!(i.code, 0, "{}", i.dump());
        let doc = |s: &str| -> Value { serde_json::from_str(&s[s.find('{').unwrap()..]).unwrap() };
        let v = doc(&i.stdout);
        let r = &v["jobs"][0]["read"];
        assert!(r["total_ios"].as_u64().unwrap() > 0, "{r}");
        assert!(r["clat_ns"]["N"].as_u64().unwrap() > 0, "{r}");
        for k in ZERO {
            assert_eq!(r[k].as_f64(), Some(0.0), "{a:?} read.{k}: {r}");
        }
        assert!(v.get("disk_util").is_none(), "{v}");
        let Some(f) = &runs.fio else { continue };
        assert_eq!(f.code, 0, "fio {a:?}: {}", f.dump());
        // the start lines come before the document, as fio prints them
        assert_eq!(before(&i.stdout, "{"), start_lines(&a), "{a:?}");
        assert_eq!(before(&f.stdout, "{"), start_lines(&a), "{a:?}");
        let w = doc(&f.stdout);
        let (ij, fj) = (&v["jobs"][0], &w["jobs"][0]);
        for k in ZERO.iter().chain(&["short_ios", "drop_ios", "bw_dev"]) {
            assert_eq!(ij["read"][k], fj["read"][k], "{a:?} read.{k}");
        }
        for dir in ["write", "trim", "sync"] {
            assert_eq!(ij[dir], fj[dir], "{a:?} {dir}");
        }
        assert_eq!(ij["job options"], fj["job options"], "{a:?}");
        assert_eq!(v.get("disk_util"), w.get("disk_util"), "{a:?}");
    }
}

/// The terse line: the start lines before it, fio's fields with the read direction's
/// bytes, bandwidth, IOPS and run time `0;0;0;0` and its bandwidth fields empty of
/// samples; every field has fio's shape once numbers are masked.
#[test]
fn pseudo_io_terse_line_is_fios() {
    for job in JOBS {
        let a = args(job, "--minimal");
        let runs = fio_and_iomark("pseudo_io_terse_line_is_fios", &a, |_, _| {});
        let i = &runs.iomark;
        assert_eq!(i.code, 0, "{}", i.dump());
        let name = &job[0][7..];
        let line = |s: &str| -> Vec<String> {
            let l = s.lines().find(|l| l.starts_with("3;")).unwrap();
            l.split(';').map(str::to_string).collect()
        };
        let ours = line(&i.stdout);
        // terse v3: version, fio version, name, groupid, error, then the read direction
        assert_eq!(ours[2..9].join(";"), format!("{name};0;0;0;0;0;0"), "{a:?}");
        let Some(f) = &runs.fio else { continue };
        assert_eq!(f.code, 0, "fio {a:?}: {}", f.dump());
        assert_eq!(before(&i.stdout, "3;"), start_lines(&a), "{a:?}");
        assert_eq!(before(&f.stdout, "3;"), start_lines(&a), "{a:?}");
        let theirs = line(&f.stdout);
        assert_eq!(ours.len(), theirs.len(), "{a:?}");
        for (k, (o, t)) in ours.iter().zip(&theirs).enumerate() {
            use super::terse::shape;
            assert_eq!(shape(o), shape(t), "{a:?} field {k}\n{ours:?}\n{theirs:?}");
        }
        // exactly fio's: the read direction's sizes and rates (fields 5-8) and bandwidth
        // fields (41-45) and the whole write direction (46-86; v3 has no trim)
        let exact = |l: &[String]| [&l[..9], &l[41..87]].concat();
        assert_eq!(exact(&ours), exact(&theirs), "{a:?}");
    }
}
