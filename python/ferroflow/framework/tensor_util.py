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


def _strided_slice_of_shape(op):
    """TF's case of a 1-D `StridedSlice` of a shape (`shape[:-1]`), or None."""
    from . import tensor_shape

    begin, end, strides = (constant_value(t) for t in op.inputs[1:4])
    if begin is None or end is None or strides is None:
        return None
    begin, end, strides = int(begin[0]), int(end[0]), int(strides[0])
    begin_mask, end_mask = op.get_attr("begin_mask"), op.get_attr("end_mask")
    if op.get_attr("ellipsis_mask") or op.get_attr("new_axis_mask"):
        return None
    if op.get_attr("shrink_axis_mask") or begin_mask not in (0, 1) or end_mask not in (0, 1):
        return None
    prev = constant_value_as_shape(op.inputs[0])
    if prev.dims is None:
        return None
    dims = prev.dims[(None if begin_mask else begin) : (None if end_mask else end) : strides]
    return tensor_shape.TensorShape(dims)


def constant_value_as_shape(tensor):
    """What is known of the shape that the 1-D int `tensor` holds, as a `TensorShape`.

    Known elements of a constant (`-1` meaning unknown), of a `Shape` op's input, of a
    `Pack` of scalars; otherwise a shape of unknown dimensions, of the tensor's length
    when that is static (TF's `tensor_util.constant_value_as_shape`).
    """
    from . import tensor_shape

    if tensor.shape.ndims == 0:
        value = constant_value(tensor)
        if value is None:
            raise ValueError(
                "Received a scalar with unknown value as shape; require a statically known "
                "scalar with value '-1' to describe an unknown shape."
            )
        if value != -1:
            raise ValueError(
                f"Received a scalar value '{value}' as shape; require a statically known "
                "scalar with value '-1' to describe an unknown shape."
            )
        return tensor_shape.unknown_shape()
    value = constant_value(tensor)
    if value is not None:
        return tensor_shape.TensorShape([None if int(d) == -1 else int(d) for d in value])
    op = tensor.op
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "Pack":
        dims = []
        for t in op.inputs:
            v = constant_value(t)
            dims.append(None if v is None or int(v) == -1 else int(v))
        return tensor_shape.TensorShape(dims)
    if op.type in ("Concat", "ConcatV2"):
        parts = op.inputs[1:] if op.type == "Concat" else op.inputs[:-1]
        ret = tensor_shape.TensorShape([])
        for part in parts:
            ret = ret.concatenate(constant_value_as_shape(part))
        return ret
    if op.type == "StridedSlice":
        sliced = _strided_slice_of_shape(op)
        if sliced is not None:
            return sliced
    rank = tensor.shape.dims[0] if tensor.shape.ndims == 1 else None
    n = tensor_shape.dimension_value(rank) if rank is not None else None
    return tensor_shape.unknown_shape(rank=n)
