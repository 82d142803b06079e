"""Conditional accumulators: `ConditionalAccumulator` and `SparseConditionalAccumulator`.

Each scenario is a function of the library (`ferroflow` or `tensorflow.compat.v1`)
that builds a graph, runs it and returns what it observed; the outcomes must be the
same. Blocking runs are bounded by `RunOptions(timeout_in_ms=...)` and a pytest
timeout, so a lost wake-up is a failure, not a hang.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ferroflow as ff
from conftest import Background as _Background
from conftest import outcome as _outcome

pytestmark = pytest.mark.timeout(60)

WAIT_MS = 10_000
SETTLE_S = 0.2


class _Sess:
    def __init__(self, lib, graph):
        self.lib = lib
        self.sess = lib.Session(graph=graph)

    def run(self, fetches, feed_dict=None, ms=WAIT_MS):
        opts = self.lib.RunOptions(timeout_in_ms=ms)
        return _outcome(self.sess.run, fetches, feed_dict, options=opts)

    def in_thread(self, fetches, feed_dict=None, ms=WAIT_MS):
        return _Background(lambda: self.run(fetches, feed_dict, ms))


def _session(lib, build):
    g = lib.Graph()
    with g.as_default():
        built = build(lib)
    return built, _Sess(lib, g)


def _both(tf1, scenario, *args):
    ours = scenario(ff, *args)
    theirs = scenario(tf1, *args)
    assert ours == theirs
    return ours


# --- dense --------------------------------------------------------------------------------


def _scenario_dense(lib, reduction, grads, steps, set_step, num_required):
    def build(lib):
        acc = lib.ConditionalAccumulator(
            lib.float32, shape=[2, 2], name="acc", reduction_type=reduction
        )
        g = lib.placeholder(lib.float32, [2, 2])
        s = lib.placeholder(lib.int64, [])
        return acc, g, s, acc.apply_grad(g, local_step=s), acc.take_grad(num_required)

    (acc, g, s, apply, take), sess = _session(lib, build)
    with sess.sess.graph.as_default():
        num = acc.num_accumulated()
        setter = acc.set_global_step(set_step)
    obs = [acc.name, acc.dtype.name, str(take.shape), sess.run(setter)]
    for grad, step in zip(grads, steps, strict=True):
        obs.append(sess.run(apply, {g: grad, s: step}))
        obs.append(sess.run(num))
    obs.append(sess.run(take, ms=300))
    obs.append(sess.run(num))
    return obs


@pytest.mark.parametrize("reduction", ["MEAN", "SUM"])
def test_dense_apply_take_and_stale_gradients(tf1, reduction):
    grads = [np.full([2, 2], v, np.float32) + np.eye(2, dtype=np.float32) for v in (1, 2, 4, 8)]
    # step 0 is stale once the global step is 1: it is dropped.
    obs = _both(tf1, _scenario_dense, reduction, grads, [1, 0, 3, 1], 1, 3)
    assert obs[-2][0] == "ok"
    want = (grads[0] + grads[2] + grads[3]) / (3 if reduction == "MEAN" else 1)
    np.testing.assert_allclose(obs[-2][1][3], want)


def test_dense_take_waits_past_the_deadline(tf1):
    g = [np.ones([2, 2], np.float32)]
    obs = _both(tf1, _scenario_dense, "MEAN", g, [0], 0, 2)
    assert obs[-2][0] == "DeadlineExceededError"


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=st.lists(
        # Normal values whose averages stay normal: TF's CPU threads flush subnormal
        # results to zero (FTZ), ferroflow's keep them (a departure in the last ulp
        # of the float range).
        st.lists(
            st.floats(-1e3, 1e3, width=32, allow_subnormal=False).filter(
                lambda v: v == 0 or abs(v) > 1e-30
            ),
            min_size=4,
            max_size=4,
        ),
        min_size=1,
        max_size=4,
    ),
    reduction=st.sampled_from(["MEAN", "SUM"]),
)
def test_dense_values_match_tensorflow(tf1, values, reduction):
    grads = [np.array(v, np.float32).reshape(2, 2) for v in values]
    _both(tf1, _scenario_dense, reduction, grads, [0] * len(grads), 0, len(grads))


def _scenario_errors(lib):
    def build(lib):
        acc = lib.ConditionalAccumulator(lib.float32, shape=[2], name="acc")
        g = lib.placeholder(lib.float32, None)
        n = lib.placeholder(lib.int32, None)
        return acc.apply_grad(g), acc.take_grad(n), g, n

    (apply, take, g, n), sess = _session(lib, build)
    obs = [sess.run(apply, {g: np.ones([3], np.float32)}), sess.run(take, {n: 0})]
    if lib is ff:
        # TF 2.21's kernel aborts the process on a non-scalar num_required (a CHECK
        # after its own error); ferroflow reports the error TF reports first.
        obs.append(sess.run(take, {n: [1, 2]}))
    return obs


def test_run_time_errors_as_tensorflow(tf1):
    assert _scenario_errors(ff)[:2] == _scenario_errors(tf1)
    assert _scenario_errors(ff) == [
        ("InvalidArgumentError", "Shape mismatch: expected [2], got [3]"),
        ("InvalidArgumentError", "Argument num_required must be positive, but was 0"),
        ("InvalidArgumentError", "Argument num_required must be scalar, but had bad shape [2]"),
    ]


def test_static_shape_mismatch_is_a_value_error(tf1):
    for lib in (ff, tf1):
        with lib.Graph().as_default():
            acc = lib.ConditionalAccumulator(lib.float32, shape=[2])
            with pytest.raises(ValueError):
                acc.apply_grad(np.ones([3], np.float32))


def _scenario_blocking(lib):
    def build(lib):
        acc = lib.ConditionalAccumulator(lib.float32, shape=[], name="acc")
        v = lib.placeholder(lib.float32, [])
        return acc.apply_grad(v), acc.take_grad(2), v

    (apply, take, v), sess = _session(lib, build)
    blocked = sess.in_thread(take)
    time.sleep(SETTLE_S)
    obs = [blocked.alive(), sess.run(apply, {v: 1.0})]
    time.sleep(SETTLE_S)
    obs += [blocked.alive(), sess.run(apply, {v: 3.0}), blocked.join()]
    return obs


def test_blocked_take_is_released_by_applies_from_another_thread(tf1):
    obs = _both(tf1, _scenario_blocking)
    assert obs[0] is True and obs[-1] == ("ok", ("scalar", "float32", 2.0))


def test_closing_the_session_releases_a_blocked_take():
    with ff.Graph().as_default() as g:
        take = ff.ConditionalAccumulator(ff.float32, shape=[]).take_grad(1)
    sess = ff.Session(graph=g)
    blocked = _Background(lambda: _outcome(sess.run, take))
    time.sleep(SETTLE_S)
    assert blocked.alive()
    start = time.monotonic()
    sess.close()
    assert blocked.join() == ("CancelledError", "TakeGrad operation was cancelled")
    assert time.monotonic() - start < 3.0


def test_shared_accumulators_and_graph_def(tf1):
    ops = []
    for lib in (ff, tf1):
        with lib.Graph().as_default() as g:
            acc = lib.ConditionalAccumulator(lib.float64, shape=[3], shared_name="w/grad_accum")
            acc.apply_grad(np.ones([3]), local_step=2)
            acc.take_grad(2)
            acc.set_global_step(1)
            acc.num_accumulated()
            # TF 2.x builds the dense ops in their resource-handle form.
            ops.append(
                sorted(
                    (n.name.removeprefix("Resource"), n.op.removeprefix("Resource"))
                    for n in g.as_graph_def().node
                )
            )
    assert ops[0] == ops[1]


# --- sparse -------------------------------------------------------------------------------


def _scenario_sparse(lib, reduction, grads, shape):
    def build(lib):
        acc = lib.SparseConditionalAccumulator(
            lib.float32, shape=shape, name="sacc", reduction_type=reduction
        )
        i = lib.placeholder(lib.int64, [None])
        v = lib.placeholder(lib.float32, [None, 2])
        s = lib.placeholder(lib.int64, [None])
        st_ = lib.placeholder(lib.int64, [])
        apply = acc.apply_indexed_slices_grad(lib.IndexedSlices(v, i, s), local_step=st_)
        return acc, i, v, s, st_, apply, acc.take_indexed_slices_grad(len(grads))

    (acc, i, v, s, st_, apply, take), sess = _session(lib, build)
    with sess.sess.graph.as_default():
        num = acc.num_accumulated()
    obs = [acc.name]
    for idx, vals, step in grads:
        feed = {i: idx, v: np.array(vals, np.float32).reshape(-1, 2), s: [4, 2], st_: step}
        obs += [sess.run(apply, feed), sess.run(num)]
    obs.append(sess.run(take, ms=300))
    return obs


@pytest.mark.parametrize("reduction", ["MEAN", "SUM"])
@pytest.mark.parametrize("shape", [None, (), [4, 2], [None, 2]])
def test_sparse_accumulator_as_tensorflow(tf1, reduction, shape):
    grads = [([0, 2], [1, 2, 3, 4], 0), ([1, 2], [10, 20, 30, 40], 0), ([3], [5, 6], 0)]
    obs = _both(tf1, _scenario_sparse, reduction, grads, shape)
    assert obs[-1][0] == "ok"


def test_sparse_shape_errors_as_tensorflow(tf1):
    grads = [([0, 5], [1, 2, 3, 4], 0)]
    obs = _both(tf1, _scenario_sparse, "MEAN", grads, [4, 2])
    assert obs[1][0] == "InvalidArgumentError"
    obs = _both(tf1, _scenario_sparse, "MEAN", [([0], [1, 2], 0)], [4, 3])
    assert obs[1][0] == "InvalidArgumentError"
