//! `iomark compare` over results of several fio jobs: each job's rows name the job, a
//! job is matched by its name (then by order), and a job's files are its own, not the
//! run's; fio's JSON with a raw control character in a job name is read.

use crate::util::*;
use std::path::Path;

/// `iomark run` of `jobs` (each `(name, nrfiles)`, same settings otherwise) into
/// `dir/file`.
fn run_jobs(dir: &Path, file: &str, jobs: &[(&str, u32)]) {
    let mut args: Vec<String> = vec![];
    for (name, n) in jobs {
        args.extend([
            format!("--name={name}"),
            "--rw=randread".into(),
            "--bs=4k".into(),
            "--size=64k".into(),
            format!("--nrfiles={n}"),
            format!("--filename_format={name}.$filenum"),
        ]);
    }
    args.push(format!("--json={file}"));
    let o = Iomark::new()
        .dir(dir)
        .arg("run")
        .args(&args)
        .env("IOMARK_HISTORY", "off")
        .run();
    assert_eq!(o.code, 0, "{}", o.dump());
}

/// The lines of the MB/s rows of `out`.
fn mbs_rows(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.contains("  MB/s ")).collect()
}

#[test]
fn each_job_is_named_matched_by_name_and_counts_its_own_files() {
    let d = scratch();
    run_jobs(d.path(), "one.json", &[("A", 1)]);
    run_jobs(d.path(), "two.json", &[("A", 1), ("B", 2)]);
    run_jobs(d.path(), "swapped.json", &[("B", 2), ("A", 1)]);

    let o = iomark(d.path(), &["compare", "one.json", "two.json"]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let rows = mbs_rows(&o.stdout);
    assert_eq!(rows.len(), 2, "{}", o.stdout);
    // job A of both: its own one file each, so no call-out about files
    assert!(!rows[0].contains("files"), "{}", o.stdout);
    assert!(rows[1].contains("(job B)"), "{}", o.stdout);
    assert!(rows[1].contains("A: no such test"), "{}", o.stdout);

    // the same jobs in the other order: each found by its name
    let o = iomark(d.path(), &["compare", "two.json", "swapped.json"]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let rows = mbs_rows(&o.stdout);
    assert_eq!(rows.len(), 2, "{}", o.stdout);
    assert!(rows[0].contains("(job A)"), "{}", o.stdout);
    assert!(rows[1].contains("(job B)"), "{}", o.stdout);
    for r in &rows {
        assert!(!r.contains("no such test"), "{}", o.stdout);
        assert!(!r.contains("files"), "{}", o.stdout);
    }
}

/// fio 3.33 writes `--name=$'a\nb'` into its JSON as it is (a raw newline inside the
/// string, which JSON does not allow): compare reads it, the name made visible.
#[test]
fn fio_json_with_a_raw_newline_in_a_job_name_is_read() {
    let d = scratch();
    let doc = "{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n    {\n      \"jobname\" : \"a\nb\",\n      \"job options\" : {\"rw\" : \"randread\", \"bs\" : \"4k\"},\n      \"read\" : {\"total_ios\" : 250, \"io_bytes\" : 1024000, \"runtime\" : 1000}\n    }\n  ]\n}\n";
    std::fs::write(d.path().join("nl.json"), doc).unwrap();
    let o = iomark(d.path(), &["compare", "nl.json"]);
    assert_eq!(o.code, 0, "{}", o.dump());
    let row = o
        .stdout
        .lines()
        .find(|l| l.contains("  MB/s "))
        .unwrap_or_else(|| panic!("{}", o.stdout));
    assert!(row.contains("1.02"), "{row}");
}
