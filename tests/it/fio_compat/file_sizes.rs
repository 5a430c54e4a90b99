//! How much a job reads and how large its files are after it, under `filesize=` with
//! `size=` and `offset=` (bytes and percentages), one file or two, new files or files
//! already there: iomark as `fio` and fio 3.33 run the same grid, each case in a fresh
//! directory, and must agree on the exit code, each job's error and bytes read, and
//! every file's size afterwards (a file the user made is never grown past fio's size).

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// What one run left: exit code, (error, bytes read) of each job, the files' sizes.
#[derive(Debug, PartialEq)]
struct Outcome {
    code: i32,
    jobs: Vec<(u64, u64)>,
    files: Vec<(String, u64)>,
}

/// Run `args` (`--name=p`, read, 64 KiB) with `tool` (`fio`, or iomark as `fio`) in
/// `dir`, whose files `pre` bytes each were made before (`p.0.N`, `nrfiles` of them).
fn outcome(root: &Path, dir: &Path, tool: &str, args: &[String], pre: Option<u64>) -> Outcome {
    std::fs::create_dir_all(dir).unwrap();
    let nrfiles = args
        .iter()
        .find_map(|a| a.strip_prefix("--nrfiles="))
        .map_or(1, |n| n.parse::<u64>().unwrap());
    if let Some(bytes) = pre {
        for i in 0..nrfiles {
            let data: Vec<u8> = (0..bytes).map(|b| (b * 7 + i) as u8).collect();
            std::fs::write(dir.join(format!("p.0.{i}")), data).unwrap();
        }
    }
    let cmd = if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(root)
    };
    let o = cmd
        .dir(dir)
        .args(["--name=p", "--rw=read", "--bs=64k", "--output-format=json"])
        .args(args.iter().map(String::as_str))
        .run();
    let jobs = match o.stdout.find('{') {
        Some(at) => {
            let doc: Value = serde_json::from_str(&o.stdout[at..])
                .unwrap_or_else(|e| panic!("{tool} {args:?}: {e}\n{}", o.dump()));
            doc["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| {
                    let n = |v: &Value| v.as_u64().unwrap_or(0);
                    (n(&j["error"]), n(&j["read"]["io_bytes"]))
                })
                .collect()
        }
        None => Vec::new(),
    };
    let mut files: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().len(),
            )
        })
        .collect();
    files.sort();
    Outcome {
        code: o.code,
        jobs,
        files,
    }
}

/// The grid: filesize × size × offset × nrfiles × files before the run.
fn grid() -> Vec<(Vec<String>, Option<u64>)> {
    const M: u64 = 1 << 20;
    let mut out = Vec::new();
    for filesize in [None, Some("4m")] {
        for size in [None, Some("2m"), Some("6m"), Some("50%"), Some("100%")] {
            for offset in [None, Some("1m"), Some("25%")] {
                for nrfiles in [1, 2] {
                    for pre in [None, Some(3 * M), Some(4 * M), Some(5 * M)] {
                        let mut args = vec![format!("--nrfiles={nrfiles}")];
                        let opt = |k: &str, v: Option<&str>| v.map(|v| format!("--{k}={v}"));
                        args.extend(opt("filesize", filesize));
                        args.extend(opt("size", size));
                        args.extend(opt("offset", offset));
                        out.push((args, pre));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn filesize_size_offset_grid_matches_fio() {
    if !need_fio("filesize_size_offset_grid_matches_fio") {
        return;
    }
    let d = scratch();
    let mut differ = Vec::new();
    let mut ran = 0;
    for (i, (args, pre)) in grid().into_iter().enumerate() {
        let case = |tool: &str| {
            let dir = d.path().join(format!("{tool}.{i}"));
            outcome(d.path(), &dir, tool, &args, pre)
        };
        let (ours, theirs) = (case("iomark"), case("fio"));
        if theirs.jobs.iter().any(|j| j.1 > 0) {
            ran += 1;
        }
        if ours != theirs {
            differ.push(format!(
                "{args:?} pre={pre:?}\n  iomark {ours:?}\n  fio    {theirs:?}"
            ));
        }
    }
    // the grid is not all refusals: most cases read something
    assert!(ran > 100, "only {ran} cases read data");
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// What one sequential 4 KiB read of 64 KiB from an offset left: exit code, the offsets
/// read (its `write_iolog`), the reads the JSON counts, the size of file `f`.
type OffsetRun = (i32, Vec<u64>, u64, u64);

/// [`OffsetRun`] of `tool` reading from `offset`, file `f` of `pre` bytes made before.
fn offset_run(root: &Path, tool: &str, offset: &str, pre: Option<u64>) -> OffsetRun {
    let (cmd, w) = fio_or_ours_in(tool, root);
    if let Some(bytes) = pre {
        std::fs::write(w.join("f"), vec![0u8; bytes as usize]).unwrap();
    }
    let o = cmd
        .args([
            "--name=j",
            "--filename=f",
            "--rw=read",
            "--bs=4k",
            "--size=64k",
        ])
        .arg(format!("--offset={offset}"))
        .args(["--write_iolog=io.log", "--output-format=json"])
        .run();
    let reads: Vec<u64> = iolog_lines(&w.join("io.log"))
        .iter()
        .filter(|l| l.contains(" read "))
        .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    let doc: Value = serde_json::from_str(&o.stdout[o.stdout.find('{').unwrap()..])
        .unwrap_or_else(|e| panic!("{tool} {offset}: {e}\n{}", o.dump()));
    let ios = doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    let size = std::fs::metadata(w.join("f")).map_or(0, |m| m.len());
    (o.code, reads, ios, size)
}

/// `offset=` given as a percentage that fio 3.33 does not read as one (parse.c
/// `str_to_decimal` and options.c `str_offset_cb`): `10.5%` is 10 bytes (the `.`
/// ends the number, no unit: the I/O starts at byte 10, unaligned, and a new file is
/// laid out to 10 + 64 KiB); `-5%` is read in two parts, `-5%` (−1 − (−5) = 4 bytes)
/// then `5%`, so 5 % of a 1 MiB file, 52428 aligned up to 4 KiB: 53248; `150%` is
/// stored as 2^64 − 151 bytes, no percentage: no I/O, exit 0, a new file laid out to
/// the wrapped end 65536 − 151 = 65385 bytes and a larger one left alone. Each case
/// also equals fio 3.33's run.
#[test]
fn percent_offsets_fio_does_not_read_as_percentages_are_read_as_fio() {
    require_fio();
    const M: u64 = 1 << 20;
    let seq = |from: u64| (0..16).map(|i| from + i * 4096).collect::<Vec<u64>>();
    let cases: [(&str, Option<u64>, OffsetRun); 7] = [
        ("10.5%", None, (0, seq(10), 16, 65546)),
        ("10.5%", Some(M), (0, seq(10), 16, M)),
        ("-5%", Some(M), (0, seq(53248), 16, M)),
        ("-5%", None, (0, seq(0), 16, 65536)),
        ("150%", None, (0, vec![], 0, 65385)),
        ("150%", Some(M), (0, vec![], 0, M)),
        ("1%-2%", Some(M), (0, seq(24576), 16, M)),
    ];
    let d = scratch();
    for (offset, pre, want) in cases {
        let ours = offset_run(d.path(), "iomark", offset, pre);
        assert_eq!(ours, want, "offset={offset} pre={pre:?}");
        let theirs = offset_run(d.path(), "fio", offset, pre);
        assert_eq!(
            ours, theirs,
            "offset={offset} pre={pre:?}: iomark vs fio 3.33"
        );
    }
}

/// With no `size=`, an `offset=` past an existing file's end (`150%`, 2^64 − 151 bytes
/// as fio 3.33 reads it) is fio's setup_files refusal: `j: you need to specify valid
/// offset=` on stderr, exit 1, the file left as it was; iomark as `fio` says the same.
#[test]
fn an_offset_past_an_existing_file_without_size_is_fios_valid_offset_refusal() {
    require_fio();
    let args = [
        "--name=j",
        "--filename=f",
        "--rw=write",
        "--bs=64k",
        "--offset=150%",
    ];
    let b = fio_and_iomark("offset_past_file", &args, |d, _| {
        std::fs::write(d.join("f"), vec![7u8; 1 << 20]).unwrap();
    });
    let fio = b.fio.as_ref().unwrap();
    for (tool, o, d) in [
        ("fio", fio, b.dir.path().join("fio")),
        ("iomark", &b.iomark, b.dir.path().to_path_buf()),
    ] {
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert!(
            o.stderr
                .lines()
                .any(|l| l == "j: you need to specify valid offset="),
            "{tool}: {}",
            o.dump()
        );
        assert_eq!(
            std::fs::read(d.join("f")).unwrap(),
            vec![7u8; 1 << 20],
            "{tool}"
        );
    }
}
