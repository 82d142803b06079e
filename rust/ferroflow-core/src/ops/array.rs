//! Array ops: constants, placeholders, identity, casts, reshapes, fills, shapes,
//! stacking, gathering and masks.
use super::{InferCtx, OpDef, Registry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::framework::shape_util::{range_len, resolve_shape};
use crate::framework::tensor_util::{int_values, shape_from_values};
use crate::shape::{PartialShape, normalize_axis};
use crate::tensor::Tensor;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Const", &[], infer_const));
    r.add(OpDef::new("Placeholder", &[], infer_placeholder).feed_satisfies_control());
    r.add(OpDef::new("PlaceholderWithDefault", &["input"], infer_placeholder_with_default));
    r.add(OpDef::new("Identity", &["input"], infer_identity).forwards_input());
    r.add(OpDef::new("IdentityN", &["input"], infer_identity_n).variadic());
    r.add(OpDef::new("StopGradient", &["input"], infer_identity));
    // TF-1.x's identity of a variable's reference: the output is the same reference.
    r.add(OpDef::new("RefIdentity", &["input"], infer_ref_identity).refs(&[0]));
    // Its gradient raises (TF's, registered in Python: python/ferroflow/ops/array_ops.py).
    r.add(OpDef::new("PreventGradient", &["input"], infer_identity));
    r.add(OpDef::new("NoOp", &[], |_| Ok(vec![])));
    r.add(OpDef::new("Cast", &["x"], infer_cast));
    r.add(OpDef::new("Reshape", &["tensor", "shape"], infer_reshape));
    r.add(OpDef::new("Fill", &["dims", "value"], infer_fill));
    r.add(OpDef::new("ZerosLike", &["x"], infer_identity));
    r.add(OpDef::new("OnesLike", &["x"], infer_identity));
    r.add(OpDef::new("Unique", &["x"], infer_unique));
    r.add(OpDef::new("ListDiff", &["x", "y"], infer_list_diff));
    r.add(OpDef::new("Shape", &["input"], infer_shape_op));
    r.add(OpDef::new("ShapeN", &["input"], infer_shape_n).variadic());
    r.add(OpDef::new("Size", &["input"], infer_scalar_int));
    r.add(OpDef::new("Rank", &["input"], infer_scalar_int));
    r.add(OpDef::new("Range", &["start", "limit", "delta"], infer_range));
    r.add(OpDef::new("LinSpace", &["start", "stop", "num"], infer_lin_space));
    r.add(OpDef::new("Pack", &["values"], infer_pack).variadic());
    r.add(OpDef::new("LogicalNot", &["x"], infer_logical_not));
    r.add(OpDef::new("Where", &["input"], infer_where));
    r.add(OpDef::new("GatherV2", &["params", "indices", "axis"], infer_gather));
    r.add(OpDef::new("Squeeze", &["input"], infer_squeeze));
    // The copy the planner inserts where a value crosses from one device to another
    // (never a graph node). Between host-memory devices it passes the value on; a
    // device with its own memory registers a `_DeviceCopy` kernel that moves it.
    r.add(OpDef::new(DEVICE_COPY, &["input"], |c| Ok(vec![c.input(0).clone()])));
    // Panics in its kernel: lets tests prove a Rust panic surfaces as InternalError,
    // and, having no gradient, that differentiating through such an op is a LookupError.
    r.add(OpDef::new("_PanicForTesting", &["input"], |c| Ok(vec![c.input(0).clone()])).stateful());
}

/// The op type of the copies the planner inserts at device boundaries.
pub const DEVICE_COPY: &str = "_DeviceCopy";

fn infer_const(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.attr_tensor("value")?;
    let spec = OutputSpec::new(t.dtype(), PartialShape::known(t.shape()));
    ctx.attrs.insert("dtype".into(), AttrValue::Type(spec.dtype));
    Ok(vec![spec])
}

fn infer_placeholder(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    Ok(vec![OutputSpec::new(ctx.attr_type("dtype")?, ctx.attr_shape("shape")?)])
}

fn infer_placeholder_with_default(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.input(0).dtype;
    ctx.attrs.insert("dtype".into(), AttrValue::Type(t));
    let declared = ctx.attr_shape("shape")?;
    if declared.merge(&ctx.input(0).shape).is_err() {
        return Err(Error::value(format!(
            "Incompatible shapes: default value has shape {} but the placeholder has shape {declared}",
            ctx.input(0).shape
        )));
    }
    ctx.attrs.insert("shape".into(), AttrValue::Shape(declared.clone()));
    Ok(vec![OutputSpec::new(t, declared)])
}

fn infer_identity(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_ref_identity(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    let input = ctx.input(0);
    Ok(vec![OutputSpec { dtype: t, shape: input.shape.clone(), is_ref: input.is_ref }])
}

fn infer_identity_n(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.attrs.insert("T".into(), AttrValue::ListType(ctx.inputs.iter().map(|s| s.dtype).collect()));
    Ok(ctx.inputs.iter().map(|s| OutputSpec::new(s.dtype, s.shape.clone())).collect())
}

fn infer_cast(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let to = ctx.attr_type("DstT")?;
    ctx.attrs.insert("SrcT".into(), AttrValue::Type(ctx.input(0).dtype));
    ctx.attrs.entry("Truncate".into()).or_insert(AttrValue::B(false));
    Ok(vec![OutputSpec::new(to, ctx.input(0).shape.clone())])
}

fn infer_reshape(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("Tshape".into(), AttrValue::Type(ctx.input(1).dtype));
    let shape = match ctx.constant_input(1) {
        Some(s) => {
            let requested = int_values(s)?;
            let dims = resolve_shape(&requested, ctx.input(0).shape.num_elements()).map_err(|e| {
                match ctx.input(0).shape.num_elements() {
                    // TF's message when no dimension is inferred.
                    Some(n) if requested.iter().all(|&d| d >= 0) => Error::value(format!(
                        "Cannot reshape a tensor with {n} elements to shape [{}] ({} elements) for '{}' (op: \
                         'Reshape') with input shapes: {}, [{}].",
                        requested.iter().map(i64::to_string).collect::<Vec<_>>().join(","),
                        requested.iter().product::<i64>(),
                        ctx.name,
                        ctx.input(0).shape,
                        requested.len()
                    )),
                    _ => {
                        Error::value(format!("Cannot reshape a tensor of shape {}: {}", ctx.input(0).shape, e.message))
                    }
                }
            })?;
            PartialShape::from_dims(dims)
        }
        None => match (ctx.shape_value(1), ctx.input(1).shape.dims()) {
            (Some(v), _) => infer_one_reshaped_dim(v, &ctx.input(0).shape)?,
            (None, Some([Some(r)])) => PartialShape::unknown_of_rank(*r),
            _ => PartialShape::unknown(),
        },
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

/// TF's `Reshape` shape function for a shape known in part: a fully known input fixes
/// the one unknown output dimension (or is an error when it does not divide), and a
/// fully known output must hold the input's elements.
fn infer_one_reshaped_dim(out: &PartialShape, input: &PartialShape) -> Result<PartialShape> {
    let (Some(dims), Some(n)) = (out.dims(), input.num_elements()) else { return Ok(out.clone()) };
    let unknown: Vec<usize> = (0..dims.len()).filter(|&i| dims[i].is_none()).collect();
    let known = dims.iter().flatten().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    let mismatch = || Error::value(format!("Cannot reshape a tensor with {n} elements to shape {out}"));
    match (unknown.as_slice(), known) {
        ([], Some(k)) if k != n => Err(mismatch()),
        ([i], Some(k)) if k > 0 => {
            if n % k != 0 {
                return Err(mismatch());
            }
            let mut filled = dims.to_vec();
            filled[*i] = Some(n / k);
            Ok(PartialShape::from_dims(filled))
        }
        _ => Ok(out.clone()),
    }
}

fn infer_fill(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("index_type".into(), AttrValue::Type(ctx.input(0).dtype));
    let t = ctx.input(1).dtype;
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    ctx.check_rank(1, 0)?;
    let shape = shape_input(&ctx, 0, "dims")?;
    Ok(vec![OutputSpec::new(t, shape)])
}

/// What is known at construction time of the shape an int-vector input describes
/// (the `dims` of `Fill`, the `shape` of the random ops).
pub(crate) fn shape_input(ctx: &InferCtx<'_>, i: usize, what: &str) -> Result<PartialShape> {
    ctx.check_rank(i, 1)?;
    Ok(match ctx.constant_input(i) {
        Some(d) => PartialShape::known(&shape_from_values(&int_values(d)?, what).map_err(|e| Error::value(e.message))?),
        None => match (ctx.shape_value(i), ctx.input(i).shape.dims()) {
            (Some(v), _) => v.clone(),
            (None, Some([Some(r)])) => PartialShape::unknown_of_rank(*r),
            _ => PartialShape::unknown(),
        },
    })
}

fn out_type(ctx: &mut InferCtx<'_>) -> Result<DType> {
    let t = match ctx.attrs.get("out_type") {
        Some(AttrValue::Type(t)) => *t,
        _ => DType::Int32,
    };
    ctx.attrs.insert("out_type".into(), AttrValue::Type(t));
    ctx.attrs.insert("T".into(), AttrValue::Type(ctx.input(0).dtype));
    Ok(t)
}

fn infer_shape_op(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = out_type(&mut ctx)?;
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([ctx.input(0).shape.rank()]))])
}

/// `ShapeN`: the shapes of several tensors at once (what gradients of `concat` use).
fn infer_shape_n(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let all: Vec<usize> = (0..ctx.inputs.len()).collect();
    ctx.same_type(&all)?;
    let t = out_type(&mut ctx)?;
    let n = ctx.inputs.len();
    ctx.attrs.insert("N".into(), AttrValue::I(n as i64));
    Ok(ctx.inputs.iter().map(|s| OutputSpec::new(t, PartialShape::from_dims([s.shape.rank()]))).collect())
}

fn infer_scalar_int(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = out_type(&mut ctx)?;
    let t = if ctx.def.name == "Rank" { DType::Int32 } else { t };
    Ok(vec![OutputSpec::new(t, PartialShape::scalar())])
}

fn infer_list_diff(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_rank(0, 1)?;
    ctx.check_rank(1, 1)?;
    let idx = match ctx.attrs.get("out_idx") {
        Some(AttrValue::Type(d)) => *d,
        _ => DType::Int32,
    };
    ctx.check_type(0, crate::ops::math::NUMERIC)?;
    if idx != DType::Int32 && idx != DType::Int64 {
        return Err(Error::type_error(format!("ListDiff: out_idx must be int32 or int64, got {idx}")));
    }
    ctx.attrs.insert("out_idx".into(), AttrValue::Type(idx));
    let vector = PartialShape::from_dims([None]);
    Ok(vec![OutputSpec::new(t, vector.clone()), OutputSpec::new(idx, vector)])
}

fn infer_unique(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, crate::ops::math::NUMERIC)?;
    let t = ctx.input(0).dtype;
    ctx.check_rank(0, 1)?;
    let idx = match ctx.attrs.get("out_idx") {
        Some(AttrValue::Type(d)) => *d,
        _ => DType::Int32,
    };
    if idx != DType::Int32 && idx != DType::Int64 {
        return Err(Error::type_error(format!("Unique: out_idx must be int32 or int64, got {idx}")));
    }
    ctx.attrs.insert("out_idx".into(), AttrValue::Type(idx));
    ctx.attrs.insert("T".into(), AttrValue::Type(t));
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([None])), OutputSpec::new(idx, ctx.input(0).shape.clone())])
}

fn infer_range(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1, 2])?;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(t));
    ctx.attrs.remove("T");
    ctx.check_type(0, &[DType::Int32, DType::Int64, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64])?;
    if t == DType::Float16 {
        // TF's OpDef takes half, but its shape function does not.
        return Err(Error::value(format!("Unsupported dtype{} for Range", t as i32)));
    }
    let len = match (ctx.constant_input(0), ctx.constant_input(1), ctx.constant_input(2)) {
        (Some(a), Some(b), Some(c)) => {
            // Integers count in f64 (exact for the spans a tensor can hold); floats in
            // their own type, as the kernel.
            let d = if t.is_floating() { t } else { DType::Float64 };
            let n = crate::dispatch_float!(d, T => {
                // As `Cast` would: integers through i64, floats as they are.
                let f = |x: &Tensor| -> Result<T> {
                    if t.is_floating() { x.scalar_value::<T>() } else { Ok(<T as crate::dtype::Castable>::from_i64(crate::framework::tensor_util::scalar_int(x, "Range bound")?)) }
                };
                range_len(f(a)?, f(b)?, f(c)?)
            }, _ => Err(Error::value(format!("Range of {d}"))));
            Some(n.map_err(|e| Error::value(e.message))?)
        }
        _ => None,
    };
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([len]))])
}

/// `LinSpace`: a vector of `num` elements of the type of `start` and `stop`.
fn infer_lin_space(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    ctx.check_type(0, &[DType::BFloat16, DType::Float16, DType::Float32, DType::Float64])?;
    ctx.check_type(2, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(ctx.input(2).dtype));
    for i in 0..3 {
        ctx.check_rank(i, 0)?;
    }
    let len = match ctx.constant_input(2).map(int_values) {
        Some(Ok(v)) => match v.first() {
            Some(&n) if n <= 0 => return Err(Error::value(format!("Requires num > 0: {n}"))),
            n => n.and_then(|&n| usize::try_from(n).ok()),
        },
        _ => None,
    };
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([len]))])
}

fn axis_attr(attrs: &std::collections::BTreeMap<String, AttrValue>) -> i64 {
    match attrs.get("axis") {
        Some(AttrValue::I(a)) => *a,
        _ => 0,
    }
}

fn infer_pack(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let all: Vec<usize> = (0..ctx.inputs.len()).collect();
    let t = ctx.same_type(&all)?;
    let n = ctx.inputs.len();
    ctx.attrs.insert("N".into(), AttrValue::I(i64::try_from(n).unwrap_or(i64::MAX)));
    let axis = axis_attr(ctx.attrs);
    ctx.attrs.insert("axis".into(), AttrValue::I(axis));
    let mut shape = PartialShape::unknown();
    for s in ctx.inputs {
        shape = shape.merge(&s.shape).map_err(|_| {
            Error::value(format!("Shapes of all inputs must match: {} != {}", ctx.inputs[0].shape, s.shape))
        })?;
    }
    let out = match shape.dims() {
        Some(d) => {
            let ax = normalize_axis(axis, d.len() + 1).ok_or_else(|| {
                Error::value(format!("axis = {axis} not in [{}, {})", -(d.len() as i64) - 1, d.len() + 1))
            })?;
            let mut dims = d.to_vec();
            dims.insert(ax, Some(n));
            PartialShape::from_dims(dims)
        }
        None => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, out)])
}

fn infer_logical_not(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    Ok(vec![OutputSpec::new(DType::Bool, ctx.input(0).shape.clone())])
}

fn infer_where(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(DType::Bool));
    Ok(vec![OutputSpec::new(DType::Int64, PartialShape::from_dims([None, ctx.input(0).shape.rank()]))])
}

fn infer_gather(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.check_type(2, &[DType::Int32, DType::Int64])?;
    for (name, i) in [("Tparams", 0), ("Tindices", 1), ("Taxis", 2)] {
        ctx.attrs.insert(name.into(), AttrValue::Type(ctx.input(i).dtype));
    }
    ctx.attrs.entry("batch_dims".into()).or_insert(AttrValue::I(0));
    let t = ctx.input(0).dtype;
    let (params, indices) = (&ctx.input(0).shape, &ctx.input(1).shape);
    let axis = ctx.constant_input(2).map(int_values).transpose()?.and_then(|v| v.first().copied());
    let shape = match (params.dims(), indices.dims(), axis) {
        (Some(p), Some(ix), Some(a)) => {
            let ax = normalize_axis(a, p.len()).ok_or_else(|| {
                Error::value(format!("Shape must be at least rank {} but is rank {}", a + 1, p.len()))
            })?;
            let mut dims = p[..ax].to_vec();
            dims.extend_from_slice(ix);
            dims.extend_from_slice(&p[ax + 1..]);
            PartialShape::from_dims(dims)
        }
        _ => PartialShape::unknown(),
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn squeeze_dims(attrs: &std::collections::BTreeMap<String, AttrValue>) -> Vec<i64> {
    match attrs.get("squeeze_dims") {
        Some(AttrValue::ListI(v)) => v.clone(),
        _ => Vec::new(),
    }
}

fn infer_squeeze(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    let axes = squeeze_dims(ctx.attrs);
    ctx.attrs.insert("squeeze_dims".into(), AttrValue::ListI(axes.clone()));
    let Some(d) = ctx.input(0).shape.dims() else {
        return Ok(vec![OutputSpec::new(t, PartialShape::unknown())]);
    };
    let mut keep = Vec::new();
    let wanted: Vec<usize> = axes
        .iter()
        .map(|&a| {
            normalize_axis(a, d.len()).ok_or_else(|| {
                Error::value(format!("Tried to squeeze dim index {a} for tensor with {} dimensions.", d.len()))
            })
        })
        .collect::<Result<_>>()?;
    for (i, dim) in d.iter().enumerate() {
        let listed = wanted.contains(&i);
        match dim {
            Some(1) if wanted.is_empty() || listed => {}
            Some(n) if listed => {
                return Err(Error::value(format!("Can not squeeze dim[{i}], expected a dimension of 1, got {n}")));
            }
            None if wanted.is_empty() => {
                return Ok(vec![OutputSpec::new(t, PartialShape::unknown())]);
            }
            None if listed => {}
            other => keep.push(*other),
        }
    }
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims(keep))])
}
