//! fio 3.33's own option names, the facts the fio persona checks input against: its
//! job options in the order of its table (what a job file and `--KEY` may name, and the
//! order its "Did you mean" walks), its profiles' options, its command-line options, and
//! its engines' options.
//! These are fio's names, not iomark's: a name here that iomark does not run is still
//! one fio 3.33 accepts, so the fio persona keeps its own line for it. A job, profile or
//! command-line option of fio's that iomark's option table has a row for is that row's
//! ([`Fio333`]: its place in fio's order); the lists here hold only the others.

use super::options::{self, Fio333, FioType, OptionHelp, Range};
use std::sync::LazyLock;

/// What fio 3.33's `--cmdhelp` shows of one of its options iomark has no row for.
struct Listed {
    help: &'static str,
    parent: Option<&'static str>,
    fio_type: FioType,
    default: Option<&'static str>,
    range: Range,
}

/// A boolean fio lists under `parent`, off by default.
const fn off_under(help: &'static str, parent: &'static str) -> Option<Listed> {
    Some(Listed {
        help,
        parent: Some(parent),
        fio_type: FioType::Bool,
        default: Some("0"),
        range: Range::Int(0, 1),
    })
}

/// fio 3.33's job options that iomark's option table has no row for (fio's, which
/// iomark does not run): `(place in fio's table, name, aliases, what --cmdhelp shows)`;
/// `None`: fio's `--cmdhelp` does not show it (deprecated, or not built into the
/// installed fio: `gpu_dev_id` needs CUDA). The others are the table's rows marked
/// [`Fio333::Job`].
const JOB_NOT_RUN: &[(u16, &str, &[&str], Option<Listed>)] = &[
    (
        33,
        "bs_is_seq_rand",
        &[],
        off_under(
            "Consider any blocksize setting to be sequential,random",
            "blocksize",
        ),
    ),
    (
        37,
        "softrandommap",
        &[],
        off_under(
            "Set norandommap if randommap allocation fails",
            "norandommap",
        ),
    ),
    (41, "percentage_sequential", &[], None),
    (68, "verifysort", &[], None),
    (69, "verifysort_nr", &[], None),
    (
        78,
        "verify_async_cpus",
        &[],
        Some(Listed {
            help: "Set CPUs allowed for async verify threads",
            parent: Some("verify_async"),
            fio_type: FioType::Str,
            default: None,
            range: Range::None,
        }),
    ),
    (115, "rwmixcycle", &[], None),
    (151, "gpu_dev_id", &[], None),
    (
        219,
        "hugepage-size",
        &[],
        Some(Listed {
            help: "When using hugepages, specify size of each page",
            parent: None,
            fio_type: FioType::Int,
            default: Some("2097152"),
            range: Range::Int(0, -1),
        }),
    ),
    (222, "flow_watermark", &[], None),
];

/// The options of fio 3.33's built-in profiles (`tiobench`, then `act`: the order fio
/// registers them in, each profile's options after its job options), which it adds to
/// its job options (a job file's `threads=1` is tiobench's; tiobench's `size` is a second
/// `size` in fio's table), that iomark's option table has no row for: `(place among
/// them, name)`. The others are the table's rows marked [`Fio333::Profile`].
const PROFILE_NOT_RUN: &[(u16, &str)] = &[
    (0, "size"),
    (1, "block"),
    (2, "numruns"),
    (3, "dir"),
    (5, "device-names"),
    (6, "load"),
    (7, "test-duration"),
    (8, "threads-per-queue"),
    (9, "read-req-num-512-blocks"),
    (10, "large-block-op-kbytes"),
    (11, "prep"),
];

/// One of fio 3.33's options: its name and aliases.
type Named = (&'static str, &'static [&'static str]);

/// fio 3.33's job options in the order of its table, its profiles' options and its own
/// command-line options in theirs: the option table's rows fio has ([`Fio333`]) with the
/// ones it has no row for.
struct Fio {
    job: Vec<Named>,
    profile: Vec<&'static str>,
    command: Vec<&'static str>,
}

/// [`Fio`], gathered once.
fn fio() -> &'static Fio {
    static FIO: LazyLock<Fio> = LazyLock::new(|| {
        let (mut job, mut profile, mut command) = (Vec::new(), Vec::new(), Vec::new());
        for o in options::all() {
            match o.fio333 {
                Fio333::Job { at, aliases } => {
                    job.push((at, (o.name, if aliases { o.aliases } else { &[] })))
                }
                Fio333::Profile { at } => profile.push((at, o.name)),
                Fio333::Command { at } => command.push((at, o.name)),
                Fio333::None => {}
            }
        }
        job.extend(JOB_NOT_RUN.iter().map(|&(at, n, a, _)| (at, (n, a))));
        profile.extend(PROFILE_NOT_RUN.iter().copied());
        command.extend(COMMAND_NOT_RUN.iter().copied());
        job.sort_by_key(|(at, _)| *at);
        profile.sort_by_key(|(at, _)| *at);
        command.sort_by_key(|(at, _)| *at);
        Fio {
            job: job.into_iter().map(|(_, n)| n).collect(),
            profile: profile.into_iter().map(|(_, n)| n).collect(),
            command: command.into_iter().map(|(_, n)| n).collect(),
        }
    });
    &FIO
}

/// The names of fio 3.33's job options, in its order.
fn job_names() -> impl Iterator<Item = &'static str> {
    fio().job.iter().map(|(n, _)| *n)
}

/// fio 3.33's own command-line options (before the job options in its getopt table)
/// that iomark's option table has no row for as command-line options: `(place among
/// them, name)` (fio's `--profile` loads a profile; the table's `profile` is the job
/// key). The others are the table's rows marked [`Fio333::Command`].
const COMMAND_NOT_RUN: &[(u16, &str)] =
    &[(20, "profile"), (25, "server-internal"), (31, "memcpytest")];

/// The options of fio 3.33's engines that iomark does not list in `--enghelp` (any
/// engine's: a job file's key is checked against them all); the options of iomark's
/// engines are their `--enghelp` table's ([`options::engine_option_names`]).
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
    fio()
        .job
        .iter()
        .any(|(n, a)| same(n, key) || a.iter().any(|a| same(a, key)))
        || ENGINE
            .iter()
            .copied()
            .chain(fio().profile.iter().copied())
            .chain(options::engine_option_names())
            .any(|n| same(n, key))
}

/// The option fio 3.33 names in `Did you mean X?` after `Bad option <OPT>` in a job
/// file (options.c: the word up to its `=`, against its job options' names).
pub fn did_you_mean_job(opt: &str) -> Option<&'static str> {
    let name = opt.split('=').next().unwrap_or("");
    if name.is_empty() {
        return None;
    }
    let names = job_names().chain(fio().profile.iter().copied());
    nearest(name, names)
        .filter(|(_, d)| near_enough(name, *d))
        .map(|(n, _)| n)
}

/// The option fio 3.33 names in `Did you mean X?` after getopt's `unrecognized option
/// 'WORD'` (init.c: the word without its leading dashes, `=VALUE` kept, against every
/// name of its getopt table, [`getopt_names`], in its order).
pub fn did_you_mean_cmdline(word: &str) -> Option<&'static str> {
    did_you_mean_getopt(word, None)
}

/// [`did_you_mean_cmdline`] with the options of `engine` in fio's table too (a job
/// named that engine before the word: [`getopt_names`]).
pub fn did_you_mean_getopt(word: &str, engine: Option<&str>) -> Option<&'static str> {
    let name = word.trim_start_matches('-');
    nearest(name, getopt_names(engine).into_iter())
        .filter(|(_, d)| near_enough(name, *d))
        .map(|(n, _)| n)
}

/// fio 3.33's command-line options that its getopt table holds on Windows only.
const WINDOWS_ONLY: [&str; 1] = ["server-internal"];

/// The names of fio 3.33's getopt table, in its order: its own command-line options,
/// every job option's name then its alias, its profiles' options (added to the job
/// options when fio starts), then the options of `engine` (fio adds those of the current
/// job's engine once a job option is read: none before, none for an engine without).
pub fn getopt_names(engine: Option<&str>) -> Vec<&'static str> {
    let f = fio();
    // (`server-internal` is in its table on Windows only)
    let mut names: Vec<&'static str> = f
        .command
        .iter()
        .copied()
        .filter(|n| !WINDOWS_ONLY.contains(n))
        .collect();
    for (n, a) in &f.job {
        names.push(n);
        names.extend_from_slice(a);
    }
    names.extend_from_slice(&f.profile);
    names.extend(engine.map(options::options_of_engine).unwrap_or_default());
    names
}

/// fio 3.33's job options as its `--cmdhelp` shows them, in the order of its table:
/// the option table's rows fio has ([`options::FioOption::help_shown`]) with the ones
/// it has no row for, without those fio's `--cmdhelp` skips (deprecated ones).
pub fn shown() -> &'static [OptionHelp] {
    static SHOWN: LazyLock<Vec<OptionHelp>> = LazyLock::new(|| {
        let mut list: Vec<(u16, OptionHelp)> = options::all()
            .filter_map(|o| match o.fio333 {
                Fio333::Job { at, .. } => Some((at, o.help_shown())),
                _ => None,
            })
            .collect();
        list.extend(JOB_NOT_RUN.iter().filter_map(|(at, name, aliases, l)| {
            let l = l.as_ref()?;
            let help = OptionHelp {
                name,
                help: l.help,
                aliases,
                parent: l.parent,
                fio_type: l.fio_type,
                default: l.default,
                range: l.range,
                values: &[],
            };
            Some((*at, help))
        }));
        list.sort_by_key(|(at, _)| *at);
        list.into_iter().map(|(_, h)| h).collect()
    });
    &SHOWN
}

/// The option `--cmdhelp=KEY` shows as fio 3.33's "closest match" for a name it does
/// not have: the first nearest of the options its `--cmdhelp` shows, fewer than 3
/// edits away (parse.c show_cmd_help).
pub fn cmdhelp_closest(key: &str) -> Option<&'static OptionHelp> {
    let mut best: Option<(&OptionHelp, usize)> = None;
    for o in shown() {
        let d = distance(key, o.name);
        if best.is_none_or(|(_, b)| d < b) {
            best = Some((o, d));
        }
    }
    best.filter(|(_, d)| *d < 3).map(|(o, _)| o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options of iomark's engines are named once, in their `--enghelp` table, and
    /// are job-file keys fio knows.
    #[test]
    fn engine_options_are_named_once() {
        for n in options::engine_option_names() {
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
        assert_eq!(cmdhelp_closest("iodepht").map(|o| o.name), Some("iodepth"));
        assert!(cmdhelp_closest("bogus").is_none());
        assert!(job_key_known("hostname") && job_key_known("blocksize"));
        assert!(job_key_known("threads"));
        assert_eq!(did_you_mean_job("threadsx=1"), Some("threads"));
        assert!(job_key_known("time-based"));
        assert!(!job_key_known("readonly") && !job_key_known("verify_write_sequence"));
    }

    /// Every place in fio's orders is taken once: by a row of the option table or by one
    /// of the options here it has no row for.
    #[test]
    fn fios_places_are_each_taken_once() {
        let mut job: Vec<u16> = JOB_NOT_RUN.iter().map(|(at, ..)| *at).collect();
        let mut profile: Vec<u16> = PROFILE_NOT_RUN.iter().map(|(at, _)| *at).collect();
        let mut command: Vec<u16> = COMMAND_NOT_RUN.iter().map(|(at, _)| *at).collect();
        for o in options::all() {
            match o.fio333 {
                Fio333::Job { at, .. } => job.push(at),
                Fio333::Profile { at } => profile.push(at),
                Fio333::Command { at } => command.push(at),
                Fio333::None => {}
            }
        }
        for mut places in [job, profile, command] {
            places.sort();
            assert!(
                places.iter().copied().eq(0..places.len() as u16),
                "{places:?}"
            );
        }
        // the rows fio has no alias of keep their aliases out of fio's names
        assert!(job_key_known("bwavgtime") && !job_key_known("bw_avg_time"));
    }
}
