"""TF 1.x's standard `SessionRunHook`s (`basic_session_run_hooks`).

So far `StopAtStepHook`, `NanTensorHook`, `FeedFnHook`, `FinalOpsHook` and the
`SecondOrStepTimer` the periodic hooks use.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from ..framework import ops
from ..ops import array_ops
from . import training_util
from .session_run_hook import SessionRunArgs, SessionRunHook

__all__ = [
    "FeedFnHook",
    "FinalOpsHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "SecondOrStepTimer",
    "StopAtStepHook",
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
