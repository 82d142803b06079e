"""`tf.variable_scope` and `tf.get_variable`, built on ferroflow and TF-1.x side by side."""

import numpy as np
import pytest

import ferroflow as ff

_KEYS = ("variables", "trainable_variables", "local_variables", "regularization_losses")


def _names(items):
    return [getattr(i, "name", repr(i)) for i in items]


def _built(lib, build):
    """Builds `build(lib)` in a fresh graph: (graph, result, op names, collections)."""
    g = lib.Graph()
    with g.as_default():
        out = build(lib)
        colls = {k: _names(g.get_collection(k)) for k in _KEYS}
        return g, out, [op.name for op in g.get_operations()], colls


def _compare(tf1, build, run=None):
    """Same op names and collections; `run(lib, out)` fetched after initialization agrees."""
    g_tf, out_tf, ops_tf, colls_tf = _built(tf1, build)
    g_ff, out_ff, ops_ff, colls_ff = _built(ff, build)
    assert ops_ff == ops_tf
    assert colls_ff == colls_tf
    if run is None:
        return out_tf, out_ff
    results = []
    for lib, g, out in ((tf1, g_tf, out_tf), (ff, g_ff, out_ff)):
        with g.as_default(), lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            sess.run(lib.local_variables_initializer())
            results.append(sess.run(run(lib, out)))
    for a, b in zip(results[0], results[1], strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
        assert np.asarray(b).dtype == np.asarray(a).dtype
    return out_tf, out_ff


def _scope_names(lib, scope):
    return (scope.name, scope.original_name_scope, bool(scope.reuse))


def test_nested_scopes_defaults_and_reuse(tf1):
    def build(tf):
        tf.set_random_seed(7)
        with tf.variable_scope("layer1") as s1:
            w = tf.get_variable("w", [3, 4])
            b = tf.get_variable("b", [4], initializer=tf.zeros_initializer())
            i = tf.get_variable("i", [2], dtype=tf.int32)
            flag = tf.get_variable("flag", [2], dtype=tf.bool)
            with tf.variable_scope("inner"):
                c = tf.get_variable("c", initializer=[1.0, 2.0])
                k = tf.get_variable("k", initializer=tf.constant([[1, 2]], dtype=tf.int64))
        with tf.variable_scope("layer1", reuse=True) as s2:
            w2 = tf.get_variable("w")
            with tf.variable_scope("inner"):
                c2 = tf.get_variable("c")
        with tf.variable_scope(s1, reuse=True) as s3:
            b2 = tf.get_variable("b", [4])
        y = tf.matmul(tf.ones([1, 3]), w) + b
        return {
            "vars": [w, b, i, flag, c, k],
            "same": [w2 is w, c2 is c, b2 is b],
            "scopes": [_scope_names(tf, s) for s in (s1, s2, s3)],
            "shapes": [(v.shape.as_list(), v.dtype.name) for v in (w, b, i, flag, c, k)],
            "y": y,
        }

    out_tf, out_ff = _compare(tf1, build, lambda tf, out: out["vars"] + [out["y"]])
    for key in ("same", "scopes", "shapes"):
        assert out_ff[key] == out_tf[key]
    assert out_ff["same"] == [True, True, True]
    assert [v.name for v in out_ff["vars"]] == [v.name for v in out_tf["vars"]]


def test_default_name_uniquified_and_reentered_name_scopes(tf1):
    def build(tf):
        names = []
        for _ in range(3):
            with tf.variable_scope(None, default_name="dense") as s:
                names.append((s.name, s.original_name_scope))
                tf.get_variable("w", [2])
                tf.add(1.0, 2.0, name="op")
        with tf.variable_scope("outer") as outer:
            with tf.variable_scope(None, default_name="dense") as s:
                names.append((s.name, s.original_name_scope))
        for _ in range(2):
            with tf.variable_scope(outer) as again:
                names.append((again.name, again.original_name_scope))
                tf.add(1.0, 2.0, name="op")
                with tf.variable_scope(None, default_name="dense") as s:
                    names.append((s.name, s.original_name_scope))
        with tf.name_scope("ns"):
            with tf.variable_scope("vs") as s:
                names.append((s.name, s.original_name_scope))
                tf.get_variable("v", [1])
                tf.add(1.0, 2.0, name="op")
            with tf.variable_scope("aux", auxiliary_name_scope=False) as s:
                names.append((s.name, s.original_name_scope))
                tf.add(1.0, 2.0, name="op")
        with tf.variable_scope("vs"):
            names.append(tf.get_variable_scope().name)
        return names

    out_tf, out_ff = _compare(tf1, build)
    assert out_ff == out_tf


def test_reuse_inheritance_auto_reuse_and_reuse_variables(tf1):
    def build(tf):
        out = []
        with tf.variable_scope("a", reuse=tf.AUTO_REUSE):
            v1 = tf.get_variable("v", [2])
            v2 = tf.get_variable("v", [2])
            out.append(v1 is v2)
        with tf.variable_scope("b") as b:
            v = tf.get_variable("v", [2])
            b.reuse_variables()
            out.append(tf.get_variable("v", [2]) is v)
            with tf.variable_scope("inner", reuse=False) as inner:
                out.append(inner.reuse)  # reuse is inherited, cannot be switched off
        out.append(tf.get_variable_scope().reuse)
        with tf.variable_scope("c", reuse=True):
            with tf.variable_scope("d") as d:
                out.append(d.reuse)
        out.append([v.name for v in b.global_variables()])
        out.append([v.name for v in b.trainable_variables()])
        return out

    out_tf, out_ff = _compare(tf1, build)
    assert out_ff == out_tf


def test_local_variable_collections_trainable_and_constraint(tf1):
    def build(tf):
        loc = tf.get_local_variable("loc", [2], initializer=tf.ones_initializer())
        nt = tf.get_variable("nt", [2], trainable=False)
        custom = tf.get_variable("custom", [1], collections=["mine"])
        cons = tf.get_variable("cons", [1], constraint=lambda x: x)
        with tf.variable_scope("s", dtype=tf.float64, initializer=tf.constant_initializer(3.0)):
            d = tf.get_variable("d", [2])
        return [
            loc,
            nt,
            custom,
            d,
            _names(tf.get_collection("mine")),
            cons.constraint is not None,
            d.dtype.name,
        ]

    out_tf, out_ff = _compare(tf1, build, lambda tf, out: [out[0], out[3]])
    assert out_ff[4:] == out_tf[4:]


def test_regularizer_losses(tf1):
    def build(tf):
        reg = lambda v: tf.reduce_sum(tf.square(v))  # noqa: E731
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer(), regularizer=reg)
        with tf.variable_scope("s", regularizer=lambda v: 0.5 * tf.reduce_sum(v)):
            u = tf.get_variable("u", [3], initializer=tf.ones_initializer())
            n = tf.get_variable("n", [3], regularizer=tf.no_regularizer)
        return [w, u, n]

    _compare(tf1, build)
    with ff.Session() as sess:
        w = ff.get_variable("w", [2], initializer=ff.ones_initializer(), regularizer=ff.nn.l2_loss)
        losses = ff.get_collection(ff.GraphKeys.REGULARIZATION_LOSSES)
        sess.run(w.initializer)
        assert sess.run(losses) == [1.0]
        assert losses[0].op.name == "w/Regularizer/L2Loss"


def test_custom_getters_compose(tf1):
    def build(tf):
        calls = []

        def outer(getter, name, *args, **kwargs):
            calls.append(("outer", name, sorted(kwargs)))
            return getter(name + "_o", *args, **kwargs)

        def inner(getter, name, *args, **kwargs):
            calls.append(("inner", name))
            return getter(name + "_i", *args, **kwargs)

        with tf.variable_scope("s", custom_getter=outer):
            with tf.variable_scope("t", custom_getter=inner):
                v = tf.get_variable("v", [1])
            w = tf.get_variable("w", [1], custom_getter=inner)
        return [v.name, w.name, calls]

    out_tf, out_ff = _compare(tf1, build)
    assert out_ff == out_tf


def _error(lib, build):
    g = lib.Graph()
    with g.as_default(), pytest.raises(Exception) as info:
        build(lib)
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize(
    "case",
    [
        "exists",
        "missing",
        "shape",
        "dtype",
        "no_shape",
        "const_shape",
        "init_dtype",
        "reuse_value",
        "no_name",
        "reuse_default",
        "aux",
        "bad_scope",
        "getter",
    ],
)
def test_errors_match_tf(tf1, case):
    def build(tf):
        if case == "exists":
            tf.get_variable("x", [1])
            tf.get_variable("x", [1])
        elif case == "missing":
            with tf.variable_scope("s", reuse=True):
                tf.get_variable("x", [1])
        elif case == "shape":
            tf.get_variable("x", [1])
            with tf.variable_scope(tf.get_variable_scope(), reuse=True):
                tf.get_variable("x", [2])
        elif case == "dtype":
            tf.get_variable("x", [1])
            with tf.variable_scope(tf.get_variable_scope(), reuse=True):
                tf.get_variable("x", [1], dtype=tf.int32)
        elif case == "no_shape":
            tf.get_variable("x")
        elif case == "const_shape":
            tf.get_variable("x", [2], initializer=tf.constant([1.0, 2.0]))
        elif case == "init_dtype":
            tf.get_variable("x", initializer=tf.constant([1, 2]), dtype=tf.float32)
        elif case == "reuse_value":
            tf.variable_scope("s", reuse="yes")
        elif case == "no_name":
            tf.variable_scope(None)
        elif case == "reuse_default":
            with tf.variable_scope(None, default_name="d", reuse=True):
                pass
        elif case == "aux":
            tf.variable_scope("s", auxiliary_name_scope=1)
        elif case == "bad_scope":
            with tf.variable_scope(3):
                pass
        elif case == "getter":
            tf.get_variable("x", [1], custom_getter=3)

    tf_cls, tf_msg = _error(tf1, build)
    ff_cls, ff_msg = _error(ff, build)
    assert ff_cls == tf_cls
    if case == "exists":  # TF appends the defining traceback
        tf_msg = tf_msg.split(" Originally defined at:")[0]
    assert ff_msg == tf_msg


def test_get_variable_scope_outside_any_scope():
    scope = ff.get_variable_scope()
    assert scope.name == "" and scope.reuse is False
    assert ff.get_variable_scope() is scope
    g = ff.Graph()
    with g.as_default():
        assert ff.get_variable_scope() is not scope


def _case_reentered_scope_object(t):
    vs = t.variable_scope("a")
    with vs as s:
        t.get_variable("v", [1])
        t.add(1.0, 2.0, name="op")
    with t.variable_scope(s, reuse=True):
        t.add(1.0, 2.0, name="op")
    return s.name


def _case_initializer_forms(t):
    v = t.get_variable("c", initializer=lambda: t.constant([1.0, 2.0]))
    w = t.get_variable("d", initializer=t.constant_initializer(2.0), shape=t.TensorShape([2]))
    x = t.get_variable(
        "e", initializer=t.placeholder_with_default([1.0, 2.0], [None]), validate_shape=False
    )
    y = t.get_variable("f", initializer=np.array([1, 2], np.int64), dtype=t.int64)
    return [v.shape.as_list(), w.shape.as_list(), x.shape.as_list(), y.dtype.name]


def _case_control_dependencies_not_inherited(t):
    with t.control_dependencies([t.no_op(name="dep")]):
        t.get_variable("v", [2])
    return [len(op.control_inputs) for op in t.get_default_graph().get_operations()]


def _case_kwargs_getter_and_regularizer(t):
    def getter(getter, **kwargs):
        return getter(**kwargs)

    with t.variable_scope("s", custom_getter=getter, regularizer=t.reduce_sum):
        return t.get_variable("v", [2]).name


def _case_partial_shape(t):
    return t.get_variable("p", shape=[None, 2]).name


def _case_slash_in_scope_name(t):
    with t.variable_scope("x"), t.variable_scope("y"):
        t.get_variable("v", [1])
    with t.variable_scope("x/y", reuse=True):
        return t.get_variable("v").name


def _case_scope_object_in_other_scope(t):
    with t.variable_scope("outer") as o:
        pass
    with t.variable_scope("other"), t.variable_scope(o) as o2:
        t.add(1.0, 2.0, name="op")
        with t.variable_scope("in") as i:
            t.get_variable("v", [1])
            return [o2.name, o2.original_name_scope, i.name, i.original_name_scope]


def _case_values_pick_graph(t):
    a = t.constant(1.0)
    with t.variable_scope(None, "def", [a]) as s:
        return s.name


@pytest.mark.parametrize(
    "case",
    [
        _case_reentered_scope_object,
        _case_initializer_forms,
        _case_control_dependencies_not_inherited,
        _case_kwargs_getter_and_regularizer,
        _case_partial_shape,
        _case_slash_in_scope_name,
        _case_scope_object_in_other_scope,
        _case_values_pick_graph,
    ],
    ids=lambda c: c.__name__.removeprefix("_case_"),
)
def test_edge_cases_match_tf(tf1, case):
    results = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            try:
                out = case(lib)
            except ValueError as e:
                out = ("ValueError", str(e))
            results.append((out, [op.name for op in g.get_operations()]))
    assert results[1] == results[0]
