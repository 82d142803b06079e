"""`tf.linspace` (`LinSpace`) against TensorFlow."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff


@pytest.mark.parametrize(
    ("start", "stop", "num", "dtype"),
    [
        (0.0, 1.0, 5, "float32"),
        (-3.0, 7.5, 1, "float32"),
        (1e-3, 10.0, 33, "float64"),
        (5.0, -5.0, 4, "float64"),
        (0.1, 0.7, 7, "float32"),
    ],
)
def test_linspace_matches_tensorflow(tf1, start, stop, num, dtype):
    def build(tf):
        x = tf.linspace(tf.constant(start, dtype), tf.constant(stop, dtype), num)
        return [x, tf.lin_space(tf.constant(start, dtype), stop, tf.constant(num, tf.int64))]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    with ff.Graph().as_default():
        assert ff.linspace(start, stop, num).shape.as_list() == [num]


def test_linspace_errors():
    with pytest.raises(ValueError, match="num > 0"):
        run_ff(lambda tf: tf.linspace(0.0, 1.0, 0))
    with pytest.raises(ff.errors.InvalidArgumentError, match="num > 0"):
        n = None

        def build(tf):
            nonlocal n
            n = tf.placeholder(tf.int32, [])
            return tf.linspace(0.0, 1.0, n)

        run_ff(build, lambda g: {n: -1})
