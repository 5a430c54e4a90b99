//! `iomark diagnose [PATH]` front end: flags → [`Inputs`], then print the
//! [`Diagnosis`] as text or JSON. It only translates; the walk lives in
//! [`crate::probe::diagnosis`].
//!
//! Exit codes (DESIGN.md): 0 when the diagnosis ran (findings or not), 2 for bad
//! options, 3 when PATH does not exist on the live machine or `--root` is not a
//! directory. With `--root`, PATH is a path *on the recorded machine* and is not
//! checked against the real filesystem; options missing on the command line are taken
//! from the fixture's `probe` file (`opt rated_read=…`, `opt working_set=…`).

use crate::cli::output::{cannot_write, Outputs};
use crate::probe::ceiling::Rated;
use crate::probe::diagnosis::{self, Inputs};
use crate::probe::Root;
use crate::report::diagnose_text::{DiagnoseJson, DiagnoseText};
use crate::report::Reporter;
use crate::util::error::{exit, Error, Exit};
use clap::Parser;
use std::path::PathBuf;

/// Command-line options of `iomark diagnose`.
#[derive(Debug, Parser)]
#[command(
    name = "iomark diagnose",
    version,
    about = "Why is it slower than rated? PCIe/SATA/USB link speed and width, RAID, cache, alignment: the bottleneck between a path and the drive",
    long_about = "Why is my drive slower than its rating? `diagnose` follows PATH down the storage stack \
(mount, filesystem, partition, md RAID / LVM / dm-crypt / loop, the disk, NVMe / SATA / USB / virtio, \
the PCIe links up to the root port) and prints the stack, the bandwidth ceiling of the slowest link \
and findings: a PCIe link trained below the drive (an NVMe in a PCIe 2.0 x4 slot, a x4 drive on x2 \
lanes), a SATA link at 1.5 or 3 Gb/s, a USB drive at 480 Mb/s or on usb-storage instead of UAS, a \
degraded or resyncing RAID, a RAID mode hiding NVMe, the write cache off, a misaligned partition, \
a working set that fits in the page cache, and more. Nothing is written and nothing needs root.",
    after_help = "Examples:
  Is the drive under /mnt/data held back by its link (an NVMe in a PCIe 2.0 x4 slot)?
    iomark diagnose /mnt/data
  Can this path reach the drive's rated 3500 MB/s?
    iomark diagnose /dev/nvme0n1 --rated-read=3500
  A recorded machine (--fixture, built in): an NVMe rated 3 GB/s in a PCIe 2.0 x4 slot
    iomark diagnose /data/big.bin --fixture a-nvme-gen2-slot

Findings: LIMIT sets the ceiling, WARN costs performance, CACHE results may come from RAM, INFO.
On a terminal the severities are coloured; --color=never or NO_COLOR turns colour off.
Exit codes: 0 the diagnosis ran (findings or not), 2 bad options or fixture, 3 PATH or --root missing."
)]
pub struct Args {
    /// File, directory or block-device node to diagnose (default: current directory).
    #[arg(default_value = ".", value_hint = clap::ValueHint::AnyPath)]
    pub path: String,
    /// Read /sys and /proc below DIR instead of / (a recorded machine).
    #[arg(long, value_name = "DIR", conflicts_with = "fixture", value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
    /// Replay a recorded machine from a fixture manifest FILE, or one built in by name
    /// (a-nvme-gen2-slot, c-sata-3gbps, d-usb3-at-480, b-md-raid0-xfs, … the stems of
    /// tests/fixtures/diagnose): it is unpacked into a temporary directory used as
    /// `--root`, and removed afterwards.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub fixture: Option<PathBuf>,
    /// Print the diagnosis as JSON (stable finding IDs); `--json=FILE` writes it to FILE
    /// (replaced whole, never through a link) and prints the text report.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "-",
        value_hint = clap::ValueHint::FilePath
    )]
    pub json: Option<PathBuf>,
    /// The drive's advertised sequential read speed, MB/s (`3000`, `3000MB/s`, `3GB/s`).
    #[arg(long, value_name = "MB/s", value_parser = parse_mb_s)]
    pub rated_read: Option<f64>,
    /// The drive's advertised sequential write speed, MB/s.
    #[arg(long, value_name = "MB/s", value_parser = parse_mb_s)]
    pub rated_write: Option<f64>,
    /// Bytes the benchmark will touch (`150G`, `150GB`, `4GiB`), for the page-cache check.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub working_set: Option<u64>,
    /// The workload uses O_DIRECT: skip the page-cache findings.
    #[arg(long)]
    pub direct: bool,
    /// Colour of the severities (text report): auto (on a terminal, unless NO_COLOR is set),
    /// always, never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = crate::cli::clap_common::color_when())]
    pub color: crate::util::color::When,
}

pub use crate::job::units::iomark_mb_s as parse_mb_s;

/// The value parser of `--working-set`: [`crate::job::units::iomark_size`], > 0.
pub fn parse_size(s: &str) -> Result<u64, String> {
    crate::job::units::iomark_positive_size(s, "the working set")
}

/// Build the inputs: command line first, then the fixture's `probe` options.
pub fn inputs(a: &Args, root: &Root) -> Inputs {
    let opts = diagnosis::probe_options(root);
    let opt = |k: &str| opts.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    Inputs {
        path: a.path.clone(),
        rated: Rated {
            read_mb_s: a
                .rated_read
                .or_else(|| opt("rated_read").and_then(|v| parse_mb_s(v).ok())),
            write_mb_s: a
                .rated_write
                .or_else(|| opt("rated_write").and_then(|v| parse_mb_s(v).ok())),
        },
        working_set_bytes: a
            .working_set
            .or_else(|| opt("working_set").and_then(|v| parse_size(v).ok())),
        direct_io: a.direct || opt("io_mode") == Some("direct"),
    }
}

/// Run `iomark diagnose` with the arguments after the command word.
pub fn run(args: &[String]) -> Exit {
    let argv = std::iter::once("iomark diagnose".to_string()).chain(args.iter().cloned());
    let a = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            return crate::cli::clap_common::clap_exit("diagnose", e);
        }
    };
    let mut a = a;
    let mut unpacked: Option<tempfile::TempDir> = None;
    if let Some(f) = &a.fixture {
        // an unreadable input file is invalid input, as for compare and run
        let bad = |e: &dyn std::fmt::Display| {
            Error::new(
                exit::INVALID,
                format!("iomark diagnose: --fixture {}: {e}", f.display()),
            )
        };
        let text = fixture_text(f).map_err(|e| bad(&e))?;
        if text.trim().is_empty() {
            // an empty file, or a FIFO whose writer sent nothing: no recorded machine
            return Err(bad(&"empty: a fixture manifest lists the recorded files"));
        }
        // a fresh private directory (mkdtemp), removed with everything in it on drop
        let dir = crate::files::fixture::unpack(&text).map_err(|e| bad(&e))?;
        a.root = Some(dir.path().to_path_buf());
        unpacked = Some(dir);
    }
    let code = diagnose_with(&a);
    drop(unpacked);
    code
}

/// A `--fixture` manifest: the file, or when no file of that name exists, the built-in
/// recorded machine of that name (files::fixture::BUILT_IN).
fn fixture_text(f: &std::path::Path) -> std::io::Result<String> {
    if !f.exists() {
        if let Some(m) = f.to_str().and_then(crate::files::fixture::built_in) {
            return Ok(m.to_string());
        }
    }
    crate::util::input::read_text(f, crate::util::input::MAX_INPUT_BYTES)
}

fn diagnose_with(a: &Args) -> Exit {
    let env = |what: String| {
        Err(Error::new(
            exit::ENVIRONMENT,
            format!("iomark diagnose: {what}"),
        ))
    };
    let root = match &a.root {
        Some(r) if !r.exists() => return env(format!("--root {}: does not exist", r.display())),
        Some(r) if !r.is_dir() => return env(format!("--root {}: not a directory", r.display())),
        Some(r) if !r.join("proc/self/mountinfo").is_file() => {
            return env(format!(
                "--root {}: no proc/self/mountinfo below it (a recorded machine needs at least its mount table)",
                r.display()
            ));
        }
        Some(r) => Root(r.clone()),
        None => Root::default(),
    };
    if a.root.is_none() && std::fs::metadata(&a.path).is_err() {
        return env(format!("{}: no such file or directory", a.path));
    }
    let outs = outputs(a)?;
    let d = diagnosis::diagnose(&root, &inputs(a, &root));
    let mut i = crate::result::Inputs::new("diagnose", &[], crate::result::Status::Ok);
    i.targets = vec![d];
    let r = crate::result::build(i);
    // stdout's errors (a closed pipe, a full disk) follow crate::util::output's rule; a
    // file's are exit 1
    match outs.write_texts(&r) {
        Ok(()) => Ok(exit::OK),
        Err((opt, e)) => Err(Error::new(
            exit::FAILED,
            format!("iomark diagnose: {}", cannot_write(&opt, &e.path, &e)),
        )),
    }
}

/// The outputs, checked before the walk: the JSON document on stdout (`--json`) or in
/// a file (`--json=FILE`, then the text report on stdout too), else the text report.
fn outputs(a: &Args) -> Result<Outputs, Error> {
    let mut outs = Outputs::new();
    let text = || -> Vec<Box<dyn Reporter>> {
        vec![Box::new(DiagnoseText {
            paint: crate::util::color::Paint::new(a.color),
        })]
    };
    let Some(p) = &a.json else {
        outs.stdout(text(), "");
        return Ok(outs);
    };
    if let Err(e) = outs.file("--json", p, vec![Box::new(DiagnoseJson)], "") {
        let line = format!("iomark diagnose: {}", cannot_write("--json", p, &e));
        return Err(Error::new(e.exit_code(), line));
    }
    if crate::util::output::Stream::of(p).is_none() {
        outs.stdout(text(), "");
    }
    Ok(outs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidths_and_sizes() {
        assert_eq!(parse_mb_s("3000").unwrap(), 3000.0);
        assert_eq!(parse_mb_s("3000MB/s").unwrap(), 3000.0);
        assert_eq!(parse_mb_s("3GB/s").unwrap(), 3000.0);
        assert!(parse_mb_s("fast").is_err());
        assert!(parse_mb_s("-1").is_err());
        assert_eq!(parse_size("150GB").unwrap(), 150_000_000_000);
        assert_eq!(parse_size("4G").unwrap(), 4 << 30);
        assert!(parse_size("4X").is_err());
        assert!(parse_size("0").unwrap_err().contains("greater than 0"));
    }
}

#[cfg(test)]
mod machines;
