//! Values fio 3.33 takes while it reads the job and acts on when the job runs, side by
//! side with the installed fio: a `cpus_allowed` part fio's `strsep` and `atoi` read
//! otherwise than it looks (`-1` is CPU 0; `5-1` sets no CPU, so the thread fails to
//! set its affinity: fio's `pid=` line, exit 1, the JSON's error), a `zoned_abs` zone
//! past the file's end (fio's `zoned_abs sizes exceed file size` when it is drawn; the
//! job ends there), and `write_iolog=/dev/null` (fio writes its log there; iomark,
//! for which `/dev/null` is nowhere, writes none).

use super::random_offsets::same_offsets;
use crate::util::*;

/// fio's or iomark's run of `args` in a fresh directory under `d`.
fn one(tool: &str, d: &std::path::Path, args: &[&str]) -> Out {
    fio_or_ours_in(tool, d).0.args(args).run()
}

#[test]
fn cpus_allowed_minus_one_is_cpu_0_as_fios() {
    require_fio();
    let d = scratch();
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=randread",
        "--bs=4k",
        "--size=64k",
        "--cpus_allowed=-1",
        "--output-format=json",
    ];
    for tool in ["fio", "iomark"] {
        let o = one(tool, d.path(), &args);
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(j["jobs"][0]["error"], 0, "{tool}");
        assert_eq!(j["jobs"][0]["read"]["io_bytes"], 65536, "{tool}");
    }
}

#[test]
fn a_cpus_allowed_part_that_sets_no_cpu_fails_the_thread_as_fios() {
    require_fio();
    let d = scratch();
    for list in ["5-1", "3-2,", ",1"] {
        let opt = format!("--cpus_allowed={list}");
        let text = ["--name=a", "--filename=f", "--rw=read", "--size=64k", &opt];
        let mut lines = Vec::new();
        for tool in ["fio", "iomark"] {
            let o = one(tool, d.path(), &text);
            let line = failed_thread_line(tool, list, &o);
            // the thread's id differs: the rest is fio's
            lines.push(line.split_once(", ").unwrap().1.to_string());
            let mut json = text.to_vec();
            json.push("--output-format=json");
            let o = one(tool, d.path(), &json);
            assert_eq!(o.code, 1, "{tool} {list}: {}", o.dump());
            // the thread's line comes first, then the document
            let at = o.stdout.find('{').unwrap_or(0);
            let j: serde_json::Value = serde_json::from_str(&o.stdout[at..]).unwrap();
            assert_eq!(j["jobs"][0]["error"], 22, "{tool} {list}");
            assert_eq!(j["jobs"][0]["read"]["io_bytes"], 0, "{tool} {list}");
        }
        assert_eq!(
            lines[0],
            "err=22/file:backend.c:1716, func=cpu_set_affinity, error=Invalid argument"
        );
        assert_eq!(lines[1], lines[0], "{list}");
    }
}

#[test]
fn a_zoned_abs_zone_past_the_file_ends_the_job_with_fios_line() {
    require_fio();
    let d = scratch();
    // the first zone fits: requests until the second (past 64 KiB) is drawn
    for zones in ["50/32k:50/64k", "50/1m:50/1m"] {
        let dist = format!("--random_distribution=zoned_abs:{zones}");
        let args = [
            "--name=a",
            "--filename=f",
            "--rw=randread",
            "--bs=4k",
            "--size=64k",
            &dist,
            "--write_iolog=a.log",
        ];
        let line = "fio: zoned_abs sizes exceed file size\n";
        for tool in ["fio", "iomark"] {
            let o = one(tool, d.path(), &args);
            assert_eq!((o.code, o.stderr.as_str()), (0, line), "{tool} {zones}");
        }
        // (the second: no request at all, the first draw is past the file)
        if zones.starts_with("50/32k") {
            same_offsets(&args, &["a.log"], usize::MAX);
        }
    }
}

#[test]
fn write_iolog_to_dev_null_runs_as_fios_and_writes_nothing() {
    require_fio();
    let d = scratch();
    let args = [
        "--name=a",
        "--filename=f",
        "--rw=randwrite",
        "--bs=4k",
        "--size=64k",
        "--write_iolog=/dev/null",
        "--output-format=json",
    ];
    for tool in ["fio", "iomark"] {
        let o = one(tool, d.path(), &args);
        assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{tool}: {}", o.dump());
        let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(j["jobs"][0]["write"]["io_bytes"], 65536, "{tool}");
    }
    let null = std::fs::metadata("/dev/null").unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_char_device(
        &null.file_type()
    ));
    // a link planted at the log's name stays refused (exit 3, an unsafe path, as a link
    // at a data file; the link left as planted), whatever it points at
    let w = d.path().join("link");
    std::fs::create_dir_all(&w).unwrap();
    std::os::unix::fs::symlink("/dev/null", w.join("a.log")).unwrap();
    let o = as_fio(d.path())
        .dir(&w)
        .args([
            "--name=a",
            "--filename=f",
            "--rw=read",
            "--size=64k",
            "--write_iolog=a.log",
        ])
        .run();
    assert_eq!(o.code, 3, "{}", o.dump());
    assert!(o.stderr.contains("a symbolic link"), "{}", o.dump());
    assert!(w.join("a.log").is_symlink());
}

#[test]
fn a_numa_node_this_machine_lacks_is_refused_while_parsing_as_fios() {
    require_fio();
    let d = scratch();
    // node 1023: past any machine this runs on (libnuma's single node's and range end's
    // words differ)
    for nodes in ["1023", "0-1023", "1023-x"] {
        let job = format!("[x]\nsize=64k\nnuma_cpu_nodes={nodes}\n");
        let opt = format!("--numa_cpu_nodes={nodes}");
        for args in [vec!["--name=x", "--size=64k", opt.as_str()], vec!["j.fio"]] {
            let [fio, ours] = both_in(d.path(), &[("j.fio", &job)], &args);
            assert_eq!(fio.0, 1, "{args:?}: {fio:?}");
            assert!(
                fio.2.starts_with("libnuma: Warning: node argument 1023"),
                "{fio:?}"
            );
            assert_eq!(ours, fio, "{args:?}");
        }
    }
}

/// Node lists as libnuma's `numa_parse_nodestring` reads them for fio 3.33 (C's
/// `strtoul` of base 0, `+` relative, `all`): `all`, `-0`, `0x0` are node 0 and run;
/// `-1` wraps (libnuma prints it as `%d`: `node argument -1 is out of range`) and `+1`
/// (the second allowed node, past them the mask's size: `node argument 1024 is out of
/// range`) are refused with libnuma's lines, exit 1 (this machine's one node, 0).
#[test]
fn numa_node_lists_are_read_as_libnumas() {
    require_fio();
    if std::path::Path::new("/sys/devices/system/node/node1").exists() {
        return absent_here(format_args!(
            "numa_node_lists: this machine has more than one node"
        ));
    }
    let d = scratch();
    for nodes in ["all", "-0", "0x0"] {
        let opt = format!("--numa_cpu_nodes={nodes}");
        let args = ["--name=x", "--size=64k", "--ioengine=null", opt.as_str()];
        let [fio, ours] = both_in(d.path(), &[], &args);
        assert_eq!((fio.0, fio.2.as_str()), (0, ""), "{nodes}: {fio:?}");
        assert_eq!((ours.0, ours.2.as_str()), (0, ""), "{nodes}: {ours:?}");
    }
    for (nodes, arg) in [("-1", "-1"), ("+1", "1024")] {
        let opt = format!("--numa_cpu_nodes={nodes}");
        let args = ["--name=x", "--size=64k", "--ioengine=null", opt.as_str()];
        let [fio, ours] = both_in(d.path(), &[], &args);
        let want = format!("libnuma: Warning: node argument {arg} is out of range\n");
        assert!(fio.2.starts_with(&want), "{nodes}: {fio:?}");
        assert_eq!(ours, fio, "{nodes}");
    }
}

/// `numa_cpu_nodes=!0` on a machine of one node: libnuma reads it as an empty node
/// mask, which fio 3.33 takes while parsing (`--parse-only` exits 0); each job thread
/// then asks to run on no node: libnuma's `numa_sched_setaffinity_v2_int() failed:
/// Invalid argument` on stderr, the thread's `fio: pid=P, err=22/file:backend.c:1737,
/// func=numa_run_on_node_mask failed` line (fio's text ends in a newline, so `,
/// error=Invalid argument` starts the next line), nothing read, and one failed thread
/// each in the exit code (2 for two threads), each thread's `, error=` line said (the
/// two threads' lines may interleave: each half counted).
#[test]
fn numa_cpu_nodes_naming_no_node_fails_each_thread_as_fios() {
    require_fio();
    if std::path::Path::new("/sys/devices/system/node/node1").exists() {
        return absent_here(format_args!(
            "numa_cpu_nodes=!0: this machine has more than one node"
        ));
    }
    let d = scratch();
    let job = ["--name=j", "--rw=read", "--size=64k", "--filename=f"];
    let parse = [&job[..], &["--numa_cpu_nodes=!0", "--parse-only"]].concat();
    let [fio, ours] = both_in(d.path(), &[], &parse);
    assert_eq!((fio.0, ours.0), (0, 0), "{fio:?} {ours:?}");
    let line = "err=22/file:backend.c:1737, func=numa_run_on_node_mask failed\n";
    let tail = ", error=Invalid argument";
    let libnuma = "numa_sched_setaffinity_v2_int() failed: Invalid argument\n";
    for (numjobs, code) in [("1", 1), ("2", 2)] {
        let nj = format!("--numjobs={numjobs}");
        let args = [
            &job[..],
            &["--numa_cpu_nodes=!0", &nj, "--output-format=json"],
        ]
        .concat();
        let n = code as usize;
        for (tool, o) in ["fio", "iomark"]
            .into_iter()
            .zip(both_in(d.path(), &[], &args))
        {
            assert_eq!(o.0, code, "{tool} {numjobs}: {o:?}");
            assert_eq!(o.2, libnuma.repeat(n), "{tool} {numjobs}: {o:?}");
            assert_eq!(o.1.matches(line).count(), n, "{tool} {numjobs}: {o:?}");
            let tails = o.1.lines().filter(|l| *l == tail).count();
            assert_eq!(tails, n, "{tool} {numjobs}: {o:?}");
            let doc: serde_json::Value =
                serde_json::from_str(&o.1[o.1.find('{').unwrap()..]).unwrap();
            let jobs = doc["jobs"].as_array().unwrap();
            assert_eq!(jobs.len(), n, "{tool}");
            for j in jobs {
                assert_eq!(j["error"], 22, "{tool}: {j}");
                assert_eq!(j["read"]["total_ios"], 0, "{tool}: {j}");
            }
        }
    }
}

/// `cpumask=-1` as fio 3.33 reads it: the parts `-1` and `1` in turn (parse.c
/// `handle_option`); `-1` names every CPU, so fio says of the first this machine lacks
/// `fio: CPU N too large (max=N-1)` and the job runs on CPU 0, exit 0; the mask
/// 2⁶⁴ − 1 written out is past `strtoll`'s range: `failed parsing` alone, exit 1.
#[test]
fn cpumask_minus_one_and_past_strtoll_are_fios() {
    require_fio();
    let d = scratch();
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    if n >= 32 {
        return absent_here(format_args!(
            "cpumask: 32 CPUs or more, -1 names none past them"
        ));
    }
    let args = ["--name=x", "--size=64k", "--ioengine=null", "--cpumask=-1"];
    let [fio, ours] = both_in(d.path(), &[], &args);
    let line = format!("fio: CPU {n} too large (max={})\n", n - 1);
    assert_eq!((fio.0, fio.2.as_str()), (0, line.as_str()), "{fio:?}");
    assert_eq!(
        (ours.0, ours.2.as_str()),
        (fio.0, fio.2.as_str()),
        "{ours:?}"
    );
    for mask in ["18446744073709551615", "0xffffffffffffffff"] {
        let opt = format!("--cpumask={mask}");
        let args = ["--name=x", "--size=64k", "--ioengine=null", opt.as_str()];
        let [fio, ours] = both_in(d.path(), &[], &args);
        let said = format!("fio: failed parsing cpumask={mask}\n");
        assert_eq!((fio.0, fio.2.as_str()), (1, said.as_str()), "{fio:?}");
        assert_eq!(ours, fio, "{mask}");
    }
}
