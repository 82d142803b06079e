//! Reductions over axes (sum, mean, max, min, prod). Consecutive reduced axes are
//! merged so each pass is a `(outer, reduced, inner)` sweep over contiguous memory.
//! Also the kernels of the reduction, scan, arg-reduction and segment-sum ops and of
//! the gradient shape helpers (shapes and registration in `ops/reduce.rs`).
pub use crate::framework::shape_util::reduction_axes;
use multiversion::multiversion;

use super::elementwise::PARALLEL_MIN;
use super::num::Num;
use super::{ExecEnv, KernelBuild, OpContext, OpKernel, stateless};
use crate::dispatch_numeric;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::tensor_util::int_values;
use crate::shape::normalize_axis;
use crate::tensor::Tensor;

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Sum.
    Sum,
    /// Arithmetic mean (integer division for integer types, as TF).
    Mean,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Product.
    Prod,
}

impl Reduction {
    fn init<T: Num>(self) -> T {
        match self {
            Reduction::Sum | Reduction::Mean => T::ZERO,
            Reduction::Prod => T::ONE,
            Reduction::Max => T::LOWEST,
            Reduction::Min => T::HIGHEST,
        }
    }
}

/// Lanes of independent accumulators in a contiguous fold: one AVX-512 vector of
/// `f32`, so the loop vectorises, and float sums lose less precision than one serial
/// accumulator.
const LANES: usize = 16;

/// Folds a contiguous run with [`LANES`] accumulators.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn fold_lanes<T: Copy, F: Fn(T, T) -> T>(s: &[T], init: T, f: &F) -> T {
    let mut acc = [init; LANES];
    let chunks = s.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for i in 0..LANES {
            acc[i] = f(acc[i], c[i]);
        }
    }
    let mut total = rest.iter().fold(init, |a, &v| f(a, v));
    for a in acc {
        total = f(total, a);
    }
    total
}

/// `dst[j] = f(dst[j], src[j])`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn accumulate<T: Copy, F: Fn(T, T) -> T>(dst: &mut [T], src: &[T], f: &F) {
    dst.iter_mut().zip(src).for_each(|(d, &v)| *d = f(*d, v));
}

/// Reduces the middle axis of `data` viewed as `outer x r x inner`, split across the
/// intra-op pool when large.
/// Reduces the middle axis of `data` seen as `[outer, r, inner]` into `out`
/// (`outer * inner` values).
fn reduce_run<T: Num>(data: &[T], dims: (usize, usize, usize), red: Reduction, env: &ExecEnv, out: &mut [T]) {
    let init = red.init::<T>();
    match red {
        Reduction::Sum | Reduction::Mean => reduce_run_with(data, dims, init, T::add, env, out),
        Reduction::Prod => reduce_run_with(data, dims, init, T::mul, env, out),
        Reduction::Max => reduce_run_with(data, dims, init, T::max, env, out),
        Reduction::Min => reduce_run_with(data, dims, init, T::min, env, out),
    }
}

fn reduce_run_with<T: Num>(
    data: &[T],
    (outer, r, inner): (usize, usize, usize),
    init: T,
    f: impl Fn(T, T) -> T + Sync + Copy,
    env: &ExecEnv,
    out: &mut [T],
) {
    out.fill(init);
    if out.is_empty() || r == 0 {
        return;
    }
    // Work per output element is `r`; split so each piece reads at least PARALLEL_MIN.
    let min_outputs = PARALLEL_MIN.div_ceil(r).max(1);
    if inner == 1 {
        if outer == 1 && r >= 2 * PARALLEL_MIN && env.intra_threads() > 1 {
            // One long run: per-thread partial folds, then one fold of the partials.
            let mut partials = vec![init; env.intra_threads() * 4];
            let piece = r.div_ceil(partials.len());
            env.for_each_chunk(&mut partials, 1, 1, |i, p| {
                for (j, slot) in p.iter_mut().enumerate() {
                    let start = ((i + j) * piece).min(r);
                    *slot = fold_lanes(&data[start..(start + piece).min(r)], init, &f);
                }
            });
            out[0] = fold_lanes(&partials, init, &f);
        } else {
            env.for_each_chunk(out, min_outputs, 1, |first, dst| {
                for (o, d) in dst.iter_mut().enumerate() {
                    let o = first + o;
                    *d = fold_lanes(&data[o * r..(o + 1) * r], init, &f);
                }
            });
        }
        return;
    }
    // Rows of `inner` outputs, each accumulating `r` rows of the input.
    env.for_each_chunk(out, min_outputs.max(LANES), 1, |first, dst| {
        let mut done = 0;
        while done < dst.len() {
            let (o, j) = ((first + done) / inner, (first + done) % inner);
            let seg = (inner - j).min(dst.len() - done);
            let d = &mut dst[done..done + seg];
            for k in 0..r {
                let at = (o * r + k) * inner + j;
                accumulate(d, &data[at..at + seg], &f);
            }
            done += seg;
        }
    });
}

/// Reduces `x` over `axes` (valid, sorted, distinct).
pub fn reduce<T: Num>(x: &Tensor, axes: &[usize], keep_dims: bool, red: Reduction, env: &ExecEnv) -> Result<Tensor> {
    let in_shape = x.shape();
    let mut shape = crate::shape::Shape::from_slice(in_shape);
    // The first pass reads the input in place; later passes read the previous result.
    let mut data: Option<Tensor> = None;
    let mut count = 1usize;
    // Walk runs of consecutive axes from the last, so earlier axis numbers stay valid.
    let mut i = axes.len();
    while i > 0 {
        let end = axes[i - 1];
        let mut start = end;
        i -= 1;
        while i > 0 && axes[i - 1] + 1 == start {
            start -= 1;
            i -= 1;
        }
        let outer: usize = shape[..start].iter().product();
        let r: usize = shape[start..=end].iter().product();
        let inner: usize = shape[end + 1..].iter().product();
        let mut next = Tensor::for_overwrite(T::DTYPE, &[outer * inner])?;
        let src = match &data {
            Some(d) => d.as_slice::<T>()?,
            None => x.as_slice::<T>()?,
        };
        reduce_run(src, (outer, r, inner), red, env, next.as_mut_slice::<T>()?);
        data = Some(next);
        count *= r;
        shape.drain(start..=end);
        shape.insert(start, 1);
    }
    // No axes: the input's values (shared, never written: the mean divides by 1).
    let mut data = data.unwrap_or_else(|| x.clone());
    if red == Reduction::Mean && count != 1 {
        // Mean over nothing is 0/0 (NaN for floats), as in TF.
        let n = if count > 0 { T::from_usize(count) } else { T::ZERO };
        data.as_mut_slice::<T>()?.iter_mut().for_each(|v| *v = v.div(n));
    }
    let out_shape: crate::shape::Shape = if keep_dims {
        in_shape.iter().enumerate().map(|(d, &s)| if axes.contains(&d) { 1 } else { s }).collect()
    } else {
        in_shape.iter().enumerate().filter(|(d, _)| !axes.contains(d)).map(|(_, &s)| s).collect()
    };
    data.reshaped(&out_shape)
}

/// `Cumsum`/`Cumprod` along `axis`: `exclusive` leaves each element out of its own
/// running total (starting from the identity), `reverse` runs from the end.
pub fn scan<T: Num>(x: &Tensor, axis: usize, exclusive: bool, reverse: bool, product: bool) -> Result<Tensor> {
    let shape = x.shape();
    let (outer, n, inner) =
        (shape[..axis].iter().product::<usize>(), shape[axis], shape[axis + 1..].iter().product::<usize>());
    let (init, f): (T, fn(T, T) -> T) = if product { (T::ONE, T::mul) } else { (T::ZERO, T::add) };
    let xs = x.as_slice::<T>()?;
    let mut out = vec![init; xs.len()];
    let mut acc = vec![init; inner];
    for o in 0..outer {
        acc.fill(init);
        for step in 0..n {
            let k = if reverse { n - 1 - step } else { step };
            let at = (o * n + k) * inner;
            let (src, dst) = (&xs[at..at + inner], &mut out[at..at + inner]);
            for ((d, a), &v) in dst.iter_mut().zip(acc.iter_mut()).zip(src) {
                if exclusive {
                    *d = *a;
                    *a = f(*a, v);
                } else {
                    *a = f(*a, v);
                    *d = *a;
                }
            }
        }
    }
    Tensor::from_slice(shape, &out)
}

struct ReduceKernel {
    reduction: Reduction,
    keep_dims: bool,
}

/// The kernel of `Sum`, `Mean`, `Max`, `Min`, `Prod`, `All` and `Any`.
pub(crate) fn reduce_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let reduction = match b.node.op_type() {
        "Sum" => Reduction::Sum,
        "Mean" => Reduction::Mean,
        "Max" => Reduction::Max,
        // Booleans reduce as bytes: all = min, any = max.
        "Min" | "All" => Reduction::Min,
        "Any" => Reduction::Max,
        _ => Reduction::Prod,
    };
    let keep_dims = b.node.attr_or("keep_dims", false)?;
    Ok(Box::new(ReduceKernel { reduction, keep_dims }))
}

impl OpKernel for ReduceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let axes = reduction_axes(&int_values(ctx.input(1)?)?, x.shape().len())?;
        if x.dtype() == DType::Bool {
            let bytes = crate::kernels::array::cast(x, DType::UInt8)?;
            let r = reduce::<u8>(&bytes, &axes, self.keep_dims, self.reduction, ctx.env)?;
            ctx.set_output(0, crate::kernels::array::cast(&r, DType::Bool)?);
            return Ok(());
        }
        if x.dtype().is_complex() && matches!(self.reduction, Reduction::Sum | Reduction::Mean) {
            // A sum (mean) of complex numbers is that of their real and imaginary parts.
            let part = |imag: bool| -> Result<Tensor> {
                let p = crate::dispatch_complex!(x.dtype(), C, R => {
                    crate::kernels::elementwise::map_into::<C, R>(x, ctx.env, |c| if imag { c.im } else { c.re })?
                }, _ => unreachable!("a complex type"));
                crate::dispatch_float!(p.dtype(), T => reduce::<T>(&p, &axes, self.keep_dims, self.reduction, ctx.env),
                    _ => unreachable!("complex parts are float"))
            };
            let (re, im) = (part(false)?, part(true)?);
            let out = crate::dispatch_complex!(x.dtype(), C, R => {
                crate::kernels::elementwise::binary_to::<R, C>(&re, &im, ctx.env, C::new)?
            }, _ => unreachable!("a complex type"));
            ctx.set_output(0, out);
            return Ok(());
        }
        let out = dispatch_numeric!(x.dtype(), T => reduce::<T>(x, &axes, self.keep_dims, self.reduction, ctx.env)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

struct ScanKernel {
    exclusive: bool,
    reverse: bool,
    product: bool,
}

/// `Cumsum` and `Cumprod`.
pub(crate) fn scan_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ScanKernel {
        exclusive: b.node.attr_or::<bool>("exclusive", false)?,
        reverse: b.node.attr_or::<bool>("reverse", false)?,
        product: b.node.op_type() == "Cumprod",
    }))
}

impl OpKernel for ScanKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let rank = x.shape().len();
        let a = crate::framework::tensor_util::scalar_int(ctx.input(1)?, "axis")?;
        let Some(axis) = normalize_axis(a, rank) else {
            ff_bail!(
                InvalidArgument,
                "ScanOp: Expected scan axis in the range [{}, {rank}), but got {a}",
                -(rank as i64)
            );
        };
        let out = dispatch_numeric!(x.dtype(), T => scan::<T>(x, axis, self.exclusive, self.reverse, self.product)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

struct ArgKernel {
    max: bool,
    out: DType,
}

/// `ArgMax` and `ArgMin`.
pub(crate) fn arg_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ArgKernel { max: b.node.op_type() == "ArgMax", out: b.node.outputs[0].dtype }))
}

fn arg_reduce<T: Num>(x: &Tensor, axis: usize, max: bool) -> Result<Vec<i64>> {
    let s = x.shape();
    let (outer, n, inner) = (s[..axis].iter().product::<usize>(), s[axis], s[axis + 1..].iter().product::<usize>());
    if n == 0 {
        ff_bail!(InvalidArgument, "Reduction axis {axis} is empty in shape {}", crate::shape::fmt_shape(s));
    }
    let v = x.as_slice::<T>()?;
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let mut best = 0usize;
            for k in 1..n {
                let (cur, b) = (v[(o * n + k) * inner + i], v[(o * n + best) * inner + i]);
                // NaNs are skipped as in TF (`x != x` only for NaN); an all-NaN row gives 0.
                #[allow(clippy::eq_op)]
                let b_nan = b != b;
                #[allow(clippy::eq_op)]
                let cur_nan = cur != cur;
                if !cur_nan && (b_nan || (max && cur > b) || (!max && cur < b)) {
                    best = k;
                }
            }
            out.push(i64::try_from(best).unwrap_or(i64::MAX));
        }
    }
    Ok(out)
}

impl OpKernel for ArgKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let a = int_values(ctx.input(1)?)?.first().copied().unwrap_or(0);
        let Some(axis) = normalize_axis(a, x.shape().len()) else {
            ff_bail!(
                InvalidArgument,
                "Expected dimension in the range [{}, {}), but got {a}",
                -(x.shape().len() as i64),
                x.shape().len()
            );
        };
        let idx = dispatch_numeric!(x.dtype(), T => arg_reduce::<T>(x, axis, self.max)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        let mut shape = x.shape().to_vec();
        shape.remove(axis);
        let t = crate::kernels::array::cast(&Tensor::from_slice(&shape, &idx)?, self.out)?;
        ctx.set_output(0, t);
        Ok(())
    }
}

fn segment_sum_typed<T: Num>(data: &Tensor, ids: &[i64], ids_rank: usize, n: usize) -> Result<Tensor> {
    let row_shape = &data.shape()[ids_rank..];
    let inner: usize = row_shape.iter().product();
    let mut shape = vec![n];
    shape.extend_from_slice(row_shape);
    let mut result = Tensor::zeros(T::DTYPE, &shape)?;
    let out = result.as_mut_slice::<T>()?;
    let src = data.as_slice::<T>()?;
    for (i, &id) in ids.iter().enumerate() {
        if id < 0 {
            continue; // TF drops negative segment ids.
        }
        let Some(s) = usize::try_from(id).ok().filter(|&s| s < n) else {
            ff_bail!(InvalidArgument, "segment_ids[{i}] = {id} is out of range [0, {n})");
        };
        let dst = &mut out[s * inner..(s + 1) * inner];
        dst.iter_mut().zip(&src[i * inner..(i + 1) * inner]).for_each(|(d, &v)| *d = d.add(v));
    }
    Ok(result)
}

fn segment_sum(ctx: &mut OpContext<'_>) -> Result<()> {
    let data = ctx.input(0)?;
    let ids_t = ctx.input(1)?;
    if data.shape().len() < ids_t.shape().len() || data.shape()[..ids_t.shape().len()] != *ids_t.shape() {
        ff_bail!(
            InvalidArgument,
            "data.shape = {} does not start with segment_ids.shape = {}",
            crate::shape::fmt_shape(data.shape()),
            crate::shape::fmt_shape(ids_t.shape())
        );
    }
    let ids = int_values(ids_t)?;
    let n = int_values(ctx.input(2)?)?.first().copied().unwrap_or(0);
    let n = usize::try_from(n)
        .map_err(|_| Error::invalid_argument(format!("num_segments must be non-negative, got {n}")))?;
    let rank = ids_t.shape().len();
    let out = dispatch_numeric!(data.dtype(), T => segment_sum_typed::<T>(data, &ids, rank, n)?,
        _ => ff_bail!(InvalidArgument, "no kernel for {}", data.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

/// TF's `BroadcastGradientArgs`: the axes each input was broadcast along.
fn bcast_args(ctx: &mut OpContext<'_>) -> Result<()> {
    let dtype = ctx.input(0)?.dtype();
    let (a, b) = (int_values(ctx.input(0)?)?, int_values(ctx.input(1)?)?);
    let n = a.len().max(b.len());
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        let idx = i64::try_from(i).unwrap_or(i64::MAX);
        match (da, db) {
            (1, 1) => {
                ra.push(idx);
                rb.push(idx);
            }
            (1, _) => ra.push(idx),
            (_, 1) => rb.push(idx),
            (x, y) if x == y => {}
            (x, y) => ff_bail!(InvalidArgument, "Incompatible shapes: {a:?} vs. {b:?} ({x} vs {y})"),
        }
    }
    let to = |v: Vec<i64>| crate::kernels::array::cast(&Tensor::from_slice(&[v.len()], &v)?, dtype);
    ctx.set_output(0, to(ra)?);
    ctx.set_output(1, to(rb)?);
    Ok(())
}

/// `UnsortedSegmentSum`.
pub(crate) fn segment_sum_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(segment_sum)
}

/// `BroadcastGradientArgs`.
pub(crate) fn broadcast_gradient_args_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(bcast_args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_forward_backward_and_exclusive() {
        let x = Tensor::from_slice(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
        let s = |axis, e, r, p| scan::<i32>(&x, axis, e, r, p).unwrap().as_slice::<i32>().unwrap().to_vec();
        assert_eq!(s(1, false, false, false), [1, 3, 6, 4, 9, 15]);
        assert_eq!(s(1, true, false, false), [0, 1, 3, 0, 4, 9]);
        assert_eq!(s(1, true, true, true), [6, 3, 1, 30, 6, 1]);
        assert_eq!(s(0, false, true, false), [5, 7, 9, 4, 5, 6]);
    }

    #[test]
    fn parallel_reductions_match_the_serial_ones() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let par = ExecEnv { intra_pool: Some(std::sync::Arc::new(pool)) };
        let one = ExecEnv::SINGLE_THREADED;
        // Integers, so any summation order gives the same answer.
        for shape in [vec![1 << 19], vec![3, 1 << 17], vec![1 << 9, 1 << 9], vec![7, 301, 113]] {
            let n: usize = shape.iter().product();
            let x = Tensor::from_slice(&shape, &(0..n as i64).map(|v| v % 1000 - 500).collect::<Vec<_>>()).unwrap();
            for axes in (0..shape.len()).map(|a| vec![a]).chain([(0..shape.len()).collect()]) {
                for red in [Reduction::Sum, Reduction::Max, Reduction::Min] {
                    let a = reduce::<i64>(&x, &axes, false, red, &par).unwrap();
                    let b = reduce::<i64>(&x, &axes, false, red, &one).unwrap();
                    assert_eq!(
                        a.as_slice::<i64>().unwrap(),
                        b.as_slice::<i64>().unwrap(),
                        "{shape:?} {axes:?} {red:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn reduces_runs_and_gaps() {
        let x = Tensor::from_slice(&[2, 3, 2], &(0..12).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
        let s = reduce::<f32>(&x, &[0, 2], false, Reduction::Sum, &ExecEnv::SINGLE_THREADED).unwrap();
        assert_eq!(s.shape(), &[3]);
        assert_eq!(s.as_slice::<f32>().unwrap(), &[14., 22., 30.]);
        let m = reduce::<f32>(&x, &[1], true, Reduction::Mean, &ExecEnv::SINGLE_THREADED).unwrap();
        assert_eq!(m.shape(), &[2, 1, 2]);
        assert_eq!(m.as_slice::<f32>().unwrap(), &[2., 3., 8., 9.]);
        let all = reduce::<f32>(&x, &[0, 1, 2], false, Reduction::Max, &ExecEnv::SINGLE_THREADED).unwrap();
        assert_eq!(all.as_slice::<f32>().unwrap(), &[11.]);
        let i = Tensor::from_slice(&[3], &[1i32, 2, 4]).unwrap();
        assert_eq!(
            reduce::<i32>(&i, &[0], false, Reduction::Mean, &ExecEnv::SINGLE_THREADED)
                .unwrap()
                .as_slice::<i32>()
                .unwrap(),
            &[2]
        );
    }
}
