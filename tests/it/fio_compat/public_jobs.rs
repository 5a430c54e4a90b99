//! Public fio job files (tests/peer/public-jobs/, each headed by the repository, path and
//! commit it comes from) run under fio 3.33 and under iomark as `fio`, each in a fresh
//! directory of its own, scaled down to a few MiB and seconds ([`scaled`]): the exit
//! code, stderr (numbers masked), the JSON key paths, each job's I/Os and bytes, and the
//! files the run leaves must be fio's. A difference iomark keeps on purpose is listed
//! in [`DIFFERS`] with its reason (docs/compat/fio.md says it too); a listed file that
//! no longer differs fails the test, so the list stays true.

use crate::util::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Job files whose run differs from fio 3.33's on purpose, with the reason.
const DIFFERS: &[(&str, &str)] = &[(
    "louwrentius-fio-plot/fio-job-template-ceph.fio",
    "ioengine=rbd (Ceph's librbd): iomark has no rbd engine and refuses the job while \
     reading it (exit 1, one line naming the engine); fio 3.33 fails to connect to a \
     cluster (exit 2)",
)];

/// The values the templates' `${VAR}`s take (fio reads them from the environment).
const ENV: &[(&str, &str)] = &[
    ("MODE", "randread"),
    ("RW", "randwrite"),
    ("BLOCK_SIZE", "4k"),
    ("BLOCKSIZE", "8k"),
    ("ENGINE", "libaio"),
    ("IODEPTH", "4"),
    ("NUMJOBS", "2"),
    ("DIRECT", "1"),
    ("INVALIDATE", "1"),
    ("LOOPS", "2"),
    ("OUTPUT", "."),
    ("LOGINTERVAL", "100"),
    ("FILE", "data.bin"),
    ("SIZE", "1m"),
    ("DIRECTORY", "."),
    ("RUNTIME", "30"),
    ("CEPH_POOL", "rbd"),
    ("TARGET", "img"),
    ("ramp_time", "0"),
    ("ramp_time_randwrite", "0"),
    ("runtime", "30"),
];

/// The job files of the collection (include files, `*-include.fio`, left out).
fn job_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/public-jobs");
    let mut out = Vec::new();
    for repo in std::fs::read_dir(&root).unwrap() {
        let repo = repo.unwrap().path();
        if !repo.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&repo).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".fio") && !name.ends_with("-include.fio") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

/// `text` scaled down, line by line: sizes (not percentages) to 1 MiB, `time_based` off
/// (a job ends at its size), `runtime` a 30 s cap it never reaches, no ramp or start
/// delay, at most 4 clones, and a file a job names (a device included, `/dev/sdb` is
/// `dev-sdb`) or an absolute directory made a name in the run's own directory.
fn scaled(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim();
        let (key, value) = t.split_once('=').unwrap_or((t, ""));
        let (key, value) = (key.trim(), value.trim());
        let new = match key {
            _ if t.starts_with(['#', ';', '[']) => None,
            "size" | "filesize" | "io_size" if !value.contains('%') => Some("1m".to_string()),
            "time_based" => Some("0".into()),
            "runtime" => Some("30".into()),
            "ramp_time" | "startdelay" => Some("0".into()),
            "numjobs" => value.parse::<u32>().ok().map(|n| n.min(4).to_string()),
            "filename" => Some(local_names(value)),
            "directory" if value.starts_with('/') => Some(".".into()),
            _ => None,
        };
        match new {
            Some(v) => out.push_str(&format!("{key}={v}\n")),
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

/// The names of a `filename=` list, each made a name in the current directory.
fn local_names(list: &str) -> String {
    let one = |p: &str| {
        let base = p.rsplit('/').next().unwrap_or(p).to_string();
        if p.starts_with("/dev/") {
            format!("dev-{base}")
        } else {
            base
        }
    };
    list.split(':').map(one).collect::<Vec<_>>().join(":")
}

/// Whether a job of `text` names its files itself (else the command line gives
/// `--filename=data.bin`, a 1 MiB file made first, as kbench and fio-vm pass the
/// device they test).
fn names_files(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("filename") || l.starts_with("directory")
    })
}

/// What one tool did with one job file.
#[derive(Debug)]
struct Side {
    code: i32,
    stderr: Vec<String>,
    doc: Option<Value>,
    /// files left (not the job files): name, and size unless a log
    files: BTreeMap<String, Option<u64>>,
}

/// `job` (with its include files) scaled into `dir`, run by `tool` (`"fio"` or iomark
/// as `fio`, linked under `top`).
fn run_side(tool: &str, top: &Path, dir: &Path, job: &Path) -> Side {
    std::fs::create_dir_all(dir).unwrap();
    let mut before = BTreeSet::new();
    for f in std::fs::read_dir(job.parent().unwrap()).unwrap() {
        let f = f.unwrap().path();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::write(
            dir.join(&name),
            scaled(&std::fs::read_to_string(&f).unwrap()),
        )
        .unwrap();
        before.insert(name);
    }
    let text = std::fs::read_to_string(job).unwrap();
    let mut args = vec!["--output-format=json".to_string(), "--size=1m".into()];
    if !names_files(&text) {
        std::fs::write(dir.join("data.bin"), vec![0x5a; 1 << 20]).unwrap();
        args.push("--filename=data.bin".into());
    }
    args.push(job.file_name().unwrap().to_string_lossy().into_owned());
    let cmd = if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(top)
    };
    let o = cmd.dir(dir).envs(ENV).args(&args).run();
    let doc = o
        .stdout
        .find('{')
        .and_then(|i| serde_json::from_str(&o.stdout[i..]).ok());
    Side {
        code: o.code,
        stderr: masked_lines(&o.stderr),
        doc,
        files: left_files(dir, &before),
    }
}

/// The lines of `s`, each with its digits masked, sorted (clones print in any order).
fn masked_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .lines()
        .map(|l| {
            l.chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect()
        })
        .collect();
    v.sort();
    v
}

/// The files in `dir` not in `before`: their names, and the size of each but a log's.
fn left_files(dir: &Path, before: &BTreeSet<String>) -> BTreeMap<String, Option<u64>> {
    let mut out = BTreeMap::new();
    for f in std::fs::read_dir(dir).unwrap() {
        let f = f.unwrap();
        let name = f.file_name().to_string_lossy().into_owned();
        if before.contains(&name) {
            continue;
        }
        let size = (!name.ends_with(".log")).then(|| f.metadata().unwrap().len());
        out.insert(name, size);
    }
    out
}

/// Every key path of `v` with its value's type (numbers alike; a key that is a number,
/// such as a percentile's, masked as `#`; array items as `[]`).
fn key_paths(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let k = if k.parse::<f64>().is_ok() {
                    "#"
                } else {
                    k.as_str()
                };
                key_paths(x, &format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| key_paths(x, &format!("{at}[]"), out)),
        x => {
            let kind = match x {
                Value::Number(_) => "number",
                Value::String(_) => "string",
                Value::Bool(_) => "bool",
                _ => "null",
            };
            out.insert(format!("{at}:{kind}"));
        }
    }
}

/// Per job of the report: its name, and its I/Os and bytes over all directions (a
/// read/write mix draws its directions at random; the sum is the job's size).
fn ios(doc: &Value) -> Vec<(String, u64, u64)> {
    let jobs = doc["jobs"].as_array().cloned().unwrap_or_default();
    jobs.iter()
        .map(|j| {
            let sum = |k: &str| {
                ["read", "write", "trim"]
                    .iter()
                    .map(|d| j[*d][k].as_u64().unwrap_or(0))
                    .sum()
            };
            (
                j["jobname"].as_str().unwrap_or("").to_string(),
                sum("total_ios"),
                sum("io_bytes"),
            )
        })
        .collect()
}

/// The differences between fio's side `f` and iomark's `i`, one line each.
fn differences(f: &Side, i: &Side) -> Vec<String> {
    let mut d = Vec::new();
    if f.code != i.code {
        d.push(format!("exit: fio {} iomark {}", f.code, i.code));
    }
    if f.stderr != i.stderr {
        d.push(format!(
            "stderr: fio {:?}\n        iomark {:?}",
            f.stderr, i.stderr
        ));
    }
    match (&f.doc, &i.doc) {
        (Some(a), Some(b)) => {
            let (mut pa, mut pb) = (BTreeSet::new(), BTreeSet::new());
            key_paths(a, "", &mut pa);
            key_paths(b, "", &mut pb);
            if pa != pb {
                let only = |x: &BTreeSet<String>, y: &BTreeSet<String>| {
                    x.difference(y).take(8).cloned().collect::<Vec<_>>()
                };
                d.push(format!(
                    "json-keys: fio only {:?}, iomark only {:?}",
                    only(&pa, &pb),
                    only(&pb, &pa)
                ));
            }
            if ios(a) != ios(b) {
                d.push(format!("ios: fio {:?} iomark {:?}", ios(a), ios(b)));
            }
        }
        (None, None) => {}
        (a, b) => d.push(format!("json: fio {} iomark {}", a.is_some(), b.is_some())),
    }
    if f.files != i.files {
        d.push(format!("files: fio {:?} iomark {:?}", f.files, i.files));
    }
    d
}

/// Each public job file under fio 3.33 and under iomark as `fio`, two files at a time.
#[test]
fn public_job_files_run_as_under_fio() {
    if !need_fio("public_job_files_run_as_under_fio") {
        return;
    }
    let files = job_files();
    assert!(files.len() >= 25, "{} job files", files.len());
    let d = scratch();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(job) = files.get(n) else { break };
                let top = d.path().join(n.to_string());
                let f = run_side("fio", &top, &top.join("f"), job);
                let i = run_side("iomark", &top, &top.join("i"), job);
                let _ = std::fs::remove_dir_all(&top);
                found
                    .lock()
                    .unwrap()
                    .push((job.clone(), differences(&f, &i)));
            });
        }
    });
    let mut bad = Vec::new();
    for (job, diffs) in found.into_inner().unwrap() {
        let parent = job.parent().unwrap().file_name().unwrap().to_string_lossy();
        let rel = format!("{parent}/{}", job.file_name().unwrap().to_string_lossy());
        match (DIFFERS.iter().any(|(f, _)| *f == rel), diffs.is_empty()) {
            (true, true) => bad.push(format!("{rel}: listed in DIFFERS but runs as under fio")),
            (false, false) => bad.push(format!("{rel}:\n    {}", diffs.join("\n    "))),
            _ => {}
        }
    }
    bad.sort();
    assert!(
        bad.is_empty(),
        "{} of {} job files:\n{}",
        bad.len(),
        files.len(),
        bad.join("\n")
    );
}

/// kannkyo/docker-benchmark's jobs name their file in `[global]` and again in the job:
/// fio 3.33 adds the job's name to the global one, so the job has two files of that one
/// name, each half its size (1 MiB over two: the file is laid out to 512 KiB, and the
/// job moves 1 MiB in all). A job naming another file has both, each half its size.
#[test]
fn a_filename_in_global_and_in_the_job_is_two_files() {
    let test = "a_filename_in_global_and_in_the_job_is_two_files";
    let job = "[global]\nfilename=a\nsize=1m\nbs=4k\n[r]\nfilename=a\nrw=read\n\
               [w]\nstonewall\nfilename=b\nrw=write\n";
    let d = scratch();
    let half = 1u64 << 19;
    for (tool, dir) in sides(d.path(), test) {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("j.fio"), job).unwrap();
        let o = side_in_keep(tool, d.path(), &dir, &["--output-format=json", "j.fio"]);
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        let bytes: Vec<u64> = ios(&o.json()).into_iter().map(|(_, _, b)| b).collect();
        assert_eq!(bytes, [2 * half; 2], "{tool}");
        let size = |n: &str| std::fs::metadata(dir.join(n)).unwrap().len();
        assert_eq!((size("a"), size("b")), (half, half), "{tool}");
    }
}

/// `args` run by `tool` in `dir` as it is (its files kept), iomark linked under `top`.
fn side_in_keep(tool: &str, top: &Path, dir: &Path, args: &[&str]) -> Out {
    let cmd = if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(top)
    };
    cmd.dir(dir).args(args).run()
}
