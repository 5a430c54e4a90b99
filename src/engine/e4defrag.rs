//! `e4defrag`: fio's engine that simulates defragmentation on ext4. Each write request
//! becomes an EXT4_IOC_MOVE_EXT ioctl that moves the request's blocks of the job's file
//! onto the same blocks of a donor file (`donorname`, under `directory`), the way
//! e4defrag(8) rewrites a file into fresh extents; the data does not change, its layout
//! does. Reads are refused (EINVAL), as fio's engine refuses anything but writes.
//!
//! The donor is opened (created) write-only when the engine starts. With `inplace=0`
//! (the default) it is allocated once over the job's file range (fallocate mode 0);
//! with `inplace=1` each request allocates the donor's range first and truncates the
//! donor to 0 after the move. A request moves `ceil((offset+len)/bsz) - offset/bsz`
//! blocks of the donor's st_blksize; fewer moved than asked complete short (none at
//! all: EINVAL, the range lies past the end of a file). Everything completes inside
//! `submit`. Both files must be on the same ext4 file system (elsewhere the ioctl
//! fails: ENOTTY or EOPNOTSUPP).

use super::{sync_fd, Dir, Engine, IoErr, IoReq, SyncKind};
use crate::util::engines::Kind;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;

/// `struct move_extent` of linux/ext4.h.
#[repr(C)]
#[derive(Default)]
struct MoveExtent {
    reserved: u32,
    donor_fd: u32,
    orig_start: u64,
    donor_start: u64,
    len: u64,
    moved_len: u64,
}

/// `_IOWR('f', 15, struct move_extent)`.
const EXT4_IOC_MOVE_EXT: libc::c_ulong = (3 << 30)
    | ((std::mem::size_of::<MoveExtent>() as libc::c_ulong) << 16)
    | ((b'f' as libc::c_ulong) << 8)
    | 15;

/// What the engine needs besides the job's files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Donor {
    /// the donor file (`directory`/`donorname`)
    pub path: std::path::PathBuf,
    /// `inplace=1`: allocate and free the donor's range around each move
    pub inplace: bool,
    /// `inplace=0`: the range allocated once (the job's start offset, its length)
    pub range: (u64, u64),
}

/// EXT4_IOC_MOVE_EXT per write.
pub struct E4Defrag {
    fds: Vec<RawFd>,
    donor: OwnedFd,
    /// the donor's st_blksize: the unit of the ioctl
    bsz: u64,
    inplace: bool,
}

fn errno() -> IoErr {
    IoErr::Errno(super::last_errno())
}

impl E4Defrag {
    /// Engine over `fds` (indexed by file number; the caller keeps them open) moving
    /// onto `donor`, created and (without inplace) allocated here.
    pub fn new(fds: Vec<RawFd>, donor: &Donor) -> Result<Self, IoErr> {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(Path::new(&donor.path))
            .map_err(|e| IoErr::Errno(e.raw_os_error().unwrap_or(libc::EIO)))?;
        let fd: OwnedFd = f.into();
        if !donor.inplace {
            let (start, len) = donor.range;
            // SAFETY: fallocate on the descriptor just opened.
            let r = unsafe {
                libc::fallocate(fd.as_raw_fd(), 0, start as libc::off_t, len as libc::off_t)
            };
            if r != 0 {
                return Err(errno());
            }
        }
        // SAFETY: fstat into a zeroed stat on the descriptor just opened.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return Err(errno());
        }
        Ok(E4Defrag {
            fds,
            donor: fd,
            bsz: (st.st_blksize as u64).max(1),
            inplace: donor.inplace,
        })
    }

    /// The ioctl for `len` bytes at `offset` of `fd`: bytes moved, or the errno.
    fn move_range(&self, fd: RawFd, offset: u64, len: u64) -> Result<u64, IoErr> {
        let bsz = self.bsz;
        let orig_start = offset / bsz;
        let mut me = MoveExtent {
            donor_fd: self.donor.as_raw_fd() as u32,
            orig_start,
            donor_start: orig_start,
            len: (offset + len).div_ceil(bsz) - orig_start,
            ..MoveExtent::default()
        };
        // SAFETY: EXT4_IOC_MOVE_EXT reads and writes the move_extent it is given.
        let r = unsafe { libc::ioctl(fd, EXT4_IOC_MOVE_EXT as _, &mut me as *mut MoveExtent) };
        if r != 0 {
            return Err(errno());
        }
        Ok((me.moved_len * bsz).min(len))
    }
}

impl Engine for E4Defrag {
    const KIND: Kind = Kind::E4Defrag;
    const CAPS: super::Caps = super::Caps {
        needs_data: true,
        ..super::Caps::SYNC
    };
    fn depth(&self) -> usize {
        1
    }
    fn submit(&mut self, _slot: usize, r: &IoReq) -> Result<Option<usize>, IoErr> {
        if r.dir != Dir::Write {
            return Err(IoErr::Errno(libc::EINVAL));
        }
        let donor = self.donor.as_raw_fd();
        let len = r.len as u64;
        if self.inplace {
            // SAFETY: fallocate on the donor this engine owns.
            if unsafe { libc::fallocate(donor, 0, r.offset as libc::off_t, len as libc::off_t) }
                != 0
            {
                return Err(errno());
            }
        }
        let moved = self.move_range(self.fds[r.file], r.offset, len);
        if self.inplace {
            // SAFETY: ftruncate on the donor this engine owns.
            if unsafe { libc::ftruncate(donor, 0) } != 0 && moved.is_ok() {
                return Err(errno());
            }
        }
        match moved? {
            // nothing moved: the range is past the end of a file (fio: EINVAL)
            0 => Err(IoErr::Errno(libc::EINVAL)),
            n => Ok(Some(n as usize)),
        }
    }
    fn sync(&mut self, file: usize, kind: SyncKind) -> Result<(), IoErr> {
        sync_fd(self.fds[file], kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ioctl_number_is_ext4s() {
        // linux/ext4.h: EXT4_IOC_MOVE_EXT = _IOWR('f', 15, struct move_extent), 40 bytes
        assert_eq!(std::mem::size_of::<MoveExtent>(), 40);
        assert_eq!(EXT4_IOC_MOVE_EXT, 0xC028_660F);
    }

    fn req(dir: Dir, offset: u64, len: usize) -> IoReq {
        IoReq::bufferless(dir, offset, len)
    }

    /// The directory is on ext4 (statfs magic EXT4_SUPER_MAGIC).
    fn on_ext4(p: &Path) -> bool {
        // SAFETY: statfs into a zeroed struct on a path that exists.
        let mut s: libc::statfs = unsafe { std::mem::zeroed() };
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        unsafe { libc::statfs(c.as_ptr(), &mut s) == 0 && s.f_type == 0xEF53 }
    }

    /// On ext4 a write moves the blocks and keeps the data; elsewhere the ioctl is an
    /// error. The directory is tmpfs's when /dev/shm is there: a root filesystem may
    /// refuse the ioctl for its own reasons (this VM's ext4 answers EPERM), so the moves
    /// on ext4 are checked on an ext4 of its own, made on a loop device, by
    /// `tests/it/run/nodata.rs` `e4defrag_moves_every_block_and_keeps_the_data`.
    #[test]
    fn a_write_moves_the_blocks_to_the_donor_and_keeps_the_data() {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        let d = tempfile::tempdir_in("/dev/shm")
            .or_else(|_| tempfile::tempdir())
            .unwrap();
        let path = d.path().join("orig");
        let data: Vec<u8> = (0..256 * 1024u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        f.write_all(&data).unwrap();
        f.sync_all().unwrap();
        for inplace in [false, true] {
            // the ioctl fails EBUSY on pages it cannot release: start from a dropped
            // cache, as a job does (invalidate=1)
            // SAFETY: posix_fadvise on the file just written.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            let donor = Donor {
                path: d.path().join("donor"),
                inplace,
                range: (0, data.len() as u64),
            };
            let mut e = E4Defrag::new(vec![f.as_raw_fd()], &donor).unwrap();
            assert_eq!(
                e.submit(0, &req(Dir::Read, 0, 4096)),
                Err(IoErr::Errno(libc::EINVAL))
            );
            let r = e.submit(0, &req(Dir::Write, 65536, 32768));
            if !on_ext4(d.path()) {
                // elsewhere the ioctl is not there
                assert!(matches!(r, Err(IoErr::Errno(_))), "{r:?}");
                return;
            }
            assert_eq!(r, Ok(Some(32768)), "inplace={inplace}");
            // past the end of the file nothing moves: EINVAL, as fio
            let past = e.submit(0, &req(Dir::Write, 1 << 20, 4096));
            assert!(matches!(past, Err(IoErr::Errno(_))), "{past:?}");
            if inplace {
                let m = std::fs::metadata(&donor.path).unwrap();
                assert_eq!(m.len(), 0, "inplace truncates the donor after each move");
            }
            assert_eq!(std::fs::read(&path).unwrap(), data, "the data is unchanged");
        }
    }
}
