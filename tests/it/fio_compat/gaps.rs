//! Gaps closed between iomark invoked as `fio` and fio 3.33: the sizes of a
//! `filesize=LOW-HIGH` range, the JSON `desc` and `job options` keys, and the numbers fio
//! takes where iomark refused them. Each runs fio beside iomark when fio is installed;
//! the values fio 3.33 gives are also written out, so iomark is checked without it.

use crate::util::*;
use std::path::Path;

/// The sizes of the regular files in `dir`, by name.
fn sizes(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, e.metadata().unwrap().len())
        })
        .collect();
    v.sort();
    v
}

/// fio 3.33's file sizes for `filesize=1m-8m nrfiles=4 bs=4k randseed=1234 numjobs=2`
/// (`ls -l` after `fio`): each is LOW + (HIGH − LOW) · r / 2^32, truncated and rounded
/// down to 4 KiB, with `r` the next value of the thread's taus88 generator seeded from
/// randseed · 0x9e370001^11 · thread_number + 7 (fio's file-size seed slot), the
/// generator's first values of threads 1 and 2 in file order.
const A_SIZES: [(&str, u64); 8] = [
    ("a.0.0", 1_994_752),
    ("a.0.1", 7_450_624),
    ("a.0.2", 6_656_000),
    ("a.0.3", 4_214_784),
    ("a.1.0", 5_992_448),
    ("a.1.1", 7_913_472),
    ("a.1.2", 7_626_752),
    ("a.1.3", 7_266_304),
];

const A_JOB: [&str; 9] = [
    "--name=a",
    "--filesize=1m-8m",
    "--nrfiles=4",
    "--bs=4k",
    "--rw=write",
    "--randseed=1234",
    "--ioengine=psync",
    "--output-format=json",
    "--numjobs=2",
];

/// Bytes written by each job of a JSON report.
fn written(out: &Out) -> Vec<u64> {
    let doc = out.ok().json();
    let jobs = doc["jobs"].as_array().unwrap().clone();
    jobs.iter()
        .map(|j| j["write"]["io_bytes"].as_u64().unwrap())
        .collect()
}

/// `filesize=LOW-HIGH`: every file gets its own size in the range, drawn as fio draws it
/// (the same bytes as fio's files), and a file whose size is already in the range keeps
/// it, so only the others take the generator's next values. iomark gave every file LOW.
#[test]
fn filesize_range_gives_each_file_fios_size() {
    let d = scratch();
    let (i_dir, f_dir) = (d.path().join("i"), d.path().join("f"));
    std::fs::create_dir_all(&i_dir).unwrap();
    std::fs::create_dir_all(&f_dir).unwrap();
    let want: Vec<(String, u64)> = A_SIZES.iter().map(|(n, s)| (n.to_string(), *s)).collect();
    let i = as_fio(d.path()).dir(&i_dir).args(A_JOB).run();
    assert_eq!(
        written(&i),
        [20_316_160, 28_798_976],
        "the sizes' sums per thread"
    );
    let first_sizes = sizes(&i_dir);
    assert_eq!(first_sizes, want);
    // a file in the range keeps its size (3 MiB); one above it (9 MiB) is written over
    // for the first size thread 1 draws; a.0.2 and a.0.3 are in the range already
    let rerun = |dir: &Path, tool: Iomark| {
        let f = |n: &str| {
            std::fs::File::options()
                .write(true)
                .open(dir.join(n))
                .unwrap()
        };
        f("a.0.0").set_len(3 << 20).unwrap();
        f("a.0.1").set_len(9 << 20).unwrap();
        tool.dir(dir).args(&A_JOB[..8]).run()
    };
    let again = rerun(&i_dir, as_fio(d.path()));
    assert_eq!(
        written(&again),
        [(3 << 20) + 1_994_752 + 6_656_000 + 4_214_784]
    );
    if !need_fio("filesize_range_gives_each_file_fios_size") {
        return;
    }
    let f = fio_cmd().dir(&f_dir).args(A_JOB).run();
    assert_eq!(sizes(&f_dir), first_sizes, "fio's files and iomark's");
    assert_eq!(written(&f), written(&i));
    assert_eq!(written(&rerun(&f_dir, fio_cmd())), written(&again));
}

/// The 64-bit generator (`random_generator=tausworthe64`) draws the sizes of its own, and
/// the rounding is to the smallest block size of any direction (`bs=8k,4k`: 4 KiB).
#[test]
fn filesize_range_follows_the_generator_and_the_smallest_block() {
    let d = scratch();
    let args = [
        "--name=b",
        "--filesize=64k-1m",
        "--bs=8k,4k",
        "--rw=write",
        "--random_generator=tausworthe64",
        "--nrfiles=3",
        "--ioengine=psync",
    ];
    as_fio(d.path()).dir(d.path()).args(args).run().ok();
    let mine = sizes(d.path());
    let mine: Vec<(String, u64)> = mine
        .into_iter()
        .filter(|(n, _)| n.starts_with("b."))
        .collect();
    // fio 3.33's files for the same command line (ls -l)
    let fio_3_33 = [("b.0.0", 425_984), ("b.0.1", 389_120), ("b.0.2", 790_528)];
    let want: Vec<(String, u64)> = fio_3_33.iter().map(|(n, s)| (n.to_string(), *s)).collect();
    assert_eq!(mine, want);
    assert!(
        mine.iter().any(|(_, s)| !s.is_multiple_of(8192)),
        "4 KiB multiples, not 8 KiB"
    );
    if need_fio("filesize_range_follows_the_generator_and_the_smallest_block") {
        let f_dir = d.path().join("f");
        std::fs::create_dir_all(&f_dir).unwrap();
        fio_cmd().dir(&f_dir).args(args).run().ok();
        assert_eq!(sizes(&f_dir), want);
    }
}

/// The keys of the first job object of a fio JSON text, in order (the lines at the
/// job's indent: six spaces).
fn job_keys(text: &str) -> Vec<String> {
    let jobs = &text[text.find("\"jobs\" : [").expect("a jobs array")..];
    let first = &jobs[..jobs.find("\n    }").expect("the first job's end")];
    first
        .lines()
        .filter(|l| l.starts_with("      \"") && !l.starts_with("       "))
        .map(|l| {
            l.trim()
                .split(" : ")
                .next()
                .unwrap()
                .trim_matches('"')
                .to_string()
        })
        .collect()
}

/// `description=` is the JSON's `desc` key, last of the job's keys (the job's own or the
/// `[global]` one), and a job that set no option of its own has no `job options` key
/// (its section holds nothing; every option came from the command line or `[global]`),
/// as fio 3.33 writes them. iomark left `desc` out and wrote `"job options" : {}`.
#[test]
fn json_desc_and_job_options_keys_are_fios() {
    let d = scratch();
    let files = [
        (
            "own.fio",
            "[a]\nioengine=null\nsize=1m\ndescription=hi you\n",
        ),
        (
            "glob.fio",
            "[global]\ndescription=glob d\n[a]\nioengine=null\nsize=1m\n",
        ),
        ("bare.fio", "[a]\n"),
    ];
    for (name, text) in files {
        std::fs::write(d.path().join(name), text).unwrap();
    }
    let json = ["--output-format=json"];
    let cases: [(&[&str], Option<&str>, bool); 4] = [
        (&["own.fio"], Some("hi you"), true),
        (&["glob.fio"], Some("glob d"), true),
        (&["--ioengine=null", "--size=1m", "bare.fio"], None, false),
        (
            &[
                "--name=a",
                "--ioengine=null",
                "--size=1m",
                "--description=c l",
            ],
            Some("c l"),
            true,
        ),
    ];
    for (args, desc, opts) in cases {
        let i = as_fio(d.path())
            .dir(d.path())
            .args(json)
            .args(args)
            .run()
            .ok();
        let job = &i.json()["jobs"][0];
        assert_eq!(job["desc"].as_str(), desc, "{args:?}");
        assert_eq!(
            job.get("job options").is_some(),
            opts,
            "{args:?}: {}",
            i.stdout
        );
        let keys = job_keys(&i.stdout);
        assert_eq!(
            keys.last().map(|k| k == "desc"),
            Some(desc.is_some()),
            "{keys:?}"
        );
        if need_fio("json_desc_and_job_options_keys_are_fios") {
            let f = fio_cmd().dir(d.path()).args(json).args(args).run().ok();
            assert_eq!(keys, job_keys(&f.stdout), "{args:?}");
            assert_eq!(job["desc"], f.json()["jobs"][0]["desc"], "{args:?}");
        }
    }
}

/// An `iodepth` of two parts (`4-8`, `4,8`, `4:8`) is its first part; a part out of range
/// gets fio's line on stderr and the job still runs (with the default when the first part
/// is the bad one: `0-4`, `-70000`, which is `-70000` then `70000` — fio has no maximum
/// depth, so the second part passes). iomark refused them (`-70000`: above its own limit
/// of 65536).
#[test]
fn an_iodepth_of_two_parts_is_read_as_fio_reads_it() {
    let d = scratch();
    let min_line = |n: &str| format!("iodepth: min value out of range: {n} (1 min)\n");
    let cases = [
        ("4-8", 4, String::new()),
        ("4,8", 4, String::new()),
        ("4:8", 4, String::new()),
        ("4-0", 4, min_line("0")),
        ("0-4", 1, min_line("0")),
        ("-70000", 1, min_line("-70000")),
    ];
    for (v, depth, line) in cases {
        let opt = format!("--iodepth={v}");
        let args = ["--name=x", "--ioengine=null", "--size=64k", opt.as_str()];
        let i = as_fio(d.path()).dir(d.path()).args(args).run();
        assert_eq!(
            (i.code, i.stderr.as_str()),
            (0, line.as_str()),
            "{}",
            i.dump()
        );
        let head = i.stdout.lines().next().unwrap_or_default().to_string();
        assert!(head.ends_with(&format!(", iodepth={depth}")), "{v}: {head}");
        let json = as_fio(d.path())
            .dir(d.path())
            .args(args)
            .arg("--output-format=json");
        let listed = json.run().ok().json()["jobs"][0]["job options"]["iodepth"].clone();
        assert_eq!(listed, v, "the JSON lists the value as typed");
        if need_fio("an_iodepth_of_two_parts_is_read_as_fio_reads_it") {
            let f = fio_cmd().dir(d.path()).args(args).run();
            assert_eq!((f.code, f.stderr.as_str()), (0, line.as_str()), "fio {v}");
            assert_eq!(f.stdout.lines().next().unwrap_or_default(), head, "fio {v}");
        }
    }
    // every part out of range: refused (fio exits 1)
    let i = as_fio(d.path())
        .dir(d.path())
        .args(["--name=x", "--iodepth=0-0"])
        .run();
    assert_eq!(i.code, 1, "{}", i.dump());
}

/// A negative time (`runtime=-1`, `ramp_time=-5`, `startdelay=-1`) is taken as fio 3.33
/// takes it, silently: fio stores `-T` as a wrapped unsigned count of µs, a time no run
/// reaches, so a size-bound job runs to its size with every byte counted (a ramp that
/// never ends never zeroes the counts); `startdelay=-1` is the range -1 s to 1 s, drawn
/// per thread by fio's start-delay generator — with `randseed` 3 and 6 the draw is 0.89 s
/// and 0.59 s, so the job runs (with 2, 4, 5 and 7 it is negative and fio 3.33 never
/// starts the job: run/gen/frand.rs's unit test). iomark refused all three.
#[test]
fn negative_times_run_as_in_fio() {
    let cases: [(&str, &str); 5] = [
        ("--runtime=-1", "runtime"),
        ("--ramp_time=-5", "ramp_time"),
        ("--ramp_time=-0", "ramp_time"),
        ("--startdelay=-1 --randseed=3", "startdelay"),
        ("--startdelay=-1 --randseed=6", "startdelay"),
    ];
    for (opts, key) in cases {
        let mut args = vec!["--name=a", "--ioengine=null", "--size=1m"];
        args.extend(opts.split(' '));
        args.push("--output-format=json");
        let runs = fio_and_iomark("negative_times_run_as_in_fio", &args, |_, _| {});
        let i = &runs.iomark;
        assert_eq!((i.code, i.stderr.as_str()), (0, ""), "{}", i.dump());
        let job = &i.json()["jobs"][0];
        let typed = opts.split(' ').next().unwrap().split_once('=').unwrap().1;
        assert_eq!(job["job options"][key], typed, "{opts}");
        assert_eq!(
            job["read"]["io_bytes"],
            1 << 20,
            "{opts}: every byte counted"
        );
        if let Some(f) = &runs.fio {
            assert_eq!((f.code, f.stderr.as_str()), (0, ""), "fio {opts}");
            let fj = &f.json()["jobs"][0];
            assert_eq!(fj["job options"], job["job options"], "{opts}");
            assert_eq!(fj["read"]["io_bytes"], job["read"]["io_bytes"], "{opts}");
        }
    }
}
