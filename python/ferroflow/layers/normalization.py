"""`tf.layers.BatchNormalization` and `tf.layers.batch_normalization` (TF-1.x).

As TF: variables `gamma`, `beta` (trainable) and `moving_mean`, `moving_variance`
(global, not trainable); in training the batch statistics normalize the inputs and
two `AssignMovingAvg` ops, `var -= (var - batch_stat) * (1 - momentum)`, are the
layer's updates (in `GraphKeys.UPDATE_OPS`). A 4-D input normalized over axis 1 or 3
takes TF's fused path (`fused=None` or True), whose moving variance is fed the
Bessel-corrected batch variance; the other inputs take the moments path, fed the
biased one. A bool tensor `training` chooses between the training and inference
values with `tf.cond` (`smart_cond`) as TF; with `training` False the updates
leave the moving statistics unchanged (TF's momentum of 1).
"""

from __future__ import annotations

from typing import Any

from ..framework import dtypes, ops
from ..ops import array_ops, nn_impl, nn_ops, smart_cond, state_ops
from .base import _ONES, _ZEROS, InputSpec, Layer, _as_shape
from .core import _static_training


class BatchNormalization(Layer):
    """Batch normalization layer (Ioffe and Szegedy, 2015).

    Args:
        axis: The feature axis (or list of axes) normalized separately.
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
        renorm: Batch renormalization: not supported (raises `NotImplementedError`).
        renorm_clipping: Accepted with `renorm=False`.
        renorm_momentum: Accepted with `renorm=False`.
        fused: None or True: the fused path where possible; False: never.
        trainable: Whether `gamma` and `beta` are trainable.
        virtual_batch_size: Not supported (must be None).
        adjustment: Not supported (must be None).
        name: Name of the layer.
        **kwargs: `Layer`'s.

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
        if renorm:
            raise NotImplementedError("BatchNormalization(renorm=True) is not supported")
        if virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError(
                "BatchNormalization with virtual_batch_size or adjustment is not supported"
            )
        self.axis = list(axis) if isinstance(axis, list | tuple) else axis
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
        self.renorm = False
        self.fused = True if fused is None else bool(fused)
        self.gamma = None
        self.beta = None
        self.moving_mean: Any = None
        self.moving_variance: Any = None

    def build(self, input_shape):
        """Creates `gamma`, `beta`, `moving_mean` and `moving_variance`.

        Raises:
            ValueError: for an input of unknown rank, a bad or duplicate axis, or an
                unknown size along `axis`.
            TypeError: if `axis` is neither an int nor a list.
        """
        input_shape = _as_shape(input_shape)
        if not input_shape.ndims:
            raise ValueError("Input has undefined rank:", input_shape)
        ndims = input_shape.ndims
        if isinstance(self.axis, int):
            self.axis = [self.axis]
        if not isinstance(self.axis, list):
            raise TypeError(f"axis must be int or list, type given: {type(self.axis)}")
        self.axis = [a + ndims if a < 0 else a for a in self.axis]
        for a in self.axis:
            if a < 0 or a >= ndims:
                raise ValueError(f"Invalid axis: {a}")
        if len(self.axis) != len(set(self.axis)):
            raise ValueError(f"Duplicate axis: {self.axis}")
        if self.fused:
            self.fused = ndims == 4 and self.axis in ([1], [3])
        if self.fused:
            self._data_format = "NCHW" if self.axis == [1] else "NHWC"
        dims = input_shape.as_list()
        axis_to_dim = {a: dims[a] for a in self.axis}
        for value in axis_to_dim.values():
            if value is None:
                raise ValueError("Input has undefined `axis` dimension. Input shape: ", input_shape)
        self.input_spec = InputSpec(ndim=ndims, axes=axis_to_dim)
        if len(axis_to_dim) == 1:
            param_shape = [next(iter(axis_to_dim.values()))]
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(ndims)]
        param_dtype = self.dtype or dtypes.float32
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
        self.moving_mean = self.add_weight(
            "moving_mean",
            shape=param_shape,
            dtype=param_dtype,
            initializer=self.moving_mean_initializer,
            trainable=False,
        )
        self.moving_variance = self.add_weight(
            "moving_variance",
            shape=param_shape,
            dtype=param_dtype,
            initializer=self.moving_variance_initializer,
            trainable=False,
        )
        self.built = True

    def _assign_moving_average(self, variable, value, momentum):
        with ops.name_scope(None, "AssignMovingAvg", [variable, value, momentum]) as scope:
            with ops.colocate_with(variable.op):
                decay = ops.convert_to_tensor(1.0 - momentum, name="decay")
                if decay.dtype != variable.dtype.base_dtype:
                    decay = array_ops.cast(decay, variable.dtype.base_dtype)
                update_delta = (variable - array_ops.cast(value, variable.dtype.base_dtype)) * decay
                return state_ops.assign_sub(variable, update_delta, name=scope)

    def _momentum(self, training, static):
        """The momentum, or 1 (no update) where a tensor `training` is False."""
        if static is not None:
            return self.momentum
        return smart_cond.smart_cond(training, lambda: self.momentum, lambda: 1.0)

    def _add_updates(self, mean, variance, training, static):
        momentum = self._momentum(training, static)
        self.add_update(self._assign_moving_average(self.moving_mean, mean, momentum))
        self.add_update(self._assign_moving_average(self.moving_variance, variance, momentum))

    def _fused(self, inputs, training, static):
        param = self.moving_mean.dtype.base_dtype
        shape = self.moving_mean.shape.as_list()
        gamma = self.gamma if self.scale else array_ops.ones(shape, dtype=param)
        beta = self.beta if self.center else array_ops.zeros(shape, dtype=param)

        def train():
            return nn_impl.fused_batch_norm(
                inputs, gamma, beta, epsilon=self.epsilon, data_format=self._data_format
            )

        def infer():
            return nn_impl.fused_batch_norm(
                inputs,
                gamma,
                beta,
                mean=self.moving_mean,
                variance=self.moving_variance,
                epsilon=self.epsilon,
                is_training=False,
                data_format=self._data_format,
            )

        if static is False:
            return infer()[0]
        if static:
            output, mean, variance = train()
        else:
            output, mean, variance = smart_cond.smart_cond(training, train, infer)
        self._add_updates(mean, variance, training, static)
        return output

    def call(self, inputs, training=False):
        """The normalized inputs; in training also records the moving-average updates.

        Args:
            inputs: The input tensor.
            training: Python bool or bool tensor: normalize with the batch statistics
                and update the moving ones (True) or use the moving ones (False).
        """
        static = _static_training(training)
        if static is None:
            training = ops.convert_to_tensor(training, dtype=dtypes.bool, name="training")
        if self.fused:
            return self._fused(inputs, training, static)
        shape = inputs.shape
        ndims = shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = shape.as_list()[self.axis[0]]

        def _broadcast(v):
            if (
                v is not None
                and v.shape.ndims != ndims
                and reduction_axes != list(range(ndims - 1))
            ):
                return array_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = _broadcast(self.gamma), _broadcast(self.beta)
        if static is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            keep_dims = len(self.axis) > 1
            mean, variance = nn_ops.moments(inputs, reduction_axes, keep_dims=keep_dims)
            if static is None:
                mean, variance = smart_cond.smart_cond(
                    training,
                    lambda: (mean, variance),
                    lambda: (self.moving_mean.value(), self.moving_variance.value()),
                )
            self._add_updates(mean, variance, training, static)
        outputs = nn_impl.batch_normalization(
            inputs, _broadcast(mean), _broadcast(variance), offset, scale, self.epsilon
        )
        outputs.set_shape(shape)
        return outputs

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
        trainable: Whether `gamma` and `beta` are trainable.
        name: Name of the layer (and of its variable scope).
        reuse: Reuse the variables of a previous layer of the same `name`.
        renorm: Not supported (True raises `NotImplementedError`).
        renorm_clipping: Accepted with `renorm=False`.
        renorm_momentum: Accepted with `renorm=False`.
        fused: None or True: the fused path where possible; False: never.
        virtual_batch_size: Not supported (must be None).
        adjustment: Not supported (must be None).

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
