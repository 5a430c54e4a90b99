//! What one job thread's requests are, beyond [`crate::job::thread::ThreadJob`]: the
//! one job model's [`Workload`], which the worker's rules read request by request —
//! how each request is picked (direction, size, offset, file), how many there are and
//! for how long, how they are paced, what writes carry, when they are synced, how
//! written data is checked, what a failure does, how the queue is filled and drained.
//! Each dialect fills it once per job, as the `work` half of the one job model
//! (`FioJob::model`, job/fio/workload.rs; `FileioJob::model`, job/sysbench/model.rs);
//! the worker (`run/worker/`) and sysbench's
//! generator (`run/sysbench/gen.rs`) read it and never a dialect's fields.
//!
//! Pure values, no I/O; each field says which fio key fills it where the name differs,
//! and the few values only sysbench states say so: fio fills them with their "none".

use super::{BlockSizes, Distribution, FileService, RandGen, RateProcess, RwMode};
use crate::job::model::failure::ContinueOnError;
use crate::job::model::verify::VerifyKind;
use std::time::Duration;

/// Everything one job thread's requests are picked, paced, checked and judged by.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// the job's name, as messages and logs name it
    pub name: String,
    /// direction, size, offset and order of each request
    pub pick: Picking,
    /// the files a request goes to and their page cache
    pub files: FilePicking,
    /// how long and how much the thread runs
    pub limits: Limits,
    /// rates, minimum rates, think time
    pub pacing: Pacing,
    /// what write buffers carry
    pub data: Data,
    /// when writes are made durable
    pub syncs: SyncPoints,
    /// how written data is checked
    pub verify: Verify,
    /// what a failed or late request does to the job
    pub failure: Failure,
    /// how the queue is filled and drained
    pub queue: Queue,
    /// what is measured besides the requests' counts
    pub measure: Measure,
    /// the words a dialect's own report states the job in (sysbench's; fio's none)
    pub labels: Labels,
}

/// The words and figures a dialect's own report states the job in where the model's
/// values say it otherwise (`Default`: none). Filled by sysbench's translation
/// (`FileioJob::model`) for its `run` header, its `--progress` line and its notes; fio
/// leaves them empty, its reports read its own job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    /// the test mode's name: sysbench's `--file-test-mode` (`rndrw`); empty without one
    pub mode: &'static str,
    /// the test in sysbench's header words (`Doing random r/w test`: `random r/w`);
    /// empty without a test mode
    pub test: &'static str,
    /// the engine in sysbench's header words (`Using synchronous I/O mode`:
    /// `synchronous`, of `--file-io-mode`)
    pub io_mode: &'static str,
    /// the read/write ratio as given: sysbench's `--file-rw-ratio`, which its header
    /// prints for every random mode (`pick.read_ratio` holds it for `rndrw` alone)
    pub rw_ratio: f64,
}

/// How each request is picked.
#[derive(Clone, Debug, PartialEq)]
pub struct Picking {
    /// directions and their order (`rw`)
    pub rw: RwMode,
    /// the number after `rw=`'s colon: sequential jobs skip that many bytes after each
    /// request (negative: go backwards); random jobs issue that many sequential
    /// requests per random offset (0 = none)
    pub rw_suffix: i64,
    /// share of reads in a mixed job, percent (`rwmixread`)
    pub read_pct: u32,
    /// request sizes of reads, writes and trims (`bs`, `bsrange`, `bssplit`)
    pub bs: [BlockSizes; 3],
    /// unit of random offsets of reads, writes and trims (`blockalign`); None: that
    /// direction's smallest size
    pub offset_unit: [Option<u64>; 3],
    /// sizes need not be multiples of the smallest one (`bs_unaligned`)
    pub bs_unaligned: bool,
    /// reads and writes of a mixed job walk one offset sequence (`rw_identical`)
    pub same_offsets: bool,
    /// where random offsets fall, reads and writes (`random_distribution`)
    pub dist: [Distribution; 2],
    /// share of random requests in a random job per direction (reads, writes, trims),
    /// percent (`percentage_random`)
    pub random_pct: [u32; 3],
    /// no map of the blocks taken (`norandommap`)
    pub no_map: bool,
    /// the offset generator the job names (`random_generator`)
    pub generator: Option<RandGen>,
    /// `random_distribution=sequence`'s stride (`random_sequence_stride`)
    pub sequence_stride: u64,
    /// `sprandom`: (regions, over-provisioning share); None without it
    pub sprandom: Option<(u32, f64)>,
    /// the generators start over at each loop (`randrepeat` without `randseed`: fio's
    /// `rand_repeatable` after its fixup)
    pub repeat: bool,
    /// reads per write of a mixed job, decided by what has completed: the next request
    /// reads while (reads done + 1) / (writes done + 1) is below it; may be +inf (reads
    /// only) or 0 (writes only). Filled by sysbench (`--file-rw-ratio` of `rndrw`); fio
    /// leaves None, its mix is `read_pct`'s draw
    pub read_ratio: Option<f64>,
    /// blocks a sequential request joins (0 or 1: one). Filled by sysbench
    /// (`--file-merged-requests`); fio leaves 0, its sizes are `bs` alone
    pub merged: u32,
}

impl Picking {
    /// The direction (0 reads, 1 writes, 2 trims) each of a worker's two request
    /// slots serves: the first reads, or trims in a job that trims (no `rw` both reads
    /// and trims), the second writes.
    pub fn slot_dirs(&self) -> [usize; 2] {
        [if self.rw.trims() { 2 } else { 0 }, 1]
    }

    /// The request sizes of slot `slot` ([`Picking::slot_dirs`]).
    pub fn slot_bs(&self, slot: usize) -> &BlockSizes {
        &self.bs[self.slot_dirs()[slot]]
    }

    /// The unit of random offsets of slot `slot` ([`Picking::slot_dirs`]): its
    /// `blockalign`, else its smallest size.
    pub fn slot_unit(&self, slot: usize) -> u64 {
        let d = self.slot_dirs()[slot];
        self.offset_unit[d].unwrap_or(self.bs[d].min()).max(1)
    }
}

/// Which file each request goes to, and the files' page cache.
#[derive(Clone, Debug, PartialEq)]
pub struct FilePicking {
    /// how the next file is chosen, and after how many requests (`file_service_type`)
    pub service: (FileService, u64),
    /// files open at once (`openfiles`); None: all
    pub open_files: Option<u32>,
    /// drop the files' page cache at each pass (`invalidate`)
    pub invalidate: bool,
    /// the files are read into the page cache before the job (`pre_read`)
    pub pre_read: bool,
    /// the file set is made anew, every file empty, before the run: whatever each name
    /// held is removed (a link's target keeps its bytes) and the files are written from
    /// their start. Filled by sysbench (`--file-test-mode=seqwr`); fio leaves false, its
    /// files are laid out as its own keys say
    pub recreate: bool,
}

/// How long and how much one thread runs, beyond the model's time and request limits.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// passes over the files (`loops`)
    pub loops: u64,
    /// run for the whole time limit, starting the files over (`time_based`)
    pub time_based: bool,
    /// time before measuring starts (`ramp_time`)
    pub ramp: Duration,
    /// bytes to move, when set apart from the files' size (`io_size`, a percentage
    /// resolved against the thread's files)
    pub io_size: Option<u64>,
}

/// How requests are spaced (`Default`: unpaced, no minimum, no pause).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pacing {
    /// bytes/s per direction, reads, writes and trims (`rate`; 0 = unlimited)
    pub rate_bytes: [u64; 3],
    /// requests/s per direction (`rate_iops`; 0 = unlimited)
    pub rate_iops: [u64; 3],
    /// how a rate spaces requests (`rate_process`)
    pub process: RateProcess,
    /// bytes/s per direction below which the job fails (`ratemin`)
    pub min_bytes: [u64; 3],
    /// requests/s per direction below which the job fails (`rate_iops_min`)
    pub min_iops: [u64; 3],
    /// window the minimum rates are averaged over (`ratecycle`)
    pub min_cycle: Duration,
    /// the pause (`thinktime`)
    pub think: Duration,
    /// its part spent spinning (`thinktime_spin`)
    pub think_spin: Duration,
    /// requests between pauses (`thinktime_blocks`)
    pub think_blocks: u64,
    /// `thinktime_blocks` was given (without it, `thinktime_iotime` alone decides)
    pub think_blocks_given: bool,
    /// time of I/O between pauses (`thinktime_iotime`)
    pub think_iotime: Duration,
    /// the blocks are counted at issue, not completion (`thinktime_blocks_type=issue`)
    pub think_at_issue: bool,
    /// pause of a thread held back by its flow (`flow_sleep`)
    pub flow_sleep: Duration,
}

/// What write buffers carry.
#[derive(Clone, Debug, PartialEq)]
pub struct Data {
    /// zeros (`zero_buffers`)
    pub zero: bool,
    /// these bytes repeated (`buffer_pattern`; empty: none)
    pub pattern: Vec<u8>,
    /// new contents for every write (`refill_buffers`)
    pub refill: bool,
    /// share of each chunk left zero, percent (`buffer_compress_percentage`)
    pub compress_pct: u32,
    /// bytes of a chunk (`buffer_compress_chunk`)
    pub compress_chunk: u64,
    /// a buffer's start changed per write (`scramble_buffers`)
    pub scramble: bool,
    /// share of writes that repeat earlier data, percent (`dedupe_percentage`)
    pub dedupe_pct: u32,
}

/// When writes are made durable.
#[derive(Clone, Debug, PartialEq)]
pub struct SyncPoints {
    /// fsync after every N writes (`fsync`; 0 = never)
    pub fsync_every: u64,
    /// fdatasync after every N writes (`fdatasync`; 0 = never)
    pub fdatasync_every: u64,
    /// sync_file_range(flags) after every N writes (`sync_file_range`)
    pub range_every: Option<(u32, u64)>,
    /// fsync once the writes are done (`end_fsync`)
    pub at_end: bool,
    /// fsync each file when it is closed (`fsync_on_close`)
    pub on_close: bool,
    /// after every N requests of the whole run, reads and writes alike, once something
    /// was written: a series of sync events, one per file of the set (0 = never).
    /// Filled by sysbench (`--file-fsync-freq`, by the thread's sync call); fio leaves 0,
    /// its syncs count each file's writes (`fsync_every`)
    pub series_every: u64,
}

/// How written data is checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verify {
    /// the check each written block carries (`verify`); None: no check
    pub kind: Option<VerifyKind>,
    /// the pattern (`verify_pattern`)
    pub pattern: Vec<u8>,
    /// offsets in the pattern where a block's offset is written (`verify_pattern`'s `%o`)
    pub pattern_offsets: Vec<usize>,
    /// where in a block the header is (`verify_offset`; 0 = its start)
    pub header_at: u64,
    /// bytes checked per header (`verify_interval`; 0 = the block)
    pub interval: u64,
    /// read back after every N written blocks (`verify_backlog`; 0 = at the end)
    pub backlog: u64,
    /// blocks read back at each backlog point (`verify_backlog_batch`)
    pub backlog_batch: u64,
    /// the header's write sequence number is checked (`verify_write_sequence`)
    pub write_sequence: bool,
    /// a mismatching block is dumped to a file (`verify_dump`)
    pub dump: bool,
    /// the written blocks are read back at all (`do_verify`)
    pub read_back: bool,
    /// the first mismatch stops the job (`verify_fatal`)
    pub fatal: bool,
}

/// What a failed or late request does to the job.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// failed requests the job goes on after (`continue_on_error`)
    pub continue_on: ContinueOnError,
    /// errno lists of reads, writes and verify the job goes on after (`ignore_error`)
    pub ignore: [Option<Vec<i32>>; 3],
    /// each error the job goes on after is printed (`error_dump`)
    pub dump: bool,
    /// writes go until the device is full, which ends the job (`fill_device`)
    pub fill_device: bool,
    /// latency above which a request fails the job, ns, reads and writes
    /// (`max_latency`; 0 = none)
    pub max_latency: [u64; 2],
}

/// How the queue is filled and drained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Queue {
    /// requests in flight at most (`iodepth`)
    pub depth: u32,
    /// requests submitted at once (`iodepth_batch`)
    pub batch: u32,
    /// completions reaped at least at once (`iodepth_batch_complete_min`)
    pub reap_min: u32,
    /// completions taken per reap at most, 0: every one ready (`iodepth_batch_complete_max`
    /// as given, which fio's thread resolves against the depth; sysbench's 0, as its
    /// `io_getevents(ctx, 1, backlog, …)`; mark's presets 1)
    pub reap_max: u32,
    /// depth the queue drains to before filling again (`iodepth_low`; 0 = depth)
    pub low: u32,
    /// requests are issued from a thread apart (`io_submit_mode=offload`)
    pub offload: bool,
    /// the flow the thread runs under, (`flow_id`, `flow` weight); None: no flow
    pub flow: Option<(u32, u32)>,
    /// the depth is searched for a latency target (`latency_target`)
    pub lat_target: Option<LatTargetSpec>,
    /// a request that overlaps one in flight waits until that one completes
    /// (`serialize_overlap`, as fio's fixup leaves it: a job that writes or trims, or
    /// replays a log, at a depth above 1 or under offload)
    pub serialize_overlap: bool,
}

/// `latency_target` search settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatTargetSpec {
    /// `latency_target` (total latency, submit to completion)
    pub target: Duration,
    /// `latency_window`: how long each depth is tried
    pub window: Duration,
    /// `latency_percentile`: share of I/Os (percent) that must stay at or below the target
    pub percentile: f64,
    /// `latency_run`: keep adjusting instead of stopping once the depth is found
    pub run: bool,
}

/// What is measured besides the requests' counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    /// fewer clock reads (fio's `gtod_reduce`: completion and submission latencies and
    /// bandwidth samples all off): no per-request IOPS samples, and no latency at all
    /// when the total latency is off too ([`Measure::no_lat`])
    pub gtod_reduce: bool,
    /// no total latency (`disable_lat`)
    pub no_lat: bool,
    /// no per-request bandwidth samples (`disable_bw_measurement`, or `gtod_reduce=1`
    /// not followed by `disable_bw=0`)
    pub no_bw: bool,
    /// priority latencies are total latencies, not completion ones (`lat_percentiles`)
    pub total_lat: bool,
    /// a steady-state check watches the job (`steadystate_duration` > 0)
    pub steady: bool,
}
