"""Meta graph export and import options against TensorFlow's.

`strip_default_attrs`, `clear_extraneous_savers`, how collections serialize (and which
TF leaves out), the file errors, scoped export/import with unbound inputs, and the
scope an import lands in (TF 1.15's saver_test.py checks them; tests/upstream runs it).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.framework import meta_graph as ff_meta_graph


def _meta_graph_module(lib):
    if lib is ff:
        return ff_meta_graph
    from tensorflow.python.framework import meta_graph

    return meta_graph


def _two_savers(lib):
    a = lib.Variable([[1.0, 2.0]], name="a")
    b = lib.Variable([[1.0], [2.0]], name="b")
    lib.matmul(a, b, name="mm")
    lib.add_to_collection("mixed", 3)
    lib.add_to_collection("mixed", 3.5)  # an int64 list cannot hold it: left out
    lib.add_to_collection("var_coll", a)  # not a variable collection: a node name
    lib.add_to_collection("ints", 7)
    lib.add_to_collection("strs", "hello")
    s0 = lib.train.Saver({"a": a}, name="s0")
    s1 = lib.train.Saver({"b": b}, name="s1")
    lib.add_to_collection("savers", s0)
    lib.add_to_collection("savers", s1)
    return s0, s1


# Attributes TF 2.21 writes that TF 1.x (and ferroflow) do not.
_TF2_ATTRS = {"grad_a", "grad_b", "_has_manual_control_dependencies"}


def _summary(meta):
    nodes = {n.name: sorted(set(n.attr) - _TF2_ATTRS) for n in meta.graph_def.node}
    collections = {
        k: (c.WhichOneof("kind"), len(getattr(c, c.WhichOneof("kind")).value))
        for k, c in meta.collection_def.items()
    }
    return nodes, collections, meta.meta_info_def.stripped_default_attrs


@pytest.mark.parametrize(
    "options",
    [{}, {"strip_default_attrs": True}, {"clear_extraneous_savers": True}],
    ids=["plain", "strip_default_attrs", "clear_extraneous_savers"],
)
def test_export_options_write_what_tf_writes(tf1, options):
    got = {}
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            _, s1 = _two_savers(lib)
            meta = s1.export_meta_graph(**options)
        got[lib] = _summary(meta)
    assert got[ff] == got[tf1]
    nodes, collections, _ = got[ff]
    assert "mixed" not in collections
    assert collections["var_coll"] == ("node_list", 1)
    if options.get("strip_default_attrs"):
        assert nodes["mm"] == ["T", "_output_shapes"]
    if options.get("clear_extraneous_savers"):
        assert not [n for n in nodes if n.startswith("s0/")]
        assert collections["savers"] == ("bytes_list", 1)


def test_add_collection_def_leaves_out_what_tf_leaves_out(tf1):
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            v = lib.Variable(1.0, name="v")
            save = lib.train.Saver({"v": v})
            meta = lib.MetaGraphDef()
            lib.add_to_collection(save, 3)  # a key that is not a string
            save._add_collection_def(meta, save)
            lib.add_to_collection("ints", 3)
            lib.add_to_collection("ints", 3.5)
            save._add_collection_def(meta, "ints")
            assert len(meta.collection_def) == 0
            lib.add_to_collection("floats", 2.5)
            save._add_collection_def(meta, "floats")
            assert list(meta.collection_def["floats"].float_list.value) == [2.5]


def test_reading_a_missing_or_unparsable_meta_graph_is_an_ioerror(tf1, tmp_path):
    path = str(tmp_path / "metafile")
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            # TF 1.15 says "File <path> does not exist.", TF 2.21 puts the path last.
            with pytest.raises(IOError, match="does not exist"):
                lib.train.import_meta_graph(path)
            with open(path, "w") as f:
                f.write('filename_tensor_name: "save/Const:0"\n')  # a SaverDef's text
            with pytest.raises(IOError, match=f"^Cannot parse file {path}"):
                lib.train.import_meta_graph(path)
        os.remove(path)


def _scoped_graph(lib):
    images = lib.constant(1.0, lib.float32, shape=[3, 2], name="images")
    with lib.name_scope("hidden1"):
        w = lib.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="weights")
        b = lib.Variable([0.1] * 3, name="biases")
        lib.nn.relu(lib.matmul(images, w) + b, name="relu")


def test_scoped_export_and_import_remap_the_unbound_inputs_as_tf(tf1, tmp_path):
    results = {}
    for lib in (tf1, ff):
        mg = _meta_graph_module(lib)
        with lib.Graph().as_default():
            _scoped_graph(lib)
            meta, var_list = mg.export_scoped_meta_graph(export_scope="hidden1")
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                prefix = str(tmp_path / lib.__name__ / "ckpt")
                lib.train.Saver(var_list).save(sess, prefix, write_state=False)
        unbound = list(meta.collection_def["unbound_inputs"].bytes_list.value)
        graph = lib.Graph()
        with graph.as_default():
            x = lib.constant(2.0, lib.float32, shape=[3, 2], name="images")
        with pytest.raises(ValueError, match=r"unbound inputs: \$unbound_inputs_images"):
            mg.import_scoped_meta_graph(meta, graph=graph, import_scope="new")
        imported = mg.import_scoped_meta_graph(
            meta, graph=graph, import_scope="new", input_map={"$unbound_inputs_images": x}
        )
        with graph.as_default(), lib.Session() as sess:
            lib.train.Saver(imported).restore(sess, prefix)
            relu = sess.run("new/relu:0")
        results[lib] = (
            sorted(n.name for n in meta.graph_def.node),
            sorted(var_list),
            unbound,
            sorted((k, v.name) for k, v in imported.items()),
            relu,
        )
    assert results[ff][:4] == results[tf1][:4]
    np.testing.assert_allclose(results[ff][4], results[tf1][4])
    assert results[ff][2] == [b"$unbound_inputs_images"]


def test_copy_scoped_meta_graph(tf1):
    for lib in (tf1, ff):
        mg = _meta_graph_module(lib)
        graph = lib.Graph()
        with graph.as_default():
            with lib.name_scope("hidden1"):
                images = lib.constant(1.0, lib.float32, shape=[3, 2], name="images")
                w = lib.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="weights")
                b = lib.Variable([0.1] * 3, name="biases")
                lib.nn.relu(lib.matmul(images, w) + b, name="relu")
            with pytest.raises(ValueError, match="need to be different"):
                mg.copy_scoped_meta_graph(from_scope="hidden1", to_scope="hidden1")
            copied = mg.copy_scoped_meta_graph(from_scope="hidden1", to_scope="hidden2")
        assert sorted(copied) == ["biases:0", "weights:0"]
        assert copied["weights:0"].name == "hidden2/weights:0"
        with graph.as_default(), lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            np.testing.assert_allclose(sess.run("hidden2/relu:0"), sess.run("hidden1/relu:0"))


def test_import_lands_in_the_current_name_scope_and_returns_tfs_saver(tf1, tmp_path):
    results = {}
    for lib in (tf1, ff):
        prefix = str(tmp_path / lib.__name__ / "ckpt")
        with lib.Graph().as_default():
            v = lib.Variable([1.0, 2.0], name="v")
            with lib.Session() as sess:
                sess.run(v.initializer)
                lib.train.Saver().save(sess, prefix)
        with lib.Graph().as_default() as graph:
            with lib.name_scope("new_model"):
                saver = lib.train.import_meta_graph(prefix + ".meta")
            names = sorted(op.name for op in graph.get_operations())
            with lib.Session() as sess:
                saver.restore(sess, prefix)
                value = sess.run("new_model/v:0")
            # One Variable object in every variable collection it is in.
            same = lib.global_variables()[0] is lib.trainable_variables()[0]
        results[lib] = (names, saver.saver_def.restore_op_name, value.tolist(), same)
    assert results[ff] == results[tf1]


def test_import_scope_without_saver_def_makes_a_saver_only_for_its_variables(tf1, tmp_path):
    for lib in (tf1, ff):
        prefix = str(tmp_path / lib.__name__ / "ckpt")
        with lib.Graph().as_default(), lib.Session() as sess:
            lib.constant([1, 2, 3], name="x")
            lib.train.Saver(allow_empty=True).save(sess, prefix)
        with lib.Graph().as_default():
            assert lib.train.import_meta_graph(prefix + ".meta", import_scope="a") is None
            lib.Variable(lib.zeros([10]), name="my_scope/my_var")
            assert lib.train.import_meta_graph(prefix + ".meta", import_scope="b") is None
            saver = lib.train.import_meta_graph(prefix + ".meta", import_scope="my_scope")
            assert isinstance(saver, lib.train.Saver)
