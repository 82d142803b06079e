//! Comparisons, logical ops and `SelectV2` (`tf.where(cond, x, y)`), all with numpy
//! broadcasting, plus the float classification ops `IsFinite`/`IsNan`.
use std::marker::PhantomData;

use super::{InferCtx, OpDef, Registry};
use crate::autodiff::math_grad as g;
use crate::dispatch_pod;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::OutputSpec;
use crate::kernels::elementwise::binary_to;
use crate::kernels::layout::broadcast_to;
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};
use crate::shape::{broadcast_partial, broadcast_shapes};
use crate::tensor::Tensor;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Equal", &["x", "y"], infer_compare, compare_kernel::<EqFn>).no_grad());
    r.add(OpDef::new("NotEqual", &["x", "y"], infer_compare, compare_kernel::<NeFn>).no_grad());
    r.add(OpDef::new("Less", &["x", "y"], infer_compare, compare_kernel::<LtFn>).no_grad());
    r.add(OpDef::new("LessEqual", &["x", "y"], infer_compare, compare_kernel::<LeFn>).no_grad());
    r.add(OpDef::new("Greater", &["x", "y"], infer_compare, compare_kernel::<GtFn>).no_grad());
    r.add(OpDef::new("GreaterEqual", &["x", "y"], infer_compare, compare_kernel::<GeFn>).no_grad());
    r.add(OpDef::new("LogicalAnd", &["x", "y"], infer_logical, |_| stateless(|c| logical(c, |a, b| a && b))).no_grad());
    r.add(OpDef::new("LogicalOr", &["x", "y"], infer_logical, |_| stateless(|c| logical(c, |a, b| a || b))).no_grad());
    r.add(OpDef::new("SelectV2", &["condition", "t", "e"], infer_select, |_| stateless(select)).grad(g::select));
    r.add(OpDef::new("IsFinite", &["x"], infer_classify, |_| stateless(|c| classify(c, true))).no_grad());
    r.add(
        OpDef::new("CheckNumerics", &["tensor"], infer_check_numerics, check_numerics_kernel).grad(g::check_numerics),
    );
    r.add(OpDef::new("IsNan", &["x"], infer_classify, |_| stateless(|c| classify(c, false))).no_grad());
}

fn broadcast_shape_of(ctx: &InferCtx<'_>, a: usize, b: usize) -> Result<crate::shape::PartialShape> {
    broadcast_partial(&ctx.input(a).shape, &ctx.input(b).shape)
        .map_err(|e| Error::value(format!("{} for '{}' (op: '{}')", e.message, ctx.name, ctx.def.name)))
}

fn infer_compare(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.same_type(&[0, 1])?;
    if ctx.def.name != "Equal" && ctx.def.name != "NotEqual" {
        ctx.check_type(0, super::math::NUMERIC)?;
    }
    Ok(vec![OutputSpec::new(DType::Bool, broadcast_shape_of(&ctx, 0, 1)?)])
}

/// A comparison defined for every ordered element type.
trait CompareFn: Send + Sync + 'static {
    fn apply<T: PartialOrd>(a: T, b: T) -> bool;
}

macro_rules! compare_fn {
    ($name:ident, $op:tt) => {
        struct $name;
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

fn compare_kernel<F: CompareFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
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

fn infer_logical(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    ctx.check_type(1, &[DType::Bool])?;
    Ok(vec![OutputSpec::new(DType::Bool, broadcast_shape_of(&ctx, 0, 1)?)])
}

fn logical(ctx: &mut OpContext<'_>, f: fn(bool, bool) -> bool) -> Result<()> {
    let out = binary_to::<bool, bool>(ctx.input(0)?, ctx.input(1)?, ctx.env, f)?;
    ctx.set_output(0, out);
    Ok(())
}

fn infer_select(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    let t = ctx.same_type(&[1, 2])?;
    let te = broadcast_shape_of(&ctx, 1, 2)?;
    let shape = broadcast_partial(&ctx.input(0).shape, &te)
        .map_err(|e| Error::value(format!("{} for '{}' (op: 'SelectV2')", e.message, ctx.name)))?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn select_typed<T: Element>(c: &Tensor, t: &Tensor, e: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let (c, t, e) = (broadcast_to(c, shape)?, broadcast_to(t, shape)?, broadcast_to(e, shape)?);
    let out: Vec<T> = c
        .as_slice::<bool>()?
        .iter()
        .zip(t.as_slice::<T>()?.iter().zip(e.as_slice::<T>()?))
        .map(|(&k, (&x, &y))| if k { x } else { y })
        .collect();
    Tensor::from_slice(shape, &out)
}

/// `SelectV2`: `t` where `condition`, else `e`, all broadcast together.
fn select(ctx: &mut OpContext<'_>) -> Result<()> {
    let (c, t, e) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
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
        dispatch_pod!(t.dtype(), T => select_typed::<T>(c, t, e, &shape)?,
            _ => ff_bail!(InvalidArgument, "no SelectV2 kernel for {}", t.dtype()))
    };
    ctx.set_output(0, out);
    Ok(())
}

fn infer_classify(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.same_type(&[0])?;
    ctx.check_type(0, super::math::FLOATS)?;
    Ok(vec![OutputSpec::new(DType::Bool, ctx.input(0).shape.clone())])
}

fn classify(ctx: &mut OpContext<'_>, finite: bool) -> Result<()> {
    use crate::kernels::elementwise::map_into;
    let x = ctx.input(0)?;
    let out = match x.dtype() {
        DType::Float32 => map_into::<f32, bool>(x, ctx.env, |v| if finite { v.is_finite() } else { v.is_nan() })?,
        DType::Float64 => map_into::<f64, bool>(x, ctx.env, |v| if finite { v.is_finite() } else { v.is_nan() })?,
        d => ff_bail!(InvalidArgument, "no kernel for {d}"),
    };
    ctx.set_output(0, out);
    Ok(())
}

fn infer_check_numerics(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, super::math::FLOATS)?;
    ctx.attrs.entry("message".into()).or_insert_with(|| crate::graph::AttrValue::S(Vec::new()));
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

/// `CheckNumerics`: passes its input through, or fails naming what it found.
struct CheckNumericsKernel {
    message: String,
}

fn check_numerics_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(CheckNumericsKernel { message: b.node.attr_str_or("message", "")? }))
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
