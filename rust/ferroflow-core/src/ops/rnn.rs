//! TF's fused LSTM cell ops (`LSTMBlockCell`, `LSTMBlockCellGrad`; kernels in
//! `kernels::rnn`). `LSTMBlockCell`'s gradient is registered in Python, as TF's
//! (`_LSTMBlockCellGrad`: the grad op, then matrix products for `x`, `h_prev`, `w`).
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::OutputSpec;
use crate::kernels::rnn::{lstm_block_cell_grad_kernel, lstm_block_cell_kernel};
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    let cell = &["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"];
    r.add(OpDef::new("LSTMBlockCell", cell, infer_cell, lstm_block_cell_kernel));
    let grad = &[
        "x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b", "i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad",
    ];
    // No gradient (as TF: a path through it is a `LookupError`).
    r.add(OpDef::new("LSTMBlockCellGrad", grad, infer_grad, lstm_block_cell_grad_kernel));
}

/// The types TF's kernels take (`T: {half, float}`).
const HALF_FLOAT: &[DType] = &[DType::Float16, DType::Float32];

/// `[batch, cell]` from `x`'s first and `cs_prev`'s last dimension.
fn batch_by_cell(ctx: &InferCtx<'_>) -> Result<(PartialShape, Option<usize>)> {
    ctx.check_rank(0, 2)?;
    ctx.check_rank(1, 2)?;
    ctx.check_rank(3, 2)?;
    let batch = ctx.input(0).shape.dims().and_then(|d| d.first().copied()).flatten();
    let cell = ctx.input(1).shape.dims().and_then(|d| d.get(1).copied()).flatten();
    Ok((PartialShape::from_dims([batch, cell]), cell))
}

fn infer_cell(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, HALF_FLOAT)?;
    let t = ctx.same_type(&[0, 1, 2, 3, 4, 5, 6, 7])?;
    ctx.attr_or("forget_bias", 1.0f32)?;
    ctx.attr_or("cell_clip", 3.0f32)?;
    ctx.attr_bool("use_peephole", false)?;
    let (shape, _) = batch_by_cell(&ctx)?;
    Ok((0..7).map(|_| OutputSpec::new(t, shape.clone())).collect())
}

fn infer_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, HALF_FLOAT)?;
    let t = ctx.same_type(&(0..16).collect::<Vec<_>>())?;
    ctx.attr_bool("use_peephole", false)?;
    let (shape, cell) = batch_by_cell(&ctx)?;
    let batch = shape.dims().and_then(|d| d[0]);
    let gates = cell.and_then(|c| c.checked_mul(4));
    let vector = PartialShape::from_dims([cell]);
    Ok(vec![
        OutputSpec::new(t, shape),
        OutputSpec::new(t, PartialShape::from_dims([batch, gates])),
        OutputSpec::new(t, vector.clone()),
        OutputSpec::new(t, vector.clone()),
        OutputSpec::new(t, vector),
    ])
}
