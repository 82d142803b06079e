"""TF 1.15 names against TensorFlow's: `QueueRunner` from names and protos and with ops
its session cannot run, `start_queue_runners` given a monitored session,
`QueueBase.from_list`, `moving_averages.weighted_moving_average` and
`grad_pass_through`."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from tests.conftest import outcome

import ferroflow as ff
from ferroflow.ops.array_ops import grad_pass_through as ff_grad_pass_through

pytestmark = [pytest.mark.tf_oracle, pytest.mark.timeout(120)]

_MockOp = collections.namedtuple("MockOp", ["name"])


def _runner_module(lib):
    if lib is ff:
        from ferroflow.train import queue_runner

        return queue_runner
    from tensorflow.python.training import queue_runner_impl

    return queue_runner_impl


def _moving_averages(lib):
    if lib is ff:
        from ferroflow.train import moving_averages

        return moving_averages
    from tensorflow.python.training import moving_averages

    return moving_averages


def _grad_pass_through(lib):
    return ff_grad_pass_through if lib is ff else lib.grad_pass_through


# -- QueueRunner -------------------------------------------------------------------------
def _bad_ops_run(lib, with_coordinator):
    """A runner over a counter and ops the session cannot run; what the threads report."""
    g = lib.Graph()
    with g.as_default():
        var = lib.Variable(lib.constant(0, lib.int64))
        count_up_to = var.count_up_to(3)
        queue = lib.FIFOQueue(10, lib.float32)
        qr = lib.train.QueueRunner(queue, [count_up_to, _MockOp("bad_op"), _MockOp("i fail")])
        with lib.Session() as sess:
            sess.run(var.initializer)
            coord = lib.train.Coordinator() if with_coordinator else None
            threads = qr.create_threads(sess, coord=coord, start=True)
            names = sorted(t.name for t in threads)
            if coord is not None:
                try:
                    coord.join(threads, stop_grace_period_secs=10)
                    joined = "ok"
                except Exception as e:
                    joined = (type(e).__name__, "Operation not in the graph" in str(e))
            else:
                for t in threads:
                    t.join(10)
                joined = "ok"
            raised = sorted(
                (type(e).__name__, "Operation not in the graph" in str(e))
                for e in qr.exceptions_raised
            )
            return names, joined, raised, int(sess.run(var)) if coord is None else None


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("with_coordinator", [False, True])
def test_ops_the_session_cannot_run_fail_in_their_threads(tf1, with_coordinator):
    expected = _bad_ops_run(tf1, with_coordinator)
    assert _bad_ops_run(ff, with_coordinator) == expected
    assert expected[0] == sorted(
        [
            "QueueRunnerThread-fifo_queue-CountUpTo:0",
            "QueueRunnerThread-fifo_queue-bad_op",
            "QueueRunnerThread-fifo_queue-i fail",
        ]
        + (["QueueRunnerThread-fifo_queue-close_on_stop"] if with_coordinator else [])
    )


def _from_proto_run(lib):
    """A runner exported to a meta graph, imported under a scope and rebuilt from it."""
    g = lib.Graph()
    with g.as_default():
        var = lib.Variable(lib.constant(0, lib.int64), name="counter")
        queue = lib.FIFOQueue(10, lib.int64, shapes=[[]], name="q")
        enqueue = queue.enqueue(var.count_up_to(4))
        qr = lib.train.QueueRunner(
            queue,
            [enqueue],
            queue_closed_exception_types=(lib.errors.OutOfRangeError, lib.errors.CancelledError),
        )
        lib.train.add_queue_runner(qr)
        meta = lib.train.export_meta_graph()
    g2 = lib.Graph()
    with g2.as_default():
        lib.train.import_meta_graph(meta, import_scope="imported")
        (imported,) = lib.get_collection(lib.GraphKeys.QUEUE_RUNNERS)
        proto = imported.to_proto(export_scope="imported")
        rebuilt = _runner_module(lib).QueueRunner.from_proto(proto, import_scope="imported")
        info = {
            "name": rebuilt.name,
            "queue": rebuilt.queue.name,
            "enqueue": [op.name for op in rebuilt.enqueue_ops],
            "close": rebuilt.close_op.name,
            "cancel": rebuilt.cancel_op.name,
            "types": [t.__name__ for t in rebuilt.queue_closed_exception_types],
            "proto": str(proto),
        }
        handle = g2.get_tensor_by_name("imported/q:0")
        imported_queue = lib.QueueBase([lib.int64], [[]], None, handle)
        with lib.Session() as sess:
            sess.run(g2.get_operation_by_name("imported/counter/Assign"))
            threads = rebuilt.create_threads(sess, start=True)
            for t in threads:
                t.join(10)
            filled = sess.run([imported_queue.size(), imported_queue.is_closed()])
        return info, len(threads), rebuilt.exceptions_raised, [int(filled[0]), bool(filled[1])]


def test_queue_runner_from_proto_under_an_import_scope(tf1):
    assert _from_proto_run(ff) == _from_proto_run(tf1)


def _names_given_as_strings(lib):
    g = lib.Graph()
    with g.as_default():
        queue = lib.FIFOQueue(10, lib.float32, name="q")
        enqueue = queue.enqueue((1.0,))
        qr = lib.train.QueueRunner(queue, [enqueue])
        proto = qr.to_proto()
        from_def = lib.train.QueueRunner(queue_runner_def=proto)
        return [op.name for op in from_def.enqueue_ops], from_def.name, str(proto)


def test_queue_runner_def_names_resolve_to_ops(tf1):
    assert _names_given_as_strings(ff) == _names_given_as_strings(tf1)


def _start_with_monitored_session(lib):
    g = lib.Graph()
    with g.as_default():
        var = lib.Variable(lib.constant(0, lib.int64))
        queue = lib.FIFOQueue(10, lib.float32)
        qr = lib.train.QueueRunner(queue, [var.count_up_to(3)])
        lib.train.add_queue_runner(qr)
        with lib.train.MonitoredSession() as mon:
            started = _runner_module(lib).start_queue_runners(mon)
            returned = lib.train.start_queue_runners(sess=mon)
        return started, returned


def test_start_queue_runners_ignores_a_monitored_session(tf1):
    assert _start_with_monitored_session(ff) == _start_with_monitored_session(tf1) == ([], [])


def test_start_queue_runners_type_errors(tf1):
    for lib in (ff, tf1):
        with pytest.raises(TypeError, match=r"sess must be a `tf\.Session` object"):
            lib.train.start_queue_runners(sess="NotASession")


# -- QueueBase.from_list ------------------------------------------------------------------
def _from_list(lib):
    g = lib.Graph()
    with g.as_default():
        q1 = lib.FIFOQueue(10, lib.float32, shapes=[[2]], name="a")
        q2 = lib.PaddingFIFOQueue(15, lib.float32, shapes=[[None]], name="b")
        index = lib.placeholder(lib.int32, [])
        q = lib.QueueBase.from_list(index, [q1, q2])
        q_const = lib.QueueBase.from_list(3, [q1, q2])
        info = (
            q.name,
            q.queue_ref.name,
            q.queue_ref.shape.as_list(),
            [s.as_list() for s in q.shapes],
            [d.name for d in q.dtypes],
            q_const.name,
        )
        with lib.Session() as sess:
            sess.run(q.enqueue(([1.0, 2.0],)), {index: 1})
            sess.run(q.enqueue(([3.0, 4.0],)), {index: 0})
            sizes = sess.run([q1.size(), q2.size()])
            got = sess.run(q.dequeue(), {index: 1}).tolist()
            errors = [outcome(sess.run, q.size(), {index: i}) for i in (2, -1)]
            errors.append(outcome(sess.run, q_const.dequeue())[0])
        return info, sizes, got, errors


def test_from_list(tf1):
    expected = _from_list(tf1)
    assert _from_list(ff) == expected
    assert expected[3][0] == ("InvalidArgumentError", "indices = 2 is not in [0, 2)")


def test_from_list_argument_errors(tf1):
    for lib in (ff, tf1):
        with lib.Graph().as_default():
            q1 = lib.FIFOQueue(1, lib.float32)
            q2 = lib.FIFOQueue(1, lib.int32)
            q3 = lib.FIFOQueue(1, lib.float32, names=["x"])
            cases = [[], (q1,), [q1, "x"], [q1, q2], [q1, q3]]
            got = [outcome(lib.QueueBase.from_list, 0, c) for c in cases]
        assert got == [
            ("TypeError", "A list of queues expected"),
            ("TypeError", "A list of queues expected"),
            ("TypeError", "A list of queues expected"),
            ("TypeError", "Queues do not have matching component dtypes."),
            ("TypeError", "Queues do not have matching component names."),
        ]


# -- weighted_moving_average ---------------------------------------------------------------
def _weighted(lib, dtype, truediv, name, collections, scope):
    g = lib.Graph()
    with g.as_default():
        value = lib.placeholder(dtype, [3])
        weight = lib.placeholder(dtype, [])
        with lib.variable_scope(scope) if scope else _nothing():
            wma = _moving_averages(lib).weighted_moving_average(
                value, 0.75, weight, truediv=truediv, collections=collections, name=name
            )
        info = {
            "result": (wma.name, wma.op.type, wma.dtype.name, wma.shape.as_list()),
            "globals": sorted(v.op.name for v in lib.global_variables()),
            "trainable": sorted(v.op.name for v in lib.trainable_variables()),
            "collection": sorted(v.op.name for v in lib.get_collection("mine")),
        }
        steps = []
        with lib.Session() as sess:
            sess.run(
                lib.variables_initializer(lib.get_collection("mine") or lib.global_variables())
            )
            for v, w in [
                ([3.0, -1.0, 2.0], 4.0),
                ([11.0, 0.5, -2.0], 22.0),
                ([1.0, 2.0, 3.0], 0.5),
            ]:
                steps.append(sess.run(wma, {value: v, weight: w}).tolist())
        return info, steps


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *args):
        return False


@pytest.mark.parametrize(
    ("dtype", "truediv", "name", "collections", "scope"),
    [
        ("float32", True, None, None, None),
        ("float64", False, "wma", None, "outer"),
        ("float32", True, None, ["mine"], None),
    ],
)
def test_weighted_moving_average(tf1, dtype, truediv, name, collections, scope):
    expected = _weighted(tf1, getattr(tf1, dtype), truediv, name, collections, scope)
    got = _weighted(ff, getattr(ff, dtype), truediv, name, collections, scope)
    assert got[0] == expected[0]
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-6)


def test_weighted_moving_average_twice_in_one_graph(tf1):
    def build(lib):
        g = lib.Graph()
        with g.as_default():
            value = lib.constant([1.0, 2.0])
            first = _moving_averages(lib).weighted_moving_average(value, 0.5, lib.constant(2.0))
            second = _moving_averages(lib).weighted_moving_average(value, 0.5, lib.constant(2.0))
            return first.name, second.name, sorted(v.op.name for v in lib.global_variables())

    assert build(ff) == build(tf1)


# -- grad_pass_through ------------------------------------------------------------------------
def _pass_through(lib):
    g = lib.Graph()
    with g.as_default():
        gpt = _grad_pass_through(lib)
        x = lib.Variable(1.0, name="x")
        z = lib.Variable(3.0, name="z")
        y = gpt(x.assign)(z**2)
        (dz,) = lib.gradients(y, z)
        a = lib.placeholder(lib.float32, [3])
        b = lib.placeholder(lib.float32, [3])
        r = gpt(lambda u, v: (lib.round(u * v), lib.floor(u)))(a, b)
        grads = lib.gradients(
            list(r), [a, b], grad_ys=[lib.constant([1.0, 2.0, 3.0]), lib.constant([4.0, 5.0, 6.0])]
        )
        w = lib.Variable([2.0, 3.0], name="w")
        q = gpt(lambda u: lib.round(u * w))(a[:2])
        dq = lib.gradients(q, [a, w])
        names = [y.name, y.dtype.name, [t.name for t in r], q.name, dq[1]]
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            feed = {a: [1.3, 2.6, -1.5], b: [2.0, 1.0, 1.0]}
            values = sess.run([y, dz, list(r), grads, dq[0], x], feed)
        return (
            names,
            [np.asarray(v).tolist() for v in values[:2]],
            [[np.asarray(t).tolist() for t in part] for part in values[2:4]],
            np.asarray(values[4]).tolist(),
            float(values[5]),
            gpt(x.assign).__name__,
        )


def test_grad_pass_through(tf1):
    assert _pass_through(ff) == _pass_through(tf1)
