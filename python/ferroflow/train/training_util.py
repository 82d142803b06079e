"""The global step: a scalar int64 variable in the `GLOBAL_STEP` collection."""

from __future__ import annotations

from ..framework import dtypes, ops
from ..ops import variables


def get_global_step(graph=None):
    """The graph's global step variable, or None.

    Raises:
        TypeError: The collection holds more than one variable, or a non-integer one.
    """
    graph = graph or ops.get_default_graph()
    steps = graph.get_collection(ops.GraphKeys.GLOBAL_STEP)
    if not steps:
        return None
    if len(steps) != 1:
        raise TypeError("Multiple tensors in global_step collection.")
    step = steps[0]
    if not step.dtype.base_dtype.is_integer or step.shape.ndims != 0:
        raise TypeError(f"Existing 'global_step' does not have integer type: {step.dtype}")
    return step


def create_global_step(graph=None):
    """Creates the global step (`global_step:0`, int64, 0, not trainable).

    Raises:
        ValueError: The graph already has one.
    """
    graph = graph or ops.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        return variables.Variable(
            0,
            dtype=dtypes.int64,
            trainable=False,
            name="global_step",
            collections=[ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.GLOBAL_STEP],
        )


def get_or_create_global_step(graph=None):
    """The global step, created if the graph has none."""
    graph = graph or ops.get_default_graph()
    return get_global_step(graph) or create_global_step(graph)


def global_step(sess, global_step_tensor):
    """The global step's value as a Python int."""
    return int(sess.run(global_step_tensor))
