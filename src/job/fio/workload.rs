//! fio's keys as the one job model ([`Job`], `job/model/`): [`FioJob::model`], the one
//! function a fio job's thread is produced by — its [`crate::job::thread::ThreadJob`]
//! (`FioJob::thread_job`) beside its [`Workload`] ([`FioJob::workload`], the one place
//! a fio job's request picking, limits, pacing, data, syncs, verify, failure policy and
//! queue are named for the worker).

use crate::job::fio::FioJob;
use crate::job::model::workload::{
    Data, Failure, FilePicking, Labels, Limits, Measure, Pacing, Picking, Queue, SyncPoints, Verify,
};
use crate::job::model::Job;
use crate::job::model::Workload;

impl FioJob {
    /// One of the job's threads in the one job model (`io_size=N%` must be resolved to
    /// bytes first: `run/fio/plan.rs` does).
    pub fn model(&self) -> Job {
        Job {
            thread: self.thread_job(),
            work: self.workload(),
        }
    }

    /// The job's requests in the one job model, as each of its threads runs them
    /// (`io_size=N%` must be resolved to bytes first: `run/fio/plan.rs` does).
    fn workload(&self) -> Workload {
        Workload {
            // fio's reports read its own job
            labels: Labels::default(),
            name: self.name.clone(),
            pick: self.picking(),
            files: FilePicking {
                service: self.tuning.file_service,
                open_files: self.more.nodata.openfiles,
                invalidate: self.more.invalidate,
                pre_read: self.tuning.pre_read,
                recreate: false,
            },
            limits: Limits {
                loops: self.loops,
                time_based: self.time_based,
                ramp: self.ramp_time,
                io_size: self.more.io_size,
            },
            pacing: self.pacing(),
            data: self.data(),
            syncs: SyncPoints {
                fsync_every: self.fsync,
                fdatasync_every: self.more.fdatasync,
                range_every: self.tuning.sync_file_range,
                at_end: self.end_fsync,
                on_close: self.more.fsync_on_close,
                series_every: 0,
            },
            verify: self.verify(),
            failure: Failure {
                continue_on: self.more.continue_on_error,
                ignore: self.more.x.ignore_error.clone(),
                dump: self.more.x.error_dump,
                fill_device: self.more.x.fill_device,
                max_latency: self.tuning.max_latency,
            },
            queue: self.queue(),
            measure: Measure {
                // fio's `gtod_reduce(td)`: what `gtod_reduce=1` turns off is off, however
                // it was set
                gtod_reduce: self.tuning.disable_clat
                    && self.tuning.disable_slat
                    && (self.tuning.disable_bw || self.more.gtod_reduce),
                no_lat: self.tuning.disable_lat,
                // fio's `disable_bw`, which `gtod_reduce=1` sets and a later
                // `disable_bw=0` clears
                no_bw: self.tuning.disable_bw || self.more.gtod_reduce,
                total_lat: self.more.lat_percentiles,
                steady: !self.control.ss_dur.is_zero(),
            },
        }
    }

    fn picking(&self) -> Picking {
        let z = &self.more.zones;
        Picking {
            rw: self.rw,
            rw_suffix: self.rw_suffix,
            read_pct: self.rwmixread,
            bs: self.bs_dirs().map(Clone::clone),
            offset_unit: self.more.blockalign,
            bs_unaligned: self.tuning.bs_unaligned,
            same_offsets: self.tuning.rw_identical,
            dist: self.more.dist.clone(),
            random_pct: self.more.percentage_random,
            no_map: self.norandommap,
            generator: z.random_generator,
            sequence_stride: z.sequence_stride,
            sprandom: z.sprandom.then_some((z.spr_num_regions, z.spr_op)),
            // fio's fixup: a `randseed` given turns `randrepeat` off after the first
            // seeding, so no loop is seeded again
            repeat: self.more.randrepeat && self.randseed.is_none(),
            read_ratio: None,
            merged: 0,
        }
    }

    fn pacing(&self) -> Pacing {
        let m = &self.more;
        Pacing {
            rate_bytes: m.rate_bytes,
            rate_iops: m.rate_iops,
            process: m.rate_process,
            min_bytes: m.ratemin,
            min_iops: m.rate_iops_min,
            min_cycle: m.ratecycle,
            think: m.thinktime,
            think_spin: m.thinktime_spin,
            think_blocks: m.thinktime_blocks,
            think_blocks_given: self.tuning.thinktime_blocks_set,
            think_iotime: self.tuning.thinktime_iotime,
            think_at_issue: self.tuning.thinktime_issue,
            flow_sleep: self.control.flow_sleep,
        }
    }

    fn data(&self) -> Data {
        let m = &self.more;
        Data {
            zero: m.zero_buffers,
            pattern: m.buffer_pattern.clone(),
            refill: m.refill_buffers,
            compress_pct: m.buffer_compress_percentage,
            compress_chunk: self.tuning.buffer_compress_chunk,
            scramble: self.tuning.scramble_buffers,
            dedupe_pct: self.extra.dedupe_percentage,
        }
    }

    fn verify(&self) -> Verify {
        let m = &self.more;
        Verify {
            kind: m.verify,
            pattern: m.verify_pattern.clone(),
            pattern_offsets: self.tuning.verify_pattern_fmt.clone(),
            header_at: self.tuning.verify_offset.unwrap_or(0),
            interval: m.x.verify_interval.unwrap_or(0),
            backlog: m.x.verify_backlog,
            backlog_batch: m.x.verify_backlog_batch.unwrap_or(m.x.verify_backlog),
            write_sequence: m.x.write_sequence(),
            dump: m.x.verify_dump,
            read_back: m.do_verify,
            fatal: m.verify_fatal,
        }
    }

    fn queue(&self) -> Queue {
        let (m, c) = (&self.more, &self.control);
        Queue {
            depth: self.iodepth,
            // fio 3.33's fixup (init.c): a batch above the depth, or 0, is the depth
            batch: match m.iodepth_batch {
                0 => self.iodepth,
                b => b.min(self.iodepth),
            },
            reap_min: m.iodepth_batch_complete_min,
            reap_max: m.iodepth_batch_complete_max,
            low: m.iodepth_low,
            offload: c.offload,
            flow: (c.flow > 0).then_some((c.flow_id, c.flow)),
            lat_target: c.lat_target,
            // fio 3.33's fixup_options: no check where nothing changes the data or at
            // most one request is in flight
            serialize_overlap: self.tuning.serialize_overlap
                && (m.replay.file.is_some() || self.rw.writes() || self.rw.trims())
                && (self.iodepth > 1 || c.offload),
        }
    }
}
