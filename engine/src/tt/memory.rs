//! The table's memory: one zeroed, aligned allocation of buckets.
//!
//! This is the only `unsafe` code of the table. It exists for two measured reasons: a zeroed
//! allocation is handed out by the OS lazily (allocating 64 GB takes milliseconds instead of
//! the seconds needed to write every byte), and on Linux the block is aligned to 2 MB and marked
//! for transparent huge pages, which cuts TLB misses on the random accesses of the search.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ops::Deref;
use std::ptr::NonNull;

/// Alignment of large tables: one huge page on x86-64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// An owned slice of `T` in zero-initialised memory.
pub struct ZeroedSlice<T> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
}

/// Types for which the all-zero bit pattern is a valid value.
///
/// # Safety
/// Implement only for types made of integers and atomics (no references, no enums with
/// invalid zero patterns).
pub unsafe trait Zeroable {}

// SAFETY: the buckets are arrays of `AtomicU64` and `AtomicU16`, for which zero is a valid value.
unsafe impl Zeroable for super::Bucket {}

impl<T: Zeroable> ZeroedSlice<T> {
    /// `len` zeroed elements, or `None` if the memory cannot be had.
    pub fn new(len: usize) -> Option<Self> {
        let len = len.max(1);
        let size = std::mem::size_of::<T>().checked_mul(len)?;
        let align = if size >= HUGE_PAGE { HUGE_PAGE } else { std::mem::align_of::<T>() };
        let layout = Layout::from_size_align(size, align.max(std::mem::align_of::<T>())).ok()?;
        // SAFETY: `layout` has a non-zero size (len >= 1 and the buckets are not zero-sized).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw.cast::<T>())?;
        #[cfg(target_os = "linux")]
        if size >= HUGE_PAGE {
            // SAFETY: the range is exactly the block just allocated; madvise only gives the
            // kernel a hint about it and cannot invalidate it.
            unsafe { libc::madvise(raw.cast(), size, libc::MADV_HUGEPAGE) };
        }
        Some(ZeroedSlice { ptr, len, layout })
    }
}

impl<T> Deref for ZeroedSlice<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `len` initialised (zeroed, `Zeroable`) elements that live as
        // long as `self`; only shared references are handed out.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for ZeroedSlice<T> {
    fn drop(&mut self) {
        // SAFETY: the block was allocated with exactly this layout and is freed once. The
        // elements need no drop of their own (integers and atomics).
        unsafe { dealloc(self.ptr.as_ptr().cast(), self.layout) };
    }
}

// SAFETY: the slice is only ever shared (`Deref` gives `&[T]`), so it is `Send`/`Sync` exactly
// when `T` is `Sync` (the buckets hold atomics).
unsafe impl<T: Sync> Send for ZeroedSlice<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for ZeroedSlice<T> {}

/// Ask the CPU to bring the cache line holding `value` closer (a hint, no effect on results).
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetching is a hint with no architectural effect; the pointer comes from a
        // live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
