//! The house rules of docs/ARCHITECTURE.md, checked on the source tree: which room
//! (top-level module of src/) may name which other room in a `crate::` path, how long a
//! function may be, and that no two files name each other in a cycle. Edges are read from
//! the code with comments and string literals removed, so a rule can only be broken by
//! code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Rooms each room may use (besides itself). `main.rs` (the binary) is room `main`.
/// docs/ARCHITECTURE.md "Dependency rule" is the same table in words.
const RULES: &[(&str, &[&str])] = &[
    ("main", &["cli", "util"]),
    (
        "cli",
        &[
            "job", "files", "run", "report", "result", "probe", "ranks", "util",
        ],
    ),
    (
        "run",
        &[
            "job", "files", "engine", "stats", "probe", "result", "ranks", "util",
        ],
    ),
    ("ranks", &["result", "util"]),
    ("files", &["job", "probe", "util"]),
    ("result", &["stats", "job", "probe", "util"]),
    ("report", &["result", "util"]),
    ("job", &["util"]),
    ("engine", &["util"]),
    ("stats", &["util"]),
    ("probe", &["util"]),
    ("util", &[]),
];

/// Edges that break the rule today, each with the step that removes it. The list may
/// only shrink: an edge that is listed but no longer in the code fails the test too, so
/// a fixed edge is struck off here.
const KNOWN: &[(&str, &str, &str)] = &[];

/// Longest function allowed, in lines (the house rule).
const MAX_FN_LINES: usize = 80;

/// Functions allowed above [`MAX_FN_LINES`] today: (file, function). May only shrink.
const LONG_KNOWN: &[(&str, &str)] = &[];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The room of a source file: its first path component under src/ (`main`, `lib` for
/// the two crate roots).
fn room_of(rel: &Path) -> String {
    let first = rel.components().next().expect("non-empty path");
    let s = first.as_os_str().to_string_lossy();
    s.strip_suffix(".rs").unwrap_or(&s).to_string()
}

/// Source text with comments, string and char literals blanked (newlines kept, so line
/// numbers stay), leaving only code.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied().unwrap_or(0);
        if c == b'/' && next == b'/' {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && next == b'*' {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == b'r' && (next == b'"' || next == b'#') && !ident_before(b, i) {
            // raw string r"…" / r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let mut k = j + 1;
            while k < b.len() && !b[k..].starts_with(&close) {
                k += 1;
            }
            let end = (k + close.len()).min(b.len());
            for &x in &b[i..end] {
                blank(&mut out, x);
            }
            i = end;
        } else if c == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            out.push(b' ');
            i += 1;
        } else if c == b'\'' && is_char_literal(b, i) {
            let end = char_literal_end(b, i);
            for &x in &b[i..end] {
                blank(&mut out, x);
            }
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// `'x'`, `'\n'`, `'\u{..}'` rather than a lifetime `'a`.
fn is_char_literal(b: &[u8], i: usize) -> bool {
    match b.get(i + 1) {
        Some(b'\\') => true,
        Some(_) => {
            // one UTF-8 character then a closing quote
            let mut j = i + 2;
            while j < b.len() && (b[j] & 0xC0) == 0x80 {
                j += 1;
            }
            b.get(j) == Some(&b'\'')
        }
        None => false,
    }
}

fn char_literal_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    if b.get(j) == Some(&b'\\') {
        j += 2;
    } else {
        j += 1;
    }
    while j < b.len() && b[j] != b'\'' {
        j += 1;
    }
    (j + 1).min(b.len())
}

/// Rooms a file names through `crate::ROOM` (and `iomark::ROOM` in the binary).
fn rooms_named(code: &str, root: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let pat = format!("{root}::");
    let mut rest = code;
    while let Some(at) = rest.find(&pat) {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + pat.len()..];
        rest = after;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

fn top_rooms(src: &Path) -> BTreeSet<String> {
    let mut rooms = BTreeSet::new();
    for e in std::fs::read_dir(src).expect("src/ is readable") {
        let p = e.expect("directory entry").path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        rooms.insert(name.strip_suffix(".rs").unwrap_or(&name).to_string());
    }
    rooms.remove("lib");
    rooms
}

/// Every `room → room` edge in src/, with one file that makes it.
fn edges() -> BTreeMap<(String, String), String> {
    let src = src_dir();
    let rooms = top_rooms(&src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().to_path_buf();
        let room = room_of(&rel);
        if room == "lib" {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        let root = if room == "main" { "iomark" } else { "crate" };
        for to in rooms_named(&code, root) {
            if to != room && rooms.contains(&to) {
                edges
                    .entry((room.clone(), to))
                    .or_insert_with(|| format!("src/{}", rel.display()));
            }
        }
    }
    edges
}

fn allowed(from: &str, to: &str) -> bool {
    RULES
        .iter()
        .find(|(r, _)| *r == from)
        .is_some_and(|(_, ok)| ok.contains(&to))
}

#[test]
fn every_room_has_a_rule() {
    let rooms = top_rooms(&src_dir());
    let missing: Vec<_> = rooms
        .iter()
        .filter(|r| !RULES.iter().any(|(n, _)| n == r))
        .filter(|r| !KNOWN.iter().any(|(_, to, _)| to == r))
        .collect();
    assert!(
        missing.is_empty(),
        "rooms without a rule in RULES: {missing:?}"
    );
}

#[test]
fn dependency_rule_holds() {
    let edges = edges();
    let mut broken = Vec::new();
    for ((from, to), file) in &edges {
        let known = KNOWN.iter().any(|(f, t, _)| f == from && t == to);
        if !allowed(from, to) && !known {
            broken.push(format!("{from} → {to} (e.g. {file})"));
        }
    }
    assert!(
        broken.is_empty(),
        "edges that break the dependency rule of docs/ARCHITECTURE.md:\n  {}",
        broken.join("\n  ")
    );
    let stale: Vec<_> = KNOWN
        .iter()
        .filter(|(f, t, _)| !edges.contains_key(&(f.to_string(), t.to_string())))
        .map(|(f, t, why)| format!("{f} → {t} ({why})"))
        .collect();
    assert!(
        stale.is_empty(),
        "edges listed in KNOWN are gone from the code: strike them off:\n  {}",
        stale.join("\n  ")
    );
}

/// `(file, function, lines)` of every function longer than `max` lines.
fn long_functions(max: usize) -> Vec<(String, String, usize)> {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut out = Vec::new();
    for f in files {
        let rel = format!("src/{}", f.strip_prefix(&src).unwrap().display());
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        let lines: Vec<&str> = code.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let Some(name) = fn_name(l) else { continue };
            if let Some(n) = body_lines(&lines, i) {
                if n > max {
                    out.push((rel.clone(), name, n));
                }
            }
        }
    }
    out
}

/// The name of the function a line declares, if it does.
fn fn_name(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "fn")?;
    let qualifiers = [
        "pub", "const", "unsafe", "async", "extern", "\"C\"", "default",
    ];
    let head_ok = words[..at]
        .iter()
        .all(|w| qualifiers.contains(w) || w.starts_with("pub("));
    if !head_ok {
        return None;
    }
    let name: String = words
        .get(at + 1)?
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Lines from the declaration to the closing brace of the body; `None` for a
/// declaration without a body.
fn body_lines(lines: &[&str], start: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut opened = false;
    for (j, l) in lines.iter().enumerate().skip(start) {
        for c in l.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                ';' if !opened && depth == 0 => return None,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            return Some(j - start + 1);
        }
    }
    None
}

#[test]
fn no_function_is_too_long() {
    let long = long_functions(MAX_FN_LINES);
    let new: Vec<_> = long
        .iter()
        .filter(|(f, n, _)| !LONG_KNOWN.contains(&(f.as_str(), n.as_str())))
        .map(|(f, n, l)| format!("{f}: {n} ({l} lines)"))
        .collect();
    assert!(
        new.is_empty(),
        "functions over {MAX_FN_LINES} lines (split them):\n  {}",
        new.join("\n  ")
    );
    let stale: Vec<_> = LONG_KNOWN
        .iter()
        .filter(|(f, n)| !long.iter().any(|(lf, ln, _)| lf == f && ln == n))
        .map(|(f, n)| format!("{f}: {n}"))
        .collect();
    assert!(
        stale.is_empty(),
        "functions listed in LONG_KNOWN are now short enough: strike them off:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn the_checker_sees_what_it_checks() {
    // the lexer keeps code and drops comments and strings
    let code = code_only("use crate::a; // crate::b\nlet s = \"crate::c\"; /* crate::d */ let r = r#\"crate::e\"#; let c = '\"'; fn f<'a>() { crate::g::h(); }");
    assert_eq!(
        rooms_named(&code, "crate"),
        ["a", "g"].iter().map(|s| s.to_string()).collect()
    );
    // the function measure counts declaration to closing brace
    let src = "fn a() {\n  x;\n}\nfn b();\npub(crate) fn c() { }\n";
    let lines: Vec<&str> = src.lines().collect();
    assert_eq!(fn_name(lines[0]).as_deref(), Some("a"));
    assert_eq!(body_lines(&lines, 0), Some(3));
    assert_eq!(body_lines(&lines, 3), None);
    assert_eq!(fn_name(lines[4]).as_deref(), Some("c"));
    assert_eq!(body_lines(&lines, 4), Some(1));
    assert_eq!(fn_name("let fn_x = 1;"), None);
    // and the rule table answers as written
    assert!(allowed("run", "engine"));
    assert!(!allowed("report", "run"));
    assert!(!allowed("engine", "stats"));
}

// ---- import cycles between files ---------------------------------------------------------

/// Cycles of files that name each other (through `crate::`, `super::` or `self::` paths),
/// each as its sorted list of files joined by ` ↔ `, with the step that breaks it. A
/// module and its own submodules may name each other (a parent re-exports its children);
/// any other cycle is a defect. The list may only shrink: a cycle that is listed but gone
/// (or changed) fails the test too.
const CYCLES_KNOWN: &[(&str, &str)] = &[];

/// The module path of a source file under src/ (`probe/diagnosis.rs` → `[probe,
/// diagnosis]`, `probe/mod.rs` → `[probe]`, `lib.rs` → `[]`); `None` for the binary root.
fn module_of(rel: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if parts.is_empty() && stem == "main" {
        return None;
    }
    if stem != "mod" && !(parts.is_empty() && stem == "lib") {
        parts.push(stem.to_string());
    }
    Some(parts)
}

/// Every path a piece of code names from `crate::`, `super::` or `self::`, made absolute
/// against `here` (the file's module path), with `{a, b::c}` groups expanded.
fn paths_named(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start).map(|i| i + from) {
            from = at + start.len();
            if ident_before(b, at) || (at > 0 && b[at - 1] == b':') {
                continue;
            }
            let mut base: Vec<String> = match start {
                "crate::" => vec![],
                _ => here.to_vec(),
            };
            let mut i = at;
            // leading super:: segments climb one module each
            while code[i..].starts_with("super::") {
                base.pop();
                i += "super::".len();
            }
            if code[i..].starts_with("self::") {
                i += "self::".len();
            } else if start == "crate::" {
                i = at + start.len();
            }
            path_tree(code, i, base, &mut out);
        }
    }
    out
}

/// Reads `a::b::{c, d::e}` at `i`, appending each full path to `out`.
fn path_tree(code: &str, mut i: usize, mut path: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let b = code.as_bytes();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&b'{') {
            i += 1;
            loop {
                i = path_tree(code, i, path.clone(), out);
                while i < b.len() && b[i].is_ascii_whitespace() {
                    i += 1;
                }
                match b.get(i) {
                    Some(b',') => i += 1,
                    Some(b'}') => return i + 1,
                    _ => return i,
                }
            }
        }
        let s = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        if i > s {
            path.push(code[s..i].to_string());
        }
        if code[i..].starts_with("::") {
            i += 2;
            continue;
        }
        out.push(path);
        return i;
    }
}

/// The file graph: for each file, the files whose modules its paths reach (the longest
/// module prefix of each path), leaving out its own ancestors and descendants.
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut code_of = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().to_path_buf();
        if let Some(m) = module_of(&rel) {
            let name = format!("src/{}", rel.display());
            modules.insert(m.clone(), name.clone());
            code_of.push((name, m, code_only(&std::fs::read_to_string(f).unwrap())));
        }
    }
    let mut graph = BTreeMap::new();
    for (name, here, code) in code_of {
        let mut to = BTreeSet::new();
        for p in paths_named(&code, &here) {
            let hit = (1..=p.len())
                .rev()
                .find_map(|n| modules.get(&p[..n]).map(|f| (n, f)));
            let Some((n, file)) = hit else { continue };
            let target = &p[..n];
            let related = target.starts_with(&here) || here.starts_with(target);
            if !related {
                to.insert(file.clone());
            }
        }
        graph.insert(name, to);
    }
    graph
}

/// Strongly connected components of more than one file (Tarjan's algorithm), each
/// sorted, as `a ↔ b ↔ c`.
fn file_cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: BTreeSet<String>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.insert(comp.join(" ↔ "));
            }
        }
    }
    let mut t = T {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: BTreeSet::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_import_cycle_between_files() {
    let cycles = file_cycles(&file_graph());
    let known: Vec<&str> = CYCLES_KNOWN.iter().map(|(k, _)| *k).collect();
    only_shrinks(
        &cycles,
        &known,
        "files that name each other in a cycle (move what both need to one of them, or to a third file)",
        "cycles listed in CYCLES_KNOWN are gone or changed: strike them off",
    );
}

/// The only-shrink rule of a list of known defects: every item `found` is listed in
/// `known` (else `new` fails the test), and every listed item is still found (else
/// `stale`).
fn only_shrinks(found: &BTreeSet<String>, known: &[&str], new: &str, stale: &str) {
    let added: Vec<&str> = found
        .iter()
        .map(String::as_str)
        .filter(|f| !known.contains(f))
        .collect();
    assert!(added.is_empty(), "{new}:\n  {}", added.join("\n  "));
    let gone: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| !found.contains(*k))
        .collect();
    assert!(gone.is_empty(), "{stale}:\n  {}", gone.join("\n  "));
}

#[test]
fn the_cycle_checker_sees_cycles() {
    let here = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    // paths resolve through super::, self:: and groups
    let p = paths_named(
        "use super::{a, b::{c, d}}; crate::x::y(); self::z::w;",
        &here("m/n"),
    );
    assert_eq!(
        p,
        vec![
            here("x/y"),
            here("m/a"),
            here("m/b/c"),
            here("m/b/d"),
            here("m/n/z/w")
        ]
    );
    assert_eq!(module_of(Path::new("probe/mod.rs")), Some(here("probe")));
    assert_eq!(module_of(Path::new("main.rs")), None);
    // a cycle of two and a chain without one
    let g: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["a", "c"]), ("c", vec![])]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
            .collect();
    assert_eq!(file_cycles(&g), ["a ↔ b".to_string()].into_iter().collect());
}

/// The worker's rule sets (src/run/worker/) read the one job model (job/thread.rs and the
/// shared vocabulary of job/model/), not a dialect's: files there that still name
/// `job::fio` or `job::sysbench`, each with the step that removes it (none today). The
/// list may only shrink: a listed file that names neither fails the test until it is
/// struck off.
const DIALECT_KNOWN: &[(&str, &str)] = &[];

/// Files under src/run/worker/ whose code names a dialect's job model (`crate::job::fio`,
/// `crate::job::sysbench`, also inside `use` groups).
fn worker_dialect_files() -> BTreeSet<String> {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src.join("run/worker"), &mut files);
    let mut out = BTreeSet::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let here = module_of(rel).expect("a module under src/");
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        let dialect = |p: &Vec<String>| {
            p.len() >= 2 && p[0] == "job" && (p[1] == "fio" || p[1] == "sysbench")
        };
        if paths_named(&code, &here).iter().any(dialect) {
            out.insert(format!("src/{}", rel.display()));
        }
    }
    out
}

#[test]
fn the_worker_rules_name_no_dialect() {
    let known: Vec<&str> = DIALECT_KNOWN.iter().map(|(k, _)| *k).collect();
    only_shrinks(
        &worker_dialect_files(),
        &known,
        "worker files that name job::fio or job::sysbench (read job::thread::ThreadJob)",
        "files listed in DIALECT_KNOWN name no dialect now: strike them off",
    );
    // the check sees a dialect in a `use` group
    let code = code_only("use crate::job::{thread::ThreadJob, sysbench::DataPattern};");
    assert!(paths_named(&code, &[])
        .iter()
        .any(|p| p[..2] == ["job", "sysbench"]));
}

/// The worker's rules read a job thread's requests from the one job model's `Workload`
/// (`plan.work`, job/model/workload.rs), not the fio dialect's fields through the plan
/// (`plan.job`): files under src/run/worker/ that still read `plan.job`, each with the
/// step that removes it. The list may only shrink: a listed file that reads no
/// `plan.job` fails the test until it is struck off.
const PLAN_JOB_KNOWN: &[(&str, &str)] = &[];

/// Whether code reads the dialect's job through a plan (`plan.job` as a field: not
/// `plan.jobs` or `plan.job_x`).
fn reads_plan_job(code: &str) -> bool {
    code.match_indices("plan.job").any(|(i, m)| {
        let next = code[i + m.len()..].chars().next();
        !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Files under src/run/worker/ whose code reads `plan.job`.
fn worker_plan_job_files() -> BTreeSet<String> {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src.join("run/worker"), &mut files);
    let mut out = BTreeSet::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        if reads_plan_job(&code_only(&std::fs::read_to_string(&f).unwrap())) {
            out.insert(format!("src/{}", rel.display()));
        }
    }
    out
}

#[test]
fn the_worker_reads_the_workload_not_the_dialects_fields() {
    let known: Vec<&str> = PLAN_JOB_KNOWN.iter().map(|(k, _)| *k).collect();
    only_shrinks(
        &worker_plan_job_files(),
        &known,
        "worker files that read plan.job (read plan.work, the job model's Workload)",
        "files listed in PLAN_JOB_KNOWN read no plan.job now: strike them off",
    );
    assert!(reads_plan_job("let x = &self.plan.job.more;"));
    assert!(reads_plan_job("f(&plan.job)"));
    assert!(!reads_plan_job("plan.jobs.len() + plan.job_count"));
}

/// Where a line cites material outside this repository: a file of the peers' spec
/// folder, a section sign of a spec, or an issue number (issues live in the tracker, not in
/// the tree). `None` when the line cites only this repository. The needles are built
/// from pieces so this file does not cite itself.
fn outside_citation(line: &str) -> Option<&'static str> {
    let line = &line.to_lowercase();
    let issue = ["iss", "ue "].concat();
    if line.contains(&["spec", "/"].concat()) {
        return Some("a spec folder file");
    }
    if line.contains('\u{a7}') {
        return Some("a section sign");
    }
    let digit_after = |i: usize| line[i + issue.len()..].starts_with(|c: char| c.is_ascii_digit());
    match line.match_indices(&issue).any(|(i, _)| digit_after(i)) {
        true => Some("an issue number"),
        false => None,
    }
}

/// Comments and strings cite files of this repository only: what a test needs from
/// outside material is restated here, so a reader of the tree never needs the tracker.
#[test]
fn comments_cite_only_this_repository() {
    let root = src_dir().parent().unwrap().to_path_buf();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("tests"), &mut files);
    if let Ok(rd) = std::fs::read_dir(root.join("tests")) {
        let scripts = rd.flatten().map(|e| e.path());
        files.extend(scripts.filter(|p| p.extension().is_some_and(|e| e == "sh")));
    }
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if let Some(what) = outside_citation(line) {
                found.push(format!("{}:{}: {what}", f.display(), n + 1));
            }
        }
    }
    assert!(
        files.len() > 100,
        "the check sees the tree ({} files)",
        files.len()
    );
    assert!(
        found.is_empty(),
        "cites outside the repository:\n  {}",
        found.join("\n  ")
    );
}

/// The citation check finds each kind it looks for and passes plain text.
#[test]
fn the_citation_check_sees_citations() {
    let issue = ["iss", "ue "].concat();
    assert_eq!(
        outside_citation(&format!("// see {issue}24")),
        Some("an issue number")
    );
    assert_eq!(
        outside_citation(&["// ", "spec", "/peers.md"].concat()),
        Some("a spec folder file")
    );
    assert_eq!(outside_citation("// \u{a7}3"), Some("a section sign"));
    assert_eq!(
        outside_citation(&format!("// an {issue}with the disk")),
        None
    );
    assert_eq!(outside_citation("// tests/it/fileio/errors.rs"), None);
}
