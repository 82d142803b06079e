//! Kernels of `DynamicPartition` and `(Parallel)DynamicStitch` (shapes in
//! `ops/partition.rs`). Rows are copied as byte blocks, so one body serves every dtype.
use super::array::gather_blocks;
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::error::Result;
use crate::shape::{checked_num_elements, fmt_shape};
use crate::tensor::Tensor;

/// `DynamicPartition`.
pub(crate) fn dynamic_partition_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(dynamic_partition_compute)
}

/// `DynamicStitch` and `ParallelDynamicStitch` (the same result: TF's parallel form only
/// leaves the winner among duplicate indices unspecified).
pub(crate) fn dynamic_stitch_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(dynamic_stitch_compute)
}

fn dynamic_partition_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let num = ctx.num_outputs();
    let data = ctx.input(0)?;
    let parts = ctx.input(1)?;
    let (dshape, pshape) = (data.shape(), parts.shape());
    if pshape.len() > dshape.len() || dshape[..pshape.len()] != *pshape {
        ff_bail!(
            InvalidArgument,
            "data.shape must start with partitions.shape, got data.shape = {}, partitions.shape = {}",
            fmt_shape(dshape),
            fmt_shape(pshape)
        );
    }
    let block = checked_num_elements(&dshape[pshape.len()..])?;
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); num];
    for (i, &p) in parts.as_slice::<i32>()?.iter().enumerate() {
        match usize::try_from(p).ok().filter(|p| *p < num) {
            Some(p) => rows[p].push(i),
            None => ff_bail!(InvalidArgument, "partitions[{i}] = {p} is not in [0, {num})"),
        }
    }
    let mut outs = Vec::with_capacity(num);
    for picked in &rows {
        let mut shape = vec![picked.len()];
        shape.extend_from_slice(&dshape[pshape.len()..]);
        outs.push(gather_blocks(data.dtype(), &shape, picked.len(), block, |j| (0, picked[j]), &[data])?);
    }
    for (i, t) in outs.into_iter().enumerate() {
        ctx.set_output(i, t);
    }
    Ok(())
}

fn dynamic_stitch_compute(ctx: &mut OpContext<'_>) -> Result<()> {
    let n = ctx.num_inputs() / 2;
    let first_data = ctx.input(n)?;
    let dtype = first_data.dtype();
    let rest = first_data.shape()[ctx.input(0)?.shape().len().min(first_data.shape().len())..].to_vec();
    let block = checked_num_elements(&rest)?;
    // The last (tensor, row) written to each output row wins, as TF's DynamicStitch.
    let mut winner: Vec<Option<(usize, usize)>> = Vec::new();
    for m in 0..n {
        let (indices, data) = (ctx.input(m)?, ctx.input(n + m)?);
        let ishape = indices.shape();
        let expected: Vec<usize> = ishape.iter().chain(&rest).copied().collect();
        if data.shape() != expected.as_slice() {
            ff_bail!(
                InvalidArgument,
                "data[{m}].shape = {} does not start with indices[{m}].shape = {}",
                fmt_shape(data.shape()),
                fmt_shape(ishape)
            );
        }
        for (i, &ix) in indices.as_slice::<i32>()?.iter().enumerate() {
            let Ok(row) = usize::try_from(ix) else {
                ff_bail!(InvalidArgument, "indices[{m}][{i}] = {ix} is negative");
            };
            if row >= winner.len() {
                winner.resize(row + 1, None);
            }
            winner[row] = Some((m, i));
        }
    }
    // Rows no index names are zeros.
    let zeros = Tensor::zeros(dtype, &[block])?;
    let mut sources: Vec<&Tensor> = (0..n).map(|m| ctx.input(n + m)).collect::<Result<_>>()?;
    sources.push(&zeros);
    let mut shape = vec![winner.len()];
    shape.extend_from_slice(&rest);
    let out = gather_blocks(dtype, &shape, winner.len(), block, |r| winner[r].unwrap_or((n, 0)), &sources)?;
    ctx.set_output(0, out);
    Ok(())
}
