//! Gradients of the neural-network ops (TF's `nn_grad.py` formulas).
use super::{Grad, GradCtx, dense_all};
use crate::error::Result;
use crate::graph::{AttrValue, Output};
use crate::tensor::Tensor;

type Grads = Result<Vec<Option<Grad>>>;

fn fused(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], op: &str, use_output: bool) -> Grads {
    let dy = ctx.dy(g)?;
    let v = if use_output { ctx.output(0) } else { ctx.input(0) };
    Ok(dense_all(vec![ctx.op(op, &[dy, v], vec![])?]))
}

pub(crate) fn relu(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "ReluGrad", true)
}

pub(crate) fn relu6(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "Relu6Grad", false)
}

pub(crate) fn elu(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "EluGrad", true)
}

pub(crate) fn softplus(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "SoftplusGrad", false)
}

pub(crate) fn selu(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "SeluGrad", true)
}

pub(crate) fn softsign(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    fused(ctx, g, "SoftsignGrad", false)
}

// Second-order gradients of the fused activation gradients (TF's `nn_grad.py`).

/// `ReluGrad(dy, x)` is linear in `dy` with a mask that is locally constant in `x`.
pub(crate) fn relu_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    masked_linear(ctx, g, "ReluGrad")
}

/// `Relu6Grad(dy, x)`: as `ReluGrad`.
pub(crate) fn relu6_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    masked_linear(ctx, g, "Relu6Grad")
}

fn masked_linear(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], op: &str) -> Grads {
    let grad = ctx.dy(g)?;
    let x = ctx.input(1);
    let ddy = ctx.op(op, &[grad, x], vec![])?;
    let dx = ctx.op("ZerosLike", &[x], vec![])?;
    Ok(dense_all(vec![ddy, dx]))
}

/// `EluGrad(dy, y) = dy` where `y > 0`, else `dy (y + 1)`.
pub(crate) fn elu_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    output_based_grad_grad(ctx, g, "EluGrad")
}

/// `SeluGrad(dy, y) = dy scale` where `y >= 0`, else `dy (y + scale alpha)` (TF's
/// `_SeluGradGrad`, the same form as ELU's).
pub(crate) fn selu_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    output_based_grad_grad(ctx, g, "SeluGrad")
}

/// The gradient of `op(dy, y)`, linear in `dy` and, below zero, in `y` with slope `dy`.
fn output_based_grad_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], op: &str) -> Grads {
    let grad = ctx.dy(g)?;
    let (dy, y) = (ctx.input(0), ctx.input(1));
    let ddy = ctx.op(op, &[grad, y], vec![])?;
    let zero = ctx.scalar(ctx.spec(y)?.dtype, 0.0)?;
    let negative = ctx.op("Less", &[y, zero], vec![])?;
    let gd = ctx.op("Mul", &[grad, dy], vec![])?;
    let zeros = ctx.op("ZerosLike", &[y], vec![])?;
    let dyy = ctx.op("SelectV2", &[negative, gd, zeros], vec![])?;
    Ok(dense_all(vec![ddy, dyy]))
}

/// `SoftplusGrad(dy, x) = dy / (1 + exp(-x))`.
pub(crate) fn softplus_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let (dy, x) = (ctx.input(0), ctx.input(1));
    let ddy = ctx.op("SoftplusGrad", &[grad, x], vec![])?;
    let negx = ctx.op("Neg", &[x], vec![])?;
    let e_neg = ctx.op("Exp", &[negx], vec![])?;
    let e_pos = ctx.op("Exp", &[x], vec![])?;
    let two = ctx.scalar(ctx.spec(x)?.dtype, 2.0)?;
    let denom = ctx.op("AddV2", &[e_neg, two], vec![])?;
    let denom = ctx.op("AddV2", &[denom, e_pos], vec![])?;
    let gd = ctx.op("Mul", &[grad, dy], vec![])?;
    let d2x = ctx.op("RealDiv", &[gd, denom], vec![])?;
    Ok(dense_all(vec![ddy, d2x]))
}

/// `BiasAddGrad` sums over all but the channel axis: its gradient broadcasts back
/// (for channels first, through `[C, 1, ..., 1]`, which needs the input's rank).
pub(crate) fn bias_add_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let mut grad = ctx.dy(g)?;
    let x = ctx.input(0);
    if matches!(ctx.attr("data_format"), Some(AttrValue::S(f)) if f.as_slice() == b"NCHW") {
        let rank = ctx.spec(x)?.shape.rank().ok_or_else(|| {
            crate::error::Error::value("BiasAddGrad's gradient with data_format NCHW needs the input's rank")
        })?;
        let mut dims = vec![-1i32];
        dims.resize(rank.saturating_sub(1).max(1), 1);
        let shape = ctx.constant(Tensor::from_slice(&[dims.len()], &dims)?)?;
        grad = ctx.op("Reshape", &[grad, shape], vec![])?;
    }
    let shape = ctx.shape_of(x)?;
    Ok(dense_all(vec![ctx.op("BroadcastTo", &[grad, shape], vec![])?]))
}

fn last_axis(ctx: &mut GradCtx<'_>) -> Result<Output> {
    ctx.constant(Tensor::from_slice(&[1], &[-1i32])?)
}

pub(crate) fn softmax(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let y = ctx.output(0);
    let gy = ctx.op("Mul", &[dy, y], vec![])?;
    let axis = last_axis(ctx)?;
    let s = ctx.op("Sum", &[gy, axis], vec![("keep_dims", AttrValue::B(true))])?;
    let d = ctx.op("Sub", &[dy, s], vec![])?;
    Ok(dense_all(vec![ctx.op("Mul", &[d, y], vec![])?]))
}

pub(crate) fn log_softmax(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let y = ctx.output(0);
    let axis = last_axis(ctx)?;
    let s = ctx.op("Sum", &[dy, axis], vec![("keep_dims", AttrValue::B(true))])?;
    let e = ctx.op("Exp", &[y], vec![])?;
    let m = ctx.op("Mul", &[s, e], vec![])?;
    Ok(dense_all(vec![ctx.op("Sub", &[dy, m], vec![])?]))
}

/// `dloss` as a column, to scale each row of a per-example gradient.
fn loss_column(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Result<Option<Output>> {
    let Some(dl) = ctx.dense_out(g, 0)? else { return Ok(None) };
    let axis = ctx.constant(Tensor::scalar(-1i32))?;
    Ok(Some(ctx.op("ExpandDims", &[dl, axis], vec![])?))
}

/// The logits' gradient of a softmax cross-entropy: `dloss * backprop`, plus, when the
/// `backprop` output itself is differentiated (second order), TF's term
/// `(gg - sum(gg * softmax)) * softmax`. Returns None when neither output has one.
fn xent_logits_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], col: Option<Output>) -> Result<Option<Output>> {
    let (logits, backprop) = (ctx.input(0), ctx.output(1));
    let first = col.map(|c| ctx.op("Mul", &[c, backprop], vec![])).transpose()?;
    let Some(gg) = ctx.dense_out(g, 1)? else { return Ok(first) };
    let softmax = ctx.op("Softmax", &[logits], vec![])?;
    let axis = last_axis(ctx)?;
    let weighted = ctx.op("Mul", &[gg, softmax], vec![])?;
    let dot = ctx.op("Sum", &[weighted, axis], vec![("keep_dims", AttrValue::B(true))])?;
    let centred = ctx.op("Sub", &[gg, dot], vec![])?;
    let second = ctx.op("Mul", &[centred, softmax], vec![])?;
    Ok(Some(match first {
        Some(f) => ctx.op("AddV2", &[f, second], vec![])?,
        None => second,
    }))
}

pub(crate) fn softmax_xent(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let col = loss_column(ctx, g)?;
    let glogits = xent_logits_grad(ctx, g, col)?;
    let glabels = match col {
        Some(c) => {
            let ls = ctx.op("LogSoftmax", &[ctx.input(0)], vec![])?;
            let neg = ctx.op("Neg", &[ls], vec![])?;
            Some(Grad::Dense(ctx.op("Mul", &[c, neg], vec![])?))
        }
        None => None,
    };
    Ok(vec![glogits.map(Grad::Dense), glabels])
}

pub(crate) fn sparse_softmax_xent(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let col = loss_column(ctx, g)?;
    Ok(vec![xent_logits_grad(ctx, g, col)?.map(Grad::Dense), None])
}

pub(crate) fn bias_add(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let format = ctx.attr("data_format").cloned().unwrap_or(AttrValue::S(b"NHWC".to_vec()));
    let gb = ctx.op("BiasAddGrad", &[dy], vec![("data_format", format)])?;
    Ok(dense_all(vec![dy, gb]))
}

pub(crate) fn l2_loss(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    Ok(dense_all(vec![ctx.op("Mul", &[x, dy], vec![])?]))
}

/// `TopKV2` routes each value's gradient to the input position it came from (TF's
/// `_TopKGrad`: the flat positions `indices + row * cols`, scattered into zeros of the
/// input's size). `k` gets a zero.
pub(crate) fn top_k(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dk = ctx.constant(Tensor::scalar(0i32))?;
    let Some(grad) = ctx.dense_out(g, 0)? else { return Ok(vec![None, Some(Grad::Dense(dk))]) };
    let (x, indices) = (ctx.input(0), ctx.output(1));
    let index_type = ctx.spec(indices)?.dtype;
    let in_shape = ctx.op("Shape", &[x], vec![])?;
    let ind_shape = ctx.op("Shape", &[indices], vec![])?;
    let zero = ctx.constant(Tensor::scalar(0i32))?;
    let one = ctx.constant(Tensor::scalar(1i32))?;
    let rank = ctx.op("Size", &[ind_shape], vec![])?;
    let last = ctx.op("Sub", &[rank, one], vec![])?;
    let ind_last = ctx.op("GatherV2", &[ind_shape, last, zero], vec![])?;
    let minus_one = ctx.constant(Tensor::scalar(-1i32))?;
    let shape_2d = ctx.op("Pack", &[minus_one, ind_last], vec![("axis", AttrValue::I(0))])?;
    let ind_2d = ctx.op("Reshape", &[indices, shape_2d], vec![])?;
    let in_last = ctx.op("GatherV2", &[in_shape, last, zero], vec![])?;
    let shape_of_2d = ctx.op("Shape", &[ind_2d], vec![])?;
    let outer = ctx.op("GatherV2", &[shape_of_2d, zero, zero], vec![])?;
    let end = ctx.op("Mul", &[outer, in_last], vec![])?;
    let starts = ctx.op("Range", &[zero, end, in_last], vec![])?;
    let starts = ctx.op("ExpandDims", &[starts, minus_one], vec![])?;
    let starts = if index_type == crate::dtype::DType::Int32 {
        starts
    } else {
        ctx.op("Cast", &[starts], vec![("DstT", AttrValue::Type(index_type))])?
    };
    let flat = ctx.op("AddV2", &[ind_2d, starts], vec![])?;
    let flat_shape = ctx.constant(Tensor::from_slice(&[1], &[-1i32])?)?;
    let ind = ctx.op("Reshape", &[flat, flat_shape], vec![])?;
    let values = ctx.op("Reshape", &[grad, flat_shape], vec![])?;
    let size = ctx.op("Prod", &[in_shape, zero], vec![("keep_dims", AttrValue::B(false))])?;
    // The positions are distinct, so summing into zeros is TF's `scatter_nd`.
    let scattered = ctx.op("UnsortedSegmentSum", &[values, ind, size], vec![])?;
    let dx = ctx.op("Reshape", &[scattered, in_shape], vec![])?;
    Ok(dense_all(vec![dx, dk]))
}

/// `LRN`'s gradient is the fused `LRNGrad` of the output gradient, input and output.
pub(crate) fn lrn(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.output(0));
    let attrs = window_attrs(ctx, &["depth_radius", "bias", "alpha", "beta"]);
    Ok(dense_all(vec![ctx.op("LRNGrad", &[dy, x, y], attrs)?]))
}

/// The depthwise convolution's gradients: its two backprop ops with its attrs.
pub(crate) fn depthwise_conv2d(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, w) = (ctx.input(0), ctx.input(1));
    let attrs = window_attrs(ctx, CONV_ATTRS);
    let xs = ctx.op("Shape", &[x], vec![])?;
    let ws = ctx.op("Shape", &[w], vec![])?;
    let dx = ctx.op("DepthwiseConv2dNativeBackpropInput", &[xs, w, dy], attrs.clone())?;
    let dw = ctx.op("DepthwiseConv2dNativeBackpropFilter", &[x, ws, dy], attrs)?;
    Ok(dense_all(vec![dx, dw]))
}

/// `DepthwiseConv2dNativeBackpropInput` is linear in the filter and the output gradient.
pub(crate) fn depthwise_backprop_input(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let (w, dy) = (ctx.input(1), ctx.input(2));
    let attrs = window_attrs(ctx, CONV_ATTRS);
    let ws = ctx.op("Shape", &[w], vec![])?;
    let dw = ctx.op("DepthwiseConv2dNativeBackpropFilter", &[grad, ws, dy], attrs.clone())?;
    let ddy = ctx.op("DepthwiseConv2dNative", &[grad, w], attrs)?;
    Ok(vec![None, Some(Grad::Dense(dw)), Some(Grad::Dense(ddy))])
}

/// `DepthwiseConv2dNativeBackpropFilter` is linear in the input and the output gradient.
pub(crate) fn depthwise_backprop_filter(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let (x, dy) = (ctx.input(0), ctx.input(2));
    let attrs = window_attrs(ctx, CONV_ATTRS);
    let xs = ctx.op("Shape", &[x], vec![])?;
    let dx = ctx.op("DepthwiseConv2dNativeBackpropInput", &[xs, grad, dy], attrs.clone())?;
    let ddy = ctx.op("DepthwiseConv2dNative", &[x, grad], attrs)?;
    Ok(vec![Some(Grad::Dense(dx)), None, Some(Grad::Dense(ddy))])
}

/// The forward op's window attrs, for the gradient ops that undo it.
fn window_attrs(ctx: &GradCtx<'_>, names: &[&'static str]) -> Vec<(&'static str, AttrValue)> {
    names.iter().filter_map(|&n| ctx.attr(n).map(|v| (n, v.clone()))).collect()
}

const CONV_ATTRS: &[&str] =
    &["strides", "padding", "data_format", "dilations", "use_cudnn_on_gpu", "explicit_paddings"];
const POOL_ATTRS: &[&str] = &["ksize", "strides", "padding", "data_format"];

pub(crate) fn conv2d(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    conv_grad(ctx, g, ["Conv2DBackpropInput", "Conv2DBackpropFilter"], CONV_ATTRS)
}

/// Conv2DBackpropInput is linear in the filter and the output gradient.
pub(crate) fn conv2d_backprop_input(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    conv_input_grad(ctx, g, ["Conv2DBackpropFilter", "Conv2D"], CONV_ATTRS)
}

/// Conv2DBackpropFilter is linear in the input and the output gradient.
pub(crate) fn conv2d_backprop_filter(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    conv_filter_grad(ctx, g, ["Conv2DBackpropInput", "Conv2D"], CONV_ATTRS)
}

const CONV3D_ATTRS: &[&str] = &["strides", "padding", "data_format", "dilations"];

pub(crate) fn conv3d(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    conv_grad(ctx, g, ["Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"], CONV3D_ATTRS)
}

/// Conv3DBackpropInputV2 is linear in the filter and the output gradient.
pub(crate) fn conv3d_backprop_input(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    conv_input_grad(ctx, g, ["Conv3DBackpropFilterV2", "Conv3D"], CONV3D_ATTRS)
}

/// Conv3DBackpropFilterV2 is linear in the input and the output gradient.
pub(crate) fn conv3d_backprop_filter(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    conv_filter_grad(ctx, g, ["Conv3DBackpropInputV2", "Conv3D"], CONV3D_ATTRS)
}

/// A convolution's gradients: its two backprop ops (`[input op, filter op]`).
fn conv_grad(
    ctx: &mut GradCtx<'_>,
    g: &[Option<Grad>],
    [input_op, filter_op]: [&str; 2],
    names: &[&'static str],
) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, w) = (ctx.input(0), ctx.input(1));
    let attrs = window_attrs(ctx, names);
    let (xs, ws) = (ctx.shape_of(x)?, ctx.shape_of(w)?);
    let dx = ctx.op(input_op, &[xs, w, dy], attrs.clone())?;
    let dw = ctx.op(filter_op, &[x, ws, dy], attrs)?;
    Ok(dense_all(vec![dx, dw]))
}

/// The gradients of a convolution's input-backprop op (`[filter op, forward op]`).
fn conv_input_grad(
    ctx: &mut GradCtx<'_>,
    g: &[Option<Grad>],
    [filter_op, conv_op]: [&str; 2],
    names: &[&'static str],
) -> Grads {
    let grad = ctx.dy(g)?;
    let (w, dy) = (ctx.input(1), ctx.input(2));
    let attrs = window_attrs(ctx, names);
    let ws = ctx.shape_of(w)?;
    let dw = ctx.op(filter_op, &[grad, ws, dy], attrs.clone())?;
    let ddy = ctx.op(conv_op, &[grad, w], attrs)?;
    Ok(vec![None, Some(Grad::Dense(dw)), Some(Grad::Dense(ddy))])
}

/// The gradients of a convolution's filter-backprop op (`[input op, forward op]`).
fn conv_filter_grad(
    ctx: &mut GradCtx<'_>,
    g: &[Option<Grad>],
    [input_op, conv_op]: [&str; 2],
    names: &[&'static str],
) -> Grads {
    let grad = ctx.dy(g)?;
    let (x, dy) = (ctx.input(0), ctx.input(2));
    let attrs = window_attrs(ctx, names);
    let xs = ctx.shape_of(x)?;
    let dx = ctx.op(input_op, &[xs, grad, dy], attrs.clone())?;
    let ddy = ctx.op(conv_op, &[x, grad], attrs)?;
    Ok(vec![Some(Grad::Dense(dx)), None, Some(Grad::Dense(ddy))])
}

pub(crate) fn max_pool(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    max_pool_with(ctx, g, "MaxPoolGrad")
}

pub(crate) fn max_pool3d(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    max_pool_with(ctx, g, "MaxPool3DGrad")
}

fn max_pool_with(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], op: &str) -> Grads {
    let dy = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.output(0));
    let attrs = window_attrs(ctx, POOL_ATTRS);
    Ok(dense_all(vec![ctx.op(op, &[x, y, dy], attrs)?]))
}

pub(crate) fn avg_pool(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    avg_pool_with(ctx, g, "AvgPoolGrad")
}

pub(crate) fn avg_pool3d(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    avg_pool_with(ctx, g, "AvgPool3DGrad")
}

fn avg_pool_with(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], op: &str) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    let attrs = window_attrs(ctx, POOL_ATTRS);
    let xs = ctx.shape_of(x)?;
    Ok(dense_all(vec![ctx.op(op, &[xs, dy], attrs)?]))
}

/// `MaxPoolGrad` routes its gradient input to the argmax positions: linear in `grad`,
/// locally constant in the pooled values (TF returns zeros for those).
pub(crate) fn max_pool_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    pool_routing_grad(ctx, g, "MaxPoolGradGrad")
}

/// `MaxPoolGradGrad` is undone by `MaxPoolGrad`.
pub(crate) fn max_pool_grad_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    pool_routing_grad(ctx, g, "MaxPoolGrad")
}

/// `MaxPool3DGrad`, as `MaxPoolGrad`.
pub(crate) fn max_pool3d_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    pool_routing_grad(ctx, g, "MaxPool3DGradGrad")
}

/// `MaxPool3DGradGrad` is undone by `MaxPool3DGrad`.
pub(crate) fn max_pool3d_grad_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    pool_routing_grad(ctx, g, "MaxPool3DGrad")
}

fn pool_routing_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>], op: &str) -> Grads {
    let grad = ctx.dy(g)?;
    let (x, y) = (ctx.input(0), ctx.input(1));
    let attrs = window_attrs(ctx, POOL_ATTRS);
    let zx = ctx.op("ZerosLike", &[x], vec![])?;
    let zy = ctx.op("ZerosLike", &[y], vec![])?;
    let routed = ctx.op(op, &[x, y, grad], attrs)?;
    Ok(dense_all(vec![zx, zy, routed]))
}

/// AvgPoolGrad is linear in the gradient: its own gradient is the pooling.
pub(crate) fn avg_pool_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let attrs = window_attrs(ctx, POOL_ATTRS);
    Ok(vec![None, Some(Grad::Dense(ctx.op("AvgPool", &[grad], attrs)?))])
}

/// `AvgPool3DGrad`, as `AvgPoolGrad`.
pub(crate) fn avg_pool3d_grad(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let grad = ctx.dy(g)?;
    let attrs = window_attrs(ctx, POOL_ATTRS);
    Ok(vec![None, Some(Grad::Dense(ctx.op("AvgPool3D", &[grad], attrs)?))])
}
