"""Queues: `FIFOQueue`, `PaddingFIFOQueue`, `RandomShuffleQueue`, `PriorityQueue`.

Each documented behaviour has a scenario: a function of the library (`ferroflow` or
`tensorflow.compat.v1`) that builds a graph, runs it and returns what it observed
(values, static shapes, op names, error classes and messages). The ferroflow outcome
is checked against explicit expectations, and the TF-oracle tests require the same
outcome from TensorFlow. Threads only ever block under `RunOptions(timeout_in_ms=...)`
and a pytest timeout, so a lost wake-up shows as a failure, not a hang.
"""

from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ferroflow as ff
from conftest import Background as _Background
from conftest import op_error_message
from conftest import outcome as _conftest_outcome
from conftest import plain_value as _plain

pytestmark = pytest.mark.timeout(60)

# The bound on any run that may block (a DeadlineExceededError then fails the test).
WAIT_MS = 10_000
# How long to let a thread reach its blocking point before acting on it.
SETTLE_S = 0.2


# --- helpers ----------------------------------------------------------------------------


def _core_message(e) -> str:
    """An op error's message without TF's or ferroflow's decorations.

    TF prefixes "Graph execution error: ... Node: 'x'", appends "\\t [[{{node x}}]]"
    and names a session's queue `'_0_fifo_queue'`; ferroflow appends the op's stack.
    """
    return re.sub(r"'_\d+_", "'", op_error_message(e))


def _outcome(fn, *args, **kwargs):
    """`("ok", plain result)` or `(error class name, core message)`."""
    return _conftest_outcome(fn, *args, message=_core_message, **kwargs)


def _error_class(outcome) -> str:
    return outcome[0]


def _opts(lib, ms=WAIT_MS):
    return lib.RunOptions(timeout_in_ms=ms)


class _Sess:
    """A session on `graph` whose runs are bounded and return outcomes."""

    def __init__(self, lib, graph, config=None):
        self.lib = lib
        self.sess = lib.Session(graph=graph, config=config)

    def run(self, fetches, feed_dict=None, ms=WAIT_MS):
        return _outcome(self.sess.run, fetches, feed_dict, options=_opts(self.lib, ms))

    def value(self, fetches, feed_dict=None):
        return self.sess.run(fetches, feed_dict, options=_opts(self.lib))

    def in_thread(self, fetches, feed_dict=None, ms=WAIT_MS):
        """Starts a thread running `fetches`; `.join()` returns its outcome."""
        return _Background(lambda: self.run(fetches, feed_dict, ms))

    def close(self):
        self.sess.close()


def _settle():
    time.sleep(SETTLE_S)


def _session(lib, build, config=None):
    """`build(lib)` in a fresh graph, and a bounded session on it."""
    g = lib.Graph()
    with g.as_default():
        built = build(lib)
    return built, _Sess(lib, g, config)


def _ok(value):
    return ("ok", _plain(value))


def _i32(*xs):
    return ("array", "int32", (len(xs),), list(xs))


FIFO_CLOSED_SHORT = (
    "FIFOQueue 'fifo_queue' is closed and has insufficient elements (requested {}, current size {})"
)


# --- scenarios --------------------------------------------------------------------------


def _scenario_fifo_order(lib):
    def build(lib):
        q = lib.FIFOQueue(10, lib.int32, shapes=[[]])
        p = lib.placeholder(lib.int32, [])
        return q, p, q.enqueue(p)

    (q, p, enq), s = _session(lib, build)
    with s.sess.graph.as_default():
        deq, size, closed = q.dequeue(), q.size(), q.is_closed()
    obs = [s.run(enq, {p: v}) for v in [3, 1, 4, 1, 5]]
    obs += [s.run(size), s.run(closed)]
    obs += [s.run(deq) for _ in range(5)]
    obs += [s.run(size), s.run(closed)]
    s.close()
    return obs


def test_fifo_order_size_and_is_closed():
    obs = _scenario_fifo_order(ff)
    assert obs[:5] == [("ok", None)] * 5
    assert obs[5:7] == [_ok(np.int32(5)), _ok(np.False_)]
    assert obs[7:12] == [_ok(np.int32(v)) for v in [3, 1, 4, 1, 5]]
    assert obs[12:] == [_ok(np.int32(0)), _ok(np.False_)]


def _scenario_batches(lib):
    def build(lib):
        q = lib.FIFOQueue(10, [lib.int32, lib.float32], shapes=[[], [2]])
        n = lib.placeholder(lib.int32, [])
        ops = {
            "enqueue_many": q.enqueue_many(
                (list(range(6)), [[i, i + 0.5] for i in range(6)]), name="fill"
            ),
            "many": q.dequeue_many(2),
            "up_to": q.dequeue_up_to(3),
            "many_fed": q.dequeue_many(n),
            "one": q.dequeue(),
            "size": q.size(),
        }
        return q, n, ops

    (_, n, ops), s = _session(lib, build)
    shapes = {
        k: [t.shape.as_list() for t in v]
        for k, v in ops.items()
        if k in ("many", "up_to", "many_fed", "one")
    }
    obs = [shapes, ops["enqueue_many"].name, s.run(ops["enqueue_many"]), s.run(ops["size"])]
    obs += [s.run(ops["many"]), s.run(ops["up_to"]), s.run(ops["many_fed"], {n: 0})]
    obs += [s.run(ops["size"]), s.run(ops["one"]), s.run(ops["size"])]
    s.close()
    return obs


def test_enqueue_many_dequeue_many_and_up_to_values_and_static_shapes():
    obs = _scenario_batches(ff)
    assert obs[0] == {
        "many": [[2], [2, 2]],
        "up_to": [[None], [None, 2]],
        "many_fed": [[None], [None, 2]],
        "one": [[], [2]],
    }
    assert obs[1:4] == ["fill", ("ok", None), _ok(np.int32(6))]
    assert obs[4] == _ok([np.array([0, 1], np.int32), np.array([[0, 0.5], [1, 1.5]], np.float32)])
    assert obs[5] == _ok(
        [np.array([2, 3, 4], np.int32), np.array([[2, 2.5], [3, 3.5], [4, 4.5]], np.float32)]
    )
    assert obs[6] == _ok([np.zeros(0, np.int32), np.zeros((0, 2), np.float32)])
    assert obs[7:] == [
        _ok(np.int32(1)),
        _ok([np.int32(5), np.array([5, 5.5], np.float32)]),
        _ok(np.int32(0)),
    ]


def _scenario_dict(lib):
    def build(lib):
        q = lib.FIFOQueue(10, [lib.int32, lib.float32], names=["a", "b"], shapes=[[], [2]])
        return q, {
            "enqueue": q.enqueue({"b": [1.0, 2.0], "a": 3}),
            "enqueue_many": q.enqueue_many({"a": [4, 5], "b": [[1.0, 2.0], [3.0, 4.0]]}),
            "dequeue": q.dequeue(),
            "dequeue_many": q.dequeue_many(2),
        }

    (q, ops), s = _session(lib, build)
    obs = [q.names, {k: v.shape.as_list() for k, v in ops["dequeue_many"].items()}]
    obs += [s.run(ops[k]) for k in ("enqueue", "enqueue_many", "dequeue", "dequeue_many")]
    s.close()
    return obs


def test_dict_enqueue_and_dequeue_by_name():
    obs = _scenario_dict(ff)
    assert obs[:2] == [["a", "b"], {"a": [2], "b": [2, 2]}]
    assert obs[2:4] == [("ok", None)] * 2
    assert obs[4] == _ok({"a": np.int32(3), "b": np.array([1, 2], np.float32)})
    assert obs[5] == _ok(
        {"a": np.array([4, 5], np.int32), "b": np.array([[1, 2], [3, 4]], np.float32)}
    )


# Construction-time checks: (builder, error class, message regex).
_CONSTRUCTION_ERRORS = {
    "partial_shape_fifo": (
        lambda lib: lib.FIFOQueue(10, lib.int32, shapes=[[None]]),
        ValueError,
        r"All shapes must be fully defined",
    ),
    "unknown_rank_fifo": (
        lambda lib: lib.FIFOQueue(10, lib.int32, shapes=[None]),
        ValueError,
        r"All shapes must be fully defined",
    ),
    "shapes_not_a_list": (
        lambda lib: lib.FIFOQueue(10, lib.int32, shapes="abc"),
        TypeError,
        None,
    ),
    "shapes_too_few": (
        lambda lib: lib.FIFOQueue(10, [lib.int32, lib.int32], shapes=[[2]]),
        ValueError,
        r"Queue shapes must have the same length as dtypes, "
        r"received len\(shapes\)=1, len\(dtypes\)=2",
    ),
    "shapes_too_many": (
        lambda lib: lib.FIFOQueue(10, [lib.int32], shapes=[[2], [3]]),
        ValueError,
        r"received len\(shapes\)=2, len\(dtypes\)=1",
    ),
    "priority_shapes_too_many": (
        lambda lib: lib.PriorityQueue(10, [lib.int32], shapes=[[], []]),
        ValueError,
        r"received len\(shapes\)=3, len\(dtypes\)=2",
    ),
    "names_length": (
        lambda lib: lib.FIFOQueue(10, [lib.int32, lib.int32], names=["a"]),
        ValueError,
        r"List of names must have the same length as the list of dtypes",
    ),
    "not_a_dtype": (lambda lib: lib.FIFOQueue(10, "notatype"), TypeError, None),
    "not_a_dtype_in_list": (lambda lib: lib.FIFOQueue(10, [lib.int32, 3.5]), TypeError, None),
    "padding_without_shapes": (
        lambda lib: lib.PaddingFIFOQueue(10, lib.int32, shapes=None),
        ValueError,
        r"When providing partial shapes, a list of shapes must be provided",
    ),
    "padding_shapes_length": (
        lambda lib: lib.PaddingFIFOQueue(10, [lib.int32, lib.int32], shapes=[[None]]),
        ValueError,
        r"Shapes must be provided for all components, but received 2 dtypes and 1 shapes",
    ),
    "padding_unknown_rank": (
        lambda lib: lib.PaddingFIFOQueue(10, [lib.int32], shapes=[None]),
        ValueError,
        r"When providing partial shapes, a list of shapes must be provided",
    ),
    "shuffle_partial_shape": (
        lambda lib: lib.RandomShuffleQueue(10, 1, lib.int32, shapes=[[None]]),
        ValueError,
        r"All shapes must be fully defined",
    ),
    "enqueue_dict_without_names": (
        lambda lib: lib.FIFOQueue(10, lib.int32).enqueue({"a": 1}),
        ValueError,
        r"^Queue must have names to enqueue a dictionary$",
    ),
    "enqueue_list_with_names": (
        lambda lib: lib.FIFOQueue(10, lib.int32, names="a").enqueue(1),
        ValueError,
        r"^You must enqueue a dictionary in a Queue with names$",
    ),
    "enqueue_dict_wrong_keys": (
        lambda lib: lib.FIFOQueue(10, [lib.int32, lib.int32], names=["a", "b"]).enqueue(
            {"a": 1, "c": 2}
        ),
        ValueError,
        r"Keys in dictionary to enqueue do not match names of Queue",
    ),
    "enqueue_wrong_dtype": (
        lambda lib: lib.FIFOQueue(10, lib.int32).enqueue(1.5),
        TypeError,
        r"Expected int32",
    ),
    "enqueue_wrong_dtype_tensor": (
        lambda lib: lib.FIFOQueue(10, lib.int32).enqueue(lib.constant(1.5)),
        ValueError,
        r"Tensor conversion requested dtype int32 for Tensor with dtype float32",
    ),
    "enqueue_wrong_shape": (
        # A list is a list of components: the first, 1, is a scalar.
        lambda lib: lib.FIFOQueue(10, lib.int32, shapes=[[2]]).enqueue([1, 2, 3]),
        ValueError,
        r"Shapes \(\) and \(2,\) are incompatible",
    ),
    "enqueue_many_scalar": (
        lambda lib: lib.FIFOQueue(10, lib.int32, shapes=[[]]).enqueue_many(1),
        ValueError,
        r"Shape \(\) must have rank at least 1",
    ),
    "enqueue_many_batch_sizes_differ": (
        lambda lib: lib.FIFOQueue(10, [lib.int32, lib.int32]).enqueue_many(([1, 2], [1, 2, 3])),
        ValueError,
        r"Dimensions 2 and 3 are not compatible",
    ),
    "enqueue_wrong_shape_tensor": (
        lambda lib: lib.FIFOQueue(10, lib.int32, shapes=[[2]]).enqueue(lib.constant([1, 2, 3])),
        ValueError,
        r"Shapes \(3,\) and \(2,\) are incompatible",
    ),
    "enqueue_many_element_shape": (
        lambda lib: lib.FIFOQueue(10, lib.int32, shapes=[[2]]).enqueue_many([[[1, 2, 3]]]),
        ValueError,
        r"Shapes \(3,\) and \(2,\) are incompatible",
    ),
    "dequeue_many_negative": (
        lambda lib: lib.FIFOQueue(10, lib.int32, shapes=[[]]).dequeue_many(-1),
        ValueError,
        None,
    ),
    "from_list_empty": (lambda lib: lib.QueueBase.from_list(0, []), TypeError, None),
    "from_list_dtypes_differ": (
        lambda lib: lib.QueueBase.from_list(
            0, [lib.FIFOQueue(1, lib.int32), lib.FIFOQueue(1, lib.float32)]
        ),
        TypeError,
        r"Queues do not have matching component dtypes",
    ),
}

# Cases whose messages differ from TF's (TF's come from its generated op wrappers, or
# its convert_to_tensor prefixes the tensor's name); only the class is compared.
_MESSAGE_DIFFERS_FROM_TF = {
    "not_a_dtype",
    "not_a_dtype_in_list",
    "enqueue_wrong_dtype",
    "enqueue_wrong_dtype_tensor",
    "dequeue_many_negative",
}


@pytest.mark.parametrize("case", sorted(_CONSTRUCTION_ERRORS))
def test_construction_errors(case):
    build, cls, pattern = _CONSTRUCTION_ERRORS[case]
    with ff.Graph().as_default(), pytest.raises(cls) as e:
        build(ff)
    if pattern is not None:
        assert re.search(pattern, str(e.value)), str(e.value)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("case", sorted(_CONSTRUCTION_ERRORS))
def test_construction_errors_as_tensorflow(tf1, case):
    build = _CONSTRUCTION_ERRORS[case][0]
    with ff.Graph().as_default():
        ours = _outcome(build, ff)
    with tf1.Graph().as_default():
        theirs = _outcome(build, tf1)
    if case in _MESSAGE_DIFFERS_FROM_TF:
        ours, theirs = ours[0], theirs[0]
    assert ours == theirs


def test_construction_checks_that_pass():
    """The other side of the checks: what is allowed builds, with the given names."""
    q = ff.PaddingFIFOQueue(10, [ff.int32, ff.string], shapes=[[None], [2, None]], names=["a", "b"])
    assert [s.as_list() for s in q.shapes] == [[None], [2, None]]
    assert q.dtypes == [ff.int32, ff.string]
    assert q.names == ["a", "b"]
    q = ff.FIFOQueue(3, ff.float32, shapes=ff.TensorShape([2]))
    assert [s.as_list() for s in q.shapes] == [[2]]
    q = ff.FIFOQueue(3, ff.float32, shapes=[4, 5])  # one shape given as a list of ints
    assert [s.as_list() for s in q.shapes] == [[4, 5]]
    q = ff.FIFOQueue(3, (ff.float32, ff.int64))
    assert [s.ndims for s in q.shapes] == [None, None] and q.names is None
    q = ff.PriorityQueue(3, [ff.string], shapes=[[]])
    assert q.dtypes == [ff.int64, ff.string]
    assert [s.as_list() for s in q.shapes] == [[], []]


def _build_all_ops(lib):
    q = lib.FIFOQueue(10, [lib.int32, lib.float32], shapes=[[], [2]])
    q.enqueue((1, [1.0, 2.0]))
    q.enqueue((2, [1.0, 2.0]))
    q.enqueue_many(([1], [[1.0, 2.0]]))
    q.dequeue()
    q.dequeue_many(2)
    q.dequeue_up_to(2)
    q.close()
    q.close(cancel_pending_enqueues=True)
    q.size()
    q.is_closed()
    q.dequeue(name="mine")
    q.enqueue((3, [0.0, 0.0]), name="put")
    with lib.name_scope("outer"):
        q.enqueue((4, [0.0, 0.0]))
        q.size()
    named = lib.FIFOQueue(5, lib.string, name="files")
    named.enqueue("x")
    named.dequeue()
    named.close()
    p = lib.PaddingFIFOQueue(5, lib.int32, shapes=[[None]])
    p.enqueue([[1]])
    p.dequeue_many(1)
    r = lib.RandomShuffleQueue(5, 1, lib.int32, seed=3)
    r.enqueue(1)
    r.dequeue()
    pr = lib.PriorityQueue(5, [lib.string], shapes=[[]])
    pr.enqueue((lib.constant(1, lib.int64), "a"))
    pr.dequeue()
    return q


def test_default_op_names():
    g = ff.Graph()
    with g.as_default():
        _build_all_ops(ff)
    names = [op.name for op in g.get_operations() if op.type.startswith("Queue")]
    assert names == [
        "fifo_queue_enqueue",
        "fifo_queue_enqueue_1",
        "fifo_queue_EnqueueMany",
        "fifo_queue_Dequeue",
        "fifo_queue_DequeueMany",
        "fifo_queue_DequeueUpTo",
        "fifo_queue_Close",
        "fifo_queue_Close_1",
        "fifo_queue_Size",
        "fifo_queue_Is_Closed",
        "mine",
        "put",
        "outer/fifo_queue_enqueue",
        "outer/fifo_queue_Size",
        "files_enqueue",
        "files_Dequeue",
        "files_Close",
        "padding_fifo_queue_enqueue",
        "padding_fifo_queue_DequeueMany",
        "random_shuffle_queue_enqueue",
        "random_shuffle_queue_Dequeue",
        "priority_queue_enqueue",
        "priority_queue_Dequeue",
    ]


@pytest.mark.tf_oracle
def test_graph_matches_tensorflow(tf1):
    """Every op (queues, their enqueue components, the `n` constants): name, type, inputs."""
    graphs = []
    for lib in (ff, tf1):
        g = lib.Graph()
        with g.as_default():
            _build_all_ops(lib)
        graphs.append(
            [
                (op.name, op.type, [t.name for t in op.inputs], [t.dtype.name for t in op.outputs])
                for op in g.get_operations()
            ]
        )
    assert graphs[0] == graphs[1]


def _queue_attrs(lib):
    """The attrs of queue ops of each kind (seeds from the graph seed and shared_name)."""
    g = lib.Graph()
    with g.as_default():
        lib.set_random_seed(4)
        queues = [
            lib.FIFOQueue(-1, [lib.int32, lib.string], shapes=[[2, 3], []], shared_name="s"),
            lib.PaddingFIFOQueue(5, [lib.float32], shapes=[[None, 2]]),
            lib.RandomShuffleQueue(5, 1, [lib.int32, lib.float32], shapes=[[2], []]),
            lib.RandomShuffleQueue(5, 1, lib.int32, shared_name="shared"),
            lib.RandomShuffleQueue(9, 2, lib.int32, seed=3),
            lib.PriorityQueue(5, [lib.string], shapes=[[]]),
        ]
    out = []
    for q in queues:
        op = q.queue_ref.op
        attrs = {}
        for name in [
            "capacity",
            "component_types",
            "shapes",
            "min_after_dequeue",
            "seed",
            "seed2",
            "shared_name",
            "container",
        ]:
            try:
                value = op.get_attr(name)
            except ValueError:
                continue
            if name == "component_types":
                value = [lib.as_dtype(t).name for t in value]
            elif name == "shapes":
                value = [lib.TensorShape(s).as_list() for s in value]
            attrs[name] = value
        out.append((op.type, op.name, attrs))
    return out


def test_queue_op_attrs():
    attrs = _queue_attrs(ff)
    assert attrs[0][2]["capacity"] == -1
    assert attrs[0][2]["shapes"] == [[2, 3], []]
    assert attrs[0][2]["shared_name"] == b"s"
    assert attrs[1][2]["shapes"] == [[None, 2]]
    assert [a[2]["seed"] for a in attrs[2:5]] == [4, 4, 4]
    assert attrs[4][2]["seed2"] == 3
    assert attrs[5][2]["component_types"] == ["string"]


@pytest.mark.tf_oracle
def test_queue_op_attrs_match_tensorflow(tf1):
    assert _queue_attrs(ff) == _queue_attrs(tf1)


def _scenario_close(lib):
    def build(lib):
        q = lib.FIFOQueue(5, lib.int32, shapes=[[]])
        return {
            "fill": q.enqueue_many([[10, 20, 30]]),
            "enqueue": q.enqueue(1),
            "enqueue_many": q.enqueue_many([[1, 2]]),
            "close": q.close(),
            "dequeue": q.dequeue(),
            "many4": q.dequeue_many(4),
            "up_to5": q.dequeue_up_to(5),
            "size": q.size(),
            "closed": q.is_closed(),
        }

    ops, s = _session(lib, build)
    obs = [s.run(ops[k]) for k in ("fill", "close", "closed", "enqueue", "enqueue_many", "size")]
    obs += [s.run(ops[k]) for k in ("many4", "size", "dequeue", "up_to5", "size")]
    obs += [s.run(ops[k]) for k in ("up_to5", "many4", "dequeue", "close")]
    s.close()
    return obs


def test_close_then_drain():
    closed = ("CancelledError", "FIFOQueue 'fifo_queue' is closed.")
    assert _scenario_close(ff) == [
        ("ok", None),
        ("ok", None),
        _ok(np.True_),
        closed,
        closed,
        _ok(np.int32(3)),
        # dequeue_many with fewer left fails and leaves the elements in place...
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(4, 3)),
        _ok(np.int32(3)),
        _ok(np.int32(10)),
        # ...which dequeue_up_to then returns.
        ("ok", _i32(20, 30)),
        _ok(np.int32(0)),
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(5, 0)),
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(4, 0)),
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(1, 0)),
        # Closing twice is an error, as in TF.
        ("CancelledError", "Queue 'fifo_queue' is already closed."),
    ]


def _scenario_close_cancel_twice(lib):
    def build(lib):
        q = lib.FIFOQueue(5, lib.int32, shapes=[[]])
        return q.close(cancel_pending_enqueues=True), q.is_closed()

    (close, closed), s = _session(lib, build)
    obs = [s.run(close), s.run(closed), s.run(close), s.run(closed)]
    s.close()
    return obs


def test_close_with_cancel_on_a_closed_queue_is_not_an_error():
    assert _scenario_close_cancel_twice(ff) == _CLOSE_CANCEL_TWICE_TF


_CLOSE_CANCEL_TWICE_TF = [("ok", None), _ok(np.True_)] * 2


def _scenario_cancel_with_a_pending_close(lib):
    """close(cancel_pending_enqueues=True) while a plain close waits behind an enqueue."""

    def build(lib):
        q = lib.FIFOQueue(1, lib.int32, shapes=[[]])
        return q.enqueue(0), q.enqueue(1), q.close(), q.close(True), q.size(), q.is_closed()

    (enq0, enq1, close, cancel, size, closed), s = _session(lib, build)
    obs = [s.run(enq0)]
    pending_enqueue = s.in_thread(enq1)
    _settle()
    pending_close = s.in_thread(close)
    _settle()
    obs += [s.run(closed), s.run(cancel), pending_enqueue.join(), pending_close.join()]
    obs += [s.run(size), s.run(closed)]
    s.close()
    return obs


# TF's CloseAndCancel closes at once and fails every waiting enqueue attempt, the
# waiting plain close among them.
_CANCEL_WITH_PENDING_CLOSE_TF = [
    ("ok", None),
    _ok(np.False_),
    ("ok", None),
    ("CancelledError", "Enqueue operation was cancelled"),
    ("CancelledError", "Enqueue operation was cancelled"),
    _ok(np.int32(1)),
    _ok(np.True_),
]


def test_cancel_with_a_pending_close_as_tensorflow_does():
    assert _scenario_cancel_with_a_pending_close(ff) == _CANCEL_WITH_PENDING_CLOSE_TF


def _scenario_empty_enqueue_many(lib):
    def build(lib):
        q = lib.FIFOQueue(1, lib.int32, shapes=[[]])
        empty = lib.zeros([0], lib.int32)
        return q.enqueue(1), q.enqueue_many([empty]), q.close(), q.size()

    (enq, enq_empty, close, size), s = _session(lib, build)
    obs = [s.run(enq_empty), s.run(enq), s.run(enq_empty, ms=200), s.run(close)]
    obs += [s.run(enq_empty), s.run(size)]
    s.close()
    return obs


# TF's EnqueueMany of an empty batch completes at once: on a full queue, and on a
# closed one.
_EMPTY_ENQUEUE_MANY_TF = [("ok", None)] * 5 + [_ok(np.int32(1))]


def test_empty_enqueue_many_is_a_no_op_even_when_closed():
    assert _scenario_empty_enqueue_many(ff) == _EMPTY_ENQUEUE_MANY_TF


def _scenario_negative_dequeue_size(lib):
    def build(lib):
        q = lib.FIFOQueue(3, lib.int32, shapes=[[]])
        n = lib.placeholder(lib.int32, [])
        return n, q.dequeue_many(n), q.dequeue_up_to(n)

    (n, many, up_to), s = _session(lib, build)
    obs = [s.run(many, {n: -1}), s.run(up_to, {n: -2})]
    s.close()
    return obs


_NEGATIVE_DEQUEUE_SIZE_TF = [
    ("InvalidArgumentError", "DequeueManyOp requested -1 < 0 elements"),
    ("InvalidArgumentError", "DequeueUpToOp requested -2 < 0 elements"),
]


def test_negative_dequeue_size_message_as_tensorflow():
    assert _scenario_negative_dequeue_size(ff) == _NEGATIVE_DEQUEUE_SIZE_TF


def _scenario_close_releases_a_partial_dequeue_many(lib):
    """A dequeue_many(3) holding 2 taken elements is failed by close, and puts them back."""

    def build(lib):
        q = lib.FIFOQueue(5, lib.int32, shapes=[[]])
        return q.enqueue_many([[1, 2]]), q.dequeue_many(3), q.size(), q.close(), q.dequeue()

    (fill, many, size, close, deq), s = _session(lib, build)
    obs = [s.run(fill)]
    pending = s.in_thread(many)
    _settle()
    obs += [s.run(size), s.run(close), pending.join(), s.run(size), s.run(deq), s.run(deq)]
    s.close()
    return obs


def test_close_releases_a_partial_dequeue_many_and_restores_its_elements():
    assert _scenario_close_releases_a_partial_dequeue_many(ff) == [
        ("ok", None),
        _ok(np.int32(0)),  # taken by the waiting dequeue_many
        ("ok", None),
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(3, 2)),
        _ok(np.int32(2)),
        _ok(np.int32(1)),
        _ok(np.int32(2)),
    ]


def _scenario_pending_enqueue_completes_after_close(lib):
    def build(lib):
        q = lib.FIFOQueue(1, lib.int32, shapes=[[]])
        return q.enqueue(0), q.enqueue(1), q.close(), q.dequeue(), q.is_closed(), q.size()

    (enq0, enq1, close, deq, closed, size), s = _session(lib, build)
    obs = [s.run(enq0)]
    pending = s.in_thread(enq1)  # the queue is full: blocks
    _settle()
    closer = s.in_thread(close)  # waits behind the pending enqueue
    _settle()
    obs += [pending.alive(), closer.alive(), s.run(closed), s.run(deq)]
    obs += [pending.join(), closer.join(), s.run(closed), s.run(size), s.run(deq), s.run(deq)]
    s.close()
    return obs


def test_pending_enqueue_completes_after_close_when_a_dequeue_makes_room():
    assert _scenario_pending_enqueue_completes_after_close(ff) == [
        ("ok", None),
        True,
        True,
        _ok(np.False_),  # close waits in line behind the pending enqueue
        _ok(np.int32(0)),
        ("ok", None),
        ("ok", None),
        _ok(np.True_),
        _ok(np.int32(1)),
        _ok(np.int32(1)),
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(1, 0)),
    ]


def _scenario_pending_enqueue_cancelled(lib):
    def build(lib):
        q = lib.FIFOQueue(2, lib.int32, shapes=[[]])
        return (
            q.enqueue(0),
            q.enqueue_many([[1, 2, 3]]),
            q.close(cancel_pending_enqueues=True),
            q.dequeue_up_to(5),
            q.size(),
            q.is_closed(),
        )

    (enq0, enq_many, cancel, up_to, size, closed), s = _session(lib, build)
    obs = [s.run(enq0)]
    single = s.in_thread(enq_many)  # adds 1, then waits for room for 2 and 3
    _settle()
    obs += [single.alive(), s.run(size), s.run(cancel), single.join(), s.run(closed)]
    # What the cancelled enqueue_many added before it was cancelled stays.
    obs += [s.run(size), s.run(up_to), s.run(up_to)]
    s.close()
    return obs


def test_close_with_cancel_pending_enqueues_fails_the_pending_enqueue():
    assert _scenario_pending_enqueue_cancelled(ff) == [
        ("ok", None),
        True,
        _ok(np.int32(2)),
        ("ok", None),
        ("CancelledError", "Enqueue operation was cancelled"),
        _ok(np.True_),
        _ok(np.int32(2)),
        ("ok", _i32(0, 1)),
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(5, 0)),
    ]


def _scenario_blocked_dequeues_released_by_close(lib):
    def build(lib):
        q = lib.FIFOQueue(5, lib.int32, shapes=[[]])
        return q.dequeue_up_to(3), q.dequeue(), q.enqueue_many([[7, 8]]), q.close()

    (up_to, deq, fill, close), s = _session(lib, build)
    first = s.in_thread(up_to)
    _settle()
    second = s.in_thread(deq)
    _settle()
    obs = [s.run(fill)]
    _settle()
    # dequeue_up_to(3) is first in line and waits for a third element while open.
    obs += [first.alive(), second.alive(), s.run(close), first.join(), second.join()]
    s.close()
    return obs


def test_close_releases_blocked_dequeues():
    assert _scenario_blocked_dequeues_released_by_close(ff) == [
        ("ok", None),
        True,
        True,
        ("ok", None),
        ("ok", _i32(7, 8)),
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(1, 0)),
    ]


def _scenario_dequeue_many_beyond_capacity(lib):
    def build(lib):
        q = lib.FIFOQueue(2, lib.int32, shapes=[[]])
        return q.enqueue_many([list(range(7))]), q.dequeue_many(5), q.dequeue_many(2), q.size()

    (fill, many5, many2, size), s = _session(lib, build)
    producer = s.in_thread(fill)
    obs = [s.run(many5), producer.join(), s.run(size), s.run(many2), s.run(size)]
    s.close()
    return obs


def test_dequeue_many_larger_than_capacity_with_a_producer_thread():
    assert _scenario_dequeue_many_beyond_capacity(ff) == [
        ("ok", _i32(0, 1, 2, 3, 4)),
        ("ok", None),
        _ok(np.int32(2)),
        ("ok", _i32(5, 6)),
        _ok(np.int32(0)),
    ]


def _scenario_timeouts(lib, config=None, ms=None):
    """Blocked dequeue, dequeue_many and enqueue (full queue) under a deadline."""

    def build(lib):
        q = lib.FIFOQueue(2, lib.int32, shapes=[[]])
        return q.enqueue(1), q.dequeue(), q.dequeue_many(3), q.size()

    def timed(fetch):
        start = time.monotonic()
        if ms is None:
            out = _outcome(s.sess.run, fetch)
        else:
            out = s.run(fetch, ms=ms)
        return out, time.monotonic() - start

    (enq, deq, many3, size), s = _session(lib, build, config)
    results = [timed(deq)]
    results += [(s.run(enq), 0.0), (s.run(enq), 0.0), timed(enq), (s.run(size), 0.0)]
    # (TF lost the elements: its last dequeue would block.)
    results += [timed(many3), (s.run(size), 0.0), (s.run(deq, ms=1000), 0.0)]
    s.close()
    return results


_TIMEOUT_OUTCOMES = [
    ("DeadlineExceededError", "Timed out waiting for notification"),
    ("ok", None),
    ("ok", None),
    ("DeadlineExceededError", "Timed out waiting for notification"),
    _ok(np.int32(2)),
    ("DeadlineExceededError", "Timed out waiting for notification"),
    # The timed-out dequeue_many put back what it had taken, in order (TF loses them).
    _ok(np.int32(2)),
    _ok(np.int32(1)),
]


def _check_timeouts(results, ms):
    assert [r for r, _ in results] == _TIMEOUT_OUTCOMES
    for (outcome, elapsed), expected in zip(results, _TIMEOUT_OUTCOMES, strict=True):
        if expected[0] == "DeadlineExceededError":
            assert ms / 1000 * 0.9 <= elapsed < ms / 1000 + 3.0, (outcome, elapsed)


def test_run_options_timeout_on_blocked_dequeue_and_enqueue():
    _check_timeouts(_scenario_timeouts(ff, ms=150), 150)


def test_config_operation_timeout_on_blocked_dequeue_and_enqueue():
    config = ff.ConfigProto(operation_timeout_in_ms=150)
    _check_timeouts(_scenario_timeouts(ff, config=config), 150)


def _scenario_session_close_cancels(lib):
    def build(lib):
        q = lib.FIFOQueue(1, lib.int32, shapes=[[]])
        return q.dequeue(), q.enqueue_many([[1, 2, 3]])

    (deq, fill), s = _session(lib, build)
    blocked_dequeue = s.in_thread(deq)
    blocked_enqueue = s.in_thread(fill)  # the dequeue takes 1, 2 fills the queue, 3 waits
    _settle()
    alive = [blocked_dequeue.alive(), blocked_enqueue.alive()]
    start = time.monotonic()
    s.close()
    results = [blocked_dequeue.join(), blocked_enqueue.join()]
    return alive, results, time.monotonic() - start


def test_session_close_from_another_thread_cancels_blocked_runs():
    alive, results, elapsed = _scenario_session_close_cancels(ff)
    assert alive == [False, True]
    assert results == [_ok(np.int32(1)), ("CancelledError", "Enqueue operation was cancelled")]
    assert elapsed < 3.0


def _scenario_session_close_cancels_dequeue(lib):
    def build(lib):
        return lib.FIFOQueue(1, lib.int32, shapes=[[]]).dequeue()

    deq, s = _session(lib, build)
    blocked = s.in_thread(deq)
    _settle()
    alive = blocked.alive()
    start = time.monotonic()
    s.close()
    return alive, blocked.join(), time.monotonic() - start


def test_session_close_cancels_a_blocked_dequeue():
    alive, result, elapsed = _scenario_session_close_cancels_dequeue(ff)
    assert alive
    assert result == ("CancelledError", "Dequeue operation was cancelled")
    assert elapsed < 3.0


def _scenario_padding(lib):
    def build(lib):
        q = lib.PaddingFIFOQueue(10, [lib.int32, lib.string], shapes=[[None], [None, None]])
        p = lib.placeholder(lib.int32, name="p")
        ps = lib.placeholder(lib.string, name="ps")
        return q, p, ps, q.enqueue((p, ps)), q.dequeue_many(3), q.dequeue_up_to(5), q.close()

    (_, p, ps, enq, many3, up_to5, close), s = _session(lib, build)
    obs = [[t.shape.as_list() for t in many3], [t.shape.as_list() for t in up_to5]]
    for ints, strs in [
        ([1], [["a"]]),
        ([1, 2, 3], [["a", "b"], ["c", "d"]]),
        ([], [["a"], ["b"], ["c"]]),
        ([[1]], [["a"]]),  # wrong rank: a run-time error
        ([7, 7], [["z"]]),
    ]:
        obs.append(s.run(enq, {p: ints, ps: strs}))
    obs += [s.run(many3), s.run(close), s.run(many3), s.run(up_to5), s.run(up_to5)]
    s.close()
    return obs


def test_padding_fifo_queue_pads_with_zeros_and_empty_strings():
    obs = _scenario_padding(ff)
    assert obs[:2] == [[[3, None], [3, None, None]], [[None, None], [None, None, None]]]
    assert obs[2:5] == [("ok", None)] * 3
    assert obs[5] == (
        "InvalidArgumentError",
        "Shape mismatch in tuple component 0. Expected [?], got [1,1]",
    )
    assert obs[6] == ("ok", None)
    ints = np.array([[1, 0, 0], [1, 2, 3], [0, 0, 0]], np.int32)
    strs = np.array(
        [
            [[b"a", b""], [b"", b""], [b"", b""]],
            [[b"a", b"b"], [b"c", b"d"], [b"", b""]],
            [[b"a", b""], [b"b", b""], [b"c", b""]],
        ],
        object,
    )
    assert obs[7] == _ok([ints, strs])
    assert obs[8] == ("ok", None)
    assert obs[9] == (
        "OutOfRangeError",
        "PaddingFIFOQueue 'padding_fifo_queue' is closed and has insufficient elements "
        "(requested 3, current size 1)",
    )
    assert obs[10] == _ok([np.array([[7, 7]], np.int32), np.array([[[b"z"]]], object)])
    assert _error_class(obs[11]) == "OutOfRangeError"


def _scenario_priority(lib):
    def build(lib):
        q = lib.PriorityQueue(10, [lib.string, lib.int32], shapes=[[], [2]])
        p = lib.placeholder(lib.int64, name="p")
        ops = {
            "enqueue": q.enqueue((p, "a", [1, 2])),
            "enqueue_many": q.enqueue_many(
                ([5, -3, 6, 0], ["b", "c", "d", "e"], [[1, 1], [2, 2], [3, 3], [4, 4]])
            ),
            "dequeue": q.dequeue(),
            "many": q.dequeue_many(4),
            "close": q.close(),
            "size": q.size(),
        }
        return p, ops

    (p, ops), s = _session(lib, build)
    obs = [[t.shape.as_list() for t in ops["many"]]]
    obs += [s.run(ops["enqueue"], {p: 2}), s.run(ops["enqueue_many"]), s.run(ops["size"])]
    obs += [s.run(ops["dequeue"]), s.run(ops["close"]), s.run(ops["many"])]
    obs += [s.run(ops["enqueue"], {p: [1, 2]}), s.run(ops["enqueue"], {p: 1})]
    obs += [s.run(ops["dequeue"])]
    s.close()
    return obs


def test_priority_queue_orders_by_priority_with_extra_components():
    obs = _scenario_priority(ff)
    assert obs[0] == [[4], [4], [4, 2]]
    assert obs[1:4] == [("ok", None), ("ok", None), _ok(np.int32(5))]
    assert obs[4] == _ok([np.int64(-3), b"c", np.array([2, 2], np.int32)])
    assert obs[5] == ("ok", None)
    assert obs[6] == _ok(
        [
            np.array([0, 2, 5, 6], np.int64),
            np.array([b"e", b"a", b"b", b"d"], object),
            np.array([[4, 4], [1, 2], [1, 1], [3, 3]], np.int32),
        ]
    )
    assert obs[7:] == [
        ("InvalidArgumentError", "Shape mismatch in tuple component 0. Expected [], got [2]"),
        ("CancelledError", "PriorityQueue 'priority_queue' is closed."),
        (
            "OutOfRangeError",
            "PriorityQueue 'priority_queue' is closed and has insufficient elements "
            "(requested 1, current size 0)",
        ),
    ]


def test_priority_queue_ties_leave_in_arrival_order():
    """TF leaves the order of equal priorities unspecified; ferroflow keeps arrival order."""
    q = ff.PriorityQueue(20, [ff.int32], shapes=[[]])
    p = ff.placeholder(ff.int64, [None])
    v = ff.placeholder(ff.int32, [None])
    enq, many = q.enqueue_many((p, v)), q.dequeue_many(12)
    priorities = [3, 1, 3, 2, 1, 3, 2, 1, 3, 3, 2, 1]
    with ff.Session() as sess:
        sess.run(enq, {p: priorities[:6], v: list(range(6))}, options=_opts(ff))
        sess.run(enq, {p: priorities[6:], v: list(range(6, 12))}, options=_opts(ff))
        got_p, got_v = sess.run(many, options=_opts(ff))
    assert got_p.tolist() == sorted(priorities)
    expected = sorted(range(12), key=lambda i: (priorities[i], i))
    assert got_v.tolist() == expected


def _scenario_priority_up_to(lib):
    def build(lib):
        q = lib.PriorityQueue(10, [lib.string], shapes=[[]])
        return (
            q.enqueue_many(([5, -3, 5], ["b", "c", "d"])),
            q.close(),
            q.dequeue_up_to(10),
            q.size(),
        )

    (fill, close, up_to, size), s = _session(lib, build)
    obs = [s.run(fill), s.run(close), s.run(up_to), s.run(size)]
    s.close()
    return obs


def test_priority_queue_dequeue_up_to_returns_the_rest_after_close():
    assert _scenario_priority_up_to(ff) == [
        ("ok", None),
        ("ok", None),
        _ok([np.array([-3, 5, 5], np.int64), np.array([b"c", b"b", b"d"], object)]),
        _ok(np.int32(0)),
    ]


@pytest.mark.tf_oracle
def test_priority_queue_dequeue_up_to_in_tensorflow(tf1):
    """TF's PriorityQueue ignores dequeue_up_to's small batch: it fails and loses the
    elements it took. Ferroflow returns them, as dequeue_up_to is documented to."""
    theirs = _scenario_priority_up_to(tf1)
    assert _error_class(theirs[2]) == "OutOfRangeError"
    assert theirs[3] == _ok(np.int32(0))


def _scenario_run_time_errors(lib):
    def build(lib):
        unshaped = lib.FIFOQueue(10, lib.int32)
        shaped = lib.FIFOQueue(10, [lib.int32, lib.string], shapes=[[2], []], name="shaped")
        p = lib.placeholder(lib.int32, name="p")
        pm = lib.placeholder(lib.int32, name="pm")
        ps = lib.placeholder(lib.string, name="ps")
        return {
            "fill": unshaped.enqueue_many([[1, 2, 3]]),
            "many": unshaped.dequeue_many(2),
            "up_to": unshaped.dequeue_up_to(2),
            "one": unshaped.dequeue(),
            "close": unshaped.close(),
            "enqueue": shaped.enqueue((p, "x")),
            "enqueue_many": shaped.enqueue_many((pm, ps)),
            "size": shaped.size(),
            "p": p,
            "pm": pm,
            "ps": ps,
        }

    ops, s = _session(lib, build)
    obs = [s.run(ops[k]) for k in ("fill", "many", "up_to", "one", "close", "many", "one")]
    # Fed values of the wrong shape.
    obs.append(s.run(ops["enqueue"], {ops["p"]: [1, 2, 3]}))
    obs.append(s.run(ops["enqueue"], {ops["p"]: 1}))
    # enqueue_many: TF's messages quote the batched shape (and garbage for a scalar).
    obs.append(
        _error_class(s.run(ops["enqueue_many"], {ops["pm"]: [[1, 2]], ops["ps"]: ["a", "b"]}))
    )
    obs.append(_error_class(s.run(ops["enqueue_many"], {ops["pm"]: [[1, 2, 3]], ops["ps"]: ["a"]})))
    obs.append(_error_class(s.run(ops["enqueue_many"], {ops["pm"]: 5, ops["ps"]: "a"})))
    obs.append(s.run(ops["enqueue_many"], {ops["pm"]: [[1, 2], [3, 4]], ops["ps"]: ["a", "b"]}))
    obs.append(s.run(ops["size"]))
    s.close()
    return obs


def test_run_time_errors():
    need_shapes = (
        "InvalidArgumentError",
        "FIFOQueue's DequeueMany and DequeueUpTo require the components to have specified shapes.",
    )
    assert _scenario_run_time_errors(ff) == [
        ("ok", None),
        need_shapes,
        need_shapes,
        _ok(np.int32(1)),
        ("ok", None),
        need_shapes,  # also on a closed queue
        _ok(np.int32(2)),
        ("InvalidArgumentError", "Shape mismatch in tuple component 0. Expected [2], got [3]"),
        ("InvalidArgumentError", "Shape mismatch in tuple component 0. Expected [2], got []"),
        "InvalidArgumentError",
        "InvalidArgumentError",
        "InvalidArgumentError",
        ("ok", None),
        _ok(np.int32(2)),
    ]


def _scenario_two_sessions(lib):
    def build(lib):
        q = lib.FIFOQueue(5, lib.string, shapes=[[]])
        return q.enqueue_many([[b"a", b"b\x00c", b""]]), q.dequeue(), q.size(), q.close()

    (fill, deq, size, close), s1 = _session(lib, build)
    s2 = _Sess(lib, s1.sess.graph)
    obs = [s1.run(fill), s1.run(size), s2.run(size), s2.run(close)]
    obs += [s1.run(deq), s1.run(deq), s1.run(deq), s1.run(size), s2.run(deq, ms=100)]
    s1.close()
    s2.close()
    return obs


def test_two_sessions_on_one_graph_have_separate_queues_and_strings_survive():
    assert _scenario_two_sessions(ff) == [
        ("ok", None),
        _ok(np.int32(3)),
        _ok(np.int32(0)),
        ("ok", None),
        ("ok", b"a"),
        ("ok", b"b\x00c"),
        ("ok", b""),
        _ok(np.int32(0)),
        ("OutOfRangeError", FIFO_CLOSED_SHORT.format(1, 0)),
    ]


def _scenario_shared_name(lib):
    def build(lib):
        a = lib.FIFOQueue(5, lib.int32, shapes=[[]], shared_name="shared")
        b = lib.FIFOQueue(5, lib.int32, shapes=[[]], shared_name="shared", name="other")
        c = lib.FIFOQueue(5, lib.int32, shapes=[[]], name="third")
        return a.enqueue(1), b.dequeue(), a.size(), b.size(), c.size(), c.enqueue(2)

    (enq_a, deq_b, size_a, size_b, size_c, enq_c), s = _session(lib, build)
    obs = [s.run(enq_a), s.run(enq_a), s.run(deq_b), s.run(size_a), s.run(size_b)]
    obs += [s.run(enq_c), s.run(size_c), s.run(size_a)]
    s.close()
    return obs


def test_shared_name_shares_one_queue_in_a_session():
    assert _scenario_shared_name(ff) == [
        ("ok", None),
        ("ok", None),
        _ok(np.int32(1)),
        _ok(np.int32(1)),
        _ok(np.int32(1)),
        ("ok", None),
        _ok(np.int32(1)),
        _ok(np.int32(1)),
    ]


def _scenario_from_list(lib):
    def build(lib):
        a = lib.FIFOQueue(5, lib.int32, shapes=[[]])
        c = lib.FIFOQueue(5, lib.int32, shapes=[[2]], name="third")
        index = lib.placeholder(lib.int32, [])
        chosen = lib.QueueBase.from_list(index, [a, c])
        value = lib.placeholder(lib.int32)
        return index, value, chosen, chosen.enqueue(value), a.size(), c.size(), c.dequeue()

    (index, value, chosen, enq, size_a, size_c, deq_c), s = _session(lib, build)
    obs = [[t.ndims for t in chosen.shapes]]
    obs += [s.run(enq, {index: 1, value: [2, 3]}), s.run(size_a), s.run(size_c)]
    obs += [s.run(deq_c, ms=1000)]
    s.close()
    return obs


_FROM_LIST_OUTCOMES = [
    [None],
    ("ok", None),
    _ok(np.int32(0)),
    _ok(np.int32(1)),
    ("ok", _i32(2, 3)),
]


def test_from_list_static_shapes():
    q = ff.QueueBase.from_list(
        0, [ff.FIFOQueue(5, ff.int32, shapes=[[2, 3]]), ff.FIFOQueue(5, ff.int32, shapes=[[2, 4]])]
    )
    assert [s.as_list() for s in q.shapes] == [[2, None]]
    q = ff.QueueBase.from_list(
        0, [ff.FIFOQueue(5, ff.int32, shapes=[[2]]), ff.FIFOQueue(5, ff.int32, shapes=[[2, 4]])]
    )
    assert [s.ndims for s in q.shapes] == [None]


def test_from_list_runs_on_the_chosen_queue():
    assert _scenario_from_list(ff) == _FROM_LIST_OUTCOMES


@pytest.mark.tf_oracle
def test_from_list_in_tensorflow(tf1):
    assert _scenario_from_list(tf1) == _FROM_LIST_OUTCOMES


def _scenario_shuffle_min_after_dequeue(lib):
    def build(lib):
        q = lib.RandomShuffleQueue(10, 3, lib.int32, shapes=[[]], seed=5)
        return q.enqueue_many([[0, 1, 2, 3, 4]]), q.dequeue(), q.dequeue_up_to(10), q.close()

    (fill, deq, up_to, close), s = _session(lib, build)
    obs = [s.run(fill), _error_class(s.run(deq)), _error_class(s.run(deq))]
    # Two elements left, three must stay behind while the queue is open.
    obs += [s.run(deq, ms=150), s.run(up_to, ms=150), s.run(close)]
    rest = s.value(up_to)
    obs += [sorted(rest.tolist()), s.run(deq)]
    s.close()
    return obs


def test_random_shuffle_queue_min_after_dequeue_blocks_while_open():
    timed_out = ("DeadlineExceededError", "Timed out waiting for notification")
    obs = _scenario_shuffle_min_after_dequeue(ff)
    assert obs[:6] == [("ok", None), "ok", "ok", timed_out, timed_out, ("ok", None)]
    assert len(obs[6]) == 3 and set(obs[6]) <= set(range(5))
    assert obs[7] == (
        "OutOfRangeError",
        "RandomShuffleQueue 'random_shuffle_queue' is closed and has insufficient elements "
        "(requested 1, current size 0)",
    )


def _shuffled(lib, graph_seed, op_seed=None, n=50, sessions=2):
    """The dequeue orders of `n` elements in `sessions` sessions on one graph."""
    g = lib.Graph()
    with g.as_default():
        if graph_seed is not None:
            lib.set_random_seed(graph_seed)
        q = lib.RandomShuffleQueue(100, 0, lib.int32, shapes=[[]], seed=op_seed)
        fill, many = q.enqueue_many([list(range(n))]), q.dequeue_many(n)
    orders = []
    for _ in range(sessions):
        with lib.Session(graph=g) as sess:
            sess.run(fill, options=_opts(lib))
            orders.append(sess.run(many, options=_opts(lib)).tolist())
    return orders


def test_random_shuffle_queue_hands_out_every_element_once_in_random_order():
    for graph_seed, op_seed in [(None, None), (7, None), (7, 3), (None, 11)]:
        orders = _shuffled(ff, graph_seed, op_seed)
        for order in orders:
            assert sorted(order) == list(range(50))
            assert order != list(range(50))
        if graph_seed is not None or op_seed is not None:
            assert orders[0] == orders[1], "seeded: the same order in every session"
        else:
            assert orders[0] != orders[1], "unseeded: a fresh order per session"
    assert _shuffled(ff, 7, sessions=1) != _shuffled(ff, 8, sessions=1)


def test_random_shuffle_queue_mixes_while_enqueuing():
    """Dequeues interleaved with enqueues still hand out each element once."""
    q = ff.RandomShuffleQueue(50, 5, ff.int32, shapes=[[]], seed=1)
    p = ff.placeholder(ff.int32, [])
    enq, deq, close, up_to = q.enqueue(p), q.dequeue(), q.close(), q.dequeue_up_to(100)
    got = []
    with ff.Session() as sess:
        for i in range(40):
            sess.run(enq, {p: i}, options=_opts(ff))
            if i >= 5 and i % 2:
                got.append(int(sess.run(deq, options=_opts(ff))))
        sess.run(close)
        got += sess.run(up_to, options=_opts(ff)).tolist()
    assert sorted(got) == list(range(40))
    assert got != list(range(40))


@pytest.mark.tf_oracle
def test_random_shuffle_orders_versus_tensorflow(tf1):
    """Seeded orders are reproducible in TF too; they are not TF's orders (not required)."""
    ours, theirs = _shuffled(ff, 7), _shuffled(tf1, 7)
    assert theirs[0] == theirs[1]
    assert sorted(theirs[0]) == sorted(ours[0])


def _bad_min_after_dequeue(lib, min_after_dequeue):
    """Building and running a shuffle queue with capacity 10 and a bad min_after_dequeue."""
    g = lib.Graph()
    with g.as_default():
        try:
            size = lib.RandomShuffleQueue(10, min_after_dequeue, lib.int32).size()
        except Exception as e:
            return ("at construction", type(e).__name__)
    with lib.Session(graph=g) as sess:
        return _outcome(sess.run, size)


_BAD_MIN_AFTER_DEQUEUE_TF = {
    10: ("InvalidArgumentError", "min_after_dequeue 10 must be < capacity 10"),
    -1: ("InvalidArgumentError", "min_after_dequeue -1 must be >= 0"),
}


@pytest.mark.parametrize("min_after_dequeue", [10, -1])
def test_random_shuffle_queue_min_after_dequeue_checked_at_run_time(min_after_dequeue):
    assert (
        _bad_min_after_dequeue(ff, min_after_dequeue)
        == _BAD_MIN_AFTER_DEQUEUE_TF[min_after_dequeue]
    )


@pytest.mark.tf_oracle
@pytest.mark.parametrize("min_after_dequeue", [10, -1])
def test_random_shuffle_queue_min_after_dequeue_in_tensorflow(tf1, min_after_dequeue):
    assert (
        _bad_min_after_dequeue(tf1, min_after_dequeue)
        == _BAD_MIN_AFTER_DEQUEUE_TF[min_after_dequeue]
    )


# --- the same outcomes as TensorFlow ----------------------------------------------------

_SCENARIOS = [
    _scenario_fifo_order,
    _scenario_batches,
    _scenario_dict,
    _scenario_close,
    _scenario_pending_enqueue_completes_after_close,
    _scenario_pending_enqueue_cancelled,
    _scenario_blocked_dequeues_released_by_close,
    _scenario_dequeue_many_beyond_capacity,
    _scenario_padding,
    _scenario_priority,
    _scenario_run_time_errors,
    _scenario_two_sessions,
    _scenario_shared_name,
]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("scenario", _SCENARIOS, ids=lambda f: f.__name__[len("_scenario_") :])
def test_same_outcomes_as_tensorflow(tf1, scenario):
    assert scenario(ff) == scenario(tf1)


@pytest.mark.tf_oracle
@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        (_scenario_close_cancel_twice, _CLOSE_CANCEL_TWICE_TF),
        (_scenario_cancel_with_a_pending_close, _CANCEL_WITH_PENDING_CLOSE_TF),
        (_scenario_empty_enqueue_many, _EMPTY_ENQUEUE_MANY_TF),
        (_scenario_negative_dequeue_size, _NEGATIVE_DEQUEUE_SIZE_TF),
    ],
    ids=["close_cancel_twice", "cancel_with_pending_close", "empty_enqueue_many", "negative_n"],
)
def test_what_tensorflow_does_where_ferroflow_differs(tf1, scenario, expected):
    """Pins down TF's outcomes for the scenarios above whose results are written out."""
    assert scenario(tf1) == expected


@pytest.mark.tf_oracle
def test_close_releases_a_partial_dequeue_many_as_tensorflow(tf1):
    ours = _scenario_close_releases_a_partial_dequeue_many(ff)
    theirs = _scenario_close_releases_a_partial_dequeue_many(tf1)
    # TF's message counts what the attempt still lacked ("requested 1, current size 0");
    # ferroflow's counts the whole request and what the queue then holds.
    assert theirs[3] == ("OutOfRangeError", FIFO_CLOSED_SHORT.format(1, 0))
    assert ours[:3] + ours[4:] == theirs[:3] + theirs[4:]


@pytest.mark.tf_oracle
def test_min_after_dequeue_shuffle_outcomes_as_tensorflow(tf1):
    ours, theirs = _scenario_shuffle_min_after_dequeue(ff), _scenario_shuffle_min_after_dequeue(tf1)
    assert ours[:6] == theirs[:6]
    assert ours[7] == theirs[7]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("use_config", [False, True])
def test_timeouts_as_tensorflow(tf1, use_config):
    def results(lib):
        if use_config:
            return _scenario_timeouts(lib, config=lib.ConfigProto(operation_timeout_in_ms=150))
        return _scenario_timeouts(lib, ms=150)

    ours, theirs = [r for r, _ in results(ff)], [r for r, _ in results(tf1)]
    assert ours[:6] == theirs[:6]
    # TF drops the elements a timed-out dequeue_many had taken.
    assert theirs[6] == _ok(np.int32(0))


@pytest.mark.tf_oracle
def test_session_close_cancels_as_tensorflow(tf1):
    for scenario in (_scenario_session_close_cancels, _scenario_session_close_cancels_dequeue):
        ours, theirs = scenario(ff), scenario(tf1)
        assert ours[:2] == theirs[:2]


# --- random producers and consumers -----------------------------------------------------

_producer = st.tuples(
    st.sampled_from(["one", "many"]),
    st.integers(0, 12),  # elements
    st.integers(1, 4),  # batch size for enqueue_many
)
_consumer = st.tuples(st.sampled_from(["one", "many", "up_to"]), st.integers(1, 4))


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    capacity=st.integers(1, 6),
    producers=st.lists(_producer, min_size=1, max_size=4),
    consumers=st.lists(_consumer, min_size=1, max_size=3),
    close_after_ms=st.integers(0, 30),
    cancel=st.booleans(),
)
def test_random_producers_and_consumers(capacity, producers, consumers, close_after_ms, cancel):
    """No element is lost or duplicated, every blocked caller is released, and the only
    errors are CancelledError (enqueue after close) and OutOfRangeError (end of data)."""
    g = ff.Graph()
    with g.as_default():
        q = ff.FIFOQueue(capacity, ff.int32, shapes=[[]])
        value = ff.placeholder(ff.int32, [])
        batch = ff.placeholder(ff.int32, [None])
        enqueue, enqueue_many = q.enqueue(value), q.enqueue_many([batch])
        n = ff.placeholder(ff.int32, [])
        dequeue, dequeue_many, dequeue_up_to = q.dequeue(), q.dequeue_many(n), q.dequeue_up_to(n)
        close = q.close(cancel_pending_enqueues=cancel)
        size = q.size()
    sess = ff.Session(graph=g)
    opts = _opts(ff)
    lock = threading.Lock()
    done_ops: list[list[list[int]]] = [[] for _ in producers]  # succeeded enqueues
    failed_ops: list[list[int] | None] = [None for _ in producers]
    seen: list[list[int]] = [[] for _ in consumers]
    errors: list[tuple[str, str]] = []

    def produce(i, mode, count, size):
        values = [i * 1000 + k for k in range(count)]
        chunks = (
            [values[k : k + size] for k in range(0, count, size)]
            if mode == "many"
            else [[v] for v in values]
        )
        for chunk in chunks:
            try:
                if mode == "many":
                    sess.run(enqueue_many, {batch: chunk}, options=opts)
                else:
                    sess.run(enqueue, {value: chunk[0]}, options=opts)
            except ff.errors.CancelledError:
                failed_ops[i] = chunk
                return
            except Exception as e:
                with lock:
                    errors.append(("producer", repr(e)))
                return
            done_ops[i].append(chunk)

    def consume(j, mode, size):
        while True:
            try:
                if mode == "one":
                    got = [int(sess.run(dequeue, options=opts))]
                else:
                    op = dequeue_many if mode == "many" else dequeue_up_to
                    got = sess.run(op, {n: size}, options=opts).tolist()
                    if mode == "many":
                        assert len(got) == size
                    else:
                        assert 1 <= len(got) <= size
            except ff.errors.OutOfRangeError:
                return
            except Exception as e:
                with lock:
                    errors.append(("consumer", repr(e)))
                return
            seen[j].extend(got)

    threads = [
        threading.Thread(target=produce, args=(i, *p), daemon=True) for i, p in enumerate(producers)
    ] + [
        threading.Thread(target=consume, args=(j, *c), daemon=True) for j, c in enumerate(consumers)
    ]
    try:
        for t in threads:
            t.start()
        time.sleep(close_after_ms / 1000)
        sess.run(close, options=opts)
        for t in threads:
            t.join(20)
        assert not any(t.is_alive() for t in threads), "a blocked caller was never released"
        assert errors == []
        # What the consumers left (a dequeue_many leaves a short tail).
        leftover = []
        while True:
            try:
                leftover += sess.run(dequeue_up_to, {n: 100}, options=opts).tolist()
            except ff.errors.OutOfRangeError:
                break
        assert sess.run(size) == 0
    finally:
        sess.close()

    everything = [v for got in seen for v in got] + leftover
    assert len(everything) == len(set(everything)), "an element came out twice"
    for i, (mode, count, _) in enumerate(producers):
        mine = sorted(v for v in everything if v // 1000 == i)
        succeeded = [v for chunk in done_ops[i] for v in chunk]
        # Every successful enqueue arrived; a cancelled enqueue_many may have added a
        # prefix of its batch before it was cancelled (as in TF); nothing else.
        assert mine[: len(succeeded)] == succeeded
        extra = mine[len(succeeded) :]
        assert extra == (failed_ops[i] or [])[: len(extra)]
        if mode == "one" or not cancel:
            assert extra == []
        if failed_ops[i] is None:
            assert succeeded == [i * 1000 + k for k in range(count)]
        # Each consumer sees each producer's elements in order (FIFO).
        for got in [*seen, leftover]:
            from_i = [v for v in got if v // 1000 == i]
            assert from_i == sorted(from_i)


def test_raw_enqueue_many_of_the_wrong_dtype_is_an_invalid_argument():
    # The Python methods convert to the queue's dtypes; a raw op (an imported graph)
    # need not, and the kernel must refuse it rather than mix dtypes in the queue.
    from ferroflow.ops._op_util import make_op

    q = ff.FIFOQueue(5, ff.int32, shapes=[[]])
    bad = make_op("QueueEnqueueManyV2", [q.queue_ref, ff.constant([1.0, 2.0])])
    with ff.Session() as sess:
        with pytest.raises(
            ff.errors.InvalidArgumentError, match="Type mismatch in tuple component 0"
        ):
            sess.run(bad)
        assert sess.run(q.size()) == 0
