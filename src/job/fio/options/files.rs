//! Options of fio's groups "Filename" (which files, created or not, mounted or not) and
//! "File" (their sizes and count, syncs, fadvise and how they are laid out).

use super::{Arg, FioOption, Group, JobCtx, Kind, OptType};
use crate::job::fio::keys::FadviseHint;
use crate::job::fio::names;
use crate::job::fio::FioError;
use crate::job::units;
use std::path::PathBuf;

type R = Result<(), FioError>;

pub(super) static OPTIONS: &[FioOption] = &[
    FioOption::job(
        "filename",
        Group::Filename,
        Kind::Str,
        "File(s) to use for the workload",
        filename,
    )
    .example("/tmp/a:/tmp/b")
    .fio_job(3, OptType::StrStore)
    .callback(),
    FioOption::job(
        "directory",
        Group::Filename,
        Kind::Str,
        "Directory to store files in",
        directory,
    )
    .example("/tmp")
    .fio_job(4, OptType::StrStore)
    .callback(),
    FioOption::job(
        "filename_format",
        Group::Filename,
        Kind::Str,
        "Override default $jobname.$jobnum.$filenum naming",
        filename_format,
    )
    .default("$jobname.$jobnum.$filenum")
    .example("f.$filenum")
    .fio_job(5, OptType::StrStore),
    FioOption::job(
        "allow_file_create",
        Group::Filename,
        Kind::Bool,
        "Permit fio to create files, if they don't exist",
        allow_file_create,
    )
    .default("1")
    .fio_job(143, OptType::Bool),
    FioOption::job(
        "allow_mounted_write",
        Group::Filename,
        Kind::Bool,
        "Allow writes to a mounted partition",
        allow_mounted_write,
    )
    .default("0")
    .fio_job(144, OptType::Bool),
    FioOption::job(
        "readonly",
        Group::Filename,
        Kind::Bool,
        "Refuse any job that writes (fio: --readonly)",
        readonly,
    )
    // fio's command-line `--readonly` (no_argument) comes before its job option
    .arg(super::Arg::Flag)
    .alias(&["read_only"])
    .default("0")
    .fio_command(11),
    FioOption::job(
        "nrfiles",
        Group::File,
        Kind::Int,
        "Split job workload between this number of files",
        nrfiles,
    )
    .alias(&["nr_files"])
    .default("1")
    // fio's range; iomark's own limit of 1000000 files is its callback's
    .range(0, -1)
    .example("4")
    .fio_job(43, OptType::Int),
    FioOption::job(
        "unlink",
        Group::File,
        Kind::Bool,
        "Unlink created files after job has completed",
        unlink,
    )
    .default("0")
    .fio_job(154, OptType::Bool),
    FioOption::job(
        "openfiles",
        Group::File,
        Kind::Int,
        "Number of files to keep open at the same time",
        openfiles,
    )
    .range(0, -1)
    .example("1")
    .fio_job(44, OptType::Int),
    FioOption::job(
        "filesize",
        Group::File,
        Kind::Range,
        "Size of individual files",
        filesize,
    )
    .range(1, 0)
    .example("1m-4m")
    .fio_job(22, OptType::StrVal),
    FioOption::job(
        "fsync",
        Group::File,
        Kind::Int,
        "Issue fsync for writes every given number of blocks",
        fsync,
    )
    .default("0")
    .range(0, -1)
    .fio_job(48, OptType::Int),
    FioOption::job(
        "fdatasync",
        Group::File,
        Kind::Int,
        "Issue fdatasync for writes every given number of blocks",
        fdatasync,
    )
    .default("0")
    .range(0, -1)
    .fio_job(49, OptType::Int),
    FioOption::job(
        "end_fsync",
        Group::File,
        Kind::Bool,
        "Include fsync at the end of job",
        end_fsync,
    )
    .default("0")
    .fio_job(152, OptType::Bool),
    FioOption::job(
        "fsync_on_close",
        Group::File,
        Kind::Bool,
        "fsync files on close",
        fsync_on_close,
    )
    .default("0")
    .fio_job(153, OptType::Bool),
    FioOption::job(
        "fadvise_hint",
        Group::File,
        Kind::Str,
        "Use fadvise() to advise the kernel on IO pattern",
        fadvise_hint,
    )
    .arg(Arg::Value)
    .default("1")
    .values(&[
        ("0", "Don't issue fadvise/madvise"),
        ("1", "Advise using fio IO pattern"),
        ("random", "Advise using FADV_RANDOM"),
        ("sequential", "Advise using FADV_SEQUENTIAL"),
    ])
    .example("random")
    .fio_job(47, OptType::Str),
    FioOption::job(
        "create_on_open",
        Group::File,
        Kind::Bool,
        "Create files when they are opened for IO",
        create_on_open,
    )
    .default("0")
    .fio_job(141, OptType::Bool),
    FioOption::job(
        "create_serialize",
        Group::File,
        Kind::Bool,
        "Serialize creation of job files",
        create_serialize,
    )
    .default("1")
    .fio_job(139, OptType::Bool),
    FioOption::job(
        "create_only",
        Group::File,
        Kind::Bool,
        "Only perform file creation phase",
        create_only,
    )
    .default("0")
    .fio_job(142, OptType::Bool),
    FioOption::job(
        "create_fsync",
        Group::File,
        Kind::Bool,
        "fsync file after creation",
        create_fsync,
    )
    .default("1")
    .fio_job(140, OptType::Bool),
    FioOption::job(
        "fallocate",
        Group::File,
        Kind::Str,
        "Whether pre-allocation is performed when laying out files",
        fallocate,
    )
    .default("native")
    .values(&[
        ("none", "Do not pre-allocate space"),
        ("native", "Use native pre-allocation if possible"),
        ("posix", "Use posix_fallocate()"),
        ("keep", "Use fallocate(..., FALLOC_FL_KEEP_SIZE, ...)"),
        (
            "truncate",
            "Truncate file to final size instead of allocating",
        ),
        ("0", "Alias for 'none'"),
        ("1", "Alias for 'posix'"),
    ])
    .example("posix")
    .fio_job(46, OptType::Str),
    FioOption::job(
        "fill_device",
        Group::File,
        Kind::Bool,
        "Write until an ENOSPC error occurs",
        fill_device,
    )
    .alias(&["fill_fs"])
    .default("0")
    .fio_job(21, OptType::Bool),
];

/// `filename`: kept as written; its names are read by fio's list rules where used
/// ([`crate::job::fio::names`]).
/// `filename`: fio 3.33 adds each name to the files the job already has (its
/// str_filename_cb calls add_file): those of the `[global]` section or the command line
/// before the job file (get_new_job copies them) and of an earlier `filename=` of the
/// same section. So `filename=f` in `[global]` and again in the job gives the job two
/// files `f`, each of half its size; a second `filename=` adds, it does not replace.
/// `nrfiles` is fio's count of the job's files, which each name added raises by one:
/// the job's first names replace the count it had (fio: "ignore what we may already
/// have from nrfiles"), a later `nrfiles=N` sets it, and the job keeps its first
/// `nrfiles` names (fio's fixup, `finish`): `--filename=f1 --nrfiles=0 --filename=f2`
/// is the one file `f1`.
fn filename(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let had = c.job.filenames();
    let counted = if had.is_empty() { 0 } else { c.job.nrfiles };
    let added = u32::try_from(names::file_names(v).len()).unwrap_or(u32::MAX);
    c.job.nrfiles = counted.saturating_add(added);
    c.job.filename = Some(if had.is_empty() {
        v.to_string()
    } else {
        let names = had
            .into_iter()
            .chain(names::file_names(v))
            .collect::<Vec<_>>();
        names::join_names(names.iter().map(String::as_str))
    });
    Ok(())
}

/// `directory`: one or more directories, ':'-separated (a ':' in a name written `\:`,
/// [`crate::job::fio::names`]); an empty name is refused, as fio refuses it (it is no
/// directory).
fn directory(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let dirs = crate::job::fio::names::split_names(v);
    if dirs.iter().any(String::is_empty) {
        return Err(c.bad(
            v,
            "directories separated by ':' (a ':' inside a name written \\:), none of them empty",
        ));
    }
    c.job.directory = dirs.into_iter().map(PathBuf::from).collect();
    Ok(())
}

fn filename_format(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.filename_format = Some(c.need(v)?.to_string());
    Ok(())
}

/// `unlink`: remove the job's files when it ends (src/run/fio: only the regular files
/// the job laid out itself, never a device or a file it did not create).
fn unlink(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.tuning.unlink = c.bool(v)?;
    Ok(())
}

/// `openfiles`: at most this many of the job's files open at once (0, or more than
/// `nrfiles`: all of them, as fio), for every engine (src/run/worker/fio/open.rs).
fn openfiles(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    let Ok(n) = u32::try_from(n) else {
        return Err(c.bad(v, "between 0 and 4294967295"));
    };
    c.job.more.nodata.openfiles = (n > 0).then_some(n);
    Ok(())
}

/// `nrfiles`: the job's count of generated files, 0 (no file: the job moves nothing, as
/// fio; `iomark run` refuses a job that can do nothing) to 1000000 (iomark's limit: each
/// file is a name and a descriptor to hold; fio 3.33 checks no maximum).
fn nrfiles(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    let n = c.u64(v)?;
    if n == 0 && !c.job.fio_persona {
        return Err(c.bad(v, "between 1 and 1000000 (0 files, a job with nothing to do, is taken by iomark as `fio` only)"));
    }
    if n > 1_000_000 {
        return Err(c.bad(v, "between 0 and 1000000"));
    }
    c.job.nrfiles = n as u32;
    Ok(())
}

fn filesize(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?;
    c.job.filesize = Some(units::fio_range(v, c.job.kb_base).map_err(|e| c.bad(v, e))?);
    Ok(())
}

fn fsync(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.fsync = c.need_u64(v)?;
    Ok(())
}

fn fdatasync(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.fdatasync = c.need_u64(v)?;
    Ok(())
}

fn fadvise_hint(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.fadvise_hint = match v.map(str::trim) {
        None | Some("1") => FadviseHint::Type,
        Some("0") => FadviseHint::None,
        Some("sequential") => FadviseHint::Sequential,
        Some("random") => FadviseHint::Random,
        Some(o) => return Err(c.bad(o, "accepted: 0, 1, sequential, random")),
    };
    Ok(())
}

fn create_serialize(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    c.job.more.x.create_serialize = c.bool(v)?;
    if !c.job.more.x.create_serialize {
        c.notice(
            "notice: create_serialize=0: iomark always lays out every job's files one after another before any job starts; the option has no effect".into(),
        );
    }
    Ok(())
}

fn fallocate(c: &mut JobCtx<'_>, v: Option<&str>) -> R {
    let v = c.need(v)?.trim();
    if !["none", "native", "posix", "keep", "truncate", "0", "1"].contains(&v) {
        return Err(c.bad(v, "accepted: none, native, posix, keep, truncate, 0, 1"));
    }
    c.job.more.fallocate = v.to_string();
    Ok(())
}

bool_keys! {
    allow_file_create => more.x.allow_file_create;
    allow_mounted_write => allow_mounted_write;
    readonly => readonly;
    end_fsync => end_fsync;
    fsync_on_close => more.fsync_on_close;
    create_on_open => more.create_on_open;
    create_fsync => more.x.create_fsync;
    create_only => more.x.create_only;
    fill_device => more.x.fill_device;
}
