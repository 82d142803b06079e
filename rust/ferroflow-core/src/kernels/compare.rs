//! Kernels of the comparisons, logical ops, `SelectV2`, the float classification ops
//! and `CheckNumerics` (shapes and registration in `ops/compare.rs`).
use std::marker::PhantomData;
use std::ops::{BitAnd, BitOr, Not};

use multiversion::multiversion;

use crate::dispatch_pod;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernels::elementwise::{PARALLEL_MIN, binary_to};
use crate::kernels::layout::broadcast_to;
use crate::kernels::num::Float;
use crate::kernels::{ExecEnv, KernelBuild, OpContext, OpKernel, stateless};
use crate::shape::broadcast_shapes;
use crate::tensor::Tensor;

/// A comparison defined for every ordered element type.
pub(crate) trait CompareFn: Send + Sync + 'static {
    fn apply<T: PartialOrd>(a: T, b: T) -> bool;
}

macro_rules! compare_fn {
    ($name:ident, $op:tt) => {
        pub(crate) struct $name;
        impl CompareFn for $name {
            #[inline]
            fn apply<T: PartialOrd>(a: T, b: T) -> bool { a $op b }
        }
    };
}
compare_fn!(EqFn, ==);
compare_fn!(NeFn, !=);
compare_fn!(LtFn, <);
compare_fn!(LeFn, <=);
compare_fn!(GtFn, >);
compare_fn!(GeFn, >=);

struct CompareKernel<F>(PhantomData<F>);

/// The kernel of a comparison: elementwise with broadcasting, strings included.
pub(crate) fn compare_kernel<F: CompareFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(CompareKernel::<F>(PhantomData)))
}

fn compare_strings<F: CompareFn>(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let (a, b) = (broadcast_to(a, &shape)?, broadcast_to(b, &shape)?);
    let out: Vec<bool> = a.as_strings()?.iter().zip(b.as_strings()?).map(|(x, y)| F::apply(x, y)).collect();
    Tensor::from_slice(&shape, &out)
}

impl<F: CompareFn> OpKernel for CompareKernel<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.input(0)?, ctx.input(1)?);
        let out = if a.dtype() == DType::String {
            compare_strings::<F>(a, b)?
        } else {
            dispatch_pod!(a.dtype(), T => binary_to::<T, bool>(a, b, ctx.env, F::apply::<T>)?,
                _ => ff_bail!(InvalidArgument, "no comparison kernel for {}", a.dtype()))
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn logical(ctx: &mut OpContext<'_>, f: fn(bool, bool) -> bool) -> Result<()> {
    let out = binary_to::<bool, bool>(ctx.input(0)?, ctx.input(1)?, ctx.env, f)?;
    ctx.set_output(0, out);
    Ok(())
}

/// An unsigned integer that an element of the same size is selected as: the select is
/// a mask blend, `(t & m) | (e & !m)`. Written as `if c { t } else { e }` on the
/// elements themselves, LLVM selects the two addresses and gathers (2 ms instead of
/// 0.7 for 4M floats).
trait Lane: Copy + BitAnd<Output = Self> + BitOr<Output = Self> + Not<Output = Self> {
    /// All ones when `k`, else zero.
    fn mask(k: bool) -> Self;
}

macro_rules! lane {
    ($($u:ty),*) => {$(
        impl Lane for $u {
            #[inline(always)]
            fn mask(k: bool) -> Self {
                <$u>::from(k).wrapping_neg()
            }
        }
    )*};
}
lane!(u8, u16, u32, u64);

/// `out[i] = if c[i] { t[i] } else { e[i] }` as a vectorised mask blend.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl", "x86_64+avx2+fma", "aarch64+neon"))]
fn select_lanes<U: Lane>(out: &mut [U], c: &[bool], t: &[U], e: &[U]) {
    for (((o, &k), &x), &y) in out.iter_mut().zip(c).zip(t).zip(e) {
        let m = U::mask(k);
        *o = (x & m) | (y & !m);
    }
}

/// `s` as `U` lanes when an element is exactly one aligned lane.
fn lanes<T: Element, U: Lane>(s: &[T]) -> Option<&[U]> {
    // SAFETY: every bit pattern is a valid unsigned integer, and the element types are
    // plain data; the split is only used when nothing is left over either side.
    let (head, mid, tail) = unsafe { s.align_to::<U>() };
    (size_of::<T>() == size_of::<U>() && head.is_empty() && tail.is_empty()).then_some(mid)
}

/// As [`lanes`], for the output.
fn lanes_mut<T: Element, U: Lane>(s: &mut [T]) -> Option<&mut [U]> {
    // SAFETY: as in `lanes`; writes of any `U` are valid elements of the plain-data `T`.
    let (head, mid, tail) = unsafe { s.align_to_mut::<U>() };
    (size_of::<T>() == size_of::<U>() && head.is_empty() && tail.is_empty()).then_some(mid)
}

/// One chunk of the select through the lane type `U`; false if `T` is not one lane.
fn select_as<T: Element, U: Lane>(out: &mut [T], c: &[bool], t: &[T], e: &[T]) -> bool {
    match (lanes::<T, U>(t), lanes::<T, U>(e), lanes_mut::<T, U>(out)) {
        (Some(t), Some(e), Some(o)) => {
            select_lanes(o, c, t, e);
            true
        }
        _ => false,
    }
}

/// `out[i] = if c[i] { t[i] } else { e[i] }`.
fn select_into<T: Element>(out: &mut [T], c: &[bool], t: &[T], e: &[T]) {
    let done = select_as::<T, u32>(out, c, t, e)
        || select_as::<T, u64>(out, c, t, e)
        || select_as::<T, u16>(out, c, t, e)
        || select_as::<T, u8>(out, c, t, e);
    if !done {
        // Wider elements (complex128): element by element.
        for (((o, &k), &x), &y) in out.iter_mut().zip(c).zip(t).zip(e) {
            *o = if k { x } else { y };
        }
    }
}

fn select_typed<T: Element>(c: &Tensor, t: &Tensor, e: &Tensor, shape: &[usize], env: &ExecEnv) -> Result<Tensor> {
    // `broadcast_to` shares (does not copy) an operand that already has the shape.
    let (c, t, e) = (broadcast_to(c, shape)?, broadcast_to(t, shape)?, broadcast_to(e, shape)?);
    let (cs, ts, es) = (c.as_slice::<bool>()?, t.as_slice::<T>()?, e.as_slice::<T>()?);
    let mut out = Tensor::for_overwrite(T::DTYPE, shape)?;
    env.for_each_chunk(out.as_mut_slice::<T>()?, PARALLEL_MIN, 64, |off, o| {
        let end = off + o.len();
        select_into(o, &cs[off..end], &ts[off..end], &es[off..end]);
    });
    Ok(out)
}

/// `SelectV2`: `t` where `condition`, else `e`, all broadcast together.
fn select(ctx: &mut OpContext<'_>) -> Result<()> {
    let out = select_tensors(ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.env)?;
    ctx.set_output(0, out);
    Ok(())
}

fn select_tensors(c: &Tensor, t: &Tensor, e: &Tensor, env: &ExecEnv) -> Result<Tensor> {
    let shape = broadcast_shapes(c.shape(), &broadcast_shapes(t.shape(), e.shape())?)?;
    let out = if t.dtype() == DType::String {
        let (c, t, e) = (broadcast_to(c, &shape)?, broadcast_to(t, &shape)?, broadcast_to(e, &shape)?);
        let v = c
            .as_slice::<bool>()?
            .iter()
            .zip(t.as_strings()?.iter().zip(e.as_strings()?))
            .map(|(&k, (x, y))| if k { x.clone() } else { y.clone() })
            .collect();
        Tensor::from_strings(&shape, v)?
    } else {
        dispatch_pod!(t.dtype(), T => select_typed::<T>(c, t, e, &shape, env)?,
            _ => ff_bail!(InvalidArgument, "no SelectV2 kernel for {}", t.dtype()))
    };
    Ok(out)
}

fn classify(ctx: &mut OpContext<'_>, finite: bool) -> Result<()> {
    use crate::kernels::elementwise::map_into;
    let x = ctx.input(0)?;
    let d = x.dtype();
    let out = crate::dispatch_float!(d, T => map_into::<T, bool>(x, ctx.env, |v| {
        if finite { Float::is_finite(v) } else { Float::is_nan(v) }
    })?, _ => ff_bail!(InvalidArgument, "no kernel for {d}"));
    ctx.set_output(0, out);
    Ok(())
}

/// `CheckNumerics`: passes its input through, or fails naming what it found.
struct CheckNumericsKernel {
    message: String,
}

/// `CheckNumerics`'s kernel.
pub(crate) fn check_numerics_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(CheckNumericsKernel { message: b.node.attr_or::<String>("message", String::new())? }))
}

fn scan<T: crate::kernels::num::Float>(x: &Tensor) -> Result<(bool, bool)> {
    let (mut nan, mut inf) = (false, false);
    for &v in x.as_slice::<T>()? {
        if v.partial_cmp(&v).is_none() {
            nan = true;
        } else if v.abs() == T::HIGHEST {
            inf = true;
        }
    }
    Ok((nan, inf))
}

impl OpKernel for CheckNumericsKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let (nan, inf) = crate::dispatch_float!(x.dtype(), T => scan::<T>(&x)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        let found = match (nan, inf) {
            (true, true) => Some("Inf and NaN"),
            (true, false) => Some("NaN"),
            (false, true) => Some("Inf"),
            _ => None,
        };
        if let Some(what) = found {
            ff_bail!(InvalidArgument, "{} : Tensor had {what} values", self.message);
        }
        ctx.set_output(0, x);
        Ok(())
    }
}

/// `LogicalAnd`.
pub(crate) fn logical_and_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|c| logical(c, |a, b| a && b))
}

/// `LogicalOr`.
pub(crate) fn logical_or_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|c| logical(c, |a, b| a || b))
}

/// `SelectV2`.
pub(crate) fn select_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(select)
}

/// TF-1.0's `Select`: `t` and `e` of one shape; the condition of that shape, a scalar,
/// or a vector choosing whole rows (TF's row selection).
pub(crate) fn select_v1_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let (c, t, e) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
        if t.shape() != e.shape() {
            ff_bail!(
                InvalidArgument,
                "'then' and 'else' must have the same size.  but received: {} vs. {}",
                crate::shape::fmt_shape(t.shape()),
                crate::shape::fmt_shape(e.shape())
            );
        }
        let rows = c.shape().len() == 1 && t.shape().len() > 1;
        if rows && c.shape()[0] != t.shape()[0] {
            ff_bail!(
                InvalidArgument,
                "Number of batches of 'then' must match size of 'cond', but saw: {} vs. {}",
                t.shape()[0],
                c.shape()[0]
            );
        }
        if !rows && !c.shape().is_empty() && c.shape() != t.shape() {
            ff_bail!(
                InvalidArgument,
                "'then' and cond must have the same size.  but received: {} vs. {}",
                crate::shape::fmt_shape(t.shape()),
                crate::shape::fmt_shape(c.shape())
            );
        }
        let out = if rows {
            let mut shape = vec![1usize; t.shape().len()];
            shape[0] = c.shape()[0];
            select_tensors(&c.reshaped(&shape)?, t, e, ctx.env)?
        } else {
            select_tensors(c, t, e, ctx.env)?
        };
        ctx.set_output(0, out);
        Ok(())
    })
}

/// `IsFinite`.
pub(crate) fn is_finite_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|c| classify(c, true))
}

/// `IsNan`.
pub(crate) fn is_nan_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|c| classify(c, false))
}
