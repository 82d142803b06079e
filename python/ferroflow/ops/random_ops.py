"""Random ops: normal, truncated normal, uniform and shuffle, seeded as in TF 1.x.

Each op's numbers come from TF's Philox stream for its `(seed, seed2)` pair (see
`framework.random_seed.get_seed`), so a graph with a graph-level seed, or ops with
op-level seeds, gives the same numbers on every run of the program, and the same
numbers TensorFlow gives for the same seeds.
"""

from __future__ import annotations

from ..framework import dtypes, ops, random_seed
from . import math_ops
from ._op_util import make_op
from .array_ops import _int_vector


def _seed_attrs(seed) -> dict:
    seed1, seed2 = random_seed.get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


def _float_dtype(dtype, op_name):
    dtype = dtypes.as_dtype(dtype).base_dtype
    if not dtype.is_floating:
        raise ValueError(
            f"Invalid dtype {dtype!r} for {op_name}: expected float16, bfloat16, float32 or float64"
        )
    return dtype


def _normal(op_type, default_name, shape, mean, stddev, dtype, seed, name):
    dtype = _float_dtype(dtype, default_name)
    with ops.name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape_tensor = _int_vector(shape, "shape")
        mean_tensor = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_tensor = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        attrs = {"dtype": dtype, **_seed_attrs(seed)}
        rnd = make_op(op_type, [shape_tensor], attrs, name=op_type).outputs[0]
        mul = rnd * stddev_tensor
        return math_ops.add(mul, mean_tensor, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Values from a normal distribution.

    Args:
        shape: 1-D int tensor or Python list: the output shape.
        mean: Mean of the distribution (scalar of `dtype`).
        stddev: Standard deviation (scalar of `dtype`).
        dtype: float16, bfloat16, float32 or float64.
        seed: Op-level seed; see `tf.set_random_seed`.
        name: Name of the operation.

    Returns:
        A tensor of `shape` with fresh values on every run.
    """
    return _normal("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Values from a normal distribution, redrawn when beyond two standard deviations.

    Same arguments as `random_normal`.
    """
    return _normal("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed, name)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Values uniformly distributed in `[minval, maxval)`.

    Args:
        shape: 1-D int tensor or Python list: the output shape.
        minval: Lower bound (inclusive).
        maxval: Upper bound (exclusive); defaults to 1 for floats and is required
            for integer types.
        dtype: float16, bfloat16, float32, float64, int32 or int64.
        seed: Op-level seed; see `tf.set_random_seed`.
        name: Name of the operation.

    Raises:
        ValueError: for another dtype, or an integer dtype without `maxval`.
    """
    dtype = dtypes.as_dtype(dtype).base_dtype
    accepted = (
        dtypes.float16,
        dtypes.bfloat16,
        dtypes.float32,
        dtypes.float64,
        dtypes.int32,
        dtypes.int64,
    )
    if dtype not in accepted:
        raise ValueError(
            f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
            f"{', '.join(repr(d) for d in accepted)}."
        )
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with ops.name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_tensor = _int_vector(shape, "shape")
        # [0, 1) floats need neither bound, as in TF (an `is`-style check on ints).
        minval_is_zero = type(minval) is int and minval == 0
        maxval_is_one = type(maxval) is int and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            minval = ops.convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
        attrs = _seed_attrs(seed)
        if dtype.is_integer:
            inputs = [shape_tensor, minval, maxval]
            return make_op("RandomUniformInt", inputs, attrs, scope=scope).outputs[0]
        attrs["dtype"] = dtype
        result = make_op("RandomUniform", [shape_tensor], attrs, name="RandomUniform").outputs[0]
        if minval_is_zero:
            if not maxval_is_one:
                result = math_ops.multiply(result, maxval)
            return result
        return math_ops.add(result * (maxval - minval), minval, name=scope)


def random_shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted (a new order on every run)."""
    attrs = _seed_attrs(seed)
    with ops.name_scope(name, "RandomShuffle", [value]) as scope:
        value = ops.convert_to_tensor(value, name="value")
        return make_op("RandomShuffle", [value], attrs, scope=scope).outputs[0]


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """Draws samples from categorical distributions (TF-1.x's `tf.multinomial`).

    Args:
        logits: A `[batch_size, num_classes]` float tensor: each row holds the
            unnormalized log-probabilities of the classes.
        num_samples: A scalar int32: how many samples to draw per row.
        seed: An op-level seed (see `tf.set_random_seed`).
        name: Name of the op.
        output_dtype: `int64` (the default) or `int32`.

    Returns:
        A `[batch_size, num_samples]` tensor of class indices.
    """
    with ops.name_scope(name, "multinomial", [logits]):
        return _categorical(logits, num_samples, output_dtype, seed)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Draws samples from categorical distributions (`tf.random.categorical`).

    Args:
        logits: A `[batch_size, num_classes]` float tensor of unnormalized
            log-probabilities.
        num_samples: A scalar int32: how many samples to draw per row.
        dtype: `int64` (the default) or `int32`.
        seed: An op-level seed (see `tf.set_random_seed`).
        name: Name of the op.

    Returns:
        A `[batch_size, num_samples]` tensor of class indices.
    """
    with ops.name_scope(name, "categorical", [logits]):
        return _categorical(logits, num_samples, dtype, seed)


def _categorical(logits, num_samples, dtype, seed):
    logits = ops.convert_to_tensor(logits, name="logits")
    num_samples = ops.convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
    attrs = {
        **_seed_attrs(seed),
        "output_dtype": dtypes.as_dtype(dtype) if dtype is not None else dtypes.int64,
    }
    return make_op("Multinomial", [logits, num_samples], attrs).outputs[0]
