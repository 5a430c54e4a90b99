//! The fio persona's answer to input refused while the options are read: fio 3.33's own
//! lines for the refusals it words the same way (an unknown option, a value it cannot
//! parse or that is out of its range, an output format, a missing job file, an engine
//! it cannot load, an option given no value), and fio's exit code 1 for every refusal.
//! `iomark run` keeps its own one-line messages and exit 2 (docs/compat/fio.md).

use crate::job::fio::ini::{IniError, Origin};
use crate::job::fio::options::{self, Kind, Range};
use crate::job::fio::{fio333, FioError};
use crate::job::units;

/// fio 3.33's options that iomark does not run: fio accepts them, so its "unrecognized
/// option" line would be wrong for them (iomark's own line names the option).
const FIO_KEYS_NOT_RUN: &[&str] = &["hugepage-size"];

/// The engines `--enghelp` lists: fio 3.33's built-in ones that iomark runs (fio's
/// aliases such as `sync` and `pvsync` among them), in fio's order, then iomark's others
/// (dircreate, page_fault, …) in the registry's order.
pub(crate) fn enghelp_names() -> Vec<&'static str> {
    let runs = |n: &str| crate::job::fio::EngineKind::parse(n).is_some();
    let mut names: Vec<&'static str> = FIO_ENGINES.iter().copied().filter(|n| runs(n)).collect();
    for k in crate::util::engines::KINDS {
        if !names.contains(&k.name()) {
            names.push(k.name());
        }
    }
    names
}

/// Whether `name` is one of fio 3.33's built-in engines (an engine fio has, whether
/// or not iomark runs it).
pub(crate) fn is_fio_engine(name: &str) -> bool {
    FIO_ENGINES.contains(&name)
}

/// fio 3.33's built-in engines (`fio --enghelp`): one of them that iomark does not run
/// is no "not loadable" engine to fio.
const FIO_ENGINES: &[&str] = &[
    "cpuio",
    "mmap",
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "null",
    "net",
    "netsplice",
    "ftruncate",
    "filecreate",
    "filestat",
    "filedelete",
    "exec",
    "posixaio",
    "falloc",
    "e4defrag",
    "splice",
    "gfapi",
    "gfapi_async",
    "mtd",
    "sg",
    "io_uring",
    "io_uring_cmd",
    "nbd",
    "libaio",
    "rdma",
    "rados",
    "rbd",
    "pmemblk",
    "dev-dax",
    "libpmem",
];

/// fio's stderr lines for `e`, refused while reading `raw` (the words as given) by the
/// program named `argv0`; `None` when fio words it otherwise (iomark's line stays).
pub(crate) fn fio_lines(e: &FioError, argv0: &str, raw: &[String]) -> Option<Vec<String>> {
    match e {
        FioError::BadValue {
            key, value, why, ..
        } if own_line(key, why) => Some(own_lines(key, value, why)),
        _ => refusal_lines(e, argv0, raw),
    }
}

/// [`fio_lines`] of every refusal but a CPU set's.
fn refusal_lines(e: &FioError, argv0: &str, raw: &[String]) -> Option<Vec<String>> {
    match e {
        FioError::UnsupportedKey {
            key,
            origin: Origin::CommandLine,
        } if !FIO_KEYS_NOT_RUN.contains(&key.as_str()) => {
            let word = as_given(key, raw)?;
            Some(unrecognized(argv0, word))
        }
        FioError::Unrecognized(word) => Some(unrecognized(argv0, word)),
        FioError::OtherEnginesOption { word, engine } => {
            let line = format!("{argv0}: unrecognized option '{word}'");
            let mut lines = vec![line.clone(), line];
            let guess = fio333::did_you_mean_getopt(word, engine.as_deref());
            lines.extend(guess.map(|m| format!("Did you mean {m}?")));
            Some(lines)
        }
        // getopt's line with the options the word begins, then fio's own line and guess
        FioError::Ambiguous { word, names, guess } => {
            let listed: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
            let mut lines = vec![
                format!(
                    "{argv0}: option '{word}' is ambiguous; possibilities: {}",
                    listed.join(" ")
                ),
                format!("{argv0}: unrecognized option '{word}'"),
            ];
            lines.extend(guess.map(|m| format!("Did you mean {m}?")));
            Some(lines)
        }
        FioError::NeedsValue(word) => {
            let mut lines = vec![format!("{argv0}: option '{word}' requires an argument")];
            lines.push(format!("{argv0}: unrecognized option '{word}'"));
            lines.extend(fio333::did_you_mean_cmdline(word).map(|m| format!("Did you mean {m}?")));
            Some(lines)
        }
        FioError::ShortNeedsValue(c) => {
            let mut lines = vec![format!("{argv0}: option requires an argument -- '{c}'")];
            let word = format!("-{c}");
            lines.push(format!("{argv0}: unrecognized option '{word}'"));
            lines.extend(fio333::did_you_mean_cmdline(&word).map(|m| format!("Did you mean {m}?")));
            Some(lines)
        }
        FioError::ReadOnlyRw { job, value, origin } => Some(read_only_rw(job, value, origin)),
        FioError::ReadOnlyWrites(_) => Some(vec![
            "fio: trim and write operations are not allowed with the --readonly parameter.".into(),
        ]),
        FioError::BadValue {
            key,
            value,
            origin: Origin::CommandLine,
            ..
        } => {
            // the value as typed (`70k`), not as iomark read it: the word that gave
            // this value, else the key's last word
            let typed: Vec<&str> = raw
                .iter()
                .filter(|w| w.starts_with('-'))
                .filter_map(|w| w.trim_start_matches('-').split_once('='))
                .filter(|(k, _)| k == key)
                .map(|(_, v)| v)
                .collect();
            let v = typed.iter().find(|v| **v == value).or(typed.last());
            bad_value(key, v.copied().unwrap_or(value))
        }
        FioError::UnsupportedEngine {
            engine,
            origin: Origin::CommandLine,
        } if !FIO_ENGINES.contains(&engine.as_str()) => Some(not_loadable(engine)),
        FioError::Ini(IniError::Read {
            path, origin: None, ..
        }) => Some(vec![format!(
            "fio: unable to open '{}' job file",
            path.display()
        )]),
        FioError::FioLines(lines) | FioError::Ini(IniError::Fio(lines)) => Some(lines.clone()),
        FioError::InSection { section, error } => in_section(section, error),
        _ => None,
    }
}

/// How many of [`fio_lines`]'s first lines for `e` are getopt's own (written by the C
/// library on stderr only, never into fio's `--output`).
pub(crate) fn getopt_lines(e: &FioError) -> usize {
    match e {
        FioError::UnsupportedKey {
            origin: Origin::CommandLine,
            ..
        }
        | FioError::Unrecognized(_)
        | FioError::Ambiguous { .. }
        | FioError::NeedsValue(_)
        | FioError::ShortNeedsValue(_) => 1,
        _ => 0,
    }
}

/// The `--output` file fio 3.33 had opened when getopt refused the word of `e` in `raw`
/// (the last `--output` before that word; fio stops at the first refused word).
pub(crate) fn output_before(e: &FioError, raw: &[String]) -> Option<std::path::PathBuf> {
    let word = match e {
        FioError::Unrecognized(w) | FioError::NeedsValue(w) => w.clone(),
        FioError::Ambiguous { word, .. } => word.clone(),
        FioError::ShortNeedsValue(c) => format!("-{c}"),
        _ => return None,
    };
    let at = raw
        .iter()
        .position(|w| *w == word || w.split('=').next() == Some(&word))?;
    let before = crate::job::fio::getopt::canonical(&raw[..at], true).ok()?;
    let before = crate::job::fio::getopt::split_at_end(&before).0;
    before
        .iter()
        .rev()
        .find_map(|w| w.strip_prefix("--output="))
        .map(std::path::PathBuf::from)
}

/// fio's lines for `e`, refused in the job file's section `section`: a value's lines as
/// on the command line, then `fio: job SECTION dropped`; an engine fio cannot load, its
/// loader's lines (fio loads the engine after the section is read: no job is dropped).
fn in_section(section: &str, e: &FioError) -> Option<Vec<String>> {
    match e {
        FioError::BadValue {
            key,
            value,
            why,
            origin,
        } => {
            // a key with no value in a job file: bare (`direct` alone) or `key=`
            let mut lines = match value.as_str() {
                "" if why.starts_with("needs a value") => vec![
                    format!("Option {key} requires an argument"),
                    format!("fio: failed parsing {key}"),
                ],
                "" => vec![format!("fio: failed parsing {key}=")],
                _ if own_line(key, why) => own_lines(key, value, why),
                _ => bad_value(key, value)?,
            };
            as_written(&mut lines, key, origin);
            lines.push(format!("fio: job {section} dropped"));
            Some(lines)
        }
        FioError::UnsupportedEngine { engine, .. } if !FIO_ENGINES.contains(&engine.as_str()) => {
            Some(not_loadable(engine))
        }
        FioError::ReadOnlyRw { .. } => fio_lines(e, "fio", &[]),
        _ => None,
    }
}

/// fio 3.33 names a job file's option it failed to parse as the line was written
/// (`rw = write`, `bs=${BS}` before its variable is substituted): the last `failed
/// parsing` line of `lines` for `key` at `origin` names that line.
fn as_written(lines: &mut [String], key: &str, origin: &Origin) {
    let Origin::File { path, line } = origin else {
        return;
    };
    let Some(text) = crate::job::fio::ini::fio_line(path, *line) else {
        return;
    };
    let same = |k: &str| k.trim().replace('-', "_") == key.replace('-', "_");
    if !same(text.split('=').next().unwrap_or("")) {
        return;
    }
    let last = lines
        .iter_mut()
        .rev()
        .find(|l| l.starts_with("fio: failed parsing "));
    if let Some(l) = last {
        *l = format!("fio: failed parsing {text}");
    }
}

/// Whether a refusal of `key` carries fio 3.33's own line as its reason, printed before
/// `failed parsing`: a CPU set naming CPUs this machine lacks (job/fio/args.rs: `fio: CPU
/// 100 too large (max=1)`), a bssplit over 100% (`fio: bssplit percentages add to more
/// than 100%`), a zipf, pareto or normal parameter out of fio's range (`fio: zipf theta
/// must different than 1.0`, of `random_distribution` or `file_service_type`).
fn own_line(key: &str, why: &str) -> bool {
    let keys = [
        "cpus_allowed",
        "cpumask",
        "bssplit",
        "random_distribution",
        "file_service_type",
        "directory",
        "opendir",
    ];
    keys.contains(&key) && why.starts_with("fio: ")
}

/// fio's stderr lines for `key=value` refused with fio's own reason `why`: the reason,
/// then `failed parsing`; an `opendir` whose walk failed has its reason, fio's account
/// of the call, on stdout instead ([`fio_stdout`]).
fn own_lines(key: &str, value: &str, why: &str) -> Vec<String> {
    let parsing = format!("fio: failed parsing {key}={value}");
    match key {
        "opendir" => vec![parsing],
        _ => vec![why.to_string(), parsing],
    }
}

/// fio's lines for an engine it cannot load.
fn not_loadable(engine: &str) -> Vec<String> {
    vec![
        format!("fio: engine {engine} not loadable"),
        "fio: failed to load engine".into(),
    ]
}

/// What fio 3.33 prints on stdout for the refusal `e`, if anything: an option's valid
/// values (its option help's second half) after `rw` refused under `--readonly`, or after
/// a value of a listed-values option that names none of them; the loader's `dlopen` line
/// after an engine fio cannot load, named on the command line.
pub(crate) fn fio_stdout(e: &FioError) -> Option<String> {
    let key = match e {
        FioError::InSection { section, error } => {
            return match &**error {
                // fio's account of a global section's directory callback is not said
                FioError::BadValue { key, .. }
                    if crate::job::fio::ini::is_global(section)
                        && (key == "directory" || key == "opendir") =>
                {
                    None
                }
                FioError::UnsupportedEngine { engine, .. }
                    if !FIO_ENGINES.contains(&engine.as_str()) =>
                {
                    Some(dlopen_line(engine))
                }
                inner => fio_stdout(inner),
            };
        }
        FioError::ReadOnlyRw { .. } => "rw",
        // the directory callbacks' account of the call that failed (job/fio/dirs.rs)
        FioError::BadValue { key, value, .. } if key == "directory" => {
            let dirs: Vec<std::path::PathBuf> = crate::job::fio::names::split_names(value)
                .into_iter()
                .map(Into::into)
                .collect();
            let errno = crate::job::fio::dirs::first_not_directory(&dirs)?.errno?;
            return Some(format!("{}\n", crate::job::fio::dirs::lstat_account(errno)));
        }
        FioError::BadValue { key, why, .. } if key == "opendir" && own_line(key, why) => {
            return Some(format!("{why}\n"))
        }
        // fio's td_verror of its `numa_cpu_nodes` callback (its errno is EPERM's 1)
        FioError::BadValue { key, value, .. }
            if key == "numa_cpu_nodes" && libnuma_warning(value).is_some() =>
        {
            return Some(
                "fio: file:options.c:803, func=str_numa_cpunodes_cb, error=Operation not \
                 permitted\n"
                    .into(),
            )
        }
        // fio's output formats are no option's listed values: it prints only its
        // stderr lines for them
        FioError::BadValue { key, value, .. }
            if key != "output-format" && names_no_listed_value(key, value) =>
        {
            key
        }
        FioError::UnsupportedEngine {
            engine,
            origin: Origin::CommandLine,
        } if !FIO_ENGINES.contains(&engine.as_str()) => return Some(dlopen_line(engine)),
        _ => return None,
    };
    let help = crate::job::fio::cmdhelp::shown_of(key)?;
    let at = help.find("        valid values:")?;
    Some(help[at..].to_string())
}

/// The loader's line fio prints on stdout for an engine it cannot load.
fn dlopen_line(engine: &str) -> String {
    format!(
        "fio: file:ioengines.c:134, func=dlopen, error={engine}: cannot open shared object \
         file: No such file or directory\n"
    )
}

/// fio's match of a listed-values option (its `str_match_len`): the value up to its first
/// `,` (else its first `:`) must be one of the listed values whole; `false` for an option
/// whose values fio does not list, where fio's own parser says what is wrong. `ioengine`
/// is not matched against its list: fio loads an engine it does not list.
fn names_no_listed_value(key: &str, value: &str) -> bool {
    let Some(o) = options::find(&key.trim().replace('-', "_")) else {
        return false;
    };
    let listed = o.help_shown().values;
    if o.name == "ioengine" || listed.is_empty() {
        return false;
    }
    let head = match value.split_once(',') {
        Some((head, _)) => head,
        None => value.split(':').next().unwrap_or(value),
    };
    !listed.iter().any(|(v, _)| *v == head)
}

/// getopt's line for an option word fio does not know, then fio's own (the same words)
/// and its guess, if it has one close enough (`Did you mean bs?`).
/// fio's lines for a direction that writes or trims under `--readonly`: its refusal,
/// the `rw` option's help, `failed parsing`, and in a job file the job dropped.
fn read_only_rw(job: &str, value: &str, origin: &Origin) -> Vec<String> {
    // a job not named yet (`--readonly --rw=write --name=x`) is C's NULL to fio
    let job = if job.is_empty() { "(null)" } else { job };
    let mut lines = vec![
        format!("fio: job <{job}> has write or trim bit set, but fio is in read-only mode"),
        "Correct format for offending option".to_string(),
    ];
    let help = crate::job::fio::cmdhelp::shown_of("rw").unwrap_or_default();
    lines.extend(
        help.lines()
            .take_while(|l| !l.contains("valid values:"))
            .map(str::to_string),
    );
    lines.push(format!("fio: failed parsing rw={value}"));
    if matches!(origin, Origin::File { .. }) {
        lines.push(format!("fio: job {job} dropped"));
    }
    lines
}

fn unrecognized(argv0: &str, word: &str) -> Vec<String> {
    let line = format!("{argv0}: unrecognized option '{word}'");
    let mut lines = vec![line.clone(), line];
    lines.extend(fio333::did_you_mean_cmdline(word).map(|m| format!("Did you mean {m}?")));
    lines
}

/// The word of `raw` that gave the option `key` (`--key=value`, `--key`, `-key`).
fn as_given<'a>(key: &str, raw: &'a [String]) -> Option<&'a str> {
    raw.iter().map(String::as_str).find(|w| {
        let body = w.trim_start_matches('-');
        w.starts_with('-') && body.split('=').next() == Some(key)
    })
}

/// fio's lines for `key=value` refused: an empty value is a missing argument; an output
/// format it does not know is named; a number out of the option's range gets fio's range
/// line; then `fio: failed parsing key=value`. `None` for a whole number within fio's
/// range that iomark refuses for its own reason (a negative fio wraps, a `verify_offset`
/// inside the header), or any negative value (fio reads it wrapped): fio takes it, so its line would be wrong and iomark's own line,
/// naming the option and what it accepts, stays.
fn bad_value(key: &str, value: &str) -> Option<Vec<String>> {
    // fio names the format it does not know, an empty one too (`--output-format=`)
    if key == "output-format" {
        let known = ["normal", "json", "json+", "terse", "minimal", "csv"];
        let bad = value
            .split(',')
            .find(|f| !known.contains(f))
            .unwrap_or(value);
        return Some(vec![
            format!("fio: invalid output format {bad}"),
            "fio: failed parsing output-format".into(),
        ]);
    }
    // an empty value: getopt's required argument missing, or (a flag, fio's
    // FIO_OPT_STR_SET, whose value is optional) the parser's refusal of ""
    if value.is_empty() {
        let flag = crate::job::fio::options::find(key)
            .is_some_and(|o| o.arg == crate::job::fio::options::Arg::Flag);
        return Some(vec![if flag {
            format!("fio: failed parsing {key}=")
        } else {
            format!("fio: option {key} requires an argument")
        }]);
    }
    // fio sets up no job at all for `numjobs=0` (its shared memory segment fails)
    if key == "numjobs" && units::fio_number(value, 1024).is_some_and(|n| n.n == 0) {
        return Some(vec![
            "error: maximum number of jobs reached.".into(),
            "error: failed to setup shm segment".into(),
        ]);
    }
    // a node list libnuma cannot read: its warning (the message's own newline makes an
    // empty line), then fio's callback's line
    if key == "numa_cpu_nodes" {
        if let Some(warning) = libnuma_warning(value) {
            return Some(vec![
                format!("libnuma: Warning: {warning}"),
                String::new(),
                "fio: numa_parse_nodestring failed".into(),
                format!("fio: failed parsing {key}={value}"),
            ]);
        }
    }
    // a number of two parts or more (`bs=0,0`): fio reads each part and says what is
    // wrong with every one that fails
    let parts = part_lines(key, value);
    if !parts.is_empty() {
        let mut lines = parts;
        lines.push(format!("fio: failed parsing {key}={value}"));
        return Some(lines);
    }
    if let Some(line) = unit_line(key, value) {
        return Some(vec![line, format!("fio: failed parsing {key}={value}")]);
    }
    let range = range_line(key, value);
    let number = units::fio_number(value, 1024).is_some_and(|n| n.rest.is_empty());
    // a value that is another option (getopt gave `--direct --rw=write` that word) is
    // fio's `failed parsing`; a lone `-` starts a negative number, said elsewhere
    let negative = value.starts_with('-') && !value.starts_with("--");
    if (range.is_none() && number) || negative {
        return None;
    }
    let mut lines: Vec<String> = range.into_iter().collect();
    // a sequential mode whose `:N` is no size: fio's rw callback says so first; fio
    // matches the mode up to the value's first `,`, else its first `:`, so a `,` after
    // the `:` (`read:4k,zz`) names no mode and its callback never runs
    let head = &value[..value
        .find(',')
        .or_else(|| value.find(':'))
        .unwrap_or(value.len())];
    if key == "rw" && value.contains(':') && SEQUENTIAL_MODES.contains(&head.trim()) {
        lines.push("fio: rw postfix parsing failed".into());
    }
    lines.push(format!("fio: failed parsing {key}={value}"));
    Some(lines)
}

/// fio 3.33's sequential `rw=` modes: the part after their `:` must be a size.
const SEQUENTIAL_MODES: [&str; 6] = ["read", "write", "rw", "readwrite", "trim", "trimwrite"];

/// fio 3.33's options whose number may count zones (`size=4z`): a `z` there is no unit
/// fio refuses but a zone count it could not read.
const ZONE_VALUES: [&str; 5] = ["size", "io_size", "offset", "offset_increment", "zoneskip"];

/// fio 3.33's first line for a value its parser refuses before reading it: a value
/// ending in `z` of an integer, size or time option (`bs: 'z' suffix isn't applicable`;
/// for an option that counts zones, `size: unexpected zone value 'zz'`), a value of a
/// list of percentages that is no number (`not a floating point value: zz`), and the
/// lines of `bssplit`, `ignore_error` and `replay_skip` for a word they cannot read.
fn unit_line(key: &str, value: &str) -> Option<String> {
    // fio's integer it has no row for here (iomark does not run it)
    if FIO_KEYS_NOT_RUN.contains(&key) {
        return value
            .ends_with('z')
            .then(|| format!("{key}: 'z' suffix isn't applicable"));
    }
    let o = options::find(key)?;
    let word = !value.is_empty() && value.bytes().all(|b| b.is_ascii_lowercase());
    // options whose parser says first what it could not read in a word
    match o.name {
        "bssplit" if word => return Some("fio: split conversion failed".into()),
        "ignore_error" if word => {
            return Some(format!("Unknown error {value}, please use number value"))
        }
        "replay_skip" => return Some(format!("Unknown skip type: {value}")),
        "numa_mem_policy" => return numa_policy_line(value),
        _ => {}
    }
    // fio's number, also where iomark's table reads it as text (`filesize`, `randseed`:
    // FIO_OPT_STR_VAL)
    let number = fio_number(o);
    match o.kind {
        _ if number && value.ends_with('z') => Some(if ZONE_VALUES.contains(&o.name) {
            format!("{}: unexpected zone value '{value}'", o.name)
        } else {
            format!("{}: 'z' suffix isn't applicable", o.name)
        }),
        Kind::FloatList if value.parse::<f64>().is_err() && !value.contains(':') => {
            Some(format!("not a floating point value: {value}"))
        }
        _ => None,
    }
}

/// What libnuma's `numa_parse_nodestring` (which fio 3.33's `numa_cpu_nodes` callback
/// calls) warns of a node list it cannot read, with this process's allowed nodes
/// ([`crate::job::fio::extra::node_allowed`]): [`numa_warning`].
fn libnuma_warning(value: &str) -> Option<String> {
    numa_warning(value, crate::job::fio::extra::node_allowed)
}

/// libnuma's warning for `value`, nodes read in its order
/// ([`crate::job::fio::extra::libnuma_nodes`]): a node that is no number
/// (`unparseable node description `REST'`, the list from there on), a node not
/// `allowed` (`node argument N is out of range`; a range's end: `node argument N out of
/// range`), a range without its end (`missing node argument REST`); `None` for a list
/// it reads or refuses without a warning.
fn numa_warning(value: &str, allowed: impl Fn(u64) -> bool) -> Option<String> {
    crate::job::fio::extra::libnuma_nodes(value, allowed)
        .err()
        .flatten()
}

/// fio 3.33's first line for a `numa_mem_policy` value its callback refuses before it
/// reads a node list (options.c `str_numa_mpol_cb`): a mode it does not know, `prefer`
/// without one node, `local`/`default` with a list, `bind` without one.
fn numa_policy_line(value: &str) -> Option<String> {
    let (mode, nodes) = match value.split_once(':') {
        Some((m, n)) => (m, Some(n)),
        None => (value, None),
    };
    let line = match (mode, nodes) {
        ("prefer", Some(n))
            if !n
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .is_empty() =>
        {
            "fio: one node only for 'prefer'"
        }
        ("prefer", None) => "fio: one node is needed for 'prefer'",
        ("local" | "default", Some(_)) => "fio: NO nodelist for 'local'",
        ("bind", None) => "fio: a nodelist is needed for 'bind'",
        ("prefer" | "local" | "default" | "bind" | "interleave", _) => return None,
        _ => "fio: memory policy should be: default, prefer, bind, interleave, local",
    };
    Some(line.into())
}

/// Whether fio 3.33 reads option `o` as a number, also where iomark's table reads it as
/// text (`filesize`, `randseed`: FIO_OPT_STR_VAL).
fn fio_number(o: &options::FioOption) -> bool {
    match o.fio_type {
        Some(t) => t.is_number(),
        None => matches!(o.kind, Kind::Int | Kind::SizeStr | Kind::Time),
    }
}

/// fio 3.33's lines for a number option's value of parts split at `,` (parse.c
/// handle_option): it reads each part in turn, given the rest of the value from that
/// part on, and refuses the option only when no part is read. A part whose rest ends in
/// `z` gets the `'z' suffix` line (a zone count's own line); a part up to its `,` that
/// is a whole number out of range, the range line; a word, no line. Empty when the value
/// has no `,`, starts with `-` (a negative's own rules), or some part is read.
fn part_lines(key: &str, value: &str) -> Vec<String> {
    let number = options::find(key).is_some_and(fio_number);
    if !number || !value.contains(',') || value.starts_with('-') {
        return Vec::new();
    }
    // fio drops a `,` that ends the value, and reads an empty part after it
    let body = value.strip_suffix(',').unwrap_or(value);
    let mut rests: Vec<&str> = body
        .match_indices(',')
        .map(|(at, _)| &body[at + 1..])
        .collect();
    rests.insert(0, body);
    if body.len() < value.len() {
        rests.push("");
    }
    let mut lines = Vec::new();
    for rest in rests {
        let zones = rest.starts_with(|c: char| c.is_ascii_digit())
            && rest
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with('z');
        let line = if rest.ends_with('z') {
            // a zone count (`size=4z,8z`) is read
            if zones
                && ZONE_VALUES
                    .iter()
                    .any(|z| options::find(key).is_some_and(|o| o.name == *z))
            {
                return Vec::new();
            }
            unit_line(key, rest)
        } else {
            let part = rest.split(',').next().unwrap_or(rest);
            let whole = units::fio_number(part, 1024).is_some_and(|n| n.rest.is_empty());
            match range_line(key, part) {
                None if whole => return Vec::new(),
                line => line,
            }
        };
        lines.extend(line);
    }
    lines
}

/// fio 3.33's range line for `value` of the option `key` when it is a whole number out
/// of the option's range (`bs: min value out of range: 0 (1 min)`; a boolean's line
/// names no option: `max value out of range: 2 (1 max)`). A minimum or maximum of 0 is
/// no limit to fio, nor is a negative maximum.
fn range_line(key: &str, value: &str) -> Option<String> {
    let o = options::find(key)?;
    let Range::Int(min, max) = o.range else {
        return None;
    };
    // a boolean's number is the `int` fio's check_int reads (`0x3` is 3)
    let n = match o.kind {
        Kind::Bool => i64::from(units::fio_check_int(value)?),
        _ => units::fio_number(value, 1024)
            .filter(|n| n.rest.is_empty() && !n.hex)?
            .value()?,
    };
    let name = match o.kind {
        Kind::Bool | Kind::Flag => String::new(),
        _ => format!("{}: ", o.name),
    };
    // an `int` (FIO_OPT_INT) is checked as C's `int` (parse.c val_too_large,
    // val_too_small): `3000000000` is below 1, `4294967297` is 1
    let int = o.fio_type == Some(options::OptType::Int);
    let large = match n as i32 {
        i if int && i < 0 => i64::from(i) > i64::from(max as i32),
        _ if int => i64::from(n as u32) > max,
        _ => n > max,
    };
    let small = if int { i64::from(n as i32) } else { n } < min;
    if max > 0 && large {
        Some(format!("{name}max value out of range: {n} ({max} max)"))
    } else if min != 0 && small {
        Some(format!("{name}min value out of range: {n} ({min} min)"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(args: &[&str]) -> Option<Vec<String>> {
        let raw: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let e = crate::job::fio::parse_args(&raw).expect_err("refused");
        fio_lines(&e, "fio", &raw)
    }

    #[test]
    fn fios_lines_for_the_refusals_it_words_alike() {
        let j = ["--name=j", "--ioengine=null", "--size=1m"];
        let with = |extra: &str| {
            let mut a = j.to_vec();
            a.push(extra);
            lines(&a).unwrap_or_default().join("\n")
        };
        assert_eq!(
            with("--bogus=1"),
            "fio: unrecognized option '--bogus=1'\nfio: unrecognized option '--bogus=1'"
        );
        assert_eq!(
            with("--bs=0"),
            "bs: min value out of range: 0 (1 min)\nfio: failed parsing bs=0"
        );
        assert_eq!(
            with("--direct=2"),
            "max value out of range: 2 (1 max)\nfio: failed parsing direct=2"
        );
        assert_eq!(with("--rw=bogus"), "fio: failed parsing rw=bogus");
        assert_eq!(
            with("--numjobs=0"),
            "error: maximum number of jobs reached.\nerror: failed to setup shm segment"
        );
        assert_eq!(
            with("--output-format=json,xml"),
            "fio: invalid output format xml\nfio: failed parsing output-format"
        );
        assert_eq!(
            with("--ioengine=nosuch"),
            "fio: engine nosuch not loadable\nfio: failed to load engine"
        );
        // an engine fio has but iomark does not run: iomark's own line
        assert_eq!(with("--ioengine=rdma"), "");
        assert_eq!(
            lines(&["nosuch.fio"]).unwrap(),
            ["fio: unable to open 'nosuch.fio' job file"]
        );
        // fio's callbacks and types decide the first line
        assert_eq!(
            with("--numa_mem_policy=zz:1"),
            "fio: memory policy should be: default, prefer, bind, interleave, local\n\
             fio: failed parsing numa_mem_policy=zz:1"
        );
        assert_eq!(
            with("--sync_file_range=zz"),
            "fio: failed parsing sync_file_range=zz"
        );
        assert_eq!(
            with("--hugepage-size=zz"),
            "hugepage-size: 'z' suffix isn't applicable\nfio: failed parsing hugepage-size=zz"
        );
    }

    /// libnuma's warnings as fio 3.33 printed them (`numa_cpu_nodes=V` in a job file);
    /// `0x` it refused without one, `0` it reads
    #[test]
    fn libnuma_warns_of_a_node_list_as_it_reads_it() {
        let cases = [
            ("zz", Some("unparseable node description `zz'")),
            ("0,zz", Some("unparseable node description `zz'")),
            ("!zz", Some("unparseable node description `zz'")),
            ("0-x", Some("missing node argument x")),
            ("0x", None),
            ("0", None),
            ("0-1,3", None),
            // a node this machine does not allow (here: nodes 0 to 3), in libnuma's
            // order and words: a single node's, a range end's
            ("5", Some("node argument 5 is out of range")),
            ("0,5-x", Some("node argument 5 is out of range")),
            ("0-7", Some("node argument 7 out of range")),
            ("!1,4", Some("node argument 4 is out of range")),
            // C's strtoul: `-1` wraps (printed as `%d`), `-0` and `0x0` are node 0, `+N`
            // the Nth allowed node (past them the mask's size, 1024), `all` every one
            ("-1", Some("node argument -1 is out of range")),
            ("+4", Some("node argument 1024 is out of range")),
            ("-0", None),
            ("0x0", None),
            ("+3", None),
            ("all", None),
        ];
        for (v, want) in cases {
            assert_eq!(numa_warning(v, |n| n < 4).as_deref(), want, "{v}");
        }
    }

    #[test]
    fn numa_policy_lines_follow_fios_callback() {
        let cases = [
            ("zz", Some("fio: memory policy should be")),
            ("prefer", Some("fio: one node is needed for 'prefer'")),
            ("prefer:1x", Some("fio: one node only for 'prefer'")),
            ("prefer:1", None),
            ("local:0", Some("fio: NO nodelist for 'local'")),
            ("default:0", Some("fio: NO nodelist for 'local'")),
            ("bind", Some("fio: a nodelist is needed for 'bind'")),
            ("bind:0", None),
            ("interleave", None),
        ];
        for (v, want) in cases {
            let got = numa_policy_line(v);
            assert_eq!(
                got.as_deref().map(|l| &l[..want.map_or(0, str::len)]),
                want,
                "{v}: {got:?}"
            );
        }
    }
}
