//! fio's lists of names: `filename=`, `directory=` and `read_iolog=` each take several
//! names separated by ':' (fio 3.33's get_next_str). A ':' right after a '\' is part of
//! the name and that '\' is dropped (`a\:b` is the one name `a:b`); every other '\' is
//! kept as written (`a\b`, and `a\\:b` is `a\:b`). Colons at the start of a name are
//! skipped (`:x`, `x::y` and `x:` name `x` and `y` only); a list that ends in colons after
//! its last name gives one empty name at its end (`x::` is `x` and an empty name), which fio's
//! `filename=` stops at and its `directory=` refuses.

use super::FioJob;
use std::path::Path;

/// The names of a list, as fio reads them one by one (module docs), the empty last
/// name included.
pub fn split_names(list: &str) -> Vec<String> {
    let chars: Vec<char> = list.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        while chars.get(i) == Some(&':') {
            i += 1;
        }
        let start = i;
        let mut name = String::new();
        while let Some(&c) = chars.get(i) {
            i += 1;
            if c != ':' {
                name.push(c);
            } else if i - 1 > start && chars[i - 2] == '\\' {
                name.pop();
                name.push(':');
            } else {
                break;
            }
        }
        out.push(name);
    }
    out
}

/// The files of `filename=`: the value without blanks at its ends, its names up to the
/// first empty one (fio's str_filename_cb).
pub fn file_names(list: &str) -> Vec<String> {
    split_names(list.trim())
        .into_iter()
        .take_while(|n| !n.is_empty())
        .collect()
}

/// One name as a list of it alone: each ':' escaped (`a:b` is written `a\:b`).
pub fn escape(name: &str) -> String {
    name.replace(':', "\\:")
}

/// A list written back in fio's syntax: the names joined by ':', each escaped.
pub fn join_names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names.into_iter().map(escape).collect::<Vec<_>>().join(":")
}

impl FioJob {
    /// The files `filename=` names ([`file_names`]); none without it.
    pub fn filenames(&self) -> Vec<String> {
        self.filename.as_deref().map(file_names).unwrap_or_default()
    }

    /// The directory of clone `t`'s files (fio's add_file with set_name_idx): the
    /// (t mod n)-th of the n names of `directory=`; None without it. Names given by
    /// `filename=` are all under the first one (clone 0), as in fio.
    pub fn dir_of(&self, t: u32) -> Option<&Path> {
        let n = self.directory.len();
        (n > 0).then(|| self.directory[t as usize % n].as_path())
    }

    /// `directory=` as fio's syntax writes it ([`join_names`]); None without it.
    pub fn directory_text(&self) -> Option<String> {
        (!self.directory.is_empty()).then(|| {
            join_names(
                self.directory
                    .iter()
                    .map(|d| d.to_str().unwrap_or_default()),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(list: &str) -> Vec<String> {
        split_names(list)
    }

    #[test]
    fn colon_separates_and_escaped_colon_is_part_of_the_name() {
        assert_eq!(s("a:b"), ["a", "b"]);
        assert_eq!(s(r"a\:b.dat"), ["a:b.dat"]);
        assert_eq!(s(r"a\:"), ["a:"]);
        assert_eq!(s(r"\:a"), [":a"]);
        assert_eq!(s(r"a\::b"), ["a:", "b"]);
        assert_eq!(s(r"a\:\:b"), ["a::b"]);
    }

    #[test]
    fn other_backslashes_are_kept() {
        assert_eq!(s(r"a\b"), [r"a\b"]);
        assert_eq!(s(r"a\\:b"), [r"a\:b"]);
        assert_eq!(s(r"a\"), [r"a\"]);
    }

    #[test]
    fn empty_names_between_and_around_are_skipped_but_a_trailing_pair_leaves_one() {
        assert_eq!(s("x:"), ["x"]);
        assert_eq!(s(":x"), ["x"]);
        assert_eq!(s("x::y"), ["x", "y"]);
        assert_eq!(s("x::"), ["x", ""]);
        assert_eq!(s(":"), [""]);
        assert_eq!(s("::"), [""]);
        assert!(s("").is_empty());
    }

    #[test]
    fn filenames_are_trimmed_at_the_ends_and_stop_at_an_empty_name() {
        assert_eq!(file_names("p :q "), ["p ", "q"]);
        assert_eq!(file_names("x::"), ["x"]);
        assert!(file_names(":").is_empty());
    }

    #[test]
    fn a_joined_list_splits_back_into_its_names() {
        let names = ["d:x", "plain", "a\\b"];
        assert_eq!(s(&join_names(names)), names);
    }
}
