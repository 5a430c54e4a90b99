//! `write_iolog` with `numjobs` > 1 side by side with fio 3.33: the clones of a job
//! name one file and each adds its own log to it — its version line, its `add` lines,
//! its requests and `open`/`close` lines — after what the file holds, in the order the
//! clones end (fio opens the file in append mode and flushes each clone's lines at its
//! end; logs of under 8 KiB, fio's buffer, so fio's come whole too).

use crate::util::*;
use std::path::Path;

/// The clones' logs in the `write_iolog` at `path`, each without its times (`NAME
/// ACTION [OFFSET LENGTH]`, from its version line on), sorted (the clones end in any
/// order).
fn logs(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut all: Vec<Vec<String>> = Vec::new();
    for l in text.lines() {
        if l == "fio version 3 iolog" {
            all.push(vec![l.to_string()]);
            continue;
        }
        let rest = l.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
        all.last_mut()
            .expect("a line before the version line")
            .push(rest);
    }
    all.sort();
    all
}

/// Two clones of a random read job, 32 KiB each in 4 KiB reads (each clone its own
/// file `j.N.0`, its own seed): the one log holds two logs, clone N's naming only
/// `j.N.0` and holding its 8 reads between one `open` and one `close` — fio's, log
/// for log. Run a second time, the file holds four.
#[test]
fn the_clones_of_a_job_add_their_logs_to_one_file() {
    require_fio();
    let args = [
        "--name=j",
        "--rw=randread",
        "--size=32k",
        "--bs=4k",
        "--ioengine=psync",
        "--numjobs=2",
        "--write_iolog=j.log",
        "--output=/dev/null",
    ];
    let d = scratch();
    let mut seen = Vec::new();
    for tool in ["fio", "iomark"] {
        let w = d.path().join(tool);
        std::fs::create_dir_all(&w).unwrap();
        let cmd = || {
            if tool == "fio" {
                fio_cmd()
            } else {
                as_fio(d.path())
            }
        };
        let o = cmd().dir(&w).args(args).run();
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        let got = logs(&w.join("j.log"));
        seen.push(got.clone());
        assert_eq!(got.len(), 2, "{tool}: {got:#?}");
        for (n, log) in got.iter().enumerate() {
            let name = format!("j.{n}.0");
            assert!(
                log[1..].iter().all(|l| l.starts_with(&format!("{name} "))),
                "{tool}: clone {n}: {log:#?}"
            );
            let reads = log.iter().filter(|l| l.contains(" read ")).count();
            assert_eq!((log.len(), reads), (1 + 3 + 8, 8), "{tool}: {log:#?}");
        }
        // a second run adds its two logs to the first run's
        let o = cmd().dir(&w).args(args).run();
        assert_eq!(o.code, 0, "{tool}: {}", o.dump());
        assert_eq!(logs(&w.join("j.log")).len(), 4, "{tool}: a second run");
    }
    assert_eq!(seen[1], seen[0], "iomark's clones' logs differ from fio's");
}
