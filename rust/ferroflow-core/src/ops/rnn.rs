//! TF's fused LSTM cell ops (`LSTMBlockCell`, `LSTMBlockCellGrad`; kernels in
//! `kernels::rnn`). `LSTMBlockCell`'s gradient is registered in Python, as TF's
//! (`_LSTMBlockCellGrad`: the grad op, then matrix products for `x`, `h_prev`, `w`).
//! Also `ReverseSequence` (what bidirectional RNNs reverse their inputs with), whose
//! gradient is itself.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::OutputSpec;
use crate::kernels::rnn::{lstm_block_cell_grad_kernel, lstm_block_cell_kernel, reverse_sequence_kernel};
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    let cell = &["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"];
    r.add(OpDef::new("LSTMBlockCell", cell, infer_cell, lstm_block_cell_kernel));
    let grad = &[
        "x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b", "i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad",
    ];
    // No gradient (as TF: a path through it is a `LookupError`).
    r.add(OpDef::new("LSTMBlockCellGrad", grad, infer_grad, lstm_block_cell_grad_kernel));
    r.add(
        OpDef::new("ReverseSequence", &["input", "seq_lengths"], infer_reverse_sequence, reverse_sequence_kernel)
            .grad(crate::autodiff::array_grad::reverse_sequence),
    );
}

/// TF's shape function: the input's shape with the batch dimension merged with
/// `seq_lengths`' length; the axes checked against a known rank.
fn infer_reverse_sequence(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.attrs.insert("T".into(), crate::graph::AttrValue::Type(t));
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let tlen = ctx.input(1).dtype;
    ctx.attrs.insert("Tlen".into(), crate::graph::AttrValue::Type(tlen));
    let seq_dim: i64 = ctx.required_attr("seq_dim")?;
    let batch_dim = ctx.attr_int("batch_dim", 0)?;
    ctx.check_rank(1, 1)?;
    let input = ctx.input(0).shape.clone();
    let Some(dims) = input.dims() else { return Ok(vec![OutputSpec::new(t, input)]) };
    let rank = dims.len() as i64;
    let bad = |what: &str, v: i64| {
        Error::value(format!("{what} must be < input rank: {v} vs. {rank} for '{}' (op: 'ReverseSequence')", ctx.name))
    };
    if !(0..rank).contains(&batch_dim) {
        return Err(bad("batch_dim", batch_dim));
    }
    if !(0..rank).contains(&seq_dim) {
        return Err(bad("seq_dim", seq_dim));
    }
    let mut out = dims.to_vec();
    let lengths = ctx.input(1).shape.dims().and_then(|d| d.first().copied()).flatten();
    let b = batch_dim as usize;
    out[b] = match (out[b], lengths) {
        (Some(x), Some(y)) if x != y => {
            return Err(Error::value(format!(
                "Dimensions must be equal, but are {x} and {y} for '{}' (op: 'ReverseSequence')",
                ctx.name
            )));
        }
        (x, y) => x.or(y),
    };
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(out))])
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
