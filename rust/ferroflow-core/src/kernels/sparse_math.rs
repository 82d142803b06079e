//! Arithmetic and slicing kernels of sparse tensors (TF's `sparse_tensor_dense_add_op`,
//! `sparse_dense_binary_op_shared`, `sparse_sparse_binary_op_shared`,
//! `sparse_softmax_op`, `sparse_slice_op`, `sparse_slice_grad_op`, `sparse_split_op`).
//! The index bookkeeping (`Sp`, validation, element copies) is `kernels/sparse.rs`'s.
use std::cmp::Ordering;

use super::num::{Float, Num};
use super::sparse::{Elems, Sp, flat, fmt_idx, sparse_in, to_i64, validate, vec_i64};
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::error::Result;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;
use crate::{dispatch_float, dispatch_numeric};

// ---- SparseTensorDenseAdd -------------------------------------------------------

fn tensor_dense_add_typed<T: Num>(sp: &Sp, vals: &Tensor, dense: &Tensor) -> Result<Tensor> {
    let dims = dense.shape().to_vec();
    let mut out = dense.as_slice::<T>()?.to_vec();
    let v = vals.as_slice::<T>()?;
    for (i, x) in v.iter().enumerate() {
        let o = flat(sp.row(i), &dims);
        out[o] = out[o].add(*x);
    }
    Tensor::from_slice(&dims, &out)
}

fn tensor_dense_add_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (ind, vals, shape, dense) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
    if ind.shape().len() != 2 {
        ff_bail!(InvalidArgument, "Input a_indices should be a matrix but received shape: {}", fmt_shape(ind.shape()));
    }
    if vals.shape().len() != 1 || shape.shape().len() != 1 {
        ff_bail!(
            InvalidArgument,
            "Inputs a_values and a_shape should be vectors but received shapes: {} and {}",
            fmt_shape(vals.shape()),
            fmt_shape(shape.shape())
        );
    }
    if shape.num_elements() != dense.shape().len() {
        ff_bail!(
            InvalidArgument,
            "Two operands have different ranks; received: {} and {}",
            shape.num_elements(),
            dense.shape().len()
        );
    }
    let sp = sparse_in(ind, Some(vals), shape)?;
    for (i, (s, d)) in sp.shape.iter().zip(dense.shape()).enumerate() {
        if *s != to_i64(*d) {
            ff_bail!(
                InvalidArgument,
                "Dimension {i} does not equal (no broadcasting is supported): sparse side {s} vs dense side {d}"
            );
        }
    }
    validate(&sp, false)?;
    let dtype = dense.dtype();
    let out = dispatch_numeric!(dtype, T => tensor_dense_add_typed::<T>(&sp, vals, dense)?,
        _ => ff_bail!(InvalidArgument, "SparseTensorDenseAdd has no kernel for {dtype}"));
    ctx.set_output(0, out);
    Ok(())
}

/// `SparseTensorDenseAdd`: a dense tensor plus a sparse one of the same shape.
pub(crate) fn sparse_tensor_dense_add_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(tensor_dense_add_compute)
}

// ---- SparseDenseCwise{Add,Mul,Div} ----------------------------------------------

#[derive(Clone, Copy)]
enum CwiseOp {
    Add,
    Mul,
    Div,
}

/// The flat offset in `dense` (right-aligned, size-1 dimensions broadcast) of the
/// sparse index `ix`, or None when `ix` is outside the broadcast shape.
fn dense_offset(ix: &[i64], sparse_dims: &[i64], dense_dims: &[usize]) -> Option<usize> {
    let lead = ix.len() - dense_dims.len();
    let mut off = 0usize;
    for (j, &d) in dense_dims.iter().enumerate() {
        let x = usize::try_from(ix[lead + j]).ok()?;
        if i64::try_from(x).ok()? >= sparse_dims[lead + j] {
            return None;
        }
        off = off * d + if d == 1 { 0 } else { x };
    }
    Some(off)
}

fn cwise_typed<T: Num>(op: CwiseOp, sp: &Sp, vals: &Tensor, dense: &Tensor, integer: bool) -> Result<Tensor> {
    let (v, d) = (vals.as_slice::<T>()?, dense.as_slice::<T>()?);
    let mut out = Vec::with_capacity(v.len());
    for (i, x) in v.iter().enumerate() {
        let Some(o) = dense_offset(sp.row(i), &sp.shape, dense.shape()) else {
            ff_bail!(InvalidArgument, "Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape");
        };
        out.push(match op {
            CwiseOp::Add => x.add(d[o]),
            CwiseOp::Mul => x.mul(d[o]),
            CwiseOp::Div => {
                if integer && d[o].is_zero() {
                    ff_bail!(InvalidArgument, "Integer division by zero");
                }
                x.div(d[o])
            }
        });
    }
    Tensor::from_slice(&[v.len()], &out)
}

struct SparseDenseCwise(CwiseOp);

impl OpKernel for SparseDenseCwise {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (ind, vals, shape, dense) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
        if ind.shape().len() != 2 {
            ff_bail!(
                InvalidArgument,
                "Input sp_indices should be a matrix but received shape: {}",
                fmt_shape(ind.shape())
            );
        }
        if vals.shape().len() != 1 || shape.shape().len() != 1 {
            ff_bail!(
                InvalidArgument,
                "Inputs sp_values and sp_shape should be vectors but received shapes: {} and {}",
                fmt_shape(vals.shape()),
                fmt_shape(shape.shape())
            );
        }
        let sp = sparse_in(ind, Some(vals), shape)?;
        // TF broadcasts the dense side to the sparse shape only.
        let (lhs, rhs) = (&sp.shape, dense.shape());
        let fits =
            lhs.len() >= rhs.len() && rhs.iter().rev().zip(lhs.iter().rev()).all(|(d, s)| *d == 1 || to_i64(*d) == *s);
        if !fits {
            ff_bail!(
                InvalidArgument,
                "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: [{}] vs. [{}]",
                fmt_idx(lhs),
                rhs.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
            );
        }
        let dtype = vals.dtype();
        let integer = !dtype.is_floating();
        let out = dispatch_numeric!(dtype, T => cwise_typed::<T>(self.0, &sp, vals, dense, integer)?,
            _ => ff_bail!(InvalidArgument, "SparseDenseCwise has no kernel for {dtype}"));
        ctx.set_output(0, out);
        Ok(())
    }
}

/// `SparseDenseCwiseAdd`.
pub(crate) fn sparse_dense_cwise_add_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SparseDenseCwise(CwiseOp::Add)))
}

/// `SparseDenseCwiseMul`.
pub(crate) fn sparse_dense_cwise_mul_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SparseDenseCwise(CwiseOp::Mul)))
}

/// `SparseDenseCwiseDiv`.
pub(crate) fn sparse_dense_cwise_div_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SparseDenseCwise(CwiseOp::Div)))
}

// ---- SparseSparseMaximum / SparseSparseMinimum ----------------------------------

/// The union of two sparse tensors' entries (both in row-major order, as TF
/// requires), each side's value or 0 where it has none, combined by `f`.
fn union_typed<T: Num>(a: &Sp, av: &Tensor, b: &Sp, bv: &Tensor, f: fn(T, T) -> T) -> Result<(Vec<i64>, Tensor)> {
    let (x, y) = (av.as_slice::<T>()?, bv.as_slice::<T>()?);
    let (mut i, mut j) = (0, 0);
    let mut ix = Vec::with_capacity((a.n + b.n) * a.rank);
    let mut out = Vec::with_capacity(a.n + b.n);
    while i < a.n || j < b.n {
        let order = match (i < a.n, j < b.n) {
            (true, true) => a.row(i).cmp(b.row(j)),
            (true, false) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match order {
            Ordering::Less => {
                ix.extend_from_slice(a.row(i));
                out.push(f(x[i], T::ZERO));
                i += 1;
            }
            Ordering::Equal => {
                ix.extend_from_slice(a.row(i));
                out.push(f(x[i], y[j]));
                i += 1;
                j += 1;
            }
            Ordering::Greater => {
                ix.extend_from_slice(b.row(j));
                out.push(f(T::ZERO, y[j]));
                j += 1;
            }
        }
    }
    let n = out.len();
    Ok((ix, Tensor::from_slice(&[n], &out)?))
}

struct SparseSparseBinary {
    max: bool,
}

impl OpKernel for SparseSparseBinary {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (ai, av, ashape) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
        let (bi, bv, bshape) = (ctx.input(3)?, ctx.input(4)?, ctx.input(5)?);
        if ai.shape().len() != 2 || bi.shape().len() != 2 {
            ff_bail!(
                InvalidArgument,
                "Inputs a_indices and b_indices should be matrices but received shapes: {}, {}",
                fmt_shape(ai.shape()),
                fmt_shape(bi.shape())
            );
        }
        if av.shape().len() != 1 || bv.shape().len() != 1 {
            ff_bail!(
                InvalidArgument,
                "Inputs a_values and b_values should be vectors but received shapes: {} and {}",
                fmt_shape(av.shape()),
                fmt_shape(bv.shape())
            );
        }
        if ashape.shape() != bshape.shape() {
            ff_bail!(
                InvalidArgument,
                "Operands do not have the same ranks; got shapes: {} and {}",
                fmt_shape(ashape.shape()),
                fmt_shape(bshape.shape())
            );
        }
        let a = sparse_in(ai, Some(av), ashape)?;
        let b = sparse_in(bi, Some(bv), bshape)?;
        for (i, (x, y)) in a.shape.iter().zip(&b.shape).enumerate() {
            if x != y {
                ff_bail!(InvalidArgument, "Operands' shapes do not match: got {x} and {y} for dimension {i}");
            }
        }
        let dtype = av.dtype();
        let max = self.max;
        let (ix, vals) = dispatch_numeric!(dtype, T => {
            let f: fn(T, T) -> T = if max { Num::max } else { Num::min };
            union_typed::<T>(&a, av, &b, bv, f)?
        }, _ => ff_bail!(InvalidArgument, "SparseSparseMaximum has no kernel for {dtype}"));
        let n = vals.num_elements();
        ctx.set_output(0, Sp::indices_tensor(ix, n, a.rank)?);
        ctx.set_output(1, vals);
        Ok(())
    }
}

/// `SparseSparseMaximum`.
pub(crate) fn sparse_sparse_maximum_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SparseSparseBinary { max: true }))
}

/// `SparseSparseMinimum`.
pub(crate) fn sparse_sparse_minimum_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SparseSparseBinary { max: false }))
}

// ---- SparseSoftmax --------------------------------------------------------------

/// Softmax over each run of entries sharing all but the last index (TF groups
/// consecutive entries: the input is expected in row-major order).
fn softmax_typed<T: Float>(sp: &Sp, vals: &Tensor) -> Result<Tensor> {
    let v = vals.as_slice::<T>()?;
    let mut out = vec![T::ZERO; v.len()];
    let prefix = sp.rank - 1;
    let mut start = 0;
    while start < sp.n {
        let mut end = start + 1;
        while end < sp.n && sp.row(end)[..prefix] == sp.row(start)[..prefix] {
            end += 1;
        }
        let group = &v[start..end];
        let max = group.iter().copied().fold(T::LOWEST, Num::max);
        let mut sum = T::ZERO;
        for (o, x) in out[start..end].iter_mut().zip(group) {
            *o = x.sub(max).exp();
            sum = sum.add(*o);
        }
        for o in &mut out[start..end] {
            *o = o.div(sum);
        }
        start = end;
    }
    Tensor::from_slice(&[v.len()], &out)
}

fn softmax_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (ind, vals, shape) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    if ind.shape().len() != 2 {
        ff_bail!(InvalidArgument, "Input should be a matrix but received shape: {}", fmt_shape(ind.shape()));
    }
    if vals.shape().len() != 1 || shape.shape().len() != 1 {
        ff_bail!(
            InvalidArgument,
            "Inputs values and shape should be vectors but received shapes: {} and {}",
            fmt_shape(vals.shape()),
            fmt_shape(shape.shape())
        );
    }
    if shape.num_elements() < 2 {
        ff_bail!(InvalidArgument, "Input should have rank >= 2, but received shape: {}", fmt_idx(&vec_i64(shape)?));
    }
    let sp = sparse_in(ind, Some(vals), shape)?;
    let dtype = vals.dtype();
    let out = dispatch_float!(dtype, T => softmax_typed::<T>(&sp, vals)?,
        _ => ff_bail!(InvalidArgument, "SparseSoftmax has no kernel for {dtype}"));
    ctx.set_output(0, out);
    Ok(())
}

/// `SparseSoftmax`.
pub(crate) fn sparse_softmax_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(softmax_compute)
}

// ---- SparseSlice / SparseSliceGrad ----------------------------------------------

fn vector_input(t: &Tensor, what: &str) -> Result<Vec<i64>> {
    if t.shape().len() != 1 {
        ff_bail!(InvalidArgument, "Input {what} should be a vector but received shape {}", fmt_shape(t.shape()));
    }
    vec_i64(t)
}

fn slice_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (ind, vals, shape) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let start = vector_input(ctx.input(3)?, "start")?;
    let size = vector_input(ctx.input(4)?, "size")?;
    let sp = sparse_in(ind, Some(vals), shape)?;
    for (v, what) in [(&start, "start"), (&size, "size")] {
        if v.len() != sp.rank {
            ff_bail!(
                InvalidArgument,
                "Expected {what} to be a vector of length {} but got length {}",
                sp.rank,
                v.len()
            );
        }
    }
    // TF's `SparseTensor::Slice`: each dimension keeps `size`, less what runs past
    // the end (never below 0).
    let out_shape: Vec<i64> = (0..sp.rank)
        .map(|d| {
            let (st, sz, dim) = (start[d], size[d], sp.shape[d]);
            Ord::max(if st.saturating_add(sz) < dim { sz } else { dim.saturating_sub(st) }, 0)
        })
        .collect();
    let mut ix = Vec::new();
    let mut kept = Vec::new();
    for i in 0..sp.n {
        let r = sp.row(i);
        let hit = (0..sp.rank).all(|d| r[d] >= start[d] && r[d] < start[d].saturating_add(out_shape[d]));
        if hit {
            ix.extend((0..sp.rank).map(|d| r[d] - start[d]));
            kept.push(i);
        }
    }
    let mut values = Elems::new(vals.dtype());
    for &i in &kept {
        values.push(vals, i)?;
    }
    let values = values.into_tensor(vals.dtype(), &[kept.len()])?;
    ctx.set_output(0, Sp::indices_tensor(ix, kept.len(), sp.rank)?);
    ctx.set_output(1, values);
    ctx.set_output(2, Tensor::from_slice(&[sp.rank], &out_shape)?);
    Ok(())
}

/// `SparseSlice`.
pub(crate) fn sparse_slice_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(slice_compute)
}

fn slice_grad_typed<T: Num>(grad: &Tensor, input: &Sp, start: &[i64], output: &[i64]) -> Result<Tensor> {
    let g = grad.as_slice::<T>()?;
    let mut out = vec![T::ZERO; input.n];
    let rank = input.rank;
    let mut j = 0;
    for (i, o) in out.iter_mut().enumerate() {
        if j >= g.len() {
            break;
        }
        let r = input.row(i);
        let Some(want) = output.get(j * rank..(j + 1) * rank) else { break };
        if (0..rank).all(|d| r[d] == want[d].wrapping_add(start[d])) {
            *o = g[j];
            j += 1;
        }
    }
    if j != g.len() {
        ff_bail!(Internal, "Elements of backprop_val_grad aren't all propagated. Num elements:{}, used: {j}", g.len());
    }
    Tensor::from_slice(&[input.n], &out)
}

fn slice_grad_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (grad, input_ind, start, output_ind) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
    if input_ind.shape().len() != 2 || output_ind.shape().len() != 2 {
        ff_bail!(
            InvalidArgument,
            "Input and output indices should be matrices but received shapes: {} and {}",
            fmt_shape(input_ind.shape()),
            fmt_shape(output_ind.shape())
        );
    }
    if grad.shape().len() != 1 {
        ff_bail!(
            InvalidArgument,
            "Input backprop_val_grad should be a vector but received shape: {}",
            fmt_shape(grad.shape())
        );
    }
    if grad.shape()[0] != output_ind.shape()[0] {
        ff_bail!(
            InvalidArgument,
            "Number of output indices does not match number of output gradients: {} vs. {}",
            output_ind.shape()[0],
            grad.shape()[0]
        );
    }
    let rank = input_ind.shape()[1];
    let start = vector_input(start, "start")?;
    if start.len() != rank || output_ind.shape()[1] != rank {
        ff_bail!(
            InvalidArgument,
            "Expected input_start to be a vector of length {rank} but with length {}",
            start.len()
        );
    }
    let input = Sp { ix: vec_i64(input_ind)?, n: input_ind.shape()[0], rank, shape: Vec::new() };
    let output = vec_i64(output_ind)?;
    let dtype = grad.dtype();
    let out = dispatch_numeric!(dtype, T => slice_grad_typed::<T>(grad, &input, &start, &output)?,
        _ => ff_bail!(InvalidArgument, "SparseSliceGrad has no kernel for {dtype}"));
    ctx.set_output(0, out);
    Ok(())
}

/// `SparseSliceGrad`: the gradient of the sliced values, back at the input's entries.
pub(crate) fn sparse_slice_grad_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(slice_grad_compute)
}

// ---- SparseSplit ----------------------------------------------------------------

struct SparseSplit {
    num_split: usize,
}

impl OpKernel for SparseSplit {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let axis_t = ctx.input(0)?;
        if !axis_t.shape().is_empty() {
            ff_bail!(InvalidArgument, "split_dim should be a scalar, got shape {}", fmt_shape(axis_t.shape()));
        }
        let axis = vec_i64(axis_t)?[0];
        let (ind, vals, shape) = (ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
        let sp = sparse_in(ind, Some(vals), shape)?;
        let rank = to_i64(sp.rank);
        if !(-rank..rank).contains(&axis) {
            ff_bail!(InvalidArgument, "Input split_dim should be between {} and {}, got {axis}", -rank, rank);
        }
        let axis = usize::try_from(if axis < 0 { axis + rank } else { axis }).unwrap_or(0);
        let dim = sp.shape[axis];
        let k = to_i64(self.num_split);
        if k < 1 || k > dim {
            ff_bail!(
                InvalidArgument,
                "Input num_split should be between 1 and the splitting dimension size ({dim}), got {}",
                self.num_split
            );
        }
        validate(&sp, false)?;
        // TF's `SparseTensor::Split`: the first `dim % k` slices are one longer.
        let (size, residual) = (dim / k, dim % k);
        let slice_of = |x: i64| -> (usize, i64) {
            let big = residual * (size + 1);
            let (s, begin) = if x < big {
                (x / (size + 1), (x / (size + 1)) * (size + 1))
            } else {
                let s = residual + (x - big) / size;
                (s, big + (s - residual) * size)
            };
            (usize::try_from(s).unwrap_or(0), x - begin)
        };
        let mut parts: Vec<(Vec<i64>, Elems)> =
            (0..self.num_split).map(|_| (Vec::new(), Elems::new(vals.dtype()))).collect();
        for i in 0..sp.n {
            let r = sp.row(i);
            let (s, local) = slice_of(r[axis]);
            let (ix, values) = &mut parts[s];
            ix.extend(r.iter().enumerate().map(|(d, x)| if d == axis { local } else { *x }));
            values.push(vals, i)?;
        }
        let n = self.num_split;
        let mut outputs = vec![None; 3 * n];
        for (s, (ix, values)) in parts.into_iter().enumerate() {
            let rows = ix.len() / sp.rank.max(1);
            let mut part_shape = sp.shape.clone();
            part_shape[axis] = size + i64::from(to_i64(s) < residual);
            outputs[s] = Some(Sp::indices_tensor(ix, rows, sp.rank)?);
            outputs[n + s] = Some(values.into_tensor(vals.dtype(), &[rows])?);
            outputs[2 * n + s] = Some(Tensor::from_slice(&[sp.rank], &part_shape)?);
        }
        for (i, t) in outputs.into_iter().enumerate() {
            if let Some(t) = t {
                ctx.set_output(i, t);
            }
        }
        Ok(())
    }
}

/// `SparseSplit`.
pub(crate) fn sparse_split_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let num_split = b.node.attr_or::<i64>("num_split", 1)?;
    Ok(Box::new(SparseSplit { num_split: usize::try_from(num_split).unwrap_or(0) }))
}
