//! Math ops: elementwise arithmetic with broadcasting, unary functions, matrix
//! multiplication and reductions.
use std::marker::PhantomData;

use super::{InferCtx, OpDef, Registry};
use crate::autodiff::math_grad as g;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::array::Castable;
use crate::kernels::elementwise::{binary, unary};
use crate::kernels::matmul::matmul;
use crate::kernels::num::{Float, Num};
use crate::kernels::{ExecEnv, KernelBuild, OpContext, OpKernel, stateless};
use crate::shape::{PartialShape, broadcast_partial};
use crate::tensor::Tensor;
use crate::{dispatch_float, dispatch_numeric};

pub(crate) const NUMERIC: &[DType] = &[DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::UInt8];
pub(crate) const FLOATS: &[DType] = &[DType::Float32, DType::Float64];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Add", &["x", "y"], infer_binary, binary_kernel::<AddFn>).grad(g::add));
    r.add(OpDef::new("AddV2", &["x", "y"], infer_binary, binary_kernel::<AddFn>).grad(g::add));
    r.add(OpDef::new("Sub", &["x", "y"], infer_binary, binary_kernel::<SubFn>).grad(g::sub));
    r.add(OpDef::new("Mul", &["x", "y"], infer_binary, binary_kernel::<MulFn>).grad(g::mul));
    r.add(OpDef::new("Div", &["x", "y"], infer_binary, binary_kernel::<DivFn>).grad(g::div));
    r.add(OpDef::new("RealDiv", &["x", "y"], infer_binary, binary_kernel::<DivFn>).grad(g::div));
    r.add(OpDef::new("DivNoNan", &["x", "y"], infer_binary_float, binary_kernel::<DivNoNanFn>).grad(g::div));
    r.add(OpDef::new("Maximum", &["x", "y"], infer_binary, binary_kernel::<MaxFn>).grad(g::maximum));
    r.add(OpDef::new("Minimum", &["x", "y"], infer_binary, binary_kernel::<MinFn>).grad(g::minimum));
    r.add(OpDef::new("FloorDiv", &["x", "y"], infer_binary, floor_kernel).no_grad());
    r.add(OpDef::new("FloorMod", &["x", "y"], infer_binary, floor_kernel).grad(g::floor_mod));
    r.add(OpDef::new("Pow", &["x", "y"], infer_binary, pow_kernel).grad(g::pow));
    r.add(OpDef::new("AddN", &["inputs"], infer_add_n, |_| stateless(add_n)).variadic().grad(g::add_n));
    r.add(OpDef::new("Neg", &["x"], infer_unary_numeric, unary_kernel::<NegFn>).grad(g::neg));
    r.add(OpDef::new("Square", &["x"], infer_unary_numeric, unary_kernel::<SquareFn>).grad(g::square));
    r.add(OpDef::new("Abs", &["x"], infer_unary_numeric, unary_kernel::<AbsFn>).grad(g::abs));
    r.add(OpDef::new("Sign", &["x"], infer_unary_numeric, unary_kernel::<SignFn>).grad(g::sign));
    r.add(OpDef::new("Sqrt", &["x"], infer_unary_float, float_kernel::<SqrtFn>).grad(g::sqrt));
    r.add(OpDef::new("Rsqrt", &["x"], infer_unary_float, float_kernel::<RsqrtFn>).grad(g::rsqrt));
    r.add(OpDef::new("Reciprocal", &["x"], infer_unary_float, float_kernel::<ReciprocalFn>).grad(g::reciprocal));
    r.add(OpDef::new("Exp", &["x"], infer_unary_float, float_kernel::<ExpFn>).grad(g::exp));
    r.add(OpDef::new("Log", &["x"], infer_unary_float, float_kernel::<LogFn>).grad(g::log));
    r.add(OpDef::new("Log1p", &["x"], infer_unary_float, float_kernel::<Log1pFn>).grad(g::log1p));
    r.add(OpDef::new("Tanh", &["x"], infer_unary_float, float_kernel::<TanhFn>).grad(g::tanh));
    r.add(OpDef::new("Sigmoid", &["x"], infer_unary_float, float_kernel::<SigmoidFn>).grad(g::sigmoid));
    r.add(OpDef::new("Sin", &["x"], infer_unary_float, float_kernel::<SinFn>).grad(g::sin));
    r.add(OpDef::new("Cos", &["x"], infer_unary_float, float_kernel::<CosFn>).grad(g::cos));
    // Piecewise constant: TF registers no gradient flow through them (None).
    r.add(OpDef::new("Floor", &["x"], infer_unary_float, float_kernel::<FloorFn>).no_grad());
    r.add(OpDef::new("Ceil", &["x"], infer_unary_float, float_kernel::<CeilFn>).no_grad());
    r.add(OpDef::new("Round", &["x"], infer_unary_float, float_kernel::<RoundFn>).no_grad());
    // Fused gradient ops (TF's names): first input the forward output y, second dy.
    r.add(OpDef::new("SqrtGrad", &["y", "dy"], infer_binary_float, binary_kernel::<SqrtGradFn>).grad(g::sqrt_grad));
    r.add(OpDef::new("RsqrtGrad", &["y", "dy"], infer_binary_float, binary_kernel::<RsqrtGradFn>).grad(g::rsqrt_grad));
    r.add(
        OpDef::new("ReciprocalGrad", &["y", "dy"], infer_binary_float, binary_kernel::<ReciprocalGradFn>)
            .grad(g::reciprocal_grad),
    );
    r.add(OpDef::new("TanhGrad", &["y", "dy"], infer_binary_float, binary_kernel::<TanhGradFn>).grad(g::tanh_grad));
    r.add(
        OpDef::new("SigmoidGrad", &["y", "dy"], infer_binary_float, binary_kernel::<SigmoidGradFn>)
            .grad(g::sigmoid_grad),
    );
    r.add(
        OpDef::new("MatMul", &["a", "b"], infer_matmul, matmul_kernel).cost(super::Cost::Contraction).grad(g::matmul),
    );
}

fn infer_binary(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, NUMERIC)?;
    let shape = broadcast_partial(&ctx.input(0).shape, &ctx.input(1).shape)
        .map_err(|e| Error::value(format!("{} for '{}' (op: '{}')", e.message, ctx.name, ctx.def.name)))?;
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
binary_fn!(DivNoNanFn, |a, b| if b.is_zero() { T::ZERO } else { a.div(b) });
binary_fn!(MaxFn, |a, b| a.max(b));
binary_fn!(MinFn, |a, b| a.min(b));
// Gradient helpers: (y, dy) -> dx, as TF's fused *Grad kernels.
binary_fn!(SqrtGradFn, |y, dy| dy.div(y.add(y)));
binary_fn!(RsqrtGradFn, |y, dy| dy.mul(y).mul(y).mul(y).neg().div(T::ONE.add(T::ONE)));
binary_fn!(ReciprocalGradFn, |y, dy| dy.mul(y).mul(y).neg());
binary_fn!(TanhGradFn, |y, dy| dy.mul(T::ONE.sub(y.mul(y))));
binary_fn!(SigmoidGradFn, |y, dy| dy.mul(y).mul(T::ONE.sub(y)));

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
            binary::<T>(a, b, ctx.env, F::apply::<T>)?
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
unary_fn!(FloatFn, Float, SigmoidFn, |x| T::ONE.div(T::ONE.add(x.neg().exp())));
unary_fn!(FloatFn, Float, SinFn, |x| x.sin());
unary_fn!(FloatFn, Float, CosFn, |x| x.cos());
unary_fn!(FloatFn, Float, FloorFn, |x| x.floor());
unary_fn!(FloatFn, Float, CeilFn, |x| x.ceil());
unary_fn!(FloatFn, Float, RoundFn, |x| x.round_even());

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
        let out = dispatch_numeric!(x.dtype(), T => unary::<T>(x, ctx.env, F::apply::<T>)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

impl<F: FloatFn> OpKernel for FloatKernel<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let out = dispatch_float!(x.dtype(), T => unary::<T>(x, ctx.env, F::apply::<T>)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn infer_matmul(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, &[DType::Float32, DType::Float64, DType::Int32, DType::Int64])?;
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
    Ok(Box::new(MatMulKernel { transpose_a: flag("transpose_a"), transpose_b: flag("transpose_b") }))
}

impl OpKernel for MatMulKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = matmul(ctx.input(0)?, ctx.input(1)?, self.transpose_a, self.transpose_b, ctx.env)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn infer_binary_float(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, FLOATS)?;
    let shape = ctx.input(0).shape.merge(&ctx.input(1).shape)?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_add_n(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let all: Vec<usize> = (0..ctx.inputs.len()).collect();
    let t = ctx.same_type(&all)?;
    ctx.check_type(0, NUMERIC)?;
    ctx.attrs.insert("N".into(), AttrValue::I(i64::try_from(all.len()).unwrap_or(i64::MAX)));
    let mut shape = PartialShape::unknown();
    for s in ctx.inputs {
        shape = shape
            .merge(&s.shape)
            .map_err(|e| Error::value(format!("AddN inputs must have the same shape: {}", e.message)))?;
    }
    Ok(vec![OutputSpec::new(t, shape)])
}

/// `AddN`: sums same-shaped tensors into the first input's buffer when it is unique.
fn add_n(ctx: &mut OpContext<'_>) -> Result<()> {
    let mut acc = ctx.take_input(0)?;
    for i in 1..ctx.num_inputs() {
        let x = ctx.take_input(i)?;
        if x.shape() != acc.shape() {
            ff_bail!(
                InvalidArgument,
                "Inputs to operation AddN must have the same size and shape.  Input 0: {} != input {i}: {}",
                crate::shape::fmt_shape(acc.shape()),
                crate::shape::fmt_shape(x.shape())
            );
        }
        acc = dispatch_numeric!(acc.dtype(), T => binary::<T>(acc, x, ctx.env, T::add)?, _ => ff_bail!(InvalidArgument, "no AddN kernel for {}", acc.dtype()));
    }
    ctx.set_output(0, acc);
    Ok(())
}

/// `FloorDiv` and `FloorMod` with Python semantics (integer division by zero is an error).
struct FloorKernel {
    modulo: bool,
}

fn floor_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(FloorKernel { modulo: b.node.op_type() == "FloorMod" }))
}

fn floor_int<T: Num + std::ops::Rem<Output = T>>(a: T, b: T, modulo: bool) -> T {
    let q = a.div(b);
    let r = a.sub(q.mul(b));
    // Round the quotient toward negative infinity when the signs differ.
    let adjust = r != T::ZERO && ((r < T::ZERO) != (b < T::ZERO));
    match (modulo, adjust) {
        (false, true) => q.sub(T::ONE),
        (false, false) => q,
        (true, true) => r.add(b),
        (true, false) => r,
    }
}

impl OpKernel for FloorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.take_input(0)?, ctx.take_input(1)?);
        let m = self.modulo;
        let out = match a.dtype() {
            DType::Float32 => {
                binary::<f32>(a, b, ctx.env, |x, y| if m { x - (x / y).floor() * y } else { (x / y).floor() })?
            }
            DType::Float64 => {
                binary::<f64>(a, b, ctx.env, |x, y| if m { x - (x / y).floor() * y } else { (x / y).floor() })?
            }
            d => dispatch_numeric!(d, T => {
                if b.as_slice::<T>()?.iter().any(|v| v.is_zero()) {
                    ff_bail!(InvalidArgument, "Integer division by zero");
                }
                binary::<T>(a, b, ctx.env, |x, y| floor_int(x, y, m))?
            }, _ => ff_bail!(InvalidArgument, "no kernel for {d}")),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `Pow`: `x ** y`; integer powers with negative exponents are an error, as in TF.
fn pow_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let (a, b) = (ctx.take_input(0)?, ctx.take_input(1)?);
        let out = match a.dtype() {
            DType::Float32 => binary::<f32>(a, b, ctx.env, f32::powf)?,
            DType::Float64 => binary::<f64>(a, b, ctx.env, f64::powf)?,
            DType::Int32 => int_pow::<i32>(&a, &b, ctx.env, i32::wrapping_pow)?,
            DType::Int64 => int_pow::<i64>(&a, &b, ctx.env, i64::wrapping_pow)?,
            d => ff_bail!(InvalidArgument, "no Pow kernel for {d}"),
        };
        ctx.set_output(0, out);
        Ok(())
    })
}

/// Integer `x ** y` by squaring (wrapping, as TF's C++); negative exponents are an error.
fn int_pow<T: Num + Castable>(a: &Tensor, b: &Tensor, env: &ExecEnv, pow: fn(T, u32) -> T) -> Result<Tensor> {
    if b.as_slice::<T>()?.iter().any(|e| e.to_i64() < 0) {
        ff_bail!(InvalidArgument, "Integers to negative integer powers are not allowed");
    }
    crate::kernels::elementwise::binary_to::<T, T>(a, b, env, |x, y| {
        // Clamp huge exponents to u32, keeping their parity (it decides the sign of (-1)**y).
        let e = y.to_i64();
        let e = u32::try_from(e).unwrap_or(u32::MAX - 1 + u32::from(e % 2 == 1));
        pow(x, e)
    })
}
