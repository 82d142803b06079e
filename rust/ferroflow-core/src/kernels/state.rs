//! Variable kernels: the variable itself (a reference output), assignment, in-place
//! updates and the initialisation check.
use std::sync::Arc;

use super::num::Num;
use super::{KernelBuild, OpContext, OpKernel};
use crate::dispatch_numeric;
use crate::error::Result;
use crate::graph::AttrValue;
use crate::resource::Var;
use crate::shape::fmt_shape;
use crate::tensor::Tensor;

fn attr_str(b: &KernelBuild<'_>, name: &str) -> String {
    match b.node.attrs.get(name) {
        Some(AttrValue::S(s)) => String::from_utf8_lossy(s).into_owned(),
        _ => String::new(),
    }
}

/// `VariableV2`: binds the session's variable for this node once, then hands out a reference.
pub(crate) struct VariableKernel(Arc<Var>);

pub(crate) fn variable_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let shared = attr_str(b, "shared_name");
    let name = if shared.is_empty() { b.node.name.clone() } else { shared };
    let spec = &b.node.outputs[0];
    let var = b.resources.variable(&attr_str(b, "container"), &name, spec.dtype, &spec.shape)?;
    Ok(Box::new(VariableKernel(var)))
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
    let validate_shape = !matches!(b.node.attrs.get("validate_shape"), Some(AttrValue::B(false)));
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

/// `IsVariableInitialized`.
pub(crate) fn is_initialized(ctx: &mut OpContext<'_>) -> Result<()> {
    let init = ctx.ref_input(0)?.is_initialized();
    ctx.set_output(0, Tensor::scalar(init));
    Ok(())
}
