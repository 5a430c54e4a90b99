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
