"""`tf.losses`: every loss x reduction x weights, compared with TensorFlow.

The same graph-building code runs on both libraries; values (float tolerance), the
names of the ops created, the loss collection and the errors must agree. Where
ferroflow builds other ops than TF (the insides of the `*_cross_entropy_with_logits`
ops), only the op names outside them are compared.
"""

import re

import numpy as np
import pytest

import ferroflow as ff

B, C = 4, 3
RNG = np.random.default_rng(18)


def _inputs(kind):
    """(labels, predictions/logits) numpy arrays for one loss kind."""
    x = RNG.standard_normal((B, C)).astype(np.float32)
    if kind in ("log_loss",):
        return (RNG.random((B, C)) > 0.5).astype(np.float32), RNG.uniform(
            0.05, 0.95, (B, C)
        ).astype(np.float32)
    if kind in ("hinge_loss", "sigmoid_cross_entropy"):
        return (RNG.random((B, C)) > 0.5).astype(np.float32), x
    if kind == "softmax_cross_entropy":
        return np.eye(C, dtype=np.float32)[RNG.integers(0, C, B)], x
    if kind == "sparse_softmax_cross_entropy":
        return RNG.integers(0, C, B).astype(np.int32), x
    if kind == "cosine_distance":
        lab = RNG.standard_normal((B, C)).astype(np.float32)
        lab /= np.linalg.norm(lab, axis=1, keepdims=True)
        pred = x / np.linalg.norm(x, axis=1, keepdims=True)
        return lab, pred
    return RNG.standard_normal((B, C)).astype(np.float32), x


LOSSES = {
    "absolute_difference": lambda tf, y, p, **kw: tf.losses.absolute_difference(y, p, **kw),
    "cosine_distance": lambda tf, y, p, **kw: tf.losses.cosine_distance(y, p, axis=1, **kw),
    "hinge_loss": lambda tf, y, p, **kw: tf.losses.hinge_loss(y, p, **kw),
    "huber_loss": lambda tf, y, p, **kw: tf.losses.huber_loss(y, p, delta=0.7, **kw),
    "log_loss": lambda tf, y, p, **kw: tf.losses.log_loss(y, p, **kw),
    "mean_squared_error": lambda tf, y, p, **kw: tf.losses.mean_squared_error(y, p, **kw),
    "sigmoid_cross_entropy": lambda tf, y, p, **kw: tf.losses.sigmoid_cross_entropy(
        y, p, label_smoothing=0.1, **kw
    ),
    "softmax_cross_entropy": lambda tf, y, p, **kw: tf.losses.softmax_cross_entropy(
        y, p, label_smoothing=0.2, **kw
    ),
    "sparse_softmax_cross_entropy": lambda tf, y, p, **kw: tf.losses.sparse_softmax_cross_entropy(
        y, p, **kw
    ),
}

# Ops ferroflow builds differently from TF: their names are left out of the comparison.
_OWN_OPS = {
    "sigmoid_cross_entropy": ("xentropy/",),
    "softmax_cross_entropy": ("xentropy/",),
    "sparse_softmax_cross_entropy": ("xentropy/",),
}

# Inside existing ferroflow ops whose own op names differ from TF's (not the losses'):
# `ones_like`/`zeros_like` (TF folds a known shape into `Fill`) and the axes of a
# reduction over all axes (TF builds `Rank`/`range`, ferroflow one `Const`).
_INTERNAL = re.compile(r"/(ones_like|zeros_like)(_\d+)?/|/(Const|Rank|range)(_\d+)?(/|$)")


def _weights(kind, which):
    """Weights of the shapes TF accepts for `kind`'s losses, some of them zero."""
    per_row = kind in ("cosine_distance", "softmax_cross_entropy", "sparse_softmax_cross_entropy")
    if which == "scalar":
        return 2.5
    if which == "zero":
        return 0.0
    if which == "per_batch":
        w = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
        return (
            w if kind in ("softmax_cross_entropy", "sparse_softmax_cross_entropy") else w[:, None]
        )
    w = RNG.random((B, 1 if per_row else C)).astype(np.float32)
    w[0, 0] = 0.0
    w[2, -1] = 0.0
    if kind in ("softmax_cross_entropy", "sparse_softmax_cross_entropy"):
        return w[:, 0]
    return w


def _run(lib, build):
    g = lib.Graph()
    with g.as_default():
        out = build(lib)
        names = [op.name for op in g.get_operations()]
        coll = [t.name for t in lib.get_collection(lib.GraphKeys.LOSSES)]
        with lib.Session(graph=g) as sess:
            return sess.run(out), names, coll


def _both(tf1, build, own=()):
    (tv, tn, tc), (fv, fn, fc) = _run(tf1, build), _run(ff, build)
    np.testing.assert_allclose(fv, tv, rtol=2e-5, atol=2e-6)
    assert fc == tc

    def keep(n):
        return not any(s in n for s in own) and not _INTERNAL.search(n)

    assert [n for n in fn if keep(n)] == [n for n in tn if keep(n)]
    return tv


REDUCTIONS = [
    "none",
    "weighted_sum",
    "weighted_mean",
    "weighted_sum_over_batch_size",
    "weighted_sum_by_nonzero_weights",
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("which", ["default", "scalar", "zero", "per_batch", "per_element"])
@pytest.mark.parametrize("kind", sorted(LOSSES))
def test_loss_matches_tf(tf1, kind, which, reduction):
    labels, preds = _inputs(kind)
    kw = {"reduction": reduction}
    if which != "default":
        kw["weights"] = _weights(kind, which)
    _both(tf1, lambda tf: LOSSES[kind](tf, labels, preds, **kw), _OWN_OPS.get(kind, ()))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_compute_weighted_loss_with_scope_and_placeholder(tf1, reduction):
    losses = RNG.random((B, C)).astype(np.float32)
    w = np.array([[1.0], [0.0], [3.0], [0.5]], np.float32)

    def build(tf):
        x = tf.constant(losses, tf.float64)
        with tf.name_scope("outer"):
            return tf.losses.compute_weighted_loss(x, w, scope="s", reduction=reduction)

    _both(tf1, build)


@pytest.mark.parametrize("which", ["scalar", "per_batch", "per_element"])
def test_mean_pairwise_squared_error(tf1, which):
    labels, preds = _inputs("mean_squared_error")
    weights = {
        "scalar": 1.5,
        "per_batch": np.array([[1.0], [0.0], [2.0], [0.5]], np.float32),
        "per_element": _weights("absolute_difference", "per_element"),
    }[which]
    _both(tf1, lambda tf: tf.losses.mean_pairwise_squared_error(labels, preds, weights))


@pytest.mark.parametrize(
    "weights",
    [np.ones((B,), np.float32), np.ones((B, 2), np.float32), np.ones((1, C, 1), np.float32)],
)
def test_bad_weight_shapes_raise_tf_errors(tf1, weights):
    labels, preds = _inputs("absolute_difference")
    errs = []
    for lib in (tf1, ff):
        with lib.Graph().as_default(), pytest.raises(ValueError) as e:
            lib.losses.absolute_difference(labels, preds, weights)
        errs.append(str(e.value).split(" Received")[0])
    assert errs[1] == errs[0]


def test_bad_reduction_and_arguments(tf1):
    for fn, args, kw in [
        ("compute_weighted_loss", (np.ones(3, np.float32),), {"reduction": "bogus"}),
        ("mean_squared_error", (None, np.ones(3, np.float32)), {}),
        ("softmax_cross_entropy", (None, np.ones(3, np.float32)), {}),
        ("cosine_distance", (np.ones(3, np.float32), np.ones(3, np.float32)), {}),
    ]:
        msgs = []
        for lib in (tf1, ff):
            with lib.Graph().as_default(), pytest.raises(ValueError) as e:
                getattr(lib.losses, fn)(*args, **kw)
            msgs.append(str(e.value))
        assert msgs[1] == msgs[0]


def test_reduction_keys(tf1):
    assert ff.losses.Reduction.all() == tf1.losses.Reduction.all()
    for key in (
        "NONE",
        "SUM",
        "MEAN",
        "SUM_OVER_BATCH_SIZE",
        "SUM_OVER_NONZERO_WEIGHTS",
        "SUM_BY_NONZERO_WEIGHTS",
    ):
        assert getattr(ff.losses.Reduction, key) == getattr(tf1.losses.Reduction, key)
    ff.losses.Reduction.validate("none")


def test_cosine_distance_dim_alias(tf1):
    labels, preds = _inputs("cosine_distance")
    _both(tf1, lambda tf: tf.losses.cosine_distance(labels, preds, dim=1))


def test_dynamic_weights_assert(tf1):
    """Weights of unknown shape: the check runs when the graph does."""
    labels, preds = _inputs("absolute_difference")
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            w = lib.placeholder(lib.float32, shape=None)
            loss = lib.losses.absolute_difference(labels, preds, w)
            with lib.Session(graph=g) as sess:
                ok = sess.run(loss, {w: np.ones((B, 1), np.float32)})
                np.testing.assert_allclose(ok, np.abs(preds - labels).mean(), rtol=1e-5)
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(loss, {w: np.ones((B,), np.float32)})
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(loss, {w: np.ones((B, 2), np.float32)})


def test_collection_helpers(tf1):
    def build(tf):
        tf.get_variable(
            "v",
            [2],
            initializer=tf.ones_initializer(),
            regularizer=lambda x: tf.reduce_sum(x) * 0.5,
        )
        with tf.name_scope("a"):
            tf.losses.mean_squared_error([1.0, 2.0], [1.5, 2.0])
        tf.losses.add_loss(tf.constant(3.0, name="extra"))
        tf.losses.absolute_difference([1.0], [2.0], loss_collection=None)
        names = [t.name for t in tf.losses.get_losses()]
        scoped = [t.name for t in tf.losses.get_losses(scope="a")]
        reg = [t.name for t in tf.losses.get_regularization_losses()]
        total = tf.losses.get_total_loss()
        reg_total = tf.losses.get_regularization_loss()
        no_reg = tf.losses.get_total_loss(add_regularization_losses=False, name="t2")
        init = tf.global_variables_initializer()
        return names, scoped, reg, total.name, reg_total.name, no_reg.name, total, reg_total, init

    out = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            *meta, total, reg_total, init = build(lib)
            with lib.Session(graph=g) as sess:
                sess.run(init)
                out.append((meta, sess.run([total, reg_total])))
    assert out[1][0] == out[0][0]
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-6)


def test_regularization_loss_empty_and_total_loss_empty(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            zero = lib.losses.get_regularization_loss()
            with lib.Session() as sess:
                assert sess.run(zero) == 0.0
            with pytest.raises(ValueError):
                lib.losses.get_total_loss()
