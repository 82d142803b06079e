"""The event writer behind `FileWriter(session=...)` (TF's `EventFileWriterV2`).

It writes through the session's shared summary writer resource of its `logdir`
(`summary_ops_v2.create_file_writer`): events are fed to an `ImportEvent` op, and
flush, close and reopen run the writer's ops. It offers the interface `FileWriter`
uses of the native `EventWriter` (`add_event`, `add_summary`, `flush`, `close`,
`closed`).
"""

from __future__ import annotations

import os
import time

from ..framework import constant_op, dtypes, ops
from ..ops import array_ops, summary_ops_v2
from ..protos import Event, Summary


class SessionEventWriter:
    """Writes events to `logdir` through `session`'s summary writer resource."""

    def __init__(self, session, logdir, max_queue=10, flush_secs=120, filename_suffix=""):
        """Adds the writer's ops to `session.graph` and runs its init op."""
        self._session = session
        self._logdir = logdir
        self.closed = False
        # Tags whose first value kept its metadata (TF's writer strips it from later ones).
        self._seen_tags: set[str] = set()
        os.makedirs(logdir, exist_ok=True)
        with session.graph.as_default(), ops.name_scope("filewriter"):
            writer = summary_ops_v2.create_file_writer(
                logdir=logdir,
                max_queue=max_queue,
                flush_millis=int(flush_secs * 1000),
                filename_suffix=filename_suffix,
            )
            with summary_ops_v2.always_record_summaries(), writer.as_default():
                self._event = array_ops.placeholder_with_default(
                    constant_op.constant("unused", dtypes.string), shape=[]
                )
                self._add_event_op = summary_ops_v2.import_event(self._event)
            self._init_op = writer.init()
            self._flush_op = writer.flush()
            self._close_op = writer.close()
        session.run(self._init_op)

    @property
    def path(self):
        """The event file is the session resource's: its path is not known here."""
        return None

    def add_event(self, event_bytes):
        """Writes a serialized `Event` (dropped after `close()`, as TF's)."""
        if not self.closed:
            self._session.run(self._add_event_op, feed_dict={self._event: event_bytes})

    def add_summary(self, summary, global_step=None):
        """Writes a `Summary` (message or bytes) at `global_step`, as `FileWriter` does."""
        if isinstance(summary, bytes):
            summary = Summary.FromString(summary)
        stripped = Summary()
        stripped.CopyFrom(summary)
        for value in stripped.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_tags:
                value.ClearField("metadata")
            else:
                self._seen_tags.add(value.tag)
        event = Event(summary=stripped, wall_time=time.time())
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event.SerializeToString())

    def flush(self):
        """Writes every pending event to the file."""
        self._session.run(self._flush_op)

    def close(self):
        """Flushes and closes the event file; `reopen()` starts a new one."""
        if not self.closed:
            self.flush()
            self._session.run(self._close_op)
            self.closed = True

    def reopen(self):
        """After `close()`, opens a new event file in the same directory."""
        if self.closed:
            self.closed = False
            self._session.run(self._init_op)
