//! sysbench 1.0.20 fileio's lines about the job, printed before any result exists:
//! prepare's first and last lines and `run`'s header (general part, then fileio's),
//! pinned by the transcripts in tests/it/sysbench_compat/. They read the one job model
//! (what the job's threads do, in sysbench's words: `work.labels`) and, for the
//! general part, the command's console settings, so
//! they live here, beside the schedule that prints them, with iomark's warning before a
//! buffered run whose file set fits in RAM ([`fits_in_ram_warning`]); what is printed
//! over a result (the final report) is report/sysbench.rs, the interval lines'
//! wording progress.rs.

use crate::job::model::Job;
use crate::job::sysbench::{ExtraFlags, Geometry, Settings};
use crate::job::thread::Pace;
use crate::job::units::sysbench_human_size;

/// First line of prepare: `<N> files, <FS div 1024>Kb each, <(FS×N) div 1048576>Mb total`
/// (sysbench's truncating format, kept for compatibility).
pub fn prepare_summary(g: &Geometry) -> String {
    format!(
        "{} files, {}Kb each, {}Mb total",
        g.files,
        g.file_size / 1024,
        g.total / 1_048_576
    )
}

/// Last line of prepare: `<W> bytes written in <S> seconds (<R> MiB/sec).` with R =
/// W / 1048576 / S, or `No bytes written.`.
pub fn prepare_done(bytes: u64, seconds: f64) -> String {
    if bytes == 0 {
        return "No bytes written.".into();
    }
    let rate = if seconds > 0.0 {
        bytes as f64 / 1_048_576.0 / seconds
    } else {
        0.0
    };
    format!("{bytes} bytes written in {seconds:.2} seconds ({rate:.2} MiB/sec).")
}

/// The general part of the `run` header, up to and including its empty lines: the
/// pace, the check and the time limit of `model`, the threads and the console settings
/// of `job` (the call's settings beside the model).
pub fn header_general(job: &Settings, model: &Job) -> Vec<String> {
    let t = &model.thread;
    let mut v = vec![
        "Running the test with following options:".to_string(),
        format!("Number of threads: {}", job.threads),
    ];
    if let Pace::Shared { events } = t.pace {
        v.push(format!("Target transaction rate: {events}/sec"));
    }
    if job.report_interval != 0 {
        v.push(format!(
            "Report intermediate results every {} second(s)",
            job.report_interval
        ));
    }
    if !job.report_checkpoints.is_empty() {
        let l: Vec<String> = job.report_checkpoints.iter().map(u64::to_string).collect();
        v.push(format!("Report checkpoint(s) at {} seconds", l.join(", ")));
    }
    if job.debug {
        v.push("Debug mode enabled.".into());
        v.push(String::new());
    }
    if t.validate {
        v.push("Validation checks: on.".into());
        v.push(String::new());
    }
    if job.rand_seed != 0 {
        v.push(format!(
            "Initializing random number generator from seed ({}).",
            job.rand_seed
        ));
    } else {
        v.push("Initializing random number generator from current time".into());
    }
    v.push(String::new());
    if let Some(s) = job.forced_shutdown {
        let time = t.time.map_or(0, |d| d.as_secs());
        v.push(format!("Forcing shutdown in {} seconds", time + s));
    }
    v.push(String::new());
    v
}

/// The fileio part of the `run` header: `model` (the job in the one job model, with
/// sysbench's words in `work.labels`) over the file set `g`.
pub fn header_fileio(model: &Job, g: &Geometry) -> Vec<String> {
    let (t, w) = (&model.thread, &model.work);
    let flags = ExtraFlags::of(t);
    let mut v = vec![
        format!("Extra file open flags: {}", flags.describe()),
        format!(
            "{} files, {}B each",
            g.files,
            sysbench_human_size(g.file_size as f64)
        ),
        format!("{}B total file size", sysbench_human_size(g.total as f64)),
        format!("Block size {}B", sysbench_human_size(g.block as f64)),
    ];
    if w.pick.merged > 0 {
        v.push(format!(
            "Merging requests up to {}B for sequential IO.",
            sysbench_human_size(g.request as f64)
        ));
    }
    if w.pick.rw.random() {
        v.push(format!("Number of IO requests: {}", t.ios.unwrap_or(0)));
        v.push(format!(
            "Read/Write ratio for combined random IO test: {}",
            c_fixed2(w.labels.rw_ratio)
        ));
    }
    if w.syncs.series_every > 0 {
        v.push(format!(
            "Periodic FSYNC enabled, calling fsync() each {} requests.",
            w.syncs.series_every
        ));
    }
    if t.syncs.at_end {
        v.push("Calling fsync() at the end of test, Enabled.".into());
    }
    if t.syncs.each_write {
        v.push("Calling fsync() after each write operation.".into());
    }
    v.push(format!("Using {} I/O mode", w.labels.io_mode));
    if t.validate {
        v.push("Using checksums validation.".into());
    }
    v.push(format!("Doing {} test", w.labels.test));
    v
}

/// The warning printed (to stderr) before a buffered run whose file set fits in RAM,
/// with its stable id as in the notes (`None` when the cache serves nothing the test
/// measures, see [`crate::result::truth::fits_in_ram_text`]).
pub fn fits_in_ram_warning(
    file_set: u64,
    mem_total: u64,
    used: crate::result::truth::CacheUse,
) -> Option<String> {
    let m = crate::result::truth::fits_in_ram_text(file_set, mem_total, used)?;
    Some(crate::result::truth::text_line(
        crate::result::truth::FITS_IN_RAM,
        &m,
    ))
}

/// `v` as C's `printf("%.2f")` prints it: `nan` or `-nan` for a NaN (a ratio the
/// `sysbench` persona reads as sysbench does), `inf`, else two decimals.
fn c_fixed2(v: f64) -> String {
    match v {
        _ if v.is_nan() && v.is_sign_negative() => "-nan".into(),
        _ if v.is_nan() => "nan".into(),
        _ => format!("{v:.2}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_lines() {
        let g = Geometry {
            files: 128,
            file_size: 512 << 10,
            raw_file_size: 512 << 10,
            total: 64 << 20,
            block: 16384,
            request: 16384,
        };
        assert_eq!(prepare_summary(&g), "128 files, 512Kb each, 64Mb total");
        assert_eq!(
            prepare_done(67108864, 0.47),
            "67108864 bytes written in 0.47 seconds (136.17 MiB/sec)."
        );
        assert_eq!(prepare_done(0, 0.1), "No bytes written.");
    }

    /// The general header, line for line as sysbench 1.0.20 prints it, from the
    /// settings and the model the options translate into.
    #[test]
    fn the_general_header_reads_the_settings_and_the_model() {
        let mut j = crate::job::sysbench::tests::job(64 << 20, 4, 16384);
        let f = j.translate();
        assert_eq!(
            header_general(&f.settings, &f.model),
            [
                "Running the test with following options:",
                "Number of threads: 1",
                "Initializing random number generator from current time",
                "",
                "",
            ]
        );
        (
            j.settings.threads,
            j.settings.report_interval,
            j.rate,
            j.settings.debug,
        ) = (4, 2, 500, true);
        (j.settings.report_checkpoints, j.validate) = (vec![5, 10], true);
        (
            j.settings.rand_seed,
            j.settings.forced_shutdown,
            j.time_limit,
        ) = (7, Some(3), 10);
        let f = j.translate();
        assert_eq!(
            header_general(&f.settings, &f.model),
            [
                "Running the test with following options:",
                "Number of threads: 4",
                "Target transaction rate: 500/sec",
                "Report intermediate results every 2 second(s)",
                "Report checkpoint(s) at 5, 10 seconds",
                "Debug mode enabled.",
                "",
                "Validation checks: on.",
                "",
                "Initializing random number generator from seed (7).",
                "",
                "Forcing shutdown in 13 seconds",
                "",
            ]
        );
    }

    /// The fileio header of a random and a sequential job, line for line as sysbench
    /// 1.0.20 prints them, from the model its options translate into.
    #[test]
    fn the_fileio_header_reads_the_model() {
        use crate::job::sysbench::{IoMode, TestMode};
        let mut s = crate::job::sysbench::tests::job(64 << 20, 4, 16384);
        (s.settings.test_mode, s.rw_ratio, s.event_limit) = (Some(TestMode::Rndrw), 2.0, 500);
        s.extra_flags.direct = true;
        let g = s.geometry().unwrap();
        let lines = header_fileio(&s.model(&g), &g);
        // the call translated once prints the same
        assert_eq!(header_fileio(&s.translate().model, &g), lines);
        assert_eq!(
            lines,
            [
                "Extra file open flags: directio",
                "4 files, 16MiB each",
                "64MiB total file size",
                "Block size 16KiB",
                "Number of IO requests: 500",
                "Read/Write ratio for combined random IO test: 2.00",
                "Periodic FSYNC enabled, calling fsync() each 100 requests.",
                "Calling fsync() at the end of test, Enabled.",
                "Using synchronous I/O mode",
                "Doing random r/w test",
            ]
        );
        (s.settings.test_mode, s.merged_requests, s.io_mode) =
            (Some(TestMode::Seqwr), 2, IoMode::Mmap);
        (s.fsync_all, s.fsync_freq, s.fsync_end, s.validate) = (true, 0, false, true);
        s.extra_flags.direct = false;
        let g = s.geometry().unwrap();
        let lines = header_fileio(&s.model(&g), &g);
        assert_eq!(
            lines,
            [
                "Extra file open flags: (none)",
                "4 files, 16MiB each",
                "64MiB total file size",
                "Block size 16KiB",
                "Merging requests up to 32KiB for sequential IO.",
                "Calling fsync() after each write operation.",
                "Using fast mmaped I/O mode",
                "Using checksums validation.",
                "Doing sequential write (creation) test",
            ]
        );
    }
}
