//! How a job thread picks its requests — the directions and their order
//! ([`RwMode`]), the sizes ([`BlockSizes`]), where random offsets fall
//! ([`Distribution`]), the file each goes to ([`FileService`]), the offset generator
//! the job names ([`RandGen`]) — and how a rate-limited thread spaces them
//! ([`RateProcess`]). fio's keys (`rw`, `bs`/`bsrange`/`bssplit`, `random_distribution`,
//! `file_service_type`, `random_generator`, `rate_process`) are parsed into these in
//! `job/fio/`.

/// Data direction pattern (`rw=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwMode {
    /// sequential reads
    Read,
    /// sequential writes
    Write,
    /// uniform random reads
    RandRead,
    /// uniform random writes
    RandWrite,
    /// sequential mixed (`rw`, `readwrite`)
    ReadWrite,
    /// random mixed
    RandRw,
    /// sequential trims (`trim`)
    Trim,
    /// random trims (`randtrim`)
    RandTrim,
    /// sequential trim then write of the same block (`trimwrite`)
    TrimWrite,
    /// random trim then write of the same block (`randtrimwrite`)
    RandTrimWrite,
}

impl RwMode {
    /// Random offsets?
    pub fn random(self) -> bool {
        matches!(
            self,
            RwMode::RandRead
                | RwMode::RandWrite
                | RwMode::RandRw
                | RwMode::RandTrim
                | RwMode::RandTrimWrite
        )
    }
    /// Issues reads?
    pub fn reads(self) -> bool {
        matches!(
            self,
            RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRw
        )
    }
    /// Issues writes?
    pub fn writes(self) -> bool {
        matches!(
            self,
            RwMode::Write
                | RwMode::RandWrite
                | RwMode::ReadWrite
                | RwMode::RandRw
                | RwMode::TrimWrite
                | RwMode::RandTrimWrite
        )
    }
    /// fio's spelling (`randread`, `rw`, `trimwrite` …).
    pub fn fio_name(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::ReadWrite => "rw",
            RwMode::RandRw => "randrw",
            RwMode::Trim => "trim",
            RwMode::RandTrim => "randtrim",
            RwMode::TrimWrite => "trimwrite",
            RwMode::RandTrimWrite => "randtrimwrite",
        }
    }
    /// Every mode, in fio's order of `rw=` values.
    pub const ALL: [RwMode; 10] = [
        RwMode::Read,
        RwMode::Write,
        RwMode::RandRead,
        RwMode::RandWrite,
        RwMode::ReadWrite,
        RwMode::RandRw,
        RwMode::Trim,
        RwMode::RandTrim,
        RwMode::TrimWrite,
        RwMode::RandTrimWrite,
    ];
    /// The mode of fio's spelling [`RwMode::fio_name`] (as a result records it).
    pub fn from_fio_name(name: &str) -> Option<RwMode> {
        RwMode::ALL.into_iter().find(|m| m.fio_name() == name)
    }
    /// Issues trims?
    pub fn trims(self) -> bool {
        matches!(
            self,
            RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite | RwMode::RandTrimWrite
        )
    }
}

/// Block sizes of one direction, bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockSizes {
    /// one size
    Fixed(u64),
    /// uniform over `[min, max]`, in multiples of `min`
    Range(u64, u64),
    /// weighted sizes `(bytes, percent)` as fio keeps them (job/units.rs `fio_bssplit`:
    /// the weights need not sum to 100)
    Split(Vec<(u64, u32)>),
}

impl BlockSizes {
    /// Smallest size.
    pub fn min(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range(a, _) => *a,
            BlockSizes::Split(v) => v.iter().map(|x| x.0).min().unwrap_or(4096),
        }
    }
    /// Largest size.
    pub fn max(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range(_, b) => *b,
            BlockSizes::Split(v) => v.iter().map(|x| x.0).max().unwrap_or(4096),
        }
    }
}

/// Offset distribution of random I/O (`random_distribution`).
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Distribution {
    /// uniform (fio `random`)
    #[default]
    Random,
    /// Zipf with exponent θ ≠ 1 (fio `zipf:θ[:c]`; fio 3.33 refuses 1.0), and the
    /// centre `c` in [0, 1] when given: the hottest rank sits at `c` of the range
    Zipf(f64, Option<f64>),
    /// Pareto with shape h in (0, 1) (fio `pareto:h[:c]`), the centre as zipf's
    Pareto(f64, Option<f64>),
    /// normal with σ in percent of the range, below 100 (fio `normal:σ[:c]`; fio 3.33
    /// refuses 100 and above), around the middle or, given a centre c in [0, 1], moved
    /// by `(c − 0.5)` of the range
    Normal(f64, Option<f64>),
    /// `(percent of accesses, percent of the range)` zones, in range order (`zoned:`)
    Zoned(Vec<(u32, u32)>),
    /// `(percent of accesses, bytes)` zones (`zoned_abs:`)
    ZonedAbs(Vec<(u32, u64)>),
    /// block indices issued in this order, over and over (`sequence:2,0,1`, fio 3.38);
    /// `random_sequence_stride` makes later cycles move on by the sequence length
    Sequence(Vec<u64>),
}

/// `file_service_type`: how the next file of a job with many is picked.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum FileService {
    /// each file in turn, `N` requests each (fio's default, N = 1)
    #[default]
    RoundRobin,
    /// finish one file before the next
    Sequential,
    /// a file at random (uniform)
    Random,
    /// zipf(theta), with the centre of `random_distribution`'s zipf when given
    Zipf(f64, Option<f64>),
    /// pareto(h), the centre as zipf's
    Pareto(f64, Option<f64>),
    /// normal (gauss) with this deviation in percent, the centre as zipf's
    Normal(f64, Option<f64>),
}

/// `random_generator` (fio: tausworthe, lfsr, tausworthe64): the generator of uniform
/// random offsets, fio's own (run/gen/frand.rs, run/gen/lfsr.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RandGen {
    /// fio's default `tausworthe`
    #[default]
    Tausworthe,
    /// `tausworthe64`
    Tausworthe64,
    /// `lfsr`: fio's LFSR per file, every block exactly once per pass without a
    /// random map
    Lfsr,
}

/// How rate-limited I/Os are spaced (`rate_process`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RateProcess {
    /// evenly spaced (fio `linear`)
    #[default]
    Linear,
    /// exponential inter-arrival times (fio `poisson`)
    Poisson,
}
