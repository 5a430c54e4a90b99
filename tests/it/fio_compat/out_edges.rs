//! The edges of output and diagnostics under the fio persona, next to fio 3.33 itself
//! (its half skipped, with the reason, when fio is not installed): a report that cannot
//! be written (`--output=/dev/full`, stdout on `/dev/full`), a reader that went away (a
//! closed pipe, `| head -1`, `| head -c 10`), `--debug=io` and `--debug=help`, and the
//! latencies of a synchronous engine (lat from the request made ready, clat from its
//! issue).

use crate::util::*;
use std::io::Read;
use std::process::Stdio;

/// A small null job, in the given output format.
fn null_job(fmt: &str) -> Vec<String> {
    let mut job: Vec<String> = ["--name=j", "--ioengine=null", "--size=64k", "--rw=read"]
        .map(String::from)
        .to_vec();
    job.push(format!("--output-format={fmt}"));
    job
}

/// Run `cmd` with stdout on `sink`, stderr captured.
fn to_sink(cmd: Iomark, sink: Sink) -> Out {
    let o = cmd
        .command()
        .stdin(Stdio::null())
        .stdout(sink.stdio())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    Out::from_output(o)
}

/// `--output=/dev/full`: fio 3.33 runs, loses the report and exits 0 with nothing said;
/// iomark refuses the device before any work (one line naming it), the safer behaviour
/// docs/compat/fio.md lists, with fio's exit code for an output it cannot open (1).
#[test]
fn a_full_device_as_output_is_refused_where_fio_loses_the_report() {
    let test = "a_full_device_as_output_is_refused_where_fio_loses_the_report";
    let d = scratch();
    for fmt in ["normal", "json", "terse"] {
        let mut args = null_job(fmt);
        args.push("--output=/dev/full".into());
        let i = as_fio(d.path()).dir(d.path()).args(&args).run();
        assert_eq!((i.code, i.stdout.as_str()), (1, ""), "{fmt}: {}", i.dump());
        assert_eq!(i.stderr.lines().count(), 1, "{fmt}: {}", i.dump());
        assert!(
            i.stderr
                .starts_with("fio: cannot write --output=/dev/full: is not a regular file"),
            "{fmt}: {}",
            i.dump()
        );
        // nothing ran: no data file was laid out (the null engine has none) and no
        // report was written anywhere
        if need_fio(test) {
            let f = fio_cmd().dir(d.path()).args(&args).run();
            assert_eq!(
                (f.code, f.stdout.as_str(), f.stderr.as_str()),
                (0, "", ""),
                "fio {fmt}"
            );
        }
    }
}

/// An `--output` the system will not create (its directory missing, or a read-only one):
/// fio 3.33's one line `fio: output file open error: REASON` and exit 1, nothing run (no
/// data file laid out), under the persona as under fio, side by side.
#[test]
fn an_output_the_system_refuses_is_fios_open_error_and_exit_1() {
    let test = "an_output_the_system_refuses_is_fios_open_error_and_exit_1";
    let d = scratch();
    let ro = d.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let read_only = Mount::try_new(&["--bind", ro.to_str().unwrap()]).ok();
    if let Some(m) = &read_only {
        sh(
            "mount",
            &["-o", "remount,ro,bind", m.dir().to_str().unwrap()],
        );
    }
    let mut cases = vec![("missing/o.json", "No such file or directory")];
    if let Some(m) = &read_only {
        cases.push((m.dir().to_str().unwrap(), "Read-only file system"));
    }
    for (out, why) in cases {
        let out = match out.starts_with('/') {
            true => format!("{out}/o.json"),
            false => out.to_string(),
        };
        let job = [
            "--name=j",
            "--size=64k",
            "--rw=write",
            "--filename=data",
            &format!("--output={out}"),
        ];
        let want = format!("fio: output file open error: {why}\n");
        let i = as_fio(d.path()).dir(d.path()).args(job).run();
        assert_eq!(
            (i.code, i.stderr.as_str()),
            (1, want.as_str()),
            "{out}: {}",
            i.dump()
        );
        assert!(!d.path().join("data").exists(), "{out}: the job ran");
        if need_fio(test) {
            let f = fio_cmd().dir(d.path()).args(job).run();
            assert_eq!((f.code, f.stderr.as_str()), (1, want.as_str()), "fio {out}");
            assert!(!d.path().join("data").exists(), "fio {out}: the job ran");
        }
    }
}

/// `--output=FILE` exists before the jobs run, as fio 3.33 creates it while reading its
/// command line: a new name is an empty file at the persona's first write (the child
/// stopped there), then the report; a file already there keeps its old bytes until the
/// report replaces them (iomark's rule: old content or the whole new one, never a
/// part), where fio empties it at the start. fio side by side: its file is there, empty,
/// while its job waits out a start delay.
#[test]
fn the_output_file_is_created_before_the_jobs_run() {
    let test = "the_output_file_is_created_before_the_jobs_run";
    let d = scratch();
    let job = ["--name=j", "--size=64k", "--rw=write", "--filename=data"];
    std::fs::write(d.path().join("old.txt"), "the previous report\n").unwrap();
    for (out, before) in [("new.txt", ""), ("old.txt", "the previous report\n")] {
        let mut child = as_fio(d.path())
            .dir(d.path())
            .args(job)
            .arg(format!("--output={out}"))
            .fault("write:stop@1")
            .spawn();
        assert!(wait_stopped(&mut child, std::time::Duration::from_secs(20)));
        let at_start = std::fs::read_to_string(d.path().join(out));
        assert_eq!(kill(child.id(), libc::SIGCONT), 0);
        let o = finish(child);
        assert_eq!(o.code, 0, "{out}: {}", o.dump());
        assert_eq!(
            at_start.ok().as_deref(),
            Some(before),
            "{out} at the first write"
        );
        let after = std::fs::read_to_string(d.path().join(out)).unwrap();
        assert!(after.contains("Run status group 0"), "{out}: {after}");
        assert!(!after.contains("previous"), "{out}: {after}");
    }
    if need_fio(test) {
        let path = d.path().join("fio.txt");
        let mut child = fio_cmd()
            .dir(d.path())
            .args(job)
            .args(["--startdelay=3", "--output=fio.txt"])
            .spawn();
        let t = std::time::Instant::now();
        while !path.exists() && t.elapsed() < std::time::Duration::from_secs(20) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let at_start = std::fs::read_to_string(&path);
        let running = child.try_wait().unwrap().is_none();
        let o = finish(child);
        assert_eq!(o.code, 0, "fio: {}", o.dump());
        assert!(running, "fio ended before its file was seen");
        assert_eq!(
            at_start.ok().as_deref(),
            Some(""),
            "fio's file at the start"
        );
    }
}

/// `--output=` a path fio 3.33 cannot open (a missing directory, a directory): fio's
/// one line `fio: output file open error: TEXT` and exit 1 from both tools, nothing
/// created and nothing on stdout.
#[test]
fn an_output_fio_cannot_open_is_fios_line_and_exit_1() {
    let test = "an_output_fio_cannot_open_is_fios_line_and_exit_1";
    let d = scratch();
    std::fs::create_dir(d.path().join("dd")).unwrap();
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    let cases = [
        ("--output=nodir/x", "No such file or directory"),
        ("--output=dd", "Is a directory"),
    ];
    for tool in tools {
        for (out, why) in cases {
            let cmd = match tool {
                "fio" => fio_cmd(),
                _ => as_fio(d.path()),
            };
            let o = cmd.dir(d.path()).args(null_job("normal")).arg(out).run();
            let line = format!("fio: output file open error: {why}\n");
            assert_eq!(
                (o.code, o.stdout.as_str(), o.stderr.as_str()),
                (1, "", line.as_str()),
                "{tool} {out}"
            );
            assert!(!d.path().join("nodir").exists(), "{tool} {out}");
        }
    }
}

/// A FIFO as the data file: fio 3.33 cannot size it and exits 1; iomark refuses it
/// before any job runs (never opening it: no writer or reader is awaited), in its own
/// line naming the FIFO, and exits 1 too under the persona. Both ends of the FIFO stay.
#[test]
fn a_fifo_as_data_file_exits_1_as_fio() {
    let test = "a_fifo_as_data_file_exits_1_as_fio";
    let d = scratch();
    let fifo = d.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    for tool in tools {
        for rw in ["--rw=read", "--rw=write"] {
            let cmd = match tool {
                "fio" => fio_cmd(),
                _ => as_fio(d.path()),
            };
            let o = cmd
                .dir(d.path())
                .args(["--name=a", rw, "--size=1m", "--filename=fifo"])
                .timeout(std::time::Duration::from_secs(60))
                .run();
            assert_eq!(o.code, 1, "{tool} {rw}: {}", o.dump());
            let said = format!("{}{}", o.stdout, o.stderr);
            assert!(said.contains("fifo"), "{tool} {rw}: {}", o.dump());
            let m = std::fs::symlink_metadata(&fifo).unwrap();
            assert!(std::os::unix::fs::FileTypeExt::is_fifo(&m.file_type()));
        }
    }
}

/// `fio … > /dev/full`: fio 3.33 exits 0 with nothing said; iomark says once that the
/// report could not be written and exits 1 (docs/compat/fio.md).
#[test]
fn stdout_on_a_full_device_fails_where_fio_exits_0() {
    let test = "stdout_on_a_full_device_fails_where_fio_exits_0";
    let d = scratch();
    for fmt in ["normal", "json", "terse"] {
        let args = null_job(fmt);
        let i = to_sink(as_fio(d.path()).dir(d.path()).args(&args), Sink::DevFull);
        assert_eq!(
            (i.code, i.stderr.as_str()),
            (
                1,
                "fio: cannot write the report to stdout: No space left on device\n"
            ),
            "{fmt}"
        );
        if need_fio(test) {
            let f = to_sink(fio_cmd().dir(d.path()).args(&args), Sink::DevFull);
            assert_eq!((f.code, f.stderr.as_str()), (0, ""), "fio {fmt}");
        }
    }
}

/// Stdout a pipe whose reader is already gone: fio 3.33 is killed by SIGPIPE at its
/// first write; the persona finishes the run and its cleanup, then ends killed by
/// SIGPIPE too (a shell's status 141), nothing said on stderr. `iomark run` keeps its
/// own rule (exit 0, quietly).
#[test]
fn a_closed_pipe_ends_the_persona_killed_by_sigpipe_as_fio() {
    let test = "a_closed_pipe_ends_the_persona_killed_by_sigpipe_as_fio";
    let d = scratch();
    for fmt in ["normal", "json", "terse"] {
        let args = null_job(fmt);
        let i = to_sink(as_fio(d.path()).dir(d.path()).args(&args), Sink::ClosedPipe);
        assert_eq!(
            (i.code, i.signal, i.stderr.as_str()),
            (-1, Some(libc::SIGPIPE), ""),
            "{fmt}"
        );
        if need_fio(test) {
            let f = to_sink(fio_cmd().dir(d.path()).args(&args), Sink::ClosedPipe);
            assert_eq!(
                (f.code, f.signal, f.stderr.as_str()),
                (-1, Some(libc::SIGPIPE), ""),
                "fio {fmt}"
            );
        }
    }
    let mut run = vec!["run".to_string()];
    run.extend(null_job("normal"));
    let own = to_sink(Iomark::new().dir(d.path()).args(&run), Sink::ClosedPipe);
    assert_eq!((own.code, own.signal), (0, None), "{}", own.dump());
    assert!(!own.stderr.contains("cannot write"), "{}", own.dump());
}

/// Start `cmd` with stdout a pipe, read `want` bytes of it (or up to its first newline
/// when `want` is 0), close the reader, and wait: what was read and how it ended.
fn head(cmd: Iomark, want: usize) -> (String, Out) {
    let mut child = cmd
        .command()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while stdout.read(&mut byte).unwrap_or(0) == 1 {
        got.push(byte[0]);
        if (want == 0 && byte[0] == b'\n') || (want > 0 && got.len() == want) {
            break;
        }
    }
    drop(stdout);
    let o = Out::from_output(child.wait_with_output().unwrap());
    (String::from_utf8_lossy(&got).into_owned(), o)
}

/// Exit 0 (all written before the reader left) or killed by SIGPIPE (a write after it).
fn ended_as_fio_may(o: &Out) -> bool {
    matches!((o.code, o.signal), (0, None) | (-1, Some(libc::SIGPIPE)))
}

/// `fio --name=j --ioengine=null --size=1g --rw=read | head -1`: fio 3.33 prints the
/// job's section line before the run, the reader leaves, and the report meets a closed
/// pipe: killed by SIGPIPE (PIPESTATUS 141). The persona prints its header lines before
/// the run too; its null job is short enough that the report may still reach the pipe
/// before the reader leaves (exit 0), so either end is taken here (a paced job ends by
/// SIGPIPE alone: `fio_compat::header_first`); never another code, never a word on
/// stderr, the same first line. `--output-format=json |
/// head -c 10`: both write the document after the run, so each exits 0 when it was in
/// the pipe before the reader left and is killed by SIGPIPE otherwise (fio 3.33 writes
/// it in several writes: seen both ways here).
#[test]
fn head_after_the_first_line_or_bytes_ends_both_tools_alike() {
    let test = "head_after_the_first_line_or_bytes_ends_both_tools_alike";
    let d = scratch();
    let job = ["--name=j", "--ioengine=null", "--size=1g", "--rw=read"];
    let line = "j: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=null, iodepth=1\n";
    let (got, i) = head(as_fio(d.path()).dir(d.path()).args(job), 0);
    assert_eq!((got.as_str(), i.stderr.as_str()), (line, ""));
    assert!(ended_as_fio_may(&i), "{}", i.dump());
    let json = [&job[..], &["--output-format=json"]].concat();
    let (got, i) = head(as_fio(d.path()).dir(d.path()).args(&json), 10);
    assert_eq!((got.as_str(), i.stderr.as_str()), ("{\n  \"fio v", ""));
    assert!(ended_as_fio_may(&i), "{}", i.dump());
    if need_fio(test) {
        let (got, f) = head(fio_cmd().dir(d.path()).args(job), 0);
        assert_eq!(
            (got.as_str(), f.code, f.signal, f.stderr.as_str()),
            (line, -1, Some(libc::SIGPIPE), "")
        );
        let (got, f) = head(fio_cmd().dir(d.path()).args(&json), 10);
        assert_eq!((got.as_str(), f.stderr.as_str()), ("{\n  \"fio v", ""));
        assert!(ended_as_fio_may(&f), "fio: {}", f.dump());
    }
}

/// The `io` trace lines of stdout without their thread id and `io_u` address: each
/// request's `EVENT off=…,len=…,ddir=D,file=NAME`, and the engine's `close`/`free`.
fn io_trace(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("io       "))
        .filter_map(|l| l.split_once(' ').map(|(_tid, msg)| msg.trim_start()))
        .filter_map(|msg| match msg.split_once(": io_u 0x") {
            Some((event, rest)) => rest.split_once(": ").map(|(_, t)| format!("{event} {t}")),
            None if msg.ends_with("ioengine psync") || msg.ends_with("ioengine null") => {
                Some(msg.to_string())
            }
            None => None,
        })
        .collect()
}

/// `--debug=io`: fio 3.33 (built with debug support) prints each request's `fill`,
/// `prep`, `queue` and `complete` in its `io       PID  …` lines and the engine's close;
/// iomark prints the same lines for its requests, in the same order.
#[test]
fn debug_io_traces_every_request_in_fios_lines() {
    let test = "debug_io_traces_every_request_in_fios_lines";
    let d = scratch();
    for engine in ["null", "psync"] {
        let ioengine = format!("--ioengine={engine}");
        let args = [
            "--name=j",
            "--filename=f",
            ioengine.as_str(),
            "--size=16k",
            "--rw=write",
            "--debug=io",
        ];
        let i = as_fio(d.path()).dir(d.path()).args(args).run();
        assert_eq!(i.code, 0, "{}", i.dump());
        let mine = io_trace(&i.stdout);
        let mut want = Vec::new();
        for off in 0..4 {
            for event in ["fill", "prep", "queue", "complete"] {
                want.push(format!(
                    "{event} off={:#x},len=0x1000,ddir=1,file=f",
                    off * 4096
                ));
            }
        }
        want.push(format!("close ioengine {engine}"));
        want.push(format!("free ioengine {engine}"));
        assert_eq!(mine, want, "{engine}: {}", i.dump());
        assert!(
            !i.stdout.contains("no trace points"),
            "{engine}: {}",
            i.dump()
        );
        if need_fio(test) {
            let f = fio_cmd().dir(d.path()).args(args).run();
            assert_eq!(f.code, 0, "fio {engine}");
            assert_eq!(io_trace(&f.stdout), want, "fio {engine}: {}", f.stdout);
        }
    }
}

/// `--debug=help`: fio's one line of areas, exit 0, as fio 3.33.
#[test]
fn debug_help_is_fios() {
    let test = "debug_help_is_fios";
    let d = scratch();
    let i = as_fio(d.path()).dir(d.path()).arg("--debug=help").run();
    assert_eq!(i.code, 0);
    assert!(
        i.stdout
            .starts_with("fio: dumping debug options:process,file,io,"),
        "{}",
        i.dump()
    );
    if need_fio(test) {
        let f = fio_cmd().dir(d.path()).arg("--debug=help").run();
        assert_eq!((i.code, i.stdout.as_str()), (f.code, f.stdout.as_str()));
    }
}

/// `(min, max, mean, N)` of a latency of a job's direction in a JSON report.
fn lat_of(doc: &serde_json::Value, dir: &str, key: &str) -> (u64, u64, f64, u64) {
    let l = &doc["jobs"][0][dir][key];
    (
        l["min"].as_u64().unwrap(),
        l["max"].as_u64().unwrap(),
        l["mean"].as_f64().unwrap(),
        l["N"].as_u64().unwrap(),
    )
}

/// A psync job's latencies as fio 3.33 reports them: no slat, and lat above clat, as lat
/// counts from the request made ready and clat from its issue (each request's lat ≥ its
/// clat, so min, max and mean too; the mean strictly, the step between being a clock
/// read at least). The text shows `clat` and `lat` lines, no `slat`.
#[test]
fn psync_lat_counts_from_the_request_made_ready_clat_from_its_issue() {
    let test = "psync_lat_counts_from_the_request_made_ready_clat_from_its_issue";
    let d = scratch();
    let job = |fmt: &str| {
        [
            "--name=j",
            "--filename=f",
            "--ioengine=psync",
            "--size=4m",
            "--rw=read",
            fmt,
        ]
        .map(String::from)
    };
    let check = |who: &str, json: &Out, text: &Out| {
        assert_eq!(json.code, 0, "{who}: {}", json.dump());
        let doc = json.json();
        let slat = lat_of(&doc, "read", "slat_ns");
        let clat = lat_of(&doc, "read", "clat_ns");
        let lat = lat_of(&doc, "read", "lat_ns");
        assert_eq!(slat.3, 0, "{who}: slat {slat:?}");
        assert_eq!(clat.3, 1024, "{who}: clat {clat:?}");
        assert_eq!(lat.3, clat.3, "{who}");
        assert!(
            lat.0 >= clat.0 && lat.1 >= clat.1,
            "{who}: {lat:?} {clat:?}"
        );
        assert!(lat.2 > clat.2, "{who}: lat {lat:?} clat {clat:?}");
        let t = &text.stdout;
        assert!(
            t.contains("    clat (") && t.contains("     lat ("),
            "{who}: {t}"
        );
        assert!(!t.contains("slat ("), "{who}: {t}");
    };
    let i_json = as_fio(d.path())
        .dir(d.path())
        .args(job("--output-format=json"))
        .run();
    let i_text = as_fio(d.path()).dir(d.path()).args(job("--bs=4k")).run();
    check("iomark", &i_json, &i_text);
    if need_fio(test) {
        let f_json = fio_cmd()
            .dir(d.path())
            .args(job("--output-format=json"))
            .run();
        let f_text = fio_cmd().dir(d.path()).args(job("--bs=4k")).run();
        check("fio", &f_json, &f_text);
    }
}
