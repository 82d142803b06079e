"""Convolution and pooling (`tf.nn.conv2d`, `max_pool`, `avg_pool`, ...), NHWC."""

from __future__ import annotations

import numbers

from ..framework import ops
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
    with ops.name_scope(name, "Conv2DBackpropInput", [input_sizes, filter, out_backprop]) as scope:
        sizes = _int_vector(input_sizes, "input_sizes")
        filter, out_backprop = convert_same_type([filter, out_backprop], ["filter", "out_backprop"])
        return make_op(
            "Conv2DBackpropInput", [sizes, filter, out_backprop], attrs, scope=scope
        ).outputs[0]


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
    with ops.name_scope(name, "Conv2DBackpropFilter", [input, filter_sizes, out_backprop]) as scope:
        sizes = _int_vector(filter_sizes, "filter_sizes")
        input, out_backprop = convert_same_type([input, out_backprop], ["input", "out_backprop"])
        return make_op(
            "Conv2DBackpropFilter", [input, sizes, out_backprop], attrs, scope=scope
        ).outputs[0]


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
