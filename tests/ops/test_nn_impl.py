"""`tf.nn` functions composed from existing ops, compared with TensorFlow.

Values and gradients (with respect to every float input) must agree. Where TF has one
kernel (`LeakyRelu`, `Selu`, `Softsign`, `FusedBatchNormV3`) ferroflow builds a few ops,
so only values, gradients and the output's name scope are compared.
"""

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

RNG = np.random.default_rng(20)
X = RNG.standard_normal((3, 4)).astype(np.float32)
X[0, 0] = 0.0  # the gradients at 0 follow the kernels' conventions
W = RNG.standard_normal((4, 5)).astype(np.float32)
B5 = RNG.standard_normal(5).astype(np.float32)
LABELS = (RNG.random((3, 4)) > 0.5).astype(np.float32)
IMG = RNG.standard_normal((2, 3, 4, 3)).astype(np.float32)
SEQ = RNG.standard_normal((2, 7, 3)).astype(np.float32)
FILT1 = RNG.standard_normal((3, 3, 4)).astype(np.float32)


def _with_grads(tf, out, inputs):
    """`out` and the gradients of `sum(out * c)` with respect to `inputs`."""
    outs = out if isinstance(out, tuple | list) else [out]
    weights = [np.linspace(0.5, 1.5, int(np.prod(o.shape.as_list()))) for o in outs]
    loss = tf.add_n(
        [
            tf.reduce_sum(o * tf.constant(w.reshape(o.shape.as_list()), dtype=o.dtype))
            for o, w in zip(outs, weights, strict=True)
        ]
    )
    grads = [g for g in tf.gradients(loss, inputs) if g is not None]
    return [*outs, *grads]


CASES = {
    "batch_normalization": lambda tf, x: tf.nn.batch_normalization(
        x, tf.constant([0.1, -0.2, 0.3, 0.0]), tf.constant([1.0, 0.5, 2.0, 0.1]), 0.3, 1.5, 1e-3
    ),
    "batch_normalization_none": lambda tf, x: tf.nn.batch_normalization(
        x, 0.2, 0.7, None, None, 0.01
    ),
    "xw_plus_b": lambda tf, x: tf.nn.xw_plus_b(x, W, B5),
    "relu_layer": lambda tf, x: tf.nn.relu_layer(x, W, B5),
    "l2_normalize": lambda tf, x: tf.nn.l2_normalize(x, axis=1),
    "l2_normalize_dim": lambda tf, x: tf.nn.l2_normalize(x, dim=0, epsilon=0.5),
    "l2_normalize_all": lambda tf, x: tf.nn.l2_normalize(x),
    "weighted_xent": lambda tf, x: tf.nn.weighted_cross_entropy_with_logits(
        targets=LABELS, logits=x, pos_weight=2.5
    ),
    "weighted_xent_labels": lambda tf, x: tf.nn.weighted_cross_entropy_with_logits(
        labels=LABELS, logits=x, pos_weight=0.5
    ),
    "log_poisson": lambda tf, x: tf.nn.log_poisson_loss(LABELS * 3, x),
    "log_poisson_full": lambda tf, x: tf.nn.log_poisson_loss(LABELS * 3 + 0.5, x, True),
    "leaky_relu": lambda tf, x: tf.nn.leaky_relu(x),
    "leaky_relu_big_alpha": lambda tf, x: tf.nn.leaky_relu(x, alpha=np.array(1.5)),
    "selu": lambda tf, x: tf.nn.selu(x),
    "softsign": lambda tf, x: tf.nn.softsign(x),
    "crelu": lambda tf, x: tf.nn.crelu(x),
    "crelu_axis0": lambda tf, x: tf.nn.crelu(x, axis=0),
    "sufficient_statistics": lambda tf, x: tuple(
        t for t in tf.nn.sufficient_statistics(x, [0]) if t is not None
    ),
    "sufficient_statistics_shift": lambda tf, x: tuple(
        tf.nn.sufficient_statistics(x, [1], shift=tf.constant(0.3), keep_dims=True)
    ),
    "normalize_moments": lambda tf, x: tf.nn.normalize_moments(
        *tf.nn.sufficient_statistics(x, [0], shift=tf.constant([0.1, 0.2, 0.3, 0.4]))
    ),
    "normalize_moments_noshift": lambda tf, x: tf.nn.normalize_moments(
        *tf.nn.sufficient_statistics(x, [0, 1])
    ),
    "weighted_moments": lambda tf, x: tf.nn.weighted_moments(x, [0], LABELS + 0.5),
    "weighted_moments_keep": lambda tf, x: tf.nn.weighted_moments(
        x, [1], np.array([[1.0], [2.0], [0.5]], np.float32), keep_dims=True
    ),
    "sigmoid_xent": lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=LABELS, logits=x),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_match_tensorflow(tf1, case):
    def build(tf):
        x = tf.constant(X, name="x")
        out = CASES[case](tf, x)
        return _with_grads(tf, out, [x])

    expected = run_tf(tf1, build)
    got = run_ff(build)
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", ["leaky_relu", "selu", "softsign", "crelu", "l2_normalize"])
def test_output_is_named_in_the_functions_scope(tf1, case):
    def build(tf):
        return CASES[case](tf, tf.constant(X, name="x")).name.split("/")[0]

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        assert build(ff) == expected


def test_leaky_relu_casts_ints_to_float(tf1):
    def build(tf):
        return tf.nn.leaky_relu(tf.constant([-2, 3]), alpha=0.5)

    np.testing.assert_array_equal(run_ff(build), run_tf(tf1, build))
    with ff.Graph().as_default():
        assert build(ff).dtype == ff.float32


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("is_training", [True, False])
def test_fused_batch_norm_matches_tensorflow(tf1, is_training, data_format):
    img = IMG if data_format == "NHWC" else IMG.transpose(0, 3, 1, 2)
    scale = np.array([1.5, 0.5, 2.0], np.float32)
    offset = np.array([0.1, -0.3, 0.0], np.float32)
    mean = np.array([0.2, -0.1, 0.4], np.float32)
    var = np.array([1.2, 0.7, 0.3], np.float32)

    def build(tf):
        x = tf.constant(img)
        s, o = tf.constant(scale), tf.constant(offset)
        m = tf.constant(mean) if not is_training else None
        v = tf.constant(var) if not is_training else None
        y, bm, bv = tf.nn.fused_batch_norm(
            x, s, o, m, v, epsilon=0.01, data_format=data_format, is_training=is_training
        )
        loss = tf.reduce_sum(
            y * tf.constant(np.linspace(-1, 2, img.size).reshape(img.shape), tf.float32)
        )
        return [y, bm, bv, *tf.gradients(loss, [x, s, o])]

    # TF's CPU kernel does not run NCHW in inference; NHWC gives the reference.
    if data_format == "NCHW" and not is_training:
        pytest.skip("TF has no CPU NCHW FusedBatchNorm inference kernel to compare with")
    expected = run_tf(tf1, build)
    got = run_ff(build)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5)


def test_fused_batch_norm_running_average_factor(tf1):
    def build(tf):
        y, m, v = tf.nn.fused_batch_norm(
            tf.constant(IMG),
            tf.ones([3]),
            tf.zeros([3]),
            tf.constant([0.5, 0.5, 0.5]),
            tf.constant([2.0, 2.0, 2.0]),
            exponential_avg_factor=0.3,
        )
        return [y, m, v]

    for a, b in zip(run_ff(build), run_tf(tf1, build), strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_fused_batch_norm_errors(tf1):
    for tf in (tf1, ff):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="Both `mean` and `variance` must be a 1D"):
                tf.nn.fused_batch_norm(
                    tf.constant(IMG), tf.ones([3]), tf.zeros([3]), is_training=False
                )
            with pytest.raises(ValueError, match="rank 4"):
                tf.nn.fused_batch_norm(tf.constant(SEQ), tf.ones([3]), tf.zeros([3]))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"stride": 1, "padding": "VALID"},
        {"stride": 2, "padding": "SAME"},
        {"stride": [1, 1, 1], "padding": "SAME", "dilations": 2},
        {"stride": 1, "padding": "VALID", "data_format": "NWC"},
    ],
)
def test_conv1d_matches_tensorflow(tf1, kwargs):
    names = {}

    def build(tf):
        x, f = tf.constant(SEQ), tf.constant(FILT1)
        y = tf.nn.conv1d(x, f, **kwargs)
        names[tf] = y.name
        return _with_grads(tf, y, [x, f])

    def build_undilated(tf):
        # The same convolution over the filter with zeros between its taps.
        d = kwargs["dilations"]
        k = FILT1.shape[0]
        taps = np.zeros(((k - 1) * d + 1, k), np.float32)
        taps[np.arange(k) * d, np.arange(k)] = 1.0
        x, f = tf.constant(SEQ), tf.constant(FILT1)
        stuffed = tf.reshape(
            tf.matmul(taps, tf.reshape(f, [k, -1])), [taps.shape[0], *FILT1.shape[1:]]
        )
        args = {key: v for key, v in kwargs.items() if key != "dilations"}
        y = tf.nn.conv1d(x, stuffed, **args)
        names[tf] = y.name
        return _with_grads(tf, y, [x, f])

    try:
        expected = run_tf(tf1, build)
    except tf1.errors.InvalidArgumentError as e:
        if "dilation rates larger than 1" not in str(e):
            raise
        # TF's CPU kernels without its oneDNN path have no dilated filter gradient
        # ("do not yet support dilation rates larger than 1"): the undilated form
        # gives TF's values.
        expected = run_tf(tf1, build_undilated)
    got = run_ff(build)
    assert names[ff] == names[tf1] == "conv1d/Squeeze:0"
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


def test_argument_errors_match_tensorflow(tf1):
    for tf in (tf1, ff):
        with tf.Graph().as_default():
            x = tf.constant(X)
            with pytest.raises(ValueError, match="must have the same shape"):
                tf.nn.sigmoid_cross_entropy_with_logits(labels=LABELS[:2], logits=x)
            with pytest.raises(ValueError, match="Both `labels` and `logits` must be provided"):
                tf.nn.sigmoid_cross_entropy_with_logits(logits=x)
            with pytest.raises(ValueError, match="must have the same shape"):
                tf.nn.weighted_cross_entropy_with_logits(
                    labels=LABELS[:2], logits=x, pos_weight=1.0
                )
            with pytest.raises(ValueError, match="must have the same shape"):
                tf.nn.log_poisson_loss(LABELS[:2], x)
            with pytest.raises(ValueError):
                tf.nn.conv1d(tf.constant(SEQ), tf.constant(FILT1), 1, "SAME", data_format="NHCW")
