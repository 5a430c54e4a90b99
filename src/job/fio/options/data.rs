//! Options of fio's groups "Verify" (checksums, patterns, verify while writing), "I/O
//! buffers" (contents of the write buffers: zeros, refills, compressibility, dedupe) and
//! "Error handling" (`continue_on_error`, `ignore_error`). The run side is
//! `run/verify/fio.rs`, `run/fio/dedupe.rs` and `run/fio/errors.rs`.

use super::{FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::extra::DedupeMode;
use crate::job::fio::keys::{parse_fill_pattern, parse_pattern};
use crate::job::fio::keys_verify::parse_ignore_error;
use crate::job::fio::keys_verify::VerifyKind;
use crate::job::fio::FioError;
use crate::job::units;

type R = Result<(), FioError>;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job("verify", Group::Verify, Kind::Str, "Verify data written", verify)
        .default("0")
        .values(&[
            ("0", "Don't do IO verification"),
            ("none", "Alias for '0'"),
            ("md5", "Use md5 checksums for verification"),
            ("crc64", "Use crc64 checksums for verification"),
            ("crc32c-intel", "Use crc32c checksums for verification (hw assisted, if available)"),
            ("crc32c", "Use crc32c checksums for verification (hw assisted, if available)"),
            ("sha256", "Use sha256 checksums for verification"),
            ("xxhash", "Use xxhash checksums for verification"),
            ("xxhash64", "Alias for 'xxhash'"),
            ("meta", "Use io information for verification"),
            ("pattern", "Verify strict pattern"),
        ])
        .example("crc32c")
        .shows_values(FIO_VERIFY).fio_job(66, OptType::Str),
    FioOption::job("verify_pattern", Group::Verify, Kind::Str, "Fill pattern for IO buffers", verify_pattern)
        .example("0xdeadbeef")
        .parent("verify").fio_job(72, OptType::Str).callback(),
    FioOption::job("do_verify", Group::Verify, Kind::Bool, "Run verification stage after write", do_verify)
        .default("1")
        .parent("verify").fio_job(67, OptType::Bool),
    FioOption::job("verify_fatal", Group::Verify, Kind::Bool, "Exit on a single verify failure, don't continue", verify_fatal)
        .default("0")
        .parent("verify").fio_job(73, OptType::Bool),
    FioOption::job("verify_backlog", Group::Verify, Kind::Str, "Verify after this number of blocks are written", verify_backlog)
        .example("16")
        .parent("verify").fio_job(76, OptType::StrVal),
    FioOption::job("verify_backlog_batch", Group::Verify, Kind::Int, "Verify this number of IO blocks", verify_backlog_batch)
        .range(0, -1)
        .example("8")
        .parent("verify").fio_job(77, OptType::Int),
    FioOption::job("verify_interval", Group::Verify, Kind::Int, "Store verify buffer header every N bytes", verify_interval)
        // fio's minimum: two verify headers of its own (2 × 40 bytes)
        .range(FIO_MIN_VERIFY_INTERVAL as i64, -1)
        .example("512").parent("verify")
        .fio_job(70, OptType::Int),
    FioOption::job("verify_write_sequence", Group::Verify, Kind::Bool, "Verify header write sequence number", verify_write_sequence)
        .default("1"),
    FioOption::job("verify_dump", Group::Verify, Kind::Bool, "Dump contents of good and bad blocks on failure", verify_dump)
        .default("0")
        .parent("verify").fio_job(74, OptType::Bool),
    FioOption::job("verify_async", Group::Verify, Kind::Int, "Number of async verifier threads to use", verify_async)
        .default("0")
        .range(0, -1)
        .example("0")
        .parent("verify").fio_job(75, OptType::Int),
    FioOption::job("experimental_verify", Group::Verify, Kind::Bool, "Enable experimental verification", experimental_verify)
        .parent("verify")
        .fio_job(79, OptType::Bool),
    FioOption::job("verify_state_save", Group::Verify, Kind::Bool, "Save verify state on termination", verify_state_save)
        .default("1")
        .parent("verify").fio_job(81, OptType::Bool),
    FioOption::job("verify_state_load", Group::Verify, Kind::Bool, "Load verify termination state", verify_state_load)
        .parent("verify").fio_job(80, OptType::Bool),
    FioOption::job("buffer_pattern", Group::Buffers, Kind::Str, "Fill pattern for IO buffers", buffer_pattern)
        .example("\"abcd\"-120xdeadface").fio_job(188, OptType::Str).callback(),
    FioOption::job("zero_buffers", Group::Buffers, Kind::Flag, "Init IO buffers to all zeroes", zero_buffers).fio_job(185, OptType::StrSet),
    FioOption::job("refill_buffers", Group::Buffers, Kind::Flag, "Refill IO buffers on every IO submit", refill_buffers).fio_job(186, OptType::StrSet),
    FioOption::job("buffer_compress_percentage", Group::Buffers, Kind::Int, "How compressible the buffer is (approximately)", buffer_compress_percentage)
        .range(0, 100)
        .example("50").fio_job(189, OptType::Int).callback(),
    FioOption::job("dedupe_percentage", Group::Buffers, Kind::Int, "Percentage of buffers that are dedupable", dedupe_percentage)
        .range(0, 100)
        .example("25").fio_job(191, OptType::Int).callback(),
    FioOption::job("dedupe_mode", Group::Buffers, Kind::Str, "Mode for the deduplication buffer generation", dedupe_mode)
        .default("repeat")
        .values(&[
            ("repeat", "repeat previous page"),
            ("working_set", "choose a page randomly from limited working set defined in dedupe_working_set_percentage"),
        ])
        .example("working_set")
        .parent("dedupe_percentage").fio_job(193, OptType::Str),
    FioOption::job("dedupe_working_set_percentage", Group::Buffers, Kind::Int, "Dedupe working set size in percentages from file or device size used to generate dedupe patterns from", dedupe_working_set_percentage)
        .default("5")
        .range(0, 100)
        .example("10")
        .parent("dedupe_percentage").fio_job(194, OptType::Int),
    FioOption::job("dedupe_global", Group::Buffers, Kind::Bool, "Share deduplication buffers across jobs", dedupe_global)
        .default("0").fio_job(192, OptType::Bool),
    FioOption::job("continue_on_error", Group::Errors, Kind::Str, "Continue on non-fatal errors during IO", continue_on_error)
        .default("none")
        .values(&[
            ("none", "Exit when an error is encountered"),
            ("read", "Continue on read errors only"),
            ("write", "Continue on write errors only"),
            ("io", "Continue on any IO errors"),
            ("verify", "Continue on verify errors only"),
            ("all", "Continue on all io and verify errors"),
            ("0", "Alias for 'none'"),
            ("1", "Alias for 'all'"),
        ])
        .example("io").fio_job(208, OptType::Str),
    FioOption::job("ignore_error", Group::Errors, Kind::Str, "Set a specific list of errors to ignore", ignore_error)
        .example("EIO,ENOSPC:122")
        .parent("rw").fio_job(209, OptType::Str).callback(),
    FioOption::job("error_dump", Group::Errors, Kind::Bool, "Dump info on each error", error_dump)
        .default("0").fio_job(210, OptType::Bool),
];

fn verify(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?.trim();
    c.job.more.verify = match v {
        "0" | "none" => None,
        "crc32c-intel" => Some(VerifyKind::Crc32c),
        "xxhash64" => Some(VerifyKind::Xxhash),
        _ => Some(
            VerifyKind::ALL
                .into_iter()
                .find(|k| k.name() == v)
                .ok_or_else(|| c.bad(v, verify_accepted()))?,
        ),
    };
    Ok(())
}

/// The values `verify=` takes, for its error (fio 3.33 has no sha224 nor sha384).
fn verify_accepted() -> String {
    let names: Vec<&str> = VerifyKind::ALL.iter().map(|k| k.name()).collect();
    format!("accepted: {}, crc32c-intel, none", names.join(", "))
}

/// fio's pattern, where `%o` (outside quotes) stands for the block's offset: 8 bytes
/// pasted into each block's copy (positions kept in `tuning.verify_pattern_fmt`).
fn verify_pattern(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    if !v.contains("%o") {
        c.job.more.verify_pattern = parse_pattern(v).map_err(|e| c.bad(v, e))?;
        c.job.tuning.verify_pattern_fmt.clear();
        return Ok(());
    }
    let (mut bytes, mut at) = (Vec::new(), Vec::new());
    for (i, part) in v.trim().split("%o").enumerate() {
        if i > 0 {
            at.push(bytes.len());
            bytes.extend_from_slice(&[0; 8]);
        }
        if !part.is_empty() {
            let p = parse_fill_pattern(part).map_err(|e| c.bad(v, e))?;
            bytes.extend_from_slice(&p);
        }
    }
    c.job.more.verify_pattern = bytes;
    c.job.tuning.verify_pattern_fmt = at;
    Ok(())
}

fn buffer_pattern(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.buffer_pattern = parse_fill_pattern(v).map_err(|e| c.bad(v, e))?;
    Ok(())
}

/// `verify_backlog=N`: N blocks, a size suffix as fio 3.33 reads one (`1m`: 1048576
/// blocks, the job's `kb_base`).
fn verify_backlog(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let kb = c.job.kb_base;
    c.job.more.x.verify_backlog = units::fio_size(v, kb).map_err(|e| c.bad(v, e))?;
    Ok(())
}

fn verify_backlog_batch(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.x.verify_backlog_batch = Some(c.need_u64(v)?);
    Ok(())
}

/// fio 3.33's minimum `verify_interval` (options.c: twice its verify header).
const FIO_MIN_VERIFY_INTERVAL: u64 = 80;

/// `verify_interval=N`: N bytes (`kb_base` 1024 whatever the job's), at least fio's
/// minimum (above iomark's own header, `VERIFY_HEADER`).
fn verify_interval(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = units::fio_size(v, 1024).map_err(|e| c.bad(v, e))?;
    if n < FIO_MIN_VERIFY_INTERVAL {
        return Err(c.bad(
            v,
            format!("at least {FIO_MIN_VERIFY_INTERVAL} bytes (fio's minimum)"),
        ));
    }
    c.job.more.x.verify_interval = Some(n);
    Ok(())
}

fn verify_write_sequence(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.x.verify_write_sequence = Some(c.bool(v)?);
    Ok(())
}

fn verify_async(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    c.job.more.x.verify_async = u32::try_from(n).map_err(|_| c.bad(v, "a thread count"))?;
    if n > 0 {
        c.notice(format!(
            "notice: verify_async={n}: iomark verifies inline in each job thread (no verifier threads); the option has no effect"
        ));
    }
    Ok(())
}

fn buffer_compress_percentage(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.buffer_compress_percentage = c.need_at_most(v, 100, "a percentage 0-100")? as u32;
    Ok(())
}

fn dedupe_percentage(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.extra.dedupe_percentage = c.need_at_most(v, 100, "a percentage 0-100")? as u32;
    Ok(())
}

fn dedupe_mode(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.extra.dedupe_mode = match v.trim() {
        "repeat" => DedupeMode::Repeat,
        "working_set" => DedupeMode::WorkingSet,
        _ => return Err(c.bad(v, "accepted: repeat, working_set")),
    };
    Ok(())
}

fn dedupe_working_set_percentage(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.extra.dedupe_working_set_percentage =
        c.need_at_most(v, 100, "a percentage 0-100")? as u32;
    Ok(())
}

fn continue_on_error(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.continue_on_error =
        crate::job::fio::on_error::ContinueOnError::parse(v).map_err(|e| c.bad(v, e))?;
    Ok(())
}

fn ignore_error(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.more.x.ignore_error = parse_ignore_error(v).map_err(|e| c.bad(v, e))?;
    // fio's `ignore_error_type`: each kind with a list is added to `continue_on_error`
    // (a later `continue_on_error=` replaces the set)
    use crate::job::model::ErrorClass::{Read, Verify, Write};
    for (list, class) in c.job.more.x.ignore_error.iter().zip([Read, Write, Verify]) {
        if list.is_some() {
            c.job.more.continue_on_error = c.job.more.continue_on_error.with(class);
        }
    }
    if c.job.more.x.ignore_error[2].is_some() {
        c.notice(
            "notice: ignore_error: the VERIFY list has no effect in iomark: a read job stops at a verify mismatch unless continue_on_error covers verify; a writing job counts its mismatches and fails (verify_fatal=1 stops it at once)".into(),
        );
    }
    Ok(())
}

bool_keys! {
    do_verify => more.do_verify;
    verify_fatal => more.verify_fatal;
    verify_dump => more.x.verify_dump;
    experimental_verify => more.x.experimental_verify;
    verify_state_save => more.x.verify_state_save;
    verify_state_load => more.x.verify_state_load;
    zero_buffers => more.zero_buffers;
    refill_buffers => more.refill_buffers;
    dedupe_global => extra.dedupe_global;
    error_dump => more.x.error_dump;
}

/// The checksums fio 3.33's `--cmdhelp=verify` lists (its build's, in its order).
const FIO_VERIFY: &[(&str, &str)] = &[
    ("0", "Don't do IO verification"),
    ("md5", "Use md5 checksums for verification"),
    ("crc64", "Use crc64 checksums for verification"),
    ("crc32", "Use crc32 checksums for verification"),
    ("crc32c-intel", "Use crc32c checksums for verification (hw assisted, if available)"),
    ("crc32c", "Use crc32c checksums for verification (hw assisted, if available)"),
    ("crc16", "Use crc16 checksums for verification"),
    ("crc7", "Use crc7 checksums for verification"),
    ("sha1", "Use sha1 checksums for verification"),
    ("sha256", "Use sha256 checksums for verification"),
    ("sha512", "Use sha512 checksums for verification"),
    ("sha3-224", "Use sha3-224 checksums for verification"),
    ("sha3-256", "Use sha3-256 checksums for verification"),
    ("sha3-384", "Use sha3-384 checksums for verification"),
    ("sha3-512", "Use sha3-512 checksums for verification"),
    ("xxhash", "Use xxhash checksums for verification"),
    ("meta", "Use io information for verification. Now is implied by default, thus option is obsolete, don't use it"),
    ("pattern", "Verify strict pattern"),
    ("null", "Pretend to verify"),
];
