"""TF-1.x initializers: op names, configs and values compared with TensorFlow."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff


def _init_both(tf1, make, shape, dtype_name="float32", graph_seed=None):
    """Runs `get_variable("v", shape, initializer=make(lib))` on both libraries.

    Returns (tf_value, ff_value); asserts the same op names on the way.
    """
    values, names = [], []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            if graph_seed is not None:
                lib.set_random_seed(graph_seed)
            v = lib.get_variable("v", shape, dtype=getattr(lib, dtype_name), initializer=make(lib))
            names.append([op.name for op in g.get_operations()])
            with lib.Session(graph=g) as sess:
                sess.run(v.initializer)
                values.append(sess.run(v))
    assert names[1] == names[0]
    assert values[1].dtype == values[0].dtype
    return values


SEEDED = {
    "zeros": lambda tf: tf.zeros_initializer(),
    "ones": lambda tf: tf.ones_initializer(),
    "constant": lambda tf: tf.constant_initializer(2.5),
    "constant_list": lambda tf: tf.constant_initializer([1.0, 2.0, 3.0]),
    "random_normal": lambda tf: tf.random_normal_initializer(1.0, 2.0, seed=3),
    "truncated_normal": lambda tf: tf.truncated_normal_initializer(0.5, 0.1, seed=4),
    "random_uniform": lambda tf: tf.random_uniform_initializer(-2.0, 3.0, seed=5),
    "random_uniform_default": lambda tf: tf.random_uniform_initializer(seed=5),
    "uniform_unit_scaling": lambda tf: tf.uniform_unit_scaling_initializer(1.5, seed=6),
    "variance_scaling": lambda tf: tf.variance_scaling_initializer(seed=7),
    "glorot_uniform": lambda tf: tf.glorot_uniform_initializer(seed=8),
    "glorot_normal": lambda tf: tf.glorot_normal_initializer(seed=9),
    "init_zeros": lambda tf: tf.initializers.zeros(),
    "init_ones": lambda tf: tf.initializers.ones(),
    "init_constant": lambda tf: tf.initializers.constant(-1),
    "init_random_normal": lambda tf: tf.initializers.random_normal(seed=1),
    "init_truncated_normal": lambda tf: tf.initializers.truncated_normal(seed=1),
    "init_random_uniform": lambda tf: tf.initializers.random_uniform(seed=1),
    "init_variance_scaling": lambda tf: tf.initializers.variance_scaling(2.0, "fan_out", seed=1),
    "init_glorot_uniform": lambda tf: tf.initializers.glorot_uniform(seed=1),
    "init_glorot_normal": lambda tf: tf.initializers.glorot_normal(seed=1),
    "class": lambda tf: tf.initializers.zeros,  # an initializer class is instantiated
}


@pytest.mark.parametrize("name", sorted(SEEDED))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_seeded_initializers_give_tf_numbers(tf1, name, dtype):
    tf_val, ff_val = _init_both(tf1, SEEDED[name], [4, 5], dtype)
    np.testing.assert_allclose(ff_val, tf_val, rtol=1e-6 if dtype == "float32" else 1e-12)


def test_graph_seed_alone_gives_tf_numbers(tf1):
    tf_val, ff_val = _init_both(tf1, lambda tf: None, [3, 7], graph_seed=11)
    np.testing.assert_allclose(ff_val, tf_val, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_initializers(tf1, dtype):
    for make in (
        lambda tf: tf.zeros_initializer(),
        lambda tf: tf.ones_initializer(),
        lambda tf: tf.constant_initializer([1, 2]),
        lambda tf: tf.random_uniform_initializer(0, 10, seed=2),
        lambda tf: None,  # integers default to zeros
    ):
        tf_val, ff_val = _init_both(tf1, make, [2, 3], dtype)
        np.testing.assert_array_equal(ff_val, tf_val)


def test_identity_values(tf1):
    for shape in ([3, 3], [2, 4], [4, 2]):
        values = []
        for lib in (tf1, ff):
            g = lib.Graph()
            with g.as_default(), lib.Session(graph=g) as sess:
                values.append(sess.run(lib.initializers.identity(gain=2.0)(shape)))
        np.testing.assert_array_equal(values[1], values[0])
    with pytest.raises(ValueError, match="must be at least two-dimensional"):
        ff.initializers.identity()([2, 2, 2])


@settings(max_examples=15, deadline=None)
@given(
    shape=st.lists(st.integers(1, 6), min_size=2, max_size=3),
    gain=st.floats(0.5, 2.0),
    seed=st.integers(0, 2**31 - 1),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_orthogonal_gives_tf_numbers(shape, gain, seed, dtype):
    # Other ops than TF's (Gram-Schmidt for its Qr), the same values.
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf1.disable_v2_behavior()
    values = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default(), lib.Session(graph=g) as sess:
            init = lib.initializers.orthogonal(gain, seed=seed)
            values.append(sess.run(init(shape, dtype=getattr(lib, dtype))))
            assert init.get_config() == {"gain": gain, "seed": seed, "dtype": "float32"}
    assert values[1].dtype == values[0].dtype
    np.testing.assert_allclose(values[1], values[0], atol=1e-5 if dtype == "float32" else 1e-12)


def test_orthogonal_through_get_variable(tf1):
    g = ff.Graph()
    with g.as_default():
        v = ff.get_variable("v", [40, 30], initializer=ff.orthogonal_initializer(seed=1))
        with ff.Session() as sess:
            sess.run(v.initializer)
            q = sess.run(v)
    np.testing.assert_allclose(q.T @ q, np.eye(30), atol=1e-5)
    for lib in (tf1, ff):
        with lib.Graph().as_default(), pytest.raises(ValueError) as info:
            lib.orthogonal_initializer()([3])
        assert "must be at least two-dimensional. Received shape=[3]" in str(info.value)


def test_unseeded_statistics():
    shape = [200, 300]
    with ff.Session() as sess:
        normal = sess.run(ff.random_normal_initializer(1.0, 2.0)(shape))
        uniform = sess.run(ff.random_uniform_initializer(-1.0, 3.0)(shape))
        glorot = sess.run(ff.glorot_uniform_initializer()(shape))
        trunc = sess.run(ff.truncated_normal_initializer(0.0, 1.0)(shape))
    assert abs(normal.mean() - 1.0) < 0.05 and abs(normal.std() - 2.0) < 0.05
    assert uniform.min() >= -1.0 and uniform.max() < 3.0 and abs(uniform.mean() - 1.0) < 0.05
    limit = math.sqrt(6.0 / 500)
    assert np.abs(glorot).max() <= limit and abs(glorot.std() - limit / math.sqrt(3)) < 0.01
    assert np.abs(trunc).max() <= 2.0 and abs(trunc.std() - 0.8796) < 0.02


@settings(max_examples=25, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=0, max_size=4),
    mode=st.sampled_from(["fan_in", "fan_out", "fan_avg"]),
    distribution=st.sampled_from(["normal", "truncated_normal", "untruncated_normal", "uniform"]),
    scale=st.floats(0.1, 4.0),
    seed=st.integers(0, 2**31 - 1),
)
def test_variance_scaling_matches_tf(shape, mode, distribution, scale, seed):
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf1.disable_v2_behavior()
    values = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default(), lib.Session(graph=g) as sess:
            init = lib.variance_scaling_initializer(scale, mode, distribution, seed=seed)
            t = init(shape)
            values.append((sess.run(t), [op.name for op in g.get_operations()], init.get_config()))
    np.testing.assert_allclose(values[1][0], values[0][0], rtol=1e-5, atol=1e-7)
    assert values[1][1:] == values[0][1:]


@pytest.mark.parametrize(
    "make",
    [
        lambda tf: tf.zeros_initializer(dtype=tf.int32),
        lambda tf: tf.ones_initializer(),
        lambda tf: tf.constant_initializer([1, 2], dtype=tf.float64),
        lambda tf: tf.random_normal_initializer(1.0, 2.0, seed=3),
        lambda tf: tf.truncated_normal_initializer(seed=3, dtype=tf.float64),
        lambda tf: tf.random_uniform_initializer(-1, 1),
        lambda tf: tf.uniform_unit_scaling_initializer(2.0),
        lambda tf: tf.variance_scaling_initializer(2.0, "fan_avg", "Uniform"),
        lambda tf: tf.glorot_uniform_initializer(seed=1, dtype=tf.float64),
        lambda tf: tf.glorot_normal_initializer(),
        lambda tf: tf.initializers.identity(3.0),
    ],
)
def test_get_config_and_from_config(tf1, make):
    config = make(ff).get_config()
    assert config == make(tf1).get_config()
    assert type(make(ff)).from_config(config).get_config() == config


@pytest.mark.parametrize(
    "make",
    [
        lambda tf: tf.variance_scaling_initializer(0.0),
        lambda tf: tf.variance_scaling_initializer(1.0, "fan_x"),
        lambda tf: tf.variance_scaling_initializer(1.0, "fan_in", "gamma"),
        lambda tf: tf.random_normal_initializer(dtype=tf.int32),
        lambda tf: tf.truncated_normal_initializer(dtype=tf.int64),
        lambda tf: tf.variance_scaling_initializer(dtype=tf.int32),
        lambda tf: tf.constant_initializer({"a": 1}),
        lambda tf: tf.constant_initializer([1.0, 2.0], verify_shape=True)([3]),
        lambda tf: tf.constant_initializer([1.0, 2.0, 3.0])([2]),
    ],
)
def test_constructor_errors_match_tf(tf1, make):
    errors = []
    for lib in (tf1, ff):
        with lib.Graph().as_default(), pytest.raises(Exception) as info:
            make(lib)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[1] == errors[0]


def test_initializers_namespace():
    assert ff.initializers.global_variables is ff.global_variables_initializer
    assert ff.initializers.local_variables is ff.local_variables_initializer
    assert ff.initializers.variables is ff.variables_initializer
    for name in ff.initializers.__all__:
        assert getattr(ff.initializers, name).__doc__
