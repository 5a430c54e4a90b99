//! `iomark mark --size`: the test file size is decided once, rounded down to a whole
//! number of the preset's largest block (1 MiB), said on stderr when it changes, used by
//! every test and recorded in the JSON; a size below one block is refused (exit 2)
//! before anything is created.

use crate::util::*;

const RUN: [&str; 5] = ["mark", "m", "--preset=peak", "--time=1", "--loops=1"];

#[test]
fn mark_rounds_a_decimal_size_down_to_whole_1mib_blocks() {
    for (size, used) in [("10MB", 9u64 << 20), ("1.5M", 1 << 20)] {
        let d = scratch();
        std::fs::create_dir_all(d.path().join("m")).unwrap();
        let arg = format!("--size={size}");
        let mut a: Vec<&str> = RUN.to_vec();
        a.extend(["--warmup=0", &arg, "--json=m.json"]);
        let r = iomark(d.path(), &a);
        assert_eq!(r.code, 0, "{size}: {r:?}");
        // stderr: the size line (then the results history's line, docs/commands/history.md)
        let said: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| !l.starts_with("iomark: result kept in the history"))
            .collect();
        assert_eq!(
            said.join("\n"),
            format!(
                "iomark mark: --size={size}: using {}.0 MiB ({used} bytes, a whole number of 1 MiB blocks)",
                used >> 20
            ),
            "{size}"
        );
        // every test ran on that file: all four rows, no failure
        for t in [
            "SEQ1M Q8T1 read",
            "RND4K Q32T1 read",
            "SEQ1M Q8T1 write",
            "RND4K Q32T1 write",
        ] {
            assert!(
                r.stdout.lines().any(|l| l.starts_with(t)),
                "{size}: {t}: {}",
                r.stdout
            );
        }
        assert!(
            r.stdout
                .contains(&format!("preset peak, {}.0 MiB test file", used >> 20)),
            "{}",
            r.stdout
        );
        let j = read_json(&d.path().join("m.json"));
        assert_eq!(j["status"], "ok");
        assert_eq!(j["job"]["file_size_bytes"], used, "{size}");
        assert_eq!(j["job"]["total_size_bytes"], used, "{size}");
        assert_eq!(j["phases"].as_array().unwrap().len(), 4);
        assert!(entries(&d.path().join("m")).is_empty());
    }
}

#[test]
fn mark_says_nothing_when_the_size_is_whole_blocks() {
    let d = scratch();
    std::fs::create_dir_all(d.path().join("m")).unwrap();
    let mut a: Vec<&str> = RUN.to_vec();
    a.extend(["--warmup=0", "--size=2M", "--json=m.json"]);
    let r = iomark(d.path(), &a);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stderr, "", "{r:?}");
    assert_eq!(
        read_json(&d.path().join("m.json"))["job"]["file_size_bytes"],
        2u64 << 20
    );
}

#[test]
fn mark_refuses_a_size_below_one_block() {
    for size in ["512K", "1k", "1048575", "1MB"] {
        let d = scratch();
        std::fs::create_dir_all(d.path().join("m")).unwrap();
        let arg = format!("--size={size}");
        let mut a: Vec<&str> = RUN.to_vec();
        a.extend([&arg as &str, "--json=m.json"]);
        let r = iomark(d.path(), &a);
        assert_eq!(r.code, 2, "{size}: {r:?}");
        assert_eq!(r.stdout, "", "{size}");
        assert_eq!(
            r.stderr.trim_end(),
            format!("iomark mark: invalid --size={size}: the test file must hold at least one 1 MiB block (the largest block size of --preset=peak); the minimum is 1 MiB (1048576 bytes)"),
            "{size}"
        );
        // nothing created: no test directory, no --json placeholder
        assert!(entries(&d.path().join("m")).is_empty());
        assert_eq!(entries(d.path()), ["m"], "{size}");
    }
}
