"""Variables: creation, initialisation, assignment, collections and per-session state."""

import numpy as np
import pytest

import ferroflow as ff


def test_variable_basics():
    v = ff.Variable([[1.0, 2.0]], name="v")
    assert v.name == "v:0"
    assert v.op.type == "VariableV2"
    assert v.dtype == ff.float32.__class__(101) and v.dtype.base_dtype == ff.float32
    assert v.dtype.name == "float32_ref"
    assert v.shape.as_list() == [1, 2] and v.get_shape().as_list() == [1, 2]
    assert v.initializer.type == "Assign" and v.initializer.name == "v/Assign"
    assert v.value().op.name == "v/read"
    assert v.initial_value.op.name == "v/initial_value"
    assert repr(v) == "<tf.Variable 'v:0' shape=(1, 2) dtype=float32_ref>"
    assert ff.global_variables() == [v] and ff.trainable_variables() == [v]
    assert ff.all_variables() == [v]


def test_initializers_and_reads():
    a = ff.Variable(ff.zeros([2]), name="a")
    b = ff.Variable(lambda: ff.ones([3], dtype=ff.int32), name="b")
    local = ff.Variable(5.0, collections=[ff.GraphKeys.LOCAL_VARIABLES], name="local")
    assert b.initial_value.op.name == "b/Initializer/ones"
    assert ff.local_variables() == [local]
    with ff.Session() as sess:
        assert sorted(sess.run(ff.report_uninitialized_variables()).tolist()) == [
            b"a",
            b"b",
            b"local",
        ]
        assert not sess.run(ff.is_variable_initialized(a))
        sess.run(ff.global_variables_initializer())
        assert sess.run(ff.report_uninitialized_variables()).tolist() == [b"local"]
        sess.run(ff.local_variables_initializer())
        assert sess.run(ff.report_uninitialized_variables()).size == 0
        assert sess.run(ff.is_variable_initialized(a))
        np.testing.assert_array_equal(sess.run(b), [1, 1, 1])
        np.testing.assert_array_equal(a.eval(), [0.0, 0.0])
        assert sess.run(ff.initialize_all_variables()) is None
    assert ff.global_variables_initializer().type == "NoOp"
    assert ff.variables_initializer([]).type == "NoOp"


def test_assign_ops_return_the_new_value():
    v = ff.Variable(10, name="counter")
    add = v.assign_add(5)
    sub = ff.assign_sub(v, 3)
    put = v.assign(100)
    with ff.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(add) == 15
        assert sess.run(sub) == 12
        assert sess.run(put) == 100
        assert sess.run(v) == 100
        assert sess.run(v.assign_add(1, read_value=False)) is None


def test_sessions_hold_independent_values():
    v = ff.Variable(1.0)
    inc = v.assign_add(1.0)
    s1, s2 = ff.Session(), ff.Session()
    try:
        s1.run(v.initializer)
        s2.run(v.initializer)
        s1.run(inc)
        s1.run(inc)
        assert s1.run(v) == 3.0
        assert s2.run(v) == 1.0
        s3 = ff.Session()
        with pytest.raises(ff.errors.FailedPreconditionError):
            s3.run(v)
        s3.close()
    finally:
        s1.close()
        s2.close()


def test_load_and_initialized_value():
    v = ff.Variable(np.zeros((2, 2), np.float32))
    w = ff.Variable(v.initialized_value() + 1.0)
    with ff.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w), np.ones((2, 2)))
        v.load(np.full((2, 2), 7.0), sess)
        np.testing.assert_array_equal(sess.run(v), np.full((2, 2), 7.0))


@pytest.mark.tf_oracle
def test_copies_of_initialized_values_wait_for_their_variables(tf1):
    # `tf.Variable(v.initialized_value())` (how ExponentialMovingAverage and optimizer
    # slots start): one global initializer runs every Assign; each copy must still
    # read its variable after the variable's own initializer, however many there are.
    def build(tf):
        tf.set_random_seed(1)
        originals = [tf.Variable(tf.truncated_normal([576, 128]), name=f"w{i}") for i in range(6)]
        copies = [
            tf.Variable(w.initialized_value(), name=f"copy{i}") for i, w in enumerate(originals)
        ]
        return originals, copies

    def run(tf):
        with tf.Graph().as_default():
            originals, copies = build(tf)
            init = tf.global_variables_initializer()
            firsts = None
            for _ in range(10):
                with tf.Session() as sess:
                    sess.run(init)
                    values, expected = sess.run([copies, originals])
                firsts = firsts or values
                for a, b in zip(values, expected, strict=True):
                    np.testing.assert_array_equal(a, b)
            return firsts

    for ours, theirs in zip(run(ff), run(tf1), strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_validate_shape_false_allows_reshaping_assignments():
    v = ff.Variable([1.0, 2.0], validate_shape=False)
    assert v.shape.ndims is None
    p = ff.placeholder(ff.float32)
    a = ff.assign(v, p, validate_shape=False)
    with ff.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(
            sess.run(a, {p: [[1.0], [2.0], [3.0]]}), [[1.0], [2.0], [3.0]]
        )


def test_variable_arithmetic_and_dtype_conversion():
    v = ff.Variable(2.0, dtype=ff.float64)
    assert v.dtype.base_dtype == ff.float64
    y = v * 3 + 1
    z = 1 - v
    with ff.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(y) == 7.0
        assert sess.run(z) == -1.0
    with pytest.raises(ValueError, match="initial_value must be specified"):
        ff.Variable()
    with pytest.raises(TypeError, match="mutable tensor"):
        ff.assign(ff.constant(1.0), 2.0)


def test_assign_add_shape_mismatch_is_an_op_error():
    v = ff.Variable(np.zeros(3, np.float32), validate_shape=False)
    p = ff.placeholder(ff.float32)
    upd = ff.assign_add(v, p)
    with ff.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(ff.errors.InvalidArgumentError, match="must be the same size"):
            sess.run(upd, {p: np.ones(2)})


def test_fetched_value_survives_in_place_updates():
    v = ff.Variable(np.arange(4, dtype=np.float32))
    inc = v.assign_add(np.ones(4, np.float32))
    with ff.Session() as sess:
        sess.run(v.initializer)
        before = sess.run(v.value())
        sess.run(inc)
        np.testing.assert_array_equal(before, [0, 1, 2, 3])
        np.testing.assert_array_equal(sess.run(v), [1, 2, 3, 4])


@pytest.mark.tf_oracle
def test_gradient_descent_loop_matches_tensorflow(tf1):
    from conftest import run_ff, run_tf

    def build(tf):
        rng = np.random.default_rng(3)
        x = tf.constant(rng.normal(size=(16, 3)).astype(np.float32))
        y = tf.constant(rng.normal(size=(16, 1)).astype(np.float32))
        w = tf.Variable(tf.zeros([3, 1]))
        err = tf.matmul(x, w) - y
        grad = tf.matmul(x, err, transpose_a=True) / 16.0
        step = w.assign_sub(0.1 * grad)
        with tf.control_dependencies([step]):
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w.read_value()) - y))
        return [loss] * 1

    ours = [run_ff(build) for _ in range(1)]
    theirs = [run_tf(tf1, build) for _ in range(1)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
