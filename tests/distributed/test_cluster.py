"""Between-graph replication over a real cluster on loopback: a ps task and two
worker tasks, each a `tf.train.Server`; each worker builds its own graph with
`replica_device_setter`, so variables live on the ps and steps are partitioned
across tasks (`RegisterGraph`/`RunGraph`, `_Send`/`_Recv` pairs, `RecvTensor`).
Also with TensorFlow's server as the ps task (a mixed cluster).
"""

import threading

import numpy as np
import pytest

import ferroflow as ff
from conftest import free_ports


def make_cluster():
    ps, w0, w1 = free_ports(3)
    return {"ps": [f"localhost:{ps}"], "worker": [f"localhost:{w0}", f"localhost:{w1}"]}


DATA_X = np.random.default_rng(0).normal(size=(64, 3)).astype(np.float32)
DATA_Y = DATA_X @ np.array([[1.0], [-2.0], [0.5]], np.float32)


def build_model(tf, cluster, task):
    with tf.device(
        tf.train.replica_device_setter(worker_device=f"/job:worker/task:{task}", cluster=cluster)
    ):
        step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(tf.zeros([3, 1]), name="w")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)
        init = tf.global_variables_initializer()
    return x, y, w, loss, train, init, step


def train_worker(tf, cluster, target, task, steps, losses, initialize=False):
    """Trains `steps` steps as worker `task` (initializing the variables first when
    `initialize`: only the chief's first call does, before any worker trains, so no
    worker's steps are undone by a later initialization)."""
    g = tf.Graph()
    with g.as_default():
        x, y, _, loss, train, init, _ = build_model(tf, cluster, task)
        with tf.Session(target) as sess:
            if initialize:
                sess.run(init)
            for _ in range(steps):
                sess.run(train, {x: DATA_X, y: DATA_Y})
            losses[task] = sess.run(loss, {x: DATA_X, y: DATA_Y})


def run_in_threads(target, arg_lists, timeout=120):
    """Runs `target(*args)` for each argument list on its own thread, all at once."""
    threads = [threading.Thread(target=target, args=args) for args in arg_lists]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads)


def start_cluster(cluster):
    return [ff.train.Server(cluster, job_name="ps", task_index=0)] + [
        ff.train.Server(cluster, job_name="worker", task_index=i) for i in range(2)
    ]


def test_placement_puts_variables_on_the_ps():
    cluster = make_cluster()
    servers = start_cluster(cluster)
    try:
        x, y, w, loss, train, init, step = build_model(ff, cluster, 0)
        assert w.device == "/job:ps/task:0"
        with ff.Session(servers[1].target) as sess:
            sess.run(init)
            before = sess.run(loss, {x: DATA_X, y: DATA_Y})
            sess.run(train, {x: DATA_X, y: DATA_Y})
            assert sess.run(loss, {x: DATA_X, y: DATA_Y}) < before
            assert sess.run(step) == 1
            names = [d.name for d in sess.list_devices()]
        assert "/job:ps/replica:0/task:0/device:CPU:0" in names
        assert "/job:worker/replica:0/task:0/device:CPU:0" in names
        # The variable lives on the ps: a session on the ps task sees the update.
        g = ff.Graph()
        with g.as_default(), ff.device("/job:ps/task:0"):
            step_on_ps = ff.train.get_or_create_global_step()
            with ff.Session(servers[0].target) as sess:
                assert sess.run(step_on_ps) == 1
    finally:
        for s in servers:
            s._stop()


def test_two_workers_train_one_model_on_a_ps():
    cluster = make_cluster()
    servers = start_cluster(cluster)
    try:
        losses = {}
        train_worker(ff, cluster, servers[1].target, 0, 0, losses, initialize=True)
        run_in_threads(
            train_worker, [(ff, cluster, servers[1 + i].target, i, 40, losses) for i in range(2)]
        )
        g = ff.Graph()
        with g.as_default():
            x, y, _, loss, _, _, step = build_model(ff, cluster, 0)
            with ff.Session(servers[1].target) as sess:
                assert sess.run(step) == 80  # both workers' steps went to one global step
                assert sess.run(loss, {x: DATA_X, y: DATA_Y}) < 0.05
    finally:
        for s in servers:
            s._stop()


def test_device_filters_limit_the_tasks_a_session_waits_for():
    cluster = make_cluster()
    # Worker 1 never starts: a session filtered to the ps and itself does not wait.
    servers = [
        ff.train.Server(cluster, job_name="ps", task_index=0),
        ff.train.Server(cluster, job_name="worker", task_index=0),
    ]
    try:
        with ff.device("/job:ps/task:0"):
            v = ff.Variable(2.0)
        config = ff.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"])
        with ff.Session(servers[1].target, config=config) as sess:
            sess.run(v.initializer)
            assert sess.run(v * 3.0) == 6.0
        # Without filters the session waits for every task, up to its operation timeout.
        config = ff.ConfigProto(operation_timeout_in_ms=1000)
        with ff.Session(servers[1].target, config=config) as sess:
            with pytest.raises(ff.errors.UnavailableError, match="task:1"):
                sess.run(v)
    finally:
        for s in servers:
            s._stop()


def test_a_failing_step_on_one_task_fails_the_run_and_cancels_the_others():
    cluster = make_cluster()
    servers = start_cluster(cluster)
    try:
        with ff.device("/job:ps/task:0"):
            v = ff.Variable(1.0, name="never_init")
            q = ff.FIFOQueue(1, [ff.float32], name="q_ps")
        with ff.device("/job:worker/task:0"):
            blocked = q.dequeue() + 1.0
            uses_v = v * 2.0
        with ff.Session(servers[1].target) as sess:
            with pytest.raises(ff.errors.FailedPreconditionError):
                sess.run([uses_v, blocked])
    finally:
        for s in servers:
            s._stop()


def _mixed_cluster(ps_lib, worker_lib):
    """A ps task of `ps_lib` and two workers of `worker_lib` training one model: each
    worker's graph and client are its library's, and the shared global step is read
    back on the ps with the ps's library."""
    cluster = make_cluster()
    ps = ps_lib.train.Server(cluster, job_name="ps", task_index=0)
    workers = [worker_lib.train.Server(cluster, job_name="worker", task_index=i) for i in range(2)]
    try:
        losses = {}
        train_worker(worker_lib, cluster, workers[0].target, 0, 0, losses, initialize=True)
        run_in_threads(
            train_worker,
            [(worker_lib, cluster, workers[i].target, i, 20, losses) for i in range(2)],
        )
        assert losses[0] < 0.5 and losses[1] < 0.5
        g = ps_lib.Graph()
        with g.as_default(), ps_lib.device("/job:ps/task:0"):
            step = ps_lib.train.get_or_create_global_step()
            with ps_lib.Session(ps.target) as sess:
                assert sess.run(step) == 40
    finally:
        # TensorFlow's servers cannot be stopped; ferroflow's are, so their ports free.
        for server in [ps, *workers]:
            if hasattr(server, "_stop"):
                server._stop()


def test_a_mixed_cluster_tensorflow_ps_and_ferroflow_workers(tf1):
    """ferroflow's masters partition the graph and drive TensorFlow's ps task."""
    _mixed_cluster(tf1, ff)


def test_tensorflow_workers_drive_a_ferroflow_ps(tf1):
    """TensorFlow's master partitions the graph and drives a ferroflow ps task over
    TF's WorkerService (RegisterGraph/RunGraph/RecvTensor both ways); the variables
    live in the ferroflow ps's containers."""
    _mixed_cluster(ff, tf1)


def _supervised_worker(cluster, target, task, logdir, steps, results):
    g = ff.Graph()
    with g.as_default():
        x, y, _, loss, train, _, step = build_model(ff, cluster, task)
        sv = ff.train.Supervisor(
            is_chief=(task == 0),
            logdir=logdir,
            global_step=step,
            save_model_secs=0,
            save_summaries_secs=0,
            recovery_wait_secs=0.2,
        )
        with sv.managed_session(target) as sess:
            while not sv.should_stop() and sess.run(step) < steps:
                sess.run(train, {x: DATA_X, y: DATA_Y})
            results[task] = sess.run(loss, {x: DATA_X, y: DATA_Y})
            if task == 0:
                sv.saver.save(sess, sv.save_path, global_step=step)
        if task == 0:
            # The session's exit stopped the Supervisor and closed the chief's summary
            # writer: as TF's, a second stop warns that its STOP event is dropped.
            with pytest.warns(UserWarning, match="closed FileWriter"):
                sv.stop()
        else:
            sv.stop()


def test_supervisor_chief_and_non_chief(tmp_path):
    cluster = make_cluster()
    servers = start_cluster(cluster)
    try:
        results = {}
        # the non-chief starts first and waits for the chief
        run_in_threads(
            _supervised_worker,
            [(cluster, servers[1 + i].target, i, str(tmp_path), 60, results) for i in (1, 0)],
        )
        assert results[0] < 0.05 and results[1] < 0.05
        assert ff.train.latest_checkpoint(str(tmp_path)) is not None
        reader = ff.train.NewCheckpointReader(ff.train.latest_checkpoint(str(tmp_path)))
        assert reader.get_tensor("global_step") >= 60
    finally:
        for s in servers:
            s._stop()


def _monitored_worker(cluster, target, task, checkpoint_dir, steps, results):
    g = ff.Graph()
    with g.as_default():
        x, y, _, loss, train, _, _ = build_model(ff, cluster, task)
        hooks = [ff.train.StopAtStepHook(last_step=steps)]
        with ff.train.MonitoredTrainingSession(
            master=target,
            is_chief=(task == 0),
            checkpoint_dir=checkpoint_dir if task == 0 else None,
            hooks=hooks,
            save_summaries_steps=None,
            save_summaries_secs=None,
            log_step_count_steps=None,
        ) as sess:
            last = None
            while not sess.should_stop():
                _, last = sess.run([train, loss], {x: DATA_X, y: DATA_Y})
        results[task] = last


def test_monitored_training_session_chief_and_non_chief(tmp_path):
    cluster = make_cluster()
    servers = start_cluster(cluster)
    try:
        results = {}
        run_in_threads(
            _monitored_worker,
            [(cluster, servers[1 + i].target, i, str(tmp_path), 60, results) for i in (0, 1)],
        )
        assert results[0] < 0.1 and results[1] < 0.1
        assert ff.train.latest_checkpoint(str(tmp_path)) is not None
    finally:
        for s in servers:
            s._stop()


def _loop_on_the_ps(tf, target):
    """A while_loop (and its gradient) placed on the ps task, fed and fetched by a
    session on worker 0; a variable on the worker is captured by the body."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [3], name="x")
            w = tf.Variable([0.5, -1.0, 2.0], name="w")
        with tf.device("/job:ps/task:0"):
            i0 = tf.constant(0)
            _, acc = tf.while_loop(
                lambda i, a: i < 4, lambda i, a: (i + 1, a * 1.5 + x * w), [i0, tf.zeros([3])]
            )
            loss = tf.reduce_sum(acc * acc)
            grads = tf.gradients(loss, [x, w])
        # Only the two tasks this graph uses (worker 1 is not started for TF).
        config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"])
        with tf.Session(target, config=config) as sess:
            sess.run(w.initializer)
            return sess.run([acc, loss, *grads], {x: [1.0, 2.0, 3.0]})


def test_a_while_loop_placed_on_another_task_runs_there(tf1):
    cluster = make_cluster()
    servers = start_cluster(cluster)
    try:
        ours = _loop_on_the_ps(ff, servers[1].target)
    finally:
        for s in servers:
            s._stop()
    tf_servers = [
        tf1.train.Server(cluster, job_name="ps", task_index=0),
        tf1.train.Server(cluster, job_name="worker", task_index=0),
    ]
    del tf_servers  # TF's servers serve until the process ends
    theirs = _loop_on_the_ps(tf1, f"grpc://{cluster['worker'][0]}")
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_a_loop_body_updating_state_on_another_task_is_unimplemented():
    cluster = make_cluster()
    servers = start_cluster(cluster)
    try:
        g = ff.Graph()
        with g.as_default():
            with ff.device("/job:worker/task:0"):
                counter = ff.Variable(0, name="counter")
            with ff.device("/job:ps/task:0"):
                out = ff.while_loop(lambda i: i < 3, lambda i: i + counter.assign_add(1), [0])
            with ff.Session(servers[1].target) as sess:
                sess.run(counter.initializer)
                with pytest.raises(ff.errors.UnimplementedError, match="runs a loop's body"):
                    sess.run(out)
    finally:
        for s in servers:
            s._stop()


def test_isolated_sessions_of_a_cluster_keep_their_variables_apart():
    """`isolate_session_state` reaches every task (`CreateWorkerSession`): a variable
    on the ps made by one worker's isolated session is not another's, while sessions
    that share state see one variable."""
    cluster = make_cluster()
    servers = start_cluster(cluster)
    try:

        def session_value(task, isolate, value):
            g = ff.Graph()
            with g.as_default(), ff.device("/job:ps/task:0"):
                v = ff.Variable(0.0, name="iso_w")
                assign = ff.assign(v, value)
            config = ff.ConfigProto(isolate_session_state=isolate)
            sess = ff.Session(servers[1 + task].target, graph=g, config=config)
            sess.run(assign)
            return sess, v

        a, va = session_value(0, True, 1.0)
        b, vb = session_value(1, True, 2.0)
        assert (a.run(va), b.run(vb)) == (1.0, 2.0)
        c, vc = session_value(0, False, 3.0)
        d, vd = session_value(1, False, 4.0)
        assert (c.run(vc), d.run(vd)) == (4.0, 4.0)
        assert (a.run(va), b.run(vb)) == (1.0, 2.0)
        for s in (a, b, c, d):
            s.close()
    finally:
        for s in servers:
            s._stop()
