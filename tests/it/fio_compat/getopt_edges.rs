//! fio 3.33's command line at its edges, side by side with iomark as `fio` (stdout,
//! stderr and exit code): an abbreviation that begins several options (getopt's list,
//! in the order of fio's table: its own options, every job option and alias, its
//! profiles' options, the options of the job's engine), the words after `--` (job
//! files, whatever they look like), and the lines fio printed of the command line's jobs
//! before a job file it cannot read or refuses. The cases come from fio's own option
//! lists where they can (`fio --cmdhelp=all`, `fio --help`). fio is required: CI
//! installs it, so a missing fio fails these tests.

use crate::util::*;

/// The names fio 3.33 lists: its job options (`--cmdhelp=all`, the first word of each
/// line) and its own command-line options (`--help`, `--NAME` at a line's start).
fn fio_names() -> Vec<String> {
    let text = |a: &str| fio_cmd().arg(a).run().stdout;
    let mut names: Vec<String> = text("--help")
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("--"))
        .map(|l| {
            l.split(['=', '\t', ' ', '['])
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    names.extend(
        text("--cmdhelp=all")
            .lines()
            .filter_map(|l| l.split(':').next())
            .map(|n| n.trim().to_string()),
    );
    names.retain(|n| n.len() > 1);
    names.dedup();
    names
}

/// Per name of `names`, its longest beginning that begins another name too and is no
/// whole name (the longest abbreviation getopt cannot resolve), at least 2 letters.
fn shared_beginnings(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        let longest = (2..n.len()).rev().map(|k| &n[..k]).find(|p| {
            names.iter().filter(|m| m.starts_with(p)).count() > 1 && !names.iter().any(|m| m == p)
        });
        if let Some(p) = longest {
            if !out.iter().any(|o| o == p) {
                out.push(p.to_string());
            }
        }
    }
    out
}

/// Every abbreviation that begins several of fio's options is refused as fio refuses it:
/// getopt's line naming them in fio's order with the word's dashes, fio's own
/// `unrecognized option` line, its guess, exit 1 — whatever context the word has (a job
/// whose engine adds its options to fio's table, a single dash, a value).
#[test]
fn ambiguous_abbreviations_are_fios() {
    require_fio();
    let d = scratch();
    let names = fio_names();
    assert!(names.len() > 200, "fio lists {} options", names.len());
    let derived = shared_beginnings(&names);
    let job = ["--parse-only", "--name=x", "--ioengine=null", "--size=1m"];
    let mut cases: Vec<Vec<String>> = derived
        .iter()
        .map(|p| {
            let mut a: Vec<String> = job.iter().map(|s| s.to_string()).collect();
            a.push(format!("--{p}=1"));
            a
        })
        .collect();
    let by_hand: &[&[&str]] = &[
        &["--ou=x"],
        &["--rate=1", "--ve"],
        &["-ou"],
        &["--parse-only", "-verify_b=1"],
        &["--thr"],
        &["--prof=x"],
        &["--name=x", "--ioengine=io_uring", "--sq", "--parse-only"],
        &["--name=x", "--ioengine=io_uring", "--sqthread_pol=1"],
        &["--ioengine=libaio", "--name=x", "--cmdprio_=1"],
        // a new job starts from the default job's engine: no engine's options (under
        // `--parse-only`: fio prints no line for `x` as `--name=y` adds it)
        &[
            "--parse-only",
            "--name=x",
            "--ioengine=libaio",
            "--name=y",
            "--cmdprio_=1",
        ],
        &[
            "--name=global",
            "--ioengine=libaio",
            "--name=y",
            "--cmdprio_=1",
        ],
    ];
    cases.extend(
        by_hand
            .iter()
            .map(|a| a.iter().map(|s| s.to_string()).collect()),
    );
    let (mut differ, mut ambiguous) = (Vec::new(), 0);
    for a in &cases {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let [fio, iomark] = both_in(d.path(), &[], &a);
        if fio.2.contains("is ambiguous; possibilities:") {
            ambiguous += 1;
        }
        if fio != iomark {
            differ.push(format!("{a:?}\n  fio:    {fio:?}\n  iomark: {iomark:?}"));
        }
    }
    eprintln!(
        "{} cases ({} derived from fio's lists), {ambiguous} ambiguous to fio",
        cases.len(),
        derived.len()
    );
    // the derived beginnings are ambiguous to fio (a few are one option and an alias)
    assert!(
        ambiguous * 10 >= cases.len() * 8,
        "{ambiguous} of {}",
        cases.len()
    );
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// Every word after `--` is a job file to fio, one that starts with `-` too (`fio --
/// --name=x`: no job file `--name=x`), a second `--` as well; the command line's jobs
/// before it were added (their section lines said) when fio cannot open it.
#[test]
fn words_after_double_dash_are_job_files() {
    require_fio();
    let d = scratch();
    let job = "[j]\nioengine=null\nsize=1m\n";
    let cases: &[&[&str]] = &[
        &["--", "--name=x"],
        &[
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--",
            "--size=1m",
        ],
        &["--parse-only", "--", "--"],
        &["--parse-only", "--", "-j.fio"],
        &["--parse-only", "--", "--help"],
        &[
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            "--",
            "-j.fio",
            "--parse-only",
        ],
    ];
    for a in cases {
        let [fio, iomark] = both_in(d.path(), &[("-j.fio", job)], a);
        assert_eq!(iomark, fio, "{a:?}");
    }
}

/// A job file fio cannot open, or one it refuses, after the command line's jobs: fio had
/// added those jobs and said their section lines (on stdout, in the output format
/// `normal`, not under `--parse-only`), and those of the job files read before; exit 1.
#[test]
fn the_jobs_before_an_unreadable_job_file_are_said() {
    require_fio();
    let d = scratch();
    let files = [
        ("good.fio", "[j1]\nioengine=null\nsize=1m\nnumjobs=2\n"),
        ("bad.fio", "[j2]\nioengine=null\nsize=1m\nbogus=1\n"),
        ("bad2.fio", "[j2]\nioengine=null\nsize=1m\n[j3]\nbs=0\n"),
    ];
    let null = ["--name=a", "--ioengine=null", "--size=1m"];
    let with = |more: &[&'static str]| -> Vec<&'static str> {
        null.iter().copied().chain(more.iter().copied()).collect()
    };
    let cases: Vec<Vec<&str>> = vec![
        vec!["--name=a", "--size=1m", "nosuchfile.fio"],
        with(&["nosuchfile.fio"]),
        with(&["--parse-only", "nosuchfile.fio"]),
        with(&["--output-format=json", "nosuchfile.fio"]),
        with(&["--bs=8k", "--name=b", "--stonewall", "nosuch.fio"]),
        with(&["good.fio", "nosuch.fio"]),
        with(&["bad.fio"]),
        with(&["bad2.fio"]),
        vec!["nosuchfile.fio", "--name=a", "--ioengine=null", "--size=1m"],
        vec!["--name=a", "--ioengine=null", "nosuch.fio"],
    ];
    for a in &cases {
        let [fio, iomark] = both_in(d.path(), &files, a);
        assert_eq!(iomark, fio, "{a:?}");
        assert_eq!(fio.0, 1, "{a:?}");
    }
    // a job file without read permission: root reads it all the same, so the case is
    // fio's `unable to open` only for another user
    if unsafe { libc::geteuid() } != 0 {
        use std::os::unix::fs::PermissionsExt;
        let a = with(&["locked.fio"]);
        let [fio, iomark] = ["fio", "iomark"].map(|tool| {
            let w = d.path().join(format!("{tool}-locked"));
            std::fs::create_dir_all(&w).unwrap();
            let f = w.join("locked.fio");
            std::fs::write(&f, files[0].1).unwrap();
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
            let cmd = if tool == "fio" {
                fio_cmd()
            } else {
                as_fio(d.path())
            };
            let o = cmd.dir(&w).args(&a).run();
            (o.code, o.stdout, o.stderr)
        });
        assert_eq!(iomark, fio, "{a:?}");
    }
}

/// A command line, a job file `j.fio`, and each job's (name, reads, bytes read).
type GlobalCase<'a> = (&'a [&'a str], &'a str, &'a [(&'a str, u64, u64)]);

/// `--name=global` (and any job whose name starts with `global`, on the command line or
/// as a job file's section) adds no job: its options go to the jobs named after it, as
/// fio 3.33's add_job takes such a section for the default job. Counted side by side:
/// one job `a` that reads 1 MiB with the global's 64 KiB blocks, no `global` file, exit 0;
/// a global after a job reaches only the jobs after it.
#[test]
fn a_job_named_global_sets_the_default_job() {
    let d = scratch();
    let cases: &[GlobalCase] = &[
        (
            &[
                "--name=global",
                "--size=1m",
                "--bs=64k",
                "--name=a",
                "--rw=read",
                "--filename=zz",
            ],
            "",
            &[("a", 16, 1 << 20)],
        ),
        (
            &[
                "--name",
                "globalopts",
                "--size=1m",
                "--name",
                "a",
                "--filename=zz",
            ],
            "",
            &[("a", 256, 1 << 20)],
        ),
        (
            &[
                "--size=1m",
                "--name=a",
                "--filename=zz",
                "--name=global",
                "--bs=64k",
                "--name=b",
                "--filename=zz",
            ],
            "",
            &[("a", 256, 1 << 20), ("b", 16, 1 << 20)],
        ),
        (
            &["j.fio"],
            "[globalopts]\nsize=512k\nbs=128k\n[c]\nfilename=zz\n",
            &[("c", 4, 512 << 10)],
        ),
    ];
    for tool in ["iomark", "fio"] {
        if tool == "fio" && !need_fio("a_job_named_global_sets_the_default_job") {
            continue;
        }
        for (args, file, want) in cases {
            let (cmd, w) = fio_or_ours_in(tool, d.path());
            std::fs::write(w.join("j.fio"), file).unwrap();
            let o = cmd.args(*args).arg("--output-format=json").run();
            let doc = o.ok().json_doc();
            let jobs = doc["jobs"].as_array().unwrap();
            let got: Vec<(String, u64, u64)> = jobs
                .iter()
                .map(|j| {
                    let r = &j["read"];
                    let name = j["jobname"].as_str().unwrap_or("").to_string();
                    (
                        name,
                        r["total_ios"].as_u64().unwrap(),
                        r["io_bytes"].as_u64().unwrap(),
                    )
                })
                .collect();
            let want: Vec<(String, u64, u64)> = want
                .iter()
                .map(|(n, i, b)| (n.to_string(), *i, *b))
                .collect();
            assert_eq!(got, want, "{tool} {args:?}: {}", o.dump());
            let names: Vec<String> = std::fs::read_dir(&w)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert!(
                !names.iter().any(|n| n.starts_with("global")),
                "{tool} {args:?}: {names:?}"
            );
        }
    }
}

/// Several job files: fio 3.33 reads each after the first from a fresh default job (the
/// command line's globals and the first file's `[global]` do not reach it: 4 KiB
/// blocks) and stonewalls its first job (group 1, run after group 0); `--readonly`
/// holds for every file. A `--section` that names no section is passed over while
/// another matches. Side by side with fio when installed.
#[test]
fn each_job_file_after_the_first_starts_afresh_in_its_own_group() {
    let d = scratch();
    let a = "[global]\nbs=8k\nsize=1m\n[j1]\nfilename=f1\n";
    let b = "[j2]\nfilename=f2\nsize=1m\n";
    for tool in ["iomark", "fio"] {
        if tool == "fio" && !need_fio("each_job_file_after_the_first_starts_afresh") {
            continue;
        }
        let go = |args: &[&str]| {
            let (cmd, w) = fio_or_ours_in(tool, d.path());
            std::fs::write(w.join("a.fio"), a).unwrap();
            std::fs::write(w.join("b.fio"), b).unwrap();
            cmd.args(args).run()
        };
        let o = go(&["--bs=64k", "--output-format=json", "a.fio", "b.fio"]);
        let doc = o.ok().json_doc();
        let got: Vec<(String, u64, u64)> = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let name = j["jobname"].as_str().unwrap_or("").to_string();
                (
                    name,
                    j["groupid"].as_u64().unwrap(),
                    j["read"]["total_ios"].as_u64().unwrap(),
                )
            })
            .collect();
        let want = [("j1".to_string(), 0, 128), ("j2".to_string(), 1, 256)];
        assert_eq!(got, want, "{tool}: {}", o.dump());
        let o = go(&[
            "--section=nosuch",
            "--section=j1",
            "--output-format=json",
            "a.fio",
        ]);
        let doc = o.ok().json_doc();
        assert_eq!(
            doc["jobs"].as_array().map(Vec::len),
            Some(1),
            "{tool}: {}",
            o.dump()
        );
        assert_eq!(doc["jobs"][0]["jobname"], "j1", "{tool}");
    }
}

/// Both tools, each in a fresh `d/TOOL` with the job file `job.fio` of two jobs under
/// a `[global]`: the command and its directory.
fn with_job_file(d: &std::path::Path, tool: &str) -> (Iomark, std::path::PathBuf) {
    let (cmd, w) = fio_or_ours_in(tool, d);
    let text = "[global]\nsize=1m\nbs=8k\n[j1]\nrw=write\n[j2]\nrw=read\n";
    std::fs::write(w.join("job.fio"), text).unwrap();
    (cmd, w)
}

/// `--daemonize=FILE` without `--server`: fio 3.33 backgrounds nothing, writes no pid
/// file and runs the job in the foreground (its report, exit 0).
#[test]
fn daemonize_without_a_server_runs_the_job_in_the_foreground() {
    require_fio();
    let d = scratch();
    for tool in ["fio", "iomark"] {
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        let args = [
            "--daemonize=pidf",
            "--name=j",
            "--size=1m",
            "--rw=write",
            "--filename=f",
            "--output-format=json",
        ];
        let o = cmd.args(args).run();
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        assert_eq!(
            o.json_doc()["jobs"][0]["write"]["io_bytes"],
            1 << 20,
            "{tool}"
        );
        assert!(!w.join("pidf").exists(), "{tool}: no pid file");
    }
}

/// `--section=global` is refused as fio 3.33's getopt refuses it: its one line on
/// stderr, nothing on stdout, exit 1, with or without `--parse-only` or `--showcmd`.
#[test]
fn section_global_is_refused_as_fio() {
    require_fio();
    let d = scratch();
    for tool in ["fio", "iomark"] {
        for extra in [None, Some("--parse-only"), Some("--showcmd")] {
            let (cmd, _) = with_job_file(d.path(), tool);
            let o = cmd.arg("--section=global").args(extra).arg("job.fio").run();
            let got = (o.code, o.stdout.as_str(), o.stderr.as_str());
            assert_eq!(
                got,
                (1, "", "fio: can't use global as only section\n"),
                "{tool} {extra:?}"
            );
        }
    }
}

/// `--showcmd` dumps what fio 3.33 read from job files only: a `--section` that names no
/// job leaves the globals' line (`fio --size=1m --bs=8k `); jobs of the command line
/// alone print nothing and run nothing (no file made). Exit 0 both.
#[test]
fn showcmd_dumps_the_job_files_only_as_fio() {
    require_fio();
    let d = scratch();
    for tool in ["fio", "iomark"] {
        let (cmd, _) = with_job_file(d.path(), tool);
        let o = cmd.args(["--showcmd", "--section=none", "job.fio"]).run();
        assert_eq!(
            (o.code, o.stdout.as_str()),
            (0, "fio --size=1m --bs=8k \n"),
            "{tool}: {}",
            o.dump()
        );
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args([
                "--showcmd",
                "--name=a",
                "--size=1m",
                "--rw=write",
                "--filename=fa",
            ])
            .run();
        assert_eq!(
            (o.code, o.stdout.as_str(), o.stderr.as_str()),
            (0, "", ""),
            "{tool}"
        );
        assert!(!w.join("fa").exists(), "{tool}: --showcmd runs nothing");
    }
}

/// A command-line `--name` that no `--section` given before it names is no job in fio
/// 3.33: the options after it, up to the next `--name`, go to its default job as
/// globals. `--section=j1 job.fio --name=x --size=1m --rw=write` runs j1 alone (no
/// `x.0.0`); `--section=x --name=y --size=1m --name=x …` runs x with `size=1m` global.
#[test]
fn a_command_line_job_no_section_names_folds_into_the_globals_as_fio() {
    require_fio();
    let d = scratch();
    let names = |o: &Out| -> Vec<String> {
        let doc = o.json_doc();
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["jobname"].as_str().unwrap().to_string())
            .collect()
    };
    for tool in ["fio", "iomark"] {
        let (cmd, w) = with_job_file(d.path(), tool);
        let args = [
            "--section=j1",
            "job.fio",
            "--name=x",
            "--size=1m",
            "--rw=write",
            "--output-format=json",
        ];
        let o = cmd.args(args).run();
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        assert_eq!(names(&o), ["j1"], "{tool}");
        assert_eq!(
            o.json_doc()["jobs"][0]["write"]["io_bytes"],
            1 << 20,
            "{tool}"
        );
        assert!(!w.join("x.0.0").exists(), "{tool}");
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        let args = [
            "--section=x",
            "--name=y",
            "--size=1m",
            "--name=x",
            "--rw=write",
            "--filename=fx",
            "--output-format=json",
        ];
        let o = cmd.args(args).run();
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        assert_eq!(names(&o), ["x"], "{tool}");
        let doc = o.json_doc();
        assert_eq!(doc["global options"]["size"], "1m", "{tool}");
        assert_eq!(doc["jobs"][0]["write"]["io_bytes"], 1 << 20, "{tool}");
        assert!(!w.join("y.0.0").exists(), "{tool}");
    }
}

/// fio 3.33 stops reading its command line at `--section=global` (its line, exit 1):
/// a word after it is never read (`--version`, a short option without its value, a
/// misspelt key), a refused option before it is said instead (`--bs=zz`: fio's two
/// lines), and the job of a `--name` before the last one was added, its section line on
/// stdout.
#[test]
fn section_global_stops_the_command_line_as_fio() {
    require_fio();
    let d = scratch();
    let global = "fio: can't use global as only section\n";
    let a_line = "a: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1\n";
    let cases: [(&[&str], &str, &str); 5] = [
        (&["--section=global", "--version"], "", global),
        (&["--section=global", "-x"], "", global),
        (&["--section=global", "--bs"], "", global),
        (
            &["--name=x", "--bs=zz", "--section=global"],
            "",
            "bs: 'z' suffix isn't applicable\nfio: failed parsing bs=zz\n",
        ),
        (
            &[
                "--name=a",
                "--ioengine=null",
                "--size=1m",
                "--name=b",
                "--section=global",
            ],
            a_line,
            global,
        ),
    ];
    for tool in ["fio", "iomark"] {
        for (args, out, err) in cases {
            let (cmd, _) = fio_or_ours_in(tool, d.path());
            let o = cmd.args(args).run();
            let got = (o.code, o.stdout.as_str(), o.stderr.as_str());
            assert_eq!(got, (1, out, err), "{tool} {args:?}");
        }
    }
}
