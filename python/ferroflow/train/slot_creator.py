"""Optimizer slots: variables shaped like a primary variable (TF's `slot_creator`).

A slot is made as TF makes it: `get_variable("")` inside
`variable_scope(None, default_name="<primary op name>/<name>")`, so its name is the
current *variable* scope, then the primary's name, then the slot's name. Inside
`variable_scope("s")` the slot of `s/v` is therefore `s/s/v/Momentum`, TF's name
(checkpoints of such models must match TF's), and a second slot of the same name
gets TF's unique variable-scope suffix (`v/Momentum_1`).
"""

from __future__ import annotations

import contextlib

from ..framework import ops
from ..ops import array_ops, init_ops, variable_scope, variables


def create_slot(primary, val, name, colocate_with_primary=True):
    """A non-trainable slot of `primary` initialised to the tensor `val`.

    With `colocate_with_primary` (TF's default) the slot is colocated with
    `primary`, so it lives on the same device (a parameter server's, in a cluster).
    """
    validate_shape = val.get_shape().is_fully_defined()
    with variable_scope.variable_scope(None, primary.op.name + "/" + name):
        with _colocated(primary, colocate_with_primary):
            return _create_slot_var(primary, val, "", validate_shape, None, None)


def create_slot_with_initializer(
    primary, initializer, shape, dtype, name, colocate_with_primary=True
):
    """A non-trainable slot of `primary` made by the initializer function `initializer`."""
    validate_shape = shape.is_fully_defined()
    with variable_scope.variable_scope(None, primary.op.name + "/" + name):
        with _colocated(primary, colocate_with_primary):
            return _create_slot_var(primary, initializer, "", validate_shape, shape, dtype)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot of zeros with `primary`'s shape and dtype (or `dtype`)."""
    dtype = dtype or primary.dtype
    return _filled_slot(
        primary,
        name,
        dtype,
        init_ops.zeros_initializer(),
        lambda shape: array_ops.zeros(shape, dtype=dtype),
        colocate_with_primary,
    )


def create_constant_slot(primary, value, name, dtype=None, colocate_with_primary=True):
    """A slot filled with the scalar `value`, with `primary`'s shape and dtype."""
    dtype = (dtype or primary.dtype).base_dtype
    return _filled_slot(
        primary,
        name,
        dtype,
        init_ops.constant_initializer(value, dtype=dtype),
        lambda shape: array_ops.fill(shape, ops.convert_to_tensor(value, dtype=dtype)),
        colocate_with_primary,
    )


def _filled_slot(primary, name, dtype, initializer, fill, colocate_with_primary):
    """A slot made by `initializer`, or from `fill(shape)` when the shape is dynamic.

    With `primary`'s shape known this is TF's `create_slot_with_initializer`.
    """
    slot_shape = primary.get_shape()
    if slot_shape.is_fully_defined():
        return create_slot_with_initializer(
            primary, initializer, slot_shape, dtype, name, colocate_with_primary
        )
    if isinstance(primary, variables.Variable):
        dynamic_shape = array_ops.shape(primary.initialized_value())
    else:
        dynamic_shape = array_ops.shape(primary)
    return create_slot(primary, fill(dynamic_shape), name, colocate_with_primary)


def _create_slot_var(primary, val, scope, validate_shape, shape, dtype):
    """TF's `_create_slot_var`: `get_variable` with the scope's partitioner suspended."""
    current_scope = variable_scope.get_variable_scope()
    current_partitioner = current_scope.partitioner
    current_scope.set_partitioner(None)
    try:
        slot = variable_scope.get_variable(
            scope,
            initializer=val,
            trainable=False,
            # ferroflow's variables are all ref variables, as TF's `RefVariable`.
            use_resource=False if isinstance(primary, variables.Variable) else None,
            # With a tensor initial value the shape comes from the value.
            shape=shape if callable(val) else None,
            dtype=dtype,
            validate_shape=validate_shape,
        )
    finally:
        current_scope.set_partitioner(current_partitioner)
    slice_info = getattr(primary, "_save_slice_info", None)
    if isinstance(primary, variables.Variable) and slice_info is not None:
        # A slot of a part of a partitioned variable is the same part of the slot of
        # the full variable (`<full name>/<slot name>`), so it is saved as a slice.
        # TF takes the slot's name past the primary's name, as here.
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
