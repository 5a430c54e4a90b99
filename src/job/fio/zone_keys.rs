//! Values of fio's zone keys (`zonemode`, `zonesize`, `zonerange`, `zoneskip`,
//! `max_open_zones`, `zone_reset_*`, `read_beyond_wp`, the `z` size suffix) and of the
//! offset-generator keys (`random_generator`, `random_sequence_stride`, `sprandom`):
//! [`ZoneOpts`], and [`settle`], which turns `Nz` values into bytes once the job is read
//! (pure, no I/O). The keys are entries of the option table (`job/fio/options/`);
//! semantics: `fio --cmdhelp=KEY` (fio 3.33) and fio's HOWTO; the run-time part lives in
//! `run/gen/zones.rs`.

use crate::job::fio::{FioError, FioJob, SizeSpec};

/// `random_generator` values are the one job model's (`job/model/`), named here too.
pub use crate::job::model::RandGen;

/// `zonemode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ZoneMode {
    /// no zoning (fio `none`, the default)
    #[default]
    None,
    /// I/O `zonesize` bytes in a zone of `zonerange` bytes, then skip `zoneskip` bytes
    /// (fio `strided`)
    Strided,
    /// zoned-block-device rules emulated on files and non-zoned devices: writes at each
    /// zone's write pointer, reads below it (fio `zbd`)
    Zbd,
}

/// Zone and generator options of one job, with fio's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneOpts {
    /// `zonemode`
    pub mode: ZoneMode,
    /// `zonesize`, bytes: strided: bytes of I/O per zone visit; zbd: size of a zone
    pub size: u64,
    /// `zonerange`, bytes (strided: size of a zone; 0 = `zonesize`; ignored by zbd)
    pub range: u64,
    /// `zoneskip`, bytes skipped after a zone (strided)
    pub skip: u64,
    /// `max_open_zones` (zbd: zones written at once; 0 = no limit)
    pub max_open_zones: u32,
    /// `job_max_open_zones` (zbd: zones one thread writes at once; 0 = no limit)
    pub job_max_open_zones: u32,
    /// `zone_reset_threshold` in [0, 1]: share of the I/O range's zone bytes written
    /// above which writes reset zones every 1/`zone_reset_frequency` writes (zbd)
    pub reset_threshold: Option<f64>,
    /// `zone_reset_frequency` in [0, 1] (zbd)
    pub reset_frequency: Option<f64>,
    /// `read_beyond_wp` (zbd: reads may go above a zone's write pointer)
    pub read_beyond_wp: bool,
    /// `random_generator`: the generator of uniform random offsets (`Lfsr`: fio's
    /// register per file, every block once per pass, also with `norandommap=1`)
    pub random_generator: Option<RandGen>,
    /// `random_sequence_stride` (`random_distribution=sequence`): 0 repeats the block
    /// indices, otherwise each cycle adds the sequence length to them (fio
    /// t/sequence.py)
    pub sequence_stride: u64,
    /// `sprandom`: SanDisk SPRandom preconditioning (fio 3.40; `run/gen/sprandom.rs`)
    pub sprandom: bool,
    /// `spr_op`: over-provisioning share in (0, 1) (fio default 0.15)
    pub spr_op: f64,
    /// `spr_num_regions` (fio default 100)
    pub spr_num_regions: u32,
    /// values written with the `z` suffix, `(key, zones)`, turned into bytes by
    /// [`settle`] once `zonesize` is known
    pub pending_z: Vec<(String, u64)>,
}

impl Default for ZoneOpts {
    fn default() -> Self {
        ZoneOpts {
            mode: ZoneMode::None,
            size: 0,
            range: 0,
            skip: 0,
            max_open_zones: 0,
            job_max_open_zones: 0,
            reset_threshold: None,
            reset_frequency: None,
            read_beyond_wp: false,
            random_generator: None,
            sequence_stride: 0,
            sprandom: false,
            spr_op: 0.15,
            spr_num_regions: 100,
            pending_z: Vec::new(),
        }
    }
}

/// `N` of a value `Nz` (a whole number of zones), else `None`.
pub fn zones_of(v: &str) -> Option<u64> {
    let t = v.trim();
    let n = t.strip_suffix('z').or_else(|| t.strip_suffix('Z'))?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// Settle the zone keys of a finished job: `z`-suffixed values become bytes, and the
/// combinations fio refuses are refused. Errors name the key and what is accepted.
/// `parse_only`: fio 3.33 does not run its fixup's checks of the zone keys under
/// `--parse-only` (init.c `add_job` returns before `fixup_options`), so the fio persona
/// takes `zonemode=strided` without `zonesize` there, exit 0; elsewhere it says fio's
/// line of the check, `iomark run` its own naming the job.
pub fn settle(job: &mut FioJob, parse_only: bool) -> Result<(), FioError> {
    let err = |why: String| FioError::Job {
        job: job.name.clone(),
        why,
    };
    let fio = job.fio_persona;
    let fixup = |line: &str, why: &str| match fio {
        true => FioError::FioLines(vec![line.into()]),
        false => err(why.into()),
    };
    let z = &job.more.zones;
    let checked = !(parse_only && fio);
    if checked && z.mode == ZoneMode::None && z.size > 0 {
        return Err(fixup(
            "fio: --zonemode=none and --zonesize are not compatible.",
            "zonesize= needs zonemode=strided or zonemode=zbd (zonemode=none and zonesize are not compatible, as in fio)",
        ));
    }
    if checked && z.mode == ZoneMode::Strided && z.size == 0 {
        return Err(fixup(
            "fio: --zonesize must be specified when using --zonemode=strided.",
            "zonemode=strided needs zonesize= (the bytes of I/O in each zone), as in fio",
        ));
    }
    if z.mode == ZoneMode::Zbd && z.skip > 0 && z.size > 0 && !z.skip.is_multiple_of(z.size) {
        return Err(err(format!(
            "zonemode=zbd: zoneskip={} must be a multiple of zonesize={}",
            z.skip, z.size
        )));
    }
    if z.sprandom {
        // fio's requirements (examples/sprandom.fio, t/sprandom.py)
        let why = if job.rw != crate::job::fio::RwMode::RandWrite {
            Some(format!("needs rw=randwrite (got rw={})", job.rw.fio_name()))
        } else if !job.norandommap {
            Some("needs norandommap=1".to_string())
        } else if matches!(z.random_generator, Some(g) if g != RandGen::Lfsr) {
            Some("needs random_generator=lfsr (the default for it)".to_string())
        } else if !matches!(job.bs_write, crate::job::fio::BlockSizes::Fixed(b) if b.is_power_of_two())
        {
            Some("needs one write block size that is a power of 2".to_string())
        } else if job.nrfiles > 1 || job.filenames().len() > 1 {
            Some("works on a single file".to_string())
        } else if job.numjobs > 1 {
            Some("works with numjobs=1".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            return Err(err(format!("sprandom=1 {why}")));
        }
    }
    let pending = std::mem::take(&mut job.more.zones.pending_z);
    for (key, n) in pending {
        let zs = job.more.zones.size;
        if zs == 0 {
            return Err(err(format!(
                "{key}={n}z counts zones: it needs zonesize= (and zonemode=strided or zbd)"
            )));
        }
        let bytes = n
            .checked_mul(zs)
            .ok_or_else(|| err(format!("{key}={n}z: too large")))?;
        match key.as_str() {
            "size" => job.size = Some(SizeSpec::Bytes(bytes)),
            "offset" => job.more.offset = Some(SizeSpec::Bytes(bytes)),
            "io_size" | "io_limit" => {
                job.more.io_size = Some(bytes);
                job.more.io_size_pct = None;
            }
            "offset_increment" => {
                job.more.offset_increment = bytes;
                job.more.offset_increment_pct = None;
            }
            _ => job.more.zones.skip = bytes,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(kv: &[(&str, &str)]) -> Result<FioJob, FioError> {
        let mut j = FioJob {
            name: "j".into(),
            ..FioJob::default()
        };
        let mut notes = Vec::new();
        let o = crate::job::fio::ini::Origin::CommandLine;
        for (k, v) in kv {
            crate::job::fio::options::apply(&mut j, k, Some(v), &o, &mut notes)?;
        }
        settle(&mut j, false)?;
        Ok(j)
    }

    #[test]
    fn z_suffix_counts_zones_of_zonesize() {
        let j = job(&[
            ("size", "8z"),
            ("offset", "524z"),
            ("zonemode", "zbd"),
            ("zonesize", "256m"),
        ])
        .unwrap();
        assert_eq!(j.size, Some(SizeSpec::Bytes(8 << 28)));
        assert_eq!(j.more.offset, Some(SizeSpec::Bytes(524 << 28)));
        let e = job(&[("size", "8z")]).unwrap_err().to_string();
        assert!(e.contains("size=8z") && e.contains("zonesize"), "{e}");
        assert_eq!(zones_of("12z"), Some(12));
        assert_eq!(zones_of("1.5z"), None);
        assert_eq!(zones_of("z"), None);
    }

    #[test]
    fn bad_values_are_named() {
        let e = job(&[("zonemode", "spiral")]).unwrap_err().to_string();
        assert!(e.contains("zonemode") && e.contains("strided"), "{e}");
        let e = job(&[("zone_reset_threshold", "1.5")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("zone_reset_threshold"), "{e}");
        let e = job(&[("zonesize", "1m")]).unwrap_err().to_string();
        assert!(e.contains("zonemode=none"), "{e}");
        let e = job(&[("random_generator", "mt")]).unwrap_err().to_string();
        assert!(e.contains("lfsr"), "{e}");
        let j = job(&[("zone_reset_frequency", "0.125:0.5")]).unwrap();
        assert_eq!(j.more.zones.reset_frequency, Some(0.125));
    }
}
