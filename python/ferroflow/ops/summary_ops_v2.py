"""TF 1.x's summary-op writer (`tf.contrib.summary`, TF's `summary_ops_v2`), in graph mode.

A `SummaryWriter` is a session resource (`SummaryWriter` op, shared by name: by
default `"logdir:" + logdir`, so writers of one directory in one session share a
file). Its `init()` op opens the event file (`CreateSummaryFileWriter`; a no-op while
the shared writer is open), the summary functions (`scalar`, `generic`, `graph`,
`import_event`) write through the writer made default by `as_default()` when the
recording condition (`always_record_summaries()`, `never_record_summaries()`,
`record_summaries_every_n_global_steps(n)`) holds, and `flush()`/`close()` are ops.
`FileWriter(session=...)` writes its events through one of these writers.
"""

from __future__ import annotations

import contextlib
import threading
import weakref

from ..framework import constant_op, dtypes, ops
from . import array_ops, control_flow_ops, math_ops
from ._op_util import make_op
from .smart_cond import smart_cond
from .summary_ops import _summary_scope

# The collection of the summary ops (TF's name).
_SUMMARY_COLLECTION = "_SUMMARY_V2"
# The writers' init ops per graph: as TF, kept apart from the graph's collections (so
# they do not reach exported meta graphs).
_SUMMARY_WRITER_INIT_OPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _SummaryState(threading.local):
    """The default writer and recording condition (per thread, as TF's)."""

    def __init__(self):
        super().__init__()
        self.writer: SummaryWriter | None = None
        self.is_recording = None


_summary_state = _SummaryState()


class SummaryWriter:
    """A summary writer resource and the ops that drive it.

    Made by `create_file_writer`; `as_default()` makes the summary functions write
    through it.
    """

    def __init__(self, resource, init_op_fn):
        """Wraps the `SummaryWriter` handle `resource`; `init_op_fn()` makes its init op."""
        self._resource = resource
        self._init_op_fn = init_op_fn

    @contextlib.contextmanager
    def as_default(self):
        """Within the block, the summary functions write through this writer."""
        old = _summary_state.writer
        _summary_state.writer = self
        try:
            yield self
        finally:
            _summary_state.writer = old

    def set_as_default(self):
        """Makes this writer the default from now on."""
        _summary_state.writer = self

    def init(self):
        """An op that opens the event file (a no-op while the shared writer is open)."""
        if self._resource is None:
            return control_flow_ops.no_op()
        return self._init_op_fn()

    def flush(self):
        """An op that writes every pending event to the file."""
        return flush(writer=self)

    def close(self):
        """An op that flushes and closes the event file; `init()` reopens a new one."""
        if self._resource is None:
            return control_flow_ops.no_op()
        with ops.control_dependencies([self.flush()]):
            return make_op("CloseSummaryWriter", [self._resource], name="CloseSummaryWriter")


def _const(value, dtype, name):
    if isinstance(value, ops.Tensor):
        return value
    return constant_op.constant(value, dtype=dtype, name=name)


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None):
    """A `SummaryWriter` writing an event file in `logdir` (TF's defaults).

    Args:
        logdir: The directory of the event file; `None` makes a writer that writes nothing.
        max_queue: Events that may be pending before writing blocks (default 10).
        flush_millis: The longest time events wait before reaching the file (default 2 min).
        filename_suffix: Appended to the event file's name (default `".v2"`).
        name: The shared name of the writer resource (default `"logdir:" + logdir`).

    Returns:
        A `SummaryWriter`; run its `init()` op before writing.
    """
    if logdir is None:
        return SummaryWriter(None, None)
    logdir = str(logdir)
    with ops.device("cpu:0"):
        max_queue = _const(10 if max_queue is None else max_queue, dtypes.int32, "max_queue")
        flush_millis = _const(
            2 * 60 * 1000 if flush_millis is None else flush_millis, dtypes.int32, "flush_millis"
        )
        suffix = ".v2" if filename_suffix is None else filename_suffix
        suffix = _const(suffix, dtypes.string, "filename_suffix")
        resource = make_op(
            "SummaryWriter", [], {"shared_name": name or "logdir:" + logdir}, name="SummaryWriter"
        ).outputs[0]
        logdir_t = constant_op.constant(logdir, dtypes.string, name="logdir")

        def init_op():
            return make_op(
                "CreateSummaryFileWriter",
                [resource, logdir_t, max_queue, flush_millis, suffix],
                name="CreateSummaryFileWriter",
            )

        graph = ops.get_default_graph()
        _SUMMARY_WRITER_INIT_OPS.setdefault(graph, []).append(init_op())
        return SummaryWriter(resource, init_op)


@contextlib.contextmanager
def _recording(condition):
    old = _summary_state.is_recording
    _summary_state.is_recording = condition
    try:
        yield
    finally:
        _summary_state.is_recording = old


def always_record_summaries():
    """A context in which the summary functions always write."""
    return _recording(True)


def never_record_summaries():
    """A context in which the summary functions never write."""
    return _recording(False)


def record_summaries_every_n_global_steps(n, global_step=None):
    """A context in which the summary functions write when `global_step % n == 0`."""
    if global_step is None:
        from ..train import training_util

        global_step = training_util.get_or_create_global_step()
    with ops.device("cpu:0"):
        condition = math_ops.equal(global_step % n, 0)
    return _recording(condition)


def should_record_summaries():
    """The recording condition in force (a bool or a boolean tensor; False outside)."""
    condition = _summary_state.is_recording
    return False if condition is None else condition


def _choose_step(step):
    """`step` (default: the global step) as an int64 tensor."""
    if step is None:
        from ..train import training_util

        step = training_util.get_or_create_global_step()
    if isinstance(step, ops.Tensor):
        tensor = step
    elif hasattr(step, "value") and hasattr(step, "initializer"):
        tensor = step.value()
    else:
        return ops.convert_to_tensor(step, dtypes.int64)
    if tensor.dtype.base_dtype == dtypes.int64:
        return tensor
    return array_ops.cast(tensor, dtypes.int64)


def summary_writer_function(name, tensor, function, family=None):
    """Runs `function(tag, scope)` under the recording condition; TF's helper.

    Returns:
        A boolean tensor (whether it wrote), or a no-op without a default writer.
    """
    name_scope = ops.get_default_graph().get_name_scope()
    if name_scope:
        name_scope += "/"

    def record():
        with (
            ops.name_scope(name_scope),
            _summary_scope(name, family, values=[tensor]) as (
                tag,
                scope,
            ),
        ):
            with ops.control_dependencies([function(tag, scope)]):
                return constant_op.constant(True)

    def nothing():
        return constant_op.constant(False)

    if _summary_state.writer is None or _summary_state.writer._resource is None:
        return control_flow_ops.no_op()
    with ops.device("cpu:0"):
        op = smart_cond(should_record_summaries(), record, nothing, name="")
        ops.add_to_collection(_SUMMARY_COLLECTION, op)
    return op


def _writer_resource():
    return _summary_state.writer._resource  # type: ignore[union-attr]


def scalar(name, tensor, family=None, step=None):
    """Writes the real scalar `tensor` as a simple value named `name` at `step`."""

    def function(tag, scope):
        step_t = _choose_step(step)
        value = array_ops.identity(tensor)
        tag_t = ops.convert_to_tensor(tag, dtypes.string)
        inputs = [_writer_resource(), step_t, tag_t, value]
        return make_op("WriteScalarSummary", inputs, scope=scope)

    return summary_writer_function(name, tensor, function, family=family)


def generic(name, tensor, metadata=None, family=None, step=None):
    """Writes `tensor` (any dtype) as a tensor summary with `metadata` at `step`."""

    def function(tag, scope):
        if metadata is None:
            serialized = constant_op.constant("")
        elif hasattr(metadata, "SerializeToString"):
            serialized = constant_op.constant(metadata.SerializeToString())
        else:
            serialized = ops.convert_to_tensor(metadata, dtypes.string)
        step_t = _choose_step(step)
        value = array_ops.identity(tensor)
        tag_t = ops.convert_to_tensor(tag, dtypes.string)
        return make_op(
            "WriteSummary", [_writer_resource(), step_t, value, tag_t, serialized], scope=scope
        )

    return summary_writer_function(name, tensor, function, family=family)


def graph(param, step=None, name=None):
    """Writes a graph (a `Graph`, a `GraphDef` or its serialization) at `step`."""
    if _summary_state.writer is None or _summary_state.writer._resource is None:
        return control_flow_ops.no_op()
    with ops.device("cpu:0"):
        if isinstance(param, ops.Graph):
            param = param.as_graph_def()
        if hasattr(param, "SerializeToString"):
            param = constant_op.constant(param.SerializeToString())
        param = ops.convert_to_tensor(param, dtypes.string)
        return make_op(
            "WriteGraphSummary",
            [_writer_resource(), _choose_step(step), param],
            name=name or "WriteGraphSummary",
        )


def import_event(tensor, name=None):
    """Writes the serialized `Event`s of string `tensor` through the default writer."""
    tensor = ops.convert_to_tensor(tensor, dtypes.string)
    return make_op("ImportEvent", [_writer_resource(), tensor], name=name or "ImportEvent")


def flush(writer=None, name=None):
    """An op that flushes `writer` (default: the default writer; a no-op without one)."""
    if writer is None:
        writer = _summary_state.writer
        if writer is None:
            return control_flow_ops.no_op()
    resource = writer._resource if isinstance(writer, SummaryWriter) else writer
    if resource is None:
        return control_flow_ops.no_op()
    with ops.device("cpu:0"):
        return make_op("FlushSummaryWriter", [resource], name=name or "FlushSummaryWriter")


def all_summary_ops():
    """The summary ops made by the functions here (TF's `_SUMMARY_V2` collection)."""
    return ops.get_collection(_SUMMARY_COLLECTION)


def summary_writer_initializer_op():
    """The init ops of the writers made by `create_file_writer`."""
    return list(_SUMMARY_WRITER_INIT_OPS.get(ops.get_default_graph(), []))
