"""Gradient clipping (TF-1.x `clip_ops`), composed of graph ops with TF's formulas.

Each accepts `IndexedSlices` (clipping their values) and, for the list functions,
None entries (passed through).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from ..framework import constant_op, dtypes, ops
from ..framework.indexed_slices import IndexedSlices
from . import array_ops, math_ops, nn_ops


def _values(t, name="t"):
    return ops.convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def _like(t, values):
    return (
        IndexedSlices(values, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else values
    )


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """`t` with every element clamped to `[clip_value_min, clip_value_max]`.

    Raises:
        ValueError: The bounds would broadcast `t` to another shape.
    """
    with ops.name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = _values(t)
        t_min = math_ops.minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = math_ops.maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
        return _like(t, t_max)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t * clip_norm / max(l2norm(t), clip_norm)` (the L2 norm over `axes`, default all)."""
    with ops.name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = _values(t)
        if isinstance(clip_norm, numbers.Real):  # Python or numpy number
            clip_norm = max(float(clip_norm), 0.0)
        else:
            clip_norm = array_ops.cast(math_ops.maximum(clip_norm, 0), values.dtype)
        l2sum = math_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # TF's two-tap `where`: no NaN gradient from sqrt(0).
        l2sum_safe = array_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
        l2norm = array_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        clipped = array_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm), name=scope)
        return _like(t, clipped)


def _check_list(t_list):
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def global_norm(t_list, name=None):
    """`sqrt(sum(l2norm(t) ** 2))` over the tensors of `t_list` (None entries skipped).

    Raises:
        TypeError: `t_list` is not a sequence.
    """
    t_list = _check_list(t_list)
    with ops.name_scope(name, "global_norm", [t for t in t_list if t is not None]):
        values = [_values(t, f"t_{i}") if t is not None else None for i, t in enumerate(t_list)]
        half_squared = [nn_ops.l2_loss(v) for v in values if v is not None]
        total = math_ops.reduce_sum(array_ops.stack(half_squared))
        two = constant_op.constant(2.0, dtype=total.dtype)
        return math_ops.sqrt(total * two, name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor by `clip_norm / max(global_norm, clip_norm)`.

    Returns:
        `(clipped list, the global norm)`; a non-finite norm makes every value NaN.

    Raises:
        TypeError: `t_list` is not a sequence.
    """
    t_list = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    present = [t for t in t_list if t is not None]
    with ops.name_scope(name, "clip_by_global_norm", [*present, clip_norm]) as scope:
        one = constant_op.constant(1.0, dtype=use_norm.dtype)
        scale_for_finite = clip_norm * math_ops.minimum(1.0 / use_norm, one / clip_norm)
        # use_norm - use_norm is 0 for a finite norm and NaN otherwise.
        scale = scale_for_finite + (use_norm - use_norm)
        clipped: list[ops.Tensor | IndexedSlices | None] = []
        for i, t in enumerate(t_list):
            if t is None:
                clipped.append(None)
                continue
            v = _values(t, f"t_{i}")
            c = array_ops.identity(v * array_ops.cast(scale, v.dtype), name=f"{scope}_{i}")
            clipped.append(_like(t, c))
        return clipped, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    """`t * clip_norm / max(l2norm(t) / size(t), clip_norm)` (float32 element count)."""
    with ops.name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = ops.convert_to_tensor(t, name="t")
        n = array_ops.cast(array_ops.size(t), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(
            math_ops.reduce_sum(t * t, math_ops.range(0, array_ops.rank(t), 1))
        )
        one = constant_op.constant(1.0)
        return array_ops.identity(
            t * clip_norm * math_ops.minimum(l2norm_inv * n, one / clip_norm), name=scope
        )
