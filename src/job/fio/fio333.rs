//! fio 3.33's own option names, the facts the fio persona checks input against: its
//! job options in the order of its table (what a job file and `--KEY` may name, and the
//! order its "Did you mean" walks), its profiles' options, its command-line options, and
//! its engines' options.
//! These are fio's names, not iomark's: a name here that iomark does not run is still
//! one fio 3.33 accepts, so the fio persona keeps its own line for it.

/// fio 3.33's job options in its table order: `(name, alias)`.
pub(crate) const JOB: &[(&str, Option<&str>)] = &[
    ("description", None),
    ("name", None),
    ("wait_for", None),
    ("filename", None),
    ("directory", None),
    ("filename_format", None),
    ("unique_filename", None),
    ("lockfile", None),
    ("opendir", None),
    ("rw", Some("readwrite")),
    ("rw_sequencer", None),
    ("ioengine", None),
    ("iodepth", None),
    ("iodepth_batch", Some("iodepth_batch_submit")),
    ("iodepth_batch_complete_min", Some("iodepth_batch_complete")),
    ("iodepth_batch_complete_max", None),
    ("iodepth_low", None),
    ("serialize_overlap", None),
    ("io_submit_mode", None),
    ("size", None),
    ("io_size", Some("io_limit")),
    ("fill_device", Some("fill_fs")),
    ("filesize", None),
    ("file_append", None),
    ("offset", Some("fileoffset")),
    ("offset_align", None),
    ("offset_increment", None),
    ("number_ios", None),
    ("bs", Some("blocksize")),
    ("ba", Some("blockalign")),
    ("bsrange", Some("blocksize_range")),
    ("bssplit", None),
    ("bs_unaligned", Some("blocksize_unaligned")),
    ("bs_is_seq_rand", None),
    ("randrepeat", None),
    ("randseed", None),
    ("norandommap", None),
    ("softrandommap", None),
    ("random_generator", None),
    ("random_distribution", None),
    ("percentage_random", None),
    ("percentage_sequential", None),
    ("allrandrepeat", None),
    ("nrfiles", Some("nr_files")),
    ("openfiles", None),
    ("file_service_type", None),
    ("fallocate", None),
    ("fadvise_hint", None),
    ("fsync", None),
    ("fdatasync", None),
    ("write_barrier", None),
    ("sync_file_range", None),
    ("direct", None),
    ("atomic", None),
    ("buffered", None),
    ("overwrite", None),
    ("loops", None),
    ("numjobs", None),
    ("startdelay", None),
    ("runtime", Some("timeout")),
    ("time_based", None),
    ("verify_only", None),
    ("ramp_time", None),
    ("clocksource", None),
    ("mem", Some("iomem")),
    ("iomem_align", Some("mem_align")),
    ("verify", None),
    ("do_verify", None),
    ("verifysort", None),
    ("verifysort_nr", None),
    ("verify_interval", None),
    ("verify_offset", None),
    ("verify_pattern", None),
    ("verify_fatal", None),
    ("verify_dump", None),
    ("verify_async", None),
    ("verify_backlog", None),
    ("verify_backlog_batch", None),
    ("verify_async_cpus", None),
    ("experimental_verify", None),
    ("verify_state_load", None),
    ("verify_state_save", None),
    ("trim_percentage", None),
    ("trim_verify_zero", None),
    ("trim_backlog", None),
    ("trim_backlog_batch", None),
    ("write_iolog", None),
    ("read_iolog", None),
    ("read_iolog_chunked", None),
    ("replay_no_stall", None),
    ("replay_redirect", None),
    ("replay_scale", None),
    ("replay_align", None),
    ("replay_time_scale", None),
    ("replay_skip", None),
    ("merge_blktrace_file", None),
    ("merge_blktrace_scalars", None),
    ("merge_blktrace_iters", None),
    ("exec_prerun", None),
    ("exec_postrun", None),
    ("ioscheduler", None),
    ("zonemode", None),
    ("zonesize", None),
    ("zonecapacity", None),
    ("zonerange", None),
    ("zoneskip", None),
    ("read_beyond_wp", None),
    ("max_open_zones", None),
    ("job_max_open_zones", None),
    ("ignore_zone_limits", None),
    ("zone_reset_threshold", None),
    ("zone_reset_frequency", None),
    ("lockmem", None),
    ("rwmixread", None),
    ("rwmixwrite", None),
    ("rwmixcycle", None),
    ("nice", None),
    ("prio", None),
    ("prioclass", None),
    ("thinktime", None),
    ("thinktime_spin", None),
    ("thinktime_blocks", None),
    ("thinktime_blocks_type", None),
    ("thinktime_iotime", None),
    ("rate", None),
    ("rate_min", Some("ratemin")),
    ("rate_iops", None),
    ("rate_iops_min", None),
    ("rate_process", None),
    ("rate_cycle", Some("ratecycle")),
    ("rate_ignore_thinktime", None),
    ("max_latency", None),
    ("latency_target", None),
    ("latency_window", None),
    ("latency_percentile", None),
    ("latency_run", None),
    ("invalidate", None),
    ("sync", None),
    ("write_hint", None),
    ("create_serialize", None),
    ("create_fsync", None),
    ("create_on_open", None),
    ("create_only", None),
    ("allow_file_create", None),
    ("allow_mounted_write", None),
    ("pre_read", None),
    ("cpumask", None),
    ("cpus_allowed", None),
    ("cpus_allowed_policy", None),
    ("numa_cpu_nodes", None),
    ("numa_mem_policy", None),
    ("gpu_dev_id", None),
    ("end_fsync", None),
    ("fsync_on_close", None),
    ("unlink", None),
    ("unlink_each_loop", None),
    ("exitall", None),
    ("exit_what", None),
    ("exitall_on_error", None),
    ("stonewall", Some("wait_for_previous")),
    ("new_group", None),
    ("thread", None),
    ("per_job_logs", None),
    ("write_bw_log", None),
    ("write_lat_log", None),
    ("write_iops_log", None),
    ("log_entries", None),
    ("log_avg_msec", None),
    ("log_hist_msec", None),
    ("log_hist_coarseness", None),
    ("write_hist_log", None),
    ("log_max_value", None),
    ("log_offset", None),
    ("log_prio", None),
    ("log_compression", None),
    ("log_compression_cpus", None),
    ("log_store_compressed", None),
    ("log_unix_epoch", None),
    ("log_alternate_epoch", None),
    ("log_alternate_epoch_clock_id", None),
    ("block_error_percentiles", None),
    ("bwavgtime", None),
    ("iopsavgtime", None),
    ("group_reporting", None),
    ("stats", None),
    ("zero_buffers", None),
    ("refill_buffers", None),
    ("scramble_buffers", None),
    ("buffer_pattern", None),
    ("buffer_compress_percentage", None),
    ("buffer_compress_chunk", None),
    ("dedupe_percentage", None),
    ("dedupe_global", None),
    ("dedupe_mode", None),
    ("dedupe_working_set_percentage", None),
    ("clat_percentiles", None),
    ("lat_percentiles", None),
    ("slat_percentiles", None),
    ("percentile_list", None),
    ("significant_figures", None),
    ("disk_util", None),
    ("gtod_reduce", None),
    ("disable_lat", None),
    ("disable_clat", None),
    ("disable_slat", None),
    ("disable_bw_measurement", Some("disable_bw")),
    ("gtod_cpu", None),
    ("unified_rw_reporting", None),
    ("continue_on_error", None),
    ("ignore_error", None),
    ("error_dump", None),
    ("profile", None),
    ("cgroup", None),
    ("cgroup_nodelete", None),
    ("cgroup_weight", None),
    ("uid", None),
    ("gid", None),
    ("kb_base", None),
    ("unit_base", None),
    ("hugepage-size", None),
    ("flow_id", None),
    ("flow", None),
    ("flow_watermark", None),
    ("flow_sleep", None),
    ("steadystate", Some("ss")),
    ("steadystate_duration", Some("ss_dur")),
    ("steadystate_ramp_time", Some("ss_ramp")),
];

/// The options of fio 3.33's built-in profiles (`act`, `tiobench`), which it adds to its
/// job options (a job file's `threads=1` is tiobench's).
pub(crate) const PROFILE: &[&str] = &[
    "device-names",
    "load",
    "test-duration",
    "threads-per-queue",
    "read-req-num-512-blocks",
    "large-block-op-kbytes",
    "prep",
    "block",
    "numruns",
    "dir",
    "threads",
];

/// fio 3.33's own command-line options (before the job options in its getopt table).
pub(crate) const COMMAND: &[&str] = &[
    "output",
    "latency-log",
    "bandwidth-log",
    "minimal",
    "output-format",
    "append-terse",
    "version",
    "help",
    "cmdhelp",
    "enghelp",
    "showcmd",
    "readonly",
    "eta",
    "eta-interval",
    "eta-newline",
    "debug",
    "parse-only",
    "section",
    "inflate-log",
    "alloc-size",
    "profile",
    "warnings-fatal",
    "max-jobs",
    "terse-version",
    "server",
    "server-internal",
    "daemonize",
    "client",
    "remote-config",
    "cpuclock-test",
    "crctest",
    "memcpytest",
    "idle-prof",
    "status-interval",
    "trigger-file",
    "trigger-timeout",
    "trigger",
    "trigger-remote",
    "aux-path",
    "merge-blktrace-only",
];

/// The options of fio 3.33's engines that iomark does not list in `--enghelp` (any
/// engine's: a job file's key is checked against them all); the options of iomark's
/// engines are their `--enghelp` table's ([`super::options::engine_option_names`]).
pub(crate) const ENGINE: &[&str] = &[
    "pool",
    "cont",
    "chunk_size",
    "object_class",
    "svcl",
    "volume",
    "brick",
    "single-instance",
    "https",
    "http_host",
    "http_user",
    "http_pass",
    "http_s3_key",
    "http_s3_keyid",
    "http_swift_auth_token",
    "http_s3_region",
    "http_s3_sse_customer_key",
    "http_s3_sse_customer_algorithm",
    "http_s3_storage_class",
    "http_mode",
    "http_verbose",
    "gpu_dev_ids",
    "cuda_io",
    "namenode",
    "hdfsdirectory",
    "chunck_size",
    "single_instance",
    "hdfs_use_direct",
    "initiator",
    "serverip",
    "direct_write_to_pmem",
    "busy_wait_polling",
    "skip_bad",
    "uri",
    "proto",
    "nfs_url",
    "clustername",
    "clientname",
    "conf",
    "busy_poll",
    "touch_objects",
    "rbdname",
    "bindname",
    "verb",
    "readfua",
    "writefua",
    "sg_write_mode",
    "stream_id",
    "dummy",
    "hipri_percentage",
    "no_completion_thread",
    "xnvme_be",
    "xnvme_async",
    "xnvme_sync",
    "xnvme_admin",
    "xnvme_dev_nsid",
    "xnvme_iovec",
];

/// fio's `string_distance`: the Levenshtein distance of `a` and `b` (strsim's, over
/// characters; fio counts bytes, the same for its ASCII option names).
fn distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

/// The first of `names` nearest to `name` and its distance (fio keeps the first of
/// equals: a later name must be strictly nearer).
fn nearest<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Option<(&'a str, usize)> {
    let mut best: Option<(&str, usize)> = None;
    for n in names {
        let d = distance(name, n);
        if best.is_none_or(|(_, b)| d < b) {
            best = Some((n, d));
        }
    }
    best
}

/// fio's `string_distance_ok`: a guess is worth saying within half the word's length.
fn near_enough(word: &str, d: usize) -> bool {
    d <= word.len().div_ceil(2)
}

fn same(a: &str, b: &str) -> bool {
    a.replace('-', "_") == b.replace('-', "_")
}

/// Whether fio 3.33 reads `key` in a job file: one of its job options (name or alias)
/// or one of its engines' options (`-` and `_` alike, as iomark reads keys).
pub fn job_key_known(key: &str) -> bool {
    JOB.iter()
        .any(|(n, a)| same(n, key) || a.is_some_and(|a| same(a, key)))
        || ENGINE
            .iter()
            .copied()
            .chain(PROFILE.iter().copied())
            .chain(super::options::engine_option_names())
            .any(|n| same(n, key))
}

/// The option fio 3.33 names in `Did you mean X?` after `Bad option <OPT>` in a job
/// file (options.c: the word up to its `=`, against its job options' names).
pub fn did_you_mean_job(opt: &str) -> Option<&'static str> {
    let name = opt.split('=').next().unwrap_or("");
    if name.is_empty() {
        return None;
    }
    let names = JOB.iter().map(|(n, _)| *n).chain(PROFILE.iter().copied());
    nearest(name, names)
        .filter(|(_, d)| near_enough(name, *d))
        .map(|(n, _)| n)
}

/// The option fio 3.33 names in `Did you mean X?` after getopt's `unrecognized option
/// 'WORD'` (init.c: the word without its leading dashes, `=VALUE` kept, against its
/// command-line options and then every job option's name and alias).
pub fn did_you_mean_cmdline(word: &str) -> Option<&'static str> {
    let name = word.trim_start_matches('-');
    let names = COMMAND.iter().copied().chain(
        JOB.iter()
            .flat_map(|(n, a)| std::iter::once(*n).chain(a.iter().copied())),
    );
    nearest(name, names)
        .filter(|(_, d)| near_enough(name, *d))
        .map(|(n, _)| n)
}

/// The option `--cmdhelp=KEY` shows as fio 3.33's "closest match" for a name it does
/// not have: the nearest job option, fewer than 3 edits away (parse.c show_cmd_help).
pub fn cmdhelp_closest(key: &str) -> Option<&'static str> {
    nearest(key, JOB.iter().map(|(n, _)| *n))
        .filter(|(_, d)| *d < 3)
        .map(|(n, _)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options of iomark's engines are named once, in their `--enghelp` table, and
    /// are job-file keys fio knows.
    #[test]
    fn engine_options_are_named_once() {
        for n in crate::job::fio::options::engine_option_names() {
            assert!(!ENGINE.contains(&n), "{n} is in both lists");
            assert!(job_key_known(n), "{n}");
        }
        assert!(job_key_known("sqthread_poll") && job_key_known("rbdname"));
        assert!(!job_key_known("sqthread_pol"));
    }

    #[test]
    fn fios_guesses_and_names() {
        assert_eq!(distance("bogus", "bs"), 3);
        assert_eq!(did_you_mean_cmdline("--bogus"), Some("bs"));
        assert_eq!(did_you_mean_cmdline("--bogus=1"), None);
        assert_eq!(did_you_mean_cmdline("-x"), None);
        assert_eq!(did_you_mean_cmdline("--iodpeth"), Some("iodepth"));
        assert_eq!(did_you_mean_job("readonly=1"), Some("create_only"));
        assert_eq!(
            did_you_mean_job("random_sequence_stride=0"),
            Some("rw_sequencer")
        );
        assert_eq!(did_you_mean_job("bogusopt=1"), None);
        assert_eq!(cmdhelp_closest("iodepht"), Some("iodepth"));
        assert_eq!(cmdhelp_closest("bogus"), None);
        assert!(job_key_known("hostname") && job_key_known("blocksize"));
        assert!(job_key_known("threads"));
        assert_eq!(did_you_mean_job("threadsx=1"), Some("threads"));
        assert!(job_key_known("time-based"));
        assert!(!job_key_known("readonly") && !job_key_known("verify_write_sequence"));
    }
}
