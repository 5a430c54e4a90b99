//! Property test over random `iomark fileio` argument vectors: random mixes of the known
//! option names (valid and invalid values, bare and `_` spellings) and random positional
//! words. Whatever the input: no panic, an exit code from the documented set, at most one
//! line on stderr. Values are chosen so that no invocation runs a long benchmark
//! (tiny sizes, no endless `--events=0 --time=0`).

use crate::util::*;
use proptest::prelude::*;
use std::time::Duration;

/// (option name, candidate values; `None` = bare `--name`)
fn options() -> Vec<(&'static str, Vec<Option<&'static str>>)> {
    let v = |xs: &[&'static str]| xs.iter().map(|x| Some(*x)).collect::<Vec<_>>();
    let b = |xs: &[&'static str]| {
        let mut o = v(xs);
        o.push(None);
        o
    };
    vec![
        (
            "file-num",
            v(&["1", "2", "3", "16", "0", "-1", "", "abc", "+4", " 2"]),
        ),
        (
            "file-block-size",
            v(&["4K", "16K", "512", "4096", "0", "abc", "2G", "1M", "-5"]),
        ),
        (
            "file-total-size",
            v(&[
                "1M", "64K", "256K", "3M", "100", "0", "abc", "1.5G", "1P", "", "2Mfoo",
            ]),
        ),
        (
            "file-test-mode",
            v(&[
                "seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw", "foo", "", "RNDRD",
            ]),
        ),
        ("file-io-mode", v(&["sync", "async", "mmap", "foo", ""])),
        (
            "file-async-backlog",
            v(&["1", "4", "128", "0", "-1", "abc", "99999"]),
        ),
        (
            "file-extra-flags",
            v(&[
                "",
                "sync",
                "dsync",
                "direct",
                "sync,dsync",
                "direct,sync",
                "foo",
                "sync,foo",
                ",",
            ]),
        ),
        ("file-fsync-freq", v(&["0", "1", "100", "-1", "x"])),
        (
            "file-fsync-all",
            b(&["on", "off", "true", "0", "maybe", ""]),
        ),
        ("file-fsync-end", b(&["on", "off", "1", "maybe"])),
        ("file-fsync-mode", v(&["fsync", "fdatasync", "", "foo"])),
        ("file-merged-requests", v(&["0", "2", "-1", "x"])),
        (
            "file-rw-ratio",
            v(&["1.5", "0", "2", "inf", "nan", "-1", "abc", ""]),
        ),
        ("threads", v(&["1", "2", "4", "0", "-1", "abc"])),
        // never 0 or empty: with --time=0 that would be an endless test
        ("events", v(&["1", "3", "17", "-1", "abc", "+2"])),
        ("time", v(&["0", "-1", "abc", ""])),
        ("max-requests", v(&["0", "5"])),
        ("max-time", v(&["0", "-1"])),
        ("num-threads", v(&["1", "2"])),
        ("rate", v(&["0", "1000", "-1", "abc"])),
        ("tx-rate", v(&["0"])),
        ("report-interval", v(&["0", "1", "-2", "x"])),
        ("report-checkpoints", v(&["1", "", "a", "0", "1,2"])),
        ("forced-shutdown", v(&["off", "1", "10%", "", "abc"])),
        ("percentile", v(&["95", "0", "100", "50", "101", "-1", "x"])),
        ("histogram", b(&["on", "off", "maybe"])),
        ("debug", b(&["on", "off", "x"])),
        ("validate", b(&["on", "off", "maybe"])),
        ("rand-seed", v(&["0", "7", "-3", "x"])),
        ("rand-type", v(&["uniform", "pareto", "foo"])),
        ("verbosity", v(&["0", "3", "5", "6", "x"])),
        ("help", b(&["on", "off"])),
        ("version", b(&["off"])),
        ("file-data", v(&["zeros", "random", "x"])),
        ("notes", b(&["on", "off", "x"])),
        ("json", v(&["r.json", "", "nodir/r.json"])),
        ("file-dir", v(&["d", "", "a/b"])),
        ("file-foo", v(&["1"])),
        ("warmup-time", v(&["1"])),
    ]
}

fn arg_strategy() -> impl Strategy<Value = String> {
    let opts = options();
    let opt = (0..opts.len(), any::<prop::sample::Index>(), any::<bool>()).prop_map(
        move |(i, vi, underscore)| {
            let (name, values) = &opts[i];
            let name = if underscore {
                name.replace('-', "_")
            } else {
                name.to_string()
            };
            match values[vi.index(values.len())] {
                Some(v) => format!("--{name}={v}"),
                None => format!("--{name}"),
            }
        },
    );
    let word = prop::sample::select(vec!["prepare", "run", "cleanup", "help", "foo", "fileio"])
        .prop_map(String::from);
    prop_oneof![12 => opt, 1 => word]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_argv_never_panics_and_keeps_the_exit_code_contract(
        mut args in prop::collection::vec(arg_strategy(), 0..9),
        cmd in prop::sample::select(vec!["prepare", "run", "cleanup", "prepare run", "prepare run", "prepare run cleanup", "prepare run cleanup", ""]),
    ) {
        // keep every accepted invocation short: a tiny file set and a handful of events;
        // the random options that follow may override these, but only with small values
        let mut argv: Vec<String> =
            ["--file-total-size=1M", "--file-num=2", "--file-test-mode=rndrw", "--events=3", "--time=0"].map(String::from).to_vec();
        argv.append(&mut args);
        argv.extend(cmd.split_whitespace().map(String::from));
        let d = scratch();
        let r = Iomark::new().dir(d.path()).arg("fileio").args(&argv).timeout(Duration::from_secs(30)).run();
        if std::env::var("IOMARK_PROPS_LOG").is_ok() { eprintln!("{} {:?}", r.code, argv); }
        prop_assert_ne!(r.code, 101, "panic for {:?}\n{}", argv, r.stderr);
        prop_assert!(!r.stderr.contains("panicked"), "panic for {:?}\n{}", argv, r.stderr);
        prop_assert!([0, 1, 2, 3].contains(&r.code), "exit code {} for {:?}\nstdout:\n{}\nstderr:\n{}", r.code, argv, r.stdout, r.stderr);
        // at most one message, plus at most one iomark hint naming what the option accepts,
        // plus each `run`'s own fits-in-RAM line (the 1M set fits: one per run command)
        let runs = argv.iter().filter(|a| *a == "run").count();
        let (fits, rest): (Vec<&str>, Vec<&str>) =
            r.stderr.lines().partition(|l| l.starts_with("iomark: WARNING [page_cache.fits_in_ram]: "));
        let (hints, other): (Vec<&str>, Vec<&str>) = rest.into_iter().partition(|l| l.starts_with("iomark: --"));
        prop_assert!(other.len() <= 1 && hints.len() <= 1 && fits.len() <= runs, "stderr for {:?}:\n{}", argv, r.stderr);
        if r.code == 0 && r.stdout.contains("Threads started!") {
            prop_assert!(r.stdout.contains("total number of events:"), "a successful run prints its report: {:?}\n{}", argv, r.stdout);
        }
    }
}
