"""`tf.norm` / `tf.linalg.norm` and `tf.range` over mixed argument types, compared with
TensorFlow: values, shapes, and the errors for invalid `ord` and `axis`.
"""

import numpy as np
import pytest

import ferroflow as ff
from conftest import run_ff, run_tf


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


_X = np.random.RandomState(7).randn(2, 3, 4).astype(np.float32)

CASES = [
    ("euclidean", None, False),
    ("euclidean", 1, False),
    ("euclidean", -1, True),
    ("fro", (1, 2), False),
    ("euclidean", (0, 2), True),
    (1, None, False),
    (1, 0, False),
    (1, (1, 2), False),
    (1, [-1, -2], True),
    (2, 2, False),
    (2.0, None, True),
    (np.inf, None, False),
    (np.inf, 1, True),
    (np.inf, (1, 2), False),
    (3, 2, False),
    (0.5, None, False),
    (1.5, (1,), False),
]


@pytest.mark.parametrize(("order", "axis", "keepdims"), CASES)
def test_norm_matches_tf(tf, order, axis, keepdims):
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]

    def build(lib):
        x = lib.constant(_X)
        return lib.norm(x, ord=order, axis=axis, keepdims=keepdims)

    a, b = run_tf(tf, build), run_ff(build)
    assert a.shape == b.shape
    np.testing.assert_allclose(b, a, rtol=1e-5)


def test_norm_static_shapes_and_namespaces(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            x = lib.placeholder(lib.float32, [None, 3, 4])
            assert lib.linalg.norm(x, axis=[1, 2]).shape.as_list() == [None]
            assert lib.norm(x, axis=1, keepdims=True).shape.as_list() == [None, 1, 4]
            assert lib.norm(x).shape.as_list() == []
            assert lib.norm(x, keep_dims=True).shape.as_list() == [1, 1, 1]


@pytest.mark.parametrize(
    ("order", "axis"),
    [("fro", None), ("fro", 0), (0, None), (-1, 1), ("nuclear", (0, 1)), (3, (0, 1))],
)
def test_norm_invalid_ord_raises_as_tf(tf, order, axis):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="'ord' must be a supported"):
                lib.norm(lib.constant(_X), ord=order, axis=axis)


@pytest.mark.parametrize("axis", [(0, 0), (0, 1, 2), 1.5, (0.0, 1)])
def test_norm_invalid_axis_raises_as_tf(tf, axis):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="'axis' must be None, an integer, or a tuple"):
                lib.norm(lib.constant(_X), axis=axis)


def test_matrix_2_norm_needs_svd():
    with pytest.raises(NotImplementedError, match="Svd"):
        ff.norm(ff.constant(_X), ord=2, axis=(1, 2))


def test_norm_gradient_matches_tf(tf):
    def build(lib):
        x = lib.constant(_X)
        return lib.gradients(lib.norm(x, axis=-1), x)[0]

    np.testing.assert_allclose(run_ff(build), run_tf(tf, build), rtol=1e-5)


@pytest.mark.parametrize(
    ("start", "limit", "delta", "dtype"),
    [
        ("t5", None, 1, "float32"),
        ("t5", None, 1, "int64"),
        (0.5, "t5", 1, None),
        ("t5", 10, 2.0, None),
        ("t5", 20, 3, "float64"),
    ],
)
def test_range_casts_tensor_arguments_as_tf(tf, start, limit, delta, dtype):
    def build(lib):
        t5 = lib.constant(5)
        args = [t5 if a == "t5" else a for a in (start, limit, delta)]
        kwargs = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        if args[1] is None:
            return lib.range(args[0], delta=args[2], **kwargs)
        return lib.range(*args, **kwargs)

    a, b = run_tf(tf, build), run_ff(build)
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(a, b)
