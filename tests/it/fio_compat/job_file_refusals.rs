//! A value refused in a job file: fio 3.33 prints its lines for the value as on the
//! command line (`bs: 'z' suffix isn't applicable`, `fio: failed parsing bs=zz`, an
//! option's valid values on stdout), then `fio: job SECTION dropped`, exit 1; an engine
//! it cannot load is its loader's lines. iomark as `fio` prints the same, compared side
//! by side with the installed fio: a list of bad values, and every option fio 3.33's
//! `--cmdhelp=all` lists (read from the installed fio when the test runs) given `zz`.
//! `iomark run` keeps its own one-line refusal naming the file and line.

use crate::util::*;

/// `(key=value, reason)`: options given `zz` in a job file where iomark's answer differs
/// from fio 3.33's (docs/compat/fio.md, "Options"). The list may only shrink: a listed
/// option that now answers as fio fails the test until it is struck off.
const ZZ_DIFFERS: &[(&str, &str)] = &[(
    "merge_blktrace_file=zz",
    "fio 3.33 crashes (SIGSEGV) on it; iomark runs the job",
)];

/// `(code, stdout, stderr)` of fio 3.33 and of iomark as `fio`, each running the job file
/// `text` (as `job.fio`, in a directory of its own); stdout only when the run was
/// refused (a job that runs prints its own figures).
fn job_file(text: &str) -> [(i32, String, String); 2] {
    let b = fio_and_iomark("job_file_refusals", &["job.fio"], |d, _| {
        std::fs::write(d.join("job.fio"), text).unwrap();
    });
    let fio = b
        .fio
        .expect("fio 3.33 is required (bash tests/run.sh installs it)");
    [fio, b.iomark].map(|o| {
        let out = if o.code == 0 {
            String::new()
        } else {
            without_pids(&o.stdout)
        };
        (o.code, out, without_notices(&o.stderr))
    })
}

/// `text` with each `pid=N` of a failed thread's line as `pid=N` (the number is the
/// thread's own, never the same twice).
fn without_pids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("pid=") {
        out += &rest[..at + 4];
        rest = rest[at + 4..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('N');
    }
    out + rest
}

/// `stderr` without iomark's notices of options it accepts but does not apply (a
/// deliberate difference, docs/compat/fio.md; test `fio_compat::not_applied`).
fn without_notices(stderr: &str) -> String {
    let notice = |l: &str| l.starts_with("notice: option '") && l.ends_with("without it)");
    stderr
        .split_inclusive('\n')
        .filter(|l| !notice(l.trim_end()))
        .collect()
}

/// A job file whose section `j` sets `entry`, after globals that keep the job short.
fn with_entry(entry: &str) -> String {
    format!("[global]\nioengine=null\nsize=64k\nruntime=1\n[j]\n{entry}\n")
}

#[test]
fn bad_values_in_a_job_file_print_fios_lines() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    let entries = [
        "bs=zz",
        "iodepth=-1",
        "iodepth=0",
        "rw=bogus",
        "rw=read:zz",
        "size=abc",
        "bogus=1",
        "direct=2",
        "numjobs=abc",
        "runtime=xyz",
        "ioengine=zzbogus",
        "fallocate=none,zz",
        "percentile_list=zz",
        "offset=zz",
        // fio's policy callback says first what is wrong with the mode or its nodes
        "numa_mem_policy=prefer",
        "numa_mem_policy=prefer:1x",
        "numa_mem_policy=local:1",
        "numa_mem_policy=bind",
        // libnuma's warning of a node list it cannot read, fio's lines after it
        "numa_cpu_nodes=0,zz",
        "numa_cpu_nodes=0-x",
        // an integer of fio's that iomark does not run: fio's lines for a value it
        // cannot read
        "hugepage-size=abc",
    ];
    for entry in entries {
        let [fio, iomark] = job_file(&with_entry(entry));
        assert_eq!(fio, iomark, "{entry}: fio, then iomark");
    }
    // a refusal in [global] drops `global`; one in a later section drops that one, after
    // the jobs before it were read (fio 3.33 has printed their lines on stdout by then,
    // which iomark does not: docs/compat/fio.md)
    let global = "[global]\nioengine=null\nbs=zz\n[j]\nsize=64k\n";
    let later = "[a]\nioengine=null\nsize=64k\n[b]\nioengine=null\nsize=64k\nbs=zz\n";
    for (text, whole) in [(global, true), (later, false)] {
        let [fio, iomark] = job_file(text);
        assert_ne!(fio.0, 0, "{text}");
        assert!(fio.2.ends_with(if whole {
            "job global dropped\n"
        } else {
            "job b dropped\n"
        }));
        if whole {
            assert_eq!(fio, iomark, "{text}: fio, then iomark");
        } else {
            assert_eq!(
                (fio.0, fio.2),
                (iomark.0, iomark.2),
                "{text}: fio, then iomark"
            );
        }
    }
}

/// fio 3.33's job options, read from the installed fio.
fn fio_options() -> Vec<String> {
    let all = fio_cmd().args(["--cmdhelp=all"]).run();
    assert_eq!(all.code, 0, "fio --cmdhelp=all: {}", all.stderr);
    all.stdout
        .lines()
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim().to_string()))
        .filter(|k| !k.is_empty() && !k.contains(' '))
        .collect()
}

/// Every option of fio 3.33's `--cmdhelp=all` given `zz` in a job file: iomark as `fio`
/// exits as fio does and prints fio's stderr byte for byte, and its stdout too where fio
/// refuses the job (options listed in [`ZZ_DIFFERS`] excepted).
#[test]
fn every_option_given_zz_in_a_job_file_answers_as_fio() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    let keys = fio_options();
    assert!(keys.len() > 150, "{} options", keys.len());
    let (mut bad, mut same, mut seen) = (Vec::new(), 0, Vec::new());
    for key in &keys {
        let entry = format!("{key}=zz");
        let [fio, iomark] = job_file(&with_entry(&entry));
        let listed = ZZ_DIFFERS.iter().any(|(e, _)| *e == entry);
        if listed {
            seen.push(entry.clone());
        }
        // the job's figures on stdout are its own when it runs
        let alike = fio.0 == iomark.0 && fio.2 == iomark.2 && (fio.0 == 0 || fio.1 == iomark.1);
        if alike == listed {
            bad.push(format!(
                "{entry} (listed in ZZ_DIFFERS: {listed})\n  fio:    {fio:?}\n  iomark: {iomark:?}"
            ));
        }
        same += usize::from(alike);
    }
    eprintln!(
        "zz in a job file: {same} of {} options answer as fio",
        keys.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    for (e, _) in ZZ_DIFFERS {
        assert!(seen.iter().any(|s| s == e), "{e} is no option of fio's");
    }
}

/// `wait_for` read as fio 3.33 reads it while it adds each job (init.c `wait_for_ok`):
/// a job it names that is not added before it (`b: waitee job zz unknown.`), the job
/// itself (`a job cannot wait for itself`), or two jobs of that name (`multiple waitees
/// … found,` and its second line) refuse the job, exit 1, after fio printed the lines of
/// the jobs added before it on stdout; iomark as `fio` prints the same.
#[test]
fn wait_for_is_refused_with_fios_lines() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    let job = |name: &str, extra: &str| format!("[{name}]\nioengine=null\nsize=64k\n{extra}");
    let texts = [
        job("a", "") + &job("b", "wait_for=zz\n"),
        job("a", "wait_for=a\n"),
        job("a", "") + &job("a", "") + &job("b", "wait_for=a\n"),
        // named after it: not added yet
        job("b", "wait_for=a\n") + &job("a", ""),
    ];
    for text in texts {
        let [fio, iomark] = job_file(&text);
        assert_eq!(fio.0, 1, "{text}: {fio:?}");
        assert!(fio.2.contains("wait"), "{text}: {fio:?}");
        assert_eq!(fio, iomark, "{text}: fio, then iomark");
    }
}

/// A CPU list fio 3.33 reads with `atoi` (`cpus_allowed=zz` is CPU 0, `1x` CPU 1): it
/// runs the job, exit 0, and lists the value as written among the job's options; iomark
/// as `fio` the same, side by side (`iomark run` refuses such a list).
#[test]
fn cpus_allowed_is_read_as_fio_reads_it() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    for v in ["zz", "0x"] {
        let text = format!("[j]\nioengine=null\nsize=64k\ncpus_allowed={v}\n");
        let b = fio_and_iomark(
            "cpus_allowed",
            &["--output-format=json", "job.fio"],
            |d, _| {
                std::fs::write(d.join("job.fio"), &text).unwrap();
            },
        );
        let fio = b.fio.expect("fio 3.33");
        for (who, o) in [("fio", &fio), ("iomark", &b.iomark)] {
            assert_eq!(o.code, 0, "{who} {v}: {}", o.dump());
            let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
            let j = &doc["jobs"][0];
            assert_eq!(j["job options"]["cpus_allowed"], v, "{who}: {j}");
            assert_eq!(j["error"], 0, "{who}");
            assert_eq!(j["read"]["io_bytes"], 64 << 10, "{who}");
        }
    }
}

/// A CPU set naming CPUs this machine lacks (its configured CPUs, `nproc --all`): fio
/// 3.33 refuses it while it parses (`fio: CPU N too large (max=M)`, `fio: failed parsing
/// KEY=VALUE`, exit 1, `--parse-only` after it too, but not a job file's under
/// `--parse-only`: no callback runs on a dry run); iomark as `fio` the same lines and
/// code, side by side. `iomark run` refuses a set of CPUs none of which exists when the job starts,
/// one line naming the option, exit 3.
#[test]
fn a_cpu_set_past_the_machines_cpus_is_refused_as_fio_refuses_it() {
    // SAFETY: sysconf only reads system configuration
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) } as usize;
    let cases = [
        ("cpus_allowed", format!("{}", n + 98), n + 98),
        ("cpus_allowed", format!("0-{}", n + 3), n),
        ("cpumask", format!("{:#x}", (1u64 << (n + 1)) - 1), n),
    ];
    for (key, value, cpu) in cases {
        let opt = format!("--{key}={value}");
        let args = ["--name=a", "--ioengine=null", "--size=64k", &opt];
        let want = format!(
            "fio: CPU {cpu} too large (max={})\nfio: failed parsing {key}={value}\n",
            n - 1
        );
        for parse_only in [false, true] {
            let mut args = args.to_vec();
            args.extend(parse_only.then_some("--parse-only"));
            let b = fio_and_iomark("cpu set past the machine", &args, |_, _| {});
            for (who, o) in b.each() {
                assert_eq!(o.code, 1, "{who} {opt}: {}", o.dump());
                assert_eq!(format!("{}{}", o.stdout, o.stderr), want, "{who} {opt}");
            }
            if let Some(f) = &b.fio {
                let i = &b.iomark;
                assert_eq!((&i.stdout, &i.stderr), (&f.stdout, &f.stderr), "{opt}");
            }
        }
        // a job file under `--parse-only` (read after it): fio 3.33 runs no option
        // callback on a dry run and takes the set; so does iomark as `fio`
        let d = scratch();
        let text = format!("[a]\nioengine=null\nsize=64k\n{key}={value}\n");
        let files = [("job.fio", text.as_str())];
        let [f, i] = both_in(d.path(), &files, &["--parse-only", "job.fio"]);
        assert_eq!((i.0, &i.2), (0, &String::new()), "iomark {opt}: {i:?}");
        if have_fio() {
            assert_eq!((f.0, &f.2), (0, &String::new()), "fio {opt}: {f:?}");
        }
        // `iomark run`: a set of CPUs none of which exists (a set with some that do runs
        // on those)
        if value.parse::<usize>().is_err() {
            continue;
        }
        let d = scratch();
        let o = Iomark::new().dir(d.path()).arg("run").args(args).run();
        assert_eq!(o.code, 3, "iomark run {opt}: {}", o.dump());
        assert_eq!(o.stderr.lines().count(), 1, "{}", o.dump());
        // (its affinity line names the set as `cpus_allowed`, a mask's too)
        assert!(o.stderr.contains("cpus_allowed"), "{}", o.dump());
    }
}

/// CPUs past fio's `FIO_MAX_CPUS` (1024) and `--parse-only` given before the CPU set:
/// fio 3.33 checks each CPU in its order, the machine's count first for a CPU below
/// 1024 (`1000-5000`: `CPU 1000 too large`), else `fio: your OS only supports up to
/// 1024 CPUs`; and it runs no option callback once `--parse-only` is read, so a set
/// after it passes (exit 0, nothing said) where one before it is refused. iomark as
/// `fio`: the same lines and codes, side by side.
#[test]
fn cpus_past_1024_and_a_dry_run_before_the_set_are_read_as_fio_reads_them() {
    // SAFETY: sysconf only reads system configuration
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) } as usize;
    assert!(n < 1000, "the CPUs below must be past this machine's {n}");
    let os = "fio: your OS only supports up to 1024 CPUs";
    let past = format!("fio: CPU 1000 too large (max={})", n - 1);
    for (value, line) in [("4096", os), ("0,5000", os), ("1000-5000", past.as_str())] {
        let opt = format!("--cpus_allowed={value}");
        let args = ["--name=a", "--ioengine=null", "--size=64k", &opt];
        let want = format!("{line}\nfio: failed parsing cpus_allowed={value}\n");
        let b = fio_and_iomark("cpus past FIO_MAX_CPUS", &args, |_, _| {});
        for (who, o) in b.each() {
            assert_eq!(o.code, 1, "{who} {opt}: {}", o.dump());
            assert_eq!(format!("{}{}", o.stdout, o.stderr), want, "{who} {opt}");
        }
    }
    let set = format!("--cpus_allowed={}", n + 98);
    for args in [
        vec!["--parse-only", "--name=a", "--size=64k", &set],
        vec!["--parse-only", &set, "--name=a", "--size=64k"],
    ] {
        let b = fio_and_iomark("dry run before the set", &args, |_, _| {});
        for (who, o) in b.each() {
            assert_eq!(
                (o.code, o.stdout.as_str(), o.stderr.as_str()),
                (0, "", ""),
                "{who} {args:?}"
            );
        }
    }
}

/// A CPU set the affinity call refuses while the job runs (`cpumask=0`: no CPU): fio
/// 3.33's thread fails before any request — `fio: pid=P, err=22/file:backend.c:1716,
/// func=cpu_set_affinity, error=Invalid argument` on stdout, no job block in the text
/// (nothing was issued), JSON `"error" : 22` with no I/O, nothing on stderr, exit 1;
/// iomark as `fio` the same, side by side. `iomark run` refuses the job, one line naming
/// the set, exit 3.
#[test]
fn a_cpu_set_the_affinity_call_refuses_fails_the_thread_as_fio_does() {
    let line = "err=22/file:backend.c:1716, func=cpu_set_affinity, error=Invalid argument";
    for fmt in ["normal", "json"] {
        let f = format!("--output-format={fmt}");
        let args = ["--name=x", "--rw=read", "--size=16k", "--cpumask=0", &f];
        let b = fio_and_iomark("cpu set the affinity call refuses", &args, |_, _| {});
        for (who, o) in b.each() {
            let said = failed_thread_line(who, fmt, o);
            assert!(said.ends_with(line), "{who} {fmt}: {said}");
            if fmt == "json" {
                let j = &o.json_doc()["jobs"][0];
                assert_eq!(j["error"], 22, "{who}: {j}");
                assert_eq!(j["read"]["total_ios"], 0, "{who}: {j}");
            } else {
                assert!(!o.stdout.contains("x: (groupid="), "{who}: {}", o.stdout);
                assert!(
                    o.stdout.contains("Run status group 0"),
                    "{who}: {}",
                    o.stdout
                );
            }
        }
    }
    let d = scratch();
    let o = Iomark::new()
        .dir(d.path())
        .args(["run", "--name=x", "--rw=read", "--size=16k", "--cpumask=0"])
        .run();
    assert_eq!(o.code, 3, "iomark run: {}", o.dump());
    assert!(o.stderr.contains("cpus_allowed="), "{}", o.dump());
}

/// An `ioscheduler` the job's device does not offer (`noop` on a loop device of a
/// multi-queue kernel): each of fio 3.33's job threads says `fio: unable to set io
/// scheduler to noop` on stderr and fails — `fio: pid=P, err=22/file:backend.c:1450,
/// func=iosched_switch, error=Invalid argument` on stdout, no job block, JSON `"error" :
/// 22` with no I/O — and the exit value counts each failed thread (2 with numjobs=2);
/// iomark as `fio` the same, side by side, and the device keeps its scheduler. `iomark
/// run` refuses the job, one line naming the device's schedulers, exit 3.
#[test]
fn an_io_scheduler_the_device_lacks_fails_each_thread_as_fio_does() {
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let sched = fs.dev().sysfs("queue/scheduler");
    assert!(!sched.contains("noop"), "{sched}");
    let line = "err=22/file:backend.c:1450, func=iosched_switch, error=Invalid argument";
    for tool in ["fio", "iomark"] {
        if tool == "fio" {
            require_fio();
        }
        for fmt in ["normal", "json"] {
            let file = fs.dir().join(format!("{tool}-{fmt}"));
            let o = fio_or_ours(tool, fs.dir())
                .dir(fs.dir())
                .args(["--name=x", "--rw=read", "--size=64k", "--numjobs=2"])
                .args(["--ioscheduler=noop", "--group_reporting"])
                .arg(format!("--filename={}", file.display()))
                .arg(format!("--output-format={fmt}"))
                .run();
            assert_eq!(o.code, 2, "{tool} {fmt}: {}", o.dump());
            let unable = "fio: unable to set io scheduler to noop\n";
            assert_eq!(o.stderr, unable.repeat(2), "{tool} {fmt}: {}", o.dump());
            let said: Vec<&str> = o
                .stdout
                .lines()
                .filter(|l| l.starts_with("fio: pid="))
                .collect();
            assert_eq!(said.len(), 2, "{tool} {fmt}: {}", o.dump());
            assert!(said.iter().all(|l| l.ends_with(line)), "{tool}: {said:?}");
            if fmt == "json" {
                let j = &o.json_doc()["jobs"][0];
                assert_eq!(j["error"], 22, "{tool}: {j}");
                assert_eq!(j["read"]["total_ios"], 0, "{tool}: {j}");
            } else {
                assert!(!o.stdout.contains("x: (groupid="), "{tool}: {}", o.stdout);
            }
        }
    }
    assert_eq!(fs.dev().sysfs("queue/scheduler"), sched);
    let o = Iomark::new()
        .dir(fs.dir())
        .args([
            "run",
            "--name=x",
            "--rw=read",
            "--size=64k",
            "--ioscheduler=noop",
        ])
        .arg(format!("--filename={}", fs.dir().join("run").display()))
        .run();
    assert_eq!(o.code, 3, "iomark run: {}", o.dump());
    assert!(o.stderr.contains("ioscheduler=noop"), "{}", o.dump());
}

/// The directories each tool's test directory holds for [`directory_and_opendir_are_read_as_fios_callbacks_read_them`]:
/// `two` (two files of 64 KiB, one in a subdirectory), `empty`, `afile` (a file) and
/// `linkd` (a link to `empty`).
fn dirs_prep(d: &std::path::Path) {
    std::fs::create_dir_all(d.join("two/sub")).unwrap();
    std::fs::write(d.join("two/a"), vec![0u8; 65536]).unwrap();
    std::fs::write(d.join("two/sub/b"), vec![0u8; 65536]).unwrap();
    std::fs::create_dir_all(d.join("empty")).unwrap();
    std::fs::write(d.join("afile"), b"x").unwrap();
    std::os::unix::fs::symlink("empty", d.join("linkd")).unwrap();
}

/// `directory=` and `opendir=` read as fio 3.33's option callbacks read them, while the
/// job is read: a name lstat(2) finds no directory (missing, a file, a link to a
/// directory) or a directory opendir cannot walk refuses the job with fio's lines on
/// stderr and its account of the failed call on stdout (none for `[global]`), exit 1, on
/// the command line and in a job file; opendir's count is fio's first line of output,
/// and an opendir that adds no file leaves a job that sets `nrfiles` after it its
/// generated file (`j.0.0`).
#[test]
fn directory_and_opendir_are_read_as_fios_callbacks_read_them() {
    assert!(
        have_fio(),
        "fio 3.33 is required (bash tests/run.sh installs it)"
    );
    let base = ["--name=j", "--ioengine=null", "--size=64k"];
    let refused = [
        "--directory=zz",
        "--directory=afile",
        "--directory=linkd",
        "--directory=empty:zz",
        "--opendir=zz",
        "--opendir=afile",
    ];
    for opt in refused {
        let args: Vec<&str> = base.iter().copied().chain([opt]).collect();
        let b = fio_and_iomark("dirs_refused", &args, |d, _| dirs_prep(d));
        let fio = b.fio.as_ref().unwrap();
        let [f, i] = [fio, &b.iomark].map(|o| (o.code, o.stdout.clone(), o.stderr.clone()));
        assert_eq!(f.0, 1, "{opt}: {f:?}");
        assert_eq!(f, i, "{opt}: fio, then iomark");
    }
    let texts = [
        "[global]\ndirectory=zz\n[a]\nioengine=null\nsize=64k\n",
        "[a]\nioengine=null\nsize=64k\nopendir=afile\n",
    ];
    for text in texts {
        let [fio, iomark] = job_file(text);
        assert_eq!(fio.0, 1, "{text}: {fio:?}");
        assert_eq!(fio, iomark, "{text}: fio, then iomark");
    }
    for (dir, n) in [("two", 2), ("empty", 0)] {
        let opt = format!("--opendir={dir}");
        let args = ["--name=j", "--rw=read", "--size=64k", &opt, "--nrfiles=1"];
        let b = fio_and_iomark("dirs_opendir", &args, |d, _| dirs_prep(d));
        let fio = b.fio.as_ref().unwrap();
        for (o, d) in [
            (fio, b.dir.path().join("fio")),
            (&b.iomark, b.dir.path().to_path_buf()),
        ] {
            assert_eq!(o.code, 0, "{opt}: {}", o.stderr);
            let first = o.stdout.lines().next().unwrap_or_default();
            assert_eq!(first, format!("fio: opendir added {n} files"), "{opt}");
            assert_eq!(d.join("j.0.0").exists(), n == 0, "{opt}: {}", d.display());
        }
    }
    // with `--output`: the count stays on stdout, the file holds the JSON document alone
    let args = [
        "--name=j",
        "--rw=read",
        "--opendir=two",
        "--output-format=json",
        "--output=o.json",
    ];
    let b = fio_and_iomark("dirs_opendir_output", &args, |d, _| dirs_prep(d));
    let fio = b.fio.as_ref().unwrap();
    for (o, d) in [
        (fio, b.dir.path().join("fio")),
        (&b.iomark, b.dir.path().to_path_buf()),
    ] {
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(o.stdout, "fio: opendir added 2 files\n");
        let doc = std::fs::read_to_string(d.join("o.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(v["jobs"][0]["read"]["io_bytes"], 131072, "{}", d.display());
    }
}
