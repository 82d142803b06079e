"""`tf.layers`, compared with TensorFlow's legacy (TF-1.x) layers.

TF 2.21 with Keras 3 has no `tf.compat.v1.layers`, but its own copy of the TF-1.x
layers (`tensorflow.python.keras.legacy_tf_layers`) builds the same graphs; it is the
oracle for the names and shapes of the variables, ops and outputs, the collections,
and the values of outputs and gradients with the same weights. It has no batch
normalization: that layer is compared with TF's documented formula built from
`tf.nn.fused_batch_norm` / `tf.nn.moments` and the layer's `AssignMovingAvg` update.
"""

import types

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

# TF's legacy layers warn that they are deprecated on every use.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

RNG = np.random.default_rng(4)
X3 = RNG.standard_normal((2, 7, 3)).astype(np.float32)
X4 = RNG.standard_normal((2, 6, 5, 3)).astype(np.float32)
X2 = RNG.standard_normal((4, 3)).astype(np.float32)


@pytest.fixture(scope="module")
def tfl(tf1):
    """TF's legacy layers as a `tf.layers`-shaped namespace."""
    core = pytest.importorskip("tensorflow.python.keras.legacy_tf_layers.core")
    conv = pytest.importorskip("tensorflow.python.keras.legacy_tf_layers.convolutional")
    pool = pytest.importorskip("tensorflow.python.keras.legacy_tf_layers.pooling")
    layers = types.SimpleNamespace()
    for module in (core, conv, pool):
        for name in dir(module):
            if not name.startswith("_"):
                setattr(layers, name, getattr(module, name))
    return layers


def lib_layers(tf, tfl):
    return tfl if tf is not ff else ff.layers


def _weights(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 0.5


# Each case: (layer function, input, kwargs). Weights come from constant initializers.
CASES = {
    "dense": ("dense", X2, {"units": 5, "activation": "relu"}),
    "dense_3d": ("dense", X3, {"units": 4, "use_bias": False}),
    "dense_tanh": ("dense", X3, {"units": 2, "activation": "tanh"}),
    "conv1d": ("conv1d", X3, {"filters": 4, "kernel_size": 3}),
    "conv1d_same_dilated": (
        "conv1d",
        X3,
        {"filters": 2, "kernel_size": 2, "padding": "SAME", "dilation_rate": 2},
    ),
    "conv1d_causal": ("conv1d", X3, {"filters": 2, "kernel_size": 3, "padding": "causal"}),
    "conv1d_strided": ("conv1d", X3, {"filters": 2, "kernel_size": 2, "strides": 2}),
    "conv2d": ("conv2d", X4, {"filters": 4, "kernel_size": 3}),
    "conv2d_same_strided": (
        "conv2d",
        X4,
        {"filters": 2, "kernel_size": (3, 2), "strides": (2, 1), "padding": "Same"},
    ),
    "conv2d_dilated": ("conv2d", X4, {"filters": 2, "kernel_size": 2, "dilation_rate": 2}),
    "conv2d_transpose": (
        "conv2d_transpose",
        X4,
        {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same"},
    ),
    "conv2d_transpose_valid": (
        "conv2d_transpose",
        X4,
        {"filters": 3, "kernel_size": (2, 3), "strides": (2, 1)},
    ),
}


def _build_case(tf, layers, case, with_grads=True):
    fn, x_value, kwargs = CASES[case]
    x = tf.constant(x_value, name="x")
    kernel = {}

    def init(seed):
        def make(shape, dtype=None, partition_info=None):
            kernel.setdefault(seed, shape)
            return tf.constant(_weights(shape, seed))

        return make

    extra = {"kernel_initializer": init(1)}
    if kwargs.get("use_bias", True):
        extra["bias_initializer"] = init(2)
    y = getattr(layers, fn)(x, **kwargs, **extra)
    variables = tf.trainable_variables()
    if not with_grads:
        return y, variables
    loss = tf.reduce_sum(
        y
        * tf.constant(
            np.linspace(-1, 1, y.shape.num_elements()).reshape(y.shape.as_list()), tf.float32
        )
    )
    return [y, *tf.gradients(loss, [x, *variables])]


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_and_gradients_match_tensorflow(tf1, tfl, case):
    expected = run_tf(tf1, lambda tf: _build_case(tf, tfl, case))
    got = run_ff(lambda tf: _build_case(tf, ff.layers, case))
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", sorted(CASES))
def test_names_shapes_and_collections_match_tensorflow(tf1, tfl, case):
    def build(tf):
        y, variables = _build_case(tf, lib_layers(tf, tfl), case, with_grads=False)
        return {
            "output": (y.name, y.shape.as_list()),
            "trainable": [(v.name, v.shape.as_list()) for v in variables],
            "global": [v.name for v in tf.global_variables()],
        }

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        assert build(ff) == expected


POOLS = [
    ("max_pooling1d", X3, (2, 2), {}),
    ("average_pooling1d", X3, (3, 1), {"padding": "same"}),
    ("max_pooling2d", X4, ((2, 3), 2), {"padding": "SAME"}),
    ("average_pooling2d", X4, (2, (1, 2)), {}),
    ("max_pooling2d", X4, (3, 3), {"padding": "valid"}),
]


@pytest.mark.parametrize(("fn", "x_value", "args", "kwargs"), POOLS)
def test_pooling_matches_tensorflow(tf1, tfl, fn, x_value, args, kwargs):
    names = {}

    def build(tf):
        x = tf.constant(x_value)
        y = getattr(lib_layers(tf, tfl), fn)(x, *args, **kwargs)
        names[tf] = (y.name, y.shape.as_list())
        return [y, tf.gradients(tf.reduce_sum(y * y), x)[0]]

    expected = run_tf(tf1, build)
    got = run_ff(build)
    assert names[ff] == names[tf1]
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [[2, 6, 5, 3], [None, 6, 5, 3], [2, None, 5, 3], [5]])
def test_flatten_matches_tensorflow(tf1, tfl, shape):
    value = X4 if len(shape) == 4 else X4.ravel()[:5]
    names = {}

    def build(tf):
        x = tf.placeholder(tf.float32, shape, name="x")
        y = lib_layers(tf, tfl).flatten(x)
        names[tf] = (y.name, y.shape.as_list())
        return y

    expected = run_tf(tf1, build, lambda g: {g.get_tensor_by_name("x:0"): value})
    got = run_ff(build, lambda g: {g.get_tensor_by_name("x:0"): value})
    assert names[ff] == names[tf1]
    np.testing.assert_array_equal(got, expected)


def test_layer_objects_names_scopes_and_properties_match_tensorflow(tf1, tfl):
    def build(tf):
        layers = lib_layers(tf, tfl)
        x = tf.constant(X2)
        a, b = layers.Dense(2), layers.Dense(2)
        out = [a.name, b.name]
        ya, yb = a(x), b(x)
        with tf.variable_scope("s"):
            c = layers.Dense(2)
            yc = c(x)
        yc2 = c(x)
        d = layers.Dense(2, name="n")
        d(x)
        e = layers.Dense(2, name="n", kernel_regularizer=tf.nn.l2_loss)
        e(x)
        f = layers.Dense(2, trainable=False)
        f(x)
        out += [a.scope_name, b.scope_name, c.name, c.scope_name, d.scope_name, e.scope_name]
        out += [t.name for t in (ya, yb, yc, yc2)]
        out += [[v.name for v in lst] for lst in (a.trainable_variables, a.weights, e.variables)]
        out += [a.kernel.name, a.bias.name, a.updates, a.losses, a.non_trainable_weights]
        out += [[v.name for v in f.trainable_weights], [v.name for v in f.non_trainable_weights]]
        out += [len(e.losses)]  # TF re-evaluates callable losses on access: no names
        out += [[v.name for v in tf.trainable_variables()]]
        out += [[t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)]]
        return out

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        assert build(ff) == expected


def test_reuse_and_auto_reuse_share_variables(tf1, tfl):
    def build(tf):
        layers = lib_layers(tf, tfl)
        x = tf.constant(X2)
        y1 = layers.dense(x, 3, name="q")
        y2 = layers.dense(x, 3, name="q", reuse=True)
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            y3 = layers.dense(x, 3, name="q")
            y4 = layers.dense(x, 3, name="q")
        with tf.variable_scope("outer"):
            y5 = layers.conv1d(tf.constant(X3), 2, 2, name="c")
        with tf.variable_scope("outer", reuse=True):
            y6 = layers.conv1d(tf.constant(X3), 2, 2, name="c")
        names = [v.name for v in tf.global_variables()]
        return names, [t.name for t in (y1, y2, y3, y4, y5, y6)]

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        got = build(ff)
    assert got == expected
    assert got[0] == [
        "q/kernel:0",
        "q/bias:0",
        "auto/q/kernel:0",
        "auto/q/bias:0",
        "outer/c/kernel:0",
        "outer/c/bias:0",
    ]
    # Shared variables give equal outputs.
    y = run_ff(
        lambda tf: [
            tf.layers.dense(tf.constant(X2), 3, name="q"),
            tf.layers.dense(tf.constant(X2), 3, name="q", reuse=True),
        ]
    )
    np.testing.assert_array_equal(y[0], y[1])


def test_errors_match_tensorflow(tf1, tfl):
    for tf in (tf1, ff):
        layers = lib_layers(tf, tfl)
        with tf.Graph().as_default():
            x = tf.constant(X2)
            layers.dense(x, 2, name="q")
            with pytest.raises(ValueError, match="Variable q/kernel already exists"):
                layers.dense(x, 2, name="q")
            with pytest.raises(ValueError, match="Variable nope/kernel does not exist"):
                layers.dense(x, 2, name="nope", reuse=True)
            with pytest.raises(ValueError, match="last dimension of the inputs to `Dense`"):
                layers.dense(tf.placeholder(tf.float32, [None, None]), 2)
            with pytest.raises(TypeError, match="non-floating point dtype"):
                layers.dense(tf.placeholder(tf.int32, [2, 3]), 2)
            with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=2"):
                layers.conv2d(x, 2, 3)
            with pytest.raises(ValueError, match="The `padding` argument must be"):
                layers.conv2d(tf.constant(X4), 2, 3, padding="full")
            with pytest.raises(ValueError, match="The `kernel_size` argument must be a tuple of 2"):
                layers.conv2d(tf.constant(X4), 2, (1, 2, 3))
            with pytest.raises(ValueError, match="No name available for layer scope"):
                _ = layers.Dense(2).scope_name


def test_kernel_regularizer_constraint_and_activity_regularizer(tf1, tfl):
    def build(tf):
        x = tf.constant(X2)
        y = lib_layers(tf, tfl).dense(
            x,
            2,
            kernel_regularizer=lambda w: 0.5 * tf.reduce_sum(tf.abs(w)),
            bias_regularizer=tf.nn.l2_loss,
            activity_regularizer=tf.nn.l2_loss,
            kernel_initializer=tf.constant_initializer(0.25),
            bias_initializer=tf.constant_initializer(0.5),
        )
        return [y, *tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)]

    expected = run_tf(tf1, build)
    got = run_ff(build)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    with ff.Graph().as_default():
        layer = ff.layers.Dense(2, kernel_constraint=lambda w: ff.clip_by_value(w, -0.1, 0.1))
        layer(ff.constant(X2))
        assert layer.kernel.constraint is not None


def test_dropout_training_false_is_identity_and_true_drops_the_rate():
    x_value = np.ones((200, 50), np.float32)
    flag = {}

    def build(tf):
        x = tf.constant(x_value)
        flag["t"] = tf.placeholder(tf.bool, [], name="training")
        return [
            tf.layers.dropout(x, 0.3),
            tf.layers.dropout(x, 0.3, training=False),
            tf.layers.dropout(x, 0.3, training=True, seed=1),
            tf.layers.dropout(x, 0.3, training=flag["t"], seed=2),
            tf.layers.Dropout(0.6, noise_shape=[None, 1], seed=3)(x, training=True),
        ]

    for training in (True, False):
        off, off2, on, fed, columns = run_ff(
            build, lambda g, t=training: {g.get_tensor_by_name("training:0"): t}
        )
        np.testing.assert_array_equal(off, x_value)
        np.testing.assert_array_equal(off2, x_value)
        kept = on != 0
        assert abs(kept.mean() - 0.7) < 0.02
        np.testing.assert_allclose(on[kept], 1 / 0.7, rtol=1e-6)
        if training:
            assert abs((fed != 0).mean() - 0.7) < 0.02
        else:
            np.testing.assert_array_equal(fed, x_value)
        # noise_shape [None, 1]: whole rows are kept or dropped.
        assert all(len(set(row)) == 1 for row in columns)
        assert abs((columns[:, 0] != 0).mean() - 0.4) < 0.15


def test_dropout_names_match_tensorflow(tf1, tfl):
    def build(tf):
        layers = lib_layers(tf, tfl)
        x = tf.constant(X2)
        return [layers.dropout(x, 0.5, training=True).name.split("/")[:2], layers.dropout(x).name]

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        assert build(ff) == expected


def test_a_training_tensor_builds_the_dropout_in_a_tf_cond(tf1, tfl):
    def build(tf, layers):
        x = tf.constant(X2)
        flag = tf.placeholder(tf.bool, [], name="training")
        layers.dropout(x, 0.5, training=flag, seed=2)
        return sorted(op.type for op in tf.get_default_graph().get_operations())

    with tf1.Graph().as_default():
        expected = build(tf1, lib_layers(tf1, tfl))
    with ff.Graph().as_default():
        got = build(ff, ff.layers)
    assert {"Switch", "Merge", "RandomUniform"} <= set(got)
    assert got == expected
