//! The one sampler of a run: every period the main thread reads the workers'
//! cumulative counters (reads, writes, bytes — counters the workers keep anyway) and,
//! through [`Probes`], the device under the files (`/sys/block/DEV/stat`), the drive's
//! temperature (hwmon) and the job CPUs' clock (cpufreq), and keeps the differences as
//! [`Sample`]s: the series `--plot` draws and the over-time findings
//! (result/timeline.rs) are read from.
//!
//! It adds nothing to the I/O path beyond the live counters, and it is independent of
//! sysbench's `--report-interval` lines (which take and reset their own interval
//! counters). The probes read sysfs only through `probe/` and a [`Root`]: the live
//! machine's, or under the test hook `IOMARK_TEST_PROBE_ROOT` a recorded machine's
//! ([`Root::of_samples`]), whose sensor a test can heat while the run goes on. A live view
//! on a terminal (`fileio --progress`, `mark`'s bar) reads the last sample's rates
//! from a shared [`LiveRates`] the sampler overwrites at every sample. Where the
//! recorder is readable while the run goes on (fileio and mark: each thread's
//! statistics behind its mutex), a sample also reads the recorder's completion
//! latencies ([`JobStats::live_clat`]) and gives the view the interval's mean and p99
//! ([`IntervalLat`], run/live.rs), from the difference of the histogram's counts since the last
//! sample: no second recorder, nothing more on the I/O path.

use crate::probe::devstat::{self, DevStat};
use crate::probe::sensors::{self, DriveSensor};
use crate::probe::Root;
use crate::result::{DeviceSample, Sample, SeriesSources};
use crate::run::live::IntervalLat;
use crate::stats::job::JobStats;
use crate::stats::LatAcc;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Sampling period for a run of `time_limit_s` seconds (0 = not time-limited):
/// 1 s for runs of 20 s or more, otherwise `time_limit / 20` but at least 100 ms,
/// so a short run still gives about 20 points; 250 ms when there is no time limit.
pub fn period_for(time_limit_s: u64) -> Duration {
    match time_limit_s {
        0 => Duration::from_millis(250),
        t if t >= 20 => Duration::from_secs(1),
        t => Duration::from_millis((t * 1000 / 20).max(100)),
    }
}

/// Cumulative (reads, writes, bytes read, bytes written) over all threads.
pub fn totals(stats: &[Mutex<JobStats>]) -> [u64; 4] {
    let mut c = [0u64; 4];
    for m in stats {
        let t = m.lock().unwrap_or_else(|e| e.into_inner());
        c[0] += t.read.ios;
        c[1] += t.write.ios;
        c[2] += t.read.bytes;
        c[3] += t.write.bytes;
    }
    c
}

/// The completion latencies the threads' recorders hold now, added up (the sampler
/// keeps the reading of the last sample and reports the difference).
pub fn live_lat(stats: &[Mutex<JobStats>]) -> LatAcc {
    let mut all = LatAcc::default();
    for m in stats {
        all.merge(&m.lock().unwrap_or_else(|e| e.into_inner()).live_clat());
    }
    all
}

/// What the sampler reads besides the app counters: the block device under the run's
/// files, its temperature sensor, and the clock of the CPUs the jobs may run on.
#[derive(Debug, Default)]
pub struct Probes {
    root: Root,
    /// (kernel name, sysfs directory) of the device, and its counters at the last sample
    disk: Option<(String, String, DevStat)>,
    /// further devices of the run's other paths (`copy`'s SRC when it is not on DST's
    /// device): each with its role, sampled as `disk` is
    more: Vec<(String, (String, String, DevStat))>,
    sensor: Option<DriveSensor>,
    cpus: Vec<usize>,
}

/// The CPUs this process may run on (its affinity mask; the jobs' threads inherit it
/// unless they set their own).
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity fills it
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let n = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is a valid cpu_set_t of `n` bytes
    if unsafe { libc::sched_getaffinity(0, n, &mut set) } != 0 {
        return vec![];
    }
    // SAFETY: `set` was filled by the kernel; CPU_ISSET reads within it
    (0..n * 8)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

impl Probes {
    /// The probes of a run over `paths` (files or block devices): the first one with a
    /// block device gives the device (a partition's own counters) and the whole disk's
    /// sensor; read through `root`.
    pub fn new(root: &Root, paths: &[PathBuf]) -> Probes {
        let dev = paths
            .iter()
            .find_map(|p| crate::probe::device_behind(p).filter(|&d| root.block_dir(d).is_some()));
        Probes::of_device(root, dev)
    }

    /// The probes of block device `dev` (`major:minor`; `None`: the CPU clock only).
    pub fn of_device(root: &Root, dev: Option<(u64, u64)>) -> Probes {
        let dev = dev.and_then(|d| Some((root.block_dir(d)?, root.disk_dir(d)?)));
        let disk = dev.as_ref().and_then(|(dir, _)| disk_at(root, dir));
        Probes {
            root: root.clone(),
            sensor: dev.and_then(|(_, whole)| sensors::drive_sensor(root, &whole)),
            disk,
            more: vec![],
            cpus: allowed_cpus(),
        }
    }

    /// The probes of a command's paths by role (`copy`: `DST` first, then `SRC`): the
    /// first path's device as [`Probes::new`] gives it, and each other path's device
    /// when it is another one, sampled beside it with its role.
    pub fn of_roles(root: &Root, paths: &[(&str, &Path)]) -> Probes {
        let dev = |p: &Path| {
            crate::probe::device_behind(p).and_then(|d| root.block_dir(d).map(|dir| (d, dir)))
        };
        let first = paths.first().and_then(|(_, p)| dev(p));
        let mut probes = Probes::of_device(root, first.as_ref().map(|f| f.0));
        let mut seen: Vec<String> = first.into_iter().map(|f| f.1).collect();
        for (role, p) in paths.iter().skip(1) {
            let Some((_, dir)) = dev(p) else { continue };
            if seen.contains(&dir) {
                continue;
            }
            if let Some(d) = disk_at(root, &dir) {
                probes.more.push((role.to_string(), d));
            }
            seen.push(dir);
        }
        probes
    }

    /// Where the samples' device, temperature and clock values come from.
    pub fn sources(&self) -> SeriesSources {
        SeriesSources {
            device: self.disk.as_ref().map(|d| d.0.clone()),
            sensor: self.sensor.as_ref().map(|s| s.name.clone()),
            temp_max_c: self.sensor.as_ref().and_then(|s| s.max_c),
            temp_crit_c: self.sensor.as_ref().and_then(|s| s.crit_c),
            cpus: self.cpus.clone(),
            more_devices: self
                .more
                .iter()
                .map(|(role, d)| (d.0.clone(), role.clone()))
                .collect(),
        }
    }

    /// Read the probes into `s`: the device's counters since the last reading, the
    /// temperature and the clock now.
    fn read(&mut self, s: &mut Sample) {
        if let Some(d) = self.disk.as_mut() {
            s.device = since(&self.root, d);
        }
        // a further device that cannot be read is a sample of nothing, so each keeps
        // its place in the order of `sources.more_devices`
        s.more_devices = self
            .more
            .iter_mut()
            .map(|(_, d)| since(&self.root, d).unwrap_or_default())
            .collect();
        s.temp_c = self
            .sensor
            .as_ref()
            .and_then(|x| sensors::temp_c(&self.root, x));
        s.cpu_mhz = sensors::cpu_mhz(&self.root, &self.cpus);
    }
}

/// (kernel name, sysfs directory, counters now) of the block device at sysfs `dir`.
fn disk_at(root: &Root, dir: &str) -> Option<(String, String, DevStat)> {
    let name = crate::probe::sysroot::base(dir).to_string();
    Some((name, dir.to_string(), devstat::read_stat_at(root, dir)?))
}

/// What device `d` did since its last reading, which this one replaces (`None`: its
/// counters cannot be read now).
fn since(root: &Root, d: &mut (String, String, DevStat)) -> Option<DeviceSample> {
    let (_, dir, last) = d;
    let now = devstat::read_stat_at(root, dir)?;
    let s = DeviceSample {
        reads: now.read_ios.saturating_sub(last.read_ios),
        writes: now.write_ios.saturating_sub(last.write_ios),
        read_bytes: now.read_sectors.saturating_sub(last.read_sectors) * 512,
        written_bytes: now.write_sectors.saturating_sub(last.write_sectors) * 512,
        busy_ms: now.io_ticks.saturating_sub(last.io_ticks),
    };
    *last = now;
    Some(s)
}

/// The rates of one sample, for a live view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rates {
    /// seconds from the run's start to the sample's end
    pub t_s: f64,
    /// reads and writes together, MB/s (1,000,000 B/s)
    pub mb_s: f64,
    /// reads and writes per second
    pub iops: f64,
    /// reads and writes since the start (or the last checkpoint)
    pub ops: u64,
    /// completion latency of the interval's I/O (`None`: none completed, or the
    /// recorder is not read while the run goes on)
    pub lat: Option<IntervalLat>,
}

impl Rates {
    /// The rates of sample `s`, taken at cumulative counters `c`.
    fn of(s: &Sample, c: [u64; 4]) -> Rates {
        let dur = s.dur_s.max(1e-9);
        Rates {
            t_s: s.t_s,
            mb_s: (s.read_bytes + s.written_bytes) as f64 / dur / 1e6,
            iops: (s.reads + s.writes) as f64 / dur,
            ops: c[0] + c[1],
            lat: None,
        }
    }
}

/// The last sample's [`Rates`], shared between the sampler (which overwrites them at
/// every sample) and a live view on a terminal; `None` before the first sample.
#[derive(Debug, Default)]
pub struct LiveRates(Mutex<Option<Rates>>);

impl LiveRates {
    /// The rates of the last sample taken.
    pub fn get(&self) -> Option<Rates> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forget the last sample (a new run starts).
    pub fn clear(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn set(&self, r: Rates) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    }
}

/// The sampler state of one run.
#[derive(Debug)]
pub struct Sampler {
    /// sampling period
    pub period: Duration,
    start: Instant,
    next: Instant,
    last_t: Instant,
    last: [u64; 4],
    /// samples taken so far
    pub samples: Vec<Sample>,
    probes: Option<Probes>,
    live: Option<Arc<LiveRates>>,
    /// the recorder's latencies at the last sample, and as read for the next one
    lat: (LatAcc, Option<LatAcc>),
}

impl Sampler {
    /// A sampler starting at `start`, taking a sample every `period`.
    pub fn new(start: Instant, period: Duration) -> Sampler {
        Sampler {
            period,
            start,
            next: start + period,
            last_t: start,
            last: [0; 4],
            samples: vec![],
            probes: None,
            live: None,
            lat: Default::default(),
        }
    }

    /// Hand the samples, their period and their sources to the builder's inputs `i`:
    /// the result's series.
    pub fn into_inputs(self, i: &mut crate::result::Inputs) {
        i.sample_period_s = self.period.as_secs_f64();
        i.sample_sources = self.sources();
        i.samples = self.samples;
    }

    /// The same sampler also writing each sample's rates into `live`.
    pub fn with_live(mut self, live: Arc<LiveRates>) -> Sampler {
        self.live = Some(live);
        self
    }

    /// The same sampler also reading `probes` at every sample.
    pub fn with_probes(mut self, probes: Probes) -> Sampler {
        self.probes = Some(probes);
        self
    }

    /// Where the samples' device, temperature and clock values come from (`None`
    /// without probes).
    pub fn sources(&self) -> Option<SeriesSources> {
        self.probes.as_ref().map(Probes::sources)
    }

    /// When the next sample is due.
    pub fn due(&self) -> Instant {
        self.next
    }

    /// Counters were reset (a checkpoint, a new group of jobs): differences restart
    /// from zero.
    pub fn counters_reset(&mut self) {
        self.last = [0; 4];
        self.lat.0 = LatAcc::default();
    }

    /// A sample at `now` from the threads' recorders `stats` (fileio, mark): their
    /// counters and their completion latencies.
    pub fn take_from(&mut self, stats: &[Mutex<JobStats>], now: Instant) {
        self.lat.1 = Some(live_lat(stats));
        self.take(totals(stats), now);
    }

    /// The last, partial sample (see [`Sampler::finish`]) from the threads' recorders.
    pub fn finish_from(&mut self, stats: &[Mutex<JobStats>], now: Instant) {
        self.lat.1 = Some(live_lat(stats));
        self.finish(totals(stats), now);
    }

    /// Take a sample at `now` from the threads' cumulative counters `c` (reads, writes,
    /// bytes read, bytes written; a counter that went down was reset by a checkpoint:
    /// its new value is the difference).
    pub fn take(&mut self, c: [u64; 4], now: Instant) {
        let d: Vec<u64> = c
            .iter()
            .zip(self.last)
            .map(|(&n, o)| if n >= o { n - o } else { n })
            .collect();
        let mut s = Sample {
            t_s: (now - self.start).as_secs_f64(),
            dur_s: (now - self.last_t).as_secs_f64(),
            reads: d[0],
            writes: d[1],
            read_bytes: d[2],
            written_bytes: d[3],
            ..Sample::default()
        };
        if let Some(p) = self.probes.as_mut() {
            p.read(&mut s);
        }
        let lat = self.lat.1.take().and_then(|now| {
            let l = IntervalLat::between(&self.lat.0, &now);
            self.lat.0 = now;
            l
        });
        // the `--live` view's frame, when a view watches (run/live.rs)
        crate::run::live::sample(&s, lat);
        if let Some(l) = &self.live {
            l.set(Rates {
                lat,
                ..Rates::of(&s, c)
            });
        }
        self.samples.push(s);
        self.last = c;
        self.last_t = now;
        while self.next <= now {
            self.next += self.period;
        }
    }

    /// The last, partial sample at the end of the run (or of a group of jobs). A tail
    /// shorter than a tenth of a period (which would show a meaningless spike) is merged
    /// into the previous sample, so the samples always add up to the run's totals.
    pub fn finish(&mut self, c: [u64; 4], now: Instant) {
        let short = now.saturating_duration_since(self.last_t) < self.period / 10;
        let n = self.samples.len();
        self.take(c, now);
        if short && n > 0 {
            let tail = self.samples.pop().expect("take pushed a sample");
            merge(&mut self.samples[n - 1], &tail);
        }
    }
}

/// The cumulative counters of a command whose I/O no recorder holds (`copy`, `tree`):
/// reads, writes, bytes read, bytes written, added to by the threads doing the I/O and
/// read by a [`Background`] sampler.
#[derive(Debug, Default)]
pub struct IoCounts([AtomicU64; 4]);

impl IoCounts {
    /// One read of `bytes` done.
    pub fn read(&self, bytes: u64) {
        self.0[0].fetch_add(1, Ordering::Relaxed);
        self.0[2].fetch_add(bytes, Ordering::Relaxed);
    }

    /// One write of `bytes` done.
    pub fn write(&self, bytes: u64) {
        self.0[1].fetch_add(1, Ordering::Relaxed);
        self.0[3].fetch_add(bytes, Ordering::Relaxed);
    }

    /// The counters now, in the sampler's order.
    pub fn get(&self) -> [u64; 4] {
        self.0.each_ref().map(|c| c.load(Ordering::Relaxed))
    }
}

/// The run's [`Sampler`] on a thread of its own, over [`IoCounts`]: for a command whose
/// main thread does the I/O itself (`copy`) or waits on walkers (`tree`), so no loop of
/// its own wakes for the samples. [`Background::finish`] takes the last sample and
/// hands the sampler back.
#[derive(Debug)]
pub struct Background {
    /// set when the run ended; the condition wakes the thread at once
    end: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<Sampler>>,
}

impl Background {
    /// Start `s` sampling `counts` every period (`None` when the OS refuses a thread:
    /// the run goes on without a series).
    pub fn start(mut s: Sampler, counts: Arc<IoCounts>) -> Option<Background> {
        let end = Arc::new((Mutex::new(false), Condvar::new()));
        let e = end.clone();
        let thread = std::thread::Builder::new()
            .name("iomark-sampler".into())
            .spawn(move || {
                let (m, cv) = &*e;
                let mut ended = m.lock().unwrap_or_else(|p| p.into_inner());
                loop {
                    let now = Instant::now();
                    if *ended {
                        s.finish(counts.get(), now);
                        return s;
                    }
                    if now >= s.due() {
                        s.take(counts.get(), now);
                        continue;
                    }
                    ended = cv
                        .wait_timeout(ended, s.due() - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
            })
            .ok()?;
        Some(Background {
            end,
            thread: Some(thread),
        })
    }

    /// The sampler of a command without a time limit (`copy`, `tree`) from `t0`: the
    /// counters `counts` and the disk under `path`, every [`period_for`]`(0)`.
    pub fn of_path(t0: Instant, path: &Path, counts: &Arc<IoCounts>) -> Option<Background> {
        let probes = Probes::new(&Root::of_samples(), &[path.to_path_buf()]);
        let s = Sampler::new(t0, period_for(0)).with_probes(probes);
        Background::start(s, counts.clone())
    }

    /// [`Background::of_path`] over a command's paths by role (`copy`: `DST`, `SRC`):
    /// the first path's disk, and each other path's when it is another
    /// ([`Probes::of_roles`]).
    pub fn of_roles(
        t0: Instant,
        paths: &[(&str, &Path)],
        counts: &Arc<IoCounts>,
    ) -> Option<Background> {
        let probes = Probes::of_roles(&Root::of_samples(), paths);
        let s = Sampler::new(t0, period_for(0)).with_probes(probes);
        Background::start(s, counts.clone())
    }

    /// End the sampling: the last, partial sample taken now, the sampler back.
    pub fn finish(mut self) -> Option<Sampler> {
        self.stop();
        self.thread.take()?.join().ok()
    }

    fn stop(&self) {
        let (m, cv) = &*self.end;
        *m.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cv.notify_all();
    }
}

impl Drop for Background {
    /// A run that ends without [`Background::finish`] (an early return) still ends
    /// the thread.
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.stop();
            let _ = t.join();
        }
    }
}

/// Add the tail sample `t` to `last` (the end, temperature and clock are the tail's).
fn merge(last: &mut Sample, t: &Sample) {
    last.t_s = t.t_s;
    last.dur_s += t.dur_s;
    last.reads += t.reads;
    last.writes += t.writes;
    last.read_bytes += t.read_bytes;
    last.written_bytes += t.written_bytes;
    if let (Some(a), Some(b)) = (last.device.as_mut(), t.device) {
        a.reads += b.reads;
        a.writes += b.writes;
        a.read_bytes += b.read_bytes;
        a.written_bytes += b.written_bytes;
        a.busy_ms += b.busy_ms;
    }
    last.temp_c = t.temp_c.or(last.temp_c);
    last.cpu_mhz = t.cpu_mhz.or(last.cpu_mhz);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn period_gives_about_twenty_points() {
        assert_eq!(period_for(60), Duration::from_secs(1));
        assert_eq!(period_for(20), Duration::from_secs(1));
        assert_eq!(period_for(5), Duration::from_millis(250));
        assert_eq!(period_for(1), Duration::from_millis(100));
        assert_eq!(period_for(0), Duration::from_millis(250));
    }

    /// The statistics of two fresh threads.
    fn two_threads() -> Vec<Mutex<JobStats>> {
        (0..2)
            .map(|_| Mutex::new(JobStats::thread(false)))
            .collect()
    }

    #[test]
    fn samples_are_differences_and_survive_a_reset() {
        use crate::stats::EventKind;
        let stats = two_threads();
        let t0 = Instant::now();
        let s = Sampler::new(t0, Duration::from_secs(1));
        stats[0].lock().unwrap().io_done(EventKind::Read, 4096);
        stats[1].lock().unwrap().io_done(EventKind::Read, 4096);
        let live = Arc::new(LiveRates::default());
        let mut s = s.with_live(live.clone());
        assert_eq!(live.get(), None);
        s.take(totals(&stats), t0 + Duration::from_secs(1));
        // the live view's rates: 2 reads of 4096 B in 1 s
        let r = live.get().unwrap();
        assert_eq!((r.t_s, r.iops, r.ops), (1.0, 2.0, 2));
        assert!((r.mb_s - 0.008192).abs() < 1e-12, "{r:?}");
        stats[0].lock().unwrap().io_done(EventKind::Write, 512);
        s.take(totals(&stats), t0 + Duration::from_millis(2500));
        assert_eq!(s.samples.len(), 2);
        assert_eq!((s.samples[0].reads, s.samples[0].read_bytes), (2, 8192));
        assert_eq!((s.samples[1].reads, s.samples[1].writes), (0, 1));
        assert_eq!(s.samples[1].written_bytes, 512);
        assert!((s.samples[1].dur_s - 1.5).abs() < 1e-9);
        assert!((s.samples[1].t_s - 2.5).abs() < 1e-9);
        assert_eq!(s.due(), t0 + Duration::from_secs(3));
        // a checkpoint resets the threads' counters
        *stats[0].lock().unwrap() = JobStats::thread(false);
        *stats[1].lock().unwrap() = JobStats::thread(false);
        stats[1].lock().unwrap().io_done(EventKind::Read, 100);
        s.counters_reset();
        s.take(totals(&stats), t0 + Duration::from_secs(3));
        assert_eq!((s.samples[2].reads, s.samples[2].read_bytes), (1, 100));
        // a tiny tail is merged into the last sample, a real one kept
        stats[1].lock().unwrap().io_done(EventKind::Read, 7);
        s.finish(totals(&stats), t0 + Duration::from_millis(3050));
        assert_eq!(s.samples.len(), 3);
        assert_eq!((s.samples[2].reads, s.samples[2].read_bytes), (2, 107));
        assert!((s.samples[2].dur_s - 0.55).abs() < 1e-9);
        assert!((s.samples[2].t_s - 3.05).abs() < 1e-9);
        stats[1].lock().unwrap().io_done(EventKind::Read, 1);
        s.finish(totals(&stats), t0 + Duration::from_millis(3500));
        assert_eq!(s.samples.len(), 4);
        assert_eq!(s.samples[3].read_bytes, 1);
    }

    /// The live latency of a sample is its interval's: mean = the interval's latency
    /// sum over its count, p99 = the 99th percentile of the histogram counts recorded
    /// in the interval (the difference of two readings of the recorder), not of the
    /// run so far. Two threads, the second interval much slower than the first.
    #[test]
    fn interval_latency_is_the_p99_of_the_histograms_difference() {
        use crate::stats::EventKind;
        let stats = two_threads();
        let t0 = Instant::now();
        let live = Arc::new(LiveRates::default());
        let mut s = Sampler::new(t0, Duration::from_secs(1)).with_live(live.clone());
        // interval 1: 1000 reads of 1 µs on thread 0
        for _ in 0..1000 {
            let mut t = stats[0].lock().unwrap();
            t.event(EventKind::Read, 1_000, false);
            t.io_done(EventKind::Read, 4096);
        }
        s.take_from(&stats, t0 + Duration::from_secs(1));
        let l = live.get().unwrap().lat.unwrap();
        assert_eq!((l.mean_ns, l.p99_ns), (1_000.0, 1_000));
        // interval 2: 98 writes of 2 µs (thread 1), one of 50 µs and one of 90 µs
        // (thread 0, queued: its completion in `lat`)
        for _ in 0..98 {
            stats[1]
                .lock()
                .unwrap()
                .event(EventKind::Write, 2_000, false);
        }
        stats[0].lock().unwrap().clat_done(EventKind::Write, 50_000);
        stats[0].lock().unwrap().clat_done(EventKind::Write, 90_000);
        s.take_from(&stats, t0 + Duration::from_secs(2));
        let l = live.get().unwrap().lat.unwrap();
        let (n, sum) = (100.0, 98.0 * 2_000.0 + 50_000.0 + 90_000.0);
        assert_eq!(l.mean_ns, sum / n);
        // rank ceil(0.99 × 100) = 99 of the interval's 100: the 50 µs one (its HDR
        // bucket's highest equivalent value, 3 significant digits)
        let h = crate::stats::new_hist();
        assert_eq!(l.p99_ns, h.highest_equivalent(50_000));
        // the run so far has p99 2 µs: the interval's is not the cumulative one
        let all = live_lat(&stats);
        assert_eq!(crate::stats::percentile_ns(&all.hist(), 99.0), 2_000);
        // an interval without completions has no latency
        s.take_from(&stats, t0 + Duration::from_secs(3));
        assert_eq!(live.get().unwrap().lat, None);
        // a checkpoint resets the recorders: the new counts are the interval's
        for m in &stats {
            *m.lock().unwrap() = JobStats::thread(false);
        }
        s.counters_reset();
        stats[1]
            .lock()
            .unwrap()
            .event(EventKind::Read, 7_000, false);
        s.take_from(&stats, t0 + Duration::from_secs(4));
        let l = live.get().unwrap().lat.unwrap();
        assert_eq!(
            (l.mean_ns, l.p99_ns),
            (7_000.0, h.highest_equivalent(7_000))
        );
    }

    /// The sampler on its own thread over counters other threads add to (copy, tree):
    /// samples while the I/O goes on, and after `finish` they add up to the counters'
    /// totals exactly, the last partial sample included.
    #[test]
    fn a_background_sampler_adds_up_to_the_counters() {
        let counts = Arc::new(IoCounts::default());
        let t0 = Instant::now();
        let bg = Background::start(Sampler::new(t0, Duration::from_millis(20)), counts.clone())
            .expect("a thread");
        while t0.elapsed() < Duration::from_millis(150) {
            counts.write(4096);
            counts.read(100);
            std::thread::sleep(Duration::from_micros(500));
        }
        counts.write(7);
        let s = bg.finish().expect("the sampler back");
        let c = counts.get();
        assert!(s.samples.len() >= 3, "{:?}", s.samples);
        let sum = |f: fn(&Sample) -> u64| s.samples.iter().map(f).sum::<u64>();
        assert_eq!(
            [
                sum(|x| x.reads),
                sum(|x| x.writes),
                sum(|x| x.read_bytes),
                sum(|x| x.written_bytes)
            ],
            c
        );
        assert_eq!(c[3], (c[1] - 1) * 4096 + 7);
        // a sampler dropped without finish ends its thread too
        drop(Background::start(
            Sampler::new(t0, Duration::from_secs(60)),
            counts,
        ));
    }

    /// A run on a recorded NVMe drive (probe/sensors.rs fixture) at 2 GB/s whose
    /// temperature the test raises past the drive's threshold at 15 s, when the rate
    /// falls to 0.8 GB/s: the throttling finding with its time; the same run at a
    /// constant temperature has none. The device counters are the fixture's `stat`.
    #[test]
    fn a_recorded_drive_that_heats_up_throttles_at_its_moment() {
        for heats in [true, false] {
            let d = tempfile::tempdir().unwrap();
            let (ns, temp) = crate::probe::sensors::tests::nvme_machine(d.path(), 60_000);
            let link = d.path().join("sys/dev/block");
            std::fs::create_dir_all(&link).unwrap();
            std::os::unix::fs::symlink(format!("../../..{ns}"), link.join("259:0")).unwrap();
            let root = Root(d.path().to_path_buf());
            let stat = d.path().join(ns.trim_start_matches('/')).join("stat");
            let t0 = Instant::now();
            let mut s = Sampler::new(t0, Duration::from_secs(1))
                .with_probes(Probes::of_device(&root, Some((259, 0))));
            let src = s.sources().unwrap();
            assert_eq!(src.device.as_deref(), Some("nvme0n1"));
            assert_eq!((src.temp_max_c, src.temp_crit_c), (Some(70.0), Some(80.0)));
            let mut c = [0u64; 4];
            for i in 1..=30u64 {
                let rate = if heats && i > 15 {
                    800_000_000
                } else {
                    2_000_000_000
                };
                c[1] += rate >> 20;
                c[3] += rate;
                if heats && i == 15 {
                    std::fs::write(&temp, "71000\n").unwrap();
                }
                let sectors = c[3] / 512;
                std::fs::write(
                    &stat,
                    format!("0 0 0 0 {} 0 {sectors} 0 0 {} 0\n", c[1], i * 1000),
                )
                .unwrap();
                s.take(c, t0 + Duration::from_secs(i));
            }
            assert_eq!(
                s.samples[3].device.unwrap().written_bytes,
                2_000_000_000 / 512 * 512
            );
            assert_eq!(s.samples[3].device.unwrap().busy_ms, 1000);
            let series = crate::result::Series {
                samples: s.samples.clone(),
                sources: s.sources(),
                ..Default::default()
            };
            let found = crate::result::timeline::detect(&series);
            let hot = found
                .iter()
                .find(|(f, _)| f.id == crate::result::timeline::THERMAL_THROTTLING);
            if heats {
                let (f, m) = hot.expect("throttling found");
                assert!((f.at_s - 14.0).abs() <= 1.0, "{f:?}");
                assert_eq!(f.temp_c, Some(71.0));
                assert!(
                    m.contains("at 14.0 s the drive nvme0n1 reached 71 °C"),
                    "{m}"
                );
            } else {
                assert!(hot.is_none(), "{found:?}");
                assert_eq!(s.samples[20].temp_c, Some(60.0));
            }
        }
    }
}
