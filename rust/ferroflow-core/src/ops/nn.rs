//! Neural-network ops: activations, softmax, the fused softmax cross-entropy losses,
//! `BiasAdd` and `L2Loss` (TF's op names, inputs and outputs).
use super::math::FLOATS;
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    // Relu and Relu6 also take integers, as in TF.
    r.add(OpDef::new("Relu", &["features"], infer_numeric_unary));
    r.add(OpDef::new("Relu6", &["features"], infer_numeric_unary));
    r.add(OpDef::new("Elu", &["features"], infer_float_unary));
    r.add(OpDef::new("Softplus", &["features"], infer_float_unary));
    r.add(OpDef::new("Selu", &["features"], infer_float_unary));
    r.add(OpDef::new("Softsign", &["features"], infer_float_unary));
    r.add(OpDef::new("SeluGrad", &["gradients", "outputs"], infer_float_binary));
    r.add(OpDef::new("SoftsignGrad", &["gradients", "features"], infer_float_binary));
    r.add(OpDef::new("ReluGrad", &["gradients", "features"], infer_float_binary));
    r.add(OpDef::new("Relu6Grad", &["gradients", "features"], infer_float_binary));
    r.add(OpDef::new("EluGrad", &["gradients", "outputs"], infer_float_binary));
    r.add(OpDef::new("SoftplusGrad", &["gradients", "features"], infer_float_binary));
    r.add(OpDef::new("Softmax", &["logits"], infer_float_unary));
    r.add(OpDef::new("LogSoftmax", &["logits"], infer_float_unary));
    r.add(OpDef::new("SoftmaxCrossEntropyWithLogits", &["features", "labels"], infer_xent));
    r.add(OpDef::new("SparseSoftmaxCrossEntropyWithLogits", &["features", "labels"], infer_sparse_xent));
    r.add(OpDef::new("BiasAdd", &["value", "bias"], infer_bias_add));
    r.add(OpDef::new("BiasAddGrad", &["out_backprop"], infer_bias_add_grad));
    r.add(OpDef::new("L2Loss", &["t"], infer_l2_loss));
    r.add(OpDef::new("InTopKV2", &["predictions", "targets", "k"], infer_in_top_k));
    r.add(OpDef::new("TopKV2", &["input", "k"], infer_top_k));
    r.add(OpDef::new("LRN", &["input"], infer_lrn));
    r.add(OpDef::new("LRNGrad", &["input_grads", "input_image", "output_image"], infer_lrn));
}

/// `TopKV2`: `input`'s shape with the last dimension `k` (when `k` is a constant).
fn infer_top_k(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.check_type(0, super::math::NUMERIC)?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.attrs.insert("Tk".into(), AttrValue::Type(ctx.input(1).dtype));
    ctx.attr_bool("sorted", true)?;
    let index_type: DType = ctx.attr_or("index_type", DType::Int32)?;
    if !matches!(index_type, DType::Int32 | DType::Int64) {
        return Err(Error::type_error(format!(
            "Value passed to parameter 'index_type' has DataType {index_type} not in list of allowed values: int32, int64"
        )));
    }
    ctx.check_rank(1, 0)?;
    let k = match ctx.constant_input(1) {
        Some(v) => Some(crate::framework::tensor_util::scalar_int(v, "k").map_err(|e| Error::value(e.message))?),
        None => None,
    };
    if let Some(k) = k
        && k < 0
    {
        return Err(Error::value(format!(
            "Dimension size, given by scalar input 1, must be non-negative but is {k} for '{}' (op: 'TopKV2')",
            ctx.name
        )));
    }
    let k = k.map(|k| usize::try_from(k).unwrap_or(usize::MAX));
    let shape = match ctx.input(0).shape.dims() {
        None => PartialShape::unknown(),
        Some([]) => {
            return Err(Error::value(format!(
                "Shape must be at least rank 1 but is rank 0 for '{}' (op: 'TopKV2')",
                ctx.name
            )));
        }
        Some(d) => {
            let last = d[d.len() - 1];
            if let (Some(last), Some(k)) = (last, k)
                && last < k
            {
                return Err(Error::value(format!(
                    "input must have last dimension >= k = {k} but is {last} for '{}' (op: 'TopKV2')",
                    ctx.name
                )));
            }
            let mut dims = d.to_vec();
            dims[d.len() - 1] = k;
            PartialShape::from_dims(dims)
        }
    };
    Ok(vec![OutputSpec::new(t, shape.clone()), OutputSpec::new(index_type, shape)])
}

/// `LRN` and `LRNGrad`: float32 4-D tensors of one shape, the attrs' defaults recorded.
fn infer_lrn(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let all: Vec<usize> = (0..ctx.inputs.len()).collect();
    let t = ctx.same_type(&all)?;
    ctx.check_type(0, &[DType::Float32])?;
    ctx.attr_int("depth_radius", 5)?;
    ctx.attr_or("bias", 1.0f32)?;
    ctx.attr_or("alpha", 1.0f32)?;
    ctx.attr_or("beta", 0.5f32)?;
    let mut shape = PartialShape::unknown();
    for i in all {
        ctx.check_rank(i, 4)?;
        shape = shape.merge(&ctx.input(i).shape)?;
    }
    if shape.rank().is_none() {
        shape = PartialShape::unknown_of_rank(4);
    }
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_float_unary(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, FLOATS)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_numeric_unary(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, super::math::NUMERIC)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_float_binary(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, FLOATS)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.merge(&ctx.input(1).shape)?)])
}

fn rank2(ctx: &InferCtx<'_>, i: usize, what: &str) -> Result<[Option<usize>; 2]> {
    match ctx.input(i).shape.dims() {
        None => Ok([None, None]),
        Some([a, b]) => Ok([*a, *b]),
        Some(d) => {
            Err(Error::value(format!("Shape must be rank 2 but is rank {} for '{}' ({what})", d.len(), ctx.name)))
        }
    }
}

fn infer_xent(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, FLOATS)?;
    let [b0, c0] = rank2(&ctx, 0, "logits")?;
    let [b1, c1] = rank2(&ctx, 1, "labels")?;
    let merged = PartialShape::from_dims([b0, c0]).merge(&PartialShape::from_dims([b1, c1])).map_err(|_| {
        Error::value(format!(
            "logits and labels must have the same shape {} vs {}",
            ctx.input(0).shape,
            ctx.input(1).shape
        ))
    })?;
    let b = merged.dims().and_then(|d| d[0]);
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([b])), OutputSpec::new(t, merged)])
}

fn infer_sparse_xent(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.check_type(0, FLOATS)?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.attrs.insert("Tlabels".into(), AttrValue::Type(ctx.input(1).dtype));
    let [b, c] = rank2(&ctx, 0, "logits")?;
    let lb = match ctx.input(1).shape.dims() {
        None => None,
        Some([x]) => *x,
        Some(d) => {
            return Err(Error::value(format!(
                "Shape must be rank 1 but is rank {} for '{}' (labels)",
                d.len(),
                ctx.name
            )));
        }
    };
    let b = PartialShape::from_dims([b]).merge(&PartialShape::from_dims([lb]))?.dims().and_then(|d| d[0]);
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([b])), OutputSpec::new(t, PartialShape::from_dims([b, c]))])
}

/// The `data_format` of a bias op (defaulted to NHWC), checked.
fn bias_format(ctx: &mut InferCtx<'_>, op: &str) -> Result<bool> {
    ctx.attrs.entry("data_format".into()).or_insert_with(|| AttrValue::S(b"NHWC".to_vec()));
    match ctx.attrs.get("data_format") {
        Some(AttrValue::S(f)) if f.as_slice() == b"NHWC" => Ok(false),
        Some(AttrValue::S(f)) if f.as_slice() == b"NCHW" => Ok(true),
        other => Err(Error::value(format!("{op}: data_format must be NHWC or NCHW, got {other:?}"))),
    }
}

/// The channel axis of a bias op's input of rank `rank` (see `kernels::nn::channel_axis`).
fn bias_channel_axis(channels_first: bool, rank: usize) -> usize {
    if channels_first { 1 } else { rank - 1 }
}

fn infer_bias_add(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, FLOATS)?;
    let channels_first = bias_format(&mut ctx, "BiasAdd")?;
    let least = if channels_first { 3 } else { 2 };
    if let Some(r) = ctx.input(0).shape.rank()
        && r < least
    {
        return Err(Error::value(format!(
            "Shape must be at least rank {least} but is rank {r} for '{}' (op: 'BiasAdd')",
            ctx.name
        )));
    }
    let (v, b) = (ctx.input(0).shape.clone(), ctx.input(1).shape.clone());
    ctx.check_rank(1, 1)?;
    let Some(vd) = v.dims() else { return Ok(vec![OutputSpec::new(t, v)]) };
    // The channel dimension is the bias length.
    let axis = bias_channel_axis(channels_first, vd.len());
    let channels = PartialShape::from_dims([vd[axis]]).merge(&b).map_err(|_| {
        Error::value(format!(
            "Dimensions must be equal for '{}' (op: 'BiasAdd') with input shapes: {v}, {b}.",
            ctx.name
        ))
    })?;
    let mut dims = vd.to_vec();
    dims[axis] = channels.dims().and_then(|d| d.first().copied()).flatten();
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(dims))])
}

fn infer_bias_add_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, FLOATS)?;
    let channels_first = bias_format(&mut ctx, "BiasAddGrad")?;
    let least = if channels_first { 3 } else { 2 };
    let c = match ctx.input(0).shape.dims() {
        Some(d) if d.len() >= least => d[bias_channel_axis(channels_first, d.len())],
        Some(d) => {
            return Err(Error::value(format!(
                "Shape must be at least rank {least} but is rank {} for '{}' (op: 'BiasAddGrad')",
                d.len(),
                ctx.name
            )));
        }
        None => None,
    };
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([c]))])
}

fn infer_l2_loss(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, FLOATS)?;
    Ok(vec![OutputSpec::new(t, PartialShape::scalar())])
}

fn infer_in_top_k(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float32])?;
    let t = ctx.same_type(&[1, 2])?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let [b, _] = rank2(&ctx, 0, "predictions")?;
    let targets = match ctx.input(1).shape.dims() {
        None => None,
        Some([x]) => *x,
        Some(d) => {
            return Err(Error::value(format!(
                "Shape must be rank 1 but is rank {} for '{}' (targets)",
                d.len(),
                ctx.name
            )));
        }
    };
    ctx.check_rank(2, 0)?;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    let b = PartialShape::from_dims([b]).merge(&PartialShape::from_dims([targets])).map_err(|_| {
        Error::value(format!("predictions and targets must have the same batch size for '{}'", ctx.name))
    })?;
    Ok(vec![OutputSpec::new(DType::Bool, b)])
}
