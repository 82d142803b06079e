//! Tensor memory: 64-byte-aligned byte buffers, and pools that recycle them.
//!
//! A training step allocates the same tensors every time (activations, gradients,
//! bias gradients, scalars). Handing each back to the system allocator means the
//! next step gets fresh pages from the kernel and pays a page fault per 4 KiB on first
//! touch — more than the arithmetic of a memory-bound kernel. Like TF's BFC allocator,
//! we keep freed buffers (by exact size, bounded in total) and reuse them, so a
//! steady-state step makes no allocator calls: large ones in one pool shared by all
//! threads (a batch made on a runner thread is freed on the training thread), small
//! ones in a pool per thread (no lock, and no cross-thread traffic for the many
//! small tensors of input pipelines).
use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ptr::NonNull;
use std::sync::LazyLock;

use parking_lot::Mutex;

use crate::error::{Code, Error, Result};

/// Alignment of every dense buffer: a cache line, and enough for AVX-512 loads.
pub const ALIGN: usize = 64;

/// Buffers at least this large are recycled through the shared pool; smaller ones
/// through their thread's.
const POOL_MIN_BYTES: usize = 1 << 16;
/// The most bytes one thread keeps in idle small buffers.
const LOCAL_MAX_BYTES: usize = 1 << 22;
/// The most idle small buffers one thread keeps of any one size.
const LOCAL_MAX_PER_SIZE: usize = 64;
/// The most bytes the pool keeps idle; buffers freed beyond it go back to the system.
const POOL_MAX_BYTES: usize = 1 << 30;
/// The most idle buffers kept of any one size. A loop's tape holds hundreds of
/// same-sized buffers (an LSTM-256 step over 128 time steps: ~800 of 256 KiB) that all
/// come free at the end of the step; with 16 kept, the rest went back to the system
/// and came back as fresh pages the next step (8% of that step in page clearing).
const POOL_MAX_PER_SIZE: usize = 1024;

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

/// A thread's idle small buffers by byte length (returned to the system when the
/// thread ends).
struct LocalPool {
    idle: HashMap<usize, Vec<NonNull<u8>>, foldhash::fast::FixedState>,
    bytes: usize,
}

impl Drop for LocalPool {
    fn drop(&mut self) {
        for (&len, ptrs) in &self.idle {
            for &ptr in ptrs {
                free(ptr, len);
            }
        }
    }
}

thread_local! {
    static LOCAL: RefCell<LocalPool> =
        RefCell::new(LocalPool { idle: HashMap::with_hasher(Default::default()), bytes: 0 });
}

/// Keeps the small buffer `ptr` of `len` bytes in this thread's pool; false when the
/// pool is full (or the thread is ending), and the caller frees it.
fn keep_local(ptr: NonNull<u8>, len: usize) -> bool {
    LOCAL
        .try_with(|local| {
            let Ok(mut local) = local.try_borrow_mut() else { return false };
            if local.bytes + len > LOCAL_MAX_BYTES {
                return false;
            }
            let idle = local.idle.entry(len).or_default();
            if idle.len() >= LOCAL_MAX_PER_SIZE {
                return false;
            }
            idle.push(ptr);
            local.bytes += len;
            true
        })
        .unwrap_or(false)
}

/// A small buffer of `len` bytes from this thread's pool.
fn take_local(len: usize) -> Option<NonNull<u8>> {
    LOCAL
        .try_with(|local| {
            let mut local = local.try_borrow_mut().ok()?;
            let ptr = local.idle.get_mut(&len)?.pop()?;
            local.bytes -= len;
            Some(ptr)
        })
        .ok()
        .flatten()
}

/// The layout of a buffer of `len` bytes, or `None` when `len` is too large for any
/// allocation (over `isize::MAX` once rounded up to the alignment).
fn layout(len: usize) -> Option<Layout> {
    Layout::from_size_align(len, ALIGN).ok()
}

/// The error for an allocation of `len` bytes that the system refused (or that no
/// system could grant). Callers that know the tensor's shape and type say so instead.
pub fn alloc_failed(len: usize) -> Error {
    Error::new(Code::ResourceExhausted, format!("OOM when allocating {len} bytes on the CPU"))
}

/// A `Vec` with room for `n` elements, or `ResourceExhausted` when the memory cannot
/// be had. For kernels that assemble an output whose size came from the user's
/// values: `Vec::with_capacity` would abort the process instead.
pub fn try_vec<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| alloc_failed(n.saturating_mul(std::mem::size_of::<T>())))?;
    Ok(v)
}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes; `ResourceExhausted` when the memory cannot be had
    /// (never an abort: the size may come from a user's value).
    pub fn zeroed(len: usize) -> Result<Self> {
        if let Some(mut buf) = Self::recycled(len) {
            buf.as_mut_bytes().fill(0);
            return Ok(buf);
        }
        Self::fresh(len)
    }

    /// A buffer of `len` bytes whose contents are unspecified (zeros, or whatever a
    /// recycled buffer last held): for kernels that overwrite every byte.
    pub fn for_overwrite(len: usize) -> Result<Self> {
        match Self::recycled(len) {
            Some(buf) => Ok(buf),
            None => Self::fresh(len),
        }
    }

    fn fresh(len: usize) -> Result<Self> {
        if len == 0 {
            // A dangling but aligned pointer, as Vec does for empty buffers.
            return Ok(Self::empty());
        }
        let layout = layout(len).ok_or_else(|| alloc_failed(len))?;
        // SAFETY: layout has non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or_else(|| alloc_failed(len))?;
        Ok(AlignedBuf { ptr, len })
    }

    /// An empty buffer (no allocation).
    pub fn empty() -> Self {
        AlignedBuf { ptr: NonNull::<[u8; ALIGN]>::dangling().cast(), len: 0 }
    }

    fn recycled(len: usize) -> Option<Self> {
        if len == 0 {
            return None;
        }
        if len < POOL_MIN_BYTES {
            return take_local(len).map(|ptr| AlignedBuf { ptr, len });
        }
        let mut pool = POOL.lock();
        let ptr = pool.idle.get_mut(&len)?.pop()?;
        pool.bytes -= len;
        Some(AlignedBuf { ptr, len })
    }

    /// A zeroed buffer of at most 64 bytes (a scalar): allocations this small only
    /// fail when the process is out of memory anyway, so this one aborts then.
    pub fn small(len: usize) -> Self {
        debug_assert!(len <= ALIGN);
        match Self::zeroed(len) {
            Ok(b) => b,
            Err(_) => std::alloc::handle_alloc_error(Layout::new::<[u8; ALIGN]>()),
        }
    }

    /// A copy of `bytes` in an aligned buffer.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut b = Self::for_overwrite(bytes.len())?;
        b.as_mut_bytes().copy_from_slice(bytes);
        Ok(b)
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
        if self.len < POOL_MIN_BYTES {
            if keep_local(self.ptr, self.len) {
                return;
            }
        } else {
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
        free(self.ptr, self.len);
    }
}

/// Returns a buffer allocated by `fresh` to the system.
fn free(ptr: NonNull<u8>, len: usize) {
    // `fresh` allocated it with this layout, so it exists.
    if let Some(layout) = layout(len) {
        // SAFETY: allocated in `fresh` with this exact layout.
        unsafe { dealloc(ptr.as_ptr(), layout) };
    }
}

/// Returns every idle pooled buffer to the system: the shared pool's and this thread's
/// (tests, and callers that want the memory back after a large run).
pub fn release_pooled_buffers() {
    let mut pool = POOL.lock();
    for (len, ptrs) in pool.idle.drain() {
        for ptr in ptrs {
            free(ptr, len);
        }
    }
    pool.bytes = 0;
    let _ = LOCAL.try_with(|local| {
        if let Ok(mut local) = local.try_borrow_mut() {
            for (len, ptrs) in local.idle.drain() {
                for ptr in ptrs {
                    free(ptr, len);
                }
            }
            local.bytes = 0;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_buffers_are_reused_and_zeroed_on_request() {
        let len = POOL_MIN_BYTES * 3 + 64;
        let mut a = AlignedBuf::zeroed(len).unwrap();
        a.as_mut_bytes().fill(7);
        let addr = a.as_bytes().as_ptr() as usize;
        drop(a);
        let b = AlignedBuf::zeroed(len).unwrap();
        assert!(b.as_bytes().iter().all(|&v| v == 0));
        assert_eq!(b.as_bytes().as_ptr() as usize % ALIGN, 0);
        // No other test allocates this odd size, so the freed buffer comes back.
        assert_eq!(b.as_bytes().as_ptr() as usize, addr);
        drop(b);
        let c = AlignedBuf::for_overwrite(len).unwrap();
        assert_eq!(c.as_bytes().as_ptr() as usize, addr);
        drop(c);
        release_pooled_buffers();
    }

    #[test]
    fn impossible_allocations_are_errors_not_aborts() {
        for len in [usize::MAX, isize::MAX as usize, 1 << 62] {
            let e = AlignedBuf::zeroed(len).err().unwrap();
            assert_eq!(e.code, Code::ResourceExhausted);
            assert!(AlignedBuf::for_overwrite(len).is_err());
        }
        assert!(try_vec::<u64>(usize::MAX / 4).is_err());
        assert_eq!(try_vec::<u8>(10).unwrap().capacity(), 10);
    }
}
