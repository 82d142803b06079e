"""`tf.train.AdagradDAOptimizer`."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, training_ops
from .optimizer import Optimizer


class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging (Duchi et al.), for sparse linear models.

    Slots `var/AdagradDA` (the gradient sum) and `var/AdagradDA_1` (the squared
    gradient sum, starting at `initial_gradient_squared_accumulator_value`); each step
    sets the variable from the sums and `global_step + 1`, so the caller must pass a
    `global_step` that `minimize`/`apply_gradients` increments.
    """

    def __init__(
        self,
        learning_rate,
        global_step,
        initial_gradient_squared_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="AdagradDA",
    ):
        """Creates the optimizer.

        Args:
        learning_rate: A float or a scalar Tensor.
        global_step: The int64 global step variable (the time of the average).
        initial_gradient_squared_accumulator_value: Must be positive.
        l1_regularization_strength: A float >= 0.
        l2_regularization_strength: A float >= 0.
        use_locking: Kept for the API (updates always hold the variables' locks).
        name: The prefix of the ops it adds, and the slots' name.

        Raises:
            ValueError: `initial_gradient_squared_accumulator_value` is not positive.
        """
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError(
                "initial_gradient_squared_accumulator_value must be positive: "
                f"{initial_gradient_squared_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = (
            initial_gradient_squared_accumulator_value
        )
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "gradient_accumulator", self._name)
            self._constant_slot(
                v,
                self._initial_gradient_squared_accumulator_value,
                "gradient_squared_accumulator",
                self._name,
            )

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._learning_rate, name="learning_rate"
        )
        # The step this update completes: the global step is incremented after it.
        self._global_step_on_worker = array_ops.identity(self._global_step) + 1

    def _args(self, var) -> tuple[ops.Tensor, ops.Tensor, ops.Tensor, ops.Tensor]:
        dtype = var.dtype.base_dtype
        lr = array_ops.cast(self._learning_rate_tensor, dtype)
        l1 = array_ops.cast(self._l1_regularization_strength, dtype)
        l2 = array_ops.cast(self._l2_regularization_strength, dtype)
        return lr, l1, l2, array_ops.identity(self._global_step_on_worker)

    def _apply_dense(self, grad, var):
        g_acc = self.get_slot(var, "gradient_accumulator")
        gg_acc = self.get_slot(var, "gradient_squared_accumulator")
        return training_ops.apply_adagrad_da(
            var, g_acc, gg_acc, grad, *self._args(var), use_locking=self._use_locking
        )

    def _apply_sparse(self, grad, var):
        g_acc = self.get_slot(var, "gradient_accumulator")
        gg_acc = self.get_slot(var, "gradient_squared_accumulator")
        return training_ops.sparse_apply_adagrad_da(
            var,
            g_acc,
            gg_acc,
            grad.values,
            grad.indices,
            *self._args(var),
            use_locking=self._use_locking,
        )
