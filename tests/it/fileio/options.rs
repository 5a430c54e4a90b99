//! Behaviour added after the first user trial: sysbench-style argv before `fileio`,
//! cleanup after an interrupted `prepare run cleanup`, `--json` checks, JSON details.

use crate::util::*;

#[test]
fn general_options_before_the_test_name_are_accepted() {
    let d = scratch();
    let args = [
        "--threads=2",
        "fileio",
        "--file-num=2",
        "--file-total-size=1M",
        "--file-test-mode=rndrd",
        "--events=20",
        "--time=0",
        "--notes=off",
        "prepare",
        "run",
        "cleanup",
    ];
    let out = Iomark::new().dir(d.path()).args(args).run();
    let stdout = &out.stdout;
    assert_eq!(out.code, 0, "{stdout}");
    assert!(stdout.contains("Number of threads: 2"), "{stdout}");
    // deprecated --test=fileio selects the test too, with sysbench's warning on stderr
    let out = Iomark::new()
        .dir(d.path())
        .args([
            "--test=fileio",
            "--file-num=2",
            "--file-total-size=1M",
            "cleanup",
        ])
        .run();
    assert_eq!(out.code, 0);
    assert!(out.stderr.contains("the --test option is deprecated"));
    assert!(out.stdout.contains("Removing test files..."));
}

#[test]
fn interrupted_prepare_run_cleanup_still_cleans_up() {
    let d = scratch();
    let mut child = Iomark::new()
        .dir(d.path())
        .args([
            "fileio",
            "--file-num=4",
            "--file-total-size=8M",
            "--file-test-mode=rndrd",
            "--time=30",
            "--notes=off",
            "prepare",
            "run",
            "cleanup",
        ])
        .fault("read:stop@300")
        .spawn();
    // mid-run, after prepare
    signal_at_stop(&mut child, libc::SIGINT);
    let out = finish(child);
    let stdout = &out.stdout;
    assert_eq!(out.code, 130, "{stdout}");
    assert!(stdout.contains("total number of events:"), "{stdout}");
    assert!(stdout.contains("Removing test files..."), "{stdout}");
    assert!(entries(d.path()).is_empty(), "{:?}", entries(d.path()));
}

#[test]
fn json_path_is_checked_before_prepare_writes_anything() {
    let d = scratch();
    let r = fileio(
        d.path(),
        &[
            "--file-num=2",
            "--file-total-size=1M",
            "--file-test-mode=rndrd",
            "--json=/nonexistent-dir/r.json",
            "prepare",
            "run",
        ],
    );
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("cannot write --json=/nonexistent-dir/r.json"),
        "{}",
        r.stdout
    );
    assert!(entries(d.path()).is_empty(), "{:?}", entries(d.path()));
    // --json without run: a warning, no file
    let r = fileio(
        d.path(),
        &[
            "--file-num=2",
            "--file-total-size=1M",
            "--json=r.json",
            "prepare",
        ],
    );
    assert_eq!(r.code, 0);
    assert!(
        r.stderr.contains("--json writes the result of 'run'"),
        "{}",
        r.stderr
    );
    assert!(!d.path().join("r.json").exists());
}

#[test]
fn json_records_the_seed_used_the_interval_percentile_and_exact_kind_latency() {
    let d = scratch();
    fileio(
        d.path(),
        &["--file-num=2", "--file-total-size=4M", "prepare"],
    )
    .ok();
    fileio(
        d.path(),
        &[
            "--file-num=2",
            "--file-total-size=4M",
            "--file-test-mode=rndrw",
            "--time=2",
            "--report-interval=1",
            "--percentile=99",
            "--notes=off",
            "--json=r.json",
            "run",
        ],
    )
    .ok();
    let j = read_json(&d.path().join("r.json"));
    assert_eq!(j["job"]["rand_seed"], 0);
    assert!(
        j["job"]["rand_seed_used"].as_u64().unwrap() > 1_000_000_000,
        "time-derived seed recorded"
    );
    assert!(std::path::Path::new(j["job"]["directory"].as_str().unwrap()).is_absolute());
    // the target's diagnosis travels with the result
    assert!(
        j["diagnosis"]["summary"]["filesystem"].is_string(),
        "{}",
        j["diagnosis"]
    );
    assert!(j["diagnosis"]["findings"]
        .as_array()
        .is_some_and(|f| f.iter().any(|x| x == "PAGE_CACHE_FITS")));
    let iv = j["intervals"].as_array().unwrap();
    assert!(!iv.is_empty());
    assert_eq!(iv[0]["percentile"], 99);
    // per-kind max never exceeds the overall max (exact values, not histogram-rounded)
    let all_max = j["lat"]["max_ns"].as_u64().unwrap();
    for k in ["read", "write"] {
        assert!(j[k]["lat"]["max_ns"].as_u64().unwrap() <= all_max);
    }
    let seeded = fileio(
        d.path(),
        &[
            "--file-num=2",
            "--file-total-size=4M",
            "--file-test-mode=rndrd",
            "--events=10",
            "--time=0",
            "--rand-seed=5",
            "--notes=off",
            "--json=s.json",
            "run",
        ],
    )
    .ok();
    assert!(seeded.stdout.contains("from seed (5)"));
    assert_eq!(
        read_json(&d.path().join("s.json"))["job"]["rand_seed_used"],
        5
    );
}

#[test]
fn too_many_threads_is_refused_up_front() {
    let d = scratch();
    let r = fileio(
        d.path(),
        &["--threads=1025", "--file-test-mode=rndrd", "run"],
    );
    assert_eq!(r.code, 2);
    assert!(r.stdout.contains("at most 1024 threads"), "{}", r.stdout);
}

/// `iomark fileio ARGS` in `dir` with extra environment variables.
fn iomark_env(dir: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> Out {
    Iomark::new()
        .dir(dir)
        .envs(env)
        .arg("fileio")
        .args(args)
        .run()
}

#[test]
fn denied_io_uring_is_found_before_prepare_writes_anything() {
    let d = scratch();
    let args = [
        "--file-dir=set",
        "--file-num=2",
        "--file-total-size=1M",
        "--file-test-mode=rndrd",
        "--file-io-mode=async",
        "--json=r.json",
        "--time=1",
        "prepare",
        "run",
        "cleanup",
    ];
    let r = iomark_env(d.path(), &[("IOMARK_TEST_DENY_IO_URING", "1")], &args);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("FATAL: io_uring is unavailable")
            && r.stdout.contains("use --file-io-mode=sync"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("Creating file"), "{}", r.stdout);
    // no --file-dir, no test file, no JSON placeholder
    assert!(entries(d.path()).is_empty(), "{:?}", entries(d.path()));
    // without `run` the I/O mode does not matter: prepare works
    let r = iomark_env(
        d.path(),
        &[("IOMARK_TEST_DENY_IO_URING", "1")],
        &[
            "--file-num=2",
            "--file-total-size=1M",
            "--file-io-mode=async",
            "prepare",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(entries(d.path()), ["test_file.0", "test_file.1"]);
}

#[test]
fn a_failed_run_still_runs_the_requested_cleanup() {
    let d = scratch();
    let r = iomark_env(
        d.path(),
        &[("IOMARK_FAULT", "read:eio@1")],
        &[
            "--file-num=2",
            "--file-total-size=1M",
            "--file-test-mode=rndrd",
            "--time=1",
            "prepare",
            "run",
            "cleanup",
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("Input/output error"), "{}", r.stdout);
    assert!(r.stdout.contains("Removing test files..."), "{}", r.stdout);
    assert!(entries(d.path()).is_empty(), "{:?}", entries(d.path()));
    // invalid input stops everything: an earlier set is kept
    let set = ["--file-num=2", "--file-total-size=1M"];
    assert_eq!(fileio(d.path(), &[&set[..], &["prepare"]].concat()).code, 0);
    let r = fileio(
        d.path(),
        &[
            &set[..],
            &[
                "--file-test-mode=rndrd",
                "--file-rw-ratio=x",
                "run",
                "cleanup",
            ],
        ]
        .concat(),
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(entries(d.path()), ["test_file.0", "test_file.1"]);
}

/// `--verbosity=N` reaches the run's output (the job's own `verbosity`, the one the run
/// reads): side by side with sysbench 1.0.20 (`fileio --file-num=2 --file-total-size=4M
/// --file-test-mode=rndrd --time=1 --verbosity=N run`) levels 0–2 print nothing on
/// stdout, 3 the header and report, 4 adds `Time limit exceeded, exiting...` and `Done.`,
/// 5 adds the `DEBUG:` lines (`DEBUG: Opening file: test_file.0`).
#[test]
fn verbosity_reaches_the_runs_output_as_sysbench_prints_it() {
    let d = scratch();
    let set = ["--file-num=2", "--file-total-size=4M", "--notes=off"];
    let prep = fileio(d.path(), &[&set[..], &["prepare"]].concat());
    assert_eq!(prep.code, 0, "{}", prep.stderr);
    // (level, report shown, the INFO lines shown, the DEBUG lines shown)
    for (level, report, info, debug) in [
        (2, false, false, false),
        (3, true, false, false),
        (4, true, true, false),
        (5, true, true, true),
    ] {
        let v = format!("--verbosity={level}");
        let args = [&set[..], &["--file-test-mode=rndrd", "--time=1", &v, "run"]].concat();
        let out = fileio(d.path(), &args);
        let s = &out.stdout;
        assert_eq!(out.code, 0, "{v}: {}", out.stderr);
        assert_eq!(s.contains("total number of events:"), report, "{v}:\n{s}");
        assert_eq!(
            s.contains("Time limit exceeded, exiting..."),
            info,
            "{v}:\n{s}"
        );
        assert_eq!(s.contains("\nDone.\n"), info, "{v}:\n{s}");
        assert_eq!(
            s.contains("DEBUG: Opening file: test_file.0"),
            debug,
            "{v}:\n{s}"
        );
        if level < 3 {
            assert_eq!(s, "", "{v}: sysbench prints nothing on stdout");
        }
    }
}
