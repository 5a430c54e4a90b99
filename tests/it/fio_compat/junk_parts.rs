//! A numeric option's value whose later part is junk (`iodepth=4-x`, `direct=1,x`,
//! `bs=8k:x`): fio 3.33 splits such a value at the first `,`, else `:`, else `-` (a
//! range option's at `,`), reads each part on its own and keeps the parts that parse, so
//! it runs with the first part. iomark does the same for every numeric key of its option
//! table, checked over the table against the installed fio; and an integer key's value
//! with text after the number (`numjobs=1  // num of processes`) is that number, as fio's
//! str_to_decimal reads it.

use crate::util::*;
use iomark::job::fio::options::{self, Apply, Kind};

/// `--parse-only` of a null job with `--KEY=VALUE` under `fio` (iomark or fio 3.33).
fn parses(cmd: Iomark, key: &str, value: &str) -> Out {
    cmd.args([
        "--parse-only",
        "--name=a",
        "--ioengine=null",
        "--size=1m",
        &format!("--{key}={value}"),
    ])
    .run()
}

/// The job keys of the table with a numeric value (fio's integer, boolean, size, time
/// and range types), each with its example when that is one plain part, and the junk
/// tails fio splits it at.
fn numeric_keys() -> Vec<(&'static str, &'static str, &'static [&'static str])> {
    options::all()
        .filter(|o| matches!(o.apply, Apply::Job(_)))
        .filter_map(|o| {
            let tails: &'static [&'static str] = match o.kind {
                // text after a blank (a public job file's `numjobs=1  // num of
                // processes`): fio's str_to_decimal reads the number and its unit
                // letters, and ignores the rest
                Kind::Int => &["-x", ",x", ":x", "  // note"],
                Kind::Bool | Kind::SizeStr | Kind::Time | Kind::Flag => &["-x", ",x", ":x"],
                Kind::Range => &[",x"],
                Kind::Str | Kind::FloatList => return None,
            };
            let ex = match o.kind {
                // a boolean's table entry has no example: on
                Kind::Bool | Kind::Flag => o.example.unwrap_or("1"),
                _ => o.example?,
            };
            let plain = !ex.is_empty() && !ex.contains([',', ':', '-', '(', ' ']);
            plain.then_some((o.name, ex, tails))
        })
        .collect()
}

/// Every numeric key of iomark's option table, given its example followed by a junk part
/// (`-x`, `,x`, `:x`), is accepted as the example alone is — and, with fio installed, as
/// fio 3.33 accepts it (`fio --parse-only`). iomark refused all of them ("expected a
/// whole number", "unknown unit '-x'", "a boolean: …").
#[test]
fn a_junk_later_part_is_ignored_for_every_numeric_key() {
    let d = scratch();
    let with_fio = have_fio();
    let keys = numeric_keys();
    assert!(
        keys.len() > 100,
        "numeric keys with an example: {}",
        keys.len()
    );
    let (mut checked, mut differ) = (0, Vec::new());
    for (key, ex, tails) in keys {
        // refused as it stands (not a matter of parts): by iomark on this machine, or by
        // fio (an engine's key on the null engine, a key newer than fio 3.33)
        let fio_refuses = with_fio && parses(fio_cmd().dir(d.path()), key, ex).code != 0;
        if parses(as_fio(d.path()).dir(d.path()), key, ex).code != 0 || fio_refuses {
            continue;
        }
        for tail in tails {
            let v = format!("{ex}{tail}");
            let ours = parses(as_fio(d.path()).dir(d.path()), key, &v);
            let want = if with_fio {
                parses(fio_cmd().dir(d.path()), key, &v).code == 0
            } else {
                true
            };
            checked += 1;
            if (ours.code == 0) != want {
                differ.push(format!(
                    "--{key}={v}: fio accepts: {want}; iomark: {}",
                    ours.all()
                ));
            }
        }
    }
    println!("values with a junk part checked: {checked} (against fio: {with_fio})");
    assert!(checked > 150, "checked {checked}");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// One number of the first job of a JSON report.
fn ios(out: &Out, dir: &str) -> u64 {
    out.ok().json()["jobs"][0][dir]["total_ios"]
        .as_u64()
        .unwrap()
}

/// The first part is what runs: `iodepth=4-x` is depth 4 (the depth distribution of
/// `iodepth=4`, not of the default 1), and `bs=8k,x` sets the read size only — the write
/// size keeps its default 4k (fio 3.33: 128 reads of 1 MiB, 256 writes).
#[test]
fn the_first_part_runs_and_a_per_direction_key_sets_its_first_direction() {
    let d = scratch();
    let depth = |v: &str| {
        let o = as_fio(d.path())
            .dir(d.path())
            .args(["--name=a", "--ioengine=libaio", "--size=1m", "--filename=f"])
            .args([format!("--iodepth={v}"), "--output-format=json".into()])
            .run();
        o.ok().json()["jobs"][0]["iodepth_level"].clone()
    };
    let (junk, four, one) = (depth("4-x"), depth("4"), depth("1"));
    assert_eq!(junk, four);
    assert_ne!(junk, one, "{junk}");
    let bs = |rw: &str| {
        as_fio(d.path())
            .dir(d.path())
            .args(["--name=a", "--ioengine=null", "--size=1m", "--bs=8k,x"])
            .args([format!("--rw={rw}"), "--output-format=json".into()])
            .run()
    };
    assert_eq!(ios(&bs("read"), "read"), 128);
    assert_eq!(ios(&bs("write"), "write"), 256);
    // a first part out of range with a junk rest: nothing parses, refused as fio does
    assert_ne!(
        parses(as_fio(d.path()).dir(d.path()), "iodepth", "0-x").code,
        0
    );
}

/// A boolean given `-N` is on, as in fio 3.33 (the parts `-N` and `N`; `-N` passes and is
/// stored): every boolean key of the table takes `-1` (and `fio --parse-only` too), a
/// part above the maximum gets fio's line on stderr (`max value out of range: 3 (1
/// max)`), and `group_reporting=-1` merges the two threads of `numjobs=2` as `=1` does.
#[test]
fn a_negative_boolean_is_on() {
    let d = scratch();
    let with_fio = have_fio();
    let mut differ = Vec::new();
    let bools = options::all()
        .filter(|o| matches!(o.apply, Apply::Job(_)) && matches!(o.kind, Kind::Bool | Kind::Flag));
    let mut checked = 0;
    for o in bools {
        // (a key either refuses as it stands — an engine's key on the null engine, one
        // newer than fio 3.33 — is no matter of signs)
        let fio_takes = |v: &str| parses(fio_cmd().dir(d.path()), o.name, v).code == 0;
        if parses(as_fio(d.path()).dir(d.path()), o.name, "1").code != 0
            || (with_fio && !fio_takes("1"))
        {
            continue;
        }
        checked += 1;
        let ours = parses(as_fio(d.path()).dir(d.path()), o.name, "-1");
        let fio_ok = !with_fio || fio_takes("-1");
        if ours.code != 0 || !fio_ok {
            differ.push(format!(
                "--{}=-1: fio accepts: {fio_ok}; iomark: {}",
                o.name,
                ours.all()
            ));
        }
    }
    assert!(checked > 50, "boolean keys checked: {checked}");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    let o = parses(as_fio(d.path()).dir(d.path()), "direct", "-3");
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(
        o.stderr.contains("max value out of range: 3 (1 max)"),
        "{}",
        o.dump()
    );
    if with_fio {
        let f = parses(fio_cmd().dir(d.path()), "direct", "-3");
        assert!(
            f.all().contains("max value out of range: 3 (1 max)"),
            "{}",
            f.dump()
        );
    }
    let jobs = |v: &str| {
        let o = as_fio(d.path())
            .dir(d.path())
            .args(["--name=a", "--ioengine=null", "--size=64k", "--numjobs=2"])
            .args([
                format!("--group_reporting={v}"),
                "--output-format=json".into(),
            ])
            .run();
        o.ok().json()["jobs"].as_array().unwrap().len()
    };
    assert_eq!((jobs("-1"), jobs("1"), jobs("0")), (1, 1, 2));
}

/// The number before the text is the value, times the unit whose letters follow it at
/// once: `loops=2  // twice` and `loops=2 x` make two passes (fio 3.33: 2 × 256 reads of
/// 4 KiB over 1 MiB); iomark said "expected a whole number" and exit 2. `iomark run`
/// says how it read the value; under the fio persona stderr stays fio's (silent).
#[test]
fn text_after_an_integer_is_ignored_and_said() {
    let d = scratch();
    for v in ["2  // twice", "2 x"] {
        let args = [
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--bs=4k",
            "--rw=read",
            "--output-format=json",
        ];
        let loops = format!("--loops={v}");
        let ours = as_fio(d.path()).dir(d.path()).args(args).arg(&loops).run();
        assert_eq!(ios(&ours, "read"), 512, "{v}");
        assert!(!ours.stderr.contains("read as"), "{}", ours.stderr);
        let native = Iomark::new()
            .dir(d.path())
            .arg("run")
            .args(args)
            .arg(&loops)
            .run();
        assert_eq!(ios(&native, "read"), 512, "iomark run, {v}");
        assert!(
            native.stderr.contains(&format!("loops='{v}' read as 2")),
            "{}",
            native.stderr
        );
        if need_fio("text_after_an_integer_is_ignored_and_said") {
            let f = fio_cmd().dir(d.path()).args(args).arg(&loops).run();
            assert_eq!(ios(&f, "read"), 512, "fio, {v}");
        }
    }
}
