//! A value that names none of an option's listed values (`--rw=zzbogus`): fio 3.33 prints
//! the option's valid values on stdout, then `fio: failed parsing KEY=VALUE` on stderr,
//! exit 1. The options are read from the installed fio's `--cmdhelp=all` when the test
//! runs (every option whose `--cmdhelp=KEY` lists valid values), each compared side by
//! side with iomark as `fio`: exit code, stdout and stderr byte for byte.

use crate::util::*;

/// Options whose listed values iomark's `--cmdhelp` prints otherwise than fio 3.33, with
/// the reason (docs/compat/fio.md, "Options"). The list may only shrink: a listed option
/// that now prints fio's values fails the test until it is struck off.
const VALUES_DIFFER: &[(&str, &str)] = &[];

/// fio 3.33's options that list valid values, read from the installed fio.
fn listed_value_options() -> Vec<String> {
    let all = fio_cmd().args(["--cmdhelp=all"]).run();
    assert_eq!(all.code, 0, "fio --cmdhelp=all: {}", all.stderr);
    all.stdout
        .lines()
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim().to_string()))
        .filter(|k| !k.is_empty() && !k.contains(' '))
        .filter(|k| {
            let help = fio_cmd().args([&format!("--cmdhelp={k}")]).run();
            help.stdout.contains("valid values:")
        })
        .collect()
}

/// `(code, stdout, stderr)` of `fio ARGS` under fio 3.33 and under iomark as `fio`.
fn side_by_side(args: &[&str]) -> [(i32, String, String); 2] {
    let b = fio_and_iomark("listed_values", args, |_, _| {});
    let fio = b
        .fio
        .expect("fio 3.33 is required (bash tests/run.sh installs it)");
    let i = &b.iomark;
    [
        (fio.code, fio.stdout, fio.stderr),
        (i.code, i.stdout.clone(), i.stderr.clone()),
    ]
}

#[test]
fn a_value_named_nowhere_prints_the_valid_values_as_fio() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    let keys = listed_value_options();
    let mut same = 0;
    for key in &keys {
        // ioengine loads what it does not list; profile is a command-line flag
        if key == "ioengine" || key == "profile" {
            continue;
        }
        let bad = format!("--{key}=zzbogus");
        let [fio, iomark] = side_by_side(&["--name=j", &bad, "--size=1m", "--parse-only"]);
        assert!(
            fio.1.contains("valid values:"),
            "{key}: fio printed {:?}",
            fio.1
        );
        assert_eq!(fio.0, iomark.0, "{key}: exit code");
        assert_eq!(fio.2, iomark.2, "{key}: stderr");
        let listed = VALUES_DIFFER.iter().any(|(k, _)| k == key);
        assert_eq!(
            fio.1 == iomark.1,
            !listed,
            "{key}: stdout (listed in VALUES_DIFFER: {listed})\nfio:\n{}\niomark:\n{}",
            fio.1,
            iomark.1
        );
        same += usize::from(!listed);
    }
    eprintln!(
        "listed values: {same} of {} options print fio's",
        keys.len()
    );
    assert!(same >= 20, "{same} options compared");
    for (key, _) in VALUES_DIFFER {
        assert!(
            keys.iter().any(|k| k == key),
            "{key} lists no values in fio"
        );
    }
}

#[test]
fn a_value_that_names_a_listed_one_prints_no_values() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    // the head before `:` names `read`: fio's postfix parser refuses the rest, no list
    let args = ["--name=j", "--rw=read:zz", "--size=1m", "--parse-only"];
    let [fio, iomark] = side_by_side(&args);
    assert_eq!(fio, iomark);
    assert!(!iomark.1.contains("valid values"), "{}", iomark.1);
    assert!(
        iomark.2.starts_with("fio: rw postfix parsing failed\n"),
        "{}",
        iomark.2
    );
}

#[test]
fn an_engine_fio_cannot_load_prints_the_loaders_line() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    let args = [
        "--name=j",
        "--ioengine=zzbogus",
        "--size=1m",
        "--parse-only",
    ];
    let [fio, iomark] = side_by_side(&args);
    assert!(fio.1.contains("func=dlopen"), "{}", fio.1);
    assert_eq!(fio, iomark);
}

/// Options whose own parser reads what follows a listed value, where iomark reads
/// `VALUE,zz` or `VALUE:zz` otherwise than fio 3.33, with the reason (docs/compat/fio.md,
/// "Options"). The list may only shrink: a listed case that now reads as fio's fails the
/// test until it is struck off.
const TAIL_DIFFERS: &[(&str, &str, &str)] = &[
    (
        "ioengine",
        ":zz",
        "fio takes `ENGINE:…` and loads the engine; iomark refuses an engine's arguments",
    ),
    (
        "profile",
        ",zz",
        "iomark runs no built-in profile (its own line and exit 2)",
    ),
    (
        "profile",
        ":zz",
        "iomark runs no built-in profile (its own line and exit 2)",
    ),
    (
        "mem",
        ":zz",
        "fio reads a file name after `:` for the mmap kinds only; iomark refuses one for malloc",
    ),
    (
        "steadystate",
        ",zz",
        "fio names the missing threshold; iomark prints only `failed parsing`",
    ),
    (
        "steadystate",
        ":zz",
        "fio names the threshold it cannot read; iomark prints only `failed parsing`",
    ),
    (
        "sync_file_range",
        ",zz",
        "fio lists the flags on stdout for the word it does not know and runs; iomark runs",
    ),
];

/// fio 3.33's options that list valid values, each with its first value, read from the
/// installed fio.
fn first_listed_values() -> Vec<(String, String)> {
    let all = fio_cmd().args(["--cmdhelp=all"]).run();
    assert_eq!(all.code, 0, "fio --cmdhelp=all: {}", all.stderr);
    all.stdout
        .lines()
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim().to_string()))
        .filter(|k| !k.is_empty() && !k.contains(' '))
        .filter_map(|k| {
            let help = fio_cmd().args([&format!("--cmdhelp={k}")]).run();
            let line = help.stdout.lines().find(|l| l.contains("valid values:"))?;
            let first = line.split_whitespace().nth(2)?.to_string();
            Some((k, first))
        })
        .collect()
}

/// A listed value followed by a tail (`--fallocate=none,zz`, `--rw_sequencer=sequential:zz`):
/// fio 3.33 matches the value up to its first `,`, else its first `:`, and reads that
/// value, so the job parses; iomark as `fio` does the same for every option fio lists
/// values for (read from the installed fio), exit code, stdout and stderr byte for byte.
#[test]
fn a_listed_value_with_a_tail_is_read_as_fio() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    let mut bad = Vec::new();
    let mut compared = 0;
    let mut differs_seen = Vec::new();
    for (key, first) in first_listed_values() {
        for tail in [",zz", ":zz"] {
            let arg = format!("--{key}={first}{tail}");
            let [fio, iomark] = side_by_side(&["--name=j", &arg, "--size=1m", "--parse-only"]);
            let listed = TAIL_DIFFERS.iter().any(|(k, t, _)| *k == key && *t == tail);
            if listed {
                differs_seen.push((key.clone(), tail));
            }
            if (fio == iomark) == listed {
                bad.push(format!(
                    "{arg} (listed in TAIL_DIFFERS: {listed}): fio {fio:?}, iomark {iomark:?}"
                ));
            }
            compared += 1;
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(compared >= 40, "{compared} values compared");
    for (k, t, _) in TAIL_DIFFERS {
        assert!(
            differs_seen.iter().any(|(key, tail)| key == k && tail == t),
            "{k}{t} is no listed-values option of fio's"
        );
    }
}
