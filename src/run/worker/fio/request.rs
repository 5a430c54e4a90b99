//! Request generation of a job thread (see [`crate::run::worker::fio`]): the Worker's construction (offset
//! generators, random maps, zones, pacing state), each request's direction, block size,
//! file and offset, rate pacing and think time. Kept apart from the I/O loop so the
//! loop reads as submit → complete; everything here is inlined into it.

use crate::run::worker::fio::*;

pub(super) fn fixed_of(bs: &BlockSizes) -> Option<u64> {
    match bs {
        BlockSizes::Fixed(b) => Some(*b),
        _ => None,
    }
}

/// Fill a write buffer: per chunk of `compress.1` bytes (`buffer_compress_chunk`, fio's
/// default 512; 0: the whole buffer) `100 - compress.0`% random bytes then zeros
/// (`buffer_compress_percentage`, fio's layout), else `pattern` repeated from the
/// buffer's start (`buffer_pattern`), else zeros (`zero_buffers`), else random — the
/// order of fio's fill_io_buffer.
pub(crate) fn fill_buf(
    buf: &mut [u8],
    rng: &mut Rng,
    zero: bool,
    (compress_pct, compress_chunk): (u32, u64),
    pattern: &[u8],
) {
    if compress_pct == 0 && !pattern.is_empty() {
        for c in buf.chunks_mut(pattern.len()) {
            c.copy_from_slice(&pattern[..c.len()]);
        }
        return;
    }
    if zero {
        buf.fill(0);
        return;
    }
    let chunk = if compress_pct > 0 && compress_chunk > 0 {
        compress_chunk as usize
    } else {
        buf.len().max(1)
    };
    for c in buf.chunks_mut(chunk) {
        let rnd = c.len() * (100 - compress_pct.min(100)) as usize / 100;
        let (r, z) = c.split_at_mut(rnd);
        for w in r.chunks_mut(8) {
            let v = rng.next().to_le_bytes();
            w.copy_from_slice(&v[..w.len()]);
        }
        z.fill(0);
    }
}

pub(super) fn spin_for(clock: &Clock, d: Duration) {
    let end = clock.now() + clock.ticks(d);
    while clock.now() < end {
        std::hint::spin_loop();
    }
}

/// The unit of random offsets per direction (read/trim, write): fio's `ba[ddir]`,
/// `blockalign` or else the direction's smallest size (so `bs=4k,16k` writes at 16k
/// boundaries and reads at 4k ones).
fn units_of(plan: &Plan) -> [u64; 2] {
    let work = &plan.work;
    [0, 1].map(|slot| work.pick.slot_unit(slot))
}

/// Each file's slot generators (reads, writes) over its region in blocks of each
/// direction's unit ([`units_of`]).
fn slot_gens(plan: &Plan) -> Vec<[SlotGen; 2]> {
    let work = &plan.work;
    let units = units_of(plan);
    plan.regions
        .iter()
        .map(|&(_, len)| {
            // every offset the smallest size fits at: the size is drawn after it (fio)
            let n = |bs: &BlockSizes, u: u64| len.saturating_sub(bs.min()) / u + 1;
            let stride = work.pick.sequence_stride;
            let (r, w) = (units[0], units[1]);
            [
                SlotGen::new(&work.pick.dist[0], n(work.pick.slot_bs(0), r), r)
                    .sequence_stride(stride),
                SlotGen::new(&work.pick.dist[1], n(work.pick.slot_bs(1), w), w)
                    .sequence_stride(stride),
            ]
        })
        .collect()
}

/// Each file's zipf, pareto or normal state ([`Skew`]) where a direction draws from
/// one, over fio's blocks of the file (`__init_rand_distribution`): the region in
/// blocks of the smaller of the reads' and the writes' smallest sizes, rounded up.
fn skews_of(plan: &Plan) -> Vec<Option<Skew>> {
    let pick = &plan.work.pick;
    let range = pick.bs[0].min().min(pick.bs[1].min()).max(1);
    let dist = pick.dist.iter().find(|d| Skew::of(d, 1, 0).is_some());
    (0..plan.regions.len())
        .map(|i| {
            let n = plan.regions[i].1.div_ceil(range);
            dist.and_then(|d| Skew::of(d, n, plan.skew_seed(i)))
        })
        .collect()
}

/// Each file's random map, where the job keeps one. The map works in blocks of
/// `align` bytes and shortens a request to the free blocks it finds (fio), so any block
/// sizes cover a pass exactly once. A file with an LFSR (`lfsrs`) has none, as in fio.
fn random_maps(
    plan: &Plan,
    gens: &[[SlotGen; 2]],
    lfsrs: &[Option<Lfsr>],
    strided: bool,
) -> Vec<Option<RandomMap>> {
    let work = &plan.work;
    plan.regions
        .iter()
        .zip(gens)
        .zip(lfsrs)
        .map(|((&(_, len), g), l)| {
            (uniform_random(plan, g, strided) && !work.pick.no_map && l.is_none())
                .then(|| RandomMap::new((len / plan.align).max(1)))
        })
        .collect()
}

/// Whether a file's random offsets are uniform block draws over its region, which a
/// random map or an LFSR may give: a random job without strided zones or sprandom, both
/// directions uniform (fio's `init_random_map` sets neither up for another
/// distribution).
fn uniform_random(plan: &Plan, g: &[SlotGen; 2], strided: bool) -> bool {
    plan.work.pick.rw.random() && !strided && g[0].uniform() && g[1].uniform()
}

/// Each file's LFSR under `random_generator=lfsr` (fio's per-file register, which then
/// gives the random blocks in place of the draws and the map: every block once per
/// pass, also with `norandommap`): where the offsets are uniform block draws.
fn lfsrs_of(plan: &Plan, gens: &[[SlotGen; 2]], strided: bool) -> Vec<Option<Lfsr>> {
    plan.regions
        .iter()
        .zip(gens)
        .map(|(&(_, len), g)| {
            uniform_random(plan, g, strided)
                .then(|| plan.lfsr(len))
                .flatten()
        })
        .collect()
}

/// Under `random_generator=lfsr`, whether fio 3.33 cannot set up the LFSR of one of
/// the thread's files whose offsets are uniform block draws: the thread's block seed
/// has the register's low bits all ones (`lfsr_reset`'s illegal state), which fails
/// its `init_random_map` (run/fio/thread.rs). A region of no whole block is left to
/// the job's other checks.
pub(crate) fn lfsr_unset(plan: &Plan) -> bool {
    if plan.work.pick.generator != Some(crate::job::model::RandGen::Lfsr) {
        return false;
    }
    let gens = slot_gens(plan);
    let zones = crate::run::fio::zoned::zones_for(plan);
    let strided = zones.as_ref().is_some_and(|z| z.strided());
    plan.regions.iter().zip(&gens).any(|(&(_, len), g)| {
        plan.lfsr_blocks(len) > 0 && uniform_random(plan, g, strided) && plan.lfsr(len).is_none()
    })
}

/// Each file's LFSR ([`lfsrs_of`]) and random map ([`random_maps`]).
type Walks = (Vec<Option<Lfsr>>, Vec<Option<RandomMap>>);
fn walks_of(plan: &Plan, gens: &[[SlotGen; 2]], strided: bool) -> Walks {
    let lfsrs = lfsrs_of(plan, gens, strided);
    let maps = random_maps(plan, gens, &lfsrs, strided);
    (lfsrs, maps)
}

/// Each file's real end for a sequential job with holes ([`Worker::holed_offset`]) or
/// a random job with sequential requests ([`Worker::seq_or_random`]): its size on disk
/// once laid out, at least its region's end (no files: the region's end); empty for
/// every other job.
fn real_ends(plan: &Plan, fds_empty: bool) -> Vec<u64> {
    let pick = &plan.work.pick;
    let walks = if pick.rw.random() {
        pick.rw_suffix != 1 || pick.random_pct.iter().any(|&p| p < 100)
    } else {
        pick.rw_suffix > 0
    };
    if !walks {
        return Vec::new();
    }
    let on_disk = |p: &std::path::Path| {
        if fds_empty {
            0
        } else {
            crate::files::dataset::existing_size(p).unwrap_or(0)
        }
    };
    plan.regions
        .iter()
        .zip(&plan.files)
        .map(|(&(start, len), f)| on_disk(&f.path).max(start + len))
        .collect()
}

/// The direction picker of a mixed read/write job: fio's mix generator of the thread,
/// seeded from its mix slot, started over each loop under `randrepeat` ([`RwMix`]).
fn mix_of(plan: &Plan) -> Option<RwMix> {
    let work = &plan.work;
    matches!(work.pick.rw, RwMode::ReadWrite | RwMode::RandRw).then(|| {
        let seed = plan.seed_of(MIX_SLOT);
        RwMix::new(work.pick.read_pct, seed, work.pick.repeat)
    })
}

/// `sprandom`'s offset generator over the first region in blocks of the largest write.
fn sprandom_of(plan: &Plan) -> Option<SpRandom> {
    plan.work.pick.sprandom.map(|(regions, op)| {
        let bs = plan.work.pick.bs[1].max();
        SpRandom::new(plan.regions[0].1 / bs, bs, regions, op)
    })
}

/// The recorder of what is written, for `verify_state_save` (None: not saved).
fn vstate_recorder(plan: &Plan) -> Option<crate::run::verify::state::Recorder> {
    let depth = plan.work.queue.depth;
    (plan.vstate_save.as_ref())
        .map(|_| crate::run::verify::state::Recorder::new(plan.files.len(), depth))
}

/// What the job uses, decided once ([`Uses`]).
fn uses_of(plan: &Plan, logs: bool, fds_empty: bool, maps_all: bool) -> Uses {
    let work = &plan.work;
    let recache = !plan.thread_job.direct
        && work.files.invalidate
        && !work.files.pre_read
        && !fds_empty
        && !plan.thread_job.engine.caps().maps_files
        && plan.pass_bytes > 0
        && (work.limits.loops > 1 || work.limits.time_based || work.limits.io_size.is_some());
    // a pass ends where its bytes are issued: a random map full, a sequential walk
    // without holes at the files' ends
    let passes = plan.pass_bytes > 0
        && !plan.endless
        && if work.pick.rw.random() {
            maps_all
        } else {
            work.pick.rw_suffix <= 0
        };
    Uses {
        random: work.pick.rw.random(),
        pct_random: work.pick.rw.random() && work.pick.random_pct.iter().any(|&p| p < 100),
        rate: plan.thread_job.pace != crate::job::thread::Pace::Free,
        think: !work.pacing.think.is_zero(),
        min_rate: work.pacing.min_bytes != [0; 3] || work.pacing.min_iops != [0; 3],
        verify: work.verify.kind.is_some(),
        logs,
        gtod_reduce: work.measure.gtod_reduce && work.measure.no_lat,
        one_file: plan.files.len() == 1,
        trimwrite: matches!(work.pick.rw, RwMode::TrimWrite | RwMode::RandTrimWrite),
        ss_lat: work.measure.steady,
        backlog: work.verify.backlog > 0 && work.verify.kind.is_some() && work.pick.rw.writes(),
        fixed_bs: [0, 1].map(|slot| fixed_of(work.pick.slot_bs(slot))),
        unit: {
            let [bw, iops] = plan.unit_samples();
            [bw && !work.measure.no_bw, iops && !work.measure.gtod_reduce]
        },
        recache,
        // a pass is counted in bytes where it ends when its blocks are all issued: a
        // random map full, a sequential walk at the files' ends; a random job without a
        // map and a walk with holes never fill a pass (fio 3.33 drops the cache only
        // when a file starts over: `get_next_rand_block` never fails without a map)
        // (a random job whose files are never done has no such pass: `bytes_loop`)
        repass: recache && passes,
        loop_drain: !recache
            && passes
            && plan.thread_job.engine.queues()
            && !work.limits.time_based
            && (work.limits.loops > 1 || work.limits.io_size.is_some()),
        wrap: work.limits.time_based && (work.pick.rw.random() || plan.files.len() == 1),
        bytes_loop: plan.thread_job.engine.queues()
            && !work.limits.time_based
            && plan.pass_bytes > 0
            && plan.endless,
    }
}

/// The starting [`Worker`]'s `seq_nr`: a random job's `rw=…:N` (fio's `ddir_seq_nr`,
/// a random offset every N requests, 0 never); 1 for every other job.
fn first_seq_nr(work: &crate::job::model::Workload) -> u32 {
    if work.pick.rw.random() {
        u32::try_from(work.pick.rw_suffix).unwrap_or(u32::MAX)
    } else {
        1
    }
}

/// Where a request's offset comes from ([`Worker::pick`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pick {
    /// drawn at random
    Random,
    /// where the direction's last request in the file ended
    Seq,
    /// the last request's offset again (`rw_sequencer=identical`)
    Same,
}

/// Where a job replaying an iolog stands in it, from now (none: no replay).
fn replay_of(plan: &Plan, clock: &Clock) -> Option<super::replay::ReplayPos> {
    plan.replay
        .as_ref()
        .map(|_| super::replay::ReplayPos::new(clock.now()))
}

impl<'a> Worker<'a> {
    pub fn new(
        plan: &'a Plan,
        clock: &'a Clock,
        stop: &'a AtomicBool,
        fds: Vec<RawFd>,
        logs: Option<Logs>,
        live: Option<&'a Live>,
    ) -> Self {
        let fds_empty = fds.is_empty();
        let work = &plan.work;
        let gens = slot_gens(plan);
        let zones = crate::run::fio::zoned::zones_for(plan);
        let (lfsrs, maps) = walks_of(plan, &gens, zones.as_ref().is_some_and(|z| z.strided()));
        let maps_all = maps.iter().all(Option::is_some);
        let mut w = Worker {
            plan,
            clock,
            stop,
            rng: Rng::new(plan.seed),
            draws: plan.draws(),
            seq_cursors: plan.regions.iter().map(|r| [r.0; 3]).collect(),
            real_ends: real_ends(plan, fds_empty),
            new_pass: false,
            loop_no: 0,
            rr: 0,
            last_start: [u64::MAX; 3],
            fsvc: super::FileSvc::new(plan),
            seq_nr: first_seq_nr(work),
            seq_count: 1,
            gens,
            skews: skews_of(plan),
            maps,
            lfsrs,
            units: units_of(plan),
            ends: super::ends::Ends::new(plan),
            fopen: super::open::OpenFiles::new(plan.files.len(), work.files.open_files),
            sizes: [0, 1].map(|slot| BufLen::new(work.pick.slot_bs(slot), work.pick.bs_unaligned)),
            rate_next: [0; 3],
            think_blocks: 0,
            think_last_blocks: 0,
            think_last: clock.now(),
            written: BTreeMap::new(),
            mismatches: 0,
            first_mismatch: None,
            mismatch_stop: false,
            round_eof: false,
            uses: uses_of(plan, logs.is_some(), fds_empty, maps_all),
            logs,
            fds,
            buf_rng: Rng::new(plan.seed ^ 0xb0ff),
            trimmed: None,
            min_win: [(0, 0, 0); 3],
            live,
            lat_target: None,
            prio: plan.cmd_prio(),
            dedupe: plan.dedupe(),
            blkdev: crate::run::fio::trim::block_devices(plan),
            cov: crate::run::gen::coverage::Coverage::for_plan(plan),
            zones,
            zone_eof: false,
            replay: replay_of(plan, clock),
            spr: sprandom_of(plan),
            backlog: Vec::new(),
            seq: 0,
            filled: std::cell::Cell::new(false),
            lat_report: None,
            cov_report: None,
            pass_left: plan.pass_bytes,
            plain_random: [false; 2],
            plain_op: None,
            vrec: vstate_recorder(plan),
            vreads: 0,
            mix: mix_of(plan),
            resid: Vec::new(),
            unlink: super::open::Unlink::of(plan, fds_empty),
            lat_from: 0,
        };
        w.take_shortcuts();
        w
    }

    /// The shortcuts a job's shape allows, decided once after construction: the plain
    /// random path ([`Worker::plain_random_req`]) per direction, and no coverage
    /// bitmap where the random maps already count the distinct slots taken.
    fn take_shortcuts(&mut self) {
        let plan = self.plan;
        let u = &self.uses;
        let plain = u.random
            && !u.pct_random
            && u.one_file
            && !u.trimwrite
            && plan.work.pick.rw_suffix == 1
            && self.zones.is_none()
            && self.spr.is_none()
            && self.lfsrs.iter().all(Option::is_none);
        let one_unit = self.units == [plan.align; 2];
        // the other distributions take the general path (a block past the file ends it)
        let plain = plain && self.gens.iter().flatten().all(SlotGen::uniform);
        self.plain_random = [0, 1].map(|d| plain && one_unit && u.fixed_bs[d] == Some(plan.align));
        let one_dir = match plan.work.pick.rw {
            RwMode::RandRead => Some(Op::Read),
            RwMode::RandWrite => Some(Op::Write),
            RwMode::RandTrim => Some(Op::Trim),
            _ => None,
        };
        self.plain_op = one_dir.filter(|&op| self.plain_random[usize::from(op == Op::Write)]);
        // With the random map on every request (no percentage_random, zones or sprandom),
        // the map itself knows the distinct slots taken: no coverage bitmap per request.
        if self.maps.iter().all(Option::is_some)
            && !self.uses.pct_random
            && self.zones.is_none()
            && self.spr.is_none()
        {
            if let Some(c) = &mut self.cov {
                c.drop_bits();
            }
        }
    }

    pub(super) fn pick_op(&mut self) -> Op {
        let work = &self.plan.work;
        match work.pick.rw {
            RwMode::Read | RwMode::RandRead => Op::Read,
            RwMode::Write | RwMode::RandWrite => Op::Write,
            RwMode::Trim | RwMode::RandTrim => Op::Trim,
            // fio's trimwrite (set_rw_ddir): a trim when the last write started where
            // the last trim did, else a write; each walks the file on its own, at its
            // own size (with one size for both: trim a block, then write it)
            RwMode::TrimWrite if self.last_start[1] == self.last_start[2] => Op::Trim,
            RwMode::TrimWrite => Op::Write,
            // fio's randtrimwrite: trim a block, then write the same block
            RwMode::RandTrimWrite if self.trimmed.is_some() => Op::Write,
            RwMode::RandTrimWrite => Op::Trim,
            RwMode::ReadWrite | RwMode::RandRw => {
                let Some(mix) = &mut self.mix else {
                    return Op::Read;
                };
                let op = [Op::Read, Op::Write][mix.pick()];
                if !self.uses.rate {
                    return op;
                }
                let op = self.rate_dir(op);
                if let Some(mix) = &mut self.mix {
                    mix.steer(op.idx());
                }
                op
            }
        }
    }

    /// A mixed job (not time based) whose one file's random map is full: its next try
    /// finds the file done and starts a new loop, which the general path does
    /// ([`super::ends`]), drawing the direction again as fio does.
    #[inline]
    fn mix_map_full(&self) -> bool {
        self.mix.is_some()
            && !self.plan.work.limits.time_based
            && self.maps[0].as_ref().is_some_and(RandomMap::full)
    }

    /// A read or write request was issued: the mix counts it.
    #[inline]
    pub(super) fn mix_issued(&mut self, op: Op) {
        if let (Some(mix), Op::Read | Op::Write) = (&mut self.mix, op) {
            mix.issued(op.idx());
        }
    }

    /// A mixed job's new round (fio's next loop, `clear_io_state`): the mix's run
    /// ends and, under `randrepeat`, its draws start over.
    pub(super) fn mix_new_loop(&mut self) {
        if let Some(mix) = &mut self.mix {
            mix.new_loop();
        }
    }

    /// The statistics start over (the end of `ramp_time`): so do the mix's counts.
    pub(super) fn mix_zero(&mut self) {
        if let Some(mix) = &mut self.mix {
            mix.zero_counts();
        }
    }

    /// fio's `rate_ddir` (io_u.c) for mixed jobs under a per-direction rate: keep the
    /// mix's pick when that direction is behind its rate (or unlimited); when it is
    /// ahead, switch to the other direction if that one is behind and the mix gives it
    /// a share; when both are ahead, take the one due first. So `rate_iops=300,100`
    /// on randrw gives 300 reads and 100 writes a second, as fio, instead of the
    /// write limit holding the reads to the 50/50 mix.
    fn rate_dir(&self, op: Op) -> Op {
        let work = &self.plan.work;
        let p = &work.pacing;
        let limited = |x: usize| p.rate_bytes[x] > 0 || p.rate_iops[x] > 0;
        let (d, o) = (op.idx(), 1 - op.idx());
        let other = if op == Op::Read { Op::Write } else { Op::Read };
        let now = self.clock.now();
        // a direction not started yet (rate_next 0) counts as behind, as in fio
        let behind = |x: usize| !limited(x) || self.rate_next[x] <= now;
        if behind(d) {
            return op;
        }
        let other_share = if o == 0 {
            work.pick.read_pct
        } else {
            100 - work.pick.read_pct.min(100)
        };
        if other_share == 0 {
            return op;
        }
        if behind(o) || self.rate_next[o] < self.rate_next[d] {
            other
        } else {
            op
        }
    }

    /// The next request: its operation, file, offset and size (size 0: the job's I/O
    /// is over). None: the file service picked a file it cannot open now
    /// ([`Worker::next_file`]). A job of one direction on the plain random path
    /// (`plain_op`) takes it here, inlined into the loop; every other one
    /// [`Worker::next_req`].
    #[inline(always)]
    pub(super) fn next_request(&mut self) -> Option<(Op, usize, u64, u64)> {
        match self.plain_op {
            Some(op) => {
                self.open_any(0);
                Some(self.plain_random_req(op, usize::from(op == Op::Write)))
            }
            None => self.next_req(),
        }
    }

    /// [`Worker::next_request`]'s general path: the direction picked, then the file
    /// and place in it.
    #[inline(never)]
    fn next_req(&mut self) -> Option<(Op, usize, u64, u64)> {
        let mut op = self.pick_op();
        let d = usize::from(op == Op::Write);
        if self.plain_random[d] && !self.mix_map_full() {
            self.open_any(0);
            return Some(self.plain_random_req(op, d));
        }
        let work = &self.plan.work;
        let u = self.uses;
        if u.trimwrite && op == Op::Write {
            if let Some((file, offset, bs)) = self.trimmed.take() {
                // randtrimwrite: the write goes where the trim just went, at its size
                return Some((op, file, offset, bs));
            }
        }
        // a time-based job over one file starts it over in place, as fio: it stays open
        let in_place = u.one_file && work.limits.time_based;
        // the file and where in it; a file with nothing left is done (fio goes on with
        // the next one, or ends the job after the last) and closed
        let (file, mut offset, mut bs, random_now) = loop {
            let file = if u.one_file {
                self.open_any(0);
                0
            } else {
                self.next_file()?
            };
            let pick = self.pick(op);
            if let Some((o, b)) = self.place(op, file, pick) {
                break (file, o, b, pick == Pick::Random);
            }
            if !in_place {
                self.close_file(file);
            }
            if self.file_ended(file) == super::ends::After::End {
                self.zone_eof = true;
                return Some((op, file, self.plan.regions[file].0, 0));
            }
            if self.mix.is_some() && !work.limits.time_based {
                // fio draws the direction again for its next try (`set_io_u_file`)
                op = self.pick_op();
            }
        };
        if let Some(z) = &mut self.zones {
            match z.place(op, file, offset, bs, random_now, &mut self.rng) {
                Some((o, b)) => {
                    if o != offset && !u.random {
                        // sequential jobs go on from where the zones put them (fio)
                        self.seq_cursors[file][d] = o + b;
                    }
                    (offset, bs) = (o, b);
                }
                None => self.zone_eof = true,
            }
        }
        self.last_start[op.idx()] = offset;
        if u.random {
            self.seq_cursors[file][op.idx()] = offset + bs;
        }
        if u.trimwrite && op == Op::Trim && work.pick.rw == RwMode::RandTrimWrite {
            self.trimmed = Some((file, offset, bs));
        }
        Some((op, file, offset, bs))
    }

    /// How a random job places its next offset, by fio 3.33's rule (`get_next_offset`,
    /// `get_next_block`): every N-th request (`rw=…:N`, fio's countdown) is random, or
    /// with `percentage_random` that share of them (fio's draw for direction `op`); the
    /// others go on sequentially, or
    /// under `rw_sequencer=identical` (N > 1) repeat the last offset. Sequential jobs
    /// always go on in order.
    #[inline]
    fn pick(&mut self, op: Op) -> Pick {
        let u = self.uses;
        if !u.random {
            return Pick::Seq;
        }
        let hit = self.seq_nr != 0 && {
            self.seq_count -= 1;
            let hit = self.seq_count == 0;
            if hit {
                self.seq_count = self.seq_nr;
            }
            hit
        };
        let pick = &self.plan.work.pick;
        if !hit {
            return if pick.same_offsets {
                Pick::Same
            } else {
                Pick::Seq
            };
        }
        // fio's should_do_random: 1 + a draw below 100 of the direction's generator
        if !u.pct_random
            || self.draws.pct[op.idx()].between(1, 100) <= u64::from(pick.random_pct[op.idx()])
        {
            Pick::Random
        } else {
            Pick::Seq
        }
    }

    /// The offset and size of a request of `op` in `file`; None: the file has nothing
    /// left in this pass. A request's size is drawn after its offset, among the sizes
    /// that fit before the file's end (fio 3.33 `get_next_buflen`), random or
    /// sequential; with strided zones or sprandom it is drawn first.
    #[inline]
    fn place(&mut self, op: Op, file: usize, pick: Pick) -> Option<(u64, u64)> {
        let u = self.uses;
        let d = usize::from(op == Op::Write);
        let (start, len) = self.plan.regions[file];
        let strided = self.zones.as_ref().is_some_and(|z| z.strided());
        let bs = match u.fixed_bs[d] {
            Some(b) => b,
            None if !strided && self.spr.is_none() => 0,
            None => self.sizes[d].pick(&mut self.draws.bs[d], u64::MAX),
        };
        if strided {
            return Some((start, bs)); // the zones pick it
        }
        if u.random {
            return match pick {
                Pick::Random => self.random_offset(op, file, bs, true),
                Pick::Seq => self.seq_or_random(op, file, bs),
                Pick::Same => {
                    // `rw_sequencer=identical`: the direction's last offset again
                    let o = self.last_start[op.idx()];
                    let o = if o < start || o >= start + len {
                        start
                    } else {
                        o
                    };
                    Some((o, self.size_at(op, file, o, bs, None)))
                }
            };
        }
        self.seq_offset(op, file, bs)
    }

    /// A random job's sequential request in `file` (a `rw=…:N` run, or not drawn random
    /// under `percentage_random`), by fio 3.33's `get_next_seq_offset` and its callers:
    /// where the direction's last request ended; at or past the file's real end a random
    /// block instead, which the random map does not mark (a time-based job over one file
    /// starts over at the region's start there). None (the file is done): the position
    /// is past the region, or the request does not fit before it or the real end.
    fn seq_or_random(&mut self, op: Op, file: usize, bs: u64) -> Option<(u64, u64)> {
        let (start, len) = self.plan.regions[file];
        let real = self.real_ends.get(file).copied().unwrap_or(start + len);
        let mut last = self.seq_cursors[file][op.idx()];
        if self.plan.work.limits.time_based && self.uses.one_file && last >= start + len {
            last = start;
            self.new_pass = true;
        }
        if last >= real {
            return self.random_offset(op, file, bs, false);
        }
        let d = usize::from(op == Op::Write);
        let need = if bs == 0 { self.sizes[d].min() } else { bs };
        if last + need > start + len {
            return None;
        }
        let b = self.size_at(op, file, last, bs, None);
        (last + b <= real).then_some((last, b))
    }

    /// [`Worker::next_req`] where only the random slot varies (`plain_random`: one
    /// file, bs = the alignment, no zones, sprandom, `:N` runs or percentage_random):
    /// what the general path computes for that case, without its branches.
    #[inline(always)]
    fn plain_random_req(&mut self, op: Op, d: usize) -> (Op, usize, u64, u64) {
        let (start, len) = self.plan.regions[0];
        let bs = self.plan.align;
        if self.maps[0].as_ref().is_some_and(RandomMap::full) {
            if self.plan.work.limits.time_based {
                // fio's draw that finds the map full, before its new pass
                self.draws.off.next();
            } else {
                // a new loop: the file is closed and opened again
                self.done_draw();
                self.new_loop();
                self.open_any(0);
            }
        }
        let slot = match &mut self.maps[0] {
            Some(m) => m.take(self.draws.off.below_span(m.span())),
            // uniform (take_shortcuts): always a slot
            None => self.dist_slot(0, d).unwrap_or(0),
        };
        let o = start + slot * bs;
        let offset = if o + bs > start + len {
            start + (len.saturating_sub(bs) / bs) * bs
        } else {
            o
        };
        (op, 0, offset, bs)
    }

    /// The next file: `file_service_type`'s pick (default round robin, one request
    /// each), kept for its `:N` requests; a file done in this pass, or closing, is
    /// passed over. The file picked is opened; None: it is closed and `openfiles` are
    /// open (fio's EBUSY: the job reaps a completion, or picks again, the round robin
    /// then at the file after it). A picker that meets only closing files gives up
    /// the same way after a round of tries.
    #[inline]
    pub(super) fn next_file(&mut self) -> Option<usize> {
        let s = &self.fsvc;
        if s.left > 0 && !self.ends.is_done(s.cur) && self.fopen.serves(s.cur) {
            self.fsvc.left -= 1;
            return Some(self.fsvc.cur);
        }
        let n = self.plan.files.len();
        for _ in 0..2 * n + 8 {
            let f = match self.fsvc.draw(n) {
                Some(f) => f,
                None => {
                    let f = self.rr;
                    self.rr += 1;
                    if self.rr == n {
                        self.rr = 0;
                    }
                    f
                }
            };
            if self.ends.is_done(f) || self.fopen.closing(f) {
                continue;
            }
            if !self.open_file(f) {
                return None;
            }
            self.fsvc.cur = f;
            self.fsvc.left = self.fsvc.nr - 1;
            return Some(f);
        }
        None
    }

    /// A random-mode offset in `file` (sprandom, the random map or the distribution's
    /// generator) and the request's size: `bs`, or with `bs` 0 one drawn for the offset
    /// ([`Worker::size_at`]); the map may shorten it to the free blocks it found. With
    /// `mark` false (a block drawn where a sequential run met the file's end) the map
    /// is read, not marked, as fio's `IO_U_F_BUSY_OK`. Offsets are whole units of the direction ([`units_of`]); the map's blocks
    /// are the smallest size of all directions, and fio 3.33 indexes them by the block
    /// number of the direction's unit (`__get_next_rand_offset`, `mark_random_map`): with
    /// `bs=4k,16k` a write drawn as block b checks and marks map block b and goes to
    /// offset b × 16k. None: the file is done — its map is full, or the next free block
    /// is past its end (fio then ends the file, so such a job moves less than `size`).
    #[inline]
    fn random_offset(&mut self, op: Op, file: usize, bs: u64, mark: bool) -> Option<(u64, u64)> {
        let work = &self.plan.work;
        let d = usize::from(op == Op::Write);
        let (start, len) = self.plan.regions[file];
        let end = start + len;
        let unit = self.units[d];
        // the size the offset must leave room for
        let need = if bs == 0 { self.sizes[d].min() } else { bs };
        let mut taken = None;
        let o = if let Some(s) = &mut self.spr {
            // sprandom: blocks of bs from the region start
            let b = s.next(&mut self.rng).unwrap_or_else(|| {
                self.zone_eof = true;
                0
            });
            start + b * bs
        } else if let Some(l) = &mut self.lfsrs[file] {
            // fio's LFSR: its next block, none once the pass gave every block (the file
            // is done; a time-based job starts the register over, as fio's
            // `get_next_rand_block` resets the file and asks again)
            let b = match l.next() {
                Some(b) => b,
                None if work.limits.time_based || self.fsvc.nonuniform() => {
                    l.restart();
                    l.next()?
                }
                None => return None,
            };
            let o = start + b * unit;
            if o + need > end {
                return None;
            }
            o
        } else if let Some(m) = self.maps[file].as_mut().filter(|_| len >= unit) {
            // a time-based job, or a non-uniform file service, starts a full map over
            // in place (fio's `get_next_rand_block` resets the file and draws again)
            let over = work.limits.time_based || self.fsvc.nonuniform();
            if m.full() && !over {
                self.done_draw();
                return None;
            }
            if m.full() && mark {
                // fio's draw that finds the map full, before it starts a new pass
                self.draws.off.next();
            }
            let want = self.draws.off.below((len / unit).clamp(1, m.len()));
            let s = if mark {
                m.take(want)
            } else {
                if m.full() {
                    m.reset();
                }
                m.free_from(want)
            };
            let o = start + s * unit;
            if o + need > end {
                return None;
            }
            taken = (mark && bs != unit).then_some(s);
            o
        } else {
            let o = start + self.dist_slot(file, d)? * unit;
            // fio 3.33 ends the job at a block of another distribution that does not fit
            // (get_next_offset, fill_io_u: past `io_size` or the file's end)
            if o + need > end && !self.gens[file][d].uniform() {
                return None;
            }
            o
        };
        if need > len {
            return None; // no request of this size fits the region: the file is done
        }
        let o = if o + need > end {
            taken = None;
            start + (len.saturating_sub(need) / unit) * unit
        } else {
            o
        };
        Some((o, self.size_at(op, file, o, bs, taken)))
    }

    /// The next slot of `file`'s distribution for worker slot `d`, where no random map
    /// applies: uniform from the offsets' generator, zipf, pareto and normal from the
    /// file's state, zones and sequences from their [`SlotGen`]. None: a `zoned_abs`
    /// zone ends past the file (fio then ends the job).
    #[inline]
    fn dist_slot(&mut self, file: usize, d: usize) -> Option<u64> {
        let g = &mut self.gens[file][d];
        if g.uniform() {
            // a region smaller than one block (its map passed over too): fio's
            // `last_block` is 0 and it draws nothing, the file is done
            if self.plan.regions[file].1 < self.units[d] {
                return None;
            }
            return Some(self.draws.off.below_span(g.span()));
        }
        match &mut self.skews[file] {
            Some(k) if g.skewed() => Some(k.next()),
            _ => {
                let slot = g.next(&mut self.draws);
                if slot.is_none() && self.plan.fio_errors {
                    // the fio persona: fio 3.33's line (io_u.c) on stderr as the job ends
                    eprintln!("fio: zoned_abs sizes exceed file size");
                }
                slot
            }
        }
    }

    /// The size of a random request at `o`: `bs`, or with `bs` 0 fio's draw among the
    /// sizes that fit before the region's end; then, when the map gave `slot` for it,
    /// the free blocks after `slot` are taken and a request that meets a used block is
    /// shortened to the free ones (fio's `mark_random_map`: any whole number of blocks,
    /// not only the sizes asked for), counted as shrunk.
    #[inline]
    fn size_at(&mut self, op: Op, file: usize, o: u64, bs: u64, slot: Option<u64>) -> u64 {
        let d = usize::from(op == Op::Write);
        let (start, len) = self.plan.regions[file];
        let bs = if bs == 0 {
            self.sizes[d].pick(&mut self.draws.bs[d], start + len - o)
        } else {
            bs
        };
        let (Some(s), Some(m)) = (slot, &mut self.maps[file]) else {
            return bs;
        };
        let unit = self.units[d];
        let k = m.extend(s, bs.div_ceil(unit));
        if k * unit >= bs {
            return bs;
        }
        if let Some(c) = &mut self.cov {
            c.shrunk += 1;
        }
        k * unit
    }

    /// The next sequential offset in `file` and the request's size: `bs`, or with
    /// `bs` 0 one drawn among the sizes that fit before the region's end (fio). None:
    /// the file is at its end in this direction.
    #[inline]
    fn seq_offset(&mut self, op: Op, file: usize, bs: u64) -> Option<(u64, u64)> {
        let skip = self.plan.work.pick.rw_suffix;
        if skip > 0 {
            return self.holed_offset(op, file, bs, skip as u64);
        }
        let (start, len) = self.plan.regions[file];
        let d = op.idx();
        let sd = usize::from(op == Op::Write);
        let need = if bs == 0 { self.sizes[sd].min() } else { bs };
        let cur = self.seq_cursors[file][d];
        if self.plan.mix_rounds.is_some_and(|m| m.at_eof) && cur.saturating_add(need) > start + len
        {
            // fio's last_pos at the file's end: this round issues no more
            self.round_eof = true;
        }
        let o = seq_next(cur, (start, len), need, skip)?;
        let b = if bs == 0 {
            self.drawn_size(sd, o, (start, len))
        } else {
            bs
        };
        self.seq_cursors[file][d] = seq_after(o, b, skip, start);
        Some((o, b))
    }

    /// A sequential request's size drawn at `o` in region `(start, len)` among those
    /// that fit (fio 3.33's get_next_buflen, `io_u_fits`): before the region's end, or
    /// under `file_append` before `len` past the file's size (`io_u_fits` measures from
    /// `get_start_offset`, which is then the file's size, the region's end), so a size
    /// drawn past the file's end ends the job (fill_io_u: the request exceeds the file
    /// size; `rw=read size=256k bsrange=4k-16k file_append=1`: 27 reads, 258,048 bytes).
    #[inline(never)]
    fn drawn_size(&mut self, sd: usize, o: u64, (start, len): (u64, u64)) -> u64 {
        let end = start + len;
        if !self.plan.append {
            return self.sizes[sd].pick(&mut self.draws.bs[sd], end - o);
        }
        let b = self.sizes[sd].pick(&mut self.draws.bs[sd], end + len - o);
        if o + b > end {
            self.zone_eof = true;
        }
        b
    }

    /// The next offset of a sequential job with holes (`rw=read:N`, `write:N`, `rw:N`,
    /// N > 0) in `file` and the request's size, by fio 3.33's rule
    /// (`get_next_seq_offset`, `get_next_offset`, `fill_io_u`): the cursor is the end
    /// of the direction's last request; the hole is added to it except at the region's
    /// start; a position at or past the file's real size (its size on disk, which an
    /// existing larger file keeps) goes back to the region's start — fio puts it at the
    /// region's offset counted from that offset, so with `offset=` the wrap lands at twice
    /// it — and the job goes on until its bytes are issued. None (the file is done): the
    /// last request ended at the file's real end, the position is past the region's
    /// length, or the request would not fit before the real end (or, sizes drawn from a
    /// range, the smallest before the region's end). A time-based job over one file
    /// whose last request ended at the region's end starts it over in place.
    fn holed_offset(&mut self, op: Op, file: usize, bs: u64, skip: u64) -> Option<(u64, u64)> {
        let (start, len) = self.plan.regions[file];
        let real = self.real_ends[file];
        let d = op.idx();
        let sd = usize::from(op == Op::Write);
        let mut last = self.seq_cursors[file][d];
        if self.plan.work.limits.time_based && self.uses.one_file && last >= start + len {
            last = start;
            self.new_pass = true;
        }
        if last >= real {
            return None;
        }
        let mut pos = last.saturating_sub(start);
        if pos > 0 {
            pos += skip;
            if pos >= real {
                pos = start;
            }
        }
        let o = start + pos;
        if pos >= len || o >= real {
            return None;
        }
        let b = if bs > 0 {
            bs
        } else if o + self.sizes[sd].min() <= start + len {
            self.sizes[sd].pick(&mut self.draws.bs[sd], start + len - o)
        } else {
            return None;
        };
        if o + b > real {
            return None;
        }
        self.seq_cursors[file][d] = o + b;
        Some((o, b))
    }

    /// Due tick of the next `op` under the rate limit (linear or Poisson spacing);
    /// the caller waits for it. None: not rate limited.
    pub(super) fn pace_due(&mut self, op: Op, bytes: u64, start: u64) -> Option<u64> {
        let p = &self.plan.work.pacing;
        let d = op.idx();
        let ns = if p.rate_bytes[d] > 0 {
            bytes as f64 * 1e9 / p.rate_bytes[d] as f64
        } else if p.rate_iops[d] > 0 {
            1e9 / p.rate_iops[d] as f64
        } else {
            return None;
        };
        let ns = match p.process {
            RateProcess::Linear => ns,
            RateProcess::Poisson => -self.rng.unit().ln() * ns,
        };
        if self.rate_next[d] == 0 {
            self.rate_next[d] = start;
        }
        let due = self.rate_next[d];
        self.rate_next[d] = due + self.clock.ticks(Duration::from_nanos(ns as u64));
        Some(due)
    }

    /// Count one read/write request toward `thinktime_blocks`: `issued` at submit,
    /// else at its completion — whichever `thinktime_blocks_type` counts.
    #[inline(always)]
    pub(super) fn think_count(&mut self, issued: bool) {
        if issued == self.plan.work.pacing.think_at_issue {
            self.think_blocks += 1;
        }
    }

    /// fio's handle_thinktime decision (backend.c): think when `thinktime_iotime` has
    /// passed since the last think was decided (plus the think itself), or when
    /// `thinktime_blocks` requests were counted since it — without `thinktime_blocks`
    /// given, `thinktime_iotime` alone decides. The caller quiesces, then
    /// [`Worker::think_spin`]s.
    pub(super) fn think_due(&mut self) -> bool {
        let p = &self.plan.work.pacing;
        let mut stall = false;
        let mut now = None;
        if !p.think_iotime.is_zero() {
            let n = self.clock.now();
            let after = p.think_iotime + p.think;
            stall = self.clock.ns(self.think_last, n) >= after.as_nanos() as u64;
            if !stall && !p.think_blocks_given {
                return false;
            }
            now = Some(n);
        }
        if self.think_blocks >= self.think_last_blocks + p.think_blocks.max(1) {
            stall = true;
        }
        if stall {
            self.think_last_blocks = self.think_blocks;
            if let Some(n) = now {
                self.think_last = n;
            }
        }
        stall
    }

    /// The think's spin (`thinktime_spin`, spun now): the tick the think started at
    /// and the tick its sleep (the rest of `thinktime`) ends at, which the caller
    /// sleeps to (run/worker/fio/pass.rs: `nap`).
    pub(super) fn think_spin(&mut self) -> (u64, u64) {
        let p = &self.plan.work.pacing;
        // the wait is timed: one clock reading before, one after the sleep
        let t0 = self.clock.now();
        let spin = p.think_spin.min(p.think);
        spin_for(self.clock, spin);
        let rest = p.think - spin;
        (t0, self.clock.now() + self.clock.ticks(rest))
    }

    /// A mixed job's new round starts each direction at the start of its files again,
    /// as fio's reopen of the files between rounds does (`fio_file_reset`).
    pub(super) fn restart_seq(&mut self) {
        for (c, r) in self.seq_cursors.iter_mut().zip(&self.plan.regions) {
            *c = [r.0; 3];
        }
        self.round_eof = false;
    }

    /// Count `bs` issued bytes against the pass; true when this request ended it.
    #[inline]
    pub(super) fn pass_step(&mut self, bs: u64) -> bool {
        self.pass_left = self.pass_left.saturating_sub(bs);
        if self.pass_left > 0 {
            return false;
        }
        self.pass_left = self.plan.pass_bytes;
        true
    }

    /// Drop the files' cached pages, fio's `invalidate` at the start of every pass
    /// ([`drop_cache`]).
    #[cold]
    pub(super) fn drop_cache(&self) {
        drop_cache(&self.fds, &self.plan.files);
    }
}

/// Drop the cached pages of the open `fds` (POSIX_FADV_DONTNEED, whole files), fio's
/// `invalidate`; each one is traced in fio's `--debug=io` area. Failure only means the
/// cache stays.
#[cold]
pub(crate) fn drop_cache(fds: &[RawFd], files: &[crate::files::dataset::FileSpec]) {
    for (i, &fd) in fds.iter().enumerate() {
        crate::util::debug::trace("io", || {
            let name = files.get(i).map(|f| f.path.display().to_string());
            format!(
                "iomark: declare unneeded cache {}: whole file\n",
                name.unwrap_or_default()
            )
        });
        // SAFETY: advice on a descriptor the file set keeps open for the run.
        unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
}
