"""Optimizer slots: variables shaped like a primary variable, named `<var>/<name>`."""

from __future__ import annotations

import contextlib

from ..framework import constant_op, ops
from ..ops import array_ops, variables


def create_slot(primary, val, name, colocate_with_primary=True):
    """A non-trainable variable `<primary op name>/<name>` initialised to `val`.

    As TF's variable-scoped slots, the name ignores the name scope in force; with
    `colocate_with_primary` the slot is colocated with `primary` (TF's default), so it
    is placed on the same device (a parameter server's, in a cluster).
    """
    graph = primary.graph
    with (
        graph.name_scope(None),
        ops.control_dependencies(None),
        _colocated(primary, colocate_with_primary),
    ):
        return variables.Variable(val, trainable=False, name=f"{primary.op.name}/{name}")


def _colocated(primary, colocate):
    """TF's slots live with their variable: its colocation group and device."""
    return ops.colocate_with(primary) if colocate else contextlib.nullcontext()


def create_constant_slot(primary, value, name, dtype=None, colocate_with_primary=True):
    """A slot filled with the scalar `value`, with `primary`'s shape and dtype."""
    dtype = dtype or primary.dtype.base_dtype
    graph = primary.graph
    with (
        graph.name_scope(None),
        ops.control_dependencies(None),
        _colocated(primary, colocate_with_primary),
    ):
        with ops.name_scope(f"{primary.op.name}/{name}/Initializer"):
            if value == 0:
                init = array_ops.zeros(primary.shape.as_list(), dtype=dtype)
            else:
                init = constant_op.constant(value, dtype=dtype, shape=primary.shape.as_list())
    return create_slot(primary, init, name, colocate_with_primary)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot of zeros with `primary`'s shape and dtype."""
    return create_constant_slot(primary, 0, name, dtype, colocate_with_primary)
