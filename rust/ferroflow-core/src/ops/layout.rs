//! Layout ops: `BroadcastTo`, `ConcatV2` (and `ConcatOffset` for its gradient), `Slice`, `Transpose`, `InvertPermutation`,
//! `ExpandDims`, `Unpack`. Kernels are dtype-agnostic (see `kernels::layout`).
use super::{InferCtx, OpDef, Registry, int_values};
use crate::autodiff::array_grad as g;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::layout::{broadcast_to, concat, slice, transpose, unstack};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};
use crate::shape::{PartialShape, fmt_shape, normalize_axis};
use crate::tensor::Tensor;

const INDEX: &[DType] = &[DType::Int32, DType::Int64];

pub(crate) fn register(r: &mut Registry) {
    r.add(
        OpDef::new("BroadcastTo", &["input", "shape"], infer_broadcast_to, |_| stateless(broadcast_compute))
            .grad(g::broadcast_to),
    );
    r.add(
        OpDef::new("ConcatV2", &["values", "axis"], infer_concat, |_| stateless(concat_compute))
            .variadic()
            .grad(g::concat),
    );
    r.add(
        OpDef::new("ConcatOffset", &["concat_dim", "shape"], infer_concat_offset, |_| stateless(concat_offset_compute))
            .variadic()
            .no_grad(),
    );
    r.add(OpDef::new("Slice", &["input", "begin", "size"], infer_slice, |_| stateless(slice_compute)).grad(g::slice));
    r.add(
        OpDef::new("Transpose", &["x", "perm"], infer_transpose, |_| stateless(transpose_compute)).grad(g::transpose),
    );
    r.add(OpDef::new("InvertPermutation", &["x"], infer_invert, |_| stateless(invert_compute)).no_grad());
    r.add(
        OpDef::new("ExpandDims", &["input", "dim"], infer_expand_dims, |_| stateless(expand_dims_compute))
            .grad(g::reshape_like_input),
    );
    r.add(OpDef::new("Unpack", &["value"], infer_unpack, unpack_kernel).grad(g::unpack));
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

/// `ConcatOffset`: where each input of a concat starts in the output (zeros except
/// along `concat_dim`), after checking that the other dimensions agree.
fn concat_offset_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let n = ctx.num_inputs() - 1;
    let first = int_values(ctx.input(1)?)?;
    let rank = first.len();
    let axis = super::scalar_int(ctx.input(0)?, "concat_dim")?;
    let Some(ax) = normalize_axis(axis, rank) else {
        ff_bail!(InvalidArgument, "Concat dim is out of range: {axis} vs. {rank}");
    };
    let dtype = ctx.input(1)?.dtype();
    let mut offset = 0i64;
    for i in 0..n {
        let s = int_values(ctx.input(i + 1)?)?;
        if s.len() != rank {
            ff_bail!(InvalidArgument, "input {i} should contain {rank} elements, but got {}", s.len());
        }
        if let Some(d) = (0..rank).find(|&d| d != ax && s[d] != first[d]) {
            ff_bail!(
                InvalidArgument,
                "All dimensions except {ax} must match. Input {i} has shape [{}] and doesn't match input 0 with shape [{}] (dimension {d}).",
                join(&s),
                join(&first)
            );
        }
        let mut out = vec![0i64; rank];
        out[ax] = offset;
        offset += s[ax];
        ctx.set_output(i, crate::kernels::array::cast(&Tensor::from_slice(&[rank], &out)?, dtype)?);
    }
    Ok(())
}

fn join(v: &[i64]) -> String {
    v.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
}

/// Non-negative sizes from an int tensor.
fn sizes(t: &Tensor, what: &str) -> Result<Vec<usize>> {
    super::dims_from(&int_values(t)?, what)
}

fn infer_broadcast_to(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, INDEX)?;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(ctx.input(1).dtype));
    let shape = match ctx.constant_input(1) {
        Some(s) => {
            let target = super::shape_from_values(&int_values(s)?, "shape").map_err(|e| Error::value(e.message))?;
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

fn broadcast_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let shape = super::shape_from_values(&int_values(ctx.input(1)?)?, "shape")?;
    let out = broadcast_to(ctx.input(0)?, &shape)?;
    ctx.set_output(0, out);
    Ok(())
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

fn concat_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let n = ctx.num_inputs() - 1;
    let axis = int_values(ctx.input(n)?)?.first().copied().unwrap_or(0);
    let values: Vec<&Tensor> = (0..n).map(|i| ctx.input(i)).collect::<Result<_>>()?;
    let rank = values[0].shape().len();
    let Some(ax) = normalize_axis(axis, rank) else {
        ff_bail!(
            InvalidArgument,
            "ConcatOp : Expected concatenating dimensions in the range [{}, {rank}), but got {axis}",
            -(rank as i64)
        );
    };
    let out = concat(&values, ax)?;
    ctx.set_output(0, out);
    Ok(())
}

fn infer_slice(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, INDEX)?;
    ctx.check_type(2, INDEX)?;
    ctx.attrs.insert("Index".into(), AttrValue::Type(ctx.input(1).dtype));
    let input = ctx.input(0).shape.clone();
    let shape = match (ctx.constant_input(1), ctx.constant_input(2)) {
        (Some(b), Some(s)) => {
            let (b, s) = (int_values(b)?, int_values(s)?);
            PartialShape::from_dims(s.iter().enumerate().map(|(i, &v)| {
                if v >= 0 {
                    usize::try_from(v).ok()
                } else {
                    let dim = input.dims().and_then(|d| d.get(i).copied().flatten())?;
                    usize::try_from(i64::try_from(dim).ok()? - b.get(i).copied()?).ok()
                }
            }))
        }
        _ => match ctx.input(2).shape.dims() {
            Some([Some(r)]) => PartialShape::unknown_of_rank(*r),
            _ => PartialShape::unknown(),
        },
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn slice_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let begin = sizes(ctx.input(1)?, "begin")?;
    let size: Vec<usize> = int_values(ctx.input(2)?)?
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            if s == -1 {
                x.shape().get(i).copied().unwrap_or(0).saturating_sub(begin.get(i).copied().unwrap_or(0))
            } else {
                usize::try_from(s).unwrap_or(usize::MAX)
            }
        })
        .collect();
    let out = slice(x, &begin, &size)?;
    ctx.set_output(0, out);
    Ok(())
}

fn perm_of(t: &Tensor, rank: usize) -> Result<Vec<usize>> {
    let p = sizes(t, "perm")?;
    if p.len() != rank {
        ff_bail!(
            InvalidArgument,
            "transpose expects a vector of size {rank}. But input(1) is a vector of size {}",
            p.len()
        );
    }
    Ok(p)
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

fn transpose_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let perm = perm_of(ctx.input(1)?, x.shape().len())?;
    let out = transpose(x, &perm)?;
    ctx.set_output(0, out);
    Ok(())
}

fn infer_invert(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(0, INDEX)?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn invert_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let p = sizes(x, "x")?;
    let mut inv = vec![usize::MAX; p.len()];
    for (i, &v) in p.iter().enumerate() {
        if v >= p.len() || inv[v] != usize::MAX {
            ff_bail!(InvalidArgument, "{v} is not a valid permutation entry of {p:?}");
        }
        inv[v] = i;
    }
    let v: Vec<i64> = inv.iter().map(|&i| i64::try_from(i).unwrap_or(i64::MAX)).collect();
    let out = crate::kernels::array::cast(&Tensor::from_slice(&[v.len()], &v)?, x.dtype())?;
    ctx.set_output(0, out);
    Ok(())
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

fn expand_dims_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let a = int_values(ctx.input(1)?)?.first().copied().unwrap_or(0);
    let x = ctx.take_input(0)?;
    let Some(ax) = normalize_axis(a, x.shape().len() + 1) else {
        ff_bail!(InvalidArgument, "Tried to expand dim index {a} for tensor with {} dimensions.", x.shape().len());
    };
    let mut shape = x.shape().to_vec();
    shape.insert(ax, 1);
    ctx.set_output(0, x.reshaped(&shape)?);
    Ok(())
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

struct UnpackKernel(i64);

fn unpack_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(UnpackKernel(axis_attr(&b.node.attrs))))
}

impl OpKernel for UnpackKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let Some(ax) = normalize_axis(self.0, x.shape().len()) else {
            ff_bail!(InvalidArgument, "axis = {} not in range for shape {}", self.0, fmt_shape(x.shape()));
        };
        let parts = unstack(x, ax)?;
        if parts.len() != ctx.num_outputs() {
            ff_bail!(
                InvalidArgument,
                "Input shape axis {ax} must equal {}, got shape {}",
                ctx.num_outputs(),
                fmt_shape(x.shape())
            );
        }
        for (i, p) in parts.into_iter().enumerate() {
            ctx.set_output(i, p);
        }
        Ok(())
    }
}
