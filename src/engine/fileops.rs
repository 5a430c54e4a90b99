//! The file and directory operation engines, fio's `filecreate`, `filestat`,
//! `filedelete`, `dircreate`, `dirstat` and `dirdelete`: no data moves; the first
//! request to each file performs the operation on its path (open with O_CREAT, stat,
//! unlink; mkdir, stat, rmdir) and completes when it returns, so its completion
//! latency is the operation's. Later requests to the same file complete at once, as
//! fio's queue does nothing (a file is operated on when fio opens it, once per job
//! here). One generic type serves the six: the operation and the object are const
//! parameters, so each engine is its own monomorphised loop.
//!
//! What the runner does around them is in their [`Caps`](super::Caps): every one works
//! on paths (`paths`: no descriptor is opened for them); the create engines and the
//! directory engines own their files (`own_files`: nothing is laid out and each file
//! is one block, fio's `get_file_size` = the minimum block size); `filestat` and
//! `filedelete` act on files laid out as for any job. `dirstat`/`dirdelete` make their
//! directories when built (fio's `setup_dirs`).

use super::{Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::{Kind, StatType};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

/// What is done to the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// open(O_CREAT|O_RDWR, 0600) / mkdir
    Create,
    /// stat(2) (or lstat / statx, [`StatType`])
    Stat,
    /// unlink / rmdir
    Delete,
}

/// A file (`DIR = false`) or directory (`DIR = true`) operation engine; `OP` is
/// [`Op`] as 0 create, 1 stat, 2 delete.
pub struct FileOps<const OP: u8, const DIR: bool> {
    paths: Vec<CString>,
    /// whether file i had its operation done
    done: Vec<bool>,
    stat: StatType,
}

/// fio's `filecreate`
pub type FileCreate = FileOps<0, false>;
/// fio's `filestat`
pub type FileStat = FileOps<1, false>;
/// fio's `filedelete`
pub type FileDelete = FileOps<2, false>;
/// fio's `dircreate`
pub type DirCreate = FileOps<0, true>;
/// fio's `dirstat`
pub type DirStat = FileOps<1, true>;
/// fio's `dirdelete`
pub type DirDelete = FileOps<2, true>;

/// Which engine each is, by directory and operation.
const KINDS: [[Kind; 3]; 2] = [
    [Kind::FileCreate, Kind::FileStat, Kind::FileDelete],
    [Kind::DirCreate, Kind::DirStat, Kind::DirDelete],
];

impl<const OP: u8, const DIR: bool> FileOps<OP, DIR> {
    const OP: Op = match OP {
        0 => Op::Create,
        1 => Op::Stat,
        _ => Op::Delete,
    };

    /// An engine over `paths` (indexed by file number). The directory engines that
    /// stat or delete make each directory now (mode 0700; one that exists is kept).
    pub fn new(paths: &[PathBuf], stat: StatType) -> Result<Self, IoErr> {
        let paths: Vec<CString> = paths
            .iter()
            .map(|p| CString::new(p.as_os_str().as_bytes()).map_err(|_| IoErr::Errno(libc::EINVAL)))
            .collect::<Result<_, _>>()?;
        if DIR && Self::OP != Op::Create {
            for p in &paths {
                // SAFETY: p is a NUL-terminated path.
                if unsafe { libc::mkdir(p.as_ptr(), 0o700) } != 0
                    && super::last_errno() != libc::EEXIST
                {
                    return Err(IoErr::Errno(super::last_errno()));
                }
            }
        }
        Ok(FileOps {
            done: vec![false; paths.len()],
            paths,
            stat,
        })
    }

    /// The operation on path `p`: Ok, or the errno it failed with.
    fn operate(&self, p: &CString) -> Result<(), i32> {
        // SAFETY: p is a NUL-terminated path; every buffer passed is owned here.
        let r = unsafe {
            match (Self::OP, DIR) {
                (Op::Create, false) => {
                    let fd = libc::open(
                        p.as_ptr(),
                        libc::O_CREAT | libc::O_RDWR | libc::O_CLOEXEC,
                        0o600,
                    );
                    if fd >= 0 {
                        libc::close(fd);
                    }
                    fd.min(0)
                }
                (Op::Create, true) => libc::mkdir(p.as_ptr(), 0o700),
                (Op::Delete, false) => libc::unlink(p.as_ptr()),
                (Op::Delete, true) => libc::rmdir(p.as_ptr()),
                (Op::Stat, _) => self.stat(p),
            }
        };
        if r == 0 {
            Ok(())
        } else {
            Err(super::last_errno())
        }
    }

    /// stat, lstat or statx of `p`, as `stat_type` says.
    unsafe fn stat(&self, p: &CString) -> libc::c_int {
        match self.stat {
            StatType::Stat => {
                let mut st: libc::stat = std::mem::zeroed();
                libc::stat(p.as_ptr(), &mut st)
            }
            StatType::Lstat => {
                let mut st: libc::stat = std::mem::zeroed();
                libc::lstat(p.as_ptr(), &mut st)
            }
            StatType::Statx => {
                let mut sx: libc::statx = std::mem::zeroed();
                libc::statx(libc::AT_FDCWD, p.as_ptr(), 0, libc::STATX_ALL, &mut sx)
            }
        }
    }
}

impl<const OP: u8, const DIR: bool> Engine for FileOps<OP, DIR> {
    const KIND: Kind = KINDS[DIR as usize][OP as usize];
    const CAPS: super::Caps = super::Caps {
        paths: true,
        // the create engines and the directory engines own their files
        own_files: DIR || OP == 0,
        ..super::Caps::SYNC
    };
    fn depth(&self) -> usize {
        1
    }
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        let Some(done) = self.done.get(r.file).copied() else {
            return Err(IoErr::Errno(libc::EBADF));
        };
        if !done {
            self.operate(&self.paths[r.file]).map_err(IoErr::Errno)?;
            self.done[r.file] = true;
        }
        Ok(Some(r.len))
    }
    fn sync(&mut self, _file: usize, _kind: SyncKind) -> Result<(), IoErr> {
        // fio's queue syncs an open descriptor; these engines hold none
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Dir;

    fn req(file: usize) -> IoReq {
        IoReq {
            dir: Dir::Write,
            file,
            offset: 0,
            len: 4096,
            buf: std::ptr::null_mut(),
            buf_index: 0,
            ioprio: 0,
        }
    }

    #[test]
    fn each_engine_does_its_operation_once_per_file() {
        let d = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..2).map(|i| d.path().join(format!("f{i}"))).collect();
        let mut c = FileCreate::new(&paths, StatType::Stat).unwrap();
        assert_eq!(FileCreate::KIND.name(), "filecreate");
        assert_eq!(c.submit(0, &req(1)), Ok(Some(4096)));
        assert!(paths[1].is_file() && !paths[0].exists());
        let mut s = FileStat::new(&paths, StatType::Statx).unwrap();
        assert_eq!(s.submit(0, &req(1)), Ok(Some(4096)));
        assert_eq!(s.submit(0, &req(0)), Err(IoErr::Errno(libc::ENOENT)));
        let mut del = FileDelete::new(&paths, StatType::Stat).unwrap();
        assert_eq!(del.submit(0, &req(1)), Ok(Some(4096)));
        assert!(!paths[1].exists());
        // the operation is done at the first request only
        assert_eq!(del.submit(0, &req(1)), Ok(Some(4096)));
        assert_eq!(c.submit(0, &req(5)), Err(IoErr::Errno(libc::EBADF)));
    }

    #[test]
    fn directory_engines_make_stat_and_remove_directories() {
        let d = tempfile::tempdir().unwrap();
        let paths = vec![d.path().join("d0")];
        let mut c = DirCreate::new(&paths, StatType::Stat).unwrap();
        assert!(
            !paths[0].exists(),
            "dircreate makes nothing before its request"
        );
        c.submit(0, &req(0)).unwrap();
        assert!(paths[0].is_dir());
        std::fs::remove_dir(&paths[0]).unwrap();
        // dirstat and dirdelete make their directories when built (fio's setup_dirs)
        let mut s = DirStat::new(&paths, StatType::Lstat).unwrap();
        assert!(paths[0].is_dir());
        assert_eq!(s.submit(0, &req(0)), Ok(Some(4096)));
        let mut del = DirDelete::new(&paths, StatType::Stat).unwrap();
        assert_eq!(del.submit(0, &req(0)), Ok(Some(4096)));
        assert!(!paths[0].exists());
        const _: () = assert!(
            DirDelete::CAPS.own_files && !FileStat::CAPS.own_files && FileCreate::CAPS.own_files
        );
        assert_eq!(DirStat::KIND.name(), "dirstat");
    }
}
