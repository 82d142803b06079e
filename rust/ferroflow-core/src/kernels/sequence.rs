//! Kernels that build vectors element by element: `Range`, `LinSpace`, `Unique` and
//! `ListDiff` (shapes and registration in `ops/array.rs`).
pub(crate) use crate::framework::shape_util::{check_range_bounds, range_len};

use super::array::{cast, gather};
use super::num::Num;
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// A hashable key for a numeric element: integers as themselves, floats by their bits
/// (with -0 as +0, which compare equal, as TF's `std::unordered_map` sees them).
trait UniqueKey: Copy {
    fn key(self) -> u64;
}

macro_rules! unique_key_int {
    ($($t:ty),*) => {$(impl UniqueKey for $t {
        #[allow(clippy::cast_sign_loss, clippy::cast_lossless)]
        fn key(self) -> u64 { self as u64 }
    })*};
}
unique_key_int!(i32, i64, u8);
impl UniqueKey for f32 {
    fn key(self) -> u64 {
        u64::from((self + 0.0).to_bits())
    }
}
macro_rules! unique_key_half {
    ($($t:ty),*) => {$(impl UniqueKey for $t {
        fn key(self) -> u64 {
            // -0 and +0 are one value.
            u64::from(if self.to_bits() & 0x7fff == 0 { 0 } else { self.to_bits() })
        }
    })*};
}
unique_key_half!(half::f16, half::bf16);
impl UniqueKey for f64 {
    fn key(self) -> u64 {
        (self + 0.0).to_bits()
    }
}

/// `Unique`: the distinct elements of a vector in order of first appearance, and for
/// each element the position of its value among them.
struct UniqueKernel {
    out_idx: DType,
}

fn unique_positions<T: UniqueKey + crate::dtype::Element>(x: &Tensor) -> Result<(Vec<i64>, Vec<i64>)> {
    let mut first: std::collections::HashMap<u64, i64> = std::collections::HashMap::new();
    let mut keep = Vec::new();
    let idx = x
        .as_slice::<T>()?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            *first.entry(v.key()).or_insert_with(|| {
                keep.push(i as i64);
                keep.len() as i64 - 1
            })
        })
        .collect();
    Ok((keep, idx))
}

impl OpKernel for UniqueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        if x.shape().len() != 1 {
            ff_bail!(InvalidArgument, "unique expects a 1D vector, got shape {}", fmt_shape(x.shape()));
        }
        let (keep, idx) = match x.dtype() {
            DType::Int32 => unique_positions::<i32>(x)?,
            DType::Int64 => unique_positions::<i64>(x)?,
            DType::UInt8 => unique_positions::<u8>(x)?,
            DType::Float32 => unique_positions::<f32>(x)?,
            DType::Float64 => unique_positions::<f64>(x)?,
            DType::Float16 => unique_positions::<half::f16>(x)?,
            DType::BFloat16 => unique_positions::<half::bf16>(x)?,
            d => ff_bail!(InvalidArgument, "Unique: no kernel for {d}"),
        };
        let y = gather(x, &keep, &[keep.len()], 0)?;
        let idx = cast(&Tensor::from_slice(&[idx.len()], &idx)?, self.out_idx)?;
        ctx.set_output(0, y);
        ctx.set_output(1, idx);
        Ok(())
    }
}

/// `ListDiff` (`tf.setdiff1d`): the elements of `x` not in `y`, in order, and their
/// positions in `x`. (A linear scan of `y` per element: its inputs are short lists.)
struct ListDiffKernel {
    out_idx: DType,
}

impl OpKernel for ListDiffKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, y) = (ctx.input(0)?, ctx.input(1)?);
        for (t, what) in [(x, "x"), (y, "y")] {
            if t.shape().len() != 1 {
                ff_bail!(InvalidArgument, "{what} should be a 1D vector, got shape {}", fmt_shape(t.shape()));
            }
        }
        let keep: Vec<i64> = crate::dispatch_numeric!(x.dtype(), T => {
            let (xs, ys) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
            (0..xs.len()).filter(|&i| !ys.contains(&xs[i])).map(|i| i as i64).collect()
        }, _ => ff_bail!(InvalidArgument, "ListDiff: no kernel for {}", x.dtype()));
        let out = gather(x, &keep, &[keep.len()], 0)?;
        let idx = cast(&Tensor::from_slice(&[keep.len()], &keep)?, self.out_idx)?;
        ctx.set_output(0, out);
        ctx.set_output(1, idx);
        Ok(())
    }
}

/// An integer range, counted exactly (`divup(|limit - start|, |delta|)` in 128 bits,
/// where the float computation would lose int64 precision).
fn int_range<T: Element + Into<i64> + TryFrom<i64>>(start: T, limit: T, delta: T) -> Result<Tensor> {
    let (s, l, d) = (start.into(), limit.into(), delta.into());
    check_range_bounds(s, l, d)?;
    let span = (i128::from(l) - i128::from(s)).unsigned_abs();
    let step = i128::from(d).unsigned_abs();
    let n = i64::try_from(span.div_ceil(step))
        .ok()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| Error::invalid_argument(format!("Requires ((limit - start) / delta) <= {}", i64::MAX)))?;
    let mut out = Tensor::for_overwrite(T::DTYPE, &[n])?;
    for (i, o) in out.as_mut_slice::<T>()?.iter_mut().enumerate() {
        // Every value lies between start and limit, so it fits T.
        let v = i128::from(s) + i128::from(d) * i128::try_from(i).unwrap_or(i128::MAX);
        *o = i64::try_from(v).ok().and_then(|v| T::try_from(v).ok()).unwrap_or(start);
    }
    Ok(out)
}

fn range_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let dtype = ctx.input(0)?.dtype();
    let out = match dtype {
        DType::Int32 => {
            let f = |i: usize| ctx.input(i).and_then(Tensor::scalar_value::<i32>);
            int_range(f(0)?, f(1)?, f(2)?)?
        }
        DType::Int64 => {
            let f = |i: usize| ctx.input(i).and_then(Tensor::scalar_value::<i64>);
            int_range(f(0)?, f(1)?, f(2)?)?
        }
        d => crate::dispatch_float!(d, T => {
            let f = |i: usize| ctx.input(i).and_then(Tensor::scalar_value::<T>);
            let (start, limit, delta) = (f(0)?, f(1)?, f(2)?);
            let n = range_len(start, limit, delta)?;
            let mut values = Tensor::for_overwrite(d, &[n])?;
            // `start + T(i) * delta` in T, as TF's functor.
            for (i, v) in values.as_mut_slice::<T>()?.iter_mut().enumerate() {
                *v = Num::add(start, Num::mul(T::from_usize(i), delta));
            }
            values
        }, _ => ff_bail!(InvalidArgument, "no Range kernel for {d}")),
    };
    ctx.set_output(0, out);
    Ok(())
}

/// `LinSpace`: `num` evenly spaced values from `start` to `stop`, the last exactly
/// `stop`, computed as TF's kernel does (`start + step * i` in `T`).
fn lin_space_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    for (i, what) in [(0, "start"), (1, "stop"), (2, "num")] {
        let s = ctx.input(i)?.shape();
        if !s.is_empty() {
            ff_bail!(InvalidArgument, "{what} must be a scalar, not shape {}", fmt_shape(s));
        }
    }
    let num = crate::framework::tensor_util::int_values(ctx.input(2)?)?[0];
    if num <= 0 {
        ff_bail!(InvalidArgument, "Requires num > 0: {num}");
    }
    let n = usize::try_from(num).map_err(|_| Error::invalid_argument(format!("num too large: {num}")))?;
    let dtype = ctx.input(0)?.dtype();
    let out = crate::dispatch_float!(dtype, T => {
        let (start, stop) = (ctx.input(0)?.scalar_value::<T>()?, ctx.input(1)?.scalar_value::<T>()?);
        let mut values = Tensor::for_overwrite(dtype, &[n])?;
        let v = values.as_mut_slice::<T>()?;
        if n == 1 {
            v[0] = start;
        } else {
            let step = Num::div(Num::sub(stop, start), T::from_usize(n - 1));
            for (i, x) in v[..n - 1].iter_mut().enumerate() {
                *x = Num::add(start, Num::mul(step, T::from_usize(i)));
            }
            v[n - 1] = stop;
        }
        values
    }, _ => ff_bail!(InvalidArgument, "no LinSpace kernel for {dtype}"));
    ctx.set_output(0, out);
    Ok(())
}

/// `LinSpace`.
pub(crate) fn lin_space_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(lin_space_compute)
}

/// `Unique`, its indices in the node's declared `out_idx` type.
pub(crate) fn unique_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(UniqueKernel { out_idx: b.node.outputs[1].dtype }))
}

/// `ListDiff`, its indices in the node's declared `out_idx` type.
pub(crate) fn list_diff_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ListDiffKernel { out_idx: b.node.outputs[1].dtype }))
}

/// `Range`.
pub(crate) fn range_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(range_compute)
}
