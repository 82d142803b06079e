"""`smart_cond`: `tf.cond` that does nothing when the predicate is known while building.

TF's `tensorflow/python/framework/smart_cond.py` (here among the ops, because it
builds `tf.cond`): `maybe_batch*` (a scalar `keep_input`) and the layers' `training`
argument route through it, so a Python bool or a constant predicate adds no
`Switch`/`Merge` to the graph.
"""

from __future__ import annotations

import numbers

from ..framework import ops, tensor_util
from . import control_flow_ops

__all__ = ["smart_cond", "smart_constant_value"]


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns `true_fn()` if `pred` is true else `false_fn()`.

    A Python bool (or 0/1) or a tensor with a constant value calls one function while
    building; any other predicate builds `tf.cond(pred, true_fn, false_fn)`.

    Args:
        pred: A scalar bool tensor, a Python bool, or 1 or 0.
        true_fn: The callable run (or built) when `pred` is true.
        false_fn: The callable run (or built) when `pred` is false.
        name: Optional name prefix of the `tf.cond`.

    Raises:
        TypeError: If `true_fn` or `false_fn` is not callable, or `pred` is not a
            tensor, a bool, 1 or 0.
    """
    if not callable(true_fn):
        raise TypeError(f"Argument `true_fn` must be callable. Received {true_fn}")
    if not callable(false_fn):
        raise TypeError(f"Argument `false_fn` must be callable. Received {false_fn}")
    pred_value = smart_constant_value(pred)
    if pred_value is not None:
        return true_fn() if pred_value else false_fn()
    return control_flow_ops.cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)


def smart_constant_value(pred):
    """`pred`'s bool value when it is known while building, else None.

    Raises:
        TypeError: If `pred` is not a tensor, a Python bool, 1 or 0.
    """
    if isinstance(pred, ops.Tensor):
        value = tensor_util.constant_value(pred)
        return None if value is None else bool(value)
    if isinstance(pred, bool):
        return pred
    if isinstance(pred, numbers.Integral) and pred in (0, 1):
        return bool(pred)
    raise TypeError(
        "Argument `pred` must be a Tensor, or a Python bool, or 1 or 0. "
        f"Received: pred={pred} of type {type(pred).__name__}"
    )
