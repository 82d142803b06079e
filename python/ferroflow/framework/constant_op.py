"""`tf.constant` and the conversion of Python/numpy values to constant tensors.

Importing this module registers those conversions with `ops.convert_to_tensor` (as
TF's constant_op does), so `ops` converts values without importing it.
"""

from __future__ import annotations

import numpy as np

from .._compat import zip_strict
from . import dtypes, ops, tensor_shape

_INT32_MIN, _INT32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def _asarray(value) -> np.ndarray:
    """`np.asarray(value)`, with Python strings kept as objects.

    numpy's fixed-width strings drop trailing NUL bytes (a byte string of one NUL
    would become empty), and numpy cannot put bytes that are not ASCII beside a `str`.
    """
    try:
        arr = np.asarray(value)
    except UnicodeError:
        return np.asarray(value, dtype=object)
    if arr.dtype.kind == "O" and isinstance(value, (list, tuple)):
        known = dimensions_as_ints(value)
        if known is not value:
            return _asarray(known)
    return np.asarray(value, dtype=object) if arr.dtype.kind in "US" else arr


def dimensions_as_ints(value):
    """`value` with each known `Dimension` replaced by its int.

    TF converts `[-1, x.shape[1]]` to an int32 tensor; `value` itself is returned
    when it holds none.
    """
    if isinstance(value, tensor_shape.Dimension):
        return value if value.value is None else value.value
    if isinstance(value, (list, tuple)):
        items = [dimensions_as_ints(v) for v in value]
        if any(a is not b for a, b in zip_strict(items, value)):
            return items
    return value


def _infer_numpy(value) -> np.ndarray:
    """A numpy array for `value` with TensorFlow's default dtypes.

    numpy values keep their dtype; Python floats become float32, Python ints int32
    (int64 if they do not fit), strings become byte strings.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
    else:
        arr = _asarray(value)
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        elif arr.dtype.kind in "iu" and arr.dtype != np.uint8:
            fits = arr.size == 0 or (arr.min() >= _INT32_MIN and arr.max() <= _INT32_MAX)
            arr = arr.astype(np.int32 if fits else np.int64)
    if arr.dtype.kind == "O":
        for item in arr.reshape(-1):
            if not isinstance(item, (str, bytes)):
                raise TypeError(
                    f"Failed to convert object of type {type(value).__name__} to Tensor. "
                    f"Contents: {value!r}. Consider casting elements to a supported type."
                )
    if arr.dtype.kind in "USO":
        arr = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(arr)
    return arr


def _check_compatible(value, arr: np.ndarray, dtype: dtypes.DType) -> np.ndarray:
    """Converts a Python value's array to `dtype`, refusing lossy conversions as TF does."""
    target = dtype.as_numpy_dtype
    if dtype == dtypes.string:
        if arr.size == 0:
            # An empty list is an empty string tensor (numpy made it float64).
            return np.empty(arr.shape, dtype=object)
        if arr.dtype.kind not in "OUS":
            raise TypeError(
                f"Expected string, got {value!r} of type '{type(value).__name__}' instead."
            )
        return _infer_numpy(arr)
    if arr.dtype.kind in "OUS":
        raise TypeError(
            f"Expected {dtype.name}, got {value!r} of type '{type(value).__name__}' instead."
        )
    if arr.size == 0:
        return arr.astype(target)
    if dtype.is_integer and arr.dtype.kind == "f":
        raise TypeError(
            f"Expected {dtype.name}, got {value!r} of type '{type(value).__name__}' instead."
        )
    if dtype.is_integer and arr.size and arr.dtype.kind in "iu":
        info = np.iinfo(target)
        if arr.min() < info.min or arr.max() > info.max:
            raise TypeError(
                f"Expected {dtype.name}, got {value!r} of type '{type(value).__name__}' instead."
            )
    return arr.astype(target)


def _to_numpy(value, dtype: dtypes.DType | None) -> np.ndarray:
    if value is None:
        # TF's `make_tensor_proto`.
        raise ValueError("None values not supported.")
    if dtype is None:
        return _infer_numpy(value)
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if dtype == dtypes.string:
            return _infer_numpy(arr)
        return arr.astype(dtype.as_numpy_dtype)
    return _check_compatible(value, _asarray(value), dtype)


def _reshape_for(arr: np.ndarray, shape, verify_shape: bool) -> np.ndarray:
    shape = tensor_shape.as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError(f"Shape {shape} must be fully defined for a constant")
    dims = shape.as_list()
    n = int(np.prod(dims, dtype=np.int64))
    if verify_shape and list(arr.shape) != dims:
        raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {arr.shape}.")
    if arr.size == n:
        return arr.reshape(dims)
    if arr.size > n:
        raise ValueError(f"Too many elements provided. Takes at most {n}, but got {arr.size}.")
    if arr.size == 0:
        raise ValueError(f"Cannot make a tensor of shape {tuple(dims)} from an empty value")
    # TF-1.x pads with the last value (a single value fills the whole tensor).
    flat = arr.reshape(-1)
    return np.concatenate([flat, np.repeat(flat[-1:], n - flat.size)]).reshape(dims)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """Creates a constant tensor.

    Args:
        value: A Python value, nested list or numpy array.
        dtype: Element type; inferred from `value` when None (Python floats become
            float32 and ints int32, as in TensorFlow).
        shape: Optional shape; a value with fewer elements is padded with its last
            element (TF-1.x behaviour).
        name: Name of the op.
        verify_shape: If True, `value` must already have `shape`.

    Returns:
        A constant `Tensor`.

    Raises:
        TypeError: If `value` cannot be represented exactly in `dtype`.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    arr = _to_numpy(value, dtype)
    if shape is not None:
        arr = _reshape_for(arr, shape, verify_shape)
    op = ops.get_default_graph()._create_op("Const", [], {"value": arr}, name=name)
    return op.outputs[0]


def is_constant(t) -> bool:
    """Whether `t` is the output of a `Const` op."""
    return isinstance(t, ops.Tensor) and t.op.type == "Const"


def _constant_tensor_conversion_function(v, dtype=None, name=None, as_ref=False):
    del as_ref  # a constant is never a reference
    return constant(v, dtype=dtype, name=name)


# Lists and tuples first, then any other object (numpy arrays, Python numbers,
# strings): the fallback that user-registered types (priority 100) run before.
ops.register_tensor_conversion_function((list, tuple), _constant_tensor_conversion_function, 100)
ops.register_tensor_conversion_function(object, _constant_tensor_conversion_function, 200)


def _tensor_shape_tensor_conversion_function(s, dtype=None, name=None, as_ref=False):
    """A fully defined `TensorShape` as an int32 (int64 if a dimension needs it) vector."""
    del as_ref
    if not s.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {s} to a Tensor.")
    s_list = s.as_list()
    int64_value = next((d for d in s_list if d >= 2**31), 0)
    if dtype is not None:
        if dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(
                f"Cannot convert TensorShape {s} to dtype {dtype}. "
                "Allowed dtypes are tf.int32 and tf.int64."
            )
        if dtype == dtypes.int32 and int64_value:
            raise ValueError(
                f"Cannot convert TensorShape {s} to dtype int32; "
                "a dimension is too large. Consider using tf.int64."
            )
    else:
        dtype = dtypes.int64 if int64_value else dtypes.int32
    return constant(s_list, dtype=dtype, name=name or "shape_as_tensor")


def _dimension_tensor_conversion_function(d, dtype=None, name=None, as_ref=False):
    """A known `Dimension` as an int32 (or int64) scalar."""
    del as_ref
    if d.value is None:
        raise ValueError(f"Cannot convert unknown Dimension {d} to a Tensor.")
    if dtype is not None:
        if dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(
                f"Cannot convert Dimension {d} to dtype {dtype}. "
                "Allowed dtypes are tf.int32 and tf.int64."
            )
    else:
        dtype = dtypes.int32
    return constant(d.value, dtype=dtype, name=name or "shape_as_tensor")


ops.register_tensor_conversion_function(
    tensor_shape.TensorShape, _tensor_shape_tensor_conversion_function, 100
)
ops.register_tensor_conversion_function(
    tensor_shape.Dimension, _dimension_tensor_conversion_function, 100
)
