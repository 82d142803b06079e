"""`tf.train.Supervisor`: training with checkpoints, summaries and recovery handled.

TF 1.x's class, method for method (seed 003): it gathers the model's ready, init,
local-init, summary and global-step ops and a Saver (made by default, `None` turns
one off), finalizes the graph, and prepares sessions through a `SessionManager`: the
chief restores the latest checkpoint from `logdir` or initializes the model, writes
the graph and starts the standard services (a summary thread, a steps-per-second
thread and a checkpoint thread, all `LooperThread`s on the Supervisor's
`Coordinator`); other tasks wait for the model to be ready. `managed_session`
stops the services and closes the session on the way out, treating
`OutOfRangeError` as a clean end.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time

from .. import errors
from ..framework import dtypes, ops
from ..ops import control_flow_ops
from ..ops.variables import (
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from ..protos import SessionLog, Summary
from ..summary import merge_all
from ..summary.writer import FileWriter
from . import coordinator, training_util
from .saver import Saver, export_meta_graph, write_graph
from .session_manager import SessionManager

__all__ = ["Supervisor", "basic_train_loop"]

_log = logging.getLogger(__name__)


class Supervisor:
    """A training helper that checkpoints models and computes summaries.

    Every constructor argument defaulting to `USE_DEFAULT` (0) takes the graph's
    collection entry, or makes the standard one (and adds it to the collection);
    `None` disables it. Only a chief (`is_chief=True`) writes checkpoints and
    summaries; it restores from or saves to `logdir`.

    Args:
        graph: The graph (default: the default graph). Finalized by the constructor.
        ready_op: Checks that the model is ready (default
            `report_uninitialized_variables()`).
        ready_for_local_init_op: Checks that `local_init_op` may run (default: the
            collection's, else none).
        is_chief: Whether this task initializes the model and runs the services.
        init_op: Initializes the model when no checkpoint is found (default
            `global_variables_initializer()`).
        init_feed_dict: Feeds for `init_op`.
        local_init_op: Run in every new session (default: local variables'
            initializer).
        logdir: Where checkpoints and event files go (None: neither).
        summary_op: The summaries the summary thread writes (default `merge_all()`).
        saver: The Saver for checkpoints (default: a new `Saver()` when there are
            variables).
        global_step: The step counter (default: the tensor `global_step:0`).
        save_summaries_secs: Seconds between summaries (None or 0: never).
        save_model_secs: Seconds between checkpoints (None or 0: never).
        recovery_wait_secs: Seconds between checks for a ready model.
        stop_grace_secs: Grace period for threads to stop in `stop()`.
        checkpoint_basename: The checkpoint files' base name in `logdir`.
        session_manager: A `SessionManager` to use instead of the default.
        summary_writer: A `FileWriter` (default: one on `logdir`).
        init_fn: Called with the session after `init_op`.
        local_init_run_options: `RunOptions` for running `local_init_op`.

    Raises:
        ValueError: A non-chief Supervisor's graph has variables without a device.
    """

    # Pass this for an argument to get the default; None disables the service.
    USE_DEFAULT = 0

    def __init__(
        self,
        graph=None,
        ready_op=USE_DEFAULT,
        ready_for_local_init_op=USE_DEFAULT,
        is_chief=True,
        init_op=USE_DEFAULT,
        init_feed_dict=None,
        local_init_op=USE_DEFAULT,
        logdir=None,
        summary_op=USE_DEFAULT,
        saver=USE_DEFAULT,
        global_step=USE_DEFAULT,
        save_summaries_secs=120,
        save_model_secs=600,
        recovery_wait_secs=30,
        stop_grace_secs=120,
        checkpoint_basename="model.ckpt",
        session_manager=None,
        summary_writer=USE_DEFAULT,
        init_fn=None,
        local_init_run_options=None,
    ):
        if graph is None:
            graph = ops.get_default_graph()
        with graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._init_global_step(global_step)
        self._graph = graph
        with graph.as_default():
            self._meta_graph_def = export_meta_graph(
                graph=graph, saver_def=self._saver.saver_def if self._saver else None
            )
        self._is_chief = is_chief
        self._coord = coordinator.Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        # Only a chief writes checkpoints and events.
        self._logdir = None
        self._save_summaries_secs = None
        self._save_model_secs = None
        self._save_path = None
        self._summary_writer = None
        if self._is_chief:
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if self._logdir:
                self._save_path = os.path.join(self._logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if self._logdir:
                    self._summary_writer = FileWriter(self._logdir)
            else:
                self._summary_writer = summary_writer
            self._graph_added_to_summary = False
        self._init_session_manager(session_manager)
        self._verify_setup()
        graph.finalize()

    # -- defaults ---------------------------------------------------------------------
    def _init_session_manager(self, session_manager):
        if session_manager is None:
            session_manager = SessionManager(
                local_init_op=self._local_init_op,
                ready_op=self._ready_op,
                ready_for_local_init_op=self._ready_for_local_init_op,
                graph=self._graph,
                recovery_wait_secs=self._recovery_wait_secs,
                local_init_run_options=self._local_init_run_options,
            )
        self._session_manager = session_manager

    @staticmethod
    def _get_first_op_from_collection(key):
        found = ops.get_collection(key)
        if len(found) > 1:
            _log.info("Found %d %s operations. Returning the first one.", len(found), key)
        return found[0] if found else None

    def _init_ready_op(self, ready_op, ready_for_local_init_op):
        if ready_op is Supervisor.USE_DEFAULT:
            ready_op = self._get_first_op_from_collection(ops.GraphKeys.READY_OP)
            if ready_op is None:
                ready_op = report_uninitialized_variables()
                ops.add_to_collection(ops.GraphKeys.READY_OP, ready_op)
        self._ready_op = ready_op
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._get_first_op_from_collection(
                ops.GraphKeys.READY_FOR_LOCAL_INIT_OP
            )
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_op(self, init_op, init_feed_dict):
        if init_op is Supervisor.USE_DEFAULT:
            init_op = self._get_first_op_from_collection(ops.GraphKeys.INIT_OP)
            if init_op is None:
                init_op = global_variables_initializer()
                ops.add_to_collection(ops.GraphKeys.INIT_OP, init_op)
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op):
        if local_init_op is Supervisor.USE_DEFAULT:
            local_init_op = self._get_first_op_from_collection(ops.GraphKeys.LOCAL_INIT_OP)
            if local_init_op is None:
                # TF groups the local variables' and the lookup tables' initializers;
                # ferroflow has no lookup tables yet.
                local_init_op = control_flow_ops.group(local_variables_initializer())
                ops.add_to_collection(ops.GraphKeys.LOCAL_INIT_OP, local_init_op)
        self._local_init_op = local_init_op

    def _init_saver(self, saver):
        if saver is Supervisor.USE_DEFAULT:
            saver = self._get_first_op_from_collection(ops.GraphKeys.SAVERS)
            if saver is None and global_variables():
                saver = Saver()
                ops.add_to_collection(ops.GraphKeys.SAVERS, saver)
        self._saver = saver

    def _init_summary_op(self, summary_op):
        if summary_op is Supervisor.USE_DEFAULT:
            summary_op = self._get_first_op_from_collection(ops.GraphKeys.SUMMARY_OP)
            if summary_op is None:
                summary_op = merge_all()
                if summary_op is not None:
                    ops.add_to_collection(ops.GraphKeys.SUMMARY_OP, summary_op)
        self._summary_op = summary_op

    def _init_global_step(self, global_step):
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._get_first_op_from_collection(ops.GraphKeys.GLOBAL_STEP)
            if global_step is None:
                global_step = self._default_global_step_tensor()
                if global_step is not None:
                    ops.add_to_collection(ops.GraphKeys.GLOBAL_STEP, global_step)
        self._global_step = global_step

    @staticmethod
    def _default_global_step_tensor():
        try:
            gs = ops.get_default_graph().get_tensor_by_name("global_step:0")
        except KeyError:
            return None
        if gs.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            return gs
        _log.warning("Found 'global_step' is not an int type: %s", gs.dtype)
        return None

    def _verify_setup(self):
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError(
                        f"When using replicas, all Variables must have their device set: {op}"
                    )

    # -- properties -------------------------------------------------------------------
    @property
    def is_chief(self):
        """Whether this is the chief Supervisor."""
        return self._is_chief

    @property
    def session_manager(self):
        """The `SessionManager` that makes the sessions."""
        return self._session_manager

    @property
    def coord(self):
        """The `Coordinator` of the services and queue runners."""
        return self._coord

    @property
    def init_op(self):
        """The op that initializes the model (or None)."""
        return self._init_op

    @property
    def init_feed_dict(self):
        """The feeds for `init_op` (or None)."""
        return self._init_feed_dict

    @property
    def ready_op(self):
        """The op that checks the model is ready (or None)."""
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        """The op that checks `local_init_op` may run (or None)."""
        return self._ready_for_local_init_op

    @property
    def summary_writer(self):
        """The `FileWriter` (or None)."""
        return self._summary_writer

    @property
    def summary_op(self):
        """The summary op the summary thread runs (or None)."""
        return self._summary_op

    @property
    def save_summaries_secs(self):
        """Seconds between summaries."""
        return self._save_summaries_secs

    @property
    def global_step(self):
        """The global-step tensor (or None)."""
        return self._global_step

    @property
    def saver(self):
        """The `Saver` (or None)."""
        return self._saver

    @property
    def save_model_secs(self):
        """Seconds between checkpoints."""
        return self._save_model_secs

    @property
    def save_path(self):
        """The checkpoints' path prefix in `logdir` (or None)."""
        return self._save_path

    # -- sessions and services --------------------------------------------------------
    def _write_graph(self):
        assert self._is_chief
        if self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess):
        """Starts the summary, steps-per-second and checkpoint threads (chief only).

        Returns:
            The started threads (None without a `logdir`).

        Raises:
            RuntimeError: Not the chief.
        """
        if not self._is_chief:
            raise RuntimeError(
                "Only chief supervisor can start standard services. "
                "Because only chief supervisors can write events."
            )
        if not self._logdir:
            _log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return None
        if self._global_step is not None and self._summary_writer:
            current_step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), current_step)
        threads: list[coordinator.LooperThread] = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(
        self,
        master="",
        config=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        start_standard_services=True,
    ):
        """A session ready to use, and the services and queue runners started.

        The chief restores or initializes the model; other tasks wait until it is
        ready.
        """
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master,
                init_op=self.init_op,
                saver=self.saver,
                checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint,
                max_wait_secs=max_wait_secs,
                config=config,
                init_feed_dict=self._init_feed_dict,
                init_fn=self._init_fn,
            )
            self._write_graph()
            if start_standard_services:
                _log.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(
                master, config=config, max_wait_secs=max_wait_secs
            )
        if start_standard_services:
            _log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts the graph's (or the given) queue runners as daemon threads."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(ops.GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a `LooperThread` calling `target(*args, **kwargs)` every interval."""
        looper = coordinator.LooperThread(
            self._coord, timer_interval_secs, target=target, args=args, kwargs=kwargs
        )
        looper.start()
        return looper

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stops the services and threads (re-raising the first error one reported)."""
        self._coord.request_stop()
        try:
            self._coord.join(
                threads,
                stop_grace_period_secs=self._stop_grace_secs,
                ignore_live_threads=ignore_live_threads,
            )
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        """Asks the coordinator to stop the threads (recording `ex`, if any)."""
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        """Whether a stop was requested."""
        return self._coord.should_stop()

    def stop_on_exception(self):
        """A context manager that requests a stop when its block raises."""
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        """Blocks until a stop is requested."""
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Writes a summary the caller computed (at the global step by default).

        Raises:
            RuntimeError: There is no summary writer.
        """
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = training_util.global_step(sess, self.global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(
        self, master="", config=None, start_standard_services=True, close_summary_writer=True
    ):
        """A context manager giving a prepared session; stops everything on exit.

        An exception in the block (or in a service) is re-raised after the services
        stopped and the session closed; `OutOfRangeError` ends the block cleanly.
        """
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services
            )
            yield sess
        except Exception as e:
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    with contextlib.suppress(Exception):
                        sess.close()

    # TF's CamelCase names.
    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


class SVSummaryThread(coordinator.LooperThread):
    """Runs the summary op and writes its result every `save_summaries_secs`."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary_strs, global_step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary_strs = self._sess.run(self._sv.summary_op)
            global_step = None
        if self._sv.summary_writer:
            _log.info("Recording summary at step %s.", global_step)
            self._sv.summary_writer.add_summary(summary_strs, global_step)


class SVStepCounterThread(coordinator.LooperThread):
    """Writes `global_step/sec` every `save_summaries_secs`."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess
        self._last_time = 0.0
        self._last_step = 0
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)

    def run_loop(self):
        current_step = training_util.global_step(self._sess, self._step_counter)
        added_steps = current_step - self._last_step
        self._last_step = current_step
        current_time = time.time()
        elapsed_time = current_time - self._last_time
        self._last_time = current_time
        steps_per_sec = added_steps / elapsed_time if elapsed_time > 0.0 else float("inf")
        summary = Summary(value=[Summary.Value(tag=self._summary_tag, simple_value=steps_per_sec)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, current_step)


class SVTimerCheckpointThread(coordinator.LooperThread):
    """Saves a checkpoint every `save_model_secs`."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        _log.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            current_step = training_util.global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path),
                current_step,
            )


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Calls `train_step_fn(sess, *args, **kwargs)` until the Supervisor says stop.

    Runs under `supervisor.managed_session(master)`, and starts over on
    `AbortedError` (a restarted server, in distributed training), as TF's.
    """
    args = [] if args is None else args
    kwargs = {} if kwargs is None else kwargs
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            should_retry = True
