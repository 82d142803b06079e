"""Dtypes beyond float32/float64/int32/int64/uint8, against TensorFlow.

float16: the elementwise, comparison, reduction, matmul and nn ops of a training step
and their gradients, compared with TF's CPU results. Each half operation rounds once
to half in both libraries, and MatMul multiplies in float and rounds each output once
(as TF's CPU kernel does, bit for bit); reductions accumulate in half as Eigen's do,
though not always in Eigen's order, so values are compared with the tolerance TF's
own half tests use (rtol = atol = 1e-3, relative to the values' magnitude).
"""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(6)
X = RNG.standard_normal((4, 5)).astype(np.float16)
Y = RNG.standard_normal((4, 5)).astype(np.float16)
ROW = RNG.standard_normal((5,)).astype(np.float16)
POS = RNG.uniform(0.1, 3.0, (4, 5)).astype(np.float16)


def _close(got, want, tol=1e-3):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    want64 = want.astype(np.float64)
    finite = np.abs(want64[np.isfinite(want64)])
    # Absolute error relative to the tensor's largest value: a half ulp there is what
    # an intermediate rounded differently shifts every element by.
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    np.testing.assert_allclose(got.astype(np.float64), want64, rtol=tol, atol=tol * scale)


UNARY = [
    "abs",
    "ceil",
    "cos",
    "exp",
    "floor",
    "log",
    "log1p",
    "negative",
    "reciprocal",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "tanh",
]


@pytest.mark.parametrize("fn", UNARY)
def test_float16_unary_math_matches_tensorflow(tf1, fn):
    def build(lib):
        f = getattr(lib, fn)
        return (
            [f(lib.constant(POS)), f(lib.constant(X))]
            if fn not in ("log", "rsqrt", "sqrt")
            else [f(lib.constant(POS))]
        )

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        _close(a, b)


BINARY = [
    "add",
    "divide",
    "div_no_nan",
    "floordiv",
    "floormod",
    "maximum",
    "minimum",
    "multiply",
    "pow",
    "squared_difference",
    "subtract",
    "truediv",
]


@pytest.mark.parametrize("fn", BINARY)
def test_float16_binary_math_with_broadcasting_matches_tensorflow(tf1, fn):
    def build(lib):
        f = getattr(lib, fn)
        a, b, r = lib.constant(POS if fn == "pow" else X), lib.constant(Y), lib.constant(ROW)
        return [f(a, b), f(a, r), f(r, a), f(a, lib.constant(np.float16(1.5)))]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        _close(a, b)


@pytest.mark.parametrize(
    "fn", ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
)
def test_float16_comparisons_match_tensorflow(tf1, fn):
    def build(lib):
        f = getattr(lib, fn)
        x = lib.constant(X)
        return [f(x, lib.constant(Y)), f(x, lib.constant(ROW)), f(x, x)]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "fn", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]
)
def test_float16_reductions_match_tensorflow(tf1, fn):
    big = RNG.standard_normal((3, 40, 7)).astype(np.float16)

    def build(lib):
        f = getattr(lib, fn)
        x, b = lib.constant(X), lib.constant(big * np.float16(0.3))
        return [f(x), f(x, 0), f(x, 1, keepdims=True), f(b, [0, 1]), f(b, 1), f(b, [0, 2])]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        # Sums over many terms round differently in different orders: a few half ulps
        # of the largest partial sum.
        _close(a, b, tol=1e-2 if fn in ("reduce_sum", "reduce_prod") else 1e-3)


def test_float16_matmul_is_bit_exact_with_tensorflow(tf1):
    a = RNG.standard_normal((6, 70)).astype(np.float16)
    b = RNG.standard_normal((70, 3)).astype(np.float16)

    def build(lib):
        x, y = lib.constant(a), lib.constant(b)
        return [
            lib.matmul(x, y),
            lib.matmul(y, x, transpose_a=True, transpose_b=True),
            lib.matmul(lib.constant(X), lib.constant(Y), transpose_b=True),
        ]

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        assert u.dtype == np.float16
        np.testing.assert_array_equal(u, v)


def test_float16_training_step_ops_and_gradients_match_tensorflow(tf1):
    w0 = (RNG.standard_normal((5, 3)) * 0.5).astype(np.float16)
    b0 = RNG.standard_normal((3,)).astype(np.float16)
    labels = RNG.integers(0, 3, 4).astype(np.int32)
    onehot = np.eye(3, dtype=np.float16)[labels]

    def build(lib):
        x = lib.constant(X)
        w, b = lib.constant(w0), lib.constant(b0)
        z = lib.nn.bias_add(lib.matmul(x, w), b)
        h = lib.nn.relu(z) + lib.sigmoid(z) * lib.tanh(z)
        sm = lib.nn.softmax(h)
        lsm = lib.nn.log_softmax(h)
        xent = lib.nn.softmax_cross_entropy_with_logits_v2(labels=lib.constant(onehot), logits=h)
        sxent = lib.nn.sparse_softmax_cross_entropy_with_logits(
            labels=lib.constant(labels), logits=h
        )
        loss = lib.reduce_mean(xent) + lib.reduce_mean(sxent) + lib.nn.l2_loss(w) * np.float16(0.01)
        grads = lib.gradients(loss, [x, w, b])
        return [z, h, sm, lsm, xent, sxent, loss, *grads]

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        _close(u, v, tol=2e-3)


def test_float16_casts_match_tensorflow(tf1):
    src = {
        "float32": np.array(
            [-70000.0, -2.5, -0.0, 1e-8, 0.1, 3.7, 65504.0, np.inf, np.nan], np.float32
        ),
        "float64": np.array([-2.5, 0.1, 1e-5, 3.7, 1e6], np.float64),
        "int32": np.array([-3, 0, 7, 70000], np.int32),
        "int64": np.array([-3, 0, 2049, 70000], np.int64),
        "uint8": np.array([0, 7, 255], np.uint8),
        "bool": np.array([True, False]),
    }
    halves = np.array([-300.5, -2.5, -0.0, 0.1, 3.7, 255.9, 65504.0], np.float16)

    def build(lib):
        out = [lib.cast(lib.constant(v), lib.float16) for v in src.values()]
        for d in ("float32", "float64", "int32", "int64", "uint8", "bool"):
            out.append(lib.cast(lib.constant(halves), getattr(lib, d)))
        return out

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        assert u.dtype == v.dtype
        np.testing.assert_array_equal(u, v)


def test_float16_feed_fetch_and_variables_round_trip(tf1):
    def build(lib):
        p = lib.placeholder(lib.float16, [None, 5])
        v = lib.Variable(X, name="v")
        up = lib.assign_add(v, p)
        return [p * np.float16(2), up, lib.concat([p, X], 0), lib.gather(X, [2, 0])]

    feeds = {"Placeholder:0": Y}
    got = run_ff(build, lambda g: {g.get_tensor_by_name(k): v for k, v in feeds.items()})
    want = run_tf(tf1, build, lambda g: {g.get_tensor_by_name(k): v for k, v in feeds.items()})
    for u, v in zip(got, want, strict=True):
        assert u.dtype == np.float16
        np.testing.assert_array_equal(u, v)


def test_float16_optimizer_without_a_half_kernel_is_tensorflows_error(tf1):
    def run(lib):
        with lib.Graph().as_default():
            v = lib.Variable(X)
            h = [lib.constant(np.float16(v)) for v in (0.1, 0.01, 0.01)]
            opt = lib.train.ProximalGradientDescentOptimizer(*h)
            step = opt.minimize(lib.reduce_sum(v * v))
            with lib.Session() as s:
                s.run(v.initializer)
                s.run(step)

    for lib in (tf1, ff):
        with pytest.raises(lib.errors.InvalidArgumentError) as e:
            run(lib)
        msg = str(e.value)
        assert "No OpKernel was registered to support Op 'ApplyProximalGradientDescent'" in msg
        assert "T=DT_HALF" in msg
        assert "T in [DT_DOUBLE]" in msg and "T in [DT_FLOAT]" in msg


INTS = ["int8", "int16", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dt", INTS)
def test_new_integer_arithmetic_reductions_and_data_movement_match_tensorflow(tf1, dt):
    a = np.array([[3, 9, 100], [7, 0, 1]], dt)
    b = np.array([[5, 6, 7], [2, 3, 4]], dt)

    def build(lib):
        x, y = lib.constant(a), lib.constant(b)
        out = [
            x + y,
            x - y,
            x * y,
            x // y,
            x % y,
            lib.maximum(x, y),
            lib.minimum(x, y),
            lib.square(x),
            x < y,
            lib.equal(x, y),
            lib.greater_equal(x, y),
            lib.reduce_sum(x, 0),
            lib.reduce_max(x, 1),
            lib.reduce_min(x),
            lib.reduce_prod(x, 1),
            lib.reduce_mean(x, 0),
            lib.argmax(x, 1),
            lib.cumsum(x, 1),
            lib.nn.relu(x),
            lib.concat([x, y], 0),
            lib.stack([x, y]),
            lib.gather(x, [1, 0]),
            lib.reshape(x, [3, 2]),
            lib.transpose(x),
            lib.tile(x, [1, 2]) if dt != "uint16" else x,
            lib.identity(x),
            lib.zeros_like(x),
            lib.ones_like(x),
            lib.fill([2], a[0, 0]),
            x[:, 1:],
            lib.where(x < y, x, y),
            lib.add_n([x, y, x]),
        ]
        if dt in ("int8", "int16"):
            out += [-x, lib.abs(x - y), lib.sign(x - y)]
        return out

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        assert np.asarray(u).dtype == np.asarray(v).dtype
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("dt", INTS)
def test_new_integer_casts_match_tensorflow(tf1, dt):
    floats = np.array([-300.7, -2.5, -0.0, 1.9, 127.5, 255.5, 65535.9, 1e10, np.nan], np.float32)

    def build(lib):
        t = getattr(lib, dt)
        x = lib.constant(np.array([0, 1, 100, 127], dt))
        out = [
            lib.cast(lib.constant(floats), t),
            lib.cast(lib.constant(floats.astype(np.float64)), t),
        ]
        for src in ("int32", "int64", "uint8", "bool", "float16"):
            out.append(lib.cast(lib.constant(np.array([0, 1, 7], src)), t))
        for d in ("float16", "float32", "float64", "int32", "int64", "uint8", "bool", *INTS):
            out.append(lib.cast(x, getattr(lib, d)))
        return out

    got, want = run_ff(build), run_tf(tf1, build)
    # float -> integer of values out of range is undefined in C++; compare the in-range.
    ok = np.isfinite(floats) & (floats > np.iinfo(dt).min - 1) & (floats < np.iinfo(dt).max + 1)
    for i, (u, v) in enumerate(zip(got, want, strict=True)):
        assert u.dtype == v.dtype
        if i < 2:
            np.testing.assert_array_equal(u[ok], v[ok])
        else:
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("dt", INTS)
def test_new_integer_feed_fetch_variables_and_checkpoints_round_trip(tf1, dt, tmp_path):
    info = np.iinfo(dt)
    value = np.array([info.min, 0, 1, info.max], dt)
    t = getattr(ff, dt)
    assert t.as_numpy_dtype == np.dtype(dt).type and t.is_integer
    assert t.is_unsigned == dt.startswith("u") and t.size == np.dtype(dt).itemsize
    assert ff.as_dtype(np.dtype(dt)) == t and ff.as_dtype(dt) == t
    assert (t.min, t.max, t.limits) == (
        tf1.as_dtype(dt).min,
        tf1.as_dtype(dt).max,
        tf1.as_dtype(dt).limits,
    )
    assert t.as_datatype_enum == tf1.as_dtype(dt).as_datatype_enum
    with ff.Graph().as_default():
        p = ff.placeholder(t, [None])
        v = ff.Variable(value, name="v")
        scalar = ff.constant(value[3])
        saver = ff.train.Saver([v])
        with ff.Session() as s:
            s.run(v.initializer)
            fed = s.run(ff.identity(p), {p: value[::-1]})
            assert fed.dtype == np.dtype(dt)
            np.testing.assert_array_equal(fed, value[::-1])
            got_scalar = s.run(scalar)
            assert got_scalar.dtype == np.dtype(dt) and got_scalar == value[3]
            path = saver.save(s, str(tmp_path / "ck"))
            s.run(ff.assign(v, value[::-1]))
            saver.restore(s, path)
            np.testing.assert_array_equal(s.run(v), value)
    # TF reads ferroflow's checkpoint: the bundle's dtype code is TF's.
    reader = tf1.train.NewCheckpointReader(path)
    assert reader.get_variable_to_dtype_map()["v"] == tf1.as_dtype(dt)
    np.testing.assert_array_equal(reader.get_tensor("v"), value)


@pytest.mark.parametrize(
    ("dt", "op"),
    [
        ("uint16", "MatMul"),
        ("uint64", "MatMul"),
        ("int8", "MatMul"),
        ("int32", "RealDiv"),
        ("uint32", "RealDiv"),
    ],
)
def test_new_integers_without_a_kernel_are_tensorflows_errors(tf1, dt, op):
    """TF's OpDef rejects some types when the graph is built (TypeError) and has no
    CPU kernel for others, which fails when the step runs; ferroflow does the same."""
    value = np.ones((2, 2), dt)
    outcome = {}
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            x = lib.constant(value)
            try:
                y = lib.matmul(x, x) if op == "MatMul" else lib.realdiv(x, x)
            except TypeError:
                outcome[lib] = "TypeError"
                continue
            with lib.Session() as s, pytest.raises(lib.errors.InvalidArgumentError) as e:
                s.run(y)
            msg = str(e.value)
            assert f"No OpKernel was registered to support Op '{op}'" in msg
            assert f"T=DT_{dt.upper()}" in msg
            outcome[lib] = "InvalidArgumentError"
    assert outcome[ff] == outcome[tf1]
