"""`tf.layers` separable convolutions, `channels_first` and pooling, against TensorFlow.

The oracle is TensorFlow's own copy of the TF-1.x layers
(`tensorflow.python.keras.legacy_tf_layers`, or tf_keras' copy when absent), run in
graph mode on the CPU. Each case builds the same layer with the same input and the
same initial weights in both libraries and compares the forward values, the gradients
with respect to the input and every variable, the names and shapes of the variables,
the collections, the static output shapes and the error messages.
"""

import importlib
import types

import numpy as np
import pytest
from tests.conftest import run_ff, run_tf

import ferroflow as ff

# TF's legacy layers warn that they are deprecated on every use.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

RNG = np.random.default_rng(11)
X3 = RNG.standard_normal((2, 9, 3)).astype(np.float32)  # [batch, width, channels]
X3_CF = RNG.standard_normal((2, 3, 9)).astype(np.float32)  # [batch, channels, width]
X4 = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)  # NHWC
X4_CF = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)  # NCHW
X5 = RNG.standard_normal((2, 5, 6, 4, 3)).astype(np.float32)  # NDHWC
X5_CF = RNG.standard_normal((2, 3, 5, 6, 4)).astype(np.float32)  # NCDHW


def _import_first(*names):
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    pytest.skip(f"none of {names} is importable")


@pytest.fixture(scope="module")
def tfl(tf1):
    """TF's legacy layers as a `tf.layers`-shaped namespace."""
    conv = _import_first(
        "tensorflow.python.keras.legacy_tf_layers.convolutional",
        "tf_keras.src.legacy_tf_layers.convolutional",
    )
    pool = _import_first(
        "tensorflow.python.keras.legacy_tf_layers.pooling",
        "tf_keras.src.legacy_tf_layers.pooling",
    )
    layers = types.SimpleNamespace()
    for module in (conv, pool):
        for name in dir(module):
            if not name.startswith("_"):
                setattr(layers, name, getattr(module, name))
    return layers


def lib_layers(tf, tfl):
    return tfl if tf is not ff else ff.layers


def _weights(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 0.5


def _init(tf, seed):
    def make(shape, dtype=None, partition_info=None):
        return tf.constant(_weights(shape, seed))

    return make


SEPARABLE_INITS = ("depthwise_initializer", "pointwise_initializer", "bias_initializer")
CONV_INITS = ("kernel_initializer", "bias_initializer")

# name: (layer function, input, kwargs).
CASES = {
    # SeparableConv1D
    "sep1d": ("separable_conv1d", X3, {"filters": 4, "kernel_size": 3}),
    "sep1d_multiplier": (
        "separable_conv1d",
        X3,
        {"filters": 5, "kernel_size": 2, "depth_multiplier": 2, "activation": "relu"},
    ),
    "sep1d_same_strided": (
        "separable_conv1d",
        X3,
        {"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same"},
    ),
    "sep1d_dilated": (
        "separable_conv1d",
        X3,
        {"filters": 3, "kernel_size": 2, "dilation_rate": 3, "depth_multiplier": 2},
    ),
    "sep1d_causal": ("separable_conv1d", X3, {"filters": 2, "kernel_size": 3, "padding": "causal"}),
    "sep1d_no_bias": ("separable_conv1d", X3, {"filters": 2, "kernel_size": 3, "use_bias": False}),
    "sep1d_cf": (
        "separable_conv1d",
        X3_CF,
        {"filters": 4, "kernel_size": 3, "data_format": "channels_first"},
    ),
    "sep1d_cf_same_strided": (
        "separable_conv1d",
        X3_CF,
        {
            "filters": 2,
            "kernel_size": 2,
            "strides": 2,
            "padding": "same",
            "depth_multiplier": 3,
            "data_format": "channels_first",
        },
    ),
    "sep1d_cf_causal": (
        "separable_conv1d",
        X3_CF,
        {"filters": 2, "kernel_size": 3, "padding": "causal", "data_format": "channels_first"},
    ),
    # SeparableConv2D
    "sep2d": ("separable_conv2d", X4, {"filters": 4, "kernel_size": 3}),
    "sep2d_multiplier": (
        "separable_conv2d",
        X4,
        {"filters": 5, "kernel_size": (2, 3), "depth_multiplier": 2, "activation": "tanh"},
    ),
    "sep2d_same_strided": (
        "separable_conv2d",
        X4,
        {"filters": 2, "kernel_size": 3, "strides": (2, 1), "padding": "SAME"},
    ),
    "sep2d_dilated": (
        "separable_conv2d",
        X4,
        {"filters": 3, "kernel_size": 2, "dilation_rate": (2, 1), "padding": "same"},
    ),
    "sep2d_no_bias": ("separable_conv2d", X4, {"filters": 2, "kernel_size": 2, "use_bias": False}),
    "sep2d_cf": (
        "separable_conv2d",
        X4_CF,
        {"filters": 4, "kernel_size": 3, "data_format": "channels_first"},
    ),
    "sep2d_cf_same_strided": (
        "separable_conv2d",
        X4_CF,
        {
            "filters": 3,
            "kernel_size": (3, 2),
            "strides": 2,
            "padding": "same",
            "depth_multiplier": 2,
            "data_format": "channels_first",
        },
    ),
    "sep2d_cf_dilated": (
        "separable_conv2d",
        X4_CF,
        {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "data_format": "channels_first"},
    ),
    # channels_first convolutions
    "conv1d_cf": (
        "conv1d",
        X3_CF,
        {"filters": 4, "kernel_size": 3, "data_format": "channels_first"},
    ),
    "conv1d_cf_same_strided": (
        "conv1d",
        X3_CF,
        {
            "filters": 2,
            "kernel_size": 3,
            "strides": 2,
            "padding": "same",
            "data_format": "channels_first",
        },
    ),
    "conv1d_cf_causal_dilated": (
        "conv1d",
        X3_CF,
        {
            "filters": 2,
            "kernel_size": 2,
            "padding": "causal",
            "dilation_rate": 2,
            "data_format": "channels_first",
        },
    ),
    "conv2d_cf": (
        "conv2d",
        X4_CF,
        {"filters": 4, "kernel_size": 3, "data_format": "channels_first", "activation": "relu"},
    ),
    "conv2d_cf_same_strided": (
        "conv2d",
        X4_CF,
        {
            "filters": 2,
            "kernel_size": (3, 2),
            "strides": (2, 1),
            "padding": "same",
            "data_format": "channels_first",
        },
    ),
    "conv2d_cf_dilated": (
        "conv2d",
        X4_CF,
        {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "data_format": "channels_first"},
    ),
    "conv2d_transpose_cf": (
        "conv2d_transpose",
        X4_CF,
        {
            "filters": 2,
            "kernel_size": 3,
            "strides": 2,
            "padding": "same",
            "data_format": "channels_first",
        },
    ),
    "conv2d_transpose_cf_valid": (
        "conv2d_transpose",
        X4_CF,
        {"filters": 3, "kernel_size": (2, 3), "strides": (2, 1), "data_format": "channels_first"},
    ),
    # 3-D convolutions
    "conv3d": ("conv3d", X5, {"filters": 4, "kernel_size": (3, 2, 2)}),
    "conv3d_same_strided": (
        "conv3d",
        X5,
        {"filters": 2, "kernel_size": 3, "strides": (2, 1, 2), "padding": "same"},
    ),
    "conv3d_dilated": (
        "conv3d",
        X5,
        {"filters": 3, "kernel_size": 2, "dilation_rate": (2, 1, 1), "activation": "relu"},
    ),
    "conv3d_cf": (
        "conv3d",
        X5_CF,
        {
            "filters": 2,
            "kernel_size": (2, 3, 2),
            "padding": "same",
            "data_format": "channels_first",
        },
    ),
    "conv3d_transpose": (
        "conv3d_transpose",
        X5,
        {"filters": 2, "kernel_size": (3, 2, 2), "strides": (2, 1, 2), "padding": "same"},
    ),
    "conv3d_transpose_valid": (
        "conv3d_transpose",
        X5,
        {"filters": 3, "kernel_size": 2, "strides": (1, 2, 1), "use_bias": False},
    ),
}


def _build_case(tf, layers, case, with_grads=True, x=None):
    fn, x_value, kwargs = CASES[case]
    x = tf.constant(x_value, name="x") if x is None else x
    inits = SEPARABLE_INITS if fn.startswith("separable") else CONV_INITS
    extra = {key: _init(tf, seed) for seed, key in enumerate(inits, 1)}
    if not kwargs.get("use_bias", True):
        del extra["bias_initializer"]
    y = getattr(layers, fn)(x, **kwargs, **extra)
    variables = tf.trainable_variables()
    if not with_grads:
        return y, variables
    weights = np.linspace(-1, 1, y.shape.num_elements()).reshape(y.shape.as_list())
    loss = tf.reduce_sum(y * tf.constant(weights, tf.float32))
    return [y, *tf.gradients(loss, [x, *variables])]


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_and_gradients_match_tensorflow(tf1, tfl, case):
    expected = run_tf(tf1, lambda tf: _build_case(tf, tfl, case))
    got = run_ff(lambda tf: _build_case(tf, ff.layers, case))
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def _graph_facts(tf, layers, case, x=None):
    y, variables = _build_case(tf, layers, case, with_grads=False, x=x)
    return {
        "output": (y.name, y.shape.as_list(), y.dtype.name),
        "trainable": [(v.name, v.shape.as_list()) for v in variables],
        "global": [v.name for v in tf.global_variables()],
        "losses": [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)],
    }


@pytest.mark.parametrize("case", sorted(CASES))
def test_names_shapes_and_collections_match_tensorflow(tf1, tfl, case):
    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = _graph_facts(tf1, tfl, case)
    with g_ff.as_default():
        got = _graph_facts(ff, ff.layers, case)
    if not CASES[case][2].get("use_bias", True):
        # Departure: without a bias, a channels-first output is our `transpose`, and a
        # channels-last one the same op as TF's.
        expected["output"] = expected["output"][1:]
        got["output"] = got["output"][1:]
    assert got == expected


@pytest.mark.parametrize(
    "case", ["sep1d_cf", "sep2d", "sep2d_cf_same_strided", "conv2d_cf", "conv2d_transpose_cf"]
)
@pytest.mark.parametrize("unknown", ["batch", "spatial"])
def test_static_shapes_with_unknown_dimensions_match_tensorflow(tf1, tfl, case, unknown):
    x_value = CASES[case][1]
    shape = list(x_value.shape)
    if unknown == "batch":
        shape[0] = None
    else:
        channel = 1 if CASES[case][2].get("data_format") == "channels_first" else -1
        shape = [d if i in (0, channel % len(shape)) else None for i, d in enumerate(shape)]

    def build(tf):
        x = tf.placeholder(tf.float32, shape, name="x")
        return _graph_facts(tf, lib_layers(tf, tfl), case, x=x)["output"][1]

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        assert build(ff) == expected
    # The values still match when fed.
    feed = lambda g: {g.get_tensor_by_name("x:0"): x_value}  # noqa: E731

    def run(tf):
        x = tf.placeholder(tf.float32, shape, name="x")
        y, _ = _build_case(tf, lib_layers(tf, tfl), case, with_grads=False, x=x)
        return y

    np.testing.assert_allclose(run_ff(run, feed), run_tf(tf1, run, feed), rtol=1e-5, atol=1e-5)


def test_separable_layer_objects_match_tensorflow(tf1, tfl):
    def build(tf):
        layers = lib_layers(tf, tfl)
        a = layers.SeparableConv2D(4, 3, depth_multiplier=2, name="sep")
        b = layers.SeparableConv1D(3, 2, data_format="channels_first")
        ya = a(tf.constant(X4))
        ya2 = a(tf.constant(X4))
        yb = b(tf.constant(X3_CF))
        return [
            a.name,
            b.name,
            a.scope_name,
            b.scope_name,
            [t.name for t in (ya, ya2, yb)],
            [v.name for v in a.weights],
            [v.name for v in b.trainable_variables],
            a.depthwise_kernel.shape.as_list(),
            a.pointwise_kernel.shape.as_list(),
            b.depthwise_kernel.shape.as_list(),
            b.pointwise_kernel.shape.as_list(),
            a.bias.name,
            [a.depth_multiplier, a.strides, a.dilation_rate, a.padding, a.data_format],
            [b.depth_multiplier, b.strides, b.dilation_rate, b.padding, b.data_format],
            [a.kernel_size, b.kernel_size, a.filters, b.filters],
            [v.name for v in tf.trainable_variables()],
        ]

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        assert build(ff) == expected


def test_separable_reuse_and_scope_initializer_match_tensorflow(tf1, tfl):
    def build(tf):
        layers = lib_layers(tf, tfl)
        x = tf.constant(X4)
        y1 = layers.separable_conv2d(x, 3, 2, name="s")
        y2 = layers.separable_conv2d(x, 3, 2, name="s", reuse=True)
        with tf.variable_scope("outer", initializer=tf.ones_initializer()):
            y3 = layers.separable_conv1d(tf.constant(X3), 2, 2, name="c")
        with tf.variable_scope("outer", reuse=True):
            y4 = layers.separable_conv1d(tf.constant(X3), 2, 2, name="c")
        names = [v.name for v in tf.global_variables()]
        return names, [t.name for t in (y1, y2, y3, y4)]

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        assert build(ff) == expected

    def values(tf):
        layers = lib_layers(tf, tfl)
        with tf.variable_scope("outer", initializer=tf.ones_initializer()):
            y3 = layers.separable_conv1d(tf.constant(X3), 2, 2, name="c")
        with tf.variable_scope("outer", reuse=True):
            y4 = layers.separable_conv1d(tf.constant(X3), 2, 2, name="c")
        return [y3, y4, *tf.global_variables()]

    got, want = run_ff(values), run_tf(tf1, values)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("fn", ["separable_conv1d", "separable_conv2d"])
def test_separable_regularizers_and_constraints_match_tensorflow(tf1, tfl, fn):
    x_value = X3 if fn == "separable_conv1d" else X4

    def build(tf):
        layer_cls = {"separable_conv1d": "SeparableConv1D", "separable_conv2d": "SeparableConv2D"}
        layer = getattr(lib_layers(tf, tfl), layer_cls[fn])(
            3,
            2,
            depth_multiplier=2,
            depthwise_regularizer=lambda w: 0.5 * tf.reduce_sum(tf.abs(w)),
            pointwise_regularizer=tf.nn.l2_loss,
            bias_regularizer=lambda b: tf.reduce_sum(b),
            activity_regularizer=tf.nn.l2_loss,
            depthwise_initializer=_init(tf, 1),
            pointwise_initializer=_init(tf, 2),
            bias_initializer=tf.constant_initializer(0.5),
            depthwise_constraint=lambda w: tf.clip_by_value(w, -0.1, 0.1),
            pointwise_constraint=lambda w: w * 0.5,
            bias_constraint=lambda b: b,
        )
        y = layer(tf.constant(x_value))
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        assert len(layer.losses) == len(losses) == 4
        assert layer.depthwise_kernel.constraint is not None
        assert layer.pointwise_kernel.constraint is not None
        assert layer.bias.constraint is not None
        return [y, *losses]

    names = {}

    def named(tf):
        fetches = build(tf)
        names[tf] = [t.name for t in fetches]
        return fetches

    expected = run_tf(tf1, named)
    got = run_ff(named)
    assert names[ff] == names[tf1]
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


POOLS = [
    ("max_pooling1d", X3_CF, (2, 2), {"data_format": "channels_first"}),
    ("average_pooling1d", X3_CF, (3, 1), {"padding": "same", "data_format": "channels_first"}),
    ("max_pooling2d", X4_CF, ((2, 3), 2), {"padding": "SAME", "data_format": "channels_first"}),
    ("average_pooling2d", X4_CF, (2, (1, 2)), {"data_format": "channels_first"}),
    ("average_pooling2d", X4_CF, (3, 2), {"padding": "same", "data_format": "channels_first"}),
    ("max_pooling2d", X4_CF, (3, 3), {"padding": "valid", "data_format": "channels_first"}),
    ("max_pooling3d", X5, ((2, 3, 2), (1, 2, 2)), {"padding": "same"}),
    ("average_pooling3d", X5, (2, (2, 1, 2)), {}),
    ("average_pooling3d", X5, (3, 2), {"padding": "same"}),
    ("max_pooling3d", X5_CF, (2, 2), {"data_format": "channels_first"}),
]


@pytest.mark.parametrize(("fn", "x_value", "args", "kwargs"), POOLS)
def test_pooling_matches_tensorflow(tf1, tfl, fn, x_value, args, kwargs):
    facts = {}

    def build(tf):
        x = tf.constant(x_value)
        y = getattr(lib_layers(tf, tfl), fn)(x, *args, **kwargs)
        # Departure: a channels-first output is our `transpose` (TF's CPU pools NCHW).
        channels_first = kwargs.get("data_format") == "channels_first"
        plain = fn.endswith("1d") or not channels_first
        facts[tf] = (y.name if plain else None, y.shape.as_list())
        return [y, tf.gradients(tf.reduce_sum(y * y), x)[0]]

    expected = run_tf(tf1, build)
    got = run_ff(build)
    assert facts[ff] == facts[tf1]
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", ["max_pooling2d", "average_pooling2d"])
def test_channels_first_pooling_static_shape_with_unknown_batch(tf1, tfl, fn):
    def build(tf):
        x = tf.placeholder(tf.float32, (None, 4, 5, 6))
        layer_cls = {"max_pooling2d": "MaxPooling2D", "average_pooling2d": "AveragePooling2D"}
        layer = getattr(lib_layers(tf, tfl), layer_cls[fn])(
            (2, 2), strides=(1, 2), data_format="channels_first"
        )
        return [layer(x).shape.as_list(), layer.compute_output_shape((None, 4, 5, 6)).as_list()]

    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        expected = build(tf1)
    with g_ff.as_default():
        assert build(ff) == expected


def _raises_like_tensorflow(tf1, tfl, build, match):
    """`build(tf, layers)` raises a ValueError matching `match` in both libraries."""
    for tf in (tf1, ff):
        with tf.Graph().as_default(), pytest.raises(ValueError, match=match):
            build(tf, lib_layers(tf, tfl))


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda tf, L: L.separable_conv2d(tf.constant(X4), 2, 3, data_format="x"), "data_format"),
        (lambda tf, L: L.separable_conv1d(tf.constant(X3), 2, 3, data_format="x"), "data_format"),
        (lambda tf, L: L.max_pooling1d(tf.constant(X3), 2, 2, data_format="x"), "data_format"),
        (lambda tf, L: L.separable_conv2d(tf.constant(X4), 2, (1, 2, 3)), "kernel_size"),
        (lambda tf, L: L.separable_conv2d(tf.constant(X4), 2, None), "kernel_size"),
        (lambda tf, L: L.separable_conv1d(tf.constant(X3), 2, (1, 2)), "kernel_size"),
        (lambda tf, L: L.separable_conv2d(tf.constant(X4), 2, 3, strides=(1, 2, 3)), "strides"),
        (lambda tf, L: L.separable_conv1d(tf.constant(X3), 2, 3, strides=None), "strides"),
        (lambda tf, L: L.separable_conv2d(tf.constant(X4), 2, 0), "`kernel_size` cannot contain"),
        (lambda tf, L: L.conv2d(tf.constant(X4), 2, 3, strides=0), "`strides` cannot contains"),
        (lambda tf, L: L.max_pooling2d(tf.constant(X4), 2, None), "strides"),
        (lambda tf, L: L.max_pooling2d(tf.constant(X4), 2, (1, 2, 3)), "strides"),
        (
            lambda tf, L: L.separable_conv2d(tf.constant(X3), 2, 3),
            "expected min_ndim=4, found ndim=3",
        ),
        (
            lambda tf, L: L.separable_conv2d(tf.placeholder(tf.float32, (2, 5, 5, None)), 2, 3),
            "The channel dimension of the inputs should be defined. Found `None`.",
        ),
        (
            lambda tf, L: L.separable_conv1d(
                tf.placeholder(tf.float32, (2, None, 5)), 2, 3, data_format="channels_first"
            ),
            "The channel dimension of the inputs should be defined. Found `None`.",
        ),
        (
            lambda tf, L: L.conv2d(
                tf.placeholder(tf.float32, (2, None, 5, 5)), 2, 3, data_format="channels_first"
            ),
            "The channel dimension of the inputs should be defined. Found `None`.",
        ),
        (
            lambda tf, L: L.conv2d(tf.constant(X4), 2, 3, strides=2, dilation_rate=2),
            "`strides > 1` not supported in conjunction with `dilation_rate > 1`",
        ),
        (
            lambda tf, L: L.conv2d_transpose(tf.constant(X3), 2, 3),
            "expected min_ndim=4, found ndim=3",
        ),
    ],
)
def test_errors_match_tensorflow(tf1, tfl, build, match):
    _raises_like_tensorflow(tf1, tfl, build, match)


def test_second_call_checks_the_channel_count_like_tensorflow(tf1, tfl):
    def build(tf, layers):
        layer = layers.SeparableConv2D(2, 3, data_format="channels_first")
        layer(tf.constant(X4_CF))
        layer(tf.constant(X4))  # 7 channels where the layer was built for 3

    _raises_like_tensorflow(tf1, tfl, build, "expected axis -3 of input shape to have value 3")


def test_aliases_and_exports():
    conv = ff.layers.convolutional
    assert conv.SeparableConvolution2D is ff.layers.SeparableConv2D
    assert conv.Deconvolution2D is conv.Deconv2D is ff.layers.Conv2DTranspose
    assert conv.separable_convolution2d is ff.layers.separable_conv2d
    assert ff.layers.pooling.MaxPool2D is ff.layers.MaxPooling2D
    assert ff.layers.pooling.avg_pool2d is ff.layers.average_pooling2d
    for name in ("SeparableConv1D", "SeparableConv2D", "separable_conv1d", "separable_conv2d"):
        assert name in ff.layers.__all__
    assert conv.Deconvolution3D is conv.Deconv3D is ff.layers.Conv3DTranspose
    assert conv.convolution3d is ff.layers.conv3d
    assert ff.layers.pooling.MaxPool3D is ff.layers.MaxPooling3D
    assert ff.layers.pooling.avg_pool3d is ff.layers.average_pooling3d
    for name in ("Conv3D", "Conv3DTranspose", "MaxPooling3D", "AveragePooling3D"):
        assert name in ff.layers.__all__
