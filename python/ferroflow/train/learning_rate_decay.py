"""TF-1.x learning-rate schedules: functions of the global step built from graph ops.

Each takes the initial rate and `global_step` (Python numbers or tensors) and returns
the decayed rate as a tensor of the rate's dtype, with TF's formulas.
"""

from __future__ import annotations

import math

from .._compat import zip_strict
from ..framework import ops
from ..ops import array_ops, math_ops, random_ops


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


def cosine_decay_restarts(
    learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None
):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter).

    Each period decays as `cosine_decay` over `first_decay_steps * t_mul^i` steps, and
    restarts from `learning_rate * m_mul^i`.

    Args:
        learning_rate: The initial rate.
        global_step: The step (not negative).
        first_decay_steps: Steps of the first period.
        t_mul: How much longer each period is than the one before.
        m_mul: How much lower each restart's rate is than the one before.
        alpha: The floor, as a fraction of `learning_rate`.
        name: Name of the op (default `SGDRDecay`).

    Returns:
        The decayed rate, of `learning_rate`'s dtype.
    """
    _require_step(global_step, "cosine decay restarts")
    with ops.name_scope(name, "SGDRDecay", [learning_rate, global_step]) as scope:
        lr = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        first = array_ops.cast(first_decay_steps, dtype)
        alpha = array_ops.cast(alpha, dtype)
        t_mul_t = array_ops.cast(t_mul, dtype)
        m_mul_t = array_ops.cast(m_mul, dtype)
        completed = array_ops.cast(global_step, dtype) / first

        def restarts(geometric):
            if geometric:
                i = math_ops.floor(
                    math_ops.log(1.0 - completed * (1.0 - t_mul_t)) / math_ops.log(t_mul_t)
                )
                sum_r = (1.0 - math_ops.pow(t_mul_t, i)) / (1.0 - t_mul_t)
                return i, (completed - sum_r) / math_ops.pow(t_mul_t, i)
            i = math_ops.floor(completed)
            return i, completed - i

        if isinstance(t_mul, (int, float)):
            # TF decides with a `cond` on t_mul == 1; a Python number decides here.
            i_restart, fraction = restarts(geometric=t_mul != 1.0)
        else:
            # Both computed, one selected (the other may be inf or NaN, unused).
            same = math_ops.equal(t_mul_t, 1.0)
            (i_lin, f_lin), (i_geo, f_geo) = restarts(False), restarts(True)
            i_restart = array_ops.where(same, i_lin, i_geo)
            fraction = array_ops.where(same, f_lin, f_geo)
        m_fac = math_ops.pow(m_mul_t, i_restart)
        pi = ops.convert_to_tensor(math.pi, dtype=dtype)
        cosine = 0.5 * m_fac * (1.0 + math_ops.cos(pi * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return math_ops.multiply(lr, decayed, name=scope)


def _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta, noise):
    """TF's linear-cosine schedule; `noise(linear, step)` perturbs the linear part."""
    lr = ops.convert_to_tensor(learning_rate, name="learning_rate")
    dtype = lr.dtype.base_dtype
    steps = array_ops.cast(decay_steps, dtype)
    step = math_ops.minimum(array_ops.cast(global_step, dtype), steps)
    linear = (steps - step) / steps
    if noise is not None:
        linear = noise(linear, step)
    fraction = 2.0 * num_periods * (step / steps)
    pi = ops.convert_to_tensor(math.pi, dtype=dtype)
    cosine = 0.5 * (1.0 + math_ops.cos(pi * fraction))
    return lr, (alpha + linear) * cosine + beta


def linear_cosine_decay(
    learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None
):
    """`learning_rate * ((alpha + linear) * cosine + beta)` (Bello et al.).

    `linear = (decay_steps - t) / decay_steps`, `cosine = 0.5 * (1 + cos(pi * 2 *
    num_periods * t / decay_steps))`, `t = min(global_step, decay_steps)`.
    """
    _require_step(global_step, "linear cosine decay")
    with ops.name_scope(name, "LinearCosineDecay", [learning_rate, global_step]) as scope:
        lr, decayed = _linear_cosine(
            learning_rate, global_step, decay_steps, num_periods, alpha, beta, None
        )
        return math_ops.multiply(lr, decayed, name=scope)


def noisy_linear_cosine_decay(
    learning_rate,
    global_step,
    decay_steps,
    initial_variance=1.0,
    variance_decay=0.55,
    num_periods=0.5,
    alpha=0.0,
    beta=0.001,
    name=None,
):
    """`linear_cosine_decay` with Gaussian noise on its linear part.

    The noise's variance is `initial_variance / (1 + t)^variance_decay`.
    """
    _require_step(global_step, "noisy linear cosine decay")
    with ops.name_scope(name, "NoisyLinearCosineDecay", [learning_rate, global_step]) as scope:

        def noise(linear, step):
            variance = initial_variance / math_ops.pow(1.0 + step, variance_decay)
            std = math_ops.sqrt(variance)
            return linear + random_ops.random_normal(
                linear.shape.as_list(), stddev=std, dtype=linear.dtype.base_dtype
            )

        lr, decayed = _linear_cosine(
            learning_rate, global_step, decay_steps, num_periods, alpha, beta, noise
        )
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
        for b, v in zip_strict(reversed(boundaries), reversed(values[:-1])):
            result = array_ops.where(math_ops.less_equal(x, b), v, result)
        return array_ops.identity(result, name=scope)


piecewise_constant_decay = piecewise_constant
