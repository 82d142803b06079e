//! Kernels of TF's sparse-tensor ops (shapes in `ops/sparse.rs`). A sparse tensor is
//! three tensors: int64 `indices` `[N, rank]`, `values` `[N]` and int64 `dense_shape`
//! `[rank]`. Index bookkeeping is shared; values move as elements of any dtype, and the
//! arithmetic ones (`SparseAdd`, sums, products, segment reductions) dispatch on the
//! numeric type.
use std::cmp::Ordering;
use std::collections::BTreeMap;

use prost::Message;

use super::num::{Float, Num};
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::tensor_util::int_values;
use crate::shape::{checked_num_elements, fmt_shape};
use crate::tensor::Tensor;
use crate::{dispatch_float, dispatch_numeric};

// ---- shared helpers -------------------------------------------------------------

/// Elements of any dtype, built by copying from source tensors.
pub(super) enum Elems {
    Bytes(Vec<u8>, usize),
    Strs(Vec<Vec<u8>>),
}

impl Elems {
    pub(super) fn new(dtype: DType) -> Elems {
        if dtype == DType::String { Elems::Strs(Vec::new()) } else { Elems::Bytes(Vec::new(), dtype.size()) }
    }
    /// `n` copies of element `i` of `src`.
    fn filled(src: &Tensor, i: usize, n: usize) -> Result<Elems> {
        let mut e = Elems::new(src.dtype());
        for _ in 0..n {
            e.push(src, i)?;
        }
        Ok(e)
    }
    pub(super) fn push(&mut self, src: &Tensor, i: usize) -> Result<()> {
        match self {
            Elems::Strs(v) => v.push(src.as_strings()?[i].clone()),
            Elems::Bytes(v, s) => v.extend_from_slice(&src.as_bytes()?[i * *s..(i + 1) * *s]),
        }
        Ok(())
    }
    fn set(&mut self, dst: usize, src: &Tensor, i: usize) -> Result<()> {
        match self {
            Elems::Strs(v) => v[dst].clone_from(&src.as_strings()?[i]),
            Elems::Bytes(v, s) => v[dst * *s..(dst + 1) * *s].copy_from_slice(&src.as_bytes()?[i * *s..(i + 1) * *s]),
        }
        Ok(())
    }
    pub(super) fn into_tensor(self, dtype: DType, shape: &[usize]) -> Result<Tensor> {
        match self {
            Elems::Strs(v) => Tensor::from_strings(shape, v),
            Elems::Bytes(v, _) => Tensor::from_bytes(dtype, shape, &v),
        }
    }
}

/// `values[i]` of a 1-D tensor picked by `order`, any dtype.
pub(super) fn pick(values: &Tensor, order: &[usize]) -> Result<Tensor> {
    let mut e = Elems::new(values.dtype());
    for &i in order {
        e.push(values, i)?;
    }
    e.into_tensor(values.dtype(), &[order.len()])
}

/// A validated sparse tensor's indices (`n` rows of `rank`) and dense shape.
pub(super) struct Sp {
    pub(super) ix: Vec<i64>,
    pub(super) n: usize,
    pub(super) rank: usize,
    pub(super) shape: Vec<i64>,
}

impl Sp {
    pub(super) fn row(&self, i: usize) -> &[i64] {
        &self.ix[i * self.rank..(i + 1) * self.rank]
    }
    pub(super) fn indices_tensor(ix: Vec<i64>, n: usize, rank: usize) -> Result<Tensor> {
        Tensor::from_slice(&[n, rank], &ix)
    }
}

pub(super) fn vec_i64(t: &Tensor) -> Result<Vec<i64>> {
    int_values(t).map(smallvec::SmallVec::into_vec)
}

/// Checks `indices` is a matrix, `values` a vector of as many rows (when given) and
/// `shape` a vector of as many elements as indices has columns (TF's messages).
pub(super) fn sparse_in(indices: &Tensor, values: Option<&Tensor>, shape: &Tensor) -> Result<Sp> {
    if indices.shape().len() != 2 {
        ff_bail!(InvalidArgument, "Input indices should be a matrix but received shape {}", fmt_shape(indices.shape()));
    }
    if let Some(v) = values
        && v.shape().len() != 1
    {
        ff_bail!(InvalidArgument, "Input values should be a vector but received shape {}", fmt_shape(v.shape()));
    }
    if shape.shape().len() != 1 {
        ff_bail!(InvalidArgument, "Input shape should be a vector but received shape {}", fmt_shape(shape.shape()));
    }
    let (n, rank) = (indices.shape()[0], indices.shape()[1]);
    if let Some(v) = values
        && v.shape()[0] != n
    {
        ff_bail!(
            InvalidArgument,
            "Number of values must match first dimension of indices. Got {} values, indices shape: {}",
            v.shape()[0],
            fmt_shape(indices.shape())
        );
    }
    if shape.shape()[0] != rank {
        ff_bail!(
            InvalidArgument,
            "Number of dimensions must match second dimension of indices. Got {} dimensions, indices shape: {}",
            shape.shape()[0],
            fmt_shape(indices.shape())
        );
    }
    let shape = vec_i64(shape)?;
    if let Some(d) = shape.iter().find(|d| **d < 0) {
        ff_bail!(InvalidArgument, "Dense shape dimensions must be non-negative, got {d} in {shape:?}");
    }
    Ok(Sp { ix: vec_i64(indices)?, n, rank, shape })
}

pub(super) fn fmt_idx(ix: &[i64]) -> String {
    ix.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

/// TF's `SparseTensor::IndicesValid`: in bounds, and (with `ordered`) strictly
/// increasing in row-major order.
pub(super) fn validate(sp: &Sp, ordered: bool) -> Result<()> {
    for i in 0..sp.n {
        let r = sp.row(i);
        if r.iter().zip(&sp.shape).any(|(x, d)| !(0..*d).contains(x)) {
            ff_bail!(
                InvalidArgument,
                "indices[{i}] = [{}] is out of bounds: need 0 <= index < [{}]",
                fmt_idx(r),
                fmt_idx(&sp.shape)
            );
        }
        if ordered && i > 0 {
            match sp.row(i - 1).cmp(r) {
                Ordering::Less => {}
                Ordering::Equal => ff_bail!(InvalidArgument, "indices[{i}] = [{}] is repeated", fmt_idx(r)),
                Ordering::Greater => ff_bail!(
                    InvalidArgument,
                    "indices[{i}] = [{}] is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
                    fmt_idx(r)
                ),
            }
        }
    }
    Ok(())
}

pub(super) fn dims_usize(shape: &[i64]) -> Result<Vec<usize>> {
    let dims: Vec<usize> = shape.iter().map(|d| usize::try_from(*d).unwrap_or(0)).collect();
    checked_num_elements(&dims)?;
    Ok(dims)
}

/// Row-major flat offset of an in-bounds index.
pub(super) fn flat(ix: &[i64], dims: &[usize]) -> usize {
    let mut f = 0usize;
    for (x, d) in ix.iter().zip(dims) {
        f = f * d + usize::try_from(*x).unwrap_or(0);
    }
    f
}

pub(super) fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

// ---- SparseToDense --------------------------------------------------------------

struct SparseToDense {
    validate: bool,
}

impl OpKernel for SparseToDense {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (ind, shape_t, vals, def) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
        if shape_t.shape().len() > 1 {
            ff_bail!(InvalidArgument, "output_shape must be rank 1, got shape {}", fmt_shape(shape_t.shape()));
        }
        let shape = vec_i64(shape_t)?;
        if let Some(d) = shape.iter().find(|d| **d < 0) {
            ff_bail!(InvalidArgument, "output_shape has negative dimension {d}");
        }
        let (n, cols) = match ind.shape() {
            [] => (1, 1),
            [n] => (*n, 1),
            [n, c] => (*n, *c),
            s => ff_bail!(
                InvalidArgument,
                "sparse_indices should be a scalar, vector, or matrix, got shape {}",
                fmt_shape(s)
            ),
        };
        if cols != shape.len() {
            ff_bail!(
                InvalidArgument,
                "sparse_indices[0].shape must match output_shape: got {cols} columns for output_shape of {} elements",
                shape.len()
            );
        }
        let scalar_values = vals.shape().is_empty();
        if !(scalar_values || vals.shape() == [n]) {
            ff_bail!(
                InvalidArgument,
                "sparse_values has incorrect shape {}, should be [] or [{n}]",
                fmt_shape(vals.shape())
            );
        }
        if !def.shape().is_empty() {
            ff_bail!(InvalidArgument, "default_value should be a scalar.");
        }
        let sp = Sp { ix: vec_i64(ind)?, n, rank: cols, shape };
        validate(&sp, self.validate)?;
        let dims = dims_usize(&sp.shape)?;
        let total = checked_num_elements(&dims)?;
        let mut out = Elems::filled(def, 0, total)?;
        for i in 0..n {
            out.set(flat(sp.row(i), &dims), vals, if scalar_values { 0 } else { i })?;
        }
        let t = out.into_tensor(vals.dtype(), &dims)?;
        ctx.set_output(0, t);
        Ok(())
    }
}

/// `SparseToDense`.
pub(crate) fn sparse_to_dense_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SparseToDense { validate: b.node.attr_or::<bool>("validate_indices", true)? }))
}

// ---- SparseReorder --------------------------------------------------------------

fn sorted_order(sp: &Sp) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sp.n).collect();
    order.sort_by(|a, b| sp.row(*a).cmp(sp.row(*b)));
    order
}

fn gather_rows(sp: &Sp, order: &[usize]) -> Vec<i64> {
    order.iter().flat_map(|i| sp.row(*i).iter().copied()).collect()
}

fn reorder_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (ind, vals, shape) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    // As TF: the indices are only sorted, never checked against the shape.
    let sp = sparse_in(ind, Some(vals), shape)?;
    let order = sorted_order(&sp);
    let (ix, v) = (Sp::indices_tensor(gather_rows(&sp, &order), sp.n, sp.rank)?, pick(vals, &order)?);
    ctx.set_output(0, ix);
    ctx.set_output(1, v);
    Ok(())
}

/// `SparseReorder`.
pub(crate) fn sparse_reorder_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(reorder_compute)
}

// ---- SparseReshape --------------------------------------------------------------

fn reshape_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (ind, shape, new_t) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let sp = sparse_in(ind, None, shape)?;
    if new_t.shape().len() != 1 {
        ff_bail!(InvalidArgument, "Target shape should be a vector but received shape {}", fmt_shape(new_t.shape()));
    }
    let wanted = vec_i64(new_t)?;
    let dense_size = sp
        .shape
        .iter()
        .try_fold(1i64, |a, d| a.checked_mul(*d))
        .ok_or_else(|| Error::invalid_argument(format!("Input shape {:?} has too many elements", sp.shape)))?;
    let mut unknown = None;
    let mut product = 1i64;
    for (d, &s) in wanted.iter().enumerate() {
        if s == -1 {
            if let Some(u) = unknown {
                ff_bail!(InvalidArgument, "only one output dimension may be -1, not both {u} and {d}");
            }
            unknown = Some(d);
        } else if s < 0 {
            ff_bail!(InvalidArgument, "size {d} must be non-negative, not {s}");
        } else {
            product = product
                .checked_mul(s)
                .ok_or_else(|| Error::invalid_argument(format!("Target shape {wanted:?} has too many elements")))?;
        }
    }
    let mut out_shape = wanted.clone();
    if let Some(u) = unknown {
        if product == 0 || dense_size % product != 0 {
            ff_bail!(
                InvalidArgument,
                "Input to reshape is a SparseTensor with {dense_size} dense values, but the requested shape requires a multiple of {product}. inputShape={} outputShape={}",
                fmt_idx(&sp.shape),
                fmt_idx(&wanted)
            );
        }
        out_shape[u] = dense_size / product;
    } else if product != dense_size {
        ff_bail!(
            InvalidArgument,
            "Input to reshape is a tensor with {dense_size} dense values, but the requested shape has {product}. inputShape={} outputShape={}",
            fmt_idx(&sp.shape),
            fmt_idx(&wanted)
        );
    }
    let in_dims = dims_usize(&sp.shape)?;
    let out_dims = dims_usize(&out_shape)?;
    let r = out_dims.len();
    let mut out = Vec::with_capacity(sp.n.checked_mul(r).ok_or_else(|| Error::invalid_argument("too many indices"))?);
    for i in 0..sp.n {
        let row = sp.row(i);
        if row.iter().zip(&sp.shape).any(|(x, d)| !(0..*d).contains(x)) {
            ff_bail!(
                InvalidArgument,
                "indices[{i}] = [{}] is out of bounds: need 0 <= index < [{}]",
                fmt_idx(row),
                fmt_idx(&sp.shape)
            );
        }
        let mut f = flat(row, &in_dims);
        let start = out.len();
        out.resize(start + r, 0);
        for d in (0..r).rev() {
            let dim = out_dims[d].max(1);
            out[start + d] = to_i64(f % dim);
            f /= dim;
        }
    }
    ctx.set_output(0, Tensor::from_slice(&[sp.n, r], &out)?);
    ctx.set_output(1, Tensor::from_slice(&[r], &out_shape)?);
    Ok(())
}

/// `SparseReshape`.
pub(crate) fn sparse_reshape_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(reshape_compute)
}

// ---- SparseConcat ---------------------------------------------------------------

struct SparseConcat {
    concat_dim: i64,
}

impl OpKernel for SparseConcat {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let n = ctx.num_inputs() / 3;
        let mut parts = Vec::with_capacity(n);
        for i in 0..n {
            parts.push(sparse_in(ctx.input(i)?, Some(ctx.input(n + i)?), ctx.input(2 * n + i)?)?);
        }
        let rank = parts[0].rank;
        for (i, p) in parts.iter().enumerate().skip(1) {
            if p.rank != rank {
                ff_bail!(
                    InvalidArgument,
                    "Ranks of all input tensors should match: shape[0] = [{}] vs. shape[{i}] = [{}]",
                    fmt_idx(&parts[0].shape),
                    fmt_idx(&p.shape)
                );
            }
        }
        let r = to_i64(rank);
        if !(-r..r).contains(&self.concat_dim) {
            ff_bail!(InvalidArgument, "Concat dimension must be in range [{}, {r}), got {}", -r, self.concat_dim);
        }
        let cd = usize::try_from(if self.concat_dim < 0 { self.concat_dim + r } else { self.concat_dim }).unwrap_or(0);
        for (i, p) in parts.iter().enumerate().skip(1) {
            for (d, (x, y)) in p.shape.iter().zip(&parts[0].shape).enumerate() {
                if d != cd && x != y {
                    ff_bail!(
                        InvalidArgument,
                        "All dimensions except {cd} must match. Input {i} has shape [{}] and doesn't match input 0 with shape [{}].",
                        fmt_idx(&p.shape),
                        fmt_idx(&parts[0].shape)
                    );
                }
            }
        }
        let mut rows: Vec<(Vec<i64>, usize, usize)> = Vec::new();
        let mut offset = 0i64;
        for (pi, p) in parts.iter().enumerate() {
            // Each input in concat-dim-major order first, as TF's kernel reorders it.
            let mut order: Vec<usize> = (0..p.n).collect();
            order.sort_by(|a, b| {
                let (x, y) = (p.row(*a), p.row(*b));
                x[cd].cmp(&y[cd]).then_with(|| x.cmp(y))
            });
            for i in order {
                let mut row = p.row(i).to_vec();
                row[cd] += offset;
                rows.push((row, pi, i));
            }
            offset = offset
                .checked_add(p.shape[cd])
                .ok_or_else(|| Error::invalid_argument("concatenated dimension overflows int64"))?;
        }
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        let dtype = ctx.input(n)?.dtype();
        let mut vals = Elems::new(dtype);
        let mut ix = Vec::with_capacity(rows.len() * rank);
        for (row, pi, i) in &rows {
            ix.extend_from_slice(row);
            vals.push(ctx.input(n + pi)?, *i)?;
        }
        let mut shape = parts[0].shape.clone();
        shape[cd] = offset;
        let total = rows.len();
        let v = vals.into_tensor(dtype, &[total])?;
        ctx.set_output(0, Tensor::from_slice(&[total, rank], &ix)?);
        ctx.set_output(1, v);
        ctx.set_output(2, Tensor::from_slice(&[rank], &shape)?);
        Ok(())
    }
}

/// `SparseConcat`.
pub(crate) fn sparse_concat_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SparseConcat { concat_dim: b.node.required_attr::<i64>("concat_dim")? }))
}

// ---- SparseAdd / SparseAddGrad --------------------------------------------------

fn add_typed<T: Num>(a: &Sp, av: &Tensor, b: &Sp, bv: &Tensor, thresh: T) -> Result<(Vec<i64>, Tensor)> {
    let (av, bv) = (av.as_slice::<T>()?, bv.as_slice::<T>()?);
    let (mut i, mut j) = (0, 0);
    let (mut ix, mut out) = (Vec::new(), Vec::new());
    while i < a.n && j < b.n {
        match a.row(i).cmp(b.row(j)) {
            Ordering::Less => {
                ix.extend_from_slice(a.row(i));
                out.push(av[i]);
                i += 1;
            }
            Ordering::Equal => {
                let s = av[i].add(bv[j]);
                if thresh <= s.abs_val() {
                    ix.extend_from_slice(a.row(i));
                    out.push(s);
                }
                i += 1;
                j += 1;
            }
            Ordering::Greater => {
                ix.extend_from_slice(b.row(j));
                out.push(bv[j]);
                j += 1;
            }
        }
    }
    for (k, v) in av.iter().enumerate().skip(i) {
        ix.extend_from_slice(a.row(k));
        out.push(*v);
    }
    for (k, v) in bv.iter().enumerate().skip(j) {
        ix.extend_from_slice(b.row(k));
        out.push(*v);
    }
    let n = out.len();
    Ok((ix, Tensor::from_slice(&[n], &out)?))
}

fn add_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let a = sparse_in(ctx.input(0)?, Some(ctx.input(1)?), ctx.input(2)?)?;
    let b = sparse_in(ctx.input(3)?, Some(ctx.input(4)?), ctx.input(5)?)?;
    let thresh_t = ctx.input(6)?;
    if !thresh_t.shape().is_empty() {
        ff_bail!(
            InvalidArgument,
            "The magnitude threshold must be a scalar: got shape {}",
            fmt_shape(thresh_t.shape())
        );
    }
    if a.rank != b.rank {
        ff_bail!(
            InvalidArgument,
            "Operands do not have the same ranks; got shapes: {} and {}",
            fmt_idx(&a.shape),
            fmt_idx(&b.shape)
        );
    }
    for (d, (x, y)) in a.shape.iter().zip(&b.shape).enumerate() {
        if x != y {
            ff_bail!(InvalidArgument, "Operands' shapes do not match: got {x} and {y} for dimension {d}");
        }
    }
    let (av, bv) = (ctx.input(1)?, ctx.input(4)?);
    let (ix, vals) = dispatch_numeric!(av.dtype(), T => add_typed::<T>(&a, av, &b, bv, thresh_t.scalar_value::<T>()?)?,
        _ => ff_bail!(InvalidArgument, "SparseAdd has no kernel for {}", av.dtype()));
    let n = vals.shape()[0];
    let shape = a.shape.clone();
    ctx.set_output(0, Sp::indices_tensor(ix, n, a.rank)?);
    ctx.set_output(1, vals);
    ctx.set_output(2, Tensor::from_slice(&[a.rank], &shape)?);
    Ok(())
}

/// `SparseAdd`.
pub(crate) fn sparse_add_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(add_compute)
}

fn matrix_rows(t: &Tensor, what: &str) -> Result<(Vec<i64>, usize, usize)> {
    if t.shape().len() != 2 {
        ff_bail!(InvalidArgument, "Input {what} should be a matrix but received shape: {}", fmt_shape(t.shape()));
    }
    Ok((vec_i64(t)?, t.shape()[0], t.shape()[1]))
}

/// For each row of `sub` (sorted), its position among the rows of `sum` (sorted).
fn match_rows(sub: &[i64], n: usize, sum: &[i64], m: usize, r: usize) -> Vec<Option<usize>> {
    let mut k = 0;
    (0..n)
        .map(|i| {
            let row = &sub[i * r..(i + 1) * r];
            while k < m && &sum[k * r..(k + 1) * r] < row {
                k += 1;
            }
            (k < m && &sum[k * r..(k + 1) * r] == row).then_some(k)
        })
        .collect()
}

fn add_grad_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let grad = ctx.input(0)?;
    let (a, an, ar) = matrix_rows(ctx.input(1)?, "a_indices")?;
    let (b, bn, br) = matrix_rows(ctx.input(2)?, "b_indices")?;
    let (s, sn, sr) = matrix_rows(ctx.input(3)?, "sum_indices")?;
    if ar != sr || br != sr {
        ff_bail!(InvalidArgument, "Indices of a, b and the sum must have the same rank: {ar}, {br} and {sr}");
    }
    if grad.shape() != [sn] {
        ff_bail!(
            InvalidArgument,
            "backprop_val_grad should be a vector of {sn} elements but received shape {}",
            fmt_shape(grad.shape())
        );
    }
    let zero = Tensor::zeros(grad.dtype(), &[])?;
    let mut outs = Vec::with_capacity(2);
    for (rows, n) in [(&a, an), (&b, bn)] {
        let mut out = Elems::filled(&zero, 0, n)?;
        for (i, m) in match_rows(rows, n, &s, sn, sr).into_iter().enumerate() {
            if let Some(m) = m {
                out.set(i, grad, m)?;
            }
        }
        outs.push(out.into_tensor(grad.dtype(), &[n])?);
    }
    for (k, t) in outs.into_iter().enumerate() {
        ctx.set_output(k, t);
    }
    Ok(())
}

/// `SparseAddGrad`.
pub(crate) fn sparse_add_grad_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(add_grad_compute)
}

// ---- SparseReduceSum(Sparse) ----------------------------------------------------

struct ReduceSum {
    keep_dims: bool,
    sparse_out: bool,
    /// `SparseReduceMax(Sparse)`: the maximum of each group's values (the implicit
    /// zeros are not among them; an empty group is 0 in the dense output, as TF).
    max: bool,
}

fn reduce_typed<T: Num>(sp: &Sp, vals: &Tensor, keep: &[bool], max: bool) -> Result<BTreeMap<Vec<i64>, T>> {
    let v = vals.as_slice::<T>()?;
    let mut groups: BTreeMap<Vec<i64>, T> = BTreeMap::new();
    for (i, x) in v.iter().enumerate() {
        let key: Vec<i64> = sp.row(i).iter().zip(keep).filter(|(_, k)| **k).map(|(x, _)| *x).collect();
        let e = groups.entry(key).or_insert(if max { T::LOWEST } else { T::ZERO });
        *e = if max { Num::max(*e, *x) } else { e.add(*x) };
    }
    Ok(groups)
}

impl ReduceSum {
    fn typed<T: Num>(&self, ctx: &mut OpContext<'_>, sp: &Sp, keep: &[bool]) -> Result<()> {
        let groups = reduce_typed::<T>(sp, ctx.input(1)?, keep, self.max)?;
        let kept: Vec<i64> = sp.shape.iter().zip(keep).filter(|(_, k)| **k).map(|(d, _)| *d).collect();
        let out_shape: Vec<i64> = if self.keep_dims {
            sp.shape.iter().zip(keep).map(|(d, k)| if *k { *d } else { 1 }).collect()
        } else {
            kept.clone()
        };
        if self.sparse_out {
            let r = out_shape.len();
            let mut ix = Vec::with_capacity(groups.len() * r);
            let mut vals = Vec::with_capacity(groups.len());
            for (key, v) in &groups {
                if self.keep_dims {
                    let mut it = key.iter();
                    ix.extend(keep.iter().map(|k| if *k { it.next().copied().unwrap_or(0) } else { 0 }));
                } else {
                    ix.extend_from_slice(key);
                }
                vals.push(*v);
            }
            ctx.set_output(0, Tensor::from_slice(&[groups.len(), r], &ix)?);
            ctx.set_output(1, Tensor::from_slice(&[groups.len()], &vals)?);
            ctx.set_output(2, Tensor::from_slice(&[r], &out_shape)?);
        } else {
            let kept_dims = dims_usize(&kept)?;
            let mut out = vec![T::ZERO; checked_num_elements(&kept_dims)?];
            for (key, v) in &groups {
                out[flat(key, &kept_dims)] = *v;
            }
            ctx.set_output(0, Tensor::from_slice(&dims_usize(&out_shape)?, &out)?);
        }
        Ok(())
    }
}

impl OpKernel for ReduceSum {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let sp = sparse_in(ctx.input(0)?, Some(ctx.input(1)?), ctx.input(2)?)?;
        validate(&sp, false)?;
        let axes = vec_i64(ctx.input(3)?)?;
        let r = to_i64(sp.rank);
        let mut keep = vec![true; sp.rank];
        for a in axes {
            if !(-r..r).contains(&a) {
                ff_bail!(InvalidArgument, "Invalid reduction dimension {a}, for input with {r} dimensions.");
            }
            keep[usize::try_from(if a < 0 { a + r } else { a }).unwrap_or(0)] = false;
        }
        let dtype = ctx.input(1)?.dtype();
        let op = if self.max { "SparseReduceMax" } else { "SparseReduceSum" };
        dispatch_numeric!(dtype, T => self.typed::<T>(ctx, &sp, &keep),
            _ => ff_bail!(InvalidArgument, "{op} has no kernel for {dtype}"))
    }
}

fn reduce_kernel(b: &KernelBuild<'_>, sparse_out: bool, max: bool) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ReduceSum { keep_dims: b.node.attr_or::<bool>("keep_dims", false)?, sparse_out, max }))
}

/// `SparseReduceSum`.
pub(crate) fn sparse_reduce_sum_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    reduce_kernel(b, false, false)
}

/// `SparseReduceSumSparse`.
pub(crate) fn sparse_reduce_sum_sparse_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    reduce_kernel(b, true, false)
}

/// `SparseReduceMax`.
pub(crate) fn sparse_reduce_max_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    reduce_kernel(b, false, true)
}

/// `SparseReduceMaxSparse`.
pub(crate) fn sparse_reduce_max_sparse_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    reduce_kernel(b, true, true)
}

// ---- SparseTensorDenseMatMul ----------------------------------------------------

struct MatMul {
    adjoint_a: bool,
    adjoint_b: bool,
}

impl MatMul {
    fn typed<T: Num>(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (ind, vals, shape_t, b) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
        if b.shape().len() != 2 {
            ff_bail!(InvalidArgument, "Tensor 'b' is not a matrix");
        }
        if shape_t.shape() != [2] {
            ff_bail!(InvalidArgument, "Tensor 'a_shape' is not a vector of 2 elements: {}", fmt_shape(shape_t.shape()));
        }
        let sp = sparse_in(ind, Some(vals), shape_t)?;
        let a_dims = dims_usize(&sp.shape)?;
        let (out_rows, inner_a) = if self.adjoint_a { (a_dims[1], a_dims[0]) } else { (a_dims[0], a_dims[1]) };
        let (bs0, bs1) = (b.shape()[0], b.shape()[1]);
        let (inner_b, out_cols) = if self.adjoint_b { (bs1, bs0) } else { (bs0, bs1) };
        if inner_a != inner_b {
            ff_bail!(
                InvalidArgument,
                "Cannot multiply A and B because inner dimension does not match: {inner_a} vs. {inner_b}.  Did you forget a transpose?  Dimensions of A: [{}, {}).  Dimensions of B: {}",
                a_dims[0],
                a_dims[1],
                fmt_shape(b.shape())
            );
        }
        let (av, bv) = (vals.as_slice::<T>()?, b.as_slice::<T>()?);
        let total = out_rows.checked_mul(out_cols).ok_or_else(|| Error::invalid_argument("product too large"))?;
        let mut out = vec![T::ZERO; total];
        let (ri, ki) = if self.adjoint_a { (1, 0) } else { (0, 1) };
        for (i, &a) in av.iter().enumerate() {
            let row = sp.row(i);
            let m = usize::try_from(row[ri]).ok().filter(|m| *m < out_rows);
            let k = usize::try_from(row[ki]).ok().filter(|k| *k < inner_a);
            let Some(k) = k else {
                ff_bail!(InvalidArgument, "k ({}) from index[{i},{ki}] out of bounds (>={inner_a})", row[ki]);
            };
            let Some(m) = m else {
                ff_bail!(InvalidArgument, "m ({}) from index[{i},{ri}] out of bounds (>={out_rows})", row[ri]);
            };
            let dst = &mut out[m * out_cols..(m + 1) * out_cols];
            if self.adjoint_b {
                for (c, d) in dst.iter_mut().enumerate() {
                    *d = d.add(a.mul(bv[c * bs1 + k]));
                }
            } else {
                for (d, x) in dst.iter_mut().zip(&bv[k * bs1..(k + 1) * bs1]) {
                    *d = d.add(a.mul(*x));
                }
            }
        }
        ctx.set_output(0, Tensor::from_slice(&[out_rows, out_cols], &out)?);
        Ok(())
    }
}

impl OpKernel for MatMul {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dtype = ctx.input(1)?.dtype();
        dispatch_numeric!(dtype, T => self.typed::<T>(ctx),
            _ => ff_bail!(InvalidArgument, "SparseTensorDenseMatMul has no kernel for {dtype}"))
    }
}

/// `SparseTensorDenseMatMul`.
pub(crate) fn sparse_dense_matmul_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(MatMul {
        adjoint_a: b.node.attr_or::<bool>("adjoint_a", false)?,
        adjoint_b: b.node.attr_or::<bool>("adjoint_b", false)?,
    }))
}

// ---- SparseFillEmptyRows(Grad) --------------------------------------------------

fn fill_empty_rows_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (ind, vals, shape_t, def) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
    if !def.shape().is_empty() {
        ff_bail!(InvalidArgument, "default_value must be a scalar, saw: {}", fmt_shape(def.shape()));
    }
    let sp = sparse_in(ind, Some(vals), shape_t)?;
    if sp.rank == 0 {
        ff_bail!(InvalidArgument, "Dense shape must have at least one dimension");
    }
    let rows = usize::try_from(sp.shape[0]).unwrap_or(0);
    if rows == 0 && sp.n > 0 {
        ff_bail!(InvalidArgument, "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = {}", sp.n);
    }
    let mut counts = vec![0usize; rows];
    for i in 0..sp.n {
        let r = sp.row(i)[0];
        match usize::try_from(r).ok().filter(|r| *r < rows) {
            Some(r) => counts[r] += 1,
            None => ff_bail!(InvalidArgument, "indices({i}, 0) is invalid: {r} >= {rows}"),
        }
    }
    let empty: Vec<bool> = counts.iter().map(|c| *c == 0).collect();
    let mut starts = Vec::with_capacity(rows);
    let mut total = 0usize;
    for c in &counts {
        starts.push(total);
        total += (*c).max(1);
    }
    let mut ix = vec![0i64; total * sp.rank];
    let mut out = Elems::filled(def, 0, total)?;
    for (r, e) in empty.iter().enumerate() {
        if *e {
            ix[starts[r] * sp.rank] = to_i64(r);
        }
    }
    let mut fill = starts.clone();
    let mut reverse = Vec::with_capacity(sp.n);
    for i in 0..sp.n {
        let r = usize::try_from(sp.row(i)[0]).unwrap_or(0);
        let pos = fill[r];
        fill[r] += 1;
        ix[pos * sp.rank..(pos + 1) * sp.rank].copy_from_slice(sp.row(i));
        out.set(pos, vals, i)?;
        reverse.push(to_i64(pos));
    }
    let v = out.into_tensor(vals.dtype(), &[total])?;
    ctx.set_output(0, Tensor::from_slice(&[total, sp.rank], &ix)?);
    ctx.set_output(1, v);
    ctx.set_output(2, Tensor::from_slice(&[rows], &empty)?);
    ctx.set_output(3, Tensor::from_slice(&[sp.n], &reverse)?);
    Ok(())
}

/// `SparseFillEmptyRows`.
pub(crate) fn sparse_fill_empty_rows_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(fill_empty_rows_compute)
}

fn fill_grad_typed<T: Num>(rev: &[i64], grad: &Tensor) -> Result<(Tensor, Tensor)> {
    let g = grad.as_slice::<T>()?;
    let mut used = vec![false; g.len()];
    let mut d = Vec::with_capacity(rev.len());
    for (i, &r) in rev.iter().enumerate() {
        let Some(r) = usize::try_from(r).ok().filter(|r| *r < g.len()) else {
            ff_bail!(InvalidArgument, "Invalid reverse_index_map[{i}] = {r}, not in [0, {})", g.len());
        };
        used[r] = true;
        d.push(g[r]);
    }
    let mut rest = T::ZERO;
    for (x, u) in g.iter().zip(&used) {
        if !u {
            rest = rest.add(*x);
        }
    }
    Ok((Tensor::from_slice(&[rev.len()], &d)?, Tensor::scalar(rest)))
}

fn fill_empty_rows_grad_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (rev_t, grad) = (ctx.input(0)?, ctx.input(1)?);
    if rev_t.shape().len() != 1 || grad.shape().len() != 1 {
        ff_bail!(
            InvalidArgument,
            "reverse_index_map and grad_values must be vectors, got {} and {}",
            fmt_shape(rev_t.shape()),
            fmt_shape(grad.shape())
        );
    }
    let rev = vec_i64(rev_t)?;
    let (d, dd) = dispatch_numeric!(grad.dtype(), T => fill_grad_typed::<T>(&rev, grad)?,
        _ => ff_bail!(InvalidArgument, "SparseFillEmptyRowsGrad has no kernel for {}", grad.dtype()));
    ctx.set_output(0, d);
    ctx.set_output(1, dd);
    Ok(())
}

/// `SparseFillEmptyRowsGrad`.
pub(crate) fn sparse_fill_empty_rows_grad_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(fill_empty_rows_grad_compute)
}

// ---- Serialize / Deserialize ------------------------------------------------------

fn proto_bytes(t: &Tensor) -> Vec<u8> {
    t.to_proto().encode_to_vec()
}

fn serialize_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (ind, vals, shape) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    sparse_in(ind, Some(vals), shape)?;
    let out = vec![proto_bytes(ind), proto_bytes(vals), proto_bytes(shape)];
    ctx.set_output(0, Tensor::from_strings(&[3], out)?);
    Ok(())
}

/// `SerializeSparse` (a `[3]` string vector of serialized `TensorProto`s, as TF's).
pub(crate) fn serialize_sparse_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(serialize_compute)
}

fn serialize_many_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (ind, vals, shape) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let sp = sparse_in(ind, Some(vals), shape)?;
    if sp.rank < 2 {
        ff_bail!(InvalidArgument, "Rank of input SparseTensor should be > 1, but saw rank: {}", sp.rank);
    }
    let batch = usize::try_from(sp.shape[0]).unwrap_or(0);
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); batch];
    for i in 0..sp.n {
        let b = sp.row(i)[0];
        match usize::try_from(b).ok().filter(|b| *b < batch) {
            Some(b) => groups[b].push(i),
            None => ff_bail!(InvalidArgument, "Minibatch index {b} out of bounds: [0, {batch})"),
        }
    }
    let r = sp.rank - 1;
    let sub_shape = Tensor::from_slice(&[r], &sp.shape[1..])?;
    let shape_bytes = proto_bytes(&sub_shape);
    let mut out = Vec::with_capacity(batch * 3);
    for g in &groups {
        let ix: Vec<i64> = g.iter().flat_map(|i| sp.row(*i)[1..].iter().copied()).collect();
        out.push(proto_bytes(&Tensor::from_slice(&[g.len(), r], &ix)?));
        out.push(proto_bytes(&pick(vals, g)?));
        out.push(shape_bytes.clone());
    }
    ctx.set_output(0, Tensor::from_strings(&[batch, 3], out)?);
    Ok(())
}

/// `SerializeManySparse`: one `[3]` row per minibatch entry (dim 0).
pub(crate) fn serialize_many_sparse_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(serialize_many_compute)
}

struct Deserialize {
    dtype: DType,
}

fn parse_proto(bytes: &[u8], what: &str, i: usize) -> Result<Tensor> {
    let p = ferroflow_proto::TensorProto::decode(bytes)
        .map_err(|_| Error::invalid_argument(format!("Could not parse serialized_sparse[{i}, {what}]")))?;
    Tensor::from_proto(&p)
}

impl OpKernel for Deserialize {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let ser = ctx.input(0)?;
        if ser.shape().len() != 2 || ser.shape()[1] != 3 {
            ff_bail!(
                InvalidArgument,
                "Serialized sparse should be a matrix with 3 columns but received shape: {}",
                fmt_shape(ser.shape())
            );
        }
        let strs = ser.as_strings()?;
        let batch = ser.shape()[0];
        let mut parts = Vec::with_capacity(batch);
        let mut rank: Option<usize> = None;
        for i in 0..batch {
            let ind = parse_proto(&strs[3 * i], "0", i)?;
            let vals = parse_proto(&strs[3 * i + 1], "1", i)?;
            let shape = parse_proto(&strs[3 * i + 2], "2", i)?;
            if vals.dtype() != self.dtype {
                ff_bail!(
                    InvalidArgument,
                    "Requested SparseTensor of type {} but SparseTensor[{i}].values.dtype() == {}",
                    self.dtype,
                    vals.dtype()
                );
            }
            if ind.dtype() != DType::Int64 || shape.dtype() != DType::Int64 {
                ff_bail!(InvalidArgument, "Expected serialized_sparse[{i}] indices and shape of type int64");
            }
            let sp = sparse_in(&ind, Some(&vals), &shape)?;
            if let Some(r) = rank
                && r != sp.rank
            {
                ff_bail!(
                    InvalidArgument,
                    "Inconsistent shape across SparseTensors: rank prior to SparseTensor[{i}] was: {} but rank of SparseTensor[{i}] is: {}",
                    r + 1,
                    sp.rank + 1
                );
            }
            rank = Some(sp.rank);
            parts.push((sp, vals));
        }
        let r = rank.unwrap_or(0);
        let mut shape = vec![0i64; r + 1];
        shape[0] = to_i64(batch);
        let mut ix = Vec::new();
        let mut vals = Elems::new(self.dtype);
        let mut total = 0;
        for (b, (sp, v)) in parts.iter().enumerate() {
            for (dst, d) in shape[1..].iter_mut().zip(&sp.shape) {
                *dst = Ord::max(*dst, *d);
            }
            for i in 0..sp.n {
                ix.push(to_i64(b));
                ix.extend_from_slice(sp.row(i));
                vals.push(v, i)?;
            }
            total += sp.n;
        }
        let v = vals.into_tensor(self.dtype, &[total])?;
        ctx.set_output(0, Tensor::from_slice(&[total, r + 1], &ix)?);
        ctx.set_output(1, v);
        ctx.set_output(2, Tensor::from_slice(&[r + 1], &shape)?);
        Ok(())
    }
}

/// `DeserializeManySparse`.
pub(crate) fn deserialize_many_sparse_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Deserialize { dtype: b.node.required_attr::<DType>("dtype")? }))
}

// ---- SparseSegmentSum/Mean/SqrtN and their gradients ----------------------------

/// How a segment's rows combine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SegReduce {
    Sum,
    Mean,
    SqrtN,
}

/// The scale of a segment of `count` rows.
fn seg_scale<T: Float>(r: SegReduce, count: usize) -> T {
    #[allow(clippy::cast_precision_loss)]
    let c = count as f64;
    match r {
        SegReduce::Sum => T::ONE,
        SegReduce::Mean => T::from_f64(1.0 / c.max(1.0)),
        SegReduce::SqrtN => T::from_f64(1.0 / c.max(1.0).sqrt()),
    }
}

struct Segment {
    reduce: SegReduce,
    with_num: bool,
}

fn seg_inputs(data: &Tensor, idx: &Tensor, seg: &Tensor) -> Result<(Vec<i64>, Vec<i64>, usize, usize)> {
    if idx.shape().len() != 1 {
        ff_bail!(InvalidArgument, "indices should be a vector.");
    }
    if seg.shape().len() != 1 {
        ff_bail!(InvalidArgument, "segment_ids should be a vector.");
    }
    if idx.shape()[0] != seg.shape()[0] {
        ff_bail!(
            InvalidArgument,
            "segment_ids and indices should have same size. segment_ids shape: {} indices shape: {}",
            fmt_shape(seg.shape()),
            fmt_shape(idx.shape())
        );
    }
    if data.shape().is_empty() {
        ff_bail!(InvalidArgument, "Shape must be at least rank 1 but is rank 0");
    }
    let rows = data.shape()[0];
    let block = checked_num_elements(&data.shape()[1..])?;
    let (ix, sg) = (vec_i64(idx)?, vec_i64(seg)?);
    for (i, &x) in ix.iter().enumerate() {
        if !(0..to_i64(rows)).contains(&x) {
            ff_bail!(InvalidArgument, "Bad: indices[{i}] == {x} out of range [0, {rows})");
        }
    }
    Ok((ix, sg, rows, block))
}

impl Segment {
    fn typed<T: Float>(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (data, idx, seg) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
        let (ix, sg, _, block) = seg_inputs(data, idx, seg)?;
        let out_rows = if self.with_num {
            let n = vec_i64(ctx.input(3)?)?.first().copied().unwrap_or(0);
            usize::try_from(n).map_err(|_| Error::invalid_argument(format!("num_segments must be >= 0, got {n}")))?
        } else {
            sg.last().map_or(0, |l| usize::try_from(*l + 1).unwrap_or(0))
        };
        for (i, s) in sg.iter().enumerate() {
            if i > 0 && *s < sg[i - 1] {
                ff_bail!(InvalidArgument, "segment ids are not increasing");
            }
            if !(0..to_i64(out_rows)).contains(s) {
                ff_bail!(
                    InvalidArgument,
                    "Segment id {s} out of range [0, {out_rows}), possibly because 'segment_ids' input is not sorted."
                );
            }
        }
        let d = data.as_slice::<T>()?;
        let total = out_rows.checked_mul(block).ok_or_else(|| Error::invalid_argument("output too large"))?;
        let mut out = vec![T::ZERO; total];
        let mut counts = vec![0usize; out_rows];
        for (x, s) in ix.iter().zip(&sg) {
            let (x, s) = (usize::try_from(*x).unwrap_or(0), usize::try_from(*s).unwrap_or(0));
            counts[s] += 1;
            for (o, v) in out[s * block..(s + 1) * block].iter_mut().zip(&d[x * block..(x + 1) * block]) {
                *o = o.add(*v);
            }
        }
        if self.reduce != SegReduce::Sum {
            for (s, c) in counts.iter().enumerate() {
                let k: T = seg_scale(self.reduce, *c);
                for o in &mut out[s * block..(s + 1) * block] {
                    *o = o.mul(k);
                }
            }
        }
        let mut shape = vec![out_rows];
        shape.extend_from_slice(&data.shape()[1..]);
        ctx.set_output(0, Tensor::from_slice(&shape, &out)?);
        Ok(())
    }
}

impl OpKernel for Segment {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => self.typed::<T>(ctx),
            _ => ff_bail!(InvalidArgument, "sparse segment reduction has no kernel for {dtype}"))
    }
}

fn segment(reduce: SegReduce, with_num: bool) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(Segment { reduce, with_num }))
}

/// `SparseSegmentSum`.
pub(crate) fn sparse_segment_sum_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    segment(SegReduce::Sum, false)
}
/// `SparseSegmentMean`.
pub(crate) fn sparse_segment_mean_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    segment(SegReduce::Mean, false)
}
/// `SparseSegmentSqrtN`.
pub(crate) fn sparse_segment_sqrt_n_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    segment(SegReduce::SqrtN, false)
}
/// `SparseSegmentSumWithNumSegments`.
pub(crate) fn sparse_segment_sum_n_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    segment(SegReduce::Sum, true)
}
/// `SparseSegmentMeanWithNumSegments`.
pub(crate) fn sparse_segment_mean_n_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    segment(SegReduce::Mean, true)
}
/// `SparseSegmentSqrtNWithNumSegments`.
pub(crate) fn sparse_segment_sqrt_n_n_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    segment(SegReduce::SqrtN, true)
}

struct SegmentGrad(SegReduce);

impl SegmentGrad {
    fn typed<T: Float>(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (grad, idx, seg, dim0) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.input(3)?);
        let n = vec_i64(dim0)?.first().copied().unwrap_or(0);
        let rows =
            usize::try_from(n).map_err(|_| Error::invalid_argument(format!("output_dim0 must be >= 0, got {n}")))?;
        if grad.shape().is_empty() {
            ff_bail!(InvalidArgument, "grad must be at least rank 1");
        }
        let (ix, sg) = (vec_i64(idx)?, vec_i64(seg)?);
        if ix.len() != sg.len() {
            ff_bail!(InvalidArgument, "segment_ids and indices should have same size.");
        }
        let segs = grad.shape()[0];
        let block = checked_num_elements(&grad.shape()[1..])?;
        let mut counts = vec![0usize; segs];
        for s in &sg {
            match usize::try_from(*s).ok().filter(|s| *s < segs) {
                Some(s) => counts[s] += 1,
                None => ff_bail!(InvalidArgument, "Segment id {s} out of range [0, {segs})."),
            }
        }
        let g = grad.as_slice::<T>()?;
        let total = rows.checked_mul(block).ok_or_else(|| Error::invalid_argument("output too large"))?;
        let mut out = vec![T::ZERO; total];
        for (i, (x, s)) in ix.iter().zip(&sg).enumerate() {
            let Some(x) = usize::try_from(*x).ok().filter(|x| *x < rows) else {
                ff_bail!(InvalidArgument, "Index {x} at offset {i} in indices is out of range [0, {rows})");
            };
            let s = usize::try_from(*s).unwrap_or(0);
            let k: T = seg_scale(self.0, counts[s]);
            for (o, v) in out[x * block..(x + 1) * block].iter_mut().zip(&g[s * block..(s + 1) * block]) {
                *o = o.add(v.mul(k));
            }
        }
        let mut shape = vec![rows];
        shape.extend_from_slice(&grad.shape()[1..]);
        ctx.set_output(0, Tensor::from_slice(&shape, &out)?);
        Ok(())
    }
}

impl OpKernel for SegmentGrad {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => self.typed::<T>(ctx),
            _ => ff_bail!(InvalidArgument, "sparse segment gradient has no kernel for {dtype}"))
    }
}

/// `SparseSegmentSumGrad`.
pub(crate) fn sparse_segment_sum_grad_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SegmentGrad(SegReduce::Sum)))
}
/// `SparseSegmentMeanGrad`.
pub(crate) fn sparse_segment_mean_grad_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SegmentGrad(SegReduce::Mean)))
}
/// `SparseSegmentSqrtNGrad`.
pub(crate) fn sparse_segment_sqrt_n_grad_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SegmentGrad(SegReduce::SqrtN)))
}

// ---- SegmentSum and GatherNd (what the sparse gradients and lookups build) -------

struct SegmentSum;

impl SegmentSum {
    fn typed<T: Float>(ctx: &mut OpContext<'_>) -> Result<()> {
        let (data, seg) = (ctx.input(0)?, ctx.input(1)?);
        if seg.shape().len() != 1 || data.shape().first() != seg.shape().first() {
            ff_bail!(
                InvalidArgument,
                "segment_ids should be the same size as dimension 0 of input. data.shape = {} segment_ids.shape = {}",
                fmt_shape(data.shape()),
                fmt_shape(seg.shape())
            );
        }
        let sg = vec_i64(seg)?;
        let block = checked_num_elements(&data.shape()[1..])?;
        let rows = sg.last().map_or(0, |l| usize::try_from(*l + 1).unwrap_or(0));
        for (i, s) in sg.iter().enumerate() {
            if *s < 0 || (i > 0 && *s < sg[i - 1]) {
                ff_bail!(InvalidArgument, "segment ids are not increasing");
            }
        }
        let d = data.as_slice::<T>()?;
        let mut out =
            vec![T::ZERO; rows.checked_mul(block).ok_or_else(|| Error::invalid_argument("output too large"))?];
        for (i, s) in sg.iter().enumerate() {
            let s = usize::try_from(*s).unwrap_or(0);
            for (o, v) in out[s * block..(s + 1) * block].iter_mut().zip(&d[i * block..(i + 1) * block]) {
                *o = o.add(*v);
            }
        }
        let mut shape = vec![rows];
        shape.extend_from_slice(&data.shape()[1..]);
        ctx.set_output(0, Tensor::from_slice(&shape, &out)?);
        Ok(())
    }
}

impl OpKernel for SegmentSum {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dtype = ctx.input(0)?.dtype();
        dispatch_float!(dtype, T => Self::typed::<T>(ctx),
            _ => ff_bail!(InvalidArgument, "SegmentSum has no kernel for {dtype}"))
    }
}

/// `SegmentSum` (float types).
pub(crate) fn segment_sum_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SegmentSum))
}

fn gather_nd_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let (params, idx) = (ctx.input(0)?, ctx.input(1)?);
    let Some((&depth, outer)) = idx.shape().split_last() else {
        ff_bail!(InvalidArgument, "indices must be at least a vector");
    };
    if depth > params.shape().len() {
        ff_bail!(
            InvalidArgument,
            "index innermost dimension length must be <= params rank; saw: {depth} vs. {}",
            params.shape().len()
        );
    }
    let ix = vec_i64(idx)?;
    let dims = &params.shape()[..depth];
    let block = checked_num_elements(&params.shape()[depth..])?;
    let n = checked_num_elements(outer)?;
    let mut out = Elems::new(params.dtype());
    for i in 0..n {
        let row = &ix[i * depth..(i + 1) * depth];
        if row.iter().zip(dims).any(|(x, d)| *x < 0 || usize::try_from(*x).unwrap_or(usize::MAX) >= *d) {
            ff_bail!(
                InvalidArgument,
                "indices[{}] = [{}] does not index into param shape {}",
                i,
                fmt_idx(row),
                fmt_shape(params.shape())
            );
        }
        let start = flat(row, dims) * block;
        for j in 0..block {
            out.push(params, start + j)?;
        }
    }
    let mut shape = outer.to_vec();
    shape.extend_from_slice(&params.shape()[depth..]);
    let t = out.into_tensor(params.dtype(), &shape)?;
    ctx.set_output(0, t);
    Ok(())
}

/// `GatherNd`.
pub(crate) fn gather_nd_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(gather_nd_compute)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_and_reshape_arithmetic() {
        let sp = Sp { ix: vec![0, 1, 0, 0], n: 2, rank: 2, shape: vec![2, 2] };
        assert!(validate(&sp, false).is_ok());
        assert!(validate(&sp, true).unwrap_err().message.contains("out of order"));
        let sp = Sp { ix: vec![0, 2], n: 1, rank: 2, shape: vec![2, 2] };
        assert!(validate(&sp, false).unwrap_err().message.contains("out of bounds"));
        assert_eq!(flat(&[1, 1], &[2, 3]), 4);
        assert_eq!(match_rows(&[0, 1, 2], 3, &[1, 2], 2, 1), vec![None, Some(0), Some(1)]);
    }
}
