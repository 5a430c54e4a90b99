//! `--cmdhelp`: an option's help and the list of every option, rendered from the option
//! table's facts of what fio 3.33 shows ([`options::FioOption::help_shown`]) and fio's
//! options iomark has no row for ([`fio333::shown`]). Under the fio persona both are
//! fio 3.33's (`parse.c: show_cmd_help`); `iomark run --cmdhelp` lists iomark's options
//! by group ([`options::cmdhelp_all`]) and shows an option with what iomark accepts.

use super::fio333;
use super::options::{self, OptionHelp};

/// `iomark run --cmdhelp=KEY`: the option of iomark's table `key` names (`-` and `_`
/// alike), in fio's layout with what iomark accepts ([`options::FioOption::help_accepted`]).
/// `None` when none is.
pub fn key(key: &str) -> Option<String> {
    let o = options::find(&key.trim().replace('-', "_"))?;
    Some(o.help_accepted().render())
}

/// The help fio 3.33 prints of the option of iomark's table `key` names (`-` and `_`
/// alike), as with a value it refuses.
pub fn shown_of(key: &str) -> Option<String> {
    let o = options::find(&key.trim().replace('-', "_"))?;
    Some(o.help_shown().render())
}

/// `--cmdhelp=KEY` as fio 3.33 answers it: the help of each option it shows whose name or
/// alias is `key`, as spelled. `None` when none is.
pub fn fio_key(key: &str) -> Option<String> {
    let text: String = fio333::shown()
        .iter()
        .filter(|o| o.name == key || o.aliases.contains(&key))
        .map(OptionHelp::render)
        .collect();
    (!text.is_empty()).then_some(text)
}

/// The help fio 3.33 shows of its option nearest to `key` (its "closest match").
pub fn closest(key: &str) -> Option<String> {
    fio333::cmdhelp_closest(key).map(OptionHelp::render)
}

/// `fio --cmdhelp=all` as fio 3.33 prints it (parse.c `print_option`): its options in
/// the order of its table as `NAME: help` lines (`%-24s: %s`); after each option with no
/// parent, its children (the options after it whose parent it is), indented two
/// columns, then the children of the last child printed, two more, and so on.
pub fn all_fio() -> String {
    let list = fio333::shown();
    let mut s = String::new();
    let line = |s: &mut String, o: &OptionHelp, level: usize| {
        let name = format!("{}{}", "  ".repeat(level), o.name);
        *s += &format!("{name:<24}: {}\n", o.help);
    };
    for (at, o) in list.iter().enumerate() {
        if o.parent.is_some() {
            continue;
        }
        line(&mut s, o, 0);
        let (mut cur, mut parent, mut level) = (at, o.name, 0);
        loop {
            level += 1;
            let mut printed = false;
            while let Some(next) = child_after(list, cur, parent) {
                line(&mut s, &list[next], level);
                cur = next;
                printed = true;
            }
            parent = list[cur].name;
            if !printed {
                break;
            }
        }
    }
    s
}

/// The first option after place `at` whose parent is named `parent` (fio's `find_child`:
/// a parent named by an alias is no parent's name, so that option is never listed).
fn child_after(list: &[OptionHelp], at: usize, parent: &str) -> Option<usize> {
    (at + 1..list.len()).find(|&i| list[i].parent == Some(parent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_prints_fio_s_layout() {
        assert_eq!(
            key("blocksize").unwrap(),
            "                  bs: Block size unit\n               alias: blocksize\n                type: integer value (opt=100)\n             default: 4096\n               range: min=1, max=-1\n\n"
        );
        let s = key("sync").unwrap();
        assert!(s.contains("        valid values: none      \n"), "{s}");
        assert!(s.contains("                    : dsync     \n"), "{s}");
        // fio's own options iomark does not run, and fio's type word of a zoned size
        assert!(fio_key("hugepage-size")
            .unwrap()
            .contains("default: 2097152\n"));
        assert!(key("hugepage-size").is_none());
        assert!(fio_key("size").unwrap().contains("type: (null)\n"));
        // fio shows its range; iomark run the one iomark enforces
        assert!(fio_key("iodepth")
            .unwrap()
            .contains("range: min=1, max=-1\n"));
        assert!(shown_of("iodepth")
            .unwrap()
            .contains("range: min=1, max=-1\n"));
        assert!(key("iodepth").unwrap().contains("range: min=1, max=-1\n"));
        assert!(fio_key("numjobs")
            .unwrap()
            .contains("range: min=0, max=-1\n"));
        assert!(key("numjobs").unwrap().contains("range: min=1, max=-1\n"));
        // iomark's own spelling and options under iomark's persona, not fio's
        assert!(fio_key("time-based").is_none() && key("time-based").is_some());
        assert!(fio_key("bw_avg_time").is_none());
        assert!(key("reap-spin").unwrap().contains("reap-spin: io_uring"));
        assert!(key("max_open_zone").is_none());
        assert!(closest("iodepht").unwrap().contains("iodepth: "));
    }

    #[test]
    fn the_list_indents_children_as_fio() {
        let all = all_fio();
        let lines: Vec<&str> = all.lines().collect();
        let at = |l: &str| {
            lines
                .iter()
                .position(|x| *x == l)
                .unwrap_or_else(|| panic!("{l}"))
        };
        // a child under its parent, a grandchild under the last child
        assert_eq!(
            at("filename                : File(s) to use for the workload") + 1,
            at("  lockfile              : Lock file when doing IO to it")
        );
        assert_eq!(
            at("  trim_percentage       : Number of verify blocks to trim (i.e., discard)") + 1,
            at("    trim_verify_zero    : Verify that trimmed (i.e., discarded) blocks are returned as zeroes")
        );
        // a parent named by its alias lists the child nowhere; deprecated ones are left out
        assert!(!all.contains("bs_is_seq_rand") && !all.contains("rwmixcycle"));
        assert!(all.contains("\nhugepage-size           : When using hugepages"));
        // no group headings
        assert!(!all.contains("General I/O:"));
    }
}
