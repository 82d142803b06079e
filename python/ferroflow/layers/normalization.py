"""`tf.layers.BatchNormalization` and `tf.layers.batch_normalization` (TF-1.x).

TF 1.15's layer is Keras' `BatchNormalizationBase` with its V1 behavior; this module
follows that code step by step, so the variables, their collections, the update ops
and (mostly) the op names are TF's:

* variables `gamma`, `beta` (trainable) and `moving_mean`, `moving_variance` (global,
  not trainable; never partitioned), all float32 for float16/bfloat16 inputs; with
  `renorm`, also `moving_stddev`, `renorm_mean` and `renorm_stddev`;
* the fused path (`fused=None` or True) is taken by 4-D inputs normalized over axis 1
  or 3 without `renorm`, `virtual_batch_size` or `adjustment` (V1 falls back to the
  other path otherwise, it never raises); its moving variance is fed the
  Bessel-corrected batch variance, unless `_bessels_correction_test_only` is False;
* the other path computes `tf.nn.moments` (biased variance) and `tf.nn.batch_normalization`,
  with batch renormalization, ghost batches (`virtual_batch_size`) and `adjustment`;
* in training, the moving averages `var -= (var - value) * (1 - momentum)` are the ops
  `<scope>/AssignMovingAvg*` (`AssignNewValue` for the renorm moving variance), the
  layer's `updates` (operations), put in `GraphKeys.UPDATE_OPS` unless the layer is
  not trainable;
* a bool tensor `training` chooses with `tf.cond` (`smart_cond`); a Python bool (or a
  constant tensor) builds one branch only.
"""

from __future__ import annotations

from typing import Any

from ..framework import constant_op, dtypes, ops
from ..ops import (
    array_ops,
    control_flow_ops,
    math_ops,
    nn_impl,
    nn_ops,
    smart_cond,
    state_ops,
    variables,
)
from .base import _ONES, _ZEROS, InputSpec, Layer, _as_shape

_HALF_DTYPES = (dtypes.float16, dtypes.bfloat16)


def _constant_value(pred):
    """`pred` as a Python bool when known while building, else None (TF's `tf_utils`).

    Raises:
        TypeError: if `pred` is not a tensor, a variable, a bool, 1 or 0.
    """
    if isinstance(pred, variables.Variable):
        return None
    if isinstance(pred, ops.Tensor):
        return smart_cond.smart_constant_value(pred)
    try:
        if pred in {0, 1}:  # as TF: also numpy bools and ints
            return bool(pred)
    except TypeError:
        pass
    raise TypeError(
        f"`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: {type(pred)}"
    )


def _smart_cond(pred, true_fn, false_fn):
    """`true_fn()` or `false_fn()` when `pred` is known, else `tf.cond` (TF's `tf_utils`)."""
    value = _constant_value(pred)
    if value is not None:
        return true_fn() if value else false_fn()
    return control_flow_ops.cond(pred, true_fn=true_fn, false_fn=false_fn)


def _compose_transforms(scale, offset, then_scale, then_offset):
    """`(x * scale + offset) * then_scale + then_offset` as one scale and offset."""
    if then_scale is not None:
        scale *= then_scale
        offset *= then_scale
    if then_offset is not None:
        offset += then_offset
    return scale, offset


class BatchNormalization(Layer):
    """Batch normalization layer (Ioffe and Szegedy, 2015).

    Args:
        axis: The feature axis, or a list of axes normalized together (the
            variables then have the input's rank, with 1 in the other dimensions).
        momentum: Decay of the moving averages.
        epsilon: Added to the variance.
        center: Add the offset `beta`.
        scale: Multiply by `gamma`.
        beta_initializer: Initializer of `beta`.
        gamma_initializer: Initializer of `gamma`.
        moving_mean_initializer: Initializer of the moving mean.
        moving_variance_initializer: Initializer of the moving variance.
        beta_regularizer: Function giving `beta`'s regularization loss.
        gamma_regularizer: Function giving `gamma`'s regularization loss.
        beta_constraint: Projection of `beta` after optimizer updates.
        gamma_constraint: Projection of `gamma` after optimizer updates.
        renorm: Batch renormalization (Ioffe, 2017): in training the normalized
            values are corrected by `r` and `d` from the renorm moving averages.
        renorm_clipping: A dict that may map `rmax`, `rmin`, `dmax` to scalars
            clipping `r` to `[rmin, rmax]` and `d` to `[-dmax, dmax]`.
        renorm_momentum: Decay of the renorm moving averages.
        fused: None or True: the fused path where possible; False: never.
        trainable: Whether `gamma` and `beta` are trainable (and, as TF, whether the
            layer's updates go to `GraphKeys.UPDATE_OPS`).
        virtual_batch_size: Ghost batch normalization: the batch is split into
            `virtual_batch_size` sub-batches (of a size dividing the batch) each
            normalized with its own statistics.
        adjustment: A function of the input's dynamic shape returning `(scale,
            bias)` applied to the normalized values in training, before `gamma`
            and `beta`.
        name: Name of the layer.
        **kwargs: `Layer`'s.

    Raises:
        TypeError: if `axis` is neither an int nor a list.
        ValueError: if `renorm_clipping` has other keys than `rmax`, `rmin`, `dmax`.

    Example:
        ```python
        h = tf.layers.batch_normalization(h, training=is_training)
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train_op = optimizer.minimize(loss)
        ```
    """

    def __init__(
        self,
        axis=-1,
        momentum=0.99,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer=_ZEROS,
        gamma_initializer=_ONES,
        moving_mean_initializer=_ZEROS,
        moving_variance_initializer=_ONES,
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm=False,
        renorm_clipping=None,
        renorm_momentum=0.99,
        fused=None,
        trainable=True,
        virtual_batch_size=None,
        adjustment=None,
        name=None,
        **kwargs,
    ):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if isinstance(axis, list):
            self.axis: Any = axis[:]
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"axis must be int or list, type given: {type(axis)}")
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        # TF-1.x (V1) behavior: None means "fused where possible", as True does.
        self.fused = True if fused is None else fused
        self.supports_masking = True
        # TF's test-only switch: False removes Bessel's correction from the variance
        # the fused path feeds the moving average (as the other path's).
        self._bessels_correction_test_only = True
        if renorm:
            renorm_clipping = renorm_clipping or {}
            keys = ["rmax", "rmin", "dmax"]
            if set(renorm_clipping) - set(keys):
                raise ValueError(f"renorm_clipping {renorm_clipping} contains keys not in {keys}")
            self.renorm_clipping = renorm_clipping
            self.renorm_momentum = renorm_momentum
        self.gamma: Any = None
        self.beta: Any = None
        self.moving_mean: Any = None
        self.moving_variance: Any = None

    def _raise_if_fused_cannot_be_used(self):
        if self.renorm:
            raise ValueError("Passing both fused=True and renorm=True is unsupported")
        axis = [self.axis] if isinstance(self.axis, int) else self.axis
        # -3 and 1, -1 and 3 are the same axes of a 4-D input (checked in `build`).
        if len(axis) > 1 or axis[0] not in (-3, -1, 1, 3):
            raise ValueError("Passing fused=True is only supported when axis is 1 or 3")
        if self.virtual_batch_size is not None:
            raise ValueError(
                "Passing fused=True is unsupported when virtual_batch_size is specified."
            )
        if self.adjustment is not None:
            raise ValueError("Passing fused=True is unsupported when adjustment is specified.")

    def _fused_can_be_used(self):
        try:
            self._raise_if_fused_cannot_be_used()
            return True
        except ValueError:
            return False

    @property
    def _param_dtype(self):
        # The parameters of a float16 / bfloat16 batch norm are float32.
        if self.dtype in _HALF_DTYPES:
            return dtypes.float32
        return self.dtype or dtypes.float32

    @property
    def updates(self):
        """The update ops; none when the layer is not trainable (as Keras' layers)."""
        if not self.trainable:
            return []
        return super().updates

    def build(self, input_shape):
        """Creates the variables for inputs of shape `input_shape`.

        Raises:
            ValueError: for an input of unknown rank, a bad or duplicate axis, an
                unknown size along `axis`, or a bad `virtual_batch_size`.
        """
        input_shape = _as_shape(input_shape)
        if not input_shape.ndims:
            raise ValueError("Input has undefined rank:", input_shape)
        ndims = input_shape.ndims
        if isinstance(self.axis, int):
            self.axis = [self.axis]
        for idx, x in enumerate(self.axis):
            if x < 0:
                self.axis[idx] = ndims + x
        for x in self.axis:
            if x < 0 or x >= ndims:
                raise ValueError(f"Invalid axis: {x}")
        if len(self.axis) != len(set(self.axis)):
            raise ValueError(f"Duplicate axis: {self.axis}")

        if self.virtual_batch_size is not None:
            if self.virtual_batch_size <= 0:
                raise ValueError(
                    "virtual_batch_size must be a positive integer that divides the true "
                    "batch size of the input Tensor"
                )
            # The first dimension is the batch, which cannot be normalized.
            if 0 in self.axis:
                raise ValueError(
                    "When using virtual_batch_size, the batch dimension must be 0 and thus "
                    "axis cannot include 0"
                )
            if self.adjustment is not None:
                raise ValueError("When using virtual_batch_size, adjustment cannot be specified")

        if self.fused in (None, True):
            self.fused = ndims == 4 and self._fused_can_be_used()
        if self.fused:
            if self.axis == [1]:
                self._data_format = "NCHW"
            elif self.axis == [3]:
                self._data_format = "NHWC"
            else:
                raise ValueError(
                    "Unsupported axis, fused batch norm only supports axis == [1] or axis == [3]"
                )

        dims = input_shape.as_list()
        axis_to_dim = {x: dims[x] for x in self.axis}
        for value in axis_to_dim.values():
            if value is None:
                raise ValueError("Input has undefined `axis` dimension. Input shape: ", input_shape)
        self.input_spec = InputSpec(ndim=ndims, axes=axis_to_dim)

        if len(axis_to_dim) == 1 and self.virtual_batch_size is None:
            param_shape: Any = (next(iter(axis_to_dim.values())),)
        else:
            # The input's rank, with 1 in the dimensions not normalized.
            param_shape = [axis_to_dim.get(i, 1) for i in range(ndims)]
            if self.virtual_batch_size is not None:
                # A dimension of the sub-batches after the batch's.
                param_shape.insert(1, 1)
                for idx, x in enumerate(self.axis):
                    self.axis[idx] = x + 1
        param_dtype = self._param_dtype

        if self.scale:
            self.gamma = self.add_weight(
                "gamma",
                shape=param_shape,
                dtype=param_dtype,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
                trainable=True,
            )
        else:
            self.gamma = None
            if self.fused:
                self._gamma_const = constant_op.constant(1.0, dtype=param_dtype, shape=param_shape)
        if self.center:
            self.beta = self.add_weight(
                "beta",
                shape=param_shape,
                dtype=param_dtype,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
                trainable=True,
            )
        else:
            self.beta = None
            if self.fused:
                self._beta_const = constant_op.constant(0.0, dtype=param_dtype, shape=param_shape)

        # The moving statistics are never partitioned.
        scope = self._scope
        partitioner = scope.partitioner if scope is not None else None
        if scope is not None and partitioner:
            scope.set_partitioner(None)
        try:
            self._build_moving_statistics(param_shape, param_dtype)
        finally:
            if scope is not None and partitioner:
                scope.set_partitioner(partitioner)
        self.built = True

    def _build_moving_statistics(self, param_shape, param_dtype):
        def moving_weight(name, initializer):
            return self.add_weight(
                name, shape=param_shape, dtype=param_dtype, initializer=initializer, trainable=False
            )

        self.moving_mean = moving_weight("moving_mean", self.moving_mean_initializer)
        self.moving_variance = moving_weight("moving_variance", self.moving_variance_initializer)
        if not self.renorm:
            return

        # Batch renormalization tracks the moving stddev (the inference variance
        # follows it) and the renorm mean and stddev, used in training.
        def moving_stddev_initializer(*args, **kwargs):
            return math_ops.sqrt(self.moving_variance_initializer(*args, **kwargs))

        with ops.colocate_with(self.moving_variance):
            self.moving_stddev = moving_weight("moving_stddev", moving_stddev_initializer)
        with ops.colocate_with(self.moving_mean):
            self.renorm_mean = moving_weight("renorm_mean", self.moving_mean_initializer)
        with ops.colocate_with(self.moving_stddev):
            self.renorm_stddev = moving_weight("renorm_stddev", moving_stddev_initializer)

    def _assign_moving_average(self, variable, value, momentum):
        with ops.name_scope("AssignMovingAvg") as scope:
            with ops.colocate_with(variable):
                dtype = variable.dtype.base_dtype
                decay = ops.convert_to_tensor(1.0 - momentum, name="decay")
                if decay.dtype != dtype:
                    decay = array_ops.cast(decay, dtype)
                update_delta = (variable - array_ops.cast(value, dtype)) * decay
                return state_ops.assign_sub(variable, update_delta, name=scope)

    def _assign_new_value(self, variable, value):
        with ops.name_scope("AssignNewValue") as scope:
            with ops.colocate_with(variable):
                return state_ops.assign(variable, value, name=scope)

    def _add_update_now(self, update_fn):
        """Builds `update_fn()` and records its operation (TF-1.x graph `add_update`)."""
        update = update_fn()
        self.add_update(update if isinstance(update, ops.Operation) else update.op)

    def _fused_batch_norm(self, inputs, training):
        """The output of the fused path (and its moving-average updates)."""
        beta = self.beta if self.center else self._beta_const
        gamma = self.gamma if self.scale else self._gamma_const

        def fused(**kwargs):
            x = inputs
            if x.dtype.base_dtype in _HALF_DTYPES:
                # TF's kernel normalizes 16-bit inputs in float32 with float32
                # parameters and statistics; ferroflow's `fused_batch_norm` takes
                # one dtype, so the input goes through float32 explicitly.
                x = array_ops.cast(x, gamma.dtype.base_dtype)
            y, mean, variance = nn_impl.fused_batch_norm(
                x, gamma, beta, epsilon=self.epsilon, data_format=self._data_format, **kwargs
            )
            return array_ops.cast(y, inputs.dtype.base_dtype), mean, variance

        def fused_training():
            return fused()

        def fused_inference():
            return fused(mean=self.moving_mean, variance=self.moving_variance, is_training=False)

        output, mean, variance = _smart_cond(training, fused_training, fused_inference)
        if not self._bessels_correction_test_only:
            # The fused variance is Bessel-corrected; the moments path's is not.
            sample_size = array_ops.cast(
                array_ops.size(inputs) / array_ops.size(variance), variance.dtype
            )
            factor = (sample_size - array_ops.cast(1.0, variance.dtype)) / sample_size
            variance *= factor

        training_value = _constant_value(training)
        if training_value is None:
            momentum = _smart_cond(training, lambda: self.momentum, lambda: 1.0)
        else:
            momentum = ops.convert_to_tensor(self.momentum)
        if training_value or training_value is None:
            self._add_update_now(
                lambda: self._assign_moving_average(self.moving_mean, mean, momentum)
            )
            self._add_update_now(
                lambda: self._assign_moving_average(self.moving_variance, variance, momentum)
            )
        return output

    def _renorm_correction_and_moments(self, mean, variance, training):
        """The renorm correction `(r, d)` and the moments for the moving averages."""
        stddev = math_ops.sqrt(variance + self.epsilon)
        renorm_mean = self.renorm_mean
        # Avoids dividing by zero early in training.
        renorm_stddev = math_ops.maximum(self.renorm_stddev, math_ops.sqrt(self.epsilon))
        r = stddev / renorm_stddev
        d = (mean - renorm_mean) / renorm_stddev
        # The corrections use the moving averages before their update.
        with ops.control_dependencies([r, d]):
            mean = array_ops.identity(mean)
            stddev = array_ops.identity(stddev)
        rmin, rmax, dmax = (self.renorm_clipping.get(key) for key in ["rmin", "rmax", "dmax"])
        if rmin is not None:
            r = math_ops.maximum(r, rmin)
        if rmax is not None:
            r = math_ops.minimum(r, rmax)
        if dmax is not None:
            d = math_ops.maximum(d, -dmax)
            d = math_ops.minimum(d, dmax)
        # Not training: r = 1, d = 0.
        r = _smart_cond(training, lambda: r, lambda: array_ops.ones_like(r))
        d = _smart_cond(training, lambda: d, lambda: array_ops.zeros_like(d))

        def update_renorm_variable(var, value):
            value = array_ops.identity(value)
            return _smart_cond(
                training,
                lambda: self._assign_moving_average(var, value, self.renorm_momentum),
                lambda: array_ops.identity(var),
            )

        update_new_mean = update_renorm_variable(self.renorm_mean, mean)
        update_new_stddev = update_renorm_variable(self.renorm_stddev, stddev)
        # The inference moving averages are updated with the batch values.
        with ops.control_dependencies([update_new_mean, update_new_stddev]):
            out_mean = array_ops.identity(mean)
            out_variance = array_ops.identity(variance)
        return r, d, out_mean, out_variance

    def call(self, inputs, training=False):
        """The normalized inputs; in training also records the moving-average updates.

        Args:
            inputs: The input tensor.
            training: Python bool or bool tensor: normalize with the batch statistics
                and update the moving ones (True) or use the moving ones (False).
                None is False (ferroflow has no Keras learning phase).
        """
        if training is None:
            training = False
        original_shape = None
        if self.virtual_batch_size is not None:
            # Ghost batches: `[virtual_batch_size, -1, ...]`, normalized over the
            # first dimension (not over the sub-batches).
            original_shape = [-1, *inputs.shape.as_list()[1:]]
            expanded_shape = [self.virtual_batch_size, -1, *original_shape[1:]]
            inputs = array_ops.reshape(inputs, expanded_shape)

        if self.fused:
            outputs = self._fused_batch_norm(inputs, training=training)
            if original_shape is not None:
                outputs = array_ops.reshape(outputs, original_shape)
            return outputs

        input_shape = inputs.shape
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        if self.virtual_batch_size is not None:
            del reduction_axes[1]  # not over the sub-batches
        # A single axis other than the last needs its parameters reshaped.
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.as_list()[self.axis[0]]

        def _broadcast(v):
            if v is not None and len(v.shape) != ndims and reduction_axes != list(range(ndims - 1)):
                return array_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = _broadcast(self.gamma), _broadcast(self.beta)

        training_value = _constant_value(training)
        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            if self.adjustment:
                adj_scale, adj_bias = self.adjustment(array_ops.shape(inputs))
                # Adjusted only in training.
                adj_scale = _smart_cond(
                    training, lambda: adj_scale, lambda: array_ops.ones_like(adj_scale)
                )
                adj_bias = _smart_cond(
                    training, lambda: adj_bias, lambda: array_ops.zeros_like(adj_bias)
                )
                scale, offset = _compose_transforms(adj_scale, adj_bias, scale, offset)

            keep_dims = self.virtual_batch_size is not None or len(self.axis) > 1
            mean, variance = nn_ops.moments(
                array_ops.cast(inputs, self._param_dtype), reduction_axes, keep_dims=keep_dims
            )
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            batch_mean, batch_variance = mean, variance
            mean = _smart_cond(
                training, lambda: batch_mean, lambda: ops.convert_to_tensor(moving_mean)
            )
            variance = _smart_cond(
                training, lambda: batch_variance, lambda: ops.convert_to_tensor(moving_variance)
            )

            if self.virtual_batch_size is not None:
                # One update with the mean of the sub-batches' statistics (TF's
                # shortcut for updating once per sub-batch).
                new_mean = math_ops.reduce_mean(mean, axis=1, keepdims=True)
                new_variance = math_ops.reduce_mean(variance, axis=1, keepdims=True)
            else:
                new_mean, new_variance = mean, variance

            if self.renorm:
                r, d, new_mean, new_variance = self._renorm_correction_and_moments(
                    new_mean, new_variance, training
                )
                # (x * r + d) * gamma + beta = x * (r * gamma) + (d * gamma + beta).
                r = _broadcast(array_ops.stop_gradient(r, name="renorm_r"))
                d = _broadcast(array_ops.stop_gradient(d, name="renorm_d"))
                scale, offset = _compose_transforms(r, d, scale, offset)

            self._add_update_now(lambda: self._mean_update(training, new_mean))
            self._add_update_now(lambda: self._variance_update(training, new_variance))

        mean = array_ops.cast(mean, inputs.dtype)
        variance = array_ops.cast(variance, inputs.dtype)
        if offset is not None:
            offset = array_ops.cast(offset, inputs.dtype)
        if scale is not None:
            scale = array_ops.cast(scale, inputs.dtype)
        outputs = nn_impl.batch_normalization(
            inputs, _broadcast(mean), _broadcast(variance), offset, scale, self.epsilon
        )
        outputs.set_shape(input_shape)
        if original_shape is not None:
            outputs = array_ops.reshape(outputs, original_shape)
        return outputs

    def _mean_update(self, training, new_mean):
        return _smart_cond(
            training,
            lambda: self._assign_moving_average(self.moving_mean, new_mean, self.momentum),
            lambda: self.moving_mean,
        )

    def _variance_update(self, training, new_variance):
        def renorm_update():
            # The moving stddev includes epsilon, as in training.
            moving_stddev = self._assign_moving_average(
                self.moving_stddev, math_ops.sqrt(new_variance + self.epsilon), self.momentum
            )
            # relu: rounding could make it negative.
            return self._assign_new_value(
                self.moving_variance, nn_ops.relu(moving_stddev * moving_stddev - self.epsilon)
            )

        def update():
            return self._assign_moving_average(self.moving_variance, new_variance, self.momentum)

        return _smart_cond(
            training, renorm_update if self.renorm else update, lambda: self.moving_variance
        )

    def compute_output_shape(self, input_shape):
        """`input_shape`."""
        return _as_shape(input_shape)


def batch_normalization(
    inputs,
    axis=-1,
    momentum=0.99,
    epsilon=1e-3,
    center=True,
    scale=True,
    beta_initializer=_ZEROS,
    gamma_initializer=_ONES,
    moving_mean_initializer=_ZEROS,
    moving_variance_initializer=_ONES,
    beta_regularizer=None,
    gamma_regularizer=None,
    beta_constraint=None,
    gamma_constraint=None,
    training=False,
    trainable=True,
    name=None,
    reuse=None,
    renorm=False,
    renorm_clipping=None,
    renorm_momentum=0.99,
    fused=None,
    virtual_batch_size=None,
    adjustment=None,
):
    """Functional interface of `BatchNormalization`.

    The moving statistics are updated by the ops in `GraphKeys.UPDATE_OPS`, which
    the training step must run (e.g. under `tf.control_dependencies`).

    Args:
        inputs: The input tensor.
        axis: The feature axis (or list of axes) normalized separately.
        momentum: Decay of the moving averages.
        epsilon: Added to the variance.
        center: Add the offset `beta`.
        scale: Multiply by `gamma`.
        beta_initializer: Initializer of `beta`.
        gamma_initializer: Initializer of `gamma`.
        moving_mean_initializer: Initializer of `moving_mean`.
        moving_variance_initializer: Initializer of `moving_variance`.
        beta_regularizer: Function of `beta` giving a regularization loss.
        gamma_regularizer: Function of `gamma` giving a regularization loss.
        beta_constraint: Projection of `beta` after optimizer updates.
        gamma_constraint: Projection of `gamma` after optimizer updates.
        training: Python bool or bool tensor: batch statistics and updates (True) or
            the moving statistics (False).
        trainable: Whether `gamma` and `beta` are trainable (and the updates
            collected in `GraphKeys.UPDATE_OPS`).
        name: Name of the layer (and of its variable scope).
        reuse: Reuse the variables of a previous layer of the same `name`.
        renorm: Batch renormalization.
        renorm_clipping: A dict that may map `rmax`, `rmin`, `dmax` to scalars
            clipping the renorm correction.
        renorm_momentum: Decay of the renorm moving averages.
        fused: None or True: the fused path where possible; False: never.
        virtual_batch_size: Size of the ghost batches (dividing the batch size).
        adjustment: A function of the input's dynamic shape returning `(scale,
            bias)` applied to the normalized values in training.

    Returns:
        The normalized tensor.
    """
    layer = BatchNormalization(
        axis=axis,
        momentum=momentum,
        epsilon=epsilon,
        center=center,
        scale=scale,
        beta_initializer=beta_initializer,
        gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer,
        gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint,
        gamma_constraint=gamma_constraint,
        renorm=renorm,
        renorm_clipping=renorm_clipping,
        renorm_momentum=renorm_momentum,
        fused=fused,
        trainable=trainable,
        virtual_batch_size=virtual_batch_size,
        adjustment=adjustment,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return layer.apply(inputs, training=training)


# TF's aliases.
BatchNorm = BatchNormalization
batch_norm = batch_normalization
