"""`tf.layers`: TF-1.x layers (functions and classes) over `tf.get_variable`."""

from .base import InputSpec, Layer
from .convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    SeparableConv1D,
    SeparableConv2D,
    conv1d,
    conv2d,
    conv2d_transpose,
    separable_conv1d,
    separable_conv2d,
)
from .core import Dense, Dropout, Flatten, dense, dropout, flatten
from .normalization import BatchNormalization, batch_normalization
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    MaxPooling1D,
    MaxPooling2D,
    average_pooling1d,
    average_pooling2d,
    max_pooling1d,
    max_pooling2d,
)

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "BatchNormalization",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Dense",
    "Dropout",
    "Flatten",
    "InputSpec",
    "Layer",
    "MaxPooling1D",
    "MaxPooling2D",
    "SeparableConv1D",
    "SeparableConv2D",
    "average_pooling1d",
    "average_pooling2d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "dense",
    "dropout",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
    "separable_conv1d",
    "separable_conv2d",
]
