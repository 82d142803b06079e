"""TF-1.x learning-rate schedules: functions of the global step built from graph ops.

Each takes the initial rate and `global_step` (Python numbers or tensors) and returns
the decayed rate as a tensor of the rate's dtype, with TF's formulas.
"""

from __future__ import annotations

import math

from ..framework import ops
from ..ops import array_ops, math_ops


def _require_step(global_step, what):
    if global_step is None:
        raise ValueError(f"global_step is required for {what}.")


def _progress(learning_rate, global_step, decay_steps, staircase):
    """(initial rate tensor, its dtype, step / decay_steps, floored when staircase)."""
    lr = ops.convert_to_tensor(learning_rate, name="learning_rate")
    dtype = lr.dtype.base_dtype
    step = array_ops.cast(global_step, dtype)
    p = step / array_ops.cast(decay_steps, dtype)
    if staircase:
        p = math_ops.floor(p)
    return lr, dtype, p


def _power_decay(default_name, learning_rate, global_step, decay_steps, base, staircase, name):
    """`learning_rate * base(rate tensor) ^ p`: the exponential schedules."""
    with ops.name_scope(name, default_name, [learning_rate, global_step, decay_steps]) as scope:
        lr, dtype, p = _progress(learning_rate, global_step, decay_steps, staircase)
        return math_ops.multiply(lr, math_ops.pow(base(dtype), p), name=scope)


def exponential_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
):
    """`learning_rate * decay_rate ^ (global_step / decay_steps)`.

    With `staircase`, the exponent is floored (the rate drops every `decay_steps`).

    Raises:
        ValueError: `global_step` is None.
    """
    _require_step(global_step, "exponential_decay")

    def base(dtype):
        return array_ops.cast(decay_rate, dtype)

    args = (learning_rate, global_step, decay_steps, base, staircase, name)
    return _power_decay("ExponentialDecay", *args)


def natural_exp_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
):
    """`learning_rate * exp(-decay_rate * global_step / decay_steps)`."""
    _require_step(global_step, "natural_exp_decay")

    def base(dtype):
        return math_ops.exp(math_ops.negative(array_ops.cast(decay_rate, dtype)))

    args = (learning_rate, global_step, decay_steps, base, staircase, name)
    return _power_decay("NaturalExpDecay", *args)


def inverse_time_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
):
    """`learning_rate / (1 + decay_rate * global_step / decay_steps)`."""
    _require_step(global_step, "inverse_time_decay")
    with ops.name_scope(
        name, "InverseTimeDecay", [learning_rate, global_step, decay_steps, decay_rate]
    ) as scope:
        lr, dtype, p = _progress(learning_rate, global_step, decay_steps, staircase)
        denom = 1.0 + array_ops.cast(decay_rate, dtype) * p
        return math_ops.truediv(lr, denom, name=scope)


def polynomial_decay(
    learning_rate,
    global_step,
    decay_steps,
    end_learning_rate=0.0001,
    power=1.0,
    cycle=False,
    name=None,
):
    """From `learning_rate` to `end_learning_rate` over `decay_steps`.

    The rate follows `(1 - step / decay_steps) ^ power`, then stays at the end rate, or
    with `cycle` restarts with the next multiple of `decay_steps` as the period.
    """
    _require_step(global_step, "polynomial_decay")
    with ops.name_scope(
        name,
        "PolynomialDecay",
        [learning_rate, global_step, decay_steps, end_learning_rate, power],
    ) as scope:
        lr = ops.convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype.base_dtype
        end = array_ops.cast(end_learning_rate, dtype)
        power = array_ops.cast(power, dtype)
        step = array_ops.cast(global_step, dtype)
        steps = array_ops.cast(decay_steps, dtype)
        if cycle:
            # The first multiple of decay_steps above the step (1 at step 0).
            multiplier = array_ops.where(
                math_ops.equal(step, 0.0),
                array_ops.ones_like(step),
                math_ops.ceil(step / steps),
            )
            steps = steps * multiplier
        else:
            step = math_ops.minimum(step, steps)
        p = step / steps
        return math_ops.add((lr - end) * math_ops.pow(1 - p, power), end, name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """`learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * t)) + alpha)`.

    `t = min(global_step, decay_steps) / decay_steps`.
    """
    _require_step(global_step, "cosine decay")
    with ops.name_scope(name, "CosineDecay", [learning_rate, global_step]) as scope:
        lr = ops.convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype.base_dtype
        steps = array_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(array_ops.cast(global_step, dtype), steps)
        fraction = step / steps
        pi = ops.convert_to_tensor(math.pi, dtype=dtype)
        cosine = 0.5 * (1.0 + math_ops.cos(pi * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return math_ops.multiply(lr, decayed, name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """A step function of `x`: `values[i]` on the i-th interval of `boundaries`.

    `values[0]` while `x <= boundaries[0]`, `values[i]` while
    `boundaries[i-1] < x <= boundaries[i]`, `values[-1]` after the last boundary.

    Raises:
        ValueError: `len(values) != len(boundaries) + 1`, or mixed value dtypes.
    """
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with ops.name_scope(name, "PiecewiseConstant", [x, *boundaries, *values]) as scope:
        x = ops.convert_to_tensor(x)
        values = [ops.convert_to_tensor(v) for v in values]
        boundaries = [ops.convert_to_tensor(b, dtype=x.dtype.base_dtype) for b in boundaries]
        dtype = values[0].dtype.base_dtype
        for v in values[1:]:
            if v.dtype.base_dtype != dtype:
                raise ValueError(
                    f"Values must have elements all with the same dtype ({dtype} vs "
                    f"{v.dtype.base_dtype})."
                )
        # From the last interval back: each boundary overrides what lies above it.
        result = values[-1]
        for b, v in zip(reversed(boundaries), reversed(values[:-1]), strict=True):
            result = array_ops.where(math_ops.less_equal(x, b), v, result)
        return array_ops.identity(result, name=scope)
