"""Main ops: what a loaded SavedModel runs after restoring (TF's `saved_model.main_op`)."""

from __future__ import annotations

import importlib
import os

from ..framework import ops
from ..ops import control_flow_ops, variables

__all__ = ["main_op", "main_op_with_restore"]


def _tables_initializer():
    """`tf.tables_initializer()`: one op initializing every lookup table of the graph."""
    try:
        # Imported at call time: tf.lookup may be absent from a build.
        lookup_ops = importlib.import_module("..ops.lookup_ops", __package__)
        tables_initializer = lookup_ops.tables_initializer
    except (ImportError, AttributeError):
        # TF's definition, for when lookup tables are not importable.
        initializers = ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
        if initializers:
            return control_flow_ops.group(*initializers, name="init_all_tables")
        return control_flow_ops.no_op(name="init_all_tables")
    return tables_initializer()


def main_op():
    """An op initializing the global and local variables and the lookup tables.

    Returns:
        The grouping op.
    """
    init = variables.global_variables_initializer()
    init_local = variables.local_variables_initializer()
    init_tables = _tables_initializer()
    return control_flow_ops.group(init, init_local, init_tables)


def main_op_with_restore(restore_op_name):
    """`main_op()` followed by the restore op `restore_op_name`.

    Args:
        restore_op_name: The restore op, or its name in the default graph (TF takes
            the op only).

    Returns:
        The grouping op.
    """
    if isinstance(restore_op_name, (str, bytes)):
        restore_op_name = ops.get_default_graph().as_graph_element(os.fsdecode(restore_op_name))
    with ops.control_dependencies([main_op()]):
        return control_flow_ops.group(restore_op_name)
