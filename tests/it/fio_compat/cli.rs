//! Every flag of the installed fio's `fio --help` (read at test time) given to iomark
//! as `fio` with a base job, in fio's three written forms: `--flag=value`,
//! `--flag value` (for a flag whose value is optional in fio, the bare `--flag`: fio's
//! getopt never takes the next word for it) and the single dash (`-flag=value`, as
//! `fio -name=x -rw=read` tutorials write them). Each must do what fio does with it:
//! run the job, answer and exit 0, or refuse in one line where iomark has a reason
//! (fio's client/server mode: the `mpirun` equivalent; a log that is not compressed).

use crate::util::*;
use std::path::Path;

/// What a flag of `fio --help` is given with, and what iomark must answer: the value
/// (`None`: the flag takes none), whether fio's value is optional (only `=`), the exit
/// code, and a text of stdout or stderr.
struct Case {
    flag: &'static str,
    value: Option<&'static str>,
    optional: bool,
    code: i32,
    says: &'static str,
}

const fn case(
    flag: &'static str,
    value: Option<&'static str>,
    code: i32,
    says: &'static str,
) -> Case {
    Case {
        flag,
        value,
        optional: false,
        code,
        says,
    }
}

const fn opt(flag: &'static str, value: &'static str, code: i32, says: &'static str) -> Case {
    Case {
        flag,
        value: Some(value),
        optional: true,
        code,
        says,
    }
}

const MPI: &str = "mpirun -np N";

/// Every flag of fio 3.33's `--help`.
const CASES: &[Case] = &[
    case("debug", Some("random"), 0, "random   "),
    case("parse-only", None, 0, ""),
    case("merge-blktrace-only", None, 0, ""),
    case("output", Some("out.txt"), 0, ""),
    case("bandwidth-log", None, 0, "b: (groupid=0"),
    case("minimal", None, 0, "3;fio-3.33;b;0;0;64;"),
    case("output-format", Some("terse"), 0, "3;fio-3.33;b;"),
    case("terse-version", Some("4"), 0, "b: (groupid=0"),
    case("version", None, 0, "fio-3.33"),
    case("help", None, 0, "fio [options] [job options] <job file(s)>"),
    case("cpuclock-test", None, 0, "cs: Pass!"),
    opt("crctest", "crc32c", 0, "crc32c:\t\t"),
    opt("cmdhelp", "bs", 0, "Block size unit"),
    opt("enghelp", "libaio", 0, "IO "),
    // (fio 3.33 dumps job files only: nothing for a command line's job)
    case("showcmd", None, 0, ""),
    case("eta", Some("never"), 0, "b: (groupid=0"),
    case("eta-newline", Some("1"), 0, "b: (groupid=0"),
    case("status-interval", Some("1"), 0, "b: (groupid=0"),
    case("readonly", None, 0, "b: (groupid=0"),
    case("section", Some("b"), 0, "b: (groupid=0"),
    case("alloc-size", Some("16384"), 0, "b: (groupid=0"),
    case("warnings-fatal", None, 0, "b: (groupid=0"),
    case("max-jobs", Some("1"), 0, "b: (groupid=0"),
    opt("server", "localhost", 1, MPI),
    // (without `--server` fio 3.33 runs the job in the foreground)
    case("daemonize", Some("fio.pid"), 0, "b: (groupid=0"),
    case("client", Some("localhost"), 1, MPI),
    case("remote-config", Some("job.fio"), 1, MPI),
    case("idle-prof", Some("system"), 0, "CPU idleness:"),
    case("inflate-log", Some("out.txt"), 2, "failed inflating log"),
    case("trigger-file", Some("never.there"), 0, "b: (groupid=0"),
    case("trigger-timeout", Some("60"), 0, "b: (groupid=0"),
    case("trigger", Some("true"), 0, "b: (groupid=0"),
    case("trigger-remote", Some("true"), 0, "b: (groupid=0"),
    case("aux-path", Some("."), 0, "b: (groupid=0"),
];

/// The `--flags` of the installed fio's `--help`, in its order.
fn fio_help_flags() -> Vec<String> {
    let o = std::process::Command::new("fio")
        .arg("--help")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let mut flags: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| l.trim_start().starts_with("--")) {
        let name: String = line
            .trim_start()
            .trim_start_matches('-')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if !flags.contains(&name) {
            flags.push(name);
        }
    }
    flags
}

/// The words of one form (0: `--flag=v`, 1: `--flag v`, 2: `-flag=v` / `-flag v`).
fn words(c: &Case, form: usize) -> Vec<String> {
    let dashes = if form == 2 { "-" } else { "--" };
    match (c.value, form) {
        (None, _) => vec![format!("{dashes}{}", c.flag)],
        (Some(_), 1) if c.optional => vec![format!("--{}", c.flag)],
        (Some(v), 1) => vec![format!("--{}", c.flag), v.to_string()],
        (Some(v), _) => vec![format!("{dashes}{}={v}", c.flag)],
    }
}

fn fio_as(dir: &Path) -> std::path::PathBuf {
    let f = dir.join("fio");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iomark"), &f).unwrap();
    f
}

#[test]
fn every_flag_of_fio_help_is_accepted_in_three_forms() {
    if !need_fio("every_flag_of_fio_help_is_accepted_in_three_forms") {
        return;
    }
    let flags = fio_help_flags();
    assert!(flags.len() >= 30, "{flags:?}");
    let d = scratch();
    let fio = fio_as(d.path());
    std::fs::write(d.path().join("out.txt"), "not a compressed log\n").unwrap();
    let base = ["--name=b", "--size=64k", "--rw=read", "--filename=b.dat"];
    let mut covered = 0;
    for flag in &flags {
        let c = CASES
            .iter()
            .find(|c| c.flag == flag)
            .unwrap_or_else(|| panic!("--{flag} of fio --help has no case here"));
        for form in 0..3 {
            let mut a = words(c, form);
            a.extend(base.iter().map(|s| s.to_string()));
            let o = Iomark::program(&fio).dir(d.path()).args(&a).run();
            let all = format!("{}{}", o.stdout, o.stderr);
            assert_eq!(o.code, c.code, "{a:?}:\n{all}");
            assert!(all.contains(c.says), "{a:?}: no {:?} in\n{all}", c.says);
            if c.code != 0 {
                assert_eq!(o.stderr.lines().count(), 1, "{a:?}: one line\n{}", o.stderr);
            }
        }
        covered += 1;
    }
    eprintln!(
        "fio --help: {covered} of {} flags accepted, each in 3 forms",
        flags.len()
    );
    assert_eq!(covered, flags.len());
}

/// getopt_long_only's other rules: an abbreviation of one option is that option, of
/// several an error naming them (fio's line); a single-dash word that is no option is
/// fio's "unrecognized option"; a flag never takes the next word.
#[test]
fn getopt_rules_of_fio() {
    let d = scratch();
    let fio = fio_as(d.path());
    let go = |a: &[&str]| Iomark::program(&fio).dir(d.path()).args(a).run();
    let o = go(&[
        "-name=x", "-size", "64k", "-rw=read", "-iodepth", "1", "-minim",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.starts_with("3;fio-3.33;x;0;0;64;"), "{}", o.stdout);
    // getopt's line naming them in fio's order, then fio's own and its guess
    // (fio_compat::getopt_edges compares them with fio's)
    let o = go(&["--name=x", "--iodepth_b=2"]);
    assert_eq!(o.code, 1);
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert!(lines.len() >= 2, "{}", o.stderr);
    assert!(
        lines[0].ends_with(
            ": option '--iodepth_b=2' is ambiguous; possibilities: '--iodepth_batch' \
             '--iodepth_batch_submit' '--iodepth_batch_complete_min' \
             '--iodepth_batch_complete' '--iodepth_batch_complete_max'"
        ),
        "{}",
        o.stderr
    );
    assert!(
        lines[1].ends_with(": unrecognized option '--iodepth_b=2'"),
        "{}",
        o.stderr
    );
    // getopt's line, then fio's own, the same words (fio_compat::strictness compares
    // them with fio's)
    let o = go(&["-nosuchflag", "--name=x"]);
    assert_eq!(o.code, 1);
    let lines: Vec<&str> = o.stderr.lines().take(2).collect();
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    for l in lines {
        assert!(
            l.ends_with(": unrecognized option '-nosuchflag'"),
            "{}",
            o.stderr
        );
    }
    // -m is fio's short --minimal; --append-terse's value is only ever =VALUE
    let o = go(&["-m", "--name=x", "--size=64k"]);
    assert_eq!((o.code, o.stdout.lines().count()), (0, 1), "{}", o.stdout);
}

/// `--debug`: fio's area list, fio's lines, and one line for a bad area.
#[test]
fn debug_areas_as_fio() {
    let d = scratch();
    let o = run(d.path(), &["--debug=help"]);
    assert_eq!(o.code, 0);
    assert!(
        o.stdout
            .starts_with("fio: dumping debug options:process,file,io,"),
        "{}",
        o.stdout
    );
    let o = run(
        d.path(),
        &[
            "--debug=random,io",
            "--name=r",
            "--size=64k",
            "--rw=randread",
            "--minimal",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(
        lines[..2],
        ["fio: set debug option random", "fio: set debug option io"]
    );
    // `random   TID   iomark: job r thread 0 seed N …`, fio's `%-8s %-5u ` prefix
    let seed = lines.iter().find(|l| l.starts_with("random   ")).unwrap();
    assert!(seed.contains(" iomark: job r thread 0 seed "), "{seed}");
    assert!(
        lines.iter().any(|l| l.starts_with("io       ")),
        "{}",
        o.stdout
    );
    let o = run(d.path(), &["--debug=nosuch", "--name=r"]);
    assert_eq!(o.code, 2);
    o.one_line_error(&["debug mask nosuch not found"]);
}

/// fio 3.33 ignores `--max-jobs` ("we don't track/need this anymore"): two stonewalled
/// jobs under `--max-jobs=1` both run.
#[test]
fn max_jobs_does_not_refuse_jobs() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--max-jobs=1",
            "--minimal",
            "--size=64k",
            "--name=a",
            "--name=b",
            "--stonewall",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 2, "{}", o.stdout);
}

/// `--trigger-timeout` stops a time-based job as its end would (report, exit 0), then
/// `--trigger` runs.
#[test]
fn trigger_timeout_stops_the_jobs_and_runs_the_command() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--trigger-timeout=1",
            "--trigger=touch fired",
            "--minimal",
            "--name=t",
            "--size=64k",
            "--ioengine=null",
            "--time_based",
            "--runtime=600",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(d.path().join("fired").exists(), "the trigger command ran");
    // the read run time (ms), far below the 600 s the job would have run
    let runtime: u64 = o.stdout.split(';').nth(8).unwrap().parse().unwrap();
    assert!(runtime < 600_000, "{}", o.stdout);
}

/// `--idle-prof=percpu`: fio's lines after the report, one figure per CPU, and the
/// JSON document's `cpu_idleness`.
#[test]
fn idle_prof_reports_idleness_as_fio() {
    let d = scratch();
    let base = ["--name=i", "--size=64k", "--ioengine=null"];
    let o = run(d.path(), &[&["--idle-prof=percpu"][..], &base].concat());
    assert_eq!(o.code, 0, "{}", o.stderr);
    let cpus = std::thread::available_parallelism().unwrap().get();
    let at = o
        .stdout
        .find("\nCPU idleness:\n  system: ")
        .expect(&o.stdout);
    let tail = &o.stdout[at..];
    let percpu = tail.lines().find(|l| l.starts_with("  percpu: ")).unwrap();
    assert_eq!(percpu.matches('%').count(), cpus, "{percpu}");
    assert!(tail.contains("  unit work: mean="), "{tail}");
    let o = run(
        d.path(),
        &[&["--idle-prof=system", "--output-format=json"][..], &base].concat(),
    );
    let v = o.json();
    let s = v["cpu_idleness"]["system"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&s), "{s}");
    assert!(v["cpu_idleness"]["unit_mean"].is_number());
}

/// `fio --version` under the persona is fio's line exactly: scripts parse it
/// (`fio --version | sed s/fio-//`); with fio installed, byte for byte what it prints.
#[test]
fn the_persona_version_is_fios_line_exactly() {
    let d = scratch();
    let ours = Iomark::program(fio_as(d.path())).arg("--version").run();
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    assert_eq!(ours.stdout, "fio-3.33\n");
    if need_fio("the_persona_version_is_fios_line_exactly") {
        let real = fio_cmd().arg("--version").run();
        assert_eq!(ours.stdout, real.stdout);
    }
}

/// fio's usage names the program as invoked (its `argv[0]`): `PATH/fio [options] …`
/// when run by path, under `--help` and when no job is defined.
#[test]
fn the_persona_usage_names_the_program_as_invoked() {
    let d = scratch();
    let fio = fio_as(d.path());
    let want = format!("{} [options] [job options] <job file(s)>", fio.display());
    let help = Iomark::program(&fio).arg("--help").run();
    assert_eq!(
        help.stdout.lines().nth(1),
        Some(want.as_str()),
        "{}",
        help.stdout
    );
    let none = Iomark::program(&fio).dir(d.path()).run();
    assert_eq!(none.code, 1, "{}", none.stderr);
    assert_eq!(
        none.stdout.lines().nth(1),
        Some(want.as_str()),
        "{}",
        none.stdout
    );
}
