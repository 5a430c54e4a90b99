//! Public case C25 through the binary: `iomark compare` lines up a fio JSON report and
//! a fio text report of the same run and labels the producer. The importer itself
//! (units, percentiles, foreign input): src/result/import/fixtures.rs.

use crate::util::*;

#[test]
fn c25_compare_lines_up_fio_json_fio_text_and_labels_the_producer() {
    let o = Iomark::new()
        .dir(fixture("fio"))
        .args(["compare", "seqread-psync.json", "seqread-psync.txt"])
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out = o.stdout;
    assert!(
        out.contains("(seqread-psync.json, fio-3.33 report)"),
        "{out}"
    );
    // same stem: the labels are told apart by the file names, never shown twice
    assert!(out.contains("A = seqread-psync.json ("), "{out}");
    assert!(out.contains("B = seqread-psync.txt ("), "{out}");
    // one row, both columns: 8 MiB / 7 ms = 1198 MB/s (JSON), 8 MiB / 9 ms = 932 MB/s (text)
    let row = out
        .lines()
        .find(|l| l.starts_with("SEQ64K Q1T1 read  MB/s"))
        .unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[4..7], ["1198", "932", "0.78x"], "{row}");
    let lat = out.lines().find(|l| l.contains("read  mean µs")).unwrap();
    assert!(lat.contains("48.6") && lat.contains("57.0"), "{lat}");
    // fio's text report does not record `direct`: never called "buffered" (a false
    // difference), said to be unknown instead
    assert!(
        row.contains("B: O_DIRECT unknown (fio text output does not say) (A: buffered)"),
        "{row}"
    );
    assert!(!out.contains("B: buffered"), "{out}");
}

/// An imported fio JSON report of a job that fsyncs shows compare's fsync rows, read
/// from fio's `sync` section, as an iomark run of the same job does beside it.
#[test]
fn compare_shows_the_fsync_rows_of_an_imported_fio_report() {
    let t = scratch();
    let ours = t.path().join("ours.json");
    let o = Iomark::new()
        .dir(t.path())
        .args([
            "run",
            "--name=fsync1",
            "--filename=F",
            "--size=256k",
            "--bs=4k",
            "--rw=write",
            "--fsync=1",
        ])
        .arg(format!("--json={}", ours.display()))
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let fixture = fixture("fio").join("write-fsync1.json");
    let o = Iomark::new()
        .dir(t.path())
        .arg("compare")
        .arg(&fixture)
        .arg(&ours)
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out = o.stdout;
    let row = |m: &str| {
        out.lines()
            .find(|l| l.contains(m))
            .unwrap_or_else(|| panic!("no {m} row:\n{out}"))
            .to_string()
    };
    let nums = |m: &str| -> Vec<f64> {
        row(m)
            .split_whitespace()
            .filter_map(|c| c.parse().ok())
            .collect()
    };
    // column A, fio's: its 63 fsyncs' p99 (15663104 ns) and mean (7330723.9 ns), and
    // their share of its job_runtime (63 × 7.33 ms of 463 ms); column B, iomark's own
    let p99 = nums("fsync p99 µs");
    assert_eq!(p99.first(), Some(&15663.0), "{out}");
    assert_eq!(p99.len(), 2, "{out}");
    let mean = nums("fsync mean µs");
    assert_eq!(mean.first(), Some(&7331.0), "{out}");
    let time = nums("time in fsync %");
    assert_eq!(time.len(), 2, "{out}");
    assert!((time[0] - 99.7).abs() < 0.05, "{out}");
}
