//! Plan-time setup of zoned and SPRandom jobs (fio `zonemode`, `sprandom`): the checks
//! of a run's zbd jobs (real zoned devices refused, sizes that hold no zone), regions
//! shrunk to whole zones, the zone tables shared per file, where strided zones start
//! over, and the byte limit of a sprandom job. The generators themselves
//! (`run/gen/zones.rs`, `run/gen/sprandom.rs`) take plain parameters from here.

use crate::job::fio::zone_keys::ZoneMode;
use crate::probe::Root;
use crate::run::fio::{Plan, RunError};
use crate::run::gen::sprandom;
use crate::run::gen::zones::{ZoneTable, Zones};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Check and prepare the zbd jobs of a run: refuse real zoned devices and impossible
/// sizes, shrink each region to whole zones (`note` says so) and give every plan the
/// shared zone tables of its files.
pub(crate) fn attach_zones(plans: &mut [Vec<Plan>], note: &dyn Fn(String)) -> Result<(), RunError> {
    let mut tables: BTreeMap<PathBuf, Arc<Mutex<ZoneTable>>> = BTreeMap::new();
    for p in plans.iter_mut().flatten() {
        let z = &p.job.more.zones;
        if z.mode != ZoneMode::Zbd {
            continue;
        }
        let job = p.job.name.clone();
        let plan_err = |why: String| RunError::Plan {
            job: job.clone(),
            why,
        };
        let zs = z.size;
        if zs == 0 {
            return Err(plan_err(
                "zonemode=zbd needs zonesize= (iomark emulates zones; it does not read them from a zoned device)".into(),
            ));
        }
        for (what, bs) in [("read", &p.job.bs_read), ("write", &p.job.bs_write)] {
            if bs.max() > zs {
                return Err(plan_err(format!(
                    "zonemode=zbd: the {what} block size {} is larger than zonesize={zs}",
                    bs.max()
                )));
            }
        }
        if p.job.rw.trims() && p.job.bs_trim.max() != zs {
            return Err(plan_err(format!(
                "zonemode=zbd: a trim resets one zone, so bs must be zonesize={zs} (got {})",
                p.job.bs_trim.max()
            )));
        }
        for f in &p.files {
            if let Some(model) = zoned_model(&Root::default(), &f.path) {
                return Err(RunError::Refused {
                    job: job.clone(),
                    why: format!(
                        "{} is a zoned block device ({model}): zonemode=zbd on real zoned devices is not supported by iomark (it emulates zones on regular files and non-zoned devices only)",
                        f.path.display()
                    ),
                });
            }
        }
        let mut shrunk = false;
        for r in &mut p.regions {
            let first = r.0.div_ceil(zs) * zs;
            let end = (r.0 + r.1) / zs * zs;
            if end <= first {
                return Err(plan_err(format!(
                    "zonemode=zbd: the I/O region [{}, {}) holds no whole zone of zonesize={zs}",
                    r.0,
                    r.0 + r.1
                )));
            }
            shrunk |= (first, end - first) != *r;
            *r = (first, end - first);
        }
        if shrunk {
            note(format!(
                "{job}: zonemode=zbd: offset rounded up and size rounded down to whole zones of {zs} bytes (as fio does)"
            ));
            if !p.job.time_based && p.job.more.io_size.is_none() {
                let total: u64 = p.regions.iter().map(|r| r.1).sum();
                p.byte_limit = total.saturating_mul(p.job.loops);
            }
        }
        p.zones = p
            .files
            .iter()
            .map(|f| tables.entry(f.path.clone()).or_default().clone())
            .collect();
    }
    Ok(())
}

/// The zoned model of a block device (`host-managed`, `host-aware`), `None` for a
/// regular file or a non-zoned device (`queue/zoned` of its disk in sysfs, read through
/// `root`; a partition's parent disk).
fn zoned_model(root: &Root, path: &Path) -> Option<String> {
    if !crate::files::dataset::is_block_device(path) {
        return None;
    }
    let disk = root.disk_dir(crate::probe::device_behind(path)?)?;
    let model = root.sys().read_trim(&format!("{disk}/queue/zoned"))?;
    (model != "none" && !model.is_empty()).then_some(model)
}

/// Per file of `plan`, where `zonemode=strided` zones start over, bytes: the end of the
/// file or block device (as fio 3.33), at least the end of the job's region. With the
/// mmap engine every file gets the smallest of these, the length it maps.
pub(crate) fn strided_ends(plan: &Plan) -> Vec<u64> {
    let mut ends: Vec<u64> = plan
        .regions
        .iter()
        .zip(&plan.files)
        .map(|(&(start, len), f)| {
            let region_end = start.saturating_add(len);
            crate::files::dataset::existing_size(&f.path).map_or(region_end, |e| e.max(region_end))
        })
        .collect();
    // a mapping is as long as the shortest file (engine/mmap.rs)
    if plan.thread_job.engine.caps().maps_files {
        let min = ends.iter().copied().min().unwrap_or(0);
        ends.iter_mut().for_each(|e| *e = min);
    }
    ends
}

/// The zone state of one thread of `plan`; `None` without zoning.
pub(crate) fn zones_for(plan: &Plan) -> Option<Zones> {
    let j = &plan.job;
    Zones::new(
        &j.more.zones,
        plan.align,
        j.min_bs(),
        &plan.regions,
        strided_ends(plan),
        plan.zones.clone(),
    )
}

/// Check the sprandom jobs of a run and set their byte limits to the physical size.
pub(crate) fn prepare_sprandom(plans: &mut [Vec<Plan>]) -> Result<(), RunError> {
    for p in plans.iter_mut().flatten() {
        let z = &p.job.more.zones;
        if !z.sprandom {
            continue;
        }
        let bs = p.job.bs_write.max();
        let regions = z.spr_num_regions;
        let op = z.spr_op;
        let (_, len) = p.regions[0];
        let phys = sprandom::physical_size(len / bs * bs, op, bs);
        if phys / u64::from(regions) / bs == 0 {
            return Err(RunError::Plan {
                job: p.job.name.clone(),
                why: format!(
                    "sprandom: spr_num_regions={regions} is too many for {len} bytes of bs={bs} blocks (each region needs at least one write)"
                ),
            });
        }
        if !p.job.time_based {
            p.byte_limit = phys.saturating_mul(p.job.loops);
        }
    }
    Ok(())
}
