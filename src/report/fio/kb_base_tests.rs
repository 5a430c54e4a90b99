//! `kb_base=1000` and `unit_base=1` figures of the text report, pinned on a constructed
//! job (4 MiB read in 1 ms) to fio 3.33's lines for the same run; tests/it/fio_compat/
//! kb_base.rs compares the shapes with fio's own output.

use super::normal_text;
use super::num::TextUnits;
use crate::run::fio::JobStats;

fn job_4mib_in_1ms(units: TextUnits) -> JobStats {
    let mut j = JobStats {
        name: "a".into(),
        threads: 1,
        units,
        runtime_ns: 1_000_000,
        engine: "null",
        ..JobStats::default()
    };
    j.read.ios = 1024;
    j.read.bytes = 4 << 20;
    j
}

/// fio 3.33's lines for 4 MiB read in 1 ms (null engine, `--size=4m --bs=4k`).
#[test]
fn figures_are_fios() {
    let cases = [
        (
            TextUnits { decimal: true, bits: false },
            "  read: IOPS=1024k, BW=4194MB/s (4000MiB/s)(4194kB/1msec)",
            "   READ: bw=4194MB/s (4000MiB/s), 4194MB/s-4194MB/s (4000MiB/s-4000MiB/s), io=4194kB (4096KiB), run=1-1msec",
        ),
        (
            TextUnits { decimal: false, bits: true },
            "  read: IOPS=1024k, BW=31.2Gibit/s (33.6Gbit/s)(4096KiB/1msec)",
            "   READ: bw=31.2Gibit/s (33.6Gbit/s), 31.2Gibit/s-31.2Gibit/s (33.6Gbit/s-33.6Gbit/s), io=4096KiB (4194kB), run=1-1msec",
        ),
        (
            TextUnits { decimal: true, bits: true },
            "  read: IOPS=1024k, BW=33.6Gbit/s (31.2Gibit/s)(4194kB/1msec)",
            "   READ: bw=33.6Gbit/s (31.2Gibit/s), 33.6Gbit/s-33.6Gbit/s (31.2Gibit/s-31.2Gibit/s), io=4194kB (4096KiB), run=1-1msec",
        ),
    ];
    for (units, job_line, group_line) in cases {
        let t = normal_text(&[job_4mib_in_1ms(units)]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines.contains(&job_line), "{units:?}:\n{t}");
        assert!(lines.contains(&group_line), "{units:?}:\n{t}");
    }
}
