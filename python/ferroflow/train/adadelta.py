"""`tf.train.AdadeltaOptimizer`."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, training_ops
from .optimizer import Optimizer


class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler, 2012), with TF's learning-rate factor.

    Slots `var/Adadelta` (`accum`, the decayed mean of squared gradients) and
    `var/Adadelta_1` (`accum_update`, the decayed mean of squared updates).
    """

    def __init__(
        self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"
    ):
        """Creates the optimizer.

        Args:
        learning_rate: A float or a scalar Tensor: the factor of each update (TF's
            default 0.001; Zeiler's algorithm is 1.0).
        rho: The decay rate.
        epsilon: Conditions the square roots.
        use_locking: Kept for the API (updates always hold the variables' locks).
        name: The prefix of the ops it adds, and the slots' name.
        """
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        c = self._call_if_callable
        self._lr_t = ops.convert_to_tensor(c(self._lr), name="lr")
        self._rho_t = ops.convert_to_tensor(c(self._rho), name="rho")
        self._epsilon_t = ops.convert_to_tensor(c(self._epsilon), name="epsilon")

    def _hyper(self, var) -> tuple[ops.Tensor, ops.Tensor, ops.Tensor]:
        dtype = var.dtype.base_dtype
        lr, rho, epsilon = (
            array_ops.cast(t, dtype) for t in (self._lr_t, self._rho_t, self._epsilon_t)
        )
        return lr, rho, epsilon

    def _apply_dense(self, grad, var):
        accum, accum_update = self.get_slot(var, "accum"), self.get_slot(var, "accum_update")
        return training_ops.apply_adadelta(
            var, accum, accum_update, *self._hyper(var), grad, use_locking=self._use_locking
        )

    def _apply_sparse(self, grad, var):
        accum, accum_update = self.get_slot(var, "accum"), self.get_slot(var, "accum_update")
        return training_ops.sparse_apply_adadelta(
            var,
            accum,
            accum_update,
            *self._hyper(var),
            grad.values,
            grad.indices,
            use_locking=self._use_locking,
        )
