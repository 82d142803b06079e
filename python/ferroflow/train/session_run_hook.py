"""The hook API of `MonitoredSession` (TF 1.x's `session_run_hook`).

A hook sees the whole life of a monitored session: `begin()` before the graph is
finalized, `after_create_session(session, coord)` for every (re)created session,
`before_run(run_context)` and `after_run(run_context, run_values)` around every
`run` call (adding its own fetches, feeds and options through `SessionRunArgs`),
and `end(session)` when the session closes normally. `after_run` is not called
when the run raised; `end` is called when training ends normally or on
`OutOfRangeError`/`StopIteration`, not on other errors.
"""

from __future__ import annotations

import collections

__all__ = ["SessionRunArgs", "SessionRunContext", "SessionRunHook", "SessionRunValues"]


class SessionRunHook:
    """Hook to extend calls to `MonitoredSession.run()`; every method is optional."""

    def begin(self):
        """Called once before using the session (the graph may still be changed)."""

    def after_create_session(self, session, coord):
        """Called when a new session has been created (the graph is finalized)."""

    def before_run(self, run_context):
        """Called before each `run`; may return a `SessionRunArgs` to add to it."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each successful `run`, with this hook's results."""

    def end(self, session):
        """Called at the end of the session.

        Not called after an error other than `OutOfRangeError` or `StopIteration`.
        """


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a `run` call: fetches, feeds and `RunOptions`."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        """`feed_dict` and `options` default to None."""
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """What a hook knows of the current `run` call, and how it asks to stop."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        """The `SessionRunArgs` of the caller's `run`."""
        return self._original_args

    @property
    def session(self):
        """The session being run (hooks may run it themselves)."""
        return self._session

    @property
    def stop_requested(self):
        """Whether some hook asked to stop."""
        return self._stop_requested

    def request_stop(self):
        """Asks the monitored session to stop after this run."""
        self._stop_requested = True


class SessionRunValues(
    collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])
):
    """A hook's results of a `run` call, with the run's options and metadata."""
