//! The table's memory: one zeroed, aligned block of buckets.
//!
//! This is the only `unsafe` code of the table. It exists so that a table of many gigabytes is
//! ready at once and costs memory only as the search fills it: on Linux the block is an anonymous
//! mapping, which the kernel hands out as zero pages on first touch, aligned to 2 MB and marked
//! for transparent huge pages (fewer TLB misses on the random accesses of the search); clearing
//! gives the pages back to the kernel instead of writing every byte. Elsewhere it is a zeroed
//! allocation from the global allocator, cleared by writing zeros on several threads.

use std::ops::Deref;
use std::ptr::NonNull;

/// Alignment of large tables: one huge page on x86-64 Linux.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// An owned slice of `T` in zero-initialised memory.
pub struct ZeroedSlice<T> {
    ptr: NonNull<T>,
    len: usize,
    block: Block,
}

/// Types for which the all-zero bit pattern is a valid value.
///
/// # Safety
/// Implement only for types made of integers and atomics (no references, no enums with
/// invalid zero patterns).
pub unsafe trait Zeroable {}

// SAFETY: the buckets are arrays of `AtomicU64` and `AtomicU16`, for which zero is a valid value.
unsafe impl Zeroable for super::Bucket {}

/// How the block was obtained, to give it back the same way.
#[cfg(target_os = "linux")]
struct Block {
    base: *mut libc::c_void,
    size: usize,
}

#[cfg(not(target_os = "linux"))]
struct Block {
    layout: std::alloc::Layout,
}

impl<T: Zeroable> ZeroedSlice<T> {
    /// `len` zeroed elements, or `None` if the memory cannot be had.
    pub fn new(len: usize) -> Option<Self> {
        let len = len.max(1);
        let size = std::mem::size_of::<T>().checked_mul(len)?;
        let (ptr, block) = Self::allocate(size)?;
        Some(ZeroedSlice { ptr, len, block })
    }

    #[cfg(target_os = "linux")]
    fn allocate(size: usize) -> Option<(NonNull<T>, Block)> {
        // Room to move the start to a huge-page boundary (mappings are page-aligned, which
        // already satisfies any bucket alignment).
        let mapped = size.checked_add(HUGE_PAGE)?;
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches no
        // existing memory; the result is checked before use.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let offset = (HUGE_PAGE - base as usize % HUGE_PAGE) % HUGE_PAGE;
        // SAFETY: `offset < HUGE_PAGE`, so the aligned start and the `size` bytes after it lie
        // inside the `size + HUGE_PAGE` bytes just mapped.
        let start = unsafe { base.cast::<u8>().add(offset) };
        // SAFETY: the range is inside the mapping; the advice only asks for huge pages.
        unsafe { libc::madvise(start.cast(), size, libc::MADV_HUGEPAGE) };
        let ptr = NonNull::new(start.cast::<T>())?;
        Some((ptr, Block { base, size: mapped }))
    }

    #[cfg(not(target_os = "linux"))]
    fn allocate(size: usize) -> Option<(NonNull<T>, Block)> {
        let layout = std::alloc::Layout::from_size_align(size, std::mem::align_of::<T>()).ok()?;
        // SAFETY: `layout` has a non-zero size (len >= 1 and the buckets are not zero-sized).
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        Some((NonNull::new(raw.cast::<T>())?, Block { layout }))
    }

    /// Zero every element. On Linux the pages go back to the kernel (they read as zero and cost
    /// memory again only when touched); elsewhere, or if that fails, `fallback` writes zeros.
    /// Nothing may use the slice meanwhile: the table is cleared only between searches.
    pub fn zero(&self, fallback: impl FnOnce(&[T])) {
        #[cfg(target_os = "linux")]
        {
            let size = self.len * std::mem::size_of::<T>();
            // SAFETY: the range is exactly the slice, inside a private anonymous mapping, where
            // MADV_DONTNEED makes every page read back as zeros, a valid value of `T`
            // (`Zeroable`). The elements are atomics, whose contents may change behind a shared
            // reference, and no thread accesses them during a clear.
            if unsafe { libc::madvise(self.ptr.as_ptr().cast(), size, libc::MADV_DONTNEED) } == 0 {
                return;
            }
        }
        fallback(self);
    }
}

#[cfg(all(test, target_os = "linux"))]
impl<T> ZeroedSlice<T> {
    /// The system's page size, and for each page of the slice whether it is in memory now
    /// (`mincore`): what tests of the table's residency read, exact where the process's
    /// resident size moves with every other test running beside them.
    pub fn resident_pages(&self) -> (usize, Vec<bool>) {
        // SAFETY: sysconf only reads a system constant.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let size = self.len * std::mem::size_of::<T>();
        let mut pages = vec![0u8; size.div_ceil(page)];
        // SAFETY: the range starts at the slice, which is page-aligned (huge-page aligned inside
        // the mapping, see `allocate`), and lies inside the mapping; `pages` has one byte for
        // each page of it, as mincore writes.
        let status = unsafe { libc::mincore(self.ptr.as_ptr().cast(), size, pages.as_mut_ptr()) };
        assert_eq!(status, 0, "mincore: {}", std::io::Error::last_os_error());
        (page, pages.iter().map(|page| page & 1 == 1).collect())
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
        #[cfg(target_os = "linux")]
        // SAFETY: `base` and `size` are exactly the mapping made in `allocate`, unmapped once.
        // The elements need no drop of their own (integers and atomics).
        unsafe {
            libc::munmap(self.block.base, self.block.size);
        }
        #[cfg(not(target_os = "linux"))]
        // SAFETY: the block was allocated with exactly this layout and is freed once. The
        // elements need no drop of their own (integers and atomics).
        unsafe {
            std::alloc::dealloc(self.ptr.as_ptr().cast(), self.block.layout)
        };
    }
}

// SAFETY: the slice is only ever shared (`Deref` gives `&[T]`), so it is `Send`/`Sync` exactly
// when `T` is `Sync` (the buckets hold atomics); the block's raw pointer is owned by it alone.
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
