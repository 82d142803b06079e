//! Ops that select or repeat elements by index: `Tile`, `Pad`/`PadV2`, `Split`/`SplitV`,
//! `OneHot`, and `StridedSlice` (what `Tensor.__getitem__` builds) with its gradient.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::framework::shape_util::MirrorMode;
use crate::framework::tensor_util::{dims_from, int_values};
use crate::shape::{Dim, PartialShape, fmt_shape, normalize_axis};
use crate::tensor::Tensor;

const INDEX: &[DType] = &[DType::Int32, DType::Int64];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Tile", &["input", "multiples"], infer_tile));
    r.add(OpDef::new("Pad", &["input", "paddings"], infer_pad));
    r.add(OpDef::new("PadV2", &["input", "paddings", "constant_values"], infer_pad));
    r.add(OpDef::new("MirrorPad", &["input", "paddings"], infer_pad));
    r.add(OpDef::new("MirrorPadGrad", &["input", "paddings"], infer_pad));
    r.add(OpDef::new("Split", &["axis", "value"], infer_split));
    r.add(OpDef::new("SplitV", &["value", "size_splits", "axis"], infer_split));
    r.add(OpDef::new("OneHot", &["indices", "depth", "on_value", "off_value"], infer_one_hot));
    r.add(OpDef::new("StridedSlice", &["input", "begin", "end", "strides"], infer_strided_slice));
    r.add(OpDef::new("StridedSliceGrad", &["shape", "begin", "end", "strides", "dy"], infer_strided_slice_grad));
}

// ---- Tile ---------------------------------------------------------------------

fn infer_tile(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, INDEX)?;
    ctx.attrs.insert("Tmultiples".into(), AttrValue::Type(ctx.input(1).dtype));
    let input = ctx.input(0).shape.clone();
    let shape = match (ctx.constant_input(1), input.dims()) {
        (Some(m), Some(d)) => {
            let m = int_values(m)?;
            if m.len() != d.len() {
                return Err(Error::value(format!(
                    "Shape must be rank {} but is rank {} for '{}' (multiples)",
                    d.len(),
                    m.len(),
                    ctx.name
                )));
            }
            let m = dims_from(&m, "multiples").map_err(|e| Error::value(e.message))?;
            PartialShape::from_dims(d.iter().zip(m).map(|(x, m)| x.map(|x| x * m)))
        }
        (_, Some(d)) => PartialShape::unknown_of_rank(d.len()),
        _ => match ctx.input(1).shape.dims() {
            Some([Some(r)]) => PartialShape::unknown_of_rank(*r),
            _ => PartialShape::unknown(),
        },
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

// ---- Pad ----------------------------------------------------------------------

/// `paddings` as `(before, after)` pairs for a rank-`rank` input.
pub(crate) fn pad_pairs(p: &Tensor, rank: usize) -> Result<Vec<(usize, usize)>> {
    if p.shape() != [rank, 2] {
        return Err(Error::invalid_argument(format!(
            "The first dimension of paddings must be the rank of inputs[{rank},2], got {}",
            fmt_shape(p.shape())
        )));
    }
    let v = dims_from(&int_values(p)?, "paddings")?;
    Ok(v.chunks_exact(2).map(|c| (c[0], c[1])).collect())
}

/// The shape function of `Pad`, `PadV2`, `MirrorPad` and `MirrorPadGrad` (whose
/// output is its input with the paddings taken off).
fn infer_pad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    let unpad = ctx.def.name == "MirrorPadGrad";
    if ctx.def.name.starts_with("MirrorPad") {
        mirror_mode(&ctx.attrs.get("mode").cloned(), ctx.def.name)?;
    }
    ctx.check_type(1, INDEX)?;
    ctx.attrs.insert("Tpaddings".into(), AttrValue::Type(ctx.input(1).dtype));
    if ctx.inputs.len() == 3 {
        ctx.same_type(&[0, 2])?;
        ctx.check_rank(2, 0)?;
    }
    let input = ctx.input(0).shape.clone();
    let rank = input.rank().or_else(|| ctx.input(1).shape.dims().and_then(|d| d.first().copied().flatten()));
    if let (Some(r), Some(d)) = (rank, ctx.input(1).shape.dims())
        && (d.len() != 2 || d[0].is_some_and(|x| x != r) || d[1].is_some_and(|x| x != 2))
    {
        return Err(Error::value(format!(
            "Shape must be [{r}, 2] for paddings of '{}' but is {}",
            ctx.name,
            ctx.input(1).shape
        )));
    }
    let shape = match (ctx.constant_input(1), rank) {
        (Some(p), Some(r)) => {
            let pairs = pad_pairs(p, r).map_err(|e| Error::value(e.message))?;
            let dims = input.dims().map_or_else(|| vec![None; r], <[Dim]>::to_vec);
            let mut out = Vec::with_capacity(r);
            for (d, (b, a)) in dims.iter().zip(pairs) {
                out.push(match (d, unpad) {
                    (Some(d), true) => Some(d.checked_sub(b + a).ok_or_else(|| {
                        Error::value(format!("Paddings {b}, {a} exceed the dimension size {d} for '{}'", ctx.name))
                    })?),
                    (Some(d), false) => Some(b + d + a),
                    (None, _) => None,
                });
            }
            PartialShape::from_dims(out)
        }
        (_, Some(r)) => PartialShape::unknown_of_rank(r),
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

pub(crate) fn mirror_mode(attr: &Option<AttrValue>, op: &str) -> Result<MirrorMode> {
    match attr {
        Some(AttrValue::S(m)) if m.as_slice() == b"REFLECT" => Ok(MirrorMode::Reflect),
        Some(AttrValue::S(m)) if m.as_slice() == b"SYMMETRIC" => Ok(MirrorMode::Symmetric),
        other => Err(Error::value(format!("{op} needs attr mode REFLECT or SYMMETRIC, got {other:?}"))),
    }
}

// ---- Split / SplitV -----------------------------------------------------------

fn num_split(ctx: &InferCtx<'_>) -> Result<usize> {
    match ctx.attrs.get("num_split") {
        Some(AttrValue::I(n)) if *n >= 1 => Ok(usize::try_from(*n).unwrap_or(1)),
        _ => Err(Error::value(format!("{} '{}' needs num_split >= 1", ctx.def.name, ctx.name))),
    }
}

fn infer_split(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let v = split_inputs(ctx.def.name);
    let t = ctx.same_type(&[v.value])?;
    ctx.check_type(v.axis, &[DType::Int32, DType::Int64])?;
    let n = num_split(&ctx)?;
    let input = ctx.input(v.value).shape.clone();
    let axis = ctx.constant_input(v.axis).map(int_values).transpose()?.and_then(|a| a.first().copied());
    let sizes = match v.sizes {
        Some(i) => {
            ctx.check_type(i, INDEX)?;
            ctx.attrs.insert("Tlen".into(), AttrValue::Type(ctx.input(i).dtype));
            ctx.constant_input(i).map(int_values).transpose()?
        }
        None => None,
    };
    let Some(dims) = input.dims() else { return Ok(vec![OutputSpec::new(t, PartialShape::unknown()); n]) };
    let Some(axis) = axis else { return Ok(vec![OutputSpec::new(t, PartialShape::unknown_of_rank(dims.len())); n]) };
    let ax = normalize_axis(axis, dims.len()).ok_or_else(|| {
        Error::value(format!("Split axis {axis} is out of range [-{0}, {0}) for '{1}'", dims.len(), ctx.name))
    })?;
    let parts = split_sizes(dims[ax], n, sizes.as_deref())
        .map_err(|e| Error::value(format!("{} for '{}'", e.message, ctx.name)))?;
    Ok(parts
        .into_iter()
        .map(|p| {
            let mut d = dims.to_vec();
            d[ax] = p;
            OutputSpec::new(t, PartialShape::from_dims(d))
        })
        .collect())
}

/// Which inputs of `Split` (`axis, value`) and `SplitV` (`value, size_splits, axis`) are which.
pub(crate) struct SplitInputs {
    /// The tensor split.
    pub(crate) value: usize,
    /// The axis.
    pub(crate) axis: usize,
    /// `SplitV`'s `size_splits`.
    pub(crate) sizes: Option<usize>,
}

pub(crate) fn split_inputs(op: &str) -> SplitInputs {
    if op == "Split" {
        SplitInputs { value: 1, axis: 0, sizes: None }
    } else {
        SplitInputs { value: 0, axis: 2, sizes: Some(1) }
    }
}

/// The sizes of the `n` pieces of a dimension of size `dim` (known or not): equal
/// pieces for `Split`, `sizes` (one of which may be -1) for `SplitV`.
pub(crate) fn split_sizes(dim: Dim, n: usize, sizes: Option<&[i64]>) -> Result<Vec<Dim>> {
    match sizes {
        None => match dim {
            Some(d) if d % n != 0 => Err(Error::invalid_argument(format!(
                "Number of ways to split should evenly divide the split dimension, but got a dimension of size {d} and num_split {n}"
            ))),
            Some(d) => Ok(vec![Some(d / n); n]),
            None => Ok(vec![None; n]),
        },
        Some(s) => {
            if s.len() != n {
                return Err(Error::invalid_argument(format!(
                    "size_splits must have num_split = {n} elements, got {}",
                    s.len()
                )));
            }
            let unknown: Vec<usize> = (0..n).filter(|&i| s[i] == -1).collect();
            if unknown.len() > 1 {
                return Err(Error::invalid_argument(format!(
                    "Only one dimensions can have a value of -1. Second one found at dimension {}",
                    unknown[1]
                )));
            }
            let known: i64 = s.iter().filter(|&&v| v != -1).sum();
            if s.iter().any(|&v| v < -1) {
                return Err(Error::invalid_argument(format!("size_splits must be non-negative (or -1), got {s:?}")));
            }
            let mut out: Vec<Dim> = s.iter().map(|&v| usize::try_from(v).ok()).collect();
            match (dim, unknown.first()) {
                (Some(d), Some(&i)) => {
                    out[i] = Some(usize::try_from(i64::try_from(d).unwrap_or(0) - known).map_err(|_| {
                        Error::invalid_argument(format!("size_splits {s:?} sum to more than the split dimension {d}"))
                    })?);
                }
                (Some(d), None) if i64::try_from(d).ok() != Some(known) => {
                    return Err(Error::invalid_argument(format!(
                        "Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: {known}"
                    )));
                }
                _ => {}
            }
            Ok(out)
        }
    }
}

// ---- OneHot -------------------------------------------------------------------

fn infer_one_hot(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::UInt8, DType::Int32, DType::Int64])?;
    ctx.attrs.insert("TI".into(), AttrValue::Type(ctx.input(0).dtype));
    ctx.check_type(1, &[DType::Int32])?;
    let t = ctx.same_type(&[2, 3])?;
    let axis = match ctx.attrs.entry("axis".into()).or_insert(AttrValue::I(-1)) {
        AttrValue::I(a) => *a,
        _ => return Err(Error::value("OneHot axis must be an int")),
    };
    let depth = ctx.constant_input(1).map(int_values).transpose()?.and_then(|d| d.first().copied());
    if depth.is_some_and(|d| d < 0) {
        return Err(Error::value(format!("depth must be non-negative, got: {}", depth.unwrap_or(0))));
    }
    let Some(dims) = ctx.input(0).shape.dims() else { return Ok(vec![OutputSpec::new(t, PartialShape::unknown())]) };
    if axis < -1 || axis > dims.len() as i64 {
        return Err(Error::value(format!(
            "Expected axis to be -1 or between [0, {}).  But received: {axis}",
            dims.len() + 1
        )));
    }
    let pos = if axis == -1 { dims.len() } else { usize::try_from(axis).unwrap_or(0) };
    let mut out = dims.to_vec();
    out.insert(pos, depth.and_then(|d| usize::try_from(d).ok()));
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(out))])
}

// ---- StridedSlice -------------------------------------------------------------

/// The five bit masks of a strided slice (bit `i` refers to entry `i` of the spec).
#[derive(Clone, Copy, Default)]
pub(crate) struct Masks {
    begin: i64,
    end: i64,
    ellipsis: i64,
    new_axis: i64,
    shrink: i64,
}

impl Masks {
    pub(crate) fn from_attrs(attrs: &std::collections::BTreeMap<String, AttrValue>) -> Masks {
        let get = |n: &str| match attrs.get(n) {
            Some(AttrValue::I(v)) => *v,
            _ => 0,
        };
        Masks {
            begin: get("begin_mask"),
            end: get("end_mask"),
            ellipsis: get("ellipsis_mask"),
            new_axis: get("new_axis_mask"),
            shrink: get("shrink_axis_mask"),
        }
    }
}

/// One input dimension of a resolved slice: where it starts, its step and how many
/// elements it takes (unknown when the dimension is).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DimSlice {
    /// Where it starts (unknown when the dimension is).
    pub(crate) begin: Option<usize>,
    /// The step.
    pub(crate) step: isize,
    /// How many elements it takes.
    pub(crate) size: Dim,
}

/// A strided slice resolved against an input shape (TF's `ValidateStridedSliceOp`):
/// per input dimension what is taken, and the output shape (new axes added, shrunk
/// axes removed).
pub(crate) struct Resolved {
    /// What is taken of each input dimension.
    pub(crate) dims: Vec<DimSlice>,
    /// The output shape.
    pub(crate) output: Vec<Dim>,
}

fn bit(mask: i64, i: usize) -> bool {
    i < 63 && mask & (1 << i) != 0
}

pub(crate) fn resolve(input: &[Dim], begin: &[i64], end: &[i64], strides: &[i64], m: Masks) -> Result<Resolved> {
    let n = begin.len();
    if end.len() != n || strides.len() != n {
        return Err(Error::invalid_argument(format!(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [{n}], [{}], and [{}] instead.",
            end.len(),
            strides.len()
        )));
    }
    if m.ellipsis.count_ones() > 1 {
        return Err(Error::invalid_argument("Multiple ellipses in slice spec not allowed"));
    }
    // Without an ellipsis the spec ends with an implicit one.
    let (ellipsis, entries) = if m.ellipsis == 0 { (n, n + 1) } else { (m.ellipsis.trailing_zeros() as usize, n) };
    let new_after_ellipsis = (ellipsis + 1..n).filter(|&i| bit(m.new_axis, i)).count();
    let rank = input.len();
    enum Out {
        New,
        Shrink,
        Dim(usize),
    }
    let mut gather = Vec::new();
    let mut dims = Vec::with_capacity(rank);
    let mut full = 0usize;
    for i in 0..entries {
        if i == ellipsis {
            let upto = (rank + 1 + new_after_ellipsis).saturating_sub(entries - i).min(rank);
            while full < upto {
                dims.push(resolve_dim(input[full], 0, 0, 1, true, true, false, full)?);
                gather.push(Out::Dim(full));
                full += 1;
            }
        } else if bit(m.new_axis, i) {
            gather.push(Out::New);
        } else {
            if full == rank {
                return Err(Error::invalid_argument(format!(
                    "Index out of range using input dim {full}; input has only {rank} dims"
                )));
            }
            let shrink = bit(m.shrink, i);
            dims.push(resolve_dim(
                input[full],
                begin[i],
                end[i],
                strides[i],
                bit(m.begin, i),
                bit(m.end, i),
                shrink,
                full,
            )?);
            gather.push(if shrink { Out::Shrink } else { Out::Dim(full) });
            full += 1;
        }
    }
    let output = gather
        .iter()
        .filter_map(|g| match g {
            Out::New => Some(Some(1)),
            Out::Shrink => None,
            Out::Dim(d) => Some(dims[*d].size),
        })
        .collect();
    Ok(Resolved { dims, output })
}

#[allow(clippy::too_many_arguments, clippy::cast_possible_wrap, clippy::cast_sign_loss)]
fn resolve_dim(
    dim: Dim,
    begin: i64,
    end: i64,
    stride: i64,
    begin_masked: bool,
    end_masked: bool,
    shrink: bool,
    i: usize,
) -> Result<DimSlice> {
    if stride == 0 {
        return Err(Error::invalid_argument(format!("strides[{i}] must be non-zero")));
    }
    if shrink && stride < 0 {
        return Err(Error::invalid_argument("only stride 1 allowed on non-range indexing."));
    }
    let step = isize::try_from(stride).map_err(|_| Error::invalid_argument(format!("strides[{i}] is too large")))?;
    let Some(d) = dim else {
        return Ok(DimSlice { begin: None, step, size: if shrink { Some(1) } else { None } });
    };
    let d = d as i64;
    if shrink {
        let b = if begin < 0 { d + begin } else { begin };
        if b < 0 || b >= d {
            return Err(Error::invalid_argument(format!("slice index {begin} of dimension {i} out of bounds.")));
        }
        return Ok(DimSlice { begin: Some(b as usize), step: 1, size: Some(1) });
    }
    let range = if stride > 0 { [0, d] } else { [-1, d - 1] };
    let canonical = |x: i64, c: usize, masked: bool| {
        if masked {
            if stride > 0 { range[c] } else { range[(c + 1) & 1] }
        } else {
            let f = if x < 0 { d + x } else { x };
            f.clamp(range[0], range[1])
        }
    };
    let (b, e) = (canonical(begin, 0, begin_masked), canonical(end, 1, end_masked));
    let len = e - b;
    let size = if len == 0 || (len < 0) != (stride < 0) { 0 } else { len / stride + i64::from(len % stride != 0) };
    // A zero-size slice may "begin" at -1 (a backwards slice); no element is read.
    Ok(DimSlice { begin: Some(if size == 0 { 0 } else { b as usize }), step, size: Some(size as usize) })
}

fn index_input(ctx: &InferCtx<'_>, i: usize) -> Option<Vec<i64>> {
    ctx.constant_input(i).and_then(|t| int_values(t).ok()).map(smallvec::SmallVec::into_vec)
}

fn infer_strided_slice(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    for i in 1..4 {
        ctx.check_type(i, INDEX)?;
    }
    ctx.attrs.insert("Index".into(), AttrValue::Type(ctx.input(1).dtype));
    for name in ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"] {
        ctx.attrs.entry(name.into()).or_insert(AttrValue::I(0));
    }
    let masks = Masks::from_attrs(ctx.attrs);
    let shape = match (ctx.input(0).shape.dims(), index_input(&ctx, 1), index_input(&ctx, 2), index_input(&ctx, 3)) {
        (Some(d), Some(b), Some(e), Some(s)) => {
            let r =
                resolve(d, &b, &e, &s, masks).map_err(|e| Error::value(format!("{} for '{}'", e.message, ctx.name)))?;
            PartialShape::from_dims(r.output)
        }
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn infer_strided_slice_grad(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[4])?;
    for i in 0..4 {
        ctx.check_type(i, INDEX)?;
    }
    ctx.attrs.insert("Index".into(), AttrValue::Type(ctx.input(0).dtype));
    let shape = super::array::shape_input(&ctx, 0, "shape")?;
    Ok(vec![OutputSpec::new(t, shape)])
}
