"""Partitioners for `get_variable(partitioner=...)` and `create_partitioned_variables`.

A port of TF's `python/ops/partitioned_variables.py`. A partitioner maps a fully
defined `TensorShape` and a dtype to the number of parts along each axis (at most
one axis above 1); `get_variable` then makes one variable per part,
`<name>/part_<i>`, and returns a `PartitionedVariable`.
"""

from __future__ import annotations

import math

from ..framework import dtypes, tensor_shape
from . import variable_scope

__all__ = [
    "create_partitioned_variables",
    "fixed_size_partitioner",
    "min_max_variable_partitioner",
    "variable_axis_size_partitioner",
]


def variable_axis_size_partitioner(
    max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None
):
    """A partitioner that keeps each shard below `max_shard_bytes` along `axis`.

    When one slice along `axis` is already larger, every slice becomes a shard;
    `max_shards` caps the count (shards may then exceed `max_shard_bytes`).

    Args:
        max_shard_bytes: The largest size of a shard, in bytes.
        axis: The axis to partition along.
        bytes_per_string_element: The size assumed for one string element.
        max_shards: The most shards, or None for no limit.

    Returns:
        A partitioner for `get_variable` and `variable_scope`.

    Raises:
        ValueError: If a byte count or `max_shards` is not positive.
    """
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(
            "Both max_shard_bytes and bytes_per_string_element must be positive. "
            f"Currently, max_shard_bytes is {max_shard_bytes} and"
            f"bytes_per_string_element is {bytes_per_string_element}"
        )
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, tensor_shape.TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        dtype = dtypes.as_dtype(dtype)
        if dtype.base_dtype == dtypes.string:
            element_size = bytes_per_string_element
        else:
            element_size = dtype.size
        dims = shape.as_list()
        partitions = [1] * len(dims)
        bytes_per_slice = 1.0 * (shape.num_elements() / dims[axis]) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = math.ceil(1.0 * dims[axis] / slices_per_shard)
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(
    max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16
):
    """A partitioner into parts of at least `min_slice_size` bytes, at most `max_partitions`.

    The parts are cut along `axis`.

    Args:
        max_partitions: The most parts.
        axis: The axis to partition along.
        min_slice_size: The least bytes per part (256 KiB by default).
        bytes_per_string_element: The size assumed for one string element.

    Returns:
        A partitioner for `get_variable` and `variable_scope`; it raises
        `ValueError` for a variable without `axis`.
    """

    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(
                f"Cannot partition variable along axis {axis} when shape is only {shape}"
            )
        dtype = dtypes.as_dtype(dtype)
        if dtype.base_dtype == dtypes.string:
            bytes_per_element = bytes_per_string_element
        else:
            bytes_per_element = dtype.size
        total_size_bytes = shape.num_elements() * bytes_per_element
        partitions = total_size_bytes / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(
            1, min(shape.dims[axis].value, max_partitions, math.ceil(partitions))
        )
        return partitions_list

    return _partitioner


def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner into `num_shards` parts along `axis` (fewer if the axis is shorter).

    Args:
        num_shards: The number of parts.
        axis: The axis to partition along.

    Returns:
        A partitioner for `get_variable` and `variable_scope`.
    """

    def _partitioner(shape, **unused_args):
        partitions_list = [1] * len(shape)
        partitions_list[axis] = min(num_shards, shape.dims[axis].value)
        return partitions_list

    return _partitioner


def create_partitioned_variables(
    shape,
    slicing,
    initializer,
    dtype=dtypes.float32,
    trainable=True,
    collections=None,
    name=None,
    reuse=None,
):
    """Deprecated: variables for the parts of `shape` cut as `slicing` says.

    Use `get_variable` with a partitioner instead.

    Args:
        shape: The full shape, a list of ints.
        slicing: The number of parts per dimension (one above 1 at most).
        initializer: A Tensor of `shape` or an initializer (called per part).
        dtype: The dtype (ignored for a Tensor initializer).
        trainable: Add the parts to `TRAINABLE_VARIABLES`.
        collections: Collections of the parts (default `[GLOBAL_VARIABLES]`).
        name: The full variable's name (default `"PartitionedVariable"`, made unique).
        reuse: Reuse existing parts (as `variable_scope`'s `reuse`).

    Returns:
        The list of part variables.

    Raises:
        ValueError: If `shape` and `slicing` differ in length or `shape` is a scalar.
    """
    if len(shape) != len(slicing):
        raise ValueError(
            "The 'shape' and 'slicing' of a partitioned Variable "
            f"must have the length: shape: {shape}, slicing: {slicing}"
        )
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    partitioner = lambda **unused_kwargs: slicing  # noqa: E731
    with variable_scope.variable_scope(name, "PartitionedVariable", reuse=reuse):
        partitioned_var = variable_scope._get_partitioned_variable(
            name=None,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            trainable=trainable,
            partitioner=partitioner,
            collections=collections,
        )
        return list(partitioned_var)
