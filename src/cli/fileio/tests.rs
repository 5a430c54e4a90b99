//! Unit tests of the fileio argv parser.

use super::*;

fn raw(v: &str) -> Parsed {
    let args: Vec<String> = v.split_whitespace().map(String::from).collect();
    parse(&args)
}
fn is_hint(m: &Msg) -> bool {
    m.stream == Stream::Err && m.text.starts_with("iomark: --")
}
/// Parsed without iomark's hint lines: sysbench's messages only.
fn p(v: &str) -> Parsed {
    let mut r = raw(v);
    r.pre.retain(|m| !is_hint(m));
    r.post.retain(|m| !is_hint(m));
    r
}

#[test]
fn a_hint_naming_what_is_accepted_follows_sysbench_messages_on_stderr() {
    let r = raw("--file-test-mode=rndrd --file-io-mode=x run");
    let t: Vec<(Stream, &str)> = r.post.iter().map(|m| (m.stream, m.text.as_str())).collect();
    assert_eq!(
        t[t.len() - 2..],
        [
            (Stream::Out, "FATAL: unknown I/O mode: x"),
            (
                Stream::Err,
                "iomark: --file-io-mode accepts sync, async, mmap"
            ),
        ]
    );
    assert_eq!(code(&r), 2);
    // before the banner too, after sysbench's empty line
    let r = raw("--threads=0 run");
    assert_eq!(
        texts(&r.pre),
        [
            "FATAL: Invalid value for --threads: 0.",
            "",
            "iomark: --threads accepts a whole number from 1 to 1024"
        ]
    );
    // a syntax error: sysbench's stderr line, then the hint
    let r = raw("--file-test-mode=rndrd --file-merged-requests=x run");
    assert_eq!(
        texts(&r.post[r.post.len() - 2..]),
        [
            "Invalid value for the 'file_merged_requests' option: 'x'",
            "iomark: --file-merged-requests accepts a whole number >= 0 (0 = no merging)"
        ]
    );
    // every option with a sysbench message has its own text
    for o in [
        "file-num",
        "file-test-mode",
        "file-io-mode",
        "file-block-size",
        "file-fsync-mode",
        "file-rw-ratio",
        "threads",
        "time",
    ] {
        assert_ne!(table::accepted(o), table::accepted("rand-spec-iter"), "{o}");
    }
}
fn code(p: &Parsed) -> i32 {
    match p.outcome {
        Outcome::Exit(c) => c,
        Outcome::Job(_) => -1,
    }
}
fn texts(m: &[Msg]) -> Vec<&str> {
    m.iter().map(|m| m.text.as_str()).collect()
}

#[test]
fn defaults_are_sysbench_defaults() {
    let r = p("--file-test-mode=rndrw run");
    let Outcome::Job(j) = r.outcome else {
        panic!("no job")
    };
    assert_eq!(
        (j.file_num, j.block_size, j.total_size),
        (128, 16384, 2 << 30)
    );
    assert_eq!((j.fsync_freq, j.fsync_end, j.rw_ratio), (100, true, 1.5));
    assert_eq!(
        (
            j.settings.threads,
            j.time_limit,
            j.event_limit,
            j.settings.percentile
        ),
        (1, 10, 0, 95)
    );
    assert_eq!(j.io_mode, IoMode::Sync);
    assert_eq!(j.settings.commands, vec![Command::Run]);
}

#[test]
fn general_errors_come_before_the_banner() {
    let r = p("--threads=0 --file-test-mode=rndrd run");
    assert!(!r.banner);
    assert_eq!(
        texts(&r.pre),
        vec!["FATAL: Invalid value for --threads: 0.", ""]
    );
    assert_eq!(code(&r), 2);
    let r = p("--threads=abc run");
    assert_eq!(r.pre[0].stream, Stream::Err);
    assert_eq!(
        r.pre[0].text,
        "Invalid value for the 'threads' option: 'abc'"
    );
}

#[test]
fn fileio_errors_come_after_the_banner() {
    let r = p("--file-num=abc run");
    assert!(r.banner);
    assert_eq!(
        r.post.last().unwrap().text,
        "Invalid value for the 'file_num' option: 'abc'"
    );
    assert_eq!(r.post.last().unwrap().stream, Stream::Err);
    // iomark's line for a value sysbench would print as another number (bug B18)
    let r = p("--file-block-size=2G prepare");
    assert_eq!(
        r.post.last().unwrap().text,
        "FATAL: Invalid value for file-block-size: 2G is 2147483648 bytes; --file-block-size \
         accepts a size from 1 byte to 2147483647 bytes: digits with an optional K, M or G \
         suffix (binary, e.g. 16K)"
    );
    assert!(matches!(r.outcome, Outcome::Exit(2)));
}

#[test]
fn deprecated_aliases_warn_in_order() {
    let r = p("--max-time=1 --max-requests=1000 --num-threads=2 --file-test-mode=rndrd run");
    assert_eq!(
        texts(&r.pre),
        vec![
            "WARNING: --num-threads is deprecated, use --threads instead",
            "WARNING: --max-requests is deprecated, use --events instead",
            "WARNING: --max-time is deprecated, use --time instead",
        ]
    );
    let Outcome::Job(j) = r.outcome else { panic!() };
    assert_eq!(
        (j.settings.threads, j.event_limit, j.time_limit),
        (2, 1000, 1)
    );
}

/// sysbench's messages after the banner: `(arguments, last line, exit code)`.
const POST_BANNER_ERRORS: &[(&str, &str, i32)] = &[
    (
        "--file-test-mode=foo run",
        "FATAL: Invalid IO operations mode: foo.",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-io-mode=foo run",
        "FATAL: unknown I/O mode: foo",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-block-size=0 run",
        "FATAL: Invalid value for file-block-size: 0; --file-block-size accepts a size from 1 \
         byte to 2147483647 bytes: digits with an optional K, M or G suffix (binary, e.g. 16K)",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-block-size=4G run",
        "FATAL: Invalid value for file-block-size: 4G is 4294967296 bytes; --file-block-size \
         accepts a size from 1 byte to 2147483647 bytes: digits with an optional K, M or G \
         suffix (binary, e.g. 16K)",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-num=0 run",
        "FATAL: Invalid value for file-num: 0",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-num= run",
        "FATAL: Invalid value for file-num: 0",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-total-size=1.5G run",
        "FATAL: Invalid value for file-total-size: \"1.5G\" is not a size; --file-total-size \
         accepts a size from 1 byte to 8 EiB: digits with an optional K, M, G or T suffix \
         (binary, e.g. 64M)",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-fsync-freq=-1 run",
        "FATAL: Invalid value for file-fsync-freq: -1.",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-merged-requests=-1 run",
        "FATAL: Invalid value for file-merged-requests: -1.",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-rw-ratio=-1 run",
        "FATAL: Invalid value for --file-rw-ratio: -1.000000.",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-fsync-mode=foo run",
        "FATAL: Invalid fsync mode: foo.",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-extra-flags=foo run",
        "FATAL: Invalid value for file-extra-flags: foo",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-io-mode=async --file-async-backlog=0 run",
        "FATAL: Invalid value of file-async-backlog: 0",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-fsync-all=maybe run",
        "invalid option: --file-fsync-all=maybe",
        2,
    ),
    (
        "--file-test-mode=rndrd --file-foo=1 run",
        "invalid option: --file-foo=1",
        2,
    ),
    (
        "--file-test-mode=rndrd --warmup-time=5 run",
        "invalid option: --warmup-time=5",
        2,
    ),
    (
        "--file-test-mode=rndrd --validate=maybe run",
        "invalid option: --validate=maybe",
        2,
    ),
    ("--file-test-mode=rndrd foo", "Unknown command: foo", 2),
];

/// sysbench's messages before the banner (exit 1): `(arguments, last line)`.
const PRE_BANNER_ERRORS: &[(&str, &str)] = &[
    (
        "--percentile=101 run",
        "FATAL: Invalid value for --percentile: 101",
    ),
    (
        "--percentile=0 --histogram run",
        "FATAL: --histogram cannot be used with --percentile=0",
    ),
    (
        "--rand-type=foo run",
        "FATAL: Invalid random numbers distribution: foo.",
    ),
    (
        "--forced-shutdown=abc run",
        "FATAL: Invalid value for --forced-shutdown: 'abc'",
    ),
    ("--verbosity=6 run", "Invalid value for verbosity: 6"),
];

#[test]
fn sysbench_error_catalogue() {
    for (args, msg, c) in POST_BANNER_ERRORS {
        let r = p(args);
        assert_eq!(r.post.last().map(|m| m.text.as_str()), Some(*msg), "{args}");
        assert_eq!(code(&r), *c, "{args}");
    }
    for (args, msg) in PRE_BANNER_ERRORS {
        let r = p(args);
        assert!(!r.banner, "{args}");
        assert_eq!(r.pre.last().map(|m| m.text.as_str()), Some(*msg), "{args}");
        assert_eq!(code(&r), 2);
    }
}

#[test]
fn missing_mode_prints_the_option_list() {
    let r = p("--file-total-size=64M run");
    let t = texts(&r.post);
    assert_eq!(t[2], "FATAL: Missing required argument: --file-test-mode");
    assert_eq!(t[4], "fileio options:");
    assert_eq!(code(&r), 2);
}

#[test]
fn b1_negative_file_num_rejected() {
    let r = p("--file-num=-1 prepare");
    assert!(r
        .post
        .last()
        .unwrap()
        .text
        .starts_with("FATAL: Invalid value for file-num: -1"));
    assert_eq!(code(&r), 2);
}

#[test]
fn b3_direct_with_sync_is_accepted() {
    let r = p("--file-extra-flags=direct,sync,dsync prepare");
    let Outcome::Job(j) = r.outcome else { panic!() };
    assert!(j.extra_flags.direct && j.extra_flags.sync && j.extra_flags.dsync);
}

#[test]
fn b7_negative_async_backlog_rejected() {
    let r = p("--file-test-mode=rndrd --file-io-mode=async --file-async-backlog=-1 run");
    assert!(r
        .post
        .last()
        .unwrap()
        .text
        .contains("must be between 1 and 32768"));
    assert_eq!(code(&r), 2);
}

#[test]
fn b8_bad_extra_flag_is_named() {
    let r = p("--file-extra-flags=sync,foo prepare");
    assert_eq!(
        r.post.last().unwrap().text,
        "FATAL: Invalid value for file-extra-flags: foo"
    );
}

#[test]
fn b9_empty_fsync_mode_is_an_error() {
    let r = p("--file-fsync-mode= prepare");
    assert!(r
        .post
        .last()
        .unwrap()
        .text
        .contains("accepted: fsync, fdatasync"));
    assert_eq!(code(&r), 2);
}

#[test]
fn b10_rw_ratio_garbage_and_nan_rejected() {
    for v in ["abc", "2x", "nan", ""] {
        let r = p(&format!("--file-rw-ratio={v} prepare"));
        assert_eq!(code(&r), 2, "{v}");
    }
    let r = p("--file-rw-ratio=inf prepare");
    assert!(matches!(r.outcome, Outcome::Job(_)));
}

#[test]
fn b13_negative_limits_rejected() {
    for o in [
        "--threads=-1",
        "--time=-1",
        "--events=-5",
        "--rate=-1",
        "--report-interval=-1",
    ] {
        let r = p(&format!("{o} --file-test-mode=rndrd run"));
        assert!(!r.banner, "{o}");
        assert_ne!(code(&r), 0, "{o}");
    }
}

#[test]
fn positional_rules() {
    let r = p("--file-total-size 64M run");
    assert_eq!(
        texts(&r.pre),
        vec!["Unrecognized command line argument: run"]
    );
    assert!(!r.banner);
    let r = p("--file-test-mode=rndrd prepare run cleanup");
    let Outcome::Job(j) = r.outcome else { panic!() };
    assert_eq!(
        j.settings.commands,
        vec![Command::Prepare, Command::Run, Command::Cleanup]
    );
    let r = p("prepare bogus");
    assert_eq!(
        texts(&r.pre),
        vec!["Unrecognized command line argument: bogus"]
    );
    let r = p("--file-num=4");
    assert!(r
        .post
        .last()
        .unwrap()
        .text
        .starts_with("The 'fileio' test requires a command argument"));
}

#[test]
fn fsync_all_disables_periodic_and_end() {
    let r = p("--file-fsync-all --file-test-mode=rndwr run");
    let Outcome::Job(j) = r.outcome else { panic!() };
    assert_eq!((j.fsync_freq, j.fsync_end, j.fsync_all), (0, false, true));
}

#[test]
fn forced_shutdown_forms() {
    let get = |s: &str| {
        let Outcome::Job(j) = p(&format!("--time=20 {s} prepare")).outcome else {
            panic!()
        };
        j.settings.forced_shutdown
    };
    assert_eq!(get("--forced-shutdown=off"), None);
    assert_eq!(get("--forced-shutdown=OFF"), None);
    assert_eq!(get("--forced-shutdown=3"), Some(3));
    assert_eq!(get("--forced-shutdown=50%"), Some(10));
    assert_eq!(get("--forced-shutdown="), Some(1));
}

#[test]
fn geometry_errors_exit_2_after_banner() {
    let r = p("--file-num=1 --file-total-size=8K prepare");
    assert!(r
        .post
        .last()
        .unwrap()
        .text
        .contains("smaller than --file-block-size=16384"));
    assert_eq!(code(&r), 2);
    let r = p("--file-total-size=100 run --file-test-mode=rndrd");
    assert_eq!(code(&r), 2);
}

/// A sysbench-style command line keeps its options and commands in the result's argv
/// without the test word, so a kept result reads `iomark fileio …` once.
#[test]
fn the_kept_argv_has_no_test_word() {
    let j = |v: &str| match raw(v).outcome {
        Outcome::Job(j) => j.settings.argv,
        Outcome::Exit(c) => panic!("{v}: exit {c}"),
    };
    assert_eq!(
        j("--threads=2 fileio --file-total-size=16M prepare"),
        ["--threads=2", "--file-total-size=16M", "prepare"]
    );
    assert_eq!(
        j("--test=fileio --file-total-size=16M prepare"),
        ["--file-total-size=16M", "prepare"]
    );
    assert_eq!(
        j("--file-total-size=16M prepare"),
        ["--file-total-size=16M", "prepare"]
    );
}

/// With no command, sysbench's hint names sysbench's own `help`; iomark's names its.
#[test]
fn the_missing_command_hint_names_the_program() {
    let r = raw("--file-total-size=16M");
    assert!(
        r.post
            .iter()
            .any(|m| m.text
                == "The 'fileio' test requires a command argument. See 'iomark fileio help'"),
        "{:?}",
        r.post
    );
}

/// A job's messages and run are printed at the job's own `verbosity` (the one field the
/// run reads); a parse that stopped before its job prints at the `--verbosity` it read.
#[test]
fn the_verbosity_in_force_is_the_jobs_own() {
    for (args, want) in [
        ("--verbosity=4 --file-test-mode=rndrd run", 4),
        ("--verbosity=0 --file-test-mode=rndrd run", 0),
        ("--debug=on --verbosity=1 --file-test-mode=rndrd run", 5),
        ("--file-test-mode=rndrd run", 3),
    ] {
        let r = p(args);
        let Outcome::Job(j) = &r.outcome else {
            panic!("{args}: no job")
        };
        assert_eq!((j.verbosity, r.verbosity()), (want, want), "{args}");
    }
    let r = p("--verbosity=1 --file-test-mode=bogus run");
    assert_eq!((code(&r), r.verbosity()), (2, 1));
}
