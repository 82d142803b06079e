"""`tf.train.GradientDescentOptimizer`."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, state_ops, training_ops
from .optimizer import Optimizer


class GradientDescentOptimizer(Optimizer):
    """`var -= learning_rate * grad` (sparse gradients update only their rows)."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        """Creates the optimizer.

        Args:
        learning_rate: A float or a scalar Tensor (or a callable returning one).
        use_locking: Kept for the API (updates always hold the variable's lock).
        name: The prefix of the ops it adds.
        """
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = ops.convert_to_tensor(lr, name="learning_rate")

    def _lr(self, var):
        return array_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype)

    def _apply_dense(self, grad, var):
        return training_ops.apply_gradient_descent(
            var, self._lr(var), grad, use_locking=self._use_locking
        ).op

    def _apply_sparse_duplicate_indices(self, grad, var):
        # Rows repeated in `indices` each subtract their share: summing first is the same.
        delta = grad.values * self._lr(var)
        return state_ops.scatter_sub(var, grad.indices, delta, use_locking=self._use_locking).op
