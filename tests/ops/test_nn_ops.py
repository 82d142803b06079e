"""`tf.nn` ops: values against TensorFlow and numpy, static shapes and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ferroflow as ff
from conftest import assert_same_tensors, build_both, run_ff, run_tf

TOL = {
    np.dtype(np.float32): {"rtol": 2e-6, "atol": 1e-6},
    np.dtype(np.float64): {"rtol": 1e-12, "atol": 1e-12},
}
FLOATS = st.sampled_from([np.float32, np.float64])


def _run(t, feeds=None):
    with ff.Session() as sess:
        return sess.run(t, feeds)


def _compare(tf1, build, tol=None):
    """Runs `build` with both libraries; checks values, dtypes and static shapes."""
    shapes = {}

    def tracked(lib):
        out = build(lib)
        shapes[lib.__name__] = [t.shape.as_list() for t in out]
        return out

    want = run_tf(tf1, tracked)
    got = run_ff(tracked)
    assert shapes["ferroflow"] == shapes[tf1.__name__]
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, f"output {i}"
        assert g.shape == w.shape, f"output {i}"
        np.testing.assert_allclose(g, w, **(tol or TOL[w.dtype]), err_msg=f"output {i}")


def _np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _np_log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "softplus": lambda x: np.logaddexp(x, 0),
    "sigmoid": lambda x: np.exp(-np.logaddexp(0, -x)),
    "tanh": np.tanh,
}


@pytest.mark.tf_oracle
@settings(max_examples=20, deadline=None)
@given(
    x=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
        elements=st.floats(-50, 50) | st.sampled_from([0.0, 6.0, -100.0, 100.0, 1e-3]),
    ),
    dtype=FLOATS,
)
def test_activations_match_numpy_and_tensorflow(tf1, x, dtype):
    x = x.astype(dtype)

    def build(lib):
        c = lib.constant(x)
        return [getattr(lib.nn, name)(c) for name in sorted(ACTIVATIONS)]

    _compare(tf1, build)
    got = run_ff(build)
    for name, g in zip(sorted(ACTIVATIONS), got, strict=True):
        want = ACTIVATIONS[name](x.astype(np.float64))
        np.testing.assert_allclose(g, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-7)
        assert g.dtype == dtype


@pytest.mark.tf_oracle
@settings(max_examples=25, deadline=None)
@given(
    data=st.data(),
    dtype=FLOATS,
    scale=st.sampled_from([1.0, 100.0]),
)
def test_softmax_and_log_softmax_match_tensorflow(tf1, data, dtype, scale):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    x = (np.random.default_rng(len(shape)).normal(size=shape) * scale).astype(dtype)

    def build(lib):
        c = lib.constant(x)
        return [lib.nn.softmax(c, axis=axis), lib.nn.log_softmax(c, axis=axis)]

    # float32 rounding of logits of magnitude `scale` bounds the absolute error.
    f32_tol = {"rtol": 1e-5, "atol": 5e-7 * scale}
    _compare(tf1, build, tol=f32_tol if dtype == np.float32 else None)
    sm, lsm = run_ff(build)
    a = -1 if axis is None else axis
    want = _np_softmax(x.astype(np.float64), a)
    np.testing.assert_allclose(sm, want, rtol=1e-5 + 1e-6 * scale, atol=1e-7)
    want = _np_log_softmax(x.astype(np.float64), a)
    np.testing.assert_allclose(lsm, want, rtol=1e-5, atol=1e-6 * scale)
    assert np.all(np.isfinite(lsm))


def test_softmax_keyword_forms_and_errors():
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    got = _run([ff.nn.softmax(x, dim=0), ff.nn.log_softmax(x, dim=0), ff.nn.softmax(x)])
    np.testing.assert_allclose(got[0], _np_softmax(x, 0))
    np.testing.assert_allclose(got[1], _np_log_softmax(x, 0))
    np.testing.assert_allclose(got[2], _np_softmax(x, 1))
    with pytest.raises(ff.errors.InvalidArgumentError, match="must be in the range"):
        ff.nn.softmax(x, axis=2)
    with pytest.raises(TypeError):
        ff.nn.softmax(np.array([1, 2]))
    with pytest.raises(ValueError, match="known rank"):
        ff.nn.softmax(ff.placeholder(ff.float32), axis=0)
    p = ff.placeholder(ff.float32)
    np.testing.assert_allclose(_run(ff.nn.softmax(p), {p: [0.0, 0.0]}), [0.5, 0.5])
    with pytest.raises(ff.errors.InvalidArgumentError, match="at least one dimension"):
        _run(ff.nn.softmax(p), {p: 1.0})


def _distribution(rng, shape, dtype):
    p = rng.uniform(0.0, 1.0, shape)
    return (p / p.sum(axis=-1, keepdims=True)).astype(dtype)


@pytest.mark.tf_oracle
@settings(max_examples=25, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
    dtype=FLOATS,
    scale=st.sampled_from([1.0, 50.0]),
    seed=st.integers(0, 1000),
)
def test_cross_entropy_losses_match_tensorflow(tf1, shape, dtype, scale, seed):
    rng = np.random.default_rng(seed)
    logits = (rng.normal(size=shape) * scale).astype(dtype)
    labels = _distribution(rng, shape, dtype)
    unnormalized = rng.uniform(0, 2, shape).astype(dtype)
    ids = rng.integers(0, shape[-1], shape[:-1]).astype(np.int64)
    bits = rng.uniform(0, 1, shape).astype(dtype)

    def build(lib):
        out = [
            lib.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
            lib.nn.softmax_cross_entropy_with_logits_v2(labels=unnormalized, logits=logits),
            lib.nn.sigmoid_cross_entropy_with_logits(labels=bits, logits=logits),
        ]
        if len(shape) > 1:
            out.append(lib.nn.sparse_softmax_cross_entropy_with_logits(labels=ids, logits=logits))
        return out

    # float32 rounding of logits of magnitude `scale` bounds the absolute error.
    tol = {"rtol": 1e-5, "atol": 1e-6 * scale}
    _compare(tf1, build, tol=tol if dtype == np.float32 else None)
    got = run_ff(build)
    x = logits.astype(np.float64)
    np.testing.assert_allclose(got[0], -(labels * _np_log_softmax(x)).sum(-1), **tol)
    np.testing.assert_allclose(got[1], -(unnormalized * _np_log_softmax(x)).sum(-1), **tol)
    want = np.maximum(x, 0) - x * bits + np.log1p(np.exp(-np.abs(x)))
    np.testing.assert_allclose(got[2], want, **tol)
    if len(shape) > 1:
        picked = np.take_along_axis(_np_log_softmax(x), ids[..., None], -1)[..., 0]
        np.testing.assert_allclose(got[3], -picked, **tol)


@pytest.mark.tf_oracle
def test_losses_with_unknown_shapes_match_tensorflow(tf1):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2, 3, 4)).astype(np.float32)
    labels = _distribution(rng, (2, 3, 4), np.float32)
    ids = rng.integers(0, 4, (2, 3)).astype(np.int32)

    def build(lib):
        x = lib.placeholder_with_default(logits, [None, None, None])
        z = lib.placeholder_with_default(labels, [None, None, None])
        i = lib.placeholder_with_default(ids, [None, None])
        return [
            lib.nn.softmax_cross_entropy_with_logits_v2(labels=z, logits=x),
            lib.nn.sparse_softmax_cross_entropy_with_logits(labels=i, logits=x),
            lib.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
            lib.nn.softmax(x),
        ]

    _compare(tf1, build, tol={"rtol": 1e-5, "atol": 1e-6})


def test_sparse_cross_entropy_errors():
    logits = np.zeros((2, 3), np.float32)
    for bad in ([0, 3], [-1, 0]):
        loss = ff.nn.sparse_softmax_cross_entropy_with_logits(labels=bad, logits=logits)
        with pytest.raises(ff.errors.InvalidArgumentError, match="outside the valid range"):
            _run(loss)
    labels = ff.placeholder(ff.int32, [None])
    loss = ff.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    np.testing.assert_allclose(_run(loss, {labels: [0, 2]}), [np.log(3)] * 2, rtol=1e-6)
    with pytest.raises(ff.errors.InvalidArgumentError, match="outside the valid range"):
        _run(loss, {labels: [0, 7]})
    with pytest.raises(ValueError, match="Rank mismatch"):
        ff.nn.sparse_softmax_cross_entropy_with_logits(labels=[[0, 1]], logits=logits)
    with pytest.raises(ValueError):
        ff.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 1], logits=logits)
    with pytest.raises(TypeError, match="int32 or int64"):
        ff.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=logits)
    with pytest.raises(ValueError, match="named arguments"):
        ff.nn.sparse_softmax_cross_entropy_with_logits([0, 1], logits)
    with pytest.raises(ValueError, match="must be provided"):
        ff.nn.sparse_softmax_cross_entropy_with_logits(logits=logits)


def test_dense_cross_entropy_errors():
    logits = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="same shape"):
        ff.nn.softmax_cross_entropy_with_logits_v2(
            labels=np.zeros((2, 4), np.float32), logits=logits
        )
    with pytest.raises(ValueError):
        ff.nn.sigmoid_cross_entropy_with_logits(labels=np.zeros((2, 4), np.float32), logits=logits)
    with pytest.raises(ValueError, match="named arguments"):
        ff.nn.softmax_cross_entropy_with_logits(logits, logits)
    with pytest.raises(ValueError, match="must be provided"):
        ff.nn.softmax_cross_entropy_with_logits_v2(logits=logits)
    with pytest.raises(TypeError):
        ff.nn.softmax_cross_entropy_with_logits_v2(labels=[[1, 0]], logits=[[1, 0]])
    p = ff.placeholder(ff.float32, [None, None])
    loss = ff.nn.softmax_cross_entropy_with_logits_v2(labels=p, logits=logits)
    with pytest.raises(ff.errors.InvalidArgumentError):
        _run(loss, {p: np.zeros((2, 4))})


@pytest.mark.tf_oracle
@settings(max_examples=20, deadline=None)
@given(
    shape=hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=4),
    dtype=FLOATS,
    seed=st.integers(0, 1000),
)
def test_bias_add_l2_loss_zero_fraction_moments_match_tensorflow(tf1, shape, dtype, seed):
    rng = np.random.default_rng(seed)
    value = rng.normal(size=shape).astype(dtype)
    value[rng.random(shape) < 0.3] = 0
    bias = rng.normal(size=shape[-1:]).astype(dtype)

    def build(lib):
        v = lib.constant(value)
        out = [
            lib.nn.bias_add(v, bias),
            lib.nn.l2_loss(v),
            lib.nn.zero_fraction(v),
            lib.nn.zero_fraction(lib.cast(v, lib.int32)),
        ]
        if 0 not in shape:
            out += [
                *lib.nn.moments(v, [0]),
                *lib.nn.moments(v, [0, len(shape) - 1], keep_dims=True),
            ]
        return out

    _compare(tf1, build, tol={"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else None)
    got = run_ff(build)
    np.testing.assert_allclose(got[0], value + bias, rtol=1e-6)
    np.testing.assert_allclose(got[1], (value.astype(np.float64) ** 2).sum() / 2, rtol=1e-5)
    if value.size:
        assert got[2] == pytest.approx(np.mean(value == 0), rel=1e-6)
        assert got[2].dtype == np.float32
    if 0 not in shape:
        np.testing.assert_allclose(got[4], value.mean(0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[5], value.var(0), rtol=1e-5, atol=1e-6)
        axes = (0, len(shape) - 1)
        np.testing.assert_allclose(got[6], value.mean(axes, keepdims=True), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[7], value.var(axes, keepdims=True), rtol=1e-5, atol=1e-6)


def test_bias_add_converts_bias_and_checks_shapes():
    value = np.ones((2, 3), np.float32)
    out = ff.nn.bias_add(value, np.array([1.0, 2.0, 3.0]))  # a float64 array, as in TF
    assert out.dtype == ff.float32
    np.testing.assert_allclose(_run(out), [[2, 3, 4], [2, 3, 4]])
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        ff.nn.bias_add(value, np.zeros(4, np.float32))
    with pytest.raises(TypeError):
        ff.nn.bias_add(ff.constant(value), ff.zeros([3], ff.float64))
    with pytest.raises(ValueError, match="data_format"):
        ff.nn.bias_add(value, np.zeros(3, np.float32), data_format="NDHWC")
    with pytest.raises(ValueError, match="at least rank 3"):
        ff.nn.bias_add(value, np.zeros(3, np.float32), data_format="NCHW")
    p = ff.placeholder(ff.float32, [None, None])
    out = ff.nn.bias_add(p, np.zeros(3, np.float32))
    with pytest.raises(ff.errors.InvalidArgumentError):
        _run(out, {p: np.zeros((2, 4))})


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 5), (1, 3, 2, 2, 2)])
def test_bias_add_channels_first_and_its_gradients_match_tensorflow(tf1, shape):
    rng = np.random.default_rng(len(shape))
    value = rng.normal(size=shape).astype(np.float32)
    bias = rng.normal(size=[3]).astype(np.float32)
    up = rng.normal(size=shape).astype(np.float32)

    def build(lib):
        v, b = lib.constant(value), lib.constant(bias)
        out = lib.nn.bias_add(v, b, data_format="NCHW")
        dv, db = lib.gradients(out, [v, b], grad_ys=lib.constant(up))
        # The gradient of BiasAddGrad (second order) broadcasts back along channels.
        (ddv,) = lib.gradients(db * lib.constant([1.0, 2.0, 3.0]), [dv])
        return [out, dv, db, ddv]

    _compare(tf1, build)
    out, _, db, ddv = run_ff(build)
    expand = [1] * len(shape)
    expand[1] = 3
    np.testing.assert_allclose(out, value + bias.reshape(expand), rtol=1e-6)
    sum_axes = tuple(d for d in range(len(shape)) if d != 1)
    np.testing.assert_allclose(db, up.sum(sum_axes), rtol=1e-5)
    weights = np.array([1.0, 2.0, 3.0]).reshape(expand)
    np.testing.assert_allclose(ddv, np.broadcast_to(weights, shape))


def test_bias_add_static_shape_from_bias():
    p = ff.placeholder(ff.float32, [None, None])
    assert ff.nn.bias_add(p, np.zeros(3, np.float32)).shape.as_list() == [None, 3]


@pytest.mark.parametrize(
    ("value_shape", "bias_shape"),
    [
        pytest.param((3,), (3,), id="value1d"),
        pytest.param((2, 3), (1, 3), id="bias2d"),
    ],
)
def test_bias_add_rank_errors_like_tensorflow(value_shape, bias_shape):
    with pytest.raises(ValueError, match="rank"):
        ff.nn.bias_add(np.zeros(value_shape, np.float32), np.zeros(bias_shape, np.float32))


def test_relu_of_integers_like_tensorflow():
    x = np.array([-1, 2, 7], np.int32)
    got = _run([ff.nn.relu(x), ff.nn.relu6(x)])
    np.testing.assert_array_equal(got[0], [0, 2, 7])
    np.testing.assert_array_equal(got[1], [0, 2, 6])


def test_activation_and_loss_type_errors():
    for f in (ff.nn.softplus, ff.nn.elu, ff.nn.l2_loss, ff.nn.log_softmax):
        with pytest.raises(TypeError):
            f(np.array([1, 2]))
    assert ff.nn.l2_loss(ff.zeros([2, 3])).shape.as_list() == []


@pytest.mark.tf_oracle
def test_embedding_lookup_matches_tensorflow(tf1):
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    ids = np.array([[4, 0], [1, 1]])

    def build(lib):
        v = lib.Variable(table, name="table")
        return [
            lib.nn.embedding_lookup(v, ids),
            lib.nn.embedding_lookup([lib.constant(table)], ids[0]),
            lib.nn.embedding_lookup(table, 3),
            lib.nn.embedding_lookup(table, np.zeros([0], np.int64)),
        ]

    _compare(tf1, build)
    got = run_ff(build)
    np.testing.assert_array_equal(got[0], table[ids])
    np.testing.assert_array_equal(got[2], table[3])
    p = ff.placeholder(ff.int32, [None])
    bad = ff.nn.embedding_lookup(table, p)
    with pytest.raises(ff.errors.InvalidArgumentError, match="not in"):
        _run(bad, {p: [0, 5]})
    with pytest.raises(ValueError, match="Unrecognized partition strategy"):
        ff.nn.embedding_lookup([table, table], [0], partition_strategy="range")


@pytest.mark.tf_oracle
def test_nn_op_names_and_shapes_match_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        return [
            tf.nn.relu(x),
            tf.nn.relu6(x),
            tf.nn.elu(x),
            tf.nn.softplus(x),
            tf.nn.softmax(x),
            tf.nn.log_softmax(x),
            tf.nn.bias_add(x, tf.zeros([4])),
            tf.nn.l2_loss(x),
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x),
            tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=x),
        ]  # (TF names the dense xent's output `.../Reshape_2`, ferroflow the scope: skipped)

    (_, a), (_, b) = build_both(tf1, build)
    assert_same_tensors(a, b)


@pytest.mark.parametrize(
    "labels_dtype,logits_dtype,axis,v2",
    [
        ("float64", "float32", -1, False),  # TF-1.x casts the labels to the logits' dtype
        ("float32", "float64", -1, True),
        ("float32", "float32", 1, False),
        ("float32", "float32", 0, True),
        ("float16", "float16", -1, False),  # computed in float32, cast back
    ],
)
def test_softmax_cross_entropy_casts_labels_and_takes_any_axis_as_tf(
    tf1, labels_dtype, logits_dtype, axis, v2
):
    rs = np.random.RandomState(0)
    x = rs.randn(2, 3, 4).astype(logits_dtype)
    labels = np.abs(rs.randn(2, 3, 4))
    labels = (labels / labels.sum(axis, keepdims=True)).astype(labels_dtype)

    def build(lib):
        logits = lib.constant(x)
        if v2:
            cost = lib.nn.softmax_cross_entropy_with_logits_v2(
                labels=lib.constant(labels), logits=logits, axis=axis
            )
        else:
            cost = lib.nn.softmax_cross_entropy_with_logits(
                labels=lib.constant(labels), logits=logits, dim=axis
            )
        return cost, lib.gradients(cost, logits)[0]

    (tf_cost, tf_grad), (ff_cost, ff_grad) = run_tf(tf1, build), run_ff(build)
    assert ff_cost.dtype == tf_cost.dtype and ff_cost.shape == tf_cost.shape
    tol = 1e-3 if logits_dtype == "float16" else 1e-5
    np.testing.assert_allclose(ff_cost, tf_cost, rtol=tol, atol=tol)
    np.testing.assert_allclose(ff_grad, tf_grad, rtol=tol, atol=tol)
