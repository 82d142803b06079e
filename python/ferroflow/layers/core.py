"""`tf.layers` core layers: `Dense`, `Dropout`, `Flatten` and their functions."""

from __future__ import annotations

import functools
import numbers
import operator

from ..framework import constant_op, dtypes, ops, tensor_shape, tensor_util
from ..ops import array_ops, math_ops, nn_impl, nn_ops, smart_cond
from .base import _ZEROS, InputSpec, Layer, _as_shape


def _activation(activation):
    """A callable, None (linear) or a Keras activation name -> a callable or None."""
    if activation is None or callable(activation):
        return activation
    table = {
        "linear": None,
        "relu": nn_ops.relu,
        "relu6": nn_ops.relu6,
        "elu": nn_ops.elu,
        "selu": nn_impl.selu,
        "softplus": nn_ops.softplus,
        "softsign": nn_impl.softsign,
        "sigmoid": math_ops.sigmoid,
        "tanh": math_ops.tanh,
        "softmax": nn_ops.softmax,
    }
    if activation not in table:
        raise ValueError(f"Unknown activation function: {activation}")
    return table[activation]


def _static_training(training):
    """`training` as a Python bool when it is known while building, else None."""
    if training is None:
        return False
    if isinstance(training, (bool, numbers.Integral)):
        return bool(training)
    value = tensor_util.constant_value(ops.convert_to_tensor(training))
    return None if value is None else bool(value)


def _dense_matmul(inputs, kernel):
    """`inputs @ kernel` over the last axis; a rank > 2 input goes through `Tensordot`."""
    rank = inputs.shape.ndims
    if rank in (2, None):
        return math_ops.matmul(inputs, kernel)
    units = kernel.shape.as_list()[-1]
    shape = inputs.shape.as_list()
    with ops.name_scope(None, "Tensordot", [inputs, kernel]) as scope:
        flat = array_ops.reshape(inputs, [-1, shape[-1]], name="Reshape")
        product = math_ops.matmul(flat, kernel, name="MatMul")
        if all(d is not None for d in shape[:-1]):
            out_shape = constant_op.constant([*shape[:-1], units], name="shape")
        else:
            out_shape = array_ops.concat(
                [array_ops.shape(inputs)[:-1], constant_op.constant([units])], 0, name="shape"
            )
        outputs = array_ops.reshape(product, out_shape, name=scope)
    outputs.set_shape([*shape[:-1], units])
    return outputs


class Dense(Layer):
    """Densely-connected layer: `activation(inputs @ kernel + bias)`.

    An input of rank above 2 is multiplied along its last axis.

    Args:
        units: Output size.
        activation: A function (or Keras activation name), None for linear.
        use_bias: Whether to add `bias`.
        kernel_initializer: Initializer of `kernel` (default glorot_uniform).
        bias_initializer: Initializer of `bias` (zeros).
        kernel_regularizer: Function of `kernel` giving a regularization loss.
        bias_regularizer: Function of `bias` giving a regularization loss.
        activity_regularizer: Function of the output giving a regularization loss.
        kernel_constraint: Projection of `kernel` applied after optimizer updates.
        bias_constraint: Projection of `bias` applied after optimizer updates.
        trainable: Whether the variables are trainable.
        name: Name of the layer.
        **kwargs: `Layer`'s.

    Properties:
        units, activation, use_bias, kernel (a `[input_dim, units]` variable),
        bias (`[units]` or None).
    """

    def __init__(
        self,
        units,
        activation=None,
        use_bias=True,
        kernel_initializer=None,
        bias_initializer=_ZEROS,
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        trainable=True,
        name=None,
        **kwargs,
    ):
        super().__init__(
            trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs
        )
        self.units = int(units)
        self.activation = _activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)
        self.kernel = None
        self.bias = None

    def build(self, input_shape):
        """Creates `kernel` `[last_dim, units]` and `bias` `[units]`."""
        input_shape = _as_shape(input_shape)
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(f"Unable to build `Dense` layer with non-floating point dtype {dtype}")
        last_dim = input_shape.as_list()[-1] if input_shape.ndims else None
        if last_dim is None:
            raise ValueError(
                "The last dimension of the inputs to `Dense` should be defined. Found `None`."
            )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight(
            "kernel",
            shape=[last_dim, self.units],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            dtype=self.dtype,
            trainable=True,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=[self.units],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                dtype=self.dtype,
                trainable=True,
            )
        self.built = True

    def call(self, inputs):
        """`activation(inputs @ kernel + bias)`."""
        if inputs.dtype.base_dtype != self.dtype:
            inputs = array_ops.cast(inputs, self.dtype)
        outputs = _dense_matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        """`input_shape` with its last dimension `units`.

        Raises:
            ValueError: If `input_shape` has rank below 2 or an unknown last dimension.
        """
        input_shape = _as_shape(input_shape).with_rank_at_least(2)
        if input_shape.ndims is None or input_shape.as_list()[-1] is None:
            raise ValueError(
                f"The innermost dimension of input_shape must be defined, but saw: {input_shape}"
            )
        return input_shape[:-1].concatenate(self.units)


def dense(
    inputs,
    units,
    activation=None,
    use_bias=True,
    kernel_initializer=None,
    bias_initializer=_ZEROS,
    kernel_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    kernel_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
):
    """Functional interface of `Dense`: `activation(inputs @ kernel + bias)`.

    Args:
        inputs: The input tensor (rank >= 2, last dimension known).
        units: Output size.
        activation: A function (or Keras activation name), None for linear.
        use_bias: Whether to add a bias.
        kernel_initializer: Initializer of the kernel (default glorot_uniform).
        bias_initializer: Initializer of the bias (zeros).
        kernel_regularizer: Function of the kernel giving a regularization loss.
        bias_regularizer: Function of the bias giving a regularization loss.
        activity_regularizer: Function of the output giving a regularization loss.
        kernel_constraint: Projection of the kernel after optimizer updates.
        bias_constraint: Projection of the bias after optimizer updates.
        trainable: Whether the variables are trainable.
        name: Name of the layer (and of its variable scope).
        reuse: Reuse the variables of a previous layer of the same `name`.

    Returns:
        The output tensor.

    Example:
        ```python
        h = tf.layers.dense(x, 64, activation=tf.nn.relu)   # dense/kernel, dense/bias
        logits = tf.layers.dense(h, 10)                     # dense_1/...
        ```
    """
    layer = Dense(
        units,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _scope=name,
        _reuse=reuse,
    )
    return layer.apply(inputs)


class Dropout(Layer):
    """Dropout: while training, zeroes inputs with probability `rate`, scaling the rest.

    `training` is a Python bool or a bool tensor; a tensor one chooses with `tf.cond`
    as TF (`smart_cond`), so the dropout ops run only while training.

    Args:
        rate: Fraction of the inputs dropped, in `[0, 1)`.
        noise_shape: Shape of the keep/drop mask (None entries take the input's).
        seed: Op-level seed of the mask.
        name: Name of the layer.
        **kwargs: `Layer`'s.
    """

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _get_noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        dims = inputs.shape.as_list() if inputs.shape.ndims is not None else None
        if dims is not None and all(
            v is not None or dims[i] is not None for i, v in enumerate(self.noise_shape)
        ):
            return [dims[i] if v is None else v for i, v in enumerate(self.noise_shape)]
        dynamic = array_ops.shape(inputs)
        return array_ops.stack(
            [dynamic[i] if v is None else v for i, v in enumerate(self.noise_shape)]
        )

    def call(self, inputs, training=False):
        """The dropped inputs when training, else `identity(inputs)`."""
        static = _static_training(training)
        if static is False:
            return array_ops.identity(inputs)

        def dropped():
            return nn_ops.dropout(
                inputs, noise_shape=self._get_noise_shape(inputs), seed=self.seed, rate=self.rate
            )

        if static:
            return dropped()
        training = ops.convert_to_tensor(training, dtype=dtypes.bool, name="training")
        return smart_cond.smart_cond(training, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape):
        """`input_shape`."""
        return _as_shape(input_shape)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Functional interface of `Dropout`.

    Args:
        inputs: The input tensor.
        rate: Fraction of the inputs dropped.
        noise_shape: Shape of the keep/drop mask.
        seed: Op-level seed of the mask.
        training: Python bool or bool tensor: drop (True) or return the inputs.
        name: Name of the layer.

    Returns:
        The output tensor.
    """
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer.apply(inputs, training=training)


class Flatten(Layer):
    """Flattens each example: `[batch, d1, d2, ...]` -> `[batch, d1 * d2 * ...]`.

    Args:
        data_format: `"channels_last"` (or None) or `"channels_first"`: the inputs
            are then first transposed to channels-last (`[batch, d2, ..., d1]`), as
            TF's, so both formats flatten the same example to the same vector.
        **kwargs: `Layer`'s.
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        normalized = "channels_last" if data_format is None else str(data_format).lower()
        if normalized not in ("channels_first", "channels_last"):
            raise ValueError(
                'The `data_format` argument must be one of "channels_first", "channels_last". '
                f"Received: {data_format}"
            )
        self.data_format = normalized
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        """The reshaped inputs (a rank-1 input gets a trailing axis of 1)."""
        rank = inputs.shape.ndims
        if self.data_format == "channels_first" and rank is not None and rank > 1:
            # Switch to channels-last format.
            inputs = array_ops.transpose(inputs, perm=[0, *range(2, rank), 1])
        shape = inputs.shape
        if shape.ndims == 1:
            return array_ops.expand_dims(inputs, 1)
        dims = shape.as_list() if shape.ndims is not None else None
        if dims is not None and all(d is not None for d in dims[1:]):
            last = int(functools.reduce(operator.mul, dims[1:], 1))
            flattened = constant_op.constant([-1, last])
        elif dims is not None and dims[0] is not None:
            flattened = constant_op.constant([int(dims[0]), -1])
        else:
            flattened = array_ops.stack([array_ops.shape(inputs)[0], -1])
        return array_ops.reshape(inputs, flattened)

    def compute_output_shape(self, input_shape):
        """`[batch, product of the other dimensions]`."""
        dims = _as_shape(input_shape).as_list()
        rest = dims[1:]
        flat = None if any(d is None for d in rest) else functools.reduce(operator.mul, rest, 1)
        return tensor_shape.TensorShape([dims[0], flat])


def flatten(inputs, name=None, data_format="channels_last"):
    """Functional interface of `Flatten`: `[batch, ...]` -> `[batch, -1]`."""
    layer = Flatten(name=name, data_format=data_format)
    return layer.apply(inputs)
