"""Checkpoint readers and `init_from_checkpoint` against TensorFlow's."""

from __future__ import annotations

import numpy as np
import pytest

import ferroflow as ff


def _write(lib, directory):
    g = lib.Graph()
    with g.as_default():
        lib.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="a/v")
        lib.Variable(np.arange(3, dtype=np.int64), name="a/w")
        lib.Variable(b"text", name="s")
        lib.Variable(np.ones([2], np.float64), name="b/d")
        saver = lib.train.Saver()
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return saver.save(sess, str(directory / "model"), global_step=5)


@pytest.mark.parametrize("writer", ["tf", "ff"])
def test_readers_agree_with_tf_on_either_checkpoint(tf1, tmp_path, writer):
    path = _write(tf1 if writer == "tf" else ff, tmp_path)
    ours, theirs = ff.train.NewCheckpointReader(path), tf1.train.NewCheckpointReader(path)
    assert ours.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
    assert {k: v.name for k, v in ours.get_variable_to_dtype_map().items()} == {
        k: v.name for k, v in theirs.get_variable_to_dtype_map().items()
    }
    assert ours.debug_string() == theirs.debug_string()
    for name in theirs.get_variable_to_shape_map():
        assert ours.has_tensor(name)
        np.testing.assert_array_equal(ours.get_tensor(name), theirs.get_tensor(name))
    assert not ours.has_tensor("nope")
    with pytest.raises(ff.errors.NotFoundError):
        ours.get_tensor("nope")
    assert ff.train.list_variables(str(tmp_path)) == tf1.train.list_variables(str(tmp_path))
    np.testing.assert_array_equal(
        ff.train.load_variable(str(tmp_path), "a/v:0"),
        tf1.train.load_variable(str(tmp_path), "a/v"),
    )


def test_missing_checkpoints(tmp_path):
    with pytest.raises(ff.errors.NotFoundError, match="Failed to find any matching files"):
        ff.train.NewCheckpointReader(str(tmp_path / "none"))
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        ff.train.load_checkpoint(str(tmp_path))


def test_init_from_checkpoint_matches_tf(tf1, tmp_path):
    path = _write(ff, tmp_path)
    results = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            z = lib.Variable(np.zeros([2], np.float64), name="z")
            v = lib.Variable(np.zeros([2, 3], np.float32), name="v")
            untouched = lib.Variable(np.full([1], 7.0, np.float32), name="other")
            lib.train.init_from_checkpoint(path, {"b/d": z, "a/v": v})
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                results[lib] = sess.run([z, v, untouched])
    for a, b in zip(results[ff], results[tf1], strict=True):
        np.testing.assert_array_equal(a, b)


def test_init_from_checkpoint_by_scope_through_the_variable_store_matches_tf(tf1, tmp_path):
    path = _write(ff, tmp_path)
    results = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            with lib.variable_scope("new"):
                x = lib.get_variable("v", [2, 3])
                y = lib.get_variable("w", [3], dtype=lib.int64)
            z = lib.get_variable("d", [2], dtype=lib.float64)
            lib.train.init_from_checkpoint(path, {"a/": "new/", "b/d": "d"})
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                results[lib] = (
                    sess.run([x, y, z]),
                    [op.name for op in g.get_operations()],
                )
    for a, b in zip(results[ff][0], results[tf1][0], strict=True):
        np.testing.assert_array_equal(a, b)
    assert results[ff][1] == results[tf1][1]


def test_init_from_checkpoint_by_scope_and_its_errors(tmp_path):
    # As TF: names are looked up among `get_variable`'s variables.
    path = _write(ff, tmp_path)
    with ff.Graph().as_default():
        with ff.variable_scope("new"):
            x = ff.get_variable("v", [2, 3])
            y = ff.get_variable("w", [3], dtype=ff.int64)
        ff.Variable(np.zeros([3], np.int64), name="new/plain")  # not in the store
        ff.train.init_from_checkpoint(str(tmp_path), {"a/": "new/"})
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            got = sess.run([x, y])
    np.testing.assert_array_equal(got[0], np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(got[1], np.arange(3))
    with ff.Graph().as_default():
        ff.get_variable("bad", [4])
        with pytest.raises(ValueError, match="doesn't match with shape"):
            ff.train.init_from_checkpoint(path, {"a/v": "bad"})
        with pytest.raises(ValueError, match="is not found in"):
            ff.train.init_from_checkpoint(path, {"missing": "bad"})
        with pytest.raises(ValueError, match="should map to scope only"):
            ff.train.init_from_checkpoint(path, {"a": "nothing/"})


def test_checkpoints_iterator_yields_each_new_checkpoint(tmp_path):
    path = _write(ff, tmp_path)
    it = ff.train.checkpoints_iterator(str(tmp_path), timeout=0.2)
    assert next(it) == path
    assert list(it) == []


def test_init_from_checkpoint_partitioned_variables_matches_tf(tf1, tmp_path):
    """Parts given as a list, by name, or under a scope, as TF's."""
    path = _write(ff, tmp_path)
    results = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            two = lib.fixed_size_partitioner(2)
            p1 = lib.get_variable("p1", [2, 3], partitioner=two)
            p2 = lib.get_variable("p2", [2, 3], partitioner=two)
            p3 = lib.get_variable("p3", [2, 3], partitioner=two)
            with lib.variable_scope("new"):
                p4 = lib.get_variable("v", [2, 3], partitioner=lib.fixed_size_partitioner(3))
                lib.get_variable("w", [3], dtype=lib.int64, partitioner=two)
            lib.train.init_from_checkpoint(path, {"a/v": p1._get_variable_list()})
            # TF takes a list of parts, not the `PartitionedVariable` (ferroflow takes both).
            lib.train.init_from_checkpoint(path, {"a/v": p2 if lib is ff else list(p2)})
            lib.train.init_from_checkpoint(path, {"a/v": "p3"})
            lib.train.init_from_checkpoint(path, {"a/": "new/"})
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                results[lib] = sess.run([list(p) for p in (p1, p2, p3, p4)])
    for a, b in zip(results[ff], results[tf1], strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
