//! Array kernels that move or convert elements without arithmetic: cast, fill,
//! stack, gather, range, where. Dense copies work on bytes, so one body serves
//! every dtype; string tensors take the same paths over their element vectors.
//! Also the kernels of the array ops (shapes and registration in `ops/array.rs`).
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::buffer::try_vec;
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
pub(crate) use crate::framework::shape_util::resolve_shape;
use crate::framework::tensor_util::{int_values, shape_from_values};
use crate::shape::{checked_num_elements, fmt_shape, normalize_axis};
use crate::tensor::{Tensor, oom_error};

pub use crate::dtype::Castable;

fn cast_typed<S: Castable, D: Castable>(x: &Tensor) -> Result<Tensor> {
    let via_float = S::DTYPE.is_floating();
    super::elementwise::map_into::<S, D>(x, &super::ExecEnv::SINGLE_THREADED, |v| {
        if via_float { D::from_f64(v.to_f64()) } else { D::from_i64(v.to_i64()) }
    })
}

/// Converts `x` to `to`.
pub fn cast(x: &Tensor, to: DType) -> Result<Tensor> {
    if x.dtype() == to {
        return Ok(x.clone());
    }
    if x.dtype().is_complex() || to.is_complex() {
        return cast_complex(x, to);
    }
    crate::dispatch_pod!(x.dtype(), S => crate::dispatch_pod!(to, D => cast_typed::<S, D>(x),
        _ => ff_bail!(Unimplemented, "Cast {} to {to} is not supported", x.dtype())),
        _ => ff_bail!(Unimplemented, "Cast {} to {to} is not supported", x.dtype()))
}

/// A cast from or to a complex type, as TF's: a real value becomes `(value, 0)`, a
/// complex one keeps its real part when cast to a real type.
fn cast_complex(x: &Tensor, to: DType) -> Result<Tensor> {
    use num_complex::{Complex32, Complex64};
    let n = x.num_elements();
    let mut parts: Vec<(f64, f64)> = Vec::new();
    parts.try_reserve_exact(n).map_err(|_| crate::tensor::oom_error(x.dtype(), x.shape()))?;
    match x.dtype() {
        DType::Complex64 => parts.extend(x.as_slice::<Complex32>()?.iter().map(|c| (f64::from(c.re), f64::from(c.im)))),
        DType::Complex128 => parts.extend(x.as_slice::<Complex64>()?.iter().map(|c| (c.re, c.im))),
        _ => parts.extend(cast(x, DType::Float64)?.as_slice::<f64>()?.iter().map(|&v| (v, 0.0))),
    }
    #[allow(clippy::cast_possible_truncation)]
    match to {
        DType::Complex64 => {
            let v: Vec<Complex32> = parts.iter().map(|&(r, i)| Complex32::new(r as f32, i as f32)).collect();
            Tensor::from_slice(x.shape(), &v)
        }
        DType::Complex128 => {
            let v: Vec<Complex64> = parts.iter().map(|&(r, i)| Complex64::new(r, i)).collect();
            Tensor::from_slice(x.shape(), &v)
        }
        _ => {
            let re: Vec<f64> = parts.iter().map(|p| p.0).collect();
            cast(&Tensor::from_slice(x.shape(), &re)?, to)
        }
    }
}

/// A tensor of `shape` with every element equal to the one element of `value`.
pub fn fill(shape: &[usize], value: &Tensor) -> Result<Tensor> {
    if value.dtype() == DType::String {
        let n = checked_num_elements(shape)?;
        let mut v = try_vec(n).map_err(|_| oom_error(DType::String, shape))?;
        v.resize(n, value.as_strings()?[0].clone());
        return Tensor::from_strings(shape, v);
    }
    let one = value.as_bytes()?;
    let mut out = Tensor::for_overwrite(value.dtype(), shape)?;
    fill_bytes(out.as_mut_bytes()?, one);
    Ok(out)
}

/// `dst` as copies of `one` (its length a multiple of `one`'s): the first copy, then
/// the filled part copied after itself until it is 32 KiB, then that block copied along
/// the rest. A few large copies from cache instead of one small copy per element (a
/// `copy_from_slice` of a length known only at run time is a call per element: 2.4M
/// floats took 6 ms).
fn fill_bytes(dst: &mut [u8], one: &[u8]) {
    const BLOCK: usize = 32 << 10;
    if one.is_empty() || dst.is_empty() {
        return;
    }
    dst[..one.len()].copy_from_slice(one);
    let mut filled = one.len();
    while filled < dst.len() && filled < BLOCK {
        let n = filled.min(dst.len() - filled);
        dst.copy_within(0..n, filled);
        filled += n;
    }
    let block = filled;
    while filled < dst.len() {
        let n = block.min(dst.len() - filled);
        dst.copy_within(0..n, filled);
        filled += n;
    }
}

/// Copies blocks: for each `outer` row, the `blocks` given by `pick` (source tensor,
/// block index) of `block` elements each, concatenated. Works for any dtype.
pub(crate) fn gather_blocks(
    dtype: DType,
    shape: &[usize],
    count: usize,
    block: usize,
    mut pick: impl FnMut(usize) -> (usize, usize),
    sources: &[&Tensor],
) -> Result<Tensor> {
    let oom = |_| oom_error(dtype, shape);
    let total = checked_num_elements(shape)?;
    if dtype == DType::String {
        let mut out = try_vec(total).map_err(oom)?;
        for i in 0..count {
            let (src, b) = pick(i);
            out.extend_from_slice(&sources[src].as_strings()?[b * block..(b + 1) * block]);
        }
        return Tensor::from_strings(shape, out);
    }
    // Copied straight into the output (a recycled buffer for large ones): no staging
    // vector, whose fresh pages cost a stacked RNN output more than the copy did.
    let mut out = Tensor::for_overwrite(dtype, shape)?;
    let len = block * dtype.size();
    let dst = out.as_mut_bytes()?;
    if dst.len() != count * len {
        return Err(Error::new(Code::Internal, format!("{count} blocks of {len} bytes fill {} bytes", dst.len())));
    }
    for i in 0..count {
        let (src, b) = pick(i);
        dst[i * len..(i + 1) * len].copy_from_slice(&sources[src].as_bytes()?[b * len..(b + 1) * len]);
    }
    Ok(out)
}

/// Stacks same-shaped tensors along a new axis `axis` (TF's `Pack`).
pub fn pack(values: &[&Tensor], axis: usize) -> Result<Tensor> {
    let first = values[0];
    for (i, v) in values.iter().enumerate() {
        if v.shape() != first.shape() || v.dtype() != first.dtype() {
            ff_bail!(
                InvalidArgument,
                "Shapes of all inputs must match: values[0].shape = {} != values[{i}].shape = {}",
                crate::shape::fmt_shape(first.shape()),
                crate::shape::fmt_shape(v.shape())
            );
        }
    }
    let mut shape = first.shape().to_vec();
    shape.insert(axis, values.len());
    let outer: usize = first.shape()[..axis].iter().product();
    let block: usize = first.shape()[axis..].iter().product();
    let n = values.len();
    gather_blocks(first.dtype(), &shape, outer * n, block, |i| (i % n, i / n), values)
}

/// TF's `SliceDebugString`: the multi-index of flat element `i` of a tensor of
/// `shape` (`[1,2]`; nothing for a scalar).
pub(crate) fn slice_debug_string(shape: &[usize], mut i: usize) -> String {
    if shape.is_empty() {
        return String::new();
    }
    let mut index = vec![0; shape.len()];
    for (d, &n) in shape.iter().enumerate().rev() {
        index[d] = i % n.max(1);
        i /= n.max(1);
    }
    format!("[{}]", index.iter().map(ToString::to_string).collect::<Vec<_>>().join(","))
}

/// Gathers slices of `params` along `axis` at `indices` (TF's `GatherV2`).
pub fn gather(params: &Tensor, indices: &[i64], indices_shape: &[usize], axis: usize) -> Result<Tensor> {
    let dim = params.shape()[axis];
    for (i, &ix) in indices.iter().enumerate() {
        if usize::try_from(ix).map_or(true, |x| x >= dim) {
            ff_bail!(InvalidArgument, "indices{} = {ix} is not in [0, {dim})", slice_debug_string(indices_shape, i));
        }
    }
    let outer: usize = params.shape()[..axis].iter().product();
    let block: usize = params.shape()[axis + 1..].iter().product();
    let mut shape = params.shape()[..axis].to_vec();
    shape.extend_from_slice(indices_shape);
    shape.extend_from_slice(&params.shape()[axis + 1..]);
    let k = indices.len();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let pick = |i: usize| (0, (i / k) * dim + indices[i % k] as usize);
    gather_blocks(params.dtype(), &shape, outer * k, block, pick, &[params])
}

/// The coordinates of the true elements of a bool tensor, `[n, rank]` int64 (TF's `Where`).
pub fn where_true(x: &Tensor) -> Result<Tensor> {
    let mask = x.as_slice::<bool>()?;
    let strides = crate::shape::strides(x.shape());
    let mut coords = Vec::new();
    for (flat, _) in mask.iter().enumerate().filter(|(_, b)| **b) {
        let mut rem = flat;
        for s in &strides {
            coords.push(i64::try_from(rem / s).unwrap_or(i64::MAX));
            rem %= s;
        }
    }
    let rank = x.shape().len();
    let n = coords.len().checked_div(rank).unwrap_or(usize::from(mask.first() == Some(&true)));
    Tensor::from_slice(&[n, x.shape().len()], &coords)
}

fn pass_value_on(ctx: &mut OpContext<'_>) -> Result<()> {
    let v = ctx.take_value(0)?;
    ctx.set_value_output(0, v);
    Ok(())
}

fn panic_compute(_: &mut OpContext<'_>) -> Result<()> {
    panic!("_PanicForTesting kernel ran")
}

struct ConstKernel(Tensor);

impl OpKernel for ConstKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_output(0, self.0.clone());
        Ok(())
    }
}

/// `Const`: its value.
pub(crate) fn const_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ConstKernel(b.node.required_attr("value")?)))
}

struct PlaceholderKernel(String);

impl OpKernel for PlaceholderKernel {
    fn compute(&self, _: &mut OpContext<'_>) -> Result<()> {
        Err(Error::invalid_argument(self.0.clone()))
    }
}

/// `Placeholder`: fails when run, as nothing was fed.
pub(crate) fn placeholder_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let spec = &b.node.outputs[0];
    let shape = if spec.shape.rank().is_some() { format!(" and shape {}", spec.shape) } else { String::new() };
    Ok(Box::new(PlaceholderKernel(format!(
        "You must feed a value for placeholder tensor '{}' with dtype {}{shape}",
        b.node.name,
        spec.dtype.cpp_name()
    ))))
}

fn pass_through(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.take_input(0)?;
    ctx.set_output(0, x);
    Ok(())
}

struct CastKernel(DType);

impl OpKernel for CastKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let out = cast(ctx.input(0)?, self.0)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `Cast`.
pub(crate) fn cast_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(CastKernel(b.node.outputs[0].dtype)))
}

fn reshape_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let requested = int_values(ctx.input(1)?)?;
    let x = ctx.take_input(0)?;
    let dims = resolve_shape(&requested, Some(x.num_elements()))?;
    let shape: crate::shape::Shape = dims.into_iter().map(|d| d.unwrap_or(0)).collect();
    ctx.set_output(0, x.reshaped(&shape)?);
    Ok(())
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
    let one = match x.dtype() {
        DType::Complex64 => Tensor::scalar(num_complex::Complex32::new(1.0, 0.0)),
        DType::Complex128 => Tensor::scalar(num_complex::Complex64::new(1.0, 0.0)),
        d => crate::dispatch_pod!(d, T => Tensor::scalar(<T as crate::kernels::array::Castable>::from_i64(1)),
            _ => ff_bail!(InvalidArgument, "OnesLike does not support {d}")),
    };
    let out = fill(x.shape(), &one)?;
    ctx.set_output(0, out);
    Ok(())
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

/// An int32 or int64 tensor of `values` (the node's declared output type).
fn int_tensor(dtype: DType, shape: &[usize], values: &[usize]) -> Result<Tensor> {
    let v: Vec<i64> = values.iter().map(|&x| i64::try_from(x).unwrap_or(i64::MAX)).collect();
    cast(&Tensor::from_slice(shape, &v)?, dtype)
}

/// `Shape` or `Size` in the node's declared `out_type`.
struct ShapeKernel {
    out_type: DType,
    size: bool,
}

impl OpKernel for ShapeKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let out = if self.size {
            int_tensor(self.out_type, &[], &[x.num_elements()])?
        } else {
            int_tensor(self.out_type, &[x.shape().len()], x.shape())?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

fn rank_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let r = ctx.input(0)?.shape().len();
    ctx.set_output(0, int_tensor(DType::Int32, &[], &[r])?);
    Ok(())
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

/// `Pack`.
pub(crate) fn pack_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(PackKernel(b.node.attr_or("axis", 0)?)))
}

fn logical_not_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.take_input(0)?;
    ctx.set_output(0, crate::kernels::elementwise::unary::<bool>(x, ctx.env, |b| !b)?);
    Ok(())
}

fn where_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let out = where_true(ctx.input(0)?)?;
    ctx.set_output(0, out);
    Ok(())
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

/// `Squeeze`.
pub(crate) fn squeeze_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SqueezeKernel(b.node.attr_or("squeeze_dims", Vec::new())?)))
}

/// `Identity`, `StopGradient` and `PlaceholderWithDefault`: the input passed on.
pub(crate) fn identity_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(pass_through)
}

/// `RefIdentity`: the input (a variable's reference, or a value) passed on as it is.
pub(crate) fn ref_identity_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        let v = ctx.take_value(0)?;
        ctx.set_value_output(0, v);
        Ok(())
    })
}

/// `IdentityN`: every input passed on unchanged.
pub(crate) fn identity_n_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx| {
        for i in 0..ctx.num_inputs() {
            let x = ctx.take_input(i)?;
            ctx.set_output(i, x);
        }
        Ok(())
    })
}

/// `NoOp`.
pub(crate) fn no_op_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|_| Ok(()))
}

/// `Reshape`.
pub(crate) fn reshape_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(reshape_compute)
}

/// `Fill`.
pub(crate) fn fill_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(fill_compute)
}

/// `ZerosLike`.
pub(crate) fn zeros_like_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(zeros_like_compute)
}

/// `OnesLike`.
pub(crate) fn ones_like_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(ones_like_compute)
}

/// `Shape`.
pub(crate) fn shape_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ShapeKernel { out_type: b.node.outputs[0].dtype, size: false }))
}

/// `ShapeN`, in the node's declared output type.
pub(crate) fn shape_n_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ShapeNKernel(b.node.outputs[0].dtype)))
}

/// `Size`.
pub(crate) fn size_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ShapeKernel { out_type: b.node.outputs[0].dtype, size: true }))
}

/// `Rank`.
pub(crate) fn rank_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(rank_compute)
}

/// `LogicalNot`.
pub(crate) fn logical_not_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(logical_not_compute)
}

/// `Where`.
pub(crate) fn where_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(where_compute)
}

/// `GatherV2`.
pub(crate) fn gather_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(gather_compute)
}

/// `_DeviceCopy` between host-memory devices: the value passed on as it flows.
pub(crate) fn device_copy_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(pass_value_on)
}

/// `_PanicForTesting`.
pub(crate) fn panic_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(panic_compute)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_bytes_repeats_the_value_everywhere() {
        for size in [1, 2, 3, 4, 8, 12, 16] {
            let one: Vec<u8> = (1..=size as u8).collect();
            for count in [0, 1, 2, 3, 7, 1000, 8191, 8193, 100_003] {
                let mut dst = vec![0u8; size * count];
                fill_bytes(&mut dst, &one);
                assert!(dst.chunks_exact(size).all(|c| c == one), "size {size} count {count}");
            }
        }
    }

    #[test]
    fn cast_pack_gather_where() {
        let x = Tensor::from_slice(&[3], &[1.7f32, -2.2, 0.0]).unwrap();
        assert_eq!(cast(&x, DType::Int32).unwrap().as_slice::<i32>().unwrap(), &[1, -2, 0]);
        assert_eq!(cast(&x, DType::Bool).unwrap().as_slice::<bool>().unwrap(), &[true, true, false]);
        let a = Tensor::from_slice(&[2], &[1i32, 2]).unwrap();
        let b = Tensor::from_slice(&[2], &[3i32, 4]).unwrap();
        assert_eq!(pack(&[&a, &b], 1).unwrap().as_slice::<i32>().unwrap(), &[1, 3, 2, 4]);
        let p = Tensor::from_slice(&[3, 2], &[0i64, 1, 2, 3, 4, 5]).unwrap();
        let g = gather(&p, &[2, 0], &[2], 0).unwrap();
        assert_eq!(g.as_slice::<i64>().unwrap(), &[4, 5, 0, 1]);
        assert!(gather(&p, &[3], &[1], 0).is_err());
        let m = Tensor::from_slice(&[2, 2], &[true, false, false, true]).unwrap();
        assert_eq!(where_true(&m).unwrap().as_slice::<i64>().unwrap(), &[0, 0, 1, 1]);
        let s = Tensor::from_strings(&[2], vec![b"a".to_vec(), b"b".to_vec()]).unwrap();
        assert_eq!(gather(&s, &[1], &[1], 0).unwrap().as_strings().unwrap()[0], b"b");
    }
}
