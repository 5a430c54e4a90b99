//! A file or block device a job cannot open, under the fio persona next to fio 3.33: the
//! job's error (`err=13`, JSON `"error" : 13`), the report printed, exit 1 — where
//! iomark exited 3 with no report. Run as nobody (setpriv) so that permissions hold
//! against root; skipped, with the reason, when the tests are not root, setpriv is
//! missing, or (for the device) no loop device can be made. `iomark run` keeps its own
//! refusal (exit 3, one line).

use crate::util::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// `prog ARGS` run as nobody in `dir` (the fio persona: `dir/bin/fio`).
fn as_nobody(dir: &Path, prog: &Path, args: &[&str]) -> Out {
    Iomark::program("setpriv")
        .env("IOMARK_HISTORY", "off")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(prog)
        .dir(dir)
        .args(args)
        .run()
}

/// A scratch directory nobody may enter, with the persona's `bin/fio` in it; `None`
/// (the test skipped with why) when it cannot run here.
fn nobody_dir(test: &str) -> Option<tempfile::TempDir> {
    if !is_root() || tool("setpriv").is_none() {
        skip(format_args!("{test}: needs root and setpriv (util-linux)"));
        return None;
    }
    let d = scratch();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let _ = as_fio(d.path());
    Some(d)
}

/// A regular file of mode 000 at the job's size: the job's thread fails its open, as
/// fio's does — `fio: pid=P, err=13/file:filesetup.c:805, func=open(PATH),
/// error=Permission denied` on stdout after the header lines, no job block in the text
/// report (no request was issued), `"error" : 13` with the keys of a started thread in
/// JSON (`latency_depth` …), nothing on stderr, exit 1.
#[test]
fn a_file_the_job_cannot_open_is_its_error_and_the_report_is_printed() {
    let test = "a_file_the_job_cannot_open_is_its_error_and_the_report_is_printed";
    let Some(d) = nobody_dir(test) else { return };
    let f = d.path().join("f");
    std::fs::write(&f, vec![0u8; 65536]).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
    let file = format!("--filename={}", f.display());
    let line = format!(
        "err=13/file:filesetup.c:805, func=open({}), error=Permission denied\n",
        f.display()
    );
    let fio = d.path().join("bin/fio");
    let have = need_fio(test);
    for fmt in ["normal", "json"] {
        let args = [
            "--name=j",
            &file,
            "--rw=read",
            "--size=64k",
            &format!("--output-format={fmt}"),
        ];
        let mut outs = vec![("iomark", as_nobody(d.path(), &fio, &args))];
        if have {
            outs.push((
                "fio 3.33",
                as_nobody(d.path(), Path::new("/usr/bin/fio"), &args),
            ));
        }
        for (who, o) in &outs {
            let said = failed_thread_line(who, fmt, o);
            assert!(said.ends_with(line.trim_end()), "{who} {fmt}: {said}");
            assert!(
                !said.starts_with("fio: pid=0,"),
                "{who}: the thread's own pid"
            );
            if fmt == "normal" {
                let head: Vec<&str> = o.stdout.lines().take(4).collect();
                assert_eq!(&head[1..3], ["fio-3.33", "Starting 1 process"], "{who}");
                assert_eq!(head[3], said, "{who}: the thread's line after the header");
                assert!(!o.stdout.contains("j: (groupid"), "{who}: {}", o.stdout);
                assert!(o.stdout.contains("Run status group 0 (all jobs):"), "{who}");
            } else {
                let j = &o.json_doc()["jobs"][0];
                assert_eq!(
                    (j["error"].as_i64(), j["read"]["io_bytes"].as_i64()),
                    (Some(13), Some(0)),
                    "{who}"
                );
                assert_eq!(j["latency_depth"], 1, "{who}: {j}");
                assert_eq!(j["iodepth_complete"]["0"], 100.0, "{who}");
            }
        }
        if let [(_, i), (_, f)] = &outs[..] {
            if fmt == "json" {
                let keys = |o: &Out| {
                    let v = o.json_doc();
                    v["jobs"][0]
                        .as_object()
                        .unwrap()
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                };
                assert_eq!(keys(i), keys(f), "fio's keys of the job");
            }
        }
    }
    // `iomark run` keeps its refusal before any report
    let o = Iomark::program("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_iomark"))
        .dir(d.path())
        .args(["run", "--name=j", &file, "--rw=read", "--size=64k"])
        .env("IOMARK_HISTORY", "off")
        .run();
    assert_eq!(o.code, 3, "{}", o.dump());
    assert!(o.stderr.contains("Permission denied"), "{}", o.dump());
}

/// A block device the job cannot open (a loop device of mode 0600, as nobody): fio
/// 3.33 fails its size check before any job runs — `fio: failed opening blockdev DEV
/// for size check`, fio's account of the open and `fio: pid=0, err=13/…` on stderr —,
/// prints the header and an empty group, exit 1: iomark's output is the same, byte
/// for byte, in the normal format.
#[test]
fn a_block_device_the_job_cannot_open_is_its_error() {
    let test = "a_block_device_the_job_cannot_open_is_its_error";
    if let Some(why) = loop_skip_reason() {
        skip(format_args!("{test}: {why}"));
        return;
    }
    let Some(d) = nobody_dir(test) else { return };
    let dev = LoopDev::new(1 << 22, None);
    std::fs::set_permissions(&dev.dev, std::fs::Permissions::from_mode(0o600)).unwrap();
    let file = format!("--filename={}", dev.dev.display());
    let args = ["--name=j", &file, "--rw=read", "--size=64k"];
    let i = as_nobody(d.path(), &d.path().join("bin/fio"), &args);
    let p = dev.dev.display();
    let at = format!("file:filesetup.c:805, func=open({p}), error=Permission denied");
    let err =
        format!("fio: failed opening blockdev {p} for size check\n{at}\nfio: pid=0, err=13/{at}\n");
    assert_eq!(
        (i.code, i.stderr.as_str()),
        (1, err.as_str()),
        "{}",
        i.dump()
    );
    assert!(
        i.stdout
            .ends_with("Starting 1 process\n\n\nRun status group 0 (all jobs):\n"),
        "{}",
        i.dump()
    );
    if need_fio(test) {
        let f = as_nobody(d.path(), Path::new("/usr/bin/fio"), &args);
        assert_eq!(
            (&i.code, &i.stdout, &i.stderr),
            (&f.code, &f.stdout, &f.stderr),
            "fio: {}",
            f.dump()
        );
    }
}
