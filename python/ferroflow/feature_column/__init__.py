"""`tf.feature_column`: TF-1.x's feature columns, `input_layer` and `linear_model`.

Feature columns describe how raw features (a `{key: Tensor or SparseTensor}` dict,
e.g. from `tf.parse_example(serialized, make_parse_example_spec(columns))`) become
model inputs::

    import ferroflow as tf

    price = tf.feature_column.numeric_column("price")
    price_buckets = tf.feature_column.bucketized_column(price, [10., 100., 1000.])
    keywords = tf.feature_column.categorical_column_with_hash_bucket("keywords", 10000)
    deep = tf.feature_column.input_layer(
        features, [price, tf.feature_column.embedding_column(keywords, 16)])
    wide = tf.feature_column.linear_model(features, [price_buckets, keywords])

Variables are named as TensorFlow names them, so checkpoints interchange.
"""

from .columns import (
    bucketized_column,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
    crossed_column,
    embedding_column,
    indicator_column,
    numeric_column,
    shared_embedding_columns,
    weighted_categorical_column,
)
from .feature_column import input_layer, linear_model, make_parse_example_spec

__all__ = [
    "bucketized_column",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list",
    "crossed_column",
    "embedding_column",
    "indicator_column",
    "input_layer",
    "linear_model",
    "make_parse_example_spec",
    "numeric_column",
    "shared_embedding_columns",
    "weighted_categorical_column",
]
