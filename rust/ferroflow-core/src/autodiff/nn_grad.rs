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

pub(crate) fn softmax_xent(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let Some(col) = loss_column(ctx, g)? else { return Ok(vec![None, None]) };
    let (logits, backprop) = (ctx.input(0), ctx.output(1));
    let glogits = ctx.op("Mul", &[col, backprop], vec![])?;
    let ls = ctx.op("LogSoftmax", &[logits], vec![])?;
    let neg = ctx.op("Neg", &[ls], vec![])?;
    let glabels = ctx.op("Mul", &[col, neg], vec![])?;
    Ok(dense_all(vec![glogits, glabels]))
}

pub(crate) fn sparse_softmax_xent(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let Some(col) = loss_column(ctx, g)? else { return Ok(vec![None, None]) };
    let backprop = ctx.output(1);
    Ok(vec![Some(Grad::Dense(ctx.op("Mul", &[col, backprop], vec![])?)), None])
}

pub(crate) fn bias_add(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let gb = ctx.op("BiasAddGrad", &[dy], vec![])?;
    Ok(dense_all(vec![dy, gb]))
}

pub(crate) fn l2_loss(ctx: &mut GradCtx<'_>, g: &[Option<Grad>]) -> Grads {
    let dy = ctx.dy(g)?;
    let x = ctx.input(0);
    Ok(dense_all(vec![ctx.op("Mul", &[x, dy], vec![])?]))
}
