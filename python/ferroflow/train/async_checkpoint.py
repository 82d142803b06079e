"""`AsyncCheckpointSaverHook`: checkpoints written while training goes on.

TF's hook (`tf.contrib.tpu.AsyncCheckpointSaverHook`) runs the whole `Saver.save`
on a thread, so the values it writes are read while later steps update them. Here
the training step takes a snapshot instead: `Saver._snapshot` fetches the saved
variables as `TensorHandle`s that share their buffers (no copy; the next in-place
update copies a shared buffer first), and a background thread feeds that snapshot
to the save op, so serialisation, fsync and the state file all happen off the
training thread and the checkpoint holds one step's values.

At most one save is in flight. A save that falls due while one runs is deferred,
not queued: the first step after the running save finishes saves that step's
(newer) values, so a slow disk makes checkpoints rarer, never the steps slower.
(TF's hook waits up to 0.1 s for the running save, then drops the due one until the
timer fires again.) `end()` waits for the save in flight, then saves the last step
if it was not saved. An error in a background save is raised from the next `run`
(by `before_run`), or from `end()`; a listener's request to stop is honoured at the
next `after_run`.
"""

from __future__ import annotations

import logging
import threading
import time

from ..framework import ops
from .basic_session_run_hooks import CheckpointSaverHook
from .saver import export_meta_graph, write_graph
from .session_run_hook import SessionRunArgs

__all__ = ["AsyncCheckpointSaverHook"]

_log = logging.getLogger(__name__)


class AsyncCheckpointSaverHook(CheckpointSaverHook):
    """Saves checkpoints every N steps or seconds, on a background thread.

    Args:
        checkpoint_dir: Base directory for the checkpoint files.
        save_secs: Save every N seconds.
        save_steps: Save every N steps.
        saver: The `Saver` to save with.
        checkpoint_basename: Base name of the checkpoint files.
        scaffold: A `Scaffold` whose saver is used.
        listeners: `CheckpointSaverListener`s, called around each save (on the
            background thread, as TF's hook calls them).

    Raises:
        ValueError: One of `save_steps` or `save_secs` should be set; at most one of
            `saver` or `scaffold` should be set.
    """

    def __init__(
        self,
        checkpoint_dir,
        save_secs=None,
        save_steps=None,
        saver=None,
        checkpoint_basename="model.ckpt",
        scaffold=None,
        listeners=None,
    ):
        _log.info("Create AsyncCheckpointSaverHook.")
        super().__init__(
            checkpoint_dir,
            save_secs=save_secs,
            save_steps=save_steps,
            saver=saver,
            checkpoint_basename=checkpoint_basename,
            scaffold=scaffold,
            listeners=listeners,
        )
        self._save_thread: threading.Thread | None = None
        self._write_graph_thread = None
        self._last_checkpoint_step = None
        # Set by the save thread, read and cleared by the training thread.
        self._background_error = None
        self._stop_requested = False
        self._deferred = False

    def after_create_session(self, session, coord):
        """Writes the graph (on a thread) and saves the state at the current step."""
        global_step = session.run(self._global_step_tensor)
        graph = ops.get_default_graph()
        graph_def = graph.as_graph_def(add_shapes=True)
        self._write_graph_thread = threading.Thread(
            target=write_graph,
            args=(graph_def, self._checkpoint_dir, "graph.pbtxt"),
            name="AsyncCheckpointGraphWriter",
            daemon=True,
        )
        self._write_graph_thread.start()
        saver = self._get_saver()
        meta = export_meta_graph(graph=graph, saver_def=saver.saver_def if saver else None)
        self._summary_writer.add_graph(graph)
        self._summary_writer.add_meta_graph(meta)
        # A save from before a recovered session must finish before its successor.
        self._join_save_thread()
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        """Raises the error of a failed background save; asks for the global step."""
        self._raise_background_error()
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        """Starts a save when one is due and none is in flight.

        A save due while one is in flight waits for it to finish, then saves the step
        current at that time.
        """
        if self._stop_requested:
            run_context.request_stop()
        stale_global_step = run_values.results
        if not self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            return
        if self._save_in_flight():
            if not self._deferred:
                _log.info("Saver thread still in progress, deferring checkpoint.")
                self._deferred = True
            return
        global_step = run_context.session.run(self._global_step_tensor)
        if self._timer.should_trigger_for_step(global_step):
            self._timer.update_last_triggered_step(global_step)
            _log.info("Triggering checkpoint. %s", global_step)
            self._save(run_context.session, global_step)

    def end(self, session):
        """Waits for the save in flight, saves the last step if needed, ends listeners."""
        self._join_save_thread()
        if self._write_graph_thread is not None:
            _log.info("Waiting for any pending write_graph to finish.")
            self._write_graph_thread.join()
        self._raise_background_error()
        last_step = session.run(self._global_step_tensor)
        if self._last_checkpoint_step != last_step:
            self._save(session, last_step, asynchronous=False)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save_in_flight(self):
        return self._save_thread is not None and self._save_thread.is_alive()

    def _join_save_thread(self):
        thread = self._save_thread
        if thread is not None and thread.is_alive():
            _log.info("Waiting for any pending checkpoints to finish.")
            thread.join()

    def _raise_background_error(self):
        error, self._background_error = self._background_error, None
        if error is not None:
            raise error

    def _save(self, session, step, asynchronous=True):
        """Saves `step` now, or starts a background save of a snapshot of it.

        With `asynchronous=False` it returns whether a listener asked to stop; otherwise
        no save may be in flight.
        """
        self._last_checkpoint_step = step
        self._deferred = False
        if not asynchronous:
            return self._write_checkpoint(session, step)
        snapshot = self._get_saver()._snapshot(session)
        self._save_thread = threading.Thread(
            target=self._save_in_background,
            args=(session, step, snapshot),
            name="AsyncCheckpointSaver",
            daemon=True,
        )
        self._save_thread.start()
        return False

    def _save_in_background(self, session, step, snapshot):
        start = time.time()
        try:
            if self._write_checkpoint(session, step, snapshot):
                self._stop_requested = True
        except Exception as e:
            if getattr(session, "_closed", False):
                # The session was closed under the save (recovery or shutdown): the
                # checkpoint was never published (bundles are written atomically).
                _log.warning("Checkpoint for step %d abandoned: its session closed (%s)", step, e)
            else:
                _log.error("Checkpoint for step %d failed: %s", step, e)
                self._background_error = e
            return
        _log.info("Checkpoint actual writing time: (%.3f sec)", time.time() - start)
        _log.info("Checkpoint finished for %d into %s.", step, self._save_path)
