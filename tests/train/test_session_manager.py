"""`tf.train.SessionManager` against TensorFlow's: restore or initialize, readiness,
local init, waiting for a checkpoint or for another process."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import ferroflow as ff


def _model(lib):
    v = lib.Variable(np.arange(3, dtype=np.float32), name="v")
    w = lib.Variable(np.ones([2], np.float32), name="w")
    return v, w


def _outcome(lib, fn):
    """(values or the error's class name and message) of `fn(lib)` in a fresh graph."""
    g = lib.Graph()
    with g.as_default():
        try:
            return ("ok", fn(lib))
        except Exception as e:
            message = getattr(e, "message", str(e))
            return (type(e).__name__, message)


def _same(tf1, fn):
    ours, theirs = _outcome(ff, fn), _outcome(tf1, fn)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "ok":
        for a, b in zip(ours[1], theirs[1], strict=True):
            np.testing.assert_array_equal(a, b)
    else:
        assert ours[1] == theirs[1]
    return ours


def _save(lib, directory, scale):
    g = lib.Graph()
    with g.as_default():
        v, w = _model(lib)
        saver = lib.train.Saver()
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            sess.run([v.assign(v * scale), w.assign(w * scale)])
            return saver.save(sess, f"{directory}/model", global_step=1)


def test_prepare_session_initializes_without_a_checkpoint(tf1, tmp_path):
    def run(lib):
        v, w = _model(lib)
        sm = lib.train.SessionManager(ready_op=lib.report_uninitialized_variables())
        sess = sm.prepare_session(
            "",
            init_op=lib.global_variables_initializer(),
            saver=lib.train.Saver(),
            checkpoint_dir=str(tmp_path / "empty"),
        )
        return sess.run([v, w])

    _same(tf1, run)


def test_prepare_session_restores_the_latest_checkpoint(tf1, tmp_path):
    _save(ff, str(tmp_path), 5.0)

    def run(lib):
        v, w = _model(lib)
        saver = lib.train.Saver()
        sm = lib.train.SessionManager(ready_op=lib.report_uninitialized_variables())
        sess = sm.prepare_session(
            "",
            init_op=lib.global_variables_initializer(),
            saver=saver,
            checkpoint_dir=str(tmp_path),
        )
        return [*sess.run([v, w]), saver.last_checkpoints]

    _kind, values = _same(tf1, run)
    np.testing.assert_array_equal(values[0], np.arange(3) * 5.0)


def test_errors_when_the_model_cannot_be_made_ready(tf1):
    def no_init(lib):
        _model(lib)
        return lib.train.SessionManager().prepare_session("")

    assert _same(tf1, no_init)[0] == "RuntimeError"

    def not_ready(lib):
        v, _w = _model(lib)
        sm = lib.train.SessionManager(ready_op=lib.report_uninitialized_variables())
        return sm.prepare_session("", init_op=lib.variables_initializer([v], name="init_v"))

    kind, message = _same(tf1, not_ready)
    assert kind == "RuntimeError" and "Variables not initialized: w" in message

    def ready_for_local_init_alone(lib):
        _model(lib)
        return lib.train.SessionManager(ready_for_local_init_op=lib.no_op())

    assert _same(tf1, ready_for_local_init_alone)[0] == "ValueError"


def test_recover_session_reports_whether_it_restored(tf1, tmp_path):
    _save(ff, str(tmp_path / "ck"), 2.0)

    def run(lib):
        _model(lib)
        saver = lib.train.Saver()
        sm = lib.train.SessionManager(ready_op=lib.report_uninitialized_variables())
        _, restored = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path / "ck"))
        _, not_restored = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path / "no"))
        _, no_saver = sm.recover_session("", checkpoint_dir=str(tmp_path / "ck"))
        with_path = sm.recover_session(
            "", saver=saver, checkpoint_filename_with_path=str(tmp_path / "ck" / "model-1")
        )[1]
        return [restored, not_restored, no_saver, with_path]

    assert _same(tf1, run)[1] == [True, False, False, True]


def test_local_init_op_runs_when_the_model_is_ready_for_it(tf1):
    def run(lib):
        v, w = _model(lib)
        local = lib.Variable(
            np.zeros([1], np.float32),
            name="local",
            collections=[lib.GraphKeys.LOCAL_VARIABLES],
        )
        sm = lib.train.SessionManager(
            local_init_op=lib.variables_initializer([local]),
            ready_op=lib.report_uninitialized_variables(),
            ready_for_local_init_op=lib.report_uninitialized_variables([v, w]),
        )
        sess = sm.prepare_session("", init_op=lib.global_variables_initializer())
        return sess.run([local])

    _same(tf1, run)

    def not_ready_for_local(lib):
        v, w = _model(lib)
        local = lib.Variable(np.zeros([1], np.float32), name="local", collections=[])
        sm = lib.train.SessionManager(
            local_init_op=lib.variables_initializer([local]),
            ready_for_local_init_op=lib.report_uninitialized_variables([v, w]),
        )
        return sm.prepare_session("", init_op=lib.variables_initializer([v]))

    kind, message = _same(tf1, not_ready_for_local)
    assert kind == "RuntimeError" and "ready for local_init" in message


def test_init_feed_dict_and_init_fn(tf1):
    def run(lib):
        start = lib.placeholder(lib.float32, [3])
        v = lib.Variable(start, name="v")
        w = lib.Variable(np.zeros([2], np.float32), name="w")
        sm = lib.train.SessionManager(ready_op=lib.report_uninitialized_variables())
        sess = sm.prepare_session(
            "",
            init_op=v.initializer,
            init_feed_dict={start: [7.0, 8.0, 9.0]},
            init_fn=lambda s: s.run(w.initializer),
        )
        return sess.run([v, w])

    _same(tf1, run)


def test_wait_for_session_times_out_with_tfs_error(tf1):
    def run(lib):
        _model(lib)
        sm = lib.train.SessionManager(
            ready_op=lib.report_uninitialized_variables(), recovery_wait_secs=0.05
        )
        return sm.wait_for_session("", max_wait_secs=0.2)

    start = time.monotonic()
    kind, _message = _same(tf1, run)
    assert kind == "DeadlineExceededError"
    assert time.monotonic() - start < 10

    def ready(lib):
        v, _ = _model(lib)
        sm = lib.train.SessionManager(local_init_op=lib.global_variables_initializer())
        return sm.wait_for_session("", max_wait_secs=1).run([v])

    _same(tf1, ready)


def test_prepare_session_waits_for_a_checkpoint(tmp_path):
    with ff.Graph().as_default():
        v, _w = _model(ff)
        saver = ff.train.Saver()
        sm = ff.train.SessionManager(
            ready_op=ff.report_uninitialized_variables(), recovery_wait_secs=0.05
        )
        writer = threading.Timer(0.3, lambda: _save(ff, str(tmp_path), 3.0))
        writer.start()
        try:
            sess = sm.prepare_session(
                "",
                saver=saver,
                checkpoint_dir=str(tmp_path),
                wait_for_checkpoint=True,
                max_wait_secs=30,
            )
        finally:
            writer.join()
        np.testing.assert_array_equal(sess.run(v), np.arange(3) * 3.0)
        with pytest.raises(ValueError, match="Can not provide both"):
            sm.prepare_session(
                "",
                saver=saver,
                checkpoint_dir=str(tmp_path),
                checkpoint_filename_with_path=str(tmp_path / "model-1"),
            )
