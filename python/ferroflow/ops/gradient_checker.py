"""`tf.test.compute_gradient` and `compute_gradient_error` (TF-1.x's gradient checker).

The theoretical Jacobian comes from the graph's gradients (one backward run per
output element, fed a unit `dy`); the numerical one from central differences of
`y` around `x_init_value`. Both run in the default session, as TF's.
"""

from __future__ import annotations

import numpy as np

from .._compat import zip_strict
from ..framework import constant_op, dtypes, ops
from ..framework.indexed_slices import IndexedSlices
from . import array_ops, gradients

_ALLOWED = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _product(t):
    if isinstance(t, int):
        return t
    y = 1
    for x in t:
        y *= x
    return y


def _extra_feeds(extra_feed_dict, new_feeds):
    if not extra_feed_dict:
        return new_feeds
    return {**extra_feed_dict, **new_feeds}


def _theoretical_jacobian(x, x_shape, x_data, dy, dy_shape, dx, extra_feed_dict):
    x_size = _product(x_shape)
    x_val_size = _product(x_shape[1:])  # the row size of a sparse gradient
    dy_size = _product(dy_shape)
    jacobian = np.zeros((x_size, dy_size), dtype=x.dtype.as_numpy_dtype)
    dy_data = np.zeros(dy_shape, dtype=dy.dtype.as_numpy_dtype)
    dy_data_flat = dy_data.ravel()
    sess = ops.get_default_session()
    for col in range(dy_size):
        dy_data_flat[col] = 1
        feed = _extra_feeds(extra_feed_dict, {x: x_data, dy: dy_data})
        if isinstance(dx, IndexedSlices):
            indices, values = sess.run([dx.indices, dx.values], feed_dict=feed)
            for i, v in zip_strict(indices, values):
                jacobian[i * x_val_size : (i + 1) * x_val_size, col] += v.flat
        else:
            jacobian[:, col] = sess.run(dx, feed_dict=feed).ravel()
        dy_data_flat[col] = 0
    if not dy_size:
        backprop = sess.run(dx, feed_dict=_extra_feeds(extra_feed_dict, {x: x_data, dy: dy_data}))
        if backprop.shape != x_data.shape:
            raise ValueError(
                f"Empty gradient has wrong shape: expected {x_data.shape}, got {backprop.shape}"
            )
        if np.any(backprop):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numeric_jacobian(x, x_shape, x_data, y, y_shape, delta, extra_feed_dict):
    if y.dtype == dtypes.bfloat16:
        y = array_ops.cast(y, dtypes.float32)
    x_size = _product(x_shape)
    y_size = _product(y_shape)
    x_dtype = x.dtype.base_dtype.as_numpy_dtype
    y_dtype = y.dtype.base_dtype.as_numpy_dtype
    x_data = np.asarray(x_data, dtype=x_dtype)
    scale = np.asarray(2 * delta, dtype=y_dtype)[()]
    jacobian = np.zeros((x_size, y_size), dtype=x_dtype)
    for row in range(x_size):
        x_pos = x_data.copy()
        x_neg = x_data.copy()
        x_pos.ravel()[row] += delta
        y_pos = y.eval(feed_dict=_extra_feeds(extra_feed_dict, {x: x_pos}))
        x_neg.ravel()[row] -= delta
        y_neg = y.eval(feed_dict=_extra_feeds(extra_feed_dict, {x: x_neg}))
        jacobian[row, :] = ((y_pos - y_neg) / scale).ravel()
    return jacobian


def _dx_and_dy(x, y, y_shape):
    with x.graph.as_default():
        dy_orig = constant_op.constant(1.0, shape=y_shape, dtype=y.dtype.base_dtype)
        dy = array_ops.identity(dy_orig)
    grads = gradients.gradients(y, x, dy)
    return grads[0], dy_orig


def _one_gradient(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra_feed_dict):
    if x.dtype.base_dtype not in _ALLOWED:
        raise TypeError(f"Don't support type {x.dtype.name} for x")
    if y.dtype.base_dtype not in _ALLOWED:
        raise TypeError(f"Don't support type {y.dtype.name} for y")
    if x_init_value is not None:
        if list(x_shape) != list(x_init_value.shape):
            raise ValueError(f"x_shape = {x_shape}, init_data shape = {list(x_init_value.shape)}")
        x_data = x_init_value
    else:
        x_data = np.random.random_sample(x_shape).astype(x.dtype.base_dtype.as_numpy_dtype)
    if dx is None:
        # No gradient flows from y to x: its theoretical Jacobian is zero.
        jacob_t = np.zeros((_product(x_shape), _product(y_shape)), x_data.dtype)
    else:
        jacob_t = _theoretical_jacobian(x, x_shape, x_data, dy, y_shape, dx, extra_feed_dict)
    jacob_n = _numeric_jacobian(x, x_shape, x_data, y, y_shape, delta, extra_feed_dict)
    return jacob_t, jacob_n


def compute_gradient(
    x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None, extra_feed_dict=None
):
    """The theoretical and numerical Jacobians of `y` with respect to `x`.

    Args:
        x: A tensor (or a list of tensors) to differentiate with respect to.
        x_shape: The shape of `x` (or a list of shapes).
        y: The tensor differentiated.
        y_shape: The shape of `y`.
        x_init_value: Where to evaluate (a numpy array, or a list); random by default.
        delta: The step of the central differences.
        init_targets: Ops run first (e.g. variable initializers).
        extra_feed_dict: More feeds for every run.

    Returns:
        `(theoretical, numerical)`, two `[x_size, y_size]` arrays, or a list of such
        pairs for a list `x`.
    """
    extra_feed_dict = extra_feed_dict or {}
    for init in init_targets or ():
        init.run()
    if isinstance(x, list):
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        pairs = [_dx_and_dy(xi, y, y_shape) for xi in x]
        return [
            _one_gradient(xi, si, dx, y, y_shape, dy, vi, delta, extra_feed_dict)
            for xi, si, (dx, dy), vi in zip_strict(x, x_shape, pairs, inits)
        ]
    dx, dy = _dx_and_dy(x, y, y_shape)
    return _one_gradient(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra_feed_dict)


def compute_gradient_error(
    x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None, extra_feed_dict=None
):
    """The largest absolute difference between the theoretical and numerical Jacobians.

    Arguments as `compute_gradient`.
    """
    grad = compute_gradient(
        x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict
    )
    if isinstance(grad, tuple):
        grad = [grad]
    error = 0
    for j_t, j_n in grad:
        if j_t.size or j_n.size:
            error = np.maximum(error, np.fabs(j_t - j_n).max())
    return error
