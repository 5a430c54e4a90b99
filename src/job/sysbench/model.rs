//! sysbench's fileio options as the one job model ([`Job`], `job/model/`):
//! [`FileioJob::model`], the one function a fileio job's thread (and a mark preset's,
//! which builds a `FileioJob`) is produced by. The test mode becomes a direction and a
//! mix, the block size and merged requests the request sizes, the fsync options the
//! sync points and their call, `--time`/`--events` the limits, `--rate` the pace,
//! `--file-data` and `--validate` what writes carry. What fio's keys cannot say (the
//! read/write ratio that may be +inf, merged requests, the run-wide fsync series,
//! `seqwr`'s file set made anew before the run, the words of sysbench's header) goes
//! to the model's values that say which dialect fills them.

use super::{FileioJob, Geometry, TestMode};
use crate::job::model::workload::{
    Data, Failure, FilePicking, Labels, Limits, Measure, Pacing, Picking, Queue, SyncPoints, Verify,
};
use crate::job::model::{BlockSizes, FileService, Job, RwMode, Workload};
use crate::job::thread::{FsyncMode, Pace, Syncs, ThreadJob};
use std::time::Duration;

impl TestMode {
    /// The mode's directions and order in the model: sequential write (`seqwr`, whose
    /// files are recreated first, and `seqrewr`), sequential read, random read, random
    /// write, random reads and writes.
    pub fn rw(self) -> RwMode {
        match self {
            Self::Seqwr | Self::Seqrewr => RwMode::Write,
            Self::Seqrd => RwMode::Read,
            Self::Rndrd => RwMode::RandRead,
            Self::Rndwr => RwMode::RandWrite,
            Self::Rndrw => RwMode::RandRw,
        }
    }
}

impl FileioJob {
    /// One of the job's threads in the one job model, over the file set's geometry `g`
    /// ([`FileioJob::geometry`]). The test mode is read from the settings, where it is
    /// kept once; without one (a `prepare` or `cleanup` alone) the thread is a
    /// sequential reader that writes nothing.
    pub fn model(&self, g: &Geometry) -> Job {
        Job {
            thread: self.thread_job(g),
            work: self.workload(),
        }
    }

    /// What each thread starts from: the engine of `--file-io-mode`, the backlog, the
    /// request sizes, the open flags, the file set, the pace, the limits.
    fn thread_job(&self, g: &Geometry) -> ThreadJob {
        let f = self.extra_flags;
        ThreadJob {
            engine: self.io_mode.engine(),
            depth: self.async_backlog as usize,
            request: (g.block, g.request.max(g.block)),
            direct: f.direct,
            mem_align: 0,
            sync: f.sync,
            dsync: f.dsync,
            files: g.files,
            file_size: Some(g.file_size),
            pace: match self.rate {
                0 => Pace::Free,
                events => Pace::Shared { events },
            },
            time: (self.time_limit > 0).then(|| Duration::from_secs(self.time_limit)),
            ios: (self.event_limit > 0).then_some(self.event_limit),
            dir: self.dir.clone(),
            writes: self.settings.test_mode.is_some_and(TestMode::writes),
            data: self.data,
            validate: self.validate,
            syncs: Syncs {
                call: self.fsync_mode,
                each_write: self.fsync_all,
                at_end: self.fsync_end,
            },
        }
    }

    /// What each request is picked, paced and synced by; what sysbench has no option
    /// for is fio's "none" (no ramp, no minimum rate, no think time, no check of
    /// fio's kind: `--validate` is the thread's).
    fn workload(&self) -> Workload {
        let rw = self.settings.test_mode.map_or(RwMode::Read, TestMode::rw);
        Workload {
            name: "fileio".into(),
            pick: self.picking(rw),
            files: FilePicking {
                // sequential modes walk the files in order; random offsets are drawn
                // over the whole set, so each file is as likely as its share of it
                service: if rw.random() {
                    (FileService::Random, 1)
                } else {
                    (FileService::Sequential, 1)
                },
                open_files: None,
                invalidate: false,
                pre_read: false,
                recreate: self.settings.test_mode == Some(TestMode::Seqwr),
            },
            // the sequential cursor starts the files over until a limit ends the run
            limits: Limits {
                loops: 1,
                time_based: true,
                ramp: Duration::ZERO,
                io_size: None,
            },
            pacing: Pacing::default(),
            data: Data {
                zero: self.data == crate::job::thread::DataPattern::Zeros,
                pattern: Vec::new(),
                refill: false,
                compress_pct: 0,
                compress_chunk: 0,
                scramble: false,
                dedupe_pct: 0,
            },
            syncs: self.sync_points(),
            verify: Verify::default(),
            failure: Failure {
                continue_on: Default::default(),
                ignore: [None, None, None],
                dump: false,
                fill_device: false,
                max_latency: [0, 0],
            },
            queue: self.queue(),
            labels: self.labels(),
            measure: Measure {
                gtod_reduce: false,
                no_lat: false,
                no_bw: false,
                total_lat: false,
                steady: false,
            },
        }
    }

    /// Direction, mix and sizes: `--file-test-mode`, `--file-rw-ratio` (`rndrw`),
    /// `--file-block-size`, `--file-merged-requests`.
    fn picking(&self, rw: RwMode) -> Picking {
        let mixed = self.settings.test_mode == Some(TestMode::Rndrw);
        Picking {
            rw,
            rw_suffix: 0,
            read_pct: read_pct(rw, mixed.then_some(self.rw_ratio)),
            bs: std::array::from_fn(|_| BlockSizes::Fixed(self.block_size)),
            offset_unit: [None; 3],
            bs_unaligned: false,
            same_offsets: false,
            dist: Default::default(),
            random_pct: [100; 3],
            // sysbench draws every offset afresh: blocks repeat, none is kept out
            no_map: true,
            generator: None,
            sequence_stride: 0,
            sprandom: None,
            repeat: false,
            read_ratio: mixed.then_some(self.rw_ratio),
            merged: self.merged_requests,
        }
    }

    /// `--file-fsync-all` (a sync after each write, by `--file-fsync-mode`'s call),
    /// `--file-fsync-end`, `--file-fsync-freq` (the run-wide series).
    fn sync_points(&self) -> SyncPoints {
        let each = u64::from(self.fsync_all);
        let (fsync_every, fdatasync_every) = match self.fsync_mode {
            FsyncMode::Fsync => (each, 0),
            FsyncMode::Fdatasync => (0, each),
        };
        SyncPoints {
            fsync_every,
            fdatasync_every,
            range_every: None,
            at_end: self.fsync_end,
            on_close: false,
            series_every: u64::from(self.fsync_freq),
        }
    }

    /// sysbench's words for the job: the test mode's name and description, the I/O
    /// mode's description, the rw ratio as given.
    fn labels(&self) -> Labels {
        Labels {
            mode: self.settings.test_mode.map_or("", TestMode::name),
            test: self.settings.test_mode.map_or("", TestMode::description),
            io_mode: self.io_mode.description(),
            rw_ratio: self.rw_ratio,
        }
    }

    /// `--file-async-backlog` requests in flight, reaped `reap_max` at most at once.
    fn queue(&self) -> Queue {
        Queue {
            depth: self.async_backlog,
            batch: 1,
            reap_min: 1,
            reap_max: self.reap_max as u32,
            low: 0,
            offload: false,
            flow: None,
            lat_target: None,
            serialize_overlap: false,
        }
    }
}

/// The share of reads, percent: all or none for a mode of one direction; for `rndrw`
/// the share its ratio rule comes to, ratio / (1 + ratio) (+inf: all reads).
fn read_pct(rw: RwMode, ratio: Option<f64>) -> u32 {
    match ratio {
        Some(r) if r.is_infinite() => 100,
        Some(r) => (100.0 * r / (1.0 + r)).round() as u32,
        None if rw.reads() => 100,
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::job;
    use super::super::{DataPattern, IoMode};
    use super::*;
    use crate::util::engines::Kind;

    fn model_of(s: &FileioJob) -> Job {
        s.model(&s.geometry().unwrap())
    }

    #[test]
    fn a_fileio_job_states_its_thread_job() {
        let mut s = job(1 << 20, 4, 4096);
        s.io_mode = IoMode::Async;
        s.async_backlog = 16;
        s.merged_requests = 2;
        s.extra_flags.direct = true;
        s.rate = 100;
        s.event_limit = 50;
        let t = model_of(&s).thread;
        assert_eq!((t.engine, t.depth, t.slots()), (Kind::IoUring, 16, 16));
        assert_eq!((t.request, t.slot_len()), ((4096, 8192), 8192));
        assert!(t.direct && !t.sync && !t.dsync);
        assert_eq!((t.files, t.file_size), (4, Some(256 << 10)));
        assert_eq!(t.pace, Pace::Shared { events: 100 });
        assert_eq!((t.dir.as_path(), t.writes), (s.dir.as_path(), false));
        assert_eq!((t.data, t.validate), (DataPattern::Zeros, false));
        let syncs = Syncs {
            call: FsyncMode::Fsync,
            each_write: false,
            at_end: true,
        };
        assert_eq!(t.syncs, syncs);
        let ten = Duration::from_secs(10);
        assert_eq!((t.time, t.ios), (Some(ten), Some(50)));
        // no limits, no rate, a mode that does not queue
        (s.io_mode, s.time_limit, s.event_limit, s.rate) = (IoMode::Mmap, 0, 0, 0);
        // a write mode, random data, validated, fdatasync after each write and not at the end
        (s.settings.test_mode, s.data, s.validate) =
            (Some(TestMode::Rndwr), DataPattern::Random, true);
        (s.fsync_mode, s.fsync_all, s.fsync_end) = (FsyncMode::Fdatasync, true, false);
        let t = model_of(&s).thread;
        assert!(t.writes && t.validate && t.data == DataPattern::Random);
        let (call, each, end) = (t.syncs.call, t.syncs.each_write, t.syncs.at_end);
        assert_eq!((call, each, end), (FsyncMode::Fdatasync, true, false));
        assert_eq!((t.engine, t.slots(), t.pace), (Kind::Mmap, 1, Pace::Free));
        assert_eq!((t.time, t.ios), (None, None));
    }

    #[test]
    fn each_test_mode_is_a_direction_and_a_mix() {
        use TestMode::*;
        // (mode, rw, random, reads, writes, read share %, ratio)
        let want = [
            (Seqwr, RwMode::Write, false, false, true, 0, None),
            (Seqrewr, RwMode::Write, false, false, true, 0, None),
            (Seqrd, RwMode::Read, false, true, false, 100, None),
            (Rndrd, RwMode::RandRead, true, true, false, 100, None),
            (Rndwr, RwMode::RandWrite, true, false, true, 0, None),
            // sysbench's default ratio 1.5: 3 reads per 2 writes, 60 % reads
            (Rndrw, RwMode::RandRw, true, true, true, 60, Some(1.5)),
        ];
        for (mode, rw, random, reads, writes, pct, ratio) in want {
            let mut s = job(1 << 20, 4, 4096);
            s.settings.test_mode = Some(mode);
            let m = model_of(&s);
            let p = &m.work.pick;
            assert_eq!(p.rw, rw, "{mode:?}");
            let got = (p.rw.random(), p.rw.reads(), p.rw.writes(), m.thread.writes);
            assert_eq!(got, (random, reads, writes, writes), "{mode:?}");
            assert_eq!((p.read_pct, p.read_ratio), (pct, ratio), "{mode:?}");
            let service = if random {
                FileService::Random
            } else {
                FileService::Sequential
            };
            assert_eq!(m.work.files.service, (service, 1), "{mode:?}");
        }
    }

    #[test]
    fn the_rndrw_ratio_may_be_infinite_or_zero() {
        let mut s = job(1 << 20, 4, 4096);
        s.settings.test_mode = Some(TestMode::Rndrw);
        for (ratio, pct) in [(f64::INFINITY, 100), (0.0, 0), (1.0, 50), (3.0, 75)] {
            s.rw_ratio = ratio;
            let p = model_of(&s).work.pick;
            assert_eq!(
                (p.read_ratio, p.read_pct),
                (Some(ratio), pct),
                "ratio {ratio}"
            );
        }
    }

    #[test]
    fn fsync_options_are_sync_points() {
        let mut s = job(1 << 20, 4, 4096);
        s.settings.test_mode = Some(TestMode::Rndwr);
        // sysbench's defaults: a series every 100 requests, a sync at the end
        let y = model_of(&s).work.syncs;
        let got = (y.fsync_every, y.fdatasync_every, y.at_end, y.series_every);
        assert_eq!(got, (0, 0, true, 100));
        // --file-fsync-all (which turns the others off) with each call
        (s.fsync_all, s.fsync_freq, s.fsync_end) = (true, 0, false);
        let y = model_of(&s).work.syncs;
        let got = (y.fsync_every, y.fdatasync_every, y.at_end, y.series_every);
        assert_eq!(got, (1, 0, false, 0));
        s.fsync_mode = FsyncMode::Fdatasync;
        let m = model_of(&s);
        let y = &m.work.syncs;
        let got = (y.fsync_every, y.fdatasync_every, y.at_end, y.series_every);
        assert_eq!(got, (0, 1, false, 0));
        assert_eq!(m.thread.syncs.call, FsyncMode::Fdatasync);
        // a periodic series of 7 and no end sync
        (s.fsync_all, s.fsync_freq) = (false, 7);
        let y = model_of(&s).work.syncs;
        let got = (y.fsync_every, y.fdatasync_every, y.at_end, y.series_every);
        assert_eq!(got, (0, 0, false, 7));
    }

    #[test]
    fn sysbench_words_are_the_labels() {
        let mut s = job(1 << 20, 4, 4096);
        // prepare or cleanup alone: no mode, no test words
        let l = model_of(&s).work.labels;
        assert_eq!((l.mode, l.test, l.io_mode), ("", "", "synchronous"));
        (s.settings.test_mode, s.io_mode) = (Some(TestMode::Rndrw), IoMode::Async);
        let l = model_of(&s).work.labels;
        assert_eq!(
            (l.mode, l.test, l.io_mode),
            ("rndrw", "random r/w", "asynchronous")
        );
        (s.settings.test_mode, s.io_mode) = (Some(TestMode::Seqwr), IoMode::Mmap);
        let l = model_of(&s).work.labels;
        let want = ("seqwr", "sequential write (creation)", "fast mmaped");
        assert_eq!((l.mode, l.test, l.io_mode), want);
        // the ratio as given, for every random mode: rndrd's header prints it too
        (s.settings.test_mode, s.rw_ratio) = (Some(TestMode::Rndrd), 2.5);
        let m = model_of(&s);
        assert_eq!(
            (m.work.labels.rw_ratio, m.work.pick.read_ratio),
            (2.5, None)
        );
        s.rw_ratio = f64::INFINITY;
        assert_eq!(model_of(&s).work.labels.rw_ratio, f64::INFINITY);
    }

    #[test]
    fn seqwr_alone_recreates_the_file_set() {
        use TestMode::*;
        let mut s = job(1 << 20, 4, 4096);
        // prepare or cleanup alone: no mode, nothing recreated
        assert!(!model_of(&s).work.files.recreate);
        for (mode, recreate) in [
            (Seqwr, true),
            (Seqrewr, false),
            (Seqrd, false),
            (Rndrd, false),
            (Rndwr, false),
            (Rndrw, false),
        ] {
            s.settings.test_mode = Some(mode);
            assert_eq!(model_of(&s).work.files.recreate, recreate, "{mode:?}");
        }
    }

    #[test]
    fn extra_flags_are_the_open_flags() {
        let mut s = job(1 << 20, 4, 4096);
        assert_eq!(model_of(&s).thread.oflags(), 0);
        for (sync, dsync, direct) in [
            (true, false, false),
            (false, true, true),
            (true, true, true),
        ] {
            s.extra_flags = super::super::ExtraFlags {
                sync,
                dsync,
                direct,
            };
            let want = s.extra_flags.oflags();
            assert_eq!(model_of(&s).thread.oflags(), want, "{:?}", s.extra_flags);
        }
        s.extra_flags.direct = true;
        let f = model_of(&s).thread.oflags();
        assert_eq!(f & libc::O_DIRECT, libc::O_DIRECT);
    }

    #[test]
    fn block_size_and_merged_requests_are_the_request_sizes() {
        let mut s = job(1 << 20, 4, 16384);
        s.settings.test_mode = Some(TestMode::Seqrd);
        let m = model_of(&s);
        let fixed = BlockSizes::Fixed(16384);
        assert_eq!(m.work.pick.bs, [fixed.clone(), fixed.clone(), fixed]);
        assert_eq!((m.work.pick.merged, m.thread.request), (0, (16384, 16384)));
        s.merged_requests = 4;
        let m = model_of(&s);
        assert_eq!((m.work.pick.merged, m.thread.request), (4, (16384, 65536)));
        assert_eq!(m.work.pick.bs[0].min(), 16384);
    }

    #[test]
    fn limits_pace_data_and_queue_translate() {
        let mut s = job(1 << 20, 4, 4096);
        (s.settings.test_mode, s.io_mode, s.async_backlog) =
            (Some(TestMode::Rndrw), IoMode::Async, 32);
        (s.reap_max, s.data, s.rate) = (1, DataPattern::Random, 0);
        let m = model_of(&s);
        let q = &m.work.queue;
        assert_eq!((q.depth, q.reap_max, m.thread.depth), (32, 1, 32));
        assert!(!m.work.data.zero && m.thread.data == DataPattern::Random);
        assert!(m.work.limits.time_based && m.work.pick.no_map);
        assert_eq!(m.thread.pace, Pace::Free);
        s.data = DataPattern::Zeros;
        assert!(model_of(&s).work.data.zero);
    }
}
