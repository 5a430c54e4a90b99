//! Table-driven tests of the option table: every entry parses its example, every alias
//! resolves to its entry, every name gets a "did you mean" from a near miss, the key set
//! and the command-line forms are those iomark had before the table.

use super::*;
use crate::job::fio::FioJob;
use crate::job::fio::SizeSpec;

fn job_apply(key: &str, v: Option<&str>) -> Result<FioJob, FioError> {
    let mut j = FioJob::default();
    apply(&mut j, key, v, &Origin::CommandLine, &mut Vec::new())?;
    Ok(j)
}

fn cmd_apply(o: &FioOption, key: &str, v: Option<&str>) -> Result<Parse, FioError> {
    let Apply::Command(f) = o.apply else {
        panic!("{} is not a command-line option", o.name)
    };
    let mut p = Parse::default();
    f(&mut CmdCtx { p: &mut p, key }, v)?;
    Ok(p)
}

/// Every name and alias, with its entry.
fn names() -> Vec<(&'static str, &'static FioOption)> {
    all()
        .flat_map(|o| {
            std::iter::once(o.name)
                .chain(o.aliases.iter().copied())
                .map(move |n| (n, o))
        })
        .collect()
}

#[test]
fn every_entry_parses_its_example() {
    for o in all() {
        match o.apply {
            Apply::Job(_) => {
                let j = job_apply(o.name, o.example)
                    .unwrap_or_else(|e| panic!("{}={:?}: {e}", o.name, o.example));
                assert_eq!(
                    j.options,
                    vec![(o.name.to_string(), o.example.unwrap_or("").to_string())],
                    "{} is recorded as written",
                    o.name
                );
            }
            Apply::Command(_) => {
                cmd_apply(o, o.name, o.example)
                    .unwrap_or_else(|e| panic!("--{}={:?}: {e}", o.name, o.example));
            }
            // read by cli/run.rs before parsing; the parser names them so
            Apply::Front => {
                let a = vec![
                    format!("--{}", o.name),
                    "--name=j".into(),
                    "--size=1m".into(),
                ];
                let e = crate::job::fio::parse_args_with(&a, &|_| None).unwrap_err();
                assert!(e.to_string().contains("read by `iomark run` itself"), "{e}");
            }
        }
    }
}

#[test]
fn every_flag_and_boolean_accepts_numbers_and_a_bare_key() {
    for o in all().filter(|o| matches!(o.kind, Kind::Flag | Kind::Bool)) {
        if let Apply::Job(_) = o.apply {
            job_apply(o.name, Some("0")).unwrap_or_else(|e| panic!("{}=0: {e}", o.name));
            job_apply(o.name, None).unwrap_or_else(|e| panic!("{}: {e}", o.name));
            job_apply(o.name, Some("-1")).unwrap_or_else(|e| panic!("{}=-1: {e}", o.name));
            // a "set" key takes any number, a boolean one up to 1
            let fifty = job_apply(o.name, Some("50"));
            assert_eq!(
                fifty.is_ok(),
                o.kind == Kind::Flag,
                "{}=50: {fifty:?}",
                o.name
            );
            // `iomark run` takes the words, the fio persona only numbers, as fio 3.33
            job_apply(o.name, Some("yes")).unwrap_or_else(|e| panic!("{}=yes: {e}", o.name));
            let e = job_apply(o.name, Some("maybe")).unwrap_err().to_string();
            assert!(
                e.contains("a boolean: a number (0 is off"),
                "{}: {e}",
                o.name
            );
            let mut fio = FioJob {
                fio_persona: true,
                ..FioJob::default()
            };
            let e = apply(
                &mut fio,
                o.name,
                Some("yes"),
                &Origin::CommandLine,
                &mut Vec::new(),
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("a boolean is a number"), "{}: {e}", o.name);
        }
    }
}

#[test]
fn every_alias_resolves_to_its_entry_and_applies_the_same() {
    for o in all() {
        for a in o.aliases {
            assert!(std::ptr::eq(find(a).unwrap(), o), "{a} → {}", o.name);
            let dashed = a.replace('_', "-");
            assert!(
                std::ptr::eq(find(&dashed.replace('-', "_")).unwrap(), o),
                "{dashed}"
            );
            if let Apply::Job(_) = o.apply {
                let mut by_name = job_apply(o.name, o.example).unwrap();
                let mut by_alias = job_apply(a, o.example).unwrap();
                by_name.options.clear();
                by_alias.options.clear();
                assert_eq!(by_name, by_alias, "{a} is {}", o.name);
            }
        }
    }
}

#[test]
fn names_are_unique_and_in_their_spelling() {
    let all_names = names();
    for (i, (n, _)) in all_names.iter().enumerate() {
        for (m, _) in &all_names[i + 1..] {
            assert!(!same(n, m), "{n} and {m} are the same key");
        }
        assert!(
            !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || b == b'_'
                    || b == b'-'),
            "{n}"
        );
    }
    for o in all() {
        assert!(
            !o.help.is_empty() && !o.help.contains('\n'),
            "{}: one-line help",
            o.name
        );
        let job_key = matches!(o.apply, Apply::Job(_));
        assert_eq!(job_key, o.group != Group::CommandLine, "{}: group", o.name);
        if job_key {
            assert!(
                !o.name.contains('-'),
                "{}: job keys are spelt with _",
                o.name
            );
        }
    }
}

#[test]
fn a_near_miss_of_every_key_gets_its_name() {
    for (n, o) in names() {
        // drop the last character; a key too short for that, or one that is another
        // key without its last character (`threads`), gets one more character
        let dropped = &n[..n.len() - 1];
        let miss = if n.len() >= 4 && find(&dropped.replace('-', "_")).is_none() {
            dropped.to_string()
        } else {
            format!("{n}x")
        };
        let hint = did_you_mean(&miss);
        let named = hint
            .strip_prefix("; did you mean '")
            .and_then(|h| h.strip_suffix("'?"))
            .unwrap_or_else(|| panic!("{miss}: no hint ({hint:?})"));
        assert!(
            o.is(&named.replace('-', "_")),
            "{miss} → {named}, expected {n}"
        );
    }
    // the typo, and one of iomark's own options
    assert_eq!(
        did_you_mean("max_open_zone"),
        "; did you mean 'max_open_zones'?"
    );
    assert_eq!(did_you_mean("reap_spn"), "; did you mean 'reap-spin'?");
    assert_eq!(did_you_mean("iodpeth"), "; did you mean 'iodepth'?");
    // no guess for a far key, or for one too short to tell
    for far in ["banana_split", "zz", "xyzzy", "frobnicate_all"] {
        assert_eq!(did_you_mean(far), "", "{far}");
    }
}

/// Keys beyond the core job model (every key of fio 3.33's `--cmdhelp=all` and of its
/// `--enghelp` for iomark's engines), with their aliases.
const ADDED: &[&str] = &[
    "lockfile",
    "unique_filename",
    "opendir",
    "bs_unaligned",
    "blocksize_unaligned",
    "rw_sequencer",
    "serialize_overlap",
    "file_append",
    "offset_align",
    "allrandrepeat",
    "file_service_type",
    "write_barrier",
    "sync_file_range",
    "overwrite",
    "verify_only",
    "clocksource",
    "mem",
    "iomem",
    "iomem_align",
    "mem_align",
    "verify_offset",
    "trim_percentage",
    "trim_verify_zero",
    "trim_backlog",
    "trim_backlog_batch",
    "read_iolog_chunked",
    "merge_blktrace_file",
    "merge_blktrace_scalars",
    "merge_blktrace_iters",
    "exec_prerun",
    "exec_postrun",
    "ioscheduler",
    "zonecapacity",
    "ignore_zone_limits",
    "lockmem",
    "nice",
    "thinktime_blocks_type",
    "thinktime_iotime",
    "rate_ignore_thinktime",
    "max_latency",
    "write_hint",
    "pre_read",
    "cpumask",
    "cpus_allowed",
    "cpus_allowed_policy",
    "unlink_each_loop",
    "exitall_on_error",
    "log_entries",
    "log_hist_msec",
    "log_hist_coarseness",
    "write_hist_log",
    "log_max_value",
    "log_compression",
    "log_compression_cpus",
    "log_store_compressed",
    "log_unix_epoch",
    "log_alternate_epoch",
    "log_alternate_epoch_clock_id",
    "block_error_percentiles",
    "stats",
    "scramble_buffers",
    "buffer_compress_chunk",
    "slat_percentiles",
    "significant_figures",
    "disk_util",
    "disable_lat",
    "disable_clat",
    "disable_slat",
    "disable_bw_measurement",
    "disable_bw",
    "gtod_cpu",
    "unified_rw_reporting",
    "profile",
    "cgroup",
    "cgroup_nodelete",
    "cgroup_weight",
    "uid",
    "gid",
    "fixedbufs",
    "registerfiles",
    "nonvectored",
    "uncached",
    "nowait",
    // pvsync2's share of RWF_HIPRI requests (its --enghelp)
    "hipri_percentage",
    "cmd_type",
    "thp",
    // fio's names of keys iomark had under another (kept as aliases)
    "rate_cycle",
    "bwavgtime",
    "iopsavgtime",
    // fio's alias of offset
    "fileoffset",
];

/// Names of [`BEFORE`] that are no longer names (none: the old names are aliases).
const RENAMED: &[&str] = &[];

/// The six lists and the hidden keys of apply.rs, keys.rs, control.rs, extra.rs,
/// keys_verify.rs and zone_keys.rs (1df8125), and the command-line options of mod.rs
const BEFORE: &[&str] = &[
    "name",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "bsrange",
    "blocksize_range",
    "bssplit",
    "size",
    "filesize",
    "nrfiles",
    "nr_files",
    "filename",
    "directory",
    "numjobs",
    "ioengine",
    "iodepth",
    "direct",
    "buffered",
    "fsync",
    "end_fsync",
    "runtime",
    "timeout",
    "time_based",
    "ramp_time",
    "loops",
    "number_ios",
    "randseed",
    "norandommap",
    "group_reporting",
    "thread",
    "threads",
    "new_group",
    "stonewall",
    "wait_for_previous",
    "kb_base",
    "unit_base",
    "description",
    "sqthread_poll",
    "sqthread_poll_cpu",
    "hipri",
    "force_async",
    "random_distribution",
    "randrepeat",
    "percentage_random",
    "rate",
    "rate_iops",
    "rate_process",
    "thinktime",
    "thinktime_spin",
    "thinktime_blocks",
    "startdelay",
    "io_size",
    "io_limit",
    "blockalign",
    "ba",
    "filename_format",
    "iodepth_batch",
    "iodepth_batch_submit",
    "iodepth_batch_complete",
    "iodepth_batch_complete_min",
    "iodepth_batch_complete_max",
    "iodepth_low",
    "sync",
    "fdatasync",
    "fsync_on_close",
    "fadvise_hint",
    "continue_on_error",
    "invalidate",
    "create_on_open",
    "fallocate",
    "zero_buffers",
    "refill_buffers",
    "buffer_compress_percentage",
    "verify",
    "verify_pattern",
    "buffer_pattern",
    "do_verify",
    "verify_fatal",
    "write_bw_log",
    "write_iolog",
    "write_iops_log",
    "write_lat_log",
    "log_avg_msec",
    "bw_avg_time",
    "iops_avg_time",
    "log_offset",
    "percentile_list",
    "lat_percentiles",
    "clat_percentiles",
    "wait_for",
    "offset",
    "offset_increment",
    "exitall",
    "exit_what",
    "gtod_reduce",
    "ratemin",
    "rate_min",
    "rate_iops_min",
    "ratecycle",
    "flow",
    "flow_id",
    "flow_sleep",
    "steadystate",
    "ss",
    "steadystate_duration",
    "ss_dur",
    "steadystate_ramp_time",
    "ss_ramp",
    "steadystate_check_interval",
    "latency_target",
    "latency_window",
    "latency_percentile",
    "latency_run",
    "io_submit_mode",
    "prio",
    "prioclass",
    "cmdprio_percentage",
    "cmdprio_class",
    "cmdprio",
    "cmdprio_hint",
    "cmdprio_bssplit",
    "log_prio",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "dedupe_percentage",
    "dedupe_mode",
    "dedupe_working_set_percentage",
    "dedupe_global",
    "verify_backlog",
    "verify_backlog_batch",
    "verify_interval",
    "experimental_verify",
    "per_job_logs",
    "verify_write_sequence",
    "verify_dump",
    "verify_async",
    "ignore_error",
    "error_dump",
    "fill_device",
    "fill_fs",
    "create_serialize",
    "create_fsync",
    "atomic",
    "allow_file_create",
    "zonemode",
    "zonesize",
    "zonerange",
    "zoneskip",
    "max_open_zones",
    "job_max_open_zones",
    "zone_reset_threshold",
    "zone_reset_frequency",
    "read_beyond_wp",
    "random_generator",
    "random_sequence_stride",
    "sprandom",
    "spr_op",
    "spr_num_regions",
    "allow_mounted_write",
    "readonly",
    "read_only",
    // command line
    "output_format",
    "output",
    "status_interval",
    "section",
    "plot",
    "no_history",
    "live",
    "json",
    "allow_destructive_write",
    "reap_spin",
    "eta",
    "eta_newline",
    "eta_interval",
    "parse_only",
    "warnings_fatal",
    "max_jobs",
    "bandwidth_log",
    "notes",
    "minimal",
    "engine_strict",
    "showcmd",
    // libaio's option, new with the libaio engine
    "userspace_reap",
    // the no-data engines' options, openfiles, unlink=0, create_only
    "stat_type",
    "cpuload",
    "cpumode",
    "cpuchunks",
    "exit_on_io_done",
    "openfiles",
    "unlink",
    "create_only",
    // I/O log replay (run/fio/replay.rs) and e4defrag's options, new on fio15d
    "read_iolog",
    "replay_no_stall",
    "replay_redirect",
    "replay_scale",
    "replay_align",
    "replay_time_scale",
    "replay_skip",
    "donorname",
    "inplace",
    "program",
    "arguments",
    "grace_time",
    "std_redirect",
    // the net engine's options (src/engine/net.rs)
    "hostname",
    "port",
    "protocol",
    "proto",
    "listen",
    "pingpong",
    "interface",
    "ttl",
    "nodelay",
    "window_size",
    "mss",
    // read by cli/run.rs before parsing (`--cmdhelp` is new)
    "help",
    "version",
    "cmdhelp",
    // fio's verify state (run/verify/state.rs), new on vstate15
    "verify_state_save",
    "verify_state_load",
    "aux_path",
    // the rest of `fio --help` (options/fio_cmdline.rs), new on fiocli
    "terse_version",
    "append_terse",
    "debug",
    "idle_prof",
    "trigger_file",
    "trigger_timeout",
    "trigger",
    "trigger_remote",
    "alloc_size",
    "merge_blktrace_only",
    "enghelp",
    "crctest",
    "cpuclock_test",
    "inflate_log",
    "server",
    "daemonize",
    "client",
    "remote_config",
    "latency_log",
];

#[test]
fn the_key_set_is_the_one_before_the_table() {
    let mut now: Vec<String> = names().iter().map(|(n, _)| n.replace('-', "_")).collect();
    let mut before: Vec<String> = BEFORE
        .iter()
        .chain(ADDED)
        .filter(|s| !RENAMED.contains(s))
        .map(|s| s.to_string())
        .collect();
    now.sort();
    before.sort();
    assert_eq!(now, before);
}

/// The options that never take the next word on the command line (the flags of before
/// the table, and the keys among them).
const FLAG_FORMS: &[&str] = &[
    "readonly",
    "read_only",
    "time_based",
    "group_reporting",
    "thread",
    "norandommap",
    "zero_buffers",
    "refill_buffers",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "exitall",
    "sqthread_poll",
    "hipri",
    // new with the libaio engine, a set-flag in fio (FIO_OPT_STR_SET) like time_based
    "userspace_reap",
    "engine_strict",
    "showcmd",
    // the net engine's set-flags (FIO_OPT_STR_SET)
    "listen",
    "pingpong",
    // fio's FIO_OPT_STR_SET keys
    "bs_unaligned",
    "blocksize_unaligned",
    "verify_only",
    "exitall_on_error",
    // command-line options that took nothing (not a key of `apply`)
    "parse_only",
    "warnings_fatal",
    "bandwidth_log",
    "notes",
    "minimal",
    "no_history",
    "live",
    "help",
    "version",
    "cmdhelp",
    // fio's optional arguments: only `--KEY=VALUE` (options/fio_cmdline.rs)
    "append_terse",
    "merge_blktrace_only",
    "enghelp",
    "crctest",
    "cpuclock_test",
    "server",
];
/// iomark's own options with their own "needs a file name" message (fio's options say
/// getopt's `requires an argument`).
const OWN_MESSAGE: &[&str] = &["plot", "json", "allow_destructive_write"];

#[test]
fn command_line_forms_are_the_ones_before_the_table() {
    for (n, o) in names() {
        let n = n.replace('-', "_");
        let want = if FLAG_FORMS.contains(&n.as_str()) {
            Arg::Flag
        } else if OWN_MESSAGE.contains(&n.as_str()) {
            Arg::ValueOwnMessage
        } else {
            Arg::Value
        };
        assert_eq!(o.arg, want, "{n}");
        // a job option takes the next word unless `fio --cmdhelp` types it FIO_OPT_STR_SET
        // (getopt's optional_argument; that type line is pinned to fio's by
        // fio_compat::cmdhelp::cmdhelp_of_every_key_is_fios)
        // (fio's command-line options come first: `--readonly` is getopt's no_argument)
        if matches!(o.apply, Apply::Job(_)) && !matches!(o.fio333, Fio333::Command { .. }) {
            let set = o.help_shown().fio_type == FioType::StrSet;
            assert_eq!(o.arg == Arg::Flag, set, "{n}");
        }
    }
}

#[test]
fn command_line_keys_in_a_job_file_are_named_as_such() {
    let o = Origin::File {
        path: "j.fio".into(),
        line: 3,
    };
    let mut j = FioJob::default();
    let e = apply(&mut j, "reap_spin", Some("5us"), &o, &mut Vec::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "j.fio:3: option 'reap_spin' is a command-line option of iomark run, not a job key (give it on the command line as --reap_spin)"
    );
    let e = apply(&mut j, "output-format", Some("json"), &o, &mut Vec::new()).unwrap_err();
    assert!(
        e.to_string()
            .contains("'output-format' is a command-line option"),
        "{e}"
    );
    let e = apply(&mut j, "fdp", Some("1"), &o, &mut Vec::new()).unwrap_err();
    assert!(e.to_string().contains("xnvme"), "{e}");
    let e = apply(&mut j, "max_open_zone", Some("4"), &o, &mut Vec::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "j.fio:3: option 'max_open_zone' is not supported by iomark; did you mean 'max_open_zones'?"
    );
}

/// `--cmdhelp=KEY` of the row `key` names.
fn cmdhelp(key: &str) -> Option<String> {
    find(&key.replace('-', "_")).map(|o| o.help_shown().render())
}

#[test]
fn cmdhelp_prints_fio_s_layout() {
    assert_eq!(
        cmdhelp("blocksize").unwrap(),
        "                  bs: Block size unit\n               alias: blocksize\n                type: integer value (opt=100)\n             default: 4096\n               range: min=1, max=-1\n\n"
    );
    // values: padded to 10 columns, help after one space, none when empty
    let s = cmdhelp("sync").unwrap();
    assert!(
        s.contains("        valid values: none      \n                    : 0         \n"),
        "{s}"
    );
    // a float range and a range without maximum
    assert!(cmdhelp("spr_op")
        .unwrap()
        .contains("range: min=0.000000, max=1.000000\n"));
    assert!(cmdhelp("bsrange").unwrap().contains("range: min=1\n"));
    // iomark's own options have help too; unknown keys none
    assert!(cmdhelp("reap-spin")
        .unwrap()
        .starts_with("           reap-spin: io_uring"));
    assert!(cmdhelp("reap_spin").is_some());
    assert!(cmdhelp("max_open_zone").is_none());
    let list = cmdhelp_all();
    assert!(
        list.starts_with("Description:\nname                    : Name of this job\n"),
        "{list}"
    );
    assert_eq!(
        list.lines().filter(|l| l.contains(": ")).count(),
        all().count()
    );
    // one heading per group
    let headings: Vec<&str> = list.lines().filter(|l| l.ends_with(':')).collect();
    let mut unique = headings.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(headings.len(), unique.len(), "{headings:?}");
}

#[test]
fn groups_help_lists_every_group_and_key_within_the_width() {
    let s = groups_help(100);
    for o in all() {
        assert!(
            s.contains(&format!(" {}", o.group.name())),
            "{}",
            o.group.name()
        );
        assert!(s.split_whitespace().any(|w| w == o.name), "{}", o.name);
    }
    assert!(s.lines().all(|l| l.len() <= 100), "{s}");
}

#[test]
fn options_fios_job_tests_use_are_read_as_fio() {
    let parse = |a: &[&str]| {
        let a: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        crate::job::fio::parse_args_with(&a, &|_| None)
    };
    // --max-jobs is kept and not acted on, as fio 3.33 (fio-tests pass --max-jobs=16)
    let base = ["--name=a", "--filename=f", "--size=1m", "--numjobs=2"];
    let ok = parse(&[&["--max-jobs=1"], &base[..]].concat()).unwrap();
    assert_eq!((ok.max_jobs, ok.jobs[0].numjobs), (Some(1), 2));
    assert!(parse(&[&["--max-jobs=0"], &base[..]].concat()).is_err());
    // verify_interval larger than the write block is that block (fio's init.c)
    let c = parse(&[
        "--name=a",
        "--filename=f",
        "--size=1m",
        "--rw=write",
        "--bs=512",
        "--verify=md5",
        "--verify_interval=1M",
    ])
    .unwrap();
    assert_eq!(c.jobs[0].more.x.verify_interval, Some(512));
    // per_job_logs=0: one shared name, which the threads of a job share
    let c = parse(&[
        "--name=a",
        "--filename=f",
        "--size=1m",
        "--write_bw_log=x",
        "--per_job_logs=0",
    ])
    .unwrap();
    assert!(!c.jobs[0].more.per_job_logs);
    let c = parse(&[
        "--name=a",
        "--filename=f",
        "--size=1m",
        "--write_bw_log=x",
        "--per_job_logs=0",
        "--numjobs=2",
    ])
    .unwrap();
    assert_eq!((c.jobs[0].numjobs, c.jobs[0].more.per_job_logs), (2, false));
    let c = parse(&[
        "--name=a",
        "--filename=f",
        "--size=1m",
        "--verify=md5",
        "--experimental_verify=1",
    ])
    .unwrap();
    assert!(c.jobs[0].more.x.experimental_verify);
}

#[test]
fn the_table_range_is_checked() {
    let e = job_apply("nice", Some("25")).unwrap_err().to_string();
    assert!(e.contains("out of range: -20 to 19"), "{e}");
    let e = job_apply("log_hist_coarseness", Some("7"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'7' for option 'log_hist_coarseness': 0 to 6"),
        "{e}"
    );
    let e = job_apply("trim_percentage", Some("101"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("out of range: 0 to 100"), "{e}");
    // a value with units is its apply's to judge
    assert_eq!(
        job_apply("offset_align", Some("4k"))
            .unwrap()
            .tuning
            .offset_align,
        4096
    );
    assert_eq!(job_apply("nice", Some("-5")).unwrap().tuning.nice, -5);
}

#[test]
fn keys_once_refused_take_fio_s_values() {
    use crate::job::fio::tuning::{FileService, Unified};
    let t = |k: &str, v: &str| job_apply(k, Some(v)).unwrap().tuning;
    assert_eq!(t("unified_rw_reporting", "1").unified, Unified::Mixed);
    assert_eq!(t("unified_rw_reporting", "both").unified, Unified::Both);
    assert_eq!(
        t("sync_file_range", "wait_before,write:4").sync_file_range,
        Some((3, 4))
    );
    assert_eq!(
        t("file_service_type", "zipf:1.2").file_service,
        (FileService::Zipf(1.2, None), 1)
    );
    assert_eq!(
        t("file_service_type", "random:4").file_service,
        (FileService::Random, 4)
    );
    assert!(job_apply("file_service_type", Some("zipf:1")).is_err());
    assert_eq!(t("cpus_allowed", "0-2,5").cpus, Some(vec![0, 1, 2, 5]));
    assert_eq!(t("cpumask", "0x6").cpus, Some(vec![1, 2]));
    assert_eq!(t("max_latency", "250").max_latency, [250_000; 2]);
    assert_eq!(
        t("max_latency", "1ms,2ms").max_latency,
        [1_000_000, 2_000_000]
    );
    assert_eq!(t("write_hint", "extreme").write_hint, Some(5));
    assert_eq!(t("write_hist_log", "1").hist_log, Some(String::new()));
    assert!(job_apply("verify_offset", Some("40")).is_err());
    // fio's names of keys iomark had under others, the old names kept as aliases
    assert_eq!(
        job_apply("bwavgtime", Some("0")).unwrap().more.bw_avg_time,
        0
    );
    assert_eq!(
        job_apply("iops_avg_time", Some("250"))
            .unwrap()
            .more
            .iops_avg_time,
        250
    );
    assert!(job_apply("rate_cycle", Some("500")).is_ok());
    // %o: the block's offset, 8 bytes, where it is written
    let j = job_apply("verify_pattern", Some("0xab%o\"z\"")).unwrap();
    assert_eq!(j.more.verify_pattern, [0xab, 0, 0, 0, 0, 0, 0, 0, 0, b'z']);
    assert_eq!(j.tuning.verify_pattern_fmt, vec![1]);
    assert!(job_apply("unlink", Some("1")).unwrap().tuning.unlink);
}

/// fio 3.33's io_uring `nonvectored` has no range: -1 probes, 0 is vectored, any other
/// whole number non-vectored (`!!value`); the oracle found `nonvectored=10` refused.
#[test]
fn nonvectored_takes_any_whole_number_as_fio() {
    let n = |v| job_apply("nonvectored", Some(v)).map(|j| j.tuning.nonvectored);
    assert_eq!(n("-1").unwrap(), -1);
    assert_eq!(n("0").unwrap(), 0);
    assert_eq!(n("1").unwrap(), 1);
    assert_eq!(n("10").unwrap(), 1);
    assert_eq!(n("-5").unwrap(), 1);
    assert!(n("x").is_err());
}

/// fio 3.33's str_to_decimal on an integer value with a blank and text after the
/// number: the leading number (base 16 when `0x` stands anywhere), times the unit letters
/// right after the decimal digits; values the key reads as they are, or part by part,
/// and letters that name no unit are not this rule's. A hex integer is its number.
#[test]
fn an_integer_with_text_after_it_is_read_as_fio_reads_it() {
    let numjobs = find("numjobs").unwrap();
    let reading = |o, v: &str, kb| fio_reading(o, v, kb).map(|r| (r.value.unwrap(), r.said));
    let read =
        |v: &str| reading(numjobs, v, 1024).map(|(s, said)| (s.parse::<u64>().unwrap_or(0), said));
    assert_eq!(read("1  // num of processes"), Some((1, true)));
    assert_eq!(read("2 x"), Some((2, true)));
    assert_eq!(read("4k junk"), Some((4096, true)));
    assert_eq!(
        read("1MiB ?"),
        Some((1_000_000, true)),
        "kb_base=1024: the ib form is decimal"
    );
    assert_eq!(
        reading(numjobs, "1MiB ?", 1000),
        Some(("1048576".to_string(), true))
    );
    assert_eq!(
        read("30 0x"),
        Some((0x30, true)),
        "'0x' in the value: base 16"
    );
    assert_eq!(read("0x10 junk"), Some((16, true)));
    // fio's strtoll reads a hex integer; nothing after it to say
    assert_eq!(read("0x1000"), Some((4096, false)));
    for not_this in [
        "7", " 7 ", "(2*3)", "8k,x", "4-x", "1:2", "1.5k", "x1", "", "8k", "1MiB", "4kb", "2x",
        "4q", "30x",
    ] {
        assert_eq!(read(not_this), None, "{not_this:?}");
    }
    // another unit's letters stay with the number, for the key to judge
    assert_eq!(
        reading(numjobs, "4q x", 1024),
        Some(("4q".to_string(), true))
    );
    let think = find("thinktime_iotime").unwrap();
    assert_eq!(
        reading(think, "1s  // note", 1024),
        Some(("1s".to_string(), true))
    );
    // a size and a boolean read their number the same way; a size reads its own hex,
    // a time is not read so (fio takes `10s x` as 10 µs)
    let size = find("size").unwrap();
    assert_eq!(
        reading(size, "1m x", 1024),
        Some(("1048576".to_string(), true))
    );
    assert_eq!(reading(size, "0x10", 1024), None);
    let direct = find("direct").unwrap();
    assert_eq!(reading(direct, "0x1", 1024), Some(("1".to_string(), false)));
    assert_eq!(
        reading(direct, "1  // on", 1024),
        Some(("1".to_string(), true))
    );
    assert_eq!(reading(direct, "1k x", 1024), Some(("1".to_string(), true)));
    assert_eq!(reading(find("runtime").unwrap(), "10s x", 1024), None);
}

/// A negative number is read as fio 3.33 reads it (options/signed.rs): the parts `-N`
/// and `N` are each tried; a callback option ends with `N` (`size=-1` is one byte,
/// `offset=-4k` 4096), a per-direction option gives reads the wrapped `-N` and writes
/// `N` (`rate=-1`), a count whose wrapped value iomark's range refuses keeps its value
/// (`numjobs=-1`: 1); `nice=-5` is in its range as it is, `runtime=-1` runs.
#[test]
fn a_negative_number_is_read_part_by_part_as_fio() {
    let size = |k, v| job_apply(k, Some(v)).unwrap();
    assert!(matches!(size("size", "-1").size, Some(SizeSpec::Bytes(1))));
    assert!(matches!(
        size("offset", "-4k").more.offset,
        Some(SizeSpec::Bytes(4096))
    ));
    assert_eq!(
        job_apply("rate", Some("-1")).unwrap().more.rate_bytes,
        [u64::MAX, 1, 1]
    );
    assert_eq!(job_apply("numjobs", Some("-1")).unwrap().numjobs, 1);
    assert_eq!(job_apply("nice", Some("-5")).unwrap().tuning.nice, -5);
    assert!(job_apply("runtime", Some("-1")).is_ok());
}

/// A value of an option with listed values is cut at its first `,` or `:` as fio reads
/// it, except on the rows whose parser reads what follows (the row says so).
#[test]
fn a_listed_value_is_cut_unless_its_row_reads_the_rest() {
    let fallocate = find("fallocate").unwrap();
    assert!(!fallocate.reads_its_rest);
    assert_eq!(listed_head(fallocate, "none,zz").as_deref(), Some("none"));
    let rw = find("rw").unwrap();
    assert!(rw.reads_its_rest);
    assert_eq!(listed_head(rw, "randread:8"), None);
    let mut rows: Vec<&str> = all().filter(|o| o.reads_its_rest).map(|o| o.name).collect();
    rows.sort_unstable();
    assert_eq!(
        rows,
        [
            "ioengine",
            "profile",
            "random_distribution",
            "rw",
            "steadystate",
            "sync_file_range"
        ]
    );
}

#[test]
fn every_option_of_fio_says_how_fio_reads_it() {
    for o in all() {
        let fios = matches!(o.fio333, Fio333::Job { .. } | Fio333::Profile { .. });
        assert_eq!(o.fio_type.is_some(), fios, "{}: fio's type", o.name);
        // fio keeps a value per direction only of a number or a range (off1…off3)
        if o.store == Store::PerDirection {
            let t = o.fio_type;
            assert!(
                matches!(t, Some(OptType::Int | OptType::Ull | OptType::Range)),
                "{}: {t:?} per direction",
                o.name
            );
        }
        // a cap is a number's
        if o.store == Store::CallbackCapped {
            assert!(
                matches!(o.range, Range::Int(_, max) if max > 0),
                "{}",
                o.name
            );
        }
    }
    // what the readers of negatives and of a `z` suffix ask (options.c of fio 3.33)
    let fact = |n: &str| find(n).map(|o| (o.fio_type, o.store));
    assert_eq!(fact("bs"), Some((Some(OptType::Ull), Store::PerDirection)));
    assert_eq!(
        fact("rate_iops"),
        Some((Some(OptType::Int), Store::PerDirection))
    );
    assert_eq!(
        fact("bsrange"),
        Some((Some(OptType::Range), Store::PerDirection))
    );
    assert_eq!(
        fact("size"),
        Some((Some(OptType::StrValZone), Store::Callback))
    );
    assert_eq!(
        fact("rwmixread"),
        Some((Some(OptType::Int), Store::CallbackCapped))
    );
    assert_eq!(fact("filesize"), Some((Some(OptType::StrVal), Store::One)));
    assert_eq!(
        fact("runtime"),
        Some((Some(OptType::StrValTime), Store::One))
    );
    assert_eq!(fact("thinktime"), Some((Some(OptType::Int), Store::One)));
    // iomark's own options have no fio type
    assert_eq!(fact("reap_spin").map(|f| f.0), Some(None));
}

#[test]
fn a_zero_part_of_bs_keeps_that_directions_size() {
    use crate::job::fio::BlockSizes;
    let parts = |v: &str| {
        let mut j = FioJob::default();
        let mut said = Vec::new();
        apply(&mut j, "bs", Some(v), &Origin::CommandLine, &mut said).map(|_| {
            let fixed = |b: &BlockSizes| match b {
                BlockSizes::Fixed(n) => *n,
                other => panic!("{other:?}"),
            };
            (fixed(&j.bs_read), fixed(&j.bs_write), said.len())
        })
    };
    let d = match FioJob::default().bs_read {
        BlockSizes::Fixed(n) => n,
        other => panic!("{other:?}"),
    };
    // (read, write, fio's range lines): a 0 part keeps its direction's size
    assert_eq!(parts("1k,0").unwrap(), (1024, d, 1));
    assert_eq!(parts("0,1k").unwrap(), (d, 1024, 1));
    assert_eq!(parts("0,0,1k").unwrap(), (d, d, 2));
    assert_eq!(parts("2k").unwrap(), (2048, 2048, 0));
    // no part read: refused
    assert!(parts("0").is_err());
    assert!(parts("0,0").is_err());
}

/// fio 3.33's reading of a CPU list (`atoi` of each CPU), which the fio persona takes
/// where iomark's own refuses it.
#[test]
fn fio_reads_a_cpu_list_with_atoi() {
    let cases = [
        ("zz", Some("0-0")),
        (" 3 ", Some("3-3")),
        ("1x-3y", Some("1-3")),
        ("0-2,5", Some("0-2,5-5")),
        ("2,,7", Some("2-2")),
        // fio's strsep cuts a part at its first '-' before atoi reads its first CPU
        ("-1", Some("0-0")),
        ("2-", Some("2-2")),
        // a part whose last CPU is below its first sets none
        ("3-1", Some("")),
        ("5-1,2", Some("2-2")),
        (",3", Some("")),
        ("", None),
    ];
    for (v, want) in cases {
        assert_eq!(super::fio_cpu_list(v).as_deref(), want, "{v}");
    }
}

/// `ignore_error` adds each kind it lists to `continue_on_error`, and a later
/// `continue_on_error=` replaces the set, in the order written (fio 3.33 `options.c`
/// `ignore_error_type`: `continue_on_error |= 1 << etype`): `ignore_error=EIO:ENOSPC`
/// then `continue_on_error=none` continues after nothing — fio then prints no `errors`
/// line (`fio_compat::refusal_output`'s oracle job 641 compares it).
#[test]
fn ignore_error_adds_its_kinds_and_a_later_continue_on_error_replaces_them() {
    use crate::job::fio::on_error::ContinueOnError as C;
    let run = |keys: &[(&str, &str)]| {
        let mut j = FioJob::default();
        for (k, v) in keys {
            apply(&mut j, k, Some(v), &Origin::CommandLine, &mut Vec::new()).unwrap();
        }
        j.more.continue_on_error
    };
    assert_eq!(run(&[("ignore_error", "EIO:ENOSPC")]), C::READ);
    assert_eq!(run(&[("ignore_error", ",ENOSPC")]), C::WRITE);
    assert_eq!(run(&[("ignore_error", "EIO,ENOSPC,EILSEQ")]), C::ALL);
    assert_eq!(
        run(&[
            ("ignore_error", "EIO:ENOSPC"),
            ("continue_on_error", "none")
        ]),
        C::NONE
    );
    assert_eq!(
        run(&[("continue_on_error", "verify"), ("ignore_error", ",EIO")]),
        C::VERIFY.with(crate::job::model::ErrorClass::Write)
    );
}
