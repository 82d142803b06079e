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
