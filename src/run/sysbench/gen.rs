//! sysbench's global fileio request generator.
//!
//! One generator is shared by all worker threads behind one mutex, exactly like
//! sysbench: sequential modes share one wrapping cursor, and the periodic fsync schedule
//! (a series of N fsync events every `freq` read/write requests once something was
//! written) is global. The rndrw choice reads the counts of *completed* reads and writes.
//! Offsets are drawn over the effective file set `FS × N` with FS a whole number of
//! blocks, which removes bugs B2 (file index N) and B6 (misaligned offsets).
//!
//! It is built from the one job model ([`Job`]: direction and order, the read/write
//! ratio, the block size and merged requests, the run-wide sync series) over the file
//! set's geometry (files, their size, the bytes offsets are drawn over).

use crate::job::model::Job;
use crate::job::sysbench::Geometry;
use crate::run::sysbench::rng::Xoroshiro128Plus;

/// Kind of one fileio request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReqKind {
    /// read `len` bytes at (`file`, `offset`)
    #[default]
    Read,
    /// write `len` bytes at (`file`, `offset`)
    Write,
    /// fsync `file` (an event of the periodic series)
    Fsync,
}

impl ReqKind {
    /// sysbench's operation code in `--debug` lines (1 read, 2 write, 3 fsync).
    pub fn code(self) -> u8 {
        match self {
            ReqKind::Read => 1,
            ReqKind::Write => 2,
            ReqKind::Fsync => 3,
        }
    }
}

/// One request: file index, in-file offset and length in bytes (0 for fsync).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// what to do
    pub kind: ReqKind,
    /// file index `0..N`
    pub file: u32,
    /// offset in the file, bytes
    pub offset: u64,
    /// length, bytes
    pub len: u64,
}

/// The direction of each read/write request.
#[derive(Clone, Copy, Debug)]
enum Dirs {
    /// reads only
    Read,
    /// writes only
    Write,
    /// reads while (reads done + 1) / (writes done + 1) is below the ratio, else writes
    Mix(f64),
}

/// The shared generator state.
#[derive(Debug)]
pub struct Generator {
    dirs: Dirs,
    sequential: bool,
    g: Geometry,
    freq: u64,
    cf: u32,
    pos: u64,
    req_done: u64,
    dirty: bool,
    fsync_next: u32,
}

impl Generator {
    /// A fresh generator (cursor at file 0, offset 0) of the model `job` over the file
    /// set `g`: the model's block size, merged requests, direction, read/write ratio
    /// (without one, the reads' share) and sync series.
    pub fn new(job: &Job, g: Geometry) -> Self {
        let p = &job.work.pick;
        let dirs = match (p.rw.reads(), p.rw.writes()) {
            (true, false) => Dirs::Read,
            (false, true) => Dirs::Write,
            _ => Dirs::Mix(p.read_ratio.unwrap_or_else(|| {
                f64::from(p.read_pct) / f64::from(100u32.saturating_sub(p.read_pct))
            })),
        };
        let block = p.bs[0].min();
        let merged = u64::from(p.merged.max(1));
        let g = Geometry {
            block,
            request: block.saturating_mul(merged),
            ..g
        };
        Generator {
            dirs,
            sequential: !p.rw.random(),
            g,
            freq: job.work.syncs.series_every,
            cf: 0,
            pos: 0,
            req_done: 0,
            dirty: false,
            fsync_next: 0,
        }
    }

    /// Next request. `reads_done`/`writes_done` are the completed counts (rndrw rule);
    /// `rng` is the calling thread's generator (one draw per random read/write).
    #[inline]
    pub fn next(
        &mut self,
        rng: &mut Xoroshiro128Plus,
        reads_done: u64,
        writes_done: u64,
    ) -> Request {
        let kind = match self.dirs {
            Dirs::Write => ReqKind::Write,
            Dirs::Read => ReqKind::Read,
            Dirs::Mix(ratio) => {
                if (reads_done as f64 + 1.0) / (writes_done as f64 + 1.0) < ratio {
                    ReqKind::Read
                } else {
                    ReqKind::Write
                }
            }
        };
        if self.freq > 0 && self.dirty && self.req_done.is_multiple_of(self.freq) {
            let f = self.fsync_next;
            self.fsync_next += 1;
            if self.fsync_next == self.g.files {
                self.fsync_next = 0;
                self.dirty = false;
            }
            return Request {
                kind: ReqKind::Fsync,
                file: f,
                offset: 0,
                len: 0,
            };
        }
        self.req_done += 1;
        if kind == ReqKind::Write {
            self.dirty = true;
        }
        if self.sequential {
            if self.cf == self.g.files {
                self.cf = 0;
                self.pos = 0;
            }
            let len = self.g.request.min(self.g.file_size - self.pos);
            let r = Request {
                kind,
                file: self.cf,
                offset: self.pos,
                len,
            };
            self.pos += len;
            if self.pos == self.g.file_size {
                self.cf += 1;
                self.pos = 0;
            }
            r
        } else {
            let u = rng.next_f64();
            let mut t = (u * self.g.total as f64) as u64;
            t -= t % self.g.block;
            let t = t.min(self.g.total - self.g.block);
            let file = (t / self.g.file_size) as u32;
            let offset = t % self.g.file_size;
            Request {
                kind,
                file,
                offset,
                len: self.g.block.min(self.g.file_size - offset),
            }
        }
    }

    /// Count of read/write requests generated so far.
    pub fn requests(&self) -> u64 {
        self.req_done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::sysbench::TestMode;
    use crate::run::sysbench::rng::GlibcRandom;

    /// The generator of a fileio job in `mode` over `g`, with `--file-fsync-freq=freq`
    /// and `--file-rw-ratio=ratio`, through the one job model.
    fn gen_of(mode: TestMode, g: Geometry, freq: u32, ratio: f64) -> Generator {
        let mut s = crate::job::sysbench::tests::job(g.total, g.files, g.block);
        (s.settings.test_mode, s.fsync_freq, s.rw_ratio) = (Some(mode), freq, ratio);
        Generator::new(&s.model(&g), g)
    }

    fn geom(files: u32, fs: u64, block: u64) -> Geometry {
        Geometry {
            files,
            file_size: fs,
            raw_file_size: fs,
            total: fs * u64::from(files),
            block,
            request: block,
        }
    }

    /// Simulate a single-threaded sync run of `events` events; returns
    /// (reads, writes, fsync events).
    fn simulate(
        mode: TestMode,
        g: Geometry,
        freq: u32,
        ratio: f64,
        events: u64,
    ) -> (u64, u64, u64) {
        let mut gen = gen_of(mode, g, freq, ratio);
        let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(1));
        let (mut r, mut w, mut f) = (0, 0, 0);
        for _ in 0..events {
            match gen.next(&mut rng, r, w).kind {
                ReqKind::Read => r += 1,
                ReqKind::Write => w += 1,
                ReqKind::Fsync => f += 1,
            }
        }
        (r, w, f)
    }

    #[test]
    fn rndrw_1000_events_matches_sysbench_strace_counts() {
        // reads 293 + writes 195, 512 periodic fsync events (4 × 128).
        let (r, w, f) = simulate(TestMode::Rndrw, geom(128, 512 << 10, 16384), 100, 1.5, 1000);
        assert_eq!((r, w, f), (293, 195, 512));
    }

    #[test]
    fn seqwr_1000_events_has_488_writes() {
        let (r, w, f) = simulate(TestMode::Seqwr, geom(128, 512 << 10, 16384), 100, 1.5, 1000);
        assert_eq!((r, w, f), (0, 488, 512));
    }

    #[test]
    fn rw_ratio_patterns() {
        let pattern = |ratio: f64, n: usize| {
            let mut gen = gen_of(TestMode::Rndrw, geom(4, 1 << 20, 16384), 0, ratio);
            let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(1));
            let (mut r, mut w) = (0, 0);
            let mut s = String::new();
            for _ in 0..n {
                match gen.next(&mut rng, r, w).kind {
                    ReqKind::Read => {
                        r += 1;
                        s.push('R')
                    }
                    _ => {
                        w += 1;
                        s.push('W')
                    }
                }
            }
            s
        };
        assert_eq!(pattern(1.5, 20), "RWRWRRWRWRRWRWRRWRWR");
        assert_eq!(pattern(1.0, 4), "WRWR");
        assert_eq!(pattern(2.0, 8), "RWRRWRRW");
        assert_eq!(pattern(0.0, 3), "WWW");
        assert_eq!(pattern(f64::INFINITY, 3), "RRR");
    }

    #[test]
    fn rndrd_never_fsyncs() {
        let (r, w, f) = simulate(TestMode::Rndrd, geom(8, 1 << 20, 4096), 1, 1.5, 500);
        assert_eq!((r, w, f), (500, 0, 0));
    }

    #[test]
    fn sequential_cursor_wraps_and_cuts_last_request() {
        let g = Geometry {
            files: 2,
            file_size: 40960,
            raw_file_size: 40960,
            total: 81920,
            block: 16384,
            request: 16384,
        };
        let mut gen = gen_of(TestMode::Seqrd, g, 0, 1.5);
        let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(1));
        let got: Vec<(u32, u64, u64)> = (0..7)
            .map(|_| {
                let r = gen.next(&mut rng, 0, 0);
                (r.file, r.offset, r.len)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 0, 16384),
                (0, 16384, 16384),
                (0, 32768, 8192),
                (1, 0, 16384),
                (1, 16384, 16384),
                (1, 32768, 8192),
                (0, 0, 16384)
            ]
        );
    }

    #[test]
    fn seeded_offsets_match_sysbench_debug_output() {
        // `sysbench fileio --file-num=4 --file-total-size=1M --file-test-mode=rndrw
        //  --events=12 --time=0 --rand-seed=1 --debug run` (sysbench 1.0.20, captured):
        // the histogram draws one value after each event, as sysbench does.
        let expect: [(u8, u32, u64); 12] = [
            (1, 3, 49152),
            (2, 3, 147456),
            (1, 3, 49152),
            (2, 1, 163840),
            (1, 3, 245760),
            (1, 1, 0),
            (2, 3, 98304),
            (1, 2, 245760),
            (2, 3, 163840),
            (1, 1, 32768),
            (1, 1, 49152),
            (2, 2, 147456),
        ];
        let mut gen = gen_of(TestMode::Rndrw, geom(4, 256 << 10, 16384), 100, 1.5);
        let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(1));
        let (mut r, mut w) = (0, 0);
        for (i, e) in expect.iter().enumerate() {
            let q = gen.next(&mut rng, r, w);
            assert_eq!((q.kind.code(), q.file, q.offset), *e, "event {i}");
            match q.kind {
                ReqKind::Read => r += 1,
                ReqKind::Write => w += 1,
                ReqKind::Fsync => {}
            }
            rng.next_u64();
        }
    }
}
