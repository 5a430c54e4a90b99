//! The shape of a fio JSON document before it is read: every value the importer reads
//! has the type fio 3.33 writes there (stat.c's JSON writer), so a value of another
//! type (`"iops": "abc"`) is a malformed report, named by its JSON path, never read as
//! zero (which would make a job "without any completed I/O"). What fio writes: a job's
//! `read`, `write`, `trim` and `sync` sections hold numbers only (nested objects and
//! arrays of them: `clat_ns`, its `percentile` and `bins`, `prios`), the counts and
//! times among them whole and not negative; `jobname` is a string, `groupid`, `error`,
//! `elapsed` and `job_runtime` are whole numbers; the values of `job options` and
//! `global options` are strings.

use serde_json::Value;

/// The direction sections of a job.
const DIRECTIONS: [&str; 4] = ["read", "write", "trim", "sync"];

/// Keys the importer reads as counts or times (whole numbers, not negative), wherever
/// they stand in a direction; the entries of `percentile` and `bins` are too.
const WHOLE: [&str; 8] = [
    "io_bytes",
    "io_kbytes",
    "bw_bytes",
    "bw",
    "runtime",
    "total_ios",
    "N",
    "min",
];

/// A job's own numbers the importer reads (whole, not negative).
const JOB_WHOLE: [&str; 4] = ["groupid", "error", "elapsed", "job_runtime"];

/// The first value of fio JSON document `v` whose type is not what fio writes there:
/// `PATH is WHAT, expected KIND` (`jobs[0].read.iops is the string "abc", expected a
/// number`); `None` when the document has fio's shape.
pub fn malformed(v: &Value) -> Option<String> {
    if let Some(g) = v.get("global options") {
        if let Some(e) = strings(g, "global options") {
            return Some(e);
        }
    }
    let jobs = v.get("jobs")?.as_array()?;
    jobs.iter()
        .enumerate()
        .find_map(|(i, j)| job(j, &format!("jobs[{i}]")))
}

/// The first misshapen value of job `j` at `path`.
fn job(j: &Value, path: &str) -> Option<String> {
    let Some(o) = j.as_object() else {
        return Some(wrong(path, j, "an object (a job)"));
    };
    if let Some(n) = o.get("jobname").filter(|n| !n.is_string()) {
        return Some(wrong(&format!("{path}.jobname"), n, "a string"));
    }
    for k in JOB_WHOLE {
        if let Some(e) = o.get(k).and_then(|x| whole(&format!("{path}.{k}"), x)) {
            return Some(e);
        }
    }
    if let Some(e) = o
        .get("job options")
        .and_then(|x| strings(x, &format!("{path}.job options")))
    {
        return Some(e);
    }
    DIRECTIONS
        .iter()
        .filter_map(|d| Some((d, o.get(*d)?)))
        .find_map(|(d, x)| numbers(x, &format!("{path}.{d}"), false))
}

/// The first value under `v` (at `path`) that is not a number (objects and arrays are
/// walked); `counted`: `v` is an entry of a `percentile` or `bins` object, or a key of
/// [`WHOLE`], so a whole number not below zero.
fn numbers(v: &Value, path: &str, counted: bool) -> Option<String> {
    match v {
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            let within = matches!(path.rsplit('.').next(), Some("percentile" | "bins"));
            numbers(
                x,
                &format!("{path}.{k}"),
                within || WHOLE.contains(&k.as_str()),
            )
        }),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| numbers(x, &format!("{path}[{i}]"), false)),
        Value::Number(_) if counted => whole(path, v),
        Value::Number(_) => None,
        _ => Some(wrong(path, v, "a number")),
    }
}

/// `v` at `path` unless it is a whole number not below zero.
fn whole(path: &str, v: &Value) -> Option<String> {
    if v.is_u64() {
        return None;
    }
    Some(wrong(path, v, "a whole number, 0 or more"))
}

/// The first value of options object `v` (at `path`) that is not a string.
fn strings(v: &Value, path: &str) -> Option<String> {
    let Some(m) = v.as_object() else {
        return Some(wrong(path, v, "an object of option strings"));
    };
    m.iter()
        .find(|(_, x)| !x.is_string())
        .map(|(k, x)| wrong(&format!("{path}.{k}"), x, "a string"))
}

/// `PATH is WHAT, expected KIND`, the value said by its type and (for a scalar) its text.
fn wrong(path: &str, v: &Value, kind: &str) -> String {
    let what = match v {
        Value::String(s) => format!("the string {}", Value::String(s.clone())),
        Value::Number(n) => format!("the number {n}"),
        Value::Bool(b) => format!("{b}"),
        Value::Null => "null".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    };
    format!("{path} is {what}, expected {kind}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fio 3.33 report of the fixtures has fio's shape.
    #[test]
    fn fios_own_reports_have_its_shape() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio");
        let mut seen = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "json") {
                let text = std::fs::read_to_string(&p).unwrap();
                // (a cut run's report has fio's `terminating on signal` line first)
                let v: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
                assert_eq!(malformed(&v), None, "{}", p.display());
                seen += 1;
            }
        }
        assert!(seen >= 4, "{seen} fixtures");
    }

    /// A value of another type than fio writes is named by its path and what was
    /// expected.
    #[test]
    fn a_value_of_another_type_is_named_by_its_path() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/fio/seqread-psync.json"),
        )
        .unwrap();
        let base: Value = serde_json::from_str(&text).unwrap();
        let cases: [(&str, Value, &str); 6] = [
            ("/jobs/0/read/iops", "abc".into(), "jobs[0].read.iops is the string \"abc\", expected a number"),
            ("/jobs/0/read/total_ios", (-3).into(), "jobs[0].read.total_ios is the number -3, expected a whole number, 0 or more"),
            ("/jobs/0/read/clat_ns/mean", Value::Null, "jobs[0].read.clat_ns.mean is null, expected a number"),
            ("/jobs/0/read/clat_ns/percentile/99.000000", 1.5.into(), "jobs[0].read.clat_ns.percentile.99.000000 is the number 1.5, expected a whole number, 0 or more"),
            ("/jobs/0/job_runtime", "10".into(), "jobs[0].job_runtime is the string \"10\", expected a whole number, 0 or more"),
            ("/jobs/0/job options/bs", 4096.into(), "jobs[0].job options.bs is the number 4096, expected a string"),
        ];
        for (ptr, bad, want) in cases {
            let mut v = base.clone();
            *v.pointer_mut(ptr).unwrap_or_else(|| panic!("{ptr}")) = bad;
            assert_eq!(malformed(&v).as_deref(), Some(want), "{ptr}");
        }
    }
}
