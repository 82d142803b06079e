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
        slot = variables.Variable(val, trainable=False, name=f"{primary.op.name}/{name}")
    slice_info = getattr(primary, "_save_slice_info", None)
    if slice_info is not None:
        # A slot of a part of a partitioned variable is the same part of the slot of
        # the full variable (`<full name>/<slot name>`), so it is saved as a slice.
        real_slot_name = slot.name[len(primary.op.name + "/") : -2]
        n = slot.shape.ndims
        if n is None or n > 0:
            slot._set_save_slice_info(
                variables.Variable.SaveSliceInfo(
                    slice_info.full_name + "/" + real_slot_name,
                    slice_info.full_shape[:n],
                    slice_info.var_offset[:n],
                    slice_info.var_shape[:n],
                )
            )
    return slot


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
