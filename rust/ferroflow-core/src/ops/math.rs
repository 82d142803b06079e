//! Math ops: elementwise arithmetic with broadcasting, unary functions, matrix
//! multiplication and reductions.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::{PartialShape, broadcast_partial};

/// The numeric types, then the complex ones (TF's `Add`, `Sub`, `Mul`, `Div`, `AddN`,
/// `Square`, ... OpDefs and kernels).
const NUMERIC_AND_COMPLEX: &[DType] = &[
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::Int8,
    DType::Int16,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Complex64,
    DType::Complex128,
];
pub(crate) const NUMERIC: &[DType] = NUMERIC_AND_COMPLEX.split_at(NUMERIC_AND_COMPLEX.len() - 2).0;
/// The numeric types less the wide unsigned ones, `NUMERIC`'s last three (TF's OpDefs
/// of `Add`, `Pow` and the sign-related unary ops).
pub(crate) const SIGNED_NUMERIC: &[DType] = NUMERIC.split_at(NUMERIC.len() - 3).0;
/// The types of TF's CPU `MatMul` kernels (its OpDef also allows the wide unsigned
/// integers, which have none).
pub(crate) const WITHOUT_NARROW_INTS: &[DType] = &[
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::Complex64,
    DType::Complex128,
];
pub(crate) const FLOATS: &[DType] = &[DType::Float16, DType::BFloat16, DType::Float32, DType::Float64];
/// The floating types and the complex ones (`RealDiv`'s kernels).
pub(crate) const FLOATS_AND_COMPLEX: &[DType] =
    &[DType::Float16, DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Add", &["x", "y"], infer_binary_signed_c));
    r.add(OpDef::new("AddV2", &["x", "y"], infer_binary_c));
    r.add(OpDef::new("Sub", &["x", "y"], infer_binary_c));
    r.add(OpDef::new("Mul", &["x", "y"], infer_binary_c));
    r.add(OpDef::new("Div", &["x", "y"], infer_binary_c));
    r.add(OpDef::new("RealDiv", &["x", "y"], infer_binary_c));
    r.add(OpDef::new("DivNoNan", &["x", "y"], infer_div_no_nan));
    r.add(OpDef::new("Maximum", &["x", "y"], infer_binary));
    r.add(OpDef::new("Minimum", &["x", "y"], infer_binary));
    r.add(OpDef::new("SquaredDifference", &["x", "y"], infer_squared_difference));
    r.add(OpDef::new("FloorDiv", &["x", "y"], infer_binary));
    r.add(OpDef::new("FloorMod", &["x", "y"], infer_binary));
    r.add(OpDef::new("Pow", &["x", "y"], infer_binary_signed));
    r.add(OpDef::new("AddN", &["inputs"], infer_add_n).variadic());
    r.add(OpDef::new("Neg", &["x"], infer_unary_signed_c));
    r.add(OpDef::new("Square", &["x"], infer_unary_numeric_c));
    r.add(OpDef::new("Abs", &["x"], infer_unary_signed));
    r.add(OpDef::new("Sign", &["x"], infer_unary_signed));
    r.add(OpDef::new("Sqrt", &["x"], infer_unary_float));
    r.add(OpDef::new("Rsqrt", &["x"], infer_unary_float));
    r.add(OpDef::new("Reciprocal", &["x"], infer_unary_float));
    r.add(OpDef::new("Exp", &["x"], infer_unary_float));
    r.add(OpDef::new("Log", &["x"], infer_unary_float));
    r.add(OpDef::new("Log1p", &["x"], infer_unary_float));
    r.add(OpDef::new("Tanh", &["x"], infer_unary_float));
    r.add(OpDef::new("Sigmoid", &["x"], infer_unary_float));
    r.add(OpDef::new("Sin", &["x"], infer_unary_float));
    r.add(OpDef::new("Cos", &["x"], infer_unary_float));
    // Piecewise constant: TF registers no gradient flow through them (None).
    r.add(OpDef::new("Floor", &["x"], infer_unary_float));
    r.add(OpDef::new("Ceil", &["x"], infer_unary_float));
    r.add(OpDef::new("Round", &["x"], infer_unary_float));
    // Fused gradient ops (TF's names): first input the forward output y, second dy.
    r.add(OpDef::new("SqrtGrad", &["y", "dy"], infer_binary_float));
    r.add(OpDef::new("RsqrtGrad", &["y", "dy"], infer_binary_float));
    r.add(OpDef::new("ReciprocalGrad", &["y", "dy"], infer_binary_float));
    r.add(OpDef::new("TanhGrad", &["y", "dy"], infer_binary_float));
    r.add(OpDef::new("SigmoidGrad", &["y", "dy"], infer_binary_float));
    r.add(OpDef::new("MatMul", &["a", "b"], infer_matmul).cost(super::Cost::Contraction));
    // TF's remapper op (the plan forms it from MatMul -> BiasAdd [-> activation]).
    r.add(OpDef::new("_FusedMatMul", &["a", "b", "args"], infer_matmul).variadic().cost(super::Cost::Contraction));
}

/// The types the fused contractions run in.
pub(crate) const FUSED_TYPES: &[DType] = &[DType::Float32, DType::Float64];

fn infer_binary(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    infer_binary_of(ctx, NUMERIC)
}

/// A binary op with complex kernels too (`AddV2`, `Sub`, `Mul`, `Div`, `RealDiv`).
fn infer_binary_c(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    infer_binary_of(ctx, NUMERIC_AND_COMPLEX)
}

/// `Add`: TF's OpDef has no wide unsigned integers; complex kernels.
fn infer_binary_signed_c(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    if !ctx.input(0).dtype.is_complex() {
        ctx.check_type(0, SIGNED_NUMERIC)?;
    }
    infer_binary_of(ctx, NUMERIC_AND_COMPLEX)
}

fn infer_binary_of(mut ctx: InferCtx<'_>, allowed: &[DType]) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, allowed)?;
    let shape = broadcast_partial(&ctx.input(0).shape, &ctx.input(1).shape)
        .map_err(|e| Error::value(format!("{} for '{}' (op: '{}')", e.message, ctx.name, ctx.def.name)))?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_binary_signed(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, SIGNED_NUMERIC)?;
    infer_binary(ctx)
}

/// `SquaredDifference`: TF's OpDef has no 8- or 16-bit or unsigned integers.
fn infer_squared_difference(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float16, DType::BFloat16, DType::Float32, DType::Float64, DType::Int32, DType::Int64])?;
    infer_binary(ctx)
}

/// `Neg`, `Abs`, `Sign`: signed types only, as TF's OpDefs.
fn infer_unary_signed(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(
        0,
        &[
            DType::Float16,
            DType::BFloat16,
            DType::Float32,
            DType::Float64,
            DType::Int32,
            DType::Int64,
            DType::Int8,
            DType::Int16,
        ],
    )?;
    infer_unary_numeric(ctx)
}

/// `Neg`: the signed types and the complex ones.
fn infer_unary_signed_c(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    if ctx.input(0).dtype.is_complex() { infer_unary_numeric_c(ctx) } else { infer_unary_signed(ctx) }
}

/// `Square`: the numeric types and the complex ones.
fn infer_unary_numeric_c(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, NUMERIC_AND_COMPLEX)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
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

fn infer_matmul(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(
        0,
        &[
            DType::Float16,
            DType::BFloat16,
            DType::Float32,
            DType::Float64,
            DType::Int32,
            DType::Int64,
            DType::UInt16,
            DType::UInt32,
            DType::UInt64,
            DType::Complex64,
            DType::Complex128,
        ],
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

/// A float binary op with broadcasting (`DivNoNan`).
/// `DivNoNan`: the floating types and the complex ones.
fn infer_div_no_nan(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    infer_binary_of(ctx, FLOATS_AND_COMPLEX)
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
    ctx.check_type(0, NUMERIC_AND_COMPLEX)?;
    ctx.attrs.insert("N".into(), AttrValue::I(i64::try_from(all.len()).unwrap_or(i64::MAX)));
    let mut shape = PartialShape::unknown();
    for s in ctx.inputs {
        shape = shape
            .merge(&s.shape)
            .map_err(|e| Error::value(format!("AddN inputs must have the same shape: {}", e.message)))?;
    }
    Ok(vec![OutputSpec::new(t, shape)])
}
