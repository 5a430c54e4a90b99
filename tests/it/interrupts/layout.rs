//! A stop signal while a job's file is laid out (before any I/O): the layout stops at
//! once and the file it was creating is removed, as fio 3.33's `extend_file` does when
//! told to terminate; a file that existed before keeps its bytes and its size. iomark's
//! signal lands at a fault-injector stop point inside the layout (its 3rd 1 MiB write
//! of 16), and a second rule fails the 5th write with EIO, so a layout that went on
//! after the signal would end in a layout error instead; fio's lands once its file
//! holds some of its data blocks and not all of them.

use crate::util::*;
use std::path::Path;
use std::time::Duration;

/// A job that only reads: every write is the layout's. No preallocation
/// (`fallocate=none`), so the file's allocated blocks grow with the layout's writes and
/// show how far fio's has come.
fn job(size: &str) -> Vec<String> {
    [
        "--name=t",
        "--filename=data",
        "--bs=4k",
        "--rw=read",
        "--fallocate=none",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--size={size}")])
    .collect()
}

/// The layout stopped at its 3rd write; its 5th would fail with EIO.
const MID_LAYOUT: &str = "write:stop@3,write:eio@5";

/// Allocated bytes of `path` (st_blocks × 512), 0 when it is missing.
fn allocated(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).map_or(0, |m| m.blocks() * 512)
}

/// fio 3.33 in `dir` laying out `size` bytes, sent `sig` once its file holds some data
/// blocks and not all: `None` when the layout ended before the signal could be sent
/// (the caller then has no mid-layout observation of fio).
fn fio_mid_layout(dir: &Path, size: u64, sig: i32, extra: &[&str]) -> Option<Out> {
    let mut child = fio_cmd()
        .dir(dir)
        .args(job(&size.to_string()))
        .args(extra)
        .spawn();
    let data = dir.join("data");
    let t = std::time::Instant::now();
    loop {
        let a = allocated(&data);
        if a > 0 && a < size {
            kill(child.id(), sig);
            break;
        }
        if a >= size || t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = finish(child);
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Some(finish(child))
}

/// iomark as `fio` laying out a 16 MiB file in `root/i` (with `extra`), stopped at its
/// 3rd layout write — the file made, two of its 16 writes done — and sent `sig` there:
/// the directory and the run.
fn persona_mid_layout(root: &Path, extra: &[&str], sig: i32) -> (std::path::PathBuf, Out) {
    let i = root.join("i");
    std::fs::create_dir_all(&i).unwrap();
    let mut child = as_fio(root)
        .dir(&i)
        .args(job("16m"))
        .args(extra)
        .fault(MID_LAYOUT)
        .spawn();
    assert!(wait_stopped(&mut child, Duration::from_secs(60)), "no stop");
    assert!(i.join("data").exists());
    signal_at_stop(&mut child, sig);
    (i, finish_within(child, Duration::from_secs(60)))
}

/// SIGINT mid-layout under the fio persona: fio's lines (the layout line, `fio:
/// terminating on signal 2`, the empty group's line, no job block and no disk), exit
/// 128, the file removed; stdout byte for byte fio 3.33's, which is run beside it.
#[test]
fn sigint_while_laying_out_removes_the_file_and_prints_fios_lines() {
    let d = scratch();
    let (i, o) = persona_mid_layout(d.path(), &[], libc::SIGINT);
    assert_eq!((o.signal, o.code), (None, 128), "{}", o.dump());
    assert_eq!(o.stderr, "", "{}", o.dump());
    assert!(entries(&i).is_empty(), "left: {:?}", entries(&i));
    let want = "t: Laying out IO file (1 file / 16MiB)\n\nfio: terminating on signal 2\n\n\nRun status group 0 (all jobs):\n";
    assert!(o.stdout.ends_with(want), "{}", o.stdout);
    if !need_fio("fio's side of the interrupted layout") {
        return;
    }
    let f = d.path().join("f");
    std::fs::create_dir_all(&f).unwrap();
    let size = 1u64 << 30;
    let Some(fo) = fio_mid_layout(&f, size, libc::SIGINT, &[]) else {
        skip(format_args!("fio laid out 1 GiB before the signal"));
        return;
    };
    assert_eq!(fo.code, 128, "{}", fo.dump());
    assert!(entries(&f).is_empty(), "fio left: {:?}", entries(&f));
    assert_eq!(
        o.stdout.replace("16MiB", "1024MiB"),
        fo.stdout,
        "iomark's stdout against fio's"
    );
}

/// SIGTERM mid-layout with a JSON report: fio's line before the document, which lists
/// the job with nothing done (fio 3.33 keeps it: `error` 0, no bytes), exit 128, the
/// file removed; fio beside it.
#[test]
fn sigterm_while_laying_out_reports_the_job_with_nothing_done_as_fio() {
    let d = scratch();
    let (i, o) = persona_mid_layout(d.path(), &["--output-format=json"], libc::SIGTERM);
    let mut outs = vec![("iomark", o, i)];
    let f = d.path().join("f");
    std::fs::create_dir_all(&f).unwrap();
    if need_fio("fio's side of the interrupted layout") {
        let json = ["--output-format=json"];
        match fio_mid_layout(&f, 1 << 30, libc::SIGTERM, &json) {
            Some(fo) => outs.push(("fio", fo, f)),
            None => skip(format_args!("fio laid out 1 GiB before the signal")),
        }
    }
    for (who, o, dir) in outs {
        assert_eq!((o.signal, o.code), (None, 128), "{who}: {}", o.dump());
        assert!(entries(&dir).is_empty(), "{who} left: {:?}", entries(&dir));
        let doc = o
            .stdout
            .strip_prefix("\nfio: terminating on signal 15\n")
            .unwrap_or_else(|| panic!("{who}: {}", o.stdout));
        let j: serde_json::Value = serde_json::from_str(doc).unwrap();
        let jobs = j["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 1, "{who}: {doc}");
        assert_eq!(jobs[0]["jobname"], "t", "{who}");
        assert_eq!(jobs[0]["error"], 0, "{who}");
        assert_eq!(jobs[0]["read"]["io_bytes"], 0, "{who}");
        assert_eq!(jobs[0]["read"]["total_ios"], 0, "{who}");
    }
}

/// A file the user had, shorter than the job's size, interrupted while the layout
/// extends it (`iomark run` and the persona): its own bytes stay and it is cut back to
/// its size (fio 3.33 would have removed it: iomark removes no file it did not create);
/// `iomark run` exits 143 and says it was interrupted.
#[test]
fn an_interrupted_extension_keeps_the_users_bytes_and_size() {
    let d = scratch();
    let own: Vec<u8> = (0..(1u32 << 20) + 4321)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    for fio in [false, true] {
        let w = d.path().join(if fio { "persona" } else { "run" });
        std::fs::create_dir_all(&w).unwrap();
        std::fs::write(w.join("data"), &own).unwrap();
        let cmd = match fio {
            true => as_fio(d.path()),
            false => Iomark::new().arg("run"),
        };
        let mut child = cmd.dir(&w).args(job("16m")).fault(MID_LAYOUT).spawn();
        assert!(wait_stopped(&mut child, Duration::from_secs(60)), "no stop");
        // the layout has appended past the user's bytes when the signal lands
        assert!(std::fs::metadata(w.join("data")).unwrap().len() > own.len() as u64);
        signal_at_stop(&mut child, libc::SIGTERM);
        let o = finish_within(child, Duration::from_secs(60));
        let code = if fio { 128 } else { 143 };
        assert_eq!((o.signal, o.code), (None, code), "{}", o.dump());
        assert!(std::fs::read(w.join("data")).unwrap() == own, "fio={fio}");
        if !fio {
            assert!(o.stderr.contains("interrupted by SIGTERM"), "{}", o.dump());
        }
    }
}
