//! fio's contract seen by a user who runs iomark as `fio` beside Debian's fio
//! 3.33: the same job run by both, compared — posixaio jobs after a finished job, a
//! time-based writer's verify phase, the option names of the JSON `job options`,
//! `filename_format` directories and existing files, size suffixes under both
//! `kb_base` values, and the text report's job header, description and disk stats.
//! Each test skips (with the reason) when fio is not installed, except the posixaio
//! one, whose point is iomark's own run.

use crate::util::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `tool` (`fio`: Debian's fio; else iomark as `fio`, linked under `root`).
fn tool_cmd(root: &Path, tool: &str) -> Iomark {
    if tool == "fio" {
        fio_cmd()
    } else {
        as_fio(root)
    }
}

/// A fresh working directory under `root`.
fn sub(root: &Path, name: &str) -> PathBuf {
    let d = root.join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `(jobname, read io_bytes, write io_bytes)` of every job of a fio JSON document.
fn io_bytes(doc: &Value) -> Vec<(String, u64, u64)> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["read"]["io_bytes"].as_u64().unwrap(),
                j["write"]["io_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The JSON document of an output that may start with fio's setup lines.
fn doc(stdout: &str) -> Value {
    let at = stdout
        .find('{')
        .unwrap_or_else(|| panic!("no JSON: {stdout}"));
    serde_json::from_str(&stdout[at..]).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `l` with every run of digits (and a decimal point inside one) as one `#`, and the
/// scale letter of an IOPS figure dropped (`IOPS=980,` and `IOPS=1203,` print as
/// `IOPS=980,` and `IOPS=1203,`, a faster run's `IOPS=1.2k,`: the letter is the run's
/// speed, not the line's shape).
fn mask_numbers(l: &str) -> String {
    let out = mask_digits(l);
    ["k", "M", "G"]
        .iter()
        .fold(out, |s, u| s.replace(&format!("IOPS=#{u},"), "IOPS=#,"))
}

/// `l` with every run of digits (and a decimal point inside one) as one `#`.
fn mask_digits(l: &str) -> String {
    let mut out = String::new();
    let mut in_num = false;
    for c in l.chars() {
        let digit = c.is_ascii_digit() || (in_num && c == '.');
        if digit && !in_num {
            out.push('#');
        } else if !digit {
            out.push(c);
        }
        in_num = digit;
    }
    out
}

/// posixaio: glibc runs the requests on helper threads shared by the whole process,
/// which look descriptors up in the table of the thread that created them. With a
/// private descriptor table per job thread, every job after the first finished one
/// failed with `Bad file descriptor`. The four shapes of the issue, each job moving all
/// its bytes, as fio does (compared with fio's own counts when it is installed).
#[test]
fn posixaio_jobs_after_a_finished_job_keep_their_files() {
    let d = scratch();
    let job_file = |name: &str, second: &str, file2: &str| {
        let p = d.path().join(name);
        std::fs::write(
            &p,
            format!(
                "[global]\nioengine=posixaio\nbs=1m\nsize=8m\n\n[a]\nrw=read\nfilename=f\n\n[b]\nstonewall\nrw={second}\nfilename={file2}\n"
            ),
        )
        .unwrap();
        p.display().to_string()
    };
    let shapes: Vec<(&str, Vec<String>)> = vec![
        (
            "numjobs clones",
            vec![
                "--name=a",
                "--ioengine=posixaio",
                "--rw=read",
                "--bs=1m",
                "--size=8m",
                "--filename=f",
                "--numjobs=2",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
        ),
        ("read then write", vec![job_file("rw.fio", "write", "f")]),
        ("read then read", vec![job_file("rr.fio", "read", "f")]),
        ("separate files", vec![job_file("sep.fio", "read", "g")]),
    ];
    for (shape, args) in shapes {
        let mut a = args.clone();
        a.push("--output-format=json".into());
        let o = as_fio(d.path()).dir(d.path()).args(&a).run();
        assert_eq!(o.code, 0, "{shape}: {}", o.dump());
        let got = io_bytes(&doc(&o.stdout));
        for (name, r, w) in &got {
            assert_eq!(r + w, 8 << 20, "{shape}: job {name}: {}", o.dump());
        }
        if have_fio() {
            let f = fio_cmd().dir(d.path()).args(&a).run();
            assert_eq!(f.code, 0, "{shape}: fio: {}", f.dump());
            assert_eq!(got, io_bytes(&doc(&f.stdout)), "{shape}: as fio counts");
        }
    }
}

/// `time_based` with `do_verify` on a job that only writes: fio prints its warning on
/// stdout once per job (before the job's header line, and before a JSON document) and
/// skips the verify phase: nothing is read back. iomark prints the same lines and
/// reads nothing either.
#[test]
fn time_based_writer_skips_verify_with_fios_warning() {
    if !need_fio("time_based_writer_skips_verify_with_fios_warning") {
        return;
    }
    let d = scratch();
    let args = |fmt: &str| {
        vec![
            "--name=v".to_string(),
            "--rw=write".into(),
            "--bs=4k".into(),
            "--size=256k".into(),
            "--time_based".into(),
            "--runtime=300ms".into(),
            "--verify=crc32c".into(),
            "--numjobs=2".into(),
            format!("--output-format={fmt}"),
        ]
    };
    const LINE: &str =
        "fio: verification read phase will never start because write phase uses all of runtime";
    // the text header, up to the version line, is fio's line for line
    let head = |s: &str| -> Vec<String> {
        s.lines()
            .take_while(|l| !l.starts_with("fio-"))
            .map(String::from)
            .collect()
    };
    let f = fio_cmd()
        .dir(sub(d.path(), "fio"))
        .args(args("normal"))
        .run();
    let i = as_fio(d.path())
        .dir(sub(d.path(), "io"))
        .args(args("normal"))
        .run();
    assert_eq!(i.code, 0, "{}", i.dump());
    assert_eq!(head(&i.stdout), head(&f.stdout), "{}", i.dump());
    assert_eq!(head(&f.stdout)[0], LINE);
    // JSON: the lines come first, and no job read anything back
    let f = fio_cmd().dir(sub(d.path(), "fio")).args(args("json")).run();
    let i = as_fio(d.path())
        .dir(sub(d.path(), "io"))
        .args(args("json"))
        .run();
    let before = |s: &str| s[..s.find('{').unwrap()].to_string();
    assert_eq!(before(&i.stdout), before(&f.stdout));
    assert_eq!(before(&i.stdout), format!("{LINE}\n{LINE}\n"));
    for (name, r, w) in io_bytes(&doc(&i.stdout)) {
        assert_eq!(r, 0, "job {name} read back (verify) after its runtime");
        assert!(w > 0, "job {name} wrote nothing");
    }
    // the same job with a size limit verifies as before: no line, the blocks read back
    let i = as_fio(d.path())
        .dir(sub(d.path(), "io2"))
        .args([
            "--name=v",
            "--rw=write",
            "--bs=4k",
            "--size=256k",
            "--verify=crc32c",
            "--output-format=json",
        ])
        .run();
    assert!(i.stdout.starts_with('{'), "{}", i.dump());
    assert_eq!(io_bytes(&doc(&i.stdout))[0].1, 256 << 10);
}

/// The JSON `job options` and `global options` list each option under fio's own name,
/// whatever alias was typed (`readwrite` → `rw`, `blocksize` → `bs`, `timeout` →
/// `runtime`, `iodepth_batch_submit` → `iodepth_batch`), as fio 3.33 lists them.
#[test]
fn json_options_use_fios_names_for_aliases() {
    let args = [
        "--blocksize=4k",
        "--name=a",
        "--readwrite=write",
        "--size=64k",
        "--filename=f",
        "--timeout=10",
        "--iodepth_batch_submit=1",
        "--iodepth_batch_complete=1",
        "--output-format=json",
    ];
    let runs = fio_and_iomark("json_options_use_fios_names_for_aliases", &args, |_, _| {});
    let (i, Some(f)) = (&runs.iomark, &runs.fio) else {
        return;
    };
    assert_eq!(i.code, 0, "{}", i.dump());
    let (f, i) = (doc(&f.stdout), doc(&i.stdout));
    assert_eq!(i["jobs"][0]["job options"], f["jobs"][0]["job options"]);
    assert_eq!(i["global options"], f["global options"]);
    assert_eq!(
        f["jobs"][0]["job options"]["rw"], "write",
        "fio's own listing"
    );
}

/// `filename_format` with directories: fio creates them (`d0/f0` … `d1/f1` for two
/// jobs of two files, mode 0700); and a job without `size=` uses the existing file the format
/// names for its size.
#[test]
fn filename_format_makes_directories_and_sizes_from_existing_files() {
    if !need_fio("filename_format_makes_directories_and_sizes_from_existing_files") {
        return;
    }
    let d = scratch();
    let args = [
        "--name=a",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--filename_format=d$jobnum/f$filenum",
        "--nrfiles=2",
        "--numjobs=2",
    ];
    let listing = |dir: &Path| -> Vec<(String, u64)> {
        let mut v = vec![];
        for sub in ["d0", "d1"] {
            for f in ["f0", "f1"] {
                let p = dir.join(sub).join(f);
                v.push((
                    format!("{sub}/{f}"),
                    std::fs::metadata(&p).map_or(0, |m| m.len()),
                ));
            }
        }
        v
    };
    let (fd, id) = (sub(d.path(), "fio"), sub(d.path(), "io"));
    let f = fio_cmd().dir(&fd).args(args).run();
    assert_eq!(f.code, 0, "{}", f.dump());
    let i = as_fio(d.path()).dir(&id).args(args).run();
    assert_eq!(i.code, 0, "{}", i.dump());
    assert_eq!(listing(&id), listing(&fd));
    assert!(listing(&id).iter().all(|(_, n)| *n == 32 << 10));
    // the directories' mode: fio 3.33 makes them 0700 (less the umask)
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: PathBuf| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    for sub in ["d0", "d1"] {
        assert_eq!(mode(id.join(sub)), mode(fd.join(sub)), "{sub}");
        assert_eq!(mode(id.join(sub)), 0o700, "{sub}");
    }
    // no size=: the existing d0/f0 (1 MiB) is the job's file and its size
    let read = [
        "--name=a",
        "--rw=read",
        "--bs=4k",
        "--filename_format=d$jobnum/f$filenum",
        "--output-format=json",
    ];
    for dir in [&fd, &id] {
        std::fs::write(dir.join("d0/f0"), vec![0u8; 1 << 20]).unwrap();
    }
    let f = fio_cmd().dir(&fd).args(read).run();
    let i = as_fio(d.path()).dir(&id).args(read).run();
    assert_eq!(i.code, 0, "{}", i.dump());
    assert_eq!(io_bytes(&doc(&i.stdout)), io_bytes(&doc(&f.stdout)));
    assert_eq!(io_bytes(&doc(&i.stdout))[0].1, 1 << 20);
}

/// Size suffixes as fio 3.33 reads them, under both `kb_base` values: the block size
/// fio's header line shows for `bs=4SUFFIX` (the same grid, with fio's values written
/// out, is the unit test `fio_suffixes_read_as_fio_3_33_reads_them` of
/// src/job/units/tests.rs).
#[test]
fn size_suffixes_read_as_fio_reads_them() {
    if !need_fio("size_suffixes_read_as_fio_reads_them") {
        return;
    }
    let d = scratch();
    let bs_of = |cmd: Iomark, kb: &str, bs: &str| -> String {
        let o = cmd
            .dir(d.path())
            .args([
                "--name=a",
                "--ioengine=null",
                "--rw=read",
                "--size=64m",
                "--number_ios=1",
                "--filename=nf",
                &format!("--kb_base={kb}"),
                &format!("--bs={bs}"),
            ])
            .run();
        let first = o.stdout.lines().next().unwrap_or("").to_string();
        first
            .split_once("bs=(R) ")
            .and_then(|(_, r)| r.split_once(','))
            .map_or_else(|| o.dump(), |(v, _)| v.to_string())
    };
    for kb in ["1024", "1000"] {
        for suf in [
            "k", "K", "Ki", "KI", "kb", "KB", "kB", "KiB", "kib", "kk", "KK", "kbk", "m", "Mi",
            "MiB", "mk", "b",
        ] {
            let bs = format!("16{suf}");
            let want = bs_of(fio_cmd(), kb, &bs);
            assert_eq!(
                bs_of(as_fio(d.path()), kb, &bs),
                want,
                "bs={bs} kb_base={kb}"
            );
        }
    }
}

/// The text report's job block starts as fio's: `NAME: (groupid=G, jobs=N): err= 0:
/// pid=P: DATE` (ctime), then `  Description  : [...]` for a job with `description=`;
/// iomark's own `coverage:`/`verify:` lines appear only with `--notes`; after the run
/// status lines, the `Disk stats (read/write):` block when fio shows one.
#[test]
fn text_job_header_description_and_disk_stats_as_fio() {
    if !need_fio("text_job_header_description_and_disk_stats_as_fio") {
        return;
    }
    let d = scratch();
    let args = [
        "--name=rr",
        "--rw=randwrite",
        "--bs=4k",
        "--size=256k",
        "--filename=t1",
        "--verify=crc32c",
        "--description=my desc",
    ];
    let f = fio_cmd().dir(d.path()).args(args).run();
    let i = as_fio(d.path()).dir(d.path()).args(args).run();
    assert_eq!(i.code, 0, "{}", i.dump());
    // the header with its numbers masked
    let shape = |s: &str| -> Vec<String> {
        let l = s
            .lines()
            .find(|l| l.starts_with("rr: (groupid"))
            .unwrap_or_else(|| panic!("{s}"));
        let (head, date) = l.rsplit_once(": ").unwrap();
        let pid = head.rsplit_once("pid=").unwrap().1;
        assert!(pid.parse::<u32>().is_ok_and(|p| p > 0), "{l}");
        let f: Vec<&str> = date.split_whitespace().collect();
        assert_eq!(f.len(), 5, "ctime: {l}");
        vec![
            head.rsplit_once("pid=").unwrap().0.to_string(),
            f.len().to_string(),
        ]
    };
    assert_eq!(shape(&i.stdout), shape(&f.stdout));
    let line = |s: &str, p: &str| s.lines().find(|l| l.starts_with(p)).map(String::from);
    assert_eq!(
        line(&i.stdout, "  Description"),
        Some("  Description  : [my desc]".into())
    );
    assert_eq!(
        line(&i.stdout, "  Description"),
        line(&f.stdout, "  Description")
    );
    for extra in ["  coverage:", "  verify:"] {
        assert_eq!(
            line(&i.stdout, extra),
            None,
            "{extra} without --notes: {}",
            i.stdout
        );
    }
    let n = as_fio(d.path())
        .dir(d.path())
        .args(args)
        .arg("--notes")
        .run();
    assert!(line(&n.stdout, "  verify:").is_some(), "{}", n.dump());
    // the disk stats block: present when fio's is, each device line of fio's shape
    let disks = |s: &str| -> Vec<String> {
        s.split_once("\nDisk stats (read/write):\n")
            .map_or(vec![], |(_, b)| b.lines().map(mask_numbers).collect())
    };
    assert_eq!(
        disks(&i.stdout),
        disks(&f.stdout),
        "{}\n---\n{}",
        i.stdout,
        f.stdout
    );
}

/// fio's header before the report — section lines, version, `Starting N processes`
/// and one `Laying out IO file(s)` line per job thread that created or extended files,
/// after the starting line — is iomark's, for jobs that read new files, write new
/// files, share one file, extend an existing one, and with `--output-format=json`
/// (no layout line). Each shape runs in a fresh directory of its own for each tool.
#[test]
fn layout_lines_follow_fios_starting_line() {
    if !need_fio("layout_lines_follow_fios_starting_line") {
        return;
    }
    let d = scratch();
    let shapes: [&[&str]; 5] = [
        &[
            "--name=a",
            "--rw=read",
            "--bs=1m",
            "--size=8m",
            "--nrfiles=2",
        ],
        &[
            "--name=a",
            "--rw=write",
            "--bs=1m",
            "--size=8m",
            "--numjobs=2",
            "--name=b",
            "--stonewall",
            "--rw=randread",
            "--size=3m",
        ],
        &[
            "--name=s",
            "--rw=randwrite",
            "--bs=4k",
            "--size=2m",
            "--filename=one",
            "--numjobs=2",
        ],
        &[
            "--name=x",
            "--rw=read",
            "--bs=4k",
            "--size=3m",
            "--filename=grow",
            "--pre_create=1m",
        ],
        &[
            "--name=j",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--output-format=json",
        ],
    ];
    for (n, args) in shapes.iter().enumerate() {
        // `--pre_create` is this test's own: a file of that size made before the run
        let (args, pre): (Vec<&str>, Vec<&str>) =
            args.iter().partition(|a| !a.starts_with("--pre_create"));
        let head = |tool: &str| -> (i32, Vec<String>) {
            let dir = sub(d.path(), &format!("{n}-{tool}"));
            if !pre.is_empty() {
                std::fs::write(dir.join("grow"), vec![7u8; 1 << 20]).unwrap();
            }
            let cmd = tool_cmd(d.path(), tool);
            let o = cmd.dir(&dir).args(&args).run();
            let lines = o
                .stdout
                .lines()
                .take_while(|l| !l.is_empty() && !l.starts_with('{'))
                .map(String::from)
                .collect();
            (o.code, lines)
        };
        let (theirs, ours) = (head("fio"), head("iomark"));
        assert_eq!(ours, theirs, "{args:?}");
    }
}

/// `gtod_reduce=1`: fio records no latencies and its text has no line for them; the
/// report's line structure (numbers masked, header's pid/date aside) is fio's.
#[test]
fn gtod_reduce_text_has_fios_lines() {
    if !need_fio("gtod_reduce_text_has_fios_lines") {
        return;
    }
    let d = scratch();
    let args = [
        "--name=g",
        "--rw=read",
        "--bs=4k",
        "--size=1m",
        "--gtod_reduce=1",
    ];
    let shape = |tool: &str| -> Vec<String> {
        let dir = sub(d.path(), tool);
        let cmd = tool_cmd(d.path(), tool);
        let o = cmd.dir(&dir).args(args).run();
        assert_eq!(o.code, 0, "{}", o.dump());
        o.stdout
            .lines()
            .filter(|l| !l.starts_with("g: (groupid"))
            .map(mask_numbers)
            .collect()
    };
    let (theirs, ours) = (shape("fio"), shape("iomark"));
    assert!(!ours.iter().any(|l| l.contains("latencies")), "{ours:#?}");
    assert_eq!(ours, theirs);
}

/// A writer with `verify=`: fio times its verify read-back apart — the reads' `runtime`
/// is the verify phase's, the writes' the write phase's, and `job_runtime` both —
/// so the reads' bandwidth is the read-back's, not the bytes over the write phase's
/// time. Checked on both tools (the phases' lengths differ between them).
#[test]
fn verify_reads_have_the_verify_phases_runtime() {
    if !need_fio("verify_reads_have_the_verify_phases_runtime") {
        return;
    }
    let d = scratch();
    let args = [
        "--name=v",
        "--rw=write",
        "--bs=4k",
        "--size=32m",
        "--verify=crc32c",
        "--output-format=json",
    ];
    for tool in ["fio", "iomark"] {
        let dir = sub(d.path(), tool);
        let cmd = tool_cmd(d.path(), tool);
        let o = cmd.dir(&dir).args(args).run();
        assert_eq!(o.code, 0, "{}", o.dump());
        let j = &doc(&o.stdout)["jobs"][0];
        let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
        let (r, w) = (n("read", "runtime"), n("write", "runtime"));
        let total = j["job_runtime"].as_u64().unwrap();
        assert_eq!(n("read", "io_bytes"), 32 << 20, "{tool}");
        assert!(r > 0 && w > 0, "{tool}: read {r} ms, write {w} ms");
        // each phase rounded to whole ms on its own
        assert!(
            total.abs_diff(r + w) <= 2,
            "{tool}: job_runtime {total} vs read {r} + write {w}"
        );
        // bw (KiB/s) = io_bytes / runtime
        let bw = n("read", "bw");
        let want = (32u64 << 20) * 1000 / r / 1024;
        assert!(
            bw.abs_diff(want) <= want / 100 + 1,
            "{tool}: read bw {bw} vs {want}"
        );
    }
}

/// `--showcmd` with a job file: the same line as fio 3.33, byte for byte (`fio `, the
/// command line's options, then the job file's global and job options, unquoted, a
/// trailing space); nothing is run.
#[test]
fn showcmd_of_a_job_file_is_fios_line() {
    if !need_fio("showcmd_of_a_job_file_is_fios_line") {
        return;
    }
    let d = scratch();
    let job = "[global]\nbs=8k\n[x]\nrw=read\nsize=1m\nfilename=a b\n[y]\nrw=write\nsize=64k\n";
    let outs: Vec<Out> = ["fio", "iomark"]
        .iter()
        .map(|t| {
            let w = sub(d.path(), t);
            std::fs::write(w.join("j.fio"), job).unwrap();
            tool_cmd(d.path(), t)
                .dir(w)
                .args(["--showcmd", "--iodepth=2", "j.fio"])
                .run()
        })
        .collect();
    assert_eq!(outs[0].code, 0, "{}", outs[0].dump());
    assert_eq!(outs[1].code, outs[0].code, "{}", outs[1].dump());
    assert_eq!(outs[1].stdout, outs[0].stdout, "fio's line, byte for byte");
    assert!(
        outs[1].stdout.starts_with("fio --iodepth=2 "),
        "{}",
        outs[1].stdout
    );
    assert!(!d.path().join("iomark/a b").exists(), "nothing is run");
}

/// `--output=/dev/stdout`, `/dev/stderr`, `/dev/null` (scripts give fio these): the
/// report goes to the stream, or nowhere, and the run succeeds as fio's does; a device
/// that is not one of these streams stays refused.
#[test]
fn output_to_the_standard_streams_is_the_stream() {
    let d = scratch();
    let job = [
        "--name=o",
        "--rw=read",
        "--bs=4k",
        "--size=64k",
        "--filename=f",
        "--output-format=json",
    ];
    let go = |out: &str| as_fio(d.path()).dir(d.path()).args(job).arg(out).run();
    let o = go("--output=/dev/stdout");
    assert_eq!(o.code, 0, "{}", o.dump());
    assert_eq!(doc(&o.stdout)["jobs"][0]["jobname"], "o", "{}", o.stdout);
    let o = go("--output=/dev/stderr");
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    assert!(o.stderr.contains("\"jobname\" : \"o\""), "{}", o.stderr);
    let o = go("--output=/dev/null");
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(!o.stdout.contains("\"jobs\""), "{}", o.stdout);
    let o = go("--output=/dev/full");
    assert_eq!(o.code, 1, "{}", o.dump());
    assert!(o.stderr.contains("--output=/dev/full"), "{}", o.stderr);
}

/// The data files of a job-file section that sets `name=` are named after the section
/// (`job1.0.0`, and `$jobname` in `filename_format` is the section too), the reports and
/// the log files after `name=` (`read_iops_bw.1.log`); command-line jobs after their
/// `--name`. The same file names from fio 3.33 and iomark as `fio`, each in its own
/// directory, and the same job names in both JSON reports.
#[test]
fn data_files_take_the_section_name_logs_and_reports_the_name_option() {
    if !need_fio("data_files_take_the_section_name_logs_and_reports_the_name_option") {
        return;
    }
    let d = scratch();
    let job = "[job1]\nname=read_iops\nrw=randread\nsize=64k\nwrite_bw_log\n\
               [job2]\nname=write_iops\nrw=randwrite\nsize=64k\nfilename_format=$jobname.x.$filenum\n";
    std::fs::write(d.path().join("j.fio"), job).unwrap();
    let cli = [
        "--name=a",
        "--rw=write",
        "--size=64k",
        "--name=b",
        "--rw=read",
        "--size=64k",
    ];
    let run = |tool: &str, args: &[&str]| -> (Vec<String>, Vec<String>) {
        let w = sub(d.path(), &format!("{tool}-{}", args.len()));
        let o = tool_cmd(d.path(), tool)
            .dir(&w)
            .args(args)
            .arg("--output-format=json")
            .run();
        o.expect_code(0);
        // fio 3.33 prints the first command-line job's header line before the document
        let at = o
            .stdout
            .find("{\n")
            .unwrap_or_else(|| panic!("{}", o.dump()));
        let doc: Value = serde_json::from_str(&o.stdout[at..]).unwrap();
        let names = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["jobname"].as_str().unwrap().to_string())
            .collect();
        (entries(&w), names)
    };
    let file = d.path().join("j.fio").display().to_string();
    for args in [&[file.as_str()][..], &cli[..]] {
        let fio = run("fio", args);
        let iomark = run("iomark", args);
        assert_eq!(iomark, fio, "{args:?}");
    }
    let (files, names) = run("fio", &[file.as_str()]);
    assert_eq!(files, ["job1.0.0", "job2.x.0", "read_iops_bw.1.log"]);
    assert_eq!(names, ["read_iops", "write_iops"]);
}

/// `--showcmd` of fio's own example job files (../shared/peer-tests/fio-examples), side by
/// side with fio 3.33, byte for byte: each section's options in the order fio reads them
/// (`kb_base`, `unit_base`, `lockfile` first, `filename` last, an engine's options after
/// the rest), a later `[global]` repeating every global so far, a description quoted.
/// Compared on every example both accept (fio refuses the engines it lacks, iomark the
/// keys it lacks); the ones named below must be among them.
#[test]
fn showcmd_of_fios_examples_is_fios_line() {
    if !need_fio("showcmd_of_fios_examples_is_fios_line") {
        return;
    }
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peer-tests/fio-examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap_or_else(|e| panic!("fio's examples at {}: {e}", examples.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    files.sort();
    let d = scratch();
    let (mut same, mut differ) = (Vec::new(), Vec::new());
    for f in &files {
        let fio = fio_cmd().dir(d.path()).arg("--showcmd").arg(f).run();
        let ours = as_fio(d.path()).dir(d.path()).arg("--showcmd").arg(f).run();
        if fio.code != 0 || ours.code != 0 {
            continue;
        }
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if ours.stdout == fio.stdout {
            same.push(name);
        } else {
            differ.push(format!(
                "{name}:\n fio:    {}\n iomark: {}",
                fio.stdout, ours.stdout
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    for must in [
        "fio-rand-RW.fio",
        "exitwhat.fio",
        "butterfly.fio",
        "basic-verify.fio",
    ] {
        assert!(same.iter().any(|s| s == must), "{must} compared: {same:?}");
    }
    assert!(same.len() >= 30, "examples compared: {}", same.len());
}

/// fio 3.33 writes the lines it says on stderr while reading the jobs into its
/// `--output` file too, once that file is open (log_err writes to both): a range line of
/// a job-file key or of a command-line key after `--output`, the `time_based` warning of
/// a job added after it — before the header; a command-line key's line before
/// `--output` stays on stderr alone. Side by side with fio: the same stderr, and the
/// file's lines before the job's header line the same.
#[test]
fn fios_own_lines_go_into_the_output_file_once_it_is_open() {
    if !need_fio("fios_own_lines_go_into_the_output_file_once_it_is_open") {
        return;
    }
    let job = ["--name=x", "--ioengine=null", "--size=64k"];
    let cases: [(&[&str], &[&str]); 5] = [
        (&["--output=out.txt"], &["--iodepth=-1"]),
        (&[], &["--iodepth=-1", "--output=out.txt"]),
        (&["--output=out.txt", "j.fio"], &[]),
        (&[], &["--time_based", "--output=out.txt"]),
        (
            &["--output=out.txt", "--output-format=json"],
            &["--direct=-3"],
        ),
    ];
    let d = scratch();
    for (before, after) in cases {
        let run = |tool: &str| {
            let w = sub(d.path(), tool);
            let _ = std::fs::remove_file(w.join("out.txt"));
            std::fs::write(
                w.join("j.fio"),
                "[y]\nioengine=null\nsize=64k\niodepth=-2\n",
            )
            .unwrap();
            // a job file alone, else the command line's job
            let job: &[&str] = if before.contains(&"j.fio") { &[] } else { &job };
            let o = tool_cmd(d.path(), tool)
                .dir(&w)
                .args(before)
                .args(job)
                .args(after)
                .run();
            let file = std::fs::read_to_string(w.join("out.txt")).unwrap_or_default();
            // the lines before the first job's header (or the JSON document)
            let head: Vec<String> = file
                .lines()
                .take_while(|l| !l.contains(": (g=") && !l.starts_with('{'))
                .map(str::to_string)
                .collect();
            (o, head)
        };
        let ((fio, fio_head), (ours, our_head)) = (run("fio"), run("iomark"));
        let what = format!("{before:?} {after:?}");
        assert_eq!(
            (ours.code, &ours.stderr),
            (fio.code, &fio.stderr),
            "{what}: {}",
            ours.dump()
        );
        assert_eq!(our_head, fio_head, "{what}: the lines before the header");
        let said = !fio.stderr.is_empty();
        assert!(said, "{what}: fio says a line: {}", fio.dump());
    }
}
