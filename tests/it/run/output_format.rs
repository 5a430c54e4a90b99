//! `--output-format` lists (`normal,json`, `json+,normal`, `json,json+`) as fio 3.33
//! prints them: the JSON document first whatever the list's order, then one empty line
//! and the normal text; `json` with `json+` is one json+ document; `--output=FILE` gets
//! the same bytes. Bad lists are one stderr line naming the option, exit 2 (the list
//! parser: src/job/fio/tests.rs).

use std::path::Path;

use crate::util::*;

const JOB: [&str; 5] = [
    "--name=a",
    "--ioengine=null",
    "--size=64k",
    "--bs=4k",
    "--rw=read",
];

fn run_with(dir: &Path, extra: &[&str]) -> Out {
    run(dir, &[&JOB[..], extra].concat())
}

/// Cut the JSON document out of a combined report the way one cuts fio's: from the
/// line `{` through the first line that is `}` (column 0). Returns (json, rest after
/// the document's closing line and its newline).
fn cut_json(out: &str) -> (String, String) {
    let start = out.find("{\n").expect("a line '{'");
    // fio 3.33 prints its header lines first, the JSON document right after them
    let head = &out[..start];
    assert!(
        head.starts_with("a: (g=0): rw=") && head.ends_with("\nStarting 1 process\n"),
        "fio's header, then the JSON document: {out}"
    );
    let end = out.find("\n}\n").expect("a closing line '}'") + 3;
    (out[start..end].to_string(), out[end..].to_string())
}

#[test]
fn json_then_text_whatever_the_order() {
    let d = scratch();
    for list in ["normal,json", "json,normal", "json+,normal"] {
        let out = run_with(d.path(), &[&format!("--output-format={list}")])
            .ok()
            .stdout;
        let (doc, rest) = cut_json(&out);
        let v: serde_json::Value = serde_json::from_str(&doc)
            .unwrap_or_else(|e| panic!("{list}: the cut-out JSON parses: {e}\n{doc}"));
        assert_eq!(v["jobs"][0]["jobname"], "a", "{list}");
        assert_eq!(v["jobs"][0]["read"]["io_bytes"], 65536, "{list}");
        assert_eq!(
            v["jobs"][0]["read"]["clat_ns"].get("bins").is_some(),
            list.starts_with("json+"),
            "{list}: bins only with json+"
        );
        // fio: "}\n", then the normal text, which starts with an empty line
        assert!(
            rest.starts_with("\na: (groupid=0, jobs=1): err= 0"),
            "{list}: {rest}"
        );
        assert!(
            rest.contains("  read: IOPS=") && rest.contains("io=64.0KiB (65.5kB)"),
            "{list}: {rest}"
        );
        assert!(!rest.contains('{'), "{list}: one document only: {rest}");
    }
}

#[test]
fn json_with_json_plus_is_one_json_plus_document() {
    let d = scratch();
    let out = run_with(d.path(), &["--output-format=json,json+"])
        .ok()
        .stdout;
    let v: serde_json::Value = serde_json::from_str(&out).expect("stdout is one document");
    let bins = v["jobs"][0]["read"]["clat_ns"]["bins"].as_object().unwrap();
    let n: u64 = bins.values().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(n, 16, "64k of 4k reads");
}

#[test]
fn output_file_gets_both_parts() {
    let d = scratch();
    let out = run_with(d.path(), &["--output-format=normal,json", "--output=r.txt"])
        .ok()
        .stdout;
    assert!(out.is_empty(), "nothing on stdout: {out}");
    let f = std::fs::read_to_string(d.path().join("r.txt")).unwrap();
    let (doc, rest) = cut_json(&f);
    let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 16);
    assert!(rest.starts_with("\na: (groupid=0"), "{rest}");
    assert!(
        rest.contains("\nRun status group 0 (all jobs):\n"),
        "{rest}"
    );
}

#[test]
fn bad_lists_are_one_line_exit_2() {
    let d = scratch();
    for bad in ["normal,xml", "normal,", ",json", "json;normal"] {
        let o = run_with(d.path(), &[&format!("--output-format={bad}")]);
        assert_eq!(o.code, 2, "{bad}");
        assert!(o.stdout.is_empty(), "{bad}: nothing ran");
        let e = o.stderr;
        assert_eq!(e.lines().count(), 1, "{bad}: {e}");
        assert!(
            e.contains("'output-format'") && e.contains("accepted: normal, json, json+"),
            "{bad}: {e}"
        );
    }
}
