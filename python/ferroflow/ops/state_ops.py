"""Variable state ops (TF-1.x reference variables): `VariableV2` and assignments."""

from __future__ import annotations

from ..framework import dtypes, ops, tensor_shape
from ._op_util import make_op


def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    """A `VariableV2` op: a mutable tensor owned by the session (a reference output)."""
    attrs = {
        "shape": tensor_shape.as_shape(shape),
        "dtype": dtypes.as_dtype(dtype).base_dtype,
        "container": container,
        "shared_name": shared_name,
    }
    return ops.get_default_graph()._create_op("VariableV2", [], attrs, name=name).outputs[0]


def _ref(x):
    if hasattr(x, "_ref") and not isinstance(x, ops.Tensor):
        return x._ref()
    if isinstance(x, ops.Tensor) and x.dtype._is_ref_dtype:
        return x
    raise TypeError(
        f"'Assign' Op requires that input 'ref' be a mutable tensor (e.g.: a "
        f"tf.Variable), got {x!r}"
    )


def _update(op_type, ref, value, attrs, name):
    ref = _ref(ref)
    with ops.name_scope(name, op_type, [ref, value]) as scope:
        value = ops.convert_to_tensor(value, dtype=ref.dtype.base_dtype, name="value")
        return make_op(op_type, [ref, value], attrs, scope=scope).outputs[0]


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Assigns `value` to the variable `ref`; returns the variable reference after it."""
    attrs = {
        "validate_shape": True if validate_shape is None else bool(validate_shape),
        "use_locking": True if use_locking is None else bool(use_locking),
    }
    return _update("Assign", ref, value, attrs, name)


def assign_add(ref, value, use_locking=None, name=None):
    """Adds `value` to the variable `ref` in place."""
    return _update("AssignAdd", ref, value, {"use_locking": bool(use_locking)}, name)


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtracts `value` from the variable `ref` in place."""
    return _update("AssignSub", ref, value, {"use_locking": bool(use_locking)}, name)


def _scatter(op_type, ref, indices, updates, use_locking, name):
    ref = _ref(ref)
    with ops.name_scope(name, op_type, [ref, indices, updates]) as scope:
        idx = ops.convert_to_tensor(indices, name="indices")
        upd = ops.convert_to_tensor(updates, dtype=ref.dtype.base_dtype, name="updates")
        attrs = {"use_locking": bool(use_locking)}
        return make_op(op_type, [ref, idx, upd], attrs, scope=scope).outputs[0]


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """Rows `indices` of the variable `ref` set to `updates`; returns `ref` after it."""
    return _scatter("ScatterUpdate", ref, indices, updates, use_locking, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """Rows `indices` of the variable `ref` increased by `updates` (repeats add up)."""
    return _scatter("ScatterAdd", ref, indices, updates, use_locking, name)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """Rows `indices` of the variable `ref` decreased by `updates` (repeats add up)."""
    return _scatter("ScatterSub", ref, indices, updates, use_locking, name)


def count_up_to(ref, limit, name=None):
    """Increments the int variable `ref` until it reaches `limit`; returns the value before.

    Running it once the value has reached `limit` raises `OutOfRangeError`.
    """
    ref = _ref(ref)
    with ops.name_scope(name, "CountUpTo", [ref]) as scope:
        return make_op("CountUpTo", [ref], {"limit": int(limit)}, scope=scope).outputs[0]


def is_variable_initialized(ref, name=None):
    """A bool scalar: whether the variable `ref` has a value in the running session."""
    ref = _ref(ref)
    with ops.name_scope(name, "IsVariableInitialized", [ref]) as scope:
        return make_op("IsVariableInitialized", [ref], scope=scope).outputs[0]
