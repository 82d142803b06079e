"""`tf.while_loop`, `tf.map_fn`, `tf.foldl`, `tf.foldr`, `tf.scan` and `tf.TensorArray`,
compared with TensorFlow (TF-1.x control flow: the same programs built with
`tensorflow.compat.v1`).

Values, dtypes, static shapes and nested structures; `maximum_iterations` and
`shape_invariants` (TF's build-time errors); captured tensors and variables;
gradients through loops (nested loops and variables read in a loop included)
against TF's and central finite differences; stopping a loop that never ends.
"""

import collections
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff
from conftest import run_ff, run_tf
from gradcheck import check_against_tf, check_finite_differences


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


def both(tf, build, feeds=None):
    return run_tf(tf, build, feeds), run_ff(build, feeds)


def _feeds(values):
    def make(g):
        return {g.get_tensor_by_name(k): v for k, v in values.items()}

    return make


def assert_close(a, b, rtol=1e-5, atol=1e-6):
    if isinstance(a, dict):
        assert sorted(a) == sorted(b)
        for k in a:
            assert_close(a[k], b[k], rtol, atol)
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b, strict=True):
            assert_close(x, y, rtol, atol)
    else:
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=rtol, atol=atol)
        assert np.asarray(a).dtype == np.asarray(b).dtype
        assert np.asarray(a).shape == np.asarray(b).shape


def static_shapes(tf, build):
    out = {}
    for lib in (tf, ff):
        g = lib.Graph()
        with g.as_default():
            r = build(lib)
            flat = r if isinstance(r, list | tuple) else [r]
            out[lib] = [t.shape.as_list() if t.shape.ndims is not None else None for t in flat]
    return out[tf], out[ff]


# -- forward values -------------------------------------------------------------------
def test_counter_and_sum(tf):
    def build(lib):
        i = lib.constant(0)
        s = lib.constant(0.0)
        return lib.while_loop(
            lambda i, s: i < 10, lambda i, s: (i + 1, s + lib.cast(i, lib.float32)), [i, s]
        )

    a, b = both(tf, build)
    assert_close(a, b)


def test_single_loop_var_is_unpacked(tf):
    def build(lib):
        x = lib.constant(1.0)
        r = lib.while_loop(lambda x: x < 100.0, lambda x: x * 3.0, [x])
        assert not isinstance(r, list | tuple)
        same = lib.while_loop(
            lambda x: x < 100.0, lambda x: [x * 3.0], [x], return_same_structure=True
        )
        assert isinstance(same, list)
        return [r, same[0]]

    a, b = both(tf, build)
    assert_close(a, b)


def test_zero_iterations(tf):
    def build(lib):
        x = lib.constant([1.0, 2.0])
        return lib.while_loop(lambda x: lib.reduce_sum(x) < 0.0, lambda x: x * 2.0, [x])

    a, b = both(tf, build)
    assert_close(a, b)


@pytest.mark.parametrize("limit", [0, 3, 50])
def test_maximum_iterations(tf, limit):
    def build(lib):
        x = lib.constant(1.0)
        n = lib.placeholder(lib.int32, [], name="n")
        one = lib.while_loop(lambda x: x < 1000.0, lambda x: x * 2.0, [x], maximum_iterations=n)
        two = lib.while_loop(
            lambda x, k: k < 1000,
            lambda x, k: [x + 1.0, k + 1],
            [x, lib.constant(0)],
            maximum_iterations=limit,
        )
        return [one, two]

    a, b = both(tf, build, _feeds({"n:0": limit}))
    assert_close(a, b)


def test_nested_structures(tf):
    Pair = collections.namedtuple("Pair", ["a", "b"])

    def build(lib):
        lv = (
            lib.constant(0),
            Pair(lib.constant([1.0, 2.0]), {"u": lib.constant(3.0), "v": lib.constant(1)}),
        )

        def body(i, p):
            return (
                i + 1,
                Pair(p.a * 2.0, {"u": p.b["u"] + lib.reduce_sum(p.a), "v": p.b["v"] * 3}),
            )

        i, p = lib.while_loop(lambda i, p: i < 4, body, lv)
        assert isinstance(p, Pair) and isinstance(p.b, dict)
        return [i, p.a, p.b["u"], p.b["v"]]

    a, b = both(tf, build)
    assert_close(a, b)


def test_captures_placeholders_and_variables(tf):
    def build(lib):
        x = lib.placeholder(lib.float32, [3], name="x")
        v = lib.Variable([0.5, 1.0, 1.5], name="v")
        scale = lib.constant(2.0) * lib.reduce_mean(x)

        def body(i, acc):
            return i + 1, acc * v + x * scale

        return lib.while_loop(lambda i, acc: i < 5, body, [lib.constant(0), lib.zeros([3])])

    a, b = both(tf, build, _feeds({"x:0": np.array([1.0, -2.0, 0.5], np.float32)}))
    assert_close(a, b)


def test_shape_invariants_let_shapes_grow(tf):
    def build(lib):
        x = lib.constant([1.0])
        i = lib.constant(0)
        r = lib.while_loop(
            lambda i, x: i < 4,
            lambda i, x: (i + 1, lib.concat([x, x * 2.0], 0)),
            [i, x],
            shape_invariants=[i.shape, lib.TensorShape([None])],
        )
        return r

    a, b = both(tf, build)
    assert_close(a, b)
    sa, sb = static_shapes(
        tf,
        lambda lib: lib.while_loop(
            lambda x: lib.size(x) < 8,
            lambda x: lib.concat([x, x], 0),
            [lib.constant([1.0])],
            shape_invariants=[lib.TensorShape([None])],
            return_same_structure=True,
        ),
    )
    assert sa == sb == [[None]]


def test_cond_and_loop_nesting(tf):
    def build(lib):
        p = lib.placeholder(lib.bool, [], name="p")
        x = lib.constant(1.0)

        def body(i, x):
            return i + 1, lib.cond(x > 5.0, lambda: x - 1.0, lambda: x * 3.0)

        in_loop = lib.while_loop(lambda i, x: i < 6, body, [lib.constant(0), x])
        in_cond = lib.cond(
            p,
            lambda: lib.while_loop(lambda y: y < 50.0, lambda y: y * x + 2.0, [x]),
            lambda: lib.constant(-1.0),
        )
        return [in_loop, in_cond]

    for p in (True, False):
        a, b = both(tf, build, _feeds({"p:0": p}))
        assert_close(a, b)


def test_nested_loops(tf):
    def build(lib):
        def outer(i, total):
            inner = lib.while_loop(
                lambda j, s: j < i, lambda j, s: (j + 1, s + j * i), [lib.constant(0), total]
            )
            return i + 1, inner[1]

        return lib.while_loop(lambda i, t: i < 5, outer, [lib.constant(0), lib.constant(0)])

    a, b = both(tf, build)
    assert_close(a, b)


def test_side_effects_in_body(tf):
    def build(lib):
        v = lib.Variable(0.0, name="v")

        def body(i):
            with lib.control_dependencies([lib.assign_add(v, 2.0)]):
                return i + 1

        r = lib.while_loop(lambda i: i < 4, body, [lib.constant(0)])
        with lib.control_dependencies([r]):
            return lib.identity(v.read_value() if hasattr(v, "read_value") else v)

    a, b = both(tf, build)
    assert_close(a, b)


def test_cond_and_body_see_the_bodys_variable_updates(tf):
    # TF-1.x's `v/read` aliases the variable, so a cond reading `v` sees the body's
    # `assign_add` and ends the loop, and a read ordered after an update in the same
    # iteration sees it. TF runs iterations in parallel (racy reads); compare with
    # `parallel_iterations=1`, the order ferroflow always runs in.
    def build(lib):
        v = lib.Variable(0, name="v")
        w = lib.Variable(1.0, name="w")

        def body(i):
            with lib.control_dependencies([lib.assign_add(v, 1)]):
                return i + 1

        stops = lib.while_loop(
            lambda i: v < 5, body, [lib.constant(0)], maximum_iterations=20, parallel_iterations=1
        )

        def body2(i, acc):
            with lib.control_dependencies([lib.assign_add(w, 1.0)]):
                return i + 1, acc + w * 1.0

        sums = lib.while_loop(
            lambda i, a: i < 3, body2, [lib.constant(0), lib.constant(0.0)], parallel_iterations=1
        )
        with lib.control_dependencies([stops, *sums]):
            return [stops, sums, lib.identity(v), lib.identity(w)]

    a, b = both(tf, build)
    assert_close(a, b)
    assert a[0] == 5


def test_loop_dequeues_from_a_queue(tf):
    def build(lib):
        q = lib.FIFOQueue(10, lib.float32, shapes=[[]])
        enq = q.enqueue_many([[1.0, 2.0, 3.0, 4.0]])
        with lib.control_dependencies([enq]):
            start = lib.constant(0)

        def body(i, s):
            return i + 1, s * 2.0 + q.dequeue()

        # One iteration at a time in TF too, so its dequeues run in order.
        return lib.while_loop(
            lambda i, s: i < 4, body, [start, lib.constant(0.0)], parallel_iterations=1
        )

    a, b = both(tf, build)
    assert_close(a, b)
    assert b[1] == 26.0


def test_loop_waits_for_an_enqueue_of_the_same_run(tf):
    def build(lib):
        q = lib.FIFOQueue(10, lib.float32, shapes=[[]])
        r = lib.while_loop(
            lambda i, s: i < 3,
            lambda i, s: (i + 1, s * 10.0 + q.dequeue()),
            [lib.constant(0), lib.constant(0.0)],
            parallel_iterations=1,
        )
        return [r[1], q.enqueue_many([[1.0, 2.0, 3.0]])]

    a, b = both(tf, build)
    assert_close(a[0], b[0])
    assert a[1] is None and b[1] is None


@settings(max_examples=15, deadline=None)
@given(n=st.integers(0, 12), start=st.floats(-4, 4, allow_nan=False, width=32))
def test_random_against_numpy(n, start):
    g = ff.Graph()
    with g.as_default():
        x = ff.placeholder(ff.float32, [])
        k = ff.placeholder(ff.int32, [])
        r = ff.while_loop(
            lambda i, y: i < k, lambda i, y: (i + 1, y * 0.5 + 1.0), [ff.constant(0), x]
        )
        with ff.Session() as sess:
            got = sess.run(r, {x: start, k: n})
    y = np.float32(start)
    for _ in range(n):
        y = np.float32(y * np.float32(0.5) + np.float32(1.0))
    assert got[0] == n
    np.testing.assert_allclose(got[1], y, rtol=1e-6)


# -- build-time errors -------------------------------------------------------------------
def _error(lib, fn):
    g = lib.Graph()
    with g.as_default():
        try:
            fn(lib)
        except Exception as e:
            return type(e).__name__, str(e)
    return None


ERRORS = {
    "shape_changes": lambda lib: lib.while_loop(
        lambda x: x < 10.0, lambda x: lib.stack([x, x]), [lib.constant(1.0)]
    ),
    "bad_invariant": lambda lib: lib.while_loop(
        lambda x: x < 10.0,
        lambda x: x,
        [lib.constant(1.0)],
        shape_invariants=[lib.TensorShape([2])],
    ),
    "cond_not_bool": lambda lib: lib.while_loop(lambda x: x, lambda x: x, [lib.constant(1.0)]),
    "cond_not_scalar": lambda lib: lib.while_loop(
        lambda x: lib.stack([x < 10.0, x < 3.0]), lambda x: x, [lib.constant(1.0)]
    ),
    "structure": lambda lib: lib.while_loop(
        lambda x: x < 10.0, lambda x: (x, x), [lib.constant(1.0)]
    ),
    "empty": lambda lib: lib.while_loop(lambda x: x < 10.0, lambda x: x, []),
    "max_not_scalar": lambda lib: lib.while_loop(
        lambda x: x < 10.0, lambda x: x, [lib.constant(1.0)], maximum_iterations=[1, 2]
    ),
    "cond_not_callable": lambda lib: lib.while_loop(1, lambda x: x, [lib.constant(1.0)]),
    "body_not_callable": lambda lib: lib.while_loop(lambda x: x < 1.0, 2, [lib.constant(1.0)]),
    "parallel_iterations": lambda lib: lib.while_loop(
        lambda x: x < 10.0, lambda x: x, [lib.constant(1.0)], parallel_iterations=0
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tf(tf, case):
    want = _error(tf, ERRORS[case])
    got = _error(ff, ERRORS[case])
    assert want is not None and got is not None
    assert got[0] == want[0], (got, want)
    if case in ("shape_changes", "bad_invariant", "empty", "max_not_scalar", "parallel_iterations"):
        assert got[1] == want[1]
    if case == "cond_not_scalar":
        assert got[1].startswith("Shape must be rank 0 but is rank 1")


def test_dtype_change_is_a_type_error():
    g = ff.Graph()
    with g.as_default():
        with pytest.raises(
            TypeError, match="enters the loop with type float32, but has type int32"
        ):
            ff.while_loop(lambda x: x < 10.0, lambda x: ff.cast(x, ff.int32), [ff.constant(1.0)])


def test_runtime_error_in_body_names_the_op():
    g = ff.Graph()
    with g.as_default():
        x = ff.placeholder(ff.float32, [None])
        r = ff.while_loop(
            lambda i, y: i < 3,
            lambda i, y: (i + 1, ff.reshape(y, [2, 2])[0]),
            [ff.constant(0), x],
            shape_invariants=[ff.TensorShape([]), ff.TensorShape([None])],
        )
        with ff.Session() as sess:
            with pytest.raises(ff.errors.InvalidArgumentError):
                sess.run(r, {x: np.ones(3, np.float32)})


def test_infinite_loop_honours_timeout_and_close():
    g = ff.Graph()
    with g.as_default():
        r = ff.while_loop(lambda i: i >= 0, lambda i: i + 1, [ff.constant(0)])
        sess = ff.Session()
        with pytest.raises(ff.errors.DeadlineExceededError):
            sess.run(r, options=ff.RunOptions(timeout_in_ms=200))
        errors = []

        def run():
            try:
                sess.run(r)
            except Exception as e:
                errors.append(e)

        t = threading.Thread(target=run)
        t.start()
        time.sleep(0.3)
        sess.close()
        t.join(10)
        assert not t.is_alive()
        assert errors and isinstance(errors[0], ff.errors.CancelledError)


_ENDLESS_CHILD = textwrap.dedent(
    """
    import ferroflow as tf
    r = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0)])
    with tf.Session() as sess:
        print("running", flush=True)
        try:
            sess.run(r)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        print(sess.run(tf.while_loop(lambda i: i < 5, lambda i: i + 1, [tf.constant(0)])))
    """
)


def test_ctrl_c_interrupts_an_endless_loop(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(_ENDLESS_CHILD)
    child = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert child.stdout.readline().strip() == "running"
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode == 0, err
    assert out.split() == ["interrupted", "5"]


# -- gradients -----------------------------------------------------------------------------
def _power_loop(lib, x):
    return lib.while_loop(
        lambda i, y: i < 3, lambda i, y: (i + 1, y * x + lib.sin(y)), [lib.constant(0), x]
    )[1]


def test_gradient_matches_tf(tf):
    check_against_tf(tf, _power_loop, [np.array([0.3, -1.2, 0.8], np.float32)])
    check_against_tf(tf, _power_loop, [np.array([0.3, -1.2], np.float64)])


def test_gradient_finite_differences():
    check_finite_differences(_power_loop, [np.array([0.3, -1.2, 0.8])], seed=1)


def _two_inputs(lib, x, w):
    def body(i, a, b):
        return i + 1, a * w + b, lib.tanh(b) * lib.reduce_sum(a)

    r = lib.while_loop(lambda i, a, b: i < 4, body, [lib.constant(0), x, x * 0.5])
    return r[1] + 2.0 * r[2]


def test_gradient_several_loop_vars_and_captures(tf):
    args = [np.array([0.2, -0.4], np.float64), np.array([0.9, 1.1], np.float64)]
    check_against_tf(tf, _two_inputs, args)
    check_finite_differences(_two_inputs, args, seed=2)


def _with_max_iterations(lib, x):
    return lib.while_loop(
        lambda y: lib.reduce_sum(y) < 100.0, lambda y: y * y + 1.0, [x], maximum_iterations=2
    )


def test_gradient_with_maximum_iterations(tf):
    args = [np.array([0.5, 1.5], np.float64)]
    check_against_tf(tf, _with_max_iterations, args)
    check_finite_differences(_with_max_iterations, args, seed=3)


def _nested(lib, x):
    def outer(i, y):
        inner = lib.while_loop(
            lambda j, z: j < 2, lambda j, z: (j + 1, z * y + x), [lib.constant(0), y]
        )
        return i + 1, lib.sin(inner[1])

    return lib.while_loop(lambda i, y: i < 2, outer, [lib.constant(0), x])[1]


def test_gradient_nested_loops(tf):
    args = [np.array([0.4, -0.3], np.float64)]
    check_against_tf(tf, _nested, args)
    check_finite_differences(_nested, args, seed=4)


def test_gradient_of_variable_read_in_loop(tf):
    def build(lib):
        v = lib.Variable([0.5, -1.0], dtype=lib.float64, name="v")
        w = lib.Variable(1.5, dtype=lib.float64, name="w")
        r = lib.while_loop(
            lambda i, y: i < 3,
            lambda i, y: (i + 1, y * v + w * lib.cos(y)),
            [lib.constant(0), v * 2.0],
        )
        return lib.gradients(lib.reduce_sum(r[1] * r[1]), [v, w])

    a, b = both(tf, build)
    assert_close(a, b, rtol=1e-10, atol=1e-12)


def test_gradient_back_prop_false_is_none(tf):
    def build(lib):
        x = lib.constant([1.0, 2.0])
        r = lib.while_loop(
            lambda i, y: i < 2, lambda i, y: (i + 1, y * 2.0), [lib.constant(0), x], back_prop=False
        )
        g = lib.gradients(r[1], [x])
        return g

    g_tf = static_grads(tf, build)
    g_ff = static_grads(ff, build)
    assert g_tf == g_ff == [None]


def static_grads(lib, build):
    g = lib.Graph()
    with g.as_default():
        return build(lib)


def test_training_a_variable_through_a_loop():
    g = ff.Graph()
    with g.as_default():
        w = ff.Variable(0.5, dtype=ff.float32)
        y = ff.while_loop(
            lambda i, y: i < 3, lambda i, y: (i + 1, y * w), [ff.constant(0), ff.constant(2.0)]
        )[1]
        loss = ff.square(y - 1.0)
        train = ff.train.GradientDescentOptimizer(0.05).minimize(loss)
        with ff.Session() as sess:
            sess.run(ff.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(50):
                sess.run(train)
            assert sess.run(loss) < first * 1e-3


# -- map_fn, foldl, foldr, scan --------------------------------------------------------------
def test_map_fn(tf):
    def build(lib):
        x = lib.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
        sq = lib.map_fn(lambda r: r * r + 1.0, x)
        sums = lib.map_fn(lambda r: lib.reduce_sum(r), x)
        pair = lib.map_fn(
            lambda t: (t[0] * 2.0, lib.cast(t[1], lib.int32)),
            (x, x),
            dtype=(lib.float32, lib.int32),
        )
        return [sq, sums, pair[0], pair[1]]

    a, b = both(tf, build)
    assert_close(a, b)
    sa, sb = static_shapes(tf, build)
    assert sa == sb


def test_map_fn_unknown_length_and_empty(tf):
    def build(lib):
        x = lib.placeholder(lib.float32, [None, 2], name="x")
        return lib.map_fn(lambda r: r * 3.0, x)

    for n in (0, 1, 5):
        a, b = both(tf, build, _feeds({"x:0": np.ones((n, 2), np.float32)}))
        assert_close(a, b)


@pytest.mark.parametrize("initializer", [None, 10.0])
def test_foldl_foldr(tf, initializer):
    def build(lib):
        x = lib.constant([1.0, 2.0, 3.0, 4.0])
        fn = lambda a, e: a * 0.5 + e  # noqa: E731 - order-sensitive on purpose
        return [
            lib.foldl(fn, x, initializer=initializer),
            lib.foldr(fn, x, initializer=initializer),
        ]

    a, b = both(tf, build)
    assert_close(a, b)


def test_fold_nested(tf):
    def build(lib):
        x = lib.constant([1.0, 2.0, 3.0])
        y = lib.constant([2, 3, 4])
        return lib.foldl(
            lambda a, e: (a[0] + e[0] * lib.cast(e[1], lib.float32), a[1] * e[1]),
            (x, y),
            initializer=(lib.constant(0.0), lib.constant(1)),
        )

    a, b = both(tf, build)
    assert_close(list(a), list(b))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("initializer", [None, 1.0])
def test_scan(tf, reverse, initializer):
    def build(lib):
        x = lib.constant([1.0, 2.0, 3.0, 4.0])
        return lib.scan(lambda a, e: a * 2.0 + e, x, initializer=initializer, reverse=reverse)

    a, b = both(tf, build)
    assert_close(a, b)


def test_scan_nested_fibonacci(tf):
    def build(lib):
        elems = lib.constant(np.zeros(6, np.int64))
        init = (lib.constant(0, lib.int64), lib.constant(1, lib.int64))
        return list(lib.scan(lambda a, _: (a[1], a[0] + a[1]), elems, init))

    a, b = both(tf, build)
    assert_close(a, b)


def _map_scan_fold(lib, x):
    m = lib.map_fn(lambda r: lib.sin(r) * r, x)
    s = lib.scan(lambda a, e: a * e + 1.0, m)
    f = lib.foldr(lambda a, e: a * lib.cos(e), s, initializer=lib.ones_like(x[0]))
    return s * 2.0 + f


def test_map_scan_fold_gradients(tf):
    args = [np.array([[0.3, -0.2], [0.7, 0.1], [-0.5, 0.4]], np.float64)]
    check_against_tf(tf, _map_scan_fold, args)
    check_finite_differences(_map_scan_fold, args, seed=5)


@settings(max_examples=15, deadline=None)
@given(
    xs=st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=1, max_size=8),
    reverse=st.booleans(),
)
def test_scan_and_map_random_against_numpy(xs, reverse):
    x = np.array(xs, np.float32)
    g = ff.Graph()
    with g.as_default():
        p = ff.placeholder(ff.float32, [None])
        cum = ff.scan(lambda a, e: a + e, p, reverse=reverse)
        sq = ff.map_fn(lambda e: e * e, p)
        total = ff.foldl(lambda a, e: a + e, p, initializer=ff.constant(0.0))
        with ff.Session() as sess:
            got_cum, got_sq, got_total = sess.run([cum, sq, total], {p: x})
    want_cum = np.cumsum(x[::-1])[::-1] if reverse else np.cumsum(x)
    np.testing.assert_allclose(got_cum, want_cum, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_sq, x * x, rtol=1e-6)
    np.testing.assert_allclose(got_total, x.sum(), rtol=1e-5, atol=1e-5)


def test_exit_names_match_tf(tf):
    def names(lib):
        g = lib.Graph()
        with g.as_default():
            r = lib.while_loop(
                lambda i, x: i < 3,
                lambda i, x: (i + 1, x * 2.0),
                [lib.constant(0), lib.constant(1.0)],
            )
            m = lib.while_loop(
                lambda x: x < 9.0, lambda x: x + 1.0, [lib.constant(1.0)], maximum_iterations=4
            )
            return [t.name for t in r] + [m.name]

    assert names(tf) == names(ff) == ["while/Exit:0", "while/Exit_1:0", "while_1/Exit_1:0"]


# -- TensorArray -----------------------------------------------------------------------------
def _ta_loop(lib, x):
    n = 4
    ta_in = lib.TensorArray(x.dtype, size=n).unstack(x)
    ta_out = lib.TensorArray(x.dtype, size=n)

    def body(i, acc, out):
        e = ta_in.read(i)
        acc = acc * 0.5 + lib.sin(e)
        return i + 1, acc, out.write(i, acc * e)

    _, acc, out = lib.while_loop(
        lambda i, a, o: i < n, body, [lib.constant(0), lib.zeros([2], x.dtype), ta_out]
    )
    return out.stack() * 2.0 + acc


def test_tensor_array_in_a_loop(tf):
    xv = np.arange(8.0).reshape(4, 2) / 7

    def build(lib):
        x = lib.placeholder(lib.float64, [4, 2], name="x")
        dyn = lib.TensorArray(lib.float32, size=0, dynamic_size=True)
        _, dyn = lib.while_loop(
            lambda i, t: i < 5,
            lambda i, t: (i + 1, t.write(i, lib.cast(i, lib.float32) * 2.0)),
            [lib.constant(0), dyn],
        )
        return [_ta_loop(lib, x), dyn.stack(), dyn.size()]

    a, b = both(tf, build, _feeds({"x:0": xv}))
    assert_close(a, b)
    sa, sb = static_shapes(tf, lambda lib: _ta_loop(lib, lib.placeholder(lib.float64, [4, 2])))
    assert sa == sb


def test_tensor_array_gradients():
    args = [np.arange(8.0).reshape(4, 2) / 7 - 0.3]
    check_finite_differences(_ta_loop, args, seed=6)


def test_tensor_array_gradients_match_tf(tf):
    check_against_tf(tf, _ta_loop, [np.arange(8.0).reshape(4, 2) / 7 - 0.3])


def test_tensor_array_outside_loops(tf):
    def build(lib):
        ta = lib.TensorArray(lib.float32, size=3, element_shape=[2], clear_after_read=False)
        ta = ta.write(0, [1.0, 2.0]).write(2, [5.0, 6.0]).write(1, [3.0, 4.0])
        un = lib.TensorArray(lib.float32, size=4).unstack(
            lib.constant([[1.0], [2.0], [3.0], [4.0]])
        )
        sc = lib.TensorArray(lib.int32, size=3).scatter([2, 0, 1], lib.constant([7, 8, 9]))
        return [
            ta.stack(),
            ta.read(1),
            ta.gather([2, 0]),
            ta.concat(),
            ta.size(),
            un.read(3),
            un.size(),
            sc.stack(),
        ]

    a, b = both(tf, build)
    assert_close(a, b)


@pytest.mark.parametrize("prefix", ["", "imported"])
def test_graph_def_round_trip(prefix):
    g = ff.Graph()
    with g.as_default():
        x = ff.placeholder(ff.float32, [], name="x")
        r = ff.while_loop(
            lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [ff.constant(0), ff.constant(1.0)]
        )
        (dx,) = ff.gradients(r[1], [x])
        names = [r[1].name, dx.name]
        gd = g.as_graph_def()
    g2 = ff.Graph()
    with g2.as_default():
        ff.import_graph_def(gd, name=prefix)
        scope = f"{prefix}/" if prefix else ""
        with ff.Session() as sess:
            y, d = sess.run([scope + n for n in names], {scope + "x:0": 2.0})
    assert (y, d) == (8.0, 12.0)


def test_an_update_made_outside_the_loop_runs_once(tf1):
    """An `assign_add` built before the loop and used inside runs once, before it (TF
    enters its result); the loop must not run it every iteration (issue 42: it did,
    giving [10, 55] for TF's [1, 10])."""

    def build(lib):
        a = lib.Variable(0)
        b = lib.Variable(0)
        asn1 = lib.assign_add(a, 1)

        def body(i):
            with lib.control_dependencies([lib.assign_add(b, asn1)]):
                return i + 1

        loop = lib.while_loop(lambda i: i < 10, body, [lib.constant(0)], parallel_iterations=1)
        scattered = lib.scatter_add(lib.Variable([1.0, 2.0]), [0], [3.0])
        loop2 = lib.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + scattered[0]), [0, 0.0])
        return loop, loop2, a, b

    results = []
    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            loop, loop2, a, b = build(lib)
            with lib.Session(graph=g) as sess:
                sess.run(lib.global_variables_initializer())
                sess.run(loop)
                results.append((sess.run([a, b]), sess.run(loop2)))
    assert [[int(v) for v in results[1][0]], [float(v) for v in results[1][1]]] == [
        [int(v) for v in results[0][0]],
        [float(v) for v in results[0][1]],
    ]
    assert [int(v) for v in results[1][0]] == [1, 10]


def test_loop_gradient_ops_are_colocated_with_their_body_ops(tf1):
    """`colocate_gradients_with_ops=True` reaches a loop body's gradient (issue 42:
    the body's gradient ops had no device)."""

    def build(lib):
        v = lib.constant(2.0)

        def body(x):
            with lib.device("/device:CPU:0"):
                return lib.square(x)

        loop = lib.while_loop(lambda x: x < 100.0, body, [v], parallel_iterations=1)
        grad = lib.gradients(loop, v, colocate_gradients_with_ops=True)[0]
        square_grads = [
            o.device for o in lib.get_default_graph().get_operations() if "Square_grad" in o.name
        ]
        return grad, square_grads

    for lib in (tf1, ff):
        g = lib.Graph()
        with g.as_default():
            grad, devices = build(lib)
            assert devices and all(d == "/device:CPU:0" for d in devices)
            with lib.Session(graph=g) as sess:
                assert sess.run(grad) == 1024.0
