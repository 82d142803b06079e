"""Dtypes beyond float32/float64/int32/int64/uint8, against TensorFlow.

float16 and bfloat16: the elementwise, comparison, reduction, matmul and nn ops of a
training step and their gradients, compared with TF's CPU results. Each 16-bit
operation rounds once to its type in both libraries, and MatMul multiplies in float
and rounds each output once (as TF's CPU kernel does); reductions accumulate as
Eigen's do, though not always in Eigen's order, so values are compared with the
tolerance TF's own tests use (1e-3 for half, 1e-2 for bfloat16's 8 significant
bits, relative to the values' magnitude).
"""

import ml_dtypes
import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

pytestmark = pytest.mark.tf_oracle

RNG = np.random.default_rng(6)
X64 = RNG.standard_normal((4, 5))
Y64 = RNG.standard_normal((4, 5))
ROW64 = RNG.standard_normal((5,))
POS64 = RNG.uniform(0.1, 3.0, (4, 5))
# float16 arrays for the tests below that are about half alone.
X, Y = X64.astype(np.float16), Y64.astype(np.float16)

HALVES = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
TOL = {"float16": 1e-3, "bfloat16": 1e-2}
halves = pytest.mark.parametrize("dt", list(HALVES))


def _close(got, want, tol=1e-3):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    want64 = want.astype(np.float64)
    finite = np.abs(want64[np.isfinite(want64)])
    # Absolute error relative to the tensor's largest value: an ulp there is what an
    # intermediate rounded differently shifts every element by.
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


@halves
@pytest.mark.parametrize("fn", UNARY)
def test_half_types_unary_math_matches_tensorflow(tf1, fn, dt):
    pos, x = POS64.astype(HALVES[dt]), X64.astype(HALVES[dt])

    def build(lib):
        f = getattr(lib, fn)
        return (
            [f(lib.constant(pos)), f(lib.constant(x))]
            if fn not in ("log", "rsqrt", "sqrt")
            else [f(lib.constant(pos))]
        )

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        _close(a, b, TOL[dt])


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


@halves
@pytest.mark.parametrize("fn", BINARY)
def test_half_types_binary_math_with_broadcasting_matches_tensorflow(tf1, fn, dt):
    if dt == "bfloat16" and fn == "div_no_nan":
        pytest.skip("TF registers no bfloat16 DivNoNan kernel")
    h = HALVES[dt]
    x, y, row, pos = X64.astype(h), Y64.astype(h), ROW64.astype(h), POS64.astype(h)

    def build(lib):
        f = getattr(lib, fn)
        a, b, r = lib.constant(pos if fn == "pow" else x), lib.constant(y), lib.constant(row)
        return [f(a, b), f(a, r), f(r, a), f(a, lib.constant(h(1.5)))]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        _close(a, b, TOL[dt])


@halves
@pytest.mark.parametrize(
    "fn", ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
)
def test_half_types_comparisons_match_tensorflow(tf1, fn, dt):
    h = HALVES[dt]

    def build(lib):
        f = getattr(lib, fn)
        x = lib.constant(X64.astype(h))
        return [f(x, lib.constant(Y64.astype(h))), f(x, lib.constant(ROW64.astype(h))), f(x, x)]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@halves
@pytest.mark.parametrize(
    "fn", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]
)
def test_half_types_reductions_match_tensorflow(tf1, fn, dt):
    h = HALVES[dt]
    big = (RNG.standard_normal((3, 40, 7)) * 0.3).astype(h)

    def build(lib):
        f = getattr(lib, fn)
        x, b = lib.constant(X64.astype(h)), lib.constant(big)
        return [f(x), f(x, 0), f(x, 1, keepdims=True), f(b, [0, 1]), f(b, 1), f(b, [0, 2])]

    got, want = run_ff(build), run_tf(tf1, build)
    for a, b in zip(got, want, strict=True):
        # Sums over many terms round differently in different orders: a few ulps of
        # the largest partial sum.
        many = fn in ("reduce_sum", "reduce_prod")
        _close(a, b, tol=TOL[dt] * 10 if many else TOL[dt])


@halves
def test_half_types_matmul_rounds_each_output_once_as_tensorflow(tf1, dt):
    h = HALVES[dt]
    a = RNG.standard_normal((6, 70)).astype(h)
    b = RNG.standard_normal((70, 3)).astype(h)

    def build(lib):
        x, y = lib.constant(a), lib.constant(b)
        return [
            lib.matmul(x, y),
            lib.matmul(y, x, transpose_a=True, transpose_b=True),
            lib.matmul(lib.constant(X64.astype(h)), lib.constant(Y64.astype(h)), transpose_b=True),
        ]

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        assert u.dtype == h
        if dt == "float16":
            np.testing.assert_array_equal(u, v)
        else:
            # TF's bfloat16 product (oneDNN) sums in float in its own order: the
            # result can sit one bfloat16 ulp from the rounding of the exact sum.
            _close(u, v, 2**-8)


@halves
def test_half_types_training_step_ops_and_gradients_match_tensorflow(tf1, dt):
    h = HALVES[dt]
    w0 = (RNG.standard_normal((5, 3)) * 0.5).astype(h)
    b0 = RNG.standard_normal((3,)).astype(h)
    labels = RNG.integers(0, 3, 4).astype(np.int32)
    onehot = np.eye(3).astype(h)[labels]

    def build(lib):
        x = lib.constant(X64.astype(h))
        w, b = lib.constant(w0), lib.constant(b0)
        z = lib.nn.bias_add(lib.matmul(x, w), b)
        hid = lib.nn.relu(z) + lib.sigmoid(z) * lib.tanh(z)
        sm = lib.nn.softmax(hid)
        lsm = lib.nn.log_softmax(hid)
        xent = lib.nn.softmax_cross_entropy_with_logits_v2(labels=lib.constant(onehot), logits=hid)
        sxent = lib.nn.sparse_softmax_cross_entropy_with_logits(
            labels=lib.constant(labels), logits=hid
        )
        loss = lib.reduce_mean(xent) + lib.reduce_mean(sxent) + lib.nn.l2_loss(w) * h(0.01)
        grads = lib.gradients(loss, [x, w, b])
        return [z, hid, sm, lsm, xent, sxent, loss, *grads]

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        _close(u, v, tol=2 * TOL[dt])


@halves
def test_half_types_casts_match_tensorflow(tf1, dt):
    h = HALVES[dt]
    src = {
        "float32": np.array(
            [-70000.0, -2.5, -0.0, 1e-8, 0.1, 3.7, 65504.0, 3e38, np.inf, np.nan], np.float32
        ),
        "float64": np.array([-2.5, 0.1, 1e-5, 3.7, 1e6, 1e300], np.float64),
        "int32": np.array([-3, 0, 7, 70000], np.int32),
        "int64": np.array([-3, 0, 2049, 70000], np.int64),
        "uint8": np.array([0, 7, 255], np.uint8),
        "bool": np.array([True, False]),
    }
    values = np.array([-300.5, -2.5, -0.0, 0.1, 3.7, 255.9, 65504.0]).astype(h)

    def build(lib):
        t = getattr(lib, dt)
        out = [lib.cast(lib.constant(v), t) for v in src.values()]
        for d in ("float32", "float64", "int32", "int64", "uint8", "bool", "float16", "bfloat16"):
            out.append(lib.cast(lib.constant(values), getattr(lib, d)))
        return out

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        assert u.dtype == v.dtype
        # Through float64: numpy's NaN-equal comparison does not know bfloat16.
        np.testing.assert_array_equal(u.astype(np.float64), v.astype(np.float64))


@halves
def test_half_types_feed_fetch_and_variables_round_trip(tf1, dt):
    h = HALVES[dt]
    x, y = X64.astype(h), Y64.astype(h)

    def build(lib):
        p = lib.placeholder(getattr(lib, dt), [None, 5])
        v = lib.Variable(x, name="v")
        up = lib.assign_add(v, p)
        return [p * h(2), up, lib.concat([p, x], 0), lib.gather(x, [2, 0]), lib.constant(h(1.7))]

    feeds = {"Placeholder:0": y}
    got = run_ff(build, lambda g: {g.get_tensor_by_name(k): v for k, v in feeds.items()})
    want = run_tf(tf1, build, lambda g: {g.get_tensor_by_name(k): v for k, v in feeds.items()})
    for u, v in zip(got, want, strict=True):
        assert u.dtype == h
        np.testing.assert_array_equal(u, v)


@halves
def test_half_types_optimizer_without_a_16_bit_kernel_is_tensorflows_error(tf1, dt):
    h = HALVES[dt]

    def run(lib):
        with lib.Graph().as_default():
            v = lib.Variable(X64.astype(h))
            hyper = [lib.constant(h(v)) for v in (0.1, 0.01, 0.01)]
            opt = lib.train.ProximalGradientDescentOptimizer(*hyper)
            step = opt.minimize(lib.reduce_sum(v * v))
            with lib.Session() as s:
                s.run(v.initializer)
                s.run(step)

    for lib in (tf1, ff):
        with pytest.raises(lib.errors.InvalidArgumentError) as e:
            run(lib)
        msg = str(e.value)
        assert "No OpKernel was registered to support Op 'ApplyProximalGradientDescent'" in msg
        assert ("T=DT_HALF" if dt == "float16" else "T=DT_BFLOAT16") in msg
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


def test_bfloat16_dtype_is_tensorflows(tf1):
    t, want = ff.bfloat16, tf1.bfloat16
    assert t.as_datatype_enum == want.as_datatype_enum == 14
    assert (t.name, repr(t), str(t)) == (want.name, repr(want), str(want))
    assert t.as_numpy_dtype is ml_dtypes.bfloat16 is want.as_numpy_dtype
    assert t.is_floating and not t.is_integer and not t.is_unsigned and t.size == 2
    assert (t.min, t.max) == (want.min, want.max)
    assert t._as_ref.name == "bfloat16_ref" and t._as_ref.base_dtype == t
    for value in (ml_dtypes.bfloat16, np.dtype(ml_dtypes.bfloat16), "bfloat16", 14):
        assert ff.as_dtype(value) == t
    assert ff.as_dtype(np.zeros(2, ml_dtypes.bfloat16)) == t
    with pytest.raises(ValueError, match="does not have defined limits"):
        t.limits  # noqa: B018
    with pytest.raises(ValueError):
        want.limits  # noqa: B018


def test_bfloat16_numpy_interop_rounds_to_nearest_even_as_tensorflow(tf1):
    """Python floats and float32 arrays round to bfloat16 as TF's conversion does;
    fetched values are ml_dtypes arrays (scalars for rank 0), also from views."""
    floats = [1.0, 1.00390625, 1.01171875, 256.5, -3.3, 1e-40, 3.4e38, float("inf")]
    base = np.arange(24, dtype=np.float32).reshape(4, 6).astype(ml_dtypes.bfloat16)

    def build(lib):
        bf = lib.bfloat16
        return [
            lib.constant(floats, bf),
            lib.constant(np.float32(2.7), bf),
            lib.cast(lib.constant(np.array(floats, np.float32)), bf),
            lib.identity(lib.constant(base[:, ::2])),
            lib.identity(lib.constant(base.T)),
            lib.constant(ml_dtypes.bfloat16(0.3)),
        ]

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        assert np.asarray(u).dtype == ml_dtypes.bfloat16 and np.shape(u) == np.shape(v)
        np.testing.assert_array_equal(np.asarray(u).view(np.uint16), np.asarray(v).view(np.uint16))


def test_bfloat16_checkpoints_cross_both_ways(tf1, tmp_path):
    value = np.array([[1.5, -2.25], [3e38, 1e-3]]).astype(ml_dtypes.bfloat16)
    with ff.Graph().as_default():
        v = ff.Variable(value, name="v")
        saver = ff.train.Saver([v])
        with ff.Session() as s:
            s.run(v.initializer)
            ours = saver.save(s, str(tmp_path / "ours"))
    reader = tf1.train.NewCheckpointReader(ours)
    assert reader.get_variable_to_dtype_map()["v"] == tf1.bfloat16
    np.testing.assert_array_equal(reader.get_tensor("v"), value)

    with tf1.Graph().as_default():
        w = tf1.Variable(value[::-1], name="v")
        with tf1.Session() as s:
            s.run(w.initializer)
            theirs = tf1.train.Saver([w]).save(s, str(tmp_path / "theirs"))
    with ff.Graph().as_default():
        v = ff.Variable(np.zeros((2, 2), ml_dtypes.bfloat16), name="v")
        with ff.Session() as s:
            ff.train.Saver([v]).restore(s, theirs)
            np.testing.assert_array_equal(s.run(v), value[::-1])


@pytest.mark.parametrize("name", ["GradientDescent", "Momentum", "Adam", "Adagrad", "RMSProp"])
def test_bfloat16_optimizer_steps_match_tensorflow(tf1, name):
    w0 = (RNG.standard_normal((5, 3)) * 0.5).astype(ml_dtypes.bfloat16)
    x0 = X64.astype(ml_dtypes.bfloat16)

    def build(lib):
        kwargs = {"momentum": 0.9} if name == "Momentum" else {}
        opt = getattr(lib.train, name + "Optimizer")(0.1, **kwargs)
        w = lib.Variable(w0, name="w")
        loss = lib.reduce_sum(lib.square(lib.matmul(lib.constant(x0), w)))
        step = opt.minimize(loss)
        # Three steps, each reading the variable the one before wrote.
        with lib.control_dependencies([step]):
            s2 = opt.minimize(loss)
        with lib.control_dependencies([s2]):
            return [lib.identity(w.read_value() if hasattr(w, "read_value") else w)]

    got, want = run_ff(build), run_tf(tf1, build)
    _close(got[0], want[0], 2e-2)


def test_bfloat16_sparse_rmsprop_has_no_kernel_as_in_tensorflow(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            v = lib.Variable(X64.astype(ml_dtypes.bfloat16))
            loss = lib.reduce_sum(lib.gather(v, [0, 2]))
            step = lib.train.RMSPropOptimizer(0.1).minimize(loss)
            with lib.Session() as s, pytest.raises(lib.errors.InvalidArgumentError) as e:
                s.run(lib.global_variables_initializer())
                s.run(step)
            assert "No OpKernel was registered to support Op 'SparseApplyRMSProp'" in str(e.value)
            assert "T=DT_BFLOAT16" in str(e.value)


def test_to_bfloat16_is_a_named_cast(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            y = lib.to_bfloat16(lib.constant([1.0, 2.5]))
            assert y.op.type == "Cast" and y.op.name == "ToBFloat16" and y.dtype == lib.bfloat16


@halves
def test_half_types_seeded_random_ops_are_tensorflows_numbers(tf1, dt):
    """16-bit uniforms take a word's low mantissa bits, normals round TF's float
    samples: the same numbers as TF's for the same seeds."""

    def build(lib):
        t = getattr(lib, dt)
        lib.set_random_seed(7)
        return [
            lib.random_uniform([3, 7], dtype=t),
            lib.random_uniform([5], -2.0, 3.0, dtype=t, seed=3),
            lib.random_normal([9], dtype=t),
            lib.truncated_normal([4, 5], dtype=t, seed=11),
        ]

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        assert u.dtype == HALVES[dt]
        np.testing.assert_array_equal(u.view(np.uint16), v.view(np.uint16))


def test_float16_range_is_refused_as_by_tensorflows_shape_function(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default(), pytest.raises(ValueError, match="Unsupported dtype19"):
            lib.range(lib.constant(0.0, lib.float16), lib.constant(2.0, lib.float16))


@pytest.mark.parametrize("dt", ["bfloat16", "float32", "float64"])
def test_float_range_computes_in_its_own_type_as_tensorflow(tf1, dt):
    """TF computes `start + T(i) * delta` and the count in T: a float32 range differs
    from one computed in double in about a third of its elements."""

    def build(lib):
        t = getattr(lib, dt)
        c = lambda v: lib.constant(v, t)  # noqa: E731
        return [
            lib.range(c(0.1), c(100.0), c(0.7)),
            lib.range(c(3.0), c(-2.0), c(-0.3)),
            lib.range(c(0.0), c(1.0), c(0.1)),
        ]

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        assert u.dtype == v.dtype and u.shape == v.shape
        np.testing.assert_array_equal(u, v)


def test_bfloat16_softplus_rounds_each_step_as_tensorflow(tf1):
    x = np.linspace(-8, 8, 97).astype(ml_dtypes.bfloat16)

    def build(lib):
        t = lib.constant(x)
        return [lib.nn.softplus(t), lib.gradients(lib.reduce_sum(lib.nn.softplus(t)), t)[0]]

    got, want = run_ff(build), run_tf(tf1, build)
    np.testing.assert_array_equal(got[0].view(np.uint16), want[0].view(np.uint16))
    _close(got[1], want[1], 1e-2)


@halves
def test_half_types_conv2d_pooling_and_their_gradients_match_tensorflow(tf1, dt):
    # float16 convolutions once reached a 16-bit gemm kernel that does not exist here
    # and panicked; both 16-bit types now multiply in float and round once.
    xs = RNG.standard_normal((2, 6, 6, 3)).astype(HALVES[dt])
    fs = (RNG.standard_normal((3, 3, 3, 4)) * 0.3).astype(HALVES[dt])

    def build(lib):
        x, f = lib.constant(xs), lib.constant(fs)
        y = lib.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
        z = lib.nn.conv2d(x, f, [1, 2, 2, 1], "VALID")
        p = lib.nn.max_pool(y, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        a = lib.nn.avg_pool(y, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
        loss = lib.reduce_sum(p) + lib.reduce_sum(a) + lib.reduce_sum(z)
        return [y, z, p, a, *lib.gradients(loss, [x, f])]

    got, want = run_ff(build), run_tf(tf1, build)
    for u, v in zip(got, want, strict=True):
        # TF's 16-bit convolutions sum in float in their own order.
        _close(u, v, 2 * TOL[dt] if dt == "float16" else 2e-2)
