"""Lookup tables (`tf.lookup`, `tf.contrib.lookup`): TF-1.x's graph-mode classes.

A table is a native resource (`HashTableV2`, `MutableHashTableV2`,
`MutableHashTableOfTensorsV2`, `MutableDenseHashTableV2`) read and written by TF's
access ops (`LookupTableFindV2`, `LookupTableInsertV2`, ...); the kernels are in
`ferroflow-core`'s `kernels/lookup/`. Static tables are filled by an initializer op
in the `TABLE_INITIALIZERS` collection (`tf.tables_initializer()` runs them all);
mutable tables are checkpointed by `tf.train.Saver` through `SAVEABLE_OBJECTS`, under
TF's names (`<table>-keys`, `<table>-values`).
"""

from __future__ import annotations

import collections
import functools
import uuid

from ..framework import constant_op, ops, tensor_shape
from ..framework import dtypes as _dtypes
from ..framework.sparse_tensor import SparseTensor
from . import array_ops, control_flow_ops, math_ops, string_ops
from ._op_util import make_op

__all__ = [
    "DenseHashTable",
    "FastHashSpec",
    "HashTable",
    "HasherSpec",
    "IdTableWithHashBuckets",
    "InitializableLookupTableBase",
    "KeyValueTensorInitializer",
    "LookupInterface",
    "MutableDenseHashTable",
    "MutableHashTable",
    "StaticHashTable",
    "StaticVocabularyTable",
    "StrongHashSpec",
    "TableInitializerBase",
    "TextFileIdTableInitializer",
    "TextFileIndex",
    "TextFileInitializer",
    "TextFileStringTableInitializer",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
    "initialize_all_tables",
    "string_to_index",
    "tables_initializer",
]


def tables_initializer(name="init_all_tables"):
    """One op running every table initializer of the graph (`TABLE_INITIALIZERS`)."""
    initializers = ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return control_flow_ops.group(*initializers, name=name)
    return control_flow_ops.no_op(name=name)


def initialize_all_tables(name="init_all_tables"):
    """Deprecated spelling of `tables_initializer`."""
    return tables_initializer(name)


def check_table_dtypes(table, key_dtype, value_dtype):
    """Raises TF's `TypeError` unless the table has these key and value dtypes."""
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(
            f"Invalid key dtype for table, expected {table.key_dtype} but got {key_dtype}."
        )
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(
            f"Invalid value dtype for table, expected {table.value_dtype} but got {value_dtype}."
        )


def _keys_of(keys):
    return keys.values if isinstance(keys, SparseTensor) else keys


def _like_keys(keys, values):
    if isinstance(keys, SparseTensor):
        return SparseTensor(keys.indices, values, keys.dense_shape)
    return values


class LookupInterface:
    """What every table offers: its key and value dtypes, `size` and `lookup`."""

    _table_name: str | None = None
    _resource_handle: ops.Tensor | None = None

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The table's key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The table's value dtype."""
        return self._value_dtype

    @property
    def name(self):
        """The table op's name (its last path component)."""
        return self._table_name

    @property
    def resource_handle(self):
        """The table's handle tensor."""
        return self._resource_handle

    def size(self, name=None):
        """The number of entries (an `int64` scalar)."""
        with ops.name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return make_op(
                "LookupTableSizeV2", [self.resource_handle], name="LookupTableSizeV2"
            ).outputs[0]

    def lookup(self, keys, name=None):
        """The value of each key."""
        raise NotImplementedError

    def __getitem__(self, keys):
        """`lookup(keys)`."""
        return self.lookup(keys)

    def _export(self, name, default_name):
        with ops.name_scope(name, default_name, [self.resource_handle]):
            keys, values = make_op(
                "LookupTableExportV2",
                [self.resource_handle],
                {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype},
                name="LookupTableExportV2",
            ).outputs
        return keys, values


class InitializableLookupTableBase(LookupInterface):
    """A table filled once by its initializer, then read-only."""

    def __init__(self, default_value, initializer):
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._default_value = ops.convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.get_shape().merge_with(tensor_shape.TensorShape([]))
        self._initializer = initializer
        self._resource_handle = self._create_resource()
        self._init_op = initializer.initialize(self)

    def _create_resource(self):
        raise NotImplementedError

    @property
    def default_value(self):
        """The value of keys missing from the table."""
        return self._default_value

    @property
    def initializer(self):
        """The op that initializes the table."""
        return self._init_op

    @property
    def init(self):
        """Deprecated spelling of `initializer`."""
        return self._init_op

    def lookup(self, keys, name=None):
        """The value of each key (`default_value` where missing).

        A `SparseTensor`'s values are looked up and its indices kept.

        Raises:
            TypeError: `keys` is not of the table's key dtype.
        """
        key_tensor = _keys_of(keys)
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(
                f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}"
            )
        with ops.name_scope(
            name, f"{self.name}_Lookup", (self.resource_handle, key_tensor, self._default_value)
        ):
            values = make_op(
                "LookupTableFindV2",
                [self.resource_handle, key_tensor, self._default_value],
                name="LookupTableFindV2",
            ).outputs[0]
        values.set_shape(key_tensor.get_shape())
        return _like_keys(keys, values)


class StaticHashTable(InitializableLookupTableBase):
    """A read-only hash table (`tf.lookup.StaticHashTable`, TF-1.x `HashTable`).

    Args:
        initializer: The `TableInitializerBase` that fills it.
        default_value: The value of missing keys (a scalar).
        name: The table op's name.
    """

    def __init__(self, initializer, default_value, name=None):
        self._shared_name = initializer._shared_name or f"hash_table_{uuid.uuid4()}"
        self._name = name or "hash_table"
        self._table_name = None
        super().__init__(default_value, initializer)
        self._value_shape = self._default_value.get_shape()

    def _create_resource(self):
        handle = make_op(
            "HashTableV2",
            [],
            {
                "shared_name": self._shared_name,
                "key_dtype": self._initializer.key_dtype,
                "value_dtype": self._initializer.value_dtype,
            },
            name=self._name,
        ).outputs[0]
        self._table_name = handle.op.name.split("/")[-1]
        return handle

    def export(self, name=None):
        """Every key and its value (`LookupTableExportV2`)."""
        keys, values = self._export(name, f"{self.name}_Export")
        values.set_shape(keys.get_shape().concatenate(self._value_shape))
        return keys, values


StaticHashTableV1 = StaticHashTable


class HashTable(StaticHashTable):
    """TF-1.x's `tf.contrib.lookup.HashTable` (a `StaticHashTable`)."""


class TableInitializerBase:
    """Fills a table: `initialize(table)` returns the op that does it."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The dtype of the keys it gives."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The dtype of the values it gives."""
        return self._value_dtype

    def initialize(self, table):
        """The op filling `table`."""
        raise NotImplementedError

    @property
    def _shared_name(self):
        return ""


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from a tensor of keys and a tensor of values (`InitializeTableV2`)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with ops.init_scope():
            self._keys = ops.convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = ops.convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """The op filling `table`, added to `TABLE_INITIALIZERS`."""
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        with ops.name_scope(
            self._name, values=(table.resource_handle, self._keys, self._values)
        ) as scope:
            init_op = make_op(
                "InitializeTableV2", [table.resource_handle, self._keys, self._values], scope=scope
            )
        ops.add_to_collection(ops.GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


class TextFileIndex:
    """Special column indices of `TextFileInitializer`."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file: one key and one value per line.

    Each is a column (split on `delimiter`), the whole line or the line number.

    A constant file name is added to the `ASSET_FILEPATHS` collection, so a SavedModel
    carries the vocabulary file with it.

    Raises:
        ValueError: Bad indices for the dtypes, or a `vocab_size` not above 0.
    """

    def __init__(
        self,
        filename,
        key_dtype,
        key_index,
        value_dtype,
        value_index,
        vocab_size=None,
        delimiter="\t",
        name=None,
        value_index_offset=0,
    ):
        if not isinstance(filename, ops.Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        self._filename_arg = filename
        key_dtype = _dtypes.as_dtype(key_dtype)
        value_dtype = _dtypes.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError(f"`key_index` should be >= -2, received: {key_index}.")
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype != _dtypes.int64:
            raise ValueError(
                f"`key_dtype` must be int64 if `key_index` is {TextFileIndex.LINE_NUMBER}, "
                f"received: {key_dtype}"
            )
        if (
            key_index == TextFileIndex.WHOLE_LINE
            and not key_dtype.is_integer
            and key_dtype != _dtypes.string
        ):
            raise ValueError(
                "`key_dtype` should be either integer or string for `key_index` "
                f"{TextFileIndex.WHOLE_LINE}, received: {key_dtype}"
            )
        if value_index < -2:
            raise ValueError(f"`value_index` should be >= -2, received: {value_index}")
        if value_index == TextFileIndex.LINE_NUMBER and value_dtype != _dtypes.int64:
            raise ValueError(
                f"`value_dtype` must be int64 for `value_index` {TextFileIndex.LINE_NUMBER}, "
                f"received: {value_dtype}"
            )
        if (
            value_index == TextFileIndex.WHOLE_LINE
            and not value_dtype.is_integer
            and value_dtype != _dtypes.string
        ):
            raise ValueError(
                "`value_dtype` should be either integer or string for `value_index` "
                f"{TextFileIndex.WHOLE_LINE}, received: {value_dtype}"
            )
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._key_index = key_index
        self._value_index = value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        self._filename = filename
        self._offset = value_index_offset
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table):
        """The op filling `table` from the file, added to `TABLE_INITIALIZERS`."""
        check_table_dtypes(table, self.key_dtype, self.value_dtype)
        with ops.name_scope(self._name, "text_file_init", (table.resource_handle,)) as scope:
            filename = ops.convert_to_tensor(self._filename, _dtypes.string, name="asset_filepath")
            init_op = make_op(
                "InitializeTableFromTextFileV2",
                [table.resource_handle, filename],
                {
                    "key_index": self._key_index,
                    "value_index": self._value_index,
                    "vocab_size": -1 if self._vocab_size is None else self._vocab_size,
                    "delimiter": self._delimiter,
                    "offset": self._offset,
                },
                scope=scope,
            )
        ops.add_to_collection(ops.GraphKeys.TABLE_INITIALIZERS, init_op)
        if constant_op.is_constant(filename):
            ops.add_to_collection(ops.GraphKeys.ASSET_FILEPATHS, filename)
        return init_op

    @property
    def _shared_name(self):
        parts = [str(self._filename_arg)]
        if self._vocab_size:
            parts.append(str(int(self._vocab_size)))
        parts += [str(self._key_index), str(self._value_index)]
        if self._offset:
            parts.append(str(self._offset))
        return "hash_table_" + "_".join(parts)


class TextFileStringTableInitializer(TextFileInitializer):
    """A text-file initializer of `int64` keys to `string` values (line number to line)."""

    def __init__(
        self,
        filename,
        key_column_index=TextFileIndex.LINE_NUMBER,
        value_column_index=TextFileIndex.WHOLE_LINE,
        vocab_size=None,
        delimiter="\t",
        name="text_file_string_table_init",
    ):
        super().__init__(
            filename,
            _dtypes.int64,
            key_column_index,
            _dtypes.string,
            value_column_index,
            vocab_size=vocab_size,
            delimiter=delimiter,
            name=name,
        )


class TextFileIdTableInitializer(TextFileInitializer):
    """A text-file initializer of keys to `int64` ids (line to line number)."""

    def __init__(
        self,
        filename,
        key_column_index=TextFileIndex.WHOLE_LINE,
        value_column_index=TextFileIndex.LINE_NUMBER,
        vocab_size=None,
        delimiter="\t",
        name="text_file_id_table_init",
        key_dtype=_dtypes.string,
    ):
        super().__init__(
            filename,
            key_dtype,
            key_column_index,
            _dtypes.int64,
            value_column_index,
            vocab_size=vocab_size,
            delimiter=delimiter,
            name=name,
        )


class HasherSpec(collections.namedtuple("HasherSpec", ["hasher", "key"])):
    """How out-of-vocabulary keys are hashed to buckets (`fasthash`, `legacy`, `stronghash`)."""

    __slots__ = ()


FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """A keyed SipHash (`StringToHashBucketStrong`); `key` is two unsigned integers."""

    __slots__ = ()

    def __new__(cls, key):
        """The spec of the strong hash under `key`."""
        if len(key) != 2:
            raise ValueError(f"`key` must have size 2, received {len(key)}")
        if not isinstance(key[0], int) or not isinstance(key[1], int):
            raise TypeError(f"Invalid key {key}. Must be unsigned integer values.")
        return super().__new__(cls, "stronghash", key)


def _as_string(tensor):
    if tensor.dtype.base_dtype == _dtypes.string:
        return tensor
    return string_ops.as_string(tensor)


def _hash_bucket_fn(hasher_spec):
    if not isinstance(hasher_spec, HasherSpec):
        raise TypeError(f"`hasher_spec` must be of type HasherSpec, got {type(hasher_spec)}.")
    if hasher_spec.hasher == "fasthash":
        return string_ops.string_to_hash_bucket_fast
    if hasher_spec.hasher == "legacy":
        return string_ops.string_to_hash_bucket
    if hasher_spec.hasher == "stronghash":
        return functools.partial(string_ops.string_to_hash_bucket_strong, key=hasher_spec.key)
    raise ValueError(f"Found unknown hasher {hasher_spec.hasher} in `hasher_spec`")


class IdTableWithHashBuckets(LookupInterface):
    """A vocabulary table whose missing keys go to `num_oov_buckets` hash buckets.

    The buckets' ids follow the vocabulary's.

    Raises:
        TypeError: A table of other key or value dtypes, or a bad `hasher_spec`.
        ValueError: No table and no buckets.
    """

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None, key_dtype=None):
        if name:
            name = name.rstrip("/")
        if table:
            if key_dtype is None:
                key_dtype = table.key_dtype
            supported = (_dtypes.int64, _dtypes.string)
            if table.key_dtype not in supported:
                raise TypeError(
                    f"Invalid `key_dtype`, expected one of {supported}, received {key_dtype}."
                )
            if table.key_dtype.is_integer != key_dtype.is_integer:
                kind = "integer" if key_dtype.is_integer else "non-integer"
                raise TypeError(f"Invalid `key dtype`, expected {kind} but got {table.key_dtype}.")
            if table.value_dtype != _dtypes.int64:
                raise TypeError(
                    f"Invalid `value_dtype`: expected int64 but got {table.value_dtype}."
                )
            self._table = table
            name = name or table.name
        else:
            if num_oov_buckets <= 0:
                raise ValueError("`oov_buckets` must be > 0 if no `table` is supplied.")
            key_dtype = _dtypes.string if key_dtype is None else key_dtype
            self._table = None
            name = name or "hash_bucket"
        if not key_dtype.is_integer and key_dtype != _dtypes.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got {key_dtype}.")
        self._num_oov_buckets = num_oov_buckets
        if not isinstance(hasher_spec, HasherSpec):
            raise TypeError(f"`hasher_spec` must be of type HasherSpec, got {type(hasher_spec)}.")
        self._hasher_spec = hasher_spec
        self._table_name = name.split("/")[-1] if name else None
        super().__init__(key_dtype, _dtypes.int64)

    @property
    def initializer(self):
        """The table's initializer (a no-op without a table)."""
        if self._table is not None:
            return self._table.initializer
        with ops.name_scope(None, "init"):
            return control_flow_ops.no_op()

    @property
    def init(self):
        """Deprecated spelling of `initializer`."""
        return self.initializer

    @property
    def resource_handle(self):
        """The vocabulary table's handle (None without a table)."""
        return self._table.resource_handle if self._table is not None else None

    def size(self, name=None):
        """The vocabulary size plus the number of OOV buckets."""
        with ops.name_scope(name, f"{self.name}_Size"):
            if self._table:
                tsize = self._table.size()
            else:
                tsize = ops.convert_to_tensor(0, dtype=_dtypes.int64)
            return tsize + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """Each key's id: its vocabulary id, else `vocab_size + hash(key) % buckets`.

        Raises:
            TypeError: `keys` is not of the table's key dtype.
        """
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(
                f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}"
            )
        values = _keys_of(keys)
        if self._table and self._table.key_dtype.base_dtype == _dtypes.int64:
            values = array_ops.cast(values, _dtypes.int64)
        if self._num_oov_buckets == 0:
            ids = self._table.lookup(values, name=name)
        else:
            with ops.name_scope(name, f"{self.name}_Lookup"):
                buckets = _hash_bucket_fn(self._hasher_spec)(
                    _as_string(values), num_buckets=self._num_oov_buckets, name="hash_bucket"
                )
                if self._table:
                    ids = self._table.lookup(values)
                    buckets = math_ops.add(buckets, self._table.size())
                    is_id_non_default = math_ops.not_equal(ids, self._table.default_value)
                    ids = array_ops.where_v2(is_id_non_default, ids, buckets)
                else:
                    ids = buckets
        return _like_keys(keys, ids)


class StaticVocabularyTable(IdTableWithHashBuckets):
    """A vocabulary table with out-of-vocabulary buckets (`tf.lookup.StaticVocabularyTable`).

    Args:
        initializer: The initializer of the vocabulary (`int64` values).
        num_oov_buckets: The number of buckets for missing keys (> 0).
        lookup_key_dtype: The dtype of the keys looked up (default the initializer's).
        name: The table's name.
    """

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        table = None
        if initializer:
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            supported = (_dtypes.int64, _dtypes.string)
            if initializer.key_dtype not in supported:
                raise TypeError(
                    f"Invalid `key_dtype`, expected one of {supported}, "
                    f"but got {initializer.key_dtype}."
                )
            if initializer.value_dtype != _dtypes.int64:
                raise TypeError(
                    f"Invalid `value_dtype`, expected {_dtypes.int64} "
                    f"but got {initializer.value_dtype}."
                )
            table = StaticHashTable(initializer, default_value=-1)
        super().__init__(table, num_oov_buckets, name=name, key_dtype=lookup_key_dtype)


StaticVocabularyTableV1 = StaticVocabularyTable


def index_table_from_file(
    vocabulary_file=None,
    num_oov_buckets=0,
    vocab_size=None,
    default_value=-1,
    hasher_spec=FastHashSpec,
    key_dtype=_dtypes.string,
    name=None,
    key_column_index=TextFileIndex.WHOLE_LINE,
    value_column_index=TextFileIndex.LINE_NUMBER,
    delimiter="\t",
):
    """A table from the lines of a vocabulary file to their line numbers (ids).

    Missing keys get `default_value`, or with `num_oov_buckets` a hashed bucket id.

    Raises:
        ValueError: No file, negative buckets or a `vocab_size` below 1.
        TypeError: `key_dtype` is neither integer nor string.
    """
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError(
            f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets:d}."
        )
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(
            f"`vocab_size` must be greater than 0, got {vocab_size:d} for vocabulary_file: "
            f"{vocabulary_file}."
        )
    key_dtype = _dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype.base_dtype != _dtypes.string:
        raise TypeError("Dtype for `keys` should be either integer or string.")
    with ops.name_scope(name, "string_to_index"):
        with ops.name_scope(None, "hash_table"):
            init = TextFileIdTableInitializer(
                vocabulary_file,
                vocab_size=vocab_size,
                key_dtype=_dtypes.int64 if key_dtype.is_integer else key_dtype,
                name="table_init",
                key_column_index=key_column_index,
                value_column_index=value_column_index,
                delimiter=delimiter,
            )
            table: LookupInterface = StaticHashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(
                table,
                num_oov_buckets=num_oov_buckets,
                hasher_spec=hasher_spec,
                key_dtype=key_dtype,
            )
        return table


def index_table_from_tensor(
    vocabulary_list,
    num_oov_buckets=0,
    default_value=-1,
    hasher_spec=FastHashSpec,
    dtype=_dtypes.string,
    name=None,
):
    """A table from the elements of `vocabulary_list` to their positions (ids).

    Raises:
        ValueError: No list, negative buckets, or a list of another dtype.
        TypeError: `dtype` is neither integer nor string.
    """
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    if num_oov_buckets < 0:
        raise ValueError(
            f"`num_oov_buckets` must be greater or equal than 0, got {num_oov_buckets:d}."
        )
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_integer and dtype.base_dtype != _dtypes.string:
        raise TypeError("`dtype` must either be integer or string.")
    with ops.name_scope(name, "string_to_index"):
        keys = ops.convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            kind = "integer" if dtype.is_integer else "non-integer"
            raise ValueError(f"Invalid `dtype`: Expected {kind}, got {keys.dtype}.")
        if not dtype.is_integer and keys.dtype.base_dtype != dtype:
            raise ValueError(f"Invalid `dtype`: Expected {dtype}, got {keys.dtype}.")
        num_elements = array_ops.size(keys)
        values = array_ops.cast(math_ops.range(num_elements), _dtypes.int64)
        with ops.name_scope(None, "hash_table"):
            table_keys = array_ops.cast(keys, _dtypes.int64) if keys.dtype.is_integer else keys
            init = KeyValueTensorInitializer(
                table_keys, values, table_keys.dtype.base_dtype, _dtypes.int64, name="table_init"
            )
            table: LookupInterface = StaticHashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(
                table, num_oov_buckets=num_oov_buckets, hasher_spec=hasher_spec, key_dtype=dtype
            )
        return table


def index_to_string_table_from_file(
    vocabulary_file,
    vocab_size=None,
    default_value="UNK",
    name=None,
    key_column_index=TextFileIndex.LINE_NUMBER,
    value_column_index=TextFileIndex.WHOLE_LINE,
    delimiter="\t",
):
    """A table from ids (line numbers) to the lines of a vocabulary file.

    Raises:
        ValueError: No file or a `vocab_size` below 1.
    """
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    with ops.name_scope(name, "index_to_string"):
        init = TextFileStringTableInitializer(
            vocabulary_file,
            vocab_size=vocab_size,
            name="table_init",
            key_column_index=key_column_index,
            value_column_index=value_column_index,
            delimiter=delimiter,
        )
        return StaticHashTable(init, default_value)


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """A table from ids (positions) to the strings of `vocabulary_list`.

    Raises:
        ValueError: No list.
    """
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` argument must be specified.")
    with ops.name_scope(name, "index_to_string"):
        vocabulary_list = ops.convert_to_tensor(vocabulary_list, _dtypes.string)
        num_elements = array_ops.size(vocabulary_list)
        keys = array_ops.cast(math_ops.range(num_elements), _dtypes.int64)
        init = KeyValueTensorInitializer(
            keys, vocabulary_list, _dtypes.int64, _dtypes.string, name="table_init"
        )
        return StaticHashTable(init, default_value)


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """Deprecated: the id of each string of `tensor` in `mapping`."""
    table = index_table_from_tensor(vocabulary_list=mapping, default_value=default_value, name=name)
    return table.lookup(tensor)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """Deprecated: the string of `mapping` at each id of `tensor`."""
    table = index_to_string_table_from_tensor(
        vocabulary_list=mapping, default_value=default_value, name=name
    )
    return table.lookup(tensor)


def _table_saveable(table, name):
    """A `SaveableObject` saving `table` as `<name>-keys` and `<name>-values`."""
    from ..train.saver import BaseSaverBuilder

    class TableSaveable(BaseSaverBuilder.SaveableObject):
        """Saves a mutable table's contents; restoring imports them."""

        def __init__(self):
            keys, values = table.export()
            specs = [
                BaseSaverBuilder.SaveSpec(keys, "", name + "-keys"),
                BaseSaverBuilder.SaveSpec(values, "", name + "-values"),
            ]
            self.table_name = name
            super().__init__(table, specs, name)

        def restore(self, restored_tensors, restored_shapes):
            """The op importing the saved keys and values into the table."""
            del restored_shapes
            with ops.name_scope(f"{self.table_name}_table_restore"):
                with ops.colocate_with(table.resource_handle):
                    return make_op(
                        "LookupTableImportV2",
                        [table.resource_handle, restored_tensors[0], restored_tensors[1]],
                        name="LookupTableImportV2",
                    )

    return TableSaveable()


class _MutableTable(LookupInterface):
    """What the two mutable tables share: insert, remove, export, checkpointing."""

    _key_shape: tensor_shape.TensorShape
    _value_shape: tensor_shape.TensorShape
    _default_value: ops.Tensor

    def _track(self, name, checkpoint):
        if checkpoint:
            ops.add_to_collection(ops.GraphKeys.SAVEABLE_OBJECTS, _table_saveable(self, name))

    def _find(self, keys, default, name, default_name):
        with ops.name_scope(name, default_name, (self.resource_handle, keys, default)):
            keys = ops.convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            with ops.colocate_with(self.resource_handle):
                values = make_op(
                    "LookupTableFindV2",
                    [self.resource_handle, keys, default],
                    name="LookupTableFindV2",
                ).outputs[0]
        key_shape = keys.get_shape()
        if self._key_shape.ndims is not None and key_shape.ndims is not None:
            batch = key_shape[: key_shape.ndims - self._key_shape.ndims]
            values.set_shape(batch.concatenate(self._value_shape))
        return values

    def insert(self, keys, values, name=None):
        """The op putting `values` under `keys` (overwriting)."""
        with ops.name_scope(
            name, f"{self.name}_lookup_table_insert", [self.resource_handle, keys, values]
        ):
            keys = ops.convert_to_tensor(keys, self._key_dtype, name="keys")
            values = ops.convert_to_tensor(values, self._value_dtype, name="values")
            with ops.colocate_with(self.resource_handle):
                return make_op(
                    "LookupTableInsertV2",
                    [self.resource_handle, keys, values],
                    name="LookupTableInsertV2",
                )

    def remove(self, keys, name=None):
        """The op removing `keys` (missing ones are ignored).

        Raises:
            TypeError: `keys` is not of the table's key dtype.
        """
        if keys.dtype != self._key_dtype:
            raise TypeError(
                f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}"
            )
        with ops.name_scope(
            name,
            f"{self.name}_lookup_table_remove",
            (self.resource_handle, keys, self._default_value),
        ):
            return make_op(
                "LookupTableRemoveV2", [self.resource_handle, keys], name="LookupTableRemoveV2"
            )

    def export(self, name=None):
        """Every key and its value (`LookupTableExportV2`)."""
        with ops.colocate_with(self._resource_handle):
            return self._export(name, f"{self.name}_lookup_table_export_values")


class MutableHashTable(_MutableTable):
    """A mutable hash table of scalar or tensor values (`MutableHashTable`).

    Args:
        key_dtype: The key dtype (`int32`, `int64` or `string`).
        value_dtype: The value dtype.
        default_value: The value of missing keys; its shape is the value shape.
        name: The table op's name.
        checkpoint: Save and restore the table with `tf.train.Saver`.
    """

    def __init__(
        self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True
    ):
        self._default_value = ops.convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.get_shape()
        self._key_shape = tensor_shape.TensorShape([])
        self._checkpoint = checkpoint
        self._name = name
        super().__init__(key_dtype, value_dtype)
        attrs = {
            "shared_name": "",
            "use_node_name_sharing": checkpoint,
            "key_dtype": self._key_dtype,
            "value_dtype": self._value_dtype,
        }
        if self._default_value.get_shape().ndims == 0:
            op_type = "MutableHashTableV2"
        else:
            op_type = "MutableHashTableOfTensorsV2"
            attrs["value_shape"] = self._value_shape
        handle = make_op(op_type, [], attrs, name=name).outputs[0]
        self._resource_handle = handle
        self._table_name = handle.op.name.split("/")[-1]
        self._track(name, checkpoint)

    def lookup(self, keys, dynamic_default_values=None, name=None):  # type: ignore[override]
        """The value of each key (the default, or `dynamic_default_values`, where missing)."""
        default = self._default_value if dynamic_default_values is None else dynamic_default_values
        return self._find(keys, default, name, f"{self.name}_lookup_table_find")


class DenseHashTable(_MutableTable):
    """A mutable hash table in open-addressed buckets (`MutableDenseHashTable`).

    Args:
        key_dtype: The key dtype (`int32`, `int64` or `string`).
        value_dtype: The value dtype.
        default_value: The value of missing keys; its shape is the value shape.
        empty_key: A key value never used, marking empty buckets (its shape is the
            key shape).
        deleted_key: Another key value never used, marking removed entries.
        initial_num_buckets: The initial number of buckets (a power of 2).
        name: The table op's name.
        checkpoint: Save and restore the table with `tf.train.Saver`.
    """

    def __init__(
        self,
        key_dtype,
        value_dtype,
        default_value,
        empty_key,
        deleted_key,
        initial_num_buckets=None,
        name="MutableDenseHashTable",
        checkpoint=True,
    ):
        self._default_value = ops.convert_to_tensor(
            default_value, dtype=value_dtype, name="default_value"
        )
        self._value_shape = self._default_value.get_shape()
        self._checkpoint = checkpoint
        self._name = name
        super().__init__(key_dtype, value_dtype)
        empty = ops.convert_to_tensor(empty_key, dtype=self._key_dtype, name="empty_key")
        deleted = ops.convert_to_tensor(deleted_key, dtype=self._key_dtype, name="deleted_key")
        self._key_shape = empty.get_shape()
        attrs = {
            "shared_name": "",
            "use_node_name_sharing": checkpoint,
            "key_dtype": self._key_dtype,
            "value_dtype": self._value_dtype,
            "value_shape": self._value_shape,
        }
        if initial_num_buckets is not None:
            attrs["initial_num_buckets"] = initial_num_buckets
        handle = make_op("MutableDenseHashTableV2", [empty, deleted], attrs, name=name).outputs[0]
        self._resource_handle = handle
        self._table_name = handle.op.name.split("/")[-1]
        self._track(name, checkpoint)

    def lookup(self, keys, name=None):
        """The value of each key (the default where missing)."""
        return self._find(keys, self._default_value, name, f"{self.name}_lookup_table_find")

    def insert_or_assign(self, keys, values, name=None):
        """The op putting `values` under `keys` (overwriting)."""
        return self.insert(keys, values, name)

    def erase(self, keys, name=None):
        """The op removing `keys`.

        Raises:
            TypeError: `keys` is not of the table's key dtype.
        """
        if keys.dtype != self._key_dtype:
            raise TypeError(
                f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}."
            )
        return self.remove(keys, name)


MutableDenseHashTable = DenseHashTable
