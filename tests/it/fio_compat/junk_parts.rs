//! A numeric option's value whose later part is junk (`iodepth=4-x`, `direct=1,x`,
//! `bs=8k:x`): fio 3.33 splits such a value at the first `,`, else `:`, else `-` (a
//! range option's at `,`), reads each part on its own and keeps the parts that parse, so
//! it runs with the first part. iomark does the same for every numeric key of its option
//! table, checked over the table against the installed fio; and an integer key's value
//! with text after the number (`numjobs=1  // num of processes`) is that number, as fio's
//! str_to_decimal reads it.

use crate::util::*;
use iomark::job::fio::options::{self, Apply, Kind};

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
        let fio_refuses = with_fio && parse_only(fio_cmd().dir(d.path()), key, ex).code != 0;
        if parse_only(as_fio(d.path()).dir(d.path()), key, ex).code != 0 || fio_refuses {
            continue;
        }
        for tail in tails {
            let v = format!("{ex}{tail}");
            let ours = parse_only(as_fio(d.path()).dir(d.path()), key, &v);
            let want = if with_fio {
                parse_only(fio_cmd().dir(d.path()), key, &v).code == 0
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
        parse_only(as_fio(d.path()).dir(d.path()), "iodepth", "0-x").code,
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
        let fio_takes = |v: &str| parse_only(fio_cmd().dir(d.path()), o.name, v).code == 0;
        if parse_only(as_fio(d.path()).dir(d.path()), o.name, "1").code != 0
            || (with_fio && !fio_takes("1"))
        {
            continue;
        }
        checked += 1;
        let ours = parse_only(as_fio(d.path()).dir(d.path()), o.name, "-1");
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
    let o = parse_only(as_fio(d.path()).dir(d.path()), "direct", "-3");
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(
        o.stderr.contains("max value out of range: 3 (1 max)"),
        "{}",
        o.dump()
    );
    if with_fio {
        let f = parse_only(fio_cmd().dir(d.path()), "direct", "-3");
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

/// How iomark reads a generated value of a numeric key, from the key's kind.
enum Want {
    /// accepted or refused as iomark takes this other value (the number fio reads)
    Same(String),
    /// refused naming the key (exit 2): a difference listed in docs/compat/fio.md
    Refused,
}

/// The generated values of a numeric key whose example is the whole number `n`: the
/// number in hex, the number with a unit and junk after a blank — each with what iomark
/// does, from the key's kind (a negative number: `fio_compat::negatives`, against fio).
fn generated(o: &options::FioOption, n: u64) -> Vec<(String, Want)> {
    let (hex, junk) = match o.kind {
        // hex is refused (docs/compat/fio.md: a time in hex); a number with a letter
        // fio's get_mult_time does not know and text after it counts µs, as fio
        Kind::Time => (Want::Refused, Want::Same(format!("{n}us"))),
        // a boolean's check_int reads the digits alone
        Kind::Bool | Kind::Flag => (Want::Same(n.to_string()), Want::Same(n.to_string())),
        _ => (
            Want::Same(n.to_string()),
            Want::Same((n * 1024).to_string()),
        ),
    };
    vec![(format!("{n:#x}"), hex), (format!("{n}k  // note"), junk)]
}

/// Every numeric key of the option table (integer, boolean, size and time kinds) with a
/// whole-number example, given a hex value and a value with a unit and trailing text:
/// iomark accepts or refuses each as its kind says ([`generated`]), a refusal is one
/// line naming the key (exit 2), and, with fio installed, iomark accepts exactly what `fio --parse-only` accepts except the
/// refusals listed in docs/compat/fio.md.
#[test]
fn negative_hex_and_unit_with_junk_values_of_every_numeric_key() {
    let d = scratch();
    let with_fio = have_fio();
    let ours = |k: &str, v: &str| parse_only(as_fio(d.path()).dir(d.path()), k, v);
    let fio_ok = |k: &str, v: &str| parse_only(fio_cmd().dir(d.path()), k, v).code == 0;
    let (mut checked, mut differ, mut fio_differs) = (0, Vec::new(), 0);
    for (key, ex, _) in numeric_keys() {
        let o = options::find(key).unwrap();
        let Ok(n) = ex.parse::<u64>() else { continue };
        if ours(key, ex).code != 0 || (with_fio && !fio_ok(key, ex)) {
            continue;
        }
        for (v, want) in generated(o, n) {
            checked += 1;
            let got = ours(key, &v);
            let expect = match &want {
                Want::Same(w) => ours(key, w).code,
                // the fio persona's refusal: fio's exit code
                Want::Refused => 1,
            };
            // iomark's one line naming the option, or fio's own `failed parsing` line
            let named = got.code == 0
                || (got.stderr.trim().lines().count() == 1 && got.stderr.contains(key))
                || got
                    .stderr
                    .trim_end()
                    .ends_with(&format!("fio: failed parsing {key}={v}"));
            let range = !v.starts_with('-') || got.code == 0 || got.stderr.contains("out of range");
            if got.code != expect || !named || !range {
                differ.push(format!(
                    "--{key}={v}: want exit {expect}; iomark: {}",
                    got.all()
                ));
            }
            if with_fio && fio_ok(key, &v) != (got.code == 0) {
                match &want {
                    Want::Refused => fio_differs += 1,
                    // the number itself is judged differently (iomark's range of
                    // log_hist_coarseness is fio's help text's 0 to 6, fio checks none):
                    // not a matter of reading it
                    Want::Same(w) if fio_ok(key, w) != (expect == 0) => {}
                    _ => differ.push(format!("--{key}={v}: fio differs; iomark: {}", got.all())),
                }
            }
        }
    }
    println!("generated values checked: {checked}; listed differences from fio: {fio_differs}");
    assert!(checked > 200, "checked {checked}");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// Every boolean key of the table written bare in a job file (`direct` on its own line):
/// refused naming the key and what it needs (exit 2), where fio 3.33 says `Option KEY
/// requires an argument` and drops the job (exit 1); fio's "set" keys (`time_based`,
/// `thread`) are taken bare by both, as are the engines' flags (`fixedbufs`, checked on
/// io_uring). With fio installed, each is checked against it.
#[test]
fn a_bare_boolean_in_a_job_file_needs_a_value_as_in_fio() {
    let d = scratch();
    let with_fio = need_fio("a_bare_boolean_in_a_job_file_needs_a_value_as_in_fio");
    let mut seen = (0, 0);
    // (an engine's flags, io_uring's `fixedbufs`, are fio's "set" options: taken bare)
    let job_keys = options::all().filter(|o| matches!(o.apply, Apply::Job(_)));
    for o in job_keys.filter(|o| o.group != options::Group::Engine) {
        let bare = match o.kind {
            Kind::Bool => true,
            Kind::Flag => false,
            _ => continue,
        };
        let f = d.path().join("j.fio");
        std::fs::write(&f, format!("[a]\nioengine=null\nsize=1m\n{}\n", o.name)).unwrap();
        let ours = as_fio(d.path())
            .dir(d.path())
            .args(["--parse-only", "j.fio"])
            .run();
        // a key fio 3.33 does not know (`readonly`, a later fio's key): fio's own
        // `Bad option` lines, checked side by side in fio_compat::strictness
        if ours.stderr.starts_with("Bad option") {
            assert_eq!(ours.code, 1, "{}: {}", o.name, ours.stderr);
            continue;
        }
        if bare {
            seen.0 += 1;
            // fio's exit code for a refused job file
            assert_eq!(ours.code, 1, "{}: {}", o.name, ours.stderr);
            // fio's three lines (parse.c: the option's, the parse failure, the drop)
            let want = format!(
                "Option {0} requires an argument\nfio: failed parsing {0}\nfio: job a dropped\n",
                o.name
            );
            assert_eq!(ours.stderr, want, "{}", o.name);
        } else {
            seen.1 += 1;
            assert!(!ours.stderr.contains("needs a value"), "{}", o.name);
        }
        if with_fio {
            let real = fio_cmd()
                .dir(d.path())
                .args(["--parse-only", "j.fio"])
                .run();
            if real.stderr.contains("Bad option") {
                // a command-line flag of fio's (`readonly`) that iomark's table also
                // takes in a job file
                continue;
            }
            let refused = real.stderr.contains("requires an argument");
            assert_eq!(refused, bare, "{}: fio says {}", o.name, real.stderr);
        }
    }
    assert!(seen.0 >= 20 && seen.1 >= 10, "{seen:?}");
    let f = d.path().join("j.fio");
    std::fs::write(&f, "[a]\nioengine=io_uring\nsize=1m\nfixedbufs\n").unwrap();
    let ours = as_fio(d.path())
        .dir(d.path())
        .args(["--parse-only", "j.fio"])
        .run();
    assert_eq!(ours.code, 0, "{}", ours.stderr);
}

/// Every numeric key of the option table that fio 3.33 has (integer, boolean, size and
/// time kinds), given `-0`, `-1` and `-4k`, side by side with the installed fio
/// (`--parse-only`; fio is required, its absence fails under CI): iomark never accepts
/// what fio refuses, and where it accepts, fio's lines about the parts out of range are
/// the same (`iodepth: min value out of range: -4096 (1 min)`, `max value out of range: 4
/// (1 max)`). `-0` is 0 for every key (the outcome of `0`, fio's unless fio judges 0
/// itself otherwise); `-1` and `-4k` have fio's outcome for every key (`direct=-4k` on,
/// `iodepth=-4k` the default, `fsync=-1` taken: the parts `-N` and `N`,
/// docs/compat/fio.md), but `size=-1` (`size=1`), which fio checks only when it runs.
#[test]
fn negative_zero_one_and_4k_of_every_numeric_key_read_as_fio_reads_them() {
    if !need_fio("negative_zero_one_and_4k_of_every_numeric_key_read_as_fio_reads_them") {
        return;
    }
    let d = scratch();
    let keys: Vec<&options::FioOption> = options::all()
        .filter(|o| matches!(o.apply, Apply::Job(_)))
        .filter(|o| {
            matches!(
                o.kind,
                Kind::Int | Kind::Bool | Kind::Flag | Kind::SizeStr | Kind::Time
            )
        })
        .collect();
    let cases: Vec<(&options::FioOption, &str)> = keys
        .iter()
        .flat_map(|o| ["-0", "-1", "-4k"].map(|v| (*o, v)))
        .collect();
    // fio's answers, four at a time (each fio start costs a tenth of a second)
    let fio: Vec<Out> = std::thread::scope(|s| {
        let parts: Vec<_> = cases
            .chunks(cases.len().div_ceil(4))
            .map(|part| {
                s.spawn(|| {
                    part.iter()
                        .map(|(o, v)| parse_only(fio_cmd().dir(d.path()), o.name, v))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let ours = |k: &str, v: &str| parse_only(as_fio(d.path()).dir(d.path()), k, v);
    let ranges = |o: &Out| -> Vec<String> {
        o.all()
            .lines()
            .filter(|l| l.contains("value out of range"))
            .map(str::to_string)
            .collect()
    };
    let (mut checked, mut differ) = (0, Vec::new());
    for ((o, v), theirs) in cases.iter().zip(&fio) {
        // a key fio 3.33 does not have (or not on this engine) is no matter of signs
        let unknown = ["Bad option", "not supported", "unrecognized option"];
        if unknown.iter().any(|u| theirs.all().contains(u)) {
            continue;
        }
        checked += 1;
        let (got, fio_ok) = (ours(o.name, v), theirs.code == 0);
        let same = (got.code == 0) == fio_ok;
        let say = |why: &str| {
            let (f, i) = (theirs.all(), got.all());
            format!("--{}={v}: {why}; fio: {f}; iomark: {i}", o.name)
        };
        if got.code == 0 && fio_ok && ranges(&got) != ranges(theirs) {
            differ.push(say("fio says other lines"));
        }
        if *v == "-0" {
            // not the same outcome: only where fio judges 0 itself otherwise than iomark
            let fio_zero = || parse_only(fio_cmd().dir(d.path()), o.name, "0").code == 0;
            let zero = ours(o.name, "0").code;
            if got.code != zero {
                differ.push(say("-0 is not read as 0"));
            } else if !same && fio_zero() == (zero == 0) {
                differ.push(say("-0 is not read as fio reads it"));
            }
        } else if got.code == 0 && !fio_ok {
            differ.push(say("taken where fio refuses"));
        } else if !same && (o.name, *v) != ("size", "-1") && o.name != "zonesize" {
            // (`size=-1` is `size=1`, below the block size, and `zonesize` without a
            // zonemode: iomark makes fio's fixup checks under --parse-only, fio when the
            // job runs — fio_compat::negatives)
            differ.push(say("not fio's outcome"));
        }
    }
    println!("checked {checked} values against fio");
    assert!(checked > 300, "checked {checked}");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
