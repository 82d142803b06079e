"""Wrappers of the fused optimizer ops (TF's `gen_training_ops`).

Each updates a reference variable and its slots in place, in one pass in Rust.
"""

from __future__ import annotations

from ..framework import ops
from ._op_util import make_op
from .state_ops import _ref


def _apply(op_type, refs, scalars, grad, attrs, name, order):
    refs = [_ref(r) for r in refs]
    dtype = refs[0].dtype.base_dtype
    with ops.name_scope(name, op_type, [*refs, *scalars.values(), grad]) as scope:
        converted = {k: ops.convert_to_tensor(v, dtype=dtype, name=k) for k, v in scalars.items()}
        converted["grad"] = ops.convert_to_tensor(grad, dtype=dtype, name="grad")
        inputs = [*refs, *(converted[k] for k in order)]
        return make_op(op_type, inputs, attrs, scope=scope).outputs[0]


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """`var -= alpha * delta`, in place; returns the variable reference."""
    attrs = {"use_locking": bool(use_locking)}
    return _apply(
        "ApplyGradientDescent", [var], {"alpha": alpha}, delta, attrs, name, ["alpha", "grad"]
    )


def apply_momentum(
    var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False, name=None
):
    """`accum = accum * momentum + grad; var -= lr * accum` (or Nesterov's), in place."""
    attrs = {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}
    scalars = {"lr": lr, "momentum": momentum}
    return _apply(
        "ApplyMomentum", [var, accum], scalars, grad, attrs, name, ["lr", "grad", "momentum"]
    )


def sparse_apply_momentum(
    var, accum, lr, grad, indices, momentum, use_locking=False, use_nesterov=False, name=None
):
    """The momentum update on rows `indices` of `var` and `accum` only.

    `grad` holds one row per index.
    """
    refs = [_ref(var), _ref(accum)]
    dtype = refs[0].dtype.base_dtype
    attrs = {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}
    with ops.name_scope(name, "SparseApplyMomentum", [*refs, lr, grad, indices, momentum]) as scope:
        lr = ops.convert_to_tensor(lr, dtype=dtype, name="lr")
        grad = ops.convert_to_tensor(grad, dtype=dtype, name="grad")
        indices = ops.convert_to_tensor(indices, name="indices")
        momentum = ops.convert_to_tensor(momentum, dtype=dtype, name="momentum")
        inputs = [*refs, lr, grad, indices, momentum]
        return make_op("SparseApplyMomentum", inputs, attrs, scope=scope).outputs[0]


def apply_adam(
    var,
    m,
    v,
    beta1_power,
    beta2_power,
    lr,
    beta1,
    beta2,
    epsilon,
    grad,
    use_locking=False,
    use_nesterov=False,
    name=None,
):
    """One Adam step on `var` with moments `m`, `v`, in place (TF's `ApplyAdam`)."""
    attrs = {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}
    order = ["beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"]
    scalars = {
        "beta1_power": beta1_power,
        "beta2_power": beta2_power,
        "lr": lr,
        "beta1": beta1,
        "beta2": beta2,
        "epsilon": epsilon,
    }
    return _apply("ApplyAdam", [var, m, v], scalars, grad, attrs, name, order)
