"""`tf.summary`: summary ops and the event-file writer (TF-1.x)."""

from ..ops.summary_ops import audio, histogram, image, merge, merge_all, scalar
from ..protos import Event, SessionLog, Summary, SummaryDescription, SummaryMetadata
from .writer import FileWriter, FileWriterCache, summary_iterator

__all__ = [
    "Event",
    "FileWriter",
    "FileWriterCache",
    "SessionLog",
    "Summary",
    "SummaryDescription",
    "SummaryMetadata",
    "audio",
    "histogram",
    "image",
    "merge",
    "merge_all",
    "scalar",
    "summary_iterator",
]
