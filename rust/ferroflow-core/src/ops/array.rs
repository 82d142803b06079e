//! Array ops: constants, placeholders, identity, casts, reshapes, fills, shapes,
//! stacking, gathering and masks.
use super::{InferCtx, OpDef, Registry, int_values, shape_from_values};
use crate::autodiff::array_grad as g;
use std::cmp::Ordering;

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::array::{cast, fill, gather, pack, where_true};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};
use crate::shape::{PartialShape, fmt_shape, normalize_axis};
use crate::tensor::Tensor;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Const", &[], infer_const, const_kernel).no_grad());
    r.add(OpDef::new("Placeholder", &[], infer_placeholder, placeholder_kernel).no_grad());
    r.add(
        OpDef::new("PlaceholderWithDefault", &["input"], infer_placeholder_with_default, |_| stateless(pass_through))
            .grad(g::identity),
    );
    r.add(
        OpDef::new("Identity", &["input"], infer_identity, |_| stateless(pass_through))
            .forwards_input()
            .grad(g::identity),
    );
    r.add(OpDef::new("StopGradient", &["input"], infer_identity, |_| stateless(pass_through)).no_grad());
    r.add(OpDef::new("NoOp", &[], |_| Ok(vec![]), |_| stateless(|_| Ok(()))).no_grad());
    r.add(OpDef::new("Cast", &["x"], infer_cast, cast_kernel).grad(g::cast));
    r.add(
        OpDef::new("Reshape", &["tensor", "shape"], infer_reshape, |_| stateless(reshape_compute))
            .grad(g::reshape_like_input),
    );
    r.add(OpDef::new("Fill", &["dims", "value"], infer_fill, |_| stateless(fill_compute)).grad(g::fill));
    r.add(OpDef::new("ZerosLike", &["x"], infer_identity, |_| stateless(zeros_like_compute)).no_grad());
    r.add(OpDef::new("OnesLike", &["x"], infer_identity, |_| stateless(ones_like_compute)).no_grad());
    r.add(
        OpDef::new("Unique", &["x"], infer_unique, |b| Ok(Box::new(UniqueKernel { out_idx: b.node.outputs[1].dtype })))
            .no_grad(),
    );
    r.add(
        OpDef::new("ListDiff", &["x", "y"], infer_list_diff, |b| {
            Ok(Box::new(ListDiffKernel { out_idx: b.node.outputs[1].dtype }))
        })
        .no_grad(),
    );
    r.add(OpDef::new("Shape", &["input"], infer_shape_op, |_| stateless(shape_compute)).no_grad());
    r.add(
        OpDef::new("ShapeN", &["input"], infer_shape_n, |b| Ok(Box::new(ShapeNKernel(b.node.outputs[0].dtype))))
            .variadic()
            .no_grad(),
    );
    r.add(OpDef::new("Size", &["input"], infer_scalar_int, |_| stateless(size_compute)).no_grad());
    r.add(OpDef::new("Rank", &["input"], infer_scalar_int, |_| stateless(rank_compute)).no_grad());
    r.add(OpDef::new("Range", &["start", "limit", "delta"], infer_range, |_| stateless(range_compute)).no_grad());
    r.add(OpDef::new("Pack", &["values"], infer_pack, pack_kernel).variadic().grad(g::pack));
    r.add(OpDef::new("LogicalNot", &["x"], infer_logical_not, |_| stateless(logical_not_compute)).no_grad());
    r.add(OpDef::new("Where", &["input"], infer_where, |_| stateless(where_compute)).no_grad());
    r.add(
        OpDef::new("GatherV2", &["params", "indices", "axis"], infer_gather, |_| stateless(gather_compute))
            .grad(g::gather),
    );
    r.add(OpDef::new("Squeeze", &["input"], infer_squeeze, squeeze_kernel).grad(g::reshape_like_input));
    // The copy the planner inserts where a value crosses from one device to another
    // (never a graph node). Between host-memory devices it passes the value on; a
    // device with its own memory registers a `_DeviceCopy` kernel that moves it.
    r.add(
        OpDef::new(DEVICE_COPY, &["input"], |c| Ok(vec![c.input(0).clone()]), |_| stateless(pass_value_on)).no_grad(),
    );
    // Panics in its kernel: lets tests prove a Rust panic surfaces as InternalError,
    // and, having no gradient, that differentiating through such an op is a LookupError.
    r.add(
        OpDef::new("_PanicForTesting", &["input"], |c| Ok(vec![c.input(0).clone()]), |_| stateless(panic_compute))
            .stateful(),
    );
}

/// The op type of the copies the planner inserts at device boundaries.
pub const DEVICE_COPY: &str = "_DeviceCopy";

fn pass_value_on(ctx: &mut OpContext<'_>) -> Result<()> {
    let v = ctx.take_value(0)?;
    ctx.set_value_output(0, v);
    Ok(())
}

fn panic_compute(_: &mut OpContext<'_>) -> Result<()> {
    panic!("_PanicForTesting kernel ran")
}

fn infer_const(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.attr_tensor("value")?;
    let spec = OutputSpec::new(t.dtype(), PartialShape::known(t.shape()));
    ctx.attrs.insert("dtype".into(), AttrValue::Type(spec.dtype));
    Ok(vec![spec])
}

struct ConstKernel(Tensor);

impl OpKernel for ConstKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_output(0, self.0.clone());
        Ok(())
    }
}

fn const_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    match b.node.attr("value")? {
        AttrValue::Tensor(t) => Ok(Box::new(ConstKernel(t.clone()))),
        _ => Err(Error::value("Const value must be a tensor")),
    }
}

fn infer_placeholder(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    Ok(vec![OutputSpec::new(ctx.attr_type("dtype")?, ctx.attr_shape("shape")?)])
}

/// TF's C++ name of a dtype, used in its run-time messages (`float`, `double`).
fn cpp_name(d: DType) -> &'static str {
    match d {
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::Float16 => "half",
        other => other.name(),
    }
}

struct PlaceholderKernel(String);

impl OpKernel for PlaceholderKernel {
    fn compute(&self, _: &mut OpContext<'_>) -> Result<()> {
        Err(Error::invalid_argument(self.0.clone()))
    }
}

fn placeholder_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let spec = &b.node.outputs[0];
    let shape = if spec.shape.rank().is_some() { format!(" and shape {}", spec.shape) } else { String::new() };
    Ok(Box::new(PlaceholderKernel(format!(
        "You must feed a value for placeholder tensor '{}' with dtype {}{shape}",
        b.node.name,
        cpp_name(spec.dtype)
    ))))
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

fn pass_through(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.take_input(0)?;
    ctx.set_output(0, x);
    Ok(())
}

fn infer_identity(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    Ok(vec![OutputSpec::new(t, ctx.input(0).shape.clone())])
}

fn infer_cast(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let to = ctx.attr_type("DstT")?;
    ctx.attrs.insert("SrcT".into(), AttrValue::Type(ctx.input(0).dtype));
    ctx.attrs.entry("Truncate".into()).or_insert(AttrValue::B(false));
    Ok(vec![OutputSpec::new(to, ctx.input(0).shape.clone())])
}

struct CastKernel(DType);

impl OpKernel for CastKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = cast(ctx.input(0)?, self.0)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn cast_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(CastKernel(b.node.outputs[0].dtype)))
}

/// Resolves a requested shape with at most one `-1` against `n` elements.
fn resolve_shape(requested: &[i64], n: Option<usize>) -> Result<Vec<Option<usize>>> {
    let mut unknown = None;
    let mut known = 1usize;
    let mut dims = Vec::with_capacity(requested.len());
    for (i, &d) in requested.iter().enumerate() {
        if d == -1 {
            if unknown.replace(i).is_some() {
                ff_bail!(InvalidArgument, "only one input size may be -1, not both {} and {i}", unknown.unwrap_or(0));
            }
            dims.push(None);
        } else {
            let d = usize::try_from(d)
                .map_err(|_| Error::invalid_argument(format!("size {i} must be non-negative, not {d}")))?;
            known = known.checked_mul(d).filter(|&k| k <= crate::shape::MAX_ELEMENTS).ok_or_else(|| {
                let list: Vec<String> = requested.iter().map(ToString::to_string).collect();
                Error::invalid_argument(format!("Shape [{}] has too many elements", list.join(", ")))
            })?;
            dims.push(Some(d));
        }
    }
    if let Some(n) = n {
        match unknown {
            Some(i) if known > 0 && n % known == 0 => dims[i] = Some(n / known),
            Some(_) if n == 0 => {}
            None if n == known => {}
            _ => ff_bail!(
                InvalidArgument,
                "Input to reshape is a tensor with {n} values, but the requested shape {} {}",
                if unknown.is_some() { "requires a multiple of" } else { "has" },
                known
            ),
        }
    }
    Ok(dims)
}

fn infer_reshape(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0])?;
    ctx.check_type(1, &[DType::Int32, DType::Int64])?;
    ctx.attrs.insert("Tshape".into(), AttrValue::Type(ctx.input(1).dtype));
    let shape = match ctx.constant_input(1) {
        Some(s) => {
            let dims = resolve_shape(&int_values(s)?, ctx.input(0).shape.num_elements()).map_err(|e| {
                Error::value(format!("Cannot reshape a tensor of shape {}: {}", ctx.input(0).shape, e.message))
            })?;
            PartialShape::from_dims(dims)
        }
        None => match (ctx.shape_value(1), ctx.input(1).shape.dims()) {
            (Some(v), _) => v.clone(),
            (None, Some([Some(r)])) => PartialShape::unknown_of_rank(*r),
            _ => PartialShape::unknown(),
        },
    };
    Ok(vec![OutputSpec::new(t, shape)])
}

fn reshape_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let requested = int_values(ctx.input(1)?)?;
    let x = ctx.take_input(0)?;
    let dims = resolve_shape(&requested, Some(x.num_elements()))?;
    let shape: Vec<usize> = dims.into_iter().map(|d| d.unwrap_or(0)).collect();
    ctx.set_output(0, x.reshaped(&shape)?);
    Ok(())
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

fn fill_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let dims = shape_from_values(&int_values(ctx.input(0)?)?, "dims")?;
    let out = fill(&dims, ctx.input(1)?)?;
    ctx.set_output(0, out);
    Ok(())
}

fn zeros_like_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let out = Tensor::zeros(x.dtype(), x.shape())?;
    ctx.set_output(0, out);
    Ok(())
}

fn ones_like_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let one = crate::dispatch_pod!(x.dtype(), T => Tensor::scalar(<T as crate::kernels::array::Castable>::from_i64(1)),
        _ => ff_bail!(InvalidArgument, "OnesLike does not support {}", x.dtype()));
    let out = fill(x.shape(), &one)?;
    ctx.set_output(0, out);
    Ok(())
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

struct ShapeNKernel(DType);

impl OpKernel for ShapeNKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        for i in 0..ctx.num_inputs() {
            let s = ctx.input(i)?.shape().to_vec();
            ctx.set_output(i, int_tensor(self.0, &[s.len()], &s)?);
        }
        Ok(())
    }
}

fn infer_scalar_int(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = out_type(&mut ctx)?;
    let t = if ctx.def.name == "Rank" { DType::Int32 } else { t };
    Ok(vec![OutputSpec::new(t, PartialShape::scalar())])
}

/// An int32 or int64 tensor of `values` (the node's declared output type).
fn int_tensor(dtype: DType, shape: &[usize], values: &[usize]) -> Result<Tensor> {
    let v: Vec<i64> = values.iter().map(|&x| i64::try_from(x).unwrap_or(i64::MAX)).collect();
    cast(&Tensor::from_slice(shape, &v)?, dtype)
}

fn shape_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let s = ctx.input(0)?.shape().to_vec();
    ctx.set_output(0, int_tensor(DType::Int32, &[s.len()], &s)?);
    Ok(())
}

fn size_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let n = ctx.input(0)?.num_elements();
    ctx.set_output(0, int_tensor(DType::Int32, &[], &[n])?);
    Ok(())
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

/// A hashable key for a numeric element: integers as themselves, floats by their bits
/// (with -0 as +0, which compare equal, as TF's `std::unordered_map` sees them).
trait UniqueKey: Copy {
    fn key(self) -> u64;
}

macro_rules! unique_key_int {
    ($($t:ty),*) => {$(impl UniqueKey for $t {
        #[allow(clippy::cast_sign_loss, clippy::cast_lossless)]
        fn key(self) -> u64 { self as u64 }
    })*};
}
unique_key_int!(i32, i64, u8);
impl UniqueKey for f32 {
    fn key(self) -> u64 {
        u64::from((self + 0.0).to_bits())
    }
}
impl UniqueKey for f64 {
    fn key(self) -> u64 {
        (self + 0.0).to_bits()
    }
}

/// `Unique`: the distinct elements of a vector in order of first appearance, and for
/// each element the position of its value among them.
struct UniqueKernel {
    out_idx: DType,
}

fn unique_positions<T: UniqueKey + crate::dtype::Element>(x: &Tensor) -> Result<(Vec<i64>, Vec<i64>)> {
    let mut first: std::collections::HashMap<u64, i64> = std::collections::HashMap::new();
    let mut keep = Vec::new();
    let idx = x
        .as_slice::<T>()?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            *first.entry(v.key()).or_insert_with(|| {
                keep.push(i as i64);
                keep.len() as i64 - 1
            })
        })
        .collect();
    Ok((keep, idx))
}

impl OpKernel for UniqueKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        if x.shape().len() != 1 {
            ff_bail!(InvalidArgument, "unique expects a 1D vector, got shape {}", fmt_shape(x.shape()));
        }
        let (keep, idx) = match x.dtype() {
            DType::Int32 => unique_positions::<i32>(x)?,
            DType::Int64 => unique_positions::<i64>(x)?,
            DType::UInt8 => unique_positions::<u8>(x)?,
            DType::Float32 => unique_positions::<f32>(x)?,
            DType::Float64 => unique_positions::<f64>(x)?,
            d => ff_bail!(InvalidArgument, "Unique: no kernel for {d}"),
        };
        let y = gather(x, &keep, &[keep.len()], 0)?;
        let idx = cast(&Tensor::from_slice(&[idx.len()], &idx)?, self.out_idx)?;
        ctx.set_output(0, y);
        ctx.set_output(1, idx);
        Ok(())
    }
}

/// `ListDiff` (`tf.setdiff1d`): the elements of `x` not in `y`, in order, and their
/// positions in `x`. (A linear scan of `y` per element: its inputs are short lists.)
struct ListDiffKernel {
    out_idx: DType,
}

impl OpKernel for ListDiffKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (x, y) = (ctx.input(0)?, ctx.input(1)?);
        for (t, what) in [(x, "x"), (y, "y")] {
            if t.shape().len() != 1 {
                ff_bail!(InvalidArgument, "{what} should be a 1D vector, got shape {}", fmt_shape(t.shape()));
            }
        }
        let keep: Vec<i64> = crate::dispatch_numeric!(x.dtype(), T => {
            let (xs, ys) = (x.as_slice::<T>()?, y.as_slice::<T>()?);
            (0..xs.len()).filter(|&i| !ys.contains(&xs[i])).map(|i| i as i64).collect()
        }, _ => ff_bail!(InvalidArgument, "ListDiff: no kernel for {}", x.dtype()));
        let out = gather(x, &keep, &[keep.len()], 0)?;
        let idx = cast(&Tensor::from_slice(&[keep.len()], &keep)?, self.out_idx)?;
        ctx.set_output(0, out);
        ctx.set_output(1, idx);
        Ok(())
    }
}

fn rank_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let r = ctx.input(0)?.shape().len();
    ctx.set_output(0, int_tensor(DType::Int32, &[], &[r])?);
    Ok(())
}

fn infer_range(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1, 2])?;
    ctx.attrs.insert("Tidx".into(), AttrValue::Type(t));
    ctx.attrs.remove("T");
    ctx.check_type(0, &[DType::Int32, DType::Int64, DType::Float32, DType::Float64])?;
    let len = match (ctx.constant_input(0), ctx.constant_input(1), ctx.constant_input(2)) {
        (Some(a), Some(b), Some(c)) => {
            let f = |t: &Tensor| cast(t, DType::Float64).and_then(|x| x.scalar_value::<f64>());
            Some(range_len(f(a)?, f(b)?, f(c)?).map_err(|e| Error::value(e.message))?)
        }
        _ => None,
    };
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([len]))])
}

/// The number of elements of `Range(start, limit, delta)` computed in floating point
/// (TF's rule for float ranges; the shape function uses it for every type), with
/// TF's checks: a NaN or infinite bound or step is an `InvalidArgument`, never a
/// saturated or empty size.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
fn range_len(start: f64, limit: f64, delta: f64) -> Result<usize> {
    check_range_bounds(start, limit, delta)?;
    let size = ((limit - start) / delta).abs().ceil();
    // NaN bounds fail the comparisons above; an infinite span lands here.
    if !matches!(size.partial_cmp(&(i64::MAX as f64)), Some(Ordering::Less | Ordering::Equal)) {
        ff_bail!(InvalidArgument, "Requires ((limit - start) / delta) <= {}", i64::MAX);
    }
    Ok(size as usize)
}

/// TF's `RangeOp` checks on the bounds, branch for branch: a NaN bound fails the
/// comparison, and a NaN step takes the `delta < 0` branch, as in TF.
fn check_range_bounds<T: PartialOrd + Default + std::fmt::Display + Copy>(start: T, limit: T, delta: T) -> Result<()> {
    use Ordering::{Equal, Greater, Less};
    let zero = T::default();
    if delta == zero {
        ff_bail!(InvalidArgument, "Requires delta != 0: {}", show(delta));
    }
    if delta > zero {
        if !matches!(start.partial_cmp(&limit), Some(Less | Equal)) {
            ff_bail!(InvalidArgument, "Requires start <= limit when delta > 0: {}/{}", show(start), show(limit));
        }
    } else if !matches!(start.partial_cmp(&limit), Some(Greater | Equal)) {
        ff_bail!(InvalidArgument, "Requires start >= limit when delta < 0: {}/{}", show(start), show(limit));
    }
    Ok(())
}

/// A bound as TF prints it (`nan`, not Rust's `NaN`).
fn show<T: std::fmt::Display>(v: T) -> String {
    let s = v.to_string();
    if s == "NaN" { "nan".into() } else { s }
}

/// An integer range, counted exactly (`divup(|limit - start|, |delta|)` in 128 bits,
/// where the float computation would lose int64 precision).
fn int_range<T: Element + Into<i64> + TryFrom<i64>>(start: T, limit: T, delta: T) -> Result<Tensor> {
    let (s, l, d) = (start.into(), limit.into(), delta.into());
    check_range_bounds(s, l, d)?;
    let span = (i128::from(l) - i128::from(s)).unsigned_abs();
    let step = i128::from(d).unsigned_abs();
    let n = i64::try_from(span.div_ceil(step))
        .ok()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| Error::invalid_argument(format!("Requires ((limit - start) / delta) <= {}", i64::MAX)))?;
    let mut out = Tensor::for_overwrite(T::DTYPE, &[n])?;
    for (i, o) in out.as_mut_slice::<T>()?.iter_mut().enumerate() {
        // Every value lies between start and limit, so it fits T.
        let v = i128::from(s) + i128::from(d) * i128::try_from(i).unwrap_or(i128::MAX);
        *o = i64::try_from(v).ok().and_then(|v| T::try_from(v).ok()).unwrap_or(start);
    }
    Ok(out)
}

fn range_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let dtype = ctx.input(0)?.dtype();
    let out = match dtype {
        DType::Int32 => {
            let f = |i: usize| ctx.input(i).and_then(Tensor::scalar_value::<i32>);
            int_range(f(0)?, f(1)?, f(2)?)?
        }
        DType::Int64 => {
            let f = |i: usize| ctx.input(i).and_then(Tensor::scalar_value::<i64>);
            int_range(f(0)?, f(1)?, f(2)?)?
        }
        _ => {
            let f = |t: &Tensor| cast(t, DType::Float64).and_then(|x| x.scalar_value::<f64>());
            let (start, limit, delta) = (f(ctx.input(0)?)?, f(ctx.input(1)?)?, f(ctx.input(2)?)?);
            let n = range_len(start, limit, delta)?;
            let mut values = Tensor::for_overwrite(DType::Float64, &[n])?;
            #[allow(clippy::cast_precision_loss)]
            for (i, v) in values.as_mut_slice::<f64>()?.iter_mut().enumerate() {
                *v = start + i as f64 * delta;
            }
            cast(&values, dtype)?
        }
    };
    ctx.set_output(0, out);
    Ok(())
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

struct PackKernel(i64);

impl OpKernel for PackKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let values: Vec<&Tensor> = (0..ctx.num_inputs()).map(|i| ctx.input(i)).collect::<Result<_>>()?;
        let rank = values[0].shape().len();
        let Some(axis) = normalize_axis(self.0, rank + 1) else {
            ff_bail!(InvalidArgument, "axis = {} not in [{}, {})", self.0, -(rank as i64) - 1, rank + 1);
        };
        let out = pack(&values, axis)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

fn pack_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(PackKernel(axis_attr(&b.node.attrs))))
}

fn infer_logical_not(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    Ok(vec![OutputSpec::new(DType::Bool, ctx.input(0).shape.clone())])
}

fn logical_not_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.take_input(0)?;
    ctx.set_output(0, crate::kernels::elementwise::unary::<bool>(x, ctx.env, |b| !b)?);
    Ok(())
}

fn infer_where(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Bool])?;
    ctx.attrs.insert("T".into(), AttrValue::Type(DType::Bool));
    Ok(vec![OutputSpec::new(DType::Int64, PartialShape::from_dims([None, ctx.input(0).shape.rank()]))])
}

fn where_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let out = where_true(ctx.input(0)?)?;
    ctx.set_output(0, out);
    Ok(())
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

fn gather_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let params = ctx.input(0)?;
    let indices = ctx.input(1)?;
    let axis = int_values(ctx.input(2)?)?.first().copied().unwrap_or(0);
    let Some(ax) = normalize_axis(axis, params.shape().len()) else {
        ff_bail!(
            InvalidArgument,
            "Expected axis in the range [{}, {}), but got {axis}",
            -(params.shape().len() as i64),
            params.shape().len()
        );
    };
    let out = gather(params, &int_values(indices)?, indices.shape(), ax)?;
    ctx.set_output(0, out);
    Ok(())
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

struct SqueezeKernel(Vec<i64>);

impl OpKernel for SqueezeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.take_input(0)?;
        let rank = x.shape().len();
        let mut wanted = Vec::new();
        for &a in &self.0 {
            match normalize_axis(a, rank) {
                Some(v) => wanted.push(v),
                None => ff_bail!(InvalidArgument, "Tried to squeeze dim index {a} for tensor with {rank} dimensions."),
            }
        }
        let mut shape = Vec::new();
        for (i, &d) in x.shape().iter().enumerate() {
            let listed = wanted.contains(&i);
            if listed && d != 1 {
                ff_bail!(
                    InvalidArgument,
                    "Can not squeeze dim[{i}], expected a dimension of 1, got {d} for shape {}",
                    fmt_shape(x.shape())
                );
            }
            if !(d == 1 && (wanted.is_empty() || listed)) {
                shape.push(d);
            }
        }
        ctx.set_output(0, x.reshaped(&shape)?);
        Ok(())
    }
}

fn squeeze_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SqueezeKernel(squeeze_dims(&b.node.attrs))))
}
