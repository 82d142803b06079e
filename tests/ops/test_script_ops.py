"""`tf.py_func` / `tf.numpy_function`, compared with TensorFlow: values, dtypes, the
graph they build, run-time errors; and the kernel's GIL handling from several threads,
queue runners and a training step."""

import gc
import os
import re
import signal
import threading
import time

import numpy as np
import pytest

import ferroflow as ff
from ferroflow.ops import script_ops


def _outcome(lib, build):
    """(value, None) of running `build(lib)` in a fresh graph, or (None, error)."""
    g = lib.Graph()
    with g.as_default():
        fetches = build(lib)
        with lib.Session(graph=g) as sess:
            try:
                return sess.run(fetches), None
            except lib.errors.OpError as e:
                return None, e


def _tokenless(message):
    return re.sub(r"pyfunc_\d+", "pyfunc_N", message)


def _raises(exc):
    def f(*_):
        raise exc

    return f


CASES = {
    "single": (lambda x: x * 2, lambda lib: [lib.constant([1.0, 2.0])], "float32"),
    "list_of_one": (lambda x: x * 2, lambda lib: [lib.constant([1.0, 2.0])], ["float32"]),
    "two": (
        lambda x, y: (x + y, (x > 1).astype(np.int32)),
        lambda lib: [lib.constant([1.0, 2.0]), lib.constant(3.0)],
        ["float32", "int32"],
    ),
    "numpy_scalar_out": (lambda x: [x, np.int32(3)], lambda lib: [1.0], ["float32", "int32"]),
    "python_int_is_int64": (lambda x: 3, lambda lib: [1.0], "int64"),
    "python_float_is_double": (lambda x: 3.0, lambda lib: [1.0], "float64"),
    "scalar_in_is_numpy_scalar": (
        lambda x: repr((type(x).__name__, x.dtype.name)).encode(),
        lambda lib: [lib.constant(3.0)],
        "string",
    ),
    "strings": (lambda x: x, lambda lib: [lib.constant([b"a", b"bcd"])], "string"),
    "string_scalar_in_is_bytes": (
        lambda x: repr(type(x).__name__),
        lambda lib: [lib.constant(b"ab")],
        "string",
    ),
    "text_out_is_utf8": (lambda: "h\u00e9llo", lambda lib: [], "string"),
    "bytes_out": (lambda: b"xy", lambda lib: [], "string"),
    "string_matrix_out": (
        lambda: np.array([["a", "bb"], ["ccc", ""]]),
        lambda lib: [],
        ["string"],
    ),
    "bool": (lambda x: x > 1, lambda lib: [lib.constant([1.0, 2.0])], "bool"),
    "uint8": (lambda x: x + 1, lambda lib: [lib.constant([1, 2], lib.uint8)], "uint8"),
    "float16": (lambda x: x + 1, lambda lib: [lib.constant([1, 2], lib.float16)], "float16"),
    "int64_and_double": (
        lambda a, b: (a * 2, b / 2),
        lambda lib: [lib.constant([1, 2], lib.int64), lib.constant([3.0], lib.float64)],
        ["int64", "float64"],
    ),
    "inputs_writable": (
        lambda x: np.float32(x.flags.writeable),
        lambda lib: [lib.constant([1.0]) * 2],
        "float32",
    ),
    "tuple_of_one": (lambda x: (x,), lambda lib: [lib.constant([1.0, 2.0])], "float32"),
    "none_for_no_outputs": (lambda x: None, lambda lib: [1.0], []),
    "empty_list_for_no_outputs": (lambda x: [], lambda lib: [1.0], []),
    "non_contiguous_out": (
        lambda x: x.T,
        lambda lib: [lib.constant(np.arange(6, dtype=np.float32).reshape(2, 3))],
        "float32",
    ),
    # Run-time errors.
    "double_for_float": (lambda x: x.astype(np.float64), lambda lib: [[1.0]], "float32"),
    "python_float_for_float": (lambda x: 3.0, lambda lib: [1.0], "float32"),
    "int16_for_float": (lambda x: x.astype(np.int16), lambda lib: [[1.0]], "float32"),
    "string_for_float": (lambda x: b"s", lambda lib: [1.0], "float32"),
    "two_for_one": (lambda x: (x, x), lambda lib: [1.0], ["float32"]),
    "one_for_two": (lambda x: x, lambda lib: [1.0], ["float32", "float32"]),
    "list_for_one": (lambda x: [1.0, 2.0], lambda lib: [1.0], "float32"),
    "none_for_one": (lambda x: None, lambda lib: [1.0], ["float32"]),
    "value_for_none": (lambda x: x, lambda lib: [1.0], []),
    "object_out": (lambda x: object(), lambda lib: [1.0], "float32"),
    "raises_value_error": (_raises(ValueError("bad v")), lambda lib: [1.0], "float32"),
    "raises_type_error": (_raises(TypeError("bad t")), lambda lib: [1.0], "float32"),
    "raises_runtime_error": (_raises(RuntimeError("rt")), lambda lib: [1.0], "float32"),
    "raises_stop_iteration": (_raises(StopIteration()), lambda lib: [1.0], "float32"),
    "raises_memory_error": (_raises(MemoryError("m")), lambda lib: [1.0], "float32"),
    "raises_not_implemented": (_raises(NotImplementedError("ni")), lambda lib: [1.0], "float32"),
    "raises_key_error": (_raises(KeyError("k")), lambda lib: [1.0], "float32"),
    "raises_keyboard_interrupt": (_raises(KeyboardInterrupt("kb")), lambda lib: [1.0], "float32"),
}


@pytest.mark.parametrize("stateful", [True, False])
@pytest.mark.parametrize("case", sorted(CASES))
def test_py_func_matches_tensorflow(tf1, case, stateful):
    func, inputs, tout = CASES[case]

    def build(lib):
        types = [lib.as_dtype(t) for t in tout] if isinstance(tout, list) else lib.as_dtype(tout)
        return lib.py_func(func, inputs(lib), types, stateful=stateful)

    want, tf_error = _outcome(tf1, build)
    got, ff_error = _outcome(ff, build)
    if tf_error is not None:
        assert ff_error is not None, f"TF raised {tf_error!r}, ferroflow returned {got!r}"
        assert type(ff_error).__name__ == type(tf_error).__name__
        assert ff_error.error_code == tf_error.error_code
        # TF's message wraps the kernel's; ours is the kernel's (first line compared).
        first_line = _tokenless(ff_error.message).splitlines()[0]
        assert first_line in _tokenless(tf_error.message)
        assert ff_error.op.type == ("PyFunc" if stateful else "PyFuncStateless")
        return
    assert ff_error is None, ff_error
    want_list = want if isinstance(want, list) else [want]
    got_list = got if isinstance(got, list) else [got]
    assert len(got_list) == len(want_list)
    for g, w in zip(got_list, want_list, strict=True):
        assert type(g) is type(w)
        if isinstance(w, np.ndarray | np.generic):
            assert g.dtype == w.dtype
            assert np.shape(g) == np.shape(w)
            np.testing.assert_array_equal(g, w)
        else:
            assert g == w


def test_exception_message_starts_with_the_class_and_has_the_traceback():
    def fails(x):
        raise ValueError("bad value")

    y = ff.py_func(fails, [1.0], ff.float32)
    with ff.Session() as sess, pytest.raises(ff.errors.InvalidArgumentError) as e:
        sess.run(y)
    assert e.value.message.startswith("ValueError: bad value\nTraceback (most recent call last):")
    assert "in fails" in e.value.message
    assert e.value.op is y.op


def test_graph_matches_tensorflow(tf1):
    def build(lib):
        v = lib.Variable([1.0, 2.0], name="v")
        a = lib.py_func(lambda x, y, z: x, [v, 1.0, np.int32(3)], lib.float32)
        b = lib.py_func(lambda x: x, [[1, 2]], [lib.int32], stateful=False, name="mine")
        with lib.name_scope("sc"):
            c = lib.numpy_function(lambda: np.float32(1), [], lib.float32)
        d = lib.py_func(lambda: None, [], [])
        return a, b, c, d

    (g_tf, (a1, b1, c1, d1)), (g_ff, (a2, b2, c2, d2)) = (
        _built(tf1, build),
        _built(ff, build),
    )
    assert [a2.name, b2[0].name, c2.name, d2.name] == [a1.name, b1[0].name, c1.name, d1.name]
    assert isinstance(d2, ff.Operation) and isinstance(b2, list)
    assert a2.shape.ndims is None and b2[0].shape.ndims is None

    def nodes(g):
        out = {}
        for n in g.as_graph_def().node:
            attrs = {k: n.attr[k] for k in ("Tin", "Tout") if k in n.attr}
            out[n.name] = (
                n.op,
                list(n.input),
                {k: list(v.list.type) for k, v in attrs.items()},
                n.attr["token"].s.startswith(b"pyfunc_") if "token" in n.attr else None,
            )
        return out

    assert nodes(g_ff) == nodes(g_tf)


def _built(lib, build):
    g = lib.Graph()
    with g.as_default():
        return g, build(lib)


def test_not_differentiable_as_in_tensorflow(tf1):
    def build(lib):
        x = lib.constant([1.0, 2.0])
        y = lib.py_func(lambda a: a * 3, [x], lib.float32)
        return lib.gradients(lib.reduce_sum(y * x), [x])

    (_, grads_tf), (_, grads_ff) = _built(tf1, build), _built(ff, build)
    assert (grads_ff[0] is None) == (grads_tf[0] is None)
    want = run_tf_value(tf1, build)
    with ff.Session(graph=grads_ff[0].graph) as sess:
        np.testing.assert_allclose(sess.run(grads_ff), want)


def run_tf_value(tf1, build):
    g = tf1.Graph()
    with g.as_default():
        out = build(tf1)
        with tf1.Session(graph=g) as sess:
            return sess.run(out)


def test_argument_errors_match_tensorflow(tf1):
    def first_error(lib, call):
        g = lib.Graph()
        with g.as_default():
            try:
                call(lib)
            except Exception as e:
                return type(e), str(e)
        raise AssertionError("no error")

    calls = [
        lambda lib: lib.py_func(3, [1.0], lib.float32),
        lambda lib: lib.numpy_function(lambda x: x, None, lib.float32),
        lambda lib: lib.numpy_function(lambda x: x, [1.0], None),
        lambda lib: lib.numpy_function(None, [1.0], lib.float32),
        lambda lib: lib.py_func(lambda x: x, [object()], lib.float32),
        lambda lib: lib.py_func(lambda x: x, [1.0, object()], lib.float32),
    ]
    for call in calls:
        tf_cls, tf_text = first_error(tf1, call)
        ff_cls, ff_text = first_error(ff, call)
        assert ff_cls.__name__ == tf_cls.__name__
        # The object's address differs between the two runs.
        assert re.sub(r"0x[0-9a-f]+", "0x", ff_text) == re.sub(r"0x[0-9a-f]+", "0x", tf_text)


def test_numpy_function_as_decorator(tf1):
    def build(lib):
        @lib.numpy_function(Tout=lib.float32)
        def sinh(x):
            return np.sinh(x)

        return sinh(lib.constant([0.5, 1.0]))

    (_, y_tf), (_, y_ff) = _built(tf1, build), _built(ff, build)
    assert y_ff.op.type == y_tf.op.type == "PyFunc"
    got = _outcome(ff, build)[0]
    np.testing.assert_allclose(got, _outcome(tf1, build)[0])


def test_builtin_callables_and_methods():
    class Scaler:
        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x * self.k

        def scale(self, x):
            return x * self.k

    x = ff.constant([1.0, 4.0])
    a = ff.py_func(np.sqrt, [x], ff.float32)  # a ufunc: not weakly referable
    b = ff.py_func(Scaler(3.0), [x], ff.float32)
    c = ff.py_func(Scaler(0.5).scale, [x], ff.float32)
    gc.collect()
    with ff.Session() as sess:
        got = sess.run([a, b, c])
    np.testing.assert_allclose(got, [[1.0, 2.0], [3.0, 12.0], [0.5, 2.0]])


def test_registry_entries_go_with_their_graph():
    gc.collect()  # the graphs of earlier tests
    before = script_ops._py_funcs.size()
    g = ff.Graph()
    with g.as_default():
        y = ff.py_func(lambda x: x + 1, [1.0], ff.float32)
    token = y.op.get_attr("token")
    token = token.decode() if isinstance(token, bytes) else token
    assert script_ops._py_funcs.get(token) is not None
    assert script_ops._py_funcs.size() == before + 1
    del g, y
    gc.collect()
    assert script_ops._py_funcs.get(token) is None
    assert script_ops._py_funcs.size() == before


def test_a_function_whose_graph_is_gone_is_a_tensorflow_error():
    # A GraphDef imported into another graph names a token nobody registered here.
    g = ff.Graph()
    with g.as_default():
        ff.py_func(lambda x: x + 1, [1.0], ff.float32, name="f")
    graph_def = g.as_graph_def()
    del g
    gc.collect()
    with ff.Graph().as_default():
        (y,) = ff.import_graph_def(graph_def, return_elements=["f:0"], name="")
        with ff.Session() as sess, pytest.raises(ff.errors.InvalidArgumentError) as e:
            sess.run(y)
    pattern = r"ValueError: Could not find callback with key=pyfunc_\d+ in the registry"
    assert re.match(pattern, e.value.message)


@pytest.mark.timeout(60)
def test_concurrent_session_runs_share_the_function():
    seen = set()
    lock = threading.Lock()

    def work(x):
        with lock:
            seen.add(threading.get_ident())
        time.sleep(0.001)  # lets the GIL go to another thread mid-call
        return (x * 2).astype(np.float32)

    p = ff.placeholder(ff.float32, [None])
    y = ff.py_func(work, [p], ff.float32)
    z = y + 1.0
    errors = []

    def runner(sess, k):
        try:
            for i in range(40):
                v = np.full(3, k * 100 + i, np.float32)
                np.testing.assert_array_equal(sess.run(z, {p: v}), v * 2 + 1)
        except Exception as e:
            errors.append(e)

    with ff.Session() as s1, ff.Session() as s2:
        threads = [threading.Thread(target=runner, args=((s1, s2)[k % 2], k)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    assert len(seen) == 8


@pytest.mark.timeout(60)
def test_parallel_plan_runs_py_funcs_on_pool_threads():
    # Several independent large branches make the plan parallel: some py_funcs run on
    # pool workers (without the GIL until the kernel takes it).
    threads = set()

    def scale(a, k):
        threads.add(threading.get_ident())
        return a * k

    x = ff.constant(np.ones((512, 512), np.float32))
    outs = [
        ff.reduce_sum(ff.py_func(lambda a, k=k: scale(a, k), [ff.matmul(x, x)], ff.float32))
        for k in range(4)
    ]
    config = ff.ConfigProto(inter_op_parallelism_threads=2)
    with ff.Session(config=config) as sess:
        for _ in range(3):
            got = sess.run(outs)
            np.testing.assert_allclose(got, [512.0 * 512 * 512 * k for k in range(4)])
    assert threads - {threading.get_ident()}, "no py_func ran on a pool thread"


@pytest.mark.timeout(60)
def test_queue_runner_threads_call_python():
    counter = iter(range(1000))

    def next_batch():
        i = next(counter)
        return np.full(2, i, np.int64), f"item{i}".encode()

    values, names = ff.py_func(next_batch, [], [ff.int64, ff.string])
    q = ff.FIFOQueue(10, [ff.int64, ff.string], shapes=[[2], []])
    enqueue = q.enqueue([values, names])
    qr = ff.train.QueueRunner(q, [enqueue] * 2)
    ff.train.add_queue_runner(qr)
    got = q.dequeue()
    with ff.Session() as sess:
        coord = ff.train.Coordinator()
        threads = ff.train.start_queue_runners(sess, coord=coord)
        items = [sess.run(got) for _ in range(30)]
        coord.request_stop()
        sess.run(q.close(cancel_pending_enqueues=True))
        coord.join(threads)
    ids = sorted(int(v[0]) for v, _ in items)
    assert len(set(ids)) == 30
    for v, name in items:
        assert name == f"item{int(v[0])}".encode()


@pytest.mark.timeout(60)
def test_stop_iteration_ends_queue_runner_cleanly():
    data = iter([1.0, 2.0, 3.0])

    def read():
        return np.float32(next(data))  # StopIteration -> OutOfRangeError, as TF

    q = ff.FIFOQueue(10, [ff.float32], shapes=[[]])
    qr = ff.train.QueueRunner(q, [q.enqueue(ff.py_func(read, [], ff.float32))])
    ff.train.add_queue_runner(qr)
    with ff.Session() as sess:
        coord = ff.train.Coordinator()
        threads = ff.train.start_queue_runners(sess, coord=coord)
        # The runner closes the queue when its enqueue op is out of range.
        assert sorted(sess.run(q.dequeue_many(3))) == [1.0, 2.0, 3.0]
        with pytest.raises(ff.errors.OutOfRangeError):
            sess.run(q.dequeue())
        assert not coord.should_stop() and not qr.exceptions_raised
        coord.request_stop()
        coord.join(threads)


def test_training_step_with_numpy_augmentation(tf1):
    rng = np.random.default_rng(0)
    images = rng.normal(size=(16, 4, 4, 1)).astype(np.float32)
    labels = rng.normal(size=(16, 1)).astype(np.float32)

    def augment(x):
        return np.ascontiguousarray(x[:, :, ::-1, :] * 0.5)  # mirror and scale, in numpy

    def train(lib):
        g = lib.Graph()
        with g.as_default():
            lib.set_random_seed(1)
            p = lib.placeholder(lib.float32, [None, 4, 4, 1])
            y = lib.placeholder(lib.float32, [None, 1])
            aug = lib.py_func(augment, [p], lib.float32, stateful=False)
            aug.set_shape([None, 4, 4, 1])
            flat = lib.reshape(aug, [-1, 16])
            w = lib.Variable(np.full((16, 1), 0.1, np.float32), name="w")
            loss = lib.reduce_mean(lib.square(lib.matmul(flat, w) - y))
            step = lib.train.GradientDescentOptimizer(0.1).minimize(loss)
            losses = []
            with lib.Session(graph=g) as sess:
                sess.run(lib.global_variables_initializer())
                for _ in range(5):
                    _, value = sess.run([step, loss], {p: images, y: labels})
                    losses.append(value)
                return losses, sess.run(w)

    want_losses, want_w = train(tf1)
    got_losses, got_w = train(ff)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-5)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-6)
    assert got_losses[-1] < got_losses[0]


def test_ctrl_c_inside_the_function_is_an_error_not_a_hang():
    def interrupted(x):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)  # the handler raises KeyboardInterrupt here
        return x

    y = ff.py_func(interrupted, [1.0], ff.float32)
    with ff.Session() as sess:
        with pytest.raises(ff.errors.UnknownError, match=r"^KeyboardInterrupt"):
            sess.run(y)
        assert sess.run(ff.constant(2.0)) == 2.0  # the session still works


def test_meta_graph_carries_tensorflows_op_defs(tf1):
    from tensorflow.python.framework import op_def_registry

    from ferroflow.framework import meta_graph

    ff.py_func(lambda x: x, [1.0], ff.float32)
    ff.py_func(lambda x: x, [1.0], ff.float32, stateful=False)
    ops = meta_graph.stripped_op_list_for_graph(ff.get_default_graph().as_graph_def()).op
    by_name = {op.name: op for op in ops}
    for name in ("PyFunc", "PyFuncStateless"):
        want = op_def_registry.get(name)
        assert by_name[name].SerializeToString() == want.SerializeToString()
