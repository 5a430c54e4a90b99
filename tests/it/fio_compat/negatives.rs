//! A negative number given to each of fio 3.33's numeric options, side by side with the
//! installed fio: the options are read from its own `--cmdhelp=all` when the test runs
//! (those whose `--cmdhelp=KEY` type is an integer, a size or a time), each given `-1`
//! and `-4k` under `--parse-only` and, where that passes, in a tiny null-engine run;
//! iomark as `fio` must accept, refuse and exit as fio does, but for the few outcomes
//! listed with their reason (docs/compat/fio.md).

use crate::util::*;
use std::path::Path;
use std::time::Duration;

/// The outcomes of a null-engine run that differ from fio's on purpose: `(key, value,
/// reason)`. Each is a run fio 3.33 ends by a crash or a wrapped count, listed in
/// docs/compat/fio.md.
const RUN_DIFFERS: &[(&str, &str, &str)] = &[
    ("nrfiles", "-1", NRFILES),
    ("nrfiles", "-4k", NRFILES),
    ("verify_async", "-1", "fio's job dies of SIGSEGV starting 2^32-1 verify threads"),
    ("steadystate_duration", "-1", STEADY),
    ("steadystate_duration", "-4k", STEADY),
    ("thinktime", "-1", THINK),
    ("thinktime", "-4k", THINK),
    ("bs", "-1", BS),
    ("bs", "-4k", BS),
    ("numjobs", "-1", NUMJOBS),
    ("numjobs", "-4k", NUMJOBS),
    ("prio", "-1", PRIO),
    ("prio", "-4k", PRIO),
    ("prioclass", "-1", PRIO),
    ("cpumask", "-4k", "fio's mask of 2^32-4096 names CPUs this machine lacks (exit 1); iomark refuses the job before it runs (exit 3)"),
];

const NRFILES: &str =
    "fio aborts (exit 134) allocating 2^32-N files; iomark's bound keeps nrfiles=1";
const STEADY: &str = "fio 3.33 crashes (SIGSEGV, exit 139) on a wrapped steady-state window";
const THINK: &str = "fio sleeps 2^32-N µs before a block, past its runtime (never ends); iomark's think time keeps its value";
const BS: &str =
    "a read block of 2^64-N bytes: fio exits 1 silently, iomark refuses the job (exit 2)";
const NUMJOBS: &str =
    "fio: maximum number of jobs reached (exit 1); iomark's bound keeps numjobs=1";
const PRIO: &str = "fio's ioprio_set of 2^32-N fails (exit 1); iomark's bound keeps the priority";

/// The `--parse-only` outcomes that differ from fio's: `(key, value, reason)`.
const PARSE_DIFFERS: [(&str, &str, &str); 1] = [(
    "size",
    "-1",
    "size=1 is below the block size: iomark makes fio's fixup check under --parse-only, \
     fio 3.33 only when the job runs (exit 1 there, as iomark's)",
)];

/// The names fio 3.33's `--cmdhelp=all` lists whose `--cmdhelp=KEY` type is numeric
/// (an integer, a size with or without `k/m/g`, a time), four fio starts at a time.
fn fio_numeric_options(d: &Path) -> Vec<String> {
    let all = fio_cmd().dir(d).args(["--cmdhelp=all"]).run();
    let names: Vec<String> = all
        .stdout
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(n, _)| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    let numeric = ["integer value", "(null)", "k/m/g postfix", "time postfix"];
    let is_numeric = |n: &String| {
        let help = fio_cmd().dir(d).arg(format!("--cmdhelp={n}")).run().stdout;
        help.lines()
            .find(|l| l.trim_start().starts_with("type:"))
            .is_some_and(|t| numeric.iter().any(|w| t.contains(w)))
    };
    std::thread::scope(|s| {
        let parts: Vec<_> = names
            .chunks(names.len().div_ceil(4).max(1))
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter(|n| is_numeric(n))
                        .cloned()
                        .collect::<Vec<String>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect::<Vec<String>>()
    })
}

/// A tiny null-engine job with `--KEY=VALUE` run by `fio` (the path of fio 3.33 or of
/// iomark's link named `fio`) in `dir`, limited to 3 s of runtime and killed after 8 s:
/// its exit code, 137 when killed.
fn null_run(fio: &Path, dir: &Path, key: &str, value: &str) -> i32 {
    let d = dir.join(format!("{key}{value}"));
    std::fs::create_dir_all(&d).unwrap();
    let out = Iomark::program("timeout")
        .dir(&d)
        .env("IOMARK_HISTORY", "off")
        .timeout(Duration::from_secs(60))
        .args(["-s", "KILL", "8"])
        .arg(fio)
        .args([
            "--name=a",
            "--ioengine=null",
            "--size=64k",
            "--rw=rw",
            // a wrapped count (`loops=-1`) ends at the runtime in both; a run fio forks
            // off must end by itself, as killing fio leaves its job running
            "--runtime=3",
            "--output-format=json",
            &format!("--{key}={value}"),
        ])
        .run();
    let _ = std::fs::remove_dir_all(&d);
    out.code
}

/// Every numeric option of the installed fio's `--cmdhelp=all`, given `-1` and `-4k`:
/// under `--parse-only` iomark as `fio` accepts or refuses each as fio 3.33 does, with
/// fio's exit code; where fio accepts, a 64 KiB null-engine run of both ends with the
/// same exit code, but for [`RUN_DIFFERS`].
#[test]
fn a_negative_value_of_every_numeric_option_is_read_as_fio_reads_it() {
    require_fio();
    let d = scratch();
    let keys = fio_numeric_options(d.path());
    assert!(keys.len() >= 70, "fio's numeric options: {keys:?}");
    let ours_bin = {
        as_fio(d.path());
        d.path().join("bin/fio")
    };
    let cases: Vec<(String, &str)> = keys
        .iter()
        .flat_map(|k| ["-1", "-4k"].map(|v| (k.clone(), v)))
        .collect();
    let judge = |(k, v): &(String, &str)| -> Option<String> {
        let fio = parse_only(fio_cmd().dir(d.path()), k, v);
        let ours = parse_only(as_fio(d.path()).dir(d.path()), k, v);
        // an option iomark does not run at all: not a matter of signs
        if ours.stderr.contains("is not supported by iomark") {
            return Some(String::new());
        }
        let listed = PARSE_DIFFERS.iter().any(|(pk, pv, _)| pk == k && pv == v);
        if fio.code != ours.code && !listed {
            return Some(format!(
                "--parse-only --{k}={v}: fio exit {} ({}), iomark exit {} ({})",
                fio.code,
                fio.stderr.trim(),
                ours.code,
                ours.stderr.trim()
            ));
        }
        if fio.code != 0 || listed || RUN_DIFFERS.iter().any(|(rk, rv, _)| rk == k && rv == v) {
            return None;
        }
        let runs = d.path().join("runs");
        let theirs = null_run(Path::new("/usr/bin/fio"), &runs, k, v);
        let mine = null_run(&ours_bin, &runs, k, v);
        (theirs != mine).then(|| format!("run --{k}={v}: fio exit {theirs}, iomark exit {mine}"))
    };
    let found: Vec<String> = std::thread::scope(|s| {
        let parts: Vec<_> = cases
            .chunks(cases.len().div_ceil(4))
            .map(|part| s.spawn(|| part.iter().filter_map(judge).collect::<Vec<_>>()))
            .collect();
        parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let not_run = found.iter().filter(|f| f.is_empty()).count();
    let differ: Vec<&String> = found.iter().filter(|f| !f.is_empty()).collect();
    println!(
        "negative values compared with fio 3.33: {} ({} options × -1, -4k; {not_run} of an option iomark does not run); explained differences: {}",
        cases.len() - not_run,
        keys.len(),
        PARSE_DIFFERS.len() + RUN_DIFFERS.len()
    );
    assert!(
        cases.len() - not_run >= 140,
        "compared {}",
        cases.len() - not_run
    );
    assert!(
        differ.is_empty(),
        "{}",
        differ
            .iter()
            .map(|d| d.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A time given `-4k`: fio 3.33 counts the letters of a time that name none of its units
/// (`k`) as µs (parse.c `get_mult_time`), so `startdelay=-4k` is the parts -4 µs and
/// 4 µs, a start delay drawn from -4 µs to 4 µs (not -4 s to 4 s, which `-4` is). With
/// `randseed=10` fio's draw from the µs range is at or above 0 (the job starts at once)
/// where its draw from the range of seconds is below 0 (the job never starts): iomark as
/// `fio` must run the job as fio does, same exit code and I/O count. `runtime=-4k` and
/// `ramp_time=-4k` (a wrapped count of µs to fio: no limit) run to the job's size in
/// both. Each run is killed after 20 s (exit 137).
#[test]
fn a_time_given_minus_4k_counts_microseconds_as_fio_does() {
    if !need_fio("a_time_given_minus_4k_counts_microseconds_as_fio_does") {
        return;
    }
    let d = scratch();
    let ours_bin = {
        as_fio(d.path());
        d.path().join("bin/fio")
    };
    let run = |fio: &Path, dir: &str, extra: &[&str]| -> (i32, Option<u64>) {
        let w = d.path().join(dir);
        std::fs::create_dir_all(&w).unwrap();
        let out = Iomark::program("timeout")
            .dir(&w)
            .env("IOMARK_HISTORY", "off")
            .timeout(Duration::from_secs(60))
            .args(["-s", "KILL", "20"])
            .arg(fio)
            .args([
                "--name=a",
                "--ioengine=null",
                "--size=64k",
                "--bs=4k",
                "--rw=read",
                "--output-format=json",
            ])
            .args(extra)
            .run();
        let ios = serde_json::from_str::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v["jobs"][0]["read"]["total_ios"].as_u64());
        (out.code, ios)
    };
    for extra in [
        &["--startdelay=-4k", "--randseed=10"][..],
        &["--runtime=-4k"][..],
        &["--ramp_time=-4k"][..],
    ] {
        let fio = run(Path::new("fio"), "f", extra);
        let ours = run(&ours_bin, "i", extra);
        assert_eq!(fio.0, 0, "{extra:?}: fio 3.33 ran it");
        assert_eq!(
            fio.1,
            Some(16),
            "{extra:?}: fio read 64 KiB in 4 KiB blocks"
        );
        assert_eq!(
            ours, fio,
            "{extra:?}: (exit code, reads) of iomark as fio, of fio"
        );
    }
}
