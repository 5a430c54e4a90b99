//! `iomark run`'s option table seen from the command line: `--cmdhelp[=KEY]` against
//! fio 3.33's own output (tests/fixtures/fio/cmdhelp/), "did you mean" for a near miss
//! of every key, and `--help` listing the option groups.

use crate::util::*;
use std::path::Path;

/// The keys `--cmdhelp` lists (`NAME    : help` lines).
fn listed_keys() -> Vec<String> {
    let o = run(Path::new("."), &["--cmdhelp"]);
    assert_eq!(o.code, 0);
    o.stdout
        .lines()
        .filter_map(|l| l.split_once(": ").map(|(k, _)| k.trim().to_string()))
        .filter(|k| !k.is_empty())
        .collect()
}

#[test]
fn cmdhelp_of_a_key_is_fio_3_33_s() {
    let dir = fixture("fio/cmdhelp");
    let mut n = 0;
    for f in std::fs::read_dir(&dir).unwrap() {
        let f = f.unwrap().path();
        let key = f.file_stem().unwrap().to_str().unwrap().to_string();
        let want = std::fs::read_to_string(&f).unwrap();
        let o = run(Path::new("."), &[&format!("--cmdhelp={key}")]);
        assert_eq!(o.code, 0, "{key}");
        assert_eq!(o.stdout, want, "--cmdhelp={key}");
        assert!(o.stderr.is_empty(), "{key}: {}", o.stderr);
        n += 1;
    }
    assert!(n >= 20, "{n} fixtures");
}

#[test]
fn cmdhelp_lists_every_key_by_group() {
    let all = run(Path::new("."), &["--cmdhelp"]);
    let all_word = run(Path::new("."), &["--cmdhelp=all"]);
    assert_eq!(all.stdout, all_word.stdout);
    let s = all.stdout.clone();
    // fio's `%-24s: %s` lines
    for line in [
        "bs                      : Block size unit",
        "max_open_zones          : Limit on the number of simultaneously opened sequential write zones with zonemode=zbd",
        "reap-spin               : io_uring: watch for completions this long before sleeping (0 = sleep at once, as fio)",
    ] {
        assert!(s.lines().any(|l| l == line), "{line}\n{s}");
    }
    for group in ["General I/O:", "Zone:", "Verify:", "Command line:"] {
        assert!(s.lines().any(|l| l == group), "{group}");
    }
    let keys = listed_keys();
    assert!(keys.len() >= 160, "{}", keys.len());
    // every listed key has its own help
    for k in &keys {
        let o = run(Path::new("."), &[&format!("--cmdhelp={k}")]);
        assert_eq!(o.code, 0, "{k}");
        assert!(o.stdout.contains(&format!("{k}: ")), "{k}");
    }
}

#[test]
fn cmdhelp_answers_first_whatever_else_is_written() {
    let o = run(
        Path::new("."),
        &["--name=j", "--bogus=1", "--cmdhelp=timeout"],
    );
    assert_eq!(o.code, 0);
    assert!(
        o.stdout.starts_with("             runtime: Stop workload"),
        "{}",
        o.stdout
    );
    // `-` and `_` alike, as for the keys themselves
    let o = run(Path::new("."), &["--cmdhelp=status_interval"]);
    assert!(o.stdout.contains("status-interval: "));
}

#[test]
fn cmdhelp_of_an_unknown_key_is_one_line_with_a_hint() {
    let o = run(Path::new("."), &["--cmdhelp=max_open_zone"]);
    assert_eq!(o.code, 2);
    assert!(o.stdout.is_empty());
    assert_eq!(
        o.stderr,
        "iomark run: --cmdhelp=max_open_zone: no option of that name (iomark run --cmdhelp lists them); did you mean 'max_open_zones'?\n"
    );
    let o = run(Path::new("."), &["--cmdhelp=banana_split"]);
    assert_eq!(o.code, 2);
    assert!(!o.stderr.contains("did you mean"), "{}", o.stderr);
}

#[test]
fn a_near_miss_of_every_key_gets_a_hint_on_the_command_line() {
    let d = scratch();
    let keys = listed_keys();
    for k in &keys {
        // the last character changed (dropping it would be an abbreviation, which fio's
        // getopt takes for the whole key: src/job/fio/getopt.rs)
        let last = if k.ends_with('q') { "z" } else { "q" };
        let miss = if k.len() >= 4 && !keys.contains(&k[..k.len() - 1].to_string()) {
            format!("{}{last}", &k[..k.len() - 1])
        } else {
            format!("{k}x")
        };
        let o = run(
            d.path(),
            &[
                "--name=j",
                "--ioengine=null",
                "--size=1m",
                &format!("--{miss}=1"),
            ],
        );
        assert_eq!(o.code, 2, "--{miss}");
        let e = o.stderr;
        assert!(
            e.contains(&format!(
                "option '{miss}' is not supported by iomark; did you mean '"
            )),
            "--{miss}: {e}"
        );
        let named = e
            .split("did you mean '")
            .nth(1)
            .and_then(|r| r.split('\'').next())
            .unwrap();
        let o = run(d.path(), &[&format!("--cmdhelp={named}")]);
        let help = o.stdout;
        assert!(
            help.lines()
                .next()
                .is_some_and(|l| l.trim_start().starts_with(&format!("{k}: ")))
                || help.contains(&format!("alias: {k}\n")),
            "--{miss} → {named}, expected {k}"
        );
    }
}

#[test]
fn a_typo_in_a_job_file_gets_a_hint_with_its_line() {
    let d = scratch();
    std::fs::write(
        d.path().join("j.fio"),
        "[j]\nioengine=null\nsize=1m\nmax_open_zone=4\n",
    )
    .unwrap();
    let o = run(d.path(), &["j.fio"]);
    assert_eq!(o.code, 2);
    assert_eq!(
        o.stderr,
        "iomark run: j.fio:4: option 'max_open_zone' is not supported by iomark; did you mean 'max_open_zones'?\n"
    );
}

#[test]
fn iomark_s_own_options_are_known_to_the_hint_and_refused_in_job_files() {
    let d = scratch();
    for (typo, want) in [
        ("--reap-spn=5us", "reap-spin"),
        ("--engine-strct", "engine-strict"),
        ("--allow-destructive-wrte=/dev/x", "allow-destructive-write"),
        ("--jsno=r.json", "json"),
        ("--plto=d", "plot"),
        ("--outptu=o.txt", "output"),
    ] {
        let o = run(
            d.path(),
            &["--name=j", "--ioengine=null", "--size=1m", typo],
        );
        assert_eq!(o.code, 2, "{typo}");
        assert!(
            o.stderr.ends_with(&format!("did you mean '{want}'?\n")),
            "{typo}: {}",
            o.stderr
        );
    }
    std::fs::write(
        d.path().join("j.fio"),
        "[j]\nioengine=null\nsize=1m\njson=r.json\n",
    )
    .unwrap();
    let o = run(d.path(), &["j.fio"]);
    assert_eq!(o.code, 2);
    assert_eq!(
        o.stderr,
        "iomark run: j.fio:4: option 'json' is a command-line option of iomark run, not a job key (give it on the command line as --json)\n"
    );
    assert!(!d.path().join("r.json").exists());
}

#[test]
fn help_lists_the_groups_and_points_to_cmdhelp() {
    let o = run(Path::new("."), &["--help"]);
    assert_eq!(o.code, 0);
    let s = o.stdout;
    assert!(s.contains("--cmdhelp=KEY"), "{s}");
    assert!(s.contains("Options by group"), "{s}");
    for g in [
        "  General I/O: rw ioengine iodepth",
        "  Zone: zonemode",
        "  Command line: output-format",
    ] {
        assert!(s.contains(g), "{g}\n{s}");
    }
    assert!(s.lines().all(|l| l.chars().count() <= 110), "{s}");
}

/// Invoked as `fio`, error lines start `fio: ` as fio's own do (clients grep for it);
/// as `iomark run` they start `iomark run: `.
#[test]
fn error_lines_start_with_fio_under_the_fio_persona() {
    let d = scratch();
    let fio = d.path().join("fio");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iomark"), &fio).unwrap();
    let o = std::process::Command::new(&fio)
        .current_dir(d.path())
        .args(["--name=a", "--rw=bogus"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // fio 3.33's own line and exit code
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err, "fio: failed parsing rw=bogus\n");
    assert!(!err.contains("iomark run:"), "{err}");
    // the report lost to a full stdout is said as fio, too
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = std::process::Command::new(&fio)
        .current_dir(d.path())
        .args(["--name=a", "--ioengine=null", "--size=64k"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(
        err,
        "fio: cannot write the report to stdout: No space left on device\n"
    );
    let o = run(d.path(), &["--name=a", "--rw=bogus"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.starts_with("iomark run: "), "{}", o.stderr);
}

/// `time_based` without `runtime`: fio 3.33 drops time_based and prints its one line on
/// stderr (init.c), so the job ends at its size — under the fio persona stderr is
/// exactly that line, as `iomark run` the same line is printed too.
#[test]
fn time_based_without_runtime_is_dropped_with_fios_line() {
    let d = scratch();
    let fio = d.path().join("fio");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iomark"), &fio).unwrap();
    let args = [
        "--name=a",
        "--ioengine=psync",
        "--size=64k",
        "--time_based",
        "--output-format=json",
    ];
    let o = std::process::Command::new(&fio)
        .current_dir(d.path())
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err, "fio: time_based requires a runtime/timeout setting\n");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    // the job ended at its size: one pass of 64 KiB read
    assert_eq!(v["jobs"][0]["read"]["io_bytes"], 65536);
    let o = run(d.path(), &args);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("fio: time_based requires a runtime/timeout setting\n"),
        "{}",
        o.stderr
    );
    // fio's fixups (this line, blockalign's) are skipped with --parse-only: nothing is said
    let o = std::process::Command::new(&fio)
        .current_dir(d.path())
        .args(["--name=a", "--size=64k", "--time_based", "--parse-only"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

/// The option names of a `fio --cmdhelp` / `--enghelp=ENGINE` listing (`NAME : help`).
fn fio_listed(args: &[&str]) -> Vec<String> {
    let o = fio_cmd().args(args).run();
    o.stdout
        .lines()
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim().to_string()))
        // ("fio: engine X not loadable" is no option)
        .filter(|k| k != "fio" && !k.is_empty())
        .filter(|k| k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .collect()
}

/// fio's aliases of `key` (`alias: NAME` lines of `fio --cmdhelp=KEY`).
fn fio_aliases(key: &str) -> Vec<String> {
    let o = fio_cmd().arg(format!("--cmdhelp={key}")).run();
    o.stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("alias: ").map(str::to_string))
        .collect()
}

/// fio's whole contract: every option of the installed fio's `--cmdhelp=all`,
/// and of its `--enghelp=ENGINE` for each engine word iomark takes (read at test time,
/// not copied), is an option of iomark under fio's own name, and each of fio's aliases
/// names it too. Prints the counts covered.
#[test]
fn every_option_fio_lists_is_accepted() {
    if !need_fio("every_option_fio_lists_is_accepted") {
        return;
    }
    let ours = listed_keys();
    let generic = fio_listed(&["--cmdhelp=all"]);
    assert!(
        generic.len() > 150,
        "fio --cmdhelp=all listed {}",
        generic.len()
    );
    let mut missing = Vec::new();
    for k in &generic {
        if !ours.contains(k) {
            missing.push(k.clone());
        }
        for a in fio_aliases(k) {
            let o = run(Path::new("."), &[&format!("--cmdhelp={a}")]);
            if o.code != 0 || !o.stdout.contains(&format!("{k}: ")) {
                missing.push(format!("{a} (fio's alias of {k})"));
            }
        }
    }
    // every word `ioengine=` takes: the engines and fio's names of them (pvsync2's
    // options are pvsync2's own)
    let mut engine_keys = 0;
    for (word, _) in iomark::engine::registry::ENGINE_WORDS {
        for k in fio_listed(&[&format!("--enghelp={word}")]) {
            engine_keys += 1;
            if !ours.contains(&k) {
                missing.push(format!("{k} (--enghelp={word})"));
            }
        }
    }
    let pvsync2 = fio_listed(&["--enghelp=pvsync2"]);
    assert!(pvsync2.len() >= 4, "fio --enghelp=pvsync2: {pvsync2:?}");
    println!(
        "fio --cmdhelp=all: {} of {} options accepted; --enghelp of iomark's engines: {} of {}",
        generic.len() - missing.iter().filter(|m| !m.contains(' ')).count(),
        generic.len(),
        engine_keys - missing.iter().filter(|m| m.contains("--enghelp")).count(),
        engine_keys
    );
    assert!(missing.is_empty(), "refused by iomark: {missing:?}");
}

/// `--enghelp=ENGINE` for each engine word iomark takes, under the fio persona, is fio
/// 3.33's answer (read from the installed fio at test time): the same stdout byte for
/// byte — the options in fio's order, fio's line of help for that engine, fio's indent of
/// a child option, "has no options" — and the same exit code (1 for an empty listing).
/// Engines this fio cannot load (`dircreate` and its kin are newer than 3.33) are
/// skipped; an engine neither knows is answered as fio answers it.
#[test]
fn enghelp_of_each_engine_is_fios() {
    if !need_fio("enghelp_of_each_engine_is_fios") {
        return;
    }
    let d = scratch();
    let mut compared = 0;
    let mut differ = Vec::new();
    // every word `ioengine=` takes, fio's names of an engine (sync, pvsync, pvsync2)
    // among them
    let names = iomark::engine::registry::ENGINE_WORDS.map(|w| w.0);
    assert!(names.contains(&"pvsync2"), "{names:?}");
    for name in names.iter().chain(&["bogus"]) {
        let arg = format!("--enghelp={name}");
        let f = fio_cmd().arg(&arg).run();
        if *name != "bogus" && f.stderr.contains("not loadable") {
            continue;
        }
        compared += 1;
        let o = as_fio(d.path()).arg(&arg).run();
        if (o.code, &o.stdout, &o.stderr) != (f.code, &f.stdout, &f.stderr) {
            differ.push(format!(
                "{arg}:\nfio ({}):\n{}{}iomark ({}):\n{}{}",
                f.code, f.stdout, f.stderr, o.code, o.stdout, o.stderr
            ));
        }
    }
    assert!(compared >= 12, "fio loaded {compared} of iomark's engines");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// `--enghelp` under the fio persona lists, in fio 3.33's order (read from the installed
/// fio at test time), every engine of fio's list that iomark runs — fio's aliases
/// `sync` and `pvsync` among them — and each such name is accepted as `ioengine=`;
/// fio's engines iomark refuses are left out, and iomark's own (newer than 3.33) come
/// after fio's.
#[test]
fn enghelp_lists_the_engines_iomark_runs_in_fios_order() {
    if !need_fio("enghelp_lists_the_engines_iomark_runs_in_fios_order") {
        return;
    }
    let d = scratch();
    let names = |o: &Out| -> Vec<String> {
        assert_eq!(o.code, 0, "{}", o.dump());
        let mut l = o.stdout.lines();
        assert_eq!(l.next(), Some("Available IO engines:"));
        l.map(|n| n.strip_prefix('\t').unwrap_or(n).to_string())
            .collect()
    };
    let fio = names(&fio_cmd().arg("--enghelp").run());
    let ours = names(&as_fio(d.path()).arg("--enghelp").run());
    // an engine iomark refuses is refused by name; cpuio, net and exec pass that
    // check and then ask for their own options
    let runs = |n: &str| {
        let ioengine = format!("--ioengine={n}");
        let o = as_fio(d.path())
            .args(["--parse-only", "--name=a", "--size=1m", &ioengine])
            .run();
        o.code == 0
            || !(o.stderr.contains("is not supported by iomark")
                || o.stderr.contains("not loadable"))
    };
    let expected: Vec<String> = fio.iter().filter(|n| runs(n)).cloned().collect();
    for n in [
        "sync", "psync", "pvsync", "libaio", "io_uring", "null", "cpuio",
    ] {
        assert!(expected.iter().any(|e| e == n), "{n} not run: {expected:?}");
    }
    assert_eq!(
        ours.get(..expected.len()),
        Some(&expected[..]),
        "fio's: {fio:?}"
    );
    let refused = as_fio(d.path())
        .args(["--parse-only", "--name=a", "--ioengine=vsync"])
        .run();
    // the refusal names every engine the listing has
    for n in &ours {
        assert!(
            refused.stderr.contains(n.as_str()),
            "{n}: {}",
            refused.stderr
        );
    }
    // `--enghelp=E` of an engine fio has and iomark does not run: one line saying so
    // (not fio's dlopen wording "not loadable"), exit 1 as fio's answers
    for e in fio.iter().filter(|n| !runs(n)) {
        let o = as_fio(d.path()).arg(format!("--enghelp={e}")).run();
        assert_eq!(o.code, 1, "{e}: {}", o.dump());
        assert_eq!(o.stdout, "", "{e}");
        let want = format!("fio: engine {e} is fio's but iomark does not run it (it runs: ");
        assert!(o.stderr.starts_with(&want), "{e}: {}", o.stderr);
        assert!(o.stderr.contains("pvsync, "), "{e}: {}", o.stderr);
    }
    for n in &ours[expected.len()..] {
        assert!(
            !fio.contains(n) && runs(n),
            "{n} after fio's list: {ours:?}"
        );
    }
}

/// fio 3.33's checks of the rates as it adds a job (init.c `fixup_options`): `rate`
/// with `rate_iops` (or their minimums) set, and a direction whose minimum exceeds its
/// rate, each one line (`ddir 0/1/2`) and exit 1 with nothing on stdout, side by side;
/// `iomark run` refuses them in its own one line (exit 2), and both skip them under
/// `--parse-only`, as fio does.
#[test]
fn conflicting_rates_are_refused_with_fios_lines() {
    require_fio();
    let d = scratch();
    for rates in [
        &["--rate=1m", "--rate_iops=100"][..],
        &["--rate_min=1m", "--rate_iops_min=100"],
        &["--rate=1m", "--rate_min=2m"],
        &["--rate=1m,2m", "--rate_min=,3m"],
        &["--rate_iops=100,50", "--rate_iops_min=200,10"],
        &["--rate_iops=100", "--rate_iops_min=50"],
    ] {
        let mut args = vec!["--name=x", "--ioengine=null", "--size=64k"];
        args.extend_from_slice(rates);
        let [fio, ours] = both_in(d.path(), &[], &args);
        let refused = fio.0 != 0;
        assert_eq!((ours.0, &ours.2), (fio.0, &fio.2), "{rates:?}");
        if refused {
            assert_eq!(ours.1, fio.1, "{rates:?}: stdout");
        }
        let o = run(d.path(), &args);
        assert_eq!(
            o.code,
            if refused { 2 } else { 0 },
            "{rates:?}: {}",
            o.stderr
        );
        if refused {
            assert!(
                o.stderr.starts_with("iomark run: job 'x': "),
                "{}",
                o.stderr
            );
            assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
        }
        args.push("--parse-only");
        let [fio, ours] = both_in(d.path(), &[], &args);
        assert_eq!((ours.0, &ours.2), (fio.0, &fio.2), "{rates:?} --parse-only");
    }
}

/// A `size` below the smallest block size of any direction: fio 3.33's line names no job
/// (`fio: size too small, must not be less than minimum block size: 65536 < 1048576`),
/// exit 1, nothing on stdout — the same under the persona, side by side.
#[test]
fn a_size_below_the_block_size_gets_fios_line() {
    require_fio();
    let d = scratch();
    for bs in ["--bs=1m,2p", "--bs=128k"] {
        let args = [
            "--name=j",
            "--ioengine=null",
            "--size=64k",
            "--rw=randrw",
            bs,
        ];
        let [fio, ours] = both_in(d.path(), &[], &args);
        assert_eq!(ours, fio, "{bs}");
        assert_eq!(fio.0, 1, "{bs}: {fio:?}");
    }
}
