//! The I/O counters of the block devices under the jobs' files, read before and after
//! a run (fio 3.33 `diskutil.c`: `/sys/block/<dev>/stat`); the result carries them as
//! `devices` and the fio JSON report turns them into `disk_util` (report/fio/json.rs).
//! Files on file systems with no block device (tmpfs, /dev/shm) give no entry. sysfs is
//! read through a [`Root`] (tests give a recorded machine). Also the page-cache facts
//! of the jobs' files for the truth warnings (result/truth.rs): [`cache_before`] and
//! [`cache_after`], the holes scan after the run (a lower bound when jobs also wrote).

use crate::job::fio::FioJob;
use crate::probe::Root;
use crate::result::{DevStat, DeviceCounters};
use std::path::PathBuf;
use std::time::Instant;

/// Parse one `stat` line (the probe's reader, probe/devstat.rs).
pub use crate::probe::devstat::parse_stat;

/// The paths a job's files are under: each `filename` (fio's `:` list, under the first
/// `directory` when given), or each `directory`, or the current directory.
pub(crate) fn job_paths(j: &FioJob) -> Vec<PathBuf> {
    match &j.filename {
        Some(_) => j
            .filenames()
            .iter()
            .map(|s| match j.dir_of(0) {
                Some(d) => d.join(s),
                None => PathBuf::from(s),
            })
            .collect(),
        None if j.directory.is_empty() => vec![PathBuf::from(".")],
        None => j.directory.clone(),
    }
}

/// The paths fio 3.33 looks a job's disk up by (diskutil.c `init_disk_util`, over the
/// files the job has when it is created): its `filename`s or `directory`s as
/// [`job_paths`], `opendir`'s directory (its files are under it; none when it holds
/// none, which the run tells), and nothing for a `read_iolog` job without `filename`,
/// whose files come from the log only once its thread runs.
fn disk_paths(j: &FioJob) -> Vec<PathBuf> {
    if j.filename.is_none() {
        if j.more.replay.file.is_some() {
            return Vec::new();
        }
        if let Some(d) = &j.tuning.opendir {
            return vec![PathBuf::from(d)];
        }
    }
    job_paths(j)
}

/// One device under the jobs' files and its counters at the start.
#[derive(Debug)]
struct Dev {
    /// kernel name
    name: String,
    /// resolved sysfs directory
    dir: String,
    /// counters at the start
    before: DevStat,
    /// the jobs (their indices) whose files are on it
    jobs: Vec<usize>,
}

/// The devices' counters at the start of a run.
#[derive(Debug)]
pub struct DiskSnapshot {
    root: Root,
    t0: Instant,
    devs: Vec<Dev>,
}

/// The `stat` counters of the block device at sysfs directory `dir` (already resolved:
/// on the live machine one read of one file).
fn read_stat(root: &Root, dir: &str) -> Option<DevStat> {
    parse_stat(&root.read(&format!("{dir}/stat"))?)
}

impl DiskSnapshot {
    /// Read, through `root`, the counters of every block device under the jobs' files
    /// (the device itself for a block device node; for a file not created yet, its
    /// nearest existing parent's), each device once, with the jobs on it.
    pub fn take(root: &Root, jobs: &[FioJob]) -> DiskSnapshot {
        let mut devs: Vec<Dev> = Vec::new();
        // as fio, no disk_util for a diskless engine (fio's FIO_DISKLESSIO: null, cpuio,
        // exec, net; page_fault's anonymous memory): the engines given no descriptor;
        // nor for a job with `disk_util=0`
        let disk = |j: &FioJob| !j.engine.caps().no_io && j.tuning.disk_util;
        let paths = jobs.iter().enumerate().filter(|(_, j)| disk(j));
        for (ji, p) in paths.flat_map(|(ji, j)| disk_paths(j).into_iter().map(move |p| (ji, p))) {
            let Some(dir) = crate::probe::device_behind(&p).and_then(|d| root.block_dir(d)) else {
                continue;
            };
            if let Some(d) = devs.iter_mut().find(|d| d.dir == dir) {
                if !d.jobs.contains(&ji) {
                    d.jobs.push(ji);
                }
                continue;
            }
            if let Some(before) = read_stat(root, &dir) {
                let name = crate::probe::sysroot::base(&dir).to_string();
                devs.push(Dev {
                    name,
                    dir,
                    before,
                    jobs: vec![ji],
                });
            }
        }
        DiskSnapshot {
            root: root.clone(),
            t0: Instant::now(),
            devs,
        }
    }

    /// The counters now against those of [`DiskSnapshot::take`] of the devices a job
    /// that `created` says was created is on (devices whose counters cannot be read
    /// again are left out). fio 3.33 lists a disk as it creates a job on it (backend.c
    /// `run_threads` calls `init_disk_util`): a job that never started (stopped while
    /// it waited for its turn, in a group the run never reached, failed in its files'
    /// setup) or that has no file (an empty `opendir`) lists none.
    pub fn finish(&self, created: &dyn Fn(usize) -> bool) -> Vec<DeviceCounters> {
        let ms = self.t0.elapsed().as_millis() as u64;
        self.devs
            .iter()
            .filter(|d| d.jobs.iter().any(|&ji| created(ji)))
            .filter_map(|d| {
                Some(DeviceCounters {
                    name: d.name.clone(),
                    before: d.before,
                    after: read_stat(&self.root, &d.dir)?,
                    elapsed_ms: ms,
                })
            })
            .collect()
    }
}

/// Where the jobs' data lives: the first job's first path, or its nearest existing
/// parent (a file the layout has not made yet), else `.`.
fn first_existing_path(jobs: &[FioJob]) -> PathBuf {
    let p = jobs
        .iter()
        .flat_map(job_paths)
        .next()
        .unwrap_or_else(|| PathBuf::from("."));
    let mut at = p.as_path();
    while !at.exists() {
        match at.parent() {
            Some(q) if !q.as_os_str().is_empty() => at = q,
            _ => return PathBuf::from("."),
        }
    }
    at.to_path_buf()
}

/// The page-cache facts before a run, taken at the first job's first path.
pub fn cache_before(root: &Root, jobs: &[FioJob]) -> crate::probe::pagecache::Before {
    crate::probe::pagecache::before(root, &first_existing_path(jobs))
}

/// The device view's readings at the start of the jobs: the disk under the first job's
/// first path, read through the one root a run's device is described by
/// ([`Root::of_samples`]).
pub fn device_watch(jobs: &[FioJob]) -> crate::probe::devstat::Watch {
    crate::probe::devstat::Watch::of_path(&Root::of_samples(), &first_existing_path(jobs))
}

/// The diagnosis of the jobs' target (the first job's first path), as `fileio` takes
/// its directory's: the result's `targets` and the bandwidth ceiling the truth layer
/// checks the run against (result/truth.rs `above_ceiling`).
pub fn diagnose_target(root: &Root, jobs: &[FioJob]) -> crate::probe::diagnosis::Diagnosis {
    crate::probe::diagnosis::diagnose(
        root,
        &crate::probe::diagnosis::Inputs {
            path: first_existing_path(jobs).display().to_string(),
            direct_io: jobs.iter().all(|j| j.direct),
            ..Default::default()
        },
    )
}

/// The page-cache facts after a run: the jobs' file set (each file once), buffered
/// when a job ran without O_DIRECT, the bytes of the regions the read jobs read that
/// are holes or unwritten extents. The result builder adds the bytes the jobs moved.
pub fn cache_after(
    root: &Root,
    b: &crate::probe::pagecache::Before,
    jobs: &[FioJob],
) -> crate::probe::pagecache::PageCacheCheck {
    let mut seen = std::collections::HashSet::<PathBuf>::new();
    let mut set = 0u64;
    // the regions read of each file, in the order first met
    let mut read: Vec<(PathBuf, Vec<(u64, u64)>)> = vec![];
    // a net job's socket is no file: no page cache on its way
    // (threads are numbered over every job, as their plans are)
    let firsts = jobs.iter().scan(0u32, |n, j| {
        let first = *n;
        *n += j.numjobs;
        Some(first)
    });
    let numbered: Vec<(&FioJob, u32)> = jobs.iter().zip(firsts).collect();
    let jobs: Vec<&FioJob> = jobs.iter().filter(|j| !j.engine.caps().stream).collect();
    let mut laid = super::plan::Laid::default();
    // whether a buffered job has a file the page cache can hold (a character device such
    // as /dev/zero or /dev/full has none: no page-cache claim is made of it)
    let mut buffered = false;
    for (j, global) in numbered
        .into_iter()
        .filter(|(j, _)| !j.engine.caps().stream)
    {
        for t in 0..j.numjobs.max(1) {
            let Ok((files, regions)) = super::plan::files_for(j, t, global + t, &laid) else {
                continue;
            };
            laid.add(j, &files);
            for (f, r) in files.into_iter().zip(regions) {
                if crate::files::dataset::is_char_device(&f.path) {
                    continue;
                }
                buffered |= !j.direct;
                if j.rw.reads() {
                    match read.iter_mut().find(|(p, _)| *p == f.path) {
                        Some((_, rs)) => rs.push(r),
                        None => read.push((f.path.clone(), vec![r])),
                    }
                }
                if seen.insert(f.path.clone()) {
                    set += f.size;
                }
            }
        }
    }
    let unwritten = read.iter().map(|(p, rs)| unwritten_in(root, p, rs)).sum();
    let mut c = crate::probe::pagecache::after(root, b, set, buffered, 0, 0);
    c.unwritten_bytes = jobs.iter().any(|j| j.rw.reads()).then_some(unwritten);
    c
}

/// Bytes of `regions` of `path` that are holes or unwritten extents: of the file
/// itself, or, for a block device node, of the backing file behind it
/// ([`unwritten_behind`]; the device named through `root`, as every probe does).
fn unwritten_in(root: &Root, path: &std::path::Path, regions: &[(u64, u64)]) -> u64 {
    use std::os::unix::fs::FileTypeExt;
    let block = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device());
    if !block {
        return crate::files::preflight::unwritten_bytes(path, regions).unwrap_or(0);
    }
    crate::probe::device_behind(path)
        .and_then(|(a, b)| root.block_name(a, b))
        .map_or(0, |name| unwritten_behind(root, &name, regions))
}

/// Bytes of `regions` of block device `name` that are holes or unwritten extents of
/// its loop backing file: a loop device's or a loop partition's (`loop3p1`: its disk's
/// file), the regions shifted by where the device begins in it
/// ([`crate::probe::pagecache::loop_backing`]); the file is read where the probed
/// machine keeps it (under a recorded root, [`Root::local`]). 0 for any other device.
fn unwritten_behind(root: &Root, name: &str, regions: &[(u64, u64)]) -> u64 {
    let Some((file, off)) = crate::probe::pagecache::loop_backing(root, name) else {
        return 0;
    };
    let shifted: Vec<(u64, u64)> = regions
        .iter()
        .map(|&(s, l)| (s.saturating_add(off), l))
        .collect();
    crate::files::preflight::unwritten_bytes(&root.local(&file), &shifted).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields() {
        let a = parse_stat("10 1 80 5 20 2 160 9 0 100 14 0 0 0 0").unwrap();
        let b = parse_stat("15 2 120 7 30 4 240 19 0 350 40 0 0 0 0").unwrap();
        assert_eq!(
            (a.read_ios, a.write_merges, a.io_ticks, a.in_queue),
            (10, 2, 100, 14)
        );
        // their disk_util entry is pinned in report/fio/json.rs
        assert_eq!(
            (
                b.read_ios,
                b.write_ios,
                b.read_merges,
                b.write_ticks,
                b.in_queue,
                b.io_ticks
            ),
            (15, 30, 2, 19, 40, 350)
        );
        assert_eq!((a.write_ios, a.read_merges, a.write_ticks), (20, 1, 9));
        assert!(parse_stat("1 2 3").is_none());
    }

    /// The counters come from the machine the root records: a fixture whose
    /// `/sys/dev/block/M:m` (M:m of the test's own directory) links to a disk `vdz`.
    /// A recorded machine's loop partition (`loop3p1`, from sector 2048 of loop3's
    /// image): its holes are those of the image from the partition's start on, the image
    /// read under the root; loop3 itself counts from the image's start; a disk that is
    /// no loop device has none.
    #[test]
    fn a_recorded_loop_partition_counts_its_backing_files_holes() {
        let fx = tempfile::tempdir().unwrap();
        let put = |rel: &str, text: &str| {
            let p = fx.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        put("sys/block/loop3/loop/backing_file", "/img/disk.img\n");
        put("sys/block/loop3/loop/offset", "0\n");
        put("sys/block/loop3/loop3p1/start", "2048\n");
        // a 4 MiB sparse image whose third MiB is written
        put("img/disk.img", "");
        let img = fx.path().join("img/disk.img");
        let f = std::fs::File::create(&img).unwrap();
        f.set_len(4 << 20).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, &vec![7u8; 1 << 20], 2 << 20).unwrap();
        f.sync_all().unwrap();
        let root = Root(fx.path().to_path_buf());
        let first_2m = [(0, 2 << 20)];
        // the partition's first 2 MiB are the image's second and third: one written
        assert_eq!(unwritten_behind(&root, "loop3p1", &first_2m), 1 << 20);
        // loop3's first 2 MiB are the image's first two: both holes
        assert_eq!(unwritten_behind(&root, "loop3", &first_2m), 2 << 20);
        assert_eq!(unwritten_behind(&root, "loop3p1", &[(1 << 20, 1 << 20)]), 0);
        assert_eq!(unwritten_behind(&root, "vda", &first_2m), 0);
        // a partition whose start is not recorded: where it begins is not known
        assert_eq!(unwritten_behind(&root, "loop3p2", &first_2m), 0);
    }

    #[test]
    fn snapshot_reads_the_counters_through_the_root() {
        let work = tempfile::tempdir().unwrap();
        let file = work.path().join("data");
        let (ma, mi) = crate::probe::device_behind(&file).unwrap();
        let fx = tempfile::tempdir().unwrap();
        let disk = fx.path().join("sys/devices/virtual/block/vdz");
        std::fs::create_dir_all(&disk).unwrap();
        std::fs::write(disk.join("stat"), "10 1 80 5 20 2 160 9 0 100 14\n").unwrap();
        std::fs::create_dir_all(fx.path().join("sys/dev/block")).unwrap();
        std::os::unix::fs::symlink(
            "../../devices/virtual/block/vdz",
            fx.path().join(format!("sys/dev/block/{ma}:{mi}")),
        )
        .unwrap();
        let root = Root(fx.path().to_path_buf());
        let args: Vec<String> = ["--name=j", "--size=1m"]
            .iter()
            .map(|s| s.to_string())
            .chain([format!("--filename={}", file.display())])
            .collect();
        let jobs = crate::job::fio::parse_args_with(&args, &|_| None)
            .unwrap()
            .jobs;
        let snap = DiskSnapshot::take(&root, &jobs);
        std::fs::write(disk.join("stat"), "15 2 120 7 30 4 240 19 0 350 40\n").unwrap();
        // a job that was never created lists no disk
        assert!(snap.finish(&|_| false).is_empty());
        let v = snap.finish(&|ji| ji == 0);
        assert_eq!(v[0].name, "vdz");
        assert_eq!(v[0].after.read_ios - v[0].before.read_ios, 5);
        assert_eq!(v[0].after.write_ios - v[0].before.write_ios, 10);
        // a machine without that device: no entry, so fio's key is left out
        let empty = tempfile::tempdir().unwrap();
        assert!(DiskSnapshot::take(&Root(empty.path().to_path_buf()), &jobs)
            .finish(&|_| true)
            .is_empty());
    }
}
