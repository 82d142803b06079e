"""Load-balancing ps strategies: TF 1.x's `tf.contrib.training` device setter helpers.

`GreedyLoadBalancingStrategy` places each ps op on the least-loaded ps task so
far, by a load function such as `byte_size_load_fn` (the bytes of the op's one
output); pass it as `ps_strategy` to `tf.train.replica_device_setter`.
"""

from __future__ import annotations

import numpy as np

from ...framework import tensor_shape

__all__ = ["GreedyLoadBalancingStrategy", "byte_size_load_fn"]


class GreedyLoadBalancingStrategy:
    """Returns the least-loaded ps task for op placement.

    The load is calculated by a user-specified load function passed in at
    construction. There are no units for load, and the load function is
    responsible for providing an internally consistent measure.

    This strategy is very sensitive to the exact order in which ps ops
    (typically variables) are created, as it greedily places ops on the
    least-loaded ps at the point each op is processed.

    One reasonable heuristic is `byte_size_load_fn`, which estimates load as
    the number of bytes that would be used to store and transmit the entire
    variable. More advanced load functions could consider the difference in
    access patterns across ops, or trade off CPU-intensive ops with
    RAM-intensive ops with network bandwidth.

    This class is intended to be used as a `ps_strategy` in
    `tf.train.replica_device_setter`.
    """

    def __init__(self, num_tasks, load_fn):
        """Create a new `GreedyLoadBalancingStrategy`.

        Args:
            num_tasks: Number of ps tasks to cycle among.
            load_fn: A callable that takes an `Operation` and returns a numeric
                load value for that op.
        """
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op):
        """Choose a ps task index for the given `Operation`.

        Args:
            op: An `Operation` to be placed on ps.

        Returns:
            The ps task index to use for the `Operation`: the least-loaded ps
            task so far (the lowest index among equals), as determined by the
            load function, whose load then grows by the op's.
        """
        task = np.argmin(self._ps_loads)
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op):
    """Load function that computes the byte size of a single-output `Operation`.

    This is intended to be used with variable ops, which have a single output
    with the contents of the variable. However, it can also be used for
    calculating the size of any op that has a single output.

    Intended to be used with `GreedyLoadBalancingStrategy`.

    Args:
        op: An `Operation` with a single output, typically a variable op.

    Returns:
        The number of bytes in the output `Tensor`.

    Raises:
        ValueError: If `op` does not have a single output, or if the shape of
            the single output is not fully defined.
    """
    if len(op.outputs) != 1:
        raise ValueError(f"Op {op} must have a single output")
    output = op.outputs[0]
    elem_size = output.dtype.size
    shape = output.get_shape()
    if not shape.is_fully_defined():
        # As TF: fall back to the op's `shape` attr (TF's legacy scalar "Variable"
        # ops had an unknown output shape when they were placed).
        shape = tensor_shape.TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * elem_size
