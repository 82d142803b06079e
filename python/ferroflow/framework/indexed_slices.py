"""`tf.IndexedSlices`: a sparse representation of rows of a dense tensor.

Gradients of `gather`/`embedding_lookup` are IndexedSlices, so optimizers can update
only the touched rows; converting one to a tensor sums its rows into a dense tensor
(a conversion that math_ops registers, as it makes the ops).
"""

from __future__ import annotations

import collections

import numpy as np

from . import dtypes, tensor_shape, tensor_util, type_spec
from .composite_tensor import CompositeTensor
from .tensor_spec import TensorSpec

IndexedSlicesValue = collections.namedtuple(
    "IndexedSlicesValue", ["values", "indices", "dense_shape"]
)
IndexedSlicesValue.__doc__ = "The value of an `IndexedSlices` fetched by `Session.run`."


class IndexedSlices(CompositeTensor):
    """Rows `values[i]` of a dense tensor of shape `dense_shape` at row `indices[i]`.

    Attributes:
        values: The row values, shape `[len(indices)] + dense_shape[1:]`.
        indices: 1-D int tensor of row indices (may repeat).
        dense_shape: 1-D int tensor, the shape of the dense tensor (or None).
    """

    def __init__(self, values, indices, dense_shape=None):
        """Creates IndexedSlices from its three tensors."""
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self):
        """The row values."""
        return self._values

    @property
    def indices(self):
        """The row indices."""
        return self._indices

    @property
    def dense_shape(self):
        """The shape of the dense tensor these slices belong to."""
        return self._dense_shape

    @property
    def name(self) -> str:
        """The name of the values tensor."""
        return self._values.name

    @property
    def dtype(self):
        """The element type of the values."""
        return self._values.dtype

    @property
    def graph(self):
        """The graph of the values."""
        return self._values.graph

    @property
    def op(self):
        """The op producing the values."""
        return self._values.op

    @property
    def device(self) -> str:
        """The device of the values."""
        return self._values.device

    @property
    def _type_spec(self):
        indices_shape = self._indices.shape.merge_with(self._values.shape[:1])
        dense_shape = tensor_shape.TensorShape([None]).concatenate(self._values.shape[1:])
        if self._dense_shape is not None:
            dense_shape_dtype = self._dense_shape.dtype
            dense_shape = dense_shape.merge_with(
                tensor_util.constant_value_as_shape(self._dense_shape)
            )
        else:
            dense_shape_dtype = None
        return IndexedSlicesSpec(
            dense_shape, self.dtype, self._indices.dtype, dense_shape_dtype, indices_shape
        )

    def _shape_invariant_to_type_spec(self, shape):
        """The spec a `while_loop` shape invariant gives (TF's).

        The invariant is the shape of `values`: `indices` keeps its first dimension and
        `dense_shape` its rank.
        """
        indices_shape = shape[:1]
        dense_shape = tensor_shape.TensorShape([None]).concatenate(shape[1:])
        dense_shape_dtype = None if self._dense_shape is None else self._dense_shape.dtype
        return IndexedSlicesSpec(
            dense_shape, self.dtype, self._indices.dtype, dense_shape_dtype, indices_shape
        )

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"


class IndexedSlicesSpec(type_spec.TypeSpec):
    """The type of a `tf.IndexedSlices`: dense shape, dtypes and number of slices."""

    __slots__ = (
        "_dense_shape_dtype",
        "_indices_dtype",
        "_indices_shape",
        "_shape",
        "_values_dtype",
    )

    def __init__(
        self,
        shape=None,
        dtype=dtypes.float32,
        indices_dtype=dtypes.int64,
        dense_shape_dtype=None,
        indices_shape=None,
    ):
        """Creates an `IndexedSlicesSpec`.

        Args:
            shape: The dense shape of the `IndexedSlices`, or None for any.
            dtype: The `tf.DType` of its values.
            indices_dtype: The `tf.DType` of its indices (int32 or int64).
            dense_shape_dtype: The `tf.DType` of its `dense_shape`, or None when it has
                none.
            indices_shape: The shape of its indices (how many slices).
        """
        self._shape = tensor_shape.as_shape(shape)
        self._values_dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = (
            None if dense_shape_dtype is None else dtypes.as_dtype(dense_shape_dtype)
        )
        self._indices_shape = tensor_shape.as_shape(indices_shape).with_rank(1)

    @property
    def value_type(self):
        """`tf.IndexedSlices`."""
        return IndexedSlices

    def _serialize(self):
        return (
            self._shape,
            self._values_dtype,
            self._indices_dtype,
            self._dense_shape_dtype,
            self._indices_shape,
        )

    @property
    def _component_specs(self):
        value_shape = self._indices_shape.concatenate(self._shape[1:])
        specs = [
            TensorSpec(value_shape, self._values_dtype),
            TensorSpec(self._indices_shape, self._indices_dtype),
        ]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.ndims], self._dense_shape_dtype))
        return tuple(specs)

    def _to_components(self, value):
        if value.dense_shape is None:
            return (value.values, value.indices)
        return (value.values, value.indices, value.dense_shape)

    def _from_components(self, tensor_list):
        if all(isinstance(t, np.ndarray) for t in tensor_list):
            if len(tensor_list) == 2:
                return IndexedSlicesValue(tensor_list[0], tensor_list[1], None)
            return IndexedSlicesValue(*tensor_list)
        return IndexedSlices(*tensor_list)
