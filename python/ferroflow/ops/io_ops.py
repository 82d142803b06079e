"""Checkpoint ops (`save_v2`, `restore_v2`, V1's `save_slices`) and readers.

They write and read V2 checkpoints, TensorFlow's tensor bundle (`<prefix>.index` and
`<prefix>.data-00000-of-00001`), byte for byte as TensorFlow does, so TensorFlow
restores what they save and they restore what TensorFlow saved. Files are written
under temporary names and renamed into place, the data file before the index.
`tf.train.Saver` builds on them.

Readers (TF's `ReaderBase` and its kinds) are session resources, as queues are: the
reader op makes the session's reader once, and `read`/`read_up_to` take work units
(file names) from a string queue and return records, keyed as TF keys them. The
reading happens in Rust (`ferroflow-core`'s `reader` module), without the GIL, so
queue-runner threads that read files run in parallel.
"""

from __future__ import annotations

from ..framework import dtypes as _dtypes
from ..framework import ops
from ..io.tf_record import TFRecordOptions
from ._op_util import make_op

__all__ = [
    "FixedLengthRecordReader",
    "IdentityReader",
    "ReaderBase",
    "TFRecordReader",
    "TextLineReader",
    "WholeFileReader",
    "matching_files",
    "merge_v2_checkpoints",
    "restore_slice",
    "restore_v2",
    "save_slices",
    "save_v2",
    "sharded_filename",
    "sharded_filespec",
]


def _string_inputs(prefix, tensor_names, shape_and_slices):
    return [
        ops.convert_to_tensor(prefix, dtype=_dtypes.string, name="prefix"),
        ops.convert_to_tensor(tensor_names, dtype=_dtypes.string, name="tensor_names"),
        ops.convert_to_tensor(shape_and_slices, dtype=_dtypes.string, name="shape_and_slices"),
    ]


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """The op that saves `tensors` under `tensor_names` in the checkpoint `prefix`.

    Args:
        prefix: Scalar string: the checkpoint's path prefix.
        tensor_names: 1-D strings, one name per tensor.
        shape_and_slices: 1-D strings, `""` per tensor (whole tensors; slices of
            partitioned variables are not supported).
        tensors: The tensors to save.
        name: A name for the operation.

    Returns:
        The `SaveV2` operation.
    """
    with ops.name_scope(name, "SaveV2", [prefix, tensor_names, tensors]) as scope:
        inputs = _string_inputs(prefix, tensor_names, shape_and_slices)
        values = [ops.convert_to_tensor(t, name="tensors") for t in tensors]
        return make_op("SaveV2", [*inputs, *values], scope=scope)


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes, name=None):
    """The tensors `tensor_names` restored from the checkpoint `prefix`.

    Running it raises `NotFoundError` for a missing checkpoint or name,
    `InvalidArgumentError` when a stored dtype differs from `dtypes`, and
    `DataLossError` when the files are corrupted.

    Args:
        prefix: Scalar string: the checkpoint's path prefix.
        tensor_names: 1-D strings.
        shape_and_slices: 1-D strings, `""` per tensor.
        dtypes: The dtype of each tensor.
        name: A name for the operation.

    Returns:
        A list of tensors, one per name.
    """
    with ops.name_scope(name, "RestoreV2", [prefix, tensor_names]) as scope:
        inputs = _string_inputs(prefix, tensor_names, shape_and_slices)
        attrs = {"dtypes": [_dtypes.as_dtype(d) for d in dtypes]}
        return list(make_op("RestoreV2", inputs, attrs, scope=scope).outputs)


def save_slices(filename, tensor_names, shapes_and_slices, tensors, name=None):
    """The op saving `tensors` to the V1 checkpoint file `filename` (`SaveSlices`).

    A V1 checkpoint is one table file (TF's `TensorSliceWriter` format); an entry of
    `shapes_and_slices` (`"10 4 0,5:-"`) saves a tensor as a slice of a larger one.
    """
    with ops.name_scope(name, "SaveSlices", [filename, tensor_names, tensors]) as scope:
        inputs = [
            ops.convert_to_tensor(filename, dtype=_dtypes.string, name="filename"),
            ops.convert_to_tensor(tensor_names, dtype=_dtypes.string, name="tensor_names"),
            ops.convert_to_tensor(
                shapes_and_slices, dtype=_dtypes.string, name="shapes_and_slices"
            ),
        ]
        values = [ops.convert_to_tensor(t, name="data") for t in tensors]
        return make_op("SaveSlices", [*inputs, *values], scope=scope)


def restore_slice(file_pattern, tensor_name, shape_and_slice, dt, preferred_shard=-1, name=None):
    """One tensor (or the slice `shape_and_slice` of it) of a checkpoint (`RestoreSlice`)."""
    with ops.name_scope(name, "RestoreSlice", [file_pattern, tensor_name]) as scope:
        inputs = [
            ops.convert_to_tensor(file_pattern, dtype=_dtypes.string, name="file_pattern"),
            ops.convert_to_tensor(tensor_name, dtype=_dtypes.string, name="tensor_name"),
            ops.convert_to_tensor(shape_and_slice, dtype=_dtypes.string, name="shape_and_slice"),
        ]
        attrs = {"dt": _dtypes.as_dtype(dt), "preferred_shard": preferred_shard}
        return make_op("RestoreSlice", inputs, attrs, scope=scope).outputs[0]


def sharded_filename(basename, shard, num_shards, name=None):
    """`<basename>-<shard>-of-<num_shards>`, zero-padded to 5 digits (`ShardedFilename`)."""
    with ops.name_scope(name, "ShardedFilename", [basename]) as scope:
        inputs = [
            ops.convert_to_tensor(basename, dtype=_dtypes.string, name="basename"),
            ops.convert_to_tensor(shard, dtype=_dtypes.int32, name="shard"),
            ops.convert_to_tensor(num_shards, dtype=_dtypes.int32, name="num_shards"),
        ]
        return make_op("ShardedFilename", inputs, scope=scope).outputs[0]


def sharded_filespec(basename, num_shards, name=None):
    """`<basename>-?????-of-<num_shards>`, the glob of every shard (`ShardedFilespec`)."""
    with ops.name_scope(name, "ShardedFilespec", [basename]) as scope:
        inputs = [
            ops.convert_to_tensor(basename, dtype=_dtypes.string, name="basename"),
            ops.convert_to_tensor(num_shards, dtype=_dtypes.int32, name="num_shards"),
        ]
        return make_op("ShardedFilespec", inputs, scope=scope).outputs[0]


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs=True, name=None):
    """The op merging the V2 bundles `checkpoint_prefixes` into one (`MergeV2Checkpoints`)."""
    with ops.name_scope(name, "MergeV2Checkpoints", [checkpoint_prefixes]) as scope:
        inputs = [
            ops.convert_to_tensor(
                checkpoint_prefixes, dtype=_dtypes.string, name="checkpoint_prefixes"
            ),
            ops.convert_to_tensor(
                destination_prefix, dtype=_dtypes.string, name="destination_prefix"
            ),
        ]
        return make_op(
            "MergeV2Checkpoints", inputs, {"delete_old_dirs": delete_old_dirs}, scope=scope
        )


def matching_files(pattern, name=None):
    """The sorted paths of the files matching glob `pattern` (TF's `MatchingFiles`).

    Args:
        pattern: Scalar or 1-D string: shell wildcards (`*`, `?`, `[...]`) in each
            path component.
        name: A name for the operation.

    Returns:
        A 1-D string tensor.
    """
    p = ops.convert_to_tensor(pattern, dtype=_dtypes.string, name="pattern")
    return make_op("MatchingFiles", [p], name=name or "MatchingFiles").outputs[0]


class ReaderBase:
    """Base class of the readers: turns work units (file names) into records.

    A reader's methods add ops that take the reader's handle. Running `read` takes a
    work unit from a string queue when the reader has none in progress and returns
    the next record of it as a `(key, value)` pair of scalar strings; `read_up_to`
    returns up to `num_records` of them as vectors. Reader state (the unit in
    progress and the counters) lives in the session that runs the ops.
    """

    def __init__(self, reader_ref, supports_serialize=False):
        """Wraps a reader handle.

        Args:
            reader_ref: The reader op's output (a `resource` handle).
            supports_serialize: Whether `serialize_state`/`restore_state` work.
        """
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        """The reader's handle tensor."""
        return self._reader_ref

    @property
    def supports_serialize(self):
        """Whether the reader's state can be serialized and restored."""
        return self._supports_serialize

    @staticmethod
    def _queue_ref(queue):
        return queue if isinstance(queue, ops.Tensor) else queue.queue_ref

    def read(self, queue, name=None):
        """Returns the next record `(key, value)` the reader produces.

        Takes a work unit from `queue` when the reader has finished the last one.

        Args:
            queue: A queue (or a queue handle) of strings, the work units.
            name: A name for the operation.

        Returns:
            `(key, value)`: scalar strings.
        """
        op = make_op("ReaderReadV2", [self._reader_ref, self._queue_ref(queue)], name=name)
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue, num_records, name=None):
        """Returns up to `num_records` records `(keys, values)` from the reader.

        Fewer may come back at the end of a work unit (never none, unless the queue
        is closed and empty, which raises `OutOfRangeError`).

        Args:
            queue: A queue (or a queue handle) of strings, the work units.
            num_records: Scalar int64, the most records to return.
            name: A name for the operation.

        Returns:
            `(keys, values)`: string vectors of equal length.
        """
        num = ops.convert_to_tensor(num_records, dtype=_dtypes.int64, name="num_records")
        op = make_op("ReaderReadUpToV2", [self._reader_ref, self._queue_ref(queue), num], name=name)
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name=None):
        """The number of records this reader has produced (scalar int64).

        Args:
            name: A name for the operation.

        Returns:
            The scalar int64 tensor.
        """
        return make_op("ReaderNumRecordsProducedV2", [self._reader_ref], name=name).outputs[0]

    def num_work_units_completed(self, name=None):
        """The number of work units this reader has finished (scalar int64).

        Args:
            name: A name for the operation.

        Returns:
            The scalar int64 tensor.
        """
        return make_op("ReaderNumWorkUnitsCompletedV2", [self._reader_ref], name=name).outputs[0]

    def serialize_state(self, name=None):
        """The reader's state as a scalar string (`UnimplementedError` if unsupported).

        Args:
            name: A name for the operation.

        Returns:
            The scalar string tensor.
        """
        return make_op("ReaderSerializeStateV2", [self._reader_ref], name=name).outputs[0]

    def restore_state(self, state, name=None):
        """Restores the reader to a state `serialize_state` produced.

        Args:
            state: Scalar string.
            name: A name for the operation.

        Returns:
            The restoring operation.
        """
        state = ops.convert_to_tensor(state, dtype=_dtypes.string, name="state")
        return make_op("ReaderRestoreStateV2", [self._reader_ref, state], name=name)

    def reset(self, name=None):
        """Resets the reader to its initial clean state.

        Args:
            name: A name for the operation.

        Returns:
            The resetting operation.
        """
        return make_op("ReaderResetV2", [self._reader_ref], name=name)


def _reader_op(op_type, name, **attrs):
    attrs = {"container": "", "shared_name": "", **attrs}
    return make_op(op_type, [], attrs, name=name).outputs[0]


class WholeFileReader(ReaderBase):
    """A reader whose record is a whole file: the key is the file name."""

    def __init__(self, name=None):
        """Creates the reader.

        Args:
            name: A name for the operation.
        """
        super().__init__(_reader_op("WholeFileReaderV2", name), supports_serialize=True)


class TextLineReader(ReaderBase):
    """A reader of the lines of text files (without the newline); key `file:line`."""

    def __init__(self, skip_header_lines=None, name=None):
        """Creates the reader.

        Args:
            skip_header_lines: Lines to skip at the start of each file (default 0).
            name: A name for the operation.
        """
        ref = _reader_op("TextLineReaderV2", name, skip_header_lines=int(skip_header_lines or 0))
        super().__init__(ref)


class FixedLengthRecordReader(ReaderBase):
    """A reader of fixed-length records; key `file:index`."""

    def __init__(
        self,
        record_bytes,
        header_bytes=None,
        footer_bytes=None,
        hop_bytes=None,
        name=None,
        encoding=None,
    ):
        """Creates the reader.

        Args:
            record_bytes: The bytes of each record.
            header_bytes: Bytes to skip at the start of each file (default 0).
            footer_bytes: Bytes to ignore at the end of each file (default 0).
            hop_bytes: Bytes from one record's start to the next (default 0: the
                record length, records back to back).
            name: A name for the operation.
            encoding: `""`, `"ZLIB"` or `"GZIP"`: how the files are compressed.
        """
        ref = _reader_op(
            "FixedLengthRecordReaderV2",
            name,
            record_bytes=int(record_bytes),
            header_bytes=int(header_bytes or 0),
            footer_bytes=int(footer_bytes or 0),
            hop_bytes=int(hop_bytes or 0),
            encoding=encoding or "",
        )
        super().__init__(ref)


class TFRecordReader(ReaderBase):
    """A reader of TFRecord files; key `file:offset`."""

    def __init__(self, name=None, options=None):
        """Creates the reader.

        Args:
            name: A name for the operation.
            options: A `TFRecordOptions` (or a compression type) of the files.
        """
        compression_type = TFRecordOptions.get_compression_type_string(options)
        super().__init__(_reader_op("TFRecordReaderV2", name, compression_type=compression_type))


class IdentityReader(ReaderBase):
    """A reader whose record is the work unit itself, as key and value."""

    def __init__(self, name=None):
        """Creates the reader.

        Args:
            name: A name for the operation.
        """
        super().__init__(_reader_op("IdentityReaderV2", name), supports_serialize=True)
