//! TF's fused recurrent ops: `LSTMBlockCell` and `LSTMBlockCellGrad` (one step),
//! `BlockLSTM` and `BlockLSTMGrad` (a sequence), `GRUBlockCell` and `GRUBlockCellGrad`
//! (kernels in `kernels::lstm` and `kernels::gru`). The step ops' gradients are
//! registered in Python, as TF's (`_LSTMBlockCellGrad`, `_GRUBlockCellGrad`: the grad
//! op, then matrix products for the weights); so is `BlockLSTM`'s (its grad op).
//! Also `ReverseSequence` (what bidirectional RNNs reverse their inputs with), whose
//! gradient is itself.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    let cell = &["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"];
    r.add(OpDef::new("LSTMBlockCell", cell, infer_cell));
    let grad = &[
        "x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b", "i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad",
    ];
    // No gradient (as TF: a path through it is a `LookupError`).
    r.add(OpDef::new("LSTMBlockCellGrad", grad, infer_grad));
    let block = &["seq_len_max", "x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"];
    r.add(OpDef::new("BlockLSTM", block, infer_block));
    let block_grad = &[
        "seq_len_max",
        "x",
        "cs_prev",
        "h_prev",
        "w",
        "wci",
        "wcf",
        "wco",
        "b",
        "i",
        "cs",
        "f",
        "o",
        "ci",
        "co",
        "h",
        "cs_grad",
        "h_grad",
    ];
    r.add(OpDef::new("BlockLSTMGrad", block_grad, infer_block_grad));
    let gru = &["x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"];
    r.add(OpDef::new("GRUBlockCell", gru, infer_gru));
    let gru_grad = &["x", "h_prev", "w_ru", "w_c", "b_ru", "b_c", "r", "u", "c", "d_h"];
    r.add(OpDef::new("GRUBlockCellGrad", gru_grad, infer_gru_grad));
    r.add(OpDef::new("ReverseSequence", &["input", "seq_lengths"], infer_reverse_sequence));
}

/// TF's shape function: the input's shape with the batch dimension merged with
/// `seq_lengths`' length; the axes checked against a known rank.
fn infer_reverse_sequence(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.attrs.insert("T".into(), crate::framework::attr::AttrValue::Type(t));
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let tlen = ctx.input(1).dtype;
    ctx.attrs.insert("Tlen".into(), crate::framework::attr::AttrValue::Type(tlen));
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

/// TF's: `[time, batch, cell]` for all seven outputs, the cell size a quarter of `b`'s.
fn infer_block(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Int64])?;
    ctx.check_rank(0, 0)?;
    ctx.check_type(1, HALF_FLOAT)?;
    let t = ctx.same_type(&[1, 2, 3, 4, 5, 6, 7, 8])?;
    ctx.attr_or("forget_bias", 1.0f32)?;
    ctx.attr_or("cell_clip", 3.0f32)?;
    ctx.attr_bool("use_peephole", false)?;
    ctx.check_rank(1, 3)?;
    ctx.check_rank(8, 1)?;
    let x = ctx.input(1).shape.dims().map(<[_]>::to_vec).unwrap_or_else(|| vec![None; 3]);
    let cell = match ctx.input(8).shape.dims().and_then(|d| d[0]) {
        Some(n) if n % 4 != 0 => {
            return Err(Error::value(format!(
                "Dimension size must be evenly divisible by 4 but is {n} for '{}' (op: 'BlockLSTM')",
                ctx.name
            )));
        }
        n => n.map(|n| n / 4),
    };
    let shape = PartialShape::from_dims([x[0], x[1], cell]);
    Ok((0..7).map(|_| OutputSpec::new(t, shape.clone())).collect())
}

/// TF's: each gradient has its input's shape.
fn infer_block_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Int64])?;
    ctx.check_type(1, HALF_FLOAT)?;
    let t = ctx.same_type(&(1..18).collect::<Vec<_>>())?;
    ctx.attr_bool("use_peephole", false)?;
    for (i, rank) in [(1, 3), (2, 2), (3, 2), (4, 2), (5, 1), (6, 1), (7, 1), (8, 1)] {
        ctx.check_rank(i, rank)?;
    }
    Ok((1..9).map(|i| OutputSpec::new(t, ctx.input(i).shape.clone())).collect())
}

/// `[batch, cell]` from `x`'s first and `h_prev`'s last dimension.
fn gru_batch_by_cell(ctx: &InferCtx<'_>) -> Result<(Option<usize>, Option<usize>)> {
    ctx.check_rank(0, 2)?;
    ctx.check_rank(1, 2)?;
    let batch = ctx.input(0).shape.dims().and_then(|d| d[0]);
    let cell = ctx.input(1).shape.dims().and_then(|d| d[1]);
    Ok((batch, cell))
}

fn infer_gru(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float32])?;
    let t = ctx.same_type(&[0, 1, 2, 3, 4, 5])?;
    let (batch, cell) = gru_batch_by_cell(&ctx)?;
    Ok((0..4).map(|_| OutputSpec::new(t, PartialShape::from_dims([batch, cell]))).collect())
}

fn infer_gru_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Float32])?;
    let t = ctx.same_type(&(0..10).collect::<Vec<_>>())?;
    let (batch, cell) = gru_batch_by_cell(&ctx)?;
    Ok(vec![
        OutputSpec::new(t, ctx.input(0).shape.clone()),
        OutputSpec::new(t, ctx.input(1).shape.clone()),
        OutputSpec::new(t, PartialShape::from_dims([batch, cell])),
        OutputSpec::new(t, PartialShape::from_dims([batch, cell.and_then(|c| c.checked_mul(2))])),
    ])
}
