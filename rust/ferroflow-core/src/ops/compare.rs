//! Comparisons, logical ops and `SelectV2` (`tf.where(cond, x, y)`), all with numpy
//! broadcasting, plus the float classification ops `IsFinite`/`IsNan`.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::output::OutputSpec;
use crate::shape::broadcast_partial;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Equal", &["x", "y"], infer_compare));
    r.add(OpDef::new("NotEqual", &["x", "y"], infer_compare));
    r.add(OpDef::new("Less", &["x", "y"], infer_compare));
    r.add(OpDef::new("LessEqual", &["x", "y"], infer_compare));
    r.add(OpDef::new("Greater", &["x", "y"], infer_compare));
    r.add(OpDef::new("GreaterEqual", &["x", "y"], infer_compare));
    r.add(OpDef::new("LogicalAnd", &["x", "y"], infer_logical));
    r.add(OpDef::new("LogicalOr", &["x", "y"], infer_logical));
    r.add(OpDef::new("SelectV2", &["condition", "t", "e"], infer_select));
    // TF-1.0's `Select` (row selection by a vector condition), as graphs TF wrote use it;
    // no gradient registered here.
    r.add(OpDef::new("Select", &["condition", "t", "e"], infer_select_v1));
    r.add(OpDef::new("IsFinite", &["x"], infer_classify));
    r.add(OpDef::new("CheckNumerics", &["tensor"], infer_check_numerics));
    r.add(OpDef::new("IsNan", &["x"], infer_classify));
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

fn infer_logical(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    ctx.check_type(1, &[DType::Bool])?;
    Ok(vec![OutputSpec::new(DType::Bool, broadcast_shape_of(&ctx, 0, 1)?)])
}

fn infer_select(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    let t = ctx.same_type(&[1, 2])?;
    let te = broadcast_shape_of(&ctx, 1, 2)?;
    let shape = broadcast_partial(&ctx.input(0).shape, &te)
        .map_err(|e| Error::value(format!("{} for '{}' (op: 'SelectV2')", e.message, ctx.name)))?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_select_v1(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    let t = ctx.same_type(&[1, 2])?;
    let shape = ctx
        .input(1)
        .shape
        .merge(&ctx.input(2).shape)
        .map_err(|e| Error::value(format!("{} for '{}' (op: 'Select')", e.message, ctx.name)))?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_classify(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.same_type(&[0])?;
    ctx.check_type(0, super::math::FLOATS)?;
    Ok(vec![OutputSpec::new(DType::Bool, ctx.input(0).shape.clone())])
}

fn infer_check_numerics(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, super::math::FLOATS)?;
    ctx.attrs.entry("message".into()).or_insert_with(|| crate::framework::attr::AttrValue::S(Vec::new()));
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}
