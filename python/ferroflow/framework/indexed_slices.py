"""`tf.IndexedSlices`: a sparse representation of rows of a dense tensor.

Gradients of `gather`/`embedding_lookup` are IndexedSlices, so optimizers can update
only the touched rows; converting one to a tensor sums its rows into a dense tensor
(a conversion that math_ops registers, as it makes the ops).
"""

from __future__ import annotations

import collections

IndexedSlicesValue = collections.namedtuple(
    "IndexedSlicesValue", ["values", "indices", "dense_shape"]
)
IndexedSlicesValue.__doc__ = "The value of an `IndexedSlices` fetched by `Session.run`."


class IndexedSlices:
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

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{shape})"
