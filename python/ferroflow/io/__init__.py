"""`tf.io`: file access (`tf.io.gfile`), TFRecord files, record parsing.

`parse_example`, `parse_single_example`, `parse_sequence_example` and
`parse_single_sequence_example` read `tf.train.Example` and `SequenceExample` records.
"""

from ..ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
    decode_json_example,
    decode_raw,
    parse_example,
    parse_sequence_example,
    parse_single_example,
    parse_single_sequence_example,
    parse_tensor,
    serialize_tensor,
)
from ..platform import io_gfile as gfile
from .tf_record import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "VarLenFeature",
    "decode_json_example",
    "decode_raw",
    "gfile",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
    "tf_record_iterator",
]
