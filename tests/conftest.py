"""Shared fixtures: a fresh default graph per test, and TensorFlow as the oracle."""

# ruff: noqa: E402 (the environment below must be set before ferroflow is imported)

import os

# The GPU tests (tests/gpu) run on Mesa's software Vulkan driver (lavapipe) when
# pytest runs with FERROFLOW_GPU=software (as .ci/run's GPU step does); in other runs
# no software adapter is registered, so the CPU tests see the devices TF would.
_LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
if os.path.exists(_LAVAPIPE):
    os.environ.setdefault("VK_DRIVER_FILES", _LAVAPIPE)

# TensorFlow's oneDNN rewrites change which ops it runs (MatMul -> _MklMatMul) and which
# kernels it has (dilated filter gradients): their default depends on the CPU, so the
# oracle's configuration is pinned, before TF is first imported. The differential tests
# hold either way (TF_ENABLE_ONEDNN_OPTS=0 pytest tests checks it).
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")

import re
import socket
import threading

import numpy as np
import pytest

import ferroflow as ff


@pytest.fixture(autouse=True)
def _fresh_default_graph():
    ff.reset_default_graph()
    yield


@pytest.fixture(scope="session")
def tf1():
    """`tensorflow.compat.v1` in TF-1.x mode (graphs, ref variables); skips if absent."""
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    return tf


def run_tf(tf1, build, feeds=None):
    """Builds a graph with `build(tf)` in a fresh TF graph and runs what it returns."""
    g = tf1.Graph()
    with g.as_default():
        fetches = build(tf1)
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            return sess.run(fetches, feeds(g) if feeds else None)


def run_ff(build, feeds=None):
    """Builds a graph with `build(ferroflow)` in a fresh graph and runs what it returns."""
    g = ff.Graph()
    with g.as_default():
        fetches = build(ff)
        with ff.Session(graph=g) as sess:
            sess.run(ff.global_variables_initializer())
            return sess.run(fetches, feeds(g) if feeds else None)


def build_both(tf1, build):
    """Builds `build(lib)` in a fresh TF graph and a fresh ferroflow graph (no run).

    Returns ((tf_graph, tf_result), (ff_graph, ff_result)).
    """
    g_tf, g_ff = tf1.Graph(), ff.Graph()
    with g_tf.as_default():
        tf_out = build(tf1)
    with g_ff.as_default():
        ff_out = build(ff)
    return (g_tf, tf_out), (g_ff, ff_out)


def assert_same_tensors(tf_out, ff_out):
    """Same names, dtypes and static shapes, tensor by tensor."""
    for a, b in zip(tf_out, ff_out, strict=True):
        assert a.name == b.name
        assert a.dtype.name == b.dtype.name
        assert a.shape.as_list() == b.shape.as_list()


def op_error_message(e) -> str:
    """An op error's own message, without TF's or ferroflow's decorations.

    TF may prefix "Graph execution error:" and the failing node's creation traceback,
    once or more ("Detected at node 'x' defined at ...", indented frames, then, not
    always, "Node: 'x'"), and appends "\\t [[{{node x}}]]"; ferroflow appends the op's stack.
    """
    m = getattr(e, "message", None) or str(e)
    m = re.sub(r"^Graph execution error:\n\n", "", m)
    m = re.sub(r"^(?:Detected at node[^\n]*\n(?:[ \t][^\n]*\n)*(?:Node: '[^']*'\n)?)+", "", m)
    m = re.sub(r"(?s)\n\t \[\[.*$", "", m)
    m = re.sub(r"(?s)\n\nOriginal stack trace.*$", "", m)
    return m.strip()


def free_ports(n):
    """`n` loopback ports free right now (for servers a test starts)."""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Background:
    """`fn()` on a daemon thread, started at once; `join` returns its result and fails
    the test if it is still blocked."""

    def __init__(self, fn):
        self._result = None
        self._thread = threading.Thread(target=self._body, args=(fn,), daemon=True)
        self._thread.start()

    def _body(self, fn):
        self._result = fn()

    def alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout=20.0):
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "a blocked run was never released"
        return self._result


def plain_value(v):
    """A run's result as comparable plain values, keeping dtypes and shapes (numpy
    arrays and scalars, lists, dicts, and sparse values as their three parts)."""
    if isinstance(v, dict):
        return {k: plain_value(x) for k, x in sorted(v.items())}
    if hasattr(v, "indices") and hasattr(v, "values"):
        return plain_value([v.indices, v.values, v.dense_shape])
    if isinstance(v, list | tuple):
        return [plain_value(x) for x in v]
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.name, v.shape, v.tolist())
    if isinstance(v, np.generic):
        return ("scalar", v.dtype.name, v.item())
    return v


def outcome(fn, *args, message=op_error_message, **kwargs):
    """`("ok", plain result)` of `fn(*args, **kwargs)`, or `(error class name,
    message(error))`: what a differential test compares between libraries."""
    try:
        return ("ok", plain_value(fn(*args, **kwargs)))
    except Exception as e:
        return (type(e).__name__, message(e))
