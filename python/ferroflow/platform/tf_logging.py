"""`tf.logging`: TF-1.x's logging functions over Python's `logging`.

As TF's: one library logger (here `ferroflow`, the parent of every ferroflow module's
logger, so `set_verbosity` also governs what the library itself reports, as TF's
`tensorflow` logger does), given a stderr handler with `logging.BASIC_FORMAT` unless
the root logger is configured, and which reports the caller's file and line rather than
this module's. `log_every_n`/`log_first_n` count per call site.
"""

from __future__ import annotations

import _thread
import logging as _logging
import os as _os
import sys as _sys
import threading
import time as _time
import traceback as _traceback
from logging import DEBUG, ERROR, FATAL, INFO, WARN
from typing import Any

__all__ = [
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "WARN",
    "TaskLevelStatusMessage",
    "debug",
    "error",
    "fatal",
    "flush",
    "get_logger",
    "get_verbosity",
    "info",
    "log",
    "log_every_n",
    "log_first_n",
    "log_if",
    "set_verbosity",
    "vlog",
    "warn",
    "warning",
]

_logger: _logging.Logger | None = None
_logger_lock = threading.Lock()


def _get_caller(offset=3):
    """The code and frame of the lowest stack frame outside this module."""
    f: Any = _sys._getframe(offset)
    our_file = f.f_code.co_filename
    f = f.f_back
    while f:
        code = f.f_code
        if code.co_filename != our_file:
            return code, f
        f = f.f_back
    return None, None


def _logger_find_caller(stack_info=False, stacklevel=1):
    code, frame = _get_caller(4)
    sinfo = "\n".join(_traceback.format_stack()) if stack_info else None
    if code and frame:
        return (code.co_filename, frame.f_lineno, code.co_name, sinfo)
    return "(unknown file)", 0, "(unknown function)", sinfo


def get_logger() -> _logging.Logger:
    """The library's logger (`tf.get_logger()`).

    Its levels, most serious first: FATAL, ERROR, WARN, INFO, DEBUG; set the threshold
    with `set_verbosity` or `get_logger().setLevel(...)`.

    Returns:
        A `logging.Logger`.
    """
    global _logger
    if _logger:
        return _logger
    with _logger_lock:
        if _logger:
            return _logger
        logger = _logging.getLogger("ferroflow")
        # Report the caller of tf.logging.*, not this module.
        logger.findCaller = _logger_find_caller  # type: ignore[method-assign]
        # Leave a configured root logger alone (no double logging).
        if not _logging.getLogger().handlers:
            interactive = bool(getattr(_sys, "ps1", None)) or bool(_sys.flags.interactive)
            if interactive:
                logger.setLevel(INFO)
            handler = _logging.StreamHandler(_sys.stdout if interactive else _sys.stderr)
            handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
            logger.addHandler(handler)
        _logger = logger
        return _logger


def log(level, msg, *args, **kwargs):
    """Logs `msg % args` at `level`."""
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    """Logs `msg % args` at DEBUG."""
    get_logger().debug(msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    """Logs `msg % args` at ERROR."""
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    """Logs `msg % args` at FATAL."""
    get_logger().fatal(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    """Logs `msg % args` at INFO."""
    get_logger().info(msg, *args, **kwargs)


def warn(msg, *args, **kwargs):
    """Logs `msg % args` at WARN."""
    get_logger().warning(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    """Logs `msg % args` at WARN."""
    get_logger().warning(msg, *args, **kwargs)


def TaskLevelStatusMessage(msg):
    """Logs a task's status message (at ERROR, as TF)."""
    error(msg)


def flush():
    """Flushes the logger's handlers (TF's raises NotImplementedError)."""
    for handler in get_logger().handlers:
        handler.flush()


def vlog(level, msg, *args, **kwargs):
    """Logs `msg % args` at `level` (TF's verbose log)."""
    get_logger().log(level, msg, *args, **kwargs)


# Calls so far per call site (file, line), for log_every_n / log_first_n.
_log_counter_per_token: dict = {}
_log_counter_lock = threading.Lock()


def _next_log_count(token) -> int:
    with _log_counter_lock:
        _log_counter_per_token[token] = 1 + _log_counter_per_token.get(token, -1)
        return _log_counter_per_token[token]


def _file_and_line():
    code, f = _get_caller()
    if not code or not f:
        return ("<unknown>", 0)
    return (code.co_filename, f.f_lineno)


def log_every_n(level, msg, n, *args):
    """Logs `msg % args` at `level` on the 1st, (n+1)th, (2n+1)th, ... call from here."""
    count = _next_log_count(_file_and_line())
    log_if(level, msg, not (count % n), *args)


def log_first_n(level, msg, n, *args):
    """Logs `msg % args` at `level` on the first `n` calls from here only."""
    count = _next_log_count(_file_and_line())
    log_if(level, msg, count < n, *args)


def log_if(level, msg, condition, *args):
    """Logs `msg % args` at `level` if `condition` holds."""
    if condition:
        vlog(level, msg, *args)


_level_names = {FATAL: "FATAL", ERROR: "ERROR", WARN: "WARN", INFO: "INFO", DEBUG: "DEBUG"}


def google2_log_prefix(level, timestamp=None, file_and_line=None) -> str:
    """A log line's prefix in Google's format (`I1125 10:00:00.000000  1234 f.py:12] `)."""
    now = timestamp or _time.time()
    t = _time.localtime(now)
    filename, line = file_and_line or _file_and_line()
    severity = _level_names.get(level, "INFO")[0]
    return "%c%02d%02d %02d:%02d:%02d.%06d %5d %s:%d] " % (  # noqa: UP031 (TF's format)
        severity,
        t[1],
        t[2],
        t[3],
        t[4],
        t[5],
        int(1e6 * (now % 1.0)),
        _thread.get_ident() & (2 * _sys.maxsize + 1),
        _os.path.basename(filename),
        line,
    )


def get_verbosity() -> int:
    """How much logging output will be produced (the logger's effective level)."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v) -> None:
    """Sets the threshold for what messages will be logged."""
    get_logger().setLevel(v)
