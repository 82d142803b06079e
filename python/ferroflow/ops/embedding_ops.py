"""Embedding lookups (TF's `embedding_ops.py`): `safe_embedding_lookup_sparse`.

`embedding_lookup` and `embedding_lookup_sparse` live in `nn_ops` and `sparse_ops`;
this module re-exports them beside `safe_embedding_lookup_sparse`, TF-1.x's lookup
over any-rank sparse ids that drops invalid ids and weights and gives empty rows a
zero (or `default_id`'s) embedding. It is what the feature columns use.
"""

from __future__ import annotations

from ..framework import dtypes, ops, tensor_shape
from ..framework.sparse_tensor import SparseTensor
from . import array_ops, indexing_ops, math_ops, sparse_ops
from .nn_ops import embedding_lookup
from .sparse_ops import embedding_lookup_sparse
from .variables import PartitionedVariable

__all__ = ["embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]


def _prune_invalid_ids(sparse_ids, sparse_weights):
    """Drops the ids below 0 (and their weights)."""
    is_id_valid = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        is_id_valid = math_ops.logical_and(
            is_id_valid, array_ops.ones_like(sparse_weights.values, dtype=dtypes.bool)
        )
    sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_id_valid)
    if sparse_weights is not None:
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_id_valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids, sparse_weights):
    """Drops the entries whose weight is not above 0."""
    if sparse_weights is not None:
        is_weights_valid = math_ops.greater(sparse_weights.values, 0)
        sparse_ids = sparse_ops.sparse_retain(sparse_ids, is_weights_valid)
        sparse_weights = sparse_ops.sparse_retain(sparse_weights, is_weights_valid)
    return sparse_ids, sparse_weights


def safe_embedding_lookup_sparse(
    embedding_weights,
    sparse_ids,
    sparse_weights=None,
    combiner="mean",
    default_id=None,
    name=None,
    partition_strategy="div",
    max_norm=None,
):
    """Combined embeddings of sparse ids of any rank, robust to invalid entries (TF-1.x).

    `sparse_ids` of dense shape `[d_0, ..., d_{n-1}, k]` is combined over its last
    dimension into a `[d_0, ..., d_{n-1}] + embedding_weights.shape[1:]` result. Ids
    below 0 are dropped, and (unless `combiner="sum"`) so are entries of weight
    `<= 0`. A row left empty gets the embedding of `default_id`, or zeros when
    `default_id` is None.

    Example:
        ```python
        ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 3, 0], tf.int64),
                              [3, 2])
        emb = tf.nn.safe_embedding_lookup_sparse(table, ids, combiner="sum")
        # rows: table[1] + table[3], zeros, table[0]
        ```

    Args:
        embedding_weights: The table: a variable or tensor, a list of its parts, or a
            `PartitionedVariable`.
        sparse_ids: `SparseTensor` of int64 ids.
        sparse_weights: `SparseTensor` of float weights with `sparse_ids`' indices, or
            None (all 1).
        combiner: `"mean"`, `"sqrtn"` or `"sum"`.
        default_id: The id whose embedding empty rows get (None: zeros).
        name: Name scope of the ops.
        partition_strategy: `"div"` or `"mod"`, for a table in several parts.
        max_norm: Clip each embedding to this L2 norm before combining.

    Returns:
        The dense combined embeddings.

    Raises:
        ValueError: `embedding_weights` is None or empty.
    """
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if isinstance(embedding_weights, PartitionedVariable):
        embedding_weights = list(embedding_weights)
    if not isinstance(embedding_weights, list):
        embedding_weights = [embedding_weights]
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [ops.convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    with ops.name_scope(
        name, "embedding_lookup", [*embedding_weights, sparse_ids, sparse_weights]
    ) as scope:
        # Ids of any rank are reshaped to 2-D: one row per combined embedding.
        original_static_shape = sparse_ids.get_shape()
        original_shape = sparse_ids.dense_shape
        original_rank_dim = tensor_shape.dimension_value(sparse_ids.dense_shape.get_shape()[0])
        original_rank = (
            array_ops.size(original_shape) if original_rank_dim is None else original_rank_dim
        )
        sparse_ids = sparse_ops.sparse_reshape(
            sparse_ids,
            [
                math_ops.reduce_prod(array_ops.slice(original_shape, [0], [original_rank - 1])),
                array_ops.gather(original_shape, original_rank - 1),
            ],
        )
        if sparse_weights is not None:
            sparse_weights = SparseTensor(
                sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape
            )
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = sparse_ops.sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights,
            sparse_ids,
            sparse_weights,
            combiner=combiner,
            partition_strategy=partition_strategy,
            name=None if default_id is None else scope,
            max_norm=max_norm,
        )
        if default_id is None:
            # Empty rows looked up id 0: zeroed.
            is_row_empty = indexing_ops.tile(
                array_ops.reshape(is_row_empty, [-1, 1]),
                array_ops.stack([1, array_ops.shape(result)[1]]),
            )
            result = array_ops.where(is_row_empty, array_ops.zeros_like(result), result, name=scope)
        final_result = array_ops.reshape(
            result,
            array_ops.concat(
                [
                    array_ops.slice(
                        array_ops.cast(original_shape, dtypes.int32), [0], [original_rank - 1]
                    ),
                    array_ops.slice(array_ops.shape(result), [1], [-1]),
                ],
                0,
            ),
        )
        outer = None if original_rank_dim is None else original_rank_dim - 1
        final_result.set_shape(
            tensor_shape.unknown_shape(outer).concatenate(result.get_shape()[1:])
        )
        if original_static_shape.ndims is not None:
            # The leading dimensions TF's `Reshape` shape inference finds in the ids'
            # static dense shape.
            final_result.set_shape(original_static_shape[:-1].concatenate(result.get_shape()[1:]))
        return final_result
