"""`tf.train.AdamOptimizer`."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, control_flow_ops, math_ops, state_ops, training_ops
from .optimizer import Optimizer


class AdamOptimizer(Optimizer):
    """Adam (Kingma & Ba) with TF's update rule and epsilon placement.

    `lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)`,
    `var -= lr_t * m / (sqrt(v) + epsilon)`.

    Slots `var/Adam` (m) and `var/Adam_1` (v); non-slot variables `beta1_power` and
    `beta2_power`, multiplied by `beta1`/`beta2` after each step's updates.
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        use_locking=False,
        name="Adam",
    ):
        """Creates the optimizer.

        Args:
        learning_rate: A float or a scalar Tensor (or a callable returning one).
        beta1: Decay of the first-moment estimates.
        beta2: Decay of the second-moment estimates.
        epsilon: Added to `sqrt(v)`: TF's "epsilon hat".
        use_locking: Kept for the API (updates always hold the variables' locks).
        name: The prefix of the ops it adds, and the slots' name.
        """
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _get_beta_accumulators(self):
        graph = ops.get_default_graph()
        return (
            self._get_non_slot_variable("beta1_power", graph=graph),
            self._get_non_slot_variable("beta2_power", graph=graph),
        )

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name + "_1")

    def _prepare(self):
        c = self._call_if_callable
        self._lr_t = ops.convert_to_tensor(c(self._lr), name="learning_rate")
        self._beta1_t = ops.convert_to_tensor(c(self._beta1), name="beta1")
        self._beta2_t = ops.convert_to_tensor(c(self._beta2), name="beta2")
        self._epsilon_t = ops.convert_to_tensor(c(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        return training_ops.apply_adam(
            var,
            self.get_slot(var, "m"),
            self.get_slot(var, "v"),
            array_ops.cast(beta1_power, dtype),
            array_ops.cast(beta2_power, dtype),
            array_ops.cast(self._lr_t, dtype),
            array_ops.cast(self._beta1_t, dtype),
            array_ops.cast(self._beta2_t, dtype),
            array_ops.cast(self._epsilon_t, dtype),
            grad,
            use_locking=self._use_locking,
        ).op

    def _apply_sparse(self, grad, var):
        """TF's sparse Adam (not "lazy" Adam).

        Both moments decay everywhere, the gradient rows are added with `scatter_add`,
        and the whole variable moves.
        """
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = (array_ops.cast(b, dtype) for b in self._get_beta_accumulators())
        lr_t, beta1_t, beta2_t, epsilon_t = (
            array_ops.cast(t, dtype)
            for t in (self._lr_t, self._beta1_t, self._beta2_t, self._epsilon_t)
        )
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        m = self.get_slot(var, "m")
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with ops.control_dependencies([m_t]):
            m_t = state_ops.scatter_add(m, grad.indices, grad.values * (1 - beta1_t))
        v = self.get_slot(var, "v")
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with ops.control_dependencies([v_t]):
            v_t = state_ops.scatter_add(
                v, grad.indices, (grad.values * grad.values) * (1 - beta2_t)
            )
        var_update = state_ops.assign_sub(
            var, lr * m_t / (math_ops.sqrt(v_t) + epsilon_t), use_locking=self._use_locking
        )
        return control_flow_ops.group(var_update, m_t, v_t)

    def _finish(self, update_ops, name_scope):
        with ops.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with ops.colocate_with(beta1_power):
                update_beta1 = beta1_power.assign(
                    beta1_power * self._beta1_t, use_locking=self._use_locking
                )
                update_beta2 = beta2_power.assign(
                    beta2_power * self._beta2_t, use_locking=self._use_locking
                )
        return control_flow_ops.group(*update_ops, update_beta1, update_beta2, name=name_scope)
