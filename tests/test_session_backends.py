"""Session backends and per-run cancellation, against TensorFlow where TF decides.

- targets: a session for a target no factory serves is TF's `NotFoundError`;
- `tf.container` and `Session.reset(target, containers)` as TF;
- one run's blocked queue operations: they wait together (a dequeue does not hold up an
  enqueue of the same run), and when any op of the run fails every blocked op of that
  run is released and the run raises the first error (hypothesis draws the graphs);
- Ctrl-C interrupts a `Session.run` that waits, and the session stays usable.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ferroflow as ff

pytestmark = pytest.mark.timeout(120)  # any hang here means a lost wake-up

# --- targets ------------------------------------------------------------------------


def _target_errors(lib):
    out = []
    for target in ["local", "foo", "grpc+x://a"]:
        with lib.Graph().as_default():
            try:
                lib.Session(target)
                out.append("ok")
            except lib.errors.NotFoundError as e:
                out.append(str(e).split(" config:")[0].split("}")[0])
    try:
        lib.Session.reset("foo")
    except lib.errors.NotFoundError as e:
        out.append(str(e).split(" config:")[0].split("}")[0])
    return out


def test_unknown_targets_are_not_found_as_tensorflow(tf1):
    ours = _target_errors(ff)
    assert ours == _target_errors(tf1)
    assert ours[1] == 'No session factory registered for the given session options: {target: "foo"'


def test_not_found_names_the_registered_factories():
    # As TF with its gRPC runtime linked in.
    registered = r"Registered factories are \{DIRECT_SESSION, GRPC_SESSION\}\."
    with pytest.raises(ff.errors.NotFoundError, match=registered):
        ff.Session("foo")
    assert ff.Session(b"").sess_str == ""


# --- containers and reset ------------------------------------------------------------


def _containers(lib):
    v0 = lib.Variable(0.0, name="v0")
    with lib.container("experiment0"):
        v1 = lib.Variable(1.0, name="v1")
        with lib.get_default_graph().container("experiment1"):
            v3 = lib.Variable(3.0, name="v3")
            q1 = lib.FIFOQueue(10, lib.float32, name="q1")
        q2 = lib.FIFOQueue(20, lib.float32, shared_name="shared", name="q2")
        with lib.container(""):
            v5 = lib.Variable(5.0, name="v5")
    return [
        (x.op.name, x.op.get_attr("container"))
        for x in (v0, v1, v3, q1.queue_ref, q2.queue_ref, v5)
    ]


def test_container_attrs_as_tensorflow(tf1):
    with tf1.Graph().as_default():
        expected = _containers(tf1)
    with ff.Graph().as_default():
        assert _containers(ff) == expected
    assert [c for _, c in expected] == [
        b"",
        b"experiment0",
        b"experiment1",
        b"experiment1",
        b"experiment0",
        b"",
    ]


def _reset_scenario(lib):
    """What sessions see around `Session.reset("", containers)`."""
    out = []
    with lib.Graph().as_default():
        v = lib.Variable(1.0, name="v")
        with lib.container("exp"):
            w = lib.Variable(2.0, name="w")
        init = lib.global_variables_initializer()
        s1, s2 = lib.Session(), lib.Session()
        s1.run(init)
        s2.run(init)
        lib.Session.reset("", ["exp"])
        for s in (s1, s2):
            try:
                s.run(v)
                out.append("ran")
            except lib.errors.CancelledError as e:
                out.append(("CancelledError", str(e).splitlines()[-1]))
        s3 = lib.Session()
        out.append(s3.run([lib.is_variable_initialized(v), lib.is_variable_initialized(w)]))
        s3.run(init)
        lib.Session.reset("")  # None named: the default container
        try:
            s3.run(w)
        except lib.errors.CancelledError:
            out.append("s3 closed")
        s4 = lib.Session()
        out.append([s4.run(lib.is_variable_initialized(w))])
        s4.close()
    return [x if isinstance(x, str | tuple) else [bool(b) for b in x] for x in out]


def test_reset_closes_every_direct_session_as_tensorflow(tf1):
    ours = _reset_scenario(ff)
    assert ours == _reset_scenario(tf1)
    assert ours[0] == ("CancelledError", "Session has been closed.")


# --- one run's blocked steps ----------------------------------------------------------


def _config(threads):
    return ff.ConfigProto(inter_op_parallelism_threads=threads)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_dequeue_does_not_hold_up_an_enqueue_of_the_same_run(threads):
    q = ff.FIFOQueue(5, ff.int64, shapes=[[]])
    with ff.Session(config=_config(threads)) as sess:
        one, two = ff.constant(1, ff.int64), ff.constant(2, ff.int64)
        got, _, _ = sess.run(
            [q.dequeue_many(2), q.enqueue(one), q.enqueue(two)],
            options=ff.RunOptions(timeout_in_ms=10_000),
        )
        assert sorted(got.tolist()) == [1, 2]


def _failing_op(kind, depth):
    x = ff.constant(float("nan")) if kind != "uninitialized" else None
    if kind == "uninitialized":
        x = ff.Variable(1.0, name="never_initialized").value()
    for i in range(depth):
        x = ff.add(x, 1.0, name=f"chain_{i}")
    if kind == "check_numerics":
        failing = ff.check_numerics(x, "found a bad value", name="failing")
        return failing, ff.errors.InvalidArgumentError
    if kind == "assert":
        check = ff.Assert(ff.less(x, 0.0), [x], name="failing")
        with ff.control_dependencies([check]):
            return ff.identity(x), ff.errors.InvalidArgumentError
    return ff.identity(x, name="failing"), ff.errors.FailedPreconditionError


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dequeues=st.lists(st.integers(0, 2), min_size=1, max_size=6),
    enqueues=st.lists(st.integers(0, 2), max_size=3),
    kind=st.sampled_from(["check_numerics", "assert", "uninitialized"]),
    depth=st.integers(0, 4),
    threads=st.sampled_from([1, 2]),
)
def test_a_failing_op_releases_every_blocked_op_of_its_run(
    dequeues, enqueues, kind, depth, threads
):
    with ff.Graph().as_default():
        queues = [ff.FIFOQueue(100, ff.int64, shapes=[[]], name=f"q{i}") for i in range(3)]
        fetches = [queues[i].dequeue_many(2) for i in dequeues]
        fetches += [queues[i].enqueue(ff.constant(10 + i, ff.int64)) for i in enqueues]
        failing, error = _failing_op(kind, depth)
        fetches.append(failing)
        sizes = [q.size() for q in queues]
        with ff.Session(config=_config(threads)) as sess:
            with pytest.raises(error) as raised:
                sess.run(fetches)
            # The first error, from the failing op (not a `Cancelled` of a woken op).
            if kind != "assert":
                assert raised.value.op is not None and raised.value.op.name.startswith(
                    ("failing", "never_initialized", "chain_")
                )
            # Released: no op of the failed run still waits in a queue's line, so a
            # value enqueued now stays in its queue.
            before = sess.run(sizes)
            sess.run([q.enqueue(ff.constant(99, ff.int64)) for q in queues])
            assert [int(n) for n in sess.run(sizes)] == [int(n) + 1 for n in before]


# --- Ctrl-C -----------------------------------------------------------------------------

_INTERRUPTED_CHILD = textwrap.dedent(
    """
    import sys
    import ferroflow as tf

    q = tf.FIFOQueue(10, tf.int64, shapes=[[]])
    parallel = sys.argv[1] == "parallel"
    fetch = [q.dequeue(), q.dequeue()] if parallel else q.dequeue()
    with tf.Session() as sess:
        print("waiting", flush=True)
        try:
            sess.run(fetch)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        # The run's blocked dequeues were released: the queue works as before.
        sess.run(q.enqueue(tf.constant(7, tf.int64)))
        sess.run(q.enqueue(tf.constant(8, tf.int64)))
        got = sess.run(fetch)
        print("after", sorted(got) if parallel else got, flush=True)
    """
)


@pytest.mark.parametrize("mode", ["inline", "parallel"])
def test_ctrl_c_interrupts_a_waiting_run(tmp_path, mode):
    script = tmp_path / "child.py"
    script.write_text(_INTERRUPTED_CHILD)
    child = subprocess.Popen(
        [sys.executable, str(script), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert child.stdout.readline().strip() == "waiting"
        # Let the run reach its wait and poll a few times (a parallel run's waiting
        # steps poll too, and must leave the signals to the calling thread).
        import time

        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode == 0, err
    lines = out.splitlines()
    assert lines[0] == "interrupted"
    expected = "after [7, 8]" if mode == "parallel" else "after 7"
    assert lines[1].replace("np.int64(", "").replace(")", "") == expected
