"""`ResourceVariable`'s interface compared with TensorFlow's resource variables: which
variables are resource variables, `sparse_read` / `gather_nd` values and gradients, and
the variable-after-update that `assign*` returns.
"""

import numpy as np
import pytest

import ferroflow as ff
from conftest import run_ff, run_tf
from ferroflow.ops import resource_variable_ops


@pytest.fixture(scope="module")
def tf(tf1):
    return tf1


def _dense(value):
    """A fetched gradient as an array (an `IndexedSlicesValue` summed into zeros)."""
    if hasattr(value, "indices"):
        out = np.zeros(value.dense_shape, value.values.dtype)
        np.add.at(out, value.indices, value.values)
        return out
    return np.asarray(value)


def test_which_variables_are_resource_variables(tf):
    from tensorflow.python.ops import resource_variable_ops as tf_rv

    for lib, rv in ((tf, tf_rv), (ff, resource_variable_ops)):
        with lib.Graph().as_default():
            assert not rv.is_resource_variable(lib.Variable(1.0))
            assert rv.is_resource_variable(lib.Variable(1.0, use_resource=True))
            assert rv.is_resource_variable(rv.ResourceVariable(1.0))
            with lib.variable_scope("r", use_resource=True):
                assert rv.is_resource_variable(lib.get_variable("a", []))
                assert rv.is_resource_variable(lib.Variable(1.0))
                assert not rv.is_resource_variable(lib.get_variable("b", [], use_resource=False))
            with lib.variable_scope("n"):
                assert not rv.is_resource_variable(lib.get_variable("c", []))
                assert rv.is_resource_variable(lib.get_variable("d", [], use_resource=True))
            assert not rv.is_resource_variable(lib.constant(1.0))


def _rv(lib, value):
    return lib.Variable(np.asarray(value, np.float32), use_resource=True)


def test_sparse_read_and_gather_nd_match_tf(tf):
    def build(lib):
        v = _rv(lib, np.arange(12).reshape(4, 3))
        return v.sparse_read([3, 0, 3]), v.gather_nd([[1, 2], [2, 0]])

    a, b = run_tf(tf, build), run_ff(build)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def test_sparse_read_names_its_op():
    v = _rv(ff, np.ones((4, 2)))
    assert v.sparse_read([1]).op.name == "Gather"
    assert v.sparse_read([1], name="rows").op.name == "rows"


def test_sparse_read_gradient_is_indexed_slices_as_tf(tf):
    def build(lib):
        v = _rv(lib, np.ones((4, 2)))
        g = lib.gradients(lib.reduce_sum(v.sparse_read([1, 2, 1]) * 3.0), v)[0]
        assert isinstance(g, lib.IndexedSlices)
        return g

    np.testing.assert_array_equal(_dense(run_ff(build)), _dense(run_tf(tf, build)))


def test_sparse_read_gradients_through_while_loops_match_tf(tf):
    def build(lib):
        v1 = _rv(lib, np.ones(5))
        v2 = _rv(lib, np.ones(3))

        def body(i, x1, x2):
            return i + 1, x1 * lib.reduce_sum(v1.sparse_read([1, 3])), v2.sparse_read([0, 0])

        r = lib.while_loop(
            lambda i, *_: i < 3, body, [0, lib.constant(1.0), lib.constant([0.0, 0.0])]
        )[1:]
        return lib.gradients(r, [v1, v2])

    for a, b in zip(run_tf(tf, build), run_ff(build), strict=True):
        np.testing.assert_array_equal(_dense(b), _dense(a))


def test_assign_returns_the_variable_after_the_update_as_tf(tf):
    op_types = []

    def build(lib):
        v = _rv(lib, 1.0)
        after = v.assign_add(2.0)
        read = after.read_value()
        with lib.control_dependencies([read]):
            later = v.assign_sub(0.5).read_value()
        op_types.append(after.op.type)
        return read, later

    np.testing.assert_array_equal(run_ff(build), run_tf(tf, build))
    # The update op (TF's works on the handle, ferroflow's on the reference).
    assert op_types == ["AssignAdd", "AssignAddVariableOp"]


def test_unread_variable_reads_follow_the_update(tf):
    def build(lib):
        v = _rv(lib, 0.0)
        increment = v.assign_add(1.0).read_value()

        def body(i):
            with lib.control_dependencies([increment]):
                return i + 1

        return lib.while_loop(lambda i: i < 2, body, [1]), increment

    assert run_ff(build) == run_tf(tf, build)


def test_assign_without_read_value_returns_the_op(tf):
    for lib in (tf, ff):
        with lib.Graph().as_default():
            v = _rv(lib, 1.0)
            assert isinstance(v.assign(2.0, read_value=False), lib.Operation)
            assert isinstance(v.assign_add(2.0, read_value=False), lib.Operation)
            assert isinstance(v.assign_sub(2.0, read_value=False), lib.Operation)


def test_unread_variable_fetches_and_converts():
    v = _rv(ff, [1.0, 2.0])
    after = v.assign([3.0, 4.0])
    doubled = after * 2.0
    with ff.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(after), [3.0, 4.0])
        np.testing.assert_array_equal(sess.run(doubled), [6.0, 8.0])
        np.testing.assert_array_equal(sess.run(ff.convert_to_tensor(after)), [3.0, 4.0])
        sess.run(ff.group(v.assign_add([1.0, 1.0])))
        np.testing.assert_array_equal(sess.run(v), [4.0, 5.0])
    assert after.name == after.op.name
    assert after.shape.as_list() == [2]
