//! Hostile input for every parser, in process (no child processes, so thousands of
//! cases run quickly): sizes and durations (`job::values`, fio's value parsers, the
//! copy/tree/mark and diagnose size arguments), sysbench argv (`cli::fileio::parse`),
//! fio job files with `include` and `${VAR}`, RunResult JSON for `compare` (random bytes
//! and mutations of real results, then the whole compare pipeline), and `diagnose`
//! fixture manifests (which must also never write outside their directory).
//! Properties: no panic, bounded time per input, and exact round trips where a
//! canonical spelling exists.

use crate::cli::fileio::table::OPTIONS;
use crate::cli::fileio::{parse, Outcome};
use crate::job::{fio, fio::ini as fio_ini, values};
use crate::report::compare as cmp;
use crate::report::compare_render as render;
use proptest::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Each parse must finish well within this (they are all linear in the input; the
/// house bound is 1 s per case, `tests/fuzz.sh` holds it at 100,000 cases per property).
const BOUND: Duration = Duration::from_secs(1);

/// The parser fuzzing (sysbench argv, fio's command line, job files,
/// RunResult and fio JSON/text import): 10,000 cases per property in every test run
/// from a fixed seed (repeatable), `PROPTEST_CASES` when set — `tests/fuzz.sh` runs
/// 100,000 with a seed of its own.
fn fuzz() -> ProptestConfig {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    ProptestConfig {
        cases: env("PROPTEST_CASES").map_or(10_000, |n| n as u32),
        rng_seed: proptest::test_runner::RngSeed::Fixed(env("IOMARK_FUZZ_SEED").unwrap_or(28)),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    assert!(t.elapsed() < BOUND, "{what} took {:?}", t.elapsed());
    r
}

/// Strings that look like values: digits, units, signs, dots, spaces, junk.
fn value_like() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-+ ]?[0-9]{0,25}(\\.[0-9]{0,5})?[ ]?(k|K|m|M|g|G|t|T|p|P|e|E|KiB|MiB|GiB|KB|MB|GB|TB|b|B|s|ms|us|m|h|d|%|/s|MB/s|GB/s)?",
        "[0-9eE.+-]{0,30}",
        any::<String>(),
        "(inf|nan|NaN|-inf|0x[0-9a-f]{0,20}|1e308|1e-308|18446744073709551616|9223372036854775808)",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn size_and_number_parsers_never_panic(s in value_like()) {
        timed("values", || {
            let _ = values::parse_int(&s);
            let _ = values::parse_size(&s);
            let _ = values::parse_ratio(&s);
            let _ = values::parse_bool(Some(&s));
            let _ = values::parse_human_size(&s);
            let _ = crate::cli::clap_common::parse_bin_size(&s);
            let _ = crate::cli::diagnose::parse_mb_s(&s);
            let _ = crate::cli::diagnose::parse_size(&s);
            let _ = fio::parse_size(&s, 1024);
            let _ = fio::parse_size(&s, 1000);
            let _ = fio::parse_range(&s, 1024);
            let _ = fio::parse_time(&s, 1_000_000_000);
            let _ = fio::parse_time(&s, 1_000);
            let _ = fio::parse_bssplit_dir(&s, 1024);
        });
    }

    #[test]
    fn bssplit_and_ranges_of_structured_junk_never_panic(
        parts in proptest::collection::vec(("[0-9]{0,12}[kKmM]?", "[0-9]{0,4}"), 0..12),
        sep in "[:/,-]",
    ) {
        let s = parts.iter().map(|(a, b)| format!("{a}/{b}")).collect::<Vec<_>>().join(&sep);
        timed("bssplit", || {
            let _ = fio::parse_bssplit_dir(&s, 1024);
            let _ = fio::parse_range(&s.replace('/', "-"), 1024);
        });
    }

    #[test]
    fn canonical_sizes_round_trip(n in 0u64..(1 << 40), unit in 0usize..4) {
        let (suffix, mult) = [("", 1u64), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)][unit];
        prop_assume!(n.checked_mul(mult).is_some());
        prop_assert_eq!(values::parse_human_size(&format!("{n}{suffix}")), Ok(n * mult));
        let si = [("", 1u64), ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000)][unit];
        prop_assume!(n.checked_mul(si.1).is_some());
        prop_assert_eq!(values::parse_human_size(&format!("{n}{}", si.0)), Ok(n * si.1));
        prop_assert_eq!(fio::parse_size(&format!("{n}{}", suffix.to_lowercase()), 1024), Ok(n * mult));
    }

    #[test]
    fn integers_round_trip(n in any::<i32>()) {
        prop_assert_eq!(values::parse_int(&n.to_string()), Some(n));
    }

    #[test]
    fn formatting_never_panics(b in any::<u64>(), f in any::<f64>(), p in 0usize..20) {
        prop_assert!(!values::iec(b).is_empty());
        let _ = values::human_size(f);
        let _ = values::fmt_g(f, p);
    }
}

/// Option words for sysbench argv: every name of the option table (`cli/fileio/table.rs`)
/// in both spellings, names it does not have, and values.
fn argv_word() -> impl Strategy<Value = String> {
    let mut names: Vec<String> = OPTIONS
        .iter()
        .flat_map(|o| [o.name.to_string(), o.name.replace('-', "_")])
        .collect();
    names.dedup();
    names.extend(["data", "config-file", "bogus", ""].map(String::from));
    let names = prop::sample::select(names);
    prop_oneof![
        (names.clone(), value_like()).prop_map(|(n, v)| format!("--{n}={v}")),
        names.prop_map(|n| format!("--{n}")),
        prop::sample::select(vec![
            "prepare", "run", "cleanup", "help", "fileio", "frob", "-", "--", "-x"
        ])
        .prop_map(String::from),
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(fuzz())]

    #[test]
    fn sysbench_argv_parser_never_panics(args in proptest::collection::vec(argv_word(), 0..14)) {
        let p = timed("fileio argv", || parse(&args));
        match p.outcome {
            Outcome::Exit(c) => prop_assert!([0, 1, 2].contains(&c), "exit {c} for {args:?}"),
            Outcome::Job(j) => {
                // a job implies a valid geometry whenever it prepares or runs
                prop_assert!(j.settings.threads >= 1);
            }
        }
        for m in p.pre.iter().chain(p.post.iter()) {
            prop_assert!(!m.text.contains("panicked"));
        }
    }

    #[test]
    fn fio_argv_parser_never_panics(args in proptest::collection::vec(
        prop_oneof![
            (prop::sample::select(vec!["name", "rw", "bs", "size", "iodepth", "numjobs", "ioengine",
                "runtime", "time_based", "direct", "bssplit", "rwmixread", "fsync", "nrfiles",
                "filename", "directory", "output-format", "ramp_time", "loops", "bogus", "kb_base"]),
             value_like()).prop_map(|(k, v)| format!("--{k}={v}")),
            any::<String>().prop_map(|s| format!("--{s}")),
        ], 0..10)) {
        // job files named by junk words do not exist: errors, never a panic
        timed("fio argv", || { let _ = fio::parse_args_with(&args, &|_| None); });
    }
}

/// fio job-file lines: sections, options, `${VAR}`, includes, comments, junk.
fn ini_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\[[a-z0-9 ]{0,8}\\]?",
        "[a-z_]{1,10}[ ]?=[ ]?[a-z0-9${}_:/]{0,16}",
        "[a-z_]{1,10}=\\$\\{[A-Z]{0,4}\\}?",
        "(include|include ) ?[a-z./]{0,12}",
        "(include self.fio|include ./self.fio|include ../x.fio|include /proc/version)",
        "[;#].{0,20}",
        // fio's arithmetic and its built-in variables
        "[a-z_]{1,10}=\\(?[0-9*+/%^() -]{0,16}\\)?[kKmMgG]?",
        "[a-z_]{1,10}=\\$(ncpus|mb_memory|pagesize)[*+/-]?[0-9]{0,4}",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(fuzz())]

    #[test]
    fn fio_job_files_never_panic(lines in proptest::collection::vec(ini_line(), 0..20)) {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("self.fio");
        let text = lines.join("\n");
        std::fs::write(&path, &text).unwrap();
        // ${VAR} values that themselves contain ${...} must not expand recursively
        let env = |v: &str| match v {
            "A" => Some("${A}${A}".to_string()),
            "B" => Some("4k".to_string()),
            "LONG" => Some("x".repeat(4096)),
            _ => None,
        };
        timed("job file", || {
            let _ = fio_ini::parse_str_with(&text, &path, &env);
            let _ = fio_ini::parse_file_with(&path, &env);
        });
        let _ = fio_ini::strip_comment(&text);
    }
}

#[test]
fn self_including_job_file_is_an_error_not_a_stack_overflow() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.fio");
    let b = d.path().join("b.fio");
    std::fs::write(&a, "[global]\ninclude b.fio\n[j]\nrw=read\n").unwrap();
    std::fs::write(&b, "include a.fio\n").unwrap();
    let r = timed("include loop", || fio_ini::parse_file_with(&a, &|_| None));
    let e = r.expect_err("an include loop is an error").to_string();
    assert!(e.contains("a.fio") || e.contains("b.fio"), "{e}");
}

/// Devices given where a job, result or fixture file is expected are refused at once
/// (src/util/input.rs), and endless files are errors after a bounded read, never an
/// exhausted memory.
#[test]
fn endless_inputs_are_refused_after_a_bounded_read() {
    let e = timed("compare /dev/zero", || cmp::load(Path::new("/dev/zero"))).unwrap_err();
    assert!(
        e.contains("is not a regular file (a character device)"),
        "{e}"
    );
    let d = tempfile::tempdir().unwrap();
    // a regular file above the bound (sparse: nothing is written)
    let big = d.path().join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    let e = timed("compare big.json", || cmp::load(&big)).unwrap_err();
    assert!(e.contains("larger than 64.0 MiB"), "{e}");
    // `iomark diagnose --fixture=` of both: tests/it/safety/invalid.rs
}

/// `iomark run /dev/zero` (or a job file that includes it) must be refused after a
/// bounded read or at once (src/job/fio/ini.rs reads job files with
/// `util::input::read_text`), never exhaust memory.
#[test]
fn endless_job_file_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.fio");
    std::fs::write(
        &a,
        "include /dev/zero
",
    )
    .unwrap();
    let r = timed("include /dev/zero", || {
        fio_ini::parse_file_with(&a, &|_| None)
    });
    assert!(r.is_err());
}

// ------------------------------------------------------------------- compare input

fn fixture_json() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare");
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    v.sort();
    assert!(v.len() >= 3, "fixtures in {}", dir.display());
    v
}

/// Mutations of a JSON text: cut, splice junk, replace numbers/strings with hostile ones.
fn mutate(text: &str, at: usize, kind: u8, junk: &str) -> String {
    let at = (0..=at.min(text.len()))
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    match kind % 8 {
        0 => text[..at].to_string(),
        1 => format!("{}{junk}{}", &text[..at], &text[at..]),
        2 => text.replacen(char::is_numeric, "-", 3),
        3 => text
            .replace("\"ops\": ", "\"ops\": -")
            .replace("\"bytes\": ", "\"bytes\": 1e999+"),
        4 => text
            .replace(": 0", ": 18446744073709551616")
            .replace(": 1", ": -1"),
        5 => text.replace(
            "\"schema_version\": 1",
            &format!("\"schema_version\": {}", junk.len()),
        ),
        6 => text.replace('[', "{").replacen('{', "[", 1),
        _ => text
            .replace("\"phases\"", "\"phases_\"")
            .replace("\"status\": \"ok\"", "\"status\": \"running\""),
    }
}

/// fio's own reports (JSON and text, tests/fixtures/fio) for the importer.
fn fio_reports() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio");
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    v.sort();
    v
}

proptest! {
    #![proptest_config(fuzz())]

    /// fio's JSON and text reports, cut, spliced and with hostile numbers, through the
    /// importer (in process): a result or an error, never a panic or a hang.
    #[test]
    fn fio_report_import_never_panics(
        pick in 0usize..64, at in 0usize..200_000, kind in any::<u8>(),
        junk in "[\\[\\]{}\",:0-9a-zA-Z.eE+=%/ -]{0,16}",
    ) {
        let all = fio_reports();
        prop_assume!(!all.is_empty());
        let text = mutate(&all[pick % all.len()], at, kind, &junk);
        let _ = timed("fio import", || crate::result::import::import(&text, "f"));
        let _ = timed("RunResult", || serde_json::from_str::<crate::result::RunResult>(&text));
    }
}

proptest! {
    #![proptest_config(fuzz())]

    #[test]
    fn compare_reader_and_pipeline_never_panic(
        pick in 0usize..64, at in 0usize..200_000, kind in any::<u8>(),
        junk in "[\\[\\]{}\",:0-9a-z.eE+-]{0,12}", raw in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let all = fixture_json();
        let d = tempfile::tempdir().unwrap();
        let good = d.path().join("good.json");
        std::fs::write(&good, &all[pick % all.len()]).unwrap();
        let bad = d.path().join("bad.json");
        if kind % 9 == 8 {
            std::fs::write(&bad, &raw).unwrap();
        } else {
            std::fs::write(&bad, mutate(&all[pick % all.len()], at, kind, &junk)).unwrap();
        }
        let files = vec!["good.json".to_string(), "bad.json".to_string()];
        let loaded: Vec<_> = [&good, &bad].iter().map(|p| timed("load", || cmp::load(p))).collect();
        if let (Ok(a), Ok(b)) = (&loaded[0], &loaded[1]) {
            let results = vec![a.clone(), b.clone()];
            timed("compare", || {
                for r in &results {
                    let _ = cmp::tests_of(r);
                }
                let labels = cmp::labels(&[], &files, &results);
                let c = cmp::compare(&results, &labels, &files);
                for f in [render::Format::Table, render::Format::Markdown, render::Format::Csv, render::Format::Json] {
                    let _ = render::render(&c, f);
                }
            });
        } else if let Err(e) = &loaded[1] {
            prop_assert!(!e.contains('\n') || e.lines().count() <= 2, "{e}");
        }
    }
}

// ------------------------------------------------------------------- diagnose fixtures

fn manifest_line() -> impl Strategy<Value = String> {
    let path = prop_oneof![
        "[a-z0-9:._]{1,8}(/[a-z0-9:._]{1,8}){0,3}",
        "(\\.\\./){1,3}[a-z]{1,6}",
        "/[a-z]{1,6}(/[a-z]{1,6})?",
        "(link|link/x|link/y/z|up/x|abs/x)",
        ".{0,12}",
    ];
    prop_oneof![
        path.clone().prop_map(|p| format!("D {p}")),
        (path.clone(), ".{0,16}").prop_map(|(p, v)| format!("F {p} = {v}")),
        (path.clone(), "\"[a-z\\\\tn\"]{0,10}\"?").prop_map(|(p, v)| format!("R {p} = {v}")),
        (path.clone(), "([0-9a-fA-FxZ]{1,3} ?){0,6}").prop_map(|(p, v)| format!("X {p} = {v}")),
        path.clone().prop_map(|p| format!("M {p}\nline one\n.")),
        path.clone().prop_map(|p| format!("M {p}\nnever closed")),
        (
            path,
            prop::sample::select(vec![
                "..",
                "../..",
                "/",
                "/tmp",
                "sys",
                "../outside",
                "link"
            ])
        )
            .prop_map(|(p, t)| format!("L {p} -> {t}")),
        Just("L link -> ..".to_string()),
        Just("L up -> ../..".to_string()),
        Just("L abs -> /".to_string()),
        ".{0,20}".prop_map(|s| format!("P {s}")),
        ".{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn fixture_manifests_never_panic_and_never_write_outside(
        lines in proptest::collection::vec(manifest_line(), 0..16),
    ) {
        let outer = tempfile::tempdir().unwrap();
        let fx = outer.path().join("fx");
        let text = lines.join("\n");
        timed("fixture", || { let _ = crate::files::fixture::materialize(&text, &fx); });
        // the only entry beside the fixture directory is still nothing
        let names: Vec<String> = std::fs::read_dir(outer.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        prop_assert!(names.iter().all(|n| n == "fx"), "{names:?} after {text:?}");
    }
}
