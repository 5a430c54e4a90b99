//! The exit codes of fio's command line and fio job files, through the binary: the
//! in-process properties of src/cli/props.rs (10,000 seeded cases each) show the parsers
//! never panic; these run generated command lines and job files through `iomark run`
//! and the fio persona (iomark invoked as `fio`) with `--parse-only` (nothing is laid
//! out or run, whatever the words) and assert what a user sees: an exit code of 0, 1, 2
//! or 3 only, no panic text (`panicked at`, exit 101) on either stream, and each
//! invocation ended within [`BOUND`]. Each property runs [`cases`] seeded cases
//! (`IOMARK_EXIT_FUZZ_CASES`, default 1,000; seed `IOMARK_FUZZ_SEED`, default 28).

use crate::util::*;
use proptest::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Each invocation ends within this (a process start on a loaded 2-core VM included;
/// the parse itself is held to 1 s in process).
const BOUND: Duration = Duration::from_secs(5);

/// The number of cases of each property and its fixed seed.
fn cases() -> ProptestConfig {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    ProptestConfig {
        cases: env("IOMARK_EXIT_FUZZ_CASES").map_or(1_000, |n| n as u32),
        rng_seed: proptest::test_runner::RngSeed::Fixed(env("IOMARK_FUZZ_SEED").unwrap_or(28)),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Strings that look like values: digits, units, signs, junk.
fn value_like() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-+ ]?[0-9]{0,25}(\\.[0-9]{0,5})?[ ]?(k|K|m|M|g|G|t|T|p|P|KiB|MiB|b|s|ms|us|%|/s)?",
        "[0-9eE.+-]{0,30}",
        "[a-z0-9:,/_-]{0,12}",
        "(inf|nan|-inf|0x[0-9a-f]{0,20}|1e308|18446744073709551616|9223372036854775808)",
        any::<String>().prop_map(|s| s.replace('\0', "")),
    ]
}

/// fio command-line words: the common keys with values, keys alone, short options,
/// junk options and bare words (job file names that do not exist). Never a word that
/// abbreviates an option starting work of its own (getopt takes `--cr` for
/// `--crctest`): junk options start with a character no option name has.
fn argv_word() -> impl Strategy<Value = String> {
    let keys = prop::sample::select(vec![
        "name",
        "rw",
        "bs",
        "size",
        "iodepth",
        "numjobs",
        "ioengine",
        "runtime",
        "time_based",
        "direct",
        "bssplit",
        "rwmixread",
        "fsync",
        "nrfiles",
        "filename",
        "directory",
        "output-format",
        "ramp_time",
        "loops",
        "kb_base",
        "section",
        "showcmd",
        "cmdhelp",
        "debug",
        "bogus",
    ]);
    prop_oneof![
        (keys.clone(), value_like()).prop_map(|(k, v)| format!("--{k}={v}")),
        keys.prop_map(|k| format!("--{k}")),
        // fio's short letters, less those that start work of their own (`-S` server,
        // `-C` client, `-D` daemonize, `-G`/`-M`/`-T` CPU tests, `-I` idle profiling)
        "-[olbmFfvhcisrOEdxapwjVLK]",
        "[a-z./]{1,10}",
        any::<String>().prop_map(|s| format!("--~{}", s.replace('\0', ""))),
    ]
}

/// fio job-file lines: sections, options, `${VAR}`, includes, arithmetic, comments, junk.
fn ini_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\[[a-z0-9 ]{0,8}\\]?",
        "[a-z_]{1,10}[ ]?=[ ]?[a-z0-9${}_:/]{0,16}",
        "(rw|bs|size|iodepth|numjobs|ioengine|filename|runtime)=[a-z0-9kmgKMG:,]{0,10}",
        "[a-z_]{1,10}=\\$\\{[A-Z]{0,4}\\}?",
        "(include self.fio|include ./self.fio|include ../x.fio|include /proc/version)",
        "[;#].{0,20}",
        "[a-z_]{1,10}=\\(?[0-9*+/%^() -]{0,16}\\)?[kKmMgG]?",
        "[a-z_]{1,10}=\\$(ncpus|mb_memory|pagesize)[*+/-]?[0-9]{0,4}",
        any::<String>().prop_map(|s| s.replace('\0', "")),
    ]
}

/// `words` (then `--parse-only`) under `iomark run` and under the persona in `d`: the
/// first broken promise, if any.
fn both(bin: &Path, d: &Path, words: &[String]) -> Result<(), String> {
    let runs = [
        ("iomark run", Iomark::new().arg("run")),
        ("fio persona", as_fio(bin)),
    ];
    for (who, cmd) in runs {
        let t = Instant::now();
        let o = cmd
            .dir(d)
            .env("IOMARK_HISTORY", "off")
            .env("B", "4k")
            .args(words)
            .arg("--parse-only")
            .timeout(Duration::from_secs(60))
            .run();
        let took = t.elapsed();
        if std::env::var("IOMARK_PROPS_LOG").is_ok() {
            eprintln!("{who} exit {} {words:?}", o.code);
        }
        if ![0, 1, 2, 3].contains(&o.code) {
            return Err(format!(
                "{who}: exit {} for {words:?}: {}",
                o.code,
                o.dump()
            ));
        }
        if o.all().contains("panicked at") {
            return Err(format!("{who}: a panic for {words:?}: {}", o.dump()));
        }
        if took > BOUND {
            return Err(format!("{who}: {took:?} for {words:?}"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn fio_command_lines_exit_0_to_3_without_a_panic(
        words in proptest::collection::vec(argv_word(), 0..10),
    ) {
        let bin = scratch();
        let work = scratch();
        let r = both(bin.path(), work.path(), &words);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    #[test]
    fn fio_job_files_exit_0_to_3_without_a_panic(
        lines in proptest::collection::vec(ini_line(), 0..20),
        before in proptest::collection::vec(argv_word(), 0..3),
    ) {
        let bin = scratch();
        let work = scratch();
        std::fs::write(work.path().join("self.fio"), lines.join("\n")).unwrap();
        let mut words = before;
        words.push("self.fio".into());
        let r = both(bin.path(), work.path(), &words);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}
