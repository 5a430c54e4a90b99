//! fio's normal text for several hosts: `mpirun -np 2 fio JOB` (iomark as
//! fio) prints what fio 3.33's client prints for two `--client`s of `fio --server`:
//! every host's probe line and `<host>` text lines, each host's report, then an
//! `All clients:` job block. Compared with fio's own client text over the loopback by
//! the shape of every line (report/fio/text/clients.rs).

use super::*;
use std::collections::BTreeSet;

/// `fio --server`s started for a test, killed and reaped when dropped (also when the
/// test fails).
struct Servers(Vec<std::process::Child>);

impl Drop for Servers {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// `n` TCP ports the system had free (all held until every one is chosen).
fn free_ports(n: usize) -> Option<Vec<u16>> {
    let held: Vec<_> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<_, _>>()
        .ok()?;
    held.iter()
        .map(|l| l.local_addr().ok().map(|a| a.port()))
        .collect()
}

/// fio 3.33 as the client of two `fio --server`s on the loopback, each in its own
/// directory under `at`, both running `job`: the client's normal text. `None` (the
/// reason printed) without fio or when a server does not run the job.
fn fio_two_clients(at: &Path, job: &Path) -> Option<String> {
    if !crate::util::need_fio("fio's client text") {
        return None;
    }
    let mut servers = Servers(vec![]);
    let mut args = vec![];
    for (n, port) in free_ports(2)?.into_iter().enumerate() {
        let dir = at.join(format!("server.{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let child = Command::new("fio")
            .arg(format!("--server=127.0.0.1,{port}"))
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        servers.0.push(child);
        // it listens within milliseconds
        let up = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        if !up {
            crate::util::skip("fio --server did not listen on the loopback");
            return None;
        }
        args.push(format!("--client=127.0.0.1,{port}"));
        args.push(job.to_str().unwrap().to_string());
    }
    let o = Command::new("fio")
        .args(&args)
        .arg("--output-format=normal")
        .current_dir(at)
        .output()
        .unwrap();
    drop(servers);
    if !o.status.success() {
        crate::util::skip("fio --client on the loopback did not run the job");
        return None;
    }
    Some(text(&o).0)
}

/// What a line of fio's normal text is, its figures left out.
fn kind(l: &str) -> String {
    const KINDS: [(&str, &str); 22] = [
        ("hostname=", "probe"),
        ("All clients: (groupid=", "All clients job"),
        ("  read: IOPS=", "read"),
        ("  write: IOPS=", "write"),
        ("  trim: IOPS=", "trim"),
        ("    slat (", "latency"),
        ("    clat (", "latency"),
        ("     lat (", "latency"),
        ("    clat percentiles", "percentiles"),
        ("     |", "percentiles"),
        ("   bw (", "samples"),
        ("   iops ", "samples"),
        ("  lat (", "latency buckets"),
        ("  cpu          :", "cpu"),
        ("  IO depths    :", "depths"),
        ("     submit    :", "submit"),
        ("     complete  :", "complete"),
        ("     issued rwts:", "issued"),
        ("     latency   :", "latency target"),
        ("Run status group ", "group"),
        ("   READ: bw=", "group read"),
        ("  WRITE: bw=", "group write"),
    ];
    if let Some((_, k)) = KINDS.iter().find(|(p, _)| l.starts_with(p)) {
        return k.to_string();
    }
    if let Some(rest) = l.strip_prefix('<').and_then(|r| r.split_once("> ")) {
        let k = match rest.1 {
            "" => "blank",
            t if t.contains(": (g=") => "section",
            t if t.starts_with("Starting ") => "starting",
            t if t.contains(": Laying out IO file") => "layout",
            t => t,
        };
        return format!("<host> {k}");
    }
    match l {
        "" => "empty".into(),
        "Disk stats (read/write):" => "disk stats".into(),
        _ if l.contains(": (groupid=") => "job".into(),
        _ if l.starts_with("  ") && l.contains(": ios=") => "disk".into(),
        _ => l.replace(|c: char| c.is_ascii_digit(), "N"),
    }
}

/// The shape of a client text: the kinds of the lines fio prints as they arrive from
/// the hosts (probe and `<host>` lines, whose order and count depend on timing), and
/// the kinds of the report lines in order, repeats of a kind as one (the percentile
/// rows and latency buckets vary with the figures); the samples lines left out (they
/// need a run longer than fio's sample interval).
fn shape(t: &str) -> (BTreeSet<String>, Vec<String>) {
    let (mut arriving, mut report) = (BTreeSet::new(), Vec::<String>::new());
    for k in t.lines().map(kind) {
        if k == "probe" || k.starts_with("<host> ") {
            arriving.insert(k);
        } else if k != "samples" && report.last() != Some(&k) {
            report.push(k);
        }
    }
    (arriving, report)
}

/// The run time (ms) of the `dir` line of every job block in `t`, in order.
fn runtimes(t: &str, dir: &str) -> Vec<u64> {
    t.lines()
        .filter(|l| l.starts_with(&format!("  {dir}: IOPS=")))
        .filter_map(|l| {
            let ms = l.rsplit('/').next()?.split("msec)").next()?;
            ms.parse().ok()
        })
        .collect()
}

/// `mpirun -np 2 fio JOB --output-format=normal` (iomark as fio) against fio 3.33's
/// client text for two servers running the same job: the same line kinds arriving
/// from the hosts, the same report layout (two hosts' job blocks with their run status
/// and disk stats, then `All clients:` without percentiles, latency target or run
/// status), the `All clients` block with pid 0, `jobs=2`, bandwidths without a unit
/// and the longest host's run time.
#[test]
fn two_ranks_print_fios_client_text() {
    let d = scratch();
    let [mine, theirs] = ["iomark", "fio"].map(|n| d.path().join(n));
    for p in [&mine, &theirs] {
        std::fs::create_dir_all(p).unwrap();
    }
    let job = d.path().join("m.fio");
    std::fs::write(&job, "[m]\nrw=randrw\nbs=4k\nsize=2m\n").unwrap();
    let Some(mut c) = two_ranks_as_fio(d.path()) else {
        return;
    };
    let o = c
        .arg(&job)
        .arg("--output-format=normal")
        .current_dir(&mine)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let (arriving, report) = shape(&out);
    assert_eq!(
        report.iter().filter(|k| *k == "job").count(),
        2,
        "one block per host: {out}"
    );
    let all = out
        .lines()
        .find(|l| l.starts_with("All clients: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        all.starts_with("All clients: (groupid=0, jobs=2): err= 0: pid=0: "),
        "{all}"
    );
    let tail = &out[out.find("All clients: ").unwrap()..];
    assert!(
        !tail.contains("percentiles") && !tail.contains("Run status"),
        "{tail}"
    );
    let bw = tail.lines().nth(1).unwrap();
    assert!(bw.contains(", BW=") && !bw.contains("B/s"), "no unit: {bw}");
    for dir in ["read", "write"] {
        let rt = runtimes(&out, dir);
        assert_eq!(rt.len(), 3, "{out}");
        assert_eq!(rt[2], rt[0].max(rt[1]), "{dir}: the longest host's: {out}");
    }
    let Some(theirs_text) = fio_two_clients(&theirs, &job) else {
        return;
    };
    let (want_arriving, want_report) = shape(&theirs_text);
    assert_eq!(
        arriving, want_arriving,
        "lines from the hosts:\n{out}\nfio:\n{theirs_text}"
    );
    assert_eq!(
        report, want_report,
        "report layout:\n{out}\nfio:\n{theirs_text}"
    );
}

/// `mpirun -np 2 fio … --status-interval=1 --output-format=json`: rank 0 prints a
/// report every interval while the ranks run — its own I/O so far, a single host's
/// document (the ranks' records meet only at the end; docs/compat/fio.md) — then the
/// final client document over both ranks, on stdout one after the other.
#[test]
fn rank_0_prints_the_status_interval_reports() {
    let d = scratch();
    let Some(mut c) = two_ranks_as_fio(d.path()) else {
        return;
    };
    let o = c
        .args([
            "--name=s",
            "--ioengine=null",
            "--rw=read",
            "--bs=4k",
            "--size=1g",
            "--rate_iops=1000",
            "--time_based",
            "--runtime=3",
            "--status-interval=1",
            "--output-format=json",
        ])
        .current_dir(d.path())
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&out)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(docs.len() >= 3, "{} documents: {out}", docs.len());
    let (last, interim) = docs.split_last().unwrap();
    assert_eq!(
        last["client_stats"].as_array().map(Vec::len),
        Some(3),
        "{out}"
    );
    let mut ios = 0;
    for v in interim {
        let jobs = v["jobs"].as_array().unwrap_or_else(|| panic!("{v}"));
        assert_eq!(jobs.len(), 1, "rank 0's job: {v}");
        let n = jobs[0]["read"]["total_ios"].as_u64().unwrap();
        assert!(n > ios, "growing: {out}");
        ios = n;
    }
    // rank 0's last interim count is under the two ranks' final sum
    let all = last["client_stats"][2]["read"]["total_ios"]
        .as_u64()
        .unwrap();
    assert!(ios < all, "{out}");
}

/// `mpirun -np 2 DIR/bin/fio`: iomark as fio (a link named fio) on two ranks; `None`
/// without mpirun.
fn two_ranks_as_fio(dir: &std::path::Path) -> Option<std::process::Command> {
    std::fs::create_dir(dir.join("bin")).unwrap();
    let fio = dir.join("bin/fio");
    std::os::unix::fs::symlink(BIN, &fio).unwrap();
    let mut c = mpirun()?;
    c.args(["-np", "2"]).arg(&fio);
    Some(c)
}
