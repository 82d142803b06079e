"""The feature columns of `tf.feature_column` (TF-1.x's API, TF 1.15's column classes).

Each constructor checks its arguments as TensorFlow's does and returns a column
(a namedtuple: equal columns compare and hash alike, and are read by attribute:
`col.key`, `col.vocabulary_file`, `col.num_buckets`, ...). The columns implement
the v1 interface `input_layer` and `linear_model` call: `_transform_feature`,
`_get_dense_tensor`, `_get_sparse_tensors`, `_variable_shape`, `_num_buckets`,
`_parse_example_spec`.
"""

from __future__ import annotations

import collections
import logging
import math

import numpy as np

from ..framework import dtypes, ops, tensor_shape
from ..framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from ..ops import (
    array_ops,
    indexing_ops,
    init_ops,
    lookup_ops,
    math_ops,
    parsing_ops,
    sparse_ops,
    string_ops,
    variable_scope,
)
from ..ops.embedding_ops import embedding_lookup_sparse, safe_embedding_lookup_sparse
from ..ops.variables import PartitionedVariable
from ..platform import gfile
from ..train import checkpoint_utils
from .feature_column import (
    _CategoricalColumn,
    _check_shape,
    _DenseColumn,
    _FeatureColumn,
    _sparse_cast,
    _to_sparse_input_and_drop_ignore_values,
)

__all__ = [
    "bucketized_column",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list",
    "crossed_column",
    "embedding_column",
    "indicator_column",
    "numeric_column",
    "shared_embedding_columns",
    "weighted_categorical_column",
]

_log = logging.getLogger(__name__)

# TF's `sparse_ops._DEFAULT_HASH_KEY`, the crossing's default fingerprint seed.
_DEFAULT_HASH_KEY = 0xDECAFCAFFE


# -- argument checks (TF's `feature_column/utils.py`) ----------------------------------
def _assert_string_or_int(dtype, prefix) -> None:
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def _assert_key_is_string(key) -> None:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def _is_nested(x) -> bool:
    return isinstance(x, (list, tuple))


def _flatten(x) -> list:
    return [y for v in x for y in _flatten(v)] if _is_nested(x) else [x]


def _create_tuple(shape, value):
    if shape:
        return tuple(_create_tuple(shape[1:], value) for _ in range(shape[0]))
    return value


def _as_tuple(value):
    return tuple(_as_tuple(v) for v in value) if _is_nested(value) else value


def _is_shape_and_default_value_compatible(default_value, shape) -> bool:
    if _is_nested(default_value) != bool(shape):
        return False
    if not shape:
        return True
    if len(default_value) != shape[0]:
        return False
    return all(
        _is_shape_and_default_value_compatible(default_value[i], shape[1:]) for i in range(shape[0])
    )


def _check_default_value(shape, default_value, dtype, key):
    """`default_value` as a (nested) tuple of `shape`, checked against `dtype`.

    Raises:
        ValueError: Its shape is not `shape`.
        TypeError: Its values do not suit `dtype`.
    """
    if default_value is None:
        return None
    if isinstance(default_value, int):
        return _create_tuple(shape, default_value)
    if isinstance(default_value, float) and dtype.is_floating:
        return _create_tuple(shape, default_value)
    if callable(getattr(default_value, "tolist", None)):  # numpy arrays
        default_value = default_value.tolist()
    if _is_nested(default_value):
        if not _is_shape_and_default_value_compatible(default_value, shape):
            raise ValueError(
                "The shape of default_value must be equal to given shape. default_value: "
                f"{default_value}, shape: {shape}, key: {key}"
            )
        flat = _flatten(default_value)
        if all(isinstance(v, int) for v in flat):
            return _as_tuple(default_value)
        if any(isinstance(v, float) for v in flat) and dtype.is_floating:
            return _as_tuple(default_value)
    raise TypeError(
        "default_value must be compatible with dtype. default_value: "
        f"{default_value}, dtype: {dtype}, key: {key}"
    )


# -- ops the columns build -------------------------------------------------------------
def _bucketize(input_tensor, boundaries, name=None):
    """TF's `Bucketize`: the int32 index of each value's bucket among sorted `boundaries`.

    Bucket `i` holds `boundaries[i-1] <= x < boundaries[i]`. Departure: ferroflow has
    no `Bucketize` kernel, so it is built as the count of boundaries `b` with
    `not x < b` (the kernel's `upper_bound`, NaN included), the boundaries taken as
    float32 as the op's attr holds them.
    """
    with ops.name_scope(name, "Bucketize", [input_tensor]) as scope:
        x = ops.convert_to_tensor(input_tensor, name="input")
        bounds = np.asarray(boundaries, dtype=np.float32)
        if x.dtype.base_dtype == dtypes.float64:
            bounds = bounds.astype(np.float64)
        elif x.dtype.base_dtype != dtypes.float32:
            x = array_ops.cast(x, dtypes.float32)
        below = math_ops.less(array_ops.expand_dims(x, -1), bounds)
        return math_ops.reduce_sum(
            array_ops.cast(math_ops.logical_not(below), dtypes.int32), axis=-1, name=scope
        )


def _scatter_nd_sum(indices, values, dense_shape):
    """TF's `scatter_nd` into a 2-D `dense_shape`: duplicate indices are summed.

    Departure: ferroflow has no `ScatterNd` kernel; this is `unsorted_segment_sum` over
    the row-major positions.
    """
    dense_shape = array_ops.cast(dense_shape, dtypes.int64)
    positions = indices[:, 0] * dense_shape[1] + indices[:, 1]
    flat = math_ops.unsorted_segment_sum(values, positions, dense_shape[0] * dense_shape[1])
    return array_ops.reshape(flat, dense_shape)


def _sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """TF's `sparse_cross_hashed` (seeded with the columns' default key)."""
    return sparse_ops.sparse_cross_hashed(
        inputs,
        num_buckets=num_buckets,
        hash_key=_DEFAULT_HASH_KEY if hash_key is None else hash_key,
        name=name,
    )


# -- dense columns ---------------------------------------------------------------------
class NumericColumn(
    _DenseColumn,
    collections.namedtuple(
        "NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"]
    ),
):
    """A real-valued feature (see `numeric_column`)."""

    @property
    def name(self):
        """The feature key."""
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_ops.FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs):
        input_tensor = inputs.get(self.key)
        if isinstance(input_tensor, SparseTensor):
            raise ValueError(
                "The corresponding Tensor of numerical column must be a Tensor. SparseTensor "
                f"is not supported. key: {self.key}"
            )
        if self.normalizer_fn is not None:
            input_tensor = self.normalizer_fn(input_tensor)
        return array_ops.cast(input_tensor, dtypes.float32)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        del weight_collections, trainable  # no variables
        return inputs.get(self)


class BucketizedColumn(
    _DenseColumn,
    _CategoricalColumn,
    collections.namedtuple("BucketizedColumn", ["source_column", "boundaries"]),
):
    """A numeric feature discretized by boundaries (see `bucketized_column`)."""

    @property
    def name(self):
        """`<source column>_bucketized`."""
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self):
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs):
        return _bucketize(inputs.get(self.source_column), boundaries=self.boundaries)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape((*self.source_column.shape, len(self.boundaries) + 1))

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        del weight_collections, trainable
        return indexing_ops.one_hot(
            indices=array_ops.cast(inputs.get(self), dtypes.int64),
            depth=len(self.boundaries) + 1,
            on_value=1.0,
            off_value=0.0,
        )

    @property
    def _num_buckets(self):
        # The source column is one-dimensional: each of its elements has its buckets.
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        input_tensor = inputs.get(self)
        batch_size = array_ops.shape(input_tensor)[0]
        source_dimension = self.source_column.shape[0]
        i1 = array_ops.reshape(
            indexing_ops.tile(
                array_ops.expand_dims(math_ops.range(0, batch_size), 1), [1, source_dimension]
            ),
            (-1,),
        )
        i2 = indexing_ops.tile(math_ops.range(0, source_dimension), [batch_size])
        # Element k of the source's buckets are ids k*(n+1) .. k*(n+1)+n.
        bucket_indices = array_ops.reshape(input_tensor, (-1,)) + (len(self.boundaries) + 1) * i2
        indices = array_ops.cast(array_ops.transpose(array_ops.stack((i1, i2))), dtypes.int64)
        dense_shape = array_ops.cast(array_ops.stack([batch_size, source_dimension]), dtypes.int64)
        sparse_tensor = SparseTensor(
            indices=indices, values=bucket_indices, dense_shape=dense_shape
        )
        return _CategoricalColumn.IdWeightPair(sparse_tensor, None)


def _lookup_sparse(embedding_weights, sparse_tensors, column):
    """The combined embeddings of a categorical column's ids (for the embedding columns)."""
    sparse_ids = sparse_tensors.id_tensor
    sparse_weights = sparse_tensors.weight_tensor
    if column.ckpt_to_load_from is not None:
        to_restore = embedding_weights
        if isinstance(to_restore, PartitionedVariable):
            to_restore = to_restore._get_variable_list()
        checkpoint_utils.init_from_checkpoint(
            column.ckpt_to_load_from, {column.tensor_name_in_ckpt: to_restore}
        )
    sparse_id_rank = tensor_shape.dimension_value(sparse_ids.dense_shape.get_shape()[0])
    if not column.use_safe_embedding_lookup and sparse_id_rank is not None and sparse_id_rank <= 2:
        return embedding_lookup_sparse(
            embedding_weights,
            sparse_ids,
            sparse_weights,
            partition_strategy="div",
            combiner=column.combiner,
            name=f"{column.name}_weights",
            max_norm=column.max_norm,
        )
    return safe_embedding_lookup_sparse(
        embedding_weights,
        sparse_ids,
        sparse_weights,
        combiner=column.combiner,
        name=f"{column.name}_weights",
        max_norm=column.max_norm,
    )


class EmbeddingColumn(
    _DenseColumn,
    collections.namedtuple(
        "EmbeddingColumn",
        (
            "categorical_column",
            "dimension",
            "combiner",
            "initializer",
            "ckpt_to_load_from",
            "tensor_name_in_ckpt",
            "max_norm",
            "trainable",
            "use_safe_embedding_lookup",
        ),
    ),
):
    """Dense embeddings of a categorical column (see `embedding_column`)."""

    @property
    def name(self):
        """`<categorical column>_embedding`."""
        return f"{self.categorical_column.name}_embedding"

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape([self.dimension])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        sparse_tensors = self.categorical_column._get_sparse_tensors(
            inputs, weight_collections=weight_collections, trainable=trainable
        )
        embedding_shape = (self.categorical_column._num_buckets, self.dimension)
        if weight_collections and ops.GraphKeys.GLOBAL_VARIABLES not in weight_collections:
            weight_collections.append(ops.GraphKeys.GLOBAL_VARIABLES)
        embedding_weights = variable_scope.get_variable(
            name="embedding_weights",
            shape=embedding_shape,
            dtype=dtypes.float32,
            initializer=self.initializer,
            trainable=self.trainable and trainable,
            collections=weight_collections,
        )
        return _lookup_sparse(embedding_weights, sparse_tensors, self)


class SharedEmbeddingColumn(
    _DenseColumn,
    collections.namedtuple(
        "SharedEmbeddingColumn",
        (
            "categorical_column",
            "dimension",
            "combiner",
            "initializer",
            "shared_embedding_collection_name",
            "ckpt_to_load_from",
            "tensor_name_in_ckpt",
            "max_norm",
            "trainable",
            "use_safe_embedding_lookup",
        ),
    ),
):
    """An embedding column whose table other columns share (see `shared_embedding_columns`).

    The table is the one variable of the graph collection
    `shared_embedding_collection_name`, created by the first column that needs it.
    """

    @property
    def name(self):
        """`<categorical column>_shared_embedding`."""
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self):
        return self.shared_embedding_collection_name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape([self.dimension])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        # The variable scope is shared; a name scope keeps the columns' ops apart.
        with ops.name_scope(None, default_name=self.name):
            sparse_tensors = self.categorical_column._get_sparse_tensors(
                inputs, weight_collections=weight_collections, trainable=trainable
            )
            embedding_shape = (self.categorical_column._num_buckets, self.dimension)
            shared = ops.get_collection(self.shared_embedding_collection_name)
            if shared:
                if len(shared) > 1:
                    raise ValueError(
                        f"Collection {shared} can only contain one variable. Suggested fix A: "
                        "Choose a unique name for this collection. Suggested fix B: Do not add "
                        "any variables to this collection. The feature_column library already "
                        "adds a variable under the hood."
                    )
                embedding_weights = shared[0]
                if embedding_weights.get_shape() != tensor_shape.TensorShape(embedding_shape):
                    raise ValueError(
                        f"Shared embedding collection {self.shared_embedding_collection_name} "
                        f"contains variable {embedding_weights.name} of unexpected shape "
                        f"{embedding_weights.get_shape()}. Expected shape is {embedding_shape}. "
                        "Suggested fix A: Choose a unique name for this collection. Suggested "
                        "fix B: Do not add any variables to this collection. The "
                        "feature_column library already adds a variable under the hood."
                    )
            else:
                embedding_weights = variable_scope.get_variable(
                    name="embedding_weights",
                    shape=embedding_shape,
                    dtype=dtypes.float32,
                    initializer=self.initializer,
                    trainable=self.trainable and trainable,
                    collections=weight_collections,
                )
                ops.add_to_collection(self.shared_embedding_collection_name, embedding_weights)
            return _lookup_sparse(embedding_weights, sparse_tensors, self)


class IndicatorColumn(
    _DenseColumn, collections.namedtuple("IndicatorColumn", ["categorical_column"])
):
    """The multi-hot (or weighted) representation of a categorical column."""

    @property
    def name(self):
        """`<categorical column>_indicator`."""
        return f"{self.categorical_column.name}_indicator"

    def _transform_feature(self, inputs):
        id_weight_pair = self.categorical_column._get_sparse_tensors(inputs)
        id_tensor = id_weight_pair.id_tensor
        weight_tensor = id_weight_pair.weight_tensor
        depth = self._variable_shape[-1]
        if weight_tensor is not None:
            # A weighted column: each id's weights summed into its position.
            weighted_column = sparse_ops.sparse_merge(
                sp_ids=id_tensor, sp_values=weight_tensor, vocab_size=int(depth)
            )
            # Out-of-range (negative) ids are dropped.
            weighted_column = sparse_ops.sparse_slice(
                weighted_column, [0, 0], weighted_column.dense_shape
            )
            dense = _scatter_nd_sum(
                weighted_column.indices, weighted_column.values, weighted_column.dense_shape
            )
            # `[batch of the ids, depth]`, as TF's shape inference finds it.
            ids_shape = id_tensor.get_shape()
            batch = ids_shape.dims[0] if ids_shape.dims else None
            dense.set_shape([batch, int(depth)])
            return dense
        dense_id_tensor = sparse_ops.sparse_tensor_to_dense(id_tensor, default_value=-1)
        one_hot_id_tensor = indexing_ops.one_hot(
            dense_id_tensor, depth=depth, on_value=1.0, off_value=0.0
        )
        return math_ops.reduce_sum(one_hot_id_tensor, axis=[-2])

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape([1, self.categorical_column._num_buckets])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        del weight_collections, trainable  # no variables
        return inputs.get(self)


# -- categorical columns ---------------------------------------------------------------
def _check_input_dtype(column, input_tensor) -> None:
    if column.dtype.is_integer != input_tensor.dtype.is_integer:
        raise ValueError(
            "Column dtype and SparseTensors dtype must be compatible. key: "
            f"{column.key}, column dtype: {column.dtype}, tensor dtype: {input_tensor.dtype}"
        )
    _assert_string_or_int(input_tensor.dtype, prefix=f"column_name: {column.key} input_tensor")


class HashedCategoricalColumn(
    _CategoricalColumn,
    collections.namedtuple("HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"]),
):
    """Ids by hashing (see `categorical_column_with_hash_bucket`)."""

    @property
    def name(self):
        """The feature key."""
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not isinstance(input_tensor, SparseTensor):
            raise ValueError("SparseColumn input must be a SparseTensor.")
        _assert_string_or_int(input_tensor.dtype, prefix=f"column_name: {self.key} input_tensor")
        if self.dtype.is_integer != input_tensor.dtype.is_integer:
            raise ValueError(
                "Column dtype and SparseTensors dtype must be compatible. key: "
                f"{self.key}, column dtype: {self.dtype}, tensor dtype: {input_tensor.dtype}"
            )
        if self.dtype == dtypes.string:
            sparse_values = input_tensor.values
        else:
            sparse_values = string_ops.as_string(input_tensor.values)
        sparse_id_values = string_ops.string_to_hash_bucket_fast(
            sparse_values, self.hash_bucket_size, name="lookup"
        )
        return SparseTensor(input_tensor.indices, sparse_id_values, input_tensor.dense_shape)

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


class VocabularyFileCategoricalColumn(
    _CategoricalColumn,
    collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype", "default_value"),
    ),
):
    """Ids from a vocabulary file (see `categorical_column_with_vocabulary_file`)."""

    @property
    def name(self):
        """The feature key."""
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        _check_input_dtype(self, input_tensor)
        key_dtype = self.dtype
        if input_tensor.dtype.is_integer:
            # The table's integer keys are int64.
            key_dtype = dtypes.int64
            input_tensor = _sparse_cast(input_tensor, dtypes.int64)
        table = lookup_ops.index_table_from_file(
            vocabulary_file=self.vocabulary_file,
            num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size,
            default_value=self.default_value,
            key_dtype=key_dtype,
            name=f"{self.key}_lookup",
        )
        return table.lookup(input_tensor)

    @property
    def _num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


class VocabularyListCategoricalColumn(
    _CategoricalColumn,
    collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"),
    ),
):
    """Ids from an in-memory vocabulary (see `categorical_column_with_vocabulary_list`)."""

    @property
    def name(self):
        """The feature key."""
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        _check_input_dtype(self, input_tensor)
        key_dtype = self.dtype
        if input_tensor.dtype.is_integer:
            key_dtype = dtypes.int64
            input_tensor = _sparse_cast(input_tensor, dtypes.int64)
        table = lookup_ops.index_table_from_tensor(
            vocabulary_list=tuple(self.vocabulary_list),
            default_value=self.default_value,
            num_oov_buckets=self.num_oov_buckets,
            dtype=key_dtype,
            name=f"{self.key}_lookup",
        )
        return table.lookup(input_tensor)

    @property
    def _num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


class IdentityCategoricalColumn(
    _CategoricalColumn,
    collections.namedtuple("IdentityCategoricalColumn", ("key", "number_buckets", "default_value")),
):
    """Integer features used as ids (see `categorical_column_with_identity`)."""

    @property
    def name(self):
        """The feature key."""
        return self.key

    @property
    def num_buckets(self):
        """The number of ids, `[0, num_buckets)`."""
        return self.number_buckets

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_ops.VarLenFeature(dtypes.int64)}

    def _transform_feature(self, inputs):
        input_tensor = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not input_tensor.dtype.is_integer:
            raise ValueError(
                f"Invalid input, not integer. key: {self.key} dtype: {input_tensor.dtype}"
            )
        values = input_tensor.values
        if values.dtype != dtypes.int64:
            values = array_ops.cast(values, dtypes.int64, name="values")
        if self.default_value is not None:
            num_buckets = array_ops.cast(self.num_buckets, dtypes.int64, name="num_buckets")
            zero = array_ops.cast(0, dtypes.int64, name="zero")
            # Out-of-range ids become the default.
            values = array_ops.where(
                math_ops.logical_or(values < zero, values >= num_buckets, name="out_of_range"),
                array_ops.fill(
                    dims=array_ops.shape(values),
                    value=array_ops.cast(self.default_value, dtypes.int64),
                    name="default_values",
                ),
                values,
            )
        return SparseTensor(
            indices=input_tensor.indices, values=values, dense_shape=input_tensor.dense_shape
        )

    @property
    def _num_buckets(self):
        return self.num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


class WeightedCategoricalColumn(
    _CategoricalColumn,
    collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype")
    ),
):
    """A categorical column with a weight per id (see `weighted_categorical_column`)."""

    @property
    def name(self):
        """`<categorical column>_weighted_by_<weight key>`."""
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self):
        config = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError(
                f"Parse config {config[self.weight_feature_key]} already exists for "
                f"{self.weight_feature_key}."
            )
        config[self.weight_feature_key] = parsing_ops.VarLenFeature(self.dtype)
        return config

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs):
        weight_tensor = inputs.get(self.weight_feature_key)
        if weight_tensor is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weight_tensor = convert_to_tensor_or_sparse_tensor(weight_tensor)
        if self.dtype != weight_tensor.dtype.base_dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weight_tensor.dtype}.")
        if not isinstance(weight_tensor, SparseTensor):
            # A dense weight tensor: its zeros are absent entries.
            weight_tensor = _to_sparse_input_and_drop_ignore_values(weight_tensor, ignore_value=0.0)
        if not weight_tensor.dtype.is_floating:
            weight_tensor = _sparse_cast(weight_tensor, dtypes.float32)
        return (inputs.get(self.categorical_column), weight_tensor)

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        del weight_collections, trainable
        tensors = inputs.get(self)
        return _CategoricalColumn.IdWeightPair(tensors[0], tensors[1])


class CrossedColumn(
    _CategoricalColumn,
    collections.namedtuple("CrossedColumn", ["keys", "hash_bucket_size", "hash_key"]),
):
    """Hashed crosses of categorical features (see `crossed_column`)."""

    @property
    def name(self):
        """The crossed keys' names, sorted, joined by `_X_`."""
        feature_names = []
        for key in _collect_leaf_level_keys(self):
            feature_names.append(key.name if isinstance(key, _FeatureColumn) else key)
        return "_X_".join(sorted(feature_names))

    @property
    def _parse_example_spec(self):
        config: dict = {}
        for key in self.keys:
            if isinstance(key, _FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config.update({key: parsing_ops.VarLenFeature(dtypes.string)})
        return config

    def _transform_feature(self, inputs):
        feature_tensors = []
        for key in _collect_leaf_level_keys(self):
            if isinstance(key, str):
                feature_tensors.append(inputs.get(key))
            elif isinstance(key, _CategoricalColumn):
                ids_and_weights = key._get_sparse_tensors(inputs)
                if ids_and_weights.weight_tensor is not None:
                    raise ValueError(
                        "crossed_column does not support weight_tensor, but the given column "
                        f"populates weight_tensor. Given column: {key.name}"
                    )
                feature_tensors.append(ids_and_weights.id_tensor)
            else:
                raise ValueError(f"Unsupported column type. Given: {key}")
        return _sparse_cross_hashed(
            feature_tensors, num_buckets=self.hash_bucket_size, hash_key=self.hash_key
        )

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


def _collect_leaf_level_keys(cross) -> list:
    """The keys of `cross`, nested crosses expanded."""
    leaf_level_keys = []
    for k in cross.keys:
        if isinstance(k, CrossedColumn):
            leaf_level_keys.extend(_collect_leaf_level_keys(k))
        else:
            leaf_level_keys.append(k)
    return leaf_level_keys


# -- constructors ----------------------------------------------------------------------
def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32, normalizer_fn=None):
    """A real-valued feature: the input tensor `[batch] + shape`, as float32.

    Example:
        ```python
        price = tf.feature_column.numeric_column("price")
        net = tf.feature_column.input_layer(features, [price])
        ```

    Args:
        key: The feature's key (and the column's name).
        shape: The shape of one example's value (an int or a sequence of ints).
        default_value: The value `tf.parse_example` gives a missing feature: one
            number, or nested sequences of `shape`; None makes the feature required.
        dtype: The feature's dtype, integer or floating.
        normalizer_fn: Applied to the input tensor before the cast to float32.

    Returns:
        A `NumericColumn`.

    Raises:
        TypeError: A dimension is not an int, `default_value` does not suit `dtype`,
            or `normalizer_fn` is not callable.
        ValueError: A dimension is below 1, `dtype` is not numeric, or
            `default_value` has another shape.
    """
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    _assert_key_is_string(key)
    return NumericColumn(
        key, shape=shape, default_value=default_value, dtype=dtype, normalizer_fn=normalizer_fn
    )


def bucketized_column(source_column, boundaries):
    """A numeric column discretized: bucket `i` holds `boundaries[i-1] <= x < boundaries[i]`.

    With `boundaries=[0., 1., 2.]` the buckets are `(-inf, 0)`, `[0, 1)`, `[1, 2)`,
    `[2, inf)`. As a dense column it is one-hot `[batch, dimension, buckets]`; as a
    categorical column, element `k` of the source has ids `k * (len + 1) + bucket`.

    Example:
        ```python
        age = tf.feature_column.numeric_column("age")
        age_buckets = tf.feature_column.bucketized_column(age, [18., 25., 40., 65.])
        logits = tf.feature_column.linear_model(features, [age_buckets])
        ```

    Args:
        source_column: A one-dimensional `numeric_column`.
        boundaries: Strictly increasing floats (a list or tuple).

    Returns:
        A `BucketizedColumn`.

    Raises:
        ValueError: `source_column` is not a 1-D numeric column, or the boundaries
            are empty, not a list or tuple, or not increasing.
    """
    if not isinstance(source_column, NumericColumn):
        raise ValueError(
            "source_column must be a column generated with numeric_column(). "
            f"Given: {source_column}"
        )
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids by hashing: `Fingerprint64(value) % hash_bucket_size` (ints hashed as text).

    A dense input's `""` (strings) or -1 (ints) cells are missing values.

    Example:
        ```python
        keywords = tf.feature_column.categorical_column_with_hash_bucket("keywords", 10000)
        logits = tf.feature_column.linear_model(features, [keywords])
        ```

    Args:
        key: The feature's key (and the column's name).
        hash_bucket_size: The number of buckets (>= 1).
        dtype: The feature's dtype: string or integer.

    Returns:
        A `HashedCategoricalColumn`.

    Raises:
        ValueError: `hash_bucket_size` is missing or below 1, or `dtype` is neither
            string nor integer.
    """
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(
            f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}"
        )
    _assert_key_is_string(key)
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


def categorical_column_with_vocabulary_file(
    key,
    vocabulary_file,
    vocabulary_size=None,
    num_oov_buckets=0,
    default_value=None,
    dtype=dtypes.string,
):
    """Ids from a vocabulary file: a value's id is its line number in the file.

    Values not in the vocabulary get `default_value` (-1: dropped by the models), or
    with `num_oov_buckets` an id in `[vocabulary_size, vocabulary_size +
    num_oov_buckets)` by hashing. The lookup table needs `tf.tables_initializer()`.

    Example:
        ```python
        states = tf.feature_column.categorical_column_with_vocabulary_file(
            "states", "/us/states.txt", vocabulary_size=50, num_oov_buckets=5)
        logits = tf.feature_column.linear_model(features, [states])
        ```

    Args:
        key: The feature's key (and the column's name).
        vocabulary_file: The vocabulary, one value a line.
        vocabulary_size: How many of its lines to use (default: all, counted now).
        num_oov_buckets: Hash buckets for values outside the vocabulary.
        default_value: The id of values outside the vocabulary (default -1); not with
            `num_oov_buckets`.
        dtype: The feature's dtype: string or integer.

    Returns:
        A `VocabularyFileCategoricalColumn`.

    Raises:
        ValueError: No file, a missing file when its size is needed, a size below 1,
            negative buckets, both `num_oov_buckets` and `default_value`, or a dtype
            neither string nor integer.
    """
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not gfile.Exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with gfile.GFile(vocabulary_file, mode="rb") as f:
            vocabulary_size = sum(1 for _ in f)
        _log.info(
            "vocabulary_size = %d in %s is inferred from the number of elements in the "
            "vocabulary_file %s.",
            vocabulary_size,
            key,
            vocabulary_file,
        )
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    _assert_key_is_string(key)
    return VocabularyFileCategoricalColumn(
        key=key,
        vocabulary_file=vocabulary_file,
        vocabulary_size=vocabulary_size,
        num_oov_buckets=0 if num_oov_buckets is None else num_oov_buckets,
        default_value=-1 if default_value is None else default_value,
        dtype=dtype,
    )


def categorical_column_with_vocabulary_list(
    key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0
):
    """Ids from an in-memory vocabulary: a value's id is its index in `vocabulary_list`.

    Values not in the vocabulary get `default_value` (-1: dropped by the models), or
    with `num_oov_buckets` a hashed id after the vocabulary's. The lookup table needs
    `tf.tables_initializer()`.

    Example:
        ```python
        colors = tf.feature_column.categorical_column_with_vocabulary_list(
            "colors", ["R", "G", "B"], num_oov_buckets=2)
        ```

    Args:
        key: The feature's key (and the column's name).
        vocabulary_list: The distinct values (strings or ints).
        dtype: The feature's dtype (default: the vocabulary's).
        default_value: The id of values outside the vocabulary; not with
            `num_oov_buckets`.
        num_oov_buckets: Hash buckets for values outside the vocabulary.

    Returns:
        A `VocabularyListCategoricalColumn`.

    Raises:
        ValueError: An empty vocabulary or duplicates in it, negative buckets, both
            `num_oov_buckets` and `default_value`, or mismatched or unsupported dtypes.
    """
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    vocabulary_array = np.array(vocabulary_list)
    if vocabulary_array.dtype.kind in "US":
        vocabulary_dtype = dtypes.string
    else:
        vocabulary_dtype = dtypes.as_dtype(vocabulary_array.dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    _assert_string_or_int(vocabulary_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError(
                f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not match, "
                f"column_name: {key}"
            )
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    _assert_key_is_string(key)
    return VocabularyListCategoricalColumn(
        key=key,
        vocabulary_list=tuple(vocabulary_list),
        dtype=dtype,
        default_value=default_value,
        num_oov_buckets=num_oov_buckets,
    )


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer features used as ids directly, in `[0, num_buckets)`.

    Out-of-range values get `default_value`, or, without one, fail the lookup. A
    dense input's -1 cells are missing values.

    Example:
        ```python
        video_id = tf.feature_column.categorical_column_with_identity("video_id", 1000000)
        ```

    Args:
        key: The feature's key (and the column's name).
        num_buckets: The number of ids.
        default_value: The id of out-of-range values (in `[0, num_buckets)`), or None.

    Returns:
        An `IdentityCategoricalColumn`.

    Raises:
        ValueError: `num_buckets` below 1 or `default_value` out of range.
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(
            f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}"
        )
    _assert_key_is_string(key)
    return IdentityCategoricalColumn(
        key=key, number_buckets=num_buckets, default_value=default_value
    )


def indicator_column(categorical_column):
    """A categorical column as a dense multi-hot `[batch, num_buckets]` tensor.

    Repeated ids count (a 2 where an id appears twice); a weighted column gives the
    summed weights instead of counts.

    Example:
        ```python
        colors = tf.feature_column.categorical_column_with_vocabulary_list(
            "colors", ["R", "G", "B"])
        net = tf.feature_column.input_layer(
            features, [tf.feature_column.indicator_column(colors)])
        ```

    Raises:
        ValueError: `categorical_column` is not categorical.
    """
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(
            "Unsupported input type. Input must be a CategoricalColumn. "
            f"Given: {categorical_column}"
        )
    return IndicatorColumn(categorical_column)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """A categorical column whose ids carry the weights of another feature.

    The feature `weight_feature_key` has the ids' indices (a dense one's zeros are
    absent); `linear_model` and `embedding_column` then weigh each id by it.

    Example:
        ```python
        terms = tf.feature_column.categorical_column_with_hash_bucket("terms", 1000)
        weighted = tf.feature_column.weighted_categorical_column(terms, "frequencies")
        ```

    Raises:
        ValueError: `dtype` is not numeric.
    """
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(
        categorical_column=categorical_column, weight_feature_key=weight_feature_key, dtype=dtype
    )


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Hashed crosses of categorical features: one id per combination of their values.

    Needs the `SparseCross` kernel when the model is built.

    Example:
        ```python
        keywords_x_doc_terms = tf.feature_column.crossed_column(["keywords", "doc_terms"], 50000)
        ```

    Args:
        keys: Two or more feature keys (string features) or categorical columns (not
            hashed ones: cross their keys instead).
        hash_bucket_size: The number of buckets (>= 1).
        hash_key: The fingerprint seed (default TF's).

    Returns:
        A `CrossedColumn`.

    Raises:
        ValueError: Fewer than two keys, an unsupported key, or a bucket count below 1.
    """
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError(
                "Unsupported key type. All keys must be either string, or categorical column "
                f"except HashedCategoricalColumn. Given: {key}"
            )
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(
                "categorical_column_with_hash_bucket is not supported for crossing. Hashing "
                "before crossing will increase probability of collision. Instead, use the "
                f"feature name as a string. Given: {key}"
            )
    return CrossedColumn(keys=tuple(keys), hash_bucket_size=hash_bucket_size, hash_key=hash_key)


def _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt) -> None:
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError(
            "Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them."
        )


def embedding_column(
    categorical_column,
    dimension,
    combiner="mean",
    initializer=None,
    ckpt_to_load_from=None,
    tensor_name_in_ckpt=None,
    max_norm=None,
    trainable=True,
    use_safe_embedding_lookup=True,
):
    """Dense embeddings of a categorical column: a `[num_buckets, dimension]` table.

    Each example's ids are looked up and combined by `combiner`. The table is the
    variable `<scope>/<column name>/embedding_weights` (e.g.
    `input_layer/keywords_embedding/embedding_weights`).

    Example:
        ```python
        keywords = tf.feature_column.categorical_column_with_hash_bucket("keywords", 10000)
        emb = tf.feature_column.embedding_column(keywords, dimension=16)
        net = tf.feature_column.input_layer(features, [emb])
        ```

    Args:
        categorical_column: The column giving the ids.
        dimension: The embedding size (>= 1).
        combiner: `"mean"` (default), `"sqrtn"` or `"sum"`, over each example's ids.
        initializer: The table's initializer (default: truncated normal, stddev
            `1/sqrt(dimension)`).
        ckpt_to_load_from: A checkpoint to initialize the table from ...
        tensor_name_in_ckpt: ... and the tensor's name in it (both or neither).
        max_norm: Clip each embedding to this L2 norm.
        trainable: Whether the table is trainable.
        use_safe_embedding_lookup: Drop invalid ids and give empty rows zeros (as
            `tf.nn.safe_embedding_lookup_sparse`); False uses the plain lookup for
            2-D ids.

    Returns:
        An `EmbeddingColumn`.

    Raises:
        ValueError: `dimension` below 1, only one of the checkpoint arguments, or an
            initializer that is not callable.
    """
    _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt)
    if initializer is not None and not callable(initializer):
        raise ValueError(
            "initializer must be callable if specified. Embedding of column_name: "
            f"{categorical_column.name}"
        )
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(
            mean=0.0, stddev=1 / math.sqrt(dimension)
        )
    return EmbeddingColumn(
        categorical_column=categorical_column,
        dimension=dimension,
        combiner=combiner,
        initializer=initializer,
        ckpt_to_load_from=ckpt_to_load_from,
        tensor_name_in_ckpt=tensor_name_in_ckpt,
        max_norm=max_norm,
        trainable=trainable,
        use_safe_embedding_lookup=use_safe_embedding_lookup,
    )


def _unwrap(column):
    while isinstance(column, WeightedCategoricalColumn):
        column = column.categorical_column
    return column


def shared_embedding_columns(
    categorical_columns,
    dimension,
    combiner="mean",
    initializer=None,
    shared_embedding_collection_name=None,
    ckpt_to_load_from=None,
    tensor_name_in_ckpt=None,
    max_norm=None,
    trainable=True,
    use_safe_embedding_lookup=True,
):
    """Embedding columns over several categorical columns that share one table.

    The columns must be of one kind with one number of buckets. The table is created
    once, in the graph collection `shared_embedding_collection_name` (default: the
    columns' sorted names joined by `_`, then `_shared_embedding`), under a variable
    scope of that name.

    Example:
        ```python
        watched = tf.feature_column.categorical_column_with_identity("watched", 1000)
        impressed = tf.feature_column.categorical_column_with_identity("impressed", 1000)
        cols = tf.feature_column.shared_embedding_columns([watched, impressed], 16)
        net = tf.feature_column.input_layer(features, cols)
        ```

    Returns:
        A list of `SharedEmbeddingColumn`s, in the order of `categorical_columns`.

    Raises:
        ValueError: As `embedding_column`, or columns of different kinds or bucket
            counts.
    """
    _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt)
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(
            mean=0.0, stddev=1.0 / math.sqrt(dimension)
        )
    # Sorted, so that the default collection name does not depend on the order.
    sorted_columns = sorted(categorical_columns, key=lambda x: x.name)
    c0 = sorted_columns[0]
    num_buckets = c0._num_buckets
    if not isinstance(c0, _CategoricalColumn):
        raise ValueError(
            "All categorical_columns must be subclasses of _CategoricalColumn. Given: "
            f"{c0}, of type: {type(c0)}"
        )
    c0 = _unwrap(c0)
    for c in sorted_columns[1:]:
        c = _unwrap(c)
        if not isinstance(c, type(c0)):
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same "
                "type, or be weighted_categorical_column or sequence column of the same type. "
                f"Given column: {c0} of type: {type(c0)} does not match given column: {c} of "
                f"type: {type(c)}"
            )
        if num_buckets != c._num_buckets:
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same "
                f"number of buckets. ven column: {c0} with buckets: {num_buckets} does  not "
                f"match column: {c} with buckets: {c._num_buckets}"
            )
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in sorted_columns)
        shared_embedding_collection_name += "_shared_embedding"
    return [
        SharedEmbeddingColumn(
            categorical_column=column,
            initializer=initializer,
            dimension=dimension,
            combiner=combiner,
            shared_embedding_collection_name=shared_embedding_collection_name,
            ckpt_to_load_from=ckpt_to_load_from,
            tensor_name_in_ckpt=tensor_name_in_ckpt,
            max_norm=max_norm,
            trainable=trainable,
            use_safe_embedding_lookup=use_safe_embedding_lookup,
        )
        for column in categorical_columns
    ]
