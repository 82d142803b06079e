"""Graph construction: names, scopes, devices, control dependencies, collections,
default-graph stack, finalize, lookups and GraphDef export (against TensorFlow)."""

import threading

import numpy as np
import pytest

import ferroflow as ff
from conftest import build_both
from ferroflow import protos


def test_unique_names_and_scopes():
    a = ff.constant(1.0, name="a")
    a1 = ff.constant(1.0, name="a")
    a2 = ff.constant(1.0, name="A")  # names compare case-insensitively, as in TF
    assert (a.op.name, a1.op.name, a2.op.name) == ("a", "a_1", "A_2")
    with ff.name_scope("outer"):
        with ff.name_scope("inner") as scope:
            assert scope == "outer/inner/"
            b = ff.constant(2.0, name="b")
        with ff.name_scope("inner") as scope2:
            assert scope2 == "outer/inner_1/"
        with ff.name_scope("outer/inner/") as exact:
            assert exact == "outer/inner/"
            c = ff.constant(3.0, name="c")
        with ff.name_scope(None) as top:
            assert top == ""
            d = ff.constant(4.0, name="d")
    assert b.name == "outer/inner/b:0"
    assert c.op.name == "outer/inner/c"
    assert d.op.name == "d"
    with pytest.raises(ValueError, match="not a valid scope name"):
        with ff.name_scope("bad name!"):
            pass


@pytest.mark.tf_oracle
def test_graph_def_matches_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        with tf.name_scope("layer"):
            w = tf.Variable(np.ones((2, 2), np.float32), name="w")
            y = tf.matmul(x, w)
        with tf.control_dependencies([y]):
            z = tf.identity(y, name="z")
        init = tf.global_variables_initializer()
        s = tf.reduce_sum(z, axis=[0, 1], keepdims=True)
        return [z, init, s, tf.cast(s, tf.int32), tf.reshape(s, [-1]), tf.no_op()]

    (g_tf, _), (g_ff, _) = build_both(tf1, build)
    tf_def = g_tf.as_graph_def()
    ff_def = g_ff.as_graph_def()
    assert [n.name for n in ff_def.node] == [n.name for n in tf_def.node]
    for mine, theirs in zip(ff_def.node, tf_def.node, strict=True):
        assert mine.op == theirs.op, mine.name
        assert list(mine.input) == list(theirs.input), mine.name
        for key in ("T", "dtype", "DstT", "SrcT", "transpose_a", "keep_dims", "Tidx"):
            if key in theirs.attr:
                assert key in mine.attr, (mine.name, key)
                assert mine.attr[key].SerializeToString() == theirs.attr[key].SerializeToString()
    # Our GraphDef bytes parse as TensorFlow's GraphDef message (wire compatible).
    parsed = tf1.GraphDef.FromString(ff_def.SerializeToString())
    assert [n.name for n in parsed.node] == [n.name for n in tf_def.node]
    imported = tf1.Graph()
    with imported.as_default():
        tf1.import_graph_def(parsed, name="")
        with tf1.Session(graph=imported) as sess:
            sess.run("init")
            out = sess.run("z:0", {"x:0": [[1.0, 2.0]]})
    np.testing.assert_allclose(out, [[3.0, 3.0]])


def test_control_dependencies():
    a = ff.constant(1.0, name="a")
    b = ff.constant(2.0, name="b")
    with ff.control_dependencies([a]):
        c = ff.constant(3.0, name="c")
        with ff.control_dependencies([b.op]):
            d = ff.identity(c, name="d")  # c was created inside the `a` context
        with ff.control_dependencies(None):
            e = ff.constant(5.0, name="e")
    assert c.op.control_inputs == [a.op]
    assert d.op.control_inputs == [b.op]
    assert e.op.control_inputs == []
    assert list(d.op.node_def.input) == ["c", "^b"]
    with pytest.raises(TypeError, match="Control input must be Operation or Tensor"):
        with ff.control_dependencies([1.0]):
            pass


def test_control_dependencies_order_side_effects():
    v = ff.Variable(0.0)
    inc = v.assign_add(1.0)
    with ff.control_dependencies([inc]):
        read = v.read_value()  # a new read, ordered after the increment
    with ff.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(read) == 1.0
        assert sess.run(read) == 2.0


@pytest.mark.tf_oracle
def test_ops_under_control_dependencies_read_updated_variables(tf1):
    # TF's `v/read` aliases the variable, so an op ordered after an update by
    # `control_dependencies` sees the new value even through the old read; ops
    # without control dependencies keep one consistent value within the step.
    from conftest import run_ff, run_tf

    def build(lib):
        v = lib.Variable(1.0, name="v")
        w = lib.Variable(10.0, name="w")
        inc = v.assign_add(1.0)
        with lib.control_dependencies([inc]):
            doubled = v * 2.0
            same = lib.identity(v)
            total = doubled + 10.0
        grad_step = w.assign_sub(v)  # reads v once, before or after `inc` in TF
        with lib.control_dependencies([grad_step]):
            after = lib.identity(w)
        return [doubled, same, total, after]

    got = run_ff(build)
    want = run_tf(tf1, build)
    np.testing.assert_allclose(got[:3], want[:3])
    assert got[:3] == [4.0, 2.0, 14.0]
    assert got[3] in (8.0, 9.0) and want[3] in (8.0, 9.0)


def test_device_scopes():
    with ff.device("/gpu:0"):
        a = ff.constant(1.0)
        with ff.device("/job:ps/task:1"):
            b = ff.constant(2.0)
        with ff.device(None):
            c = ff.constant(3.0)
    with ff.device(lambda op: "/cpu:0" if op.type == "Const" else ""):
        d = ff.constant(4.0)
    assert a.device == "/device:GPU:0"
    assert b.device == "/job:ps/task:1/device:GPU:0"
    assert c.device == ""
    # As TF: a device function's result is kept as it returned it.
    assert d.device == "/cpu:0"
    assert ff.get_default_graph().as_graph_def().node[0].device == "/device:GPU:0"


def test_collections():
    g = ff.get_default_graph()
    ff.add_to_collection("things", 1)
    ff.add_to_collections(["things", "more"], 2)
    assert ff.get_collection("things") == [1, 2]
    ref = ff.get_collection_ref("things")
    ref.append(3)
    assert g.get_collection("things") == [1, 2, 3]
    copy = ff.get_collection("things")
    copy.append(4)
    assert len(g.get_collection("things")) == 3
    v1 = ff.Variable(1.0, name="scope_a/v")
    ff.Variable(1.0, name="scope_b/v", trainable=False)
    assert g.get_collection(ff.GraphKeys.GLOBAL_VARIABLES, scope="scope_a") == [v1]
    assert ff.trainable_variables() == [v1]
    assert sorted(g.get_all_collection_keys()) == [
        "more",
        "things",
        "trainable_variables",
        "variables",
    ]
    g.clear_collection("more")
    assert ff.get_collection("more") == []


def test_default_graph_stack():
    g0 = ff.get_default_graph()
    g1 = ff.Graph()
    with g1.as_default():
        assert ff.get_default_graph() is g1
        c = ff.constant(1.0)
        assert c.graph is g1
        with pytest.raises(AssertionError):
            ff.reset_default_graph()
    assert ff.get_default_graph() is g0
    ff.reset_default_graph()
    assert ff.get_default_graph() is not g0
    seen = []
    t = threading.Thread(target=lambda: seen.append(ff.get_default_graph()))
    with g1.as_default():
        t.start()
        t.join()
    # The stack is per thread; other threads see the global default graph.
    assert seen[0] is ff.get_default_graph()


def test_mixing_graphs_is_an_error():
    g1, g2 = ff.Graph(), ff.Graph()
    with g1.as_default():
        a = ff.constant(1.0)
    with g2.as_default():
        b = ff.constant(1.0)
    with pytest.raises(ValueError, match="must be from the same graph"):
        ff.add(a, b)


def test_finalize():
    g = ff.Graph()
    with g.as_default():
        ff.constant(1.0)
        g.finalize()
        assert g.finalized
        with pytest.raises(RuntimeError, match="Graph is finalized"):
            ff.constant(2.0)


def test_lookup_by_name():
    with ff.name_scope("s"):
        a = ff.add(ff.constant(1.0), 2.0, name="sum")
    g = ff.get_default_graph()
    assert g.get_operation_by_name("s/sum") is a.op
    assert g.get_tensor_by_name("s/sum:0") is a
    assert g.as_graph_element("s/sum:0") is a
    with pytest.raises(KeyError):
        g.get_operation_by_name("nope")
    with pytest.raises(KeyError, match="only has 1 outputs"):
        g.get_tensor_by_name("s/sum:3")
    with pytest.raises(ValueError, match="refers to an Operation"):
        g.get_tensor_by_name("s/sum")
    with pytest.raises(TypeError):
        g.get_operation_by_name(3)
    assert [op.name for op in g.get_operations()] == ["s/Const", "s/sum/y", "s/sum"]
    assert g.version == 3


def test_tensor_and_operation_handles():
    x = ff.placeholder(ff.float32, [None, 3], name="x")
    y = ff.matmul(x, ff.ones([3, 2]), transpose_b=False, name="mm")
    assert y.op.type == "MatMul" and y.value_index == 0
    assert y.op.inputs[0] is x
    assert y.op.outputs == [y]
    assert y.op.get_attr("transpose_a") is False
    assert y.op.get_attr("T") == ff.float32
    assert x.op.get_attr("shape").as_list() == [None, 3]
    with pytest.raises(ValueError, match="has no attr"):
        y.op.get_attr("nope")
    assert y.get_shape().as_list() == [None, 2]
    assert repr(y) == "<tf.Tensor 'mm:0' shape=(?, 2) dtype=float32>"
    assert str(y) == 'Tensor("mm:0", shape=(?, 2), dtype=float32)'
    assert repr(y.op) == "<tf.Operation 'mm' type=MatMul>"
    assert x.consumers() == [y.op]
    y.set_shape([4, 2])
    assert y.shape.as_list() == [4, 2]
    with pytest.raises(ValueError):
        y.set_shape([5, 2])
    with pytest.raises(TypeError):
        bool(y)
    with pytest.raises(TypeError):
        iter(y)
    node = y.op.node_def
    assert isinstance(node, protos.NodeDef) and node.op == "MatMul"


def test_as_graph_def_shapes_and_versions():
    g = ff.get_default_graph()
    ff.placeholder(ff.float32, [None, 3], name="p")
    gd = g.as_graph_def(add_shapes=True)
    dims = gd.node[0].attr["_output_shapes"].list.shape[0].dim
    assert [d.size for d in dims] == [-1, 3]
    assert gd.versions.producer > 0
    assert g.as_graph_def(from_version=1).node == []


def test_switch_to_thread_local_keeps_control_dependencies_per_thread():
    g = ff.Graph()
    g.switch_to_thread_local()
    with g.as_default():
        gate = ff.no_op(name="gate")
    made = {}

    def build():
        with g.as_default():
            made["other"] = ff.constant(1.0, name="other")

    with g.as_default(), g.control_dependencies([gate]):
        worker = threading.Thread(target=build)
        worker.start()
        worker.join()
        inside = ff.constant(2.0, name="inside")
    assert [op.name for op in inside.op.control_inputs] == ["gate"]
    assert made["other"].op.control_inputs == []


def _init_scope_devices(lib, init_scope):
    g = lib.get_default_graph()
    anchor = lib.constant(0.0, name="anchor")
    with g.device("/job:a/task:1"):
        placed = lib.constant(0.0, name="placed")
        with g.colocate_with(anchor.op):
            lifted_ctx = init_scope()
            with lifted_ctx:
                lifted = lib.constant(1.0, name="lifted")
            plain = lib.constant(2.0, name="plain")
            with g.device("/task:3"), init_scope():
                inner = lib.constant(3.0, name="inner")
        with g.colocate_with(placed.op), init_scope():
            over = lib.constant(4.0, name="over")
    return [
        (t.op.device, sorted(t.op.get_attr("_class")) if "_class" in t.op.node_def.attr else None)
        for t in (lifted, plain, inner, over)
    ]


@pytest.mark.tf_oracle
def test_init_scope_lifts_device_stack_as_tf(tf1):
    from tensorflow.python.framework import ops as tf_ops

    g_tf = tf1.Graph()
    with g_tf.as_default():
        theirs = _init_scope_devices(tf1, tf_ops.init_scope)
    g_ff = ff.Graph()
    with g_ff.as_default():
        ours = _init_scope_devices(ff, _ff_init_scope)
    assert ours == theirs
    # Colocated with a device-less op: the device scopes outside the colocation apply.
    assert ours[0] == ("/job:a/task:1", [b"loc:@anchor"])
    assert ours[1] == ("", [b"loc:@anchor"])


def _ff_init_scope():
    from ferroflow.framework import ops as ff_ops

    return ff_ops.init_scope()


def test_attr_scope_nests_and_lifts():
    g = ff.get_default_graph()
    with g._attr_scope({"_class": [b"loc:@x"]}):
        a = ff.constant(1.0)
        with g._attr_scope({"_class": None}):
            b = ff.constant(1.0)
        with g._attr_scope({"_class": [b"loc:@y"]}):
            c = ff.constant(1.0)
        d = ff.constant(1.0)
    e = ff.constant(1.0)
    assert a.op.get_attr("_class") == [b"loc:@x"]
    with pytest.raises(ValueError, match="no attr named '_class'"):
        b.op.get_attr("_class")
    assert c.op.get_attr("_class") == [b"loc:@y"]
    assert d.op.get_attr("_class") == [b"loc:@x"]
    with pytest.raises(ValueError, match="no attr named '_class'"):
        e.op.get_attr("_class")
    with pytest.raises(TypeError, match="attr_map must be a dictionary"):
        with g._attr_scope([("_class", None)]):
            pass
