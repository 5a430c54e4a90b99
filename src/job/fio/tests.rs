//! Unit tests of the fio front end: the command-line and job-file parser (value and
//! flag forms as fio 3.33 takes them, `include` and `${VAR}`, missing values, fio's
//! front-end options, refused output formats) and the value parsers with their
//! messages; `props` throws random input at them. tests/it/run/ runs the same forms
//! through the binary.

use super::*;
use std::time::Duration;

mod props;

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn parse(v: &[&str]) -> Result<FioCommand, FioError> {
    parse_args_with(&args(v), &no_env)
}

#[test]
fn sizes_and_ranges_use_fio_units() {
    assert_eq!(parse_size("4k", 1024), Ok(4096));
    assert_eq!(parse_size("1MiB", 1000), Ok(1_048_576));
    assert_eq!(parse_size("1MiB", 1024), Ok(1_000_000));
    assert_eq!(parse_size("2g", 1024), Ok(2 << 30));
    assert_eq!(parse_range("4k-16k", 1024), Ok((4096, 16384)));
    assert_eq!(parse_range("16k:4k", 1024), Ok((4096, 16384)));
    assert!(parse_size("4x", 1024).unwrap_err().contains("unknown unit"));
}

#[test]
fn bssplit_is_fios_reading_and_iomark_run_wants_weights_that_add_up() {
    assert_eq!(
        parse_bssplit_dir("4k/10:64k/50:32k/40", 1024),
        Ok(vec![(4096, 10), (65536, 50), (32768, 40)])
    );
    // fio's reading (the persona): weights need not add up
    assert_eq!(
        parse_bssplit_dir("4k/10:64k/50", 1024),
        Ok(vec![(4096, 10), (65536, 50)])
    );
    assert_eq!(
        parse_bssplit_dir("4k/50:8k/:16k/", 1024),
        Ok(vec![(4096, 50), (8192, 25), (16384, 25)])
    );
    // `iomark run`: the weights given must leave a share or sum to 100
    let refused = |split: &str| {
        parse_args_with(
            &args(&["--name=a", "--size=1m", &format!("--bssplit={split}")]),
            &no_env,
        )
        .unwrap_err()
        .to_string()
    };
    for (split, sum) in [
        ("4k/30:8k/30", 60),
        ("4k/50:64k/60", 110),
        ("4k/60:8k/60:16k:32k", 120),
    ] {
        assert_eq!(
            refused(split),
            format!(
                "command line: invalid value '{split}' for option 'bssplit': \
                 weights sum to {sum}, must be 100"
            )
        );
    }
    let ok = |split: &str| {
        parse_args_with(
            &args(&["--name=a", "--size=1m", &format!("--bssplit={split}")]),
            &no_env,
        )
        .is_ok()
    };
    assert!(ok("4k/50:8k/:16k") && ok("4k:8k:16k") && ok("4k/30:8k/70"));
}

/// `--reap-spin` (iomark's own): default 5 µs on every job, a plain number is µs,
/// `0` turns it off, and it applies to every job wherever it stands.
#[test]
fn reap_spin_defaults_to_5us_and_applies_to_every_job() {
    let spin = |a: &[&str]| -> Vec<u64> {
        parse_args_with(&args(a), &no_env)
            .unwrap()
            .jobs
            .iter()
            .map(|j| j.reap_spin_ns)
            .collect()
    };
    assert_eq!(
        spin(&["--size=1m", "--name=a", "--name=b"]),
        vec![5_000, 5_000]
    );
    assert_eq!(
        spin(&["--size=1m", "--name=a", "--name=b", "--reap-spin=12"]),
        vec![12_000, 12_000]
    );
    assert_eq!(spin(&["--reap-spin=0", "--name=a", "--size=1m"]), vec![0]);
    assert_eq!(
        spin(&["--reap-spin=800ns", "--name=a", "--size=1m"]),
        vec![800]
    );
}

#[test]
fn command_line_globals_and_jobs() {
    let c = parse_args_with(
        &args(&[
            "--bs=8k",
            "--size=1m",
            "--name=a",
            "--rw=randread",
            "--name=b",
            "--rw=randrw:4",
            "--rwmixwrite=30",
            "--bs=4k,16k",
            "--ioengine=libaio",
            "--runtime=500ms",
            "--time_based",
            "--output-format=json",
        ]),
        &no_env,
    )
    .unwrap();
    assert_eq!(c.jobs.len(), 2);
    assert_eq!(c.jobs[0].name, "a");
    assert_eq!(c.jobs[0].bs_read, BlockSizes::Fixed(8192));
    assert_eq!(c.jobs[0].rw, RwMode::RandRead);
    assert_eq!(c.jobs[1].rw, RwMode::RandRw);
    assert_eq!(c.jobs[1].rw_suffix, 4);
    assert_eq!(c.jobs[1].rwmixread, 70);
    assert_eq!(c.jobs[1].bs_read, BlockSizes::Fixed(4096));
    assert_eq!(c.jobs[1].bs_write, BlockSizes::Fixed(16384));
    assert_eq!(c.jobs[1].engine, EngineKind::Libaio);
    assert_eq!(c.jobs[1].runtime, Some(Duration::from_millis(500)));
    assert_eq!(c.jobs[1].size, Some(SizeSpec::Bytes(1 << 20)));
    assert_eq!(c.output_format, OutputFormat::JSON);
    // libaio is libaio: no substitution note
    assert!(c.notices.is_empty(), "{:?}", c.notices);
}

/// fio 3.33 adds a command-line job when the next `--name` comes (the last one after
/// every option) and prints its section line then if the output format is still
/// `normal`, into `--output` when that came before: before a JSON or terse report, the
/// section lines of the jobs added so (`fio --name=a --name=b --output-format=json`
/// starts with a's line; with `--output-format=json` first, with none).
#[test]
fn command_line_jobs_added_under_the_normal_format_print_their_line_early() {
    let early = |v: &[&str]| -> Vec<bool> {
        parse(v)
            .unwrap()
            .jobs
            .iter()
            .map(|j| j.early_header)
            .collect()
    };
    let ab = ["--name=a", "--name=b", "--name=c"];
    let fmt = |f: &'static str, at: usize| {
        let mut v: Vec<&str> = ab.to_vec();
        v.insert(at, f);
        v
    };
    assert_eq!(early(&fmt("--output-format=json", 3)), [true, true, false]);
    assert_eq!(
        early(&fmt("--output-format=json", 0)),
        [false, false, false]
    );
    assert_eq!(early(&fmt("--output-format=json", 2)), [true, false, false]);
    assert_eq!(early(&fmt("--minimal", 3)), [true, true, false]);
    // --output after the jobs: fio printed the lines on stdout, not in the report
    let mut v = fmt("--output-format=json", 3);
    v.push("--output=o.json");
    assert_eq!(early(&v), [false, false, false]);
    // … on stdout, where iomark prints them too
    let on_stdout: Vec<bool> = parse(&v)
        .unwrap()
        .jobs
        .iter()
        .map(|j| j.early_stdout)
        .collect();
    assert_eq!(on_stdout, [true, true, false]);
    let mut v = fmt("--output-format=json", 3);
    v.insert(0, "--output=o.json");
    assert_eq!(early(&v), [true, true, false]);
    let mut v = fmt("--output-format=json", 3);
    v.push("--parse-only");
    assert_eq!(early(&v), [false, false, false]);
}

#[test]
fn time_based_without_runtime_is_dropped_with_fios_line_per_job() {
    let c = parse(&[
        "--size=64k",
        "--time_based",
        "--name=a",
        "--name=b",
        "--runtime=1",
    ])
    .unwrap();
    assert!(!c.jobs[0].time_based && c.jobs[1].time_based);
    assert_eq!(c.fio_stderr, [finish::TIME_BASED_WITHOUT_RUNTIME]);
    let c = parse(&["--size=64k", "--time_based", "--name=a", "--name=b"]).unwrap();
    assert_eq!(
        c.fio_stderr.len(),
        2,
        "one line per job, as fio's fixup of each job"
    );
    // dropped before the amount check: null with neither size nor runtime is refused
    let e = parse(&["--name=a", "--ioengine=null", "--time_based"]).unwrap_err();
    assert!(e.to_string().contains("ioengine=null needs size="), "{e}");
}

#[test]
fn job_file_include_env_and_errors() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("inc")).unwrap();
    std::fs::write(
        d.path().join("inc/common.fio"),
        "[global]\nbs=${MYBS} ; from env\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("job.fio"),
        "# top\ninclude inc/common.fio\n[j1]\nrw=write\nsize=64k\nnumjobs=2\t; two\n",
    )
    .unwrap();
    let env = |v: &str| (v == "MYBS").then(|| "16k".to_string());
    let f = d.path().join("job.fio").display().to_string();
    let c = parse_args_with(std::slice::from_ref(&f), &env).unwrap();
    assert_eq!(c.jobs.len(), 1);
    assert_eq!(c.jobs[0].bs_write, BlockSizes::Fixed(16384));
    assert_eq!(c.jobs[0].numjobs, 2);
    // unset variable: names the variable, file and line
    let e = parse_args_with(std::slice::from_ref(&f), &no_env)
        .unwrap_err()
        .to_string();
    assert!(e.contains("${MYBS} is not set"), "{e}");
    assert!(e.contains("common.fio:2"), "{e}");
    // unknown key: names it with file:line
    std::fs::write(d.path().join("bad.fio"), "[a]\nsize=1m\nverify_fancy=1\n").unwrap();
    let e =
        parse_args_with(&[d.path().join("bad.fio").display().to_string()], &no_env).unwrap_err();
    assert!(matches!(e, FioError::UnsupportedKey { .. }));
    assert!(
        e.to_string()
            .ends_with("bad.fio:3: option 'verify_fancy' is not supported by iomark"),
        "{e}"
    );
    // unknown engine
    let e = parse_args_with(
        &args(&["--name=a", "--size=1m", "--ioengine=rdma"]),
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("ioengine 'rdma' is not supported by iomark"),
        "{e}"
    );
    // circular include
    std::fs::write(d.path().join("c1.fio"), "include c2.fio\n").unwrap();
    std::fs::write(d.path().join("c2.fio"), "include c1.fio\n").unwrap();
    let e = parse_args_with(&[d.path().join("c1.fio").display().to_string()], &no_env)
        .unwrap_err()
        .to_string();
    assert!(e.contains("circular include"), "{e}");
}

#[test]
fn arithmetic_and_fios_keywords_in_values() {
    let d = tempfile::tempdir().unwrap();
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
    let mb = (unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) } as u64 * page) >> 20;
    let cpus = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) } as u32;
    let job = |name: &str, body: &str| {
        let p = d.path().join(name);
        std::fs::write(&p, body).unwrap();
        parse_args_with(&[p.display().to_string()], &no_env)
    };
    let c = job(
        "k.fio",
        "[global]\nsize=5*1024*1024*$mb_memory/8 # 5/8 of the memory\nbs=$pagesize\n[a]\nnumjobs=$ncpus\n[b]\nsize=8*1024*$pagesize\n[c]\nsize=(2*(3+1)k)\nruntime=(1m+30s)\nnumjobs=(1+1)\n",
    )
    .unwrap();
    let j = &c.jobs;
    assert_eq!(j[0].size, Some(SizeSpec::Bytes(5 * 1024 * 1024 * mb / 8)));
    assert_eq!(j[0].bs_read, BlockSizes::Fixed(page));
    assert_eq!(j[0].numjobs, cpus);
    assert_eq!(j[1].size, Some(SizeSpec::Bytes(8 * 1024 * page)));
    assert_eq!(j[2].size, Some(SizeSpec::Bytes(8192)));
    assert_eq!(j[2].runtime, Some(Duration::from_secs(90)));
    assert_eq!(j[2].numjobs, 2);
    // JSON's job options show the computed value, as fio's (its dump list)
    assert!(j[1]
        .options
        .contains(&("size".into(), (8 * 1024 * page).to_string())));
    // division by zero: one line naming the option
    for body in ["[a]\nsize=(4k/0)\n", "[a]\nsize=$pagesize/0\n"] {
        let e = job("z.fio", body).unwrap_err().to_string();
        assert!(
            e.contains("'size'") && e.contains("division by zero"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
    }
    // fractions of a second are refused as elsewhere
    let e = job("t.fio", "[a]\nsize=1m\nruntime=(1500ms)\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'runtime'") && e.contains("whole number of seconds"),
        "{e}"
    );
    // keywords are job-file words (fio replaces them there only); '(' works everywhere
    let c = parse(&["--name=a", "--size=(64*1k)"]).unwrap();
    assert_eq!(c.jobs[0].size, Some(SizeSpec::Bytes(65536)));
}

#[test]
fn value_keys_take_the_next_word_like_fio() {
    let c = parse(&[
        "--name",
        "j",
        "--bs",
        "8k",
        "--filename",
        "jobish",
        "--size",
        "1m",
        "--iodepth",
        "4",
        "--reap-spin",
        "5us",
    ])
    .unwrap();
    let j = &c.jobs[0];
    assert_eq!(j.name, "j");
    assert_eq!(j.filename.as_deref(), Some("jobish"));
    assert_eq!(j.iodepth, 4);
    assert_eq!(j.reap_spin_ns, 5_000);
    assert_eq!(j.size, Some(SizeSpec::Bytes(1 << 20)));
    assert_eq!(c.jobs.len(), 1, "no word was taken as a job file");
}

#[test]
fn flag_keys_do_not_take_the_next_word() {
    // fio: `--time_based 1` reads job file `1`
    let e = parse(&[
        "--name=j",
        "--size=1m",
        "--runtime=1",
        "--time_based",
        "nosuch.fio",
    ])
    .unwrap_err()
    .to_string();
    assert!(e.contains("nosuch.fio"), "{e}");
    let e = parse(&["--name=j", "--size=1m", "--group_reporting", "1"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("'1'") || e.contains(" 1"), "{e}");
    // a bare flag before another option still works
    let c = parse(&[
        "--name=j",
        "--size=1m",
        "--engine-strict",
        "--norandommap",
        "--rw=randread",
    ])
    .unwrap();
    assert!(c.engine_strict);
    assert!(c.jobs[0].norandommap);
}

#[test]
fn boolean_keys_take_the_next_word_as_getopt_does() {
    // fio: `--direct 1` is direct=1 (FIO_OPT_BOOL takes the next word)
    let c = parse(&["--name=j", "--size=1m", "--direct", "0"]).unwrap();
    assert!(!c.jobs[0].direct);
    let c = parse(&["--name=j", "--size=1m", "--direct", "1"]).unwrap();
    assert!(c.jobs[0].direct);
    let e = parse(&["--name=j", "--size=1m", "--direct", "nosuch.fio"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("nosuch.fio"), "{e}");
}

/// A boolean or "set" key's value is fio 3.33's `int` of it (parse.c `check_int`): any
/// number a "set" key takes, 0 off and any other on, the C `int` wrapping
/// (`4294967296` is 0); a boolean's number above 1 is refused, a negative one (also
/// `4294967295`, -1) on; words fio cannot read as a number are refused under the fio
/// persona, taken by `iomark run`.
#[test]
fn boolean_keys_read_a_number_as_fio_does() {
    let job = |extra: &[&str]| {
        let mut a = vec!["--name=j", "--size=1m", "--runtime=1"];
        a.extend_from_slice(extra);
        parse_args_as(&args(&a), &no_env, true).map(|c| c.jobs[0].clone())
    };
    let j = job(&["--time_based=50", "--group_reporting=2", "--thread=0x10"]).unwrap();
    assert!(j.time_based && j.group_reporting && j.thread);
    let j = job(&["--time_based=4294967296", "--group_reporting=0"]).unwrap();
    assert!(!j.time_based && !j.group_reporting);
    assert!(job(&["--direct=4294967295"]).unwrap().direct);
    assert!(!job(&["--direct=4294967296"]).unwrap().direct);
    assert!(job(&["--direct=1k"]).unwrap().direct);
    // `buffered` is fio's negated `direct`
    assert!(job(&["--buffered=7k"]).is_err());
    assert!(!job(&["--buffered=-1"]).unwrap().direct);
    for refused in [
        "--direct=2",
        "--direct=0x3",
        "--direct=4294967298",
        "--direct=yes",
        "--time_based=on",
        "--thread=true",
    ] {
        assert!(job(&[refused]).is_err(), "{refused}");
    }
    // `iomark run` also takes the words
    let c = parse(&["--name=j", "--size=1m", "--direct=yes", "--thread=true"]).unwrap();
    assert!(c.jobs[0].direct && c.jobs[0].thread);
}

#[test]
fn a_missing_value_names_the_key_as_getopt_does() {
    for (a, word) in [
        (&["--name=j", "--size=1m", "--bs"][..], "--bs"),
        (&["--name=j", "--size=1m", "--reap-spin"][..], "--reap-spin"),
        (&["--name"][..], "--name"),
    ] {
        let e = parse(a).unwrap_err();
        assert!(matches!(e, FioError::NeedsValue(_)), "{a:?}: {e:?}");
        let want = format!("option '{word}' requires an argument ({word}=VALUE)");
        assert!(e.to_string().ends_with(&want), "{a:?}: {e}");
    }
    // a next word that is another option is the value (getopt), refused by its parser
    let e = parse(&["--name=j", "--size=1m", "--iodepth", "--rw=read"]).unwrap_err();
    assert!(e.to_string().contains("--rw=read"), "{e}");
}

#[test]
fn own_options_keep_their_specific_missing_value_message() {
    let e = parse(&["--name=j", "--size=1m", "--json"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("--json needs a file name (--json=FILE)"), "{e}");
    // fio's own `--output` is getopt's, as fio's
    let e = parse(&["--name=j", "--size=1m", "--output"]).unwrap_err();
    assert!(matches!(e, FioError::NeedsValue(_)), "{e:?}");
    let c = parse(&["--name=j", "--size=1m", "--output", "r.txt"]).unwrap();
    assert_eq!(c.output.as_deref(), Some(std::path::Path::new("r.txt")));
}

#[test]
fn time_unit_message_lists_ns() {
    let e = parse_time("5q", 1).unwrap_err();
    assert!(e.contains("ns, us, ms"), "{e}");
}

#[test]
fn eta_options_are_accepted_and_checked() {
    for ok in [
        "--eta=never",
        "--eta=always",
        "--eta=auto",
        "--eta-newline=1",
        "--eta-newline=500ms",
        "--eta-interval=250",
    ] {
        let c = parse(&[ok, "--name=j", "--size=64k"]);
        assert!(c.is_ok(), "{ok}: {c:?}");
    }
    // `--eta never` (getopt form) takes the next word as fio does
    let c = parse(&["--eta", "never", "--name=j", "--size=64k"]).unwrap();
    assert_eq!(c.jobs.len(), 1);
    let e = parse(&["--eta=sometimes", "--name=j", "--size=64k"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'eta'") && e.contains("never, always, auto"),
        "{e}"
    );
    // fio 3.33: "failed parsing eta interval x"
    let e = parse(&["--eta-interval=x", "--name=j", "--size=64k"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("eta-interval") && e.contains("'x'"), "{e}");
}

/// The values the status line runs with: fio 3.33 reads a plain number as seconds for
/// both times (`--eta-interval=2` refreshes every 2 s), and refuses an interval under
/// 250 ms and a new-line period under 1 ms.
#[test]
fn eta_options_keep_their_values() {
    use crate::job::fio::EtaWhen;
    use std::time::Duration;
    let c = parse(&["--name=j", "--size=64k"]).unwrap();
    assert_eq!(c.eta.when, EtaWhen::Auto);
    assert_eq!(c.eta.interval, Duration::from_secs(1));
    assert_eq!(c.eta.newline, None);
    let c = parse(&[
        "--eta=always",
        "--eta-interval=2",
        "--eta-newline=500ms",
        "--name=j",
        "--size=64k",
    ])
    .unwrap();
    assert_eq!(c.eta.when, EtaWhen::Always);
    assert_eq!(c.eta.interval, Duration::from_secs(2));
    assert_eq!(c.eta.newline, Some(Duration::from_millis(500)));
    assert_eq!(
        parse(&["--eta=never", "--name=j", "--size=64k"])
            .unwrap()
            .eta
            .when,
        EtaWhen::Never
    );
    for bad in ["--eta-interval=100ms", "--eta-newline=10us"] {
        let e = parse(&[bad, "--name=j", "--size=64k"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least"), "{bad}: {e}");
    }
}

/// `size=0` is unset, as in fio (tests/it/run/cli_forms.rs runs it: the file's own size).
#[test]
fn size_zero_is_unset_as_in_fio() {
    let c = parse(&["--name=j", "--filename=f", "--size=0"]).unwrap();
    assert_eq!(c.jobs[0].size, None);
}

/// io_uring's ring limit is checked when the job is parsed (tests/it/run/cli_forms.rs:
/// the binary refuses it, exit 2, before any ring is set up).
#[test]
fn io_uring_iodepth_above_the_ring_limit_is_refused_up_front() {
    assert_eq!(IORING_MAX_ENTRIES, 32_768);
    let ok = parse(&[
        "--name=j",
        "--size=1m",
        "--ioengine=io_uring",
        "--iodepth=32768",
    ]);
    assert!(ok.is_ok());
    let e = parse(&[
        "--name=j",
        "--size=1m",
        "--ioengine=io_uring",
        "--iodepth=65536",
    ])
    .unwrap_err()
    .to_string();
    assert!(e.contains("iodepth=65536") && e.contains("32768"), "{e}");
    // other engines keep fio's range
    assert!(parse(&[
        "--name=j",
        "--size=1m",
        "--ioengine=psync",
        "--iodepth=65536"
    ])
    .is_ok());
}

/// `--reap-spin` value forms and their message (tests/it/run/cli_forms.rs: in a job file
/// it is named as a command-line option).
#[test]
fn reap_spin_forms_and_messages() {
    let ns = |v: &str| parse(&["--name=j", "--size=1m", &format!("--reap-spin={v}")]);
    assert_eq!(ns("1.5us").unwrap().jobs[0].reap_spin_ns, 1_500);
    assert_eq!(ns("5ns").unwrap().jobs[0].reap_spin_ns, 5);
    assert_eq!(
        ns("7").unwrap().jobs[0].reap_spin_ns,
        7_000,
        "a plain number is µs"
    );
    assert_eq!(ns("0").unwrap().jobs[0].reap_spin_ns, 0);
    assert_eq!(ns("1ms").unwrap().jobs[0].reap_spin_ns, 1_000_000);
    for bad in ["10s", "2ms", "abc", "5q", "1001us", ""] {
        let e = ns(bad).unwrap_err().to_string();
        assert!(
            e.contains("a time up to 1ms: 5us, 800ns") && e.contains("a plain number is µs"),
            "{bad}: {e}"
        );
        assert!(!e.contains("e.g. 10, 10s"), "{bad}: {e}");
    }
}

/// `--parse-only` takes no value (tests/it/run/cli_forms.rs runs it: nothing printed,
/// parse errors reported).
#[test]
fn parse_only_prints_nothing_and_reports_parse_errors() {
    let e = parse(&["--parse-only=1", "--name=j", "--size=64k"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--parse_only takes no value") || e.contains("--parse-only takes no value"),
        "{e}"
    );
}

/// Terse output in fio's spellings: `--minimal` makes it the only format, a list adds
/// it, `--append-terse` adds it to the others; the last of `--minimal` and
/// `--output-format` decides, as fio's getopt loop does.
#[test]
fn terse_spellings_as_fio() {
    let f = |a: &[&str]| {
        let mut w = a.to_vec();
        w.extend(["--name=j", "--size=64k"]);
        parse(&w).unwrap().output_format
    };
    assert_eq!(f(&["--minimal"]), OutputFormat::TERSE);
    assert_eq!(f(&["--output-format=terse"]), OutputFormat::TERSE);
    let jt = f(&["--output-format=json,terse"]);
    assert!(jt.json && jt.terse && !jt.normal);
    assert_eq!(
        f(&["--minimal", "--output-format=json"]),
        OutputFormat::JSON
    );
    assert_eq!(
        f(&["--output-format=json", "--minimal"]),
        OutputFormat::TERSE
    );
    let nt = f(&["--append-terse"]);
    assert!(nt.normal && nt.terse && !nt.json);
    let v = |a: &str| {
        parse(&[a, "--name=j", "--size=64k"])
            .map(|c| c.fio_cli.terse_version)
            .map_err(|e| e.to_string())
    };
    assert_eq!(v("--terse-version=5"), Ok(5));
    assert_eq!(v("--parse-only"), Ok(3));
    for bad in [
        "--terse-version=1",
        "--terse-version=6",
        "--terse-version=x",
    ] {
        assert!(
            v(bad).unwrap_err().contains("bad terse version format"),
            "{bad}"
        );
    }
}

#[test]
fn lists_parse_as_fio_accepts_them() {
    let p = |s| OutputFormat::parse(s);
    assert_eq!(p("normal"), Ok(OutputFormat::NORMAL));
    assert_eq!(p("json"), Ok(OutputFormat::JSON));
    assert_eq!(p("json+"), Ok(OutputFormat::JSON_PLUS));
    let both = OutputFormat {
        normal: true,
        json: true,
        json_plus: false,
        terse: false,
    };
    assert_eq!(p("normal,json"), Ok(both));
    assert_eq!(p("json,normal"), Ok(both));
    assert_eq!(p("normal,normal"), Ok(OutputFormat::NORMAL));
    assert_eq!(p("json,json+"), Ok(OutputFormat::JSON_PLUS));
    assert_eq!(p("json+,json"), Ok(OutputFormat::JSON_PLUS));
    let plus_text = p("json+,normal").unwrap();
    assert!(plus_text.normal && plus_text.json && plus_text.json_plus);
    // fio 3.33 refuses these too ("invalid output format")
    for bad in [
        "",
        "normal,",
        ",json",
        "normal,,json",
        "NORMAL",
        "normal, json",
        "xml",
    ] {
        let e = p(bad).unwrap_err();
        assert!(e.contains("accepted: normal, json, json+"), "{bad}: {e}");
    }
    assert!(p("normal,xml").unwrap_err().contains("'xml'"));
    assert_eq!(p("terse"), Ok(OutputFormat::TERSE));
    assert_eq!(p("minimal"), p("csv"));
}

/// fio's fixup: a write-only time-based job with verify= and no verify_backlog never
/// reaches its verify phase; the line is printed once per job thread (the report's
/// header) and the phase is dropped. A job that also reads, or has verify_backlog, or
/// no runtime, keeps it.
#[test]
fn time_based_writer_drops_its_verify_phase_with_fios_line() {
    let base = [
        "--size=64k",
        "--verify=crc32c",
        "--time_based",
        "--runtime=1",
    ];
    let c = parse(&[&base[..], &["--name=a", "--rw=write"]].concat()).unwrap();
    assert!(!c.jobs[0].more.do_verify);
    assert_eq!(c.jobs[0].setup_lines, [finish::VERIFY_NEVER_STARTS]);
    for keep in [
        &["--name=a", "--rw=randrw"][..],
        &["--name=a", "--rw=write", "--verify_backlog=4"][..],
        &["--name=a", "--rw=write", "--do_verify=0"][..],
    ] {
        let c = parse(&[&base[..], keep].concat()).unwrap();
        assert!(c.jobs[0].setup_lines.is_empty(), "{keep:?}");
    }
    let c = parse(&["--size=64k", "--verify=crc32c", "--name=a", "--rw=write"]).unwrap();
    assert!(c.jobs[0].more.do_verify && c.jobs[0].setup_lines.is_empty());
}

/// fio's do_io: a time-based reader with verify= reads one pass of its size and ends
/// (no longer time based, io_size and loops dropped); a reader without verify, or a job
/// that also writes, stays time based.
#[test]
fn time_based_verifying_reader_reads_one_pass() {
    let base = ["--size=64k", "--time_based", "--runtime=3", "--name=a"];
    for rw in ["--rw=read", "--rw=randread"] {
        let c = parse(
            &[
                &base[..],
                &[rw, "--verify=md5", "--io_size=1m", "--loops=3"],
            ]
            .concat(),
        )
        .unwrap();
        let j = &c.jobs[0];
        assert!(!j.time_based, "{rw}");
        assert_eq!((j.loops, j.more.io_size), (1, None), "{rw}");
        assert_eq!(j.runtime, Some(std::time::Duration::from_secs(3)), "{rw}");
    }
    for keep in [
        &["--rw=randread"][..],
        &["--rw=randrw", "--verify=md5"][..],
        &["--rw=rw", "--verify=crc32c"][..],
    ] {
        let c = parse(&[&base[..], keep].concat()).unwrap();
        assert!(c.jobs[0].time_based, "{keep:?}");
    }
}

/// verify=pattern has no header (fio 3.33): verify_interval and verify_offset are
/// taken and change nothing (fio's t/verify.py test 2 sets both with a pattern); with a
/// header, an interval that does not divide the block size is fixed up as fio does.
#[test]
fn pattern_verify_takes_interval_and_offset() {
    let base = ["--name=a", "--size=64k", "--bs=4096", "--rw=write"];
    let vi = ["--verify_interval=2048", "--verify_offset=1024"];
    let c = parse(
        &[
            &base[..],
            &vi,
            &["--verify=pattern", "--verify_pattern=0xdeadface"],
        ]
        .concat(),
    );
    assert!(c.is_ok(), "{:?}", c.err());
    let e = parse(&[&base[..], &["--verify=crc32c", "--verify_interval=1536"]].concat());
    assert_eq!(e.unwrap().jobs[0].more.x.verify_interval, Some(4096));
}

/// fio 3.33's `verify_interval` fixup (init.c), case by case: the interval each job
/// verifies with.
#[test]
fn verify_interval_fixup_is_fios() {
    let iv = |extra: &[&str]| {
        let base = ["--name=a", "--size=96k", "--rw=write", "--verify=crc32c"];
        let c = parse(&[&base[..], extra].concat()).unwrap();
        c.jobs[0].more.x.verify_interval
    };
    // divides the block: kept
    assert_eq!(iv(&["--bs=4k", "--verify_interval=1k"]), Some(1024));
    // larger than the write block: the write block
    assert_eq!(iv(&["--bs=4k", "--verify_interval=8k"]), Some(4096));
    // does not divide it: gcd(min, max write block)
    assert_eq!(iv(&["--bs=12k", "--verify_interval=8k"]), Some(12288));
    assert_eq!(
        iv(&["--bsrange=4k-12k", "--verify_interval=3k"]),
        Some(4096)
    );
    assert_eq!(iv(&["--bsrange=4k-12k"]), Some(4096));
    assert_eq!(iv(&["--bssplit=4k/50:6k/50"]), Some(2048));
    // larger than a reading job's read block: the read block
    assert_eq!(
        iv(&["--rw=randrw", "--bs=2k,8k", "--verify_interval=4k"]),
        Some(2048)
    );
    // not asked, and a split size between the extremes it does not divide: one header
    // per block, as without it
    assert_eq!(iv(&["--bssplit=4k/40:6k/30:8k/30"]), None);
    // no verify: nothing to fix up, nor refused
    let c = parse(&["--name=a", "--size=96k", "--bs=12k", "--verify_interval=8k"]).unwrap();
    assert_eq!(c.jobs[0].more.x.verify_interval, Some(8192));
    assert_eq!(iv(&["--bs=4k"]), None);
}

/// The job options name each option by fio's own name whatever alias was typed
/// (fio 3.33's JSON `job options`: `readwrite` → `rw`, `blocksize` → `bs`, `timeout` →
/// `runtime`); the global options too.
#[test]
fn options_are_recorded_under_fios_names() {
    let c = parse(&[
        "--blocksize=4k",
        "--name=a",
        "--readwrite=write",
        "--size=64k",
        "--timeout=1",
    ])
    .unwrap();
    let keys: Vec<&str> = c.jobs[0].options.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["name", "rw", "size", "runtime"]);
    assert_eq!(c.global_options, [("bs".to_string(), "4k".to_string())]);
}

/// The engines of pseudo I/O (cpuio, exec) carry the lines fio's engine init prints as
/// each thread starts — cpuio's mode and load, exec's program and its arguments with
/// `%r` (the runtime in seconds) and `%n` (the job) replaced — and every request is a
/// read whatever `rw=` asked (fio fills nothing in of it); other engines have none.
#[test]
fn pseudo_io_jobs_carry_their_engines_start_lines_and_read() {
    let c = parse(&[
        "--name=q",
        "--ioengine=cpuio",
        "--cpuload=30",
        "--cpumode=qsort",
        "--cpuchunks=1000",
        "--rw=randwrite",
        "--size=64k",
    ])
    .unwrap();
    let j = &c.jobs[0];
    assert_eq!(
        j.start_lines,
        ["q (qsort): ioengine=cpuio, cpuload=30, cpucycle=1000"]
    );
    assert_eq!(j.rw, crate::job::fio::RwMode::Read);
    let c = parse(&[
        "--name=x",
        "--ioengine=exec",
        "--program=echo",
        "--arguments=%n for %r",
        "--runtime=3",
        "--time_based",
        "--std_redirect=0",
    ])
    .unwrap();
    assert_eq!(
        c.jobs[0].start_lines,
        [
            "x : program=echo, arguments=%n for %r",
            "x : Running echo x for 3"
        ]
    );
    let c = parse(&[
        "--name=y",
        "--ioengine=exec",
        "--program=/bin/true",
        "--size=8k",
    ])
    .unwrap();
    assert_eq!(
        c.jobs[0].start_lines,
        [
            "y : program=/bin/true, arguments=(null)",
            "y : Saving output of /bin/true (null) : stdout=y.stdout stderr=y.stderr"
        ]
    );
    let c = parse(&["--name=p", "--rw=write", "--size=64k"]).unwrap();
    assert!(c.jobs[0].start_lines.is_empty());
    assert_eq!(c.jobs[0].rw, crate::job::fio::RwMode::Write);
}

#[test]
fn a_fio_job_states_its_thread_job() {
    use crate::job::thread::{FsyncMode, Pace};
    let mut f = FioJob {
        engine: EngineKind::Psync,
        iodepth: 32,
        bs_read: BlockSizes::Range(512, 8192),
        bs_write: BlockSizes::Fixed(16384),
        nrfiles: 3,
        filesize: Some((1 << 20, 1 << 20)),
        number_ios: 7,
        runtime: Some(Duration::from_secs(3)),
        ..FioJob::default()
    };
    f.more.dsync_io = true;
    f.more.rate_iops = [5, 0, 0];
    let t = f.model().thread;
    assert_eq!((t.engine, t.depth, t.slots()), (EngineKind::Psync, 32, 1));
    assert_eq!((t.request, t.slot_len()), ((512, 16384), 16384));
    assert!(!t.direct && !t.sync && t.dsync);
    assert_eq!((t.files, t.file_size), (3, Some(1 << 20)));
    let iops = [5, 0, 0];
    assert_eq!(
        t.pace,
        Pace::Thread {
            bytes: [0; 3],
            iops
        }
    );
    assert_eq!((t.time, t.ios), (Some(Duration::from_secs(3)), Some(7)));
    assert!(!t.writes && !t.validate && t.dir.as_os_str().is_empty());
    assert_eq!(t.data, crate::job::thread::DataPattern::Random);
    let s = t.syncs;
    assert_eq!(
        (s.call, s.each_write, s.at_end),
        (FsyncMode::Fsync, false, false)
    );
    // a writer with zero buffers, verify, fdatasync after each write and at the end
    f.rw = RwMode::RandWrite;
    f.directory = vec!["/d".into(), "/e".into()];
    (f.more.zero_buffers, f.more.fdatasync, f.end_fsync) = (true, 1, true);
    f.more.verify = Some(crate::job::fio::keys_verify::VerifyKind::Crc32c);
    let t = f.model().thread;
    assert!(t.writes && t.validate && t.dir == std::path::Path::new("/d"));
    // the model's values only sysbench fills stay "none"; fdatasync=1 is fio's count
    let w = f.model().work;
    let (p, y) = (&w.pick, &w.syncs);
    assert_eq!((p.read_ratio, p.merged, y.series_every), (None, 0, 0));
    assert_eq!((y.fsync_every, y.fdatasync_every, y.at_end), (0, 1, true));
    assert_eq!(t.data, crate::job::thread::DataPattern::Zeros);
    let s = t.syncs;
    assert_eq!(
        (s.call, s.each_write, s.at_end),
        (FsyncMode::Fdatasync, true, true)
    );
    // a range of file sizes is drawn per file when the set is laid out
    f.filesize = Some((1 << 20, 2 << 20));
    f.more.rate_iops = [0; 3];
    f.engine = EngineKind::Libaio;
    let t = f.model().thread;
    assert_eq!((t.file_size, t.pace, t.slots()), (None, Pace::Free, 32));
}

/// fio 3.33's log setup: a bw (iops) log with `log_avg_msec` makes the sampling interval
/// `log_avg_msec` unless `bwavgtime` (`iopsavgtime`) was given, also in the global
/// section (run/fio/log.rs `rate_windows` takes the log's window from both).
#[test]
fn a_windowed_log_sets_the_sampling_interval() {
    let job = |v: &[&str]| {
        let mut a = vec!["--name=j", "--size=1m"];
        a.extend_from_slice(v);
        parse(&a).unwrap().jobs.remove(0)
    };
    let times = |j: &FioJob| (j.more.bw_avg_time, j.more.iops_avg_time);
    assert_eq!(
        times(&job(&["--write_bw_log=b", "--log_avg_msec=1000"])),
        (1000, 500)
    );
    let j = job(&[
        "--write_iops_log=b",
        "--log_avg_msec=250",
        "--bwavgtime=100",
    ]);
    assert_eq!(times(&j), (100, 250));
    let j = job(&[
        "--write_bw_log=b",
        "--log_avg_msec=1000",
        "--bwavgtime=2000",
    ]);
    assert_eq!(times(&j), (2000, 500));
    // without log_avg_msec nothing changes (the log is per I/O)
    assert_eq!(
        times(&job(&["--write_bw_log=b", "--write_iops_log=b"])),
        (500, 500)
    );
    // a global bwavgtime is given for every job
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("j.fio");
    let text = "[global]\nbwavgtime=200\n[j]\nsize=1m\nwrite_bw_log=b\nlog_avg_msec=1000\n";
    std::fs::write(&f, text).unwrap();
    let c = parse_args_with(&[f.display().to_string()], &no_env).unwrap();
    assert_eq!(times(&c.jobs[0]), (200, 500));
}

/// `filename=` adds to the files a job already has, as fio 3.33's str_filename_cb does:
/// a `[global]` (or command-line) file and the section's are both the job's, a second
/// `filename=` in one section adds too; a job without its own keeps the global's alone.
#[test]
fn filename_adds_to_the_files_the_job_has() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("j.fio");
    std::fs::write(
        &f,
        "[global]\nfilename=a\nsize=1m\n[r]\nfilename=b:c\nrw=read\n[s]\nrw=read\n[t]\nfilename=a\nfilename=x\\:y\nrw=read\n",
    )
    .unwrap();
    let c = parse_args_with(&[f.display().to_string()], &no_env).unwrap();
    let names: Vec<Vec<String>> = c.jobs.iter().map(|j| j.filenames()).collect();
    assert_eq!(names[0], ["a", "b", "c"]);
    assert_eq!(names[1], ["a"]);
    assert_eq!(names[2], ["a", "a", "x:y"]);
    // the command line's global file, then the job's
    let c = parse(&["--filename=g", "--name=j", "--filename=h", "--size=1m"]).unwrap();
    assert_eq!(c.jobs[0].filenames(), ["g", "h"]);
}

/// A number followed by `%` is a percentage whatever follows the `%` (fio 3.33's
/// get_mult_bytes): `size=100%%` (a shell template's escaped `%`) is 100%, `io_size=50%x`
/// is 50%, `offset=25%%` is 25%.
#[test]
fn text_after_a_percent_sign_is_ignored() {
    let c = parse(&["--name=j", "--filename=f", "--size=100%%"]).unwrap();
    assert_eq!(c.jobs[0].size, Some(SizeSpec::Percent(100.0)));
    let c = parse(&["--name=j", "--filename=f", "--size=40%x", "--io_size=50%x"]).unwrap();
    assert_eq!(c.jobs[0].size, Some(SizeSpec::Percent(40.0)));
    assert_eq!(c.jobs[0].more.io_size_pct, Some(50));
    let c = parse(&["--name=j", "--filename=f", "--size=1m", "--offset=25%%"]).unwrap();
    assert_eq!(c.jobs[0].more.offset, Some(SizeSpec::Percent(25.0)));
    assert!(parse(&["--name=j", "--filename=f", "--size=x%"]).is_err());
}
