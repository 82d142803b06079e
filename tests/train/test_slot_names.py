"""Slot, non-slot and moving-average variable names in nested scopes, as TF's.

TF makes a slot with `get_variable("")` inside `variable_scope(None,
"<primary>/<slot>")`, so inside `variable_scope("s")` the slot of `s/v` is
`s/s/v/Momentum`; checkpoints of such models carry those names, so ferroflow must
make the same ones (issue 42: these were `s/v/Momentum` here).
"""

from __future__ import annotations

import numpy as np
import pytest
from tests.conftest import build_both


def _names(graph, lib):
    with graph.as_default():
        return [v.op.name for v in lib.global_variables()]


def _slice_names(graph, lib):
    with graph.as_default():
        return [
            (v.op.name, v._save_slice_info.full_name)
            for v in lib.global_variables()
            if getattr(v, "_save_slice_info", None) is not None
        ]


def _optimizers_in_scopes(tf):
    with tf.variable_scope("scope"):
        v = tf.Variable([1.0, 2.0], name="var")
        w = tf.get_variable("w", [2])
        loss = tf.reduce_sum(v * w)
        with tf.name_scope("inner"):
            tf.train.AdamOptimizer(0.1).minimize(loss)
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    with tf.variable_scope("vs"):
        tf.train.AdagradOptimizer(0.1).minimize(loss)
        tf.train.RMSPropOptimizer(0.1, centered=True).minimize(loss)
        tf.train.FtrlOptimizer(0.1).minimize(loss)
        tf.train.AdadeltaOptimizer(0.1).minimize(loss)
        tf.train.ProximalAdagradOptimizer(0.1).minimize(loss)
        tf.train.AdagradDAOptimizer(0.1, tf.train.get_or_create_global_step()).minimize(loss)
    with tf.variable_scope("part", partitioner=tf.fixed_size_partitioner(2)):
        pv = tf.get_variable("pv", [4, 2])
        tf.train.AdamOptimizer().minimize(tf.reduce_sum(pv))
    return None


def test_slot_names_in_nested_scopes_match_tf(tf1):
    (g_tf, _), (g_ff, _) = build_both(tf1, _optimizers_in_scopes)
    import ferroflow as ff

    tf_names = _names(g_tf, tf1)
    assert "scope/scope/var/Adam" in tf_names and "scope/inner/beta1_power" in tf_names
    assert _names(g_ff, ff) == tf_names
    # A slot of a partitioned variable is saved as a slice of TF's (odd) full name.
    assert _slice_names(g_ff, ff) == _slice_names(g_tf, tf1)


def _moving_averages_in_scopes(tf):
    from importlib import import_module

    mavg = import_module(
        "tensorflow.python.training.moving_averages"
        if tf.__name__.startswith("tensorflow")
        else "ferroflow.train.moving_averages"
    ).assign_moving_average
    with tf.variable_scope("scope2"):
        with tf.variable_scope("scope1"):
            v0 = tf.Variable(10.0, name="v0")
            ema = tf.train.ExponentialMovingAverage(0.25, name="foo")
            update = ema.apply([v0])
    with tf.name_scope("ns"):
        t = tf.constant([1.0, 2.0]) * 3
        ema2 = tf.train.ExponentialMovingAverage(0.5, zero_debias=True)
        update2 = ema2.apply([t])
    with tf.variable_scope("vs"):
        mv = tf.get_variable("mv", [], initializer=tf.zeros_initializer())
        update3 = mavg(mv, 1.0, 0.9)
        update4 = mavg(mv, 2.0, 0.5)
    return {
        "names": [ema.average_name(v0), ema.average(v0).op.name, ema2.average(t).op.name],
        # update3 and update4 both assign `mv`: run in separate steps (no race).
        "updates": [[update, update2, update3], [update4]],
        "values": [ema.average(v0), ema2.average(t), mv],
    }


def test_moving_average_names_in_nested_scopes_match_tf(tf1):
    import ferroflow as ff

    (g_tf, tf_out), (g_ff, ff_out) = build_both(tf1, _moving_averages_in_scopes)
    assert tf_out["names"][0] == "scope2/scope1/scope2/scope1/v0/foo"
    assert ff_out["names"] == tf_out["names"]
    assert _names(g_ff, ff) == _names(g_tf, tf1)
    values = []
    for g, lib, out in ((g_tf, tf1, tf_out), (g_ff, ff, ff_out)):
        with g.as_default(), lib.Session(graph=g) as sess:
            sess.run(lib.global_variables_initializer())
            for _ in range(3):
                for step in out["updates"]:
                    sess.run(step)
            values.append(sess.run(out["values"]))
    for a, b in zip(*values, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-6)


@pytest.mark.parametrize("reuse_scope", [False, True])
def test_optimizer_values_with_scoped_slots_match_tf(tf1, reuse_scope):
    """The renamed slots still train as TF's (same values after a few steps)."""
    import ferroflow as ff

    def build(tf):
        with tf.variable_scope("model"):
            w = tf.get_variable("w", [3], initializer=tf.constant_initializer([1.0, -2.0, 0.5]))
            loss = tf.reduce_sum(tf.square(w - [0.3, 0.2, 0.1]))
            opt = tf.train.AdamOptimizer(0.1)
            train = opt.minimize(loss)
            if reuse_scope:
                with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
                    train = tf.group(train, tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss))
        return train, w, opt.get_slot(w, "m"), opt.get_slot(w, "v")

    results = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            train, *fetch = build(lib)
            with lib.Session(graph=g) as sess:
                sess.run(lib.global_variables_initializer())
                for _ in range(4):
                    sess.run(train)
                results.append(([f.op.name for f in fetch], sess.run(fetch)))
    assert results[1][0] == results[0][0]
    for a, b in zip(results[0][1], results[1][1], strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-5)
