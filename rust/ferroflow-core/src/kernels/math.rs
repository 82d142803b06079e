//! Kernels of the math ops: elementwise arithmetic with broadcasting, the unary
//! functions, their fused gradients, `AddN`, `FloorDiv`/`FloorMod` and `Pow` (shapes
//! and registration in `ops/math.rs`; `MatMul` is in `matmul.rs`).
use std::marker::PhantomData;

use crate::dtype::DType;
use crate::error::Result;
use crate::kernels::array::Castable;
use crate::kernels::elementwise::{binary, unary, unary_chunks};
use crate::kernels::num::{Float, Num};
use crate::kernels::{ExecEnv, KernelBuild, OpContext, OpKernel, stateless};
use crate::tensor::Tensor;
use crate::{dispatch_complex, dispatch_float, dispatch_numeric};
use num_complex::Complex;

/// A binary elementwise function defined for every numeric type.
pub trait BinaryFn: Send + Sync + 'static {
    /// Integer division: a zero divisor is an error rather than a value.
    const CHECKS_ZERO_DIVISOR: bool = false;
    /// The function of two elements.
    fn apply<T: Num>(a: T, b: T) -> T;
    /// The function of two complex elements, for the ops TF has complex kernels of
    /// (`Add`, `Sub`, `Mul`, `Div`); None for the others.
    fn apply_complex<R: ComplexPart>(_a: Complex<R>, _b: Complex<R>) -> Option<Complex<R>> {
        None
    }
}

/// The part type of a complex element (`f32`, `f64`).
pub trait ComplexPart: num_complex::ComplexFloat + Send + Sync + 'static {}
impl ComplexPart for f32 {}
impl ComplexPart for f64 {}

macro_rules! binary_fn {
    ($name:ident, |$a:ident, $b:ident| $e:expr $(, $zero:expr)?) => {
        #[allow(missing_docs)]
        pub struct $name;
        impl BinaryFn for $name {
            $(const CHECKS_ZERO_DIVISOR: bool = $zero;)?
            #[inline]
            fn apply<T: Num>($a: T, $b: T) -> T { $e }
        }
    };
}
/// A binary function that is also one of complex numbers (the same expression).
macro_rules! binary_fn_complex {
    ($name:ident, |$a:ident, $b:ident| $e:expr, |$ca:ident, $cb:ident| $ce:expr $(, $zero:expr)?) => {
        #[allow(missing_docs)]
        pub struct $name;
        impl BinaryFn for $name {
            $(const CHECKS_ZERO_DIVISOR: bool = $zero;)?
            #[inline]
            fn apply<T: Num>($a: T, $b: T) -> T { $e }
            #[inline]
            fn apply_complex<R: ComplexPart>($ca: Complex<R>, $cb: Complex<R>) -> Option<Complex<R>> { Some($ce) }
        }
    };
}
binary_fn_complex!(AddFn, |a, b| a.add(b), |a, b| a + b);
binary_fn_complex!(SubFn, |a, b| a.sub(b), |a, b| a - b);
binary_fn_complex!(MulFn, |a, b| a.mul(b), |a, b| a * b);
binary_fn_complex!(DivFn, |a, b| a.div(b), |a, b| a / b, true);
binary_fn_complex!(DivNoNanFn, |a, b| if b.is_zero() { T::ZERO } else { a.div(b) }, |a, b| {
    if b == Complex::new(R::zero(), R::zero()) { Complex::new(R::zero(), R::zero()) } else { a / b }
});
binary_fn!(MaxFn, |a, b| a.max(b));
binary_fn!(MinFn, |a, b| a.min(b));
binary_fn!(SquaredDifferenceFn, |a, b| {
    let d = a.sub(b);
    d.mul(d)
});
// Gradient helpers: (y, dy) -> dx, as TF's fused *Grad kernels.
binary_fn!(SqrtGradFn, |y, dy| dy.div(y.add(y)));
binary_fn!(RsqrtGradFn, |y, dy| dy.mul(y).mul(y).mul(y).neg().div(T::ONE.add(T::ONE)));
binary_fn!(ReciprocalGradFn, |y, dy| dy.mul(y).mul(y).neg());
binary_fn!(TanhGradFn, |y, dy| dy.mul(T::ONE.sub(y.mul(y))));
binary_fn!(SigmoidGradFn, |y, dy| dy.mul(y).mul(T::ONE.sub(y)));

struct BinaryKernel<F>(PhantomData<F>);

/// The kernel of a binary elementwise op with broadcasting.
pub(crate) fn binary_kernel<F: BinaryFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(BinaryKernel::<F>(PhantomData)))
}

/// A binary op's complex kernel: `F::apply_complex` elementwise, with broadcasting.
fn binary_complex<F: BinaryFn>(a: Tensor, b: Tensor, env: &ExecEnv) -> Result<Tensor> {
    let dtype = a.dtype();
    if F::apply_complex(Complex::<f32>::default(), Complex::default()).is_none() {
        ff_bail!(InvalidArgument, "no kernel for {dtype}");
    }
    Ok(dispatch_complex!(dtype, C, R => binary::<C>(a, b, env, |x, y| F::apply_complex::<R>(x, y).unwrap_or(x))?,
        _ => ff_bail!(InvalidArgument, "no kernel for {dtype}")))
}

impl<F: BinaryFn> OpKernel for BinaryKernel<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (ctx.take_input(0)?, ctx.take_input(1)?);
        if a.dtype().is_complex() {
            let out = binary_complex::<F>(a, b, ctx.env)?;
            ctx.set_output(0, out);
            return Ok(());
        }
        let out = dispatch_numeric!(a.dtype(), T => {
            // As TF: only a division that happens fails (an empty result divides nothing).
            if F::CHECKS_ZERO_DIVISOR
                && a.dtype().is_integer()
                && a.num_elements() != 0
                && b.as_slice::<T>()?.iter().any(|v| v.is_zero())
            {
                ff_bail!(InvalidArgument, "Integer division by zero");
            }
            binary::<T>(a, b, ctx.env, F::apply::<T>)?
        }, _ => ff_bail!(InvalidArgument, "no kernel for {}", a.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// A unary function defined for every numeric type.
pub trait UnaryFn: Send + Sync + 'static {
    /// The function of an element.
    fn apply<T: Num>(x: T) -> T;
    /// The function of a complex element (`Neg`, `Square`); None for the others.
    fn apply_complex<R: ComplexPart>(_x: Complex<R>) -> Option<Complex<R>> {
        None
    }
}
/// A unary function defined for floating types.
pub trait FloatFn: Send + Sync + 'static {
    /// The function of an element.
    fn apply<T: Float>(x: T) -> T;
}

macro_rules! unary_fn {
    ($trait:ident, $bound:ident, $name:ident, |$x:ident| $e:expr) => {
        #[allow(missing_docs)]
        pub struct $name;
        impl $trait for $name {
            #[inline]
            fn apply<T: $bound>($x: T) -> T {
                $e
            }
        }
    };
}
/// `Neg` and `Square`, which TF also has complex kernels of.
macro_rules! unary_fn_complex {
    ($name:ident, |$x:ident| $e:expr, |$cx:ident| $ce:expr) => {
        #[allow(missing_docs)]
        pub struct $name;
        impl UnaryFn for $name {
            #[inline]
            fn apply<T: Num>($x: T) -> T {
                $e
            }
            #[inline]
            fn apply_complex<R: ComplexPart>($cx: Complex<R>) -> Option<Complex<R>> {
                Some($ce)
            }
        }
    };
}
unary_fn_complex!(NegFn, |x| x.neg(), |x| -x);
unary_fn_complex!(SquareFn, |x| x.mul(x), |x| x * x);
unary_fn!(UnaryFn, Num, AbsFn, |x| x.abs_val());
unary_fn!(UnaryFn, Num, SignFn, |x| x.sign());
unary_fn!(FloatFn, Float, SqrtFn, |x| x.sqrt());
unary_fn!(FloatFn, Float, RsqrtFn, |x| T::ONE.div(x.sqrt()));
unary_fn!(FloatFn, Float, ReciprocalFn, |x| T::ONE.div(x));
unary_fn!(FloatFn, Float, ExpFn, |x| x.exp());
unary_fn!(FloatFn, Float, LogFn, |x| x.ln());
unary_fn!(FloatFn, Float, Log1pFn, |x| x.ln_1p());
unary_fn!(FloatFn, Float, TanhFn, |x| x.tanh());
unary_fn!(FloatFn, Float, SigmoidFn, |x| x.sigmoid());
unary_fn!(FloatFn, Float, SinFn, |x| x.sin());
unary_fn!(FloatFn, Float, CosFn, |x| x.cos());
unary_fn!(FloatFn, Float, FloorFn, |x| x.floor());
unary_fn!(FloatFn, Float, CeilFn, |x| x.ceil());
unary_fn!(FloatFn, Float, RoundFn, |x| x.round_even());

struct UnaryKernel<F>(PhantomData<F>);
struct FloatKernel<F>(PhantomData<F>);

/// The kernel of a unary op on every numeric type.
pub(crate) fn unary_kernel<F: UnaryFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(UnaryKernel::<F>(PhantomData)))
}
/// The kernel of a unary op on floating types.
pub(crate) fn float_kernel<F: FloatFn>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(FloatKernel::<F>(PhantomData)))
}

impl<F: UnaryFn> OpKernel for UnaryKernel<F> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let dtype = x.dtype();
        if dtype.is_complex() {
            let out = dispatch_complex!(dtype, C, R => {
                if F::apply_complex::<R>(C::default()).is_none() {
                    ff_bail!(InvalidArgument, "no kernel for {dtype}");
                }
                unary::<C>(x, ctx.env, |v| F::apply_complex::<R>(v).unwrap_or(v))?
            }, _ => unreachable!("a complex type"));
            ctx.set_output(0, out);
            return Ok(());
        }
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

/// `Sin` (`SINE`) or `Cos`: float32 in fastmath's vectorised blocks (Eigen's
/// reduction and polynomials), the other float types through their `Float` function.
struct SinCosKernel<const SINE: bool>;

/// The kernel of `Sin` (`SINE`) or `Cos`.
pub(crate) fn sin_cos_kernel<const SINE: bool>(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SinCosKernel::<SINE>))
}

impl<const SINE: bool> OpKernel for SinCosKernel<SINE> {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let out = if x.dtype() == DType::Float32 {
            unary_chunks::<f32>(x, ctx.env, crate::kernels::fastmath::sin_cos_f32::<SINE>)?
        } else {
            dispatch_float!(x.dtype(), T => unary::<T>(x, ctx.env, |v: T| if SINE { v.sin() } else { v.cos() })?,
                _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()))
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `Sigmoid`: each float type's [`Float::sigmoid_block`] over chunks of the input.
pub(crate) fn sigmoid_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let x = ctx.take_input(0)?;
        let out = dispatch_float!(x.dtype(), T => unary_chunks::<T>(x, ctx.env, T::sigmoid_block)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    })
}

/// `AddN`'s kernel.
pub(crate) fn add_n_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(add_n)
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
        acc = add(acc, x, ctx.env)?;
    }
    ctx.set_output(0, acc);
    Ok(())
}

/// `a + b` for numeric tensors (numpy broadcasting), into a unique operand's buffer
/// when the shapes agree.
pub(crate) fn add(a: Tensor, b: Tensor, env: &ExecEnv) -> Result<Tensor> {
    if a.dtype().is_complex() {
        return binary_complex::<AddFn>(a, b, env);
    }
    Ok(
        dispatch_numeric!(a.dtype(), T => binary::<T>(a, b, env, T::add)?, _ => ff_bail!(InvalidArgument, "no AddN kernel for {}", a.dtype())),
    )
}

/// `FloorDiv` and `FloorMod` with Python semantics (integer division by zero is an error).
struct FloorKernel {
    modulo: bool,
}

/// `FloorDiv` and `FloorMod`.
pub(crate) fn floor_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
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
            d if d.is_floating() => {
                dispatch_float!(d, T => binary::<T>(a, b, ctx.env, |x, y| floor_float(x, y, m))?,
                    _ => ff_bail!(InvalidArgument, "no kernel for {d}"))
            }
            d => dispatch_numeric!(d, T => {
                if a.num_elements() != 0 && b.as_slice::<T>()?.iter().any(|v| v.is_zero()) {
                    ff_bail!(InvalidArgument, "Integer division by zero");
                }
                binary::<T>(a, b, ctx.env, |x, y| floor_int(x, y, m))?
            }, _ => ff_bail!(InvalidArgument, "no kernel for {d}")),
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `FloorDiv`/`FloorMod` of floats as TF's functors: `floor(x / y)`, and `fmod`
/// (exact) moved to the divisor's sign; the 16-bit types round each step, as Eigen's.
fn floor_float<T: Float + Castable>(x: T, y: T, modulo: bool) -> T {
    if !modulo {
        return Float::floor(Num::div(x, y));
    }
    // fmod is exact, so computing it in f64 gives every type's own result.
    let r = <T as Castable>::from_f64(Castable::to_f64(x) % Castable::to_f64(y));
    if !r.is_zero() && ((y < T::ZERO) != (r < T::ZERO)) { Num::add(r, y) } else { r }
}

/// `Pow`: `x ** y`; integer powers with negative exponents are an error, as in TF.
pub(crate) fn pow_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let (a, b) = (ctx.take_input(0)?, ctx.take_input(1)?);
        let out = match a.dtype() {
            DType::Float32 => binary::<f32>(a, b, ctx.env, f32::powf)?,
            DType::Float64 => binary::<f64>(a, b, ctx.env, f64::powf)?,
            DType::Float16 => binary::<half::f16>(a, b, ctx.env, Float::powf)?,
            DType::BFloat16 => binary::<half::bf16>(a, b, ctx.env, Float::powf)?,
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
