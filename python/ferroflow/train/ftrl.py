"""`tf.train.FtrlOptimizer`."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, math_ops, training_ops
from .optimizer import Optimizer


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal (McMahan et al., "Ad Click Prediction", 2013).

    Slots `var/Ftrl` (`accum`, starting at `initial_accumulator_value`) and
    `var/Ftrl_1` (`linear`). With `l2_shrinkage_regularization_strength > 0` the
    update uses TF's `ApplyFtrlV2` (the shrinkage adds `2 * s * var` to the gradient).
    `beta` adds `beta / (2 * learning_rate)` to the L2 strength.
    """

    def __init__(
        self,
        learning_rate,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        use_locking=False,
        name="Ftrl",
        accum_name=None,
        linear_name=None,
        l2_shrinkage_regularization_strength=0.0,
        beta=None,
    ):
        """Creates the optimizer.

        Args:
        learning_rate: A float or a scalar Tensor.
        learning_rate_power: How the rate decays with the accumulator; <= 0 (-0.5 is
            Adagrad's square root and takes a faster path).
        initial_accumulator_value: The accumulators' starting value; >= 0.
        l1_regularization_strength: A float >= 0.
        l2_regularization_strength: A float >= 0.
        use_locking: Kept for the API (updates always hold the variables' locks).
        name: The prefix of the ops it adds, and the slots' default name.
        accum_name: The accumulator slot's name (defaults to `name`).
        linear_name: The linear slot's name (defaults to `name`).
        l2_shrinkage_regularization_strength: A float >= 0: magnitude penalty.
        beta: A float, default 0.0.

        Raises:
            ValueError: One of the arguments is out of its range.
        """
        super().__init__(use_locking, name)
        checks = [
            (
                initial_accumulator_value < 0.0,
                "initial_accumulator_value %f needs to be positive or zero",
                initial_accumulator_value,
            ),
            (
                learning_rate_power > 0.0,
                "learning_rate_power %f needs to be negative or zero",
                learning_rate_power,
            ),
            (
                l1_regularization_strength < 0.0,
                "l1_regularization_strength %f needs to be positive or zero",
                l1_regularization_strength,
            ),
            (
                l2_regularization_strength < 0.0,
                "l2_regularization_strength %f needs to be positive or zero",
                l2_regularization_strength,
            ),
            (
                l2_shrinkage_regularization_strength < 0.0,
                "l2_shrinkage_regularization_strength %f needs to be positive or zero",
                l2_shrinkage_regularization_strength,
            ),
        ]
        for bad, message, value in checks:
            if bad:
                raise ValueError(message % value)
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            accum_name = self._accum_name or self._name
            self._constant_slot(v, self._initial_accumulator_value, "accum", accum_name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._learning_rate, name="learning_rate"
        )
        self._l1_tensor = ops.convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength"
        )
        adjusted_l2 = self._l2_regularization_strength + self._beta / (
            2.0 * math_ops.maximum(self._learning_rate, 1e-36)
        )
        self._l2_tensor = ops.convert_to_tensor(
            adjusted_l2, name="adjusted_l2_regularization_strength"
        )
        self._l2_shrinkage_tensor = ops.convert_to_tensor(
            self._l2_shrinkage_regularization_strength,
            name="l2_shrinkage_regularization_strength",
        )
        self._learning_rate_power_tensor = ops.convert_to_tensor(
            self._learning_rate_power, name="learning_rate_power"
        )

    def _hyper(
        self, var
    ) -> tuple[ops.Tensor, ops.Tensor, ops.Tensor, ops.Tensor | None, ops.Tensor]:
        """lr, l1, l2, the L2 shrinkage (V2 only, else None), lr_power, cast to `var`'s dtype."""
        dtype = var.dtype.base_dtype
        lr = array_ops.cast(self._learning_rate_tensor, dtype)
        l1 = array_ops.cast(self._l1_tensor, dtype)
        l2 = array_ops.cast(self._l2_tensor, dtype)
        shrinkage = None
        if self._l2_shrinkage_regularization_strength > 0.0:
            shrinkage = array_ops.cast(self._l2_shrinkage_tensor, dtype)
        return lr, l1, l2, shrinkage, array_ops.cast(self._learning_rate_power_tensor, dtype)

    def _accum_and_linear(self, var):
        return self.get_slot(var, "accum"), self.get_slot(var, "linear")

    def _apply_dense(self, grad, var):
        accum, linear = self._accum_and_linear(var)
        lr, l1, l2, shrinkage, lr_power = self._hyper(var)
        if shrinkage is None:
            return training_ops.apply_ftrl(
                var, accum, linear, grad, lr, l1, l2, lr_power, use_locking=self._use_locking
            )
        return training_ops.apply_ftrl_v2(
            var,
            accum,
            linear,
            grad,
            lr,
            l1,
            l2,
            shrinkage,
            lr_power,
            use_locking=self._use_locking,
        )

    def _apply_sparse(self, grad, var):
        accum, linear = self._accum_and_linear(var)
        rows = (grad.values, grad.indices)
        lr, l1, l2, shrinkage, lr_power = self._hyper(var)
        if shrinkage is None:
            return training_ops.sparse_apply_ftrl(
                var, accum, linear, *rows, lr, l1, l2, lr_power, use_locking=self._use_locking
            )
        return training_ops.sparse_apply_ftrl_v2(
            var,
            accum,
            linear,
            *rows,
            lr,
            l1,
            l2,
            shrinkage,
            lr_power,
            use_locking=self._use_locking,
        )
