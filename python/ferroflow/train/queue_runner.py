"""`tf.train.QueueRunner`: threads that keep a queue filled, running natively in Rust.

`create_threads` returns one thread per enqueue op (plus, with a coordinator, one
that closes the queue when the coordinator stops). They are `threading.Thread`s, as
TF's are; for a ferroflow `Session` and `Coordinator` each thread's body is one call
into Rust that runs the whole loop (run the enqueue op until stopped or the queue
closes) without the GIL, so the Python main thread keeps its speed while they work.
Errors go to the coordinator, or without one to `exceptions_raised`, exactly as TF's
threads report them. Which kind of body a thread gets is decided by a small
protocol: the session must offer `_native_plan(fetch)` and the coordinator
`_native_core()` (None when a subclass redefines how stops work); otherwise the same
loop runs in Python.
"""

from __future__ import annotations

import logging
import threading
import weakref

from .. import _ferroflow, errors
from .._compat import zip_strict
from ..framework import meta_graph, ops
from ..protos import QueueRunnerDef

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]

_log = logging.getLogger(__name__)


class _NativeLoopThread(threading.Thread):
    """A queue-runner thread whose body is a loop run in Rust without the GIL."""

    def __init__(self, job, runner: QueueRunner, reports_to_coordinator: bool, name: str):
        super().__init__(name=name)
        self._job = job
        self._runner = runner
        self._reports_to_coordinator = reports_to_coordinator

    def run(self) -> None:
        try:
            self._job.run()
        except Exception as e:
            # Without a coordinator the error is logged, kept and re-raised, as TF's
            # `QueueRunner._run` does (with one, Rust has already reported it).
            _log.error("Exception in QueueRunner: %s", e)
            with self._runner._lock:
                self._runner._exceptions_raised.append(e)
            raise


class QueueRunner:
    """Holds the enqueue ops of a queue, each to be run in its own thread.

    The threads keep the queue filled while the main loop dequeues. When the queue
    is closed (an enqueue raises one of `queue_closed_exception_types`), the last
    thread still running closes it with `close_op`; when the coordinator stops, a
    further thread runs `cancel_op` so no enqueue stays blocked.
    """

    def __init__(
        self,
        queue=None,
        enqueue_ops=None,
        close_op=None,
        cancel_op=None,
        queue_closed_exception_types=None,
        queue_runner_def=None,
        import_scope=None,
    ):
        """Creates a QueueRunner.

        Args:
            queue: A `Queue`.
            enqueue_ops: Enqueue ops to run in threads later, one thread each.
            close_op: Op to close the queue (pending enqueues are kept); by default
                `queue.close()`.
            cancel_op: Op to close the queue and cancel pending enqueues; by default
                `queue.close(cancel_pending_enqueues=True)`.
            queue_closed_exception_types: A tuple of `tf.errors` classes that mean the
                queue was closed (default `(tf.errors.OutOfRangeError,)`).
            queue_runner_def: A `QueueRunnerDef` to recreate the runner from (its ops
                must be in the default graph); exclusive with `queue`.
            import_scope: Name scope prefixed to the names in `queue_runner_def`.

        Raises:
            ValueError: Both `queue_runner_def` and `queue` are given, or `queue` or
                `enqueue_ops` is missing.
            TypeError: `queue_closed_exception_types` is not a tuple of `tf.errors` classes.
        """
        if queue_runner_def:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
        else:
            self._init_from_args(
                queue, enqueue_ops, close_op, cancel_op, queue_closed_exception_types
            )
        self._lock = threading.Lock()
        self._threads_per_session: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._runs_per_session: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._exceptions_raised: list = []

    def _init_from_args(self, queue, enqueue_ops, close_op, cancel_op, closed_types):
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = enqueue_ops
        self._close_op = close_op
        self._cancel_op = cancel_op
        if closed_types is not None and (
            not isinstance(closed_types, tuple)
            or not closed_types
            or not all(isinstance(t, type) and issubclass(t, errors.OpError) for t in closed_types)
        ):
            raise TypeError(
                "queue_closed_exception_types, when provided, "
                f"must be a tuple of tf.error types, but saw: {closed_types}"
            )
        if self._close_op is None:
            self._close_op = self._queue.close()
        if self._cancel_op is None:
            self._cancel_op = self._queue.close(cancel_pending_enqueues=True)
        self._queue_closed_exception_types = tuple(closed_types or (errors.OutOfRangeError,))

    def _init_from_proto(self, queue_runner_def, import_scope):
        if not isinstance(queue_runner_def, QueueRunnerDef):
            raise TypeError(f"Expected a QueueRunnerDef, got {type(queue_runner_def)}")
        g = ops.get_default_graph()

        def element(name):
            return g.as_graph_element(f"{import_scope}/{name}" if import_scope else name)

        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(n) for n in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        self._queue_closed_exception_types = tuple(
            errors.exception_type_from_error_code(code)
            for code in queue_runner_def.queue_closed_exception_types
        ) or (errors.OutOfRangeError,)

    @property
    def queue(self):
        """The queue (an `Operation` when recreated from a `QueueRunnerDef`)."""
        return self._queue

    @property
    def enqueue_ops(self) -> list:
        """The enqueue ops, one thread each."""
        return self._enqueue_ops

    @property
    def close_op(self):
        """The op that closes the queue, keeping pending enqueues."""
        return self._close_op

    @property
    def cancel_op(self):
        """The op that closes the queue and cancels pending enqueues."""
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple:
        """The `tf.errors` classes that mean the queue was closed."""
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self) -> list:
        """Exceptions the threads raised without a coordinator (empty with one)."""
        with self._lock:
            return list(self._exceptions_raised)

    @property
    def name(self) -> str:
        """The name of the queue."""
        return self._queue.name

    def _native_threads_for(self, sess, coord):
        """Threads whose loops run in Rust, or None.

        Only when `sess` and `coord` allow it: the `_native_plan` / `_native_core`
        protocol.
        """
        native_plan = getattr(sess, "_native_plan", None)
        core = None
        if coord is not None:
            native_core = getattr(coord, "_native_core", None)
            core = native_core() if native_core is not None else None
            if core is None:
                return None
        if native_plan is None:
            return None
        try:
            plans = [native_plan(op) for op in self._enqueue_ops]
            close_plan, cancel_plan = native_plan(self._close_op), native_plan(self._cancel_op)
        except Exception:
            # An op the session cannot run (not in its graph, not an op at all) must
            # fail in its thread when the thread runs, as in TF: the Python loop does.
            return None
        jobs = _ferroflow.queue_runner_jobs(
            plans,
            close_plan,
            cancel_plan,
            core,
            errors._codes_caught_by(self._queue_closed_exception_types),
        )
        names = [f"QueueRunnerThread-{self.name}-{_name_of(op)}" for op in self._enqueue_ops]
        if coord is not None:
            names.append(f"QueueRunnerThread-{self.name}-close_on_stop")
        return [
            _NativeLoopThread(job, self, coord is not None, name)
            for job, name in zip_strict(jobs, names)
        ]

    def create_threads(self, sess, coord=None, daemon=False, start=False) -> list:
        """Creates one thread per enqueue op (plus a closer with a coordinator).

        Args:
            sess: The `Session` that runs the ops.
            coord: Optional `Coordinator` the threads report errors to and stop with.
            daemon: Whether the threads are daemon threads.
            start: Whether to start them; otherwise call their `start()`.

        Returns:
            The threads; an empty list, as TF's, while the enqueue threads of an
            earlier call for `sess` have not ended (or not even started): a second
            `start_queue_runners` starts nothing.
        """
        # Checking and registering under one lock: two racing calls cannot both pass.
        with self._lock:
            previous = self._threads_per_session.get(sess, [])
            if (
                any(t.is_alive() or t.ident is None for t in previous)
                or self._runs_per_session.get(sess, 0) > 0
            ):
                # Already started: no new threads to return.
                return []
            self._exceptions_raised = []
            threads = self._native_threads_for(sess, coord)
            if threads is None:
                threads = self._python_threads(sess, coord)
            for t in threads:
                t.daemon = bool(daemon)
            self._threads_per_session[sess] = threads[: len(self._enqueue_ops)]
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if start:
                t.start()
        return threads

    # -- The Python fallback: TF's own thread bodies. ----------------------------------
    def _python_threads(self, sess, coord):
        # The caller holds self._lock.
        self._runs_per_session[sess] = len(self._enqueue_ops)
        threads = [
            threading.Thread(
                target=self._run,
                args=(sess, op, coord),
                name=f"QueueRunnerThread-{self.name}-{_name_of(op)}",
            )
            for op in self._enqueue_ops
        ]
        if coord:
            threads.append(
                threading.Thread(
                    target=self._close_on_stop,
                    args=(sess, self._cancel_op, coord),
                    name=f"QueueRunnerThread-{self.name}-close_on_stop",
                )
            )
        return threads

    def _run(self, sess, enqueue_op, coord=None):
        decremented = False
        try:
            enqueue = sess.make_callable(enqueue_op)
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # errors from closing are ignored
                                _log.debug("Ignored exception: %s", e)
                    return
        except Exception as e:
            if coord:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # the queue may already be closed
            _log.debug("Ignored exception: %s", e)

    def to_proto(self, export_scope=None):
        """The runner as a `QueueRunnerDef` (None if the queue is outside `export_scope`)."""
        if export_scope is not None and not self.queue.name.startswith(export_scope):
            return None

        def strip(name):
            if export_scope and name.startswith(export_scope + "/"):
                return name[len(export_scope) + 1 :]
            return name

        proto = QueueRunnerDef(
            queue_name=strip(self.queue.name),
            enqueue_op_name=[strip(op.name) for op in self.enqueue_ops],
            close_op_name=strip(self.close_op.name),
            cancel_op_name=strip(self.cancel_op.name),
        )
        proto.queue_closed_exception_types.extend(
            errors.error_code_from_exception_type(cls) for cls in self._queue_closed_exception_types
        )
        return proto

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        """A `QueueRunner` recreated from `queue_runner_def`."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)


def _name_of(fetchable) -> str:
    """The name of an enqueue op, tensor or op name (TF accepts any fetchable)."""
    return getattr(fetchable, "name", str(fetchable))


def add_queue_runner(qr, collection=ops.GraphKeys.QUEUE_RUNNERS) -> None:
    """Adds `qr` to the graph collection `collection` (for `start_queue_runners`)."""
    ops.add_to_collection(collection, qr)


def start_queue_runners(
    sess=None, coord=None, daemon=True, start=True, collection=ops.GraphKeys.QUEUE_RUNNERS
) -> list:
    """Starts the threads of every queue runner in `collection`; returns them all.

    Args:
        sess: The `Session` to run the ops in (default: the default session). A
            `MonitoredSession` or `SingularMonitoredSession`, which starts its queue
            runners itself, is ignored: nothing is started and `[]` is returned (TF's).
        coord: Optional `Coordinator` for the threads.
        daemon: Whether the threads are daemon threads.
        start: Whether to start them.
        collection: The graph collection holding the queue runners.

    Returns:
        The threads.

    Raises:
        ValueError: No session is given and none is the default.
        TypeError: `sess` is not a session.
    """
    from ..framework.session import SessionInterface, get_default_session

    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError(
                "Cannot start queue runners: No default session is "
                "registered. Use `with sess.as_default()` or pass an "
                "explicit session to tf.start_queue_runners(sess=sess)"
            )
    if not isinstance(sess, SessionInterface):
        # TF's backward compatibility (b/62061352): a monitored session has already
        # started its queue runners, so nothing is started (and nothing logged).
        if sess.__class__.__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        if not hasattr(sess, "run") or not hasattr(sess, "graph"):
            raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    # As TF, the warning looks at the default graph, the threads at the session's.
    if not ops.get_collection(collection):
        _log.warning(
            "`tf.train.start_queue_runners()` was called when no queue runners were defined."
        )
    threads = []
    with sess.graph.as_default():
        for qr in ops.get_collection(collection):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


def _queue_runner_to_proto(qr, export_scope=None):
    return qr.to_proto(export_scope=export_scope)


def _queue_runner_from_proto(queue_runner_def, import_scope=None):
    return QueueRunner.from_proto(queue_runner_def, import_scope=import_scope)


# Meta graphs write the queue runners as `QueueRunnerDef`s (TF's registration).
meta_graph.register_proto_function(
    ops.GraphKeys.QUEUE_RUNNERS,
    proto_type=QueueRunnerDef,
    to_proto=_queue_runner_to_proto,
    from_proto=_queue_runner_from_proto,
)
