"""`parallel_iterations`: loops whose iterations are independent (what `map_fn`
builds: counters, and TensorArrays written once per iteration) run several bodies at
once when a body is large enough to share out. Values, errors and gradients must be
those of the loop run one iteration after another, and TF's."""

import numpy as np
import pytest

import ferroflow as ff

# Bodies of a 192x192 product: long enough (over 40 us) that iterations run at once.
N, D = 12, 192


def _inputs():
    return np.random.default_rng(0).uniform(-0.1, 0.1, (N, D, D)).astype(np.float32)


def _body(lib):
    return lambda m: lib.reduce_sum(lib.matmul(lib.tanh(m), m), axis=0)


def _map(lib, x, parallel_iterations):
    return lib.map_fn(_body(lib), lib.constant(x), parallel_iterations=parallel_iterations)


def test_map_fn_values_are_the_sequential_loop_s():
    x = _inputs()
    values = []
    for p in (1, 10, 3):
        with ff.Graph().as_default(), ff.Session() as sess:
            values.append(sess.run(_map(ff, x, p)))
    np.testing.assert_array_equal(values[1], values[0])
    np.testing.assert_array_equal(values[2], values[0])


@pytest.mark.tf_oracle
def test_map_fn_values_and_gradients_are_tf_s(tf1):
    x = _inputs()

    def build(lib):
        xs = lib.constant(x)
        y = lib.map_fn(_body(lib), xs, parallel_iterations=10)
        return y, lib.gradients(lib.reduce_sum(y * y), xs)[0]

    with tf1.Graph().as_default(), tf1.Session() as sess:
        want = sess.run(build(tf1))
    with ff.Graph().as_default(), ff.Session() as sess:
        got = sess.run(build(ff))
    for a, b in zip(want, got, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def test_a_failing_iteration_fails_the_loop_with_its_error():
    x = _inputs()
    x[7, 3, 3] = np.nan
    with ff.Graph().as_default(), ff.Session() as sess:
        y = ff.map_fn(
            lambda m: ff.check_numerics(ff.matmul(m, m), "bad row"),
            ff.constant(x),
            parallel_iterations=10,
        )
        with pytest.raises(ff.errors.InvalidArgumentError, match="bad row"):
            sess.run(y)


def test_loops_with_state_stay_sequential():
    # scan carries its accumulator from one iteration to the next: same values as TF's
    # definition (a running sum), whatever parallel_iterations says.
    x = _inputs()[:, :4, :4]
    with ff.Graph().as_default(), ff.Session() as sess:
        step = lambda a, m: a + ff.matmul(m, m)  # noqa: E731
        y = sess.run(ff.scan(step, ff.constant(x), ff.zeros([4, 4]), parallel_iterations=10))
    want = np.cumsum(np.einsum("nij,njk->nik", x, x), axis=0)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_stateful_bodies_stay_in_order():
    # A variable updated in each iteration: the loop must not run iterations at once.
    with ff.Graph().as_default(), ff.Session() as sess:
        v = ff.Variable(0.0)
        x = ff.constant(_inputs())

        def body(m):
            with ff.control_dependencies([ff.assign_add(v, 1.0)]):
                return ff.reduce_sum(ff.matmul(m, m)) * 0.0 + v.read_value()

        y = ff.map_fn(body, x, parallel_iterations=10)
        sess.run(ff.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(y), np.arange(1, N + 1, dtype=np.float32))
