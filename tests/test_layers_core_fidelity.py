"""`tf.layers` core layers against TF's legacy layers: shapes, properties, data formats."""

import importlib

import numpy as np
import pytest

import ferroflow as ff


@pytest.fixture(scope="module")
def tf_core(tf1):
    """TF's legacy `tf.layers` core module (TF's own, or tf-keras' copy)."""
    for name in (
        "tensorflow.python.keras.legacy_tf_layers.core",
        "tf_keras.src.legacy_tf_layers.core",
    ):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    pytest.skip("TF's legacy layers are not importable")


def _dense_output_shapes(layers, lib):
    dense = layers.Dense(2, activation=lib.nn.relu, name="dense1")
    out = []
    for shape in [None, [], [1], [5, None], (None, 3), [None, 3], [None, 4, 3]]:
        try:
            out.append(dense.compute_output_shape(lib.TensorShape(shape)).as_list())
        except ValueError:
            out.append("ValueError")
    return out


def test_dense_compute_output_shape(tf1, tf_core):
    ours = _dense_output_shapes(ff.layers, ff)
    assert ours == _dense_output_shapes(tf_core, tf1)
    assert ours[:4] == ["ValueError"] * 4


def _dense_properties(layers, lib):
    dense = layers.Dense(2, activation=lib.nn.relu, name="my_dense")
    regularized = layers.Dense(2, activity_regularizer=lib.nn.l2_loss)
    before = dense.activity_regularizer
    dense.activity_regularizer = lib.nn.l2_loss
    return (
        before,
        dense.activity_regularizer is lib.nn.l2_loss,
        regularized.activity_regularizer is lib.nn.l2_loss,
        dense.kernel_regularizer,
        dense.bias_regularizer,
        dense.use_bias,
    )


def test_dense_activity_regularizer_property(tf1, tf_core):
    ours = _dense_properties(ff.layers, ff)
    assert ours == _dense_properties(tf_core, tf1)
    assert ours == (None, True, True, None, None, True)


def _flatten_formats(layers, lib, shape, perm):
    channels_last = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    channels_first_shape = [shape[i] for i in perm]
    with lib.Graph().as_default(), lib.Session() as sess:
        x = lib.placeholder(lib.float32, shape=shape)
        y = layers.Flatten(data_format="channels_last")(x)
        out_cl = sess.run(y, {x: channels_last})
        x_cf = lib.placeholder(lib.float32, shape=channels_first_shape)
        flat = layers.Flatten(data_format="channels_first")
        y_cf = flat(x_cf)
        out_cf = sess.run(y_cf, {x_cf: np.transpose(channels_last, perm)})
        unknown = layers.Flatten(data_format="channels_first")(
            lib.placeholder(lib.float32, shape=[None, None, 3])
        )
        vector = layers.Flatten(data_format="channels_first")(
            lib.placeholder(lib.float32, shape=[4])
        )
        return (
            out_cl.tolist(),
            out_cf.tolist(),
            flat.data_format,
            y_cf.shape.as_list(),
            unknown.shape.as_list(),
            vector.shape.as_list(),
        )


@pytest.mark.parametrize(
    ("shape", "perm"),
    [([1, 4, 3, 2], [0, 3, 1, 2]), ([1, 5, 4, 3, 2], [0, 4, 1, 2, 3]), ([2, 3], [0, 1])],
)
def test_flatten_channels_first_transposes_to_channels_last(tf1, tf_core, shape, perm):
    ours = _flatten_formats(ff.layers, ff, shape, perm)
    assert ours == _flatten_formats(tf_core, tf1, shape, perm)
    assert ours[0] == ours[1]


def _bad_data_format(layers):
    try:
        layers.Flatten(data_format="NCHW")
    except ValueError as e:
        return str(e)
    return None


def test_flatten_rejects_other_data_formats(tf1, tf_core):
    assert _bad_data_format(ff.layers) == _bad_data_format(tf_core)
