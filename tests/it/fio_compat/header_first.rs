//! fio's header lines (`NAME: (g=0): …`, `fio-3.33`, `Starting 1 process`, the layout
//! line) come before the run under the fio persona, as fio 3.33 prints them: on stdout
//! while the job still runs, before `--eta=always`'s status lines; the first line in a
//! pipe whose reader then leaves (`| head -1`), after which the report meets the closed
//! pipe: killed by SIGPIPE, nothing on stderr, the data file as fio leaves it; into an
//! `--output` file (stdout then has the status lines alone, the last one unended); and
//! none before a JSON document. Each is run next to fio 3.33 (its half skipped, with the
//! reason, when fio is not installed).

use crate::util::*;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::Stdio;

/// The header of a 16 MiB sequential read laid out by the job, as fio 3.33 prints it.
const HEADER: &str = "a: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\n\
                      fio-3.33\n\
                      Starting 1 process\n\
                      a: Laying out IO file (1 file / 16MiB)\n";

/// A read of 16 MiB at 8 MiB/s (two seconds) of a new file `f`, with `more`.
fn paced_read(f: &Path, more: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=a",
        "--rw=read",
        "--size=16m",
        "--rate=8m",
        &format!("--filename={}", f.display()),
    ]
    .map(String::from)
    .to_vec();
    a.extend(more.iter().map(|s| s.to_string()));
    a
}

/// `fio --name=a --rw=read --size=16m --rate=8m --filename=F --eta=always`: stdout has
/// the header, then the status lines (each ended by a carriage return), then the
/// report after its empty line — in this order under both tools, the header
/// byte-for-byte fio's; stderr is empty. `--output-format=json`: the document alone.
#[test]
fn the_header_comes_before_the_status_lines_as_fios() {
    let test = "the_header_comes_before_the_status_lines_as_fios";
    let d = scratch();
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    for tool in tools {
        let f = d.path().join(format!("{tool}.dat"));
        let o = cmd_of(tool, d.path())
            .dir(d.path())
            .args(paced_read(&f, &["--eta=always"]))
            .run();
        assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{tool}: {}", o.dump());
        let rest = o
            .stdout
            .strip_prefix(HEADER)
            .unwrap_or_else(|| panic!("{tool}: not the header first:\n{}", o.dump()));
        let (status, report) = rest
            .split_once("\r\na: (groupid=0, jobs=1): err= 0: ")
            .unwrap_or_else(|| panic!("{tool}: no status line before the report:\n{rest}"));
        assert!(status.starts_with("Jobs: 1 (f=1)"), "{tool}: {status:?}");
        assert!(!status.contains('\n'), "{tool}: {status:?}");
        assert!(report.contains("\nRun status group 0"), "{tool}: {report}");
        let json = cmd_of(tool, d.path())
            .dir(d.path())
            .args(paced_read(&f, &["--eta=always", "--output-format=json"]))
            .run();
        assert_eq!(json.code, 0, "{tool}: {}", json.dump());
        assert!(json.stdout.starts_with("{\n"), "{tool}: {}", json.dump());
    }
}

/// The tool named `tool` as a command.
fn cmd_of(tool: &str, d: &Path) -> Iomark {
    match tool {
        "fio" => fio_cmd(),
        _ => as_fio(d),
    }
}

/// The persona prints its header while the job still runs: the first line is read
/// from the pipe while the process has not ended (a two-second paced job).
#[test]
fn the_header_is_read_while_the_job_runs() {
    let d = scratch();
    let f = d.path().join("a.dat");
    let mut child = as_fio(d.path())
        .dir(d.path())
        .args(paced_read(&f, &[]))
        .command()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let running = child.try_wait().unwrap().is_none();
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let o = Out::from_output(child.wait_with_output().unwrap());
    assert!(running, "the process ended before its first line was read");
    assert_eq!(first, HEADER.lines().next().unwrap().to_string() + "\n");
    assert_eq!(o.code, 0, "{}", o.dump());
    assert!(rest.contains("a: (groupid=0, jobs=1)"), "{rest}");
}

/// Start `cmd` with stdout a pipe, read its first line, close the reader and wait:
/// the line and how the process ended.
fn first_line_then_close(cmd: Iomark) -> (String, Out) {
    let mut child = cmd
        .command()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    drop(out);
    (first, Out::from_output(child.wait_with_output().unwrap()))
}

/// `fio … | head -1` over a file that is there already (fio 3.33 lays none out, so its
/// next write after the header is the report's): the header's first line, then, the
/// reader gone, the report meets the closed pipe — both tools killed by SIGPIPE (a
/// shell's status 141), nothing on stderr; the data file kept, or removed by
/// `--unlink=1` first, as fio's job does before its report.
#[test]
fn head_minus_one_ends_both_tools_by_sigpipe_with_the_files_as_fio_leaves_them() {
    let test = "head_minus_one_ends_both_tools_by_sigpipe_with_the_files_as_fio_leaves_them";
    let d = scratch();
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    for tool in tools {
        for unlink in [false, true] {
            let f = d.path().join(format!("{tool}.{unlink}.dat"));
            std::fs::write(&f, vec![0u8; 4 << 20]).unwrap();
            let mut args = paced_read(&f, &["--size=4m"]);
            if unlink {
                args.push("--unlink=1".into());
            }
            let (first, o) = first_line_then_close(cmd_of(tool, d.path()).dir(d.path()).args(args));
            let want = HEADER.lines().next().unwrap().to_string() + "\n";
            assert_eq!(first, want, "{tool}");
            assert_eq!(
                (o.code, o.signal, o.stderr.as_str()),
                (-1, Some(libc::SIGPIPE), ""),
                "{tool} unlink={unlink}: {}",
                o.dump()
            );
            match unlink {
                true => assert!(!f.exists(), "{tool}: {} kept", f.display()),
                false => assert_eq!(size_of(&f), 4 << 20, "{tool}"),
            }
        }
    }
}

/// `--output=FILE --eta=always`: the header goes into the file, before the report, the
/// same lines under both tools; stdout has the status lines alone, the last one ended
/// by its carriage return only (fio 3.33 prints no newline after it then).
#[test]
fn with_output_the_header_is_the_files_and_stdout_the_status_lines() {
    let test = "with_output_the_header_is_the_files_and_stdout_the_status_lines";
    let d = scratch();
    let mut tools = vec!["iomark"];
    if need_fio(test) {
        tools.push("fio");
    }
    for tool in tools {
        let f = d.path().join(format!("{tool}.dat"));
        let report = d.path().join(format!("{tool}.txt"));
        let out = format!("--output={}", report.display());
        let o = cmd_of(tool, d.path())
            .dir(d.path())
            .args(paced_read(&f, &["--eta=always", &out]))
            .run();
        assert_eq!((o.code, o.stderr.as_str()), (0, ""), "{tool}: {}", o.dump());
        assert!(
            o.stdout.starts_with("Jobs: 1 (f=1)"),
            "{tool}: {}",
            o.dump()
        );
        assert!(o.stdout.ends_with('\r'), "{tool}: {:?}", o.stdout);
        assert!(!o.stdout.contains('\n'), "{tool}: {:?}", o.stdout);
        let text = std::fs::read_to_string(&report).unwrap();
        let rest = text
            .strip_prefix(HEADER)
            .unwrap_or_else(|| panic!("{tool}: not the header first:\n{text}"));
        assert!(
            rest.starts_with("\na: (groupid=0, jobs=1): err= 0: "),
            "{tool}: {rest}"
        );
    }
}
