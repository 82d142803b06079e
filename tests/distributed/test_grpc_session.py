"""`grpc://` sessions against a ferroflow server and TensorFlow's, both ways.

A server is a real gRPC server on loopback; clients are real `Session`s (ferroflow's
and TensorFlow's `tf.compat.v1.Session`), so the wire format, the service paths and
the error conventions are TF's own (spec/distributed.md).
"""

import threading

import numpy as np
import pytest

import ferroflow as ff
from ferroflow import _ferroflow
from ferroflow.protos import ClusterDef, ServerDef


def local_server_def(job="localhost"):
    cluster = ClusterDef()
    j = cluster.job.add()
    j.name = job
    j.tasks[0] = "localhost:0"
    return ServerDef(cluster=cluster, job_name=job, task_index=0, protocol="grpc")


@pytest.fixture
def server():
    s = _ferroflow.Server(local_server_def().SerializeToString())
    s.start()
    yield s
    s.stop()


def test_target_names_the_bound_port(server):
    assert server.target.startswith("grpc://localhost:")
    assert int(server.target.rsplit(":", 1)[1]) > 0


def test_a_ferroflow_client_runs_steps_on_a_ferroflow_server(server):
    x = ff.placeholder(ff.float32, [None, 2], name="x")
    w = ff.Variable([[1.0], [2.0]], name="w")
    y = ff.matmul(x, w, name="y")
    with ff.Session(server.target) as sess:
        sess.run(ff.global_variables_initializer())
        out = sess.run(y, {x: [[1.0, 1.0], [2.0, 0.5]]})
        np.testing.assert_allclose(out, [[3.0], [3.0]])
        # The graph grows after the first run: only the new nodes are sent.
        z = ff.reduce_sum(y * 2.0, name="z")
        assert sess.run([z, y], {x: [[1.0, 0.0]]})[0] == pytest.approx(2.0)
        # Targets, a fetch given twice, a dict of fetches.
        inc = ff.assign_add(w, [[1.0], [1.0]])
        sess.run(inc.op)
        got = sess.run({"a": y, "b": [y, w]}, {x: [[1.0, 1.0]]})
        np.testing.assert_allclose(got["a"], [[5.0]])
        np.testing.assert_allclose(got["b"][1], [[2.0], [3.0]])


def test_variables_live_on_the_server_across_sessions(server):
    v = ff.Variable(1.0, name="shared_v")
    add = ff.assign_add(v, 2.0)
    with ff.Session(server.target) as s1:
        s1.run(v.initializer)
        s1.run(add)
    # A second session on another graph with the same variable name sees its value.
    g2 = ff.Graph()
    with g2.as_default():
        v2 = ff.Variable(0.0, name="shared_v")
        with ff.Session(server.target) as s2:
            assert s2.run(v2) == pytest.approx(3.0)
    # Session.reset drops the server's containers: the variable is uninitialized.
    ff.Session.reset(server.target)
    with g2.as_default(), ff.Session(server.target) as s3:
        with pytest.raises(ff.errors.FailedPreconditionError):
            s3.run(v2)


def test_errors_keep_their_class_and_op_name(server):
    x = ff.placeholder(ff.float32, [2], name="needs_feed")
    v = ff.Variable(1.0, name="never_initialized")
    q = ff.FIFOQueue(1, [ff.float32])
    with ff.Session(server.target) as sess:
        with pytest.raises(ff.errors.FailedPreconditionError, match="never_initialized"):
            sess.run(v)
        with pytest.raises(ff.errors.InvalidArgumentError, match="needs_feed"):
            sess.run(x * 2.0)
        opts = ff.RunOptions(timeout_in_ms=300)
        with pytest.raises(ff.errors.DeadlineExceededError):
            sess.run(q.dequeue(), options=opts)


def test_a_blocked_remote_run_is_woken_by_a_second_client(server):
    q = ff.FIFOQueue(2, [ff.float32], shared_name="q_shared", name="q")
    deq = q.dequeue()
    enq = q.enqueue([7.0])
    result = []
    with ff.Session(server.target) as s1, ff.Session(server.target) as s2:
        t = threading.Thread(target=lambda: result.append(s1.run(deq)))
        t.start()
        s2.run(enq)
        t.join(10)
    assert result == [pytest.approx(7.0)]


def test_list_devices_names_the_task(server):
    with ff.Session(server.target) as sess:
        names = [d.name for d in sess.list_devices()]
    assert names == ["/job:localhost/replica:0/task:0/device:CPU:0"]


def test_unreachable_targets_are_unavailable():
    c = ff.constant(1.0)
    # A port nobody listens on (bound, then closed).
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with ff.Session(f"grpc://localhost:{port}") as sess:
        with pytest.raises(ff.errors.UnavailableError):
            sess.run(c)


# ---- TensorFlow on the other end --------------------------------------------------


def test_a_tensorflow_client_trains_on_a_ferroflow_server(tf1, server):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(32, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)

    def build(tf):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(tf.zeros([3, 1]), name="w")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        return x, y, w, loss, train

    losses = {}
    for name, target in (("tf", ""), ("ff_server", server.target)):
        g = tf1.Graph()
        with g.as_default():
            x, y, w, loss, train = build(tf1)
            with tf1.Session(target, graph=g) as sess:
                sess.run(tf1.global_variables_initializer())
                for _ in range(20):
                    sess.run(train, {x: xs, y: ys})
                losses[name] = (sess.run(loss, {x: xs, y: ys}), sess.run(w))
    np.testing.assert_allclose(losses["ff_server"][0], losses["tf"][0], rtol=1e-4)
    np.testing.assert_allclose(losses["ff_server"][1], losses["tf"][1], rtol=1e-4, atol=1e-6)


def test_tensorflow_client_errors_and_devices(tf1, server):
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf1.float32, [2], name="x")
        v = tf1.Variable(1.0, name="uninit")
        with tf1.Session(server.target, graph=g) as sess:
            with pytest.raises(tf1.errors.FailedPreconditionError):
                sess.run(v)
            with pytest.raises(tf1.errors.InvalidArgumentError):
                sess.run(x + 1.0)
            names = [d.name for d in sess.list_devices()]
            assert "/job:localhost/replica:0/task:0/device:CPU:0" in names
            # Keras-style callables go through MakeCallable/RunCallable.
            fn = sess.make_callable(x * 2.0, feed_list=[x])
            np.testing.assert_allclose(fn(np.array([1.0, 2.0], np.float32)), [2.0, 4.0])


def test_a_ferroflow_client_runs_on_a_tensorflow_server(tf1):
    tf_server = tf1.train.Server.create_local_server()
    x = ff.placeholder(ff.float32, [None, 2], name="x")
    w = ff.Variable([[1.0], [2.0]], name="w")
    y = ff.matmul(x, w, name="y")
    step = ff.assign_add(w, [[0.5], [0.5]])
    with ff.Session(tf_server.target) as sess:
        sess.run(ff.global_variables_initializer())
        sess.run(step)
        np.testing.assert_allclose(sess.run(y, {x: [[1.0, 1.0]]}), [[4.0]])
        with pytest.raises(ff.errors.InvalidArgumentError):
            sess.run(y)
        names = [d.name for d in sess.list_devices()]
    assert any(n.endswith("/device:CPU:0") for n in names)


# ---- tf.train.Server --------------------------------------------------------------


def test_train_server_matches_tensorflows_server_def(tf1):
    cluster = {"ps": ["localhost:0"], "worker": ["localhost:0", "localhost:0"]}
    ours = ff.train.Server(cluster, job_name="ps", task_index=0, start=False)
    theirs = tf1.train.Server(cluster, job_name="ps", task_index=0, start=False)
    assert ours.server_def.SerializeToString(
        deterministic=True
    ) == theirs.server_def.SerializeToString(deterministic=True)
    local = ff.train.Server.create_local_server()
    assert (
        local.server_def.job_name
        == tf1.train.Server.create_local_server().server_def.job_name
        == "localhost"
    )
    c = ff.constant(3.0)
    with ff.Session(local.target) as sess:
        assert sess.run(c) == 3.0
    local._stop()
    ours._stop()


def test_a_port_in_use_is_an_error():
    a = ff.train.Server.create_local_server()
    port = int(a.target.rsplit(":", 1)[1])
    with pytest.raises(ff.errors.UnavailableError, match="Could not start gRPC server"):
        ff.train.Server({"local": [f"localhost:{port}"]})
    a._stop()


def test_join_returns_when_the_server_stops():
    s = ff.train.Server.create_local_server()
    t = threading.Thread(target=s.join)
    t.start()
    t.join(0.3)
    assert t.is_alive()
    s._stop()
    t.join(5)
    assert not t.is_alive()


def variable_seen_by_a_second_session(lib, target, isolate):
    """The value a second session (another graph) reads of a variable the first one,
    still open, initialized to 5 on the same server; None if it is uninitialized."""
    config = lib.ConfigProto(isolate_session_state=isolate)
    g1, g2 = lib.Graph(), lib.Graph()
    with g1.as_default():
        v1 = lib.Variable(5.0, name="iso_v")
        s1 = lib.Session(target, config=config)
    try:
        s1.run(v1.initializer)
        with g2.as_default():
            v2 = lib.Variable(0.0, name="iso_v")
            with lib.Session(target, config=config) as s2:
                try:
                    return float(s2.run(v2))
                except lib.errors.FailedPreconditionError:
                    return None
    finally:
        s1.close()


@pytest.mark.parametrize("isolate", [False, True])
def test_isolate_session_state_keeps_variables_to_their_session(server, tf1, isolate):
    ours = variable_seen_by_a_second_session(ff, server.target, isolate)
    tf_server = tf1.train.Server.create_local_server()
    theirs = variable_seen_by_a_second_session(tf1, tf_server.target, isolate)
    assert ours == theirs == (None if isolate else 5.0)


def run_with_propagated_cluster(lib, targets):
    """A session on the first server with a `ClusterSpec` of its own naming both
    servers `/job:worker`: a step placed across them, a variable on the second seen by
    its session only (propagated sessions are isolated), and a cluster that leaves the
    master out (refused)."""
    addresses = [t.removeprefix("grpc://") for t in targets]
    cluster_def = lib.train.ClusterSpec({"worker": addresses}).as_cluster_def()
    config = lib.ConfigProto(cluster_def=cluster_def)
    out = {}
    g = lib.Graph()
    with g.as_default():
        x = lib.placeholder(lib.float32, [3], name="x")
        with lib.device("/job:worker/task:1"):
            v = lib.Variable([1.0, 2.0, 3.0], name="pv")
            y = x * 2.0 + v
        with lib.device("/job:worker/task:0"):
            z = lib.reduce_sum(y)
        with lib.Session(targets[0], config=config) as s1:
            s1.run(v.initializer)
            out["z"] = float(s1.run(z, {x: [1.0, 1.0, 1.0]}))
            with lib.Session(targets[0], config=config) as s2:
                try:
                    s2.run(v)
                    out["second"] = "initialized"
                except lib.errors.FailedPreconditionError:
                    out["second"] = "uninitialized"
        outside = lib.train.ClusterSpec({"worker": ["localhost:1"]}).as_cluster_def()
        with lib.Session(targets[0], config=lib.ConfigProto(cluster_def=outside)) as s3:
            try:
                s3.run(lib.constant(1.0))
            except lib.errors.InvalidArgumentError as e:
                # TF 2.x's Python layer puts "Graph execution error:" in front.
                out["outside"] = e.message.split("\n\n")[-1].split(". ")[0]
    return out


def test_a_client_propagates_its_own_cluster_spec(tf1):
    ours = [ff.train.Server.create_local_server() for _ in range(2)]
    theirs = [tf1.train.Server.create_local_server() for _ in range(2)]
    try:
        got = run_with_propagated_cluster(ff, [s.target for s in ours])
    finally:
        for s in ours:
            s._stop()
    want = run_with_propagated_cluster(tf1, [s.target for s in theirs])
    outside = "The master (current machine) is not included in the provided cluster_def"
    assert got == want == {"z": 12.0, "second": "uninitialized", "outside": outside}
