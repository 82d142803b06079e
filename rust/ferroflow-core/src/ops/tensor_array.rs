//! TF-1.x's `TensorArray` ops (the `V3` forms): `TensorArrayV3` makes an array and
//! returns its handle and a scalar float `flow`; the ops on the handle take and give
//! a flow, which orders them in the graph (a read after the write whose flow it
//! takes). Gradients are registered in Python, as TF's `tensor_array_grad.py`: they
//! build gradient arrays with `TensorArrayGradV3`.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("TensorArrayV3", &["size"], infer_create).stateful());
    let w = &["handle", "index", "value", "flow_in"];
    r.add(OpDef::new("TensorArrayWriteV3", w, infer_write).stateful());
    r.add(OpDef::new("TensorArrayReadV3", &["handle", "index", "flow_in"], infer_read).stateful());
    r.add(OpDef::new("TensorArrayGatherV3", &["handle", "indices", "flow_in"], infer_gather).stateful());
    let s = &["handle", "indices", "value", "flow_in"];
    r.add(OpDef::new("TensorArrayScatterV3", s, infer_scatter).stateful());
    r.add(OpDef::new("TensorArrayConcatV3", &["handle", "flow_in"], infer_concat).stateful());
    let s = &["handle", "value", "lengths", "flow_in"];
    r.add(OpDef::new("TensorArraySplitV3", s, infer_split).stateful());
    r.add(OpDef::new("TensorArraySizeV3", &["handle", "flow_in"], infer_size).stateful());
    r.add(OpDef::new("TensorArrayCloseV3", &["handle"], infer_close).stateful());
    r.add(OpDef::new("TensorArrayGradV3", &["handle", "flow_in"], infer_grad).stateful());
}

fn flow() -> OutputSpec {
    OutputSpec::new(DType::Float32, PartialShape::scalar())
}

fn check_handle(ctx: &InferCtx<'_>) -> Result<()> {
    if ctx.input(0).dtype != DType::Resource {
        return Err(Error::type_error(format!(
            "Input 'handle' of '{}' Op has type {} that does not match expected type of resource.",
            ctx.def.name,
            ctx.input(0).dtype
        )));
    }
    Ok(())
}

/// The handle, then `index`/`indices` (int32 of `rank`), and the last input: the flow.
fn check_common(ctx: &InferCtx<'_>, index_rank: Option<usize>) -> Result<()> {
    check_handle(ctx)?;
    if let Some(rank) = index_rank {
        ctx.check_type(1, &[DType::Int32])?;
        ctx.check_rank(1, rank)?;
    }
    let last = ctx.inputs.len() - 1;
    ctx.check_type(last, &[DType::Float32])?;
    ctx.check_rank(last, 0)
}

fn at_least_rank_1(ctx: &InferCtx<'_>, i: usize) -> Result<()> {
    if ctx.input(i).shape.rank() == Some(0) {
        return Err(Error::value(format!(
            "Shape must be at least rank 1 but is rank 0 for '{}' (op: '{}') input '{}'",
            ctx.name,
            ctx.def.name,
            ctx.def.input_name(i)
        )));
    }
    Ok(())
}

fn infer_create(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Int32])?;
    ctx.check_rank(0, 0)?;
    ctx.attr_type("dtype")?;
    ctx.attr_or("element_shape", PartialShape::unknown())?;
    ctx.attr_bool("dynamic_size", false)?;
    ctx.attr_bool("clear_after_read", true)?;
    ctx.attr_bool("identical_element_shapes", false)?;
    ctx.attr_or("tensor_array_name", String::new())?;
    Ok(vec![OutputSpec::new(DType::Resource, PartialShape::scalar()), flow()])
}

fn infer_write(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_common(&ctx, Some(0))?;
    let t = ctx.input(2).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    Ok(vec![flow()])
}

fn infer_read(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_common(&ctx, Some(0))?;
    Ok(vec![OutputSpec::new(ctx.attr_type("dtype")?, PartialShape::unknown())])
}

/// Unknown, as TF's without the handle's shape data: the Python `TensorArray` sets
/// the static shape it knows.
fn infer_gather(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_common(&ctx, Some(1))?;
    let dtype = ctx.attr_type("dtype")?;
    ctx.attr_or("element_shape", PartialShape::unknown())?;
    Ok(vec![OutputSpec::new(dtype, PartialShape::unknown())])
}

fn infer_scatter(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_common(&ctx, Some(1))?;
    at_least_rank_1(&ctx, 2)?;
    let t = ctx.input(2).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    Ok(vec![flow()])
}

fn infer_concat(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_common(&ctx, None)?;
    let dtype = ctx.attr_type("dtype")?;
    ctx.attr_or("element_shape_except0", PartialShape::unknown())?;
    Ok(vec![
        OutputSpec::new(dtype, PartialShape::unknown()),
        OutputSpec::new(DType::Int64, PartialShape::unknown_of_rank(1)),
    ])
}

fn infer_split(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_common(&ctx, None)?;
    // As TF's shape function: the value's rank is checked when the op runs.
    ctx.check_type(2, &[DType::Int64])?;
    ctx.check_rank(2, 1)?;
    let t = ctx.input(1).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    Ok(vec![flow()])
}

fn infer_size(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_common(&ctx, None)?;
    Ok(vec![OutputSpec::new(DType::Int32, PartialShape::scalar())])
}

fn infer_close(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx)?;
    Ok(vec![])
}

fn infer_grad(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_common(&ctx, None)?;
    ctx.required_attr::<String>("source")?;
    Ok(vec![OutputSpec::new(DType::Resource, PartialShape::scalar()), flow()])
}
