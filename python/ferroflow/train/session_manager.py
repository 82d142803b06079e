"""`tf.train.SessionManager`: creates sessions that are ready to use.

TF 1.x's class, line for line: a session is created on `master`, restored from the
latest checkpoint when there is one (optionally waiting for it), initialized with
`init_op`/`init_fn` otherwise, its `local_init_op` run when the model is ready for it,
and checked with `ready_op` (by default `tf.report_uninitialized_variables()` in the
Supervisor). A process that does not initialize the model itself waits with
`wait_for_session` until another one has.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from .. import errors
from ..framework import ops
from ..framework.session import Session
from . import checkpoint_management

__all__ = ["SessionManager"]

_log = logging.getLogger(__name__)


def _maybe_name(obj) -> str:
    if obj is None:
        return "None"
    if hasattr(obj, "name"):
        return obj.name
    return f"<no name for {type(obj)}>"


class SessionManager:
    """Training helper that restores from a checkpoint and creates sessions.

    Args:
        local_init_op: An op run after every session is created (once the model is
            ready for it), usually initializing local variables and tables.
        ready_op: An op that checks whether the model is ready: it returns an empty
            string tensor when it is, otherwise the names of what is not ready. None
            skips the check.
        ready_for_local_init_op: An op that checks whether `local_init_op` may run
            (same convention as `ready_op`); needs a `local_init_op`.
        graph: The graph (default: the default graph).
        recovery_wait_secs: Seconds between checks while waiting for a checkpoint or
            for the model to become ready.
        local_init_run_options: `RunOptions` for running `local_init_op`.
        local_init_feed_dict: Feeds for running `local_init_op`.

    Raises:
        ValueError: `ready_for_local_init_op` is given without a `local_init_op`.
    """

    def __init__(
        self,
        local_init_op=None,
        ready_op=None,
        ready_for_local_init_op=None,
        graph=None,
        recovery_wait_secs=30,
        local_init_run_options=None,
        local_init_feed_dict=None,
    ):
        if graph is None:
            graph = ops.get_default_graph()
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph
        self._recovery_wait_secs = recovery_wait_secs
        self._target = None
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError(
                "If you pass a ready_for_local_init_op you must also pass a local_init_op "
                f", ready_for_local_init_op [{ready_for_local_init_op}]"
            )

    def _restore_checkpoint(
        self,
        master,
        saver=None,
        checkpoint_dir=None,
        checkpoint_filename_with_path=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        config=None,
    ):
        """A new session, and whether it was restored from a checkpoint."""
        self._target = master
        sess = Session(self._target, graph=self._graph, config=config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError(
                "Can not provide both checkpoint_dir and checkpoint_filename_with_path."
            )
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0
        ckpt = checkpoint_management.get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if wait_for_checkpoint and wait_time < max_wait_secs:
                _log.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                ckpt = checkpoint_management.get_checkpoint_state(checkpoint_dir)
            else:
                return sess, False
        saver.restore(sess, ckpt.model_checkpoint_path)
        saver.recover_last_checkpoints(list(ckpt.all_model_checkpoint_paths))
        return sess, True

    def prepare_session(
        self,
        master,
        init_op=None,
        saver=None,
        checkpoint_dir=None,
        checkpoint_filename_with_path=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        config=None,
        init_feed_dict=None,
        init_fn=None,
    ):
        """A session with the model restored from a checkpoint, or initialized.

        Restores from `checkpoint_filename_with_path`, or from the latest checkpoint
        in `checkpoint_dir` (waiting up to `max_wait_secs` for one with
        `wait_for_checkpoint`); otherwise runs `init_op` (with `init_feed_dict`) and
        calls `init_fn(sess)`. Then runs `local_init_op` and checks `ready_op`.

        Returns:
            The `Session`.

        Raises:
            RuntimeError: Nothing could initialize the model, or the model is not
                ready afterwards (the message names what is not initialized).
            ValueError: Both `checkpoint_dir` and `checkpoint_filename_with_path`.
        """
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master,
            saver,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint,
            max_wait_secs=max_wait_secs,
            config=config,
        )
        if not is_loaded_from_checkpoint:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError(
                    "Model is not initialized and no init_op or init_fn or local_init_op was given"
                )
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not local_init_success:
            raise RuntimeError(
                "Init operations did not make model ready for local_init.  "
                f"Init op: {_maybe_name(init_op)}, init fn: {init_fn}, error: {msg}"
            )
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            raise RuntimeError(
                "Init operations did not make model ready.  "
                f"Init op: {_maybe_name(init_op)}, init fn: {init_fn}, "
                f"local_init_op: {self._local_init_op}, error: {msg}"
            )
        return sess

    def recover_session(
        self,
        master,
        saver=None,
        checkpoint_dir=None,
        checkpoint_filename_with_path=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        config=None,
    ):
        """A session, restored from a checkpoint if possible.

        Returns:
            `(sess, is_restored)`: `is_restored` is True when the model was restored
            and is ready.
        """
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master,
            saver,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint,
            max_wait_secs=max_wait_secs,
            config=config,
        )
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not is_loaded_from_checkpoint:
            return sess, False
        restoring_file = checkpoint_dir or checkpoint_filename_with_path
        if not local_init_success:
            _log.info(
                "Restoring model from %s did not make model ready for local init: %s",
                restoring_file,
                msg,
            )
            return sess, False
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            _log.info("Restoring model from %s did not make model ready: %s", restoring_file, msg)
            return sess, False
        _log.info("Restored model from %s", restoring_file)
        return sess, is_loaded_from_checkpoint

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A session whose model another thread or process made ready.

        Creates a session every `recovery_wait_secs` until its model is ready.

        Raises:
            tf.errors.DeadlineExceededError: Not ready after `max_wait_secs`.
        """
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        deadline = time.time() + max_wait_secs
        while True:
            sess = Session(self._target, graph=self._graph, config=config)
            not_ready_msg = None
            local_init_success, not_ready_local_msg = self._try_run_local_init_op(sess)
            if local_init_success:
                is_ready, not_ready_msg = self._model_ready(sess)
                if is_ready:
                    return sess
            self._safe_close(sess)
            remaining = max(0.0, deadline - time.time())
            if remaining - self._recovery_wait_secs < 0:
                raise errors.DeadlineExceededError(
                    None, None, f"Session was not ready after waiting {max_wait_secs:.0f} secs."
                )
            _log.info(
                "Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s",
                not_ready_local_msg,
                not_ready_msg,
            )
            time.sleep(self._recovery_wait_secs)

    @staticmethod
    def _safe_close(sess):
        try:
            sess.close()
        except Exception:
            pass

    def _model_ready(self, sess):
        return _ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess):
        return _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess):
        if self._local_init_op is None:
            return True, None
        is_ready_for_local_init, msg = self._model_ready_for_local_init(sess)
        if not is_ready_for_local_init:
            return False, msg
        _log.info("Running local_init_op.")
        sess.run(
            self._local_init_op,
            feed_dict=self._local_init_feed_dict,
            options=self._local_init_run_options,
        )
        _log.info("Done running local_init_op.")
        return True, None


def _ready(op, sess, msg):
    """(ready, why not): ready when `op` is None or returns an empty (or int32) tensor."""
    if op is None:
        return True, None
    try:
        ready_value = sess.run(op)
        if ready_value is None or ready_value.dtype == np.int32 or ready_value.size == 0:
            return True, None
        names = ", ".join(
            i.decode("utf-8") if isinstance(i, bytes) else str(i) for i in np.ravel(ready_value)
        )
        return False, "Variables not initialized: " + names
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            _log.warning("%s : error [%s]", msg, e)
            raise
        return False, str(e)
