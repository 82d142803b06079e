//! Reductions (sum, mean, max, min, prod, all, any), scans (cumsum, cumprod), arg-reductions, segment sums and the
//! shape helper that reduction gradients need (`BroadcastGradientArgs`).
use super::math::NUMERIC;
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::framework::shape_util::reduction_axes;
use crate::framework::tensor_util::int_values;
use crate::shape::{PartialShape, normalize_axis};

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Sum", &["input", "reduction_indices"], infer_reduce_c));
    r.add(OpDef::new("Mean", &["input", "reduction_indices"], infer_reduce_c));
    r.add(OpDef::new("Max", &["input", "reduction_indices"], infer_reduce));
    r.add(OpDef::new("Min", &["input", "reduction_indices"], infer_reduce));
    r.add(OpDef::new("Prod", &["input", "reduction_indices"], infer_reduce));
    r.add(OpDef::new("Cumsum", &["x", "axis"], infer_scan));
    r.add(OpDef::new("Cumprod", &["x", "axis"], infer_scan));
    r.add(OpDef::new("All", &["input", "reduction_indices"], infer_logical_reduce));
    r.add(OpDef::new("Any", &["input", "reduction_indices"], infer_logical_reduce));
    r.add(OpDef::new("ArgMax", &["input", "dimension"], infer_arg));
    r.add(OpDef::new("ArgMin", &["input", "dimension"], infer_arg));
    r.add(OpDef::new("UnsortedSegmentSum", &["data", "segment_ids", "num_segments"], infer_segment_sum));
    r.add(OpDef::new("BroadcastGradientArgs", &["s0", "s1"], infer_bcast_args));
}

fn infer_reduce(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    infer_reduction(ctx, NUMERIC)
}

/// `Sum` and `Mean`, which also reduce complex tensors.
fn infer_reduce_c(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let allowed: Vec<DType> = NUMERIC.iter().copied().chain([DType::Complex64, DType::Complex128]).collect();
    infer_reduction(ctx, &allowed)
}

/// `All`/`Any` reduce booleans (TF records no `T` attr for them).
fn infer_logical_reduce(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    infer_reduction(ctx, &[DType::Bool])
}

fn infer_reduction(mut ctx: InferCtx<'_>, allowed: &[DType]) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, allowed)?;
    let t = ctx.input(0).dtype;
    if allowed != [DType::Bool] {
        ctx.attrs.insert("T".into(), AttrValue::Type(t));
    }
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let tidx = ctx.input(1).dtype;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(tidx));
    let keep = ctx.attr_bool("keep_dims", false)?;
    let input = ctx.input(0).shape.clone();
    let Some(rank) = input.rank() else {
        return Ok(vec![OutputSpec::new(t, PartialShape::unknown())]);
    };
    let Some(axes) = ctx.constant_input(1) else {
        let shape = if keep { PartialShape::unknown_of_rank(rank) } else { PartialShape::unknown() };
        return Ok(vec![OutputSpec::new(t, shape)]);
    };
    let axes = reduction_axes(&int_values(axes)?, rank).map_err(|e| Error::value(e.message))?;
    let dims = input.dims().unwrap_or_default();
    let out = dims.iter().enumerate().filter_map(|(i, d)| match (axes.contains(&i), keep) {
        (true, true) => Some(Some(1)),
        (true, false) => None,
        (false, _) => Some(*d),
    });
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(out))])
}

fn infer_scan(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, NUMERIC)?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(ctx.input(1).dtype));
    ctx.attr_bool("exclusive", false)?;
    ctx.attr_bool("reverse", false)?;
    ctx.check_rank(1, 0)?;
    let shape = ctx.input(0).shape.clone();
    if let (Some(rank), Some(axis)) = (shape.rank(), ctx.constant_input(1)) {
        let a = int_values(axis)?[0];
        if normalize_axis(a, rank).is_none() {
            return Err(Error::value(format!(
                "ScanOp: Expected scan axis in the range [{}, {rank}), but got {a} for '{}'",
                -(rank as i64),
                ctx.name
            )));
        }
    }
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_arg(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, NUMERIC)?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    let out = match ctx.attrs.get("output_type") {
        Some(AttrValue::Type(t)) => *t,
        _ => DType::Int64,
    };
    ctx.attrs.insert("output_type".into(), AttrValue::Type(out));
    ctx.attrs.insert("T".into(), AttrValue::Type(ctx.input(0).dtype));
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(ctx.input(1).dtype));
    let shape = match (ctx.input(0).shape.dims(), ctx.constant_input(1)) {
        (Some(d), Some(axis)) => {
            let a = int_values(axis)?.first().copied().unwrap_or(0);
            let ax = normalize_axis(a, d.len()).ok_or_else(|| {
                Error::value(format!(
                    "Expected dimension in the range [{}, {}), but got {a}",
                    -(d.len() as i64),
                    d.len()
                ))
            })?;
            PartialShape::from_dims(d.iter().enumerate().filter(|(i, _)| *i != ax).map(|(_, v)| *v))
        }
        (Some(d), None) if !d.is_empty() => PartialShape::unknown_of_rank(d.len() - 1),
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(out, shape)])
}

fn infer_segment_sum(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, NUMERIC)?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.check_type(2, &[DType::Int32, DType::Int64])?;
    let t = ctx.input(0).dtype;
    for (k, i) in [("T", 0), ("Tindices", 1), ("Tnumsegments", 2)] {
        ctx.attrs.insert(k.into(), AttrValue::Type(ctx.input(i).dtype));
    }
    let n = ctx
        .constant_input(2)
        .and_then(|v| int_values(v).ok())
        .and_then(|v| v.first().copied())
        .and_then(|v| usize::try_from(v).ok());
    let shape = match (ctx.input(0).shape.dims(), ctx.input(1).shape.dims()) {
        (Some(d), Some(ids)) => {
            // As TF's shape function: data's shape must start with segment_ids' shape.
            let prefix_ok =
                d.len() >= ids.len() && d.iter().zip(ids).all(|(a, b)| a.is_none() || b.is_none() || a == b);
            if !prefix_ok {
                return Err(Error::value(format!(
                    "Shape {} is not a prefix of data's shape {} for '{}' (op: 'UnsortedSegmentSum')",
                    ctx.input(1).shape,
                    ctx.input(0).shape,
                    ctx.name
                )));
            }
            PartialShape::from_dims(std::iter::once(n).chain(d[ids.len()..].iter().copied()))
        }
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_bcast_args(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([None])); 2])
}
