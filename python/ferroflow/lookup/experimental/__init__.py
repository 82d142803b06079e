"""`tf.lookup.experimental`: the mutable tables."""

from ...ops.lookup_ops import DenseHashTable, MutableHashTable

__all__ = ["DenseHashTable", "MutableHashTable"]
