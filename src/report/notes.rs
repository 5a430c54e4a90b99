//! iomark's own notes printed after the compatible report (never inside it): the
//! page-cache honesty check, where the time went and what the device did
//! (report/why.rs), the truth warnings and the end-of-test sync ([`Notes`], over a fileio result).
//! Sizes use binary units (KiB = 1024), labelled.

use crate::report::{ReportError, Reporter};
use crate::result::{PageCacheCheck, RunResult, Status};
use crate::util::text::iec;

/// The notes block after fileio's report: the page-cache lines, and with
/// `--file-fsync-end` in a writing mode the time of the final sync (not after a signal).
/// Empty when there is nothing to say.
pub struct Notes;

impl Reporter for Notes {
    fn render(&self, r: &RunResult) -> Result<Vec<u8>, ReportError> {
        let mut lines = r
            .page_cache
            .as_ref()
            .map(page_cache_lines)
            .unwrap_or_default();
        // where the time went, the fsync row, the device view
        let why = crate::report::why::lines(r);
        if lines.is_empty() && !why.is_empty() {
            lines.push(NOTES_HEADER.into());
        }
        lines.extend(why);
        let truth: Vec<_> = crate::result::truth::text_lines(r)
            .into_iter()
            .map(|l| warned_before(l, r.page_cache.as_ref()))
            .collect();
        if lines.is_empty() && !truth.is_empty() {
            lines.push(NOTES_HEADER.into());
        }
        lines.extend(truth.iter().map(|l| format!("  {l}")));
        let writes = r.job.test_mode.is_some_and(|m| m.writes());
        let ran_out = matches!(r.status, Status::Ok | Status::ForcedShutdown);
        if r.job.fsync_end && writes && ran_out {
            if lines.is_empty() {
                lines.push(NOTES_HEADER.into());
            }
            let longest = r.threads.iter().map(|t| t.end_fsync_ns).max();
            lines.push(end_fsync_line(longest.unwrap_or(0)));
        }
        Ok(lines
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes())
    }
}

/// The fits-in-RAM warning's line in the notes: `fileio` printed it whole on stderr
/// before the run (run/sysbench/run.rs `cache_notes`, under the same `--notes`), so here
/// it is a short reference with the figures, `iomark: WARNING [page_cache.fits_in_ram]:
/// as warned before the run (the buffered file set, 64.0 MiB, is smaller than RAM,
/// 24.0 GiB)`, not the same sentence twice. Every other line as it is.
fn warned_before(line: String, pc: Option<&PageCacheCheck>) -> String {
    use crate::result::truth::{text_line, FITS_IN_RAM};
    match pc {
        Some(c) if line.starts_with(&text_line(FITS_IN_RAM, "")) => text_line(
            FITS_IN_RAM,
            &format!(
                "as warned before the run (the buffered file set, {}, is smaller than RAM, {})",
                iec(c.file_set_bytes),
                iec(c.mem_total_bytes.unwrap_or(0))
            ),
        ),
        _ => line,
    }
}

/// First line of iomark's notes block after a sysbench-compatible report.
pub const NOTES_HEADER: &str = "iomark notes (not part of sysbench's report):";

/// The end-of-test sync note of `fileio` (public case C15: "the summary shows how long
/// the final sync took"): `longest_ns` is the longest thread's time in its end syncs,
/// which the `total time` of the report includes. Milliseconds, 3 decimals.
pub fn end_fsync_line(longest_ns: u64) -> String {
    format!(
        "  end fsync: {:.3} ms (inside the total time above)",
        longest_ns as f64 / 1e6
    )
}

/// What the test wrote beside what the device wrote over the run. The device's count
/// is device-wide (every process's writes, the filesystem's journal and metadata, the
/// write-back of earlier runs), never said as the test's: more than the test wrote is
/// "other writers included"; less, the rest of the test's writes may still be in the
/// page cache.
fn written_line(app: u64, dev: &str, device: u64) -> String {
    let (a, d) = (iec(app), iec(device));
    if device > app {
        format!("  page cache: the test wrote {a}; over the same time {dev} wrote {d} in all, a device-wide count that includes other processes' writes and the filesystem's own (journal, metadata), not the test's writes alone.")
    } else {
        format!("  page cache: the test wrote {a}; over the same time {dev} wrote {d} in all (a device-wide count, other writers included): the rest of the test's writes may still be in the page cache unless fsynced.")
    }
}

/// Lines of the notes block after the report (empty when there is nothing to say).
pub fn page_cache_lines(c: &PageCacheCheck) -> Vec<String> {
    let mut v = vec![];
    if let Some(fs) = &c.memory_fs {
        v.push(format!("  page cache: the file set is on {fs} (memory): these numbers measure RAM, not a storage device."));
    } else if c.buffered {
        // fits in RAM is said once, by its truth warning (result/truth.rs, FITS_IN_RAM)
        let dev = c.device.clone().unwrap_or_else(|| "the device".into());
        // the share of the reads from memory is said once: by its warning when it has one
        let warned = crate::result::truth::reads_from_memory_warning(c).is_some();
        match (c.device_read_bytes, c.read_served_from_memory_pct) {
            _ if warned => {}
            (_, Some(pct)) if c.process_read_bytes.is_some() => v.push(format!(
                "  page cache: the test read {}, of which this process read {} from storage (/proc/self/io): {:.1}% of the reads were served from memory.",
                iec(c.app_read_bytes),
                iec(c.process_read_bytes.unwrap_or(0)),
                crate::result::truth::exact_pct(pct)
            )),
            (Some(dr), Some(_)) if dr >= c.app_read_bytes => v.push(format!(
                "  page cache: the test read {}, {dev} read {} (device-wide counters include other processes): cannot tell how much came from memory.",
                iec(c.app_read_bytes),
                iec(dr)
            )),
            // a lower bound is printed rounded down: 99.995 % is "at least 99.9%"
            (Some(dr), Some(pct)) => v.push(format!(
                "  page cache: the test read {}, {dev} read {}: at least {:.1}% of the reads were served from memory (device-wide counters).",
                iec(c.app_read_bytes),
                iec(dr),
                crate::result::truth::lower_bound_pct(pct)
            )),
            _ if c.device.is_none() && c.app_read_bytes > 0 => {
                v.push("  page cache: no block-device counters for this filesystem; cannot tell how much the device read.".into())
            }
            _ => {}
        }
        if let (Some(dw), true) = (c.device_written_bytes, c.app_written_bytes > 0) {
            v.push(written_line(c.app_written_bytes, &dev, dw));
        }
    }
    if !v.is_empty() {
        v.insert(0, NOTES_HEADER.into());
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_fsync_line_is_in_ms_with_3_decimals() {
        assert_eq!(
            end_fsync_line(314_750_123),
            "  end fsync: 314.750 ms (inside the total time above)"
        );
        assert_eq!(
            end_fsync_line(0),
            "  end fsync: 0.000 ms (inside the total time above)"
        );
    }

    /// A buffered 64 MiB set read 4 GiB, all from memory (vda read nothing).
    fn cached_64m() -> PageCacheCheck {
        PageCacheCheck {
            file_set_bytes: 64 << 20,
            buffered: true,
            mem_total_bytes: Some(24 << 30),
            fits_in_ram: true,
            device: Some("vda".into()),
            app_read_bytes: 4 << 30,
            device_read_bytes: Some(0),
            read_served_from_memory_pct: Some(100.0),
            ..Default::default()
        }
    }

    /// Reads served from memory for 50 % or more: said once, by the truth warning (the
    /// RAM fit too), not by a notes line of their own.
    #[test]
    fn cached_reads_are_said_once_by_their_warning() {
        let c = cached_64m();
        assert!(
            page_cache_lines(&c).is_empty(),
            "{:?}",
            page_cache_lines(&c)
        );
        let w = crate::result::truth::reads_from_memory_warning(&c).unwrap();
        assert!(
            w.starts_with("the test read 4.0 GiB, the device 0 B: at least 100.0% of the reads"),
            "{w}"
        );
    }

    /// This process's own reads from storage (`/proc/self/io`) give the exact share,
    /// whatever the device-wide counters say (another process read 8 GiB on vda); under
    /// the warning's 50 % the notes say it, with units.
    #[test]
    fn the_process_counters_give_the_share_without_at_least() {
        let mut c = cached_64m();
        c.device_read_bytes = Some(8 << 30);
        c.process_read_bytes = Some(3 << 30);
        c.read_served_from_memory_pct = Some(25.0);
        let l = page_cache_lines(&c);
        assert_eq!(l[0], "iomark notes (not part of sysbench's report):");
        assert_eq!(l[1], "  page cache: the test read 4.0 GiB, of which this process read 3.0 GiB from storage (/proc/self/io): 25.0% of the reads were served from memory.");
    }

    /// "at least" is a lower bound: its figure is rounded down, never up.
    #[test]
    fn the_lower_bound_is_rounded_down() {
        let mut c = cached_64m();
        c.device_read_bytes = Some(2 << 30);
        c.read_served_from_memory_pct = Some(49.995);
        let l = page_cache_lines(&c);
        assert_eq!(l[1], "  page cache: the test read 4.0 GiB, vda read 2.0 GiB: at least 49.9% of the reads were served from memory (device-wide counters).");
    }

    /// The notes of one run refer to the fits-in-RAM warning `fileio` printed whole
    /// before the run (the fresh-user pass saw the same sentence at the start and in the
    /// notes): its id and figures, not its sentence again.
    #[test]
    fn notes_refer_to_the_fits_in_ram_warning_before_the_run() {
        let mut i = crate::result::build::Inputs::new("fileio", &[], Status::Ok);
        i.page_cache = Some(cached_64m());
        let r = crate::result::build::build(i);
        let text = String::from_utf8(Notes.render(&r).unwrap()).unwrap();
        assert_eq!(text.matches("fits in RAM").count(), 0, "{text}");
        assert!(
            text.contains("  iomark: WARNING [page_cache.fits_in_ram]: as warned before the run (the buffered file set, 64.0 MiB, is smaller than RAM, 24.0 GiB)\n"),
            "{text}"
        );
        // the other warnings as they are
        assert!(
            text.contains("iomark: WARNING [page_cache.reads_from_memory]: the test read 4.0 GiB"),
            "{text}"
        );
    }

    /// The fresh-user pass read `the test wrote 14.4 MiB, vda wrote 276.6 MiB` as if the
    /// test caused the device's writes: the device's count is said as device-wide, other
    /// writers included, and only a count under the test's says "still in the page cache".
    #[test]
    fn the_device_write_count_is_not_said_as_the_tests() {
        let c = |dw: u64| PageCacheCheck {
            file_set_bytes: 16 << 20,
            buffered: true,
            device: Some("vda".into()),
            app_written_bytes: 14 << 20,
            device_written_bytes: Some(dw),
            ..Default::default()
        };
        let l = page_cache_lines(&c(276 << 20));
        assert_eq!(l[1], "  page cache: the test wrote 14.0 MiB; over the same time vda wrote 276.0 MiB in all, a device-wide count that includes other processes' writes and the filesystem's own (journal, metadata), not the test's writes alone.");
        let l = page_cache_lines(&c(4 << 20));
        assert_eq!(l[1], "  page cache: the test wrote 14.0 MiB; over the same time vda wrote 4.0 MiB in all (a device-wide count, other writers included): the rest of the test's writes may still be in the page cache unless fsynced.");
    }

    #[test]
    fn device_reading_more_than_the_test_is_not_attributed() {
        let c = PageCacheCheck {
            file_set_bytes: 1 << 20,
            buffered: true,
            device: Some("vda".into()),
            app_read_bytes: 1 << 20,
            device_read_bytes: Some(8 << 20),
            read_served_from_memory_pct: Some(0.0),
            ..Default::default()
        };
        let l = page_cache_lines(&c);
        assert!(
            l[1].contains("cannot tell how much came from memory"),
            "{l:?}"
        );
    }

    #[test]
    fn direct_io_on_a_device_says_nothing() {
        let c = PageCacheCheck {
            buffered: false,
            device: Some("vda".into()),
            ..Default::default()
        };
        assert!(page_cache_lines(&c).is_empty());
    }

    #[test]
    fn tmpfs_is_memory() {
        let c = PageCacheCheck {
            buffered: true,
            memory_fs: Some("tmpfs".into()),
            ..Default::default()
        };
        assert!(page_cache_lines(&c)[1].contains("tmpfs (memory)"));
    }
}
