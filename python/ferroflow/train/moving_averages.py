"""`tf.train.ExponentialMovingAverage` and `assign_moving_average`.

An exponential moving average keeps a shadow variable per averaged value and moves
it towards the value on every update: `shadow -= (shadow - value) * (1 - decay)`.
Shadows of variables start at the variable's initial value; shadows of other tensors
start at zero and may be zero-debiased (TF's `_zero_debias`): the update then goes
into a `biased` variable, and the shadow is `biased / (1 - decay^local_step)`.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from ..ops import (
    array_ops,
    control_flow_ops,
    init_ops,
    math_ops,
    state_ops,
    variable_scope,
    variables,
)
from . import slot_creator

_VALID_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """Moves `variable` towards `value`: `variable -= (variable - value) * (1 - decay)`.

    With `zero_debias`, the average is corrected for starting at zero (Kingma & Ba,
    section 3): the update goes into a new non-trainable variable
    `<variable>/biased`, a step counter `<variable>/local_step` counts the updates,
    and `variable` is assigned `biased / (1 - decay^local_step)`.

    Args:
        variable: A float Variable (or reference tensor) holding the average.
        value: A tensor of the same shape: the new value to average in.
        decay: A float or scalar float Tensor; usually close to 1, e.g. 0.999.
        zero_debias: Whether to debias an average that starts at zero.
        name: Name of the ops' scope (default `"AssignMovingAvg"`).

    Returns:
        The reference to `variable` after the update (the output of the assign op,
        named after the scope).
    """
    with ops.name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        # Both updates scale by the complement; as TF it is computed in the decay's
        # dtype (float32 for a Python float) and only then cast to the variable's.
        decay = ops.convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype.base_dtype != variable.dtype.base_dtype:
            decay = array_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def weighted_moving_average(value, decay, weight, truediv=True, collections=None, name=None):
    """The weighted moving average of `value`: `average(value * weight) / average(weight)`.

    Two non-trainable variables, `<scope>/value_x_weight` and `<scope>/weight`
    (zeros, made by `get_variable` in a variable scope named `name`, default
    `"WeightedMovingAvg"`), hold the moving averages of `value * weight` and of
    `weight`; each run of the result moves both
    (`average = decay * average + (1 - decay) * update`, no zero-debiasing) and
    divides them.

    Args:
        value: A numeric `Tensor`.
        decay: A float `Tensor` or float value: the moving average's decay.
        weight: A `Tensor` holding the current weight; must multiply with `value`.
        truediv: Whether the division is floating-point (`truediv`); otherwise the
            division the dtypes imply (TF-1.x's `div`: floor division for integers).
        collections: The graph collections of the two variables (default
            `[GraphKeys.GLOBAL_VARIABLES]`).
        name: Name of the variable scope and of the result (default
            `"WeightedMovingAvg"`).

    Returns:
        A tensor that updates the averages and returns the weighted moving average.
    """
    if collections is None:
        collections = [ops.GraphKeys.GLOBAL_VARIABLES]
    with variable_scope.variable_scope(name, "WeightedMovingAvg", [value, weight, decay]) as scope:
        value_x_weight_var = variable_scope.get_variable(
            "value_x_weight",
            shape=value.get_shape(),
            dtype=value.dtype,
            initializer=init_ops.zeros_initializer(),
            trainable=False,
            collections=collections,
        )
        weight_var = variable_scope.get_variable(
            "weight",
            shape=weight.get_shape(),
            dtype=weight.dtype,
            initializer=init_ops.zeros_initializer(),
            trainable=False,
            collections=collections,
        )
        numerator = assign_moving_average(
            value_x_weight_var, value * weight, decay, zero_debias=False
        )
        denominator = assign_moving_average(weight_var, weight, decay, zero_debias=False)
        if truediv:
            return math_ops.truediv(numerator, denominator, name=scope.name)
        return math_ops.div(numerator, denominator, name=scope.name)


def _zero_debias(unbiased_var, value, decay):
    """The zero-debiased update of `unbiased_var` (TF's `_zero_debias`).

    `decay` is the complement `1 - decay`, already in the variable's dtype. As TF,
    `biased` and `local_step` are made by `get_variable` in a variable scope named
    after the average (inside the variable scope in force, so within
    `variable_scope("s")` they are `s/<average>/biased`).
    """
    with variable_scope.variable_scope(
        unbiased_var.name[: -len(":0")], values=[unbiased_var, value, decay]
    ):
        with ops.init_scope():
            biased_initializer = init_ops.zeros_initializer()
            local_step_initializer = init_ops.zeros_initializer()
        with ops.colocate_with(unbiased_var):
            biased_var = variable_scope.get_variable(
                _maybe_get_unique("biased"),
                initializer=biased_initializer,
                shape=unbiased_var.get_shape(),
                dtype=unbiased_var.dtype.base_dtype,
                trainable=False,
            )
            local_step = variable_scope.get_variable(
                _maybe_get_unique("local_step"),
                shape=[],
                dtype=unbiased_var.dtype.base_dtype,
                initializer=local_step_initializer,
                trainable=False,
            )
    update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
    update_local_step = local_step.assign_add(1)
    # `decay` holds `1 - decay`, so the exponent's base is `1.0 - decay`.
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    # Named exactly after the enclosing `AssignMovingAvg` scope, as TF.
    return state_ops.assign(
        unbiased_var,
        update_biased / bias_factor,
        name=ops.get_default_graph().get_name_scope() + "/",
    )


def _maybe_get_unique(name):
    """`name`, or `name_<i>` when the scope already holds a global variable `name`.

    TF's `_maybe_get_unique`: a second debiased average of one variable gets
    `biased_1`, `local_step_1` (unless the scope reuses).
    """
    scope = variable_scope.get_variable_scope()
    if scope.reuse:
        return name
    taken = {v.op.name for v in scope.global_variables()}
    full_name = scope.name + "/" + name
    if full_name not in taken:
        return name
    idx = 1
    while f"{full_name}_{idx}" in taken:
        idx += 1
    return f"{name}_{idx}"


class ExponentialMovingAverage:
    """Maintains moving averages of variables with an exponential decay (TF-1.x).

    `apply()` creates a shadow variable per averaged variable or tensor and returns
    an op that updates them all:
    `shadow_variable -= (1 - decay) * (shadow_variable - variable)`.

    With `num_updates`, the decay is `min(decay, (1 + num_updates) / (10 +
    num_updates))`, which moves the averages faster early in training.

    Example:
        ```python
        opt_op = opt.minimize(loss)
        ema = tf.train.ExponentialMovingAverage(decay=0.9999)
        with tf.control_dependencies([opt_op]):
            training_op = ema.apply([var0, var1])
        ```

    The shadow of `v` is `ema.average(v)`, named `ema.average_name(v)`; to evaluate
    with the averages, restore with `tf.train.Saver(ema.variables_to_restore())`.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        """Creates the moving-average object (no ops yet).

        Args:
            decay: A float or scalar float32 Tensor; the decay to use.
            num_updates: An optional count of updates applied so far (an integer or a
                Tensor/Variable, e.g. the global step), used to lower the decay early.
            zero_debias: Whether to zero-debias the averages of tensors (never of
                variables, whose shadows start at their initial value).
            name: Name of the ops `apply()` adds and suffix of the shadows' names.
        """
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    @property
    def name(self):
        """The name of this ExponentialMovingAverage object."""
        return self._name

    def apply(self, var_list=None):
        """Creates the shadow variables of `var_list` and an op that updates them.

        A Variable's shadow is a non-trainable variable `<var>/<name>` initialised
        to the variable's initial value, and the Variable joins the
        `MOVING_AVERAGE_VARIABLES` collection. A Tensor's shadow starts at zero.

        Args:
            var_list: Variables or Tensors of bfloat16, float16, float32 or float64 (default:
                the trainable variables).

        Returns:
            An op, named after the scope (`name` by default), that updates every
            average once.

        Raises:
            TypeError: An element is not half, float or double.
            ValueError: The moving average of an element is already computed.
        """
        if var_list is None:
            var_list = variables.trainable_variables()
        var_list = list(var_list)
        zero_debias_true = set()
        for var in var_list:
            if var.dtype.base_dtype not in _VALID_DTYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if var in self._averages:
                raise ValueError(f"Moving average already computed for: {var.name}")
            # Shadows are created in TF's init_scope (outside any control-dependency
            # context, so that their initializers do not wait for a train op); a
            # variable's initialized value is read on the variable's device.
            with ops.init_scope():
                if isinstance(var, variables.Variable):
                    with ops.device(var.device):
                        initialized_value = var.initialized_value()
                    avg = slot_creator.create_slot(
                        var, initialized_value, self.name, colocate_with_primary=True
                    )
                    # Only Variables join the collection (TF's NOTE(mrry)).
                    ops.add_to_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slot_creator.create_zeros_slot(
                        var,
                        self.name,
                        colocate_with_primary=var.op.type
                        in ("Variable", "VariableV2", "VarHandleOp"),
                    )
                    if self._zero_debias:
                        zero_debias_true.add(avg)
            self._averages[var] = avg

        with ops.name_scope(self.name) as scope:
            decay = ops.convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = array_ops.cast(self._num_updates, dtypes.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[var]
                updates.append(
                    assign_moving_average(avg, var, decay, zero_debias=avg in zero_debias_true)
                )
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of `var`, or None if `apply()` never averaged it.

        Args:
            var: A Variable or Tensor passed to `apply()`.

        Returns:
            A Variable, or None.
        """
        return self._averages.get(var)

    def average_name(self, var):
        """The name of the shadow variable of `var` (what a checkpoint calls it).

        Args:
            var: A Variable or Tensor.

        Returns:
            The shadow's op name if `var` is averaged, otherwise the name `apply`
            would give it here: `<var op name>/<name>` under the current name scope
            (suffixed `_1`, ... when taken).
        """
        if var in self._averages:
            return self._averages[var].op.name
        # TF's `Graph.unique_name(..., mark_as_used=False)`: inside a name scope the
        # average would be made under it (`scope2/scope1/v0/foo`). TF's graph counts
        # only the names given through name scopes, never a variable scope's
        # variables, so the averages made so far do not suffix it.
        scope = ops.get_default_graph().get_name_scope()
        name = var.op.name + "/" + self.name
        return f"{scope}/{name}" if scope else name

    def variables_to_restore(self, moving_avg_variables=None):
        """A `{checkpoint name: variable}` map that restores averages into variables.

        Each moving-average variable is mapped from its shadow's name; every other
        global variable is mapped from its own name. Pass it to `tf.train.Saver` to
        evaluate a model with averaged parameters.

        Args:
            moving_avg_variables: The variables whose averages to restore (default:
                the trainable variables and `MOVING_AVERAGE_VARIABLES`).

        Returns:
            A dict from names to variables.
        """
        name_map = {}
        if moving_avg_variables is None:
            moving_avg_variables = variables.trainable_variables()
            moving_avg_variables += variables.moving_average_variables()
        # Without duplicates, keeping the first occurrence's order.
        moving_avg_variables = list(dict.fromkeys(moving_avg_variables))
        for v in moving_avg_variables:
            name_map[self.average_name(v)] = v
        moving_avg_variable_names = {v.name for v in moving_avg_variables}
        for v in dict.fromkeys(variables.global_variables()):
            if v.name not in moving_avg_variable_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
