"""The summary writer as a session resource: `FileWriter(session=...)` and
`tf.contrib.summary` (TF's `summary_ops_v2`), against TensorFlow.

Each case runs the same program on both libraries, each into its own directory, and
compares the event files as TF's own `summary_iterator` reads them (every field but
the wall time), and which files each program made.
"""

import glob
import os
import time

import numpy as np
import pytest

import ferroflow as ff


def _tagged(tf, tag, value=None):
    s = tf.Summary()
    v = s.value.add(tag=tag)
    if value is not None:
        v.simple_value = value
    return s


def _files(tf1, logdir):
    """Per event file (sorted by name), its events without wall times, as TF reads them."""
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        events = []
        for e in tf1.train.summary_iterator(path):
            e.wall_time = 0
            e.ClearField("source_metadata")  # the writer's name
            events.append(e.SerializeToString(deterministic=True))
        out.append(events)
    return out


def _session_writer_program(tf, logdir):
    with tf.Session() as sess:
        one = tf.summary.FileWriter(logdir, session=sess)
        one.add_summary(_tagged(tf, "one", 1.0).SerializeToString(), 1)
        one.flush()
        # A second writer of the same directory in the same session shares the file.
        two = tf.summary.FileWriter(logdir, session=sess)
        two.add_summary(_tagged(tf, "two", 2.0), 2)
        two.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 3)
        two.flush()
        other = tf.summary.FileWriter(logdir + "-other", session=sess)
        other.add_summary(_tagged(tf, "three"), 3)
        other.close()
        time.sleep(1.1)  # a new file name (seconds in the name)
        with tf.Session() as sess2:
            # Another session: another file.
            four = tf.summary.FileWriter(logdir, session=sess2)
            four.add_summary(_tagged(tf, "four", 4.0), 4)
            four.close()
        one.add_summary(_tagged(tf, "five", 5.0), 5)
        one.close()
        # Closed: dropped with a warning, as TF.
        with pytest.warns(UserWarning, match="closed FileWriter"):
            one.add_summary(_tagged(tf, "dropped"), 6)


def test_session_file_writer_matches_tensorflow(tf1, tmp_path):
    mine, theirs = str(tmp_path / "ff"), str(tmp_path / "tf")
    with ff.Graph().as_default():
        _session_writer_program(ff, mine)
    with tf1.Graph().as_default():
        _session_writer_program(tf1, theirs)
    assert _files(tf1, mine) == _files(tf1, theirs)
    assert len(_files(tf1, mine)) == 2
    assert _files(tf1, mine + "-other") == _files(tf1, theirs + "-other")


def test_session_file_writer_reopens_on_a_new_file(tf1, tmp_path):
    def program(tf, logdir):
        with tf.Session() as sess:
            w = tf.summary.FileWriter(logdir, session=sess)
            w.add_summary(_tagged(tf, "a", 1.0), 1)
            w.close()
            time.sleep(1.1)
            w.reopen()
            w.add_summary(_tagged(tf, "b", 2.0), 2)
            w.close()

    mine, theirs = str(tmp_path / "ff"), str(tmp_path / "tf")
    with ff.Graph().as_default():
        program(ff, mine)
    with tf1.Graph().as_default():
        program(tf1, theirs)
    assert _files(tf1, mine) == _files(tf1, theirs)
    assert len(_files(tf1, mine)) == 2


def _contrib_program(tf, summary_ops, logdir):
    step = tf.train.get_or_create_global_step()
    writer = summary_ops.create_file_writer(logdir, flush_millis=10_000)
    with writer.as_default():
        with summary_ops.always_record_summaries():
            scalar = summary_ops.scalar("loss", tf.constant(0.5) * tf.cast(step + 1, tf.float32))
            tensor = summary_ops.generic("t", tf.constant([[1, 2], [3, 4]], tf.int64), step=7)
        with summary_ops.never_record_summaries():
            skipped = summary_ops.scalar("never", 1.0)
        with summary_ops.record_summaries_every_n_global_steps(2, step):
            every = summary_ops.scalar("every2", tf.cast(step, tf.float64), step=step)
    increment = tf.assign_add(step, 1)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), writer.init()])
        for _ in range(3):
            results = sess.run([scalar, tensor, skipped, every])
            sess.run(increment)
        sess.run(writer.flush())
        sess.run(writer.close())
    return [r for r in results if r is not None]


def test_contrib_summary_matches_tensorflow(tf1, tmp_path):
    from tensorflow.python.ops import summary_ops_v2 as tf_summary_ops

    from ferroflow.contrib import summary as ff_summary_ops

    mine, theirs = str(tmp_path / "ff"), str(tmp_path / "tf")
    with ff.Graph().as_default():
        got = _contrib_program(ff, ff_summary_ops, mine)
    with tf1.Graph().as_default():
        want = _contrib_program(tf1, tf_summary_ops, theirs)
    np.testing.assert_equal(got, want)
    mine_files, their_files = _files(tf1, mine), _files(tf1, theirs)
    assert len(mine_files) == len(their_files) == 1
    # The summaries of one `run` are independent ops: their order is unspecified.
    assert sorted(mine_files[0]) == sorted(their_files[0])
    assert os.path.basename(glob.glob(os.path.join(mine, "*"))[0]).endswith(".v2")


def test_writer_ops_need_an_initialized_writer(tmp_path):
    from ferroflow.contrib import summary as summary_ops

    with ff.Graph().as_default():
        writer = summary_ops.create_file_writer(str(tmp_path))
        with ff.Session() as sess:
            with pytest.raises(ff.errors.NotFoundError, match="not initialized"):
                sess.run(writer.flush())
            sess.run(writer.init())
            sess.run(writer.close())
            with pytest.raises(ff.errors.NotFoundError):
                sess.run(writer.flush())
