"""`tf.train.RMSPropOptimizer`."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, training_ops
from .optimizer import Optimizer


class RMSPropOptimizer(Optimizer):
    """RMSProp (Hinton's lecture 6e), with momentum and the centered variant.

    `ms = decay * ms + (1 - decay) * grad^2`;
    `mom = momentum * mom + lr * grad / sqrt(ms + epsilon)`; `var -= mom`.
    Centered, the mean gradient `mg` is tracked too and the denominator is
    `sqrt(ms - mg^2 + epsilon)`. Slots: `var/RMSProp` (`rms`, starting at 1),
    then `var/RMSProp_1` (`mg`, centered only) and the next (`momentum`).
    """

    def __init__(
        self,
        learning_rate,
        decay=0.9,
        momentum=0.0,
        epsilon=1e-10,
        use_locking=False,
        centered=False,
        name="RMSProp",
    ):
        """Creates the optimizer.

        Args:
        learning_rate: A float or a scalar Tensor (or a callable returning one).
        decay: Discounting factor of the gradient history.
        momentum: A scalar.
        epsilon: Conditions the denominator.
        use_locking: Kept for the API (updates always hold the variables' locks).
        centered: Normalise by the estimated variance of the gradient instead of its
            second moment (more memory and compute, often better behaved).
        name: The prefix of the ops it adds, and the slots' name.
        """
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, 1, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        c = self._call_if_callable
        self._hyper = [
            ops.convert_to_tensor(c(self._learning_rate), name="learning_rate"),
            ops.convert_to_tensor(c(self._decay), name="decay"),
            ops.convert_to_tensor(c(self._momentum), name="momentum"),
            ops.convert_to_tensor(c(self._epsilon), name="epsilon"),
        ]

    def _cast_hyper(self, var) -> tuple[ops.Tensor, ops.Tensor, ops.Tensor, ops.Tensor]:
        """lr, decay, momentum and epsilon, cast to `var`'s dtype."""
        lr, decay, momentum, epsilon = (
            array_ops.cast(t, var.dtype.base_dtype) for t in self._hyper
        )
        return lr, decay, momentum, epsilon

    def _apply_dense(self, grad, var):
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.apply_centered_rms_prop(
                var, mg, rms, mom, *self._cast_hyper(var), grad, use_locking=self._use_locking
            ).op
        return training_ops.apply_rms_prop(
            var, rms, mom, *self._cast_hyper(var), grad, use_locking=self._use_locking
        ).op

    def _apply_sparse(self, grad, var):
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        rows = (grad.values, grad.indices)
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.sparse_apply_centered_rms_prop(
                var, mg, rms, mom, *self._cast_hyper(var), *rows, use_locking=self._use_locking
            )
        return training_ops.sparse_apply_rms_prop(
            var, rms, mom, *self._cast_hyper(var), *rows, use_locking=self._use_locking
        )
