"""`tf.layers` convolutions: `Conv1D`, `Conv2D`, `Conv2DTranspose` and the separable ones.

`data_format="channels_first"` is supported by every layer here. ferroflow's
convolution kernels are NHWC (as TF's CPU kernels), so a channels-first layer
transposes its input to channels-last, convolves, and transposes the result back (as
Keras' backend does on a CPU without NCHW kernels); the bias is then added in the
channels-first layout, as TF adds it. `Conv3D` and `Conv3DTranspose` are not
provided: ferroflow has no 3-D convolution kernels.
"""

from __future__ import annotations

from .._compat import zip_strict
from ..framework import tensor_shape
from ..ops import array_ops, conv_ops, indexing_ops, nn_impl, nn_ops
from .base import (
    _ZEROS,
    InputSpec,
    Layer,
    _as_shape,
    _normalize_padding,
    _normalize_tuple,
)
from .core import _activation


def _normalize_data_format(value):
    """Keras' `conv_utils.normalize_data_format` (None is `"channels_last"`)."""
    data_format = "channels_last" if value is None else str(value).lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(
            'The `data_format` argument must be one of "channels_first", "channels_last". '
            f"Received: {value}"
        )
    return data_format


def _to_channels_last(inputs, rank):
    """`[batch, channels, *spatial]` -> `[batch, *spatial, channels]`."""
    return array_ops.transpose(inputs, [0, *range(2, rank + 2), 1])


def _to_channels_first(inputs, rank):
    """`[batch, *spatial, channels]` -> `[batch, channels, *spatial]`."""
    return array_ops.transpose(inputs, [0, rank + 1, *range(1, rank + 1)])


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


def _check_positive(values, name):
    """Keras' check that `kernel_size` and `strides` have no zero."""
    if not all(values):
        verb = "contain" if name == "kernel_size" else "contains"
        raise ValueError(f"The argument `{name}` cannot {verb} 0(s). Received: {values}")


class _Conv(Layer):
    """N-D convolution layer base (`rank` spatial dimensions).

    Subclasses implement `_convolve(inputs)`: the convolution of channels-last
    `inputs` (without bias), channels-last.
    """

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
        _check_positive(self.kernel_size, "kernel_size")
        _check_positive(self.strides, "strides")
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

    @property
    def _channels_first(self):
        return self.data_format == "channels_first"

    def _channel_axis(self):
        return -1 - self.rank if self._channels_first else -1

    def _input_channels(self, input_shape):
        """The (known) channel count of `input_shape`, as TF checks it."""
        input_shape = _as_shape(input_shape)
        if input_shape.ndims is None or input_shape.dims[self._channel_axis()].value is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        return int(input_shape.dims[self._channel_axis()].value)

    def _kernel_shape(self, input_dim):
        return (*self.kernel_size, input_dim, self.filters)

    def _check_dilated_strides(self):
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                "`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                f"Received: strides={list(self.strides)} and "
                f"dilation_rate={list(self.dilation_rate)}"
            )

    def build(self, input_shape):
        """Creates `kernel` (`kernel_size + [in, filters]`) and `bias` `[filters]`."""
        input_dim = self._input_channels(input_shape)
        self._check_dilated_strides()
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
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={self._channel_axis(): input_dim})
        self.built = True

    def _convolve(self, inputs):
        raise NotImplementedError

    def _add_bias(self, outputs):
        """`outputs + bias` along the channel dimension, in the layer's layout."""
        if not self._channels_first:
            return nn_ops.bias_add(outputs, self.bias, data_format="NHWC")
        if self.rank == 1:
            # As TF: `bias_add` takes no 3-D NCHW input.
            return outputs + array_ops.reshape(self.bias, (1, self.filters, 1))
        return nn_ops.bias_add(outputs, self.bias, data_format="NCHW")

    def call(self, inputs):
        """`activation(conv(inputs, kernel) + bias)`."""
        if self._channels_first:
            outputs = self._convolve(_to_channels_last(inputs, self.rank))
            outputs = _to_channels_first(outputs, self.rank)
        else:
            outputs = self._convolve(inputs)
        if self.use_bias:
            outputs = self._add_bias(outputs)
        if inputs.shape.ndims is not None:
            outputs.set_shape(self.compute_output_shape(inputs.shape))
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def _spatial_output_shape(self, spatial):
        return [
            _conv_output_length(d, k, self.padding, s, r)
            for d, k, s, r in zip_strict(
                spatial, self.kernel_size, self.strides, self.dilation_rate
            )
        ]

    def compute_output_shape(self, input_shape):
        """The shape of the output for an input of `input_shape`."""
        dims = _as_shape(input_shape).as_list()
        batch = dims[: len(dims) - self.rank - 1]
        if self._channels_first:
            spatial = self._spatial_output_shape(dims[len(batch) + 1 :])
            return tensor_shape.TensorShape([*batch, self.filters, *spatial])
        spatial = self._spatial_output_shape(dims[len(batch) : -1])
        return tensor_shape.TensorShape([*batch, *spatial, self.filters])


class Conv1D(_Conv):
    """1-D convolution layer over `[batch, width, channels]` (e.g. temporal).

    Args:
        filters: Number of output channels.
        kernel_size: An int or a 1-tuple: the window width.
        strides: An int or a 1-tuple.
        padding: `"valid"`, `"same"` or `"causal"` (case-insensitive).
        data_format: `"channels_last"` (`[batch, width, channels]`) or
            `"channels_first"` (`[batch, channels, width]`).
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
        data_format: `"channels_last"` (`[batch, height, width, channels]`) or
            `"channels_first"` (`[batch, channels, height, width]`).
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


class _ConvTranspose:
    """The transposed form of a `_Conv` layer (mixed in before it).

    The kernel is `kernel_size + [filters, in_channels]` and the op is the convolution's
    input gradient (`_transpose_op`), with no dilation.
    """

    _transpose_op = staticmethod(conv_ops.conv2d_transpose)
    rank: int
    filters: int
    kernel_size: tuple
    strides: tuple
    padding: str
    kernel: object

    def _kernel_shape(self, input_dim):
        return (*self.kernel_size, self.filters, input_dim)

    def build(self, input_shape):
        """Creates `kernel` (`kernel_size + [filters, in]`) and `bias` `[filters]`."""
        input_shape = _as_shape(input_shape)
        ndim = self.rank + 2
        if input_shape.ndims != ndim:
            raise ValueError(f"Inputs should have rank {ndim}. Received input shape: {input_shape}")
        super().build(input_shape)  # type: ignore[misc]
        spec = getattr(self, "input_spec", None)
        axes = spec.axes if spec is not None else None
        setattr(self, "input_spec", InputSpec(ndim=ndim, axes=axes))  # noqa: B010 (a mixin)

    def _convolve(self, inputs):
        dynamic = array_ops.shape(inputs)
        dims = inputs.shape.as_list()
        spatial_axes = range(1, self.rank + 1)
        sizes = []
        for axis, k, s in zip_strict(spatial_axes, self.kernel_size, self.strides):
            length = dims[axis] if dims[axis] is not None else dynamic[axis]
            sizes.append(_deconv_output_length(length, k, self.padding, s))
        output_shape = array_ops.stack([dynamic[0], *sizes, self.filters])
        outputs = self._transpose_op(
            inputs,
            self.kernel,
            output_shape,
            strides=[1, *self.strides, 1],
            padding=self.padding.upper(),
            name=f"conv{self.rank}d_transpose",
        )
        spatial = self._spatial_output_shape(dims[1 : self.rank + 1])
        outputs.set_shape([dims[0], *spatial, self.filters])
        return outputs

    def _spatial_output_shape(self, spatial):
        return [
            _deconv_output_length(d, k, self.padding, s)
            for d, k, s in zip_strict(spatial, self.kernel_size, self.strides)
        ]


class Conv2DTranspose(_ConvTranspose, Conv2D):
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


class Conv3D(_Conv):
    """3-D convolution layer over `[batch, depth, height, width, channels]`.

    Args:
        filters: Number of output channels.
        kernel_size: An int or a 3-tuple: the window depth, height and width.
        strides: An int or a 3-tuple.
        padding: `"valid"` or `"same"` (case-insensitive).
        data_format: `"channels_last"` (`[batch, depth, height, width, channels]`) or
            `"channels_first"` (`[batch, channels, depth, height, width]`).
        dilation_rate: An int or a 3-tuple.

    The other arguments are `Dense`'s.
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
        padding="valid",
        data_format="channels_last",
        dilation_rate=(1, 1, 1),
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
            3,
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
        return conv_ops.conv3d(
            inputs,
            self.kernel,
            strides=[1, *self.strides, 1],
            padding=self.padding.upper(),
            dilations=[1, *self.dilation_rate, 1],
            name="Conv3D",
        )


class Conv3DTranspose(_ConvTranspose, Conv3D):
    """Transposed 3-D convolution ("deconvolution") layer.

    The kernel is `kernel_size + [filters, in_channels]`; the output's spatial size
    is `in * stride` (`"same"`) or `in * stride + max(kernel - stride, 0)` (`"valid"`).

    Args: as `Conv3D` (no `dilation_rate` other than 1).
    """

    _transpose_op = staticmethod(conv_ops.conv3d_transpose)

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1, 1),
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


class _SeparableConv(_Conv):
    """Depthwise-separable convolution base: a depthwise then a pointwise (1x1) one.

    The variables are `depthwise_kernel` (`kernel_size + [in, depth_multiplier]`),
    `pointwise_kernel` (`[1] * rank + [in * depth_multiplier, filters]`) and `bias`.
    """

    def __init__(
        self,
        rank,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format="channels_last",
        dilation_rate=1,
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer=None,
        pointwise_initializer=None,
        bias_initializer=_ZEROS,
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        trainable=True,
        name=None,
        **kwargs,
    ):
        super().__init__(
            rank,
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint
        self.depthwise_kernel = None
        self.pointwise_kernel = None

    def build(self, input_shape):
        """Creates `depthwise_kernel`, `pointwise_kernel` and `bias`."""
        input_dim = self._input_channels(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis(): input_dim})
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            shape=(*self.kernel_size, input_dim, self.depth_multiplier),
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            shape=((1,) * self.rank + (self.depth_multiplier * input_dim, self.filters)),
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
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
        else:
            self.bias = None
        self.built = True

    def _separable(self, inputs, depthwise_kernel, pointwise_kernel, strides, padding, rate):
        """`nn.separable_conv2d` of 4-D inputs in the layer's layout (NHWC kernels)."""
        if self._channels_first:
            inputs = _to_channels_last(inputs, 2)
        outputs = conv_ops.separable_conv2d(
            inputs,
            depthwise_kernel,
            pointwise_kernel,
            strides=[1, *strides, 1],
            padding=padding.upper(),
            rate=list(rate),
            data_format="NHWC",
        )
        if self._channels_first:
            outputs = _to_channels_first(outputs, 2)
        if self.use_bias:
            data_format = "NCHW" if self._channels_first else "NHWC"
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        return outputs


class SeparableConv1D(_SeparableConv):
    """Depthwise-separable 1-D convolution over `[batch, width, channels]`.

    Each input channel is convolved with `depth_multiplier` filters of its own (the
    depthwise step), then a 1x1 convolution mixes the channels into `filters`; as TF,
    both run as a `separable_conv2d` of the input with a unit height.

    Args:
        filters: Number of output channels.
        kernel_size: An int or a 1-tuple: the depthwise window width.
        strides: An int or a 1-tuple.
        padding: `"valid"`, `"same"` or `"causal"` (case-insensitive).
        data_format: `"channels_last"` or `"channels_first"`.
        dilation_rate: An int or a 1-tuple.
        depth_multiplier: Depthwise filters per input channel.
        activation: Activation function (None: linear).
        use_bias: Whether to add a bias.
        depthwise_initializer: Initializer of `depthwise_kernel`.
        pointwise_initializer: Initializer of `pointwise_kernel`.
        bias_initializer: Initializer of `bias`.
        depthwise_regularizer: Regularizer of `depthwise_kernel`.
        pointwise_regularizer: Regularizer of `pointwise_kernel`.
        bias_regularizer: Regularizer of `bias`.
        activity_regularizer: Regularizer of the output.
        depthwise_constraint: Constraint of `depthwise_kernel`.
        pointwise_constraint: Constraint of `pointwise_kernel`.
        bias_constraint: Constraint of `bias`.
        trainable: Whether the variables are trainable.
        name: Name of the layer.
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format="channels_last",
        dilation_rate=1,
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer=None,
        pointwise_initializer=None,
        bias_initializer=_ZEROS,
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        trainable=True,
        name=None,
        **kwargs,
    ):
        super().__init__(
            1,
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            depth_multiplier=depth_multiplier,
            activation=activation,
            use_bias=use_bias,
            depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer,
            bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )

    def call(self, inputs):
        """`activation(squeeze(separable_conv2d(expand_dims(inputs)) + bias))`."""
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            paddings = [[0, 0], [0, 0], [left, 0]] if self._channels_first else None
            inputs = indexing_ops.pad(inputs, paddings or [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        else:
            padding = self.padding
        spatial_start_dim = 2 if self._channels_first else 1
        inputs = array_ops.expand_dims(inputs, spatial_start_dim)
        depthwise_kernel = array_ops.expand_dims(self.depthwise_kernel, 0)
        pointwise_kernel = array_ops.expand_dims(self.pointwise_kernel, 0)
        outputs = self._separable(
            inputs,
            depthwise_kernel,
            pointwise_kernel,
            self.strides * 2,
            padding,
            (1, *self.dilation_rate),
        )
        outputs = array_ops.squeeze(outputs, [spatial_start_dim])
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class SeparableConv2D(_SeparableConv):
    """Depthwise-separable 2-D convolution over `[batch, height, width, channels]`.

    Each input channel is convolved with `depth_multiplier` filters of its own (the
    depthwise step, `tf.nn.depthwise_conv2d`), then a 1x1 convolution mixes the
    channels into `filters` (`tf.nn.separable_conv2d`).

    Args:
        filters: Number of output channels.
        kernel_size: An int or a 2-tuple: the depthwise window height and width.
        strides: An int or a 2-tuple.
        padding: `"valid"` or `"same"` (case-insensitive).
        data_format: `"channels_last"` or `"channels_first"`.
        dilation_rate: An int or a 2-tuple.
        depth_multiplier: Depthwise filters per input channel.

    The other arguments are `SeparableConv1D`'s.

    Example:
        ```python
        y = tf.layers.separable_conv2d(images, 32, 3, depth_multiplier=2)
        # separable_conv2d/depthwise_kernel [3, 3, in, 2],
        # separable_conv2d/pointwise_kernel [1, 1, 2 * in, 32], separable_conv2d/bias [32]
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
        depth_multiplier=1,
        activation=None,
        use_bias=True,
        depthwise_initializer=None,
        pointwise_initializer=None,
        bias_initializer=_ZEROS,
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        bias_constraint=None,
        trainable=True,
        name=None,
        **kwargs,
    ):
        super().__init__(
            2,
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            depth_multiplier=depth_multiplier,
            activation=activation,
            use_bias=use_bias,
            depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer,
            bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )

    def call(self, inputs):
        """`activation(separable_conv2d(inputs) + bias)`."""
        outputs = self._separable(
            inputs,
            self.depthwise_kernel,
            self.pointwise_kernel,
            self.strides,
            self.padding,
            self.dilation_rate,
        )
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


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


def conv3d(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1, 1),
    padding="valid",
    data_format="channels_last",
    dilation_rate=(1, 1, 1),
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
    """Functional interface of `Conv3D`: 3-D convolution.

    Args: `inputs` then the layer's (see the class), and `reuse`: reuse the
    variables of a previous layer of the same `name`.

    Returns:
        The output tensor.
    """
    return _functional(
        Conv3D,
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


def conv3d_transpose(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1, 1),
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
    """Functional interface of `Conv3DTranspose`: transposed 3-D convolution.

    Args: `inputs` then the layer's (see the class), and `reuse`: reuse the
    variables of a previous layer of the same `name`.

    Returns:
        The output tensor.
    """
    return _functional(
        Conv3DTranspose,
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


def _separable_functional(
    cls,
    inputs,
    filters,
    kernel_size,
    strides,
    padding,
    data_format,
    dilation_rate,
    depth_multiplier,
    activation,
    use_bias,
    depthwise_initializer,
    pointwise_initializer,
    bias_initializer,
    depthwise_regularizer,
    pointwise_regularizer,
    bias_regularizer,
    activity_regularizer,
    depthwise_constraint,
    pointwise_constraint,
    bias_constraint,
    trainable,
    name,
    reuse,
):
    return _functional(
        cls,
        inputs,
        filters,
        kernel_size,
        name,
        reuse,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
        depth_multiplier=depth_multiplier,
        activation=activation,
        use_bias=use_bias,
        depthwise_initializer=depthwise_initializer,
        pointwise_initializer=pointwise_initializer,
        bias_initializer=bias_initializer,
        depthwise_regularizer=depthwise_regularizer,
        pointwise_regularizer=pointwise_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        depthwise_constraint=depthwise_constraint,
        pointwise_constraint=pointwise_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
    )


def separable_conv1d(
    inputs,
    filters,
    kernel_size,
    strides=1,
    padding="valid",
    data_format="channels_last",
    dilation_rate=1,
    depth_multiplier=1,
    activation=None,
    use_bias=True,
    depthwise_initializer=None,
    pointwise_initializer=None,
    bias_initializer=_ZEROS,
    depthwise_regularizer=None,
    pointwise_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    depthwise_constraint=None,
    pointwise_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
):
    """Functional interface of `SeparableConv1D`: depthwise-separable 1-D convolution.

    Args: `inputs` then the layer's (see the class), and `reuse`: reuse the
    variables of a previous layer of the same `name`.

    Returns:
        The output tensor.
    """
    return _separable_functional(
        SeparableConv1D,
        inputs,
        filters,
        kernel_size,
        strides,
        padding,
        data_format,
        dilation_rate,
        depth_multiplier,
        activation,
        use_bias,
        depthwise_initializer,
        pointwise_initializer,
        bias_initializer,
        depthwise_regularizer,
        pointwise_regularizer,
        bias_regularizer,
        activity_regularizer,
        depthwise_constraint,
        pointwise_constraint,
        bias_constraint,
        trainable,
        name,
        reuse,
    )


def separable_conv2d(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1),
    padding="valid",
    data_format="channels_last",
    dilation_rate=(1, 1),
    depth_multiplier=1,
    activation=None,
    use_bias=True,
    depthwise_initializer=None,
    pointwise_initializer=None,
    bias_initializer=_ZEROS,
    depthwise_regularizer=None,
    pointwise_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    depthwise_constraint=None,
    pointwise_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
):
    """Functional interface of `SeparableConv2D`: depthwise-separable 2-D convolution.

    Args: `inputs` then the layer's (see the class), and `reuse`: reuse the
    variables of a previous layer of the same `name`.

    Returns:
        The output tensor.
    """
    return _separable_functional(
        SeparableConv2D,
        inputs,
        filters,
        kernel_size,
        strides,
        padding,
        data_format,
        dilation_rate,
        depth_multiplier,
        activation,
        use_bias,
        depthwise_initializer,
        pointwise_initializer,
        bias_initializer,
        depthwise_regularizer,
        pointwise_regularizer,
        bias_regularizer,
        activity_regularizer,
        depthwise_constraint,
        pointwise_constraint,
        bias_constraint,
        trainable,
        name,
        reuse,
    )


# TF's aliases (`tensorflow/python/layers/convolutional.py`).
Convolution1D = Conv1D
Convolution2D = Conv2D
SeparableConvolution2D = SeparableConv2D
Convolution2DTranspose = Deconvolution2D = Deconv2D = Conv2DTranspose
convolution1d = conv1d
convolution2d = conv2d
separable_convolution2d = separable_conv2d
convolution2d_transpose = deconvolution2d = deconv2d = conv2d_transpose
Convolution3D = Conv3D
Convolution3DTranspose = Deconvolution3D = Deconv3D = Conv3DTranspose
convolution3d = conv3d
convolution3d_transpose = deconvolution3d = deconv3d = conv3d_transpose
