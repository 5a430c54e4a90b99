//! `--status-interval=N` under the fio persona as fio 3.33 prints it: the whole report
//! every N seconds of the run on the report's output (the header once, then each report
//! — job blocks and `Run status group` lines, counted from the job's start — the last
//! one the final report); one JSON document per interval with `--output-format=json`;
//! a terse line per job per interval with `--minimal`. fio 3.33 on
//! `--runtime=3 --status-interval=1` prints four reports (at 0.9, 1.9, 2.9 s and the
//! final one). The report due at the runtime's end races with the jobs' own end (both
//! fall on the same instant), so the counts below allow that one report more or less;
//! the jobs are rate-limited (`rate_iops`) so their totals grow between reports without
//! burning a CPU.

use crate::util::*;
use std::path::Path;

fn fio(dir: &Path, args: &[&str]) -> Out {
    as_fio(dir).dir(dir).args(args).run()
}

/// One paced job, `runtime` seconds, a report every second.
fn paced(name: &str, runtime: &str) -> Vec<String> {
    [
        &format!("--name={name}"),
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--rate_iops=1000",
        "--time_based",
        &format!("--runtime={runtime}"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn with<'a>(a: &'a [String], more: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = more.to_vec();
    v.extend(a.iter().map(String::as_str));
    v
}

/// The text reports of a normal output: each from a job block's blank line to its last
/// `Run status group` line's numbers (the header before the first is left out).
fn reports(out: &str) -> Vec<String> {
    let mut reps: Vec<String> = Vec::new();
    let mut cur: Option<String> = None;
    let mut in_status = false;
    for l in out.lines() {
        let job = l.contains(": (groupid=");
        if job && (cur.is_none() || in_status) {
            reps.extend(cur.take());
            cur = Some(String::new());
            in_status = false;
        }
        in_status |= l.starts_with("Run status group");
        if let Some(c) = cur.as_mut() {
            c.push_str(l);
            c.push('\n');
        }
    }
    reps.extend(cur);
    reps
}

/// `issued rwts: total=R,…` of each job block of a report, in order.
fn read_totals(rep: &str) -> Vec<u64> {
    rep.lines()
        .filter_map(|l| l.trim().strip_prefix("issued rwts: total="))
        .map(|t| t.split(',').next().unwrap().parse().unwrap())
        .collect()
}

/// The text: the header once at the top, then one report per interval and the final
/// one, each with its job block after an empty line and its `Run status group` line;
/// the read totals and run times grow, and the last report is the final one.
#[test]
fn text_reports_every_interval_then_the_final_one() {
    let d = scratch();
    let job = paced("a", "3");
    let o = fio(d.path(), &with(&job, &["--status-interval=1"])).ok();
    let out = &o.stdout;
    assert_eq!(out.matches("fio-3.33\n").count(), 1, "{out}");
    assert_eq!(out.matches("Starting 1 process").count(), 1, "{out}");
    assert!(out.starts_with("a: (g=0): rw=randread"), "{out}");
    let reps = reports(out);
    assert!(
        (3..=5).contains(&reps.len()),
        "{} reports\n{out}",
        reps.len()
    );
    let blocks = out
        .matches("\n\na: (groupid=0, jobs=1): err= 0: pid=")
        .count();
    assert_eq!(blocks, reps.len(), "{out}");
    assert_eq!(
        out.matches("Run status group 0 (all jobs):").count(),
        reps.len()
    );
    let mut last = (0u64, 0u64);
    for (k, r) in reps.iter().enumerate() {
        let t = read_totals(r);
        assert_eq!(t.len(), 1, "{r}");
        let run = r.split("run=").nth(1).expect(r);
        let ms: u64 = run.split('-').next().unwrap().parse().unwrap();
        assert!(t[0] >= last.0 && ms >= last.1, "report {k}: {r}");
        // a whole interval at 1000 IOPS lies between two reports (not the last pair,
        // one at the runtime's end and the final one may be the same instant)
        if k > 0 && k + 1 < reps.len() {
            assert!(t[0] > last.0 + 500, "report {k}: {} after {}", t[0], last.0);
        }
        last = (t[0], ms);
    }
    // the final report: the whole runtime
    assert!(last.1 >= 3000, "{}", reps.last().unwrap());
}

/// `numjobs=2` with `group_reporting` and two stonewalled groups: a report has one
/// block per reported job (`jobs=2`); a group that has not started has its empty `Run
/// status group` line, and a group that ended is in every later report with its final
/// figures, before the running group's.
#[test]
fn reports_merge_threads_and_keep_ended_groups() {
    let d = scratch();
    let job = paced("g", "2");
    let o = fio(
        d.path(),
        &with(
            &job,
            &["--status-interval=1", "--numjobs=2", "--group_reporting"],
        ),
    )
    .ok();
    let reps = reports(&o.stdout);
    assert!((2..=4).contains(&reps.len()), "{}", o.stdout);
    for r in &reps {
        assert_eq!(r.matches("g: (groupid=0, jobs=2)").count(), 1, "{r}");
        assert_eq!(r.matches("Run status group").count(), 1, "{r}");
    }
    let mut both = paced("a", "2");
    both.extend(paced("b", "2"));
    both.push("--stonewall".into());
    let o = fio(d.path(), &with(&both, &["--status-interval=1"])).ok();
    let reps = reports(&o.stdout);
    assert!((4..=6).contains(&reps.len()), "{}", o.stdout);
    let fin = reps.last().unwrap();
    assert!(reps[0].contains("a: (groupid=0") && !reps[0].contains("b: (groupid=1"));
    // b's group has not started: its line is there, empty, as fio prints it
    let first = reps[0].trim_end();
    assert!(first.ends_with("Run status group 1 (all jobs):"), "{first}");
    assert!(fin.contains("b: (groupid=1") && fin.contains("Run status group 1"));
    let a_final = read_totals(fin)[0];
    for r in reps.iter().filter(|r| r.contains("b: (groupid=1")) {
        let t = read_totals(r);
        assert_eq!(t.len(), 2, "{r}");
        assert_eq!(t[0], a_final, "{r}");
        assert!(r.find("a: (groupid=0") < r.find("b: (groupid=1"), "{r}");
    }
}

/// The paths of every key of a JSON value (array elements as `[]`), sorted.
fn key_paths(v: &serde_json::Value, at: &str, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{k}");
                out.push(p.clone());
                key_paths(x, &p, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| key_paths(x, &format!("{at}[]"), out)),
        _ => {}
    }
}

fn shape(v: &serde_json::Value) -> Vec<String> {
    let mut p = Vec::new();
    key_paths(v, "", &mut p);
    p.sort();
    p.dedup();
    p
}

/// `--output-format=json`: whole JSON documents one after the other, each of the final
/// document's shape, their `elapsed` and read totals growing; `--minimal`: a terse line
/// per job per interval, each with the final line's field count.
#[test]
fn json_documents_and_terse_lines_every_interval() {
    let d = scratch();
    let job = paced("j", "2");
    let o = fio(
        d.path(),
        &with(&job, &["--status-interval=1", "--output-format=json"]),
    )
    .ok();
    let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&o.stdout)
        .into_iter::<serde_json::Value>()
        .collect::<Result<_, _>>()
        .expect(&o.stdout);
    assert!((2..=4).contains(&docs.len()), "{}", o.stdout);
    let plain = fio(d.path(), &with(&paced("j", "1"), &["--output-format=json"]))
        .ok()
        .json();
    let mut last = (0u64, 0u64);
    for v in &docs {
        assert_eq!(shape(v), shape(&plain), "{v}");
        let j = &v["jobs"][0];
        let (ios, el) = (j["read"]["total_ios"].as_u64(), j["elapsed"].as_u64());
        let (ios, el) = (ios.unwrap(), el.unwrap());
        assert!(ios >= last.0 && el >= last.1, "{v}");
        last = (ios, el);
    }
    assert!(last.1 >= 2, "{}", o.stdout);
    let o = fio(d.path(), &with(&job, &["--status-interval=1", "--minimal"])).ok();
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert!((2..=4).contains(&lines.len()), "{}", o.stdout);
    let fields = lines.last().unwrap().split(';').count();
    let mut kib = 0u64;
    for l in &lines {
        assert!(l.starts_with("3;fio-3.33;j;0;0;"), "{l}");
        assert_eq!(l.split(';').count(), fields, "{l}");
        let k: u64 = l.split(';').nth(5).unwrap().parse().unwrap();
        assert!(k >= kib, "{l}");
        kib = k;
    }
}

/// `iomark run --status-interval` keeps its progress line on stderr and one report.
#[test]
fn iomark_run_keeps_its_progress_lines() {
    let d = scratch();
    let job = paced("n", "1200ms");
    let o = run(d.path(), &with(&job, &["--status-interval=500ms"])).ok();
    assert_eq!(
        o.stdout.matches("Run status group").count(),
        1,
        "{}",
        o.stdout
    );
    assert!(
        o.stderr.lines().any(|l| l.starts_with("[t=")),
        "{}",
        o.stderr
    );
}

/// The JSON documents one after the other in `s`, or `None` when `s` ends inside one.
fn whole_docs(s: &str) -> Option<Vec<serde_json::Value>> {
    serde_json::Deserializer::from_str(s)
        .into_iter::<serde_json::Value>()
        .collect::<Result<_, _>>()
        .ok()
}

/// `--output=FILE` takes each report as it is made, as fio 3.33's does (it opens the
/// file `w+` and flushes after each report): while the job still runs the file holds
/// whole reports (the old content gone), read at any moment; the final one is added
/// after them. JSON documents follow each other with nothing between (`}` then `{`), as
/// fio writes them; the text has the header once, at the top.
#[test]
fn an_output_file_takes_each_report_as_it_is_made() {
    let d = scratch();
    let out = d.path().join("out.json");
    std::fs::write(&out, "old content\n").unwrap();
    let job = paced("f", "3");
    let args = with(
        &job,
        &[
            "--status-interval=500ms",
            "--output-format=json",
            "--output=out.json",
        ],
    );
    let mut child = as_fio(d.path()).dir(d.path()).args(&args).spawn();
    // read the file while the job runs, until it holds a report or the job ended
    let mut seen_running = None;
    while child.try_wait().unwrap().is_none() {
        let s = std::fs::read_to_string(&out).unwrap_or_default();
        if s.contains("fio version") {
            seen_running = Some(s);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let fin = finish(child).ok();
    assert_eq!(fin.stdout, "", "the report goes to the file");
    let early = seen_running.expect("no report in the file while the job ran");
    let docs = whole_docs(&early).expect(&early);
    assert!(
        !docs.is_empty() && !early.contains("old content"),
        "{early}"
    );
    let all = std::fs::read_to_string(&out).unwrap();
    assert!(
        all.starts_with(&early),
        "the reports stay as written\n{all}"
    );
    let docs = whole_docs(&all).expect(&all);
    assert!(docs.len() >= 4, "{} documents\n{all}", docs.len());
    assert_eq!(all.matches("}\n{\n").count(), docs.len() - 1, "{all}");
    let last = docs.last().unwrap()["jobs"][0]["elapsed"].as_u64().unwrap();
    assert!(last >= 3, "{all}");
    // the text: the header once, then the reports
    let o = fio(
        d.path(),
        &with(&job, &["--status-interval=1", "--output=out.txt"]),
    )
    .ok();
    assert_eq!(o.stdout, "");
    let txt = std::fs::read_to_string(d.path().join("out.txt")).unwrap();
    assert!(txt.starts_with("f: (g=0): rw=randread"), "{txt}");
    assert_eq!(txt.matches("Starting 1 process").count(), 1, "{txt}");
    assert!(reports(&txt).len() >= 3, "{txt}");
}

/// A job that spends most of its time in its think time (`thinktime=1500ms` after every
/// I/O) is in each report with its figures so far, as fio's report reads them: the
/// reports made while it thinks after its first I/O (at 0.45, 0.95, 1.45 s with
/// `--status-interval=500ms`) hold that I/O (4 KiB read), none holds nothing.
#[test]
fn a_job_in_its_think_time_is_reported_with_its_io_so_far() {
    let d = scratch();
    let args = [
        "--name=t",
        "--ioengine=null",
        "--size=1m",
        "--bs=4k",
        "--rw=read",
        "--thinktime=1500ms",
        "--thinktime_blocks=1",
        "--time_based",
        "--runtime=3",
        "--status-interval=500ms",
        "--minimal",
    ];
    let o = fio(d.path(), &args).ok();
    let kib: Vec<u64> = o
        .stdout
        .lines()
        .map(|l| l.split(';').nth(5).unwrap().parse().unwrap())
        .collect();
    assert!(kib.len() >= 4, "{}", o.stdout);
    assert!(kib.iter().all(|&k| k >= 4), "{}", o.stdout);
    // the reports in the first think: its one I/O
    assert!(kib.iter().filter(|&&k| k == 4).count() >= 2, "{}", o.stdout);
}

/// An interval from 1 ms on is taken, as fio 3.33 takes it (under 1 ms: `fio: status
/// interval too small`): `--status-interval=50ms` on a 1 s job writes a terse line per
/// interval (fio 3.33: 22 lines, 20 intervals and the final one), nothing on stderr,
/// each line's read total at least the one before. The count is bounded loosely (the
/// reports are the machine's to make on time): more than 5, at most 21 and the final.
#[test]
fn an_interval_under_100ms_reports_as_fio() {
    let d = scratch();
    let job = paced("a", "1");
    let too_small = fio(d.path(), &with(&job, &["--status-interval=500us"]));
    assert_eq!(too_small.code, 1, "{}", too_small.dump());
    assert_eq!(too_small.stderr, "fio: status interval too small\n");
    let o = fio(
        d.path(),
        &with(&job, &["--status-interval=50ms", "--minimal"]),
    )
    .ok();
    assert_eq!(o.stderr, "", "{}", o.dump());
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert!(
        (6..=22).contains(&lines.len()),
        "{} lines\n{}",
        lines.len(),
        o.stdout
    );
    // terse v3: field 6 is the read total in KiB
    let kib: Vec<u64> = lines
        .iter()
        .map(|l| l.split(';').nth(5).unwrap().parse().unwrap())
        .collect();
    assert!(kib.windows(2).all(|w| w[0] <= w[1]), "{kib:?}");
    assert!(*kib.last().unwrap() > 0, "{kib:?}");
}

/// Reports 10 ms apart fall on their deadlines, as fio's status timer sets them (one
/// interval after the last deadline, not after the last report ended): a job of 400
/// requests paced at 1000 IOPS (about 400 ms) writes a terse line per interval and the
/// final one — at most its runtime / 10 + 2, and more than 6 in 10 of runtime / 10
/// (timed from the end of the last report, which waited an interval for the threads'
/// copies, they came at most every other interval).
#[test]
fn reports_keep_their_deadlines_at_10ms() {
    let d = scratch();
    let args = [
        "--name=a",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--rate_iops=1000",
        "--number_ios=400",
        "--status-interval=10ms",
        "--minimal",
    ];
    let o = fio(d.path(), &args).ok();
    let lines: Vec<&str> = o.stdout.lines().collect();
    // terse v3: field 9 is the read runtime in ms
    let field = |l: &str, i: usize| -> u64 { l.split(';').nth(i).unwrap().parse().unwrap() };
    let last = lines.last().expect("the final report");
    assert_eq!(field(last, 5), 400 * 4, "{last}");
    let runtime = field(last, 8);
    assert!(runtime >= 390, "{last}");
    let n = lines.len() as u64;
    assert!(
        n <= runtime / 10 + 2,
        "{n} reports in {runtime} ms\n{}",
        o.stdout
    );
    assert!(
        n * 10 * 10 > runtime * 6,
        "{n} reports in {runtime} ms\n{}",
        o.stdout
    );
}

/// `iomark run --status-interval` in one stream (`2>&1`): the job's header (stdout)
/// comes before the first progress line (stderr), as fio 3.33's header comes before
/// its reports; the report follows the lines.
#[test]
fn iomark_run_prints_its_header_before_the_progress_lines() {
    let d = scratch();
    let both = d.path().join("both.txt");
    let f = std::fs::File::create(&both).unwrap();
    let g = f.try_clone().unwrap();
    let job = paced("h", "700ms");
    let status = std::process::Command::new(BIN)
        .current_dir(d.path())
        .env("IOMARK_HISTORY", "off")
        .arg("run")
        .args(with(&job, &["--status-interval=100ms"]))
        .stdout(g)
        .stderr(f)
        .status()
        .unwrap();
    let s = std::fs::read_to_string(&both).unwrap();
    assert_eq!(status.code(), Some(0), "{s}");
    let at = |what: &str| {
        s.find(what)
            .unwrap_or_else(|| panic!("no {what:?} in\n{s}"))
    };
    let first = at("[t=");
    assert!(at("h: (g=0): rw=randread") < first, "{s}");
    assert!(at("Starting 1 process") < first, "{s}");
    assert!(first < at("Run status group 0"), "{s}");
}

/// Letters after the digits that name no unit of fio's count µs, as fio 3.33's
/// `get_mult_time` reads them, and a value holding `0x` is hexadecimal (the persona
/// refused them: `unknown time unit 'q'`). fio 3.33 side by side on this 1 s job:
/// `--status-interval=2sec` and `1x` are 2 and 1 µs, `fio: status interval too small`,
/// exit 1; `200000q` is 200 ms, 6 terse lines as `200ms` gives (5 intervals and the
/// final one). `iomark run` refuses the letters, exit 2 naming the option.
#[test]
fn status_interval_letters_count_microseconds_as_fio() {
    let d = scratch();
    let job = paced("a", "1");
    for v in ["2sec", "1x"] {
        let o = fio(d.path(), &with(&job, &[&format!("--status-interval={v}")]));
        assert_eq!(o.code, 1, "{v}: {}", o.dump());
        assert_eq!(o.stderr, "fio: status interval too small\n", "{v}");
    }
    let lines = |v: &str| {
        let o = fio(
            d.path(),
            &with(&job, &[&format!("--status-interval={v}"), "--minimal"]),
        )
        .ok();
        assert_eq!(o.stderr, "", "{v}: {}", o.dump());
        o.stdout.lines().count()
    };
    let (q, ms) = (lines("200000q"), lines("200ms"));
    // (the report due at the runtime's end races the job's own end: one more or less)
    assert!(
        (5..=7).contains(&q) && q.abs_diff(ms) <= 1,
        "200000q: {q}, 200ms: {ms}"
    );
    let o = run(d.path(), &with(&job, &["--status-interval=1000q"]));
    assert_eq!(o.code, 2, "{}", o.dump());
    assert!(
        o.stderr.contains("'status-interval'") && o.stderr.contains("unknown time unit 'q'"),
        "{}",
        o.dump()
    );
}
