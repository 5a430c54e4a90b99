//! docs/how-to-read-a-result.md cannot drift, and its outputs come from a run on this
//! machine: every `$ iomark …` (or `$ sudo iomark …`) block of the page runs, in order,
//! in one directory on the virtio disk (the page prepares a file set, runs on it, times
//! commands over it, removes it), and every output line the page shows must appear in
//! the real output once numbers are masked (README's rule, tests/it/readme.rs `mask`).
//! With `IOMARK_REGEN_DOCS=1` the test writes the page back with each shown line
//! replaced by the real line it matched: the page's figures are this run's.
//!
//! Four kinds of line depend on how busy the machine is or how it is set, not on iomark: the tail of
//! `iomark time`'s bound after `; the rest is` (CPU against waiting for a CPU) is not
//! compared, the notes' `time:` line lists its parts largest first (any order matches),
//! and an fsync finding matches either fsync finding (`fsync.flush_bound` or
//! `fsync.writeout_bound`: which one depends on the flush time against the mean fsync
//! on the day); `iomark time`'s source line names whether `kernel.task_delayacct` was
//! already on (another program's setting) or turned on for the run, which is not
//! compared either; regenerating writes the line this run printed.
//!
//! The suite's `tree` runs drop the machine's page cache as root; a block that does not
//! match after such a drop (counted in /proc/vmstat, `cache_drops`) is run again, once
//! to warm the cache and once to compare. Without a drop a mismatch fails at once.
//!
//! The page shows a machine at rest. When a disk was busy for a tenth of a run's wall
//! time or more (its `io_ticks` in /sys/block/*/stat, [`disk_busy_ms`]) while the page
//! says the command read nothing from the device, other processes' I/O made the
//! command wait: the bound line then says a share, as it should, and either of the
//! page's sentences matches. On a quiet disk the sentence must be the page's.

use crate::readme::{mask, words};
use crate::util::*;
use std::path::PathBuf;

const PAGE: &str = "docs/how-to-read-a-result.md";

/// The part of a (masked) line that is compared: see the module header.
fn key(masked: &str) -> String {
    // the notes' time line lists the parts largest first: its order is the run's
    if masked.starts_with("time: ") && masked.ends_with("s)") {
        return "time:".into();
    }
    // whether delay accounting was on before the run is the machine's state
    if let Some(i) = masked.find("; kernel.task_delayacct ") {
        return masked[..i].to_string();
    }
    // the bound line: which sentence it is. "at least …: unknown" is printed when the
    // kernel gave exit records the time since boot (docs/commands/time.md) and stands
    // for either of the page's sentences ([`missing`]); each sentence is pinned in
    // result::command's tests
    if masked.starts_with("bound ") {
        for (says, k) in [
            ("a drive twice as fast would save", BOUND_STORAGE),
            (
                "a faster drive would not make this command faster",
                BOUND_CPU,
            ),
            ("is unknown for this run", BOUND_UNKNOWN),
        ] {
            if masked.contains(says) {
                return k.into();
            }
        }
    }
    if let Some(i) = masked.find("; the rest is") {
        return masked[..i].to_string();
    }
    for id in [
        "iomark: WARNING [fsync.flush_bound]",
        "iomark: WARNING [fsync.writeout_bound]",
    ] {
        if masked.starts_with(id) {
            return "iomark: WARNING [fsync finding]".into();
        }
    }
    masked.to_string()
}

/// One block: the line index of each shown output line, the command's arguments.
struct Block {
    args: Vec<String>,
    shown: Vec<usize>,
}

/// The blocks of the page: indented lines whose first is `$ iomark …` or
/// `$ sudo iomark …`, followed by the indented output lines it shows (`…` skipped).
fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut out = vec![];
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        let cmd = l
            .strip_prefix("$ iomark ")
            .or_else(|| l.strip_prefix("$ sudo iomark "));
        if let (Some(cmd), true) = (cmd, lines[i].starts_with("    ")) {
            let mut shown = vec![];
            while i + 1 < lines.len() && lines[i + 1].starts_with("    ") {
                i += 1;
                if lines[i].trim() != "…" {
                    shown.push(i);
                }
            }
            out.push(Block {
                args: words(cmd),
                shown,
            });
        }
        i += 1;
    }
    out
}

/// Keys of `iomark time`'s bound line ([`key`]).
const BOUND_STORAGE: &str = "bound: storage-bound";
const BOUND_CPU: &str = "bound: not storage-bound";
const BOUND_UNKNOWN: &str = "bound: a lower bound only";

/// Milliseconds each whole disk (not loop, zram or ram) has spent busy since boot:
/// the 10th field of /sys/block/NAME/stat.
fn disk_ticks() -> Vec<(String, u64)> {
    let Ok(rd) = std::fs::read_dir("/sys/block") else {
        return vec![];
    };
    let mut out = vec![];
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if ["loop", "zram", "ram"].iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        if let Some(t) = stat.split_whitespace().nth(9).and_then(|v| v.parse().ok()) {
            out.push((name, t));
        }
    }
    out
}

/// The most milliseconds one whole disk was busy between two [`disk_ticks`] readings.
fn disk_busy_ms(before: &[(String, u64)], after: &[(String, u64)]) -> u64 {
    after
        .iter()
        .filter_map(|(n, a)| {
            let b = before.iter().find(|(m, _)| m == n)?.1;
            Some(a.saturating_sub(b))
        })
        .max()
        .unwrap_or(0)
}

/// One run of a block, and whether a disk was busy for a tenth of its wall time or more.
fn run_block(dir: &std::path::Path, b: &Block) -> (Out, bool) {
    let before = disk_ticks();
    let t = std::time::Instant::now();
    let o = Iomark::new().dir(dir).args(&b.args).run();
    let wall = t.elapsed().as_millis() as u64;
    let busy = disk_busy_ms(&before, &disk_ticks()) * 10 >= wall.max(1);
    (o, busy)
}

/// The first line the block shows that the output lacks (numbers masked, see [`key`]).
/// `busy`: a disk was busy for a tenth of the run or more (see the module header).
fn missing(lines: &[String], b: &Block, o: &Out, busy: bool) -> Option<usize> {
    let mut got: Vec<String> = o
        .stdout
        .lines()
        .chain(o.stderr.lines())
        .map(|g| key(&mask(g)))
        .collect();
    // a run whose storage wait is a lower bound draws no conclusion: it stands for
    // either sentence the page shows
    if got.iter().any(|k| k == BOUND_UNKNOWN) {
        got.extend([BOUND_STORAGE.to_string(), BOUND_CPU.to_string()]);
    }
    // other processes kept a disk busy while the page says the command read nothing
    // from the device: the wait it measured is theirs, and either sentence matches
    let reads_nothing = b.shown.iter().any(|&i| {
        let l = lines[i].trim_start();
        l.starts_with("read ") && l.contains(" 0 B from the device")
    });
    if busy && reads_nothing && got.iter().any(|k| k == BOUND_STORAGE) {
        got.push(BOUND_CPU.to_string());
    }
    b.shown
        .iter()
        .copied()
        .find(|&i| !got.contains(&key(&mask(&lines[i]))))
}

/// The page's examples, run in order; their shown lines checked (or regenerated).
#[test]
fn how_to_read_a_result_shows_what_iomark_prints_here() {
    let _g = crate::time::one_at_a_time();
    if !is_root() {
        skip("the page's `iomark time` examples measure the storage wait as root");
        return;
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(PAGE);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let refs: Vec<&str> = text.lines().collect();
    let bl = blocks(&refs);
    assert!(bl.len() >= 5, "the page's examples: {}", bl.len());
    let regen = std::env::var_os("IOMARK_REGEN_DOCS").is_some();
    let dir = crate::time::on_disk();
    let mut drops = cache_drops();
    for b in &bl {
        let (mut o, mut busy) = run_block(dir.path(), b);
        // another test emptied the page cache (`tree` as root drops it) since the last
        // block: run this one again, once to warm the cache and once to compare
        if missing(&lines, b, &o, busy).is_some() && cache_drops() != drops {
            Iomark::new().dir(dir.path()).args(&b.args).run();
            (o, busy) = run_block(dir.path(), b);
        }
        // tests beside it writing the disk hard can make a cached read wait for storage
        // (the `bound` line then says a share, as it should): the page shows a run of a
        // machine at rest, so a block gets two more tries before it counts as missing
        for _ in 0..2 {
            if missing(&lines, b, &o, busy).is_none() {
                break;
            }
            (o, busy) = run_block(dir.path(), b);
        }
        assert!(
            o.code == 0 && !o.stderr.contains("panicked"),
            "iomark {:?}: {}",
            b.args,
            o.dump()
        );
        if let Some(i) = missing(&lines, b, &o, busy) {
            panic!(
                "{PAGE} shows for iomark {}:\n  {}\nbut iomark prints:\n  {}",
                b.args.join(" "),
                lines[i].trim(),
                o.stdout
                    .lines()
                    .chain(o.stderr.lines())
                    .collect::<Vec<_>>()
                    .join("\n  ")
            );
        }
        if regen {
            let got: Vec<&str> = o.stdout.lines().chain(o.stderr.lines()).collect();
            for &i in &b.shown {
                let want = key(&mask(&lines[i]));
                if let Some(g) = got.iter().find(|g| key(&mask(g)) == want) {
                    let indent = lines[i].len() - lines[i].trim_start().len();
                    lines[i] = format!("{}{}", " ".repeat(indent), g.trim_start());
                }
            }
        }
        drops = cache_drops();
    }
    if regen {
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
}
