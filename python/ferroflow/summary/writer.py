"""`tf.summary.FileWriter` (= `tf.train.SummaryWriter`) and `summary_iterator`.

The writing happens in Rust (`ferroflow._ferroflow.EventWriter`): a background thread
frames each event as a TFRecord with masked CRC32C behind a bounded queue, so
`add_summary` returns at once unless `max_queue` events are pending; data reaches the
file every `flush_secs`, at `flush()`, at `close()` and at interpreter exit.
"""

from __future__ import annotations

import atexit
import os
import socket
import threading
import time
import warnings
import weakref

from .. import _ferroflow
from ..framework import meta_graph, ops
from ..platform import gfile
from ..protos import Event, GraphDef, MetaGraphDef, SessionLog, TaggedRunMetadata
from . import plugin_asset
from ._session_writer import SessionEventWriter

# The directory of `logdir` where plugin assets go (`<logdir>/plugins/<plugin>/`).
_PLUGINS_DIR = "plugins"

# Open writers, closed at interpreter exit so queued events reach the disk.
_OPEN_WRITERS: weakref.WeakSet[FileWriter] = weakref.WeakSet()


@atexit.register
def _close_open_writers():
    for writer in list(_OPEN_WRITERS):
        try:
            writer.close()
        except Exception:
            pass


class FileWriter:
    """Writes `Summary` protocol buffers and other events to an event file in `logdir`.

    The file is `events.out.tfevents.<seconds>.<hostname><filename_suffix>`; its first
    record is the `brain.Event:2` version event TensorBoard expects.

    Example:
        ```python
        writer = tf.summary.FileWriter("/tmp/logs", sess.graph)
        summary = sess.run(merged)
        writer.add_summary(summary, global_step)
        writer.close()
        ```
    """

    def __init__(
        self,
        logdir,
        graph=None,
        max_queue=10,
        flush_secs=120,
        graph_def=None,
        filename_suffix=None,
        session=None,
    ):
        """Creates the writer and its event file (and `logdir` if it does not exist).

        Args:
            logdir: The directory of the event file.
            graph: A `Graph` to write at once (what TensorBoard's graph tab shows).
            max_queue: Events that may be pending before `add_*` blocks.
            flush_secs: The longest time (seconds) events wait before reaching the file.
            graph_def: Deprecated: a `GraphDef` to write instead of `graph`.
            filename_suffix: Appended to the event file's name.
            session: A `Session`: write through its summary writer resource of
                `logdir` (TF 1.x's summary-op writer, shared with the session's other
                writers of `logdir`), with ops added to `session.graph`.

        Raises:
            ValueError: Both `graph` and `graph_def` are given.
        """
        self._session = session
        self._logdir = str(logdir)
        self._options = (int(max_queue), float(flush_secs), filename_suffix or "")
        self._run_metadata_tags: set[str] = set()
        self._writer: _ferroflow.EventWriter | SessionEventWriter = self._open()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            # As TF 1.x's writer: the meta graph too (the graph's collections with it).
            if isinstance(graph, ops.Graph):
                self.add_meta_graph(meta_graph.create_meta_graph_def(graph=graph))
            else:
                self.add_meta_graph(meta_graph.create_meta_graph_def(graph_def=graph_def or graph))

    def _open(self) -> _ferroflow.EventWriter | SessionEventWriter:
        """A new event writer: on a new file, or through the session's writer resource."""
        max_queue, flush_secs, suffix = self._options
        if self._session is not None:
            return SessionEventWriter(self._session, self._logdir, max_queue, flush_secs, suffix)
        writer = _ferroflow.EventWriter(
            self._logdir, max_queue, flush_secs, suffix, socket.gethostname()
        )
        _OPEN_WRITERS.add(self)
        return writer

    def get_logdir(self):
        """The directory of the event file."""
        return self._logdir

    @property
    def event_file(self):
        """The path of the event file being written."""
        return self._writer.path

    def add_event(self, event):
        """Writes an `Event` protocol buffer (dropped after `close()`, as in TF)."""
        self._writer.add_event(event.SerializeToString())

    def _warn_if_closed(self):
        if self._writer.closed:
            # TF's `_warn_if_event_writer_is_closed`: the event is dropped.
            warnings.warn(
                "Attempting to use a closed FileWriter. The operation will be a noop unless "
                "the FileWriter is explicitly reopened.",
                stacklevel=3,
            )

    def _add(self, event, global_step):
        self._warn_if_closed()
        event.wall_time = time.time()
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Writes a `Summary`: the message, or the serialized bytes a summary op returns.

        Only the first value of each tag keeps its `metadata`, as TF's writer does.

        Args:
            summary: A `Summary` protocol buffer or its serialization (`bytes`).
            global_step: The step to record with it.
        """
        self._warn_if_closed()
        if global_step is not None and type(global_step) is not int:
            global_step = int(global_step)
        # Serialising, framing and queueing happen in Rust; after close() the event is
        # dropped, as TF's writer drops it.
        self._writer.add_summary(summary, global_step)

    def add_session_log(self, session_log, global_step=None):
        """Writes a `SessionLog` (START, STOP or CHECKPOINT) at `global_step`."""
        self._add(Event(session_log=session_log), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes a graph (with each node's `_output_shapes`) for TensorBoard.

        Args:
            graph: A `Graph`, or (deprecated) a `GraphDef`.
            global_step: The step to record with it.
            graph_def: Deprecated: a `GraphDef`.

        Raises:
            ValueError: Both `graph` and `graph_def` are given.
            TypeError: `graph` is neither a `Graph` nor a `GraphDef`.
        """
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, ops.Graph):
            graph_def = graph.as_graph_def(add_shapes=True)
            self._write_plugin_assets(graph)
        elif graph is not None:
            graph_def = graph
        if not isinstance(graph_def, GraphDef):
            raise TypeError(f"Expected a Graph or a GraphDef, got {type(graph_def).__name__}")
        self._add(Event(graph_def=graph_def.SerializeToString()), global_step)

    def _write_plugin_assets(self, graph):
        """Writes the graph's plugin assets to `<logdir>/plugins/<plugin_name>/` (TF's)."""
        for asset_container in plugin_asset.get_all_plugin_assets(graph):
            plugin_dir = os.path.join(self._logdir, _PLUGINS_DIR, asset_container.plugin_name)
            gfile.MakeDirs(plugin_dir)
            for asset_name, content in asset_container.assets().items():
                with gfile.Open(os.path.join(plugin_dir, asset_name), "w") as f:
                    f.write(content)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Writes a `MetaGraphDef` (TensorBoard shows its graph).

        Args:
            meta_graph_def: A `MetaGraphDef` protocol buffer.
            global_step: The step to record with it.

        Raises:
            TypeError: `meta_graph_def` is not a `MetaGraphDef`.
        """
        if not isinstance(meta_graph_def, MetaGraphDef):
            raise TypeError(
                f"meta_graph_def must be type MetaGraphDef, saw type: {type(meta_graph_def)}"
            )
        self._add(Event(meta_graph_def=meta_graph_def.SerializeToString()), global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Writes a `RunMetadata` under `tag` (each tag once per writer).

        Raises:
            ValueError: `tag` was already used.
        """
        if tag in self._run_metadata_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._run_metadata_tags.add(tag)
        tagged = TaggedRunMetadata(tag=tag, run_metadata=run_metadata.SerializeToString())
        self._add(Event(tagged_run_metadata=tagged), global_step)

    def flush(self):
        """Writes every pending event to the file."""
        if not self._writer.closed:
            self._writer.flush()

    def close(self):
        """Writes every pending event and closes the file; closing twice does nothing."""
        self._writer.close()
        _OPEN_WRITERS.discard(self)

    def reopen(self):
        """After `close()`, starts a new event file in the same directory."""
        if not self._writer.closed:
            return
        if isinstance(self._writer, SessionEventWriter):
            # The same ops: their init op opens a new file.
            self._writer.reopen()
        else:
            self._writer = self._open()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def summary_iterator(path):
    """Yields the `Event` protocol buffers of an event file, in order.

    Both CRCs of every record are verified; a partial record at the end (a file still
    being written) ends the iteration.

    Args:
        path: The event file.

    Raises:
        tf.errors.DataLossError: A corrupted record (naming the file and offset).
        tf.errors.NotFoundError: No such file.
    """
    for record in _ferroflow.RecordReader(str(path)):
        yield Event.FromString(record)


__all__ = ["FileWriter", "SessionLog", "summary_iterator"]


class FileWriterCache:
    """One `FileWriter` per log directory, shared by the hooks (TF's cache)."""

    _cache: dict = {}  # noqa: RUF012 - TF's class-level cache, shared by design
    _lock = threading.RLock()

    @staticmethod
    def clear():
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir):
        """The writer of `logdir` (made, with the default graph, on first use)."""
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(logdir, graph=ops.get_default_graph())
            return FileWriterCache._cache[logdir]
