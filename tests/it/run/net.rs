//! `iomark run` with ioengine=net through the binary: a receiver and a sender over lo in
//! one run, their byte counts in fio's JSON, and a refused connection's one-line error
//! and exit code. The engine's own units are in src/engine/net.rs.

use crate::util::*;

/// Run a job file, JSON out: (exit code, the jobs by name, stderr).
fn run_jobs(job: &str) -> (i32, serde_json::Value, String) {
    let d = scratch();
    std::fs::write(d.path().join("net.fio"), job).unwrap();
    let out = Iomark::new()
        .dir(d.path())
        .args(["run", "net.fio", "--output-format=json"])
        .run();
    let v: serde_json::Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}\n{}", out.stdout, out.stderr));
    (out.code, v, out.stderr)
}

fn job<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap()
}

fn bytes(j: &serde_json::Value, dir: &str) -> u64 {
    j[dir]["io_bytes"].as_u64().unwrap()
}

#[test]
fn tcp_receiver_counts_the_bytes_the_sender_sent() {
    let port = free_port();
    let (code, v, err) = run_jobs(&format!(
        "[global]\nioengine=net\nport={port}\nprotocol=tcp\nbs=4k\n\
         [receiver]\nlisten\nrw=read\nsize=100g\n\
         [sender]\nhostname=localhost\nstartdelay=200ms\nrw=write\nsize=1m\n"
    ));
    assert_eq!(code, 0, "{err}");
    let (r, s) = (job(&v, "receiver"), job(&v, "sender"));
    // the receiver reads until the sender closes: what was sent, all of it
    assert_eq!(bytes(s, "write"), 1 << 20);
    assert_eq!(bytes(r, "read"), bytes(s, "write"));
    assert_eq!((bytes(r, "write"), bytes(s, "read")), (0, 0));
    assert_eq!(r["read"]["total_ios"], 256);
    assert_eq!(
        (r["error"].as_i64(), s["error"].as_i64()),
        (Some(0), Some(0))
    );
}

#[test]
fn udp_pingpong_reader_and_writer_count_the_same_datagrams() {
    let port = free_port();
    let (code, v, err) = run_jobs(&format!(
        "[global]\nioengine=net\nport={port}\nprotocol=udp\nbs=512\npingpong=1\n\
         [reader]\nrw=read\nsize=1g\n\
         [writer]\nhostname=127.0.0.1\nstartdelay=200ms\nrw=write\nsize=256k\n"
    ));
    assert_eq!(code, 0, "{err}");
    let (r, w) = (job(&v, "reader"), job(&v, "writer"));
    assert_eq!(bytes(w, "write"), 256 << 10);
    // every datagram answered, so none lost: the reader ends at the close marker
    assert_eq!(bytes(r, "read"), bytes(w, "write"));
    assert_eq!(r["read"]["total_ios"], 512);
}

#[test]
fn a_refused_connection_fails_the_job_with_one_line_naming_the_options() {
    let port = free_port();
    let (code, v, err) = run_jobs(&format!(
        "[sender]\nioengine=net\nhostname=127.0.0.1\nport={port}\nrw=write\nbs=4k\nsize=1m\n"
    ));
    // fio: the job fails with the errno (its report kept), the run exits 1
    assert_eq!(code, 1, "{err}");
    let s = job(&v, "sender");
    assert_eq!(s["error"].as_i64(), Some(i64::from(libc::ECONNREFUSED)));
    let want = format!("job 'sender': ioengine=net: connect to 127.0.0.1:{port} (hostname=127.0.0.1, port={port}): Connection refused");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("ioengine=net")).collect();
    assert!(lines.len() == 1 && lines[0].ends_with(&want), "{err}");
}

#[test]
fn a_net_job_without_its_options_is_refused_by_name() {
    let d = scratch();
    let out = Iomark::new()
        .dir(d.path())
        .args([
            "run",
            "--name=s",
            "--ioengine=net",
            "--rw=write",
            "--size=1m",
            "--port=9",
        ])
        .run();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("hostname="), "{}", out.stderr);
    let out = Iomark::new()
        .dir(d.path())
        .args([
            "run",
            "--name=s",
            "--ioengine=net",
            "--rw=randread",
            "--size=1m",
            "--port=9",
            "--listen",
        ])
        .run();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("random"), "{}", out.stderr);
    // verify over the network is said to be missing, not that net moves no data
    let out = Iomark::new()
        .dir(d.path())
        .args([
            "run",
            "--name=s",
            "--ioengine=net",
            "--rw=read",
            "--size=1m",
            "--port=9",
            "--listen",
            "--verify=md5",
        ])
        .run();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("over the network (ioengine=net) is not implemented"),
        "{}",
        out.stderr
    );
    // no file was created for the net job
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}
