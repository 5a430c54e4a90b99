//! `read_iolog=FILE`: replaying an I/O log. The log is fio's iolog, version 2 or 3 (the
//! format `write_iolog` writes, run/fio/log.rs): a first line `fio version 2 iolog` or
//! `fio version 3 iolog`, then one entry a line —
//! v3 `TIME_US NAME ACTION [OFFSET LENGTH]`, v2 `NAME ACTION [OFFSET LENGTH]` — where
//! ACTION is `add`, `open`, `close` (file actions, no offset) or `read`, `write`, `trim`,
//! `sync`, `datasync` (and in v2 `wait`: OFFSET is the ms since the job started to wait
//! until). The job's files become the files the log adds; its I/Os are the log's, in
//! order, and the job ends when the log does.
//!
//! Semantics are fio 3.33's (its iolog.c `read_iolog`, `iolog_delay`, `delay_since_ttime`):
//! a v3 entry waits `TIME - previous TIME` µs (× 100 / `replay_time_scale`) after the
//! previous issue, none with `replay_no_stall`, and none after an entry at time 0 or
//! when the time goes back; `replay_redirect` sends every entry to one file;
//! `replay_scale` divides offsets and `replay_align` aligns them down; `replay_skip`
//! leaves out kinds; a v3 `wait` is ignored (fio says so on stderr, iomark in a note).
//! Differences: a line fio would skip with an error message (an unknown action, a
//! malformed line, an I/O on a file the log never added) is refused here with its line
//! number; `open` and `close` change nothing (iomark holds a job's files open for the
//! whole run); the log is not read from stdin or a socket.

use crate::job::fio::keys::ReplayKeys;
use std::path::Path;

/// What one entry of the log does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Read,
    Write,
    Trim,
    Fsync,
    Fdatasync,
    /// v2 `wait`: until this many ms after the job's start
    WaitMs(u64),
    /// `add`, `open`, `close`: only their delay takes effect
    File,
}

/// One entry: its action on file `file` (an index into [`Replay::files`]), the delay
/// before it (µs after the previous issue, already scaled; 0 = none) and, for I/O, its
/// byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub act: Act,
    pub file: usize,
    pub delay_us: u64,
    pub offset: u64,
    pub len: u64,
}

/// A parsed log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replay {
    /// the files the log adds, in order, as written (or the redirect)
    pub files: Vec<String>,
    pub entries: Vec<Entry>,
    /// the largest read, write and trim length (0 = none of that kind)
    pub max_len: [u64; 3],
    /// the end of the furthest I/O of each file
    pub file_end: Vec<u64>,
    /// remarks for the run's notes (ignored v3 waits)
    pub notes: Vec<String>,
}

impl Replay {
    pub fn reads(&self) -> bool {
        self.max_len[0] > 0 || self.has(Act::Read)
    }
    pub fn writes(&self) -> bool {
        self.max_len[1] > 0 || self.has(Act::Write)
    }
    pub fn trims(&self) -> bool {
        self.max_len[2] > 0 || self.has(Act::Trim)
    }
    fn has(&self, a: Act) -> bool {
        self.entries.iter().any(|e| e.act == a)
    }
}

/// The log of thread `t` (`read_iolog=A:B:…` gives thread t the (t mod n)-th name, as
/// fio's get_name_by_idx, by fio's list rules: job::fio::names), read and parsed.
pub fn load(keys: &ReplayKeys, t: u32) -> Result<Replay, String> {
    let list = keys.file.as_deref().unwrap_or("");
    let names = crate::job::fio::names::split_names(list);
    if names.iter().all(String::is_empty) {
        return Err("read_iolog: no file named".into());
    }
    let name = names[t as usize % names.len()].as_str();
    if name == "-" {
        return Err(
            "read_iolog=-: reading the I/O log from stdin is not supported by iomark".into(),
        );
    }
    let text = std::fs::read_to_string(Path::new(name))
        .map_err(|e| format!("read_iolog={name}: cannot read it: {e}"))?;
    parse(&text, keys).map_err(|e| format!("read_iolog={name}: {e}"))
}

/// The errno of the open of thread `t`'s log (its name as [`load`] picks it), when the
/// log cannot be opened (missing, unreadable): fio 3.33's thread then fails as it sets
/// up its log (run/fio/thread.rs). `None` when it opens, or for stdin's `-`.
pub fn unopened(keys: &ReplayKeys, t: u32) -> Option<i32> {
    let names = crate::job::fio::names::split_names(keys.file.as_deref()?);
    let name = names.get(t as usize % names.len().max(1))?;
    if name.is_empty() || name == "-" {
        return None;
    }
    match std::fs::File::open(Path::new(name)) {
        Ok(_) => None,
        Err(e) => Some(e.raw_os_error().unwrap_or(libc::EIO)),
    }
}

/// The log's version from its first line.
fn version(first: &str) -> Result<u8, String> {
    if first.starts_with("fio version 2 iolog") {
        Ok(2)
    } else if first.starts_with("fio version 3 iolog") {
        Ok(3)
    } else {
        Err("not an I/O log of version 2 or 3 (its first line must be 'fio version 3 iolog'; fio's version 1 is no longer supported)".into())
    }
}

/// Parse a whole log under `keys` (the `replay_*` options).
pub fn parse(text: &str, keys: &ReplayKeys) -> Result<Replay, String> {
    let mut lines = text.lines();
    let ver = version(lines.next().unwrap_or(""))?;
    let mut p = Parser {
        keys,
        ver,
        out: Replay::default(),
        last_time: 0,
        file: 0,
    };
    for (i, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        p.line(line).map_err(|e| format!("line {}: {e}", i + 2))?;
    }
    let r = p.out;
    if !r.entries.iter().any(|e| !matches!(e.act, Act::File)) {
        return Err("the log has no I/O to replay".into());
    }
    Ok(r)
}

struct Parser<'a> {
    keys: &'a ReplayKeys,
    ver: u8,
    out: Replay,
    /// the previous v3 entry's time, µs (fio's io_log_last_ttime)
    last_time: u64,
    /// the file of the previous file action (fio keeps it for an ignored re-add)
    file: usize,
}

impl Parser<'_> {
    /// fio's delay_since_ttime.
    fn delay(&self, time: u64) -> u64 {
        let last = self.last_time;
        if last == 0 || self.keys.no_stall || time < last {
            0
        } else if self.keys.time_scale == 100 {
            time - last
        } else {
            ((time - last) as f64 * (100.0 / self.keys.time_scale as f64)) as u64
        }
    }

    fn file_of(&self, name: &str) -> Result<usize, String> {
        self.out
            .files
            .iter()
            .position(|f| f == name)
            .ok_or_else(|| format!("file '{name}' is used before the log adds it"))
    }

    fn line(&mut self, line: &str) -> Result<(), String> {
        let mut tok = line.split_whitespace();
        let mut delay = 0;
        if self.ver == 3 {
            let t = tok.next().unwrap_or("");
            let time: u64 = t
                .parse()
                .map_err(|_| format!("'{t}' is not a time in µs"))?;
            delay = self.delay(time);
            self.last_time = time;
        }
        let name = tok.next().ok_or("no file name")?;
        let act = tok.next().ok_or("no action")?;
        let rest: Vec<&str> = tok.collect();
        let name = self.keys.redirect.as_deref().unwrap_or(name);
        match rest.as_slice() {
            [] => self.file_action(name, act, delay),
            [o, l, ..] => {
                let offset: u64 = o.parse().map_err(|_| format!("'{o}' is not an offset"))?;
                let len: u32 = l.parse().map_err(|_| format!("'{l}' is not a length"))?;
                self.io_action(name, act, delay, offset, u64::from(len))
            }
            [_] => Err(format!("'{act}' needs an offset and a length")),
        }
    }

    fn file_action(&mut self, name: &str, act: &str, delay: u64) -> Result<(), String> {
        let file = match act {
            "add" => match self.file_of(name) {
                // an add of a known file (a redirect, or the log's re-add) adds nothing
                Ok(f) => f,
                Err(_) => {
                    self.out.files.push(name.to_string());
                    self.out.file_end.push(0);
                    self.out.files.len() - 1
                }
            },
            "open" | "close" => self.file_of(name)?,
            _ => {
                return Err(format!(
                    "unknown file action '{act}' (accepted: add, open, close)"
                ))
            }
        };
        self.file = file;
        self.out.entries.push(Entry {
            act: Act::File,
            file,
            delay_us: delay,
            offset: 0,
            len: 0,
        });
        Ok(())
    }

    fn io_action(
        &mut self,
        name: &str,
        act: &str,
        delay: u64,
        offset: u64,
        len: u64,
    ) -> Result<(), String> {
        let skip = &self.keys.skip;
        let act = match act {
            "wait" if self.ver == 3 => {
                let n = "read_iolog: a 'wait' entry is ignored in a version 3 log (fio ignores it too)";
                if !self.out.notes.iter().any(|x| x == n) {
                    self.out.notes.push(n.to_string());
                }
                return Ok(());
            }
            "wait" => Act::WaitMs(offset),
            "read" if skip.read => return Ok(()),
            "read" => Act::Read,
            "write" if skip.write => return Ok(()),
            "write" => Act::Write,
            "sync" if skip.sync => return Ok(()),
            "sync" => Act::Fsync,
            "datasync" => Act::Fdatasync,
            "trim" if skip.trim => return Ok(()),
            "trim" => Act::Trim,
            _ => {
                return Err(format!(
                    "unknown action '{act}' (accepted: read, write, trim, sync, datasync, wait, add, open, close)"
                ))
            }
        };
        if let Act::WaitMs(_) = act {
            self.out.entries.push(Entry {
                act,
                file: self.file,
                delay_us: 0,
                offset: 0,
                len: 0,
            });
            return Ok(());
        }
        let file = self.file_of(name)?;
        let mut offset = offset / self.keys.scale.max(1);
        if self.keys.align > 0 {
            offset &= !(self.keys.align - 1);
        }
        let kind = match act {
            Act::Read => Some(0),
            Act::Write => Some(1),
            Act::Trim => Some(2),
            _ => None,
        };
        if let Some(k) = kind {
            self.out.max_len[k] = self.out.max_len[k].max(len);
            let end = offset.saturating_add(len);
            self.out.file_end[file] = self.out.file_end[file].max(end);
        }
        self.out.entries.push(Entry {
            act,
            file,
            delay_us: delay,
            offset,
            len,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> ReplayKeys {
        ReplayKeys {
            file: Some("x".into()),
            ..ReplayKeys::default()
        }
    }

    const V3: &str = "fio version 3 iolog\n\
        0 f add\n\
        5 f open\n\
        10 f write 0 4096\n\
        30 f write 4096 8192\n\
        25 f read 0 512\n\
        40 f sync 0 0\n\
        50 f close\n";

    #[test]
    fn v3_entries_delays_and_sizes() {
        let r = parse(V3, &keys()).unwrap();
        assert_eq!(r.files, vec!["f".to_string()]);
        let acts: Vec<Act> = r.entries.iter().map(|e| e.act).collect();
        use Act::*;
        assert_eq!(acts, vec![File, File, Write, Write, Read, Fsync, File]);
        // the first entry after time 0 has no delay (fio: last time 0), then the
        // differences; a time going back waits nothing
        let d: Vec<u64> = r.entries.iter().map(|e| e.delay_us).collect();
        assert_eq!(d, vec![0, 0, 5, 20, 0, 15, 10]);
        assert_eq!(r.entries[3].offset, 4096);
        assert_eq!(r.entries[3].len, 8192);
        assert_eq!(r.max_len, [512, 8192, 0]);
        assert_eq!(r.file_end, vec![12288]);
        assert!(r.reads() && r.writes() && !r.trims());
    }

    #[test]
    fn time_scale_no_stall_scale_align_skip() {
        let mut k = keys();
        k.time_scale = 50;
        let r = parse(V3, &k).unwrap();
        assert_eq!(r.entries[3].delay_us, 40);
        k.no_stall = true;
        let r = parse(V3, &k).unwrap();
        assert!(r.entries.iter().all(|e| e.delay_us == 0));
        let mut k = keys();
        k.scale = 2;
        k.align = 4096;
        k.skip.read = true;
        k.skip.sync = true;
        let r = parse(V3, &k).unwrap();
        // 4096 / 2 = 2048, aligned down to 4096 → 0
        assert_eq!(r.entries[3].offset, 0);
        assert!(!r.reads());
        assert!(!r.entries.iter().any(|e| e.act == Act::Fsync));
    }

    #[test]
    fn v2_and_redirect() {
        let log = "fio version 2 iolog\na add\nb add\na open\nb write 8192 4096\nb wait 100 0\na trim 0 4096\n";
        let r = parse(log, &keys()).unwrap();
        assert_eq!(r.files, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(r.entries[3].file, 1);
        assert_eq!(r.entries[4].act, Act::WaitMs(100));
        assert_eq!(r.entries[5].act, Act::Trim);
        assert_eq!(r.file_end, vec![4096, 12288]);
        let mut k = keys();
        k.redirect = Some("dev".into());
        let r = parse(log, &k).unwrap();
        assert_eq!(r.files, vec!["dev".to_string()]);
        assert!(r.entries.iter().all(|e| e.file == 0));
    }

    #[test]
    fn bad_logs_are_refused_with_the_line() {
        let k = keys();
        assert!(parse("fio version 1 iolog\n", &k)
            .unwrap_err()
            .contains("version 1"));
        assert!(parse("", &k).is_err());
        let e = parse("fio version 3 iolog\n0 f add\n1 g read 0 4096\n", &k).unwrap_err();
        assert!(e.starts_with("line 3:") && e.contains("'g'"), "{e}");
        let e = parse("fio version 3 iolog\n0 f add\n1 f frob 0 4096\n", &k).unwrap_err();
        assert!(e.contains("unknown action 'frob'"), "{e}");
        let e = parse("fio version 3 iolog\n0 f add\nx f read 0 1\n", &k).unwrap_err();
        assert!(e.contains("not a time"), "{e}");
        let e = parse("fio version 3 iolog\n0 f add\n1 f read 0\n", &k).unwrap_err();
        assert!(e.contains("needs an offset"), "{e}");
        let e = parse("fio version 3 iolog\n0 f add\n1 f open\n", &k).unwrap_err();
        assert!(e.contains("no I/O"), "{e}");
        // a v3 wait is ignored, with a note
        let r = parse(
            "fio version 3 iolog\n0 f add\n1 f wait 5 0\n2 f read 0 512\n",
            &k,
        )
        .unwrap();
        assert_eq!(r.entries.len(), 2);
        assert_eq!(r.notes.len(), 1);
    }
}
