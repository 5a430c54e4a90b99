//! `opendir=D` as fio 3.33 runs it, side by side with the installed fio: its files in
//! readdir(3) order, a subdirectory's where it is met (filesetup.c `recurse_dir`); a file
//! smaller than the block is opened and closed without I/O while the others run; a
//! directory that adds no file leaves a job without files, which moves nothing with
//! `size=` and fails its setup without it (`you need to specify size=`); and fio's
//! `fio: opendir added N files` comes right before the line of the job that names the
//! directory.

use crate::util::*;
use std::path::{Path, PathBuf};

/// The regular files under `dir` as readdir(3) lists them, a subdirectory's files where
/// the subdirectory comes (depth first), each as `dir/NAME`: fio's `recurse_dir` walk.
fn readdir_order(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        let p = dir.join(e.file_name());
        if t.is_dir() {
            out.extend(readdir_order(&p));
        } else if t.is_file() {
            out.push(p);
        }
    }
    out
}

/// `d/` with `big` (8 KiB) and `small` (100 bytes).
fn big_and_small(d: &Path) {
    std::fs::create_dir_all(d.join("d")).unwrap();
    std::fs::write(d.join("d/big"), vec![7u8; 8192]).unwrap();
    std::fs::write(d.join("d/small"), vec![7u8; 100]).unwrap();
}

/// A file of `opendir`'s directory smaller than the block holds no request: fio 3.33
/// opens it, finds nothing to do and closes it (`open` and `close` in its I/O log) and
/// does the job's I/O on the others — 8 KiB in two requests here, exit 0. iomark
/// refused the job (exit 2).
#[test]
fn a_file_smaller_than_the_block_is_opened_and_closed_without_io() {
    for (rw, dir) in [
        ("read", "read"),
        ("randread", "read"),
        ("write", "write"),
        ("randwrite", "write"),
    ] {
        let rw_opt = format!("--rw={rw}");
        let args = [
            "--name=j",
            "--opendir=d",
            "--bs=4k",
            &rw_opt,
            "--write_iolog=io.log",
            "--output-format=json",
        ];
        let b = fio_and_iomark("opendir_small_file", &args, |d, _| big_and_small(d));
        let mut logs = Vec::new();
        for (tool, o) in b.each() {
            assert_eq!(o.code, 0, "{tool} {rw}: {}", o.dump());
            let j = &o.json_doc()["jobs"][0];
            assert_eq!(j["error"], 0, "{tool} {rw}");
            assert_eq!(j[dir]["io_bytes"], 8192, "{tool} {rw}");
            assert_eq!(j[dir]["total_ios"], 2, "{tool} {rw}");
            let log = iolog_lines(&b.dir(tool).join("io.log"));
            for l in [
                "d/small add",
                "d/small open",
                "d/small close",
                "d/big close",
            ] {
                assert!(log.iter().any(|x| x == l), "{tool} {rw}: {log:?}");
            }
            assert!(
                !log.iter()
                    .any(|x| x.starts_with("d/small ") && x.contains("4096")),
                "{tool} {rw}: {log:?}"
            );
            let sizes =
                ["d/big", "d/small"].map(|f| std::fs::metadata(b.dir(tool).join(f)).unwrap().len());
            assert_eq!(sizes, [8192, 100], "{tool} {rw}: no file grew");
            logs.push(
                log.into_iter()
                    .filter(|l| !l.contains(" 4096"))
                    .collect::<Vec<_>>(),
            );
        }
        if let [mine, fio] = &logs[..] {
            assert_eq!(
                mine, fio,
                "{rw}: the log's files and their open/close, iomark then fio"
            );
        }
    }
}

/// An `opendir` that adds no file, with no later `nrfiles`: fio 3.33's job has no file.
/// With `size=` it runs and moves nothing (exit 0, `error` 0, no bytes); without it its
/// setup fails as `total_file_size` fails (`j: you need to specify size=`, its `fio:
/// pid=0, err=22/…` line on stderr, `error` 22, exit 1). iomark refused both (exit 2).
#[test]
fn an_empty_opendir_runs_no_io_or_fails_for_its_size() {
    let no_size = "j: you need to specify size=\nfio: pid=0, err=22/file:filesetup.c:1155, func=total_file_size, error=Invalid argument\n";
    for (size, code, error) in [(Some("--size=1m"), 0, 0), (None, 1, 22)] {
        let mut args = vec![
            "--name=j",
            "--opendir=e",
            "--rw=write",
            "--write_iolog=io.log",
            "--output-format=json",
        ];
        args.extend(size);
        let b = fio_and_iomark("opendir_empty", &args, |d, _| {
            std::fs::create_dir_all(d.join("e")).unwrap();
        });
        for (tool, o) in b.each() {
            let why = format!("{tool} {size:?}");
            assert_eq!(o.code, code, "{why}: {}", o.dump());
            assert!(
                o.stdout.starts_with("fio: opendir added 0 files\n"),
                "{why}: {}",
                o.stdout
            );
            let j = &o.json_doc()["jobs"][0];
            assert_eq!(j["error"], error, "{why}");
            for d in ["read", "write"] {
                assert_eq!(j[d]["io_bytes"], 0, "{why} {d}");
            }
            assert_eq!(std::fs::read_dir(b.dir(tool).join("e")).unwrap().count(), 0);
            if code == 0 {
                assert_eq!(o.stderr, "", "{why}");
                // the log has its version line and no file
                let log = std::fs::read_to_string(b.dir(tool).join("io.log")).unwrap();
                assert_eq!(log, "fio version 3 iolog\n", "{why}");
            } else {
                assert_eq!(o.stderr, no_size, "{why}");
            }
        }
    }
}

/// opendir's files in fio 3.33's order: readdir(3)'s, a subdirectory's files where it
/// comes — the `add` lines of the I/O log and the order the job reads them in.
#[test]
fn opendir_adds_its_files_in_readdir_order() {
    let tree = |d: &Path| {
        std::fs::create_dir_all(d.join("t/sub")).unwrap();
        for f in ["zz", "aa", "mm", "sub/k", "bb"] {
            std::fs::write(d.join("t").join(f), vec![1u8; 4096]).unwrap();
        }
    };
    let args = [
        "--name=j",
        "--opendir=t",
        "--rw=read",
        "--write_iolog=io.log",
        "--output-format=json",
    ];
    let b = fio_and_iomark("opendir_order", &args, |d, _| tree(d));
    for (tool, o) in b.each() {
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        let dir = b.dir(tool);
        let want: Vec<String> = readdir_order(&dir.join("t"))
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        assert_eq!(want.len(), 5);
        let log = iolog_lines(&dir.join("io.log"));
        let added: Vec<&str> = log.iter().filter_map(|l| l.strip_suffix(" add")).collect();
        assert_eq!(added, want, "{tool}: the files added");
        let read: Vec<&str> = log
            .iter()
            .filter_map(|l| l.strip_suffix(" read 0 4096"))
            .collect();
        assert_eq!(read, want, "{tool}: the files read, in turn");
    }
}

/// With several jobs, fio 3.33 says `fio: opendir added N files` as it reads the job
/// that names the directory: after the section line of the job before it, right before
/// its own — on stdout with the normal report, and before the JSON document.
#[test]
fn opendir_says_its_count_before_its_jobs_line() {
    let text = "[a]\nfilename=fa\nsize=8k\n[b]\nopendir=t\n[c]\nfilename=fc\nsize=8k\n";
    for fmt in ["normal", "json"] {
        let fmt_opt = format!("--output-format={fmt}");
        let args = ["job.fio", fmt_opt.as_str()];
        let b = fio_and_iomark("opendir_count_place", &args, |d, _| {
            std::fs::write(d.join("job.fio"), text).unwrap();
            std::fs::create_dir_all(d.join("t")).unwrap();
            for f in ["x", "y"] {
                std::fs::write(d.join("t").join(f), vec![1u8; 4096]).unwrap();
            }
        });
        let mut firsts = Vec::new();
        for (tool, o) in b.each() {
            assert_eq!(o.code, 0, "{tool} {fmt}: {}", o.dump());
            let lines: Vec<&str> = o.stdout.lines().take(4).collect();
            if fmt == "normal" {
                assert!(
                    lines[0].starts_with("a: (g=0): rw=read"),
                    "{tool}: {lines:?}"
                );
                assert_eq!(lines[1], "fio: opendir added 2 files", "{tool}");
                assert!(
                    lines[2].starts_with("b: (g=0): rw=read"),
                    "{tool}: {lines:?}"
                );
                assert!(
                    lines[3].starts_with("c: (g=0): rw=read"),
                    "{tool}: {lines:?}"
                );
            } else {
                assert_eq!(lines[..2], ["fio: opendir added 2 files", "{"], "{tool}");
            }
            // (the JSON document's third line is its timestamp, a second apart or not)
            let n = if fmt == "normal" { 4 } else { 2 };
            firsts.push(lines[..n].join("\n"));
        }
        if let [mine, fio] = &firsts[..] {
            assert_eq!(mine, fio, "{fmt}: iomark, then fio");
        }
    }
}

/// `d/` with four files of 8 KiB (`a` … `d`).
fn four_files(d: &Path) {
    std::fs::create_dir_all(d.join("d")).unwrap();
    for f in ["a", "b", "c", "d"] {
        std::fs::write(d.join("d").join(f), vec![3u8; 8192]).unwrap();
    }
}

/// `nrfiles=N` after `opendir=D` is fio 3.33's count of the job's files: the first N
/// files D added (readdir order) are the job's, the others are left alone; N above
/// the files found keeps them all (init.c `fixup_options`). With `size=` the kept files
/// share it (each `size / N`), laid out to it; the others keep their size. iomark kept
/// every file of D (and with `size=` extended all four).
#[test]
fn nrfiles_after_opendir_keeps_its_first_files() {
    for (nrfiles, size) in [(2usize, None), (9, None), (2, Some(65536u64)), (3, None)] {
        let nr_opt = format!("--nrfiles={nrfiles}");
        let size_opt = size.map(|s| format!("--size={s}"));
        let mut args = vec![
            "--name=j",
            "--opendir=d",
            nr_opt.as_str(),
            "--rw=read",
            "--bs=4k",
            "--write_iolog=io.log",
            "--output-format=json",
        ];
        args.extend(size_opt.as_deref());
        let b = fio_and_iomark("opendir_nrfiles", &args, |d, _| four_files(d));
        let mut logs = Vec::new();
        for (tool, o) in b.each() {
            let why = format!("{tool} nrfiles={nrfiles} size={size:?}");
            assert_eq!(o.code, 0, "{why}: {}", o.dump());
            let dir = b.dir(tool);
            let order: Vec<String> = readdir_order(&dir.join("d"))
                .iter()
                .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
                .collect();
            let kept = nrfiles.min(4);
            let each = size.map_or(8192, |s| s / kept as u64);
            let j = &o.json_doc()["jobs"][0];
            assert_eq!(j["error"], 0, "{why}");
            assert_eq!(j["read"]["io_bytes"], each * kept as u64, "{why}");
            let log = iolog_lines(&dir.join("io.log"));
            let read: Vec<&str> = log
                .iter()
                .filter_map(|l| l.strip_suffix(" read 0 4096"))
                .collect();
            assert_eq!(read, order[..kept], "{why}: the files read");
            for (i, f) in order.iter().enumerate() {
                let len = std::fs::metadata(dir.join(f)).unwrap().len();
                let want = if i < kept { each.max(8192) } else { 8192 };
                assert_eq!(len, want, "{why}: {f}'s size");
            }
            logs.push(log);
        }
        if let [mine, fio] = &logs[..] {
            assert_eq!(
                mine, fio,
                "nrfiles={nrfiles} size={size:?}: iomark, then fio"
            );
        }
    }
}

/// A random job over `opendir`'s files where some are smaller than the block: fio 3.33
/// draws no offset for such a file (`last_block` is 0, `get_next_rand_offset` gives up
/// before its draw), so the other file's offsets — the I/O log, line by line — are the
/// same draws in both, with the random map, without it (`norandommap`), with the LFSR,
/// mixed and over two loops. iomark drew once for each small file, one draw ahead.
#[test]
fn a_small_file_spends_no_random_draw() {
    let tree = |d: &Path| {
        std::fs::create_dir_all(d.join("d")).unwrap();
        std::fs::write(d.join("d/big"), vec![5u8; 65536]).unwrap();
        for f in ["s1", "s2", "s3"] {
            std::fs::write(d.join("d").join(f), vec![5u8; 100]).unwrap();
        }
    };
    for extra in [
        "--rw=randread",
        "--norandommap",
        "--random_generator=lfsr",
        "--rw=randrw",
        "--loops=2",
        "--rw=randwrite",
    ] {
        let mut args = vec![
            "--name=j",
            "--opendir=d",
            "--rw=randread",
            "--bs=4k",
            "--write_iolog=io.log",
            "--output-format=json",
        ];
        args.push(extra);
        let b = fio_and_iomark("opendir_small_draw", &args, |d, _| tree(d));
        let mut logs = Vec::new();
        for (tool, o) in b.each() {
            assert_eq!(o.code, 0, "{tool} {extra}: {}", o.dump());
            let log = iolog_lines(&b.dir(tool).join("io.log"));
            // a small file comes before the big one: its turn is taken before the draws
            let at = |name: &str| log.iter().position(|l| l == &format!("{name} open"));
            let big = at("d/big").unwrap_or_else(|| panic!("{tool}: {log:?}"));
            assert!(
                ["d/s1", "d/s2", "d/s3"].iter().any(|s| at(s) < Some(big)),
                "{tool} {extra}: {log:?}"
            );
            let big_ios = log
                .iter()
                .filter(|l| l.starts_with("d/big ") && l.ends_with(" 4096"))
                .count();
            // 16 blocks a loop; without the map the job ends by its bytes, 65836 with
            // the small files', so at 17 requests
            let want = match extra {
                "--loops=2" => 32,
                "--norandommap" => 17,
                _ => 16,
            };
            assert_eq!(big_ios, want, "{tool} {extra}: {log:?}");
            logs.push(log);
        }
        if let [mine, fio] = &logs[..] {
            assert_eq!(mine, fio, "{extra}: the I/O log, iomark then fio");
        }
    }
}

/// An `opendir` whose only file is smaller than the block: fio 3.33's setup fails
/// (`fio: blocksize is larger than data set range` on stderr, no error set, so no
/// `fio: pid=` line), the job is reported with nothing done and `error` 0, exit 1.
/// iomark refused the job before the run (exit 2).
#[test]
fn a_data_set_below_one_block_fails_the_jobs_setup() {
    for (case, args) in [("opendir", &["--opendir=d"][..])] {
        for fmt in ["normal", "json"] {
            let fmt_opt = format!("--output-format={fmt}");
            let mut all = vec!["--name=j", "--rw=read", "--bs=4k", fmt_opt.as_str()];
            all.extend(args);
            let b = fio_and_iomark("opendir_below_one_block", &all, |d, _| {
                std::fs::create_dir_all(d.join("d")).unwrap();
                std::fs::write(d.join("d/small"), vec![1u8; 100]).unwrap();
                std::fs::write(d.join("f"), vec![1u8; 8192]).unwrap();
            });
            let mut outs = Vec::new();
            for (tool, o) in b.each() {
                let why = format!("{tool} {case} {fmt}");
                assert_eq!(o.code, 1, "{why}: {}", o.dump());
                assert_eq!(
                    o.stderr,
                    "fio: blocksize is larger than data set range\n",
                    "{why}: {}",
                    o.dump()
                );
                assert!(!o.stdout.contains("fio: pid="), "{why}: {}", o.dump());
                if fmt == "json" {
                    let j = &o.json_doc()["jobs"][0];
                    assert_eq!(j["error"], 0, "{why}");
                    assert_eq!(j["read"]["io_bytes"], 0, "{why}");
                    assert_eq!(j["read"]["total_ios"], 0, "{why}");
                    outs.push(o.stdout.lines().take(1).collect::<Vec<_>>().join("\n"));
                } else {
                    let ended = o
                        .stdout
                        .trim_end()
                        .ends_with("Run status group 0 (all jobs):");
                    assert!(ended, "{why}: {}", o.stdout);
                    outs.push(o.stdout.clone());
                }
            }
            if let [mine, fio] = &outs[..] {
                assert_eq!(mine, fio, "{case} {fmt}: iomark, then fio");
            }
        }
    }
}
