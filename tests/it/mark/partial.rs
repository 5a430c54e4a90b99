//! A mark run whose test fails part-way prints the table of the tests that finished
//! (the unfinished ones omitted), then the `failed in …` line; the JSON says `failed`
//! and holds the same tests. (Interruptions: tests/it/interrupts/.)

use crate::util::*;

#[test]
fn mark_failed_prints_the_rows_of_the_finished_tests() {
    let d = scratch();
    std::fs::create_dir_all(d.path().join("m")).unwrap();
    // peak, 16 MiB: 16 writes of 1 MiB prepare the file; the 17th write (the first of
    // SEQ1M Q8T1 write, after both read tests) fails with EIO.
    let r = iomark_fault(
        d.path(),
        "write:eio@17",
        &[
            "mark",
            "m",
            "--preset=peak",
            "--size=16M",
            "--time=1",
            "--loops=1",
            "--warmup=0",
            "--json=m.json",
        ],
    );
    assert_eq!(r.code, 1, "{r:?}");
    let rows: Vec<&str> = r
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("test "))
        .skip(1)
        .take_while(|l| !l.starts_with("MB/s ="))
        .map(|l| l[..22].trim())
        .collect();
    assert_eq!(
        rows,
        ["SEQ1M Q8T1 read", "RND4K Q32T1 read"],
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("iomark mark: failed in SEQ1M Q8T1 write after 2 of 4 tests (table above: the 2 finished tests, the 2 unfinished omitted; the finished tests are in m.json)"),
        "{}",
        r.stderr
    );
    let j = read_json(&d.path().join("m.json"));
    assert_eq!(j["status"], "failed");
    assert_eq!(j["phases"].as_array().unwrap().len(), 2);
    assert!(entries(&d.path().join("m")).is_empty());
}
