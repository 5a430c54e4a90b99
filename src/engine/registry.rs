//! The engine registry: which engine each [`Kind`] is (the kinds, their names and
//! fio's aliases are util/engines.rs's, shared with the job model; what each can do is
//! its [`Engine::CAPS`], a [`Caps`] defined beside the trait), and the ONE
//! function that builds the engine a job asks for ([`build`]) — with the test-only
//! fault wrapper ([`super::fault::Faulty`]) around it when `IOMARK_FAULT` is set — and
//! hands it to the caller's [`Drive`]. Runners ask the capabilities (and whether the
//! kind queues, [`Kind::queues`], the one definition the job model checks by too),
//! never match on the kind:
//! adding an engine is its file, its [`Kind`] and one arm in [`build`].
//!
//! The engine comes back through a generic [`Drive::drive`] rather than a trait object,
//! so every (data engine, caller) pair compiles into its own loop: no per-I/O dynamic
//! dispatch. The engines that move no data at speed share one loop per caller through
//! [`Cold`] (super::cold), a `match` per call, which keeps the release build short.

use super::cold::Cold;
use super::cpuio::Cpuio;
use super::e4defrag::{Donor, E4Defrag};
use super::exec::{Exec, Program};
use super::falloc::{Falloc, Ftruncate};
use super::fault::{self, Faulty};
use super::fileops::{DirCreate, DirDelete, DirStat, FileCreate, FileDelete, FileOps, FileStat};
use super::io_uring::{self, Setup, Uring};
use super::libaio::{self, Aio};
use super::mmap::Mmap;
use super::net::{self, Net, NetFail};
use super::null::Null;
use super::page_fault::PageFault;
use super::posixaio::PosixAio;
use super::psync::Psync;
use super::{Caps, Engine, IoErr};
use crate::util::engines::{CpuMode, StatType};
use std::os::fd::RawFd;

/// The engines there are, their names, help and fio's aliases: defined in
/// util/engines.rs, where the job model names them too; what each can do is below.
pub use crate::util::engines::{Kind, ALIASES, ENGINE_WORDS, KINDS};

/// `$e` with `$t` bound to each kind's engine type: the one list behind caps.
macro_rules! each_kind {
    ($k:expr, $t:ident => $e:expr) => {
        match $k {
            Kind::Psync => {
                type $t = Psync;
                $e
            }
            Kind::IoUring => {
                type $t = Uring;
                $e
            }
            Kind::Libaio => {
                type $t = Aio;
                $e
            }
            Kind::Posixaio => {
                type $t = PosixAio;
                $e
            }
            Kind::Mmap => {
                type $t = Mmap;
                $e
            }
            Kind::Null => {
                type $t = Null;
                $e
            }
            Kind::Falloc => {
                type $t = Falloc;
                $e
            }
            Kind::Ftruncate => {
                type $t = Ftruncate;
                $e
            }
            Kind::Cpuio => {
                type $t = Cpuio;
                $e
            }
            Kind::FileCreate => {
                type $t = FileCreate;
                $e
            }
            Kind::FileStat => {
                type $t = FileStat;
                $e
            }
            Kind::FileDelete => {
                type $t = FileDelete;
                $e
            }
            Kind::DirCreate => {
                type $t = DirCreate;
                $e
            }
            Kind::DirStat => {
                type $t = DirStat;
                $e
            }
            Kind::DirDelete => {
                type $t = DirDelete;
                $e
            }
            Kind::E4Defrag => {
                type $t = E4Defrag;
                $e
            }
            Kind::PageFault => {
                type $t = PageFault;
                $e
            }
            Kind::Exec => {
                type $t = Exec;
                $e
            }
            Kind::Net => {
                type $t = Net;
                $e
            }
        }
    };
}

impl Kind {
    /// Its capabilities (its engine's [`Engine::CAPS`]).
    pub fn caps(self) -> Caps {
        each_kind!(self, E => E::CAPS)
    }

    /// Whether it can run here (io_uring: a ring can be created; libaio: an AIO
    /// context can; the others always).
    pub fn available(self) -> std::io::Result<()> {
        match self {
            Kind::IoUring => io_uring::probe_os(),
            Kind::Libaio => libaio::probe(),
            _ => Ok(()),
        }
    }
}

/// io_uring's options (ignored by the other engines).
#[derive(Clone, Copy, Debug, Default)]
pub struct Ring {
    /// setup flags (SQPOLL, IOPOLL, reap spin)
    pub setup: Setup,
    /// requests handed to the kernel at once, 0/1 = each in its `submit`
    /// (fio's iodepth_batch_submit, [`Uring::batched`])
    pub batched: usize,
    /// completions taken per reap, 0 = all ready ([`Uring::reap_max`])
    pub reap_max: usize,
    /// the submission that fills the queue waits for a completion ([`Uring::wait_when_full`])
    pub wait_when_full: bool,
    /// every N-th request with IOSQE_ASYNC, 0 = none ([`Uring::force_async`])
    pub force_async: u32,
}

/// libaio's options (ignored by the other engines).
#[derive(Clone, Copy, Debug, Default)]
pub struct NativeAio {
    /// requests submitted with one io_submit (fio's iodepth_batch_submit), 0/1 = each
    pub batch: usize,
    /// completions taken per reap, 0 = all ready
    pub reap_max: usize,
    /// read completions from the ring in user space (fio's userspace_reap)
    pub user_reap: bool,
}

/// The options of the engines that move no data (ignored by the others).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoData {
    /// `stat_type` of filestat/dirstat
    pub stat: StatType,
    /// `cpumode` of cpuio
    pub cpumode: CpuMode,
    /// `cpuchunks` of cpuio: one burn cycle
    pub cpu_cycle: std::time::Duration,
}

/// The engine a job thread asks for.
#[derive(Debug)]
pub struct Spec<'a> {
    /// the files' paths, for the engines that work on paths ([`Caps::paths`])
    pub paths: Vec<std::path::PathBuf>,
    /// the no-data engines' options
    pub nodata: NoData,
    /// which engine
    pub kind: Kind,
    /// the file table (descriptors open for the engine's lifetime)
    pub fds: Vec<RawFd>,
    /// requests in flight at most (queued engines)
    pub depth: usize,
    /// `(ptr, len)` of the buffers requests use, registered when the engine can
    pub bufs: &'a [(*mut u8, usize)],
    /// io_uring's options
    pub ring: Ring,
    /// libaio's options
    pub aio: NativeAio,
    /// `pwritev2`/SQE flags of writes (RWF_ATOMIC, RWF_NOWAIT), 0 = none
    pub write_flags: i32,
    /// SQE / iocb / `preadv2` flags of reads (RWF_NOWAIT), 0 = none
    pub read_flags: i32,
    /// psync (pvsync2's `hipri`): RWF_HIPRI on this percentage of the requests
    pub hipri: Option<u32>,
    /// psync: every request one preadv2/pwritev2 (fio's pvsync2)
    pub v2: bool,
    /// bytes mapped of each file (mmap)
    pub map_len: usize,
    /// posix_madvise advice for the mappings (mmap)
    pub madvise: Option<libc::c_int>,
    /// io_uring denied here: run psync instead (the caller warned once)
    pub fallback: bool,
    /// e4defrag's donor file
    pub donor: Donor,
    /// exec's program
    pub program: Program,
    /// the net engine's socket setup
    pub net: net::Setup,
}

impl<'a> Spec<'a> {
    /// A spec of `kind` over `fds` with every option at its default.
    pub fn new(kind: Kind, fds: Vec<RawFd>, depth: usize, bufs: &'a [(*mut u8, usize)]) -> Self {
        Spec {
            paths: Vec::new(),
            nodata: NoData::default(),
            kind,
            fds,
            depth,
            bufs,
            ring: Ring::default(),
            aio: NativeAio::default(),
            write_flags: 0,
            read_flags: 0,
            hipri: None,
            v2: false,
            map_len: 0,
            madvise: None,
            fallback: false,
            donor: Donor::default(),
            program: Program::default(),
            net: net::Setup::default(),
        }
    }
}

/// Why the engine could not be built.
#[derive(Debug)]
pub enum Refused {
    /// the kernel refused the ring (io_uring)
    Ring(std::io::Error),
    /// a mapping failed (mmap)
    Map(IoErr),
    /// the kernel refused the AIO context (libaio)
    Aio(std::io::Error),
    /// a path could not be prepared (dirstat/dirdelete's directories)
    Path(IoErr),
    /// the donor file could not be opened or allocated (e4defrag)
    Donor(IoErr),
    /// the program could not be started (exec)
    Program(std::io::Error),
    /// the socket could not be set up (net)
    Net(NetFail),
    /// the caller runs only psync, io_uring and mmap ([`Drive::THREE_KINDS`])
    NotRun(Kind),
}

/// What the caller does with the engine once it is built.
pub trait Drive {
    /// What driving it gives back.
    type Out;
    /// Run with `eng` (its capabilities are `E::CAPS`).
    fn drive<E: Engine>(self, eng: &mut E) -> Self::Out;
    /// `true` for a caller that runs only psync, io_uring (with its psync fallback)
    /// and mmap (sysbench's three I/O modes): any other kind is refused unbuilt
    /// ([`Refused::NotRun`]) and the caller's loop is compiled for those three only.
    const THREE_KINDS: bool = false;
}

/// Build the engine `spec` asks for, wrapped in [`Faulty`] when `IOMARK_FAULT` is
/// set (two monomorphised copies, no per-I/O branch), and drive it. The engine is
/// dropped (a ring reaps what is still in flight) before this returns.
pub fn build<D: Drive>(spec: Spec<'_>, d: D) -> Result<D::Out, Refused> {
    let kind = if spec.fallback && spec.kind == Kind::IoUring {
        Kind::Psync
    } else {
        spec.kind
    };
    Ok(match kind {
        Kind::Psync => {
            let e = Psync::new(spec.fds)
                .write_flags(spec.write_flags)
                .read_flags(spec.read_flags)
                .hipri(spec.hipri)
                .v2(spec.v2);
            go(e, d)
        }
        Kind::IoUring => {
            let r = spec.ring;
            let e = Uring::with_setup(spec.fds, spec.depth, spec.bufs, r.setup)
                .map_err(Refused::Ring)?
                .batched(r.batched)
                .reap_max(r.reap_max)
                .wait_when_full(r.wait_when_full)
                .write_flags(spec.write_flags)
                .read_flags(spec.read_flags)
                .force_async(r.force_async);
            go(e, d)
        }
        Kind::Mmap => {
            let e = Mmap::new(&spec.fds, spec.map_len)
                .map_err(Refused::Map)?
                .madvise(spec.madvise);
            go(e, d)
        }
        _ if D::THREE_KINDS => return Err(Refused::NotRun(kind)),
        _ => return others(kind, spec, d),
    })
}

/// [`build`]'s arms for the kinds a [`Drive::THREE_KINDS`] caller never runs.
fn others<D: Drive>(kind: Kind, spec: Spec<'_>, d: D) -> Result<D::Out, Refused> {
    Ok(match kind {
        Kind::Libaio => {
            let a = spec.aio;
            let e = Aio::new(spec.fds, spec.depth)
                .map_err(Refused::Aio)?
                .batched(a.batch)
                .reap_max(a.reap_max)
                .write_flags(spec.write_flags)
                .read_flags(spec.read_flags)
                .user_reap(a.user_reap);
            go(e, d)
        }
        Kind::Posixaio => go(PosixAio::new(spec.fds, spec.depth), d),
        Kind::Null => go(Null::new(spec.depth), d),
        Kind::Falloc => go(Cold::Falloc(Falloc::new(spec.fds)), d),
        Kind::Ftruncate => go(Cold::Ftruncate(Ftruncate::new(spec.fds)), d),
        Kind::Cpuio => go(
            Cold::Cpuio(Cpuio::new(spec.nodata.cpumode, spec.nodata.cpu_cycle)),
            d,
        ),
        Kind::FileCreate => go(Cold::FileCreate(fileops(&spec)?), d),
        Kind::FileStat => go(Cold::FileStat(fileops(&spec)?), d),
        Kind::FileDelete => go(Cold::FileDelete(fileops(&spec)?), d),
        Kind::DirCreate => go(Cold::DirCreate(fileops(&spec)?), d),
        Kind::DirStat => go(Cold::DirStat(fileops(&spec)?), d),
        Kind::DirDelete => go(Cold::DirDelete(fileops(&spec)?), d),
        Kind::E4Defrag => {
            let e = E4Defrag::new(spec.fds, &spec.donor).map_err(Refused::Donor)?;
            go(Cold::E4Defrag(e), d)
        }
        Kind::PageFault => {
            let e = PageFault::new(spec.map_len).map_err(Refused::Map)?;
            go(Cold::PageFault(e), d)
        }
        Kind::Exec => go(
            Cold::Exec(Exec::new(&spec.program).map_err(Refused::Program)?),
            d,
        ),
        Kind::Net => go(Cold::Net(Net::open(&spec.net).map_err(Refused::Net)?), d),
        // built by `build`: never asked here
        Kind::Psync | Kind::IoUring | Kind::Mmap => return Err(Refused::NotRun(kind)),
    })
}

/// A file or directory operation engine over the spec's paths.
fn fileops<const OP: u8, const DIR: bool>(spec: &Spec<'_>) -> Result<FileOps<OP, DIR>, Refused> {
    FileOps::new(&spec.paths, spec.nodata.stat).map_err(Refused::Path)
}

/// Drive `e`, wrapped when fault injection is on.
fn go<E: Engine, D: Drive>(e: E, d: D) -> D::Out {
    if fault::enabled() {
        d.drive(&mut Faulty::new(e))
    } else {
        let mut e = e;
        d.drive(&mut e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_is_found_by_its_name_and_says_what_it_can() {
        for k in KINDS {
            assert_eq!(Kind::named(k.name()), Some(k));
        }
        assert_eq!(Kind::named("libaio"), Some(Kind::Libaio));
        assert_eq!(Kind::named("aio"), None);
        assert!(Kind::Libaio.queues() && Kind::Posixaio.queues());
        assert!(Kind::IoUring.queues() && Kind::IoUring.caps().registers_buffers);
        assert!(!Kind::Psync.queues() && !Kind::Mmap.queues());
        assert!(Kind::Null.caps().no_io && !Kind::Psync.caps().no_io);
        assert!(Kind::Mmap.caps().maps_files && !Kind::Psync.caps().maps_files);
        assert_eq!(Kind::named("dirdelete"), Some(Kind::DirDelete));
        assert!(Kind::FileStat.caps().paths && !Kind::FileStat.caps().own_files);
        assert!(Kind::FileCreate.caps().own_files && Kind::Cpuio.caps().no_io);
        assert!(!Kind::Falloc.caps().paths && !Kind::Ftruncate.caps().no_io);
        assert!(Kind::E4Defrag.moves_no_data() && !Kind::E4Defrag.queues());
        assert!(Kind::PageFault.caps().no_io && Kind::Exec.caps().no_io);
        assert_eq!(Kind::parse("page_fault"), Some(Kind::PageFault));
        assert_eq!(Kind::parse("exec"), Some(Kind::Exec));
    }

    #[test]
    fn each_kind_is_the_engine_that_says_so() {
        for k in KINDS {
            assert_eq!(each_kind!(k, E => E::KIND), k);
        }
    }

    #[test]
    fn the_engine_words_are_the_registry_with_fios_aliases_and_help() {
        // every word parses to an engine, and every engine has its word
        for (w, _) in ENGINE_WORDS {
            assert!(Kind::parse(w).is_some(), "{w}");
        }
        for k in KINDS {
            assert_eq!(ENGINE_WORDS.iter().filter(|e| e.0 == k.name()).count(), 1);
        }
        assert_eq!(ENGINE_WORDS.len(), 22);
        // fio 3.33 `fio --cmdhelp=ioengine`: its order and words for the engines it lists
        let fio = [
            ("sync", "Use read/write"),
            ("psync", "Use pread/pwrite"),
            ("pvsync", "Use preadv/pwritev"),
            ("pvsync2", "Use preadv2/pwritev2"),
            ("libaio", "Linux native asynchronous IO"),
            ("io_uring", "Fast Linux native aio"),
            ("posixaio", "POSIX asynchronous IO"),
            ("mmap", "Memory mapped IO"),
            ("null", "Testing engine (no data transfer)"),
            ("net", "Network IO"),
            ("cpuio", "CPU cycle burner engine"),
            ("e4defrag", "ext4 defrag engine"),
            ("falloc", "fallocate() file based engine"),
            ("filecreate", "File creation engine"),
        ];
        assert_eq!(&ENGINE_WORDS[..fio.len()], &fio[..]);
        assert_eq!(Kind::parse("sync"), Some(Kind::Psync));
        assert_eq!(Kind::parse("pvsync"), Some(Kind::Psync));
        assert_eq!(Kind::parse("pvsync2"), Some(Kind::Psync));
    }

    struct Depth;
    impl Drive for Depth {
        type Out = (&'static str, bool);
        fn drive<E: Engine>(self, eng: &mut E) -> Self::Out {
            (eng.name(), E::KIND.queues())
        }
    }

    #[test]
    fn build_hands_over_the_engine_asked_for_or_psync_as_fallback() {
        let spec = Spec::new(Kind::Null, vec![], 8, &[]);
        assert_eq!(build(spec, Depth).unwrap(), ("null", false));
        let mut spec = Spec::new(Kind::IoUring, vec![], 8, &[]);
        spec.fallback = true;
        assert_eq!(build(spec, Depth).unwrap(), ("psync", false));
    }

    struct Three;
    impl Drive for Three {
        type Out = &'static str;
        const THREE_KINDS: bool = true;
        fn drive<E: Engine>(self, eng: &mut E) -> Self::Out {
            eng.name()
        }
    }

    #[test]
    fn a_three_kinds_caller_gets_its_kinds_and_a_refusal_for_the_others() {
        let spec = Spec::new(Kind::Psync, vec![], 1, &[]);
        assert_eq!(build(spec, Three).unwrap(), "psync");
        for k in [
            Kind::Null,
            Kind::Libaio,
            Kind::Posixaio,
            Kind::Cpuio,
            Kind::Net,
        ] {
            let r = build(Spec::new(k, vec![], 1, &[]), Three);
            assert!(
                matches!(r, Err(Refused::NotRun(n)) if n == k),
                "{k:?}: {r:?}"
            );
        }
        let spec = Spec::new(Kind::Cpuio, vec![], 1, &[]);
        assert_eq!(build(spec, Depth).unwrap(), ("cpuio", false));
    }
}
