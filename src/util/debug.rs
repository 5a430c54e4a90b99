//! fio's `--debug=AREA[,AREA…]` trace: the areas fio 3.33 knows (`fio --debug=help`),
//! the set turned on for this process, and the one line form of a trace line, fio's
//! `AREA(8, left) TID(5, left) MESSAGE` on standard output (fio `log.c`). Which events
//! each room traces is its own business; this module only keeps the switch and the form.

use std::sync::atomic::{AtomicU32, Ordering};

/// fio's debug areas, in fio's order (their bit is the index).
pub const AREAS: [&str; 19] = [
    "process",
    "file",
    "io",
    "mem",
    "blktrace",
    "verify",
    "random",
    "parse",
    "diskutil",
    "job",
    "mutex",
    "profile",
    "time",
    "net",
    "rate",
    "compress",
    "steadystate",
    "helperthread",
    "zbd",
];

/// The areas turned on, one bit each ([`AREAS`] order).
static ON: AtomicU32 = AtomicU32::new(0);

/// The lines `fio --debug=help` prints (one line: the areas and `all`).
pub fn help_line() -> String {
    format!("fio: dumping debug options:{},all\n", AREAS.join(","))
}

/// The areas a `--debug` value names, as fio reads it: comma-separated, each area's
/// name at the start of an item (`random`, `all`), `job` as `job:N` (the one job
/// number to trace). `Ok`: (bits, the lines fio prints while reading it); `Err`: the
/// first item that names no area (fio: `debug mask ITEM not found`).
pub fn parse(value: &str) -> Result<(u32, Vec<String>), String> {
    let (mut bits, mut said) = (0u32, Vec::new());
    for item in value.split(',') {
        if item.starts_with("all") {
            said.push("fio: set all debug options".to_string());
            bits = u32::MAX;
            continue;
        }
        let Some(i) = AREAS.iter().position(|a| item.starts_with(a)) else {
            return Err(format!("debug mask {item} not found"));
        };
        if AREAS[i] == "job" {
            let Some(n) = item.split_once(':').map(|x| x.1) else {
                return Err("missing job number".into());
            };
            said.push(format!(
                "fio: set debug jobno {}",
                n.trim().parse::<i64>().unwrap_or(0)
            ));
        } else {
            said.push(format!("fio: set debug option {item}"));
        }
        bits |= 1 << i;
    }
    Ok((bits, said))
}

/// Turn the areas `bits` on for the rest of the process.
pub fn enable(bits: u32) {
    ON.fetch_or(bits, Ordering::Relaxed);
}

/// Whether `area` (a name of [`AREAS`]) is traced.
pub fn on(area: &str) -> bool {
    let bits = ON.load(Ordering::Relaxed);
    bits != 0
        && AREAS
            .iter()
            .position(|a| *a == area)
            .is_some_and(|i| bits & (1 << i) != 0)
}

/// One trace line in fio's form: `AREA     TID   MESSAGE` (a newline added when the
/// message has none).
pub fn line(area: &str, tid: u32, msg: &str) -> String {
    let nl = if msg.ends_with('\n') { "" } else { "\n" };
    format!("{area:<8} {tid:<5} {msg}{nl}")
}

/// Print `msg` as a trace line of `area` (with the calling thread's id) when the area
/// is on; `msg` is made only then.
pub fn trace(area: &str, msg: impl FnOnce() -> String) {
    if on(area) {
        // SAFETY: gettid has no arguments and cannot fail
        let tid = unsafe { libc::gettid() } as u32;
        crate::util::output::write(line(area, tid, &msg()).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_as_fio_reads_them() {
        let (bits, said) = parse("random,process").unwrap();
        assert_eq!(bits, 1 << 6 | 1);
        assert_eq!(
            said,
            [
                "fio: set debug option random",
                "fio: set debug option process"
            ]
        );
        assert_eq!(parse("all").unwrap().0, u32::MAX);
        assert_eq!(parse("job:3").unwrap().1, ["fio: set debug jobno 3"]);
        assert_eq!(parse("job").unwrap_err(), "missing job number");
        assert_eq!(parse("nosuch").unwrap_err(), "debug mask nosuch not found");
        assert!(help_line().starts_with("fio: dumping debug options:process,file,io,"));
        assert!(help_line().ends_with(",zbd,all\n"));
    }

    #[test]
    fn the_line_is_fios() {
        // fio 3.33 `--debug=random`: "random   19560 off rand 259043585"
        assert_eq!(line("random", 19560, "x\n"), "random   19560 x\n");
        assert_eq!(line("io", 7, "y"), "io       7     y\n");
    }
}
