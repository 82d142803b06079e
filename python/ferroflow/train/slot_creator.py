"""Optimizer slots: variables shaped like a primary variable, named `<var>/<name>`."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, variables


def create_slot(primary, val, name, colocate_with_primary=True):
    """A non-trainable variable `<primary op name>/<name>` initialised to `val`.

    As TF's variable-scoped slots, the name ignores the name scope in force.
    """
    del colocate_with_primary  # one device
    graph = primary.graph
    with graph.name_scope(None), ops.control_dependencies(None):
        return variables.Variable(val, trainable=False, name=f"{primary.op.name}/{name}")


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot of zeros with `primary`'s shape and dtype."""
    dtype = dtype or primary.dtype.base_dtype
    graph = primary.graph
    with graph.name_scope(None), ops.control_dependencies(None):
        with ops.name_scope(f"{primary.op.name}/{name}/Initializer"):
            zeros = array_ops.zeros(primary.shape.as_list(), dtype=dtype)
    return create_slot(primary, zeros, name, colocate_with_primary)
