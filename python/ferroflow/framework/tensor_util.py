"""`constant_value`: what is known of a tensor's value while the graph is built."""

from __future__ import annotations

import numbers
from typing import Any

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


# -- `tf.make_tensor_proto` and `tf.make_ndarray` ---------------------------------------
#
# TF's `tensor_util.make_tensor_proto` / `MakeNdarray` (TF 2.x's code and messages, the
# same decisions as TF 1.15's): the dtype inferred by numpy with float64 taken to float32
# and int64 to int32 when no value is lost, `tensor_content` for the numeric types of
# more than one element given in full, the typed `*_val` fields otherwise (float16 and
# bfloat16 as their bits in `half_val`), complex numbers as (real, imaginary) pairs in
# `scomplex_val`/`dcomplex_val`, strings in `string_val` as bytes. ferroflow has no
# quantized dtypes, so those are refused as unknown types.

# TF's `compat.*_types`.
_INTEGRAL_TYPES = (numbers.Integral, np.integer)
_REAL_TYPES = (numbers.Real, np.integer, np.floating)
_BYTES_OR_TEXT_TYPES = (bytes, str)


def _tensor_content_types():
    from . import dtypes

    return frozenset(
        {
            dtypes.float16,
            dtypes.bfloat16,
            dtypes.float32,
            dtypes.float64,
            dtypes.int32,
            dtypes.uint8,
            dtypes.int16,
            dtypes.int8,
            dtypes.int64,
            dtypes.uint32,
            dtypes.uint64,
        }
    )


def _flatten(values):
    """TF's `nest.flatten`: lists, tuples (namedtuples too) and dicts (sorted keys)."""
    if isinstance(values, dict):
        return [leaf for key in sorted(values) for leaf in _flatten(values[key])]
    if isinstance(values, (list, tuple)):
        return [leaf for item in values for leaf in _flatten(item)]
    return [values]


def _isinstance_check(expected_types):
    def check(values):
        for v in _flatten(values):
            if not (
                isinstance(v, expected_types)
                or (isinstance(v, np.ndarray) and issubclass(v.dtype.type, expected_types))
            ):
                raise ValueError(v)

    return check


def _check_int(values):
    from . import tensor_shape

    _isinstance_check((*_INTEGRAL_TYPES, tensor_shape.Dimension))(values)


def _check_not_tensor(values):
    for v in _flatten(values):
        if isinstance(v, ops.Tensor):
            raise ValueError(v)


def _assert_compatible(values, dtype):
    """TF's `_AssertCompatible`: `values`' Python types suit `dtype` (or are no tensors).

    Raises:
        TypeError: TF's messages.
    """
    from . import dtypes

    if dtype is None:
        fn = _check_not_tensor
    elif dtype == dtypes.bool:
        fn = _isinstance_check(bool)
    elif dtype == dtypes.string:
        fn = _isinstance_check(_BYTES_OR_TEXT_TYPES)
    elif dtype.is_integer:
        fn = _check_int
    elif dtype.is_floating:
        fn = _isinstance_check(_REAL_TYPES)
    else:
        fn = _check_not_tensor
    try:
        fn(values)
    except ValueError as e:
        [mismatch] = e.args
        if dtype is None:
            raise TypeError("Expected any non-tensor type, but got a tensor instead.") from None
        raise TypeError(
            f"Expected {dtype.name}, but got {mismatch} of type '{type(mismatch).__name__}'."
        ) from None


def _is_array_like(obj) -> bool:
    """TF's `_is_array_like`: numpy-convertible (`__array__`, buffers; not a tensor)."""
    if isinstance(obj, ops.Tensor):
        return False
    if callable(getattr(obj, "__array__", None)) or isinstance(
        getattr(obj, "__array_interface__", None), dict
    ):
        return True
    try:
        memoryview(obj)
    except TypeError:
        return False
    return not isinstance(obj, bytes)


def _dense_dimensions(list_of_lists):
    """TF's `_GetDenseDimensions`: the shape told by the first elements of nested lists."""
    if not isinstance(list_of_lists, (list, tuple)):
        return []
    if not list_of_lists:
        return [0]
    return [len(list_of_lists), *_dense_dimensions(list_of_lists[0])]


def _flatten_to_strings(nested_strings):
    if isinstance(nested_strings, (list, tuple)):
        for inner in nested_strings:
            yield from _flatten_to_strings(inner)
    else:
        yield nested_strings


def _as_bytes(value) -> bytes:
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def _np_array(values, dtype):
    """TF's `numpy_compat.np_array`: numeric dtypes by `astype` (overflow wraps)."""
    if dtype is not None and np.issubdtype(dtype, np.number):
        return np.array(values).astype(dtype)
    return np.array(values, dtype=dtype)


def _append_values(tensor_proto, proto_values: np.ndarray, name: str) -> None:
    """Appends the flat `proto_values` to the `*_val` field of their numpy type."""
    kind = proto_values.dtype
    if kind.type in (np.bytes_, np.str_, np.object_):
        tensor_proto.string_val.extend(_as_bytes(x) for x in proto_values)
    elif kind == np.float16:
        tensor_proto.half_val.extend(proto_values.view(np.uint16).tolist())
    elif kind.name == "bfloat16":
        tensor_proto.half_val.extend(proto_values.view(np.uint16).tolist())
    elif kind == np.float32:
        tensor_proto.float_val.extend(proto_values.tolist())
    elif kind == np.float64:
        tensor_proto.double_val.extend(proto_values.tolist())
    elif kind in (np.int32, np.int16, np.int8, np.uint8, np.uint16):
        tensor_proto.int_val.extend(proto_values.tolist())
    elif kind == np.int64:
        tensor_proto.int64_val.extend(proto_values.tolist())
    elif kind == np.uint32:
        tensor_proto.uint32_val.extend(proto_values.tolist())
    elif kind == np.uint64:
        tensor_proto.uint64_val.extend(proto_values.tolist())
    elif kind == np.bool_:
        tensor_proto.bool_val.extend(proto_values.tolist())
    elif kind in (np.complex64, np.complex128):
        pairs = np.stack([proto_values.real, proto_values.imag], axis=-1).ravel().tolist()
        if kind == np.complex64:
            tensor_proto.scomplex_val.extend(pairs)
        else:
            tensor_proto.dcomplex_val.extend(pairs)
    else:
        raise TypeError(f"Element type not supported in TensorProto: {name}.")


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A `TensorProto` holding `values` (`tf.make_tensor_proto`).

    Python values become a numpy array first: of `dtype` when given, else of numpy's
    type with float64 made float32 and int64 made int32 when that loses nothing. The
    array must match `dtype`; `shape` (at least as many elements) is the proto's shape,
    a smaller array standing for its first elements (`make_ndarray` repeats the last).

    Args:
        values: A Python scalar or (nested) list, a numpy array or scalar, or a
            `TensorProto` (returned unchanged).
        dtype: Optional `tf.DType` (or what converts to one).
        shape: Optional list of ints, the proto's shape.
        verify_shape: Whether `values` must have exactly `shape`.
        allow_broadcast: Whether a scalar or 1-element `values` may stand for `shape`
            (not with `verify_shape`).

    Returns:
        A `TensorProto`; numeric tensors of more than one element keep their bytes in
        `tensor_content` (read them back with `tf.make_ndarray`).

    Raises:
        TypeError: Values of a type not matching `dtype`, or not `shape` with
            `verify_shape` (TF's messages).
        ValueError: `None` values, ragged lists, too many elements for `shape`, or both
            `verify_shape` and `allow_broadcast`.
    """
    from .. import protos
    from . import dtypes, tensor_shape

    if allow_broadcast and verify_shape:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if isinstance(values, protos.TensorProto):
        return values
    if dtype:
        dtype = dtypes.as_dtype(dtype)
    if _is_array_like(values):
        values = np.asarray(values)
    if isinstance(values, (np.ndarray, np.generic)):
        if dtype and dtype.is_numpy_compatible:
            nparray = values.astype(dtype.as_numpy_dtype)
        else:
            nparray = values
    else:
        if values is None:
            raise ValueError("None values not supported.")
        np_dt = dtype.as_numpy_dtype if dtype and dtype.is_numpy_compatible else None
        if shape is not None and np.prod(shape, dtype=np.int64) == 0:
            nparray = np.empty(shape, dtype=np_dt)
        else:
            _assert_compatible(values, dtype)
            nparray = _np_array(values, np_dt)
            if list(nparray.shape) != _dense_dimensions(values):
                raise ValueError(
                    f"Expected values {values} to be a dense tensor with shape "
                    f"{_dense_dimensions(values)}, but got shape {list(nparray.shape)}."
                )
        if nparray.dtype == np.float64 and dtype is None:
            nparray = nparray.astype(np.float32)
        elif nparray.dtype == np.int64 and dtype is None:
            downcasted = nparray.astype(np.int32)
            if np.array_equal(downcasted, nparray):
                nparray = downcasted
    try:
        numpy_dtype = dtypes.as_dtype(nparray.dtype)
    except TypeError:
        raise TypeError(f"Unrecognized data type: {nparray.dtype}.") from None
    if dtype is not None and dtype.base_dtype != numpy_dtype.base_dtype:
        raise TypeError(
            f"`dtype` {dtype} is not compatible with {values} of dtype {nparray.dtype}."
        )
    if shape is None:
        shape = nparray.shape
        is_same_size = True
        shape_size = nparray.size
    else:
        shape = [int(dim) for dim in shape]
        shape_size = np.prod(shape, dtype=np.int64)
        is_same_size = shape_size == nparray.size
        if allow_broadcast:
            if nparray.shape not in ((1,), ()) and nparray.size != shape_size:
                raise TypeError(
                    f"Expected Tensor's shape: {tuple(shape)}, but got {nparray.shape}."
                )
        else:
            if verify_shape and nparray.shape != tuple(shape):
                raise TypeError(
                    f"Expected Tensor's shape: {tuple(shape)}, but got {nparray.shape}."
                )
            if nparray.size > shape_size:
                raise ValueError(
                    f"Too many elements provided. Takes at most {shape_size:d}, but got "
                    f"{nparray.size:d}."
                )
    tensor_proto = protos.TensorProto(
        dtype=numpy_dtype.as_datatype_enum,
        tensor_shape=tensor_shape.as_shape(shape).as_proto(),
    )
    if is_same_size and numpy_dtype in _tensor_content_types() and shape_size > 1:
        if nparray.size * nparray.itemsize >= (1 << 31):
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        tensor_proto.tensor_content = nparray.tobytes()
        return tensor_proto
    if numpy_dtype == dtypes.string and not isinstance(values, np.ndarray):
        try:
            str_values = [_as_bytes(x) for x in _flatten_to_strings(values)]
        except TypeError:
            raise TypeError(
                f"Failed to convert elements of {values} to Tensor. Consider casting elements "
                "to a supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes "
                "for supported TF dtypes."
            ) from None
        tensor_proto.string_val.extend(str_values)
        return tensor_proto
    _append_values(tensor_proto, nparray.ravel(), numpy_dtype.name)
    return tensor_proto


def make_ndarray(tensor):
    """The numpy array that the `TensorProto` `tensor` holds (`tf.make_ndarray`).

    Values shorter than the shape are padded with their last one (zeros when there
    are none), as TF reads them.

    Args:
        tensor: A `TensorProto` (ferroflow's, or any message with its fields).

    Returns:
        A numpy array of the proto's shape and dtype (`object` of bytes for strings).

    Raises:
        TypeError: For a dtype ferroflow does not have.
    """
    from . import dtypes

    shape = [d.size for d in tensor.tensor_shape.dim]
    num_elements = np.prod(shape, dtype=np.int64)
    try:
        tensor_dtype = dtypes.as_dtype(tensor.dtype)
    except TypeError:
        raise TypeError(
            f"Unsupported tensor type: {tensor.dtype}. See "
            "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes."
        ) from None
    dtype = tensor_dtype.as_numpy_dtype
    if tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, dtype=dtype).copy().reshape(shape)
    values: Any
    if tensor_dtype == dtypes.string:
        strings = list(tensor.string_val)
        padding = num_elements - len(strings)
        if padding > 0:
            last = strings[-1] if strings else ""
            strings.extend([last] * padding)
        return np.array(strings, dtype=dtype).reshape(shape)
    if tensor_dtype in (dtypes.float16, dtypes.bfloat16):
        values = np.fromiter(tensor.half_val, dtype=np.uint16).view(dtype)
    elif tensor_dtype == dtypes.float32:
        values = np.fromiter(tensor.float_val, dtype=dtype)
    elif tensor_dtype == dtypes.float64:
        values = np.fromiter(tensor.double_val, dtype=dtype)
    elif tensor_dtype in (dtypes.int32, dtypes.uint8, dtypes.uint16, dtypes.int16, dtypes.int8):
        values = np.fromiter(tensor.int_val, dtype=dtype)
    elif tensor_dtype == dtypes.int64:
        values = np.fromiter(tensor.int64_val, dtype=dtype)
    elif tensor_dtype == dtypes.uint32:
        values = np.fromiter(tensor.uint32_val, dtype=dtype)
    elif tensor_dtype == dtypes.uint64:
        values = np.fromiter(tensor.uint64_val, dtype=dtype)
    elif tensor_dtype == dtypes.bool:
        values = np.fromiter(tensor.bool_val, dtype=dtype)
    elif tensor_dtype in (dtypes.complex64, dtypes.complex128):
        pairs = tensor.scomplex_val if tensor_dtype == dtypes.complex64 else tensor.dcomplex_val
        parts: np.ndarray = np.fromiter(pairs, dtype=tensor_dtype.real_dtype.as_numpy_dtype)
        values = parts[0::2] + 1j * parts[1::2] if parts.size else parts
        values = values.astype(dtype)
    else:
        raise TypeError(
            f"Unsupported tensor type: {tensor.dtype}. See "
            "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported TF dtypes."
        )
    if values.size == 0:
        return np.zeros(shape, dtype)
    if values.size != num_elements:
        values = np.pad(values, (0, num_elements - values.size), "edge")
    return values.reshape(shape)


MakeNdarray = make_ndarray
