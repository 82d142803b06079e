"""`tf.data`'s file datasets: `TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset`.

Each reads its files in order (or, with
`num_parallel_reads`, several at once through `parallel_interleave`, each read ahead
on a thread of its own), one string scalar per record.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from . import _structure as structure
from .dataset_ops import DatasetV1, _int64, _make

_STRING = structure._Spec(dtypes.string, [])


def _filenames(filenames):
    t = ops.convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    if t.shape.ndims not in (None, 0, 1):
        raise TypeError("`filenames` must be a `tf.Tensor` of dimension 0 or 1.")
    return t


def _compression(compression_type):
    return ops.convert_to_tensor(
        "" if compression_type is None else compression_type,
        dtype=dtypes.string,
        name="compression_type",
    )


class _FileDataset(DatasetV1):
    """A dataset of records read by `read_one(filenames)`, one file or several at once."""

    def __init__(self, filenames, num_parallel_reads, read_one):
        filenames = _filenames(filenames)
        if num_parallel_reads is None:
            dataset = read_one(filenames)
        else:
            from .experimental import parallel_interleave

            names = DatasetV1.from_tensor_slices(
                filenames if filenames.shape.ndims != 0 else [filenames]
            )
            dataset = names.apply(
                parallel_interleave(read_one, cycle_length=num_parallel_reads, block_length=1)
            )
        super().__init__(dataset._variant_tensor, dataset._structure)


def _stream_reader(op_type, compression_type, buffer_size):
    """`read_one` for the datasets whose op takes `filenames, compression_type, buffer_size`."""

    def read_one(names):
        with ops.name_scope(None, op_type, []):
            inputs = [names, _compression(compression_type), _buffer_size(buffer_size)]
            return _make(op_type, inputs, _STRING)

    return read_one


def _buffer_size(buffer_size):
    return _int64(256 * 1024 if buffer_size is None else buffer_size, "buffer_size")


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files (`compression_type` `""`, `"ZLIB"` or `"GZIP"`)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        read_one = _stream_reader("TFRecordDataset", compression_type, buffer_size)
        super().__init__(filenames, num_parallel_reads, read_one)


class TextLineDataset(_FileDataset):
    """The lines of text files, without their line ends."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        read_one = _stream_reader("TextLineDataset", compression_type, buffer_size)
        super().__init__(filenames, num_parallel_reads, read_one)


class FixedLengthRecordDataset(_FileDataset):
    """The `record_bytes`-long records of files, after `header_bytes`, before `footer_bytes`."""

    def __init__(
        self,
        filenames,
        record_bytes,
        header_bytes=None,
        footer_bytes=None,
        buffer_size=None,
        compression_type=None,
        num_parallel_reads=None,
    ):
        def read_one(names):
            with ops.name_scope(None, "FixedLengthRecordDataset", []):
                inputs = [
                    names,
                    _int64(header_bytes or 0, "header_bytes"),
                    _int64(record_bytes, "record_bytes"),
                    _int64(footer_bytes or 0, "footer_bytes"),
                    _buffer_size(buffer_size),
                    _compression(compression_type),
                ]
                return _make("FixedLengthRecordDatasetV2", inputs, _STRING)

        super().__init__(filenames, num_parallel_reads, read_one)
