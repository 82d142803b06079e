"""Gradient checking shared by the op tests: ferroflow's `tf.gradients` against
TensorFlow's on the same inputs, and against central finite differences."""

import numpy as np
from hypothesis import strategies as st

import ferroflow as ff

TOL = {
    np.dtype(np.float32): {"rtol": 1e-5, "atol": 1e-5},
    np.dtype(np.float64): {"rtol": 1e-10, "atol": 1e-12},
}
FLOATS = st.sampled_from([np.float32, np.float64])
SEEDS = st.integers(0, 2**16)


def values(rng, shape, dtype, domain="any"):
    """Random values of `shape` in `domain`, away from the kinks of the ops using it."""
    shape = tuple(shape)
    if domain == "any":
        v = rng.uniform(-3, 3, shape)
    elif domain == "pos":
        v = rng.uniform(0.3, 3, shape)
    elif domain == "nonzero":
        v = rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 3, shape)
    elif domain == "relu6":
        v = rng.uniform(-3, 8, shape)
        v = np.where(np.abs(v) < 0.2, v + 0.5, v)
        v = np.where(np.abs(v - 6) < 0.2, v + 0.5, v)
    elif domain == "unit":
        v = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    elif domain == "unit_zeros":  # as "unit", with about a third exact zeros
        v = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 0.0, 1.0], shape)
    elif domain == "distinct":
        v = rng.permutation(int(np.prod(shape, dtype=np.int64))).reshape(shape) * 0.37 - 1.0
    else:
        raise AssertionError(domain)
    return np.asarray(v, dtype=dtype)


def dense_tf(v):
    """Densifies a TF `IndexedSlicesValue` (returned when fetching IndexedSlices)."""
    if hasattr(v, "indices"):
        out = np.zeros(v.dense_shape, v.values.dtype)
        np.add.at(out, v.indices, v.values)
        return out
    return v


def grads(lib, build, arrays, grad_ys=None, dynamic=False, seed=0):
    """`gradients(build(*xs), xs, grad_ys)` with `xs` placeholders fed `arrays`.

    Returns `(grads, grad_ys)`: a value (None for None) per x, and the `grad_ys` used
    (random of y's shape, unless given).
    """
    g = lib.Graph()
    with g.as_default():
        xs = [
            lib.placeholder(lib.as_dtype(a.dtype), [None] * a.ndim if dynamic else a.shape)
            for a in arrays
        ]
        y = build(lib, *xs)
        feeds = dict(zip(xs, arrays, strict=True))
        with lib.Session(graph=g) as sess:
            if grad_ys is None:
                yv = np.asarray(sess.run(y, feeds))
                grad_ys = np.random.default_rng(seed).normal(size=yv.shape).astype(yv.dtype)
            gs = lib.gradients(y, xs, grad_ys=lib.constant(grad_ys))
            fetch = [
                lib.convert_to_tensor(t) if lib is ff and isinstance(t, ff.IndexedSlices) else t
                for t in gs
                if t is not None
            ]
            got = iter(sess.run(fetch, feeds))
            return [None if t is None else dense_tf(next(got)) for t in gs], grad_ys


def check_against_tf(tf1, build, arrays, dynamic=False, seed=0, tol=None):
    want, gy = grads(tf1, build, arrays, dynamic=dynamic, seed=seed)
    got, _ = grads(ff, build, arrays, grad_ys=gy, dynamic=dynamic)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert (g is None) == (w is None), f"gradient {i}: got {g!r}, TensorFlow {w!r}"
        if w is None:
            continue
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, f"gradient {i}"
        assert g.shape == w.shape, f"gradient {i}"
        np.testing.assert_allclose(g, w, **(tol or TOL[w.dtype]), err_msg=f"gradient {i}")


def check_finite_differences(build, arrays, seed, eps=1e-6):
    """ff's analytic gradient of `sum(build(*xs) * w)` against central differences."""
    g = ff.Graph()
    with g.as_default():
        xs = [ff.placeholder(ff.float64, a.shape) for a in arrays]
        y = build(ff, *xs)
        with ff.Session(graph=g) as sess:
            yv = np.asarray(sess.run(y, dict(zip(xs, arrays, strict=True))))
            w = np.random.default_rng(seed).normal(size=yv.shape)
            loss = ff.reduce_sum(y * ff.constant(w))
            grads = ff.gradients(loss, xs)
            analytic = sess.run(grads, dict(zip(xs, arrays, strict=True)))
            for i, a in enumerate(arrays):
                numeric = np.zeros_like(a)
                for idx in np.ndindex(a.shape):
                    vals = []
                    for sign in (1.0, -1.0):
                        pert = a.copy()
                        pert[idx] += sign * eps
                        feeds = dict(zip(xs, arrays, strict=True))
                        feeds[xs[i]] = pert
                        vals.append(sess.run(loss, feeds))
                    numeric[idx] = (vals[0] - vals[1]) / (2 * eps)
                np.testing.assert_allclose(
                    analytic[i], numeric, rtol=1e-6, atol=1e-7, err_msg=f"gradient {i}"
                )
