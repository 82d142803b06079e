"""TF 1.x's standard `SessionRunHook`s (`basic_session_run_hooks`).

`CheckpointSaverHook` (+ `CheckpointSaverListener`), `StepCounterHook`,
`LoggingTensorHook`, `GlobalStepWaiterHook`,
`SummarySaverHook`, `StopAtStepHook`, `NanTensorHook`, `FeedFnHook`, `FinalOpsHook`,
`ProfilerHook` (Chrome-trace timelines of traced steps) and the `SecondOrStepTimer`
the periodic hooks use. Writers come from `tf.summary.FileWriterCache`, one per
directory, as in TF.
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from ..client import timeline
from ..framework import ops
from ..ops import array_ops
from ..protos import RunOptions, SessionLog, Summary
from ..summary.writer import FileWriterCache
from . import training_util
from .saver import export_meta_graph, write_graph
from .session_run_hook import SessionRunArgs, SessionRunHook

__all__ = [
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "ProfilerHook",
    "SecondOrStepTimer",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
]

_log = logging.getLogger(__name__)

_GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def _get_or_create_global_step_read(graph=None):
    """A tensor reading the global step's value, or None without a global step.

    TF's cached `global_step + 0` (its cond on initialization needs `tf.cond`).
    """
    graph = graph or ops.get_default_graph()
    cached = graph.get_collection(_GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = training_util.get_global_step(graph)
    if step is None:
        return None
    with graph.as_default(), ops.name_scope(step.op.name + "/"):
        read = array_ops.identity(step) + 0
    graph.add_to_collection(_GLOBAL_STEP_READ_KEY, read)
    return read


class SecondOrStepTimer:
    """Triggers every `every_secs` seconds or every `every_steps` steps (one of them)."""

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if self._every_secs is None and self._every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if self._every_secs is not None and self._every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        """Forgets the last trigger."""
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        """Whether enough time or steps passed since the last trigger (True at first)."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if (
            self._every_secs is not None
            and time.time() >= self._last_triggered_time + self._every_secs
        ):
            return True
        if self._every_steps is not None and step >= self._last_triggered_step + self._every_steps:
            return True
        return False

    def update_last_triggered_step(self, step):
        """Records a trigger at `step`; returns (seconds, steps) since the previous one."""
        current_time = time.time()
        if self._last_triggered_time is None:
            elapsed_secs, elapsed_steps = None, None
        else:
            elapsed_secs = current_time - self._last_triggered_time
            elapsed_steps = step - self._last_triggered_step
        self._last_triggered_time = current_time
        self._last_triggered_step = step
        return elapsed_secs, elapsed_steps

    def last_triggered_step(self):
        """The step of the last trigger (None before the first)."""
        return self._last_triggered_step


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches `last_step` (or `num_steps` more).

    Raises:
        ValueError: Neither or both of `num_steps` and `last_step` are given.
    """

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        """Finds the global step (it must exist)."""
        self._global_step_tensor = _get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use StopAtStepHook.")

    def after_create_session(self, session, coord):
        """Turns `num_steps` into a last step, from the current global step."""
        if self._last_step is None:
            self._last_step = session.run(self._global_step_tensor) + self._num_steps

    def before_run(self, run_context):
        """Asks for the global step."""
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        """Requests a stop once the last step is reached."""
        # The read happened before the step ran; check the real value to be sure.
        if run_values.results + 1 >= self._last_step:
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._last_step:
                run_context.request_stop()


class NanLossDuringTrainingError(RuntimeError):
    """Raised by `NanTensorHook` when the loss became NaN."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Stops training (or raises `NanLossDuringTrainingError`) when `loss_tensor` is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        """Asks for the loss."""
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        """Raises or requests a stop when the loss is NaN."""
        if np.isnan(run_values.results):
            failure_message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _log.error(failure_message)
                raise NanLossDuringTrainingError
            _log.warning(failure_message)
            run_context.request_stop()


class FeedFnHook(SessionRunHook):
    """Adds `feed_fn()`'s feeds to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        """Adds the feeds `feed_fn()` returns."""
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` when the session ends; their values are `final_ops_values`."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        """The values `final_ops` had at the end (None before)."""
        return self._final_ops_values

    def end(self, session):
        """Runs the final ops and keeps their values."""
        if self._final_ops is not None:
            self._final_ops_values = session.run(
                self._final_ops, feed_dict=self._final_ops_feed_dict
            )


class CheckpointSaverListener:
    """Called around the saves of a `CheckpointSaverHook`; every method is optional.

    `after_save` may return True to request that training stop.
    """

    def begin(self):
        """Called once, in the hook's `begin`."""

    def before_save(self, session, global_step_value):
        """Called before each save."""

    def after_save(self, session, global_step_value):
        """Called after each save; True requests a stop."""

    def end(self, session, global_step_value):
        """Called at the end of the session."""


class CheckpointSaverHook(SessionRunHook):
    """Saves checkpoints every `save_secs` seconds or `save_steps` steps.

    As TF's: a checkpoint at once when the session is created, then by the timer,
    and at the end unless the last step was just saved; a `SessionLog.CHECKPOINT`
    event each time, and the graph and meta graph written once (`save_graph_def`).

    Raises:
        ValueError: Both `saver` and `scaffold`, or neither or both of `save_secs`
            and `save_steps`.
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
        save_graph_def=True,
    ):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1
        self._save_graph_def = save_graph_def

    def begin(self):
        """Opens the writer, finds the global step, starts the listeners."""
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use CheckpointSaverHook.")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        """Writes the graph and saves the state at the current step."""
        global_step = session.run(self._global_step_tensor)
        if self._save_graph_def:
            graph = ops.get_default_graph()
            write_graph(graph.as_graph_def(add_shapes=True), self._checkpoint_dir, "graph.pbtxt")
            saver = self._get_saver()
            meta = export_meta_graph(graph=graph, saver_def=saver.saver_def if saver else None)
            self._summary_writer.add_graph(graph)
            self._summary_writer.add_meta_graph(meta)
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        """Asks for the global step."""
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        """Saves when the timer says so (a listener may request a stop)."""
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        """Saves the last step unless it was just saved; ends the listeners."""
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step):
        return self._write_checkpoint(session, step)

    def _write_checkpoint(self, session, step, snapshot=None):
        """Saves with the listeners around it; returns whether one asked to stop.

        Writes the values in `snapshot` if given (see `Saver._snapshot`).
        """
        for listener in self._listeners:
            listener.before_save(session, step)
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver()._save_values(
            session,
            snapshot,
            self._save_path,
            global_step=step,
            write_meta_graph=self._save_graph_def,
        )
        self._summary_writer.add_session_log(
            SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step
        )
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                _log.info("A CheckpointSaverListener requested that training be stopped.")
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = ops.get_collection(ops.GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(
                f"No items in collection {ops.GraphKeys.SAVERS}. Please add a saver to the "
                "collection or provide a saver or scaffold."
            )
        if len(savers) > 1:
            raise RuntimeError(
                f"More than one item in collection {ops.GraphKeys.SAVERS}. Please indicate "
                "which one to use by passing it to the constructor."
            )
        self._saver = savers[0]
        return savers[0]


class StepCounterHook(SessionRunHook):
    """Writes (and logs) `global_step/sec` every N steps or seconds.

    Raises:
        ValueError: Not exactly one of `every_n_steps` and `every_n_secs`.
    """

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1

    def begin(self):
        """Opens the writer and finds the global step."""
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use StepCounterHook.")
        self._summary_tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        """Asks for the global step."""
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        """Records the rate when the timer says so."""
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None:
                    steps_per_sec = elapsed_steps / elapsed_time
                    if self._summary_writer is not None:
                        summary = Summary(
                            value=[Summary.Value(tag=self._summary_tag, simple_value=steps_per_sec)]
                        )
                        self._summary_writer.add_summary(summary, global_step)
                    _log.info("%s: %g", self._summary_tag, steps_per_sec)
        if stale_global_step == self._last_global_step:
            _log.warning(
                "It seems that global step (tf.train.get_global_step) has not been increased. "
                "Current value (could be stable): %s vs previous value: %s.",
                stale_global_step,
                self._last_global_step,
            )
        self._last_global_step = stale_global_step


class SummarySaverHook(SessionRunHook):
    """Writes the summary op's result every N steps or seconds.

    Raises:
        ValueError: Not exactly one of `scaffold` and `summary_op`.
    """

    def __init__(
        self,
        save_steps=None,
        save_secs=None,
        output_dir=None,
        summary_writer=None,
        scaffold=None,
        summary_op=None,
    ):
        if (scaffold is None and summary_op is None) or (
            scaffold is not None and summary_op is not None
        ):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        """Opens the writer and finds the global step."""
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use SummarySaverHook.")

    def before_run(self, run_context):
        """Asks for the global step, and the summaries when they are due."""
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(
            self._next_step
        )
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        """Writes the summaries (and a `SessionLog.START` the first time)."""
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", []):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        """Flushes the writer."""
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        summary_op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if summary_op is None:
            return None
        return summary_op if isinstance(summary_op, list) else [summary_op]


def _as_graph_element(obj):
    """A tensor from a tensor or a name (`"x"` means `"x:0"`, if `x` has one output)."""
    graph = ops.get_default_graph()
    if not isinstance(obj, str):
        if not hasattr(obj, "graph") or obj.graph is not graph:
            raise ValueError(
                f"Passed {obj} should have graph attribute that is equal to current graph {graph}."
            )
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(
        f"Name {obj} is ambiguous, as this `Operation` has multiple outputs (at least 2)."
    )


class _NeverTriggerTimer(SecondOrStepTimer):
    """A timer that never triggers (for hooks that act only at the end)."""

    def __init__(self):
        self.reset()

    def should_trigger_for_step(self, step):
        return False

    def update_last_triggered_step(self, step):
        return None, None


class LoggingTensorHook(SessionRunHook):
    """Logs the values of tensors every N runs or seconds, and/or at the end.

    `tensors` is a list of tensors or names (logged under their names, in order) or a
    dict from tags to tensors (logged sorted by tag); lines read `tag = value, ...`
    followed by ` (0.123 sec)` since the last line, or whatever `formatter(values)`
    returns.

    Raises:
        ValueError: Neither `at_end` nor exactly one of `every_n_iter` and
            `every_n_secs`, or `every_n_iter <= 0`.
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError(
                "either at_end and/or exactly one of every_n_iter and every_n_secs must be "
                "provided."
            )
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = tensors
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = (
            _NeverTriggerTimer()
            if only_log_at_end
            else SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter)
        )
        self._log_at_end = at_end

    def begin(self):
        """Resolves the tensors and resets the timer."""
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        """Asks for the tensors when a line is due."""
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                _log.info(self._formatter(tensor_values))
            else:
                stats = ", ".join(f"{tag} = {tensor_values[tag]}" for tag in self._tag_order)
                if elapsed_secs is not None:
                    _log.info("%s (%.3f sec)", stats, elapsed_secs)
                else:
                    _log.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        """Logs the values when a line was due."""
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        """Logs the final values with `at_end`."""
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first run until the global step reaches `wait_until_step`.

    For workers that should start after the chief has trained a while.
    """

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        """Finds the global step (it must exist)."""
        self._worker_is_started = False
        self._global_step_tensor = _get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use _GlobalStepWaiterHook.")

    def before_run(self, run_context):
        """Waits (polling every 0.5 s) until the global step is reached."""
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _log.info("Waiting for global step %d before starting training.", self._wait_until_step)
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            time.sleep(0.5)


class ProfilerHook(SessionRunHook):
    """Writes a Chrome-trace timeline of a traced step every N steps or seconds.

    The chosen steps run with `RunOptions(trace_level=FULL_TRACE)`; their step
    statistics become `timeline-<global step>.json` in `output_dir` (open it in
    `chrome://tracing` or Perfetto) and a `RunMetadata` event tagged `step_<global
    step>` in its event file, which TensorBoard's graph view shows.

    Args:
        save_steps: Trace every N steps. Exactly one of `save_steps` and `save_secs`.
        save_secs: Trace every N seconds.
        output_dir: Where the timelines and events go (default: the current directory).
        show_dataflow: Draw arrows from each tensor's producer to its consumers.
        show_memory: Show tensor lifetimes and the allocator's memory.
    """

    def __init__(
        self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False
    ):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = FileWriterCache.get(output_dir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        """Finds the global step (it must exist)."""
        self._next_step = None
        self._global_step_tensor = _get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use ProfilerHook.")

    def before_run(self, run_context):
        """Asks for the global step, and for a full trace when a timeline is due."""
        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(
            self._next_step
        )
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context, run_values):
        """Writes the traced step's timeline and run metadata."""
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            # The first step only starts the timer.
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(global_step)
            self._save(
                global_step,
                self._output_file.format(global_step),
                run_values.run_metadata.step_stats,
            )
            self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step, save_path, step_stats):
        _log.info("Saving timeline for %d into '%s'.", step, save_path)
        trace = timeline.Timeline(step_stats)
        text = trace.generate_chrome_trace_format(
            show_dataflow=self._show_dataflow, show_memory=self._show_memory
        )
        with open(save_path, "w") as f:
            f.write(text)
