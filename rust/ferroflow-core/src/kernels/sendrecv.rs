//! Kernels of `_Send`/`_Recv` (and the `_Host` forms, the same on the CPU), TF's
//! `kernels/sendrecv_ops.cc`: each builds its rendezvous key once from its attrs
//! (frame 0, iteration 0: cross-task loops are not supported) and exchanges the value
//! through the step's rendezvous. `_Recv` is a blocking kernel; a dead input makes
//! `_Send` send a dead value, and a dead value makes `_Recv`'s output dead.
use super::{KernelBuild, OpContext, OpKernel};
use crate::dtype::DType;
use crate::error::{Code, Error, Result};
use crate::graph::Node;
use crate::runtime::rendezvous::{ParsedKey, ReadyCallback, Rendezvous, create_key, parse_key};
use crate::tensor::Tensor;

/// The key a `_Send`/`_Recv` node's attrs spell (TF's `GetRendezvousKey` at frame 0,
/// iteration 0), checked as TF's kernel constructor does.
pub fn node_key(node: &Node) -> Result<ParsedKey> {
    let send_device: String = node.required_attr("send_device")?;
    let recv_device: String = node.required_attr("recv_device")?;
    let tensor_name: String = node.required_attr("tensor_name")?;
    // TF stores the uint64 incarnation's bit pattern in an int attr.
    let incarnation = node.required_attr::<i64>("send_device_incarnation")?.cast_unsigned();
    parse_key(&create_key(&send_device, incarnation, &recv_device, &tensor_name, 0, 0))
}

fn rendezvous<'a>(ctx: &OpContext<'a>) -> Result<&'a dyn Rendezvous> {
    ctx.wait.rendezvous.ok_or_else(|| Error::new(Code::Internal, "Op kernel context needs to provide a rendezvous."))
}

struct SendKernel {
    key: ParsedKey,
}

pub(crate) fn send_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(SendKernel { key: node_key(b.node)? }))
}

impl OpKernel for SendKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let r = rendezvous(ctx)?;
        if ctx.has_input(0) {
            let value = ctx.take_input(0)?;
            r.send(&self.key, value, false)
        } else {
            // A dead input (the untaken side of a cond): TF sends an empty float tensor
            // marked dead, so the receiver's output is dead too.
            r.send(&self.key, Tensor::zeros(DType::Float32, &[0])?, true)
        }
    }
}

struct RecvKernel {
    key: ParsedKey,
    dtype: DType,
}

pub(crate) fn recv_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(RecvKernel { key: node_key(b.node)?, dtype: b.node.required_attr("tensor_type")? }))
}

impl OpKernel for RecvKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let r = rendezvous(ctx)?;
        let (value, is_dead) = r.recv(&self.key, &ctx.wait)?;
        if is_dead {
            return Ok(());
        }
        if value.dtype() != self.dtype {
            return Err(Error::invalid_argument(format!(
                "Received a {} tensor for '{}', expected {}",
                value.dtype(),
                self.key.edge_name,
                self.dtype
            )));
        }
        ctx.set_output(0, value);
        Ok(())
    }

    fn is_blocking(&self) -> bool {
        true
    }

    fn notify_when_ready(&self, ctx: &OpContext<'_>, ready: ReadyCallback) -> bool {
        ctx.wait.rendezvous.is_some_and(|r| r.notify_when_ready(&self.key, ready))
    }
}
