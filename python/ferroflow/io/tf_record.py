"""TFRecord files, as `tf.python_io` and `tf.io` name them.

`TFRecordWriter`, `tf_record_iterator`, `TFRecordOptions` and `TFRecordCompressionType`
over the Rust record reader and writer: framing, CRCs and zlib/gzip streams are done
there, without the GIL.
"""

from __future__ import annotations

import os
from typing import ClassVar

from .. import _ferroflow

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]


class TFRecordCompressionType:
    """The compression of a TFRecord file."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {"": TFRecordCompressionType.NONE, "ZLIB": 1, "GZIP": 2}


class TFRecordOptions:
    """How a TFRecord file is compressed.

    Args:
        compression_type: `TFRecordCompressionType` or `"ZLIB"`, `"GZIP"`, `""`/None.
        compression_level: zlib's level, 0-9 (None: the default).
        flush_mode, input_buffer_size, output_buffer_size, window_bits,
        compression_method, mem_level, compression_strategy: accepted for TF's
            signature; the stream is zlib's default format with these defaults.
    """

    compression_type_map: ClassVar[dict[int, str]] = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(
        self,
        compression_type=None,
        flush_mode=None,
        input_buffer_size=None,
        output_buffer_size=None,
        window_bits=None,
        compression_level=None,
        compression_method=None,
        mem_level=None,
        compression_strategy=None,
    ):
        if compression_type is None:
            compression_type = TFRecordCompressionType.NONE
        if isinstance(compression_type, str):
            if compression_type not in _NAMES:
                raise ValueError(f'Unsupported compression type: "{compression_type}"')
            compression_type = _NAMES[compression_type]
        if compression_type not in self.compression_type_map:
            raise ValueError(f"Unsupported compression type: {compression_type}")
        if compression_level is not None and not 0 <= compression_level <= 9:
            raise ValueError(f"compression_level must be in [0, 9], got {compression_level}")
        self.compression_type = compression_type
        self.compression_level = compression_level
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        """The compression type of `options` (None, a string, or options) as TF's name."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.compression_type_map[options.compression_type]
        if options in cls.compression_type_map:
            return cls.compression_type_map[options]
        if options in _NAMES:
            return options
        raise ValueError(f'Not a valid compression_type: "{options}"')


def _options(options) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(options)


def tf_record_iterator(path, options=None):
    """Yields the records of the TFRecord file `path`, as bytes.

    Args:
        path: The file.
        options: A `TFRecordOptions`, or a compression type.

    Raises:
        tf.errors.NotFoundError: `path` does not exist.
        tf.errors.DataLossError: A record is corrupted, or cut short after its header.
    """
    opts = _options(options)
    reader = _ferroflow.RecordReader(os.fspath(path), opts.compression_type)
    yield from reader


class TFRecordWriter:
    """Writes records (bytes) to a TFRecord file.

    ```python
    with tf.python_io.TFRecordWriter("data.tfrecord") as writer:
        writer.write(example.SerializeToString())
    ```

    Args:
        path: The file to create (replaced if it exists).
        options: A `TFRecordOptions`, or a compression type.
    """

    def __init__(self, path, options=None):
        opts = _options(options)
        self._writer = _ferroflow.RecordWriter(
            os.fspath(path), opts.compression_type, opts.compression_level
        )

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, tb):
        self.close()

    def write(self, record) -> None:
        """Appends `record` (bytes, or str as UTF-8)."""
        self._writer.write(record.encode("utf-8") if isinstance(record, str) else bytes(record))

    def flush(self) -> None:
        """Hands what is buffered to the OS."""
        self._writer.flush()

    def close(self) -> None:
        """Finishes, syncs and closes the file."""
        self._writer.close()
