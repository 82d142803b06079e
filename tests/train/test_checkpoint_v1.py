"""V1 checkpoints (TF's tensor-slice table files): the fixtures TensorFlow wrote
(`tests/fixtures/checkpoints/tf_v1*`, made by its script) are read by every reader
here without TensorFlow; with TensorFlow installed, each side restores what the other
saved, whole and partitioned, sharded or not."""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.ops import io_ops

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "checkpoints")
sys.path.insert(0, FIXTURES)
from make_checkpoints import values  # noqa: E402

SAVED = ["f32", "f64", "i32", "i64", "flag", "bytes8", "text", "scope/scalar"]


@pytest.fixture
def tf_v1(tmp_path):
    """A writable copy of the TF V1 fixture directory."""
    shutil.copytree(os.path.join(FIXTURES, "tf_v1"), tmp_path / "tf_v1")
    return str(tmp_path / "tf_v1")


def _zeros(v):
    return np.full(v.shape, b"", object) if v.dtype == object else np.zeros_like(v)


def test_reader_reads_a_tf_v1_checkpoint(tf_v1):
    expected = values()
    latest = ff.train.latest_checkpoint(tf_v1)
    assert latest == os.path.join(tf_v1, "model.ckpt-7")
    assert ff.train.checkpoint_exists(latest)
    reader = ff.train.NewCheckpointReader(latest)
    assert sorted(reader.get_variable_to_shape_map()) == sorted([*SAVED, "global_step", "pv"])
    for name in [*SAVED, "global_step", "pv"]:
        np.testing.assert_array_equal(np.asarray(reader.get_tensor(name)), expected[name])
    assert dict(ff.train.list_variables(latest))["pv"] == [4, 3]


def test_saver_restores_a_tf_v1_checkpoint(tf_v1):
    expected = values()
    with ff.Graph().as_default():
        variables = {n: ff.Variable(_zeros(expected[n]), name=n) for n in SAVED}
        pv = ff.get_variable(
            "pv", initializer=ff.zeros([4, 3]), partitioner=ff.fixed_size_partitioner(2)
        )
        step = ff.train.get_or_create_global_step()
        with ff.Session() as sess:
            ff.train.Saver().restore(sess, ff.train.latest_checkpoint(tf_v1))
            for name, var in variables.items():
                np.testing.assert_array_equal(np.asarray(sess.run(var)), expected[name])
            np.testing.assert_array_equal(sess.run(ff.convert_to_tensor(pv)), expected["pv"])
            assert sess.run(step) == 7


def test_sharded_v1_pattern_is_restored():
    expected = values()
    pattern = ff.train.latest_checkpoint(os.path.join(FIXTURES, "tf_v1_sharded"))
    assert pattern.endswith("model-?????-of-00001")
    with ff.Graph().as_default():
        v = ff.Variable(np.zeros(2), name="f64")
        with ff.Session() as sess:
            ff.train.Saver([v]).restore(sess, pattern)
            np.testing.assert_array_equal(sess.run(v), expected["f64"])
            got = sess.run(io_ops.restore_slice(pattern, "pv", "4 3 2,2:-", ff.float32))
    np.testing.assert_array_equal(got, expected["pv"][2:])


def test_init_from_checkpoint_reads_v1(tf_v1):
    expected = values()
    with ff.Graph().as_default():
        v = ff.get_variable("x", initializer=np.zeros(2))
        ff.train.init_from_checkpoint(os.path.join(tf_v1, "model.ckpt-7"), {"f64": v})
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), expected["f64"])


@pytest.mark.parametrize("sharded", [False, True])
def test_our_v1_save_round_trips_and_rotates(tmp_path, sharded):
    expected = values()
    with ff.Graph().as_default():
        variables = {n: ff.Variable(expected[n], name=n) for n in SAVED}
        saver = ff.train.Saver(write_version=ff.train.SaverDef.V1, sharded=sharded, max_to_keep=2)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            paths = [saver.save(sess, str(tmp_path / "m"), global_step=s) for s in range(3)]
            assert ff.train.latest_checkpoint(str(tmp_path)) == paths[-1]
            assert not ff.train.checkpoint_exists(paths[0])
            assert all(ff.train.checkpoint_exists(p) for p in paths[1:])
            assert len(ff.train.get_checkpoint_mtimes(paths)) == 2
            for var in variables.values():
                sess.run(var.assign(_zeros(np.asarray(sess.run(var)))))
            saver.restore(sess, paths[-1])
            for name, var in variables.items():
                np.testing.assert_array_equal(np.asarray(sess.run(var)), expected[name])
    ff.train.remove_checkpoint(paths[-1], ff.train.SaverDef.V1)
    assert not ff.train.checkpoint_exists(paths[-1])


def test_tensorflow_restores_our_v1_checkpoint(tf1, tmp_path):
    expected = values()
    with ff.Graph().as_default():
        for n in SAVED:
            ff.Variable(expected[n], name=n)
        ff.get_variable(
            "pv", initializer=ff.constant(expected["pv"]), partitioner=ff.fixed_size_partitioner(2)
        )
        saver = ff.train.Saver(write_version=ff.train.SaverDef.V1)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "ours"), write_meta_graph=False)
    with tf1.Graph().as_default():
        variables = {n: tf1.Variable(_zeros(expected[n]), name=n) for n in SAVED}
        pv = tf1.get_variable(
            "pv", initializer=tf1.zeros([4, 3]), partitioner=tf1.fixed_size_partitioner(2)
        )
        with tf1.Session() as sess:
            tf1.train.Saver().restore(sess, path)
            for name, var in variables.items():
                np.testing.assert_array_equal(np.asarray(sess.run(var)), expected[name])
            np.testing.assert_array_equal(sess.run(tf1.convert_to_tensor(pv)), expected["pv"])
    reader = tf1.train.NewCheckpointReader(path)
    assert sorted(reader.get_variable_to_shape_map()) == sorted([*SAVED, "pv"])


def test_damaged_v1_files_are_data_loss(tmp_path):
    src = os.path.join(FIXTURES, "tf_v1", "model.ckpt-7")
    with open(src, "rb") as f:
        data = f.read()
    for i, damaged in enumerate([data[: len(data) // 2], data[:40] + b"\xff" * 8 + data[48:]]):
        path = tmp_path / f"bad{i}"
        path.write_bytes(damaged)
        with pytest.raises((ff.errors.DataLossError, ff.errors.NotFoundError)):
            ff.train.NewCheckpointReader(str(path)).get_tensor("f32")


def test_missing_checkpoint_is_not_found(tmp_path):
    with pytest.raises(ff.errors.NotFoundError, match="Failed to find any matching files"):
        ff.train.NewCheckpointReader(str(tmp_path / "nothing"))
