//! The truth warnings (src/result/truth.rs) through the binary: each fact that decides
//! whether a result measured the device — a sparse or fallocated file read, a target in
//! memory (tmpfs, zram), buffered writes never synced, a set that fits in RAM, reads
//! served by the page cache right after `prepare` — gives its warning id in the JSON
//! (`warnings[].id`) and an `iomark: WARNING [id]` line in the text of `fileio`, `run`
//! and `mark`, and `compare` shows it in every format. Device counters are read on loop
//! devices (and zram), so other processes' I/O on the build disk cannot change them.
//! Where a fact cannot arise for a command, the test says why (mark is O_DIRECT and
//! writes its own test file).

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// The warning ids of a result.
fn ids(j: &Value) -> Vec<String> {
    j["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings array: {j}"))
        .iter()
        .map(|w| w["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// `fileio ARGS --json=J` in `dir`: the output (exit 0 asserted) and the result.
fn fileio_json(dir: &Path, args: &[&str]) -> (Out, Value) {
    let j = dir.join("fileio.json");
    let o = Iomark::new()
        .dir(dir)
        .arg("fileio")
        .args(args)
        .arg(format!("--json={}", j.display()))
        .arg("run")
        .run();
    o.expect_code(0);
    (o, read_json(&j))
}

/// `run ARGS --json=J` in `dir`: the output (exit 0 asserted) and the result.
fn run_json(dir: &Path, args: &[&str]) -> (Out, Value) {
    let j = dir.join("run.json");
    let o = Iomark::new()
        .dir(dir)
        .arg("run")
        .args(["--name=t", "--ioengine=psync", "--bs=4k"])
        .args(args)
        .arg(format!("--json={}", j.display()))
        .run();
    o.expect_code(0);
    (o, read_json(&j))
}

/// `mark PATH` at its smallest (realworld preset, 8 MiB, 1 s per test): the output and
/// the result, or `None` when PATH cannot take O_DIRECT (exit 3, said on stderr).
fn mark_json(path: &Path, json: &Path) -> Option<(Out, Value)> {
    let o = Iomark::new()
        .arg("mark")
        .arg(path)
        .args([
            "--preset=realworld",
            "--size=8M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
        ])
        .arg(format!("--json={}", json.display()))
        .run();
    if o.code == 3 && o.stderr.contains("O_DIRECT") {
        eprintln!(
            "mark on {}: not applicable: {}",
            path.display(),
            o.stderr.trim()
        );
        return None;
    }
    o.expect_code(0);
    Some((o, read_json(json)))
}

/// Assert `id` is in the result and its `[id]` line in the text.
#[track_caller]
fn said(what: &str, id: &str, o: &Out, j: &Value) {
    assert!(
        ids(j).iter().any(|x| x == id),
        "{what}: {id} not in {:?}",
        ids(j)
    );
    assert!(
        o.all().contains(&format!("iomark: WARNING [{id}]")),
        "{what}: no [{id}] line\n{}",
        o.dump()
    );
}

#[track_caller]
fn unsaid(what: &str, id: &str, j: &Value) {
    assert!(
        !ids(j).iter().any(|x| x == id),
        "{what}: {id} unexpected in {:?}",
        ids(j)
    );
}

/// A 1 MiB `test_file.0` in `dir`: a hole (`truncate`), fallocated, or written.
fn one_file(dir: &Path, how: &str) {
    use std::os::unix::io::AsRawFd;
    let p = dir.join("test_file.0");
    let f = std::fs::File::create(&p).unwrap();
    match how {
        "sparse" => f.set_len(1 << 20).unwrap(),
        // SAFETY: fallocate on a descriptor we own
        "fallocated" => assert_eq!(unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, 1 << 20) }, 0),
        _ => {
            std::fs::write(&p, vec![7u8; 1 << 20]).unwrap();
        }
    }
    f.sync_all().unwrap();
}

#[test]
fn sparse_and_fallocated_files_read_are_called_out_by_fileio_and_run() {
    let fileio_args = [
        "--file-num=1",
        "--file-total-size=1M",
        "--file-test-mode=rndrd",
        "--time=0",
        "--events=64",
    ];
    let run_args = [
        "--filename=test_file.0",
        "--rw=randread",
        "--size=1m",
        "--number_ios=64",
    ];
    for how in ["sparse", "fallocated"] {
        let d = scratch();
        one_file(d.path(), how);
        let (o, j) = fileio_json(d.path(), &fileio_args);
        said(&format!("fileio, {how}"), "data.unwritten", &o, &j);
        assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 1 << 20, "{how}");
        let (o, j) = run_json(d.path(), &run_args);
        said(&format!("run, {how}"), "data.unwritten", &o, &j);
    }
    // the same file written: no warning
    let d = scratch();
    one_file(d.path(), "written");
    let (_, j) = fileio_json(d.path(), &fileio_args);
    unsaid("fileio, written", "data.unwritten", &j);
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 0);
    let (_, j) = run_json(d.path(), &run_args);
    unsaid("run, written", "data.unwritten", &j);
    // mark: not applicable — it writes its whole test file before any read (the zram
    // test below checks its result carries no data.unwritten)
}

/// fileio prepare + seqrd, run (buffered, then O_DIRECT) and mark in `dir`: each must
/// say `id`. Returns the JSON files written, for compare.
fn memory_target(dir: &Path, id: &str, out: &Path) -> Vec<std::path::PathBuf> {
    let set = ["--file-num=1", "--file-total-size=2M"];
    fileio(dir, &[&set[..], &["prepare"]].concat()).ok();
    let (o, j) = fileio_json(
        dir,
        &[
            &set[..],
            &["--file-test-mode=seqrd", "--time=0", "--events=64"],
        ]
        .concat(),
    );
    said("fileio", id, &o, &j);
    let mut files = vec![];
    for direct in ["--direct=0", "--direct=1"] {
        let (o, j) = run_json(
            dir,
            &["--rw=randread", "--size=1m", "--number_ios=64", direct],
        );
        said(&format!("run {direct}"), id, &o, &j);
        let f = out.join(format!("run{}-{}.json", &direct[9..], files.len()));
        std::fs::write(&f, j.to_string()).unwrap();
        files.push(f);
    }
    let mj = out.join(format!("mark-{}.json", files.len()));
    if let Some((o, j)) = mark_json(dir, &mj) {
        said("mark", id, &o, &j);
        unsaid("mark", "data.unwritten", &j);
    }
    fileio(dir, &[&set[..], &["cleanup"]].concat()).ok();
    files
}

/// A loop device over a file in /dev/shm (tmpfs) is a block device in RAM:
/// fileio, run and mark say target.memory_device, naming "loopN over tmpfs". The guard
/// unmounts, detaches and removes the image also when an assertion fails.
#[test]
fn loop_device_over_tmpfs_is_memory_backed() {
    let fs = match LoopFs::ext4_over_shm(16) {
        Ok(fs) => fs,
        Err(why) => return skip(why),
    };
    let out = scratch();
    let files = memory_target(fs.dir(), "target.memory_device", out.path());
    let want = format!("{} over tmpfs", fs.dev().name());
    for f in &files {
        let j = read_json(f);
        // the device is the loop device (its backing file is on tmpfs: no disk below)
        assert_eq!(
            j["diagnosis"]["summary"]["device_model"].as_str(),
            Some(fs.dev().name().as_str()),
            "{}",
            f.display()
        );
        let w = j["warnings"].as_array().unwrap();
        assert!(
            w.iter().any(|w| w["id"] == "target.memory_device"
                && w["message"].as_str().unwrap_or_default().contains(&want)),
            "{}: {w:?}",
            f.display()
        );
    }
}

#[test]
fn tmpfs_and_zram_targets_are_called_out_by_every_command_and_compare() {
    let out = scratch();
    let mut warned = vec![];
    match Mount::try_new(&["-t", "tmpfs", "-o", "size=64m", "tmpfs"]) {
        Ok(m) => warned.extend(memory_target(m.dir(), "target.memory_fs", out.path())),
        Err(why) => skip(format_args!("tmpfs part: {why}")),
    }
    match Zram::new(64 << 20) {
        Ok(mut z) => {
            let dir = z.mount_ext4();
            warned.extend(memory_target(&dir, "target.memory_device", out.path()));
        }
        Err(why) => skip(format_args!("zram part: {why}")),
    }
    if warned.is_empty() {
        return;
    }
    // compare: a column on disk (loop device, O_DIRECT: no truth warning) beside them
    let Some(fs) = LoopFs::small(32, "ext4") else {
        return;
    };
    one_file(fs.dir(), "written");
    let (_, disk) = run_json(
        fs.dir(),
        &[
            "--filename=test_file.0",
            "--rw=randread",
            "--size=1m",
            "--number_ios=64",
            "--direct=1",
        ],
    );
    assert!(
        ids(&disk).iter().all(|i| !i.starts_with("target.")),
        "{:?}",
        ids(&disk)
    );
    // a loop device is labelled as itself, not as the disk holding its backing file
    let model = disk["diagnosis"]["summary"]["device_model"]
        .as_str()
        .unwrap_or_default();
    assert!(
        model.starts_with(&format!("{} on ", fs.dev().name())) || model == fs.dev().name(),
        "{model}"
    );
    let dj = out.path().join("disk.json");
    std::fs::write(&dj, disk.to_string()).unwrap();
    let mut args: Vec<String> = vec!["compare".into(), dj.display().to_string()];
    args.extend(warned.iter().map(|p| p.display().to_string()));
    let all_ids: Vec<String> = warned.iter().flat_map(|p| ids(&read_json(p))).collect();
    let want: Vec<&str> = ["target.memory_fs", "target.memory_device"]
        .into_iter()
        .filter(|id| all_ids.iter().any(|x| x == id))
        .collect();
    assert!(!want.is_empty(), "{all_ids:?}");
    for format in ["table", "markdown", "csv"] {
        let o = Iomark::new()
            .args(&args)
            .arg(format!("--format={format}"))
            .run();
        o.expect_code(0);
        // markdown: the text a reader sees (its escapes undone)
        let out = if format == "markdown" {
            md_plain(&o.stdout)
        } else {
            o.stdout.clone()
        };
        for id in &want {
            assert!(
                out.contains(id),
                "compare --format={format} lacks {id}\n{}",
                o.stdout
            );
        }
    }
    let svg = out.path().join("c.svg");
    Iomark::new()
        .args(&args)
        .arg(format!("--plot={}", svg.display()))
        .run()
        .expect_code(0);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.contains("⚠"), "no warning marker on the chart");
    // each warning said in words under the chart (its lines joined), no id
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = chart_text(&s);
    for p in &warned {
        for w in read_json(p)["warnings"].as_array().unwrap() {
            if want.contains(&w["id"].as_str().unwrap()) {
                let m = words(w["message"].as_str().unwrap());
                assert!(said.contains(&m), "the chart does not say {m}\n{said}");
            }
        }
    }
    for id in &want {
        assert!(!s.contains(id), "the chart names the id {id}");
    }
}

#[test]
fn unsynced_buffered_writes_are_called_out_and_synced_ones_are_not() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let d = fs.dir();
    let set = ["--file-num=1", "--file-total-size=4M"];
    fileio(d, &[&set[..], &["prepare"]].concat()).ok();
    let write = ["--file-test-mode=rndwr", "--time=0", "--events=256"];
    let (o, j) = fileio_json(
        d,
        &[
            &set[..],
            &write[..],
            &["--file-fsync-freq=0", "--file-fsync-end=off"],
        ]
        .concat(),
    );
    said(
        "fileio without fsync",
        "page_cache.writes_in_memory",
        &o,
        &j,
    );
    let (_, j) = fileio_json(d, &[&set[..], &write[..]].concat());
    unsaid("fileio with fsync", "page_cache.writes_in_memory", &j);
    // run: over a file written and synced before (no layout in the run)
    one_file(d, "written");
    let w = [
        "--filename=test_file.0",
        "--rw=randwrite",
        "--size=1m",
        "--number_ios=256",
    ];
    let (o, j) = run_json(d, &w);
    said("run without fsync", "page_cache.writes_in_memory", &o, &j);
    let (_, j) = run_json(d, &[&w[..], &["--end_fsync=1"]].concat());
    unsaid("run end_fsync=1", "page_cache.writes_in_memory", &j);
    let (_, j) = run_json(d, &[&w[..], &["--direct=1"]].concat());
    unsaid("run direct=1", "page_cache.writes_in_memory", &j);
    // mark: not applicable (O_DIRECT writes)
}

#[test]
fn a_set_that_fits_in_ram_read_right_after_prepare_is_called_out() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let d = fs.dir();
    // the 26G story at test size: prepare, then read the set at once, buffered
    let set = ["--file-num=2", "--file-total-size=8M"];
    fileio(d, &[&set[..], &["prepare"]].concat()).ok();
    let (o, j) = fileio_json(
        d,
        &[
            &set[..],
            &["--file-test-mode=seqrd", "--time=0", "--events=1024"],
        ]
        .concat(),
    );
    said("fileio after prepare", "page_cache.fits_in_ram", &o, &j);
    said(
        "fileio after prepare",
        "page_cache.reads_from_memory",
        &o,
        &j,
    );
    // run: the layout writes the file, a read without invalidate reads the cache
    let (o, j) = run_json(d, &["--rw=read", "--size=4m", "--invalidate=0"]);
    said("run after layout", "page_cache.fits_in_ram", &o, &j);
    said("run after layout", "page_cache.reads_from_memory", &o, &j);
    // O_DIRECT: neither
    let (_, j) = run_json(d, &["--rw=read", "--size=4m", "--direct=1"]);
    unsaid("run direct=1", "page_cache.fits_in_ram", &j);
    unsaid("run direct=1", "page_cache.reads_from_memory", &j);
    // mark: not applicable (O_DIRECT reads)
}

/// `compare` calls out what the single results know, each once: a different
/// fsync policy on a write row (rndwr with fsync after every write vs none), a column
/// whose files were in memory (tmpfs) beside columns on a device, and a truth warning
/// only one column has (`page_cache.writes_in_memory` in its legend / warnings row).
#[test]
fn compare_calls_out_fsync_memory_and_one_columns_warning_once() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let shm = match tempfile::Builder::new()
        .prefix("iomark-it-")
        .tempdir_in("/dev/shm")
    {
        Ok(d) => d,
        Err(e) => return skip(format_args!("no /dev/shm: {e}")),
    };
    let out = scratch();
    let set = ["--file-num=1", "--file-total-size=4M"];
    let write = ["--file-test-mode=rndwr", "--time=0", "--events=256"];
    let mut files = vec![];
    for (name, dir, fsync) in [
        (
            "synced",
            fs.dir(),
            &["--file-fsync-freq=1", "--file-fsync-end=off"][..],
        ),
        (
            "unsynced",
            fs.dir(),
            &["--file-fsync-freq=0", "--file-fsync-end=off"][..],
        ),
        (
            "tmpfs",
            shm.path(),
            &["--file-fsync-freq=1", "--file-fsync-end=off"][..],
        ),
    ] {
        fileio(dir, &[&set[..], &["prepare"]].concat()).ok();
        let (_, j) = fileio_json(dir, &[&set[..], &write[..], fsync].concat());
        let f = out.path().join(format!("{name}.json"));
        std::fs::write(&f, j.to_string()).unwrap();
        files.push(f.display().to_string());
    }
    let unsynced = read_json(Path::new(&files[1]));
    assert!(
        ids(&unsynced)
            .iter()
            .any(|i| i == "page_cache.writes_in_memory"),
        "{:?}",
        ids(&unsynced)
    );
    for f in [&files[0], &files[2]] {
        assert!(
            !ids(&read_json(Path::new(f)))
                .iter()
                .any(|i| i == "page_cache.writes_in_memory"),
            "{f}"
        );
    }
    let fsync_diff = "B: no fsync (A: fsync every write)";
    let memory_diff = "C: files in memory (tmpfs), not on a storage device";
    let compare = |extra: &[&str]| {
        let o = Iomark::new().arg("compare").args(&files).args(extra).run();
        o.expect_code(0);
        o.stdout
    };
    let j: Value = serde_json::from_str(&compare(&["--format=json"])).unwrap();
    let row = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "MB/s")
        .unwrap_or_else(|| panic!("no MB/s row: {j}"));
    let d: Vec<&str> = row["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(d.iter().filter(|x| **x == fsync_diff).count(), 1, "{d:?}");
    assert_eq!(d.iter().filter(|x| **x == memory_diff).count(), 1, "{d:?}");
    // no call-out twice in one cell, and C's fsync policy equals A's: not called out
    for (i, x) in d.iter().enumerate() {
        assert!(!d[i + 1..].contains(x), "said twice: {x} in {d:?}");
    }
    assert!(
        !d.iter()
            .any(|x| x.starts_with("C: fsync") || x.starts_with("C: no fsync")),
        "{d:?}"
    );
    for format in ["table", "markdown", "csv"] {
        let s = compare(&[&format!("--format={format}")]);
        // markdown: the text a reader sees (its escapes undone)
        let s = if format == "markdown" {
            md_plain(&s)
        } else {
            s
        };
        for want in [fsync_diff, memory_diff, "page_cache.writes_in_memory"] {
            assert_eq!(s.matches(want).count(), 1, "--format={format}: {want}\n{s}");
        }
    }
    let svg = out.path().join("c.svg");
    compare(&[&format!("--plot={}", svg.display())]);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(
        s.contains("fsync policy, memory target"),
        "the chart's footnote"
    );
    // the warning in words under the chart, not its id
    let said = chart_text(&s);
    assert!(said.contains("buffered and never synced"), "{said}");
    assert!(!s.contains("page_cache.writes_in_memory"), "{said}");
    fileio(fs.dir(), &[&set[..], &["cleanup"]].concat()).ok();
}

/// Fresh-user pass: the holes counted are those of the region a job reads, never more
/// than the file set. A 4 MiB sparse file with its first 1 MiB written: reading 2 MiB
/// from its start meets 1 MiB of holes, reading from 3 MiB on meets 1 MiB, reading the
/// written first MiB none.
#[test]
fn holes_are_counted_in_the_region_read_only() {
    let d = scratch();
    let p = d.path().join("sp.img");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(4 << 20).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, &vec![7u8; 1 << 20], 0).unwrap();
    f.sync_all().unwrap();
    let base = ["--filename=sp.img", "--rw=randread", "--number_ios=64"];
    let (o, j) = run_json(d.path(), &[&base[..], &["--size=2m"]].concat());
    said("first 2 MiB", "data.unwritten", &o, &j);
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 1 << 20);
    assert_eq!(at_u64(&j, "/page_cache/file_set_bytes"), 2 << 20);
    let w = j["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == "data.unwritten")
        .unwrap();
    assert!(
        w["message"]
            .as_str()
            .unwrap()
            .starts_with("1.0 MiB of the files read (2.0 MiB in all)"),
        "{w}"
    );
    let (o, j) = run_json(
        d.path(),
        &[&base[..], &["--offset=3m", "--size=1m"]].concat(),
    );
    said("last MiB", "data.unwritten", &o, &j);
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 1 << 20);
    let (_, j) = run_json(d.path(), &[&base[..], &["--size=1m"]].concat());
    unsaid("written MiB", "data.unwritten", &j);
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 0);
}

/// Fresh-user pass: a loop device over a sparse image reads zeros from the image's
/// holes without the disk below: said as for the image itself, the holes counted in
/// the image's region behind the device's region read. The guard detaches the device
/// and removes the image also when an assertion fails.
#[test]
fn a_loop_device_over_a_sparse_image_is_called_out() {
    if let Some(why) = loop_skip_reason() {
        return skip(why);
    }
    let lo = LoopDev::new(8 << 20, None);
    let d = scratch();
    let dev = format!("--filename={}", lo.path());
    let base = [
        dev.as_str(),
        "--rw=randread",
        "--number_ios=64",
        "--direct=1",
    ];
    let (o, j) = run_json(d.path(), &[&base[..], &["--size=4m"]].concat());
    said("sparse image", "data.unwritten", &o, &j);
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 4 << 20);
    // the image's first 2 MiB written: a read from 1 MiB on meets 2 MiB of holes
    lo.write_image_at(0, &vec![7u8; 2 << 20]);
    let (_, j) = run_json(
        d.path(),
        &[&base[..], &["--offset=1m", "--size=3m"]].concat(),
    );
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 2 << 20);
    let (_, j) = run_json(d.path(), &[&base[..], &["--size=2m"]].concat());
    unsaid("written part", "data.unwritten", &j);
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 0);
}

/// A partition of a loop device (`losetup --partscan`, `/dev/loopNp1`) reads its
/// disk's image from the partition's start on: the holes are counted there. An 8 MiB
/// sparse image with an MBR partition from 1 MiB: reading the partition's first 2 MiB
/// meets 2 MiB of holes; with the image's third MiB written (the partition's second),
/// 1 MiB — counted from the image's start instead it would be 2 MiB less the table's
/// block. The guard detaches the device (and its partition) also when an assertion
/// fails.
#[test]
fn a_loop_partition_over_a_sparse_image_is_called_out() {
    if let Some(why) = loop_skip_reason() {
        return skip(why);
    }
    let lo = LoopDev::partitioned(8 << 20, 2048, 8192);
    let d = scratch();
    let dev = format!("--filename={}", lo.partition(1));
    let args = [
        dev.as_str(),
        "--rw=randread",
        "--number_ios=64",
        "--direct=1",
        "--size=2m",
    ];
    let (o, j) = run_json(d.path(), &args);
    said("sparse partition", "data.unwritten", &o, &j);
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 2 << 20);
    lo.write_image_at(2 << 20, &vec![7u8; 1 << 20]);
    let (o, j) = run_json(d.path(), &args);
    said("half written partition", "data.unwritten", &o, &j);
    assert_eq!(at_u64(&j, "/page_cache/unwritten_bytes"), 1 << 20);
}

/// Fresh-user pass: a buffered read the device counters show the device served (a
/// loop device of its own, the file's cache dropped by invalidate=1, each block read
/// once) is not said to be served by the page cache; compare's call-out names the
/// file set the check measured (16 MiB, not the 0 B of a fio job's summary).
#[test]
fn buffered_reads_the_device_served_are_not_called_cached() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let d = fs.dir();
    let out = scratch();
    let args = [
        "--filename=d",
        "--rw=randread",
        "--size=16m",
        "--number_ios=256",
    ];
    let mut files = vec![];
    for direct in ["--direct=0", "--direct=1"] {
        let (o, j) = run_json(d, &[&args[..], &[direct]].concat());
        let app = at_u64(&j, "/page_cache/app_read_bytes");
        assert_eq!(app, 256 * 4096, "{direct}");
        if direct == "--direct=0" {
            assert!(
                at_u64(&j, "/page_cache/device_read_bytes") >= app,
                "the device read less than the test: {}",
                j["page_cache"]
            );
            unsaid("buffered, device read", "page_cache.fits_in_ram", &j);
            unsaid("buffered, device read", "page_cache.reads_from_memory", &j);
            assert!(!o.all().contains("fits in RAM"), "{}", o.dump());
        }
        let f = out.path().join(format!("{}.json", &direct[9..]));
        std::fs::write(&f, j.to_string()).unwrap();
        files.push(f);
    }
    let o = Iomark::new().arg("compare").args(&files).run();
    o.expect_code(0)
        .expect_contains("A: buffered file set 16.0 MiB fits in RAM");
}

/// A real fio 3.33 JSON result beside iomark fileio results: its fsync policy is read
/// from its job options (`no fsync` without any, `fsync every 4 writes + fsync at end`
/// with `fsync=4 end_fsync=1`) and called out on the write and mix rows like any other
/// column's; its randrw job fills the mix row (read + write bytes over the longer
/// direction's runtime, IOPS likewise).
#[test]
fn compare_calls_out_fsync_policy_of_imported_fio_results() {
    if !need_fio("compare_calls_out_fsync_policy_of_imported_fio_results") {
        return;
    }
    let d = scratch();
    let set = ["--file-num=1", "--file-total-size=16M"];
    fileio(d.path(), &[&set[..], &["prepare"]].concat()).ok();
    let mode = [
        "--file-test-mode=rndrw",
        "--file-block-size=16384",
        "--time=0",
    ];
    let (_, a) = fileio_json(
        d.path(),
        &[
            &set[..],
            &mode[..],
            &["--events=400", "--file-fsync-freq=100"],
        ]
        .concat(),
    );
    let fa = d.path().join("a.json");
    std::fs::write(&fa, a.to_string()).unwrap();
    let fio_json = |name: &str, extra: &[&str]| {
        let o = fio_cmd()
            .dir(d.path())
            .args(["--name=f", "--rw=randrw", "--bs=16k", "--size=16m"])
            .args(["--output-format=json"])
            .args(extra)
            .run();
        o.expect_code(0);
        let p = d.path().join(name);
        std::fs::write(&p, &o.stdout).unwrap();
        (p, serde_json::from_str::<Value>(&o.stdout).unwrap())
    };
    let (f0, j0) = fio_json("f0.json", &[]);
    let (f1, _) = fio_json("f1.json", &["--fsync=4", "--end_fsync=1"]);
    let o = Iomark::new()
        .arg("compare")
        .args([&fa, &f0, &f1])
        .arg("--format=json")
        .run();
    o.expect_code(0);
    let j: Value = serde_json::from_str(&o.stdout).unwrap();
    let rows = j["rows"].as_array().unwrap();
    let row = |test: &str| {
        rows.iter()
            .find(|r| r["metric"] == "MB/s" && r["test"].as_str().unwrap_or("").ends_with(test))
            .unwrap_or_else(|| panic!("no MB/s row of {test}: {}", o.stdout))
    };
    let diffs = |r: &Value| -> Vec<String> {
        r["differences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let a_policy = "fsync every 100 writes + fsync at end";
    for test in [" mix write", " mix"] {
        let d = diffs(row(test));
        assert!(
            d.contains(&format!("B: no fsync (A: {a_policy})")),
            "{test}: {d:?}"
        );
        assert!(
            d.contains(&format!(
                "C: fsync every 4 writes + fsync at end (A: {a_policy})"
            )),
            "{test}: {d:?}"
        );
        assert!(
            !d.iter().any(|x| x.contains("no such test")),
            "{test}: {d:?}"
        );
    }
    // B's mix: fio's read and write bytes over the longer runtime, MB/s = 1e6 B/s
    let job = &j0["jobs"][0];
    let bytes = as_u64(&job["read"]["io_bytes"]) + as_u64(&job["write"]["io_bytes"]);
    let ms = as_u64(&job["read"]["runtime"]).max(as_u64(&job["write"]["runtime"]));
    let want = bytes as f64 / (ms as f64 / 1e3) / 1e6;
    let got = as_f64(&row(" mix")["values"][1]);
    assert!(close(got, want), "mix MB/s {got} vs {want}");
}
