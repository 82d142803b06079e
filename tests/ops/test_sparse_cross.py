"""`tf.sparse.cross` / `cross_hashed` (`SparseCross`) against TensorFlow."""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff


def _inputs(tf):
    a = tf.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]], ["a", "b", "c", "d"], [4, 2])
    b = tf.SparseTensor([[0, 0], [1, 0], [3, 0], [3, 1]], [7, -2, 5, 9], [4, 2])
    c = tf.constant([["f"], ["g"], ["h"], ["i"]])
    d = tf.constant([[1, 2], [3, 4], [5, 6], [7, 8]], tf.int64)
    return a, b, c, d


CASES = {
    "strings": lambda ins: [ins[0], ins[2]],
    "mixed": lambda ins: [ins[0], ins[1], ins[2]],
    "ints_and_dense": lambda ins: [ins[1], ins[3]],
    "dense_only": lambda ins: [ins[2], ins[3]],
}


def _sparse(tf, fn, case, **kwargs):
    sp = fn(CASES[case](_inputs(tf)), **kwargs)
    return [sp.indices, sp.values, sp.dense_shape]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize(
    "kwargs", [None, {}, {"num_buckets": 1000}, {"num_buckets": 7, "hash_key": 123}]
)
def test_cross_matches_tensorflow(tf1, case, kwargs):
    def build(tf):
        if kwargs is None:
            return _sparse(tf, tf.sparse.cross, case)
        return _sparse(tf, tf.sparse.cross_hashed, case, **kwargs)

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_cross_errors():
    with pytest.raises(TypeError, match="must be a list"):
        run_ff(lambda tf: tf.sparse.cross(tf.constant([["a"]])))
    with pytest.raises(ff.errors.InvalidArgumentError, match="Expected batch size"):
        run_ff(
            lambda tf: (
                tf.sparse.cross(
                    [tf.constant([["a"], ["b"]]), tf.constant([["c"], ["d"], ["e"]])]
                ).values
            )
        )
