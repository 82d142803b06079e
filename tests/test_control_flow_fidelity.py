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
