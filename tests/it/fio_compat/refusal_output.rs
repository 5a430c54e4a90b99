//! fio 3.33's refusals with `--output=FILE`, side by side: once fio has opened the file
//! (an `--output` before the refused word, or any `--output` for a job file, read after
//! every option) each of its error lines goes on stderr and into the file, getopt's own
//! first line on stderr only, the valid values it lists into the file instead of stdout,
//! and the section lines of the jobs it added before the refusal into the file. A table
//! of bad values × (command line, job file, `--output` after the bad word) compares both
//! tools' file, stdout, stderr and exit code. Also fio's line per failing part of a
//! value of several parts (`bs=0,0`). Skips the comparison when fio is not installed.

use crate::util::*;

/// Bad `key=value` entries: an unknown option, a value fio cannot read, a value out of
/// range, a listed-values option given none of them, a value of two failing parts.
const BAD: &[(&str, &str)] = &[
    ("bogus", "1"),
    ("bs", "zz"),
    ("bs", "0"),
    ("iodepth", "0,0"),
    ("direct", "2"),
    ("rw", "bogus"),
    ("bs", "0,zz"),
];

/// The places of a bad entry: (name, job file text or none, arguments).
fn shapes(key: &str, value: &str) -> Vec<(&'static str, Option<String>, Vec<String>)> {
    let bad = format!("--{key}={value}");
    let job = ["--name=a", "--ioengine=null", "--size=1m"].map(String::from);
    let mut cmdline = vec!["--output=out.txt".to_string()];
    cmdline.extend(job.iter().cloned());
    cmdline.push(bad.clone());
    // a second job after the first: fio had added the first, its section line filed
    let mut second = cmdline.clone();
    second.pop();
    second.extend(["--name=b".to_string(), bad.clone()]);
    let mut late = job.to_vec();
    late.extend([bad, "--output=out.txt".to_string()]);
    let file = format!("[a]\nioengine=null\nsize=1m\n{key}={value}\n");
    vec![
        ("command line", None, cmdline),
        ("second job", None, second),
        ("--output after", None, late),
        (
            "job file",
            Some(file),
            vec!["--output=out.txt".into(), "job.fio".into()],
        ),
    ]
}

#[test]
fn refusals_go_into_the_output_file_as_fios_do() {
    let test = "refusals_go_into_the_output_file_as_fios_do";
    let fio = need_fio(test);
    let mut wrong = Vec::new();
    let mut filed = 0;
    for &(key, value) in BAD {
        for (shape, file, args) in shapes(key, value) {
            let d = scratch();
            let files: Vec<(&str, &str)> = file.iter().map(|t| ("job.fio", t.as_str())).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            if !fio {
                // iomark's side alone: a refusal, exit 1, its stderr lines in the file
                // when `--output` came first
                let w = d.path().join("i");
                std::fs::create_dir_all(&w).unwrap();
                for (n, t) in &files {
                    std::fs::write(w.join(n), t).unwrap();
                }
                let o = as_fio(d.path()).dir(&w).args(&args).run();
                assert_eq!(o.code, 1, "{key}={value} ({shape}): {}", o.dump());
                continue;
            }
            let ran = both_in(d.path(), &files, &args);
            let read =
                |tool: &str| std::fs::read_to_string(d.path().join(tool).join("out.txt")).ok();
            let (f, i) = (read("fio"), read("iomark"));
            filed += f.as_deref().is_some_and(|t| !t.is_empty()) as usize;
            let what = format!("{key}={value} ({shape})");
            if ran[0] != ran[1] {
                wrong.push(format!(
                    "{what}: (code, stdout, stderr)\n  fio:    {:?}\n  iomark: {:?}",
                    ran[0], ran[1]
                ));
            }
            if f != i {
                wrong.push(format!("{what}: out.txt\n  fio:    {f:?}\n  iomark: {i:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // (the table reaches the file: fio wrote lines into it for most shapes)
    assert!(
        !fio || filed >= BAD.len() * 3,
        "fio filed lines {filed} times"
    );
}

/// Values of two parts that both fail: fio 3.33 reads each part (given the rest of the
/// value from it on) and prints each failing part's line, then `failed parsing`.
#[test]
fn each_failing_part_of_a_value_gets_fios_line() {
    let test = "each_failing_part_of_a_value_gets_fios_line";
    let fio = need_fio(test);
    let values = [
        ("bs", "0,0", 2),
        ("bs", "4z,8z", 2),
        ("bs", "0,zz", 2),
        ("bs", ",zz", 2),
        ("rate", "1z,2z", 2),
        ("iodepth", "0,0", 2),
        ("bs", "zz,yy", 0),
    ];
    for (key, value, parts) in values {
        let d = scratch();
        let i = parse_only(as_fio(d.path()).dir(d.path()), key, value);
        let what = format!("{key}={value}");
        assert_eq!(i.code, 1, "{what}: {}", i.dump());
        // a line per failing part that fio can name, then fio's `failed parsing`
        assert_eq!(i.stderr.lines().count(), parts + 1, "{what}: {}", i.dump());
        assert_eq!(
            i.stderr.lines().last(),
            Some(format!("fio: failed parsing {what}").as_str()),
            "{what}"
        );
        if fio {
            let f = parse_only(fio_cmd().dir(d.path()), key, value);
            assert_eq!(
                (i.code, &i.stderr),
                (f.code, &f.stderr),
                "{what}: fio {}",
                f.dump()
            );
        }
    }
}

/// `bs` given a 0 part next to a size: fio 3.33 prints the range line of each 0 part,
/// keeps that direction's size (4k, its default) and runs the job — reads and writes
/// alike (`bs=1k,0` reads 1k and writes 4k, `bs=0,1k` the other way round; a last part
/// read sets the directions after it). iomark as `fio` runs it with the same sizes: the
/// header's (R) and (W) sizes, the request count of the direction the job does
/// (64 KiB / its size), the same stderr and exit code.
#[test]
fn a_zero_part_of_bs_keeps_that_directions_size_as_fio() {
    let test = "a_zero_part_of_bs_keeps_that_directions_size_as_fio";
    let fio = need_fio(test);
    let kib = |p: &str| -> u64 { p.trim_end_matches('k').parse::<u64>().unwrap() * 1024 };
    // fio's slots (read, write, trim), 4k by default: a part read sets its slot, and the
    // last part read sets the slots after it too; a 0 part sets nothing
    let sizes = |parts: &[u64]| {
        let mut slot = [4096u64; 3];
        for (i, p) in parts.iter().enumerate().filter(|(_, p)| **p > 0) {
            let upto = if i + 1 == parts.len() { 3 } else { i + 1 };
            slot[i..upto].fill(*p);
        }
        (slot[0], slot[1])
    };
    let cases = ["1k,0", "0,1k", "0,0,1k", "0,1k,0", "1k,0,2k", "0k,2k"];
    for value in cases {
        let parts: Vec<u64> = value.split(',').map(kib).collect();
        let zeros = parts.iter().filter(|p| **p == 0).count();
        let (r, w) = sizes(&parts);
        for rw in ["read", "write"] {
            let args = [
                "--name=j",
                "--ioengine=null",
                "--size=64k",
                &format!("--rw={rw}"),
                &format!("--bs={value}"),
                "--output-format=terse",
            ];
            let d = scratch();
            let i = as_fio(d.path()).dir(d.path()).args(args).run();
            let what = format!("rw={rw} bs={value}");
            assert_eq!(i.code, 0, "{what}: {}", i.dump());
            assert_eq!(
                i.stderr,
                "bs: min value out of range: 0 (1 min)\n".repeat(zeros),
                "{what}"
            );
            // terse: read KiB and IOPS are fields 6 and 7 (from 1), write 47 and 48;
            // the requests issued are the job's 64 KiB over the direction's size
            let f: Vec<&str> = i.stdout.trim_end().split(';').collect();
            let (bytes, size) = if rw == "read" { (f[5], r) } else { (f[46], w) };
            assert_eq!(bytes.parse::<u64>().unwrap(), 64, "{what}: {}", i.stdout);
            assert_eq!(i.stdout.lines().count(), 1, "{what}: one terse line");
            let t = as_fio(d.path())
                .dir(d.path())
                .args(&args[..5])
                .args(["--output-format=json"])
                .run();
            let v: serde_json::Value = serde_json::from_str(&t.stdout).unwrap();
            let dir = &v["jobs"][0][rw];
            assert_eq!(dir["total_ios"].as_u64(), Some(65536 / size), "{what}");
            if fio {
                let o = fio_cmd().dir(d.path()).args(args).run();
                assert_eq!((o.code, &o.stderr), (i.code, &i.stderr), "{what}: fio");
                let g: Vec<&str> = o.stdout.trim_end().split(';').collect();
                assert_eq!((g[5], g[46]), (f[5], f[46]), "{what}: fio, then iomark");
                let h = fio_cmd().dir(d.path()).args(&args[..5]).run();
                let head = |s: &str| s.lines().next().unwrap_or("").to_string();
                let n = as_fio(d.path()).dir(d.path()).args(&args[..5]).run();
                // (T): iomark keeps no trim size apart (docs/compat/fio.md)
                let rw_sizes = |l: String| l.split(", (T)").next().unwrap_or("").to_string();
                assert_eq!(
                    rw_sizes(head(&h.stdout)),
                    rw_sizes(head(&n.stdout)),
                    "{what}"
                );
                let fj = fio_cmd()
                    .dir(d.path())
                    .args(&args[..5])
                    .args(["--output-format=json"])
                    .run();
                let fv: serde_json::Value = serde_json::from_str(&fj.stdout).unwrap();
                assert_eq!(fv["jobs"][0][rw]["total_ios"], dir["total_ios"], "{what}");
            }
        }
    }
}
