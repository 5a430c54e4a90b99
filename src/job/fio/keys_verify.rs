//! Values of fio's keys of verification while writing, error handling and file creation
//! (`verify_backlog[_batch]`, `verify_interval`, `verify_write_sequence`, `verify_dump`,
//! `verify_async`, `ignore_error`, `error_dump`, `fill_device`, `create_serialize`,
//! `atomic`, `allow_file_create`) and the checksum of `verify=` ([`VerifyKind`]): [`VerifyErrorOpts`], the `ignore_error` parser and the
//! checks against the rest of the job (pure, no I/O). The keys themselves are entries of
//! the option table (`job/fio/options/`); the run side is in `run/verify/fio.rs` and
//! `run/fio/errors.rs`.

/// The checksums of `verify=` are the one job model's (`job/model/`), named here too.
pub use crate::job::model::VerifyKind;

/// Options of this module, with fio's defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyErrorOpts {
    /// `verify_backlog`: verify the written blocks after every N blocks written (0: only
    /// after the job's writes, fio's default)
    pub verify_backlog: u64,
    /// `verify_backlog_batch`: blocks verified at each backlog point (default: the
    /// backlog, `verify_backlog`)
    pub verify_backlog_batch: Option<u64>,
    /// `verify_interval`: a verify header every N bytes inside a block (default: one
    /// header per block). fio: "Store verify buffer header every N bytes"
    pub verify_interval: Option<u64>,
    /// `verify_write_sequence` (fio ≥ 3.38): check the write sequence number of the
    /// header; default on, off with `atomic=1` (fio semantics)
    pub verify_write_sequence: Option<bool>,
    /// `verify_dump`: on a mismatch write the received and the expected block to
    /// `<file>.<offset>.received` / `.expected`
    pub verify_dump: bool,
    /// `verify_async`: fio's verifier threads; iomark verifies inline (notice)
    pub verify_async: u32,
    /// `experimental_verify`: fio re-creates the offsets to verify instead of logging
    /// them; iomark verifies from its record of the blocks written either way, so the
    /// blocks verified are the same
    pub experimental_verify: bool,
    /// `ignore_error`: errno lists (read, write, verify) that `continue_on_error` goes on
    /// after; `None`: fio's default list (EIO, EILSEQ). The verify list has no effect
    /// (a notice says so): `continue_on_error` and `verify_fatal` decide
    pub ignore_error: [Option<Vec<i32>>; 3],
    /// `error_dump`: print each error a job continues past (fio default 0)
    pub error_dump: bool,
    /// `fill_device` / `fill_fs`: write until ENOSPC (size ignored), which ends the job
    /// normally
    pub fill_device: bool,
    /// `create_serialize` (default 1)
    pub create_serialize: bool,
    /// `create_fsync` (default 1): fsync a file iomark laid out before the job uses it,
    /// so the new data is on the device and `invalidate` can drop it from the page cache
    pub create_fsync: bool,
    /// `atomic`: RWF_ATOMIC writes; implies direct=1 (fio --cmdhelp=atomic)
    pub atomic: bool,
    /// `allow_file_create` (default 1): 0 makes a missing file an error
    pub allow_file_create: bool,
    /// `create_only`: lay out the files, run no I/O (the job is reported with zeros)
    pub create_only: bool,
    /// `verify_state_save` (fio default 1): a job that writes with `verify=` saves the
    /// writes it completed to `local-NAME-INDEX-verify.state` when it ends
    /// (run/verify/state.rs)
    pub verify_state_save: bool,
    /// `verify_state_load`: a verifying read job loads that state and verifies only
    /// what the write job had completed
    pub verify_state_load: bool,
}

impl Default for VerifyErrorOpts {
    fn default() -> Self {
        VerifyErrorOpts {
            verify_backlog: 0,
            verify_backlog_batch: None,
            verify_interval: None,
            verify_write_sequence: None,
            verify_dump: false,
            verify_async: 0,
            experimental_verify: false,
            ignore_error: [None, None, None],
            error_dump: false,
            fill_device: false,
            create_serialize: true,
            create_fsync: true,
            atomic: false,
            allow_file_create: true,
            create_only: false,
            verify_state_save: true,
            verify_state_load: false,
        }
    }
}

impl VerifyErrorOpts {
    /// Whether verify checks the write sequence number (fio: default on, off when
    /// `atomic=1`).
    pub fn write_sequence(&self) -> bool {
        self.verify_write_sequence.unwrap_or(!self.atomic)
    }
}

// errno names `ignore_error` accepts (fio takes the symbol or the number)
use crate::util::errno::ERRNO_NAMES;

/// Parse `ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST` (fio syntax): lists separated
/// by `,`, errors inside a list by `:`, each an errno symbol (`ENOSPC`) or a number
/// (`122`, `0x7a`). An empty list leaves that class at fio's default. A list ends at
/// its first empty name, as fio 3.33's `ignore_error_type` stops there: `:ENOSPC` is an
/// empty list, `EIO::ENOSPC` is EIO alone.
pub fn parse_ignore_error(v: &str) -> Result<[Option<Vec<i32>>; 3], String> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err("at most three lists: READ,WRITE,VERIFY".into());
    }
    let mut out: [Option<Vec<i32>>; 3] = [None, None, None];
    for (i, p) in parts.iter().enumerate() {
        let errs: Vec<&str> = p
            .split(':')
            .map(str::trim)
            .take_while(|e| !e.is_empty())
            .collect();
        if errs.is_empty() {
            continue;
        }
        let mut list = Vec::new();
        for e in errs {
            let num = match e.strip_prefix("0x").or_else(|| e.strip_prefix("0X")) {
                Some(h) => i32::from_str_radix(h, 16),
                None => e.parse::<i32>(),
            };
            let n = match num {
                Ok(n) if n > 0 => n,
                Ok(_) => return Err(format!("'{e}' is not an errno (> 0)")),
                Err(_) => ERRNO_NAMES
                    .iter()
                    .find(|x| x.0.eq_ignore_ascii_case(e))
                    .map(|x| x.1)
                    .ok_or_else(|| {
                        format!("'{e}' is not an errno name (like ENOSPC, EIO) or number")
                    })?,
            };
            list.push(n);
        }
        out[i] = Some(list);
    }
    Ok(out)
}

/// Every block size a job names: read and write, a range's ends, a split's sizes.
pub fn block_sizes(job: &crate::job::fio::FioJob) -> Vec<u64> {
    use crate::job::fio::BlockSizes;
    [&job.bs_read, &job.bs_write]
        .iter()
        .flat_map(|b| match b {
            BlockSizes::Fixed(v) => vec![*v],
            BlockSizes::Range(a, z) => vec![*a, *z],
            BlockSizes::Split(v) => v.iter().map(|e| e.0).collect(),
        })
        .collect()
}

/// Checks of this module's keys against the rest of the job; `Err` is the reason, for
/// a `job '…': …` error.
pub fn validate_extra(job: &crate::job::fio::FioJob) -> Result<(), String> {
    use crate::job::fio::EngineKind;
    let x = &job.more.x;
    // verify=pattern has no header (fio 3.33's VERIFY_PATTERN_NO_HDR): the pattern is
    // checked over the whole block and verify_interval / verify_offset change nothing;
    // nor do they without verify. With a header, fio's fixup (job/fio/finish.rs) has made
    // the interval divide the write sizes; a size between them that it does not divide
    // (bssplit, read sizes) is refused.
    let headed = job.more.verify.is_some_and(|k| k.header_len() > 0);
    if let Some(iv) = x.verify_interval.filter(|_| headed) {
        if let Some(b) = block_sizes(job).iter().find(|&&b| b % iv != 0) {
            return Err(format!(
                "verify_interval={iv} must divide every block size evenly (fio semantics); bs {b} is not a multiple"
            ));
        }
    }
    // with a size, fio 3.33 runs the job over it (a reading job reads the laid-out
    // files); without one it would fill the filesystem first to read it
    let sized = job.size.is_some() || job.filesize.is_some();
    if x.fill_device && !job.rw.writes() && !sized {
        return Err(format!(
            "fill_device=1 without size= writes until the device is full: it needs a job that writes (rw={})",
            job.rw.fio_name()
        ));
    }
    if x.fill_device && job.engine == EngineKind::Mmap && !sized {
        return Err("fill_device=1 writes until ENOSPC, which a mapping cannot do: use ioengine psync or io_uring".into());
    }
    // fio 3.33 refuses to extend a file through a mapping (its FIO_NOEXTEND engines)
    if job.tuning.file_append && job.engine == EngineKind::Mmap {
        return Err(
            "file_append=1 extends the files, which ioengine mmap cannot do (fio: can't append/extent with IO engine mmap)"
                .into(),
        );
    }
    // (the null engine writes nothing: atomic=1 there is accepted and does nothing, as
    // in fio 3.33, and a job that only reads issues no atomic write; the fio persona
    // opens the files O_DIRECT as fio 3.33 does and writes without RWF_ATOMIC:
    // run/fio/mod.rs `check_atomic`)
    let no_atomic_writes = matches!(job.engine, EngineKind::Mmap | EngineKind::Posixaio);
    if x.atomic && no_atomic_writes && job.rw.writes() && !job.fio_persona {
        return Err(format!(
            "atomic=1 issues RWF_ATOMIC writes: it needs ioengine psync, io_uring or libaio (ioengine={})",
            job.engine.name()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignore_error_lists_follow_fio_syntax() {
        assert_eq!(
            parse_ignore_error(",ENOSPC"),
            Ok([None, Some(vec![libc::ENOSPC]), None])
        );
        assert_eq!(
            parse_ignore_error("EAGAIN,ENOSPC:122"),
            Ok([
                Some(vec![libc::EAGAIN]),
                Some(vec![libc::ENOSPC, 122]),
                None
            ])
        );
        assert_eq!(
            parse_ignore_error("eio,,EILSEQ"),
            Ok([Some(vec![libc::EIO]), None, Some(vec![libc::EILSEQ])])
        );
        assert_eq!(
            parse_ignore_error("0x7a"),
            Ok([Some(vec![122]), None, None])
        );
        // a list ends at its first empty name (fio's `ignore_error_type`): `:ENOSPC`
        // names nothing (fio then prints no error count), `EIO::ENOSPC` EIO alone
        assert_eq!(parse_ignore_error(":ENOSPC"), Ok([None, None, None]));
        assert_eq!(
            parse_ignore_error("EIO::ENOSPC,ENOSPC:"),
            Ok([Some(vec![libc::EIO]), Some(vec![libc::ENOSPC]), None])
        );
        assert!(parse_ignore_error("ENOPE").unwrap_err().contains("ENOPE"));
        assert!(parse_ignore_error("a,b,c,d").is_err());
        assert!(parse_ignore_error("0").is_err());
    }

    #[test]
    fn defaults_and_sequence_rule() {
        let mut x = VerifyErrorOpts::default();
        assert!(x.allow_file_create && x.create_serialize && x.write_sequence());
        x.atomic = true;
        assert!(!x.write_sequence(), "atomic=1 turns the sequence check off");
        x.verify_write_sequence = Some(true);
        assert!(x.write_sequence());
    }
}
