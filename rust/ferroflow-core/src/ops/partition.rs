//! TF's `DynamicPartition`, `DynamicStitch` and `ParallelDynamicStitch`: rows of a
//! tensor split by a partition id, and rows of several tensors merged by index. They
//! carry `embedding_lookup` over partitioned params and TF's `reduced_shape`.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("DynamicPartition", &["data", "partitions"], infer_dynamic_partition));
    for name in ["DynamicStitch", "ParallelDynamicStitch"] {
        r.add(OpDef::new(name, &["indices", "data"], infer_dynamic_stitch).variadic());
    }
}

/// The dims of `data` after the leading `prefix` ones (unknown rank if either is).
fn suffix(data: &PartialShape, prefix: &PartialShape) -> Option<Vec<Option<usize>>> {
    let (d, p) = (data.dims()?, prefix.rank()?);
    d.get(p..).map(<[Option<usize>]>::to_vec)
}

/// `num_partitions` outputs of shape `[?] + data.shape[partitions.rank:]`.
fn infer_dynamic_partition(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(1, &[DType::Int32])?;
    let t = ctx.input(0).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    let n: i64 = ctx.required_attr("num_partitions")?;
    let n = usize::try_from(n)
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| Error::value(format!("Value for attr 'num_partitions' of {n} must be at least minimum 1")))?;
    let (data, parts) = (&ctx.input(0).shape, &ctx.input(1).shape);
    if let (Some(d), Some(p)) = (data.dims(), parts.dims()) {
        let compatible = p.len() <= d.len() && p.iter().zip(d).all(|(a, b)| a.is_none() || b.is_none() || a == b);
        if !compatible {
            return Err(Error::value(format!(
                "Dimensions must be equal, but are {} and {} for '{}' (op: 'DynamicPartition')",
                data, parts, ctx.name
            )));
        }
    }
    let shape = match suffix(data, parts) {
        Some(rest) => PartialShape::from_dims(std::iter::once(None).chain(rest)),
        None => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape); n])
}

/// `[max(indices) + 1 (when all are constants)] + data[0].shape[indices[0].rank:]`.
fn infer_dynamic_stitch(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let total = ctx.inputs.len();
    if !total.is_multiple_of(2) || total == 0 {
        return Err(Error::value(format!(
            "{} '{}' needs as many data tensors as index tensors, got {total} inputs",
            ctx.def.name, ctx.name
        )));
    }
    let n = total / 2;
    for i in 0..n {
        ctx.check_type(i, &[DType::Int32])?;
    }
    let data: Vec<usize> = (n..total).collect();
    let t = ctx.same_type(&data)?;
    ctx.attrs.insert("N".into(), AttrValue::I(i64::try_from(n).unwrap_or(i64::MAX)));
    let mut rest: Option<Vec<Option<usize>>> = None;
    for i in 0..n {
        if let Some(r) = suffix(&ctx.input(n + i).shape, &ctx.input(i).shape) {
            rest = Some(match rest {
                None => r,
                Some(prev) => {
                    let merged = PartialShape::from_dims(prev).merge(&PartialShape::from_dims(r)).map_err(|_| {
                        Error::value(format!(
                            "Dimensions of data[{i}] after its indices' dims do not match the other data for '{}' \
                             (op: '{}')",
                            ctx.name, ctx.def.name
                        ))
                    })?;
                    merged.dims().map(<[Option<usize>]>::to_vec).unwrap_or_default()
                }
            });
        }
    }
    let mut rows = Some(0usize);
    for i in 0..n {
        rows = match (rows, ctx.constant_input(i).map(crate::framework::tensor_util::int_values)) {
            (Some(r), Some(Ok(v))) => Some(v.iter().filter_map(|x| usize::try_from(*x + 1).ok()).fold(r, usize::max)),
            _ => None,
        };
    }
    let shape = match rest {
        Some(r) => PartialShape::from_dims(std::iter::once(rows).chain(r)),
        None => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}
