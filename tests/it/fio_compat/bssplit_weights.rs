//! `bssplit` weights and `randseed` values read as fio 3.33 reads them, side by side with
//! the installed fio: weights that do not sum to 100, junk or negative weights (C's
//! `atoi`), sizes left without a weight (`(100 − sum) / n` in unsigned 32-bit
//! arithmetic, wrapping past 100), an empty entry ending the list — each run's
//! `write_iolog` is fio's request by request; over 100 with two sizes left without a
//! weight, fio's two lines and exit 1, on the command line and in a job file. A
//! `randseed` fio reads as a number (negative, a fraction, hex, a unit) seeds the
//! offsets as fio's does; under `randrepeat` a `randseed` leaves a skewed
//! distribution's seed the repeatable one, whatever its value (fio's quirk).

use super::random_offsets::same_offsets;
use crate::util::*;

/// Splits fio 3.33 runs, each with its own reading.
const RUN: &[&str] = &[
    "4k/60:8k/60",
    "4k/60:8k/60:16k",
    "4k/abc:8k/",
    "4k/30:8k/30",
    "4k:8k:16k",
    "4k/-5:8k:16k/20",
    "4k/50::8k/50",
    "4k/250:16k/1.5",
    // no entry (the first is empty): the direction keeps its size
    ":4k/50",
    ":8k/50:4k/50",
];

#[test]
fn bssplit_weights_are_read_as_fio_reads_them() {
    require_fio();
    for split in RUN {
        let bssplit = format!("--bssplit={split}");
        let args = [
            "--name=a",
            "--filename=f",
            "--rw=randread",
            "--size=256k",
            &bssplit,
            "--write_iolog=a.log",
        ];
        same_offsets(&args, &["a.log"], usize::MAX);
    }
}

#[test]
fn bssplit_over_100_with_two_sizes_left_is_refused_as_fio_refuses_it() {
    require_fio();
    let d = scratch();
    let split = "4k/60:8k/60:16k:32k";
    let job = format!("[x]\nrw=randread\nsize=64k\nbssplit={split}\n");
    std::fs::write(d.path().join("j.fio"), job).unwrap();
    let opt = format!("--bssplit={split}");
    for args in [vec!["--name=x", "--size=64k", opt.as_str()], vec!["j.fio"]] {
        let fio = fio_cmd().dir(d.path()).args(&args).run();
        let ours = as_fio(d.path()).dir(d.path()).args(&args).run();
        assert_eq!(fio.code, 1, "{args:?}: {}", fio.dump());
        assert!(
            fio.stderr
                .contains("fio: bssplit percentages add to more than 100%"),
            "{}",
            fio.dump()
        );
        assert_eq!(ours.code, fio.code, "{args:?}: {}", ours.dump());
        assert_eq!(ours.stderr, fio.stderr, "{args:?}");
        assert_eq!(ours.stdout, fio.stdout, "{args:?}");
    }
}

#[test]
fn randseed_values_fio_reads_seed_as_fio_seeds() {
    require_fio();
    // `1e3`: strtoll stops at `e`, no unit starts with it: 1; `0x` alone: 0
    // `10%`: fio's percentage, −1 − 10; below −2⁶³: strtoll's −2⁶³
    for seed in [
        "-1",
        "-5",
        "1.5",
        "0x10",
        "1k",
        "1e3",
        "0x",
        "7e",
        "2k5",
        "10%",
        "0%",
        "-3%",
        "-9223372036854775808",
        "-9223372036854775809",
        "-18446744073709551616",
    ] {
        let randseed = format!("--randseed={seed}");
        let args = [
            "--name=a",
            "--filename=f",
            "--rw=randread",
            "--bs=4k",
            "--size=256k",
            "--randrepeat=0",
            &randseed,
            "--write_iolog=a.log",
        ];
        same_offsets(&args, &["a.log"], usize::MAX);
    }
}

#[test]
fn randseed_under_randrepeat_leaves_a_skewed_distribution_seeded_as_fio_does() {
    require_fio();
    for dist in ["zipf:1.2", "pareto:0.9", "normal:10"] {
        for seed in ["1", "1234"] {
            let distribution = format!("--random_distribution={dist}");
            let randseed = format!("--randseed={seed}");
            let args = [
                "--name=a",
                "--filename=f",
                "--rw=randread",
                "--size=1m",
                &distribution,
                &randseed,
                "--write_iolog=a.log",
            ];
            same_offsets(&args, &["a.log"], usize::MAX);
        }
    }
}

#[test]
fn randseed_past_a_signed_64_bit_number_is_refused_as_fio_refuses_it() {
    require_fio();
    let d = scratch();
    // strtoll's ERANGE: fio refuses the digits past 2^63 - 1, whatever a unit adds
    for seed in ["18446744073709551615", "9223372036854775808"] {
        let job = format!("[x]\nrw=randread\nsize=64k\nrandseed={seed}\n");
        let opt = format!("--randseed={seed}");
        let args = [vec!["--name=x", "--size=64k", opt.as_str()], vec!["j.fio"]];
        for args in args {
            let [fio, ours] = both_in(d.path(), &[("j.fio", &job)], &args);
            assert_eq!(fio.0, 1, "{args:?}: {fio:?}");
            assert!(
                fio.2
                    .contains(&format!("fio: failed parsing randseed={seed}")),
                "{fio:?}"
            );
            assert_eq!(ours, fio, "{args:?}");
        }
    }
}
