"""`tf.train.Coordinator` and `tf.train.LooperThread`: stopping a set of threads together.

The stop flag, its condition variable, the first reported error, the `joined` mark and
the registered threads live in Rust (`ferroflow._ferroflow.CoordinatorCore`, kept at
`Coordinator._core`), so that native queue-runner threads can poll the flag and
report their failures without the GIL. This class adds TensorFlow's Python-side
semantics: which exceptions are a clean stop, `sys.exc_info()` capture and its
checks, `join`'s grace period and re-raising the first exception.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .. import _ferroflow, errors

__all__ = ["Coordinator", "LooperThread"]

_LOG = logging.getLogger(__name__)

# `wait_for_stop` sleeps at most this long without the GIL between checks for signals
# (Ctrl-C), and `join` polls its threads at least this often.
_MAX_WAIT_SECS = 1.0


def _raise_error(error: Any) -> None:
    """Raises a recorded error: the value of an `exc_info` tuple, or the exception."""
    if isinstance(error, tuple):
        _, ex_instance, _ = error
        raise ex_instance
    raise error


class Coordinator:
    """A coordinator for threads.

    This class implements a simple mechanism to coordinate the termination of a set
    of threads.

    Usage:
        ```python
        # Create a coordinator.
        coord = Coordinator()
        # Start a number of threads, passing the coordinator to each of them.
        ...start thread 1...(coord, ...)
        ...start thread N...(coord, ...)
        # Wait for all the threads to terminate.
        coord.join(threads)
        ```

    Any of the threads can call `coord.request_stop()` to ask for all the threads to
    stop. To cooperate with the requests, each thread must check for
    `coord.should_stop()` on a regular basis. `coord.should_stop()` returns `True` as
    soon as `coord.request_stop()` has been called.

    A typical thread running with a coordinator will do something like:

        ```python
        while not coord.should_stop():
            ...do some work...
        ```

    Exception handling:
        A thread can report an exception to the coordinator as part of the
        `request_stop()` call. The exception will be re-raised from the
        `coord.join()` call.

        ```python
        # Thread code:
        try:
            while not coord.should_stop():
                ...do some work...
        except Exception as e:
            coord.request_stop(e)

        # Main code:
        try:
            coord = Coordinator()
            ...start threads...(coord, ...)
            coord.join(threads)
        except Exception as e:
            ...exception that was passed to coord.request_stop()
        ```

        The context manager `stop_on_exception()` requests the stop automatically:

        ```python
        with coord.stop_on_exception():
            while not coord.should_stop():
                ...do some work...
        ```

    Grace period for stopping:
        After a thread has called `coord.request_stop()` the other threads have a
        fixed time to stop, the 'stop grace period' (2 minutes by default). If any
        of the threads is still alive after the grace period expires `coord.join()`
        raises a `RuntimeError` reporting the laggards.

        ```python
        try:
            coord.join(threads, stop_grace_period_secs=10)
        except RuntimeError:
            ...one of the threads took more than 10s to stop after request_stop()
        except Exception:
            ...exception that was passed to coord.request_stop()
        ```
    """

    # Whether stops are checked, requested and waited for by the Rust core alone, so
    # native queue-runner loops may use the core directly (see `_native_core`).
    _stops_in_core = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass that redefines how stops work must be called through Python.
        if any(m in cls.__dict__ for m in ("should_stop", "request_stop", "wait_for_stop")):
            cls._stops_in_core = False

    def _native_core(self) -> Any:
        """The Rust core that native threads poll and report to.

        None when this coordinator's stop methods are Python code that the threads
        must call instead.
        """
        return self._core if self._stops_in_core else None

    def __init__(self, clean_stop_exception_types: Iterable[type[BaseException]] | None = None):
        """Create a new Coordinator.

        Args:
            clean_stop_exception_types: Optional tuple of Exception types that should
                cause a clean stop of the coordinator. If an exception of one of these
                types is reported to `request_stop(ex)` the coordinator will behave as
                if `request_stop(None)` was called. Defaults to
                `(tf.errors.OutOfRangeError,)` which is used by input queues to signal
                the end of input. When feeding training data from a Python iterator
                it is common to add `StopIteration` to this list.
        """
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        # Serialises the Python-side checks of `request_stop` and the end of `join`.
        self._lock = threading.Lock()
        self._core = _ferroflow.CoordinatorCore(
            errors._codes_caught_by(self._clean_stop_exception_types)
        )

    def _filter_exception(self, ex: Any) -> Any:
        """`ex`, or None when it is one of the clean-stop exception types.

        Args:
            ex: None, an `Exception`, or a Python `exc_info` tuple as returned by
                `sys.exc_info()`.

        Returns:
            ex or None.
        """
        ex2 = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(ex2, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex: BaseException | tuple[Any, Any, Any] | None = None) -> None:
        """Request that the threads stop.

        After this is called, calls to `should_stop()` will return `True`.

        Note: If an exception is being passed in, it must be in the context of
        handling the exception (i.e. `try: ... except Exception as ex: ...`) and not a
        newly created one: what is recorded is `sys.exc_info()`. Outside an `except`
        block a `ValueError` is recorded instead.

        Args:
            ex: Optional `Exception`, or Python `exc_info` tuple as returned by
                `sys.exc_info()`. If this is the first call to `request_stop()` the
                corresponding exception is recorded and re-raised from `join()`.

        Raises:
            Exception: `ex` itself when the coordinator was already joined, since
                `join` will not have a chance to report it.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            # If the coordinator was already joined the exception will not have a
            # chance to be reported, so just raise it normally. This can happen if
            # you continue to use a session after having stopped and joined the
            # coordinator threads.
            if self._core.joined:
                self._raise_after_join(ex)
            exc_info = None
            if ex and not self._core.should_stop():
                exc_info = self._exc_info_of(ex)
            if self._core.request_stop(exc_info):
                self._raise_after_join(ex)

    @staticmethod
    def _raise_after_join(ex: Any) -> None:
        """Raises `ex` (a tuple's exception) for `request_stop` after `join`."""
        if isinstance(ex, tuple):
            _, ex_instance, _ = ex
            raise ex_instance
        if ex is not None:
            # As in TF, this is bogus unless called from the handler of `ex`.
            _, ex_instance, _ = sys.exc_info()
            raise ex_instance  # type: ignore[misc]

    @staticmethod
    def _exc_info_of(ex: Any) -> Any:
        """The `exc_info` to record for `ex`: `ex` if a tuple, else `sys.exc_info()`.

        Anything but a full `(type, value, traceback)` gives a `ValueError`'s exc_info.
        """
        if isinstance(ex, tuple):
            _LOG.info("Error reported to Coordinator: %s", ex[1], exc_info=ex)
            exc_info: Any = ex
        else:
            _LOG.info("Error reported to Coordinator: %s, %s", type(ex), ex)
            exc_info = sys.exc_info()
        if len(exc_info) != 3 or not exc_info[0] or not exc_info[1]:
            # Raise, catch and record the exception so that the error happens where
            # expected.
            try:
                raise ValueError(
                    "ex must be a tuple or sys.exc_info must return the current "
                    f"exception: {exc_info}"
                )
            except ValueError:
                exc_info = sys.exc_info()
        return exc_info

    def clear_stop(self) -> None:
        """Clears the stop flag.

        After this is called, calls to `should_stop()` will return `False`; the
        recorded exception and the `joined` mark are cleared too.
        """
        with self._lock:
            self._core.clear_stop()

    def should_stop(self) -> bool:
        """Check if stop was requested.

        Returns:
            True if a stop was requested.
        """
        return self._core.should_stop()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """Context manager to request stop when an Exception is raised.

        Code that uses a coordinator must catch exceptions and pass them to the
        `request_stop()` method to stop the other threads managed by the
        coordinator. This context handler simplifies the exception handling:

        ```python
        with coord.stop_on_exception():
            # Any exception raised in the body of the with clause is reported to
            # the coordinator before terminating the execution of the body.
            ...body...
        ```

        This is completely equivalent to the slightly longer code:

        ```python
        try:
            ...body...
        except:
            coord.request_stop(sys.exc_info())
        ```

        Yields:
            nothing.
        """
        try:
            yield
        except BaseException:
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Wait till the Coordinator is told to stop.

        The wait releases the GIL.

        Args:
            timeout: Float. Sleep for up to that many seconds waiting for
                `should_stop()` to become True.

        Returns:
            True if the Coordinator is told stop, False if the timeout expired.
        """
        core = self._core
        if timeout is None:
            while not core.wait_for_stop(_MAX_WAIT_SECS):
                pass
            return True
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= _MAX_WAIT_SECS:
                return core.wait_for_stop(max(remaining, 0.0))
            if core.wait_for_stop(_MAX_WAIT_SECS):
                return True

    def register_thread(self, thread: Any) -> None:
        """Register a thread to join.

        Args:
            thread: A Python thread (or native thread) to join.
        """
        self._core.register_thread(thread)

    @property
    def _registered_threads(self) -> set[Any]:
        """The threads registered to join (TF's attribute; here a snapshot of the core's)."""
        return set(self._core.registered_threads())

    def join(
        self,
        threads: Iterable[Any] | None = None,
        stop_grace_period_secs: float = 120,
        ignore_live_threads: bool = False,
    ) -> None:
        """Wait for threads to terminate.

        This call blocks until a set of threads have terminated. The set of threads is
        the union of the threads passed in the `threads` argument and the list of
        threads that registered with the coordinator by calling
        `Coordinator.register_thread()`.

        After the threads stop, if an `exc_info` was passed to `request_stop`, that
        exception is re-raised.

        Grace period handling: When `request_stop()` is called, threads are given
        'stop_grace_period_secs' seconds to terminate. If any of them is still alive
        after that period expires, a `RuntimeError` is raised. Note that if an
        `exc_info` was passed to `request_stop()` then it is raised instead of that
        `RuntimeError`.

        Args:
            threads: List of `threading.Threads` (or anything with `is_alive()` and
                `name`). The started threads to join in addition to the registered
                threads.
            stop_grace_period_secs: Number of seconds given to threads to stop after
                `request_stop()` has been called.
            ignore_live_threads: If `False`, raises an error if any of the threads are
                still alive after `stop_grace_period_secs`.

        Raises:
            RuntimeError: If any thread is still alive after `request_stop()` is
                called and the grace period expires.
        """
        # Threads registered after this call will not be joined.
        with self._lock:
            candidates = list(threads) if threads is not None else []
            candidates += self._core.registered_threads()
        # A thread passed and registered is joined once.
        threads = list({id(t): t for t in candidates}.values())

        # Wait for all threads to stop or for request_stop() to be called. TF polls
        # every second; starting shorter returns sooner when the threads just end.
        poll_secs = 0.001
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(poll_secs):
            poll_secs = min(2 * poll_secs, _MAX_WAIT_SECS)

        # If any thread is still alive, wait for the grace period to expire, with a
        # sleep of increasing duration bounded by the remaining grace duration.
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = 2 * stop_wait_secs
            # The minimum keeps stop_grace_period_secs decreasing.
            stop_wait_secs = max(min(stop_wait_secs, stop_grace_period_secs), 0.001)

        # List the threads still alive after the grace period.
        stragglers = [t.name for t in threads if t.is_alive()]

        # Terminate with an exception if appropriate.
        with self._lock:
            error = self._core.mark_joined()
            self._core.take_registered_threads()
            if error is not None:
                _raise_error(error)
            elif stragglers:
                message = "Coordinator stopped with threads still running: " + " ".join(stragglers)
                if not ignore_live_threads:
                    raise RuntimeError(message)
                _LOG.info(message)

    @property
    def joined(self) -> bool:
        """Whether `join` has run since the coordinator was created or cleared."""
        return self._core.joined

    def raise_requested_exception(self) -> None:
        """If an exception has been passed to `request_stop`, this raises it."""
        with self._lock:
            error = self._core.error()
        if error is not None:
            _raise_error(error)


class LooperThread(threading.Thread):
    """A thread that runs code repeatedly, optionally on a timer.

    This thread class is intended to be used with a `Coordinator`. It repeatedly runs
    code specified either as `target` and `args` or by the `run_loop()` method.

    Before each run the thread checks if the coordinator has requested stop. In that
    case the looper thread terminates immediately.

    If the code being run raises an exception, that exception is reported to the
    coordinator and the thread terminates. The coordinator will then request all the
    other threads it coordinates to stop.

    You typically pass looper threads to the supervisor `Join()` method.
    """

    def __init__(
        self,
        coord: Coordinator,
        timer_interval_secs: float | None,
        target: Callable[..., Any] | None = None,
        args: Iterable[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
    ):
        """Create a LooperThread (a daemon thread, registered with `coord`).

        Args:
            coord: A Coordinator.
            timer_interval_secs: Time boundaries at which to call `run_loop()`, or
                None if it should be called back to back.
            target: Optional callable object that will be executed in the thread.
            args: Optional arguments to pass to `target` when calling it.
            kwargs: Optional keyword arguments to pass to `target` when calling it.

        Raises:
            ValueError: If one of the arguments is invalid.
        """
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(
        coord: Coordinator,
        timer_interval_secs: float | None,
        target: Callable[..., Any],
        args: Iterable[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> LooperThread:
        """Start a LooperThread that calls a function periodically.

        If `timer_interval_secs` is None the thread calls `target(*args, **kwargs)`
        repeatedly. Otherwise `target(*args, **kwargs)` is called every
        `timer_interval_secs` seconds. The thread terminates when a stop of the
        coordinator is requested.

        Args:
            coord: A Coordinator.
            timer_interval_secs: Number. Time boundaries at which to call `target`.
            target: A callable object.
            args: Optional arguments to pass to `target` when calling it.
            kwargs: Optional keyword arguments to pass to `target` when calling it.

        Returns:
            The started thread.
        """
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        """Calls `start_loop`, then `run_loop` until a stop, then `stop_loop`.

        Any exception is reported to the coordinator, which stops the thread.
        """
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                # Call back-to-back.
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                # Next time at which to call run_loop(), starts as 'now'.
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called when the thread starts."""

    def stop_loop(self) -> None:
        """Called when the thread stops."""

    def run_loop(self) -> None:
        """Called at 'timer_interval_secs' boundaries."""
        if self._target:
            self._target(*self._args, **self._kwargs)
