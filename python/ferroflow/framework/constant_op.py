"""`tf.constant` and the conversion of Python/numpy values to constant tensors."""

from __future__ import annotations

import numpy as np

from . import dtypes, ops, tensor_shape

_INT32_MIN, _INT32_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max


def _infer_numpy(value) -> np.ndarray:
    """A numpy array for `value` with TensorFlow's default dtypes.

    numpy values keep their dtype; Python floats become float32, Python ints int32
    (int64 if they do not fit), strings become byte strings.
    """
    if isinstance(value, np.ndarray | np.generic):
        arr = np.asarray(value)
    else:
        arr = np.asarray(value)
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        elif arr.dtype.kind in "iu" and arr.dtype != np.uint8:
            fits = arr.size == 0 or (arr.min() >= _INT32_MIN and arr.max() <= _INT32_MAX)
            arr = arr.astype(np.int32 if fits else np.int64)
    if arr.dtype.kind in "US":
        arr = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(arr)
    elif arr.dtype.kind == "O":
        for item in arr.reshape(-1):
            if not isinstance(item, str | bytes):
                raise TypeError(
                    f"Failed to convert object of type {type(value).__name__} to Tensor. "
                    f"Contents: {value!r}. Consider casting elements to a supported type."
                )
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
    if dtype is None:
        return _infer_numpy(value)
    if isinstance(value, np.ndarray | np.generic):
        arr = np.asarray(value)
        if dtype == dtypes.string:
            return _infer_numpy(arr)
        return arr.astype(dtype.as_numpy_dtype)
    return _check_compatible(value, np.asarray(value), dtype)


def _reshape_for(arr: np.ndarray, shape, verify_shape: bool) -> np.ndarray:
    shape = tensor_shape.as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError(f"Shape {shape} must be fully defined for a constant")
    dims = shape.as_list()
    n = int(np.prod(dims, dtype=np.int64))
    if verify_shape and list(arr.shape) != dims:
        raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, got {arr.shape}.")
    if arr.size == n:
        return arr.reshape(dims)
    if arr.size > n:
        raise TypeError(f"Too many elements provided. Needed at most {n}, but received {arr.size}")
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
