"""`tf.train.QueueRunner`, `add_queue_runner` and `start_queue_runners`.

Runners over a ferroflow `Session` and `Coordinator` run native threads (Rust, no
GIL); other sessions or coordinators get Python threads. Both must fill the queue
with known values (a `count_up_to` counter), close it when the enqueues run out,
report failures to the coordinator (or `exceptions_raised`) and stop on request.
TensorFlow is the oracle for constructor errors and `QueueRunnerDef`s.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.protos import QueueRunnerDef
from ferroflow.train import queue_runner

pytestmark = pytest.mark.timeout(60)

WAIT_MS = 10_000


def _opts(ms=WAIT_MS):
    return ff.RunOptions(timeout_in_ms=ms)


def _outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
        return "ok"
    except Exception as e:
        return (type(e).__name__, str(e))


def _counter_runner(lib=ff, limit=30, capacity=4, threads=2):
    """A runner whose `threads` enqueue ops take 0, 1, ... limit-1 from one counter,
    then fail with OutOfRangeError ("Reached limit"), which closes the queue."""
    q = lib.FIFOQueue(capacity, lib.int64, shapes=[[]])
    counter = lib.Variable(lib.constant(0, lib.int64), name="counter")
    enqueue_ops = [q.enqueue(lib.count_up_to(counter, limit)) for _ in range(threads)]
    return q, counter, lib.train.QueueRunner(q, enqueue_ops)


def _drain(sess, dequeue):
    """Dequeues until OutOfRangeError; returns the values."""
    got = []
    while True:
        try:
            got.append(int(sess.run(dequeue, options=_opts())))
        except ff.errors.OutOfRangeError:
            return got


def _endless_runner(capacity=3, threads=2, lib=ff, **kwargs):
    """A runner whose enqueue ops never run out (a constant)."""
    q = lib.FIFOQueue(capacity, lib.int32, shapes=[[]])
    enqueue_ops = [q.enqueue(7) for _ in range(threads)]
    return q, lib.train.QueueRunner(q, enqueue_ops, **kwargs)


def _join_all(threads, timeout=20.0):
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a runner thread did not end"


# --- constructor and properties ----------------------------------------------------------


def test_constructor_defaults_and_properties():
    q = ff.FIFOQueue(5, ff.int32, shapes=[[]])
    enqueue_ops = [q.enqueue(1), q.enqueue(2)]
    qr = ff.train.QueueRunner(q, enqueue_ops)
    assert qr.queue is q
    assert qr.enqueue_ops == enqueue_ops
    assert qr.name == q.name == "fifo_queue"
    assert qr.queue_closed_exception_types == (ff.errors.OutOfRangeError,)
    assert qr.exceptions_raised == []
    assert (qr.close_op.type, qr.close_op.name) == ("QueueCloseV2", "fifo_queue_Close")
    assert (qr.cancel_op.type, qr.cancel_op.name) == ("QueueCloseV2", "fifo_queue_Close_1")
    assert qr.close_op.get_attr("cancel_pending_enqueues") is False
    assert qr.cancel_op.get_attr("cancel_pending_enqueues") is True
    assert qr.close_op.inputs[0] is q.queue_ref


def test_constructor_uses_given_ops_and_exception_types():
    q = ff.FIFOQueue(5, ff.int32, shapes=[[]])
    close, cancel = q.close(name="my_close"), q.close(True, name="my_cancel")
    types = (ff.errors.OutOfRangeError, ff.errors.CancelledError)
    qr = ff.train.QueueRunner(
        q, [q.enqueue(1)], close_op=close, cancel_op=cancel, queue_closed_exception_types=types
    )
    assert (qr.close_op, qr.cancel_op) == (close, cancel)
    assert qr.queue_closed_exception_types == types
    # No further close ops were made.
    ops = ff.get_default_graph().get_operations()
    assert [op.name for op in ops if op.type == "QueueCloseV2"] == ["my_close", "my_cancel"]


def _constructor_errors(lib):
    q = lib.FIFOQueue(5, lib.int64, shapes=[[]])
    enq = q.enqueue(lib.constant(1, lib.int64))
    QR = lib.train.QueueRunner
    out = [
        _outcome(QR),
        _outcome(QR, q),
        _outcome(QR, None, [enq]),
        _outcome(QR, q, []),
        _outcome(QR, q, [enq], queue_closed_exception_types=lib.errors.OutOfRangeError),
        _outcome(QR, q, [enq], queue_closed_exception_types=[lib.errors.OutOfRangeError]),
        # TF fails to format these two messages; only the class is compared.
        _outcome(QR, q, [enq], queue_closed_exception_types=())[0],
        _outcome(QR, q, [enq], queue_closed_exception_types=(ValueError,))[0],
    ]
    proto = QR(q, [enq]).to_proto()
    out += [
        _outcome(QR, q, queue_runner_def=proto),
        _outcome(QR, enqueue_ops=[enq], queue_runner_def=proto),
    ]
    return out


def test_constructor_errors():
    must = ("ValueError", "Must provide queue and enqueue_ops.")
    bad_types = "queue_closed_exception_types, when provided, must be a tuple of tf.error types"
    out = _constructor_errors(ff)
    assert out[:4] == [must] * 4
    for outcome in out[4:6]:
        assert outcome[0] == "TypeError" and outcome[1].startswith(bad_types)
    assert out[6:8] == ["TypeError", "TypeError"]
    exclusive = ("ValueError", "queue_runner_def and queue are mutually exclusive.")
    assert out[8:] == [exclusive, exclusive]
    with pytest.raises(TypeError):
        ff.train.QueueRunner(queue_runner_def="not a proto")


@pytest.mark.tf_oracle
def test_constructor_errors_as_tensorflow(tf1):
    def normalized(lib):
        with lib.Graph().as_default():
            out = _constructor_errors(lib)
        # The messages quote the library's own error classes.
        return [(o[0], o[1].split(" but saw: ")[0]) if isinstance(o, tuple) else o for o in out]

    assert normalized(ff) == normalized(tf1)


# --- threads ------------------------------------------------------------------------------


def test_create_threads_returns_threading_threads_with_native_loops():
    q, counter, qr = _counter_runner(limit=10)
    with ff.Session() as sess:
        sess.run(counter.initializer)
        coord = ff.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord)
        # One per enqueue op, plus the one that cancels the queue when coord stops.
        assert len(threads) == 3
        # TF's contract: real `threading.Thread`s (user code checks this); their bodies
        # are loops run in Rust.
        assert all(isinstance(t, threading.Thread) for t in threads)
        assert all(isinstance(t, queue_runner._NativeLoopThread) for t in threads)
        assert len({t.name for t in threads}) == 3
        for t in threads:
            assert not t.is_alive() and t.ident is None and t.daemon is False
            with pytest.raises(RuntimeError):
                t.join()
        threads[0].daemon = True
        assert threads[0].daemon is True
        threads[0].daemon = False
        threads[0].name = "renamed"
        assert threads[0].name == "renamed"
        for t in threads:
            t.start()
        idents = [t.ident for t in threads]
        assert all(isinstance(i, int) and i != 0 for i in idents)
        assert len(set(idents)) == 3
        with pytest.raises(RuntimeError):
            threads[0].start()
        with pytest.raises(RuntimeError):
            threads[1].daemon = True
        assert sorted(_drain(sess, q.dequeue())) == list(range(10))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        assert not any(t.is_alive() for t in threads)
        assert [t.ident for t in threads] == idents


def test_create_threads_daemon_and_start_flags():
    q, counter, qr = _counter_runner(limit=4, capacity=10)
    with ff.Session() as sess:
        sess.run(counter.initializer)
        threads = qr.create_threads(sess, daemon=True, start=True)
        assert len(threads) == 2  # no coordinator: no cancelling thread
        assert all(t.daemon for t in threads)
        _join_all(threads)
        assert sorted(_drain(sess, q.dequeue())) == [0, 1, 2, 3]
        assert qr.exceptions_raised == []


@pytest.mark.parametrize("with_coordinator", [False, True])
def test_runner_fills_the_queue_with_every_value_once_then_closes_it(with_coordinator):
    q, counter, qr = _counter_runner(limit=200, capacity=3, threads=3)
    with ff.Session() as sess:
        sess.run(counter.initializer)
        coord = ff.train.Coordinator() if with_coordinator else None
        threads = qr.create_threads(sess, coord=coord, start=True)
        got = _drain(sess, q.dequeue())
        # A single FIFO fed by one counter: the values arrive in order... per thread;
        # across threads each value arrives exactly once.
        assert sorted(got) == list(range(200))
        assert sess.run(q.is_closed())
        if coord is not None:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
        _join_all(threads)
        assert qr.exceptions_raised == []


def test_request_stop_ends_threads_blocked_on_a_full_queue_and_cancels_the_queue():
    q, qr = _endless_runner(capacity=3, threads=2)
    with ff.Session() as sess:
        coord = ff.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        assert [int(sess.run(q.dequeue(), options=_opts())) for _ in range(5)] == [7] * 5
        deadline = time.monotonic() + 10
        while sess.run(q.size()) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sess.run(q.size()) == 3  # full: both runners are blocked
        assert not sess.run(q.is_closed())
        start = time.monotonic()
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)  # no error: a clean stop
        assert time.monotonic() - start < 5
        assert not any(t.is_alive() for t in threads)
        assert sess.run(q.is_closed())
        # The cancelled enqueues added nothing; what was there can still be drained.
        assert sess.run(q.size()) == 3
        assert sess.run(q.dequeue_up_to(10), options=_opts()).tolist() == [7, 7, 7]


def _failing_runner():
    """An enqueue that fails at run time: a [3]-vector into a queue of [2]-vectors."""
    q = ff.FIFOQueue(5, ff.int32, shapes=[[2]])
    bad = ff.placeholder_with_default(ff.constant([1, 2, 3]), shape=None)
    return q, ff.train.QueueRunner(q, [q.enqueue(bad), q.enqueue(bad)])


def test_an_enqueue_error_reaches_the_coordinator():
    q, qr = _failing_runner()
    with ff.Session() as sess:
        coord = ff.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        with pytest.raises(
            ff.errors.InvalidArgumentError,
            match=r"Shape mismatch in tuple component 0\. Expected \[2\], got \[3\]",
        ):
            coord.join(threads, stop_grace_period_secs=10)
        assert coord.should_stop()
        assert not any(t.is_alive() for t in threads)
        assert qr.exceptions_raised == []  # with a coordinator, errors go there
        assert sess.run(q.is_closed())  # the stop cancelled the queue


# As TF's threads, the thread logs the error, keeps it and re-raises it (so the thread
# ends with an exception).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_an_enqueue_error_without_coordinator_is_in_exceptions_raised():
    q, qr = _failing_runner()
    with ff.Session() as sess:
        threads = qr.create_threads(sess, start=True)
        _join_all(threads)
        raised = qr.exceptions_raised
        assert len(raised) == 2
        for e in raised:
            assert isinstance(e, ff.errors.InvalidArgumentError)
            assert "Expected [2], got [3]" in str(e)
        assert not sess.run(q.is_closed())  # nobody closes it


def _scenario_create_threads_twice(lib):
    """create_threads again: before the first threads start, while they run, after."""

    def again(sess, coord, start=False):
        try:
            return qr.create_threads(sess, coord=coord, start=start)
        except RuntimeError:
            return "RuntimeError"

    with lib.Graph().as_default():
        _, qr = _endless_runner(capacity=2, lib=lib)
        with lib.Session() as sess:
            coord = lib.train.Coordinator()
            first = qr.create_threads(sess, coord=coord)
            out = [len(first), again(sess, coord)]
            for t in first:
                t.start()
            out.append(again(sess, coord, start=True))
            coord.request_stop()
            coord.join(first, stop_grace_period_secs=10)
            out.append(len(qr.create_threads(sess, coord=lib.train.Coordinator())))
    return out


def test_create_threads_again_before_the_first_threads_ended_returns_nothing():
    # As TF's code (its queue_runner_test's testIgnoreMultiStarts): no new threads.
    assert _scenario_create_threads_twice(ff) == [3, [], [], 3]


@pytest.mark.tf_oracle
def test_create_threads_twice_in_tensorflow_returns_nothing(tf1):
    assert _scenario_create_threads_twice(tf1) == [3, [], [], 3]


def test_create_threads_again_while_running_and_after_a_stop():
    # CancelledError also means "closed", so a second round on the cancelled queue ends
    # cleanly.
    closed = (ff.errors.OutOfRangeError, ff.errors.CancelledError)
    q, qr = _endless_runner(capacity=2, queue_closed_exception_types=closed)
    with ff.Session() as sess, ff.Session() as other:
        coord = ff.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        assert qr.create_threads(sess, coord=coord, start=True) == []
        # Another session is another queue: allowed.
        other_coord = ff.train.Coordinator()
        other_threads = qr.create_threads(other, coord=other_coord, start=True)
        assert int(other.run(q.dequeue(), options=_opts())) == 7
        other_coord.request_stop()
        other_coord.join(other_threads, stop_grace_period_secs=10)

        assert int(sess.run(q.dequeue(), options=_opts())) == 7
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        coord2 = ff.train.Coordinator()
        threads2 = qr.create_threads(sess, coord=coord2, start=True)
        assert len(threads2) == 3
        # The queue is closed: the enqueues fail with CancelledError, a "closed" type,
        # so the enqueue threads end by themselves.
        _join_all(threads2[:2])
        assert not coord2.should_stop()
        coord2.request_stop()
        coord2.join(threads2, stop_grace_period_secs=10)


def test_create_threads_again_after_the_threads_ended_without_coordinator():
    q, counter, qr = _counter_runner(limit=3, capacity=10)
    with ff.Session() as sess:
        sess.run(counter.initializer)
        _join_all(qr.create_threads(sess, start=True))
        # The queue is closed now: a new round's enqueues see OutOfRangeError (the
        # counter's limit) and end.
        threads = qr.create_threads(sess, start=True)
        _join_all(threads)
        assert qr.exceptions_raised == []
        assert sorted(_drain(sess, q.dequeue())) == [0, 1, 2]


def _scenario_runner_flows(lib):
    """A counter runner drained to the end, then a failing runner, in `lib`."""
    out = []
    with lib.Graph().as_default():
        q, counter, qr = _counter_runner(lib, limit=20, capacity=3, threads=2)
        dequeue = q.dequeue()
        with lib.Session() as sess:
            sess.run(counter.initializer)
            coord = lib.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            out.append(len(threads))
            got = []
            try:
                while True:
                    got.append(
                        int(sess.run(dequeue, options=lib.RunOptions(timeout_in_ms=WAIT_MS)))
                    )
            except lib.errors.OutOfRangeError as e:
                out.append("is closed and has insufficient elements" in str(e))
            out += [sorted(got), bool(sess.run(q.is_closed()))]
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
            out.append(qr.exceptions_raised)
    with lib.Graph().as_default():
        q = lib.FIFOQueue(5, lib.int32, shapes=[[2]])
        bad = lib.placeholder_with_default(lib.constant([1, 2, 3]), shape=None)
        qr = lib.train.QueueRunner(q, [q.enqueue(bad)])
        with lib.Session() as sess:
            coord = lib.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            try:
                coord.join(threads, stop_grace_period_secs=10)
                out.append("no error")
            except lib.errors.OpError as e:
                out.append((type(e).__name__, "Expected [2], got [3]" in str(e)))
            out.append(bool(sess.run(q.is_closed())))
    return out


def test_runner_flows():
    assert _scenario_runner_flows(ff) == [
        3,
        True,
        list(range(20)),
        True,
        [],
        ("InvalidArgumentError", True),
        True,
    ]


@pytest.mark.tf_oracle
def test_runner_flows_as_tensorflow(tf1):
    assert _scenario_runner_flows(ff) == _scenario_runner_flows(tf1)


_EXIT_SCRIPT = """
import sys, time
import ferroflow as ff
mode = sys.argv[1]
q = ff.FIFOQueue(2, ff.int32, shapes=[[]])
qr = ff.train.QueueRunner(q, [q.enqueue(1), q.enqueue(2)])
sess = ff.Session()
threads = qr.create_threads(sess, daemon=mode == "daemon", start=True)
while sess.run(q.size()) < 2:
    time.sleep(0.01)
time.sleep(0.05)
print("blocked", [t.is_alive() for t in threads], flush=True)
if mode == "non-daemon, cancelled":
    sess.run(q.close(cancel_pending_enqueues=True))
"""


@pytest.mark.parametrize(
    ("mode", "exits"),
    [("daemon", True), ("non-daemon, cancelled", True), ("non-daemon", False)],
)
def test_interpreter_exit_waits_for_non_daemon_runner_threads_only(mode, exits):
    """As with Python threads: blocked non-daemon runners keep the interpreter alive."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _EXIT_SCRIPT, mode], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "blocked [True, True]"
        if exits:
            assert proc.wait(timeout=20) == 0
        else:
            with pytest.raises(subprocess.TimeoutExpired):
                proc.wait(timeout=1.0)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


# --- QueueRunnerDef ----------------------------------------------------------------------


def _proto_fields(p):
    return (
        p.queue_name,
        list(p.enqueue_op_name),
        p.close_op_name,
        p.cancel_op_name,
        list(p.queue_closed_exception_types),
    )


def _build_for_proto(lib):
    with lib.name_scope("scope"):
        q = lib.FIFOQueue(10, lib.int64, shapes=[[]])
        counter = lib.Variable(lib.constant(0, lib.int64), name="counter")
        enq = q.enqueue(lib.count_up_to(counter, 6))
        qr = lib.train.QueueRunner(
            q,
            [enq, enq],
            queue_closed_exception_types=(lib.errors.OutOfRangeError, lib.errors.CancelledError),
        )
    return qr, counter, q


def test_to_proto_and_from_proto_round_trip():
    g = ff.Graph()
    with g.as_default():
        qr, counter, q = _build_for_proto(ff)
        proto = qr.to_proto()
        assert isinstance(proto, QueueRunnerDef)
        assert _proto_fields(proto) == (
            "scope/fifo_queue",
            ["scope/fifo_queue_enqueue", "scope/fifo_queue_enqueue"],
            "scope/fifo_queue_Close",
            "scope/fifo_queue_Close_1",
            [ff.errors.OUT_OF_RANGE, ff.errors.CANCELLED],
        )
        back = ff.train.QueueRunner.from_proto(proto)
        assert _proto_fields(back.to_proto()) == _proto_fields(proto)
        assert back.queue is g.get_operation_by_name("scope/fifo_queue")
        assert back.enqueue_ops == qr.enqueue_ops
        assert (back.close_op, back.cancel_op) == (qr.close_op, qr.cancel_op)
        assert back.queue_closed_exception_types == qr.queue_closed_exception_types
        assert back.name == "scope/fifo_queue"

        scoped = qr.to_proto(export_scope="scope")
        assert _proto_fields(scoped)[:4] == (
            "fifo_queue",
            ["fifo_queue_enqueue", "fifo_queue_enqueue"],
            "fifo_queue_Close",
            "fifo_queue_Close_1",
        )
        assert qr.to_proto(export_scope="elsewhere") is None
        imported = ff.train.QueueRunner.from_proto(scoped, import_scope="scope")
        assert imported.enqueue_ops == qr.enqueue_ops
        assert (
            ff.train.QueueRunner.from_proto(
                QueueRunnerDef.FromString(proto.SerializeToString())
            ).close_op
            is qr.close_op
        )

        # The recreated runner runs.
        with ff.Session() as sess:
            sess.run(counter.initializer)
            _join_all(back.create_threads(sess, start=True))
            assert sorted(_drain(sess, q.dequeue())) == list(range(6))


def test_from_proto_with_a_missing_op_fails():
    proto = QueueRunnerDef(
        queue_name="nowhere",
        enqueue_op_name=["nothing"],
        close_op_name="c",
        cancel_op_name="d",
    )
    with pytest.raises((KeyError, ValueError)):
        ff.train.QueueRunner.from_proto(proto)


@pytest.mark.tf_oracle
def test_proto_matches_tensorflow(tf1):
    protos = []
    for lib in (ff, tf1):
        with lib.Graph().as_default():
            qr, _, _ = _build_for_proto(lib)
            protos.append(
                (qr.to_proto().SerializeToString(), qr.to_proto("scope").SerializeToString())
            )
            assert qr.to_proto(export_scope="elsewhere") is None
    assert protos[0] == protos[1]


# --- add_queue_runner and start_queue_runners ------------------------------------------


def test_add_and_start_queue_runners_with_the_default_session():
    q, counter, qr = _counter_runner(limit=8, capacity=10)
    ff.train.add_queue_runner(qr)
    assert ff.get_collection(ff.GraphKeys.QUEUE_RUNNERS) == [qr]
    with ff.Session() as sess:
        sess.run(counter.initializer)
        coord = ff.train.Coordinator()
        with sess.as_default():
            threads = ff.train.start_queue_runners(coord=coord)
        assert len(threads) == 3
        assert all(t.daemon for t in threads)  # start_queue_runners' default
        assert all(t.ident is not None for t in threads)  # started
        assert sorted(_drain(sess, q.dequeue())) == list(range(8))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)


def test_start_queue_runners_collection_and_start_flag():
    q, counter, qr = _counter_runner(limit=5, capacity=10)
    ff.train.add_queue_runner(qr, collection="mine")
    assert ff.get_collection(ff.GraphKeys.QUEUE_RUNNERS) == []
    with ff.Session() as sess:
        sess.run(counter.initializer)
        assert ff.train.start_queue_runners(sess) == []
        threads = ff.train.start_queue_runners(sess, collection="mine", daemon=False, start=False)
        assert len(threads) == 2
        assert not any(t.is_alive() for t in threads)
        assert all(t.ident is None and not t.daemon for t in threads)
        for t in threads:
            t.start()
        _join_all(threads)
        assert sorted(_drain(sess, q.dequeue())) == list(range(5))


def test_start_queue_runners_needs_a_session():
    ff.train.add_queue_runner(_counter_runner()[2])
    ff.Session()  # not the default session
    with pytest.raises(ValueError, match="No default session is registered"):
        ff.train.start_queue_runners()
    with pytest.raises(TypeError, match=r"sess must be a `tf\.Session` object"):
        ff.train.start_queue_runners(sess=object())


# --- the Python-thread fallback ----------------------------------------------------------


class _CoordinatorLike:
    """Delegates to a Coordinator without being one (so the runner uses Python threads)."""

    def __init__(self, coord):
        self._coord = coord

    def __getattr__(self, name):
        return getattr(self._coord, name)


class _SessionLike:
    """Delegates to a Session without being one."""

    def __init__(self, sess):
        self._sess = sess

    def __getattr__(self, name):
        return getattr(self._sess, name)


@pytest.mark.parametrize("wrap", ["coordinator", "session"])
def test_python_fallback_fills_the_queue_and_stops(wrap):
    q, counter, qr = _counter_runner(limit=50, capacity=3, threads=2)
    with ff.Session() as real:
        real.run(counter.initializer)
        coord = ff.train.Coordinator()
        sess = _SessionLike(real) if wrap == "session" else real
        as_coord = _CoordinatorLike(coord) if wrap == "coordinator" else coord
        threads = qr.create_threads(sess, coord=as_coord, daemon=True, start=True)
        assert len(threads) == 3
        assert all(isinstance(t, threading.Thread) for t in threads)
        assert all(t.daemon for t in threads)
        assert qr.create_threads(sess, coord=as_coord, start=True) == []
        assert sorted(_drain(real, q.dequeue())) == list(range(50))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        assert qr.exceptions_raised == []
        # They stopped: new threads may be made.
        assert len(qr.create_threads(sess, coord=as_coord)) == 3


def test_python_fallback_reports_errors_to_the_coordinator():
    q, qr = _failing_runner()
    with ff.Session() as sess:
        coord = ff.train.Coordinator()
        threads = qr.create_threads(_SessionLike(sess), coord=coord, start=True)
        assert all(isinstance(t, threading.Thread) for t in threads)
        with pytest.raises(ff.errors.InvalidArgumentError, match=r"Expected \[2\], got \[3\]"):
            coord.join(threads, stop_grace_period_secs=10)
        assert sess.run(q.is_closed())


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_python_fallback_without_coordinator_records_and_raises_in_the_thread():
    _, qr = _failing_runner()
    with ff.Session() as sess:
        threads = qr.create_threads(_SessionLike(sess), start=True)
        _join_all(threads)
        raised = qr.exceptions_raised
        assert [type(e) for e in raised] == [ff.errors.InvalidArgumentError] * 2


@pytest.mark.parametrize("wrap", [False, True])
def test_request_stop_cancels_blocked_enqueues_in_both_modes(wrap):
    q, qr = _endless_runner(capacity=2, threads=2)
    with ff.Session() as real:
        coord = ff.train.Coordinator()
        sess = _SessionLike(real) if wrap else real
        threads = qr.create_threads(sess, coord=coord, start=True)
        deadline = time.monotonic() + 10
        while real.run(q.size()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        assert not any(t.is_alive() for t in threads)
        assert real.run(q.is_closed())


# --- the GIL ------------------------------------------------------------------------------


def _python_loop(n):
    total = 0
    for i in range(n):
        total += i
    return total


def _timed_loop(n):
    start = time.perf_counter()
    _python_loop(n)
    return time.perf_counter() - start


def _loop_size(seconds):
    """Iterations of `_python_loop` that take about `seconds` alone."""
    n = 200_000
    elapsed = min(_timed_loop(n) for _ in range(3))
    return max(n, int(n * seconds / max(elapsed, 1e-6)))


class _PythonEnqueuers:
    """The control: Python threads running `sess.run(enqueue)` in a loop."""

    def __init__(self, sess, enqueue, count=2):
        self._stop = threading.Event()
        self.runs = [0] * count  # completed runs, counted with the GIL held

        def body(i):
            with contextlib.suppress(ff.errors.OpError):
                while not self._stop.is_set():
                    sess.run(enqueue)
                    self.runs[i] += 1

        self._threads = [
            threading.Thread(target=body, args=(i,), daemon=True) for i in range(count)
        ]
        for t in self._threads:
            t.start()

    def stop(self):
        self._stop.set()
        _join_all(self._threads)


@contextlib.contextmanager
def _on_cpus(cpus):
    """Runs the calling thread (and threads it starts) on `cpus`, if given."""
    if cpus is None:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def _gil_setup():
    q = ff.FIFOQueue(10**7, ff.float32, shapes=[[]])
    product = ff.matmul(ff.random_uniform([64, 64]), ff.random_uniform([64, 64]))
    enqueue = q.enqueue(ff.reduce_sum(product))
    return q, enqueue, ff.train.QueueRunner(q, [enqueue, enqueue])


def _cpu_split():
    """(main thread's cpus, the busy threads' cpus), or (None, None) on one cpu."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cpus) < 2:
        return None, None
    return {cpus[0]}, set(cpus[1:])


def _progress_during_loop(sess, size, n):
    """How many elements the queue gained while the main thread ran the loop."""
    before = sess.run(size)
    _python_loop(n)
    return sess.run(size) - before


@contextlib.contextmanager
def _switch_interval(seconds):
    old = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


@pytest.mark.timeout(120)
def test_native_runner_threads_make_progress_while_python_holds_the_gil():
    """With a huge switch interval, the main thread's Python loop keeps the GIL for its
    whole run: threads that need the GIL stall, native ones keep enqueuing."""
    q, enqueue, qr = _gil_setup()
    n = _loop_size(0.25)
    size = q.size()
    with ff.Session() as sess, _switch_interval(5.0):
        coord = ff.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        time.sleep(0.05)
        native = _progress_during_loop(sess, size, n)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    with ff.Session() as sess, _switch_interval(5.0):
        control = _PythonEnqueuers(sess, enqueue)
        try:
            time.sleep(0.05)
            # Read with the GIL held, and kept through the loop: no run can be counted
            # in between unless the loop lost the GIL.
            before = sum(control.runs)
            _python_loop(n)
            python = sum(control.runs) - before
            assert before > 0, "the control threads never ran"
        finally:
            control.stop()
    # The control proves the method: Python threads stall behind the loop.
    assert python <= 2, python
    assert native >= 50, (native, python)


@pytest.mark.timeout(120)
def test_native_runner_threads_do_not_slow_the_python_main_thread():
    """The main thread's Python loop runs about as fast beside 2 busy native runner
    threads as beside 2 busy *processes* on the same cpus (which cannot hold our GIL).
    Runners that held the GIL while computing would make it >= 2x slower.

    The processes are the baseline, not an idle machine: on a small machine the
    runners' cpu use alone slows the loop, whoever holds the GIL. Best of 3 each."""
    q, enqueue, qr = _gil_setup()
    n = _loop_size(0.15)
    main_cpus, busy_cpus = _cpu_split()
    busy = [sys.executable, "-c", "while True: pass"]

    def beside_processes():
        procs = [subprocess.Popen(busy) for _ in range(2)]
        try:
            if busy_cpus is not None:
                for p in procs:
                    os.sched_setaffinity(p.pid, busy_cpus)
            time.sleep(0.1)
            return _timed_loop(n)
        finally:
            for p in procs:
                p.kill()
                p.wait()

    def beside_native_runners():
        with ff.Session() as sess:
            coord = ff.train.Coordinator()
            with _on_cpus(busy_cpus):
                threads = qr.create_threads(sess, coord=coord, start=True)
            time.sleep(0.1)
            assert all(t.is_alive() for t in threads)
            elapsed = _timed_loop(n)
            added = sess.run(q.size())
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
        assert added > 0
        return elapsed

    def beside_python_threads():
        with ff.Session() as sess:
            with _on_cpus(busy_cpus):
                control = _PythonEnqueuers(sess, enqueue)
            try:
                time.sleep(0.1)
                return _timed_loop(n)
            finally:
                control.stop()

    with _on_cpus(main_cpus):
        processes, native = [], []
        for _ in range(3):
            processes.append(beside_processes())
            native.append(beside_native_runners())
        python = beside_python_threads()
    ratio = min(native) / min(processes)
    assert ratio < 2.0, (
        f"loop beside native runners {min(native):.3f}s, beside busy processes "
        f"{min(processes):.3f}s (ratio {ratio:.2f}); beside Python enqueue threads {python:.3f}s"
    )


def test_native_runner_enqueues_freshly_computed_values():
    """Each run of the enqueue op computes afresh: a matmul's sum plus the counter's
    step, as numpy computes it; the runner closes the queue after the last one."""
    a = np.arange(16, dtype=np.float32).reshape(4, 4) / 7
    q = ff.FIFOQueue(100, ff.float32, shapes=[[]])
    counter = ff.Variable(0, name="c")
    step = ff.count_up_to(counter, 5)
    enqueue = q.enqueue(
        ff.reduce_sum(ff.matmul(ff.constant(a), ff.constant(a))) + ff.cast(step, ff.float32)
    )
    qr = ff.train.QueueRunner(q, [enqueue])
    with ff.Session() as sess:
        sess.run(counter.initializer)
        _join_all(qr.create_threads(sess, start=True))
        got = sess.run(q.dequeue_up_to(100), options=_opts())
    base = float((a @ a).sum())
    np.testing.assert_allclose(got, [base + i for i in range(5)], rtol=1e-5)


def test_coordinator_subclass_overriding_stop_checks_gets_python_threads():
    # Its overrides must be called, which native threads (polling the Rust core) would
    # not do.
    class CountingCoordinator(ff.train.Coordinator):
        checks = 0

        def should_stop(self):
            CountingCoordinator.checks += 1
            return super().should_stop()

    q, counter, qr = _counter_runner(limit=20, capacity=5)
    with ff.Session() as sess:
        sess.run(counter.initializer)
        coord = CountingCoordinator()
        threads = qr.create_threads(sess, coord=coord, daemon=True, start=True)
        assert all(isinstance(t, threading.Thread) for t in threads)
        assert sorted(_drain(sess, q.dequeue())) == list(range(20))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert CountingCoordinator.checks > 0


def test_racing_create_threads_calls_make_one_set_of_threads():
    _, qr = _endless_runner(capacity=2)
    with ff.Session() as sess:
        coord = ff.train.Coordinator()
        results, barrier = [], threading.Barrier(4)

        def create():
            barrier.wait()
            results.append(qr.create_threads(sess, coord=coord))

        racers = [threading.Thread(target=create) for _ in range(4)]
        for t in racers:
            t.start()
        for t in racers:
            t.join(timeout=30)
        made = [r for r in results if r]
        assert len(made) == 1 and results.count([]) == 3
        for t in made[0]:
            t.start()
        coord.request_stop()
        coord.join(made[0], stop_grace_period_secs=10)


def _runner_of_fetchables(lib):
    """A runner over an imported graph whose enqueue "ops" are an imported op and a
    tensor (the enqueue runs as its control dependency); the values the threads
    enqueued, sorted, and the threads' classes."""
    with lib.Graph().as_default() as source:
        q = lib.FIFOQueue(10, lib.int64, shapes=[[]], name="q")
        counter = lib.Variable(lib.constant(0, lib.int64), name="counter")
        q.enqueue(lib.count_up_to(counter, 6), name="enqueue_op")
        with lib.control_dependencies([q.enqueue(lib.count_up_to(counter, 6))]):
            lib.constant(0, name="after_enqueue")
        q.close(name="close")
        q.close(cancel_pending_enqueues=True, name="cancel")
        q.dequeue(name="dequeue")
    names = ["q", "enqueue_op", "after_enqueue:0", "close", "cancel", "dequeue:0", "counter/Assign"]
    with lib.Graph().as_default():
        queue, op, tensor, close, cancel, dequeue, init = lib.import_graph_def(
            source.as_graph_def(), return_elements=names, name=""
        )
        qr = lib.train.QueueRunner(queue, [op, tensor], close_op=close, cancel_op=cancel)
        with lib.Session() as sess:
            sess.run(init)
            coord = lib.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            got = []
            while True:
                try:
                    got.append(int(sess.run(dequeue)))
                except lib.errors.OutOfRangeError:
                    break
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return sorted(got), [isinstance(t, threading.Thread) for t in threads]


def test_enqueue_ops_may_be_any_fetchable_as_tensorflow(tf1):
    ours = _runner_of_fetchables(ff)
    assert ours == _runner_of_fetchables(tf1)
    assert ours == (list(range(6)), [True] * 3)
