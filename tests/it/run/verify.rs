//! `iomark run` verification and error options (fio semantics, `fio --cmdhelp=KEY`):
//! verify_backlog[_batch], verify_interval with verify=meta + verify_pattern,
//! verify_write_sequence, verify_dump, crc64, ignore_error / error_dump,
//! fill_device (on a small loop-mounted ext4, root only), allow_file_create, atomic
//! (statx preflight), and the errors for xnvme engine keys. Faults come from the
//! test-only injector (`IOMARK_FAULT`).

use crate::util::*;
use std::path::Path;

/// Blocks read back and checked, from the text report ("verify: N blocks read back").
fn verified(o: &Out) -> u64 {
    o.stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("verify: "))
        .filter_map(|r| r.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// Offsets of the 4 KiB blocks of `f` that carry a verify header (magic 0xacca).
fn stamped_blocks(f: &Path, bs: usize) -> Vec<u64> {
    let data = std::fs::read(f).unwrap();
    data.chunks(bs)
        .enumerate()
        .filter(|(_, c)| c.len() >= 2 && c[0] == 0xca && c[1] == 0xac)
        .map(|(i, _)| (i * bs) as u64)
        .collect()
}

#[test]
fn verify_backlog_checks_while_writing_and_batch_reverifies() {
    let d = scratch();
    let base = [
        "--name=w",
        "--filename=f",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--verify=crc32c",
    ];
    // without a backlog: the 16 blocks are read back once, after the writes
    let o = run(d.path(), &base);
    assert!(o.code == 0, "{}", o.stderr);
    assert_eq!(verified(&o), 16);
    // backlog of 4 with a batch of 8: every backlog point verifies 8 blocks (4 twice,
    // fio semantics). The points come before the 5th, 9th and 13th writes; the last 4
    // blocks are verified after the writes, as in fio: 3 x 8 + 4
    let mut a = base.to_vec();
    a.extend(["--verify_backlog=4", "--verify_backlog_batch=8"]);
    let o = run(d.path(), &a);
    assert!(o.code == 0, "{}", o.stderr);
    assert_eq!(verified(&o), 28);
    // batch of 1: one block per point (3), the other 13 at the end
    let mut a = base.to_vec();
    a.extend(["--verify_backlog=4", "--verify_backlog_batch=1"]);
    let o = run(d.path(), &a);
    assert!(o.code == 0, "{}", o.stderr);
    assert_eq!(verified(&o), 16);
}

#[test]
fn verify_backlog_catches_a_corruption_before_the_job_writes_on() {
    let d = scratch();
    // the first read back is corrupted: with verify_backlog=4 and verify_fatal the job
    // stops at the first backlog point, after 4 of its 16 writes
    let o = run_fault(
        d.path(),
        "read:corrupt@1",
        &[
            "--name=w",
            "--filename=f",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--verify=crc32c",
            "--verify_backlog=4",
            "--verify_fatal=1",
        ],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr.contains("crc32c checksum mismatch"),
        "{}",
        o.stderr
    );
    assert_eq!(
        stamped_blocks(&d.path().join("f"), 4096),
        vec![0, 4096, 8192, 12288]
    );
}

#[test]
fn crc64_round_trip_and_corruption() {
    let d = scratch();
    let a = [
        "--name=w",
        "--filename=f",
        "--rw=randwrite",
        "--bs=4k",
        "--size=128k",
        "--verify=crc64",
    ];
    let o = run(d.path(), &a);
    assert!(o.code == 0, "{}", o.stderr);
    assert_eq!(verified(&o), 32);
    let o = run_fault(d.path(), "read:corrupt@3", &a);
    assert_eq!(o.code, 1);
    let e = o.stderr;
    assert!(
        e.contains("crc64 checksum mismatch") && e.contains("1 block(s)"),
        "{e}"
    );
    // crc32c-intel is fio's alias of crc32c
    let o = run(
        d.path(),
        &[
            "--name=w",
            "--filename=g",
            "--rw=write",
            "--size=16k",
            "--verify=crc32c-intel",
        ],
    );
    assert!(o.code == 0, "{}", o.stderr);
    assert_eq!(verified(&o), 4);
}

#[test]
fn surface_scan_interval_headers_meta_pattern_and_dump() {
    let d = scratch();
    let common = [
        "--filename=data",
        "--bs=64k",
        "--size=256k",
        "--verify=meta",
        "--verify_pattern=0xaa555aa5",
        "--verify_interval=512",
    ];
    let mut w = vec!["--name=write-phase", "--rw=write", "--do_verify=0"];
    w.extend(common);
    let o = run(d.path(), &w);
    assert!(o.code == 0, "{}", o.stderr);
    let data = std::fs::read(d.path().join("data")).unwrap();
    assert_eq!(data.len(), 256 << 10);
    // a header every 512 bytes naming its own offset, the pattern after it
    for off in (0..data.len()).step_by(512) {
        assert_eq!(&data[off..off + 2], &[0xca, 0xac], "header at {off}");
        let hdr_off = u64::from_le_bytes(data[off + 8..off + 16].try_into().unwrap());
        assert_eq!(hdr_off, off as u64);
        assert_eq!(
            u32::from_le_bytes(data[off + 4..off + 8].try_into().unwrap()),
            512
        );
    }
    assert_eq!(data[64..68], [0xaa, 0x55, 0x5a, 0xa5]);
    let mut r = vec![
        "--name=verify-phase",
        "--rw=read",
        "--do_verify=1",
        "--verify_dump=1",
    ];
    r.extend(common);
    let o = run(d.path(), &r);
    assert!(o.code == 0, "{}", o.stderr);
    // corrupt one pattern byte of the chunk at 131072 + 1024: the read of the block at
    // 131072 fails there, and verify_dump writes both blocks next to the file
    let mut bad = data.clone();
    bad[131072 + 1024 + 100] ^= 0xff;
    std::fs::write(d.path().join("data"), &bad).unwrap();
    let o = run(d.path(), &r);
    assert_eq!(o.code, 1);
    let e = o.stderr;
    assert!(
        e.contains("offset 131072") && e.contains("pattern mismatch at byte 1124"),
        "{e}"
    );
    let rec = d.path().join("data.131072.received");
    let exp = d.path().join("data.131072.expected");
    assert!(
        e.contains("data.131072.received") && e.contains("data.131072.expected"),
        "{e}"
    );
    assert!(
        std::fs::read(&rec).unwrap() == bad[131072..131072 + 65536],
        "received block"
    );
    assert!(
        std::fs::read(&exp).unwrap() == data[131072..131072 + 65536],
        "expected block"
    );
}

/// fio 3.33's fixup (init.c): an interval that does not divide the write block size
/// becomes the greatest common divisor of the smallest and largest write block
/// (`bs=4k verify_interval=3000` verifies with 4096, `bs=12k verify_interval=8k` with
/// 12 KiB), so the job runs and verifies as fio's does; fio runs both too.
#[test]
fn verify_interval_is_fixed_up_as_fio() {
    let d = scratch();
    for (bs, iv) in [("4k", "3000"), ("12k", "8k")] {
        let args = [
            "--name=w",
            "--filename=f",
            "--rw=write",
            &format!("--bs={bs}"),
            "--size=96k",
            "--verify=crc32c",
            &format!("--verify_interval={iv}"),
            "--output-format=json",
        ];
        let o = run(d.path(), &args).ok();
        let j = &o.json()["jobs"][0];
        assert_eq!(j["error"], 0, "{}", o.stdout);
        // everything written is read back and checked
        assert_eq!(j["write"]["io_bytes"], 96 * 1024, "{}", o.stdout);
        assert_eq!(j["read"]["io_bytes"], 96 * 1024, "{}", o.stdout);
        if have_fio() {
            let f = fio_cmd().dir(d.path()).args(args).run().ok().json();
            assert_eq!(f["jobs"][0]["error"], 0, "{f}");
            assert_eq!(f["jobs"][0]["read"]["io_bytes"], 96 * 1024, "{f}");
        }
    }
    // refused: a bssplit size between the extremes that the asked interval does not
    // divide (fio 3.33 writes headers past that block's end); a fixup below the verify
    // header (4096 and 4128: 32 bytes; fio 3.33 fails that job, EINVAL from verify.c)
    for (split, iv, says) in [
        ("4k/40:6k/30:8k/30", "4k", "verify_interval=4096"),
        ("4096/50:4128/50", "512", "makes it 32"),
    ] {
        let o = run(
            d.path(),
            &[
                "--name=w",
                "--filename=f",
                "--rw=write",
                &format!("--bssplit={split}"),
                "--size=96k",
                "--verify=crc32c",
                &format!("--verify_interval={iv}"),
            ],
        );
        assert_eq!(o.code, 2, "{}", o.dump());
        assert!(o.stderr.contains(says), "{}", o.stderr);
    }
}

#[test]
fn write_sequence_is_checked_unless_disabled() {
    // two threads write the same file in different random orders, slowly enough to
    // overlap: a block last written by the other thread carries its sequence number
    let d = scratch();
    let base = [
        "--name=w",
        "--filename=shared",
        "--rw=randwrite",
        "--bs=4k",
        "--size=512k",
        "--numjobs=2",
        "--rate_iops=1000",
        "--verify=crc32c",
    ];
    let o = run(d.path(), &base);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("write sequence number"), "{}", o.stderr);
    let mut a = base.to_vec();
    a.push("--verify_write_sequence=0");
    let o = run(d.path(), &a);
    assert!(o.code == 0, "{}", o.stderr);
    assert_eq!(verified(&o), 2 * 128);
}

#[test]
fn ignore_error_lists_decide_what_continue_on_error_goes_past() {
    let d = scratch();
    let base = [
        "--name=w",
        "--filename=f",
        "--rw=write",
        "--bs=4k",
        "--size=64k",
        "--output-format=json",
    ];
    // ENOSPC is not in fio's default non-fatal list (EIO, EILSEQ): the job stops
    let mut a = base.to_vec();
    a.push("--continue_on_error=write");
    let o = run_fault(d.path(), "write:enospc@5", &a);
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("No space left on device"), "{}", o.stderr);
    assert!(!o.stderr.contains("continued past"), "{}", o.stderr);
    // ignore_error=,ENOSPC: write errors ENOSPC go on, counted as errors, never as done
    let mut a = base.to_vec();
    a.extend([
        "--continue_on_error=write",
        "--ignore_error=,ENOSPC",
        "--error_dump=1",
    ]);
    let o = run_fault(d.path(), "write:enospc@5", &a);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let j = o.json();
    // 16 writes issued (fio's `total_ios` counts the failed one), 15 done
    assert_eq!(j["jobs"][0]["write"]["total_ios"], 16);
    assert_eq!(j["jobs"][0]["write"]["io_bytes"], 15 * 4096);
    assert_eq!(j["jobs"][0]["total_err"], 1);
    let e = o.stderr;
    assert!(
        e.contains("error_dump:") && e.contains("offset 16384"),
        "{e}"
    );
    // the list replaces the default: EIO now stops the job
    let o = run_fault(d.path(), "write:eio@5", &a);
    assert_eq!(o.code, 1);
    assert!(!o.stderr.contains("continued past"), "{}", o.stderr);
    // a VERIFY list is accepted, and the notice says it has no effect
    let mut a = base.to_vec();
    a.push("--ignore_error=,,EILSEQ");
    let o = run(d.path(), &a);
    assert!(o.code == 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("VERIFY list has no effect"),
        "{}",
        o.stderr
    );
    // a bad list: one line naming the option and what is accepted, exit 2
    let mut a = base.to_vec();
    a.push("--ignore_error=ENOPE");
    let o = run(d.path(), &a);
    assert_eq!(o.code, 2);
    let e = o.stderr;
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("ignore_error") && e.contains("ENOPE") && e.contains("errno"),
        "{e}"
    );
}

#[test]
fn allow_file_create_0_refuses_a_missing_file() {
    let d = scratch();
    let a = [
        "--name=r",
        "--filename=absent",
        "--rw=read",
        "--size=64k",
        "--allow_file_create=0",
    ];
    let o = run(d.path(), &a);
    assert_eq!(o.code, 3, "{}", o.stderr);
    let e = o.stderr;
    assert!(
        e.contains("allow_file_create=0") && e.contains("absent"),
        "{e}"
    );
    assert!(!d.path().join("absent").exists(), "nothing created");
    std::fs::write(d.path().join("absent"), vec![1u8; 64 << 10]).unwrap();
    let o = run(d.path(), &a);
    assert!(o.code == 0, "{}", o.stderr);
}

#[test]
fn atomic_is_refused_before_any_io_where_unsupported() {
    let d = scratch();
    let f = d.path().join("f");
    std::fs::write(&f, vec![5u8; 64 << 10]).unwrap();
    let (_, max) = iomark::run::fio::errors::atomic_limits(&f).unwrap();
    let o = run(
        d.path(),
        &[
            "--name=a",
            "--filename=f",
            "--rw=randwrite",
            "--bs=4k",
            "--size=64k",
            "--atomic=1",
            "--verify=crc64",
        ],
    );
    if max == 0 {
        assert_eq!(o.code, 3, "{}", o.stderr);
        let e = o.stderr;
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.contains("atomic=1") && e.contains("atomic_write_unit_max=0"),
            "{e}"
        );
        assert_eq!(std::fs::read(&f).unwrap(), vec![5u8; 64 << 10], "no I/O");
    } else {
        assert!(o.code == 0, "{}", o.stderr);
        assert_eq!(verified(&o), 16);
    }
    // atomic on a mapping makes no sense: a usage error
    let o = run(
        d.path(),
        &[
            "--name=a",
            "--filename=f",
            "--rw=write",
            "--size=64k",
            "--atomic=1",
            "--ioengine=mmap",
        ],
    );
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("atomic=1"), "{}", o.stderr);
}

#[test]
fn fill_device_writes_until_enospc_and_ends_normally() {
    let Some(fs) = LoopFs::small(16, "ext4") else {
        return;
    };
    let dir = fs.dir();
    let avail = fs.avail();
    assert!(avail > 8 << 20, "{avail}");
    // no size (fio's surface-scan.fio): the job writes until the filesystem is full
    let o = run(
        dir,
        &[
            "--name=fill",
            "--filename=datafile.tmp",
            "--rw=write",
            "--bs=64k",
            "--fill_device=1",
            "--verify=meta",
            "--verify_pattern=0xaa555aa5",
            "--verify_interval=512",
            "--do_verify=0",
            "--output-format=json",
        ],
    );
    assert!(o.code == 0, "{}", o.stderr);
    let j = o.json();
    let written = j["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
    assert!(
        j["jobs"][0]["total_err"].is_null(),
        "ENOSPC is not an error"
    );
    assert!(
        written > avail - (1 << 20) && written <= avail,
        "{written} of {avail}"
    );
    let len = std::fs::metadata(dir.join("datafile.tmp")).unwrap().len();
    assert!(len >= written, "{len} {written}");
    assert!(
        fs.avail() < 128 << 10,
        "filesystem left with {}",
        fs.avail()
    );
    // then the verify phase of surface-scan.fio reads it all back
    let o = run_noting(
        dir,
        &[
            "--name=verify",
            "--filename=datafile.tmp",
            "--rw=read",
            "--bs=64k",
            "--verify=meta",
            "--verify_pattern=0xaa555aa5",
            "--verify_interval=512",
            "--create_serialize=0",
            "--output-format=json",
        ],
        "create_serialize=0",
    );
    // the whole file, in 64 KiB reads (a block cut short by ENOSPC rounds up)
    let read = o.json()["jobs"][0]["read"]["io_bytes"].as_u64().unwrap();
    assert_eq!(read, len.div_ceil(65536) * 65536);
}

/// `run` of `args` in `dir` that succeeds (exit 0) with `notice` on stderr (both
/// asserted): its output.
fn run_noting(dir: &Path, args: &[&str], notice: &str) -> Out {
    let o = run(dir, args);
    assert!(o.code == 0, "{}", o.stderr);
    assert!(o.stderr.contains(notice), "notice {notice}: {}", o.stderr);
    o
}

#[test]
fn xnvme_keys_are_named_as_engine_options_and_notices_are_printed() {
    let d = scratch();
    let o = run(d.path(), &["--name=x", "--size=64k", "--fdp=1"]);
    assert_eq!(o.code, 2);
    let e = o.stderr;
    assert!(
        e.contains("'fdp'") && e.contains("xnvme") && e.contains("io_uring_cmd"),
        "{e}"
    );
    let o = run_noting(
        d.path(),
        &[
            "--name=w",
            "--filename=f",
            "--rw=write",
            "--size=16k",
            "--verify=crc32c",
            "--verify_async=4",
        ],
        "verify_async=4: iomark verifies inline",
    );
    assert_eq!(verified(&o), 4);
}

#[test]
fn atomic_writes_run_and_verify_where_the_filesystem_takes_them() {
    // a loop-mounted XFS (reflink) takes RWF_ATOMIC writes on Linux >= 6.16
    let Some(fs) = LoopFs::small(320, "xfs") else {
        return;
    };
    let probe = fs.dir().join("probe");
    std::fs::write(&probe, [0u8; 4096]).unwrap();
    let (min, max) = iomark::run::fio::errors::atomic_limits(&probe).unwrap();
    if max == 0 {
        absent_here("this kernel's XFS reports no atomic writes (statx STATX_WRITE_ATOMIC)");
        return;
    }
    assert!(min <= 4096 && max >= 4096, "limits {min}..{max}");
    for engine in ["psync", "io_uring"] {
        let o = run(
            fs.dir(),
            &[
                "--name=a",
                "--filename=f",
                &format!("--ioengine={engine}"),
                "--iodepth=8",
                "--rw=randwrite",
                "--bs=4k",
                "--size=1m",
                "--atomic=1",
                "--verify=crc64",
            ],
        );
        assert!(o.code == 0, "{engine}: {}", o.stderr);
        assert_eq!(verified(&o), 256, "{engine}");
    }
    // a block size above the unit maximum is refused with the limits, before any I/O
    let big = (u64::from(max) * 2).max(8192);
    let o = run(
        fs.dir(),
        &[
            "--name=a",
            "--filename=g",
            "--rw=write",
            &format!("--bs={big}"),
            &format!("--size={}", big * 2),
            "--atomic=1",
        ],
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    let e = o.stderr;
    assert!(
        e.contains(&format!("bs={big}")) && e.contains(&format!("to {max} bytes")),
        "{e}"
    );
}

/// A file of 16 verified 4 KiB blocks written by iomark, the 3rd block's data
/// corrupted (its header left intact, so the checksum is what fails).
fn corrupted_third_block(d: &Path) {
    let o = run(
        d,
        &[
            "--name=w",
            "--filename=f",
            "--rw=write",
            "--bs=4k",
            "--size=64k",
            "--verify=crc32c",
            "--do_verify=0",
        ],
    );
    assert!(o.code == 0, "{}", o.stderr);
    let p = d.join("f");
    let mut data = std::fs::read(&p).unwrap();
    for b in &mut data[8192 + 100..8192 + 108] {
        *b ^= 0xff;
    }
    std::fs::write(&p, data).unwrap();
}

const READ_VERIFY: [&str; 7] = [
    "--name=r",
    "--filename=f",
    "--rw=read",
    "--bs=4k",
    "--size=64k",
    "--verify=crc32c",
    "--output-format=json",
];

#[test]
fn read_verify_mismatch_ends_the_job_at_the_failing_block() {
    // fio 3.33 on the same layout: io_bytes=12288 (the failing read counts), err=84,
    // exit 1, with or without verify_fatal
    let d = scratch();
    corrupted_third_block(d.path());
    for extra in [None, Some("--verify_fatal=1")] {
        let mut a = READ_VERIFY.to_vec();
        a.extend(extra);
        let o = run(d.path(), &a);
        assert_eq!(o.code, 1, "{extra:?}: {}", o.stderr);
        let j = o.json();
        assert_eq!(j["jobs"][0]["read"]["io_bytes"], 3 * 4096, "{extra:?}");
        assert_eq!(j["jobs"][0]["read"]["total_ios"], 3, "{extra:?}");
        assert_eq!(j["jobs"][0]["error"], 84, "{extra:?}");
        let e = o.stderr;
        assert!(
            e.contains("verify failed") && e.contains("offset 8192"),
            "{e}"
        );
        assert!(!e.contains("continued past"), "{e}");
    }
}

#[test]
fn read_verify_mismatch_with_continue_on_error_reads_on_and_counts_it() {
    let d = scratch();
    corrupted_third_block(d.path());
    for coe in ["--continue_on_error=verify", "--continue_on_error=all"] {
        let mut a = READ_VERIFY.to_vec();
        a.push(coe);
        let o = run(d.path(), &a);
        // iomark exits 1 for errors continued past (fio exits 0 with err=84)
        assert_eq!(o.code, 1, "{coe}: {}", o.stderr);
        let j = o.json();
        // the whole file is read, the mismatched block counted as done (as fio)
        assert_eq!(j["jobs"][0]["read"]["io_bytes"], 16 * 4096, "{coe}");
        assert_eq!(j["jobs"][0]["total_err"], 1, "{coe}");
        assert_eq!(j["jobs"][0]["error"], 84, "{coe}");
        let e = o.stderr;
        assert!(
            e.contains("1 I/O error(s) continued past") && e.contains("offset 8192"),
            "{e}"
        );
    }
    // continue_on_error=read does not cover verify errors: the job stops
    let mut a = READ_VERIFY.to_vec();
    a.push("--continue_on_error=read");
    let o = run(d.path(), &a);
    assert_eq!(o.code, 1);
    assert_eq!(o.json()["jobs"][0]["read"]["io_bytes"], 3 * 4096);
}

/// On an engine that queues, the read-back goes through it at the job's depth, as fio
/// 3.33's verify reads do: each is a queued read with its submission latency, so the
/// JSON `read.slat_ns.N` counts the blocks read back (fio 3.33: 256 of 256 for a 1 MiB
/// randwrite in 4 KiB blocks on io_uring, libaio and posixaio, at iodepth 1 and 8),
/// where iomark's reads one pread after another had none. A block corrupted in the
/// engine's read (the test-only injector) is still caught: EILSEQ, exit 1.
#[test]
fn the_read_back_on_a_queued_engine_goes_through_it_at_the_jobs_depth() {
    let d = scratch();
    let blocks = 1024 / 4;
    for engine in ["io_uring", "libaio", "posixaio"] {
        for depth in ["1", "8"] {
            let (e, q) = (format!("--ioengine={engine}"), format!("--iodepth={depth}"));
            let o = run(
                d.path(),
                &[
                    "--name=v",
                    "--filename=f",
                    "--rw=randwrite",
                    "--bs=4k",
                    "--size=1m",
                    &e,
                    &q,
                    "--verify=crc32c",
                    "--output-format=json",
                ],
            );
            assert_eq!(o.code, 0, "{engine} {depth}: {}", o.stderr);
            let j = &o.json()["jobs"][0];
            assert_eq!(j["read"]["total_ios"], blocks, "{engine} {depth}");
            assert_eq!(j["read"]["slat_ns"]["N"], blocks, "{engine} {depth}");
        }
    }
    let o = run_fault(
        d.path(),
        "read:corrupt@3",
        &[
            "--name=v",
            "--filename=g",
            "--rw=write",
            "--bs=4k",
            "--size=128k",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--verify=crc32c",
            "--output-format=json",
        ],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    let j = &o.json()["jobs"][0];
    assert_eq!(j["error"], libc::EILSEQ, "{j}");
    assert!(o.stderr.contains("checksum mismatch"), "{}", o.stderr);
}
