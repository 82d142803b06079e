"""`tf.train.Supervisor` against TensorFlow's: the files and events a chief writes,
recovery from its checkpoints, `managed_session`'s exception handling, defaults."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

import ferroflow as ff


def _model(lib):
    x = lib.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(8, 1))
    w = lib.Variable(np.zeros([1, 1], np.float32), name="w")
    loss = lib.reduce_mean(lib.square(lib.matmul(x, w) - 3.0 * x), name="mse")
    lib.summary.scalar("loss", loss)
    step = lib.train.get_or_create_global_step()
    train = lib.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return train, step, w


def _events(directory):
    (name,) = [n for n in os.listdir(directory) if "tfevents" in n]
    return list(ff.train.summary_iterator(os.path.join(directory, name)))


def _run_chief(lib, logdir, steps, **kwargs):
    g = lib.Graph()
    with g.as_default():
        train, step, w = _model(lib)
        sv = lib.train.Supervisor(
            logdir=logdir, save_summaries_secs=0.05, save_model_secs=0.05, **kwargs
        )
        assert g.finalized
        with sv.managed_session() as sess:
            first = sess.run(step)
            for _ in range(steps):
                sess.run(train)
            time.sleep(0.2)
            return first, sess.run([step, w])


def test_a_chief_writes_tfs_files_and_events(tf1, tmp_path):
    results = {}
    for lib in (tf1, ff):
        logdir = str(tmp_path / lib.__name__.split(".")[0])
        _run_chief(lib, logdir, 20)
        files = sorted(n for n in os.listdir(logdir) if "tfevents" not in n)
        events = _events(logdir)
        kinds = [e.WhichOneof("what") for e in events]
        tags = {v.tag for e in events if e.HasField("summary") for v in e.summary.value}
        logs = [e.session_log.status for e in events if e.HasField("session_log")]
        results[lib] = (files, kinds[:4], tags, logs[0], logs[-1], "checkpoint" in files)
    ours, theirs = results[ff], results[tf1]
    assert ours[1:] == theirs[1:]
    assert ours[1] == ["file_version", "graph_def", "meta_graph_def", "session_log"]
    assert ours[2] == {"loss", "global_step/sec"}
    assert (ours[3], ours[4]) == (ff.SessionLog.START, ff.SessionLog.STOP)
    assert "graph.pbtxt" in ours[0] and "model.ckpt-20.index" in ours[0]

    # The timer thread saves as it starts, racing with the 20 quick training steps (in
    # TF as in ferroflow: it may come at any step, even after the last), and the last
    # saved step is the final one.
    def saved_steps(files):
        return sorted(int(f.split("-")[1].split(".")[0]) for f in files if f.endswith(".index"))

    for files in (ours[0], theirs[0]):
        assert saved_steps(files)[-1] == 20


def test_a_restarted_chief_resumes_from_its_checkpoint(tmp_path):
    logdir = str(tmp_path)
    first, (step, w) = _run_chief(ff, logdir, 30)
    assert (first, step) == (0, 30)
    again, (step2, w2) = _run_chief(ff, logdir, 5)
    assert again == 30 and step2 == 35
    assert np.abs(w2 - 3.0) < np.abs(w - 3.0)


def test_managed_session_stops_cleanly_on_out_of_range_and_reraises_others(tf1, tmp_path):
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            _model(lib)
            sv = lib.train.Supervisor(logdir=None)
            with sv.managed_session() as sess:
                raise lib.errors.OutOfRangeError(None, None, "done")
            assert sv.should_stop()
            with pytest.raises(ValueError, match="boom"):
                with sv.managed_session() as sess:
                    del sess
                    raise ValueError("boom")


def test_defaults_and_disabled_services(tmp_path):
    with ff.Graph().as_default():
        train, step, _ = _model(ff)
        sv = ff.train.Supervisor(logdir=str(tmp_path), saver=None, summary_op=None)
        assert sv.saver is None and sv.summary_op is None
        assert sv.global_step is step or sv.global_step.name == "global_step:0"
        assert sv.is_chief and sv.save_path == str(tmp_path / "model.ckpt")
        assert sv.ready_op is ff.get_collection(ff.GraphKeys.READY_OP)[0]
        assert sv.init_op is ff.get_collection(ff.GraphKeys.INIT_OP)[0]
        with sv.managed_session() as sess:
            sess.run(train)
        assert not [n for n in os.listdir(tmp_path) if n.endswith(".index")]
    with ff.Graph().as_default():
        _model(ff)
        with pytest.raises(ValueError, match="all Variables must have their device set"):
            ff.train.Supervisor(is_chief=False)


def test_basic_train_loop_and_summary_computed(tmp_path):
    with ff.Graph().as_default():
        train, _step, _ = _model(ff)
        merged = ff.summary.merge_all()
        sv = ff.train.Supervisor(
            logdir=str(tmp_path), save_summaries_secs=None, save_model_secs=None
        )
        calls = []

        def train_step(sess, limit):
            calls.append(sess.run(train))
            if len(calls) == limit:
                sv.summary_computed(sess, sess.run(merged))
                sv.request_stop()

        ff.train.basic_train_loop(sv, train_step, args=[7])
        assert len(calls) == 7
    steps = [e.step for e in _events(str(tmp_path)) if e.HasField("summary")]
    assert steps == [7]


def test_an_error_in_a_service_thread_stops_training_and_is_reraised(tf1, tmp_path):
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            train, _, _ = _model(lib)
            bad = lib.placeholder_with_default(1.0, [])
            lib.summary.scalar("bad", lib.check_numerics(bad / 0.0, "service"))
            sv = lib.train.Supervisor(
                logdir=str(tmp_path / lib.__name__.split(".")[0]), save_summaries_secs=0.05
            )
            with pytest.raises(lib.errors.InvalidArgumentError, match="service"):
                with sv.managed_session() as sess:
                    deadline = time.monotonic() + 20
                    while not sv.should_stop() and time.monotonic() < deadline:
                        sess.run(train)
            assert sv.should_stop()


def test_stop_does_not_hang_on_a_blocked_queue_runner(tmp_path):
    with ff.Graph().as_default():
        _model(ff)
        q = ff.FIFOQueue(1, [ff.float32], shapes=[()])
        # Nobody dequeues: the runner blocks on a full queue until the session closes.
        ff.train.add_queue_runner(ff.train.QueueRunner(q, [q.enqueue(1.0)]))
        sv = ff.train.Supervisor(logdir=str(tmp_path), stop_grace_secs=0.5)
        start = time.monotonic()
        with sv.managed_session():
            time.sleep(0.1)
        assert time.monotonic() - start < 10


_KILLED_CHIEF = """
import sys, time, numpy as np, ferroflow as tf
x = tf.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(8, 1))
w = tf.Variable(np.zeros([1, 1], np.float32), name="w")
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 3.0 * x))
step = tf.train.get_or_create_global_step()
train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=step)
sv = tf.train.Supervisor(logdir=sys.argv[1], save_model_secs=0.05, save_summaries_secs=None)
with sv.managed_session() as sess:
    print("start", sess.run(step), flush=True)
    while not sv.should_stop():
        sess.run(train)
        time.sleep(0.001)
"""


def test_a_killed_chief_restarts_from_its_last_checkpoint(tmp_path):
    import signal
    import subprocess
    import sys

    def start():
        child = subprocess.Popen(
            [sys.executable, "-c", _KILLED_CHIEF, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        return child, int(child.stdout.readline().split()[1])

    child, first = start()
    assert first == 0
    time.sleep(1.0)
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    saved = int(
        ff.train.NewCheckpointReader(ff.train.latest_checkpoint(str(tmp_path))).get_tensor(
            "global_step"
        )
    )
    assert saved > 0
    child, resumed = start()
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert resumed == saved


# Seed 003, "Advanced use" and "Use for multiple replicas", sentence by sentence.


def test_loop_launches_an_additional_service(tmp_path):
    # "Start a thread to print losses ... every 60 seconds, so we launch it with sv.loop()."
    with ff.Graph().as_default():
        train, _, _ = _model(ff)
        loss = ff.get_default_graph().get_tensor_by_name("mse:0")
        sv = ff.train.Supervisor(logdir=str(tmp_path), save_model_secs=None)
        seen = []
        with sv.managed_session() as sess:
            looper = sv.Loop(0.02, lambda s: seen.append(s.run(loss)), (sess,))
            for _ in range(20):
                sess.run(train)
                time.sleep(0.01)
        assert not looper.is_alive()
        assert len(seen) >= 2


def test_fewer_services_and_summaries_computed_by_hand(tf1, tmp_path):
    # "disable these services by passing None to the summary_op and saver parameters",
    # then "Create summaries manually every 100 steps in the chief".
    results = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            train, _, _ = _model(lib)
            merged = lib.summary.merge_all()
            logdir = str(tmp_path / lib.__name__.split(".")[0])
            sv = lib.train.Supervisor(
                logdir=logdir, summary_op=None, saver=None, save_summaries_secs=None
            )
            with sv.managed_session() as sess:
                for step in range(300):
                    if sv.should_stop():
                        break
                    if step % 100 == 0:
                        sv.summary_computed(sess, sess.run(merged))
                    sess.run(train)
        files = sorted(n for n in os.listdir(logdir) if "tfevents" not in n)
        steps = [e.step for e in _events(logdir) if e.HasField("summary")]
        results[lib] = (files, steps)
    assert results[ff] == results[tf1] == (["graph.pbtxt"], [0, 100, 200])


def test_custom_local_init_op(tmp_path):
    # "If you have special initialization needs, see how to specify a local_init_op."
    with ff.Graph().as_default():
        _model(ff)
        local = ff.Variable(np.zeros([2], np.float32), name="local", collections=[])
        sv = ff.train.Supervisor(
            logdir=str(tmp_path), local_init_op=local.assign([4.0, 5.0]).op, save_model_secs=None
        )
        with sv.managed_session() as sess:
            np.testing.assert_array_equal(sess.run(local), [4.0, 5.0])


def test_a_non_chief_waits_for_the_model_and_writes_nothing(tf1, tmp_path):
    # "In the other tasks sv.managed_session() waits for the Model to have been
    # initialized": with a direct session nobody else initializes it, so it times out.
    outcomes = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            with lib.device("/cpu:0"):
                _model(lib)
            logdir = tmp_path / lib.__name__.split(".")[0]
            sv = lib.train.Supervisor(logdir=str(logdir), is_chief=False, recovery_wait_secs=0.05)
            assert sv.summary_writer is None and sv.save_path is None
            with pytest.raises(lib.errors.DeadlineExceededError) as e:
                sv.prepare_or_wait_for_session(max_wait_secs=0.2)
            with pytest.raises(RuntimeError, match="Only chief supervisor"):
                sv.start_standard_services(None)
        outcomes[lib] = (e.value.message, logdir.exists())
    assert outcomes[ff] == outcomes[tf1] == ("Session was not ready after waiting 0 secs.", False)


def test_properties_and_coordination_methods(tf1, tmp_path):
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            _model(lib)
            feed = {}
            sv = lib.train.Supervisor(
                logdir=str(tmp_path / lib.__name__.split(".")[0]),
                init_feed_dict=feed,
                save_summaries_secs=7,
                save_model_secs=9,
                stop_grace_secs=0.2,
            )
            assert sv.init_feed_dict is feed and sv.ready_for_local_init_op is None
            assert (sv.save_summaries_secs, sv.save_model_secs) == (7, 9)
            assert isinstance(sv.coord, lib.train.Coordinator)
            assert isinstance(sv.session_manager, lib.train.SessionManager)
            assert sv.summary_op is not None and sv.saver is not None
            sess = sv.prepare_or_wait_for_session(start_standard_services=False)
            # stop_on_exception() records the error and requests a stop.
            with sv.stop_on_exception():
                raise ValueError("in a thread")
            assert sv.should_stop()
            sv.wait_for_stop()  # returns at once: a stop was requested
            with pytest.raises(ValueError, match="in a thread"):
                sv.stop()
            sess.close()


def test_queue_runners_writers_and_summaries_by_the_seeds_words(tf1, tmp_path):
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            _model(lib)
            q = lib.FIFOQueue(4, [lib.float32], shapes=[()])
            qr = lib.train.QueueRunner(q, [q.enqueue(1.0)])
            dequeue = q.dequeue()
            sv = lib.train.Supervisor(logdir=None)
            # summary_computed: "A Summary proto, or a string holding a serialized
            # summary proto" -- without a summary writer it raises RuntimeError.
            with sv.managed_session(start_standard_services=False) as sess:
                with pytest.raises(RuntimeError, match="requires a summary writer"):
                    sv.summary_computed(sess, lib.Summary())
                threads = sv.start_queue_runners(sess, [qr])
                assert len(threads) == 2 and all(t.daemon for t in threads)
                assert sess.run(dequeue) == 1.0
        g = lib.Graph()
        with g.as_default():
            _model(lib)
            logdir = str(tmp_path / lib.__name__.split(".")[0])
            sv = lib.train.Supervisor(logdir=logdir, save_model_secs=None)
            with sv.managed_session(close_summary_writer=False) as sess:
                sv.summary_computed(
                    sess,
                    lib.Summary(value=[lib.Summary.Value(tag="by_hand", simple_value=2.0)]),
                    global_step=3,
                )
            # The writer stays open: a later summary still reaches the file.
            sv.summary_computed(sess, lib.Summary(), global_step=4)
            sv.summary_writer.close()
        steps = [e.step for e in _events(logdir) if e.HasField("summary")]
        assert 3 in steps and 4 in steps
