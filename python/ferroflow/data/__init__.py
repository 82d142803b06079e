"""`tf.data` (TF 1.x): input pipelines as datasets and iterators.

The pipeline runs natively: dataset ops make Rust descriptions of datasets, and an
iterator's elements are produced by Rust iterators (prefetch and parallel `map` on
threads of their own, with bounded buffers) without the GIL.
"""

from __future__ import annotations

from . import experimental
from .dataset_ops import AUTOTUNE, Dataset, DatasetV1, Options
from .iterator_ops import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset

__all__ = [
    "AUTOTUNE",
    "Dataset",
    "DatasetV1",
    "FixedLengthRecordDataset",
    "Iterator",
    "Options",
    "TFRecordDataset",
    "TextLineDataset",
    "experimental",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]
