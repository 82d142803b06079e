"""Checkpoints TensorFlow wrote (`tests/fixtures/checkpoints`, made by its script):
ferroflow reads them, restores them, imports their meta graph and, given the same
variables, writes the same bytes. These run without TensorFlow installed."""

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
def tf_saver(tmp_path):
    """A writable copy of the TF Saver fixture directory."""
    shutil.copytree(os.path.join(FIXTURES, "tf_saver"), tmp_path / "tf_saver")
    return str(tmp_path / "tf_saver")


def test_reader_reads_every_dtype_of_a_tf_checkpoint(tf_saver):
    expected = values()
    latest = ff.train.latest_checkpoint(tf_saver)
    assert latest == os.path.join(tf_saver, "model.ckpt-7")
    reader = ff.train.NewCheckpointReader(latest)
    assert sorted(reader.get_variable_to_shape_map()) == sorted([*SAVED, "global_step"])
    for name in [*SAVED, "global_step"]:
        got = reader.get_tensor(name)
        np.testing.assert_array_equal(np.asarray(got), expected[name])
    assert reader.get_variable_to_dtype_map()["text"] == ff.string


def test_saver_restores_a_tf_checkpoint_and_writes_the_same_bytes(tf_saver, tmp_path):
    expected = values()
    with ff.Graph().as_default():
        variables = {
            n: ff.Variable(
                np.full(expected[n].shape, b"", object)
                if expected[n].dtype == object
                else np.zeros_like(expected[n]),
                name=n,
            )
            for n in SAVED
        }
        step = ff.train.get_or_create_global_step()
        saver = ff.train.Saver()
        with ff.Session() as sess:
            saver.restore(sess, ff.train.latest_checkpoint(tf_saver))
            for name, var in variables.items():
                np.testing.assert_array_equal(np.asarray(sess.run(var)), expected[name])
            assert sess.run(step) == 7
            path = saver.save(sess, str(tmp_path / "ours" / "model.ckpt"), global_step=7)
    for suffix in (".index", ".data-00000-of-00001"):
        with open(path + suffix, "rb") as a:
            with open(os.path.join(tf_saver, "model.ckpt-7" + suffix), "rb") as b:
                assert a.read() == b.read(), suffix


def test_import_meta_graph_of_a_tf_meta_file(tf_saver):
    expected = values()
    with ff.Graph().as_default():
        saver = ff.train.import_meta_graph(os.path.join(tf_saver, "model.ckpt-7.meta"))
        names = {v.op.name for v in ff.global_variables()}
        assert names == {*SAVED, "global_step"}
        with ff.Session() as sess:
            saver.restore(sess, os.path.join(tf_saver, "model.ckpt-7"))
            np.testing.assert_array_equal(sess.run("f32:0"), expected["f32"])
            assert sess.run(ff.train.get_global_step()) == 7


def test_partitioned_tensors_are_assembled_from_their_slices():
    expected = values()
    prefix = os.path.join(FIXTURES, "partitioned", "model")
    reader = ff.train.NewCheckpointReader(prefix)
    assert reader.get_variable_to_shape_map() == {"pv": [4, 3], "wide": [3, 200], "plain": [2]}
    for name in ("pv", "wide", "plain"):
        np.testing.assert_array_equal(reader.get_tensor(name), expected[name])
    with ff.Session() as sess:
        pv, wide = sess.run(io_ops.restore_v2(prefix, ["pv", "wide"], ["", ""], [ff.float32] * 2))
    np.testing.assert_array_equal(pv, expected["pv"])
    np.testing.assert_array_equal(wide, expected["wide"])


def _partitioned_graph(lib, init=None):
    """The fixture's variables, partitioned as its script partitions them."""
    v = values()
    const = (lambda name: lib.constant(v[name])) if init is None else init
    return [
        lib.get_variable("pv", initializer=const("pv"), partitioner=lib.fixed_size_partitioner(2)),
        lib.get_variable(
            "wide", initializer=const("wide"), partitioner=lib.fixed_size_partitioner(3, axis=1)
        ),
        lib.get_variable("plain", initializer=const("plain")),
    ]


def test_partitioned_variables_are_saved_as_tf_saves_them(tmp_path):
    # The same variables, partitioned the same way: the same bytes as TF's Saver.
    with ff.Graph().as_default():
        _partitioned_graph(ff)
        saver = ff.train.Saver()
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model"), write_meta_graph=False)
    for suffix in (".index", ".data-00000-of-00001"):
        with (
            open(prefix + suffix, "rb") as ours,
            open(os.path.join(FIXTURES, "partitioned", "model" + suffix), "rb") as theirs,
        ):
            assert ours.read() == theirs.read(), suffix


@pytest.mark.parametrize("shards", [(2, 3), (3, 2), (1, 1)])
def test_tf_partitioned_checkpoint_restores_into_any_partitioning(shards):
    # TF's slices are read into parts cut differently (LookupSlice), or whole.
    expected = values()
    with ff.Graph().as_default():
        zeros = lambda name: ff.zeros(expected[name].shape)  # noqa: E731
        pv = ff.get_variable(
            "pv", initializer=zeros("pv"), partitioner=ff.fixed_size_partitioner(shards[0])
        )
        wide = ff.get_variable(
            "wide",
            initializer=zeros("wide"),
            partitioner=ff.fixed_size_partitioner(shards[1], axis=1),
        )
        plain = ff.get_variable(
            "plain", initializer=zeros("plain"), partitioner=ff.fixed_size_partitioner(2)
        )
        saver = ff.train.Saver()
        with ff.Session() as sess:
            saver.restore(sess, os.path.join(FIXTURES, "partitioned", "model"))
            got = sess.run([ff.convert_to_tensor(v) for v in (pv, wide, plain)])
    for name, value in zip(("pv", "wide", "plain"), got, strict=True):
        np.testing.assert_array_equal(value, expected[name])


def test_slice_specs_are_checked():
    prefix = os.path.join(FIXTURES, "partitioned", "model")
    with ff.Session() as sess:
        part = sess.run(io_ops.restore_v2(prefix, ["wide"], ["3 200 1,2:60,80"], [ff.float32]))
        np.testing.assert_array_equal(part[0], values()["wide"][1:3, 60:140])
        for spec, msg in [
            ("3 201 0,3:-", "does not match the shape stored in checkpoint"),
            ("3 200 0,3", "Mismatching ranks"),
            ("3 200 0,4:-", "out of bounds"),
        ]:
            with pytest.raises(ff.errors.InvalidArgumentError, match=msg):
                sess.run(io_ops.restore_v2(prefix, ["wide"], [spec], [ff.float32]))
