"""Control-flow details compared with TensorFlow: the errors for tensors of a while loop
used outside it (TF's `CheckInputFromValidContext`), the contexts ops record, the bare
`Assert` op wrapper, and `strided_slice` with tensor bounds and no strides.
"""

import numpy as np
import pytest

import ferroflow as ff
from conftest import run_ff, run_tf
from ferroflow.ops import control_flow_ops, logging_ops


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


def _while_tensor(lib):
    """A tensor made inside a while loop's body (leaked out of it)."""
    leaked = []

    def body(i):
        if not leaked:
            leaked.append(lib.constant(1))
        return i + leaked[0]

    lib.while_loop(lambda i: i < 10, body, [0])
    return leaked[0]


def _cond_tensor(lib):
    leaked = []

    def true_fn():
        if not leaked:
            leaked.append(lib.constant(1))
        return leaked[0]

    lib.cond(lib.less(1, 2), true_fn, lambda: lib.constant(0))
    return leaked[0]


def _error(lib, use):
    with lib.Graph().as_default():
        with pytest.raises(ValueError) as info:
            use(lib)
    return str(info.value)


def _use_outside(lib):
    lib.add(1, _while_tensor(lib))


def _use_in_cond(lib):
    t = _while_tensor(lib)
    lib.cond(lib.less(1, 2), lambda: lib.add(1, t), lambda: lib.constant(0))


def _use_in_other_loop(lib):
    t = _while_tensor(lib)
    lib.while_loop(lambda i: i < 10, lambda x: lib.add(1, t), [0])


def _return_in_other_loop(lib):
    t = _while_tensor(lib)
    lib.while_loop(lambda i: i < 10, lambda i: t, [0])


def _use_in_nested_loop(lib):
    def true_fn():
        t = _while_tensor(lib)
        return lib.while_loop(lambda i: i < 3, lambda i: i + t, [0])

    lib.cond(lib.less(1, 2), true_fn, lambda: lib.constant(0))


INVALID = {
    "outside": _use_outside,
    "in_cond": _use_in_cond,
    "other_loop": _use_in_other_loop,
    "other_loop_result": _return_in_other_loop,
    "nested": _use_in_nested_loop,
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_while_tensor_used_outside_its_loop_raises_as_tf(tf, case):
    expected = _error(tf, INVALID[case])
    assert _error(ff, INVALID[case]) == expected
    assert expected.startswith("Cannot use '")


def _while_bool_tensor(lib):
    leaked = []

    def body(i):
        if not leaked:
            leaked.append(lib.constant(True))
        return lib.cond(leaked[0], lambda: i + 1, lambda: i)

    lib.while_loop(lambda i: i < 10, body, [0])
    return leaked[0]


def test_while_tensor_as_another_loops_condition_raises_as_tf(tf):
    def use(lib):
        t = _while_bool_tensor(lib)
        lib.while_loop(lambda i: t, lambda i: i + 1, [0])

    expected = _error(tf, use)
    assert _error(ff, use) == expected
    assert "as input to 'while_1/LoopCond' because they are in different" in expected


def _nested_loop(lib):
    def body(_):
        c = lib.constant(1)
        return lib.while_loop(lambda i: i < 3, lambda i: i + c, [0])

    lib.while_loop(lambda i: i < 5, body, [0])


VALID = {
    "cond_tensor_outside": lambda lib: lib.add(1, _cond_tensor(lib)),
    "nested_loop": _nested_loop,
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_contexts_build(tf, case):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            VALID[case](lib)


def test_nested_cond_tensor_in_inner_loop_builds_as_tf(tf):
    # Built only, as TF's test: the outer loop's body returns the inner loop's result,
    # which never reaches the outer bound, so running it would not end (in TF either;
    # a while loop in a cond in a while loop that ends runs: the test below).
    for lib in (tf, ff):
        with lib.Graph().as_default():

            def body(_, lib=lib):
                c = _cond_tensor(lib)
                return lib.cond(
                    lib.less(1, 2),
                    lambda: lib.while_loop(lambda i: i < 3, lambda i: i + c, [0]),
                    lambda: lib.constant(0),
                )

            lib.while_loop(lambda i: i < 5, body, [0])


def test_while_gradients_read_the_loop_tensors(tf):
    def build(lib):
        x = lib.constant([1.0, 2.0])

        def body(i, a):
            inner = lib.while_loop(lambda j, _: j < 2, lambda j, b: (j + 1, b * a), [0, a])[1]
            return i + 1, inner

        r = lib.while_loop(lambda i, _: i < 2, body, [0, x])[1]
        return lib.gradients(r, x)[0]

    np.testing.assert_allclose(run_ff(build), run_tf(tf, build), rtol=1e-6)


def test_ops_record_their_control_flow_context():
    x = ff.constant(2)
    r = ff.cond(ff.less(x, 5), lambda: ff.multiply(x, 17), lambda: ff.add(x, 23))
    assert x.op._get_control_flow_context() is None
    assert r.op._get_control_flow_context() is None
    mul = ff.get_default_graph().get_operation_by_name("cond/Mul")
    ctxt = mul._get_control_flow_context()
    assert isinstance(ctxt, control_flow_ops.CondContext)
    assert ctxt.IsCondContext() and not ctxt.IsWhileContext()
    ff.while_loop(lambda i: i < 3, lambda i: ff.add(i, 1, name="inc"), [0])
    inc = ff.get_default_graph().get_operation_by_name("while/inc")
    assert inc._get_control_flow_context().IsWhileContext()


def test_bare_assert_op_matches_tf(tf):
    from tensorflow.python.ops import gen_logging_ops

    graphs = []
    for lib, assert_fn in ((tf, gen_logging_ops._assert), (ff, logging_ops._assert)):
        with lib.Graph().as_default() as g:
            op = assert_fn(lib.constant(True), [lib.constant(1.0)], name="unguarded")
            assert op.name == "unguarded"
            assert op.type == "Assert"
            assert op.get_attr("summarize") == 3
            with lib.Session() as sess:
                sess.run(op)
            graphs.append(g)
    with ff.Graph().as_default():
        op = logging_ops._assert(ff.constant(False), [ff.constant([1, 2])], summarize=1)
        with ff.Session() as sess, pytest.raises(ff.errors.InvalidArgumentError):
            sess.run(op)


def test_strided_slice_with_tensor_begin_and_no_strides_matches_tf(tf):
    def build(lib):
        x = lib.constant([1, 2, 3, 4, 5, 6])

        def compute(i, c, o):
            c = lib.strided_slice(x, lib.expand_dims(i, 0), lib.expand_dims(i + 1, 0))
            return i + 1, c, lib.concat([o, c], 0)

        return lib.while_loop(
            lambda i, c, o: i < lib.size(x),
            compute,
            [lib.constant(0), lib.constant([0]), lib.constant([0])],
            [
                lib.TensorShape([]),
                lib.TensorShape(None),
                lib.TensorShape(None),
            ],
        )[2]

    np.testing.assert_array_equal(run_ff(build), run_tf(tf, build))


def test_while_loop_in_cond_in_while_loop_runs_as_tf(tf):
    def build(lib):
        def body(i):
            inner = lib.cond(
                i < 5,
                lambda: lib.while_loop(lambda j: j < 3, lambda j: j + 1, [i]),
                lambda: i,
            )
            return inner + 1

        return lib.while_loop(lambda i: i < 10, body, [lib.constant(0)])

    results = []
    for lib in (tf, ff):
        with lib.Graph().as_default():
            out = build(lib)
            with lib.Session() as sess:
                results.append(sess.run(out))
    assert results[0] == results[1] == 10


def _run_both(tf, build, feeds=None):
    results = []
    for lib in (tf, ff):
        with lib.Graph().as_default():
            out, feed = build(lib), None
            if feeds is not None:
                feed = feeds(lib.get_default_graph())
            with lib.Session() as sess:
                results.append(sess.run(out, feed))
    return results


def test_gradient_taken_inside_a_loop_body_matches_tf(tf):
    # `tf.gradients` of an inner loop, called in the outer loop's body (TF's
    # testWhileGradInWhile): the gradient loop is part of the outer body.
    def build(lib):
        x = lib.placeholder(lib.float32, shape=None, name="x")

        def outer_body(n):
            r = lib.while_loop(lambda m: m < 10.0, lambda m: m + x, [n], [lib.TensorShape(None)])
            return lib.gradients(r, x)[0] + n

        unknown = [lib.TensorShape(None)]
        return lib.while_loop(lambda n: n < 6.0, outer_body, [lib.constant(1.0)], unknown)

    got, want = _run_both(tf, build, lambda g: {g.get_tensor_by_name("x:0"): 1.0})
    assert got == want


def test_cond_gradient_in_nested_loops_matches_tf(tf):
    def build(lib):
        def inner_body(j, x):
            y = lib.cond(lib.less(x, 1), lambda: 2 * x, lambda: x)
            return j + 1, lib.gradients(y, x)[0]

        def outer_body(i, x):
            _, x = lib.while_loop(lambda j, x: j < 3, inner_body, [0, 0.0])
            return i + 1, x

        return lib.while_loop(lambda i, x: i < 3, outer_body, [0, 0.0])

    got, want = _run_both(tf, build)
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(got[1], 1.0)


def _branch_and_loop(lib):
    """A cond and a while loop; returns the placeholder, the cond's result, the loop's
    result and a tensor of the loop's body."""
    x = lib.placeholder(lib.float32)
    out = lib.cond(lib.constant(True), lambda: x + 2, lambda: x + 0)
    body = []

    def loop_body(i):
        body.append(lib.constant(5))
        return i + body[0]

    r = lib.while_loop(lambda i: i < 10, loop_body, [lib.constant(0)])
    return x, out, r, body[0]


def test_branch_and_loop_tensors_cannot_be_fetched_or_fed(tf):
    # As TF: a cond branch's ops and a loop body's ops cannot be fetched (they exist
    # on one branch or inside the loop only); a loop body's tensors cannot be fed.
    for lib in (tf, ff):
        with lib.Graph().as_default() as g:
            x, out, r, inside = _branch_and_loop(lib)
            fetchable = {op.name for op in g.get_operations() if g.is_fetchable(op)}
            with lib.Session() as sess:
                assert sess.run(out, {x: 1.0}) == 3.0
                with pytest.raises(ValueError, match="has been marked as not fetchable"):
                    sess.run(out.op.inputs[1], {x: 1.0})
                with pytest.raises(ValueError, match="has been marked as not fetchable"):
                    sess.run(inside)
                with pytest.raises(ValueError, match="may not be fed"):
                    sess.run(r, {inside: 3})
                assert not g.is_feedable(inside) and g.is_feedable(x)
        assert {"Placeholder", "Const", "cond/Merge"} <= fetchable
        assert not fetchable & {"cond/Switch", "cond/switch_t", "cond/pred_id", "cond/add"}


def test_ref_identity_passes_the_reference_on(tf):
    from tensorflow.python.ops import control_flow_ops as tf_control_flow_ops

    def build(lib):
        v = lib.Variable(7)
        module = control_flow_ops if lib is ff else tf_control_flow_ops
        r = module._Identity(v)
        assert r.dtype == lib.int32._as_ref and r.op.type == "RefIdentity"
        assign = lib.assign(r, 9)
        with lib.control_dependencies([assign]):
            return lib.identity(v)

    results = []
    for lib in (tf, ff):
        with lib.Graph().as_default():
            out = build(lib)
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                results.append(sess.run(out))
    assert results == [9, 9]


def test_second_order_loop_gradient_raises_as_tf(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            theta = lib.Variable(1.0)
            r = lib.while_loop(lambda i, p: i < 3, lambda i, p, t=theta: (i + 1, p * t), [0, 1.0])
            (grad,) = lib.gradients(r[1], theta)
            with pytest.raises(TypeError, match="Second-order gradient for while loops"):
                lib.gradients(grad, theta)
            assert lib.gradients(lib.stop_gradient(grad), theta) == [None]
