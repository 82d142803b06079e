"""Index-structured array ops: tile, pad, split, one_hot and strided slicing.

Strided slicing is `tf.strided_slice` and `Tensor.__getitem__`.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..framework import constant_op, dtypes, ops
from . import array_ops
from ._op_util import convert_same_type, is_tensor_like, make_op
from .array_ops import _int_vector


def tile(input, multiples, name=None):
    """`input` repeated `multiples[i]` times along dimension `i`."""
    with ops.name_scope(name, "Tile", [input, multiples]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        m = _int_vector(multiples, "multiples")
        return make_op("Tile", [x, m], scope=scope).outputs[0]


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """`tensor` with `paddings[i] = [before, after]` elements added around dimension `i`.

    Args:
        tensor: The tensor to pad.
        paddings: An int `[rank, 2]` tensor or nested list.
        mode: `"CONSTANT"` (fill with `constant_values`), `"REFLECT"` (mirror without
            the edge: at most `dim - 1` per side) or `"SYMMETRIC"` (mirror with the
            edge: at most `dim`); case-insensitive.
        name: Name of the op.
        constant_values: The scalar to pad with in `CONSTANT` mode (same dtype as
            `tensor`).

    Raises:
        ValueError: an unknown `mode`.
    """
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(
            "Value of argument `mode` expected to be one of "
            '"CONSTANT", "REFLECT", or "SYMMETRIC". '
            f"Received `mode` = {mode}"
        )
    op_type = "Pad" if mode == "CONSTANT" else "MirrorPad"
    with ops.name_scope(name, op_type, [tensor, paddings]) as scope:
        x = ops.convert_to_tensor(tensor, name="input")
        p = _int_vector(paddings, "paddings")
        if mode != "CONSTANT":
            return make_op("MirrorPad", [x, p], {"mode": mode.encode()}, scope=scope).outputs[0]
        if not is_tensor_like(constant_values) and constant_values == 0:
            return make_op("Pad", [x, p], scope=scope).outputs[0]
        c = ops.convert_to_tensor(constant_values, dtype=x.dtype.base_dtype, name="constant_values")
        return make_op("PadV2", [x, p, c], scope=scope).outputs[0]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits `value` along `axis` into equal pieces or pieces of the given sizes.

    Args:
        value: The tensor to split.
        num_or_size_splits: The number of equal pieces, or a 1-D list/tensor of sizes
            (one may be -1: the rest).
        axis: The dimension to split.
        num: The number of pieces when `num_or_size_splits` is a tensor of unknown length.
        name: Name of the op.

    Returns:
        A list of tensors.
    """
    if isinstance(num_or_size_splits, numbers.Integral) and not isinstance(
        num_or_size_splits, bool
    ):
        with ops.name_scope(name, "split", [value]) as scope:
            a = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="split_dim")
            x = ops.convert_to_tensor(value, name="value")
            attrs = {"num_split": int(num_or_size_splits)}
            return list(make_op("Split", [a, x], attrs, scope=scope).outputs)
    with ops.name_scope(name, "split", [value, num_or_size_splits]) as scope:
        sizes = _int_vector(num_or_size_splits, "size_splits")
        if num is None:
            n = sizes.shape.num_elements() if sizes.shape.ndims == 1 else None
            if n is None:
                raise ValueError(f"Cannot infer argument `num` from shape {sizes.shape}")
            num = n
        x = ops.convert_to_tensor(value, name="value")
        a = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="split_dim")
        return list(make_op("SplitV", [x, sizes, a], {"num_split": int(num)}, scope=scope).outputs)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors: `on_value` where `indices` equals the position, else `off_value`.

    Args:
        indices: uint8, int32 or int64 indices; out-of-range ones give all `off_value`.
        depth: Length of each one-hot vector.
        on_value: Value at the index (default 1).
        off_value: Value elsewhere (default 0).
        axis: Where the new dimension goes (default -1: last).
        dtype: Output type (default: that of `on_value`/`off_value`, else float32).
        name: Name of the op.
    """
    with ops.name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        # As TF: given values convert first (preferring `dtype`) and fix the dtype;
        # missing ones are made in it.
        given = {}
        for key, v in (("on", on_value), ("off", off_value)):
            if v is not None:
                given[key] = _convert_with_hint(v, dtype)
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype).base_dtype
            for key, t in given.items():
                if t.dtype.base_dtype != dtype:
                    raise TypeError(
                        f"dtype {t.dtype.base_dtype} of {key}_value does not match dtype "
                        f"parameter {dtype}"
                    )
        elif given:
            dtype = next(iter(given.values())).dtype.base_dtype
        else:
            dtype = dtypes.float32
        on = given.get("on")
        if on is None:
            on = ops.convert_to_tensor(1, dtype=dtype, name="on_value")
        off = given.get("off")
        if off is None:
            off = ops.convert_to_tensor(0, dtype=dtype, name="off_value")
        if on.dtype.base_dtype != off.dtype.base_dtype:
            raise TypeError(
                f"dtype {on.dtype.base_dtype} of on_value does not match dtype "
                f"{off.dtype.base_dtype} of off_value"
            )
        idx = ops.convert_to_tensor(indices, name="indices")
        d = ops.convert_to_tensor(depth, dtype=dtypes.int32, name="depth")
        attrs = {"axis": -1 if axis is None else int(axis)}
        return make_op("OneHot", [idx, d, on, off], attrs, scope=scope).outputs[0]


def _convert_with_hint(value, dtype):
    """`value` as a tensor of `dtype` when it converts to it, else of its own type."""
    if dtype is not None and not is_tensor_like(value):
        try:
            return ops.convert_to_tensor(value, dtype=dtype)
        except (TypeError, ValueError):
            pass
    return ops.convert_to_tensor(value)


def strided_slice(
    input_,
    begin,
    end,
    strides=None,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    var=None,
    name=None,
):
    """Python-style strided slicing, with TF's bit masks (see `Tensor.__getitem__`)."""
    with ops.name_scope(name, "StridedSlice", [input_, begin, end, strides]) as scope:
        x = ops.convert_to_tensor(input_, name="input")
        b = _int_vector(begin, "begin")
        e = _int_vector(end, "end")
        if strides is None:
            # TF's `ones_like(begin)`: a tensor `begin` may have no static length.
            strides = (
                array_ops.ones_like(b) if is_tensor_like(begin) else np.ones(len(begin), np.int32)
            )
        s = _int_vector(strides, "strides")
        attrs = {
            "begin_mask": int(begin_mask),
            "end_mask": int(end_mask),
            "ellipsis_mask": int(ellipsis_mask),
            "new_axis_mask": int(new_axis_mask),
            "shrink_axis_mask": int(shrink_axis_mask),
        }
        return make_op("StridedSlice", [x, b, e, s], attrs, scope=scope).outputs[0]


def _is_index_tensor(s) -> bool:
    return isinstance(s, ops.Tensor) and s.dtype.base_dtype in (dtypes.int32, dtypes.int64)


def _pack(values, name):
    if any(is_tensor_like(v) for v in values):
        tensors = convert_same_type(values, [f"{name}_{i}" for i in range(len(values))])
        return array_ops.stack(tensors, name=name)
    return constant_op.constant(np.asarray(values, np.int32), name=name)


def slice_helper(tensor, slice_spec):
    """`tensor[slice_spec]` as one `StridedSlice` (TF's `_slice_helper`).

    Integers and scalar int tensors pick (and remove) a dimension, slices (`a:b:c`)
    keep it, `...` stands for all dimensions not otherwise named, and `None`
    (`tf.newaxis`) inserts a dimension of size 1.
    """
    if not isinstance(slice_spec, tuple):
        slice_spec = (slice_spec,)
    # Python ints, or scalar int tensors where the index is one.
    begin: list[int | ops.Tensor] = []
    end: list[int | ops.Tensor] = []
    strides: list[int | ops.Tensor] = []
    masks = {"begin": 0, "end": 0, "ellipsis": 0, "new_axis": 0, "shrink": 0}
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, slice):
            for part, lst, key in ((s.start, begin, "begin"), (s.stop, end, "end")):
                _check_index(part, allow_none=True)
                if part is None:
                    lst.append(0)
                    masks[key] |= bit
                else:
                    lst.append(part)
            _check_index(s.step, allow_none=True)
            strides.append(1 if s.step is None else s.step)
        elif s is Ellipsis or s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis" if s is Ellipsis else "new_axis"] |= bit
        else:
            _check_index(s, allow_none=False)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            masks["shrink"] |= bit
    with ops.name_scope(None, "strided_slice", [tensor]) as scope:
        if begin:
            packed = [_pack(begin, "stack"), _pack(end, "stack_1"), _pack(strides, "stack_2")]
        else:
            empty = constant_op.constant(np.zeros(0, np.int32))
            packed = [empty, empty, empty]
        x = ops.convert_to_tensor(tensor)
        attrs = {
            "begin_mask": masks["begin"],
            "end_mask": masks["end"],
            "ellipsis_mask": masks["ellipsis"],
            "new_axis_mask": masks["new_axis"],
            "shrink_axis_mask": masks["shrink"],
        }
        return make_op("StridedSlice", [x, *packed], attrs, scope=scope).outputs[0]


def _check_index(idx, allow_none):
    if idx is None and allow_none:
        return
    if isinstance(idx, numbers.Integral) and not isinstance(idx, bool):
        return
    if _is_index_tensor(idx) and idx.shape.ndims in (None, 0):
        return
    raise TypeError(
        "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
        f"tf.int32/tf.int64 tensors are valid indices, got {idx!r}"
    )


# `t[...]` (TF installs it from array_ops): the framework's Tensor knows no op module.
ops.Tensor._override_operator("__getitem__", slice_helper)
