"""`tf.layers` pooling: max and average pooling in 1-D, 2-D and 3-D.

The 1-D forms add a unit axis after the width, pool in 2-D and squeeze it (as TF).
`data_format="channels_first"` is supported: ferroflow's pooling kernels are NHWC /
NDHWC (as TF's CPU kernels), so a channels-first layer transposes its input to
channels-last, pools, and transposes the result back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._compat import zip_strict
from ..framework import tensor_shape
from ..ops import array_ops, conv_ops
from .base import (
    InputSpec,
    Layer,
    _as_shape,
    _normalize_padding,
    _normalize_tuple,
)
from .convolutional import (
    _conv_output_length,
    _normalize_data_format,
    _to_channels_first,
    _to_channels_last,
)


class _Pooling(Layer):
    """Pooling layer base: `rank` spatial dimensions, `pool` = `max_pool`/`avg_pool`."""

    _rank = 2
    _pool: Callable[..., Any] = staticmethod(conv_ops.max_pool)

    def __init__(
        self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs
    ):
        super().__init__(name=name, **kwargs)
        rank = self._rank
        self.pool_size = _normalize_tuple(pool_size, rank, "pool_size")
        # As TF 1.x: `strides` is required (None is rejected here).
        self.strides = _normalize_tuple(strides, rank, "strides")
        self.padding = _normalize_padding(padding)
        self.data_format = _normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs):
        """The pooled inputs."""
        channels_first = self.data_format == "channels_first"
        if self._rank == 1:
            # As TF: a unit axis after the width, pooled over in 2-D, squeezed away.
            pad_axis = 3 if channels_first else 2
            expanded = array_ops.expand_dims(inputs, pad_axis)
            pooled = self._pool_channels_last(
                expanded, (self.pool_size[0], 1), (self.strides[0], 1), channels_first
            )
            return array_ops.squeeze(pooled, [pad_axis])
        return self._pool_channels_last(inputs, self.pool_size, self.strides, channels_first)

    def _pool_channels_last(self, inputs, pool_size, strides, channels_first):
        """Pools `inputs` (channels last, or first when `channels_first`) channels-last."""
        rank = len(pool_size)
        if channels_first:
            inputs = _to_channels_last(inputs, rank)
        outputs = self._pool(inputs, [1, *pool_size, 1], [1, *strides, 1], self.padding.upper())
        if channels_first:
            outputs = _to_channels_first(outputs, rank)
        return outputs

    def compute_output_shape(self, input_shape):
        """The shape of the output for an input of `input_shape`."""
        dims = _as_shape(input_shape).as_list()
        if self.data_format == "channels_first":
            channels, spatial = dims[1], dims[2:]
        else:
            channels, spatial = dims[-1], dims[1:-1]
        spatial = [
            _conv_output_length(d, k, self.padding, s)
            for d, k, s in zip_strict(spatial, self.pool_size, self.strides)
        ]
        if self.data_format == "channels_first":
            return tensor_shape.TensorShape([dims[0], channels, *spatial])
        return tensor_shape.TensorShape([dims[0], *spatial, channels])


class MaxPooling1D(_Pooling):
    """Max pooling over the width of `[batch, width, channels]`.

    Args:
        pool_size: An int or a 1-tuple: the window width.
        strides: An int or a 1-tuple: the window step.
        padding: `"valid"` or `"same"` (case-insensitive).
        data_format: `"channels_last"` or `"channels_first"`.
        name: Name of the layer.
    """

    _rank = 1
    _pool = staticmethod(conv_ops.max_pool)


class AveragePooling1D(_Pooling):
    """Average pooling over the width of `[batch, width, channels]` (args as `MaxPooling1D`)."""

    _rank = 1
    _pool = staticmethod(conv_ops.avg_pool)


class MaxPooling2D(_Pooling):
    """Max pooling over `[batch, height, width, channels]`.

    Args:
        pool_size: An int or a 2-tuple: the window height and width.
        strides: An int or a 2-tuple: the window steps.
        padding: `"valid"` or `"same"` (case-insensitive).
        data_format: `"channels_last"` or `"channels_first"`.
        name: Name of the layer.
    """

    _rank = 2
    _pool = staticmethod(conv_ops.max_pool)


class AveragePooling2D(_Pooling):
    """Average pooling over `[batch, height, width, channels]` (args as `MaxPooling2D`)."""

    _rank = 2
    _pool = staticmethod(conv_ops.avg_pool)


class MaxPooling3D(_Pooling):
    """Max pooling over `[batch, depth, height, width, channels]`.

    Args:
        pool_size: An int or a 3-tuple: the window depth, height and width.
        strides: An int or a 3-tuple: the window steps.
        padding: `"valid"` or `"same"` (case-insensitive).
        data_format: `"channels_last"` or `"channels_first"`.
        name: Name of the layer.
    """

    _rank = 3
    _pool = staticmethod(conv_ops.max_pool3d)


class AveragePooling3D(_Pooling):
    """Average pooling over `[batch, depth, height, width, channels]` (as `MaxPooling3D`)."""

    _rank = 3
    _pool = staticmethod(conv_ops.avg_pool3d)


def _functional(cls, inputs, pool_size, strides, padding, data_format, name):
    layer = cls(
        pool_size=pool_size, strides=strides, padding=padding, data_format=data_format, name=name
    )
    return layer.apply(inputs)


def max_pooling1d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """Functional interface of `MaxPooling1D`; returns the pooled tensor."""
    return _functional(MaxPooling1D, inputs, pool_size, strides, padding, data_format, name)


def average_pooling1d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """Functional interface of `AveragePooling1D`; returns the pooled tensor."""
    return _functional(AveragePooling1D, inputs, pool_size, strides, padding, data_format, name)


def max_pooling2d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """Functional interface of `MaxPooling2D`; returns the pooled tensor."""
    return _functional(MaxPooling2D, inputs, pool_size, strides, padding, data_format, name)


def average_pooling2d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """Functional interface of `AveragePooling2D`; returns the pooled tensor."""
    return _functional(AveragePooling2D, inputs, pool_size, strides, padding, data_format, name)


def max_pooling3d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """Functional interface of `MaxPooling3D`; returns the pooled tensor."""
    return _functional(MaxPooling3D, inputs, pool_size, strides, padding, data_format, name)


def average_pooling3d(
    inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None
):
    """Functional interface of `AveragePooling3D`; returns the pooled tensor."""
    return _functional(AveragePooling3D, inputs, pool_size, strides, padding, data_format, name)


# TF's aliases (`tensorflow/python/layers/pooling.py`).
AvgPool2D = AveragePooling2D
MaxPool2D = MaxPooling2D
max_pool2d = max_pooling2d
avg_pool2d = average_pooling2d
AvgPool3D = AveragePooling3D
MaxPool3D = MaxPooling3D
max_pool3d = max_pooling3d
avg_pool3d = average_pooling3d
