"""`tf.SparseTensor`: a tensor stored as its non-default elements.

A sparse tensor is three dense tensors: int64 `indices` `[N, rank]`, `values` `[N]`
and an int64 `dense_shape` `[rank]`. Sessions fetch one as a `SparseTensorValue` and
accept one (or an `(indices, values, dense_shape)` tuple) as the feed of a
`SparseTensor` key; the ops over them live in `ops/sparse_ops.py`.
"""

from __future__ import annotations

import collections

import numpy as np

from . import dtypes, ops, tensor_shape, tensor_util, type_spec
from .composite_tensor import CompositeTensor
from .tensor_spec import TensorSpec

SparseTensorValue = collections.namedtuple(
    "SparseTensorValue", ["indices", "values", "dense_shape"]
)
SparseTensorValue.__doc__ = "The value of a `SparseTensor` fetched by `Session.run`."


class SparseTensor(CompositeTensor):
    """A sparse tensor: `values[i]` at coordinate `indices[i]` of a `dense_shape` tensor.

    Example:
        ```python
        st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
        ```
    """

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A `SparseTensor` from a `SparseTensorValue` (a `SparseTensor` unchanged).

        Raises:
            TypeError: If the argument is neither.
        """
        if not is_sparse(sparse_tensor_value):
            raise TypeError(
                f"Argument sparse_tensor_value={sparse_tensor_value} is neither a "
                "SparseTensor nor SparseTensorValue."
            )
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return SparseTensor(
            indices=sparse_tensor_value.indices,
            values=sparse_tensor_value.values,
            dense_shape=sparse_tensor_value.dense_shape,
        )

    def __init__(self, indices, values, dense_shape):
        """Creates a `SparseTensor` from its three tensors (or values converting to them).

        Args:
            indices: A 2-D int64 tensor of shape `[N, ndims]`.
            values: A 1-D tensor of any type and shape `[N]`.
            dense_shape: A 1-D int64 tensor of shape `[ndims]`.

        Raises:
            ValueError: If the three shapes are incompatible.
        """
        with ops.name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = ops.convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = ops.convert_to_tensor(values, name="values")
            dense_shape = ops.convert_to_tensor(dense_shape, name="dense_shape", dtype=dtypes.int64)
            dense_shape_default = tensor_util.constant_value_as_shape(dense_shape)
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._dense_shape_default = dense_shape_default
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        dense_shape_shape = dense_shape.shape.with_rank(1)
        indices_shape.dims[0].assert_is_compatible_with(values_shape.dims[0])
        indices_shape.dims[1].assert_is_compatible_with(dense_shape_shape.dims[0])

    def get_shape(self) -> tensor_shape.TensorShape:
        """The static dense shape (what is known of `dense_shape`'s value)."""
        return self._dense_shape_default

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static dense shape."""
        return self._dense_shape_default

    def set_shape(self, shape) -> None:
        """Refines the static dense shape.

        Raises:
            ValueError: If `shape` is incompatible with the known dense shape.
        """
        self._dense_shape_default = self._dense_shape_default.merge_with(
            tensor_shape.as_shape(shape)
        )

    @property
    def indices(self):
        """The int64 `[N, rank]` coordinates of the values."""
        return self._indices

    @property
    def values(self):
        """The `[N]` values."""
        return self._values

    @property
    def dense_shape(self):
        """The int64 `[rank]` shape of the dense tensor this represents."""
        return self._dense_shape

    @property
    def dtype(self):
        """The element type of the values."""
        return self._values.dtype

    @property
    def op(self):
        """The op producing the values."""
        return self._values.op

    @property
    def graph(self):
        """The graph of the three tensors."""
        return self._indices.graph

    def eval(self, feed_dict=None, session=None):
        """Evaluates this sparse tensor in `session` (default: the default session).

        Returns:
            A `SparseTensorValue`.
        """
        if session is None:
            session = ops.get_default_session()
            if session is None:
                raise ValueError(
                    "Cannot evaluate tensor using `eval()`: No default session is registered. "
                    "Use `with sess.as_default()` or pass an explicit session to "
                    "`eval(session=sess)`"
                )
        return session.run(self, feed_dict)

    def consumers(self):
        """The ops consuming any of the three tensors."""
        seen = {}
        for t in (self._indices, self._values, self._dense_shape):
            for op in t.consumers():
                seen[op._id] = op
        return list(seen.values())

    @property
    def _type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)

    def _shape_invariant_to_type_spec(self, shape):
        """The spec a `while_loop` shape invariant gives (TF's).

        The invariant is the shape of `dense_shape`, `[rank]`: the loop keeps the rank
        and lets the number of values and the dense shape vary.

        Raises:
            ValueError: If `shape` is not of rank 1.
        """
        if shape.ndims is not None and shape.ndims != 1:
            raise ValueError(
                f"Expected a shape with 1 dimension. Obtained: {shape} which has "
                f"{shape.ndims} dimensions."
            )
        rank = tensor_shape.dimension_value(shape[0])
        return SparseTensorSpec(tensor_shape.unknown_shape(rank), self.dtype)

    def __repr__(self) -> str:
        return (
            f"SparseTensor(indices={self._indices}, values={self._values}, "
            f"dense_shape={self._dense_shape})"
        )

    def __str__(self) -> str:
        return self.__repr__()


class SparseTensorSpec(type_spec.BatchableTypeSpec):
    """The type of a `tf.SparseTensor`: its dense shape and the dtype of its values.

    Example:
        ```python
        spec = tf.SparseTensorSpec([None, 4], tf.float32)
        spec.is_compatible_with(tf.SparseTensor([[0, 1]], [1.0], [3, 4]))  # True
        ```
    """

    __slots__ = ("_dtype", "_shape")

    def __init__(self, shape=None, dtype=dtypes.float32):
        """Creates a `SparseTensorSpec`.

        Args:
            shape: The dense shape of the `SparseTensor`, or None for any.
            dtype: The `tf.DType` of its values.
        """
        self._shape = tensor_shape.as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def value_type(self):
        """`tf.SparseTensor`."""
        return SparseTensor

    @property
    def dtype(self):
        """The `tf.DType` of the values."""
        return self._dtype

    @property
    def shape(self):
        """The `tf.TensorShape` of the dense tensor."""
        return self._shape

    def _serialize(self):
        return (self._shape, self._dtype)

    @property
    def _component_specs(self):
        rank = self._shape.ndims
        return [
            TensorSpec([None, rank], dtypes.int64),
            TensorSpec([None], self._dtype),
            TensorSpec([rank], dtypes.int64),
        ]

    @property
    def _flat_tensor_specs(self):
        # As TF's: a `SparseTensor` travels boxed in one variant tensor (`(3,)` for
        # one, `(..., 3)` for a batch of them), so the flat shape is unknown.
        return [TensorSpec(None, dtypes.variant)]

    def _to_components(self, value):
        if isinstance(value, SparseTensorValue):
            value = SparseTensor.from_value(value)
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, tensor_list):
        if all(isinstance(t, np.ndarray) for t in tensor_list):
            return SparseTensorValue(*tensor_list)
        return SparseTensor(*tensor_list)

    def _batch(self, batch_size):
        return SparseTensorSpec(
            tensor_shape.TensorShape([batch_size]).concatenate(self._shape), self._dtype
        )

    def _unbatch(self):
        if self._shape.ndims == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return SparseTensorSpec(self._shape[1:], self._dtype)

    def _to_legacy_output_types(self):
        return self._dtype

    def _to_legacy_output_shapes(self):
        return self._shape

    def _to_legacy_output_classes(self):
        return SparseTensor

    @classmethod
    def from_value(cls, value):
        """The spec of a `SparseTensor` or `SparseTensorValue`.

        Raises:
            TypeError: If `value` is neither.
        """
        if isinstance(value, SparseTensor):
            return cls(value.shape, value.dtype)
        if isinstance(value, SparseTensorValue):
            if isinstance(value.values, np.ndarray):
                return cls(value.dense_shape, value.values.dtype)
            return cls.from_value(SparseTensor.from_value(value))
        raise TypeError("Expected SparseTensor or SparseTensorValue")


type_spec.register_type_spec_from_value_converter(SparseTensor, SparseTensorSpec.from_value)
type_spec.register_type_spec_from_value_converter(SparseTensorValue, SparseTensorSpec.from_value)


def is_sparse(x) -> bool:
    """Whether `x` is a `SparseTensor` or a `SparseTensorValue`."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """`value` as a `SparseTensor` when sparse, otherwise as a `Tensor`.

    Raises:
        RuntimeError: If a sparse `value`'s dtype differs from `dtype`.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtype.is_compatible_with(value.dtype):
            raise RuntimeError(
                f"Sparse dtype mismatch. Requested: {dtype.name},  Actual: {value.dtype.name}"
            )
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)
