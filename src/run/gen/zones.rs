//! Zones of `iomark run` (fio `zonemode`): where each request of a zoned job goes.
//!
//! * `strided`: `zonesize` bytes of I/O in a zone of `zonerange` bytes (default
//!   `zonesize`), then the next zone starts `zonerange + zoneskip` bytes further. As in
//!   fio 3.33, zones run past the job's region (`size=`, `8z`) on to the end of the
//!   file or block device, and only there start over at the region's beginning: the job
//!   still moves `size` (or `io_size`) bytes in all, spread over that many zones
//!   (`size=8z zonesize=16k zonerange=64k` on a 1 MiB file: 16 KiB at 0, 64 KiB, …,
//!   448 KiB). With the mmap engine, whose one mapping length serves every file, they
//!   start over at the end of the shortest file (`run/fio/zoned.rs`, which also checks
//!   the zoned jobs of a run and shares the zone tables). Sequential jobs go through a zone in order (again from its start
//!   when `zonesize > zonerange`), random jobs take each block of the zone once per
//!   visit (a per-zone random map).
//! * `zbd`: zoned-block-device rules emulated on regular files and non-zoned block
//!   devices, as fio does for them: zones of `zonesize` aligned to offset 0, each with
//!   a write pointer (empty at the start of the run, shared by every job on the same
//!   file). Writes go to a zone's write pointer (random jobs pick the zone), at most
//!   `max_open_zones` zones are written at once, a write to a full zone resets it
//!   first, `zone_reset_threshold`/`zone_reset_frequency` reset zones like a garbage
//!   collector; reads stay below the write pointer unless `read_beyond_wp=1`; a trim
//!   resets a whole zone. The region is shrunk to whole zones (fio rounds the same
//!   way). Real zoned devices (`/sys/block/X/queue/zoned` ≠ `none`) are refused.
//!
//! Semantics checked against fio 3.33 with `--write_iolog` on small files; the zbd
//! rules follow fio's `zbd.c` `zbd_adjust_block` as documented in its HOWTO.

use crate::job::fio::zone_keys::{ZoneMode, ZoneOpts};
use crate::run::gen::{RandomMap, Rng};
use crate::run::worker::Op;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Write pointers of the emulated zones of one file, shared by every thread that
/// does I/O on it (fio shares its zone information per file the same way).
#[derive(Debug, Default)]
pub(crate) struct ZoneTable {
    /// zone index → bytes written in it (absent: empty)
    wp: BTreeMap<u64, u64>,
    /// zones being written (`max_open_zones` accounting), in opening order
    open: Vec<u64>,
    /// writes left before the next garbage-collection reset (`zone_reset_frequency`)
    write_cnt: u64,
}

/// Shared zone tables of a plan's files (one per file), empty without `zonemode=zbd`.
pub(crate) type Tables = Vec<Arc<Mutex<ZoneTable>>>;

/// Strided state of one file of one thread.
#[derive(Clone, Debug)]
struct Stride {
    /// first byte of the current zone
    zstart: u64,
    /// bytes issued in this zone visit
    done: u64,
    /// next sequential offset
    cursor: u64,
    /// blocks of the zone taken in this pass (random jobs)
    map: RandomMap,
}

/// Where a zoned job's requests go (one per thread).
#[derive(Debug)]
pub(crate) struct Zones {
    opts: ZoneOpts,
    align: u64,
    min_bs: u64,
    regions: Vec<(u64, u64)>,
    /// per file, the end where strided zones start over, bytes: the end of the file
    /// (or block device), at least the end of the region
    ends: Vec<u64>,
    strided: Vec<Stride>,
    tables: Tables,
    /// zones this thread opened and may still hold open (`job_max_open_zones`)
    mine: Vec<(usize, u64)>,
    /// zone resets this thread did (full zone written, threshold, trim)
    pub resets: u64,
}

impl Zones {
    /// Zone state of one thread of a job with zone options `z`, requests aligned to
    /// `align` bytes and at least `min_bs` long, over `regions` (per file, `(start,
    /// len)`) whose strided zones start over at `ends` ([`crate::run::fio::zoned`]),
    /// sharing the zbd write pointers `tables`; `None` without zoning.
    pub fn new(
        z: &ZoneOpts,
        align: u64,
        min_bs: u64,
        regions: &[(u64, u64)],
        ends: Vec<u64>,
        tables: Tables,
    ) -> Option<Zones> {
        let zoned = match z.mode {
            ZoneMode::None => false,
            ZoneMode::Strided => z.size > 0,
            ZoneMode::Zbd => !tables.is_empty(),
        };
        if !zoned {
            return None;
        }
        let align = align.max(1);
        let range = if z.range > 0 { z.range } else { z.size };
        let strided = if z.mode == ZoneMode::Strided {
            regions
                .iter()
                .zip(&ends)
                .map(|(&(start, _), &end)| Stride {
                    zstart: start,
                    done: 0,
                    cursor: start,
                    map: RandomMap::new((range.min(end - start) / align).max(1)),
                })
                .collect()
        } else {
            Vec::new()
        };
        Some(Zones {
            opts: ZoneOpts {
                range,
                pending_z: Vec::new(),
                ..z.clone()
            },
            align,
            min_bs: min_bs.max(1),
            regions: regions.to_vec(),
            ends,
            strided,
            tables,
            mine: Vec::new(),
            resets: 0,
        })
    }

    /// Zone resets of a zbd job (`None` for strided zones, which have none).
    pub fn zbd_resets(&self) -> Option<u64> {
        (self.opts.mode == ZoneMode::Zbd).then_some(self.resets)
    }

    /// Whether offsets come from the zones alone (strided): the job's own generator
    /// is not consulted.
    pub fn strided(&self) -> bool {
        self.opts.mode == ZoneMode::Strided
    }

    /// Place a request of `bs` bytes on `file`: `(offset, length)`, or `None` when the
    /// job has nothing left to do (zbd: no written data to read or trim). `offset` is
    /// what the job's own generator chose (ignored by strided zones).
    pub fn place(
        &mut self,
        op: Op,
        file: usize,
        offset: u64,
        bs: u64,
        random: bool,
        rng: &mut Rng,
    ) -> Option<(u64, u64)> {
        match self.opts.mode {
            ZoneMode::Strided => Some(self.strided_next(file, bs, random, rng)),
            ZoneMode::Zbd => self.zbd_place(op, file, offset, bs, random),
            ZoneMode::None => Some((offset, bs)),
        }
    }

    fn strided_next(&mut self, file: usize, bs: u64, random: bool, rng: &mut Rng) -> (u64, u64) {
        let (start, _) = self.regions[file];
        let end = self.ends[file];
        let (size, range, skip, align) =
            (self.opts.size, self.opts.range, self.opts.skip, self.align);
        let s = &mut self.strided[file];
        if s.done >= size {
            s.done = 0;
            s.zstart = s.zstart.saturating_add(range).saturating_add(skip);
            if s.zstart.saturating_add(bs) > end {
                s.zstart = start;
            }
            s.cursor = s.zstart;
            s.map = RandomMap::new((range.min(end - s.zstart) / align).max(1));
        }
        let zend = (s.zstart + range).min(end);
        let (o, n) = if random {
            let want = rng.below(s.map.len());
            let (slot, k) = s.map.take_run(want, (bs / align).max(1));
            let o = s.zstart + slot * align;
            let n = if k * align < bs { k * align } else { bs };
            (o, n.min(zend - o))
        } else {
            let mut o = s.cursor;
            if o + bs > zend {
                o = s.zstart;
            }
            (o, bs.min(zend - o))
        };
        let n = if n == 0 { bs.min(end - o) } else { n };
        s.cursor = o + n;
        s.done += n;
        (o, n)
    }

    /// fio's `zbd_adjust_block` on emulated zones.
    fn zbd_place(
        &mut self,
        op: Op,
        file: usize,
        offset: u64,
        bs: u64,
        random: bool,
    ) -> Option<(u64, u64)> {
        let zs = self.opts.size;
        let (start, len) = self.regions[file];
        let (zf, zl) = (start / zs, (start + len) / zs);
        let zone = (offset / zs).clamp(zf, zl - 1);
        let table = self.tables[file].clone();
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        let min_bs = self.min_bs;
        let wp = |t: &ZoneTable, z: u64| t.wp.get(&z).copied().unwrap_or(0);
        match op {
            Op::Read if self.opts.read_beyond_wp => Some((offset, bs)),
            Op::Read => {
                let mut z = zone;
                let mut o = offset;
                let range = wp(&t, z);
                if range < min_bs || (!random && o + min_bs > z * zs + range) {
                    z = find_zone(&t, z, (zf, zl), min_bs, random)?;
                    if !random {
                        o = z * zs;
                    }
                }
                let range = wp(&t, z);
                let zstart = z * zs;
                if range <= bs {
                    o = zstart;
                } else if random {
                    o = zstart + (offset - zone * zs) % (range - bs) / min_bs * min_bs;
                }
                let n = bs.min(zstart + range - o) / min_bs * min_bs;
                (n > 0).then_some((o, n))
            }
            Op::Trim => {
                let mut z = zone;
                if random && wp(&t, z) == 0 {
                    z = find_zone(&t, z, (zf, zl), 1, true)?;
                }
                self.reset(&mut t, file, z);
                Some((z * zs, zs))
            }
            Op::Write => {
                let mut z = zone;
                if !self.can_open(&mut t, file, z) {
                    z = self.convert_to_open_zone(&t, file, offset, (zf, zl))?;
                }
                self.reset_by_frequency(&mut t, file, z, (zf, zl));
                if wp(&t, z) + min_bs > zs {
                    self.reset(&mut t, file, z);
                }
                let limited = self.opts.max_open_zones > 0 || self.opts.job_max_open_zones > 0;
                if limited && !t.open.contains(&z) {
                    t.open.push(z);
                    self.mine.push((file, z));
                }
                let w = wp(&t, z);
                let n = bs.min(zs - w) / min_bs * min_bs;
                let n = if n == 0 { bs.min(zs - w) } else { n };
                let w2 = w + n;
                t.wp.insert(z, w2);
                if w2 + min_bs > zs {
                    // full: the zone no longer counts as open
                    t.open.retain(|&x| x != z);
                    self.mine.retain(|&(f, x)| (f, x) != (file, z));
                }
                Some((z * zs + w, n))
            }
        }
    }

    /// `zone_reset_threshold`/`zone_reset_frequency`: once the valid data of the job's
    /// zones reaches the threshold, every 1/frequency-th write resets zone `z` first.
    fn reset_by_frequency(&mut self, t: &mut ZoneTable, file: usize, z: u64, (zf, zl): (u64, u64)) {
        let zs = self.opts.size;
        let (Some(thr), Some(freq)) = (self.opts.reset_threshold, self.opts.reset_frequency) else {
            return;
        };
        if freq.is_nan() || freq <= 0.0 {
            return;
        }
        let valid: u64 = t.wp.range(zf..zl).map(|(_, w)| *w).sum();
        let every = (1.0 / freq).min(512.0) as u64;
        if valid as f64 >= thr * ((zl - zf) * zs) as f64 {
            if t.write_cnt == 0 {
                t.write_cnt = every;
            }
            t.write_cnt -= 1;
            if t.write_cnt == 0 {
                self.reset(t, file, z);
            }
        }
    }

    fn reset(&mut self, t: &mut ZoneTable, file: usize, z: u64) {
        t.wp.remove(&z);
        t.open.retain(|&x| x != z);
        self.mine.retain(|&(f, x)| (f, x) != (file, z));
        self.resets += 1;
    }

    /// fio's `zbd_open_zone`: may this thread write zone `z` now?
    fn can_open(&mut self, t: &mut ZoneTable, file: usize, z: u64) -> bool {
        let (max, job_max) = (
            self.opts.max_open_zones as usize,
            self.opts.job_max_open_zones as usize,
        );
        if max == 0 && job_max == 0 {
            return true;
        }
        if t.open.contains(&z) {
            return true;
        }
        // zones this thread opened that another thread filled or reset are not open
        self.mine.retain(|&(f, x)| f != file || t.open.contains(&x));
        if job_max > 0 && self.mine.len() >= job_max {
            return false;
        }
        if max > 0 && t.open.len() >= max {
            return false;
        }
        true
    }

    /// fio's `zbd_convert_to_open_zone`: an open zone of the region, chosen from the
    /// random offset (`(offset - start) × open / len`), the next one that is not full.
    fn convert_to_open_zone(
        &self,
        t: &ZoneTable,
        file: usize,
        offset: u64,
        (zf, zl): (u64, u64),
    ) -> Option<u64> {
        let (start, len) = self.regions[file];
        let cands: Vec<u64> = t
            .open
            .iter()
            .copied()
            .filter(|z| (zf..zl).contains(z))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let i0 = ((u128::from(offset.saturating_sub(start)) * cands.len() as u128)
            / u128::from(len.max(1))) as usize;
        (0..cands.len())
            .map(|k| cands[(i0 + k) % cands.len()])
            .find(|&z| t.wp.get(&z).copied().unwrap_or(0) + self.min_bs <= self.opts.size)
    }
}

/// fio's `zbd_find_zone`: the nearest zone of `[zf, zl)` with at least `min` bytes
/// written, looking forward (and, for random jobs, backward too).
fn find_zone(t: &ZoneTable, z: u64, (zf, zl): (u64, u64), min: u64, both: bool) -> Option<u64> {
    let has = |z: u64| t.wp.get(&z).copied().unwrap_or(0) >= min;
    let (mut up, mut down) = (z + 1, z.checked_sub(1));
    loop {
        let mut moved = false;
        if up < zl {
            if has(up) {
                return Some(up);
            }
            up += 1;
            moved = true;
        }
        if both {
            if let Some(d) = down.filter(|&d| d >= zf) {
                if has(d) {
                    return Some(d);
                }
                down = d.checked_sub(1);
                moved = true;
            }
        }
        if !moved {
            return None;
        }
    }
}
