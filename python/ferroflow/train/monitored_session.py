"""`MonitoredSession`: a session that runs hooks, coordinates threads and recovers.

TF 1.x's classes, layer for layer: `_RecoverableSession` (a run that raises
`AbortedError` or `UnavailableError` closes the session, makes a new one through the
session creator (restoring from the latest checkpoint) and retries),
`_CoordinatedSession` (a `Coordinator` for the queue runners; errors they report are
raised from `run`), and `_HookedSession` (calls the hooks around every `run`). A
`Scaffold` gathers the ops used to initialize, check and save the model;
`ChiefSessionCreator` prepares a session with a `SessionManager`,
`WorkerSessionCreator` waits for one.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from .. import errors
from ..framework import ops
from ..ops import control_flow_ops
from ..ops.variables import (
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from ..protos import RunMetadata, RunOptions
from ..summary import merge_all
from . import coordinator, queue_runner
from .basic_session_run_hooks import CheckpointSaverHook, StepCounterHook, SummarySaverHook
from .saver import Saver
from .session_manager import SessionManager
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

__all__ = [
    "ChiefSessionCreator",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "Scaffold",
    "SessionCreator",
    "SingularMonitoredSession",
    "WorkerSessionCreator",
]

_log = logging.getLogger(__name__)

# Errors that mean a server restarted: the session is recreated and the run retried.
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)


class Scaffold:
    """The ops that build, initialize, check and save a model (TF's `Scaffold`).

    Anything left None gets its default in `finalize()`: the collection's single
    entry, or `global_variables_initializer()`, `report_uninitialized_variables()`,
    `Scaffold.default_local_init_op()`, `merge_all()` and a Saver.
    """

    # `init_fn(scaffold, session)` as given (`copy_from_scaffold` reads another's).
    _user_init_fn: Callable[[Scaffold, Any], object] | None

    def __init__(
        self,
        init_op=None,
        init_feed_dict=None,
        init_fn=None,
        ready_op=None,
        ready_for_local_init_op=None,
        local_init_op=None,
        summary_op=None,
        saver=None,
        copy_from_scaffold=None,
        local_init_feed_dict=None,
    ):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            coalesce = lambda a, b: a if a is not None else b  # noqa: E731
            init_op = coalesce(init_op, copy_from_scaffold.init_op)
            init_feed_dict = coalesce(init_feed_dict, copy_from_scaffold.init_feed_dict)
            init_fn = coalesce(init_fn, copy_from_scaffold._user_init_fn)
            ready_op = coalesce(ready_op, copy_from_scaffold.ready_op)
            ready_for_local_init_op = coalesce(
                ready_for_local_init_op, copy_from_scaffold.ready_for_local_init_op
            )
            local_init_op = coalesce(local_init_op, copy_from_scaffold.local_init_op)
            local_init_feed_dict = coalesce(
                local_init_feed_dict, copy_from_scaffold.local_init_feed_dict
            )
            summary_op = coalesce(summary_op, copy_from_scaffold.summary_op)
            saver = coalesce(saver, copy_from_scaffold.saver)
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self):
        """Creates the missing ops and finalizes the graph."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", ops.GraphKeys.INIT_OP, global_variables_initializer
            )
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", ops.GraphKeys.READY_OP, report_uninitialized_variables
            )
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op",
                ops.GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: report_uninitialized_variables(global_variables()),
            )
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", ops.GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op
            )
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default(
                "summary_op", ops.GraphKeys.SUMMARY_OP, merge_all
            )
        if self._saver is None:
            self._saver = _get_saver_or_default()
        self._saver.build()
        ops.get_default_graph().finalize()
        _log.info("Graph was finalized.")
        return self

    @property
    def init_fn(self):
        """Called with the session after `init_op` (as the user's `init_fn(scaffold, sess)`)."""
        return self._init_fn

    @property
    def init_op(self):
        """The op that initializes the model."""
        return self._init_op

    @property
    def ready_op(self):
        """The op that checks the model is ready."""
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        """The op that checks `local_init_op` may run."""
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        """The op run in every new session."""
        return self._local_init_op

    @property
    def local_init_feed_dict(self):
        """Feeds for `local_init_op`."""
        return self._local_init_feed_dict

    @property
    def summary_op(self):
        """The merged summaries (or None)."""
        return self._summary_op

    @property
    def saver(self):
        """The Saver."""
        return self._saver

    @property
    def init_feed_dict(self):
        """Feeds for `init_op`."""
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The single op in `collection_key`, or a new one (added to it).

        Raises:
            RuntimeError: The collection holds more than one item.
        """
        elements = ops.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(
                    f'More than one item in the collection "{collection_key}". Please indicate '
                    "which one to use by passing it to the tf.Scaffold constructor as:  "
                    f"tf.Scaffold({arg_name}=item to use)"
                )
            return elements[0]
        op = default_constructor()
        if op is not None:
            ops.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """The local variables' initializer.

        TF also initializes lookup tables and local resources; ferroflow has none yet.
        """
        return control_flow_ops.group(local_variables_initializer())


def _get_saver_or_default():
    savers = ops.get_collection(ops.GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(
                f"More than one item in collection {ops.GraphKeys.SAVERS}. "
                "Please indicate which one to use by passing it to the constructor."
            )
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    ops.add_to_collection(ops.GraphKeys.SAVERS, saver)
    return saver


class SessionCreator:
    """Makes a `Session` for a `MonitoredSession`."""

    def create_session(self):
        """A new session."""
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class _ScaffoldSessionCreator(SessionCreator):
    """A creator whose `SessionManager` takes its ops from a `Scaffold`."""

    _scaffold: Scaffold
    _session_manager = None

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op,
                local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=ops.get_default_graph(),
            )
        return self._session_manager


class ChiefSessionCreator(_ScaffoldSessionCreator):
    """Prepares a session through a `SessionManager`.

    It restores the latest checkpoint of `checkpoint_dir`, or initializes the model.
    """

    def __init__(
        self,
        scaffold=None,
        master="",
        config=None,
        checkpoint_dir=None,
        checkpoint_filename_with_path=None,
    ):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config

    def create_session(self):
        """A session with the model restored or initialized."""
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master,
            saver=self._scaffold.saver,
            checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config,
            init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn,
        )


class WorkerSessionCreator(_ScaffoldSessionCreator):
    """Waits for a session whose model the chief made ready."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        """A session, once the model is ready."""
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs
        )


class _MonitoredSession:
    """The shared body of `MonitoredSession` and `SingularMonitoredSession`."""

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = ops.get_default_graph().finalized
        self._hooks = hooks or []
        for h in self._hooks:
            h.begin()
        self._coordinated_creator = self._CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(),
            hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs,
        )
        # None once closed.
        self._sess: _WrappedSession | None
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    def _open_session(self) -> _WrappedSession:
        if self._sess is None:
            raise RuntimeError("Session is already closed.")
        return self._sess

    @property
    def graph(self):
        """The graph this session runs."""
        return self._tf_sess().graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs `fetches` with the hooks around the call (see `Session.run`)."""
        return self._open_session().run(
            fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata
        )

    def run_step_fn(self, step_fn):
        """Runs `step_fn(step_context)`, which may run the session with and without hooks.

        `step_context.session` is the raw session, `step_context.run_with_hooks(...)`
        runs with the hooks, `step_context.request_stop()` ends the iterations (raises
        `StopIteration`, which the `with` block treats as a normal end). Preemption
        errors inside `step_fn` recreate the session and call it again.

        Raises:
            ValueError: `step_fn` does not take exactly `step_context` (or `self`,
                `step_context`).
        """
        names = tuple(inspect.signature(step_fn).parameters)
        if inspect.ismethod(step_fn):
            names = ("self", *names)
        if names not in (("step_context",), ("self", "step_context")):
            raise ValueError(
                "`step_fn` may either have one `step_context` argument, or `self` and "
                "`step_context` arguments if it's an instance method. "
                f"Got {names} instead."
            )
        return self._open_session().run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    class StepContext:
        """What a `step_fn` gets: the raw session and a way to run with the hooks."""

        def __init__(self, session, run_with_hooks_fn):
            self._session = session
            self._run_with_hooks_fn = run_with_hooks_fn

        @property
        def session(self):
            """The raw session (runs without hooks)."""
            return self._session

        def run_with_hooks(self, *args, **kwargs):
            """Runs the monitored session (hooks included)."""
            return self._run_with_hooks_fn(*args, **kwargs)

        def request_stop(self):
            """Ends the iterations: raises `StopIteration`."""
            raise StopIteration("step_fn has requested the iterations to stop.")

    def should_stop(self):
        """Whether a hook, the coordinator or a closed session ended training."""
        return self._sess is None or self._sess.should_stop()

    def close(self):
        """Ends the session: calls the hooks' `end`, stops threads, closes it."""
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        # Suppress OutOfRangeError and StopIteration: they end training normally.
        return exception_type is None

    class _CoordinatedSessionCreator(SessionCreator):
        """Creates a session, starts its queue runners and tells the hooks."""

        def __init__(self, session_creator, hooks, stop_grace_period_secs):
            self._session_creator = session_creator
            self._hooks = hooks
            self.coord = None
            self.tf_sess = None
            self._stop_grace_period_secs = stop_grace_period_secs

        def create_session(self):
            self.tf_sess = self._session_creator.create_session()
            # The coordinator must not swallow any exception.
            self.coord = coordinator.Coordinator(clean_stop_exception_types=[])
            if ops.get_collection(ops.GraphKeys.QUEUE_RUNNERS):
                queue_runner.start_queue_runners(sess=self.tf_sess, coord=self.coord)
            for hook in self._hooks:
                hook.after_create_session(self.tf_sess, self.coord)
            return _CoordinatedSession(
                _HookedSession(self.tf_sess, self._hooks),
                self.coord,
                self._stop_grace_period_secs,
            )

    def _close_internal(self, exception_type=None):
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    ops.get_default_graph()._unsafe_unfinalize()

    def _is_closed(self):
        return self._sess is None

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess


class MonitoredSession(_MonitoredSession):
    """A session that runs hooks, starts queue runners and recovers from preemption.

    `with MonitoredSession(session_creator, hooks) as sess: while not
    sess.should_stop(): sess.run(train_op)` is TF 1.x's training loop: the session is
    created (restored or initialized) by `session_creator` (a `ChiefSessionCreator` by
    default), the hooks are called around every run, `AbortedError` and
    `UnavailableError` make a new session and retry the run, and leaving the block
    (normally, or on `OutOfRangeError`) calls the hooks' `end` and closes.
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(
            session_creator,
            hooks,
            should_recover=True,
            stop_grace_period_secs=stop_grace_period_secs,
        )


class SingularMonitoredSession(_MonitoredSession):
    """A `MonitoredSession` for one process, without recovery, with `raw_session()`."""

    def __init__(
        self,
        hooks=None,
        scaffold=None,
        master="",
        config=None,
        checkpoint_dir=None,
        stop_grace_period_secs=120,
        checkpoint_filename_with_path=None,
    ):
        session_creator = ChiefSessionCreator(
            scaffold=scaffold,
            master=master,
            config=config,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
        )
        super().__init__(
            session_creator,
            hooks,
            should_recover=False,
            stop_grace_period_secs=stop_grace_period_secs,
        )

    def raw_session(self):
        """The underlying `Session` (runs without hooks)."""
        return self._tf_sess()


class _WrappedSession:
    """A session wrapper whose `should_stop` also asks the session it wraps."""

    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(self._sess, _WrappedSession)

    @property
    def graph(self):
        return self._sess.graph

    def should_stop(self):
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self):
        return False

    def close(self):
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                _log.error("An error occurred when attempting to close the session: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        run_with_hooks = run_with_hooks or self.run
        return step_fn(_MonitoredSession.StepContext(raw_session, run_with_hooks))


class _RecoverableSession(_WrappedSession):
    """Recreates the session (and retries the run) after a preemption error."""

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        super().__init__(self._create_session())

    def _create_session(self):
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                _log.info(
                    "An error was raised while a session was being created. This may be due "
                    "to a preemption of a connected worker or parameter server. A new session "
                    "will be created. Error: %s",
                    e,
                )

    def _check_stop(self):
        try:
            if self._sess:
                return self._sess._check_stop()
            return True
        except _PREEMPTION_ERRORS as e:
            _log.info(
                "An error was raised while considering whether the session is complete: %s", e
            )
            self.close()
            self._sess = self._create_session()
            # The session was just recreated: the computation goes on.
            return False

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run(
                    fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata
                )
            except _PREEMPTION_ERRORS as e:
                _log.info(
                    "An error was raised. This may be due to a preemption in a connected worker "
                    "or parameter server. The current session will be closed and a new session "
                    "will be created. Error: %s",
                    e,
                )
                self.close()
                self._sess = None

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run_step_fn(step_fn, raw_session, self._sess.run)
            except _PREEMPTION_ERRORS as e:
                _log.info("An error was raised in step_fn; the session will be recreated: %s", e)
                self.close()
                self._sess = None


class _CoordinatedSession(_WrappedSession):
    """Raises the errors the coordinator's threads reported; stops them on close."""

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self):
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self):
        self._coord.request_stop()
        try:
            self._coord.join(
                stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True
            )
        finally:
            try:
                _WrappedSession.close(self)
            except Exception:
                pass

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        return self._reraising(lambda: self._sess.run_step_fn(step_fn, raw_session, run_with_hooks))

    def run(self, *args, **kwargs):
        return self._reraising(lambda: self._sess.run(*args, **kwargs))

    def _reraising(self, call):
        """Calls `call`, raising a preemption error the coordinator recorded instead.

        A preemption error recorded by a thread is the root cause of the call's error.
        """
        try:
            return call()
        except _PREEMPTION_ERRORS:
            raise
        except Exception as original:
            # A thread's preemption error may be the root cause: raise that instead.
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:
                raise original from None
            raise original from None


class _HookedSession(_WrappedSession):
    """Calls the hooks' `before_run`/`after_run` around every run."""

    def __init__(self, sess, hooks):
        super().__init__(sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self):
        return self._should_stop

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = SessionRunContext(
            original_args=SessionRunArgs(fetches, feed_dict), session=self._sess
        )
        options = options or RunOptions()
        if run_metadata is None:
            run_metadata = RunMetadata()  # hooks read it (`ProfilerHook`'s traces)
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        outputs = _WrappedSession.run(
            self,
            fetches=actual_fetches,
            feed_dict=feed_dict,
            options=options,
            run_metadata=run_metadata,
        )
        for hook in self._hooks:
            hook.after_run(
                run_context,
                SessionRunValues(
                    results=outputs[hook] if hook in outputs else None,
                    options=options,
                    run_metadata=run_metadata,
                ),
            )
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        hook_feeds: dict[Any, Any] = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is not None:
                if request.fetches is not None:
                    fetch_dict[hook] = request.fetches
                if request.feed_dict:
                    _raise_if_feeds_intersect(
                        hook_feeds, request.feed_dict, "Same tensor is fed by two hooks."
                    )
                    hook_feeds.update(request.feed_dict)
                if request.options:
                    _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(
            user_feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user."
        )
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1, feeds2, message):
    intersection = set(feeds1) & set(feeds2)
    if intersection:
        raise RuntimeError(message + " Conflict(s): " + str(list(intersection)))


def _merge_run_options(options, incoming):
    """TF's merge: the highest trace level, the longest timeout."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)


USE_DEFAULT = object()


def MonitoredTrainingSession(
    master="",
    is_chief=True,
    checkpoint_dir=None,
    scaffold=None,
    hooks=None,
    chief_only_hooks=None,
    save_checkpoint_secs=USE_DEFAULT,
    save_summaries_steps=USE_DEFAULT,
    save_summaries_secs=USE_DEFAULT,
    config=None,
    stop_grace_period_secs=120,
    log_step_count_steps=100,
    max_wait_secs=7200,
    save_checkpoint_steps=USE_DEFAULT,
    summary_dir=None,
    save_graph_def=True,
):
    """A `MonitoredSession` set up for training, as TF 1.x's.

    The chief restores from or initializes the model and gets the standard hooks:
    `StepCounterHook` every `log_step_count_steps`, `SummarySaverHook` (every 100 steps
    by default) writing to `summary_dir` (default `checkpoint_dir`), and
    `CheckpointSaverHook` (every 600 seconds by default) in `checkpoint_dir`, then
    `chief_only_hooks` and `hooks`. Other tasks wait for the model and get `hooks`.

    Returns:
        A `MonitoredSession`.
    """
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    session_creator: SessionCreator
    if not is_chief:
        session_creator = WorkerSessionCreator(
            scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs
        )
        return MonitoredSession(
            session_creator=session_creator,
            hooks=hooks or [],
            stop_grace_period_secs=stop_grace_period_secs,
        )
    all_hooks = list(chief_only_hooks or [])
    session_creator = ChiefSessionCreator(
        scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config
    )
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(
                StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps)
            )
        if (save_summaries_steps and save_summaries_steps > 0) or (
            save_summaries_secs and save_summaries_secs > 0
        ):
            all_hooks.append(
                SummarySaverHook(
                    scaffold=scaffold,
                    save_steps=save_summaries_steps,
                    save_secs=save_summaries_secs,
                    output_dir=summary_dir,
                )
            )
    if checkpoint_dir and (
        (save_checkpoint_secs and save_checkpoint_secs > 0)
        or (save_checkpoint_steps and save_checkpoint_steps > 0)
    ):
        all_hooks.append(
            CheckpointSaverHook(
                checkpoint_dir,
                save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs,
                scaffold=scaffold,
                save_graph_def=save_graph_def,
            )
        )
    all_hooks.extend(hooks or [])
    return MonitoredSession(
        session_creator=session_creator,
        hooks=all_hooks,
        stop_grace_period_secs=stop_grace_period_secs,
    )
