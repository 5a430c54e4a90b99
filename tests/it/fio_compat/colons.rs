//! fio's lists of names beside fio 3.33: ':' separates the names of `filename=` and
//! `directory=`, and '\:' is a ':' inside a name (`filename=a\:b.dat` is the one file
//! `a:b.dat`, never `a\` and a user's `b.dat`). `directory=d1:d2` puts clone t's files in
//! the (t mod 2)-th directory, every `filename=` name in the first. The same job is run
//! by iomark as `fio` and by fio (skipped, with the reason, when fio is not installed),
//! and the files each leaves are compared: names and sizes. The outputs' safety checks
//! see the files under the list's every directory.

use crate::util::*;
use std::path::Path;

const PRECIOUS: &[u8] = b"precious\n";

/// A way to give a job: its name, what it puts in the run's directory, its arguments.
type Form<'a> = (&'a str, &'a dyn Fn(&Path), &'a [&'a str]);

/// Arguments and the files (name, size) the run leaves.
type Case<'a> = (&'a [&'a str], &'a [(&'a str, u64)]);

/// Every regular file under `dir` as (path relative to it, size), sorted; job files
/// (`*.fio`) left out.
fn files(dir: &Path) -> Vec<(String, u64)> {
    fn walk(base: &Path, d: &Path, out: &mut Vec<(String, u64)>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                walk(base, &p, out);
            } else if p.extension().is_none_or(|x| x != "fio") {
                let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
                out.push((rel, m.len()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// `(name, size)` pairs as owned strings.
fn want(pairs: &[(&str, u64)]) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = pairs.iter().map(|(n, s)| (n.to_string(), *s)).collect();
    v.sort();
    v
}

/// Run `args` with `tool` (`fio`: Debian's; else iomark as `fio`) in a fresh
/// `root/tool/N` prepared by `prep`: its exit code and the files it leaves there.
fn run(root: &Path, tool: &str, prep: &dyn Fn(&Path), args: &[&str]) -> (i32, Vec<(String, u64)>) {
    let parent = root.join(tool);
    std::fs::create_dir_all(&parent).unwrap();
    let dir = parent.join(std::fs::read_dir(&parent).unwrap().count().to_string());
    std::fs::create_dir(&dir).unwrap();
    prep(&dir);
    let cmd = if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(root)
    };
    let o = cmd.dir(&dir).args(args).run();
    (o.code, files(&dir))
}

/// The tools to compare: iomark always, fio when installed.
fn tools(test: &str) -> Vec<&'static str> {
    let mut t = vec!["iomark"];
    if need_fio(test) {
        t.push("fio");
    }
    t
}

fn plant(dir: &Path) {
    std::fs::write(dir.join("b.dat"), PRECIOUS).unwrap();
}

/// `filename=a\:b.dat` on the command line, in a job file and in a file the job file
/// includes: one file `a:b.dat` of the job's size; the planted `b.dat` keeps its bytes.
#[test]
fn an_escaped_colon_names_one_file_and_leaves_a_planted_file_alone() {
    let d = scratch();
    let job = "[a]\nsize=1m\nrw=write\nfilename=a\\:b.dat\n";
    let with_job = |dir: &Path| {
        plant(dir);
        std::fs::write(dir.join("j.fio"), job).unwrap();
    };
    // fio takes an include inside a section, and options only from it
    let with_include = |dir: &Path| {
        plant(dir);
        std::fs::write(dir.join("inc.fio"), job.trim_start_matches("[a]\n")).unwrap();
        std::fs::write(dir.join("j.fio"), "[a]\ninclude inc.fio\n").unwrap();
    };
    let forms: [Form; 3] = [
        (
            "command line",
            &plant,
            &[
                "--name=a",
                "--size=1m",
                "--rw=write",
                r"--filename=a\:b.dat",
            ],
        ),
        ("job file", &with_job, &["j.fio"]),
        ("include file", &with_include, &["j.fio"]),
    ];
    for tool in tools("an_escaped_colon_names_one_file_and_leaves_a_planted_file_alone") {
        for (form, prep, args) in forms {
            let (code, left) = run(d.path(), tool, prep, args);
            assert_eq!(code, 0, "{tool}, {form}");
            assert_eq!(
                left,
                want(&[("a:b.dat", 1 << 20), ("b.dat", PRECIOUS.len() as u64)]),
                "{tool}, {form}"
            );
        }
    }
    // the planted file's bytes, in every run's directory
    for e in all_files(d.path()).filter(|p| p.ends_with("b.dat")) {
        assert_eq!(std::fs::read(&e).unwrap(), PRECIOUS, "{}", e.display());
    }
}

/// Every file under `root`.
fn all_files(root: &Path) -> impl Iterator<Item = std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && !p.is_symlink() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.into_iter()
}

/// The list rules as fio's: empty names between and around are skipped, a '\' before
/// anything but ':' is kept, `\\:` is a '\' and the escaped ':'; blanks at the value's
/// ends are dropped; `size` is shared by the names.
#[test]
fn filename_lists_are_read_as_fio_reads_them() {
    let d = scratch();
    let cases: [(&str, &[(&str, u64)]); 5] = [
        ("x::y", &[("x", 32 << 10), ("y", 32 << 10)]),
        (":x:", &[("x", 64 << 10)]),
        (r"a\\:b", &[(r"a\:b", 64 << 10)]),
        (r"a\b", &[(r"a\b", 64 << 10)]),
        (r"\:a:b\:", &[(":a", 32 << 10), ("b:", 32 << 10)]),
    ];
    for tool in tools("filename_lists_are_read_as_fio_reads_them") {
        for (list, expect) in cases {
            let arg = format!("--filename={list}");
            let args = ["--name=j", "--size=64k", "--rw=write", arg.as_str()];
            let (code, left) = run(d.path(), tool, &|_| {}, &args);
            assert_eq!((code, left), (0, want(expect)), "{tool}: filename={list}");
        }
    }
}

/// Directories d1, d2, d3 and `d:x`.
fn dirs(dir: &Path) {
    for n in ["d1", "d2", "d3", "d:x"] {
        std::fs::create_dir(dir.join(n)).unwrap();
    }
}

/// `directory=` lists as fio 3.33: clone t's generated files under the (t mod n)-th
/// directory (all of one clone's files together), `filename=` names under the first,
/// `d\:x` the one directory `d:x`, colons at the ends skipped.
#[test]
fn a_directory_list_places_clones_round_robin_as_fio() {
    let d = scratch();
    let k = |n: u64| n << 10;
    let cases: [Case; 8] = [
        (
            &["--directory=d1:d2", "--numjobs=2"],
            &[("d1/j.0.0", k(64)), ("d2/j.1.0", k(64))],
        ),
        (
            &["--directory=d1:d2", "--nrfiles=2"],
            &[("d1/j.0.0", k(32)), ("d1/j.0.1", k(32))],
        ),
        (
            &["--directory=d1:d2:d3", "--numjobs=4", "--nrfiles=2"],
            &[
                ("d1/j.0.0", k(32)),
                ("d1/j.0.1", k(32)),
                ("d2/j.1.0", k(32)),
                ("d2/j.1.1", k(32)),
                ("d3/j.2.0", k(32)),
                ("d3/j.2.1", k(32)),
                ("d1/j.3.0", k(32)),
                ("d1/j.3.1", k(32)),
            ],
        ),
        (
            &["--directory=d1:d2", "--numjobs=2", "--filename=ff"],
            &[("d1/ff", k(64))],
        ),
        (
            &["--directory=d1:d2", "--numjobs=2", "--filename=ff:gg"],
            &[("d1/ff", k(32)), ("d1/gg", k(32))],
        ),
        (&[r"--directory=d\:x"], &[("d:x/j.0.0", k(64))]),
        (&["--directory=:d2:"], &[("d2/j.0.0", k(64))]),
        (
            &["--directory=d1::d2", "--numjobs=3"],
            &[
                ("d1/j.0.0", k(64)),
                ("d2/j.1.0", k(64)),
                ("d1/j.2.0", k(64)),
            ],
        ),
    ];
    for tool in tools("a_directory_list_places_clones_round_robin_as_fio") {
        for (extra, expect) in cases {
            let mut args = vec!["--name=j", "--size=64k", "--rw=write"];
            args.extend_from_slice(extra);
            let (code, left) = run(d.path(), tool, &dirs, &args);
            assert_eq!((code, left), (0, want(expect)), "{tool}: {extra:?}");
        }
    }
}

/// A list with an empty name (`d1::`: fio reads a last, empty directory) or a name
/// that is no directory is refused before anything is written, by both.
#[test]
fn a_directory_list_with_an_empty_or_missing_name_is_refused() {
    let d = scratch();
    for tool in tools("a_directory_list_with_an_empty_or_missing_name_is_refused") {
        for list in ["--directory=d1::", "--directory=d1:nope"] {
            let args = ["--name=j", "--size=64k", "--rw=write", "--numjobs=2", list];
            let (code, left) = run(d.path(), tool, &dirs, &args);
            assert_ne!(code, 0, "{tool}: {list}");
            assert_eq!(left, want(&[]), "{tool}: {list}");
        }
    }
}

/// The output checks see the files under every directory of the list and the
/// unescaped names: `--output` naming clone 1's file in d2, or the file `a:b.dat`, is
/// that data file (refused, exit 2, nothing written); a link planted at clone 1's file
/// in d2 is refused before any I/O and the user's file keeps its bytes.
#[test]
fn outputs_and_links_under_a_listed_directory_are_refused() {
    let d = scratch();
    let base = ["--name=j", "--size=64k", "--rw=write"];
    let cases: [&[&str]; 2] = [
        &["--directory=d1:d2", "--numjobs=2", "--output=d2/j.1.0"],
        &[r"--filename=a\:b.dat", "--output=a:b.dat"],
    ];
    for extra in cases {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (code, left) = run(d.path(), "iomark", &dirs, &args);
        assert_eq!((code, left), (2, want(&[])), "{extra:?}");
    }
    let user = scratch();
    let precious = user.path().join("precious");
    std::fs::write(&precious, PRECIOUS).unwrap();
    let link = |dir: &Path| {
        dirs(dir);
        std::os::unix::fs::symlink(&precious, dir.join("d2/j.1.0")).unwrap();
    };
    let args: Vec<&str> = base
        .iter()
        .chain(&["--directory=d1:d2", "--numjobs=2"])
        .copied()
        .collect();
    let (code, left) = run(d.path(), "iomark", &link, &args);
    assert_eq!(code, 3);
    assert_eq!(
        left,
        want(&[("d2/j.1.0", precious.to_string_lossy().len() as u64)])
    );
    assert_eq!(std::fs::read(&precious).unwrap(), PRECIOUS);
}

/// The job files of [`nrfiles_counts_the_names_as_fio`]: `nrfiles=0` in the job after
/// the `[global]` name (`c.fio`), and between two names of one section (`a.fio`, which
/// fio reads with its `filename=` lines last).
fn nrfiles_job_files(dir: &Path) {
    let job = "[j]\nsize=64k\nrw=write\n";
    let c = format!("[global]\nfilename=f1\n{job}nrfiles=0\nfilename=f2\n");
    std::fs::write(dir.join("c.fio"), c).unwrap();
    let a = format!("{job}filename=f1\nnrfiles=0\nfilename=f2\n");
    std::fs::write(dir.join("a.fio"), a).unwrap();
}

/// `nrfiles` is fio 3.33's count of a job's files, which each `filename=` name raises
/// by one, the job's first names replacing the count it had: `--filename=f1 --nrfiles=0
/// --filename=f2` is the one file `f1` (the count is 1), `nrfiles=N` after a list keeps
/// its first N names, a count above the names is the names. In a job file the section's
/// `filename=` lines are read last (fio's option order), so `nrfiles=0` between two of
/// them counts both; after the `[global]`'s name it keeps that one. Sizes: `size`
/// shared by the files kept.
#[test]
fn nrfiles_counts_the_names_as_fio() {
    let d = scratch();
    let k = |n: u64| n << 10;
    let cases: [Case; 7] = [
        (
            &["--filename=f1", "--nrfiles=0", "--filename=f2"],
            &[("f1", k(64))],
        ),
        (
            &["--filename=f1:f2", "--nrfiles=0", "--filename=f3"],
            &[("f1", k(64))],
        ),
        (
            &["--filename=f1", "--nrfiles=1", "--filename=f2"],
            &[("f1", k(32)), ("f2", k(32))],
        ),
        (
            &["--filename=f1:f2:f3", "--nrfiles=2"],
            &[("f1", k(32)), ("f2", k(32))],
        ),
        (&["--filename=f1", "--nrfiles=3"], &[("f1", k(64))]),
        (&["c.fio"], &[("f1", k(64))]),
        (&["a.fio"], &[("f1", k(32)), ("f2", k(32))]),
    ];
    for tool in tools("nrfiles_counts_the_names_as_fio") {
        for (args, expect) in cases {
            let mut all = vec!["--name=j", "--size=64k", "--rw=write"];
            if args[0].ends_with(".fio") {
                all.clear();
            }
            all.extend_from_slice(args);
            let (code, left) = run(d.path(), tool, &nrfiles_job_files, &all);
            assert_eq!((code, left), (0, want(expect)), "{tool}: {args:?}");
        }
    }
}
