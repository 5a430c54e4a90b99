//! Reading JSON the tests check: a file (`--json`, fio's `--output`), typed values that
//! fail with the document in the message, and the lookups by name that RunResult
//! (`phases`) and fio JSON (`jobs`) need.

use serde_json::Value;
use std::path::Path;

/// Read and parse a JSON file (a RunResult or fio's JSON).
#[track_caller]
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("invalid JSON in {}: {e}\n{text}", path.display()))
}

/// The ids of a RunResult's warnings, in order.
#[track_caller]
pub fn warning_ids(j: &Value) -> Vec<&str> {
    j["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("no warnings list: {j}"))
        .iter()
        .map(|w| w["id"].as_str().unwrap())
        .collect()
}

#[track_caller]
pub fn as_u64(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

#[track_caller]
pub fn as_f64(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The unsigned integer at JSON pointer `ptr` (`/read/ops`).
#[track_caller]
pub fn at_u64(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{ptr} is not an unsigned integer in {v:#}"))
}

/// The number at JSON pointer `ptr`.
#[track_caller]
pub fn at_f64(v: &Value, ptr: &str) -> f64 {
    v.pointer(ptr)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{ptr} is not a number in {v:#}"))
}

/// The string at JSON pointer `ptr`.
#[track_caller]
pub fn at_str<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{ptr} is not a string in {v:#}"))
}

/// The RunResult phase called `name`, if there is one.
pub fn phase<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    v["phases"]
        .as_array()
        .unwrap_or_else(|| panic!("no phases in {v}"))
        .iter()
        .find(|p| p["name"] == name)
}

/// The names of a RunResult's phases, in order.
pub fn phase_names(v: &Value) -> Vec<String> {
    v["phases"]
        .as_array()
        .unwrap_or_else(|| panic!("no phases in {v}"))
        .iter()
        .map(|p| p["name"].as_str().expect("a phase name").to_string())
        .collect()
}

/// The fio JSON job called `name`.
#[track_caller]
pub fn job<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["jobs"]
        .as_array()
        .unwrap_or_else(|| panic!("no jobs in {doc}"))
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap_or_else(|| panic!("no job {name} in {doc}"))
}

/// Equal up to rounding (relative 1e-9), for rates recomputed from ops, bytes, seconds.
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// What an SVG chart says in words: the text of its `<text>` elements joined, entities
/// decoded, runs of white space as one space (a note wrapped over lines reads whole).
pub fn chart_text(svg: &str) -> String {
    let said: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>')?.1.split("</text>").next())
        .collect();
    said.join(" ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rows of `iomark compare FILES --format=json` run in `dir`: (test, metric) → the
/// columns' values.
#[track_caller]
pub fn compare_rows(dir: &Path, files: &[&str]) -> Vec<(String, String, Vec<Option<f64>>)> {
    let o = super::Iomark::new()
        .dir(dir)
        .arg("compare")
        .args(files)
        .arg("--format=json")
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: Value = serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}\n{}", o.stdout));
    j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["test"].as_str().unwrap().to_string(),
                r["metric"].as_str().unwrap().to_string(),
                r["values"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(Value::as_f64)
                    .collect(),
            )
        })
        .collect()
}
