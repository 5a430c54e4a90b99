//! One private anonymous memory mapping (mmap(2) of no file, read+write), unmapped when
//! dropped: the memory of the `page_fault` engine and of fio's `lockmem` (which locks it
//! with mlock(2), run/fio/hooks.rs). Nothing is touched when it is made.

/// A private anonymous mapping of `len` bytes.
pub struct AnonMap {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is owned by this value alone; who uses its memory from which
// thread is its owner's business (each owner keeps it to one thread).
unsafe impl Send for AnonMap {}

impl AnonMap {
    /// Map `len` bytes. `Err`: the errno of the refusal (ENOMEM; EINVAL for `len` 0).
    pub fn new(len: usize) -> Result<AnonMap, i32> {
        if len == 0 {
            return Err(libc::EINVAL);
        }
        // SAFETY: a fresh anonymous mapping, checked for MAP_FAILED; unmapped in Drop.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::ENOMEM));
        }
        Ok(AnonMap { ptr: p.cast(), len })
    }

    /// The first byte of the mapping.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Its length, bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never: a mapping has at least one byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for AnonMap {
    fn drop(&mut self) {
        // SAFETY: unmapping what `new` mapped, once.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapping_is_zeroed_memory_of_its_length_and_zero_bytes_are_refused() {
        let m = AnonMap::new(3 * 4096).unwrap();
        assert_eq!(m.len(), 3 * 4096);
        // SAFETY: the mapping is len bytes, read+write, ours alone
        let s = unsafe { std::slice::from_raw_parts_mut(m.ptr(), m.len()) };
        assert!(s.iter().all(|&b| b == 0));
        s[3 * 4096 - 1] = 7;
        assert_eq!(s[3 * 4096 - 1], 7);
        assert_eq!(AnonMap::new(0).err(), Some(libc::EINVAL));
        assert_eq!(AnonMap::new(usize::MAX).err(), Some(libc::ENOMEM));
    }
}
