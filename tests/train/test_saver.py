"""`tf.train.Saver` against TensorFlow's: graphs, files, rotation, errors, interop."""

from __future__ import annotations

import os

import numpy as np
import pytest

import ferroflow as ff

V_INIT = np.arange(6, dtype=np.float32).reshape(2, 3)
W_INIT = np.arange(4, dtype=np.int64) * 7


def _variables(lib):
    v = lib.Variable(V_INIT, name="v")
    w = lib.Variable(W_INIT, name="scope/w")
    s = lib.Variable(b"hello", name="s")
    return v, w, s


def _ops_under(graph, scope):
    return [(op.name, op.type) for op in graph.get_operations() if op.name.startswith(scope)]


def test_the_save_and_restore_ops_are_tfs(tf1):
    graphs = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            _variables(lib)
            lib.train.get_or_create_global_step()
            saver = lib.train.Saver(max_to_keep=3, keep_checkpoint_every_n_hours=2.0)
        graphs[lib] = (g, saver.as_saver_def())
    (g_tf, def_tf), (g_ff, def_ff) = graphs[tf1], graphs[ff]
    assert _ops_under(g_ff, "save/") == _ops_under(g_tf, "save/")
    assert def_ff.SerializeToString() == def_tf.SerializeToString()
    names = {}
    for lib, (g, _) in graphs.items():
        save = g.get_operation_by_name("save/SaveV2")
        names[lib] = [i.name for i in save.inputs]
    assert names[ff] == names[tf1]


def _save_ff(directory, **kwargs):
    g = ff.Graph()
    with g.as_default():
        v, _, _ = _variables(ff)
        step = ff.train.get_or_create_global_step()
        saver = ff.train.Saver(**kwargs)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run([v.assign(v * 2.0), step.assign(41)])
            path = saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=step)
    return path


def test_tensorflow_restores_what_ferroflow_saved_and_imports_its_meta_graph(tf1, tmp_path):
    path = _save_ff(str(tmp_path))
    assert path == str(tmp_path / "model.ckpt-41")
    assert tf1.train.latest_checkpoint(str(tmp_path)) == path
    # Into a graph built by hand.
    g = tf1.Graph()
    with g.as_default():
        v, w, s = _variables(tf1)
        step = tf1.train.get_or_create_global_step()
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            saver.restore(sess, path)
            got = sess.run([v, w, s, step])
    np.testing.assert_array_equal(got[0], V_INIT * 2)
    np.testing.assert_array_equal(got[1], W_INIT)
    assert got[2] == b"hello" and got[3] == 41
    # From our .meta file alone: TF rebuilds the graph, the saver and the collections.
    g = tf1.Graph()
    with g.as_default():
        saver = tf1.train.import_meta_graph(path + ".meta")
        assert {v.op.name for v in tf1.global_variables()} == {"v", "scope/w", "s", "global_step"}
        assert {v.op.name for v in tf1.trainable_variables()} == {"v", "scope/w", "s"}
        with tf1.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run("v:0"), V_INIT * 2)
            assert sess.run(tf1.train.get_global_step()) == 41


def test_ferroflow_restores_what_tensorflow_saved(tf1, tmp_path):
    g = tf1.Graph()
    with g.as_default():
        v, w, s = _variables(tf1)
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(v.assign(v + 10.0))
            saver.save(sess, str(tmp_path / "tf.ckpt"), global_step=3)
    with ff.Graph().as_default():
        v, w, s = _variables(ff)
        saver = ff.train.Saver()
        with ff.Session() as sess:
            saver.restore(sess, ff.train.latest_checkpoint(str(tmp_path)))
            got = sess.run([v, w, s])
    np.testing.assert_array_equal(got[0], V_INIT + 10)
    np.testing.assert_array_equal(got[1], W_INIT)
    assert got[2] == b"hello"


def test_the_same_program_writes_the_same_checkpoint_bytes_as_tf(tf1, tmp_path):
    paths = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            _variables(lib)
            saver = lib.train.Saver()
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                directory = tmp_path / lib.__name__.split(".")[0]
                paths[lib] = saver.save(sess, str(directory / "m"), write_meta_graph=False)
    for suffix in (".index", ".data-00000-of-00001"):
        with open(paths[tf1] + suffix, "rb") as a, open(paths[ff] + suffix, "rb") as b:
            assert a.read() == b.read(), suffix


def _rotate(lib, directory, steps, **kwargs):
    g = lib.Graph()
    with g.as_default():
        _variables(lib)
        saver = lib.train.Saver(**kwargs)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            for step in steps:
                saver.save(sess, os.path.join(directory, "model"), global_step=step)
        return saver.last_checkpoints


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_to_keep": 2},
        {"max_to_keep": 0},
        {"max_to_keep": 3, "pad_step_number": True},
        {"max_to_keep": 2, "save_relative_paths": True},
    ],
)
def test_max_to_keep_rotation_matches_tf(tf1, tmp_path, kwargs):
    results = {}
    for lib in (tf1, ff):
        directory = tmp_path / lib.__name__.split(".")[0]
        directory.mkdir()
        last = _rotate(lib, str(directory), [0, 1, 2, 1, 5], **kwargs)
        state = (directory / "checkpoint").read_text().replace(str(directory), "DIR")
        results[lib] = (
            [os.path.relpath(p, directory) for p in last],
            sorted(os.listdir(directory)),
            state,
        )
    assert results[ff] == results[tf1]


def test_restore_errors_are_tfs(tmp_path):
    path = _save_ff(str(tmp_path))
    with ff.Graph().as_default():
        ff.Variable(V_INIT, name="v")
        saver = ff.train.Saver()
        with ff.Session() as sess:
            with pytest.raises(ValueError, match="Can't load save_path when it is None"):
                saver.restore(sess, None)
            with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint"):
                saver.restore(sess, str(tmp_path / "nothing"))
    with ff.Graph().as_default():
        ff.Variable(V_INIT, name="missing")
        saver = ff.train.Saver()
        with ff.Session() as sess:
            with pytest.raises(ff.errors.NotFoundError) as e:
                saver.restore(sess, path)
    assert e.value.message.startswith("Restoring from checkpoint failed.")
    assert "Key missing not found in checkpoint" in e.value.message
    with ff.Graph().as_default():
        ff.Variable(np.zeros([3], np.float32), name="v")
        saver = ff.train.Saver(var_list=[ff.global_variables()[0]])
        with ff.Session() as sess:
            with pytest.raises(ff.errors.InvalidArgumentError) as e:
                saver.restore(sess, path)
    assert "a mismatch between the current graph and the graph" in e.value.message


def test_constructor_options(tmp_path):
    with ff.Graph().as_default():
        v, w, _ = _variables(ff)
        with pytest.raises(ValueError, match="No variables to save"):
            ff.train.Saver(var_list=[])
        empty = ff.train.Saver(var_list=[], allow_empty=True)
        with ff.Session() as sess:
            assert empty.save(sess, str(tmp_path / "x"), write_meta_graph=False) is None
        with pytest.raises(ValueError, match="build cannot be deferred"):
            ff.train.Saver(var_list=[v], defer_build=True)
        with pytest.raises(ValueError, match="Unsupported write_version"):
            ff.train.Saver(write_version=7)
        deferred = ff.train.Saver(defer_build=True)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            with pytest.raises(RuntimeError, match="build"):
                deferred.save(sess, str(tmp_path / "d"))
            deferred.build()
            assert deferred.save(sess, str(tmp_path / "d")) == str(tmp_path / "d")
            # A dict renames the variables in the checkpoint.
            renamed = ff.train.Saver({"first": v, "second": w}, name="renamed")
            path = renamed.save(sess, str(tmp_path / "r"), write_meta_graph=False)
            with pytest.raises(ValueError, match="collides"):
                renamed.save(sess, str(tmp_path / "checkpoint"))
            with pytest.raises(ValueError, match="path components"):
                renamed.save(sess, str(tmp_path / "r"), latest_filename="a/b")
    reader_names = sorted(
        n for n in os.listdir(tmp_path) if n.startswith("r.") and not n.endswith(".meta")
    )
    assert reader_names == ["r.data-00000-of-00001", "r.index"]
    assert path == str(tmp_path / "r")


def test_last_checkpoints_can_be_set_and_recovered(tmp_path):
    with ff.Graph().as_default():
        _variables(ff)
        saver = ff.train.Saver(max_to_keep=2)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            paths = [saver.save(sess, str(tmp_path / "m"), global_step=i) for i in range(2)]
        other = ff.train.Saver(max_to_keep=2)
        other.recover_last_checkpoints([*paths, str(tmp_path / "gone")])
        assert other.last_checkpoints == paths
        other.set_last_checkpoints(["a", "b"])
        assert other.last_checkpoints == ["a", "b"]
        mtimes = ff.train.get_checkpoint_mtimes(paths)
        assert len(mtimes) == 2 and mtimes[0] <= mtimes[1]
        ff.train.remove_checkpoint(paths[0])
        assert not os.path.exists(paths[0] + ".index")
        assert not os.path.exists(paths[0] + ".meta")


def test_global_step_as_a_tensor_and_the_meta_graph(tmp_path):
    with ff.Graph().as_default():
        _variables(ff)
        step = ff.train.get_or_create_global_step()
        saver = ff.train.Saver()
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            sess.run(step.assign(7))
            path = saver.save(sess, str(tmp_path / "m"), global_step=step)
        assert path.endswith("m-7")
        meta = ff.MetaGraphDef()
        with open(path + ".meta", "rb") as f:
            meta.ParseFromString(f.read())
        assert meta.saver_def == saver.saver_def
        assert set(meta.collection_def) >= {"variables", "trainable_variables", "global_step"}
        var_def = ff.protos.VariableDef()
        var_def.ParseFromString(meta.collection_def["variables"].bytes_list.value[0])
        assert var_def.variable_name == "v:0" and var_def.snapshot_name == "v/read:0"


def _train_graph(lib):
    """A small regression trained with GradientDescent, with a global step."""
    x = lib.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(8, 1))
    y = 3.0 * x + 1.0
    w = lib.Variable(np.zeros([1, 1], np.float32), name="w")
    b = lib.Variable(np.zeros([1], np.float32), name="b")
    loss = lib.reduce_mean(lib.square(lib.matmul(x, w) + b - y), name="loss")
    step = lib.train.get_or_create_global_step()
    train = lib.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    lib.add_to_collection("train_op", train)
    lib.add_to_collection("loss", loss)
    return loss, train, step


def _continue(lib, meta_path, checkpoint, steps):
    """Imports a .meta file, restores the checkpoint and trains `steps` more steps."""
    g = lib.Graph()
    with g.as_default():
        saver = lib.train.import_meta_graph(meta_path)
        train = lib.get_collection("train_op")[0]
        loss = lib.get_collection("loss")[0]
        with lib.Session() as sess:
            saver.restore(sess, checkpoint)
            for _ in range(steps):
                sess.run(train)
            return sess.run([loss, lib.train.get_global_step(), "w:0", "b:0"])


def test_import_meta_graph_resumes_training_with_tfs_numbers(tf1, tmp_path):
    g = ff.Graph()
    with g.as_default():
        _, train, _ = _train_graph(ff)
        saver = ff.train.Saver()
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            for _ in range(5):
                sess.run(train)
            path = saver.save(sess, str(tmp_path / "model"), global_step=5)
    ours = _continue(ff, path + ".meta", path, 5)
    theirs = _continue(tf1, path + ".meta", path, 5)
    assert ours[1] == theirs[1] == 10
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    # And a .meta file TensorFlow wrote imports into ferroflow.
    g = tf1.Graph()
    with g.as_default():
        _, train, _ = _train_graph(tf1)
        saver = tf1.train.Saver()
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(train)
            tf_path = saver.save(sess, str(tmp_path / "tf" / "model"), global_step=1)
    ours = _continue(ff, tf_path + ".meta", tf_path, 3)
    theirs = _continue(tf1, tf_path + ".meta", tf_path, 3)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_write_graph_and_import_graph_def_round_trip(tmp_path):
    g = ff.Graph()
    with g.as_default():
        a = ff.placeholder(ff.float32, [None, 2], name="a")
        out = ff.identity(ff.reduce_sum(a * 2.0, axis=1), name="out")
    text_path = ff.train.write_graph(g, str(tmp_path / "dir"), "g.pbtxt")
    bin_path = ff.train.write_graph(g.as_graph_def(), str(tmp_path / "dir"), "g.pb", as_text=False)
    assert text_path == str(tmp_path / "dir" / "g.pbtxt")
    from google.protobuf import text_format

    with open(text_path) as f:
        from_text = text_format.Parse(f.read(), ff.GraphDef())
    with open(bin_path, "rb") as f:
        from_bin = ff.GraphDef.FromString(f.read())
    assert from_text == from_bin == g.as_graph_def()
    with ff.Graph().as_default():
        feed = ff.placeholder(ff.float32, [None, 2])
        (result,) = ff.import_graph_def(
            from_bin, input_map={"a:0": feed}, return_elements=["out:0"], name="imp"
        )
        assert result.name == "imp/out:0"
        with ff.Session() as sess:
            np.testing.assert_array_equal(sess.run(result, {feed: [[1.0, 2.0]]}), [6.0])
    del out


def test_meta_graphs_carry_tfs_stripped_op_list(tf1):
    metas = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            _train_graph(lib)
            saver = lib.train.Saver()
            metas[lib] = saver.export_meta_graph()
    ours, theirs = (metas[lib].meta_info_def.stripped_op_list for lib in (ff, tf1))
    # One OpDef per op type the graph uses, sorted (the graphs' gradients differ a
    # little in op types, so compare the definitions of the types both use).
    used = sorted({n.op for n in metas[ff].graph_def.node})
    assert [op.name for op in ours.op] == used
    tf_defs = {op.name: op.SerializeToString() for op in theirs.op}
    common = [op for op in ours.op if op.name in tf_defs]
    assert len(common) >= 10
    for op in common:
        assert op.SerializeToString() == tf_defs[op.name], op.name


def test_file_writer_with_a_graph_writes_its_meta_graph_as_tf(tf1, tmp_path):
    kinds = {}
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            _train_graph(lib)
            directory = str(tmp_path / lib.__name__.split(".")[0])
            writer = lib.summary.FileWriter(directory, g)
            writer.close()
        (name,) = os.listdir(directory)
        events = list(ff.train.summary_iterator(os.path.join(directory, name)))
        kinds[lib] = [e.WhichOneof("what") for e in events]
        meta = ff.MetaGraphDef.FromString(events[-1].meta_graph_def)
        assert {"train_op", "variables", "global_step"} <= set(meta.collection_def)
    assert kinds[ff] == kinds[tf1] == ["file_version", "graph_def", "meta_graph_def"]


_SAVER_CHILD = """
import sys, numpy as np, ferroflow as tf
big = tf.Variable(tf.zeros([1 << 18]), name="big")
step = tf.train.get_or_create_global_step()
bump = tf.group(big.assign_add(tf.ones([1 << 18])), step.assign_add(1))
saver = tf.train.Saver(max_to_keep=2)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    latest = tf.train.latest_checkpoint(sys.argv[1])
    if latest:
        saver.restore(sess, latest)
    print("ready", flush=True)
    while True:
        sess.run(bump)
        saver.save(sess, sys.argv[1] + "/model.ckpt", global_step=step)
"""


def test_a_saver_killed_at_random_instants_resumes_from_a_complete_checkpoint(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    rng = np.random.default_rng(14)
    last_step = 0
    for _ in range(15):
        child = subprocess.Popen(
            [sys.executable, "-c", _SAVER_CHILD, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout.readline().strip() == "ready"
        time.sleep(float(rng.uniform(0.0, 0.3)))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        state = ff.train.get_checkpoint_state(str(tmp_path))
        if state is None:
            continue
        for path in state.all_model_checkpoint_paths:
            assert os.path.exists(path + ".index"), path
        reader = ff.train.NewCheckpointReader(state.model_checkpoint_path)
        step = int(reader.get_tensor("global_step"))
        # Values and step come from the same save; steps never go back.
        assert np.all(reader.get_tensor("big") == float(step))
        assert step >= last_step
        last_step = step
    assert last_step > 0


@pytest.mark.parametrize("writer", ["tf", "ff"])
def test_sharded_savers_interoperate(tf1, tmp_path, writer):
    lib = tf1 if writer == "tf" else ff
    g = lib.Graph()
    with g.as_default():
        _variables(lib)
        saver = lib.train.Saver(sharded=True)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "sharded"), write_meta_graph=False)
    other = ff if writer == "tf" else tf1
    g = other.Graph()
    with g.as_default():
        v, w, s = _variables(other)
        saver = other.train.Saver(sharded=True)
        with other.Session() as sess:
            saver.restore(sess, path)
            got = sess.run([v, w, s])
    np.testing.assert_array_equal(got[0], V_INIT)
    np.testing.assert_array_equal(got[1], W_INIT)


def test_save_and_restore_with_an_interactive_session(tmp_path):
    """Any session object TF accepts (a `SessionInterface`) saves and restores."""
    v = ff.Variable(3.0, name="v")
    saver = ff.train.Saver()
    sess = ff.InteractiveSession()
    try:
        sess.run(ff.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model"))
        sess.run(v.assign(5.0))
        saver.restore(sess, path)
        assert sess.run(v) == 3.0
    finally:
        sess.close()
    with pytest.raises(TypeError, match="'sess' must be a Session"):
        saver.save(object(), str(tmp_path / "other"))
