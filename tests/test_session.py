"""Session.run: fetch structures, feeds, errors, defaults, threads and pruning."""

import collections
import threading

import numpy as np
import pytest

import ferroflow as ff


def test_nested_fetch_structures():
    a = ff.constant(1.0, name="a")
    b = ff.constant([2, 3], name="b")
    op = ff.no_op(name="noop")
    Pair = collections.namedtuple("Pair", ["x", "y"])
    fetches = {
        "list": [a, b, op],
        "tuple": (a,),
        "named": Pair(a, "b:0"),
        "ordered": collections.OrderedDict([("z", a), ("y", "noop")]),
    }
    with ff.Session() as sess:
        out = sess.run(fetches)
    assert out["list"][0] == 1.0 and isinstance(out["list"][0], np.float32)
    np.testing.assert_array_equal(out["list"][1], [2, 3])
    assert out["list"][2] is None
    assert out["tuple"] == (1.0,)
    assert isinstance(out["named"], Pair) and out["named"].x == 1.0
    np.testing.assert_array_equal(out["named"].y, [2, 3])
    assert isinstance(out["ordered"], collections.OrderedDict)
    assert list(out["ordered"]) == ["z", "y"] and out["ordered"]["y"] is None
    with ff.Session() as sess:
        assert sess.run("a:0") == 1.0
        assert sess.run("noop") is None
        assert sess.run([]) == []


def test_bad_fetches():
    ff.constant(1.0, name="a")
    with ff.Session() as sess:
        with pytest.raises(TypeError, match="Fetch argument None"):
            sess.run(None)
        with pytest.raises(TypeError, match="invalid type"):
            sess.run(12)
        with pytest.raises(ValueError, match="cannot be interpreted"):
            sess.run("nothere:0")
        with pytest.raises(ValueError):
            sess.run("a:5")


def test_feeds_are_checked_and_converted():
    p = ff.placeholder(ff.float32, [None, 2], name="p")
    s = ff.reduce_sum(p * 2.0)
    with ff.Session() as sess:
        assert sess.run(s, {p: [[1, 2], [3, 4]]}) == 20.0
        assert sess.run(s, {"p:0": np.ones((3, 2), np.float64)}) == 12.0
        with pytest.raises(
            ValueError,
            match=r"Cannot feed value of shape \(3,\) for Tensor "
            r"'p:0', which has shape '\(\?, 2\)'",
        ):
            sess.run(s, {p: [1.0, 2.0, 3.0]})
        with pytest.raises(TypeError, match=r"cannot be a tf\.Tensor"):
            sess.run(s, {p: ff.constant([[1.0, 2.0]])})
        with pytest.raises(ValueError):
            sess.run(s, {p: [["a", "b"]]})


def test_feeding_an_intermediate_tensor_cuts_its_producer():
    p = ff.placeholder(ff.float32, [], name="p")
    mid = p * 10.0
    out = mid + 1.0
    with ff.Session() as sess:
        # p is never fed: feeding `mid` prunes everything upstream of it.
        assert sess.run(out, {mid: 5.0}) == 6.0
        with pytest.raises(
            ff.errors.InvalidArgumentError,
            match="You must feed a value for placeholder tensor 'p' with dtype float and shape",
        ):
            sess.run(out)


def test_unfetched_branches_are_pruned():
    p = ff.placeholder(ff.float32, name="unused")
    _ = p + 1.0
    c = ff.constant(3.0) * 2.0
    with ff.Session() as sess:
        assert sess.run(c) == 6.0


def test_placeholder_with_default():
    d = ff.placeholder_with_default(ff.constant([1.0, 2.0]), shape=[None])
    with ff.Session() as sess:
        np.testing.assert_array_equal(sess.run(d), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(d, {d: [5.0, 6.0, 7.0]}), [5.0, 6.0, 7.0])


def test_closed_session_and_context_manager():
    c = ff.constant(1)
    sess = ff.Session()
    assert sess.run(c) == 1
    sess.close()
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(c)
    with ff.Session() as s2:
        assert ff.get_default_session() is s2
        assert c.eval() == 1
    assert ff.get_default_session() is None


def test_eval_and_run_need_a_matching_session():
    c = ff.constant(2.0)
    with pytest.raises(ValueError, match="No default session"):
        c.eval()
    other = ff.Graph()
    with other.as_default():
        other_sess = ff.Session()
    with pytest.raises(ValueError, match="graph is different"):
        c.eval(session=other_sess)
    v = ff.Variable(1.0)
    with ff.Session() as sess:
        v.initializer.run()
        assert v.eval() == 1.0
        assert sess.run(v) == 1.0


def test_interactive_session_installs_itself():
    c = ff.constant(4.0)
    sess = ff.InteractiveSession()
    try:
        assert ff.get_default_session() is sess
        assert c.eval() == 4.0
    finally:
        sess.close()
    assert ff.get_default_session() is None


def test_as_default_nesting_and_graph():
    g = ff.Graph()
    with g.as_default():
        c = ff.constant(1.0)
    sess = ff.Session(graph=g)
    assert sess.graph is g
    assert [n.name for n in sess.graph_def.node] == ["Const"]
    with sess.as_default():
        # As TF: `as_default` makes the session the default one, not its graph.
        assert ff.get_default_session() is sess
        assert ff.get_default_graph() is not g
        assert c.eval() == 1.0
    with sess:
        assert ff.get_default_graph() is g
    sess = ff.InteractiveSession(graph=ff.Graph())
    assert ff.get_default_graph() is sess.graph
    sess.close()


def test_an_interactive_session_dropped_unclosed_leaves_the_graph_stack(tf1):
    """TF's InteractiveSession enters the graph only when given one: dropping one
    without `close()` must not block `reset_default_graph` (it did here)."""
    import gc

    s1 = ff.InteractiveSession()
    with pytest.warns(UserWarning, match="An interactive session is already active"):
        s2 = ff.InteractiveSession()
    del s1, s2
    gc.collect()
    ff.reset_default_graph()
    while ff.get_default_session() is not None:
        ff.get_default_session().close()


def test_make_callable():
    p = ff.placeholder(ff.float32, [None])
    s = ff.reduce_sum(p)
    c = ff.constant(7)
    with ff.Session() as sess:
        f = sess.make_callable([s, c], feed_list=[p])
        out = f(np.arange(4, dtype=np.float32))
        assert out[0] == 6.0 and out[1] == 7
        g = sess.make_callable(c)
        assert g() == 7
        with pytest.raises(TypeError):
            f()


def test_config_proto_threads_and_concurrent_runs():
    config = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    p = ff.placeholder(ff.float64, [None])
    s = ff.reduce_sum(p * p)
    results = {}
    errors = []
    with ff.Session(config=config) as sess:

        def work(i):
            try:
                x = np.arange(i, dtype=np.float64)
                for _ in range(200):
                    results[i] = sess.run(s, {p: x})
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert not errors
    for i in range(8):
        assert results[i] == float(sum(k * k for k in range(i)))


def test_parallel_plan_gives_the_same_results():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 256)).astype(np.float32)
    a = ff.constant(x)
    branches = [ff.reduce_sum(ff.matmul(a, a) * float(i)) for i in range(4)]
    total = ff.add(ff.add(branches[0], branches[1]), ff.add(branches[2], branches[3]))
    config = ff.ConfigProto(inter_op_parallelism_threads=2)
    with ff.Session(config=config) as sess:
        plan = sess._plan_for(total, None).native
        assert plan.is_parallel
        got = sess.run(total)
    want = (x @ x).sum() * 6.0
    np.testing.assert_allclose(got, want, rtol=1e-3)
    with ff.Session(config=ff.ConfigProto(inter_op_parallelism_threads=1)) as sess:
        assert not sess._plan_for(total, None).native.is_parallel
        np.testing.assert_allclose(sess.run(total), got, rtol=1e-5)


def test_parallel_plan_with_a_blocking_dequeue():
    # The dequeue runs on the calling thread while the pool runs the other branches;
    # a producer feeding the queue later releases it, and a second dequeue in the same
    # run waits its turn.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 256)).astype(np.float32)
    q = ff.FIFOQueue(4, ff.float32, shapes=[[256, 256]])
    enqueue = q.enqueue(ff.constant(x))
    first, second = q.dequeue(), q.dequeue()
    a = ff.constant(x)
    branches = [ff.reduce_sum(ff.matmul(a, a) * float(i)) for i in range(3)]
    total = ff.add_n([*branches, ff.reduce_sum(ff.matmul(first, second))])
    config = ff.ConfigProto(inter_op_parallelism_threads=2)
    with ff.Session(config=config) as sess:
        assert sess._plan_for(total, None).native.is_parallel
        feeder = threading.Timer(0.2, lambda: [sess.run(enqueue) for _ in range(2)])
        feeder.start()
        got = sess.run(total, options=ff.RunOptions(timeout_in_ms=20000))
        feeder.join()
        with pytest.raises(ff.errors.DeadlineExceededError):
            sess.run(total, options=ff.RunOptions(timeout_in_ms=100))
    want = (x @ x).sum() * 4.0
    np.testing.assert_allclose(got, want, rtol=1e-3)


def test_concurrent_updates_of_shared_variables_from_parallel_plans():
    # Several threads train the same large variables (between-graph replicas hitting
    # one ps do this). Each update holds its variable's lock while it splits its work
    # over the pool; a pool thread waiting for its pieces must not start another run's
    # update of the same variable meanwhile, or both wait forever.
    n = 1 << 20
    config = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    vs = [ff.Variable(ff.zeros([n]), name=f"v{i}") for i in range(3)]
    grad = ff.ones([n])
    train = ff.group(
        *[ff.train.GradientDescentOptimizer(0.5).apply_gradients([(grad, v)]) for v in vs]
    )
    errors = []
    with ff.Session(config=config) as sess:
        sess.run(ff.global_variables_initializer())
        assert sess._plan_for(train, None).native.is_parallel

        def work():
            try:
                for _ in range(40):
                    sess.run(train, options=ff.RunOptions(timeout_in_ms=60000))
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "concurrent updates deadlocked"
        assert not errors
        for value in sess.run(vs):
            np.testing.assert_array_equal(value, np.full(n, -0.5 * 160, np.float32))


def test_fetched_arrays_are_writable_and_do_not_alias_state():
    v = ff.Variable([1.0, 2.0])
    with ff.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(v)
        got[0] = 100.0
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
        c = ff.constant([1.0, 2.0]) * 3.0
        arr = sess.run(c)
        arr += 1
        np.testing.assert_array_equal(sess.run(c), [3.0, 6.0])


def test_run_metadata_and_options_are_accepted():
    c = ff.constant(1.0)
    meta = ff.RunMetadata()
    with ff.Session() as sess:
        assert (
            sess.run(
                c, options=ff.RunOptions(trace_level=ff.RunOptions.FULL_TRACE), run_metadata=meta
            )
            == 1.0
        )


def test_gil_is_released_during_run():
    rng = np.random.default_rng(0)
    a = ff.constant(rng.normal(size=(512, 512)).astype(np.float32))
    prod = a
    for _ in range(12):
        prod = ff.matmul(prod, a) * 0.01
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(1)

    config = ff.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)
    with ff.Session(config=config) as sess:
        sess.run(prod)  # compile the plan first
        t = threading.Thread(target=spin)
        t.start()
        before = len(ticks)
        for _ in range(3):
            sess.run(prod)
        during = len(ticks) - before
        stop.set()
        t.join()
    # With the GIL held for the whole run the spinner could only run between runs.
    assert during > 1000


def test_fetched_results_are_zero_copy_when_unshared():
    x = ff.placeholder(ff.float32, [None])
    y = x * 2.0
    with ff.Session() as sess:
        out = sess.run(y, {x: np.arange(1000, dtype=np.float32)})
    assert type(out.base).__name__ == "_TensorBuffer"
    assert out.flags.writeable and out.flags.c_contiguous
    np.testing.assert_array_equal(out, np.arange(1000) * 2.0)


def test_session_rules_as_tf():
    """TF's errors: an empty graph cannot run, `with sess:` is not re-entrant."""
    with pytest.raises(RuntimeError, match="The Session graph is empty"):
        ff.Session(graph=ff.Graph()).run([])
    sess = ff.Session()
    ff.constant(1.0)
    with sess:
        with pytest.raises(RuntimeError, match="not re-entrant"):
            with sess:
                pass
    first = ff.InteractiveSession()
    first.close()
    second = ff.InteractiveSession()  # one closed before: no warning
    second.close()


def test_names_as_byte_strings_work_as_in_tf():
    c = ff.constant(42.0, name="c")
    e = ff.constant(44.0, name=b"e")
    assert isinstance(e.name, str) and e.name == "e:0"
    with ff.Session() as sess:
        assert sess.run(b"c:0") == 42.0
        assert sess.run([b"c:0", "e:0"]) == [42.0, 44.0]
    assert c.graph.as_graph_element(b"e") is e.op
