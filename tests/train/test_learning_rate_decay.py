"""Learning-rate schedules against TensorFlow's, step by step."""

import numpy as np
import pytest

import ferroflow as ff

SCHEDULES = {
    "exponential": lambda t, s: t.train.exponential_decay(0.1, s, 3, 0.5),
    "exponential_staircase": lambda t, s: t.train.exponential_decay(0.1, s, 3, 0.5, True),
    "natural_exp": lambda t, s: t.train.natural_exp_decay(0.1, s, 2, 0.3),
    "natural_exp_staircase": lambda t, s: t.train.natural_exp_decay(0.1, s, 2, 0.3, True),
    "inverse_time": lambda t, s: t.train.inverse_time_decay(0.1, s, 2, 0.5),
    "inverse_time_staircase": lambda t, s: t.train.inverse_time_decay(0.1, s, 2, 0.5, True),
    "polynomial": lambda t, s: t.train.polynomial_decay(0.1, s, 5, 0.01, power=2.0),
    "polynomial_cycle": lambda t, s: t.train.polynomial_decay(0.1, s, 4, 0.01, cycle=True),
    "cosine": lambda t, s: t.train.cosine_decay(0.1, s, 6, alpha=0.1),
    "piecewise": lambda t, s: t.train.piecewise_constant(s, [2, 5], [1.0, 0.5, 0.1]),
    "float64_rate": lambda t, s: t.train.exponential_decay(t.constant(0.2, t.float64), s, 4, 0.9),
    "cosine_restarts": lambda t, s: t.train.cosine_decay_restarts(0.1, s, 2, alpha=0.05),
    "cosine_restarts_no_growth": lambda t, s: t.train.cosine_decay_restarts(
        0.1, s, 3, t_mul=1.0, m_mul=0.5
    ),
    "cosine_restarts_tensor_t_mul": lambda t, s: t.train.cosine_decay_restarts(
        0.1, s, 2, t_mul=t.constant(1.5), m_mul=0.9
    ),
    "linear_cosine": lambda t, s: t.train.linear_cosine_decay(0.1, s, 8, num_periods=1.5),
    "piecewise_constant_decay": lambda t, s: t.train.piecewise_constant_decay(s, [3], [0.1, 0.01]),
}


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedules_match_tensorflow(tf1, name):
    results = []
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            step = lib.placeholder(lib.int64, [])
            lr = SCHEDULES[name](lib, step)
            with lib.Session() as sess:
                results.append([sess.run(lr, {step: i}) for i in range(12)])
            dtype = lr.dtype.base_dtype.name
        results.append(dtype)
    np.testing.assert_allclose(results[2], results[0], rtol=1e-6)
    assert results[3] == results[1]


def test_schedules_need_a_global_step_and_valid_pieces():
    with pytest.raises(ValueError, match="global_step is required"):
        ff.train.exponential_decay(0.1, None, 10, 0.9)
    with pytest.raises(ValueError, match="1 less than"):
        ff.train.piecewise_constant(ff.constant(1), [1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="same dtype"):
        ff.train.piecewise_constant(ff.constant(1), [1], [0.1, ff.constant(2, ff.int32)])


def test_floor_ceil_round():
    x = ff.constant([-1.5, -0.5, 0.5, 1.5, 2.5, 2.4])
    with ff.Session() as sess:
        f, c, r = sess.run([ff.floor(x), ff.ceil(x), ff.round(x)])
    np.testing.assert_array_equal(f, np.floor([-1.5, -0.5, 0.5, 1.5, 2.5, 2.4]))
    np.testing.assert_array_equal(c, np.ceil([-1.5, -0.5, 0.5, 1.5, 2.5, 2.4]))
    np.testing.assert_array_equal(r, [-2.0, -0.0, 0.0, 2.0, 2.0, 2.0])


def test_noisy_linear_cosine_decay_is_linear_cosine_plus_shrinking_noise():
    # Random: compare its spread with TF's formula rather than its draws.
    with ff.Graph().as_default():
        step = ff.placeholder(ff.int64, [])
        noisy = ff.train.noisy_linear_cosine_decay(1.0, step, 100, initial_variance=1.0)
        clean = ff.train.linear_cosine_decay(1.0, step, 100)
        assert noisy.op.name == "NoisyLinearCosineDecay"
        with ff.Session() as sess:
            for t, tolerance in ((0, 0.3), (99, 0.1)):
                draws = np.array([sess.run([noisy, clean], {step: t}) for _ in range(400)])
                cosine = 0.5 * (1 + np.cos(np.pi * t / 100))
                std = np.std(draws[:, 0] - draws[:, 1]) / cosine
                assert abs(std - (1.0 + t) ** -0.275) < tolerance, (t, std)


def _global_steps(tf):
    out = []
    with tf.Graph().as_default():
        out.append(tf.train.get_global_step())
        v = tf.Variable(0, name="global_step", dtype=tf.int64)  # not in the collection
        out.append(tf.train.get_global_step().name)
        del v
    for make in (
        lambda: tf.Variable(0.5, name="global_step"),
        lambda: tf.Variable([1, 2], name="global_step"),
        lambda: "global_step",
    ):
        with tf.Graph().as_default():
            step = make()
            tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, step)
            try:
                out.append(tf.train.get_global_step())
            except TypeError as e:
                out.append(("TypeError", str(e).split(":")[0]))
    with tf.Graph().as_default():
        tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, tf.Variable(1, name="a"))
        tf.add_to_collection(tf.GraphKeys.GLOBAL_STEP, tf.Variable(2, name="b"))
        out.append(tf.train.get_global_step())
        # Several in the collection: none found, so a new one is created.
        out.append(tf.train.get_or_create_global_step().name)
    with tf.Graph().as_default():
        tf.train.create_global_step()
        try:
            tf.train.create_global_step()
        except ValueError as e:
            out.append(("ValueError", str(e)))
    return out


def test_global_step_lookup_as_tensorflow(tf1):
    assert _global_steps(ff) == _global_steps(tf1)
