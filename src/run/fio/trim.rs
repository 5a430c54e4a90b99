//! Trims on block devices (fio `rw=trim|randtrim|trimwrite` with a device filename):
//! one BLKDISCARD ioctl per request, as fio's Linux `os_trim`. Files get punched holes
//! instead (see `fio_worker`). Writes to devices stay behind the block-device guard.

use crate::engine::IoErr;
use std::os::fd::RawFd;

/// Which files of `plan` are block devices, for a job that trims (empty otherwise).
pub(crate) fn block_devices(plan: &crate::run::fio::Plan) -> Vec<bool> {
    if !plan.job.rw.trims() {
        return Vec::new();
    }
    plan.files
        .iter()
        .map(|f| crate::files::dataset::is_block_device(&f.path))
        .collect()
}

/// `BLKDISCARD` = `_IO(0x12, 119)` (include/uapi/linux/fs.h).
pub const BLKDISCARD: libc::c_ulong = 0x1277;

/// Discard `len` bytes at `offset` of the block device open as `fd`. Offset and length
/// must be multiples of the device's logical block size (EINVAL otherwise); a device
/// without discard support answers EOPNOTSUPP. Retries on EINTR.
pub fn discard(fd: RawFd, offset: u64, len: u64) -> Result<(), IoErr> {
    let range: [u64; 2] = [offset, len];
    loop {
        // SAFETY: BLKDISCARD reads two u64 from the pointer, which outlives the call.
        let r = unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) };
        if r == 0 {
            return Ok(());
        }
        let e = crate::engine::last_errno();
        if e != libc::EINTR {
            return Err(IoErr::Errno(e));
        }
    }
}
