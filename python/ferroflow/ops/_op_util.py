"""Helpers shared by the op-building functions: scoped op creation and input conversion."""

from __future__ import annotations

from .._compat import zip_strict
from ..framework import ops


def is_tensor_like(v) -> bool:
    """Whether `v` is a Tensor or converts to one without a constant (a variable)."""
    return isinstance(v, ops.Tensor) or (
        hasattr(v, "_as_graph_element") and not isinstance(v, (str, ops.Operation))
    )


def convert_same_type(values, names, dtype=None):
    """Converts `values` to tensors of one dtype.

    Literals take `dtype`, else the dtype of the first tensor among `values` (so that
    `tf.add(1, x)` and `x + 1` both convert `1` to `x`'s type).
    """
    if dtype is None:
        for v in values:
            if is_tensor_like(v):
                dtype = ops.convert_to_tensor(v).dtype.base_dtype
                break
    # Tensors keep their own dtype: a mismatch is the op's TypeError, as in TF.
    return [
        ops.convert_to_tensor(v, dtype=None if is_tensor_like(v) else dtype, name=n)
        for v, n in zip_strict(values, names)
    ]


def make_op(op_type, inputs, attrs=None, name=None, scope=None):
    """Creates `op_type` named exactly `scope` (an open name scope) or uniquely `name`."""
    inputs = list(inputs)
    g = ops._graph_of(inputs)
    return g._create_op(op_type, inputs, attrs, name=scope if scope else name)


def unary(op_type, x, name=None, dtype=None):
    """One-input, one-output op in TensorFlow's op-wrapper naming."""
    with ops.name_scope(name, op_type, [x]) as scope:
        x = ops.convert_to_tensor(x, dtype=dtype, name="x")
        return make_op(op_type, [x], scope=scope).outputs[0]


def binary(op_type, x, y, name=None, default_name=None):
    """Two-input op whose inputs share one dtype."""
    with ops.name_scope(name, default_name or op_type, [x, y]) as scope:
        x, y = convert_same_type([x, y], ["x", "y"])
        return make_op(op_type, [x, y], scope=scope).outputs[0]
