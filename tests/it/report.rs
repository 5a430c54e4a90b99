//! `iomark report -o report.html` in a real browser (docs/commands/report.md): headless
//! Chromium (Debian's `chromium`, installed by tests/run.sh) loads the page of three
//! kept runs on two devices — one a job named `<script>alert(1)</script>` — and the test
//! reads the DOM Chromium built (every column's context, every warning's sentence, the
//! charts, the job name as text and no script element), takes a screenshot that is not
//! blank, and shows the page fetched nothing: its Content-Security-Policy forbids every
//! fetch and the console (Chromium's log on stderr, where a blocked fetch is a
//! `CONSOLE` line "… violates the following Content Security Policy directive …") has
//! no message. Chromium itself resolves no host (`--host-resolver-rules`), so neither
//! the page nor the browser's own services reach the network.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

const SCRIPT_JOB: &str = "<script>alert(1)</script>";

/// Chromium's headless flags: no sandbox (root), no GPU, nothing of its own on the
/// network (no background services, no host resolves).
fn chromium(profile: &Path) -> Iomark {
    Iomark::program("chromium").args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-extensions",
        "--no-pings",
        "--disable-domain-reliability",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--hide-scrollbars",
        &format!("--user-data-dir={}", profile.display()),
    ])
}

/// HTML text as the DOM dump serialises it.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Whether a PNG's pixels are not all one value (decoded with Python's zlib).
fn png_not_blank(png: &Path) -> bool {
    let script = r#"
import sys, zlib, struct
b = open(sys.argv[1], 'rb').read()
assert b[:8] == b'\x89PNG\r\n\x1a\n'
i, data = 8, b''
while i < len(b):
    n, t = struct.unpack('>I4s', b[i:i+8]); data += b[i+8:i+8+n] if t == b'IDAT' else b''; i += 12 + n
raw = zlib.decompress(data)
print(len(set(raw)))
"#;
    let o = Iomark::program("python3")
        .args(["-c", script, png.to_str().unwrap()])
        .run()
        .ok();
    o.stdout.trim().parse::<usize>().unwrap_or(0) > 16
}

#[test]
fn the_html_report_of_three_runs_in_headless_chromium() {
    let (t, shm) = (scratch(), tempfile::tempdir_in("/dev/shm").unwrap());
    let results = t.path().join("results");
    let env = |c: Iomark| {
        c.env_remove("IOMARK_HISTORY")
            .env("IOMARK_RESULTS", &results)
            .dir(t.path())
    };
    for dir in [shm.path(), t.path()] {
        let d = format!("--file-dir={}", dir.display());
        env(Iomark::new())
            .args([
                "fileio",
                &d,
                "--file-total-size=4M",
                "--file-test-mode=rndrd",
            ])
            .args(["--time=0", "--events=400", "prepare", "run", "cleanup"])
            .run()
            .ok();
    }
    env(Iomark::new())
        .args(["run", &format!("--name={SCRIPT_JOB}"), "--ioengine=null"])
        .args(["--rw=randread", "--bs=4k", "--size=1m"])
        .run()
        .ok();
    let ids = kept_ids(&env, 3);
    let page = t.path().join("report.html");
    env(Iomark::new())
        .arg("report")
        .args(&ids)
        .args(["-o", page.to_str().unwrap()])
        .run()
        .ok();
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Content-Security-Policy"), "no CSP meta");
    let profile = t.path().join("chromium-profile");
    let url = format!("file://{}", page.display());
    let dom = chromium(&profile)
        .args(["--enable-logging=stderr", "--v=0", "--dump-dom", &url])
        .run()
        .ok();
    let d = &dom.stdout;
    // every column's context, every warning's sentence, the charts (the device chart
    // for each run whose samples hold the device's counters)
    let mut devices = 0;
    for id in &ids {
        let name = id.strip_prefix("history:").unwrap();
        let r = read_json(&results.join(format!("{name}.json")));
        let host = r["machine"]["hostname"].as_str().unwrap();
        let kernel = r["machine"]["kernel"].as_str().unwrap();
        assert!(
            d.contains(&esc(&format!("host {host}, kernel {kernel}"))),
            "context"
        );
        let version = format!("iomark {}", r["version"].as_str().unwrap());
        assert!(d.contains(&esc(&version)), "{version} not in the DOM");
        let samples = r["series"]["samples"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        devices += samples.iter().any(|x| !x["device"].is_null()) as usize;
        for w in r["warnings"].as_array().unwrap() {
            let m = esc(w["message"].as_str().unwrap());
            assert!(d.contains(&m), "warning sentence {m} not in the DOM");
        }
    }
    assert!(d.contains("iomark fileio --file-dir="), "command lines");
    assert!(d.contains(" UTC"), "dates");
    assert!(
        d.matches("<svg").count() >= 3,
        "charts: {}",
        d.matches("<svg").count()
    );
    assert!(d.contains("chart-compare") && d.contains("chart-latency"));
    assert!(
        devices > 0,
        "no run on the disk recorded the device's counters"
    );
    assert_eq!(d.matches("class=\"chart-device\"").count(), devices);
    // the job named <script> is text
    assert!(d.contains(&esc(SCRIPT_JOB)), "the job name as text");
    assert!(
        !d.to_lowercase().contains("<script"),
        "a script element in the DOM"
    );
    // no CSP violation (nor any other message) in the console
    assert!(
        !dom.stderr.contains("Content Security Policy") && !dom.stderr.contains(":CONSOLE"),
        "{}",
        dom.stderr
    );
    // a screenshot that is not blank
    let shot = t.path().join("report.png");
    chromium(&profile)
        .args([
            "--window-size=1200,1600",
            &format!("--screenshot={}", shot.display()),
            &url,
        ])
        .run()
        .ok();
    assert!(png_not_blank(&shot), "blank screenshot");
}

/// The HTML of markdown `md` rendered by markdown-it (CommonMark; the `markdown-it-py`
/// package, installed by tests/run.sh) and the text a reader sees (tags stripped,
/// entities decoded, white space collapsed); `None` when the package is missing.
fn commonmark(md: &Path) -> Option<(String, String)> {
    let script = r#"
import sys, json, html.parser
from markdown_it import MarkdownIt
h = MarkdownIt("commonmark").enable("table").render(open(sys.argv[1]).read())
class T(html.parser.HTMLParser):
    def __init__(s): super().__init__(); s.t = []
    def handle_data(s, d): s.t.append(d)
p = T(); p.feed(h)
print(json.dumps({"html": h, "text": " ".join(" ".join(p.t).split())}))
"#;
    let o = Iomark::program("python3")
        .args(["-c", script, md.to_str().unwrap()])
        .run();
    let v: Value = serde_json::from_str(&o.stdout).ok()?;
    Some((v["html"].as_str()?.into(), v["text"].as_str()?.into()))
}

/// `iomark report --format=markdown` of two kept runs (a fileio run on tmpfs with its
/// warnings, a `run` job named `<script>alert(1)</script>` in a directory whose name
/// holds markdown's active characters): every line fits 100 columns; rendered by a
/// CommonMark parser, the page has no script element and no link, and its text holds the
/// job and directory names as written, every column's context and every warning's
/// sentence.
#[test]
fn the_markdown_report_is_text_and_fits_100_columns() {
    let (t, shm) = (scratch(), tempfile::tempdir_in("/dev/shm").unwrap());
    let results = t.path().join("results");
    let odd = t.path().join("*bold* [x](y) | _u_ #1.");
    std::fs::create_dir(&odd).unwrap();
    let env = |c: Iomark| {
        c.env_remove("IOMARK_HISTORY")
            .env("IOMARK_RESULTS", &results)
            .dir(&odd)
    };
    env(Iomark::new())
        .args(["fileio", &format!("--file-dir={}", shm.path().display())])
        .args(["--file-total-size=4M", "--file-test-mode=rndrw"])
        .args(["--time=0", "--events=400", "prepare", "run", "cleanup"])
        .run()
        .ok();
    env(Iomark::new())
        .args(["run", &format!("--name={SCRIPT_JOB}"), "--ioengine=null"])
        .args(["--rw=randread", "--bs=4k", "--size=1m"])
        .args([&format!("--directory={}", odd.display())])
        .run()
        .ok();
    let ids = kept_ids(&env, 2);
    let md = t.path().join("report.md");
    env(Iomark::new())
        .arg("report")
        .args(&ids)
        .args(["-o", md.to_str().unwrap()])
        .run()
        .ok();
    let text = std::fs::read_to_string(&md).unwrap();
    for l in text.lines() {
        assert!(
            l.chars().count() <= 100,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    assert!(text.contains("| test | metric |"), "{text}");
    let Some((html, seen)) = commonmark(&md) else {
        skip("python3's markdown_it (markdown-it-py) is missing; tests/run.sh installs it");
        return;
    };
    assert!(!html.contains("<script") && !html.contains("<a "), "{html}");
    assert!(html.contains("<table>"), "{html}");
    assert!(seen.contains(SCRIPT_JOB), "the job name as text: {seen}");
    assert!(seen.contains("*bold* [x](y) | _u_ #1."), "{seen}");
    for id in &ids {
        let name = id.strip_prefix("history:").unwrap();
        let r = read_json(&results.join(format!("{name}.json")));
        let host = r["machine"]["hostname"].as_str().unwrap();
        let kernel = r["machine"]["kernel"].as_str().unwrap();
        assert!(
            seen.contains(&format!("host {host}, kernel {kernel}")),
            "{seen}"
        );
        for w in r["warnings"].as_array().unwrap() {
            let m = w["message"].as_str().unwrap();
            let m = m.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(seen.contains(&m), "warning sentence {m} not in {seen}");
        }
    }
    assert!(
        seen.contains("mix read") && seen.contains("mix write"),
        "{seen}"
    );
    assert!(seen.contains("iomark fileio --file-dir="), "command lines");
}

/// The `history:ID` of every kept run, checking there are `n` of them.
fn kept_ids(env: &impl Fn(Iomark) -> Iomark, n: usize) -> Vec<String> {
    let list: Vec<Value> = serde_json::from_str(
        &env(Iomark::new())
            .args(["history", "--format=json"])
            .run()
            .ok()
            .stdout,
    )
    .unwrap();
    assert_eq!(list.len(), n);
    list.iter()
        .map(|v| format!("history:{}", v["name"].as_str().unwrap()))
        .collect()
}

/// A `mark` result's report shows each test's own settings (its engine, depth, threads
/// and block, as the preset names them: `SEQ1M Q8T1` is 1 MiB blocks at depth 8 through
/// io_uring, `RND4K Q32T1` 4 KiB at depth 32), never the summary's `iodepth 0, threads
/// 0, block 0 B`, in the HTML page and in the markdown alike.
#[test]
fn mark_report_shows_each_tests_settings() {
    let t = scratch();
    let json = t.path().join("m.json");
    let out = Iomark::new()
        .dir(t.path())
        .args(["mark", ".", "--preset=peak", "--size=8M", "--time=1"])
        .args(["--loops=1", "--warmup=0", "--no-history"])
        .arg(format!("--json={}", json.display()))
        .run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let want = [
        (
            "SEQ1M Q8T1 read",
            "read: engine io_uring, iodepth 8, threads 1, block 1048576 B",
        ),
        (
            "RND4K Q32T1 read",
            "randread: engine io_uring, iodepth 32, threads 1, block 4096 B",
        ),
        (
            "SEQ1M Q8T1 write",
            "write: engine io_uring, iodepth 8, threads 1, block 1048576 B",
        ),
        (
            "RND4K Q32T1 write",
            "randwrite: engine io_uring, iodepth 32, threads 1, block 4096 B",
        ),
    ];
    let j = json.to_str().unwrap();
    let html = Iomark::new()
        .dir(t.path())
        .args(["report", j, "--format=html"])
        .run();
    assert_eq!(html.code, 0, "{}", html.stderr);
    let md = Iomark::new()
        .dir(t.path())
        .args(["report", j, "--format=markdown"])
        .run();
    assert_eq!(md.code, 0, "{}", md.stderr);
    // the markdown's items wrapped at 100 columns, read back as one line each
    let md = md_plain(&md.stdout).replace("\n  ", " ");
    for (test, line) in want {
        let row =
            format!("<tr><th class=\"l\">settings of {test}</th><td class=\"l\">{line}</td></tr>");
        assert!(html.stdout.contains(&row), "{row}\n{}", html.stdout);
        let item = format!("- **settings of {test}**: {line}\n");
        assert!(md.contains(&item), "{item}\n{md}");
    }
    for text in [&html.stdout, &md] {
        assert!(
            text.contains(
                "mark:peak: file set 8388608 B, O_DIRECT, 4 tests, each with its settings"
            ),
            "{text}"
        );
        assert!(!text.contains("iodepth 0"), "{text}");
    }
}
