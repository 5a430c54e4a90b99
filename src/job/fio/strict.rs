//! The fio persona's reading of a job file's sections as fio 3.33 reads them, before
//! iomark's own: a key fio 3.33 does not know (one of iomark's own, such as `readonly`,
//! which fio takes on the command line only, or one of a later fio, such as
//! `verify_write_sequence`) is fio's `Bad option <KEY=VALUE>` with its `Did you mean
//! X?`, and a value only a later fio reads (`random_distribution=sequence:…`,
//! `steadystate=lat:…`, `protocol=vsock`) is fio's `fio: failed parsing …`, and an
//! engine's option in a section whose engine does not take it (`ioengine=sync` with
//! `hipri=1`: fio reads a section's engine options from its engine's table) is a `Bad
//! option` as an unknown key is; the first
//! section with any of them ends the parse with `fio: job NAME dropped`, as fio 3.33's
//! does (exit 1). `iomark run` reads them all as iomark does (docs/compat/fio.md).

use crate::job::fio::ini::Entry;
use crate::job::fio::{fio333, options};

/// Values of fio 3.33's options that only a later fio reads: `(key, the value's
/// beginning, how fio 3.33's line names the option)`.
const LATER_VALUES: &[(&str, &str, Named)] = &[
    ("random_distribution", "sequence", Named::KeyValue),
    ("steadystate", "lat", Named::KeyValue),
    ("ss", "lat", Named::KeyValue),
    ("protocol", "vsock", Named::Key),
    ("proto", "vsock", Named::Key),
];

/// How fio 3.33's `failed parsing` line names an option.
#[derive(Clone, Copy)]
enum Named {
    /// `fio: failed parsing KEY=VALUE` (its job options)
    KeyValue,
    /// `fio: failed parsing KEY` (an engine's option)
    Key,
}

/// fio 3.33's reading of `sections` (name, entries) read from one job file, in order:
/// the first section with a key or value fio 3.33 refuses, its index and fio's lines for
/// it (the caller's [`FioError::FioLines`](crate::job::fio::FioError::FioLines)); the sections before it stand (fio added
/// their jobs). `engine`: the engine of the command line's global options as fio names
/// it (`FioJob::ioengine`: fio's default, psync, when they name none).
pub fn first_refused(
    sections: &[(String, Vec<Entry>)],
    engine: &str,
) -> Option<(usize, Vec<String>)> {
    let mut global = engine.to_string();
    for (i, (name, entries)) in sections.iter().enumerate() {
        let own = entries
            .iter()
            .rev()
            .find(|e| options::canonical(&e.key) == "ioengine")
            .and_then(|e| e.value.as_deref())
            .map(|v| crate::util::engines::fio_name(v).to_string());
        let engine = own.unwrap_or_else(|| global.clone());
        if crate::job::fio::ini::is_global(name) {
            global.clone_from(&engine);
        }
        let takes = options::options_of_engine(&engine);
        // (an engine iomark does not run, `io_uring_cmd`: its table is not iomark's)
        let judged = crate::job::fio::EngineKind::parse(&engine).is_some();
        let refused = |e: &&Entry| {
            let key = options::canonical(&e.key);
            !fio333::job_key_known(&e.key)
                || (judged
                    && options::engine_option_names().any(|n| n == key)
                    && !takes.contains(&key.as_str()))
        };
        // (a value of an option fio does not know there is no value it fails to parse)
        let mut lines: Vec<String> = entries
            .iter()
            .filter(|e| !refused(e))
            .filter_map(later_value)
            .collect();
        for e in entries.iter().filter(refused) {
            let opt = match &e.value {
                Some(v) => format!("{}={v}", e.key),
                None => e.key.clone(),
            };
            lines.push(format!("Bad option <{opt}>"));
            if let Some(m) = fio333::did_you_mean_job(&opt) {
                lines.push(format!("Did you mean {m}?"));
            }
        }
        if !lines.is_empty() {
            lines.push(format!("fio: job {name} dropped"));
            return Some((i, lines));
        }
    }
    None
}

/// fio 3.33's `failed parsing` line for an entry whose value only a later fio reads.
fn later_value(e: &Entry) -> Option<String> {
    let v = e.value.as_deref()?;
    let key = e.key.replace('-', "_");
    let (_, _, named) = LATER_VALUES
        .iter()
        .find(|(k, start, _)| *k == key && v.trim().to_ascii_lowercase().starts_with(start))?;
    Some(match named {
        Named::KeyValue => format!("fio: failed parsing {}={v}", e.key),
        Named::Key => format!("fio: failed parsing {}", e.key),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::fio::ini::Origin;
    use crate::util::engines::FIO_DEFAULT;

    fn section(name: &str, kv: &[(&str, Option<&str>)]) -> (String, Vec<Entry>) {
        let entries = kv
            .iter()
            .map(|(k, v)| Entry {
                key: k.to_string(),
                value: v.map(str::to_string),
                origin: Origin::CommandLine,
            })
            .collect();
        (name.to_string(), entries)
    }

    fn lines(s: &[(String, Vec<Entry>)]) -> Vec<String> {
        match first_refused(s, FIO_DEFAULT) {
            Some((_, l)) => l,
            None => panic!("not refused"),
        }
    }

    #[test]
    fn fios_bad_option_and_failed_parsing_lines() {
        let ok = section(
            "a",
            &[
                ("rw", Some("read")),
                ("ioengine", Some("net")),
                ("hostname", Some("h")),
            ],
        );
        assert!(first_refused(std::slice::from_ref(&ok), FIO_DEFAULT).is_none());
        let ro = section("j", &[("readonly", Some("1"))]);
        assert_eq!(
            first_refused(&[ok.clone(), ro.clone()], FIO_DEFAULT).map(|r| r.0),
            Some(1)
        );
        assert_eq!(
            lines(&[ok.clone(), ro]),
            [
                "Bad option <readonly=1>",
                "Did you mean create_only?",
                "fio: job j dropped"
            ]
        );
        let seq = section(
            "s",
            &[
                ("random_sequence_stride", Some("0")),
                ("random_distribution", Some("sequence:2,0,1")),
            ],
        );
        assert_eq!(
            lines(&[seq]),
            [
                "fio: failed parsing random_distribution=sequence:2,0,1",
                "Bad option <random_sequence_stride=0>",
                "Did you mean rw_sequencer?",
                "fio: job s dropped"
            ]
        );
        let vsock = section(
            "global",
            &[("ioengine", Some("net")), ("protocol", Some("vsock"))],
        );
        assert_eq!(
            lines(&[vsock]),
            ["fio: failed parsing protocol", "fio: job global dropped"]
        );
        // an engine's option where the section's engine (psync, fio's default) has none
        let psync = section("global", &[("protocol", Some("vsock"))]);
        assert_eq!(
            lines(&[psync]),
            ["Bad option <protocol=vsock>", "fio: job global dropped"]
        );
        // the engine of the [global] before, or of the command line
        let hipri = section("j", &[("hipri", Some("1"))]);
        let ring = section("global", &[("ioengine", Some("io_uring"))]);
        assert!(first_refused(&[ring, hipri.clone()], FIO_DEFAULT).is_none());
        assert!(first_refused(std::slice::from_ref(&hipri), "io_uring").is_none());
        assert_eq!(
            lines(&[hipri]),
            [
                "Bad option <hipri=1>",
                "Did you mean prio?",
                "fio: job j dropped"
            ]
        );
    }
}
