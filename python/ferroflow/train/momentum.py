"""`tf.train.MomentumOptimizer`."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, training_ops
from .optimizer import Optimizer


class MomentumOptimizer(Optimizer):
    """Momentum: `accum = momentum * accum + grad; var -= learning_rate * accum`.

    The accumulator is the slot `var/Momentum`; with `use_nesterov`,
    `var -= lr * (grad + momentum * accum)`.
    """

    def __init__(
        self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False
    ):
        """Creates the optimizer.

        Args:
        learning_rate: A float or a scalar Tensor (or a callable returning one).
        momentum: A float or a scalar Tensor (or a callable returning one).
        use_locking: Kept for the API (updates always hold the variables' locks).
        name: The prefix of the ops it adds, and the slots' name.
        use_nesterov: Nesterov momentum.
        """
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = ops.convert_to_tensor(lr, name="learning_rate")
        self._momentum_tensor = ops.convert_to_tensor(
            self._call_if_callable(self._momentum), name="momentum"
        )

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        return training_ops.apply_momentum(
            var,
            self.get_slot(var, "momentum"),
            array_ops.cast(self._learning_rate_tensor, dtype),
            grad,
            array_ops.cast(self._momentum_tensor, dtype),
            use_locking=self._use_locking,
            use_nesterov=self._use_nesterov,
        ).op

    def _apply_sparse(self, grad, var):
        dtype = var.dtype.base_dtype
        return training_ops.sparse_apply_momentum(
            var,
            self.get_slot(var, "momentum"),
            array_ops.cast(self._learning_rate_tensor, dtype),
            grad.values,
            grad.indices,
            array_ops.cast(self._momentum_tensor, dtype),
            use_locking=self._use_locking,
            use_nesterov=self._use_nesterov,
        ).op
