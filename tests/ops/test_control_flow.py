"""`tf.cond`, `tf.case` and `initialized_value()`, compared with TensorFlow (control
flow v1: `Switch`/`Merge`, as TF-1.x programs build it).

Values, output nesting, dtypes and static shapes, gradients (TF's values and finite
differences), side effects of the taken branch only, and TF's error classes.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroflow as ff
from conftest import run_ff, run_tf
from ferroflow.ops import control_flow_ops


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
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_close(x, y, rtol, atol)
    else:
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=rtol, atol=atol)
        assert np.asarray(a).dtype == np.asarray(b).dtype


@pytest.mark.parametrize("p", [True, False])
def test_cond_values_and_captures(tf, p):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        x = lib.constant([1.0, 2.0, 3.0])
        y = lib.constant(4.0)
        return lib.cond(pred, lambda: x * y + 1.0, lambda: x - y)

    a, b = both(tf, build, _feeds({"p:0": p}))
    assert_close(a, b)


@pytest.mark.parametrize("p", [True, False])
def test_cond_nested_structures(tf, p):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        x = lib.constant([[1.0, 2.0]])
        i = lib.constant(3)
        return lib.cond(
            pred,
            lambda: {"a": (x * 2.0, i + 1), "b": [x]},
            lambda: {"a": (x + 1.0, i * 4), "b": [-x]},
        )

    a, b = both(tf, build, _feeds({"p:0": p}))
    assert_close(a, b)


def test_cond_static_structure_dtypes_shapes(tf):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        x = lib.placeholder(lib.float32, [None, 3], name="x")
        z = lib.zeros([2, 3])
        out = {
            "same": lib.cond(pred, lambda: z, lambda: z + 1.0),
            "partial": lib.cond(pred, lambda: x, lambda: z),
            "single": lib.cond(pred, lambda: [z], lambda: [z]),
            "strict": lib.cond(pred, lambda: [z], lambda: [z], strict=True),
            "ints": lib.cond(pred, lambda: (lib.constant(1), z), lambda: (lib.constant(2), z)),
        }
        return out

    g_tf = tf.Graph()
    with g_tf.as_default():
        t_out = build(tf)
    g_ff = ff.Graph()
    with g_ff.as_default():
        f_out = build(ff)

    def describe(v):
        if isinstance(v, dict):
            return {k: describe(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return (type(v).__name__, [describe(x) for x in v])
        return (v.dtype.name, v.shape.as_list() if v.shape.ndims is not None else None)

    assert describe(f_out) == describe(t_out)


@pytest.mark.parametrize("p", [True, False])
def test_only_taken_branch_side_effects(tf, p):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        v = lib.Variable(10.0, name="v")
        w = lib.Variable(0.0, name="w")

        def t():
            return lib.assign_add(v, 1.0)

        def f():
            return lib.assign_add(w, 5.0)

        out = lib.cond(pred, t, f)
        return out, v, w

    g_tf, g_ff = tf.Graph(), ff.Graph()
    results = []
    for lib, g in ((tf, g_tf), (ff, g_ff)):
        with g.as_default():
            out, v, w = build(lib)
            pred = g.get_tensor_by_name("p:0")
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                r = [sess.run(out, {pred: p}) for _ in range(2)]
                results.append((r, sess.run([v, w])))
    assert_close(results[0], results[1])


def test_untaken_branch_failure_never_fires(tf):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        x = lib.constant([1.0, -1.0])

        def bad():
            with lib.control_dependencies([lib.Assert(lib.reduce_all(x > 0.0), [x])]):
                return lib.identity(x)

        return lib.cond(pred, bad, lambda: x * 2.0)

    a, b = both(tf, build, _feeds({"p:0": False}))
    assert_close(a, b)
    with pytest.raises(ff.errors.InvalidArgumentError):
        run_ff(build, _feeds({"p:0": True}))


def test_op_as_branch_result_and_no_input_ops(tf):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        v = lib.Variable(1.0, name="v")
        out = lib.cond(pred, lambda: lib.constant(7.0), lambda: lib.constant(8.0))
        op_out = lib.cond(pred, lambda: lib.assign(v, 3.0).op, lambda: lib.no_op())
        return out, op_out, v

    for p in (True, False):
        g_tf, g_ff = tf.Graph(), ff.Graph()
        res = []
        for lib, g in ((tf, g_tf), (ff, g_ff)):
            with g.as_default():
                out, op_out, v = build(lib)
                with lib.Session() as sess:
                    sess.run(lib.global_variables_initializer())
                    feed = {g.get_tensor_by_name("p:0"): p}
                    o, _ = sess.run([out, op_out], feed)
                    res.append((o, sess.run(v)))
        assert_close(res[0], res[1])


@pytest.mark.parametrize("p", [True, False])
def test_nested_cond(tf, p):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        q = lib.placeholder(lib.bool, [], name="q")
        x = lib.constant(3.0)
        return lib.cond(
            pred,
            lambda: lib.cond(q, lambda: x * 2.0, lambda: x * 3.0),
            lambda: lib.cond(q, lambda: x + 1.0, lambda: x - 1.0),
        )

    for q in (True, False):
        a, b = both(tf, build, _feeds({"p:0": p, "q:0": q}))
        assert_close(a, b)


@pytest.mark.parametrize("p", [True, False])
def test_cond_gradients_match_tf(tf, p):
    xv = np.array([0.5, -1.5, 2.0], np.float32)

    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        x = lib.placeholder(lib.float32, [3], name="x")
        v = lib.Variable([1.0, 2.0, 3.0], name="v")
        y = lib.cond(
            pred,
            lambda: lib.reduce_sum(x * x * v),
            lambda: lib.reduce_sum(lib.sin(x) + v * 3.0),
        )
        z = lib.cond(pred, lambda: x * 2.0, lambda: lib.exp(x))
        return lib.gradients(y, [x, v]) + lib.gradients(z, [x])

    a, b = both(tf, build, _feeds({"p:0": p, "x:0": xv}))
    assert_close(a, b)


@pytest.mark.parametrize("p", [True, False])
def test_cond_gradient_finite_differences(p):
    xv = np.array([0.3, -0.7], np.float64)
    g = ff.Graph()
    with g.as_default():
        pred = ff.placeholder(ff.bool, [])
        x = ff.placeholder(ff.float64, [2])
        y = ff.cond(pred, lambda: ff.reduce_sum(ff.tanh(x) * x), lambda: ff.reduce_prod(x + 2.0))
        (dx,) = ff.gradients(y, [x])
        with ff.Session() as sess:
            analytic = sess.run(dx, {pred: p, x: xv})
            eps = 1e-6
            numeric = np.zeros(2)
            for i in range(2):
                d = np.zeros(2)
                d[i] = eps
                hi = sess.run(y, {pred: p, x: xv + d})
                lo = sess.run(y, {pred: p, x: xv - d})
                numeric[i] = (hi - lo) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6)


def test_gradient_of_unused_branch_input_is_zero(tf):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        x = lib.constant(2.0)
        y = lib.constant(5.0)
        out = lib.cond(pred, lambda: x * 3.0, lambda: y * 4.0)
        return lib.gradients(out, [x, y])

    for p in (True, False):
        a, b = both(tf, build, _feeds({"p:0": p}))
        assert_close(a, b)


@settings(max_examples=15, deadline=None)
@given(
    p=st.booleans(),
    xs=st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=1, max_size=5),
)
def test_cond_random_against_numpy(p, xs):
    xv = np.array(xs, np.float32)
    g = ff.Graph()
    with g.as_default():
        pred = ff.placeholder(ff.bool, [])
        x = ff.placeholder(ff.float32, [None])
        y = ff.cond(pred, lambda: x * x, lambda: -x)
        (dx,) = ff.gradients(ff.reduce_sum(y), [x])
        with ff.Session() as sess:
            out, grad = sess.run([y, dx], {pred: p, x: xv})
    np.testing.assert_allclose(out, xv * xv if p else -xv, rtol=1e-6)
    np.testing.assert_allclose(grad, 2 * xv if p else -np.ones_like(xv), rtol=1e-6)


def _error_of(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__
    return None


@pytest.mark.parametrize(
    "case",
    ["int_pred", "python_bool", "structure", "types", "dtypes", "not_callable", "none_result"],
)
def test_cond_errors_match_tf(tf, case):
    def build(lib):
        x = lib.constant(1.0)
        p = lib.placeholder(lib.bool, [])
        if case == "int_pred":
            return lib.cond(lib.constant(1), lambda: x, lambda: x)
        if case == "python_bool":
            return lib.cond(True, lambda: x, lambda: x)
        if case == "structure":
            return lib.cond(p, lambda: (x, x), lambda: (x, x, x))
        if case == "types":
            return lib.cond(p, lambda: [x, x], lambda: (x, x))
        if case == "dtypes":
            return lib.cond(p, lambda: x, lambda: lib.constant(1))
        if case == "not_callable":
            return lib.cond(p, x, lambda: x)
        return lib.cond(p, lambda: None, lambda: x)

    def in_graph(lib):
        with lib.Graph().as_default():
            return _error_of(lambda: build(lib))

    expected = in_graph(tf)
    assert expected is not None
    assert in_graph(ff) == expected


@pytest.mark.parametrize("xv", [-2, 0, 1, 5])
def test_case_values(tf, xv):
    def build(lib):
        x = lib.placeholder(lib.int32, [], name="x")
        return {
            "default": lib.case(
                [(x < 0, lambda: lib.constant(-1.0)), (lib.equal(x, 0), lambda: lib.constant(0.0))],
                default=lambda: lib.constant(1.0),
            ),
            "exclusive": lib.case(
                [(x < 0, lambda: lib.constant(10)), (x >= 0, lambda: lib.constant(20))],
                exclusive=True,
            ),
            "nested": lib.case(
                [(x > 3, lambda: (lib.constant(1), [lib.constant(2.0)]))],
                default=lambda: (lib.constant(3), [lib.constant(4.0)]),
            ),
        }

    a, b = both(tf, build, _feeds({"x:0": xv}))
    assert_close(a, b)


def test_case_failures_match_tf(tf):
    def build(lib):
        x = lib.placeholder(lib.int32, [], name="x")
        no_default = lib.case([(x < 0, lambda: lib.constant(1)), (x > 10, lambda: lib.constant(2))])
        exclusive = lib.case(
            [(x > 0, lambda: lib.constant(1)), (x > 1, lambda: lib.constant(2))],
            default=lambda: lib.constant(3),
            exclusive=True,
        )
        return no_default, exclusive

    for lib in (tf, ff):
        with lib.Graph().as_default() as g:
            no_default, exclusive = build(lib)
            x = g.get_tensor_by_name("x:0")
            with lib.Session() as sess:
                assert sess.run(no_default, {x: 11}) == 2
                with pytest.raises(lib.errors.InvalidArgumentError, match="None of conditions"):
                    sess.run(no_default, {x: 5})
                with pytest.raises(lib.errors.InvalidArgumentError, match="exclusive=True"):
                    sess.run(exclusive, {x: 5})
    for lib in (tf, ff):
        with lib.Graph().as_default():
            with pytest.raises(TypeError):
                lib.case([(lib.constant(1), lib.no_op)])
            with pytest.raises(TypeError):
                lib.case(lib.constant(True))


def test_initialized_value_uses_cond(tf):
    def build(lib):
        w = lib.Variable(lib.random_normal([3], seed=1), name="w")
        w2 = lib.Variable(w.initialized_value() * 2.0, name="w2")
        return w, w2, w.initialized_value()

    for lib in (tf, ff):
        with lib.Graph().as_default():
            lib.set_random_seed(3)
            w, w2, iv = build(lib)
            assert iv.op.type == "Merge"
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                wv, w2v = sess.run([w, w2])
                np.testing.assert_allclose(w2v, 2 * wv, rtol=1e-6)
                sess.run(w.assign([1.0, 2.0, 3.0]))
                np.testing.assert_allclose(sess.run(iv), [1.0, 2.0, 3.0])
            with lib.Session() as sess:
                # Uninitialized: the initial value.
                a, b = sess.run([iv, w.initial_value])
                np.testing.assert_allclose(a, b, rtol=1e-6)


def test_graph_without_control_flow_is_untouched():
    with ff.Graph().as_default() as g:
        x = ff.constant(1.0)
        y = x + 1.0
        assert g._control_flow_context is None
        assert [op.type for op in g.get_operations()] == ["Const", "Const", "AddV2"]
        with ff.Session() as sess:
            assert sess.run(y) == 2.0


@pytest.mark.parametrize("p", [True, False])
def test_untaken_blocking_dequeue_never_waits(tf, p):
    """A cond over queue ops (two blocking steps: a parallel plan): the untaken
    branch's dequeue from an empty queue never runs, so the run does not hang."""

    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        q = lib.FIFOQueue(10, [lib.float32], shapes=[[]])
        empty = lib.FIFOQueue(10, [lib.float32], shapes=[[]])
        enq = q.enqueue([3.0])

        def taken():
            with lib.control_dependencies([enq]):
                return q.dequeue() * 2.0

        out = lib.cond(pred, taken, lambda: empty.dequeue())
        return out

    if p:
        a, c = run_tf(tf, build, _feeds({"p:0": p})), run_ff(build, _feeds({"p:0": p}))
        assert_close(a, c)
    else:
        for lib in (tf, ff):
            with lib.Graph().as_default() as g:
                out = build(lib)
                with lib.Session() as sess:
                    opts = lib.RunOptions(timeout_in_ms=200)
                    with pytest.raises(lib.errors.DeadlineExceededError):
                        sess.run(out, {g.get_tensor_by_name("p:0"): p}, options=opts)


@pytest.mark.parametrize("p", [True, False])
def test_cond_in_parallel_plan(p):
    """Enough independent work that the plan runs on the thread pool."""
    rng = np.random.default_rng(0)
    av = rng.standard_normal((128, 128)).astype(np.float32)
    bv = rng.standard_normal((128, 128)).astype(np.float32)
    with ff.Graph().as_default():
        pred = ff.placeholder(ff.bool, [])
        a, b = ff.constant(av), ff.constant(bv)
        outs = [
            ff.cond(pred, lambda i=i: ff.matmul(a, b) + float(i), lambda: ff.matmul(b, a))
            for i in range(4)
        ]
        side = [ff.matmul(a + float(i), b) for i in range(4)]
        with ff.Session() as sess:
            res = sess.run(outs + side, {pred: p})
    for i, r in enumerate(res[:4]):
        want = av @ bv + i if p else bv @ av
        np.testing.assert_allclose(r, want, rtol=1e-4, atol=1e-3)


def test_minimize_through_cond(tf):
    def build(lib):
        pred = lib.placeholder(lib.bool, [], name="p")
        w = lib.Variable([1.0, -2.0], name="w")
        loss = lib.cond(
            pred, lambda: lib.reduce_sum(w * w), lambda: lib.reduce_sum(lib.abs(w) * 3.0)
        )
        step = lib.train.GradientDescentOptimizer(0.1).minimize(loss)
        return step, w

    res = []
    for lib in (tf, ff):
        with lib.Graph().as_default() as g:
            step, w = build(lib)
            pred = g.get_tensor_by_name("p:0")
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                for p in (True, False, True):
                    sess.run(step, {pred: p})
                res.append(sess.run(w))
    np.testing.assert_allclose(res[1], res[0], rtol=1e-6)


def test_fetching_untaken_switch_output_fails():
    with ff.Graph().as_default():
        pred = ff.placeholder(ff.bool, [])
        _, t = control_flow_ops.switch(ff.constant(1.0), pred)
        with ff.Session() as sess:
            assert sess.run(t, {pred: True}) == 1.0
            with pytest.raises(ff.errors.InvalidArgumentError, match="does not have value"):
                sess.run(t, {pred: False})


def test_cond_graph_matches_tf(tf):
    """The same ops as TF-1.x's cond: names, types and inputs (control ones included)."""

    def build(lib):
        p = lib.placeholder(lib.bool, [], name="p")
        q = lib.placeholder(lib.bool, [], name="q")
        x = lib.constant([1.0, 2.0], name="x")
        v = lib.Variable([3.0, 4.0], name="v")
        lib.cond(p, lambda: x * 2.0, lambda: v + 1.0)
        lib.cond(p, lambda: lib.reduce_sum(lib.gather(v, [1])), lambda: lib.constant(0.0))
        lib.cond(p, lambda: lib.cond(q, lambda: x, lambda: -x), lambda: (x,), name="outer")
        lib.cond(p, lambda: lib.assign(v, x).op, lib.no_op, name="ops")
        with lib.name_scope("scoped"):
            lib.case([(q, lambda: x)], default=lambda: x * 3.0)

    def describe(lib):
        with lib.Graph().as_default() as g:
            build(lib)
            # TF writes inputs its context rewired with their `:0` (`_update_input`).
            return sorted(
                (op.name, op.type, tuple(i.removesuffix(":0") for i in op.node_def.input))
                for op in g.get_operations()
            )

    assert describe(ff) == describe(tf)


def test_gradient_through_the_untaken_output_of_a_bare_switch_is_zero(tf1):
    """TF's `_SwitchGrad` outside a cond switches each gradient again on the
    predicate: the gradient of the untaken output is 0, the taken one's 1 (issue 42:
    the live default gradient of the untaken output came through as 1)."""

    def build(lib):
        x = lib.constant(2.0)
        s = lib.placeholder_with_default(True, [])
        x_false, x_true = _switch(lib, x, s)
        y = lib.cond(s, lambda: x * 3.0, lambda: x * 5.0)
        return [
            lib.gradients(x_true, x)[0],
            lib.gradients(x_false, x)[0],
            lib.gradients(x_true + 2.0 * x_false, x)[0],
            lib.gradients(y, x)[0],
        ]

    assert run_ff(build) == run_tf(tf1, build)
    fed = {"PlaceholderWithDefault:0": False}
    assert run_ff(build, lambda g: fed) == run_tf(tf1, build, lambda g: fed)


def _switch(lib, x, pred):
    if lib.__name__.startswith("tensorflow"):
        from tensorflow.python.ops import control_flow_ops

        return control_flow_ops.switch(x, pred)
    from ferroflow.ops import control_flow_ops

    return control_flow_ops.switch(x, pred)
