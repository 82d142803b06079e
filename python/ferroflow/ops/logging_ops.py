"""`tf.Print` and `tf.Assert`: the logging ops of TF-1.x graphs.

Both summarise their `data` tensors as TF does (the first `summarize` elements, nested
brackets, `...` where cut off). `Assert` fails the step with `InvalidArgumentError`
when its condition is false; `Print` passes its input through and writes one line to
standard error each time it runs (the first `first_n` times when given).
"""

from __future__ import annotations

from ..framework import ops
from ._op_util import make_op


def _data_tensors(data):
    if isinstance(data, ops.Tensor) or not isinstance(data, (list, tuple)):
        raise TypeError(f"data must be a list of tensors, got {type(data).__name__}")
    return [ops.convert_to_tensor(d) for d in data]


def Assert(condition, data, summarize=None, name=None):
    """Asserts that `condition` (a scalar bool) is true when the op runs.

    Args:
        condition: Scalar boolean tensor.
        data: Tensors (or values) whose first `summarize` entries the error shows.
        summarize: How many entries of each tensor to show (default 3).
        name: Name of the op (default `Assert`).

    Returns:
        The `Assert` operation: run it, or make other ops depend on it with
        `tf.control_dependencies`.

    Raises:
        ValueError: `condition` is not a scalar.
        TypeError: `condition` is not boolean.
    """
    with ops.name_scope(name, "Assert", [condition, data]):
        if not isinstance(condition, ops.Tensor):
            condition = ops.convert_to_tensor(condition, name="Condition")
        tensors = _data_tensors(data)
        attrs = {} if summarize is None else {"summarize": int(summarize)}
        return make_op("Assert", [condition, *tensors], attrs, name="Assert")


def _assert(condition, data, summarize=3, name=None):
    """The bare `Assert` op (TF's generated wrapper, `gen_logging_ops._assert`).

    Unlike `Assert`, the op is named `name` itself (not `name/Assert`).

    Args:
        condition: Scalar boolean tensor.
        data: Tensors whose first `summarize` entries the error shows.
        summarize: How many entries of each tensor to show.
        name: Name of the op (default `Assert`).

    Returns:
        The `Assert` operation.
    """
    with ops.name_scope(name, "Assert", [condition, data]) as scope:
        condition = ops.convert_to_tensor(condition, name="condition")
        tensors = _data_tensors(data)
        return make_op("Assert", [condition, *tensors], {"summarize": int(summarize)}, scope=scope)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):
    """`input_` unchanged; running it writes `message` and `data` to standard error.

    Args:
        input_: The tensor passed through.
        data: Tensors to print, each as `[v0 v1 v2...]`.
        message: Text printed first.
        first_n: Print only the first `first_n` times the op runs (-1: always).
        summarize: Entries printed per tensor (default 3; negative: all).
        name: Name of the op (default `Print`).

    Returns:
        A tensor equal to `input_`.
    """
    with ops.name_scope(name, "Print", [input_, data]) as scope:
        x = ops.convert_to_tensor(input_, name="input")
        tensors = _data_tensors(data)
        attrs: dict[str, bytes | int] = {}
        if message is not None:
            attrs["message"] = message.encode() if isinstance(message, str) else bytes(message)
        if first_n is not None:
            attrs["first_n"] = int(first_n)
        if summarize is not None:
            attrs["summarize"] = int(summarize)
        return make_op("Print", [x, *tensors], attrs, scope=scope).outputs[0]
