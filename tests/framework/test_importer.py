"""`tf.import_graph_def` compared with TensorFlow: name prefixes and clashes, input maps
(tensors, control inputs, Python values, keys that name nothing), return elements,
colocation, argument errors; and GraphDefs that cross between the two libraries."""

import numpy as np
import pytest

import ferroflow as ff


def _source(lib):
    """A small GraphDef: a placeholder, two arithmetic ops, a control edge, colocation."""
    g = lib.Graph()
    with g.as_default():
        x = lib.placeholder(lib.float32, [None], name="x")
        y = lib.multiply(x, 2.0, name="y")
        z = lib.add(y, 1.0, name="z")
        with lib.control_dependencies([y.op]):
            lib.no_op(name="c")
        with lib.colocate_with(y.op):
            lib.identity(z, name="w")
    return g.as_graph_def()


def _describe(v):
    if v is None:
        return None
    if isinstance(v, list | tuple):
        return [_describe(e) for e in v]
    if hasattr(v, "value_index"):
        return ("Tensor", v.name)
    if hasattr(v, "node_def"):
        return ("Operation", v.name, v.type)
    return repr(v)


def _nodes(g):
    # Control inputs as a set: TF's export of an imported graph may reorder them.
    return sorted(
        (
            n.name,
            n.op,
            tuple(i for i in n.input if not i.startswith("^"))
            + tuple(sorted(i for i in n.input if i.startswith("^"))),
            tuple(n.attr["_class"].list.s) if "_class" in n.attr else (),
        )
        for n in g.as_graph_def().node
    )


def _outcome(lib, scenario):
    """What `scenario(lib, graph_def)` returns (or raises), and the graph's nodes after."""
    g = lib.Graph()
    with g.as_default():
        graph_def = _source(lib)
        try:
            out = _describe(scenario(lib, graph_def))
        except (TypeError, ValueError) as e:
            out = (type(e).__name__, str(e))
        return out, _nodes(g)


def _feed(lib, name="feed"):
    return lib.constant([3.0], name=name)


SCENARIOS = {
    "default_name_twice": lambda lib, gd: (
        lib.import_graph_def(gd, return_elements=["z:0"]),
        lib.import_graph_def(gd, return_elements=["z:0"]),
    ),
    "empty_name": lambda lib, gd: lib.import_graph_def(gd, name="", return_elements=["z:0", "c"]),
    "empty_name_clashes_are_uniquified": lambda lib, gd: (
        lib.placeholder(lib.float32, name="x"),
        lib.import_graph_def(gd, name="", return_elements=["x", "y:0", "z:0", "w"]),
    )[1],
    "empty_name_resets_the_scope": lambda lib, gd: _in_scope(
        lib, lambda: lib.import_graph_def(gd, name="", return_elements=["z:0"])
    ),
    "named_prefix_taken": lambda lib, gd: (
        lib.constant(1.0, name="pre"),
        lib.import_graph_def(gd, name="pre", return_elements=["z:0"]),
    )[1],
    "inside_a_name_scope": lambda lib, gd: _in_scope(
        lib,
        lambda: [
            lib.import_graph_def(gd, return_elements=["z:0"]),
            lib.import_graph_def(gd, name="n", return_elements=["z:0"]),
        ],
    ),
    "prefix_with_slash": lambda lib, gd: lib.import_graph_def(
        gd, name="a/b", return_elements=["z:0"]
    ),
    "map_tensor": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"x:0": _feed(lib)}, return_elements=["z:0"]
    ),
    "map_name_without_index": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"x": _feed(lib)}, return_elements=["z:0"]
    ),
    "map_bytes_key": lambda lib, gd: lib.import_graph_def(
        gd, input_map={b"x:0": _feed(lib)}, return_elements=[b"z:0"]
    ),
    "map_control_input": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"^y": _feed(lib)}, return_elements=["c"]
    ),
    "map_control_input_and_tensor": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"^y": _feed(lib), "y:0": _feed(lib, "f2")}, return_elements=["c", "z"]
    ),
    "map_missing_key": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"nope:0": _feed(lib), "x:0": _feed(lib, "f2")}
    ),
    "map_existing_but_unused": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"w:0": _feed(lib)}
    ),
    "map_output_out_of_range": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"x:3": _feed(lib)}
    ),
    "map_missing_control": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"^nope": _feed(lib)}
    ),
    "map_python_value": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"x:0": [3.0]}, return_elements=["z:0"]
    ),
    "map_python_value_without_name": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"x:0": [3.0]}, name=""
    ),
    "map_not_a_dict": lambda lib, gd: lib.import_graph_def(gd, input_map=[("x:0", 1.0)]),
    "map_key_not_a_string": lambda lib, gd: lib.import_graph_def(gd, input_map={1: _feed(lib)}),
    "map_bad_tensor_name": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"x:0:1": _feed(lib)}
    ),
    "return_ops_and_tensors": lambda lib, gd: lib.import_graph_def(
        gd, return_elements=["y", "z:0", "c", "x:0", "w"]
    ),
    "return_mapped_tensor": lambda lib, gd: lib.import_graph_def(
        gd, input_map={"y:0": _feed(lib)}, return_elements=["y:0", "z:0", "y"]
    ),
    "return_unknown_op": lambda lib, gd: lib.import_graph_def(gd, return_elements=["nope"]),
    "return_unknown_tensor": lambda lib, gd: lib.import_graph_def(gd, return_elements=["nope:0"]),
    "return_not_strings": lambda lib, gd: lib.import_graph_def(gd, return_elements=[1]),
    "return_bad_tensor_name": lambda lib, gd: lib.import_graph_def(gd, return_elements=["y:a"]),
    "not_a_graph_def": lambda lib, gd: lib.import_graph_def("nope"),
}


def _in_scope(lib, f):
    with lib.name_scope("outer"):
        return f()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_import_graph_def_matches_tensorflow(tf1, scenario):
    assert _outcome(ff, SCENARIOS[scenario]) == _outcome(tf1, SCENARIOS[scenario])


def test_return_output_out_of_range():
    # TF validates before it adds anything; ferroflow only once the nodes exist (their
    # output counts come from building them), so the nodes stay. Same error.
    with pytest.raises(
        ValueError, match=r"Invalid return output 5 of node 'y', which has 1 output\(s\)"
    ):
        ff.import_graph_def(_source(ff), return_elements=["y:5"])


def test_several_missing_keys_are_listed():
    # (TF's own list garbles all but the first key: compared with TF one key at a time.)
    with pytest.raises(ValueError) as e:
        ff.import_graph_def(
            _source(ff), input_map={"nope": _feed(ff), "^gone": _feed(ff), "x:7": _feed(ff)}
        )
    assert str(e.value) == (
        "Attempted to map inputs that were not found in graph_def: [^gone, nope:0, x:7]"
    )


def test_imported_control_remap_runs(tf1):
    """`^y` remapped to a queue-free op: running `c` no longer runs `y`'s inputs."""

    def run(lib):
        g = lib.Graph()
        with g.as_default():
            v = lib.Variable(0.0, name="counter")
            bump = lib.assign_add(v, 1.0)
            c, z = lib.import_graph_def(
                _source(lib),
                input_map={"^y": bump, "x:0": lib.constant([2.0])},
                return_elements=["c", "z:0"],
            )
            with lib.Session(graph=g) as sess:
                sess.run(v.initializer)
                sess.run(c)
                sess.run(c)
                return sess.run([v, z])

    got, want = run(ff), run(tf1)
    assert got[0] == want[0] == 2.0
    np.testing.assert_allclose(got[1], want[1])


def _mlp(lib, gradients=True):
    """A small model with variables, an initializer, a loss and a training op (by
    gradient descent, or a hand-written decay step)."""
    lib.set_random_seed(3)
    x = lib.placeholder(lib.float32, [None, 3], name="x")
    labels = lib.placeholder(lib.float32, [None, 2], name="labels")
    w = lib.Variable(lib.random_normal([3, 2], seed=1), name="w")
    b = lib.Variable(lib.zeros([2]), name="b")
    logits = lib.nn.bias_add(lib.matmul(x, w), b, name="logits")
    probs = lib.nn.softmax(logits, name="probs")
    loss = lib.reduce_mean(lib.square(probs - labels), name="loss")
    if gradients:
        lib.train.GradientDescentOptimizer(0.5).minimize(loss, name="train")
    else:
        lib.group(lib.assign(w, w * 0.9), lib.assign_add(b, [0.1, -0.2]), name="train")
    lib.global_variables_initializer()  # named "init"


FEEDS = {
    "x:0": np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], np.float32),
    "labels:0": np.array([[1.0, 0.0], [0.0, 1.0]], np.float32),
}


def _train(lib, graph_def, name=""):
    """Imports `graph_def` into a fresh graph and runs three training steps by name."""
    g = lib.Graph()
    with g.as_default():
        lib.import_graph_def(graph_def, name=name)
        prefix = f"{name}/" if name else ""
        feeds = {prefix + k: v for k, v in FEEDS.items()}
        with lib.Session(graph=g) as sess:
            sess.run(prefix + "init")
            losses = []
            for _ in range(3):
                sess.run(prefix + "train", feeds)
                losses.append(sess.run(prefix + "loss:0", feeds))
            return losses, sess.run(prefix + "probs:0", feeds), _nodes(g)


def _graph_def(lib, build):
    g = lib.Graph()
    with g.as_default():
        build(lib)
    return g.as_graph_def()


def test_graph_exported_by_tensorflow_imports_and_trains(tf1):
    tf_def = _graph_def(tf1, _mlp)
    want = _train(tf1, tf_def, name="m")
    # TensorFlow's own message object, and its bytes parsed into ours.
    for graph_def in (tf_def, ff.GraphDef.FromString(tf_def.SerializeToString())):
        got = _train(ff, graph_def, name="m")
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-5)
        assert [n[:3] for n in got[2]] == [n[:3] for n in want[2]]


@pytest.mark.parametrize("gradients", [False, True])
def test_round_trip_through_tensorflow(tf1, gradients):
    # With gradients: the reduction gradients of an unknown batch size build TF's
    # reduced shape (DynamicStitch), so TF runs them too.
    ff_def = _graph_def(ff, lambda lib: _mlp(lib, gradients=gradients))
    # ferroflow -> TensorFlow: TF imports and trains our GraphDef.
    tf_def = tf1.GraphDef.FromString(ff_def.SerializeToString())
    in_tf = _train(tf1, tf_def)
    # ... and back: TF's export of it imports into ferroflow unchanged.
    g = tf1.Graph()
    with g.as_default():
        tf1.import_graph_def(tf_def, name="")
    back = _train(ff, g.as_graph_def())
    direct = _train(ff, ff_def)
    np.testing.assert_allclose(back[0], in_tf[0], rtol=1e-5)
    np.testing.assert_allclose(direct[0], in_tf[0], rtol=1e-5)
    np.testing.assert_allclose(back[1], direct[1], rtol=1e-6)
    assert back[2] == direct[2] == in_tf[2]
