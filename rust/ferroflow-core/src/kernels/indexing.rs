//! Kernels of the ops that select or repeat elements by index: `Tile`, `Pad`/`PadV2`,
//! `MirrorPad` and its gradient, `Split`/`SplitV`, `OneHot`, and `StridedSlice` with
//! its gradient (shapes, registration and the slice resolution they share with the
//! shape functions in `ops/indexing.rs`).
use super::layout::{MirrorMode, mirror_pad, mirror_pad_grad, pad, slice, strided_gather, strided_scatter, tile};
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::tensor_util::{dims_from, int_values, scalar_int};
use crate::ops::indexing::{Masks, SplitInputs, mirror_mode, pad_pairs, resolve, split_inputs, split_sizes};
use crate::shape::{Dim, fmt_shape, normalize_axis};
use crate::tensor::Tensor;

fn tile_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let m = dims_from(&int_values(ctx.input(1)?)?, "multiples")?;
    let out = tile(ctx.input(0)?, &m)?;
    ctx.set_output(0, out);
    Ok(())
}

fn pad_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let x = ctx.input(0)?;
    let pairs = pad_pairs(ctx.input(1)?, x.shape().len())?;
    let value = if ctx.num_inputs() == 3 {
        ctx.input(2)?.clone()
    } else if x.dtype() == DType::String {
        Tensor::from_strings(&[], vec![Vec::new()])?
    } else {
        Tensor::zeros(x.dtype(), &[])?
    };
    let out = pad(x, &pairs, &value)?;
    ctx.set_output(0, out);
    Ok(())
}

/// `MirrorPad` and `MirrorPadGrad`, with TF's run-time checks of the paddings.
struct MirrorKernel {
    mode: MirrorMode,
    grad: bool,
}

/// `MirrorPad` and `MirrorPadGrad`.
pub(crate) fn mirror_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = b.node.op_type();
    Ok(Box::new(MirrorKernel {
        mode: mirror_mode(&b.node.attrs.get("mode").cloned(), op)?,
        grad: op == "MirrorPadGrad",
    }))
}

impl OpKernel for MirrorKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let pairs = pad_pairs(ctx.input(1)?, x.shape().len())?;
        let out = if self.grad {
            let mut in_shape = Vec::with_capacity(pairs.len());
            for (&d, &(b, a)) in x.shape().iter().zip(&pairs) {
                in_shape.push(d.checked_sub(b + a).ok_or_else(|| {
                    Error::invalid_argument(format!("paddings {b}, {a} exceed the gradient's dimension size {d}"))
                })?);
            }
            self.check(&in_shape, &pairs)?;
            crate::dispatch_numeric!(x.dtype(), T => mirror_pad_grad::<T>(x, &in_shape, &pairs, self.mode)?,
                _ => ff_bail!(InvalidArgument, "MirrorPadGrad: no kernel for {}", x.dtype()))
        } else {
            self.check(x.shape(), &pairs)?;
            mirror_pad(x, &pairs, self.mode)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

impl MirrorKernel {
    /// TF's limits: REFLECT pads less than each dimension, SYMMETRIC at most it.
    fn check(&self, shape: &[usize], pairs: &[(usize, usize)]) -> Result<()> {
        for (&d, &(b, a)) in shape.iter().zip(pairs) {
            match self.mode {
                MirrorMode::Reflect if b >= d || a >= d => ff_bail!(
                    InvalidArgument,
                    "paddings must be less than the dimension size: {b}, {a} not less than {d}"
                ),
                MirrorMode::Symmetric if b > d || a > d => ff_bail!(
                    InvalidArgument,
                    "paddings must be no greater than the dimension size: {b}, {a} greater than {d}"
                ),
                _ => {}
            }
        }
        Ok(())
    }
}

struct SplitKernel {
    v: SplitInputs,
    n: usize,
}

/// `Split` and `SplitV`.
pub(crate) fn split_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SplitKernel { v: split_inputs(b.node.op_type()), n: b.node.outputs.len() }))
}

impl OpKernel for SplitKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(self.v.value)?;
        let axis = scalar_int(ctx.input(self.v.axis)?, "split_dim")?;
        let rank = x.shape().len();
        let ax = normalize_axis(axis, rank)
            .ok_or_else(|| Error::invalid_argument(format!("-{rank} <= split_dim < {rank}, got {axis}")))?;
        let sizes = self.v.sizes.map(|i| ctx.input(i).and_then(int_values)).transpose()?;
        let parts = split_sizes(Some(x.shape()[ax]), self.n, sizes.as_deref())?;
        let mut begin = vec![0usize; rank];
        let mut outs = Vec::with_capacity(self.n);
        for p in parts {
            let mut size = x.shape().to_vec();
            size[ax] = p.unwrap_or(0);
            outs.push(slice(x, &begin, &size)?);
            begin[ax] += size[ax];
        }
        for (i, t) in outs.into_iter().enumerate() {
            ctx.set_output(i, t);
        }
        Ok(())
    }
}

/// `OneHot`: the depth axis goes at `axis` (-1: last).
struct OneHotKernel {
    axis: i64,
}

impl OpKernel for OneHotKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        one_hot_compute(ctx, self.axis)
    }
}

fn one_hot_compute(ctx: &mut OpContext<'_>, axis: i64) -> Result<()> {
    let idx = ctx.input(0)?;
    let indices: Vec<i64> = match idx.dtype() {
        DType::UInt8 => idx.as_slice::<u8>()?.iter().map(|&v| i64::from(v)).collect(),
        _ => int_values(idx)?.into_vec(),
    };
    let depth = scalar_int(ctx.input(1)?, "depth")?;
    let depth = usize::try_from(depth)
        .map_err(|_| Error::invalid_argument(format!("depth must be non-negative, got: {depth}")))?;
    let (on, off) = (ctx.input(2)?, ctx.input(3)?);
    let rank = idx.shape().len();
    let pos = if axis < 0 { rank } else { usize::try_from(axis).unwrap_or(rank).min(rank) };
    let outer: usize = idx.shape()[..pos].iter().product();
    let inner: usize = idx.shape()[pos..].iter().product();
    let mut shape = idx.shape().to_vec();
    shape.insert(pos, depth);
    // Output element (o, d, i) is `on` where indices[o * inner + i] == d.
    let mut out = crate::kernels::array::fill(&shape, off)?;
    let e = on.dtype().size();
    if on.dtype() == DType::String {
        ff_bail!(InvalidArgument, "OneHot does not support string values");
    }
    let on_bytes = on.as_bytes()?.to_vec();
    let dst = out.as_mut_bytes()?;
    for o in 0..outer {
        for i in 0..inner {
            if let Ok(d) = usize::try_from(indices[o * inner + i])
                && d < depth
            {
                let k = (o * depth + d) * inner + i;
                dst[k * e..(k + 1) * e].copy_from_slice(&on_bytes);
            }
        }
    }
    ctx.set_output(0, out);
    Ok(())
}

struct StridedKernel {
    masks: Masks,
    grad: bool,
}

/// `StridedSlice` and `StridedSliceGrad`.
pub(crate) fn strided_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(StridedKernel {
        masks: Masks::from_attrs(&b.node.attrs),
        grad: b.node.op_type() == "StridedSliceGrad",
    }))
}

impl OpKernel for StridedKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let shape: Vec<usize> = if self.grad {
            dims_from(&int_values(ctx.input(0)?)?, "shape")?.into_vec()
        } else {
            ctx.input(0)?.shape().to_vec()
        };
        let spec: Vec<Vec<i64>> = (1..4)
            .map(|i| ctx.input(i).and_then(int_values).map(smallvec::SmallVec::into_vec))
            .collect::<Result<_>>()?;
        let dims: Vec<Dim> = shape.iter().map(|&d| Some(d)).collect();
        let r = resolve(&dims, &spec[0], &spec[1], &spec[2], self.masks)?;
        let begin: Vec<usize> = r.dims.iter().map(|d| d.begin.unwrap_or(0)).collect();
        let step: Vec<isize> = r.dims.iter().map(|d| d.step).collect();
        let size: Vec<usize> = r.dims.iter().map(|d| d.size.unwrap_or(0)).collect();
        let out_shape: Vec<usize> = r.output.iter().map(|d| d.unwrap_or(0)).collect();
        let out = if self.grad {
            let dy = ctx.input(4)?;
            if dy.num_elements() != size.iter().product::<usize>() {
                ff_bail!(
                    InvalidArgument,
                    "shape of dy was {} instead of {}",
                    fmt_shape(dy.shape()),
                    fmt_shape(&out_shape)
                );
            }
            strided_scatter(&dy.reshaped(&size)?, &shape, &begin, &step)?
        } else {
            strided_gather(ctx.input(0)?, &begin, &step, &size)?.reshaped(&out_shape)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `Tile`.
pub(crate) fn tile_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(tile_compute)
}

/// `Pad` and `PadV2`.
pub(crate) fn pad_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(pad_compute)
}

/// `OneHot`.
pub(crate) fn one_hot_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(OneHotKernel { axis: b.node.attr_or::<i64>("axis", -1)? }))
}
