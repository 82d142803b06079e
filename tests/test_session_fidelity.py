"""Session.run's feed and fetch conversions, callables and graph checks, against TF's.

Each scenario runs on ferroflow and, where TensorFlow is installed, on
`tensorflow.compat.v1`, and both must agree (values, types, error classes and
messages).
"""

import collections
import threading

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.framework import session as ff_session


def _tf_session_module(tf1):
    from tensorflow.python.client import session

    return session


def _errors_of(lib):
    return lib.errors


# -- feeds --------------------------------------------------------------------------
def _nested_tuple_keys(lib):
    with lib.Graph().as_default(), lib.Session() as s:
        z = ((lib.zeros([2]),), lib.zeros([2]), (lib.zeros([2]),))
        result = [z[0][0] * 2, z[1] * 2, z[2][0] * 2]
        values = ((np.array([1, 1]),), np.array([2, 2]), (np.array([3, 3]),))
        out = s.run(result, feed_dict={z: values})
        try:
            s.run(result, feed_dict={z: (np.array([1, 1]),)})
        except ValueError as e:
            bad = ("ValueError", "Key had 3 elements, but value had 1 elements" in str(e))
        return [o.tolist() for o in out], bad


def test_tuple_feed_keys_flatten_with_their_values(tf1):
    assert _nested_tuple_keys(ff) == _nested_tuple_keys(tf1)
    assert _nested_tuple_keys(ff)[0] == [[2.0, 2.0], [4.0, 4.0], [6.0, 6.0]]


def _indexed_slices_feeds(lib, value_cls, with_dense_shape):
    values = np.array([1.0, 2.0], np.float32)
    indices = np.array([[3, 2, 0], [4, 5, 1]], np.int64)
    dense_shape = np.array([7, 9, 2], np.int64)
    with lib.Graph().as_default(), lib.Session() as s:
        ind = lib.IndexedSlices(
            lib.placeholder(lib.float32, shape=(2,)),
            lib.placeholder(lib.int64, shape=(2, 3)),
            lib.placeholder(lib.int64, shape=(3,)) if with_dense_shape else None,
        )
        parts = [lib.identity(ind.values), lib.identity(ind.indices)]
        if with_dense_shape:
            parts.append(lib.identity(ind.dense_shape))
        fed = (values, indices, dense_shape) if with_dense_shape else (values, indices)
        out_tuple = s.run(parts, {ind: fed})
        value = value_cls(values, indices, dense_shape if with_dense_shape else None)
        ind2 = lib.IndexedSlices(*parts)
        fetched = s.run(ind2, {ind: value})
        return (
            [o.tolist() for o in out_tuple],
            type(fetched).__name__,
            fetched.values.tolist(),
            fetched.indices.tolist(),
            None if fetched.dense_shape is None else fetched.dense_shape.tolist(),
        )


@pytest.mark.parametrize("with_dense_shape", [True, False])
def test_indexed_slices_feeds_and_fetches(tf1, with_dense_shape):
    from tensorflow.python.framework import indexed_slices as tf_indexed_slices

    from ferroflow.framework import indexed_slices

    ours = _indexed_slices_feeds(ff, indexed_slices.IndexedSlicesValue, with_dense_shape)
    theirs = _indexed_slices_feeds(tf1, tf_indexed_slices.IndexedSlicesValue, with_dense_shape)
    assert ours == theirs
    assert ours[1] == "IndexedSlicesValue"


def _precision_errors(lib):
    out = []
    with lib.Graph().as_default(), lib.Session() as sess:
        i32 = lib.constant(1, dtype=lib.int32)
        f32 = lib.constant(1.0)
        s = lib.placeholder(lib.string)
        checks = [
            (i32, np.iinfo(np.int64).max),
            (i32, 7),
            (i32, True),
            (f32, 3),
            (s, 1),
            (s, True),
        ]
        for t, v in checks:
            try:
                out.append(("ok", np.asarray(sess.run(t, {t: v})).tolist()))
            except TypeError as e:
                out.append(("TypeError", str(e)))
    return out


def test_python_int_feeds_are_checked_as_tf_checks_them(tf1):
    ours = _precision_errors(ff)
    assert ours == _precision_errors(tf1)
    assert ours[0][0] == "TypeError" and ours[4][0] == "TypeError"


def _scalar_fetch_types(lib):
    out = []
    with lib.Graph().as_default(), lib.Session() as s:
        for scalar in (np.int32, np.int64, np.float16, np.float32, np.float64):
            xy = lib.add(lib.constant(scalar(7), shape=[]), lib.constant(scalar(8)))
            nested = s.run([[[xy]], xy, [xy]])
            out.append(
                (
                    type(s.run(xy)).__name__,
                    type(s.run([xy])[0]).__name__,
                    type(s.run({"xy": xy})["xy"]).__name__,
                    type(nested[0][0][0]).__name__,
                    float(nested[1]),
                )
            )
    return out


def test_scalar_fetches_are_numpy_scalars(tf1):
    assert _scalar_fetch_types(ff) == _scalar_fetch_types(tf1)


def _mapping_fetches(lib):
    with lib.Graph().as_default(), lib.Session() as s:
        a = lib.constant(1.0)
        dd = collections.defaultdict(list, {"a": a})
        od = collections.OrderedDict([("z", a), ("y", a)])
        Pair = collections.namedtuple("Pair", ["x", "y"])
        out_dd, out_od, out_pair = s.run([dd, od, Pair(a, [a])])
        return (
            type(out_dd).__name__,
            out_dd.default_factory is list,
            type(out_od).__name__,
            list(out_od),
            type(out_pair).__name__,
            float(out_pair.x),
            [float(v) for v in out_pair.y],
        )


def test_mapping_and_namedtuple_fetches_keep_their_types(tf1):
    assert _mapping_fetches(ff) == _mapping_fetches(tf1)


# -- registered conversions ---------------------------------------------------------
def _conversions(lib, session_module):
    class Squared:
        def __init__(self, tensor):
            self.sq = lib.square(tensor)

    session_module.register_session_run_conversion_functions(
        Squared,
        lambda st: ([st.sq], lambda val: val[0]),
        lambda feed, feed_val: [(feed.sq, feed_val)],
        lambda feed: [feed.sq],
    )
    try:
        session_module.register_session_run_conversion_functions(
            Squared, lambda st: ([st.sq], lambda val: val[0])
        )
        again = "registered twice"
    except ValueError:
        again = "ValueError"
    with lib.Graph().as_default(), lib.Session() as sess:
        squared = Squared(np.array([3.0, 3.5]))
        fetched = sess.run(squared)
        fed = sess.run(squared, feed_dict={squared: np.array([1.0, 2.0])})
        in_list = sess.run([squared, {"k": squared}])
    return (
        again,
        fetched.tolist(),
        fed.tolist(),
        [in_list[0].tolist(), in_list[1]["k"].tolist()],
    )


def test_registered_conversion_functions_fetch_and_feed(tf1):
    ours = _conversions(ff, ff_session)
    assert ours == _conversions(tf1, _tf_session_module(tf1))
    assert ours[0] == "ValueError" and ours[2] == [1.0, 2.0]


# -- _make_callable_from_options ----------------------------------------------------
def _callable_from_options(lib, protos):
    out = []
    with lib.Graph().as_default(), lib.Session() as sess:
        ph = lib.placeholder(lib.float32)
        a = lib.add(ph, 1.0)
        s = lib.constant("x")
        lib.no_op(name="noop")
        opts = protos.CallableOptions()
        opts.feed.append(ph.name)
        opts.fetch.extend([a.name, s.name, a.name])
        opts.target.append("noop")
        fn = sess._make_callable_from_options(opts)
        for _ in range(2):
            r = fn(np.array(1.0, dtype=np.float32))
            out.append([np.asarray(v).tolist() for v in r])
        out.append(fn(np.array([1.0, 2.0], np.float32))[0].tolist())
        for args in [(), (np.array(1, np.int32),), (1.0,), (np.float32(1), np.float32(1))]:
            try:
                fn(*args)
            except lib.errors.InvalidArgumentError as e:
                out.append(e.message.splitlines()[0])
        for name in ["nonexist:0"]:
            bad = protos.CallableOptions()
            bad.fetch.append(name)
            try:
                sess._make_callable_from_options(bad)
            except lib.errors.InvalidArgumentError as e:
                out.append(e.message.splitlines()[0])
        twice = protos.CallableOptions()
        twice.feed.extend([ph.name, ph.name])
        twice.fetch.append(a.name)
        try:
            sess._make_callable_from_options(twice)
        except lib.errors.InvalidArgumentError as e:
            out.append(e.message.splitlines()[0])
        traced = protos.CallableOptions()
        traced.feed.append(ph.name)
        traced.fetch.append(a.name)
        traced.run_options.trace_level = protos.RunOptions.FULL_TRACE
        metadata = protos.RunMetadata()
        out.append(
            sess._make_callable_from_options(traced)(
                np.array(2.0, np.float32), run_metadata=metadata
            )[0].tolist()
        )
        out.append(len(metadata.step_stats.dev_stats) > 0)
    try:
        fn(np.array(1.0, dtype=np.float32))
    except lib.errors.CancelledError as e:
        out.append(("CancelledError", e.message))
    return out


def test_make_callable_from_options(tf1):
    from tensorflow.core.protobuf import config_pb2

    ours = _callable_from_options(ff, ff.protos)
    assert ours == _callable_from_options(tf1, config_pb2)
    assert ours[0] == [2.0, b"x", 2.0]


# -- graph_def, placement, original ops ---------------------------------------------
def _inferred_shapes(lib, infer):
    config = lib.ConfigProto(graph_options=lib.GraphOptions(infer_shapes=infer))
    with lib.Graph().as_default():
        lib.constant([[1, 2]], name="c")
        sess = lib.Session(config=config)
        node = sess.graph_def.node[0]
        sess.close()
        return "_output_shapes" in node.attr, str(node.attr["_output_shapes"])


@pytest.mark.parametrize("infer", [True, False])
def test_session_graph_def_infers_shapes_when_configured(tf1, infer):
    assert _inferred_shapes(ff, infer) == _inferred_shapes(tf1, infer)


def _placement_of_unrun_ops(lib, config, interactive=False):
    with lib.Graph().as_default() as g:
        sess = (
            lib.InteractiveSession(config=config, graph=g)
            if interactive
            else lib.Session(config=config)
        )
        with lib.device("/device:GPU:7"):
            lib.constant(1.0, shape=[1, 2])
        b = lib.constant(1.0, shape=[1, 2])
        try:
            result = sess.run(b).tolist()
        except lib.errors.InvalidArgumentError:
            result = "InvalidArgumentError"
        sess.close()
        return result


def test_the_whole_graph_is_placed_unless_pruned_or_soft(tf1):
    for lib in (ff, tf1):
        assert _placement_of_unrun_ops(lib, None) == "InvalidArgumentError"
        soft = lib.ConfigProto(allow_soft_placement=True)
        assert _placement_of_unrun_ops(lib, soft) == [[1.0, 1.0]]
        pruned = lib.ConfigProto(graph_options=lib.GraphOptions(place_pruned_graph=True))
        assert _placement_of_unrun_ops(lib, pruned) == [[1.0, 1.0]]
        assert _placement_of_unrun_ops(lib, None, interactive=True) == [[1.0, 1.0]]


def _ops_added_after_a_run(lib):
    out = []
    with lib.Graph().as_default(), lib.Session() as sess:
        with lib.device("/cpu:0"):
            a = lib.constant(1.0)
        out.append(float(sess.run(a)))
        with lib.device("/device:GPU:3"):
            lib.constant(2.0)
        try:
            sess.run(a)
        except lib.errors.InvalidArgumentError as e:
            out.append(("InvalidArgumentError", "GPU:3" in e.message))
    return out


def test_ops_added_after_a_run_are_placed_at_the_next_run(tf1):
    ours = _ops_added_after_a_run(ff)
    assert ours == _ops_added_after_a_run(tf1)
    assert ours == [1.0, ("InvalidArgumentError", True)]


def _original_op_chain(lib):
    with lib.Graph().as_default(), lib.Session() as sess:
        a = lib.constant(0.0, shape=[2, 3])
        with sess.graph._original_op(a.op):
            b = lib.identity(a, name="id")
        with sess.graph._original_op(b.op):
            c = lib.placeholder(lib.float32)
        d = lib.identity(c)
        try:
            sess.run(c)
        except lib.errors.InvalidArgumentError as e:
            return (
                e.op.name,
                e.op._original_op.name,
                e.op._original_op._original_op.name,
                a.op._original_op,
                d.op._original_op,
            )
    return None


def test_graph_original_op_scope(tf1):
    ours = _original_op_chain(ff)
    assert ours == _original_op_chain(tf1)
    assert ours == ("Placeholder", "id", "Const", None, None)


def _attr_scope_with_protos(lib, attr_value_cls):
    with lib.Graph().as_default() as g:
        with g._attr_scope({"_a": attr_value_cls(b=False), "_s": attr_value_cls(s=b"x")}):
            c = lib.constant(1.0)
        d = lib.constant(2.0)
        return c.op.get_attr("_a"), c.op.get_attr("_s"), "_a" in d.op.node_def.attr


def test_attr_scope_takes_attr_value_protos(tf1):
    from tensorflow.core.framework import attr_value_pb2

    ours = _attr_scope_with_protos(ff, ff.protos.AttrValue)
    assert ours == _attr_scope_with_protos(tf1, attr_value_pb2.AttrValue)
    assert ours == (False, b"x", False)


# -- graph building in several threads ----------------------------------------------
def test_ops_stay_indexed_by_id_while_threads_build_gradients():
    graph = ff.Graph()
    failures = []

    def build():
        try:
            with graph.as_default():
                for _ in range(4):
                    x = ff.placeholder(ff.float32)
                    y = ff.placeholder(ff.float32)
                    z = ff.while_loop(lambda x, y: x < 10, lambda x, y: (x + 1, x * y), [x, y])
                    ff.gradients(z, [x, y])
        except Exception as e:  # reported below
            failures.append(e)

    threads = [threading.Thread(target=build) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert all(op._id == i for i, op in enumerate(graph.get_operations()))
