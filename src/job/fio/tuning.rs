//! The values of the job keys of fio 3.33's list that iomark took in beyond
//! the core job model: process placement (`nice`, `cpus_allowed`), hooks
//! (`exec_prerun`), reporting switches (`stats`, `disk_util`, `unified_rw_reporting`,
//! `disable_*`, `slat_percentiles`), the histogram log, log timestamps, file handling
//! (`overwrite`, `pre_read`, `unlink`, `file_service_type`) and the engine flags fio's
//! `--enghelp` lists. Parsed by `options/more.rs`; each field says what it does and
//! docs/compat/fio.md ("Job options") says where iomark differs.

use std::time::Duration;

/// `file_service_type` values are the one job model's (`job/model/`), named here too.
pub use crate::job::model::FileService;

/// `unified_rw_reporting`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Unified {
    /// per direction (fio's `none`, 0)
    #[default]
    None,
    /// the directions summed and reported as one, `mixed` (1)
    Mixed,
    /// per direction, then the mixed statistics (2)
    Both,
}

/// `lockfile`: how a file shared by jobs is locked around each request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LockFile {
    /// no lock (fio's default)
    #[default]
    None,
    /// one request at a time on the file
    Exclusive,
    /// readers together, a writer alone
    ReadWrite,
}

/// `mem` / `iomem`: what backs the I/O buffers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Mem {
    /// heap (fio's `malloc`)
    #[default]
    Malloc,
    /// SysV shared memory (`shm`, `shmhuge`: huge pages)
    Shm {
        /// huge pages
        huge: bool,
    },
    /// mmap (`mmap`, `mmaphuge`, `mmapshared`; `:FILE` maps that file)
    Mmap {
        /// huge pages
        huge: bool,
        /// MAP_SHARED
        shared: bool,
        /// backing file
        file: Option<String>,
    },
}

/// The keys (see the module header).
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    /// `lockfile`
    pub lockfile: LockFile,
    /// `unique_filename` (client/server only; default 1)
    pub unique_filename: bool,
    /// `opendir`: every regular file under this directory is a file of the job
    pub opendir: Option<String>,
    /// `bs_unaligned`: random sizes of a `bsrange` need not be multiples of its minimum
    pub bs_unaligned: bool,
    /// `rw_sequencer=identical`: a `rw=…:N` suffix repeats the same offset N times
    pub rw_identical: bool,
    /// `serialize_overlap`: a request waits for in-flight ones it overlaps
    pub serialize_overlap: bool,
    /// `file_append`: I/O starts at the end of each file
    pub file_append: bool,
    /// `offset_align`: alignment of an `offset` given as a percentage (0 = the block size)
    pub offset_align: u64,
    /// `allrandrepeat`
    pub allrandrepeat: bool,
    /// `file_service_type` and its `:N` (requests per file before switching)
    pub file_service: (FileService, u64),
    /// `write_barrier`: every Nth write is a barrier write (no engine of iomark's has one)
    pub write_barrier: u64,
    /// `sync_file_range=FLAGS:N`: (SYNC_FILE_RANGE_* flags, every N writes)
    pub sync_file_range: Option<(u32, u64)>,
    /// `overwrite`: lay a written file out fully before the job
    pub overwrite: bool,
    /// `verify_only`: read and verify, write nothing
    pub verify_only: bool,
    /// `clocksource` as written
    pub clocksource: Option<String>,
    /// `mem`
    pub mem: Mem,
    /// `verify_offset`: the verify header sits this many bytes into the block
    pub verify_offset: Option<u64>,
    /// where `verify_pattern` has `%o` (byte positions in the pattern)
    pub verify_pattern_fmt: Vec<usize>,
    /// `trim_percentage`
    pub trim_percentage: u32,
    /// `trim_verify_zero`
    pub trim_verify_zero: bool,
    /// `trim_backlog`
    pub trim_backlog: u64,
    /// `trim_backlog_batch`
    pub trim_backlog_batch: u64,
    /// `read_iolog_chunked`
    pub read_iolog_chunked: bool,
    /// `merge_blktrace_file`
    pub merge_blktrace_file: Option<String>,
    /// `merge_blktrace_scalars`
    pub merge_blktrace_scalars: Vec<f64>,
    /// `merge_blktrace_iters`
    pub merge_blktrace_iters: Vec<f64>,
    /// `exec_prerun`: a shell command before the job, output in `NAME.prerun.txt`
    pub exec_prerun: Option<String>,
    /// `exec_postrun`: after the job, output in `NAME.postrun.txt`
    pub exec_postrun: Option<String>,
    /// `ioscheduler`
    pub ioscheduler: Option<String>,
    /// `zonecapacity`, bytes (0 = the zone size)
    pub zonecapacity: u64,
    /// `ignore_zone_limits`
    pub ignore_zone_limits: bool,
    /// `lockmem`: bytes locked in memory for the job's life
    pub lockmem: u64,
    /// `nice`
    pub nice: i32,
    /// `thinktime_blocks_type=issue`
    pub thinktime_issue: bool,
    /// `thinktime_iotime`: think after this much I/O time too (whichever of it and
    /// `thinktime_blocks` comes first; only it when `thinktime_blocks` is not given)
    pub thinktime_iotime: Duration,
    /// `thinktime_blocks` was given
    pub thinktime_blocks_set: bool,
    /// `rate_ignore_thinktime`
    pub rate_ignore_thinktime: bool,
    /// `max_latency=R[,W]`, ns per direction (0: none): an I/O whose total latency is
    /// above it fails the job (ETIMEDOUT)
    pub max_latency: [u64; 2],
    /// `write_hint`: F_SET_RW_HINT value (0 none … 5 extreme)
    pub write_hint: Option<u64>,
    /// `pre_read`: read the files into the page cache before the job
    pub pre_read: bool,
    /// `cpumask` / `cpus_allowed`: the CPUs the job's threads may run on
    pub cpus: Option<Vec<usize>>,
    /// `cpus_allowed_policy=split`: thread N gets CPU N of the set
    pub cpus_split: bool,
    /// `unlink_each_loop`
    pub unlink_each_loop: bool,
    /// `unlink`
    pub unlink: bool,
    /// `exitall_on_error`
    pub exitall_on_error: bool,
    /// `log_entries`
    pub log_entries: u64,
    /// `write_hist_log` prefix ("" = the job's name)
    pub hist_log: Option<String>,
    /// `log_hist_msec`
    pub log_hist_msec: u64,
    /// `log_hist_coarseness`
    pub log_hist_coarseness: u32,
    /// `log_max_value`
    pub log_max_value: bool,
    /// `log_compression`
    pub log_compression: u64,
    /// `log_compression_cpus`
    pub log_compression_cpus: Option<String>,
    /// `log_store_compressed`
    pub log_store_compressed: bool,
    /// `log_unix_epoch`
    pub log_unix_epoch: bool,
    /// `log_alternate_epoch`
    pub log_alternate_epoch: bool,
    /// `log_alternate_epoch_clock_id`
    pub log_alternate_epoch_clock_id: Option<i32>,
    /// `block_error_percentiles`
    pub block_error_percentiles: bool,
    /// `stats`: 0 leaves the job out of the report
    pub stats: bool,
    /// `scramble_buffers`
    pub scramble_buffers: bool,
    /// `buffer_compress_chunk`
    pub buffer_compress_chunk: u64,
    /// `slat_percentiles`
    pub slat_percentiles: bool,
    /// `significant_figures`
    pub significant_figures: u32,
    /// `disk_util`: 0 leaves out the disk statistics
    pub disk_util: bool,
    /// `disable_lat`
    pub disable_lat: bool,
    /// `disable_clat`
    pub disable_clat: bool,
    /// `disable_slat`
    pub disable_slat: bool,
    /// `disable_bw_measurement`
    pub disable_bw: bool,
    /// `gtod_cpu`
    pub gtod_cpu: Option<u32>,
    /// `unified_rw_reporting`
    pub unified: Unified,
    /// `profile`
    pub profile: Option<String>,
    /// `cgroup`
    pub cgroup: Option<String>,
    /// `cgroup_nodelete`
    pub cgroup_nodelete: bool,
    /// `cgroup_weight`
    pub cgroup_weight: Option<u32>,
    /// `uid`
    pub uid: Option<u32>,
    /// `gid`
    pub gid: Option<u32>,
    /// io_uring `fixedbufs`
    pub fixedbufs: bool,
    /// io_uring `registerfiles`
    pub registerfiles: bool,
    /// io_uring `nonvectored`
    pub nonvectored: i64,
    /// io_uring `uncached`
    pub uncached: u32,
    /// io_uring/libaio `nowait`: RWF_NOWAIT
    pub nowait: bool,
    /// mmap `thp`: MADV_HUGEPAGE on the mapping
    pub thp: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            lockfile: LockFile::None,
            unique_filename: true,
            opendir: None,
            bs_unaligned: false,
            rw_identical: false,
            serialize_overlap: false,
            file_append: false,
            offset_align: 0,
            allrandrepeat: false,
            file_service: (FileService::RoundRobin, 1),
            write_barrier: 0,
            sync_file_range: None,
            overwrite: false,
            verify_only: false,
            clocksource: None,
            mem: Mem::Malloc,
            verify_offset: None,
            verify_pattern_fmt: Vec::new(),
            trim_percentage: 0,
            trim_verify_zero: true,
            trim_backlog: 0,
            trim_backlog_batch: 0,
            read_iolog_chunked: false,
            merge_blktrace_file: None,
            merge_blktrace_scalars: Vec::new(),
            merge_blktrace_iters: Vec::new(),
            exec_prerun: None,
            exec_postrun: None,
            ioscheduler: None,
            zonecapacity: 0,
            ignore_zone_limits: false,
            lockmem: 0,
            nice: 0,
            thinktime_issue: false,
            thinktime_iotime: Duration::ZERO,
            thinktime_blocks_set: false,
            rate_ignore_thinktime: false,
            max_latency: [0; 2],
            write_hint: None,
            pre_read: false,
            cpus: None,
            cpus_split: false,
            unlink_each_loop: false,
            unlink: false,
            exitall_on_error: false,
            log_entries: 1024,
            hist_log: None,
            log_hist_msec: 0,
            log_hist_coarseness: 0,
            log_max_value: false,
            log_compression: 0,
            log_compression_cpus: None,
            log_store_compressed: false,
            log_unix_epoch: false,
            log_alternate_epoch: false,
            log_alternate_epoch_clock_id: None,
            block_error_percentiles: false,
            stats: true,
            scramble_buffers: true,
            buffer_compress_chunk: 512,
            slat_percentiles: false,
            significant_figures: 4,
            disk_util: true,
            disable_lat: false,
            disable_clat: false,
            disable_slat: false,
            disable_bw: false,
            gtod_cpu: None,
            unified: Unified::None,
            profile: None,
            cgroup: None,
            cgroup_nodelete: false,
            cgroup_weight: None,
            uid: None,
            gid: None,
            fixedbufs: false,
            registerfiles: false,
            nonvectored: -1,
            uncached: 0,
            nowait: false,
            thp: false,
        }
    }
}
