"""The `tf.assert_*` family (TF-1.x `check_ops`).

Each returns an op to depend on (`tf.control_dependencies`) that fails the step with
`InvalidArgumentError` when the condition does not hold. As in TensorFlow, a check
that can be decided while the graph is built (constant inputs, static ranks and
dtypes) is decided then: it raises at once, and a passing rank/type check returns a
`no_op`.
"""

from __future__ import annotations

import numpy as np

from .. import errors
from ..framework import dtypes, ops
from ..framework.tensor_util import constant_value
from . import array_ops, control_flow_ops, math_ops
from .logging_ops import Assert


def _message_prefix(message):
    return f"{message}.  " if message else ""


def _constant_string(t):
    if not isinstance(t, ops.Tensor):
        return str(t)
    value = constant_value(t)
    return str(value) if value is not None else str(t)


def _assert_static(condition, data):
    if not condition:
        raise errors.InvalidArgumentError(
            node_def=None, op=None, message="\n".join(_constant_string(d) for d in data)
        )


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name):
    with ops.name_scope(name, opname, [x, y, data]):
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y")
        if data is None:
            data = [
                f"Condition x {sym} y did not hold element-wise:",
                f"x ({x.name}) = ",
                x,
                f"y ({y.name}) = ",
                y,
            ]
        if message is not None:
            data = [message, *data]
        condition = math_ops.reduce_all(op_func(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(np.all(static_func(x_static, y_static)), data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts `x == y` element-wise (broadcasting); see the module docstring."""
    if x is y:
        with ops.name_scope(name, "assert_equal", [x, y]):
            return control_flow_ops.no_op()
    return _binary_assert(
        "==", "assert_equal", math_ops.equal, np.equal, x, y, data, summarize, message, name
    )


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts `x != y` element-wise."""
    return _binary_assert(
        "!=",
        "assert_none_equal",
        math_ops.not_equal,
        np.not_equal,
        x,
        y,
        data,
        summarize,
        message,
        name,
    )


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts `x < y` element-wise."""
    return _binary_assert(
        "<", "assert_less", math_ops.less, np.less, x, y, data, summarize, message, name
    )


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts `x <= y` element-wise."""
    return _binary_assert(
        "<=",
        "assert_less_equal",
        math_ops.less_equal,
        np.less_equal,
        x,
        y,
        data,
        summarize,
        message,
        name,
    )


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts `x > y` element-wise."""
    return _binary_assert(
        ">", "assert_greater", math_ops.greater, np.greater, x, y, data, summarize, message, name
    )


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts `x >= y` element-wise."""
    return _binary_assert(
        ">=",
        "assert_greater_equal",
        math_ops.greater_equal,
        np.greater_equal,
        x,
        y,
        data,
        summarize,
        message,
        name,
    )


def _sign_assert(opname, text, zero_first, check, x, data, summarize, message, name):
    message = _message_prefix(message)
    with ops.name_scope(name, opname, [x, data]):
        x = ops.convert_to_tensor(x, name="x")
        if data is None:
            data = [message, text, f"x ({x.name}) = ", x]
            if opname == "assert_non_positive":
                # TF's list lacks a comma here: the two strings are one entry.
                data[1:3] = [data[1] + data[2]]
        zero = ops.convert_to_tensor(0, dtype=x.dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return check(a, b, data=data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """Asserts `x > 0` element-wise."""
    text = "Condition x > 0 did not hold element-wise:"
    return _sign_assert(
        "assert_positive", text, True, assert_less, x, data, summarize, message, name
    )


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """Asserts `x < 0` element-wise."""
    text = "Condition x < 0 did not hold element-wise:"
    return _sign_assert(
        "assert_negative", text, False, assert_less, x, data, summarize, message, name
    )


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """Asserts `x >= 0` element-wise."""
    text = "Condition x >= 0 did not hold element-wise:"
    return _sign_assert(
        "assert_non_negative", text, True, assert_less_equal, x, data, summarize, message, name
    )


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """Asserts `x <= 0` element-wise."""
    text = "Condition x <= 0 did not hold element-wise:"
    return _sign_assert(
        "assert_non_positive", text, False, assert_less_equal, x, data, summarize, message, name
    )


def _rank_assert(opname, words, static_ok, dynamic_op, x, rank, data, summarize, message, name):
    with ops.name_scope(name, opname, [x, rank, *(data or [])]):
        x = ops.convert_to_tensor(x, name="x")
        rank = ops.convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        if data is None:
            data = [message, f"Tensor {x.name} must have {words}", rank, "Received shape: "]
            data.append(array_ops.shape(x))
        if rank.dtype != dtypes.int32:
            raise TypeError(f"{rank.name} must be of type {dtypes.int32!r}; got {rank.dtype!r}")
        rank_static = constant_value(rank)
        if rank_static is not None:
            if np.ndim(rank_static) != 0:
                raise ValueError("Rank must be a scalar.")
            x_rank = x.shape.ndims
            if x_rank is not None:
                if not static_ok(x_rank, int(rank_static)):
                    raise ValueError(
                        f"{message}Tensor {x.name} must have {words} {int(rank_static)}.  "
                        f"Received rank {x_rank}, shape {x.shape}"
                    )
                return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        condition = dynamic_op(array_ops.rank(x), rank)
        if rank_static is None:
            rank_check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
            with ops.control_dependencies([rank_check]):
                condition = array_ops.identity(condition)
        return Assert(condition, data, summarize=summarize)


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Asserts that `x` has rank `rank` (a static mismatch is a `ValueError`)."""
    return _rank_assert(
        "assert_rank",
        "rank",
        lambda actual, want: actual == want,
        math_ops.equal,
        x,
        rank,
        data,
        summarize,
        message,
        name,
    )


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Asserts that `x` has rank `rank` or more (a static failure is a `ValueError`)."""
    return _rank_assert(
        "assert_rank_at_least",
        "rank at least",
        lambda actual, want: actual >= want,
        math_ops.greater_equal,
        x,
        rank,
        data,
        summarize,
        message,
        name,
    )


def assert_type(tensor, tf_type, message=None, name=None):
    """Checks the dtype while the graph is built: `TypeError`, or a `no_op`."""
    tf_type = dtypes.as_dtype(tf_type)
    with ops.name_scope(name, "assert_type", [tensor]):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(
                f"{_message_prefix(message)}{tensor.name} must be of type {tf_type!r}; "
                f"got {tensor.dtype!r}"
            )
        return control_flow_ops.no_op("statically_determined_correct_type")


def assert_integer(x, message=None, name=None):
    """Checks that `x` has an integer dtype while the graph is built (`TypeError`)."""
    with ops.name_scope(name, "assert_integer", [x]):
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(
                f'{_message_prefix(message)}Expected "x" to be integer type.  '
                f"Found: {x.name} of dtype {x.dtype}"
            )
        return control_flow_ops.no_op("statically_determined_was_integer")


def assert_scalar(tensor, name=None, message=None):
    """`tensor` when its static shape is a scalar, else `ValueError`."""
    with ops.name_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = ops.convert_to_tensor(tensor, name=scope)
        shape = tensor.shape
        if shape.ndims != 0:
            raise ValueError(
                f"{_message_prefix(message)}Expected scalar shape for {tensor.name}, "
                f"saw shape: {shape}."
            )
        return tensor
