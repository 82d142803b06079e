//! Conditional accumulator kernels: the accumulator ops (bind the session's
//! accumulator and hand out its handle), apply, take (blocking), num-accumulated and
//! set-global-step, dense and sparse.
use std::sync::Arc;

use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::runtime::accumulator::{Accumulator, AccumulatorSpec, Reduction, SparseGrad};
use crate::shape::{PartialShape, fmt_shape};
use crate::tensor::Tensor;

struct AccumulatorOpKernel(Arc<Accumulator>);

pub(crate) fn accumulator_op_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let shared = b.node.attr_or::<String>("shared_name", String::new())?;
    let name = if shared.is_empty() { b.node.name.clone() } else { shared };
    let reduction = match b.node.attr_or::<String>("reduction_type", "MEAN".to_string())?.as_str() {
        "MEAN" => Reduction::Mean,
        "SUM" => Reduction::Sum,
        r => ff_bail!(InvalidArgument, "reduction_type must be MEAN or SUM, got {r}"),
    };
    let spec = AccumulatorSpec {
        name: b.node.name.clone(),
        dtype: b.node.attr_or("dtype", DType::Float32)?,
        shape: b.node.attr_or("shape", PartialShape::unknown())?,
        reduction,
        sparse: b.node.op_type() == "SparseConditionalAccumulator",
    };
    let container = b.node.attr_or::<String>("container", String::new())?;
    let acc = b.resources.lookup_or_create(&container, &name, || Accumulator::new(spec.clone()))?;
    let have = acc.spec();
    if have.dtype != spec.dtype
        || have.shape != spec.shape
        || have.reduction != spec.reduction
        || have.sparse != spec.sparse
    {
        ff_bail!(
            InvalidArgument,
            "Shared accumulator '{name}' has dtype {} and shape {}, but dtype {} and shape {} were requested",
            have.dtype,
            have.shape,
            spec.dtype,
            spec.shape
        );
    }
    Ok(Box::new(AccumulatorOpKernel(acc)))
}

impl OpKernel for AccumulatorOpKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_resource_output(0, Arc::clone(&self.0) as Arc<_>);
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AccOp {
    Apply,
    SparseApply { has_known_shape: bool },
    Take,
    SparseTake,
    NumAccumulated,
    SetGlobalStep,
}

struct AccumulatorAccessKernel(AccOp);

pub(crate) fn accumulator_access_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let op = match b.node.op_type() {
        "AccumulatorApplyGradient" | "ResourceAccumulatorApplyGradient" => AccOp::Apply,
        "SparseAccumulatorApplyGradient" => {
            AccOp::SparseApply { has_known_shape: b.node.attr_or("has_known_shape", true)? }
        }
        "AccumulatorTakeGradient" | "ResourceAccumulatorTakeGradient" => AccOp::Take,
        "SparseAccumulatorTakeGradient" => AccOp::SparseTake,
        "AccumulatorNumAccumulated" | "ResourceAccumulatorNumAccumulated" => AccOp::NumAccumulated,
        _ => AccOp::SetGlobalStep,
    };
    Ok(Box::new(AccumulatorAccessKernel(op)))
}

fn scalar_arg<T: crate::dtype::Element>(t: &Tensor, what: &str) -> Result<T> {
    if !t.shape().is_empty() {
        ff_bail!(InvalidArgument, "Argument {what} must be scalar, but had bad shape {}", fmt_shape(t.shape()));
    }
    t.scalar_value::<T>()
}

fn check_sparse(acc: &Accumulator, sparse: bool) -> Result<()> {
    if acc.spec().sparse != sparse {
        let want = if sparse { "SparseConditionalAccumulator" } else { "ConditionalAccumulator" };
        return Err(Error::invalid_argument(format!("accumulator '{}' is not a {want}", acc.spec().name)));
    }
    Ok(())
}

impl OpKernel for AccumulatorAccessKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let acc = ctx.resource_input::<Accumulator>(0)?;
        match self.0 {
            AccOp::Apply => {
                check_sparse(&acc, false)?;
                let step = scalar_arg::<i64>(ctx.input(1)?, "local_step")?;
                acc.apply_dense(step, ctx.input(2)?)
            }
            AccOp::SparseApply { has_known_shape } => {
                check_sparse(&acc, true)?;
                let step = scalar_arg::<i64>(ctx.input(1)?, "local_step")?;
                let indices = ctx.input(2)?.as_slice::<i64>()?.to_vec();
                let values = ctx.input(3)?.clone();
                let shape = if has_known_shape { Some(ctx.input(4)?.as_slice::<i64>()?.to_vec()) } else { None };
                acc.apply_sparse(step, &SparseGrad { indices, values, shape })
            }
            AccOp::Take => {
                check_sparse(&acc, false)?;
                let n = scalar_arg::<i32>(ctx.input(1)?, "num_required")?;
                let t = acc.take_dense(n, ctx.wait)?;
                ctx.set_output(0, t);
                Ok(())
            }
            AccOp::SparseTake => {
                check_sparse(&acc, true)?;
                let n = scalar_arg::<i32>(ctx.input(1)?, "num_required")?;
                let (i, v, s) = acc.take_sparse(n, ctx.wait)?;
                ctx.set_output(0, i);
                ctx.set_output(1, v);
                ctx.set_output(2, s);
                Ok(())
            }
            AccOp::NumAccumulated => {
                let n = i32::try_from(acc.num_accumulated()).unwrap_or(i32::MAX);
                ctx.set_output(0, Tensor::scalar(n));
                Ok(())
            }
            AccOp::SetGlobalStep => {
                let step = scalar_arg::<i64>(ctx.input(1)?, "new_global_step")?;
                acc.set_global_step(step);
                Ok(())
            }
        }
    }

    fn is_blocking(&self) -> bool {
        matches!(self.0, AccOp::Take | AccOp::SparseTake)
    }
}
