//! Queue ops (TF's resource-handle `V2` forms): `FIFOQueueV2`, `PaddingFIFOQueueV2`,
//! `RandomShuffleQueueV2`, `PriorityQueueV2`, and the enqueue, dequeue, close, size
//! and is-closed ops that take a queue handle. Output shapes of dequeues are left
//! unknown here: the Python `Queue` object knows the component shapes and sets them,
//! as TF's does.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    // No gradients: TF registers none for queue ops (a path through one is TF's
    // LookupError).
    for name in ["FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2"] {
        r.add(OpDef::new(name, &[], infer_queue).stateful());
    }
    for name in ["QueueEnqueueV2", "QueueEnqueueManyV2"] {
        r.add(OpDef::new(name, &["handle", "components"], infer_enqueue).variadic().stateful());
    }
    r.add(OpDef::new("QueueDequeueV2", &["handle"], infer_dequeue).stateful());
    for name in ["QueueDequeueManyV2", "QueueDequeueUpToV2"] {
        r.add(OpDef::new(name, &["handle", "n"], infer_dequeue).stateful());
    }
    r.add(OpDef::new("QueueCloseV2", &["handle"], infer_close).stateful());
    r.add(OpDef::new("QueueSizeV2", &["handle"], infer_size).stateful());
    r.add(OpDef::new("QueueIsClosedV2", &["handle"], infer_is_closed).stateful());
    // Conditional accumulators (TF-1.x ref handles); no gradients, as in TF.
    for name in ["ConditionalAccumulator", "SparseConditionalAccumulator"] {
        r.add(OpDef::new(name, &[], infer_accumulator).stateful());
    }
    let g = &["handle", "local_step", "gradient"];
    r.add(OpDef::new("AccumulatorApplyGradient", g, infer_acc_apply).refs(&[0]).stateful());
    let g = &["handle", "local_step", "gradient_indices", "gradient_values", "gradient_shape"];
    r.add(OpDef::new("SparseAccumulatorApplyGradient", g, infer_acc_apply).refs(&[0]).stateful());
    let t = &["handle", "num_required"];
    r.add(OpDef::new("AccumulatorTakeGradient", t, infer_acc_take).refs(&[0]).stateful());
    r.add(OpDef::new("SparseAccumulatorTakeGradient", t, infer_acc_take).refs(&[0]).stateful());
    let h = &["handle"];
    r.add(OpDef::new("AccumulatorNumAccumulated", h, infer_acc_num).refs(&[0]).stateful());
    let s = &["handle", "new_global_step"];
    r.add(OpDef::new("AccumulatorSetGlobalStep", s, infer_acc_set_step).refs(&[0]).stateful());
    // TF 2.x's resource-handle forms of the dense ops (what `tf.compat.v1` builds).
    r.add(OpDef::new("ResourceConditionalAccumulator", &[], infer_accumulator).stateful());
    let g = &["handle", "local_step", "gradient"];
    r.add(OpDef::new("ResourceAccumulatorApplyGradient", g, infer_acc_apply).stateful());
    r.add(OpDef::new("ResourceAccumulatorTakeGradient", t, infer_acc_take).stateful());
    r.add(OpDef::new("ResourceAccumulatorNumAccumulated", h, infer_acc_num).stateful());
    r.add(OpDef::new("ResourceAccumulatorSetGlobalStep", s, infer_acc_set_step).stateful());
}

fn infer_accumulator(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let dtype = ctx.attr_type("dtype")?;
    if !dtype.is_numeric() {
        return Err(Error::type_error(format!(
            "Value passed to parameter 'dtype' has DataType {dtype} not in list of allowed values"
        )));
    }
    ctx.attr_or("shape", PartialShape::unknown())?;
    for k in ["container", "shared_name"] {
        ctx.attrs.entry(k.into()).or_insert_with(|| AttrValue::S(Vec::new()));
    }
    let r: String = ctx.attr_or("reduction_type", "MEAN".to_string())?;
    if r != "MEAN" && r != "SUM" {
        return Err(Error::value(format!(
            "Attr 'reduction_type' of '{}' Op passed string '{r}' not in: \"MEAN\", \"SUM\".",
            ctx.def.name
        )));
    }
    if ctx.def.name == "ResourceConditionalAccumulator" {
        return Ok(vec![OutputSpec::new(DType::Resource, PartialShape::scalar())]);
    }
    Ok(vec![OutputSpec { dtype: DType::String, shape: PartialShape::known(&[2]), is_ref: true }])
}

fn infer_acc_apply(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(1, &[DType::Int64])?;
    let sparse = ctx.def.name == "SparseAccumulatorApplyGradient";
    check_acc_handle(&ctx)?;
    if sparse {
        ctx.check_type(2, &[DType::Int64])?;
        ctx.check_type(4, &[DType::Int64])?;
        ctx.attr_bool("has_known_shape", true)?;
    }
    let dtype = ctx.input(if sparse { 3 } else { 2 }).dtype;
    ctx.attrs.insert("dtype".into(), AttrValue::Type(dtype));
    Ok(vec![])
}

fn check_acc_handle(ctx: &InferCtx<'_>) -> Result<()> {
    let (want, ok) = if ctx.def.name.starts_with("Resource") {
        ("resource", ctx.input(0).dtype == DType::Resource)
    } else {
        ("string", ctx.input(0).dtype == DType::String)
    };
    if !ok {
        return Err(Error::type_error(format!(
            "Input 'handle' of '{}' Op has type {} that does not match expected type of {want}.",
            ctx.def.name,
            ctx.input(0).dtype
        )));
    }
    Ok(())
}

fn infer_acc_take(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_acc_handle(&ctx)?;
    ctx.check_type(1, &[DType::Int32])?;
    let dtype = ctx.attr_type("dtype")?;
    if ctx.def.name == "SparseAccumulatorTakeGradient" {
        return Ok(vec![
            OutputSpec::new(DType::Int64, PartialShape::unknown_of_rank(1)),
            OutputSpec::new(dtype, PartialShape::unknown()),
            OutputSpec::new(DType::Int64, PartialShape::unknown_of_rank(1)),
        ]);
    }
    Ok(vec![OutputSpec::new(dtype, PartialShape::unknown())])
}

fn infer_acc_num(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_acc_handle(&ctx)?;
    Ok(vec![OutputSpec::new(DType::Int32, PartialShape::scalar())])
}

fn infer_acc_set_step(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_acc_handle(&ctx)?;
    ctx.check_type(1, &[DType::Int64])?;
    Ok(vec![])
}

fn list_types(ctx: &InferCtx<'_>, name: &str) -> Result<Vec<DType>> {
    Ok(ctx.attr::<Vec<DType>>(name)?.unwrap_or_default())
}

fn infer_queue(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let types = list_types(&ctx, "component_types")?;
    let priority = ctx.def.name == "PriorityQueueV2";
    if types.is_empty() && !priority {
        return Err(Error::value(format!("{} '{}' needs at least one component type", ctx.def.name, ctx.name)));
    }
    let shapes: Vec<PartialShape> = ctx.attr_or("shapes", Vec::new())?;
    if !shapes.is_empty() && shapes.len() != types.len() {
        return Err(Error::value(format!(
            "Shapes must be provided for all components, but received {} dtypes and {} shapes.",
            types.len(),
            shapes.len()
        )));
    }
    if ctx.def.name == "PaddingFIFOQueueV2" && shapes.len() != types.len() {
        return Err(Error::value("Shapes must be provided for all components of a PaddingFIFOQueue".to_string()));
    }
    ctx.attrs.insert("component_types".into(), AttrValue::ListType(types));
    ctx.attr_int("capacity", -1)?;
    if ctx.def.name == "RandomShuffleQueueV2" {
        // min_after_dequeue >= capacity is TF's run-time error (when the queue is made).
        ctx.attr_int("min_after_dequeue", 0)?;
        ctx.attr_int("seed", 0)?;
        ctx.attr_int("seed2", 0)?;
    }
    for k in ["container", "shared_name"] {
        ctx.attrs.entry(k.into()).or_insert_with(|| AttrValue::S(Vec::new()));
    }
    Ok(vec![OutputSpec::new(DType::Resource, PartialShape::scalar())])
}

fn check_handle(ctx: &InferCtx<'_>) -> Result<()> {
    let h = ctx.input(0);
    if h.dtype != DType::Resource {
        return Err(Error::type_error(format!(
            "Input 'handle' of '{}' Op has type {} that does not match expected type of resource.",
            ctx.def.name, h.dtype
        )));
    }
    Ok(())
}

fn infer_enqueue(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx)?;
    let types: Vec<DType> = ctx.inputs[1..].iter().map(|s| s.dtype).collect();
    ctx.attrs.insert("Tcomponents".into(), AttrValue::ListType(types));
    ctx.attr_int("timeout_ms", -1)?;
    Ok(vec![])
}

fn infer_dequeue(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx)?;
    if ctx.inputs.len() > 1 {
        ctx.check_type(1, &[DType::Int32])?;
        ctx.check_rank(1, 0)?;
    }
    let types = list_types(&ctx, "component_types")?;
    if types.is_empty() {
        return Err(Error::value(format!("{} '{}' needs the queue's component_types", ctx.def.name, ctx.name)));
    }
    ctx.attr_int("timeout_ms", -1)?;
    Ok(types.into_iter().map(|t| OutputSpec::new(t, PartialShape::unknown())).collect())
}

fn infer_close(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx)?;
    ctx.attr_bool("cancel_pending_enqueues", false)?;
    Ok(vec![])
}

fn infer_size(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx)?;
    Ok(vec![OutputSpec::new(DType::Int32, PartialShape::scalar())])
}

fn infer_is_closed(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_handle(&ctx)?;
    Ok(vec![OutputSpec::new(DType::Bool, PartialShape::scalar())])
}
