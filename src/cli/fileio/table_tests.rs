//! The option table against the parser, the help and sysbench 1.0.20 itself: every option
//! of the table is accepted by the parser at each end of its range and refused just past
//! it, is shown by the help, and every option `sysbench fileio help` lists is in it.

use super::help::{FILEIO_HELP, GLOBAL_HELP};
use super::table::{accepted, bounds, find, Check, Group, Opt, OPTIONS};
use super::{parse, Outcome, Parsed};

/// The options every parse starts from: a `run` that reads every option (async I/O, so
/// `--file-async-backlog` too) and whose geometry holds for each value tried (one file
/// of 2^63 - 1 bytes in 1-byte blocks).
const BASE: [&str; 5] = [
    "--file-test-mode=rndrw",
    "--file-io-mode=async",
    "--file-num=1",
    "--file-block-size=1",
    "--file-total-size=9223372036854775807",
];

fn parse_with(word: &str) -> Parsed {
    let mut args: Vec<String> = BASE.iter().map(|s| s.to_string()).collect();
    args.push(word.to_string());
    args.push("run".into());
    parse(&args)
}

/// The job `word` makes (argv cleared), or the exit code and messages it ends with.
fn outcome(word: &str) -> Result<String, String> {
    let p = parse_with(word);
    match p.outcome {
        Outcome::Job(mut j) => {
            j.settings.argv.clear();
            Ok(format!("{j:?}"))
        }
        Outcome::Exit(code) => {
            let msgs: Vec<&str> = p
                .pre
                .iter()
                .chain(&p.post)
                .map(|m| m.text.as_str())
                .collect();
            Err(format!("exit {code}: {msgs:?}"))
        }
    }
}

/// Accepted: a job, or (`--help`, `--version`) exit 0.
fn accepts(word: &str) -> bool {
    let p = parse_with(word);
    matches!(p.outcome, Outcome::Job(_) | Outcome::Exit(0))
}

/// Values the table says option `o` accepts: each end of a range, each word, a list.
fn good_values(o: &Opt) -> Vec<String> {
    let (lo, hi) = bounds(o.name);
    match o.check {
        Check::Switch => vec!["".into(), "on".into(), "off".into()],
        Check::Int { .. } | Check::Size { .. } => vec![lo.to_string(), hi.to_string()],
        Check::Ratio { .. } => vec![lo.to_string(), "1.5".into(), "inf".into()],
        Check::OneOf(ws) => ws.iter().map(|w| w.to_string()).collect(),
        Check::ListOf(ws) => {
            let mut v: Vec<String> = ws.iter().map(|w| w.to_string()).collect();
            v.push(ws.join(","));
            v
        }
        Check::Seconds { .. } => vec![lo.to_string(), format!("{lo},{}", lo + 1)],
        Check::Shutdown { .. } => vec!["off".into(), "".into(), lo.to_string(), format!("{lo}%")],
        Check::AliasOf(_) => vec![hi.to_string()],
        Check::Path(_) => vec!["some/where".into()],
        Check::Real { example, .. } => vec![example.into()],
        Check::Text(ws) => ws
            .iter()
            .map(|w| w.to_string())
            .chain(["x".into()])
            .collect(),
    }
}

/// Values just outside what the table says option `o` accepts (none for free text and
/// for an alias, which sysbench ignores unless set above its target's default).
fn bad_values(o: &Opt) -> Vec<String> {
    let (lo, hi) = bounds(o.name);
    let past = |v: i64, d: i128| (i128::from(v) + d).to_string();
    match o.check {
        Check::Switch => vec!["maybe".into()],
        Check::Int { .. } | Check::Size { .. } => vec![past(lo, -1), past(hi, 1)],
        Check::Ratio { .. } => vec![format!("{}", lo as f64 - 0.5)],
        Check::OneOf(_) => vec!["nonsense".into()],
        Check::ListOf(ws) => vec![format!("{},nonsense", ws[0])],
        Check::Seconds { .. } => vec![past(lo, -1), format!("{lo},{}", past(lo, -1))],
        Check::Shutdown { .. } => vec![past(lo, -1), format!("{}%", past(lo, -1))],
        Check::Real { min, open, .. } => {
            let below = if open { min } else { min - 0.5 };
            vec!["abc".into(), below.to_string(), "inf".into(), "".into()]
        }
        Check::AliasOf(_) | Check::Path(_) | Check::Text(_) => vec![],
    }
}

fn word(o: &Opt, v: &str) -> String {
    if o.is_switch() && v.is_empty() {
        format!("--{}", o.name)
    } else {
        format!("--{}={v}", o.name)
    }
}

#[test]
fn every_option_of_the_table_is_accepted_by_the_parser_and_shown_by_help() {
    assert!(accepts("--threads=1"), "the base parse itself is refused");
    for o in OPTIONS.iter() {
        for v in good_values(o) {
            let w = word(o, &v);
            assert!(accepts(&w), "{w}: {:?}", outcome(&w));
            // underscores are the same name
            assert!(
                accepts(&w.replacen(o.name, &o.name.replace('-', "_"), 1)),
                "{w}"
            );
        }
        let left = if o.is_switch() {
            format!("  --{}[=on|off]", o.name)
        } else {
            format!("  --{}={}", o.name, o.value)
        };
        let line = format!("{left:<31} {}\n", o.help);
        assert_eq!(
            GLOBAL_HELP.matches(&line).count(),
            1,
            "--help shows {line:?}"
        );
        assert_eq!(
            FILEIO_HELP.contains(&line),
            o.group == Group::Fileio,
            "`fileio help` shows {line:?} iff it is one of sysbench's fileio options"
        );
    }
    let unknown = "--file-nmu=1";
    assert!(find("file-nmu").is_none());
    assert!(outcome(unknown).is_err_and(|e| e.contains("invalid option: --file-nmu=1")));
}

#[test]
fn the_parser_refuses_just_past_each_range_and_word_list_of_the_table() {
    let mut tried = 0;
    for o in OPTIONS.iter() {
        for v in bad_values(o) {
            let w = word(o, &v);
            let r = outcome(&w);
            assert!(
                r.as_ref().is_err_and(|e| !e.starts_with("exit 0")),
                "{w} accepted: {r:?}"
            );
            tried += 1;
        }
    }
    // each range has two ends, each word list a wrong word
    assert!(tried > 2 * 20, "only {tried} refusals tried");
}

#[test]
fn each_word_and_alias_of_the_table_makes_its_own_job() {
    for o in OPTIONS.iter() {
        if let Check::OneOf(ws) = o.check {
            let jobs: Vec<String> = ws.iter().map(|w| outcome(&word(o, w)).unwrap()).collect();
            let mut distinct = jobs.clone();
            distinct.sort();
            distinct.dedup();
            // rand-type changes nothing in fileio (its offsets are uniform)
            let want = if o.name == "rand-type" { 1 } else { ws.len() };
            assert_eq!(distinct.len(), want, "--{}: {ws:?}", o.name);
        }
        if let Check::AliasOf(target) = o.check {
            let v = bounds(target).1;
            assert_eq!(
                outcome(&format!("--{}={v}", o.name)),
                outcome(&format!("--{target}={v}")),
                "--{} is not read as --{target}",
                o.name
            );
            assert_eq!(accepted(o.name), accepted(target));
        }
    }
}

/// The option lines (`  --name=VALUE  text` or `  --name[=on|off]  text`) of a help text:
/// `(name, value or "" for a switch, text)`.
fn option_lines(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("  --"))
        .filter_map(|l| {
            let (left, help) = l.split_once(' ')?;
            let (name, value) = match left.split_once('=') {
                _ if left.ends_with("[=on|off]") => (left.trim_end_matches("[=on|off]"), ""),
                Some((n, v)) => (n, v),
                None => (left, ""),
            };
            Some((
                name.to_string(),
                value.to_string(),
                help.trim_start().to_string(),
            ))
        })
        .collect()
}

fn sysbench(args: &[&str]) -> String {
    let out = std::process::Command::new("/usr/bin/sysbench")
        .args(args)
        .output()
        .expect(
            "sysbench 1.0.20 is required here (/usr/bin/sysbench; bash tests/run.sh installs it)",
        );
    assert!(out.status.success(), "sysbench {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_option_sysbench_lists_is_in_the_table() {
    let fileio = option_lines(&sysbench(&["fileio", "help"]));
    assert_eq!(fileio.len(), 13, "sysbench 1.0.20 lists 13 fileio options");
    for (name, value, help) in &fileio {
        let o = find(name).unwrap_or_else(|| panic!("--{name} of sysbench is not in the table"));
        assert_eq!(o.group, Group::Fileio, "--{name}");
        assert_eq!(
            (o.is_switch(), o.help),
            (value.is_empty(), help.as_str()),
            "--{name}"
        );
        if !o.is_switch() {
            assert_eq!(o.value, value, "--{name}");
        }
    }
    // and the general, random-number and log options of `sysbench --help`, but for
    // --config-file, which iomark refuses (options are given on the command line)
    let all = sysbench(&["--help"]);
    let general = all.split("General database options:").next().unwrap_or("");
    let names: Vec<String> = option_lines(general).into_iter().map(|l| l.0).collect();
    assert!(names.len() > 20, "{names:?}");
    for name in names.iter().filter(|n| *n != "config-file") {
        assert!(
            find(name).is_some(),
            "--{name} of `sysbench --help` is not in the table"
        );
    }
    assert!(find("config-file").is_none());
}

#[test]
fn hint_lines_say_what_the_table_accepts() {
    let hint = |n: &str| format!("--{n} accepts {}", accepted(n));
    for (name, want) in [
        ("threads", "a whole number from 1 to 1024"),
        ("events", "a whole number >= 0 (0 = no event limit)"),
        ("time", "a whole number of seconds >= 0 (0 = no time limit)"),
        ("rate", "a whole number of events per second >= 0 (0 = unlimited)"),
        ("report-interval", "a whole number of seconds >= 0 (0 = off)"),
        ("rand-seed", "a whole number (0 = seed from the current time)"),
        ("verbosity", "a whole number from 0 to 5"),
        ("percentile", "a whole number from 0 to 100 (0 = off)"),
        ("rand-spec-iter", "a whole number (decimal, 32-bit)"),
        ("file-num", "a whole number from 1 to 2147483647"),
        ("file-async-backlog", "a whole number from 1 to 32768"),
        ("file-merged-requests", "a whole number >= 0 (0 = no merging)"),
        ("file-fsync-freq", "a whole number >= 0 (0 = no periodic fsync)"),
        ("file-rw-ratio", "a number >= 0 (reads per write; inf = reads only)"),
        ("file-test-mode", "seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw"),
        ("file-io-mode", "sync, async, mmap"),
        ("file-fsync-mode", "fsync, fdatasync"),
        ("file-extra-flags", "a comma-separated list of sync, dsync, direct"),
        ("rand-type", "uniform, gaussian, special, pareto, zipfian"),
        ("file-total-size", "a size from 1 byte to 8 EiB: digits with an optional K, M, G or T suffix (binary, e.g. 64M)"),
        ("file-block-size", "a size from 1 byte to 2147483647 bytes: digits with an optional K, M or G suffix (binary, e.g. 16K)"),
        ("forced-shutdown", "off, a whole number of seconds after --time, P% of --time, or empty (5 % of --time)"),
        ("validate", "on, off (also true, false, 1, 0) or no value (on)"),
        ("num-threads", "a whole number from 1 to 1024"),
    ] {
        assert_eq!(hint(name), format!("--{name} accepts {want}"));
    }
}

/// Values for a SIZE option: digits (a few or very many), then nothing, a suffix of
/// either case, a suffix sysbench does not know, or a fraction, and sometimes junk after.
fn size_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let digits = prop_oneof![
        (0u64..70_000).prop_map(|n| n.to_string()),
        "[0-9]{1,30}",
        Just(String::new()),
        Just("-5".to_string()),
    ];
    let suffix = prop::sample::select(vec![
        "", "k", "K", "m", "M", "g", "G", "t", "T", "Q", "P", ".5",
    ]);
    let junk = prop::sample::select(vec!["", "", "B", "iB", "x", " "]);
    (digits, suffix, junk).prop_map(|(d, s, j)| format!("{d}{s}{j}"))
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        cases: 3000,
        rng_seed: proptest::test_runner::RngSeed::Fixed(18),
        failure_persistence: None,
        ..Default::default()
    })]

    /// Every SIZE option of the table, any value: taken when what it means as typed is in
    /// the table's range; otherwise refused with one line naming the option, the value
    /// as typed and what is accepted (exit 2), or — only for a value typed as sysbench
    /// prints it (`0`) — sysbench's own line and code 1. Never a number the user did not
    /// type (`2G` printed as -2147483648, `12Q` as 0), never a size taken as another
    /// (`5G` as a block of 1 GiB).
    #[test]
    fn every_size_option_takes_what_is_typed_or_names_it_with_the_range(v in size_text()) {
        for o in OPTIONS.iter().filter(|o| matches!(o.check, Check::Size { .. })) {
            let (lo, hi) = bounds(o.name);
            let means = crate::job::units::size_as_typed(&v);
            let inside = means.is_some_and(|b| b >= lo as u128 && b <= hi as u128);
            let p = parse_with(&format!("--{}={v}", o.name));
            let lines: Vec<&str> = p.pre.iter().chain(&p.post).map(|m| m.text.as_str()).collect();
            match p.outcome {
                Outcome::Job(j) => {
                    proptest::prop_assert!(inside, "{} = {v:?} taken", o.name);
                    let got = if o.name == "file-block-size" { j.block_size } else { j.total_size };
                    proptest::prop_assert_eq!(Some(u128::from(got)), means);
                }
                Outcome::Exit(code) => {
                    proptest::prop_assert!(!inside, "{} = {v:?} refused: {lines:?}", o.name);
                    let ours = format!("Invalid value for {}: ", o.name);
                    let said: Vec<&&str> = lines.iter().filter(|l| l.contains(&ours)).collect();
                    proptest::prop_assert_eq!(said.len(), 1, "{:?}", lines);
                    let hint = format!("--{} accepts {}", o.name, accepted(o.name));
                    if code == 2 {
                        proptest::prop_assert!(said[0].contains(&hint), "{said:?}");
                        proptest::prop_assert!(said[0].contains(&format!("{v:?}")) || said[0].contains(&format!(": {v} is ")), "{said:?}");
                        // one line: nothing else but the banner and its empty line
                        let rest = lines.iter().filter(|l| !l.is_empty() && !l.starts_with("iomark 0.1.0"));
                        proptest::prop_assert_eq!(rest.count(), 1, "{:?}", lines);
                    } else {
                        proptest::prop_assert_eq!(code, 1);
                        let printed = said[0].trim_end_matches('.').rsplit(": ").next().unwrap_or_default();
                        proptest::prop_assert_eq!(printed, v.as_str(), "{:?}", lines);
                        proptest::prop_assert!(lines.iter().any(|l| l.ends_with(&hint)), "{lines:?}");
                    }
                }
            }
        }
    }
}
