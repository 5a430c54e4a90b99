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

/// Declares [`Tuning`] with each field's default beside it (`pub NAME: TYPE = DEFAULT,`)
/// and the `Default` that gives those, so the one list says both.
macro_rules! tuning {
    (
        $(#[$m:meta])*
        pub struct Tuning {
            $($(#[$fm:meta])* pub $f:ident: $t:ty = $d:expr,)*
        }
    ) => {
        $(#[$m])*
        pub struct Tuning {
            $($(#[$fm])* pub $f: $t,)*
        }

        impl Default for Tuning {
            fn default() -> Self {
                Tuning { $($f: $d,)* }
            }
        }
    };
}

tuning! {
    /// The keys (see the module header), each with its default.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Tuning {
        /// `lockfile`
        pub lockfile: LockFile = LockFile::None,
        /// `unique_filename` (client/server only; default 1)
        pub unique_filename: bool = true,
        /// `opendir`: every regular file under this directory is a file of the job
        pub opendir: Option<String> = None,
        /// `bs_unaligned`: random sizes of a `bsrange` need not be multiples of its minimum
        pub bs_unaligned: bool = false,
        /// `rw_sequencer=identical`: a `rw=…:N` suffix repeats the same offset N times
        pub rw_identical: bool = false,
        /// `serialize_overlap`: a request waits for in-flight ones it overlaps
        pub serialize_overlap: bool = false,
        /// `file_append`: I/O starts at the end of each file
        pub file_append: bool = false,
        /// `offset_align`: alignment of an `offset` given as a percentage (0 = the block size)
        pub offset_align: u64 = 0,
        /// `allrandrepeat`
        pub allrandrepeat: bool = false,
        /// `file_service_type` and its `:N` (requests per file before switching)
        pub file_service: (FileService, u64) = (FileService::RoundRobin, 1),
        /// `write_barrier`: every Nth write is a barrier write (no engine of iomark's has one)
        pub write_barrier: u64 = 0,
        /// `sync_file_range=FLAGS:N`: (SYNC_FILE_RANGE_* flags, every N writes)
        pub sync_file_range: Option<(u32, u64)> = None,
        /// `overwrite`: lay a written file out fully before the job
        pub overwrite: bool = false,
        /// `verify_only`: read and verify, write nothing
        pub verify_only: bool = false,
        /// `clocksource` as written
        pub clocksource: Option<String> = None,
        /// `mem`
        pub mem: Mem = Mem::Malloc,
        /// `iomem_align`: bytes each I/O buffer starts past a page's start
        pub mem_align: u64 = 0,
        /// `verify_offset`: the verify header sits this many bytes into the block
        pub verify_offset: Option<u64> = None,
        /// where `verify_pattern` has `%o` (byte positions in the pattern)
        pub verify_pattern_fmt: Vec<usize> = Vec::new(),
        /// `trim_percentage`
        pub trim_percentage: u32 = 0,
        /// `trim_verify_zero`
        pub trim_verify_zero: bool = true,
        /// `trim_backlog`
        pub trim_backlog: u64 = 0,
        /// `trim_backlog_batch`
        pub trim_backlog_batch: u64 = 0,
        /// `read_iolog_chunked`
        pub read_iolog_chunked: bool = false,
        /// `merge_blktrace_file`
        pub merge_blktrace_file: Option<String> = None,
        /// `merge_blktrace_scalars`
        pub merge_blktrace_scalars: Vec<f64> = Vec::new(),
        /// `merge_blktrace_iters`
        pub merge_blktrace_iters: Vec<f64> = Vec::new(),
        /// `exec_prerun`: a shell command before the job, output in `NAME.prerun.txt`
        pub exec_prerun: Option<String> = None,
        /// `exec_postrun`: after the job, output in `NAME.postrun.txt`
        pub exec_postrun: Option<String> = None,
        /// `ioscheduler`
        pub ioscheduler: Option<String> = None,
        /// `zonecapacity`, bytes (0 = the zone size)
        pub zonecapacity: u64 = 0,
        /// `ignore_zone_limits`
        pub ignore_zone_limits: bool = false,
        /// `lockmem`: bytes locked in memory for the job's life
        pub lockmem: u64 = 0,
        /// `nice`
        pub nice: i32 = 0,
        /// `thinktime_blocks_type=issue`
        pub thinktime_issue: bool = false,
        /// `thinktime_iotime`: think after this much I/O time too (whichever of it and
        /// `thinktime_blocks` comes first; only it when `thinktime_blocks` is not given)
        pub thinktime_iotime: Duration = Duration::ZERO,
        /// `thinktime_blocks` was given
        pub thinktime_blocks_set: bool = false,
        /// `rate_ignore_thinktime`
        pub rate_ignore_thinktime: bool = false,
        /// `max_latency=R[,W]`, ns per direction (0: none): an I/O whose total latency is
        /// above it fails the job (ETIMEDOUT)
        pub max_latency: [u64; 2] = [0; 2],
        /// `write_hint`: F_SET_RW_HINT value (0 none … 5 extreme)
        pub write_hint: Option<u64> = None,
        /// `pre_read`: read the files into the page cache before the job
        pub pre_read: bool = false,
        /// `cpumask` / `cpus_allowed`: the CPUs the job's threads may run on
        pub cpus: Option<Vec<usize>> = None,
        /// `cpus_allowed_policy=split`: thread N gets CPU N of the set
        pub cpus_split: bool = false,
        /// `unlink_each_loop`
        pub unlink_each_loop: bool = false,
        /// `unlink`
        pub unlink: bool = false,
        /// `exitall_on_error`
        pub exitall_on_error: bool = false,
        /// `log_entries`
        pub log_entries: u64 = 1024,
        /// `write_hist_log` prefix ("" = the job's name)
        pub hist_log: Option<String> = None,
        /// `log_hist_msec`
        pub log_hist_msec: u64 = 0,
        /// `log_hist_coarseness`
        pub log_hist_coarseness: u32 = 0,
        /// `log_max_value`
        pub log_max_value: bool = false,
        /// `log_compression`
        pub log_compression: u64 = 0,
        /// `log_compression_cpus`
        pub log_compression_cpus: Option<String> = None,
        /// `log_store_compressed`
        pub log_store_compressed: bool = false,
        /// `log_unix_epoch`
        pub log_unix_epoch: bool = false,
        /// `log_alternate_epoch`
        pub log_alternate_epoch: bool = false,
        /// `log_alternate_epoch_clock_id`
        pub log_alternate_epoch_clock_id: Option<i32> = None,
        /// `block_error_percentiles`
        pub block_error_percentiles: bool = false,
        /// `stats`: 0 leaves the job out of the report
        pub stats: bool = true,
        /// `scramble_buffers`
        pub scramble_buffers: bool = true,
        /// `buffer_compress_chunk`
        pub buffer_compress_chunk: u64 = 512,
        /// `slat_percentiles`
        pub slat_percentiles: bool = false,
        /// `significant_figures`
        pub significant_figures: u32 = 4,
        /// `disk_util`: 0 leaves out the disk statistics
        pub disk_util: bool = true,
        /// `disable_lat`
        pub disable_lat: bool = false,
        /// `disable_clat`
        pub disable_clat: bool = false,
        /// `disable_slat`
        pub disable_slat: bool = false,
        /// `disable_bw_measurement`
        pub disable_bw: bool = false,
        /// `gtod_cpu`
        pub gtod_cpu: Option<u32> = None,
        /// `unified_rw_reporting`
        pub unified: Unified = Unified::None,
        /// `profile`
        pub profile: Option<String> = None,
        /// `cgroup`
        pub cgroup: Option<String> = None,
        /// `cgroup_nodelete`
        pub cgroup_nodelete: bool = false,
        /// `cgroup_weight`
        pub cgroup_weight: Option<u32> = None,
        /// `uid`
        pub uid: Option<u32> = None,
        /// `gid`
        pub gid: Option<u32> = None,
        /// io_uring `fixedbufs`
        pub fixedbufs: bool = false,
        /// io_uring `registerfiles`
        pub registerfiles: bool = false,
        /// io_uring `nonvectored`
        pub nonvectored: i64 = -1,
        /// io_uring/pvsync2 `uncached` (pvsync2: fio 3.33's RWF_UNCACHED on buffered I/O)
        pub uncached: u32 = 0,
        /// io_uring/libaio/pvsync2 `nowait`: RWF_NOWAIT
        pub nowait: bool = false,
        /// pvsync2 `hipri_percentage`: the share of requests `hipri` marks RWF_HIPRI
        pub hipri_percentage: u32 = 100,
        /// mmap `thp`: MADV_HUGEPAGE on the mapping
        pub thp: bool = false,
    }
}
