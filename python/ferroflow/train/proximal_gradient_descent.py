"""`tf.train.ProximalGradientDescentOptimizer`."""

from __future__ import annotations

from ..framework import ops
from ..ops import training_ops
from .optimizer import Optimizer


def proximal_hyper_tensors(opt) -> tuple[ops.Tensor, ops.Tensor, ops.Tensor]:
    """The learning rate and L1/L2 strengths of a proximal optimizer as Tensors.

    They stay uncast: TF's proximal optimizers do not cast them to the variable's dtype.
    """
    return (
        ops.convert_to_tensor(opt._learning_rate, name="learning_rate"),
        ops.convert_to_tensor(opt._l1_regularization_strength, name="l1_regularization_strength"),
        ops.convert_to_tensor(opt._l2_regularization_strength, name="l2_regularization_strength"),
    )


class ProximalGradientDescentOptimizer(Optimizer):
    """Gradient descent with FOBOS's proximal L1/L2 step (Duchi & Singer, 2009).

    No slots. As TF's, the hyper-parameters are not cast: a float64 variable needs
    float64 Tensors for them.
    """

    def __init__(
        self,
        learning_rate,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="ProximalGradientDescent",
    ):
        """Creates the optimizer.

        Args:
        learning_rate: A float or a scalar Tensor.
        l1_regularization_strength: A float >= 0.
        l2_regularization_strength: A float >= 0.
        use_locking: Kept for the API (updates always hold the variables' locks).
        name: The prefix of the ops it adds.
        """
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _prepare(self):
        self._hyper = proximal_hyper_tensors(self)

    def _apply_dense(self, grad, var):
        return training_ops.apply_proximal_gradient_descent(
            var, *self._hyper, grad, use_locking=self._use_locking
        ).op

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_proximal_gradient_descent(
            var, *self._hyper, grad.values, grad.indices, use_locking=self._use_locking
        ).op
