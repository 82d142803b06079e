"""`tf.io`: file access (`tf.io.gfile`) and TFRecord files."""

from ..platform import io_gfile as gfile
from .tf_record import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)

__all__ = [
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "gfile",
    "tf_record_iterator",
]
