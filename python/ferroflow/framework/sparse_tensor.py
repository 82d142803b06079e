"""`tf.SparseTensor`: a tensor stored as its non-default elements.

A sparse tensor is three dense tensors: int64 `indices` `[N, rank]`, `values` `[N]`
and an int64 `dense_shape` `[rank]`. Sessions fetch one as a `SparseTensorValue` and
accept one (or an `(indices, values, dense_shape)` tuple) as the feed of a
`SparseTensor` key; the ops over them live in `ops/sparse_ops.py`.
"""

from __future__ import annotations

import collections

from . import dtypes, ops, tensor_shape, tensor_util

SparseTensorValue = collections.namedtuple(
    "SparseTensorValue", ["indices", "values", "dense_shape"]
)
SparseTensorValue.__doc__ = "The value of a `SparseTensor` fetched by `Session.run`."


class SparseTensor:
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

    def __repr__(self) -> str:
        return (
            f"SparseTensor(indices={self._indices}, values={self._values}, "
            f"dense_shape={self._dense_shape})"
        )

    def __str__(self) -> str:
        return self.__repr__()


def is_sparse(x) -> bool:
    """Whether `x` is a `SparseTensor` or a `SparseTensorValue`."""
    return isinstance(x, SparseTensor | SparseTensorValue)


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
