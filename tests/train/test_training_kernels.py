"""The fused update kernels against a plain numpy reference, for sizes around the
vector widths and the thread-split threshold (hypothesis), dense and sparse."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff
from ferroflow.ops import training_ops

SIZES = st.one_of(st.integers(0, 70), st.sampled_from([127, 129, 1 << 16, (1 << 17) + 3]))
TOL = {np.float32: {"rtol": 2e-6, "atol": 1e-7}, np.float64: {"rtol": 1e-13, "atol": 1e-15}}


def _run(dtype, arrays, build):
    with ff.Graph().as_default():
        variables = [ff.Variable(a) for a in arrays[:-1]]
        update = build(variables, ff.constant(arrays[-1]))
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(update)
            return sess.run(variables)


@settings(max_examples=25, deadline=None)
@given(n=SIZES, dtype=st.sampled_from([np.float32, np.float64]), nesterov=st.booleans())
def test_dense_kernels_match_numpy(n, dtype, nesterov):
    rng = np.random.default_rng(n)
    p, a, v, g = (rng.normal(size=n).astype(dtype) for _ in range(4))
    v = np.abs(v)
    lr, mom, b1, b2, eps, b1p, b2p = (dtype(x) for x in (0.1, 0.9, 0.8, 0.95, 1e-6, 0.64, 0.9025))

    (sgd,) = _run(dtype, [p, g], lambda vs, gr: training_ops.apply_gradient_descent(vs[0], lr, gr))
    np.testing.assert_allclose(sgd, p - lr * g, **TOL[dtype])

    def momentum(vs, gr):
        return training_ops.apply_momentum(vs[0], vs[1], lr, gr, mom, use_nesterov=nesterov)

    got_p, got_a = _run(dtype, [p, a, g], momentum)
    want_a = a * mom + g
    want_p = p - (g * lr + want_a * mom * lr) if nesterov else p - want_a * lr
    np.testing.assert_allclose(got_a, want_a, **TOL[dtype])
    np.testing.assert_allclose(got_p, want_p, **TOL[dtype])

    def adam(vs, gr):
        return training_ops.apply_adam(vs[0], vs[1], vs[2], b1p, b2p, lr, b1, b2, eps, gr)

    got_p, got_m, got_v = _run(dtype, [p, a, v, g], adam)
    alpha = lr * np.sqrt(1 - b2p) / (1 - b1p)
    want_m = a + (g - a) * (1 - b1)
    want_v = v + (g * g - v) * (1 - b2)
    np.testing.assert_allclose(got_m, want_m, **TOL[dtype])
    np.testing.assert_allclose(got_v, want_v, **TOL[dtype])
    np.testing.assert_allclose(got_p, p - want_m * alpha / (np.sqrt(want_v) + eps), **TOL[dtype])


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 9), width=st.integers(1, 20), data=st.data())
def test_sparse_momentum_matches_numpy(rows, width, data):
    idx = data.draw(st.lists(st.integers(0, rows - 1), max_size=6))
    rng = np.random.default_rng(rows * 31 + width)
    p, a = rng.normal(size=(rows, width)), rng.normal(size=(rows, width))
    g = rng.normal(size=(len(idx), width))
    with ff.Graph().as_default():
        var, acc = ff.Variable(p), ff.Variable(a)
        idx_t = ff.constant(np.array(idx, np.int64).reshape(-1))
        up = training_ops.sparse_apply_momentum(var, acc, 0.1, g.reshape(-1, width), idx_t, 0.9)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(up)
            got_p, got_a = sess.run([var, acc])
    want_p, want_a = p.copy(), a.copy()
    for i, r in enumerate(idx):  # in order: a repeated row is updated twice
        want_a[r] = want_a[r] * 0.9 + g[i]
        want_p[r] -= 0.1 * want_a[r]
    np.testing.assert_allclose(got_a, want_a, rtol=1e-13)
    np.testing.assert_allclose(got_p, want_p, rtol=1e-13)


def test_kernel_errors_name_the_problem():
    import pytest

    with ff.Graph().as_default():
        v = ff.Variable(np.zeros(3, np.float32))
        g = ff.placeholder(ff.float32, None)
        up = training_ops.apply_gradient_descent(v, 0.1, g)
        with pytest.raises(ValueError, match="rank 0"):
            training_ops.apply_gradient_descent(v, [0.1, 0.2], ff.zeros([3]))
        with pytest.raises(ValueError, match="Shapes"):
            training_ops.apply_gradient_descent(v, 0.1, ff.zeros([4]))
        acc = ff.Variable(np.zeros((3, 2)))
        w = ff.Variable(np.zeros((3, 2)))
        sparse = training_ops.sparse_apply_momentum(w, acc, 0.1, np.ones((1, 2)), [5], 0.9)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            with pytest.raises(ff.errors.InvalidArgumentError, match="same shape"):
                sess.run(up, {g: np.zeros(4, np.float32)})
            with pytest.raises(ff.errors.InvalidArgumentError, match="out of range"):
                sess.run(sparse)
