//! `iomark run` with `direct=1` on a target whose logical block size is 4096 bytes (a
//! loop device made with `losetup --sector-size 4096`): block sizes, `offset`,
//! `offset_increment` and `blockalign` that are not multiples of it are refused before
//! any I/O, exit 2 with one line naming the option and the required alignment; aligned
//! jobs and buffered jobs run. Needs root and losetup, otherwise skipped with the reason.

use crate::util::*;

fn read_job(dev: &str, extra: &[&str]) -> Out {
    Iomark::new()
        .arg("run")
        .args([
            "--name=r",
            "--rw=read",
            "--size=64k",
            "--output-format=json",
        ])
        .arg(format!("--filename={dev}"))
        .args(extra)
        .run()
}

#[test]
fn direct_io_offsets_and_sizes_are_checked_against_the_logical_block_size() {
    if let Some(why) = loop_skip_reason() {
        skip(why);
        return;
    }
    let lo = LoopDev::new(8 << 20, Some(4096));
    let dev = lo.dev.to_str().unwrap();
    let lbs = std::fs::read_to_string(format!(
        "/sys/block/{}/queue/logical_block_size",
        lo.dev.file_name().unwrap().to_string_lossy()
    ))
    .unwrap();
    assert_eq!(lbs.trim(), "4096", "the loop device has 4 KiB sectors");
    // (extra options, what the one error line must name)
    let refused: [(&[&str], &str); 4] = [
        (&["--bs=4k", "--offset=1k"], "offset=1024"),
        (&["--bs=1k"], "bs=1024"),
        (
            &["--bs=4k", "--numjobs=2", "--offset_increment=2k"],
            "offset_increment=2048",
        ),
        (&["--bs=4k", "--blockalign=2k"], "blockalign=2048"),
    ];
    for (extra, names) in refused {
        let mut a = extra.to_vec();
        a.push("--direct=1");
        let o = read_job(dev, &a);
        let e = o.stderr;
        assert_eq!(o.code, 2, "{extra:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{extra:?}: {e}");
        assert!(
            e.contains(names) && e.contains("logical block size") && e.contains("4096 bytes"),
            "{extra:?}: {e}"
        );
        // refused before any I/O: no report
        assert!(o.stdout.is_empty(), "{extra:?}");
    }
    // aligned offsets run: 64 KiB from byte 8192
    let o = read_job(dev, &["--bs=4k", "--offset=8k", "--direct=1"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["jobs"][0]["read"]["io_bytes"], 65536);
    // a buffered job takes any offset
    let o = read_job(dev, &["--bs=4k", "--offset=1k", "--direct=0"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["jobs"][0]["read"]["io_bytes"], 65536);
}

#[test]
fn direct_io_offset_on_a_file_of_a_4k_filesystem_is_refused_before_the_file_exists() {
    if let Some(why) = loop_skip_reason() {
        skip(why);
        return;
    }
    let m = match LoopFs::new(8 << 20, Some(4096), "ext4", &["-q"]) {
        Ok(m) => m,
        Err(why) => {
            skip(why);
            return;
        }
    };
    let f = m.dir().join("f");
    let f = f.to_str().unwrap();
    let write = |extra: &[&str]| {
        Iomark::new()
            .arg("run")
            .args([
                "--name=w",
                "--rw=write",
                "--bs=4k",
                "--size=64k",
                "--direct=1",
            ])
            .arg(format!("--filename={f}"))
            .args(extra)
            .run()
    };
    let o = write(&["--offset=1k"]);
    let e = o.stderr;
    assert_eq!(o.code, 2, "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("offset=1024") && e.contains("4096 bytes"), "{e}");
    assert!(!m.dir().join("f").exists(), "nothing is created");
    let o = write(&["--offset=8k"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // the region is [8 KiB, 72 KiB)
    assert_eq!(
        std::fs::metadata(m.dir().join("f")).unwrap().len(),
        72 << 10
    );
}

/// Public case C30: direct writes smaller than the physical block of a 512e device
/// (logical 512, physical 4096; this VM's virtio disk) run, with one warning naming the
/// sizes; whole physical blocks get none. On a disk that is not 512e the check is
/// skipped with the reason.
#[test]
fn direct_writes_below_the_physical_block_of_a_512e_disk_are_warned_about() {
    let d = scratch();
    let f = d.path().join("f");
    std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
    let Some((lbs, pbs)) =
        iomark::run::fio::align::device_block_sizes(&iomark::probe::Root::default(), &f)
    else {
        absent_here("no sysfs block sizes for the test directory's device");
        return;
    };
    let run = |bs: &str| -> String {
        let o = Iomark::new()
            .dir(d.path())
            .args([
                "run",
                "--name=w",
                "--rw=randwrite",
                &format!("--bs={bs}"),
                "--direct=1",
                "--size=1m",
                "--filename=f",
                "--number_ios=8",
            ])
            .run();
        assert_eq!(o.code, 0, "{}", o.stderr);
        o.stderr
    };
    let whole = run(&pbs.to_string());
    assert!(!whole.contains("read-modify-write"), "{whole}");
    if lbs >= pbs {
        absent_here(format_args!(
            "the test directory's disk is not 512e (logical {lbs}, physical {pbs})"
        ));
        return;
    }
    let small = run(&lbs.to_string());
    assert!(
        small.contains(&format!(
            "direct=1 writes of {lbs} bytes are not whole {pbs}-byte physical blocks"
        )) && small.contains("read-modify-write"),
        "{small}"
    );
}
