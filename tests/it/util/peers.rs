//! The peer tools iomark is compatible with: sysbench 1.0.20 and fio 3.33. `bash
//! tests/run.sh` installs both. The sysbench comparisons are the point of their tests,
//! so a missing sysbench fails them; the fio comparisons skip with the reason.

use super::cmd::{Iomark, Out};
use std::path::Path;

fn runs(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether the real sysbench is installed.
pub fn have_sysbench() -> bool {
    runs("sysbench")
}

/// Whether the real fio is installed.
pub fn have_fio() -> bool {
    runs("fio")
}

/// Whether fio is here; when not, says that `test` is skipped (on stderr).
pub fn need_fio(test: &str) -> bool {
    let have = have_fio();
    if !have {
        super::skip(format_args!("{test}: fio is not installed"));
    }
    have
}

/// `sysbench fileio ARGS` in `dir`. Panics when sysbench is missing.
pub fn sysbench(dir: &Path, args: &[&str]) -> Out {
    assert!(
        have_sysbench(),
        "sysbench 1.0.20 is required for the comparison tests (bash tests/run.sh installs it)"
    );
    Iomark::program("sysbench")
        .dir(dir)
        .arg("fileio")
        .args(args)
        .run()
}

/// fio 3.33 must be here: the calling test is a comparison (`bash tests/run.sh`
/// installs it).
pub fn require_fio() {
    assert!(
        have_fio(),
        "fio 3.33 (/usr/bin/fio) is required for the comparisons (bash tests/run.sh installs it)"
    );
}

/// `(code, stdout, stderr)` of fio and of iomark as `fio`, each run with `args` in its
/// own new directory under `root` holding `files` (`(relative path, text)`).
pub fn both_in(root: &Path, files: &[(&str, &str)], args: &[&str]) -> [(i32, String, String); 2] {
    ["fio", "iomark"].map(|tool| {
        let w = root.join(tool);
        let _ = std::fs::remove_dir_all(&w);
        std::fs::create_dir_all(&w).unwrap();
        for (name, text) in files {
            let p = w.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let cmd = if tool == "fio" {
            fio_cmd()
        } else {
            as_fio(root)
        };
        let o = cmd.dir(&w).args(args).run();
        (o.code, o.stdout, o.stderr)
    })
}

/// The sides of a side-by-side test: iomark as fio in `d/i`, and fio 3.33 in `d/f` when
/// it is installed (else the test says it skipped fio's side).
pub fn sides(d: &Path, what: &str) -> Vec<(&'static str, std::path::PathBuf)> {
    let mut s = vec![("iomark", d.join("i"))];
    if need_fio(what) {
        s.push(("fio", d.join("f")));
    }
    s
}

/// `args` run by `who` (`"fio"` or iomark as fio, from [`sides`]) in `dir`, made anew.
pub fn side_in(who: &str, d: &Path, dir: &Path, args: &[&str]) -> Out {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let cmd = if who == "fio" { fio_cmd() } else { as_fio(d) };
    cmd.dir(dir).args(args).run()
}

/// The real fio as a command (same timeout and capture as iomark's).
pub fn fio_cmd() -> Iomark {
    Iomark::program("fio")
}

/// The built binary under the name `fio` (the fio persona), linked in `dir/bin/` and
/// started as `fio` (its argv[0], as a shell runs it from the PATH, which fio's usage
/// prints); it keeps no results history (`IOMARK_HISTORY=off`).
pub fn as_fio(dir: &Path) -> Iomark {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fio = bin.join("fio");
    if !fio.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_iomark"), &fio).unwrap();
    }
    Iomark::program(fio)
        .env("IOMARK_HISTORY", "off")
        .configure(|c| {
            std::os::unix::process::CommandExt::arg0(c, "fio");
        })
}

/// `tool`'s command: the real fio for `"fio"`, else iomark as `fio` ([`as_fio`], its
/// link in `dir/bin/`).
pub fn fio_or_ours(tool: &str, dir: &Path) -> Iomark {
    if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(dir)
    }
}

/// The `fio: pid=…` line fio 3.33 prints on stdout for a job thread that failed before
/// any request, after checking the run as fio ends it: exit 1, nothing on stderr
/// (`who`, `what`: for the failure message).
pub fn failed_thread_line<'o>(who: &str, what: &str, o: &'o Out) -> &'o str {
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (1, ""),
        "{who} {what}: {}",
        o.dump()
    );
    let said = o.stdout.lines().find(|l| l.starts_with("fio: pid="));
    said.unwrap_or_else(|| panic!("{who} {what}: {}", o.dump()))
}

/// What one job printed under each tool: iomark's fio persona, and fio 3.33 when it is
/// installed; each ran in a directory of its own, kept while this lives.
pub struct Both {
    /// iomark, started as `fio`
    pub iomark: Out,
    /// fio 3.33 (`None`: not installed; the test said it skips the comparison)
    pub fio: Option<Out>,
    /// the directory iomark ran in (fio's is its subdirectory `fio`)
    pub dir: tempfile::TempDir,
}

impl Both {
    /// Each tool's output with its name: iomark's, then fio's when it ran.
    pub fn each(&self) -> Vec<(&'static str, &Out)> {
        let fio = self.fio.as_ref().map(|f| ("fio", f));
        std::iter::once(("iomark", &self.iomark))
            .chain(fio)
            .collect()
    }

    /// The directory the tool named `tool` (`"iomark"` or `"fio"`) ran in.
    pub fn dir(&self, tool: &str) -> std::path::PathBuf {
        match tool {
            "fio" => self.dir.path().join("fio"),
            _ => self.dir.path().to_path_buf(),
        }
    }
}

/// Runs the job `args` under iomark's fio persona and, when installed, under fio 3.33,
/// each in a fresh directory of its own; `prep` first makes the job's files there, given
/// the directory and the tool (to write them as that tool would). `test` names the
/// comparison skipped when fio is missing.
pub fn fio_and_iomark(test: &str, args: &[&str], prep: impl Fn(&Path, Iomark)) -> Both {
    let dir = super::scratch();
    let d = dir.path();
    prep(d, as_fio(d));
    let iomark = as_fio(d).dir(d).args(args).run();
    let fio = need_fio(test).then(|| {
        let f = d.join("fio");
        std::fs::create_dir_all(&f).unwrap();
        prep(&f, fio_cmd());
        fio_cmd().dir(&f).args(args).run()
    });
    Both { iomark, fio, dir }
}

/// `--parse-only` of a null job with `--KEY=VALUE` (under `fio`: iomark or fio 3.33;
/// or `iomark run`).
pub fn parse_only(cmd: Iomark, key: &str, value: &str) -> Out {
    cmd.args([
        "--parse-only",
        "--name=a",
        "--ioengine=null",
        "--size=1m",
        &format!("--{key}={value}"),
    ])
    .run()
}

/// fio 3.33 (`tool` "fio") or iomark as `fio`, to run in a fresh directory `d/TOOL` (made
/// empty here): the command, already in that directory, and the directory.
pub fn fio_or_ours_in(tool: &str, d: &Path) -> (Iomark, std::path::PathBuf) {
    let w = d.join(tool);
    let _ = std::fs::remove_dir_all(&w);
    std::fs::create_dir_all(&w).unwrap();
    (fio_or_ours(tool, d).dir(&w), w)
}

/// The lines of the `write_iolog` at `path` without their times (`NAME ACTION
/// [OFFSET LENGTH]`), after the version line.
pub fn iolog_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.lines()
        .skip(1)
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .collect()
}
