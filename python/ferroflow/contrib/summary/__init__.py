"""`tf.contrib.summary`: TF 1.x's summary-op writer (see `ferroflow.ops.summary_ops_v2`)."""

from ...ops.summary_ops_v2 import (
    SummaryWriter,
    all_summary_ops,
    always_record_summaries,
    create_file_writer,
    flush,
    generic,
    graph,
    import_event,
    never_record_summaries,
    record_summaries_every_n_global_steps,
    scalar,
    should_record_summaries,
    summary_writer_initializer_op,
)

__all__ = [
    "SummaryWriter",
    "all_summary_ops",
    "always_record_summaries",
    "create_file_writer",
    "flush",
    "generic",
    "graph",
    "import_event",
    "never_record_summaries",
    "record_summaries_every_n_global_steps",
    "scalar",
    "should_record_summaries",
    "summary_writer_initializer_op",
]
