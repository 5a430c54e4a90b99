//! fio's verify state (`verify_state_save`, `verify_state_load`): what a writing job
//! with `verify=` had completed when it ended (normally, on SIGINT/SIGTERM or on an I/O
//! error), so that a later read job verifies only those blocks.
//!
//! Saving ([`Recorder`]): fio 3.33 keeps, per file, a ring of the offsets of the last
//! `iodepth` completed writes, and the number of writes issued (`numberio`); at the end
//! of the job it writes them to `[AUX/]local-NAME-INDEX-verify.state` (NAME: the job
//! name with `/` as `.`, INDEX: the thread's global number, from 0). Loading
//! ([`State::should_stop`]): a read job verifies its reads until the count of completed
//! reads comes within `iodepth` of `numberio`; from there on a read goes on only if its
//! (file, offset) is one of the completions saved, and the first one that is not ends
//! the job normally. A sequential job killed after N writes thus verifies exactly its
//! first N blocks.
//!
//! The file is fio 3.33's layout (version 3, little endian), so fio's own reader
//! (`t/verify-state`) reads iomark's files: a 24-byte header (version, size of the
//! rest, its crc32c as fio computes it: the Castagnoli CRC without the final inversion)
//! then `no_comps` u64, `depth` u32, `nofiles` u32, `numberio` u64, `index` u64, the
//! random state (56 bytes, zero: iomark's generator is not fio's), the name (64 bytes)
//! and `depth × nofiles` slots of (file number u64, offset u64). Written through
//! `files::output` (never through a symbolic link; old or complete new content), read
//! through `util::input`.

use std::path::{Path, PathBuf};

/// fio 3.33's VSTATE_HDR_VERSION.
const VERSION: u64 = 3;
/// Header: version, size, crc (u64 each).
const HDR: usize = 24;
/// The fixed part of fio's `thread_io_list`, before the completion slots.
const LIST: usize = 152;
/// Offset of the name in the list, and its length.
const NAME_AT: usize = 88;
const NAME_LEN: usize = 64;

/// fio's `fio_crc32c`: the Castagnoli CRC with no final inversion.
fn fio_crc32c(b: &[u8]) -> u32 {
    !crc32c::crc32c(b)
}

/// Where thread `index` of job `name` keeps its state: fio's `verify_state_gen_name`
/// with the prefix `local` (in `aux`, fio's `--aux-path`, when given).
pub fn path(aux: Option<&Path>, name: &str, index: u32) -> PathBuf {
    let file = format!("local-{}-{index}-verify.state", name.replace('/', "."));
    match aux {
        Some(d) => d.join(file),
        None => PathBuf::from(file),
    }
}

/// The save side: the last `depth` completed writes of each file.
#[derive(Clone, Debug)]
pub struct Recorder {
    depth: usize,
    /// per file: ring of completed write offsets and the next slot
    rings: Vec<(Vec<u64>, usize)>,
    /// writes completed (fio's io_blocks[WRITE])
    completed: u64,
}

impl Recorder {
    /// For a job of `files` files at `iodepth` (the option, as fio records it).
    pub fn new(files: usize, iodepth: u32) -> Recorder {
        let depth = iodepth.max(1) as usize;
        Recorder {
            depth,
            rings: vec![(vec![0; depth], 0); files],
            completed: 0,
        }
    }

    /// A write at `offset` of file `file` completed.
    pub fn completed(&mut self, file: usize, offset: u64) {
        self.completed += 1;
        if let Some((ring, next)) = self.rings.get_mut(file) {
            ring[*next] = offset;
            *next = (*next + 1) % ring.len();
        }
    }

    /// The state file's bytes: `numberio` writes issued by thread `index` of `name`.
    pub fn encode(&self, name: &str, index: u32, numberio: u64) -> Vec<u8> {
        let slots = self.depth * self.rings.len();
        let mut l = vec![0u8; LIST + 16 * slots];
        // fio: per file, the last min(writes completed, depth) completions, newest first
        let per = (self.completed.min(self.depth as u64)) as usize;
        let mut n = 0;
        for (f, (ring, next)) in self.rings.iter().enumerate() {
            for i in 0..per {
                let j = (next + self.depth - 1 - i) % self.depth;
                let at = LIST + 16 * n;
                l[at..at + 8].copy_from_slice(&(f as u64).to_le_bytes());
                l[at + 8..at + 16].copy_from_slice(&ring[j].to_le_bytes());
                n += 1;
            }
        }
        l[0..8].copy_from_slice(&(n as u64).to_le_bytes());
        l[8..12].copy_from_slice(&(self.depth as u32).to_le_bytes());
        l[12..16].copy_from_slice(&(self.rings.len() as u32).to_le_bytes());
        l[16..24].copy_from_slice(&numberio.to_le_bytes());
        l[24..32].copy_from_slice(&u64::from(index).to_le_bytes());
        let nb = name.as_bytes();
        let k = nb.len().min(NAME_LEN - 1);
        l[NAME_AT..NAME_AT + k].copy_from_slice(&nb[..k]);
        let mut out = Vec::with_capacity(HDR + l.len());
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(l.len() as u64).to_le_bytes());
        out.extend_from_slice(&u64::from(fio_crc32c(&l)).to_le_bytes());
        out.extend_from_slice(&l);
        out
    }
}

/// A loaded state: what the write job had done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// the job that saved it
    pub name: String,
    /// its global thread number
    pub index: u64,
    /// its iodepth
    pub depth: u64,
    /// writes it issued
    pub numberio: u64,
    /// its last completed writes: (file number, offset)
    pub comps: Vec<(u64, u64)>,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

impl State {
    /// Parse a state file (fio 3.33's layout); the error says what is wrong.
    pub fn decode(b: &[u8]) -> Result<State, String> {
        if b.len() < HDR {
            return Err("too short for a verify state header".into());
        }
        let version = u64_at(b, 0);
        if version != VERSION {
            return Err(format!(
                "unsupported verify state version {version} (fio 3.33 writes version {VERSION})"
            ));
        }
        let size = u64_at(b, 8);
        let l = &b[HDR..];
        if size != l.len() as u64 || l.len() < LIST {
            return Err(format!(
                "truncated or padded: the header says {size} bytes follow, the file has {}",
                l.len()
            ));
        }
        if u64_at(b, 16) != u64::from(fio_crc32c(l)) {
            return Err("the verify state is corrupt (crc32c mismatch)".into());
        }
        let (no_comps, depth, nofiles) = (u64_at(l, 0), u32_at(l, 8), u32_at(l, 12));
        let slots = u64::from(depth) * u64::from(nofiles);
        if (LIST as u64).checked_add(slots.saturating_mul(16)) != Some(size) || no_comps > slots {
            return Err(format!(
                "inconsistent: {no_comps} completions for iodepth={depth} and {nofiles} file(s) in {size} bytes"
            ));
        }
        let name = &l[NAME_AT..NAME_AT + NAME_LEN];
        let end = name.iter().position(|&c| c == 0).unwrap_or(NAME_LEN);
        let comps = (0..no_comps as usize)
            .map(|i| (u64_at(l, LIST + 16 * i), u64_at(l, LIST + 16 * i + 8)))
            .collect();
        Ok(State {
            name: String::from_utf8_lossy(&name[..end]).into_owned(),
            index: u64_at(l, 24),
            depth: u64::from(depth),
            numberio: u64_at(l, 16),
            comps,
        })
    }

    /// Whether a verifying read of `file` at `offset`, issued after `reads_done` reads
    /// completed, ends the job instead (fio 3.33's `verify_state_should_stop`, its
    /// unsigned arithmetic included).
    pub fn should_stop(&self, reads_done: u64, file: usize, offset: u64) -> bool {
        let (n, d) = (self.numberio, self.depth);
        if (reads_done < d || n.wrapping_sub(reads_done) > d) && n > d {
            return false;
        }
        !self
            .comps
            .iter()
            .any(|&(f, o)| f == file as u64 && o == offset)
    }
}

/// Read the state of thread `index` of job `name` from `path`; the error names the file
/// and what is wrong, for the job's error line.
pub fn load(p: &Path, name: &str, index: u32) -> Result<State, String> {
    let bytes = crate::util::input::read_bytes(p, crate::util::input::MAX_INPUT_BYTES)
        .map_err(|e| {
            format!(
                "verify_state_load: cannot read {}: {} (a job that writes with verify= and verify_state_save=1 leaves it)",
                p.display(),
                crate::util::errno::describe(&e)
            )
        })?;
    let s =
        State::decode(&bytes).map_err(|e| format!("verify_state_load: {}: {e}", p.display()))?;
    if s.name != name || s.index != u64::from(index) {
        return Err(format!(
            "verify_state_load: {} was saved by job '{}' (thread {}), not by '{name}' (thread {index})",
            p.display(),
            s.name,
            s.index
        ));
    }
    Ok(s)
}

/// Write `bytes` to `p` (old or complete new content, never through a symbolic link);
/// the error is one line naming the file.
pub fn save(p: &Path, bytes: &[u8]) -> Result<(), String> {
    // the name is chosen for the user (fio's, in the current directory): a file there
    // that is not a verify state is someone's, and stays as it is
    // (a link or a non-file there is refused by files::output, naming what it is)
    if std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file()) {
        let ours = crate::util::input::read_bytes(p, crate::util::input::MAX_INPUT_BYTES)
            .is_ok_and(|b| State::decode(&b).is_ok());
        if !ours {
            return Err(format!(
                "{} exists and is not a verify state: left as it is, no state saved",
                p.display()
            ));
        }
    }
    crate::files::output::Output::create(p)
        .and_then(|o| o.commit(bytes))
        .map_err(|e| format!("cannot write the verify state {}: {e}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_state_is_never_replaced() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("local-job-0-verify.state");
        std::fs::write(&p, b"someone's notes\n").unwrap();
        let e = save(&p, b"new").unwrap_err();
        assert!(e.contains("is not a verify state: left as it is"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"someone's notes\n");
        // an earlier state is replaced
        std::fs::remove_file(&p).unwrap();
        let mut r = Recorder::new(1, 1);
        r.completed(0, 0);
        save(&p, &r.encode("job", 0, 1)).unwrap();
        r.completed(0, 4096);
        save(&p, &r.encode("job", 0, 2)).unwrap();
        assert_eq!(
            State::decode(&std::fs::read(&p).unwrap()).unwrap().numberio,
            2
        );
        std::fs::remove_file(&p).unwrap();
        std::fs::create_dir(&p).unwrap();
        assert!(save(&p, b"new").is_err());
        assert!(p.is_dir());
    }

    #[test]
    fn name_is_fios() {
        assert_eq!(
            path(None, "job", 0),
            PathBuf::from("local-job-0-verify.state")
        );
        assert_eq!(
            path(Some(Path::new("/tmp/a")), "a/b", 3),
            PathBuf::from("/tmp/a/local-a.b-3-verify.state")
        );
    }

    /// The bytes fio 3.33 wrote for t0036-pre.fio (one 4k sequential writer, 128
    /// writes, last at 508 KiB), as measured on this machine: iomark writes the same.
    #[test]
    fn encoding_is_fio_3_33s() {
        let mut r = Recorder::new(1, 1);
        for i in 0..128u64 {
            r.completed(0, i * 4096);
        }
        let b = r.encode("job", 0, 128);
        assert_eq!(b.len(), 192);
        assert_eq!(
            &b[0..24],
            &[
                3, 0, 0, 0, 0, 0, 0, 0, 0xa8, 0, 0, 0, 0, 0, 0, 0, 0x52, 0xca, 0xd9, 0x93, 0, 0, 0,
                0
            ][..]
        );
        let s = State::decode(&b).unwrap();
        assert_eq!(
            (s.name.as_str(), s.index, s.depth, s.numberio),
            ("job", 0, 1, 128)
        );
        assert_eq!(s.comps, vec![(0, 127 * 4096)]);
    }

    #[test]
    fn rings_hold_the_last_depth_writes_of_each_file_newest_first() {
        let mut r = Recorder::new(2, 2);
        for (f, o) in [(0, 0), (1, 0), (0, 4096), (1, 4096), (0, 8192)] {
            r.completed(f, o);
        }
        let s = State::decode(&r.encode("w", 1, 6)).unwrap();
        assert_eq!(s.comps, vec![(0, 8192), (0, 4096), (1, 4096), (1, 0)]);
        // fewer writes than the depth: as many slots per file as writes (fio)
        let mut r = Recorder::new(2, 4);
        r.completed(0, 4096);
        let s = State::decode(&r.encode("w", 0, 1)).unwrap();
        assert_eq!(s.comps, vec![(0, 4096), (1, 0)]);
    }

    #[test]
    fn a_sequential_job_stops_after_the_blocks_written() {
        // 23 writes issued and completed at depth 1: reads 1..=23 go, the 24th stops
        let mut r = Recorder::new(1, 1);
        (0..23u64).for_each(|i| r.completed(0, i * 4096));
        let s = State::decode(&r.encode("j", 0, 23)).unwrap();
        let go = (0..30u64)
            .take_while(|&i| !s.should_stop(i, 0, i * 4096))
            .count();
        assert_eq!(go, 23);
        // depth 4, 10 issued, 8 completed (2 in flight when killed): the window holds
        // offsets 4..=7; reads 0..=7 go and the read of block 8 stops
        let mut r = Recorder::new(1, 4);
        (0..8u64).for_each(|i| r.completed(0, i * 4096));
        let s = State::decode(&r.encode("j", 0, 10)).unwrap();
        let go = (0..30u64)
            .take_while(|&i| !s.should_stop(i, 0, i * 4096))
            .count();
        assert_eq!(go, 8);
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let mut r = Recorder::new(1, 1);
        r.completed(0, 0);
        let good = r.encode("j", 0, 1);
        assert!(State::decode(&good[..10])
            .unwrap_err()
            .contains("too short"));
        let mut v = good.clone();
        v[0] = 7;
        assert!(State::decode(&v).unwrap_err().contains("version 7"));
        let mut c = good.clone();
        c[HDR + LIST + 9] ^= 1;
        assert!(State::decode(&c).unwrap_err().contains("corrupt"));
        assert!(State::decode(&good[..good.len() - 1])
            .unwrap_err()
            .contains("truncated"));
    }

    #[test]
    fn load_refuses_another_jobs_state_and_save_never_follows_a_link() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("local-w-0-verify.state");
        let mut r = Recorder::new(1, 1);
        r.completed(0, 0);
        save(&p, &r.encode("w", 0, 1)).unwrap();
        assert_eq!(load(&p, "w", 0).unwrap().numberio, 1);
        assert!(load(&p, "other", 0)
            .unwrap_err()
            .contains("saved by job 'w'"));
        assert!(load(&p, "w", 1).unwrap_err().contains("(thread 0)"));
        let missing = load(&d.path().join("nope"), "w", 0).unwrap_err();
        assert!(
            missing.contains("cannot read") && missing.contains("No such file"),
            "{missing}"
        );
        let target = d.path().join("target");
        std::fs::write(&target, b"keep").unwrap();
        let l = d.path().join("link");
        std::os::unix::fs::symlink(&target, &l).unwrap();
        assert!(save(&l, b"x").unwrap_err().contains("symbolic link"));
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    }
}
