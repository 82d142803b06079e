//! `_DeviceCopy` for the GPU: the planner inserts one wherever a value crosses between
//! host memory and the GPU's, and gives it to the GPU whichever way it goes (TF's
//! device context copies both ways). Uploads are recorded in the device's queue order;
//! downloads wait for the commands recorded before them.
use std::sync::Arc;

use ferroflow_core::error::Result;
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel, Value};
use ferroflow_core::ops::DEVICE_COPY;

use super::{gpu_of, to_device};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// A copy to the GPU (`Some`) or to the host (`None`).
struct DeviceCopy(Option<Arc<Gpu>>);

fn copy_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    // The copy node is placed on its destination; the GPU copies either way.
    let to_gpu = b.node.device == b.device.name;
    Ok(Box::new(DeviceCopy(if to_gpu { Some(gpu_of(b)?) } else { None })))
}

impl OpKernel for DeviceCopy {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let value = ctx.take_value(0)?;
        if let Value::Resource(_) = value {
            ctx.set_value_output(0, value);
            return Ok(());
        }
        let t = value.into_tensor()?;
        let out = match &self.0 {
            // Strings have no GPU form: they stay on the host, as TF's do.
            Some(_) if t.dtype() == ferroflow_core::DType::String => t,
            Some(gpu) => to_device(&t, gpu)?,
            None => t.to_host()?,
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(crate) fn register() {
    register_kernel(KernelDef::new(DEVICE_COPY, DEVICE_TYPE, copy_kernel));
}
