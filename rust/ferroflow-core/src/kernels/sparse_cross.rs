//! `SparseCross` (TF 1.x, behind `tf.sparse.cross`/`cross_hashed` and the
//! `crossed_column` feature column): per batch row, every combination of one feature
//! from each input (sparse `[batch, ?]` tensors, then dense `[batch, k]` matrices),
//! the last input varying fastest. A cross is the features joined by `"_X_"`, or
//! (`hashed_output`) TF's nested fingerprint: starting from `hash_key`, each feature's
//! `Fingerprint64` (a string) or value (an int64) is folded in by `FingerprintCat64`,
//! then taken modulo `num_buckets` (or `i64::MAX`). Shapes and registration in
//! `ops/sparse.rs`.
use super::hash::fingerprint64;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// TF's `FingerprintCat64`: folds fingerprint `fp2` into `fp1`.
pub(crate) fn fingerprint_cat64(fp1: u64, fp2: u64) -> u64 {
    const MUL: u64 = 0xc6a4_a793_5bd1_e995;
    let shift_mix = |v: u64| v ^ (v >> 47);
    let mut result = fp1 ^ MUL;
    result ^= shift_mix(fp2.wrapping_mul(MUL)).wrapping_mul(MUL);
    result = result.wrapping_mul(MUL);
    result = shift_mix(result).wrapping_mul(MUL);
    shift_mix(result)
}

struct SparseCross {
    n: usize,
    dense: usize,
    hashed: bool,
    num_buckets: i64,
    hash_key: u64,
    out_type: DType,
}

pub(crate) fn sparse_cross_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let n: i64 = b.node.required_attr("N")?;
    let dense: Vec<DType> = b.node.attr_or("dense_types", Vec::new())?;
    let num_buckets: i64 = b.node.required_attr("num_buckets")?;
    if num_buckets < 0 {
        ff_bail!(InvalidArgument, "SparseCross: num_buckets must be >= 0, got {num_buckets}");
    }
    Ok(Box::new(SparseCross {
        n: usize::try_from(n).map_err(|_| Error::invalid_argument("SparseCross: N must be >= 0"))?,
        dense: dense.len(),
        hashed: b.node.required_attr("hashed_output")?,
        num_buckets,
        hash_key: b.node.required_attr::<i64>("hash_key")? as u64,
        out_type: b.node.required_attr("out_type")?,
    }))
}

/// One input's features: per batch row, a run of values.
enum Column<'a> {
    Sparse { values: &'a Tensor, starts: Vec<usize>, counts: Vec<usize> },
    Dense { values: &'a Tensor, width: usize },
}

impl Column<'_> {
    fn count(&self, row: usize) -> usize {
        match self {
            Column::Sparse { counts, .. } => counts[row],
            Column::Dense { width, .. } => *width,
        }
    }
    /// The flat position of feature `k` of `row` in the values.
    fn position(&self, row: usize, k: usize) -> usize {
        match self {
            Column::Sparse { starts, .. } => starts[row] + k,
            Column::Dense { width, .. } => row * width + k,
        }
    }
    fn values(&self) -> &Tensor {
        match self {
            Column::Sparse { values, .. } | Column::Dense { values, .. } => values,
        }
    }
    /// Feature `k` of `row` as a hash input (its fingerprint, or the int64 itself).
    fn hash(&self, row: usize, k: usize) -> Result<u64> {
        let (values, i) = (self.values(), self.position(row, k));
        Ok(if values.dtype() == DType::String {
            fingerprint64(&values.as_strings()?[i])
        } else {
            values.as_slice::<i64>()?[i] as u64
        })
    }
    /// Feature `k` of `row` as text.
    fn text(&self, row: usize, k: usize) -> Result<Vec<u8>> {
        let (values, i) = (self.values(), self.position(row, k));
        Ok(if values.dtype() == DType::String {
            values.as_strings()?[i].clone()
        } else {
            values.as_slice::<i64>()?[i].to_string().into_bytes()
        })
    }
}

fn matrix_rows(t: &Tensor, what: &str, i: usize) -> Result<usize> {
    match t.shape() {
        [rows, _] => Ok(*rows),
        s => ff_bail!(InvalidArgument, "{what} should be a matrix but received shape {} at position {i}", fmt_shape(s)),
    }
}

impl SparseCross {
    fn columns<'a>(&self, ctx: &'a OpContext<'_>) -> Result<(usize, Vec<Column<'a>>)> {
        let n = self.n;
        let input = |i: usize| ctx.input(i);
        let mut batch = None;
        for i in 0..n {
            let shape = crate::framework::tensor_util::int_values(input(2 * n + i)?)?;
            let [rows, _] = shape[..] else {
                ff_bail!(InvalidArgument, "shape should imply a 2D tensor, but got [{}] at position {i}", shape.len());
            };
            if *batch.get_or_insert(rows) != rows {
                ff_bail!(InvalidArgument, "Expected batch size {} got {rows} at position {i}", batch.unwrap_or(0));
            }
        }
        for j in 0..self.dense {
            let rows = matrix_rows(input(3 * n + j)?, "Dense inputs", j)? as i64;
            if *batch.get_or_insert(rows) != rows {
                ff_bail!(InvalidArgument, "Expected batch size {} got {rows} at dense tensor {j}", batch.unwrap_or(0));
            }
        }
        let batch = usize::try_from(batch.unwrap_or(0))
            .map_err(|_| Error::invalid_argument("SparseCross: the batch size must be non-negative"))?;
        let mut columns = Vec::with_capacity(n + self.dense);
        for i in 0..n {
            let (indices, values) = (input(i)?, input(n + i)?);
            let nnz = matrix_rows(indices, "Input indices", i)?;
            if indices.shape()[1] != 2 {
                ff_bail!(InvalidArgument, "Expected D2 of index to be 2 got {} at position {i}", indices.shape()[1]);
            }
            if values.shape() != [nnz] {
                ff_bail!(
                    InvalidArgument,
                    "Expected size of values to be {nnz} got {} at position {i}",
                    fmt_shape(values.shape())
                );
            }
            // As TF: the entries of each row are consecutive, rows in order.
            let rows = indices.as_slice::<i64>()?;
            let (mut starts, mut counts, mut cursor) = (Vec::with_capacity(batch), Vec::with_capacity(batch), 0);
            for b in 0..batch {
                let start = cursor;
                while cursor < nnz && rows[2 * cursor] == b as i64 {
                    cursor += 1;
                }
                starts.push(start);
                counts.push(cursor - start);
            }
            columns.push(Column::Sparse { values, starts, counts });
        }
        for j in 0..self.dense {
            let values = input(3 * n + j)?;
            columns.push(Column::Dense { values, width: values.shape()[1] });
        }
        Ok((batch, columns))
    }
}

impl OpKernel for SparseCross {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (batch, columns) = self.columns(ctx)?;
        let mut indices = Vec::new();
        let (mut hashes, mut texts) = (Vec::new(), Vec::new());
        let mut widest = 0usize;
        for row in 0..batch {
            let counts: Vec<usize> = columns.iter().map(|c| c.count(row)).collect();
            if columns.is_empty() || counts.contains(&0) {
                continue;
            }
            let total = counts
                .iter()
                .try_fold(1usize, |acc, &c| acc.checked_mul(c))
                .ok_or_else(|| Error::new(crate::error::Code::ResourceExhausted, "SparseCross: too many crosses"))?;
            widest = widest.max(total);
            // The cartesian product, the last column varying fastest.
            let mut pick = vec![0usize; columns.len()];
            for cross in 0..total {
                indices.extend([row as i64, cross as i64]);
                if self.hashed {
                    let mut h = self.hash_key;
                    for (c, &k) in columns.iter().zip(&pick) {
                        h = fingerprint_cat64(h, c.hash(row, k)?);
                    }
                    let m = if self.num_buckets > 0 { self.num_buckets as u64 } else { i64::MAX as u64 };
                    hashes.push((h % m) as i64);
                } else {
                    let parts = columns.iter().zip(&pick).map(|(c, &k)| c.text(row, k)).collect::<Result<Vec<_>>>()?;
                    texts.push(parts.join(&b"_X_"[..]));
                }
                for (p, &c) in pick.iter_mut().zip(&counts).rev() {
                    *p += 1;
                    if *p < c {
                        break;
                    }
                    *p = 0;
                }
            }
        }
        let nnz = indices.len() / 2;
        ctx.set_output(0, Tensor::from_slice(&[nnz, 2], &indices)?);
        let values = if self.hashed {
            if self.out_type != DType::Int64 {
                ff_bail!(InvalidArgument, "SparseCross: a hashed cross is int64, got out_type {}", self.out_type);
            }
            Tensor::from_slice(&[nnz], &hashes)?
        } else {
            Tensor::from_strings(&[nnz], texts)?
        };
        ctx.set_output(1, values);
        ctx.set_output(2, Tensor::from_slice(&[2], &[batch as i64, widest as i64])?);
        Ok(())
    }
}
