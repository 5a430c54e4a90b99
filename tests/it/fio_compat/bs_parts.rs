//! The per-direction values of fio's multi-part options (`bs`, `ba`, `rate`, `rate_min`,
//! `rate_iops`, `rate_iops_min`, `percentage_random`) read as fio 3.33 reads them, side
//! by side with the installed fio: a table of values × options, each run on the command
//! line, as a job-file line and (for `bs`) under `--parse-only`, comparing the exit
//! status, the stderr lines and the block sizes of the job's header line
//! (`bs=(R) A-A, (W) B-B, (T) C-C`). fio reads such a value in rounds (parse.c
//! `handle_option`): `1k,4q` is reads of 1k and writes of 4 bytes, `1k,2k,zz` and
//! `rate=1m,z` are refused (`'z' suffix isn't applicable` per round), `8k:x` sets the
//! reads only. (iomark read `1k,4q` as 4k writes, ran `1k,2k,zz`, set every direction
//! to 8k for `8k:x` and refused `4q`; it showed the write size as the trim size.)

use crate::util::*;
use std::path::Path;

/// Values fio 3.33 reads in its rounds, each a case of its rule.
const VALUES: &[&str] = &[
    "1k",
    "1k,2k",
    "1k,2k,3k",
    "1k,2k,3k,4k",
    "1k,4q",
    "4q",
    "4q,8q",
    "1k,2k,zz",
    "1k,4z",
    "zz",
    "1k,,2k",
    ",2k",
    "8k:x",
    "1k:2k",
    "1k-2k",
    "1k,",
    "1k:2k,",
    "1k-",
    "0,1k",
    "1k,0",
    "0",
    "0,0,0,4k",
    "0x10",
    "0x1k",
    "4KiB",
    "4Ki",
    "2KiB,2k",
    "k",
    "1k,x",
    "x,1k",
];

/// The options read so.
const OPTIONS: &[&str] = &[
    "bs",
    "ba",
    "rate",
    "rate_min",
    "rate_iops",
    "rate_iops_min",
    "percentage_random",
];

/// What a run shows: exit status, stderr lines (fio's), the header's (R), (W), (T) sizes.
#[derive(Debug, PartialEq)]
struct Seen {
    code: i32,
    stderr: Vec<String>,
    sizes: Vec<String>,
}

fn seen(out: &Out) -> Seen {
    let header = out.stdout.lines().find(|l| l.contains("bs=(R) "));
    // `bs=(R) 1024B-1024B, (W) 4B-4B, (T) 4B-4B, ioengine=…`: the three ranges
    let sizes = header
        .map(|l| {
            ["(R) ", "(W) ", "(T) "]
                .iter()
                .filter_map(|tag| l.split(tag).nth(1))
                .map(|s| s.split(',').next().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    Seen {
        code: out.code,
        stderr: out.stderr.lines().map(str::to_string).collect(),
        sizes,
    }
}

/// How a value is given: on the command line or as a job-file line, run or under
/// `--parse-only`.
#[derive(Clone, Copy, Debug)]
struct Form {
    file: bool,
    parse_only: bool,
}

/// `who` (`"fio"` or iomark as fio) running `--KEY=VALUE` (after `pre`) in `form`.
fn one(who: &str, d: &Path, form: Form, pre: &[&str], (key, v): (&str, &str)) -> Seen {
    let dir = d.join(format!("{who}-run"));
    let mut args: Vec<String> = ["--ioengine=null", "--size=64k", "--rw=randrw"]
        .iter()
        .chain(pre)
        .map(|s| s.to_string())
        .collect();
    let mut words: Vec<String> = form
        .parse_only
        .then(|| "--parse-only".into())
        .into_iter()
        .collect();
    if form.file {
        let mut text = String::from("[a]\n");
        for a in &args {
            text += &format!("{}\n", a.trim_start_matches("--"));
        }
        text += &format!("{key}={v}\n");
        let file = d.join(format!("{who}.fio"));
        std::fs::write(&file, text).unwrap();
        words.push(file.to_str().unwrap().to_string());
    } else {
        args.insert(0, "--name=a".into());
        args.push(format!("--{key}={v}"));
        words.extend(args);
    }
    let a: Vec<&str> = words.iter().map(String::as_str).collect();
    seen(&side_in(who, d, &dir, &a))
}

/// Where iomark differs from fio for `key=v`: `None` when it shows what fio shows.
fn differs(d: &Path, form: Form, pre: &[&str], kv: (&str, &str)) -> Option<String> {
    let fio = one("fio", d, form, pre, kv);
    let ours = one("iomark", d, form, pre, kv);
    let mut want = fio;
    // (a difference of docs/compat/fio.md: the exit status and `failed parsing` match,
    // fio's range lines before it are not printed)
    let known = kv.0 == "percentage_random" && kv.1.contains([':', '-']) && want.code != 0;
    if known && ours.code == want.code {
        want.stderr
            .retain(|l| !l.contains("max value out of range"));
    }
    (ours != want).then(|| {
        format!(
            "{form:?} {pre:?} {}={}:\n fio:    {want:?}\n iomark: {ours:?}",
            kv.0, kv.1
        )
    })
}

/// Every value of the table given to every multi-part option, on the command line and in
/// a job file, under `--parse-only` (and `bs` also run: its header shows the sizes; a
/// rate of a few bytes/s would run for hours), shows under iomark as `fio` what fio 3.33
/// shows: exit status, stderr lines and the header's block sizes.
#[test]
fn multi_part_values_read_as_fio_reads_them() {
    if !need_fio("multi_part_values_read_as_fio_reads_them") {
        return;
    }
    let d = scratch();
    let mut differ = Vec::new();
    let mut checked = 0;
    for &key in OPTIONS {
        for v in VALUES {
            for file in [false, true] {
                let runs: &[bool] = if key == "bs" { &[true, false] } else { &[true] };
                for &parse_only in runs {
                    let form = Form { file, parse_only };
                    checked += 1;
                    differ.extend(differs(d.path(), form, &[], (key, v)));
                }
            }
        }
    }
    assert!(checked > 300, "checked {checked}");
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// With `kb_base=1000` the units swap bases in every round (`4k` is 4000, `4KiB` 4096,
/// `4Ki` 4000), as fio 3.33 reads them.
#[test]
fn kb_base_1000_reads_every_part_in_its_base() {
    if !need_fio("kb_base_1000_reads_every_part_in_its_base") {
        return;
    }
    let d = scratch();
    let mut differ = Vec::new();
    for v in ["4k", "4KiB,4k", "4Ki,2KiB,1k", "1k,4q", "8k:x", "16k-2KiB"] {
        for file in [false, true] {
            let form = Form {
                file,
                parse_only: false,
            };
            differ.extend(differs(d.path(), form, &["--kb_base=1000"], ("bs", v)));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// `bs` beside `bsrange` or `bssplit`, in either order: fio 3.33 keeps `bs` apart and
/// uses it only for a direction no range or split sized, so `--bsrange=4k-16k --bs=8k`
/// issues 4k–16k reads and `--bssplit=4k/50:8k/50 --bs=16k` the split (iomark let a
/// later `bs` replace them). Side by side: each direction's `total_ios` and every
/// request of `write_iolog` (file, action, offset, length), which also pins the sizes.
#[test]
fn bs_leaves_what_a_range_or_a_split_sized_in_either_order() {
    require_fio();
    let d = scratch();
    let jobs = [
        "--rw=randread --bsrange=4k-16k --bs=8k",
        "--rw=randread --bs=8k --bsrange=4k-16k",
        "--rw=randread --bssplit=4k/50:8k/50 --bs=16k",
        "--rw=randwrite --bsrange=4k-16k --bs=16k",
        "--rw=randrw --bsrange=,4k-16k --bs=8k",
    ];
    for opts in jobs {
        let [ours, fio] = ["iomark", "fio"].map(|tool| {
            let (cmd, w) = fio_or_ours_in(tool, d.path());
            let o = cmd
                .args([
                    "--name=j",
                    "--size=1m",
                    "--write_iolog=l",
                    "--output-format=json",
                ])
                .args(opts.split(' '))
                .run();
            assert_eq!(o.code, 0, "{tool} {opts}: {}", o.dump());
            let j = &o.json_doc()["jobs"][0];
            let ios = ["read", "write"].map(|d| j[d]["total_ios"].as_u64().unwrap());
            let log = std::fs::read_to_string(w.join("l")).unwrap();
            let reqs: Vec<String> = log
                .lines()
                .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
                .filter(|l| l.split(' ').count() == 4)
                .collect();
            (ios, reqs)
        });
        assert_eq!(ours, fio, "{opts}");
        // a range or a split of sizes: more than one length in the log
        let lens: std::collections::BTreeSet<&str> =
            ours.1.iter().filter_map(|l| l.rsplit(' ').next()).collect();
        assert!(lens.len() > 1, "{opts}: {lens:?}");
    }
}
