//! What the ranks on one host say about that host: iomark's notes come once,
//! from rank 0, for the aggregate; and the device view's own I/O is every rank's on the
//! host, so the sibling ranks' I/O is not called other processes'.

use super::*;
use crate::util::LoopFs;

/// `np` ranks of `iomark ARGS`.
fn ranks(np: u32, args: &[&str]) -> Option<Output> {
    let mut c = mpirun()?;
    Some(
        c.args(["-np", &np.to_string(), BIN])
            .args(args)
            .output()
            .unwrap(),
    )
}

/// The notes header of `iomark run` (stderr) and of `iomark fileio` (stdout).
const RUN_NOTES: &str = "iomark notes (not part of the fio report):";
const FILEIO_NOTES: &str = "iomark notes (not part of sysbench's report):";

/// Under mpirun -np 2..4 `iomark run` and `iomark fileio` print their notes block
/// once (rank 0's, of the aggregate); each rank's own result is in `ranks.per_rank`.
#[test]
fn notes_are_printed_once_for_the_aggregate() {
    let d = scratch();
    let dir = format!("--directory={}", d.path().display());
    let fd = format!("--file-dir={}", d.path().display());
    for np in 2..=4 {
        let job = [
            "run",
            "--name=n",
            "--rw=randwrite",
            "--bs=4k",
            "--size=1m",
            &dir,
        ];
        let Some(o) = ranks(np, &job) else {
            return;
        };
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert_eq!(err.matches(RUN_NOTES).count(), 1, "np {np}: {err}");
        assert_eq!(err.matches("  time: ").count(), 1, "np {np}: {err}");
        assert!(!out.contains(RUN_NOTES), "{out}");
        let f = [&fd[..], "--file-num=1", "--file-total-size=1M"];
        let o = ranks(np, &[&["fileio"][..], &f, &["prepare"]].concat()).unwrap();
        assert!(o.status.success(), "{}", text(&o).1);
        let run = [
            &["fileio"][..],
            &f,
            &["--file-test-mode=rndwr", "--time=0", "--events=200", "run"],
        ]
        .concat();
        let o = ranks(np, &run).unwrap();
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert_eq!(out.matches(FILEIO_NOTES).count(), 1, "np {np}: {out}");
        assert_eq!(out.matches("  time: ").count(), 1, "np {np}: {out}");
        assert!(!err.contains("iomark notes"), "{err}");
    }
}

/// The `/proc/self/io` counters of each rank's own result, added up.
fn own_io(r: &Value, key: &str) -> u64 {
    per_rank(r)
        .iter()
        .map(|p| p["result"]["device_view"]["process"][key].as_u64().unwrap())
        .sum()
}

/// Two ranks on one host write 8 MiB each with O_DIRECT to an ext4 on a loop device
/// of their own (no other process uses it): the aggregate's device view counts both
/// ranks' `/proc/self/io` as the run's own I/O (`device_view.ranks` 2, the counters
/// added up) and its notes claim no other processes' I/O (before, rank 0's 8 MiB alone
/// were the run's and the other rank's 8 MiB, when the disk's counters saw them, were
/// "the I/O of other processes"). `fileio` reads its device view the same way.
#[test]
fn sibling_ranks_io_is_not_other_processes_io() {
    let fs = match LoopFs::ext4_over_shm(96) {
        Ok(f) => f,
        Err(why) => return crate::util::skip(&why),
    };
    let dir = format!("--directory={}", fs.dir().display());
    let rj = fs.dir().join("r.json");
    let jarg = format!("--json={}", rj.display());
    let job = [
        "run",
        "--name=o",
        "--rw=write",
        "--bs=64k",
        "--size=8m",
        "--direct=1",
        &dir,
        &jarg,
    ];
    let Some(o) = ranks(2, &job) else {
        return;
    };
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let r = json(&rj);
    let view = &r["device_view"];
    assert_eq!(view["ranks"], 2, "{view}");
    let own = own_io(&r, "write_bytes");
    assert!(own >= 2 * (8 << 20), "each rank wrote its 8 MiB: {own}");
    assert_eq!(view["process"]["write_bytes"].as_u64(), Some(own), "{view}");
    assert_eq!(view["process"]["rchar"].as_u64(), Some(own_io(&r, "rchar")));
    // the disk's counters cover rank 0's run: all of both ranks' writes when rank 1
    // ends first, less when it ends later (a loaded machine)
    let disk = view["devices"][0]["write_bytes"].as_u64().unwrap();
    assert!(disk >= 8 << 20, "the disk saw the writes: {disk}");
    assert!(!err.contains("I/O of other processes"), "{err}");
    assert!(
        err.contains("  this run's 2 ranks on this host (/proc/PID/io of each): read 0 B and wrote 16.0 MiB to storage"),
        "{err}"
    );
    // each rank's own view is its own process's
    for p in per_rank(&r) {
        let v = &p["result"]["device_view"];
        assert!(v.get("ranks").is_none(), "{v}");
        assert!(v["process"]["write_bytes"].as_u64().unwrap() >= 8 << 20);
    }
    // fileio: the same on its notes (stdout)
    let fd = format!("--file-dir={}", fs.dir().display());
    let f = [&fd[..], "--file-num=1", "--file-total-size=8M"];
    let o = ranks(2, &[&["fileio"][..], &f, &["prepare"]].concat()).unwrap();
    assert!(o.status.success(), "{}", text(&o).1);
    let fj = format!("--json={}", fs.dir().join("f.json").display());
    let run = [
        &["fileio"][..],
        &f,
        &[
            "--file-test-mode=seqwr",
            "--file-extra-flags=direct",
            "--file-fsync-freq=0",
            "--time=0",
            "--events=512",
            &fj,
            "run",
        ],
    ]
    .concat();
    let o = ranks(2, &run).unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(!out.contains("I/O of other processes"), "{out}");
    assert!(
        out.contains("  this run's 2 ranks on this host (/proc/PID/io of each): "),
        "{out}"
    );
    let r = json(&fs.dir().join("f.json"));
    assert_eq!(
        r["device_view"]["process"]["write_bytes"].as_u64(),
        Some(own_io(&r, "write_bytes"))
    );
}
