//! Matrix multiplication. float32/float64 go through the `gemm` crate (runtime
//! AVX2/AVX-512/NEON dispatch, strided operands so transposes are free, rayon
//! threads from the session's intra-op pool for large products); float16 multiplies
//! in float32 and rounds each output once; integer types
//! use a plain cache-friendly loop.
use gemm::Parallelism;

use super::num::Num;
use super::{ExecEnv, KernelBuild, OpContext, OpKernel};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// Below this many multiply-adds a product runs on the calling thread. Measured on the
/// 2-vCPU machines (AVX-512): two column blocks on two threads take a 128x784x256
/// product from 0.209 to 0.128 ms and 128x256x256 from 0.069 to 0.058 ms, while at
/// 1-3M multiply-adds (64x128x128, 128x128x128, 32x784x128) the split loses 10-60%
/// to the wake-up; 256x256x64 (4.2M) is about even.
const PARALLEL_MIN_FLOPS: usize = 1 << 22;

/// `op(a) @ op(b)` for rank-2 tensors, where `op` transposes when asked.
pub fn matmul(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool, env: &ExecEnv) -> Result<Tensor> {
    if matches!(a.dtype(), DType::Float16 | DType::BFloat16) && a.dtype() == b.dtype() {
        // Half and bfloat16 multiply in float and round each output once.
        let wide = |t: &Tensor| crate::kernels::array::cast(t, DType::Float32);
        let out = matmul(&wide(a)?, &wide(b)?, transpose_a, transpose_b, env)?;
        return crate::kernels::array::cast(&out, a.dtype());
    }
    let dims = Dims::of(a, b, transpose_a, transpose_b)?;
    let (m, n, k) = (dims.m, dims.n, dims.k);
    // gemm overwrites its output (it does not read it); the integer loop accumulates.
    let mut out = if a.dtype().is_floating() && k > 0 {
        Tensor::for_overwrite(a.dtype(), &[m, n])?
    } else {
        Tensor::zeros(a.dtype(), &[m, n])?
    };
    if m == 0 || n == 0 || k == 0 {
        return Ok(out);
    }
    match a.dtype() {
        DType::Float32 => gemm_float::<f32>(out.as_mut_slice()?, a, b, dims, false, env)?,
        DType::Float64 => gemm_float::<f64>(out.as_mut_slice()?, a, b, dims, false, env)?,
        DType::Int32 => loop_matmul::<i32>(&mut out, a, b, dims)?,
        DType::Int64 => loop_matmul::<i64>(&mut out, a, b, dims)?,
        DType::Complex64 => gemm_complex::<f32>(&mut out, a, b, dims)?,
        DType::Complex128 => gemm_complex::<f64>(&mut out, a, b, dims)?,
        d => ff_bail!(InvalidArgument, "MatMul does not support {d}"),
    }
    Ok(out)
}

/// `acc + op(a) @ op(b)`: the product added into `acc`'s buffer (in place when that is
/// unique) by gemm itself, with no product tensor and no second pass. An `acc` that is
/// not an `[m, n]` float32/float64 matrix of the operands' type is added with
/// broadcasting after the product, as `Add` would. The plan's remapper forms it from
/// a `MatMul` read only by an `Add` (a loop gradient's accumulator, `acc + x^T dy`).
pub fn matmul_add(
    acc: Tensor,
    a: &Tensor,
    b: &Tensor,
    transpose_a: bool,
    transpose_b: bool,
    env: &ExecEnv,
) -> Result<Tensor> {
    let dims = Dims::of(a, b, transpose_a, transpose_b)?;
    let fits = acc.shape() == [dims.m, dims.n]
        && acc.dtype() == a.dtype()
        && a.dtype() == b.dtype()
        && matches!(a.dtype(), DType::Float32 | DType::Float64);
    if !fits {
        let product = matmul(a, b, transpose_a, transpose_b, env)?;
        return crate::kernels::math::add(acc, product, env);
    }
    let mut out = acc;
    if dims.m > 0 && dims.n > 0 && dims.k > 0 {
        match a.dtype() {
            DType::Float32 => gemm_float::<f32>(out.as_mut_slice()?, a, b, dims, true, env)?,
            _ => gemm_float::<f64>(out.as_mut_slice()?, a, b, dims, true, env)?,
        }
    }
    Ok(out)
}

#[derive(Clone, Copy)]
struct Dims {
    m: usize,
    n: usize,
    k: usize,
    a_rs: usize,
    a_cs: usize,
    b_rs: usize,
    b_cs: usize,
}

impl Dims {
    /// The product's sizes and the operands' element strides (row, column) over their
    /// row-major buffers; TF's errors for non-matrices and mismatched inner sizes.
    fn of(a: &Tensor, b: &Tensor, transpose_a: bool, transpose_b: bool) -> Result<Dims> {
        let (sa, sb) = (a.shape(), b.shape());
        if sa.len() != 2 || sb.len() != 2 {
            ff_bail!(InvalidArgument, "In[0] and In[1] must be matrices: {} {}", fmt_shape(sa), fmt_shape(sb));
        }
        let (m, k) = if transpose_a { (sa[1], sa[0]) } else { (sa[0], sa[1]) };
        let (k2, n) = if transpose_b { (sb[1], sb[0]) } else { (sb[0], sb[1]) };
        if k != k2 {
            ff_bail!(InvalidArgument, "Matrix size-incompatible: In[0]: {}, In[1]: {}", fmt_shape(sa), fmt_shape(sb));
        }
        let (a_rs, a_cs) = if transpose_a { (1, m) } else { (k, 1) };
        let (b_rs, b_cs) = if transpose_b { (1, k) } else { (n, 1) };
        Ok(Dims { m, n, k, a_rs, a_cs, b_rs, b_cs })
    }
}

/// A raw output pointer handed to the threads that fill disjoint column blocks.
#[derive(Clone, Copy)]
struct OutPtr<T>(*mut T);
// SAFETY: each thread writes a disjoint set of columns through the pointer, and the
// scope that spawns them outlives every write.
unsafe impl<T> Send for OutPtr<T> {}
// SAFETY: as above; the pointer itself is only copied.
unsafe impl<T> Sync for OutPtr<T> {}

impl<T> OutPtr<T> {
    /// The pointer `n` elements on (a method, so that closures capture the `Sync`
    /// wrapper rather than its raw field).
    fn offset(self, n: usize) -> *mut T {
        self.0.wrapping_add(n)
    }
}

/// One single-threaded gemm call computing columns `cols` of the product.
///
/// # Safety
/// `dst` must point to the m*n row-major output, and no other thread may write
/// columns `cols` at the same time.
#[allow(clippy::cast_possible_wrap)]
unsafe fn gemm_cols<T: Element + Num>(
    dst: OutPtr<T>,
    x: &[T],
    y: &[T],
    d: Dims,
    cols: std::ops::Range<usize>,
    accumulate: bool,
) {
    let n = cols.len();
    if n == 0 {
        return;
    }
    // SAFETY: `x` holds m*k elements with strides (a_rs, a_cs); `y` holds k*n_total
    // elements with strides (b_rs, b_cs), so the block starting at column `cols.start`
    // is in bounds for n columns; the caller guarantees `dst` and exclusive columns;
    // T is f32 or f64, which gemm supports.
    unsafe {
        gemm::gemm(
            d.m,
            n,
            d.k,
            dst.0.add(cols.start),
            1,
            d.n as isize,
            accumulate,
            x.as_ptr(),
            d.a_cs as isize,
            d.a_rs as isize,
            y.as_ptr().add(cols.start * d.b_cs),
            d.b_cs as isize,
            d.b_rs as isize,
            T::ONE,
            T::ONE,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}

/// `dst (+)= op(a) @ op(b)` into the row-major `[m, n]` `dst` (added to it with
/// `accumulate`), in column blocks on the intra-op pool when the product is large.
fn gemm_float<T: Element + Num>(
    dst: &mut [T],
    a: &Tensor,
    b: &Tensor,
    d: Dims,
    accumulate: bool,
    env: &ExecEnv,
) -> Result<()> {
    gemm_slices(dst, a.as_slice::<T>()?, b.as_slice::<T>()?, d, accumulate, env)
}

/// [`gemm_float`] on the operands' row-major elements.
fn gemm_slices<T: Element + Num>(
    dst: &mut [T],
    x: &[T],
    y: &[T],
    d: Dims,
    accumulate: bool,
    env: &ExecEnv,
) -> Result<()> {
    if turns_around(&d) {
        return gemm_turned(dst, x, y, d, accumulate, env);
    }
    let dst = OutPtr(dst.as_mut_ptr());
    let threads = env.intra_threads().min(d.n);
    if threads > 1 && d.m * d.n * d.k >= PARALLEL_MIN_FLOPS {
        // One column block per thread, each an independent single-threaded gemm.
        let per = d.n.div_ceil(threads);
        env.run_pieces(d.n.div_ceil(per), |i| {
            let cols = i * per..((i + 1) * per).min(d.n);
            // SAFETY: the column blocks are disjoint.
            unsafe { gemm_cols(dst, x, y, d, cols, accumulate) }
        });
    } else {
        // SAFETY: a single call owns every column.
        unsafe { gemm_cols(dst, x, y, d, 0..d.n, accumulate) }
    }
    Ok(())
}

/// Whether a product runs faster turned around (see [`gemm_turned`]). gemm works on a
/// column-major output; a row-major one it treats as the transposed product, whose
/// left operand is then `b` transposed. When `b` is stored transposed (`transpose_b`,
/// as every dense layer's input gradient `dy @ w^T` is), that left operand is
/// row-major and gemm packs its `n * k` elements with a scalar gather, work that only
/// `m` output rows share. Turned around, the copies are `m * k` elements of `a` (none
/// when `a` is stored transposed too) and the `m * n` outputs, so it wins when those
/// are fewer. Measured on the AVX-512 VMs, one thread, float32, direct vs turned:
/// `[64,1024] x [320,1024]^T` (an LSTM-256 step's input gradient) 1318 vs 422 us,
/// `[32,1024] x [1024,1024]^T` 3602 vs 651, `[128,1024] x [1024,1024]^T` 5380 vs 2739,
/// `[100,4096] x [256,4096]^T` 4817 vs 2447, `[8,256] x [256,256]^T` 63 vs 23; and the
/// other way, `[400,10000] x [200,10000]^T` (a softmax layer's) 16.3 vs 22.2 ms,
/// `[400,1000] x [200,1000]^T` 1.62 vs 1.76 ms, `[64,64] x [1024,64]^T` 94 vs 118 us.
fn turns_around(d: &Dims) -> bool {
    let a_copy = if d.a_rs == 1 { 0 } else { d.m * d.k };
    d.b_rs == 1 && d.b_cs != 1 && d.m > 1 && d.n > 1 && a_copy + d.m * d.n < d.n * d.k
}

/// `op(a) @ op(b)` into the row-major `dst` as gemm computes it fastest when `b` is
/// stored transposed: `a` copied column-major (unless it already is), the product
/// written column-major into scratch, then transposed into `dst`. The copies are
/// `m * (k + n)` elements against `m * n * k` multiply-adds. Scratch memory that
/// cannot be had is `ResourceExhausted`.
#[allow(clippy::cast_possible_wrap)]
fn gemm_turned<T: Element + Num>(
    dst: &mut [T],
    x: &[T],
    y: &[T],
    d: Dims,
    accumulate: bool,
    env: &ExecEnv,
) -> Result<()> {
    let (m, n, k) = (d.m, d.n, d.k);
    // Scratch from the recycling pool, unzeroed: every element is written first.
    let scratch = |rows: usize, cols: usize| Tensor::for_overwrite(T::DTYPE, &[rows, cols]);
    // Element (i, p) of op(a) at `lhs[i + p * m]`.
    let mut copied = None;
    let lhs: &[T] = if d.a_rs == 1 && d.a_cs == m {
        x
    } else {
        let at = copied.insert(scratch(k, m)?).as_mut_slice::<T>()?;
        env.for_each_chunk(at, COPY_MIN_CHUNK, m, |off, chunk| {
            let p0 = off / m;
            copy_tiles(chunk, m, &x[p0 * d.a_cs..], d.a_cs, d.a_rs, chunk.len() / m, m);
        });
        at
    };
    // Element (i, j) of the product at `tmp[i + j * m]`, one column block per thread.
    let mut tmp_t = scratch(n, m)?;
    let tmp = tmp_t.as_mut_slice::<T>()?;
    let threads = if m * n * k >= PARALLEL_MIN_FLOPS { env.intra_threads().min(n) } else { 1 };
    let per = n.div_ceil(threads.max(1));
    let out = OutPtr(tmp.as_mut_ptr());
    env.run_pieces(n.div_ceil(per), |i| {
        let cols = i * per..((i + 1) * per).min(n);
        // SAFETY: `lhs` holds the m*k column-major copy of op(a); column `cols.start` of
        // op(b) and the `cols.len()` after it are within `y` (strides b_rs, b_cs); the
        // column blocks of `tmp` are disjoint; T is f32 or f64, which gemm supports.
        unsafe {
            gemm::gemm(
                m,
                cols.len(),
                k,
                out.offset(cols.start * m),
                m as isize,
                1,
                false,
                lhs.as_ptr(),
                m as isize,
                1,
                y.as_ptr().add(cols.start * d.b_cs),
                d.b_cs as isize,
                d.b_rs as isize,
                T::ZERO,
                T::ONE,
                false,
                false,
                false,
                Parallelism::None,
            );
        }
    });
    env.for_each_chunk(dst, COPY_MIN_CHUNK, n, |off, chunk| {
        let i0 = off / n;
        if accumulate {
            add_tiles(chunk, n, &tmp[i0..], 1, m, chunk.len() / n, n);
        } else {
            copy_tiles(chunk, n, &tmp[i0..], 1, m, chunk.len() / n, n);
        }
    });
    Ok(())
}

/// Elements below which [`gemm_turned`]'s copies run on one thread.
const COPY_MIN_CHUNK: usize = 1 << 15;

/// `dst[r * dst_stride + c] = src[r * rs + c * cs]` for a `rows x cols` block, in 8x8
/// tiles so that a transposing copy reads and writes a few cache lines at a time.
fn copy_tiles<T: Copy>(dst: &mut [T], dst_stride: usize, src: &[T], rs: usize, cs: usize, rows: usize, cols: usize) {
    for_tiles(dst, dst_stride, src, rs, cs, rows, cols, |o, v| *o = v);
}

/// As [`copy_tiles`], adding to `dst`.
fn add_tiles<T: Num>(dst: &mut [T], dst_stride: usize, src: &[T], rs: usize, cs: usize, rows: usize, cols: usize) {
    for_tiles(dst, dst_stride, src, rs, cs, rows, cols, |o, v| *o = o.add(v));
}

#[allow(clippy::too_many_arguments)]
fn for_tiles<T: Copy>(
    dst: &mut [T],
    dst_stride: usize,
    src: &[T],
    rs: usize,
    cs: usize,
    rows: usize,
    cols: usize,
    f: impl Fn(&mut T, T),
) {
    const TILE: usize = 8;
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            for r in r0..(r0 + TILE).min(rows) {
                let row = &mut dst[r * dst_stride..][c0..(c0 + TILE).min(cols)];
                for (c, o) in (c0..).zip(row) {
                    f(o, src[r * rs + c * cs]);
                }
            }
        }
    }
}

/// A row-major matrix operand: its elements, shape `rows x cols` as stored, and
/// whether the product uses its transpose.
#[derive(Clone, Copy)]
pub(crate) struct MatRef<'a, T> {
    /// Row-major elements.
    pub data: &'a [T],
    /// Stored rows.
    pub rows: usize,
    /// Stored columns.
    pub cols: usize,
    /// Use the transpose in the product.
    pub transpose: bool,
}

impl<'a, T> MatRef<'a, T> {
    /// The first `rows * cols` elements of `data` as a row-major `rows x cols` matrix
    /// (a time step's rows of a sequence, the top rows of a weight matrix).
    ///
    /// # Panics
    /// If `data` is shorter (a kernel bug, reported as an `InternalError`).
    pub(crate) fn leading(data: &'a [T], rows: usize, cols: usize, transpose: bool) -> MatRef<'a, T> {
        MatRef { data: &data[..rows * cols], rows, cols, transpose }
    }

    /// Shape after the optional transpose.
    fn dims(&self) -> (usize, usize) {
        if self.transpose { (self.cols, self.rows) } else { (self.rows, self.cols) }
    }
    /// The operand as used, by its strides.
    fn strided(&self) -> Strided<'_, T> {
        let ((rows, cols), (row_stride, col_stride)) = if self.transpose {
            ((self.cols, self.rows), (1, self.cols))
        } else {
            ((self.rows, self.cols), (self.cols, 1))
        };
        Strided { data: self.data, rows, cols, row_stride, col_stride }
    }
}

/// `dst (+)= op(a) @ op(b)` on row-major slices as `MatMul` computes it: float32 and
/// float64 on the intra-op pool when the product is large (and turned around when that
/// is cheaper, see [`turns_around`]), 16-bit floats in float32 on this thread. The
/// building block of kernels that run a few large products over views of their
/// tensors (`BlockLSTM`'s input and weight products over all time steps).
///
/// # Panics
/// If the operand shapes or slice lengths disagree (a kernel bug, caught and reported
/// as an `InternalError` by the executor).
pub(crate) fn gemm_pooled<T: Element + Num>(
    dst: &mut [T],
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    accumulate: bool,
    env: &ExecEnv,
) -> Result<()> {
    let ((m, k), (k2, n)) = (a.dims(), b.dims());
    assert!(k == k2 && dst.len() == m * n && a.data.len() == a.rows * a.cols && b.data.len() == b.rows * b.cols);
    if !matches!(T::DTYPE, DType::Float32 | DType::Float64) || m == 0 || n == 0 || k == 0 {
        gemm_into(dst, a, b, accumulate);
        return Ok(());
    }
    let (a_rs, a_cs) = if a.transpose { (1, a.cols) } else { (a.cols, 1) };
    let (b_rs, b_cs) = if b.transpose { (1, b.cols) } else { (b.cols, 1) };
    gemm_slices(dst, a.data, b.data, Dims { m, n, k, a_rs, a_cs, b_rs, b_cs }, accumulate, env)
}

/// `dst (+)= op(a) @ op(b)` on row-major slices, on the calling thread: the building
/// block of kernels that run many small products in parallel themselves (conv2d).
/// With `accumulate`, the product is added to `dst`.
///
/// # Panics
/// If the operand shapes or slice lengths disagree (a kernel bug, caught and reported
/// as an `InternalError` by the executor).
pub(crate) fn gemm_into<T: Element + Num>(dst: &mut [T], a: MatRef<'_, T>, b: MatRef<'_, T>, accumulate: bool) {
    let ((m, k), (k2, n)) = (a.dims(), b.dims());
    assert!(k == k2 && dst.len() == m * n && a.data.len() == a.rows * a.cols && b.data.len() == b.rows * b.cols);
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<half::bf16>() {
        // SAFETY: T is bf16 (same type, checked above).
        let (dst, a, b) = unsafe { (retype_mut(dst), retype(a), retype(b)) };
        return gemm_half_via_f32::<half::bf16>(dst, a, b, accumulate);
    }
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<half::f16>() {
        // SAFETY: T is f16 (same type, checked above).
        let (dst, a, b) = unsafe { (retype_mut(dst), retype(a), retype(b)) };
        return gemm_half_via_f32::<half::f16>(dst, a, b, accumulate);
    }
    gemm_strided(dst, a.strided(), b.strided(), accumulate);
}

/// A matrix operand read with element strides from a slice: rows may overlap (a
/// sliding window over an image, whose consecutive rows start one pixel apart).
#[derive(Clone, Copy)]
pub(crate) struct Strided<'a, T> {
    /// The elements the operand reads.
    pub data: &'a [T],
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Elements from one row to the next.
    pub row_stride: usize,
    /// Elements from one column to the next.
    pub col_stride: usize,
}

/// `dst (+)= a @ b` for a strided `m x k` operand `a` and a strided `k x n` operand
/// `b`, into the row-major `m x n` `dst`, on the calling thread. float32 and float64.
///
/// # Panics
/// If the shapes disagree or a stride reaches past its slice (a kernel bug, caught and
/// reported as an `InternalError` by the executor), or for another element type.
#[allow(clippy::cast_possible_wrap)]
pub(crate) fn gemm_strided<T: Element + Num>(dst: &mut [T], a: Strided<'_, T>, b: Strided<'_, T>, accumulate: bool) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    assert!(matches!(T::DTYPE, DType::Float32 | DType::Float64), "gemm_strided: {}", T::DTYPE);
    assert!(b.rows == k && dst.len() == m * n);
    let last = |x: &Strided<'_, T>| (x.rows.max(1) - 1) * x.row_stride + (x.cols.max(1) - 1) * x.col_stride;
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            dst.fill(T::ZERO);
        }
        return;
    }
    assert!(last(&a) < a.data.len() && last(&b) < b.data.len());
    // SAFETY: the assertions bound every element either operand reads; `dst` is an
    // exclusive borrow of the m*n output; T is f32 or f64, which gemm supports.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.data.as_ptr(),
            a.col_stride as isize,
            a.row_stride as isize,
            b.data.as_ptr(),
            b.col_stride as isize,
            b.row_stride as isize,
            T::ONE,
            T::ONE,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}

/// `a` as a matrix of `U`.
///
/// # Safety
/// `T` and `U` must be the same type.
unsafe fn retype<'a, T, U>(a: MatRef<'a, T>) -> MatRef<'a, U> {
    // SAFETY: same type, so the same layout and lifetime (the caller's contract).
    let data = unsafe { std::slice::from_raw_parts(a.data.as_ptr().cast::<U>(), a.data.len()) };
    MatRef { data, rows: a.rows, cols: a.cols, transpose: a.transpose }
}

/// `dst` as a slice of `U`.
///
/// # Safety
/// `T` and `U` must be the same type.
unsafe fn retype_mut<T, U>(dst: &mut [T]) -> &mut [U] {
    // SAFETY: same type (the caller's contract).
    unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<U>(), dst.len()) }
}

/// A 16-bit float that products widen to `f32`.
trait HalfFloat: Copy {
    fn widen(self) -> f32;
    fn round(v: f32) -> Self;
}

impl HalfFloat for half::bf16 {
    fn widen(self) -> f32 {
        self.to_f32()
    }
    fn round(v: f32) -> Self {
        half::bf16::from_f32(v)
    }
}

impl HalfFloat for half::f16 {
    fn widen(self) -> f32 {
        self.to_f32()
    }
    fn round(v: f32) -> Self {
        half::f16::from_f32(v)
    }
}

/// The product of 16-bit floats in float, each output rounded once: what TF's half
/// and bfloat16 CPU kernels compute (accumulating in float). gemm as built here
/// (without its `f16` feature) has no 16-bit kernels: it panics on them.
fn gemm_half_via_f32<H: HalfFloat>(dst: &mut [H], a: MatRef<'_, H>, b: MatRef<'_, H>, accumulate: bool) {
    let wide = |s: &[H]| s.iter().map(|v| v.widen()).collect::<Vec<f32>>();
    let (a32, b32) = (wide(a.data), wide(b.data));
    let mut d32 = if accumulate { wide(dst) } else { vec![0f32; dst.len()] };
    gemm_into(
        &mut d32,
        MatRef { data: &a32, rows: a.rows, cols: a.cols, transpose: a.transpose },
        MatRef { data: &b32, rows: b.rows, cols: b.cols, transpose: b.transpose },
        accumulate,
    );
    for (o, v) in dst.iter_mut().zip(d32) {
        *o = H::round(v);
    }
}

fn loop_matmul<T: Element + Num>(out: &mut Tensor, a: &Tensor, b: &Tensor, d: Dims) -> Result<()> {
    let (x, y) = (a.as_slice::<T>()?, b.as_slice::<T>()?);
    let dst = out.as_mut_slice::<T>()?;
    for i in 0..d.m {
        let row = &mut dst[i * d.n..(i + 1) * d.n];
        for p in 0..d.k {
            let av = x[i * d.a_rs + p * d.a_cs];
            for (j, o) in row.iter_mut().enumerate() {
                *o = o.add(av.mul(y[p * d.b_rs + j * d.b_cs]));
            }
        }
    }
    Ok(())
}

/// The complex product by gemm's complex kernels (`c32`/`c64` are num-complex's
/// types), on one thread: complex matrices are rare in the models ferroflow runs.
fn gemm_complex<R>(out: &mut Tensor, a: &Tensor, b: &Tensor, d: Dims) -> Result<()>
where
    R: crate::kernels::math::ComplexPart,
    num_complex::Complex<R>: Element,
{
    let (x, y) = (a.as_slice::<num_complex::Complex<R>>()?, b.as_slice::<num_complex::Complex<R>>()?);
    let dst = out.as_mut_slice::<num_complex::Complex<R>>()?;
    let one = num_complex::Complex::new(R::one(), R::zero());
    // SAFETY: as `gemm_cols` over every column: `x` holds m*k elements with strides
    // (a_rs, a_cs), `y` k*n with (b_rs, b_cs), `dst` m*n row-major and exclusively
    // borrowed; the element type is `Complex<f32>` or `Complex<f64>` (the caller's
    // dtype match), gemm's `c32`/`c64`.
    unsafe {
        gemm::gemm(
            d.m,
            d.n,
            d.k,
            dst.as_mut_ptr(),
            1,
            d.n as isize,
            false,
            x.as_ptr(),
            d.a_cs as isize,
            d.a_rs as isize,
            y.as_ptr(),
            d.b_cs as isize,
            d.b_rs as isize,
            one,
            one,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
    Ok(())
}

struct MatMulKernel {
    transpose_a: bool,
    transpose_b: bool,
}

/// `MatMul`'s kernel (the transposes read once, from its attrs).
pub(crate) fn matmul_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let flag = |n: &str| b.node.attr_or(n, false);
    Ok(Box::new(MatMulKernel { transpose_a: flag("transpose_a")?, transpose_b: flag("transpose_b")? }))
}

impl OpKernel for MatMulKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = matmul(ctx.input(0)?, ctx.input(1)?, self.transpose_a, self.transpose_b, ctx.env)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    #[test]
    fn matches_naive_with_transposes() {
        let env = ExecEnv { intra_pool: None };
        let (m, k, n) = (3, 4, 5);
        let av: Vec<f64> = (0..m * k).map(|v| v as f64 * 0.5 - 1.0).collect();
        let bv: Vec<f64> = (0..k * n).map(|v| (v as f64).sin()).collect();
        let want = naive(&av, &bv, m, k, n);
        let a = Tensor::from_slice(&[m, k], &av).unwrap();
        let b = Tensor::from_slice(&[k, n], &bv).unwrap();
        let c = matmul(&a, &b, false, false, &env).unwrap();
        for (x, y) in c.as_slice::<f64>().unwrap().iter().zip(&want) {
            assert!((x - y).abs() < 1e-12);
        }
        // Transposed storage of the same operands gives the same product.
        let at: Vec<f64> = (0..k * m).map(|i| av[(i % m) * k + i / m]).collect();
        let bt: Vec<f64> = (0..n * k).map(|i| bv[(i % k) * n + i / k]).collect();
        let c2 = matmul(
            &Tensor::from_slice(&[k, m], &at).unwrap(),
            &Tensor::from_slice(&[n, k], &bt).unwrap(),
            true,
            true,
            &env,
        )
        .unwrap();
        for (x, y) in c2.as_slice::<f64>().unwrap().iter().zip(&want) {
            assert!((x - y).abs() < 1e-12);
        }
        let ai = Tensor::from_slice(&[2, 2], &[1i32, 2, 3, 4]).unwrap();
        let ci = matmul(&ai, &ai, false, false, &env).unwrap();
        assert_eq!(ci.as_slice::<i32>().unwrap(), &[7, 10, 15, 22]);
        assert!(matmul(&ai, &a, false, false, &env).is_err());
    }

    #[test]
    fn turned_around_products_match_naive() {
        // Shapes past `turns_around`'s thresholds (k >= 128, b stored transposed), with
        // and without an intra-op pool, every transpose combination.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let envs = [ExecEnv { intra_pool: None }, ExecEnv { intra_pool: Some(std::sync::Arc::new(pool)) }];
        for (m, k, n) in [(5, 130, 7), (20, 300, 96), (30, 256, 150)] {
            let av: Vec<f64> = (0..m * k).map(|v| ((v * 7 % 13) as f64) * 0.25 - 1.5).collect();
            let bv: Vec<f64> = (0..k * n).map(|v| (v as f64 * 0.37).sin()).collect();
            assert!(turns_around(&Dims { m, n, k, a_rs: k, a_cs: 1, b_rs: 1, b_cs: k }));
            let want = naive(&av, &bv, m, k, n);
            let at: Vec<f64> = (0..k * m).map(|i| av[(i % m) * k + i / m]).collect();
            let bt: Vec<f64> = (0..n * k).map(|i| bv[(i % k) * n + i / k]).collect();
            for env in &envs {
                for ta in [false, true] {
                    let a = if ta { Tensor::from_slice(&[k, m], &at) } else { Tensor::from_slice(&[m, k], &av) };
                    let b = Tensor::from_slice(&[n, k], &bt).unwrap();
                    let c = matmul(&a.unwrap(), &b, ta, true, env).unwrap();
                    for (x, y) in c.as_slice::<f64>().unwrap().iter().zip(&want) {
                        assert!((x - y).abs() < 1e-9, "{m}x{k}x{n} ta={ta}: {x} vs {y}");
                    }
                    let a32 = Tensor::from_slice(&[m, k], &av.iter().map(|&v| v as f32).collect::<Vec<_>>()).unwrap();
                    let b32 = Tensor::from_slice(&[n, k], &bt.iter().map(|&v| v as f32).collect::<Vec<_>>()).unwrap();
                    let c32 = matmul(&a32, &b32, false, true, env).unwrap();
                    for (x, y) in c32.as_slice::<f32>().unwrap().iter().zip(&want) {
                        assert!((f64::from(*x) - y).abs() < 1e-3 * (1.0 + y.abs()), "{m}x{k}x{n} f32: {x} vs {y}");
                    }
                }
            }
        }
    }

    #[test]
    fn accumulating_products_add_into_a_unique_addend_in_place() {
        let env = ExecEnv { intra_pool: None };
        let (m, k, n) = (3, 200, 4);
        let av: Vec<f64> = (0..m * k).map(|v| (v as f64 * 0.1).cos()).collect();
        let bv: Vec<f64> = (0..k * n).map(|v| (v as f64 * 0.3).sin()).collect();
        let product = naive(&av, &bv, m, k, n);
        let a = Tensor::from_slice(&[m, k], &av).unwrap();
        let bt: Vec<f64> = (0..n * k).map(|i| bv[(i % k) * n + i / k]).collect();
        for (b, tb) in
            [(Tensor::from_slice(&[k, n], &bv).unwrap(), false), (Tensor::from_slice(&[n, k], &bt).unwrap(), true)]
        {
            let acc = Tensor::from_slice(&[m, n], &[1.5f64; 12]).unwrap();
            let before = acc.as_slice::<f64>().unwrap().as_ptr();
            let out = matmul_add(acc, &a, &b, false, tb, &env).unwrap();
            assert_eq!(out.as_slice::<f64>().unwrap().as_ptr(), before, "tb={tb}: not in place");
            for (x, y) in out.as_slice::<f64>().unwrap().iter().zip(&product) {
                assert!((x - (y + 1.5)).abs() < 1e-9, "tb={tb}: {x} vs {}", y + 1.5);
            }
            // A shared addend is copied, not written.
            let shared = Tensor::from_slice(&[m, n], &[2.0f64; 12]).unwrap();
            let out = matmul_add(shared.clone(), &a, &b, false, tb, &env).unwrap();
            assert_eq!(shared.as_slice::<f64>().unwrap(), &[2.0; 12]);
            assert!((out.as_slice::<f64>().unwrap()[0] - (product[0] + 2.0)).abs() < 1e-9);
        }
        // An addend that broadcasts is added after the product.
        let b = Tensor::from_slice(&[k, n], &bv).unwrap();
        let row = Tensor::from_slice(&[n], &[1.0f64, 2.0, 3.0, 4.0]).unwrap();
        let out = matmul_add(row, &a, &b, false, false, &env).unwrap();
        assert_eq!(out.shape(), &[m, n]);
        assert!((out.as_slice::<f64>().unwrap()[n + 2] - (product[n + 2] + 3.0)).abs() < 1e-9);
    }

    #[test]
    fn half_products_round_each_output_once() {
        use half::f16;
        let env = ExecEnv { intra_pool: None };
        // 2048 + 1 + 1: a half accumulator would stay at 2048; one rounding gives 2050.
        let a = Tensor::from_slice(&[1, 3], &[2048.0, 1.0, 1.0].map(f16::from_f32)).unwrap();
        let b = Tensor::from_slice(&[3, 1], &[f16::ONE; 3]).unwrap();
        let c = matmul(&a, &b, false, false, &env).unwrap();
        assert_eq!(c.dtype(), DType::Float16);
        assert_eq!(c.as_slice::<f16>().unwrap(), &[f16::from_f32(2050.0)]);
    }
}
