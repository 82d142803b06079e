"""Run-time errors reach Python as TensorFlow's exception classes, naming the op."""

import numpy as np
import pytest

import ferroflow as ff


def test_uninitialized_variable_is_failed_precondition():
    v = ff.Variable(1.0, name="weights")
    with ff.Session() as sess:
        with pytest.raises(
            ff.errors.FailedPreconditionError, match="Attempting to use uninitialized value weights"
        ) as e:
            sess.run(v + 1.0)
    assert e.value.error_code == ff.errors.FAILED_PRECONDITION
    assert e.value.op is not None


def test_unfed_placeholder_names_it():
    p = ff.placeholder(ff.int32, [None, 3], name="images")
    with ff.Session() as sess, pytest.raises(ff.errors.InvalidArgumentError) as e:
        sess.run(p * 2)
    assert "'images'" in e.value.message
    assert e.value.op.name == "images"
    assert isinstance(e.value, ff.errors.OpError)


def test_assign_shape_mismatch_at_run_time():
    v = ff.Variable(np.zeros(2, np.float32), validate_shape=True)
    p = ff.placeholder(ff.float32)
    a = ff.assign(v, p)
    with ff.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(ff.errors.InvalidArgumentError, match="Assign requires shapes"):
            sess.run(a, {p: np.zeros(3)})


def test_reshape_errors():
    with pytest.raises(ValueError, match="Cannot reshape"):
        ff.reshape(ff.zeros([2, 3]), [4, 2])
    p = ff.placeholder(ff.float32)
    r = ff.reshape(p, [-1, 4])
    with (
        ff.Session() as sess,
        pytest.raises(ff.errors.InvalidArgumentError, match="Input to reshape"),
    ):
        sess.run(r, {p: np.zeros(6)})


def test_rust_panic_becomes_internal_error_not_a_crash():
    g = ff.get_default_graph()
    boom = g._create_op("_PanicForTesting", [ff.constant(1.0)], name="boom")
    with ff.Session() as sess:
        with pytest.raises(ff.errors.InternalError, match="Rust panic") as e:
            sess.run(boom)
        assert e.value.op is boom
        # The session still works afterwards.
        assert sess.run(ff.constant(1)) == 1
