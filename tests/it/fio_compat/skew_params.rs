//! The parameters of `random_distribution`'s and `file_service_type`'s zipf, pareto and
//! normal read as fio 3.33 reads them (options.c `str_random_distribution_cb`,
//! `str_fst_cb`), side by side with the installed fio: a centre (`zipf:1.2:0.5`) moves
//! the hot blocks as fio's (lib/zipf.c, lib/gauss.c: each run's `write_iolog` is fio's
//! request by request), a bare kind takes fio's default, `zipf:0` and `normal:0` run;
//! values out of fio's ranges are refused with fio's explanatory line before `failed
//! parsing`, exit 1, on the command line and in a job file; `gauss` is no word of
//! `random_distribution` (fio lists it for `file_service_type` only). After `random`,
//! `roundrobin`, `sequential` of `file_service_type` fio reads the count with `atoi`
//! (junk is 0). `iomark run` keeps its own reading (docs/compat/fio.md).

use super::random_offsets::same_offsets;
use crate::util::*;

/// Distributions fio 3.33 runs that iomark refused: centres, fio's defaults, bounds.
const RUN: &[&str] = &[
    "zipf:1.2:0.5",
    "zipf:1.2:0",
    "zipf:1.2:1",
    "pareto:0.3:0.2",
    "pareto:0.5:1",
    "normal:10:0.5",
    // a normal centre below the middle: fio's negative offset wraps in 32 bits
    "normal:10:0.2",
    "normal:30:0.9",
    "zipf:0",
    "normal:0",
    "zipf",
    "pareto",
    "normal",
    // only θ = 1 is refused; -1 is fio's "no centre"
    "zipf:-1",
    "zipf:200",
    "zipf:1.2:-1",
];

#[test]
fn distribution_parameters_fio_runs_draw_fios_offsets() {
    require_fio();
    for dist in RUN {
        let distribution = format!("--random_distribution={dist}");
        for size in ["1m", "1000k"] {
            let size = format!("--size={size}");
            let args = [
                "--name=a",
                "--filename=f",
                "--rw=randread",
                "--bs=4k",
                &size,
                "--norandommap",
                &distribution,
                "--write_iolog=a.log",
            ];
            same_offsets(&args, &["a.log"], usize::MAX);
        }
    }
}

#[test]
fn a_centre_moves_the_offsets_of_several_files_and_seeds_as_fios() {
    require_fio();
    for dist in ["zipf:1.2:0.4", "pareto:0.4:0.9", "normal:10:0.3"] {
        let distribution = format!("--random_distribution={dist}");
        let args = [
            "--name=a",
            "--rw=randwrite",
            "--bs=4k",
            "--size=600k",
            "--nrfiles=3",
            "--randrepeat=0",
            "--randseed=77",
            &distribution,
            "--write_iolog=a.log",
        ];
        same_offsets(&args, &["a.log"], usize::MAX);
    }
}

/// `(key=value, fio's first line)` refused by fio 3.33 with its own line first.
const REFUSED: &[(&str, &str)] = &[
    (
        "random_distribution=zipf:1",
        "fio: zipf theta must different than 1.0",
    ),
    (
        "random_distribution=zipf:1.2:1.5",
        "fio: distribution center out of range (0 <= center <= 1.0)",
    ),
    (
        "random_distribution=pareto:1",
        "fio: pareto input out of range (0 < input < 1.0)",
    ),
    (
        "random_distribution=pareto:0",
        "fio: pareto input out of range (0 < input < 1.0)",
    ),
    (
        "random_distribution=normal:100",
        "fio: normal deviation out of range (0 <= input < 100.0)",
    ),
    (
        "random_distribution=normal:-1",
        "fio: normal deviation out of range (0 <= input < 100.0)",
    ),
    (
        "random_distribution=zipf:abc",
        "fio: random postfix parsing failed",
    ),
    (
        "random_distribution=zipf:1.2:",
        "fio: random postfix parsing failed",
    ),
    ("random_distribution=gauss:10", ""),
    (
        "file_service_type=zipf:x",
        "fio: file service type random postfix parsing failed",
    ),
    (
        "file_service_type=normal:5:x",
        "fio: file service type random postfix parsing failed",
    ),
    (
        "file_service_type=zipf:1",
        "fio: zipf theta must be different than 1.0",
    ),
    (
        "file_service_type=gauss:3:2",
        "fio: distribution center out of range (0 <= center <= 1.0)",
    ),
    (
        "file_service_type=pareto:2",
        "fio: pareto input out of range (0 < input < 1.0)",
    ),
    (
        "random_distribution=zoned:50/50",
        "fio: access percentage don't add up to 100 for zoned random distribution (got=50)",
    ),
    (
        "random_distribution=zoned_abs:50/1M:40/1M",
        "fio: access percentage don't add up to 100 for zoned random distribution (got=90)",
    ),
    (
        "random_distribution=zoned:110/100",
        "fio: zone_split percentages add to more than 100%",
    ),
    (
        "random_distribution=zoned:50/50:50/60",
        "fio: zone_split percentages add to more than 100%",
    ),
];

#[test]
fn parameters_out_of_fios_ranges_are_refused_with_fios_lines() {
    require_fio();
    let d = scratch();
    for (kv, first) in REFUSED {
        let job = format!("[x]\nrw=randread\nsize=64k\nnrfiles=2\n{kv}\n");
        let opt = format!("--{kv}");
        let cli = ["--name=x", "--size=64k", "--nrfiles=2", opt.as_str()];
        for args in [&cli[..], &["j.fio"][..]] {
            let [fio, ours] = both_in(d.path(), &[("j.fio", &job)], args);
            assert_eq!(fio.0, 1, "{args:?}: {fio:?}");
            let said = format!("{first}\nfio: failed parsing {kv}\n");
            let said = said.trim_start_matches('\n');
            assert!(fio.2.starts_with(said), "{args:?}: {fio:?}");
            assert_eq!(ours, fio, "{args:?}");
        }
    }
}

#[test]
fn file_service_parameters_fio_runs_pick_fios_files() {
    require_fio();
    // after random/roundrobin/sequential fio's atoi reads junk as 0, whose countdown
    // wraps (2^32 requests a file); a centre moves the hot file
    for fst in [
        "random:x",
        "random:0",
        "roundrobin:2x",
        "roundrobin:x",
        "sequential:abc",
        "pareto:0.3:0.2",
        "normal:20:0.8",
        "zipf:1.2:0.5",
    ] {
        let service = format!("--file_service_type={fst}");
        let args = [
            "--name=a",
            "--rw=randread",
            "--bs=4k",
            "--size=256k",
            "--nrfiles=4",
            "--norandommap",
            "--number_ios=300",
            &service,
            "--write_iolog=a.log",
        ];
        same_offsets(&args, &["a.log"], usize::MAX);
    }
}

#[test]
fn iomark_run_keeps_its_own_reading_of_the_parameters() {
    let d = scratch();
    for (kv, code) in [
        ("random_distribution=zipf:1.2:0.5", 2),
        ("random_distribution=normal:0", 2),
        ("random_distribution=gauss:10", 0),
        ("file_service_type=random:x", 2),
    ] {
        let opt = format!("--{kv}");
        let args = [
            "--parse-only",
            "--name=a",
            "--ioengine=null",
            "--size=1m",
            &opt,
        ];
        let o = run(d.path(), &args);
        assert_eq!(o.code, code, "{kv}: {}", o.dump());
    }
}

/// fio 3.33 reads one `random_distribution` for both directions: its word is the text
/// before the first `,` (parse.c `opt_len`), so `zipf:1.2,pareto:0.3` names no word
/// (the valid values on stdout, `failed parsing`, exit 1), `zipf,pareto:0.3` is zipf
/// with the parameter after the first `:` (theta 0.3), `random,zipf:1.2` random.
#[test]
fn a_second_distribution_is_read_as_fio_reads_it() {
    require_fio();
    let d = scratch();
    for v in ["zipf:1.2,pareto:0.3", "zipf:1.2,", "zoned:60/40,50/50"] {
        let opt = format!("--random_distribution={v}");
        let args = ["--name=x", "--rw=randrw", "--size=64k", opt.as_str()];
        let [fio, ours] = both_in(d.path(), &[], &args);
        assert_eq!(fio.0, 1, "{v}: {fio:?}");
        assert!(fio.1.contains("valid values: random"), "{v}: {fio:?}");
        assert_eq!(
            fio.2,
            format!("fio: failed parsing random_distribution={v}\n")
        );
        assert_eq!(ours, fio, "{v}");
    }
    for (v, same_as) in [
        ("zipf,pareto:0.3", "zipf:0.3"),
        ("pareto,zipf:0.2", "pareto:0.2"),
        ("random,zipf:1.2", "random"),
    ] {
        for dist in [v, same_as] {
            let opt = format!("--random_distribution={dist}");
            let args = [
                "--name=a",
                "--filename=f",
                "--rw=randrw",
                "--bs=4k",
                "--size=1m",
                "--randseed=1",
                &opt,
                "--write_iolog=a.log",
            ];
            same_offsets(&args, &["a.log"], usize::MAX);
        }
    }
}
