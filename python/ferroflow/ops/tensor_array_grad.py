"""Gradients of the `TensorArray` ops (TF's `tensor_array_grad.py`).

A read's gradient is a write to the array's gradient array, and a write's gradient
is a read from it (gather and scatter, concat and split likewise). The gradient
array of one `tf.gradients` call is found by its *source*: the name scope of that
call (`gradients`, `gradients_1`, ...), read from the gradient tensor's name, so
every gradient op of one call meets the same array and separate calls do not share
one. Flows carry the order: a write's gradient reads only after the reads'
gradients (later in the forward program) have written.
"""

from __future__ import annotations

from ..framework import ops
from . import array_ops
from .tensor_array_ops import TensorArray

# TensorArrayV3, TensorArrayGradV3, TensorArraySizeV3 and TensorArrayCloseV3 are
# marked not differentiable in the native registry.


def _GetGradSource(op_or_tensor):
    """The name scope of the `tf.gradients` call that made `op_or_tensor`.

    Raises:
        ValueError: If the name has no component starting with `gradients`.
    """
    name_tokens = op_or_tensor.name.split("/")
    grad_pos = [i for i, x in enumerate(name_tokens) if x.startswith("gradients")]
    if not grad_pos:
        raise ValueError(
            "Expected op/tensor name to start with gradients (excluding scope)"
            f", got: {op_or_tensor.name}. This means that a tf.gradients op with "
            "this op in its dependency path has a custom name that does not start "
            "with 'gradients'. Please make sure all calls to tf.gradients that "
            "have non-empty `name` arguments use names that start with "
            "'gradients'."
        )
    return "/".join(name_tokens[: grad_pos[-1] + 1])


def _grad_array(op, dtype, flow, source):
    return TensorArray(
        dtype=dtype, handle=op.inputs[0], flow=flow, colocate_with_first_write_call=False
    ).grad(source=source, flow=flow)


def _write_barrier(op, flow):
    """`flow` ordered after `op`'s own output flow (TF's race guard)."""
    flow_out = array_ops.identity(op.outputs[0], "flow_out")
    with ops.control_dependencies([flow_out]):
        return array_ops.identity(flow, "write_barrier")


@ops.RegisterGradient("TensorArrayReadV3")
def _TensorArrayReadGrad(op, grad):
    """A read's gradient: `grad` written to the gradient array at the index."""
    flow = op.inputs[2]
    g = _grad_array(op, op.get_attr("dtype"), flow, _GetGradSource(grad))
    w_g = g.write(op.inputs[1], grad)
    return [None, None, w_g.flow]


@ops.RegisterGradient("TensorArrayWriteV3")
def _TensorArrayWriteGrad(op, flow):
    """A write's gradient: the gradient array's element at the index."""
    source = _GetGradSource(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(op, op.get_attr("T"), flow, source)
    grad = g.read(op.inputs[1])
    return [None, None, grad, flow]


@ops.RegisterGradient("TensorArrayGatherV3")
def _TensorArrayGatherGrad(op, grad):
    """A gather's gradient: `grad` scattered into the gradient array."""
    flow = op.inputs[2]
    g = _grad_array(op, op.get_attr("dtype"), flow, _GetGradSource(grad))
    u_g = g.scatter(op.inputs[1], grad)
    return [None, None, u_g.flow]


@ops.RegisterGradient("TensorArrayScatterV3")
def _TensorArrayScatterGrad(op, flow):
    """A scatter's gradient: the gradient array's elements at the indices."""
    source = _GetGradSource(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(op, op.get_attr("T"), flow, source)
    grad = g.gather(op.inputs[1])
    return [None, None, grad, flow]


@ops.RegisterGradient("TensorArrayConcatV3")
def _TensorArrayConcatGrad(op, grad, unused_lengths_grad):
    """A concat's gradient: `grad` split into the gradient array by the lengths."""
    flow = op.inputs[1]
    g = _grad_array(op, op.get_attr("dtype"), flow, _GetGradSource(grad))
    u_g = g.split(grad, lengths=op.outputs[1])
    return [None, u_g.flow]


@ops.RegisterGradient("TensorArraySplitV3")
def _TensorArraySplitGrad(op, flow):
    """A split's gradient: the gradient array's elements concatenated."""
    source = _GetGradSource(flow)
    flow = _write_barrier(op, flow)
    g = _grad_array(op, op.get_attr("T"), flow, source)
    grad = g.concat()
    return [None, grad, None, flow]
