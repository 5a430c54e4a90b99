//! README.md cannot drift: every example command in it is run (at the README's own tiny
//! sizes, with shorter times where the example allows, in a scratch directory where it
//! writes) and each output line the README shows must appear in the real output once
//! numbers are masked (a number with its unit becomes `#`, runs of blanks one blank).
//! Lines that name this machine (the `target:` line of mark) are checked up to the
//! machine's part. The two examples that replay recorded input (`diagnose --fixture`,
//! `compare` of docs/results) are deterministic, so every line they show is checked.

use crate::util::*;
use std::path::{Path, PathBuf};

/// One example: the command line after `$ iomark` (continuations joined), the directory
/// it runs in (`$ cd …` before it), and the output lines the README shows (`…` dropped).
#[derive(Debug)]
struct Example {
    args: Vec<String>,
    cd: Option<String>,
    shown: Vec<String>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Shell words of a command line: blanks split, double quotes group.
pub(crate) fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut any) = (vec![], String::new(), false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The examples of README.md: indented blocks whose first line is `$ iomark …`.
fn examples(readme: &str) -> Vec<Example> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = vec![];
    let mut cd = None;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        if let Some(dir) = l.strip_prefix("$ cd ") {
            cd = Some(dir.trim().to_string());
        } else if let Some(cmd) = l.strip_prefix("$ iomark ") {
            let mut cmd = cmd.to_string();
            while cmd.ends_with('\\') {
                cmd.pop();
                i += 1;
                cmd += " ";
                cmd += lines[i].trim();
            }
            let mut shown = vec![];
            while i + 1 < lines.len() && lines[i + 1].starts_with("    ") {
                i += 1;
                let s = lines[i].trim();
                if s != "…" {
                    shown.push(s.to_string());
                }
            }
            out.push(Example {
                args: words(&cmd),
                cd: cd.take(),
                shown,
            });
        } else if !l.is_empty() && !lines[i].starts_with("    ") {
            cd = None;
        }
        i += 1;
    }
    out
}

const UNITS: &[&str] = &[
    "KiB", "MiB", "GiB", "TiB", "kB", "MB", "GB", "TB", "B", "ns", "µs", "ms", "k", "%",
];

/// Numbers (with a unit written after them) become `#`, blanks collapse: what stays is
/// the text around the figures.
pub(crate) fn mask(s: &str) -> String {
    let c: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_ascii_digit() {
            while i < c.len()
                && (c[i].is_ascii_digit()
                    || ((c[i] == '.' || c[i] == ',')
                        && c.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let mut j = i;
            while j < c.len() && c[j] == ' ' {
                j += 1;
            }
            let rest: String = c[j..c.len().min(j + 4)].iter().collect();
            // a unit is a whole word: `ms` of `3003msec` is not one
            if let Some(u) = UNITS.iter().find(|u| {
                rest.starts_with(**u)
                    && !c
                        .get(j + u.chars().count())
                        .is_some_and(|x| x.is_alphabetic())
            }) {
                i = j + u.chars().count();
            }
            out.push('#');
        } else if c[i].is_whitespace() {
            while i < c.len() && c[i].is_whitespace() {
                i += 1;
            }
            out.push(' ');
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out.trim().to_string()
}

/// Shorter runs where the example allows: seconds, and the run's file size.
fn shorten(args: &[String]) -> Vec<String> {
    args.iter()
        .map(|a| match a.as_str() {
            "--time=3" | "--time=5" => "--time=1".into(),
            "--runtime=3" => "--runtime=1".into(),
            "--size=256m" => "--size=16m".into(),
            "--file-total-size=64M" | "--file-total-size=256M" => "--file-total-size=16M".into(),
            _ => a.clone(),
        })
        .collect()
}

/// Lines whose tail names this machine: checked up to the prefix.
const MACHINE_LINES: &[&str] = &["target: "];

fn check(e: &Example) {
    let t = scratch();
    let mut args = shorten(&e.args);
    let dir: PathBuf = match (&e.cd, args[0].as_str()) {
        (Some(d), _) => repo().join(d),
        (None, "diagnose") => repo(),
        (None, _) => t.path().to_path_buf(),
    };
    // mark's placeholder directory: the scratch directory instead of /tmp
    for a in args.iter_mut() {
        if a == "/tmp" {
            *a = t.path().display().to_string();
        }
    }
    let o = Iomark::new().dir(&dir).args(&args).run();
    assert_eq!(o.code, 0, "iomark {args:?}: {}", o.stderr);
    let got: Vec<String> = o.stdout.lines().chain(o.stderr.lines()).map(mask).collect();
    for shown in &e.shown {
        let want = match MACHINE_LINES.iter().find(|p| shown.starts_with(**p)) {
            Some(p) => {
                assert!(
                    got.iter().any(|g| g.starts_with(p)),
                    "iomark {args:?} prints no {p:?} line"
                );
                continue;
            }
            None => mask(shown),
        };
        assert!(
            got.contains(&want),
            "README.md shows for iomark {}:\n  {shown}\nbut iomark prints (masked):\n  {}",
            e.args.join(" "),
            got.join("\n  ")
        );
    }
}

#[test]
fn readme_masking_keeps_the_words_and_drops_the_figures() {
    assert_eq!(
        mask("read: IOPS=47.8k, BW=187MiB/s (196MB/s)(561MiB/3003msec)"),
        "read: IOPS=#, BW=#/s (#/s)(#/#msec)"
    );
    assert_eq!(
        mask("create_write   300   0.074    60.3 µs    12.2 ms"),
        "create_write # # # #"
    );
    assert_eq!(
        words(r#"compare a.json --label="loop on tmpfs" --x=1"#),
        ["compare", "a.json", "--label=loop on tmpfs", "--x=1"]
    );
}

/// Every `$ iomark` example of README.md (one per command) runs and prints what the
/// README shows; the set-up command (`cargo run --release -- fileio …`) runs too.
#[test]
fn readme_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let ex = examples(&readme);
    let commands: Vec<&str> = ex.iter().map(|e| e.args[0].as_str()).collect();
    assert_eq!(
        commands,
        ["fileio", "run", "mark", "diagnose", "compare", "copy", "tree"],
        "{ex:#?}"
    );
    for e in &ex {
        assert!(!e.shown.is_empty(), "{e:?} shows no output");
        check(e);
    }
    let setup = readme
        .lines()
        .find_map(|l| l.trim().strip_prefix("cargo run --release -- "))
        .expect("the set-up command");
    check(&Example {
        args: words(setup),
        cd: None,
        shown: vec!["Throughput:".into()],
    });
    assert!(Path::new(&repo().join("docs/results")).is_dir());
}
