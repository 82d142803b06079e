"""Convolution and pooling: `tf.nn.conv2d`, `max_pool`, `avg_pool`, ... (NHWC).

And their 3-D forms: `tf.nn.conv3d`, `max_pool3d`, `avg_pool3d`, ... (NDHWC).
"""

from __future__ import annotations

import numbers

from ..framework import dtypes, ops
from . import array_ops
from ._op_util import convert_same_type, make_op
from .array_ops import _int_vector


def _spatial(value, name):
    """TF's `_get_sequence` for NHWC: an int or 1, 2 or 4 ints -> the 4-int attr."""
    if value is None:
        raise ValueError(f"`{name}` must be given")
    if isinstance(value, numbers.Integral):
        return [1, int(value), int(value), 1]
    value = [int(v) for v in value]
    if len(value) == 1:
        return [1, value[0], value[0], 1]
    if len(value) == 2:
        return [1, *value, 1]
    if len(value) == 4:
        return value
    raise ValueError(
        f"{name} should be of length 1, 2 or 4. Received: {name}={value} of length {len(value)}"
    )


def _padding(padding):
    if isinstance(padding, str) and padding.upper() in ("SAME", "VALID"):
        return padding.upper().encode()
    raise ValueError(
        f"padding must be 'SAME' or 'VALID' (explicit paddings are not supported), got {padding!r}"
    )


def _conv_attrs(strides, padding, data_format, dilations, use_cudnn_on_gpu=True):
    return {
        "strides": _spatial(strides, "strides"),
        "padding": _padding(padding),
        "data_format": data_format.encode() if isinstance(data_format, str) else data_format,
        "dilations": _spatial([1, 1, 1, 1] if dilations is None else dilations, "dilations"),
        "use_cudnn_on_gpu": bool(use_cudnn_on_gpu),
    }


def conv2d(
    input,
    filter=None,
    strides=None,
    padding=None,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=None,
    name=None,
    filters=None,
):
    """2-D convolution of NHWC `input` with an HWIO `filter`.

    `input` is `[batch, height, width, in_channels]` and `filter`
    `[filter_height, filter_width, in_channels, out_channels]`.

    Args:
        input: A float32 or float64 4-D tensor.
        filter: The 4-D filter.
        filters: Alias of `filter`.
        strides: An int or a list of 1, 2 or 4 ints: the window step per dimension.
        padding: `"SAME"` or `"VALID"`.
        use_cudnn_on_gpu: Accepted for compatibility.
        data_format: `"NHWC"` (the only CPU layout).
        dilations: An int or a list of 1, 2 or 4 ints (default 1).
        name: Name of the op.

    Returns:
        The `[batch, out_height, out_width, out_channels]` result.
    """
    filter = filters if filter is None else filter
    attrs = _conv_attrs(strides, padding, data_format, dilations, use_cudnn_on_gpu)
    with ops.name_scope(name, "Conv2D", [input, filter]) as scope:
        input, filter = convert_same_type([input, filter], ["input", "filter"])
        return make_op("Conv2D", [input, filter], attrs, scope=scope).outputs[0]


def _backprop_op(op_type, sizes_at, sizes, lhs, rhs, attrs, name, names):
    """A convolution's backprop op over two float operands of one dtype.

    The int `sizes` vector is input `sizes_at`: 0 for `[sizes, lhs, rhs]` (the input
    gradient), 1 for `[lhs, sizes, rhs]` (the filter gradient).
    """
    with ops.name_scope(name, op_type, [lhs, sizes, rhs]) as scope:
        sizes = _int_vector(sizes, names[0])
        lhs, rhs = convert_same_type([lhs, rhs], list(names[1:]))
        inputs = [sizes, lhs, rhs] if sizes_at == 0 else [lhs, sizes, rhs]
        return make_op(op_type, inputs, attrs, scope=scope).outputs[0]


def conv2d_backprop_input(
    input_sizes,
    filter=None,
    out_backprop=None,
    strides=None,
    padding=None,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=None,
    name=None,
    filters=None,
):
    """The gradient of `conv2d` with respect to its input, of shape `input_sizes`."""
    filter = filters if filter is None else filter
    attrs = _conv_attrs(strides, padding, data_format, dilations, use_cudnn_on_gpu)
    names = ("input_sizes", "filter", "out_backprop")
    return _backprop_op(
        "Conv2DBackpropInput", 0, input_sizes, filter, out_backprop, attrs, name, names
    )


def conv2d_backprop_filter(
    input,
    filter_sizes,
    out_backprop,
    strides,
    padding,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=None,
    name=None,
):
    """The gradient of `conv2d` with respect to its filter, of shape `filter_sizes`."""
    attrs = _conv_attrs(strides, padding, data_format, dilations, use_cudnn_on_gpu)
    names = ("filter_sizes", "input", "out_backprop")
    return _backprop_op(
        "Conv2DBackpropFilter", 1, filter_sizes, input, out_backprop, attrs, name, names
    )


def conv2d_transpose(
    value=None,
    filter=None,
    output_shape=None,
    strides=None,
    padding="SAME",
    data_format="NHWC",
    name=None,
    input=None,
    filters=None,
    dilations=None,
):
    """The transpose of `conv2d` (the gradient of `conv2d` with respect to its input).

    `filter` is `[height, width, output_channels, in_channels]`; the result has
    `output_shape`.
    """
    value = input if value is None else value
    filter = filters if filter is None else filter
    with ops.name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        return conv2d_backprop_input(
            output_shape,
            filter,
            value,
            strides,
            padding,
            data_format=data_format,
            dilations=dilations,
            name=scope,
        )


def _depthwise_attrs(strides, padding, data_format, dilations):
    attrs = _conv_attrs(strides, padding, data_format or "NHWC", dilations)
    del attrs["use_cudnn_on_gpu"]  # not an attr of the depthwise ops
    return attrs


def depthwise_conv2d_native(
    input, filter, strides, padding, data_format="NHWC", dilations=None, name=None
):
    """Depthwise 2-D convolution: each input channel convolved with its own filters.

    `input` is `[batch, height, width, in_channels]` and `filter`
    `[filter_height, filter_width, in_channels, channel_multiplier]`; output channel
    `k * channel_multiplier + q` is input channel `k` convolved with `filter[..., k, q]`.

    Args:
        input: A float32 or float64 4-D tensor.
        filter: The 4-D filter, of `input`'s dtype.
        strides: An int or a list of 1, 2 or 4 ints: the window step.
        padding: `"SAME"` or `"VALID"`.
        data_format: `"NHWC"`.
        dilations: An int or a list of 1, 2 or 4 ints (default 1).
        name: Name of the op.

    Returns:
        The `[batch, out_height, out_width, in_channels * channel_multiplier]` result.
    """
    attrs = _depthwise_attrs(strides, padding, data_format, dilations)
    with ops.name_scope(name, "DepthwiseConv2dNative", [input, filter]) as scope:
        input, filter = convert_same_type([input, filter], ["input", "filter"])
        return make_op("DepthwiseConv2dNative", [input, filter], attrs, scope=scope).outputs[0]


def depthwise_conv2d_native_backprop_input(
    input_sizes,
    filter,
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=None,
    name=None,
):
    """The gradient of `depthwise_conv2d_native` with respect to its input."""
    attrs = _depthwise_attrs(strides, padding, data_format, dilations)
    op_type = "DepthwiseConv2dNativeBackpropInput"
    names = ("input_sizes", "filter", "out_backprop")
    return _backprop_op(op_type, 0, input_sizes, filter, out_backprop, attrs, name, names)


def depthwise_conv2d_native_backprop_filter(
    input,
    filter_sizes,
    out_backprop,
    strides,
    padding,
    data_format="NHWC",
    dilations=None,
    name=None,
):
    """The gradient of `depthwise_conv2d_native` with respect to its filter."""
    attrs = _depthwise_attrs(strides, padding, data_format, dilations)
    op_type = "DepthwiseConv2dNativeBackpropFilter"
    names = ("filter_sizes", "input", "out_backprop")
    return _backprop_op(op_type, 1, filter_sizes, input, out_backprop, attrs, name, names)


def _rate(rate, dilations):
    if rate is not None and dilations is not None:
        raise ValueError("Cannot specify both 'rate' and 'dilations'")
    rate = dilations if rate is None else rate
    if rate is None:
        return [1, 1]
    if isinstance(rate, numbers.Integral):
        return [int(rate)] * 2
    rate = [int(r) for r in rate]
    if len(rate) != 2:
        raise ValueError(f"rate must be of length 2, got {rate}")
    if any(r < 1 for r in rate):
        raise ValueError(f"rate must be positive, got {rate}")
    return rate


def _depthwise_in_scope(input, filter, strides, padding, rate, data_format, name):
    """The depthwise step of `depthwise_conv2d`/`separable_conv2d`, as TF lays it out.

    TF's `with_space_to_batch` takes the filter's shape and the rate as constants
    first; a rate of 1 then calls the op directly. Departure: a rate above 1 is the
    op's own `dilations` attr rather than `SpaceToBatchND`/`BatchToSpaceND` around it.
    """
    array_ops.shape(filter)
    ops.convert_to_tensor(rate, dtype=dtypes.int32, name="dilation_rate")
    dilations = None if rate == [1, 1] else [1, *rate, 1]
    return depthwise_conv2d_native(
        input, filter, strides, padding, data_format or "NHWC", dilations, name=name
    )


def depthwise_conv2d(
    input, filter, strides, padding, rate=None, name=None, data_format=None, dilations=None
):
    """Depthwise 2-D convolution, optionally dilated (atrous) by `rate`.

    Args:
        input: A float32 or float64 `[batch, height, width, in_channels]` tensor.
        filter: `[filter_height, filter_width, in_channels, channel_multiplier]`.
        strides: 4 ints, `[1, stride, stride, 1]`.
        padding: `"SAME"` or `"VALID"`.
        rate: 2 ints (or one): the dilation; strides must be 1 when above 1.
        name: Name scope of the ops (default `"depthwise"`).
        data_format: `"NHWC"`.
        dilations: Alias of `rate`.

    Returns:
        The `[batch, out_height, out_width, in_channels * channel_multiplier]` result.
    """
    rate = _rate(rate, dilations)
    with ops.name_scope(name, "depthwise", [input, filter]) as scope:
        input = ops.convert_to_tensor(input, name="tensor_in")
        filter = ops.convert_to_tensor(filter, name="filter_in")
        return _depthwise_in_scope(input, filter, strides, padding, rate, data_format, scope)


def separable_conv2d(
    input,
    depthwise_filter,
    pointwise_filter,
    strides,
    padding,
    rate=None,
    name=None,
    data_format=None,
    dilations=None,
):
    """A depthwise convolution followed by a 1x1 `conv2d` mixing its channels.

    Args:
        input: A float32 or float64 `[batch, height, width, in_channels]` tensor.
        depthwise_filter: `[filter_height, filter_width, in_channels, channel_multiplier]`.
        pointwise_filter: `[1, 1, in_channels * channel_multiplier, out_channels]`.
        strides: 4 ints, the depthwise step.
        padding: `"SAME"` or `"VALID"` (of the depthwise step).
        rate: 2 ints (or one): the depthwise dilation.
        name: Name scope of the ops (default `"separable_conv2d"`).
        data_format: `"NHWC"`.
        dilations: Alias of `rate`.

    Raises:
        ValueError: when `pointwise_filter` is not 4-D with 1x1 spatial dimensions.
    """
    rate = _rate(rate, dilations)
    with ops.name_scope(
        name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]
    ) as scope:
        input = ops.convert_to_tensor(input, name="tensor_in")
        depthwise_filter = ops.convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = ops.convert_to_tensor(pointwise_filter, name="pointwise_filter")
        shape = pointwise_filter.shape.with_rank(4)
        shape.dims[0].assert_is_compatible_with(1)
        shape.dims[1].assert_is_compatible_with(1)
        depthwise = _depthwise_in_scope(
            input, depthwise_filter, strides, padding, rate, data_format, "depthwise"
        )
        return conv2d(
            depthwise,
            pointwise_filter,
            [1, 1, 1, 1],
            "VALID",
            data_format=data_format or "NHWC",
            name=scope,
        )


def _pool(op_type, value, ksize, strides, padding, data_format, name):
    attrs = {
        "ksize": _spatial(ksize, "ksize"),
        "strides": _spatial(strides, "strides"),
        "padding": _padding(padding),
        "data_format": data_format.encode() if isinstance(data_format, str) else data_format,
    }
    with ops.name_scope(name, op_type, [value]) as scope:
        value = ops.convert_to_tensor(value, name="input")
        return make_op(op_type, [value], attrs, scope=scope).outputs[0]


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """The maximum of each `ksize` window of `value` `[batch, height, width, channels]`.

    Args:
        value: A float32 or float64 4-D tensor.
        ksize: An int or 1, 2 or 4 ints: the window size.
        strides: An int or 1, 2 or 4 ints: the window step.
        padding: `"SAME"` or `"VALID"`; padded positions never win.
        data_format: `"NHWC"`.
        name: Name of the op.
        input: Alias of `value`.
    """
    return _pool(
        "MaxPool", input if value is None else value, ksize, strides, padding, data_format, name
    )


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """The mean of each `ksize` window of `value` (padded positions are not counted).

    Same arguments as `max_pool`.
    """
    return _pool(
        "AvgPool", input if value is None else value, ksize, strides, padding, data_format, name
    )


def _spatial3(value, name):
    """TF's `_get_sequence` for NDHWC: an int or 1, 3 or 5 ints -> the 5-int attr."""
    if value is None:
        raise ValueError(f"`{name}` must be given")
    if isinstance(value, numbers.Integral):
        return [1, int(value), int(value), int(value), 1]
    value = [int(v) for v in value]
    if len(value) == 1:
        return [1, *value * 3, 1]
    if len(value) == 3:
        return [1, *value, 1]
    if len(value) == 5:
        return value
    raise ValueError(
        f"{name} should be of length 1, 3 or 5. Received: {name}={value} of length {len(value)}"
    )


def _conv3d_attrs(strides, padding, data_format, dilations):
    return {
        "strides": _spatial3(strides, "strides"),
        "padding": _padding(padding),
        "data_format": data_format.encode() if isinstance(data_format, str) else data_format,
        "dilations": _spatial3([1, 1, 1, 1, 1] if dilations is None else dilations, "dilations"),
    }


def conv3d(
    input,
    filter=None,
    strides=None,
    padding=None,
    data_format="NDHWC",
    dilations=None,
    name=None,
    filters=None,
):
    """3-D convolution of NDHWC `input` with a DHWIO `filter`.

    Args:
        input: A float `[batch, depth, height, width, in_channels]` tensor.
        filter: `[filter_depth, filter_height, filter_width, in_channels, out_channels]`.
        filters: Alias of `filter`.
        strides: 5 ints (or 1 or 3): the window step; the first and last must be 1.
        padding: `"SAME"` or `"VALID"`.
        data_format: `"NDHWC"` (the CPU kernel's layout).
        dilations: 5 ints (or 1 or 3; default 1).
        name: Name of the op.

    Returns:
        The `[batch, out_depth, out_height, out_width, out_channels]` result.
    """
    filter = filters if filter is None else filter
    attrs = _conv3d_attrs(strides, padding, data_format, dilations)
    with ops.name_scope(name, "Conv3D", [input, filter]) as scope:
        input, filter = convert_same_type([input, filter], ["input", "filter"])
        return make_op("Conv3D", [input, filter], attrs, scope=scope).outputs[0]


def conv3d_backprop_input_v2(
    input_sizes,
    filter,
    out_backprop,
    strides,
    padding,
    data_format="NDHWC",
    dilations=None,
    name=None,
):
    """The gradient of `conv3d` with respect to its input, of shape `input_sizes`."""
    attrs = _conv3d_attrs(strides, padding, data_format, dilations)
    op_type = "Conv3DBackpropInputV2"
    names = ("input_sizes", "filter", "out_backprop")
    return _backprop_op(op_type, 0, input_sizes, filter, out_backprop, attrs, name, names)


def conv3d_backprop_filter_v2(
    input,
    filter_sizes,
    out_backprop,
    strides,
    padding,
    data_format="NDHWC",
    dilations=None,
    name=None,
):
    """The gradient of `conv3d` with respect to its filter, of shape `filter_sizes`."""
    attrs = _conv3d_attrs(strides, padding, data_format, dilations)
    op_type = "Conv3DBackpropFilterV2"
    names = ("filter_sizes", "input", "out_backprop")
    return _backprop_op(op_type, 1, filter_sizes, input, out_backprop, attrs, name, names)


def conv3d_transpose(
    value=None,
    filter=None,
    output_shape=None,
    strides=None,
    padding="SAME",
    data_format="NDHWC",
    name=None,
    input=None,
    filters=None,
    dilations=None,
):
    """The transpose of `conv3d` (its gradient with respect to the input).

    `filter` is `[depth, height, width, output_channels, in_channels]`; the result has
    `output_shape`.
    """
    value = input if value is None else value
    filter = filters if filter is None else filter
    with ops.name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as scope:
        return conv3d_backprop_input_v2(
            output_shape,
            filter,
            value,
            strides,
            padding,
            data_format=data_format,
            dilations=dilations,
            name=scope,
        )


def _pool3d(op_type, value, ksize, strides, padding, data_format, name):
    attrs = {
        "ksize": _spatial3(ksize, "ksize"),
        "strides": _spatial3(strides, "strides"),
        "padding": _padding(padding),
        "data_format": data_format.encode() if isinstance(data_format, str) else data_format,
    }
    with ops.name_scope(name, op_type, [value]) as scope:
        value = ops.convert_to_tensor(value, name="input")
        return make_op(op_type, [value], attrs, scope=scope).outputs[0]


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """The maximum of each `ksize` window of `input` `[batch, depth, height, width, channels]`.

    Args:
        input: A float 5-D tensor.
        ksize: An int or 1, 3 or 5 ints: the window size.
        strides: An int or 1, 3 or 5 ints: the window step.
        padding: `"SAME"` or `"VALID"`; padded positions never win.
        data_format: `"NDHWC"`.
        name: Name of the op.
    """
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """The mean of each `ksize` window of 5-D `input` (padded positions are not counted).

    Same arguments as `max_pool3d`.
    """
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)
