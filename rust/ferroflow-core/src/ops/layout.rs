//! Layout ops: `BroadcastTo`, `ConcatV2` (and `ConcatOffset` for its gradient), `Slice`, `Transpose`, `InvertPermutation`,
//! `ExpandDims`, `Unpack`. Kernels are dtype-agnostic (see `kernels::layout`).
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::framework::shape_util::perm_of;
use crate::framework::tensor_util::int_values;
use crate::shape::{PartialShape, normalize_axis};

const INDEX: &[DType] = &[DType::Int32, DType::Int64];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("BroadcastTo", &["input", "shape"], infer_broadcast_to));
    r.add(OpDef::new("ConcatV2", &["values", "axis"], infer_concat).variadic());
    r.add(OpDef::new("ConcatOffset", &["concat_dim", "shape"], infer_concat_offset).variadic());
    r.add(OpDef::new("Slice", &["input", "begin", "size"], infer_slice));
    r.add(OpDef::new("Transpose", &["x", "perm"], infer_transpose));
    r.add(OpDef::new("InvertPermutation", &["x"], infer_invert));
    r.add(OpDef::new("ExpandDims", &["input", "dim"], infer_expand_dims));
    r.add(OpDef::new("Unpack", &["value"], infer_unpack));
}

fn infer_concat_offset(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Int32])?;
    let shapes: Vec<usize> = (1..ctx.inputs.len()).collect();
    ctx.same_type(&shapes)?;
    ctx.check_type(1, INDEX)?;
    ctx.attrs.remove("T");
    ctx.attrs.insert("shape_type".into(), AttrValue::Type(ctx.input(1).dtype));
    ctx.attrs.insert("N".into(), AttrValue::I(shapes.len() as i64));
    Ok(ctx.inputs[1..].iter().map(|s| OutputSpec::new(s.dtype, s.shape.clone())).collect())
}

fn infer_broadcast_to(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, INDEX)?;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(ctx.input(1).dtype));
    let shape = match ctx.constant_input(1) {
        Some(s) => {
            let target = crate::framework::tensor_util::shape_from_values(&int_values(s)?, "shape")
                .map_err(|e| Error::value(e.message))?;
            if let Some(d) = ctx.input(0).shape.dims() {
                let pad = target.len().checked_sub(d.len());
                let bad = pad
                    .is_none_or(|p| d.iter().enumerate().any(|(i, x)| x.is_some_and(|x| x != 1 && x != target[p + i])));
                if bad {
                    return Err(Error::value(format!(
                        "Unable to broadcast tensor of shape {} to tensor of shape {}",
                        ctx.input(0).shape,
                        PartialShape::known(&target)
                    )));
                }
            }
            PartialShape::known(&target)
        }
        None => match (ctx.shape_value(1), ctx.input(1).shape.dims()) {
            (Some(v), _) => v.clone(),
            (None, Some([Some(r)])) => PartialShape::unknown_of_rank(*r),
            _ => PartialShape::unknown(),
        },
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_concat(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let n = ctx.inputs.len() - 1;
    if n == 0 {
        return Err(Error::value("ConcatV2 needs at least one value"));
    }
    let values: Vec<usize> = (0..n).collect();
    let t = ctx.same_type(&values)?;
    ctx.check_type(n, INDEX)?;
    ctx.attrs.insert("N".into(), AttrValue::I(i64::try_from(n).unwrap_or(i64::MAX)));
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(ctx.input(n).dtype));
    let axis = ctx.constant_input(n).map(int_values).transpose()?.and_then(|v| v.first().copied());
    let rank = ctx.inputs[..n].iter().find_map(|s| s.shape.rank());
    let (Some(axis), Some(rank)) = (axis, rank) else {
        return Ok(vec![OutputSpec::new(t, rank.map_or_else(PartialShape::unknown, PartialShape::unknown_of_rank))]);
    };
    let ax = normalize_axis(axis, rank).ok_or_else(|| {
        Error::value(format!(
            "ConcatOp : Expected concatenating dimensions in the range [{}, {rank}), but got {axis}",
            -(rank as i64)
        ))
    })?;
    let mut dims: Vec<Option<usize>> = vec![None; rank];
    let mut total = Some(0usize);
    for (i, s) in ctx.inputs[..n].iter().enumerate() {
        let Some(d) = s.shape.dims() else {
            total = None;
            continue;
        };
        if d.len() != rank {
            return Err(Error::value(format!(
                "Shape must be rank {rank} but is rank {} for input {i} of ConcatV2",
                d.len()
            )));
        }
        for (k, v) in d.iter().enumerate() {
            if k == ax {
                total = total.zip(*v).map(|(a, b)| a + b);
            } else {
                match (dims[k], v) {
                    (Some(a), Some(b)) if a != *b => {
                        return Err(Error::value(format!(
                            "Dimension {k} in both shapes must be equal, but are {a} and {b}. Shapes are {} and {}.",
                            ctx.inputs[0].shape, s.shape
                        )));
                    }
                    (None, v) => dims[k] = *v,
                    _ => {}
                }
            }
        }
    }
    dims[ax] = total;
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(dims))])
}

fn infer_slice(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, INDEX)?;
    ctx.check_type(2, INDEX)?;
    ctx.attrs.insert("Index".into(), AttrValue::Type(ctx.input(1).dtype));
    let input = ctx.input(0).shape.clone();
    // As TF's shape function: `begin` as far as its value is known (a constant, or a
    // stack of partly known scalars); a constant `size` gives every dimension (a -1
    // is the input's dimension less `begin`'s), even when `begin` is not constant.
    let begin: Option<Vec<Option<i64>>> = match ctx.constant_input(1) {
        Some(b) => Some(int_values(b)?.into_iter().map(Some).collect()),
        None => ctx
            .shape_value(1)
            .and_then(|p| p.dims().map(|d| d.iter().map(|v| v.and_then(|v| i64::try_from(v).ok())).collect())),
    };
    let shape = match ctx.constant_input(2) {
        Some(s) => {
            let s = int_values(s)?;
            PartialShape::from_dims(s.iter().enumerate().map(|(i, &v)| {
                if v >= 0 {
                    usize::try_from(v).ok()
                } else {
                    let dim = input.dims().and_then(|d| d.get(i).copied().flatten())?;
                    let b = begin.as_ref().and_then(|b| b.get(i).copied().flatten())?;
                    usize::try_from(i64::try_from(dim).ok()?.checked_sub(b)?).ok()
                }
            }))
        }
        // A size known in part (-1 entries are unknown), else the rank: the input's,
        // or the length of `begin` or `size`.
        None => {
            let length = |i: usize| match ctx.input(i).shape.dims() {
                Some([Some(r)]) => Some(*r),
                _ => None,
            };
            match (ctx.shape_value(2), input.rank().or_else(|| length(1)).or_else(|| length(2))) {
                (Some(v), _) => v.clone(),
                (None, Some(r)) => PartialShape::unknown_of_rank(r),
                _ => PartialShape::unknown(),
            }
        }
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_transpose(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, INDEX)?;
    ctx.attrs.insert("Tperm".into(), AttrValue::Type(ctx.input(1).dtype));
    let shape = match (ctx.input(0).shape.dims(), ctx.constant_input(1)) {
        (Some(d), Some(p)) => {
            let p = perm_of(p, d.len()).map_err(|e| Error::value(e.message))?;
            if p.iter().any(|&i| i >= d.len()) {
                return Err(Error::value(format!("perm {p:?} is not a permutation of 0..{}", d.len())));
            }
            PartialShape::from_dims(p.iter().map(|&i| d[i]))
        }
        (Some(d), None) => PartialShape::unknown_of_rank(d.len()),
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_invert(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, INDEX)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_expand_dims(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, INDEX)?;
    ctx.attrs.insert("Tdim".into(), AttrValue::Type(ctx.input(1).dtype));
    let shape = match (ctx.input(0).shape.dims(), ctx.constant_input(1)) {
        (Some(d), Some(a)) => {
            let a = int_values(a)?.first().copied().unwrap_or(0);
            let ax = normalize_axis(a, d.len() + 1).ok_or_else(|| {
                Error::value(format!("Tried to expand dim index {a} for tensor with {} dimensions.", d.len()))
            })?;
            let mut dims = d.to_vec();
            dims.insert(ax, Some(1));
            PartialShape::from_dims(dims)
        }
        (Some(d), None) => PartialShape::unknown_of_rank(d.len() + 1),
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn axis_attr(attrs: &std::collections::BTreeMap<String, AttrValue>) -> i64 {
    match attrs.get("axis") {
        Some(AttrValue::I(a)) => *a,
        _ => 0,
    }
}

fn infer_unpack(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    let axis = axis_attr(ctx.attrs);
    ctx.attrs.insert("axis".into(), AttrValue::I(axis));
    let Some(d) = ctx.input(0).shape.dims().map(<[Option<usize>]>::to_vec) else {
        return Err(Error::value("Cannot infer num from shape <unknown>"));
    };
    let ax = normalize_axis(axis, d.len())
        .ok_or_else(|| Error::value(format!("axis = {axis} not in [{}, {})", -(d.len() as i64), d.len())))?;
    let num = match (ctx.attrs.get("num"), d[ax]) {
        (Some(AttrValue::I(n)), known) => {
            let n = usize::try_from(*n).map_err(|_| Error::value("num must be non-negative"))?;
            if let Some(k) = known
                && k != n
            {
                return Err(Error::value(format!("Dimension must be {n} but is {k} for Unpack")));
            }
            n
        }
        (_, Some(n)) => n,
        _ => return Err(Error::value(format!("Cannot infer num from shape {}", ctx.input(0).shape))),
    };
    ctx.attrs.insert("num".into(), AttrValue::I(i64::try_from(num).unwrap_or(i64::MAX)));
    let mut dims = d;
    dims.remove(ax);
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(dims)); num])
}
