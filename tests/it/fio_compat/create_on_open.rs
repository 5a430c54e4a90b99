//! `create_on_open=1` side by side with fio 3.33: the job's file is not laid out before
//! the run; it is created (empty, mode 0600 less the umask) when the job opens it, so
//! a job after a stonewall finds no file of its own while the group before it runs,
//! and a reading job reads an empty file (fio's `full resid` EIO at its first read).

use crate::util::*;
use std::os::unix::fs::PermissionsExt;

/// The mode bits a file created with `mode` gets under this process's umask.
fn created_mode(mode: u32) -> u32 {
    // SAFETY: umask(2) reads and sets this process's mask; set back at once.
    let mask = unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    };
    mode & !mask
}

/// Job `a` writes 64 KiB and, just before it starts, says whether `b.dat` exists; job
/// `b` (after a stonewall) writes 64 KiB into `b.dat` with `create_on_open=V`.
fn job_file(create_on_open: u8) -> String {
    format!(
        "[global]\nbs=4k\nsize=64k\n[a]\nrw=write\nfilename=a.dat\n\
         exec_prerun=sh -c 'test -e b.dat && echo present > seen.txt || echo absent > seen.txt'\n\
         [b]\nstonewall\nrw=write\nfilename=b.dat\ncreate_on_open={create_on_open}\n"
    )
}

/// With `create_on_open=1` the second group's file does not exist while the first
/// group runs (with 0 it was laid out before any job ran: `present`), no `b: Laying
/// out` line is printed, and after the run it holds the job's 64 KiB with mode 0600
/// (the open's mode) where the laid-out `a.dat` has 0644; exit 0 — the same in fio
/// 3.33 and in the persona.
#[test]
fn create_on_open_creates_the_file_when_the_job_opens_it() {
    let d = scratch();
    for (who, dir) in sides(d.path(), "create_on_open next to fio") {
        for (v, seen) in [(1u8, "absent"), (0, "present")] {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("j.fio"), job_file(v)).unwrap();
            let cmd = if who == "fio" {
                fio_cmd()
            } else {
                as_fio(d.path())
            };
            let o = cmd.dir(&dir).arg("j.fio").run();
            let what = format!("{who}, create_on_open={v}");
            assert_eq!(o.code, 0, "{what}: {}", o.dump());
            let said = std::fs::read_to_string(dir.join("seen.txt")).unwrap_or_default();
            assert_eq!(said.trim(), seen, "{what}: b.dat while a ran");
            assert_eq!(
                o.stdout.contains("b: Laying out IO file"),
                v == 0,
                "{what}: {}",
                o.stdout
            );
            let b = std::fs::metadata(dir.join("b.dat")).unwrap();
            let a = std::fs::metadata(dir.join("a.dat")).unwrap();
            assert_eq!((a.len(), b.len()), (64 << 10, 64 << 10), "{what}");
            let want = created_mode(if v == 1 { 0o600 } else { 0o644 });
            assert_eq!(b.permissions().mode() & 0o777, want, "{what}: b.dat's mode");
            assert_eq!(
                a.permissions().mode() & 0o777,
                created_mode(0o644),
                "{what}"
            );
        }
    }
}

/// A reading job with `create_on_open=1` and no file: the file is created empty at the
/// open (mode 0600) and the first 4 KiB read finds its end — the job's error 5 (EIO,
/// fio's `full resid`), one read issued, 0 bytes read, exit 1, in fio 3.33 and in the
/// persona.
#[test]
fn create_on_open_read_of_a_missing_file_reads_an_empty_file() {
    let d = scratch();
    let args = [
        "--name=r",
        "--rw=read",
        "--bs=4k",
        "--size=64k",
        "--filename=r.dat",
        "--create_on_open=1",
        "--output-format=json",
        "--output=r.json",
    ];
    for (who, dir) in sides(d.path(), "create_on_open reading next to fio") {
        let o = side_in(who, d.path(), &dir, &args);
        assert_eq!(o.code, 1, "{who}: {}", o.dump());
        let m = std::fs::metadata(dir.join("r.dat")).unwrap();
        assert_eq!(
            (m.len(), m.permissions().mode() & 0o777),
            (0, created_mode(0o600)),
            "{who}: r.dat"
        );
        let v = read_json(&dir.join("r.json"));
        let j = &v["jobs"][0];
        assert_eq!(j["error"], 5, "{who}: {j}");
        assert_eq!(j["read"]["io_bytes"], 0, "{who}");
        assert_eq!(j["read"]["total_ios"], 1, "{who}");
    }
}

/// A writing job with `create_on_open=1` four times larger than its filesystem (a 1 MiB
/// tmpfs): fio 3.33 lays nothing out and checks no free space, so the job runs and
/// writes until the filesystem is full, and that write's ENOSPC is the job's error 28,
/// exit 1. The persona does the same (its free-space check before the run counts no
/// file `create_on_open=1` leaves to the job): the same error and exit, `io_bytes` the
/// file's length after the run (more than nothing, less than `size`) and the same in
/// both. `iomark run` runs it too and fails with the write's ENOSPC, exit 1 — not the
/// free-space refusal's 3 (which stays for files iomark lays out).
#[test]
fn create_on_open_write_larger_than_the_filesystem_runs_to_enospc_as_fio() {
    let d = scratch();
    let mut written = Vec::new();
    let mut sides = sides(d.path(), "create_on_open on a full filesystem next to fio");
    sides.push(("iomark run", d.path().join("r")));
    for (who, dir) in sides {
        let fs = match Mount::try_new(&["-t", "tmpfs", "-o", "size=1m", "tmpfs"]) {
            Ok(m) => m,
            Err(why) => return skip(why),
        };
        let data = fs.dir().join("w.dat");
        let filename = format!("--filename={}", data.display());
        let args = [
            "--name=w",
            "--rw=write",
            "--bs=64k",
            "--size=4m",
            &filename,
            "--create_on_open=1",
            "--output-format=json",
            "--output=w.json",
        ];
        let o = if who == "iomark run" {
            std::fs::create_dir_all(&dir).unwrap();
            Iomark::new().dir(&dir).arg("run").args(args).run()
        } else {
            side_in(who, d.path(), &dir, &args)
        };
        assert_eq!(o.code, 1, "{who}: {}", o.dump());
        let len = std::fs::metadata(&data).unwrap().len();
        assert!(len > 0 && len < 4 << 20, "{who}: w.dat is {len} bytes");
        let v = read_json(&dir.join("w.json"));
        let j = &v["jobs"][0];
        assert_eq!(j["error"], libc::ENOSPC, "{who}: {j}");
        assert_eq!(j["write"]["io_bytes"], len, "{who}: bytes written");
        written.push((who, len));
    }
    let first = written[0].1;
    assert!(
        written.iter().all(|w| w.1 == first),
        "bytes written differ: {written:?}"
    );
}

/// The mmap engine with `create_on_open=1`: the file the job opens is created empty and
/// mapped at the job's size. fio 3.33 touches the mapping past the file's end and its
/// job dies of SIGBUS (`got signal=7`, the job reported with nothing done; fio then
/// often aborts, exit 134, else exits 0); the persona never
/// dies of a signal: it moves nothing past the file's end, which is the job's EIO (5,
/// `full resid`) at its first request, one issued, exit 1; the file stays empty in
/// both. Over an existing 1 MiB file both run the job whole (exit 0, 1 MiB moved, the
/// file's size kept). Each of `read`, `write`, `randwrite`, `randrw`.
#[test]
fn mmap_with_create_on_open_never_dies_of_a_signal() {
    let d = scratch();
    for rw in ["read", "write", "randwrite", "randrw"] {
        let rw_arg = format!("--rw={rw}");
        let args = [
            "--name=a",
            "--ioengine=mmap",
            "--create_on_open=1",
            &rw_arg,
            "--size=1m",
            "--bs=4k",
            "--filename=f",
            "--output-format=json",
            "--output=a.json",
        ];
        for existing in [false, true] {
            for (who, dir) in sides(d.path(), "mmap with create_on_open next to fio") {
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                if existing {
                    std::fs::write(dir.join("f"), vec![7u8; 1 << 20]).unwrap();
                }
                let cmd = if who == "fio" {
                    fio_cmd()
                } else {
                    as_fio(d.path())
                };
                let o = cmd.dir(&dir).args(args).run();
                let what = format!("{who} rw={rw} existing={existing}");
                let len = std::fs::metadata(dir.join("f")).unwrap().len();
                assert_eq!(len, if existing { 1 << 20 } else { 0 }, "{what}: f");
                if existing {
                    assert_eq!(o.code, 0, "{what}: {}", o.dump());
                    let v = read_json(&dir.join("a.json"));
                    let j = &v["jobs"][0];
                    let moved = j["read"]["io_bytes"].as_u64().unwrap()
                        + j["write"]["io_bytes"].as_u64().unwrap();
                    assert_eq!(moved, 1 << 20, "{what}: {j}");
                } else if who == "fio" {
                    // (its exit status is 0 or its abort's, 134: the abort is a heap
                    // corruption after the job's death)
                    assert!(o.stderr.contains("got signal=7"), "{what}: {}", o.dump());
                } else {
                    assert_eq!((o.signal, o.code), (None, 1), "{what}: {}", o.dump());
                    let v = read_json(&dir.join("a.json"));
                    let j = &v["jobs"][0];
                    assert_eq!(j["error"], libc::EIO, "{what}: {j}");
                    let ios = j["read"]["total_ios"].as_u64().unwrap()
                        + j["write"]["total_ios"].as_u64().unwrap();
                    let moved = j["read"]["io_bytes"].as_u64().unwrap()
                        + j["write"]["io_bytes"].as_u64().unwrap();
                    assert_eq!((ios, moved), (1, 0), "{what}: {j}");
                }
            }
        }
    }
}
