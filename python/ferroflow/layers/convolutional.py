"""`tf.layers` convolutions: `Conv1D`, `Conv2D`, `Conv2DTranspose` and their functions.

Channels-last only (`data_format="channels_last"`): ferroflow's convolution
kernels are NHWC, as TF's CPU kernels.
"""

from __future__ import annotations

from ..framework import tensor_shape
from ..ops import array_ops, conv_ops, indexing_ops, nn_impl, nn_ops
from .base import (
    _ZEROS,
    InputSpec,
    Layer,
    _as_shape,
    _normalize_data_format,
    _normalize_padding,
    _normalize_tuple,
)
from .core import _activation


def _conv_output_length(length, filter_size, padding, stride, dilation=1):
    """Keras' `conv_utils.conv_output_length`."""
    if length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        out = length
    else:
        out = length - dilated + 1
    return (out + stride - 1) // stride


def _deconv_output_length(length, filter_size, padding, stride, dilation=1):
    """Keras' `conv_utils.deconv_output_length` (no output padding)."""
    if length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding == "valid":
        return length * stride + max(dilated - stride, 0)
    return length * stride


class _Conv(Layer):
    """N-D convolution layer base (`rank` spatial dimensions)."""

    _op_name = "Conv"

    def __init__(
        self,
        rank,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format="channels_last",
        dilation_rate=1,
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
        self.rank = rank
        self.filters = int(filters)
        self.kernel_size = _normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = _normalize_tuple(strides, rank, "strides")
        self.padding = _normalize_padding(padding, allow_causal=rank == 1)
        self.data_format = _normalize_data_format(data_format)
        self.dilation_rate = _normalize_tuple(dilation_rate, rank, "dilation_rate")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`")
        self.activation = _activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=rank + 2)
        self.kernel = None
        self.bias = None

    def _kernel_shape(self, input_dim):
        return (*self.kernel_size, input_dim, self.filters)

    def build(self, input_shape):
        """Creates `kernel` (`kernel_size + [in, filters]`) and `bias` `[filters]`."""
        input_shape = _as_shape(input_shape)
        input_dim = input_shape.as_list()[-1] if input_shape.ndims else None
        if input_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.kernel = self.add_weight(
            "kernel",
            shape=self._kernel_shape(input_dim),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=(self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                trainable=True,
                dtype=self.dtype,
            )
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1: input_dim})
        self.built = True

    def _convolve(self, inputs):
        raise NotImplementedError

    def call(self, inputs):
        """`activation(conv(inputs, kernel) + bias)`."""
        outputs = self._convolve(inputs)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        """The shape of the output for an input of `input_shape`."""
        dims = _as_shape(input_shape).as_list()
        spatial = [
            _conv_output_length(d, k, self.padding, s, r)
            for d, k, s, r in zip(
                dims[1:-1], self.kernel_size, self.strides, self.dilation_rate, strict=True
            )
        ]
        return tensor_shape.TensorShape([dims[0], *spatial, self.filters])


class Conv1D(_Conv):
    """1-D convolution layer over `[batch, width, channels]` (e.g. temporal).

    Args:
        filters: Number of output channels.
        kernel_size: An int or a 1-tuple: the window width.
        strides: An int or a 1-tuple.
        padding: `"valid"`, `"same"` or `"causal"` (case-insensitive).
        data_format: `"channels_last"`.
        dilation_rate: An int or a 1-tuple.

    The other arguments are `Dense`'s.
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format="channels_last",
        dilation_rate=1,
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
            1,
            filters,
            kernel_size,
            strides,
            padding,
            data_format,
            dilation_rate,
            activation,
            use_bias,
            kernel_initializer,
            bias_initializer,
            kernel_regularizer,
            bias_regularizer,
            activity_regularizer,
            kernel_constraint,
            bias_constraint,
            trainable,
            name,
            **kwargs,
        )

    def _convolve(self, inputs):
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = indexing_ops.pad(inputs, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        return nn_impl.conv1d(
            inputs,
            self.kernel,
            stride=self.strides[0],
            padding=padding.upper(),
            dilations=self.dilation_rate[0],
            name="conv1d",
        )


class Conv2D(_Conv):
    """2-D convolution layer over `[batch, height, width, channels]`.

    Args:
        filters: Number of output channels.
        kernel_size: An int or a 2-tuple: the window height and width.
        strides: An int or a 2-tuple.
        padding: `"valid"` or `"same"` (case-insensitive).
        data_format: `"channels_last"`.
        dilation_rate: An int or a 2-tuple.

    The other arguments are `Dense`'s.

    Example:
        ```python
        conv = tf.layers.Conv2D(32, 3, padding="same", activation=tf.nn.relu)
        y = conv(images)          # conv2d/kernel [3, 3, in, 32], conv2d/bias [32]
        ```
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format="channels_last",
        dilation_rate=(1, 1),
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
            2,
            filters,
            kernel_size,
            strides,
            padding,
            data_format,
            dilation_rate,
            activation,
            use_bias,
            kernel_initializer,
            bias_initializer,
            kernel_regularizer,
            bias_regularizer,
            activity_regularizer,
            kernel_constraint,
            bias_constraint,
            trainable,
            name,
            **kwargs,
        )

    def _convolve(self, inputs):
        return conv_ops.conv2d(
            inputs,
            self.kernel,
            strides=[1, *self.strides, 1],
            padding=self.padding.upper(),
            dilations=[1, *self.dilation_rate, 1],
            name="Conv2D",
        )


class Conv2DTranspose(Conv2D):
    """Transposed 2-D convolution ("deconvolution") layer.

    The kernel is `kernel_size + [filters, in_channels]`; the output's spatial size
    is `in * stride` (`"same"`) or `in * stride + max(kernel - stride, 0)` (`"valid"`).

    Args: as `Conv2D` (no `dilation_rate` other than 1).
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format="channels_last",
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
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
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
            **kwargs,
        )

    def _kernel_shape(self, input_dim):
        return (*self.kernel_size, self.filters, input_dim)

    def _convolve(self, inputs):
        dynamic = array_ops.shape(inputs)
        dims = inputs.shape.as_list()
        sizes = []
        for axis, k, s in zip((1, 2), self.kernel_size, self.strides, strict=True):
            length = dims[axis] if dims[axis] is not None else dynamic[axis]
            sizes.append(_deconv_output_length(length, k, self.padding, s))
        output_shape = array_ops.stack([dynamic[0], *sizes, self.filters])
        outputs = conv_ops.conv2d_transpose(
            inputs,
            self.kernel,
            output_shape,
            strides=[1, *self.strides, 1],
            padding=self.padding.upper(),
            name="conv2d_transpose",
        )
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        return outputs

    def compute_output_shape(self, input_shape):
        """The shape of the output for an input of `input_shape`."""
        dims = _as_shape(input_shape).as_list()
        spatial = [
            _deconv_output_length(d, k, self.padding, s)
            for d, k, s in zip(dims[1:3], self.kernel_size, self.strides, strict=True)
        ]
        return tensor_shape.TensorShape([dims[0], *spatial, self.filters])


def _functional(cls, inputs, filters, kernel_size, name, reuse, **kwargs):
    layer = cls(filters, kernel_size, name=name, _scope=name, _reuse=reuse, **kwargs)
    return layer.apply(inputs)


def conv1d(
    inputs,
    filters,
    kernel_size,
    strides=1,
    padding="valid",
    data_format="channels_last",
    dilation_rate=1,
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
    """Functional interface of `Conv1D`: 1-D convolution.

    Args: `inputs` then the layer's (see the class), and `reuse`: reuse the
    variables of a previous layer of the same `name`.

    Returns:
        The output tensor.
    """
    return _functional(
        Conv1D,
        inputs,
        filters,
        kernel_size,
        name,
        reuse,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
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
    )


def conv2d(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1),
    padding="valid",
    data_format="channels_last",
    dilation_rate=(1, 1),
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
    """Functional interface of `Conv2D`: 2-D convolution.

    Args: `inputs` then the layer's (see the class), and `reuse`: reuse the
    variables of a previous layer of the same `name`.

    Returns:
        The output tensor.
    """
    return _functional(
        Conv2D,
        inputs,
        filters,
        kernel_size,
        name,
        reuse,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
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
    )


def conv2d_transpose(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1),
    padding="valid",
    data_format="channels_last",
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
    """Functional interface of `Conv2DTranspose`: transposed 2-D convolution.

    Args: `inputs` then the layer's (see the class), and `reuse`: reuse the
    variables of a previous layer of the same `name`.

    Returns:
        The output tensor.
    """
    return _functional(
        Conv2DTranspose,
        inputs,
        filters,
        kernel_size,
        name,
        reuse,
        strides=strides,
        padding=padding,
        data_format=data_format,
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
    )
