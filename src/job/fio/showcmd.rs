//! `iomark run --showcmd`: the effective options of a parsed command as one command
//! line, like `fio --showcmd` (global options first, then `--name=JOB` and each job's
//! own options, values after `include` and `${VAR}` expansion), then iomark's own
//! options that change the run (`--reap-spin`, `--engine-strict`,
//! `--allow-destructive-write`). Nothing is run.

use crate::job::fio::ini::Entry;
use crate::job::fio::options;
use crate::job::fio::FioCommand;

/// Quote a word for a POSIX shell when it holds anything but `[A-Za-z0-9_./:,=+%@-]`.
fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:,=+%@-".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

fn opt(k: &str, v: &str) -> String {
    if v.is_empty() {
        format!("--{k}")
    } else {
        quote(&format!("--{k}={v}"))
    }
}

/// The job options of `cmd` in order: the global ones, then `name` and the options of
/// each job (both `--showcmd` forms print these).
fn job_options(cmd: &FioCommand) -> impl Iterator<Item = (&str, &str)> {
    let global = cmd
        .global_options
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()));
    let jobs = cmd.jobs.iter().flat_map(|j| {
        std::iter::once(("name", j.name.as_str())).chain(
            j.options
                .iter()
                .filter(|(k, _)| k != "name")
                .map(|(k, v)| (k.as_str(), v.as_str())),
        )
    });
    global.chain(jobs)
}

/// The command line of `cmd`: `iomark run --global=... --name=JOB --key=value ...`.
pub fn showcmd(cmd: &FioCommand) -> String {
    let mut words = vec!["iomark".to_string(), "run".to_string()];
    words.extend(job_options(cmd).map(|(k, v)| opt(k, v)));
    words.extend(cmd.own_options.iter().map(|(k, v)| opt(k, v)));
    words.join(" ")
}

/// `fio --showcmd` under the fio persona: one line per job file as fio 3.33 prints it
/// ([`fio_line`]); nothing for jobs of the command line alone, as fio 3.33, which dumps
/// only what it reads from job files (and runs nothing).
pub fn showcmd_fio(cmd: &FioCommand) -> String {
    cmd.fio_showcmd.iter().map(|l| format!("{l}\n")).collect()
}

/// One option as fio 3.33's `--showcmd` prints it (init.c `dump_print_option`): `--key `
/// for a bare key, else `--key=value ` unquoted, a description between `"`.
fn fio_word((k, v): &(String, Option<String>)) -> String {
    match v {
        None => format!("--{k} "),
        Some(v) if k == "description" => format!("--{k}=\"{v}\" "),
        Some(v) => format!("--{k}={v} "),
    }
}

/// The order fio 3.33 reads a section's options in ([`options::fio_read_rank`]).
fn fio_order(mut opts: Vec<(String, Option<String>)>) -> Vec<(String, Option<String>)> {
    opts.sort_by_key(|(k, _)| options::fio_read_rank(k));
    opts
}

/// fio 3.33's `--showcmd` line of one job file (init.c `parse_jobs_ini`): `fio `, then
/// each section in order: a job's `--name=SECTION` and its options; a `[global]`'s
/// options every global so far holds — the command line's (`cmdline`, as given) and
/// those of each `[global]` up to this one, each section's in [`fio_order`]. Names are
/// the options' own (`blocksize` is `bs`), values as fio reads them (`$pagesize`
/// replaced). Each word ends with a blank.
pub fn fio_line(cmdline: &[(String, Option<String>)], sections: &[(String, Vec<Entry>)]) -> String {
    let mut globals: Vec<(String, Option<String>)> = cmdline.to_vec();
    let mut line = String::from("fio ");
    for (name, entries) in sections {
        let opts: Vec<_> = entries
            .iter()
            .map(|e| {
                let v = e.value.as_ref().map(|v| options::as_fio_reads(&e.key, v));
                (options::canonical(&e.key), v)
            })
            .collect();
        if crate::job::fio::ini::is_global(name) {
            globals.extend(fio_order(opts));
            globals.iter().for_each(|o| line += &fio_word(o));
        } else {
            line += &format!("--name={name} ");
            fio_order(opts).iter().for_each(|o| line += &fio_word(o));
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::fio::parse_args_with;

    /// fio's form: nothing for a command line alone (fio 3.33 dumps job files only); a
    /// job file's line in fio's order
    /// (the command line's globals with each `[global]`, every global so far again at a
    /// later one; `kb_base` first and `filename` last in a section; the engine's
    /// options after the rest; a description quoted; `blocksize` named `bs`).
    #[test]
    fn the_fio_persona_prints_fios_form() {
        let a: Vec<String> = ["--bs=8k", "--name=x", "--rw=read", "--filename=a b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let c = parse_args_with(&a, &|_| None).unwrap();
        assert_eq!(showcmd_fio(&c), "");
        let e = |k: &str, v: Option<&str>| Entry {
            key: k.to_string(),
            value: v.map(str::to_string),
            origin: crate::job::fio::ini::Origin::CommandLine,
        };
        let sections = vec![
            (
                "global".to_string(),
                vec![e("filename", Some("f")), e("blocksize", Some("8k"))],
            ),
            (
                "j".to_string(),
                vec![
                    e("hipri", None),
                    e("ioengine", Some("io_uring")),
                    e("kb_base", Some("1000")),
                    e("description", Some("a b")),
                ],
            ),
            ("global".to_string(), vec![e("iodepth", Some("2"))]),
        ];
        let cmdline = [("size".to_string(), Some("1m".to_string()))];
        assert_eq!(
            fio_line(&cmdline, &sections),
            "fio --size=1m --bs=8k --filename=f --name=j --kb_base=1000 --ioengine=io_uring \
             --description=\"a b\" --hipri --size=1m --bs=8k --filename=f --iodepth=2 "
        );
    }

    #[test]
    fn globals_then_jobs_quoted_when_needed() {
        let a: Vec<String> = [
            "--size=1m",
            "--name=a b",
            "--rw=randread",
            "--time_based",
            "--runtime=1",
            "--description=it's",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let c = parse_args_with(&a, &|_| None).unwrap();
        assert_eq!(
            showcmd(&c),
            r"iomark run --size=1m '--name=a b' --rw=randread --time_based --runtime=1 '--description=it'\''s'"
        );
    }

    #[test]
    fn iomark_own_options_are_shown() {
        let a: Vec<String> = [
            "--reap-spin",
            "800ns",
            "--engine-strict",
            "--name=j",
            "--size=1m",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let c = parse_args_with(&a, &|_| None).unwrap();
        assert_eq!(
            showcmd(&c),
            "iomark run --name=j --size=1m --reap-spin=800ns --engine-strict"
        );
    }
}
