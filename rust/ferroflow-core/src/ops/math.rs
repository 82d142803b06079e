//! Math ops: elementwise arithmetic with broadcasting, unary functions, matrix
//! multiplication and reductions.
use std::marker::PhantomData;

use super::{InferCtx, OpDef, Registry, int_values};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::elementwise::{binary, unary};
use crate::kernels::matmul::matmul;
use crate::kernels::num::{Float, Num};
use crate::kernels::reduce::{Reduction, reduce};
use crate::kernels::{KernelBuild, OpContext, OpKernel};
use crate::shape::{PartialShape, broadcast_partial, normalize_axis};
use crate::{dispatch_float, dispatch_numeric};

const NUMERIC: &[DType] = &[
    DType::Float32,
    DType::Float64,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
];
const FLOATS: &[DType] = &[DType::Float32, DType::Float64];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new(
        "Add",
        &["x", "y"],
        infer_binary,
        binary_kernel::<AddFn>,
    ));
    r.add(OpDef::new(
        "AddV2",
        &["x", "y"],
        infer_binary,
        binary_kernel::<AddFn>,
    ));
    r.add(OpDef::new(
        "Sub",
        &["x", "y"],
        infer_binary,
        binary_kernel::<SubFn>,
    ));
    r.add(OpDef::new(
        "Mul",
        &["x", "y"],
        infer_binary,
        binary_kernel::<MulFn>,
    ));
    r.add(OpDef::new(
        "Div",
        &["x", "y"],
        infer_binary,
        binary_kernel::<DivFn>,
    ));
    r.add(OpDef::new(
        "RealDiv",
        &["x", "y"],
        infer_binary,
        binary_kernel::<DivFn>,
    ));
    r.add(OpDef::new(
        "Maximum",
        &["x", "y"],
        infer_binary,
        binary_kernel::<MaxFn>,
    ));
    r.add(OpDef::new(
        "Minimum",
        &["x", "y"],
        infer_binary,
        binary_kernel::<MinFn>,
    ));
    r.add(OpDef::new(
        "Neg",
        &["x"],
        infer_unary_numeric,
        unary_kernel::<NegFn>,
    ));
    r.add(OpDef::new(
        "Square",
        &["x"],
        infer_unary_numeric,
        unary_kernel::<SquareFn>,
    ));
    r.add(OpDef::new(
        "Abs",
        &["x"],
        infer_unary_numeric,
        unary_kernel::<AbsFn>,
    ));
    r.add(OpDef::new(
        "Sign",
        &["x"],
        infer_unary_numeric,
        unary_kernel::<SignFn>,
    ));
    r.add(OpDef::new(
        "Sqrt",
        &["x"],
        infer_unary_float,
        float_kernel::<SqrtFn>,
    ));
    r.add(OpDef::new(
        "Rsqrt",
        &["x"],
        infer_unary_float,
        float_kernel::<RsqrtFn>,
    ));
    r.add(OpDef::new(
        "Reciprocal",
        &["x"],
        infer_unary_float,
        float_kernel::<ReciprocalFn>,
    ));
    r.add(OpDef::new(
        "Exp",
        &["x"],
        infer_unary_float,
        float_kernel::<ExpFn>,
    ));
    r.add(OpDef::new(
        "Log",
        &["x"],
        infer_unary_float,
        float_kernel::<LogFn>,
    ));
    r.add(OpDef::new(
        "Log1p",
        &["x"],
        infer_unary_float,
        float_kernel::<Log1pFn>,
    ));
    r.add(OpDef::new(
        "Tanh",
        &["x"],
        infer_unary_float,
        float_kernel::<TanhFn>,
    ));
    r.add(OpDef::new(
        "Sigmoid",
        &["x"],
        infer_unary_float,
        float_kernel::<SigmoidFn>,
    ));
    r.add(OpDef::new(
        "Sin",
        &["x"],
        infer_unary_float,
        float_kernel::<SinFn>,
    ));
    r.add(OpDef::new(
        "Cos",
        &["x"],
        infer_unary_float,
        float_kernel::<CosFn>,
    ));
    r.add(OpDef::new(
        "MatMul",
        &["a", "b"],
        infer_matmul,
        matmul_kernel,
    ));
    for name in ["Sum", "Mean", "Max", "Min", "Prod"] {
        r.add(OpDef::new(
            name,
            &["input", "reduction_indices"],
            infer_reduce,
            reduce_kernel,
        ));
    }
}

fn infer_binary(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, NUMERIC)?;
    let shape = broadcast_partial(&ctx.input(0).shape, &ctx.input(1).shape).map_err(|e| {
        Error::value(format!(
            "{} for '{}' (op: '{}')",
            e.message, ctx.name, ctx.def.name
        ))
    })?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_unary_numeric(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, NUMERIC)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_unary_float(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, FLOATS)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

/// A binary elementwise function defined for every numeric type.
trait BinaryFn: Send + Sync + 'static {
    /// Integer division: a zero divisor is an error rather than a value.
    const CHECKS_ZERO_DIVISOR: bool = false;
    fn apply<T: Num>(a: T, b: T) -> T;
}

macro_rules! binary_fn {
    ($name:ident, |$a:ident, $b:ident| $e:expr $(, $zero:expr)?) => {
        struct $name;
        impl BinaryFn for $name {
            $(const CHECKS_ZERO_DIVISOR: bool = $zero;)?
            #[inline]
            fn apply<T: Num>($a: T, $b: T) -> T { $e }
        }
    };
}
binary_fn!(AddFn, |a, b| a.add(b));
binary_fn!(SubFn, |a, b| a.sub(b));
binary_fn!(MulFn, |a, b| a.mul(b));
binary_fn!(DivFn, |a, b| a.div(b), true);
binary_fn!(MaxFn, |a, b| a.max(b));
binary_fn!(MinFn, |a, b| a.min(b));

struct BinaryKernel<F>(PhantomData<F>);

fn binary_kernel<F: BinaryFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BinaryKernel::<F>(PhantomData)))
}

impl<F: BinaryFn> OpKernel for BinaryKernel<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.take_input(0)?, ctx.take_input(1)?);
        let out = dispatch_numeric!(a.dtype(), T => {
            if F::CHECKS_ZERO_DIVISOR && a.dtype().is_integer() && b.as_slice::<T>()?.iter().any(|v| v.is_zero()) {
                ff_bail!(InvalidArgument, "Integer division by zero");
            }
            binary::<T>(a, b, F::apply::<T>)?
        }, _ => ff_bail!(InvalidArgument, "no kernel for {}", a.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// A unary function defined for every numeric type.
trait UnaryFn: Send + Sync + 'static {
    fn apply<T: Num>(x: T) -> T;
}
/// A unary function defined for floating types.
trait FloatFn: Send + Sync + 'static {
    fn apply<T: Float>(x: T) -> T;
}

macro_rules! unary_fn {
    ($trait:ident, $bound:ident, $name:ident, |$x:ident| $e:expr) => {
        struct $name;
        impl $trait for $name {
            #[inline]
            fn apply<T: $bound>($x: T) -> T {
                $e
            }
        }
    };
}
unary_fn!(UnaryFn, Num, NegFn, |x| x.neg());
unary_fn!(UnaryFn, Num, SquareFn, |x| x.mul(x));
unary_fn!(UnaryFn, Num, AbsFn, |x| x.abs_val());
unary_fn!(UnaryFn, Num, SignFn, |x| x.sign());
unary_fn!(FloatFn, Float, SqrtFn, |x| x.sqrt());
unary_fn!(FloatFn, Float, RsqrtFn, |x| T::ONE.div(x.sqrt()));
unary_fn!(FloatFn, Float, ReciprocalFn, |x| T::ONE.div(x));
unary_fn!(FloatFn, Float, ExpFn, |x| x.exp());
unary_fn!(FloatFn, Float, LogFn, |x| x.ln());
unary_fn!(FloatFn, Float, Log1pFn, |x| x.ln_1p());
unary_fn!(FloatFn, Float, TanhFn, |x| x.tanh());
unary_fn!(FloatFn, Float, SigmoidFn, |x| T::ONE
    .div(T::ONE.add(x.neg().exp())));
unary_fn!(FloatFn, Float, SinFn, |x| x.sin());
unary_fn!(FloatFn, Float, CosFn, |x| x.cos());

struct UnaryKernel<F>(PhantomData<F>);
struct FloatKernel<F>(PhantomData<F>);

fn unary_kernel<F: UnaryFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(UnaryKernel::<F>(PhantomData)))
}
fn float_kernel<F: FloatFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(FloatKernel::<F>(PhantomData)))
}

impl<F: UnaryFn> OpKernel for UnaryKernel<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let out = dispatch_numeric!(x.dtype(), T => unary::<T>(x, F::apply::<T>)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

impl<F: FloatFn> OpKernel for FloatKernel<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let out = dispatch_float!(x.dtype(), T => unary::<T>(x, F::apply::<T>)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn infer_matmul(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(
        0,
        &[DType::Float32, DType::Float64, DType::Int32, DType::Int64],
    )?;
    let ta = ctx.attr_bool("transpose_a", false)?;
    let tb = ctx.attr_bool("transpose_b", false)?;
    let (a, b) = (&ctx.input(0).shape, &ctx.input(1).shape);
    for s in [a, b] {
        if let Some(r) = s.rank()
            && r != 2
        {
            return Err(Error::value(format!(
                "Shape must be rank 2 but is rank {r} for '{}' (op: 'MatMul')",
                ctx.name
            )));
        }
    }
    let two = |s: &PartialShape| s.dims().map_or([None, None], |d| [d[0], d[1]]);
    let [a0, a1] = two(a);
    let [b0, b1] = two(b);
    let (m, ka) = if ta { (a1, a0) } else { (a0, a1) };
    let (kb, n) = if tb { (b1, b0) } else { (b0, b1) };
    if let (Some(x), Some(y)) = (ka, kb)
        && x != y
    {
        return Err(Error::value(format!(
            "Dimensions must be equal, but are {x} and {y} for '{}' (op: 'MatMul') with input shapes: {a}, {b}.",
            ctx.name
        )));
    }
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([m, n]))])
}

struct MatMulKernel {
    transpose_a: bool,
    transpose_b: bool,
}

fn matmul_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let flag = |n: &str| matches!(b.node.attrs.get(n), Some(AttrValue::B(true)));
    Ok(Box::new(MatMulKernel {
        transpose_a: flag("transpose_a"),
        transpose_b: flag("transpose_b"),
    }))
}

impl OpKernel for MatMulKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = matmul(
            ctx.input(0)?,
            ctx.input(1)?,
            self.transpose_a,
            self.transpose_b,
            ctx.env,
        )?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// Normalises, sorts and de-duplicates reduction axes for a tensor of rank `rank`.
fn reduction_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        match normalize_axis(a, rank) {
            Some(x) => out.push(x),
            None => ff_bail!(
                InvalidArgument,
                "Invalid reduction dimension ({a} for input with {rank} dimension(s)"
            ),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

fn infer_reduce(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, NUMERIC)?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let tidx = ctx.input(1).dtype;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(tidx));
    let keep = ctx.attr_bool("keep_dims", false)?;
    let input = ctx.input(0).shape.clone();
    let Some(rank) = input.rank() else {
        return Ok(vec![OutputSpec::new(t, PartialShape::unknown())]);
    };
    let Some(axes) = ctx.constant_input(1) else {
        let shape = if keep {
            PartialShape::unknown_of_rank(rank)
        } else {
            PartialShape::unknown()
        };
        return Ok(vec![OutputSpec::new(t, shape)]);
    };
    let axes = reduction_axes(&int_values(axes)?, rank).map_err(|e| Error::value(e.message))?;
    let dims = input.dims().unwrap_or_default();
    let out = dims
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match (axes.contains(&i), keep) {
            (true, true) => Some(Some(1)),
            (true, false) => None,
            (false, _) => Some(*d),
        });
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(out))])
}

struct ReduceKernel {
    reduction: Reduction,
    keep_dims: bool,
}

fn reduce_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let reduction = match b.node.op_type() {
        "Sum" => Reduction::Sum,
        "Mean" => Reduction::Mean,
        "Max" => Reduction::Max,
        "Min" => Reduction::Min,
        _ => Reduction::Prod,
    };
    let keep_dims = matches!(b.node.attrs.get("keep_dims"), Some(AttrValue::B(true)));
    Ok(Box::new(ReduceKernel {
        reduction,
        keep_dims,
    }))
}

impl OpKernel for ReduceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let axes = reduction_axes(&int_values(ctx.input(1)?)?, x.shape().len())?;
        let out = dispatch_numeric!(x.dtype(), T => reduce::<T>(x, &axes, self.keep_dims, self.reduction)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}
