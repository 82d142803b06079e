//! Variable kernels: the variable itself (a reference output), assignment, in-place
//! updates and the initialisation check.
use std::sync::Arc;

use super::num::Num;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dispatch_numeric;
use crate::error::Result;
use crate::framework::resource::Var;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

/// `VariableV2`: binds the session's variable for this node once, then hands out a reference.
pub(crate) struct VariableKernel(Arc<Var>);

pub(crate) fn variable_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(VariableKernel(variable_of(b.resources, b.node)?)))
}

/// The session's variable that `VariableV2` node `node` stands for.
pub(crate) fn variable_of(
    resources: &crate::framework::resource::ResourceMgr,
    node: &crate::graph::Node,
) -> Result<Arc<Var>> {
    let shared = node.attr_or::<String>("shared_name", String::new())?;
    let name = if shared.is_empty() { node.name.clone() } else { shared };
    let spec = &node.outputs[0];
    resources.variable(&node.attr_or::<String>("container", String::new())?, &name, spec.dtype, &spec.shape)
}

impl OpKernel for VariableKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        ctx.set_ref_output(0, Arc::clone(&self.0));
        Ok(())
    }
}

/// `Assign`: replaces the value.
pub(crate) struct AssignKernel {
    validate_shape: bool,
}

pub(crate) fn assign_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let validate_shape = b.node.attr_or("validate_shape", true)?;
    Ok(Box::new(AssignKernel { validate_shape }))
}

impl OpKernel for AssignKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let var = Arc::clone(ctx.ref_input(0)?);
        var.assign(ctx.take_input(1)?, self.validate_shape)?;
        ctx.set_ref_output(0, var);
        Ok(())
    }
}

/// `AssignAdd` / `AssignSub`: updates the value in place.
pub(crate) struct AssignUpdateKernel {
    subtract: bool,
}

pub(crate) fn assign_update_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(AssignUpdateKernel { subtract: b.node.op_type() == "AssignSub" }))
}

fn update_in_place<T: Num>(t: &mut Tensor, delta: &Tensor, subtract: bool) -> Result<()> {
    let d = delta.as_slice::<T>()?;
    let v = t.as_mut_slice::<T>()?;
    if subtract {
        v.iter_mut().zip(d).for_each(|(x, &y)| *x = x.sub(y));
    } else {
        v.iter_mut().zip(d).for_each(|(x, &y)| *x = x.add(y));
    }
    Ok(())
}

impl OpKernel for AssignUpdateKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let var = Arc::clone(ctx.ref_input(0)?);
        let delta = ctx.input(1)?;
        var.update(|t| {
            if t.shape() != delta.shape() {
                ff_bail!(
                    InvalidArgument,
                    "Parameters and update must be the same size: {} vs. {}",
                    fmt_shape(t.shape()),
                    fmt_shape(delta.shape())
                );
            }
            dispatch_numeric!(t.dtype(), T => update_in_place::<T>(t, delta, self.subtract),
                _ => ff_bail!(InvalidArgument, "no update kernel for {}", t.dtype()))
        })?;
        ctx.set_ref_output(0, var);
        Ok(())
    }
}

/// `ScatterUpdate` / `ScatterAdd` / `ScatterSub`: rows `indices` of the variable
/// replaced by, increased by or decreased by the matching rows of `updates`; a
/// repeated index applies each of its rows in turn (so adds accumulate).
pub(crate) struct ScatterKernel {
    mode: ScatterMode,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ScatterMode {
    Update,
    Add,
    Sub,
}

pub(crate) fn scatter_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let mode = match b.node.op_type() {
        "ScatterUpdate" => ScatterMode::Update,
        "ScatterAdd" => ScatterMode::Add,
        _ => ScatterMode::Sub,
    };
    Ok(Box::new(ScatterKernel { mode }))
}

fn scatter_rows<T: Num>(t: &mut Tensor, indices: &[i64], updates: &Tensor, mode: ScatterMode) -> Result<()> {
    let rows = t.shape().first().copied().unwrap_or(0);
    let width: usize = t.shape()[1..].iter().product();
    let src = updates.as_slice::<T>()?;
    for (i, &ix) in indices.iter().enumerate() {
        if usize::try_from(ix).map_or(true, |r| r >= rows) {
            ff_bail!(InvalidArgument, "indices[{i}] = {ix} is not in [0, {rows})");
        }
    }
    let dst = t.as_mut_slice::<T>()?;
    for (i, &ix) in indices.iter().enumerate() {
        let r = usize::try_from(ix).unwrap_or(0);
        let (d, u) = (&mut dst[r * width..(r + 1) * width], &src[i * width..(i + 1) * width]);
        match mode {
            ScatterMode::Update => d.copy_from_slice(u),
            ScatterMode::Add => d.iter_mut().zip(u).for_each(|(x, &y)| *x = x.add(y)),
            ScatterMode::Sub => d.iter_mut().zip(u).for_each(|(x, &y)| *x = x.sub(y)),
        }
    }
    Ok(())
}

impl OpKernel for ScatterKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let var = Arc::clone(ctx.ref_input(0)?);
        let indices = crate::framework::tensor_util::int_values(ctx.input(1)?)?;
        let ishape = ctx.input(1)?.shape().to_vec();
        let updates = ctx.input(2)?;
        var.update(|t| {
            // updates.shape must be indices.shape + var.shape[1:].
            let mut want = ishape.clone();
            want.extend_from_slice(t.shape().get(1..).unwrap_or(&[]));
            if t.shape().is_empty() || updates.shape() != want.as_slice() {
                ff_bail!(
                    InvalidArgument,
                    "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape {}, indices.shape {}, params.shape {}",
                    fmt_shape(updates.shape()),
                    fmt_shape(&ishape),
                    fmt_shape(t.shape())
                );
            }
            dispatch_numeric!(t.dtype(), T => scatter_rows::<T>(t, &indices, updates, self.mode),
                _ => ff_bail!(InvalidArgument, "no scatter kernel for {}", t.dtype()))
        })?;
        ctx.set_ref_output(0, var);
        Ok(())
    }
}

/// `IsVariableInitialized`'s kernel.
pub(crate) fn is_initialized_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    super::stateless(is_initialized)
}

/// `IsVariableInitialized`.
fn is_initialized(ctx: &mut OpContext<'_>) -> Result<()> {
    let init = ctx.ref_input(0)?.is_initialized();
    ctx.set_output(0, Tensor::scalar(init));
    Ok(())
}

/// `CountUpTo`: increments an integer variable and returns its value before, until
/// the value reaches `limit` (then `OutOfRange`, the end of an epoch count).
pub(crate) struct CountUpToKernel {
    limit: i64,
}

pub(crate) fn count_up_to_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let limit = b.node.attr_or("limit", 0)?;
    Ok(Box::new(CountUpToKernel { limit }))
}

fn count_up<T: crate::dtype::Element + Into<i64> + TryFrom<i64>>(t: &mut Tensor, limit: i64) -> Result<Tensor> {
    let v = t.as_mut_slice::<T>()?;
    let [x] = v else {
        ff_bail!(InvalidArgument, "CountUpTo needs a scalar variable, got shape {}", fmt_shape(t.shape()));
    };
    let before: i64 = (*x).into();
    if before >= limit {
        ff_bail!(OutOfRange, "Reached limit of {limit}");
    }
    *x = T::try_from(before + 1).map_err(|_| crate::error::Error::invalid_argument("CountUpTo overflow"))?;
    Ok(Tensor::scalar(T::try_from(before).map_err(|_| crate::error::Error::invalid_argument("CountUpTo overflow"))?))
}

impl OpKernel for CountUpToKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let var = Arc::clone(ctx.ref_input(0)?);
        let before = var.update(|t| match t.dtype() {
            crate::dtype::DType::Int32 => count_up::<i32>(t, self.limit),
            crate::dtype::DType::Int64 => count_up::<i64>(t, self.limit),
            d => ff_bail!(InvalidArgument, "CountUpTo needs an int32 or int64 variable, got {d}"),
        })?;
        ctx.set_output(0, before);
        Ok(())
    }
}
