//! Aligned I/O buffers. O_DIRECT needs buffers aligned to the device's logical block
//! size; we align everything to 4096 bytes (a page), as sysbench does.

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// Alignment of every I/O buffer, bytes.
pub const ALIGN: usize = 4096;

/// One zero-initialised, page-aligned buffer, or one starting a given number of bytes
/// past a page's start (fio's `iomem_align`: [`AlignedBuf::with_offset`]).
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
    /// bytes from the page-aligned allocation's start to the buffer's
    off: usize,
    /// the buffer's usable length
    len: usize,
}

// SAFETY: the buffer is plain memory owned by this value; sharing the pointer with the
// kernel is governed by the engines' in-flight rules.
unsafe impl Send for AlignedBuf {}
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocate `len` bytes (at least 1), zeroed, aligned to [`ALIGN`].
    pub fn new(len: usize) -> Self {
        Self::with_offset(len, 0)
    }
    /// Allocate `len` bytes (at least 1, rounded up to a multiple of [`ALIGN`]), zeroed,
    /// starting `off` bytes past a page's start: fio 3.33's `iomem_align`
    /// (`PTR_ALIGN(buf, page) + mem_align`), so a buffer O_DIRECT cannot take is
    /// refused by the kernel as fio's is.
    pub fn with_offset(len: usize, off: usize) -> Self {
        let len = len.max(1).div_ceil(ALIGN) * ALIGN;
        let size = (len + off).div_ceil(ALIGN) * ALIGN;
        let layout = Layout::from_size_align(size, ALIGN).expect("aligned layout");
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf {
            ptr,
            layout,
            off,
            len,
        }
    }
    /// Start of the buffer.
    pub fn ptr(&self) -> *mut u8 {
        // SAFETY: `off + len` bytes are allocated from `ptr`.
        unsafe { self.ptr.add(self.off) }
    }
    /// Usable length (rounded up to a multiple of [`ALIGN`]).
    pub fn len(&self) -> usize {
        self.len
    }
    /// Never empty; present for API completeness.
    pub fn is_empty(&self) -> bool {
        false
    }
    /// The buffer as a slice.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr() is valid for len bytes for the lifetime of self.
        unsafe { std::slice::from_raw_parts(self.ptr(), self.len) }
    }
    /// The buffer as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr() is valid for len bytes and uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// A fixed slab of equally sized buffers, one per in-flight slot.
pub struct Slab {
    /// the buffers, indexed by slot
    pub bufs: Vec<AlignedBuf>,
}

impl Slab {
    /// `n` buffers of `len` bytes each.
    pub fn new(n: usize, len: usize) -> Self {
        Self::with_offset(n, len, 0)
    }
    /// `n` buffers of `len` bytes each, each `off` bytes past a page's start
    /// ([`AlignedBuf::with_offset`]).
    pub fn with_offset(n: usize, len: usize, off: usize) -> Self {
        Slab {
            bufs: (0..n).map(|_| AlignedBuf::with_offset(len, off)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_and_zeroed() {
        let b = AlignedBuf::new(5000);
        assert_eq!(b.ptr() as usize % ALIGN, 0);
        assert_eq!(b.len(), 8192);
        assert!(b.as_slice().iter().all(|&x| x == 0));
    }

    #[test]
    fn an_offset_buffer_starts_past_its_page() {
        let mut b = AlignedBuf::with_offset(5000, 100);
        assert_eq!(b.ptr() as usize % ALIGN, 100);
        assert_eq!(b.len(), 8192);
        b.as_mut_slice()[8191] = 1;
        assert_eq!(b.as_slice().len(), 8192);
        assert!(b.as_slice()[..8191].iter().all(|&x| x == 0));
    }
}
