"""`tf.python_io`: TFRecord files (`TFRecordWriter`, `tf_record_iterator`)."""

from .io.tf_record import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]
