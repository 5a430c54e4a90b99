//! `iomark run` with the engines that move no data (filecreate, dirstat, cpuio,
//! e4defrag, exec) and page_fault's memory, fio's `create_only`, and log files numbered
//! over all jobs' threads as fio numbers them. The engines' own units are in
//! src/engine/fileops.rs, falloc.rs, cpuio.rs, e4defrag.rs, exec.rs and page_fault.rs.

use crate::util::*;

#[test]
fn filecreate_makes_each_file_once_and_times_it() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=c",
            "--ioengine=filecreate",
            "--nrfiles=3",
            "--filesize=4k",
            "--openfiles=1",
        ],
    );
    let v = o.ok().json();
    let r = &v["jobs"][0]["read"];
    // one request per file (a file is one block), the create timed as its clat
    assert_eq!(r["total_ios"].as_u64(), Some(3), "{r}");
    assert!(r["clat_ns"]["mean"].as_f64().unwrap() > 0.0);
    for i in 0..3 {
        let p = d.path().join(format!("c.0.{i}"));
        assert_eq!(
            std::fs::metadata(&p).map(|m| m.len()).ok(),
            Some(0),
            "{}",
            p.display()
        );
    }
    // dirstat makes its directories and stats each
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=s",
            "--ioengine=dirstat",
            "--nrfiles=2",
            "--filesize=4k",
        ],
    );
    let v = o.ok().json();
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(2));
    assert!(d.path().join("s.0.1").is_dir());
}

#[test]
fn cpuio_burns_its_share_and_refuses_no_load() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=cpu",
            "--ioengine=cpuio",
            "--cpuload=50",
            "--cpuchunks=10000",
            "--time_based",
            "--runtime=1",
        ],
    );
    let v = o.ok().json();
    // a 10 ms burn and a 10 ms pause per request: about 50 requests a second
    let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!((25..=55).contains(&ios), "{ios} requests");
    let o = run(
        d.path(),
        &[
            "--name=cpu",
            "--ioengine=cpuio",
            "--time_based",
            "--runtime=1",
        ],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("cpuload="), "{}", o.stderr);
}

#[test]
fn create_only_lays_out_and_runs_no_io() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--create_only=1",
            "--filename=prep",
            "--size=1m",
            "--zero_buffers=0",
            "--name=prepare",
        ],
    );
    let v = o.ok().json();
    let j = &v["jobs"][0];
    assert_eq!(j["error"].as_i64(), Some(0));
    assert_eq!(j["read"]["io_bytes"].as_u64(), Some(0));
    assert_eq!(j["write"]["io_bytes"].as_u64(), Some(0));
    assert_eq!(
        std::fs::metadata(d.path().join("prep")).unwrap().len(),
        1 << 20
    );
}

#[test]
fn logs_are_numbered_over_all_jobs_threads() {
    // fio-tests t0012: sections sharing one log prefix write _iops.1, .2, .3
    let d = scratch();
    let log = d.path().join("t").display().to_string();
    let o = run(
        d.path(),
        &[
            "--size=64k",
            &format!("--write_iops_log={log}"),
            "--name=a",
            "--name=b",
            "--numjobs=2",
        ],
    );
    o.ok();
    for n in 1..=3 {
        let p = d.path().join(format!("t_iops.{n}.log"));
        assert!(p.is_file(), "{} missing", p.display());
    }
}

/// The scratch directory is on ext4 (this machine's target/ is): EXT4_SUPER_MAGIC.
fn on_ext4(p: &std::path::Path) -> bool {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: statfs into a zeroed struct on a path that exists.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    unsafe { libc::statfs(c.as_ptr(), &mut s) == 0 && s.f_type == 0xEF53 }
}

#[test]
fn e4defrag_moves_every_block_and_keeps_the_data() {
    // an ext4 of its own: a machine's root filesystem may refuse the ioctl for its own
    // reasons (this VM's root ext4 answers EPERM, as its kernel is built)
    let Some(fs) = LoopFs::small(64, "ext4") else {
        return;
    };
    let d = tempfile::tempdir_in(fs.dir()).unwrap();
    assert!(
        on_ext4(d.path()),
        "{} must be on ext4 for e4defrag",
        d.path().display()
    );
    let data: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 253) as u8).collect();
    // written back before the run: the ioctl fails EBUSY on dirty pages (the job drops
    // the file's clean pages first, invalidate=1)
    std::fs::write(d.path().join("f"), &data).unwrap();
    std::fs::File::open(d.path().join("f"))
        .unwrap()
        .sync_all()
        .unwrap();
    for extra in [
        &["--bs=32k", "--rw=write"][..],
        &["--bs=4k", "--rw=randwrite", "--inplace=1"],
    ] {
        let mut a = vec![
            "--output-format=json",
            "--name=defrag",
            "--ioengine=e4defrag",
            "--donorname=f.def",
            "--filename=f",
            "--filesize=1m",
        ];
        a.extend_from_slice(extra);
        let v = run(d.path(), &a).ok().json();
        let w = &v["jobs"][0]["write"];
        // every request moved its whole range (a short or failed move is not counted)
        assert_eq!(w["io_bytes"].as_u64(), Some(1 << 20), "{extra:?}: {w}");
        assert_eq!(v["jobs"][0]["error"].as_u64(), Some(0));
        assert_eq!(
            std::fs::read(d.path().join("f")).unwrap(),
            data,
            "{extra:?}: data kept"
        );
        let donor = std::fs::metadata(d.path().join("f.def")).unwrap().len();
        // inplace=0: allocated over the file once; inplace=1: truncated after each move
        let want = if extra.contains(&"--inplace=1") {
            0
        } else {
            1 << 20
        };
        assert_eq!(donor, want, "{extra:?}");
    }
    // reads are refused as fio's engine refuses them (EINVAL), and donorname is required
    let o = run(
        d.path(),
        &[
            "--name=r",
            "--ioengine=e4defrag",
            "--donorname=f.def",
            "--filename=f",
            "--rw=read",
        ],
    );
    assert!(
        o.stdout.contains("err=22") || o.stderr.contains("Invalid argument"),
        "{}{}",
        o.stdout,
        o.stderr
    );
    let o = run(
        d.path(),
        &["--name=r", "--ioengine=e4defrag", "--filename=f"],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("donorname"), "{}", o.stderr);
}

/// A program for exec that writes its pid to `pid` in the current directory, prints its
/// arguments and runs until it is killed; with `stubborn` it ignores SIGTERM and SIGINT.
fn exec_program(dir: &std::path::Path, stubborn: bool) -> String {
    let p = dir.join(if stubborn { "stubborn.sh" } else { "prog.sh" });
    let trap = if stubborn { "trap '' TERM INT\n" } else { "" };
    std::fs::write(
        &p,
        format!("#!/bin/sh\n{trap}echo $$ > pid\necho \"$1 $2\"\nwhile :; do sleep 0.05; done\n"),
    )
    .unwrap();
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    p.display().to_string()
}

/// The exec job `mon` running `prog` with `%r %n` for 1 s.
fn mon_job(prog: &str) -> Vec<String> {
    [
        "--name=mon",
        "--ioengine=exec",
        &format!("--program={prog}"),
        "--arguments=%r %n",
        "--time_based",
        "--runtime=1",
    ]
    .map(String::from)
    .to_vec()
}

/// The program's pid, once it has written it.
fn program_pid(dir: &std::path::Path) -> u32 {
    let t = std::time::Instant::now();
    while t.elapsed() < std::time::Duration::from_secs(20) {
        if let Some(n) = std::fs::read_to_string(dir.join("pid"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return n;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the program never started");
}

/// Not running and not a zombie: /proc has no such process.
fn gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn exec_runs_its_program_for_the_runtime_then_stops_and_reaps_it() {
    let d = scratch();
    let mut args = mon_job(&exec_program(d.path(), false));
    args.insert(0, "--output-format=json".into());
    let o = run(
        d.path(),
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let v = o.ok().json();
    let pid = program_pid(d.path());
    assert!(gone(pid), "program {pid} left behind");
    // std_redirect (default on): its output in JOBNAME.stdout, %r = 1 s, %n = the job
    assert_eq!(
        std::fs::read_to_string(d.path().join("mon.stdout")).unwrap(),
        "1 mon\n"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("mon.stderr")).unwrap(),
        ""
    );
    // fio's pseudo I/O: one request each ~100 ms (the engine's 50 ms and the think time)
    let r = &v["jobs"][0]["read"];
    let n = r["total_ios"].as_u64().unwrap();
    assert!((4..=11).contains(&n), "{n} requests in 1 s: {r}");
    assert!(v["jobs"][0]["job_runtime"].as_u64().unwrap() >= 1000);
    // diskless, as fio's exec: no disk_util
    assert!(v.get("disk_util").is_none(), "{}", v["disk_util"]);
    // no program: one line naming it
    run(
        d.path(),
        &["--name=x", "--ioengine=exec", "--time_based", "--runtime=1"],
    )
    .expect_code(2)
    .one_line_error(&["program="]);
}

/// std_redirect's JOB.stdout/JOB.stderr are outputs like any other: a link planted at
/// either is refused before the program starts (exit 3) and its target keeps its bytes;
/// an earlier file of that name is replaced whole once the program has ended.
#[test]
fn exec_redirect_files_are_never_written_through_a_link() {
    let d = scratch();
    let args = mon_job(&exec_program(d.path(), false));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let precious = d.path().join("precious");
    std::fs::write(&precious, "keep me\n").unwrap();
    let out = d.path().join("mon.stdout");
    std::os::unix::fs::symlink(&precious, &out).unwrap();
    run(d.path(), &args)
        .expect_code(3)
        .one_line_error(&["mon.stdout", "link"]);
    std::fs::remove_file(&out).unwrap();
    std::fs::hard_link(&precious, d.path().join("mon.stderr")).unwrap();
    run(d.path(), &args)
        .expect_code(3)
        .one_line_error(&["mon.stderr"]);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me\n");
    assert!(!out.exists(), "nothing created when the job was refused");
    std::fs::remove_file(d.path().join("mon.stderr")).unwrap();
    std::fs::write(&out, "an earlier run's output, longer than the new one\n").unwrap();
    run(d.path(), &args).ok();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "1 mon\n");
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".iomark-tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn exec_program_is_killed_and_reaped_on_ctrl_c_even_when_it_ignores_sigterm() {
    let d = scratch();
    let prog = exec_program(d.path(), true);
    let child = Iomark::new()
        .dir(d.path())
        .args([
            "run",
            "--name=mon",
            "--ioengine=exec",
            &format!("--program={prog}"),
            "--grace_time=1",
            "--std_redirect=0",
            "--time_based",
            "--runtime=60",
        ])
        .spawn();
    let pid = program_pid(d.path());
    assert!(!gone(pid));
    let t = std::time::Instant::now();
    assert_eq!(kill(child.id(), libc::SIGINT), 0);
    let o = finish_within(child, std::time::Duration::from_secs(20));
    assert_eq!(o.code, 130, "{}", o.stderr);
    // SIGTERM was ignored: SIGKILL after grace_time, then reaped
    assert!(
        t.elapsed() >= std::time::Duration::from_millis(950),
        "{:?}",
        t.elapsed()
    );
    assert!(gone(pid), "program {pid} left behind");
}

#[test]
fn page_fault_touches_anonymous_memory_and_no_file() {
    let d = scratch();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=pf",
            "--ioengine=page_fault",
            "--rw=randrw",
            "--bs=4k",
            "--size=1m",
        ],
    );
    let v = o.ok().json();
    let j = &v["jobs"][0];
    let bytes = j["read"]["io_bytes"].as_u64().unwrap() + j["write"]["io_bytes"].as_u64().unwrap();
    assert_eq!(bytes, 1 << 20);
    // each I/O faults its page in: minor faults at least one per written page
    assert!(
        j["minf"].as_u64().unwrap() >= j["write"]["total_ios"].as_u64().unwrap() / 2,
        "{j}"
    );
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "no file is laid out"
    );
    run(
        d.path(),
        &[
            "--name=pf",
            "--ioengine=page_fault",
            "--size=1m",
            "--nrfiles=2",
        ],
    )
    .expect_code(2)
    .one_line_error(&["page_fault", "nrfiles=2"]);
}

/// A size-based exec job (no runtime) keeps its program until its last request, and
/// the signals at the end reach the program's own children (its process group).
#[test]
fn exec_size_based_job_keeps_its_program_and_stops_its_children() {
    let d = scratch();
    let p = d.path().join("family.sh");
    std::fs::write(
        &p,
        "#!/bin/sh\nsleep 60 &\necho $! > grandchild\nsleep 0.1\necho up\nwait\n",
    )
    .unwrap();
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let o = run(
        d.path(),
        &[
            "--output-format=json",
            "--name=fam",
            "--ioengine=exec",
            &format!("--program={}", p.display()),
            "--grace_time=1",
            "--size=24k",
            "--bs=4k",
        ],
    );
    let v = o.ok().json();
    assert_eq!(
        v["jobs"][0]["read"]["total_ios"].as_u64(),
        Some(6),
        "{}",
        v["jobs"][0]["read"]
    );
    // it ran past its first 100 ms (6 requests of 50 ms): not stopped at the first request
    assert_eq!(
        std::fs::read_to_string(d.path().join("fam.stdout")).unwrap(),
        "up\n"
    );
    let gc: u32 = std::fs::read_to_string(d.path().join("grandchild"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // the grandchild got the signal too: gone, or a zombie left to its new parent
    let t = std::time::Instant::now();
    let dead = || {
        std::fs::read_to_string(format!("/proc/{gc}/stat")).map_or(true, |s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        })
    };
    while !dead() && t.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(dead(), "the program's child {gc} is still running");
}
