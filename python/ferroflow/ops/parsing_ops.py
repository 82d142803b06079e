"""Parsing of `tf.train.Example` records, and the feature configurations.

`tf.parse_example`, `tf.parse_single_example`; `tf.FixedLenFeature`,
`tf.VarLenFeature`, `tf.FixedLenSequenceFeature`.

Parsing is TensorFlow's `ParseExampleV2` op, built as TF builds it (keys sorted, a
`key_<name>` constant reshaped to the feature's shape for each default, an empty
constant for a required feature) and run natively: the serialized `tf.train.Example`
protos are decoded in Rust (prost), never in Python.

A `VarLenFeature` comes back as a `tf.SparseTensor` where that class exists; until
then as a `(indices, values, dense_shape)` triple of TF's op outputs.
"""

from __future__ import annotations

import collections

from ..framework import dtypes as _dtypes
from ..framework import ops, tensor_shape
from . import array_ops
from ._op_util import make_op

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "VarLenFeature",
    "parse_example",
    "parse_single_example",
]


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature: parsed into a sparse tensor.

    Fields:
        dtype: The type of the values (`float32`, `int64` or `string`).
    """


class FixedLenFeature(
    collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
):
    """A fixed-length feature: parsed into a dense tensor of `shape`.

    Fields:
        shape: The feature's shape.
        dtype: `float32`, `int64` or `string`.
        default_value: The value for examples without the feature (None: required).
    """

    def __new__(cls, shape, dtype, default_value=None):
        """Creates the configuration (see the class docstring for the fields)."""
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"]
    )
):
    """A sequence of fixed-shape values (for `parse_single_sequence_example`).

    Fields:
        shape: The shape of each element.
        dtype: `float32`, `int64` or `string`.
        allow_missing: Whether examples may lack the feature.
        default_value: The padding value.
    """

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        """Creates the configuration (see the class docstring for the fields)."""
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def _sparse(indices, values, dense_shape):
    from ..framework.sparse_tensor import SparseTensor

    return SparseTensor(indices, values, dense_shape)


def _parse(serialized, features, example_names):
    if not features:
        raise ValueError("Missing: features was {}.")
    sparse, dense = [], []
    for key in sorted(features):
        f = features[key]
        if isinstance(f, VarLenFeature):
            sparse.append((key, _dtypes.as_dtype(f.dtype)))
        elif isinstance(f, FixedLenFeature):
            dense.append((key, f))
        elif isinstance(f, FixedLenSequenceFeature):
            raise NotImplementedError(
                "FixedLenSequenceFeature in parse_example is not supported yet (use it with "
                "parse_single_sequence_example once that lands)"
            )
        else:
            raise ValueError(f"Unsupported feature {f!r} for key {key!r}")
    for _, t in sparse:
        if t not in (_dtypes.float32, _dtypes.int64, _dtypes.string):
            raise ValueError(f"Unsupported dtype {t.name}: expected float32, int64 or string")
    defaults, shapes = [], []
    for key, f in dense:
        dtype = _dtypes.as_dtype(f.dtype)
        if dtype not in (_dtypes.float32, _dtypes.int64, _dtypes.string):
            raise ValueError(f"Unsupported dtype {dtype.name}: expected float32, int64 or string")
        shape = tensor_shape.as_shape(f.shape)
        if not shape.is_fully_defined():
            raise ValueError(
                f"All dimensions of shape for feature {key} need to be known but received {shape}."
            )
        if f.default_value is None:
            d = ops.convert_to_tensor([], dtype=dtype)
        else:
            d = ops.convert_to_tensor(f.default_value, dtype=dtype, name=f"key_{key}")
            d = array_ops.reshape(d, shape.as_list())
        defaults.append(d)
        shapes.append(shape)
    ser = ops.convert_to_tensor(serialized, dtype=_dtypes.string)
    with ops.name_scope("ParseExampleV2") as scope:
        names = ops.convert_to_tensor(
            example_names if example_names is not None else [], dtype=_dtypes.string, name="names"
        )
        keys = [
            ops.convert_to_tensor([k for k, _ in group], dtype=_dtypes.string, name=label)
            for group, label in ((sparse, "sparse_keys"), (dense, "dense_keys"))
        ]
        ragged = ops.convert_to_tensor([], dtype=_dtypes.string, name="ragged_keys")
        attrs = {
            "num_sparse": len(sparse),
            "sparse_types": [t for _, t in sparse],
            "dense_shapes": shapes,
            "ragged_value_types": [],
            "ragged_split_types": [],
        }
        op = make_op(
            "ParseExampleV2",
            [ser, names, keys[0], keys[1], ragged, *defaults],
            attrs,
            scope=scope,
        )
    n = len(sparse)
    out = {}
    for i, (key, _) in enumerate(sparse):
        out[key] = _sparse(op.outputs[i], op.outputs[n + i], op.outputs[2 * n + i])
    for i, (key, _) in enumerate(dense):
        out[key] = op.outputs[3 * n + i]
    return out


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch of serialized `tf.train.Example` protos.

    Args:
        serialized: 1-D string tensor of serialized `Example`s.
        features: A dict from feature keys to `FixedLenFeature` or `VarLenFeature`.
        name: A name for the operation.
        example_names: Optional 1-D strings, names of the examples (for messages).

    Returns:
        A dict from keys to tensors: `[batch] + shape` dense tensors for
        `FixedLenFeature`s, sparse `[batch, max_len]` values for `VarLenFeature`s.

    Raises:
        ValueError: A feature configuration is invalid.
    """
    with ops.name_scope(name, "ParseExample", [serialized, example_names]):
        return _parse(serialized, features, example_names)


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized `tf.train.Example` proto (a scalar string).

    Args:
        serialized: Scalar string tensor.
        features: A dict from feature keys to `FixedLenFeature` or `VarLenFeature`.
        name: A name for the operation.
        example_names: Optional scalar string, the example's name (for messages).

    Returns:
        A dict from keys to tensors: `shape`-shaped dense tensors, and sparse values
        with 1-D indices for `VarLenFeature`s.
    """
    with ops.name_scope(name, "ParseSingleExample", [serialized, example_names]):
        with ops.name_scope(None, "ParseExample", [serialized]):
            return _parse(serialized, features, example_names)
