//! A job that reads, with no `size=`, a file an earlier job of the run lays out: fio
//! 3.33 sets every job's files up in job order before any I/O, so the reader is sized
//! from the file as the writer leaves it — after a stonewall or in the same group, named
//! (`filename=shared.dat`) or by the writer's default name (`w.0.0`), a file already
//! there grown to the writer's size. A reader before the writer finds nothing and fails
//! its setup (`you need to specify size=`). iomark as `fio`, `iomark run` and fio (when
//! installed) run the same job files, each in a fresh directory.

use crate::util::*;
use std::path::Path;

/// (job name, bytes read, bytes written, error) of each job, and the exit code, of
/// `job_file` run by `tool` in a fresh directory `dir` holding `pre` bytes at
/// `shared.dat` first.
fn outcome(
    root: &Path,
    dir: &Path,
    tool: &str,
    job_file: &str,
    pre: Option<u64>,
) -> (i32, Vec<(String, u64, u64, i64)>) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("jobs.fio"), job_file).unwrap();
    if let Some(n) = pre {
        std::fs::write(dir.join("shared.dat"), vec![7u8; n as usize]).unwrap();
    }
    let cmd = match tool {
        "fio" => fio_cmd(),
        "iomark" => as_fio(root),
        _ => Iomark::new().arg("run"),
    };
    let o = cmd
        .dir(dir)
        .args(["jobs.fio", "--output-format=json"])
        .run();
    let v = o.json_doc();
    let jobs = v["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("{tool}: {}", o.dump()))
        .iter()
        .map(|j| {
            let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
            (
                j["jobname"].as_str().unwrap_or("").to_string(),
                n(&j["read"]["io_bytes"]),
                n(&j["write"]["io_bytes"]),
                j["error"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    (o.code, jobs)
}

const M4: u64 = 4 << 20;

/// The job files and what each job does (fio 3.33's figures).
fn cases() -> Vec<(&'static str, &'static str, Option<u64>, u64)> {
    vec![
        // (name, job file, bytes at shared.dat before, bytes r reads)
        (
            "after a stonewall",
            "[w]\nrw=write\nsize=4m\nfilename=shared.dat\n[r]\nstonewall\nrw=read\nfilename=shared.dat\n",
            None,
            M4,
        ),
        (
            "in the same group",
            "[w]\nrw=write\nsize=4m\nfilename=shared.dat\n[r]\nrw=read\nfilename=shared.dat\n",
            None,
            M4,
        ),
        (
            "by the writer's default name",
            "[w]\nrw=write\nsize=4m\n[r]\nstonewall\nrw=read\nfilename=w.0.0\n",
            None,
            M4,
        ),
        (
            "grown from 1 MiB",
            "[w]\nrw=write\nsize=4m\nfilename=shared.dat\n[r]\nstonewall\nrw=read\nfilename=shared.dat\n",
            Some(1 << 20),
            M4,
        ),
        (
            "longer than the writer's",
            "[w]\nrw=write\nsize=4m\nfilename=shared.dat\n[r]\nstonewall\nrw=read\nfilename=shared.dat\n",
            Some(8 << 20),
            8 << 20,
        ),
    ]
}

#[test]
fn a_reader_without_size_is_sized_from_what_an_earlier_job_lays_out() {
    let d = scratch();
    let fio = need_fio("a_reader_without_size_is_sized_from_what_an_earlier_job_lays_out");
    for (i, (name, job_file, pre, read)) in cases().into_iter().enumerate() {
        let want = vec![("w".to_string(), 0, M4, 0), ("r".to_string(), read, 0, 0)];
        for tool in ["iomark", "run"] {
            let dir = d.path().join(format!("{tool}.{i}"));
            let got = outcome(d.path(), &dir, tool, job_file, pre);
            assert_eq!(got, (0, want.clone()), "{tool}, {name}");
        }
        if fio {
            let dir = d.path().join(format!("fio.{i}"));
            let got = outcome(d.path(), &dir, "fio", job_file, pre);
            assert_eq!(got, (0, want), "fio 3.33, {name}");
        }
    }
}

/// A reader before the writer finds no file: its setup fails (error 22, exit 1) and the
/// writer runs, as in fio 3.33.
#[test]
fn a_reader_before_the_writer_still_needs_a_size() {
    let d = scratch();
    let job_file =
        "[r]\nrw=read\nfilename=shared.dat\n[w]\nrw=write\nsize=4m\nfilename=shared.dat\n";
    let want = (
        1,
        vec![("r".to_string(), 0, 0, 22), ("w".to_string(), 0, M4, 0)],
    );
    let got = outcome(d.path(), &d.path().join("iomark"), "iomark", job_file, None);
    assert_eq!(got, want);
    if need_fio("a_reader_before_the_writer_still_needs_a_size") {
        let got = outcome(d.path(), &d.path().join("fio"), "fio", job_file, None);
        assert_eq!(got, want, "fio 3.33");
    }
}
