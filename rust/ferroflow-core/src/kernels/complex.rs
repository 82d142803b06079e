//! Kernels of the complex-number ops: `Complex` (two real tensors, broadcast, to one
//! complex tensor), `Real`, `Imag`, `ComplexAbs`, `Angle` (complex to real) and `Conj`
//! (shapes and registration in `ops/complex.rs`). The arithmetic ops' complex kernels
//! are in `math.rs`, beside the real ones.
use crate::dispatch_complex;
use crate::error::Result;
use crate::kernels::elementwise::{binary_to, map_into, unary};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};

/// `Complex`: `real + imag * i`, with broadcasting.
pub(crate) fn complex_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx: &mut OpContext<'_>| {
        let (re, im) = (ctx.input(0)?, ctx.input(1)?);
        let Some(to) = re.dtype().complex_of() else {
            ff_bail!(InvalidArgument, "no Complex kernel for parts of type {}", re.dtype());
        };
        let out = dispatch_complex!(to, C, R => binary_to::<R, C>(re, im, ctx.env, C::new)?,
            _ => unreachable!("complex_of gives a complex type"));
        ctx.set_output(0, out);
        Ok(())
    })
}

/// A function of a complex element to a real one, for `Real`, `Imag`, `ComplexAbs`
/// and `Angle`.
fn to_real(
    ctx: &mut OpContext<'_>,
    f32_fn: fn(num_complex::Complex32) -> f32,
    f64_fn: fn(num_complex::Complex64) -> f64,
) -> Result<()> {
    let x = ctx.input(0)?;
    let out = match x.dtype() {
        crate::dtype::DType::Complex64 => map_into(x, ctx.env, f32_fn)?,
        crate::dtype::DType::Complex128 => map_into(x, ctx.env, f64_fn)?,
        other => ff_bail!(InvalidArgument, "expected a complex tensor, not {other}"),
    };
    ctx.set_output(0, out);
    Ok(())
}

/// `Real`: the real parts.
pub(crate) fn real_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| to_real(ctx, |c| c.re, |c| c.re))
}

/// `Imag`: the imaginary parts.
pub(crate) fn imag_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| to_real(ctx, |c| c.im, |c| c.im))
}

/// `ComplexAbs`: the magnitudes (`hypot`, as `std::abs` of a `std::complex`).
pub(crate) fn complex_abs_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| to_real(ctx, |c| c.re.hypot(c.im), |c| c.re.hypot(c.im)))
}

/// `Angle`: the arguments (`atan2(imag, real)`).
pub(crate) fn angle_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| to_real(ctx, |c| c.im.atan2(c.re), |c| c.im.atan2(c.re)))
}

/// `Conj`: the complex conjugates.
pub(crate) fn conj_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let x = ctx.take_input(0)?;
        let dtype = x.dtype();
        let out = dispatch_complex!(dtype, C, R => unary::<C>(x, ctx.env, |c| c.conj())?,
            _ => ff_bail!(InvalidArgument, "Conj takes a complex tensor, not {dtype}"));
        ctx.set_output(0, out);
        Ok(())
    })
}
