//! The complex-number ops: `Complex` (from real and imaginary parts), `Real`, `Imag`,
//! `ComplexAbs`, `Angle` and `Conj`. Their gradients are TF's Python functions
//! (python/ferroflow/ops/math_ops.py), as TF's are.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::broadcast_partial;

const COMPLEX: &[DType] = &[DType::Complex64, DType::Complex128];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Complex", &["real", "imag"], infer_complex));
    r.add(OpDef::new("Real", &["input"], infer_to_real));
    r.add(OpDef::new("Imag", &["input"], infer_to_real));
    r.add(OpDef::new("ComplexAbs", &["x"], infer_to_real));
    r.add(OpDef::new("Angle", &["input"], infer_to_real));
    r.add(OpDef::new("Conj", &["input"], infer_conj));
}

/// `Complex`: float parts give `complex64`, double parts `complex128` (`Tout`, which
/// must be that type: TF has no other kernel), shaped as the broadcast of the parts.
fn infer_complex(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, &[DType::Float32, DType::Float64])?;
    let Some(out) = t.complex_of() else { unreachable!("checked above") };
    let tout = ctx.attr::<DType>("Tout")?.unwrap_or(DType::Complex64);
    if tout != out {
        return Err(Error::type_error(format!(
            "No Complex kernel for parts of type {t} and Tout={tout} ('{}'): {t} parts make {out}",
            ctx.name
        )));
    }
    ctx.attrs.insert("Tout".into(), AttrValue::Type(out));
    let shape = broadcast_partial(&ctx.input(0).shape, &ctx.input(1).shape)
        .map_err(|e| Error::value(format!("{} for '{}' (op: 'Complex')", e.message, ctx.name)))?;
    Ok(vec![OutputSpec::new(out, shape)])
}

/// `Real`, `Imag`, `ComplexAbs`, `Angle`: the parts' type (`Tout`, checked as above).
fn infer_to_real(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, COMPLEX)?;
    let out = t.real_part();
    let tout = ctx.attr::<DType>("Tout")?.unwrap_or(DType::Float32);
    if tout != out {
        return Err(Error::type_error(format!(
            "No {} kernel for {t} and Tout={tout} ('{}'): the parts of {t} are {out}",
            ctx.def.name, ctx.name
        )));
    }
    ctx.attrs.insert("Tout".into(), AttrValue::Type(out));
    Ok(vec![OutputSpec::new(out, ctx.input(0).shape.clone())])
}

fn infer_conj(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, COMPLEX)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}
