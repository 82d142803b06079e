"""Math ops: values against numpy, static shapes and errors against TensorFlow."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ferroflow as ff
from conftest import assert_same_tensors, build_both, run_ff, run_tf

BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "squared_difference": lambda a, b: np.square(a - b),
}
UNARY_FLOAT = {
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "sin": np.sin,
    "cos": np.cos,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "reciprocal": lambda x: 1 / x,
}
UNARY_NUMERIC = {"negative": np.negative, "square": np.square, "abs": np.abs, "sign": np.sign}

finite = {"allow_nan": False, "allow_infinity": False, "min_value": -1e3, "max_value": 1e3}


def _run(t, feeds=None):
    with ff.Session() as sess:
        return sess.run(t, feeds)


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    name=st.sampled_from(sorted(BINARY)),
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
)
def test_binary_broadcasting_matches_numpy(data, name, dtype):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_side=0, max_side=4))
    elems = st.floats(**finite) if np.dtype(dtype).kind == "f" else st.integers(-1000, 1000)
    a = data.draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=elems))
    b = data.draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=elems))
    out = getattr(ff, name)(ff.constant(a), ff.constant(b))
    assert out.shape.as_list() == list(shapes.result_shape)
    got = _run(out)
    want = BINARY[name](a, b)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(UNARY_FLOAT)),
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
        elements=st.floats(0.01, 50.0),
    ),
)
def test_unary_float_matches_numpy(name, x):
    got = _run(getattr(ff, name)(ff.constant(x)))
    np.testing.assert_allclose(got, UNARY_FLOAT[name](x), rtol=1e-12)
    got32 = _run(getattr(ff, name)(ff.constant(x.astype(np.float32))))
    np.testing.assert_allclose(got32, UNARY_FLOAT[name](x.astype(np.float32)), rtol=2e-6)


@pytest.mark.parametrize("name", sorted(UNARY_NUMERIC))
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_unary_numeric(name, dtype):
    x = np.array([[-3, 0, 2], [5, -1, 7]], dtype=dtype)
    np.testing.assert_array_equal(_run(getattr(ff, name)(x)), UNARY_NUMERIC[name](x))


def test_operators_and_python_scalars():
    x = ff.constant([1.0, 2.0, 4.0])
    ys = [x + 1, 1 + x, x - 1, 1 - x, x * 2, 2 * x, x / 2, 8 / x, -x, abs(-x)]
    got = _run(ys)
    xv = np.array([1.0, 2.0, 4.0], np.float32)
    want = [xv + 1, 1 + xv, xv - 1, 1 - xv, xv * 2, 2 * xv, xv / 2, 8 / xv, -xv, xv]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w)
        assert g.dtype == np.float32
    m = ff.constant(np.eye(2, dtype=np.float32))
    np.testing.assert_allclose(_run(m @ m), np.eye(2))


def test_integer_truediv_casts_like_tf():
    q = ff.constant([1, 2, 3]) / ff.constant([2, 2, 2])
    assert q.dtype == ff.float64
    np.testing.assert_allclose(_run(q), [0.5, 1.0, 1.5])


def test_integer_division_by_zero_is_an_op_error():
    q = ff.div(ff.constant([1, 2]), ff.constant([1, 0]), name="intdiv")
    with pytest.raises(ff.errors.InvalidArgumentError, match="Integer division by zero") as e:
        _run(q)
    assert e.value.op is q.op


@settings(max_examples=40, deadline=None)
@given(
    m=st.integers(0, 7),
    k=st.integers(1, 7),
    n=st.integers(0, 7),
    ta=st.booleans(),
    tb=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_matmul_matches_numpy(m, k, n, ta, tb, dtype):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = rng.normal(size=(m, k)).astype(dtype)
    b = rng.normal(size=(k, n)).astype(dtype)
    out = ff.matmul(a.T if ta else a, b.T if tb else b, transpose_a=ta, transpose_b=tb)
    assert out.shape.as_list() == [m, n]
    np.testing.assert_allclose(_run(out), a @ b, rtol=1e-5, atol=1e-5)


def test_matmul_large_uses_gemm_threads_and_matches():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(300, 200)).astype(np.float32)
    b = rng.normal(size=(200, 100)).astype(np.float32)
    np.testing.assert_allclose(_run(ff.matmul(a, b)), a @ b, rtol=1e-4, atol=1e-4)
    ai = np.arange(6, dtype=np.int32).reshape(2, 3)
    np.testing.assert_array_equal(_run(ff.matmul(ai, ai.T)), ai @ ai.T)


def test_matmul_shape_errors():
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        ff.matmul(ff.zeros([2, 3]), ff.zeros([4, 5]))
    with pytest.raises(ValueError, match="rank 2"):
        ff.matmul(ff.zeros([2, 3, 1]), ff.zeros([1, 5]))
    p = ff.placeholder(ff.float32, [None, None])
    bad = ff.matmul(p, ff.zeros([4, 5]))
    with pytest.raises(ff.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        _run(bad, {p: np.zeros((2, 3))})


def test_dtype_mismatch_is_a_type_error():
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type int32"):
        ff.add(ff.constant(1.0), ff.constant(2))
    with pytest.raises(TypeError):
        ff.sqrt(ff.constant([1, 2]))


def test_incompatible_broadcast_is_a_value_error():
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        ff.constant([1.0, 2.0]) + ff.constant([1.0, 2.0, 3.0])
    p = ff.placeholder(ff.float32, [None])
    s = p + ff.constant([1.0, 2.0, 3.0])
    with pytest.raises(ff.errors.InvalidArgumentError, match="Incompatible shapes"):
        _run(s, {p: [1.0, 2.0]})


REDUCE = {
    "reduce_sum": np.sum,
    "reduce_mean": np.mean,
    "reduce_max": np.max,
    "reduce_min": np.min,
    "reduce_prod": np.prod,
}


@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(REDUCE)), keepdims=st.booleans())
def test_reductions_match_numpy(data, name, keepdims):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    x = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-2, 2)))
    axis = data.draw(
        st.none()
        | st.lists(
            st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape), unique=True
        )
    )
    if axis is not None and len({a % len(shape) for a in axis}) != len(axis):
        axis = sorted({a % len(shape) for a in axis})
    out = getattr(ff, name)(x, axis=axis, keepdims=keepdims)
    want = REDUCE[name](x, axis=None if axis is None else tuple(axis), keepdims=keepdims)
    assert out.shape.as_list() == list(np.shape(want))
    np.testing.assert_allclose(_run(out), want, rtol=1e-10, atol=1e-12)


def test_reduction_of_unknown_rank_and_int_mean():
    p = ff.placeholder(ff.float32)
    s = ff.reduce_sum(p)
    assert s.shape.ndims is None
    assert _run(s, {p: np.ones((2, 3))}) == 6.0
    assert _run(ff.reduce_mean(ff.constant([1, 2, 4]))) == 2
    with pytest.raises(ff.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        _run(ff.reduce_sum(p, axis=ff.constant(3)), {p: np.ones((2, 3))})


@pytest.mark.tf_oracle
def test_static_shapes_and_names_match_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.constant(np.ones((3, 4), np.float32))
        y = tf.matmul(x, w) + tf.constant([1.0, 2.0, 3.0, 4.0])
        m = tf.reduce_mean(y, axis=1, keepdims=True)
        s = tf.reduce_sum(tf.square(y - m), name="loss")
        return [x + 1, y, m, s, tf.subtract(y, 2.0), tf.multiply(2.0, m)]

    (g_tf, tf_out), (g_ff, ff_out) = build_both(tf1, build)
    assert_same_tensors(tf_out, ff_out)
    assert [op.name for op in g_tf.get_operations()] == [op.name for op in g_ff.get_operations()]


def test_check_numerics_passes_values_and_reports_nan_and_inf(tf1):
    x = ff.placeholder(ff.float32, [None])
    y = ff.check_numerics(x, "bad x")
    (gx,) = ff.gradients(ff.reduce_sum(y * y), [x])
    with ff.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(gx, {x: [1.0, 2.0]}), [2.0, 4.0])
        for value, what in (
            ([np.nan], "NaN"),
            ([np.inf], "Inf"),
            ([np.nan, -np.inf], "Inf and NaN"),
        ):
            with pytest.raises(
                ff.errors.InvalidArgumentError, match=f"bad x : Tensor had {what} values"
            ):
                sess.run(y, {x: value})
    # Same text as TensorFlow's kernel.
    g = tf1.Graph()
    with g.as_default(), tf1.Session() as sess:
        p = tf1.placeholder(tf1.float32, [None])
        with pytest.raises(tf1.errors.InvalidArgumentError, match="bad x : Tensor had NaN values"):
            sess.run(tf1.debugging.check_numerics(p, "bad x"), {p: [np.nan]})
    with pytest.raises(TypeError):
        ff.check_numerics(ff.constant([1, 2]), "ints")


def test_div_no_nan_and_scan_values():
    x = np.array([[1.0, 0.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    with ff.Session() as sess:
        q, c, p = sess.run(
            [
                ff.div_no_nan(ff.constant([1.0, 2.0, 0.0]), ff.constant([0.0, 4.0, 0.0])),
                ff.cumsum(x, axis=1),
                ff.cumprod(x, axis=0, exclusive=True, reverse=True),
            ]
        )
    np.testing.assert_array_equal(q, [0.0, 0.5, 0.0])
    np.testing.assert_array_equal(c, np.cumsum(x, axis=1))
    np.testing.assert_array_equal(p, [[4.0, 5.0, 6.0], [1.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match="scan axis"):
        ff.cumsum(x, axis=2)
    with pytest.raises(TypeError):
        ff.div_no_nan(ff.constant([1, 2]), ff.constant([1, 0]))


@pytest.mark.tf_oracle
def test_setdiff1d_matches_tensorflow(tf1):
    from conftest import run_ff, run_tf

    def build(lib):
        r = lib.setdiff1d([5, 1, 7, 1, 3], [1, 3, 9], index_dtype=lib.int64)
        return [r.out, r.idx]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op", ["floormod", "floordiv", "div"])
def test_integer_division_of_an_empty_tensor_by_zero_is_empty_as_tf(tf1, op):
    # TF fails only on a division that happens (TF's reduced_shape divides the empty
    # axes of a rank-0 input by its rank, 0).
    def build(lib):
        return getattr(lib, op)(lib.zeros([0], lib.int32), lib.constant(0))

    out = run_ff(build)
    np.testing.assert_array_equal(out, run_tf(tf1, build))
    assert out.shape == (0,)


def _trig_inputs():
    """float32 values on both sides of the vectorised reduction's limit (18838), huge
    ones, zeros of both signs, subnormals, infinities and NaN."""
    rng = np.random.default_rng(7)
    return np.concatenate(
        [
            np.linspace(-40000, 40000, 20001, dtype=np.float32),
            rng.uniform(-10, 10, 5000).astype(np.float32),
            (10.0 ** rng.uniform(4, 38, 2000) * rng.choice([-1, 1], 2000)).astype(np.float32),
            np.float32([0.0, -0.0, 1e-40, -1e-45, np.pi, 18837.998, 18838.0]),
            np.float32([np.inf, -np.inf, np.nan]),
        ]
    )


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_sin_cos_float32_are_within_two_ulp_everywhere(name):
    x = _trig_inputs()
    got = _run(getattr(ff, name)(ff.constant(x)))
    with np.errstate(invalid="ignore"):
        exact = getattr(np, name)(x.astype(np.float64))
    assert np.array_equal(np.isnan(got), np.isnan(exact))
    ok = ~np.isnan(exact)
    # Two float32 steps of the exact value, or Eigen's absolute bound near a zero.
    step = np.spacing(np.abs(exact[ok]).astype(np.float32)).astype(np.float64)
    err = np.abs(got[ok].astype(np.float64) - exact[ok])
    assert np.all((err <= 2.5 * step) | (err <= 1.2e-7)), x[ok][np.argmax(err / step)]
    np.testing.assert_array_equal(np.signbit(got[x == 0]), np.signbit(getattr(np, name)(x[x == 0])))


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", ["sin", "cos"])
def test_sin_cos_float32_match_tensorflow(tf1, name):
    x = _trig_inputs()
    ours = run_ff(lambda lib: getattr(lib, name)(lib.constant(x)))
    theirs = run_tf(tf1, lambda lib: getattr(lib, name)(lib.constant(x)))
    np.testing.assert_allclose(ours, theirs, rtol=5e-7, atol=2.4e-7)


def test_arg_max_and_arg_min_are_tf1s(tf1):
    """`tf.arg_max` / `tf.arg_min`: TF-1.x's raw ops, `dimension` required."""

    def build(lib):
        x = lib.constant([[3.0, 1.0, 2.0], [0.5, 4.0, 4.0]])
        return [
            lib.arg_max(x, 1),
            lib.arg_min(x, dimension=0, name="m"),
            lib.arg_max(x, 0, output_type=lib.int32),
            lib.arg_min(x, -1, lib.int32),
            lib.argmax(x, lib.constant(1, lib.int64)),
        ]

    (_, want), (_, got) = build_both(tf1, build)
    assert_same_tensors(want, got)
    for a, b in zip(run_tf(tf1, build), run_ff(build), strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    for lib in (tf1, ff):
        with lib.Graph().as_default(), pytest.raises(ValueError, match="None values not supported"):
            lib.arg_max([1.0], None)


def test_range_takes_the_widest_argument_type_as_tf(tf1):
    """TF promotes `range`'s arguments to the widest of int32 < int64 < float32 <
    float64 (issue 42: int32 with an int64 limit stayed int32)."""

    def build(lib):
        return [
            lib.range(5),
            lib.range(lib.constant(1), lib.constant(5, lib.int64)),
            lib.range(1.0, 5),
            lib.range(np.int64(4)),
            lib.range(2, 10, 3, dtype=lib.float64),
            lib.range(lib.constant(3.0, lib.float64)),
            lib.range(0, 1, 0.25),
        ]

    ours, theirs = run_ff(build), run_tf(tf1, build)
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
