//! Reductions (sum, mean, max, min, prod, all, any), scans (cumsum, cumprod), arg-reductions, segment sums and the
//! shape helpers that reduction gradients need (`BroadcastGradientArgs`, `ReducedShape`).
use super::math::NUMERIC;
use super::{InferCtx, OpDef, Registry, int_values};
use crate::autodiff::math_grad as g;
use crate::dispatch_numeric;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, OutputSpec};
use crate::kernels::num::Num;
use crate::kernels::reduce::{Reduction, reduce, scan};
use crate::kernels::{KernelBuild, OpContext, OpKernel, stateless};
use crate::shape::{PartialShape, normalize_axis};
use crate::tensor::Tensor;

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("Sum", &["input", "reduction_indices"], infer_reduce, reduce_kernel).grad(g::sum));
    r.add(OpDef::new("Mean", &["input", "reduction_indices"], infer_reduce, reduce_kernel).grad(g::mean));
    r.add(OpDef::new("Max", &["input", "reduction_indices"], infer_reduce, reduce_kernel).grad(g::min_max));
    r.add(OpDef::new("Min", &["input", "reduction_indices"], infer_reduce, reduce_kernel).grad(g::min_max));
    r.add(OpDef::new("Prod", &["input", "reduction_indices"], infer_reduce, reduce_kernel).grad(g::prod));
    r.add(OpDef::new("Cumsum", &["x", "axis"], infer_scan, scan_kernel).grad(g::cumsum));
    r.add(OpDef::new("Cumprod", &["x", "axis"], infer_scan, scan_kernel).grad(g::cumprod));
    r.add(OpDef::new("All", &["input", "reduction_indices"], infer_logical_reduce, reduce_kernel).no_grad());
    r.add(OpDef::new("Any", &["input", "reduction_indices"], infer_logical_reduce, reduce_kernel).no_grad());
    r.add(OpDef::new("ArgMax", &["input", "dimension"], infer_arg, arg_kernel).no_grad());
    r.add(OpDef::new("ArgMin", &["input", "dimension"], infer_arg, arg_kernel).no_grad());
    r.add(
        OpDef::new("UnsortedSegmentSum", &["data", "segment_ids", "num_segments"], infer_segment_sum, |_| {
            stateless(segment_sum)
        })
        .grad(g::unsorted_segment_sum),
    );
    r.add(OpDef::new("BroadcastGradientArgs", &["s0", "s1"], infer_bcast_args, |_| stateless(bcast_args)).no_grad());
    r.add(
        OpDef::new("ReducedShape", &["input_shape", "axes"], infer_reduced_shape, |_| stateless(reduced_shape))
            .no_grad(),
    );
}
/// Normalises, sorts and de-duplicates reduction axes for a tensor of rank `rank`.
fn reduction_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        match normalize_axis(a, rank) {
            Some(x) => out.push(x),
            None => ff_bail!(InvalidArgument, "Invalid reduction dimension ({a} for input with {rank} dimension(s)"),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

fn infer_reduce(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    infer_reduction(ctx, NUMERIC)
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

struct ReduceKernel {
    reduction: Reduction,
    keep_dims: bool,
}

fn reduce_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let reduction = match b.node.op_type() {
        "Sum" => Reduction::Sum,
        "Mean" => Reduction::Mean,
        "Max" => Reduction::Max,
        // Booleans reduce as bytes: all = min, any = max.
        "Min" | "All" => Reduction::Min,
        "Any" => Reduction::Max,
        _ => Reduction::Prod,
    };
    let keep_dims = matches!(b.node.attrs.get("keep_dims"), Some(AttrValue::B(true)));
    Ok(Box::new(ReduceKernel { reduction, keep_dims }))
}

impl OpKernel for ReduceKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let axes = reduction_axes(&int_values(ctx.input(1)?)?, x.shape().len())?;
        if x.dtype() == DType::Bool {
            let bytes = crate::kernels::array::cast(x, DType::UInt8)?;
            let r = reduce::<u8>(&bytes, &axes, self.keep_dims, self.reduction, ctx.env)?;
            ctx.set_output(0, crate::kernels::array::cast(&r, DType::Bool)?);
            return Ok(());
        }
        let out = dispatch_numeric!(x.dtype(), T => reduce::<T>(x, &axes, self.keep_dims, self.reduction, ctx.env)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
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

struct ScanKernel {
    exclusive: bool,
    reverse: bool,
    product: bool,
}

fn scan_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ScanKernel {
        exclusive: b.node.attr_bool_or("exclusive", false)?,
        reverse: b.node.attr_bool_or("reverse", false)?,
        product: b.node.op_type() == "Cumprod",
    }))
}

impl OpKernel for ScanKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let rank = x.shape().len();
        let a = crate::ops::scalar_int(ctx.input(1)?, "axis")?;
        let Some(axis) = normalize_axis(a, rank) else {
            ff_bail!(
                InvalidArgument,
                "ScanOp: Expected scan axis in the range [{}, {rank}), but got {a}",
                -(rank as i64)
            );
        };
        let out = dispatch_numeric!(x.dtype(), T => scan::<T>(x, axis, self.exclusive, self.reverse, self.product)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        ctx.set_output(0, out);
        Ok(())
    }
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

struct ArgKernel {
    max: bool,
    out: DType,
}

fn arg_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ArgKernel { max: b.node.op_type() == "ArgMax", out: b.node.outputs[0].dtype }))
}

fn arg_reduce<T: Num>(x: &Tensor, axis: usize, max: bool) -> Result<Vec<i64>> {
    let s = x.shape();
    let (outer, n, inner) = (s[..axis].iter().product::<usize>(), s[axis], s[axis + 1..].iter().product::<usize>());
    if n == 0 {
        ff_bail!(InvalidArgument, "Reduction axis {axis} is empty in shape {}", crate::shape::fmt_shape(s));
    }
    let v = x.as_slice::<T>()?;
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let mut best = 0usize;
            for k in 1..n {
                let (cur, b) = (v[(o * n + k) * inner + i], v[(o * n + best) * inner + i]);
                // NaNs are skipped as in TF (`x != x` only for NaN); an all-NaN row gives 0.
                #[allow(clippy::eq_op)]
                let b_nan = b != b;
                #[allow(clippy::eq_op)]
                let cur_nan = cur != cur;
                if !cur_nan && (b_nan || (max && cur > b) || (!max && cur < b)) {
                    best = k;
                }
            }
            out.push(i64::try_from(best).unwrap_or(i64::MAX));
        }
    }
    Ok(out)
}

impl OpKernel for ArgKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let a = int_values(ctx.input(1)?)?.first().copied().unwrap_or(0);
        let Some(axis) = normalize_axis(a, x.shape().len()) else {
            ff_bail!(
                InvalidArgument,
                "Expected dimension in the range [{}, {}), but got {a}",
                -(x.shape().len() as i64),
                x.shape().len()
            );
        };
        let idx = dispatch_numeric!(x.dtype(), T => arg_reduce::<T>(x, axis, self.max)?,
            _ => ff_bail!(InvalidArgument, "no kernel for {}", x.dtype()));
        let mut shape = x.shape().to_vec();
        shape.remove(axis);
        let t = crate::kernels::array::cast(&Tensor::from_slice(&shape, &idx)?, self.out)?;
        ctx.set_output(0, t);
        Ok(())
    }
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

fn segment_sum_typed<T: Num>(data: &Tensor, ids: &[i64], ids_rank: usize, n: usize) -> Result<Tensor> {
    let row_shape = &data.shape()[ids_rank..];
    let inner: usize = row_shape.iter().product();
    let mut shape = vec![n];
    shape.extend_from_slice(row_shape);
    let mut result = Tensor::zeros(T::DTYPE, &shape)?;
    let out = result.as_mut_slice::<T>()?;
    let src = data.as_slice::<T>()?;
    for (i, &id) in ids.iter().enumerate() {
        if id < 0 {
            continue; // TF drops negative segment ids.
        }
        let Some(s) = usize::try_from(id).ok().filter(|&s| s < n) else {
            ff_bail!(InvalidArgument, "segment_ids[{i}] = {id} is out of range [0, {n})");
        };
        let dst = &mut out[s * inner..(s + 1) * inner];
        dst.iter_mut().zip(&src[i * inner..(i + 1) * inner]).for_each(|(d, &v)| *d = d.add(v));
    }
    Ok(result)
}

fn segment_sum(ctx: &mut OpContext<'_>) -> Result<()> {
    let data = ctx.input(0)?;
    let ids_t = ctx.input(1)?;
    if data.shape().len() < ids_t.shape().len() || data.shape()[..ids_t.shape().len()] != *ids_t.shape() {
        ff_bail!(
            InvalidArgument,
            "data.shape = {} does not start with segment_ids.shape = {}",
            crate::shape::fmt_shape(data.shape()),
            crate::shape::fmt_shape(ids_t.shape())
        );
    }
    let ids = int_values(ids_t)?;
    let n = int_values(ctx.input(2)?)?.first().copied().unwrap_or(0);
    let n = usize::try_from(n)
        .map_err(|_| Error::invalid_argument(format!("num_segments must be non-negative, got {n}")))?;
    let rank = ids_t.shape().len();
    let out = dispatch_numeric!(data.dtype(), T => segment_sum_typed::<T>(data, &ids, rank, n)?,
        _ => ff_bail!(InvalidArgument, "no kernel for {}", data.dtype()));
    ctx.set_output(0, out);
    Ok(())
}

fn infer_bcast_args(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let t = ctx.same_type(&[0, 1])?;
    Ok(vec![OutputSpec::new(t, PartialShape::from_dims([None])); 2])
}

/// TF's `BroadcastGradientArgs`: the axes each input was broadcast along.
fn bcast_args(ctx: &mut OpContext<'_>) -> Result<()> {
    let dtype = ctx.input(0)?.dtype();
    let (a, b) = (int_values(ctx.input(0)?)?, int_values(ctx.input(1)?)?);
    let n = a.len().max(b.len());
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        let idx = i64::try_from(i).unwrap_or(i64::MAX);
        match (da, db) {
            (1, 1) => {
                ra.push(idx);
                rb.push(idx);
            }
            (1, _) => ra.push(idx),
            (_, 1) => rb.push(idx),
            (x, y) if x == y => {}
            (x, y) => ff_bail!(InvalidArgument, "Incompatible shapes: {a:?} vs. {b:?} ({x} vs {y})"),
        }
    }
    let to = |v: Vec<i64>| crate::kernels::array::cast(&Tensor::from_slice(&[v.len()], &v)?, dtype);
    ctx.set_output(0, to(ra)?);
    ctx.set_output(1, to(rb)?);
    Ok(())
}

fn infer_reduced_shape(ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    ctx.check_type(0, &[DType::Int32, DType::Int64])?;
    Ok(vec![OutputSpec::new(ctx.input(0).dtype, ctx.input(0).shape.clone())])
}

/// The input shape with the reduced axes set to 1 (for reduction gradients with
/// shapes unknown at construction time; TF builds this from several ops).
fn reduced_shape(ctx: &mut OpContext<'_>) -> Result<()> {
    let shape_t = ctx.input(0)?;
    let mut shape = int_values(shape_t)?;
    for a in int_values(ctx.input(1)?)? {
        match normalize_axis(a, shape.len()) {
            Some(i) => shape[i] = 1,
            None => ff_bail!(InvalidArgument, "Invalid reduction dimension {a} for rank {}", shape.len()),
        }
    }
    let t = crate::kernels::array::cast(&Tensor::from_slice(&[shape.len()], &shape)?, shape_t.dtype())?;
    ctx.set_output(0, t);
    Ok(())
}
