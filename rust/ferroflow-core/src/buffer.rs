//! Tensor memory: 64-byte-aligned byte buffers, and a pool that recycles large ones.
//!
//! A training step allocates the same large tensors every time (activations,
//! gradients). Handing each back to the system allocator means the next step gets
//! fresh pages from the kernel and pays a page fault per 4 KiB on first touch — more
//! than the arithmetic of a memory-bound kernel. Like TF's BFC allocator, we keep
//! freed large buffers (by exact size, bounded in total) and reuse them.
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::collections::HashMap;
use std::ptr::NonNull;
use std::sync::LazyLock;

use parking_lot::Mutex;

/// Alignment of every dense buffer: a cache line, and enough for AVX-512 loads.
pub const ALIGN: usize = 64;

/// Buffers at least this large are recycled; smaller ones are left to the allocator's
/// own bins, which already reuse memory well.
const POOL_MIN_BYTES: usize = 1 << 16;
/// The most bytes the pool keeps idle; buffers freed beyond it go back to the system.
const POOL_MAX_BYTES: usize = 1 << 30;
/// The most idle buffers kept of any one size.
const POOL_MAX_PER_SIZE: usize = 16;

/// An owned, initialised, 64-byte-aligned byte buffer.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only hands out `&[u8]`.
unsafe impl Sync for AlignedBuf {}

/// Idle buffers by byte length.
struct Pool {
    idle: HashMap<usize, Vec<NonNull<u8>>>,
    bytes: usize,
}

// SAFETY: the pool owns the idle allocations it holds; they are plain memory.
unsafe impl Send for Pool {}

static POOL: LazyLock<Mutex<Pool>> = LazyLock::new(|| Mutex::new(Pool { idle: HashMap::new(), bytes: 0 }));

fn layout(len: usize) -> Layout {
    Layout::from_size_align(len, ALIGN).expect("tensor byte size overflows isize")
}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes.
    pub fn zeroed(len: usize) -> Self {
        if let Some(mut buf) = Self::recycled(len) {
            buf.as_mut_bytes().fill(0);
            return buf;
        }
        Self::fresh(len)
    }

    /// A buffer of `len` bytes whose contents are unspecified (zeros, or whatever a
    /// recycled buffer last held): for kernels that overwrite every byte.
    pub fn for_overwrite(len: usize) -> Self {
        Self::recycled(len).unwrap_or_else(|| Self::fresh(len))
    }

    fn fresh(len: usize) -> Self {
        if len == 0 {
            // A dangling but aligned pointer, as Vec does for empty buffers.
            return AlignedBuf { ptr: NonNull::<[u8; ALIGN]>::dangling().cast(), len: 0 };
        }
        let layout = layout(len);
        // SAFETY: layout has non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else { std::alloc::handle_alloc_error(layout) };
        AlignedBuf { ptr, len }
    }

    fn recycled(len: usize) -> Option<Self> {
        if len < POOL_MIN_BYTES {
            return None;
        }
        let mut pool = POOL.lock();
        let ptr = pool.idle.get_mut(&len)?.pop()?;
        pool.bytes -= len;
        Some(AlignedBuf { ptr, len })
    }

    /// A copy of `bytes` in an aligned buffer.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut b = Self::for_overwrite(bytes.len());
        b.as_mut_bytes().copy_from_slice(bytes);
        b
    }
    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes (or dangling with len 0) and initialised
        // (zeroed when allocated, and only ever written with bytes since).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
    /// The bytes, mutably.
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if self.len == 0 {
            return;
        }
        if self.len >= POOL_MIN_BYTES {
            let mut pool = POOL.lock();
            if pool.bytes + self.len <= POOL_MAX_BYTES {
                let idle = pool.idle.entry(self.len).or_default();
                if idle.len() < POOL_MAX_PER_SIZE {
                    idle.push(self.ptr);
                    pool.bytes += self.len;
                    return;
                }
            }
        }
        // SAFETY: allocated in `fresh` with this exact layout.
        unsafe { dealloc(self.ptr.as_ptr(), layout(self.len)) };
    }
}

impl Clone for AlignedBuf {
    fn clone(&self) -> Self {
        Self::from_bytes(self.as_bytes())
    }
}

/// Returns every idle pooled buffer to the system (tests, and callers that want the
/// memory back after a large run).
pub fn release_pooled_buffers() {
    let mut pool = POOL.lock();
    for (len, ptrs) in pool.idle.drain() {
        for ptr in ptrs {
            // SAFETY: pooled buffers were allocated in `fresh` with `layout(len)`.
            unsafe { dealloc(ptr.as_ptr(), layout(len)) };
        }
    }
    pool.bytes = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_are_reused_and_zeroed_on_request() {
        let len = POOL_MIN_BYTES * 3 + 64;
        let mut a = AlignedBuf::zeroed(len);
        a.as_mut_bytes().fill(7);
        let addr = a.as_bytes().as_ptr() as usize;
        drop(a);
        let b = AlignedBuf::zeroed(len);
        assert!(b.as_bytes().iter().all(|&v| v == 0));
        assert_eq!(b.as_bytes().as_ptr() as usize % ALIGN, 0);
        // No other test allocates this odd size, so the freed buffer comes back.
        assert_eq!(b.as_bytes().as_ptr() as usize, addr);
        drop(b);
        let c = AlignedBuf::for_overwrite(len);
        assert_eq!(c.as_bytes().as_ptr() as usize, addr);
        drop(c);
        release_pooled_buffers();
    }
}
