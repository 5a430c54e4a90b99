//! `iomark run --showcmd`: the effective options of a parsed command as one command
//! line, like `fio --showcmd` (global options first, then `--name=JOB` and each job's
//! own options, values after `include` and `${VAR}` expansion), then iomark's own
//! options that change the run (`--reap-spin`, `--engine-strict`,
//! `--allow-destructive-write`). Nothing is run.

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

/// `fio --showcmd` as fio 3.33 prints it under the fio persona: `fio `, then each
/// option as `--key=value ` unquoted (a trailing space after the last), without
/// iomark's own options.
pub fn showcmd_fio(cmd: &FioCommand) -> String {
    let mut s = String::from("fio ");
    for (k, v) in job_options(cmd) {
        s += &match v.is_empty() {
            true => format!("--{k} "),
            false => format!("--{k}={v} "),
        };
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::fio::parse_args_with;

    /// fio's form: `fio --bs=8k --name=x --rw=read --filename=a b ` (raw, trailing space).
    #[test]
    fn the_fio_persona_prints_fios_form() {
        let a: Vec<String> = ["--bs=8k", "--name=x", "--rw=read", "--filename=a b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let c = parse_args_with(&a, &|_| None).unwrap();
        assert_eq!(
            showcmd_fio(&c),
            "fio --bs=8k --name=x --rw=read --filename=a b "
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
