//! The plan of `iomark tree`: which directories and files the tree holds and how big
//! each file is, drawn from a seed so a run is reproducible. Pure: nothing here touches
//! a file.
//!
//! Size distribution (documented in docs/commands/tree.md; see [`file_size`]): 40 % of the
//! files are 0–1 KiB (uniform), 36 % 1–8 KiB, 20.9 % 8–64 KiB, 3 % 64–512 KiB and 0.1 %
//! 512 KiB–4 MiB, log-uniform inside each bucket: median ≈ 1.8 KiB, mean ≈ 15 KiB,
//! the shape of node_modules and source trees (most files tiny, a long tail of large ones).

use crate::run::sysbench::rng::{GlibcRandom, Xoroshiro128Plus};
use std::path::{Path, PathBuf};

/// Largest file of the distribution, bytes.
pub const MAX_FILE: u64 = 4 << 20;

/// Expected bytes of data per file under [`BUCKETS`], for the space estimate made before
/// planning: 0.4·512 + 0.36·3447 + 0.209·27577 + 0.03·220650 + 0.001·1765016 ≈ 15595
/// (the mean of log-uniform on \[a, b) is (b − a)/ln(b/a)).
pub const MEAN_ESTIMATE: u64 = 15_595;

/// Buckets of the size distribution: (cumulative probability, low bytes, high bytes).
/// The first bucket is uniform, the others log-uniform.
pub const BUCKETS: [(f64, u64, u64); 5] = [
    (0.40, 0, 1024),
    (0.76, 1024, 8 << 10),
    (0.969, 8 << 10, 64 << 10),
    (0.999, 64 << 10, 512 << 10),
    (1.0, 512 << 10, MAX_FILE),
];

/// One planned file.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// path relative to the tree root
    pub rel: PathBuf,
    /// size, bytes
    pub size: u64,
}

/// The tree: directories (relative, parents before children) and files (sorted by
/// directory).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// directories below the root, in creation order
    pub dirs: Vec<PathBuf>,
    /// files
    pub files: Vec<Entry>,
}

impl Plan {
    /// Sum of file sizes, bytes.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

/// File size for two uniform draws `u` (bucket) and `v` (position) in [0, 1), from
/// [`BUCKETS`]: uniform in the first bucket, `low × (high/low)^v` in the others.
pub fn file_size(u: f64, v: f64) -> u64 {
    let (_, lo, hi) = BUCKETS
        .iter()
        .copied()
        .find(|(c, _, _)| u < *c)
        .unwrap_or(BUCKETS[BUCKETS.len() - 1]);
    let s = if lo == 0 {
        v * hi as f64
    } else {
        lo as f64 * (hi as f64 / lo as f64).powf(v)
    };
    (s as u64).min(hi.saturating_sub(1).max(lo))
}

/// Build the plan: directory `i` (1-based) hangs below a uniformly drawn earlier
/// directory (0 = root), a random recursive tree of depth ≈ ln(dirs); each file goes
/// to a uniformly drawn directory. Deterministic for a seed.
pub fn plan(files: u64, dirs: u64, seed: u32) -> Plan {
    let mut rng = Xoroshiro128Plus::from_glibc(&mut GlibcRandom::new(seed));
    let mut paths: Vec<PathBuf> = vec![PathBuf::new()];
    for i in 1..=dirs {
        let parent = (rng.next_u64() % i) as usize;
        paths.push(paths[parent].join(format!("d{i}")));
    }
    let mut list: Vec<(usize, Entry)> = (0..files)
        .map(|j| {
            let d = (rng.next_u64() % (dirs + 1)) as usize;
            let size = file_size(rng.next_f64(), rng.next_f64());
            (
                d,
                Entry {
                    rel: paths[d].join(format!("f{j}")),
                    size,
                },
            )
        })
        .collect();
    list.sort_by_key(|(d, _)| *d);
    paths.remove(0);
    Plan {
        dirs: paths,
        files: list.into_iter().map(|(_, e)| e).collect(),
    }
}

/// The name a file is renamed to in the rename phase.
pub fn renamed(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".renamed");
    PathBuf::from(s)
}

/// Median file size of a plan, bytes.
pub(super) fn median(p: &Plan) -> u64 {
    let mut s: Vec<u64> = p.files.iter().map(|f| f.size).collect();
    s.sort_unstable();
    s.get(s.len() / 2).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distribution_shape() {
        let p = plan(100_000, 6_000, 1);
        let n = p.files.len() as f64;
        let tiny = p.files.iter().filter(|f| f.size < 1024).count() as f64 / n;
        let small = p.files.iter().filter(|f| f.size < 8192).count() as f64 / n;
        assert!((tiny - 0.40).abs() < 0.01, "{tiny}");
        assert!((small - 0.76).abs() < 0.01, "{small}");
        let mean = p.bytes() as f64 / n;
        // the long tail makes the sample mean noisy: within 10 % of the formula
        assert!((mean / MEAN_ESTIMATE as f64 - 1.0).abs() < 0.10, "{mean}");
        assert!(p.files.iter().all(|f| f.size < MAX_FILE));
        let m = median(&p);
        assert!((1700..1950).contains(&m), "{m}");
    }

    #[test]
    fn sizes_per_bucket() {
        assert_eq!(file_size(0.0, 0.0), 0);
        assert_eq!(file_size(0.1, 0.5), 512);
        assert_eq!(file_size(0.5, 0.0), 1024);
        let s = file_size(0.5, 1.0 / 3.0); // 1024·8^(1/3) = 2048 (± f64 rounding)
        assert!((2047..=2048).contains(&s), "{s}");
        let big = file_size(0.9999, 0.999_999);
        assert!((MAX_FILE - 16..MAX_FILE).contains(&big), "{big}");
        assert_eq!(file_size(0.9999, 1.0), MAX_FILE - 1); // clamped below the bucket top
    }

    #[test]
    fn plan_is_deterministic_and_consistent() {
        let a = plan(500, 40, 7);
        assert_eq!(a, plan(500, 40, 7));
        assert_ne!(a, plan(500, 40, 8));
        assert_eq!(a.files.len(), 500);
        assert_eq!(a.dirs.len(), 40);
        // every parent directory is created before its children, every file's dir exists
        for (i, d) in a.dirs.iter().enumerate() {
            if let Some(par) = d.parent().filter(|p| !p.as_os_str().is_empty()) {
                assert!(a.dirs[..i].iter().any(|x| x == par));
            }
        }
        for f in &a.files {
            let par = f.rel.parent().unwrap();
            assert!(par.as_os_str().is_empty() || a.dirs.iter().any(|x| x == par));
        }
    }
}
