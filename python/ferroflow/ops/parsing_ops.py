"""Parsing of `tf.train.Example` and `SequenceExample` records; feature configurations.

`tf.parse_example`, `tf.parse_single_example`, `tf.io.parse_sequence_example`,
`tf.parse_single_sequence_example`; `tf.FixedLenFeature`, `tf.VarLenFeature`,
`tf.FixedLenSequenceFeature`, `tf.SparseFeature`.

Parsing is TensorFlow's `ParseExampleV2` and `ParseSequenceExampleV2` ops, built as
TF builds them (keys sorted, a `key_<name>` constant reshaped to the feature's shape
for each default, an empty constant for a required feature, a scalar padding value
for a `FixedLenSequenceFeature`) and run natively: the serialized protos are read in
Rust, never in Python. Ragged features are not supported.

A `VarLenFeature` comes back as a `tf.SparseTensor`. A `SparseFeature` is parsed as
TF parses it: its index and value keys as sparse keys (each once, whatever features
share them), then merged into one `tf.SparseTensor` by `tf.sparse_merge`.

Also the tensor and raw-byte decoders: `decode_json_example` (protobuf's JSON mapping
of `Example` to its binary form), `parse_tensor`/`serialize_tensor` (`TensorProto`),
and `decode_raw` with TF 2's `fixed_length` (`DecodePaddedRaw`).
"""

from __future__ import annotations

import collections
import re

from .._compat import zip_strict
from ..framework import dtypes as _dtypes
from ..framework import ops, tensor_shape
from ..platform import tf_logging as logging
from . import array_ops
from ._op_util import make_op

__all__ = [
    "decode_json_example",
    "decode_raw",
    "decode_raw_v1",
    "parse_tensor",
    "serialize_tensor",
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "SparseFeature",
    "VarLenFeature",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
]

_ALLOWED = (_dtypes.float32, _dtypes.int64, _dtypes.string)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature: parsed into a sparse tensor.

    Fields:
        dtype: The type of the values (`float32`, `int64` or `string`).
    """


class SparseFeature(
    collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"]
    )
):
    """A sparse feature given by index features and a value feature of an `Example`.

    Parsed into a `tf.SparseTensor` whose `values` are the `value_key` feature's and
    whose `indices[i][dim]` is the `i`-th value of the `index_key[dim]` feature (in
    `parse_example`, after the batch index), with dense shape `size` (after the batch
    size).

    Fields:
        index_key: A key, or a list of keys (one per dimension), of int64 features as
            long as the value feature.
        value_key: The key of the value feature.
        dtype: The value feature's type (`float32`, `int64` or `string`).
        size: An int (with a single `index_key`) or a list of ints (one per key), the
            dense shape; the indices must be in `[0, size[dim])`.
        already_sorted: Whether the values are already in index order (then they are
            not reordered).
    """

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        """Creates the configuration (see the class docstring for the fields)."""
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


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
    """A sequence of fixed-shape values: parsed into a dense `[T] + shape` tensor.

    In `parse_example` the feature's values are split into `T` rows of `shape`,
    and shorter examples are padded with `default_value` (0 or `""` when None); in
    `parse_sequence_example` each `FeatureList` step is one row.

    Fields:
        shape: The shape of each element.
        dtype: `float32`, `int64` or `string`.
        allow_missing: Whether examples may lack the feature (then it has no rows).
        default_value: The padding value (`parse_example` only; a scalar).
    """

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        """Creates the configuration (see the class docstring for the fields)."""
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def _sparse(indices, values, dense_shape):
    from ..framework.sparse_tensor import SparseTensor

    return SparseTensor(indices, values, dense_shape)


def _unknown_first(shape):
    """Whether `shape` has a known rank above 0 and an unknown first dimension."""
    return bool(shape.ndims) and shape.as_list()[0] is None


class _ParseOpParams:
    """A feature dict as TF's parse ops take it (TF's `_ParseOpParams`).

    Sorted sparse and dense keys, their dtypes, the dense shapes and the dense
    defaults (None for a `FixedLenSequenceFeature` that may be missing).
    """

    def __init__(self):
        self.sparse_keys, self.sparse_types = [], []
        self.dense_keys, self.dense_types, self.dense_shapes = [], [], []
        self.dense_defaults = {}

    @classmethod
    def from_features(cls, features, types):
        """The parameters of `features`, whose values must be instances of `types`.

        Raises:
            ValueError: A feature is of another type or invalid.
        """
        params = cls()
        for key in sorted(features or {}):
            feature = features[key]
            if not isinstance(feature, tuple(types)):
                raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")
            params._add(key, feature)
        params._validate()
        return params

    @property
    def num_features(self):
        """The number of keys."""
        return len(self.sparse_keys) + len(self.dense_keys)

    def _add_sparse_key(self, key, dtype):
        """Adds a sparse key once; the same key again must have the same dtype."""
        dtype = _dtypes.as_dtype(dtype)
        if key in self.sparse_keys:
            original_dtype = self.sparse_types[self.sparse_keys.index(key)]
            if original_dtype != dtype:
                raise ValueError(f"Conflicting type {original_dtype} vs {dtype} for feature {key}.")
        else:
            self.sparse_keys.append(key)
            self.sparse_types.append(dtype)

    def _add_sparse_feature(self, key, feature):
        """Adds a `SparseFeature`'s index keys (sorted, int64), then its value key."""
        if not feature.index_key:
            raise ValueError(f"Missing index_key for SparseFeature {feature}.")
        if not feature.value_key:
            raise ValueError(f"Missing value_key for SparseFeature {feature}.")
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
        index_keys = feature.index_key
        if isinstance(index_keys, str):
            index_keys = [index_keys]
        elif len(index_keys) > 1:
            logging.warning(
                "SparseFeature is a complicated feature config and should only be used "
                "after careful consideration of VarLenFeature."
            )
        for index_key in sorted(index_keys):
            self._add_sparse_key(index_key, _dtypes.int64)
        self._add_sparse_key(feature.value_key, feature.dtype)

    def _validate(self):
        """TF's check that no key is both sparse and dense.

        Raises:
            ValueError: The key sets intersect (TF's message).
        """
        dense_key_set, sparse_key_set = set(self.dense_keys), set(self.sparse_keys)
        if not dense_key_set.isdisjoint(sparse_key_set):
            raise ValueError(
                "Dense and sparse keys must not intersect; dense_keys: "
                f"{self.dense_keys}, sparse_keys: {self.sparse_keys}, intersection: "
                f"{dense_key_set.intersection(sparse_key_set)}"
            )

    def _add(self, key, feature):
        if isinstance(feature, VarLenFeature):
            if not feature.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature={feature}")
            self._add_sparse_key(key, feature.dtype)
            return
        if isinstance(feature, SparseFeature):
            self._add_sparse_feature(key, feature)
            return
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
        if feature.shape is None:
            raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
        shape = tensor_shape.as_shape(feature.shape)
        if isinstance(feature, FixedLenFeature):
            if feature.shape and _unknown_first(shape):
                raise ValueError(
                    f"First dimension of shape for feature {key} unknown. Consider using "
                    f"FixedLenSequenceFeature. Received feature={feature}."
                )
            if not shape.is_fully_defined():
                raise ValueError(
                    f"All dimensions of shape for feature {key} need to be known but "
                    f"received {feature.shape!s}."
                )
        elif feature.allow_missing:
            self.dense_defaults[key] = None
        self.dense_keys.append(key)
        self.dense_shapes.append(shape)
        self.dense_types.append(_dtypes.as_dtype(feature.dtype))
        if feature.default_value is not None:
            self.dense_defaults[key] = feature.default_value

    def check_types(self, sparse_param, dense_param):
        """TF's op-wrapper check of the value types.

        Raises:
            TypeError: A dtype other than float32, int64 or string.
        """
        for types, param in ((self.sparse_types, sparse_param), (self.dense_types, dense_param)):
            for t in types:
                if t not in _ALLOWED:
                    raise TypeError(
                        f"Value passed to parameter '{param}' has DataType {t.name} not in "
                        "list of allowed values: float32, int64, string"
                    )

    def dense_defaults_vec(self):
        """The default tensors, made in the current name scope as TF makes them."""
        out = []
        for key, shape, dtype in zip_strict(self.dense_keys, self.dense_shapes, self.dense_types):
            value = self.dense_defaults.get(key)
            safe = re.sub("[^A-Za-z0-9_.\\-/]", "_", key)
            if _unknown_first(shape):
                # A variable first dimension: the default is the scalar padding value.
                if value is None:
                    value = ops.convert_to_tensor("" if dtype == _dtypes.string else 0, dtype)
                else:
                    value = ops.convert_to_tensor(value, dtype=dtype, name=f"padding_{safe}")
                    value = array_ops.reshape(value, [])
            elif value is None:
                value = ops.convert_to_tensor([], dtype=dtype)
            elif not isinstance(value, ops.Tensor):
                value = ops.convert_to_tensor(value, dtype=dtype, name=f"key_{safe}")
                value = array_ops.reshape(value, shape.as_list())
            out.append(value)
        return out


def _prepend_none_dimension(features):
    out = dict(features)
    for key, f in features.items():
        if isinstance(f, FixedLenSequenceFeature):
            if not f.allow_missing:
                raise ValueError(
                    "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
                )
            out[key] = FixedLenSequenceFeature(
                [None, *f.shape], f.dtype, f.allow_missing, f.default_value
            )
    return out


def _parse_example_raw(serialized, params, example_names, name):
    if params.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    with ops.name_scope(name, "ParseExample", [serialized, example_names]):
        serialized = ops.convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
        params.check_types("sparse_types", "dense_defaults")
        defaults = params.dense_defaults_vec()
        with ops.name_scope(name, "ParseExampleV2") as scope:
            names = ops.convert_to_tensor(
                example_names if example_names is not None else [],
                dtype=_dtypes.string,
                name="names",
            )
            keys = [
                ops.convert_to_tensor(k, dtype=_dtypes.string, name=label)
                for k, label in (
                    (params.sparse_keys, "sparse_keys"),
                    (params.dense_keys, "dense_keys"),
                    ([], "ragged_keys"),
                )
            ]
            attrs = {
                "num_sparse": len(params.sparse_keys),
                "sparse_types": params.sparse_types,
                "dense_shapes": params.dense_shapes,
                "ragged_value_types": [],
                "ragged_split_types": [],
            }
            op = make_op(
                "ParseExampleV2", [serialized, names, *keys, *defaults], attrs, scope=scope
            )
    n = len(params.sparse_keys)
    out = {}
    for i, key in enumerate(params.sparse_keys):
        out[key] = _sparse(op.outputs[i], op.outputs[n + i], op.outputs[2 * n + i])
    for i, key in enumerate(params.dense_keys):
        out[key] = op.outputs[3 * n + i]
    return out


def _example_params(features):
    return _ParseOpParams.from_features(
        features, [VarLenFeature, SparseFeature, FixedLenFeature, FixedLenSequenceFeature]
    )


def _construct_tensors_for_composite_features(features, tensor_dict):
    """The parsed tensors with each `SparseFeature` merged into one `tf.SparseTensor`.

    The index and value keys' sparse tensors go through `tf.sparse_merge` (in sorted
    feature-key order, as TF); keys that are not features are dropped.
    """
    from . import sparse_ops

    tensor_dict = dict(tensor_dict)
    updates = {}
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, SparseFeature):
            if isinstance(feature.index_key, str):
                sp_ids = tensor_dict[feature.index_key]
            else:
                sp_ids = [tensor_dict[index_key] for index_key in feature.index_key]
            sp_values = tensor_dict[feature.value_key]
            updates[key] = sparse_ops.sparse_merge(
                sp_ids,
                sp_values,
                vocab_size=feature.size,
                already_sorted=feature.already_sorted,
            )
    tensor_dict.update(updates)
    for key in set(tensor_dict) - set(features):
        del tensor_dict[key]
    return tensor_dict


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch of serialized `tf.train.Example` protos.

    Args:
        serialized: 1-D string tensor of serialized `Example`s.
        features: A dict from feature keys to `FixedLenFeature`, `VarLenFeature`,
            `SparseFeature` or `FixedLenSequenceFeature` (with `allow_missing=True`).
        name: A name for the operation.
        example_names: Optional 1-D strings, names of the examples (for messages).

    Returns:
        A dict from keys to tensors: `[batch] + shape` dense tensors for
        `FixedLenFeature`s, `[batch, T] + shape` padded tensors for
        `FixedLenSequenceFeature`s, `tf.SparseTensor`s `[batch, max_len]` for
        `VarLenFeature`s and `[batch] + size` for `SparseFeature`s.

    Raises:
        ValueError: A feature configuration is invalid.
        TypeError: A feature's dtype is not float32, int64 or string.
    """
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    features = _prepend_none_dimension(features)
    outputs = _parse_example_raw(serialized, _example_params(features), example_names, name)
    return _construct_tensors_for_composite_features(features, outputs)


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized `tf.train.Example` proto (a scalar string).

    Args:
        serialized: Scalar string tensor.
        features: A dict from feature keys to `FixedLenFeature`, `VarLenFeature`,
            `SparseFeature` or `FixedLenSequenceFeature` (with `allow_missing=True`).
        name: A name for the operation.
        example_names: Optional scalar string, the example's name (for messages).

    Returns:
        A dict from keys to tensors: `shape`-shaped dense tensors, `[T] + shape`
        tensors for `FixedLenSequenceFeature`s, and `tf.SparseTensor`s with 1-D
        indices for `VarLenFeature`s (of dense shape `size` for `SparseFeature`s).

    Raises:
        ValueError: `features` is empty or invalid, or `serialized` is not a scalar.
        TypeError: A feature's dtype is not float32, int64 or string.
    """
    if features is None:
        raise ValueError("Invalid argument: features cannot be None.")
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    with ops.name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = ops.convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
        serialized = _assert_scalar(serialized, "serialized")
        return parse_example(serialized, features, name, example_names)


def _assert_scalar(value, name):
    rank = value.shape.ndims
    if rank is None:
        from . import control_flow_ops, logging_ops, math_ops

        check = logging_ops.Assert(
            math_ops.equal(array_ops.rank(value), 0),
            [f"Input {name} must be a scalar"],
            name=f"{name.capitalize()}IsScalar",
        )
        result = control_flow_ops.with_dependencies([check], value, name=f"{name}Dependencies")
        result.set_shape([])
        return result
    if rank == 0:
        return value
    raise ValueError(f"Input {name} must be a scalar")


def _parse_sequence_example_raw(serialized, debug_name, context, feature_list, name=None):
    if context.num_features + feature_list.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    with ops.name_scope(name, "ParseSequenceExample", [serialized]):
        missing_assumed_empty = []
        for k, v in feature_list.dense_defaults.items():
            if v is not None:
                raise ValueError(f"Value feature_list.dense_defaults[{k}] must be None")
            missing_assumed_empty.append(k)
        serialized = ops.convert_to_tensor(serialized, name="serialized")
        context.check_types("context_sparse_types", "context_dense_defaults")
        feature_list.check_types("feature_list_sparse_types", "feature_list_dense_types")
        defaults = context.dense_defaults_vec()
        with ops.name_scope(name, "ParseSequenceExampleV2") as scope:
            inputs = [
                serialized,
                ops.convert_to_tensor(
                    debug_name if debug_name is not None else [],
                    dtype=_dtypes.string,
                    name="debug_name",
                ),
            ]
            for k, label in (
                (context.sparse_keys, "context_sparse_keys"),
                (context.dense_keys, "context_dense_keys"),
                ([], "context_ragged_keys"),
                (feature_list.sparse_keys, "feature_list_sparse_keys"),
                (feature_list.dense_keys, "feature_list_dense_keys"),
                ([], "feature_list_ragged_keys"),
            ):
                inputs.append(ops.convert_to_tensor(k, dtype=_dtypes.string, name=label))
            inputs.append(
                ops.convert_to_tensor(
                    [k in missing_assumed_empty for k in feature_list.dense_keys],
                    dtype=_dtypes.bool,
                    name="feature_list_dense_missing_assumed_empty",
                )
            )
            attrs = {
                "Ncontext_sparse": len(context.sparse_keys),
                "Nfeature_list_sparse": len(feature_list.sparse_keys),
                "Nfeature_list_dense": len(feature_list.dense_keys),
                "context_sparse_types": context.sparse_types,
                "context_ragged_value_types": [],
                "context_ragged_split_types": [],
                "feature_list_dense_types": feature_list.dense_types,
                "feature_list_sparse_types": feature_list.sparse_types,
                "feature_list_ragged_value_types": [],
                "feature_list_ragged_split_types": [],
                "context_dense_shapes": context.dense_shapes,
                "feature_list_dense_shapes": feature_list.dense_shapes,
            }
            op = make_op("ParseSequenceExampleV2", [*inputs, *defaults], attrs, scope=scope)
        outs = iter(op.outputs)

        def take(n):
            return [next(outs) for _ in range(n)]

        def sparse(keys):
            n = len(keys)
            idx, vals, shapes = take(n), take(n), take(n)
            return {k: _sparse(*t) for k, t in zip_strict(keys, zip_strict(idx, vals, shapes))}

        context_out = sparse(context.sparse_keys)
        context_out.update(zip_strict(context.dense_keys, take(len(context.dense_keys))))
        feature_list_out = sparse(feature_list.sparse_keys)
        feature_list_out.update(
            zip_strict(feature_list.dense_keys, take(len(feature_list.dense_keys)))
        )
        lengths = dict(zip_strict(feature_list.dense_keys, take(len(feature_list.dense_keys))))
        return context_out, feature_list_out, lengths


def _sequence_params(context_features, sequence_features):
    context = _ParseOpParams.from_features(context_features, [VarLenFeature, FixedLenFeature])
    feature_list = _ParseOpParams.from_features(
        sequence_features, [VarLenFeature, FixedLenSequenceFeature]
    )
    return context, feature_list


def parse_sequence_example(
    serialized, context_features=None, sequence_features=None, example_names=None, name=None
):
    """Parses a batch of serialized `tf.train.SequenceExample` protos.

    Args:
        serialized: 1-D string tensor of serialized `SequenceExample`s.
        context_features: A dict from keys to `FixedLenFeature` or `VarLenFeature`,
            read from each record's `context`.
        sequence_features: A dict from keys to `FixedLenSequenceFeature` or
            `VarLenFeature`, read from each record's `feature_lists` (one row per step).
        example_names: Optional 1-D strings, names of the records (for messages).
        name: A name for the operation.

    Returns:
        Three dicts: the context features (`[B] + shape` tensors and
        `tf.SparseTensor`s), the feature lists (`[B, T_max] + shape` tensors padded
        with 0 or `""`, `tf.SparseTensor`s with `[b, step, index]` indices), and the
        lengths (`[B]`, steps per record) of the dense feature lists.

    Raises:
        ValueError: Both feature dicts are empty, or a feature is invalid.
    """
    if not (context_features or sequence_features):
        raise ValueError(
            "Both `context_features` and `sequence_features` argument are None, but at "
            "least one should have values."
        )
    context, feature_list = _sequence_params(context_features, sequence_features)
    with ops.name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        return _parse_sequence_example_raw(serialized, example_names, context, feature_list, name)


def parse_single_sequence_example(
    serialized, context_features=None, sequence_features=None, example_name=None, name=None
):
    """Parses one serialized `tf.train.SequenceExample` proto (a scalar string).

    Args:
        serialized: Scalar string tensor.
        context_features: A dict from keys to `FixedLenFeature` or `VarLenFeature`.
        sequence_features: A dict from keys to `FixedLenSequenceFeature` or
            `VarLenFeature` (one row per `FeatureList` step).
        example_name: Optional scalar string, the record's name (for messages).
        name: A name for the operation.

    Returns:
        Two dicts: the context features (`shape` tensors, `tf.SparseTensor`s) and the
        feature lists (`[T] + shape` tensors, `tf.SparseTensor`s with `[step, index]`
        indices).

    Raises:
        ValueError: Both feature dicts are empty, `serialized` is not a scalar, or a
            feature is invalid.
    """
    if not (context_features or sequence_features):
        raise ValueError(
            "Both context_features and sequence_features are None, but at least one "
            "should have values."
        )
    context, feature_list = _sequence_params(context_features, sequence_features)
    with ops.name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        with ops.name_scope(name, "ParseSingleExample", [serialized, example_name]):
            serialized = ops.convert_to_tensor(serialized, name="serialized")
            serialized = _assert_scalar(serialized, "serialized")
        return _parse_sequence_example_raw(serialized, example_name, context, feature_list, name)[
            :2
        ]


def decode_json_example(json_examples, name=None):
    """Converts `tf.train.Example`s in protobuf's JSON mapping to binary serializations.

    Args:
        json_examples: A string tensor of JSON objects (as `json_format.MessageToJson`
            writes an `Example`).
        name: A name for the operation.

    Returns:
        A string tensor of the same shape: each `Example` serialized.
    """
    with ops.name_scope(name, "DecodeJSONExample", [json_examples]) as scope:
        x = ops.convert_to_tensor(json_examples, _dtypes.string, name="json_examples")
        return make_op("DecodeJSONExample", [x], scope=scope).outputs[0]


def parse_tensor(serialized, out_type, name=None):
    """The tensor a serialized `TensorProto` (a string scalar) holds, of dtype `out_type`."""
    with ops.name_scope(name, "ParseTensor", [serialized]) as scope:
        x = ops.convert_to_tensor(serialized, _dtypes.string, name="serialized")
        attrs = {"out_type": _dtypes.as_dtype(out_type)}
        return make_op("ParseTensor", [x], attrs, scope=scope).outputs[0]


def serialize_tensor(tensor, name=None):
    """`tensor` as a serialized `TensorProto` (a string scalar)."""
    with ops.name_scope(name, "SerializeTensor", [tensor]) as scope:
        x = ops.convert_to_tensor(tensor, name="tensor")
        return make_op("SerializeTensor", [x], scope=scope).outputs[0]


def decode_raw(
    input_bytes=None, out_type=None, little_endian=True, fixed_length=None, name=None, bytes=None
):
    """Reinterprets the bytes of each string as a vector of `out_type`.

    Args:
        input_bytes: A string tensor. Without `fixed_length`, every element must have
            the same length, a multiple of `out_type`'s size.
        out_type: The element type of the result.
        little_endian: Whether the bytes are little-endian.
        fixed_length: If given, each string's first `fixed_length` bytes are decoded,
            zero-padded when shorter (`DecodePaddedRaw`).
        name: A name for the operation.
        bytes: Deprecated alias of `input_bytes` (TF-1.x).

    Returns:
        A tensor of `out_type` with one more dimension than `input_bytes`.
    """
    from . import string_ops

    if fixed_length is None:
        return string_ops.decode_raw(
            input_bytes, out_type, little_endian=little_endian, name=name, bytes=bytes
        )
    if input_bytes is None:
        input_bytes = bytes
    with ops.name_scope(name, "DecodePaddedRaw", [input_bytes, fixed_length]) as scope:
        x = ops.convert_to_tensor(input_bytes, _dtypes.string, name="input_bytes")
        n = ops.convert_to_tensor(fixed_length, _dtypes.int32, name="fixed_length")
        attrs = {"out_type": _dtypes.as_dtype(out_type), "little_endian": bool(little_endian)}
        return make_op("DecodePaddedRaw", [x, n], attrs, scope=scope).outputs[0]


def decode_raw_v1(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):
    """TF 1.x's `tf.decode_raw` (no `fixed_length`)."""
    return decode_raw(input_bytes, out_type, little_endian=little_endian, name=name, bytes=bytes)
