"""`tf.layers` pooling: max and average pooling in 1-D and 2-D, channels-last.

The 1-D forms add a unit axis after the width, pool in 2-D and squeeze it (as TF).
"""

from __future__ import annotations

from ..framework import tensor_shape
from ..ops import array_ops, conv_ops
from .base import (
    InputSpec,
    Layer,
    _as_shape,
    _normalize_data_format,
    _normalize_padding,
    _normalize_tuple,
)
from .convolutional import _conv_output_length


class _Pooling(Layer):
    """Pooling layer base: `rank` spatial dimensions, `pool` = `max_pool`/`avg_pool`."""

    _rank = 2
    _pool = staticmethod(conv_ops.max_pool)

    def __init__(
        self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs
    ):
        super().__init__(name=name, **kwargs)
        rank = self._rank
        self.pool_size = _normalize_tuple(pool_size, rank, "pool_size")
        self.strides = _normalize_tuple(
            self.pool_size if strides is None else strides, rank, "strides"
        )
        self.padding = _normalize_padding(padding)
        self.data_format = _normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs):
        """The pooled inputs."""
        if self._rank == 1:
            expanded = array_ops.expand_dims(inputs, 2)
            pooled = self._pool(
                expanded,
                [1, self.pool_size[0], 1, 1],
                [1, self.strides[0], 1, 1],
                self.padding.upper(),
            )
            return array_ops.squeeze(pooled, [2])
        return self._pool(
            inputs, [1, *self.pool_size, 1], [1, *self.strides, 1], self.padding.upper()
        )

    def compute_output_shape(self, input_shape):
        """The shape of the output for an input of `input_shape`."""
        dims = _as_shape(input_shape).as_list()
        spatial = [
            _conv_output_length(d, k, self.padding, s)
            for d, k, s in zip(dims[1:-1], self.pool_size, self.strides, strict=True)
        ]
        return tensor_shape.TensorShape([dims[0], *spatial, dims[-1]])


class MaxPooling1D(_Pooling):
    """Max pooling over the width of `[batch, width, channels]`.

    Args:
        pool_size: An int or a 1-tuple: the window width.
        strides: An int or a 1-tuple: the window step.
        padding: `"valid"` or `"same"` (case-insensitive).
        data_format: `"channels_last"`.
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
        data_format: `"channels_last"`.
        name: Name of the layer.
    """

    _rank = 2
    _pool = staticmethod(conv_ops.max_pool)


class AveragePooling2D(_Pooling):
    """Average pooling over `[batch, height, width, channels]` (args as `MaxPooling2D`)."""

    _rank = 2
    _pool = staticmethod(conv_ops.avg_pool)


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
