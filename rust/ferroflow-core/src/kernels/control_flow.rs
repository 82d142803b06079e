//! Kernels of `Switch` and `Merge` (the executor handles the dead outputs they make).
use super::{KernelBuild, OpContext, OpKernel, stateless};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `Switch`/`RefSwitch`: the data goes to output 1 when `pred` is true, else to
/// output 0; the other output is left unset, which the executor reads as dead.
pub(crate) fn switch_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx: &mut OpContext<'_>| {
        let pred = ctx.input(1)?;
        if !pred.shape().is_empty() {
            return Err(Error::invalid_argument(format!(
                "The second input must be a scalar, but it has shape {}",
                crate::shape::fmt_shape(pred.shape())
            )));
        }
        let taken = usize::from(pred.scalar_value::<bool>()?);
        let v = ctx.take_value(0)?;
        ctx.set_value_output(taken, v);
        Ok(())
    })
}

/// `Merge`/`RefMerge`: the first live input and its index (the executor passes dead
/// inputs as missing, and never runs a merge whose inputs are all dead).
pub(crate) fn merge_kernel(_: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    stateless(|ctx: &mut OpContext<'_>| {
        for i in 0..ctx.num_inputs() {
            if let Ok(v) = ctx.take_value(i) {
                ctx.set_value_output(0, v);
                let index = i32::try_from(i).unwrap_or(i32::MAX);
                ctx.set_output(1, Tensor::scalar(index));
                return Ok(());
            }
        }
        Err(Error::invalid_argument("Merge has no live input"))
    })
}
