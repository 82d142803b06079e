"""The global step: a scalar int64 variable in the `GLOBAL_STEP` collection."""

from __future__ import annotations

import logging

from ..framework import dtypes, ops
from ..ops import init_ops, variable_scope, variables

_log = logging.getLogger(__name__)


def get_global_step(graph=None):
    """The graph's global step, or None.

    The `GLOBAL_STEP` collection's one tensor, else the tensor `global_step:0`; None
    when there is none, or (as TF) when the collection holds several, which is logged
    as an error.

    Raises:
        TypeError: The global step is not an integer scalar variable or tensor.
    """
    graph = graph or ops.get_default_graph()
    steps = graph.get_collection(ops.GraphKeys.GLOBAL_STEP)
    if len(steps) == 1:
        step = steps[0]
    elif not steps:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        _log.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(step)
    return step


def assert_global_step(global_step_tensor) -> None:
    """Checks that `global_step_tensor` can be a global step (TF's TypeErrors).

    Raises:
        TypeError: Not a variable or tensor, not of an integer type, or not a scalar.
    """
    if not isinstance(global_step_tensor, (variables.Variable, ops.Tensor)):
        raise TypeError(
            f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.'
        )
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(
            f'Existing "global_step" does not have integer type: {global_step_tensor.dtype}'
        )
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


def create_global_step(graph=None):
    """Creates the global step (`global_step:0`, int64, 0, not trainable).

    As TF, it is `get_variable("global_step")` in the current variable scope (so it
    is in `get_variable`'s store, and named `<scope>/global_step` inside a scope).

    Raises:
        ValueError: The graph already has one.
    """
    graph = graph or ops.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        return variable_scope.get_variable(
            ops.GraphKeys.GLOBAL_STEP,
            shape=[],
            dtype=dtypes.int64,
            initializer=init_ops.zeros_initializer(),
            trainable=False,
            collections=[ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.GLOBAL_STEP],
        )


def get_or_create_global_step(graph=None):
    """The global step, created if the graph has none."""
    graph = graph or ops.get_default_graph()
    return get_global_step(graph) or create_global_step(graph)


def global_step(sess, global_step_tensor):
    """The global step's value as a Python int."""
    return int(sess.run(global_step_tensor))
