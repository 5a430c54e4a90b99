//! `iomark run` with the engines that move no data (filecreate, dirstat, cpuio,
//! e4defrag), fio's `create_only`, and log files numbered over all jobs' threads as fio
//! numbers them. The engines' own units are in src/engine/fileops.rs, falloc.rs,
//! cpuio.rs and e4defrag.rs.

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
        assert_eq!(std::fs::metadata(&p).map(|m| m.len()).ok(), Some(0), "{}", p.display());
    }
    // dirstat makes its directories and stats each
    let o = run(
        d.path(),
        &["--output-format=json", "--name=s", "--ioengine=dirstat", "--nrfiles=2", "--filesize=4k"],
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
    let o = run(d.path(), &["--name=cpu", "--ioengine=cpuio", "--time_based", "--runtime=1"]);
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
    assert_eq!(std::fs::metadata(d.path().join("prep")).unwrap().len(), 1 << 20);
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
    let d = scratch();
    assert!(on_ext4(d.path()), "{} must be on ext4 for e4defrag", d.path().display());
    let data: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 253) as u8).collect();
    // written back before the run: the ioctl fails EBUSY on dirty pages (the job drops
    // the file's clean pages first, invalidate=1)
    std::fs::write(d.path().join("f"), &data).unwrap();
    std::fs::File::open(d.path().join("f")).unwrap().sync_all().unwrap();
    for extra in [&["--bs=32k", "--rw=write"][..], &["--bs=4k", "--rw=randwrite", "--inplace=1"]] {
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
        assert_eq!(std::fs::read(d.path().join("f")).unwrap(), data, "{extra:?}: data kept");
        let donor = std::fs::metadata(d.path().join("f.def")).unwrap().len();
        // inplace=0: allocated over the file once; inplace=1: truncated after each move
        let want = if extra.contains(&"--inplace=1") { 0 } else { 1 << 20 };
        assert_eq!(donor, want, "{extra:?}");
    }
    // reads are refused as fio's engine refuses them (EINVAL), and donorname is required
    let o = run(d.path(), &["--name=r", "--ioengine=e4defrag", "--donorname=f.def", "--filename=f", "--rw=read"]);
    assert!(o.stdout.contains("err=22") || o.stderr.contains("Invalid argument"), "{}{}", o.stdout, o.stderr);
    let o = run(d.path(), &["--name=r", "--ioengine=e4defrag", "--filename=f"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("donorname"), "{}", o.stderr);
}
