"""`tf.make_template`, built on ferroflow and TF-1.x side by side."""

import numpy as np
import pytest

import ferroflow as ff


def _names(items):
    return [i.name for i in items]


def _both(tf1, build):
    """`build(lib)` in a fresh graph of each library: [(graph, result, op names)]."""
    out = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            res = build(lib)
            out.append((g, res, [op.name for op in g.get_operations()]))
    return out


def _scale(tf, x, scalar_name):
    v = tf.get_variable(scalar_name, shape=[], initializer=tf.constant_initializer(2.0))
    w = tf.get_variable("w", shape=[2, 2], initializer=tf.ones_initializer())
    return tf.matmul(x * v, w)


@pytest.mark.parametrize("create_scope_now", [False, True])
def test_variables_are_created_once_and_shared(tf1, create_scope_now):
    def build(tf):
        tmpl = tf.make_template(
            "scale_by_y",
            lambda x, scalar_name: _scale(tf, x, scalar_name),
            create_scope_now_=create_scope_now,
            scalar_name="y",
        )
        before = (tmpl.variables, tmpl.variable_scope_name)
        z = tmpl(tf.ones([2, 2]))
        w = tmpl(tf.fill([2, 2], 3.0))
        other = tf.make_template("scale_by_y", lambda x: _scale(tf, x, "y"))
        u = other(tf.ones([2, 2]))
        return {
            "before": before,
            "out": [z, w, u],
            "vars": _names(tmpl.variables),
            "trainable": _names(tmpl.trainable_variables),
            "global": _names(tmpl.global_variables),
            "non_trainable": _names(tmpl.non_trainable_variables),
            "weights": _names(tmpl.weights),
            "other": _names(other.trainable_variables),
            "scope": (tmpl.variable_scope.name, tmpl.variable_scope_name, tmpl.name),
            "all": _names(tf.global_variables()),
        }

    (g_tf, tf_out, ops_tf), (g_ff, ff_out, ops_ff) = _both(tf1, build)
    assert ops_ff == ops_tf
    assert ff_out["before"][0] == [] and tf_out["before"][0] == []
    assert ff_out["before"][1] == tf_out["before"][1]
    for key in ("vars", "trainable", "global", "non_trainable", "weights", "other", "scope", "all"):
        assert ff_out[key] == tf_out[key], key
    assert ff_out["vars"] == ["scale_by_y/y:0", "scale_by_y/w:0"]
    assert _names(ff_out["out"]) == _names(tf_out["out"])
    vals = []
    for lib, g, out in ((tf1, g_tf, tf_out), (ff, g_ff, ff_out)):
        with g.as_default(), lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            vals.append(sess.run(out["out"]))
    for a, b in zip(*vals, strict=True):
        np.testing.assert_allclose(b, a)


def test_unique_name_and_custom_getter_and_enclosing_scope(tf1):
    def build(tf):
        seen = []

        def getter(getter, name, *args, **kwargs):
            seen.append(name)
            return getter(name, *args, **kwargs)

        with tf.variable_scope("outer") as vs:
            tmpl = tf.make_template(
                "t", lambda: tf.get_variable("v", [3]), unique_name_="fixed", custom_getter_=getter
            )
            a = tmpl()
            b = tmpl()
        with tf.variable_scope(vs, reuse=True):
            tmpl2 = tf.make_template("t", lambda: tf.get_variable("v", [3]), unique_name_="fixed")
            c = tmpl2()
        return [a.name, b.name, c.name, a is b, a is c, seen, tmpl.variable_scope_name]

    (_, tf_out, ops_tf), (_, ff_out, ops_ff) = _both(tf1, build)
    assert ff_out == tf_out
    assert ops_ff == ops_tf


def test_a_trainable_variable_made_on_a_later_call_is_an_error(tf1):
    def build(tf):
        tmpl = tf.make_template("t", lambda: tf.Variable(1.0, name="v"))
        tmpl()
        with pytest.raises(ValueError) as info:
            tmpl()
        return info.value.args[0].split("\n")[0]

    (_, tf_msg, _), (_, ff_msg, _) = _both(tf1, build)
    assert ff_msg.split(":")[0] == tf_msg.split(":")[0]
    assert ff_msg.startswith("Trainable variable created when calling a template after the first")


def test_a_non_trainable_variable_on_a_later_call_is_allowed(tf1):
    def build(tf):
        tmpl = tf.make_template("t", lambda: tf.Variable(1.0, name="v", trainable=False))
        tmpl()
        tmpl()
        return _names(tf.global_variables()), _names(tmpl.non_trainable_variables)

    (_, tf_out, _), (_, ff_out, _) = _both(tf1, build)
    assert ff_out == tf_out


def test_a_new_get_variable_on_a_later_call_fails_as_tf(tf1):
    def build(tf):
        calls = []

        def fn():
            calls.append(1)
            return tf.get_variable(f"v{len(calls)}", [1])

        tmpl = tf.make_template("t", fn)
        tmpl()
        with pytest.raises(ValueError) as info:
            tmpl()
        return info.value.args[0].split("\n\noriginally defined at:")[0]

    (_, tf_msg, _), (_, ff_msg, _) = _both(tf1, build)
    assert ff_msg == tf_msg


def test_name_none_is_an_error(tf1):
    for lib in (tf1, ff):
        with pytest.raises(ValueError, match="name cannot be None"):
            lib.make_template(None, lambda: None)
