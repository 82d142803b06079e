"""`constant_value`: what is known of a tensor's value while the graph is built."""

from __future__ import annotations

import numpy as np

from . import ops


def constant_value(tensor):
    """The value of `tensor` as a numpy array when it is fixed at graph construction.

    Known for `Const` (and `Identity` or `Cast` of a known value), and for `Shape`,
    `Size` and `Rank` of a tensor whose static shape answers them; otherwise None (as
    TF's `tf.get_static_value` for these ops).
    """
    if not isinstance(tensor, ops.Tensor):
        return None
    op = tensor.op
    if op.type == "Const":
        return op.get_attr("value")
    if op.type in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    if op.type == "Cast":
        pre_cast = constant_value(op.inputs[0])
        if pre_cast is None:
            return None
        return np.asarray(pre_cast).astype(tensor.dtype.as_numpy_dtype)
    if not op.inputs:
        return None
    shape = op.inputs[0].shape
    if op.type == "Shape" and shape.is_fully_defined():
        return np.array(shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
    if op.type == "Size" and shape.is_fully_defined():
        return np.array(shape.num_elements(), dtype=tensor.dtype.as_numpy_dtype)
    if op.type == "Rank" and shape.ndims is not None:
        return np.array(shape.ndims, dtype=np.int32)
    return None
