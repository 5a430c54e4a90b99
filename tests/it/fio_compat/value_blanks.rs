//! A value with a blank after `=` (`bs = 8k`, `--size=" 64k"`), read as fio 3.33 reads
//! it: fio strips the blanks after a key only, so a number loses its unit (fio looks for
//! the unit at the value's first character, the blank), a listed value names none of its
//! words, an engine's name keeps its blank, and the JSON lists the value as written. And
//! a `${VAR}` that is not set is nothing under the fio persona, as fio substitutes it.
//! Each test runs iomark as `fio` and, when installed, fio 3.33 the same way.

use crate::util::*;
use iomark::job::fio::options::{self, Apply, Kind};
use std::path::Path;

/// Run the job file `job` (written as `j.fio`) with `tool` in a fresh `d/TOOL`, with
/// `args` before it.
fn job(tool: &str, d: &Path, job: &str, args: &[&str]) -> (Out, std::path::PathBuf) {
    let (cmd, w) = fio_or_ours_in(tool, d);
    std::fs::write(w.join("j.fio"), job).unwrap();
    (cmd.args(args).arg("j.fio").env_remove("NOPE_P24").run(), w)
}

/// `o` is `tool`'s refusal: exit 1, and stderr (trailing blanks aside) is `lines`.
fn refused(tool: &str, o: &Out, lines: &[&str]) {
    assert_eq!(o.code, 1, "{tool}: {}", o.dump());
    assert_eq!(
        o.stderr.trim_end().lines().collect::<Vec<_>>(),
        lines,
        "{tool}"
    );
}

/// The tools to compare: iomark, and fio 3.33 when installed.
fn tools(test: &str) -> Vec<&'static str> {
    let mut t = vec!["iomark"];
    if need_fio(test) {
        t.push("fio");
    }
    t
}

/// `bs = 8k` is 8 bytes and `size = 64k` 64 (fio 3.33: 8 writes, 64 bytes), and the JSON
/// lists both with their blank (`"bs" : " 8k"`); a boolean and an integer read their
/// number (`iodepth = 4`).
#[test]
fn a_blank_before_a_number_drops_its_unit() {
    let d = scratch();
    let text = "[j]\nioengine=null\nrw=write\nbs = 8k\nsize = 64k\niodepth = 4\ndirect = 0\n";
    for tool in tools("a_blank_before_a_number_drops_its_unit") {
        let (o, _) = job(tool, d.path(), text, &["--output-format=json"]);
        let doc = o.ok().json_doc();
        let j = &doc["jobs"][0];
        assert_eq!(j["write"]["io_bytes"], 64, "{tool}: {}", o.dump());
        assert_eq!(j["write"]["total_ios"], 8, "{tool}");
        assert_eq!(j["job options"]["bs"], " 8k", "{tool}");
        assert_eq!(j["job options"]["size"], " 64k", "{tool}");
        assert_eq!(j["job options"]["iodepth"], " 4", "{tool}");
    }
}

/// `--size=" 64k"` on the command line is 64 bytes, below the 4 KiB block: refused with
/// fio's line, exit 1 (iomark ran 64 KiB).
#[test]
fn a_blank_before_a_size_on_the_command_line_is_bytes() {
    let d = scratch();
    for tool in tools("a_blank_before_a_size_on_the_command_line_is_bytes") {
        let (cmd, _) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args(["--name=j", "--filename=x.dat", "--rw=write", "--size= 64k"])
            .run();
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert!(
            o.stderr.contains(
                "fio: size too small, must not be less than minimum block size: 64 < 4096"
            ),
            "{tool}: {}",
            o.dump()
        );
    }
}

/// `rw = write` names no mode: fio's `failed parsing` line with the line as written, the
/// job dropped, the valid values on stdout, exit 1; on the command line `rw= write`.
#[test]
fn a_blank_before_a_listed_value_is_refused() {
    let d = scratch();
    let text = "[j]\nioengine=null\nsize=1m\nrw = write\n";
    for tool in tools("a_blank_before_a_listed_value_is_refused") {
        let (o, _) = job(tool, d.path(), text, &[]);
        refused(
            tool,
            &o,
            &["fio: failed parsing rw = write", "fio: job j dropped"],
        );
        assert!(
            o.stdout.contains("valid values: read"),
            "{tool}: {}",
            o.dump()
        );
        let (cmd, _) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args(["--name=j", "--ioengine=null", "--rw= write", "--size=1m"])
            .run();
        refused(tool, &o, &["fio: failed parsing rw= write"]);
    }
}

/// `ioengine = psync` loads the engine " psync", which is none: fio's two loader lines,
/// exit 1.
#[test]
fn a_blank_before_an_engine_name_is_no_engine() {
    let d = scratch();
    let text = "[j]\nioengine = psync\nsize=1m\nrw=write\n";
    for tool in tools("a_blank_before_an_engine_name_is_no_engine") {
        let (o, _) = job(tool, d.path(), text, &[]);
        refused(
            tool,
            &o,
            &[
                "fio: engine  psync not loadable",
                "fio: failed to load engine",
            ],
        );
    }
}

/// `filename = x.dat` names `x.dat` (fio strips a file name's blanks itself): the file
/// is made, 64 KiB written, and the JSON lists the value as written.
#[test]
fn a_blank_before_a_file_name_is_stripped() {
    let d = scratch();
    let text = "[j]\nrw=write\nsize=64k\nfilename = x.dat\n";
    for tool in tools("a_blank_before_a_file_name_is_stripped") {
        let (o, w) = job(tool, d.path(), text, &["--output-format=json"]);
        let doc = o.ok().json_doc();
        assert_eq!(doc["jobs"][0]["write"]["io_bytes"], 65536, "{tool}");
        assert_eq!(
            doc["jobs"][0]["job options"]["filename"], " x.dat",
            "{tool}"
        );
        assert_eq!(std::fs::metadata(w.join("x.dat")).unwrap().len(), 65536);
    }
}

/// Every job key of iomark's option table with an example, given that example after a
/// blank (`--KEY= EXAMPLE`): `--parse-only` accepts or refuses it as fio 3.33 does
/// (a number without its unit, a listed word not matched, text as fio takes it).
#[test]
fn a_blank_value_parses_as_fio_for_every_kind() {
    let d = scratch();
    let with_fio = need_fio("a_blank_value_parses_as_fio_for_every_kind");
    let (mut checked, mut differ) = (std::collections::BTreeMap::new(), Vec::new());
    let keys = options::all().filter(|o| matches!(o.apply, Apply::Job(_)));
    for o in keys {
        // a boolean's table entry has no example: on
        let ex = match o.kind {
            Kind::Bool | Kind::Flag => o.example.unwrap_or("1"),
            _ => o.example.unwrap_or(""),
        };
        // (`size= 50%` is 50 bytes to both; iomark's `--parse-only` checks a size against
        // the block size, fio's does not, `--size=50` alike: no matter of blanks)
        if ex.is_empty() || o.name == "size" {
            continue;
        }
        let ours_plain = parse_only(as_fio(d.path()).dir(d.path()), o.name, ex).code;
        if ours_plain != 0 || !with_fio {
            continue;
        }
        if parse_only(fio_cmd().dir(d.path()), o.name, ex).code != 0 {
            continue;
        }
        let v = format!(" {ex}");
        let ours = parse_only(as_fio(d.path()).dir(d.path()), o.name, &v);
        let fio = parse_only(fio_cmd().dir(d.path()), o.name, &v);
        *checked.entry(format!("{:?}", o.kind)).or_insert(0) += 1;
        if ours.code != fio.code {
            differ.push(format!(
                "--{}='{v}': fio exit {}: {}; iomark: {}",
                o.name,
                fio.code,
                fio.stderr.trim(),
                ours.all()
            ));
        }
    }
    if with_fio {
        println!("checked per kind: {checked:?}");
        for k in [Kind::Int, Kind::SizeStr, Kind::Time, Kind::Bool, Kind::Str] {
            assert!(
                checked.contains_key(&format!("{k:?}")),
                "{k:?}: {checked:?}"
            );
        }
        assert!(differ.is_empty(), "{}", differ.join("\n"));
    }
}

/// A `${VAR}` that is not set is nothing under the fio persona, as fio substitutes it:
/// `filename=f_${NOPE_P24}` writes `f_`; `bs=${NOPE_P24}` is an empty `bs`, refused with
/// the line as written.
#[test]
fn an_unset_variable_is_nothing_as_in_fio() {
    let d = scratch();
    let made = "[j]\nrw=write\nsize=64k\nfilename=f_${NOPE_P24}\n";
    let empty = "[j]\nioengine=null\nsize=1m\nbs=${NOPE_P24}\n";
    for tool in tools("an_unset_variable_is_nothing_as_in_fio") {
        let (o, w) = job(tool, d.path(), made, &["--output-format=json"]);
        o.ok();
        assert_eq!(
            std::fs::metadata(w.join("f_")).unwrap().len(),
            65536,
            "{tool}"
        );
        let (o, _) = job(tool, d.path(), empty, &[]);
        refused(
            tool,
            &o,
            &["fio: failed parsing bs=${NOPE_P24}", "fio: job j dropped"],
        );
    }
}

/// Text before the first section is named up to its first `#` or `;`, as fio strips a
/// line: `fio: option <junk> outside of [] job section`, exit 1.
#[test]
fn text_before_a_section_is_named_without_its_comment() {
    let d = scratch();
    let text = "junk#note\n[j]\nioengine=null\nsize=1m\n";
    for tool in tools("text_before_a_section_is_named_without_its_comment") {
        let (o, _) = job(tool, d.path(), text, &[]);
        refused(tool, &o, &["fio: option <junk> outside of [] job section"]);
    }
}

/// A job file that is a directory is an empty one to fio 3.33 (it opens it and reads no
/// line): its usage on stdout, `No job(s) defined` on stderr, exit 1 (iomark said it
/// could not open the job file).
#[test]
fn a_directory_as_a_job_file_defines_no_job() {
    let d = scratch();
    for tool in tools("a_directory_as_a_job_file_defines_no_job") {
        let (cmd, w) = fio_or_ours_in(tool, d.path());
        std::fs::create_dir(w.join("dd")).unwrap();
        let o = cmd.arg("dd").run();
        refused(tool, &o, &["No job(s) defined"]);
        assert!(
            o.stdout.contains("[options] [job options] <job file(s)>"),
            "{tool}"
        );
    }
}

/// `--status-interval=0.5` is 0 seconds to fio 3.33 (strtoll stops at the `.`): `fio:
/// status interval too small`, exit 1 — iomark read 500 ms and refused it as a value it
/// could not parse.
#[test]
fn a_status_interval_under_a_millisecond_is_too_small() {
    let d = scratch();
    for tool in tools("a_status_interval_under_a_millisecond_is_too_small") {
        for v in ["0.5", "0", "999us"] {
            let (cmd, _) = fio_or_ours_in(tool, d.path());
            let o = cmd
                .args(["--name=j", "--ioengine=null", "--size=1m"])
                .arg(format!("--status-interval={v}"))
                .run();
            assert_eq!(o.code, 1, "{tool} {v}: {}", o.dump());
            assert_eq!(
                o.stderr.trim_end(),
                "fio: status interval too small",
                "{tool} {v}"
            );
        }
    }
}

/// A range's and a split's parts are each read as fio 3.33's `str_to_decimal` reads
/// them: `bsrange = 4k-8k` is 4 to 8192 bytes (the first part after the blank has no
/// unit), and `bssplit = 4k/50: 8k/50, 16k` (fio strips the blanks around the whole value)
/// reads 4096 and 8 bytes, then 16 bytes for writes and trims — the header's sizes.
#[test]
fn a_blank_before_a_range_or_split_part_drops_its_unit() {
    let d = scratch();
    let cases = [
        (
            "bsrange = 4k-8k",
            "bs=(R) 4B-8192B, (W) 4B-8192B, (T) 4B-8192B,",
        ),
        (
            "bssplit = 4k/50: 8k/50, 16k",
            "bs=(R) 8B-4096B, (W) 16B-16B, (T) 16B-16B,",
        ),
    ];
    for tool in tools("a_blank_before_a_range_or_split_part_drops_its_unit") {
        for (line, sizes) in cases {
            let text = format!("[j]\nioengine=null\nrw=randwrite\n{line}\nsize=1m\n");
            let (o, _) = job(tool, d.path(), &text, &[]);
            let head = o.ok().stdout.lines().next().unwrap_or("").to_string();
            assert!(head.contains(sizes), "{tool} {line}: {head}");
        }
    }
}

/// A blank before a `(` leaves fio 3.33 no number to read (it evaluates an expression
/// only at the value's first character): `bs = (4k*2)` is refused with the line as
/// written and the job dropped, `--bs= (4k*2)` with its `failed parsing` line, exit 1.
#[test]
fn a_blank_before_an_expression_is_refused() {
    let d = scratch();
    let text = "[j]\nioengine=null\nrw=write\nbs = (4k*2)\nsize=1m\n";
    for tool in tools("a_blank_before_an_expression_is_refused") {
        let (o, _) = job(tool, d.path(), text, &[]);
        refused(
            tool,
            &o,
            &["fio: failed parsing bs = (4k*2)", "fio: job j dropped"],
        );
        let (cmd, _) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args(["--name=j", "--ioengine=null", "--bs= (4k*2)", "--size=1m"])
            .run();
        refused(tool, &o, &["fio: failed parsing bs= (4k*2)"]);
    }
}

/// `--parse-only` runs none of fio 3.33's fixups, so a size below the block size passes
/// there: `--size= 50%` (50 bytes after the blank), `--size=50%` and `--size= 64k` (64
/// bytes) are taken, exit 0, nothing said; the job run refuses `--size= 50%` with fio's
/// `size too small` line, exit 1.
#[test]
fn a_size_below_the_block_passes_parse_only() {
    let d = scratch();
    for tool in tools("a_size_below_the_block_passes_parse_only") {
        for size in ["--size= 50%", "--size=50%", "--size= 64k"] {
            let (cmd, _) = fio_or_ours_in(tool, d.path());
            let o = cmd.args(["--name=j", size, "--parse-only"]).run();
            assert_eq!(
                (o.code, o.stdout.as_str(), o.stderr.as_str()),
                (0, "", ""),
                "{tool} {size}"
            );
        }
        let (cmd, _) = fio_or_ours_in(tool, d.path());
        let o = cmd
            .args(["--name=j", "--size= 50%", "--filename=x", "--ioengine=null"])
            .run();
        assert_eq!(o.code, 1, "{tool}: {}", o.dump());
        assert!(
            o.stderr.contains(
                "fio: size too small, must not be less than minimum block size: 50 < 4096"
            ),
            "{tool}: {}",
            o.dump()
        );
    }
}
