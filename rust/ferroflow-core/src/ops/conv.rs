//! Convolution and pooling ops (NHWC): `Conv2D` with its two backprop ops, `MaxPool`,
//! `AvgPool` and their gradient ops, and their 3-D forms (NDHWC: `Conv3D`,
//! `MaxPool3D`, ...), with TF's attrs, shape functions and errors.
use super::array::shape_input;
use super::math::FLOATS;
use super::{InferCtx, OpDef, Registry};
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::framework::shape_util::{
    Padding, Window3dAttrs, WindowAttrs, window_attrs, window3d_attrs, windowed_output,
};
use crate::shape::{Dim, PartialShape};

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Conv2D", &["input", "filter"], infer_conv2d));
    r.add(OpDef::new("Conv2DBackpropInput", &["input_sizes", "filter", "out_backprop"], infer_conv_input));
    r.add(OpDef::new("Conv2DBackpropFilter", &["input", "filter_sizes", "out_backprop"], infer_conv_filter));
    r.add(OpDef::new("DepthwiseConv2dNative", &["input", "filter"], infer_depthwise));
    // TF's remapper ops (the plan forms them from a convolution -> BiasAdd [-> activation]).
    r.add(OpDef::new("_FusedConv2D", &["input", "filter", "args"], infer_conv2d).variadic());
    r.add(OpDef::new("_FusedDepthwiseConv2dNative", &["input", "filter", "args"], infer_depthwise).variadic());
    r.add(OpDef::new(
        "DepthwiseConv2dNativeBackpropInput",
        &["input_sizes", "filter", "out_backprop"],
        infer_conv_input,
    ));
    r.add(OpDef::new(
        "DepthwiseConv2dNativeBackpropFilter",
        &["input", "filter_sizes", "out_backprop"],
        infer_conv_filter,
    ));
    r.add(OpDef::new("MaxPool", &["input"], infer_pool));
    r.add(OpDef::new("MaxPoolGrad", &["orig_input", "orig_output", "grad"], infer_max_pool_grad));
    r.add(OpDef::new("MaxPoolGradGrad", &["orig_input", "orig_output", "grad"], infer_max_pool_grad_grad));
    r.add(OpDef::new("AvgPool", &["value"], infer_pool));
    r.add(OpDef::new("AvgPoolGrad", &["orig_input_shape", "grad"], infer_avg_pool_grad));
    register_3d(r);
}

fn register_3d(r: &mut Registry) {
    r.add(OpDef::new("Conv3D", &["input", "filter"], infer_conv3d));
    r.add(OpDef::new("Conv3DBackpropInputV2", &["input_sizes", "filter", "out_backprop"], infer_conv3d_sized));
    r.add(OpDef::new("Conv3DBackpropFilterV2", &["input", "filter_sizes", "out_backprop"], infer_conv3d_sized));
    r.add(OpDef::new("MaxPool3D", &["input"], infer_pool3d));
    r.add(OpDef::new("AvgPool3D", &["input"], infer_pool3d));
    r.add(OpDef::new("MaxPool3DGrad", &["orig_input", "orig_output", "grad"], infer_pool3d_grad));
    r.add(OpDef::new("MaxPool3DGradGrad", &["orig_input", "orig_output", "grad"], infer_pool3d_grad));
    r.add(OpDef::new("AvgPool3DGrad", &["orig_input_shape", "grad"], infer_pool3d_grad));
}

/// Records the defaulted attrs of a 3-D node as TF does, and returns the validated set.
fn infer_attrs_3d(ctx: &mut InferCtx<'_>, pooling: bool) -> Result<Window3dAttrs> {
    ctx.attrs.entry("data_format".into()).or_insert_with(|| AttrValue::S(b"NDHWC".to_vec()));
    if !pooling {
        ctx.attrs.entry("dilations".into()).or_insert_with(|| AttrValue::ListI(vec![1; 5]));
    }
    window3d_attrs(ctx.attrs, ctx.def.name, pooling)
}

/// Whether a 3-D node is laid out NCDHW (channels before the spatial dimensions).
fn channels_first_3d(ctx: &InferCtx<'_>) -> bool {
    matches!(ctx.attrs.get("data_format"), Some(AttrValue::S(s)) if s == b"NCDHW")
}

fn rank5(ctx: &InferCtx<'_>, shape: &PartialShape, what: &str) -> Result<[Dim; 5]> {
    match shape.dims() {
        None => Ok([None; 5]),
        Some(&[a, b, c, d, e]) => Ok([a, b, c, d, e]),
        Some(d) => {
            Err(Error::value(format!("Shape must be rank 5 but is rank {} for '{}' ({what})", d.len(), ctx.name)))
        }
    }
}

/// `[n, spatial.., c]` of a 5-D shape in the node's layout.
fn split_3d(ctx: &InferCtx<'_>, dims: [Dim; 5]) -> (Dim, [Dim; 3], Dim) {
    let [a, b, c, d, e] = dims;
    if channels_first_3d(ctx) { (a, [c, d, e], b) } else { (a, [b, c, d], e) }
}

fn join_3d(ctx: &InferCtx<'_>, n: Dim, spatial: [Dim; 3], c: Dim) -> PartialShape {
    let [x, y, z] = spatial;
    if channels_first_3d(ctx) {
        PartialShape::from_dims([n, c, x, y, z])
    } else {
        PartialShape::from_dims([n, x, y, z, c])
    }
}

fn infer_conv3d(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 1])?;
    let a = infer_attrs_3d(&mut ctx, false)?;
    let input = rank5(&ctx, &ctx.input(0).shape, "input")?;
    let [kd, kh, kw, fc, o] = rank5(&ctx, &ctx.input(1).shape, "filter")?;
    let (n, spatial, c) = split_3d(&ctx, input);
    if let (Some(c), Some(fc)) = (c, fc)
        && c != fc
    {
        return Err(Error::value(format!(
            "Dimensions must be equal, but are {c} and {fc} for '{}' (op: 'Conv3D') with input shapes: {}, {}.",
            ctx.name,
            ctx.input(0).shape,
            ctx.input(1).shape
        )));
    }
    let op = ctx.def.name;
    let mut out = [None; 3];
    for (i, k) in [kd, kh, kw].into_iter().enumerate() {
        out[i] = out_dim(spatial[i], k, a.dilations[i], a.strides[i], a.padding, op)?;
    }
    Ok(vec![OutputSpec::new(t, join_3d(&ctx, n, out, o))])
}

/// The backprop ops of `Conv3D`: the shape their sizes input gives.
fn infer_conv3d_sized(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let (sizes, name) = if ctx.def.name == "Conv3DBackpropInputV2" { (0, "input_sizes") } else { (1, "filter_sizes") };
    let floats = if sizes == 0 { [1, 2] } else { [0, 2] };
    let t = float_type(&mut ctx, &floats)?;
    infer_attrs_3d(&mut ctx, false)?;
    let shape = shape_input(&ctx, sizes, name)?;
    rank5(&ctx, &shape, name)?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_pool3d(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0])?;
    let a = infer_attrs_3d(&mut ctx, true)?;
    let (n, spatial, c) = split_3d(&ctx, rank5(&ctx, &ctx.input(0).shape, "input")?);
    let op = ctx.def.name;
    let mut out = [None; 3];
    for i in 0..3 {
        out[i] = out_dim(spatial[i], Some(a.window[i]), 1, a.strides[i], a.padding, op)?;
    }
    Ok(vec![OutputSpec::new(t, join_3d(&ctx, n, out, c))])
}

/// The gradient ops of the 3-D pools: the (original input's) shape of their first input.
fn infer_pool3d_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = match ctx.def.name {
        "AvgPool3DGrad" => float_type(&mut ctx, &[1])?,
        "MaxPool3DGradGrad" => float_type(&mut ctx, &[0, 1, 2])?,
        _ => {
            // `MaxPool3DGrad`'s original input and output may differ from the gradient's type.
            let t_input = ctx.same_type(&[0, 1])?;
            ctx.attrs.insert("TInput".into(), AttrValue::Type(t_input));
            float_type(&mut ctx, &[2])?
        }
    };
    infer_attrs_3d(&mut ctx, true)?;
    let shape = match ctx.def.name {
        "AvgPool3DGrad" => shape_input(&ctx, 0, "orig_input_shape")?,
        "MaxPool3DGradGrad" => ctx.input(1).shape.clone(),
        _ => ctx.input(0).shape.clone(),
    };
    rank5(&ctx, &shape, "orig_input")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

/// Records the defaulted attrs on the node as TF does, and returns the validated set.
fn infer_attrs(ctx: &mut InferCtx<'_>, pooling: bool) -> Result<WindowAttrs> {
    ctx.attrs.entry("data_format".into()).or_insert_with(|| AttrValue::S(b"NHWC".to_vec()));
    if !pooling {
        ctx.attrs.entry("dilations".into()).or_insert_with(|| AttrValue::ListI(vec![1; 4]));
        // The depthwise ops have no `use_cudnn_on_gpu` attr (TF's OpDefs).
        if !ctx.def.name.starts_with("Depthwise") {
            ctx.attrs.entry("use_cudnn_on_gpu".into()).or_insert(AttrValue::B(true));
        }
        ctx.attrs.entry("explicit_paddings".into()).or_insert_with(|| AttrValue::ListI(vec![]));
    }
    window_attrs(ctx.attrs, ctx.def.name, pooling)
}

fn rank4(ctx: &InferCtx<'_>, shape: &PartialShape, what: &str) -> Result<[Dim; 4]> {
    match shape.dims() {
        None => Ok([None; 4]),
        Some(&[a, b, c, d]) => Ok([a, b, c, d]),
        Some(d) => {
            Err(Error::value(format!("Shape must be rank 4 but is rank {} for '{}' ({what})", d.len(), ctx.name)))
        }
    }
}

fn float_type(ctx: &mut InferCtx<'_>, inputs: &[usize]) -> Result<crate::dtype::DType> {
    let t = ctx.same_type(inputs)?;
    ctx.check_type(inputs[0], FLOATS)?;
    Ok(t)
}

/// One output dimension, when its input size is known.
fn out_dim(input: Dim, window: Dim, dilation: usize, stride: usize, padding: Padding, op: &str) -> Result<Dim> {
    match (input, window) {
        (Some(i), Some(k)) => windowed_output(i, k, dilation, stride, padding)
            .map(|(o, _)| Some(o))
            .map_err(|m| Error::value(format!("{op}: {m}"))),
        (Some(i), None) if padding == Padding::Same => Ok(Some(i.div_ceil(stride))),
        _ => Ok(None),
    }
}

fn infer_conv2d(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 1])?;
    let a = infer_attrs(&mut ctx, false)?;
    let [n, h, w, c] = rank4(&ctx, &ctx.input(0).shape, "input")?;
    let [kh, kw, fc, o] = rank4(&ctx, &ctx.input(1).shape, "filter")?;
    if let (Some(c), Some(fc)) = (c, fc)
        && c != fc
    {
        return Err(Error::value(format!(
            "Depth of input ({c}) does not equal the input depth of filter ({fc}) for '{}' (grouped convolutions are not supported)",
            ctx.name
        )));
    }
    let op = ctx.def.name;
    let oh = out_dim(h, kh, a.dilations[0], a.strides[0], a.padding, op)?;
    let ow = out_dim(w, kw, a.dilations[1], a.strides[1], a.padding, op)?;
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([n, oh, ow, o]))])
}

/// `DepthwiseConv2dNative`: `[n, oh, ow, c * m]` for a `[kh, kw, c, m]` filter.
fn infer_depthwise(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 1])?;
    let a = infer_attrs(&mut ctx, false)?;
    let [n, h, w, c] = rank4(&ctx, &ctx.input(0).shape, "input")?;
    let [kh, kw, fc, m] = rank4(&ctx, &ctx.input(1).shape, "filter")?;
    if let (Some(c), Some(fc)) = (c, fc)
        && c != fc
    {
        return Err(Error::value(format!(
            "Dimensions must be equal, but are {c} and {fc} for '{}' (op: 'DepthwiseConv2dNative') with input shapes: {}, {}.",
            ctx.name,
            ctx.input(0).shape,
            ctx.input(1).shape
        )));
    }
    let op = ctx.def.name;
    let oh = out_dim(h, kh, a.dilations[0], a.strides[0], a.padding, op)?;
    let ow = out_dim(w, kw, a.dilations[1], a.strides[1], a.padding, op)?;
    let depth = match (c.or(fc), m) {
        (Some(c), Some(m)) => Some(c * m),
        _ => None,
    };
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([n, oh, ow, depth]))])
}

fn infer_conv_input(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[1, 2])?;
    infer_attrs(&mut ctx, false)?;
    let shape = shape_input(&ctx, 0, "input_sizes")?;
    rank4(&ctx, &shape, "input_sizes")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_conv_filter(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 2])?;
    infer_attrs(&mut ctx, false)?;
    let shape = shape_input(&ctx, 1, "filter_sizes")?;
    rank4(&ctx, &shape, "filter_sizes")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_pool(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0])?;
    let a = infer_attrs(&mut ctx, true)?;
    let [n, h, w, c] = rank4(&ctx, &ctx.input(0).shape, "input")?;
    let op = ctx.def.name;
    let oh = out_dim(h, Some(a.window[0]), 1, a.strides[0], a.padding, op)?;
    let ow = out_dim(w, Some(a.window[1]), 1, a.strides[1], a.padding, op)?;
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([n, oh, ow, c]))])
}

fn infer_max_pool_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 1, 2])?;
    infer_attrs(&mut ctx, true)?;
    let shape = ctx.input(0).shape.clone();
    rank4(&ctx, &shape, "orig_input")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_max_pool_grad_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[0, 1, 2])?;
    infer_attrs(&mut ctx, true)?;
    rank4(&ctx, &ctx.input(0).shape, "orig_input")?;
    let shape = ctx.input(1).shape.clone();
    rank4(&ctx, &shape, "orig_output")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_avg_pool_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = float_type(&mut ctx, &[1])?;
    infer_attrs(&mut ctx, true)?;
    let shape = shape_input(&ctx, 0, "orig_input_shape")?;
    rank4(&ctx, &shape, "orig_input_shape")?;
    Ok(vec![OutputSpec::new(t, shape)])
}
